//! `countersign new NAME`: a new site that builds at once.

use std::path::Path;

use super::{fail, Failure, Outcome};
use crate::console::err;

/// Create the site folder `name` (it must not exist, or be empty) with its files. A
/// `--root` (`root`) names an existing site and is refused here (exit 2), never ignored.
pub fn run(name: &Path, root: Option<&Path>) -> Outcome {
    if let Some(root) = root {
        err(&format!(
            "error: `new` makes the site in NAME, relative to the current folder; `--root {}` names an existing site and does not apply here: write `countersign new {}`\n",
            root.display(),
            root.join(name).display()
        ));
        return Err(Failure::Usage);
    }
    match crate::scaffold::create(name) {
        Ok(files) => {
            err(&format!("created {} ({}); now: cd {} && countersign build\n", name.display(), files.join(", "), name.display()));
            Ok(())
        }
        Err(e) => fail(e),
    }
}
