//! Rendering: essays to HTML pages with tera templates, figures to SVG, the index, the
//! static files, and each essay's published results. Knows nothing of any game.
//!
//! Templates: `base.html`, `essay.html` and `index.html` are built into the binary (from
//! this repository's `templates/`); a site's own `templates/` overrides them file by file
//! and may add more. Static files likewise: the built-in `style.css`, then the site's
//! `static/` copied over it.

pub mod bib;
pub mod feed;
pub mod links;
pub mod markdown;
pub mod math;
pub mod search;

use std::collections::BTreeMap;
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

/// Load templates: built-ins, then the site's `templates/*.html` over them.
pub fn templates(root: &Path) -> Result<tera::Tera, Vec<Diagnostic>> {
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
                    match std::fs::read_to_string(e.path()) {
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
    let mut t = tera::Tera::default();
    t.autoescape_on(vec![".html"]);
    if let Err(e) = t.add_raw_templates(list.iter().map(|(n, s)| (n.as_str(), s.as_str()))) {
        diags.push(tera_diag(&e, "templates"));
    }
    if diags.is_empty() {
        Ok(t)
    } else {
        Err(diags)
    }
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
            !l.is_empty()
                && !l.starts_with("-->")
                && !l.starts_with('|')
                && !(l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" |"))
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

fn draw_figures(input: &EssayInput, out: &mut Output, diags: &mut Vec<Diagnostic>) -> Vec<String> {
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
            let ids: Vec<&str> = input.bound.keys().map(String::as_str).collect();
            diags.push(
                Diagnostic::error(&essay.file, f.from_span.clone(), format!("no census result is bound to `{}`", f.from.id))
                    .with_hint(format!("census ids bound in this essay: {}", ids.join(", "))),
            );
            html.push(String::new());
            continue;
        };
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
                out.insert(format!("{}/{name}", essay.slug), svg.into_bytes());
                html.push(format!(
                    "<figure id=\"fig-{id}\" class=\"figure\"><img src=\"{name}\" alt=\"{alt}\">{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                ));
            }
            Ok(Drawn::Html(table)) => {
                html.push(format!(
                    "<figure id=\"fig-{id}\" class=\"figure table\" aria-label=\"{alt}\">{table}{caption}</figure>\n",
                    id = escape(&f.id),
                    alt = escape(&f.alt)
                ));
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

/// Render every essay, the index and the static files into `out`. Problems (math,
/// figures, templates) come back as diagnostics; the output is only meaningful when there
/// are none.
pub fn render_site(root: &Path, config: &Config, inputs: &[EssayInput], out: &mut Output) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let math = match math::Math::new(&config.math.macros) {
        Ok(m) => m,
        Err(e) => {
            diags.push(Diagnostic::error(crate::site::config::FILE, 0..0, e).with_hint("fix the macro under math.macros"));
            return diags;
        }
    };
    let tera = match templates(root) {
        Ok(t) => t,
        Err(d) => return d.into_iter().map(|d| place_template_diag(root, d)).collect(),
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
    let (bibliography, d) = bib::load(root);
    diags.extend(d);
    // Pass 1: every body, so that links can see every essay's headings.
    let mut bodies = Vec::with_capacity(inputs.len());
    for input in inputs {
        let figure_html = draw_figures(input, out, &mut diags);
        let claim_html: Vec<String> = input.reports.iter().map(claim_html).collect();
        let claim_text: Vec<String> = input.reports.iter().map(|r| r.html_text.clone()).collect();
        let (body, d) = markdown::render(input.essay, &claim_html, &claim_text, &figure_html, &math);
        diags.extend(d);
        bodies.push(body);
    }
    let targets: Vec<links::Target> = inputs
        .iter()
        .zip(&bodies)
        .map(|(i, b)| links::Target { slug: i.essay.slug.clone(), title: i.essay.front.title.clone(), headings: b.headings.clone() })
        .collect();
    let link_ctx = links::Context { essays: &targets, planned: &config.planned, bib: &bibliography };
    let mut planned: Vec<(String, Vec<String>)> = Vec::new();
    let mut records = Vec::new();
    let mut feed_essays = Vec::new();
    for (input, body) in inputs.iter().zip(&bodies) {
        let essay = input.essay;
        let figure_ids: Vec<String> = essay.figures.iter().map(|f| f.id.clone()).collect();
        let resolved = links::resolve(essay, body, &figure_ids, &link_ctx);
        diags.extend(resolved.diags);
        for p in resolved.planned {
            match planned.iter_mut().find(|(t, _)| *t == p) {
                Some((_, files)) => files.push(essay.file.clone()),
                None => planned.push((p, vec![essay.file.clone()])),
            }
        }
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
        match tera.render("essay.html", &ctx) {
            Ok(page) => out.insert(format!("{}/index.html", essay.slug), page.into_bytes()),
            Err(e) => diags.push(place_template_diag(root, tera_diag(&e, "templates/essay.html"))),
        }
        records.push(search::record(&essay.slug, &essay.front.title, essay.front.summary.as_deref(), &resolved.html));
        feed_essays.push(feed::FeedEssay {
            slug: essay.slug.clone(),
            title: essay.front.title.clone(),
            summary: essay.front.summary.clone(),
            date: essay.front.date.clone(),
        });
        // Published results: the claimed values and capped census summaries.
        let claims: Vec<Value> = input
            .reports
            .iter()
            .filter(|r| r.kind != "plain")
            .map(|r| json!({ "line": r.line, "path": r.path, "stated": r.stated, "value": r.value, "census": r.census_id, "status": r.status }))
            .collect();
        let censuses: Vec<Value> = essay
            .calls
            .iter()
            .filter_map(|c| {
                let b = input.bound.get(&c.id)?;
                Some(json!({ "id": c.id, "census": b.census, "params": b.params, "fingerprint": input.fingerprints.get(&c.id), "summary": summarize(&b.result, 0) }))
            })
            .collect();
        let results = json!({ "essay": essay.slug, "title": essay.front.title, "claims": claims, "censuses": censuses });
        let mut bytes = serde_json::to_vec_pretty(&results).unwrap_or_default();
        bytes.push(b'\n');
        out.insert(format!("{}/results.json", essay.slug), bytes);
    }
    if !planned.is_empty() {
        let list: Vec<String> = planned.iter().map(|(t, f)| format!("“{t}” (linked from {})", f.join(", "))).collect();
        diags.push(Diagnostic::warning(
            crate::site::config::FILE,
            0..0,
            format!(
                "{} planned essay{} linked to, shown as plain text: {}",
                planned.len(),
                if planned.len() == 1 { "" } else { "s" },
                list.join("; ")
            ),
        ));
    }
    let ladder_list: Vec<Value> = ladders
        .iter()
        .map(|(a, l)| json!({ "anchor": a, "title": ladder_title(a), "essays": l.iter().map(|e| summary(e)).collect::<Vec<_>>() }))
        .collect();
    let mut ctx = tera::Context::new();
    ctx.insert("site", &site);
    ctx.insert("root", "");
    ctx.insert("canonical", &(!config.base_url.is_empty()).then(|| format!("{}/", config.base_url)));
    ctx.insert("ladders", &ladder_list);
    ctx.insert("loose", &loose.iter().map(|e| summary(e)).collect::<Vec<_>>());
    match tera.render("index.html", &ctx) {
        Ok(page) => out.insert("index.html", page.into_bytes()),
        Err(e) => diags.push(place_template_diag(root, tera_diag(&e, "templates/index.html"))),
    }
    // One page per ladder, at /<anchor>/.
    let mut extra_pages = Vec::new();
    for l in &ladder_list {
        let a = l["anchor"].as_str().unwrap_or_default();
        let mut ctx = tera::Context::new();
        ctx.insert("site", &site);
        ctx.insert("root", "../");
        ctx.insert("canonical", &(!config.base_url.is_empty()).then(|| format!("{}/{a}/", config.base_url)));
        ctx.insert("ladder", l);
        match tera.render("ladder.html", &ctx) {
            Ok(page) => out.insert(format!("{a}/index.html"), page.into_bytes()),
            Err(e) => diags.push(tera_diag(&e, "templates/ladder.html")),
        }
        extra_pages.push(format!("{a}/"));
    }
    let mut ctx = tera::Context::new();
    ctx.insert("site", &site);
    ctx.insert("root", &base_path(&config.base_url));
    ctx.insert("canonical", &None::<String>);
    match tera.render("404.html", &ctx) {
        Ok(page) => out.insert("404.html", page.into_bytes()),
        Err(e) => diags.push(tera_diag(&e, "templates/404.html")),
    }
    let mut index = serde_json::to_vec(&json!({ "essays": records })).unwrap_or_default();
    index.push(b'\n');
    out.insert("search-index.json", index);
    out.insert("feed.xml", feed::atom(&config.title, &config.description, &config.base_url, &feed_essays).into_bytes());
    if let Some(map) = feed::sitemap(&config.base_url, &feed_essays, &extra_pages) {
        out.insert("sitemap.xml", map.into_bytes());
    }
    for (p, b) in BUILTIN_STATIC {
        out.insert(*p, b.to_vec());
    }
    let dir = root.join("static");
    if dir.is_dir() {
        for e in walkdir::WalkDir::new(&dir).follow_links(true).sort_by_file_name() {
            match e {
                Ok(e) if e.file_type().is_file() => {
                    let rel = e.path().strip_prefix(&dir).unwrap_or(e.path()).to_string_lossy().replace('\\', "/");
                    match std::fs::read(e.path()) {
                        Ok(b) => out.insert(rel, b),
                        Err(err) => diags.push(Diagnostic::error(format!("static/{rel}"), 0..0, format!("cannot read: {err}"))),
                    }
                }
                Ok(_) => {}
                Err(err) => diags.push(Diagnostic::error("static", 0..0, format!("cannot read static files: {err}"))),
            }
        }
    }
    diags
}
