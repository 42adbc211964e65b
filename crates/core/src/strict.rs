//! `countersign check --strict`: numbers a reader sees that no claim covers, and
//! interpolations (which print a value but check nothing).
//!
//! Where: the body's prose (headings, tables, lists, footnotes, link text, citation
//! locators, the text of `[[…]]` links), link and image titles, math, figure captions and
//! alt text, and the front matter's `title` and `summary` — outside claims, code, raw HTML
//! and directive blocks. Every one of these places takes a claim or `{{ plain … }}`, so
//! every finding can be fixed where it stands.
//!
//! What: every number written with digits of any script (ASCII, fullwidth, Arabic-Indic,
//! …), superscripts, vulgar fractions and other numeric characters, with its separators and
//! decimal point; and every number word from "three" up ("fifty-five", "hundred",
//! "twelve"), also as a part of a hyphenated word (the "fifteen" of "fifteen-year" and of
//! "mid-fifteen"; "thirty‑three" with a no-break hyphen is one number).
//! "zero", "one" and "two" are too common in ordinary sentences to flag; for the same
//! reason ASCII digits right after a letter (`x2`, `H2O`) are not flagged. In math,
//! a formula's numbers are its own constants (`k + 1`, `2k`, `b \ge 3`); numbers are
//! flagged in math that holds no variable (`$37$`, `$(1, 2)$`, `$\langle 5, 7\rangle$`),
//! where the math only typesets numbers, from 3 up. A number that is not computed (a year,
//! a page, the rules of a game) is marked with `{{ plain 1954 }}`.
//!
//! When a flagged number equals a parameter or a value of one of the essay's bound
//! results, the hint names that path.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag};
use serde_json::Value;

use crate::check::{words, Bound};
use crate::content::claim::ClaimKind;
use crate::content::scan::markdown_options;
use crate::content::Essay;
use crate::diag::{Code, Diagnostic};

/// True for a whole word that is a number word `--strict` flags: "three" and up,
/// hyphenated compounds ("fifty-five") and scale words, in any case; "zero", "one" and
/// "two" alone are not. (Inside prose every part of a hyphenated word is looked at; see
/// [`number_words_in`].)
pub fn is_number_word(w: &str) -> bool {
    number_words_in(w).first().is_some_and(|r| *r == (0..w.len()))
}

/// How a region is read: as prose, or as math (where 0, 1 and 2 are left alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Prose,
    Math,
}

/// Uncovered numbers and interpolations in `essays`, as errors, in order of place.
/// `bound[i]`, when given, holds essay `i`'s bound results, for hints naming the path a
/// flagged number equals.
pub fn findings<B: std::borrow::Borrow<BTreeMap<String, Bound>>>(essays: &[Essay], bound: Option<&[B]>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, e) in essays.iter().enumerate() {
        let paths = bound.and_then(|b| b.get(i)).map(|b| Paths::new(b.borrow())).unwrap_or_default();
        let mut found = Vec::new();
        for c in &e.claims {
            if let ClaimKind::Interpolate { expr_span, .. } = &c.kind {
                let path = &e.source[expr_span.clone()];
                found.push(
                    Diagnostic::error(
                        Code::UncheckedInterpolation,
                        &e.file,
                        c.span.clone(),
                        format!("`{{{{ {path} }}}}` prints a value but checks nothing"),
                    )
                    .with_hint("state the value: {{ path = 523 }}, so that a change to the computation is caught"),
                );
            }
        }
        let covered: Vec<Range<usize>> = e.claims.iter().map(|c| c.span.clone()).collect();
        for (region, rule) in regions(e) {
            for span in numbers(&e.source, region, rule) {
                if !covered.iter().any(|r| r.start <= span.start && span.start < r.end) {
                    found.push(uncovered(e, span, &paths));
                }
            }
        }
        found.sort_by_key(|d| d.span.start);
        found.dedup_by(|a, b| a.span == b.span);
        out.extend(found);
    }
    out
}

/// The regions of `e`'s file a reader sees as text, with how each is read.
fn regions(e: &Essay) -> Vec<(Range<usize>, Rule)> {
    let body = &e.source[e.body.clone()];
    let base = e.body.start;
    let excluded = |at: usize| e.excluded.iter().any(|r| r.start <= at && at < r.end);
    let mut out: Vec<(Range<usize>, Rule)> = e.front.text_spans.iter().map(|r| (r.clone(), Rule::Prose)).collect();
    for f in &e.figures {
        out.push((f.caption_span.clone(), Rule::Prose));
        out.push((f.alt_span.clone(), Rule::Prose));
    }
    out.extend(e.math.iter().filter(|r| !has_variable(&e.source[(*r).clone()])).map(|r| (r.clone(), Rule::Math)));
    let mut parser = Parser::new_ext(body, markdown_options() | pulldown_cmark::Options::ENABLE_WIKILINKS).into_offset_iter();
    for (ev, range) in parser.by_ref() {
        match ev {
            Event::Text(_) if !excluded(base + range.start) => out.push((base + range.start..base + range.end, Rule::Prose)),
            Event::Start(Tag::Link { title, .. } | Tag::Image { title, .. }) if !title.is_empty() => {
                if let Some(at) = body[range.clone()].rfind(&*title) {
                    out.push((base + range.start + at..base + range.start + at + title.len(), Rule::Prose));
                }
            }
            _ => {}
        }
    }
    for (_, def) in parser.reference_definitions().iter() {
        if let Some(title) = def.title.as_deref().filter(|t| !t.is_empty()) {
            if let Some(at) = body[def.span.clone()].rfind(title) {
                out.push((base + def.span.start + at..base + def.span.start + at + title.len(), Rule::Prose));
            }
        }
    }
    out
}

/// True when the LaTeX `math` holds a variable: a letter outside a `\command` name (and
/// outside the `\label{…}`, `\text{…}` and claims it may hold).
fn has_variable(math: &str) -> bool {
    let mut chars = math.chars().peekable();
    let mut in_claim = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                while chars.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    chars.next();
                }
            }
            '{' if chars.peek() == Some(&'{') => in_claim = true,
            '}' if in_claim && chars.peek() == Some(&'}') => in_claim = false,
            c if c.is_alphabetic() && !in_claim => return true,
            _ => {}
        }
    }
    false
}

/// The spans of the numbers in `source[region]` that `rule` flags.
fn numbers(source: &str, region: Range<usize>, rule: Rule) -> Vec<Range<usize>> {
    let text = &source[region.clone()];
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |j: usize| chars.get(j).map_or(text.len(), |x| x.0);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (off, c) = chars[i];
        if c.is_numeric() {
            let mut j = i;
            while j < chars.len()
                && (chars[j].1.is_numeric()
                    || ((chars[j].1 == '.' || chars[j].1 == ',' && rule == Rule::Prose)
                        && chars.get(j + 1).is_some_and(|x| x.1.is_numeric())))
            {
                j += 1;
            }
            let written = &text[off..end_of(j)];
            // In math a comma separates numbers (`\\{0,1\\}`); in prose it groups digits.
            let after_letter = i > 0 && chars[i - 1].1.is_alphabetic() && c.is_ascii_digit();
            let formula_own = rule == Rule::Math && matches!(written, "0" | "1" | "2");
            if !after_letter && !formula_own {
                out.push(region.start + off..region.start + end_of(j));
            }
            i = j;
        } else if rule == Rule::Prose && c == '@' && opens_reference(&source[..region.start + off]) {
            // A citation key or a figure's or equation's id (`[@fig:three]`): the reader
            // sees "Figure 2" or the reference, never the key.
            i += 1;
            while i < chars.len() && (chars[i].1.is_alphanumeric() || "_:.-".contains(chars[i].1)) {
                i += 1;
            }
        } else if c.is_alphabetic() {
            let mut j = i;
            while j < chars.len() && (chars[j].1.is_alphabetic() || HYPHENS.contains(&chars[j].1)) {
                j += 1;
            }
            let word = &text[off..end_of(j)];
            // In math, letters are variables and commands, not words.
            if rule == Rule::Prose {
                let at = region.start + off;
                out.extend(number_words_in(word).into_iter().map(|r| at + r.start..at + r.end));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The hyphens that join the parts of a word: ASCII `-`, U+2010 and the no-break U+2011.
const HYPHENS: [char; 3] = ['-', '\u{2010}', '\u{2011}'];

/// The number words in a word and its hyphenated parts, as byte ranges of `word`: a tens
/// word joined to a unit is one number (`fifty-five`, `thirty‑three`), every other part
/// worth three or more is one alone (the `fifteen` of `fifteen-year` and of
/// `mid-fifteen`, the `three` of `non-three` and of `one-three`, the `twenty-five` of
/// `twenty-five-coin`); none in `one-two` or `threefold`.
fn number_words_in(word: &str) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c) in word.char_indices().filter(|(_, c)| HYPHENS.contains(c)) {
        parts.push(start..i);
        start = i + c.len_utf8();
    }
    parts.push(start..word.len());
    let lower = |r: &Range<usize>| word[r.clone()].to_lowercase();
    let mut out = Vec::new();
    let mut k = 0;
    while k < parts.len() {
        let part = lower(&parts[k]);
        if words::is_tens(&part) && parts.get(k + 1).is_some_and(|next| words::is_digit_word(&lower(next))) {
            out.push(parts[k].start..parts[k + 1].end);
            k += 2;
            continue;
        }
        if words::is_word_from_three(&part) {
            out.push(parts[k].clone());
        }
        k += 1;
    }
    out
}

/// True when the text before an `@` opens a reference: `[@`, `[-@` or `; @` inside one.
fn opens_reference(before: &str) -> bool {
    let before = before.trim_end();
    before.ends_with('[') || before.ends_with("[-") || before.ends_with(';')
}

/// The paths of the numbers in an essay's parameters and results, by value (digits
/// without separators), a few per value; results are walked to a bounded number of
/// nodes, so a huge result costs no more than a small one.
#[derive(Default)]
struct Paths {
    by_value: HashMap<String, Vec<String>>,
}

impl Paths {
    const MAX_NODES: usize = 200_000;
    const PER_VALUE: usize = 3;

    fn new(bound: &BTreeMap<String, Bound>) -> Paths {
        let mut p = Paths::default();
        let mut budget = Self::MAX_NODES;
        for (id, b) in bound {
            p.walk(&b.params, format!("{id}.with"), &mut budget);
        }
        for (id, b) in bound {
            p.walk(&b.result, id.clone(), &mut budget);
        }
        p
    }

    fn walk(&mut self, v: &Value, path: String, budget: &mut usize) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        match v {
            Value::Number(n) => {
                let paths = self.by_value.entry(n.to_string()).or_default();
                if paths.len() < Self::PER_VALUE {
                    paths.push(path);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    self.walk(x, format!("{path}[{i}]"), budget);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    self.walk(x, format!("{path}.{k}"), budget);
                }
            }
            _ => {}
        }
    }

    /// The paths whose value is the number `written` (digits, or a number word).
    fn of(&self, written: &str) -> &[String] {
        let key = if written.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.') {
            written.replace(',', "")
        } else {
            match crate::check::words::parse(written) {
                Some(n) => n.to_string(),
                None => return &[],
            }
        };
        self.by_value.get(&key).map_or(&[], Vec::as_slice)
    }
}

fn uncovered(e: &Essay, span: Range<usize>, paths: &Paths) -> Diagnostic {
    let text = e.source[span.clone()].to_string();
    let hint = match paths.of(&text) {
        [] => format!("tie it to a census with {{{{ id.path = {text} }}}}, or mark it as not computed with {{{{ plain {text} }}}}"),
        found => format!(
            "it equals {}: write {{{{ {} = {text} }}}} if that is the number meant, or mark it as not computed with {{{{ plain {text} }}}}",
            found.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", "),
            found[0]
        ),
    };
    // A claim's braces would make a YAML map of an unquoted value: say to quote it.
    let hint = if span.start < e.body.start {
        format!("{hint}; in front matter, quote the whole value: `title: \"… {{{{ … }}}} …\"`")
    } else {
        hint
    };
    Diagnostic::error(Code::UncoveredNumber, &e.file, span, format!("`{text}` is a number no claim covers"))
        .with_label("not checked")
        .with_hint(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(src: &str) -> Vec<String> {
        let (essay, d) = crate::content::parse_essay("e.md", "e.md".into(), src.to_string());
        assert!(d.is_empty(), "{d:?}");
        let essay = essay.unwrap();
        findings::<BTreeMap<String, Bound>>(std::slice::from_ref(&essay), None)
            .iter()
            .map(|d| essay.source[d.span.clone()].to_string())
            .collect()
    }

    #[test]
    fn a_number_in_front_matter_is_told_to_be_quoted_and_one_in_prose_is_not() {
        let src = "---\ntitle: Nim on 3 heaps\n---\nAnd 4 more.\n";
        let (essay, d) = crate::content::parse_essay("e.md", "e.md".into(), src.to_string());
        assert!(d.is_empty(), "{d:?}");
        let found = findings::<BTreeMap<String, Bound>>(std::slice::from_ref(&essay.unwrap()), None);
        let hints: Vec<String> = found.iter().map(|d| d.notes.join(" ")).collect();
        assert_eq!(hints.len(), 2, "{hints:?}");
        assert!(hints[0].contains("quote the whole value"), "{hints:?}");
        assert!(!hints[1].contains("quote"), "{hints:?}");
    }

    #[test]
    fn reference_keys_are_not_read_as_numbers_but_locators_are() {
        let src = "---\ntitle: T\n---\nSee [@fig:three], [@eq:two-4], [-@conway1976] and [@a2; @b7, p. 194].\n";
        assert_eq!(flagged(src), ["194"]);
    }

    #[test]
    fn number_words() {
        for w in ["three", "Fifty-five", "hundred", "twenty-one", "twelve"] {
            assert!(is_number_word(w), "{w}");
            assert_eq!(number_words_in(w).len(), 1, "{w}");
        }
        for w in ["one", "two", "zero", "threefold", "often", "one-two"] {
            assert!(number_words_in(w).is_empty() && !is_number_word(w), "{w}");
        }
    }

    /// A number word in a hyphenated word is a number the reader sees: `a fifteen-year
    /// gap`, `the six-coin example`, `non-three` and `mid-fifteen` were passed by
    /// `--strict`, `one-three` was read as one number and `thirty‑three` (no-break hyphen)
    /// as two words.
    #[test]
    fn a_number_word_before_a_hyphen_is_flagged() {
        let src = "---\ntitle: T\n---\nA fifteen-year gap, the six-coin example, twenty-five-heap Nim, one-heap and \
                   {{ plain three }}-way; non-three, mid-fifteen, one-three, thirty\u{2011}three, forty-fifty, one-two.\n";
        assert_eq!(flagged(src), ["fifteen", "six", "twenty-five", "three", "fifteen", "three", "thirty\u{2011}three", "forty", "fifty"]);
    }

    #[test]
    fn finds_uncovered_numbers_only_in_prose() {
        let src = "---\ntitle: T\n---\nWe saw 523 positions and {{ plain 1954 }} and {{ a.b = 12 }}; fifty-five `77` $x_2$ and one.\n\n```census\nid: a\nrun: x\nwith: {n: 9}\n```\n{{ a.c }}\n";
        let (essay, d) = crate::content::parse_essay("e.md", "e.md".into(), src.to_string());
        assert!(d.is_empty(), "{d:?}");
        let f = findings::<BTreeMap<String, Bound>>(&[essay.unwrap()], None);
        let msgs: Vec<&str> = f.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs[0].contains("`523`"));
        assert!(msgs[1].contains("`fifty-five`"));
        assert!(msgs[2].contains("checks nothing"));
    }

    #[test]
    fn every_place_a_reader_sees_is_scanned() {
        let src = "---\ntitle: Nim on 7 heaps\nsummary: About twelve of them.\n---\n\
                   See [it](https://x.org/p/123 \"page 44\") and ![a 5](i.png).\n\n\
                   Math $k + 1 = 3$ and $37$ and $(1, 2)$; ３ and ٣ and x² and ½; [@onag, p. 194].\n\n\
                   ```figure\nid: f\nfrom: g\nplot: grid\ncaption: Heaps up to 420.\nalt: Eleven cells.\n```\n";
        assert_eq!(flagged(src), ["7", "twelve", "44", "5", "37", "３", "٣", "²", "½", "194", "420", "Eleven"]);
    }

    #[test]
    fn every_finding_can_be_covered_where_it_stands() {
        let src = "---\ntitle: \"Nim on {{ plain 7 }} heaps\"\nsummary: About {{ plain twelve }} of them.\n---\n\
                   See [it](https://x.org/p/123 \"page {{ plain 44 }}\") and ![a {{ plain 5 }}](i.png).\n\n\
                   Math ${{ plain 37 }}$; {{ plain ３ }} and {{ plain 1 }}st; [@onag, p. {{ plain 194 }}].\n\n\
                   ```figure\nid: f\nfrom: g\nplot: grid\ncaption: Heaps up to {{ plain 420 }}.\nalt: \"{{ plain Eleven }} cells.\"\n```\n";
        assert_eq!(flagged(src), Vec::<String>::new());
    }

    #[test]
    fn hints_name_the_path_a_number_equals() {
        let mut bound = BTreeMap::new();
        let result = serde_json::json!({ "positions": 523, "by": [1, 40] });
        bound.insert(
            "g".to_string(),
            Bound { id: "g".into(), census: "c".into(), params: serde_json::json!({ "n": 40 }), result: result.into() },
        );
        let (essay, _) = crate::content::parse_essay("e.md", "e.md".into(), "---\ntitle: T\n---\n523 and 40 and 1,000\n".into());
        let f = findings(&[essay.unwrap()], Some(&[bound]));
        assert!(f[0].notes.join(" ").contains("`g.positions`"), "{:?}", f[0].notes);
        assert!(f[1].notes.join(" ").contains("`g.with.n`, `g.by[1]`"), "{:?}", f[1].notes);
        assert!(!f[2].notes.join(" ").contains("equals"), "{:?}", f[2].notes);
    }
}
