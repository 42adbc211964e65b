//! One file a command (`build.rs` is `countersign build`, …), as Zola's `src/cmd/`: each
//! parses nothing (clap did), calls the library, prints, and says how it ended.

pub mod build;
pub mod cache;
pub mod check;
pub mod explain;
pub mod figures;
pub mod list;
pub mod new;
pub mod outline;
pub mod run;
pub mod watch;

use countersign_core::diag::{Diagnostic, Sources};

use crate::console::err;

/// How a command that did not succeed ended; `main` makes it the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A claim failed, the site has an error, or something could not be read or written:
    /// exit 1 (the diagnostics or the message are printed already).
    Failed,
    /// The command line asks for something that does not exist (an unknown figure kind):
    /// exit 2.
    Usage,
}

/// What a command returns.
pub type Outcome = Result<(), Failure>;

/// Print `message` as an error line and fail.
pub fn fail(message: impl std::fmt::Display) -> Outcome {
    err(&format!("error: {message}\n"));
    Err(Failure::Failed)
}

/// Print `diags` (if any) with their sources.
pub fn print_diags(sources: &Sources, diags: &[Diagnostic], color: bool) {
    if !diags.is_empty() {
        err(&sources.render(diags, color));
    }
}

pub use countersign_core::text::count;

/// "2 errors, 1 warning".
pub fn summary_line(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    format!("{}, {}", count(errors, "error"), count(warnings, "warning"))
}

/// Where the errors are, for the end of a summary: ", errors in essays/a.md" for one file,
/// ", errors in 3 files" for more, nothing when no error has a file (so "FAILED 5 essays"
/// is never read as every essay failing).
pub fn error_files(diags: &[Diagnostic]) -> String {
    let files: std::collections::BTreeSet<&str> = diags.iter().filter(|d| d.is_error()).filter_map(|d| d.origin.file()).collect();
    match files.len() {
        0 => String::new(),
        1 => format!(", errors in {}", files.first().unwrap_or(&"")),
        n => format!(", errors in {n} files"),
    }
}
