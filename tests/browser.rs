//! The real site in a real browser: headless Chromium loads every page of the built site,
//! served over HTTP from a small server in this test, through the Chrome DevTools
//! Protocol. The client is small and ours: Chromium's `--remote-debugging-pipe` speaks CDP
//! as NUL-terminated JSON on file descriptors 3 and 4, so no WebSocket crate is needed.
//!
//! Checked on every page: no console error, no uncaught exception, no failed request or
//! HTTP error, every image (figure) loaded, every same-site link leads to a file that
//! exists and every fragment to an element. On essays: MathML present and laid out, every
//! claim links to an entry of the "How these numbers were computed" list. On the index:
//! the search box finds an essay by a word of its body. A screenshot of each essay, light
//! and dark, is kept under `target/browser/`.
//!
//! Skipped, with a message, when Chromium is absent (`.ci/run` installs it) — except where
//! `COUNTERSIGN_REQUIRE_BROWSER` is set (the Linux CI jobs), where a missing Chromium
//! fails the test. Census results come through the site's cache, as in `tests/essays.rs`.
//! Unix only: the CDP pipe is handed to Chromium as file descriptors 3 and 4.
#![cfg(unix)]

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use countersign_site::pipeline::{self, RunOptions};
use serde_json::{json, Value};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].iter().map(PathBuf::from).find(|p| p.exists())
}

// ---------------------------------------------------------------- a static file server

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css",
        "js" => "text/javascript",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "xml" => "application/xml",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

fn serve_one(mut s: TcpStream, dir: &Path, prefix: &str) {
    let mut reader = BufReader::new(match s.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => break,
            Ok(_) if h.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    // The site is served under base_url's path, as it will be in production.
    let rel = path.strip_prefix(prefix).unwrap_or("\u{0}missing");
    let mut file = dir.join(rel);
    if rel.contains("..") || rel.contains('\u{0}') {
        file = dir.join("nonexistent");
    }
    if file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body, ty) = match std::fs::read(&file) {
        Ok(b) => ("200 OK", b, content_type(&file)),
        Err(_) => ("404 Not Found", std::fs::read(dir.join("404.html")).unwrap_or_default(), "text/html; charset=utf-8"),
    };
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {ty}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(&body);
}

fn serve(dir: PathBuf, prefix: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let (dir, prefix) = (dir.clone(), prefix.clone());
            std::thread::spawn(move || serve_one(s, &dir, &prefix));
        }
    });
    port
}

// ---------------------------------------------------------------- a CDP client over a pipe

struct Browser {
    child: Child,
    to: File,
    from: Receiver<Value>,
    next: u64,
    /// Events received while waiting for replies.
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    let r = unsafe { libc::pipe(fds.as_mut_ptr()) };
    assert_eq!(r, 0, "pipe(2) failed");
    (fds[0], fds[1])
}

impl Browser {
    fn launch(exe: &Path) -> Browser {
        let profile = tempfile::tempdir().expect("temp dir");
        let (cmd_r, cmd_w) = pipe(); // we write commands, Chromium reads fd 3
        let (ev_r, ev_w) = pipe(); // Chromium writes fd 4, we read
        let mut c = Command::new(exe);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--remote-debugging-pipe",
            "--window-size=1000,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (dup2, close) between fork and exec.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(cmd_r, 3) < 0 || libc::dup2(ev_w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                for fd in [cmd_r, cmd_w, ev_r, ev_w] {
                    if fd > 4 {
                        libc::close(fd);
                    }
                }
                Ok(())
            });
        }
        let child = c.spawn().expect("start chromium");
        // SAFETY: we own these descriptors; the child has its own copies.
        unsafe {
            libc::close(cmd_r);
            libc::close(ev_w);
        }
        let to = unsafe { File::from_raw_fd(cmd_w) };
        let from_file = unsafe { File::from_raw_fd(ev_r) };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(from_file);
            loop {
                let mut buf = Vec::new();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        buf.pop();
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                            if tx.send(v).is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        });
        Browser { child, to, from: rx, next: 0, events: Vec::new(), _profile: profile }
    }

    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).expect("json");
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let v = self.from.recv_timeout(left).unwrap_or_else(|_| panic!("no reply from chromium to {method}"));
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    panic!("{method} failed: {e}");
                }
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    /// Wait until an event `method` arrives for `session` (or the timeout passes).
    fn wait_for(&mut self, session: &str, method: &str, secs: u64) -> bool {
        if self.events.iter().any(|e| e["method"] == method && e["sessionId"] == session) {
            return true;
        }
        let deadline = Instant::now() + Duration::from_secs(secs);
        while let Ok(v) = self.from.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let hit = v["method"] == method && v["sessionId"] == session;
            self.events.push(v);
            if hit {
                return true;
            }
        }
        false
    }

    fn eval(&mut self, session: &str, expr: &str) -> Value {
        let r = self.call(Some(session), "Runtime.evaluate", json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }));
        if let Some(ex) = r.get("exceptionDetails") {
            panic!("evaluating {expr}: {ex}");
        }
        r["result"]["value"].clone()
    }
}

fn b64decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let Some(v) = val(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Problems the browser reported for `session`: console errors, exceptions, failed requests.
fn problems(events: &[Value], session: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in events.iter().filter(|e| e["sessionId"] == session) {
        let p = &e["params"];
        match e["method"].as_str().unwrap_or("") {
            "Runtime.exceptionThrown" => out.push(format!("exception: {}", p["exceptionDetails"])),
            "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
                out.push(format!("console.{}: {}", p["type"], p["args"]))
            }
            "Log.entryAdded" if p["entry"]["level"] == "error" => out.push(format!("log: {} {}", p["entry"]["text"], p["entry"]["url"])),
            "Network.loadingFailed" => out.push(format!("request failed: {} {}", p["errorText"], p["requestId"])),
            "Network.responseReceived" if p["response"]["status"].as_u64().unwrap_or(200) >= 400 => {
                out.push(format!("HTTP {} for {}", p["response"]["status"], p["response"]["url"]))
            }
            _ => {}
        }
    }
    out
}

struct Page {
    session: String,
    target: String,
}

fn open(b: &mut Browser, url: &str, dark: bool) -> Page {
    let t = b.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
    let target = t["targetId"].as_str().expect("target id").to_string();
    let a = b.call(None, "Target.attachToTarget", json!({ "targetId": target, "flatten": true }));
    let session = a["sessionId"].as_str().expect("session id").to_string();
    for m in ["Page.enable", "Runtime.enable", "Network.enable", "Log.enable"] {
        b.call(Some(&session), m, json!({}));
    }
    if dark {
        b.call(Some(&session), "Emulation.setEmulatedMedia", json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }));
    }
    b.call(Some(&session), "Page.navigate", json!({ "url": url }));
    assert!(b.wait_for(&session, "Page.loadEventFired", 60), "{url} did not finish loading");
    // Let late requests (fonts, images decoded lazily) settle.
    b.eval(&session, "new Promise(r => setTimeout(r, 150))");
    Page { session, target }
}

fn close(b: &mut Browser, p: Page) {
    b.call(None, "Target.closeTarget", json!({ "targetId": p.target }));
}

fn screenshot(b: &mut Browser, p: &Page, file: &Path, full: bool) {
    let mut params = json!({ "format": "png" });
    if full {
        let m = b.call(Some(&p.session), "Page.getLayoutMetrics", json!({}));
        let w = m["cssContentSize"]["width"].as_f64().unwrap_or(1000.0);
        let h = m["cssContentSize"]["height"].as_f64().unwrap_or(900.0).min(16000.0);
        params = json!({ "format": "png", "captureBeyondViewport": true, "clip": { "x": 0, "y": 0, "width": w, "height": h, "scale": 1 } });
    }
    let shot = b.call(Some(&p.session), "Page.captureScreenshot", params);
    std::fs::write(file, b64decode(shot["data"].as_str().unwrap_or(""))).expect("write screenshot");
}

/// Every page of the site: paths of its HTML files, as URLs paths.
fn pages(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().flatten() {
        let rel = e.path().strip_prefix(dir).unwrap_or(e.path()).to_string_lossy().replace('\\', "/");
        if rel.ends_with(".html") {
            out.push(rel.strip_suffix("index.html").map(str::to_string).unwrap_or(rel));
        }
    }
    out
}

/// A word of `slug`'s body, at least 7 letters, not in its title, in as few other essays
/// as possible.
fn search_word(index: &Value, slug: &str) -> String {
    let essays = index["essays"].as_array().expect("index essays");
    let me = essays.iter().find(|e| e["slug"] == slug).expect("essay in index");
    let title = me["title"].as_str().unwrap_or("").to_lowercase();
    let words: BTreeSet<String> = me["text"]
        .as_str()
        .unwrap_or("")
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 7)
        .map(str::to_lowercase)
        .filter(|w| !title.contains(w.as_str()))
        .collect();
    words
        .into_iter()
        .min_by_key(|w| essays.iter().filter(|e| e["text"].as_str().unwrap_or("").to_lowercase().contains(w.as_str())).count())
        .expect("a word to search for")
}

/// Focus each claim of the page (as the keyboard would) and read its certificate: it must
/// be shown, name the census of a call of this essay, a path or expression some claim of
/// `results.json` reads, and the exact value, which for a plain path is the value
/// `results.json` publishes for it. The problems found.
fn certificates(b: &mut Browser, s: &str, page: &str, results: &Path) -> Vec<String> {
    let results: Value = serde_json::from_slice(&std::fs::read(results).unwrap_or_default()).unwrap_or(Value::Null);
    let read = b.eval(
        s,
        "(() => Array.from(document.querySelectorAll('.claim')).map(c => { c.focus(); \
           const id = c.getAttribute('aria-describedby'); const t = id && document.getElementById(id); \
           if (!t) return null; \
           const q = (sel) => { const e = t.querySelector(sel); return e ? e.textContent : null; }; \
           return { focused: document.activeElement === c, shown: getComputedStyle(t).visibility === 'visible', \
                    census: q('.cert-census b'), call: q('.cert-census').replace(/^.*\\((.*)\\)$/, '$1'), \
                    path: q('.cert-path code'), value: q('.cert-value b') }; }))()",
    );
    let mut out = Vec::new();
    let claims = results["claims"].as_array().cloned().unwrap_or_default();
    let calls = results["censuses"].as_array().cloned().unwrap_or_default();
    let all = read.as_array().cloned().unwrap_or_default();
    if all.is_empty() {
        out.push(format!("{page}: no claim to focus"));
    }
    for (k, c) in all.iter().enumerate() {
        if c.is_null() {
            out.push(format!("{page}: claim {k} has no certificate"));
            continue;
        }
        if c["focused"] != json!(true) || c["shown"] != json!(true) {
            out.push(format!("{page}: claim {k}'s certificate is not shown on focus: {c}"));
        }
        let (census, call, path, value) = (c["census"].as_str(), c["call"].as_str(), c["path"].as_str(), c["value"].as_str());
        let known_call = calls.iter().any(|x| x["id"].as_str() == call && x["census"].as_str() == census);
        let claim = claims.iter().find(|x| x["path"].as_str() == path && x["census"].as_str() == call);
        match claim {
            _ if !known_call => out.push(format!("{page}: claim {k}'s certificate names no census call of the essay: {c}")),
            None => out.push(format!("{page}: claim {k}'s certificate names a path no claim reads: {c}")),
            Some(x) if value.is_none_or(str::is_empty) => out.push(format!("{page}: claim {k}'s certificate has no value: {c} ({x})")),
            Some(x) => {
                let plain_path = path.is_some_and(|p| !p.contains(' ') && !p.contains('('));
                let want = countersign_core::check::expr::exact_text(&countersign_core::check::forms::Computed::from_json(&x["value"]));
                // A long value is cut short ("…") in the certificate; the rest must agree.
                let shown = value.unwrap_or("");
                let agrees = match shown.split_once('…') {
                    Some((head, _)) => want.starts_with(head),
                    None => want == shown,
                };
                if plain_path && !agrees {
                    out.push(format!("{page}: claim {k}'s certificate shows {shown:?}, results.json gives {want:?}"));
                }
            }
        }
    }
    out
}

#[test]
fn every_page_of_the_real_site_in_chromium() {
    let Some(exe) = chromium() else {
        assert!(
            std::env::var_os("COUNTERSIGN_REQUIRE_BROWSER").is_none_or(|v| v.is_empty()),
            "Chromium not found and COUNTERSIGN_REQUIRE_BROWSER is set (install Debian's `chromium`, or set CHROMIUM)"
        );
        eprintln!("SKIPPED: Chromium not found (install Debian's `chromium`, or set CHROMIUM=/path/to/chrome); .ci/run installs it");
        return;
    };
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // COUNTERSIGN_BROWSER_ROOT: test another site (e.g. a copy of the essays) instead.
    let root = std::env::var_os("COUNTERSIGN_BROWSER_ROOT").map(PathBuf::from).unwrap_or_else(|| repo.clone());
    let run =
        pipeline::run(&RunOptions { root: root.clone(), use_cache: true, progress: false, render: true, theme: countersign::THEME }, None);
    let errors: Vec<String> = run.diags.iter().filter(|d| d.is_error()).map(|d| format!("{}: {}", d.file, d.message)).collect();
    assert!(errors.is_empty(), "the real site does not build: {errors:#?}");
    let site = tempfile::tempdir().expect("temp dir");
    let out = site.path().join("public");
    let lock = countersign_site::output::lock_output(&out, || {}).expect("lock the output folder");
    countersign_site::output::write_atomically(
        &out,
        run.output.as_ref().expect("rendered"),
        &mut countersign_site::output::FsWriter,
        &lock,
        countersign_site::output::Publish::Exchange,
    )
    .expect("write the site");
    let shots = repo.join("target/browser");
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let prefix = countersign_render::base_path(&run.loaded.config.base_url);
    let port = serve(out.clone(), prefix.clone());
    let base = format!("http://127.0.0.1:{port}{prefix}");
    let slugs: Vec<String> = run.loaded.essays.iter().map(|e| e.slug.clone()).collect();
    let mut b = Browser::launch(&exe);
    let mut failures: Vec<String> = Vec::new();
    let mut math_total = 0;
    let all = pages(&out);
    assert!(all.iter().any(|p| p.is_empty()) && all.contains(&"404.html".to_string()), "{all:?}");
    for path in &all {
        let url = format!("{base}{path}");
        let page = open(&mut b, &url, false);
        let s = page.session.clone();
        for p in problems(&b.events, &s) {
            failures.push(format!("{path}: {p}"));
        }
        let broken =
            b.eval(&s, "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))");
        if broken.as_array().is_some_and(|a| !a.is_empty()) {
            failures.push(format!("{path}: images that did not load: {broken}"));
        }
        // Same-site links: the file exists and the fragment names an element there.
        let links = b.eval(&s, "Array.from(document.querySelectorAll('a[href]')).map(a => a.href)");
        for l in links.as_array().cloned().unwrap_or_default() {
            let l = l.as_str().unwrap_or("");
            let Some(rest) = l.strip_prefix(&base) else { continue };
            let (file, frag) = rest.split_once('#').unwrap_or((rest, ""));
            let mut f = out.join(file);
            if f.is_dir() {
                f = f.join("index.html");
            }
            match std::fs::read_to_string(&f) {
                Err(_) => failures.push(format!("{path}: link to a missing page {l}")),
                Ok(text) if !frag.is_empty() && !text.contains(&format!("id=\"{frag}\"")) => {
                    failures.push(format!("{path}: link to a missing anchor {l}"))
                }
                _ => {}
            }
        }
        let slug = path.trim_end_matches('/');
        if slugs.iter().any(|x| x == slug) {
            let m = b.eval(&s, "(() => { const m = Array.from(document.querySelectorAll('math')); return [m.length, m.filter(x => x.getBoundingClientRect().width > 0).length]; })()");
            let (n, laid) = (m[0].as_u64().unwrap_or(0), m[1].as_u64().unwrap_or(0));
            math_total += n;
            if n != laid {
                failures.push(format!("{path}: {} of {n} MathML elements have no width", n - laid));
            }
            let claims = b.eval(
                &s,
                "(() => { const c = Array.from(document.querySelectorAll('.claim')); return [c.length, c.filter(a => a.tagName === 'A' && a.getAttribute('href').startsWith('#calls-') && document.getElementById(a.getAttribute('href').slice(1)) && document.getElementById(a.getAttribute('href').slice(1)).closest('#how-computed')).length]; })()",
            );
            let (n, linked) = (claims[0].as_u64().unwrap_or(0), claims[1].as_u64().unwrap_or(0));
            if n == 0 || n != linked {
                failures.push(format!("{path}: {linked} of {n} claims link to an entry of the provenance list"));
            }
            failures.extend(certificates(&mut b, &s, path, &out.join(slug).join("results.json")));
            let prov = b.eval(&s, "!!document.querySelector('#how-computed a[href=\"results.json\"]')");
            if prov != json!(true) {
                failures.push(format!("{path}: no link to results.json"));
            }
            screenshot(&mut b, &page, &shots.join(format!("{slug}.png")), true);
        }
        close(&mut b, page);
    }
    if math_total == 0 {
        failures.push("no MathML on any essay".into());
    }
    // Dark mode: the top of each essay.
    for slug in &slugs {
        let page = open(&mut b, &format!("{base}{slug}/"), true);
        let bg = b.eval(&page.session, "getComputedStyle(document.documentElement).backgroundColor");
        if bg == json!("rgb(255, 255, 255)") {
            failures.push(format!("{slug}: dark mode keeps a white background"));
        }
        screenshot(&mut b, &page, &shots.join(format!("{slug}-dark.png")), false);
        close(&mut b, page);
    }
    // Search: a word from one essay's body finds that essay.
    let index: Value = serde_json::from_slice(&std::fs::read(out.join("search-index.json")).expect("search index")).expect("index json");
    for slug in &slugs {
        let word = search_word(&index, slug);
        let page = open(&mut b, &base, false);
        let found = b.eval(
            &page.session,
            &format!(
                "(async () => {{ const i = document.getElementById('search-input'); i.value = {w}; i.dispatchEvent(new Event('input')); for (let k = 0; k < 50; k++) {{ const a = Array.from(document.querySelectorAll('#search-results a')).map(a => a.getAttribute('href')); if (a.length) return a; await new Promise(r => setTimeout(r, 50)); }} return []; }})()",
                w = json!(word)
            ),
        );
        if !found.as_array().is_some_and(|a| a.iter().any(|h| h.as_str().is_some_and(|h| h.trim_end_matches('/').ends_with(slug.as_str()))))
        {
            failures.push(format!("search for “{word}” did not find {slug}: {found}"));
        }
        if slug == &slugs[0] {
            screenshot(&mut b, &page, &shots.join("search.png"), false);
        }
        for p in problems(&b.events, &page.session) {
            failures.push(format!("search page: {p}"));
        }
        close(&mut b, page);
    }
    assert!(failures.is_empty(), "{} problems in the browser:\n{}", failures.len(), failures.join("\n"));
    eprintln!("browser: {} pages, {} MathML elements, screenshots in {}", all.len(), math_total, shots.display());
}
