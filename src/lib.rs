//! The parts of the `countersign` binary that its tests share: the embedded theme.
//!
//! The work is done by the workspace's crates, each a layer that may use only those below
//! it (`docs/ARCHITECTURE.md`): `countersign-games` (the mathematics),
//! `countersign-core` (diagnostics, YAML, essays, claims, the checker),
//! `countersign-census` (the census contract and registry), `countersign-render` (HTML,
//! MathML, figures, pages) and `countersign-site` (loading, computing, the cache, the
//! publish). The binary (`src/main.rs`, one file a command under `src/cmd/`, and
//! `src/watch/`) wires them to the command line.

#![forbid(unsafe_code)]

pub mod theme;

/// The theme built into the binary: this repository's `templates/` and `static/`.
pub const THEME: countersign_render::Theme = countersign_render::Theme { templates: theme::TEMPLATES, statics: theme::STATICS };
