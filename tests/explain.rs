//! `countersign explain`: a code's section of the guide, the list of codes, and a usage
//! error with the nearest name for a misspelt one.

use std::process::Command;

fn explain(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("explain").args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

#[test]
fn a_code_is_explained_from_the_guide() {
    let (code, out, err) = explain(&["claim-mismatch"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.starts_with("claim-mismatch: The stated value disagrees with the computed one.\n\n"), "{out}");
    assert!(out.contains("countersign check --bless"), "{out}");
    assert!(!out.contains("### "), "one section only: {out}");
}

#[test]
fn without_a_code_every_code_is_listed() {
    let (code, out, _) = explain(&[]);
    assert_eq!(code, 0);
    for name in ["read-failed", "claim-mismatch", "unbound-id", "markdown-too-deep"] {
        assert!(out.lines().any(|l| l.starts_with(name)), "{name} missing: {out}");
    }
}

#[test]
fn a_misspelt_code_is_a_usage_error_naming_the_nearest() {
    let (code, out, err) = explain(&["claim-mismach"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("`claim-mismach` is not a diagnostic code"), "{err}");
    assert!(err.contains("did you mean `claim-mismatch`?"), "{err}");
}

#[test]
fn an_unknown_code_is_shown_escaped_and_any_case_is_answered() {
    let (code, _, err) = explain(&["CLAIM_MISMATCH"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `claim-mismatch`?"), "{err}");
    let (code, _, err) = explain(&["x\u{1b}[2Jy"]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}') && err.contains("x\\u{1b}[2Jy"), "{err:?}");
}
