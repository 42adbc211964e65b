//! Reading `countersign.yaml` (its parsing is the core crate's [`Config::parse`]).

use std::path::Path;

use countersign_core::config::{Config, FILE};
use countersign_core::diag::{Code, Diagnostic};

use crate::source::{read_site_file, SourceError, TEXT_LIMIT};

/// Why the configuration could not be loaded, and its text when it could be read.
pub type LoadError = (Diagnostic, Option<String>);

/// Read `root/countersign.yaml`; a missing file gives the defaults. Errors (unreadable,
/// not UTF-8, bad YAML, unknown keys) are a diagnostic at their line; the text is returned
/// for rendering diagnostics.
pub fn load(root: &Path) -> Result<(Config, Option<String>), Box<LoadError>> {
    let real_root = crate::source::canonical_root(root);
    let text = match read_site_file(root, &real_root, FILE, TEXT_LIMIT) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => return Err(Box::new((Diagnostic::error(Code::NotUtf8, FILE, 0..0, "countersign.yaml is not UTF-8"), None))),
        },
        Err(SourceError::NotFound) => return Ok((Config::default(), None)),
        Err(e) => return Err(Box::new((crate::source::read_error(FILE, &e), None))),
    };
    match Config::parse(&text) {
        Ok(c) => Ok((c, Some(text))),
        Err(d) => Err(Box::new((*d, Some(text)))),
    }
}
