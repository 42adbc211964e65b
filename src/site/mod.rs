//! The site: its configuration, the other files a build reads, and its output folder.

pub mod censuses;
pub mod config;
pub mod files;
pub mod images;
pub mod output;
