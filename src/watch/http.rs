//! A small HTTP/1.1 server on `std::net` for watch mode: a thread per connection (in two capped pools, see below), one
//! request per connection (`Connection: close`), GET and HEAD only.
//!
//! Routes:
//! - `/__countersign/generation` — the number of finished builds, as text;
//! - `/__countersign/status` — the last build as JSON (generation, ok, errors, warnings,
//!   essays, census counts, milliseconds, builds cancelled), whether a build is running
//!   (past planning), the number of pages listening, and the server's connection counts
//!   and limits (`connections`: `requests`, `listeners`, `refused`, `max_requests`,
//!   `max_listeners`);
//! - `/__countersign/events` — server-sent events: the current generation on connecting,
//!   then each new one once its snapshot is in place (a comment every 15 s keeps the
//!   connection alive);
//! - anything else — a file of the current snapshot: `/` and `/slug/` map to
//!   `index.html` and `slug/index.html`; `/slug` redirects to `/slug/`. Paths with `..`
//!   or `.` segments (plain or percent-encoded), backslashes, NUL bytes or an absolute
//!   path after the leading `/` are refused with 400.
//!
//! Every HTML response gets the reload script, and the error overlay while the latest build
//! has errors (see [`super::inject`]). Nothing is cached by the browser (`no-store`).
//!
//! # Limits under load
//!
//! Connections live in two pools, each with its own cap, so that no number of idle or slow
//! clients can take the reload channels away, and none can make the server use every
//! file descriptor (the builder needs some to read the sources and the cache):
//! - **requests**: a connection from accept until its answer is written. At most
//!   [`MAX_REQUESTS`] at once; the request head (request line and headers, at most
//!   [`HEAD_MAX`] bytes) must arrive within [`HEAD_TIMEOUT`] in all (a deadline, not a
//!   per-read timeout, so a client dripping a byte at a time is closed too): a silent
//!   connection is then closed, a half-sent head gets 408. An answer must be written
//!   within [`WRITE_TIMEOUT`]. A connection accepted while the pool is full gets
//!   `503 Service Unavailable` with `Retry-After: 1` from the accepting thread, which
//!   never waits on a client (one more thread keeps up to 64 refused sockets open for a
//!   second, so that closing them does not reset the connection under the answer).
//!   So a pool filled with silent connections (a runaway client) turns new page loads
//!   away for at most [`HEAD_TIMEOUT`], while open reload channels and builds carry on.
//! - **listeners**: the reload channels (`/__countersign/events`), which leave the request
//!   pool once their head is read. At most [`MAX_LISTENERS`] (beyond: 503; the reload
//!   script opens the channel again a second later). Each listener checks once a second
//!   whether its page has gone, so closed pages free their slot promptly, and gives up
//!   on a page that does not take an event within [`WRITE_TIMEOUT`].
//!
//! Both caps shrink when the process's descriptor limit is low: at start the soft
//! `RLIMIT_NOFILE` is raised towards what the caps need (never above the hard limit), and
//! each pool gets at most half of what the limit leaves after [`FD_RESERVE`] descriptors
//! for the build. Failing `accept` calls (descriptors exhausted) back off for 10 ms
//! instead of spinning. The kernel queues up to [`BACKLOG`] connections not yet accepted.
//!
//! A build never waits on a connection: handlers take the snapshot's lock only to clone
//! its `Arc` (and wait on its condition variable, which releases the lock), and write to
//! sockets holding no lock, so a publish is never delayed by a slow client.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use super::inject;
use super::{Snapshot, State};

/// The time a connection has to send its whole request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest request head read (request line and headers, in bytes); larger gets 431.
pub const HEAD_MAX: usize = 16 * 1024;
/// The time an answer (or one reload event) has to be written before the connection is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// At most this many connections reading a request or being answered at once.
pub const MAX_REQUESTS: usize = 512;
/// At most this many reload channels (`/__countersign/events`) at once.
pub const MAX_LISTENERS: usize = 512;
/// File descriptors left to the build when the connection caps are derived from the limit.
pub const FD_RESERVE: u64 = 256;
/// How often a reload channel sends a comment to keep the connection alive.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// How often a reload channel checks whether its page has gone.
const LIVENESS: Duration = Duration::from_secs(1);
/// Stack size of a connection's thread (handlers use little stack: heap strings only).
const STACK: usize = 256 * 1024;

/// Connections the kernel queues for `accept` (std's `bind` asks for 128; a burst of a few
/// hundred connections then overflows the queue while the accepting thread starts threads,
/// and each connection dropped there waits a second for its SYN to be sent again).
pub const BACKLOG: i32 = 1024;

/// Listen on `addr`, with a queue of [`BACKLOG`] connections (the kernel may cap it at
/// `net.core.somaxconn`). The error says in words what went wrong, naming the port.
pub fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    let listener = TcpListener::bind(addr).map_err(|e| bind_error(addr, e))?;
    // SAFETY: listen(2) again on a listening socket we own only changes its queue length.
    #[cfg(unix)]
    unsafe {
        use std::os::fd::AsRawFd;
        libc::listen(listener.as_raw_fd(), BACKLOG);
    }
    Ok(listener)
}

fn bind_error(addr: SocketAddr, e: io::Error) -> String {
    match e.kind() {
        io::ErrorKind::AddrInUse => format!(
            "port {} on {} is already in use (another `countersign watch`?); choose another with --port, or --port 0 for any free one",
            addr.port(),
            addr.ip()
        ),
        io::ErrorKind::AddrNotAvailable => format!(
            "cannot listen on {} port {}: no interface of this machine has that address (try --interface 127.0.0.1 or ::1)",
            addr.ip(),
            addr.port()
        ),
        io::ErrorKind::PermissionDenied => {
            format!("cannot listen on port {} of {}: permission denied (ports below 1024 need privileges)", addr.port(), addr.ip())
        }
        _ => format!("cannot listen on {} port {}: {e}", addr.ip(), addr.port()),
    }
}

/// The caps of the two connection pools (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections reading a request or being answered.
    pub requests: usize,
    /// Reload channels.
    pub listeners: usize,
}

impl Limits {
    /// The caps for a process allowed `nofile` open descriptors: [`MAX_REQUESTS`] and
    /// [`MAX_LISTENERS`], each cut to half of what `nofile` leaves after [`FD_RESERVE`]
    /// (at least 8 each, however low the limit).
    pub fn for_descriptors(nofile: u64) -> Limits {
        let half = usize::try_from(nofile.saturating_sub(FD_RESERVE) / 2).unwrap_or(usize::MAX).max(8);
        Limits { requests: MAX_REQUESTS.min(half), listeners: MAX_LISTENERS.min(half) }
    }
}

/// Raise the soft descriptor limit towards what the full caps need (never above the hard
/// limit, never lowering it); returns the soft limit then in force.
#[cfg(unix)]
fn raise_descriptor_limit() -> u64 {
    let want = (MAX_REQUESTS + MAX_LISTENERS) as u64 + FD_RESERVE;
    // SAFETY: getrlimit/setrlimit on a struct we own.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 1024;
        }
        let soft = lim.rlim_cur as u64;
        if soft < want {
            let raised = want.min(lim.rlim_max as u64);
            if raised > soft {
                let new = libc::rlimit { rlim_cur: raised as libc::rlim_t, rlim_max: lim.rlim_max };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &new) == 0 {
                    return raised;
                }
            }
        }
        soft
    }
}

#[cfg(not(unix))]
fn raise_descriptor_limit() -> u64 {
    (MAX_REQUESTS + MAX_LISTENERS) as u64 + FD_RESERVE
}

/// The server's shared state: the site's [`State`], the caps and the connection counts.
struct Server {
    state: Arc<State>,
    limits: Limits,
    /// Connections in the request pool now.
    requests: AtomicUsize,
    /// Connections refused with 503 (either pool full, or no thread could be started).
    refused: AtomicU64,
}

/// A place in the request pool, given back when dropped.
struct RequestSlot(Arc<Server>);

impl Drop for RequestSlot {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accept connections on `listener` in a background thread, each handled in its own,
/// within the limits of the module docs.
pub fn spawn(listener: TcpListener, state: Arc<State>) {
    spawn_with(listener, state, Limits::for_descriptors(raise_descriptor_limit()));
}

fn spawn_with(listener: TcpListener, state: Arc<State>, limits: Limits) -> Arc<Server> {
    let server = Arc::new(Server { state, limits, requests: AtomicUsize::new(0), refused: AtomicU64::new(0) });
    let accepting = server.clone();
    let (closer, refused) = sync_channel(LINGER_MAX / 2);
    std::thread::spawn(move || linger(refused));
    std::thread::spawn(move || loop {
        match listener.accept() {
            Ok((stream, _)) => admit(stream, &accepting, &closer),
            // Out of descriptors (or another passing failure): the connection waits in the
            // kernel's queue; back off rather than spin on the error.
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    });
    server
}

/// Hand `stream` to a thread of its own, or refuse it with 503 when the pool is full
/// (`closer` then keeps it open a moment, see [`linger`]).
fn admit(stream: TcpStream, server: &Arc<Server>, closer: &SyncSender<TcpStream>) {
    if server.requests.fetch_add(1, Ordering::SeqCst) >= server.limits.requests {
        server.requests.fetch_sub(1, Ordering::SeqCst);
        server.refused.fetch_add(1, Ordering::Relaxed);
        refuse(stream, closer);
        return;
    }
    let slot = RequestSlot(server.clone());
    let spawned = std::thread::Builder::new().name("countersign-http".into()).stack_size(STACK).spawn(move || {
        let _ = handle(stream, slot);
    });
    if spawned.is_err() {
        // The closure (socket and slot) is dropped: the connection closes, the slot is free.
        server.refused.fetch_add(1, Ordering::Relaxed);
    }
}

const BUSY: &str = "the dev server has too many open connections; try again in a second\n";

/// Answer 503 without waiting (the answer fits the empty send buffer of a fresh socket),
/// close the sending side, and pass the socket to `closer`, or close it at once when
/// the closer has [`LINGER_MAX`] sockets already.
fn refuse(mut stream: TcpStream, closer: &SyncSender<TcpStream>) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nRetry-After: 1\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{BUSY}",
        BUSY.len()
    );
    let _ = stream.write_all(answer.as_bytes());
    let _ = stream.shutdown(Shutdown::Write);
    let _ = closer.try_send(stream);
}

/// Refused sockets kept open at most (in the queue and in [`linger`]'s hands together).
const LINGER_MAX: usize = 64;
/// How long a refused socket is kept open.
const LINGER: Duration = Duration::from_secs(1);

/// Keep refused sockets open for [`LINGER`] (or until their client closes), reading and
/// discarding what the client sends: closing a socket with unread input resets the
/// connection, and the client could lose the 503 it has not read yet.
fn linger(refused: Receiver<TcpStream>) {
    let mut open: Vec<(TcpStream, Instant)> = Vec::new();
    loop {
        let next = if open.is_empty() {
            refused.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            refused.recv_timeout(Duration::from_millis(10))
        };
        match next {
            Ok(s) if open.len() < LINGER_MAX / 2 => open.push((s, Instant::now() + LINGER)),
            Ok(_) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let now = Instant::now();
        open.retain_mut(|(s, until)| now < *until && !peer_gone(s));
    }
}

/// How reading a request head ended.
#[derive(Debug, PartialEq, Eq)]
enum Head {
    /// Method and target.
    Request(String, String),
    /// The client closed the connection before completing a head.
    Closed,
    /// [`HEAD_TIMEOUT`] passed; `true` when part of a head had arrived.
    TimedOut(bool),
    /// More than [`HEAD_MAX`] bytes without the blank line ending the head.
    TooLarge,
    /// The request line is not `METHOD TARGET …`.
    Malformed,
}

/// The end of the head in `buf` (after the blank line), if it has arrived.
fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Read a request head from `stream` until `deadline`. Headers are skipped: nothing in
/// them changes the answer.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> io::Result<Head> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = head_end(&buf) {
            let text = String::from_utf8_lossy(&buf[..end]);
            let mut parts = text.lines().next().unwrap_or("").split_whitespace();
            return Ok(match (parts.next(), parts.next()) {
                (Some(m), Some(t)) => Head::Request(m.to_string(), t.to_string()),
                _ => Head::Malformed,
            });
        }
        if buf.len() > HEAD_MAX {
            return Ok(Head::TooLarge);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(Head::TimedOut(!buf.is_empty()));
        }
        stream.set_read_timeout(Some(deadline - now))?;
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(Head::Closed),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Ok(Head::TimedOut(!buf.is_empty()))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Write all of `bytes` by `deadline` (the socket's write timeout is set before each part,
/// so a client reading a byte at a time cannot hold the connection past it).
fn write_by(stream: &mut TcpStream, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    for part in bytes.chunks(64 * 1024) {
        let now = Instant::now();
        if now >= deadline {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(deadline - now))?;
        stream.write_all(part)?;
    }
    Ok(())
}

fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &[u8], head_only: bool, extra: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    let deadline = Instant::now() + WRITE_TIMEOUT;
    write_by(stream, head.as_bytes(), deadline)?;
    if !head_only {
        write_by(stream, body, deadline)?;
    }
    stream.flush()
}

/// The content type of a served file, by extension.
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "xml" => "application/xml",
        "txt" | "md" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The site path a request target names, relative and percent-decoded: `/a/b.css?x` →
/// `a/b.css`, `/` → ``, `/slug/` → `slug/`. Refused (`Err` with the reason): a target not
/// starting with `/`, bad percent-encoding or UTF-8, `..` or `.` segments, empty segments
/// (so no absolute path like `//etc/passwd`), backslashes and NUL bytes.
pub fn site_path(target: &str) -> Result<String, &'static str> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(rest) = path.strip_prefix('/') else { return Err("the path must start with /") };
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let (Some(h), Some(l)) = (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) else {
                return Err("bad percent-encoding");
            };
            out.push(h * 16 + l);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let decoded = String::from_utf8(out).map_err(|_| "the path is not UTF-8")?;
    if decoded.contains(['\\', '\0']) {
        return Err("backslash or NUL in the path");
    }
    if decoded.is_empty() {
        return Ok(decoded);
    }
    let segments: Vec<&str> = decoded.split('/').collect();
    for (i, s) in segments.iter().enumerate() {
        if *s == ".." || *s == "." {
            return Err("`..` and `.` are not allowed in paths");
        }
        if s.is_empty() && i + 1 != segments.len() {
            return Err("empty path segment (absolute path)");
        }
    }
    Ok(decoded)
}

/// What a site path resolves to in `snap`.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A file of the snapshot, by its key.
    File(String),
    /// `/slug` when `slug/index.html` exists: redirect to `/slug/`.
    Slash,
    /// Nothing there.
    Missing,
}

/// Map a site path (from [`site_path`]) to a snapshot file.
pub fn resolve(path: &str, files: &std::collections::BTreeMap<String, Vec<u8>>) -> Resolved {
    let key = if path.is_empty() || path.ends_with('/') { format!("{path}index.html") } else { path.to_string() };
    if files.contains_key(&key) {
        Resolved::File(key)
    } else if !path.is_empty() && !path.ends_with('/') && files.contains_key(&format!("{path}/index.html")) {
        Resolved::Slash
    } else {
        Resolved::Missing
    }
}

fn decorate(html: &str, snap: &Snapshot) -> String {
    let mut extra = String::new();
    if let Some(err) = &snap.error {
        extra.push_str(&inject::overlay(err, snap.generation, !snap.files.files.is_empty()));
    }
    extra.push_str(&inject::reload_script(snap.generation));
    inject::before_body_end(html, &extra)
}

fn plain_page(title: &str, text: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title></head>\n<body style=\"font:16px/1.5 system-ui,sans-serif;margin:3em\"><h1>{t}</h1><p>{x}</p></body></html>\n",
        t = inject::escape(title),
        x = inject::escape(text)
    )
}

struct Listening<'a>(&'a State);

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        self.0.listeners.fetch_sub(1, Ordering::SeqCst);
    }
}

/// True when the client has closed its end (or the socket failed); bytes it sent are
/// discarded. Never blocks.
fn peer_gone(stream: &mut TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut sink = [0u8; 512];
    let gone = loop {
        match stream.read(&mut sink) {
            Ok(0) => break true,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break false,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break true,
        }
    };
    stream.set_nonblocking(false).is_err() || gone
}

/// Serve a reload channel; `_listening` holds its place in the listener pool.
fn events(stream: &mut TcpStream, state: &State, _listening: Listening) -> io::Result<()> {
    let send = |stream: &mut TcpStream, text: &[u8]| {
        write_by(stream, text, Instant::now() + WRITE_TIMEOUT)?;
        stream.flush()
    };
    send(
        stream,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\nretry: 500\n\n",
    )?;
    let mut seen = state.current().generation;
    send(stream, format!("data: {seen}\n\n").as_bytes())?;
    let mut last = Instant::now();
    loop {
        // Holds no lock once it returns: the snapshot comes back as an `Arc`.
        let generation = state.wait_newer(seen, LIVENESS).generation;
        if generation > seen {
            seen = generation;
            send(stream, format!("data: {seen}\n\n").as_bytes())?;
            last = Instant::now();
        } else if last.elapsed() >= KEEPALIVE {
            send(stream, b": waiting\n\n")?;
            last = Instant::now();
        } else if peer_gone(stream) {
            return Ok(());
        }
    }
}

fn handle(mut stream: TcpStream, slot: RequestSlot) -> io::Result<()> {
    let server = slot.0.clone();
    let state = &*server.state;
    let (head_only, target) = match read_head(&mut stream, Instant::now() + HEAD_TIMEOUT)? {
        Head::Request(method, target) => {
            if method != "GET" && method != "HEAD" {
                return respond(
                    &mut stream,
                    "405 Method Not Allowed",
                    "text/plain; charset=utf-8",
                    b"only GET and HEAD\n",
                    false,
                    "Allow: GET, HEAD\r\n",
                );
            }
            (method == "HEAD", target)
        }
        Head::Closed | Head::TimedOut(false) => return Ok(()),
        Head::TimedOut(true) => {
            return respond(&mut stream, "408 Request Timeout", "text/plain; charset=utf-8", b"the request head took too long\n", false, "")
        }
        Head::TooLarge => {
            return respond(
                &mut stream,
                "431 Request Header Fields Too Large",
                "text/plain; charset=utf-8",
                b"the request head is too large\n",
                false,
                "",
            )
        }
        Head::Malformed => {
            return respond(&mut stream, "400 Bad Request", "text/plain; charset=utf-8", b"malformed request line\n", false, "")
        }
    };
    let path = match site_path(&target) {
        Ok(p) => p,
        Err(why) => {
            return respond(&mut stream, "400 Bad Request", "text/plain; charset=utf-8", format!("{why}\n").as_bytes(), head_only, "")
        }
    };
    // An `Arc` clone: the lock is released before anything is written.
    let snap = state.current();
    match path.as_str() {
        "__countersign/generation" => {
            return respond(&mut stream, "200 OK", "text/plain; charset=utf-8", format!("{}\n", snap.generation).as_bytes(), head_only, "")
        }
        "__countersign/status" => {
            let mut status = snap.status.clone();
            if let Some(o) = status.as_object_mut() {
                let listeners = state.listeners.load(Ordering::SeqCst);
                o.insert("listeners".into(), listeners.into());
                o.insert("building".into(), state.running().is_some().into());
                o.insert(
                    "connections".into(),
                    json!({
                        "requests": server.requests.load(Ordering::SeqCst),
                        "listeners": listeners,
                        "refused": server.refused.load(Ordering::Relaxed),
                        "max_requests": server.limits.requests,
                        "max_listeners": server.limits.listeners,
                    }),
                );
            }
            return respond(&mut stream, "200 OK", "application/json", format!("{status}\n").as_bytes(), head_only, "");
        }
        "__countersign/events" if !head_only => {
            drop(snap);
            if state.listeners.fetch_add(1, Ordering::SeqCst) >= server.limits.listeners {
                state.listeners.fetch_sub(1, Ordering::SeqCst);
                server.refused.fetch_add(1, Ordering::Relaxed);
                return respond(
                    &mut stream,
                    "503 Service Unavailable",
                    "text/plain; charset=utf-8",
                    BUSY.as_bytes(),
                    false,
                    "Retry-After: 1\r\n",
                );
            }
            let listening = Listening(state);
            // From here on the connection counts as a listener, not a request.
            drop(slot);
            return events(&mut stream, state, listening);
        }
        _ => {}
    }
    match resolve(&path, &snap.files.files) {
        Resolved::File(key) => {
            let bytes = &snap.files.files[&key];
            let ct = content_type(&key);
            if ct.starts_with("text/html") {
                let page = decorate(&String::from_utf8_lossy(bytes), &snap);
                respond(&mut stream, "200 OK", ct, page.as_bytes(), head_only, "")
            } else {
                respond(&mut stream, "200 OK", ct, bytes, head_only, "")
            }
        }
        Resolved::Slash => {
            let location = format!("{}/", target.split(['?', '#']).next().unwrap_or("/"));
            respond(&mut stream, "301 Moved Permanently", "text/plain; charset=utf-8", b"", head_only, &format!("Location: {location}\r\n"))
        }
        Resolved::Missing => {
            let page = if snap.generation == 0 {
                plain_page("Building…", "countersign is building the site; this page reloads when it is ready.")
            } else {
                plain_page("Not found", &format!("Nothing at /{path} in the current build."))
            };
            let status = if snap.generation == 0 { "503 Service Unavailable" } else { "404 Not Found" };
            respond(&mut stream, status, "text/html; charset=utf-8", decorate(&page, &snap).as_bytes(), head_only, "")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_decoded_and_traversal_is_refused() {
        assert_eq!(site_path("/").unwrap(), "");
        assert_eq!(site_path("/small/?x=1#top").unwrap(), "small/");
        assert_eq!(site_path("/a%20b/c.css").unwrap(), "a b/c.css");
        for bad in [
            "/../countersign.yaml",
            "/%2e%2e/countersign.yaml",
            "/%2E%2E%2fetc/passwd",
            "/a/../../b",
            "/a/./b",
            "//etc/passwd",
            "/%2fetc/passwd",
            "/a%5c..%5cb",
            "/a%00b",
            "/%zz",
            "/%c3",
            "etc/passwd",
            "http://x/",
        ] {
            assert!(site_path(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn slugs_map_to_their_index() {
        let mut files = std::collections::BTreeMap::new();
        files.insert("index.html".to_string(), vec![]);
        files.insert("small/index.html".to_string(), vec![]);
        files.insert("style.css".to_string(), vec![]);
        assert_eq!(resolve("", &files), Resolved::File("index.html".into()));
        assert_eq!(resolve("small/", &files), Resolved::File("small/index.html".into()));
        assert_eq!(resolve("small", &files), Resolved::Slash);
        assert_eq!(resolve("style.css", &files), Resolved::File("style.css".into()));
        assert_eq!(resolve("nothing/", &files), Resolved::Missing);
        assert_eq!(content_type("a/fig-1.svg"), "image/svg+xml");
        assert_eq!(content_type("results.json"), "application/json");
        assert_eq!(content_type("x.JS"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("feed.xml"), "application/xml");
    }

    #[test]
    fn caps_follow_the_descriptor_limit() {
        assert_eq!(Limits::for_descriptors(20_000), Limits { requests: MAX_REQUESTS, listeners: MAX_LISTENERS });
        assert_eq!(Limits::for_descriptors(1024), Limits { requests: 384, listeners: 384 });
        assert_eq!(Limits::for_descriptors(100), Limits { requests: 8, listeners: 8 });
    }

    #[test]
    fn a_head_ends_at_its_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nrest"), Some(27));
        assert_eq!(head_end(b"GET / HTTP/1.0\n\n"), Some(16));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    /// A connected pair on loopback: (client, server side).
    fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (client, listener.accept().unwrap().0)
    }

    #[test]
    fn a_head_sent_a_byte_at_a_time_is_cut_at_the_deadline() {
        let (mut client, mut conn) = pair();
        // Each byte comes well within any per-read timeout; the whole head never would
        // within the deadline (26 bytes, 50 ms apart, against half a second).
        let drip = std::thread::spawn(move || {
            for b in b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" {
                if client.write_all(&[*b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        assert_eq!(read_head(&mut conn, Instant::now() + Duration::from_millis(500)).unwrap(), Head::TimedOut(true));
        drop(conn);
        drip.join().unwrap();
        let (_client, mut conn) = pair();
        assert_eq!(read_head(&mut conn, Instant::now() + Duration::from_millis(100)).unwrap(), Head::TimedOut(false));
        let (mut client, mut conn) = pair();
        client.write_all(b"GET /a%20b/?q HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!(read_head(&mut conn, Instant::now() + HEAD_TIMEOUT).unwrap(), Head::Request("GET".into(), "/a%20b/?q".into()));
        let (mut client, mut conn) = pair();
        client.write_all(&vec![b'x'; HEAD_MAX + 10]).unwrap();
        assert_eq!(read_head(&mut conn, Instant::now() + HEAD_TIMEOUT).unwrap(), Head::TooLarge);
    }

    /// A server on loopback serving `files` as generation 1, with the given caps.
    fn serve(files: &[(&str, Vec<u8>)], limits: Limits) -> (Arc<Server>, SocketAddr) {
        let state = Arc::new(State::default());
        let mut out = crate::site::output::Output::default();
        for (k, v) in files {
            out.insert(*k, v.clone());
        }
        state.publish(Snapshot { generation: 1, files: Arc::new(out), error: None, status: json!({}) });
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        (spawn_with(listener, state, limits), addr)
    }

    /// Send `head` on a new connection and read the answer's status line.
    fn status_line(addr: SocketAddr, head: &str) -> (TcpStream, String) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        let mut line = Vec::new();
        let mut b = [0u8; 1];
        while s.read(&mut b).unwrap() == 1 && b[0] != b'\n' {
            line.push(b[0]);
        }
        (s, String::from_utf8_lossy(&line).trim_end().to_string())
    }

    /// Wait (30 s at most) until `cond` holds.
    fn wait_for(what: &str, cond: impl Fn() -> bool) {
        let start = Instant::now();
        while !cond() {
            assert!(start.elapsed() < Duration::from_secs(30), "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn beyond_either_cap_a_connection_gets_503_and_the_rest_are_served() {
        let (server, addr) = serve(&[("index.html", b"<body>hi</body>".to_vec())], Limits { requests: 3, listeners: 1 });
        // One reload channel fills the listener pool (and leaves the request pool).
        let (listener, line) = status_line(addr, "GET /__countersign/events HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 200 OK");
        let (_, line) = status_line(addr, "GET /__countersign/events HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 503 Service Unavailable");
        wait_for("the refused listener to go", || server.requests.load(Ordering::SeqCst) == 0);
        // Three silent connections fill the request pool: the next is refused at once.
        let idle: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
        wait_for("three requests", || server.requests.load(Ordering::SeqCst) == 3);
        let (mut refused, line) = status_line(addr, "GET / HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 503 Service Unavailable");
        let mut rest = String::new();
        refused.read_to_string(&mut rest).unwrap();
        assert!(rest.to_ascii_lowercase().contains("retry-after: 1") && rest.ends_with(BUSY), "{rest}");
        assert_eq!(server.refused.load(Ordering::Relaxed), 2);
        drop(idle);
        wait_for("the silent connections to go", || server.requests.load(Ordering::SeqCst) == 0);
        let (_, line) = status_line(addr, "GET / HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 200 OK");
        // The reload channel kept its place throughout and sees the next generation.
        server.state.publish(Snapshot { generation: 2, ..Snapshot::default() });
        let mut text = String::new();
        let mut reader = io::BufReader::new(listener);
        while !text.contains("data: 2\n") {
            assert!(io::BufRead::read_line(&mut reader, &mut text).unwrap() > 0, "the channel closed: {text}");
        }
        assert!(text.contains("data: 1\n"), "{text}");
    }

    #[test]
    fn a_publish_never_waits_on_a_client_that_does_not_read() {
        let (server, addr) = serve(&[("big.bin", vec![7u8; 16 << 20])], Limits { requests: 8, listeners: 8 });
        // This client asks for 16 MiB and reads one byte: its handler is left blocked in a
        // write, holding the old snapshot.
        let (mut slow, line) = status_line(addr, "GET /big.bin HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 200 OK");
        let _ = slow.read(&mut [0u8; 1]).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let state = server.state.clone();
        std::thread::spawn(move || {
            state.publish(Snapshot { generation: 2, ..Snapshot::default() });
            tx.send(()).unwrap();
        });
        // Far less than the handler's write timeout: a publish blocked on it would miss this.
        rx.recv_timeout(WRITE_TIMEOUT / 2).expect("publishing waited on a blocked handler");
        let (mut s, line) = status_line(addr, "GET /__countersign/generation HTTP/1.1\r\n\r\n");
        assert_eq!(line, "HTTP/1.1 200 OK");
        let mut rest = String::new();
        s.read_to_string(&mut rest).unwrap();
        assert!(rest.ends_with("\r\n\r\n2\n"), "{rest}");
        drop(slow);
    }
}
