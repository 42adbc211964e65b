//! `countersign run` and `countersign list`: one census from the command line, and the
//! registry's documentation.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use crate::census::{self, Ctx, PrepareError, Stop};
use crate::diag::{Code, Diagnostic, Sources};
use crate::pipeline::Callable;
use crate::site::censuses::{self, SiteCensus};

/// The text `countersign list` prints: every census with its summary, parameters, cost
/// model and source modules; then the site censuses of `root` (declared in
/// `censuses/*.yaml`), the same way, with their command and source files; then any
/// problem with their declarations.
pub fn list(root: &Path) -> String {
    let mut s = String::new();
    for c in census::REGISTRY {
        let _ = writeln!(s, "{}\n    {}", c.name(), c.summary());
        for p in c.params() {
            let _ = writeln!(s, "    with.{}: {}\n        {}", p.name, p.shape, p.doc);
        }
        let _ = writeln!(s, "    cost: {}", c.cost_model());
        let _ = writeln!(s, "    sources: {}\n", c.sources().join(", "));
    }
    let site = censuses::load(root);
    for c in &site.censuses {
        let _ = writeln!(s, "{} (site census, {})\n    {}", c.name, c.file, c.summary);
        for (name, spec) in &c.params {
            let _ = writeln!(s, "    with.{name}: {}\n        {}", SiteCensus::shape(spec), spec.doc);
        }
        let _ = writeln!(s, "    command: {}", c.command.join(" "));
        let _ = writeln!(s, "    cost: {}", Callable::Site(c.clone()).cost_model());
        let _ = writeln!(s, "    sources: {}\n", c.files.join(", "));
    }
    for d in &site.diags {
        let _ = writeln!(s, "{}: {}: {}", d.file, d.code.as_str(), d.message);
    }
    s
}

/// The diagnostic of site census `name` failing, with the end of its standard error.
fn failure(name: &str, file: &str, f: &census::Failure) -> Diagnostic {
    let mut d = Diagnostic::error(f.kind.code(), file, 0..0, format!("site census `{name}` failed: {}", f.message));
    for line in &f.stderr_tail {
        d = d.with_note(format!("stderr | {line}"));
    }
    d
}

/// Run census `name` with parameters `with` (YAML). With `json`, only the result goes to
/// stdout; otherwise the result, the cost estimate and the time. Exit 1 on an unknown
/// census or bad parameters (a diagnostic pointing into the `--with` text), 0 otherwise.
pub fn run(root: &Path, name: &str, with: &str, json: bool, budget: Option<u64>, color: bool) -> ExitCode {
    let file = "--with";
    let mut sources = Sources::new();
    sources.add(file, with.to_string());
    let fail = |d: Diagnostic, sources: &Sources| {
        crate::console::err(&sources.render(&[d], color));
        ExitCode::from(1)
    };
    let site = censuses::load(root);
    let Some(c) = Callable::lookup(name, &site.censuses) else {
        // Point at the name as typed, not at the parameters (which may be fine).
        let mut named = Sources::new();
        named.add("NAME", name.to_string());
        return fail(
            Diagnostic::error(Code::UnknownCensus, "NAME", 0..name.len().max(1), format!("unknown census `{name}`"))
                .with_hint(format!("censuses: {}", Callable::names(&site.censuses).join(", "))),
            &named,
        );
    };
    let indented: String = with.lines().map(|l| format!("  {l}\n")).collect();
    let block = format!("id: cli\nrun: {name}\nwith:\n{indented}");
    let prepared = match c.prepare(&block) {
        Ok(p) => p,
        Err(PrepareError::Shape { message, line, column }) => {
            let at = match (line, column) {
                (Some(l), Some(col)) if l > 3 => crate::content::offset_of(with, l - 3, col.saturating_sub(2)),
                _ => 0,
            };
            return fail(
                Diagnostic::error(Code::BadParams, file, at..at + 1, format!("bad parameters for `{name}`: {message}"))
                    .with_hint("`countersign list` shows the parameters"),
                &sources,
            );
        }
        Err(PrepareError::Limit(pe)) => {
            let keys: Vec<&str> = pe.path.iter().map(String::as_str).collect();
            let at = crate::content::locate_keys(with, &keys).unwrap_or(0);
            let mut d = Diagnostic::error(Code::ParamOutOfRange, file, at..at + 1, format!("parameter out of range: {}", pe.message));
            if let Some(h) = pe.hint {
                d = d.with_hint(h);
            }
            return fail(d, &sources);
        }
    };
    let budget = budget
        .unwrap_or_else(|| crate::site::config::Config::load(root).map(|(c, _)| c.budget).unwrap_or(crate::site::config::DEFAULT_BUDGET));
    if prepared.cost > budget {
        return fail(
            Diagnostic::error(
                Code::OverBudget,
                file,
                0..0,
                format!("estimated at {:.1e} steps, over the budget of {budget:.1e}", prepared.cost as f64),
            )
            .with_hint(format!("pass --budget to raise it; cost model: {}", c.cost_model())),
            &sources,
        );
    }
    let started = Instant::now();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| prepared.run(&Ctx::new()))) {
        Err(payload) => fail(Diagnostic::error(Code::CensusPanicked, file, 0..0, census::unwind_message(payload.as_ref())), &sources),
        Ok(Err(Stop::Cancelled)) => ExitCode::from(1),
        Ok(Err(Stop::Failed(f))) => fail(failure(name, file, &f), &sources),
        Ok(Ok(v)) => {
            if json {
                crate::console::out(&format!("{}\n", serde_json::to_string(&v).unwrap_or_default()));
            } else {
                crate::console::out(&format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()));
                crate::console::err(&format!(
                    "{name}: estimated cost {:.1e} steps; ran in {:.3}s\n",
                    prepared.cost as f64,
                    started.elapsed().as_secs_f64()
                ));
            }
            ExitCode::SUCCESS
        }
    }
}
