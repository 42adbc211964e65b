//! Rendering: essays to HTML pages with tera templates, figures to SVG, the index, the
//! static files, and each essay's published results. Knows nothing of any game.
//!
//! Templates: `base.html`, `essay.html`, `index.html`, `ladder.html` and `404.html` come
//! from a [`Theme`] (the binary embeds this repository's `templates/`); a site's own
//! `templates/` overrides them file by file and may add more. Static files likewise: the
//! theme's `style.css` and `search.js`, then the site's `static/` copied over them. [`render_site_with`] keeps what it renders in a [`Memo`] and
//! reuses every piece whose inputs are unchanged (watch mode).

pub mod bib;
pub mod feed;
pub mod figures;
pub mod links;
pub mod markdown;
pub mod math;
pub mod search;
pub mod template_bounds;
pub mod template_cycles;
pub mod template_names;
pub mod view;

pub use view::{Bytes, Discard, Output, Sink, SiteFiles, Theme};

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{json, Value};

use crate::figures::{Drawn, Meta};
use countersign_core::check::{resolve, Bound, ClaimReport, Status};
use countersign_core::config::Config;
use countersign_core::content::Essay;
use countersign_core::diag::{Code, Diagnostic};
use markdown::escape;

/// A ladder's display name when `countersign.yaml`'s `ladders:` does not give one: from
/// its anchor, `held-pass` → "Held pass".
pub fn ladder_title(anchor: &str) -> String {
    let t = anchor.replace(['-', '_'], " ");
    let mut c = t.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => t,
    }
}

/// The path part of `base_url` with a trailing slash ("/" when empty): the root for pages
/// served at any depth, such as 404.html.
pub fn base_path(base_url: &str) -> String {
    let after_scheme = base_url.split_once("://").map(|(_, r)| r).unwrap_or("");
    match after_scheme.find('/') {
        Some(i) => format!("{}/", after_scheme[i..].trim_end_matches('/')),
        None => "/".into(),
    }
}

/// A census call as the provenance list shows it.
#[derive(Clone, Debug, Serialize)]
pub struct CallInfo {
    /// The id bound in the essay.
    pub id: String,
    /// The census name.
    pub census: String,
    /// Its parameters, canonical JSON.
    pub params: String,
    /// The solver fingerprint (hex).
    pub fingerprint: String,
    /// How many claims it certifies.
    pub claims: usize,
}

/// One essay ready to render: the essay, its bound results and its checked claims.
pub struct EssayInput<'a> {
    /// The essay.
    pub essay: &'a Essay,
    /// Results bound in it, by id.
    pub bound: &'a BTreeMap<String, Bound>,
    /// Fingerprints of the bound calls, by id.
    pub fingerprints: &'a BTreeMap<String, String>,
    /// One report per claim, in order.
    pub reports: &'a [ClaimReport],
    /// [`TextKey::of`] the essay: made once when the essay was parsed and kept with it,
    /// so a render does not hash every essay's text again (a wrong key would let the
    /// render reuse another text's body).
    pub text_key: TextKey,
}

/// The identity of an essay's text: BLAKE3 over its file name, slug and source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextKey([u8; 32]);

impl TextKey {
    /// The key of `essay`'s file name, slug and text.
    pub fn of(essay: &Essay) -> TextKey {
        TextKey(Keyer::new("text").part(&essay.file).part(&essay.slug).part(essay.source.as_bytes()).key().0)
    }
}

/// Compile template texts (see [`SiteFiles::templates`]) into one tera instance, with
/// autoescaping for `.html`. Errors: a syntax error, a missing parent, an inheritance loop
/// (see [`tera_diag`]).
pub fn compile_templates(list: &[(String, String)]) -> Result<tera::Tera, tera::Error> {
    let mut t = tera::Tera::default();
    t.autoescape_on(vec![".html"]);
    t.register_function("range", template_bounds::range);
    match t.add_raw_templates(list.iter().map(|(n, s)| (n.as_str(), s.as_str()))) {
        Ok(()) => Ok(t),
        Err(e) => Err(e),
    }
}

/// Which templates rendering `name` may read: `name` itself and, transitively, every
/// template whose name its text quotes (`{% extends "base.html" %}`, `{% include "x.html"
/// %}`, `{% import "macros.html" as m %}`, or the name in any other string). Conservative:
/// a name quoted for another reason only adds a dependency, never drops one; tera keeps
/// no record of includes, so the map is read from the sources. Sorted by name.
pub fn template_closure(list: &[(String, String)], name: &str) -> Vec<String> {
    let quotes = |text: &str, other: &str| ['"', '\''].iter().any(|q| text.contains(&format!("{q}{other}{q}")));
    let mut seen = vec![name.to_string()];
    let mut i = 0;
    while i < seen.len() {
        if let Some((_, text)) = list.iter().find(|(n, _)| *n == seen[i]) {
            for (other, _) in list {
                if !seen.contains(other) && quotes(text, other) {
                    seen.push(other.clone());
                }
            }
        }
        i += 1;
    }
    seen.sort();
    seen
}

/// A tera error as a diagnostic (code `template-error`) with the whole chain of causes,
/// placed in the site's own template: at the line and column of a parse error, or at the
/// first name the error quotes (a variable that is not in the context, an unknown filter,
/// a parent) found in the template it names, then in the site's others (a parent may hold
/// the name). Built-in templates are not in the site: those diagnostics name the file
/// only. `what`: the file to name when tera names none.
pub fn tera_diag(e: &tera::Error, what: &str, site: &SiteFiles) -> Diagnostic {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    let file =
        msg.split('\'').nth(1).filter(|n| n.ends_with(".html")).map(|n| format!("templates/{n}")).unwrap_or_else(|| what.to_string());
    // A parse error carries pest's snippet ("--> 3:20", "3 | text", "|  ^---", "= expected
    // …"): keep its position for the span and only its words for the message.
    let words: Vec<&str> = msg
        .lines()
        .map(str::trim)
        .filter(|l| {
            let gutter = l.starts_with("-->") || l.starts_with('|') || (l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" |"));
            !l.is_empty() && !gutter
        })
        .map(|l| l.strip_prefix("= ").unwrap_or(l))
        .map(|l| l.find("-->").map_or(l, |i| l[..i].trim_end()))
        .collect();
    let words = words.join(" ");
    let position = msg.find("--> ").and_then(|i| {
        let lc: Vec<usize> = msg[i + 4..].split(|c: char| !c.is_ascii_digit()).take(2).filter_map(|n| n.parse().ok()).collect();
        match lc[..] {
            [l, c] => Some((l, c)),
            _ => None,
        }
    });
    // Quoted names: `variable` first, then 'filter' or 'parent.html' (not the file itself).
    let own = file.trim_start_matches("templates/").to_string();
    let mut names: Vec<String> = words.split('`').skip(1).step_by(2).map(str::to_string).collect();
    names.extend(words.split('\'').skip(1).step_by(2).filter(|n| *n != own).map(str::to_string));
    let d = Diagnostic::error(Code::TemplateError, file, 0..0, words)
        .with_hint("fix the template (tera syntax); built-in templates are in the countersign repository's templates/");
    place_template_diag(site, d, position, &names)
}

/// Point `d` (on a template) at 1-based `position` of its file, or else at the first of
/// `names` found in its file, then in the site's other templates (see [`tera_diag`]).
fn place_template_diag(site: &SiteFiles, mut d: Diagnostic, position: Option<(usize, usize)>, names: &[String]) -> Diagnostic {
    let read = |f: &str| f.strip_prefix("templates/").filter(|n| site.own_templates.contains(*n)).and_then(|n| site.template(n));
    if let Some((l, c)) = position {
        if let Some(text) = d.origin.file().and_then(read) {
            let at = countersign_core::content::offset_of(text, l, c);
            d.span = at..(at + text[at..].chars().next().map_or(0, char::len_utf8)).max(at);
        }
        return d;
    }
    let mut files: Vec<String> = d.origin.file().into_iter().map(String::from).collect();
    for n in &site.own_templates {
        let rel = format!("templates/{n}");
        if !files.contains(&rel) {
            files.push(rel);
        }
    }
    for name in names.iter().filter(|n| !n.is_empty()) {
        for f in &files {
            if let Some(at) = read(f).and_then(|t| t.find(name.as_str())) {
                d.origin = f.into();
                d.span = at..at + name.len();
                return d;
            }
        }
    }
    d
}

/// The HTML of claim number `i` of an essay: its stated text, linked to its census in
/// the provenance list, and its certificate (census, path or expression, exact value),
/// shown by CSS alone when the claim is hovered or focused and tied to it by
/// `aria-describedby`, so a screen reader reads it as the claim's description.
fn claim_html(i: usize, r: &ClaimReport) -> String {
    match r.status {
        Status::Plain => escape(&r.html_text),
        _ if r.kind == countersign_core::check::ReportKind::Assert => String::new(),
        _ => {
            let text = escape(&r.html_text);
            let class = match r.status {
                Status::Pass => "claim",
                Status::Interpolated => "claim interpolated",
                _ => "claim failed",
            };
            let cert = format!("claim-{i}-certificate");
            let link = match &r.census_id {
                Some(id) => format!("<a class=\"{class}\" href=\"#calls-{}\" aria-describedby=\"{cert}\">{text}</a>", escape(id)),
                None => format!("<span class=\"{class}\" tabindex=\"0\" aria-describedby=\"{cert}\">{text}</span>"),
            };
            format!("<span class=\"claimed\">{link}{}</span>", certificate(&cert, r))
        }
    }
}

/// A claim's certificate: which census call certifies it, the path (or expression) read,
/// the exact value computed, and that value in the stated form (`≈ 1 in 6.7, ≈ 14.9 %`).
fn certificate(id: &str, r: &ClaimReport) -> String {
    let census = match (&r.census, &r.census_id) {
        (Some(c), Some(i)) => format!("<b>{}</b> ({})", escape(c), escape(i)),
        _ => "<b>none bound</b>".to_string(),
    };
    let value = r.exact.as_deref().unwrap_or("not computed");
    let in_form = r.in_form.as_deref().map(|f| format!(" <span class=\"cert-form\">{}</span>", escape(f))).unwrap_or_default();
    format!(
        "<span class=\"certificate\" role=\"tooltip\" id=\"{id}\"><span class=\"cert-census\">census {census}</span> \
         <span class=\"cert-path\">path <code>{}</code></span> <span class=\"cert-value\">value <b>{}</b></span>{in_form}</span>",
        escape(&r.path),
        escape(value)
    )
}

/// Keep a result small for publishing: lists longer than 32 elements are cut to their
/// first 32 (with a note of the full length), nesting deeper than 6 is dropped.
pub fn summarize(v: &Value, depth: usize) -> Value {
    serde_json::to_value(Summary(v, depth)).unwrap_or(Value::Null)
}

/// A result as [`summarize`] keeps it, serialized straight from the result, without
/// building the smaller copy first (a warm build spent a fifth of its instructions
/// building, serializing and dropping those copies).
struct Summary<'a>(&'a Value, usize);

/// Elements of a list at one depth of a [`Summary`].
struct SummaryItems<'a>(&'a [Value], usize);

impl Serialize for Summary<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        const MAX_LIST: usize = 32;
        let Summary(v, depth) = *self;
        if depth > 6 {
            return s.serialize_str("…");
        }
        match v {
            Value::Array(a) if a.len() > MAX_LIST => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("first", &SummaryItems(&a[..MAX_LIST], depth + 1))?;
                m.serialize_entry("length", &a.len())?;
                m.end()
            }
            Value::Array(a) => SummaryItems(a, depth + 1).serialize(s),
            Value::Object(o) => {
                let mut m = s.serialize_map(Some(o.len()))?;
                for (k, x) in o {
                    m.serialize_entry(k, &Summary(x, depth + 1))?;
                }
                m.end()
            }
            x => x.serialize(s),
        }
    }
}

impl Serialize for SummaryItems<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|x| Summary(x, self.1)))
    }
}

/// Figures drawn without a problem, by (essay file, figure number): the key of their
/// inputs, the figure (HTML and search text) and its file.
type FigureMemo = HashMap<(String, usize), (Key, markdown::Figure, Option<(String, Bytes)>)>;

/// Draw the figures of an essay: their HTML and search text in order, their files into `files`. A figure
/// in `memo` with the key of its inputs (everything of its block but its place in the
/// essay, its number, the call its path reads) is taken from there; one drawn without a
/// problem is stored there, and counted in `made`.
fn draw_figures(
    input: &EssayInput,
    files: &mut Vec<(String, Bytes)>,
    diags: &mut Vec<Diagnostic>,
    memo: &mut FigureMemo,
    made: &mut usize,
) -> Vec<markdown::Figure> {
    let essay = input.essay;
    let mut html = Vec::new();
    for (i, f) in essay.figures.iter().enumerate() {
        let number = i + 1;
        let meta = Meta { id: &f.id, caption: &f.caption, alt: &f.alt, number };
        // An unknown kind or an id no block binds was reported by `pipeline::validate`; a
        // block with the id that failed has its own diagnostic.
        let (Some(draw), Some(b)) = (figures::lookup(&f.plot), input.bound.get(&f.from.id)) else {
            html.push(markdown::Figure::default());
            continue;
        };
        let key = figure_key(input, f, number, b);
        let place = (essay.file.clone(), number);
        if let Some((k, h, file)) = memo.get(&place) {
            if *k == key {
                html.push(h.clone());
                files.extend(file.iter().cloned());
                continue;
            }
        }
        *made += 1;
        let data = match resolve(b, &f.from) {
            Ok(d) => d,
            Err(e) => {
                diags.push(
                    Diagnostic::error(
                        Code::PathNotInResult,
                        &essay.file,
                        f.from_span.clone(),
                        format!("`{}` is not in the result of `{}`: {}", f.from, b.id, e.message),
                    )
                    .with_hint(e.hint),
                );
                html.push(markdown::Figure::default());
                continue;
            }
        };
        let caption = markdown::caption_slot(number);
        match draw(&data, &f.options, &meta) {
            Ok(Drawn::Svg(svg)) => {
                let name = format!("fig-{}.svg", f.id);
                let file = (format!("{}/{name}", essay.slug), Bytes::from(svg.into_bytes()));
                let h = format!(
                    "<figure id=\"fig-{id}\" class=\"figure\"><img src=\"{name}\" alt=\"{alt}\">{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                );
                files.push(file.clone());
                let figure = markdown::Figure { html: h, text: String::new() };
                html.push(figure.clone());
                memo.insert(place, (key, figure, Some(file)));
            }
            Ok(Drawn::Html { html: table, text }) => {
                let h = format!(
                    "<figure id=\"fig-{id}\" class=\"figure table\" aria-label=\"{alt}\" tabindex=\"0\">{table}{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                );
                let figure = markdown::Figure { html: h, text };
                html.push(figure.clone());
                memo.insert(place, (key, figure, None));
            }
            Err(e) => {
                diags.push(figure_error(essay, f, &e));
                html.push(markdown::Figure::default());
            }
        }
    }
    html
}

/// The diagnostic of a figure that could not be drawn, at the option it names (else at
/// `from:`), pointing at the figure reference.
fn figure_error(essay: &Essay, f: &countersign_core::content::FigureBlock, e: &figures::FigureError) -> Diagnostic {
    let span = match &e.key {
        Some(k) => countersign_core::content::block_key_span(&f.block, &countersign_core::yaml::Index::of(&f.block.content), k),
        None => f.from_span.clone(),
    };
    let d = Diagnostic::error(Code::FigureError, &essay.file, span, format!("figure `{}` ({}): {}", f.id, f.plot, e.message))
        .with_hint(e.hint.clone());
    if e.hint.contains("countersign figures") {
        d
    } else {
        d.with_note(figures::reference::see(&f.plot))
    }
}

/// The key of a figure's inputs: everything of its block but its place in the essay, its
/// number, and the call its path reads.
fn figure_key(input: &EssayInput, f: &countersign_core::content::FigureBlock, number: usize, b: &Bound) -> Key {
    Keyer::new("figure")
        .part(&input.essay.slug)
        .part(number.to_string())
        .part(&f.id)
        .part(&f.plot)
        .part(&f.caption)
        .part(&f.alt)
        .part(serde_json::to_string(&f.options).unwrap_or_default())
        .part(f.from.to_string())
        .part(&b.census)
        .part(serde_json::to_string(&b.params).unwrap_or_default())
        .part(input.fingerprints.get(&f.from.id).map_or("", String::as_str))
        .key()
}

/// What one render made afresh; everything else came from the [`Memo`]. A render without
/// a memory makes everything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rendered {
    /// Essay bodies rendered from Markdown.
    pub bodies: usize,
    /// Figures drawn (a body rendered again keeps the figures whose inputs are unchanged).
    pub figures: usize,
    /// HTML pages rendered through a template: essay pages, the index, ladder pages and
    /// `404.html`.
    pub pages: usize,
    /// Listings rebuilt: `search-index.json`, `feed.xml`, `sitemap.xml`.
    pub lists: usize,
    /// Static files added or replaced (bytes different from the previous render's).
    #[serde(rename = "static")]
    pub static_files: usize,
}

/// The identity of a piece's inputs: BLAKE3 over its parts, each prefixed by its length,
/// so that different inputs give different keys (short of a BLAKE3 collision).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key([u8; 32]);

struct Keyer(blake3::Hasher);

impl Keyer {
    fn new(tag: &str) -> Keyer {
        let mut k = Keyer(blake3::Hasher::new());
        k.part(tag);
        k
    }

    fn part(&mut self, bytes: impl AsRef<[u8]>) -> &mut Keyer {
        let b = bytes.as_ref();
        self.0.update(&(b.len() as u64).to_le_bytes());
        self.0.update(b);
        self
    }

    fn key(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

/// Pass 1 of one essay: its body and its figures' files.
struct BodyOut {
    body: markdown::Body,
    figures: Vec<(String, Bytes)>,
    diags: Vec<Diagnostic>,
}

/// Pass 2 of one essay: its page and what the site's listings take from it.
struct PageOut {
    page: Option<Bytes>,
    results: Bytes,
    /// The search record, serialized (the search index is these joined).
    record: Bytes,
    feed: feed::FeedEssay,
    planned: Vec<String>,
    diags: Vec<Diagnostic>,
}

/// Rendering kept between builds (watch mode). Each piece is stored with the [`Key`] of
/// every input it was made from, and reused only when the key is the same, so a render
/// with a memory is byte for byte the render without one:
///
/// - an essay's body (Markdown, math, figures): its [`TextKey`] (file, slug, text), and the (census, canonical
///   parameters, fingerprint) of each bound result, which determine the results and so the
///   claim reports;
/// - within a body rendered again, a figure drawn without a problem: its block's keys, its
///   number, the call its path reads (a prose edit redraws no figure);
/// - an essay's page (links resolved, `essay.html`, its search record, `results.json`,
///   which within a page rendered again is kept while its claims and calls are unchanged):
///   its body's key, the texts of the templates `essay.html` may read (see
///   [`template_closure`]), what its links read of the other essays ([`links::reads`]),
///   the planned titles, the bibliography's text, its ladder's front matter;
/// - the index, ladder pages and `404.html`: their template texts and their whole context;
/// - the feed and sitemap: the front matter they list; the search index: the page keys.
///
/// A changed `countersign.yaml` forgets everything. Templates are compiled again only when
/// one of their texts changed; static files are read every time and counted when their
/// bytes changed.
#[derive(Default)]
pub struct Memo {
    config: String,
    templates: Option<(Vec<(String, String)>, tera::Tera)>,
    bib: Option<(String, bib::Bibliography, Vec<Diagnostic>)>,
    bodies: HashMap<String, (Key, BodyOut)>,
    figures: FigureMemo,
    results: HashMap<String, (Key, Bytes)>,
    pages: HashMap<String, (Key, PageOut)>,
    files: HashMap<String, (Key, Option<Bytes>)>,
    /// The static files of the last render: a BLAKE3 hash of each one's bytes.
    statics: BTreeMap<String, Key>,
    /// Keep no page, figure or `results.json` once it went to the sink (see
    /// [`Memo::forgetful`]).
    forget: bool,
    /// What the latest render made afresh.
    pub last: Rendered,
}

impl Memo {
    /// A memory for one render only (`build`, `check`): each essay's page, figures and
    /// `results.json` are dropped as soon as they went to the sink, so a render holds the
    /// bytes of one page at a time besides the essays' bodies (which every page's links
    /// read) and what the site's listings take from each page. It renders what
    /// `Memo::default()` does, byte for byte; a second render with it reuses less.
    pub fn forgetful() -> Memo {
        Memo { forget: true, ..Memo::default() }
    }
}

/// Take `name` from `old` when its key is `key`, else make it; either way keep it in `new`
/// (so pieces no build asks for any more are dropped). True when it was made.
fn reuse_or<T>(
    old: &mut HashMap<String, (Key, T)>,
    new: &mut HashMap<String, (Key, T)>,
    name: &str,
    key: Key,
    make: impl FnOnce() -> T,
) -> bool {
    if let Some((k, v)) = old.remove(name) {
        if k == key {
            new.insert(name.to_string(), (k, v));
            return false;
        }
    }
    new.insert(name.to_string(), (key, make()));
    true
}

/// The site's single files (template pages and listings) between two renders.
struct Files<'a> {
    old: &'a mut HashMap<String, (Key, Option<Bytes>)>,
    new: &'a mut HashMap<String, (Key, Option<Bytes>)>,
    out: &'a mut dyn Sink,
    /// Counter of the files made afresh.
    made: &'a mut usize,
}

impl Files<'_> {
    /// `path` from the old render when its key is `key`, else `make()` (`None`: no file).
    fn list(&mut self, path: &str, key: Key, make: impl FnOnce() -> Option<Vec<u8>>) {
        let bytes = match self.old.remove(path) {
            Some((k, b)) if k == key => b,
            _ => {
                *self.made += 1;
                make().map(Bytes::from)
            }
        };
        if let Some(b) = &bytes {
            self.out.file(path, b);
        }
        self.new.insert(path.to_string(), (key, bytes));
    }

    /// [`Files::list`] for a file made as [`Bytes`] (always a file).
    fn made_bytes(&mut self, path: &str, key: Key, make: impl FnOnce() -> Bytes) {
        let bytes = match self.old.remove(path) {
            Some((k, Some(b))) if k == key => b,
            _ => {
                *self.made += 1;
                make()
            }
        };
        self.out.file(path, &bytes);
        self.new.insert(path.to_string(), (key, Some(bytes)));
    }

    /// Render `template` with the context `ctx` to `path`, unless the template texts
    /// (`templates`, see [`template_closure`]) and `ctx` are those of the old render.
    /// Errors: tera's; nothing is kept then.
    fn page(&mut self, tera: &tera::Tera, template: &str, templates: Key, ctx: &Value, path: &str) -> Result<(), tera::Error> {
        let key = Keyer::new(template).part(templates.0).part(ctx.to_string()).key();
        if let Some((k, Some(b))) = self.old.remove(path) {
            if k == key {
                self.out.file(path, &b);
                self.new.insert(path.to_string(), (k, Some(b)));
                return Ok(());
            }
        }
        *self.made += 1;
        let page = Bytes::from(template_bounds::render(tera, template, &tera::Context::from_value(ctx.clone())?)?.into_bytes());
        self.out.file(path, &page);
        self.new.insert(path.to_string(), (key, Some(page)));
        Ok(())
    }
}

/// Render every essay, the index, the ladder pages, the listings and the static files
/// into `out`, from the loaded `site` files and each essay's checked `inputs`; reads no
/// file. Problems (math, figures, templates, links) come back as diagnostics; the output
/// is only meaningful when there are none and the site crate's `pipeline::validate` found none
/// (a template naming one that does not exist is reported there, and renders nothing). Reuses from `memo` every piece whose inputs
/// are unchanged and stores what it makes (see [`Memo`]); `memo.last` says what was made
/// afresh. With a fresh `Memo::default()` everything is made; the output and diagnostics
/// are the same either way.
pub fn render_site(config: &Config, site: &SiteFiles, inputs: &[EssayInput], out: &mut dyn Sink, memo: &mut Memo) -> Vec<Diagnostic> {
    let config_key = format!("{config:?}");
    if memo.config != config_key {
        *memo = Memo { config: config_key, forget: memo.forget, ..Memo::default() };
    }
    memo.last = Rendered::default();
    let math = match math::Math::new(&config.math.macros) {
        Ok(m) => m,
        Err((name, e)) => {
            let span = name.as_deref().map_or(0..0, |n| config.spans.macro_name(n));
            let d = Diagnostic::error(Code::BadMacro, countersign_core::config::FILE, span, e).with_hint("fix the macro under math.macros");
            return vec![d];
        }
    };
    if let Err(d) = compile_into(site, memo) {
        return d;
    }
    let Some(templates) = memo.templates.take() else { return Vec::new() };
    let bibliography = parse_bibliography(site, memo);
    let ctx = SiteCtx {
        config,
        files: site,
        tera: &templates.1,
        sources: &templates.0,
        site: json!({ "title": config.title, "base_url": config.base_url, "description": config.description, "claim_marks": config.claim_marks }),
        ladders: Ladders::of(inputs, &config.ladders),
    };
    let mut diags = bibliography.2.clone();
    let body_keys = render_bodies(inputs, &math, memo, out, &mut diags);
    let listed = render_essay_pages(&ctx, inputs, &body_keys, &bibliography, memo, out, &mut diags);
    diags.extend(planned_warnings(config, &listed.planned));
    // Forget the figures and results of essays that are gone.
    // (By a map of the essays' files: a scan of the inputs per entry is quadratic.)
    let figure_counts: HashMap<&str, usize> = inputs.iter().map(|i| (i.essay.file.as_str(), i.essay.figures.len())).collect();
    memo.figures.retain(|(file, n), _| figure_counts.get(file.as_str()).is_some_and(|c| c >= n));
    memo.results.retain(|file, _| figure_counts.contains_key(file.as_str()));
    let mut old_files = std::mem::take(&mut memo.files);
    let mut files = Files { old: &mut old_files, new: &mut memo.files, out, made: &mut memo.last.pages };
    let extra_pages = render_site_pages(&ctx, &mut files, &mut diags);
    files.made = &mut memo.last.lists;
    render_listings(config, &listed, &extra_pages, &mut files);
    copy_statics(site, memo, out);
    memo.bib = Some(bibliography);
    memo.templates = Some(templates);
    diags
}

/// Compile the site's templates into `memo.templates`, unless their texts are those it
/// holds. Errors: tera's, placed in the site's templates.
fn compile_into(site: &SiteFiles, memo: &mut Memo) -> Result<(), Vec<Diagnostic>> {
    if memo.templates.as_ref().is_none_or(|(s, _)| *s != site.templates) {
        memo.templates = None;
        // Nesting past the bounds would overflow tera's stack when parsed or rendered.
        let bounds = template_bounds::check(&site.templates);
        if !bounds.is_empty() {
            return Err(bounds);
        }
        // An include cycle or a recursive macro would overflow tera's stack when rendered.
        let cycles = template_cycles::find(&site.templates);
        if !cycles.is_empty() {
            return Err(cycles);
        }
        // A name of a template that does not exist was reported by `pipeline::validate`.
        if !template_names::unknown(&site.templates).is_empty() {
            return Err(Vec::new());
        }
        let tera = compile_templates(&site.templates).map_err(|e| vec![tera_diag(&e, "templates", site)])?;
        memo.templates = Some((site.templates.clone(), tera));
    }
    Ok(())
}

/// The bibliography of `site`, parsed again only when its text is not the one `memo`
/// holds: (text, entries, diagnostics).
fn parse_bibliography(site: &SiteFiles, memo: &mut Memo) -> (String, bib::Bibliography, Vec<Diagnostic>) {
    let text = site.bibliography.clone().unwrap_or_default();
    match memo.bib.take() {
        Some(b) if b.0 == text => b,
        _ => {
            let (entries, d) = bib::parse(&text);
            (text, entries, d)
        }
    }
}

/// What every page of a render shares.
struct SiteCtx<'a> {
    config: &'a Config,
    files: &'a SiteFiles,
    tera: &'a tera::Tera,
    /// The template texts `tera` was compiled from.
    sources: &'a [(String, String)],
    /// `site` in the templates' context.
    site: Value,
    ladders: Ladders<'a>,
}

impl SiteCtx<'_> {
    /// The key of the template texts rendering `name` may read (see [`template_closure`]).
    fn template_key(&self, name: &str) -> Key {
        let mut k = Keyer::new("templates");
        for n in template_closure(self.sources, name) {
            k.part(&n);
            k.part(self.sources.iter().find(|(s, _)| *s == n).map_or("", |(_, t)| t.as_str()));
        }
        k.key()
    }

    /// `url` under the site's `base_url`, or `None` when it has none.
    fn canonical(&self, url: &str) -> Option<String> {
        (!self.config.base_url.is_empty()).then(|| format!("{}/{url}", self.config.base_url))
    }
}

/// The essays grouped by anchor, each ladder in rung order (then slug), and the essays
/// of no ladder, by title.
struct Ladders<'a> {
    ladders: BTreeMap<String, Vec<&'a Essay>>,
    loose: Vec<&'a Essay>,
    /// Titles set in `countersign.yaml`, by anchor.
    titles: &'a BTreeMap<String, String>,
}

impl<'a> Ladders<'a> {
    fn of(inputs: &[EssayInput<'a>], titles: &'a BTreeMap<String, String>) -> Ladders<'a> {
        let mut ladders: BTreeMap<String, Vec<&Essay>> = BTreeMap::new();
        let mut loose: Vec<&Essay> = Vec::new();
        for i in inputs {
            match &i.essay.front.anchor {
                Some(a) => ladders.entry(a.clone()).or_default().push(i.essay),
                None => loose.push(i.essay),
            }
        }
        for l in ladders.values_mut() {
            l.sort_by(|a, b| a.front.rung.unwrap_or(u32::MAX).cmp(&b.front.rung.unwrap_or(u32::MAX)).then(a.slug.cmp(&b.slug)));
        }
        loose.sort_by(|a, b| a.front.title.cmp(&b.front.title));
        Ladders { ladders, loose, titles }
    }

    /// The title of the ladder `anchor`: the configured one, else from the anchor.
    fn title(&self, anchor: &str) -> String {
        self.titles.get(anchor).cloned().unwrap_or_else(|| ladder_title(anchor))
    }

    /// Every ladder as the index and ladder pages show it.
    fn list(&self) -> Vec<Value> {
        self.ladders
            .iter()
            .map(|(a, l)| json!({ "anchor": a, "title": self.title(a), "essays": l.iter().map(|e| summary(e)).collect::<Vec<_>>() }))
            .collect()
    }

    /// The essays before and after `essay` in its ladder, and its ladder (each essay
    /// marked `current` or not), as its page shows them.
    fn around(&self, essay: &Essay) -> (Option<Value>, Option<Value>, Option<Value>) {
        let Some((a, l)) = essay.front.anchor.as_ref().and_then(|a| self.ladders.get(a).map(|l| (a, l))) else {
            return (None, None, None);
        };
        let pos = l.iter().position(|e| e.slug == essay.slug).unwrap_or(0);
        let prev = pos.checked_sub(1).and_then(|p| l.get(p)).map(|e| summary(e));
        let next = l.get(pos + 1).map(|e| summary(e));
        let essays: Vec<Value> = l
            .iter()
            .map(|e| {
                let mut s = summary(e);
                s["current"] = json!(e.slug == essay.slug);
                s
            })
            .collect();
        (prev, next, Some(json!({ "anchor": a, "title": self.title(a), "essays": essays })))
    }
}

/// An essay as the templates see it in lists.
fn summary(e: &Essay) -> Value {
    json!({ "title": e.front.title, "slug": e.slug, "summary": e.front.summary, "date": e.front.date, "anchor": e.front.anchor, "rung": e.front.rung, "draft": e.front.draft })
}

/// Pass 1: every essay's body (Markdown, math, figures), so that links can see every
/// essay's headings; figure files into `out`. Returns each body's key, in input order.
fn render_bodies(inputs: &[EssayInput], math: &math::Math, memo: &mut Memo, out: &mut dyn Sink, diags: &mut Vec<Diagnostic>) -> Vec<Key> {
    let mut old_bodies = std::mem::take(&mut memo.bodies);
    let mut body_keys = Vec::with_capacity(inputs.len());
    for input in inputs {
        let essay = input.essay;
        let mut k = Keyer::new("body");
        k.part(input.text_key.0);
        for (id, b) in input.bound {
            k.part(id).part(&b.census).part(serde_json::to_string(&b.params).unwrap_or_default());
            k.part(input.fingerprints.get(id).map_or("", String::as_str));
        }
        let key = k.key();
        let made = reuse_or(&mut old_bodies, &mut memo.bodies, &essay.file, key, || {
            let mut figures = Vec::new();
            let mut diags = Vec::new();
            let figure_html = draw_figures(input, &mut figures, &mut diags, &mut memo.figures, &mut memo.last.figures);
            let claim_html: Vec<String> = input.reports.iter().enumerate().map(|(i, r)| claim_html(i, r)).collect();
            let claim_text: Vec<String> = input.reports.iter().map(|r| r.html_text.clone()).collect();
            let (body, d) = markdown::render(essay, &claim_html, &claim_text, &figure_html, math);
            diags.extend(d);
            BodyOut { body, figures, diags }
        });
        memo.last.bodies += made as usize;
        if let Some((_, b)) = memo.bodies.get_mut(&essay.file) {
            for (p, bytes) in &b.figures {
                out.file(p, bytes);
            }
            diags.extend(b.diags.iter().cloned());
            if memo.forget {
                b.figures = Vec::new();
                memo.figures.clear();
            }
        }
        body_keys.push(key);
    }
    body_keys
}

/// What the site's listings take from the essay pages.
#[derive(Default)]
struct Listed {
    /// Search records, one per essay, each serialized as JSON.
    records: Vec<Bytes>,
    /// Feed entries, one per essay.
    feed: Vec<feed::FeedEssay>,
    /// The key of the search index: every page's key.
    search: Option<Key>,
    /// Planned titles linked to, with the essays that link to each.
    planned: Vec<(String, Vec<String>)>,
}

/// Pass 2: every essay's page (links resolved, `essay.html`) and `results.json` into
/// `out`; returns what the listings take from them.
fn render_essay_pages(
    ctx: &SiteCtx,
    inputs: &[EssayInput],
    body_keys: &[Key],
    bibliography: &(String, bib::Bibliography, Vec<Diagnostic>),
    memo: &mut Memo,
    out: &mut dyn Sink,
    diags: &mut Vec<Diagnostic>,
) -> Listed {
    let no_body = markdown::Body::default();
    let bodies: Vec<&markdown::Body> = inputs.iter().map(|i| memo.bodies.get(&i.essay.file).map_or(&no_body, |(_, b)| &b.body)).collect();
    let targets = links::Targets::new(
        inputs
            .iter()
            .zip(&bodies)
            .map(|(i, b)| links::Target { slug: &i.essay.slug, title: &i.essay.front.title, headings: &b.headings })
            .collect(),
    );
    let link_ctx = links::Context { essays: &targets, planned: &ctx.config.planned, bib: &bibliography.1 };
    // What every essay page depends on beyond its own body and ladder.
    let shared = Keyer::new("shared").part(&bibliography.0).part(ctx.site.to_string()).part(ctx.template_key("essay.html").0).key();
    let mut listed = Listed::default();
    let mut old_pages = std::mem::take(&mut memo.pages);
    let mut search_key = Keyer::new("search-index.json");
    for ((input, body), body_key) in inputs.iter().zip(&bodies).zip(body_keys) {
        let essay = input.essay;
        let around = ctx.ladders.around(essay);
        let key = Keyer::new("page")
            .part(body_key.0)
            .part(shared.0)
            .part(links::reads(body, &targets))
            .part(json!([around.0, around.1, around.2]).to_string())
            .key();
        let page = PageIn { ctx, input, body, around: &around, link_ctx: &link_ctx, bib: &bibliography.1 };
        let results = &mut memo.results;
        let made = reuse_or(&mut old_pages, &mut memo.pages, &essay.file, key, || render_page(&page, results));
        memo.last.pages += made as usize;
        search_key.part(key.0);
        let Some((_, p)) = memo.pages.get_mut(&essay.file) else { continue };
        diags.extend(p.diags.iter().cloned());
        for t in &p.planned {
            match listed.planned.iter_mut().find(|(x, _)| x == t) {
                Some((_, files)) => files.push(essay.file.clone()),
                None => listed.planned.push((t.clone(), vec![essay.file.clone()])),
            }
        }
        if let Some(page) = &p.page {
            out.file(&format!("{}/index.html", essay.slug), page);
        }
        listed.records.push(p.record.clone());
        listed.feed.push(p.feed.clone());
        out.file(&format!("{}/results.json", essay.slug), &p.results);
        if memo.forget {
            // Gone to the sink: an empty page stands for a page that was made.
            p.page = p.page.as_ref().map(|_| Bytes::default());
            p.results = Bytes::default();
            memo.results.clear();
        }
        if p.page.is_none() {
            // Not kept: a page whose template failed is made again next time.
            memo.pages.remove(&essay.file);
        }
    }
    listed.search = Some(search_key.key());
    listed
}

/// What one essay page is made from.
struct PageIn<'a> {
    ctx: &'a SiteCtx<'a>,
    input: &'a EssayInput<'a>,
    body: &'a markdown::Body,
    /// Previous, next and the ladder (see [`Ladders::around`]).
    around: &'a (Option<Value>, Option<Value>, Option<Value>),
    link_ctx: &'a links::Context<'a>,
    bib: &'a bib::Bibliography,
}

/// One essay's page, its search record, its feed entry and its `results.json` (taken
/// from `results` while its claims and calls are unchanged).
fn render_page(p: &PageIn, results: &mut HashMap<String, (Key, Bytes)>) -> PageOut {
    let (essay, input, ctx) = (p.input.essay, p.input, p.ctx);
    let figure_ids: Vec<String> = essay.figures.iter().map(|f| f.id.clone()).collect();
    let resolved = links::resolve(essay, p.body, &figure_ids, p.link_ctx);
    let mut references: Vec<&bib::Reference> = resolved.cited.iter().filter_map(|k| p.bib.entries.get(k)).collect();
    references.sort_by(|a, b| a.names.cmp(&b.names).then(a.year.cmp(&b.year)).then(a.key.cmp(&b.key)));
    let mut t = tera::Context::new();
    t.insert("site", &ctx.site);
    t.insert("root", "../");
    t.insert("canonical", &ctx.canonical(&format!("{}/", essay.slug)));
    t.insert("essay", &summary(essay));
    t.insert("content", &resolved.html);
    t.insert("toc", &p.body.headings);
    t.insert("calls", &call_infos(input));
    t.insert("prev", &p.around.0);
    t.insert("next", &p.around.1);
    t.insert("ladder", &p.around.2);
    t.insert("references", &references);
    let mut diags = resolved.diags;
    let page = match template_bounds::render(ctx.tera, "essay.html", &t) {
        Ok(page) => Some(Bytes::from(page.into_bytes())),
        Err(e) => {
            diags.push(tera_diag(&e, "templates/essay.html", ctx.files));
            None
        }
    };
    let record = search::record(&essay.slug, &essay.front.title, essay.front.summary.as_deref(), &resolved.text);
    let record = Bytes::from(serde_json::to_vec(&record).unwrap_or_default());
    let feed = feed::FeedEssay {
        slug: essay.slug.clone(),
        title: essay.front.title.clone(),
        summary: essay.front.summary.clone(),
        date: essay.front.date.clone(),
    };
    PageOut { page, results: results_json(input, results), record, feed, planned: resolved.planned, diags }
}

/// The census calls of an essay as its provenance list shows them.
fn call_infos(input: &EssayInput) -> Vec<CallInfo> {
    input
        .essay
        .calls
        .iter()
        .filter_map(|c| {
            let b = input.bound.get(&c.id)?;
            Some(CallInfo {
                id: c.id.clone(),
                census: b.census.clone(),
                params: serde_json::to_string(&b.params).unwrap_or_default(),
                fingerprint: input.fingerprints.get(&c.id).cloned().unwrap_or_default(),
                claims: input.reports.iter().filter(|r| r.census_id.as_deref() == Some(c.id.as_str())).count(),
            })
        })
        .collect()
}

/// A claim as an essay's `results.json` publishes it.
#[derive(Serialize)]
struct PublishedClaim<'a> {
    line: usize,
    path: &'a str,
    stated: &'a Option<String>,
    value: &'a Option<Value>,
    census: &'a Option<String>,
    status: &'a Status,
}

/// A census call as an essay's `results.json` publishes it: its result summarized.
#[derive(Serialize)]
struct PublishedCensus<'a> {
    id: &'a str,
    census: &'a str,
    params: &'a Value,
    fingerprint: Option<&'a String>,
    summary: Summary<'a>,
}

/// An essay's `results.json`.
#[derive(Serialize)]
struct Published<'a> {
    essay: &'a str,
    title: &'a str,
    claims: &'a [PublishedClaim<'a>],
    censuses: Vec<PublishedCensus<'a>>,
}

/// An essay's published results: the claimed values and capped census summaries. Kept
/// in `memo` apart from the page: it changes only with the claims (their lines) and calls.
fn results_json(input: &EssayInput, memo: &mut HashMap<String, (Key, Bytes)>) -> Bytes {
    let essay = input.essay;
    let claims: Vec<PublishedClaim> = input
        .reports
        .iter()
        .filter(|r| r.kind != countersign_core::check::ReportKind::Plain)
        .map(|r| PublishedClaim {
            line: r.line,
            path: &r.path,
            stated: &r.stated,
            value: &r.value,
            census: &r.census_id,
            status: &r.status,
        })
        .collect();
    let mut claims_hash = blake3::Hasher::new();
    let _ = serde_json::to_writer(&mut claims_hash, &claims);
    let mut key = Keyer::new("results.json");
    key.part(&essay.slug).part(&essay.front.title).part(claims_hash.finalize().as_bytes());
    for c in &essay.calls {
        if let Some(b) = input.bound.get(&c.id) {
            key.part(&c.id).part(&b.census).part(serde_json::to_string(&b.params).unwrap_or_default());
            key.part(input.fingerprints.get(&c.id).map_or("", String::as_str));
        }
    }
    let key = key.key();
    if let Some((k, r)) = memo.get(&essay.file) {
        if *k == key {
            return r.clone();
        }
    }
    let censuses: Vec<PublishedCensus> = essay
        .calls
        .iter()
        .filter_map(|c| {
            let b = input.bound.get(&c.id)?;
            let fingerprint = input.fingerprints.get(&c.id);
            Some(PublishedCensus { id: &c.id, census: &b.census, params: &b.params, fingerprint, summary: Summary(&b.result, 0) })
        })
        .collect();
    let published = Published { essay: &essay.slug, title: &essay.front.title, claims: &claims, censuses };
    let mut results = serde_json::to_vec_pretty(&published).unwrap_or_default();
    results.push(b'\n');
    let results = Bytes::from(results);
    memo.insert(essay.file.clone(), (key, results.clone()));
    results
}

/// A warning per planned title some essay links to.
fn planned_warnings(config: &Config, planned: &[(String, Vec<String>)]) -> Vec<Diagnostic> {
    planned
        .iter()
        .map(|(title, files)| {
            if let Some((file, span)) = config.drafts_left_out.get(title) {
                return Diagnostic::warning(
                    Code::Draft,
                    file,
                    span.clone(),
                    format!("the draft “{title}” is linked to from {}; the link is shown as plain text", files.join(", ")),
                )
                .with_hint("a build leaves drafts out; remove `draft: true` to publish it and its links");
            }
            Diagnostic::warning(
                Code::PlannedLink,
                countersign_core::config::FILE,
                config.spans.planned(title),
                format!("planned essay “{title}” is linked to from {} and shown as plain text", files.join(", ")),
            )
            .with_hint("write the essay (its title must match), or remove the title from `planned:` and the links to it")
        })
        .collect()
}

/// The index, one page per ladder at `/<anchor>/`, and `404.html`. Returns the ladder
/// pages' URLs (for the sitemap).
fn render_site_pages(ctx: &SiteCtx, files: &mut Files, diags: &mut Vec<Diagnostic>) -> Vec<String> {
    let ladder_list = ctx.ladders.list();
    let index = json!({
        "site": ctx.site,
        "root": "",
        "canonical": ctx.canonical(""),
        "ladders": ladder_list,
        "loose": ctx.ladders.loose.iter().map(|e| summary(e)).collect::<Vec<_>>(),
    });
    if let Err(e) = files.page(ctx.tera, "index.html", ctx.template_key("index.html"), &index, "index.html") {
        diags.push(tera_diag(&e, "templates/index.html", ctx.files));
    }
    let mut extra_pages = Vec::new();
    let ladder_template = ctx.template_key("ladder.html");
    for l in &ladder_list {
        let a = l["anchor"].as_str().unwrap_or_default();
        let page = json!({ "site": ctx.site, "root": "../", "canonical": ctx.canonical(&format!("{a}/")), "ladder": l });
        if let Err(e) = files.page(ctx.tera, "ladder.html", ladder_template, &page, &format!("{a}/index.html")) {
            diags.push(tera_diag(&e, "templates/ladder.html", ctx.files));
        }
        extra_pages.push(format!("{a}/"));
    }
    let page = json!({ "site": ctx.site, "root": base_path(&ctx.config.base_url), "canonical": None::<String> });
    if let Err(e) = files.page(ctx.tera, "404.html", ctx.template_key("404.html"), &page, "404.html") {
        diags.push(tera_diag(&e, "templates/404.html", ctx.files));
    }
    extra_pages
}

/// The listings: the search index holds every page's text, the feed and sitemap only
/// front matter.
fn render_listings(config: &Config, listed: &Listed, extra_pages: &[String], files: &mut Files) {
    let search = listed.search.unwrap_or(Keyer::new("search-index.json").key());
    files.made_bytes("search-index.json", search, || search_index(&listed.records));
    let feed_essays = &listed.feed;
    let mut key = Keyer::new("listed");
    for e in feed_essays {
        key.part(&e.slug).part(&e.title).part(or_none(&e.summary)).part(or_none(&e.date));
    }
    let key = key.key();
    files.list("feed.xml", key, || Some(feed::atom(&config.title, &config.description, &config.base_url, feed_essays).into_bytes()));
    let key = Keyer::new("sitemap").part(key.0).part(format!("{extra_pages:?}")).key();
    files.list("sitemap.xml", key, || feed::sitemap(&config.base_url, feed_essays, extra_pages).map(String::into_bytes));
}

/// An optional text as a key part: `None` is the byte 0xFF, which no UTF-8 text is.
fn or_none(s: &Option<String>) -> &[u8] {
    s.as_deref().map_or(&[0xff], str::as_bytes)
}

/// `{"essays":[...]}` as serde_json writes it, from the records serialized once each (a
/// prose edit then re-serializes one record, not every page's text), written straight
/// into the shared buffer: one copy of each record, no buffer grown or copied again.
fn search_index(records: &[Bytes]) -> Bytes {
    const HEAD: &[u8] = b"{\"essays\":[";
    const TAIL: &[u8] = b"]}\n";
    let len = HEAD.len() + TAIL.len() + records.iter().map(|r| r.len()).sum::<usize>() + records.len().saturating_sub(1);
    let mut index: std::sync::Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
    let buf = std::sync::Arc::get_mut(&mut index).expect("a buffer just made has one owner");
    let mut at = 0;
    let mut put = |b: &[u8]| {
        buf[at..at + b.len()].copy_from_slice(b);
        at += b.len();
    };
    put(HEAD);
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            put(b",");
        }
        put(r);
    }
    put(TAIL);
    Bytes::from(index)
}

/// The static files (the built-ins, the site's over them) into `out`; those whose bytes
/// differ from the last render's are counted.
fn copy_statics(site: &SiteFiles, memo: &mut Memo, out: &mut dyn Sink) {
    let mut hashes = BTreeMap::new();
    for (p, b) in &site.statics {
        let key = Keyer::new("static").part(b).key();
        if memo.statics.get(p) != Some(&key) {
            memo.last.static_files += 1;
        }
        hashes.insert(p.clone(), key);
        out.file(p, &Bytes::from(b));
    }
    memo.statics = hashes;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists past 32 elements keep their first 32 and their length; nesting past depth 6
    /// becomes "…"; scalars, keys and key order are kept; the summary serialized straight
    /// from the result is the summary built as a value.
    #[test]
    fn summaries_cap_lists_and_depth() {
        let long: Vec<u32> = (0..40).collect();
        let deep = json!([[[[[[[[1]]]]]]]]);
        let v = json!({ "z": long, "a": [1.5, null, "s", true], "deep": deep, "short": [[], {}] });
        let s = summarize(&v, 0);
        assert_eq!(s["z"]["length"], json!(40));
        assert_eq!(s["z"]["first"], json!((0..32).collect::<Vec<u32>>()));
        assert_eq!(s["a"], v["a"]);
        assert_eq!(s["short"], v["short"]);
        assert_eq!(s["deep"], json!([[[[[["…"]]]]]]));
        assert_eq!(s.as_object().unwrap().keys().collect::<Vec<_>>(), ["z", "a", "deep", "short"]);
        assert_eq!(serde_json::to_string_pretty(&Summary(&v, 0)).unwrap(), serde_json::to_string_pretty(&s).unwrap());
    }

    /// A render from strings alone: an essay, the site's own `essay.html`, a static file,
    /// a bibliography; no file is read.
    fn site(template: &str) -> (Essay, SiteFiles) {
        let source = "---\ntitle: Strings\nanchor: ladder\nrung: 1\n---\n\n# Strings\n\nAs [@conway] shows.\n".to_string();
        let (essay, d) = countersign_core::content::parse_essay("essays/strings.md", "essays/strings.md".into(), source);
        assert!(d.is_empty(), "{d:?}");
        let mut files = SiteFiles::of_theme(&crate::view::REPOSITORY_THEME);
        files.templates.retain(|(n, _)| n != "essay.html");
        files.templates.push(("essay.html".into(), template.into()));
        files.own_templates.insert("essay.html".into());
        files.statics.insert("img/dot.svg".into(), b"<svg/>".to_vec());
        files.own_statics.insert("img/dot.svg".into());
        files.bibliography = Some("conway:\n  type: book\n  title: On Numbers and Games\n  author: Conway, John H.\n  date: 1976\n".into());
        (essay.unwrap(), files)
    }

    fn render(essay: &Essay, files: &SiteFiles) -> (Output, Vec<Diagnostic>) {
        let (bound, fingerprints) = (BTreeMap::new(), BTreeMap::new());
        let inputs = [EssayInput { essay, bound: &bound, fingerprints: &fingerprints, reports: &[], text_key: TextKey::of(essay) }];
        let mut out = Output::default();
        let diags = render_site(&Config::default(), files, &inputs, &mut out, &mut Memo::default());
        (out, diags)
    }

    #[test]
    fn a_site_made_of_strings_renders_to_its_pages() {
        let (essay, files) = site("<main>{{ essay.title }}|{{ content | safe }}|{% for r in references %}{{ r.key }}{% endfor %}</main>");
        let (out, diags) = render(&essay, &files);
        assert!(diags.is_empty(), "{diags:?}");
        let page = String::from_utf8(out.files["strings/index.html"].to_vec()).unwrap();
        assert!(page.starts_with("<main>Strings|") && page.ends_with("|conway</main>"), "{page}");
        assert!(page.contains("<a class=\"cite\" href=\"#ref-conway\">"), "{page}");
        assert_eq!(out.files["img/dot.svg"], b"<svg/>");
        for p in ["index.html", "ladder/index.html", "404.html", "strings/results.json", "search-index.json", "feed.xml", "style.css"] {
            assert!(out.files.contains_key(p), "no {p}");
        }
    }

    /// The search index, joined from records serialized one by one, is what serde_json
    /// writes for `{"essays": [records]}` (two essays, so the separator is covered).
    #[test]
    fn the_search_index_is_serde_jsons_serialization_of_the_records() {
        let (essay, files) = site("<main>{{ content | safe }}</main>");
        let mut other = essay.clone();
        other.file = "essays/other.md".into();
        other.slug = "other".into();
        other.front.title = "Other \"quoted\" title".into();
        let (bound, fingerprints) = (BTreeMap::new(), BTreeMap::new());
        let inputs = [
            EssayInput { essay: &essay, bound: &bound, fingerprints: &fingerprints, reports: &[], text_key: TextKey::of(&essay) },
            EssayInput { essay: &other, bound: &bound, fingerprints: &fingerprints, reports: &[], text_key: TextKey::of(&other) },
        ];
        let mut out = Output::default();
        render_site(&Config::default(), &files, &inputs, &mut out, &mut Memo::default());
        let index = &out.files["search-index.json"];
        let parsed: Value = serde_json::from_slice(index).unwrap();
        assert_eq!(parsed["essays"].as_array().map(Vec::len), Some(2));
        let mut expected = serde_json::to_vec(&json!({ "essays": parsed["essays"] })).unwrap();
        expected.push(b'\n');
        assert_eq!(*index, expected);
    }

    #[test]
    fn a_template_error_points_into_the_sites_template_text() {
        let (essay, files) = site("<main>\n  {{ essay.title }} {{ nowhere }}\n</main>");
        let (out, diags) = render(&essay, &files);
        assert!(!out.files.contains_key("strings/index.html"));
        let d = diags.iter().find(|d| d.code == Code::TemplateError).expect("a template error");
        assert_eq!(d.origin.file(), Some("templates/essay.html"));
        assert_eq!(&files.template("essay.html").unwrap()[d.span.clone()], "nowhere");
    }
}
