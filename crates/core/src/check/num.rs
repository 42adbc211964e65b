//! One number as an essay writes it: digits (grouped or not), a decimal or English words
//! ([`parse_num`]); its exact value and its style ([`Num`]), so `--bless` writes a new value
//! the same way ([`write_num`]). The stated forms ([`super::forms`]) and the ratio words
//! ([`super::ratio`]) are both built on it.

use num_bigint::BigInt;
use num_traits::Signed;

use super::rational::{group_with, ten_to, Q};
use super::words;

/// The most digits a stated or computed decimal may have; a longer number is refused.
pub const MAX_DIGITS: usize = 40;

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
    /// A decimal with this many digits after the point (at least one).
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

impl Num {
    /// The digits after the point (0 for an integer or words).
    pub fn decimals(&self) -> u32 {
        match self.style {
            NumStyle::Decimal(k) => k,
            _ => 0,
        }
    }

    /// True for an integer written as digits or words.
    pub fn is_whole(&self) -> bool {
        !matches!(self.style, NumStyle::Decimal(_))
    }
}

/// `[-|−]digits[.digits]` exactly, at most [`MAX_DIGITS`] digits; no trailing dot.
pub fn parse_decimal(t: &str) -> Option<Q> {
    let (neg, body) = match t.strip_prefix(['-', '−']) {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (int, frac) = match body.split_once('.') {
        Some((_, "")) => return None,
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if int.len() + frac.len() > MAX_DIGITS {
        return None;
    }
    let digits: BigInt = format!("{int}{frac}").parse().ok()?;
    let q = Q::new(digits, ten_to(frac.len() as u32))?;
    Some(if neg { Q::int(0) - q } else { q })
}

const SEPARATORS: [&str; 4] = [",", "\u{2009}", "\u{202f}", "\u{a0}"];

/// Digits in groups of three split by `sep`: "27,215" → 27215. `None` when the groups are
/// malformed or there are more than [`MAX_DIGITS`] digits.
fn parse_grouped(body: &str, sep: &str) -> Option<BigInt> {
    let groups: Vec<&str> = body.split(sep).collect();
    let ok = groups[0].len() <= 3
        && !groups[0].is_empty()
        && groups[1..].iter().all(|g| g.len() == 3)
        && groups.iter().all(|g| g.bytes().all(|b| b.is_ascii_digit()));
    let digits = groups.concat();
    (ok && digits.len() <= MAX_DIGITS).then(|| digits.parse().ok()).flatten()
}

/// One number as written: digits with or without group separators, a decimal, or words.
/// `None` for anything else, including a trailing dot ("2."), a leading zero ("084") and
/// more than [`MAX_DIGITS`] digits.
pub fn parse_num(text: &str) -> Option<Num> {
    let t = text.trim();
    let (minus, body) = match t.chars().next()? {
        c @ ('-' | '−') => (c, &t[c.len_utf8()..]),
        _ => ('-', t),
    };
    let negative = body.len() != t.len();
    let signed = |v: BigInt| if negative { -v } else { v };
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        if negative {
            return None;
        }
        let v = words::parse(t)?;
        let style = NumStyle::Words { capital: t.starts_with(|c: char| c.is_uppercase()), and: t.contains(" and ") };
        return Some(Num { value: Q::int(v), style });
    }
    // "084" or "0,084" is a slip (or another base), not a way to write 84.
    if body.starts_with('0') && body.len() > 1 && !body[1..].starts_with('.') {
        return None;
    }
    if let Some((_, frac)) = body.split_once('.') {
        let value = parse_decimal(t)?;
        return Some(Num { value, style: NumStyle::Decimal(frac.len() as u32) });
    }
    if let Some(sep) = SEPARATORS.into_iter().find(|s| body.contains(s)) {
        let v = parse_grouped(body, sep)?;
        return Some(Num { value: Q::int(signed(v)), style: NumStyle::Digits { sep: Some(sep.into()), minus } });
    }
    if !body.bytes().all(|b| b.is_ascii_digit()) || body.len() > MAX_DIGITS {
        return None;
    }
    let v: BigInt = body.parse().ok()?;
    Some(Num { value: Q::int(signed(v)), style: NumStyle::Digits { sep: None, minus } })
}

/// True when `v` lies strictly between 0 and 1 but the stated value, on a scale where
/// `whole` is all of it (1 for a decimal, 100 for a percentage), is 0 or all: "100 per
/// cent" for 920 of 923 is wrong however well it rounds.
pub fn is_false_extreme(stated: &Q, v: &Q, whole: u32) -> bool {
    let inside = v > &Q::int(0) && v < &Q::int(1);
    inside && (stated.is_zero() || *stated == Q::int(whole))
}

/// `s` with its first letter in upper case when `capital`.
pub fn capitalise(s: String, capital: bool) -> String {
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
pub fn write_num(n: &Num, v: &Q) -> Result<String, String> {
    match &n.style {
        NumStyle::Digits { sep, minus } => {
            if !v.is_integer() {
                return Err(format!("the computed value {v} is not a whole number"));
            }
            let s = group_with(&v.numer().abs(), sep.as_deref().unwrap_or(""));
            Ok(if v.is_negative() { format!("{minus}{s}") } else { s })
        }
        NumStyle::Words { capital, and } => {
            let w = if v.is_integer() { u64::try_from(v.numer()).ok() } else { None };
            let w = w.ok_or_else(|| format!("{v} cannot be written in words"))?;
            let w = words::format(w, *and).ok_or_else(|| format!("{v} is too large to write in words"))?;
            Ok(capitalise(w, *capital))
        }
        NumStyle::Decimal(k) => Ok(write_decimal(v, *k)),
    }
}

/// `v` at `k` decimal places, rounded half to even ("-0.50" for −1/2 at 2).
pub fn write_decimal(v: &Q, k: u32) -> String {
    let r = v.round_scaled(k);
    let digits = format!("{:0>width$}", r.magnitude(), width = k as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - k as usize);
    let body = if k == 0 { int.to_string() } else { format!("{int}.{frac}") };
    if r.is_negative() {
        format!("-{body}")
    } else {
        body
    }
}
