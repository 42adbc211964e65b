//! Fixture sites under tests/sites/: each folder is a site and states, in `expect.yaml`,
//! the exit code of `countersign check` and every diagnostic it shows, by code and place.
//! No case may panic.
//!
//! ```yaml
//! command: [check]          # optional; default [check, --no-cache]; `$OUT` in an
//!                           # argument is a fresh folder outside the case (for build)
//! exit: 1
//! diagnostics:              # required: every diagnostic shown, in order, as
//!   - error[unknown-census] essays/bad.md:12:23    # `severity[code] file:line:column`
//!   - warning[planned-link] essays/bad.md:14:1     # (`severity[code] file` when the
//!                                                   # diagnostic has no span); [] for none
//! stderr:                   # optional; each must occur in stderr (message text, the
//!   - "unknown field `extra`"  # summary line: a secondary check, never the only one)
//! stderr_lacks:             # optional; each must not occur in stderr
//!   - "no census result is bound"
//! symlinks:                 # optional; made by the test (never committed, so a
//!   essays/gone.md: nowhere.md   # Windows checkout stays whole): link -> target; the
//!                           # case then runs in a copy, and only where symlinks exist
//! copies:                   # optional; files of this repository copied into the case
//!   censuses/subtraction.py: src/scaffold/subtraction.py   # (the case runs in a copy),
//!                           # so a script shared with `countersign new` is kept once
//! ```
//!
//! The diagnostics are read from the rendered stderr: each `error[code]: …` or
//! `warning[code]: …` header and the `┌─ file:line:column` (or `= in file`) under it. A
//! case therefore fails when a diagnostic appears, disappears, changes code or moves,
//! whatever its message says; rewording a message breaks only a `stderr:` line.
//! An error of the command line itself (`error: the output folder …`, printed before any
//! site is read) is no diagnostic and has no code: such a case states `diagnostics: []`
//! and its sentence under `stderr:`.

use std::path::Path;
use std::process::Command;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    command: Option<Vec<String>>,
    exit: i32,
    /// Every diagnostic shown, in order: `error[code] file:line:column`.
    diagnostics: Vec<String>,
    #[serde(default)]
    stderr: Vec<String>,
    #[serde(default)]
    stdout: Vec<String>,
    /// Text that must not occur in stderr (a follow-on error that should be silent).
    #[serde(default)]
    stderr_lacks: Vec<String>,
    /// Symlinks to make in a copy of the case before running it: link path -> target.
    #[serde(default)]
    symlinks: std::collections::BTreeMap<String, String>,
    /// Files of this repository to copy into a copy of the case: path in the case -> path
    /// from the repository's root.
    #[serde(default)]
    copies: std::collections::BTreeMap<String, String>,
}

/// The diagnostics rendered in `stderr`, in order, as `severity[code] place`: the place
/// is the `┌─ file:line:column` under the header, or the file of its `= in file` note.
fn shown_diagnostics(stderr: &str) -> Vec<String> {
    let mut shown = Vec::new();
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(head) = diagnostic_head(line) else { continue };
        let mut place = String::from("(no place)");
        while let Some(next) = lines.peek() {
            if diagnostic_head(next).is_some() {
                break;
            }
            let next = lines.next().unwrap().trim_start();
            if let Some(at) = next.strip_prefix("┌─ ").or_else(|| next.strip_prefix("= in ")) {
                place = at.trim_end().to_string();
                break;
            }
        }
        shown.push(format!("{head} {place}"));
    }
    shown
}

/// `error[code]` when `line` is a diagnostic's header (`error[code]: message`).
fn diagnostic_head(line: &str) -> Option<&str> {
    let severity = ["error[", "warning["].into_iter().find(|s| line.starts_with(s))?;
    let end = line.find("]: ")?;
    let code = &line[severity.len()..end];
    let kebab = !code.is_empty() && code.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    kebab.then(|| &line[..=end])
}

/// A copy of `case` in `into` with `expect`'s copies and symlinks made in it, or None
/// where this platform has no symlinks a test can make and the case asks for one (the
/// case is then skipped, and says so).
fn prepared(case: &Path, expect: &Expect, into: &Path) -> Option<std::path::PathBuf> {
    if !expect.symlinks.is_empty() && cfg!(not(unix)) {
        return None;
    }
    let copy = into.join("site");
    for entry in walkdir::WalkDir::new(case).sort_by_file_name() {
        let entry = entry.unwrap();
        let to = copy.join(entry.path().strip_prefix(case).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (to, from) in &expect.copies {
        let at = copy.join(to);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::copy(repository.join(from), &at).unwrap_or_else(|e| panic!("copies: {from}: {e}"));
    }
    #[cfg(unix)]
    for (link, target) in &expect.symlinks {
        let at = copy.join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, &at).unwrap();
    }
    Some(copy)
}

#[test]
fn every_fixture_site_gives_its_stated_diagnostics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites");
    let mut cases: Vec<_> =
        std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("expect.yaml").exists()).collect();
    cases.sort();
    assert!(cases.len() >= 50, "only {} fixture sites", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expect: Expect = countersign_core::yaml::from_str(&std::fs::read_to_string(case.join("expect.yaml")).unwrap())
            .unwrap_or_else(|e| panic!("{name}/expect.yaml: {e}"));
        let out_dir = tempfile::tempdir().unwrap();
        let linked;
        let case = if expect.symlinks.is_empty() && expect.copies.is_empty() {
            case
        } else {
            match prepared(case, &expect, out_dir.path()) {
                Some(copy) => {
                    linked = copy;
                    &linked
                }
                None => {
                    eprintln!("{name}: skipped (needs symlinks)");
                    continue;
                }
            }
        };
        let out_path = out_dir.path().join("public").to_string_lossy().into_owned();
        let args: Vec<String> = expect
            .command
            .clone()
            .unwrap_or_else(|| vec!["check".into(), "--no-cache".into()])
            .into_iter()
            .map(|a| a.replace("$OUT", &out_path))
            .collect();
        // No case may hang (an alias bomb, a census over budget that ran anyway): a case
        // still running after a generous minute is killed and fails.
        let mut child = Command::new(env!("CARGO_BIN_EXE_countersign"))
            .arg("--root")
            .arg(case)
            .arg("--no-color")
            .args(&args)
            .env("CI", "1")
            .stdout(std::fs::File::create(out_dir.path().join("stdout")).unwrap())
            .stderr(std::fs::File::create(out_dir.path().join("stderr")).unwrap())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().ok();
                failures.push(format!("{name}: still running after 60 s (a hang?)"));
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let status = child.wait().unwrap();
        let stderr_bytes = std::fs::read(out_dir.path().join("stderr")).unwrap();
        let stdout_bytes = std::fs::read(out_dir.path().join("stdout")).unwrap();
        let stderr = String::from_utf8_lossy(&stderr_bytes);
        let stdout = String::from_utf8_lossy(&stdout_bytes);
        let mut problems = Vec::new();
        if status.code() != Some(expect.exit) {
            problems.push(format!("exit {:?}, expected {}", status.code(), expect.exit));
        }
        if stderr.contains("panicked") {
            problems.push("panicked".into());
        }
        let shown = shown_diagnostics(&stderr);
        if shown != expect.diagnostics {
            problems.push(format!("diagnostics shown:\n{}\nexpected:\n{}", yaml_list(&shown), yaml_list(&expect.diagnostics)));
        }
        for s in &expect.stderr {
            if !stderr.contains(s.as_str()) {
                problems.push(format!("stderr lacks {s:?}"));
            }
        }
        for s in &expect.stderr_lacks {
            if stderr.contains(s.as_str()) {
                problems.push(format!("stderr has {s:?}"));
            }
        }
        for s in &expect.stdout {
            if !stdout.contains(s.as_str()) {
                problems.push(format!("stdout lacks {s:?}"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{name}: {}\n--- stderr ---\n{stderr}", problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// `items` as the lines of a YAML list, as `expect.yaml` writes them.
fn yaml_list(items: &[String]) -> String {
    if items.is_empty() {
        return "  []".into();
    }
    items.iter().map(|i| format!("  - {i}")).collect::<Vec<_>>().join("\n")
}

#[test]
fn diagnostics_are_read_from_their_headers_and_places() {
    let stderr = "error[claim-mismatch]: the essay says 15\n   ┌─ essays/e.md:11:29\n   │\n\
                  warning[planned-link]: a planned essay\n = in essays\n\
                  error: the output folder is inside essays/\n\
                  error[bad-date]: a message\nwith a second line\n  ┌─ essays/d.md:2:7\n";
    assert_eq!(
        shown_diagnostics(stderr),
        ["error[claim-mismatch] essays/e.md:11:29", "warning[planned-link] essays", "error[bad-date] essays/d.md:2:7"]
    );
    assert_eq!(shown_diagnostics("error[claim-mismatch]: no place\n"), ["error[claim-mismatch] (no place)"]);
}
