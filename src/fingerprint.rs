//! Fingerprints of the solver sources, computed by `build.rs`: a census's cached results
//! are keyed by the hashes of exactly the source files it lists in
//! [`Census::SOURCES`](crate::census::Census::SOURCES).

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
    let mut sorted: Vec<&str> = sources.to_vec();
    sorted.sort_unstable();
    let mut h = blake3::Hasher::new();
    h.update(RESULT_FORMAT.as_bytes());
    for s in sorted {
        h.update(s.as_bytes());
        h.update(b"\0");
        h.update(source_hash(s).unwrap_or("missing").as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_census_names_existing_sources() {
        for c in crate::census::REGISTRY {
            assert!(!c.sources().is_empty(), "{} lists no sources", c.name());
            for s in c.sources() {
                assert!(super::source_hash(s).is_some(), "{} lists {s}, which build.rs did not find", c.name());
            }
        }
    }
}
