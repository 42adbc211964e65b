//! Footnote references that no note defines. The Markdown parser leaves `[^label]` as its
//! literal text when the essay has no `[^label]: …`, so the page would show the brackets
//! and lose the note without a word; [`undefined_references`] finds each such reference.

use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};

use crate::diag::{Code, Diagnostic};

/// One error ([`Code::UndefinedFootnote`]) per footnote reference in `body` (an essay's
/// Markdown after its front matter, starting at byte `offset` of `file`) that the parser
/// left as text because no note has its label. Text in code blocks is not looked at (code
/// spans are not text events). Spans are byte ranges of `file`, `[` to `]`.
pub fn undefined_references(file: &str, body: &str, offset: usize) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    // Runs of adjacent text events: the parser may split `[^x]` into `[`, `^x`, `]`.
    let mut run: Vec<(String, Range<usize>)> = Vec::new();
    let mut in_code = false;
    let mut in_autolink = false;
    for (event, range) in Parser::new_ext(body, super::scan::markdown_options()).into_offset_iter() {
        match event {
            Event::Text(t) if !in_code && !in_autolink => {
                run.push((t.into_string(), range));
                continue;
            }
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Start(Tag::Link { link_type: LinkType::Autolink | LinkType::Email, .. }) => in_autolink = true,
            Event::End(TagEnd::Link) => in_autolink = false,
            _ => {}
        }
        scan_run(&std::mem::take(&mut run), &mut found);
    }
    scan_run(&run, &mut found);
    // Only what the source writes as it stands: `\[^a]` and `[^a\]` are escaped text.
    found.retain(|(label, span)| {
        let backslashes = body[..span.start].bytes().rev().take_while(|&b| b == b'\\').count();
        backslashes % 2 == 0 && body.get(span.clone()) == Some(format!("[^{label}]").as_str())
    });
    found
        .into_iter()
        .map(|(label, span)| {
            let span = span.start + offset..span.end + offset;
            Diagnostic::error(Code::UndefinedFootnote, file, span, format!("footnote `[^{label}]` has no note"))
                .with_label("referred to here")
                .with_hint(format!("write the note on a line of its own: `[^{label}]: …`, or correct the label"))
        })
        .collect()
}

/// Each `[^label]` in the concatenated text of `run`, with its span in the source.
fn scan_run(run: &[(String, Range<usize>)], found: &mut Vec<(String, Range<usize>)>) {
    if !run.iter().any(|(t, _)| t.contains('^')) {
        return;
    }
    // Each character's source offset: a text event's characters map into its range when
    // its text is the source (no escape was resolved), else all to its start.
    let mut text = String::new();
    let mut at: Vec<(usize, usize)> = Vec::new(); // (byte in `text`, source start)
    for (t, r) in run {
        let verbatim = r.len() == t.len();
        for (i, _) in t.char_indices() {
            at.push((text.len() + i, if verbatim { r.start + i } else { r.start }));
        }
        text.push_str(t);
    }
    let source_of = |byte: usize| at.iter().rev().find(|(b, _)| *b <= byte).map_or(0, |&(_, s)| s);
    let mut from = 0;
    while let Some(open) = text[from..].find("[^").map(|i| i + from) {
        let rest = &text[open + 2..];
        let len = rest.find(|c: char| c == ']' || c == '[' || c.is_whitespace()).unwrap_or(rest.len());
        if len > 0 && rest[len..].starts_with(']') {
            let close = open + 2 + len;
            found.push((rest[..len].to_string(), source_of(open)..source_of(close) + 1));
            from = close + 1;
        } else {
            from = open + 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(body: &str) -> Vec<(String, &str)> {
        undefined_references("e.md", body, 0).into_iter().map(|d| (d.message.clone(), &body[d.span.clone()])).collect()
    }

    #[test]
    fn a_reference_with_no_note_is_an_error_at_its_brackets() {
        let found = spans("One.[^a] Two.[^nope] Three.\n\n[^a]: The note.\n");
        assert_eq!(found, vec![("footnote `[^nope]` has no note".to_string(), "[^nope]")]);
    }

    #[test]
    fn defined_notes_code_and_plain_carets_are_left_alone() {
        assert!(spans("A[^n] and [^N].\n\n[^n]: note\n").is_empty(), "labels match ignoring case");
        assert!(spans("`[^x]` and\n\n```\n[^y]\n```\n\n2^10 and [a]^b\n").is_empty());
        assert!(spans("[^ spaced] and [^]\n").is_empty(), "not a footnote label");
        assert!(spans("\\[^a] and [^b\\] and <https://e.org/[^g]>\n\n[^a]: note\n").is_empty(), "escaped, or in an autolink");
    }

    #[test]
    fn references_in_emphasis_lists_and_notes_are_found() {
        let found = spans("*a [^e] b*\n\n- item [^l]\n\n[^d]: a note citing [^z]\n");
        let texts: Vec<&str> = found.iter().map(|(_, s)| *s).collect();
        assert_eq!(texts, vec!["[^e]", "[^l]", "[^z]"]);
    }
}
