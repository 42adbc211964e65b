//! `countersign figures [KIND]`: the figure reference, generated from each kind's table.

use super::{fail, Failure, Outcome};
use crate::console::out;

/// Print the reference of every figure kind, or of `kind`; an unknown kind is a usage
/// error (exit 2).
pub fn run(kind: Option<&str>) -> Outcome {
    match countersign_render::figures::reference::reference(kind) {
        Ok(text) => {
            out(&text);
            Ok(())
        }
        Err(e) => fail(e).map_err(|_| Failure::Usage),
    }
}
