//! Content-addressed census results under `.countersign-cache/`.
//!
//! Key = blake3(census name, canonical parameters, fingerprint of that census's own
//! sources). Each entry is one JSON file `<key>.json` holding the name, the parameters and
//! the result, written to a temporary file beside it and renamed into place, so a killed
//! writer leaves either the old entry or none. An entry that does not parse, or whose name
//! or parameters differ from the call's, is treated as missing: recomputed and replaced.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

#[derive(Serialize, Deserialize)]
struct Entry {
    census: String,
    params: Value,
    fingerprint: String,
    result: Value,
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

    /// The cached result for `key`, when present, readable and made by the same call.
    pub fn get(&self, key: &str, census: &str, params: &Value, fingerprint: &str) -> Option<Value> {
        let bytes = std::fs::read(self.path(key)?).ok()?;
        let e: Entry = serde_json::from_slice(&bytes).ok()?;
        (e.census == census && &e.params == params && e.fingerprint == fingerprint).then_some(e.result)
    }

    /// Store `result` under `key`. Errors are returned for the caller to report as a
    /// warning: a cache that cannot be written never fails a build.
    pub fn put(&self, key: &str, census: &str, params: &Value, fingerprint: &str, result: &Value) -> std::io::Result<()> {
        let (Some(dir), Some(path)) = (self.dir.as_ref(), self.path(key)) else { return Ok(()) };
        std::fs::create_dir_all(dir)?;
        let entry = Entry { census: census.into(), params: params.clone(), fingerprint: fingerprint.into(), result: result.clone() };
        let bytes = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
        let tmp = dir.join(format!(".{key}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Remove every entry (and the folder). Returns how many entries there were.
    pub fn clean(&self) -> std::io::Result<usize> {
        let Some(dir) = &self.dir else { return Ok(0) };
        if !dir.exists() {
            return Ok(0);
        }
        let n = std::fs::read_dir(dir)?.filter_map(Result::ok).filter(|e| e.path().extension().is_some_and(|x| x == "json")).count();
        std::fs::remove_dir_all(dir)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert_eq!(c.clean().unwrap(), 1);
        assert!(!d.path().join("c").exists());
    }
}
