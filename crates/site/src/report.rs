//! The machine-readable report of `countersign check --format json`. Its schema is
//! `docs/report.schema.json` (tested).

use serde_json::{json, Value};

use crate::pipeline::Run;
use countersign_core::check::ClaimReport;
use countersign_core::diag::{Diagnostic, Sources};

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
            let mut v = json!({
                "severity": if d.is_error() { "error" } else { "warning" }, "code": d.code,
                "origin": d.origin.kind(), "file": d.origin.file(), "line": line, "column": column,
                "message": d.message, "label": d.label, "notes": d.notes,
            });
            extras(&run.loaded.sources, d, &mut v);
            v
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

/// Add a diagnostic's `related` places and its `fix` to its JSON object `v`, each only
/// when present (so the report of a diagnostic without them is unchanged).
fn extras(sources: &Sources, d: &Diagnostic, v: &mut Value) {
    if !d.related().is_empty() {
        let related: Vec<Value> = d
            .related()
            .iter()
            .map(|r| {
                let (line, column) = sources.place(&r.origin, r.span.start);
                json!({ "origin": r.origin.kind(), "file": r.origin.file(), "line": line, "column": column, "message": r.message })
            })
            .collect();
        v["related"] = Value::Array(related);
    }
    if let Some(f) = d.fix() {
        let (line, column) = sources.place(&d.origin, f.span.start);
        v["fix"] = json!({
            "line": line, "column": column, "start": f.span.start, "end": f.span.end,
            "replacement": f.replacement, "description": f.description, "applicability": f.applicability,
        });
    }
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
