//! countersign: a literate static-site generator for essays on combinatorial games.
//!
//! See `docs/ARCHITECTURE.md` for the map. Data flows one way:
//! `games` → `census` → `check` → `render` → `site`; `main.rs` only wires the CLI.

pub mod census;
pub mod games;
pub mod yaml;
pub mod content;
pub mod diag;
pub mod check;
pub mod cache;
pub mod fingerprint;
pub mod site;
pub mod figures;
pub mod render;
pub mod pipeline;
pub mod bless;
pub mod cli_run;
pub mod report;
pub mod strict;
pub mod scaffold;
pub mod watch;
