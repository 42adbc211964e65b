//! `countersign cache …`: the results cache under `.countersign-cache/`.

use std::path::Path;

use countersign_site::cache::Cache;
use countersign_site::pipeline;

use super::{count, fail, Outcome};
use crate::console::err;

/// `countersign cache clean`: remove every cached result of the site at `root`.
pub fn clean(root: &Path) -> Outcome {
    match Cache::at(pipeline::cache_dir(root)).clean() {
        Ok(n) => {
            err(&format!("removed {}\n", count(n, "cached result")));
            Ok(())
        }
        Err(e) => fail(format!("cannot clean the cache: {e}")),
    }
}
