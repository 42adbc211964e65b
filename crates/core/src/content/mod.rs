//! Loading essays: front matter, directive blocks and claims, each with byte spans into
//! the essay's source so that every later diagnostic can point at the right character.
//!
//! Loading knows nothing of any census or game: a ```` ```census ```` block is kept as its
//! `id`, its `run` name and its YAML text; the pipeline asks the census registry to make
//! sense of the parameters.

pub mod claim;
pub mod footnotes;
pub mod front;
pub mod inline;
pub mod scan;

use std::ops::Range;
use std::path::{Path as FsPath, PathBuf};

use serde::Deserialize;

use crate::diag::{Code, Diagnostic};
use crate::text::heading_id;
pub use claim::{Claim, ClaimKind, Path, Step};
pub use front::FrontMatter;
use scan::FencedBlock;

/// A ```` ```census ```` block: `id`, `run`, and the block's YAML for the census to parse.
#[derive(Clone, Debug)]
pub struct CensusBlock {
    /// The name results are bound to for the rest of the essay.
    pub id: String,
    /// The census name, e.g. `welter.census`.
    pub run: String,
    /// Span of `run`'s value in the essay.
    pub run_span: Range<usize>,
    /// The block as Markdown sees it.
    pub block: FencedBlock,
}

/// A ```` ```figure ```` block: the common keys, and the kind-specific rest.
#[derive(Clone, Debug)]
pub struct FigureBlock {
    /// Unique within the essay; the figure's anchor is `fig-<id>`.
    pub id: String,
    /// A path into a bound result (`small.grid2`), or a bare census id.
    pub from: claim::Path,
    /// Span of `from`'s value.
    pub from_span: Range<usize>,
    /// The figure kind: `grid`, `bars`, `strip`, `trie`, `table`, `lines`, ….
    pub plot: String,
    /// Span of `plot`'s value.
    pub plot_span: Range<usize>,
    /// Caption as plain text (claims as their stated text, Markdown dropped), for the
    /// SVG's title.
    pub caption: String,
    /// Caption as written (Markdown, math and claims), for the page.
    pub caption_markdown: String,
    /// Span in the file of the caption's value as written.
    pub caption_span: Range<usize>,
    /// Alternative text for readers who cannot see the figure, as plain text (claims as
    /// their stated text, Markdown dropped).
    pub alt: String,
    /// Span in the file of the alt text's value as written.
    pub alt_span: Range<usize>,
    /// The remaining keys, for the figure kind to deserialize.
    pub options: serde_json::Map<String, serde_json::Value>,
    /// The block as Markdown sees it.
    pub block: FencedBlock,
}

/// One essay, loaded.
#[derive(Clone, Debug)]
pub struct Essay {
    /// The file as shown in diagnostics: its path relative to the site root.
    pub file: String,
    /// The file's path on disk.
    pub path: PathBuf,
    /// URL slug from the file name (`essays/no-two-heaps.md` → `no-two-heaps`, served at
    /// `/no-two-heaps/`).
    pub slug: String,
    /// The whole file (shared with the diagnostics' [`crate::diag::Sources`], so a build
    /// of n essays does not copy every text again).
    pub source: std::sync::Arc<str>,
    /// Parsed front matter.
    pub front: FrontMatter,
    /// Byte range of the Markdown body (after the front matter).
    pub body: Range<usize>,
    /// Census calls, in order.
    pub calls: Vec<CensusBlock>,
    /// The ids of census blocks whose YAML did not parse (already an error), read from
    /// their `id:` line, so that claims on them are not reported again as unbound.
    pub broken_ids: Vec<String>,
    /// Figures, in order (numbered from 1 in this order).
    pub figures: Vec<FigureBlock>,
    /// Claims, in order.
    pub claims: Vec<Claim>,
    /// Ranges of the body where claims are not recognised in prose (code, HTML, math).
    pub excluded: Vec<Range<usize>>,
    /// The body's math (`$…$`, `$$…$$`), sorted.
    pub math: Vec<Range<usize>>,
}

/// The slug of an essay file: its stem, lower-cased, with every run of characters other
/// than letters and digits (Unicode's, so `été ü.md` gives `été-ü`; combining accents,
/// U+0300 to U+036F, count as letters, so a decomposed name keeps them) replaced by one
/// `-`, and no `-` at either end. Letters are kept rather than transliterated: a slug is
/// never lossy in any script, and no table of transliterations has to be trusted. Stable:
/// it depends on the file name only.
pub fn slug_of(path: &FsPath) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_alphanumeric() || ('\u{300}'..='\u{36f}').contains(&c) {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// True for a hidden file or folder name (it starts with `.`). Everything below a site
/// folder with a hidden name on its way is skipped by the loader and ignored by watch mode
/// (but see [`skipped_name`] for `static/`): one rule for both (the guide's "The files of a site", `docs/guide/essays/site-files.md`, "Which files are read").
pub fn hidden_name(name: &str) -> bool {
    name.starts_with('.')
}

/// True for a file an editor writes beside the one being saved: vim's swap files
/// (`.x.swp`, `.swo`, `.swx`, `.swpx`) and its write test `4913`, backups ending in `~`,
/// emacs's `.#x` locks and `#x#` autosaves.
pub fn editor_file_name(name: &str) -> bool {
    name.is_empty()
        || name.starts_with(".#")
        || name.ends_with('~')
        || name == "4913"
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        || [".swp", ".swo", ".swx", ".swpx"].iter().any(|s| name.ends_with(s))
}

/// True when a file or folder `name` anywhere below the site folder `folder` (`essays`,
/// `templates`, `static`, `censuses`) is skipped by the loader and ignored by watch mode:
/// an editor's file ([`editor_file_name`]) everywhere, and a hidden name everywhere but in
/// `static/`, whose hidden files (`.well-known/`, `.nojekyll`) are published as they are.
pub fn skipped_name(folder: &str, name: &str) -> bool {
    editor_file_name(name) || (folder != "static" && hidden_name(name))
}

/// True for an essay's file name: it ends with `.md` in any case (`x.md`, `E.MD`).
pub fn essay_name(name: &str) -> bool {
    let n = name.len();
    n > 3 && name.is_char_boundary(n - 3) && name[n - 3..].eq_ignore_ascii_case(".md")
}

/// True when `rel` (a path below a site folder) has a hidden name on its way.
pub fn hidden_path(rel: &FsPath) -> bool {
    rel.components().any(|c| matches!(c, std::path::Component::Normal(n) if hidden_name(&n.to_string_lossy())))
}

/// The byte offset in `text` of 1-based `line`, `column` (columns in characters), clamped.
pub fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for _ in 1..line.max(1) {
        match text[off..].find('\n') {
            Some(n) => off += n + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[off..text[off..].find('\n').map(|n| off + n).unwrap_or(text.len())];
    let col_bytes: usize = line_text.chars().take(column.saturating_sub(1)).map(char::len_utf8).sum();
    off + col_bytes
}

/// The span of the one character at byte `at` of `text` (empty at the end): error spans
/// from YAML positions must not split a multi-byte character (found by fuzzing).
pub fn char_span(text: &str, at: usize) -> Range<usize> {
    let at = at.min(text.len());
    at..at + text[at..].chars().next().map_or(0, char::len_utf8)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
struct CensusHead {
    id: String,
    run: String,
    #[allow(dead_code)]
    with: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(expecting = "a mapping of keys to values")]
struct FigureHead {
    id: String,
    from: String,
    plot: String,
    caption: String,
    alt: String,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Diagnostic for a YAML error inside a directive block.
pub fn block_yaml_diag(file: &str, block: &FencedBlock, e: &crate::yaml::YamlError, what: &str) -> Diagnostic {
    let span = match (e.line, e.column) {
        (Some(l), Some(c)) => {
            let r = char_span(&block.content, offset_of(&block.content, l, c));
            block.source_offset(r.start)..block.source_offset(r.start) + r.len().max(1)
        }
        _ => block.span.start..block.span.start + 1,
    };
    Diagnostic::error(Code::BadBlock, file, span, format!("{what}: {}", e.message)).with_label("here").with_hint(match what {
        "in this census block" => "a census block holds `id`, `run` and `with`; see `countersign list` for parameters",
        _ => "a figure block holds id, from, plot, caption, alt and the kind's own keys",
    })
}

/// The span in the essay of the value of top-level `key` in a directive block (of its key
/// when the value is left out; the block's fence when the key is absent), placed by the
/// block's YAML index `ix`.
pub fn block_key_span(block: &FencedBlock, ix: &crate::yaml::Index, key: &str) -> Range<usize> {
    match ix.value_or_key(&[key]) {
        Some(r) => block.source_offset(r.start)..block.source_offset(r.end),
        None => block.span.start..block.span.start + 3,
    }
}

/// A figure's `caption` or `alt` (`key`, parsed as `decoded`, placed by the block's
/// index): its claims, found in the block as written, go to `claims`; returns the plain
/// text (claims as stated, Markdown dropped) and the value's span in the file.
fn figure_text(
    file: &str,
    source: &str,
    (b, ix): (&FencedBlock, &crate::yaml::Index),
    key: &str,
    decoded: &str,
    claims: &mut Vec<Claim>,
    diags: &mut Vec<Diagnostic>,
) -> (String, Range<usize>) {
    let Some(region) = ix.value(&[key]) else { return (inline::strip_markdown(decoded), b.span.clone()) };
    let span = b.source_offset(region.start)..b.source_offset(region.end);
    // Claims are read from the file's text of the value (a block quote's `>` included),
    // so that their spans point into the file.
    let (mut found, mut errors) = inline::claims_in(source, span.clone(), 0);
    let what = if key == "alt" { "alt text" } else { "a caption" };
    let plain = inline::substitute(decoded, &found, source, what);
    errors.extend(plain.as_ref().err().cloned());
    inline::drop_unread(&mut found, &errors);
    for e in errors {
        diags.push(Diagnostic::error(e.code, file, e.span, e.message).with_label("in this claim").with_hint(e.hint));
    }
    claims.extend(found);
    (inline::strip_markdown(&plain.unwrap_or_else(|_| decoded.to_string())), span)
}

/// Errors for claims in a figure's other options (`x_label`, `labels`, a column's `label`,
/// …): they are drawn into the figure as written and never checked, so each is
/// `claim-misplaced` at the claim. Only the caption and the alt text carry claims.
fn claims_in_options(
    file: &str,
    source: &str,
    (b, ix): (&FencedBlock, &crate::yaml::Index),
    options: &serde_json::Map<String, serde_json::Value>,
    diags: &mut Vec<Diagnostic>,
) {
    for key in options.keys() {
        let Some(region) = ix.value(&[key.as_str()]) else { continue };
        let span = b.source_offset(region.start)..b.source_offset(region.end);
        let (found, _) = inline::claims_in(source, span, 0);
        for c in found {
            diags.push(
                Diagnostic::error(Code::ClaimMisplaced, file, c.span, format!("a claim cannot go in a figure's `{key}`"))
                    .with_label("drawn as written, never checked")
                    .with_hint("state the number in the caption, where it is checked, or give the label without it"),
            );
        }
    }
}

/// The census block `b` of an essay whose text is `source`, when its YAML reads, its id is
/// usable and not one of `calls`' already; else its diagnostic in `diags` (and, for YAML
/// that does not read, the id as far as it could be read in `broken_ids`).
fn census_block(
    file: &str,
    source: &str,
    b: FencedBlock,
    calls: &[CensusBlock],
    diags: &mut Vec<Diagnostic>,
    broken_ids: &mut Vec<String>,
) -> Option<CensusBlock> {
    match crate::yaml::parse::<CensusHead>(&b.content) {
        Ok((h, ix)) => {
            if !is_identifier(&h.id) {
                diags.push(
                    Diagnostic::error(Code::BadId, file, block_key_span(&b, &ix, "id"), format!("`{}` is not a usable id", h.id))
                        .with_hint("an id is a name like `small` or `pairs_2`: letters, digits, `_`, `-`"),
                );
                return None;
            }
            if let Some(prev) = calls.iter().find(|c: &&CensusBlock| c.id == h.id) {
                let (line, _) = crate::diag::line_col(source, prev.block.span.start);
                diags.push(
                    Diagnostic::error(Code::DuplicateId, file, block_key_span(&b, &ix, "id"), format!("duplicate census id `{}`", h.id))
                        .with_label("bound again here")
                        .with_related(
                            file,
                            block_key_span(&prev.block, &crate::yaml::Index::of(&prev.block.content), "id"),
                            "first bound here",
                        )
                        .with_hint(format!("`{}` is already bound by the block at line {line}; give this one another id", h.id)),
                );
                return None;
            }
            let run_span = block_key_span(&b, &ix, "run");
            Some(CensusBlock { id: h.id, run: h.run, run_span, block: b })
        }
        Err(e) => {
            diags.push(block_yaml_diag(file, &b, &e, "in this census block"));
            // The id as far as the YAML could be read, so that claims on it add
            // no follow-on errors.
            let ix = crate::yaml::Index::of(&b.content);
            broken_ids.extend(ix.scalar(&["id"]).filter(|id| is_identifier(id)).map(str::to_string));
            None
        }
    }
}

/// The figure block `b` of an essay whose text is `source`, when its YAML reads, its
/// `from:` is a path and its id is usable and not one of `figures`' already; else its
/// diagnostic in `diags`. Claims in its caption and alt text go into `claims`.
fn figure_block(
    file: &str,
    source: &str,
    b: FencedBlock,
    figures: &[FigureBlock],
    claims: &mut Vec<Claim>,
    diags: &mut Vec<Diagnostic>,
) -> Option<FigureBlock> {
    match crate::yaml::parse::<FigureHead>(&b.content) {
        Ok((h, ix)) => {
            let from_span = block_key_span(&b, &ix, "from");
            let from = match claim::parse_path(h.from.trim(), from_span.start) {
                Ok((p, used)) if used == h.from.trim().len() => p,
                _ => {
                    diags.push(
                        Diagnostic::error(Code::BadPath, file, from_span, format!("`{}` is not a path into a result", h.from))
                            .with_hint("write `from: id` or `from: id.key.key`, where id is a census block's id"),
                    );
                    return None;
                }
            };
            if !is_identifier(&h.id) || figures.iter().any(|f| f.id == h.id) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateFigureId,
                        file,
                        block_key_span(&b, &ix, "id"),
                        format!("figure id `{}` is not a fresh identifier", h.id),
                    )
                    .with_hint("each figure needs its own id (letters, digits, `_`, `-`)"),
                );
                return None;
            }
            let plot_span = block_key_span(&b, &ix, "plot");
            claims_in_options(file, source, (&b, &ix), &h.rest, diags);
            let (caption, caption_span) = figure_text(file, source, (&b, &ix), "caption", &h.caption, claims, diags);
            let (alt, alt_span) = figure_text(file, source, (&b, &ix), "alt", &h.alt, claims, diags);
            Some(FigureBlock {
                id: h.id,
                from,
                from_span,
                plot: h.plot,
                plot_span,
                caption,
                caption_markdown: h.caption,
                caption_span,
                alt,
                alt_span,
                options: h.rest,
                block: b,
            })
        }
        Err(e) => {
            diags.push(block_yaml_diag(file, &b, &e, "in this figure block"));
            None
        }
    }
}

/// Parse one essay from its text. `file` is the name diagnostics show. Returns the essay
/// (when its front matter is usable) and every problem found, all at once.
pub fn parse_essay(file: &str, path: PathBuf, source: String) -> (Option<Essay>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let (front, body) = match front::split_and_parse(file, &source) {
        Ok(x) => x,
        Err(d) => {
            diags.extend(d);
            return (None, diags);
        }
    };
    let sc = scan::scan(&source[body.clone()], body.start);
    diags.extend(footnotes::undefined_references(file, &source[body.clone()], body.start));
    for e in &sc.errors {
        let label = match e.code {
            Code::UnterminatedFence => "opened here",
            Code::MarkdownTooDeep => "one level too deep",
            _ => "in this claim",
        };
        diags.push(Diagnostic::error(e.code, file, e.span.clone(), e.message.clone()).with_label(label).with_hint(e.hint.clone()));
    }
    let mut calls = Vec::new();
    let mut broken_ids = Vec::new();
    let mut figures: Vec<FigureBlock> = Vec::new();
    let mut claims = front.claims.clone();
    for b in sc.blocks {
        match b.kind {
            scan::BlockKind::Census => calls.extend(census_block(file, &source, b, &calls, &mut diags, &mut broken_ids)),
            scan::BlockKind::Figure => figures.extend(figure_block(file, &source, b, &figures, &mut claims, &mut diags)),
        }
    }
    let slug = slug_of(&path);
    if slug.is_empty() {
        diags.push(
            Diagnostic::error(Code::EmptySlug, file, 0..0, "the file name gives an empty slug")
                .with_hint("name essays with letters or digits, e.g. `no-two-heaps.md`"),
        );
    }
    claims.extend(sc.claims);
    claims.sort_by_key(|c| c.span.start);
    let essay = Essay {
        file: file.to_string(),
        path,
        slug,
        source: source.into(),
        front,
        body,
        calls,
        broken_ids,
        figures,
        claims,
        excluded: sc.excluded,
        math: sc.math,
    };
    (Some(essay), diags)
}

/// `source` with every carriage return not followed by a line feed made a line feed.
/// CommonMark counts a lone CR as a line ending (files saved with classic Mac OS line
/// endings have nothing else); every scanner here counts LF, and the byte count is the
/// same, so spans into the file on disk stay right.
pub fn lone_cr_as_lf(source: String) -> String {
    if !source.contains('\r') {
        return source;
    }
    let mut bytes = source.into_bytes();
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
    // Only ASCII CR bytes became ASCII LF bytes, so the text is still UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

/// Sort `essays` by slug (then file) and report what a site of them cannot have: two
/// essays with one slug, or two titles a link by title cannot tell apart (equal, or equal
/// but for case, spacing and punctuation, compared by [`heading_id`]). Quadratic in the
/// number of essays: titles are grouped by id, so each is compared only with its equals.
pub fn collate(essays: &mut [Essay]) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    essays.sort_by(|a, b| a.slug.cmp(&b.slug).then(a.file.cmp(&b.file)));
    for i in 1..essays.len() {
        if essays[i].slug == essays[i - 1].slug {
            diags.push(
                Diagnostic::error(Code::DuplicateSlug, essays[i].file.clone(), 0..0, format!("duplicate slug `{}`", essays[i].slug))
                    .with_hint(format!("{} has the same slug; rename one of the files", essays[i - 1].file))
                    .with_related(essays[i - 1].file.clone(), 0..0, "the other essay with this slug"),
            );
        }
    }
    // Each title's id once; an essay is compared only with the earlier essays of its id.
    let mut by_id: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
    for i in 0..essays.len() {
        let earlier = by_id.entry(heading_id(&essays[i].front.title)).or_default();
        for &j in earlier.iter() {
            let (a, b) = (&essays[i].front.title, &essays[j].front.title);
            // Links by title ignore case, spacing and punctuation, so titles equal but for
            // those would link to one essay of the two: refused like equal titles.
            let message = if a == b {
                format!("duplicate title `{a}`")
            } else {
                format!("title `{a}` differs from `{b}` only in case, spacing or punctuation, which links by title ignore")
            };
            diags.push(
                Diagnostic::error(Code::DuplicateTitle, essays[i].file.clone(), essays[i].front.title_span.clone(), message)
                    .with_hint(format!("{} has the same title to a link; essays link to each other by title", essays[j].file))
                    .with_related(essays[j].file.clone(), essays[j].front.title_span.clone(), "the other title"),
            );
        }
        earlier.push(i);
    }
    diags
}
