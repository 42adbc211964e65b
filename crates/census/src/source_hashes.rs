//! How `build.rs` fingerprints the solver sources, in a file of its own so that the tests
//! of [`crate::fingerprint`] run the very same code on a CRLF copy of the sources: a
//! checkout with CRLF line endings (git's `core.autocrlf` on Windows) must get the same
//! fingerprints, so the same cache keys and `results.json`, as an LF one.

use std::path::Path;

/// `bytes` with every CRLF pair read as LF. A lone CR stays: git's `core.autocrlf` never
/// makes one, and turning it into LF would merge two different files.
pub fn lf_only(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if !(b == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            out.push(b);
        }
    }
    out
}

/// Appends (`name/` then the path relative to `dir` with `/` separators, blake3 hex of the
/// file's bytes read by [`lf_only`]) for every `.rs` file under `dir`, in sorted order. A folder that
/// cannot be read adds nothing; a file that cannot be read panics (this runs in the build
/// script and in tests only).
pub fn collect_as(dir: &Path, name: &str, out: &mut Vec<(String, String)>) {
    collect(dir, dir, name, out)
}

fn collect(dir: &Path, base: &Path, name: &str, out: &mut Vec<(String, String)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, base, name, out);
        } else if p.extension().and_then(|e| e.to_str()) == Some("rs") {
            let bytes = lf_only(&std::fs::read(&p).expect("read source file"));
            let rel = p.strip_prefix(base).expect("under base").to_string_lossy().replace('\\', "/");
            out.push((format!("{name}/{rel}"), blake3::hash(&bytes).to_hex().to_string()));
        }
    }
}
