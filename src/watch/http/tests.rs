//! Unit tests of the dev server: paths, hosts, caps, and a server on loopback.

use super::*;
use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

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
    let mut files: std::collections::BTreeMap<String, Vec<u8>> = std::collections::BTreeMap::new();
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
    assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
    assert_eq!(content_type("notes.TXT"), "text/plain; charset=utf-8");
    assert_eq!(content_type("m.mjs"), "text/javascript; charset=utf-8");
    assert_eq!(content_type("f.woff"), "font/woff");
    assert_eq!(content_type("f.woff2"), "font/woff2");
    assert_eq!(content_type("favicon.ico"), "image/x-icon");
    assert_eq!(content_type("LICENSE"), "application/octet-stream");
    // Beyond the seventeen extensions the server once knew: what a site's static/ may hold.
    assert_eq!(content_type("photo.avif"), "image/avif");
    assert_eq!(content_type("data/table.csv"), "text/csv; charset=utf-8");
    assert_eq!(content_type("solver.wasm"), "application/wasm");
    assert_eq!(content_type("talk.mp4"), "video/mp4");
}

/// Multi-byte characters and an encoded `/` (`%2F`): decoding happens once, before every
/// check, so `%2F` is an ordinary separator that the traversal checks see (it cannot
/// smuggle a `..` or an empty segment past them), and a byte sequence that is not UTF-8
/// is refused.
#[test]
fn encoded_characters_and_slashes_are_served_or_refused_after_decoding() {
    assert_eq!(site_path("/caf%C3%A9/").unwrap(), "café/");
    assert_eq!(site_path("/caf%c3%a9/menu%20du%20jour.css").unwrap(), "café/menu du jour.css");
    assert_eq!(site_path("/a%2Fb.css").unwrap(), "a/b.css");
    for bad in ["/caf%E9/", "/a%2F..%2Fb", "/a%2F%2Fb", "/%2F", "/a%2F.%2Fb", "/%", "/a%4", "/%%41", "/%4g"] {
        assert!(site_path(bad).is_err(), "{bad} should be refused");
    }
    let files = [("café/index.html", b"<body>cafe</body>".to_vec()), ("a/b.css", b"p{}".to_vec())];
    let (_server, addr) = serve(&files, Limits { connections: 8, listeners: 2 });
    for (path, want) in [
        ("/caf%C3%A9/", "HTTP/1.1 200 OK"),
        ("/caf%C3%A9", "HTTP/1.1 301 Moved Permanently"),
        ("/a%2Fb.css", "HTTP/1.1 200 OK"),
        ("/a%2fb.css", "HTTP/1.1 200 OK"),
        ("/caf%E9/", "HTTP/1.1 400 Bad Request"),
        ("/a%2F..%2Fa%2Fb.css", "HTTP/1.1 400 Bad Request"),
        ("/%2Fa/b.css", "HTTP/1.1 400 Bad Request"),
    ] {
        assert_eq!(status_line(addr, path).1, want, "{path}");
    }
}

#[test]
fn caps_follow_the_descriptor_limit() {
    assert_eq!(Limits::for_descriptors(20_000), Limits { connections: MAX_CONNECTIONS, listeners: MAX_LISTENERS });
    assert_eq!(Limits::for_descriptors(1024), Limits { connections: 768, listeners: 384 });
    assert_eq!(Limits::for_descriptors(100), Limits { connections: 16, listeners: 8 });
}

#[test]
fn only_the_bound_address_localhost_and_allowed_names_are_hosts() {
    let names = ["Essays.Example".to_string()];
    let v4 = Access::new("127.0.0.1".parse().unwrap(), 1111, &names);
    for ok in ["127.0.0.1:1111", "127.0.0.1", "localhost:1111", "LOCALHOST", "localhost.", "app.localhost:80", "essays.example:1111"] {
        assert!(v4.allows_host(ok), "{ok} should be answered");
    }
    for bad in ["evil.example:1111", "127.0.0.2:1111", "[::1]:1111", "localhost.evil.example", "", "127.0.0.1.evil.example"] {
        assert!(!v4.allows_host(bad), "{bad} should be refused");
    }
    let v6 = Access::new("::1".parse().unwrap(), 8080, &[]);
    assert!(v6.allows_host("[::1]:8080") && v6.allows_host("[::1]") && !v6.allows_host("127.0.0.1:8080"));
    // Listening everywhere: any address is fine (it cannot be rebound), names still are not.
    let any = Access::new("0.0.0.0".parse().unwrap(), 1111, &[]);
    assert!(any.allows_host("192.0.2.7:1111") && !any.allows_host("evil.example:1111"));
    assert!(v4.allows_origin("http://127.0.0.1:1111") && v4.allows_origin("http://localhost:1111"));
    for bad in ["null", "http://evil.example:1111", "https://evil.example", "file://", "http://localhost:1/x"] {
        assert!(!v4.allows_origin(bad), "{bad} should be refused");
    }
}

/// Another server on this machine (a page at `http://localhost:3000`) is another origin:
/// only pages of the port served are answered (no port in an `Origin` means 80).
#[test]
fn an_origin_on_another_port_is_refused() {
    let v4 = Access::new("127.0.0.1".parse().unwrap(), 1111, &[]);
    for bad in [
        "http://localhost:3000",
        "http://127.0.0.1:3000",
        "http://localhost",
        "http://localhost:11110",
        "http://localhost:99999",
        "http://localhost:1111x",
    ] {
        assert!(!v4.allows_origin(bad), "{bad} should be refused");
    }
    assert!(v4.allows_origin("http://localhost:1111") && v4.allows_origin("http://127.0.0.1:1111"));
    let on_80 = Access::new("127.0.0.1".parse().unwrap(), 80, &[]);
    assert!(on_80.allows_origin("http://localhost") && on_80.allows_origin("http://localhost:80"));
    assert!(!on_80.allows_origin("http://localhost:1111"));
    let v6 = Access::new("::1".parse().unwrap(), 8080, &[]);
    assert!(v6.allows_origin("http://[::1]:8080") && !v6.allows_origin("http://[::1]:3000") && !v6.allows_origin("http://[::1]"));
}

/// A server on loopback serving `files` as generation 1, with the given caps.
fn serve(files: &[(&str, Vec<u8>)], limits: Limits) -> (Arc<Server>, SocketAddr) {
    let state = Arc::new(State::default());
    let mut out = countersign_render::Output::default();
    for (k, v) in files {
        out.insert(*k, v.clone());
    }
    state.publish(Snapshot { generation: 1, files: Arc::new(out), error: None, status: json!({}) });
    let listening = bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = listening.local_addr().unwrap();
    (listening.spawn_with(state, Access::new(addr.ip(), addr.port(), &[]), limits).unwrap(), addr)
}

/// Send a GET of `path` on a new connection and read the answer's status line.
fn status_line(addr: SocketAddr, path: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let line = read_line(&mut s);
    (s, line)
}

fn read_line(s: &mut TcpStream) -> String {
    let mut line = Vec::new();
    let mut b = [0u8; 1];
    while s.read(&mut b).unwrap() == 1 && b[0] != b'\n' {
        line.push(b[0]);
    }
    String::from_utf8_lossy(&line).trim_end().to_string()
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
fn beyond_the_listener_cap_a_channel_gets_503_and_the_rest_are_served() {
    let (server, addr) = serve(&[("index.html", b"<body>hi</body>".to_vec())], Limits { connections: 3, listeners: 1 });
    // One reload channel fills the listener cap.
    let (listener, line) = status_line(addr, "/__countersign/events");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let (mut refused, line) = status_line(addr, "/__countersign/events");
    assert_eq!(line, "HTTP/1.1 503 Service Unavailable");
    let mut rest = String::new();
    refused.read_to_string(&mut rest).unwrap();
    assert!(rest.to_ascii_lowercase().contains("retry-after: 1") && rest.ends_with(BUSY), "{rest}");
    assert_eq!(server.refused.load(Ordering::Relaxed), 1);
    wait_for("the refused channel to go", || server.open_connections() == 1);
    // Two silent connections fill the connection cap: the next one waits (in the kernel's
    // queue), unanswered, and is served as soon as a place is free.
    let idle: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
    wait_for("three connections", || server.open_connections() == 3);
    let mut waiting = TcpStream::connect(addr).unwrap();
    write!(waiting, "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    waiting.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let early = waiting.read(&mut [0u8; 1]).map_err(|e| e.kind());
    assert!(matches!(early, Err(std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)), "answered beyond the cap: {early:?}");
    drop(idle);
    waiting.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    assert_eq!(read_line(&mut waiting), "HTTP/1.1 200 OK");
    // The reload channel kept its place throughout and sees the next generation.
    server.state.publish(Snapshot { generation: 2, ..Snapshot::default() });
    let mut text = String::new();
    let mut reader = std::io::BufReader::new(listener);
    while !text.contains("data: 2\n") {
        assert!(reader.read_line(&mut text).unwrap() > 0, "the channel closed: {text}");
    }
    assert!(text.contains("data: 1\n") && text.contains("retry: 500\n"), "{text}");
    // A page that goes gives its place back.
    drop(reader);
    wait_for("the channel to go", || server.open_listeners() == 0);
}

#[test]
fn a_publish_never_waits_on_a_client_that_does_not_read() {
    let (server, addr) = serve(&[("big.bin", vec![7u8; 16 << 20])], Limits { connections: 8, listeners: 4 });
    // This client asks for 16 MiB and reads one line: the server is left with a write
    // that cannot finish, holding the old snapshot.
    let (slow, line) = status_line(addr, "/big.bin");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let (tx, rx) = std::sync::mpsc::channel();
    let state = server.state.clone();
    std::thread::spawn(move || {
        state.publish(Snapshot { generation: 2, ..Snapshot::default() });
        tx.send(()).unwrap();
    });
    // Far less than the write timeout: a publish blocked on the client would miss this.
    rx.recv_timeout(WRITE_TIMEOUT / 2).expect("publishing waited on a blocked client");
    let (mut s, line) = status_line(addr, "/__countersign/generation");
    assert_eq!(line, "HTTP/1.1 200 OK");
    let mut rest = String::new();
    s.read_to_string(&mut rest).unwrap();
    assert!(rest.ends_with("\r\n\r\n2\n"), "{rest}");
    drop(slow);
}

#[test]
fn a_foreign_host_or_origin_gets_403_and_only_get_and_head_are_served() {
    let (_server, addr) = serve(&[("index.html", b"<body>hi</body>".to_vec())], Limits { connections: 8, listeners: 4 });
    let ask = |head: String| {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        let mut got = String::new();
        s.read_to_string(&mut got).unwrap();
        got
    };
    let port = addr.port();
    let rebound = ask(format!("GET / HTTP/1.1\r\nHost: attacker.example:{port}\r\nConnection: close\r\n\r\n"));
    assert!(rebound.starts_with("HTTP/1.1 403 ") && rebound.contains("--allow-host"), "{rebound}");
    let no_host = ask("GET / HTTP/1.0\r\n\r\n".to_string());
    assert!(no_host.starts_with("HTTP/1.0 403 ") || no_host.starts_with("HTTP/1.1 403 "), "{no_host}");
    // RFC 9112 §3.2: 400 for an HTTP/1.1 request without a Host, for two Hosts (even the
    // same twice, or with a foreign one second), and for a Host that is not host[:port].
    let no_host_11 = ask("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".to_string());
    assert!(no_host_11.starts_with("HTTP/1.1 400 ") && no_host_11.contains("Host"), "{no_host_11}");
    for hosts in [
        format!("Host: {addr}\r\nHost: attacker.example:{port}"),
        format!("Host: {addr}\r\nHost: {addr}"),
        "Host: a b".into(),
        "Host: user@localhost".into(),
    ] {
        let got = ask(format!("GET / HTTP/1.1\r\n{hosts}\r\nConnection: close\r\n\r\n"));
        assert!(got.starts_with("HTTP/1.1 400 "), "{hosts}: {got}");
    }
    let other_port = ask(format!("GET / HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://localhost:3000\r\nConnection: close\r\n\r\n"));
    assert!(other_port.starts_with("HTTP/1.1 403 "), "{other_port}");
    let foreign = ask(format!(
        "GET /__countersign/events HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: http://attacker.example\r\nConnection: close\r\n\r\n"
    ));
    assert!(foreign.starts_with("HTTP/1.1 403 "), "{foreign}");
    let own = ask(format!("GET / HTTP/1.1\r\nHost: localhost:{port}\r\nOrigin: http://localhost:{port}\r\nConnection: close\r\n\r\n"));
    assert!(own.starts_with("HTTP/1.1 200 ") && own.contains("countersign-reload"), "{own}");
    let absolute = ask(format!("GET http://attacker.example/ HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(absolute.starts_with("HTTP/1.1 403 "), "{absolute}");
    let post = ask(format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
    assert!(post.starts_with("HTTP/1.1 405 ") && post.to_ascii_lowercase().contains("allow: get, head"), "{post}");
    let head = ask(format!("HEAD / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    assert!(head.starts_with("HTTP/1.1 200 ") && head.ends_with("\r\n\r\n"), "{head}");
}

/// Send `head` on a new connection and read until the server closes it.
fn exchange(addr: SocketAddr, head: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(head).unwrap();
    let mut got = Vec::new();
    if let Err(e) = s.read_to_end(&mut got) {
        panic!("{e} after {:?}", String::from_utf8_lossy(&got));
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// The status lines in `answers`, in order (one may follow a body without a line end).
fn statuses(answers: &str) -> Vec<&str> {
    answers.match_indices("HTTP/1.1 ").map(|(at, _)| answers[at..].split("\r\n").next().unwrap_or_default()).collect()
}

/// A request target longer than LINE_MAX gets 414, whether the whole head fits in hyper's
/// buffer (HEAD_MAX) or not, on a new connection or after other requests on a kept-alive
/// one (answered first, even when sent at once); a head too large for its header fields
/// still gets 431.
#[test]
fn an_over_long_target_gets_414_and_over_long_fields_431() {
    let files = [("index.html", b"<body>hi</body>".to_vec()), ("big.bin", vec![b'z'; 4 << 20])];
    let (_server, addr) = serve(&files, Limits { connections: 8, listeners: 2 });
    let get = |target: &str, fields: &str| format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\n{fields}\r\n");
    let long = |n: usize| format!("/{}", "a".repeat(n - 1));
    let fits = "GET  HTTP/1.1".len();
    for n in [request_line::LINE_MAX - fits + 1, HEAD_MAX / 2 + request_line::LINE_MAX, HEAD_MAX * 2, 100_000] {
        let answer = exchange(addr, get(&long(n), "Connection: close\r\n").as_bytes());
        assert_eq!(statuses(&answer), ["HTTP/1.1 414 URI Too Long"], "a target of {n} bytes: {}", &answer[..answer.len().min(300)]);
        assert!(
            answer.to_ascii_lowercase().contains("cache-control: no-store") && answer.ends_with("longer than 8192 bytes\n"),
            "{answer}"
        );
    }
    let longest = exchange(addr, get(&long(request_line::LINE_MAX - fits), "Connection: close\r\n").as_bytes());
    assert_eq!(statuses(&longest), ["HTTP/1.1 404 Not Found"], "the longest target allowed");
    // Kept alive: a request answered, then the long one on the same connection.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(get("/__countersign/generation", "").as_bytes()).unwrap();
    let mut first = [0u8; 512];
    let n = s.read(&mut first).unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).ends_with("\r\n\r\n1\n"), "{}", String::from_utf8_lossy(&first[..n]));
    s.write_all(get(&long(HEAD_MAX * 2), "").as_bytes()).unwrap();
    let mut rest = String::new();
    s.read_to_string(&mut rest).unwrap();
    assert_eq!(statuses(&rest), ["HTTP/1.1 414 URI Too Long"], "{rest}");
    // Sent at once behind requests (pipelined), a large answer among them: they are all
    // answered, in full, before the 414.
    let pipelined = [get("/", ""), get("/big.bin", ""), get("/__countersign/generation", ""), get(&long(HEAD_MAX * 2), "")].concat();
    let answers = exchange(addr, pipelined.as_bytes());
    assert_eq!(statuses(&answers), ["HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK", "HTTP/1.1 414 URI Too Long"]);
    assert!(answers.contains(&"z".repeat(4 << 20)), "the large answer was cut off");
    let fields = format!("X-Long: {}\r\nConnection: close\r\n", "b".repeat(HEAD_MAX));
    assert_eq!(statuses(&exchange(addr, get("/", &fields).as_bytes())), ["HTTP/1.1 431 Request Header Fields Too Large"]);
    // A body of one long line is not taken for a request line.
    let body = "c".repeat(HEAD_MAX);
    let post = format!("POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    assert_eq!(statuses(&exchange(addr, post.as_bytes())), ["HTTP/1.1 405 Method Not Allowed"]);
}
