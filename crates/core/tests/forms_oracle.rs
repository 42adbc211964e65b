//! The stated forms against an independent oracle (issue 14).
//!
//! Each case generates a computed value and a stated text for one form, and judges it
//! twice: by the checker (`check::forms::parse_stated` then `check`), and by the oracle
//! below, written plainly over `num-rational` big rationals from the guide's "Stated
//! forms" table. The oracle shares no code with the checker: it never parses the text (it
//! knows what it wrote), has its own number words, its own rounding and its own
//! closest-fraction search (by trying every denominator, which is fine for the small
//! denominators words can name). Values are generated on and around every boundary of
//! every rule: exact halves for rounding, the 5 % edge and the reciprocal's rounding edge
//! for ratios, 0 and 100 % for shares.
//!
//! The checker's arithmetic is big rationals throughout, so no value can overflow it; the
//! values here reach 10¹⁸ and beyond to make sure.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use serde_json::{json, Value};

use countersign_core::check::forms::{self, Computed, Verdict};

/// What the oracle says: the stated text agrees, disagrees, or cannot describe the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Oracle {
    Pass,
    Fail,
    Shape,
}

type R = BigRational;

fn r(n: i128, d: i128) -> R {
    R::new(BigInt::from(n), BigInt::from(d))
}

fn int(n: i128) -> R {
    R::from_integer(BigInt::from(n))
}

/// Round half to even, written out: floor, then compare twice the rest with one.
fn round_half_even(x: &R) -> BigInt {
    let floor = x.floor().to_integer();
    let rest = x - R::from_integer(floor.clone());
    let twice = rest * int(2);
    if twice < R::one() {
        floor
    } else if twice > R::one() {
        floor + 1
    } else if &floor % 2 == BigInt::zero() {
        floor
    } else {
        floor + 1
    }
}

fn strictly_inside(v: &R) -> bool {
    v > &R::zero() && v < &R::one()
}

fn verdict(b: bool) -> Oracle {
    if b {
        Oracle::Pass
    } else {
        Oracle::Fail
    }
}

/// Guide: decimal — the value rounds (half to even) to the k digits written, and a value
/// strictly between 0 and 1 is never written as 0 or 1.
fn oracle_decimal(v: &R, digits: &BigInt, k: u32, whole: i128) -> Oracle {
    let scale = R::from_integer(num_traits::pow(BigInt::from(10), k as usize));
    let rounded = round_half_even(&(v * int(whole) * &scale));
    let all = num_traits::pow(BigInt::from(10), k as usize) * whole;
    let extreme = strictly_inside(v) && (digits.is_zero() || *digits == all);
    verdict(&rounded == digits && !extreme)
}

/// Guide: one in N — 1/value rounded at N's precision (its last non-zero digit, at least
/// two significant figures) is N, and 1/N is within 5 % of the value.
fn oracle_one_in(v: &R, n: i128) -> Oracle {
    if !v.is_positive() {
        return Oracle::Fail;
    }
    let s = n.to_string();
    let zeros = s.len() - s.trim_end_matches('0').len();
    let unit = 10i128.pow(zeros.min(s.len().saturating_sub(2)) as u32);
    let reciprocal = v.recip();
    let read = round_half_even(&(reciprocal / int(unit))) * unit;
    let stated = r(1, n);
    let near = (v - &stated).abs() * int(20) <= stated;
    let extreme = strictly_inside(v) && n == 1;
    verdict(read == BigInt::from(n) && near && !extreme)
}

/// Guide: ratio words p/q — no fraction with denominator ≤ q is strictly closer to the
/// value, p/q is within 5 % of it, and a value strictly between 0 and 1 is not 0 or 1.
fn oracle_ratio(v: &R, p: i128, q: i128) -> Oracle {
    let stated = r(p, q);
    if v.is_negative() || (strictly_inside(v) && (p == 0 || p == q)) {
        return Oracle::Fail;
    }
    let gap = (v - &stated).abs();
    if gap.clone() * int(20) > stated {
        return Oracle::Fail;
    }
    for d in 1..=q {
        let around = (v * int(d)).floor().to_integer();
        for num in [around.clone() - 1, around.clone(), around + 1] {
            if (v - R::new(num, BigInt::from(d))).abs() < gap {
                return Oracle::Fail;
            }
        }
    }
    Oracle::Pass
}

const ONES: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 10] = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];

/// 0..=99 in words.
fn word(n: i128) -> String {
    let n = n as usize;
    match n {
        0..=19 => ONES[n].to_string(),
        _ if n.is_multiple_of(10) => TENS[n / 10].to_string(),
        _ => format!("{}-{}", TENS[n / 10], ONES[n % 10]),
    }
}

/// The ordinal words the guide lists, singular and plural.
fn ordinal(q: i128) -> Option<(&'static str, &'static str)> {
    Some(match q {
        2 => ("half", "halves"),
        3 => ("third", "thirds"),
        4 => ("quarter", "quarters"),
        5 => ("fifth", "fifths"),
        6 => ("sixth", "sixths"),
        7 => ("seventh", "sevenths"),
        8 => ("eighth", "eighths"),
        9 => ("ninth", "ninths"),
        10 => ("tenth", "tenths"),
        11 => ("eleventh", "elevenths"),
        12 => ("twelfth", "twelfths"),
        20 => ("twentieth", "twentieths"),
        100 => ("hundredth", "hundredths"),
        _ => return None,
    })
}

/// `n` with commas between groups of three.
fn commas(n: i128) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `m / 10^k` written with exactly k decimals.
fn decimal_text(m: &BigInt, k: u32) -> String {
    let s = format!("{:0>w$}", m.magnitude().to_string(), w = k as usize + 1);
    let (a, b) = s.split_at(s.len() - k as usize);
    let body = if k == 0 { a.to_string() } else { format!("{a}.{b}") };
    if m.is_negative() {
        format!("-{body}")
    } else {
        body
    }
}

fn share(num: &BigInt, den: &BigInt) -> Value {
    let as_json = |x: &BigInt| -> Value { serde_json::from_str(&x.to_string()).unwrap() };
    json!({"num": as_json(num), "den": as_json(den)})
}

/// A case: the stated text, the computed value, the oracle's verdict.
type Case = (String, Value, Oracle);

/// A share near `target` (as `m / 10^k` on a scale of `whole`): offsets of sixteenths of
/// the last digit, so exact halves and both sides of them occur.
fn near_decimal(whole: i128) -> impl Strategy<Value = Case> {
    (0u32..4, 0i128..1200, -20i128..=20, prop::bool::ANY).prop_filter_map("a share", move |(k, m, j, pct_extreme)| {
        let scale = 10i128.pow(k);
        // Bias towards the extremes: m = 0 or all of it, with values just inside.
        let m = if pct_extreme { [0, whole * scale][(m % 2) as usize] } else { m.min(whole * scale) };
        let num = 16 * m + j;
        let den = 16 * scale * whole;
        if num < 0 {
            return None;
        }
        let v = r(num, den);
        let digits = BigInt::from(m);
        let text = decimal_text(&digits, k);
        let (text, expect) = if whole == 1 {
            if k == 0 {
                // An integer is exact.
                (text, verdict(v == R::from_integer(digits.clone())))
            } else {
                (text, oracle_decimal(&v, &digits, k, 1))
            }
        } else {
            (format!("{text} per cent"), oracle_decimal(&v, &digits, k, 100))
        };
        Some((text, share(&BigInt::from(num), &BigInt::from(den)), expect))
    })
}

fn one_in() -> impl Strategy<Value = Case> {
    let n = prop_oneof![1i128..30, Just(100), Just(250), Just(1000), Just(1200), Just(100_000_000), Just(999_999_999_999_999_999)];
    (n, -24i128..=24, prop::bool::ANY).prop_map(|(n, j, words)| {
        // 1/value = N + j/16 of N's reading unit, or N·(1 + j/400) near the 5 % edge.
        let s = n.to_string();
        let zeros = s.len() - s.trim_end_matches('0').len();
        let unit = 10i128.pow(zeros.min(s.len().saturating_sub(2)) as u32);
        let y = match j {
            // Exactly 5 % off, on either side.
            23 => r(20 * n, 21),
            -23 => r(20 * n, 19),
            _ if j % 2 == 0 && 16 * n + j * unit != 0 => r(16 * n + j * unit, 16),
            _ => r(n * (400 + j * 2), 400),
        };
        // A census share is two u64 counts: near 10¹⁸, keep to sixteenths of the unit.
        let fits = |x: &R| u64::try_from(x.numer()).is_ok() && u64::try_from(x.denom()).is_ok();
        let v = [y.recip(), r(16, 16 * n + (j / 2) * unit), r(1, n)].into_iter().find(|v| fits(v) || v.is_negative()).unwrap();
        let text = if words && n < 100 { format!("one in {}", word(n)) } else { format!("one in {}", commas(n)) };
        let expect = oracle_one_in(&v, n);
        (text, share(v.numer(), v.denom()), expect)
    })
}

fn ratio_words() -> impl Strategy<Value = Case> {
    let q = prop_oneof![2i128..=12, Just(20), Just(100)];
    (q, 0i128..=100, -40i128..=40, 1i128..500, prop::bool::ANY).prop_map(|(q, p, j, den, style)| {
        let p = p.min(q);
        // Near p/q (±j/800 relative), or any share with a small denominator.
        let v = if den % 3 == 0 { R::new(BigInt::from(j.abs() * 7 % den), BigInt::from(den)) } else { r(p * (800 + j), q * 800) };
        let (one, many) = ordinal(q).unwrap();
        let text = if style && p <= 99 && q <= 100 {
            match p {
                1 if q == 2 => "half".to_string(),
                1 => format!("a {one}"),
                _ => format!("{} {many}", word(p)),
            }
        } else {
            format!("{} in {}", word(p.min(99)), word(q.min(99)))
        };
        // "p in q" with p = 1 reads the reciprocal; every other ratio the closest fraction.
        let (p, q) = if text.contains(" in ") { (p.min(99), q.min(99)) } else { (p, q) };
        let expect = if text.starts_with("one in ") { oracle_one_in(&v, q) } else { oracle_ratio(&v, p, q) };
        (text, share(v.numer(), v.denom()), expect)
    })
}

/// N of M against a share, a list and a range; A to B against a range, a share and a list.
fn pairs() -> impl Strategy<Value = Case> {
    (0i128..2000, 1i128..2000, -1i128..=1, -1i128..=1, 0u8..3, prop::bool::ANY).prop_map(|(a, b, da, db, shape, of)| {
        let (sa, sb) = (a + da, b + db);
        let text = if of { format!("{} of {}", commas(sa), commas(sb)) } else { format!("{} to {}", commas(sa), commas(sb)) };
        let value = match shape {
            0 => json!({"num": a, "den": b}),
            1 => json!({"min": a, "max": b}),
            _ => json!([a, b]),
        };
        let expect = match (of, shape) {
            (true, 0) | (false, 1) => verdict(sa == a && sb == b),
            _ => Oracle::Shape,
        };
        (text, value, expect)
    })
}

/// Guide: fraction — `a/b` is the number a/b: against a share, equal in value (the share's
/// counts need not be a and b); against a float, the float is the double nearest a/b (for
/// counts below 2⁵³ that is the division of two exact doubles, which IEEE 754 rounds
/// correctly); against a list, no number.
fn fractions() -> impl Strategy<Value = Case> {
    (-50i128..3000, 1i128..3000, 1i128..4, -1i128..=1, -1i128..=1, 0u8..3, prop::bool::ANY).prop_map(|(n, d, k, dn, dd, shape, minus)| {
        let (a, b) = (k * n + dn, (k * d + dd).max(1));
        let sign = if a < 0 && minus {
            "−"
        } else if a < 0 {
            "-"
        } else {
            ""
        };
        let text = format!("{sign}{}/{}", a.abs(), b);
        let (value, expect) = match shape {
            0 if n >= 0 => (json!({"num": n, "den": d}), verdict(a * d == n * b)),
            0 | 1 => (json!(n as f64 / d as f64), verdict((a as f64) / (b as f64) == n as f64 / d as f64)),
            _ => (json!([n, d]), Oracle::Shape),
        };
        (text, value, expect)
    })
}

fn integers() -> impl Strategy<Value = Case> {
    prop_oneof![-5i128..2000, Just(999_999_999_999_999_999i128), Just(u64::MAX as i128)].prop_flat_map(|n| {
        (Just(n), -1i128..=1, prop::bool::ANY).prop_map(|(n, d, grouped)| {
            let text = if grouped { commas(n + d) } else { (n + d).to_string() };
            let value: Value = serde_json::from_str(&n.to_string()).unwrap();
            (text, value, verdict(d == 0))
        })
    })
}

fn judged(text: &str, value: &Value) -> Oracle {
    let c = Computed::from_json(value);
    let Some(form) = forms::parse_stated(text, matches!(c, Computed::List(_))) else { panic!("the checker cannot read `{text}`") };
    match forms::check(&form, &c) {
        Verdict::Pass => Oracle::Pass,
        Verdict::Disagrees => Oracle::Fail,
        Verdict::WrongShape(_) => Oracle::Shape,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn every_form_agrees_with_the_oracle(case in prop_oneof![near_decimal(1), near_decimal(100), one_in(), ratio_words(), pairs(), integers(), fractions()]) {
        let (text, value, expect) = case;
        prop_assert_eq!(judged(&text, &value), expect, "`{}` against {}", text, value);
        // What --bless writes for a disagreeing value passes.
        let c = Computed::from_json(&value);
        let form = forms::parse_stated(&text, false).unwrap();
        if let (Oracle::Fail, Ok(fixed)) = (expect, forms::bless(&form, &c)) {
            prop_assert_eq!(judged(&fixed, &value), Oracle::Pass, "`{}` blessed to `{}` against {}", text, fixed, value);
        }
    }
}

/// The examples the guide's table gives, judged by the oracle and the checker alike.
#[test]
fn the_guide_examples() {
    let s = |n: i128, d: i128| json!({"num": n, "den": d});
    let cases = [
        ("one in twelve", s(42, 1000), oracle_one_in(&r(42, 1000), 12), Oracle::Fail),
        ("one in twelve", s(6, 100), oracle_one_in(&r(6, 100), 12), Oracle::Fail),
        ("one in twelve", s(367, 4355), oracle_one_in(&r(367, 4355), 12), Oracle::Pass),
        ("two thirds", s(77, 100), oracle_ratio(&r(77, 100), 2, 3), Oracle::Fail),
        ("a third", s(29, 100), oracle_ratio(&r(29, 100), 1, 3), Oracle::Fail),
        ("a third", s(17, 50), oracle_ratio(&r(17, 50), 1, 3), Oracle::Pass),
        ("100 per cent", s(920, 923), oracle_decimal(&r(920, 923), &BigInt::from(100), 0, 100), Oracle::Fail),
        ("0.0", s(3, 923), oracle_decimal(&r(3, 923), &BigInt::zero(), 1, 1), Oracle::Fail),
    ];
    for (text, value, oracle, expect) in cases {
        assert_eq!(oracle, expect, "the oracle on `{text}`");
        assert_eq!(judged(text, &value), expect, "the checker on `{text}`");
    }
}

/// The guide's table of values that pass and fail (`docs/guide/essays/claims.md`), judged
/// by the checker: the guide
/// states the rules truly.
#[test]
fn the_guide_table_of_values_is_true() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide/essays/claims.md")).unwrap();
    let table = guide.split("Values that pass and fail").nth(1).expect("the guide's claims.md has the table of values");
    let mut rows = 0;
    for line in table.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2) {
        let cells: Vec<&str> = line.split('|').map(|c| c.trim().trim_matches('`')).collect();
        let (form, stated, computed, expect) = (cells[1], cells[2], cells[3], cells[4]);
        let value: Value = if let Some((n, d)) = computed.split_once('/') {
            json!({"num": n.parse::<u64>().unwrap(), "den": d.parse::<u64>().unwrap()})
        } else if let Some(ends) = computed.strip_prefix("range ") {
            let (a, b) = ends.split_once("..").unwrap();
            json!({"min": a.parse::<i64>().unwrap(), "max": b.parse::<i64>().unwrap()})
        } else {
            serde_json::from_str(computed).unwrap_or_else(|e| panic!("{computed}: {e}"))
        };
        let c = Computed::from_json(&value);
        let got = match forms::parse_stated_for(stated, &c) {
            None => "unreadable",
            Some(f) => match forms::check(&f, &c) {
                Verdict::Pass => "pass",
                Verdict::Disagrees => "fail",
                Verdict::WrongShape(_) => "wrong shape",
            },
        };
        assert_eq!(got, expect, "guide: {form} `{stated}` against {computed}");
        rows += 1;
    }
    assert!(rows >= 50, "only {rows} rows read from the guide's table");
}
