//! One essay's Markdown body to HTML, with claims, figures and math substituted.
//!
//! Claims are replaced by placeholders (private-use characters around an index) before
//! Markdown sees the text, so emphasis, smart punctuation and line breaks cannot split
//! them; each placeholder becomes the claim's HTML after rendering. Directive blocks are
//! removed (census) or replaced by their figure's HTML (figure). Math becomes MathML;
//! display equations are numbered (`\label{eq:name}` names one).
//!
//! References are left as markers for [`super::links`] to resolve once every essay is
//! rendered: links to essays (`[[Title]]`, `[[slug#heading|text]]`, `[text](essay:slug#heading)`),
//! citations (`[@key]`, `[-@key]`, `[@key, ch. 13]`, `[@a; @b]`) and cross-references to
//! figures and equations (`[@fig:id]`, `[@eq:name]`).

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::content::scan::markdown_options;
use crate::content::Essay;
use crate::diag::Diagnostic;

use super::math::Math;

const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';
/// Opens a reference marker in the rendered HTML: `MARK n END` (the whole reference) or
/// `MARK / n END` (the end of a link whose text the author wrote).
pub const MARK: char = '\u{E002}';
/// Closes a reference marker.
pub const MARK_END: char = '\u{E003}';

/// What a reference marker stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefKind {
    /// A link to an essay by title or slug, with an optional heading (id or text).
    /// `own_text`: the author wrote the link text (it sits between the two markers).
    Essay { target: String, heading: Option<String>, own_text: bool },
    /// Citations of bibliography keys, each with an optional locator; `year_only` for `[-@key]`.
    Cite { keys: Vec<(String, Option<String>)>, year_only: bool },
    /// `[@fig:id]`.
    Figure(String),
    /// `[@eq:name]`.
    Equation(String),
}

/// A reference found in the body, with its place in the essay's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    /// What it refers to.
    pub kind: RefKind,
    /// Byte span in the essay's source.
    pub span: std::ops::Range<usize>,
}

/// A numbered display equation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equation {
    /// Its name from `\label{eq:name}`, if any.
    pub label: Option<String>,
    /// Its number, from 1.
    pub number: usize,
    /// Its anchor id.
    pub id: String,
}

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
    /// References, indexed by their markers in `html`.
    pub refs: Vec<Ref>,
    /// Display equations in order.
    pub equations: Vec<Equation>,
}

/// Parse the inside of `[@…]` / `[-@…]`: `@a; @b, p. 3`. None when it is not a citation.
fn parse_cite(inner: &str) -> Option<RefKind> {
    let (year_only, inner) = match inner.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, inner),
    };
    let mut keys = Vec::new();
    for item in inner.split(';') {
        let item = item.trim().strip_prefix('@')?;
        let (key, loc) = match item.split_once(',') {
            Some((k, l)) => (k.trim(), Some(l.trim().to_string()).filter(|l| !l.is_empty())),
            None => (item.trim(), None),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || "_:.-".contains(c)) {
            return None;
        }
        keys.push((key.to_string(), loc));
    }
    if keys.len() == 1 && !year_only {
        let (k, loc) = &keys[0];
        if loc.is_none() {
            if let Some(id) = k.strip_prefix("fig:") {
                return Some(RefKind::Figure(id.to_string()));
            }
            if let Some(id) = k.strip_prefix("eq:") {
                return Some(RefKind::Equation(id.to_string()));
            }
        }
    }
    Some(RefKind::Cite { keys, year_only })
}

/// A piece of text and, when it is a citation, its kind and byte range in the text.
type Piece = (String, Option<(RefKind, std::ops::Range<usize>)>);

/// Split `text` at its citations: (plain text, Some((kind, byte range in text)) ) pieces.
fn split_cites(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(a) = text[from..].find('[').map(|a| a + from) {
        let rest = &text[a + 1..];
        if !(rest.starts_with('@') || rest.starts_with("-@")) {
            from = a + 1;
            continue;
        }
        let Some(b) = rest.find(']') else { break };
        match parse_cite(&rest[..b]) {
            Some(kind) => {
                out.push((text[last..a].to_string(), None));
                out.push((String::new(), Some((kind, a..a + b + 2))));
                last = a + b + 2;
                from = last;
            }
            None => from = a + 1,
        }
    }
    out.push((text[last..].to_string(), None));
    out
}

/// Split `[[Title#heading]]` or `essay:slug#heading` into target and heading.
fn essay_target(dest: &str) -> (String, Option<String>) {
    let dest = dest.strip_prefix("essay:").unwrap_or(dest);
    match dest.split_once('#') {
        Some((t, h)) => (t.trim().to_string(), Some(h.trim().to_string()).filter(|h| !h.is_empty())),
        None => (dest.trim().to_string(), None),
    }
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

/// `id` unless the page around the body uses it (the provenance list `how-computed`, its
/// items `calls-ID`, the references `references` and `ref-KEY`, figures `fig-ID`,
/// equations `eq-NAME`, `content`, `search-*`, `ladder-*`): then `h-` + `id`, so a heading
/// "Calls g" never takes the id a claim links to.
fn page_safe_id(id: String) -> String {
    let reserved = ["how-computed", "references", "content"].contains(&id.as_str())
        || ["calls-", "ref-", "fig-", "eq-", "search-", "ladder-"].iter().any(|p| id.starts_with(p));
    if reserved {
        format!("h-{id}")
    } else {
        id
    }
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
    let mut refs: Vec<Ref> = Vec::new();
    let mut equations: Vec<Equation> = Vec::new();
    let mut in_code = false;
    let mut skip_link_text = false;
    let mut open_link: Option<usize> = None;
    // Adjacent text events merged, so that `[@key]` arrives in one piece.
    let mut merged: Vec<(Event, std::ops::Range<usize>)> = Vec::new();
    for (ev, range) in Parser::new_ext(&text, markdown_options() | Options::ENABLE_WIKILINKS).into_offset_iter() {
        if let (Event::Text(t), Some((Event::Text(p), pr))) = (&ev, merged.last_mut()) {
            if pr.end == range.start {
                *p = CowStr::from(format!("{p}{t}"));
                pr.end = range.end;
                continue;
            }
        }
        merged.push((ev, range));
    }
    let mut expanded: Vec<(Event, std::ops::Range<usize>)> = Vec::with_capacity(merged.len());
    // Links and images open: a claim in a link's text or an image's alt text is shown as
    // its plain text (a claim's own link would nest inside the link or break the attribute).
    let mut link_depth = 0usize;
    for (ev, range) in merged {
        match &ev {
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => link_depth += 1,
            Event::End(TagEnd::Link | TagEnd::Image) => link_depth = link_depth.saturating_sub(1),
            _ => {}
        }
        match ev {
            Event::Start(Tag::CodeBlock(_)) => {
                in_code = true;
                expanded.push((ev, range));
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                expanded.push((ev, range));
            }
            Event::Text(ref t) if !in_code && (t.contains("[@") || t.contains("[-@")) => {
                let src = &text[range.clone()];
                for (plain, cite) in split_cites(t) {
                    if !plain.is_empty() {
                        expanded.push((Event::Text(CowStr::from(plain)), range.clone()));
                    }
                    if let Some((kind, r)) = cite {
                        // Locate the citation in the source slice (text and source agree
                        // unless smart punctuation changed lengths).
                        let needle = &t[r.clone()];
                        let at = src.find(needle).map(|o| range.start + o).unwrap_or(range.start);
                        let span = to_source(at)..to_source(at + needle.len()).max(to_source(at) + 1);
                        expanded.push((Event::InlineHtml(CowStr::from(format!("{MARK}{}{MARK_END}", refs.len()))), range.clone()));
                        refs.push(Ref { kind, span });
                    }
                }
            }
            Event::Start(Tag::Link { link_type, ref dest_url, .. })
                if matches!(link_type, LinkType::WikiLink { .. }) || dest_url.starts_with("essay:") =>
            {
                let own_text = !matches!(link_type, LinkType::WikiLink { has_pothole: false });
                let (target, heading) = essay_target(dest_url);
                let span = to_source(range.start)..to_source(range.end).max(to_source(range.start) + 1);
                expanded.push((Event::InlineHtml(CowStr::from(format!("{MARK}{}{MARK_END}", refs.len()))), range.clone()));
                refs.push(Ref { kind: RefKind::Essay { target, heading, own_text }, span });
                skip_link_text = !own_text;
                if own_text {
                    open_link = Some(refs.len() - 1);
                }
            }
            Event::End(TagEnd::Link) if skip_link_text => skip_link_text = false,
            Event::End(TagEnd::Link) if open_link.is_some() => {
                let n = open_link.take().unwrap_or_default();
                expanded.push((Event::InlineHtml(CowStr::from(format!("{MARK}/{n}{MARK_END}"))), range));
            }
            _ if skip_link_text => {}
            Event::Text(ref t) if link_depth > 0 && t.contains(OPEN) => {
                expanded.push((Event::Text(CowStr::from(placeholders_to_text(t))), range));
            }
            other => expanded.push((other, range)),
        }
    }
    for (ev, range) in expanded {
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
                // `\label{eq:name}` names a display equation; blanked to spaces so that
                // error offsets still point into the source.
                let mut label = None;
                let mut latex = m.to_string();
                if display {
                    if let Some(a) = latex.find("\\label{") {
                        if let Some(b) = latex[a..].find('}') {
                            let name = latex[a + 7..a + b].trim();
                            label = Some(name.strip_prefix("eq:").unwrap_or(name).to_string());
                            latex.replace_range(a..a + b + 1, &" ".repeat(b + 1));
                        }
                    }
                }
                match math.render(&latex, display) {
                    Ok(ml) => {
                        if display {
                            let number = equations.len() + 1;
                            let id = match &label {
                                Some(l) => format!("eq-{}", heading_id(l)),
                                None => format!("eq-{number}"),
                            };
                            let html = format!(
                                "<span class=\"display-math\" id=\"{}\"><span class=\"eq-body\">{ml}</span><span class=\"eq-number\">({number})</span></span>",
                                escape(&id)
                            );
                            equations.push(Equation { label, number, id });
                            Event::InlineHtml(CowStr::from(html))
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
                                .with_hint(
                                    "math-core renders a subset of LaTeX; define shared macros under math.macros in countersign.yaml",
                                ),
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
                let mut id = page_safe_id(explicit.unwrap_or_else(|| heading_id(&shown)));
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
    (Body { html: out, headings, refs, equations }, diags)
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
