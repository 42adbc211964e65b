//! Diagnostics: problems a user can cause, as data with a code, an [`Origin`] (a file, a
//! command-line argument, the cache or the tool) and a byte span,
//! rendered like a compiler's (`error[claim-mismatch]: …`, the source line underlined, a
//! hint saying what to do).
//!
//! Loading, checking and rendering collect diagnostics; only the CLI decides how to print
//! them and which exit code to use. Everything that acts on a diagnostic — follow-on
//! suppression, `--bless`, the JSON report, the tests — matches its [`Code`], never its
//! message, so a reworded message changes nothing but the text.

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::files::{self, Files};
use codespan_reporting::term::{self, termcolor};

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal,)*) => {
        /// What kind of problem a diagnostic reports: one variant per kind, named in
        /// kebab-case (`claim-mismatch`) in the rendered diagnostic, the JSON report and
        /// the guide's list of codes (`docs/guide/essays/diagnostics.md`), which explains each. A code is stable: the message
        /// may be reworded, the code is not.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Code {
            /// Every code, in the order of the guide's list of codes.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code's name, as shown and documented: `claim-mismatch`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The code named `name` (`claim-mismatch`), if there is one.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $($name => Some(Code::$variant),)*
                    _ => None,
                }
            }

            /// The variant's own documentation, one sentence or two (`countersign explain`
            /// prints it above the guide's section): "A stated value disagrees with …".
            pub fn summary(self) -> String {
                let doc: &str = match self {
                    $(Code::$variant => concat!($($doc, "\n",)*),)*
                };
                doc.split_whitespace().collect::<Vec<_>>().join(" ")
            }
        }
    };
}

codes! {
    // Site, files and output.
    /// A source file or folder could not be read.
    ReadFailed = "read-failed",
    /// A template, static file, image or `references.yaml` is a link to a file outside the
    /// site's folder; only essays may be.
    OutsideSite = "outside-site",
    /// A file could not be written (`--bless`).
    WriteFailed = "write-failed",
    /// A source file is not UTF-8.
    NotUtf8 = "not-utf8",
    /// There is no `essays/` folder to read, or it is not a folder.
    NoEssays = "no-essays",
    /// `countersign.yaml` does not parse or has a bad value.
    BadConfig = "bad-config",
    /// A macro under `math.macros` does not parse.
    BadMacro = "bad-macro",
    /// A result could not be stored in the results cache (a warning).
    CacheWriteFailed = "cache-write-failed",
    /// A results-cache entry failed its hash check or did not parse; it is recomputed (a
    /// warning).
    CacheEntryBad = "cache-entry-bad",
    /// A file of `static/` would replace a page the build makes, or a page's folder.
    StaticCollision = "static-collision",
    /// A template does not parse or fails to render.
    TemplateError = "template-error",
    /// Templates include each other in a cycle, or a macro calls itself.
    TemplateCycle = "template-cycle",
    /// A template extends, imports or includes a template that does not exist.
    UnknownTemplate = "unknown-template",
    // Essays: files and front matter.
    /// An essay's file name gives an empty slug.
    EmptySlug = "empty-slug",
    /// An essay is not published: a name on its path starts with `.` (a warning).
    HiddenEssay = "hidden-essay",
    /// Two essays have the same slug.
    DuplicateSlug = "duplicate-slug",
    /// Two essays have the same title.
    DuplicateTitle = "duplicate-title",
    /// An essay does not start with front matter.
    MissingFrontMatter = "missing-front-matter",
    /// The front matter is never closed.
    UnterminatedFrontMatter = "unterminated-front-matter",
    /// The front matter does not parse or has an unknown key.
    BadFrontMatter = "bad-front-matter",
    /// The front matter has no title.
    MissingTitle = "missing-title",
    /// A `date:` is not YYYY-MM-DD.
    BadDate = "bad-date",
    /// An `anchor:` is not usable as a page name.
    BadAnchor = "bad-anchor",
    /// A `rung:` is 0.
    BadRung = "bad-rung",
    /// A ladder's page would take an essay's place.
    LadderCollision = "ladder-collision",
    // Census and figure blocks.
    /// A census or figure block's YAML does not parse or lacks a key.
    BadBlock = "bad-block",
    /// A block's `id` is not an identifier.
    BadId = "bad-id",
    /// Two census blocks of one essay bind the same id.
    DuplicateId = "duplicate-id",
    /// A figure's `from:` is not a path into a result.
    BadPath = "bad-path",
    /// Two figures of one essay have the same id, or a figure's id is not an identifier.
    DuplicateFigureId = "duplicate-figure-id",
    /// A block names a census that does not exist.
    UnknownCensus = "unknown-census",
    /// A census's parameters do not parse.
    BadParams = "bad-params",
    /// A parameter is outside the census's limits.
    ParamOutOfRange = "param-out-of-range",
    /// A call's estimated cost is over the site's budget.
    OverBudget = "over-budget",
    /// A census failed while running (a bug in countersign).
    CensusPanicked = "census-panicked",
    /// A site census's declaration (`censuses/NAME.yaml`) is malformed.
    CensusDeclaration = "census-declaration",
    /// A site census has the name of a built-in census.
    CensusNameTaken = "census-name-taken",
    /// A site census could not be started or exited with a non-zero status.
    CensusExit = "census-exit",
    /// A site census's output is not one JSON value.
    CensusBadOutput = "census-bad-output",
    /// A site census ran past its time limit.
    CensusTimeout = "census-timeout",
    /// A site census answered differently when run again (`check --verify`).
    CensusNondeterministic = "census-nondeterministic",
    /// A figure's kind does not exist.
    UnknownFigureKind = "unknown-figure-kind",
    /// A figure could not be drawn from its data.
    FigureError = "figure-error",
    // Claims.
    /// A claim does not parse.
    ClaimSyntax = "claim-syntax",
    /// A claim inside raw HTML, published unchecked.
    ClaimInHtml = "claim-in-html",
    /// A claim where it cannot be shown: a link destination, an image source, a heading's
    /// `{#id}`.
    ClaimMisplaced = "claim-misplaced",
    /// Text in math that looks like a claim but is not read as one (`\{{ x.y = 1 }}`,
    /// `{{x.y = 1}}` without a space).
    ClaimLookalike = "claim-lookalike",
    /// A code fence is never closed.
    UnterminatedFence = "unterminated-fence",
    /// A claim or figure reads an id no census block binds.
    UnboundId = "unbound-id",
    /// A path does not lead into the bound result.
    PathNotInResult = "path-not-in-result",
    /// An assert's operand is not a number.
    NotANumber = "not-a-number",
    /// An expression in a claim divides by zero.
    DivisionByZero = "division-by-zero",
    /// An operator or function of an expression is given a value of the wrong kind.
    TypeMismatch = "type-mismatch",
    /// An expression calls a function that does not exist.
    UnknownFunction = "unknown-function",
    /// `min` or `max` of an empty list.
    EmptyList = "empty-list",
    /// A stated value cannot be read as a number.
    UnreadableStated = "unreadable-stated",
    /// The stated value disagrees with the computed one.
    ClaimMismatch = "claim-mismatch",
    /// The stated form cannot express the computed value.
    Incomparable = "incomparable",
    /// An assert is false.
    AssertFailed = "assert-failed",
    /// `--bless` cannot rewrite a stated value.
    BlessRefused = "bless-refused",
    /// The essay changed between checking and `--bless`.
    BlessStale = "bless-stale",
    /// `--strict`: an interpolation prints a value but checks nothing.
    UncheckedInterpolation = "unchecked-interpolation",
    /// `--strict`: a number in prose no claim covers.
    UncoveredNumber = "uncovered-number",
    // Rendering.
    /// Math that does not render.
    LatexError = "latex-error",
    /// Math whose braces do not balance (so it is not read as math at all) or whose
    /// environment is never closed.
    MathMalformed = "math-malformed",
    /// A link to an essay that does not exist.
    UnknownEssay = "unknown-essay",
    /// A link to a heading that does not exist.
    UnknownHeading = "unknown-heading",
    /// A citation of a key not in `references.yaml`.
    UnknownCitation = "unknown-citation",
    /// `references.yaml` does not parse.
    BadBibliography = "bad-bibliography",
    /// A reference to a figure the essay does not have.
    UnknownFigure = "unknown-figure",
    /// A reference to an equation label the essay does not have.
    UnknownEquation = "unknown-equation",
    /// A link to a planned essay, shown as plain text (a warning).
    PlannedLink = "planned-link",
    /// An essay marked `draft: true`: checked, shown by watch, left out of build (a warning).
    Draft = "draft",
    /// An image an essay shows is not beside it.
    MissingImage = "missing-image",
    /// A footnote reference `[^label]` with no note `[^label]: …` in the essay.
    UndefinedFootnote = "undefined-footnote",
    /// Markdown nested deeper than a page can show: block quotes, lists, emphasis, links.
    MarkdownTooDeep = "markdown-too-deep",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The build fails.
    Error,
    /// Reported; the build goes on (`--strict` findings, for instance, when not strict).
    Warning,
}

/// Where a diagnostic points: a file of the site, an argument of the command line, the
/// results cache, or nowhere in particular (countersign itself, the site as a whole).
/// Only a file (or an argument, whose text the CLI adds to [`Sources`]) has source to
/// show; the others render as a header line with notes. Names are boxed, so that a
/// [`Diagnostic`] stays small enough to return in a `Result` (clippy's
/// `result_large_err`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// A file, as shown to the user: relative to the site root where possible
    /// (`essays/e.md`, `countersign.yaml`, `templates/essay.html`).
    File(Box<str>),
    /// An argument of the command line, named as the usage line writes it (`NAME`,
    /// `--with`); its text may be added to [`Sources`] under that name.
    Argument(Box<str>),
    /// The results cache, `.countersign-cache/`.
    Cache,
    /// countersign itself or the site as a whole: no file to show.
    Tool,
}

impl Origin {
    /// The file's path, for [`Origin::File`]; `None` otherwise.
    pub fn file(&self) -> Option<&str> {
        match self {
            Origin::File(f) => Some(f),
            _ => None,
        }
    }

    /// The name its text is kept under in [`Sources`], for a file or an argument.
    pub fn source_name(&self) -> Option<&str> {
        match self {
            Origin::File(n) | Origin::Argument(n) => Some(n),
            Origin::Cache | Origin::Tool => None,
        }
    }

    /// The origin's kind, as the JSON report writes it: `file`, `argument`, `cache`, `tool`.
    pub fn kind(&self) -> &'static str {
        match self {
            Origin::File(_) => "file",
            Origin::Argument(_) => "argument",
            Origin::Cache => "cache",
            Origin::Tool => "tool",
        }
    }

    /// What a rendered diagnostic names as its place when it has no source to show:
    /// the path, the argument, `.countersign-cache`, or `None` for the tool.
    pub fn shown(&self) -> Option<&str> {
        match self {
            Origin::File(n) | Origin::Argument(n) => Some(n),
            Origin::Cache => Some(".countersign-cache"),
            Origin::Tool => None,
        }
    }
}

impl From<&str> for Origin {
    fn from(path: &str) -> Origin {
        Origin::File(path.into())
    }
}

impl From<String> for Origin {
    fn from(path: String) -> Origin {
        Origin::File(path.into())
    }
}

impl From<&String> for Origin {
    fn from(path: &String) -> Origin {
        Origin::File(path.as_str().into())
    }
}

/// One problem at one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of problem: what code acting on diagnostics matches.
    pub code: Code,
    /// Where: a file, an argument, the cache or the tool.
    pub origin: Origin,
    /// Byte range into the origin's text; empty at a point. `0..0` when the whole file is
    /// meant (or the file could not be read), and for an origin without text.
    pub span: Range<usize>,
    /// One line saying what is wrong.
    pub message: String,
    /// Short text under the underline (may be empty).
    pub label: String,
    /// Hints and notes, each one line, shown after the source ("hint: ...").
    pub notes: Vec<String>,
    /// Other places that explain this one, and a fix; boxed and absent for most
    /// diagnostics, so a diagnostic stays small (see [`Diagnostic::related`],
    /// [`Diagnostic::fix`]).
    extra: Option<Box<Extra>>,
}

/// The rarely present parts of a [`Diagnostic`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Extra {
    related: Vec<Related>,
    fix: Option<Fix>,
}

/// A secondary place a diagnostic points at: the first block of a duplicated id, the
/// other essay of a title collision. Shown under the primary place with its own
/// underline and message, and listed in the JSON report's `related`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    /// The file (or argument) the place is in.
    pub origin: Origin,
    /// Byte range into the origin's text, as [`Diagnostic::span`].
    pub span: Range<usize>,
    /// What the place is ("first bound here").
    pub message: String,
}

/// How sure a [`Fix`] is, as ruff grades its fixes: whether a tool may apply it unasked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps the author's meaning and form: `countersign check --bless` applies it.
    Safe,
    /// Shown as a suggestion only; an author decides.
    Display,
}

/// A replacement of the text at `span` of the diagnostic's own origin that would resolve
/// it: what `--bless` writes for a claim mismatch (`1,000` → `1,001`, in the form stated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// Byte range of the text to replace, in the diagnostic's origin.
    pub span: Range<usize>,
    /// The text that replaces it.
    pub replacement: String,
    /// One line for `help:` ("write `1,001`").
    pub description: String,
    /// Whether `--bless` applies it.
    pub applicability: Applicability,
}

impl Diagnostic {
    /// An error of kind `code` at `span` of `origin` (a `&str` or `String` is a file's path).
    pub fn error(code: Code, origin: impl Into<Origin>, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            origin: origin.into(),
            span,
            message: message.into(),
            label: String::new(),
            notes: Vec::new(),
            extra: None,
        }
    }

    /// A warning of kind `code` at `span` of `origin`.
    pub fn warning(code: Code, origin: impl Into<Origin>, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, origin, span, message) }
    }

    /// The same diagnostic with `label` under the underline.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// The same diagnostic with one more note (shown as "= hint: …").
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.notes.push(format!("hint: {}", hint.into()));
        self
    }

    /// The same diagnostic with one more note, shown as given.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The same diagnostic with one more secondary place: `span` of `origin`, described
    /// by `message` ("first bound here").
    pub fn with_related(mut self, origin: impl Into<Origin>, span: Range<usize>, message: impl Into<String>) -> Self {
        let related = Related { origin: origin.into(), span, message: message.into() };
        self.extra.get_or_insert_with(Box::default).related.push(related);
        self
    }

    /// The same diagnostic carrying `fix`.
    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.extra.get_or_insert_with(Box::default).fix = Some(fix);
        self
    }

    /// The same diagnostic carrying `fix` when there is one.
    pub fn with_fix_if(self, fix: Option<Fix>) -> Self {
        match fix {
            Some(fix) => self.with_fix(fix),
            None => self,
        }
    }

    /// The secondary places, in the order added (empty for most diagnostics).
    pub fn related(&self) -> &[Related] {
        self.extra.as_ref().map_or(&[], |e| &e.related)
    }

    /// The fix, if the diagnostic carries one.
    pub fn fix(&self) -> Option<&Fix> {
        self.extra.as_ref().and_then(|e| e.fix.as_ref())
    }

    /// The fix, to change (`--bless` makes one it refused a suggestion only).
    pub fn fix_mut(&mut self) -> Option<&mut Fix> {
        self.extra.as_mut().and_then(|e| e.fix.as_mut())
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Put `diags` in reading order: the diagnostics of one file (or one argument) together,
/// in the order of their places in it (byte offset of the span's start; a diagnostic of
/// the whole file, span `0..0`, first), the files in the order their first diagnostic came
/// (so the order between files is what the stages gave, deterministic as they are); a
/// diagnostic with no source (the cache, the tool) stays where it was among them. Stable:
/// two at one place keep their order. The stages find problems in their own order (every
/// census block before any claim), which was printed as it was found.
pub fn sort_by_place(diags: &mut Vec<Diagnostic>) {
    let mut first: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let keys: Vec<(usize, usize)> = diags
        .iter()
        .enumerate()
        .map(|(i, d)| match d.origin.source_name() {
            Some(name) => (*first.entry(name.to_string()).or_insert(i), d.span.start),
            None => (i, 0),
        })
        .collect();
    let mut keyed: Vec<((usize, usize), Diagnostic)> = keys.into_iter().zip(std::mem::take(diags)).collect();
    keyed.sort_by_key(|(k, _)| *k);
    diags.extend(keyed.into_iter().map(|(_, d)| d));
}

/// 1-based line and column of byte `offset` in `text`; the column counts Unicode scalar
/// values, so `’`, `—` and `⟨` are one column each. An offset past the end or inside a
/// character is clamped to the nearest character boundary before it.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// Where the lines of a text start and how many characters precede every 64th byte, so
/// that the line and column of an offset cost a binary search and at most 64 bytes read,
/// whatever the text's length: diagnostics are placed and shown in time linear in their
/// number (each scanning from the file's start made 100,000 of them take minutes).
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// The byte offset of each line's start; the first is 0.
    starts: Vec<usize>,
    /// `chars[k]`: how many characters start before byte `64 k`.
    chars: Vec<usize>,
}

/// The bytes between two entries of [`LineIndex::chars`].
const BLOCK: usize = 64;

impl LineIndex {
    /// The index of `text`, in one pass.
    pub fn new(text: &str) -> LineIndex {
        let b = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(b.iter().enumerate().filter(|(_, c)| **c == b'\n').map(|(i, _)| i + 1));
        let mut chars = Vec::with_capacity(b.len() / BLOCK + 1);
        let mut n = 0;
        for block in b.chunks(BLOCK) {
            chars.push(n);
            n += block.iter().filter(|c| !is_continuation(**c)).count();
        }
        chars.push(n);
        LineIndex { starts, chars }
    }

    /// The characters of `text` (the text indexed) before byte `offset`.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let k = offset / BLOCK;
        self.chars[k] + text.as_bytes()[k * BLOCK..offset].iter().filter(|c| !is_continuation(**c)).count()
    }

    /// The characters of `text` (the text indexed) in `from..to`.
    pub fn chars(&self, text: &str, from: usize, to: usize) -> usize {
        self.chars_before(text, to) - self.chars_before(text, from)
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// The byte range of the line holding `offset` (without its line feed).
    pub fn line_range(&self, text: &str, offset: usize) -> Range<usize> {
        let line = self.line_of(offset);
        let end = self.starts.get(line + 1).map_or(text.len(), |s| s - 1);
        self.starts[line]..end
    }

    /// What [`line_col`] gives for `text` (the text indexed) and `offset`.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = floor_boundary(text, offset);
        let line = self.line_of(offset);
        (line + 1, self.chars(text, self.starts[line], offset) + 1)
    }
}

/// A byte that continues a UTF-8 character rather than starting one.
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn ceil_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

/// The character shown for `c` in a terminal, when `c` would act instead of print:
/// C0 controls but tab and line feed as their control pictures (ESC as `␛`, BEL as `␇`),
/// DEL as `␡`, C1 controls (CSI, OSC as one character) and the bidirectional overrides
/// and isolates as `�`. One character for one, so columns are unchanged. `None`: print
/// `c` as it is. A carriage return is shown as `␍` unless a line feed follows.
fn shown_as(c: char, next: Option<char>) -> Option<char> {
    match c {
        '\t' | '\n' => None,
        '\r' if next == Some('\n') => None,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => Some('\u{fffd}'),
        _ => None,
    }
}

/// `text` with every character a terminal would act on (an escape sequence's ESC, OSC,
/// a bell, a bidirectional override) replaced by a visible one (see `shown_as`), so an
/// essay cannot drive the terminal a diagnostic is printed on. Character counts are kept.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(shown_as(c, chars.peek().copied()).unwrap_or(c));
    }
    out
}

/// The most of one line a diagnostic shows, in characters; a longer line is cut to a
/// window around the span (see [`Excerpt`]).
pub const MAX_SHOWN_LINE: usize = 160;
/// Characters kept before the span and after it in a cut line.
const CONTEXT: usize = 50;
/// The most of a span a cut line shows, in characters.
const MAX_SHOWN_SPAN: usize = 60;
/// The most characters of a message, label or note shown.
const MAX_SHOWN_TEXT: usize = 400;
/// The most diagnostics shown for one line of one file; the rest are counted in a note.
pub const MAX_PER_LINE: usize = 3;

/// What one diagnostic shows of its file: the span's first line (cut to a window around
/// the span when longer than [`MAX_SHOWN_LINE`], with `…` at a cut end), its terminal
/// controls escaped, and where that line sits in the file, so the header still gives the
/// true `file:line:column`. A span over several lines is shown on its first.
struct Excerpt {
    name: String,
    text: String,
    /// 1-based line of the excerpt in the file.
    line: usize,
    /// 1-based column in the file of the excerpt's character after `skip` bytes.
    column: usize,
    /// Bytes of `…` the excerpt starts with (0 or 3).
    skip: usize,
    /// The span in `text`.
    span: Range<usize>,
}

impl Excerpt {
    fn new(name: &str, file: &str, index: &LineIndex, span: &Range<usize>) -> Excerpt {
        let start = floor_boundary(file, span.start);
        let end = ceil_boundary(file, span.end.max(start));
        let Range { start: line_start, end: line_end } = index.line_range(file, start);
        let end = end.min(line_end).max(start);
        let (line, _) = index.line_col(file, start);
        let mut from = line_start;
        let mut to = line_end;
        let mut shown_end = end;
        if index.chars(file, line_start, line_end) > MAX_SHOWN_LINE {
            from = back_chars(file, start, CONTEXT).max(line_start);
            shown_end = forward_chars(file, start, MAX_SHOWN_SPAN).min(end);
            to = forward_chars(file, shown_end, CONTEXT).min(line_end);
        }
        let mut text = String::new();
        let skip = if from > line_start { "…".len() } else { 0 };
        if skip > 0 {
            text.push('…');
        }
        let at = text.len();
        let before = escape_controls(&file[from..start]);
        let inside = escape_controls(&file[start..shown_end]);
        text.push_str(&before);
        text.push_str(&inside);
        text.push_str(&escape_controls(&file[shown_end..to]));
        if to < line_end {
            text.push('…');
        }
        let span = at + before.len()..at + before.len() + inside.len();
        let column = index.chars(file, line_start, from) + 1;
        Excerpt { name: name.to_string(), text, line, column, skip, span }
    }
}

fn back_chars(text: &str, at: usize, n: usize) -> usize {
    text[..at].char_indices().rev().nth(n.saturating_sub(1)).map_or(0, |(i, _)| i)
}

fn forward_chars(text: &str, at: usize, n: usize) -> usize {
    text[at..].char_indices().nth(n).map_or(text.len(), |(i, _)| at + i)
}

/// The excerpts one diagnostic shows: its primary place first, then each related place
/// that has source, each a file of its own for codespan (so two places in one file are
/// two snippets, each with its true line and column).
struct Excerpts(Vec<Excerpt>);

impl Excerpts {
    fn get(&self, id: usize) -> Result<&Excerpt, files::Error> {
        self.0.get(id).ok_or(files::Error::FileMissing)
    }
}

impl<'a> Files<'a> for Excerpts {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, files::Error> {
        Ok(&self.get(id)?.name)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, files::Error> {
        Ok(&self.get(id)?.text)
    }

    fn line_index(&'a self, _id: usize, _byte_index: usize) -> Result<usize, files::Error> {
        Ok(0)
    }

    fn line_number(&'a self, id: usize, _line_index: usize) -> Result<usize, files::Error> {
        Ok(self.get(id)?.line)
    }

    fn column_number(&'a self, id: usize, _line_index: usize, byte_index: usize) -> Result<usize, files::Error> {
        let e = self.get(id)?;
        let b = floor_boundary(&e.text, byte_index).max(e.skip);
        Ok(e.column + e.text[e.skip..b].chars().count())
    }

    fn line_range(&'a self, id: usize, _line_index: usize) -> Result<Range<usize>, files::Error> {
        Ok(0..self.get(id)?.text.len())
    }
}

/// `text` with its controls escaped and cut to [`MAX_SHOWN_TEXT`] characters.
fn shown_text(text: &str) -> String {
    let text = escape_controls(text);
    match text.char_indices().nth(MAX_SHOWN_TEXT) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// The `help:` line of a fix: what to write, and whether `--bless` writes it.
fn fix_help(fix: &Fix) -> String {
    match fix.applicability {
        Applicability::Safe => format!("help: {} (`countersign check --bless` applies this)", fix.description),
        Applicability::Display => format!("help: {}", fix.description),
    }
}

/// The texts of the files diagnostics point into, for rendering their source lines.
/// Kept by name in a hash map, so that adding every file of a site of n essays costs
/// O(n), not O(n²); each with its [`LineIndex`], made when a diagnostic first needs it.
#[derive(Default, Clone, Debug)]
pub struct Sources {
    files: std::collections::HashMap<String, (std::sync::Arc<str>, std::sync::OnceLock<LineIndex>)>,
}

impl Sources {
    /// No files.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Remember `text` as the contents of `name` (a later add of the same name wins). An
    /// `Arc<str>` is kept as it is, not copied.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<std::sync::Arc<str>>) {
        self.files.insert(name.into(), (text.into(), std::sync::OnceLock::new()));
    }

    /// The text of `name`, if known.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.files.get(name).map(|(t, _)| &**t)
    }

    /// The text of `name` and its line index, if known.
    fn indexed(&self, name: &str) -> Option<(&str, &LineIndex)> {
        self.files.get(name).map(|(t, i)| (&**t, i.get_or_init(|| LineIndex::new(t))))
    }

    /// `file:line:column` of a diagnostic (line 1, column 1 when the file is unknown).
    pub fn position(&self, d: &Diagnostic) -> (usize, usize) {
        self.place(&d.origin, d.span.start)
    }

    /// 1-based line and column of byte `offset` of `origin` (1, 1 when it has no text).
    pub fn place(&self, origin: &Origin, offset: usize) -> (usize, usize) {
        match origin.source_name().and_then(|n| self.indexed(n)) {
            Some((t, index)) => index.line_col(t, offset),
            None => (1, 1),
        }
    }

    /// The excerpts and labels of `d`: its primary place, then each related place with
    /// source as a secondary label; a place without source becomes a note ("in
    /// `.countersign-cache`", "first bound in essays/b.md").
    fn places(&self, d: &Diagnostic, notes: &mut Vec<String>) -> (Excerpts, Vec<CsLabel<usize>>) {
        let mut excerpts = Vec::new();
        let mut labels = Vec::new();
        match d.origin.source_name().and_then(|n| self.indexed(n).map(|t| (n, t))) {
            Some((name, (text, index))) => {
                let excerpt = Excerpt::new(name, text, index, &d.span);
                labels.push(CsLabel::primary(0, excerpt.span.clone()).with_message(shown_text(&d.label)));
                excerpts.push(excerpt);
            }
            None => {
                if let Some(place) = d.origin.shown() {
                    notes.insert(0, format!("in {}", shown_text(place)));
                }
            }
        }
        for r in d.related() {
            match r.origin.source_name().and_then(|n| self.indexed(n).map(|t| (n, t))) {
                Some((name, (text, index))) => {
                    let excerpt = Excerpt::new(name, text, index, &r.span);
                    labels.push(CsLabel::secondary(excerpts.len(), excerpt.span.clone()).with_message(shown_text(&r.message)));
                    excerpts.push(excerpt);
                }
                None => notes.push(shown_text(&format!("{} (in {})", r.message, r.origin.shown().unwrap_or("countersign")))),
            }
        }
        (Excerpts(excerpts), labels)
    }

    /// Render `diags` as a compiler would, one after another, with colour when `color`:
    /// `error[code]: message`, the span's line (cut around the span when long), label and
    /// notes. What the essay wrote is shown with its terminal controls escaped. At most
    /// [`MAX_PER_LINE`] diagnostics of one line are shown; the last of them says how many
    /// more there are.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let mut buf = if color { termcolor::Buffer::ansi() } else { termcolor::Buffer::no_color() };
        let config = term::Config::default();
        let lines: Vec<Option<(&str, usize)>> = diags
            .iter()
            .map(|d| d.origin.source_name().and_then(|n| self.indexed(n).map(|(t, index)| (n, index.line_col(t, d.span.start).0))))
            .collect();
        let mut totals: std::collections::HashMap<(&str, usize), usize> = std::collections::HashMap::new();
        for at in lines.iter().flatten() {
            *totals.entry(*at).or_default() += 1;
        }
        let mut shown: std::collections::HashMap<(&str, usize), usize> = std::collections::HashMap::new();
        for (d, at) in diags.iter().zip(&lines) {
            let mut notes: Vec<String> = d.notes.iter().map(|n| shown_text(n)).collect();
            if let Some(at) = at {
                let n = shown.entry(*at).or_default();
                *n += 1;
                if *n > MAX_PER_LINE {
                    continue;
                }
                let total = totals[at];
                if *n == MAX_PER_LINE && total > MAX_PER_LINE {
                    let more = total - MAX_PER_LINE;
                    let (what, verb) = if more == 1 { ("problem", "is") } else { ("problems", "are") };
                    notes.push(format!(
                        "{more} more {what} on line {} {verb} not shown (`--format json` lists every one): fix these first",
                        at.1
                    ));
                }
            }
            let cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            }
            .with_code(d.code.as_str())
            .with_message(shown_text(&d.message));
            if let Some(fix) = d.fix() {
                notes.push(shown_text(&fix_help(fix)));
            }
            let (excerpts, labels) = self.places(d, &mut notes);
            let _ = term::emit(&mut buf, &config, &excerpts, &cs.with_labels(labels).with_notes(notes));
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Diagnostics of one file come in the order of their places, grouped by file in the
    /// order the files first came; one with no source keeps its place; ties keep theirs.
    #[test]
    fn diagnostics_are_sorted_by_place_within_their_file() {
        let d = |file: &str, at: usize, m: &str| Diagnostic::error(Code::ClaimMismatch, file, at..at + 1, m);
        let mut diags = vec![
            d("essays/b.md", 40, "b40"),
            d("essays/a.md", 30, "a30"),
            Diagnostic::error(Code::CacheWriteFailed, Origin::Cache, 0..0, "cache"),
            d("essays/b.md", 10, "b10"),
            d("essays/a.md", 5, "a5 first"),
            Diagnostic::error(Code::UnknownCensus, Origin::Argument("NAME".into()), 3..4, "arg"),
            d("essays/a.md", 5, "a5 second"),
            d("essays/b.md", 0, "b whole"),
        ];
        sort_by_place(&mut diags);
        let order: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(order, ["b whole", "b10", "b40", "a5 first", "a5 second", "a30", "cache", "arg"]);
    }

    /// A related place is shown as a secondary underline at its own line and file, with
    /// its message; one without source is a note; a fix is a `help:` line.
    #[test]
    fn related_places_are_secondary_labels_and_a_fix_is_a_help_line() {
        let a = "---\ntitle: A\n---\nid: s\n\nid: s\n";
        let mut sources = Sources::new();
        sources.add("essays/a.md", a);
        sources.add("essays/b.md", "---\ntitle: A\n---\n");
        let second = a.rfind("s\n").unwrap();
        let first = a.find("s\n").unwrap();
        let d = Diagnostic::error(Code::DuplicateId, "essays/a.md", second..second + 1, "duplicate census id `s`")
            .with_label("bound again here")
            .with_related("essays/a.md", first..first + 1, "first bound here")
            .with_related("essays/b.md", 4..12, "the other title")
            .with_related(Origin::Cache, 0..0, "an entry")
            .with_fix(Fix {
                span: second..second + 1,
                replacement: "t".into(),
                description: "write `t`".into(),
                applicability: Applicability::Display,
            });
        let out = sources.render(&[d], false);
        assert!(out.contains("essays/a.md:6:5"), "{out}");
        assert!(out.contains("essays/a.md:4:5"), "{out}");
        assert!(out.contains("- first bound here"), "{out}");
        assert!(out.contains("essays/b.md:2:1"), "{out}");
        assert!(out.contains("-------- the other title"), "{out}");
        assert!(out.contains("= an entry (in .countersign-cache)"), "{out}");
        assert!(out.contains("= help: write `t`\n"), "{out}");
        assert!(out.find("6 │ id: s").unwrap() < out.find("4 │ id: s").unwrap(), "primary first: {out}");
    }

    #[test]
    fn the_line_index_places_every_offset_as_line_col_does() {
        let text = format!("a’b\n\n{}—x\r\nlast ⟨é⟩", "long line ".repeat(30));
        let index = LineIndex::new(&text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(index.line_col(&text, offset), line_col(&text, offset), "at {offset}");
        }
        assert_eq!(index.line_range(&text, 1), 0..5);
        assert_eq!(LineIndex::new("").line_col("", 0), (1, 1));
    }

    fn at(text: &str, needle: &str) -> Range<usize> {
        let i = text.find(needle).unwrap();
        i..i + needle.len()
    }

    #[test]
    fn a_code_is_found_by_its_name_and_has_its_variants_documentation() {
        for &c in Code::ALL {
            assert_eq!(Code::from_name(c.as_str()), Some(c));
            assert!(c.summary().ends_with('.') && !c.summary().contains("  "), "{c:?}: {:?}", c.summary());
        }
        assert_eq!(Code::from_name("claim mismatch"), None);
        assert_eq!(Code::ClaimMismatch.summary(), "The stated value disagrees with the computed one.");
        assert_eq!(
            Code::CacheEntryBad.summary(),
            "A results-cache entry failed its hash check or did not parse; it is recomputed (a warning)."
        );
    }

    #[test]
    fn every_code_has_a_distinct_kebab_case_name_documented_in_the_guide() {
        let guide = include_str!("../../../docs/guide/essays/diagnostics.md");
        let mut names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for n in &names {
            assert!(n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{n}");
            assert!(guide.contains(&format!("### `{n}`")), "the guide's diagnostic codes lack a section `### `{n}``");
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Code::ALL.len());
        let documented = guide.lines().filter(|l| l.starts_with("### `") && l.ends_with('`')).count();
        assert_eq!(documented, Code::ALL.len(), "the guide documents a code that does not exist");
    }

    #[test]
    fn rendered_diagnostics_name_their_code() {
        let mut s = Sources::new();
        s.add("e.md", "one\ntwo three\n");
        let d = Diagnostic::error(Code::ClaimMismatch, "e.md", at("one\ntwo three\n", "three"), "disagrees");
        let out = s.render(&[d], false);
        assert!(out.starts_with("error[claim-mismatch]: disagrees"), "{out}");
        assert!(out.contains("e.md:2:5"), "{out}");
    }

    #[test]
    fn an_origin_without_a_file_renders_a_header_and_no_source() {
        let mut s = Sources::new();
        s.add("e.md", "one\n");
        s.add("--with", "n: 3");
        let tool = Diagnostic::error(Code::CensusPanicked, Origin::Tool, 0..0, "a bug");
        let cache = Diagnostic::warning(Code::CacheEntryBad, Origin::Cache, 0..0, "a bad entry");
        let arg = Diagnostic::error(Code::BadParams, Origin::Argument("--with".into()), 3..4, "too many");
        let out = s.render(std::slice::from_ref(&tool), false);
        assert!(out.starts_with("error[census-panicked]: a bug") && !out.contains("in ") && !out.contains('│'), "{out}");
        let out = s.render(std::slice::from_ref(&cache), false);
        assert!(out.contains("in .countersign-cache") && !out.contains('│'), "{out}");
        let out = s.render(std::slice::from_ref(&arg), false);
        assert!(out.contains("--with:1:4") && out.contains("n: 3"), "{out}");
        assert_eq!([tool.origin.file(), cache.origin.file(), arg.origin.file()], [None, None, None]);
        assert_eq!([tool.origin.kind(), cache.origin.kind(), arg.origin.kind()], ["tool", "cache", "argument"]);
        assert_eq!(Diagnostic::error(Code::BadDate, "essays/e.md", 0..0, "x").origin, Origin::File("essays/e.md".into()));
    }

    #[test]
    fn terminal_controls_in_an_essay_are_shown_escaped() {
        let text = "x \u{1b}]8;;http://evil\u{7}link\u{1b}]8;;\u{7} \u{1b}[2J {{ a.b = 1 }}\n";
        let mut s = Sources::new();
        s.add("e.md", text);
        let d = Diagnostic::error(Code::ClaimMismatch, "e.md", at(text, "1 }}"), "says \u{1b}[31mred\u{9d}")
            .with_label("\u{1b}[1m")
            .with_hint("\u{202e}abc");
        let out = s.render(&[d], false);
        for bad in ['\u{1b}', '\u{7}', '\u{9d}', '\u{202e}'] {
            assert!(!out.contains(bad), "{bad:?} printed raw: {out:?}");
        }
        assert!(out.contains("␛]8;;http://evil␇link"), "{out}");
        // Escaping keeps one character for one: the column is the file's.
        assert!(out.contains(&format!("e.md:1:{}", text[..text.find("1 }}").unwrap()].chars().count() + 1)), "{out}");
    }

    #[test]
    fn a_long_line_is_cut_around_the_span_and_keeps_its_true_column() {
        let line = format!("{}{{{{ a.b = 7 }}}}{}", "x".repeat(100_000), "y".repeat(100_000));
        let mut s = Sources::new();
        s.add("e.md", format!("first\n{line}\n"));
        let text = s.get("e.md").unwrap().to_string();
        let d = Diagnostic::error(Code::ClaimMismatch, "e.md", at(&text, "7"), "disagrees");
        let out = s.render(&[d], false);
        assert!(out.len() < 2_000, "{} bytes shown", out.len());
        assert!(out.contains("e.md:2:100010"), "{out}");
        assert!(out.contains("…xxx") && out.contains("{{ a.b = 7 }}yyy") && out.contains("y…"), "{out}");
    }

    #[test]
    fn many_problems_on_one_line_show_a_few_and_count_the_rest() {
        let line: String = (0..1000).map(|i| format!("{{{{ a.b = {i} }}}} ")).collect();
        let mut s = Sources::new();
        s.add("e.md", format!("{line}\nnext\n"));
        let text = s.get("e.md").unwrap().to_string();
        let mut diags: Vec<Diagnostic> = (0..1000)
            .map(|i| {
                let needle = format!("= {i} ");
                Diagnostic::error(Code::ClaimMismatch, "e.md", at(&text, &needle), format!("number {i}"))
            })
            .collect();
        diags.push(Diagnostic::error(Code::ClaimSyntax, "e.md", at(&text, "next"), "other line"));
        let out = s.render(&diags, false);
        assert_eq!(out.matches("error[claim-mismatch]").count(), MAX_PER_LINE, "{out}");
        assert!(out.contains("997 more problems on line 1 are not shown"), "{out}");
        assert!(out.contains("other line"), "{out}");
        assert!(out.len() < 5_000, "{} bytes shown", out.len());
    }

    #[test]
    fn one_problem_not_shown_is_counted_in_the_singular() {
        let mut s = Sources::new();
        s.add("e.md", "{{ a = 1 }} {{ a = 2 }} {{ a = 3 }} {{ a = 4 }}\n".to_string());
        let text = s.get("e.md").unwrap().to_string();
        let diags: Vec<Diagnostic> =
            (1..=4).map(|i| Diagnostic::error(Code::ClaimMismatch, "e.md", at(&text, &format!("= {i} ")), format!("n {i}"))).collect();
        let out = s.render(&diags, false);
        assert!(out.contains("1 more problem on line 1 is not shown (`--format json` lists every one)"), "{out}");
        assert!(!out.contains("1 more problems"), "{out}");
    }
}
