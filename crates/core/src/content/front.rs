//! Front matter: the YAML between the `---` lines at the top of an essay.
//!
//! ```yaml
//! title: No two heaps alike     # required
//! anchor: welter                # the ladder (topic) this essay belongs to
//! rung: 1                       # its place on that ladder, from 1
//! date: 2026-11-29              # YYYY-MM-DD; the feed's date, never the build time
//! summary: One sentence for the index.
//! draft: true                   # checked and shown by watch, left out of build
//! ```

use std::ops::Range;

use serde::Deserialize;

use super::claim::Claim;
use super::inline;

use crate::diag::{Code, Diagnostic};

/// An essay's front matter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// The title (required, non-empty).
    pub title: String,
    /// Span of the title's entry (key and value) in the file.
    pub title_span: Range<usize>,
    /// The ladder (topic) this essay belongs to.
    pub anchor: Option<String>,
    /// Its place on that ladder, from 1.
    pub rung: Option<u32>,
    /// Publication date `YYYY-MM-DD`.
    pub date: Option<String>,
    /// One sentence for the index.
    pub summary: Option<String>,
    /// `draft: true`: checked, shown by `watch` with a banner, left out of `build`.
    pub draft: bool,
    /// Span of the `draft` key in the file (for the warning that lists drafts).
    pub draft_span: Range<usize>,
    /// Claims written in the title and the summary, in order. They are checked like the
    /// body's; `title` and `summary` above show each as its stated text.
    pub claims: Vec<Claim>,
    /// Spans in the file of the title's and the summary's values as written (for
    /// `--strict`).
    pub text_spans: Vec<Range<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
struct Raw {
    title: Option<String>,
    anchor: Option<String>,
    rung: Option<u32>,
    date: Option<String>,
    summary: Option<String>,
    #[serde(default)]
    draft: bool,
}

fn valid_date(d: &str) -> bool {
    let b = d.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: Range<usize>| d.get(r).filter(|t| t.bytes().all(|b| b.is_ascii_digit())).and_then(|t| t.parse::<u32>().ok());
    let (Some(y), Some(m), Some(day)) = (num(0..4), num(5..7), num(8..10)) else { return false };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// An anchor names a ladder and its page at `/<anchor>/`: letters, digits, `-` and `_`,
/// starting with a letter or digit (so never `..`, `/`, a space or an empty name).
fn valid_anchor(a: &str) -> bool {
    a.starts_with(|c: char| c.is_ascii_alphanumeric()) && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The front matter's YAML `yaml` (at `yaml_start` of `source`) read, with its index.
fn read_raw(file: &str, source: &str, yaml_start: usize, yaml: &str) -> Result<(Raw, crate::yaml::Index), Vec<Diagnostic>> {
    if yaml.trim().is_empty() {
        let raw = Raw { title: None, anchor: None, rung: None, date: None, summary: None, draft: false };
        return Ok((raw, crate::yaml::Index::default()));
    }
    crate::yaml::parse(yaml).map_err(|e| {
        let at = match (e.line, e.column) {
            (Some(l), Some(c)) => yaml_start + super::offset_of(yaml, l, c),
            _ => yaml_start,
        };
        let not_a_mapping = e.kind == crate::yaml::YamlErrorKind::Deserialize
            && crate::yaml::Index::of(yaml).root() != Some(crate::yaml::NodeKind::Mapping);
        let msg = if not_a_mapping {
            "front matter must be a mapping of keys to values".to_string()
        } else {
            format!("in front matter: {}", e.message)
        };
        let r = super::char_span(source, at);
        vec![Diagnostic::error(Code::BadFrontMatter, file, r, msg)
            .with_hint("front matter keys: title, anchor, rung, date (YYYY-MM-DD), summary, draft")]
    })
}

/// Where the front matter's YAML starts and ends and the body starts, in bytes of
/// `source`: the YAML runs from the line after an opening `---` (a byte-order mark before
/// it allowed) to the next line holding only `---`. Errors: no opening `---`
/// (`missing-front-matter`), no closing one (`unterminated-front-matter`).
fn delimit(file: &str, source: &str) -> Result<(usize, usize, usize), Vec<Diagnostic>> {
    let hint = "start the essay with front matter:\n---\ntitle: My essay\n---";
    let first_line_end = source.find('\n').map(|n| n + 1).unwrap_or(source.len());
    let first = source[..first_line_end].trim_end_matches(['\n', '\r']);
    let first = first.strip_prefix('\u{feff}').unwrap_or(first);
    if first != "---" {
        return Err(vec![Diagnostic::error(Code::MissingFrontMatter, file, 0..first_line_end.min(source.len()), "missing front matter")
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
        return Err(vec![Diagnostic::error(Code::UnterminatedFrontMatter, file, 0..3, "unterminated front matter")
            .with_label("opened here")
            .with_hint("close the front matter with a line holding only `---`")]);
    };
    Ok((yaml_start, yaml_end, body_start))
}

/// Split `source` into front matter and body and parse the front matter. Returns the front
/// matter and the body's byte range. Errors: no front matter, an unterminated one, bad
/// YAML, unknown keys, a missing or empty title, a malformed date.
pub fn split_and_parse(file: &str, source: &str) -> Result<(FrontMatter, Range<usize>), Vec<Diagnostic>> {
    let (yaml_start, yaml_end, body_start) = delimit(file, source)?;
    let yaml = &source[yaml_start..yaml_end];
    let (raw, ix) = read_raw(file, source, yaml_start, yaml)?;
    let title_span = ix.entry(&["title"]).map_or(0..3, |r| yaml_start + r.start..yaml_start + r.end);
    let key_span = |key: &str, or: Range<usize>| ix.key(&[key]).map_or(or, |r| yaml_start + r.start..yaml_start + r.end);
    let mut diags = Vec::new();
    let mut claims = Vec::new();
    let mut text_spans = Vec::new();
    let mut with_claims = |key: &str, decoded: Option<String>, diags: &mut Vec<Diagnostic>| {
        let decoded = decoded?;
        let Some(region) = ix.value(&[key]) else { return Some(decoded) };
        text_spans.push(yaml_start + region.start..yaml_start + region.end);
        let (mut found, mut errors) = inline::claims_in(yaml, region, yaml_start);
        let what = format!("the {key}");
        let shown = inline::substitute(&decoded, &found, source, &what);
        errors.extend(shown.as_ref().err().cloned());
        inline::drop_unread(&mut found, &errors);
        for e in errors {
            diags.push(Diagnostic::error(e.code, file, e.span, e.message).with_label("in this claim").with_hint(e.hint));
        }
        claims.extend(found);
        shown.ok()
    };
    let title = with_claims("title", raw.title, &mut diags).unwrap_or_default().trim().to_string();
    let summary = with_claims("summary", raw.summary, &mut diags);
    if title.is_empty() && diags.is_empty() {
        diags.push(
            Diagnostic::error(Code::MissingTitle, file, title_span.clone(), "the essay has no title")
                .with_hint("add `title: …` to the front matter"),
        );
    }
    if let Some(d) = raw.date.as_ref().filter(|d| !valid_date(d)) {
        diags.push(
            Diagnostic::error(Code::BadDate, file, key_span("date", 0..0), format!("`{d}` is not a date"))
                .with_hint("write dates as YYYY-MM-DD"),
        );
    }
    if let Some(a) = raw.anchor.as_ref().filter(|a| !valid_anchor(a)) {
        diags.push(
            Diagnostic::error(Code::BadAnchor, file, key_span("anchor", 0..0), format!("`{a}` is not a usable anchor"))
                .with_hint("an anchor names its ladder's page, /<anchor>/: letters, digits, `-` and `_`, e.g. `held-pass`"),
        );
    }
    if raw.rung == Some(0) {
        diags.push(
            Diagnostic::error(Code::BadRung, file, key_span("rung", 0..0), "rungs count from 1")
                .with_hint("the first essay of a ladder is `rung: 1`"),
        );
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let draft_span = key_span("draft", 0..3);
    Ok((
        FrontMatter {
            title,
            title_span,
            anchor: raw.anchor,
            rung: raw.rung,
            date: raw.date,
            summary,
            draft: raw.draft,
            draft_span,
            claims,
            text_spans,
        },
        body_start..source.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_calendar_dates() {
        for ok in ["2026-01-01", "2024-02-29", "2000-02-29", "2026-12-31", "2026-04-30"] {
            assert!(valid_date(ok), "{ok}");
        }
        for bad in [
            "2026-02-30",
            "2026-02-29",
            "1900-02-29",
            "2026-04-31",
            "2026-13-01",
            "2026-00-10",
            "2026-01-00",
            "2026-1-01",
            "+026-01-01",
            "2026-01-+1",
        ] {
            assert!(!valid_date(bad), "{bad}");
        }
    }

    #[test]
    fn anchors_are_names_not_paths() {
        for ok in ["welter", "held-pass", "a_1", "2026"] {
            assert!(valid_anchor(ok), "{ok}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "a b", "-x", "index.html", "é"] {
            assert!(!valid_anchor(bad), "{bad}");
        }
    }
}
