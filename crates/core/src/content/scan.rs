//! Where things lie in an essay's Markdown: the ranges claims may not occur in (code,
//! raw HTML), the math, the fenced directive blocks, and the `{{ … }}` claims.
//!
//! Everything is found from pulldown-cmark's offset iterator, never by a bare regex over
//! the source, so a `{{` in a code span of three backticks, a `~~~` fence, an indented code
//! block or an HTML comment is left alone.
//!
//! Where a claim opens, in prose and math alike: a backslash escapes the character after
//! it, and in a run of unescaped `{` the last two open the claim. So `\{{` is a literal
//! `{{` in prose, and in math `\{{{ s.n = 7 }}\}` is LaTeX's brace `\{`, a claim and `\}`
//! (a set holding the claim's value), and `x_{{{ plain 3 }}}` a subscript holding one. In
//! math (`$…$`, `$$…$$`) the opening `{{` must be followed by a space (`$n = {{ g.n = 99
//! }}$`), so LaTeX's own `{{x}}` (a group in a group) is left alone; a claim there is
//! checked like any other and its text goes into the formula. Whatever looks like a claim
//! in math but is not read as one (`\{{ x.y = 1 }}`, `{{x.y = 1}}`) is an error
//! ([`Code::ClaimLookalike`]), as is a `$…$` whose braces do not balance, which
//! pulldown-cmark does not read as math and would publish as raw TeX
//! ([`Code::MathMalformed`]).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::claim::{parse_claim, Claim, ClaimKind, ClaimSyntaxError};
use crate::diag::Code;

/// The pulldown-cmark options every pass over an essay uses (scanning and rendering must
/// agree on what is code and what is math).
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_SMART_PUNCTUATION
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_MATH
}

/// Which directive a fenced block's info string names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// ```` ```census ````: a census call binding an id.
    Census,
    /// ```` ```figure ````: a figure drawn from a result.
    Figure,
}

impl BlockKind {
    /// The kind named by a fence's first word (`census`, `figure`), if any.
    pub fn from_word(word: &str) -> Option<BlockKind> {
        match word {
            "census" => Some(BlockKind::Census),
            "figure" => Some(BlockKind::Figure),
            _ => None,
        }
    }

    /// The word as the fence writes it: `census` or `figure`.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Census => "census",
            BlockKind::Figure => "figure",
        }
    }
}

/// A fenced block whose info string names a directive (`census` or `figure`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FencedBlock {
    /// Which directive.
    pub kind: BlockKind,
    /// Span of the whole block, fences included (offsets into the scanned text).
    pub span: Range<usize>,
    /// The block's content as Markdown sees it (container prefixes removed).
    pub content: String,
    /// For each piece of `content`: (offset in `content`, offset in the scanned text).
    /// Maps a position inside `content` back to the source.
    pub pieces: Vec<(usize, usize)>,
}

impl FencedBlock {
    /// The source offset of byte `at` of `content`.
    pub fn source_offset(&self, at: usize) -> usize {
        let mut best = (0, self.span.start);
        for &(c, s) in &self.pieces {
            if c <= at {
                best = (c, s);
            } else {
                break;
            }
        }
        best.1 + (at - best.0)
    }
}

/// What a scan of one Markdown text found.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// Ranges where claims are not recognised: code spans and blocks, raw HTML, and math
    /// (offsets plus `base`, like every other span; claims in math are read apart, see
    /// the module docs).
    pub excluded: Vec<Range<usize>>,
    /// The math (`$…$`, `$$…$$`), sorted (offsets plus `base`).
    pub math: Vec<Range<usize>>,
    /// Directive blocks, in order.
    pub blocks: Vec<FencedBlock>,
    /// Claims, in order.
    pub claims: Vec<Claim>,
    /// Claim syntax errors (the scan goes on past them).
    pub errors: Vec<ClaimSyntaxError>,
}

/// How deep block quotes, lists, emphasis and links may nest, counted together.
pub const MAX_MARKDOWN_DEPTH: usize = 64;

/// How `event` changes the nesting [`MAX_MARKDOWN_DEPTH`] bounds: +1 as a block quote,
/// list, emphasis or link opens, -1 as it closes, 0 for every other event.
fn nesting(event: &Event) -> isize {
    match event {
        Event::Start(
            Tag::BlockQuote(_) | Tag::List(_) | Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. },
        ) => 1,
        Event::End(
            TagEnd::BlockQuote(_)
            | TagEnd::List(_)
            | TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image,
        ) => -1,
        _ => 0,
    }
}

/// The end of the character at byte `at` of `text` (`at` itself at the end).
fn char_end(text: &str, at: usize) -> usize {
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// Scan `text` (an essay body); offsets are relative to `text` plus `base`.
pub fn scan(text: &str, base: usize) -> Scan {
    let mut out = Scan::default();
    let mut block: Option<FencedBlock> = None;
    // Raw HTML (blocks and inline tags): claims are not read there, but HTML is published
    // as written, so a claim in it would reach the reader unchecked.
    let mut html: Vec<Range<usize>> = Vec::new();
    // Headings, table cells and paragraphs: a claim must end in the one it begins in.
    let mut leaves: Vec<(Range<usize>, Leaf)> = Vec::new();
    let mut quotes: Vec<Range<usize>> = Vec::new();
    // Emphasis, links, images and code spans: a claim may hold one or lie in one, not cross it.
    let mut inline: Vec<(Range<usize>, Inline)> = Vec::new();
    let (mut depth, mut too_deep) = (0usize, false);
    for (event, range) in Parser::new_ext(text, markdown_options()).into_offset_iter() {
        depth = depth.saturating_add_signed(nesting(&event));
        inline.extend(Inline::of(&event).map(|kind| (range.clone(), kind)));
        if depth > MAX_MARKDOWN_DEPTH && !too_deep {
            too_deep = true;
            out.errors.push(ClaimSyntaxError {
                code: Code::MarkdownTooDeep,
                message: format!("Markdown nested more than {MAX_MARKDOWN_DEPTH} deep"),
                span: base + range.start..base + char_end(text, range.start),
                hint: "block quotes, lists, emphasis and links nest at most 64 deep, counted together: flatten this part".into(),
            });
        }
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                out.excluded.push(range.clone());
                if let CodeBlockKind::Fenced(info) = kind {
                    block = fenced_block(text, base, range, &info, &mut out.errors);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(b) = block.take() {
                    out.blocks.push(b);
                }
            }
            Event::Text(t) => {
                if let Some(b) = block.as_mut() {
                    b.pieces.push((b.content.len(), base + range.start));
                    b.content.push_str(&t);
                }
            }
            Event::Code(_) | Event::Html(_) => out.excluded.push(range),
            Event::InlineMath(_) | Event::DisplayMath(_) => out.math.push(range),
            Event::InlineHtml(_) => {
                html.push(range.clone());
                out.excluded.push(range)
            }
            Event::Start(Tag::HtmlBlock) => {
                html.push(range.clone());
                out.excluded.push(range)
            }
            Event::Start(Tag::Heading { .. }) => leaves.push((range, Leaf::Heading)),
            Event::Start(Tag::TableCell) => leaves.push((range, Leaf::TableCell)),
            Event::Start(Tag::Paragraph) => leaves.push((range, Leaf::Paragraph)),
            Event::Start(Tag::BlockQuote(_)) => quotes.push(range),
            _ => {}
        }
    }
    out.excluded = merged(std::mem::take(&mut out.excluded));
    let math = std::mem::take(&mut out.math);
    read_claims(text, base, &quotes, &math, &mut out);
    out.claims.sort_by_key(|c| c.span.start);
    misplaced_claims(text, base, (&leaves, &inline), &mut out);
    unread_math(text, base, &out.excluded, &math, &out.claims, &mut out.errors);
    for r in html {
        claims_in_html(&text[r.clone()], base + r.start, &mut out.errors);
    }
    out.errors.sort_by_key(|e| e.span.start);
    // Report ranges in the same coordinates as everything else; math is excluded from
    // the prose claims were looked for in.
    out.excluded = merged(out.excluded.drain(..).chain(math.iter().cloned()).collect());
    for r in &mut out.excluded {
        *r = base + r.start..base + r.end;
    }
    out.math = math.into_iter().map(|r| base + r.start..base + r.end).collect();
    out
}

/// The claims of `text` into `out`: in prose (outside `out.excluded` and `math`) and in
/// `math`, read with the markers of `quotes` (block quotes) blanked.
fn read_claims(text: &str, base: usize, quotes: &[Range<usize>], math: &[Range<usize>], out: &mut Scan) {
    let unquoted = without_quote_markers(text, quotes);
    let read = unquoted.as_deref().unwrap_or(text);
    find_claims(read, base, math, out);
    for r in math {
        claims_in_math(&read[r.clone()], base + r.start, &mut out.claims, &mut out.errors);
        out.errors.extend(dollar_in_math(&text[r.clone()], base + r.start));
    }
}

/// `text` with the block-quote markers that begin its lines made spaces, as many `>` on
/// a line as block quotes (`quotes`, ranges of `text`) hold its start: a claim over lines
/// of a quote (`> {{ t.n\n> = 3 }}`) reads as if they were not there, at the same offsets.
/// None when there is no block quote.
fn without_quote_markers(text: &str, quotes: &[Range<usize>]) -> Option<String> {
    if quotes.is_empty() {
        return None;
    }
    // Depth changes in order of offset (a sweep: lines × quotes was quadratic).
    let mut changes: Vec<(usize, isize)> = quotes.iter().flat_map(|q| [(q.start, 1), (q.end, -1)]).collect();
    changes.sort_unstable();
    let mut bytes = text.as_bytes().to_vec();
    let (mut depth, mut next) = (0isize, 0usize);
    let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
    for line in starts {
        while let Some(&(_, d)) = changes.get(next).filter(|(at, _)| *at <= line) {
            depth += d;
            next += 1;
        }
        let mut at = line;
        for _ in 0..depth.max(0) {
            let indent = bytes[at..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
            if bytes.get(at + indent) != Some(&b'>') {
                break;
            }
            at += indent;
            bytes[at] = b' ';
            at += 1;
        }
    }
    String::from_utf8(bytes).ok()
}

/// Inline Markdown whose ends a claim must not come between (see [`crossing_markup`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inline {
    Emphasis,
    Link,
    Code,
}

impl Inline {
    fn of(event: &Event) -> Option<Inline> {
        match event {
            Event::Start(Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Superscript | Tag::Subscript) => Some(Inline::Emphasis),
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => Some(Inline::Link),
            Event::Code(_) => Some(Inline::Code),
            _ => None,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Inline::Emphasis => "emphasis (`*`, `_` or `~`)",
            Inline::Link => "a link or an image (`[`, `]`)",
            Inline::Code => "a code span (`` ` ``)",
        }
    }
}

/// An error for each claim that one end of an inline element (`inline`, offsets without
/// `base`) falls in while the other falls outside it: in `*a {{ assert x.y*2 == 4 }}` the
/// claim's `*` closes emphasis opened before it, in `[a {{ x.y = b](u) c }}` its `]` ends
/// the link. The page would lose the claim's or the markup's characters; the error's span
/// is its claim's, which is then not checked as well.
fn crossing_markup(claims: &[Claim], inline: &[(Range<usize>, Inline)], base: usize) -> Vec<ClaimSyntaxError> {
    let holder = |at: usize| {
        let after = claims.partition_point(|c| c.span.start - base < at);
        after.checked_sub(1).filter(|&k| at < claims[k].span.end - base)
    };
    let mut found: Vec<(usize, Inline)> = Vec::new();
    for (r, kind) in inline.iter().filter(|(r, _)| !r.is_empty()) {
        let (first, last) = (holder(r.start), holder(r.end - 1));
        for k in [first, last].into_iter().flatten().filter(|_| first != last) {
            if !found.iter().any(|(j, _)| *j == k) {
                found.push((k, *kind));
            }
        }
    }
    found.sort_by_key(|(k, _)| *k);
    let error = |(k, kind): (usize, Inline)| ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: format!("{} begins on one side of this claim's edge and ends on the other", kind.what()),
        span: claims[k].span.clone(),
        hint: "a claim must hold the whole of its markup, or none of it: escape the character (`\\*`, `\\]`) or move the markup".into(),
    };
    found.into_iter().map(error).collect()
}

/// The leaf blocks and inline elements a scan found (see [`misplaced_claims`]).
type Blocks<'s> = (&'s [(Range<usize>, Leaf)], &'s [(Range<usize>, Inline)]);

/// Claims that cross the end of their leaf block or an inline element's edge, or change
/// the Markdown around them: errors, and out of `out.claims` (not checked as well).
fn misplaced_claims(text: &str, base: usize, blocks: Blocks<'_>, out: &mut Scan) {
    let (leaves, inline) = blocks;
    let mut crossing = crossing_claims(&out.claims, leaves, base);
    crossing.extend(crossing_markup(&out.claims, inline, base));
    crossing.extend(reshaping_claim(text, &out.claims, base, &crossing));
    out.claims.retain(|c| !crossing.iter().any(|e| e.span == c.span));
    out.errors.extend(crossing);
}

/// The Markdown structure of `text`: each tag's opening and closing with where it is,
/// leaving out those that begin inside one of `claims` (spans less `base`).
fn structure(text: &str, claims: &[Claim], base: usize) -> Vec<(usize, bool, pulldown_cmark::TagEnd)> {
    let inside = |at: usize| {
        let after = claims.partition_point(|c| c.span.start - base < at);
        after > 0 && at < claims[after - 1].span.end - base
    };
    let events = Parser::new_ext(text, markdown_options()).into_offset_iter().filter(|(_, r)| !inside(r.start));
    events
        .filter_map(|(ev, r)| match ev {
            Event::Start(tag) => Some((r.start, true, tag.into())),
            Event::End(end) => Some((r.start, false, end)),
            _ => None,
        })
        .collect()
}

/// An error for the first claim whose text changes the Markdown around it, unless one of
/// `reported` is at it already: `text` read with every claim's characters made `x` (line
/// breaks kept) has other structure than as written. `[see {{ plain a]b }}](u)` lost its
/// link that way, with no diagnostic (the `]` ended the link's text early).
fn reshaping_claim(text: &str, claims: &[Claim], base: usize, reported: &[ClaimSyntaxError]) -> Option<ClaimSyntaxError> {
    if claims.is_empty() {
        return None;
    }
    let mut blank = text.as_bytes().to_vec();
    for c in claims {
        for b in &mut blank[c.span.start - base..c.span.end - base] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b'x';
            }
        }
    }
    let blank = String::from_utf8(blank).ok()?;
    let (written, plain) = (structure(text, claims, base), structure(&blank, &[], base));
    let differ = written.iter().zip(&plain).position(|(a, b)| (a.1, a.2) != (b.1, b.2));
    let at = match differ {
        Some(i) => written[i].0.min(plain[i].0),
        None if written.len() != plain.len() => written.get(plain.len()).or(plain.get(written.len())).map_or(0, |e| e.0),
        None => return None,
    };
    let k = claims.partition_point(|c| c.span.end - base <= at).min(claims.len() - 1);
    let c = &claims[k];
    if reported.iter().any(|e| e.span == c.span) {
        return None;
    }
    Some(ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: "this claim's text changes the Markdown around it".into(),
        span: c.span.clone(),
        hint: "a `]`, `[`, `*`, `_`, `` ` `` or `|` in a claim can end or open markup outside it: escape it (`\\]`), or move the markup"
            .into(),
    })
}

/// A block a claim must end in if it begins in it (see [`crossing_claims`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    Heading,
    TableCell,
    Paragraph,
}

impl Leaf {
    fn name(self) -> &'static str {
        match self {
            Leaf::Heading => "heading",
            Leaf::TableCell => "table cell",
            Leaf::Paragraph => "paragraph",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Leaf::Heading => "a heading ends at its line's end: close the claim with `}}` on the heading's line",
            Leaf::TableCell => "a `|` ends a table cell: close the claim with `}}` in its cell",
            Leaf::Paragraph => "close the claim with `}}` before the paragraph ends",
        }
    }
}

/// An error for each claim that begins in one of `leaves` (a heading, table cell or
/// paragraph, offsets without `base`) and ends outside it: `## A {{ x.y\nb }}` or
/// `| {{ x = a | b }} |`. Markdown ends the heading at the line break and the cell at the
/// `|`, so the page would split the claim (its HTML malformed) while the check read it
/// whole. Each error's span is its claim's, which is then not checked as well.
fn crossing_claims(claims: &[Claim], leaves: &[(Range<usize>, Leaf)], base: usize) -> Vec<ClaimSyntaxError> {
    // The leaves never overlap and come in the order of the text, as the claims do: the
    // one holding a claim's start is found by bisection (claims × leaves was quadratic).
    let mut errors = Vec::new();
    for c in claims {
        let (start, end) = (c.span.start - base, c.span.end - base);
        let i = leaves.partition_point(|(r, _)| r.start <= start);
        let holder = i.checked_sub(1).map(|k| &leaves[k]).filter(|(r, _)| start < r.end);
        let next = leaves.get(i).filter(|(r, _)| r.start < end);
        let container = match (holder, next) {
            (Some((r, leaf)), _) if r.end < end => *leaf,
            (None, Some((_, leaf))) | (Some(_), Some((_, leaf))) => *leaf,
            _ => continue,
        };
        errors.push(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: format!("this claim runs past the end of its {}", container.name()),
            span: c.span.clone(),
            hint: container.hint().into(),
        });
    }
    errors
}

/// The directive block (census, figure) a fenced code block at `range` of `text` opens,
/// `info` its info string; None for other code. CommonMark lets an unclosed fence run to
/// the end of its container (usually the end of the essay), silently swallowing every
/// claim and block after it. In an essay that is always a mistake: an unclosed fence is
/// an `unterminated-fence` error in `errors`, and no directive is read out of it.
fn fenced_block(text: &str, base: usize, range: Range<usize>, info: &str, errors: &mut Vec<ClaimSyntaxError>) -> Option<FencedBlock> {
    let word = info.split_whitespace().next().unwrap_or("");
    if !fence_is_closed(&text[range.clone()]) {
        let line_end = text[range.start..range.end].find('\n').map(|n| range.start + n).unwrap_or(range.end);
        errors.push(ClaimSyntaxError {
            code: Code::UnterminatedFence,
            message: format!("unterminated code fence: this {} block is never closed", if word.is_empty() { "code" } else { word }),
            span: base + range.start..base + line_end.max(range.start + 1),
            hint: "close the block with a line holding the same fence (``` or ~~~); until then the rest of the essay is code".into(),
        });
        return None;
    }
    let kind = BlockKind::from_word(word)?;
    Some(FencedBlock { kind, span: base + range.start..base + range.end, content: String::new(), pieces: Vec::new() })
}

/// True when the fenced block `raw` (its source text, from the opening fence on) ends
/// with a closing fence: a line of at least as many of the same fence characters as the
/// opening, after any container prefix (`>` of a block quote, indentation).
fn fence_is_closed(raw: &str) -> bool {
    let open = raw.trim_start_matches([' ', '\t']);
    let Some(ch) = open.chars().next().filter(|c| *c == '`' || *c == '~') else { return true };
    let n = open.chars().take_while(|c| *c == ch).count();
    let mut lines = raw.trim_end_matches(['\n', '\r']).lines();
    let _opening = lines.next();
    let Some(last) = lines.last() else { return false };
    let last = last.trim_start_matches(['>', ' ', '\t']);
    let run = last.chars().take_while(|c| *c == ch).count();
    run >= n && last[run * ch.len_utf8()..].trim().is_empty()
}

/// `ranges` sorted and with overlapping or nested ranges merged (an HTML block holds
/// the ranges of its HTML events), so `in_ranges` can search them by halving.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// True when `at` lies in one of `ranges` (sorted and disjoint, see `merged`).
fn in_ranges(ranges: &[Range<usize>], at: usize) -> bool {
    let after = ranges.partition_point(|r| r.start <= at);
    after > 0 && at < ranges[after - 1].end
}

/// Where the claim opened just before `rest` closes: the offset in `rest` of its `}}`,
/// or `None` when a blank line (only spaces, tabs and a block quote's `>`) or the end of
/// the text comes first. Reads only as far as the claim or its paragraph goes, so an
/// essay of many claims and no blank lines is scanned in linear time.
pub fn claim_close(rest: &str) -> Option<usize> {
    close_or_end(rest).ok()
}

/// [`claim_close`], or where the search stopped: the line feed before the blank line, or
/// the end of `rest`.
fn close_or_end(rest: &str) -> Result<usize, usize> {
    let bytes = rest.as_bytes();
    let mut pos = 0;
    while let Some(n) = bytes[pos..].iter().position(|&b| b == b'}' || b == b'\n') {
        let at = pos + n;
        if bytes[at] == b'}' {
            if bytes.get(at + 1) == Some(&b'}') {
                return Ok(at);
            }
        } else {
            let next = &rest[at + 1..];
            let line = &next[..next.find('\n').unwrap_or(next.len())];
            if line.trim_matches([' ', '\t', '\r', '>']).is_empty() {
                return Err(at);
            }
        }
        pos = at + 1;
    }
    Err(rest.len())
}

/// [`claim_close`] over one text, for `{{`s asked about in increasing order: it remembers
/// how far the last search found no `}}`, and the end of the last line it was asked about,
/// so a paragraph (or a line) of many unterminated claims is read once, not once for
/// each (200,000 of them took minutes).
struct Closer<'a> {
    text: &'a str,
    /// No `}}` closes a claim opened before this offset.
    open_until: usize,
    /// The last line asked about: its end, and an offset in it.
    line: Option<(usize, usize)>,
}

impl<'a> Closer<'a> {
    fn new(text: &'a str) -> Closer<'a> {
        Closer { text, open_until: 0, line: None }
    }

    /// The offset in `text[from..]` of the `}}` closing a claim whose text starts at `from`.
    fn close(&mut self, from: usize) -> Option<usize> {
        if from < self.open_until {
            return None;
        }
        close_or_end(&self.text[from..]).map_err(|end| self.open_until = from + end).ok()
    }

    /// The offset of the end of the line holding `from` (its line feed, or the text's end).
    fn line_end(&mut self, from: usize) -> usize {
        if let Some((end, seen)) = self.line {
            if seen <= from && from <= end {
                return end;
            }
        }
        let end = self.text[from..].find('\n').map_or(self.text.len(), |n| from + n);
        self.line = Some((end, from));
        end
    }
}

/// Errors for claims written in raw HTML (`raw`, at offset `base`) outside its comments:
/// the HTML is published as written, so such a claim would show an unchecked number. A
/// `{{` that does not read as a claim is left alone.
fn claims_in_html(raw: &str, base: usize, errors: &mut Vec<ClaimSyntaxError>) {
    let mut comments = Vec::new();
    let mut i = 0;
    while let Some(open) = raw[i..].find("<!--") {
        let start = i + open;
        let after = &raw[start + 4..];
        // `<!-->` and `<!--->` are whole (empty) comments in HTML and CommonMark: what
        // follows them is published.
        let end = if after.starts_with('>') {
            start + 5
        } else if after.starts_with("->") {
            start + 6
        } else {
            // HTML ends a comment at `-->` or at `--!>` (an incorrectly closed comment
            // that browsers still close): whichever comes first.
            let close = [after.find("-->").map(|n| n + 3), after.find("--!>").map(|n| n + 4)];
            close.into_iter().flatten().min().map_or(raw.len(), |n| start + 4 + n)
        };
        comments.push(start..end);
        i = end;
    }
    let mut i = 0;
    while let Some(found) = raw[i..].find("{{") {
        let at = i + found;
        i = at + 2;
        if in_ranges(&comments, at) {
            continue;
        }
        let Some(close) = claim_close(&raw[at + 2..]) else { continue };
        let span = base + at..base + at + 2 + close + 2;
        if parse_claim(&raw[at + 2..at + 2 + close], base + at + 2, span.clone()).is_ok() {
            errors.push(ClaimSyntaxError {
                code: Code::ClaimInHtml,
                message: "claim inside raw HTML: it is published as written and never checked".into(),
                span,
                hint: "move the claim out of the HTML (a blank line ends an HTML block; the Markdown after it is read), or into an HTML comment `<!-- … -->` to keep it unpublished".into(),
            });
        }
        i = at + 2 + close + 2;
    }
}

/// How a pair of braces `{{` stands in a text, as the claim scanner reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pair {
    /// The last two braces of a run of unescaped `{`: a claim opens here.
    Opener,
    /// A backslash escapes the first brace (`\{{`): in prose a literal `{{`, in math
    /// LaTeX's brace `\{` and a group.
    Escaped,
}

/// The next brace pair in `text` at or after `from`: the offset of its first brace and
/// how it stands. A backslash escapes the character after it (CommonMark's escape in
/// prose, a control symbol such as `\{` or `\\` in LaTeX); in a run of unescaped `{` the
/// last two are the pair. After an [`Pair::Escaped`] pair at `at`, look again from `at + 1`
/// (the braces after the escaped one may still open a claim).
fn next_pair(text: &str, from: usize) -> Option<(usize, Pair)> {
    let b = text.as_bytes();
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1) == Some(&b'{') && b.get(i + 2) == Some(&b'{') => return Some((i + 1, Pair::Escaped)),
            b'\\' => i += 2,
            b'{' => {
                let run = b[i..].iter().take_while(|&&c| c == b'{').count();
                if run >= 2 {
                    return Some((i + run - 2, Pair::Opener));
                }
                i += run;
            }
            _ => i += 1,
        }
    }
    None
}

/// True when `inner` (the text between `{{` and `}}`) reads as a claim an author meant: it
/// holds `=`, or parses as a check, an assert, `plain`, or an interpolation of a path with
/// a key (`x.y`, `x[0]`; a bare `{{a}}` is LaTeX's group in a group).
fn looks_like_claim(inner: &str) -> bool {
    if inner.contains('=') {
        return true;
    }
    match parse_claim(inner, 0, 0..0) {
        Ok(Claim { kind: ClaimKind::Interpolate { .. }, .. }) => inner.contains(['.', '[']),
        Ok(_) => true,
        Err(_) => false,
    }
}

/// Claims in the math `raw` (its source, delimiters included, at offset `base`): a claim
/// opens at a `{{` (see [`next_pair`]) followed by whitespace, and its syntax errors go to
/// `errors`. A `{{` that is not followed by whitespace, or whose first brace is escaped
/// (`\{{`), is LaTeX; when its text up to `}}` looks like a claim it is an error.
fn claims_in_math(raw: &str, base: usize, claims: &mut Vec<Claim>, errors: &mut Vec<ClaimSyntaxError>) {
    let mut from = 0;
    while let Some((at, pair)) = next_pair(raw, from) {
        let rest = &raw[at + 2..];
        from = at + 2;
        if pair == Pair::Escaped {
            from = at + 1;
            if !rest.starts_with('{') {
                errors.extend(lookalike(raw, at, base, pair));
            }
            continue;
        }
        if !rest.starts_with(char::is_whitespace) {
            errors.extend(lookalike(raw, at, base, pair));
            continue;
        }
        let Some(close) = claim_close(rest) else {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            errors.push(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "unterminated claim: in math `{{` and a space open a claim, and no `}}` closes it in the paragraph".into(),
                span: base + at..base + at + 2 + line_end,
                hint: "close the claim with `}}`; LaTeX's group in a group is `{{x}}`, with no space after `{{`".into(),
            });
            continue;
        };
        let span = base + at..base + at + 2 + close + 2;
        match parse_claim(&rest[..close], base + at + 2, span) {
            Ok(c) => claims.push(c),
            Err(e) => errors.push(e),
        }
        from = at + 2 + close + 2;
    }
}

/// The error for the pair at `at` of the math `raw` (at `base`) that LaTeX reads and the
/// scanner does not, when its text up to `}}` looks like a claim.
fn lookalike(raw: &str, at: usize, base: usize, pair: Pair) -> Option<ClaimSyntaxError> {
    let rest = &raw[at + 2..];
    let close = claim_close(rest)?;
    let inner = &rest[..close];
    if !looks_like_claim(inner) {
        return None;
    }
    let end = base + at + 2 + close + 2;
    let t = inner.trim();
    Some(match pair {
        Pair::Escaped => ClaimSyntaxError {
            code: Code::ClaimLookalike,
            message: "`\\{{` in math is LaTeX's brace `\\{` and a group, not a claim: this would be published unchecked".into(),
            span: base + at - 1..end,
            hint: format!("for a brace and a claim write `\\{{{{{{ {t} }}}}` (a claim opens at the last two of the braces)"),
        },
        Pair::Opener => ClaimSyntaxError {
            code: Code::ClaimLookalike,
            message: "this looks like a claim, but in math a claim opens with `{{` and a space: it would be published unchecked".into(),
            span: base + at..end,
            hint: format!("write `{{{{ {t} }}}}` for a claim; for LaTeX's groups put a space between the braces: `{{ {{…}} }}`"),
        },
    })
}

/// Errors for each `$…$` or `$$…$$` in `text` (at `base`) that pulldown-cmark did not read
/// as math because its braces do not balance (it would be published as raw TeX). Code,
/// raw HTML, the math (`excluded`, `math`: offsets into `text`) and claims (`claims`,
/// offsets plus `base`) are masked; each paragraph is read on its own. A `$` opens when
/// the next character is not whitespace, and closes when the one before is not (as
/// pulldown-cmark reads them); `\$` is a dollar sign.
fn unread_math(
    text: &str,
    base: usize,
    excluded: &[Range<usize>],
    math: &[Range<usize>],
    claims: &[Claim],
    errors: &mut Vec<ClaimSyntaxError>,
) {
    if !text.contains('$') {
        return;
    }
    let mut masked = text.as_bytes().to_vec();
    let in_text = claims.iter().map(|c| c.span.start.saturating_sub(base)..c.span.end.saturating_sub(base));
    for r in excluded.iter().chain(math).cloned().chain(in_text) {
        for b in &mut masked[r.start.min(text.len())..r.end.min(text.len())] {
            if *b != b'\n' {
                *b = b'x';
            }
        }
    }
    let mut start = 0;
    while start < masked.len() {
        let mut end = start;
        // The paragraph runs to the next blank line (spaces, tabs and `>` only).
        loop {
            let line_end = masked[end..].iter().position(|&b| b == b'\n').map_or(masked.len(), |n| end + n + 1);
            let blank = masked[end..line_end].iter().all(|b| b" \t\r\n>".contains(b));
            end = line_end;
            if blank || end >= masked.len() {
                break;
            }
        }
        for (open, close) in unbalanced_dollars(&masked[start..end]) {
            // An unterminated claim unbalances the braces too: its own error says enough.
            let (from, to) = (base + start + open, base + start + close);
            if errors.iter().any(|e| from <= e.span.start && e.span.start < to) {
                continue;
            }
            let line_end = text[start + open..].find('\n').map_or(text.len(), |n| start + open + n);
            errors.push(ClaimSyntaxError {
                code: Code::MathMalformed,
                message: "math whose braces do not balance: it is not read as math, and would be published as raw TeX".into(),
                span: base + start + open..base + (start + close).min(line_end).max(start + open + 1),
                hint: "balance the braces between the dollars; a brace shown in math is `\\{` or `\\}`, a dollar sign in prose `\\$`"
                    .into(),
            });
        }
        start = end;
    }
}

/// An error when the math `raw` (delimiters included, at `base`) holds an unescaped `$`:
/// pulldown-cmark then paired dollars across braces that do not balance (`$x^{2$ and
/// $y}$` is one math), and the math is not what was written.
fn dollar_in_math(raw: &str, base: usize) -> Option<ClaimSyntaxError> {
    let d = if raw.starts_with("$$") && raw.len() >= 4 { 2 } else { 1 };
    let inner = raw.get(d..raw.len().saturating_sub(d))?;
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'$' => {
                let at = base + d + i;
                return Some(ClaimSyntaxError {
                    code: Code::MathMalformed,
                    message: "a `$` inside math: the braces between two dollars do not balance, so Markdown paired other dollars".into(),
                    span: base..at + 1,
                    hint: "balance the braces of each `$…$`; a brace shown in math is `\\{` or `\\}`, a dollar sign `\\$`".into(),
                });
            }
            _ => i += 1,
        }
    }
    None
}

/// In one paragraph `p` (masked bytes), each `$…$` or `$$…$$` whose braces do not balance:
/// the offsets of its opening `$` and of the end of its closing one.
fn unbalanced_dollars(p: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 2,
            b'$' => {
                let d = if p.get(i + 1) == Some(&b'$') { 2 } else { 1 };
                let opens = d == 2 || p.get(i + 1).is_some_and(|b| !b.is_ascii_whitespace());
                if !opens {
                    i += d;
                    continue;
                }
                let (mut j, mut depth, mut negative) = (i + d, 0i64, false);
                let mut closed = None;
                while j < p.len() {
                    match p[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            negative |= depth < 0;
                        }
                        b'$' if d == 2 && p.get(j + 1) == Some(&b'$') => {
                            closed = Some(j + 2);
                            break;
                        }
                        b'$' if d == 1 && !p[j - 1].is_ascii_whitespace() => {
                            closed = Some(j + 1);
                            break;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                match closed {
                    Some(end) => {
                        if depth != 0 || negative {
                            out.push((i, end));
                        }
                        i = end;
                    }
                    None => i += d,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Claims in `text` (offset `base`) where `skip(at)` is false for the `{{` at `at`;
/// syntax errors and unterminated claims go to `errors`. A claim opens at a `{{` as
/// [`next_pair`] reads it; an escaped `\{{` is a literal `{{`.
pub(crate) fn claims_where(
    text: &str,
    base: usize,
    skip: impl Fn(usize) -> bool,
    claims: &mut Vec<Claim>,
    errors: &mut Vec<ClaimSyntaxError>,
) {
    let mut from = 0;
    let mut closer = Closer::new(text);
    while let Some((at, pair)) = next_pair(text, from) {
        from = at + 2;
        if pair == Pair::Escaped {
            from = at + 1;
            continue;
        }
        if skip(at) {
            continue;
        }
        // The claim ends at the first `}}`, which must come before a blank line.
        let rest = &text[at + 2..];
        match closer.close(at + 2) {
            Some(close) => {
                let inner = &rest[..close];
                // A `{{` before the `}}` opens the next claim: this one was never closed
                // (it read as one claim stating "15 .⏎Unknown id: {{ c.n = 15").
                if let Some(k) = inner.match_indices("{{").map(|(k, _)| k).find(|&k| k == 0 || inner.as_bytes()[k - 1] != b'\\') {
                    errors.push(ClaimSyntaxError {
                        code: Code::ClaimSyntax,
                        message: "unterminated claim: another `{{` opens before its `}}`".into(),
                        span: base + at..base + at + 2,
                        hint: "close this claim with `}}` before the next one, or write `\\{{` for a literal `{{`".into(),
                    });
                    from = at + 2 + k;
                    continue;
                }
                let span = base + at..base + at + 2 + close + 2;
                match parse_claim(inner, base + at + 2, span) {
                    Ok(c) => claims.push(c),
                    Err(e) => errors.push(e),
                }
                from = at + 2 + close + 2;
            }
            None => {
                let line_end = closer.line_end(at + 2) - (at + 2);
                errors.push(ClaimSyntaxError {
                    code: Code::ClaimSyntax,
                    message: "unterminated claim: `{{` without `}}` in the same paragraph".into(),
                    span: base + at..base + at + 2 + line_end,
                    hint: "close the claim with `}}`, or write `\\{{` for a literal `{{`".into(),
                });
            }
        }
    }
}

fn find_claims(text: &str, base: usize, math: &[Range<usize>], out: &mut Scan) {
    let excluded = &out.excluded;
    claims_where(text, base, |at| in_ranges(excluded, at) || in_ranges(math, at), &mut out.claims, &mut out.errors);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stated(s: &Scan) -> Vec<String> {
        s.claims
            .iter()
            .map(|c| match &c.kind {
                ClaimKind::Check { stated, .. } => stated.clone(),
                k => format!("{k:?}"),
            })
            .collect()
    }

    #[test]
    fn claims_in_code_html_and_math_are_ignored() {
        let text = "a {{ x.a = 1 }}\n\n``` {{ x.b = 2 }} ``` and `` {{ x.c = 3 }} ``\n\n\
                    ~~~\n{{ x.d = 4 }}\n~~~\n\n    {{ x.e = 5 }}\n\n<!-- {{ x.f = 6 }} -->\n\n\
                    ${{ x.g = 7 }}$ and $${{ x.h = 8 }}$$\n\n<span title=\"{{ x.i = 9 }}\">z</span> {{ x.j = 10 }}\n";
        let s = scan(text, 0);
        // Claims in math are read (and checked); one in `$…{{x}}…$` without a space is LaTeX.
        assert_eq!(stated(&s), vec!["1", "7", "8", "10"], "{:?}", s.errors);
        assert!(scan("$\\frac{{a}}{2}$ and $\\frac{{x_1}}{{2}}$", 0).claims.is_empty());
        // ... but one in raw HTML (not a comment) would be published unchecked: an error.
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert!(s.errors[0].code == Code::ClaimInHtml && text[s.errors[0].span.clone()] == *"{{ x.i = 9 }}");
        let s = scan("<div>\n{{ x.a = 1 }} and {{ not a claim }}\n<!--\n{{ x.b = 2 }}\n-->\n</div>\n", 0);
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert!(s.claims.is_empty());
        // Browsers end a comment at `--!>` too (HTML's incorrectly-closed-comment): a claim
        // after it is shown, so it is an error; one before it stays hidden.
        let text = "<!-- {{ x.a = 1 }} --!> {{ x.b = 15 }} -->\n";
        let s = scan(text, 0);
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert_eq!(&text[s.errors[0].span.clone()], "{{ x.b = 15 }}");
    }

    #[test]
    fn escapes_and_unterminated_claims() {
        let s = scan("\\{{ not a claim }} but {{ x.y = 3 }}\n\n{{ x.z = 4\n\nnext", 0);
        // `\\{{{` is an escaped brace and a claim; `\\\\{{` an escaped backslash and a claim.
        assert_eq!(stated(&scan("\\{{{ x.a = 1 }}\\} and \\\\{{ x.b = 2 }} and {{{ x.c = 3 }}}", 0)), vec!["1", "2", "3"]);
        assert_eq!(stated(&s), vec!["3"]);
        assert_eq!(s.errors.len(), 1);
        assert_eq!(s.errors[0].code, Code::ClaimSyntax, "{:?}", s.errors);
        assert!(s.errors[0].message.contains("unterminated"));
        // A blank line of spaces, a CRLF blank line, or a block quote's blank `>` line
        // ends the paragraph too.
        for text in ["{{ x.y = \n  \n3 }}", "{{ x.y\r\n\r\n= 3 }}", "> {{ x.y\n>\n> = 3 }}", "{{ x.y = 3"] {
            let s = scan(text, 0);
            assert!(s.claims.is_empty() && s.errors.len() == 1, "{text:?}: {:?}", s.claims);
        }
        assert_eq!(stated(&scan("{{ x.y\r\n= 3 }}\r\n\r\n", 0)), vec!["3"]);
    }

    /// A claim that holds one end of an inline element but not the other is an error,
    /// and not checked: the page lost characters (`*a {{ assert x.y*2 == 4 }}` rendered the
    /// claim in emphasis closed inside it). Markup wholly inside or outside is fine.
    #[test]
    fn a_claim_may_not_cross_an_inline_elements_edge() {
        for text in ["*a {{ assert x.y*2 == 4 }} b\n", "[a {{ x.y = b](u) c }}\n", "A {{ x.y = `c }} d` e\n", "**a {{ x.y = b** }}\n"] {
            let s = scan(text, 7);
            assert_eq!(s.errors.len(), 1, "{text:?}: {:?}", s.errors);
            assert!(s.errors[0].message.contains("begins on one side of this claim's edge"), "{text:?}: {:?}", s.errors);
            assert!(s.claims.is_empty(), "{text:?}");
        }
        for text in ["*a {{ x.y = 2 }} b*\n", "[a {{ x.y = 2 }}](u) and {{ x.y = *b* }}\n", "`{{ x.y = 2 }}` and {{ x.y = `2` }}\n"] {
            let s = scan(text, 7);
            assert!(s.errors.is_empty(), "{text:?}: {:?}", s.errors);
        }
    }

    /// A claim whose text changes the Markdown around it is an error and not checked:
    /// `[see {{ plain a]b }}](u)` was published as literal text, its link lost, silently.
    #[test]
    fn a_claim_that_changes_the_markdown_around_it_is_an_error() {
        for text in ["[see {{ x.y = a]b }}](u)\n", "![alt {{ x.y = a]b }}](i.png)\n"] {
            let s = scan(text, 3);
            assert_eq!(s.errors.len(), 1, "{text:?}: {:?}", s.errors);
            assert_eq!(s.errors[0].message, "this claim's text changes the Markdown around it", "{text:?}");
            assert_eq!(
                &text[s.errors[0].span.start - 3..s.errors[0].span.end - 3],
                &text[text.find("{{").unwrap()..text.find("}}").unwrap() + 2]
            );
            assert!(s.claims.is_empty(), "{text:?}");
        }
        for text in ["[see {{ x.y = [@onag] }}](u) and {{ x.y = a]b }} and *{{ x.y = *5* }}*\n", "> {{ x.y\n> = 3 }}\n"] {
            let s = scan(text, 3);
            assert!(s.errors.is_empty(), "{text:?}: {:?}", s.errors);
        }
    }

    /// A claim over lines of a block quote reads without the quote's `>` markers (it was
    /// "unexpected `>`", or stated `> 3`); a `>` past the quote's depth stays.
    #[test]
    fn a_claim_over_lines_of_a_block_quote_reads_without_its_markers() {
        for text in
            ["> A {{ x.y\n> = 3 }} b\n", "> > A {{ x.y =\n> >  3 }} b\n", " > A {{ x.y\n   > = 3 }}\n", "-\t>\tB {{ x.y\n\t>\t= 3 }}\n"]
        {
            let s = scan(text, 0);
            assert!(s.errors.is_empty(), "{text:?}: {:?}", s.errors);
            assert_eq!(stated(&s), ["3"], "{text:?}");
            assert_eq!(&text[s.claims[0].span.clone()], &text[text.find("{{").unwrap()..text.find("}}").unwrap() + 2]);
        }
        let s = scan("> {{ assert x.y >\n> 3 }}\n", 0);
        assert!(s.errors.is_empty() && s.claims.len() == 1, "{:?}", s.errors);
        assert_eq!(without_quote_markers("> a\n>> b\nc\n", &[0..12, 4..10]).unwrap(), "  a\n   b\nc\n");
    }

    /// A claim that begins in a heading, table cell or paragraph must end in it: Markdown
    /// ends a heading at its line's end and a cell at `|`, so the claim was checked whole
    /// but split on the page (malformed HTML). A claim running over lines in a paragraph
    /// or filling a heading or cell is fine.
    #[test]
    fn a_claim_ends_in_the_heading_cell_or_paragraph_it_begins_in() {
        for (text, container) in [
            ("## A {{ x.y = a\nb }}\n", "heading"),
            ("| a | b |\n|---|---|\n| {{ x.y = a | b }} | 2 |\n", "table cell"),
            ("Text {{ x.y =\n# b }}\n", "paragraph"),
        ] {
            let s = scan(text, 5);
            assert_eq!(s.errors.len(), 1, "{text:?}: {:?}", s.errors);
            assert_eq!(s.errors[0].message, format!("this claim runs past the end of its {container}"), "{text:?}");
            // Reported once: the claim is not also checked (and blessed).
            assert!(s.claims.is_empty(), "{text:?}: {:?}", s.claims);
            assert_eq!(
                &text[s.errors[0].span.start - 5..s.errors[0].span.end - 5],
                &text[text.find("{{").unwrap()..text.find("}}").unwrap() + 2]
            );
        }
        for text in [
            "## {{ x.y = 3 }}\n",
            "{{ x.y = 3 }}\n===\n",
            "| {{ x.y = 3 }} | {{ x.z = 4 }} |\n|---|---|\n| {{ x.w = 5 }} | 2 |\n",
            "A {{ x.y\n= 3 }} b\n",
            "> {{ x.y = 3 }}\n> more\n",
            "- {{ x.y\n  = 3 }}\n",
        ] {
            let s = scan(text, 0);
            assert!(s.errors.is_empty() && !s.claims.is_empty(), "{text:?}: {:?}", s.errors);
        }
    }

    /// A claim not closed before the next `{{` is an error at its opening, and the next
    /// claim is read on its own: the two read as one claim stating "15 .⏎Unknown id: {{
    /// c.n = 15", an unreadable number, and the second claim's unknown id went unreported.
    #[test]
    fn a_claim_not_closed_before_the_next_is_an_error_at_its_opening() {
        let text = "Unclosed {{ b.n = 15 .\nUnknown id: {{ c.n = 15 }}\n";
        let s = scan(text, 3);
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert_eq!(s.errors[0].code, Code::ClaimSyntax);
        assert_eq!(s.errors[0].span, 3 + 9..3 + 11);
        assert!(s.errors[0].message.contains("another `{{` opens before its `}}`"));
        assert_eq!(stated(&s), vec!["15"]);
        assert_eq!(s.claims[0].span.start, 3 + text.rfind("{{").unwrap());
    }

    /// Where a claim opens in math: a backslash escapes one character, and in a run of
    /// braces the last two open the claim. `\{{{ … }}\}` was LaTeX's brace and a group, so
    /// the claim in it was published unchecked ("{s.period = 99}").
    #[test]
    fn claims_in_math_open_at_the_last_two_braces() {
        for (text, want) in [
            ("$S = \\{{{ s.period = 99 }}\\}$", vec!["99"]),
            ("$\\{{{ plain 2 }}, 5\\}$", vec!["Plain { text: \"2\" }"]),
            ("$x_{{{ plain 3 }}}$", vec!["Plain { text: \"3\" }"]),
            ("$$\\{{{ a.b = 1 }}, {{ a.c = 2 }}\\}$$", vec!["1", "2"]),
            ("$\\\\{{ a.b = 4 }}$", vec!["4"]),
        ] {
            let s = scan(text, 0);
            assert_eq!(stated(&s), want, "{text:?}: {:?}", s.errors);
            assert!(s.errors.is_empty(), "{text:?}: {:?}", s.errors);
        }
        // The claim's span is the `{{ … }}` after the brace.
        let s = scan("$S = \\{{{ s.period = 99 }}\\}$", 10);
        assert_eq!(s.claims[0].span, 17..36);
    }

    /// What looks like a claim in math but is not read as one is an error at it; LaTeX's
    /// own groups are left alone.
    #[test]
    fn claim_lookalikes_in_math_are_errors() {
        for (text, at) in [
            ("${\\{{ s.period = 99 }}$", "\\{{ s.period = 99 }}"),
            ("$a {{x.y = 1}}$", "{{x.y = 1}}"),
            ("$a {{plain 3}}$", "{{plain 3}}"),
            ("$a {{x.y}} b$", "{{x.y}}"),
        ] {
            let s = scan(text, 0);
            assert!(s.claims.is_empty(), "{text:?}");
            assert_eq!(s.errors.len(), 1, "{text:?}: {:?}", s.errors);
            assert_eq!(s.errors[0].code, Code::ClaimLookalike, "{text:?}");
            assert_eq!(&text[s.errors[0].span.clone()], at, "{text:?}");
        }
        // With its `\\}` the braces do not balance, so it is not math at all: an error too.
        let s = scan("$\\{{ s.period = 99 }}\\}$", 0);
        assert!(s.claims.is_empty() && s.errors.len() == 1 && s.errors[0].code == Code::MathMalformed, "{:?}", s.errors);
        // A claim in math that does not parse, or is never closed, is an error too.
        for text in ["$a {{ \\alpha }}$", "$a {{ x.y = 1 } }$"] {
            let s = scan(text, 0);
            assert!(s.claims.is_empty() && s.errors.len() == 1, "{text:?}: {:?}", s.errors);
            assert_eq!(s.errors[0].code, Code::ClaimSyntax, "{text:?}");
        }
        for text in ["$\\frac{{a}}{2}$", "$\\{ {a} \\}$", "$\\{{a}\\}$", "$x^{{2}}$"] {
            let s = scan(text, 0);
            assert!(s.claims.is_empty() && s.errors.is_empty(), "{text:?}: {:?}", s.errors);
        }
    }

    /// pulldown-cmark reads no math whose braces do not balance, so `$x^{2$` was published
    /// as raw TeX, with no error.
    #[test]
    fn math_whose_braces_do_not_balance_is_an_error() {
        for (text, at) in [
            ("a $x^{2$ b", "$x^{2$"),
            ("a $x}$ b", "$x}$"),
            ("a $$x^{2$$ b", "$$x^{2$$"),
            ("a\\$ and $\\frac{1}{2$ b", "$\\frac{1}{2$"),
            ("ok $x$ and\nthen $y^{ {{ g.n = 5 }}$.", "$y^{ {{ g.n = 5 }}$"),
        ] {
            let s = scan(text, 0);
            let e: Vec<_> = s.errors.iter().filter(|e| e.code == Code::MathMalformed).collect();
            assert_eq!(e.len(), 1, "{text:?}: {:?}", s.errors);
            assert_eq!(&text[e[0].span.clone()], at, "{text:?}");
        }
        // Math that Markdown paired across unbalanced braces holds a `$`.
        assert_eq!(dollar_in_math("$x^{2$ and $y}$", 10).map(|e| (e.code, e.span)), Some((Code::MathMalformed, 10..16)));
        for whole in ["$a \\$ b$", "$$a$$", "$$x^{2}$$", "$a$"] {
            assert!(dollar_in_math(whole, 0).is_none(), "{whole}");
        }
        for text in [
            "costs $5 and $6, or \\$7",
            "$\\{ x$ and $x^{2 and y}$",
            "`$x^{2$` and\n\n```\n$y}$\n```\n",
            "a $x^{2\n\nb$",
            "<div>\n$x}$\n</div>\n",
        ] {
            let s = scan(text, 0);
            assert!(s.errors.is_empty(), "{text:?}: {:?}", s.errors);
        }
    }

    #[test]
    fn a_claim_may_wrap_a_line_and_sit_in_emphasis() {
        let s = scan("*all {{ x.n =\n fifty-five }}* of them", 0);
        assert_eq!(stated(&s), vec!["fifty-five"]);
    }

    #[test]
    fn spans_in_unicode_text() {
        let text = "⟨a|b⟩ — the {{ w.v = 1,001 }} positions’";
        let s = scan(text, 10);
        let c = &s.claims[0];
        assert_eq!(&text[c.span.start - 10..c.span.end - 10], "{{ w.v = 1,001 }}");
        match &c.kind {
            ClaimKind::Check { stated_span, .. } => {
                assert_eq!(&text[stated_span.start - 10..stated_span.end - 10], "1,001")
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn unterminated_fences_are_errors() {
        let s = scan("a {{ x.a = 1 }}\n\n```census\nid: g\n\nb {{ x.b = 2 }}\n", 0);
        assert_eq!(stated(&s), vec!["1"]);
        assert!(s.blocks.is_empty());
        assert_eq!(s.errors.len(), 1, "{:?}", s.errors);
        assert_eq!(s.errors[0].code, Code::UnterminatedFence, "{:?}", s.errors);
        assert!(s.errors[0].message.contains("census block is never closed"));
        // Closed fences, in containers too, are fine; so are longer closing fences.
        for ok in ["```\nx\n```\n", "~~~~\nx\n~~~~~\n", "> ```census\n> id: a\n> ```\n", "- ```\n  x\n  ```\n", "```\n```"] {
            assert!(scan(ok, 0).errors.is_empty(), "{ok:?}: {:?}", scan(ok, 0).errors);
        }
        for bad in ["```", "~~~\nx\n", "````\nx\n```\n", "> ```\n> x\n\nafter\n"] {
            assert_eq!(scan(bad, 0).errors.len(), 1, "{bad:?}");
        }
    }

    #[test]
    fn directive_blocks_map_back_to_source() {
        let text = "intro\n\n> ```census\n> id: a\n> run: b\n> ```\n";
        let s = scan(text, 0);
        assert_eq!(s.blocks.len(), 1);
        let b = &s.blocks[0];
        assert_eq!(b.kind, BlockKind::Census);
        let at = b.content.find("run").unwrap();
        assert_eq!(&text[b.source_offset(at)..b.source_offset(at) + 3], "run");
    }
}
