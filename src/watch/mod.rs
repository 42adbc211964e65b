//! Watch mode (`countersign watch`): build, serve the site from memory, rebuild on every
//! save, and reload the open pages.
//!
//! - The site is served from a [`Snapshot`]: the whole rendered [`Output`] of one build,
//!   swapped behind an `Arc` in one step, so no request ever sees half a build.
//! - [`changes`] watches `essays/`, `templates/`, `static/` and `countersign.yaml` (never
//!   `public/`, `.countersign-cache/` or `target/`), ignores editors' swap and backup files
//!   and merges a burst of events into one rebuild.
//! - Census results stay in memory between builds (the `memory` argument of
//!   [`pipeline::run`]), so an edit to prose recomputes no census.
//! - A build with errors keeps the last good pages served and lays an element with id
//!   `countersign-error` over every page, showing the diagnostics as the terminal does
//!   (file:line:column, stated against computed); the next good build removes it.
//! - [`http`] is a small HTTP/1.1 server on `std::net` (a thread per connection). Every
//!   HTML page it serves gets a script (see [`inject`]) that listens to
//!   `/__countersign/events` (server-sent events) and reloads the page once a newer
//!   generation is in place. Built sites never contain it: only the server adds it.
//! - `GET /__countersign/generation` answers the number of finished builds (tests and
//!   `scripts/watch-latency` wait on it); `GET /__countersign/status` answers it with the
//!   outcome and census counts of the last build, as JSON.

pub mod changes;
pub mod http;
pub mod inject;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::diag::Diagnostic;
use crate::pipeline::{self, RunOptions};
use crate::site::output::Output;

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

/// The snapshot being served, and a condition variable signalled at every swap.
#[derive(Debug, Default)]
pub struct State {
    current: Mutex<Arc<Snapshot>>,
    changed: Condvar,
}

impl State {
    /// The snapshot now being served.
    pub fn current(&self) -> Arc<Snapshot> {
        match self.current.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Serve `snap` from now on and wake every reload channel.
    pub fn publish(&self, snap: Snapshot) {
        let snap = Arc::new(snap);
        match self.current.lock() {
            Ok(mut g) => *g = snap,
            Err(p) => *p.into_inner() = snap,
        }
        self.changed.notify_all();
    }

    /// Wait until a snapshot newer than generation `seen` is served, or `timeout` passes;
    /// returns the snapshot then current.
    pub fn wait_newer(&self, seen: u64, timeout: Duration) -> Arc<Snapshot> {
        let guard = match self.current.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let guard = match self.changed.wait_timeout_while(guard, timeout, |s| s.generation <= seen) {
            Ok((g, _)) => g,
            Err(p) => p.into_inner().0,
        };
        guard.clone()
    }
}

/// Runs the pipeline again and again, keeping census results and the last good output.
pub struct Builder {
    root: PathBuf,
    memory: Mutex<HashMap<String, Arc<Value>>>,
    last_good: Option<Arc<Output>>,
    generation: u64,
    failing: bool,
    color: bool,
}

/// What one build did, for the terminal.
pub struct Built {
    /// The snapshot to serve.
    pub snapshot: Snapshot,
    /// Diagnostics rendered for the terminal (possibly coloured; empty when none).
    pub printed: String,
    /// One summary line.
    pub summary: String,
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

impl Builder {
    /// A builder for the site at `root` (canonical), with nothing remembered yet.
    pub fn new(root: PathBuf, color: bool) -> Builder {
        Builder { root, memory: Mutex::new(HashMap::new()), last_good: None, generation: 0, failing: false, color }
    }

    /// Build the site once. A build with an error serves the last good output under the
    /// overlay (before any good build: what this build rendered, if anything).
    pub fn build(&mut self) -> Built {
        let started = Instant::now();
        let run = pipeline::run(
            &RunOptions { root: self.root.clone(), use_cache: true, progress: pipeline::progress_allowed(), render: true },
            Some(&self.memory),
        );
        self.generation += 1;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let errors = run.diags.iter().filter(|d| d.is_error()).count();
        let warnings = run.diags.len() - errors;
        let ok = run.ok() && run.output.is_some();
        let mut error = None;
        let files = if ok {
            let files = Arc::new(run.output.unwrap_or_default());
            self.last_good = Some(files.clone());
            files
        } else {
            // Errors first: the overlay shows why the build failed at the top.
            let mut diags: Vec<Diagnostic> = run.diags.clone();
            diags.sort_by_key(|d| d.severity);
            error = Some(run.loaded.sources.render(&diags, false));
            match &self.last_good {
                Some(f) => f.clone(),
                // No good build yet: serve what this one rendered, under the overlay.
                None => Arc::new(run.output.clone().unwrap_or_default()),
            }
        };
        let printed = if run.diags.is_empty() { String::new() } else { run.loaded.sources.render(&run.diags, self.color) };
        let s = run.stats;
        let census = format!("census calls: {} ({} ran, {} from cache, {} in memory)", s.calls, s.ran, s.cached, s.remembered);
        let summary = if ok {
            let fixed = if self.failing { " — fixed" } else { "" };
            format!("[{}] built in {ms:.0} ms: {}, {census}{fixed}", self.generation, plural(run.loaded.essays.len(), "essay"))
        } else {
            format!(
                "[{}] build failed in {ms:.0} ms: {}, {}; {}",
                self.generation,
                plural(errors, "error"),
                plural(warnings, "warning"),
                if self.last_good.is_some() { "still serving the last good pages under the error overlay" } else { "no good build yet" }
            )
        };
        self.failing = !ok;
        let status = json!({
            "generation": self.generation,
            "ok": ok,
            "errors": errors,
            "warnings": warnings,
            "essays": run.loaded.essays.len(),
            "stats": { "calls": s.calls, "ran": s.ran, "cached": s.cached, "remembered": s.remembered },
            "ms": (ms * 10.0).round() / 10.0,
        });
        Built { snapshot: Snapshot { generation: self.generation, files, error, status }, printed, summary }
    }
}

/// Block SIGINT and SIGTERM in this thread and every thread it starts later, and start a
/// thread that waits for them and stops the process. Call before any other thread starts.
///
/// Stopping is clean at any moment: watch mode writes nothing but cache entries, which are
/// written to a temporary file and renamed into place.
#[cfg(unix)]
fn handle_stop_signals() {
    // SAFETY: plain libc calls on a sigset_t we own; sigwait only reads the set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        let set_for_thread = set;
        std::thread::spawn(move || {
            let mut sig: libc::c_int = 0;
            libc::sigwait(&set_for_thread, &mut sig);
            eprintln!("\ncountersign watch: stopped");
            std::process::exit(0);
        });
    }
}

#[cfg(not(unix))]
fn handle_stop_signals() {}

fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    if let Err(e) = std::process::Command::new(cmd).arg(url).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn() {
        eprintln!("note: cannot open a browser ({cmd}: {e}); open {url} yourself");
    }
}

/// How long the file system must stay quiet before a rebuild starts.
pub const QUIET: Duration = Duration::from_millis(40);
/// The longest a rebuild waits for a continuing burst of events.
pub const MAX_WAIT: Duration = Duration::from_millis(1000);
/// How long a file removed mid-save may stay missing before it counts as deleted.
pub const MISSING_GRACE: Duration = Duration::from_millis(150);

/// `countersign watch`: bind, build, serve, and rebuild on every change until Ctrl-C.
///
/// Errors (exit 1, printed): the root has no site folder, the port is in use or the
/// interface cannot be bound (the message names both), the file watcher cannot start.
pub fn main(opts: &Options) -> ExitCode {
    handle_stop_signals();
    let root = match std::fs::canonicalize(&opts.root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot open the site root {}: {e}", opts.root.display());
            return ExitCode::from(1);
        }
    };
    let addr = SocketAddr::new(opts.interface, opts.port);
    let listener = match http::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    let url = format!("http://{local}/");
    let state = Arc::new(State::default());
    state.publish(Snapshot { status: json!({ "generation": 0, "ok": false, "building": true }), ..Snapshot::default() });
    http::spawn(listener, state.clone());
    println!("countersign watch: serving {url} (Ctrl-C stops)");
    use std::io::Write;
    let _ = std::io::stdout().flush();

    let (tx, rx) = mpsc::channel();
    let mut watch = match changes::Watch::new(&root, tx) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: cannot watch {}: {e}", root.display());
            return ExitCode::from(1);
        }
    };
    let mut builder = Builder::new(root.clone(), opts.color);
    let publish = |builder: &mut Builder| {
        let built = builder.build();
        state.publish(built.snapshot);
        eprint!("{}", built.printed);
        eprintln!("{}", built.summary);
    };
    publish(&mut builder);
    if opts.open {
        open_browser(&url);
    }
    loop {
        let Ok(event) = rx.recv() else { break };
        let mut pending = changes::Pending::default();
        if !watch.note(&event, &mut pending) {
            continue;
        }
        // Debounce: wait until the file system is quiet, so a burst is one rebuild.
        let first = Instant::now();
        let mut deadline = Instant::now() + QUIET;
        loop {
            let now = Instant::now();
            if now >= deadline || now.duration_since(first) >= MAX_WAIT {
                break;
            }
            match rx.recv_timeout(deadline - now) {
                Ok(ev) => {
                    if watch.note(&ev, &mut pending) {
                        deadline = Instant::now() + QUIET;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => return ExitCode::SUCCESS,
            }
        }
        pending.wait_for_missing(MISSING_GRACE);
        watch.refresh();
        publish(&mut builder);
    }
    ExitCode::SUCCESS
}
