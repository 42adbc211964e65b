//! Every place a number reaches the reader, end to end: a heading's claim blessed keeps
//! the links to it working; what an author writes reaches the built page whole (private-use
//! characters, claims in citation locators, `[[…]]` links, captions, titles).

use std::path::Path;
use std::process::Command;

fn countersign(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(root).arg("--no-color").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

const CENSUS: &str = "```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n";

/// A site in a fresh folder with `essays` (file name, text) and a bibliography.
fn site(essays: &[(&str, String)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("essays")).unwrap();
    for (name, text) in essays {
        std::fs::write(d.path().join("essays").join(name), text).unwrap();
    }
    let refs = "onag:\n  type: book\n  title: On Numbers and Games\n  author: Conway, John H.\n  date: 1976\n";
    std::fs::write(d.path().join("references.yaml"), refs).unwrap();
    d
}

#[test]
fn bless_keeps_links_to_a_heading_with_a_claim() {
    // The heading's id used to hold the stated number, so blessing it broke `[[#…]]`.
    let essay = format!(
        "---\ntitle: E\n---\n\n{CENSUS}\n## The {{{{ g.positions = 15 }}}} positions\n\n\
         See [[#the-positions]] and [[#The {{{{ g.positions = 15 }}}} positions|them]].\n"
    );
    let d = site(&[("e.md", essay)]);
    let (code, _, err) = countersign(d.path(), &["check", "--no-cache"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("2 errors") && err.matches("error[claim-mismatch]").count() == 2, "only the two stated values disagree: {err}");
    let (code, out, err) = countersign(d.path(), &["check", "--no-cache", "--bless"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = countersign(d.path(), &["check", "--no-cache"]);
    assert_eq!(code, 0, "after --bless the links still find the heading: {err}");
}

#[test]
fn what_an_author_writes_reaches_the_page() {
    let first = format!(
        "---\ntitle: \"Nim on {{{{ plain 8 }}}} heaps\"\nsummary: \"All {{{{ g.positions = 14 }}}} of them.\"\n---\n\n{CENSUS}\n\
         Kept: \u{E000}0\u{E001} and \u{E002}0\u{E003}, beside {{{{ g.positions = 14 }}}}.\n\n\
         Cited [@onag, p. {{{{ plain 194 }}}}]; see [[Other {{{{ plain 3 }}}} heaps]].\n\n\
         ```figure\nid: f\nfrom: g.move_test.all_struck\nplot: grid\ncaption: \"*Struck* moves, $x_1$, of {{{{ g.positions = 14 }}}}\"\n\
         alt: \"One row of {{{{ plain 3 }}}} cells\"\nx_label: move\n```\n"
    );
    let second = "---\ntitle: Other 3 heaps\n---\n\nBack to [[Nim on 8 heaps]].\n".to_string();
    let d = site(&[("a.md", first), ("b.md", second)]);
    let out = d.path().join("public");
    let (code, _, err) = countersign(d.path(), &["build", "--no-cache", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(out.join("a/index.html")).unwrap();
    assert!(page.contains("Kept: \u{E000}0\u{E001} and \u{E002}0\u{E003}, beside <span class=\"claimed\"><a class=\"claim\""), "{page}");
    assert!(page.contains(">Conway 1976, p. 194</a>"), "the locator as written: {page}");
    assert!(page.contains("<a class=\"essay-link\" href=\"../b/\">Other 3 heaps</a>"), "{page}");
    assert!(page.contains("<title>Nim on 8 heaps"), "{page}");
    assert!(page.contains("alt=\"One row of 3 cells\""), "{page}");
    let caption = &page[page.find("<figcaption>").unwrap()..];
    assert!(caption.contains("<em>Struck</em> moves, <math"), "{caption}");
    // The claim, then its certificate (census, path, value), closes the caption.
    assert!(caption.contains(">14</a><span class=\"certificate\""), "{caption}");
    assert!(
        caption.contains("<code>g.positions</code></span> <span class=\"cert-value\">value <b>14</b></span></span></span></figcaption>"),
        "{caption}"
    );
    let svg = std::fs::read_to_string(out.join("a/fig-f.svg")).unwrap();
    assert!(svg.contains(">Struck moves, x_1, of 14</title>"), "{svg}");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("All 14 of them.") && !index.contains("{{"), "{index}");
    let feed = std::fs::read_to_string(out.join("feed.xml")).unwrap();
    assert!(!feed.contains("{{"), "{feed}");
    let search = std::fs::read_to_string(out.join("search-index.json")).unwrap();
    assert!(search.contains("\"title\":\"Nim on 8 heaps\"") && !search.contains("{{"), "{search}");
}

/// A claim in math: `$S = \{{{ g.positions = 14 }}\}$` is a set holding the checked value,
/// with the same link and certificate as a claim in prose. It used to be LaTeX's brace and
/// a group: the page showed "{g.positions=14}", checked nothing and passed.
#[test]
fn a_claim_in_math_is_checked_and_carries_its_certificate() {
    let essay =
        format!("---\ntitle: E\n---\n\n{CENSUS}\nThe set $S = \\{{{{{{ g.positions = 14 }}}}\\}}$ and $\\{{{{{{ plain 2 }}}}, 5\\}}$.\n");
    let d = site(&[("e.md", essay)]);
    let (code, _, err) = countersign(d.path(), &["check", "--no-cache"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 claim checked"), "{err}");
    let out = d.path().join("public");
    let (code, _, err) = countersign(d.path(), &["build", "--no-cache", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(out.join("e/index.html")).unwrap();
    let brace = |c: char| format!("<mo stretchy=\"false\">{c}</mo>");
    // The math in the claim's link, the value marked in the MathML, then the certificate.
    let set = format!(
        "<span class=\"claimed\"><a class=\"claim\" href=\"#calls-g\" aria-describedby=\"claim-0-certificate\" aria-label=\"S={{14}}\"><math><mi>S</mi><mo>=</mo>\
         {}<mn class=\"claim-value\">14</mn>{}</math></a><span class=\"certificate\" role=\"tooltip\" id=\"claim-0-certificate\">",
        brace('{'),
        brace('}')
    );
    assert!(page.contains(&set), "{page}");
    assert!(page.contains("<code>g.positions</code></span> <span class=\"cert-value\">value <b>14</b></span></span></span>"), "{page}");
    assert!(page.contains(&format!("{}<mn>2</mn><mo>,</mo><mn>5</mn>{}", brace('{'), brace('}'))), "{page}");
    // Not the claim's source as letters ("positions", "plain").
    assert!(!page.contains("<mi>o</mi><mi>s</mi><mi>i</mi>") && !page.contains("<mi>l</mi><mi>a</mi><mi>i</mi>"), "{page}");
}
