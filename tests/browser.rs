//! The site in a real browser: headless Chromium loads every page of the real essays' site
//! and of a site made by `countersign new`, each served over HTTP under its `base_url`'s
//! path, and checks what a reader meets.
//!
//! On every page: no console error, uncaught exception, failed request or HTTP error;
//! every image loaded; every same-site link leads to a file that exists and every fragment
//! to an element. On essays: MathML present and laid out, every claim links to an entry of
//! "How these numbers were computed", and each claim's certificate, shown on focus, names
//! a call of the essay, a path some claim reads and the value `results.json` publishes. On
//! the real site's index: the search box finds each essay by a word of its body; each
//! essay has a dark background in dark mode.
//!
//! At window widths of 375, 768 and 1280 px (`tests/browser/*.js`): no page is wider than
//! its window, with every hidden certificate in the page and with each one shown; no
//! figure, image, table or display equation overflows its column; a wide display equation
//! scrolls inside its own box and its number is never painted over it; a shown
//! certificate stays in the window and covers neither its claim nor the line above; a
//! footnote's ↩ ends its last line; and axe-core's audit (its default rules: WCAG 2 A and
//! AA, and best practices) finds no violation. At 1280 px, every text of an SVG image is
//! drawn at 11 px or more (its computed size times the image's scale). A site with the
//! quieter claim marks (`claim_marks: hover`) is audited too. Screenshots go to
//! `target/browser/`.
//!
//! # How the browser is driven
//!
//! Over WebDriver, with [fantoccini] talking to Debian's `chromedriver` (package
//! `chromium-driver`, the same build as `chromium`). Weighed against the two CDP crates:
//! `headless_chrome` compiles its DevTools protocol from JSON in a build script (a 1.1 MB
//! generated module) and brings ureq with rustls and ring as a build dependency: about
//! 450 s from cold on this project's 2 cores, against about 165 s for fantoccini, whose
//! hyper, tokio and http are the dev server's own; `chromiumoxide` generates the protocol
//! too, and adds reqwest. fantoccini is kept up by its author (releases through 2025) and
//! has no browser download at all. What WebDriver lacks is reached through chromedriver's
//! own documented endpoints, as Selenium does: the browser log (`goog:loggingPrefs`, read
//! from `/se/log`) for console errors, exceptions and failed requests, and
//! `/goog/cdp/execute` for the window's size and the dark colour scheme.
//!
//! The site is served by axum (the dev server's stack) with tower-http's `ServeDir`.
//! axe-core comes from npm: `.ci/run` installs it with `npm install --prefix target/axe`
//! (or set `COUNTERSIGN_AXE` to its `axe.min.js`).
//!
//! Skipped, with a message, when Chromium or chromedriver is absent (`.ci/run` installs
//! both), and the audit alone when axe-core is — except where `COUNTERSIGN_REQUIRE_BROWSER`
//! is set (the Linux CI jobs), where a missing one fails the test. Census results come
//! through the real site's cache, as in `tests/essays.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use countersign_site::pipeline::{self, RunOptions};
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

/// The window widths every page is checked at, in CSS px.
const WIDTHS: [u32; 3] = [375, 768, 1280];
/// The width at which every text of a figure must be at least [`LEAST_LABEL_PX`].
const LABEL_WIDTH: u32 = 1280;
/// The smallest size a figure's text may be drawn at, in CSS px.
const LEAST_LABEL_PX: f64 = 11.0;

const LAYOUT_JS: &str = include_str!("browser/layout.js");
const CERTIFICATES_JS: &str = include_str!("browser/certificates.js");
const LABELS_JS: &str = include_str!("browser/labels.js");
const AXE_JS: &str = include_str!("browser/axe.js");

fn required() -> bool {
    std::env::var_os("COUNTERSIGN_REQUIRE_BROWSER").is_some_and(|v| !v.is_empty())
}

/// A program from the environment variable `var`, else the first of `paths` that exists.
fn program(var: &str, paths: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        return Some(PathBuf::from(p));
    }
    paths.iter().map(PathBuf::from).find(|p| p.exists())
}

/// axe-core's browser script, or `None` (with a message, or a failure when required).
fn axe_source(repo: &Path) -> Option<String> {
    let path =
        std::env::var_os("COUNTERSIGN_AXE").map(PathBuf::from).unwrap_or_else(|| repo.join("target/axe/node_modules/axe-core/axe.min.js"));
    match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) => {
            let how = "npm install --prefix target/axe axe-core@4 (.ci/run does)";
            assert!(!required(), "axe-core not found at {} ({e}) and COUNTERSIGN_REQUIRE_BROWSER is set: {how}", path.display());
            eprintln!("SKIPPED the accessibility audit: axe-core not found at {}; {how}", path.display());
            None
        }
    }
}

// ---------------------------------------------------------------- the sites

/// A built site: its output folder, the path it is served under, its essays' slugs.
struct Site {
    name: &'static str,
    out: PathBuf,
    prefix: String,
    slugs: Vec<String>,
}

/// Build the site at `root` into `out` as `countersign build` does (through the cache).
fn build(name: &'static str, root: &Path, out: &Path) -> Site {
    let run = pipeline::run(
        &RunOptions { root: root.to_path_buf(), use_cache: true, progress: false, render: true, theme: countersign::THEME, base_url: None },
        None,
    );
    let errors: Vec<String> = run.diags.iter().filter(|d| d.is_error()).map(|d| format!("{:?}: {}", d.origin, d.message)).collect();
    assert!(errors.is_empty(), "the {name} site does not build: {errors:#?}");
    let lock = countersign_site::output::lock_output(out, || {}).expect("lock the output folder");
    countersign_site::output::write_atomically(
        out,
        run.output.as_ref().expect("rendered"),
        &mut countersign_site::output::FsWriter,
        &lock,
        countersign_site::output::Publish::Exchange,
    )
    .expect("write the site");
    let prefix = countersign_render::base_path(&run.loaded.config.base_url);
    Site { name, out: out.to_path_buf(), prefix, slugs: run.loaded.essays.iter().map(|e| e.slug.clone()).collect() }
}

/// A site made by `countersign new` in `dir`, with `extra` appended to its configuration.
fn new_site(dir: &Path, extra: &str) -> PathBuf {
    let root = dir.join("essays-site");
    let status = Command::new(env!("CARGO_BIN_EXE_countersign")).arg("new").arg(&root).stderr(Stdio::null()).status().expect("run new");
    assert!(status.success(), "countersign new failed");
    let config = root.join("countersign.yaml");
    let text = std::fs::read_to_string(&config).expect("the new site's config");
    std::fs::write(&config, format!("{text}{extra}")).expect("write the config");
    root
}

/// Every page of the site: paths of its HTML files, as URL paths.
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

/// Serve `site.out` under `site.prefix` on a local port (its `404.html` for what is
/// missing, with status 404), on the current runtime; the base URL.
async fn serve(site: &Site) -> String {
    use tower_http::services::{ServeDir, ServeFile};
    let files = ServeDir::new(&site.out).not_found_service(ServeFile::new(site.out.join("404.html")));
    let app = match site.prefix.trim_end_matches('/') {
        "" => axum::Router::new().fallback_service(files),
        p => axum::Router::new().nest_service(p, files),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind a local port");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}{}", site.prefix)
}

// ---------------------------------------------------------------- the browser

/// chromedriver, ended when dropped.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start chromedriver on a free local port and open a session driving headless `chromium`
/// with a fresh profile in `profile`.
async fn launch(driver: &Path, chromium: &Path, profile: &Path) -> (Driver, Client) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    let driver = Driver(child);
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--window-size=1000,900",
    ];
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
        "goog:loggingPrefs": { "browser": "ALL" },
    });
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(caps.as_object().cloned().expect("capabilities"));
    let url = format!("http://127.0.0.1:{port}");
    let up = (0..200).any(|_| {
        let ok = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
        if !ok {
            std::thread::sleep(Duration::from_millis(50));
        }
        ok
    });
    assert!(up, "chromedriver did not listen on port {port}");
    let client = builder.connect(&url).await.unwrap_or_else(|e| panic!("chromedriver refused a session: {e}"));
    (driver, client)
}

/// A command of chromedriver's own, beside WebDriver's: `path` under the session, with
/// the JSON `body` (POST).
#[derive(Debug)]
struct ChromeCommand {
    path: &'static str,
    body: Value,
}

impl WebDriverCompatibleCommand for ChromeCommand {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/{}", session.unwrap_or(""), self.path))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// A Chrome DevTools Protocol command, through chromedriver.
async fn cdp(c: &Client, cmd: &str, params: Value) -> Value {
    let body = json!({ "cmd": cmd, "params": params });
    c.issue_cmd(ChromeCommand { path: "goog/cdp/execute", body }).await.unwrap_or_else(|e| panic!("{cmd}: {e}"))
}

/// The browser's log since it was last read: console messages, exceptions, failed loads.
async fn browser_log(c: &Client) -> Vec<Value> {
    let log = c.issue_cmd(ChromeCommand { path: "se/log", body: json!({ "type": "browser" }) }).await.expect("read the browser log");
    log.as_array().cloned().unwrap_or_default()
}

/// What the browser reported as an error since the log was last read (console errors
/// and failed assertions, uncaught exceptions, failed requests and HTTP errors).
async fn problems(c: &Client) -> Vec<String> {
    let log = browser_log(c).await;
    log.iter().filter(|e| e["level"] == "SEVERE").map(|e| format!("{}: {}", e["source"].as_str().unwrap_or("log"), e["message"])).collect()
}

/// Evaluate `body`, a function body that `return`s, awaited (it may `await`); its
/// arguments are `args`.
async fn eval(c: &Client, body: &str, args: Vec<Value>) -> Value {
    let script = format!("return (async () => {{\n{body}\n}})();");
    c.execute(&script, args).await.unwrap_or_else(|e| panic!("evaluating {}: {e}", body.lines().next().unwrap_or("")))
}

/// Evaluate the expression `expr`.
async fn value(c: &Client, expr: &str) -> Value {
    eval(c, &format!("return ({expr});"), Vec::new()).await
}

/// Set the window (the layout viewport) to `width` × `height` CSS px.
async fn window(c: &Client, width: u32, height: u32) {
    cdp(c, "Emulation.setDeviceMetricsOverride", json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }))
        .await;
    let inner = value(c, "window.innerWidth").await;
    assert_eq!(inner, json!(width), "the window did not take its width");
}

/// Load `url` and let late requests (images decoded lazily) settle.
async fn open(c: &Client, url: &str) {
    c.goto(url).await.unwrap_or_else(|e| panic!("{url}: {e}"));
    value(c, "new Promise(r => setTimeout(r, 150))").await;
}

/// A screenshot of the window at `width`; of the whole page (up to 16,000 px) when `full`.
/// The window is 1000 × 900 px again afterwards.
async fn screenshot(c: &Client, file: &Path, width: u32, full: bool) {
    window(c, width, 900).await;
    if full {
        let h = value(c, "document.documentElement.scrollHeight").await.as_u64().unwrap_or(900).clamp(1, 16_000);
        window(c, width, h as u32).await;
    }
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(file, png).expect("write screenshot");
    window(c, 1000, 900).await;
}

// ---------------------------------------------------------------- what a page must be

/// Problems of the page open at `path`: what the browser reported, images that did not
/// load, same-site links to a missing file or fragment.
async fn page_problems(c: &Client, site: &Site, base: &str, path: &str) -> Vec<String> {
    let mut out: Vec<String> = problems(c).await.into_iter().map(|p| format!("{path}: {p}")).collect();
    let broken =
        value(c, "Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))").await;
    if broken.as_array().is_some_and(|a| !a.is_empty()) {
        out.push(format!("{path}: images that did not load: {broken}"));
    }
    let links = value(c, "Array.from(document.querySelectorAll('a[href]')).map(a => a.href)").await;
    for l in links.as_array().cloned().unwrap_or_default() {
        let l = l.as_str().unwrap_or("");
        let Some(rest) = l.strip_prefix(base) else { continue };
        let (file, frag) = rest.split_once('#').unwrap_or((rest, ""));
        let mut f = site.out.join(file);
        if f.is_dir() {
            f = f.join("index.html");
        }
        match std::fs::read_to_string(&f) {
            Err(_) => out.push(format!("{path}: link to a missing page {l}")),
            Ok(text) if !frag.is_empty() && !text.contains(&format!("id=\"{frag}\"")) => {
                out.push(format!("{path}: link to a missing anchor {l}"))
            }
            _ => {}
        }
    }
    out
}

/// Problems of the essay open at `slug`: MathML not laid out, claims not linked to the
/// provenance list, certificates that disagree with `results.json`. The MathML count.
async fn essay_problems(c: &Client, site: &Site, slug: &str) -> (Vec<String>, u64) {
    let mut out = Vec::new();
    let m = value(c, "(() => { const m = Array.from(document.querySelectorAll('math')); return [m.length, m.filter(x => x.getBoundingClientRect().width > 0).length]; })()").await;
    let (n, laid) = (m[0].as_u64().unwrap_or(0), m[1].as_u64().unwrap_or(0));
    if n != laid {
        out.push(format!("{slug}: {} of {n} MathML elements have no width", n - laid));
    }
    let results: Value =
        serde_json::from_slice(&std::fs::read(site.out.join(slug).join("results.json")).unwrap_or_default()).unwrap_or(Value::Null);
    if results["claims"].as_array().is_none_or(|a| a.is_empty()) {
        // An essay with no census: no claim, no provenance list.
        return (out, n);
    }
    let claims = value(
        c,
        "(() => { const c = Array.from(document.querySelectorAll('.claim')); return [c.length, c.filter(a => a.tagName === 'A' && a.getAttribute('href').startsWith('#calls-') && document.getElementById(a.getAttribute('href').slice(1)) && document.getElementById(a.getAttribute('href').slice(1)).closest('#how-computed')).length]; })()",
    )
    .await;
    let (n_claims, linked) = (claims[0].as_u64().unwrap_or(0), claims[1].as_u64().unwrap_or(0));
    if n_claims == 0 || n_claims != linked {
        out.push(format!("{slug}: {linked} of {n_claims} claims link to an entry of the provenance list"));
    }
    out.extend(certificates(c, slug, &results).await);
    if value(c, "!!document.querySelector('#how-computed a[href=\"results.json\"]')").await != json!(true) {
        out.push(format!("{slug}: no link to results.json"));
    }
    (out, n)
}

/// Focus each claim of the page (as the keyboard would) and read its certificate: it must
/// be hidden before and shown then, name the census of a call of this essay, a path or expression some claim of
/// `results` reads, and the exact value, which for a plain path is the value `results`
/// publishes for it. The problems found.
async fn certificates(c: &Client, page: &str, results: &Value) -> Vec<String> {
    let read = value(
        c,
        "Array.from(document.querySelectorAll('.claim')).map(c => { \
           const id = c.getAttribute('aria-describedby'); const t = id && document.getElementById(id); \
           if (!t) return null; \
           const seen = () => t.checkVisibility({ visibilityProperty: true }); \
           const hidden = !seen(); c.focus(); \
           const q = (sel) => { const e = t.querySelector(sel); return e ? e.textContent : null; }; \
           return { focused: document.activeElement === c, shown: hidden && seen(), \
                    census: q('.cert-census b'), call: q('.cert-census').replace(/^.*\\((.*)\\)$/, '$1'), \
                    path: q('.cert-path code'), value: q('.cert-value b') }; })",
    )
    .await;
    let mut out = Vec::new();
    let all = read.as_array().cloned().unwrap_or_default();
    if all.is_empty() {
        out.push(format!("{page}: no claim to focus"));
    }
    for (k, cert) in all.iter().enumerate() {
        if let Some(p) = certificate_problem(cert, results) {
            out.push(format!("{page}: claim {k}{p}"));
        }
    }
    out
}

/// What is wrong with one certificate `c` as read from the page, against `results`.
fn certificate_problem(c: &Value, results: &Value) -> Option<String> {
    if c.is_null() {
        return Some(" has no certificate".into());
    }
    if c["focused"] != json!(true) || c["shown"] != json!(true) {
        return Some(format!("'s certificate is not hidden at rest and shown on focus: {c}"));
    }
    let (census, call, path, value) = (c["census"].as_str(), c["call"].as_str(), c["path"].as_str(), c["value"].as_str());
    let calls = results["censuses"].as_array().cloned().unwrap_or_default();
    let claims = results["claims"].as_array().cloned().unwrap_or_default();
    if !calls.iter().any(|x| x["id"].as_str() == call && x["census"].as_str() == census) {
        return Some(format!("'s certificate names no census call of the essay: {c}"));
    }
    let Some(x) = claims.iter().find(|x| x["path"].as_str() == path && x["census"].as_str() == call) else {
        return Some(format!("'s certificate names a path no claim reads: {c}"));
    };
    let shown = value.unwrap_or("");
    if shown.is_empty() {
        return Some(format!("'s certificate has no value: {c} ({x})"));
    }
    let plain_path = path.is_some_and(|p| !p.contains(' ') && !p.contains('('));
    let want = countersign_core::check::expr::exact_text(&countersign_core::check::forms::Computed::from_json(&x["value"]));
    // A long value is cut short ("…") in the certificate; the rest must agree.
    let agrees = match shown.split_once('…') {
        Some((head, _)) => want.starts_with(head),
        None => want == shown,
    };
    (plain_path && !agrees).then(|| format!("'s certificate shows {shown:?}, results.json gives {want:?}"))
}

/// The page open at `path`, at each of [`WIDTHS`]: its layout, its certificates' places,
/// its figures' text sizes (at [`LABEL_WIDTH`]) and, with `axe`, the accessibility audit.
async fn layout_problems(c: &Client, path: &str, axe: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let list = |v: Value| v.as_array().cloned().unwrap_or_default().into_iter().map(|p| p.as_str().unwrap_or("").to_string());
    for w in WIDTHS {
        window(c, w, 900).await;
        out.extend(list(eval(c, LAYOUT_JS, Vec::new()).await).map(|p| format!("{path} at {w} px: {p}")));
        out.extend(list(eval(c, CERTIFICATES_JS, Vec::new()).await).map(|p| format!("{path} at {w} px: {p}")));
        if w == LABEL_WIDTH {
            for l in eval(c, LABELS_JS, Vec::new()).await.as_array().cloned().unwrap_or_default() {
                let size = l[1].as_f64().unwrap_or(0.0);
                if size < LEAST_LABEL_PX {
                    out.push(format!(
                        "{path} at {w} px: figure {} has text drawn at {size:.1} px (“{}”)",
                        l[0],
                        l[2].as_str().unwrap_or("")
                    ));
                }
            }
        }
        if let Some(axe) = axe {
            let found = eval(c, AXE_JS, vec![json!(axe)]).await;
            out.extend(list(found).map(|p| format!("{path} at {w} px: axe: {p}")));
        }
    }
    window(c, 1000, 900).await;
    out
}

/// Every page of `site`: all the checks above; screenshots of its essays into `shots`.
/// The number of pages and of MathML elements.
async fn check_site(c: &Client, site: &Site, axe: Option<&str>, shots: &Path, failures: &mut Vec<String>) -> (usize, u64) {
    let base = serve(site).await;
    let all = pages(&site.out);
    assert!(all.iter().any(|p| p.is_empty()) && all.contains(&"404.html".to_string()), "{all:?}");
    let mut math = 0;
    for path in &all {
        open(c, &format!("{base}{path}")).await;
        let shown = if path.is_empty() { "the index" } else { path.as_str() };
        failures.extend(page_problems(c, site, &base, shown).await);
        let slug = path.trim_end_matches('/');
        if site.slugs.iter().any(|x| x == slug) {
            let (p, n) = essay_problems(c, site, slug).await;
            failures.extend(p);
            math += n;
            screenshot(c, &shots.join(format!("{}-{slug}.png", site.name)), 1000, true).await;
            screenshot(c, &shots.join(format!("{}-{slug}-375.png", site.name)), 375, false).await;
        }
        failures.extend(layout_problems(c, &format!("{} {shown}", site.name), axe).await);
    }
    (all.len(), math)
}

/// Dark mode: each essay's background is dark; a screenshot of the top of each.
async fn dark_mode(c: &Client, site: &Site, base: &str, shots: &Path, failures: &mut Vec<String>) {
    cdp(c, "Emulation.setEmulatedMedia", json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] })).await;
    for slug in &site.slugs {
        open(c, &format!("{base}{slug}/")).await;
        if value(c, "getComputedStyle(document.documentElement).backgroundColor").await == json!("rgb(255, 255, 255)") {
            failures.push(format!("{slug}: dark mode keeps a white background"));
        }
        screenshot(c, &shots.join(format!("{}-{slug}-dark.png", site.name)), 1000, false).await;
    }
    cdp(c, "Emulation.setEmulatedMedia", json!({ "features": [] })).await;
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

/// Search: a word from each essay's body finds that essay from the index page.
async fn search(c: &Client, site: &Site, base: &str, shots: &Path, failures: &mut Vec<String>) {
    let index: Value =
        serde_json::from_slice(&std::fs::read(site.out.join("search-index.json")).expect("search index")).expect("index json");
    for slug in &site.slugs {
        let word = search_word(&index, slug);
        open(c, base).await;
        let found = eval(
            c,
            "const i = document.getElementById('search-input'); i.value = arguments[0]; i.dispatchEvent(new Event('input')); \
             for (let k = 0; k < 50; k++) { const a = Array.from(document.querySelectorAll('#search-results a')).map(a => a.getAttribute('href')); \
             if (a.length) return a; await new Promise(r => setTimeout(r, 50)); } return [];",
            vec![json!(word)],
        )
        .await;
        if !found.as_array().is_some_and(|a| a.iter().any(|h| h.as_str().is_some_and(|h| h.trim_end_matches('/').ends_with(slug.as_str()))))
        {
            failures.push(format!("search for “{word}” did not find {slug}: {found}"));
        }
        if slug == &site.slugs[0] {
            screenshot(c, &shots.join(format!("{}-search.png", site.name)), 1000, false).await;
        }
        failures.extend(problems(c).await.into_iter().map(|p| format!("search page: {p}")));
    }
}

/// Whether the quieter claim marks hold: a claim shows no underline until it is focused.
async fn quiet_marks(c: &Client, site: &Site, base: &str, failures: &mut Vec<String>) {
    let slug = site.slugs.first().expect("an essay");
    open(c, &format!("{base}{slug}/")).await;
    let marks = value(
        c,
        "(() => { const c = document.querySelector('a.claim'); const line = () => getComputedStyle(c).textDecorationLine; \
           const before = line(); c.focus(); const after = line(); c.blur(); return [before, after]; })()",
    )
    .await;
    if marks != json!(["none", "underline"]) {
        failures.push(format!("{} {slug}: claim marks [at rest, focused] are {marks}, not [none, underline]", site.name));
    }
}

#[test]
fn every_page_in_chromium() {
    let (Some(chromium), Some(driver)) = (
        program("CHROMIUM", &["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]),
        program("CHROMEDRIVER", &["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]),
    ) else {
        let how = "install Debian's `chromium` and `chromium-driver`, or set CHROMIUM and CHROMEDRIVER; .ci/run installs them";
        assert!(!required(), "Chromium or chromedriver not found and COUNTERSIGN_REQUIRE_BROWSER is set ({how})");
        eprintln!("SKIPPED: Chromium or chromedriver not found ({how})");
        return;
    };
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let axe = axe_source(&repo);
    let tmp = tempfile::tempdir().expect("temp dir");
    // COUNTERSIGN_BROWSER_ROOT: test another site (e.g. a copy of the essays) instead.
    let root = std::env::var_os("COUNTERSIGN_BROWSER_ROOT").map(PathBuf::from).unwrap_or_else(|| repo.clone());
    let real = build("essays", &root, &tmp.path().join("essays"));
    let new = build("new", &new_site(&tmp.path().join("new"), ""), &tmp.path().join("new-public"));
    let quiet = build("quiet", &new_site(&tmp.path().join("quiet"), "claim_marks: hover\n"), &tmp.path().join("quiet-public"));
    let shots = repo.join("target/browser");
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let (_driver, c) = launch(&driver, &chromium, &tmp.path().join("profile")).await;
        window(&c, 1000, 900).await;
        let mut failures = Vec::new();
        let (pages, math) = check_site(&c, &real, axe.as_deref(), &shots, &mut failures).await;
        if math == 0 {
            failures.push("no MathML on any essay".into());
        }
        let base = serve(&real).await;
        dark_mode(&c, &real, &base, &shots, &mut failures).await;
        search(&c, &real, &base, &shots, &mut failures).await;
        let (new_pages, _) = check_site(&c, &new, axe.as_deref(), &shots, &mut failures).await;
        let quiet_base = serve(&quiet).await;
        quiet_marks(&c, &quiet, &quiet_base, &mut failures).await;
        let (quiet_pages, _) = check_site(&c, &quiet, axe.as_deref(), &shots, &mut failures).await;
        let _ = c.close().await;
        assert!(failures.is_empty(), "{} problems in the browser:\n{}", failures.len(), failures.join("\n"));
        eprintln!(
            "browser: {pages} pages of the essays, {new_pages} of the new site, {quiet_pages} with quiet claim marks, {math} MathML elements; screenshots in {}",
            shots.display()
        );
    });
}
