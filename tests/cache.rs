//! The results cache end to end: a warm run computes nothing (counted, not timed), a
//! corrupt or truncated entry is recomputed and replaced, `--no-cache` neither reads nor
//! writes, `cache clean` empties it. Entries carry the hash of their result: an edited or
//! junk entry is recomputed and reported, never published (issue 15, item 3).

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

/// `check` on `root`: exit code and stderr.
fn check(root: &Path) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(root).args(["--no-color", "check"]).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn an_edited_or_junk_entry_is_recomputed_and_reported_never_published() {
    let (_d, root) = site();
    stats(&root, &[]);
    let entry = entries(&root).remove(0);
    let good = std::fs::read_to_string(&entry).unwrap();
    // The number a claim states, edited in the entry (its hash left as it was): the claim
    // `g4.positions = 14` would fail against 15 if the entry were trusted.
    assert!(good.contains(r#""positions":14,"#));
    std::fs::write(&entry, good.replacen(r#""positions":14,"#, r#""positions":15,"#, 1)).unwrap();
    let (code, stderr) = check(&root);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[cache-entry-bad]: the cached result of `sylver.census` is not trusted: its result does not match its hash; it is recomputed"),
        "{stderr}"
    );
    assert!(stderr.contains("(1 ran, 0 from cache)"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&entry).unwrap(), good, "the entry was not replaced");
    // Junk: another shape of JSON, or bytes that are not JSON. Recomputed, no path error.
    for junk in [&br#"{"census":"sylver.census","params":{"max_genus":4},"result":{}}"#[..], b"[1,2]", b"\xff\x00junk"] {
        std::fs::write(&entry, junk).unwrap();
        let (code, stderr) = check(&root);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stderr.contains("warning[cache-entry-bad]") && stderr.contains("is not trusted: it is not a cache entry"), "{stderr}");
        assert!(!stderr.contains("error:"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&entry).unwrap(), good);
    }
    // A verified entry is used, silently.
    let (_, stderr) = check(&root);
    assert!(stderr.contains("(0 ran, 1 from cache)") && !stderr.contains("warning:"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn cache_clean_through_a_symlink_removes_the_entries_it_counts() {
    let (d, root) = site();
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("notes.txt"), "mine").unwrap();
    let _ = std::fs::remove_dir_all(root.join(".countersign-cache"));
    std::os::unix::fs::symlink(&elsewhere, root.join(".countersign-cache")).unwrap();
    stats(&root, &[]);
    assert_eq!(entries(&root).len(), 1);
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(&root).args(["cache", "clean"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed 1 cached result"));
    // The entry is gone from the folder the link leads to; the link and the other file stay.
    assert!(entries(&root).is_empty());
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1);
    assert!(root.join(".countersign-cache").symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(stats(&root, &[])["ran"].as_u64(), Some(1));
}
