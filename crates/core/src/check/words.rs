//! English number words: "fifty-five", "six hundred and sixty", "a hundred and one",
//! "Sixty-six", "two million", and their inverse for `--bless`.

const UNITS: [&str; 20] = [
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

/// True for a single number word worth "three" or more: "three" … "nineteen", the tens,
/// "hundred", "thousand", "million", "billion" (lower case).
pub fn is_word_from_three(w: &str) -> bool {
    UNITS[3..].contains(&w) || TENS[2..].contains(&w) || w == "hundred" || scale(w).is_some()
}

/// True for a tens word from "twenty" to "ninety" (lower case): the first part of a
/// compound such as "fifty-five".
pub fn is_tens(w: &str) -> bool {
    TENS[2..].contains(&w)
}

/// True for a unit word from "one" to "nine" (lower case): the second part of a compound
/// such as "fifty-five".
pub fn is_digit_word(w: &str) -> bool {
    UNITS[1..10].contains(&w)
}

/// The value of a scale word above a hundred (the short scale: a billion is 10^9).
fn scale(w: &str) -> Option<u64> {
    match w {
        "thousand" => Some(1_000),
        "million" => Some(1_000_000),
        "billion" => Some(1_000_000_000),
        _ => None,
    }
}

/// The words of a phrase, lower case: split at spaces (no-break ones too) and at single
/// hyphens (the no-break hyphen U+2011 and U+2010 too). `None` when a hyphen has no word
/// on one side ("fifty--five", "fifty-").
fn tokens(text: &str) -> Option<Vec<String>> {
    let lower = text.to_lowercase().replace(['\u{2010}', '\u{2011}'], "-");
    let mut out = Vec::new();
    for word in lower.split_whitespace() {
        for part in word.split('-') {
            if part.is_empty() {
                return None;
            }
            out.push(part.to_string());
        }
    }
    Some(out)
}

/// The value of a number word phrase, case-insensitive, hyphens or spaces between parts,
/// "and" allowed after hundreds and after a scale word, "a" standing for one before
/// "hundred", "thousand", "million" or "billion"; hundreds counted past ten ("eleven
/// hundred", "twenty-five hundred"). Up to the billions (< 10^12). `None` when it is not
/// such a phrase.
pub fn parse(text: &str) -> Option<u64> {
    let owned = tokens(text)?;
    let t: Vec<&str> = owned.iter().map(String::as_str).collect();
    if t == ["zero"] {
        return Some(0);
    }
    let mut total = 0u64;
    let mut i = 0;
    let mut last_scale = u64::MAX;
    loop {
        let (c, next) = chunk(&t, i)?;
        i = next;
        let Some(w) = t.get(i) else { return Some(total + c) };
        let s = scale(w)?;
        if s >= last_scale || c >= 1000 {
            return None;
        }
        last_scale = s;
        total += c * s;
        i += 1;
        if i == t.len() {
            return Some(total);
        }
        if t[i] == "and" {
            i += 1;
            if i == t.len() {
                return None;
            }
        }
    }
}

/// A unit word's value, 1 ("one") to 19 ("nineteen").
fn unit(w: &str) -> Option<u64> {
    UNITS.iter().position(|u| *u == w).filter(|&u| u > 0).map(|u| u as u64)
}

/// A tens word's value, 20 ("twenty") to 90 ("ninety").
fn tens(w: &str) -> Option<u64> {
    TENS.iter().position(|u| !u.is_empty() && *u == w).map(|u| 10 * u as u64)
}

/// A number below a hundred written from `t[i]` ("seven", "twelve", "fifty", "fifty five"),
/// and the index after it.
fn below_hundred(t: &[&str], i: usize) -> Option<(u64, usize)> {
    let w = t.get(i)?;
    if let Some(tn) = tens(w) {
        return Some(match t.get(i + 1).and_then(|w| unit(w)).filter(|&u| u < 10) {
            Some(u) => (tn + u, i + 2),
            None => (tn, i + 1),
        });
    }
    unit(w).map(|u| (u, i + 1))
}

/// One group before a scale word (or the last), starting at `t[i]`: its value (below a
/// thousand, or hundreds counted past ten, "eleven hundred and five") and the index after.
fn chunk(t: &[&str], i: usize) -> Option<(u64, usize)> {
    let a_scale = t.get(i) == Some(&"a") && t.get(i + 1).is_some_and(|w| *w == "hundred" || scale(w).is_some());
    let (hundreds, i) = if a_scale {
        if t[i + 1] != "hundred" {
            return Some((1, i + 1));
        }
        (100, i + 2)
    } else {
        match below_hundred(t, i) {
            // "ten hundred" and "twenty hundred" are not how anyone writes a thousand or two.
            Some((n, j)) if t.get(j) == Some(&"hundred") && (n < 10 || n % 10 != 0) => (n * 100, j + 1),
            Some(found) => return Some(found),
            None => return None,
        }
    };
    let (rest, j) = if t.get(i) == Some(&"and") { below_hundred(t, i + 1)? } else { below_hundred(t, i).unwrap_or((0, i)) };
    Some((hundreds + rest, j))
}

fn below_thousand(n: u64, and: bool, out: &mut Vec<String>) {
    let h = n / 100;
    let r = n % 100;
    if h > 0 {
        out.push(format!("{} hundred", UNITS[h as usize]));
        if r > 0 && and {
            out.push("and".into());
        }
    }
    if r > 0 {
        if r < 20 {
            out.push(UNITS[r as usize].into());
        } else if r.is_multiple_of(10) {
            out.push(TENS[(r / 10) as usize].into());
        } else {
            out.push(format!("{}-{}", TENS[(r / 10) as usize], UNITS[(r % 10) as usize]));
        }
    }
}

/// `n` in words, British style ("six hundred and sixty") when `and`, hyphenated tens
/// ("fifty-five"). `None` from a trillion (10^12) up.
pub fn format(n: u64, and: bool) -> Option<String> {
    if n >= 1_000_000_000_000 {
        return None;
    }
    if n == 0 {
        return Some("zero".into());
    }
    let mut parts = Vec::new();
    for (s, word) in [(1_000_000_000, "billion"), (1_000_000, "million"), (1_000, "thousand")] {
        let group = (n / s) % 1000;
        if group > 0 {
            below_thousand(group, and, &mut parts);
            parts.push(word.into());
        }
    }
    let r = n % 1000;
    if r > 0 {
        if n >= 1000 && r < 100 && and {
            parts.push("and".into());
        }
        below_thousand(r, and, &mut parts);
    }
    Some(parts.join(" "))
}

/// Ordinal denominators as words: 2 → ("half", "halves"), 3 → ("third", "thirds"), ….
pub fn ordinal(d: u64) -> Option<(&'static str, &'static str)> {
    Some(match d {
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

/// The denominator an ordinal word names ("third", "thirds", "fourth", "quarter" → 3, 3, 4, 4).
pub fn parse_ordinal(w: &str) -> Option<u64> {
    let w = w.to_lowercase();
    if w == "fourth" || w == "fourths" {
        return Some(4);
    }
    (2..=100).find(|&d| ordinal(d).is_some_and(|(s, p)| s == w || p == w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        for (w, n) in [
            ("zero", 0),
            ("one", 1),
            ("fifty-five", 55),
            ("Sixty-six", 66),
            ("six hundred and sixty", 660),
            ("six hundred sixty", 660),
            ("a hundred and one", 101),
            ("one hundred", 100),
            ("twelve", 12),
            ("two thousand and five", 2005),
            ("four thousand eight hundred and six", 4806),
            ("seventy-two", 72),
            ("two million", 2_000_000),
            ("nine hundred and ninety-nine thousand", 999_000),
        ] {
            assert_eq!(parse(w), Some(n), "{w}");
        }
        assert_eq!(parse("a thousand"), Some(1000));
        assert_eq!(parse("a million and six"), Some(1_000_006));
        for bad in [
            "",
            "and",
            "fifty and",
            "five five",
            "twelve three",
            "hundred",
            "fifty-fifty",
            "sixty-twelve",
            "one and",
            "twenty zero",
            "twenty ten",
            "ten hundred",
            "zero thousand",
            "a",
            "a twenty",
            "fifty--five",
            "fifty-",
            "-fifty",
            "fifty - five",
            "twenty hundred",
            "eleven hundred thousand",
            "a dozen",
            "dozen",
            "a billion billion",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        for (w, n) in [
            ("eleven hundred", 1100),
            ("Twenty-five hundred", 2500),
            ("nineteen hundred and five", 1905),
            ("one billion", 1_000_000_000),
            ("three billion and seven", 3_000_000_007),
            ("fifty\u{2011}five", 55),
            ("fifty\u{a0}thousand", 50_000),
        ] {
            assert_eq!(parse(w), Some(n), "{w}");
        }
        let samples = [0u64, 7, 13, 20, 21, 99, 100, 101, 660, 1000, 1001, 4806, 37396, 1_000_000, 220_000_000, 999_999_999];
        for n in samples.into_iter().chain([1_000_000_001, 999_999_999_999]) {
            let w = format(n, true).unwrap();
            assert_eq!(parse(&w), Some(n), "{w}");
            let w = format(n, false).unwrap();
            assert_eq!(parse(&w), Some(n), "{w}");
        }
        assert_eq!(format(660, true).unwrap(), "six hundred and sixty");
        for (w, d) in [("fourth", 4), ("fourths", 4), ("Fourth", 4), ("quarter", 4), ("thirds", 3), ("hundredth", 100)] {
            assert_eq!(parse_ordinal(w), Some(d), "{w}");
        }
        assert_eq!(parse_ordinal("thirteenth"), None);
        // British "and" before a last part under a hundred, after a thousand or a million.
        assert_eq!(format(1005, true).unwrap(), "one thousand and five");
        assert_eq!(format(1005, false).unwrap(), "one thousand five");
        assert_eq!(format(2_000_099, true).unwrap(), "two million and ninety-nine");
        assert_eq!(format(1100, true).unwrap(), "one thousand one hundred");
        assert_eq!(format(1_000_100, true).unwrap(), "one million one hundred");
        assert_eq!(format(55, true).unwrap(), "fifty-five");
    }
}
