//! Rendering: essays to HTML pages with tera templates, figures to SVG, the index, the
//! static files, and each essay's published results. Knows nothing of any game.
//!
//! Templates: `base.html`, `essay.html` and `index.html` are built into the binary (from
//! this repository's `templates/`); a site's own `templates/` overrides them file by file
//! and may add more. Static files likewise: the built-in `style.css`, then the site's
//! `static/` copied over it. [`render_site_with`] keeps what it renders in a [`Memo`] and
//! reuses every piece whose inputs are unchanged (watch mode).

pub mod bib;
pub mod feed;
pub mod links;
pub mod markdown;
pub mod math;
pub mod search;
pub mod template_cycles;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use crate::check::{resolve, Bound, ClaimReport, Status};
use crate::content::Essay;
use crate::diag::Diagnostic;
use crate::figures::{self, Drawn, Meta};
use crate::site::config::Config;
use crate::site::output::Output;
use markdown::escape;

/// Built-in templates: (name, text).
pub const BUILTIN_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("essay.html", include_str!("../../templates/essay.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("ladder.html", include_str!("../../templates/ladder.html")),
    ("404.html", include_str!("../../templates/404.html")),
];

/// Built-in static files: (path, bytes).
pub const BUILTIN_STATIC: &[(&str, &[u8])] =
    &[("style.css", include_bytes!("../../static/style.css")), ("search.js", include_bytes!("../../static/search.js"))];

/// A ladder's display name from its anchor: `held-pass` → "Held pass".
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
}

/// The texts of the templates a site renders with, by name: the built-ins, each replaced
/// by the site's `templates/<name>` when it has one, then the site's others (sorted by
/// name). Errors: a template or the folder cannot be read.
pub fn template_sources(root: &Path) -> (Vec<(String, String)>, Vec<Diagnostic>) {
    let mut list: Vec<(String, String)> = BUILTIN_TEMPLATES.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    let mut diags = Vec::new();
    let dir = root.join("templates");
    if dir.is_dir() {
        for e in walkdir::WalkDir::new(&dir).follow_links(true).sort_by_file_name().into_iter() {
            match e {
                Ok(e) if e.file_type().is_file() => {
                    let rel = e.path().strip_prefix(&dir).unwrap_or(e.path()).to_string_lossy().replace('\\', "/");
                    if !rel.ends_with(".html") {
                        continue;
                    }
                    match crate::source::read_text(e.path()) {
                        Ok(t) => {
                            list.retain(|(n, _)| *n != rel);
                            list.push((rel, t));
                        }
                        Err(err) => diags.push(Diagnostic::error(format!("templates/{rel}"), 0..0, format!("cannot read template: {err}"))),
                    }
                }
                Ok(_) => {}
                Err(err) => diags.push(Diagnostic::error("templates", 0..0, format!("cannot read templates: {err}"))),
            }
        }
    }
    (list, diags)
}

/// Compile template texts (from [`template_sources`]) into one tera instance, with
/// autoescaping for `.html`. Errors: a syntax error, a missing parent, an inheritance loop.
pub fn compile_templates(list: &[(String, String)]) -> Result<tera::Tera, Vec<Diagnostic>> {
    let mut t = tera::Tera::default();
    t.autoescape_on(vec![".html"]);
    let cycles = template_cycles::find(list);
    if !cycles.is_empty() {
        return Err(cycles);
    }
    match t.add_raw_templates(list.iter().map(|(n, s)| (n.as_str(), s.as_str()))) {
        Ok(()) => Ok(t),
        Err(e) => Err(vec![tera_diag(&e, "templates")]),
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

/// A tera error as a diagnostic, with the whole chain of causes.
pub fn tera_diag(e: &tera::Error, what: &str) -> Diagnostic {
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
    // …"): keep its position for the span (see `place_template_diag`) and only its words
    // for the message.
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
    let mut d = Diagnostic::error(file, 0..0, words.join(" "))
        .with_hint("fix the template (tera syntax); built-in templates are in the countersign repository's templates/");
    if let Some(pos) = msg.find("--> ").map(|i| &msg[i + 4..]) {
        let lc: Vec<usize> = pos.split(|c: char| !c.is_ascii_digit()).take(2).filter_map(|n| n.parse().ok()).collect();
        if let [l, c] = lc[..] {
            d = d.with_note(format!("at {l}:{c}"));
        }
    }
    d
}

/// Point a template diagnostic at its place in the site's own template: the line and
/// column of a parse error, or the first `name` the message quotes (a variable that is not
/// in the context, an unknown filter) found in the template. A template of the site's
/// other than the one the message names is searched too (a parent may hold the name).
/// Built-in templates are not in the site: those diagnostics keep naming the file only.
fn place_template_diag(root: &Path, mut d: Diagnostic) -> Diagnostic {
    let read = |f: &str| std::fs::read(root.join(f)).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    if let Some(i) = d.notes.iter().position(|n| n.starts_with("at ")) {
        let note = d.notes.remove(i);
        let lc: Vec<usize> = note[3..].split(':').filter_map(|n| n.parse().ok()).collect();
        if let (Some(text), [l, c]) = (read(&d.file), &lc[..]) {
            let at = crate::content::offset_of(&text, *l, *c);
            d.span = at..(at + text[at..].chars().next().map_or(0, char::len_utf8)).max(at);
        }
        return d;
    }
    // Quoted names: `variable` first, then 'filter' or 'parent.html' (not the file itself).
    let own = d.file.trim_start_matches("templates/").to_string();
    let mut names: Vec<String> = d.message.split('`').skip(1).step_by(2).map(str::to_string).collect();
    names.extend(d.message.split('\'').skip(1).step_by(2).filter(|n| *n != own).map(str::to_string));
    let mut files = vec![d.file.clone()];
    if let Ok(rd) = walkdir::WalkDir::new(root.join("templates")).sort_by_file_name().into_iter().collect::<Result<Vec<_>, _>>() {
        for e in rd.iter().filter(|e| e.file_type().is_file()) {
            let rel = format!(
                "templates/{}",
                e.path().strip_prefix(root.join("templates")).unwrap_or(e.path()).to_string_lossy().replace('\\', "/")
            );
            if !files.contains(&rel) {
                files.push(rel);
            }
        }
    }
    for name in names.iter().filter(|n| !n.is_empty()) {
        for f in &files {
            if let Some(at) = read(f).and_then(|t| t.find(name.as_str())) {
                d.file = f.clone();
                d.span = at..at + name.len();
                return d;
            }
        }
    }
    d
}

fn claim_html(r: &ClaimReport) -> String {
    match r.status {
        Status::Plain => escape(&r.html_text),
        _ if r.kind == "assert" => String::new(),
        _ => {
            let text = escape(&r.html_text);
            let class = match r.status {
                Status::Pass => "claim",
                Status::Interpolated => "claim interpolated",
                _ => "claim failed",
            };
            match &r.census_id {
                Some(id) => format!("<a class=\"{class}\" href=\"#calls-{}\">{text}</a>", escape(id)),
                None => format!("<span class=\"{class}\">{text}</span>"),
            }
        }
    }
}

/// Keep a result small for publishing: lists longer than 32 elements are cut to their
/// first 32 (with a note of the full length), nesting deeper than 6 is dropped.
pub fn summarize(v: &Value, depth: usize) -> Value {
    const MAX_LIST: usize = 32;
    if depth > 6 {
        return json!("…");
    }
    match v {
        Value::Array(a) if a.len() > MAX_LIST => {
            json!({ "first": a[..MAX_LIST].iter().map(|x| summarize(x, depth + 1)).collect::<Vec<_>>(), "length": a.len() })
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| summarize(x, depth + 1)).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), summarize(x, depth + 1))).collect()),
        x => x.clone(),
    }
}

/// Figures drawn without a problem, by (essay file, figure number): the key of their
/// inputs, their HTML and their file.
type FigureMemo = HashMap<(String, usize), (Key, String, Option<(String, Vec<u8>)>)>;

/// Draw the figures of an essay: their HTML in order, their files into `files`. A figure
/// in `memo` with the key of its inputs (everything of its block but its place in the
/// essay, its number, the call its path reads) is taken from there; one drawn without a
/// problem is stored there, and counted in `made`.
fn draw_figures(
    input: &EssayInput,
    files: &mut Vec<(String, Vec<u8>)>,
    diags: &mut Vec<Diagnostic>,
    memo: &mut FigureMemo,
    made: &mut usize,
) -> Vec<String> {
    let essay = input.essay;
    let mut html = Vec::new();
    for (i, f) in essay.figures.iter().enumerate() {
        let number = i + 1;
        let meta = Meta { id: &f.id, caption: &f.caption, alt: &f.alt, number };
        let Some(draw) = figures::lookup(&f.plot) else {
            let kinds: Vec<&str> = figures::KINDS.iter().map(|(k, _)| *k).collect();
            diags.push(
                Diagnostic::error(&essay.file, f.plot_span.clone(), format!("unknown figure kind `{}`", f.plot))
                    .with_hint(format!("figure kinds: {}", kinds.join(", "))),
            );
            html.push(String::new());
            continue;
        };
        let Some(b) = input.bound.get(&f.from.id) else {
            // A census block with this id that failed has its own diagnostic already.
            if !essay.calls.iter().any(|c| c.id == f.from.id) {
                diags.push(
                    Diagnostic::error(&essay.file, f.from_span.clone(), format!("no census result is bound to `{}`", f.from.id))
                        .with_hint(crate::check::unknown_id_hint(essay)),
                );
            }
            html.push(String::new());
            continue;
        };
        let key = Keyer::new("figure")
            .part(&essay.slug)
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
            .key();
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
                        &essay.file,
                        f.from_span.clone(),
                        format!("`{}` is not in the result of `{}`: {}", f.from, b.id, e.message),
                    )
                    .with_hint(e.hint),
                );
                html.push(String::new());
                continue;
            }
        };
        let caption = format!("<figcaption><span class=\"fig-number\">Figure {number}.</span> {}</figcaption>", escape(&f.caption));
        match draw(&data, &f.options, &meta) {
            Ok(Drawn::Svg(svg)) => {
                let name = format!("fig-{}.svg", f.id);
                let file = (format!("{}/{name}", essay.slug), svg.into_bytes());
                let h = format!(
                    "<figure id=\"fig-{id}\" class=\"figure\"><img src=\"{name}\" alt=\"{alt}\">{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                );
                files.push(file.clone());
                html.push(h.clone());
                memo.insert(place, (key, h, Some(file)));
            }
            Ok(Drawn::Html(table)) => {
                let h = format!(
                    "<figure id=\"fig-{id}\" class=\"figure table\" aria-label=\"{alt}\">{table}{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                );
                html.push(h.clone());
                memo.insert(place, (key, h, None));
            }
            Err(e) => {
                let span = match &e.key {
                    Some(k) => crate::content::block_key_span(&f.block, k),
                    None => f.from_span.clone(),
                };
                diags
                    .push(Diagnostic::error(&essay.file, span, format!("figure `{}` ({}): {}", f.id, f.plot, e.message)).with_hint(e.hint));
                html.push(String::new());
            }
        }
    }
    html
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
    figures: Vec<(String, Vec<u8>)>,
    diags: Vec<Diagnostic>,
}

/// Pass 2 of one essay: its page and what the site's listings take from it.
struct PageOut {
    page: Option<Vec<u8>>,
    results: Vec<u8>,
    record: Value,
    feed: feed::FeedEssay,
    planned: Vec<String>,
    diags: Vec<Diagnostic>,
}

/// Rendering kept between builds (watch mode). Each piece is stored with the [`Key`] of
/// every input it was made from, and reused only when the key is the same, so a render
/// with a memory is byte for byte the render without one:
///
/// - an essay's body (Markdown, math, figures): its file, text, and the (census, canonical
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
    results: HashMap<String, (Key, Vec<u8>)>,
    pages: HashMap<String, (Key, PageOut)>,
    files: HashMap<String, (Key, Option<Vec<u8>>)>,
    statics: BTreeMap<String, Vec<u8>>,
    /// What the latest render made afresh.
    pub last: Rendered,
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
    old: &'a mut HashMap<String, (Key, Option<Vec<u8>>)>,
    new: &'a mut HashMap<String, (Key, Option<Vec<u8>>)>,
    out: &'a mut Output,
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
                make()
            }
        };
        if let Some(b) = &bytes {
            self.out.insert(path, b.clone());
        }
        self.new.insert(path.to_string(), (key, bytes));
    }

    /// Render `template` with the context `ctx` to `path`, unless the template texts
    /// (`templates`, see [`template_closure`]) and `ctx` are those of the old render.
    /// Errors: tera's; nothing is kept then.
    fn page(&mut self, tera: &tera::Tera, template: &str, templates: Key, ctx: &Value, path: &str) -> Result<(), tera::Error> {
        let key = Keyer::new(template).part(templates.0).part(ctx.to_string()).key();
        if let Some((k, Some(b))) = self.old.remove(path) {
            if k == key {
                self.out.insert(path, b.clone());
                self.new.insert(path.to_string(), (k, Some(b)));
                return Ok(());
            }
        }
        *self.made += 1;
        let page = tera.render(template, &tera::Context::from_value(ctx.clone())?)?.into_bytes();
        self.out.insert(path, page.clone());
        self.new.insert(path.to_string(), (key, Some(page)));
        Ok(())
    }
}

/// Render every essay, the index and the static files into `out`. Problems (math,
/// figures, templates) come back as diagnostics; the output is only meaningful when there
/// are none.
pub fn render_site(root: &Path, config: &Config, inputs: &[EssayInput], out: &mut Output) -> Vec<Diagnostic> {
    render_site_with(root, config, inputs, out, &mut Memo::default())
}

/// [`render_site`], reusing from `memo` every piece whose inputs are unchanged and storing
/// what it makes (see [`Memo`]); `memo.last` says what was made afresh. The output and the
/// diagnostics are the same as [`render_site`]'s.
pub fn render_site_with(root: &Path, config: &Config, inputs: &[EssayInput], out: &mut Output, memo: &mut Memo) -> Vec<Diagnostic> {
    let config_key = format!("{config:?}");
    if memo.config != config_key {
        *memo = Memo { config: config_key, ..Memo::default() };
    }
    memo.last = Rendered::default();
    let mut diags = Vec::new();
    let math = match math::Math::new(&config.math.macros) {
        Ok(m) => m,
        Err((name, e)) => {
            let span = name.as_deref().map_or(0..0, |n| config.spans.macro_name(n));
            diags.push(Diagnostic::error(crate::site::config::FILE, span, e).with_hint("fix the macro under math.macros"));
            return diags;
        }
    };
    let (sources, d) = template_sources(root);
    if !d.is_empty() {
        return d.into_iter().map(|d| place_template_diag(root, d)).collect();
    }
    if memo.templates.as_ref().is_none_or(|(s, _)| *s != sources) {
        memo.templates = None;
        match compile_templates(&sources) {
            Ok(t) => memo.templates = Some((sources, t)),
            Err(d) => return d.into_iter().map(|d| place_template_diag(root, d)).collect(),
        }
    }
    let Some((sources, tera)) = &memo.templates else { return diags };
    let template_key = |name: &str| {
        let mut k = Keyer::new("templates");
        for n in template_closure(sources, name) {
            k.part(&n);
            k.part(sources.iter().find(|(s, _)| *s == n).map_or("", |(_, t)| t.as_str()));
        }
        k.key()
    };
    let site = json!({ "title": config.title, "base_url": config.base_url, "description": config.description });
    // Ladders: essays grouped by anchor in rung order, then the loose ones by title.
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
    let summary = |e: &Essay| json!({ "title": e.front.title, "slug": e.slug, "summary": e.front.summary, "date": e.front.date, "anchor": e.front.anchor, "rung": e.front.rung });
    // An anchor page lives at /<anchor>/: it must not take an essay's place.
    for i in inputs {
        if let Some(a) = &i.essay.front.anchor {
            if inputs.iter().any(|o| o.essay.slug == *a) {
                let at = i.essay.source.find("anchor:").unwrap_or(0);
                diags.push(
                    Diagnostic::error(
                        &i.essay.file,
                        at..at + 7,
                        format!("the ladder `{a}` would take the place of the essay essays/{a}.md at /{a}/"),
                    )
                    .with_hint("rename the anchor or the essay: a ladder's page and an essay share one URL space"),
                );
            }
        }
    }
    // The bibliography, parsed again only when its text changed.
    let bib_text = match bib::read(root) {
        Ok(t) => t,
        Err(d) => {
            memo.bib = None;
            diags.push(d);
            None
        }
    };
    let bib_text = bib_text.unwrap_or_default();
    if memo.bib.as_ref().is_none_or(|(t, _, _)| *t != bib_text) {
        let (b, d) = bib::parse(&bib_text);
        memo.bib = Some((bib_text, b, d));
    }
    let Some((bib_text, bibliography, d)) = &memo.bib else { return diags };
    diags.extend(d.iter().cloned());
    // Pass 1: every body, so that links can see every essay's headings.
    let mut old_bodies = std::mem::take(&mut memo.bodies);
    let mut body_keys = Vec::with_capacity(inputs.len());
    for input in inputs {
        let essay = input.essay;
        let mut k = Keyer::new("body");
        k.part(&essay.file).part(&essay.slug).part(&essay.source);
        for (id, b) in input.bound {
            k.part(id).part(&b.census).part(serde_json::to_string(&b.params).unwrap_or_default());
            k.part(input.fingerprints.get(id).map_or("", String::as_str));
        }
        let key = k.key();
        let made = reuse_or(&mut old_bodies, &mut memo.bodies, &essay.file, key, || {
            let mut figures = Vec::new();
            let mut diags = Vec::new();
            let figure_html = draw_figures(input, &mut figures, &mut diags, &mut memo.figures, &mut memo.last.figures);
            let claim_html: Vec<String> = input.reports.iter().map(claim_html).collect();
            let claim_text: Vec<String> = input.reports.iter().map(|r| r.html_text.clone()).collect();
            let (body, d) = markdown::render(essay, &claim_html, &claim_text, &figure_html, &math);
            diags.extend(d);
            BodyOut { body, figures, diags }
        });
        memo.last.bodies += made as usize;
        if let Some((_, b)) = memo.bodies.get(&essay.file) {
            for (p, bytes) in &b.figures {
                out.insert(p.clone(), bytes.clone());
            }
            diags.extend(b.diags.iter().cloned());
        }
        body_keys.push(key);
    }
    let no_body = markdown::Body::default();
    let bodies: Vec<&markdown::Body> = inputs.iter().map(|i| memo.bodies.get(&i.essay.file).map_or(&no_body, |(_, b)| &b.body)).collect();
    let targets: Vec<links::Target> = inputs
        .iter()
        .zip(&bodies)
        .map(|(i, b)| links::Target { slug: i.essay.slug.clone(), title: i.essay.front.title.clone(), headings: b.headings.clone() })
        .collect();
    let link_ctx = links::Context { essays: &targets, planned: &config.planned, bib: bibliography };
    // What every essay page depends on beyond its own body and ladder.
    let shared = Keyer::new("shared").part(bib_text).part(site.to_string()).part(template_key("essay.html").0).key();
    let mut planned: Vec<(String, Vec<String>)> = Vec::new();
    let mut records = Vec::new();
    let mut feed_essays = Vec::new();
    let mut old_pages = std::mem::take(&mut memo.pages);
    let mut search_key = Keyer::new("search-index.json");
    for ((input, body), body_key) in inputs.iter().zip(&bodies).zip(&body_keys) {
        let essay = input.essay;
        let ladder = essay.front.anchor.as_ref().and_then(|a| ladders.get(a).map(|l| (a, l)));
        let (prev, next) = match ladder {
            Some((_, l)) => {
                let pos = l.iter().position(|e| e.slug == essay.slug).unwrap_or(0);
                (pos.checked_sub(1).and_then(|p| l.get(p)).map(|e| summary(e)), l.get(pos + 1).map(|e| summary(e)))
            }
            None => (None, None),
        };
        let ladder_json = ladder.map(|(a, l)| {
            json!({ "anchor": a, "title": ladder_title(a), "essays": l.iter().map(|e| { let mut s = summary(e); s["current"] = json!(e.slug == essay.slug); s }).collect::<Vec<_>>() })
        });
        let key = Keyer::new("page")
            .part(body_key.0)
            .part(shared.0)
            .part(links::reads(body, &targets))
            .part(json!([prev, next, ladder_json]).to_string())
            .key();
        let made = reuse_or(&mut old_pages, &mut memo.pages, &essay.file, key, || {
            let figure_ids: Vec<String> = essay.figures.iter().map(|f| f.id.clone()).collect();
            let resolved = links::resolve(essay, body, &figure_ids, &link_ctx);
            let mut references: Vec<&bib::Reference> = resolved.cited.iter().filter_map(|k| bibliography.entries.get(k)).collect();
            references.sort_by(|a, b| a.names.cmp(&b.names).then(a.year.cmp(&b.year)).then(a.key.cmp(&b.key)));
            let calls: Vec<CallInfo> = essay
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
                .collect();
            let mut ctx = tera::Context::new();
            ctx.insert("site", &site);
            ctx.insert("root", "../");
            ctx.insert("canonical", &(!config.base_url.is_empty()).then(|| format!("{}/{}/", config.base_url, essay.slug)));
            ctx.insert("essay", &summary(essay));
            ctx.insert("content", &resolved.html);
            ctx.insert("toc", &body.headings);
            ctx.insert("calls", &calls);
            ctx.insert("prev", &prev);
            ctx.insert("next", &next);
            ctx.insert("ladder", &ladder_json);
            ctx.insert("references", &references);
            let mut diags = resolved.diags;
            let page = match tera.render("essay.html", &ctx) {
                Ok(page) => Some(page.into_bytes()),
                Err(e) => {
                    diags.push(place_template_diag(root, tera_diag(&e, "templates/essay.html")));
                    None
                }
            };
            let record = search::record(&essay.slug, &essay.front.title, essay.front.summary.as_deref(), &resolved.html);
            let feed = feed::FeedEssay {
                slug: essay.slug.clone(),
                title: essay.front.title.clone(),
                summary: essay.front.summary.clone(),
                date: essay.front.date.clone(),
            };
            // Published results: the claimed values and capped census summaries.
            let claims: Vec<Value> = input
                .reports
                .iter()
                .filter(|r| r.kind != "plain")
                .map(|r| json!({ "line": r.line, "path": r.path, "stated": r.stated, "value": r.value, "census": r.census_id, "status": r.status }))
                .collect();
            // Kept apart from the page: it changes only with the claims (their lines) and calls.
            let mut key = Keyer::new("results.json");
            key.part(&essay.slug).part(&essay.front.title).part(serde_json::to_string(&claims).unwrap_or_default());
            for c in &essay.calls {
                if let Some(b) = input.bound.get(&c.id) {
                    key.part(&c.id).part(&b.census).part(serde_json::to_string(&b.params).unwrap_or_default());
                    key.part(input.fingerprints.get(&c.id).map_or("", String::as_str));
                }
            }
            let key = key.key();
            let results = match memo.results.get(&essay.file) {
                Some((k, r)) if *k == key => r.clone(),
                _ => {
                    let censuses: Vec<Value> = essay
                        .calls
                        .iter()
                        .filter_map(|c| {
                            let b = input.bound.get(&c.id)?;
                            Some(json!({ "id": c.id, "census": b.census, "params": b.params, "fingerprint": input.fingerprints.get(&c.id), "summary": summarize(&b.result, 0) }))
                        })
                        .collect();
                    let results = json!({ "essay": essay.slug, "title": essay.front.title, "claims": claims, "censuses": censuses });
                    let mut results = serde_json::to_vec_pretty(&results).unwrap_or_default();
                    results.push(b'\n');
                    memo.results.insert(essay.file.clone(), (key, results.clone()));
                    results
                }
            };
            PageOut { page, results, record, feed, planned: resolved.planned, diags }
        });
        memo.last.pages += made as usize;
        search_key.part(key.0);
        let Some((_, p)) = memo.pages.get(&essay.file) else { continue };
        diags.extend(p.diags.iter().cloned());
        for t in &p.planned {
            match planned.iter_mut().find(|(x, _)| x == t) {
                Some((_, files)) => files.push(essay.file.clone()),
                None => planned.push((t.clone(), vec![essay.file.clone()])),
            }
        }
        if let Some(page) = &p.page {
            out.insert(format!("{}/index.html", essay.slug), page.clone());
        }
        records.push(p.record.clone());
        feed_essays.push(p.feed.clone());
        out.insert(format!("{}/results.json", essay.slug), p.results.clone());
        if p.page.is_none() {
            // Not kept: a template error's diagnostic is placed by reading the site's templates.
            memo.pages.remove(&essay.file);
        }
    }
    for (title, files) in &planned {
        diags.push(
            Diagnostic::warning(
                crate::site::config::FILE,
                config.spans.planned(title),
                format!("planned essay “{title}” is linked to from {} and shown as plain text", files.join(", ")),
            )
            .with_hint("write the essay (its title must match), or remove the title from `planned:` and the links to it"),
        );
    }
    let ladder_list: Vec<Value> = ladders
        .iter()
        .map(|(a, l)| json!({ "anchor": a, "title": ladder_title(a), "essays": l.iter().map(|e| summary(e)).collect::<Vec<_>>() }))
        .collect();
    // Forget the figures and results of essays that are gone.
    memo.figures.retain(|(file, n), _| inputs.iter().any(|i| i.essay.file == *file && i.essay.figures.len() >= *n));
    memo.results.retain(|file, _| inputs.iter().any(|i| i.essay.file == *file));
    let mut old_files = std::mem::take(&mut memo.files);
    let mut files = Files { old: &mut old_files, new: &mut memo.files, out, made: &mut memo.last.pages };
    let ctx = json!({
        "site": site,
        "root": "",
        "canonical": (!config.base_url.is_empty()).then(|| format!("{}/", config.base_url)),
        "ladders": ladder_list,
        "loose": loose.iter().map(|e| summary(e)).collect::<Vec<_>>(),
    });
    if let Err(e) = files.page(tera, "index.html", template_key("index.html"), &ctx, "index.html") {
        diags.push(place_template_diag(root, tera_diag(&e, "templates/index.html")));
    }
    // One page per ladder, at /<anchor>/.
    let mut extra_pages = Vec::new();
    let ladder_template = template_key("ladder.html");
    for l in &ladder_list {
        let a = l["anchor"].as_str().unwrap_or_default();
        let ctx = json!({
            "site": site,
            "root": "../",
            "canonical": (!config.base_url.is_empty()).then(|| format!("{}/{a}/", config.base_url)),
            "ladder": l,
        });
        if let Err(e) = files.page(tera, "ladder.html", ladder_template, &ctx, &format!("{a}/index.html")) {
            diags.push(tera_diag(&e, "templates/ladder.html"));
        }
        extra_pages.push(format!("{a}/"));
    }
    let ctx = json!({ "site": site, "root": base_path(&config.base_url), "canonical": None::<String> });
    if let Err(e) = files.page(tera, "404.html", template_key("404.html"), &ctx, "404.html") {
        diags.push(tera_diag(&e, "templates/404.html"));
    }
    // The listings: the search index holds every page's text, the feed and sitemap only
    // front matter.
    files.made = &mut memo.last.lists;
    files.list("search-index.json", search_key.key(), || {
        let mut index = serde_json::to_vec(&json!({ "essays": records })).unwrap_or_default();
        index.push(b'\n');
        Some(index)
    });
    let listed = Keyer::new("listed").part(format!("{feed_essays:?}")).key();
    files.list("feed.xml", listed, || Some(feed::atom(&config.title, &config.description, &config.base_url, &feed_essays).into_bytes()));
    let key = Keyer::new("sitemap").part(listed.0).part(format!("{extra_pages:?}")).key();
    files.list("sitemap.xml", key, || feed::sitemap(&config.base_url, &feed_essays, &extra_pages).map(String::into_bytes));
    // Static files: the built-ins, then the site's over them; all read, those whose bytes
    // changed counted.
    let mut statics: BTreeMap<String, Vec<u8>> = BUILTIN_STATIC.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect();
    let dir = root.join("static");
    if dir.is_dir() {
        for e in walkdir::WalkDir::new(&dir).follow_links(true).sort_by_file_name() {
            match e {
                Ok(e) if e.file_type().is_file() => {
                    let rel = e.path().strip_prefix(&dir).unwrap_or(e.path()).to_string_lossy().replace('\\', "/");
                    match crate::source::read_source(e.path(), crate::source::STATIC_LIMIT) {
                        Ok(b) => {
                            statics.insert(rel, b);
                        }
                        Err(err) => diags.push(Diagnostic::error(format!("static/{rel}"), 0..0, format!("cannot read: {err}"))),
                    }
                }
                Ok(_) => {}
                Err(err) => diags.push(Diagnostic::error("static", 0..0, format!("cannot read static files: {err}"))),
            }
        }
    }
    for (p, b) in &statics {
        if memo.statics.get(p) != Some(b) {
            memo.last.static_files += 1;
        }
        out.insert(p.clone(), b.clone());
    }
    memo.statics = statics;
    diags
}
