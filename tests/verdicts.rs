//! `check` and `build` agree: over every fixture site in tests/sites/, both pass or both
//! fail. A site that check passed and build refused (a link to a draft by its slug, issue
//! 31 item 5) or the other way round is a disagreement about what the site is.

use std::path::Path;
use std::process::Command;

use rayon::prelude::*;

/// A copy of the fixture `from` in `to`, without its `expect.yaml`.
fn copy(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.unwrap();
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_type().is_file() && entry.file_name() != "expect.yaml" {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// The exit code of `countersign <args>` on `root`.
fn exit(root: &Path, args: &[&std::ffi::OsStr]) -> i32 {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(root).args(args).env("CI", "1").output().unwrap();
    out.status.code().unwrap_or(-1)
}

#[test]
fn check_and_build_give_every_fixture_the_same_verdict() {
    let sites = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites");
    let mut cases: Vec<_> = std::fs::read_dir(&sites).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() > 100, "{} fixtures", cases.len());
    let disagree: Vec<String> = cases
        .par_iter()
        .filter_map(|case| {
            let d = tempfile::tempdir().unwrap();
            let root = d.path().join("site");
            copy(case, &root);
            let check = exit(&root, &["check".as_ref(), "--no-cache".as_ref()]);
            let out = d.path().join("public");
            let build = exit(&root, &["build".as_ref(), "--no-cache".as_ref(), "--out".as_ref(), out.as_os_str()]);
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            (check != build).then(|| format!("{name}: check {check}, build {build}"))
        })
        .collect();
    assert!(disagree.is_empty(), "check and build disagree:\n{}", disagree.join("\n"));
}
