//! The README's sample diagnostic is the real output: the essay it describes is checked
//! and its diagnostic compared with the README's, line for line (it had drifted from the
//! output after the hint was split into a hint and a help line).

use std::process::Command;

#[test]
fn the_readme_sample_diagnostic_is_what_check_prints() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let after = &readme[readme.find("A real one").expect("the README shows a real diagnostic")..];
    let start = after.find("```text\n").unwrap() + "```text\n".len();
    let sample = &after[start..start + after[start..].find("```").unwrap()];
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("essays")).unwrap();
    std::fs::write(d.path().join("countersign.yaml"), "title: T\n").unwrap();
    let sentence = sample.lines().find_map(|l| l.strip_prefix("11 │ ")).expect("the sample quotes line 11");
    let essay = format!(
        "---\ntitle: Welter\n---\n\n```census\nid: small\nrun: welter.census\nwith: {{ coins: {{ 2: 8, 3: 8 }} }}\n```\n\n{sentence}\n"
    );
    std::fs::write(d.path().join("essays/welter.md"), essay).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(d.path())
        .args(["--no-color", "check", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let printed = &stderr[..stderr.find("\nFAILED").unwrap_or(stderr.len())];
    assert_eq!(printed.trim_end(), sample.trim_end());
}
