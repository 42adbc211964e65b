//! `countersign check`: every stage but the write; `--bless`, `--strict`, `--verify` and
//! the JSON report.

use std::path::Path;
use std::time::Instant;

use countersign_core::check::ClaimReport;
use countersign_core::diag::{Diagnostic, Sources};
use countersign_site::pipeline::{self, Run, RunOptions};

use super::{count, error_files, print_diags, summary_line, Failure, Outcome};
use crate::console::{err, out};

/// What `check` was asked to do besides checking.
#[derive(Clone, Copy, Debug, Default)]
pub struct Modes {
    /// Rewrite each disagreeing stated value in place (`--bless`).
    pub bless: bool,
    /// Also fail on numbers no claim covers (`--strict`).
    pub strict: bool,
    /// One JSON report on stdout instead of human diagnostics (`--format json`).
    pub json: bool,
    /// Compute every census afresh (`--no-cache`).
    pub no_cache: bool,
    /// Run every site census twice more and compare (`--verify`).
    pub verify: bool,
}

/// Check the site at `root`. Fails (exit 1) when any diagnostic is an error.
pub fn run(root: &Path, modes: Modes, color: bool) -> Outcome {
    let started = Instant::now();
    let opts = RunOptions {
        root: root.to_path_buf(),
        use_cache: !modes.no_cache,
        progress: pipeline::progress_allowed() && !modes.json,
        render: true,
        theme: countersign::THEME,
        base_url: None,
    };
    // The pages are rendered for their diagnostics only: none is kept.
    let mut discard = countersign_render::Discard;
    let hooks = pipeline::Hooks { sink: Some(&mut discard), ..pipeline::Hooks::default() };
    let run = pipeline::run_with(&opts, hooks).expect("a run nobody cancels finishes");
    let mut diags = run.diags.clone();
    diags.extend(pipeline::draft_warnings(&run.loaded.essays));
    let reports: Vec<ClaimReport> =
        run.checked.as_ref().map(|c| c.reports.iter().flat_map(|r| r.iter()).cloned().collect()).unwrap_or_default();
    let verified = modes.verify.then(|| {
        let (found, runs) = pipeline::verify(&run.loaded);
        let failed = found.len();
        diags.extend(found);
        (runs, failed)
    });
    if modes.strict {
        diags.extend(countersign_core::strict::findings(&run.loaded.essays, run.checked.as_ref().map(|c| c.bound.as_slice())));
    }
    if modes.bless {
        bless(root, &run.loaded.sources, &reports, &mut diags, modes.json);
    }
    // Printed and reported in reading order, not in the order the stages found them.
    countersign_core::diag::sort_by_place(&mut diags);
    let failed = diags.iter().any(Diagnostic::is_error);
    if modes.json {
        let report = countersign_site::report::json(&run, &reports, &diags);
        out(&format!("{}\n", serde_json::to_string_pretty(&report).unwrap_or_default()));
    } else {
        print_diags(&run.loaded.sources, &diags, color);
        err(&summary(&run, &reports, &diags, failed, started));
        if let Some((runs, failed)) = verified {
            err(&verify_line(runs, failed));
        }
    }
    if failed {
        Err(Failure::Failed)
    } else {
        Ok(())
    }
}

/// Apply the safe fixes the diagnostics carry (`--bless`): the mismatches it fixed leave
/// `diags`, its refusals and write errors join them. Each change is printed as
/// `file:line:column` and its line before and after, on standard error when `json` (so
/// that standard output holds only the report).
fn bless(root: &Path, sources: &Sources, reports: &[ClaimReport], diags: &mut Vec<Diagnostic>, json: bool) {
    let (edits, refusals) = countersign_site::bless::plan(diags, sources, reports);
    diags.extend(refusals);
    let (done, refused) = countersign_site::bless::apply(root, &edits);
    // A fix --bless refused to write is a suggestion only: its help no longer says
    // `--bless` applies it, beside the error saying it did not.
    for r in refused.iter().filter(|r| r.code == countersign_core::diag::Code::BlessRefused) {
        let same = |d: &&mut Diagnostic| d.origin.file() == r.origin.file() && d.span == r.span;
        if let Some(fix) = diags.iter_mut().filter(|d| d.fix().is_some()).find(same).and_then(Diagnostic::fix_mut) {
            fix.applicability = countersign_core::diag::Applicability::Display;
        }
    }
    diags.extend(refused);
    diags.retain(|d| !(d.fix().is_some() && done.iter().any(|e| Some(e.file.as_str()) == d.origin.file() && e.span == d.span)));
    for e in &done {
        let (before, after) = lines_around(sources, e);
        let change = format!("{}:{}:{}\n- {before}\n+ {after}\n", e.file, e.line, e.column);
        // With --format json, standard output holds the report alone.
        if json {
            err(&change)
        } else {
            out(&change)
        }
    }
    err(&format!("blessed {}\n", count(done.len(), "stated value")));
}

/// The line of `e` as it was checked and as the edit leaves it, with terminal controls
/// escaped; just the old and new text when the file's text is not at hand.
fn lines_around(sources: &Sources, e: &countersign_site::bless::Edit) -> (String, String) {
    let Some(text) = sources.get(&e.file) else { return (e.old.clone(), e.new.clone()) };
    let start = text[..e.span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[e.span.end..].find('\n').map_or(text.len(), |i| e.span.end + i);
    let before = &text[start..end];
    let after = format!("{}{}{}", &text[start..e.span.start], e.new, &text[e.span.end..end]);
    let clean = |s: &str| countersign_core::diag::escape_controls(s.trim_end_matches('\r'));
    (clean(before), clean(&after))
}

/// The last line: "ok 5 essays, 642 claims checked: 0 errors, 1 warning; census calls: …".
/// What `--verify` did: `runs` site census calls run twice afresh, `failed` of them
/// answering differently or failing (each has its diagnostic above).
fn verify_line(runs: usize, failed: usize) -> String {
    match (runs, failed) {
        (0, _) => "verify: no site census calls to run twice (built-in censuses are pure by contract)\n".to_string(),
        (n, 0) => format!("verify: {} run twice afresh, each gave the same answer both times\n", count(n, "site census call")),
        (n, f) => format!("verify: {} run twice afresh, {f} did not give the same answer both times\n", count(n, "site census call")),
    }
}

fn summary(run: &Run, reports: &[ClaimReport], diags: &[Diagnostic], failed: bool, started: Instant) -> String {
    let checked = reports.iter().filter(|r| r.was_checked()).count();
    format!(
        "{} {}, {} checked: {}{}; {} in {:.2}s\n",
        if failed { "FAILED" } else { "ok" },
        count(run.loaded.essays.len(), "essay"),
        count(checked, "claim"),
        summary_line(diags),
        error_files(diags),
        run.stats.summary(false),
        started.elapsed().as_secs_f64()
    )
}
