//! Fixture sites under tests/sites/: each folder is a site, and one trial of this harness
//! (libtest-mimic, `harness = false`), named by the folder: `cargo test --release --test
//! sites -- NAME --exact` runs one. No case may panic.
//!
//! A case whose command is `check` is compared with its snapshot,
//! `tests/snapshots/sites/NAME.snap`: the report of `check --format json` (every
//! diagnostic's severity, code, file, line, column, message, label and notes, and every
//! claim), with the machine's paths written `[ROOT]`, `[TMP]` and `[REPO]`. A diagnostic
//! that appears, disappears, moves or is reworded changes the snapshot;
//! `INSTA_UPDATE=always cargo test --release --test sites` rewrites the snapshots and
//! `git diff tests/snapshots` reviews them (CONTRIBUTING.md, "Fixture sites"). The case's
//! `expect.yaml` states the rest:
//!
//! ```yaml
//! command: [check]          # optional; default [check, --no-cache]; `$OUT` in an
//!                           # argument is a fresh folder outside the case (for build)
//! exit: 1
//! diagnostics:              # only for a command with no JSON report (build, new, run),
//!   - error[unknown-census] essays/bad.md:12:23    # and then required: every diagnostic
//!   - warning[planned-link] essays/bad.md:14:1     # shown, in order, as
//!                           # `severity[code] file:line:column` (`severity[code] file`
//!                           # when it has no span); [] for none
//! stderr:                   # optional; each must occur in the human stderr (the summary
//!   - "FAILED 1 essay, 0 claims checked"  # line, the rendering: what no snapshot shows)
//! stderr_lacks:             # optional; each must not occur in the human stderr
//!   - "no census result is bound"
//! stdout:                   # optional; each must occur in the human stdout
//!   - "welter"
//! symlinks:                 # optional; made by the test (never committed, so a
//!   essays/gone.md: nowhere.md   # Windows checkout stays whole): link -> target; the
//!                           # case then runs in a copy, and only where symlinks exist
//! copies:                   # optional; files of this repository copied into the case
//!   censuses/subtraction.py: src/scaffold/subtraction.py   # (the case runs in a copy),
//!                           # so a script shared with `countersign new` is kept once
//! ```
//!
//! A `check` case runs twice: with `--format json` for the snapshot, and as a person sees
//! it (`--no-color`) for `stderr:`, `stdout:` and `stderr_lacks:`; both must exit with
//! `exit`, and neither may panic. Any other command runs once, as a person sees it, and
//! its diagnostics are read from the rendered stderr: each `error[code]: …` or
//! `warning[code]: …` header and the `┌─ file:line:column` (or `= in file`) under it. An
//! error of the command line itself (`error: the output folder …`, printed before any
//! site is read) is no diagnostic and has no code: such a case states `diagnostics: []`
//! (or, for `check`, has a snapshot saying that no report was printed) and its sentence
//! under `stderr:`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, Trial};

/// A case's `expect.yaml` (the module's documentation shows every field).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    command: Option<Vec<String>>,
    exit: i32,
    /// Every diagnostic shown, in order, as `severity[code] file:line:column`: only for a
    /// command with no JSON report (a `check` case has its snapshot instead).
    #[serde(default)]
    diagnostics: Option<Vec<String>>,
    #[serde(default)]
    stderr: Vec<String>,
    #[serde(default)]
    stdout: Vec<String>,
    /// Text that must not occur in stderr (a follow-on error that should be silent).
    #[serde(default)]
    stderr_lacks: Vec<String>,
    /// Symlinks to make in a copy of the case before running it: link path -> target.
    #[serde(default)]
    symlinks: BTreeMap<String, String>,
    /// Files of this repository to copy into a copy of the case: path in the case -> path
    /// from the repository's root.
    #[serde(default)]
    copies: BTreeMap<String, String>,
}

impl Expect {
    /// The command's arguments after `--root CASE --no-color`, `$OUT` replaced by `out`.
    fn args(&self, out: &Path) -> Vec<String> {
        let out = out.to_string_lossy();
        let command = self.command.clone().unwrap_or_else(|| vec!["check".into(), "--no-cache".into()]);
        command.into_iter().map(|a| a.replace("$OUT", &out)).collect()
    }

    /// Whether the command is `check`, which has a JSON report (`--format json`).
    fn is_check(&self) -> bool {
        self.command.as_ref().is_none_or(|c| c.first().map(String::as_str) == Some("check"))
    }
}

/// The repository's root (the tests run there).
fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where the snapshots are: one `NAME.snap` a `check` case.
fn snapshots() -> PathBuf {
    repository().join("tests/snapshots/sites")
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test("harness::diagnostics_are_read_from_their_headers_and_places", || {
            diagnostics_are_read_from_their_headers_and_places();
            Ok(())
        }),
        Trial::test("harness::every_snapshot_has_its_case", every_snapshot_has_its_case),
    ];
    trials.extend(cases().into_iter().map(trial));
    libtest_mimic::run(&args, trials).exit();
}

/// Every folder of tests/sites/ with an `expect.yaml`, in name order.
fn cases() -> Vec<PathBuf> {
    let dir = repository().join("tests/sites");
    let mut cases: Vec<_> =
        std::fs::read_dir(dir).unwrap().filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("expect.yaml").exists()).collect();
    cases.sort();
    cases
}

/// The case's name: its folder's.
fn name_of(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

/// The case's `expect.yaml`, read.
fn expect_of(case: &Path) -> Result<Expect, String> {
    let text = std::fs::read_to_string(case.join("expect.yaml")).map_err(|e| format!("expect.yaml: {e}"))?;
    countersign_core::yaml::from_str(&text).map_err(|e| format!("expect.yaml: {e}"))
}

/// The trial of one case: ignored where it needs symlinks and this platform has none a
/// test can make.
fn trial(case: PathBuf) -> Trial {
    let name = name_of(&case);
    let needs_symlinks = expect_of(&case).is_ok_and(|e| !e.symlinks.is_empty());
    Trial::test(name.clone(), move || run_case(&name, &case)).with_ignored_flag(needs_symlinks && cfg!(not(unix)))
}

/// Run one case and compare it with its `expect.yaml` and (for `check`) its snapshot; the
/// failure lists every problem found.
fn run_case(name: &str, case: &Path) -> Result<(), Failed> {
    let expect = expect_of(case)?;
    let scratch = tempfile::tempdir()?;
    let root =
        if expect.symlinks.is_empty() && expect.copies.is_empty() { case.to_path_buf() } else { prepared(case, &expect, scratch.path())? };
    let args = expect.args(&scratch.path().join("public"));
    let mut problems = Vec::new();
    let human = run(&root, &args, scratch.path(), "human")?;
    human.check_exit_and_panic(expect.exit, "", &mut problems);
    human.check_texts(&expect, &mut problems);
    let mut shown_stderr = human.stderr.clone();
    if expect.is_check() {
        if expect.diagnostics.is_some() {
            problems.push(format!(
                "`diagnostics:` is for commands with no JSON report: a check case's are in tests/snapshots/sites/{name}.snap"
            ));
        }
        let json_args: Vec<String> = args.iter().cloned().chain(["--format".into(), "json".into()]).collect();
        let json = run(&root, &json_args, scratch.path(), "json")?;
        json.check_exit_and_panic(expect.exit, " (--format json)", &mut problems);
        let paths = [(root.as_path(), "[ROOT]"), (scratch.path(), "[TMP]"), (repository(), "[REPO]")];
        match report_snapshot(&json.stdout, &paths) {
            Ok(snapshot) => {
                let command = json_args.join(" ").replace(&*scratch.path().to_string_lossy(), "[TMP]");
                compare_snapshot(name, case, &command, &snapshot, &mut problems)
            }
            Err(e) => problems.push(e),
        }
        shown_stderr.push_str(&json.stderr);
    } else {
        match &expect.diagnostics {
            None => problems.push("`diagnostics:` is required: this command has no JSON report".into()),
            Some(stated) => {
                let shown = shown_diagnostics(&human.stderr);
                if &shown != stated {
                    problems.push(format!("diagnostics shown:\n{}\nexpected:\n{}", yaml_list(&shown), yaml_list(stated)));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}: {}\n--- stderr ---\n{shown_stderr}", problems.join("\n")).into())
    }
}

/// What one run of the binary left.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// The exit code is `exit`, and nothing panicked.
    fn check_exit_and_panic(&self, exit: i32, which: &str, problems: &mut Vec<String>) {
        if self.code != Some(exit) {
            problems.push(format!("exit {:?}{which}, expected {exit}", self.code));
        }
        if self.stderr.contains("panicked") {
            problems.push(format!("panicked{which}"));
        }
    }

    /// The `stderr:`, `stderr_lacks:` and `stdout:` lines hold.
    fn check_texts(&self, expect: &Expect, problems: &mut Vec<String>) {
        for s in &expect.stderr {
            if !self.stderr.contains(s.as_str()) {
                problems.push(format!("stderr lacks {s:?}"));
            }
        }
        for s in &expect.stderr_lacks {
            if self.stderr.contains(s.as_str()) {
                problems.push(format!("stderr has {s:?}"));
            }
        }
        for s in &expect.stdout {
            if !self.stdout.contains(s.as_str()) {
                problems.push(format!("stdout lacks {s:?}"));
            }
        }
    }
}

/// `countersign --root ROOT --no-color ARGS`, its output kept in `scratch` under `label`.
/// No case may hang (an alias bomb, a census over budget that ran anyway): a run still
/// going after a generous minute is killed and fails.
fn run(root: &Path, args: &[String], scratch: &Path, label: &str) -> Result<Ran, Failed> {
    let stdout_at = scratch.join(format!("{label}.stdout"));
    let stderr_at = scratch.join(format!("{label}.stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(root)
        .arg("--no-color")
        .args(args)
        .env("CI", "1")
        .stdout(std::fs::File::create(&stdout_at)?)
        .stderr(std::fs::File::create(&stderr_at)?)
        .spawn()?;
    let started = Instant::now();
    while child.try_wait()?.is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            return Err(format!("still running after 60 s (a hang?): {}", args.join(" ")).into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let code = child.wait()?.code();
    let read = |at: &Path| std::fs::read(at).map(|b| String::from_utf8_lossy(&b).into_owned());
    Ok(Ran { code, stdout: read(&stdout_at)?, stderr: read(&stderr_at)? })
}

/// The snapshot of a `check --format json` run's stdout: the report, pretty-printed, with
/// every path of `paths` in its strings replaced by its placeholder and the census results
/// of a nondeterministic census (which differ by definition) left out; a fixed sentence
/// when the command printed no report (a command-line error, before any site is read).
fn report_snapshot(stdout: &str, paths: &[(&Path, &str)]) -> Result<String, String> {
    if stdout.trim().is_empty() {
        return Ok("(no JSON report on stdout)".into());
    }
    let mut report: serde_json::Value = serde_json::from_str(stdout).map_err(|e| format!("stdout is not one JSON document: {e}"))?;
    let mut paths: Vec<(String, &str)> = paths.iter().map(|(p, to)| (p.to_string_lossy().into_owned(), *to)).collect();
    // The longest first: the case's root may lie in the repository or the scratch folder.
    paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    normalise(&mut report, &paths);
    for d in report["diagnostics"].as_array_mut().into_iter().flatten() {
        if d["code"] == "census-nondeterministic" {
            for note in d["notes"].as_array_mut().into_iter().flatten() {
                let text = note.as_str().unwrap_or_default();
                if let Some(run) = ["first: ", "second: "].into_iter().find(|p| text.starts_with(p)) {
                    *note = format!("{run}[differs from run to run]").into();
                }
            }
        }
    }
    Ok(serde_json::to_string_pretty(&report).expect("a JSON value prints"))
}

/// Replace each path in every string of `value` by its placeholder.
fn normalise(value: &mut serde_json::Value, paths: &[(String, &str)]) {
    match value {
        serde_json::Value::String(s) => {
            for (path, to) in paths {
                if s.contains(path.as_str()) {
                    *s = s.replace(path.as_str(), to);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| normalise(v, paths)),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(|v| normalise(v, paths)),
        _ => {}
    }
}

/// One snapshot comparison at a time, so that insta's diffs of two failing cases do not
/// interleave on stdout.
static SNAPSHOT_LOCK: Mutex<()> = Mutex::new(());

/// Compare `snapshot` with `tests/snapshots/sites/NAME.snap` (insta: a difference fails,
/// and is written as `.snap.new` for review, or over the snapshot with
/// `INSTA_UPDATE=always`; in CI nothing is written).
fn compare_snapshot(name: &str, case: &Path, command: &str, snapshot: &str, problems: &mut Vec<String>) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshots());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(case.join("expect.yaml"));
    settings.set_description(format!("countersign --root tests/sites/{name} --no-color {command}"));
    let _one_at_a_time = SNAPSHOT_LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let compared =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| settings.bind(|| insta::assert_snapshot!(name.to_string(), snapshot))));
    if compared.is_err() {
        let snap = format!("tests/snapshots/sites/{name}.snap");
        problems.push(if repository().join(&snap).exists() {
            format!("the report differs from {snap} (insta's diff above)")
        } else {
            format!("no snapshot {snap} yet (INSTA_UPDATE=always writes it)")
        });
    }
}

/// Every snapshot belongs to a `check` case (a case renamed or removed leaves none
/// behind), and there are cases at all.
fn every_snapshot_has_its_case() -> Result<(), Failed> {
    let cases = cases();
    if cases.len() < 50 {
        return Err(format!("only {} fixture sites", cases.len()).into());
    }
    let checks: Vec<String> = cases.iter().filter(|c| expect_of(c).is_ok_and(|e| e.is_check())).map(|c| name_of(c)).collect();
    let mut orphans = Vec::new();
    let dir = std::fs::read_dir(snapshots()).map_err(|e| format!("{}: {e}", snapshots().display()))?;
    for entry in dir {
        let file = entry?.file_name().to_string_lossy().into_owned();
        if let Some(stem) = file.strip_suffix(".snap") {
            if !checks.iter().any(|c| c == stem) {
                orphans.push(file);
            }
        }
    }
    if orphans.is_empty() {
        Ok(())
    } else {
        Err(format!("snapshots with no check case in tests/sites/ (remove them): {}", orphans.join(", ")).into())
    }
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

/// A copy of `case` in `into` with `expect`'s copies and symlinks made in it.
fn prepared(case: &Path, expect: &Expect, into: &Path) -> Result<PathBuf, Failed> {
    let copy = into.join("site");
    for entry in walkdir::WalkDir::new(case).sort_by_file_name() {
        let entry = entry?;
        let to = copy.join(entry.path().strip_prefix(case)?);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to)?;
        } else {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    for (to, from) in &expect.copies {
        let at = copy.join(to);
        std::fs::create_dir_all(at.parent().unwrap())?;
        std::fs::copy(repository().join(from), &at).map_err(|e| format!("copies: {from}: {e}"))?;
    }
    #[cfg(unix)]
    for (link, target) in &expect.symlinks {
        let at = copy.join(link);
        std::fs::create_dir_all(at.parent().unwrap())?;
        std::os::unix::fs::symlink(target, &at)?;
    }
    Ok(copy)
}

/// `items` as the lines of a YAML list, as `expect.yaml` writes them.
fn yaml_list(items: &[String]) -> String {
    if items.is_empty() {
        return "  []".into();
    }
    items.iter().map(|i| format!("  - {i}")).collect::<Vec<_>>().join("\n")
}

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
