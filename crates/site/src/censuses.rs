//! Site censuses: computations a site brings with it, in any language.
//!
//! Each file `censuses/NAME.yaml` declares the census `NAME` (the file name without
//! `.yaml`, e.g. `subtraction.grundy`):
//!
//! ```yaml
//! summary: Grundy values of a subtraction game, and their period
//! command: [python3, censuses/subtraction.py]   # argv, run from the site root
//! sources: [censuses/subtraction.py]            # globs; their contents key the cache
//! timeout: 30                                   # seconds (default 60)
//! params:
//!   heaps: { type: int, min: 1, max: 10000, default: 40, doc: heap sizes 0..heaps }
//! ```
//!
//! The protocol (the guide's "Censuses of your own", `docs/guide/essays/site-censuses.md`): the canonical parameters go to the process as
//! one JSON object on standard input; it answers with one JSON value on standard output;
//! lines `progress: DONE/TOTAL` on standard error feed the progress bar, and the other
//! lines of standard error are shown, the last of them, when it fails. A non-zero exit,
//! output that is not JSON, or running past `timeout` is a failure ([`Failure`]).
//!
//! [`load`] reads the declarations and hashes their sources (the load stage reads every
//! file); [`SiteCensus::prepare`] checks a block's parameters against the schema without
//! any I/O; running a prepared call starts the process.

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use countersign_census::{Ctx, Failure, FailureKind, ParamError, PrepareError, Prepared, Stop};
use countersign_core::diag::{Code, Diagnostic};

use crate::source::Place;

/// The folder of the declarations, under the site root.
pub const DIR: &str = "censuses";
/// The time limit of a census that declares none, in seconds.
pub const DEFAULT_TIMEOUT: f64 = 60.0;
/// The longest time limit a declaration may give, in seconds (a day).
pub const MAX_TIMEOUT: f64 = 86_400.0;
/// How many lines of standard error a failure shows.
pub const TAIL_LINES: usize = 20;
/// Standard output over this many bytes is refused (as output that is not JSON would be).
pub const MAX_OUTPUT: u64 = 64 * 1024 * 1024;
/// Version of the site-census fingerprint; bump it to rerun every site census.
const FINGERPRINT_FORMAT: &str = "countersign-site-census-1";

/// The type of a parameter (`type:` in the schema).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    /// A whole number (64-bit signed), bounded by `min`/`max` when given.
    Int,
    /// `true` or `false`.
    Bool,
    /// Any string.
    String,
    /// A list whose items are of type `items` (default `int`), at most `max_items` long;
    /// `min`/`max` bound each integer item.
    List,
}

impl ParamType {
    fn word(self) -> &'static str {
        match self {
            ParamType::Int => "integer",
            ParamType::Bool => "boolean (true or false)",
            ParamType::String => "string",
            ParamType::List => "list",
        }
    }
}

/// One parameter of a site census's schema.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct ParamSpec {
    /// Its type.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// For a list, the type of its items (`int`, `bool` or `string`; default `int`).
    #[serde(default)]
    pub items: Option<ParamType>,
    /// Smallest integer allowed (the value, or each item of a list).
    #[serde(default)]
    pub min: Option<i64>,
    /// Largest integer allowed (the value, or each item of a list).
    #[serde(default)]
    pub max: Option<i64>,
    /// Longest list allowed.
    #[serde(default)]
    pub max_items: Option<usize>,
    /// The value used when the block does not give one; without it the parameter is
    /// required. Checked against the schema when the declaration loads.
    #[serde(default)]
    pub default: Option<Value>,
    /// What it means, for `countersign list`.
    #[serde(default)]
    pub doc: String,
}

/// A declaration as written in `censuses/NAME.yaml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
struct Declaration {
    #[serde(default)]
    summary: String,
    command: Vec<String>,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default)]
    params: BTreeMap<String, ParamSpec>,
}

/// A census declared by the site, loaded and fingerprinted.
#[derive(Debug)]
pub struct SiteCensus {
    /// Its name, the declaration's file name without `.yaml`.
    pub name: String,
    /// The declaration's path relative to the site root, e.g. `censuses/grundy.yaml`.
    pub file: String,
    /// One line for `countersign list`.
    pub summary: String,
    /// The argv to run, from the site root; never empty.
    pub command: Vec<String>,
    /// The source globs as declared.
    pub sources: Vec<String>,
    /// The files they matched, relative to the root, sorted.
    pub files: Vec<String>,
    /// The time limit.
    pub timeout: Duration,
    /// The parameters, sorted by name.
    pub params: BTreeMap<String, ParamSpec>,
    /// blake3 over the fingerprint format, the command and each matched file's path and
    /// contents (line endings read as LF). Hex, 64 characters.
    pub fingerprint: String,
    root: PathBuf,
}

/// What [`load`] found: the censuses, the declarations' texts (for diagnostics) and the
/// problems.
#[derive(Default)]
pub struct Loaded {
    /// Censuses that loaded, sorted by name.
    pub censuses: Vec<Arc<SiteCensus>>,
    /// (path, text) of every declaration read.
    pub texts: Vec<(String, String)>,
    /// Problems: a declaration that does not parse, a name a built-in census has, a
    /// source glob that matches no file, a default outside its own schema.
    pub diags: Vec<Diagnostic>,
}

/// Read every `censuses/*.yaml` under `root` (hidden files skipped) and hash the sources
/// each names. No folder: no site censuses.
pub fn load(root: &Path) -> Loaded {
    let mut out = Loaded::default();
    let Ok(dir) = std::fs::read_dir(root.join(DIR)) else { return out };
    let mut names: Vec<String> = dir.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let real_root = crate::source::canonical_root(root);
    for file_name in names.iter().filter(|n| n.ends_with(".yaml") && !n.starts_with('.')) {
        let file = format!("{DIR}/{file_name}");
        let text = match crate::source::read_site_file(root, &real_root, &file, crate::source::TEXT_LIMIT) {
            Ok(b) => match String::from_utf8(b) {
                Ok(t) => t,
                Err(_) => {
                    out.diags.push(Diagnostic::error(Code::NotUtf8, &file, 0..0, "the census declaration is not UTF-8; save it as UTF-8"));
                    continue;
                }
            },
            Err(e) => {
                out.diags.push(crate::source::read_error(&file, &e));
                continue;
            }
        };
        let name = file_name.trim_end_matches(".yaml").to_string();
        match declare(root, &file, &name, &text) {
            Ok(c) => out.censuses.push(Arc::new(c)),
            Err(d) => out.diags.push(*d),
        }
        out.texts.push((file, text));
    }
    out
}

/// The byte offset of `line:column` (1-based) in `text`, or 0.
fn at_line(text: &str, line: Option<usize>, column: Option<usize>) -> usize {
    match (line, column) {
        (Some(l), Some(c)) => countersign_core::content::offset_of(text, l, c),
        _ => 0,
    }
}

/// A declaration problem at byte `at` of its file.
fn bad(file: &str, text: &str, at: usize, message: String) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(Code::CensusDeclaration, file, countersign_core::content::char_span(text, at), message))
}

/// Parse and check one declaration; fingerprint its sources.
fn declare(root: &Path, file: &str, name: &str, text: &str) -> Result<SiteCensus, Box<Diagnostic>> {
    if countersign_census::lookup(name).is_some() {
        return Err(Box::new(
            Diagnostic::error(Code::CensusNameTaken, file, 0..0, format!("`{name}` is the name of a built-in census"))
                .with_hint("rename the declaration file: a site census cannot replace a built-in one"),
        ));
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')) {
        return Err(bad(file, text, 0, format!("`{name}` is not a census name: use letters, digits, `.`, `_` and `-`")));
    }
    let (d, ix) = countersign_core::yaml::parse::<Declaration>(text).map_err(|e| {
        let at = at_line(text, e.line, e.column);
        let d = bad(file, text, at, format!("in the census declaration: {}", e.message));
        Box::new((*d).with_hint("keys: summary, command, sources, timeout, params"))
    })?;
    let key = |k: &str| ix.key(&[k]).map_or(0, |r| r.start);
    if d.command.is_empty() || d.command[0].is_empty() {
        return Err(bad(file, text, key("command"), "`command` must name a program: e.g. [python3, censuses/grundy.py]".into()));
    }
    let timeout = d.timeout.unwrap_or(DEFAULT_TIMEOUT);
    if !(timeout > 0.0 && timeout <= MAX_TIMEOUT) {
        return Err(bad(file, text, key("timeout"), format!("`timeout` is in seconds, more than 0 and at most {MAX_TIMEOUT}")));
    }
    for (p, spec) in &d.params {
        let at = ix.nearest(&["params", p]).map_or(0, |r| r.start);
        if let Some(v) = &spec.default {
            check_value(p, spec, v)
                .map_err(|m| bad(file, text, at, format!("the default of `{p}` does not fit its schema: {}", m.message())))?;
        }
        if spec.kind != ParamType::List && (spec.items.is_some() || spec.max_items.is_some()) {
            return Err(bad(file, text, at, format!("`items` and `max_items` are for lists; `{p}` is not one")));
        }
    }
    let files = match_sources(root, &d.sources).map_err(|(g, m)| {
        let item = d.sources.iter().position(|s| *s == g).and_then(|i| ix.value(&["sources", &i.to_string()]));
        bad(file, text, item.map_or(key("sources"), |r| r.start), m)
    })?;
    let fingerprint = fingerprint(root, &d.command, &files).map_err(|m| bad(file, text, key("sources"), m))?;
    Ok(SiteCensus {
        name: name.to_string(),
        file: file.to_string(),
        summary: d.summary,
        command: d.command,
        sources: d.sources,
        files,
        timeout: Duration::from_secs_f64(timeout),
        params: d.params,
        fingerprint,
        root: root.to_path_buf(),
    })
}

/// The files under `root` each glob matches (relative, `/`-separated, sorted). Each glob
/// is walked from its literal prefix, links followed. Never matched: the output folder
/// `public/` ([`crate::output::DEFAULT_DIR`]), the results cache [`crate::cache::DIR`], and any folder holding
/// the output marker ([`crate::output::MARKER`], an output written elsewhere by `--out`),
/// since each build writes them and would change the fingerprint (`**/*` would rerun the
/// census every build). Errors, as (the glob, the sentence): a glob that is absolute or
/// has a `..` part, a match that is (or is reached through) a link out of the site, a
/// glob that matches no file, or one that is not a glob.
fn match_sources(root: &Path, globs: &[String]) -> Result<Vec<String>, (String, String)> {
    let mut files = std::collections::BTreeSet::new();
    let real_root = crate::source::canonical_root(root);
    for g in globs {
        // A root, a drive (`C:`) or a `..` in either separator's reading leaves the root.
        let leaves = Path::new(g).components().any(|c| !matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
        if leaves || g.starts_with(['/', '\\']) || g.split(['/', '\\']).any(|c| c == "..") {
            return Err((g.clone(), format!("the source `{g}` is outside the site root: a source is a path under it, without `..`")));
        }
        let matcher = globset::GlobBuilder::new(g)
            .literal_separator(true)
            .build()
            .map_err(|e| (g.clone(), format!("`{g}` is not a glob: {e}")))?
            .compile_matcher();
        let base: Vec<&str> = g.split('/').take_while(|c| !c.contains(['*', '?', '[', '{'])).collect();
        let start = root.join(base.join("/"));
        let matched = walk_sources(root, &real_root, &start, g, &mut |rel| {
            let hit = matcher.is_match(rel);
            if hit {
                files.insert(rel.to_string());
            }
            hit
        })
        .map_err(|m| (g.clone(), m))?;
        if matched == 0 {
            return Err((g.clone(), format!("the source `{g}` matches no file under the site root")));
        }
    }
    Ok(files.into_iter().collect())
}

/// Walk `start`, the folder (or file) of `glob`'s literal prefix (links followed, in name
/// order), giving `take` the path from `root` of every file outside the folders a build
/// writes (see [`match_sources`]); how many it took. The start, and each link met, must
/// lead inside `real_root` (the canonical root), or the walk fails naming it: the start
/// always, a file link when `take` takes it, a folder link when `glob` could match below
/// it (it has `**`, or more parts than the folder). Nothing out of the site is read.
fn walk_sources(root: &Path, real_root: &Path, start: &Path, glob: &str, take: &mut dyn FnMut(&str) -> bool) -> Result<usize, String> {
    let written = |p: &Path| {
        p.join(crate::output::MARKER).exists() || p == root.join(crate::output::DEFAULT_DIR) || p == root.join(crate::cache::DIR)
    };
    let could_hold = |rel: &str| glob.contains("**") || rel.split('/').count() < glob.split('/').count();
    let mut taken = 0;
    let mut walk = walkdir::WalkDir::new(start).follow_links(true).sort_by_file_name().into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(e) => e,
            // A link to a folder above it (a loop) that leads out of the site: `/`, `..`.
            Err(e) => match e.path().filter(|_| e.loop_ancestor().is_some()).map(|p| (p, crate::source::place(&[real_root], p))) {
                Some((p, Place::Outside(real))) => {
                    let rel = p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
                    if could_hold(&rel) {
                        return Err(crate::source::outside_message(&format!("the source `{rel}`"), &real).0);
                    }
                    continue;
                }
                _ => continue,
            },
        };
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let (is_dir, is_file) = (entry.file_type().is_dir(), entry.file_type().is_file());
        if is_dir && written(entry.path()) {
            walk.skip_current_dir();
            continue;
        }
        let linked = entry.depth() == 0 || entry.path_is_symlink();
        if let Some(Place::Outside(real)) = linked.then(|| crate::source::place(&[real_root], entry.path())) {
            if entry.depth() == 0 || (is_file && take(&rel)) || (is_dir && could_hold(&rel)) {
                return Err(crate::source::outside_message(&format!("the source `{rel}`"), &real).0);
            }
            if is_dir {
                walk.skip_current_dir();
            }
            continue;
        }
        if is_file && take(&rel) {
            taken += 1;
        }
    }
    Ok(taken)
}

/// See [`SiteCensus::fingerprint`].
fn fingerprint(root: &Path, command: &[String], files: &[String]) -> Result<String, String> {
    let mut h = blake3::Hasher::new();
    h.update(FINGERPRINT_FORMAT.as_bytes());
    h.update(b"\n");
    h.update(countersign_census::fingerprint::RESULT_FORMAT.as_bytes());
    for a in command {
        h.update(b"\0");
        h.update(a.as_bytes());
    }
    h.update(b"\n");
    for f in files {
        let bytes =
            crate::source::read_source(&root.join(f), crate::source::TEXT_LIMIT * 16).map_err(|e| format!("cannot read {f}: {e}"))?;
        let lf = countersign_census::fingerprint::source_hashes::lf_only(&bytes);
        h.update(f.as_bytes());
        h.update(b"\0");
        h.update(blake3::hash(&lf).to_hex().as_bytes());
        h.update(b"\n");
    }
    Ok(h.finalize().to_hex().to_string())
}

/// A census block's parameters as the schema reads them: which errors point where.
#[derive(Debug)]
enum ParamProblem {
    /// A parameter the schema lacks, or a value of the wrong type: `bad-params`.
    Shape(String),
    /// A value outside its limits: `param-out-of-range`.
    Limit(String),
}

impl ParamProblem {
    /// The sentence.
    fn message(&self) -> &str {
        match self {
            ParamProblem::Shape(m) | ParamProblem::Limit(m) => m,
        }
    }
}

/// Check `v` against `spec`: its type (a [`ParamProblem::Shape`]), an integer's limits
/// and a list's length (a [`ParamProblem::Limit`]), and a list's items. The problem is a
/// sentence about parameter `name`.
fn check_value(name: &str, spec: &ParamSpec, v: &Value) -> Result<(), ParamProblem> {
    use ParamProblem::{Limit, Shape};
    let int = |v: &Value, what: &str| -> Result<(), ParamProblem> {
        let Some(n) = v.as_i64() else { return Err(Shape(format!("{what} must be an integer, got {v}"))) };
        if let Some(min) = spec.min.filter(|m| n < *m) {
            return Err(Limit(format!("{what} is {n}, below its minimum {min}")));
        }
        if let Some(max) = spec.max.filter(|m| n > *m) {
            return Err(Limit(format!("{what} is {n}, above its maximum {max}")));
        }
        Ok(())
    };
    let simple = |kind: ParamType, v: &Value, what: &str| -> Result<(), ParamProblem> {
        match kind {
            ParamType::Int => int(v, what),
            ParamType::Bool if v.is_boolean() => Ok(()),
            ParamType::String if v.is_string() => Ok(()),
            k => Err(Shape(format!("{what} must be {} {}, got {v}", if k == ParamType::Int { "an" } else { "a" }, k.word()))),
        }
    };
    match spec.kind {
        ParamType::List => {
            let Some(items) = v.as_array() else { return Err(Shape(format!("`{name}` must be a list, got {v}"))) };
            if let Some(m) = spec.max_items.filter(|m| items.len() > *m) {
                return Err(Limit(format!("`{name}` has {} items, more than its maximum {m}", items.len())));
            }
            let kind = spec.items.unwrap_or(ParamType::Int);
            items.iter().enumerate().try_for_each(|(i, x)| simple(kind, x, &format!("item {i} of `{name}`")))
        }
        k => simple(k, v, &format!("`{name}`")),
    }
}

impl SiteCensus {
    /// Check a whole census block's `with:` against the schema and prepare the call: the
    /// canonical parameters are the schema's, sorted by name, with defaults filled in.
    /// Errors point at the parameter's own line (relative to `block_yaml`). No I/O: the
    /// process starts when the prepared call runs. Cost 0: a site census is bounded by
    /// its time limit, not the budget.
    pub fn prepare(self: &Arc<Self>, block_yaml: &str) -> Result<Prepared, PrepareError> {
        let shape_at = |message: String, at: usize| {
            let before = &block_yaml[..at.min(block_yaml.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            PrepareError::Shape { message, line: Some(line), column: Some(column) }
        };
        let (block, ix) = countersign_core::yaml::parse::<Value>(block_yaml).map_err(|e| PrepareError::Shape {
            message: e.message,
            line: e.line,
            column: e.column,
        })?;
        let empty = serde_json::Map::new();
        let map = block.as_object().unwrap_or(&empty);
        if let Some(k) = map.keys().find(|k| !matches!(k.as_str(), "id" | "run" | "with")) {
            return Err(shape_at(
                format!("unknown field `{k}`, expected one of `id`, `run`, `with`"),
                ix.key(&[k.as_str()]).map_or(0, |r| r.start),
            ));
        }
        let with = match map.get("with") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(v) => {
                return Err(shape_at(format!("`with` must be a mapping of parameters, got {v}"), ix.key(&["with"]).map_or(0, |r| r.start)))
            }
        };
        let params = self.canonical(with).map_err(|(path, problem)| match problem {
            ParamProblem::Shape(m) => {
                let mut keys = vec!["with"];
                keys.extend(path.iter().map(String::as_str));
                shape_at(m, ix.nearest(&keys).map_or(0, |r| r.start))
            }
            ParamProblem::Limit(m) => PrepareError::Limit(ParamError { path, message: m, hint: None }),
        })?;
        let census = self.clone();
        let input = params.clone();
        Ok(Prepared::new(self.name.clone(), params, 0, Box::new(move |ctx| run_process(&census, &input, ctx))))
    }

    /// The canonical parameters of `with`, or the problem and the path of the parameter.
    fn canonical(&self, with: &serde_json::Map<String, Value>) -> Result<Value, (Vec<String>, ParamProblem)> {
        if let Some(k) = with.keys().find(|k| !self.params.contains_key(*k)) {
            let known: Vec<&str> = self.params.keys().map(String::as_str).collect();
            let list = if known.is_empty() { "it takes none".to_string() } else { format!("its parameters: {}", known.join(", ")) };
            return Err((vec![k.clone()], ParamProblem::Shape(format!("unknown parameter `{k}` ({list})"))));
        }
        let mut out = serde_json::Map::new();
        for (name, spec) in &self.params {
            let Some(v) = with.get(name).or(spec.default.as_ref()) else {
                return Err((Vec::new(), ParamProblem::Shape(format!("missing parameter `{name}` (it has no default)"))));
            };
            if let Err(problem) = check_value(name, spec, v) {
                return Err((vec![name.clone()], problem));
            }
            out.insert(name.clone(), v.clone());
        }
        Ok(Value::Object(out))
    }

    /// The shape of parameter `spec` in words, for `countersign list`.
    pub fn shape(spec: &ParamSpec) -> String {
        let mut s = match spec.kind {
            ParamType::List => format!("list of {}", spec.items.unwrap_or(ParamType::Int).word()),
            k => k.word().to_string(),
        };
        match (spec.min, spec.max) {
            (Some(a), Some(b)) => s.push_str(&format!(", {a}..={b}")),
            (Some(a), None) => s.push_str(&format!(", at least {a}")),
            (None, Some(b)) => s.push_str(&format!(", at most {b}")),
            (None, None) => {}
        }
        if let Some(m) = spec.max_items {
            s.push_str(&format!(", at most {m} items"));
        }
        if let Some(d) = &spec.default {
            s.push_str(&format!("; default {d}"));
        }
        s
    }
}

/// `progress: DONE/TOTAL` (spaces allowed around the numbers), as `(done, total)`.
pub fn parse_progress(line: &str) -> Option<(u64, u64)> {
    let (done, total) = line.trim().strip_prefix("progress:")?.split_once('/')?;
    Some((done.trim().parse().ok()?, total.trim().parse().ok()?))
}

/// The command as one would type it, for messages.
fn command_line(c: &SiteCensus) -> String {
    c.command.join(" ")
}

/// End the process and everything it started. On unix the process leads its own process
/// group, and the whole group is sent SIGKILL; elsewhere only the process itself is ended
/// (the guide's "Censuses of your own": cancelling on Windows).
fn end(child: &mut Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The most of one line of a census's standard error kept, in bytes: the head of a
/// longer line (which is shown cut to 300 characters anyway); the rest is read and dropped.
const LINE_HEAD: usize = 1200;

/// Start `c`'s command, give it `params`, and wait for its answer, its failure, its time
/// limit or `ctx`'s cancellation (checked every few milliseconds). The time limit bounds
/// the reading of its output too: a process it started outside its group (`setsid`)
/// that keeps the output open does not hold the run past it.
fn run_process(c: &SiteCensus, params: &Value, ctx: &Ctx) -> Result<Value, Stop> {
    let failure = |kind, message: String, tail: &Mutex<VecDeque<String>>| {
        let stderr_tail = tail.lock().map(|t| t.iter().cloned().collect()).unwrap_or_default();
        Stop::Failed(Failure { kind, message, stderr_tail })
    };
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let mut cmd = Command::new(&c.command[0]);
    cmd.args(&c.command[1..]).current_dir(&c.root).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|e| failure(FailureKind::Exit, format!("cannot start `{}`: {e}", command_line(c)), &tail))?;
    let input = serde_json::to_vec(params).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input).and_then(|_| stdin.write_all(b"\n"));
        });
    }
    let stdout = child.stdout.take().map(read_stdout);
    let stderr = child.stderr.take().map(|err| read_stderr(err, tail.clone(), ctx.clone()));
    let started = Instant::now();
    let deadline = started + c.timeout;
    let timed_out = |what: &str| {
        let message = format!("`{}` {what} longer than its time limit of {}s and was ended", command_line(c), c.timeout.as_secs_f64());
        failure(FailureKind::Timeout, message, &tail)
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                end(&mut child);
                return Err(failure(FailureKind::Exit, format!("cannot wait for `{}`: {e}", command_line(c)), &tail));
            }
        }
        if ctx.is_cancelled() {
            end(&mut child);
            return Err(Stop::Cancelled);
        }
        if Instant::now() > deadline {
            end(&mut child);
            return Err(timed_out("ran"));
        }
        std::thread::sleep(Duration::from_millis(if started.elapsed() < Duration::from_millis(100) { 2 } else { 20 }));
    };
    // Whatever it left running in its group would hold the pipes open.
    end(&mut child);
    let out = match (finish(stdout, deadline, ctx), finish(stderr, deadline, ctx)) {
        (Finished::Cancelled, _) | (_, Finished::Cancelled) => return Err(Stop::Cancelled),
        (Finished::Late, _) | (_, Finished::Late) => return Err(timed_out("exited, but a process it started kept its output open")),
        (Finished::Done(out), _) => out.unwrap_or_default(),
    };
    if !status.success() {
        let how = status.code().map_or_else(|| "was ended by a signal".to_string(), |n| format!("exited with status {n}"));
        return Err(failure(FailureKind::Exit, format!("`{}` {how}", command_line(c)), &tail));
    }
    if out.len() as u64 > MAX_OUTPUT {
        return Err(failure(FailureKind::Output, format!("`{}` wrote more than {MAX_OUTPUT} bytes", command_line(c)), &tail));
    }
    serde_json::from_slice(&out).map_err(|e| {
        let message = format!("the output of `{}` is not one JSON value ({e})", command_line(c));
        failure(FailureKind::Output, message, &tail)
    })
}

/// How the reading of one of a census's outputs ended.
enum Finished<T> {
    /// It reached the end of the output (or there was no output to read): what it read.
    Done(Option<T>),
    /// The time limit came first; the reader is left to end when the output closes.
    Late,
    /// The call was cancelled first.
    Cancelled,
}

/// Wait for `reader` until `deadline`, watching `ctx` for cancellation.
fn finish<T>(reader: Option<Receiver<T>>, deadline: Instant, ctx: &Ctx) -> Finished<T> {
    let Some(reader) = reader else { return Finished::Done(None) };
    loop {
        if ctx.is_cancelled() {
            return Finished::Cancelled;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Finished::Late;
        }
        match reader.recv_timeout(left.min(Duration::from_millis(20))) {
            Ok(v) => return Finished::Done(Some(v)),
            Err(RecvTimeoutError::Disconnected) => return Finished::Done(None),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Read standard output to its end (at most [`MAX_OUTPUT`] bytes and one more, to tell
/// that it wrote too much), on a thread; the bytes come through the receiver.
fn read_stdout(mut out: std::process::ChildStdout) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut out).take(MAX_OUTPUT + 1).read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx
}

/// Read standard error to its end on a thread, in chunks of 8 KiB, keeping at most
/// [`LINE_HEAD`] bytes of a line (one line of 200 MB cost 530 MB read whole): progress
/// lines go to `ctx`, the others into `tail` (the last [`TAIL_LINES`], each cut to 300
/// characters). The receiver hears when the end is reached.
fn read_stderr(mut err: std::process::ChildStderr, tail: Arc<Mutex<VecDeque<String>>>, ctx: Ctx) -> Receiver<()> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = vec![0u8; 8192];
        let mut line = Vec::with_capacity(LINE_HEAD);
        loop {
            let n = match err.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            for piece in chunk[..n].split_inclusive(|&b| b == b'\n') {
                let room = LINE_HEAD.saturating_sub(line.len());
                line.extend_from_slice(&piece[..piece.len().min(room)]);
                if piece.ends_with(b"\n") {
                    stderr_line(&line, &tail, &ctx);
                    line.clear();
                }
            }
        }
        if !line.is_empty() {
            stderr_line(&line, &tail, &ctx);
        }
        let _ = tx.send(());
    });
    rx
}

/// One line of a census's standard error (its head, see [`LINE_HEAD`]): a progress line
/// to `ctx`, another into `tail`.
fn stderr_line(line: &[u8], tail: &Mutex<VecDeque<String>>, ctx: &Ctx) {
    let text = String::from_utf8_lossy(line).trim_end().to_string();
    if let Some((done, total)) = parse_progress(&text) {
        ctx.progress(done, total);
    } else if let Ok(mut t) = tail.lock() {
        t.push_back(text.chars().take(300).collect());
        if t.len() > TAIL_LINES {
            t.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_parse() {
        assert_eq!(parse_progress("progress: 3/10"), Some((3, 10)));
        assert_eq!(parse_progress("  progress:3 / 10 "), Some((3, 10)));
        assert_eq!(parse_progress("progress: 3 of 10"), None);
        assert_eq!(parse_progress("3/10"), None);
    }

    #[test]
    fn values_are_checked_against_their_schema() {
        let spec: ParamSpec = countersign_core::yaml::from_str("{type: list, items: int, min: 1, max: 9, max_items: 3}").unwrap();
        assert!(check_value("s", &spec, &serde_json::json!([1, 3, 4])).is_ok());
        assert!(check_value("s", &spec, &serde_json::json!([1, 30])).unwrap_err().message().contains("above its maximum 9"));
        assert!(check_value("s", &spec, &serde_json::json!([1, 2, 3, 4])).unwrap_err().message().contains("more than its maximum 3"));
        assert!(check_value("s", &spec, &serde_json::json!(4)).unwrap_err().message().contains("must be a list"));
        let b: ParamSpec = countersign_core::yaml::from_str("{type: bool}").unwrap();
        assert!(check_value("b", &b, &serde_json::json!(1)).unwrap_err().message().contains("must be a boolean (true or false)"));
        // A wrong type is a shape problem, a value past a limit is out of range.
        let shape = |v: serde_json::Value| matches!(check_value("s", &spec, &v), Err(ParamProblem::Shape(_)));
        let limit = |v: serde_json::Value| matches!(check_value("s", &spec, &v), Err(ParamProblem::Limit(_)));
        assert!(shape(serde_json::json!(4)) && shape(serde_json::json!(["x"])) && shape(serde_json::json!([true])));
        assert!(limit(serde_json::json!([0])) && limit(serde_json::json!([10])) && limit(serde_json::json!([1, 1, 1, 1])));
    }

    /// Sources stay inside the site: an absolute glob or one with `..` is refused even
    /// where the file exists; `**/*` matches neither `public/`, the cache, nor an output
    /// folder written elsewhere (its marker), and follows a link inside the site; a link
    /// out of it is refused when the glob could match it, and passed by otherwise.
    #[cfg(unix)]
    #[test]
    fn sources_never_leave_the_site_nor_match_what_a_build_writes() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("site");
        let write = |p: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        };
        for p in ["censuses/c.py", "shared/lib.py", "public/index.html", "public/.countersign-output", ".countersign-cache/k.json"] {
            write(p);
        }
        for p in ["out/.countersign-output", "out/x.html"] {
            write(p);
        }
        std::fs::write(d.path().join("secret.txt"), "s").unwrap();
        let globs = |g: &[&str]| match_sources(&root, &g.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let refused = |g: &str| globs(&[g]).unwrap_err().1;
        assert!(refused("../secret.txt").contains("outside the site root"));
        assert!(refused(&d.path().join("secret.txt").to_string_lossy()).contains("outside the site root"));
        assert!(refused("censuses/../../secret.txt").contains("outside the site root"));
        std::os::unix::fs::symlink("../shared", root.join("censuses/lib")).unwrap();
        assert_eq!(globs(&["**/*"]).unwrap(), ["censuses/c.py", "censuses/lib/lib.py", "shared/lib.py"]);
        std::os::unix::fs::symlink(d.path(), root.join("censuses/away")).unwrap();
        assert_eq!(globs(&["censuses/*.py"]).unwrap(), ["censuses/c.py"], "a folder the glob cannot reach into is passed by");
        assert!(refused("**/*.py").contains("the source `censuses/away` links outside the site root"));
        std::fs::remove_file(root.join("censuses/away")).unwrap();
        std::os::unix::fs::symlink(d.path().join("secret.txt"), root.join("censuses/s.txt")).unwrap();
        assert_eq!(globs(&["censuses/*.py"]).unwrap(), ["censuses/c.py"]);
        assert!(refused("censuses/*").contains("the source `censuses/s.txt` links outside the site root"));
        assert!(refused("public/*").contains("matches no file"));
    }
}
