//! One essay's Markdown body to HTML, with claims, figures and math substituted.
//!
//! Claims are replaced by placeholders (private-use characters around an index) before
//! Markdown sees the text, so emphasis, smart punctuation and line breaks cannot split
//! them; each placeholder becomes the claim's HTML after rendering. Directive blocks are
//! removed (census) or replaced by their figure's HTML (figure). Math becomes MathML.

use pulldown_cmark::{CodeBlockKind, CowStr, Event, Parser, Tag, TagEnd};

use crate::content::scan::markdown_options;
use crate::content::Essay;
use crate::diag::Diagnostic;

use super::math::Math;

const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// A heading of the essay, for the table of contents.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Heading {
    /// 1 to 6.
    pub level: u32,
    /// The anchor id (unique in the page).
    pub id: String,
    /// The heading's text (claims as stated).
    pub text: String,
}

/// The rendered body.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// HTML.
    pub html: String,
    /// Headings in order.
    pub headings: Vec<Heading>,
}

/// Escape text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A heading id from its text: lower case, letters and digits kept, runs of anything else
/// one `-` (GitHub style).
pub fn heading_id(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_end_matches('-').to_string();
    if t.is_empty() {
        "section".into()
    } else {
        t
    }
}

/// Render `essay`'s body. `claim_html[i]` is the HTML for claim `i`, `claim_text[i]` its
/// plain text (for heading ids and the table of contents); `figure_html[i]` the HTML for
/// figure block `i`. Math errors come back as diagnostics at their place in the essay.
pub fn render(essay: &Essay, claim_html: &[String], claim_text: &[String], figure_html: &[String], math: &Math) -> (Body, Vec<Diagnostic>) {
    // Substitute placeholders, remembering how substituted offsets map to the source.
    let body = &essay.source[essay.body.clone()];
    let base = essay.body.start;
    let mut text = String::with_capacity(body.len());
    let mut map: Vec<(usize, usize)> = vec![(0, base)];
    let mut last = 0;
    for (i, c) in essay.claims.iter().enumerate() {
        let (s, e) = (c.span.start - base, c.span.end - base);
        text.push_str(&body[last..s]);
        text.push(OPEN);
        text.push_str(&i.to_string());
        text.push(CLOSE);
        map.push((text.len(), base + e));
        last = e;
    }
    text.push_str(&body[last..]);
    let to_source = |at: usize| -> usize {
        let (t, s) = map.iter().rev().find(|(t, _)| *t <= at).copied().unwrap_or((0, base));
        s + (at - t)
    };
    let placeholders_to_text = |s: &str| substitute(s, |i| claim_text.get(i).map(String::as_str).unwrap_or(""));

    let mut diags = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    let mut headings = Vec::new();
    let mut used_ids: Vec<String> = Vec::new();
    let mut figure_index = 0;
    let mut skipping = false;
    let mut heading_buf: Option<(u32, Vec<Event>, String, Option<String>)> = None;
    for (ev, range) in Parser::new_ext(&text, markdown_options()).into_offset_iter() {
        let ev = match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref info))) => {
                let word = info.split_whitespace().next().unwrap_or("");
                if word == "census" {
                    skipping = true;
                    continue;
                } else if word == "figure" {
                    skipping = true;
                    let html = figure_html.get(figure_index).cloned().unwrap_or_default();
                    figure_index += 1;
                    Event::Html(CowStr::from(html))
                } else {
                    ev
                }
            }
            Event::End(TagEnd::CodeBlock) if skipping => {
                skipping = false;
                continue;
            }
            _ if skipping => continue,
            Event::InlineMath(ref m) | Event::DisplayMath(ref m) => {
                let display = matches!(ev, Event::DisplayMath(_));
                match math.render(m, display) {
                    Ok(ml) => {
                        if display {
                            Event::InlineHtml(CowStr::from(format!("<span class=\"display-math\">{ml}</span>")))
                        } else {
                            Event::InlineHtml(CowStr::from(ml))
                        }
                    }
                    Err(e) => {
                        let delim = if display { 2 } else { 1 };
                        let latex_start = range.start + delim;
                        let s = to_source(latex_start + e.span.start.min(m.len()));
                        let t = to_source(latex_start + e.span.end.min(m.len())).max(s + 1);
                        diags.push(
                            Diagnostic::error(&essay.file, s..t, format!("LaTeX error: {}", e.message))
                                .with_label("in this math")
                                .with_hint("math-core renders a subset of LaTeX; define shared macros under math.macros in countersign.yaml"),
                        );
                        Event::Code(m.clone())
                    }
                }
            }
            other => other,
        };
        // Buffer headings to give them ids from their text.
        match ev {
            Event::Start(Tag::Heading { level, ref id, .. }) if heading_buf.is_none() => {
                heading_buf = Some((level as u32, Vec::new(), String::new(), id.as_ref().map(|s| s.to_string())));
            }
            Event::End(TagEnd::Heading(_)) if heading_buf.is_some() => {
                let (level, inner, plain, explicit) = heading_buf.take().unwrap_or_default();
                let shown = placeholders_to_text(&plain);
                let mut id = explicit.unwrap_or_else(|| heading_id(&shown));
                let stem = id.clone();
                let mut n = 1;
                while used_ids.contains(&id) {
                    id = format!("{stem}-{n}");
                    n += 1;
                }
                used_ids.push(id.clone());
                headings.push(Heading { level, id: id.clone(), text: shown.trim().to_string() });
                let lvl = level.clamp(1, 6);
                let mut inner_html = String::new();
                pulldown_cmark::html::push_html(&mut inner_html, inner.into_iter());
                events.push(Event::Html(CowStr::from(format!(
                    "<h{lvl} id=\"{id}\">{inner_html}<a class=\"permalink\" href=\"#{id}\" aria-label=\"Permalink to this section\">#</a></h{lvl}>\n",
                    id = escape(&id)
                ))));
            }
            e => match heading_buf.as_mut() {
                Some((_, inner, plain, _)) => {
                    if let Event::Text(t) | Event::Code(t) = &e {
                        plain.push_str(t);
                    }
                    inner.push(e);
                }
                None => events.push(e),
            },
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    let out = substitute(&html, |i| claim_html.get(i).map(String::as_str).unwrap_or(""));
    (Body { html: out, headings }, diags)
}


/// Replace every placeholder `OPEN index CLOSE` in `s` by `with(index)`; an unclosed
/// placeholder is dropped.
fn substitute<'a>(s: &str, with: impl Fn(usize) -> &'a str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(a) = rest.find(OPEN) {
        out.push_str(&rest[..a]);
        let after = &rest[a + OPEN.len_utf8()..];
        match after.find(CLOSE) {
            Some(b) => {
                out.push_str(with(after[..b].parse().unwrap_or(usize::MAX)));
                rest = &after[b + CLOSE.len_utf8()..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}
