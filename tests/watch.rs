//! `countersign watch` on a temporary copy of tests/sites/ok-basic: each test starts the
//! built binary on a free port (`--port 0`; the address is read from its first line on
//! stdout), edits the site as an editor would, and waits on `/__countersign/generation`
//! (with a timeout) before looking at what is served. No test sleeps to let a build
//! happen; the two that must show that something did *not* cause a build compare the
//! generation after a later, distinct edit has been served.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::*;

#[test]
fn a_prose_edit_is_served_and_recomputes_no_census() {
    let s = start();
    assert_eq!(s.status()["stats"]["ran"], 1, "the first build runs the census: {}", s.status());
    assert!(!s.page("/small/").contains("marmalade"));
    s.edit(ESSAY, "There are", "Marmalade aside, there are");
    assert!(s.page("/small/").contains("Marmalade aside, there are"));
    let st = s.status();
    assert_eq!(st["ok"], true, "{st}");
    assert_eq!(st["stats"]["ran"], 0, "a prose edit recomputed a census: {st}");
    assert_eq!(st["stats"]["remembered"], 1, "{st}");
    // The dev server adds the reload script; the site itself does not contain it.
    assert!(s.page("/small/").contains("/__countersign/events"));
    assert!(s.page("/").contains("/__countersign/events"));
}

#[test]
fn an_edit_rerenders_only_what_depends_on_it() {
    let s = start();
    // The first build renders every page: the essay, the index, the ladder page, 404.html.
    let st = s.status();
    assert_eq!(st["rendered"]["pages"], 4, "{st}");
    s.edit(ESSAY, "There are", "Counted again, there are");
    assert!(s.page("/small/").contains("Counted again, there are"));
    let st = s.status();
    assert_eq!(st["ok"], true, "{st}");
    assert_eq!((st["parsed"].as_u64(), st["checked"].as_u64()), (Some(1), Some(1)), "{st}");
    assert_eq!(st["rendered"]["bodies"], 1, "{st}");
    assert_eq!(st["rendered"]["pages"], 1, "a prose edit rendered other pages than its own: {st}");
    assert_eq!(st["rendered"]["static"], 0, "{st}");
    // A static file: that file, and no page.
    std::fs::create_dir_all(s.path("static")).unwrap();
    s.write("static/extra.css", "p { color: teal }");
    s.wait_until(|| s.get("/extra.css").0 == 200);
    let st = s.status();
    assert_eq!((st["rendered"]["static"].as_u64(), st["rendered"]["pages"].as_u64()), (Some(1), Some(0)), "{st}");
    // The essay template: the essay's page only.
    let g = s.generation();
    std::fs::create_dir_all(s.path("templates")).unwrap();
    let essay = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/essay.html")).unwrap();
    s.write("templates/essay.html", &essay.replacen("<article class=\"essay\">", "<article class=\"essay\"><p>Essay banner</p>", 1));
    s.wait_until(|| s.get("/small/").2.contains("Essay banner"));
    let st = s.status();
    assert!(st["generation"].as_u64() > Some(g), "{st}");
    assert_eq!((st["rendered"]["pages"].as_u64(), st["rendered"]["bodies"].as_u64()), (Some(1), Some(0)), "{st}");
}

#[test]
fn a_broken_claim_shows_the_overlay_over_the_last_good_page_until_fixed() {
    let s = start();
    let good = s.page("/small/");
    s.edit(ESSAY, "{{ g4.positions = 14 }}", "{{ g4.positions = 15 }}");
    let st = s.status();
    assert_eq!(st["ok"], false, "{st}");
    for path in ["/small/", "/", "/no-such-page/"] {
        let body = s.get(path).2;
        assert!(body.contains(r#"id="countersign-error""#), "{path} has no overlay:\n{body}");
        assert!(body.contains("essays/small.md:13:"), "{path}: no file:line in the overlay:\n{body}");
        assert!(body.contains("the essay says 15, the census gives 14"), "{path}: no stated vs computed:\n{body}");
    }
    // Underneath: the last good page, unchanged (the overlay and script come before </body>).
    let page = s.page("/small/");
    let under = page.split(r#"<div id="countersign-error""#).next().unwrap();
    assert!(good.starts_with(under), "the last good page is not what is served under the overlay");
    // The next good save clears it.
    s.edit(ESSAY, "{{ g4.positions = 15 }}", "{{ g4.positions = 14 }}");
    assert_eq!(s.status()["ok"], true);
    assert!(!s.page("/small/").contains("countersign-error"));
}

#[test]
fn a_save_by_rename_is_seen_and_editor_files_are_ignored() {
    let s = start();
    let g = s.generation();
    // What vim and others leave beside the file: none of these may cause a build.
    s.write("essays/.small.md.swp", "swap");
    s.write("essays/small.md~", "backup");
    s.write("essays/4913", "");
    s.write("essays/.#small.md", "lock");
    std::fs::remove_file(s.path("essays/4913")).unwrap();
    // Let those events arrive well apart from the save below.
    std::thread::sleep(Duration::from_millis(300));
    let text = s.read(ESSAY).replacen("There are", "By rename, there are", 1);
    s.write("essays/.small.md.tmp-123", &text);
    std::fs::rename(s.path("essays/.small.md.tmp-123"), s.path(ESSAY)).unwrap();
    let after = s.wait_generation(g + 1);
    assert!(s.page("/small/").contains("By rename, there are"));
    assert_eq!(after, g + 1, "editor files caused builds of their own");
}

#[test]
fn an_essay_added_then_deleted_appears_and_goes() {
    let s = start();
    let g = s.generation();
    let extra = "---\ntitle: A second essay\nanchor: sylver\nrung: 2\n---\n\nA paragraph about quince.\n";
    s.write("essays/second.md", extra);
    s.wait_generation(g + 1);
    assert!(s.page("/second/").contains("quince"));
    assert!(s.page("/").contains("A second essay"));
    std::fs::remove_file(s.path("essays/second.md")).unwrap();
    s.wait_generation(g + 2);
    assert_eq!(s.get("/second/").0, 404);
    assert!(!s.page("/").contains("A second essay"));
    assert_eq!(s.status()["ok"], true);
}

#[test]
#[cfg(unix)]
fn a_renamed_essay_moves_and_a_symlinked_essay_is_watched() {
    let s = start();
    let g = s.generation();
    std::fs::rename(s.path(ESSAY), s.path("essays/semigroups.md")).unwrap();
    s.wait_generation(g + 1);
    assert!(s.page("/semigroups/").contains("positions"));
    assert_eq!(s.get("/small/").0, 404);
    // The essay now lives elsewhere, linked in.
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("kept.md");
    std::fs::rename(s.path("essays/semigroups.md"), &target).unwrap();
    std::os::unix::fs::symlink(&target, s.path("essays/linked.md")).unwrap();
    s.wait_until(|| s.get("/linked/").0 == 200);
    let text = std::fs::read_to_string(&target).unwrap();
    std::fs::write(&target, text.replacen("There are", "Through the link, there are", 1)).unwrap();
    s.wait_until(|| s.get("/linked/").2.contains("Through the link, there are"));
    assert_eq!(s.status()["ok"], true);
}

#[test]
fn a_burst_of_saves_is_one_build() {
    let s = start();
    let g = s.generation();
    let base = s.read(ESSAY);
    for i in 0..6 {
        s.write(ESSAY, &base.replacen("There are", &format!("Burst {i}: there are"), 1));
    }
    s.wait_generation(g + 1);
    assert!(s.page("/small/").contains("Burst 5: there are"));
    // A later, separate save: if the burst had been split, this would be build g + 3 or more.
    std::thread::sleep(Duration::from_millis(200));
    s.write(ESSAY, &base.replacen("There are", "After the burst, there are", 1));
    let after = s.wait_generation(g + 2);
    assert!(s.page("/small/").contains("After the burst"));
    assert_eq!(after, g + 2, "the burst of six saves made more than one build");
}

#[test]
fn templates_and_static_files_are_watched() {
    let s = start();
    let g = s.generation();
    std::fs::create_dir_all(s.path("static")).unwrap();
    s.write("static/extra.css", "p { color: teal }");
    s.wait_generation(g + 1);
    let (code, head, body) = s.get("/extra.css");
    assert_eq!(code, 200);
    assert!(head.contains("content-type: text/css"), "{head}");
    assert!(body.contains("teal"));
    std::fs::create_dir_all(s.path("templates")).unwrap();
    let base = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/base.html")).unwrap();
    s.write("templates/base.html", &base.replacen("<main id=\"content\">", "<main id=\"content\"><p>Template banner</p>", 1));
    s.wait_generation(g + 2);
    assert!(s.page("/small/").contains("Template banner"));
}

#[test]
fn only_the_site_is_served() {
    let s = start();
    for bad in [
        "/../countersign.yaml",
        "/%2e%2e/countersign.yaml",
        "/%2E%2E%2Fcountersign.yaml",
        "//etc/passwd",
        "/small/..%2f..%2fcountersign.yaml",
    ] {
        let (code, _, body) = s.get(bad);
        assert_eq!(code, 400, "{bad}: {body}");
    }
    assert_eq!(s.get("/countersign.yaml").0, 404);
    assert_eq!(s.get("/essays/small.md").0, 404);
    let (code, head, _) = s.get("/small");
    assert_eq!(code, 301);
    assert!(head.contains("location: /small/"), "{head}");
    let (_, head, _) = s.get("/style.css");
    assert!(head.contains("content-type: text/css"), "{head}");
    let (_, head, _) = s.get("/");
    assert!(head.contains("content-type: text/html"), "{head}");
}

#[test]
fn built_sites_never_ship_the_reload_script() {
    let dir = site();
    let out =
        Command::new(env!("CARGO_BIN_EXE_countersign")).arg("--root").arg(dir.path()).args(["build"]).env("CI", "1").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for e in walkdir::WalkDir::new(dir.path().join("public")).into_iter().filter_map(Result::ok).filter(|e| e.file_type().is_file()) {
        let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
        assert!(!text.contains("__countersign") && !text.contains("countersign-reload"), "{} ships the reload script", e.path().display());
    }
}

#[test]
#[cfg(unix)]
fn a_busy_port_is_named_and_ctrl_c_stops_cleanly() {
    let mut s = start();
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    let other = spawn(s.dir.path(), &["--port", &port]).wait_with_output().unwrap();
    assert_eq!(other.status.code(), Some(1));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(err.contains(&format!("port {port}")) && err.contains("already in use"), "{err}");
    rustix::process::kill_process(rustix::process::Pid::from_child(&s.child), rustix::process::Signal::INT).unwrap();
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = s.child.try_wait().unwrap() {
            assert!(status.success(), "Ctrl-C: {status:?}");
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "still running after Ctrl-C");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(TcpStream::connect(&s.addr).is_err(), "the port is still open after Ctrl-C");
}

#[test]
fn ipv6_serves_and_streams_reload_events() {
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: this machine has no IPv6 loopback");
        return;
    }
    let s = start_on(site(), "::1");
    assert!(s.addr.starts_with("[::1]:"), "{}", s.addr);
    let g = s.generation();
    // The reload channel: the current generation on connecting, then the next one.
    let mut ev = TcpStream::connect(&s.addr).unwrap();
    ev.set_read_timeout(Some(TIMEOUT)).unwrap();
    write!(ev, "GET /__countersign/events HTTP/1.1\r\nHost: {}\r\n\r\n", s.addr).unwrap();
    let mut reader = BufReader::new(ev);
    let mut seen = Vec::new();
    let mut edited = false;
    loop {
        let mut line = String::new();
        assert!(reader.read_line(&mut line).unwrap() > 0, "event stream closed");
        if line.starts_with("content-type") || line.to_ascii_lowercase().starts_with("content-type") {
            assert!(line.contains("text/event-stream"), "{line}");
        }
        if let Some(d) = line.strip_prefix("data: ") {
            seen.push(d.trim().parse::<u64>().unwrap());
            if !edited {
                edited = true;
                let text = s.read(ESSAY);
                s.write(ESSAY, &text.replacen("There are", "Over IPv6, there are", 1));
            } else {
                break;
            }
        }
    }
    assert_eq!(seen, vec![g, g + 1]);
    // The event comes once the new snapshot is in place.
    assert!(s.page("/small/").contains("Over IPv6, there are"));
}

#[test]
fn a_census_edited_while_it_runs_is_cancelled() {
    let s = start();
    let g = s.generation();
    // A call that takes many seconds: the build is busy computing it...
    let text = s.read(ESSAY);
    s.write(ESSAY, &text.replacen("max_genus: 4", "max_genus: 24", 1));
    s.wait_until(|| s.status()["building"] == true);
    // ...when the block is put back: that call is no longer asked for, so it is cancelled
    // and the next build served is the one with the restored block.
    s.write(ESSAY, &text.replacen("There are", "Restored, there are", 1));
    s.wait_until(|| s.get("/small/").2.contains("Restored, there are"));
    let st = s.status();
    assert_eq!(st["cancelled"], 1, "{st}");
    assert_eq!(st["generation"], g + 1, "the cancelled build was published: {st}");
    assert_eq!(st["ok"], true, "{st}");
    assert_eq!(st["stats"]["ran"], 0, "{st}");
}

#[test]
fn only_the_edited_call_is_cancelled_and_the_other_running_call_is_kept() {
    let s = start();
    let g = s.generation();
    // Two calls of about a second and a few seconds, computed side by side...
    let slow = "---\ntitle: Slow\n---\n\n```census\nid: s1\nrun: sylver.census\nwith: { max_genus: 21 }\n```\n\n\
                ```census\nid: s2\nrun: sylver.census\nwith: { max_genus: 23 }\n```\n\nTwo slow calls.\n";
    s.write("essays/slow.md", slow);
    s.wait_until(|| s.status()["building"] == true);
    // ...when the second is edited: it alone is cancelled; the first runs to its end.
    s.write("essays/slow.md", &slow.replace("max_genus: 23", "max_genus: 3").replace("Two slow calls.", "One slow call left."));
    s.wait_until(|| s.get("/slow/").2.contains("One slow call left."));
    let st = s.status();
    assert_eq!(st["cancelled"], 1, "{st}");
    assert_eq!(st["generation"], g + 1, "the cancelled build was published: {st}");
    assert_eq!(st["ok"], true, "{st}");
    // The first call came from memory: only the edited call ran.
    assert_eq!((st["stats"]["ran"].as_u64(), st["stats"]["remembered"].as_u64()), (Some(1), Some(2)), "{st}");
}

#[test]
fn a_file_briefly_missing_mid_save_is_waited_for() {
    let s = start();
    let g = s.generation();
    // A slow editor: moves the essay to its backup name, and writes the new text a moment
    // later (longer than the watcher's quiet window, shorter than its grace for a missing file).
    let text = s.read(ESSAY);
    std::fs::rename(s.path(ESSAY), s.path("essays/small.md~")).unwrap();
    std::thread::sleep(Duration::from_millis(70));
    s.write(ESSAY, &text.replacen("There are", "Saved slowly, there are", 1));
    s.wait_until(|| s.get("/small/").2.contains("Saved slowly, there are"));
    let st = s.status();
    assert_eq!(st["generation"], g + 1, "a build ran while the essay was missing: {st}");
    assert_eq!(st["ok"], true, "{st}");
}

/// Send `head` (a whole request head, its own `Host` included) on a new connection:
/// (status code, the whole answer).
fn ask(addr: &str, head: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut answer = String::new();
    BufReader::new(s).read_line(&mut answer).unwrap();
    let code = answer.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, answer)
}

#[test]
fn a_rebound_host_or_a_foreign_origin_is_refused() {
    let s = start_with(site(), "127.0.0.1", &["--allow-host", "essays.test"]);
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    // A page whose name was rebound to 127.0.0.1 asks with its own name as the host.
    for path in ["/small/", "/__countersign/status", "/__countersign/events", "/no-such-page/"] {
        let (code, answer) = ask(&s.addr, &format!("GET {path} HTTP/1.1\r\nHost: attacker.example:{port}\r\nConnection: close\r\n\r\n"));
        assert_eq!(code, 403, "GET {path} for a foreign host: {answer}");
    }
    // The bound address, localhost and the name given with --allow-host are answered.
    for host in [s.addr.clone(), format!("localhost:{port}"), format!("essays.test:{port}")] {
        let (code, answer) = ask(&s.addr, &format!("GET /small/ HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"));
        assert_eq!(code, 200, "GET /small/ for {host}: {answer}");
    }
    // The reload channel answers only pages of this server.
    let events = |origin: &str| {
        ask(&s.addr, &format!("GET /__countersign/events HTTP/1.1\r\nHost: {}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n", s.addr))
    };
    assert_eq!(events("http://attacker.example").0, 403);
    assert_eq!(events("null").0, 403);
    assert_eq!(events(&format!("http://{}", s.addr)).0, 200);
}

#[test]
fn a_missing_page_is_the_sites_own_404_page() {
    let s = start();
    let (code, head, body) = s.get("/no-such-page/");
    assert_eq!(code, 404, "{body}");
    assert!(head.contains("content-type: text/html"), "{head}");
    assert!(body.contains("<h1>No page here</h1>"), "not the site's 404.html:\n{body}");
    assert!(body.contains("countersign-reload"), "the 404 page does not reload:\n{body}");
    assert_eq!(s.get("/small/missing.css").0, 404);
}

/// The lines watch mode prints on stderr on `interface` up to its first build's summary.
fn start_up_lines(interface: &str) -> Vec<String> {
    let dir = site();
    let mut child = spawn(dir.path(), &["--port", "0", "--interface", interface]);
    let err = BufReader::new(child.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    while !lines.last().is_some_and(|l: &String| l.contains("built in") || l.contains("build failed")) {
        match rx.recv_timeout(TIMEOUT) {
            Ok(line) => lines.push(line),
            Err(e) => panic!("no build summary on stderr ({e}): {lines:?}"),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    lines
}

#[test]
fn serving_the_network_is_warned_about_and_loopback_is_not() {
    let lines = start_up_lines("0.0.0.0");
    let warning = lines.iter().find(|l| l.starts_with("warning: ")).unwrap_or_else(|| panic!("no warning for 0.0.0.0: {lines:?}"));
    assert!(warning.contains("0.0.0.0") && warning.contains("drafts") && warning.contains("build status"), "{warning}");
    let lines = start_up_lines("127.0.0.1");
    assert!(!lines.iter().any(|l| l.contains("warning")), "a warning on loopback: {lines:?}");
}
