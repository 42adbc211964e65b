//! countersign's site: everything that touches the disk, and the stages between.
//!
//! - [`source`]: the one boundary through which every source file is read.
//! - [`essays`], [`config`], [`files`], [`images`], [`censuses`]: the load stage — essays,
//!   `countersign.yaml`, templates, static files, `references.yaml`, images and the site's
//!   own censuses, read once per build.
//! - [`pipeline`]: load → plan → compute → check → render, each a function of data.
//! - [`cache`]: content-addressed census results under `.countersign-cache/`.
//! - [`output`]: the atomic publish of a rendered site.
//! - [`bless`], [`report`]: `check --bless` (the one other writer) and the JSON report.
//!
//! Architecture invariant: only the load stage reads and only [`output`] writes; plan,
//! check and render take data and return data (compute also reads and fills the cache).

#![forbid(unsafe_code)]

pub mod bless;
pub mod cache;
pub mod censuses;
pub mod config;
pub mod essays;
pub mod files;
pub mod images;
pub mod output;
pub mod pipeline;
pub mod report;
pub mod source;

pub use countersign_render::{Output, SiteFiles, Theme};
