//! The machine-readable report of `countersign check --format json`. Its schema is
//! `docs/report.schema.json` (tested).

use serde_json::{json, Value};

use crate::pipeline::Run;
use countersign_core::check::ClaimReport;
use countersign_core::diag::Diagnostic;

/// Version of the report format.
pub const VERSION: u32 = 1;

/// The report: `ok`, call statistics, every claim (file, line, column, stated, computed,
/// census call, status) and every diagnostic (code, origin, file — `null` unless the
/// origin is a file —, line, column, message, notes).
pub fn json(run: &Run, reports: &[ClaimReport], diags: &[Diagnostic]) -> Value {
    let ok = !diags.iter().any(Diagnostic::is_error);
    let diagnostics: Vec<Value> = diags
        .iter()
        .map(|d| {
            let (line, column) = run.loaded.sources.position(d);
            json!({
                "severity": if d.is_error() { "error" } else { "warning" }, "code": d.code,
                "origin": d.origin.kind(), "file": d.origin.file(), "line": line, "column": column,
                "message": d.message, "label": d.label, "notes": d.notes,
            })
        })
        .collect();
    json!({
        "version": VERSION,
        "ok": ok,
        "essays": run.loaded.essays.len(),
        "stats": run.stats,
        "claims": reports,
        "diagnostics": diagnostics,
    })
}

#[cfg(test)]
mod tests {
    use countersign_core::diag::Code;

    #[test]
    fn the_schema_lists_every_diagnostic_code_and_no_other() {
        let schema: serde_json::Value = serde_json::from_str(include_str!("../../../docs/report.schema.json")).unwrap();
        let listed = &schema["properties"]["diagnostics"]["items"]["properties"]["code"]["enum"];
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(*listed, serde_json::json!(names));
    }
}
