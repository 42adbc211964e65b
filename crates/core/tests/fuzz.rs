//! Bounded property-based fuzzing of everything that reads essay text: the essay loader
//! (`content::parse_essay`, on arbitrary text and on mutated valid essays), the claim
//! grammar (`content::claim::parse_claim`), and the stated-value readers
//! (`check::forms::parse_stated`, `check::forms::check` and `bless` against computed
//! values of every shape, `check::words::parse`).
//!
//! Each property asserts that nothing panics and that every span a diagnostic or a claim
//! carries lies inside the text on character boundaries (the renderer slices the source
//! with them). The runs are bounded (`CASES` per property, a few seconds in all under
//! `cargo test --release`) and seeded deterministically by proptest's default runner, so
//! a failure reproduces. Crashes found here become fixture sites under tests/sites/ or
//! unit tests next to the code.

use std::ops::Range;
use std::path::PathBuf;

use countersign_core::check::forms::{self, Computed};
use countersign_core::check::words;
use countersign_core::content::claim::{parse_claim, ClaimKind, Expr};
use countersign_core::content::parse_essay;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

/// Cases per property. Seven properties; 17,500 cases in all.
const CASES: u32 = 2_500;

fn config() -> Config {
    // No failure-persistence files in the source tree; the default seed is fixed per test.
    Config { cases: CASES, failure_persistence: Some(Box::new(FileFailurePersistence::Off)), ..Config::default() }
}

/// A valid essay exercising every construct: front matter, census and figure blocks,
/// claims of every kind, code, math, HTML, a block quote, a list, an escaped `{{`.
const VALID: &str = "---\ntitle: Small semigroups\nanchor: sylver\nrung: 1\ndate: 2026-11-29\nsummary: A test.\n---\n\n\
# Heading {#h}\n\n```census\nid: g4\nrun: sylver.census\nwith: { max_genus: 4 }\n```\n\n\
There are {{ g4.positions = 14 }} positions and {{ g4.paired.positions = nine }} paired;\n\
*{{ g4.move_test.struck_share = 61.3 per cent }}* struck, about {{ g4.move_test.struck_share = three in five }}.\n\
{{ assert g4.lost == 2 and g4.positions >= 3 }} In {{ plain 1954 }}, {{ g4.lost }} and {{ g4.list[0][1..=2] = 1, 2 and 3 }}.\n\n\
> ```figure\n> id: f\n> from: g4.move_test.all_struck\n> plot: grid\n> caption: C\n> alt: A\n> ```\n\n\
- item {{ g4.x = 2 of 5 }}\n- `{{ code }}` and $a {{ b }}$ and <!-- {{ c }} --> and \\{{ lit }}\n\n\
~~~\n{{ fenced }}\n~~~\n\n    {{ indented }}\n\n$$\n{{ display }}\n$$\n\nRange {{ g4.r = 24 to 80 }}, ⟨a|b⟩ — “quote”.\n";

/// Characters that matter to the grammars, plus some multi-byte ones.
const ALPHABET: &[&str] = &[
    "{",
    "}",
    "{{",
    "}}",
    "=",
    "==",
    ".",
    "[",
    "]",
    "..",
    "..=",
    "`",
    "```",
    "~~~",
    "$",
    "$$",
    "\\",
    "<",
    ">",
    "<!--",
    "-->",
    "\n",
    "\n\n",
    "\r\n",
    " ",
    "\t",
    "---",
    ":",
    "-",
    "#",
    "*",
    "&",
    "'",
    "\"",
    ",",
    "%",
    "0",
    "1",
    "9",
    "-1",
    "1.5",
    "99999999999999999999999999999",
    "a",
    "g4",
    "id",
    "run",
    "with",
    "census",
    "figure",
    "assert",
    "plain",
    "and",
    "of",
    "to",
    "in",
    "per cent",
    "a third",
    "fifty-five",
    "hundred",
    "thousand",
    "million",
    "é",
    "—",
    "⟨",
    "😀",
    "\u{feff}",
    "\u{0}",
];

fn tokens(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..max).prop_map(|v| v.concat())
}

/// Arbitrary text: grammar tokens mixed with arbitrary Unicode.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![3 => tokens(8), 1 => any::<String>().prop_map(|s| s.chars().take(8).collect())], 0..max)
        .prop_map(|v| v.concat())
}

fn char_boundary_span(src: &str, r: &Range<usize>) -> Result<(), String> {
    if r.start > r.end || r.end > src.len() || !src.is_char_boundary(r.start) || !src.is_char_boundary(r.end) {
        return Err(format!("span {r:?} is not within the {} bytes of the text on char boundaries", src.len()));
    }
    Ok(())
}

/// Load `source` as an essay; every span must be usable.
fn load_checked(source: &str) -> Result<(), TestCaseError> {
    let (essay, diags) = parse_essay("essays/e.md", PathBuf::from("essays/e.md"), source.to_string());
    for d in &diags {
        char_boundary_span(source, &d.span).map_err(|e| TestCaseError::fail(format!("diagnostic {:?}: {e}", d.message)))?;
    }
    if let Some(e) = essay {
        prop_assert_eq!(&*e.source, source);
        char_boundary_span(source, &e.body).map_err(TestCaseError::fail)?;
        for c in &e.claims {
            char_boundary_span(source, &c.span).map_err(TestCaseError::fail)?;
            let text = &source[c.span.clone()];
            prop_assert!(text.starts_with("{{") && text.ends_with("}}"), "claim span {:?} is {:?}", c.span, text);
            if let ClaimKind::Check { expr_span, stated_span, .. } = &c.kind {
                char_boundary_span(source, expr_span).map_err(TestCaseError::fail)?;
                char_boundary_span(source, stated_span).map_err(TestCaseError::fail)?;
                prop_assert!(c.span.start <= stated_span.start && stated_span.end <= c.span.end);
            }
        }
        for b in e.calls.iter().map(|c| &c.block).chain(e.figures.iter().map(|f| &f.block)) {
            char_boundary_span(source, &b.span).map_err(TestCaseError::fail)?;
        }
        for c in &e.calls {
            char_boundary_span(source, &c.run_span).map_err(TestCaseError::fail)?;
        }
        for f in &e.figures {
            char_boundary_span(source, &f.from_span).map_err(TestCaseError::fail)?;
            char_boundary_span(source, &f.plot_span).map_err(TestCaseError::fail)?;
        }
        for r in &e.excluded {
            prop_assert!(r.start <= r.end && r.end <= source.len(), "excluded {:?}", r);
        }
    }
    Ok(())
}

/// Every span in `e` (each operator's, path's and number's) lies inside the claim.
fn spans_inside(e: &Expr, within: &dyn Fn(&Range<usize>) -> bool) -> Result<(), TestCaseError> {
    let mut bad = None;
    e.walk(&mut |n| {
        let r = countersign_core::check::expr::span_of(n);
        if !within(&r) {
            bad.get_or_insert(r);
        }
    });
    match bad {
        Some(r) => Err(TestCaseError::fail(format!("expression span {r:?} outside the claim"))),
        None => Ok(()),
    }
}

/// Apply edits to `base`: each (position fraction, op, text) inserts, deletes or replaces
/// around a char boundary.
fn mutate(base: &str, edits: &[(f64, u8, String)]) -> String {
    let mut s = base.to_string();
    for (at, op, t) in edits {
        let mut i = ((s.len() as f64) * at) as usize;
        while i > 0 && !s.is_char_boundary(i) {
            i -= 1;
        }
        let mut j = (i + 1 + t.len() % 7).min(s.len());
        while j < s.len() && !s.is_char_boundary(j) {
            j += 1;
        }
        match op % 3 {
            0 => s.insert_str(i, t),
            1 => s.replace_range(i..j, ""),
            _ => s.replace_range(i..j, t),
        }
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn loader_survives_arbitrary_text(body in text(60), front in prop::bool::ANY) {
        let src = if front { format!("---\ntitle: T\n---\n{body}") } else { body };
        load_checked(&src)?;
    }

    #[test]
    fn loader_survives_mutated_essays(edits in prop::collection::vec((0.0f64..1.0, any::<u8>(), tokens(4)), 1..6)) {
        load_checked(&mutate(VALID, &edits))?;
    }

    #[test]
    fn claim_grammar_spans_stay_inside(inner in text(20), base in 0usize..1000) {
        let span = base.saturating_sub(2)..base + inner.len() + 2;
        let within = |r: &Range<usize>| r.start >= base && r.end <= base + inner.len() && r.start <= r.end;
        match parse_claim(&inner, base, span.clone()) {
            Ok(c) => {
                prop_assert_eq!(&c.span, &span);
                match &c.kind {
                    ClaimKind::Check { expr_span, stated_span, stated, expr } => {
                        prop_assert!(within(expr_span) && within(stated_span), "{:?} {:?}", expr_span, stated_span);
                        prop_assert_eq!(&inner[stated_span.start - base..stated_span.end - base], stated.as_str());
                        spans_inside(expr, &within)?;
                    }
                    ClaimKind::Interpolate { expr_span, expr } => {
                        prop_assert!(within(expr_span));
                        spans_inside(expr, &within)?;
                    }
                    ClaimKind::Assert { expr } => spans_inside(expr, &within)?,
                    ClaimKind::Plain { .. } => {}
                }
            }
            Err(e) => prop_assert!(
                (e.span.start >= span.start && e.span.end <= span.end && e.span.start <= e.span.end),
                "error span {:?} outside claim {:?}: {}", e.span, span, e.message
            ),
        }
    }

    #[test]
    fn stated_forms_parse_check_and_bless_without_panic(stated in text(12), want_list in prop::bool::ANY, value in computed()) {
        if let Some(form) = forms::parse_stated(&stated, want_list) {
            let c = Computed::from_json(&value);
            let _ = forms::check(&form, &c);
            let _ = forms::bless(&form, &c);
        }
    }

    #[test]
    fn yaml_reader_refuses_or_reads_with_positions_inside(t in yaml_text()) {
        if let Err(e) = countersign_core::yaml::from_str::<serde_json::Value>(&t) {
            if let Some(l) = e.line {
                prop_assert!(l >= 1 && l <= t.split('\n').count() + 1, "line {} of {} lines: {}", l, t.split('\n').count(), e.message);
            }
        }
    }

    #[test]
    fn number_words_parse_without_panic(t in text(10)) {
        let _ = words::parse(&t);
    }

    #[test]
    fn number_words_round_trip(n in 0u64..1_000_000_000, and in prop::bool::ANY) {
        let w = words::format(n, and).expect("below a billion");
        prop_assert_eq!(words::parse(&w), Some(n), "{}", w);
    }
}

/// YAML-ish text: anchors, aliases, flow and block collections, quotes, comments.
fn yaml_text() -> impl Strategy<Value = String> {
    const Y: &[&str] = &[
        "a: ",
        "b:",
        "&x ",
        "*x",
        "&y [",
        "*y",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "- ",
        "\n",
        "\n  ",
        "'",
        "\"",
        "# c",
        "? ",
        "|",
        ">",
        "!!str ",
        "1",
        "é",
        "---\n",
        "...\n",
        "\t",
        "%YAML 1.2\n",
        "<<: *x\n",
    ];
    prop::collection::vec(prop::sample::select(Y), 0..40).prop_map(|v| v.concat())
}

/// Computed values of every shape a census returns: integers (extremes included), ratios
/// (zero and huge denominators), ranges, lists, booleans, strings, nulls, maps.
fn computed() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    let leaf = prop_oneof![
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|u| json!(u)),
        (0u64..1000).prop_map(|u| json!(u)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        (any::<u64>(), any::<u64>()).prop_map(|(n, d)| json!({"num": n, "den": d})),
        (0u64..50, 0u64..50).prop_map(|(n, d)| json!({"num": n, "den": d})),
        (0i64..100, 0i64..100).prop_map(|(a, b)| json!({"min": a, "max": b})),
        any::<bool>().prop_map(|b| json!(b)),
        Just(json!(null)),
        Just(json!("text")),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| prop::collection::vec(inner, 0..4).prop_map(serde_json::Value::Array))
}
