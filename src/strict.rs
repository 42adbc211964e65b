//! `countersign check --strict`: numbers in prose that no claim covers, and
//! interpolations (which print a value but check nothing).
//!
//! Flagged: every run of digits (with its separators and decimal point) and every number
//! word from "three" up ("fifty-five", "hundred", "twelve"), in prose outside claims,
//! code, raw HTML, math, directive blocks and front matter. "zero", "one" and "two" are
//! too common in ordinary sentences to flag. A number that is not computed (a year, a
//! section number, the rules of a game) is marked with `{{ plain 1954 }}`.

use pulldown_cmark::{Event, Parser};

use crate::content::claim::ClaimKind;
use crate::content::scan::markdown_options;
use crate::content::Essay;
use crate::diag::{Code, Diagnostic};

/// True for a number word `--strict` flags: "three" and up, hyphenated compounds
/// ("fifty-five") and scale words, in any case; "zero", "one" and "two" alone are not.
pub fn is_number_word(w: &str) -> bool {
    let lower = w.to_lowercase();
    let flagged = |p: &str| crate::check::words::is_word_from_three(p);
    lower.split('-').all(|p| flagged(p) || matches!(p, "one" | "two")) && lower.split('-').any(flagged)
}

/// Uncovered numbers and interpolations in `essays`, as errors.
pub fn findings(essays: &[Essay]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in essays {
        let covered: Vec<std::ops::Range<usize>> = e.claims.iter().map(|c| c.span.clone()).collect();
        let inside = |at: usize| covered.iter().chain(e.excluded.iter()).any(|r| r.start <= at && at < r.end);
        for c in &e.claims {
            if let ClaimKind::Interpolate { path, .. } = &c.kind {
                out.push(
                    Diagnostic::error(Code::UncheckedInterpolation, &e.file, c.span.clone(), format!("`{{{{ {path} }}}}` prints a value but checks nothing"))
                        .with_hint("state the value: {{ path = 523 }}, so that a change to the computation is caught"),
                );
            }
        }
        let body = &e.source[e.body.clone()];
        let base = e.body.start;
        for (ev, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
            let Event::Text(_) = ev else { continue };
            let text = &body[range.clone()];
            let start = base + range.start;
            let mut i = 0;
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            while i < chars.len() {
                let (off, c) = chars[i];
                let at = start + off;
                if c.is_ascii_digit() {
                    let mut j = i;
                    while j < chars.len()
                        && (chars[j].1.is_ascii_digit()
                            || ((chars[j].1 == ',' || chars[j].1 == '.') && chars.get(j + 1).is_some_and(|x| x.1.is_ascii_digit())))
                    {
                        j += 1;
                    }
                    let end = start + chars.get(j).map(|x| x.0).unwrap_or(text.len());
                    let prev_alpha = i > 0 && chars[i - 1].1.is_alphabetic();
                    if !inside(at) && !prev_alpha {
                        out.push(uncovered(e, at..end));
                    }
                    i = j;
                } else if c.is_alphabetic() {
                    let mut j = i;
                    while j < chars.len() && (chars[j].1.is_alphabetic() || chars[j].1 == '-') {
                        j += 1;
                    }
                    let end = start + chars.get(j).map(|x| x.0).unwrap_or(text.len());
                    let word = e.source[at..end].trim_end_matches('-');
                    if is_number_word(word) && !inside(at) {
                        out.push(uncovered(e, at..at + word.len()));
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
        }
    }
    out
}

fn uncovered(e: &Essay, span: std::ops::Range<usize>) -> Diagnostic {
    let text = e.source[span.clone()].to_string();
    Diagnostic::error(Code::UncoveredNumber, &e.file, span, format!("`{text}` is a number no claim covers"))
        .with_label("not checked")
        .with_hint(format!("tie it to a census with {{{{ id.path = {text} }}}}, or mark it as not computed with {{{{ plain {text} }}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_words() {
        for w in ["three", "Fifty-five", "hundred", "twenty-one", "twelve"] {
            assert!(is_number_word(w), "{w}");
        }
        for w in ["one", "two", "zero", "threefold", "often", "one-two"] {
            assert!(!is_number_word(w), "{w}");
        }
    }

    #[test]
    fn finds_uncovered_numbers_only_in_prose() {
        let src = "---\ntitle: T\n---\nWe saw 523 positions and {{ plain 1954 }} and {{ a.b = 12 }}; fifty-five `77` $x_3$ and one.\n\n```census\nid: a\nrun: x\nwith: {n: 9}\n```\n{{ a.c }}\n";
        let (essay, d) = crate::content::parse_essay("e.md", "e.md".into(), src.to_string());
        assert!(d.is_empty(), "{d:?}");
        let f = findings(&[essay.unwrap()]);
        let msgs: Vec<&str> = f.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].contains("checks nothing"));
        assert!(msgs[1].contains("`523`"));
        assert!(msgs[2].contains("`fifty-five`"));
    }
}
