//! Reading one source file of a site: the configuration, the bibliography, an essay, a
//! template or a static file. Every read goes through [`read_source`], which reads only a
//! regular file (a FIFO would block the build forever, `/dev/zero` would be read until
//! memory runs out) and only up to a size limit, so a hostile or mistaken file is a
//! diagnostic, never a hang.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest text source (countersign.yaml, references.yaml, an essay, a template):
/// 16 MiB, some hundred times the longest essay.
pub const TEXT_LIMIT: u64 = 16 << 20;

/// The largest static file copied into the site: 256 MiB.
pub const STATIC_LIMIT: u64 = 256 << 20;

/// Why a source file was not read.
#[derive(Debug)]
pub enum SourceError {
    /// There is no file at the path (nor a symbolic link that leads to one).
    NotFound,
    /// The path is a FIFO, a device, a socket or a folder: `kind` says which.
    NotRegular {
        /// What the path is instead of a regular file.
        kind: SpecialKind,
    },
    /// The file has more than `limit` bytes.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 (from [`read_text`] only).
    NotUtf8,
    /// The path is a symbolic link to `to`, where there is nothing (from [`read_site_file`]).
    BrokenLink {
        /// Where the link leads.
        to: PathBuf,
    },
    /// The path's real path, `real`, is outside the site (from [`read_site_file`]).
    Outside {
        /// The canonical path the links lead to.
        real: PathBuf,
    },
    /// Any other error from the file system.
    Io(std::io::Error),
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::NotFound => write!(f, "no such file"),
            SourceError::NotRegular { kind } => write!(f, "it is {kind}, not a regular file; only regular files are read"),
            SourceError::TooLarge { limit } => write!(f, "it is larger than the limit of {} MiB for a source file", limit >> 20),
            SourceError::NotUtf8 => write!(f, "it is not UTF-8; save it as UTF-8"),
            SourceError::BrokenLink { to } => write!(f, "it is a link to {}, where there is no file", to.display()),
            SourceError::Outside { real } => write!(f, "it links outside the site root, to {}", real.display()),
            SourceError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// The walk of a site folder that loading and watch mode share: `dir` and everything
/// below it, links followed (a loop comes back as an error entry), each folder's entries in
/// name order, and below `dir` itself no entry for which `skip` holds, nor anything inside
/// it. What is skipped differs by folder and by caller (hidden names in `essays/`,
/// [`countersign_core::content::skipped_name`] elsewhere), so it is the caller's.
pub fn walk_folder<P>(dir: &Path, mut skip: P) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>>
where
    P: FnMut(&walkdir::DirEntry) -> bool,
{
    walkdir::WalkDir::new(dir).follow_links(true).sort_by_file_name().into_iter().filter_entry(move |e| e.depth() == 0 || !skip(e))
}

/// For a folder entry that is neither a regular file nor a folder (a FIFO, a device, a
/// socket, after links are followed), the error that names it; `None` for a file or a
/// folder. Walks of `essays/`, `static/` and `templates/` report such an entry instead
/// of skipping it.
pub fn special_entry(t: std::fs::FileType) -> Option<SourceError> {
    (!t.is_file() && !t.is_dir()).then(|| SourceError::NotRegular { kind: kind_of(t) })
}

/// What a path that is not a regular file is, as [`SourceError::NotRegular`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecialKind {
    /// A named pipe.
    Fifo,
    /// A character device (`/dev/zero`).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// A folder, where a file was expected.
    Folder,
    /// Anything else the platform has.
    Other,
}

impl std::fmt::Display for SpecialKind {
    /// In words, with its article: "a FIFO (named pipe)", "a character device", …
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SpecialKind::Fifo => "a FIFO (named pipe)",
            SpecialKind::CharDevice => "a character device",
            SpecialKind::BlockDevice => "a block device",
            SpecialKind::Socket => "a socket",
            SpecialKind::Folder => "a folder",
            SpecialKind::Other => "not a file",
        })
    }
}

fn kind_of(t: std::fs::FileType) -> SpecialKind {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return SpecialKind::Fifo;
        }
        if t.is_char_device() {
            return SpecialKind::CharDevice;
        }
        if t.is_block_device() {
            return SpecialKind::BlockDevice;
        }
        if t.is_socket() {
            return SpecialKind::Socket;
        }
    }
    if t.is_dir() {
        SpecialKind::Folder
    } else {
        SpecialKind::Other
    }
}

/// The bytes of the regular file at `path` (symbolic links followed), at most `limit`
/// bytes long.
///
/// The file is opened without blocking (a FIFO with no writer would otherwise block the
/// open) and checked on the open handle, so a file swapped for a FIFO between a check and
/// the read is still refused. Reads at most `limit + 1` bytes whatever the file claims
/// its length is. Errors: see [`SourceError`].
pub fn read_source(path: &Path, limit: u64) -> Result<Vec<u8>, SourceError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SourceError::NotFound,
        _ => SourceError::Io(e),
    })?;
    let meta = file.metadata().map_err(SourceError::Io)?;
    if !meta.is_file() {
        return Err(SourceError::NotRegular { kind: kind_of(meta.file_type()) });
    }
    if meta.len() > limit {
        return Err(SourceError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(SourceError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(SourceError::TooLarge { limit });
    }
    Ok(bytes)
}

/// [`read_source`] with [`TEXT_LIMIT`], as text. Errors: as [`read_source`], and
/// [`SourceError::NotUtf8`].
pub fn read_text(path: &Path) -> Result<String, SourceError> {
    String::from_utf8(read_source(path, TEXT_LIMIT)?).map_err(|_| SourceError::NotUtf8)
}

/// Where the file or folder at a path really is, against the site's folder: symbolic
/// links lead anywhere, and a template, a static file, an image or a census source whose
/// real path is outside the site would publish (or hash) a file the site does not hold
/// (`static/p.txt` linked to `/etc/passwd`). Essays alone may be links to files outside
/// the site (a guide kept elsewhere, linked in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The real path is inside one of the folders allowed, or there is nothing at the path
    /// (reading it then says why).
    Inside,
    /// The real path (links followed), outside every folder allowed.
    Outside(PathBuf),
}

/// The site root as [`place`] compares paths with it: canonical (links followed, no `..`),
/// or as given when it cannot be resolved (then no path below it resolves either).
pub fn canonical_root(root: &Path) -> PathBuf {
    root.canonicalize().unwrap_or_else(|_| root.to_path_buf())
}

/// Where `path` really is: [`Place::Outside`] when its canonical path (every link
/// followed) lies in none of `allowed`, which are canonical folders (the site root from
/// [`canonical_root`], and for an essay's images the folder its file really is in).
pub fn place(allowed: &[&Path], path: &Path) -> Place {
    match path.canonicalize() {
        Ok(real) if !allowed.iter().any(|a| real.starts_with(a)) => Place::Outside(real),
        _ => Place::Inside,
    }
}

/// The site's own file `rel` (`countersign.yaml`, `references.yaml`, `censuses/x.yaml`)
/// under `root`, whose canonical path is `real_root`, read as [`read_source`] does, at most
/// `limit` bytes. Errors besides [`read_source`]'s: [`SourceError::Outside`] when links
/// lead out of the site (it is not read), [`SourceError::BrokenLink`] when a link leads
/// nowhere (that is not an absent file: the site would build without it, silently).
pub fn read_site_file(root: &Path, real_root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, SourceError> {
    let path = root.join(rel);
    if let Place::Outside(real) = place(&[real_root], &path) {
        return Err(SourceError::Outside { real });
    }
    match read_source(&path, limit) {
        Err(SourceError::NotFound) if path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) => {
            Err(SourceError::BrokenLink { to: std::fs::read_link(&path).unwrap_or_default() })
        }
        r => r,
    }
}

/// The diagnostic for `e`, an error reading the site's file `shown`: `outside-site` when
/// it links out of the site, else `read-failed`.
pub fn read_error(shown: &str, e: &SourceError) -> countersign_core::diag::Diagnostic {
    use countersign_core::diag::{Code, Diagnostic};
    match e {
        SourceError::Outside { real } => {
            let (message, hint) = outside_message(shown, real);
            Diagnostic::error(Code::OutsideSite, shown, 0..0, message).with_hint(hint)
        }
        e => Diagnostic::error(Code::ReadFailed, shown, 0..0, format!("cannot read {shown}: {e}")),
    }
}

/// The error for a file (`shown`, as the site names it: `static/p.txt`) whose real path,
/// `real`, is outside the site: its message says so and names both, its hint what to do.
pub fn outside_message(shown: &str, real: &Path) -> (String, &'static str) {
    (
        format!("{shown} links outside the site root, to {}; only essays may be links to files outside the site", real.display()),
        "copy the file into the site's folder, or make the link lead to a file inside it",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_everything_else_refused() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.md");
        std::fs::write(&f, "hello").unwrap();
        assert_eq!(read_source(&f, 5).unwrap(), b"hello");
        assert!(matches!(read_source(&f, 4), Err(SourceError::TooLarge { limit: 4 })));
        assert!(matches!(read_source(&d.path().join("none"), 9), Err(SourceError::NotFound)));
        assert!(matches!(read_source(d.path(), 9), Err(SourceError::NotRegular { kind: SpecialKind::Folder })));
        #[cfg(unix)]
        {
            let link = d.path().join("zero");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            let e = read_source(&link, TEXT_LIMIT).unwrap_err();
            assert_eq!(e.to_string(), "it is a character device, not a regular file; only regular files are read");
            let fifo = d.path().join("fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            assert!(matches!(read_source(&fifo, TEXT_LIMIT), Err(SourceError::NotRegular { kind: SpecialKind::Fifo })));
        }
    }
}

/// What a file's metadata says of its contents: a save changes at least one of these (its
/// status-change time, which no program can set, on every write or rename over it). On
/// systems without a status-change time there is no stamp, and files are always read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    /// The status-change time (seconds, nanoseconds).
    changed: (i64, i64),
    inode: (u64, u64),
}

/// How long after its last change a file's stamp is trusted: file-system clocks tick
/// coarsely (a jiffy on Linux, up to 2 s on FAT), so two saves within one tick, the
/// first read between them, could leave equal stamps. A file changed this recently is
/// read again by the next load.
pub const STAMP_SETTLES: std::time::Duration = std::time::Duration::from_secs(2);

impl Stamp {
    /// The stamp of the file at `path` (links followed), or `None` when there is none to
    /// trust: the file is gone, the system keeps no status-change time, or the file
    /// changed less than `settles` before `now` (see [`STAMP_SETTLES`]).
    pub fn of(path: &Path, now: std::time::SystemTime, settles: std::time::Duration) -> Option<Stamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            let changed =
                std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(u64::try_from(m.ctime()).ok()?, m.ctime_nsec() as u32))?;
            if changed + settles > now {
                return None;
            }
            Some(Stamp { len: m.len(), modified: m.modified().ok(), changed: (m.ctime(), m.ctime_nsec()), inode: (m.dev(), m.ino()) })
        }
        #[cfg(not(unix))]
        {
            let _ = (path, now, settles);
            None
        }
    }
}
