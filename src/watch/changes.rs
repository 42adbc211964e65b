//! Which file-system events call for a rebuild.
//!
//! Watched: the root itself (not recursively: it sees `countersign.yaml`,
//! `references.yaml` and the site folders appear or go), `essays/`, `templates/`,
//! `static/` and `censuses/` recursively, and, for each symlink in them, the folder it points to
//! (recursively) or the folder of the file it points to (an editor saving the target by
//! rename replaces that file, so the file itself cannot be watched); a symlink added while
//! serving is watched from the next build on. Never watched: `public/`,
//! `.countersign-cache/`, `target/` or anything else in the root, so neither a build nor
//! the cache can trigger another build. With `--poll` a [`notify::PollWatcher`] looks
//! for changes every [`POLL_EVERY`] instead (network drives, WSL, container mounts, where
//! native events do not arrive).
//!
//! Ignored: reads (access events), every path with a hidden name on its way (the loader
//! skips those too: [`countersign_core::content::hidden_name`]), and the files editors write beside
//! the one they save — vim's `.name.swp`/`.swo`/`.swx` and its write test `4913`, backups
//! ending in `~`, emacs's `.#name` locks and `#name#` autosaves. A save by rename (write a
//! temporary file, rename it over the essay) still counts: the rename's target is the
//! essay. Only a file that was there at the last build and is gone is waited for
//! ([`Pending::missing`]); a temporary file renamed over the essay never is.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use notify::event::{EventKind, ModifyKind, RemoveKind};
use notify::{Event, RecursiveMode, Watcher};

use countersign_core::content::hidden_name;

/// The folders of a site that are watched recursively.
pub const FOLDERS: [&str; 4] = ["essays", "templates", "static", "censuses"];
/// The configuration file.
pub const CONFIG: &str = "countersign.yaml";
/// The files at the root the loader reads: the configuration and the bibliography.
pub const ROOT_FILES: [&str; 2] = [CONFIG, countersign_render::bib::FILE];
/// How often the polling watcher (`--poll`) looks at every watched file.
pub const POLL_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// True for files editors write beside the one being saved, and other hidden files (below
/// `static/` only the editors' files: [`countersign_core::content::skipped_name`]).
pub fn ignored_name(name: &str) -> bool {
    hidden_name(name) || countersign_core::content::editor_file_name(name)
}

/// True for a file name an essay may show as an image (`![alt](fig.png)`), by its extension.
fn image_name(inner: &Path) -> bool {
    const IMAGES: [&str; 9] = ["png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "bmp", "ico"];
    inner.extension().is_some_and(|e| IMAGES.iter().any(|i| e.eq_ignore_ascii_case(i)))
}

/// Sources seen removed (or renamed away) during one debounce window.
#[derive(Default, Debug)]
pub struct Pending {
    removed: BTreeSet<PathBuf>,
}

impl Pending {
    /// True while a source removed during the window is still missing. An editor that saves
    /// by moving the old file away and writing a new one leaves it missing for a moment;
    /// the watch loop waits (up to `MISSING_GRACE`) for it to come back before building.
    /// Only files there at the last [`Watch::refresh`] count: a temporary file renamed over
    /// the essay (`sed -i`, `x.md.tmp`, VS Code's `.vsctmp`) is not waited for.
    pub fn missing(&self) -> bool {
        self.removed.iter().any(|p| !p.exists())
    }
}

/// The polling watcher's settings: every [`POLL_EVERY`], comparing contents (notify's
/// poller keeps modification times in whole seconds, so two saves within a second would
/// look the same).
fn poll_config() -> notify::Config {
    notify::Config::default().with_poll_interval(POLL_EVERY).with_compare_contents(true)
}

/// The watcher and what it watches.
pub struct Watch {
    watcher: Box<dyn Watcher + Send>,
    root: PathBuf,
    /// Site folders with a live recursive watch.
    folders: BTreeSet<PathBuf>,
    /// Folders outside the site holding symlink targets (watched non-recursively).
    outside: BTreeSet<PathBuf>,
    /// The files symlinks in the site folders point to (canonical).
    targets: BTreeSet<PathBuf>,
    /// The folders symlinks in the site folders point to (canonical, watched recursively).
    linked: BTreeSet<PathBuf>,
    /// Every file and folder of the site at the last refresh (a removal is waited for only
    /// when it was one of these).
    known: BTreeSet<PathBuf>,
}

impl Watch {
    /// Start watching the site at `root` (canonical); every event is passed to `on_event`.
    ///
    /// Errors: the watcher cannot start or the root cannot be watched (e.g. the inotify
    /// watch limit is reached).
    /// With `poll`, a [`notify::PollWatcher`] (every [`POLL_EVERY`]) rather than the
    /// system's notifications.
    pub fn new(root: &Path, poll: bool, on_event: impl Fn(notify::Result<Event>) + Send + 'static) -> notify::Result<Watch> {
        let mut watcher: Box<dyn Watcher + Send> = if poll {
            Box::new(notify::PollWatcher::new(on_event, poll_config())?)
        } else {
            Box::new(notify::recommended_watcher(on_event)?)
        };
        watcher.watch(root, RecursiveMode::NonRecursive)?;
        let none = BTreeSet::new;
        let mut w =
            Watch { watcher, root: root.to_path_buf(), folders: none(), outside: none(), targets: none(), linked: none(), known: none() };
        w.refresh();
        Ok(w)
    }

    /// Watch the site folders that exist and are not watched yet, the folders symlinks
    /// point to or point into, and note every file of the site. Called before every build.
    /// True when a folder is watched that was not before: what was written in it before
    /// its watch began was never reported, so the build must be followed by another.
    pub fn refresh(&mut self) -> bool {
        let before = (self.folders.len(), self.linked.clone());
        for f in FOLDERS {
            let dir = self.root.join(f);
            if dir.is_dir() {
                if !self.folders.contains(&dir) && self.watcher.watch(&dir, RecursiveMode::Recursive).is_ok() {
                    self.folders.insert(dir);
                }
            } else if self.folders.remove(&dir) {
                let _ = self.watcher.unwatch(&dir);
            }
        }
        let (targets, linked, known) = self.scan();
        let folders = self.folders.clone();
        let inside = |t: &Path| folders.iter().any(|f| t.starts_with(f));
        // The root is watched already (and must never be unwatched).
        let parents: BTreeSet<PathBuf> =
            targets.iter().filter_map(|t| t.parent()).filter(|p| *p != self.root).map(Path::to_path_buf).collect();
        let outside: BTreeSet<PathBuf> = linked.iter().filter(|d| !inside(d)).cloned().collect();
        self.outside = self.rewatch(&self.outside.clone(), &parents, RecursiveMode::NonRecursive);
        self.linked = self.rewatch(&self.linked.clone(), &outside, RecursiveMode::Recursive);
        self.targets = targets.into_iter().filter(|t| !inside(t)).collect();
        self.known = known;
        self.folders.len() > before.0 || !self.linked.is_subset(&before.1)
    }

    /// Watch the folders of `want` not in `had`, stop watching those of `had` not in
    /// `want`; returns the folders now watched.
    fn rewatch(&mut self, had: &BTreeSet<PathBuf>, want: &BTreeSet<PathBuf>, mode: RecursiveMode) -> BTreeSet<PathBuf> {
        for gone in had.difference(want) {
            let _ = self.watcher.unwatch(gone);
        }
        let mut now: BTreeSet<PathBuf> = had.intersection(want).cloned().collect();
        for new in want.difference(had) {
            if self.watcher.watch(new, mode).is_ok() {
                now.insert(new.clone());
            }
        }
        now
    }

    /// Walk the site folders (links followed, hidden names skipped): (the files symlinks
    /// point to, the folders symlinks point to, every file), all canonical but the last.
    fn scan(&self) -> (BTreeSet<PathBuf>, BTreeSet<PathBuf>, BTreeSet<PathBuf>) {
        let (mut targets, mut linked, mut known) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for f in ROOT_FILES {
            known.insert(self.root.join(f));
        }
        for dir in &self.folders {
            let folder = dir.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            let skipped = |e: &walkdir::DirEntry| countersign_core::content::skipped_name(&folder, &e.file_name().to_string_lossy());
            for e in countersign_site::source::walk_folder(dir, skipped).filter_map(Result::ok) {
                known.insert(e.path().to_path_buf());
                if !e.path_is_symlink() {
                    continue;
                }
                let Ok(target) = std::fs::canonicalize(e.path()) else { continue };
                if target.is_file() {
                    known.insert(target.clone());
                    targets.insert(target);
                } else if target.is_dir() {
                    linked.insert(target);
                }
            }
        }
        (targets, linked, known)
    }

    /// True when `path` is a source of the site: in a site folder or the configuration,
    /// or a symlink target, and not an editor's temporary file.
    pub fn relevant_path(&self, path: &Path) -> bool {
        if self.targets.contains(path) {
            return true;
        }
        let not_ignored = |rel: &Path| !rel.components().any(|c| ignored_name(&c.as_os_str().to_string_lossy()));
        if let Some(rel) = self.linked.iter().find_map(|d| path.strip_prefix(d).ok()) {
            return not_ignored(rel);
        }
        if let Ok(rel) = path.strip_prefix(&self.root) {
            let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
            let Some(first) = parts.next() else { return false };
            if ROOT_FILES.contains(&first.as_str()) && rel.components().count() == 1 {
                return true;
            }
            if !FOLDERS.contains(&first.as_str()) {
                return false;
            }
            // An editor's file anywhere on the way (a hidden folder included) is ignored.
            let inner = rel.strip_prefix(&first).unwrap_or(rel);
            let kept = inner.components().all(|c| !countersign_core::content::skipped_name(&first, &c.as_os_str().to_string_lossy()));
            return kept && (first != "essays" || self.essay_source(path, inner));
        }
        false
    }

    /// True when `path` (`inner` below `essays/`) may be something the loader reads: an
    /// essay's name, an image's (an essay may show it: a missing image, once added, must
    /// rebuild), a folder (or a symlink) now, or something there at the last refresh.
    /// A temporary file an editor renames over the essay (`x.md.tmp`, sed's `sedAb12Cd`,
    /// VS Code's `x.md.vsctmp`) is none of these, so it triggers no build of its own.
    fn essay_source(&self, path: &Path, inner: &Path) -> bool {
        inner.as_os_str().is_empty()
            || countersign_core::content::essay_name(&inner.to_string_lossy())
            || image_name(inner)
            || self.known.contains(path)
            || std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() || m.file_type().is_symlink())
    }

    /// Look at one event: true when it calls for a rebuild. Notes removals in `pending`
    /// and forgets the watch of a site folder that was removed or replaced.
    pub fn note(&mut self, event: &notify::Result<Event>, pending: &mut Pending) -> bool {
        let ev = match event {
            Ok(ev) => ev,
            // The watcher lost events (queue overflow): rebuild to be safe.
            Err(_) => return true,
        };
        if matches!(ev.kind, EventKind::Access(_)) {
            return false;
        }
        if ev.need_rescan() {
            self.folders.clear();
            return true;
        }
        let mut relevant = false;
        for p in &ev.paths {
            if !self.relevant_path(p) {
                continue;
            }
            relevant = true;
            if matches!(ev.kind, EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))) {
                // A site folder removed or renamed: its watch is gone; re-add it later.
                if let Some(parent) = p.parent() {
                    if parent == self.root && self.folders.remove(p) {
                        let _ = self.watcher.unwatch(p);
                    }
                }
                if matches!(ev.kind, EventKind::Remove(RemoveKind::File | RemoveKind::Any) | EventKind::Modify(ModifyKind::Name(_)))
                    && !p.exists()
                    && self.known.contains(p)
                {
                    pending.removed.insert(p.clone());
                }
            }
        }
        relevant
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_files_are_ignored_and_sources_are_not() {
        for n in [".small.md.swp", ".small.md.swx", "small.md~", "4913", ".#small.md", "#small.md#", ".goutputstream-XYZ", ""] {
            assert!(ignored_name(n), "{n:?} should be ignored");
        }
        for n in ["small.md", "base.html", "style.css", "countersign.yaml", "49130"] {
            assert!(!ignored_name(n), "{n:?} should count");
        }
    }

    #[test]
    fn an_image_added_beside_an_essay_is_relevant_and_a_temporary_file_is_not() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("essays")).unwrap();
        let w = Watch::new(&root, false, |_| {}).unwrap();
        for p in ["essays/e/strip.svg", "essays/fig.PNG", "essays/a/b.jpeg", "essays/x.webp"] {
            assert!(w.relevant_path(&root.join(p)), "{p} should be relevant");
        }
        for p in ["essays/x.md.tmp", "essays/sedAb12Cd", "essays/x.md.vsctmp", "essays/notes.txt"] {
            assert!(!w.relevant_path(&root.join(p)), "{p} should be ignored");
        }
    }

    #[test]
    fn only_site_sources_are_relevant() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("essays")).unwrap();
        let w = Watch::new(&root, false, |_| {}).unwrap();
        for p in [
            "essays/a.md",
            "essays/sub/b.md",
            "templates/base.html",
            "static/style.css",
            "static/.well-known/security.txt",
            "static/.nojekyll",
            "countersign.yaml",
            "references.yaml",
            "essays",
        ] {
            assert!(w.relevant_path(&root.join(p)), "{p} should be relevant");
        }
        for p in [
            "public/index.html",
            ".countersign-cache/x.json",
            "target/debug/x",
            "README.md",
            "essays/.a.md.swp",
            "essays/a.md~",
            "essays/4913",
            "essays/.hidden/a.md",
            "templates/.old/base.html",
            "static/.style.css.swp",
            "static/.#style.css",
            "sub/countersign.yaml",
        ] {
            assert!(!w.relevant_path(&root.join(p)), "{p} should be ignored");
        }
        assert!(!w.relevant_path(Path::new("/elsewhere/a.md")));
    }
}
