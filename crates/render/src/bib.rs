//! The bibliography: `references.yaml` at the site root, in hayagriva's YAML format. Essays
//! cite an entry with
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
//! publisher, URL) and done here rather than through a CSL style.
//!
//! The file is read by a small typed reader of hayagriva's YAML format through the one
//! YAML module ([`countersign_core::yaml`]), not by the hayagriva crate: only the fields
//! formatted here are needed, and hayagriva brought 86 crates into the build to read them.
//! The fields hayagriva defines but this page does not show (`doi`, `language`, …) are
//! accepted and left out; any other key is an error at its line, so a misspelt field is
//! never dropped in silence.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::Deserialize;

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

/// A scalar written as text or as a number (`volume: 16`, `volume: "16a"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Int(i64),
    Float(f64),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Text(s) => f.write_str(s),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A formattable string: plain, or hayagriva's `{ value: …, … }`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Text {
    Plain(Scalar),
    Formatted { value: Scalar },
}

impl Text {
    fn text(&self) -> String {
        match self {
            Text::Plain(s) | Text::Formatted { value: s } => s.to_string(),
        }
    }
}

/// One value or a list of them (`author: A` or `author: [A, B]`).
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(x) => std::slice::from_ref(x),
            OneOrMany::Many(v) => v,
        }
    }
}

/// A person: `"Family, Given"` (or `"Family, Suffix, Given"`), or hayagriva's mapping.
#[derive(Deserialize)]
#[serde(untagged)]
enum Person {
    Written(String),
    Parts {
        name: String,
        #[serde(rename = "given-name")]
        given: Option<String>,
        prefix: Option<String>,
        suffix: Option<String>,
    },
}

impl Person {
    /// (family name with its prefix, given names, suffix).
    fn parts(&self) -> (String, String, String) {
        match self {
            Person::Written(s) => {
                let p: Vec<&str> = s.split(',').map(str::trim).collect();
                match p.as_slice() {
                    [family] => (family.to_string(), String::new(), String::new()),
                    [family, given] => (family.to_string(), given.to_string(), String::new()),
                    [family, suffix, given, ..] => (family.to_string(), given.to_string(), suffix.to_string()),
                    [] => (String::new(), String::new(), String::new()),
                }
            }
            Person::Parts { name, given, prefix, suffix } => {
                let family = match prefix {
                    Some(pre) => format!("{pre} {name}"),
                    None => name.clone(),
                };
                (family, given.clone().unwrap_or_default(), suffix.clone().unwrap_or_default())
            }
        }
    }

    /// The family name as cited: "Welter", "van der Waerden".
    fn family(&self) -> String {
        self.parts().0
    }

    /// Family name first, given names as initials: "Conway, J. H.", "King, M. L., Jr.".
    fn listed(&self) -> String {
        let (family, given, suffix) = self.parts();
        let mut s = family;
        if !given.is_empty() {
            s.push_str(", ");
            s.push_str(&initials(&given));
        }
        if !suffix.is_empty() {
            s.push_str(", ");
            s.push_str(&suffix);
        }
        s
    }
}

/// Given names as initials: "John H." → "J. H.", "Jean-Pierre" → "J.-P.".
fn initials(given: &str) -> String {
    let word =
        |w: &str| -> String { w.split('-').filter_map(|part| part.chars().next().map(|c| format!("{c}."))).collect::<Vec<_>>().join("-") };
    given.split_whitespace().map(word).collect::<Vec<_>>().join(" ")
}

/// A publisher: its name, or `{ name, location }`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Publisher {
    Name(Scalar),
    Full { name: Option<Scalar>, location: Option<Scalar> },
}

/// A URL: the address, or `{ value, date }`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Url {
    Plain(String),
    Full { value: String },
}

/// One entry of `references.yaml`, as hayagriva's format writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    title: Option<Text>,
    author: Option<OneOrMany<Person>>,
    editor: Option<OneOrMany<Person>>,
    date: Option<Scalar>,
    parent: Option<OneOrMany<Box<Entry>>>,
    publisher: Option<Publisher>,
    volume: Option<Scalar>,
    issue: Option<Scalar>,
    edition: Option<Scalar>,
    #[serde(rename = "page-range")]
    page_range: Option<Scalar>,
    note: Option<Text>,
    url: Option<Url>,
    // hayagriva's other fields: accepted, not shown.
    #[serde(rename = "location")]
    _location: Option<IgnoredAny>,
    #[serde(rename = "affiliated")]
    _affiliated: Option<IgnoredAny>,
    #[serde(rename = "organization")]
    _organization: Option<IgnoredAny>,
    #[serde(rename = "volume-total")]
    _volume_total: Option<IgnoredAny>,
    #[serde(rename = "page-total")]
    _page_total: Option<IgnoredAny>,
    #[serde(rename = "time-range")]
    _time_range: Option<IgnoredAny>,
    #[serde(rename = "runtime")]
    _runtime: Option<IgnoredAny>,
    #[serde(rename = "serial-number")]
    _serial_number: Option<IgnoredAny>,
    #[serde(rename = "doi")]
    _doi: Option<IgnoredAny>,
    #[serde(rename = "isbn")]
    _isbn: Option<IgnoredAny>,
    #[serde(rename = "issn")]
    _issn: Option<IgnoredAny>,
    #[serde(rename = "language")]
    _language: Option<IgnoredAny>,
    #[serde(rename = "archive")]
    _archive: Option<IgnoredAny>,
    #[serde(rename = "archive-location")]
    _archive_location: Option<IgnoredAny>,
    #[serde(rename = "call-number")]
    _call_number: Option<IgnoredAny>,
    #[serde(rename = "abstract")]
    _summary: Option<IgnoredAny>,
    #[serde(rename = "genre")]
    _genre: Option<IgnoredAny>,
}

impl Entry {
    fn parents(&self) -> &[Box<Entry>] {
        self.parent.as_ref().map_or(&[], OneOrMany::as_slice)
    }

    fn people(&self) -> &[Person] {
        self.author.as_ref().or(self.editor.as_ref()).map_or(&[], OneOrMany::as_slice)
    }

    /// The year of this entry's date, or of its nearest parent's.
    fn year(&self) -> Option<i32> {
        let own = self.date.as_ref().and_then(|d| year_of(&d.to_string()));
        own.or_else(|| self.parents().iter().find_map(|p| p.year()))
    }

    fn url(&self) -> Option<&str> {
        let own = self.url.as_ref().map(|u| match u {
            Url::Plain(s) | Url::Full { value: s } => s.as_str(),
        });
        own.or_else(|| self.parents().iter().find_map(|p| p.url()))
    }

    fn publisher(&self) -> Option<&Publisher> {
        self.publisher.as_ref().or_else(|| self.parents().iter().find_map(|p| p.publisher()))
    }
}

/// The year of a date written `1954`, `1954-07` or `1954-07-01` (a leading `-` for BCE).
fn year_of(date: &str) -> Option<i32> {
    let (sign, rest) = match date.trim().strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, date.trim()),
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with('-')) {
        return None;
    }
    digits.parse::<i32>().ok().map(|y| sign * y)
}

/// Parse a bibliography's text (as the site crate loads it). Empty text is an empty
/// bibliography; a malformed one (bad YAML, an unknown field, a value of the wrong shape,
/// an entry with no `type`) is one diagnostic at the line the YAML module reports.
pub fn parse(text: &str) -> (Bibliography, Vec<Diagnostic>) {
    if text.trim().is_empty() {
        return (Bibliography::default(), Vec::new());
    }
    match countersign_core::yaml::from_str::<BTreeMap<String, Entry>>(text) {
        Ok(lib) => {
            let entries = lib.iter().map(|(key, e)| (key.clone(), format(key, e))).collect();
            (Bibliography { entries }, Vec::new())
        }
        Err(e) => {
            let at = match (e.line, e.column) {
                (Some(l), Some(c)) => countersign_core::content::offset_of(text, l, c),
                _ => 0,
            };
            let end = (at + 1).min(text.len()).max(at);
            (
                Bibliography::default(),
                vec![Diagnostic::error(Code::BadBibliography, FILE, at..end, format!("in the bibliography: {}", e.message))
                    .with_hint("references.yaml is in hayagriva's YAML format: key: { type, title, author, date, parent, publisher, volume, issue, page-range, url, … }")],
            )
        }
    }
}

/// How an entry is cited: its authors' (or editors') family names, else its title up to
/// a colon, else its key.
fn names(key: &str, e: &Entry) -> String {
    let people = e.people();
    let f = |p: &Person| p.family();
    match people {
        [] => {
            let t = e.title.as_ref().map(Text::text).unwrap_or_else(|| key.to_string());
            t.split(':').next().unwrap_or(&t).trim().to_string()
        }
        [a] => f(a),
        [a, b] => format!("{} and {}", f(a), f(b)),
        [a, b, c] => format!("{}, {} and {}", f(a), f(b), f(c)),
        [a, ..] => format!("{} et al.", f(a)),
    }
}

/// "Berlekamp, E. R., Conway, J. H. and Guy, R. K.".
fn full_names(people: &[Person]) -> String {
    let list: Vec<String> = people.iter().map(Person::listed).collect();
    match list.len() {
        0 => String::new(),
        1 => list[0].clone(),
        n => format!("{} and {}", list[..n - 1].join(", "), list[n - 1]),
    }
}

/// Format entry `key` (see the module documentation): names (year). Title. Container
/// volume(issue). pp. pages. Location, publisher. Note. URL.
fn format(key: &str, e: &Entry) -> Reference {
    let year = e.year();
    let mut parts: Vec<String> = Vec::new();
    let mut head = escape(&full_names(e.people()));
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
    if let Some(t) = &e.title {
        let t = t.text();
        let book = e.parents().is_empty() && e.kind.eq_ignore_ascii_case("book");
        parts.push(if book { format!("<cite>{}</cite>", escape(&t)) } else { escape(&t) });
    }
    if let Some(ed) = &e.edition {
        parts.push(format!("edition {}", escape(&ed.to_string())));
    }
    for p in e.parents() {
        parts.extend(container(p, e));
    }
    if let Some(pr) = &e.page_range {
        parts.push(format!("pp. {}", escape(&pr.to_string())));
    }
    if let Some(p) = e.publisher() {
        let (name, location) = match p {
            Publisher::Name(n) => (Some(n.to_string()), None),
            Publisher::Full { name, location } => (name.as_ref().map(Scalar::to_string), location.as_ref().map(Scalar::to_string)),
        };
        let mut s = name.map(|n| escape(&n)).unwrap_or_default();
        if let Some(l) = location {
            s = format!("{}, {s}", escape(&l));
        }
        if !s.is_empty() {
            parts.push(s);
        }
    }
    if let Some(n) = &e.note {
        parts.push(escape(&n.text()));
    }
    let mut html = parts.join(". ");
    html.push('.');
    if let Some(u) = e.url() {
        let u = escape(u);
        html.push_str(&format!(" <a href=\"{u}\">{u}</a>"));
    }
    Reference { key: key.to_string(), names: names(key, e), year, html }
}

/// A parent as the container of `e`: "<cite>Journal</cite> 11(3)" (the parent's volume
/// and issue, else the entry's).
fn container(p: &Entry, e: &Entry) -> Option<String> {
    let mut s = p.title.as_ref().map(|t| format!("<cite>{}</cite>", escape(&t.text()))).unwrap_or_default();
    if let Some(v) = p.volume.as_ref().or(e.volume.as_ref()) {
        s.push_str(&format!(" {}", escape(&v.to_string())));
    }
    if let Some(i) = p.issue.as_ref().or(e.issue.as_ref()) {
        s.push_str(&format!("({})", escape(&i.to_string())));
    }
    let s = s.trim().to_string();
    (!s.is_empty()).then_some(s)
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

    /// Every shape hayagriva's format allows for the fields shown: people as text or
    /// parts (prefix, suffix), dates as year or full date, publisher as name or mapping,
    /// URL as text or `{ value }`, a title as `{ value }`, several parents, numbers as text.
    #[test]
    fn every_written_shape_of_the_shown_fields_is_read() {
        let yaml = "vdw:\n  type: Book\n  title: { value: Moderne Algebra, short: MA }\n  author:\n    - { name: Waerden, prefix: van der, given-name: Bartel Leendert }\n    - King, Jr., Martin Luther\n    - Jean-Pierre Serre\n  date: 1930-05-01\n  edition: 2\n  publisher: Springer\n  url: { value: 'https://x.org/a?b=1&c=2', date: 2020-01-01 }\n  doi: 10.1/x\n  language: de\nchap:\n  type: chapter\n  title: Part\n  editor: Guy, Richard K.\n  parent:\n    - { type: book, title: Games, volume: '2a', issue: 3, date: '-300' }\n  page-range: 5\n  note: reprinted\n";
        let (b, d) = parse(yaml);
        assert!(d.is_empty(), "{d:?}");
        let v = &b.entries["vdw"];
        assert_eq!(v.short(), "van der Waerden, King and Jean-Pierre Serre 1930");
        assert_eq!(
            v.html,
            "van der Waerden, B. L., King, M. L., Jr. and Jean-Pierre Serre (1930). <cite>Moderne Algebra</cite>. edition 2. Springer. <a href=\"https://x.org/a?b=1&amp;c=2\">https://x.org/a?b=1&amp;c=2</a>"
        );
        let c = &b.entries["chap"];
        assert_eq!(c.short(), "Guy -300", "the year comes from the parent");
        assert_eq!(c.html, "Guy, R. K. (-300). Part. <cite>Games</cite> 2a(3). pp. 5. reprinted.");
    }

    #[test]
    fn a_misspelt_field_or_a_missing_type_is_an_error_at_its_line() {
        let (b, d) = parse("a:\n  type: article\n  title: T\nb:\n  type: article\n  tilte: T\n");
        assert!(b.entries.is_empty());
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("tilte"), "{}", d[0].message);
        let (_, d) = parse("a:\n  title: T\n");
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("type"), "{}", d[0].message);
    }

    #[test]
    fn malformed_file_is_a_diagnostic_at_its_line() {
        let (b, d) = parse("a:\n  type: article\n  title: [unclosed\n");
        assert!(b.entries.is_empty());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, countersign_core::diag::Code::BadBibliography, "{:?}", d);
    }
}
