//! Images beside an essay: `![alt](fig.png)` in `essays/x.md` shows `essays/x/fig.png`
//! (or, failing that, `essays/fig.png`), copied to the page's folder as `x/fig.png`, so
//! the relative link works on the published page. Read during load (render reads no file);
//! a missing image is an error at its destination's line and column.

use std::ops::Range;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag};

use countersign_core::content::Essay;
use countersign_core::diag::{Code, Diagnostic};

/// An image an essay shows, read from beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EssayImage {
    /// The essay's slug (its page's folder).
    pub slug: String,
    /// The path in the output: `<slug>/<destination>`.
    pub out: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The essay's file, and the span of the image's first destination in it (where a
    /// diagnostic about the image points).
    pub file: String,
    /// See [`EssayImage::file`].
    pub span: Range<usize>,
}

/// The local images `essay` shows: each destination (a relative path: no scheme, not
/// absolute, no query or fragment) with its span in the file (the destination as
/// written, or the whole image when the destination is a reference defined elsewhere).
pub fn references(essay: &Essay) -> Vec<(String, Range<usize>)> {
    let body = &essay.source[essay.body.clone()];
    let mut found = Vec::new();
    for (event, range) in Parser::new_ext(body, countersign_core::content::scan::markdown_options()).into_offset_iter() {
        let Event::Start(Tag::Image { dest_url, .. }) = event else { continue };
        if in_claim(essay, essay.body.start + range.start) {
            continue;
        }
        let dest = dest_url.to_string();
        let external = dest.is_empty() || dest.contains(':') || dest.starts_with(['/', '#', '?']) || dest.contains("{{");
        if external {
            continue;
        }
        let text = &body[range.clone()];
        let at = text.find("](").and_then(|o| text[o..].find(dest.as_str()).map(|d| o + d));
        let span = match at {
            Some(a) => essay.body.start + range.start + a..essay.body.start + range.start + a + dest.len(),
            None => essay.body.start + range.start..essay.body.start + range.end,
        };
        found.push((dest, span));
    }
    found
}

/// Whether file offset `at` is inside a claim of `essay`, after its opening: a claim's
/// stated text is shown as written, never read as Markdown (`{{ plain ![i](j) }}` shows
/// no image). `essay.claims` is sorted by span.
fn in_claim(essay: &Essay, at: usize) -> bool {
    let after = essay.claims.partition_point(|c| c.span.start < at);
    after > 0 && at < essay.claims[after - 1].span.end
}

/// Read every local image of `essays` (see [`references`]): from `<dir>/<stem>/<dest>`,
/// else `<dir>/<dest>`, where `dir` is the essay's folder and `stem` its file name without
/// `.md`. Each image once per essay. A file found nowhere, a path leaving the folder
/// (`..`) or one that cannot be read is a `missing-image` error at the destination; a
/// file whose real path (links followed) is outside both the site `root` and the folder
/// the essay's own file really is in (an essay may be a link to a file elsewhere, its
/// images beside it) is an `outside-site` error there, never read.
pub fn load(root: &Path, essays: &[Essay]) -> (Vec<EssayImage>, Vec<Diagnostic>) {
    load_with(root, essays, &mut references)
}

/// Where an essay's images are referenced: (reference, span) pairs.
pub type References<'a> = dyn FnMut(&Essay) -> Vec<(String, Range<usize>)> + 'a;

/// [`load`], the images each essay shows found by `refs` (watch mode keeps what
/// [`references`] found in an unchanged essay).
pub fn load_with(root: &Path, essays: &[Essay], refs: &mut References) -> (Vec<EssayImage>, Vec<Diagnostic>) {
    let mut images = Vec::new();
    let mut diags = Vec::new();
    let real_root = crate::source::canonical_root(root);
    for essay in essays {
        let dir = essay.path.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = essay.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut real_dir = None;
        for (dest, span) in refs(essay) {
            let out = format!("{}/{dest}", essay.slug);
            if images.iter().any(|i: &EssayImage| i.out == out) {
                continue;
            }
            // Only an essay that shows an image has its real folder looked for.
            let real_dir = real_dir.get_or_insert_with(|| essay.path.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf)));
            let allowed: Vec<&Path> = std::iter::once(real_root.as_path()).chain(real_dir.as_deref()).collect();
            match read(&dir, &stem, &dest, &allowed) {
                Ok(bytes) => images.push(EssayImage { slug: essay.slug.clone(), out, bytes, file: essay.file.clone(), span }),
                Err(Unread::Outside(rel, real)) => {
                    let shown = Path::new(&essay.file).parent().map_or(rel.clone(), |d| format!("{}/{rel}", d.to_string_lossy()));
                    let (message, hint) = crate::source::outside_message(&shown, &real);
                    diags.push(
                        Diagnostic::error(Code::OutsideSite, &essay.file, span, format!("image `{dest}`: {message}"))
                            .with_label("this image")
                            .with_hint(hint),
                    );
                }
                Err(Unread::Missing(why)) => diags.push(
                    Diagnostic::error(Code::MissingImage, &essay.file, span, format!("image `{dest}`: {why}"))
                        .with_hint(format!("put it at essays/{stem}/{dest} or beside the essay, or correct the path")),
                ),
            }
        }
    }
    (images, diags)
}

/// Why an image was not read.
#[derive(Debug)]
enum Unread {
    /// Not found, not a path inside the essay's folder, or unreadable: why, in words.
    Missing(String),
    /// The file is a link to a file outside the folders allowed: its path from the
    /// essay's folder (`board.png`, `e/board.png`) and its real path.
    Outside(String, PathBuf),
}

/// The bytes of `dest` from the essay's own folder or beside it, or why not; the file
/// found must really be in one of `allowed` (canonical folders).
fn read(dir: &Path, stem: &str, dest: &str, allowed: &[&Path]) -> Result<Vec<u8>, Unread> {
    if dest.split(['/', '\\']).any(|s| s.is_empty() || s == "." || s == "..") {
        return Err(Unread::Missing("the path must stay inside the essay's folder (no `..`, `.` or empty parts)".into()));
    }
    for rel in [format!("{stem}/{dest}"), dest.to_string()] {
        let path = &dir.join(&rel);
        if let crate::source::Place::Outside(real) = crate::source::place(allowed, path) {
            return Err(Unread::Outside(rel, real));
        }
        match crate::source::read_source(path, crate::source::STATIC_LIMIT) {
            Ok(bytes) => return Ok(bytes),
            Err(crate::source::SourceError::NotFound) => continue,
            Err(e) => return Err(Unread::Missing(format!("cannot read {}: {e}", path.display()))),
        }
    }
    Err(Unread::Missing("no such file beside the essay".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_images_are_found_with_their_destination_spans() {
        let src = "---\ntitle: T\n---\n\n![a grid](fig.png) and ![x](https://e.org/x.png) ![y](/abs.png)\n\n![z](img/two.svg \"t\")\n";
        let (e, d) = countersign_core::content::parse_essay("essays/t.md", "essays/t.md".into(), src.into());
        assert!(d.is_empty(), "{d:?}");
        let r = references(&e.unwrap());
        assert_eq!(r.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(), ["fig.png", "img/two.svg"]);
        assert_eq!(&src[r[0].1.clone()], "fig.png");
        assert_eq!(&src[r[1].1.clone()], "img/two.svg");
    }

    #[test]
    fn an_image_written_in_a_claims_text_is_not_read() {
        let src = "---\ntitle: T\n---\n\nA {{ plain ![i](j.png) }} and ![b {{ plain 3 }}](k.png)\n";
        let (e, d) = countersign_core::content::parse_essay("essays/t.md", "essays/t.md".into(), src.into());
        assert!(d.is_empty(), "{d:?}");
        let r = references(&e.unwrap());
        assert_eq!(r.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>(), ["k.png"]);
    }

    #[test]
    fn a_path_out_of_the_folder_is_refused() {
        assert!(matches!(read(Path::new("."), "x", "../secret.png", &[]), Err(Unread::Missing(why)) if why.contains("inside")));
    }

    /// An image is read only from inside the site, or from beside the essay's own real
    /// file when the essay is a link to a file elsewhere (its images travel with it); a
    /// link anywhere else is an `outside-site` error at the image.
    #[cfg(unix)]
    #[test]
    fn an_image_linked_out_of_the_site_is_refused_but_one_beside_a_linked_essay_is_read() {
        let d = tempfile::tempdir().unwrap();
        let (root, away) = (d.path().join("site"), d.path().join("away"));
        std::fs::create_dir_all(root.join("essays")).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        let text = "---\ntitle: T\n---\n\n![a](fig.png) ![b](other.png)\n";
        std::fs::write(away.join("t.md"), text).unwrap();
        std::fs::write(away.join("fig.png"), "png").unwrap();
        std::fs::write(d.path().join("other.png"), "other").unwrap();
        std::os::unix::fs::symlink(away.join("t.md"), root.join("essays/t.md")).unwrap();
        std::os::unix::fs::symlink(away.join("fig.png"), root.join("essays/fig.png")).unwrap();
        std::os::unix::fs::symlink(d.path().join("other.png"), root.join("essays/other.png")).unwrap();
        let (e, _) = countersign_core::content::parse_essay("essays/t.md", root.join("essays/t.md"), text.into());
        let (images, diags) = load(&root, &[e.unwrap()]);
        assert_eq!(images.iter().map(|i| (i.out.as_str(), i.bytes.as_slice())).collect::<Vec<_>>(), [("t/fig.png", &b"png"[..])]);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!((diags[0].code, &text[diags[0].span.clone()]), (Code::OutsideSite, "other.png"));
        assert!(diags[0].message.contains("essays/other.png links outside the site root"), "{}", diags[0].message);
    }
}
