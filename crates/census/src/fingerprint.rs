//! Fingerprints of the solver sources, computed by `build.rs`: a census's cached results
//! are keyed by the hashes of exactly the source files it lists in
//! [`Census::SOURCES`](crate::Census::SOURCES).

include!(concat!(env!("OUT_DIR"), "/fingerprints.rs"));

/// Version of the result format; bump it to invalidate every cached result at once.
pub const RESULT_FORMAT: &str = "countersign-results-1";

/// blake3 hex digest of `src/<path>` as it was at build time, if that file exists.
pub fn source_hash(path: &str) -> Option<&'static str> {
    SOURCE_HASHES.iter().find(|(p, _)| *p == path).map(|(_, h)| *h)
}

/// The fingerprint of a census: blake3 over the result format and, for each of `sources`
/// in sorted order, its path and hash ("missing" for a file not found, which a test
/// forbids). Hex, 64 characters.
pub fn of_sources(sources: &[&str]) -> String {
    of_sources_in(SOURCE_HASHES, sources)
}

/// [`of_sources`] over a given table of (path, hash), for tests that change one hash.
pub fn of_sources_in(table: &[(&str, &str)], sources: &[&str]) -> String {
    let hash_of = |p: &str| table.iter().find(|(q, _)| *q == p).map(|(_, h)| *h);
    let mut sorted: Vec<&str> = sources.to_vec();
    sorted.sort_unstable();
    let mut h = blake3::Hasher::new();
    h.update(RESULT_FORMAT.as_bytes());
    for s in sorted {
        h.update(s.as_bytes());
        h.update(b"\0");
        h.update(hash_of(s).unwrap_or("missing").as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

pub use crate::source_hashes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crlf_checkout_fingerprints_like_an_lf_one() {
        // The build script's own hashing, run on a copy of the games crate's and this
        // crate's sources with every line ending turned into CRLF, gives the table this
        // build was made with.
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let src = |logical: &str| match logical.split_once('/') {
            Some(("games", rest)) => here.join("../games/src").join(rest),
            Some(("census", rest)) => here.join("src").join(rest),
            _ => panic!("{logical} is neither games/ nor census/"),
        };
        let copy = std::env::temp_dir().join(format!("countersign-crlf-{}", std::process::id()));
        let mut crlf = Vec::new();
        for (path, _) in SOURCE_HASHES {
            let lf = String::from_utf8(std::fs::read(src(path)).unwrap()).unwrap().replace("\r\n", "\n");
            let to = copy.join(path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(&to, lf.replace('\n', "\r\n")).unwrap();
        }
        for sub in ["games", "census"] {
            super::source_hashes::collect_as(&copy.join(sub), sub, &mut crlf);
        }
        std::fs::remove_dir_all(&copy).ok();
        crlf.sort();
        let table: Vec<(String, String)> = SOURCE_HASHES.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect();
        assert_eq!(crlf, table);
        assert_eq!(super::source_hashes::lf_only(b"a\r\nb\rc\r\n"), b"a\nb\rc\n");
    }

    #[test]
    fn changing_one_module_changes_exactly_the_censuses_that_list_it() {
        for (changed, _) in SOURCE_HASHES {
            let table: Vec<(&str, &str)> = SOURCE_HASHES.iter().map(|&(p, h)| (p, if p == *changed { "edited" } else { h })).collect();
            for c in crate::REGISTRY {
                let before = of_sources(c.sources());
                let after = of_sources_in(&table, c.sources());
                assert_eq!(before != after, c.sources().contains(changed), "{} and an edit to {changed}", c.name());
            }
        }
    }

    #[test]
    fn every_census_names_existing_sources() {
        for c in crate::REGISTRY {
            assert!(!c.sources().is_empty(), "{} lists no sources", c.name());
            for s in c.sources() {
                assert!(super::source_hash(s).is_some(), "{} lists {s}, which build.rs did not find", c.name());
            }
        }
    }
}
