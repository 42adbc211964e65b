//! Watch mode (`countersign watch`): build, serve the site from memory, rebuild on every
//! save, and reload the open pages.
//!
//! - The site is served from a [`Snapshot`]: the whole rendered [`Output`] of one build,
//!   swapped behind an `Arc` in one step, so no request ever sees half a build.
//! - [`changes`] watches `essays/`, `templates/`, `static/` and `countersign.yaml` (never
//!   `public/`, `.countersign-cache/` or `target/`), ignores editors' swap and backup files
//!   and merges a burst of events into one rebuild.
//! - Builds run in a worker thread, through the stages of [`pipeline::run`] with a results
//!   memory (the `memory` of [`pipeline::ComputeOptions`]) and a [`pipeline::Incremental`]:
//!   an essay is parsed and checked again only when its text (or a call it binds) changed,
//!   and a body, page or listing is rendered again only when one of its inputs changed, so
//!   a prose edit recomputes no census and renders one page. The output is byte for byte
//!   a full build's (tests/watch_incremental.rs compares them after every kind of edit).
//!   Changes saved during a build start another once it ends; when they drop a census
//!   call the running build is computing (a census block edited mid-run), that call alone
//!   is cancelled at its next checkpoint, the build is not published, and the calls still
//!   asked for run on (the next build takes them from memory).
//! - A build with errors keeps the last good pages served and lays an element with id
//!   `countersign-error` over every page, showing the diagnostics as the terminal does
//!   (file:line:column, stated against computed); the next good build removes it.
//! - [`http`] serves the snapshot with axum over hyper, on a small tokio runtime in a thread
//!   of its own; it answers only requests naming the bound address, `localhost` or a name
//!   given with `--allow-host` (against DNS rebinding). Every HTML page it serves gets a
//!   script (see [`inject`]) that listens to
//!   `/__countersign/events` (server-sent events) and reloads the page once a newer
//!   generation is in place. Built sites never contain it: only the server adds it.
//! - `GET /__countersign/generation` answers the number of finished builds (tests and
//!   `scripts/watch-latency` wait on it); `GET /__countersign/status` answers it with the
//!   outcome and census counts of the last build, as JSON, and what it redid: `parsed` and
//!   `checked` essays, and `rendered` (`bodies`, `figures`, `pages`, `lists`, `static`; see
//!   [`countersign_render::Rendered`]).
//! - Ctrl-C (SIGINT) or SIGTERM (handled through `ctrlc`) stops the process at once, which is clean: watch mode
//!   writes nothing but cache entries, each written to a temporary file and renamed.

pub mod changes;
pub mod http;
pub mod inject;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use countersign_core::diag::Diagnostic;
use countersign_core::text::count;
use countersign_render::Output;
use countersign_site::pipeline;

/// What `countersign watch` was asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// The site root.
    pub root: PathBuf,
    /// The address to listen on (IPv4 or IPv6, e.g. `127.0.0.1` or `::1`).
    pub interface: IpAddr,
    /// The port; 0 picks a free one (the address is printed on stdout either way).
    pub port: u16,
    /// Open the site in the default browser once it is built.
    pub open: bool,
    /// Colour the diagnostics printed on the terminal.
    pub color: bool,
    /// Host names answered besides the bound address and `localhost` (`--allow-host`; see
    /// [`http::Access`]).
    pub allowed_hosts: Vec<String>,
    /// Poll the files for changes (`--poll`) instead of the system's notifications.
    pub poll: bool,
}

/// One build as served: every file, plus the overlay when the build failed.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Finished builds so far (0 while the first build runs).
    pub generation: u64,
    /// The files served: the latest good build (or, before any good build, the latest).
    pub files: Arc<Output>,
    /// When the latest build failed: its diagnostics, rendered without colour.
    pub error: Option<String>,
    /// `/__countersign/status`: generation, ok, error and warning counts, census counts.
    pub status: Value,
}

/// A census call of the running build: its cache key and its cancellation flag.
pub type RunningCall = (String, Arc<AtomicBool>);

/// The snapshot being served, in a `tokio::sync::watch` channel: swapped in one step, and
/// every reload channel subscribed to it is woken once the new one is in place.
#[derive(Debug, Default)]
pub struct State {
    current: tokio::sync::watch::Sender<Arc<Snapshot>>,
    /// The calls planned by the build in progress, by cache key, each with the flag that
    /// cancels it (`None`: no build running).
    running: Mutex<Option<Vec<RunningCall>>>,
}

impl State {
    /// The snapshot now being served.
    pub fn current(&self) -> Arc<Snapshot> {
        self.current.borrow().clone()
    }

    /// Serve `snap` from now on and wake every reload channel.
    pub fn publish(&self, snap: Snapshot) {
        self.current.send_replace(Arc::new(snap));
    }

    /// A receiver that sees every snapshot published from now on (marked changed at each
    /// publish, after the snapshot is in place).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<Arc<Snapshot>> {
        self.current.subscribe()
    }

    /// Record the calls of the build in progress and their cancellation flags (`None` when
    /// it ends).
    pub fn set_running(&self, calls: Option<Vec<RunningCall>>) {
        match self.running.lock() {
            Ok(mut g) => *g = calls,
            Err(p) => *p.into_inner() = calls,
        }
    }

    /// The cache keys of the calls of the build in progress, if one is past planning.
    pub fn running(&self) -> Option<Vec<String>> {
        let g = match self.running.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.as_ref().map(|calls| calls.iter().map(|(k, _)| k.clone()).collect())
    }

    /// Cancel the calls of the build in progress whose keys are not in `wanted`; the others
    /// run on (the next build takes their results from memory). Returns how many were
    /// cancelled; the build is then not published.
    pub fn cancel_unwanted(&self, wanted: &std::collections::BTreeSet<String>) -> usize {
        let g = match self.running.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let mut n = 0;
        for (key, flag) in g.iter().flatten() {
            if !wanted.contains(key) {
                flag.store(true, Ordering::SeqCst);
                n += 1;
            }
        }
        n
    }
}

/// Runs the pipeline again and again, keeping census results, what earlier builds made
/// (see [`pipeline::Incremental`]) and the last good output.
pub struct Builder {
    root: PathBuf,
    memory: Mutex<HashMap<String, Arc<Value>>>,
    memo: pipeline::Incremental,
    last_good: Option<Arc<Output>>,
    cancelled: u64,
    color: bool,
}

/// What one build did, for the terminal.
pub struct Built {
    /// The snapshot to serve.
    pub snapshot: Snapshot,
    /// Diagnostics rendered for the terminal (possibly coloured; empty when none).
    pub printed: String,
    /// One summary line (the loop adds " — fixed" when it follows a failure it showed).
    pub summary: String,
}

impl Built {
    /// The build had no errors (it serves no overlay).
    pub fn ok(&self) -> bool {
        self.snapshot.error.is_none()
    }
}

impl Builder {
    /// A builder for the site at `root` (canonical), with nothing remembered yet.
    pub fn new(root: PathBuf, color: bool) -> Builder {
        Builder { root, memory: Mutex::new(HashMap::new()), memo: pipeline::Incremental::default(), last_good: None, cancelled: 0, color }
    }

    /// Build the site once: the stages of [`pipeline::run`] (load, plan, compute, check,
    /// render), redoing only what changed since the last build (census results kept in
    /// memory, essays, claim reports and pages in a [`pipeline::Incremental`]); the output
    /// is the same as a full build's. The calls being computed are recorded in `state`
    /// with their cancellation flags ([`State::cancel_unwanted`]). Returns `None` when a
    /// call was cancelled (nothing is published; calls that finished stay remembered). A
    /// build with an error serves the last good output under the overlay (before any good
    /// build: what it rendered). `generation` is the number the build is published as.
    pub fn build(&mut self, state: &State, generation: u64) -> Option<Built> {
        let started = Instant::now();
        let opts = pipeline::RunOptions {
            root: self.root.clone(),
            use_cache: true,
            progress: pipeline::progress_allowed(),
            render: true,
            theme: countersign::THEME,
            base_url: None,
        };
        let on_plan = |plan: &pipeline::Plan, flags: &[Arc<AtomicBool>]| {
            state.set_running(Some(plan.calls.iter().map(|c| c.key.clone()).zip(flags.iter().cloned()).collect()))
        };
        let hooks = pipeline::Hooks { memory: Some(&self.memory), memo: Some(&mut self.memo), on_plan: Some(&on_plan), sink: None };
        let Some(mut run) = pipeline::run_with(&opts, hooks) else {
            self.cancelled += 1;
            return None;
        };
        // Printed and shown in reading order, not in the order the stages found them.
        countersign_core::diag::sort_by_place(&mut run.diags);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let errors = run.diags.iter().filter(|d| d.is_error()).count();
        let warnings = run.diags.len() - errors;
        let ok = run.ok() && run.output.is_some();
        let mut error = None;
        let files = if ok {
            let files = Arc::new(run.output.take().unwrap_or_default());
            self.last_good = Some(files.clone());
            files
        } else {
            // Errors first: the overlay shows why the build failed at the top.
            let mut diags: Vec<Diagnostic> = run.diags.clone();
            diags.sort_by_key(|d| d.severity);
            error = Some(run.loaded.sources.render(&diags, false));
            match &self.last_good {
                Some(good) => under_overlay(&run, good).map_or_else(|| good.clone(), Arc::new),
                // No good build yet: serve what this one rendered, under the overlay.
                None => Arc::new(run.output.clone().unwrap_or_default()),
            }
        };
        let printed = if run.diags.is_empty() { String::new() } else { run.loaded.sources.render(&run.diags, self.color) };
        let census = run.stats.summary(true);
        let summary = if ok {
            format!("[{}] built in {ms:.0} ms: {}, {census}", generation, count(run.loaded.essays.len(), "essay"))
        } else {
            format!(
                "[{}] build failed in {ms:.0} ms: {}, {}; {}",
                generation,
                count(errors, "error"),
                count(warnings, "warning"),
                if self.last_good.is_some() { "still serving the last good pages under the error overlay" } else { "no good build yet" }
            )
        };
        let status = json!({
            "generation": generation,
            "ok": ok,
            "errors": errors,
            "warnings": warnings,
            "essays": run.loaded.essays.len(),
            "stats": run.stats,
            "parsed": run.work.parsed,
            "checked": run.work.checked,
            "rendered": run.work.rendered,
            "ms": (ms * 10.0).round() / 10.0,
            "cancelled": self.cancelled,
        });
        self.memo.give_back(std::mem::take(&mut run.loaded.essays));
        Some(Built { snapshot: Snapshot { generation, files, error, status }, printed, summary })
    }
}

/// What a failed build serves under the overlay: every page it rendered, except that each
/// essay with an error keeps its last good files (those under `slug/`, from `good`), so an
/// edit to another essay is shown while one fails. `None` when an error is not an essay's
/// (the configuration, a template, a static file): then the last good output is served whole.
fn under_overlay(run: &pipeline::Run, good: &Output) -> Option<Output> {
    let mut out = run.output.clone()?;
    let mut failing = std::collections::BTreeSet::new();
    for d in run.diags.iter().filter(|d| d.is_error()) {
        let file = d.origin.file().unwrap_or_default();
        let slug = match run.loaded.essays.iter().find(|e| e.file == file) {
            Some(e) => e.slug.clone(),
            // An essay that did not parse is not among the loaded ones.
            None if file.starts_with("essays/") && countersign_core::content::essay_name(file) => {
                countersign_core::content::slug_of(std::path::Path::new(file))
            }
            None => return None,
        };
        failing.insert(format!("{slug}/"));
    }
    for prefix in &failing {
        out.files.retain(|path, _| !path.starts_with(prefix.as_str()));
        out.files.extend(good.files.iter().filter(|(path, _)| path.starts_with(prefix.as_str())).map(|(p, b)| (p.clone(), b.clone())));
    }
    Some(out)
}

/// Stop the process on Ctrl-C (SIGINT) or SIGTERM, through `ctrlc` (its own thread).
///
/// Stopping is clean at any moment: watch mode writes nothing but cache entries, which are
/// written to a temporary file and renamed into place.
fn handle_stop_signals() {
    let set = ctrlc::set_handler(|| {
        eprintln!("\ncountersign watch: stopped");
        std::process::exit(0);
    });
    if let Err(e) = set {
        eprintln!("note: cannot handle Ctrl-C ({e}); the default handling stops the server");
    }
}

/// Open `url` in the default browser (the `open` crate; the browser is not waited for).
fn open_browser(url: &str) {
    // The launcher's own error ("xdg-open … failed with ExitStatus(…)") tells a reader
    // nothing more than that no browser opened.
    if open::that_detached(url).is_err() {
        eprintln!("note: no browser could be opened; open {url} yourself");
    }
}

/// How long after the last event a rebuild starts (a save's few events arrive within it).
pub const DEBOUNCE: Duration = Duration::from_millis(2);
/// How long the file system must stay quiet before a build is published: saves closer
/// together than this make one rebuild. The build starts [`DEBOUNCE`] after an event and
/// runs meanwhile; when another event arrives before it is published (while it runs, or
/// while it waits for the quiet period to end), it is dropped — it may have read a file
/// half written — and the next build reads the files again.
pub const QUIET: Duration = Duration::from_millis(10);
/// The longest a rebuild waits for a continuing burst of events: after it, a good build
/// is published even though a newer save overtook it (a failed one is not; see [`fate`]).
pub const MAX_WAIT: Duration = Duration::from_millis(1000);
/// How long a file removed mid-save may stay missing before it counts as deleted.
pub const MISSING_GRACE: Duration = Duration::from_millis(150);

/// `countersign watch`: bind, build, serve, and rebuild on every change until Ctrl-C.
///
/// Errors (a sentence for the command to print; it exits 1): the root has no site folder,
/// the port is in use or the interface cannot be bound (the message names both), the file
/// watcher cannot start.
pub fn serve(opts: &Options) -> Result<(), String> {
    handle_stop_signals();
    let root = std::fs::canonicalize(&opts.root).map_err(|e| format!("cannot open the site root {}: {e}", opts.root.display()))?;
    let addr = SocketAddr::new(opts.interface, opts.port);
    let listener = http::bind(addr).map_err(|e| e.to_string())?;
    let local = listener.local_addr().unwrap_or(addr);
    let url = format!("http://{local}/");
    let state = Arc::new(State::default());
    state.publish(Snapshot { status: json!({ "generation": 0, "ok": false, "building": true }), ..Snapshot::default() });
    listener.spawn(state.clone(), http::Access::new(opts.interface, local.port(), &opts.allowed_hosts)).map_err(|e| e.to_string())?;
    println!("countersign watch: serving {url} (Ctrl-C stops)");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    if let Some(warning) = exposure_warning(local) {
        eprintln!("{warning}");
    }

    let (tx, rx) = mpsc::channel::<Msg>();
    let fs_tx = tx.clone();
    let watch = match changes::Watch::new(&root, opts.poll, move |ev| {
        // Reads never matter, and every build reads every source: drop them here, in the
        // watcher's thread, rather than wake the loop dozens of times per build.
        if !matches!(&ev, Ok(e) if e.kind.is_access()) {
            let _ = fs_tx.send(Msg::Fs(ev));
        }
    }) {
        Ok(w) => w,
        Err(e) => {
            return Err(format!("cannot watch {}: {e}", root.display()));
        }
    };
    let mut lp = Loop::new(root.clone(), state, tx, watch, Terminal::Stderr);
    lp.opened = !opts.open;
    lp.url = url;
    lp.spawn(Box::new(Builder::new(root, opts.color)));
    lp.run(&rx);
    Ok(())
}

/// The warning printed at start when `addr` is not a loopback address: every machine that
/// can reach it reads the site, its drafts and the build status (`None` on loopback).
pub fn exposure_warning(addr: SocketAddr) -> Option<String> {
    let ip = addr.ip().to_canonical();
    if ip.is_loopback() {
        return None;
    }
    let which = if ip.is_unspecified() { "every interface of this machine" } else { "an address other machines can reach" };
    let local = if ip.is_ipv4() { "127.0.0.1" } else { "::1" };
    Some(format!(
        "warning: listening on {ip}, {which}: anyone who can reach port {port} sees the site with its drafts, the build status and the errors; --interface {local} keeps them to this machine",
        port = addr.port()
    ))
}

/// The watch loop's state: the builder (when idle), what happened while a build ran, and
/// how many builds were published.
struct Loop {
    root: PathBuf,
    state: Arc<State>,
    tx: mpsc::Sender<Msg>,
    watch: changes::Watch,
    /// The builder, when no build is running.
    idle: Option<Box<Builder>>,
    /// A build is running.
    running: bool,
    /// A relevant event arrived since the running build started: its result is stale.
    touched: bool,
    /// The file system settled while a build was running: build again when it ends.
    dirty: bool,
    /// Builds published (the generation served).
    published: u64,
    /// Since when finished builds have been left unpublished because changes kept coming
    /// (after [`MAX_WAIT`] the next one is published anyway).
    discarding: Option<Instant>,
    /// Settled windows that waited for a file missing mid-save (in the status).
    waited_for_missing: u64,
    /// When the latest relevant event arrived.
    last_event: Option<Instant>,
    /// A finished build waiting for the quiet period after the latest event to end.
    held: Option<Built>,
    /// What dropped builds did since the last publish (`parsed`, `checked`, `rendered`),
    /// added to the next published status: its memory holds their work.
    dropped: Vec<Value>,
    /// The build published last failed: the next good one is announced as a fix.
    failing: bool,
    /// Where the diagnostics and summaries go.
    terminal: Terminal,
    opened: bool,
    url: String,
}

/// Where the watch loop prints what each published build did.
#[derive(Debug)]
enum Terminal {
    /// The process's stderr.
    Stderr,
    /// Kept, for tests to read.
    #[cfg(test)]
    Kept(String),
}

impl Terminal {
    fn print(&mut self, text: &str) {
        match self {
            Terminal::Stderr => eprint!("{text}"),
            #[cfg(test)]
            Terminal::Kept(kept) => kept.push_str(text),
        }
    }
}

impl Loop {
    /// A loop over the site at `root` serving `state`, its builds reporting on `tx`, with
    /// nothing built, running or waited for yet, printing to `terminal`.
    fn new(root: PathBuf, state: Arc<State>, tx: mpsc::Sender<Msg>, watch: changes::Watch, terminal: Terminal) -> Loop {
        Loop {
            root,
            state,
            tx,
            watch,
            idle: None,
            running: false,
            touched: false,
            dirty: false,
            published: 0,
            discarding: None,
            waited_for_missing: 0,
            last_event: None,
            held: None,
            dropped: Vec::new(),
            failing: false,
            terminal,
            opened: true,
            url: String::new(),
        }
    }

    /// Start a build in a thread of its own (the file watches refreshed first).
    fn spawn(&mut self, mut builder: Box<Builder>) {
        // A folder watched only now may have changed unseen: build once more after this.
        self.touched = self.watch.refresh();
        self.running = true;
        let (tx, state, generation) = (self.tx.clone(), self.state.clone(), self.published + 1);
        std::thread::spawn(move || {
            let built = builder.build(&state, generation);
            state.set_running(None);
            let _ = tx.send(Msg::Done(builder, built));
        });
    }

    /// Wait for the next message, the end of the debounce window, or the end of the quiet
    /// period a finished build waits for.
    fn step(&self, rx: &mpsc::Receiver<Msg>, settling: Option<(Instant, Instant)>) -> Step {
        let settle = settling.map(|(first, quiet)| (quiet.min(first + MAX_WAIT), Step::Settled));
        let publish = self.held.as_ref().map(|_| (self.last_event.map_or_else(Instant::now, |t| t + QUIET), Step::Publish));
        let next = match (settle, publish) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        let Some((until, step)) = next else { return rx.recv().map(Step::Msg).unwrap_or(Step::Closed) };
        let now = Instant::now();
        if now >= until {
            return step;
        }
        match rx.recv_timeout(until - now) {
            Ok(m) => Step::Msg(m),
            Err(mpsc::RecvTimeoutError::Timeout) => step,
            Err(mpsc::RecvTimeoutError::Disconnected) => Step::Closed,
        }
    }

    /// A relevant event: the running build, or the one waiting to be published, is stale
    /// (the one waiting is dropped unless it is good and changes have kept builds from
    /// publishing for [`MAX_WAIT`] already; see [`fate`]).
    fn touch(&mut self) {
        let now = Instant::now();
        self.last_event = Some(now);
        self.touched |= self.running;
        if let Some(held) = &self.held {
            let finished =
                Finished { ok: held.ok(), stale: true, waited: self.discarding.get_or_insert(now).elapsed(), quiet_for: Duration::ZERO };
            if fate(&finished) == Fate::Drop {
                self.dropped.extend(self.held.take().map(|b| b.snapshot.status));
            }
        }
    }

    /// Serve a finished build.
    fn publish(&mut self, mut built: Built) {
        self.published += 1;
        self.discarding = None;
        built.snapshot.status["waited_for_missing"] = self.waited_for_missing.into();
        for old in std::mem::take(&mut self.dropped) {
            add_work(&mut built.snapshot.status, &old);
        }
        // Only a failure that was shown is fixed (a dropped one was never seen).
        let fixed = if self.failing && built.ok() { " — fixed" } else { "" };
        self.failing = !built.ok();
        self.state.publish(built.snapshot);
        self.terminal.print(&format!("{}{}{fixed}\n", built.printed, built.summary));
    }

    /// Rebuild on every settled burst of changes until the channel closes.
    fn run(&mut self, rx: &mpsc::Receiver<Msg>) {
        // Debouncing: (first relevant event, quiet until) while events keep coming.
        let mut settling: Option<(Instant, Instant)> = None;
        let mut pending = changes::Pending::default();
        // Since when a removed file has been waited for.
        let mut grace: Option<Instant> = None;
        loop {
            match self.step(rx, settling) {
                Step::Closed => break,
                Step::Publish => {
                    if let Some(built) = self.held.take() {
                        self.publish(built);
                    }
                }
                Step::Msg(Msg::Fs(ev)) => {
                    if self.watch.note(&ev, &mut pending) {
                        let now = Instant::now();
                        settling = Some((settling.map_or(now, |(first, _)| first), now + DEBOUNCE));
                        self.touch();
                    }
                }
                Step::Settled => {
                    settling = None;
                    if pending.missing() {
                        let since = *grace.get_or_insert_with(|| {
                            self.waited_for_missing += 1;
                            Instant::now()
                        });
                        if since.elapsed() < MISSING_GRACE {
                            // A file removed mid-save: look again shortly (events still count).
                            let now = Instant::now();
                            settling = Some((now, now + Duration::from_millis(5)));
                            continue;
                        }
                    }
                    grace = None;
                    pending = changes::Pending::default();
                    self.settled();
                }
                Step::Msg(Msg::Done(builder, built)) => self.done(builder, built, settling.is_some()),
            }
        }
    }

    /// The file system settled: build now, or once the running build ends.
    fn settled(&mut self) {
        match self.idle.take() {
            Some(builder) => self.spawn(builder),
            None => {
                self.dirty = true;
                cancel_stale(&self.root, &self.state);
            }
        }
    }

    /// A build ended (`None`: cancelled). It is dropped when changes arrived while it ran
    /// (it may have read a file mid-write; the next build reads it again), unless it is
    /// good and changes have kept builds from publishing for [`MAX_WAIT`] already; else
    /// published once [`QUIET`] has passed since the latest event (see [`fate`]).
    fn done(&mut self, builder: Box<Builder>, built: Option<Built>, settling: bool) {
        self.running = false;
        let waited = if self.touched { self.discarding.get_or_insert_with(Instant::now).elapsed() } else { Duration::ZERO };
        let mut stale = false;
        match built {
            Some(built) => {
                let finished = Finished {
                    ok: built.ok(),
                    stale: self.touched,
                    waited,
                    quiet_for: self.last_event.map_or(Duration::MAX, |t| t.elapsed()),
                };
                match fate(&finished) {
                    Fate::Publish => self.publish(built),
                    Fate::Hold => self.held = Some(built),
                    Fate::Drop => {
                        stale = true;
                        self.dropped.push(built.snapshot.status);
                    }
                }
            }
            None => {
                stale = self.touched && waited < MAX_WAIT;
                eprintln!("build cancelled: a census it was running is no longer asked for");
            }
        }
        if !self.opened {
            self.opened = true;
            open_browser(&self.url);
        }
        if self.dirty || (stale && !settling) {
            self.dirty = false;
            self.spawn(builder);
        } else {
            self.idle = Some(builder);
        }
    }
}

/// Add the work counts of a dropped build's status (`parsed`, `checked`, each of
/// `rendered`) to `status`.
fn add_work(status: &mut Value, dropped: &Value) {
    let add = |to: &mut Value, from: &Value| *to = (to.as_u64().unwrap_or(0) + from.as_u64().unwrap_or(0)).into();
    for key in ["parsed", "checked"] {
        add(&mut status[key], &dropped[key]);
    }
    if let Some(kinds) = dropped["rendered"].as_object() {
        for (kind, n) in kinds {
            add(&mut status["rendered"][kind], n);
        }
    }
}

/// What the watch loop does with a finished build ([`fate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Serve it now.
    Publish,
    /// Keep it until [`QUIET`] has passed since the latest event, then serve it (unless a
    /// newer event drops it first).
    Hold,
    /// Never serve it: a newer save overtook it (the next build reads the files again).
    Drop,
}

/// What the fate of a finished build depends on.
#[derive(Clone, Copy, Debug)]
pub struct Finished {
    /// The build had no errors.
    pub ok: bool,
    /// A relevant event arrived after the build started (it may have read a file half written).
    pub stale: bool,
    /// How long finished builds have been dropped for because changes kept coming.
    pub waited: Duration,
    /// How long ago the latest relevant event arrived ([`Duration::MAX`] when none has).
    pub quiet_for: Duration,
}

/// The fate of a finished build: a stale one is dropped until changes have kept builds
/// from publishing for [`MAX_WAIT`]; then a good one is served (so sustained saves still
/// show), but a failed one never is: it most likely read a file an editor had just
/// truncated (`missing-front-matter`), and would replace the good page while saves are
/// still coming. A fresh build, failed or not, is held until [`QUIET`] has passed since the
/// latest event, else served at once: once the events stop, the last build is shown.
pub fn fate(b: &Finished) -> Fate {
    if b.stale && (b.waited < MAX_WAIT || !b.ok) {
        return Fate::Drop;
    }
    if b.quiet_for < QUIET {
        Fate::Hold
    } else {
        Fate::Publish
    }
}

/// Messages to the watch loop.
enum Msg {
    /// A file-system event.
    Fs(notify::Result<notify::Event>),
    /// A build ended (`None`: cancelled); the builder comes back.
    Done(Box<Builder>, Option<Built>),
}

enum Step {
    Msg(Msg),
    /// The file system has been quiet for [`DEBOUNCE`] (or events kept coming for
    /// [`MAX_WAIT`]).
    Settled,
    /// The quiet period after the latest event has ended: publish the build held.
    Publish,
    Closed,
}

/// Cancel the calls of the build in progress that the sources no longer ask for (a census
/// block was edited while it ran); calls still asked for run on. The build is then not
/// published, and the next one takes the finished calls from memory.
fn cancel_stale(root: &std::path::Path, state: &State) {
    if state.running().is_none() {
        return;
    }
    let wanted: std::collections::BTreeSet<String> =
        pipeline::plan(&pipeline::load(root, &countersign::THEME)).calls.into_iter().map(|c| c.key).collect();
    state.cancel_unwanted(&wanted);
}

#[cfg(test)]
mod tests;
