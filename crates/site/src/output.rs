//! The built site in memory, and writing it out atomically.
//!
//! A build writes every file, as the render makes it, into a fresh folder beside the
//! output folder (same file system; [`Staging`]; [`write_atomically`] does the same from
//! an [`Output`] held in memory), and once all are written exchanges the two in one
//! atomic step where the system offers it (`renameat2(RENAME_EXCHANGE)` on Linux,
//! `renameatx_np(RENAME_SWAP)` on macOS, both through rustix), then removes the old one.
//! A build that fails, or is killed at any point, leaves the previous output folder
//! exactly as it was.
//!
//! Elsewhere (Windows), or where the file system refuses the exchange, or when asked to
//! with [`Publish::Renames`], it takes two renames: the old folder aside, the new one into
//! its place. A build killed between the two leaves no output folder, with the previous
//! site whole beside it (`.public.old-PID`) and the new one whole too (`.public.tmp-PID`,
//! complete: its marker is written last); the next build that writes puts the new one in
//! place before anything else ([`write_atomically`]), then publishes its own.
//!
//! Builds writing into one folder take turns: [`lock_output`] takes an exclusive lock on
//! the folder that holds the output folder (an advisory `flock`, released when the
//! process ends however it ends), and [`write_atomically`] requires it. So at most one
//! build is writing there, and a temporary folder beside the output that a build finds
//! while holding the lock belongs to a build that is no longer running: only then is it
//! removed. A build never removes the temporary folder of a build still writing.
//!
//! For the fault tests, and only in a build with the `fault-injection` feature (the binary
//! `cargo test` builds; never a release), the environment variable `COUNTERSIGN_KILL_AT`
//! set to one of [`FAULT_POINTS`] makes the process kill itself (SIGKILL) when the write
//! reaches that point, `COUNTERSIGN_HOLD_LOCK_UNTIL=PATH` makes a build that has taken the
//! lock wait until `PATH` exists (so a test can start a second build while the first holds
//! it), and `COUNTERSIGN_PUBLISH=renames` ([`publish_for_tests`]) forces the two renames.
//!
//! Only a folder countersign wrote is ever replaced: every build leaves the file
//! [`MARKER`] at the top of its output, and an existing folder with files but no marker
//! (a home folder, the site's own root, `/`) is refused, never exchanged and removed.
//! [`check_out`] also refuses an output folder holding the site or inside its sources.

use std::io;
use std::path::{Path, PathBuf};

use countersign_render::{Output, Sink};

/// The output folder under the site root when `build` is given no `--out`.
pub const DEFAULT_DIR: &str = "public";

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
/// lies inside its sources (`essays/`, `templates/`, `static/`, `censuses/`, the cache: the next build
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
    for sub in ["essays", "templates", "static", "censuses", crate::cache::DIR] {
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

/// The lock on an output folder's parent, held while a build writes there (see the module
/// documentation). Dropping it, or the process ending, releases it.
#[derive(Debug)]
pub struct OutputLock {
    _handle: std::fs::File,
}

/// The folder holding `out` (`.` for a bare name), created when missing.
fn parent_of(out: &Path) -> io::Result<PathBuf> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if parent.metadata().is_ok_and(|m| !m.is_dir()) {
        #[cfg(unix)]
        let e = io::Error::from(rustix::io::Errno::NOTDIR);
        #[cfg(not(unix))]
        let e = io::Error::other("not a folder");
        return Err(io::Error::new(e.kind(), format!("{}: {e}", parent.display())));
    }
    std::fs::create_dir_all(&parent).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", parent.display())))?;
    Ok(parent)
}

/// Take the lock on the folder that will hold `out`, creating that folder when missing.
/// When another build holds it, `on_wait` is called once (to say so) and this waits until
/// it is released. Errors: the parent cannot be created or opened (a file in the way).
pub fn lock_output(out: &Path, on_wait: impl FnOnce()) -> io::Result<OutputLock> {
    let parent = parent_of(out)?;
    // A folder's handle can carry an advisory lock on Unix; elsewhere a lock file stands
    // in for it (left in place: removing a lock file others may wait on is racy).
    #[cfg(unix)]
    let handle = std::fs::File::open(&parent);
    #[cfg(not(unix))]
    let handle = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(parent.join(".countersign-lock"));
    let handle = handle.map_err(|e| io::Error::new(e.kind(), format!("cannot open {}: {e}", parent.display())))?;
    match handle.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            on_wait();
            handle.lock()?;
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    hold_for_tests();
    Ok(OutputLock { _handle: handle })
}

/// The named points of a write at which `COUNTERSIGN_KILL_AT` kills the build, in order:
/// the lock taken, leftovers removed, the temporary folder created, some of the files
/// written (half of them from an [`Output`]; one, when the render writes them as it makes
/// them), all written, the marker written; then, with an exchange, the folders
/// exchanged (the old site is then in the temporary folder, not yet removed), or with two
/// renames the old folder set aside (no output folder until the second rename) and the
/// new one renamed into place (the old one not yet removed). [`fault_points`] says which
/// a way of publishing reaches.
pub const FAULT_POINTS: [&str; 9] =
    ["locked", "cleaned", "created", "half-written", "written", "marked", "exchanged", "set-aside", "renamed"];

/// The fault points a write with `publish` reaches, in order (where the exchange works:
/// [`Publish::Exchange`] falls back to the renames' points where it does not).
pub fn fault_points(publish: Publish) -> Vec<&'static str> {
    let skipped: &[&str] = match publish {
        Publish::Exchange => &["set-aside", "renamed"],
        Publish::Renames => &["exchanged"],
    };
    FAULT_POINTS.into_iter().filter(|p| !skipped.contains(p)).collect()
}

/// The test hook: kill this process, as `kill -9` would, when `COUNTERSIGN_KILL_AT` names
/// `point` (where there are no signals, abort, which no cleanup follows either). Nothing
/// without the `fault-injection` feature.
fn fault_point(point: &str) {
    debug_assert!(FAULT_POINTS.contains(&point));
    #[cfg(feature = "fault-injection")]
    if std::env::var_os("COUNTERSIGN_KILL_AT").is_some_and(|v| v == point) {
        #[cfg(unix)]
        let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        std::process::abort();
    }
}

/// The test hook: wait (up to a minute) until the file `COUNTERSIGN_HOLD_LOCK_UNTIL` names
/// exists. Nothing without the `fault-injection` feature.
fn hold_for_tests() {
    #[cfg(feature = "fault-injection")]
    if let Some(path) = std::env::var_os("COUNTERSIGN_HOLD_LOCK_UNTIL") {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !Path::new(&path).exists() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Remove leftovers of builds that were killed before they finished (`.public.tmp-*` and
/// `.public.old-*` beside `out`). Only called with the lock held, when no other build
/// is writing beside `out`, so every such folder belongs to a build that has ended.
fn remove_leftovers(out: &Path, _lock: &OutputLock) {
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

/// How a build publishes: [`Publish::Exchange`], or, in a build with the
/// `fault-injection` feature and `COUNTERSIGN_PUBLISH=renames` set, [`Publish::Renames`] —
/// the two renames Windows takes, so the fault tests cover them on every platform.
pub fn publish_for_tests() -> Publish {
    #[cfg(feature = "fault-injection")]
    if std::env::var_os("COUNTERSIGN_PUBLISH").is_some_and(|v| v == "renames") {
        return Publish::Renames;
    }
    Publish::Exchange
}

/// The real file system.
pub struct FsWriter;

impl Writer for FsWriter {
    fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        std::fs::write(path, bytes)
    }
}

/// How a build puts its new folder in the place of the old one (see the module
/// documentation for what each guarantees).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Publish {
    /// One atomic exchange where the system and file system offer it (Linux, macOS), two
    /// renames where they do not (Windows; a file system that refuses the exchange).
    #[default]
    Exchange,
    /// Always two renames, as on Windows: chosen on Linux and macOS only to test that path
    /// (the CLI reads `COUNTERSIGN_PUBLISH=renames`).
    Renames,
}

/// Exchange the folders `a` and `b` in one step: `renameat2(RENAME_EXCHANGE)` on Linux,
/// `renameatx_np(RENAME_SWAP)` on macOS (rustix calls both `RenameFlags::EXCHANGE`).
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "no atomic exchange"))
}

/// Refuse an output path that is a file, or a folder with files but no [`MARKER`].
fn refuse_foreign(out: &Path) -> io::Result<()> {
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
    Ok(())
}

/// A build's new site, written file by file into its temporary folder beside the output
/// folder as the render makes each file (a [`Sink`]), then published in one step by
/// [`Staging::publish`]. So a build holds no page longer than it takes to write it, and
/// the publishing is [`write_atomically`]'s: until `publish` swaps the folders the previous
/// site stands as it was; dropped without publishing (the build failed), the temporary
/// folder is removed.
///
/// The first write that fails is kept and returned by `publish`; nothing is written after
/// it. A path that is not inside the output folder (`..`, a root, from a hostile anchor or
/// slug) is such a failure, never joined.
pub struct Staging<'a> {
    out: PathBuf,
    tmp: PathBuf,
    writer: &'a mut dyn Writer,
    /// The paths written, to count the files (a path written twice is one file).
    paths: std::collections::BTreeSet<String>,
    /// Files given so far, and at which one the fault point `half-written` is.
    given: usize,
    half_at: usize,
    error: Option<io::Error>,
    published: bool,
}

impl<'a> Staging<'a> {
    /// Make the temporary folder for a new site at `out`, with `lock` ([`lock_output`]'s
    /// for `out`) held: first put back an output folder a build killed between its two
    /// renames left missing, refuse a folder countersign did not write, and remove what
    /// killed builds left beside it. Errors: those of [`write_atomically`] before any file.
    pub fn begin(out: &Path, writer: &'a mut dyn Writer, lock: &OutputLock) -> io::Result<Staging<'a>> {
        fault_point("locked");
        restore_interrupted(out, lock)?;
        refuse_foreign(out)?;
        remove_leftovers(out, lock);
        fault_point("cleaned");
        let tmp = sibling(out, "tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display())))?;
        fault_point("created");
        let paths = Default::default();
        Ok(Staging { out: out.to_path_buf(), tmp, writer, paths, given: 0, half_at: 1, error: None, published: false })
    }

    /// How many files are written.
    pub fn files(&self) -> usize {
        self.paths.len()
    }

    /// Write one file under the temporary folder.
    fn put(&mut self, rel: &str, bytes: &[u8]) -> io::Result<()> {
        if rel.is_empty() || !Path::new(rel).components().all(|c| matches!(c, std::path::Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("refusing to write {rel:?}: it is not a path inside the output folder"),
            ));
        }
        let path = self.tmp.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| io::Error::new(e.kind(), format!("cannot create {}: {e}", p.display())))?;
        }
        self.writer.write(&path, bytes).map_err(|e| io::Error::new(e.kind(), format!("cannot write {rel}: {e}")))?;
        self.paths.insert(rel.to_string());
        Ok(())
    }

    /// Write the marker last and put the new site at the output folder (see [`swap`]).
    /// Errors: the first write that failed, the marker's, the swap's; the previous site is
    /// then as it was and the temporary folder removed.
    pub fn publish(mut self, publish: Publish) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        fault_point("written");
        let marker = self.tmp.join(MARKER);
        self.writer.write(&marker, MARKER_TEXT.as_bytes()).map_err(|e| io::Error::new(e.kind(), format!("cannot write {MARKER}: {e}")))?;
        fault_point("marked");
        swap(&self.tmp, &self.out, publish)?;
        self.published = true;
        Ok(())
    }
}

impl Sink for Staging<'_> {
    fn file(&mut self, path: &str, bytes: &countersign_render::Bytes) {
        if self.error.is_some() {
            return;
        }
        if self.given == self.half_at {
            fault_point("half-written");
        }
        self.given += 1;
        if let Err(e) = self.put(path, bytes) {
            self.error = Some(e);
        }
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Put the filled folder `tmp` at `out`: with [`Publish::Exchange`] one exchange (the old
/// site then in `tmp`, removed) where the file system can, else two renames; a plain
/// rename when there is no `out` yet.
fn swap(tmp: &Path, out: &Path, publish: Publish) -> io::Result<()> {
    if !out.exists() {
        return std::fs::rename(tmp, out);
    }
    if publish == Publish::Exchange && exchange(tmp, out).is_ok() {
        // `tmp` now holds the previous output.
        fault_point("exchanged");
        let _ = std::fs::remove_dir_all(tmp);
        return Ok(());
    }
    let old = sibling(out, "old");
    std::fs::rename(out, &old)?;
    // Between the renames there is no `out`: see `restore_interrupted`.
    fault_point("set-aside");
    if let Err(e) = std::fs::rename(tmp, out) {
        let _ = std::fs::rename(&old, out);
        return Err(e);
    }
    fault_point("renamed");
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// When there is no `out` but a build killed between its two renames left the complete
/// new site (`.NAME.tmp-PID` with its marker, which is written last) or the previous one
/// (`.NAME.old-PID`, which has the marker of the build that wrote it) beside it, put the
/// new one, else the previous one, back at `out`. Only called with the lock held.
fn restore_interrupted(out: &Path, _lock: &OutputLock) -> io::Result<()> {
    if out.symlink_metadata().is_ok() {
        return Ok(());
    }
    let (Some(parent), Some(name)) = (out.parent(), out.file_name()) else { return Ok(()) };
    let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
    let name = name.to_string_lossy();
    let Ok(rd) = std::fs::read_dir(parent) else { return Ok(()) };
    let mut found: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join(MARKER).is_file()).collect();
    found.sort();
    for tag in ["tmp", "old"] {
        let prefix = format!(".{name}.{tag}-");
        if let Some(whole) = found.iter().find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix))) {
            return std::fs::rename(whole, out)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot put {} back at {}: {e}", whole.display(), out.display())));
        }
    }
    Ok(())
}

/// Write `output` to the folder `out`, replacing what is there in one step (or two
/// renames: see [`Publish`]). `lock` is [`lock_output`]'s for `out`, held for the whole
/// write. An output folder that a build killed between its two renames left missing is
/// first put back from the whole site it left beside it, so even a write that then fails
/// leaves a whole site at `out`.
///
/// Errors: `out` is a file, or a folder with files but no [`MARKER`] (one countersign did
/// not write: it is refused, not replaced), the parent of `out` is not writable, a file
/// cannot be written (the error names it), or the swap fails; in every case `out` is left
/// as it was and the temporary folder is removed.
pub fn write_atomically(out: &Path, output: &Output, writer: &mut dyn Writer, lock: &OutputLock, publish: Publish) -> io::Result<()> {
    let mut staging = Staging::begin(out, writer, lock)?;
    staging.half_at = output.files.len() / 2;
    for (rel, bytes) in &output.files {
        staging.file(rel, bytes);
    }
    staging.publish(publish)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locked(out: &Path) -> OutputLock {
        // No other build runs, but a census test of this binary may fork between this test
        // dropping one lock and taking the next: the child shares the dropped lock's open
        // file until it execs, microseconds later. So wait rather than refuse.
        lock_output(out, || {}).unwrap()
    }

    struct FailOn(&'static str);
    impl Writer for FailOn {
        fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            if path.ends_with(self.0) {
                return Err(io::Error::other("injected failure"));
            }
            std::fs::write(path, bytes)
        }
    }

    /// Write `output` and the marker into the folder `tmp`: a whole new site, as a build
    /// killed between its two renames leaves it.
    fn fill(tmp: &Path, output: &Output, writer: &mut dyn Writer) -> io::Result<()> {
        for (rel, bytes) in &output.files {
            std::fs::create_dir_all(tmp.join(rel).parent().unwrap())?;
            writer.write(&tmp.join(rel), bytes)?;
        }
        writer.write(&tmp.join(MARKER), MARKER_TEXT.as_bytes())
    }

    fn site(pairs: &[(&str, &str)]) -> Output {
        let mut o = Output::default();
        for (p, b) in pairs {
            o.insert(*p, *b);
        }
        o
    }

    #[test]
    fn swap_replaces_and_a_failed_write_keeps_the_old_site() {
        for publish in [Publish::Exchange, Publish::Renames] {
            let d = tempfile::tempdir().unwrap();
            let out = d.path().join("public");
            let a = site(&[("index.html", "one"), ("x/index.html", "x")]);
            write_atomically(&out, &a, &mut FsWriter, &locked(&out), publish).unwrap();
            assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "one");
            let b = site(&[("index.html", "two"), ("y/index.html", "y")]);
            let err = write_atomically(&out, &b, &mut FailOn("y/index.html"), &locked(&out), publish).unwrap_err();
            assert!(err.to_string().contains("y/index.html"), "{err}");
            assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "one");
            assert!(out.join("x/index.html").exists());
            write_atomically(&out, &b, &mut FsWriter, &locked(&out), publish).unwrap();
            assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "two", "{publish:?}");
            assert!(!out.join("x").exists());
            let leftovers: Vec<_> = std::fs::read_dir(d.path()).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
            assert_eq!(leftovers.len(), 1, "{publish:?}: {leftovers:?}");
        }
    }

    #[test]
    fn an_output_folder_left_missing_between_two_renames_is_put_back_first() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("public");
        let old = site(&[("index.html", "old")]);
        let new = site(&[("index.html", "new")]);
        // What a build killed between its renames leaves: no public/, the previous site
        // aside, the new one complete (marked) beside it. A write that then fails still
        // leaves the new one at public/.
        write_atomically(&out, &old, &mut FsWriter, &locked(&out), Publish::Renames).unwrap();
        std::fs::rename(&out, d.path().join(".public.old-1")).unwrap();
        fill(&d.path().join(".public.tmp-1"), &new, &mut FsWriter).unwrap();
        let third = site(&[("index.html", "third"), ("z", "z")]);
        assert!(write_atomically(&out, &third, &mut FailOn("z"), &locked(&out), Publish::Renames).is_err());
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "new");
        // Only the previous site left (the new one cut short, unmarked): it is put back.
        std::fs::rename(&out, d.path().join(".public.old-2")).unwrap();
        std::fs::create_dir(d.path().join(".public.tmp-2")).unwrap();
        assert!(write_atomically(&out, &third, &mut FailOn("z"), &locked(&out), Publish::Renames).is_err());
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "new");
        write_atomically(&out, &third, &mut FsWriter, &locked(&out), Publish::Renames).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), "third");
        let left: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".public"))
            .collect();
        assert_eq!(left, Vec::<String>::new());
    }

    #[test]
    fn no_file_is_written_outside_the_output_folder() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("a/public");
        for rel in ["../../escaped/index.html", "/etc/x", "", "x/../../y"] {
            let mut o = Output::default();
            o.insert("index.html", "one");
            o.insert(rel, "bad");
            let err = write_atomically(&out, &o, &mut FsWriter, &locked(&out), Publish::Exchange).unwrap_err();
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
        let err = write_atomically(&mine, &a, &mut FsWriter, &locked(&mine), Publish::Exchange).unwrap_err();
        assert!(err.to_string().contains("did not write"), "{err}");
        assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "keep");
        assert!(write_atomically(Path::new("/"), &a, &mut FsWriter, &locked(&d.path().join("x")), Publish::Exchange).is_err());
        // An empty folder is taken, and marked; the marked folder is replaced next time.
        let empty = d.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write_atomically(&empty, &a, &mut FsWriter, &locked(&empty), Publish::Exchange).unwrap();
        assert!(empty.join(MARKER).is_file());
        write_atomically(&empty, &a, &mut FsWriter, &locked(&empty), Publish::Exchange).unwrap();
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
