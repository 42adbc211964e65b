//! Stated forms: how an essay may write a number, how each is checked against a computed
//! value, and how `--bless` rewrites one while keeping its form.
//!
//! | form | examples | passes when |
//! |---|---|---|
//! | integer | `523`, `1,001`, `−3` | equal |
//! | words | `fifty-five`, `Sixty-six`, `six hundred and sixty` | equal |
//! | decimal | `0.29`, `17.0` | value rounds (half to even) to the digits written |
//! | percentage | `17.0 per cent`, `17%`, `2.5 percent` | value × 100 rounds to the digits written |
//! | N of M | `27,215 of 159,728`, `six out of 923` | a [`Ratio`](crate::census::Ratio) with that numerator and denominator, or a two-element list |
//! | range | `24 to 80` | a `{min, max}` object or a two-element list, equal at both ends |
//! | list | `1, 4, 4, 8 and 10` | a list of equal length, element by element |
//! | ratio words | `a third`, `two thirds`, `two in five`, `one in seven`, `half` | p/q is among the closest fractions to the value with denominator ≤ q |
//! | truth | `true`, `false` | equal |

use super::rational::{closest_fractions, group_with, Q};
use super::words;

/// How an integer was written, so `--bless` can write a new one the same way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumStyle {
    /// Digits, with `sep` between groups of three (`None`: no separator seen).
    Digits {
        /// The group separator written (`,`, a thin space …), if any.
        sep: Option<String>,
        /// The minus sign written (`-` or `−`).
        minus: char,
    },
    /// English words.
    Words {
        /// First letter capitalised.
        capital: bool,
        /// "and" after hundreds (British style).
        and: bool,
    },
    /// A decimal with this many digits after the point.
    Decimal(u32),
}

/// One number as written: its exact value and its style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Num {
    /// The value as written (a decimal "17.0" is 17).
    pub value: Q,
    /// How it was written.
    pub style: NumStyle,
}

/// How a ratio word was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RatioStyle {
    /// "a third", "a quarter", "half": unit fractions only.
    Unit,
    /// "two thirds", "three quarters".
    Plural,
    /// "two in five", "one in seven".
    In,
}

/// A stated value, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// One number.
    Number(Num),
    /// A percentage: the number written before the sign, and the sign as written.
    Percent(Num, String),
    /// "N of M" (`joiner` is " of " or " out of ").
    OfTotal(Num, Num, String),
    /// "A to B".
    Range(Num, Num),
    /// "1, 4, 4, 8 and 10".
    List(Vec<Num>),
    /// "two in five": p, q, the style, and whether the first letter was a capital.
    RatioWords(u64, u64, RatioStyle, bool),
    /// `true` or `false`.
    Truth(bool),
}

/// A computed value, as the checker sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Computed {
    /// A number; for a [`Ratio`](crate::census::Ratio), also its numerator and denominator as returned.
    Number(Q, Option<(i128, i128)>),
    /// A `{min, max}` range.
    Range(Q, Q),
    /// A list.
    List(Vec<Computed>),
    /// A boolean.
    Bool(bool),
    /// Anything else (a string, a map): not checkable against a stated number.
    Other(String),
}

impl Computed {
    /// The checker's view of a JSON value.
    pub fn from_json(v: &serde_json::Value) -> Computed {
        use serde_json::Value as J;
        match v {
            J::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Computed::Number(Q::int(i as i128), None)
                } else if let Some(u) = n.as_u64() {
                    Computed::Number(Q::int(u as i128), None)
                } else {
                    match parse_decimal(&n.to_string()) {
                        Some(q) => Computed::Number(q, None),
                        None => Computed::Other(n.to_string()),
                    }
                }
            }
            J::Bool(b) => Computed::Bool(*b),
            J::Array(a) => Computed::List(a.iter().map(Computed::from_json).collect()),
            J::Object(m) => {
                let int = |k: &str| m.get(k).and_then(|v| v.as_i64().map(|i| i as i128).or(v.as_u64().map(|u| u as i128)));
                if m.len() == 2 {
                    if let (Some(n), Some(d)) = (int("num"), int("den")) {
                        if let Some(q) = Q::new(n, d) {
                            return Computed::Number(q, Some((n, d)));
                        }
                    }
                    if let (Some(a), Some(b)) = (m.get("min"), m.get("max")) {
                        if let (Computed::Number(a, _), Computed::Number(b, _)) = (Computed::from_json(a), Computed::from_json(b)) {
                            return Computed::Range(a, b);
                        }
                    }
                }
                Computed::Other(serde_json::to_string(v).unwrap_or_default())
            }
            J::String(s) => Computed::Other(format!("{s:?}")),
            J::Null => Computed::Other("null".into()),
        }
    }

    /// How the value reads in a diagnostic.
    pub fn display(&self) -> String {
        match self {
            Computed::Number(q, Some((n, d))) => {
                format!("{} of {} ({:.4}, {:.2}%)", group_with(*n, ","), group_with(*d, ","), q.to_f64(), q.to_f64() * 100.0)
            }
            Computed::Number(q, None) => q.to_string(),
            Computed::Range(a, b) => format!("{a} to {b}"),
            Computed::List(l) => format!("[{}]", l.iter().map(|c| c.display()).collect::<Vec<_>>().join(", ")),
            Computed::Bool(b) => b.to_string(),
            Computed::Other(s) => s.clone(),
        }
    }
}

fn parse_decimal(t: &str) -> Option<Q> {
    let (neg, body) = match t.strip_prefix(['-', '−']) {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || int.len() + frac.len() > 30
    {
        return None;
    }
    let digits: i128 = format!("{int}{frac}").parse().ok()?;
    let q = Q::new(digits, 10i128.checked_pow(frac.len() as u32)?)?;
    Some(if neg { Q::new(-q.n, q.d)? } else { q })
}

const SEPARATORS: [&str; 4] = [",", "\u{2009}", "\u{202f}", "\u{a0}"];

/// One number as written: digits with or without group separators, a decimal, or words.
pub fn parse_num(text: &str) -> Option<Num> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let (minus, body) = match t.chars().next() {
        Some(c @ ('-' | '−')) => (c, &t[c.len_utf8()..]),
        _ => ('-', t),
    };
    let negative = body.len() != t.len();
    if body.starts_with(|c: char| c.is_ascii_digit()) {
        // "084" or "0,084" is a slip (or another base), not a way to write 84.
        if body.starts_with('0') && body.len() > 1 && !body[1..].starts_with('.') {
            return None;
        }
        if body.contains('.') {
            let digits = body.split_once('.').map(|(_, f)| f.len()).unwrap_or(0) as u32;
            let value = parse_decimal(t)?;
            return Some(Num { value, style: NumStyle::Decimal(digits) });
        }
        for sep in SEPARATORS {
            if body.contains(sep) {
                let groups: Vec<&str> = body.split(sep).collect();
                let ok = groups[0].len() <= 3
                    && !groups[0].is_empty()
                    && groups[1..].iter().all(|g| g.len() == 3)
                    && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_digit()));
                if !ok {
                    return None;
                }
                let v: i128 = groups.concat().parse().ok()?;
                return Some(Num {
                    value: Q::int(if negative { -v } else { v }),
                    style: NumStyle::Digits { sep: Some(sep.into()), minus },
                });
            }
        }
        if !body.bytes().all(|b| b.is_ascii_digit()) || body.len() > 30 {
            return None;
        }
        let v: i128 = body.parse().ok()?;
        return Some(Num { value: Q::int(if negative { -v } else { v }), style: NumStyle::Digits { sep: None, minus } });
    }
    if negative {
        return None;
    }
    let v = words::parse(t)?;
    Some(Num {
        value: Q::int(v as i128),
        style: NumStyle::Words { capital: t.starts_with(|c: char| c.is_uppercase()), and: t.contains(" and ") },
    })
}

fn parse_ratio_words(t: &str) -> Option<Form> {
    let capital = t.starts_with(|c: char| c.is_uppercase());
    let lower = t.to_lowercase();
    let parts: Vec<&str> = lower.split_whitespace().collect();
    let count = |w: &str| parse_num(w).and_then(|n| if n.value.is_integer() && n.value.n >= 0 { Some(n.value.n as u64) } else { None });
    match parts.as_slice() {
        ["half"] | ["a", "half"] | ["one", "half"] => Some(Form::RatioWords(1, 2, RatioStyle::Unit, capital)),
        ["a" | "an" | "one", ord] => {
            let q = words::parse_ordinal(ord)?;
            Some(Form::RatioWords(1, q, RatioStyle::Unit, capital))
        }
        [p, ord] => {
            let q = words::parse_ordinal(ord)?;
            let p = words::parse(p)?;
            Some(Form::RatioWords(p, q, RatioStyle::Plural, capital))
        }
        [p, "in", q] => {
            let (p, q) = (count(p)?, count(q)?);
            (q > 0).then_some(Form::RatioWords(p, q, RatioStyle::In, capital))
        }
        _ => None,
    }
}

fn parse_list(t: &str) -> Option<Vec<Num>> {
    let mut items = Vec::new();
    let (head, last) = match t.rsplit_once(" and ") {
        Some((h, l)) => (h.trim_end_matches(','), Some(l)),
        None => (t, None),
    };
    for part in head.split(", ") {
        items.push(parse_num(part)?);
    }
    if let Some(l) = last {
        items.push(parse_num(l)?);
    }
    Some(items)
}

/// Parse `text` as a stated value. `want_list`: the path gives a list, so "1, 4 and 10"
/// (and a lone number) are read as lists. `None` when no form fits.
pub fn parse_stated(text: &str, want_list: bool) -> Option<Form> {
    let t = text.trim();
    if want_list {
        if let Some(l) = parse_list(t) {
            return Some(Form::List(l));
        }
    }
    match t {
        "true" => return Some(Form::Truth(true)),
        "false" => return Some(Form::Truth(false)),
        _ => {}
    }
    if let Some(n) = parse_num(t) {
        return Some(Form::Number(n));
    }
    if let Some(f) = parse_ratio_words(t) {
        return Some(f);
    }
    for suffix in ["%", " %", " per cent", " percent"] {
        if let Some(body) = t.strip_suffix(suffix) {
            if let Some(n) = parse_num(body) {
                if !matches!(n.style, NumStyle::Words { .. }) {
                    return Some(Form::Percent(n, suffix.to_string()));
                }
            }
        }
    }
    for joiner in [" out of ", " of "] {
        if let Some((a, b)) = t.split_once(joiner) {
            if let (Some(a), Some(b)) = (parse_num(a), parse_num(b)) {
                return Some(Form::OfTotal(a, b, joiner.to_string()));
            }
        }
    }
    if let Some((a, b)) = t.split_once(" to ") {
        if let (Some(a), Some(b)) = (parse_num(a), parse_num(b)) {
            return Some(Form::Range(a, b));
        }
    }
    parse_list(t).filter(|l| l.len() >= 2).map(Form::List)
}

fn num_matches(n: &Num, v: Q) -> bool {
    match n.style {
        NumStyle::Decimal(k) => v.round_scaled(k).zip(n.value.round_scaled(k)).is_some_and(|(a, b)| a == b),
        _ => n.value == v,
    }
}

/// Why a stated value does not agree with the computed one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// They agree.
    Pass,
    /// Same kind of thing, different value.
    Disagrees,
    /// The form cannot describe this kind of value (a single number for a list, …).
    WrongShape(String),
}

/// Check a parsed stated value against a computed one.
pub fn check(form: &Form, c: &Computed) -> Verdict {
    let ok = |b: bool| if b { Verdict::Pass } else { Verdict::Disagrees };
    match (form, c) {
        (Form::Number(n), Computed::Number(v, _)) => ok(num_matches(n, *v)),
        // A count is no share: "8400%" of 84 positions, or "a third" of one, is a slip.
        (Form::Percent(..) | Form::RatioWords(..), Computed::Number(v, None)) if v.is_integer() => Verdict::WrongShape(
            "a percentage or a share in words needs a share (a Ratio); this path gives a count: state the count, or claim the share".into(),
        ),
        (Form::Percent(n, _), Computed::Number(v, _)) => {
            // A percentage is always read at the precision written: "17%" is 17 ± 0.5.
            let scaled = Q::new(v.n * 100, v.d).unwrap_or(*v);
            let k = if let NumStyle::Decimal(k) = n.style { k } else { 0 };
            ok(scaled.round_scaled(k).zip(n.value.round_scaled(k)).is_some_and(|(a, b)| a == b))
        }
        (Form::OfTotal(a, b, _), Computed::Number(_, Some((num, den)))) => ok(a.value == Q::int(*num) && b.value == Q::int(*den)),
        (Form::OfTotal(a, b, _), Computed::List(l)) if l.len() == 2 => match (&l[0], &l[1]) {
            (Computed::Number(x, _), Computed::Number(y, _)) => ok(a.value == *x && b.value == *y),
            _ => Verdict::WrongShape("a two-element list of numbers".into()),
        },
        (Form::Range(a, b), Computed::Range(x, y)) => ok(num_matches(a, *x) && num_matches(b, *y)),
        (Form::Range(a, b), Computed::List(l)) if l.len() == 2 => match (&l[0], &l[1]) {
            (Computed::Number(x, _), Computed::Number(y, _)) => ok(num_matches(a, *x) && num_matches(b, *y)),
            _ => Verdict::WrongShape("a two-element list of numbers".into()),
        },
        (Form::List(items), Computed::List(l)) => {
            if items.len() != l.len() {
                return Verdict::Disagrees;
            }
            let all = items.iter().zip(l).all(|(n, c)| matches!(c, Computed::Number(v, _) if num_matches(n, *v)));
            ok(all)
        }
        (Form::RatioWords(p, q, ..), Computed::Number(v, _)) => {
            let stated = Q::new(*p as i128, *q as i128).unwrap_or(Q::int(0));
            ok(closest_fractions(*v, *q as i128).contains(&stated))
        }
        (Form::Truth(t), Computed::Bool(b)) => ok(t == b),
        (Form::OfTotal(..), Computed::Number(_, None)) => {
            Verdict::WrongShape("\"N of M\" needs a share (a Ratio) or a two-element list; this path gives a single number".into())
        }
        (Form::List(_), _) => Verdict::WrongShape("a list was stated but the path gives a single value".into()),
        (_, Computed::List(_)) => {
            Verdict::WrongShape("the path gives a list; state its elements, e.g. `1, 4 and 10`, or index one with [i]".into())
        }
        (_, Computed::Range(..)) => Verdict::WrongShape("the path gives a range; state it as `A to B`".into()),
        (_, Computed::Other(_)) => {
            Verdict::WrongShape("the path gives something that is not a number; extend the path to a number inside it".into())
        }
        (Form::Truth(_), _) => Verdict::WrongShape("true/false was stated but the path gives a number".into()),
        (_, Computed::Bool(_)) => Verdict::WrongShape("the path gives true/false; state `true` or `false`, or use {{ assert … }}".into()),
        _ => Verdict::WrongShape("this form does not fit the computed value".into()),
    }
}

fn capitalise(s: String, capital: bool) -> String {
    if !capital {
        return s;
    }
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().collect::<String>() + cs.as_str(),
        None => s,
    }
}

/// Write `v` in the style of `n`. Errors when the style cannot hold it (a fraction in
/// integer or word form, a number over a billion in words).
pub fn write_num(n: &Num, v: Q) -> Result<String, String> {
    match &n.style {
        NumStyle::Digits { sep, minus } => {
            if !v.is_integer() {
                return Err(format!("the computed value {v} is not a whole number"));
            }
            let s = match sep {
                Some(sep) => group_with(v.n, sep),
                None => v.n.abs().to_string(),
            };
            let s = s.trim_start_matches('−').to_string();
            Ok(if v.n < 0 { format!("{minus}{s}") } else { s })
        }
        NumStyle::Words { capital, and } => {
            if !v.is_integer() || v.n < 0 {
                return Err(format!("{v} cannot be written in words"));
            }
            let w = words::format(v.n as u64, *and).ok_or_else(|| format!("{v} is too large to write in words"))?;
            Ok(capitalise(w, *capital))
        }
        NumStyle::Decimal(k) => {
            let r = v.round_scaled(*k).ok_or("the value is too large")?;
            let neg = r < 0;
            let digits = format!("{:0>width$}", r.abs(), width = *k as usize + 1);
            let (int, frac) = digits.split_at(digits.len() - *k as usize);
            let body = if *k == 0 { int.to_string() } else { format!("{int}.{frac}") };
            Ok(if neg { format!("-{body}") } else { body })
        }
    }
}

/// The stated text rewritten to agree with `c`, keeping its form (a word stays a word,
/// separators and precision stay). Errors with a reason when the form cannot hold the
/// value (for instance "a third" when the closest fraction is 2/5).
pub fn bless(form: &Form, c: &Computed) -> Result<String, String> {
    match (form, c) {
        (Form::Number(n), Computed::Number(v, _)) => write_num(n, *v),
        (Form::Percent(n, suffix), Computed::Number(v, _)) => {
            let scaled = Q::new(v.n * 100, v.d).ok_or("bad value")?;
            let as_decimal = match n.style {
                NumStyle::Digits { .. } => Num { value: n.value, style: NumStyle::Decimal(0) },
                _ => n.clone(),
            };
            Ok(format!("{}{suffix}", write_num(&as_decimal, scaled)?))
        }
        (Form::OfTotal(a, b, j), Computed::Number(_, Some((num, den)))) => {
            Ok(format!("{}{j}{}", write_num(a, Q::int(*num))?, write_num(b, Q::int(*den))?))
        }
        (Form::Range(a, b), Computed::Range(x, y)) => Ok(format!("{} to {}", write_num(a, *x)?, write_num(b, *y)?)),
        (Form::Range(a, b), Computed::List(l)) | (Form::OfTotal(a, b, _), Computed::List(l)) if l.len() == 2 => match (&l[0], &l[1]) {
            (Computed::Number(x, _), Computed::Number(y, _)) => {
                let joiner = if let Form::OfTotal(_, _, j) = form { j.clone() } else { " to ".into() };
                Ok(format!("{}{joiner}{}", write_num(a, *x)?, write_num(b, *y)?))
            }
            _ => Err("the list does not hold two numbers".into()),
        },
        (Form::List(items), Computed::List(l)) => {
            let template = items.first().ok_or("an empty list")?;
            let mut parts = Vec::new();
            for (i, c) in l.iter().enumerate() {
                let Computed::Number(v, _) = c else { return Err("the list holds something other than numbers".into()) };
                parts.push(write_num(items.get(i).unwrap_or(template), *v)?);
            }
            Ok(match parts.len() {
                0 => return Err("the computed list is empty".into()),
                1 => parts[0].clone(),
                k => format!("{} and {}", parts[..k - 1].join(", "), parts[k - 1]),
            })
        }
        (Form::RatioWords(_, q, style, capital), Computed::Number(v, _)) => {
            let best = closest_fractions(*v, *q as i128);
            let pick = best.iter().find(|f| f.n > 0).copied().ok_or("the closest fraction is zero, which ratio words cannot state")?;
            let (p, d) = (pick.n as u64, pick.d as u64);
            let text = match style {
                RatioStyle::Unit => {
                    if p != 1 {
                        return Err(format!("the closest fraction is {p}/{d}, which \"a …\" cannot state; rewrite the sentence"));
                    }
                    if d == 2 {
                        "half".to_string()
                    } else {
                        let (s, _) = words::ordinal(d).ok_or(format!("no ordinal word for {d}"))?;
                        format!("a {s}")
                    }
                }
                RatioStyle::Plural => {
                    let (s, pl) = words::ordinal(d).ok_or(format!("no ordinal word for {d}"))?;
                    let pw = words::format(p, true).ok_or("too large")?;
                    format!("{pw} {}", if p == 1 { s } else { pl })
                }
                RatioStyle::In => {
                    format!("{} in {}", words::format(p, true).ok_or("too large")?, words::format(d, true).ok_or("too large")?)
                }
            };
            Ok(capitalise(text, *capital))
        }
        (Form::Truth(_), Computed::Bool(b)) => Ok(b.to_string()),
        _ => Err("the stated form does not fit the computed value".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pass(stated: &str, v: serde_json::Value) -> bool {
        let c = Computed::from_json(&v);
        let f = parse_stated(stated, matches!(c, Computed::List(_))).unwrap_or_else(|| panic!("unparsed {stated}"));
        check(&f, &c) == Verdict::Pass
    }

    #[test]
    fn integers_words_and_separators() {
        assert!(pass("523", json!(523)));
        assert!(pass("1,001", json!(1001)));
        assert!(pass("1001", json!(1001)));
        assert!(!pass("1,000", json!(1001)));
        assert!(pass("fifty-five", json!(55)));
        assert!(pass("Sixty-six", json!(66)));
        assert!(pass("six hundred and sixty", json!(660)));
        assert!(pass("a hundred and one", json!(101)));
        assert!(pass("one", json!(1)));
        assert!(pass("zero", json!(0)));
        assert!(pass("0", json!(0)));
        assert!(pass("−3", json!(-3)));
        assert!(pass("-3", json!(-3)));
        assert!(parse_num("1,0001").is_none());
        assert!(parse_num("12,34").is_none());
    }

    #[test]
    fn a_separator_number_and_a_list_are_told_apart_by_the_path() {
        assert!(pass("1,448", json!(1448)));
        assert!(pass("1, 448", json!([1, 448])));
        assert!(!pass("1,448", json!([1, 448])));
        assert!(pass("1, 4, 4, 8 and 10", json!([1, 4, 4, 8, 10])));
        assert!(pass("1, 4, 4, 8, and 10", json!([1, 4, 4, 8, 10])));
        assert!(!pass("1, 4 and 10", json!([1, 4, 4, 8, 10])));
        assert!(pass("7", json!([7])));
    }

    #[test]
    fn decimals_and_percentages_at_the_precision_written() {
        let r = json!({"num": 27215, "den": 159728});
        assert!(pass("17.0 per cent", r.clone()));
        assert!(pass("17%", r.clone()));
        assert!(pass("17.04%", r.clone()));
        assert!(!pass("17.1 per cent", r.clone()));
        assert!(pass("0.17", r.clone()));
        assert!(pass("27,215 of 159,728", r.clone()));
        assert!(!pass("27,215 of 159,729", r.clone()));
        // Boundary: 1/8 = 0.125 rounds half to even to 0.12, so 0.13 fails.
        assert!(pass("0.12", json!({"num": 1, "den": 8})));
        assert!(!pass("0.13", json!({"num": 1, "den": 8})));
        assert!(pass("12.5%", json!({"num": 1, "den": 8})));
        assert!(pass("12%", json!({"num": 1, "den": 8})));
        assert!(pass("0.67", json!({"num": 2, "den": 3})));
        assert!(pass("3.5", json!(3.5)));
        assert!(pass("150%", json!({"num": 3, "den": 2})));
        assert!(pass("50%", json!(0.5)));
    }

    #[test]
    fn ratio_words_by_the_closest_fraction() {
        assert!(pass("a third", json!({"num": 29, "den": 100})));
        assert!(pass("A third", json!({"num": 1, "den": 3})));
        assert!(pass("two in five", json!({"num": 2, "den": 5})));
        assert!(pass("one in seven", json!({"num": 14, "den": 100})));
        assert!(!pass("one in seven", json!({"num": 1, "den": 6})));
        assert!(pass("two thirds", json!({"num": 66, "den": 100})));
        assert!(pass("half", json!({"num": 1, "den": 2})));
        assert!(!pass("a quarter", json!({"num": 1, "den": 3})));
    }

    #[test]
    fn ranges() {
        assert!(pass("24 to 80", json!({"min": 24, "max": 80})));
        assert!(pass("24 to 80", json!([24, 80])));
        assert!(!pass("24 to 81", json!({"min": 24, "max": 80})));
    }

    #[test]
    fn wrong_shapes_are_reported_not_failed() {
        let c = Computed::from_json(&json!({"a": 1}));
        assert!(matches!(check(&parse_stated("3", false).unwrap(), &c), Verdict::WrongShape(_)));
        let c = Computed::from_json(&json!(3));
        assert!(matches!(check(&parse_stated("3 of 4", false).unwrap(), &c), Verdict::WrongShape(_)));
        assert!(parse_stated("lots", false).is_none());
        // A percentage or ratio words against a count (8400% would be 84).
        for stated in ["8400%", "8400 per cent", "a third", "one in one"] {
            let c = Computed::from_json(&json!(if stated == "one in one" { 1 } else { 84 }));
            assert!(matches!(check(&parse_stated(stated, false).unwrap(), &c), Verdict::WrongShape(_)), "{stated}");
        }
        // Leading zeros are not read.
        for stated in ["084", "0,084", "00", "-07"] {
            assert!(parse_num(stated).is_none(), "{stated}");
        }
        assert!(parse_num("0.5").is_some() && parse_num("0").is_some() && parse_num("-0.25").is_some());
    }

    fn blessed(stated: &str, v: serde_json::Value) -> Result<String, String> {
        let c = Computed::from_json(&v);
        let f = parse_stated(stated, matches!(c, Computed::List(_))).unwrap();
        let out = bless(&f, &c)?;
        // A blessed value always passes.
        let f2 = parse_stated(&out, matches!(c, Computed::List(_))).unwrap();
        assert_eq!(check(&f2, &c), Verdict::Pass, "{stated} -> {out}");
        Ok(out)
    }

    #[test]
    fn bless_keeps_the_form() {
        assert_eq!(blessed("1,000", json!(1001)).unwrap(), "1,001");
        assert_eq!(blessed("1000", json!(1001)).unwrap(), "1001");
        assert_eq!(blessed("Fifty-five", json!(56)).unwrap(), "Fifty-six");
        assert_eq!(blessed("six hundred and sixty", json!(661)).unwrap(), "six hundred and sixty-one");
        assert_eq!(blessed("17.1 per cent", json!({"num": 27215, "den": 159728})).unwrap(), "17.0 per cent");
        assert_eq!(blessed("0.130", json!({"num": 1, "den": 8})).unwrap(), "0.125");
        assert_eq!(blessed("6 of 923", json!({"num": 4, "den": 923})).unwrap(), "4 of 923");
        assert_eq!(blessed("1, 2 and 3", json!([1, 2, 4, 8])).unwrap(), "1, 2, 4 and 8");
        assert_eq!(blessed("24 to 79", json!({"min": 24, "max": 80})).unwrap(), "24 to 80");
        assert_eq!(blessed("one in seven", json!({"num": 1, "den": 6})).unwrap(), "one in six");
        assert_eq!(blessed("two thirds", json!({"num": 3, "den": 4})).unwrap(), "two thirds");
        assert!(blessed("a third", json!({"num": 3, "den": 5})).is_err());
        assert_eq!(blessed("−3", json!(-4)).unwrap(), "−4");
    }
}
