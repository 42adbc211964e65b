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
    pub files: BTreeMap<String, Bytes>,
}

impl Output {
    /// Add or replace a file.
    pub fn insert(&mut self, path: impl Into<String>, bytes: impl Into<Bytes>) {
        self.files.insert(path.into(), bytes.into());
    }
}

/// A file's bytes, shared rather than copied: the render's memory and every [`Output`]
/// made from it hold the same bytes, so watch mode's output of a rebuild costs a count
/// per file, not a copy of the site. Reads as a `[u8]`.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Bytes(std::sync::Arc<[u8]>);

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes(v.into())
    }
}

impl From<std::sync::Arc<[u8]>> for Bytes {
    fn from(v: std::sync::Arc<[u8]>) -> Bytes {
        Bytes(v)
    }
}

impl From<&[u8]> for Bytes {
    fn from(v: &[u8]) -> Bytes {
        Bytes(v.into())
    }
}

impl From<&Vec<u8>> for Bytes {
    fn from(v: &Vec<u8>) -> Bytes {
        Bytes(v.as_slice().into())
    }
}

impl From<String> for Bytes {
    fn from(v: String) -> Bytes {
        Bytes(v.into_bytes().into())
    }
}

impl From<&str> for Bytes {
    fn from(v: &str) -> Bytes {
        Bytes(v.as_bytes().into())
    }
}

impl PartialEq<[u8]> for Bytes {
    fn eq(&self, other: &[u8]) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<Vec<u8>> for Bytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        *self.0 == **other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Bytes {
    fn eq(&self, other: &[u8; N]) -> bool {
        *self.0 == *other
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Bytes {
    fn eq(&self, other: &&[u8; N]) -> bool {
        *self.0 == **other
    }
}

/// Where a render puts each file as soon as it is made: an [`Output`] in memory (watch
/// mode, tests), the temporary folder of a build (the site crate's `output::Staging`, so
/// that a build holds no more than one page at a time), or nowhere ([`Discard`], `check`).
/// A path given twice means its later bytes (a site static file over a theme's).
pub trait Sink {
    /// Add or replace the file at `path` (relative to the output root, `/`-separated).
    fn file(&mut self, path: &str, bytes: &Bytes);
}

impl Sink for Output {
    fn file(&mut self, path: &str, bytes: &Bytes) {
        self.files.insert(path.to_string(), bytes.clone());
    }
}

/// A [`Sink`] that keeps nothing: `check` renders every page for its diagnostics only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl Sink for Discard {
    fn file(&mut self, _: &str, _: &Bytes) {}
}

/// The files of `templates/` and `static/` at the repository's root, for this crate's
/// tests (the binary embeds the same files).
#[cfg(test)]
#[path = "../../../src/theme.rs"]
mod repository_files;

/// The repository's theme, for this crate's tests.
#[cfg(test)]
pub(crate) const REPOSITORY_THEME: Theme = Theme { templates: repository_files::TEMPLATES, statics: repository_files::STATICS };
