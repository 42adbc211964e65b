//! What authors expect from Zola or mdBook (issue 21), read from the built sites of the
//! `tests/sites/author-*` fixtures: drafts left out of `build` and shown by `watch`,
//! ladder titles from `countersign.yaml`, no empty provenance section, footnotes with
//! backlinks, images copied beside the page, the root found from a subfolder, and a
//! `countersign new` site that builds and passes `check --strict`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use countersign_site::pipeline::{self, RunOptions};

fn site(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites").join(name)
}

/// `countersign ARGS` run in `dir`, with no colour.
fn countersign(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_countersign")).current_dir(dir).arg("--no-color").args(args).env("CI", "1").output().unwrap()
}

/// Build the fixture `name` into a fresh folder; returns it (kept alive) and stderr.
fn build(name: &str) -> (tempfile::TempDir, String) {
    let out = tempfile::tempdir().unwrap();
    let public = out.path().join("public");
    let root = site(name);
    let o = countersign(&root, &["--root", root.to_str().unwrap(), "build", "--no-cache", "--out", public.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{name}: build failed:\n{stderr}");
    (out, stderr)
}

fn read(dir: &tempfile::TempDir, file: &str) -> String {
    std::fs::read_to_string(dir.path().join("public").join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn a_draft_is_left_out_of_build_everywhere() {
    let (out, stderr) = build("author-draft");
    assert!(stderr.contains("warning[draft]"), "{stderr}");
    assert!(!out.path().join("public/unfinished").exists(), "the draft has a page");
    for file in ["index.html", "welter/index.html", "feed.xml", "sitemap.xml", "search-index.json", "published/index.html"] {
        let text = read(&out, file);
        assert!(!text.contains("unfinished/"), "{file} links to the draft:\n{text}");
        assert!(!text.contains("Unfinishedword") && !text.contains("Unfinished."), "{file} holds the draft's text:\n{text}");
    }
    // The published essay's link to the draft is plain text, reported at the draft.
    assert!(read(&out, "published/index.html").contains("<span class=\"planned\">The unfinished essay</span>"));
    assert!(stderr.contains("the draft “The unfinished essay” is linked to from essays/published.md"), "{stderr}");
    assert!(!stderr.contains("planned essay"), "a draft is not a planned essay: {stderr}");
}

/// `watch` renders through `pipeline::run_with` with drafts shown: the draft has its page,
/// with a banner, and is on its ladder.
#[test]
fn watch_shows_a_draft_with_a_banner() {
    let run = pipeline::run(
        &RunOptions {
            root: site("author-draft"),
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
    let page = String::from_utf8(out.files["unfinished/index.html"].to_vec()).unwrap();
    assert!(page.contains("class=\"draft-banner\""), "{page}");
    let published = String::from_utf8(out.files["published/index.html"].to_vec()).unwrap();
    assert!(!published.contains("draft-banner"), "a published essay has no banner");
    assert!(String::from_utf8(out.files["welter/index.html"].to_vec()).unwrap().contains("unfinished/"));
}

#[test]
fn ladder_titles_come_from_the_config_and_no_census_means_no_provenance_section() {
    let (out, _) = build("author-ladder-title");
    let ladder = read(&out, "held-pass/index.html");
    assert!(ladder.contains("<h1>Holding the pass</h1>"), "{ladder}");
    let first = read(&out, "first/index.html");
    assert!(first.contains(">Holding the pass</a>"), "{first}");
    assert!(read(&out, "index.html").contains("Holding the pass"));
    // A ladder the config does not name is titled from its anchor.
    assert!(read(&out, "other-ladder/index.html").contains("<h1>Other ladder</h1>"));
    for page in [&first, &read(&out, "second/index.html")] {
        assert!(!page.contains("How these numbers were computed") && !page.contains("how-computed"), "{page}");
    }
}

#[test]
fn commands_find_the_root_from_a_subfolder() {
    // A site with no countersign.yaml inside this repository (which has one) is found by
    // its essays/ folder, not mistaken for the repository's own site.
    let o = countersign(&site("author-footnote"), &["check", "--no-cache"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && e.contains("ok 1 essay"), "{e}");
    let from_root = countersign(&site("author-root-subfolder"), &["check", "--no-cache"]);
    let below = countersign(&site("author-root-subfolder").join("essays/notes"), &["check", "--no-cache"]);
    let (a, b) = (String::from_utf8_lossy(&from_root.stderr), String::from_utf8_lossy(&below.stderr));
    assert_eq!(below.status.code(), Some(1), "{b}");
    assert!(b.contains("essays/e.md:11:34") && b.contains("error[claim-mismatch]"), "{b}");
    // The same diagnostics as from the root (the summary line holds the time taken).
    let body = |s: &str| s.lines().filter(|l| !l.starts_with("FAILED")).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&a), body(&b));
}

#[test]
fn images_beside_an_essay_are_copied_into_its_page_folder() {
    let (out, _) = build("author-image");
    let src = site("author-image");
    for (from, to) in [("essays/walk/strip.svg", "walk/strip.svg"), ("essays/board.png", "walk/board.png")] {
        let made = std::fs::read(out.path().join("public").join(to)).unwrap_or_else(|e| panic!("{to}: {e}"));
        assert_eq!(made, std::fs::read(src.join(from)).unwrap(), "{to}");
    }
    let page = read(&out, "walk/index.html");
    assert!(page.contains(r#"<img src="strip.svg" alt="a strip of squares" title="The strip" />"#), "{page}");
}

#[test]
fn a_footnote_links_back_to_each_reference() {
    let (out, _) = build("author-footnote");
    let page = read(&out, "notes/index.html");
    // The heading `fn-1` keeps its id; the first note takes the next free one.
    assert!(page.contains(r#"<h2 id="fn-1">"#), "{page}");
    for r in ["fnref-1-1", "fnref-1-2", "fnref-2-1"] {
        assert!(page.contains(&format!(r#"id="{r}""#)), "reference {r}: {page}");
        assert!(page.contains(&format!(r##"class="footnote-backref" href="#{r}""##)), "no link back to {r}: {page}");
    }
    assert!(page.contains(r##"<a href="#fn-1-1">1</a>"##) && page.contains(r#"id="fn-1-1""#), "{page}");
    assert!(page.contains(r##"<a href="#fn-2">2</a>"##) && page.contains(r#"id="fn-2""#), "{page}");
}

/// `countersign new` then `countersign build` on a fresh folder publishes the essays, and
/// `check --strict` passes on them, run from inside the new site as an author would.
#[test]
fn a_new_site_builds_and_passes_strict_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let o = countersign(tmp.path(), &["new", "fresh"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dir = tmp.path().join("fresh");
    let o = countersign(&dir.join("essays"), &["build"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in
        ["first-essay/index.html", "first-essay/strip.svg", "first-essay/fig-values.svg", "second-essay/index.html", "welter/index.html"]
    {
        assert!(dir.join("public").join(f).is_file(), "{f} not published");
    }
    let o = countersign(&dir, &["check", "--strict"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && e.contains("0 errors, 0 warnings"), "{e}");
}
