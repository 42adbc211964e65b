//! `countersign build`: take the output lock, run every stage, write the site atomically.

use std::path::Path;
use std::time::Instant;

use countersign_core::content::Essay;
use countersign_site::output;
use countersign_site::pipeline::{self, RunOptions};

use super::{count, fail, print_diags, summary_line, Failure, Outcome};
use crate::console::err;

/// Build the site at `root` into `out` (default `root/public`), computing every census
/// afresh with `no_cache`, with `base_url` (when given) in place of the configuration's. Fails (exit 1) on any error diagnostic, leaving the previous
/// site as it was, or when the output folder cannot be locked or written.
pub fn run(root: &Path, out: Option<&Path>, no_cache: bool, base_url: Option<String>, color: bool) -> Outcome {
    let started = Instant::now();
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| root.join(output::DEFAULT_DIR));
    let write_to = match output::check_out(root, &out) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // One build at a time writes beside the output folder; a second one waits here,
    // before computing, so it finds the first one's results in the cache.
    let lock = output::lock_output(&write_to, || err(&format!("waiting for another build writing beside {} to finish\n", out.display())));
    let opts = RunOptions {
        root: root.to_path_buf(),
        use_cache: !no_cache,
        progress: pipeline::progress_allowed(),
        render: true,
        theme: countersign::THEME,
        base_url,
    };
    // Each file goes to the temporary folder beside the output as it is made. A folder
    // that cannot hold the output is reported after the sources' own errors: the run then
    // renders into nothing.
    let mut writer = output::FsWriter;
    let staging =
        lock.as_ref().map_err(|e| e.to_string()).and_then(|l| output::Staging::begin(&write_to, &mut writer, l).map_err(|e| e.to_string()));
    let (run, staging) = match staging {
        Ok(mut s) => (pipeline::run_publishing_into(&opts, &mut s), Ok(s)),
        Err(e) => (pipeline::run_publishing_into(&opts, &mut countersign_render::Discard), Err(e)),
    };
    let mut diags = run.diags.clone();
    diags.extend(pipeline::draft_warnings(&run.loaded.essays));
    countersign_core::diag::sort_by_place(&mut diags);
    print_diags(&run.loaded.sources, &diags, color);
    if !run.ok() {
        // Dropping the staging removes the temporary folder.
        // The folder is only ever replaced whole, at the end: what is there now was there before.
        let left = if write_to.join(output::MARKER).is_file() { "the previous site was left as it was" } else { "nothing was written" };
        err(&format!("build failed: {}; {left}\n", summary_line(&diags)));
        return Err(Failure::Failed);
    }
    let staging = match staging {
        Ok(s) => s,
        Err(e) => return fail(format!("cannot write the site to {}: {e}", out.display())),
    };
    let files = staging.files();
    if let Err(e) = staging.publish(output::publish_for_tests()) {
        return fail(format!("cannot write the site to {}: {e}", out.display()));
    }
    // Counted as `check` counts them: claims compared with a result (see `was_checked`).
    let claims: usize =
        run.checked.as_ref().map(|c| c.reports.iter().flat_map(|r| r.iter()).filter(|r| r.was_checked()).count()).unwrap_or(0);
    let (built, left_out) = published(&run.loaded.essays);
    err(&format!(
        "built {built} ({left_out}{} checked, {} files) into {} in {:.2}s; {}\n",
        count(claims, "claim"),
        files,
        out.display(),
        started.elapsed().as_secs_f64(),
        run.stats.summary(false),
    ));
    Ok(())
}

/// The essays a build published and, when some were drafts (`draft: true`, which build
/// leaves out), how many it left out, as the summary says them: ("2 essays", "1 draft left
/// out; ") or ("3 essays", ""). A draft's claims are checked, so the claims counted after
/// this include them.
fn published(essays: &[Essay]) -> (String, String) {
    let drafts = essays.iter().filter(|e| e.front.draft).count();
    let built = count(essays.len() - drafts, "essay");
    match drafts {
        0 => (built, String::new()),
        n => (built, format!("{} left out; ", count(n, "draft"))),
    }
}
