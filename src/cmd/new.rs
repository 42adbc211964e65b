//! `countersign new NAME`: a new site that builds at once.

use std::path::Path;

use super::{fail, Outcome};
use crate::console::err;

/// Create the site folder `name` (it must not exist, or be empty) with its files.
pub fn run(name: &Path) -> Outcome {
    match crate::scaffold::create(name) {
        Ok(files) => {
            err(&format!("created {} ({}); now: cd {} && countersign build\n", name.display(), files.join(", "), name.display()));
            Ok(())
        }
        Err(e) => fail(e),
    }
}
