//! Fingerprints each source module a census can depend on, so that the results cache is
//! invalidated by a change to a census's own solver and by nothing else.
//!
//! Writes `$OUT_DIR/fingerprints.rs`: a sorted table of (path relative to `src/`,
//! blake3 hex digest of the file's bytes, line endings read as LF) for every `.rs` file
//! under `src/games` and `src/census`. A checkout with CRLF line endings (git's
//! `core.autocrlf` on Windows) gets the same fingerprints, so the same cache keys and the
//! same `results.json`, as an LF one.

use std::path::Path;

#[path = "src/source_hashes.rs"]
mod source_hashes;
use source_hashes::collect;

fn main() {
    let src = Path::new("src");
    let mut files = Vec::new();
    for sub in ["games", "census"] {
        println!("cargo:rerun-if-changed=src/{sub}");
        collect(&src.join(sub), src, &mut files);
    }
    files.sort();
    let mut code = String::from(
        "/// (path under src/, blake3 of its bytes) for every game and census module.\n\
         pub static SOURCE_HASHES: &[(&str, &str)] = &[\n",
    );
    for (path, hash) in &files {
        code.push_str(&format!("    ({path:?}, {hash:?}),\n"));
    }
    code.push_str("];\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("fingerprints.rs");
    std::fs::write(out, code).expect("write fingerprints.rs");
}
