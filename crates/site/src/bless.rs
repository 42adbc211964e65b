//! `countersign check --bless`: rewrite each disagreeing stated value in place.
//!
//! Edits are applied per file from the last to the first, each only after checking that
//! its span still holds the stated text the check saw. Files are written through
//! symlinks to the real file: a temporary file beside it, then a rename.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use countersign_core::check::{ClaimReport, Status};
use countersign_core::diag::{Code, Diagnostic};

/// One rewrite: where, what was there, what goes there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The essay file (display name).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// Byte span of the stated text.
    pub span: std::ops::Range<usize>,
    /// The stated text now.
    pub old: String,
    /// Its replacement.
    pub new: String,
}

/// The edits `--bless` would make for `reports`, and diagnostics for the failed claims
/// whose form cannot hold the computed value.
pub fn plan(reports: &[ClaimReport]) -> (Vec<Edit>, Vec<Diagnostic>) {
    let mut edits = Vec::new();
    let mut diags = Vec::new();
    for r in reports {
        if r.status != Status::Fail {
            continue;
        }
        match (&r.bless, &r.stated_span, &r.stated) {
            (Some(Ok(new)), Some(span), Some(old)) => {
                edits.push(Edit { file: r.file.clone(), line: r.line, span: span.clone(), old: old.clone(), new: new.clone() })
            }
            (Some(Err(why)), Some(span), Some(old)) => diags.push(
                Diagnostic::error(Code::BlessRefused, &r.file, span.clone(), format!("cannot bless `{old}`: {why}"))
                    .with_label(format!("computed: {}", r.computed.clone().unwrap_or_default()))
                    .with_hint("rewrite this sentence by hand"),
            ),
            _ => {}
        }
    }
    (edits, diags)
}

/// Apply `edits` to the files under `root`. Returns the edits made; an edit whose span no
/// longer holds its old text (the file changed since it was checked) is refused, as is
/// every other edit of that file.
pub fn apply(root: &Path, edits: &[Edit]) -> Result<Vec<Edit>, Vec<Diagnostic>> {
    let mut by_file: BTreeMap<&str, Vec<&Edit>> = BTreeMap::new();
    for e in edits {
        by_file.entry(e.file.as_str()).or_default().push(e);
    }
    let mut done = Vec::new();
    let mut diags = Vec::new();
    for (file, mut list) in by_file {
        let path = root.join(file);
        let real = std::fs::canonicalize(&path).unwrap_or(path.clone());
        let mut text = match std::fs::read_to_string(&real) {
            Ok(t) => t,
            Err(e) => {
                diags.push(Diagnostic::error(Code::ReadFailed, file, 0..0, format!("cannot read for --bless: {e}")));
                continue;
            }
        };
        list.sort_by_key(|b| std::cmp::Reverse(b.span.start));
        let stale = list.iter().find(|e| text.get(e.span.clone()) != Some(e.old.as_str()));
        if let Some(e) = stale {
            diags.push(
                Diagnostic::error(
                    Code::BlessStale,
                    file,
                    0..0,
                    format!("{file} changed since it was checked (line {} no longer reads `{}`); nothing blessed in it", e.line, e.old),
                )
                .with_hint("run `countersign check --bless` again"),
            );
            continue;
        }
        for e in &list {
            text.replace_range(e.span.clone(), &e.new);
        }
        match replace(&real, &text) {
            Ok(()) => done.extend(list.into_iter().rev().cloned()),
            Err(e) => diags.push(Diagnostic::error(Code::WriteFailed, file, 0..0, format!("cannot write: {e}"))),
        }
    }
    if diags.is_empty() {
        Ok(done)
    } else {
        Err(diags)
    }
}

/// Replace the file `real` (no link) by `text`, keeping its permissions: a new file of a
/// random name beside it (`.NAME.bless-XXXXXX`, hidden, so a watching build skips it),
/// created exclusively, renamed over it; removed when anything fails.
fn replace(real: &Path, text: &str) -> std::io::Result<()> {
    let dir = real.parent().unwrap_or(Path::new("."));
    let name = real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.bless-")).tempfile_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    if let Ok(meta) = std::fs::metadata(real) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(real)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(file: &str, text: &str, old: &str, new: &str) -> Edit {
        let start = text.find(old).unwrap();
        Edit { file: file.into(), line: 1, span: start..start + old.len(), old: old.into(), new: new.into() }
    }

    /// A blessed file keeps its permissions, and whatever stands at a name a writer might
    /// pick for its temporary file (a link to a file outside the site, at the name of this
    /// process's id) is never written through.
    #[cfg(unix)]
    #[test]
    fn a_blessed_file_keeps_its_mode_and_nothing_at_a_temporary_name_is_written_through() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let (essays, outside) = (d.path().join("essays"), d.path().join("outside.txt"));
        std::fs::create_dir_all(&essays).unwrap();
        std::fs::write(&outside, "keep").unwrap();
        let text = "There are {{ 3 }} positions.\n";
        let a = essays.join("a.md");
        std::fs::write(&a, text).unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink(&outside, essays.join(format!(".a.md.bless-{}", std::process::id()))).unwrap();
        let done = apply(d.path(), &[edit("essays/a.md", text, "3", "4")]).unwrap();
        assert_eq!(done.len(), 1);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "There are {{ 4 }} positions.\n");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        let meta = std::fs::symlink_metadata(&a).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    }
}
