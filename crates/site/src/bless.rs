//! `countersign check --bless`: rewrite each disagreeing stated value in place.
//!
//! Edits are applied per file from the last to the first, each only after checking that
//! its span still holds the stated text the check saw. Files are written through
//! symlinks to the real file: a temporary file beside it, then a rename.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use countersign_core::check::{ClaimReport, Status};
use countersign_core::diag::{Applicability, Code, Diagnostic, Sources};

/// One rewrite: where, what was there, what goes there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The essay file (display name).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters) of the stated text.
    pub column: usize,
    /// Byte span of the stated text.
    pub span: std::ops::Range<usize>,
    /// The stated text now.
    pub old: String,
    /// Its replacement.
    pub new: String,
}

/// The edits `--bless` would make: the safe fix of every diagnostic in `diags` that
/// carries one (a claim mismatch whose stated form can hold the computed value), with
/// the text it replaces read from `sources`; and diagnostics for the failed claims of
/// `reports` whose form cannot hold the computed value.
pub fn plan(diags: &[Diagnostic], sources: &Sources, reports: &[ClaimReport]) -> (Vec<Edit>, Vec<Diagnostic>) {
    let mut edits = Vec::new();
    for d in diags {
        let (Some(fix), Some(file)) = (d.fix(), d.origin.file()) else { continue };
        if fix.applicability != Applicability::Safe {
            continue;
        }
        let Some(old) = sources.get(file).and_then(|t| t.get(fix.span.clone())) else { continue };
        let (line, column) = sources.place(&d.origin, fix.span.start);
        edits.push(Edit {
            file: file.to_string(),
            line,
            column,
            span: fix.span.clone(),
            old: old.to_string(),
            new: fix.replacement.clone(),
        });
    }
    let mut refusals = Vec::new();
    for r in reports {
        if let (Status::Fail, Some(Err(why)), Some(span), Some(old)) = (&r.status, &r.bless, &r.stated_span, &r.stated) {
            refusals.push(
                Diagnostic::error(Code::BlessRefused, &r.file, span.clone(), format!("cannot bless `{old}`: {why}"))
                    .with_label(format!("computed: {}", r.computed.clone().unwrap_or_default()))
                    .with_hint("rewrite this sentence by hand"),
            );
        }
    }
    (edits, refusals)
}

/// Apply `edits` to the files under `root`: the edits made, and a diagnostic for each
/// one refused. An edit whose span no longer holds its old text (the file changed since
/// it was checked) is refused with every other edit of that file. An edit after which
/// the file would not read back as the same essay with only that stated value changed
/// (see [`reads_back`]) is refused alone and the file's other edits are made.
pub fn apply(root: &Path, edits: &[Edit]) -> (Vec<Edit>, Vec<Diagnostic>) {
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
        let mut made = Vec::new();
        let mut reading = Reading::of(file, &text);
        for e in list {
            let mut next = text.clone();
            next.replace_range(e.span.clone(), &e.new);
            let next_reading = Reading::of(file, &next);
            match reads_back(&reading, &next_reading, e) {
                Ok(()) => {
                    (text, reading) = (next, next_reading);
                    made.push(e.clone());
                }
                Err(why) => diags.push(
                    Diagnostic::error(Code::BlessRefused, file, e.span.clone(), format!("cannot bless `{}`: {why}", e.old))
                        .with_label(format!("computed: {}", e.new))
                        .with_hint("rewrite this sentence by hand"),
                ),
            }
        }
        if made.is_empty() {
            continue;
        }
        match replace(&real, &text) {
            Ok(()) => done.extend(made.into_iter().rev()),
            Err(e) => diags.push(Diagnostic::error(Code::WriteFailed, file, 0..0, format!("cannot write: {e}"))),
        }
    }
    (done, diags)
}

/// An essay's text as [`reads_back`] compares it: its problems, the essay (none when it
/// does not parse) and its Markdown structure.
pub struct Reading {
    problems: Vec<(Code, String)>,
    essay: Option<countersign_core::content::Essay>,
    shape: Vec<Shape>,
}

impl Reading {
    /// Read `text`, the essay file `file`.
    pub fn of(file: &str, text: &str) -> Reading {
        let (essay, diags) = countersign_core::content::parse_essay(file, file.into(), text.to_string());
        let problems = diags.iter().map(|d| (d.code, d.message.clone())).collect();
        let shape = essay.as_ref().map(shape).unwrap_or_default();
        Reading { problems, essay, shape }
    }
}

/// Whether `after` (the reading of an essay's text with edit `e` made; `before`, of the
/// text without it) reads as the same essay with only the stated value of `e`'s claim
/// changed to `e.new`: the same problems, the same claims in the same order, each written
/// the same but that one, which states `e.new`, and the same Markdown structure outside
/// claims. A census's text can break what holds the claim: a `"` ends a quoted YAML
/// caption, `: ` or ` #` a plain one, a `|` a table cell, a `"` a link's title. Else why
/// not, in words. The caller reads each text once: an accepted edit's `after` is the next
/// edit's `before`.
pub fn reads_back(before: &Reading, after: &Reading, e: &Edit) -> Result<(), String> {
    use countersign_core::content::claim::ClaimKind;
    if let Some((code, message)) = after.problems.iter().find(|p| !before.problems.contains(p)) {
        return Err(format!("writing `{}` here would break the essay ({code}: {message})", e.new));
    }
    let (Some(old), Some(new)) = (&before.essay, &after.essay) else {
        return Err(format!("writing `{}` here would unmake the essay", e.new));
    };
    let shift = |at: usize| if at >= e.span.end { at + e.new.len() - e.old.len() } else { at };
    let same = old.claims.len() == new.claims.len()
        && old.claims.iter().zip(&new.claims).all(|(o, n)| {
            let edited = o.span.start <= e.span.start && e.span.end <= o.span.end;
            let written = (shift(o.span.start)..shift(o.span.end)) == n.span;
            let stated = match &n.kind {
                ClaimKind::Check { stated, .. } => !edited || *stated == e.new,
                _ => !edited,
            };
            written && stated && std::mem::discriminant(&o.kind) == std::mem::discriminant(&n.kind)
        });
    if !same {
        return Err(format!("`{}` would not read back as this claim's stated value", e.new));
    }
    if before.shape != after.shape {
        return Err(format!("writing `{}` here would change the Markdown around the claim (a link's title, say)", e.new));
    }
    Ok(())
}

/// One piece of an essay body's Markdown structure (see [`shape`]).
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    Open(pulldown_cmark::TagEnd),
    Close(pulldown_cmark::TagEnd),
    /// Any other event but text and soft breaks, by kind.
    Other(u8),
}

/// The Markdown structure of `essay`'s body: its events but text and soft breaks, by
/// kind, leaving out those that begin inside a claim (the page never reads a claim's text
/// as Markdown). A census's text in a link's title (`"`, `'` or `)` there) can end the
/// title and make the link plain text; the claim is still read, so only this tells.
fn shape(essay: &countersign_core::content::Essay) -> Vec<Shape> {
    use pulldown_cmark::{Event, Parser};
    let body = &essay.source[essay.body.clone()];
    let in_claim = |at: usize| {
        let after = essay.claims.partition_point(|c| c.span.start < at);
        after > 0 && at < essay.claims[after - 1].span.end
    };
    let options = countersign_core::content::scan::markdown_options();
    let events = Parser::new_ext(body, options).into_offset_iter().filter(|(_, r)| !in_claim(essay.body.start + r.start));
    events
        .filter_map(|(ev, _)| {
            Some(match ev {
                Event::Start(tag) => Shape::Open(tag.into()),
                Event::End(end) => Shape::Close(end),
                Event::Text(_) | Event::SoftBreak => return None,
                Event::Code(_) => Shape::Other(0),
                Event::InlineMath(_) => Shape::Other(1),
                Event::DisplayMath(_) => Shape::Other(2),
                Event::Html(_) => Shape::Other(3),
                Event::InlineHtml(_) => Shape::Other(4),
                Event::FootnoteReference(_) => Shape::Other(5),
                Event::HardBreak => Shape::Other(6),
                Event::Rule => Shape::Other(7),
                Event::TaskListMarker(done) => Shape::Other(8 + done as u8),
            })
        })
        .collect()
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

    /// `plan` takes exactly the safe fixes the diagnostics carry, with the text each
    /// replaces read from the sources and its line and column; a suggestion shown only
    /// (`Display`) and a diagnostic without a fix are left alone.
    #[test]
    fn the_plan_is_the_safe_fixes_of_the_diagnostics() {
        use countersign_core::diag::Fix;
        let text = "---\ntitle: A\n---\nx {{ g.n = 1,000 }} and {{ g.m = 7 }}\n";
        let mut sources = Sources::new();
        sources.add("essays/a.md", text);
        let at = |s: &str| text.find(s).unwrap()..text.find(s).unwrap() + s.len();
        let fix = |span: std::ops::Range<usize>, new: &str, applicability| Fix {
            span,
            replacement: new.into(),
            description: format!("write `{new}`"),
            applicability,
        };
        let diags = vec![
            Diagnostic::error(Code::ClaimMismatch, "essays/a.md", at("1,000"), "m").with_fix(fix(
                at("1,000"),
                "1,001",
                Applicability::Safe,
            )),
            Diagnostic::error(Code::ClaimMismatch, "essays/a.md", at("7"), "m").with_fix(fix(at("7"), "8", Applicability::Display)),
            Diagnostic::error(Code::ClaimMismatch, "essays/a.md", at("g.m"), "m"),
        ];
        let (edits, refusals) = plan(&diags, &sources, &[]);
        assert!(refusals.is_empty());
        let want = Edit { file: "essays/a.md".into(), line: 4, column: 12, span: at("1,000"), old: "1,000".into(), new: "1,001".into() };
        assert_eq!(edits, vec![want]);
    }

    /// A census's text that would break what holds the claim is refused, the file's
    /// other edits made: `--bless` wrote `say "hi"` into a quoted YAML caption, `a: b # c`
    /// into a plain one, `a | b` into a table cell, and `"`, `'` or `)` into a link's
    /// title of that quote (the link became plain text), and then reported success.
    #[test]
    fn an_edit_that_would_not_read_back_is_refused_alone() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("essays")).unwrap();
        let text = "---\ntitle: E\n---\n\n```census\nid: s\nrun: c\n```\n\n```figure\nid: f\nfrom: s\nplot: table\n\
                    caption: \"Quoted {{ s.q = QQ }} here.\"\nalt: Plain {{ s.c = CC }} here\n```\n\n\
                    | a | b |\n|---|---|\n| {{ s.p = PP }} | 2 |\n\nBody {{ s.ok = OK1 }} and {{ s.star = ST1 }}.\n\n\
                    [a](https://e.org \"p. {{ s.t1 = T1 }}\") [b](https://e.org 'p. {{ s.t2 = T2 }}') \
                    [c](https://e.org (p. {{ s.t3 = T3 }})) [d](https://e.org \"p. {{ s.t4 = T4 }}\")\n";
        let a = d.path().join("essays/a.md");
        std::fs::write(&a, text).unwrap();
        let edits = [
            edit("essays/a.md", text, "QQ", "say \"hi\""),
            edit("essays/a.md", text, "CC", "a: b # c"),
            edit("essays/a.md", text, "PP", "a | b"),
            edit("essays/a.md", text, "OK1", "plain"),
            edit("essays/a.md", text, "ST1", "*a*: \"b\" # c"),
            edit("essays/a.md", text, "T1", "4\" x"),
            edit("essays/a.md", text, "T2", "it's"),
            edit("essays/a.md", text, "T3", "a) b"),
            edit("essays/a.md", text, "T4", "it's (a)"),
        ];
        let (done, diags) = apply(d.path(), &edits);
        let made: Vec<&str> = done.iter().map(|e| e.new.as_str()).collect();
        assert_eq!(made, ["plain", "*a*: \"b\" # c", "it's (a)"], "{diags:?}");
        assert_eq!(diags.len(), 6, "{diags:?}");
        for (diag, old) in diags.iter().zip(["T3", "T2", "T1", "PP", "CC", "QQ"]) {
            assert_eq!(diag.code, Code::BlessRefused);
            assert!(diag.message.starts_with(&format!("cannot bless `{old}`: ")), "{}", diag.message);
            assert_eq!(&text[diag.span.clone()], old);
        }
        let want = text
            .replace("{{ s.ok = OK1 }}", "{{ s.ok = plain }}")
            .replace("{{ s.star = ST1 }}", "{{ s.star = *a*: \"b\" # c }}")
            .replace("{{ s.t4 = T4 }}", "{{ s.t4 = it's (a) }}");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), want);
    }

    fn edit(file: &str, text: &str, old: &str, new: &str) -> Edit {
        let start = text.find(old).unwrap();
        Edit { file: file.into(), line: 1, column: 1, span: start..start + old.len(), old: old.into(), new: new.into() }
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
        let text = "---\ntitle: A\n---\nThere are {{ g.n = 3 }} positions.\n";
        let a = essays.join("a.md");
        std::fs::write(&a, text).unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink(&outside, essays.join(format!(".a.md.bless-{}", std::process::id()))).unwrap();
        let (done, diags) = apply(d.path(), &[edit("essays/a.md", text, "3", "4")]);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(done.len(), 1);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), text.replace("= 3 }}", "= 4 }}"));
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        let meta = std::fs::symlink_metadata(&a).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    }
}
