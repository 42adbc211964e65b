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
use countersign_core::diag::{Code, Diagnostic, Origin, Sources};
use countersign_site::{censuses, pipeline};

use super::{print_diags, Failure, Outcome};
use crate::console::{err, out};

/// The name diagnostics give the block made from the command line.
const FILE: &str = "command line";
/// The names diagnostics give the two arguments, as the usage line writes them.
const NAME: &str = "NAME";
const WITH: &str = "--with";
/// What `--with` holds, for parameters that are not YAML.
const WITH_HINT: &str =
    "hint: `--with` takes the parameters as YAML, as a census block's `with:` holds them: --with 'heaps: 40' or --with '{heaps: 40}'";

/// Run census `name` with parameters `with` (YAML). With `json`, only the result goes to
/// stdout, as JSON; otherwise an outline of its paths (see [`super::outline`]), then the
/// cost estimate and the time on stderr. An unknown census, parameters it does not take
/// and a cost over `budget` (default: the site's) are usage errors (exit 2), each a
/// diagnostic pointing into `NAME` or `--with` as typed; a run that fails is exit 1.
pub fn run(root: &Path, name: &str, with: &str, json: bool, budget: Option<u64>, color: bool) -> Outcome {
    let mut sources = Sources::new();
    sources.add(NAME, name.to_string());
    sources.add(WITH, with.to_string());
    let fail = |d: Diagnostic, sources: &Sources| {
        print_diags(sources, &[d], color);
        Err(Failure::Failed)
    };
    let usage = |d: Diagnostic, sources: &Sources| {
        print_diags(sources, &[d], color);
        Err(Failure::Usage)
    };
    let site = censuses::load(root);
    let (layout, block) = block_of(name, with);
    let block = match block {
        Ok(b) => b,
        Err(d) => return usage(layout.typed(*d), &sources),
    };
    let budget = budget
        .unwrap_or_else(|| countersign_site::config::load(root).map(|(c, _)| c.budget).unwrap_or(countersign_core::config::DEFAULT_BUDGET));
    let (callable, prepared) = match pipeline::prepare_call(FILE, &block, budget, &site.censuses) {
        Ok(x) => x,
        Err(d) => return usage(layout.typed(d), &sources),
    };
    let at = layout.name_span();
    let started = Instant::now();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prepared.run(&Ctx::new()))) {
        Err(payload) => fail(
            Diagnostic::error(Code::CensusPanicked, Origin::Argument(NAME.into()), at, census::unwind_message(payload.as_ref())),
            &sources,
        ),
        Ok(Err(Stop::Cancelled)) => Err(Failure::Failed),
        Ok(Err(Stop::Failed(f))) => {
            let mut d = Diagnostic::error(
                f.kind.code(),
                Origin::Argument(NAME.into()),
                at,
                format!("site census `{}` failed: {}", callable.name(), f.message),
            );
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

/// Where the two arguments stand in the census block made of them, to point a diagnostic
/// on the block back at what was typed.
struct Layout {
    /// The name as typed.
    name: String,
    /// The span of the quoted name in the block.
    name_in_block: std::ops::Range<usize>,
    /// For each line of `--with`: its start in the block (after the two spaces of indent)
    /// and in `--with`, and its length.
    with_lines: Vec<(usize, usize, usize)>,
}

impl Layout {
    /// The whole name as typed.
    fn name_span(&self) -> std::ops::Range<usize> {
        0..self.name.len()
    }

    /// `d`, which points into the block, pointing at `NAME` or `--with` instead: at the
    /// whole name for the name in the block's `run:` line, else at the same text of
    /// `--with` (at its start for the rest of the block: its fences and keys).
    fn typed(&self, mut d: Diagnostic) -> Diagnostic {
        if d.origin != Origin::from(FILE) {
            return d;
        }
        let start = d.span.start;
        let map = |at: usize| {
            let line = self.with_lines.iter().rev().find(|(in_block, _, _)| *in_block <= at + 2);
            line.map(|&(in_block, in_with, len)| in_with + at.saturating_sub(in_block).min(len))
        };
        if self.name_in_block.contains(&start) {
            d.origin = Origin::Argument(NAME.into());
            d.span = self.name_span();
            return d;
        }
        d.origin = Origin::Argument(WITH.into());
        if d.code == Code::BadBlock {
            // The block's own hint names its keys, which `--with` never shows.
            d.notes = vec![WITH_HINT.to_string()];
            // There is no block either: the YAML is the argument's.
            if let Some(rest) = d.message.strip_prefix("in this census block: ") {
                d.message = format!("in the parameters given with {WITH}: {rest}");
            }
        }
        d.span = match self.with_lines.first() {
            Some(&(first, _, _)) if start + 2 >= first => {
                let (a, b) = (map(start).unwrap_or(0), map(d.span.end).unwrap_or(0));
                a..b.max(a)
            }
            _ => 0..0,
        };
        d
    }
}

/// The census block `id: cli, run: NAME, with: WITH` as an essay would hold it, where the
/// arguments stand in it, and the block parsed as an essay's, or the diagnostic of a block
/// that does not parse (parameters that are not YAML), pointing into the block.
fn block_of(name: &str, with: &str) -> (Layout, Result<CensusBlock, Box<Diagnostic>>) {
    let quoted = serde_json::to_string(name).unwrap_or_default();
    let mut text = "---\ntitle: countersign run\n---\n```census\nid: cli\nrun: ".to_string();
    let name_in_block = text.len()..text.len() + quoted.len();
    text.push_str(&quoted);
    text.push_str("\nwith:\n");
    let mut with_lines = Vec::new();
    let mut in_with = 0;
    for line in with.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        text.push_str("  ");
        with_lines.push((text.len(), in_with, content.len()));
        text.push_str(content);
        text.push('\n');
        in_with += line.len();
    }
    text.push_str("```\n");
    let layout = Layout { name: name.to_string(), name_in_block, with_lines };
    let (essay, diags) = parse_essay(FILE, FILE.into(), text);
    if let Some(d) = diags.into_iter().find(Diagnostic::is_error) {
        return (layout, Err(Box::new(d)));
    }
    let block = essay.and_then(|mut e| e.calls.pop());
    let block =
        block.ok_or_else(|| Box::new(Diagnostic::error(Code::BadParams, FILE, 0..0, format!("cannot read the parameters of `{name}`"))));
    (layout, block)
}
