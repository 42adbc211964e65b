//! Watch mode's HTTP server: [axum] routes over [hyper]'s HTTP/1.1, on a current-thread
//! tokio runtime in a thread of its own (the build worker stays a plain thread). GET and
//! HEAD only; connections may be kept alive.
//!
//! Routes:
//! - `/__countersign/generation` — the number of finished builds, as text;
//! - `/__countersign/status` — the last build as JSON (generation, ok, errors, warnings,
//!   essays, census counts, milliseconds, builds cancelled), whether a build is running
//!   (past planning), the number of pages listening, and the server's connection counts
//!   and limits (`connections`: `requests` (open connections that are not reload
//!   channels), `listeners`, `refused`, `max_connections`, `max_listeners`);
//! - `/__countersign/events` — server-sent events: the current generation on connecting,
//!   then each new one once its snapshot is in place (a comment every [`KEEPALIVE`]);
//! - anything else — a file of the current snapshot: `/` and `/slug/` map to
//!   `index.html` and `slug/index.html`; `/slug` redirects to `/slug/`; a missing file
//!   answers the site's own `404.html` with status 404 (503 and a "building" page before
//!   the first build). Paths with `..` or `.` segments (plain or percent-encoded),
//!   backslashes, NUL bytes or an absolute path after the leading `/` are refused with 400.
//!
//! Every HTML response gets the reload script, and the error overlay while the latest build
//! has errors (see [`super::inject`]). Nothing is cached by the browser (`no-store`).
//!
//! # Who is answered
//!
//! A page the author visits could rebind its own name to 127.0.0.1 and read unpublished
//! drafts through the browser (DNS rebinding). So a request is answered only when its
//! `Host` names the bound address, `localhost` (or a name under `.localhost`), or a name
//! given with `--allow-host` ([`Access`]); when the server listens on every interface
//! (`0.0.0.0` or `::`), any IP address is accepted as well (an address cannot be rebound).
//! A request carrying an `Origin` (a browser's cross-origin request, and the reload channel
//! from a foreign page) must name an accepted host and the port served (a page of another
//! server on this machine, `http://localhost:3000`, is another origin). Anything else gets
//! 403. A request that is malformed by RFC 9112 §3.2 gets 400: HTTP/1.1 without `Host`,
//! more than one `Host` (which one would be checked?), or a `Host` that is not
//! `host[:port]`.
//!
//! # Limits under load
//!
//! Resources are bounded with the libraries' own means, not with threads of our own:
//! - **connections**: at most [`Limits::connections`] open at once (a semaphore taken
//!   before `accept`; beyond it, connections wait in the kernel's queue of [`BACKLOG`]).
//!   Connections cost a task and a socket each, not a thread, so the cap is large: a few
//!   hundred slow or silent clients leave plenty of room for page loads.
//! - **request heads**: hyper's `header_read_timeout` closes a connection whose request
//!   head has not arrived in full within [`HEAD_TIMEOUT`] (a deadline for the whole head,
//!   so a client dripping a byte at a time is closed too; idle kept-alive connections
//!   likewise); a request line over [`request_line::LINE_MAX`] bytes gets 414 (caught
//!   before hyper, which would answer 431: [`request_line`]), a head over [`HEAD_MAX`]
//!   bytes 431.
//! - **answers**: a write to a client that does not read fails after [`WRITE_TIMEOUT`]
//!   (`tokio-io-timeout`), closing the connection.
//! - **reload channels**: at most [`Limits::listeners`] (beyond: 503 with `Retry-After: 1`;
//!   the reload script opens the channel again a second later). A page that closes is
//!   noticed at once (hyper watches for the end of the connection) and frees its place.
//!
//! Both caps follow the process's descriptor limit: at start the soft `RLIMIT_NOFILE` is
//! raised towards what the caps need (never above the hard limit), and the caps are cut to
//! what the limit leaves after [`FD_RESERVE`] descriptors for the build. Failing `accept`
//! calls back off for 10 ms instead of spinning.
//!
//! A build never waits on a connection: the snapshot lives in a `tokio::sync::watch`
//! channel ([`State`]); handlers clone its `Arc` and let go, and a reload channel is woken
//! by the channel after the new snapshot is in place.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State as Shared};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::sync::Semaphore;

use super::inject;
use super::{Snapshot, State};

/// The time a connection has to send its whole request head.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest request head read (request line and headers, in bytes); larger gets 431
/// (a request line over [`request_line::LINE_MAX`] gets 414 first).
pub const HEAD_MAX: usize = 16 * 1024;
/// The longest a write to a client may wait before the connection is dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// At most this many connections open at once (before the descriptor limit cuts it).
pub const MAX_CONNECTIONS: usize = 2048;
/// At most this many reload channels (`/__countersign/events`) at once.
pub const MAX_LISTENERS: usize = 512;
/// File descriptors left to the build when the caps are derived from the limit.
pub const FD_RESERVE: u64 = 256;
/// How often a reload channel sends a comment to keep the connection alive.
pub const KEEPALIVE: Duration = Duration::from_secs(15);
/// Connections the kernel queues for `accept` (it may cap this at `net.core.somaxconn`).
pub const BACKLOG: u32 = 1024;

/// The caps on connections (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Open connections of any kind, reload channels included.
    pub connections: usize,
    /// Reload channels.
    pub listeners: usize,
}

impl Limits {
    /// The caps for a process allowed `nofile` open descriptors: [`MAX_CONNECTIONS`] cut to
    /// what `nofile` leaves after [`FD_RESERVE`], and [`MAX_LISTENERS`] cut to half of that
    /// (at least 16 and 8, however low the limit).
    pub fn for_descriptors(nofile: u64) -> Limits {
        let left = usize::try_from(nofile.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX).max(16);
        let connections = MAX_CONNECTIONS.min(left);
        Limits { connections, listeners: MAX_LISTENERS.min(connections / 2) }
    }
}

/// Raise the soft descriptor limit towards what the full caps need (never above the hard
/// limit, never lowering it); returns the soft limit then in force.
fn raise_descriptor_limit() -> u64 {
    let want = MAX_CONNECTIONS as u64 + FD_RESERVE;
    rlimit::increase_nofile_limit(want).unwrap_or(1024)
}

/// The hosts a request may name (in `Host`, and in `Origin` when it has one): the bound
/// address, `localhost` and names under `.localhost`, and the names given with
/// `--allow-host`; any IP address when the server listens on every interface. An `Origin`
/// must also name the port served.
#[derive(Clone, Debug)]
pub struct Access {
    bound: IpAddr,
    port: u16,
    names: Vec<String>,
}

/// Why a request is not answered ([`Access::refusal`]), with the text of the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 400: the request is malformed (RFC 9112 §3.2: no `Host` in HTTP/1.1, more than one
    /// `Host`, or one whose value is not a host and port).
    BadRequest(String),
    /// 403: the request names a host this server does not answer for, or comes from the
    /// page of another origin (against DNS rebinding).
    Forbidden(String),
}

impl Refusal {
    /// The status answered.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::BadRequest(_) => StatusCode::BAD_REQUEST,
            Refusal::Forbidden(_) => StatusCode::FORBIDDEN,
        }
    }

    /// The text answered: why, in a sentence.
    pub fn into_reason(self) -> String {
        match self {
            Refusal::BadRequest(why) | Refusal::Forbidden(why) => why,
        }
    }
}

impl Access {
    /// The hosts accepted by a server bound to `bound` and serving `port`, plus `names`
    /// (any case; a port or a final dot is ignored).
    pub fn new(bound: IpAddr, port: u16, names: &[String]) -> Access {
        Access { bound, port, names: names.iter().map(|n| normal_name(n)).collect() }
    }

    /// Whether `host` (a `Host` header: a name or address with an optional port, IPv6 in
    /// brackets) is one this server answers.
    pub fn allows_host(&self, host: &str) -> bool {
        let name = normal_name(host);
        if let Ok(ip) = name.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
            return ip == self.bound || self.bound.is_unspecified();
        }
        name == "localhost" || name.ends_with(".localhost") || self.names.contains(&name)
    }

    /// Whether `origin` (an `Origin` header, `scheme://host[:port]`) names an accepted host
    /// and the port served, over HTTP (no port: 80). `null`, other schemes, another port
    /// (another server on this machine, e.g. `http://localhost:3000`) are refused.
    pub fn allows_origin(&self, origin: &str) -> bool {
        let Some(authority) = origin.strip_prefix("http://").filter(|a| !a.contains('/')) else { return false };
        port_of(authority) == Some(self.port) && self.allows_host(authority)
    }

    /// Why `req` is refused, if it is: a malformed `Host` (400), a foreign host or a
    /// missing one (HTTP/1.0), or a foreign `Origin` (403).
    pub fn refusal(&self, req: &Request) -> Option<Refusal> {
        let header_text = |name| req.headers().get(name).map(|v: &HeaderValue| v.to_str().unwrap_or("\u{fffd}"));
        if let Some(bad) = malformed_host(req) {
            return Some(Refusal::BadRequest(bad));
        }
        // An absolute-form target (`GET http://host/ …`) names its host itself (RFC 9112 §3.2.2).
        let host = req.uri().authority().map(|a| a.as_str()).or_else(|| header_text(header::HOST));
        match host {
            None => return Some(Refusal::Forbidden("the request names no host\n".into())),
            Some(h) if !self.allows_host(h) => {
                return Some(Refusal::Forbidden(format!(
                "this dev server does not answer for the host {h:?}; open it as localhost or by its address, or pass --allow-host NAME\n"
            )))
            }
            Some(_) => {}
        }
        match header_text(header::ORIGIN) {
            Some(o) if !self.allows_origin(o) => Some(Refusal::Forbidden(format!("requests from the page at {o:?} are not answered\n"))),
            _ => None,
        }
    }
}

/// What is wrong with the `Host` headers of `req`, if anything (RFC 9112 §3.2: a server
/// answers 400 to an HTTP/1.1 request without one, to any request with more than one, and
/// to a value that is not `host[:port]`). An empty value is well-formed (it names no host).
fn malformed_host(req: &Request) -> Option<String> {
    let hosts: Vec<&HeaderValue> = req.headers().get_all(header::HOST).iter().collect();
    match hosts.as_slice() {
        [] if req.version() >= axum::http::Version::HTTP_11 => Some("an HTTP/1.1 request must have a Host header\n".into()),
        [] => None,
        [one] if one.is_empty() => None,
        [one] => match one.to_str().ok().and_then(|h| h.parse::<axum::http::uri::Authority>().ok()) {
            Some(a) if !a.as_str().contains('@') && port_of(a.as_str()).is_some() => None,
            _ => Some(format!("the Host header {:?} is not a host and port\n", String::from_utf8_lossy(one.as_bytes()))),
        },
        more => Some(format!("the request has {} Host headers; one is allowed\n", more.len())),
    }
}

/// The port of `authority` (`host[:port]`, IPv6 in brackets; no port or an empty one:
/// 80), `None` when it is not a number below 65536.
fn port_of(authority: &str) -> Option<u16> {
    let port = match authority.strip_prefix('[') {
        Some(v6) => match v6.split_once(']')?.1 {
            "" => "",
            rest => rest.strip_prefix(':')?,
        },
        None => authority.rsplit_once(':').map_or("", |(_, port)| port),
    };
    match port {
        "" => Some(80),
        digits if digits.bytes().all(|b| b.is_ascii_digit()) => digits.parse().ok(),
        _ => None,
    }
}

/// `host` lower-cased, without its port and final dot (`[::1]:80` → `[::1]`).
fn normal_name(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    let bare = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(&host).to_string()
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => name.to_string(),
            _ => host.clone(),
        }
    };
    bare.trim_end_matches('.').to_string()
}

/// A bound listening socket and the runtime that will serve it ([`Listening::spawn`]).
pub struct Listening {
    runtime: tokio::runtime::Runtime,
    listener: tokio::net::TcpListener,
}

/// Listen on `addr`, with a queue of [`BACKLOG`] connections. The error says in words
/// what went wrong, naming the port.
pub fn bind(addr: SocketAddr) -> Result<Listening, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .thread_name("countersign-http")
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    let listener = {
        let _in_runtime = runtime.enter();
        listen(addr).map_err(|e| bind_error(addr, e))?
    };
    Ok(Listening { runtime, listener })
}

fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    // As std's `bind` does on Unix: a port whose last server has just stopped can be reused.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

fn bind_error(addr: SocketAddr, e: std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::AddrInUse => format!(
            "port {} on {} is already in use (another `countersign watch`?); choose another with --port, or --port 0 for any free one",
            addr.port(),
            addr.ip()
        ),
        ErrorKind::AddrNotAvailable => format!(
            "cannot listen on {} port {}: no interface of this machine has that address (try --interface 127.0.0.1 or ::1)",
            addr.ip(),
            addr.port()
        ),
        ErrorKind::PermissionDenied => {
            format!("cannot listen on port {} of {}: permission denied (ports below 1024 need privileges)", addr.port(), addr.ip())
        }
        _ => format!("cannot listen on {} port {}: {e}", addr.ip(), addr.port()),
    }
}

impl Listening {
    /// The address listened on (with the port chosen when 0 was asked for).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serve `state` in a background thread, answering the hosts of `access`, within the
    /// caps the descriptor limit allows (see the module docs). Errors: the thread cannot
    /// be started (the message says so).
    pub fn spawn(self, state: Arc<State>, access: Access) -> Result<(), String> {
        self.spawn_with(state, access, Limits::for_descriptors(raise_descriptor_limit())).map(drop)
    }

    fn spawn_with(self, state: Arc<State>, access: Access, limits: Limits) -> Result<Arc<Server>, String> {
        let server = Arc::new(Server {
            state,
            access,
            limits,
            connections: Arc::new(Semaphore::new(limits.connections)),
            open: AtomicUsize::new(0),
            listeners: Arc::new(Semaphore::new(limits.listeners)),
            refused: AtomicU64::new(0),
        });
        let serving = server.clone();
        let Listening { runtime, listener } = self;
        std::thread::Builder::new()
            .name("countersign-http".into())
            .spawn(move || runtime.block_on(accept(listener, serving)))
            .map_err(|e| format!("cannot start the server's thread: {e}"))?;
        Ok(server)
    }
}

/// The server's shared state: the site's [`State`], who is answered, the caps and counts.
struct Server {
    state: Arc<State>,
    access: Access,
    limits: Limits,
    /// One permit per open connection (and one for the connection being accepted).
    connections: Arc<Semaphore>,
    /// Connections open now.
    open: AtomicUsize,
    /// One permit per open reload channel.
    listeners: Arc<Semaphore>,
    /// Reload channels refused with 503 (their cap reached).
    refused: AtomicU64,
}

impl Server {
    fn open_connections(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    fn open_listeners(&self) -> usize {
        self.limits.listeners - self.listeners.available_permits()
    }
}

/// Accept connections for ever, each served by hyper in a task of its own while it holds
/// one of the connection permits.
async fn accept(listener: tokio::net::TcpListener, server: Arc<Server>) {
    let app = router(server.clone());
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(HEAD_TIMEOUT).max_buf_size(HEAD_MAX);
    loop {
        let Ok(permit) = server.connections.clone().acquire_owned().await else { return };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors (or another passing failure): the connection waits in the
            // kernel's queue; back off rather than spin on the error.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let mut stream = tokio_io_timeout::TimeoutStream::new(stream);
        stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let answered = Arc::new(AtomicUsize::new(0));
        let stream = request_line::LineLimit::new(Box::pin(stream), answered.clone());
        let connection = http.serve_connection(TokioIo::new(stream), counting(app.clone(), answered));
        server.open.fetch_add(1, Ordering::SeqCst);
        let served = server.clone();
        tokio::spawn(async move {
            let _ = connection.await;
            served.open.fetch_sub(1, Ordering::SeqCst);
            drop(permit);
        });
    }
}

/// `app` as hyper's service, counting its answers in `answered` (for
/// [`request_line::LineLimit`]).
fn counting(
    app: Router,
    answered: Arc<AtomicUsize>,
) -> impl hyper::service::Service<hyper::Request<hyper::body::Incoming>, Response = Response, Error = Infallible, Future: Send> {
    use hyper::service::Service;
    let service = TowerToHyperService::new(app);
    hyper::service::service_fn(move |req| {
        let response = service.call(req);
        let answered = answered.clone();
        async move {
            let response = response.await;
            answered.fetch_add(1, Ordering::SeqCst);
            response
        }
    })
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route("/__countersign/generation", get(generation))
        .route("/__countersign/status", get(status))
        .route("/__countersign/events", get(events))
        .fallback(site_file)
        .layer(middleware::from_fn_with_state(server.clone(), guard))
        .with_state(server)
}

/// Refuse a malformed `Host` with 400, a foreign host or origin with 403; mark every answer `no-store` and `nosniff`.
async fn guard(Shared(server): Shared<Arc<Server>>, req: Request, next: Next) -> Response {
    let mut response = match server.access.refusal(&req) {
        Some(refusal) => text(refusal.status(), refusal.into_reason()),
        None => next.run(req).await,
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

fn text(status: StatusCode, body: impl Into<String>) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body.into()).into_response()
}

async fn generation(Shared(server): Shared<Arc<Server>>) -> Response {
    text(StatusCode::OK, format!("{}\n", server.state.current().generation))
}

async fn status(Shared(server): Shared<Arc<Server>>) -> Response {
    let mut status = server.state.current().status.clone();
    if let Some(o) = status.as_object_mut() {
        let (open, listeners) = (server.open_connections(), server.open_listeners());
        o.insert("listeners".into(), listeners.into());
        o.insert("building".into(), server.state.running().is_some().into());
        o.insert(
            "connections".into(),
            json!({
                "requests": open.saturating_sub(listeners),
                "listeners": listeners,
                "refused": server.refused.load(Ordering::Relaxed),
                "max_connections": server.limits.connections,
                "max_listeners": server.limits.listeners,
            }),
        );
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], format!("{status}\n")).into_response()
}

const BUSY: &str = "the dev server has too many reload channels open; try again in a second\n";

/// A reload channel: the generation served now, then each newer one once it is in place.
/// The channel's permit lives in the stream, so it is given back when hyper drops the
/// stream (the page went, or a write timed out).
async fn events(Shared(server): Shared<Arc<Server>>) -> Response {
    let Ok(permit) = server.listeners.clone().try_acquire_owned() else {
        server.refused.fetch_add(1, Ordering::Relaxed);
        let mut busy = text(StatusCode::SERVICE_UNAVAILABLE, BUSY);
        busy.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return busy;
    };
    let mut snapshots = server.state.subscribe();
    let first = snapshots.borrow_and_update().generation;
    let hello = Event::default().retry(Duration::from_millis(500)).data(first.to_string());
    let stream = futures_util::stream::unfold((snapshots, Some(hello), permit), |(mut snapshots, hello, permit)| async move {
        let event = match hello {
            Some(event) => event,
            None => {
                // Woken only after `State::publish` has put the new snapshot in place.
                snapshots.changed().await.ok()?;
                let generation = snapshots.borrow_and_update().generation;
                Event::default().data(generation.to_string())
            }
        };
        Some((Ok::<_, Infallible>(event), (snapshots, None, permit)))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEPALIVE).text("waiting")).into_response()
}

/// Any other path: a file of the current snapshot (see the module docs).
async fn site_file(Shared(server): Shared<Arc<Server>>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut refused = text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        refused.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return refused;
    }
    // An absolute-form target keeps its scheme and is refused by `site_path`.
    let target = if uri.scheme().is_some() { uri.to_string() } else { uri.path_and_query().map_or("/", |p| p.as_str()).to_string() };
    let path = match site_path(&target) {
        Ok(p) => p,
        Err(why) => return text(StatusCode::BAD_REQUEST, format!("{why}\n")),
    };
    let snap = server.state.current();
    match resolve(&path, &snap.files.files) {
        Resolved::File(key) => file_response(StatusCode::OK, &key, &snap),
        Resolved::Slash => {
            let location = format!("{}/", uri.path());
            (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, location)]).into_response()
        }
        Resolved::Missing => missing(&path, &snap),
    }
}

/// The file `key` of `snap` with `status`, HTML decorated with the reload script (and the
/// overlay).
fn file_response(status: StatusCode, key: &str, snap: &Snapshot) -> Response {
    let bytes = &snap.files.files[key];
    let ct = content_type(key);
    let body =
        if ct.starts_with("text/html") { Body::from(decorate(&String::from_utf8_lossy(bytes), snap)) } else { Body::from(bytes.to_vec()) };
    (status, [(header::CONTENT_TYPE, ct)], body).into_response()
}

/// The answer for a path with no file: 503 and a "building" page before the first build,
/// else 404 with the site's own `404.html` (a plain page when it has none).
fn missing(path: &str, snap: &Snapshot) -> Response {
    if snap.generation == 0 {
        let page = plain_page("Building…", "countersign is building the site; this page reloads when it is ready.");
        return html(StatusCode::SERVICE_UNAVAILABLE, decorate(&page, snap));
    }
    if snap.files.files.contains_key("404.html") {
        return file_response(StatusCode::NOT_FOUND, "404.html", snap);
    }
    html(StatusCode::NOT_FOUND, decorate(&plain_page("Not found", &format!("Nothing at /{path} in the current build.")), snap))
}

fn html(status: StatusCode, page: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// The content type of a served file, by extension (any case), from [mime_guess]'s table
/// (Apache's `mime.types` and the IANA registry); `text/*` types get `charset=utf-8`, an
/// unknown extension `application/octet-stream`. Three extensions keep the type of the
/// current RFC where the table holds an older one: `.xml` `application/xml` (RFC 7303,
/// the feed and the sitemap), `.mjs` `text/javascript` (RFC 9239), `.woff` `font/woff`
/// (RFC 8081).
pub fn content_type(path: &str) -> String {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let essence = match ext.as_str() {
        "xml" => "application/xml",
        "mjs" => "text/javascript",
        "woff" => "font/woff",
        _ => mime_guess::from_ext(&ext).first_raw().unwrap_or("application/octet-stream"),
    };
    if essence.starts_with("text/") {
        format!("{essence}; charset=utf-8")
    } else {
        essence.to_string()
    }
}

/// Whether every `%` in `s` starts an escape of two hex digits ([percent_encoding] would
/// pass a stray `%` through as it is; a request with one is refused instead).
fn escapes_are_well_formed(s: &str) -> bool {
    s.split('%').skip(1).all(|after| after.as_bytes().get(..2).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
}

/// The site path a request target names, relative and percent-decoded: `/a/b.css?x` →
/// `a/b.css`, `/` → ``, `/slug/` → `slug/`. Refused (`Err` with the reason): a target not
/// starting with `/`, bad percent-encoding or UTF-8, `..` or `.` segments, empty segments
/// (so no absolute path like `//etc/passwd`), backslashes and NUL bytes.
pub fn site_path(target: &str) -> Result<String, &'static str> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let Some(rest) = path.strip_prefix('/') else { return Err("the path must start with /") };
    if !escapes_are_well_formed(rest) {
        return Err("bad percent-encoding");
    }
    let decoded = percent_encoding::percent_decode_str(rest).decode_utf8().map_err(|_| "the path is not UTF-8")?.into_owned();
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
pub fn resolve<V>(path: &str, files: &std::collections::BTreeMap<String, V>) -> Resolved {
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

mod request_line;

#[cfg(test)]
mod tests;
