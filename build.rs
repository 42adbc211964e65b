//! The binary's build script: the commit it was built from, for `countersign --version`
//! (as ripgrep does), so a bug report or a CI log names the exact source.
//!
//! Sets `COUNTERSIGN_LONG_VERSION` to the version and `git rev-parse --short=10 HEAD`
//! ("0.1.0 (rev 1517138abc)") when the source is a git checkout with git installed, to the
//! version alone otherwise (a packaged crate, a tarball). The census fingerprints are
//! made by `crates/census/build.rs`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let git = |args: &[&str]| {
        let out = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
    };
    // A new commit or a switched branch changes HEAD or the ref it names. In a worktree
    // `.git` is a file: HEAD is in the worktree's own git folder and the refs in the
    // common one (a branch's ref may also be packed), so both are asked of git (with
    // `.git/HEAD` alone the script never ran again there, and `--version` named an old
    // commit).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]).map(PathBuf::from) {
        let common = git(&["rev-parse", "--git-common-dir"]).map_or_else(|| dir.clone(), PathBuf::from);
        println!("cargo::rerun-if-changed={}", dir.join("HEAD").display());
        if let Some(r) = std::fs::read_to_string(dir.join("HEAD")).ok().and_then(|h| h.strip_prefix("ref: ").map(|r| r.trim().to_string()))
        {
            println!("cargo::rerun-if-changed={}", common.join(r).display());
            println!("cargo::rerun-if-changed={}", common.join("packed-refs").display());
        }
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let long = match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(h) => format!("{version} (rev {h})"),
        None => version,
    };
    println!("cargo::rustc-env=COUNTERSIGN_LONG_VERSION={long}");
}
