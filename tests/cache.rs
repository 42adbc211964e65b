//! The results cache end to end: a warm run computes nothing (counted, not timed), a
//! corrupt or truncated entry is recomputed and replaced, `--no-cache` neither reads nor
//! writes, `cache clean` empties it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn site() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("site");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-basic"), &root);
    (d, root)
}

fn stats(root: &Path, extra: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(root)
        .args(["check", "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["stats"].clone()
}

fn entries(root: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(root.join(".countersign-cache")) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn warm_runs_compute_nothing_and_corruption_is_recomputed() {
    let (_d, root) = site();
    let cold = stats(&root, &[]);
    assert_eq!((cold["calls"].as_u64(), cold["ran"].as_u64(), cold["cached"].as_u64()), (Some(1), Some(1), Some(0)));
    assert_eq!(entries(&root).len(), 1);
    let warm = stats(&root, &[]);
    assert_eq!((warm["ran"].as_u64(), warm["cached"].as_u64()), (Some(0), Some(1)));
    // Truncate the entry: recomputed and replaced.
    let entry = entries(&root).remove(0);
    let bytes = std::fs::read(&entry).unwrap();
    std::fs::write(&entry, &bytes[..bytes.len() / 3]).unwrap();
    let after = stats(&root, &[]);
    assert_eq!((after["ran"].as_u64(), after["cached"].as_u64()), (Some(1), Some(0)));
    assert_eq!(std::fs::read(&entry).unwrap(), bytes);
    // Garbage that is valid JSON but another call's entry: not trusted.
    std::fs::write(&entry, br#"{"census":"sylver.census","params":{"max_genus":5},"fingerprint":"x","result":{}}"#).unwrap();
    assert_eq!(stats(&root, &[])["ran"].as_u64(), Some(1));
    // --no-cache neither reads nor writes.
    std::fs::remove_dir_all(root.join(".countersign-cache")).unwrap();
    assert_eq!(stats(&root, &["--no-cache"])["ran"].as_u64(), Some(1));
    assert!(entries(&root).is_empty());
    // cache clean.
    stats(&root, &[]);
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(&root).args(["cache", "clean"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed 1 cached result"));
    assert!(!root.join(".countersign-cache").exists());
}

#[test]
fn an_edited_claim_reuses_the_cached_census() {
    let (_d, root) = site();
    stats(&root, &[]);
    let essay = root.join("essays/small.md");
    let text = std::fs::read_to_string(&essay).unwrap().replace("There are", "We count");
    std::fs::write(&essay, text).unwrap();
    let s = stats(&root, &[]);
    assert_eq!((s["ran"].as_u64(), s["cached"].as_u64()), (Some(0), Some(1)));
    // A changed parameter is a different call.
    let text = std::fs::read_to_string(&essay).unwrap().replace("max_genus: 4 }", "max_genus: 4 }\n");
    std::fs::write(&essay, text).unwrap();
    assert_eq!(stats(&root, &[])["ran"].as_u64(), Some(0), "whitespace does not change the canonical parameters");
}
