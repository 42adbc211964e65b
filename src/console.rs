//! Writing the command line's output. `println!` panics when the reader has gone
//! (`countersign check | head` closes the pipe), which would end the process with exit 101
//! and a panic message; these functions instead drop the rest of the output quietly, as
//! ripgrep does, so the command finishes and its exit code still says whether the check
//! passed (CI with `set -o pipefail` sees a failed check as failed).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
static STDERR_GONE: AtomicBool = AtomicBool::new(false);

fn write(gone: &AtomicBool, result: impl FnOnce() -> std::io::Result<()>) {
    if gone.load(Ordering::Relaxed) {
        return;
    }
    // A closed pipe: nobody reads any more, so nothing more is written. Any other error
    // (a full disk behind a redirect) is equally unreportable on that stream.
    if result().is_err() {
        gone.store(true, Ordering::Relaxed);
    }
}

/// Write `text` to stdout as it is (add the newline yourself); nothing once the reader
/// has closed it.
pub fn out(text: &str) {
    write(&STDOUT_GONE, || {
        let mut s = std::io::stdout().lock();
        s.write_all(text.as_bytes())?;
        s.flush()
    });
}

/// Write `text` to stderr as it is; nothing once the reader has closed it.
pub fn err(text: &str) {
    write(&STDERR_GONE, || std::io::stderr().lock().write_all(text.as_bytes()));
}
