//! The layers the workspace promises (`docs/ARCHITECTURE.md`), checked from the sources:
//! which crate may use which, that the mathematics uses no serde and no web stack, and
//! that no two modules of a crate import each other, directly or around a circle.
//!
//! Cargo already refuses a circle between crates; these tests refuse an arrow that runs
//! back up (the core reaching for a census, rendering for the site) and circles inside
//! one crate, which Cargo allows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate and the workspace crates it may depend on: games and core at the bottom,
/// census on both, render on core alone (it knows no game), site on all but games.
const ALLOWED: &[(&str, &[&str])] =
    &[("games", &[]), ("core", &[]), ("census", &["games", "core"]), ("render", &["core"]), ("site", &["core", "census", "render"])];

/// The dependencies the mathematics may have: no serde, no I/O, no web stack.
const GAMES_MAY_USE: &[&str] = &["rayon", "rustc-hash"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The names in a manifest's `[dependencies]` table (not dev- or build-dependencies).
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut inside = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]" || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap().trim();
            names.push(name.to_string());
        }
    }
    names
}

#[test]
fn each_crate_uses_only_the_layers_below_it() {
    let crates: BTreeSet<String> =
        std::fs::read_dir(root().join("crates")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    let named: BTreeSet<String> = ALLOWED.iter().map(|(c, _)| c.to_string()).collect();
    assert_eq!(crates, named, "every crate under crates/ has its place in ALLOWED");
    for (krate, allowed) in ALLOWED {
        let used: Vec<String> = dependencies(&root().join("crates").join(krate).join("Cargo.toml"))
            .into_iter()
            .filter_map(|d| d.strip_prefix("countersign-").map(str::to_string))
            .collect();
        for u in &used {
            assert!(allowed.contains(&u.as_str()), "countersign-{krate} depends on countersign-{u}, which is not below it");
        }
    }
}

#[test]
fn the_mathematics_uses_no_serde_and_no_web_stack() {
    for d in dependencies(&root().join("crates/games/Cargo.toml")) {
        assert!(GAMES_MAY_USE.contains(&d.as_str()), "countersign-games depends on {d}");
    }
}

/// The module path of a source file under a crate's `src/` (`check/forms.rs` →
/// `[check, forms]`; `lib.rs` and `mod.rs` name their folder).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    parts
}

/// The paths `text` (the file of module `me`) names through `crate::` or `super::`, as
/// absolute paths of lower-case segments (modules, and perhaps an item after them). Test
/// modules (from the first `#[cfg(test)]` on) and comments are not read.
fn references(me: &[String], text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim_start).take_while(|l| !l.starts_with("#[cfg(test)]")) {
        if line.starts_with("//") {
            continue;
        }
        for (at, _) in line.match_indices("crate::").chain(line.match_indices("super::")) {
            if line[..at].ends_with("super::") || line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue; // the middle of a longer path, or of a name
            }
            let mut rest = &line[at..];
            let mut base: Vec<String> = me.to_vec();
            if let Some(r) = rest.strip_prefix("crate::") {
                base.clear();
                rest = r;
            }
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let heads: Vec<&str> = match rest.strip_prefix('{') {
                Some(inner) => inner.split('}').next().unwrap_or("").split(',').map(str::trim).collect(),
                None => vec![rest],
            };
            for h in heads {
                let mut path = base.clone();
                for seg in h.split("::") {
                    let seg: String = seg.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                    if seg.is_empty() || seg == "self" || !seg.starts_with(|c: char| c.is_ascii_lowercase()) {
                        break;
                    }
                    path.push(seg);
                }
                out.push(path);
            }
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if e.is_dir() {
            rust_files(&e, out);
        } else if e.extension().is_some_and(|x| x == "rs") {
            out.push(e);
        }
    }
}

/// The edges between sibling modules of the crate whose sources are `src`: `a → b` when
/// a file in `a` names something in `b` and `a`, `b` share a parent. A child naming its
/// parent or the parent its child is no edge.
fn sibling_edges(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for f in &files {
        let me = module_of(src, f);
        for mut target in references(&me, &std::fs::read_to_string(f).unwrap()) {
            while !target.is_empty() && !modules.contains(&target) {
                target.pop();
            }
            let common = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == me.len() || common == target.len() {
                continue;
            }
            edges.entry(me[..=common].to_vec()).or_default().insert(target[..=common].to_vec());
        }
    }
    edges
}

/// A circle in `edges`, as the modules around it, if there is one.
fn circle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        stack: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            return Some(stack[at..].iter().chain([n]).map(|m| m.join("::")).collect());
        }
        if !done.insert(n.clone()) {
            return None;
        }
        stack.push(n.clone());
        for next in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_of_a_crate_import_each_other_around_a_circle() {
    let mut crates = vec![root().join("src")];
    for (c, _) in ALLOWED {
        crates.push(root().join("crates").join(c).join("src"));
    }
    for src in crates {
        let edges = sibling_edges(&src);
        assert!(!edges.is_empty() || src.ends_with("games/src"), "no imports found under {}: the scanner is broken", src.display());
        if let Some(c) = circle(&edges) {
            panic!("a circle of imports in {}: {}", src.display(), c.join(" → "));
        }
    }
}

#[test]
fn the_circle_finder_finds_a_circle() {
    // forms → ratio → forms, as check/ once had.
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let edges = BTreeMap::from([
        (m("check::forms"), BTreeSet::from([m("check::ratio")])),
        (m("check::ratio"), BTreeSet::from([m("check::forms")])),
    ]);
    assert_eq!(circle(&edges).unwrap(), ["check::forms", "check::ratio", "check::forms"]);
    let refs = references(
        &m("check::ratio"),
        "use super::forms::{parse_num, Num};\nuse super::{rational::Q, words};\nlet x = crate::diag::Code::X;",
    );
    assert!(refs.contains(&m("check::forms")) && refs.contains(&m("check::rational")) && refs.contains(&m("check::words")), "{refs:?}");
    assert!(refs.contains(&m("diag::Code")) || refs.contains(&m("diag")), "{refs:?}");
}
