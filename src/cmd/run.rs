//! `countersign run NAME --with YAML`: one census from the command line.
//!
//! The call is written as the census block an essay would hold and prepared by the same
//! function a build uses ([`pipeline::prepare_call`]), so its diagnostics — an unknown
//! census with the nearest name, bad parameters, a parameter out of range, a cost over the
//! budget — are the build's, pointing into the block as the command line wrote it.

use std::path::Path;
use std::time::Instant;

use countersign_census::{self as census, Ctx, Stop};
use countersign_core::content::{parse_essay, CensusBlock};
use countersign_core::diag::{Code, Diagnostic, Sources};
use countersign_site::{censuses, pipeline};

use super::{print_diags, Failure, Outcome};
use crate::console::{err, out};

/// The name diagnostics give the block made from the command line.
const FILE: &str = "command line";

/// Run census `name` with parameters `with` (YAML). With `json`, only the result goes to
/// stdout, as JSON; otherwise an outline of its paths (see [`super::outline`]), then the
/// cost estimate and the time on stderr. Fails (exit 1) on an
/// unknown census, bad parameters, a cost over `budget` (default: the site's), or a run
/// that fails; each a diagnostic pointing into the block.
pub fn run(root: &Path, name: &str, with: &str, json: bool, budget: Option<u64>, color: bool) -> Outcome {
    let mut sources = Sources::new();
    let fail = |d: Diagnostic, sources: &Sources| {
        print_diags(sources, &[d], color);
        Err(Failure::Failed)
    };
    let site = censuses::load(root);
    let (text, block) = block_of(name, with);
    sources.add(FILE, text);
    let block = match block {
        Ok(b) => b,
        Err(d) => return fail(*d, &sources),
    };
    let budget = budget
        .unwrap_or_else(|| countersign_site::config::load(root).map(|(c, _)| c.budget).unwrap_or(countersign_core::config::DEFAULT_BUDGET));
    let (callable, prepared) = match pipeline::prepare_call(FILE, &block, budget, &site.censuses) {
        Ok(x) => x,
        Err(d) => return fail(d, &sources),
    };
    let started = Instant::now();
    let at = block.run_span.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prepared.run(&Ctx::new()))) {
        Err(payload) => fail(Diagnostic::error(Code::CensusPanicked, FILE, at, census::unwind_message(payload.as_ref())), &sources),
        Ok(Err(Stop::Cancelled)) => Err(Failure::Failed),
        Ok(Err(Stop::Failed(f))) => {
            let mut d = Diagnostic::error(f.kind.code(), FILE, at, format!("site census `{}` failed: {}", callable.name(), f.message));
            for line in &f.stderr_tail {
                d = d.with_note(format!("stderr | {line}"));
            }
            fail(d, &sources)
        }
        Ok(Ok(v)) => {
            if json {
                out(&format!("{}\n", serde_json::to_string(&v).unwrap_or_default()));
            } else {
                out(&super::outline::outline(&v));
                err("(each path as a claim writes it after its census block's id: {{ id.PATH = … }}; `--json` prints the whole result)\n");
                let took = started.elapsed().as_secs_f64();
                err(&match callable {
                    // A site census states no cost: only its `timeout:` bounds it.
                    pipeline::Callable::Site(_) => format!("{name}: a site census (no cost estimate); ran in {took:.3}s\n"),
                    pipeline::Callable::Builtin(_) => {
                        format!("{name}: estimated cost {:.1e} steps; ran in {took:.3}s\n", prepared.cost as f64)
                    }
                });
            }
            Ok(())
        }
    }
}

/// The text of the census block `id: cli, run: NAME, with: WITH` as an essay would hold
/// it (diagnostics point into it), and the block parsed as an essay's, or the diagnostic
/// of a block that does not parse (parameters that are not YAML).
fn block_of(name: &str, with: &str) -> (String, Result<CensusBlock, Box<Diagnostic>>) {
    let indented: String = with.lines().map(|l| format!("  {l}\n")).collect();
    let quoted = serde_json::to_string(name).unwrap_or_default();
    let text = format!("---\ntitle: countersign run\n---\n```census\nid: cli\nrun: {quoted}\nwith:\n{indented}```\n");
    let (essay, diags) = parse_essay(FILE, FILE.into(), text.clone());
    if let Some(d) = diags.into_iter().find(Diagnostic::is_error) {
        return (text, Err(Box::new(d)));
    }
    let block = essay.and_then(|mut e| e.calls.pop());
    let block =
        block.ok_or_else(|| Box::new(Diagnostic::error(Code::BadParams, FILE, 0..0, format!("cannot read the parameters of `{name}`"))));
    (text, block)
}
