//! countersign's core: what an essay is and what its claims say, and the checker that
//! compares them with computed values.
//!
//! - [`diag`]: diagnostics as data (a code, a file, a byte span, labels, notes).
//! - [`yaml`]: the one user of serde_yaml (archived upstream) and of saphyr-parser, whose
//!   events place every key and value a diagnostic points at.
//! - [`content`]: essays parsed from text — front matter, census and figure blocks,
//!   claims — every piece with its byte span.
//! - [`config`]: the site's `countersign.yaml`, parsed from its text.
//! - [`check`]: paths into results, stated forms, expressions, exact rationals.
//! - [`strict`]: numbers a reader sees that no claim covers.
//!
//! Architecture invariant: this crate knows no game (no census, no solver) and does no
//! I/O: every function takes text and returns data. Loading files is the site crate's.

#![forbid(unsafe_code)]

pub mod check;
pub mod config;
pub mod content;
pub mod diag;
pub mod strict;
pub mod text;
pub mod yaml;
