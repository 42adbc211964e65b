//! Loading essays: every `*.md` under `essays/`, read through [`crate::source`] and parsed
//! by the core crate's [`parse_essay`].

use std::path::{Path as FsPath, PathBuf};

use countersign_core::content::{collate, essay_name, hidden_name, hidden_path, lone_cr_as_lf, parse_essay, Essay};
use countersign_core::diag::{Code, Diagnostic};

/// Load every `*.md` under `dir` (following symlinks; a loop is a diagnostic). `root` is
/// the site root, for display names. Essays come back sorted by slug; duplicate slugs and
/// duplicate titles are diagnostics.
pub fn load_dir(root: &FsPath, dir: &FsPath) -> (Vec<Essay>, Vec<Diagnostic>) {
    load_dir_with(root, dir, &mut Fresh)
}

/// The essay files below `dir` (links followed), sorted by name, skipping hidden paths
/// (see [`hidden_name`]); a skipped file that looks like an essay (`.x.md`, or any `.md`
/// in a hidden folder; not an editor's lock `.#x.md`) gets a warning, an unreadable entry
/// or a broken link that is not hidden an error.
fn essay_files(dir: &FsPath, display: &dyn Fn(&FsPath) -> String, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let walk = crate::source::walk_folder(dir, |e| {
        let hidden = hidden_name(&e.file_name().to_string_lossy());
        if hidden {
            skipped.push(e.path().to_path_buf());
        }
        hidden
    });
    for entry in walk {
        match entry {
            Ok(e) => {
                if e.file_type().is_file() && essay_name(&e.file_name().to_string_lossy()) {
                    files.push(e.path().to_path_buf());
                } else if let Some(err) = crate::source::special_entry(e.file_type()) {
                    diags.push(Diagnostic::error(Code::ReadFailed, display(e.path()), 0..0, format!("cannot read: {err}")));
                }
            }
            Err(e) if e.path().is_some_and(|p| hidden_path(p.strip_prefix(dir).unwrap_or(p))) => {}
            Err(e) => diags.push(walk_error(&e, dir, display)),
        }
    }
    for p in skipped {
        let inside = walkdir::WalkDir::new(&p).sort_by_file_name().into_iter().filter_map(Result::ok);
        for e in inside.filter(|e| e.file_type().is_file()) {
            let name = e.file_name().to_string_lossy();
            if essay_name(&name) && !name.starts_with(".#") {
                diags.push(
                    Diagnostic::warning(Code::HiddenEssay, display(e.path()), 0..0, "not published: a name on its path starts with `.`")
                        .with_hint("hidden files and folders are never read; rename it to publish it"),
                );
            }
        }
    }
    files
}

/// The error for an entry of `essays/` that cannot be read: a loop, a broken link, or
/// what the system says.
fn walk_error(e: &walkdir::Error, dir: &FsPath, display: &dyn Fn(&FsPath) -> String) -> Diagnostic {
    let p = e.path().map(display).unwrap_or_else(|| display(dir));
    let broken = e.io_error().is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
        && e.path().is_some_and(|p| p.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()));
    let why = if e.loop_ancestor().is_some() {
        "a symlink loop".to_string()
    } else if broken {
        "a broken symlink (its target does not exist)".to_string()
    } else {
        e.io_error().map(|io| io.to_string()).unwrap_or_else(|| e.to_string())
    };
    Diagnostic::error(Code::ReadFailed, p, 0..0, format!("cannot read essays: {why}")).with_hint("remove the loop or the unreadable entry")
}

/// How a load gets its essays: each file read and parsed afresh ([`Fresh`]), or, in watch
/// mode, kept from the last load when its file is unchanged (`pipeline::Incremental`).
pub trait Units {
    /// The essay of `file` (at `path`) as the last load made it, without reading the file,
    /// when the file is known to be unchanged since; `None`: read and parse it.
    fn unchanged(&mut self, file: &str, path: &FsPath) -> Option<(Option<Essay>, Vec<Diagnostic>)>;
    /// Parse one essay file: (file as shown, path on disk, text) → [`parse_essay`]'s answer.
    fn parse(&mut self, file: &str, path: PathBuf, source: String) -> (Option<Essay>, Vec<Diagnostic>);
    /// The local images `essay` shows, when kept from the load that parsed it (`None`:
    /// find them in its text, see `images::references`).
    fn images(&mut self, essay: &Essay) -> Option<Vec<(String, std::ops::Range<usize>)>> {
        let _ = essay;
        None
    }
}

/// Every essay read and parsed afresh.
pub struct Fresh;

impl Units for Fresh {
    fn unchanged(&mut self, _: &str, _: &FsPath) -> Option<(Option<Essay>, Vec<Diagnostic>)> {
        None
    }
    fn parse(&mut self, file: &str, path: PathBuf, source: String) -> (Option<Essay>, Vec<Diagnostic>) {
        parse_essay(file, path, source)
    }
}

/// [`load_dir`], taking each essay from `units` (watch mode keeps the essays whose files
/// did not change, so a save of one essay reads and parses that file alone).
pub fn load_dir_with(root: &FsPath, dir: &FsPath, units: &mut dyn Units) -> (Vec<Essay>, Vec<Diagnostic>) {
    let mut essays: Vec<Essay> = Vec::new();
    let mut diags = Vec::new();
    let display = |p: &FsPath| p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/");
    if !dir.is_dir() {
        // Say why: missing, a file, or a symlink that leads nowhere (a loop, or dangling).
        let message = match (std::fs::symlink_metadata(dir), std::fs::metadata(dir)) {
            (Err(_), _) => "no essays folder".to_string(),
            (Ok(_), Ok(_)) => "essays is not a folder".to_string(),
            (Ok(_), Err(e)) if is_link_loop(&e) => "essays is a symlink loop".to_string(),
            (Ok(_), Err(e)) => format!("essays is a symlink that cannot be followed: {e}"),
        };
        diags.push(
            Diagnostic::error(Code::NoEssays, display(dir), 0..0, message)
                .with_hint("put essays as Markdown files in essays/, or run `countersign new` to start a site"),
        );
        return (essays, diags);
    }
    let files = essay_files(dir, &display, &mut diags);
    for path in files {
        let file = display(&path);
        if let Some((essay, d)) = units.unchanged(&file, &path) {
            diags.extend(d);
            essays.extend(essay);
            continue;
        }
        let bytes = match crate::source::read_source(&path, crate::source::TEXT_LIMIT) {
            Ok(b) => b,
            Err(e) => {
                diags.push(Diagnostic::error(Code::ReadFailed, file, 0..0, format!("cannot read: {e}")));
                continue;
            }
        };
        let source = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => {
                // Point at the first bad byte. The pipeline shows the file's text with bad
                // bytes replaced by U+FFFD; the text before the first one is unchanged, so
                // `at` is the same offset there, and the replacement is 3 bytes long.
                let at = e.utf8_error().valid_up_to();
                let byte = e.as_bytes()[at];
                diags.push(
                    Diagnostic::error(
                        Code::NotUtf8,
                        file,
                        at..at + '\u{fffd}'.len_utf8(),
                        format!("not UTF-8: invalid byte 0x{byte:02X} (byte {at} of the file)"),
                    )
                    .with_label("not UTF-8")
                    .with_hint("save the essay as UTF-8"),
                );
                continue;
            }
        };
        let (essay, d) = units.parse(&file, path, lone_cr_as_lf(source));
        diags.extend(d);
        if let Some(e) = essay {
            essays.push(e);
        }
    }
    diags.extend(collate(&mut essays));
    (essays, diags)
}

/// Whether `e` says a chain of symbolic links loops (`ELOOP`; Windows reports no such
/// error, so there the caller's general sentence stands).
fn is_link_loop(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}
