//! Faults: a build killed at any point, an output folder that cannot be written, a cache
//! entry cut short by a killed writer. And determinism: two builds of the same sources,
//! cold and from the cache, in two folders and from two site paths, are byte-identical.
//!
//! The kill test does not depend on timing: through the test hook `COUNTERSIGN_KILL_AT` a
//! build kills itself at each named point of the write (`FAULT_POINTS`), and the output
//! folder must then be, byte for byte, either the previous site or the complete new one —
//! never a mixture, never missing — and the next build must succeed and leave no leftovers.
//! Two builds at once take turns (issue 15, item 1). And the sources: a FIFO or a link to
//! `/dev/zero` as a source file, an essay over the size limit; and a closed output pipe.

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

/// The kill tests read the signal back (`ExitStatus::signal`): unix only.
#[cfg(unix)]
mod kills {
    use super::*;
    use countersign_site::output::{fault_points, Publish};

    /// Put the snapshot `files` at `dir`, replacing whatever is there.
    fn restore(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
        let _ = std::fs::remove_dir_all(dir);
        for (p, b) in files {
            std::fs::create_dir_all(dir.join(p).parent().unwrap()).unwrap();
            std::fs::write(dir.join(p), b).unwrap();
        }
    }
    /// Which of `old` and `new` the folder `dir` is, byte for byte; panics (naming `when`)
    /// when it is neither.
    fn whole(dir: &Path, old: &BTreeMap<PathBuf, Vec<u8>>, new: &BTreeMap<PathBuf, Vec<u8>>, when: &str) -> &'static str {
        let now = snapshot(dir);
        if first_difference(old, &now).is_none() {
            "old"
        } else if first_difference(new, &now).is_none() {
            "new"
        } else {
            panic!(
                "{when}: public/ is neither the old site nor the new one: {:?} / {:?}",
                first_difference(old, &now),
                first_difference(new, &now)
            )
        }
    }
    /// The folder beside `parent`'s public/ whose name starts with `.public.TAG-`.
    fn beside(parent: &Path, tag: &str) -> PathBuf {
        let name = leftovers(parent).into_iter().find(|n| n.starts_with(&format!(".public.{tag}-")));
        parent.join(name.unwrap_or_else(|| panic!("no .public.{tag}-* beside public/: {:?}", leftovers(parent))))
    }
    #[test]
    fn a_build_killed_at_each_point_of_the_write_leaves_a_whole_site() {
        killed_at_each_point(Publish::Exchange);
    }
    /// The two renames Windows takes (forced here with `COUNTERSIGN_PUBLISH=renames`): killed
    /// between them, a build leaves no public/ (a reader gets whatever the server gives for a
    /// missing folder) with the previous site and the new one both whole beside it; the next
    /// build puts the new one back first and then publishes its own.
    #[test]
    fn with_two_renames_a_kill_between_them_leaves_both_sites_whole_and_the_next_build_publishes() {
        killed_at_each_point(Publish::Renames);
    }
    fn killed_at_each_point(publish: Publish) {
        use std::os::unix::process::ExitStatusExt;
        let how = match publish {
            Publish::Exchange => "exchange",
            Publish::Renames => "renames",
        };
        let build = |root: &Path, extra: &[&str]| {
            bin().arg("--root").arg(root).arg("build").args(extra).env("COUNTERSIGN_PUBLISH", how).output().unwrap()
        };
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("site");
        let public = root.join("public");
        // The previous site: small.
        site(&root, 3, 4, Some(2));
        ok(&build(&root, &[]));
        let old = snapshot(&public);
        assert!(old.len() > 5);
        // The new sources, and the new site built elsewhere as the reference.
        site(&root, 30, 8, None);
        let reference = tmp.path().join("reference");
        ok(&build(&root, &["--out", reference.to_str().unwrap()]));
        let new = snapshot(&reference);
        assert!(first_difference(&old, &new).is_some());
        for point in fault_points(publish) {
            let o = bin()
                .arg("--root")
                .arg(&root)
                .arg("build")
                .env("COUNTERSIGN_PUBLISH", how)
                .env("COUNTERSIGN_KILL_AT", point)
                .output()
                .unwrap();
            assert_eq!(o.status.signal(), Some(9), "the build was not killed at {point}: {}", String::from_utf8_lossy(&o.stderr));
            // Until the exchange (or the second rename) the old site stands; from it on, the new one.
            if point == "set-aside" {
                assert!(!public.exists(), "{how}: public/ after the first rename");
                assert_eq!(whole(&beside(&root, "old"), &old, &new, "set aside"), "old");
                assert_eq!(whole(&beside(&root, "tmp"), &old, &new, "set aside"), "new");
                ok(&build(&root, &[]));
                assert_eq!(whole(&public, &old, &new, "the build after a kill between the renames"), "new");
                assert_eq!(leftovers(&root), Vec::<String>::new(), "leftovers after the build that restored public/");
            } else {
                let expected = if point == "exchanged" || point == "renamed" { "new" } else { "old" };
                assert_eq!(whole(&public, &old, &new, &format!("{how}: killed at {point}")), expected, "{how}: killed at {point}");
            }
            restore(&public, &old);
        }
        // The next build succeeds, from whatever the killed ones left, and cleans up.
        ok(&build(&root, &[]));
        assert_eq!(first_difference(&new, &snapshot(&public)), None, "the build after the kills differs from the reference");
        assert_eq!(leftovers(&root), Vec::<String>::new(), "leftovers of killed builds remain");
    }
}

/// Wait until some process holds the output lock on `dir` (the folder holding public/).
fn wait_until_locked(dir: &Path) {
    let handle = std::fs::File::open(dir).unwrap();
    let until = Instant::now() + std::time::Duration::from_secs(60);
    while handle.try_lock().is_ok() {
        handle.unlock().unwrap();
        assert!(Instant::now() < until, "the first build never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn a_second_build_waits_for_the_first_and_both_publish_a_whole_site() {
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 30, 8, None);
    let reference = tmp.path().join("reference");
    ok(&build(&root, &["--out", reference.to_str().unwrap()]));
    let new = snapshot(&reference);
    // The first build takes the lock and holds it until `go` exists.
    let go = tmp.path().join("go");
    let first = bin().arg("--root").arg(&root).arg("build").env("COUNTERSIGN_HOLD_LOCK_UNTIL", &go).stderr(Stdio::piped()).spawn().unwrap();
    wait_until_locked(&root);
    let mut second = bin().arg("--root").arg(&root).arg("build").stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(second.stderr.take().unwrap()).lines();
    let said = lines.next().unwrap().unwrap();
    assert!(said.contains("waiting for another build writing beside"), "{said}");
    std::fs::write(&go, "").unwrap();
    let first = first.wait_with_output().unwrap();
    ok(&first);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert!(second.wait().unwrap().success(), "the second build failed: {rest:?}");
    assert_eq!(first_difference(&new, &snapshot(&root.join("public"))), None);
    assert_eq!(leftovers(&root), Vec::<String>::new());
}

#[test]
fn two_builds_started_together_both_publish_a_whole_site() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 60, 8, None);
    let reference = tmp.path().join("reference");
    ok(&build(&root, &["--out", reference.to_str().unwrap()]));
    let new = snapshot(&reference);
    // Before the lock, about one round in three lost files or failed a build.
    for round in 0..8 {
        let spawn = || bin().arg("--root").arg(&root).arg("build").stderr(Stdio::piped()).spawn().unwrap();
        let (a, b) = (spawn(), spawn());
        for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
            assert!(o.status.success(), "round {round}: {}", String::from_utf8_lossy(&o.stderr));
        }
        assert_eq!(first_difference(&new, &snapshot(&root.join("public"))), None, "round {round}");
        assert_eq!(leftovers(&root), Vec::<String>::new(), "round {round}");
    }
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

/// A build writes its pages into the temporary folder as it makes them; one that then
/// fails (a claim the census contradicts, found before the pages are rendered, and they are
/// rendered anyway) leaves the previous site byte for byte and no temporary folder.
#[test]
fn a_failed_build_leaves_the_previous_site_and_no_temporary_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 3, 4, Some(2));
    ok(&build(&root, &[]));
    let before = snapshot(&root.join("public"));
    site(&root, 5, 4, Some(3));
    let o = build(&root, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the previous site was left as it was"), "{stderr}");
    assert_eq!(first_difference(&before, &snapshot(&root.join("public"))), None);
    assert_eq!(leftovers(&root), Vec::<String>::new(), "the failed build left its temporary folder");
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

#[test]
fn a_fifo_or_a_huge_file_as_a_source_is_a_diagnostic_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 1, 4, Some(2));
    let check = |root: &Path| {
        // A generous time-out only turns a hang into a failure.
        let mut child = bin().arg("--root").arg(root).args(["check", "--no-cache"]).stderr(Stdio::piped()).spawn().unwrap();
        let until = Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > until {
                child.kill().unwrap();
                panic!("check hung");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    for name in ["countersign.yaml", "references.yaml"] {
        let path = root.join(name);
        let kept = std::fs::read(&path).ok();
        let _ = std::fs::remove_file(&path);
        assert!(Command::new("mkfifo").arg(&path).status().unwrap().success());
        let (code, stderr) = check(&root);
        assert_eq!(code, Some(1), "{name}: {stderr}");
        assert!(stderr.contains("it is a FIFO (named pipe), not a regular file") && stderr.contains(name), "{name}: {stderr}");
        std::fs::remove_file(&path).unwrap();
        if let Some(k) = kept {
            std::fs::write(&path, k).unwrap();
        }
    }
    // An essay over the size limit (16 MiB): a diagnostic on it, the others still load.
    let big = root.join("essays/big.md");
    let mut text = b"---\ntitle: Big\n---\n\n".to_vec();
    text.resize(countersign_site::source::TEXT_LIMIT as usize + 1, b'a');
    std::fs::write(&big, text).unwrap();
    let (code, stderr) = check(&root);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("error[read-failed]") && stderr.contains("essays/big.md") && stderr.contains("larger than the limit of 16 MiB"),
        "{stderr}"
    );
    assert!(stderr.contains("1 essay"), "{stderr}");
}

#[test]
fn a_closed_output_pipe_ends_quietly_with_the_real_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    site(&root, 2, 4, Some(2));
    // `check --format json | head -c 0`: stdout closed before anything is written.
    let run = |args: &[&str], close_stderr: bool| {
        let mut c = bin();
        c.arg("--root").arg(&root).args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        drop(child.stdout.take());
        if close_stderr {
            drop(child.stderr.take());
        }
        let o = child.wait_with_output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (code, stderr) = run(&["check", "--format", "json"], false);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (code, stderr) = run(&["list"], false);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A failing check with both streams closed still exits 1, not 101.
    site(&root, 2, 4, Some(3));
    let (code, _) = run(&["check"], true);
    assert_eq!(code, Some(1));
    let (code, _) = run(&["check", "--format", "json"], true);
    assert_eq!(code, Some(1));
}
