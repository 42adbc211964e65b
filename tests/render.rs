//! Rendered pages contain their claims, exactly as stated and linked to their provenance,
//! MathML for the math, numbered figures, and the index lists essays by ladder.

use std::path::PathBuf;

use countersign_site::pipeline::{self, RunOptions};

/// `html` with each ` aria-describedby="claim-N-certificate"` left out.
fn without_certificate_names(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find(" aria-describedby=\"claim-") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let close = after.find("-certificate\"").map_or(after.len(), |e| e + "-certificate\"".len());
        rest = &after[close..];
    }
    out.push_str(rest);
    out
}

#[test]
fn pages_contain_claims_mathml_and_provenance() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-basic");
    let run = pipeline::run(
        &RunOptions { root, use_cache: false, progress: false, render: true, theme: countersign::THEME, base_url: None },
        None,
    );
    assert!(run.ok(), "{}", run.loaded.sources.render(&run.diags, false));
    let out = run.output.unwrap();
    let page = String::from_utf8(out.files["small/index.html"].to_vec()).unwrap();
    // Each claim names its certificate; the claim's own markup is read without that name.
    assert!(page.contains(r##"<span class="cert-path">path <code>g4.move_test.struck_share</code></span> <span class="cert-value">value <b>19 of 31</b></span>"##), "{page}");
    let page = without_certificate_names(&page);
    assert!(page.contains(r##"<a class="claim" href="#calls-g4">14</a>"##), "{page}");
    assert!(page.contains(r##"<a class="claim" href="#calls-g4">61.3 per cent</a>"##));
    assert!(
        page.contains(r##"<em><span class="claimed"><a class="claim" href="#calls-g4">61.3 per cent</a><span class="certificate""##),
        "emphasis wraps the claim whole"
    );
    assert!(
        page.contains(r##"<b>19 of 31</b></span> <span class="cert-form">≈ 61.29 %</span></span></span></em>"##),
        "and its certificate, with the value in the stated form"
    );
    assert!(page.contains("<math><mi>a</mi><mo>⊕</mo><mi>b</mi></math>"), "math macro from countersign.yaml");
    assert!(page.contains("Literal {{ x }}"), "an escaped claim is literal text");
    assert!(page.contains("<code>{{ y }}</code>"));
    assert!(page.contains(r#"<li id="calls-g4"><code>g4</code> = <code>sylver.census</code>"#));
    assert!(!page.contains('\u{E000}'), "no placeholder leaks");
    let index = String::from_utf8(out.files["index.html"].to_vec()).unwrap();
    assert!(index.contains(r#"<a href="small/">Small semigroups</a>"#), "{index}");
    let results: serde_json::Value = serde_json::from_slice(&out.files["small/results.json"]).unwrap();
    assert_eq!(results["claims"][0]["value"], 14);
    assert!(out.files.contains_key("style.css"));
}

/// A claim in alt text is its plain text; one in a link's text keeps its certificate
/// (it was plain text, with no certificate), in a span, never a link inside the link.
#[test]
fn a_claim_in_alt_text_is_plain_text_and_in_link_text_keeps_its_certificate() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-claims-in-links");
    let run = pipeline::run(
        &RunOptions { root, use_cache: false, progress: false, render: true, theme: countersign::THEME, base_url: None },
        None,
    );
    assert!(run.ok(), "{}", run.loaded.sources.render(&run.diags, false));
    let page = String::from_utf8(run.output.unwrap().files["small/index.html"].to_vec()).unwrap();
    assert!(page.contains(r#"<img src="strip.png" alt="a strip of 14 cells" />"#), "{page}");
    let claimed = |i: usize| {
        format!(
            "<span class=\"claimed\"><span class=\"claim\" aria-describedby=\"claim-{i}-certificate\">14</span>\
             <span class=\"certificate\" role=\"tooltip\" id=\"claim-{i}-certificate\"><span class=\"cert-census\">census"
        )
    };
    assert!(page.contains(&format!("<a href=\"https://example.org/\">all {}", claimed(1))), "{page}");
    assert!(page.contains(&format!("href=\"../small/\">the {}", claimed(2))), "{page}");
    assert!(!page.contains('\u{E000}'), "no placeholder leaks");
}

/// `claim_marks:` in countersign.yaml reaches every page's `<body>`, where the style sheet
/// reads it; a site without it has the default, `underline`.
#[test]
fn claim_marks_reach_every_page() {
    let sites = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites");
    for (site, marks) in [("ok-basic", "underline"), ("config-claim-marks-hover", "hover")] {
        let run = pipeline::run(
            &RunOptions {
                root: sites.join(site),
                use_cache: false,
                progress: false,
                render: true,
                theme: countersign::THEME,
                base_url: None,
            },
            None,
        );
        assert!(run.ok(), "{}", run.loaded.sources.render(&run.diags, false));
        let out = run.output.unwrap();
        for page in out.files.keys().filter(|p| p.ends_with(".html")) {
            let html = String::from_utf8(out.files[page].to_vec()).unwrap();
            assert!(html.contains(&format!("<body data-claim-marks=\"{marks}\">")), "{site} {page}: {html}");
        }
    }
}

/// `build --base-url URL` publishes under URL in place of `countersign.yaml`'s `base_url`
/// (here none): the feed's, the sitemap's and the pages' canonical addresses; a URL
/// with no scheme or host is a usage error (exit 2) and writes nothing.
#[test]
fn build_base_url_replaces_the_configured_one() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-basic");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("public");
    let build = |url: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_countersign"))
            .args(["build", "--no-cache", "--root"])
            .arg(&root)
            .arg("--out")
            .arg(&out)
            .args(["--base-url", url])
            .output()
            .unwrap()
    };
    let done = build("https://pages.example/essays/");
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    let feed = std::fs::read_to_string(out.join("feed.xml")).unwrap();
    assert!(feed.contains("<link rel=\"self\" href=\"https://pages.example/essays/feed.xml\"/>"), "{feed}");
    assert!(!feed.contains("essays//"), "{feed}");
    let sitemap = std::fs::read_to_string(out.join("sitemap.xml")).unwrap();
    assert!(sitemap.contains("<loc>https://pages.example/essays/small/</loc>"), "{sitemap}");
    let page = std::fs::read_to_string(out.join("small/index.html")).unwrap();
    assert!(page.contains("<link rel=\"canonical\" href=\"https:&#x2F;&#x2F;pages.example&#x2F;essays&#x2F;small&#x2F;\">"), "{page}");
    std::fs::remove_dir_all(&out).unwrap();
    for bad in ["pages.example", "https://", "ftp://x.org", "https:///x"] {
        let refused = build(bad);
        assert_eq!(refused.status.code(), Some(2), "{bad}: {}", String::from_utf8_lossy(&refused.stderr));
        assert!(String::from_utf8_lossy(&refused.stderr).contains("not an http or https URL"), "{bad}");
        assert!(!out.exists(), "{bad}");
    }
}
