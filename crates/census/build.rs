//! Fingerprints each source module a census can depend on, so that the results cache is
//! invalidated by a change to a census's own solver and by nothing else.
//!
//! Writes `$OUT_DIR/fingerprints.rs`: a sorted table of (logical path, blake3 hex digest of
//! the file's bytes, line endings read as LF) for every `.rs` file of the games crate (as
//! `games/…`, found through `DEP_COUNTERSIGN_GAMES_SRC`, which its build script sets) and of
//! this crate (as `census/…`). A checkout with CRLF line endings (git's `core.autocrlf` on
//! Windows) gets the same fingerprints, so the same cache keys and the same
//! `results.json`, as an LF one.

use std::path::{Path, PathBuf};

#[path = "src/source_hashes.rs"]
mod source_hashes;
use source_hashes::collect_as;

fn main() {
    let games = PathBuf::from(std::env::var("DEP_COUNTERSIGN_GAMES_SRC").expect("the games crate's build script sets its source folder"));
    let census = Path::new("src").to_path_buf();
    println!("cargo::rerun-if-changed=src");
    println!("cargo::rerun-if-changed={}", games.display());
    let mut files = Vec::new();
    collect_as(&games, "games", &mut files);
    collect_as(&census, "census", &mut files);
    files.sort();
    let mut code = String::from(
        "/// (logical path `games/…` or `census/…`, blake3 of its bytes) for every game and census module.\n\
         pub static SOURCE_HASHES: &[(&str, &str)] = &[\n",
    );
    for (path, hash) in &files {
        code.push_str(&format!("    ({path:?}, {hash:?}),\n"));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("fingerprints.rs");
    std::fs::write(out, code).expect("write fingerprints.rs");
}
