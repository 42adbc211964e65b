//! Tells the census crate's build script where this crate's sources are (as
//! `DEP_COUNTERSIGN_GAMES_SRC`), so it can fingerprint them: a census's cached results are
//! keyed by the hashes of the solver files it lists. Works from the workspace and from a
//! packaged copy alike, since the path is this crate's own.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    println!("cargo::metadata=src={dir}/src");
    println!("cargo::rerun-if-changed=build.rs");
}
