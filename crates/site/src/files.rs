//! The site's files a build reads besides its essays and `countersign.yaml`: templates,
//! static files and `references.yaml`. Read once per build by [`load`] (the load stage);
//! rendering takes them as data and reads nothing.

use std::path::Path;

use crate::source::{Place, SourceError, STATIC_LIMIT, TEXT_LIMIT};
use countersign_core::diag::{Code, Diagnostic};
use countersign_render::{bib, SiteFiles, Theme};

/// Read the bytes of one source file, at most `limit` bytes, and only a regular file (see
/// [`crate::source::read_source`]). The one place a build reads a template, a static file
/// or the bibliography.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, SourceError> {
    crate::source::read_source(path, limit)
}

/// Read `root`'s `templates/*.html` (any depth), `static/` and `references.yaml` over
/// `theme`'s files. Errors: a file or folder that cannot be read, a template that is not
/// UTF-8, a file or folder whose real path is outside the site (a symbolic link out of it:
/// `outside-site`, see [`crate::source::place`]); each a diagnostic on it, and the rest is
/// still read.
pub fn load(root: &Path, theme: &Theme) -> (SiteFiles, Vec<Diagnostic>) {
    let mut files = SiteFiles::of_theme(theme);
    let mut diags = Vec::new();
    let real_root = crate::source::canonical_root(root);
    for (rel, bytes) in walk(root, &real_root, "templates", TEXT_LIMIT, &mut diags) {
        if !rel.ends_with(".html") {
            continue;
        }
        match String::from_utf8(bytes) {
            Ok(t) => {
                files.templates.retain(|(n, _)| *n != rel);
                files.templates.push((rel.clone(), t));
                files.own_templates.insert(rel);
            }
            Err(_) => diags.push(Diagnostic::error(Code::NotUtf8, format!("templates/{rel}"), 0..0, "the template is not UTF-8")),
        }
    }
    for (rel, bytes) in walk(root, &real_root, "static", STATIC_LIMIT, &mut diags) {
        files.statics.insert(rel.clone(), bytes);
        files.own_statics.insert(rel);
    }
    match crate::source::read_site_file(root, &real_root, bib::FILE, TEXT_LIMIT) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => files.bibliography = Some(t),
            Err(_) => diags.push(Diagnostic::error(Code::NotUtf8, bib::FILE, 0..0, "the bibliography is not UTF-8; save it as UTF-8")),
        },
        Err(SourceError::NotFound) => {}
        Err(e) => diags.push(crate::source::read_error(bib::FILE, &e)),
    }
    (files, diags)
}

/// The `outside-site` error on the site's file `shown` (`static/p.txt`), whose real path
/// is `real`.
fn outside(shown: &str, real: &Path) -> Diagnostic {
    let (message, hint) = crate::source::outside_message(shown, real);
    Diagnostic::error(Code::OutsideSite, shown, 0..0, message).with_hint(hint)
}

/// Every file under `root/folder` (links followed), sorted by name: its path relative
/// to the folder with `/` separators, and its bytes. No folder: nothing. The folder, and
/// every link met below it, must lead inside `real_root` (the canonical site root): a
/// link that leaves it is an `outside-site` error, and a linked folder's files are then
/// not read. Only links need the check, since a file reached through no link out of the
/// site is inside it.
fn walk(root: &Path, real_root: &Path, folder: &str, limit: u64, diags: &mut Vec<Diagnostic>) -> Vec<(String, Vec<u8>)> {
    let dir = root.join(folder);
    let mut found = Vec::new();
    if !dir.is_dir() {
        return found;
    }
    if let Place::Outside(real) = crate::source::place(&[real_root], &dir) {
        diags.push(outside(folder, &real));
        return found;
    }
    let shown = |p: &Path| format!("{folder}/{}", p.strip_prefix(&dir).unwrap_or(p).to_string_lossy().replace('\\', "/"));
    // Editors' files are skipped, and hidden names but in static/ (`content::skipped_name`).
    let skipped = |name: &std::ffi::OsStr| countersign_core::content::skipped_name(folder, &name.to_string_lossy());
    // Links out of the site, found as the walk meets them (and not walked into).
    let mut left = Vec::new();
    let mut leaves = |e: &walkdir::DirEntry| {
        let place = if e.path_is_symlink() { crate::source::place(&[real_root], e.path()) } else { Place::Inside };
        let Place::Outside(real) = place else { return false };
        left.push(outside(&shown(e.path()), &real));
        true
    };
    for e in crate::source::walk_folder(&dir, |e| skipped(e.file_name()) || leaves(e)) {
        match e {
            Ok(e) if e.file_type().is_file() => match read(e.path(), limit) {
                Ok(b) => found.push((shown(e.path())[folder.len() + 1..].to_string(), b)),
                Err(err) => diags.push(Diagnostic::error(Code::ReadFailed, shown(e.path()), 0..0, format!("cannot read: {err}"))),
            },
            Ok(e) => {
                if let Some(err) = crate::source::special_entry(e.file_type()) {
                    diags.push(Diagnostic::error(Code::ReadFailed, shown(e.path()), 0..0, format!("cannot read: {err}")));
                }
            }
            Err(err) if err.path().is_some_and(|p| p.strip_prefix(&dir).unwrap_or(p).iter().any(skipped)) => {}
            Err(err) => diags.push(Diagnostic::error(Code::ReadFailed, folder, 0..0, format!("cannot read {folder}/: {err}"))),
        }
    }
    diags.append(&mut left);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `static/` is published as it is, hidden files included (`.well-known/`, `.nojekyll`),
    /// but never an editor's file; in `templates/` a hidden name is skipped, as in `essays/`.
    #[test]
    fn hidden_static_files_are_published_and_editors_files_are_not() {
        let d = tempfile::tempdir().unwrap();
        let write = |p: &str| {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        };
        for p in
            ["static/.well-known/security.txt", "static/.nojekyll", "static/a.css", "static/.a.css.swp", "static/.#a.css", "static/a.css~"]
        {
            write(p);
        }
        for p in ["templates/.old/index.html", "templates/.x.html", "templates/page.html"] {
            write(p);
        }
        let theme = Theme { templates: &[("base.html", "{{ content }}")], statics: &[("style.css", b"")] };
        let (files, diags) = load(d.path(), &theme);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(files.own_statics.iter().map(String::as_str).collect::<Vec<_>>(), [".nojekyll", ".well-known/security.txt", "a.css"]);
        assert_eq!(files.own_templates.iter().map(String::as_str).collect::<Vec<_>>(), ["page.html"]);
    }

    /// A FIFO (or any entry that is not a file or a folder) in `static/`, `templates/` or
    /// `essays/` is an error naming it, never skipped; so is a bibliography or a census
    /// declaration that is not UTF-8 (never read with U+FFFD put in).
    #[cfg(unix)]
    #[test]
    fn fifos_and_text_that_is_not_utf8_are_errors_naming_the_file() {
        let d = tempfile::tempdir().unwrap();
        for dir in ["static", "templates", "essays", "censuses"] {
            std::fs::create_dir_all(d.path().join(dir)).unwrap();
        }
        for fifo in ["static/pipe.css", "templates/pipe.html", "essays/pipe.md", "essays/pipe.png"] {
            let made = std::process::Command::new("mkfifo").arg(d.path().join(fifo)).status().expect("mkfifo");
            assert!(made.success());
        }
        std::fs::write(d.path().join("references.yaml"), b"k:\n  title: caf\xe9\n").unwrap();
        std::fs::write(d.path().join("censuses/c.yaml"), b"command: [caf\xe9]\n").unwrap();
        let theme = Theme { templates: &[("base.html", "{{ content }}")], statics: &[] };
        let (files, mut diags) = load(d.path(), &theme);
        assert!(files.bibliography.is_none());
        let (_, essay_diags) = crate::essays::load_dir(d.path(), &d.path().join("essays"));
        diags.extend(essay_diags);
        diags.extend(crate::censuses::load(d.path()).diags);
        let mut found: Vec<(Code, String, bool)> = diags
            .iter()
            .map(|x| (x.code, x.origin.file().unwrap_or_default().to_string(), x.message.contains("FIFO") || x.message.contains("UTF-8")))
            .collect();
        found.sort_by(|a, b| a.1.cmp(&b.1));
        let want = [
            (Code::NotUtf8, "censuses/c.yaml"),
            (Code::ReadFailed, "essays/pipe.md"),
            (Code::ReadFailed, "essays/pipe.png"),
            (Code::NotUtf8, "references.yaml"),
            (Code::ReadFailed, "static/pipe.css"),
            (Code::ReadFailed, "templates/pipe.html"),
        ];
        assert_eq!(found, want.map(|(c, f)| (c, f.to_string(), true)), "{diags:#?}");
    }

    /// A template, a static file or a folder of `static/` that is a link out of the site
    /// is one `outside-site` error naming it, and nothing through it is read; links that
    /// stay inside the site are followed.
    #[cfg(unix)]
    #[test]
    fn links_out_of_the_site_are_refused_and_links_inside_it_followed() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("site");
        for dir in ["static", "templates", "shared", "../away/fonts"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("shared/a.css"), "a").unwrap();
        std::fs::write(d.path().join("away/fonts/f.woff"), "f").unwrap();
        std::fs::write(d.path().join("away/page.html"), "p").unwrap();
        let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
        link(Path::new("../shared/a.css"), "static/a.css");
        link(Path::new("../shared"), "static/shared");
        link(&d.path().join("away/fonts"), "static/fonts");
        link(&d.path().join("away/page.html"), "templates/page.html");
        link(&d.path().join("away/page.html"), "references.yaml");
        let theme = Theme { templates: &[("base.html", "{{ content }}")], statics: &[] };
        let (files, diags) = load(&root, &theme);
        assert_eq!(files.own_statics.iter().map(String::as_str).collect::<Vec<_>>(), ["a.css", "shared/a.css"]);
        assert!(files.own_templates.is_empty() && files.bibliography.is_none());
        let mut refused: Vec<(Code, &str)> = diags.iter().map(|x| (x.code, x.origin.file().unwrap_or_default())).collect();
        refused.sort();
        assert_eq!(
            refused,
            [(Code::OutsideSite, "references.yaml"), (Code::OutsideSite, "static/fonts"), (Code::OutsideSite, "templates/page.html")]
        );
    }
}
