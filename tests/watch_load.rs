//! `countersign watch` under load, on a temporary copy of tests/sites/ok-basic (helpers in
//! tests/common): 200 connections held at once (silent sockets, half-sent request heads,
//! reload channels and ordinary GETs) while an edit is built and announced; a flood of
//! requests from several threads while rebuilds run; 600 slow clients (silent or sending
//! half a head, opened again as soon as the server closes them) while pages load; and
//! silent or half-sent connections closed by the server once the head timeout passes. Every wait polls with a generous
//! deadline ([`TIMEOUT`]); nothing sleeps to let something happen, and no figure is
//! asserted. The figures (requests served, rebuild times with and without the flood) are
//! printed: `cargo test --release --test watch_load -- --nocapture`.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;

/// Let this process open the connections it needs (the server's own limits are under
/// test, not this process's): raise the soft descriptor limit towards 4096.
fn raise_fd_limit() {
    rlimit::increase_nofile_limit(4096).expect("cannot read or raise the descriptor limit");
}

fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s
}

/// A reload channel (`/__countersign/events`) read line by line.
struct Channel(BufReader<TcpStream>);

impl Channel {
    /// Open a channel and read its answer's head (200, an event stream).
    fn open(addr: &str) -> Channel {
        let mut s = connect(addr);
        write!(s, "GET /__countersign/events HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut r = BufReader::new(s);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            assert!(r.read_line(&mut line).unwrap() > 0, "the reload channel closed in its head: {head}");
            if line == "\r\n" {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        assert!(head.starts_with("http/1.1 200") && head.contains("text/event-stream"), "{head}");
        Channel(r)
    }

    /// The next generation announced (comments and blank lines skipped).
    fn next(&mut self) -> u64 {
        loop {
            let mut line = String::new();
            assert!(self.0.read_line(&mut line).unwrap() > 0, "the reload channel closed");
            if let Some(d) = line.strip_prefix("data: ") {
                return d.trim().parse().unwrap();
            }
        }
    }
}

/// The server's connection counts (`connections` of `/__countersign/status`): requests in
/// progress (this one included), reload channels, refused.
fn connections(s: &Server) -> (u64, u64, u64) {
    let c = &s.status()["connections"];
    let n = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("no connections.{k} in the status: {c}"));
    (n("requests"), n("listeners"), n("refused"))
}

/// Save `base` (the essay's text) with "There are" changed to "`words` there are".
fn touch(s: &Server, base: &str, words: &str) {
    assert!(base.contains("There are"), "{ESSAY} lacks the sentence edited");
    s.write(ESSAY, &base.replacen("There are", &format!("{words} there are"), 1));
}

/// Save `words` into the essay and wait until the page shows them; returns the server's
/// build time and the time from the save to the page served, in milliseconds.
fn rebuild(s: &Server, base: &str, words: &str) -> (f64, f64) {
    let g = s.generation();
    let t = Instant::now();
    touch(s, base, words);
    s.wait_generation(g + 1);
    let want = format!("{words} there are");
    s.wait_until(|| s.get("/small/").2.contains(&want));
    (s.status()["ms"].as_f64().unwrap(), t.elapsed().as_secs_f64() * 1000.0)
}

/// Wait until the server's connection counts are `want`.
fn wait_connections(s: &Server, want: (u64, u64, u64)) {
    let start = Instant::now();
    while connections(s) != want {
        assert!(start.elapsed() < TIMEOUT, "connections (requests, channels, refused): {:?}, not {want:?}", connections(s));
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn two_hundred_connections_leave_the_reload_channel_working() {
    raise_fd_limit();
    let s = start();
    let base = s.read(ESSAY);
    let mut channel = Channel::open(&s.addr);
    let g = channel.next();
    assert_eq!(g, s.generation());

    // 200 connections held open: 70 silent, 70 with half a request head, 60 reload channels.
    let silent: Vec<TcpStream> = (0..70).map(|_| connect(&s.addr)).collect();
    let half: Vec<TcpStream> = (0..70)
        .map(|_| {
            let mut c = connect(&s.addr);
            write!(c, "GET /small/ HTTP/1.1\r\nHost: {}\r\nAccept: text/html\r\n", s.addr).unwrap();
            c
        })
        .collect();
    let mut listeners: Vec<Channel> = (0..60).map(|_| Channel::open(&s.addr)).collect();
    for l in &mut listeners {
        assert_eq!(l.next(), g);
    }
    // ...and ordinary GETs from four threads all along, each answered in full.
    let stop = Arc::new(AtomicBool::new(false));
    let getters: Vec<_> = (0..4)
        .map(|i| {
            let (addr, stop) = (s.addr.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut served = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let path = ["/small/", "/", "/style.css", "/__countersign/generation"][(served as usize + i) % 4];
                    let (code, _, body) = get_at(&addr, path);
                    assert_eq!(code, 200, "GET {path} during the load: {body}");
                    served += 1;
                }
                served
            })
        })
        .collect();
    // The server holds them all at once: 140 + this status request, and 61 channels.
    let start = Instant::now();
    loop {
        let (requests, channels, refused) = connections(&s);
        assert_eq!(refused, 0, "connections were refused under a load of 200");
        if requests > 140 && channels == 61 {
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "the server holds {requests} requests and {channels} channels, not 141 and 61");
        std::thread::sleep(Duration::from_millis(5));
    }

    // An edit is built, announced on the channel opened before the load, and served.
    touch(&s, &base, "Under load,");
    assert_eq!(channel.next(), g + 1);
    assert!(s.page("/small/").contains("Under load, there are"));
    for l in &mut listeners {
        assert_eq!(l.next(), g + 1);
    }
    stop.store(true, Ordering::Relaxed);
    let served: u64 = getters.into_iter().map(|t| t.join().unwrap()).sum();
    assert!(served > 0);
    let (_, _, refused) = connections(&s);
    assert_eq!(refused, 0, "connections were refused under a load of 200");
    eprintln!("held 200 connections (140 request, 60 reload channels) + 1 channel; {served} GETs answered meanwhile");

    // Once the clients go, so do their connections: only this status request and the
    // first channel are left, and the server answers as before.
    drop((silent, half, listeners));
    wait_connections(&s, (1, 1, 0));
    touch(&s, &base, "After the load,");
    assert_eq!(channel.next(), g + 2);
    assert!(s.page("/small/").contains("After the load, there are"));
}

/// One client thread of the flood: GETs over a mix of paths until `stop`; returns the
/// answers by status code class (2xx/3xx/4xx, 503) and counts failures.
fn flood(addr: String, stop: Arc<AtomicBool>, answered: Arc<AtomicU64>) -> (u64, u64) {
    const PATHS: [&str; 8] = [
        "/",
        "/small/",
        "/style.css",
        "/__countersign/status",
        "/__countersign/generation",
        "/small",
        "/%2e%2e/countersign.yaml",
        "/nothing/",
    ];
    let (mut ok, mut busy) = (0, 0);
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let path = PATHS[i % PATHS.len()];
        i += 1;
        let (code, _, body) = get_at(&addr, path);
        match code {
            200 | 301 | 400 | 404 => ok += 1,
            503 => busy += 1,
            _ => panic!("GET {path} in the flood: {code} {body}"),
        }
        answered.fetch_add(1, Ordering::Relaxed);
    }
    (ok, busy)
}

#[test]
fn a_request_flood_never_holds_up_a_rebuild() {
    raise_fd_limit();
    let s = start();
    let base = s.read(ESSAY);
    // Rebuild times without the flood.
    let quiet: Vec<(f64, f64)> = (0..3).map(|i| rebuild(&s, &base, &format!("Quiet {i},"))).collect();

    let stop = Arc::new(AtomicBool::new(false));
    let answered = Arc::new(AtomicU64::new(0));
    let began = Instant::now();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (addr, stop, answered) = (s.addr.clone(), stop.clone(), answered.clone());
            std::thread::spawn(move || flood(addr, stop, answered))
        })
        .collect();
    // Once the flood is under way, each edit is built and served within the deadline.
    let start = Instant::now();
    while answered.load(Ordering::Relaxed) < 500 {
        assert!(start.elapsed() < TIMEOUT, "the flood does not get going");
        std::thread::sleep(Duration::from_millis(2));
    }
    let (before, t) = (answered.load(Ordering::Relaxed), Instant::now());
    let flooded: Vec<(f64, f64)> = (0..3).map(|i| rebuild(&s, &base, &format!("Flooded {i},"))).collect();
    let during = (answered.load(Ordering::Relaxed) - before) as f64 / t.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let (ok, busy) = threads.into_iter().map(|t| t.join().unwrap()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let secs = began.elapsed().as_secs_f64();
    assert!(ok > 0);
    assert_eq!(busy, 0, "eight clients at a time were refused with 503");
    assert_eq!(s.status()["ok"], true);
    let show = |v: &[(f64, f64)]| v.iter().map(|(b, e)| format!("{b:.1}/{e:.0}")).collect::<Vec<_>>().join(", ");
    eprintln!(
        "flood: {ok} requests in {secs:.2} s from 8 threads ({:.0}/s; {during:.0}/s while the 3 edits were built and served); build ms / save-to-served ms: quiet {}, flooded {}",
        ok as f64 / secs,
        show(&quiet),
        show(&flooded)
    );
}

#[test]
fn silent_and_half_sent_connections_are_closed_after_the_head_timeout() {
    raise_fd_limit();
    let s = start();
    let silent: Vec<TcpStream> = (0..50).map(|_| connect(&s.addr)).collect();
    let half: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut c = connect(&s.addr);
            write!(c, "GET / HTTP/1.1\r\nHost: {}\r\n", s.addr).unwrap();
            c
        })
        .collect();
    // A kept-alive connection, idle after its answer, is closed as well.
    let mut idle = connect(&s.addr);
    write!(idle, "GET /__countersign/generation HTTP/1.1\r\nHost: {}\r\n\r\n", s.addr).unwrap();
    // A client sending its head one byte at a time, each in good time for a per-read
    // timeout, for ever: only a deadline on the whole head closes it.
    let mut drip = connect(&s.addr);
    let mut dripping = drip.try_clone().unwrap();
    let dripper = std::thread::spawn(move || {
        let _ = dripping.write_all(b"GET / HTTP/1.1\r\nX-Slow: ");
        while dripping.write_all(b"a").is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    // The server closes each one without a word (hyper's header timeout sends no 408).
    for mut c in silent.into_iter().chain(half) {
        let mut got = Vec::new();
        c.read_to_end(&mut got).expect("a silent or half-sent connection was not closed by the server");
        assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got));
    }
    let mut got = Vec::new();
    match drip.read_to_end(&mut got) {
        Ok(_) => assert!(got.is_empty(), "{}", String::from_utf8_lossy(&got)),
        // Bytes still arriving after the close may reset the connection: closed all the same.
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "the dripping client: {e}"),
    }
    dripper.join().unwrap();
    let mut got = String::new();
    idle.read_to_string(&mut got).expect("an idle kept-alive connection was not closed by the server");
    assert!(got.starts_with("HTTP/1.1 200 ") && got.ends_with("\r\n\r\n1\n"), "{got}");
    // Nothing is left holding a place, and the server answers as before.
    wait_connections(&s, (1, 0, 0));
    assert!(s.page("/small/").contains("There are"));
    s.edit(ESSAY, "There are", "Afterwards, there are");
    assert!(s.page("/small/").contains("Afterwards, there are"));
}

/// Open a slow client: a connection that sends half a request head and then nothing.
fn slow_client(addr: &str) -> TcpStream {
    let mut c = connect(addr);
    write!(c, "GET /small/ HTTP/1.1\r\nHost: {addr}\r\n").unwrap();
    c.set_nonblocking(true).unwrap();
    c
}

/// Keep `n` slow clients open on `addr` until `stop` (or [`TIMEOUT`]): each one the server
/// closes (after its head timeout) is opened again at once. Returns how many were opened.
fn keep_slow_clients(addr: String, n: usize, stop: Arc<AtomicBool>, held: Arc<AtomicBool>) -> u64 {
    let mut clients: Vec<TcpStream> = (0..n).map(|_| slow_client(&addr)).collect();
    let mut opened = n as u64;
    held.store(true, Ordering::SeqCst);
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) && start.elapsed() < TIMEOUT {
        for c in &mut clients {
            let closed = match c.read(&mut [0u8; 64]) {
                Ok(_) => true,
                Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
            };
            if closed {
                *c = slow_client(&addr);
                opened += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    opened
}

#[test]
fn six_hundred_slow_clients_leave_page_loads_working() {
    raise_fd_limit();
    let s = start();
    let (stop, held) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let keeper = {
        let (addr, stop, held) = (s.addr.clone(), stop.clone(), held.clone());
        std::thread::spawn(move || keep_slow_clients(addr, 600, stop, held))
    };
    let start = Instant::now();
    while !held.load(Ordering::SeqCst) || connections(&s).0 <= 600 {
        assert!(start.elapsed() < TIMEOUT, "the server never held the 600 slow clients: {:?}", connections(&s));
        std::thread::sleep(Duration::from_millis(10));
    }
    // While they last, page loads are answered in full (and none is refused).
    let paths = ["/small/", "/", "/style.css", "/__countersign/generation"];
    let mut loaded = 0;
    for i in 0..200 {
        let path = paths[i % paths.len()];
        let (code, _, body) = s.get(path);
        assert_eq!(code, 200, "GET {path} during 600 slow clients: {body}");
        loaded += 1;
    }
    let (requests, _, refused) = connections(&s);
    stop.store(true, Ordering::Relaxed);
    let opened = keeper.join().unwrap();
    assert_eq!(refused, 0);
    eprintln!("600 slow clients ({opened} opened in all, {requests} connections held at the end): {loaded} page loads answered with 200");
}
