//! Helpers shared by the tests of `countersign watch` (tests/watch.rs, tests/watch_load.rs):
//! start the built binary on a temporary copy of tests/sites/ok-basic on a free port, and
//! talk HTTP/1.1 to it. Each test file uses only some of them.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(30);
pub const ESSAY: &str = "essays/small.md";

pub struct Server {
    pub child: Child,
    /// `host:port`, e.g. `127.0.0.1:41234` or `[::1]:41234`.
    pub addr: String,
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else if e.file_name() != "expect.yaml" {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

pub fn site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-basic"), dir.path());
    dir
}

pub fn spawn(root: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_countersign"))
        .arg("--root")
        .arg(root)
        .arg("--no-color")
        .arg("watch")
        .args(extra)
        .env("CI", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub fn start_on(dir: tempfile::TempDir, interface: &str) -> Server {
    start_with(dir, interface, &[])
}

/// Start watch mode on `dir` and `interface`, with `extra` arguments after the port and
/// interface.
pub fn start_with(dir: tempfile::TempDir, interface: &str, extra: &[&str]) -> Server {
    let mut args = vec!["--port", "0", "--interface", interface];
    args.extend_from_slice(extra);
    let mut child = spawn(dir.path(), &args);
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr =
        line.split("http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
    // Drain stderr so the server never blocks on a full pipe.
    let mut err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = err.read_to_end(&mut sink);
    });
    let s = Server { child, addr, dir };
    s.wait_generation(1);
    s
}

pub fn start() -> Server {
    start_on(site(), "127.0.0.1")
}

/// A raw HTTP/1.1 GET: (status code, headers lower-cased, body).
pub fn get_at(addr: &str, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

impl Server {
    pub fn get(&self, path: &str) -> (u16, String, String) {
        get_at(&self.addr, path)
    }

    pub fn page(&self, path: &str) -> String {
        let (code, _, body) = self.get(path);
        assert_eq!(code, 200, "GET {path}: {body}");
        body
    }

    pub fn generation(&self) -> u64 {
        self.get("/__countersign/generation").2.trim().parse().unwrap()
    }

    pub fn status(&self) -> serde_json::Value {
        serde_json::from_str(&self.get("/__countersign/status").2).unwrap()
    }

    /// Wait until at least `n` builds have finished; returns the generation.
    pub fn wait_generation(&self, n: u64) -> u64 {
        let start = Instant::now();
        loop {
            let g = self.generation();
            if g >= n {
                return g;
            }
            assert!(start.elapsed() < TIMEOUT, "generation stayed at {g}, waiting for {n}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Wait until `cond` holds (checked after each poll of the generation).
    pub fn wait_until(&self, cond: impl Fn() -> bool) {
        let start = Instant::now();
        while !cond() {
            assert!(start.elapsed() < TIMEOUT, "timed out at generation {}", self.generation());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.path(rel), text).unwrap();
    }

    /// Edit an essay, wait for the next build, and return the new generation.
    pub fn edit(&self, rel: &str, from: &str, to: &str) -> u64 {
        let g = self.generation();
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} lacks {from:?}");
        self.write(rel, &text.replacen(from, to, 1));
        self.wait_generation(g + 1)
    }
}
