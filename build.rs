//! The binary's build script: the commit it was built from, for `countersign --version`
//! (as ripgrep does), so a bug report or a CI log names the exact source.
//!
//! Sets `COUNTERSIGN_LONG_VERSION` to the version and `git rev-parse --short=10 HEAD`
//! ("0.1.0 (rev 1517138abc)") when the source is a git checkout with git installed, to the
//! version alone otherwise (a packaged crate, a tarball). The census fingerprints are
//! made by `crates/census/build.rs`.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // A new commit or a switched branch changes HEAD or the ref it names.
    if Path::new(".git/HEAD").exists() {
        println!("cargo::rerun-if-changed=.git/HEAD");
        if let Ok(head) = std::fs::read_to_string(".git/HEAD") {
            if let Some(r) = head.strip_prefix("ref: ") {
                println!("cargo::rerun-if-changed=.git/{}", r.trim());
            }
        }
    }
    let hash = Command::new("git").args(["rev-parse", "--short=10", "HEAD"]).output().ok().filter(|o| o.status.success());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let hash = hash.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).filter(|h| !h.is_empty());
    let long = match hash {
        Some(h) => format!("{version} (rev {h})"),
        None => version,
    };
    println!("cargo::rustc-env=COUNTERSIGN_LONG_VERSION={long}");
}
