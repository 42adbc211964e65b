//! Which file-system events call for a rebuild.
//!
//! Watched: the root itself (not recursively: it sees `countersign.yaml` and the site
//! folders appear or go), `essays/`, `templates/`, `static/` and `censuses/` recursively, and, for each
//! symlink in them, the folder of the file it points to (an editor saving the target by
//! rename replaces that file, so the file itself cannot be watched). Never watched:
//! `public/`, `.countersign-cache/`, `target/` or anything else in the root, so neither a
//! build nor the cache can trigger another build.
//!
//! Ignored: reads (access events) and the files editors write beside the one they save —
//! vim's `.name.swp`/`.swo`/`.swx` and its write test `4913`, backups ending in `~`,
//! emacs's `.#name` locks and `#name#` autosaves, and every other hidden file (editors'
//! temporary files; the loader skips hidden essays too). A save by rename (write a
//! temporary file, rename it over the essay) still counts: the rename's target is the
//! essay.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use notify::event::{EventKind, ModifyKind, RemoveKind};
use notify::{Event, RecommendedWatcher, RecursiveMode, Watcher};

/// The folders of a site that are watched recursively.
pub const FOLDERS: [&str; 4] = ["essays", "templates", "static", "censuses"];
/// The configuration file.
pub const CONFIG: &str = "countersign.yaml";

/// True for files editors write beside the one being saved, and other hidden files.
pub fn ignored_name(name: &str) -> bool {
    name.is_empty()
        || name.starts_with('.')
        || name.ends_with('~')
        || name == "4913"
        || (name.starts_with('#') && name.ends_with('#'))
        || [".swp", ".swo", ".swx", ".swpx"].iter().any(|s| name.ends_with(s))
}

/// Paths seen removed (or renamed away) during one debounce window.
#[derive(Default, Debug)]
pub struct Pending {
    removed: BTreeSet<PathBuf>,
}

impl Pending {
    /// True while a file removed during the window is still missing. An editor that saves
    /// by moving the old file away and writing a new one leaves it missing for a moment;
    /// the watch loop waits (up to `MISSING_GRACE`) for it to come back before building.
    pub fn missing(&self) -> bool {
        self.removed.iter().any(|p| !p.exists())
    }
}

/// The watcher and what it watches.
pub struct Watch {
    watcher: RecommendedWatcher,
    root: PathBuf,
    /// Site folders with a live recursive watch.
    folders: BTreeSet<PathBuf>,
    /// Folders outside the site holding symlink targets (watched non-recursively).
    outside: BTreeSet<PathBuf>,
    /// The files symlinks in the site folders point to (canonical).
    targets: BTreeSet<PathBuf>,
}

impl Watch {
    /// Start watching the site at `root` (canonical); every event is passed to `on_event`.
    ///
    /// Errors: the watcher cannot start or the root cannot be watched (e.g. the inotify
    /// watch limit is reached).
    pub fn new(root: &Path, on_event: impl Fn(notify::Result<Event>) + Send + 'static) -> notify::Result<Watch> {
        let mut watcher = notify::recommended_watcher(on_event)?;
        watcher.watch(root, RecursiveMode::NonRecursive)?;
        let mut w =
            Watch { watcher, root: root.to_path_buf(), folders: BTreeSet::new(), outside: BTreeSet::new(), targets: BTreeSet::new() };
        w.refresh();
        Ok(w)
    }

    /// Watch the site folders that exist and are not watched yet, and the folders of
    /// symlink targets. Called before every build.
    pub fn refresh(&mut self) {
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
        let mut targets = BTreeSet::new();
        for dir in &self.folders {
            for e in walkdir::WalkDir::new(dir).follow_links(false).into_iter().filter_map(Result::ok) {
                if !e.path_is_symlink() {
                    continue;
                }
                let Ok(target) = std::fs::canonicalize(e.path()) else { continue };
                if target.is_file() && !self.folders.iter().any(|f| target.starts_with(f)) {
                    targets.insert(target);
                }
            }
        }
        for t in &targets {
            if let Some(parent) = t.parent() {
                // The root is watched already (and must never be unwatched).
                if parent != self.root && !self.outside.contains(parent) && self.watcher.watch(parent, RecursiveMode::NonRecursive).is_ok()
                {
                    self.outside.insert(parent.to_path_buf());
                }
            }
        }
        // Stop watching folders no symlink points into any more.
        let still: BTreeSet<PathBuf> = targets.iter().filter_map(|t| t.parent().map(Path::to_path_buf)).collect();
        for gone in self.outside.difference(&still).cloned().collect::<Vec<_>>() {
            let _ = self.watcher.unwatch(&gone);
            self.outside.remove(&gone);
        }
        self.targets = targets;
    }

    /// True when `path` is a source of the site: in a site folder or the configuration,
    /// or a symlink target, and not an editor's temporary file.
    pub fn relevant_path(&self, path: &Path) -> bool {
        if self.targets.contains(path) {
            return true;
        }
        if let Ok(rel) = path.strip_prefix(&self.root) {
            let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
            let Some(first) = parts.next() else { return false };
            if first == CONFIG && rel.components().count() == 1 {
                return true;
            }
            if !FOLDERS.contains(&first.as_str()) {
                return false;
            }
            // An editor's file anywhere on the way (a hidden folder included) is ignored.
            return !rel.components().skip(1).any(|c| ignored_name(&c.as_os_str().to_string_lossy()));
        }
        false
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
    fn only_site_sources_are_relevant() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("essays")).unwrap();
        let w = Watch::new(&root, |_| {}).unwrap();
        for p in ["essays/a.md", "essays/sub/b.md", "templates/base.html", "static/style.css", "countersign.yaml", "essays"] {
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
            "sub/countersign.yaml",
        ] {
            assert!(!w.relevant_path(&root.join(p)), "{p} should be ignored");
        }
        assert!(!w.relevant_path(Path::new("/elsewhere/a.md")));
    }
}
