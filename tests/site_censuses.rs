//! Site censuses end to end (issue 20): a Python census of the subtraction game with set
//! {1, 3, 4} certifies its claims; changing the set in the script makes them fail, reruns
//! that census alone, and `--bless` rewrites them; `countersign list` and `run` show and
//! run site censuses; a cancelled call ends the census's whole process group.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn countersign(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(root)
        .arg("--no-color")
        .args(args)
        .env("CI", "1")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A copy of the fixture site `tests/sites/ext-census-subtraction` in `into`, with the
/// census script `countersign new` writes (its `copies:`).
fn subtraction_site(into: &Path) -> PathBuf {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    let from = repository.join("tests/sites/ext-census-subtraction");
    let root = into.join("site");
    for entry in walkdir::WalkDir::new(&from).sort_by_file_name() {
        let entry = entry.unwrap();
        let to = root.join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else if entry.file_name() != "expect.yaml" {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    std::fs::copy(repository.join("src/scaffold/subtraction.py"), root.join("censuses/subtraction.py")).unwrap();
    root
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

#[test]
fn changing_the_set_in_the_script_fails_the_claims_and_bless_rewrites_them() {
    let d = tempfile::tempdir().unwrap();
    let root = subtraction_site(d.path());
    // A second census with its own script, to see that an edit reruns only its own calls.
    std::fs::copy(root.join("censuses/subtraction.py"), root.join("censuses/other.py")).unwrap();
    let decl = std::fs::read_to_string(root.join("censuses/subtraction.grundy.yaml")).unwrap();
    std::fs::write(root.join("censuses/other.grundy.yaml"), decl.replace("subtraction.py", "other.py")).unwrap();
    std::fs::write(
        root.join("essays/other.md"),
        "---\ntitle: Other\n---\n\n```census\nid: o\nrun: other.grundy\n```\n\nPeriod {{ o.period = 7 }}.\n",
    )
    .unwrap();

    let (code, _, err) = countersign(&root, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("census calls: 2 (2 ran, 0 from cache)"), "{err}");
    let (code, _, err) = countersign(&root, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("census calls: 2 (0 ran, 2 from cache)"), "{err}");

    edit(&root.join("censuses/subtraction.py"), "SUBTRACTION_SET = (1, 3, 4)", "SUBTRACTION_SET = (1, 3, 5)");
    let (code, _, err) = countersign(&root, &["check"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("census calls: 2 (1 ran, 1 from cache)"), "only the edited script's call reruns: {err}");
    assert!(err.contains("error[claim-mismatch]"), "{err}");
    assert!(err.contains("essays/e.md:11:52"), "the period claim fails: {err}");
    assert!(err.contains("essays/e.md:12:14"), "the block claim fails: {err}");

    let (code, out, err) = countersign(&root, &["check", "--bless"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("essays/e.md:11:52\n- The Grundy values repeat with period {{ g.period = 7 }}"), "{out}");
    assert!(out.contains("+ The Grundy values repeat with period {{ g.period = 2 }}"), "{out}");
    assert!(out.contains("essays/e.md:12:14\n- {{ g.block = 0, 1, 0, 1, 2, 3 and 2 }}.\n+ {{ g.block = 0 and 1 }}."), "{out}");
    let text = std::fs::read_to_string(root.join("essays/e.md")).unwrap();
    assert!(text.contains("{{ g.period = 2 }}") && text.contains("{{ g.block = 0 and 1 }}"), "{text}");
    let (code, _, err) = countersign(&root, &["check"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("census calls: 2 (0 ran, 2 from cache)"), "{err}");
}

#[test]
fn list_and_run_treat_a_site_census_like_a_built_in_one() {
    let d = tempfile::tempdir().unwrap();
    let root = subtraction_site(d.path());
    let (code, out, err) = countersign(&root, &["list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("welter.census\n"), "{out}");
    assert!(out.contains("subtraction.grundy (site census, censuses/subtraction.grundy.yaml)"), "{out}");
    assert!(out.contains("with.heaps: integer, 1..=100000; default 40"), "{out}");
    assert!(out.contains("command: python3 censuses/subtraction.py"), "{out}");
    let (code, out, err) = countersign(&root, &["run", "subtraction.grundy", "--with", "{heaps: 10}", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""values":[0,1,0,1,2,3,2,0,1,0]"#) && out.contains(r#""period":7"#), "{out}");
    // Without --json: the outline, and no made-up cost for a census that states none.
    let (code, out, err) = countersign(&root, &["run", "subtraction.grundy", "--with", "{heaps: 10}"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("period = 7"), "{out}");
    assert!(err.contains("subtraction.grundy: a site census (no cost estimate); ran in") && !err.contains("e0 steps"), "{err}");
    let (code, _, err) = countersign(&root, &["run", "subtraction.grundy", "--with", "{heaps: 0}"]);
    assert_eq!(code, 2, "a parameter out of range on the command line is a usage error: {err}");
    assert!(err.contains("`heaps` is 0, below its minimum 1"), "{err}");
}

#[test]
#[cfg(unix)]
fn a_cancelled_call_ends_the_census_and_what_it_started() {
    use countersign_census::{Ctx, Stop};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    let d = tempfile::tempdir().unwrap();
    let root = d.path().to_path_buf();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::create_dir_all(root.join("censuses")).unwrap();
    std::fs::write(root.join("censuses/spawns.yaml"), "command: [python3, censuses/spawns.py]\nsources: [censuses/spawns.py]\n").unwrap();
    std::fs::write(
        root.join("censuses/spawns.py"),
        "import subprocess, time\np = subprocess.Popen(['sleep', '60'])\nopen('child.pid', 'w').write(str(p.pid))\ntime.sleep(60)\n",
    )
    .unwrap();
    std::fs::write(root.join("essays/e.md"), "---\ntitle: E\n---\n\n```census\nid: s\nrun: spawns\n```\n").unwrap();
    let loaded = countersign_site::pipeline::load(&root, &countersign::THEME);
    assert!(loaded.diags.is_empty(), "{:?}", loaded.diags.iter().map(|d| &d.message).collect::<Vec<_>>());
    let plan = countersign_site::pipeline::plan(&loaded);
    assert_eq!(plan.calls.len(), 1);
    let flag = Arc::new(AtomicBool::new(false));
    let ctx = Ctx::with(flag.clone(), None);
    let pid_file = root.join("child.pid");
    let outcome = std::thread::scope(|s| {
        let run = s.spawn(|| plan.calls[0].prepared.run(&ctx));
        let started = std::time::Instant::now();
        while std::fs::read_to_string(&pid_file).map_or(true, |t| t.is_empty()) {
            assert!(started.elapsed().as_secs() < 30, "the census never started its child");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        ctx.cancel();
        run.join().unwrap()
    });
    assert!(matches!(outcome, Err(Stop::Cancelled)), "{outcome:?}");
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    let started = std::time::Instant::now();
    // Ended, and reaped by init once its parent is gone: no such process any more.
    while rustix::process::test_kill_process(pid).is_ok() {
        assert!(started.elapsed().as_secs() < 10, "the census's child outlived the cancelled call");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn countersign_new_makes_a_site_whose_python_census_builds_from_scratch() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("essays-site");
    // `new` takes no `--root`: it makes the site at the path it is given.
    let made = Command::new(env!("CARGO_BIN_EXE_countersign")).args(["--no-color", "new"]).arg(&site).output().unwrap();
    let err = String::from_utf8_lossy(&made.stderr);
    assert_eq!(made.status.code(), Some(0), "{err}");
    assert!(site.join("censuses/subtraction.py").is_file() && site.join("censuses/subtraction.grundy.yaml").is_file(), "{err}");
    let out = d.path().join("public");
    let (code, _, err) = countersign(&site, &["build", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(4 ran, 0 from cache)"), "the three built-in calls and the Python census ran: {err}");
    let page = std::fs::read_to_string(out.join("first-essay/index.html")).unwrap();
    assert!(page.contains("calls-subtraction"), "the site census's claims link to its call");
    let (code, _, err) = countersign(&site, &["check", "--strict", "--verify"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn watch_reruns_a_site_census_when_its_script_is_saved() {
    let d = tempfile::tempdir().unwrap();
    let root = subtraction_site(d.path());
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&root, dir.path());
    let s = common::start_on(dir, "127.0.0.1");
    let st = s.status();
    assert_eq!((st["ok"].as_bool(), st["stats"]["ran"].as_u64()), (Some(true), Some(1)), "{st}");
    s.edit("censuses/subtraction.py", "SUBTRACTION_SET = (1, 3, 4)", "SUBTRACTION_SET = (1, 3, 5)");
    let st = s.status();
    assert_eq!((st["ok"].as_bool(), st["stats"]["ran"].as_u64()), (Some(false), Some(1)), "the script ran again: {st}");
    assert!(s.get("/").2.contains("the essay says 7, the census gives 2"), "the overlay shows the failed claim");
}

#[test]
#[cfg(unix)]
fn watch_cancels_a_stale_site_census_by_ending_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::create_dir_all(root.join("censuses")).unwrap();
    let decl = "command: [python3, censuses/naps.py]\nsources: [censuses/naps.py]\ntimeout: 120\nparams:\n  nap: { type: bool }\n";
    std::fs::write(root.join("censuses/naps.yaml"), decl).unwrap();
    let script = "import json, subprocess, sys, time\nif json.load(sys.stdin)['nap']:\n    p = subprocess.Popen(['sleep', '120'])\n    \
                  open('child.pid', 'w').write(str(p.pid))\n    time.sleep(120)\nprint('{\"n\": 1}')\n";
    std::fs::write(root.join("censuses/naps.py"), script).unwrap();
    let essay = "---\ntitle: E\n---\n\n```census\nid: n\nrun: naps\nwith: { nap: true }\n```\n\nOne: {{ n.n = 1 }}.\n";
    std::fs::write(root.join("essays/e.md"), essay).unwrap();
    let mut child = common::spawn(&root, &["--port", "0"]);
    let _stdout = child.stdout.take();
    let _stderr = child.stderr.take();
    let kill = scopeguard(child);
    let pid_file = root.join("child.pid");
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pid_file).map_or(true, |t| t.is_empty()) {
        assert!(started.elapsed().as_secs() < 30, "the census never started its child");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    std::fs::write(root.join("essays/e.md"), essay.replace("nap: true", "nap: false")).unwrap();
    let started = std::time::Instant::now();
    while rustix::process::test_kill_process(pid).is_ok() {
        assert!(started.elapsed().as_secs() < 20, "the stale call's child outlived its cancellation");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(kill);
}

/// Kills the watch process when dropped, even when an assertion fails first.
#[cfg(unix)]
fn scopeguard(child: std::process::Child) -> impl Drop {
    struct Guard(std::process::Child);
    impl Drop for Guard {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    Guard(child)
}

/// A site whose one essay calls the site census `c`, run as `python3 censuses/c.py` with
/// a time limit of `timeout` seconds.
fn one_census_site(into: &Path, script: &str, timeout: u32) -> PathBuf {
    let root = into.join("site");
    std::fs::create_dir_all(root.join("censuses")).unwrap();
    std::fs::create_dir_all(root.join("essays")).unwrap();
    std::fs::write(root.join("countersign.yaml"), "title: T\n").unwrap();
    let decl = format!("command: [python3, censuses/c.py]\nsources: [censuses/c.py]\ntimeout: {timeout}\n");
    std::fs::write(root.join("censuses/c.yaml"), decl).unwrap();
    std::fs::write(root.join("censuses/c.py"), script).unwrap();
    std::fs::write(root.join("essays/e.md"), "---\ntitle: E\n---\n\n```census\nid: s\nrun: c\n```\n").unwrap();
    root
}

/// A census that answers at once but leaves a helper in a session of its own holding its
/// standard output: `check` waited for the helper (20 s here) however short the time
/// limit. It stops reading at the limit and reports the time-out.
#[cfg(unix)]
#[test]
fn a_helper_holding_the_output_open_does_not_outlast_the_time_limit() {
    let d = tempfile::tempdir().unwrap();
    let script = "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(20)\n    os._exit(0)\n\
                  time.sleep(0.3)\nprint('{}', flush=True)\n";
    let root = one_census_site(d.path(), script, 2);
    let started = std::time::Instant::now();
    let (code, _, err) = countersign(&root, &["check", "--no-cache"]);
    let took = started.elapsed();
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[census-timeout]") && err.contains("kept its output open"), "{err}");
    assert!(took.as_secs() < 15, "check took {took:?}: it waited for the helper");
}

/// The peak resident memory of process `pid` in KiB, while it runs.
#[cfg(target_os = "linux")]
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()
}

/// One line of 200 MB on standard error, no newline: it was read whole (530 MB). Now in
/// chunks, keeping the line's head for the diagnostic.
#[cfg(target_os = "linux")]
#[test]
fn a_huge_stderr_line_is_read_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let script = "import sys, time\nsys.stderr.write('start of a long line ')\nsys.stderr.flush()\n\
                  sys.stderr.buffer.write(b'x' * 200_000_000)\nsys.stderr.flush()\ntime.sleep(1.5)\nsys.exit(3)\n";
    let root = one_census_site(d.path(), script, 60);
    let mut child = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(&root)
        .args(["--no-color", "check", "--no-cache"])
        .env("CI", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        peak = peak.max(peak_kib(child.id()).unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error[census-exit]") && err.contains("start of a long line xxx"), "{err}");
    assert!(peak < 100 * 1024, "check peaked at {} MiB reading a 200 MB line", peak / 1024);
}

/// `sources: ["**/*"]` never matches the output folder nor the cache: two builds in a row,
/// the second answers the call from the cache (issue 31, weak points: the output and the
/// cache each build writes changed the census's fingerprint, so it reran every build).
#[test]
fn a_census_over_every_file_is_answered_from_the_cache_by_the_next_build() {
    let d = tempfile::tempdir().unwrap();
    let root = subtraction_site(d.path());
    edit(&root.join("censuses/subtraction.grundy.yaml"), "sources: [censuses/subtraction.py]", "sources: [\"**/*\"]");
    let (code, _, err) = countersign(&root, &["build"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(1 ran, 0 from cache)"), "{err}");
    assert!(root.join("public/index.html").is_file() && root.join(".countersign-cache").is_dir());
    let (code, _, err) = countersign(&root, &["build"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("(0 ran, 1 from cache)"), "the output or the cache changed the census's sources: {err}");
}
