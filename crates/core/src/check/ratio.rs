//! Ratio words: "a third", "two thirds", "half", "two in five", "one in seven".
//!
//! The rule, as the "Stated forms" table of the guide's "Writing claims" (`docs/guide/essays/claims.md`) states it:
//!
//! - **one in N** (`one in seven`, `1 in 250`): 1/value, rounded half to even at the
//!   precision N is written with, is N; and the value is within 5 % of 1/N. N's precision
//!   is its last non-zero digit, but never coarser than two significant figures: "one in
//!   twelve" needs 1/value in [11.5, 12.5], "one in 250" in [245, 255], "one in a hundred"
//!   in [95, 105].
//! - **every other ratio** p/q (`a third`, `two thirds`, `half`, `two in five`): no fraction
//!   with denominator ≤ q is strictly closer to the value than p/q, and p/q is within 5 %
//!   of the value (|value − p/q| ≤ p/q ÷ 20).
//! - **extremes**: a value strictly between 0 and 1 never passes as 0 or 1 ("zero in
//!   five", "two halves", "one in one").
//!
//! Every judgement costs a few big-rational operations, whatever the size of q: the
//! closest-fraction test finds the simplest fraction strictly closer to the value
//! ([`simplest_between`]) instead of trying every denominator up to q.

use num_bigint::BigInt;
use num_traits::One;

use super::num::{capitalise, is_false_extreme, parse_num, write_decimal, write_num, Num, NumStyle};
use super::rational::{simplest_between, ten_to, Q};
use super::words;

/// How a ratio was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RatioStyle {
    /// "a third", "a quarter", "half": one part.
    Unit,
    /// "one third", "two thirds", "three quarters".
    Plural,
    /// "two in five", "1 in 250": how p and q were written.
    In(NumStyle, NumStyle),
}

/// A ratio stated in words: p/q and how it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fraction {
    /// The numerator stated (`0 ≤ p`).
    pub p: BigInt,
    /// The denominator stated (`q ≥ 1`).
    pub q: BigInt,
    /// How it was written.
    pub style: RatioStyle,
    /// The first letter was a capital.
    pub capital: bool,
}

/// The denominator an ordinal word names and whether the word is plural: "third" → (3,
/// false), "quarters" → (4, true), "halves" → (2, true).
fn ordinal(w: &str) -> Option<(u64, bool)> {
    let d = words::parse_ordinal(w)?;
    let plural = words::ordinal(d).is_some_and(|(_, p)| p == w) || w == "fourths";
    Some((d, plural))
}

/// Parse ratio words; `None` when `t` is not one. A number in "p in q" is digits or words,
/// whole and at most [`super::num::MAX_DIGITS`] digits.
pub fn parse(t: &str) -> Option<Fraction> {
    let capital = t.starts_with(|c: char| c.is_uppercase());
    if let Some((a, b)) = t.split_once(" in ") {
        let (p, q) = (parse_num(a)?, parse_num(b)?);
        let whole = |n: &Num| n.is_whole() && !n.value.is_negative();
        if !whole(&p) || !whole(&q) || q.value.is_zero() {
            return None;
        }
        let (pv, qv) = (p.value.numer().clone(), q.value.numer().clone());
        return Some(Fraction { p: pv, q: qv, style: RatioStyle::In(p.style, q.style), capital });
    }
    let lower = t.to_lowercase();
    if lower == "half" {
        return Some(Fraction { p: 1.into(), q: 2.into(), style: RatioStyle::Unit, capital });
    }
    // A number in words, then an ordinal: "a third", "two thirds", "one hundred and one hundredths".
    let (count, ord) = lower.rsplit_once(char::is_whitespace)?;
    let (d, plural) = ordinal(ord)?;
    let (p, style) = match count.trim() {
        "a" | "an" if !plural => (1, RatioStyle::Unit),
        "a" | "an" => return None,
        words_part => {
            let p = words::parse(words_part)?;
            if plural != (p != 1) {
                return None;
            }
            (p, RatioStyle::Plural)
        }
    };
    let q = d;
    Some(Fraction { p: p.into(), q: q.into(), style, capital })
}

/// The unit `n` is read at: 10^(trailing zeros of n), but at least two significant
/// figures ("10" is read to the unit, "100" to the ten, "250" to the ten).
fn reading_unit(n: &BigInt) -> BigInt {
    let digits = n.to_string();
    let zeros = digits.len() - digits.trim_end_matches('0').len();
    ten_to(zeros.min(digits.len().saturating_sub(2)) as u32)
}

/// True when 1/`v` rounds to `n` at the unit `n` is read at.
fn reciprocal_rounds_to(v: &Q, n: &BigInt) -> bool {
    let Some(r) = v.recip() else { return false };
    let unit = reading_unit(n);
    let Some(in_units) = &r / &Q::int(unit.clone()) else { return false };
    in_units.round_half_even() * unit == *n
}

/// True when no fraction with denominator ≤ `q` is strictly closer to `v` than `s`.
fn is_closest(v: &Q, s: &Q, q: &BigInt) -> bool {
    let d = (v - s).abs();
    if d.is_zero() {
        return true;
    }
    simplest_between(&(v - &d), &(v + &d)).denom() > q
}

/// True when the ratio `f` may be stated for the value `v` (see the module docs).
pub fn passes(f: &Fraction, v: &Q) -> bool {
    let Some(s) = Q::new(f.p.clone(), f.q.clone()) else { return false };
    if v.is_negative() || is_false_extreme(&s, v, 1) {
        return false;
    }
    // Within 5 %: |v − s| · 20 ≤ s.
    if (v - &s).abs() * Q::int(20) > s {
        return false;
    }
    match f.style {
        RatioStyle::In(..) if f.p.is_one() => reciprocal_rounds_to(v, &f.q),
        _ => is_closest(v, &s, &f.q),
    }
}

/// The value `v` read in the form of `f`, for a reader's certificate: for "one in N",
/// `≈ 1 in R, P %` with R = 1/`v` one decimal finer than N is read at (to the tenth for
/// "one in seven", the unit for "1 in 250") and P the percentage to the tenth; for any
/// other ratio, `≈ P %` and the percentage the ratio stands for (`a third is 33.3 %`).
/// `=` in place of `≈` when the figure is exact. `None` for a negative value, and for
/// "one in N" against zero (no reciprocal).
pub fn in_form(f: &Fraction, v: &Q) -> Option<String> {
    if v.is_negative() {
        return None;
    }
    let percent = approx(&(v * &Q::int(100)), 1);
    if matches!(f.style, RatioStyle::In(..)) && f.p.is_one() {
        let places = if reading_unit(&f.q).is_one() { 1 } else { 0 };
        let r = v.recip()?;
        return Some(format!("{} 1 in {}, {percent} %", approx_sign(&r, places), write_decimal(&r, places)));
    }
    let s = Q::new(f.p.clone(), f.q.clone())?;
    let words = write(f)?.to_lowercase();
    Some(format!("{percent} %; {words} is {} %", write_decimal(&(&s * &Q::int(100)), 1)))
}

/// `≈` when `v` at `places` decimals is not exactly `v`, else `=`.
pub fn approx_sign(v: &Q, places: u32) -> &'static str {
    if (v * &Q::pow10(places)).is_integer() {
        "="
    } else {
        "≈"
    }
}

/// `v` at `places` decimals (half to even), after its sign: `≈ 14.9` or `= 12.5`.
pub fn approx(v: &Q, places: u32) -> String {
    format!("{} {}", approx_sign(v, places), write_decimal(v, places))
}

/// The text of `f` in its style; `None` when the style cannot say it (no ordinal word for
/// the denominator, a number words cannot hold).
fn write(f: &Fraction) -> Option<String> {
    let small = |n: &BigInt| u64::try_from(n).ok();
    let text = match &f.style {
        RatioStyle::Unit if f.q == BigInt::from(2) => "half".to_string(),
        RatioStyle::Unit => format!("a {}", words::ordinal(small(&f.q)?)?.0),
        RatioStyle::Plural => {
            let (one, many) = words::ordinal(small(&f.q)?)?;
            let p = small(&f.p)?;
            format!("{} {}", words::format(p, true)?, if p == 1 { one } else { many })
        }
        RatioStyle::In(ps, qs) => {
            let num =
                |style: &NumStyle, v: &BigInt| write_num(&Num { value: Q::int(v.clone()), style: style.clone() }, &Q::int(v.clone())).ok();
            // "one in 250" may become "three in five": below a hundred, q follows p's words.
            let qs = match (ps, qs) {
                (NumStyle::Words { and, .. }, NumStyle::Digits { .. }) if f.q < BigInt::from(100) => {
                    NumStyle::Words { capital: false, and: *and }
                }
                _ => qs.clone(),
            };
            format!("{} in {}", num(ps, &f.p)?, num(&qs, &f.q)?)
        }
    };
    Some(capitalise(text, f.capital))
}

/// Wordings of `f`'s style to try for `v`, in order of preference: for "one in N", the
/// rounded reciprocal; then the same denominator; then small denominators, least first.
fn candidates(f: &Fraction, v: &Q) -> Vec<Fraction> {
    let with = |p: BigInt, q: BigInt| Fraction { p, q, style: f.style.clone(), capital: f.capital };
    let mut out = Vec::new();
    if matches!(f.style, RatioStyle::In(..)) && f.p.is_one() {
        if let Some(r) = v.recip() {
            out.push(with(BigInt::one(), r.round_half_even().max(BigInt::one())));
        }
    }
    out.push(with((v * &Q::int(f.q.clone())).round_half_even(), f.q.clone()));
    let dens: Vec<u64> = match f.style {
        RatioStyle::In(..) => (1..=100).collect(),
        _ => (2..=12).chain([20, 100]).collect(),
    };
    for d in dens {
        out.push(with((v * &Q::int(d)).round_half_even(), d.into()));
    }
    out.retain(|c| f.style != RatioStyle::Unit || c.p.is_one());
    out
}

/// The ratio rewritten, in `f`'s style, to a wording the rule accepts for `v`. Errors when
/// no wording of that style is a closest fraction within 5 % of `v`.
pub fn bless(f: &Fraction, v: &Q) -> Result<String, String> {
    if !v.is_negative() {
        if let Some(text) = candidates(f, v).iter().filter(|c| passes(c, v)).find_map(write) {
            return Ok(text);
        }
    }
    Err(format!("no ratio in words of this kind is within 5 per cent of {} and a closest fraction; state a percentage, or `N of M`", v))
}
