//! A small HTTP/1.1 server on `std::net` for watch mode: a thread per connection, one
//! request per connection (`Connection: close`), GET and HEAD only.
//!
//! Routes:
//! - `/__countersign/generation` — the number of finished builds, as text;
//! - `/__countersign/status` — the last build as JSON (generation, ok, errors, warnings,
//!   essays, census counts, milliseconds, builds cancelled), whether a build is running
//!   (past planning), and the number of pages listening;
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

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::inject;
use super::{Snapshot, State};

/// Listen on `addr`. The error says in words what went wrong, naming the port.
pub fn bind(addr: SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(addr).map_err(|e| match e.kind() {
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
    })
}

/// Accept connections on `listener` in a background thread, each handled in its own.
pub fn spawn(listener: TcpListener, state: Arc<State>) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let state = state.clone();
            std::thread::spawn(move || {
                let _ = handle(stream, &state);
            });
        }
    });
}

/// A request's method and target, or why it could not be read.
fn read_head(stream: &TcpStream) -> io::Result<Option<(String, String)>> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut first = String::new();
    if reader.read_line(&mut first)? == 0 {
        return Ok(None);
    }
    // Skip the header lines; nothing in them changes the answer.
    let mut total = first.len();
    loop {
        let mut line = String::new();
        let n = reader.read_line(&mut line)?;
        total += n;
        if n == 0 || line == "\r\n" || line == "\n" || total > 64 * 1024 {
            break;
        }
    }
    let mut parts = first.split_whitespace();
    match (parts.next(), parts.next()) {
        (Some(m), Some(t)) => Ok(Some((m.to_string(), t.to_string()))),
        _ => Ok(Some((String::new(), String::new()))),
    }
}

fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &[u8], head_only: bool, extra: &str) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n{extra}\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
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
        self.0.listeners.fetch_sub(1, Ordering::Relaxed);
    }
}

fn events(stream: &mut TcpStream, state: &State) -> io::Result<()> {
    state.listeners.fetch_add(1, Ordering::Relaxed);
    let _listening = Listening(state);
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: keep-alive\r\n\r\nretry: 500\n\n",
    )?;
    let mut seen = state.current().generation;
    stream.write_all(format!("data: {seen}\n\n").as_bytes())?;
    stream.flush()?;
    loop {
        let snap = state.wait_newer(seen, Duration::from_secs(15));
        if snap.generation > seen {
            seen = snap.generation;
            stream.write_all(format!("data: {seen}\n\n").as_bytes())?;
        } else {
            stream.write_all(b": waiting\n\n")?;
        }
        stream.flush()?;
    }
}

fn handle(mut stream: TcpStream, state: &State) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let Some((method, target)) = read_head(&stream)? else { return Ok(()) };
    let head_only = method == "HEAD";
    if method != "GET" && !head_only {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            b"only GET and HEAD\n",
            false,
            "Allow: GET, HEAD\r\n",
        );
    }
    let path = match site_path(&target) {
        Ok(p) => p,
        Err(why) => {
            return respond(&mut stream, "400 Bad Request", "text/plain; charset=utf-8", format!("{why}\n").as_bytes(), head_only, "")
        }
    };
    let snap = state.current();
    match path.as_str() {
        "__countersign/generation" => {
            return respond(&mut stream, "200 OK", "text/plain; charset=utf-8", format!("{}\n", snap.generation).as_bytes(), head_only, "")
        }
        "__countersign/status" => {
            let mut status = snap.status.clone();
            if let Some(o) = status.as_object_mut() {
                o.insert("listeners".into(), state.listeners.load(Ordering::Relaxed).into());
                o.insert("building".into(), state.running().is_some().into());
            }
            return respond(&mut stream, "200 OK", "application/json", format!("{status}\n").as_bytes(), head_only, "");
        }
        "__countersign/events" if !head_only => return events(&mut stream, state),
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
}
