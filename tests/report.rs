//! `countersign check --format json` validates against docs/report.schema.json, for a
//! passing site and a failing one.

use std::path::Path;
use std::process::Command;

fn report(site: &str) -> (i32, serde_json::Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites").join(site);
    let out = Command::new(env!("CARGO_BIN_EXE_countersign"))
        .args(["--root"])
        .arg(&root)
        .args(["check", "--no-cache", "--format", "json"])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), serde_json::from_slice(&out.stdout).expect("stdout is one JSON document"))
}

#[test]
fn the_json_report_validates_against_its_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
    let (code, ok) = report("ok-basic");
    assert_eq!(code, 0);
    let errors: Vec<String> = validator.iter_errors(&ok).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(ok["ok"], true);
    assert_eq!(ok["claims"].as_array().unwrap().len(), 5);
    assert!(ok["claims"].as_array().unwrap().iter().all(|c| c["status"] == "pass"));
    let (code, bad) = report("claim-disagrees");
    assert_eq!(code, 1);
    let errors: Vec<String> = validator.iter_errors(&bad).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(bad["ok"], false);
    let first = &bad["claims"][0];
    assert_eq!(first["status"], "fail");
    assert_eq!(first["stated"], "15");
    assert_eq!(first["line"], 11);
    assert_eq!(first["census"], "sylver.census");
    assert_eq!(bad["diagnostics"][0]["line"], 11);
    assert_eq!(bad["diagnostics"][0]["code"], "claim-mismatch");
    // A failed site census is counted as run and failed, and the report still validates.
    let (code, failed) = report("ext-census-exit");
    assert_eq!(code, 1);
    let errors: Vec<String> = validator.iter_errors(&failed).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(failed["stats"], serde_json::json!({"calls": 1, "ran": 1, "failed": 1, "cached": 0, "remembered": 0}));
    assert!(ok["stats"].get("failed").is_none(), "no `failed` when none did: {}", ok["stats"]);
    // A report that breaks the schema is caught (the test can fail).
    let mut broken = bad.clone();
    broken["claims"][0]["status"] = serde_json::json!("maybe");
    assert!(!validator.is_valid(&broken));
}
