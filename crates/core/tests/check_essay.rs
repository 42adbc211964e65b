//! `check::check_essay` on one essay whose claims take every way through the checker: for
//! each claim, the report (kind, status, place, path, stated and computed text, the census
//! that certifies it, the value published) and the diagnostic it raises (code, the exact
//! text underlined, message, label and every hint) are what a reader of the essay and of the
//! results works out by hand. The results are written here as JSON, so every verdict is
//! known without running a census.

use std::collections::BTreeMap;
use std::sync::Arc;

use countersign_core::check::{check_essay, Bound, ClaimReport, Status};
use countersign_core::content::{parse_essay, Essay};
use countersign_core::diag::{Code, Diagnostic};
use serde_json::json;

const HEAD: &str =
    "---\ntitle: T\n---\n\n```census\nid: s\nrun: x.census\nwith:\n  n: 5\n```\n\n```census\nid: t\nrun: y.census\nwith:\n  k: 2\n```\n\n";

fn essay(body: &str) -> Essay {
    let (essay, diags) = parse_essay("essays/e.md", "essays/e.md".into(), format!("{HEAD}{body}"));
    assert!(diags.is_empty(), "{diags:?}");
    essay.expect("the essay parses")
}

fn bound() -> BTreeMap<String, Bound> {
    let s = Bound {
        id: "s".into(),
        census: "x.census".into(),
        params: json!({"n": 5}),
        result: Arc::new(json!({
            "a": 55, "big": 1234567, "r": 2.5, "list": [1, 2, 3], "yes": true,
            "share": {"num": 1, "den": 8}, "no": false, "neg": -3, "span": {"min": 2, "max": 9},
        })),
    };
    let t = Bound { id: "t".into(), census: "y.census".into(), params: json!({"k": 2}), result: Arc::new(json!({"b": 5})) };
    let u = Bound {
        id: "u".into(),
        census: "z.census".into(),
        params: json!({}),
        result: Arc::new(
            json!({"name": "x", "nothing": null, "m": {"k": 1}, "span": {"min": 2, "max": 9}, "yes": true, "l": [1, 2], "half": 0.5, "q": 0.3, "pair": [1000, 1], "one": [1001], "hundreds": [100, 1], "triple": [101, 2],
                "mean": 5.063468265867066, "mean_next": 5.063468265867067, "sum3": 0.30000000000000004,
                "dk": {"num": 298, "den": 2001}, "code": "0.07", "label": "P-position", "floats": [0.5, 0.25],
                "rows": [[1, 2]], "flags": [true, false], "shares": [{"num": 1, "den": 2}]}),
        ),
    };
    BTreeMap::from([("s".to_string(), s), ("t".to_string(), t), ("u".to_string(), u)])
}

/// The essay `body` checked: its one report and the diagnostics it raised.
fn one(body: &str) -> (Essay, ClaimReport, Vec<Diagnostic>) {
    let e = essay(body);
    let (mut reports, diags) = check_essay(&e, &bound());
    assert_eq!(reports.len(), 1, "{body}");
    let r = reports.pop().unwrap();
    (e, r, diags)
}

/// The one diagnostic of `body`: its code, the text it underlines, message, label, notes.
fn diagnosed(body: &str) -> (ClaimReport, Code, String, String, String, Vec<String>) {
    let (e, r, mut diags) = one(body);
    assert_eq!(diags.len(), 1, "{body}: {diags:?}");
    let d = diags.pop().unwrap();
    assert_eq!(d.origin.file(), Some("essays/e.md"));
    assert!(d.is_error());
    let under = e.source[d.span.clone()].to_string();
    let mut notes = d.notes.clone();
    if let Some(f) = d.fix() {
        // The fix as the reader sees it: what it replaces, with what, and whether bless applies it.
        notes.push(format!("fix: `{}` -> `{}` ({:?}): {}", &e.source[f.span.clone()], f.replacement, f.applicability, f.description));
    }
    (r, d.code, under, d.message, d.label, notes)
}

#[test]
fn a_true_claim_passes_with_its_place_text_and_certificate() {
    let (_, r, diags) = one("Here it is: {{ s.a = fifty-five }}.\n");
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(r.status, Status::Pass);
    assert!(r.was_checked());
    assert_eq!((r.kind.as_str(), r.line, r.column), ("check", 19, 13));
    assert_eq!(r.text, "s.a = fifty-five");
    assert_eq!(r.path, "s.a");
    assert_eq!(r.stated.as_deref(), Some("fifty-five"));
    assert_eq!(r.computed.as_deref(), Some("55"));
    assert_eq!(r.value, Some(json!(55)));
    assert_eq!(r.exact.as_deref(), Some("55"));
    assert_eq!(r.html_text, "fifty-five");
    assert_eq!((r.census_id.as_deref(), r.census.as_deref(), r.params.clone()), (Some("s"), Some("x.census"), Some(json!({"n": 5}))));
}

#[test]
fn a_false_claim_fails_at_its_stated_text_with_the_census_and_the_fix() {
    let (r, code, under, message, label, notes) = diagnosed("A line.\n\nIt is {{ s.a = 56 }} here.\n");
    assert_eq!(r.status, Status::Fail);
    assert!(r.was_checked());
    assert_eq!((r.line, r.column), (21, 7));
    assert_eq!(code, Code::ClaimMismatch);
    assert_eq!(under, "56");
    assert_eq!(message, "stated value disagrees with `s.a`: the essay says 56, the census gives 55");
    assert_eq!(label, "disagrees with the census", "the message says 55; the label does not say it again");
    assert_eq!(notes, ["census: s = x.census {\"n\":5}", "fix: `56` -> `55` (Safe): write `55`"]);
    assert_eq!(r.bless, Some(Ok("55".to_string())));
    assert_eq!(r.stated_span.map(|s| s.len()), Some(2));
}

#[test]
fn a_false_list_names_the_computed_list_once_and_where_it_parts() {
    // s.list is [1, 2, 3]: the label names the first item that differs, or the lengths.
    let cases = [
        ("1, 2 and 4", "item 3 ([2]) differs: 4 here, 3 computed", "1, 2 and 3"),
        ("one, five and three", "item 2 ([1]) differs: five here, 2 computed", "one, two and three"),
        ("1 and 2", "2 items here, 3 computed", "1, 2 and 3"),
        ("1, 2, 3 and 4", "4 items here, 3 computed", "1, 2 and 3"),
        ("7", "1 item here, 3 computed", "1, 2 and 3"),
    ];
    for (stated, want, fix) in cases {
        let (r, code, _, message, label, notes) = diagnosed(&format!("{{{{ s.list = {stated} }}}}\n"));
        assert_eq!(code, Code::ClaimMismatch, "{stated}");
        assert_eq!(message, format!("stated value disagrees with `s.list`: the essay says {stated}, the census gives [1, 2, 3]"));
        assert_eq!(label, want, "{stated}");
        assert_eq!(notes.len(), 2, "{stated}: the census and the fix, no hint repeating the list: {notes:?}");
        assert_eq!(r.bless, Some(Ok(fix.to_string())), "{stated}");
    }
    // A list of lists stated as one list: the lengths (1 computed), and why --bless cannot write it.
    let (_, _, _, _, label, notes) = diagnosed("{{ u.rows = 1 and 2 }}\n");
    assert_eq!(label, "2 items here, 1 computed");
    assert_eq!(
        notes.last().map(String::as_str),
        Some("hint: --bless cannot rewrite this form: the list holds something other than numbers")
    );
}

#[test]
fn an_expression_over_two_calls_names_both_in_its_note() {
    let (r, code, _, message, _, notes) = diagnosed("{{ s.a + t.b + s.a = 100 }}\n");
    assert_eq!(code, Code::ClaimMismatch);
    assert_eq!(r.path, "s.a + t.b + s.a");
    assert_eq!(message, "stated value disagrees with `s.a + t.b + s.a`: the essay says 100, the census gives 115");
    assert_eq!(notes[0], "census: s = x.census {\"n\":5}; t = y.census {\"k\":2}");
    assert_eq!(r.census_id.as_deref(), Some("s"), "the first id read certifies it");
    let (_, r, _) = one("{{ t.b + s.a = 60 }}\n");
    assert_eq!((r.status, r.census_id.as_deref(), r.census.as_deref()), (Status::Pass, Some("t"), Some("y.census")));
}

#[test]
fn interpolations_print_integers_grouped_and_are_not_counted_as_checked() {
    let (_, r, diags) = one("{{ s.big }}\n");
    assert!(diags.is_empty());
    assert_eq!((r.kind.as_str(), r.status.clone()), ("interpolate", Status::Interpolated));
    assert!(!r.was_checked());
    assert_eq!(r.html_text, "1,234,567");
    assert_eq!(r.value, Some(json!(1234567)));
    assert!(r.value.as_ref().unwrap().is_i64(), "an integer is published as an integer");
    let (_, r, _) = one("{{ s.r }}\n");
    assert_eq!(r.html_text, "2.5", "a float prints as the census wrote it");
    assert_eq!(r.value, Some(json!(2.5)));
    let (_, r, _) = one("{{ s.share }}\n");
    assert_eq!(r.html_text, "1 of 8 (0.1250, 12.50%)");
    assert_eq!(r.exact.as_deref(), Some("1 of 8"));
}

#[test]
fn asserts_pass_fail_and_must_be_true_or_false() {
    let (_, r, diags) = one("{{ assert s.a == 55 }}\n");
    assert!(diags.is_empty());
    assert_eq!((r.kind.as_str(), r.status.clone(), r.path.as_str()), ("assert", Status::Pass, "s.a == 55"));
    assert!(r.was_checked());
    assert_eq!(r.value, Some(json!(true)));
    assert_eq!(r.census_id.as_deref(), Some("s"));

    let (r, code, under, message, label, notes) = diagnosed("{{ assert s.a > 60 }}\n");
    assert_eq!((r.status.clone(), code), (Status::Fail, Code::AssertFailed));
    assert!(r.was_checked());
    assert_eq!(under, "{{ assert s.a > 60 }}");
    assert_eq!(message, "assertion failed: s.a > 60");
    assert_eq!(label, "55 > 60 is false");
    assert_eq!(notes, ["hint: the computation no longer supports this assert: correct the sentence it stands for"]);

    let (_, _, _) = one("{{ assert s.yes }}\n");
    let (r, code, under, message, _, _) = diagnosed("{{ assert s.a }}\n");
    assert_eq!((r.status.clone(), code), (Status::Error, Code::TypeMismatch));
    assert!(!r.was_checked());
    assert_eq!(under, "s.a");
    assert_eq!(message, "an assert must be true or false, not 55");
}

#[test]
fn an_unbound_id_is_underlined_alone_and_named_against_the_bound_ones() {
    let (r, code, under, message, label, notes) = diagnosed("{{ zeta.a = 3 }}\n");
    assert_eq!((r.status.clone(), code), (Status::Error, Code::UnboundId));
    assert!(!r.was_checked());
    assert_eq!(under, "zeta");
    assert_eq!(message, "no census result is bound to `zeta`");
    assert_eq!(label, "unknown id");
    assert_eq!(notes, ["hint: census ids bound in this essay: s, t"]);
    let (e, _) = parse_essay("essays/e.md", "essays/e.md".into(), "---\ntitle: T\n---\n{{ s.a = 1 }}\n".into());
    let (_, diags) = check_essay(&e.unwrap(), &BTreeMap::new());
    assert_eq!(diags[0].notes, ["hint: this essay has no ```census block; add one with `id:`, `run:` and `with:`"]);
}

#[test]
fn a_path_not_in_the_result_says_what_is_there() {
    let (_, code, under, message, label, notes) = diagnosed("{{ s.zz = 3 }}\n");
    assert_eq!(code, Code::PathNotInResult);
    assert_eq!(under, "s.zz");
    assert_eq!(message, "`s.zz` is not in the result of `s` (x.census)");
    assert_eq!(label, "no key `zz`");
    assert_eq!(notes, ["hint: available keys: a, big, r, list, yes, share, no, neg, span"]);
}

#[test]
fn an_unreadable_stated_value_says_why() {
    let hint = "hint: the census gives 55; state it as digits (1,001), words (fifty-five), a decimal or percentage, a fraction (1/8), `N of M`, `A to B`, a list, or a ratio (a third, two in five)";
    let long = "1".repeat(41);
    let grouped = format!("1,{}", "234,".repeat(13) + "567"); // 43 digits, no run over 3
    let spaced = "12 345 678 901 234 567 890 123 456 789 012 345 678 9"; // 40 + digits, spaced
    let long_then_word = format!("{long} x"); // a run of 41 digits, and a space
    let forty_then_word = format!("{} x", "1".repeat(40));
    let forty_spread = format!("{}x{}", "1".repeat(20), "1".repeat(20)); // 40 digits, no space
    let forty_one_spread = format!("{}x{}", "1".repeat(20), "1".repeat(21));
    let cases = [
        ("banana", "unreadable stated value"),
        (long.as_str(), "a number of more than 40 digits is refused, never cut short"),
        (grouped.as_str(), "a number of more than 40 digits is refused, never cut short"),
        (spaced, "unreadable stated value"),
        (long_then_word.as_str(), "a number of more than 40 digits is refused, never cut short"),
        (forty_then_word.as_str(), "unreadable stated value"),
        (forty_spread.as_str(), "unreadable stated value"),
        (forty_one_spread.as_str(), "a number of more than 40 digits is refused, never cut short"),
        ("55.", "a trailing point states no precision: write `55` or `55.0`"),
        ("1,001.", "a trailing point states no precision: write `1,001` or `1,001.0`"),
        ("fifty.", "unreadable stated value"),
        ("5x.", "unreadable stated value"),
    ];
    for (stated, want) in cases {
        let (r, code, under, message, label, notes) = diagnosed(&format!("{{{{ s.a = {stated} }}}}\n"));
        assert_eq!((r.status.clone(), code), (Status::Error, Code::UnreadableStated), "{stated}");
        assert_eq!(under, stated);
        assert_eq!(message, format!("cannot read `{stated}` as a number"));
        assert_eq!(label, want, "{stated}");
        assert_eq!(notes, [hint]);
    }
}

#[test]
fn a_form_that_cannot_fit_the_value_is_incomparable() {
    let (r, code, under, message, label, _) = diagnosed("{{ s.a = 1 to 2 }}\n");
    assert_eq!((r.status, code), (Status::Error, Code::Incomparable));
    assert_eq!(under, "1 to 2");
    assert_eq!(message, "`1 to 2` cannot be compared with `s.a`");
    assert_eq!(label, "computed: 55");
}

#[test]
fn plain_claims_and_many_claims_keep_their_order_and_places() {
    let e = essay("{{ plain seven }} and {{ s.a = 55 }}\nthen é {{ s.a = 54 }} and {{ t.b }}\n");
    let (reports, diags) = check_essay(&e, &bound());
    let seen: Vec<(&str, Status, usize, usize)> = reports.iter().map(|r| (r.kind.as_str(), r.status.clone(), r.line, r.column)).collect();
    assert_eq!(
        seen,
        [
            ("plain", Status::Plain, 19, 1),
            ("check", Status::Pass, 19, 23),
            ("check", Status::Fail, 20, 8),
            ("interpolate", Status::Interpolated, 20, 27)
        ]
    );
    assert_eq!(reports[0].html_text, "seven");
    assert_eq!(reports[0].text, "plain seven");
    assert!(!reports[0].was_checked());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, Code::ClaimMismatch);
}

/// How a claim came out: passed, failed, or refused with this code.
#[derive(Debug, PartialEq)]
enum Outcome {
    Pass,
    Fail,
    Refused(Code),
}

/// `{{ path = stated }}` checked against the results of [`bound`].
fn outcome(path: &str, stated: &str) -> Outcome {
    let (_, r, diags) = one(&format!("{{{{ {path} = {stated} }}}}\n"));
    match (r.status, diags.first()) {
        (Status::Pass, None) => Outcome::Pass,
        (Status::Fail, Some(d)) if d.code == Code::ClaimMismatch => Outcome::Fail,
        (Status::Error, Some(d)) => Outcome::Refused(d.code),
        (status, d) => panic!("{path} = {stated}: {status:?} with {d:?}"),
    }
}

#[test]
fn each_form_passes_what_it_states_and_fails_what_it_does_not() {
    use Outcome::*;
    let cases = [
        ("s.yes", "true", Pass),
        ("s.yes", "false", Fail),
        ("s.no", "false", Pass),
        ("s.no", "true", Fail),
        ("s.a", "true", Refused(Code::Incomparable)),
        ("s.list", "1, 2 and 3", Pass),
        ("s.list", "1, 2", Fail),
        ("s.list", "1, 2, 3 and 4", Fail),
        ("s.list", "1, 2 and 4", Fail),
        ("s.list", "1, 2, and 3", Pass),
        ("s.list", "one, two and three", Pass),
        ("u.pair", "a thousand and one", Fail),
        ("u.pair", "a thousand, and one", Pass),
        ("u.pair", "1,000 and 1", Pass),
        ("u.one", "a thousand and one", Pass),
        ("u.one", "1,001", Pass),
        ("u.one", "and 1,001", Refused(Code::UnreadableStated)),
        ("u.hundreds", "one hundred and one", Fail),
        ("u.hundreds", "one hundred and one and one", Fail),
        ("u.triple", "one hundred and one and two", Pass),
        ("s.a", "1, 2", Refused(Code::Incomparable)),
        ("s.share", "1 of 8", Pass),
        ("s.share", "one out of eight", Pass),
        ("s.share", "1 of 9", Fail),
        ("s.share", "2.5 of 8", Refused(Code::UnreadableStated)),
        ("s.share", "1 of 8.0", Refused(Code::UnreadableStated)),
        ("s.share", "12.5%", Pass),
        ("s.share", "an eighth", Pass),
        ("s.share", "a seventh", Fail),
        ("s.r", "2.5", Pass),
        ("s.r", "2.50", Pass),
        ("s.r", "2.4", Fail),
        ("s.r", "5/2", Pass),
        ("s.neg", "−3", Pass),
        ("s.neg", "-3", Pass),
        ("s.neg", "3", Fail),
        ("s.span", "2 to 9", Pass),
        ("s.span", "2 to 8", Fail),
        ("s.span", "2", Refused(Code::Incomparable)),
        ("s.a", "2 to 9", Refused(Code::Incomparable)),
    ];
    for (path, stated, want) in cases {
        assert_eq!(outcome(path, stated), want, "{{{{ {path} = {stated} }}}}");
    }
}

#[test]
fn blessing_keeps_the_stated_form() {
    let blessed = |path: &str, stated: &str| one(&format!("{{{{ {path} = {stated} }}}}\n")).1.bless;
    assert_eq!(blessed("s.yes", "false"), Some(Ok("true".to_string())));
    assert_eq!(blessed("s.list", "1, 2"), Some(Ok("1, 2 and 3".to_string())));
    // [100, 1] in words would read back as 101: blessing refuses rather than write it.
    let refused = blessed("u.hundreds", "two hundred and three").unwrap().unwrap_err();
    assert!(refused.contains("would read as one number"), "{refused}");
    assert_eq!(blessed("u.hundreds", "200 and 3"), Some(Ok("100 and 1".to_string())));
    assert_eq!(blessed("s.share", "2 of 8"), Some(Ok("1 of 8".to_string())));
    assert_eq!(blessed("s.a", "fifty-four"), Some(Ok("fifty-five".to_string())));
    assert_eq!(blessed("s.yes", "true"), None, "a passing claim has nothing to bless");
}

#[test]
fn a_decimal_is_digits_a_point_and_digits_and_at_most_forty_digits() {
    use countersign_core::check::num::parse_decimal;
    use countersign_core::check::rational::Q;
    let q = |n: i64, d: i64| Q::new(n, d).unwrap();
    assert_eq!(parse_decimal("1.5"), Some(q(3, 2)));
    assert_eq!(parse_decimal("-0.25"), Some(q(-1, 4)));
    assert_eq!(parse_decimal("−0.25"), Some(q(-1, 4)));
    assert_eq!(parse_decimal("12"), Some(q(12, 1)));
    for bad in [".5", "x.5", "1.x", "1.", "1.5.2", "", "-", "1e5", " 1", "1._5", "1_0.5", "1.+5"] {
        assert_eq!(parse_decimal(bad), None, "{bad:?}");
    }
    let forty = "1".repeat(40);
    assert!(parse_decimal(&forty).is_some());
    assert!(parse_decimal(&format!("{}.1", "1".repeat(39))).is_some());
    assert_eq!(parse_decimal(&format!("{forty}.1")), None, "41 digits");
    assert_eq!(parse_decimal(&format!("1{forty}")), None, "41 digits");
}

#[test]
fn a_value_of_the_wrong_type_is_named_by_its_type() {
    let cases = [
        ("{{ assert len(u.m) == 1 }}", None),
        ("{{ assert len(u.name) == 1 }}", Some("`len` needs a list or a map, not a string")),
        ("{{ assert len(u.nothing) == 1 }}", Some("`len` needs a list or a map, not null")),
        ("{{ assert len(u.span) == 1 }}", Some("`len` needs a list or a map, not a range {min, max}")),
        ("{{ assert len(u.yes) == 1 }}", Some("`len` needs a list or a map, not true/false")),
        ("{{ assert len(s.a) == 1 }}", Some("`len` needs a list or a map, not a number")),
        ("{{ assert u.l + 1 == 3 }}", Some("`+` needs two numbers: the left side is a list of 2")),
        ("{{ assert 1 + u.m == 3 }}", Some("`+` needs two numbers: the right side is a map of 1 keys")),
        ("{{ assert -u.name == 1 }}", Some("`-` needs a number, not a string")),
        ("{{ assert sum(1, u.name) == 1 }}", Some("`sum` needs numbers, and one of them is a string")),
        ("{{ assert s.a == 55 and u.l }}", Some("`and` needs true or false, not a list of 2 ([1, 2])")),
        ("{{ assert u.l[0..=1] > 1 }}", Some("`u.l[0..2]` is not a number: it is [1, 2]")),
    ];
    for (claim, want) in cases {
        let (_, r, diags) = one(&format!("{claim}\n"));
        match want {
            None => assert_eq!((r.status, diags.len()), (Status::Pass, 0), "{claim}: {diags:?}"),
            Some(message) => {
                assert_eq!(diags.len(), 1, "{claim}: {diags:?}");
                assert_eq!(diags[0].message, message, "{claim}");
                assert!(matches!(diags[0].code, Code::TypeMismatch | Code::NotANumber), "{claim}");
            }
        }
    }
}

#[test]
fn a_form_that_cannot_hold_the_value_names_what_the_path_gives() {
    let cases = [
        ("s.a = 1 of 8", "\"N of M\" states a share {num, den}; this path gives a count: state it in its own form"),
        ("s.r = 1 of 8", "\"N of M\" states a share {num, den}; this path gives a single number: state it in its own form"),
        ("s.span = 1 of 8", "\"N of M\" states a share {num, den}; this path gives a range {min, max}: state it in its own form"),
        ("s.yes = 1 of 8", "\"N of M\" states a share {num, den}; this path gives true/false: state it in its own form"),
        ("u.m = 1 of 8", "\"N of M\" states a share {num, den}; this path gives something that is not a number: state it in its own form"),
        ("s.yes = 1/2", "a fraction states a number; this path gives true/false"),
        ("s.share = 1 to 2", "\"A to B\" states a range {min, max}; this path gives a share {num, den}: state it in its own form, or index an element with [i]"),
        ("s.list = 1 to 2", "\"A to B\" states a range {min, max}; this path gives a list of 3: state it in its own form, or index an element with [i]"),
    ];
    for (claim, hint) in cases {
        let (_, code, _, _, label, notes) = diagnosed(&format!("{{{{ {claim} }}}}\n"));
        assert_eq!(code, Code::Incomparable, "{claim}");
        assert!(label.starts_with("computed: "), "{claim}: {label}");
        assert_eq!(notes, [format!("hint: {hint}")], "{claim}");
    }
}

#[test]
fn the_certificate_shows_each_value_exactly() {
    let exact = |path: &str| one(&format!("{{{{ {path} }}}}\n")).1.exact;
    for (path, want) in [
        ("s.big", "1,234,567"),
        ("s.r", "2.5"),
        ("u.mean", "5.063468265867066"),
        ("u.code", "\"0.07\""),
        ("s.neg", "−3"),
        ("s.share", "1 of 8"),
        ("s.list", "[1, 2, 3]"),
        ("s.span", "2 to 9"),
        ("s.yes", "true"),
    ] {
        assert_eq!(exact(path).as_deref(), Some(want), "{path}");
    }
    let (_, r, _) = one("{{ s.list }}\n");
    assert_eq!(r.computed.as_deref(), Some("[1, 2, 3]"));
    let (_, r, _) = one("{{ s.span }}\n");
    assert_eq!(r.computed.as_deref(), Some("2 to 9"));
}

#[test]
fn ratio_words_read_whole_parts_and_bless_in_the_stated_words() {
    use Outcome::*;
    for (stated, want) in [
        ("three in ten", Pass),
        ("3 in 10", Pass),
        ("three tenths", Pass),
        ("a third", Fail),
        ("1.5 in 5", Refused(Code::UnreadableStated)),
        ("1 in 2.5", Refused(Code::UnreadableStated)),
        ("1 in 0", Refused(Code::UnreadableStated)),
        ("a thirds", Refused(Code::UnreadableStated)),
        ("one thirds", Refused(Code::UnreadableStated)),
        ("two third", Refused(Code::UnreadableStated)),
    ] {
        assert_eq!(outcome("u.q", stated,), want, "{stated}");
    }
    let blessed = |path: &str, stated: &str| one(&format!("{{{{ {path} = {stated} }}}}\n")).1.bless;
    assert_eq!(blessed("u.half", "a third"), Some(Ok("half".to_string())));
    assert_eq!(blessed("u.half", "A third"), Some(Ok("Half".to_string())));
    let refused = blessed("u.q", "a quarter").unwrap().unwrap_err();
    assert!(refused.starts_with("no ratio in words of this kind is within 5 per cent of 3/10"), "{refused}");
    // Below a hundred the denominator follows the numerator's words; from a hundred on it
    // keeps its digits.
    for (stated, want) in [
        ("one in 5", "two in seven"),
        ("One in five", "Two in seven"),
        ("1 in 5", "2 in 7"),
        ("two fifths", "two sevenths"),
        ("one in 100", "thirty in 100"),
        ("one in 99", "two in seven"),
    ] {
        assert_eq!(blessed("u.q", stated), Some(Ok(want.to_string())), "{stated}");
    }
}

#[test]
fn a_computed_value_is_published_as_an_integer_or_an_exact_fraction() {
    let value = |claim: &str| one(&format!("{claim}\n")).1.value;
    assert_eq!(value("{{ s.a + 1 }}"), Some(json!(56)));
    assert_eq!(value("{{ s.r + 1 }}"), Some(json!({"num": 7, "den": 2})));
    assert_eq!(value("{{ s.r * 2 = 5 }}"), Some(json!(5)));
}

#[test]
fn a_fraction_is_a_number_exact_against_a_rational_and_the_nearest_double_against_a_float() {
    use Outcome::*;
    let cases = [
        // Exact values: a share, an exact fraction from arithmetic, an integer.
        ("u.dk", "298/2001", Pass),
        ("u.dk", "596/4002", Pass),
        ("u.dk", "298/2000", Fail),
        ("u.dk", "299/2001", Fail),
        ("s.share", "1/8", Pass),
        ("s.share", "4/32", Pass),
        ("s.share", "1/7", Fail),
        ("s.share", "-1/8", Fail),
        ("s.r + 1", "7/2", Pass),
        ("s.r + 1", "35/10", Pass),
        ("s.r + 1", "7/3", Fail),
        ("s.neg / 6", "−1/2", Pass),
        ("s.neg / 6", "-1/2", Pass),
        ("s.neg / 6", "1/2", Fail),
        ("s.a", "110/2", Pass),
        ("s.a", "55/1", Pass),
        ("s.a", "54/1", Fail),
        ("s.big", "1,234,567/1", Pass),
        // Floats: the double nearest the fraction, not one ulp off, not a decimal rounding.
        ("u.mean", "10132/2001", Pass),
        ("u.mean_next", "10132/2001", Fail),
        ("u.mean", "10133/2001", Fail),
        ("u.half", "1/2", Pass),
        ("u.half", "49/100", Fail),
        ("u.q", "3/10", Pass),
        ("u.sum3", "3/10", Fail),
        // Not fractions.
        ("s.share", "1/0", Refused(Code::UnreadableStated)),
        ("s.share", "1/", Refused(Code::UnreadableStated)),
        ("s.share", "/2", Refused(Code::UnreadableStated)),
        ("s.share", "1 / 8", Refused(Code::UnreadableStated)),
        ("s.share", "1/ 8", Refused(Code::UnreadableStated)),
        ("s.share", "1 /8", Refused(Code::UnreadableStated)),
        ("s.share", "1/-8", Refused(Code::UnreadableStated)),
        ("s.share", "0.5/4", Refused(Code::UnreadableStated)),
        ("s.share", "one/eight", Refused(Code::UnreadableStated)),
        ("s.share", "1/2/4", Refused(Code::UnreadableStated)),
        ("s.share", "01/8", Refused(Code::UnreadableStated)),
        ("s.span", "1/2", Refused(Code::Incomparable)),
        ("s.yes", "1/1", Refused(Code::Incomparable)),
    ];
    for (path, stated, want) in cases {
        assert_eq!(outcome(path, stated), want, "{{{{ {path} = {stated} }}}}");
    }
}

#[test]
fn a_bad_fraction_is_unreadable_at_its_own_text_and_says_why() {
    for (stated, label) in [
        ("1/0", "a fraction's denominator is above zero"),
        ("1/", "a fraction needs a numerator and a denominator: write `1/8`"),
        ("/2", "a fraction needs a numerator and a denominator: write `1/8`"),
        ("1 / 8", "a fraction is two integers in digits, `a/b`, with no space about the `/`"),
    ] {
        let (e, r, diags) = one(&format!("Lost: {{{{ s.share = {stated} }}}}.\n"));
        assert_eq!((r.status, diags.len()), (Status::Error, 1), "{stated}");
        let d = &diags[0];
        assert_eq!(d.code, Code::UnreadableStated, "{stated}");
        assert_eq!(&e.source[d.span.clone()], stated);
        assert_eq!(countersign_core::diag::line_col(&e.source, d.span.start), (19, 20), "{stated}");
        assert_eq!(d.label, label, "{stated}");
    }
}

#[test]
fn blessing_a_fraction_writes_the_value_reduced_with_the_minus_written() {
    let blessed = |path: &str, stated: &str| one(&format!("{{{{ {path} = {stated} }}}}\n")).1.bless;
    assert_eq!(blessed("u.dk", "1/7"), Some(Ok("298/2001".to_string())));
    assert_eq!(blessed("s.share", "2/8"), Some(Ok("1/8".to_string())));
    assert_eq!(blessed("s.neg / 6", "-1/3"), Some(Ok("-1/2".to_string())));
    assert_eq!(blessed("s.neg / 6", "1/3"), Some(Ok("−1/2".to_string())));
    assert_eq!(blessed("s.a", "1/3"), Some(Ok("55/1".to_string())));
    let refused = blessed("u.mean", "5/1").unwrap().unwrap_err();
    assert!(refused.contains("floating-point"), "{refused}");
}

#[test]
fn a_float_reads_as_its_decimal_in_every_other_form() {
    use Outcome::*;
    for (path, stated, want) in [
        ("u.mean", "5.06", Pass),
        ("u.mean", "5.07", Fail),
        ("u.q", "30%", Pass),
        ("u.q", "three in ten", Pass),
        ("u.floats", "0.5 and 0.25", Pass),
        ("u.floats", "0.5 and 0.3", Fail),
        ("u.half", "1 of 2", Refused(Code::Incomparable)),
    ] {
        assert_eq!(outcome(path, stated), want, "{{{{ {path} = {stated} }}}}");
    }
    let (_, r, _) = one("{{ u.mean }}\n");
    assert_eq!((r.html_text.as_str(), r.computed.as_deref()), ("5.063468265867066", Some("5.063468265867066")));
    let blessed = |path: &str, stated: &str| one(&format!("{{{{ {path} = {stated} }}}}\n")).1.bless;
    assert_eq!(blessed("u.floats", "0.5 and 0.3"), Some(Ok("0.5 and 0.2".to_string())), "each element at its stated precision");
    assert_eq!(blessed("u.mean", "5.2"), Some(Ok("5.1".to_string())));
}

#[test]
fn a_text_result_is_claimed_as_its_text_exactly() {
    use Outcome::*;
    for (path, stated, want) in [
        ("u.code", "0.07", Pass),
        ("u.code", "0.070", Fail),
        ("u.code", "7%", Fail),
        ("u.code", "\"0.07\"", Fail),
        ("u.label", "P-position", Pass),
        ("u.label", "p-position", Fail),
        ("u.label", "N-position", Fail),
        ("u.name", "x", Pass),
        ("u.name", "1 of 8", Fail),
    ] {
        assert_eq!(outcome(path, stated), want, "{{{{ {path} = {stated} }}}}");
    }
    let (r, code, under, message, label, notes) = diagnosed("{{ u.code = 0.08 }}\n");
    assert_eq!((r.status, code, under.as_str()), (Status::Fail, Code::ClaimMismatch, "0.08"));
    assert_eq!(message, "stated value disagrees with `u.code`: the essay says 0.08, the census gives \"0.07\"");
    assert_eq!(label, "disagrees with the census");
    assert_eq!(notes.last().map(String::as_str), Some("fix: `0.08` -> `0.07` (Safe): write `0.07`"));
    assert_eq!(r.bless, Some(Ok("0.07".to_string())));
    // A number stated for text, and text for a number.
    assert_eq!(outcome("s.a", "P-position"), Refused(Code::UnreadableStated));
}

#[test]
fn membership_looks_for_a_number_in_a_list() {
    let cases = [
        ("{{ assert 2 in s.list }}", Status::Pass),
        ("{{ assert 4 in s.list }}", Status::Fail),
        ("{{ assert 4 not in s.list }}", Status::Pass),
        ("{{ assert 3 not in s.list }}", Status::Fail),
        ("{{ assert s.a - 53 in s.list and 6 not in s.list }}", Status::Pass),
        ("{{ assert not 2 in s.list }}", Status::Fail),
        ("{{ assert 1 in s.list[1..3] }}", Status::Fail),
        ("{{ assert len(u.l) in s.list }}", Status::Pass),
        ("{{ assert 0.25 in u.floats }}", Status::Pass),
        ("{{ assert 1/4 in u.floats }}", Status::Pass),
        ("{{ assert 0.3 in u.floats }}", Status::Fail),
        ("{{ assert 1/2 in u.shares }}", Status::Pass),
        ("{{ assert s.yes in u.flags and 1 in u.flags }}", Status::Pass),
        ("{{ assert 2 in u.flags }}", Status::Fail),
        ("{{ assert 1 in s.list[0..0] }}", Status::Fail),
        ("{{ assert 1 not in s.list[0..0] }}", Status::Pass),
    ];
    for (claim, want) in cases {
        let (_, r, diags) = one(&format!("{claim}\n"));
        let failed = diags.iter().map(|d| d.code).collect::<Vec<_>>();
        let want_diags = if want == Status::Fail { vec![Code::AssertFailed] } else { vec![] };
        assert_eq!((r.status, failed), (want, want_diags), "{claim}");
    }
    let (_, r, diags) = one("{{ assert 4 in s.list }}\n");
    assert_eq!(r.computed.as_deref(), Some("4 in [1, 2, 3]"));
    assert_eq!(diags[0].label, "4 in [1, 2, 3] is false");
}

#[test]
fn membership_needs_a_list_of_numbers_on_its_right_and_a_number_on_its_left() {
    let cases = [
        (
            "{{ assert 2 in s.a }}",
            "in",
            "`in` needs a list on its right, not a number",
            "`in` looks in a list: {{ assert 6 not in s.values }}",
        ),
        (
            "{{ assert 2 not in u.m }}",
            "not in",
            "`not in` needs a list on its right, not a map of 1 keys",
            "`in` looks in a list: {{ assert 6 not in s.values }}",
        ),
        (
            "{{ assert 2 in s.span }}",
            "in",
            "`in` needs a list on its right, not a range {min, max}",
            "for a range {min, max}, compare with its ends: s.r.min <= x and x <= s.r.max",
        ),
        (
            "{{ assert 2 in s.share }}",
            "in",
            "`in` needs a list on its right, not a number",
            "`in` looks in a list: {{ assert 6 not in s.values }}",
        ),
        (
            "{{ assert 1 in u.name }}",
            "in",
            "`in` needs a list on its right, not a string",
            "`in` looks in a list: {{ assert 6 not in s.values }}",
        ),
        (
            "{{ assert 1 in u.rows }}",
            "in",
            "`in` compares numbers, and element [0] of the list is a list of 2",
            "look for a number in a list of numbers, or index into the list",
        ),
        (
            "{{ assert u.l in s.list }}",
            "u.l",
            "`u.l` is not a number: it is [1, 2]",
            "an assert compares numbers (true counts as 1, false as 0)",
        ),
    ];
    for (claim, under, message, hint) in cases {
        let (e, r, diags) = one(&format!("{claim}\n"));
        assert_eq!((r.status, diags.len()), (Status::Error, 1), "{claim}: {diags:?}");
        let d = &diags[0];
        assert!(matches!(d.code, Code::TypeMismatch | Code::NotANumber), "{claim}: {:?}", d.code);
        assert_eq!(&e.source[d.span.clone()], under, "{claim}");
        assert_eq!(d.message, message, "{claim}");
        assert_eq!(d.notes, [format!("hint: {hint}")], "{claim}");
    }
    // Both sides are judged: a list on the left and a number on the right, two errors.
    let (_, _, diags) = one("{{ assert u.l in s.a }}\n");
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), [Code::NotANumber, Code::TypeMismatch]);
}

#[test]
fn in_and_not_in_parse_as_comparisons_and_only_as_words() {
    use countersign_core::content::claim::{parse_claim, ClaimKind, Expr, Op};
    let op = |src: &str| match parse_claim(src, 0, 0..src.len()).map(|c| c.kind) {
        Ok(ClaimKind::Assert { expr: Expr::Compare(op, _, _, at) }) => Some((op, src[at].to_string())),
        _ => None,
    };
    assert_eq!(op("assert 6 in s.values"), Some((Op::In, "in".into())));
    assert_eq!(op("assert 6 not in s.values"), Some((Op::NotIn, "not in".into())));
    assert_eq!(op("assert 6 not  in s.values"), Some((Op::NotIn, "not  in".into())));
    assert_eq!(op("assert s.a in(s.values)"), Some((Op::In, "in".into())));
    // A key or an id that begins with the word is a path.
    assert!(parse_claim("assert 6 inside s.values", 0, 0..10).is_err());
    assert!(parse_claim("assert 6 not s.values", 0, 0..10).is_err());
    assert!(parse_claim("assert 6 in", 0, 0..10).is_err());
    assert!(matches!(op("assert in.x == 1"), Some((Op::Eq, _))));
    // A checked claim states a value; membership is for asserts.
    assert!(parse_claim("s.a in s.l = true", 0, 0..10).is_err());
}

#[test]
fn the_certificate_shows_the_value_in_the_stated_form_beside_the_exact_one() {
    let shown = |claim: &str| {
        let (_, r, _) = one(&format!("{claim}\n"));
        (r.exact, r.in_form)
    };
    let s = |x: &str| Some(x.to_string());
    for (claim, exact, in_form) in [
        ("{{ u.dk = one in seven }}", "298 of 2,001", s("≈ 1 in 6.7, ≈ 14.9 %")),
        ("{{ u.dk = One in seven }}", "298 of 2,001", s("≈ 1 in 6.7, ≈ 14.9 %")),
        ("{{ u.dk = one in six }}", "298 of 2,001", s("≈ 1 in 6.7, ≈ 14.9 %")),
        ("{{ u.dk = 1 in 250 }}", "298 of 2,001", s("≈ 1 in 7, ≈ 14.9 %")),
        ("{{ s.share = one in eight }}", "1 of 8", s("= 1 in 8.0, = 12.5 %")),
        ("{{ u.dk = a seventh }}", "298 of 2,001", s("≈ 14.9 %; a seventh is 14.3 %")),
        ("{{ u.dk = Two in thirteen }}", "298 of 2,001", s("≈ 14.9 %; two in thirteen is 15.4 %")),
        ("{{ u.q = three tenths }}", "0.3", s("= 30.0 %; three tenths is 30.0 %")),
        ("{{ u.dk = 14.9 per cent }}", "298 of 2,001", s("≈ 14.89 %")),
        ("{{ u.dk = 15% }}", "298 of 2,001", s("≈ 14.9 %")),
        ("{{ s.share = 12.5% }}", "1 of 8", s("= 12.50 %")),
        ("{{ u.dk = 0.15 }}", "298 of 2,001", s("≈ 0.149")),
        ("{{ u.mean = 5.06 }}", "5.063468265867066", s("≈ 5.063")),
        ("{{ u.q = 0.3 }}", "0.3", s("= 0.30")),
        ("{{ u.dk = 298/2001 }}", "298 of 2,001", s("= 298/2001")),
        ("{{ u.dk = 596/4002 }}", "298 of 2,001", s("= 298/2001")),
        // The exact value is already in the stated form.
        ("{{ s.r + 1 = 7/2 }}", "7/2", None),
        ("{{ u.mean = 10132/2001 }}", "5.063468265867066", None),
        ("{{ u.dk = 298 of 2,001 }}", "298 of 2,001", None),
        ("{{ s.a = fifty-five }}", "55", None),
        ("{{ s.a = 55.0 }}", "55", None),
        ("{{ s.list = 1, 2 and 3 }}", "[1, 2, 3]", None),
        ("{{ s.span = 2 to 9 }}", "2 to 9", None),
        ("{{ s.yes = true }}", "true", None),
        ("{{ u.code = 0.07 }}", "\"0.07\"", None),
        ("{{ s.neg / 6 = one in two }}", "−3 of 6", None),
        ("{{ s.a - 55 = 0 of 1 }}", "0", None),
        ("{{ (s.a - 55) / s.a = 0 of 55 }}", "0 of 55", None),
        ("{{ s.share - 1/8 = one in two }}", "0", None),
    ] {
        assert_eq!(shown(claim), (s(exact), in_form), "{claim}");
    }
    // An interpolation states no form.
    assert_eq!(shown("{{ u.dk }}"), (s("298 of 2,001"), None));
}
