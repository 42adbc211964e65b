//! countersign: a literate static-site generator for essays on combinatorial games.
//!
//! See `docs/ARCHITECTURE.md` for the map. Data flows one way:
//! `games` → `census` → `check` → `render` → `site`; `main.rs` only wires the CLI.

// No unsafe code: the directory exchange, the fault tests' self-kill and the errno and
// open flags go through rustix.
#![forbid(unsafe_code)]

pub mod bless;
pub mod cache;
pub mod census;
pub mod check;
pub mod cli_run;
pub mod console;
pub mod content;
pub mod diag;
pub mod figures;
pub mod fingerprint;
pub mod games;
pub mod pipeline;
pub mod render;
pub mod report;
pub mod scaffold;
pub mod site;
pub mod source;
pub mod strict;
pub mod text;
pub mod watch;
pub mod yaml;
