//! `countersign check --bless` on a real site: rewrites through a symlink keeping each
//! stated form, prints the diff, and a second check passes; a form that cannot hold the
//! value is refused with a diagnostic and the file is left alone.

use std::path::Path;
use std::process::Command;

fn countersign(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(root).arg("--no-color").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[cfg(unix)]
const ESSAY: &str = "---\ntitle: E\n---\n\n```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\n\
Positions: {{ g.positions = 1,500 }}, in words {{ g.positions = Fifteen }}; struck {{ g.move_test.struck_share = 60.0 per cent }},\n\
or {{ g.move_test.struck_share = 20 of 31 }}. Unchanged: {{ g.lost = two }}.\n";

#[test]
#[cfg(unix)]
fn bless_rewrites_through_a_symlink_keeping_forms() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("site");
    std::fs::create_dir_all(root.join("essays")).unwrap();
    let real = d.path().join("real.md");
    std::fs::write(&real, ESSAY).unwrap();
    std::os::unix::fs::symlink(&real, root.join("essays/e.md")).unwrap();
    let (code, _, err) = countersign(&root, &["check", "--no-cache"]);
    assert_eq!(code, 1, "{err}");
    let (code, out, err) = countersign(&root, &["check", "--no-cache", "--bless"]);
    assert_eq!(code, 0, "{err}");
    // Each change: file:line:column, then its line before and after.
    assert!(out.contains("essays/e.md:11:29\n- Positions: {{ g.positions = 1,500 }}, in words"), "{out}");
    assert!(out.contains("\n+ Positions: {{ g.positions = 14 }}, in words {{ g.positions = Fifteen }}"), "{out}");
    assert!(out.contains("\n+ Positions: {{ g.positions = 1,500 }}, in words {{ g.positions = Fourteen }}"), "{out}");
    assert!(out.contains("struck {{ g.move_test.struck_share = 61.3 per cent }},\n"), "{out}");
    assert!(out.contains("essays/e.md:12:34\n- or {{ g.move_test.struck_share = 20 of 31 }}."), "{out}");
    assert!(out.contains("\n+ or {{ g.move_test.struck_share = 19 of 31 }}. Unchanged"), "{out}");
    assert!(err.contains("blessed 4 stated values"), "{err}");
    assert!(root.join("essays/e.md").symlink_metadata().unwrap().file_type().is_symlink(), "the symlink is kept");
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.contains("{{ g.positions = 14 }}") && text.contains("{{ g.positions = Fourteen }}"), "{text}");
    assert!(text.contains("{{ g.lost = two }}"));
    let (code, _, err) = countersign(&root, &["check", "--no-cache"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn bless_refuses_a_form_that_cannot_hold_the_value() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    // 19/31 ≈ 0.61: the closest fraction with denominator ≤ 4 is 2/3, and "a quarter"
    // holds unit fractions only, so it cannot be blessed.
    let essay = "---\ntitle: E\n---\n\n```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\nAbout {{ g.move_test.struck_share = a quarter }} are struck.\n";
    std::fs::write(root.join("essays/e.md"), essay).unwrap();
    let (code, _, err) = countersign(root, &["check", "--no-cache", "--bless"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[bless-refused]: cannot bless `a quarter`"), "{err}");
    assert!(err.contains("essays/e.md:11:"), "{err}");
    assert_eq!(std::fs::read_to_string(root.join("essays/e.md")).unwrap(), essay);
}

/// `--bless` on claims that compute rewrites only the stated value: the expression (its
/// operators, spacing and spelling) stays exactly as written, and a second check passes.
#[test]
fn bless_rewrites_only_the_stated_value_of_an_expression() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    let essay = "---\ntitle: E\n---\n\n```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\n\
Struck {{ g.move_test.struck ÷ g.move_test.moves = 20 of 31 }}, that is {{ g.move_test.struck / g.move_test.moves = 60.0 per cent }};\n\
left {{ g.move_test.moves − g.move_test.struck = eleven }}, rules {{ len(g.move_test.struck_share_by_genus) = 4 }}.\n";
    std::fs::write(root.join("essays/e.md"), essay).unwrap();
    let (code, out, err) = countersign(root, &["check", "--no-cache", "--bless"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("blessed 4 stated values"), "{err}");
    let text = std::fs::read_to_string(root.join("essays/e.md")).unwrap();
    for want in [
        "{{ g.move_test.struck ÷ g.move_test.moves = 19 of 31 }}",
        "{{ g.move_test.struck / g.move_test.moves = 61.3 per cent }}",
        "{{ g.move_test.moves − g.move_test.struck = twelve }}",
        "{{ len(g.move_test.struck_share_by_genus) = 3 }}",
    ] {
        assert!(text.contains(want), "{want} not in\n{text}");
    }
    assert_eq!(
        text.len() as isize - essay.len() as isize,
        "twelve".len() as isize - "eleven".len() as isize + ("61.3".len() as isize - "60.0".len() as isize)
    );
    let (code, _, err) = countersign(root, &["check", "--no-cache"]);
    assert_eq!(code, 0, "{err}");
}

/// A site census's text that a claim cannot hold is refused, the file left as it was
/// where it would break, and a second check still fails: `--bless` wrote `say "hi"` into
/// a quoted caption, `a: b # c` into a plain one, a line break into a heading, `}}` into
/// a sentence and `|` into a table cell, then said "ok" (the next check found 2 errors).
#[test]
fn bless_never_writes_text_that_would_not_read_back() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::create_dir_all(root.join("censuses")).unwrap();
    std::fs::write(root.join("censuses/c.yaml"), "command: [python3, censuses/c.py]\nsources: [censuses/c.py]\n").unwrap();
    let script = "import json\nprint(json.dumps({'quote': 'say \"hi\"', 'brace': 'a }} b', 'multi': 'a\\nb', \
                  'colon': 'a: b # c', 'pipe': 'a | b', 'ok': '*plain*: \"text\"'}))\n";
    std::fs::write(root.join("censuses/c.py"), script).unwrap();
    let essay = "---\ntitle: E\n---\n\n```census\nid: s\nrun: c\n```\n\n```figure\nid: f\nfrom: s\nplot: table\n\
                 caption: \"Quoted {{ s.quote = x }} here.\"\nalt: Plain {{ s.colon = x }} here\n```\n\n\
                 ## Heading {{ s.multi = x }}\n\nBody {{ s.brace = x }} and {{ s.ok = x }}.\n\n\
                 | a | b |\n|---|---|\n| {{ s.pipe = x }} | 2 |\n";
    std::fs::write(root.join("essays/e.md"), essay).unwrap();
    let (code, out, err) = countersign(root, &["check", "--no-cache", "--bless"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(err.contains("blessed 1 stated value"), "{err}");
    assert_eq!(err.matches("error[bless-refused]").count(), 5, "{err}");
    // What --bless refused it no longer says it applies.
    assert!(!err.contains("applies this"), "{err}");
    for why in ["`}}`, which would end the claim early", "a line break", "would break the essay", "would break the essay"] {
        assert!(err.contains(why), "{why}: {err}");
    }
    let text = std::fs::read_to_string(root.join("essays/e.md")).unwrap();
    assert_eq!(text, essay.replace("{{ s.ok = x }}", "{{ s.ok = *plain*: \"text\" }}"));
    let (code, _, err) = countersign(root, &["check", "--no-cache"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("5 errors"), "{err}");
}

/// `check --bless --format json` prints the report alone on standard output (the changes
/// go to standard error): the diff lines came first and the output did not parse.
#[test]
fn bless_with_json_keeps_standard_output_json() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    let essay =
        "---\ntitle: E\n---\n\n```census\nid: g\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\nPositions: {{ g.positions = 15 }}.\n";
    std::fs::write(root.join("essays/e.md"), essay).unwrap();
    let (code, out, err) = countersign(root, &["check", "--no-cache", "--bless", "--format", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["ok"], true, "{out}");
    assert!(err.contains("essays/e.md:11:29\n- Positions: {{ g.positions = 15 }}.\n+ Positions: {{ g.positions = 14 }}."), "{err}");
}
