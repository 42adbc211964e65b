//! The pipeline: load → plan → compute → check → render → write.
//!
//! Each stage is a function from the previous stage's data to its own, collecting
//! diagnostics rather than stopping at the first. `check` runs every stage but `write`;
//! `build` runs them all; `watch` reruns them on a change, keeping computed results in
//! memory so that an edit to prose recomputes nothing, and an [`Incremental`] so that only
//! the essays, claims and pages an edit touches are parsed, checked and rendered again.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde_json::Value;

use countersign_census::{self as census, Ctx, DynCensus, PrepareError, Prepared, Stop};
use countersign_core::check::{self, Bound, ClaimReport, Status};
use countersign_core::config::{self, Config};
use countersign_core::content::{self, offset_of, Essay};
use countersign_core::diag::{Code, Diagnostic, Origin, Sources};
use countersign_core::text::count;
use countersign_render::{Output, Sink, SiteFiles, Theme};

use crate::cache::{self, Cache};
use crate::censuses::{self, SiteCensus};
use crate::essays::{self, Units};

/// The site's sources, loaded.
pub struct Loaded {
    /// The site root.
    pub root: PathBuf,
    /// The configuration (defaults when it failed to load; see `diags`).
    pub config: Config,
    /// Essays that loaded, sorted by slug.
    pub essays: Vec<Essay>,
    /// Templates, static files and the bibliography's text.
    pub files: SiteFiles,
    /// The images the essays show, read from beside them (copied to their pages' folders).
    pub images: Vec<crate::images::EssayImage>,
    /// Texts of every file a diagnostic may point into.
    pub sources: Sources,
    /// The site's own censuses (`censuses/*.yaml`), sorted by name.
    pub censuses: Vec<Arc<SiteCensus>>,
    /// Problems found while loading.
    pub diags: Vec<Diagnostic>,
}

/// Load every source a build reads: the configuration, every essay under `root/essays`,
/// the templates, the static files and `references.yaml`. The only stage that reads the
/// site (besides `--bless`, which rewrites essays).
pub fn load(root: &Path, theme: &Theme) -> Loaded {
    load_with(root, theme, &mut essays::Fresh).0
}

/// [`load`], taking each essay from `units`; also returns the configuration file's text.
fn load_with(root: &Path, theme: &Theme, units: &mut dyn Units) -> (Loaded, Option<String>) {
    let mut config_text = None;
    let mut sources = Sources::new();
    let mut diags = Vec::new();
    let config = match crate::config::load(root) {
        Ok((c, text)) => {
            if let Some(t) = text {
                config_text = Some(t.clone());
                sources.add(config::FILE, t);
            }
            c
        }
        Err(e) => {
            let (d, text) = *e;
            if let Some(t) = text {
                config_text = Some(t.clone());
                sources.add(config::FILE, t);
            }
            diags.push(d);
            Config::default()
        }
    };
    let (essays, d) = essays::load_dir_with(root, &root.join("essays"), units);
    diags.extend(d);
    for e in &essays {
        sources.add(e.file.clone(), e.source.clone());
    }
    let (images, d) = crate::images::load_with(root, &essays, &mut |e| units.images(e).unwrap_or_else(|| crate::images::references(e)));
    diags.extend(d);
    let (files, d) = crate::files::load(root, theme);
    diags.extend(d);
    for n in &files.own_templates {
        sources.add(format!("templates/{n}"), files.template(n).unwrap_or_default());
    }
    if let Some(t) = &files.bibliography {
        sources.add(countersign_render::bib::FILE, t.clone());
    }
    let site = censuses::load(root);
    for (file, text) in site.texts {
        sources.add(file, text);
    }
    diags.extend(site.diags);
    // Files that failed to parse still need their text for diagnostics.
    add_missing_sources(root, &mut sources, &diags);
    let censuses = site.censuses;
    (Loaded { root: root.to_path_buf(), config, essays, files, images, sources, censuses, diags }, config_text)
}

/// Add to `sources` the text of every file a diagnostic points into and `sources` lacks
/// (an essay that failed to load, a site template). A file that is not UTF-8 is shown
/// with its bad bytes replaced by U+FFFD, so a diagnostic can still show the line. A file
/// refused as a link out of the site (`outside-site`) is never read.
fn add_missing_sources(root: &Path, sources: &mut Sources, diags: &[Diagnostic]) {
    for file in diags.iter().filter(|d| d.code != Code::OutsideSite).filter_map(|d| d.origin.file()) {
        if sources.get(file).is_none() {
            let path = root.join(file);
            if path.is_file() {
                if let Ok(b) = crate::source::read_source(&path, crate::source::TEXT_LIMIT) {
                    sources.add(file, String::from_utf8_lossy(&b).into_owned());
                }
            }
        }
    }
}

/// A census the plan can call: one built into countersign, or one the site declares.
/// The pipeline treats both alike through this type.
#[derive(Clone)]
pub enum Callable {
    /// A registered [`census::Census`], run in this process.
    Builtin(&'static dyn DynCensus),
    /// A site census (`censuses/NAME.yaml`), run as a process of its own.
    Site(Arc<SiteCensus>),
}

impl Callable {
    /// The census named `name`: a built-in one, else one of `site`'s.
    pub fn lookup(name: &str, site: &[Arc<SiteCensus>]) -> Option<Callable> {
        census::lookup(name).map(Callable::Builtin).or_else(|| site.iter().find(|c| c.name == name).cloned().map(Callable::Site))
    }

    /// Every census name, built-in ones first.
    pub fn names(site: &[Arc<SiteCensus>]) -> Vec<String> {
        census::names().into_iter().map(str::to_string).chain(site.iter().map(|c| c.name.clone())).collect()
    }

    /// The census's name.
    pub fn name(&self) -> &str {
        match self {
            Callable::Builtin(c) => c.name(),
            Callable::Site(c) => &c.name,
        }
    }

    /// How its cost is estimated, in words.
    pub fn cost_model(&self) -> String {
        match self {
            Callable::Builtin(c) => c.cost_model().to_string(),
            Callable::Site(c) => format!("a site census: not estimated; bounded by its time limit of {}s", c.timeout.as_secs_f64()),
        }
    }

    /// Prepare a call from a whole census block (see [`DynCensus::prepare`]).
    pub fn prepare(&self, block_yaml: &str) -> Result<Prepared, PrepareError> {
        match self {
            Callable::Builtin(c) => c.prepare(block_yaml),
            Callable::Site(c) => c.prepare(block_yaml),
        }
    }

    /// The fingerprint its cached results are keyed by: of its source modules (built in),
    /// or of its command and source files (site).
    pub fn fingerprint(&self) -> String {
        match self {
            Callable::Builtin(c) => countersign_census::fingerprint::of_sources(c.sources()),
            Callable::Site(c) => c.fingerprint.clone(),
        }
    }
}

impl From<&'static dyn DynCensus> for Callable {
    fn from(c: &'static dyn DynCensus) -> Callable {
        Callable::Builtin(c)
    }
}

/// One distinct census call (calls with equal keys in several essays run once).
pub struct Call {
    /// Cache key.
    pub key: String,
    /// The census.
    pub census: Callable,
    /// Parsed and validated parameters (shared with watch mode's memory of prepared calls).
    pub prepared: Arc<Prepared>,
    /// Fingerprint of the census's sources.
    pub fingerprint: String,
    /// Where the first block making this call is: (essay file, span of its `run:`), for
    /// the diagnostics of a site census that fails.
    pub at: (String, std::ops::Range<usize>),
}

/// The calls to run and, per essay, which call each id is bound to.
pub struct Plan {
    /// Distinct calls, in first-use order.
    pub calls: Vec<Call>,
    /// Per essay (same order as `Loaded::essays`): id → index into `calls`.
    pub bindings: Vec<BTreeMap<String, usize>>,
    /// Problems: unknown census, bad parameters, cost over budget.
    pub diags: Vec<Diagnostic>,
}

fn line_span(content: &str, block: &content::scan::FencedBlock, at: usize) -> std::ops::Range<usize> {
    let end = content[at..].find('\n').map(|n| at + n).unwrap_or(content.len());
    let end = at + content[at..end].trim_end().len();
    block.source_offset(at)..block.source_offset(end.max(at + 1))
}

/// Look up the census a block of `file` runs and prepare its parameters, refusing a call
/// whose cost is over `budget`. Errors: an unknown census (with the nearest name as a
/// hint), bad parameters, a parameter out of range, a cost over the budget (each a
/// diagnostic at the block's line). `countersign run` prepares its call here too.
pub fn prepare_call(
    file: &str,
    c: &content::CensusBlock,
    budget: u64,
    site: &[Arc<SiteCensus>],
) -> Result<(Callable, Prepared), Diagnostic> {
    let Some(census) = Callable::lookup(&c.run, site) else {
        let names = Callable::names(site);
        let best = names.iter().min_by_key(|n| strsim::levenshtein(n, &c.run)).filter(|n| strsim::levenshtein(n, &c.run) <= 3);
        let hint = match best {
            Some(n) => format!("did you mean `{n}`? `countersign list` shows every census"),
            None => format!("censuses: {}", names.join(", ")),
        };
        return Err(Diagnostic::error(Code::UnknownCensus, file, c.run_span.clone(), format!("unknown census `{}`", c.run))
            .with_label("not a registered census")
            .with_hint(hint));
    };
    let content = &c.block.content;
    // Where a diagnostic points in the block: the deepest key of `path` the block has.
    let near = |path: &[&str]| countersign_core::yaml::Index::of(content).nearest(path).map_or(0, |r| r.start);
    let prepared = match census.prepare(content) {
        Ok(p) => p,
        Err(PrepareError::Shape { message, line, column }) => {
            let at = match (line, column) {
                (Some(l), Some(col)) => offset_of(content, l, col),
                _ => near(&["with"]),
            };
            return Err(Diagnostic::error(
                Code::BadParams,
                file,
                line_span(content, &c.block, at),
                format!("bad parameters for `{}`: {message}", c.run),
            )
            .with_label("here")
            .with_hint(format!("`countersign list` shows the parameters of {}", c.run)));
        }
        Err(PrepareError::Limit(pe)) => {
            let mut keys = vec!["with"];
            keys.extend(pe.path.iter().map(String::as_str));
            let at = near(&keys);
            let mut d = Diagnostic::error(
                Code::ParamOutOfRange,
                file,
                line_span(content, &c.block, at),
                format!("parameter out of range for `{}`: {}", c.run, pe.message),
            )
            .with_label("this parameter");
            if let Some(h) = pe.hint {
                d = d.with_hint(h);
            }
            return Err(d);
        }
    };
    if prepared.cost > budget {
        let at = near(&["with"]);
        return Err(Diagnostic::error(
            Code::OverBudget,
            file,
            line_span(content, &c.block, at),
            format!(
                "`{}` with these parameters is estimated at {:.1e} steps, over the budget of {:.1e}",
                c.run, prepared.cost as f64, budget as f64
            ),
        )
        .with_label("too costly to run")
        .with_hint(format!("make the parameters smaller, or raise `budget:` in countersign.yaml; cost model: {}", census.cost_model())));
    }
    Ok((census, prepared))
}

/// Plan the census calls of every essay: look each census up, prepare its parameters,
/// refuse calls over `config.budget`, and dedupe by cache key.
pub fn plan(loaded: &Loaded) -> Plan {
    plan_with(loaded, &mut Prepares::default())
}

/// Built-in census calls as prepared by earlier runs, by (census, the block's text,
/// budget): a block is prepared again only when one of them changed (watch mode). Site
/// censuses are prepared every time (their definitions are loaded again every run).
#[derive(Default)]
pub struct Prepares {
    kept: HashMap<(String, String, u64), Prepare>,
}

/// One prepared call: (census, prepared call, fingerprint, cache key).
type Prepare = (Callable, Arc<Prepared>, String, String);

impl Prepares {
    /// The call block `c` of `file` makes, prepared (see [`prepare_call`]), from `old`
    /// when kept there; kept in `self` either way when it is a built-in census's.
    fn prepare(&mut self, old: &mut Prepares, file: &str, c: &content::CensusBlock, loaded: &Loaded) -> Result<Prepare, Diagnostic> {
        let budget = loaded.config.budget;
        let builtin = census::lookup(&c.run).is_some();
        let memo_key = (c.run.clone(), c.block.content.clone(), budget);
        if builtin {
            if let Some(p) = self.kept.get(&memo_key).or_else(|| old.kept.get(&memo_key)) {
                let p = p.clone();
                self.kept.insert(memo_key, p.clone());
                return Ok(p);
            }
        }
        let (census, prepared) = prepare_call(file, c, budget, &loaded.censuses)?;
        let fingerprint = census.fingerprint();
        let key = cache::key(census.name(), &prepared.params, &fingerprint);
        let p = (census, Arc::new(prepared), fingerprint, key);
        if builtin {
            self.kept.insert(memo_key, p.clone());
        }
        Ok(p)
    }
}

/// [`plan`], taking the prepared calls of unchanged blocks from `memo` (and keeping
/// there the calls of this plan only).
pub fn plan_with(loaded: &Loaded, memo: &mut Prepares) -> Plan {
    let mut old = std::mem::take(memo);
    let mut calls: Vec<Call> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut bindings = Vec::new();
    let mut diags = Vec::new();
    for essay in &loaded.essays {
        let mut bind = BTreeMap::new();
        for c in &essay.calls {
            let (census, prepared, fingerprint, key) = match memo.prepare(&mut old, &essay.file, c, loaded) {
                Ok(x) => x,
                Err(d) => {
                    diags.push(d);
                    continue;
                }
            };
            let idx = *index.entry(key.clone()).or_insert_with(|| {
                calls.push(Call { key, census, prepared, fingerprint, at: (essay.file.clone(), c.run_span.clone()) });
                calls.len() - 1
            });
            bind.insert(c.id.clone(), idx);
        }
        bindings.push(bind);
    }
    Plan { calls, bindings, diags }
}

/// Check what the site's URL space needs of the loaded sources, before anything is
/// computed: no ladder page takes an essay's place, no static file takes the place of a
/// file the build makes (or of its folder), every figure has a kind and a bound id, and
/// every template a template extends, imports or includes exists.
pub fn validate(loaded: &Loaded) -> Vec<Diagnostic> {
    let mut diags = ladder_collisions(&loaded.essays);
    diags.extend(figure_sources(&loaded.essays));
    diags.extend(static_collisions(loaded));
    diags.extend(image_collisions(loaded));
    diags.extend(countersign_render::template_names::unknown(&loaded.files.templates));
    diags
}

/// An anchor page lives at /<anchor>/: it must not take an essay's place.
fn ladder_collisions(essays: &[Essay]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    // A set of the slugs: comparing every anchored essay with every essay is quadratic.
    let slugs: std::collections::HashSet<&str> = essays.iter().map(|e| e.slug.as_str()).collect();
    for e in essays {
        if let Some(a) = &e.front.anchor {
            if slugs.contains(a.as_str()) {
                let at = e.source.find("anchor:").unwrap_or(0);
                diags.push(
                    Diagnostic::error(
                        Code::LadderCollision,
                        &e.file,
                        at..at + 7,
                        format!("the ladder `{a}` would take the place of the essay essays/{a}.md at /{a}/"),
                    )
                    .with_hint("rename the anchor or the essay: a ladder's page and an essay share one URL space"),
                );
            }
        }
    }
    diags
}

/// Every figure names a figure kind that exists and an id a census block of its essay
/// binds (whether or not that block's call succeeds).
fn figure_sources(essays: &[Essay]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for essay in essays {
        for f in &essay.figures {
            if countersign_render::figures::lookup(&f.plot).is_none() {
                let kinds = countersign_render::figures::reference::names();
                diags.push(
                    Diagnostic::error(
                        Code::UnknownFigureKind,
                        &essay.file,
                        f.plot_span.clone(),
                        format!("unknown figure kind `{}`", f.plot),
                    )
                    .with_hint(format!("figure kinds: {}; `countersign figures` documents each", kinds.join(", "))),
                );
            } else if !essay.calls.iter().any(|c| c.id == f.from.id) {
                diags.push(
                    Diagnostic::error(
                        Code::UnboundId,
                        &essay.file,
                        f.from_span.clone(),
                        format!("no census result is bound to `{}`", f.from.id),
                    )
                    .with_hint(check::unknown_id_hint(essay)),
                );
            }
        }
    }
    diags
}

/// Every file the build writes besides the site's own static files, by its path in the
/// output, with what it is ("the page of essays/e.md"): the pages and files made from
/// essays and templates, the theme's static files the site does not replace
/// (`style.css`), and the output folder's marker ([`crate::output::MARKER`]).
fn made_paths(loaded: &Loaded) -> BTreeMap<String, String> {
    let mut made = BTreeMap::new();
    for (p, what) in [
        ("index.html", "the index page"),
        ("404.html", "the 404 page"),
        ("search-index.json", "the search index"),
        ("feed.xml", "the feed"),
        (crate::output::MARKER, "the output folder's marker"),
    ] {
        made.insert(p.to_string(), what.to_string());
    }
    for p in loaded.files.statics.keys().filter(|p| !loaded.files.own_statics.contains(*p)) {
        made.insert(p.clone(), format!("the theme's static file {p}"));
    }
    if !loaded.config.base_url.is_empty() {
        made.insert("sitemap.xml".into(), "the sitemap".into());
    }
    for e in &loaded.essays {
        made.insert(format!("{}/index.html", e.slug), format!("the page of {}", e.file));
        made.insert(format!("{}/results.json", e.slug), format!("the results of {}", e.file));
        for f in &e.figures {
            made.insert(format!("{}/fig-{}.svg", e.slug, f.id), format!("figure `{}` of {}", f.id, e.file));
        }
        if let Some(a) = &e.front.anchor {
            made.entry(format!("{a}/index.html")).or_insert_with(|| format!("the page of the ladder `{a}`"));
        }
    }
    made
}

/// A static file of the site's at the path of a file the build makes replaces it; one
/// where the build needs a folder (or inside a path the build makes a file) breaks the
/// output. Each is an error naming both.
fn static_collisions(loaded: &Loaded) -> Vec<Diagnostic> {
    let made = made_paths(loaded);
    let mut diags = Vec::new();
    for s in &loaded.files.own_statics {
        let folder = format!("{s}/");
        let clash = if let Some(what) = made.get(s) {
            Some(format!("static/{s} would replace {what}"))
        } else if let Some((p, what)) = made.range(folder.clone()..).next().filter(|(p, _)| p.starts_with(&folder)) {
            Some(format!("static/{s} is a file where {what} needs the folder {s}/ (for {p})"))
        } else {
            let mut parents = s.match_indices('/').map(|(i, _)| &s[..i]);
            parents.find_map(|p| made.get(p).map(|what| format!("static/{s} needs {p} to be a folder, but {p} is {what}")))
        };
        if let Some(message) = clash {
            diags.push(
                Diagnostic::error(Code::StaticCollision, format!("static/{s}"), 0..0, message)
                    .with_hint("rename or remove the static file: the build writes that path itself"),
            );
        }
    }
    diags
}

/// An image beside an essay at the path of a file the build makes (`index.html`,
/// `results.json`, `fig-<id>.svg` beside its page) would replace it, or, inside a path
/// the build makes a file, break the output: an error at the image's destination.
fn image_collisions(loaded: &Loaded) -> Vec<Diagnostic> {
    let made = made_paths(loaded);
    let mut diags = Vec::new();
    for image in &loaded.images {
        let out = &image.out;
        let clash = made.get(out).map(|what| format!("the image {out} would replace {what}")).or_else(|| {
            let mut parents = out.match_indices('/').map(|(i, _)| &out[..i]);
            parents.find_map(|p| made.get(p).map(|what| format!("the image {out} needs {p} to be a folder, but {p} is {what}")))
        });
        if let Some(message) = clash {
            diags.push(
                Diagnostic::error(Code::StaticCollision, &image.file, image.span.clone(), message)
                    .with_label("this image")
                    .with_hint("rename the image: the build makes that path beside the essay's page"),
            );
        }
    }
    diags
}

/// How many calls ran and how many came from a cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Distinct calls planned.
    pub calls: usize,
    /// Calls run in this run, whether they gave a result or failed.
    pub ran: usize,
    /// Of those that ran, the calls that failed (a site census's non-zero exit, bad
    /// output or time-out, a census that panicked): no result, a diagnostic at the call.
    /// Left out of the JSON report when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub failed: usize,
    /// Calls answered from the on-disk cache.
    pub cached: usize,
    /// Calls answered from memory (watch mode).
    pub remembered: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Stats {
    /// The summaries' "census calls: 3 (2 ran, 1 of them failed, 1 from cache)", with
    /// ", 0 in memory" before the parenthesis closes when `memory` (watch keeps results in
    /// memory between runs); "N of them failed" only when some did.
    pub fn summary(&self, memory: bool) -> String {
        let failed = if self.failed > 0 { format!(", {} of them failed", self.failed) } else { String::new() };
        let remembered = if memory { format!(", {} in memory", self.remembered) } else { String::new() };
        format!("census calls: {} ({} ran{failed}, {} from cache{remembered})", self.calls, self.ran, self.cached)
    }
}

/// Results of the planned calls, by call index (`None`: cancelled or failed).
pub struct Results {
    /// One per call.
    pub values: Vec<Option<Arc<Value>>>,
    /// Counts.
    pub stats: Stats,
    /// Problems (a failed cache write is a warning).
    pub diags: Vec<Diagnostic>,
}

/// Options for [`compute`].
pub struct ComputeOptions<'a> {
    /// The on-disk cache.
    pub cache: &'a Cache,
    /// Results kept in memory across runs (watch mode), by key.
    pub memory: Option<&'a Mutex<HashMap<String, Arc<Value>>>>,
    /// Show progress bars for long calls (on a terminal, outside CI).
    pub progress: bool,
    /// Set to stop running calls at their next checkpoint.
    pub cancel: Arc<AtomicBool>,
    /// One flag per call (same order as `Plan::calls`), used instead of `cancel`: set one
    /// to stop that call alone.
    pub flags: Option<&'a [Arc<AtomicBool>]>,
}

/// True when progress bars may be drawn: stderr is a terminal and `CI` is not set.
pub fn progress_allowed() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// The verified cached result of `call`; a bad entry is a warning in `diags` (the call is
/// then recomputed and the entry replaced).
fn cache_hit(cache: &Cache, call: &Call, diags: &Mutex<Vec<Diagnostic>>) -> Option<Value> {
    match cache.lookup(&call.key, call.census.name(), &call.prepared.params, &call.fingerprint) {
        cache::Lookup::Hit(v) => Some(v),
        cache::Lookup::Miss => None,
        cache::Lookup::Bad(why) => {
            let message = format!("the cached result of `{}` is not trusted: {why}; it is recomputed", call.census.name());
            let note = format!("the entry: .countersign-cache/{}.json", call.key);
            if let Ok(mut d) = diags.lock() {
                d.push(Diagnostic::warning(Code::CacheEntryBad, Origin::Cache, 0..0, message).with_note(note));
            }
            None
        }
    }
}

/// The progress bar of one call, drawn (under `multi`) once the call has run for a
/// second, when `opts.progress`: the bar's slot and the callback the census reports to.
fn progress_bar(
    opts: &ComputeOptions,
    multi: &indicatif::MultiProgress,
    call: &Call,
) -> (Arc<Mutex<Option<indicatif::ProgressBar>>>, Option<Arc<census::ProgressFn>>) {
    let started = Instant::now();
    let bar: Arc<Mutex<Option<indicatif::ProgressBar>>> = Arc::new(Mutex::new(None));
    let progress: Option<Arc<census::ProgressFn>> = if opts.progress {
        let bar = bar.clone();
        let multi = multi.clone();
        let label = format!("{} {}", call.census.name(), serde_json::to_string(&call.prepared.params).unwrap_or_default());
        Some(Arc::new(move |done: u64, total: u64| {
            if started.elapsed().as_millis() < 1000 {
                return;
            }
            if let Ok(mut b) = bar.lock() {
                let pb = b.get_or_insert_with(|| {
                    let pb = multi.add(indicatif::ProgressBar::new(total));
                    pb.set_style(
                        indicatif::ProgressStyle::with_template("{msg:40!} [{bar:30}] {percent:>3}% {elapsed}")
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    pb.set_message(label.clone());
                    pb
                });
                pb.set_length(total);
                pb.set_position(done);
            }
        }))
    } else {
        None
    };
    (bar, progress)
}

/// The diagnostic of a census call that panicked with `panic` (a bug in countersign).
fn panic_diag(call: &Call, panic: &(dyn std::any::Any + Send)) -> Diagnostic {
    let msg = census::unwind_message(panic);
    Diagnostic::error(
        Code::CensusPanicked,
        Origin::Tool,
        0..0,
        format!("census `{}` failed with {} : {msg}", call.census.name(), serde_json::to_string(&call.prepared.params).unwrap_or_default()),
    )
    .with_hint("this is a bug in countersign's solver; please report it with these parameters")
}

/// The diagnostic of a site census call that failed: at the `run:` line of the first
/// block making the call, with the last lines of its standard error as notes.
fn failure_diag(call: &Call, f: &census::Failure) -> Diagnostic {
    let (file, span) = &call.at;
    let mut d = Diagnostic::error(f.kind.code(), file, span.clone(), format!("site census `{}` failed: {}", call.census.name(), f.message))
        .with_label("this call");
    if f.stderr_tail.is_empty() {
        d = d.with_note("it wrote nothing to standard error");
    } else {
        d = d.with_note(format!("the last {} of its standard error:", count(f.stderr_tail.len(), "line")));
        for line in &f.stderr_tail {
            d = d.with_note(format!("stderr | {line}"));
        }
    }
    let params = serde_json::to_string(&call.prepared.params).unwrap_or_default();
    d = d.with_note(format!("its parameters, on standard input: {params}"));
    match f.kind {
        census::FailureKind::Exit => d.with_hint(format!(
            "run it alone to see all it writes: `countersign run {} --with '{params}'`; fix the script, or the parameters it refuses",
            call.census.name()
        )),
        _ => d,
    }
}

/// Run every site census call of the plan of `loaded` twice, afresh (no cache), in
/// parallel, and report each call whose two answers differ (`census-nondeterministic`,
/// at its block) or that fails. Built-in censuses are not run: they are pure by contract.
/// Returns those diagnostics and how many site census calls were run twice.
pub fn verify(loaded: &Loaded) -> (Vec<Diagnostic>, usize) {
    let plan = plan(loaded);
    let found: Vec<Option<Diagnostic>> = plan
        .calls
        .par_iter()
        .filter(|c| matches!(c.census, Callable::Site(_)))
        .map(|call| {
            let run = || match call.prepared.run(&Ctx::new()) {
                Ok(v) => Ok(v),
                Err(Stop::Failed(f)) => Err(Some(failure_diag(call, &f))),
                Err(Stop::Cancelled) => Err(None),
            };
            let (first, second) = match (run(), run()) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(d), _) | (_, Err(d)) => return d,
            };
            (first != second).then(|| {
                let short = |v: Option<&Value>| {
                    let Some(v) = v else { return "(absent)".to_string() };
                    let s = serde_json::to_string(v).unwrap_or_default();
                    if s.chars().count() > 200 {
                        format!("{}…", s.chars().take(200).collect::<String>())
                    } else {
                        s
                    }
                };
                let (path, a, b) = first_difference(&first, &second);
                let (file, span) = &call.at;
                Diagnostic::error(
                    Code::CensusNondeterministic,
                    file,
                    span.clone(),
                    format!("site census `{}` answered differently when run twice with the same parameters", call.census.name()),
                )
                .with_label("this call")
                .with_note(match path.as_str() {
                    "" => "the two answers differ as a whole".to_string(),
                    _ => format!("the two answers first differ at `{path}`"),
                })
                .with_note(format!("first: {}", short(a)))
                .with_note(format!("second: {}", short(b)))
                .with_hint("a census's result must depend only on its parameters and sources (no clock, no randomness, no hash order)")
            })
        })
        .collect();
    let runs = found.len();
    (found.into_iter().flatten().collect(), runs)
}

/// Where two census answers first differ, in document order: the path below the result
/// (`rows[3].grundy`, empty for the whole answer) and the two values there, `None` where
/// one answer lacks the key. Lists that agree as far as the shorter goes, and values of
/// different kinds, differ as a whole. Recursion is bounded by serde_json's nesting limit
/// (128) on what a census may print.
fn first_difference<'v>(a: &'v Value, b: &'v Value) -> (String, Option<&'v Value>, Option<&'v Value>) {
    let below = |step: String, (path, x, y): (String, Option<&'v Value>, Option<&'v Value>)| {
        let sep = if path.is_empty() || path.starts_with('[') { "" } else { "." };
        (format!("{step}{sep}{path}"), x, y)
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = x.keys().chain(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) if p == q => continue,
                    (Some(p), Some(q)) => return below(k.clone(), first_difference(p, q)),
                    (p, q) => return (k.clone(), p, q),
                }
            }
            (String::new(), Some(a), Some(b))
        }
        (Value::Array(x), Value::Array(y)) => match x.iter().zip(y).position(|(p, q)| p != q) {
            Some(i) => below(format!("[{i}]"), first_difference(&x[i], &y[i])),
            None => (String::new(), Some(a), Some(b)),
        },
        _ => (String::new(), Some(a), Some(b)),
    }
}

/// `v`, the result of `call`, shared, and kept in `opts.memory` when there is one.
fn remember(opts: &ComputeOptions, call: &Call, v: Value) -> Arc<Value> {
    let v = Arc::new(v);
    if let Some(mut m) = opts.memory.and_then(|mem| mem.lock().ok()) {
        m.insert(call.key.clone(), v.clone());
    }
    v
}

/// Run every planned call not in memory or the cache, in parallel; store new results.
pub fn compute(plan: &Plan, opts: &ComputeOptions) -> Results {
    let multi = indicatif::MultiProgress::new();
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicUsize::new(0);
    let cached = std::sync::atomic::AtomicUsize::new(0);
    let remembered = std::sync::atomic::AtomicUsize::new(0);
    let diags = Mutex::new(Vec::new());
    let values: Vec<Option<Arc<Value>>> = plan
        .calls
        .par_iter()
        // One call per job: a few calls cost seconds and most milliseconds, and two costly
        // calls side by side in the plan must not share one thread while the other idles.
        .with_max_len(1)
        .enumerate()
        .map(|(i, call)| {
            if let Some(mem) = opts.memory {
                if let Some(v) = mem.lock().ok().and_then(|m| m.get(&call.key).cloned()) {
                    remembered.fetch_add(1, Ordering::Relaxed);
                    return Some(v);
                }
            }
            let name = call.census.name();
            if let Some(v) = cache_hit(opts.cache, call, &diags) {
                cached.fetch_add(1, Ordering::Relaxed);
                return Some(remember(opts, call, v));
            }
            let (bar, progress) = progress_bar(opts, &multi, call);
            let flag = opts.flags.and_then(|f| f.get(i)).unwrap_or(&opts.cancel);
            let ctx = Ctx::with(flag.clone(), progress);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| call.prepared.run(&ctx)));
            if let Ok(mut b) = bar.lock() {
                if let Some(pb) = b.take() {
                    pb.finish_and_clear();
                }
            }
            match outcome {
                Ok(Ok(v)) => {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if let Err(e) = opts.cache.put(&call.key, name, &call.prepared.params, &call.fingerprint, &v) {
                        let message = format!("cannot store a result in the cache: {e}");
                        diags.lock().map(|mut d| d.push(Diagnostic::warning(Code::CacheWriteFailed, Origin::Cache, 0..0, message))).ok();
                    }
                    Some(remember(opts, call, v))
                }
                Ok(Err(Stop::Cancelled)) => None,
                Ok(Err(Stop::Failed(f))) => {
                    ran.fetch_add(1, Ordering::Relaxed);
                    failed.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut d) = diags.lock() {
                        d.push(failure_diag(call, &f));
                    }
                    None
                }
                Err(panic) => {
                    ran.fetch_add(1, Ordering::Relaxed);
                    failed.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut d) = diags.lock() {
                        d.push(panic_diag(call, panic.as_ref()));
                    }
                    None
                }
            }
        })
        .collect();
    let stats = Stats {
        calls: plan.calls.len(),
        ran: ran.into_inner(),
        failed: failed.into_inner(),
        cached: cached.into_inner(),
        remembered: remembered.into_inner(),
    };
    Results { values, stats, diags: diags.into_inner().unwrap_or_default() }
}

/// Per essay: the bound results, their fingerprints, and the claim reports.
pub struct Checked {
    /// Per essay: id → bound result (shared with watch mode's memory of them, so a
    /// rebuild binds again only the essays whose calls changed).
    pub bound: Vec<Arc<BTreeMap<String, Bound>>>,
    /// Per essay: id → fingerprint (shared likewise).
    pub fingerprints: Vec<Arc<BTreeMap<String, String>>>,
    /// Per essay: one report per claim (shared with watch mode's memory of them, so a
    /// rebuild copies no report of an essay it did not check again).
    pub reports: Vec<Arc<[ClaimReport]>>,
    /// Claim diagnostics.
    pub diags: Vec<Diagnostic>,
}

/// Check every claim of every essay against the computed results.
pub fn check(loaded: &Loaded, plan: &Plan, results: &Results) -> Checked {
    check_with(loaded, plan, results, &mut Fresh)
}

/// How [`check_with`] binds and checks each essay.
trait Checker {
    /// The bound results and fingerprints of essay number `i` as an earlier run made them,
    /// when its bindings are unchanged (`None`: bind them afresh).
    fn bound(&mut self, i: usize, essay: &Essay) -> Option<Bindings>;
    /// The claims of essay number `i` checked against its bound results, given the ids
    /// whose call failed to plan or whose block did not parse (see [`check_one`]).
    fn check(&mut self, i: usize, essay: &Essay, bound: &Bindings, failed: &[&str]) -> (Arc<[ClaimReport]>, Vec<Diagnostic>);
}

/// An essay's bound results and their fingerprints, by id.
type Bindings = (Arc<BTreeMap<String, Bound>>, Arc<BTreeMap<String, String>>);

/// Every essay bound and checked afresh.
struct Fresh;

impl Checker for Fresh {
    fn bound(&mut self, _: usize, _: &Essay) -> Option<Bindings> {
        None
    }

    fn check(&mut self, _: usize, essay: &Essay, bound: &Bindings, failed: &[&str]) -> (Arc<[ClaimReport]>, Vec<Diagnostic>) {
        let (reports, diags) = check_one(essay, &bound.0, failed);
        (reports.into(), diags)
    }
}

/// The claims of `essay` checked against `bound` (see [`check::check_essay`]), except
/// that a claim on one of the `failed_ids` (whose call failed to plan, or whose block did
/// not parse: already reported) is skipped rather than reported as unbound.
fn check_one(essay: &Essay, bound: &BTreeMap<String, Bound>, failed_ids: &[&str]) -> (Vec<ClaimReport>, Vec<Diagnostic>) {
    let (mut reports, diags) = check::check_essay(essay, bound);
    let (follow_on, diags): (Vec<Diagnostic>, Vec<Diagnostic>) = diags
        .into_iter()
        .partition(|d| d.code == Code::UnboundId && failed_ids.iter().any(|id| essay.source.get(d.span.clone()) == Some(*id)));
    for r in reports.iter_mut().filter(|r| r.status == Status::Error) {
        if follow_on.iter().any(|d| r.span.contains(&d.span.start)) {
            r.status = Status::Skipped;
        }
    }
    (reports, diags)
}

/// [`check`], checking each essay's claims with `check_one`.
fn check_with(loaded: &Loaded, plan: &Plan, results: &Results, checker: &mut dyn Checker) -> Checked {
    let mut out = Checked { bound: Vec::new(), fingerprints: Vec::new(), reports: Vec::new(), diags: Vec::new() };
    for (i, essay) in loaded.essays.iter().enumerate() {
        let bound = checker.bound(i, essay).unwrap_or_else(|| bind(plan, results, i));
        // Claims on ids whose call failed to plan were already reported; skip them.
        let failed_ids: Vec<&str> = essay
            .calls
            .iter()
            .map(|c| c.id.as_str())
            .filter(|id| !bound.0.contains_key(*id))
            .chain(essay.broken_ids.iter().map(String::as_str))
            .collect();
        let (reports, diags) = checker.check(i, essay, &bound, &failed_ids);
        out.diags.extend(diags);
        out.bound.push(bound.0);
        out.fingerprints.push(bound.1);
        out.reports.push(reports);
    }
    out
}

/// The results bound in essay number `i` and their fingerprints, by id.
fn bind(plan: &Plan, results: &Results, i: usize) -> Bindings {
    let mut bound = BTreeMap::new();
    let mut fps = BTreeMap::new();
    for (id, &ci) in &plan.bindings[i] {
        let call = &plan.calls[ci];
        if let Some(v) = &results.values[ci] {
            bound.insert(
                id.clone(),
                Bound { id: id.clone(), census: call.census.name().to_string(), params: call.prepared.params.clone(), result: v.clone() },
            );
            fps.insert(id.clone(), call.fingerprint.clone());
        }
    }
    (Arc::new(bound), Arc::new(fps))
}

/// Options for a whole run.
pub struct RunOptions {
    /// The site root.
    pub root: PathBuf,
    /// Use the on-disk cache under `root/.countersign-cache`.
    pub use_cache: bool,
    /// Draw progress bars for long calls.
    pub progress: bool,
    /// Render pages (`build`, `watch`); `check` stops after checking.
    pub render: bool,
    /// The templates and static files a site has when it has none of its own (the
    /// binary's embedded theme).
    pub theme: Theme,
    /// A `base_url` that replaces the configuration's (`build --base-url`, e.g. the
    /// address a CI job publishes to); `None` keeps `countersign.yaml`'s.
    pub base_url: Option<String>,
}

/// Everything a run produced.
pub struct Run {
    /// The loaded site.
    pub loaded: Loaded,
    /// Call counts.
    pub stats: Stats,
    /// Claim reports per essay.
    pub checked: Option<Checked>,
    /// The rendered site, when asked for and when nothing failed; `None` too when the
    /// files went to [`Hooks::sink`] as they were made.
    pub output: Option<Output>,
    /// Every diagnostic, in stage order.
    pub diags: Vec<Diagnostic>,
    /// What this run did afresh.
    pub work: Work,
}

impl Run {
    /// True when no diagnostic is an error.
    pub fn ok(&self) -> bool {
        !self.diags.iter().any(Diagnostic::is_error)
    }
}

/// The cache folder of a site.
pub fn cache_dir(root: &Path) -> PathBuf {
    root.join(cache::DIR)
}

/// What a caller may add to a run: results kept in memory, what earlier runs made (watch
/// mode), and a hook called with the plan before anything is computed.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Results kept in memory across runs, by cache key.
    pub memory: Option<&'a Mutex<HashMap<String, Arc<Value>>>>,
    /// Essays parsed, claims checked and pages rendered by earlier runs, reused when their
    /// inputs are unchanged (see [`Incremental`]).
    pub memo: Option<&'a mut Incremental>,
    /// Called once the calls are planned, with one cancellation flag per call (same order
    /// as `Plan::calls`): setting one stops that call at its next checkpoint, and the run
    /// then ends without checking or rendering.
    pub on_plan: Option<&'a OnPlan<'a>>,
    /// Where the rendered files go as they are made (a build's temporary folder, or
    /// nowhere for `check`) instead of an [`Output`] held in memory; then
    /// [`Run::output`] is `None`.
    pub sink: Option<&'a mut dyn Sink>,
}

/// The callback of [`Hooks::on_plan`]: the plan and one cancellation flag per call.
pub type OnPlan<'a> = dyn Fn(&Plan, &[Arc<AtomicBool>]) + 'a;

/// What a run did afresh (a run without [`Incremental`] does everything).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Work {
    /// Essays parsed.
    pub parsed: usize,
    /// Essays whose claims were checked.
    pub checked: usize,
    /// Bodies, pages, listings and static files made (see [`countersign_render::Rendered`]).
    pub rendered: countersign_render::Rendered,
}

/// One essay's claims as last checked: (the version of its parsed text, see
/// [`Incremental`]; bindings) → (reports, diagnostics). A version, not the text or a hash
/// of it: a rebuild then reads no unchanged essay's text again.
struct CheckMemo {
    version: u64,
    /// Per bound id: the call's cache key, and whether its result was there.
    binding: Vec<(String, String, bool)>,
    bound: Bindings,
    reports: Arc<[ClaimReport]>,
    diags: Vec<Diagnostic>,
}

/// Whether `memo` was made with the bindings essay number `i` has in `plan` and `results`
/// (compared in place: an unchanged essay copies no key).
fn same_binding(memo: &CheckMemo, plan: &Plan, results: &Results, i: usize) -> bool {
    let now = &plan.bindings[i];
    memo.binding.len() == now.len()
        && memo
            .binding
            .iter()
            .zip(now)
            .all(|((id, key, had), (id2, &c))| id == id2 && *key == plan.calls[c].key && *had == results.values[c].is_some())
}

/// [`Checker`] for a run with an [`Incremental`]: an essay is bound again only when its
/// bindings changed, and checked again only when its parse version or bindings changed.
struct Rechecking<'a> {
    plan: &'a Plan,
    results: &'a Results,
    versions: &'a HashMap<String, u64>,
    old: HashMap<String, CheckMemo>,
    new: HashMap<String, CheckMemo>,
    checked: usize,
}

impl Checker for Rechecking<'_> {
    fn bound(&mut self, i: usize, essay: &Essay) -> Option<Bindings> {
        let m = self.old.get(&essay.file)?;
        same_binding(m, self.plan, self.results, i).then(|| m.bound.clone())
    }

    fn check(&mut self, i: usize, essay: &Essay, bound: &Bindings, failed: &[&str]) -> (Arc<[ClaimReport]>, Vec<Diagnostic>) {
        let version = self.versions.get(&essay.file).copied().unwrap_or(0);
        let old = self.old.remove(&essay.file).filter(|m| same_binding(m, self.plan, self.results, i));
        let m = match old {
            Some(m) if m.version == version && version != 0 => m,
            old => {
                self.checked += 1;
                let (r, diags) = check_one(essay, &bound.0, failed);
                let binding = old.map(|m| m.binding).unwrap_or_else(|| {
                    let (plan, results) = (self.plan, self.results);
                    plan.bindings[i].iter().map(|(id, &c)| (id.clone(), plan.calls[c].key.clone(), results.values[c].is_some())).collect()
                });
                CheckMemo { version, binding, bound: bound.clone(), reports: Arc::from(r), diags }
            }
        };
        let out = (m.reports.clone(), m.diags.clone());
        self.new.insert(essay.file.clone(), m);
        out
    }
}

/// What watch mode keeps between runs, so that a run redoes only what its changes touch:
///
/// - an essay's file is read again only when its stamp (size, times, inode: see
///   [`crate::source::Stamp`]) changed, and parsed again only when its file name or text
///   changed; its images' places are found again only when it was parsed again;
/// - its claims are checked again only when its text or the calls its ids are bound to
///   changed (a result is a function of its call's cache key);
/// - rendering reuses every body, page and listing whose inputs are unchanged (see
///   [`countersign_render::Memo`]).
///
/// A changed `countersign.yaml` forgets every claim report and rendering (parsing an essay
/// does not read it). Census results are kept apart (the `memory` of [`Hooks`]), by cache
/// key. Every reuse compares the exact inputs, so a run
/// with this memory produces the same output and diagnostics as one without.
///
/// A run lends its unchanged essays to its [`Run`] rather than copying them; give them
/// back with [`Incremental::give_back`] (an essay not given back is read and parsed
/// again by the next run).
pub struct Incremental {
    config: Option<(Option<String>, Option<String>)>,
    essays: HashMap<String, Unit>,
    /// The version the latest parse of each essay file got (claims are checked again
    /// when it changes).
    versions: HashMap<String, u64>,
    next_version: u64,
    checks: HashMap<String, CheckMemo>,
    prepares: Prepares,
    render: countersign_render::Memo,
    /// How long after a file changed its stamp is trusted ([`crate::source::STAMP_SETTLES`]
    /// unless a test shortens it).
    pub settles: std::time::Duration,
    /// What the latest run did afresh.
    pub last: Work,
}

impl Default for Incremental {
    fn default() -> Incremental {
        Incremental {
            config: None,
            essays: HashMap::new(),
            versions: HashMap::new(),
            next_version: 1,
            checks: HashMap::new(),
            prepares: Prepares::default(),
            render: countersign_render::Memo::default(),
            settles: crate::source::STAMP_SETTLES,
            last: Work::default(),
        }
    }
}

/// One essay file as the last load made it.
struct Unit {
    path: PathBuf,
    /// Its stamp before it was read (`None`: read it next time).
    stamp: Option<crate::source::Stamp>,
    /// Its text, when it did not parse (else the essay's own `source`).
    source: Option<String>,
    /// The parsed essay; `None` while lent to a run, or when it did not parse.
    essay: Option<Essay>,
    /// The essay is lent to a run.
    lent: bool,
    diags: Vec<Diagnostic>,
    images: Vec<(String, std::ops::Range<usize>)>,
    /// The essay's [`countersign_render::TextKey`], made when it was parsed.
    text_key: Option<countersign_render::TextKey>,
}

impl Incremental {
    /// Take back the essays a run was lent (`run.loaded.essays`), so that the next run
    /// reads none of them again unless its file changed.
    pub fn give_back(&mut self, essays: Vec<Essay>) {
        for e in essays {
            if let Some(u) = self.essays.get_mut(&e.file) {
                if u.lent && u.path == e.path {
                    u.lent = false;
                    u.essay = Some(e);
                }
            }
        }
    }
}

/// An [`Incremental`]'s essays during one load: the old units, and the new ones made.
struct Loading<'a> {
    old: HashMap<String, Unit>,
    new: HashMap<String, Unit>,
    versions: &'a mut HashMap<String, u64>,
    next_version: &'a mut u64,
    settles: std::time::Duration,
    now: std::time::SystemTime,
    /// The stamp of the file about to be read.
    stamp: Option<crate::source::Stamp>,
    parsed: usize,
}

impl Units for Loading<'_> {
    fn unchanged(&mut self, file: &str, path: &Path) -> Option<(Option<Essay>, Vec<Diagnostic>)> {
        self.stamp = crate::source::Stamp::of(path, self.now, self.settles);
        let u = self.old.get(file)?;
        let same = u.path == path && !u.lent && u.essay.is_some() && u.stamp.is_some() && u.stamp == self.stamp;
        if !same {
            return None;
        }
        let mut u = self.old.remove(file)?;
        let essay = u.essay.take();
        u.lent = true;
        let diags = u.diags.clone();
        self.new.insert(file.to_string(), u);
        Some((essay, diags))
    }

    fn parse(&mut self, file: &str, path: PathBuf, source: String) -> (Option<Essay>, Vec<Diagnostic>) {
        let stamp = self.stamp.take();
        let old = self.old.remove(file).filter(|u| u.path == path && !u.lent);
        let same_text = old.as_ref().is_some_and(|u| u.source.as_deref().or(u.essay.as_ref().map(|e| &*e.source)) == Some(source.as_str()));
        let mut u = match old {
            Some(u) if same_text => u,
            _ => {
                self.parsed += 1;
                *self.next_version += 1;
                self.versions.insert(file.to_string(), *self.next_version);
                let (essay, diags) = content::parse_essay(file, path.clone(), source.clone());
                let images = essay.as_ref().map(crate::images::references).unwrap_or_default();
                let source = essay.is_none().then_some(source);
                let text_key = essay.as_ref().map(countersign_render::TextKey::of);
                Unit { path, stamp: None, source, essay, lent: false, diags, images, text_key }
            }
        };
        u.stamp = stamp;
        u.lent = u.essay.is_some();
        let out = (u.essay.take(), u.diags.clone());
        self.new.insert(file.to_string(), u);
        out
    }

    fn images(&mut self, essay: &Essay) -> Option<Vec<(String, std::ops::Range<usize>)>> {
        self.new.get(&essay.file).map(|u| u.images.clone())
    }
}

/// [`load`], reading again only the essay files whose stamp changed and parsing again only
/// those whose file name or text is not the one `memo` holds; also returns the
/// configuration file's text.
fn load_incremental(root: &Path, theme: &Theme, memo: &mut Incremental) -> (Loaded, Option<String>) {
    let mut loading = Loading {
        old: std::mem::take(&mut memo.essays),
        new: HashMap::new(),
        versions: &mut memo.versions,
        next_version: &mut memo.next_version,
        settles: memo.settles,
        now: std::time::SystemTime::now(),
        stamp: None,
        parsed: 0,
    };
    let (loaded, config_text) = load_with(root, theme, &mut loading);
    let (new, parsed) = (loading.new, loading.parsed);
    memo.versions.retain(|file, _| new.contains_key(file));
    memo.essays = new;
    memo.last.parsed = parsed;
    (loaded, config_text)
}

/// Whether a run's rendered site holds the essays marked `draft: true`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Drafts {
    /// Rendered like the others (`watch`, `check`), their pages carrying a banner.
    #[default]
    Shown,
    /// Left out of every page, list and index (`build`); links to them show as plain
    /// text, as links to planned essays do.
    LeftOut,
}

/// One warning per essay marked `draft: true`, at its `draft` key: checked, not published.
pub fn draft_warnings(essays: &[Essay]) -> Vec<Diagnostic> {
    essays
        .iter()
        .filter(|e| e.front.draft)
        .map(|e| {
            Diagnostic::warning(Code::Draft, &e.file, e.front.draft_span.clone(), format!("`{}` is a draft", e.front.title))
                .with_hint("its claims are checked and `countersign watch` shows it, but `countersign build` leaves it out; remove `draft: true` to publish it")
        })
        .collect()
}

/// Render every essay of `loaded` with its checked claims (see
/// [`countersign_render::render_site`]); with [`Drafts::LeftOut`], every essay but the drafts,
/// whose titles then count as planned.
fn render_stage(
    loaded: &Loaded,
    checked: &Checked,
    units: &HashMap<String, Unit>,
    memo: &mut countersign_render::Memo,
    drafts: Drafts,
    out: &mut dyn Sink,
) -> Vec<Diagnostic> {
    let leave_out = |e: &Essay| drafts == Drafts::LeftOut && e.front.draft;
    let mut config = std::borrow::Cow::Borrowed(&loaded.config);
    for e in loaded.essays.iter().filter(|e| leave_out(e)) {
        let c = config.to_mut();
        c.planned.push(e.front.title.clone());
        c.drafts_left_out.insert(e.front.title.clone(), (e.file.clone(), e.front.draft_span.clone()));
    }
    let inputs: Vec<countersign_render::EssayInput> = loaded
        .essays
        .iter()
        .enumerate()
        .filter(|(_, e)| !leave_out(e))
        .map(|(i, e)| countersign_render::EssayInput {
            essay: e,
            bound: &checked.bound[i],
            fingerprints: &checked.fingerprints[i],
            reports: &checked.reports[i],
            text_key: units.get(&e.file).and_then(|u| u.text_key).unwrap_or_else(|| countersign_render::TextKey::of(e)),
        })
        .collect();
    // The essays' images go out as static files of their pages' folders (a site static
    // file of the same path is kept).
    let mut files = std::borrow::Cow::Borrowed(&loaded.files);
    for image in loaded.images.iter().filter(|i| inputs.iter().any(|e| e.essay.slug == i.slug)) {
        files.to_mut().statics.entry(image.out.clone()).or_insert_with(|| image.bytes.clone());
    }
    countersign_render::render_site(&config, &files, &inputs, out, memo)
}

/// Load, plan, compute, check and (when `opts.render`) render a site.
pub fn run(opts: &RunOptions, memory: Option<&Mutex<HashMap<String, Arc<Value>>>>) -> Run {
    run_with(opts, Hooks { memory, ..Hooks::default() }).expect("a run nobody cancels finishes")
}

/// [`run`] with [`Hooks`]; `None` when a call's cancellation flag was set before the
/// census calls finished (nothing after them is done; calls that finished are remembered).
pub fn run_with(opts: &RunOptions, hooks: Hooks) -> Option<Run> {
    run_drafts(opts, hooks, Drafts::Shown)
}

/// [`run`] for publishing (`countersign build`): drafts are checked but not rendered
/// (see [`Drafts::LeftOut`]).
pub fn run_publishing(opts: &RunOptions) -> Run {
    run_drafts(opts, Hooks::default(), Drafts::LeftOut).expect("a run nobody cancels finishes")
}

/// [`run_publishing`], each rendered file going to `sink` as it is made (see
/// [`Hooks::sink`]): a build writes its pages into the temporary folder one at a time.
pub fn run_publishing_into(opts: &RunOptions, sink: &mut dyn Sink) -> Run {
    run_drafts(opts, Hooks { sink: Some(sink), ..Hooks::default() }, Drafts::LeftOut).expect("a run nobody cancels finishes")
}

/// [`run_with`], rendering drafts or leaving them out.
fn run_drafts(opts: &RunOptions, hooks: Hooks, drafts: Drafts) -> Option<Run> {
    // Without a memory kept between runs, render with one that keeps no page once made.
    let one_shot = hooks.memo.is_none();
    let mut fresh = Incremental::default();
    let memo = hooks.memo.unwrap_or(&mut fresh);
    memo.last = Work::default();
    let (mut loaded, config_text) = load_incremental(&opts.root, &opts.theme, memo);
    if let Some(url) = &opts.base_url {
        loaded.config.base_url = url.trim_end_matches('/').to_string();
    }
    let config_text = (config_text, opts.base_url.clone());
    if memo.config.as_ref() != Some(&config_text) {
        // A new configuration: everything but the parsed essays is made afresh.
        memo.checks.clear();
        memo.render = if one_shot { countersign_render::Memo::forgetful() } else { countersign_render::Memo::default() };
        memo.config = Some(config_text);
    }
    let plan = plan_with(&loaded, &mut memo.prepares);
    let site_diags = validate(&loaded);
    let flags: Vec<Arc<AtomicBool>> = plan.calls.iter().map(|_| Arc::new(AtomicBool::new(false))).collect();
    if let Some(f) = hooks.on_plan {
        f(&plan, &flags);
    }
    let cache = if opts.use_cache { Cache::at(cache_dir(&opts.root)) } else { Cache::disabled() };
    let results = compute(
        &plan,
        &ComputeOptions { cache: &cache, memory: hooks.memory, progress: opts.progress, cancel: Arc::default(), flags: Some(&flags) },
    );
    if flags.iter().any(|f| f.load(Ordering::SeqCst)) {
        return None;
    }
    // Check, again only the essays whose text or bound calls changed.
    let mut rechecking = Rechecking {
        plan: &plan,
        results: &results,
        versions: &memo.versions,
        old: std::mem::take(&mut memo.checks),
        new: HashMap::new(),
        checked: 0,
    };
    let checked = check_with(&loaded, &plan, &results, &mut rechecking);
    memo.checks = rechecking.new;
    memo.last.checked = rechecking.checked;
    let mut diags = loaded.diags.clone();
    diags.extend(plan.diags.iter().cloned());
    diags.extend(site_diags);
    diags.extend(results.diags.iter().cloned());
    diags.extend(checked.diags.iter().cloned());
    let mut sink = hooks.sink;
    let output = opts.render.then(|| {
        let mut held = Output::default();
        let out: &mut dyn Sink = match sink.as_deref_mut() {
            Some(s) => s,
            None => &mut held,
        };
        let d = render_stage(&loaded, &checked, &memo.essays, &mut memo.render, drafts, out);
        memo.last.rendered = memo.render.last;
        diags.extend(d);
        held
    });
    let output = output.filter(|_| sink.is_none());
    let work = memo.last;
    Some(Run { stats: results.stats, loaded, checked: Some(checked), output, diags, work })
}

#[cfg(test)]
mod tests {
    use super::first_difference;
    use serde_json::{json, Value};

    #[test]
    fn two_answers_first_differ_at_a_path_with_both_values() {
        let at = |a: Value, b: Value| {
            let (path, x, y) = first_difference(&a, &b);
            (path, x.cloned(), y.cloned())
        };
        let long: Vec<u32> = (0..300).collect();
        assert_eq!(
            at(json!({"same": long, "rows": [{"g": 0}, {"g": 1, "h": 2}]}), json!({"same": long, "rows": [{"g": 0}, {"g": 1, "h": 3}]})),
            ("rows[1].h".into(), Some(json!(2)), Some(json!(3)))
        );
        assert_eq!(at(json!([[1, 2], [3]]), json!([[1, 2], [4]])), ("[1][0]".into(), Some(json!(3)), Some(json!(4))));
        assert_eq!(at(json!({"a": 1}), json!({"a": 1, "b": 2})), ("b".into(), None, Some(json!(2))));
        assert_eq!(at(json!({"a": 1, "b": 2}), json!({"b": 2})), ("a".into(), Some(json!(1)), None));
        assert_eq!(at(json!({"a": [1, 2]}), json!({"a": [1]})), ("a".into(), Some(json!([1, 2])), Some(json!([1]))));
        assert_eq!(at(json!(1), json!("1")), (String::new(), Some(json!(1)), Some(json!("1"))));
    }
}
