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
/// "hundred", "thousand", "million" (lower case).
pub fn is_word_from_three(w: &str) -> bool {
    UNITS[3..].contains(&w) || TENS[2..].contains(&w) || matches!(w, "hundred" | "thousand" | "million")
}

/// The value of a number word phrase, case-insensitive, hyphens or spaces between parts,
/// "and" allowed after hundreds and after a scale word, "a" standing for one before
/// "hundred", "thousand" or "million". Up to the millions (< 10^9). `None` when it is not
/// such a phrase.
pub fn parse(text: &str) -> Option<u64> {
    let lower = text.trim().to_lowercase();
    let t: Vec<&str> = lower.split(|c: char| c == '-' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
    if t.len() == 1 && t[0] == "zero" {
        return Some(0);
    }
    let unit = |w: &str| UNITS.iter().position(|u| *u == w).filter(|&u| u > 0).map(|u| u as u64);
    let tens = |w: &str| TENS.iter().position(|u| !u.is_empty() && *u == w).map(|u| 10 * u as u64);
    let scale = |w: Option<&&str>| matches!(w, Some(&"hundred") | Some(&"thousand") | Some(&"million"));
    // One chunk below a thousand, starting at t[i]; returns (value, next index).
    let chunk = |mut i: usize| -> Option<(u64, usize)> {
        let mut v = 0;
        let mut any = false;
        let lead = if t.get(i) == Some(&"a") && scale(t.get(i + 1)) { Some(1) } else { t.get(i).and_then(|w| unit(w)).filter(|&u| u < 10) };
        if let (Some(u), Some(&"hundred")) = (lead, t.get(i + 1)) {
            v = u * 100;
            i += 2;
            any = true;
            if t.get(i) == Some(&"and") {
                i += 1;
                if !t.get(i).is_some_and(|w| unit(w).is_some() || tens(w).is_some()) {
                    return None;
                }
            }
        } else if t.get(i) == Some(&"a") && scale(t.get(i + 1)) {
            return Some((1, i + 1));
        }
        if let Some(tn) = t.get(i).and_then(|w| tens(w)) {
            v += tn;
            i += 1;
            any = true;
            if let Some(u) = t.get(i).and_then(|w| unit(w)).filter(|&u| u < 10) {
                v += u;
                i += 1;
            }
        } else if let Some(u) = t.get(i).and_then(|w| unit(w)) {
            v += u;
            i += 1;
            any = true;
        }
        any.then_some((v, i))
    };
    let mut total = 0u64;
    let mut i = 0;
    let mut last_scale = u64::MAX;
    loop {
        let (c, next) = chunk(i)?;
        i = next;
        match t.get(i) {
            None => return Some(total + c),
            Some(&w @ ("thousand" | "million")) => {
                let s = if w == "thousand" { 1_000 } else { 1_000_000 };
                if s >= last_scale {
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
            Some(_) => return None,
        }
    }
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
/// ("fifty-five"). `None` from a billion up.
pub fn format(n: u64, and: bool) -> Option<String> {
    if n >= 1_000_000_000 {
        return None;
    }
    if n == 0 {
        return Some("zero".into());
    }
    let mut parts = Vec::new();
    let m = n / 1_000_000;
    let t = (n / 1000) % 1000;
    let r = n % 1000;
    if m > 0 {
        below_thousand(m, and, &mut parts);
        parts.push("million".into());
    }
    if t > 0 {
        below_thousand(t, and, &mut parts);
        parts.push("thousand".into());
    }
    if r > 0 {
        if (m > 0 || t > 0) && r < 100 && and {
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
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        for n in [0u64, 7, 13, 20, 21, 99, 100, 101, 660, 1000, 1001, 4806, 37396, 1_000_000, 220_000_000, 999_999_999] {
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
