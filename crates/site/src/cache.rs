//! Content-addressed census results under `.countersign-cache/`.
//!
//! Key = blake3(census name, canonical parameters, fingerprint of that census's own
//! sources). Each entry is one JSON file `<key>.json` holding the name, the parameters,
//! the result and the blake3 hash of the result's JSON, written to a temporary file beside
//! it and renamed into place, so a killed writer leaves either the old entry or none.
//!
//! Entries are verified on every read: an entry that does not parse, whose name,
//! parameters or fingerprint differ from the call's, or whose result does not match its
//! hash (edited by hand, damaged on disk) is [`Lookup::Bad`]: the caller recomputes it,
//! replaces it, and reports it. The hash guards against damage and hand edits, not
//! against someone who can write the cache and recompute the hash; the publishing workflow
//! therefore recomputes every census on pushes to `main` (the guide's "Checking in CI", `docs/guide/essays/ci.md`, "The results cache").

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The cache's folder under the site root.
pub const DIR: &str = ".countersign-cache";

/// The cache key of a census call: 64 hex digits.
pub fn key(census: &str, params: &Value, fingerprint: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(census.as_bytes());
    h.update(b"\0");
    h.update(serde_json::to_string(params).unwrap_or_default().as_bytes());
    h.update(b"\0");
    h.update(fingerprint.as_bytes());
    h.finalize().to_hex().to_string()
}

/// 64 hex digits: blake3 of `result` serialized as compact JSON (keys in stored order).
fn result_hash(result: &Value) -> String {
    blake3::hash(&serde_json::to_vec(result).unwrap_or_default()).to_hex().to_string()
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    census: String,
    params: Value,
    fingerprint: String,
    result_hash: String,
    result: Value,
}

/// True for an entry of the format before `result_hash`: exactly census, params,
/// fingerprint and result.
fn written_before_hashes(v: &Value) -> bool {
    v.as_object().is_some_and(|o| o.len() == 4 && ["census", "params", "fingerprint", "result"].iter().all(|k| o.contains_key(*k)))
}

/// What the cache holds for a call.
#[derive(Debug, PartialEq)]
pub enum Lookup {
    /// A verified result.
    Hit(Value),
    /// No entry (or no cache).
    Miss,
    /// An entry that cannot be trusted; the sentence says why ("its result does not match
    /// its hash"). Recompute, and report it.
    Bad(String),
}

/// A results cache in one folder (or none: every lookup misses, nothing is stored).
#[derive(Clone, Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// The cache in `dir` (created on first store).
    pub fn at(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: Some(dir.into()) }
    }

    /// No cache (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache { dir: None }
    }

    /// The folder, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{key}.json")))
    }

    /// The cached result for `key`, when present, readable, made by the same call and
    /// matching its hash. Reads at most [`crate::source::TEXT_LIMIT`] × 16 bytes (a
    /// larger entry is bad, not read).
    pub fn lookup(&self, key: &str, census: &str, params: &Value, fingerprint: &str) -> Lookup {
        let Some(path) = self.path(key) else { return Lookup::Miss };
        let bytes = match crate::source::read_source(&path, crate::source::TEXT_LIMIT * 16) {
            Ok(b) => b,
            Err(crate::source::SourceError::NotFound) => return Lookup::Miss,
            Err(e) => return Lookup::Bad(format!("it cannot be read: {e}")),
        };
        let e: Entry = match serde_json::from_slice(&bytes) {
            Ok(e) => e,
            // An entry written before entries carried a hash: replaced without a word.
            Err(_) if serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| written_before_hashes(&v)) => return Lookup::Miss,
            Err(e) => return Lookup::Bad(format!("it is not a cache entry ({e})")),
        };
        if e.census != census || &e.params != params || e.fingerprint != fingerprint {
            return Lookup::Bad("it was made by another call".into());
        }
        if result_hash(&e.result) != e.result_hash {
            return Lookup::Bad("its result does not match its hash".into());
        }
        Lookup::Hit(e.result)
    }

    /// [`Cache::lookup`]'s result, when it is a hit.
    pub fn get(&self, key: &str, census: &str, params: &Value, fingerprint: &str) -> Option<Value> {
        match self.lookup(key, census, params, fingerprint) {
            Lookup::Hit(v) => Some(v),
            _ => None,
        }
    }

    /// Store `result` under `key`. Errors are returned for the caller to report as a
    /// warning: a cache that cannot be written never fails a build.
    pub fn put(&self, key: &str, census: &str, params: &Value, fingerprint: &str, result: &Value) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (self.dir.as_ref(), self.path(key)) else { return Ok(()) };
        std::fs::create_dir_all(dir)?;
        let entry = Entry {
            census: census.into(),
            params: params.clone(),
            fingerprint: fingerprint.into(),
            result_hash: result_hash(result),
            result: result.clone(),
        };
        let bytes = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
        // A new file of a random name (`.KEY.XXXXXX.tmp`, what `clean` removes), created
        // exclusively, renamed into place; removed when anything fails.
        let mut tmp = tempfile::Builder::new().prefix(&format!(".{key}.")).suffix(".tmp").tempfile_in(dir)?;
        tmp.write_all(&bytes)?;
        tmp.persist(&path)?;
        Ok(())
    }

    /// Remove every entry, and the folder. When the folder is a symbolic link, the link
    /// and the folder it leads to stay, and only the entries in it (`*.json`, and the
    /// temporary files of killed writers) are removed. Returns how many entries (`*.json`)
    /// were removed.
    pub fn clean(&self) -> std::io::Result<usize> {
        let Some(dir) = &self.dir else { return Ok(0) };
        if !dir.exists() {
            return Ok(0);
        }
        let is_entry = |p: &Path| p.extension().is_some_and(|x| x == "json");
        let files: Vec<PathBuf> = std::fs::read_dir(dir)?.filter_map(Result::ok).map(|e| e.path()).collect();
        let n = files.iter().filter(|p| is_entry(p)).count();
        if dir.symlink_metadata()?.file_type().is_symlink() {
            let stray =
                |p: &Path| p.file_name().is_some_and(|f| f.to_string_lossy().starts_with('.')) && p.extension().is_some_and(|x| x == "tmp");
            for p in files.iter().filter(|p| is_entry(p) || stray(p)) {
                std::fs::remove_file(p)?;
            }
        } else {
            std::fs::remove_dir_all(dir)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Whatever stands at a name a writer might pick for its temporary file (here a link to
    /// a file outside the cache, at the name of this process's id) is never written
    /// through, and the entry put in place is a file of its own.
    #[cfg(unix)]
    #[test]
    fn a_put_never_writes_through_a_file_at_a_temporary_name() {
        let d = tempfile::tempdir().unwrap();
        let (dir, outside) = (d.path().join("c"), d.path().join("outside.txt"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&outside, "keep").unwrap();
        let c = Cache::at(&dir);
        let p = json!({"n": 3});
        let k = key("a.b", &p, "f1");
        std::os::unix::fs::symlink(&outside, dir.join(format!(".{k}.{}.tmp", std::process::id()))).unwrap();
        c.put(&k, "a.b", &p, "f1", &json!({"x": 1})).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert!(std::fs::symlink_metadata(dir.join(format!("{k}.json"))).unwrap().file_type().is_file());
        assert_eq!(c.get(&k, "a.b", &p, "f1"), Some(json!({"x": 1})));
    }

    #[test]
    fn hit_miss_and_corruption() {
        let d = tempfile::tempdir().unwrap();
        let c = Cache::at(d.path().join("c"));
        let p = json!({"n": 3});
        let k = key("a.b", &p, "f1");
        assert!(c.get(&k, "a.b", &p, "f1").is_none());
        c.put(&k, "a.b", &p, "f1", &json!({"x": 1})).unwrap();
        assert_eq!(c.get(&k, "a.b", &p, "f1"), Some(json!({"x": 1})));
        // A different fingerprint is a different key, and a mismatched entry is a miss.
        assert_ne!(key("a.b", &p, "f2"), k);
        assert!(c.get(&k, "a.b", &p, "f2").is_none());
        // Truncated entry: a miss, and a put replaces it.
        let path = d.path().join("c").join(format!("{k}.json"));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert!(c.get(&k, "a.b", &p, "f1").is_none());
        c.put(&k, "a.b", &p, "f1", &json!({"x": 2})).unwrap();
        assert_eq!(c.get(&k, "a.b", &p, "f1"), Some(json!({"x": 2})));
        // An entry of the format before hashes is a plain miss (no warning).
        std::fs::write(&path, br#"{"census":"a.b","params":{"n":3},"fingerprint":"f1","result":{"x":1}}"#).unwrap();
        assert_eq!(c.lookup(&k, "a.b", &p, "f1"), Lookup::Miss);
        // The same with its result edited after a hash was added is bad.
        c.put(&k, "a.b", &p, "f1", &json!({"x": 2})).unwrap();
        let edited = std::fs::read_to_string(&path).unwrap().replace(r#"{"x":2}"#, r#"{"x":3}"#);
        std::fs::write(&path, edited).unwrap();
        assert!(matches!(c.lookup(&k, "a.b", &p, "f1"), Lookup::Bad(_)));
        assert_eq!(c.clean().unwrap(), 1);
        assert!(!d.path().join("c").exists());
    }
}
