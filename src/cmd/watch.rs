//! `countersign watch`: the thin command over [`crate::watch::serve`].

use super::{fail, Outcome};

/// Serve and rebuild until Ctrl-C; a failure to start (port taken, no site) is exit 1.
pub fn run(opts: &crate::watch::Options) -> Outcome {
    crate::watch::serve(opts).or_else(fail)
}
