//! Claims in the short texts an essay keeps outside its Markdown body: the front matter's
//! `title` and `summary`, a figure's `caption` and `alt`. Each is a YAML value; its claims
//! are found in the value as written (so their spans point into the file) and checked like
//! any other. Where the text is shown as plain text (a page's `<title>`, the index, the
//! feed, an SVG's title, an image's alt text) a claim reads as its stated text.

use std::ops::Range;

use super::claim::{Claim, ClaimKind, ClaimSyntaxError};
use crate::diag::Code;

/// Claims written in `region` of `text` (which lies at `base` in the file). Syntax errors
/// come back as errors; the claims are in order.
pub fn claims_in(text: &str, region: Range<usize>, base: usize) -> (Vec<Claim>, Vec<ClaimSyntaxError>) {
    let (mut claims, mut errors) = (Vec::new(), Vec::new());
    let inside = &text[region.clone()];
    super::scan::claims_where(inside, base + region.start, |_| false, &mut claims, &mut errors);
    (claims, errors)
}

/// The text a claim shows where only plain text can go: the stated text of a check, the
/// text of `plain`. Interpolations and asserts have none (an error at the claim: `what`
/// names the place, e.g. "the title").
pub fn plain_text(claim: &Claim, what: &str) -> Result<String, ClaimSyntaxError> {
    match &claim.kind {
        ClaimKind::Check { stated, .. } => Ok(stated.clone()),
        ClaimKind::Plain { text } => Ok(text.clone()),
        _ => Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: format!("a claim in {what} must state its value"),
            span: claim.span.clone(),
            hint: "write {{ id.path = value }} (checked) or {{ plain … }} here; an interpolation or an assert has no text to show in it"
                .into(),
        }),
    }
}

/// `decoded` (the YAML value as parsed) with each of `claims` (found in the value as
/// written; `source` is the file) replaced by its plain text. Error: a claim whose text the
/// YAML changed (escapes in a quoted string), or one without plain text.
pub fn substitute(decoded: &str, claims: &[Claim], source: &str, what: &str) -> Result<String, ClaimSyntaxError> {
    let mut out = String::with_capacity(decoded.len());
    let mut rest = decoded;
    for c in claims {
        let written = &source[c.span.clone()];
        let Some(at) = rest.find(written) else {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: format!("this claim in {what} cannot be read: the YAML string changes its text"),
                span: c.span.clone(),
                hint: "write the claim on one line, without escapes, in a plain or single-quoted string".into(),
            });
        };
        out.push_str(&rest[..at]);
        out.push_str(&plain_text(c, what)?);
        rest = &rest[at + written.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `found` without the claims an error of `errors` is at: a claim reported unreadable is
/// not also checked (a multi-line claim in a YAML block scalar was `claim-syntax` and a
/// mismatch too, and `--bless` rewrote it).
pub fn drop_unread(found: &mut Vec<Claim>, errors: &[ClaimSyntaxError]) {
    found.retain(|c| !errors.iter().any(|e| e.span == c.span));
}

/// The plain text of a short Markdown text (a caption or alt text, claims already
/// replaced): emphasis and links dropped, code and math kept as written, line breaks as
/// spaces. For alt text and an SVG's title.
pub fn strip_markdown(text: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::with_capacity(text.len());
    for ev in Parser::new_ext(text, super::scan::markdown_options()) {
        match ev {
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => out.push_str(&t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::End(pulldown_cmark::TagEnd::Paragraph) if !out.is_empty() => out.push(' '),
            _ => {}
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_found_in_a_region() {
        let yaml = "title: A {{ plain 3 }}\nsummary: x\n";
        let (claims, errors) = claims_in(yaml, 6..22, 100);
        assert!(errors.is_empty());
        assert_eq!(claims[0].span, 109..122);
    }

    /// A claim the YAML changed (over lines of a block scalar, or escaped) is one
    /// `claim-syntax` error and not a claim: it was also checked, so reported twice, and
    /// `--bless` rewrote it.
    #[test]
    fn a_claim_a_yaml_value_changes_is_an_error_and_not_checked() {
        for caption in ["|-\n  A {{ s.n\n  = 4 }} b", ">-\n  A {{ s.n\n  = 4 }} b", "\"A {{ s.n\n  = 4 }} b\""] {
            let front = format!("---\ntitle: T\nsummary: {caption}\n---\n\nText.\n");
            let figure = format!("---\ntitle: T\n---\n\n```figure\nid: f\nfrom: s.x\nplot: grid\nalt: A\ncaption: {caption}\n```\n");
            for src in [front, figure] {
                let (e, d) = crate::content::parse_essay("essays/t.md", "essays/t.md".into(), src.clone());
                assert_eq!(d.len(), 1, "{src:?}: {d:?}");
                assert_eq!(d[0].code, Code::ClaimSyntax, "{src:?}: {d:?}");
                assert!(e.is_none_or(|e| e.claims.is_empty()), "{src:?}: the claim is still checked");
            }
        }
    }

    #[test]
    fn substitution_keeps_every_other_character() {
        let src = "title: \u{E000}x {{ plain 3 }} y\u{E001}";
        let (claims, _) = claims_in(src, 6..src.len(), 0);
        let out = substitute("\u{E000}x {{ plain 3 }} y\u{E001}", &claims, src, "the title").unwrap();
        assert_eq!(out, "\u{E000}x 3 y\u{E001}");
        assert!(substitute("x {{ plain  3 }}", &claims, src, "the title").is_err());
        assert_eq!(strip_markdown("*Two* `c` and $x_1$\nnext"), "Two c and x_1 next");
    }
}
