//! What rendering takes besides the essays and the configuration, and what it returns: the
//! site's templates, static files and bibliography text as data ([`SiteFiles`], over a
//! [`Theme`] of defaults), and the files of the built site ([`Output`]). The site crate
//! reads the first from disk and writes the second; nothing here touches a file.

use std::collections::{BTreeMap, BTreeSet};

/// The templates and static files a site has when it has none of its own. The binary
/// embeds its theme (the repository's `templates/` and `static/`); tests may pass others.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    /// Template texts by name (`base.html`, `essay.html`, `index.html`, `ladder.html`,
    /// `404.html`).
    pub templates: &'static [(&'static str, &'static str)],
    /// Static files by their path in the output (`style.css`, `search.js`).
    pub statics: &'static [(&'static str, &'static [u8])],
}

/// Templates, static files and the bibliography's text, as read from a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteFiles {
    /// Template texts by name: the theme's, each replaced by the site's
    /// `templates/<name>` when it has one, then the site's others (sorted by name).
    pub templates: Vec<(String, String)>,
    /// The names of the templates read from the site's `templates/` (its diagnostics can
    /// point into those; a theme's one is not in the site).
    pub own_templates: BTreeSet<String>,
    /// Static files by their path in the output: the theme's, then the site's `static/`
    /// over them.
    pub statics: BTreeMap<String, Vec<u8>>,
    /// The paths of the static files read from the site's `static/`.
    pub own_statics: BTreeSet<String>,
    /// The text of `references.yaml`; `None` when the site has none.
    pub bibliography: Option<String>,
}

impl SiteFiles {
    /// The files of a site that has none of its own: `theme`'s templates and static files,
    /// no bibliography.
    pub fn of_theme(theme: &Theme) -> SiteFiles {
        SiteFiles {
            templates: theme.templates.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect(),
            own_templates: BTreeSet::new(),
            statics: theme.statics.iter().map(|(p, b)| (p.to_string(), b.to_vec())).collect(),
            own_statics: BTreeSet::new(),
            bibliography: None,
        }
    }

    /// The text of template `name` (`essay.html`), if there is one.
    pub fn template(&self, name: &str) -> Option<&str> {
        self.templates.iter().find(|(n, _)| n == name).map(|(_, t)| t.as_str())
    }
}

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

/// Where a render puts each file as soon as it is made: an [`Output`] in memory (watch
/// mode, tests), the temporary folder of a build (the site crate's `output::Staging`, so
/// that a build holds no more than one page at a time), or nowhere ([`Discard`], `check`).
/// A path given twice means its later bytes (a site static file over a theme's).
pub trait Sink {
    /// Add or replace the file at `path` (relative to the output root, `/`-separated).
    fn file(&mut self, path: &str, bytes: &[u8]);
}

impl Sink for Output {
    fn file(&mut self, path: &str, bytes: &[u8]) {
        self.files.insert(path.to_string(), bytes.to_vec());
    }
}

/// A [`Sink`] that keeps nothing: `check` renders every page for its diagnostics only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Sink for Discard {
    fn file(&mut self, _: &str, _: &[u8]) {}
}

/// The files of `templates/` and `static/` at the repository's root, for this crate's
/// tests (the binary embeds the same files).
#[cfg(test)]
#[path = "../../../src/theme.rs"]
mod repository_files;

/// The repository's theme, for this crate's tests.
#[cfg(test)]
pub(crate) const REPOSITORY_THEME: Theme = Theme { templates: repository_files::TEMPLATES, statics: repository_files::STATICS };
