//! `countersign explain [CODE]`: what a diagnostic code means and what to do, as
//! `rustc --explain` prints an error code's page. The text is the code's section of the
//! guide's "Diagnostic codes" page, compiled into the binary, so the command and the guide
//! cannot disagree (a test in `countersign-core` demands one section per code).

use std::fmt::Write as _;

use countersign_core::diag::Code;

use super::{Failure, Outcome};
use crate::console::{err, out};

/// The guide's page of diagnostic codes, one `` ### `code` `` section each.
const GUIDE: &str = include_str!("../../docs/guide/essays/diagnostics.md");

/// Print the explanation of `code`, or, without one, every code with its one-line summary.
/// An unknown code is a usage error (exit 2), with the nearest code's name as a hint.
pub fn run(code: Option<&str>) -> Outcome {
    let Some(name) = code else {
        out(&index());
        return Ok(());
    };
    match Code::from_name(name.trim()) {
        Some(c) => {
            out(&explanation(c));
            Ok(())
        }
        None => {
            let mut message = format!("error: `{}` is not a diagnostic code\n", shown(name));
            if let Some(near) = nearest(&name.trim().to_lowercase().replace('_', "-")) {
                let _ = writeln!(message, "hint: did you mean `{}`?", near.as_str());
            }
            message.push_str("hint: `countersign explain` lists every code\n");
            err(&message);
            Err(Failure::Usage)
        }
    }
}

/// Every code and its summary, a line each, in the guide's order.
fn index() -> String {
    let width = Code::ALL.iter().map(|c| c.as_str().len()).max().unwrap_or(0);
    let mut s = String::new();
    for c in Code::ALL {
        let _ = writeln!(s, "{:width$}  {}", c.as_str(), c.summary());
    }
    s.push_str("\n`countersign explain CODE` explains one.\n");
    s
}

/// The code's name and summary, then its section of the guide as plain text.
pub fn explanation(code: Code) -> String {
    let section = section(GUIDE, code.as_str()).unwrap_or("");
    format!("{}: {}\n\n{}\n", code.as_str(), code.summary(), plain(section).trim_end())
}

/// The body of the `` ### `name` `` section of `guide`: the lines after its heading, up
/// to the next heading.
fn section<'g>(guide: &'g str, name: &str) -> Option<&'g str> {
    let heading = format!("### `{name}`\n");
    let start = guide.find(&heading)? + heading.len();
    let rest = &guide[start..];
    let end = rest.match_indices("\n#").map(|(i, _)| i + 1).next().unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The guide's Markdown for a terminal: outside code spans, a cross-reference
/// `[[Page#part|text]]` becomes its text (or the page's title), and a `{{ plain N }}` claim
/// its words; a code span (`` `{{ plain 1954 }}` ``, syntax the guide shows) stays as written.
fn plain(markdown: &str) -> String {
    markdown.split('`').enumerate().map(|(i, part)| if i % 2 == 1 { part.to_string() } else { prose(part) }).collect::<Vec<_>>().join("`")
}

/// [`plain`] on text outside code spans.
fn prose(markdown: &str) -> String {
    let mut s = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some((open, token)) = next_token(rest) {
        s.push_str(&rest[..open]);
        let after = &rest[open + token.len()..];
        let close = if token == "[[" { "]]" } else { "}}" };
        let Some(end) = after.find(close) else {
            s.push_str(&rest[open..]);
            return s;
        };
        let inner = &after[..end];
        if token == "[[" {
            let (target, text) = inner.split_once('|').unwrap_or((inner, inner));
            s.push_str(if text == target { target.split('#').next().unwrap_or(target) } else { text });
        } else {
            s.push_str(inner.trim());
        }
        rest = &after[end + 2..];
    }
    s.push_str(rest);
    s
}

/// Where the next `[[` or `{{ plain ` of `text` starts, and which it is (any other `{{`
/// is the guide showing a claim's syntax, and stays).
fn next_token(text: &str) -> Option<(usize, &'static str)> {
    let link = text.find("[[").map(|i| (i, "[["));
    let claim = text.find("{{ plain ").map(|i| (i, "{{ plain "));
    match (link, claim) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// `name` as an error may print it: control and invisible characters escaped, at most 60
/// characters (a terminal must not act on what a user typed, nor show pages of it).
fn shown(name: &str) -> String {
    let escaped: String = name
        .chars()
        .flat_map(|c| {
            if c.is_ascii_graphic() || c == ' ' || c.is_alphanumeric() {
                c.to_string().chars().collect::<Vec<_>>()
            } else {
                c.escape_unicode().collect()
            }
        })
        .collect();
    match escaped.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &escaped[..at]),
        None => escaped,
    }
}

/// The code whose name is nearest `name` by edit distance, if it is within three edits.
fn nearest(name: &str) -> Option<Code> {
    Code::ALL.iter().copied().map(|c| (strsim::levenshtein(c.as_str(), name), c)).filter(|(d, _)| *d <= 3).min().map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_section_and_explains_it_in_plain_text() {
        for &c in Code::ALL {
            let body = section(GUIDE, c.as_str()).unwrap_or_else(|| panic!("no section for {}", c.as_str()));
            assert!(!body.trim().is_empty() && !body.contains("\n### "), "{}", c.as_str());
            let text = explanation(c);
            assert!(text.starts_with(&format!("{}: {}\n\n", c.as_str(), c.summary())), "{text}");
            assert!(!text.contains("[["), "{text}");
        }
    }

    #[test]
    fn a_section_ends_at_the_next_heading() {
        let guide = "## A\n\n### `x`\nOne.\n\nTwo.\n\n### `y`\nThree.\n## B\n### `z`\nFour.\n";
        assert_eq!(section(guide, "x"), Some("One.\n\nTwo.\n\n"));
        assert_eq!(section(guide, "y"), Some("Three.\n"));
        assert_eq!(section(guide, "z"), Some("Four.\n"));
        assert_eq!(section(guide, "w"), None);
    }

    #[test]
    fn cross_references_and_plain_claims_read_as_text() {
        assert_eq!(plain("See [[The configuration]] and [[Files#front-matter|front matter]]."), "See The configuration and front matter.");
        assert_eq!(plain("more than {{ plain 64 }} levels, {{ plain a million }}"), "more than 64 levels, a million");
        assert_eq!(plain("`{{` alone, [[open"), "`{{` alone, [[open");
        assert_eq!(plain("between `{{` and `}}`, {{ s.a = 1 }}"), "between `{{` and `}}`, {{ s.a = 1 }}");
        assert_eq!(plain("[[Census blocks#with]]"), "Census blocks");
        assert_eq!(plain("or mark it `{{ plain 1954 }}`, as [[Claims]] says"), "or mark it `{{ plain 1954 }}`, as Claims says");
        assert!(explanation(Code::UncoveredNumber).contains("`{{ plain 1954 }}`"));
    }

    #[test]
    fn a_misspelt_code_is_answered_with_the_nearest() {
        assert_eq!(nearest("claim-mismach"), Some(Code::ClaimMismatch));
        assert_eq!(nearest("unbound-ids"), Some(Code::UnboundId));
        assert_eq!(nearest("qqqqqqqqqqqq"), None);
        assert_eq!(shown("claim\u{1b}[31m-x\u{200b}"), "claim\\u{1b}[31m-x\\u{200b}");
        assert_eq!(shown(&"x".repeat(100)), format!("{}…", "x".repeat(60)));
    }
}
