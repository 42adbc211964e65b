//! The built site in memory, and writing it out atomically.
//!
//! A build renders every file into an [`Output`] first. Writing puts them into a fresh
//! folder beside the output folder (same file system) and then exchanges the two in one
//! `renameat2(RENAME_EXCHANGE)` on Linux (two renames elsewhere, or where the file system
//! refuses the exchange), then removes the old one. A build that fails, or is killed at
//! any point, leaves the previous output folder exactly as it was.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// Every file of a built site: path relative to the output root (`/`-separated, e.g.
/// `no-two-heaps/index.html`) → bytes. Ordered, so writing and hashing are deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The files.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Output {
    /// Add or replace a file.
    pub fn insert(&mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), bytes.into());
    }
}

fn sibling(out: &Path, tag: &str) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "public".into());
    out.with_file_name(format!(".{name}.{tag}-{}", std::process::id()))
}

/// Remove leftovers of builds that were killed before their swap (`.public.tmp-*` and
/// `.public.old-*` beside `out`).
pub fn remove_leftovers(out: &Path) {
    let Some(parent) = out.parent() else { return };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Ok(rd) = std::fs::read_dir(parent) else { return };
    for e in rd.filter_map(Result::ok) {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with(&format!(".{name}.tmp-")) || n.starts_with(&format!(".{name}.old-")) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Something that writes one file; tests inject failures through it.
pub trait Writer {
    /// Write `bytes` to `path` (its parent exists).
    fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()>;
}

/// The real file system.
pub struct FsWriter;

impl Writer for FsWriter {
    fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        std::fs::write(path, bytes)
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them relative to the
    // current directory, as `std::fs::rename` does.
    let r = unsafe { libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "no atomic exchange"))
}

/// Write `output` to the folder `out`, replacing what is there in one step.
///
/// Errors: the parent of `out` is not writable, a file cannot be written (the error names
/// it), or the swap fails; in every case `out` is left as it was and the temporary folder
/// is removed.
pub fn write_atomically(out: &Path, output: &Output, writer: &mut dyn Writer) -> io::Result<()> {
    // An existing file (not a folder) at `out` would be exchanged for the site and then
    // left under a temporary name: refuse instead.
    if out.symlink_metadata().is_ok() && !out.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} exists and is not a folder", out.display())));
    }
    remove_leftovers(out);
    let tmp = sibling(out, "tmp");
    let result = (|| {
        std::fs::create_dir_all(&tmp).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display())))?;
        for (rel, bytes) in &output.files {
            let path = tmp.join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display())))?;
            }
            writer.write(&path, bytes).map_err(|e| io::Error::new(e.kind(), format!("cannot write {rel}: {e}")))?;
        }
        if out.exists() {
            if exchange(&tmp, out).is_err() {
                let old = sibling(out, "old");
                std::fs::rename(out, &old)?;
                if let Err(e) = std::fs::rename(&tmp, out) {
                    let _ = std::fs::rename(&old, out);
                    return Err(e);
                }
                let _ = std::fs::remove_dir_all(&old);
                return Ok(());
            }
            // `tmp` now holds the previous output.
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        } else {
            std::fs::rename(&tmp, out)
        }
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    struct FailOn(&'static str);
    impl Writer for FailOn {
        fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            if path.ends_with(self.0) {
                return Err(io::Error::other("injected failure"));
            }
            std::fs::write(path, bytes)
        }
    }

    #[test]
    fn swap_replaces_and_a_failed_write_keeps_the_old_site() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("public");
        let mut a = Output::default();
        a.insert("index.html", "one");
        a.insert("x/index.html", "x");
        write_atomically(&out, &a, &mut FsWriter).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "one");
        let mut b = Output::default();
        b.insert("index.html", "two");
        b.insert("y/index.html", "y");
        let err = write_atomically(&out, &b, &mut FailOn("y/index.html")).unwrap_err();
        assert!(err.to_string().contains("y/index.html"), "{err}");
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "one");
        assert!(out.join("x/index.html").exists());
        write_atomically(&out, &b, &mut FsWriter).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "two");
        assert!(!out.join("x").exists());
        let leftovers: Vec<_> = std::fs::read_dir(d.path()).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }
}
