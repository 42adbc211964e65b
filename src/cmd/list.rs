//! `countersign list`: the registry's documentation, then the site's own censuses.

use std::fmt::Write as _;
use std::path::Path;

use countersign_census as census;
use countersign_site::censuses::{self, SiteCensus};
use countersign_site::pipeline::Callable;

use super::Outcome;
use crate::console::out;

/// Print every census with its summary, parameters, cost model and source modules; then
/// the site censuses of `root` (declared in `censuses/*.yaml`), the same way, with their
/// command and source files; then any problem with their declarations.
pub fn run(root: &Path) -> Outcome {
    out(&text(root));
    Ok(())
}

/// What [`run`] prints.
pub fn text(root: &Path) -> String {
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
        let _ = writeln!(s, "{}: {}: {}", d.origin.shown().unwrap_or("countersign"), d.code.as_str(), d.message);
    }
    s
}
