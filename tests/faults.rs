//! Faults: a build killed at any point, an output folder that cannot be written, a cache
//! entry cut short by a killed writer. And determinism: two builds of the same sources,
//! cold and from the cache, in two folders and from two site paths, are byte-identical.
//!
//! The kill test does not depend on timing to pass: it measures how long one full build
//! takes on this machine and kills further builds at fractions of that (computing,
//! rendering, writing, swapping), then checks that the output folder is, byte for byte,
//! either the previous site or the complete new one — never a mixture, never missing — and
//! that the next build succeeds and leaves no leftovers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_countersign"));
    c.env("CI", "1").arg("--no-color");
    c
}

fn build(root: &Path, extra: &[&str]) -> Output {
    bin().arg("--root").arg(root).arg("build").args(extra).output().unwrap()
}

fn ok(o: &Output) -> String {
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "build failed:\n{stderr}");
    stderr
}

/// Every file under `dir`, relative path → bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The first difference between two snapshots, or None.
fn first_difference(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Option<String> {
    for (p, x) in a {
        match b.get(p) {
            None => return Some(format!("{} only in the first", p.display())),
            Some(y) if x != y => {
                let at = x.iter().zip(y).position(|(u, v)| u != v).unwrap_or(x.len().min(y.len()));
                return Some(format!("{} differs at byte {at}", p.display()));
            }
            _ => {}
        }
    }
    b.keys().find(|p| !a.contains_key(*p)).map(|p| format!("{} only in the second", p.display()))
}

/// A site of `essays` essays, each binding `sylver.census` at `genus` (one shared call),
/// with a claim and a grid figure, so a build computes, renders SVG and JSON and writes
/// a few files per essay.
fn site(dir: &Path, essays: usize, genus: u32, lost: Option<u64>) {
    let e = dir.join("essays");
    let _ = std::fs::remove_dir_all(&e);
    std::fs::create_dir_all(&e).unwrap();
    std::fs::write(dir.join("countersign.yaml"), "title: Faults\n").unwrap();
    let claim = match lost {
        Some(n) => format!("{{{{ g.lost = {n} }}}}"),
        None => "{{ g.lost }}".to_string(),
    };
    for i in 0..essays {
        let text = format!(
            "---\ntitle: Essay {i}\nanchor: faults\nrung: {}\n---\n\n```census\nid: g\nrun: sylver.census\nwith: {{ max_genus: {genus} }}\n```\n\n\
             There are {claim} lost positions, ⟨a|b⟩ and $a \\oplus b$.\n\n\
             ```figure\nid: struck\nfrom: g.move_test.all_struck\nplot: grid\ncaption: Struck moves\nalt: The positions whose every move is struck\n```\n",
            i + 1
        );
        std::fs::write(e.join(format!("essay-{i:03}.md")), text).unwrap();
    }
}

fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".public."))
        .collect()
}

#[test]
fn a_killed_build_leaves_the_previous_site_and_the_next_build_works() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    let public = root.join("public");
    // The previous site: small.
    site(&root, 3, 4, Some(2));
    ok(&build(&root, &[]));
    let old = snapshot(&public);
    assert!(old.len() > 5);
    // The new sources: a slower census and many pages. Reference output of a full build,
    // into another folder, timed.
    site(&root, 120, 18, None);
    let reference = tmp.path().join("reference");
    let started = Instant::now();
    ok(&build(&root, &["--no-cache", "--out", reference.to_str().unwrap()]));
    let full = started.elapsed();
    let new = snapshot(&reference);
    assert!(first_difference(&old, &new).is_some());
    // Kill builds at fractions of the full time (and one immediately).
    let fractions = [0.0, 0.05, 0.15, 0.3, 0.45, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 1.0];
    let mut outcomes = Vec::new();
    for (i, f) in fractions.iter().enumerate() {
        // Half the runs use the cache (so a killed cache writer is exercised too).
        let args: &[&str] = if i % 2 == 0 { &["build", "--no-cache"] } else { &["build"] };
        let mut child = bin().arg("--root").arg(&root).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        std::thread::sleep(full.mul_f64(*f));
        let finished = child.try_wait().unwrap().is_some();
        child.kill().ok(); // SIGKILL
        child.wait().unwrap();
        let now = snapshot(&public);
        let state = if first_difference(&old, &now).is_none() {
            "old"
        } else if first_difference(&new, &now).is_none() {
            "new"
        } else {
            panic!(
                "killed at {:.0}% of a build: public/ is neither the old site nor the new one: {:?} / {:?}",
                f * 100.0,
                first_difference(&old, &now),
                first_difference(&new, &now)
            );
        };
        outcomes.push(format!("{:.0}%:{state}{}", f * 100.0, if finished { "(done)" } else { "" }));
        if state == "new" {
            // Put the old site back so that later kills are tested against it too.
            std::fs::remove_dir_all(&public).unwrap();
            std::fs::create_dir_all(&public).unwrap();
            for (p, b) in &old {
                std::fs::create_dir_all(public.join(p).parent().unwrap()).unwrap();
                std::fs::write(public.join(p), b).unwrap();
            }
        }
    }
    eprintln!("kill outcomes: {}", outcomes.join(" "));
    // The next build succeeds, from whatever the killed ones left, and cleans up.
    ok(&build(&root, &[]));
    assert_eq!(first_difference(&new, &snapshot(&public)), None, "the build after the kills differs from the reference");
    assert_eq!(leftovers(&root), Vec::<String>::new(), "leftovers of killed builds remain");
}

#[test]
fn an_unwritable_output_folder_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 1, 4, Some(2));
    // The parent of the output folder is a regular file (tests run as root, so permission
    // bits would not stop a write).
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let o = build(&root, &["--out", file.join("public").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the site to") && stderr.contains("Not a directory"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
    // The output path itself is a regular file: refused, and the file is left alone.
    let o = build(&root, &["--out", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not a folder"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a folder");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 2, "leftovers beside the output");
}

#[test]
fn a_truncated_cache_entry_is_recomputed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 1, 6, None);
    let first = ok(&build(&root, &[]));
    assert!(first.contains("(1 ran, 0 from cache)"), "{first}");
    let warm = ok(&build(&root, &[]));
    assert!(warm.contains("(0 ran, 1 from cache)"), "{warm}");
    let cache = root.join(".countersign-cache");
    let entries: Vec<PathBuf> =
        std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    assert_eq!(entries.len(), 1);
    let reference = snapshot(&root.join("public"));
    // A writer killed mid-write leaves a truncated file (the real writer renames a
    // temporary file into place, but a truncated entry must still be harmless), and a
    // stray temporary file of a killed writer.
    let bytes = std::fs::read(&entries[0]).unwrap();
    for cut in [0, 1, bytes.len() / 3, bytes.len() - 1] {
        std::fs::write(&entries[0], &bytes[..cut]).unwrap();
        std::fs::write(cache.join(".stray.12345.tmp"), &bytes[..bytes.len() / 2]).unwrap();
        let again = ok(&build(&root, &[]));
        assert!(again.contains("(1 ran, 0 from cache)"), "cut at {cut}: {again}");
        assert_eq!(first_difference(&reference, &snapshot(&root.join("public"))), None, "cut at {cut}");
        assert_eq!(std::fs::read(&entries[0]).unwrap(), bytes, "the entry was not rewritten whole");
    }
}

#[test]
fn two_builds_of_the_same_sources_are_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    site(&a, 4, 8, None);
    std::fs::create_dir_all(a.join("static")).unwrap();
    std::fs::write(a.join("static/extra.css"), "p { margin: 0 }\n").unwrap();
    // Cold, without the cache.
    let out1 = tmp.path().join("out1");
    ok(&build(&a, &["--no-cache", "--out", out1.to_str().unwrap()]));
    // Cold with the cache, then warm from it.
    let out2 = tmp.path().join("out2");
    let cold = ok(&build(&a, &["--out", out2.to_str().unwrap()]));
    assert!(cold.contains("1 ran"), "{cold}");
    let out3 = tmp.path().join("out3");
    let warm = ok(&build(&a, &["--out", out3.to_str().unwrap()]));
    assert!(warm.contains("1 from cache"), "{warm}");
    // The same sources at another path (as on another machine).
    let b = tmp.path().join("elsewhere/b");
    site(&b, 4, 8, None);
    std::fs::create_dir_all(b.join("static")).unwrap();
    std::fs::write(b.join("static/extra.css"), "p { margin: 0 }\n").unwrap();
    let out4 = tmp.path().join("out4");
    ok(&build(&b, &["--no-cache", "--out", out4.to_str().unwrap()]));
    let s1 = snapshot(&out1);
    assert!(s1.keys().any(|p| p.extension().is_some_and(|x| x == "svg")), "no SVG in {:?}", s1.keys());
    assert!(s1.keys().any(|p| p.ends_with("results.json")), "no results.json");
    for (name, out) in [("with a cold cache", &out2), ("from the cache", &out3), ("from another path", &out4)] {
        assert_eq!(first_difference(&s1, &snapshot(out)), None, "a build {name} differs from the first");
    }
}
