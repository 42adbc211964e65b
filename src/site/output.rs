//! The built site in memory, and writing it out atomically.
//!
//! A build renders every file into an [`Output`] first. Writing puts them into a fresh
//! folder beside the output folder (same file system) and then exchanges the two in one
//! `renameat2(RENAME_EXCHANGE)` on Linux (two renames elsewhere, or where the file system
//! refuses the exchange), then removes the old one. A build that fails, or is killed at
//! any point, leaves the previous output folder exactly as it was.
//!
//! Only a folder countersign wrote is ever replaced: every build leaves the file
//! [`MARKER`] at the top of its output, and an existing folder with files but no marker
//! (a home folder, the site's own root, `/`) is refused, never exchanged and removed.
//! [`check_out`] also refuses an output folder holding the site or inside its sources.

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

/// The file every build writes at the top of its output folder; its presence is what lets
/// a later build replace that folder.
pub const MARKER: &str = ".countersign-output";

const MARKER_TEXT: &str = "This folder was written by `countersign build`, which replaces it whole at each build.\n";

/// `p` made absolute with symbolic links and `..` resolved as far as it exists; the part
/// that does not exist yet is appended with `.` and `..` read lexically.
fn resolved(p: &Path) -> io::Result<PathBuf> {
    let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir()?.join(p) };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = existing.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::CurDir => {}
                    c => out.push(c.as_os_str()),
                }
            }
            return Ok(out);
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return Ok(abs),
        }
    }
}

/// Refuse an output folder `out` for the site at `root` that holds the site itself (the
/// root or a folder above it, `/` included: the exchange would replace the sources) or
/// lies inside its sources (`essays/`, `templates/`, `static/`, the cache: the next build
/// would read its own output). The error says why, in a sentence. Returns `out` made
/// absolute, links and `..` resolved: the folder to write (so `a/../public` creates no `a`).
pub fn check_out(root: &Path, out: &Path) -> Result<PathBuf, String> {
    let out_abs = resolved(out).map_err(|e| format!("cannot resolve the output folder {}: {e}", out.display()))?;
    let Ok(root_abs) = resolved(root) else { return Ok(out_abs) };
    if root_abs.starts_with(&out_abs) {
        return Err(format!(
            "the output folder {} holds the site itself ({}): a build replaces its output folder whole; choose a folder outside the site's sources, such as {}",
            out.display(),
            root_abs.display(),
            root.join("public").display()
        ));
    }
    for sub in ["essays", "templates", "static", ".countersign-cache"] {
        if out_abs.starts_with(root_abs.join(sub)) {
            return Err(format!(
                "the output folder {} is inside the site's {sub}/ folder, which the build reads; choose a folder outside it, such as {}",
                out.display(),
                root.join("public").display()
            ));
        }
    }
    Ok(out_abs)
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
/// Errors: `out` is a file, or a folder with files but no [`MARKER`] (one countersign did
/// not write: it is refused, not replaced), the parent of `out` is not writable, a file
/// cannot be written (the error names it), or the swap fails; in every case `out` is left
/// as it was and the temporary folder is removed.
pub fn write_atomically(out: &Path, output: &Output, writer: &mut dyn Writer) -> io::Result<()> {
    // An existing file (not a folder) at `out` would be exchanged for the site and then
    // left under a temporary name: refuse instead.
    if out.symlink_metadata().is_ok() && !out.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} exists and is not a folder", out.display())));
    }
    // A folder countersign did not write would be exchanged and then removed with all its
    // files: refuse unless it is empty or carries the marker of an earlier build.
    if out.is_dir() && (out.file_name().is_none() || !out.join(MARKER).is_file()) {
        let has_files =
            std::fs::read_dir(out).map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", out.display())))?.next().is_some();
        if has_files || out.file_name().is_none() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is a folder with files that countersign did not write (it has no {MARKER}), so it is not replaced; \
                     choose another output folder, or empty it (an output folder built before {MARKER} existed needs removing once)",
                    out.display()
                ),
            ));
        }
    }
    remove_leftovers(out);
    let tmp = sibling(out, "tmp");
    let result = (|| {
        std::fs::create_dir_all(&tmp).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display())))?;
        for (rel, bytes) in &output.files {
            // Every file goes inside the output folder: a name with `..`, a root or a
            // prefix (from a hostile anchor or slug) is refused, never joined.
            if rel.is_empty() || !Path::new(rel).components().all(|c| matches!(c, std::path::Component::Normal(_))) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("refusing to write {rel:?}: it is not a path inside the output folder"),
                ));
            }
            let path = tmp.join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display())))?;
            }
            writer.write(&path, bytes).map_err(|e| io::Error::new(e.kind(), format!("cannot write {rel}: {e}")))?;
        }
        writer
            .write(&tmp.join(MARKER), MARKER_TEXT.as_bytes())
            .map_err(|e| io::Error::new(e.kind(), format!("cannot write {MARKER}: {e}")))?;
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

    #[test]
    fn no_file_is_written_outside_the_output_folder() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("a/public");
        for rel in ["../../escaped/index.html", "/etc/x", "", "x/../../y"] {
            let mut o = Output::default();
            o.insert("index.html", "one");
            o.insert(rel, "bad");
            let err = write_atomically(&out, &o, &mut FsWriter).unwrap_err();
            assert!(err.to_string().contains("not a path inside the output folder"), "{rel}: {err}");
        }
        assert!(!d.path().join("escaped").exists() && !out.exists());
    }

    #[test]
    fn a_folder_countersign_did_not_write_is_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let mine = d.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("notes.txt"), "keep").unwrap();
        let mut a = Output::default();
        a.insert("index.html", "one");
        let err = write_atomically(&mine, &a, &mut FsWriter).unwrap_err();
        assert!(err.to_string().contains("did not write"), "{err}");
        assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "keep");
        assert!(write_atomically(Path::new("/"), &a, &mut FsWriter).is_err());
        // An empty folder is taken, and marked; the marked folder is replaced next time.
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write_atomically(&empty, &a, &mut FsWriter).unwrap();
        assert!(empty.join(MARKER).is_file());
        write_atomically(&empty, &a, &mut FsWriter).unwrap();
        assert_eq!(std::fs::read_to_string(empty.join("index.html")).unwrap(), "one");
    }

    #[test]
    fn an_output_folder_holding_the_site_or_inside_its_sources_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("site");
        std::fs::create_dir_all(root.join("essays")).unwrap();
        for bad in [
            root.clone(),
            root.join("."),
            d.path().to_path_buf(),
            PathBuf::from("/"),
            root.join("essays"),
            root.join("essays/public"),
            root.join("missing/../essays/x"),
            root.join("static/out"),
            root.join("templates"),
            root.join(".countersign-cache"),
        ] {
            assert!(check_out(&root, &bad).is_err(), "{} was accepted", bad.display());
        }
        assert_eq!(check_out(&root, &root.join("missing/../public")), Ok(root.canonicalize().unwrap().join("public")));
        for good in [root.join("public"), root.join("essays/../public"), d.path().join("elsewhere/public")] {
            assert!(check_out(&root, &good).is_ok(), "{}", good.display());
        }
        // A symbolic link to the root is the root.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&root, d.path().join("link")).unwrap();
            assert!(check_out(&root, &d.path().join("link")).is_err());
        }
    }
}
