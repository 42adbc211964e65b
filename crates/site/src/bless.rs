//! `countersign check --bless`: rewrite each disagreeing stated value in place.
//!
//! Edits are applied per file from the last to the first, each only after checking that
//! its span still holds the stated text the check saw. Files are written through
//! symlinks to the real file: a temporary file beside it, then a rename.

use std::collections::BTreeMap;
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
        let tmp = real.with_file_name(format!(
            ".{}.bless-{}",
            real.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            std::process::id()
        ));
        let written = std::fs::write(&tmp, &text).and_then(|_| {
            if let Ok(meta) = std::fs::metadata(&real) {
                let _ = std::fs::set_permissions(&tmp, meta.permissions());
            }
            std::fs::rename(&tmp, &real)
        });
        match written {
            Ok(()) => done.extend(list.into_iter().rev().cloned()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                diags.push(Diagnostic::error(Code::WriteFailed, file, 0..0, format!("cannot write: {e}")));
            }
        }
    }
    if diags.is_empty() {
        Ok(done)
    } else {
        Err(diags)
    }
}
