//! The bibliography: `references.yaml` at the site root, in hayagriva's YAML format, read
//! with the hayagriva crate (no hand-written parser). Essays cite an entry with
//! `[@key]` (author–year, linked to the essay's reference list), `[-@key]` (year only,
//! after the author's name in the prose) or `[@key, ch. 13]` (with a locator); each essay
//! lists the entries it cites, in the order of their short forms.
//!
//! ```yaml
//! moore1910:
//!   type: article
//!   title: A generalization of the game called nim
//!   author: Moore, E. H.
//!   date: 1910
//!   parent: { type: periodical, title: Annals of Mathematics, volume: 11 }
//!   page-range: 93-94
//! ```
//!
//! Formatting is deliberately plain (authors, year, title, container, volume, pages,
//! publisher, URL) and done here rather than through a CSL style, which would need
//! hayagriva's style archive, large for five entries.

use std::collections::BTreeMap;

use hayagriva::Entry;

use countersign_core::diag::{Code, Diagnostic};

use super::markdown::escape;

/// File name of the bibliography at the site root.
pub const FILE: &str = "references.yaml";

/// One entry, formatted.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reference {
    /// The cite key.
    pub key: String,
    /// Authors' family names as cited ("Welter", "Berlekamp, Conway and Guy"), or the
    /// title's part before a colon when the entry has no author ("OEIS A007323").
    pub names: String,
    /// The year, when the entry has a date.
    pub year: Option<i32>,
    /// The full entry as HTML (escaped; the URL linked).
    pub html: String,
}

impl Reference {
    /// "Welter 1954", or just the names when there is no year.
    pub fn short(&self) -> String {
        match self.year {
            Some(y) => format!("{} {y}", self.names),
            None => self.names.clone(),
        }
    }
}

/// The loaded bibliography, by key.
#[derive(Clone, Debug, Default)]
pub struct Bibliography {
    /// Entries by key.
    pub entries: BTreeMap<String, Reference>,
}

/// Parse a bibliography's text (as the site crate loads it). Empty text is an empty bibliography; a
/// malformed one is one diagnostic at the line serde_yaml reports.
pub fn parse(text: &str) -> (Bibliography, Vec<Diagnostic>) {
    if text.trim().is_empty() {
        return (Bibliography::default(), Vec::new());
    }
    match hayagriva::io::from_yaml_str(text) {
        Ok(lib) => {
            let entries = lib.iter().map(|e| (e.key().to_string(), format(e))).collect();
            (Bibliography { entries }, Vec::new())
        }
        Err(e) => {
            let at = e.location().map(|l| l.index()).unwrap_or(0);
            (
                Bibliography::default(),
                vec![Diagnostic::error(Code::BadBibliography, FILE, at..at + 1, format!("in the bibliography: {e}"))
                    .with_hint("references.yaml is in hayagriva's YAML format: key: { type, title, author, date, parent, … }")],
            )
        }
    }
}

fn family(p: &hayagriva::types::Person) -> String {
    match &p.prefix {
        Some(pre) => format!("{pre} {}", p.name),
        None => p.name.clone(),
    }
}

fn names(e: &Entry) -> String {
    let people = e.authors().or_else(|| e.editors()).unwrap_or(&[]);
    match people {
        [] => {
            let t = e.title().map(|t| t.to_string()).unwrap_or_else(|| e.key().to_string());
            t.split(':').next().unwrap_or(&t).trim().to_string()
        }
        [a] => family(a),
        [a, b] => format!("{} and {}", family(a), family(b)),
        [a, b, c] => format!("{}, {} and {}", family(a), family(b), family(c)),
        [a, ..] => format!("{} et al.", family(a)),
    }
}

fn full_names(people: &[hayagriva::types::Person]) -> String {
    let list: Vec<String> = people.iter().map(|p| p.name_first(true, false)).collect();
    match list.len() {
        0 => String::new(),
        1 => list[0].clone(),
        n => format!("{} and {}", list[..n - 1].join(", "), list[n - 1]),
    }
}

/// Format one entry (see the module documentation).
pub fn format(e: &Entry) -> Reference {
    let year = e.date_any().map(|d| d.year);
    let mut parts: Vec<String> = Vec::new();
    let people = e.authors().or_else(|| e.editors()).unwrap_or(&[]);
    let mut head = escape(&full_names(people));
    if let Some(y) = year {
        if head.is_empty() {
            head = format!("({y})");
        } else {
            head.push_str(&format!(" ({y})"));
        }
    }
    if !head.is_empty() {
        parts.push(head);
    }
    if let Some(t) = e.title() {
        let t = t.to_string();
        let book = e.parents().is_empty() && matches!(e.entry_type(), hayagriva::types::EntryType::Book);
        parts.push(if book { format!("<cite>{}</cite>", escape(&t)) } else { escape(&t) });
    }
    if let Some(ed) = e.edition() {
        parts.push(format!("edition {}", escape(&ed.to_string())));
    }
    for p in e.parents() {
        let mut s = p.title().map(|t| format!("<cite>{}</cite>", escape(&t.to_string()))).unwrap_or_default();
        if let Some(v) = p.volume().or(e.volume()) {
            s.push_str(&format!(" {}", escape(&v.to_string())));
        }
        if let Some(i) = p.issue().or(e.issue()) {
            s.push_str(&format!("({})", escape(&i.to_string())));
        }
        if !s.is_empty() {
            parts.push(s.trim().to_string());
        }
    }
    if let Some(pr) = e.page_range() {
        parts.push(format!("pp. {}", escape(&pr.to_string())));
    }
    if let Some(p) = e.publisher().or_else(|| e.parents().iter().find_map(|p| p.publisher())) {
        let mut s = p.name().map(|n| escape(&n.to_string())).unwrap_or_default();
        if let Some(l) = p.location() {
            s = format!("{}, {s}", escape(&l.to_string()));
        }
        if !s.is_empty() {
            parts.push(s);
        }
    }
    if let Some(n) = e.note() {
        parts.push(escape(&n.to_string()));
    }
    let mut html = parts.join(". ");
    html.push('.');
    if let Some(u) = e.url_any() {
        let u = escape(u.value.as_str());
        html.push_str(&format!(" <a href=\"{u}\">{u}</a>"));
    }
    Reference { key: e.key().to_string(), names: names(e), year, html }
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str = "welter1954:\n  type: article\n  title: The theory of a class of games\n  author: Welter, C. P.\n  date: 1954\n  parent:\n    type: periodical\n    title: Indagationes Mathematicae\n    volume: 16\n  page-range: 194-200\nwinningways:\n  type: book\n  title: Winning Ways\n  author: [Berlekamp, Elwyn R., Conway, John H., Guy, Richard K.]\n  date: 1982\noeis:\n  type: web\n  title: 'OEIS A007323: numerical semigroups by genus'\n  url: https://oeis.org/A007323\n";

    #[test]
    fn formats_short_and_full_forms() {
        let (b, d) = parse(YAML);
        assert!(d.is_empty(), "{d:?}");
        let w = &b.entries["welter1954"];
        assert_eq!(w.short(), "Welter 1954");
        assert!(w.html.contains("Indagationes Mathematicae</cite> 16"), "{}", w.html);
        assert!(w.html.contains("pp. 194"), "{}", w.html);
        assert_eq!(b.entries["oeis"].short(), "OEIS A007323");
        assert!(b.entries["oeis"].html.contains("href=\"https://oeis.org/A007323\""));
    }

    #[test]
    fn malformed_file_is_a_diagnostic_at_its_line() {
        let (b, d) = parse("a:\n  type: article\n  title: [unclosed\n");
        assert!(b.entries.is_empty());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, countersign_core::diag::Code::BadBibliography, "{:?}", d);
    }
}
