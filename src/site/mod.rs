//! The site: its configuration and its output folder.

pub mod config;
pub mod output;
