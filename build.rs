//! Fingerprints each source module a census can depend on, so that the results cache is
//! invalidated by a change to a census's own solver and by nothing else.
//!
//! Writes `$OUT_DIR/fingerprints.rs`: a sorted table of (path relative to `src/`,
//! blake3 hex digest of the file's bytes) for every `.rs` file under `src/games` and
//! `src/census`.

use std::path::Path;

fn collect(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, base, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("rs") {
            let bytes = std::fs::read(&p).expect("read source file");
            let rel = p.strip_prefix(base).expect("under src").to_string_lossy().replace('\\', "/");
            out.push((rel, blake3::hash(&bytes).to_hex().to_string()));
        }
    }
}

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
