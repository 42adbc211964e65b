//! The hostile corpus: essays made to break the parsers and evaluators that recurse on an
//! author's input (claims and their expressions, math, templates, YAML, Markdown nesting)
//! and the stages whose work grows with the number of errors. Every input is generated
//! here, deep (100,000 levels) or large (100,000 errors), so CI runs them all.
//!
//! Each deep input must give a diagnostic with its code at its place and exit 1, never a
//! stack overflow: it is checked twice, by the binary as a subprocess, and in process in a
//! thread with the default 2 MiB stack of a spawned thread (a deeper recursion than the
//! main thread's 8 MiB allows would abort the whole test binary). The large inputs run
//! under a generous time-out, a guard against a quadratic stage, not a benchmark.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use countersign_core::diag::Code;
use countersign_site::pipeline::{self, RunOptions};

/// How deep the deep inputs nest.
const DEEP: usize = 100_000;

/// A census block every essay binds as `g`: Welter's position on squares 1, 2, 4 and 7
/// (value 0).
const CENSUS: &str = "```census\nid: g\nrun: welter.position\nwith: { squares: [1, 2, 4, 7] }\n```\n";

/// A site in a temporary folder whose one essay `essays/a.md` has `body` after its front
/// matter and census block (the body starts on line 11); `extra` are further files.
fn site(body: &str, extra: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("essays")).unwrap();
    std::fs::write(dir.path().join("countersign.yaml"), "title: Hostile\n").unwrap();
    std::fs::write(dir.path().join("essays/a.md"), format!("---\ntitle: A\n---\n\n{CENSUS}\n{body}\n")).unwrap();
    for (path, text) in extra {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// `countersign <command> --no-cache` on `root` as a subprocess: its exit code and stderr.
/// Killed, and the test failed, when it runs past `timeout`. The binary is
/// `COUNTERSIGN_BIN` when set (to run the corpus against another build).
fn run_binary(root: &Path, command: &str, timeout: Duration) -> (i32, String) {
    let bin = std::env::var_os("COUNTERSIGN_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_countersign").into());
    let mut cmd = Command::new(bin);
    cmd.arg("--root").arg(root).arg("--no-color").arg(command).arg("--no-cache").env("CI", "1");
    if command == "build" {
        cmd.arg("--out").arg(root.join("public"));
    }
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        pipe.read_to_end(&mut s).map(|_| s)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command} ran past the guard of {timeout:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap().unwrap()).into_owned();
    (status.code().unwrap_or_else(|| panic!("killed by a signal: {status:?}\n{}", tail(&stderr))), stderr)
}

/// The end of a long text, for a failure message.
fn tail(s: &str) -> &str {
    let mut at = s.len().saturating_sub(2000);
    while !s.is_char_boundary(at) {
        at += 1;
    }
    &s[at..]
}

/// The whole pipeline, rendering too, in process in a thread with a 2 MiB stack (the
/// default of a spawned thread): the codes of its error diagnostics.
fn run_in_thread(root: &Path) -> Vec<Code> {
    let root = root.to_path_buf();
    let thread = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
        let opts = RunOptions { root, use_cache: false, progress: false, render: true, theme: countersign::THEME, base_url: None };
        pipeline::run(&opts, None)
            .diags
            .into_iter()
            .filter(|d| d.severity == countersign_core::diag::Severity::Error)
            .map(|d| d.code)
            .collect()
    });
    thread.unwrap().join().expect("the run does not panic")
}

/// `body` must give the error `code` at `place` (`file:line:column`, the file
/// `essays/a.md` when `place` is only `line:column`) and exit 1, from the binary (check and
/// build) and in a 2 MiB thread.
fn rejects(body: &str, extra: &[(&str, &str)], code: &str, place: &str) {
    let place = if place.contains('.') { place.to_string() } else { format!("essays/a.md:{place}") };
    let dir = site(body, extra);
    for command in ["check", "build"] {
        let (exit, stderr) = run_binary(dir.path(), command, Duration::from_secs(60));
        assert_eq!(exit, 1, "{command}: {}", tail(&stderr));
        assert!(stderr.contains(&format!("error[{code}]")), "{command}: no {code}: {}", tail(&stderr));
        assert!(stderr.contains(&place), "{command}: not at {place}: {}", tail(&stderr));
    }
    let codes = run_in_thread(dir.path());
    assert!(codes.iter().any(|c| c.as_str() == code), "in a thread: {codes:?}");
}

/// A claim on line 11 of the essay, `{{ inner }}`.
fn claim(inner: &str) -> String {
    format!("{{{{ {inner} }}}}")
}

#[test]
fn a_sum_of_100000_terms_is_evaluated() {
    // 100,000 times the square 7: a flat sum, parsed and evaluated in a loop.
    let terms = vec!["g.squares[3]"; DEEP].join(" + ");
    let dir = site(&claim(&format!("{terms} = 700,000")), &[]);
    let (exit, stderr) = run_binary(dir.path(), "check", Duration::from_secs(60));
    assert_eq!(exit, 0, "{}", tail(&stderr));
    assert!(run_in_thread(dir.path()).is_empty());
    // And a wrong total is a disagreement, not a crash.
    let dir = site(&claim(&format!("{} = 42000", vec!["g.squares[3]"; 3000].join(" + "))), &[]);
    let (exit, stderr) = run_binary(dir.path(), "check", Duration::from_secs(60));
    assert_eq!(exit, 1, "{}", tail(&stderr));
    assert!(stderr.contains("error[claim-mismatch]"), "{}", tail(&stderr));
}

#[test]
fn a_long_chain_of_ands_is_evaluated() {
    let tests = vec!["g.value == 0"; DEEP].join(" and ");
    let dir = site(&claim(&format!("assert {tests}")), &[]);
    let (exit, stderr) = run_binary(dir.path(), "check", Duration::from_secs(60));
    assert_eq!(exit, 0, "{}", tail(&stderr));
}

#[test]
fn deeply_nested_parentheses_are_a_claim_syntax_error() {
    // `{{ ` takes columns 1 to 3; the 65th `(` (column 68) is one level too deep.
    let deep = format!("{}g.value{} = 0", "(".repeat(DEEP), ")".repeat(DEEP));
    rejects(&claim(&deep), &[], "claim-syntax", "11:68");
}

#[test]
fn deeply_nested_minus_signs_and_nots_are_claim_syntax_errors() {
    rejects(&claim(&format!("{}g.value = 0", "-".repeat(DEEP))), &[], "claim-syntax", "11:68");
    // `{{ assert ` takes columns 1 to 10; each `not ` four more.
    rejects(&claim(&format!("assert {}g.value == 0", "not ".repeat(DEEP))), &[], "claim-syntax", &format!("11:{}", 11 + 64 * 4));
}

#[test]
fn deeply_nested_calls_are_a_claim_syntax_error() {
    for deep in [10_000, DEEP] {
        let inner = format!("{}g.value{} = 0", "max(".repeat(deep), ")".repeat(deep));
        rejects(&claim(&inner), &[], "claim-syntax", &format!("11:{}", 4 + 64 * 4));
    }
}

/// `n` times `open`, then `x`, then `n` times `close`.
fn nest(open: &str, close: &str, n: usize) -> String {
    format!("{}x{}", open.repeat(n), close.repeat(n))
}

#[test]
fn deeply_nested_math_is_a_latex_error_at_the_formula() {
    for n in [5_000, DEEP] {
        for (open, close) in [("{", "}"), ("\\frac{1}{", "}"), ("\\sqrt{", "}"), ("x^{", "}"), ("\\left(", "\\right)")] {
            // The formula's LaTeX starts in column 2, after the `$`.
            rejects(&format!("${}$", nest(open, close, n)), &[], "latex-error", "11:2");
        }
    }
    // Nesting without braces, and a display.
    rejects(&format!("${} x$", "\\sqrt".repeat(DEEP)), &[], "latex-error", "11:2");
    rejects(&format!("$${}$$", nest("\\begin{matrix}", "\\end{matrix}", 5_000)), &[], "latex-error", "11:3");
    // A site macro counts as its expansion: 40 uses of a 60-deep macro are 2,400 deep.
    let config = format!("title: Hostile\nmath:\n  macros:\n    deep: '{}'\n", nest("\\sqrt{", "}", 60));
    rejects(&format!("${}$", "\\deep".repeat(40)), &[("countersign.yaml", &config)], "latex-error", "11:2");
}

#[test]
fn math_just_within_the_bound_renders() {
    // The most structure a formula may hold (2,000), in each of the deepest constructs.
    let formulas = [
        nest("{", "}", 2_000),
        nest("\\mathrm{", "}", 1_000),
        format!("{} x", "\\sqrt".repeat(2_000)),
        nest("\\left(", "\\right)", 1_000),
        nest("\\frac{1}{", "}", 666),
        nest("\\begin{matrix}", "\\end{matrix}", 500),
    ];
    let body = formulas.iter().map(|f| format!("${f}$")).collect::<Vec<_>>().join("\n\n");
    let dir = site(&body, &[]);
    let (exit, stderr) = run_binary(dir.path(), "build", Duration::from_secs(60));
    assert_eq!(exit, 0, "{}", tail(&stderr));
    assert!(run_in_thread(dir.path()).is_empty());
}

/// An essay under the template `essay.html` of text `template`.
fn under_template(template: &str, code: &str, place: &str) {
    rejects("Some prose.", &[("templates/essay.html", template)], code, place);
}

#[test]
fn deeply_nested_templates_are_template_errors_at_their_tag() {
    for n in [10_000, DEEP] {
        // Each `{% if true %}` is 13 characters: the 65th starts in column 833.
        under_template(&nest("{% if true %}", "{% endif %}", n), "template-error", "templates/essay.html:1:833");
        under_template(&nest("{% for i in [1] %}", "{% endfor %}", n), "template-error", "templates/essay.html:1:");
    }
    for n in [5_000, DEEP] {
        under_template(&format!("{{{{ {} }}}}", nest("(", ")", n).replace('x', "1")), "template-error", "templates/essay.html:1:1");
    }
    under_template(&format!("{{{{ {} }}}}", vec!["1"; DEEP].join(" + ")), "template-error", "templates/essay.html:1:1");
}

#[test]
fn templates_that_would_exhaust_memory_are_template_errors() {
    // tera's `range` made the vector whole; loops within loops multiplied.
    under_template("{% for i in range(end=1000000000) %}{% endfor %}", "template-error", "templates/essay.html");
    let cube =
        "{% for i in range(end=1000) %}{% for j in range(end=1000) %}{% for k in range(end=1000) %}{% endfor %}{% endfor %}{% endfor %}";
    under_template(cube, "template-error", "templates/essay.html");
    // A string doubled 64 times.
    let double = "{% set_global s = 'x' %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}{{ s | length }}";
    under_template(double, "template-error", "templates/essay.html:1:53");
    // A page of more than 256 MiB: 4 KiB a time, 100,000 times.
    let large = format!("{{% for i in range(end=100000) %}}{}{{% endfor %}}", "x".repeat(4096));
    under_template(&large, "template-error", "templates/essay.html");
}

/// `n` errors of the same kind, `each` written `n` times: check must report every one,
/// in time linear in their number (200,000 unterminated claims took 253 s, 100,000
/// citations 42 s). The guard of 30 s is generous: it is a hang guard, not a benchmark.
fn many_errors(each: &str, n: usize, code: &str) {
    let dir = site(&each.repeat(n), &[]);
    for format in ["human", "json"] {
        let (exit, stderr) = if format == "human" {
            run_binary(dir.path(), "check", Duration::from_secs(30))
        } else {
            run_json(dir.path(), Duration::from_secs(30))
        };
        assert_eq!(exit, 1, "{}", tail(&stderr));
        assert!(stderr.contains(&format!("{n} errors")) || stderr.matches(code).count() >= n, "{format}: {}", tail(&stderr));
    }
}

/// `countersign check --format json` on `root`: its exit code and stdout (the report).
fn run_json(root: &Path, timeout: Duration) -> (i32, String) {
    let bin = std::env::var_os("COUNTERSIGN_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_countersign").into());
    let mut child = Command::new(bin)
        .arg("--root")
        .arg(root)
        .args(["check", "--no-cache", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pipe = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        pipe.read_to_end(&mut s).map(|_| s)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            panic!("check --format json ran past the guard of {timeout:?} and was killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), String::from_utf8_lossy(&reader.join().unwrap().unwrap()).into_owned())
}

#[test]
fn many_unterminated_claims_are_reported_in_linear_time() {
    // One paragraph of 100,000 lines, each opening a claim no `}}` closes.
    many_errors("{{ g.value\n", DEEP, "claim-syntax");
    // 100,000 paragraphs.
    many_errors("{{ \n\n", DEEP, "claim-syntax");
    // 100,000 on one line.
    many_errors("{{ g.value ", DEEP, "claim-syntax");
}

#[test]
fn many_unknown_citations_are_reported_in_linear_time() {
    many_errors("[@nobody]\n\n", DEEP, "unknown-citation");
    many_errors("[@nobody] ", DEEP, "unknown-citation");
}

#[test]
fn many_disagreeing_claims_on_their_own_lines_are_reported_in_linear_time() {
    many_errors("{{ g.value = 1 }}\n\n", DEEP, "claim-mismatch");
}

#[test]
fn deeply_nested_markdown_is_markdown_too_deep() {
    for body in [
        format!("{} hi", ">".repeat(DEEP)),
        format!("{}a", "- ".repeat(DEEP)),
        format!("{}a", "1. ".repeat(DEEP)),
        format!("{}a", "> - ".repeat(DEEP)),
        nest("*", "*", DEEP),
        nest("**", "**", DEEP),
    ] {
        rejects(&body, &[], "markdown-too-deep", "11:");
    }
    // The 65th `>` is one too deep.
    rejects(&format!("{} hi", ">".repeat(DEEP)), &[], "markdown-too-deep", "11:65");
}

#[test]
fn deeply_nested_yaml_is_an_error_at_its_place() {
    let deep = nest("[", "]", DEEP).replace('x', "");
    let dir = site("Prose.", &[]);
    std::fs::write(dir.path().join("essays/a.md"), format!("---\ntitle: A\nx: {deep}\n---\n\nProse.\n")).unwrap();
    let (exit, stderr) = run_binary(dir.path(), "check", Duration::from_secs(60));
    assert_eq!(exit, 1, "{}", tail(&stderr));
    assert!(stderr.contains("error[bad-front-matter]") && stderr.contains("essays/a.md:3:"), "{}", tail(&stderr));
    assert!(run_in_thread(dir.path()).iter().any(|c| c.as_str() == "bad-front-matter"));
    let block = format!("```census\nid: h\nrun: welter.position\nwith: {deep}\n```");
    rejects(&block, &[], "bad-block", "14:");
    std::fs::write(dir.path().join("countersign.yaml"), format!("title: {deep}\n")).unwrap();
    let (exit, stderr) = run_binary(dir.path(), "check", Duration::from_secs(60));
    assert_eq!(exit, 1, "{}", tail(&stderr));
    assert!(stderr.contains("countersign.yaml:1:"), "{}", tail(&stderr));
}
