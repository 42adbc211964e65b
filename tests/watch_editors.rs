//! `countersign watch` against the ways editors and file systems save (issue 17): lock
//! files, every file the loader reads, symlinked folders added while serving, hidden and
//! odd file names, saves through a temporary file, a writer that pauses, an error in one
//! essay while others are edited, and the polling watcher. Each test waits on
//! `/__countersign/generation` (with a timeout), never on a sleep for a build to happen;
//! where something must *not* cause a build, the generation is compared after a later,
//! distinct edit has been served.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;

const SECOND: &str = "---\ntitle: A second essay\n---\n\nA paragraph about quince.\n";

#[test]
#[cfg(unix)]
fn an_emacs_lock_file_never_fails_a_build_and_an_error_clears_with_its_cause() {
    let s = start();
    // Emacs's lock: a symlink named .#small.md pointing at user@host.pid (which never exists).
    std::os::unix::fs::symlink("someone@somewhere.4242:1700000000", s.path("essays/.#small.md")).unwrap();
    s.edit(ESSAY, "There are", "Locked, there are");
    let st = s.status();
    assert_eq!(st["ok"], true, "the lock file failed the build: {st}");
    assert!(s.page("/small/").contains("Locked, there are"));
    std::fs::remove_file(s.path("essays/.#small.md")).unwrap();
    // A real broken link fails the build, and the error goes when the link does.
    let g = s.generation();
    std::os::unix::fs::symlink("nowhere.md", s.path("essays/dangling.md")).unwrap();
    s.wait_generation(g + 1);
    assert_eq!(s.status()["ok"], false, "{}", s.status());
    std::fs::remove_file(s.path("essays/dangling.md")).unwrap();
    s.wait_generation(g + 2);
    assert_eq!(s.status()["ok"], true, "the error stayed after its cause was removed: {}", s.status());
}

#[test]
fn every_file_the_loader_reads_is_watched() {
    let s = start();
    let g = s.generation();
    s.write("references.yaml", "broken: [unclosed\n");
    s.wait_generation(g + 1);
    assert_eq!(s.status()["ok"], false, "a malformed bibliography was not seen: {}", s.status());
    s.write("references.yaml", "");
    s.wait_generation(g + 2);
    assert_eq!(s.status()["ok"], true, "{}", s.status());
}

#[test]
#[cfg(unix)]
fn a_symlinked_folder_added_while_serving_is_watched() {
    let s = start();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::create_dir(elsewhere.path().join("more")).unwrap();
    let deep = elsewhere.path().join("more/deep.md");
    std::fs::write(&deep, SECOND).unwrap();
    std::os::unix::fs::symlink(elsewhere.path().join("more"), s.path("essays/linked")).unwrap();
    s.wait_until(|| s.get("/deep/").0 == 200);
    let g = s.generation();
    std::fs::write(&deep, SECOND.replace("quince", "medlar")).unwrap();
    s.wait_generation(g + 1);
    assert!(s.page("/deep/").contains("medlar"), "an edit inside a symlinked folder added while serving was not seen");
}

/// Slugs published by `countersign build` of `root`.
fn built_slugs(root: &Path) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(root).arg("build").env("CI", "1").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut slugs = BTreeSet::new();
    for e in std::fs::read_dir(root.join("public")).unwrap().filter_map(Result::ok) {
        if e.path().join("results.json").exists() {
            slugs.insert(e.file_name().to_string_lossy().into_owned());
        }
    }
    slugs
}

#[test]
fn build_and_watch_agree_on_hidden_and_odd_file_names() {
    let dir = site();
    let essay = |title: &str| format!("---\ntitle: {title}\n---\n\nA paragraph about {title}.\n");
    std::fs::create_dir_all(dir.path().join("essays/.drafts")).unwrap();
    std::fs::create_dir_all(dir.path().join("essays/sub")).unwrap();
    let files = [
        (".drafts/draft.md", "Draft"),
        (".hidden.md", "Hidden"),
        ("LOUD.MD", "Loud"),
        ("été ü.md", "Summer"),
        ("sub/visible.md", "Visible"),
    ];
    for (f, t) in files {
        std::fs::write(dir.path().join("essays").join(f), essay(t)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(dir.path()).arg("build").env("CI", "1").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("essays/.hidden.md") && stderr.contains("essays/.drafts/draft.md"), "skipped essays not named:\n{stderr}");
    let built = built_slugs(dir.path());
    let expected: BTreeSet<String> = ["small", "loud", "été-ü", "visible"].iter().map(|s| s.to_string()).collect();
    assert_eq!(built, expected, "what build publishes");
    std::fs::remove_dir_all(dir.path().join("public")).unwrap();
    // Watch: every published essay's edit is served; an edit of a skipped one builds nothing.
    let s = start_on(dir, "127.0.0.1");
    let mut rebuilt = BTreeSet::new();
    for (f, t) in files {
        let g = s.generation();
        s.write(&format!("essays/{f}"), &essay(t).replace("A paragraph", "An edited paragraph"));
        if ["Loud", "Summer", "Visible"].contains(&t) {
            s.wait_generation(g + 1);
            let slug = expected.iter().find(|x| s.get(&format!("/{}/", enc(x))).2.contains(&format!("An edited paragraph about {t}")));
            rebuilt.insert(slug.cloned().unwrap_or_else(|| panic!("the edit of {f} is not served")));
        } else {
            // Let the events of the skipped file arrive apart from the next edit.
            std::thread::sleep(Duration::from_millis(300));
            assert_eq!(s.generation(), g, "an edit of the skipped {f} made a build");
        }
    }
    s.edit(ESSAY, "There are", "Finally, there are");
    rebuilt.insert("small".to_string());
    assert_eq!(rebuilt, expected, "what watch rebuilds");
}

/// Percent-encode a path segment as a browser would.
fn enc(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() || b == b'-' { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

#[test]
fn saves_through_a_temporary_file_wait_for_nothing() {
    let s = start();
    let base = s.read(ESSAY);
    // sed -i, an editor's `name.tmp`, VS Code's `.vsctmp`: write a visible file, rename it over.
    for (i, tmp) in ["essays/sedAb12Cd", "essays/small.md.tmp", "essays/small.md.vsctmp", "essays/.small.md.swp~"].iter().enumerate() {
        let g = s.generation();
        s.write(tmp, &base.replacen("There are", &format!("Save {i}, there are"), 1));
        std::fs::rename(s.path(tmp), s.path(ESSAY)).unwrap();
        s.wait_generation(g + 1);
        assert!(s.page("/small/").contains(&format!("Save {i}, there are")));
        let st = s.status();
        assert_eq!(st["waited_for_missing"], 0, "the save through {tmp} waited for the temporary name: {st}");
    }
    // A file really moved away mid-save is still waited for (see tests/watch.rs).
    let g = s.generation();
    std::fs::rename(s.path(ESSAY), s.path("essays/small.md~")).unwrap();
    s.write(ESSAY, &base);
    s.wait_generation(g + 1);
    assert_eq!(s.status()["ok"], true);
}

#[test]
fn a_writer_that_pauses_is_a_save_and_its_next_write_rebuilds() {
    let s = start();
    let g = s.generation();
    let base = s.read(ESSAY);
    let mut f = std::fs::OpenOptions::new().write(true).truncate(true).open(s.path(ESSAY)).unwrap();
    f.write_all(base.replacen("There are", "Half written, there are", 1).as_bytes()).unwrap();
    f.flush().unwrap();
    // The pause outlasts the quiet period: what is there so far is built and served.
    s.wait_generation(g + 1);
    assert!(s.page("/small/").contains("Half written"));
    f.write_all(b"\nThe second half.\n").unwrap();
    drop(f);
    s.wait_generation(g + 2);
    assert!(s.page("/small/").contains("The second half."));
}

#[test]
fn a_file_changed_during_a_build_is_read_again_before_publishing() {
    let s = start();
    let g = s.generation();
    let text = s.read(ESSAY);
    // A build that takes a second or so (a new census call)...
    let slow = text.replacen("```census", "```census\nid: slow\nrun: sylver.census\nwith: { max_genus: 21 }\n```\n\n```census", 1);
    s.write(ESSAY, &slow);
    s.wait_until(|| s.status()["building"] == true);
    // ...while the essay changes again: the text read at the start is stale.
    s.write(ESSAY, &slow.replacen("There are", "Changed meanwhile, there are", 1));
    s.wait_until(|| s.get("/small/").2.contains("Changed meanwhile"));
    let st = s.status();
    assert_eq!(st["generation"], g + 1, "a build of a stale text was published: {st}");
    assert_eq!(st["ok"], true, "{st}");
}

#[test]
fn while_one_essay_fails_edits_to_the_others_are_shown() {
    let s = start();
    let g = s.generation();
    s.write("essays/second.md", SECOND);
    s.wait_generation(g + 1);
    let good = s.page("/small/");
    s.edit(ESSAY, "{{ g4.positions = 14 }}", "{{ g4.positions = 15 }}");
    assert_eq!(s.status()["ok"], false);
    s.edit("essays/second.md", "quince", "medlar");
    let second = s.page("/second/");
    assert!(second.contains("medlar"), "an edit to a good essay was not shown while another failed");
    assert!(second.contains(r#"id="countersign-error""#), "no overlay on the good essay's page");
    // The failing essay: its last good page, under the overlay.
    let page = s.page("/small/");
    assert!(page.contains(r#"id="countersign-error""#));
    let under = page.split(r#"<div id="countersign-error""#).next().unwrap();
    assert!(good.starts_with(under), "the failing essay does not keep its last good page");
    assert!(s.page("/").contains("A second essay"));
}

#[test]
fn the_polling_watcher_sees_saves() {
    let s = start_with(site(), "127.0.0.1", &["--poll"]);
    s.edit(ESSAY, "There are", "Polled, there are");
    assert!(s.page("/small/").contains("Polled, there are"));
    let g = s.generation();
    s.write("essays/second.md", SECOND);
    s.wait_generation(g + 1);
    assert!(s.page("/second/").contains("quince"));
}

#[test]
fn a_burst_of_in_place_saves_ends_with_the_last_saves_result() {
    let s = start();
    let base = s.read(ESSAY);
    // An editor truncating the file, then writing it, over and over (a build may read it
    // empty in between); the pages and src/watch/tests.rs hold what is served meanwhile.
    let save = |text: &str| {
        let mut f = std::fs::OpenOptions::new().write(true).truncate(true).open(s.path(ESSAY)).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    for i in 0..300 {
        save(&base.replacen("There are", &format!("Save {i}, there are"), 1));
    }
    s.wait_until(|| s.get("/small/").2.contains("Save 299, there are"));
    assert_eq!(s.status()["ok"], true, "{}", s.status());
    // Once the saves stop, a final failure is shown as usual.
    for i in 0..300 {
        save(&base.replacen("There are", &format!("Again {i}, there are"), 1));
    }
    save(&base.replacen("{{ g4.positions = 14 }}", "{{ g4.positions = 4141 }}", 1));
    s.wait_until(|| s.get("/small/").2.contains("4141"));
    assert_eq!(s.status()["ok"], false, "{}", s.status());
    assert!(s.page("/small/").contains(r#"id="countersign-error""#));
}
