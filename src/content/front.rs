//! Front matter: the YAML between the `---` lines at the top of an essay.
//!
//! ```yaml
//! title: No two heaps alike     # required
//! anchor: welter                # the ladder (topic) this essay belongs to
//! rung: 1                       # its place on that ladder, from 1
//! date: 2026-11-29              # YYYY-MM-DD; the feed's date, never the build time
//! summary: One sentence for the index.
//! ```

use std::ops::Range;

use serde::Deserialize;

use crate::diag::Diagnostic;

/// An essay's front matter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// The title (required, non-empty).
    pub title: String,
    /// Span of the title's line in the file.
    pub title_span: Range<usize>,
    /// The ladder (topic) this essay belongs to.
    pub anchor: Option<String>,
    /// Its place on that ladder, from 1.
    pub rung: Option<u32>,
    /// Publication date `YYYY-MM-DD`.
    pub date: Option<String>,
    /// One sentence for the index.
    pub summary: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    title: Option<String>,
    anchor: Option<String>,
    rung: Option<u32>,
    date: Option<String>,
    summary: Option<String>,
}

fn valid_date(d: &str) -> bool {
    let b = d.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: Range<usize>| d[r].parse::<u32>().ok();
    matches!((num(0..4), num(5..7), num(8..10)), (Some(_), Some(m), Some(day)) if (1..=12).contains(&m) && (1..=31).contains(&day))
}

/// Split `source` into front matter and body and parse the front matter. Returns the front
/// matter and the body's byte range. Errors: no front matter, an unterminated one, bad
/// YAML, unknown keys, a missing or empty title, a malformed date.
pub fn split_and_parse(file: &str, source: &str) -> Result<(FrontMatter, Range<usize>), Vec<Diagnostic>> {
    let hint = "start the essay with front matter:\n---\ntitle: My essay\n---";
    let first_line_end = source.find('\n').map(|n| n + 1).unwrap_or(source.len());
    let first = source[..first_line_end].trim_end_matches(['\n', '\r']);
    let first = first.strip_prefix('\u{feff}').unwrap_or(first);
    if first != "---" {
        return Err(vec![Diagnostic::error(file, 0..first_line_end.min(source.len()), "missing front matter")
            .with_label("expected `---` here")
            .with_hint(hint)]);
    }
    let yaml_start = first_line_end;
    let mut off = yaml_start;
    let mut close = None;
    while off < source.len() {
        let end = source[off..].find('\n').map(|n| off + n + 1).unwrap_or(source.len());
        if source[off..end].trim_end_matches(['\n', '\r']) == "---" {
            close = Some((off, end));
            break;
        }
        off = end;
    }
    let Some((yaml_end, body_start)) = close else {
        return Err(vec![Diagnostic::error(file, 0..3, "unterminated front matter")
            .with_label("opened here")
            .with_hint("close the front matter with a line holding only `---`")]);
    };
    let yaml = &source[yaml_start..yaml_end];
    let raw: Raw = if yaml.trim().is_empty() {
        Raw { title: None, anchor: None, rung: None, date: None, summary: None }
    } else {
        crate::yaml::from_str(yaml).map_err(|e| {
            let at = match (e.line, e.column) {
                (Some(l), Some(c)) => yaml_start + super::offset_of(yaml, l, c),
                _ => yaml_start,
            };
            let msg = if e.message.contains("invalid type") && e.message.contains("expected a mapping") {
                "front matter must be a mapping of keys to values".to_string()
            } else {
                format!("in front matter: {}", e.message)
            };
            let r = super::char_span(source, at);
            vec![Diagnostic::error(file, r, msg).with_hint("front matter keys: title, anchor, rung, date (YYYY-MM-DD), summary")]
        })?
    };
    let title_span = super::locate_keys(yaml, &["title"])
        .map(|at| {
            let end = yaml[at..].find('\n').map(|n| at + n).unwrap_or(yaml.len());
            yaml_start + at..yaml_start + end
        })
        .unwrap_or(0..3);
    let mut diags = Vec::new();
    let title = raw.title.unwrap_or_default().trim().to_string();
    if title.is_empty() {
        diags.push(Diagnostic::error(file, title_span.clone(), "the essay has no title").with_hint("add `title: …` to the front matter"));
    }
    if let Some(d) = &raw.date {
        if !valid_date(d) {
            let at = super::locate_keys(yaml, &["date"]).map(|a| yaml_start + a).unwrap_or(0);
            diags.push(Diagnostic::error(file, at..at + 4, format!("`{d}` is not a date")).with_hint("write dates as YYYY-MM-DD"));
        }
    }
    if raw.rung == Some(0) {
        let at = super::locate_keys(yaml, &["rung"]).map(|a| yaml_start + a).unwrap_or(0);
        diags.push(Diagnostic::error(file, at..at + 4, "rungs count from 1").with_hint("the first essay of a ladder is `rung: 1`"));
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok((
        FrontMatter { title, title_span, anchor: raw.anchor, rung: raw.rung, date: raw.date, summary: raw.summary },
        body_start..source.len(),
    ))
}
