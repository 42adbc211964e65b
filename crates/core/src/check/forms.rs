//! Stated forms: how an essay may write a number, how each is checked against a computed
//! value, and how `--bless` rewrites one while keeping its form.
//!
//! | form | examples | passes when |
//! |---|---|---|
//! | integer | `523`, `1,001`, `−3` | equal |
//! | words | `fifty-five`, `Sixty-six`, `six hundred and sixty` | equal |
//! | decimal | `0.29`, `17.0` | the value rounds (half to even) to the digits written, and a value strictly between 0 and 1 is not written as `0.0…` or `1.0…` |
//! | percentage | `17.0 per cent`, `17%`, `2.5 percent` | the value × 100 rounds to the digits written, never to 0 or 100 for a value strictly between 0 and 1; only a share or a fraction, never a count |
//! | N of M | `27,215 of 159,728`, `six out of 923` | a share `{num, den}` with exactly that numerator and denominator |
//! | range | `24 to 80` | a range `{min, max}`, each end by its own form |
//! | list | `1, 4, 4, 8 and 10` | a list of equal length, element by element |
//! | one in N | `one in seven`, `1 in 250` | 1/value rounds to N at the precision N is written with, and the value is within 5 % of 1/N |
//! | ratio words | `a third`, `two thirds`, `half`, `two in five` | p/q is a closest fraction to the value among denominators ≤ q, and within 5 % of it |
//! | fraction | `10132/2001`, `−1/2`, `4/8` | a number, reduced (`4/8` is `1/2`): equal to an exact value; against a floating-point result, the double nearest the fraction is that result |
//! | truth | `true`, `false` | equal |
//! | text | anything, against a text result | the same text, exactly |
//!
//! A stated number has at most [`MAX_DIGITS`] digits; a longer one is refused, never
//! truncated. The ratio rules are in [`super::ratio`]; the guide's "Stated forms" table (`docs/guide/essays/claims.md`)
//! gives values that pass and fail.

use num_bigint::BigInt;

pub use super::num::{capitalise, is_false_extreme, parse_num, write_num, Num, NumStyle, MAX_DIGITS};
use super::num::{parse_decimal, write_decimal};
use super::ratio;
pub use super::ratio::{Fraction, RatioStyle};
use super::rational::{group_with, ten_to, Q};

/// A stated value, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Form {
    /// One number.
    Number(Num),
    /// A percentage: the number written before the sign, and the sign as written.
    Percent(Num, String),
    /// "N of M" (`joiner` is " of " or " out of "); both whole numbers.
    OfTotal(Num, Num, String),
    /// "A to B".
    Range(Num, Num),
    /// "1, 4, 4, 8 and 10".
    List(Vec<Num>),
    /// "two in five", "a third", "one in seven".
    RatioWords(Fraction),
    /// `true` or `false`.
    Truth(bool),
    /// `a/b`: the number a/b (reduced; `b > 0`) and the minus sign written, if any.
    Fraction(Q, Option<char>),
    /// Any text, stated for a text result: compared exactly.
    Text(String),
}

/// A computed value, as the checker sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Computed {
    /// A number; for a share `{num, den}`, also its numerator and denominator as returned.
    Number(Q, Option<(BigInt, BigInt)>),
    /// A `{min, max}` range.
    Range(Q, Q),
    /// A list.
    List(Vec<Computed>),
    /// A boolean.
    Bool(bool),
    /// A JSON number that is not an integer: a binary floating-point value, held as the
    /// exact value of the shortest decimal that reads back as it (`0.1` is 1/10).
    Float(Q),
    /// A JSON string: checkable only as text, exactly.
    Text(String),
    /// Anything else (a map, null): not checkable against a stated value.
    Other(String),
}

fn json_int(v: &serde_json::Value) -> Option<BigInt> {
    v.as_i64().map(BigInt::from).or_else(|| v.as_u64().map(BigInt::from))
}

impl Computed {
    /// The checker's view of a JSON value: an object of exactly `num` and `den` (integers,
    /// `den` not zero) is a share, one of exactly `min` and `max` (numbers) a range.
    pub fn from_json(v: &serde_json::Value) -> Computed {
        use serde_json::Value as J;
        match v {
            J::Number(n) => match json_int(v) {
                Some(i) => Computed::Number(Q::int(i), None),
                None => match parse_decimal(&n.to_string()) {
                    Some(q) => Computed::Float(q),
                    None => Computed::Other(n.to_string()),
                },
            },
            J::Bool(b) => Computed::Bool(*b),
            J::Array(a) => Computed::List(a.iter().map(Computed::from_json).collect()),
            J::Object(m) => {
                if m.len() == 2 {
                    if let (Some(n), Some(d)) = (m.get("num").and_then(json_int), m.get("den").and_then(json_int)) {
                        if let Some(q) = Q::new(n.clone(), d.clone()) {
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
            J::String(s) => Computed::Text(s.clone()),
            J::Null => Computed::Other("null".into()),
        }
    }

    /// How the value reads in a diagnostic.
    pub fn display(&self) -> String {
        match self {
            Computed::Number(q, Some((n, d))) => {
                format!("{} of {} ({:.4}, {:.2}%)", group_with(n, ","), group_with(d, ","), q.to_f64(), q.to_f64() * 100.0)
            }
            Computed::Number(q, None) => q.to_string(),
            Computed::Range(a, b) => format!("{a} to {b}"),
            Computed::List(l) => format!("[{}]", l.iter().map(|c| c.display()).collect::<Vec<_>>().join(", ")),
            Computed::Bool(b) => b.to_string(),
            Computed::Float(q) => float_text(q),
            Computed::Text(s) => format!("{s:?}"),
            Computed::Other(s) => s.clone(),
        }
    }

    /// The number, for a number of any kind (a share, a fraction, an integer, a float).
    pub fn number(&self) -> Option<&Q> {
        match self {
            Computed::Number(q, _) | Computed::Float(q) => Some(q),
            _ => None,
        }
    }

    /// What kind of value this is, for a wrong-shape diagnostic.
    fn kind(&self) -> String {
        match self {
            Computed::Number(_, Some(_)) => "a share {num, den}".into(),
            Computed::Number(q, None) if q.is_integer() => "a count".into(),
            Computed::Number(..) => "a single number".into(),
            Computed::Range(..) => "a range {min, max}".into(),
            Computed::List(l) => format!("a list of {}", l.len()),
            Computed::Bool(_) => "true/false".into(),
            Computed::Float(_) => "a floating-point number".into(),
            Computed::Text(_) => "text".into(),
            Computed::Other(_) => "something that is not a number".into(),
        }
    }

    /// The value with a float read as the exact number of its decimal: how every form but
    /// a fraction sees it.
    fn exact(&self) -> Computed {
        match self {
            Computed::Float(q) => Computed::Number(q.clone(), None),
            Computed::List(l) => Computed::List(l.iter().map(Computed::exact).collect()),
            c => c.clone(),
        }
    }
}

/// A float's value as JSON wrote it: the shortest decimal that reads back as the same
/// double (`0.07`, `5.063468265867066`).
pub fn float_text(q: &Q) -> String {
    q.to_f64().to_string()
}

/// A stated list: "1, 4 and 10", "1, 4, and 10", "3 and 5", or a lone number. A phrase that
/// reads as one number is one number, never split at its "and": "a thousand and one" is
/// [1001], not [1000, 1] (as "1,448" is [1448], not [1, 448]).
fn parse_list(t: &str) -> Option<Vec<Num>> {
    if let Some(n) = parse_num(t) {
        return Some(vec![n]);
    }
    let mut parts: Vec<&str> = t.split(", ").collect();
    let last = parts.pop()?;
    let mut items = parts.into_iter().map(parse_num).collect::<Option<Vec<_>>>()?;
    match last.strip_prefix("and ") {
        Some(l) if !items.is_empty() => items.push(parse_num(l)?),
        _ => match parse_num(last) {
            Some(n) => items.push(n),
            None => {
                let (a, b) = last.rsplit_once(" and ")?;
                items.push(parse_num(a)?);
                items.push(parse_num(b)?);
            }
        },
    }
    Some(items)
}

fn parse_percent(t: &str) -> Option<Form> {
    for suffix in ["%", " %", " per cent", " percent"] {
        if let Some(n) = t.strip_suffix(suffix).and_then(parse_num) {
            if !matches!(n.style, NumStyle::Words { .. }) {
                return Some(Form::Percent(n, suffix.to_string()));
            }
        }
    }
    None
}

/// A stated fraction `a/b`: `a` an integer in digits (grouped or not, `-` or `−` before a
/// negative), `b` one above zero, no space about the `/`. `None` for anything else,
/// including `1/0`, `1/`, `/2`, `1/2/3`, `0.5/2` and words.
fn parse_fraction(t: &str) -> Option<Form> {
    let (a, b) = t.split_once('/')?;
    if a != a.trim() || b != b.trim() {
        return None;
    }
    let (a, b) = (parse_num(a)?, parse_num(b)?);
    let digits = |n: &Num| matches!(n.style, NumStyle::Digits { .. });
    if !digits(&a) || !digits(&b) || b.value.is_negative() {
        return None;
    }
    let minus = match a.style {
        NumStyle::Digits { minus, .. } if a.value.is_negative() => Some(minus),
        _ => None,
    };
    let q = (&a.value / &b.value)?;
    Some(Form::Fraction(q, minus))
}

/// Why `text`, which no form reads, is no fraction, when it looks like one: a `/` with a
/// side missing, or a zero denominator.
pub fn fraction_problem(text: &str) -> Option<&'static str> {
    let (a, b) = text.trim().split_once('/')?;
    if a.trim().is_empty() || b.trim().is_empty() {
        Some("a fraction needs a numerator and a denominator: write `1/8`")
    } else if parse_num(b).is_some_and(|n| n.value.is_zero()) {
        Some("a fraction's denominator is above zero")
    } else {
        Some("a fraction is two integers in digits, `a/b`, with no space about the `/`")
    }
}

/// The census's text `s`, when a claim can hold it as written (`--bless` writes it
/// between `=` and `}}`): not empty, no spaces at its ends (reading trims them), no `{{`
/// or `}}` (they would open a claim or end this one early), no `[` or `]` (a link, an
/// image or a citation could open or close around it), and no line break or other
/// control character (a break ends a heading or a table row). Else why not.
fn text_to_write(s: &str) -> Result<&str, String> {
    let why = if s.is_empty() {
        "the census gives empty text, which a claim cannot state"
    } else if s.trim() != s {
        "the census's text begins or ends with a space, which reading the claim trims"
    } else if s.contains("}}") {
        "the census's text holds `}}`, which would end the claim early"
    } else if s.contains("{{") {
        "the census's text holds `{{`, which would open another claim"
    } else if s.contains(['[', ']']) {
        "the census's text holds `[` or `]`, which Markdown may read as a link, an image or a citation"
    } else if s.contains(['\n', '\r']) {
        "the census's text holds a line break, which would end a heading or a table row"
    } else if s.chars().any(char::is_control) {
        "the census's text holds a control character"
    } else {
        return Ok(s);
    };
    Err(why.to_string())
}

/// Parse `text` as a stated value for the computed value `c`: against text, any text is
/// stated text (compared exactly); otherwise as [`parse_stated`] reads it, lists when `c`
/// is a list. `None` when no form fits.
pub fn parse_stated_for(text: &str, c: &Computed) -> Option<Form> {
    match c {
        Computed::Text(_) => Some(Form::Text(text.trim().to_string())),
        _ => parse_stated(text, matches!(c, Computed::List(_))),
    }
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
    if let Some(f) = parse_fraction(t) {
        return Some(f);
    }
    if let Some(f) = ratio::parse(t) {
        return Some(Form::RatioWords(f));
    }
    if let Some(p) = parse_percent(t) {
        return Some(p);
    }
    for joiner in [" out of ", " of "] {
        if let Some((a, b)) = t.split_once(joiner) {
            if let (Some(a), Some(b)) = (parse_num(a), parse_num(b)) {
                if a.is_whole() && b.is_whole() {
                    return Some(Form::OfTotal(a, b, joiner.to_string()));
                }
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

fn num_matches(n: &Num, v: &Q) -> bool {
    match n.style {
        NumStyle::Decimal(k) => v.round_scaled(k) == n.value.round_scaled(k) && !is_false_extreme(&n.value, v, 1),
        _ => n.value == *v,
    }
}

fn percent_matches(n: &Num, v: &Q) -> bool {
    let scaled = v * &Q::int(100);
    let k = n.decimals();
    scaled.round_scaled(k) == n.value.round_scaled(k) && !is_false_extreme(&n.value, v, 100)
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

fn verdict(b: bool) -> Verdict {
    if b {
        Verdict::Pass
    } else {
        Verdict::Disagrees
    }
}

/// Check a parsed stated value against a computed one. Each form passes only against the
/// shape it describes: "N of M" a share, "A to B" a range, a list a list.
pub fn check(form: &Form, c: &Computed) -> Verdict {
    match (form, c) {
        // A float is the double nearest the stated fraction (num-rational's conversion is
        // correctly rounded, half to even), or it is not that fraction.
        (Form::Fraction(q, _), Computed::Float(f)) => verdict(q.to_f64() == f.to_f64()),
        (Form::Fraction(q, _), Computed::Number(v, _)) => verdict(q == v),
        (Form::Text(t), Computed::Text(s)) => verdict(t == s),
        (Form::Text(_), _) => Verdict::WrongShape(format!("text is stated for text; this path gives {}", c.kind())),
        (_, Computed::Text(_)) => Verdict::WrongShape("the path gives text; state it as written".into()),
        (_, Computed::Float(q)) => check(form, &Computed::Number(q.clone(), None)),
        (_, Computed::List(_)) if c.exact() != *c => check(form, &c.exact()),
        (Form::Number(n), Computed::Number(v, _)) => verdict(num_matches(n, v)),
        // A count is no share: "8400%" of 84 positions, or "a third" of one, is a slip.
        (Form::Percent(..) | Form::RatioWords(..), Computed::Number(v, None)) if v.is_integer() => Verdict::WrongShape(
            "a percentage or a share in words needs a share (N of M, or a fraction); this path gives a count: state the count, or claim the share".into(),
        ),
        (Form::Percent(n, _), Computed::Number(v, _)) => verdict(percent_matches(n, v)),
        (Form::OfTotal(a, b, _), Computed::Number(_, Some((num, den)))) => {
            verdict(a.value == Q::int(num.clone()) && b.value == Q::int(den.clone()))
        }
        (Form::OfTotal(..), _) => {
            Verdict::WrongShape(format!("\"N of M\" states a share {{num, den}}; this path gives {}: state it in its own form", c.kind()))
        }
        (Form::Range(a, b), Computed::Range(x, y)) => verdict(num_matches(a, x) && num_matches(b, y)),
        (Form::Range(..), _) => Verdict::WrongShape(format!(
            "\"A to B\" states a range {{min, max}}; this path gives {}: state it in its own form, or index an element with [i]",
            c.kind()
        )),
        (Form::List(items), Computed::List(l)) => {
            let all = items.len() == l.len() && items.iter().zip(l).all(|(n, c)| matches!(c, Computed::Number(v, _) if num_matches(n, v)));
            verdict(all)
        }
        (Form::RatioWords(f), Computed::Number(v, _)) => verdict(ratio::passes(f, v)),
        (Form::Truth(t), Computed::Bool(b)) => verdict(t == b),
        (Form::List(_), _) => Verdict::WrongShape("a list was stated but the path gives a single value".into()),
        (_, Computed::List(_)) => {
            Verdict::WrongShape("the path gives a list; state its elements, e.g. `1, 4 and 10`, or index one with [i]".into())
        }
        (_, Computed::Range(..)) => Verdict::WrongShape("the path gives a range; state it as `A to B`".into()),
        (_, Computed::Other(_)) => {
            Verdict::WrongShape("the path gives something that is not a number; extend the path to a number inside it".into())
        }
        (Form::Truth(_), _) => Verdict::WrongShape("true/false was stated but the path gives a number".into()),
        (Form::Fraction(..), _) => Verdict::WrongShape(format!("a fraction states a number; this path gives {}", c.kind())),
        (_, Computed::Bool(_)) => Verdict::WrongShape("the path gives true/false; state `true` or `false`, or use {{ assert … }}".into()),
    }
}

/// Where a stated list and a computed list part, for a `claim-mismatch` label: their
/// lengths when these differ ("2 items here, 3 computed"), else the first item that differs,
/// counted from 1 with its index (`item 3 ([2]) differs: 4 here, 3 computed`). `None` when
/// `form` or `c` is no list, or no item differs.
pub fn list_difference(form: &Form, c: &Computed) -> Option<String> {
    let (Form::List(items), Computed::List(l)) = (form, c.exact()) else { return None };
    let count = |n: usize| if n == 1 { "1 item".to_string() } else { format!("{n} items") };
    if items.len() != l.len() {
        return Some(format!("{} here, {} computed", count(items.len()), l.len()));
    }
    let i = items.iter().zip(&l).position(|(n, c)| !matches!(c, Computed::Number(v, _) if num_matches(n, v)))?;
    let here = write_num(&items[i], &items[i].value).unwrap_or_else(|_| items[i].value.to_string());
    Some(format!("item {} ([{i}]) differs: {here} here, {} computed", i + 1, l[i].display()))
}

/// The fewest decimal places from `k` up at which `v` (a share, shown on a scale where
/// `whole` is all of it) no longer rounds to 0 or to all of it; `k` itself when `v` is not
/// strictly between 0 and 1.
pub fn places_avoiding_extremes(v: &Q, k: u32, whole: u32) -> u32 {
    let scaled = v * &Q::int(whole);
    let rounds_off = |k: u32| Q::new(scaled.round_scaled(k), ten_to(k)).is_some_and(|r| !is_false_extreme(&r, v, whole));
    // A share of two u64 counts lies at least 1/2⁶⁴ from 0 and 1: seen within 22 places.
    (k..k + 64).find(|&k| rounds_off(k)).unwrap_or(k)
}

fn bless_decimal(n: &Num, v: &Q, whole: u32) -> Result<String, String> {
    let k = places_avoiding_extremes(v, n.decimals(), whole);
    match n.style {
        NumStyle::Decimal(_) => Ok(write_decimal(&(v * &Q::int(whole)), k)),
        _ if whole == 100 => Ok(write_decimal(&(v * &Q::int(whole)), k)),
        _ => write_num(n, v),
    }
}

/// The stated text rewritten to agree with `c`, keeping its form (a word stays a word,
/// separators and precision stay; a decimal or percentage gains the fewest places that
/// keep a share off 0 and 100 %). Errors with a reason when the form cannot hold the
/// value (for instance "a third" when the share is 3/5).
pub fn bless(form: &Form, c: &Computed) -> Result<String, String> {
    match (form, c) {
        (Form::Fraction(..), Computed::Float(_)) => {
            Err("the census gives a floating-point number, which no fraction states exactly: state it as a decimal".into())
        }
        (Form::Fraction(_, minus), Computed::Number(v, _)) => {
            let sign = if v.is_negative() { minus.unwrap_or('−').to_string() } else { String::new() };
            Ok(format!("{sign}{}/{}", v.numer().magnitude(), v.denom()))
        }
        (Form::Text(_), Computed::Text(s)) => text_to_write(s).map(str::to_string),
        (_, Computed::Float(q)) => bless(form, &Computed::Number(q.clone(), None)),
        (_, Computed::List(_)) if c.exact() != *c => bless(form, &c.exact()),
        (Form::Number(n), Computed::Number(v, _)) => bless_decimal(n, v, 1),
        (Form::Percent(n, suffix), Computed::Number(v, _)) => Ok(format!("{}{suffix}", bless_decimal(n, v, 100)?)),
        (Form::OfTotal(a, b, j), Computed::Number(_, Some((num, den)))) => {
            Ok(format!("{}{j}{}", write_num(a, &Q::int(num.clone()))?, write_num(b, &Q::int(den.clone()))?))
        }
        (Form::Range(a, b), Computed::Range(x, y)) => Ok(format!("{} to {}", write_num(a, x)?, write_num(b, y)?)),
        (Form::List(items), Computed::List(l)) => {
            let template = items.first().ok_or("an empty list")?;
            let mut parts = Vec::new();
            for (i, c) in l.iter().enumerate() {
                let Computed::Number(v, _) = c else { return Err("the list holds something other than numbers".into()) };
                parts.push(write_num(items.get(i).unwrap_or(template), v)?);
            }
            let text = match parts.len() {
                0 => return Err("the computed list is empty".into()),
                1 => parts[0].clone(),
                k => format!("{} and {}", parts[..k - 1].join(", "), parts[k - 1]),
            };
            // Words can run together ("one hundred" and "one" read as 101): write only a
            // text that reads back as this many elements.
            match parse_list(&text) {
                Some(read) if read.len() == parts.len() => Ok(text),
                _ => Err(format!("`{text}` would read as one number; state the list in digits")),
            }
        }
        (Form::RatioWords(f), Computed::Number(v, _)) => ratio::bless(f, v),
        (Form::Truth(_), Computed::Bool(b)) => Ok(b.to_string()),
        _ => Err("the stated form does not fit the computed value".into()),
    }
}

/// The computed value `c` in the stated form, for a reader's certificate beside the exact
/// value (which `expr::exact_text` gives): what the author's rounding or wording
/// stood for. `None` when the exact value is already in that form (integers, words, `N of
/// M`, ranges, lists, truth, text, a fraction against a fraction) or the form says nothing
/// of this value.
///
/// | stated | computed | shown |
/// |---|---|---|
/// | `one in seven` | 298 of 2,001 | `≈ 1 in 6.7, ≈ 14.9 %` |
/// | `a third` | 34 of 100 | `= 34.0 %; a third is 33.3 %` |
/// | `17.0 per cent` | 27,215 of 159,728 | `≈ 17.04 %` |
/// | `0.15` | 298 of 2,001 | `≈ 0.149` |
/// | `298/2001` | 298 of 2,001 | `= 298/2001` |
///
/// A percentage or decimal shows one place more than written; "one in N" and other ratio
/// words as [`ratio::in_form`] says.
pub fn in_form(form: &Form, c: &Computed) -> Option<String> {
    let v = c.number()?;
    match (form, c) {
        (Form::RatioWords(f), _) => ratio::in_form(f, v),
        (Form::Percent(n, _), _) => Some(format!("{} %", ratio::approx(&(v * &Q::int(100)), n.decimals() + 1))),
        (Form::Number(n), _) if matches!(n.style, NumStyle::Decimal(_)) && !v.is_integer() => Some(ratio::approx(v, n.decimals() + 1)),
        (Form::Fraction(..), Computed::Number(_, Some(_))) => Some(format!("= {}/{}", v.numer(), v.denom())),
        _ => None,
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

    fn share(n: u64, d: u64) -> serde_json::Value {
        json!({"num": n, "den": d})
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
        assert!(!pass("1", share(2, 3)), "an integer against a non-integer share");
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
        assert!(!pass("4, 1, 4, 8 and 10", json!([1, 4, 4, 8, 10])), "another order");
        assert!(pass("7", json!([7])));
    }

    #[test]
    fn decimals_and_percentages_at_the_precision_written() {
        let r = share(27215, 159728);
        assert!(pass("17.0 per cent", r.clone()));
        assert!(pass("17%", r.clone()));
        assert!(pass("17.04%", r.clone()));
        assert!(!pass("17.1 per cent", r.clone()));
        assert!(pass("0.17", r.clone()));
        assert!(pass("27,215 of 159,728", r.clone()));
        assert!(!pass("27,215 of 159,729", r.clone()));
        // Boundary: 1/8 = 0.125 rounds half to even to 0.12, so 0.13 fails.
        assert!(pass("0.12", share(1, 8)));
        assert!(!pass("0.13", share(1, 8)));
        assert!(pass("12.5%", share(1, 8)));
        assert!(pass("12%", share(1, 8)));
        assert!(pass("0.67", share(2, 3)));
        assert!(pass("3.5", json!(3.5)));
        assert!(pass("150%", share(3, 2)));
        assert!(pass("50%", json!(0.5)));
    }

    #[test]
    fn a_share_strictly_inside_never_passes_as_none_or_all() {
        assert!(!pass("100 per cent", share(920, 923)));
        assert!(!pass("100.0%", share(9995, 10000)));
        assert!(!pass("0.0", share(3, 923)));
        assert!(!pass("0%", share(3, 923)));
        assert!(!pass("1.00", share(9999, 10000)));
        assert!(pass("99.7 per cent", share(920, 923)));
        assert!(pass("0.3%", share(3, 923)));
        assert!(pass("100 per cent", share(364, 364)));
        assert!(pass("0 per cent", share(0, 18563)));
        assert!(pass("1.0", share(7, 7)));
    }

    #[test]
    fn a_trailing_dot_and_a_number_too_long_are_refused() {
        for t in ["0.", "2.", "17.%", "1,000."] {
            assert!(parse_num(t).is_none() && parse_stated(t, false).is_none(), "{t}");
        }
        let long = "1".repeat(MAX_DIGITS + 1);
        assert!(parse_num(&long).is_none());
        assert!(parse_stated(&format!("1 in {long}"), false).is_none());
        assert!(parse_num(&"1".repeat(MAX_DIGITS)).is_some());
        // 2⁶⁴ + 2 is read exactly, never as 2.
        let f = parse_stated("1 in 18446744073709551618", false).unwrap();
        assert_eq!(check(&f, &Computed::from_json(&share(1, 2))), Verdict::Disagrees);
    }

    #[test]
    fn ratio_words_need_a_closest_fraction_within_five_per_cent() {
        assert!(pass("A third", share(1, 3)));
        assert!(pass("a third", share(584, 1836)));
        assert!(!pass("a third", share(29, 100)));
        assert!(!pass("a third", share(17, 100)));
        assert!(!pass("a third", share(41, 100)));
        assert!(pass("two in five", share(2, 5)));
        assert!(!pass("two in five", share(199, 469)));
        assert!(pass("two thirds", share(66, 100)));
        assert!(!pass("two thirds", share(77, 100)));
        assert!(pass("half", share(1, 2)));
        assert!(!pass("a quarter", share(1, 3)));
        assert!(!pass("three tenths", share(2, 7)), "2/7 is closer");
        assert!(!pass("two halves", share(99, 100)), "an extreme");
    }

    #[test]
    fn one_in_n_reads_the_reciprocal_at_the_precision_of_n() {
        assert!(pass("one in seven", share(14, 100)));
        assert!(pass("one in seven", share(10395, 72090)));
        assert!(!pass("one in seven", share(1, 6)));
        assert!(pass("one in twelve", share(367, 4355)));
        assert!(!pass("one in twelve", share(42, 1000)));
        assert!(!pass("one in twelve", share(6, 100)));
        assert!(pass("1 in 250", share(1, 252)));
        assert!(!pass("1 in 250", share(1, 256)));
        assert!(pass("one in a hundred", share(1, 104)));
        assert!(!pass("one in two", share(3, 5)));
        assert!(!pass("one in one", share(920, 923)));
        assert!(pass("one in 999,999,999,999,999,999", share(1, 999_999_999_999_999_999)));
        assert!(!pass("one in 999,999,999,999,999,999", share(1, 3)));
    }

    #[test]
    fn forms_match_shapes_not_accidents() {
        let c = Computed::from_json(&json!({"a": 1}));
        assert!(matches!(check(&parse_stated("3", false).unwrap(), &c), Verdict::WrongShape(_)));
        let c = Computed::from_json(&json!(3));
        assert!(matches!(check(&parse_stated("3 of 4", false).unwrap(), &c), Verdict::WrongShape(_)));
        // A two-element list is neither a share nor a range.
        for stated in ["1 of 2", "1 to 2"] {
            let c = Computed::from_json(&json!([1, 2]));
            assert!(matches!(check(&parse_stated(stated, false).unwrap(), &c), Verdict::WrongShape(_)), "{stated}");
        }
        assert!(matches!(check(&parse_stated("1 to 2", false).unwrap(), &Computed::from_json(&share(1, 2))), Verdict::WrongShape(_)));
        assert!(matches!(
            check(&parse_stated("1 of 2", false).unwrap(), &Computed::from_json(&json!({"min": 1, "max": 2}))),
            Verdict::WrongShape(_)
        ));
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

    #[test]
    fn ranges() {
        let r = json!({"min": 24, "max": 80});
        assert!(pass("24 to 80", r.clone()));
        assert!(!pass("24 to 81", r.clone()));
        assert!(!pass("80 to 24", r), "reversed");
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
        assert_eq!(blessed("17.1 per cent", share(27215, 159728)).unwrap(), "17.0 per cent");
        assert_eq!(blessed("0.130", share(1, 8)).unwrap(), "0.125");
        assert_eq!(blessed("6 of 923", share(4, 923)).unwrap(), "4 of 923");
        assert_eq!(blessed("1, 2 and 3", json!([1, 2, 4, 8])).unwrap(), "1, 2, 4 and 8");
        assert_eq!(blessed("24 to 79", json!({"min": 24, "max": 80})).unwrap(), "24 to 80");
        assert_eq!(blessed("−3", json!(-4)).unwrap(), "−4");
    }

    /// A census's text is written into the claim only when the claim reads it back as
    /// written: `}}` would end the claim early, `{{` open another, a line break end a
    /// heading or table row, and spaces at its ends are trimmed when read. `--bless` wrote
    /// each of these and then reported success.
    #[test]
    fn bless_refuses_text_the_claim_cannot_hold() {
        let text = |s: &str| bless(&Form::Text("x".into()), &Computed::Text(s.into()));
        assert_eq!(text("P-position, mex 3: \"hi\" | *a*"), Ok("P-position, mex 3: \"hi\" | *a*".into()));
        for bad in ["a }} b", "a {{ b", "a\nb", "a\rb", "tab\there", " lead", "trail ", "", "a\u{7}b", "[@onag]", "a]b", "![i](j)"] {
            let why = text(bad).expect_err(bad);
            assert!(why.starts_with("the census gives empty text") || why.starts_with("the census's text"), "{bad:?}: {why}");
        }
        assert!(text("a }} b").unwrap_err().contains("`}}`"));
        assert!(text("a\nb").unwrap_err().contains("line break"));
    }

    #[test]
    fn bless_adds_the_fewest_places_that_keep_a_share_off_the_extremes() {
        assert_eq!(blessed("99 per cent", share(920, 923)).unwrap(), "99.7 per cent");
        assert_eq!(blessed("99.9%", share(9991, 10000)).unwrap(), "99.9%");
        assert_eq!(blessed("99.8%", share(99951, 100000)).unwrap(), "99.95%");
        assert_eq!(blessed("0.1", share(3, 923)).unwrap(), "0.003");
        assert_eq!(blessed("5%", share(3, 923)).unwrap(), "0.3%");
        assert_eq!(blessed("99%", share(7, 7)).unwrap(), "100%");
    }

    #[test]
    fn bless_picks_a_ratio_the_rule_accepts() {
        assert_eq!(blessed("one in seven", share(1, 6)).unwrap(), "one in six");
        assert_eq!(blessed("One in twelve", share(42, 1000)).unwrap(), "One in twenty-four");
        assert_eq!(blessed("1 in 250", share(1, 1000)).unwrap(), "1 in 1000");
        assert_eq!(blessed("two thirds", share(3, 4)).unwrap(), "three quarters");
        assert_eq!(blessed("two in five", share(199, 469)).unwrap(), "three in seven");
        assert_eq!(blessed("a third", share(1, 4)).unwrap(), "a quarter");
        assert!(blessed("a third", share(3, 5)).is_err());
        assert!(blessed("one in two", share(920, 923)).is_err());
    }
}
