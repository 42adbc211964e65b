//! One essay's Markdown body to HTML, with claims, figures and math substituted.
//!
//! The body is parsed as written; claims are carried through pulldown-cmark's events by
//! their byte spans (an event inside a claim is dropped, the claim becomes one item of its
//! own), so emphasis, smart punctuation and line breaks cannot split a claim and no
//! character an author writes is taken for a placeholder. Directive blocks are removed
//! (census) or replaced by their figure's HTML (figure), whose caption is rendered here
//! like prose. Math becomes MathML, with the text of its claims; display equations are
//! numbered (`\label{eq:name}` names one).
//!
//! A claim in a link's text keeps its certificate but not its own link (a link cannot
//! hold another); one in an image's alt text or a link's title is shown as its plain
//! text; a claim in a link's destination or a heading's `{#id}` is an error. Heading ids
//! leave out the stated values of claims, so `--bless` never changes an id.
//!
//! References are left as [`Mark`]s for [`super::links`] to resolve once every essay is
//! rendered: links to essays (`[[Title]]`, `[[slug#heading|text]]`, `[text](essay:slug#heading)`),
//! citations (`[@key]`, `[-@key]`, `[@key, ch. 13]`, `[@a; @b]`) and cross-references to
//! figures and equations (`[@fig:id]`, `[@eq:name]`). A claim in a locator or a link's
//! target reads as its plain text.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use countersign_core::content::claim::ClaimKind;
use countersign_core::content::scan::markdown_options;
use countersign_core::content::Essay;
use countersign_core::diag::{Code, Diagnostic};

use super::math::Math;

/// Where a figure's caption goes in the HTML the figure code makes for it: the body's
/// renderer puts the caption, rendered like prose, in its place.
pub const CAPTION_SLOT: &str = "<!-- caption -->";

/// The `<figcaption>` of figure `number`, with [`CAPTION_SLOT`] for its text.
pub fn caption_slot(number: usize) -> String {
    format!("<figcaption><span class=\"fig-number\">Figure {number}.</span> {CAPTION_SLOT}</figcaption>")
}

/// What a reference marker stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefKind {
    /// A link to an essay by title or slug, with an optional heading (id or text).
    /// `own_text`: the author wrote the link text (it sits between the two marks).
    Essay { target: String, heading: Option<String>, own_text: bool },
    /// Citations of bibliography keys, each with an optional locator; `year_only` for `[-@key]`.
    Cite { keys: Vec<(String, Option<String>)>, year_only: bool },
    /// `[@fig:id]`.
    Figure(String),
    /// `[@eq:name]`.
    Equation(String),
}

/// A reference found in the body, with its place in the essay's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ref {
    /// What it refers to.
    pub kind: RefKind,
    /// Byte span in the essay's source.
    pub span: Range<usize>,
}

/// Where a reference's HTML goes in [`Body::html`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Byte offset in the HTML.
    pub at: usize,
    /// Index into [`Body::refs`].
    pub reference: usize,
    /// True for the end of a link whose text the author wrote (its `</a>`).
    pub closing: bool,
    /// What holds it: a link may not hold a link, an image's alt text holds no markup.
    pub within: Within,
}

/// What holds a place in the HTML, which decides what a reference or claim may put there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Within {
    /// Prose: any inline HTML.
    #[default]
    Prose,
    /// A link's text (a Markdown link, a link to an essay, or a raw `<a>`): no link.
    Link,
    /// An image's alt text, an attribute: text only.
    Alt,
}

/// How deep in links and images the items of a stream are: Markdown links and images,
/// links to essays around the author's text, and raw inline `<a …>` … `</a>`.
#[derive(Default)]
struct Depth {
    links: usize,
    images: usize,
}

impl Depth {
    /// What holds `item`, and the depth after it (an opening counts from the next item,
    /// a closing from itself).
    fn step(&mut self, item: &Item<'_>) -> Within {
        let (link, image) = match item {
            Item::Md(Event::Start(Tag::Link { .. })) => (1, 0),
            Item::Md(Event::End(TagEnd::Link)) => (-1, 0),
            Item::Md(Event::Start(Tag::Image { .. })) => (0, 1),
            Item::Md(Event::End(TagEnd::Image)) => (0, -1),
            Item::Md(Event::InlineHtml(h)) => (raw_anchor(h), 0),
            Item::LinkMark { closing, .. } => (if *closing { -1 } else { 1 }, 0),
            _ => (0, 0),
        };
        self.links = self.links.saturating_sub((-link).max(0) as usize);
        self.images = self.images.saturating_sub((image < 0) as usize);
        let within = if self.images > 0 {
            Within::Alt
        } else if self.links > 0 {
            Within::Link
        } else {
            Within::Prose
        };
        self.links += link.max(0) as usize;
        self.images += (image > 0) as usize;
        within
    }
}

/// How many `<a>` elements raw inline HTML opens, less those it closes (`<a href="x">`
/// 1, `</a>` -1, `<a href="x">y</a>` 0).
fn raw_anchor(html: &str) -> i32 {
    let t = html.as_bytes();
    let ends_name = |at: usize| t.get(at).is_none_or(|c| c.is_ascii_whitespace() || *c == b'>' || *c == b'/');
    let mut net = 0;
    let is_a = |at: usize| t.get(at).is_some_and(|c| c.eq_ignore_ascii_case(&b'a'));
    for (i, _) in html.match_indices('<') {
        if is_a(i + 1) && ends_name(i + 2) {
            net += 1;
        } else if t.get(i + 1) == Some(&b'/') && is_a(i + 2) && ends_name(i + 3) {
            net -= 1;
        }
    }
    net
}

/// A numbered display equation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equation {
    /// Its name from `\label{eq:name}`, if any.
    pub label: Option<String>,
    /// Its number, from 1.
    pub number: usize,
    /// Its anchor id.
    pub id: String,
}

/// A heading of the essay, for the table of contents.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Heading {
    /// 1 to 6.
    pub level: u32,
    /// The anchor id (unique in the page).
    pub id: String,
    /// The heading's text (claims as stated).
    pub text: String,
}

/// The rendered body.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// HTML, without the references' HTML.
    pub html: String,
    /// Where each reference's HTML goes, in order of `at`.
    pub marks: Vec<Mark>,
    /// Headings in order.
    pub headings: Vec<Heading>,
    /// References, indexed by [`Mark::reference`].
    pub refs: Vec<Ref>,
    /// Display equations in order.
    pub equations: Vec<Equation>,
    /// The body's plain text for the search index, collected from the events as the HTML is
    /// written: prose, code and claims as the reader sees them; no math, no raw or
    /// generated HTML (figures, heading permalinks, footnote numbers and back-links), a
    /// space at every block edge and break. Without the references' text.
    pub text: String,
    /// Where each reference's text goes in [`Body::text`], as [`Body::marks`] in the HTML.
    pub text_marks: Vec<Mark>,
}

/// One item of the stream the stages hand on: a Markdown event, a claim (by its index in
/// the essay's claims), math still to convert, or a reference's place.
#[derive(Clone, Debug)]
enum Item<'a> {
    Md(Event<'a>),
    Claim(usize),
    /// `$…$` or `$$…$$` with its claims' text put in, each as one group; `filled` when it
    /// had claims (its LaTeX errors then point at the whole math). `links`: the claims that
    /// carry a link and a certificate, each with the marker that stands for it in
    /// `marked` (the LaTeX with markers where those claims' text is in `latex`).
    Math {
        latex: String,
        display: bool,
        filled: bool,
        marked: String,
        links: Vec<(String, usize)>,
    },
    /// A whole reference (a citation, a cross-reference, a link without its own text).
    Mark(usize),
    /// The start or end of a link to an essay around text the author wrote.
    LinkMark {
        reference: usize,
        closing: bool,
    },
    /// Text for the search index only, not the page: a figure's own text (a table's cells).
    Searched(String),
}

/// A figure as the body takes it: its HTML, holding [`CAPTION_SLOT`] where its caption
/// goes, and its text for the search index (a table's cells; empty for a picture, whose
/// words are its caption and alt text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figure {
    /// The `<figure>` element.
    pub html: String,
    /// Its plain text, without the caption.
    pub text: String,
}

/// Items with their byte ranges in their fragment's text.
type Stream<'a> = Vec<(Item<'a>, Range<usize>)>;

/// A piece of Markdown rendered on its own: the body, or a figure's caption.
struct Fragment<'a> {
    /// The Markdown; event ranges index it.
    text: &'a str,
    /// Its claims: (span in `text`, index in the essay's claims), sorted by span.
    claims: Vec<(Range<usize>, usize)>,
    /// `Some(offset)` when `text` is the file's text from that offset on (the body);
    /// `None` for a text YAML decoded (a caption), whose diagnostics all go to `span`.
    offset: Option<usize>,
    /// The span in the file of the whole text.
    span: Range<usize>,
}

impl Fragment<'_> {
    /// The span in the file of `r` (a range of `text`), never empty.
    fn to_file(&self, r: Range<usize>) -> Range<usize> {
        match self.offset {
            Some(o) => o + r.start..(o + r.end).max(o + r.start + 1),
            None => self.span.clone(),
        }
    }

    /// The position in `claims` of the claim whose span holds `at`.
    fn claim_at(&self, at: usize) -> Option<usize> {
        let after = self.claims.partition_point(|(s, _)| s.start <= at);
        (after > 0 && at < self.claims[after - 1].0.end).then(|| after - 1)
    }

    /// The claims written in `s` (a destination, title or id as the parser decoded it,
    /// from the event at `range`): their ranges in `s` and essay indices. A claim is known
    /// by its text as written; one in `range` is preferred, for its span.
    fn claims_in_str(&self, s: &str, range: &Range<usize>, by_text: &HashMap<&str, usize>) -> Vec<(Range<usize>, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(found) = s[i..].find("{{") {
            let at = i + found;
            i = at + 2;
            let Some(close) = countersign_core::content::scan::claim_close(&s[at + 2..]) else { continue };
            let written = &s[at..at + close + 4];
            let here =
                self.claims.iter().find(|(sp, _)| range.start <= sp.start && sp.end <= range.end && &self.text[sp.clone()] == written);
            if let Some(k) = here.map(|(_, k)| *k).or_else(|| by_text.get(written).copied()) {
                out.push((at..at + written.len(), k));
                i = at + written.len();
            }
        }
        out
    }
}

/// The renderer of one essay: what every stage reads, and what they collect.
struct Renderer<'a> {
    essay: &'a Essay,
    claim_html: &'a [String],
    claim_text: &'a [String],
    figures: &'a [Figure],
    math: &'a Math,
    /// Claim index by its text as written (first one), for places the parser decodes.
    by_text: HashMap<&'a str, usize>,
    figure_index: usize,
    diags: Vec<Diagnostic>,
    refs: Vec<Ref>,
    equations: Vec<Equation>,
}

/// Render `essay`'s body. `claim_html[i]` is the HTML for claim `i` of `essay.claims`,
/// `claim_text[i]` its plain text (for link text, alt text, titles, math, heading ids and
/// the table of contents); `figures[i]` figure block `i`. A claim in math whose HTML is more than its
/// escaped text (a link and a certificate) goes into the MathML as that HTML, in an `<mn>`
/// (or an `<mtext>` for words), where the HTML standard lets MathML hold HTML. Math errors, and claims where none can go,
/// come back as diagnostics at their place in the essay.
pub fn render(essay: &Essay, claim_html: &[String], claim_text: &[String], figures: &[Figure], math: &Math) -> (Body, Vec<Diagnostic>) {
    let mut r = Renderer {
        essay,
        claim_html,
        claim_text,
        figures,
        math,
        by_text: HashMap::new(),
        figure_index: 0,
        diags: Vec::new(),
        refs: Vec::new(),
        equations: Vec::new(),
    };
    for (i, c) in essay.claims.iter().enumerate() {
        r.by_text.entry(&essay.source[c.span.clone()]).or_insert(i);
    }
    let body = body_fragment(essay);
    let items = r.fragment(&body, true);
    let (items, headings) = heading_ids(items, essay, claim_text);
    let items = footnotes(items, &headings);
    let items = without_empty_paragraphs(items, claim_html);
    let (html, marks, plain) = write_html(items, claim_html, claim_text);
    (Body { html, marks, headings, refs: r.refs, equations: r.equations, text: plain.text, text_marks: plain.marks }, r.diags)
}

/// `items` without the paragraphs that show nothing: only claims that show nothing (an
/// assert) and white space. A paragraph of asserts was an empty `<p></p>`.
fn without_empty_paragraphs<'a>(items: Stream<'a>, claim_html: &[String]) -> Stream<'a> {
    let shows_nothing = |item: &Item<'_>| match item {
        Item::Claim(k) => claim_html.get(*k).is_none_or(String::is_empty),
        Item::Md(Event::Text(t)) => t.trim().is_empty(),
        Item::Md(Event::SoftBreak | Event::HardBreak) => true,
        _ => false,
    };
    let mut out = Vec::with_capacity(items.len());
    let mut i = 0;
    while i < items.len() {
        if matches!(items[i].0, Item::Md(Event::Start(Tag::Paragraph))) {
            let inside = items[i + 1..].iter().take_while(|(it, _)| shows_nothing(it)).count();
            if matches!(items.get(i + 1 + inside), Some((Item::Md(Event::End(TagEnd::Paragraph)), _))) {
                i += inside + 2;
                continue;
            }
        }
        out.push(items[i].clone());
        i += 1;
    }
    out
}

/// The body as a fragment: its claims are those in it outside the figure blocks.
fn body_fragment(essay: &Essay) -> Fragment<'_> {
    let base = essay.body.start;
    let in_figure = |s: &Range<usize>| essay.figures.iter().any(|f| f.block.span.start <= s.start && s.start < f.block.span.end);
    let claims = essay
        .claims
        .iter()
        .enumerate()
        .filter(|(_, c)| c.span.start >= base && !in_figure(&c.span))
        .map(|(i, c)| (c.span.start - base..c.span.end - base, i))
        .collect();
    Fragment { text: &essay.source[essay.body.clone()], claims, offset: Some(base), span: essay.body.clone() }
}

/// Figure `i`'s caption as a fragment: the claims found in the decoded caption, matched
/// in order with the essay's claims in the caption's value as written.
fn caption_fragment(essay: &Essay, i: usize) -> Fragment<'_> {
    let f = &essay.figures[i];
    let text = f.caption_markdown.as_str();
    let local = countersign_core::content::scan::scan(text, 0).claims;
    let global = essay.claims.iter().enumerate().filter(|(_, c)| f.caption_span.start <= c.span.start && c.span.end <= f.caption_span.end);
    let claims = local.iter().map(|c| c.span.clone()).zip(global.map(|(k, _)| k)).collect();
    Fragment { text, claims, offset: None, span: f.caption_span.clone() }
}

impl<'a> Renderer<'a> {
    /// The items of `frag`, every stage but heading ids and writing done. Directive
    /// blocks are read only in the body (`body`).
    fn fragment(&mut self, frag: &Fragment<'a>, body: bool) -> Stream<'a> {
        let events = Parser::new_ext(frag.text, markdown_options() | Options::ENABLE_WIKILINKS).into_offset_iter().collect();
        let items = self.place_claims(frag, events);
        let items = self.references(frag, items);
        self.blocks_and_math(frag, items, body)
    }

    /// Claims into the event stream: text is split at claims, each claim becomes one
    /// [`Item::Claim`] and every event inside it is dropped (a tag opened inside a claim is
    /// dropped with its end); claims in math, link titles and essay-link targets are
    /// replaced by their text; one in a destination or a heading's `{#id}` is an error.
    fn place_claims(&mut self, frag: &Fragment<'a>, events: Vec<(Event<'a>, Range<usize>)>) -> Stream<'a> {
        let mut out = Vec::with_capacity(events.len());
        let mut placed = vec![false; frag.claims.len()];
        let mut dropped: Vec<bool> = Vec::new();
        let mut in_code = 0usize;
        for (ev, range) in events {
            let holder = frag.claim_at(range.start);
            match ev {
                Event::Start(tag) => {
                    let drop = holder.is_some_and(|k| frag.claims[k].0.start < range.start);
                    dropped.push(drop);
                    if !drop {
                        in_code += matches!(tag, Tag::CodeBlock(_)) as usize;
                        let tag = self.attributes(frag, tag, &range);
                        out.push((Item::Md(Event::Start(tag)), range));
                    }
                }
                Event::End(end) => {
                    if !dropped.pop().unwrap_or(false) {
                        in_code -= (matches!(end, TagEnd::CodeBlock) && in_code > 0) as usize;
                        out.push((Item::Md(Event::End(end)), range));
                    }
                }
                Event::Text(t) if in_code == 0 => split_text(frag, t, range, &mut placed, &mut out),
                Event::InlineMath(m) | Event::DisplayMath(m) if in_code == 0 && holder.is_none() => {
                    let display = frag.text.get(range.start..range.start + 2) == Some("$$");
                    let math = self.math_claims(frag, &m, &range, display);
                    out.push((math, range));
                }
                ev => match holder.filter(|_| in_code == 0) {
                    Some(k) if !placed[k] => {
                        placed[k] = true;
                        out.push((Item::Claim(frag.claims[k].1), frag.claims[k].0.clone()));
                    }
                    Some(_) => {}
                    None => out.push((Item::Md(ev), range)),
                },
            }
        }
        out
    }

    /// A link's or image's title and an essay link's target with their claims' text put
    /// in; a claim in another destination or in a heading's attributes is an error.
    fn attributes(&mut self, frag: &Fragment<'a>, tag: Tag<'a>, range: &Range<usize>) -> Tag<'a> {
        match tag {
            Tag::Link { link_type, dest_url, title, id } => {
                let target = matches!(link_type, LinkType::WikiLink { .. }) || dest_url.starts_with("essay:");
                let dest_url =
                    if target { self.fill(frag, dest_url, range) } else { self.refuse(frag, dest_url, range, "a link's destination") };
                Tag::Link { link_type, dest_url, title: self.fill_title(frag, title, range), id }
            }
            Tag::Image { link_type, dest_url, title, id } => {
                let dest_url = self.refuse(frag, dest_url, range, "an image's source");
                Tag::Image { link_type, dest_url, title: self.fill_title(frag, title, range), id }
            }
            Tag::Heading { level, id, classes, attrs } => {
                let id = id.map(|id| self.refuse(frag, id, range, "a heading's `{#id}`"));
                self.refuse_in_attribute_block(frag, range);
                Tag::Heading { level, id, classes, attrs }
            }
            t => t,
        }
    }

    /// A link's or image's `title` (at `range`) with its claims' text put in ([`fill`]).
    /// A claim the title changed (a backslash escape or an entity in it, a line of a block
    /// quote) is not known by its text: an error, rather than `{{ … }}` on the page.
    fn fill_title(&mut self, frag: &Fragment<'a>, title: CowStr<'a>, range: &Range<usize>) -> CowStr<'a> {
        let filled = self.fill(frag, title, range);
        let at = filled.find("{{").filter(|&at| countersign_core::content::scan::claim_close(&filled[at + 2..]).is_some());
        if at.is_some() {
            self.diags.push(
                Diagnostic::error(
                    Code::ClaimSyntax,
                    &self.essay.file,
                    frag.to_file(range.clone()),
                    "a claim in this title cannot be read: the title changes its text",
                )
                .with_label("in this link or image")
                .with_hint("a title's backslash escapes, entities (`&amp;`) and block-quote lines change a claim's text: keep the claim on one line, without them"),
            );
        }
        filled
    }

    /// `s` with each claim written in it replaced by the claim's plain text.
    fn fill(&self, frag: &Fragment<'a>, s: CowStr<'a>, range: &Range<usize>) -> CowStr<'a> {
        if !s.contains("{{") {
            return s;
        }
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for (r, k) in frag.claims_in_str(&s, range, &self.by_text) {
            out.push_str(&s[last..r.start]);
            out.push_str(self.claim_text.get(k).map_or("", String::as_str));
            last = r.end;
        }
        out.push_str(&s[last..]);
        CowStr::from(out)
    }

    /// `s` as it is, with an error at each claim written in it (`what` names the place).
    fn refuse(&mut self, frag: &Fragment<'a>, s: CowStr<'a>, range: &Range<usize>, what: &str) -> CowStr<'a> {
        for (_, k) in frag.claims_in_str(&s, range, &self.by_text) {
            let span = self.essay.claims[k].span.clone();
            self.diags.push(
                Diagnostic::error(Code::ClaimMisplaced, &self.essay.file, span, format!("a claim cannot go in {what}"))
                    .with_label("in this claim")
                    .with_hint("a destination or an id is not read as text: state the number in the link's text or the heading's text"),
            );
        }
        s
    }

    /// An error at each claim in the `{#id}` or `{.class}` block closing the heading at
    /// `range` (the parser reads such a block as text once a claim is in it).
    fn refuse_in_attribute_block(&mut self, frag: &Fragment<'a>, range: &Range<usize>) {
        let src = frag.text.get(range.clone()).unwrap_or("").trim_end();
        let Some(open) = src.rfind("{#").or_else(|| src.rfind("{.")).filter(|_| src.ends_with('}')) else { return };
        let from = range.start + open;
        for (span, _) in frag.claims.iter().filter(|(sp, _)| from < sp.start && sp.end <= range.end) {
            self.diags.push(
                Diagnostic::error(
                    Code::ClaimMisplaced,
                    &self.essay.file,
                    frag.to_file(span.clone()),
                    "a claim cannot go in a heading's `{#id}`",
                )
                .with_label("in this claim")
                .with_hint("an id is not read as text: state the number in the heading's text (its id leaves stated values out)"),
            );
        }
    }

    /// The math `m` (event at `range`) with its claims' text put in, each as a group
    /// (`x^{{ plain 10 }}` is `x^{10}`); a claim with a link and a certificate also gets a
    /// marker (a run of digits the math does not hold) in the marked LaTeX, for
    /// [`Renderer::math_html`] to find in the MathML.
    fn math_claims(&mut self, frag: &Fragment<'a>, m: &str, range: &Range<usize>, display: bool) -> Item<'a> {
        let inner = range.start + if display { 2 } else { 1 };
        let claims: Vec<&(Range<usize>, usize)> =
            frag.claims.iter().filter(|(s, _)| range.start <= s.start && s.end <= range.end).collect();
        let as_is = || Item::Math { latex: m.to_string(), display, filled: false, marked: m.to_string(), links: Vec::new() };
        if claims.is_empty() {
            return as_is();
        }
        if frag.text.get(inner..inner + m.len()) != Some(m) {
            self.diags.push(
                Diagnostic::error(
                    Code::ClaimMisplaced,
                    &self.essay.file,
                    frag.to_file(range.clone()),
                    "a claim in this math cannot be placed",
                )
                .with_hint("write the math on one line, without a block quote's `>` inside it"),
            );
            return as_is();
        }
        let stem = marker_stem(m);
        let (mut latex, mut marked, mut links) = (String::with_capacity(m.len()), String::with_capacity(m.len()), Vec::new());
        let mut last = 0;
        for (s, k) in claims {
            let text = self.claim_text.get(*k).map_or("", String::as_str);
            latex.push_str(&m[last..s.start - inner]);
            marked.push_str(&m[last..s.start - inner]);
            latex.push_str(&format!("{{{text}}}"));
            if self.claim_html.get(*k).is_some_and(|h| !h.is_empty() && *h != escape(text)) {
                let marker = format!("{stem}{:04}", links.len());
                marked.push_str(&format!("{{{marker}}}"));
                links.push((marker, *k));
            } else {
                marked.push_str(&format!("{{{text}}}"));
            }
            last = s.end - inner;
        }
        latex.push_str(&m[last..]);
        marked.push_str(&m[last..]);
        Item::Math { latex, display, filled: true, marked, links }
    }

    /// `ml` (MathML of the marked LaTeX) with each of `links`' markers replaced by its
    /// claim's text, marked `class="claim-value"` (an `<mn>` for a number, an `<mtext>` for
    /// words; in a token's text, as a `<span>` there), and the whole math wrapped in the
    /// first claim's link (named by the formula's text) with one certificate holding every
    /// claim's. A focusable element
    /// may not stand inside `<math>`, whose children are presentational (ARIA), so the
    /// link goes around it; in a link's text (`within`) a span of the link's class goes
    /// there instead, described by the certificate (see [`claim_in_link`]). Error: the
    /// claims whose marker the MathML does not hold exactly once (a command such as
    /// `\mathbf` changed its digits).
    fn place_links(&self, mut ml: String, links: &[(String, usize)], within: Within) -> Result<String, Vec<usize>> {
        let lost: Vec<usize> = links.iter().filter(|(marker, _)| ml.matches(marker.as_str()).count() != 1).map(|(_, k)| *k).collect();
        if !lost.is_empty() {
            return Err(lost);
        }
        let mut parts = Vec::new();
        for (marker, k) in links {
            let text = escape(self.claim_text.get(*k).map_or("", String::as_str));
            let alone = format!("<mn>{marker}</mn>");
            if ml.contains(&alone) {
                let numeric = !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || ",.−-\u{2009}\u{202f} ".contains(c));
                let tag = if numeric { "mn" } else { "mtext" };
                ml = ml.replacen(&alone, &format!("<{tag} class=\"claim-value\">{text}</{tag}>"), 1);
            } else {
                ml = ml.replacen(marker.as_str(), &format!("<span class=\"claim-value\">{text}</span>"), 1);
            }
            parts.extend(claim_parts(self.claim_html.get(*k).map_or("", String::as_str)));
        }
        let Some(((open, close, id, _), rest)) = parts.split_first() else { return Ok(ml) };
        let inner: Vec<&str> = std::iter::once(parts[0].3).chain(rest.iter().map(|p| p.3)).collect();
        // The link's name: axe (and some readers) compute none from MathML, so it is the
        // formula's text as shown (its MathML without tags; already escaped for HTML).
        let (open, close) = match within {
            Within::Link => (format!("<span class=\"{}\" aria-describedby=\"{id}\">", class_of(open)), "</span>"),
            _ => (format!("{} aria-label=\"{}\">", open.strip_suffix('>').unwrap_or(open), shown_text(&ml).replace('"', "&quot;")), *close),
        };
        Ok(format!(
            "<span class=\"claimed\">{open}{ml}{close}<span class=\"certificate\" role=\"tooltip\" id=\"{id}\">{}</span></span>",
            inner.join(" ")
        ))
    }
}

/// The text of the markup `ml` (its tags dropped, entities kept), as a reader sees it.
fn shown_text(ml: &str) -> String {
    let mut out = String::with_capacity(ml.len());
    let mut in_tag = false;
    for c in ml.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The pieces of a claim's HTML (`<span class="claimed">OPEN text CLOSE<span
/// class="certificate" role="tooltip" id="ID">INNER</span></span>`, as the page writes it):
/// the opening tag of its link, the closing tag, the certificate's id and its inner HTML.
/// None for other HTML.
fn claim_parts(html: &str) -> Option<(&str, &str, &str, &str)> {
    let rest = html.strip_prefix("<span class=\"claimed\">")?.strip_suffix("</span>")?;
    let open = &rest[..rest.find('>')? + 1];
    let cert = rest.find("<span class=\"certificate\"")?;
    let close = &rest[rest[..cert].rfind("</")?..cert];
    let tag = &rest[cert..];
    let id_at = tag.find(" id=\"")? + 5;
    let id = &tag[id_at..id_at + tag[id_at..].find('"')?];
    let inner = tag[tag.find('>')? + 1..].strip_suffix("</span>")?;
    Some((open, close, id, inner))
}

/// The HTML of a claim in a link's text, from the parts of its own HTML
/// ([`claim_parts`]): a link cannot hold the claim's link, so its text `text` goes in a
/// span of the link's class, described by its certificate, which the page shows when the
/// claim is hovered or the link holding it is focused.
fn claim_in_link((open, _, id, inner): (&str, &str, &str, &str), text: &str) -> String {
    let class = class_of(open);
    format!(
        "<span class=\"claimed\"><span class=\"{class}\" aria-describedby=\"{id}\">{}</span>\
         <span class=\"certificate\" role=\"tooltip\" id=\"{id}\">{inner}</span></span>",
        escape(text)
    )
}

/// The class of a claim's opening tag `open` (`claim` when it names none).
fn class_of(open: &str) -> &str {
    open.split_once("class=\"").and_then(|(_, r)| r.split_once('"')).map_or("claim", |(c, _)| c)
}

/// A run of digits that `latex` does not hold, which with four digits more makes the
/// markers of one math's claims (distinct, of one length, so none holds another).
fn marker_stem(latex: &str) -> String {
    (0u32..).map(|salt| format!("90817{salt}")).find(|stem| !latex.contains(stem.as_str())).unwrap_or_default()
}

/// Text event `t` at `range`, split at the claims it meets: the text outside them, and
/// each claim once (at its first event). A text the parser changed (a smart quote, an
/// entity) is kept whole unless it lies in a claim.
fn split_text<'a>(frag: &Fragment<'a>, t: CowStr<'a>, range: Range<usize>, placed: &mut [bool], out: &mut Stream<'a>) {
    let first = frag.claims.partition_point(|(s, _)| s.end <= range.start);
    let meets = frag.claims.get(first).is_some_and(|(s, _)| s.start < range.end);
    if !meets {
        out.push((Item::Md(Event::Text(t)), range));
        return;
    }
    let verbatim = frag.text.get(range.clone()) == Some(&*t);
    let mut cur = range.start;
    for (k, (span, index)) in frag.claims.iter().enumerate().skip(first) {
        if span.start >= range.end {
            break;
        }
        if span.start > cur {
            let piece = if verbatim { CowStr::Borrowed(&frag.text[cur..span.start]) } else { t.clone() };
            out.push((Item::Md(Event::Text(piece)), cur..span.start));
        }
        if !placed[k] {
            placed[k] = true;
            out.push((Item::Claim(*index), span.clone()));
        }
        cur = cur.max(span.end);
        if !verbatim {
            return;
        }
    }
    if cur < range.end {
        out.push((Item::Md(Event::Text(CowStr::Borrowed(&frag.text[cur..range.end]))), cur..range.end));
    }
}

/// A run of text and claims, concatenated for finding citations: each piece's range in
/// the concatenation and in the fragment, and the claim it is, if one.
struct Run<'a> {
    text: String,
    pieces: Vec<(Range<usize>, Range<usize>, Option<usize>)>,
    items: Stream<'a>,
}

impl<'a> Run<'a> {
    fn new() -> Run<'a> {
        Run { text: String::new(), pieces: Vec::new(), items: Vec::new() }
    }

    fn push(&mut self, item: Item<'a>, range: Range<usize>, claim_text: &[String]) {
        let shown = match &item {
            Item::Md(Event::Text(t)) => t.to_string(),
            Item::Claim(k) => claim_text.get(*k).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let at = self.text.len();
        self.text.push_str(&shown);
        let claim = if let Item::Claim(k) = item { Some(k) } else { None };
        self.pieces.push((at..self.text.len(), range.clone(), claim));
        self.items.push((item, range));
    }

    /// A character no piece of the run holds (claims' text included), to stand for each
    /// claim while citations are found. None only if the run holds every private-use one.
    fn free_char(&self) -> Option<char> {
        ('\u{E000}'..='\u{F8FF}').chain('\u{F0000}'..='\u{FFFFD}').find(|c| !self.text.contains(*c))
    }

    /// The run with each claim shown as `mark` instead of its text, so a claim's text
    /// (`[@onag]`, `a]b`) can neither make a citation nor end one.
    fn keyed(self, mark: char) -> Run<'a> {
        let mut out = Run::new();
        for ((s, _, claim), (item, range)) in self.pieces.iter().zip(self.items) {
            let at = out.text.len();
            match claim {
                Some(_) => out.text.push(mark),
                None => out.text.push_str(&self.text[s.clone()]),
            }
            out.pieces.push((at..out.text.len(), range.clone(), *claim));
            out.items.push((item, range));
        }
        out
    }

    /// `kind`, the citation at `r` of a [`Run::keyed`] run, with each `mark` in its
    /// locators replaced by its claim's text, in order.
    fn filled(&self, kind: RefKind, r: &Range<usize>, mark: char, claim_text: &[String]) -> RefKind {
        let RefKind::Cite { keys, year_only } = kind else { return kind };
        let mut claims = self.pieces.iter().filter(|(s, _, c)| c.is_some() && r.start <= s.start && s.end <= r.end);
        let mut fill = |loc: String| {
            let mut out = String::with_capacity(loc.len());
            for c in loc.chars() {
                match c == mark {
                    true => out.push_str(claims.next().and_then(|(_, _, k)| claim_text.get((*k)?)).map_or("", String::as_str)),
                    false => out.push(c),
                }
            }
            out
        };
        let keys = keys.into_iter().map(|(key, loc)| (key, loc.map(&mut fill))).collect();
        RefKind::Cite { keys, year_only }
    }

    /// The fragment offset of offset `at` of the concatenation.
    fn to_fragment(&self, at: usize) -> usize {
        let i = self.pieces.partition_point(|(s, _, _)| s.end <= at).min(self.pieces.len().saturating_sub(1));
        let Some((s, f, _)) = self.pieces.get(i) else { return 0 };
        f.start + (at.saturating_sub(s.start)).min(f.len())
    }

    /// The items of the concatenation's range `r`: text cut to it, claims that start in it.
    /// Only the pieces about `r` are read (found by halving), so a run split at each of
    /// many citations costs time linear in its length (40,000 citations took 15 s).
    fn items_in(&self, r: Range<usize>, out: &mut Stream<'a>) {
        let first = self.pieces.partition_point(|(s, _, _)| s.end < r.start);
        let about = self.pieces[first..].iter().take_while(|(s, _, _)| s.start <= r.end);
        for (s, f, claim) in about {
            if s.end <= r.start && !(s.is_empty() && s.start == r.start) || s.start >= r.end && !s.is_empty() {
                continue;
            }
            match claim {
                Some(k) if s.start >= r.start => out.push((Item::Claim(*k), f.clone())),
                Some(_) => {}
                None => {
                    let (a, b) = (s.start.max(r.start), s.end.min(r.end));
                    if a < b {
                        let range = self.to_fragment(a)..self.to_fragment(b);
                        out.push((Item::Md(Event::Text(CowStr::from(self.text[a..b].to_string()))), range));
                    }
                }
            }
        }
    }
}

impl<'a> Renderer<'a> {
    /// References into marks: links to essays, and citations and cross-references found
    /// in runs of text and claims (a claim in a locator reads as its text).
    fn references(&mut self, frag: &Fragment<'a>, items: Stream<'a>) -> Stream<'a> {
        let mut out = Vec::with_capacity(items.len());
        let mut run = Run::new();
        let mut in_code = false;
        let mut skip_link_text = false;
        let mut open_link: Option<usize> = None;
        for (item, range) in items {
            if skip_link_text {
                skip_link_text = !matches!(item, Item::Md(Event::End(TagEnd::Link)));
                continue;
            }
            if !in_code && matches!(item, Item::Md(Event::Text(_)) | Item::Claim(_)) {
                run.push(item, range, self.claim_text);
                continue;
            }
            self.citations(frag, std::mem::replace(&mut run, Run::new()), &mut out);
            match item {
                Item::Md(Event::Start(Tag::CodeBlock(_))) => in_code = true,
                Item::Md(Event::End(TagEnd::CodeBlock)) => in_code = false,
                Item::Md(Event::Start(Tag::Link { link_type, ref dest_url, .. }))
                    if matches!(link_type, LinkType::WikiLink { .. }) || dest_url.starts_with("essay:") =>
                {
                    let own_text = !matches!(link_type, LinkType::WikiLink { has_pothole: false });
                    let (target, heading) = essay_target(dest_url);
                    let n = self.refs.len();
                    self.refs.push(Ref { kind: RefKind::Essay { target, heading, own_text }, span: frag.to_file(range.clone()) });
                    skip_link_text = !own_text;
                    if own_text {
                        open_link = Some(n);
                        out.push((Item::LinkMark { reference: n, closing: false }, range));
                    } else {
                        out.push((Item::Mark(n), range));
                    }
                    continue;
                }
                Item::Md(Event::End(TagEnd::Link)) if open_link.is_some() => {
                    let n = open_link.take().unwrap_or_default();
                    out.push((Item::LinkMark { reference: n, closing: true }, range));
                    continue;
                }
                _ => {}
            }
            out.push((item, range));
        }
        self.citations(frag, run, &mut out);
        out
    }

    /// The items of `run`, with its citations as marks. A claim is one piece there: its
    /// text can neither make a citation nor end one, and in a locator it reads as its text.
    fn citations(&mut self, frag: &Fragment<'a>, run: Run<'a>, out: &mut Stream<'a>) {
        if !(run.text.contains("[@") || run.text.contains("[-@")) {
            out.extend(run.items);
            return;
        }
        let Some(mark) = run.free_char() else {
            out.extend(run.items);
            return;
        };
        let run = run.keyed(mark);
        for (r, cite) in split_cites(&run.text) {
            match cite {
                None => run.items_in(r, out),
                Some(kind) => {
                    let span = frag.to_file(run.to_fragment(r.start)..run.to_fragment(r.end));
                    let kind = run.filled(kind, &r, mark, self.claim_text);
                    out.push((Item::Mark(self.refs.len()), r));
                    self.refs.push(Ref { kind, span });
                }
            }
        }
    }

    /// Directive blocks (the body only: a census block is dropped, a figure block becomes
    /// its figure with its caption) and math to MathML (kept as LaTeX in an image's alt).
    fn blocks_and_math(&mut self, frag: &Fragment<'a>, items: Stream<'a>, body: bool) -> Stream<'a> {
        let mut out = Vec::with_capacity(items.len());
        let mut skipping = false;
        let mut depth = Depth::default();
        for (item, range) in items {
            let within = depth.step(&item);
            match item {
                Item::Md(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref info)))) if body => {
                    let word = info.split_whitespace().next().unwrap_or("");
                    if word == "census" || word == "figure" {
                        skipping = true;
                        if word == "figure" {
                            self.figure(&mut out);
                        }
                        continue;
                    }
                }
                Item::Md(Event::End(TagEnd::CodeBlock)) if skipping => {
                    skipping = false;
                    continue;
                }
                _ if skipping => continue,
                Item::Math { latex, display, filled, marked, links } => {
                    let ev = if within == Within::Alt {
                        Event::Text(CowStr::from(if display { format!("$${latex}$$") } else { format!("${latex}$") }))
                    } else {
                        self.math_html(frag, MathSource { latex, display, filled, marked, links, within }, &range)
                    };
                    out.push((Item::Md(ev), range));
                    continue;
                }
                _ => {}
            }
            out.push((item, range));
        }
        out
    }

    /// The next figure's HTML, its caption rendered like prose in [`CAPTION_SLOT`].
    fn figure(&mut self, out: &mut Stream<'a>) {
        let i = self.figure_index;
        self.figure_index += 1;
        let figure = self.figures.get(i);
        if let Some(f) = figure.filter(|f| !f.text.is_empty()) {
            out.push((Item::Searched(f.text.clone()), 0..0));
        }
        let html = figure.map_or("", |f| f.html.as_str());
        let Some((before, after)) = html.split_once(CAPTION_SLOT).filter(|_| i < self.essay.figures.len()) else {
            out.push((Item::Md(Event::Html(CowStr::from(html.to_string()))), 0..0));
            return;
        };
        out.push((Item::Md(Event::Html(CowStr::from(before.to_string()))), 0..0));
        let frag = caption_fragment(self.essay, i);
        let mut caption = self.fragment(&frag, false);
        // One paragraph is the caption's text; more blocks stay blocks.
        let paragraphs = caption.iter().filter(|(it, _)| matches!(it, Item::Md(Event::Start(Tag::Paragraph)))).count();
        if paragraphs == 1 && matches!(caption.first(), Some((Item::Md(Event::Start(Tag::Paragraph)), _))) {
            caption.retain(|(it, _)| !matches!(it, Item::Md(Event::Start(Tag::Paragraph) | Event::End(TagEnd::Paragraph))));
        }
        out.extend(caption);
        out.push((Item::Md(Event::Html(CowStr::from(after.to_string()))), 0..0));
    }

    /// MathML for `src` (a display equation numbered, `\label{eq:name}` naming it, its
    /// linked claims as their HTML), or the LaTeX as code with a diagnostic.
    fn math_html(&mut self, frag: &Fragment<'a>, src: MathSource, range: &Range<usize>) -> Event<'a> {
        let MathSource { mut latex, display, filled, mut marked, links, within } = src;
        let label = if display { equation_label(&mut latex).inspect(|_| _ = equation_label(&mut marked)) } else { None };
        let rendered = if links.is_empty() {
            self.math.render(&latex, display)
        } else {
            self.math.render(&marked, display).and_then(|ml| match self.place_links(ml, &links, within) {
                Ok(ml) => Ok(ml),
                Err(lost) => {
                    for k in lost {
                        let span = self.essay.claims[k].span.clone();
                        self.diags.push(
                            Diagnostic::error(
                                Code::ClaimMisplaced,
                                &self.essay.file,
                                span,
                                "this claim in math cannot carry its link and certificate",
                            )
                            .with_label("in this claim")
                            .with_hint(
                                "a command around it (`\\mathbf{…}`, `\\mathbb{…}`) changes its characters: move the claim out of it",
                            ),
                        );
                    }
                    self.math.render(&latex, display)
                }
            })
        };
        match rendered {
            Ok(ml) if display => {
                let number = self.equations.len() + 1;
                let id = match &label {
                    Some(l) => format!("eq-{}", heading_id(l)),
                    None => format!("eq-{number}"),
                };
                let html = format!(
                    "<span class=\"display-math\" id=\"{}\"><span class=\"eq-body\" tabindex=\"0\">{ml}</span><span class=\"eq-number\">({number})</span></span>",
                    escape(&id)
                );
                self.equations.push(Equation { label, number, id });
                Event::InlineHtml(CowStr::from(html))
            }
            Ok(ml) => Event::InlineHtml(CowStr::from(ml)),
            Err(e) => {
                let start = range.start + if display { 2 } else { 1 };
                let span = if filled {
                    frag.to_file(range.clone())
                } else {
                    frag.to_file(start + e.span.start.min(latex.len())..start + e.span.end.min(latex.len()))
                };
                let (what, hint) = match e.code {
                    Code::MathMalformed => ("malformed math", "close each `\\begin{name}` with its own `\\end{name}`, the innermost first"),
                    _ => ("LaTeX error", "math-core renders a subset of LaTeX; define shared macros under math.macros in countersign.yaml"),
                };
                self.diags.push(
                    Diagnostic::error(e.code, &self.essay.file, span, format!("{what}: {}", e.message))
                        .with_label("in this math")
                        .with_hint(hint),
                );
                Event::Code(CowStr::from(latex))
            }
        }
    }
}

/// What [`Renderer::math_html`] renders: the fields of an [`Item::Math`].
struct MathSource {
    latex: String,
    display: bool,
    filled: bool,
    marked: String,
    links: Vec<(String, usize)>,
    /// What holds the math (a link's text: its claims carry no link of their own).
    within: Within,
}

/// The name given by the first `\label{eq:name}` of `latex` (a display equation), the
/// label blanked to spaces so that error offsets still point into the source.
fn equation_label(latex: &mut String) -> Option<String> {
    let a = latex.find("\\label{")?;
    let b = latex[a..].find('}')?;
    let name = latex[a + 7..a + b].trim();
    let label = name.strip_prefix("eq:").unwrap_or(name).to_string();
    latex.replace_range(a..a + b + 1, &" ".repeat(b + 1));
    Some(label)
}

/// Unique heading ids in linear time: a used set, and for each stem the next suffix to try.
#[derive(Default)]
struct Ids {
    used: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Ids {
    /// `stem`, or `stem-1`, `stem-2`, … the first not yet used.
    fn unique(&mut self, stem: String) -> String {
        let mut id = stem.clone();
        if self.used.contains(&id) {
            let n = self.next.entry(stem.clone()).or_insert(1);
            loop {
                id = format!("{stem}-{n}");
                *n += 1;
                if !self.used.contains(&id) {
                    break;
                }
            }
        }
        self.used.insert(id.clone());
        id
    }
}

/// Headings get ids (written `{#id}`, or from their text) and permalinks. An id leaves
/// out the stated value of a claim (and an interpolated one), so a number `--bless`
/// rewrites never changes it; a `plain` claim's text is kept.
fn heading_ids<'a>(items: Stream<'a>, essay: &Essay, claim_text: &[String]) -> (Stream<'a>, Vec<Heading>) {
    let mut out = Vec::with_capacity(items.len());
    let mut headings = Vec::new();
    let mut ids = Ids::default();
    let mut open: Option<(Tag<'a>, Range<usize>, Stream<'a>)> = None;
    for (item, range) in items {
        match item {
            Item::Md(Event::Start(tag @ Tag::Heading { .. })) if open.is_none() => open = Some((tag, range, Vec::new())),
            Item::Md(Event::End(end @ TagEnd::Heading(_))) if open.is_some() => {
                let Some((Tag::Heading { level, id, classes, attrs }, hrange, inner)) = open.take() else { continue };
                let (mut shown, mut stem) = (String::new(), String::new());
                for (it, _) in &inner {
                    match it {
                        Item::Md(Event::Text(t) | Event::Code(t)) => {
                            shown.push_str(t);
                            stem.push_str(t);
                        }
                        Item::Claim(k) => {
                            let text = claim_text.get(*k).map_or("", String::as_str);
                            shown.push_str(text);
                            if matches!(essay.claims.get(*k).map(|c| &c.kind), Some(ClaimKind::Plain { .. })) {
                                stem.push_str(text);
                            }
                        }
                        _ => {}
                    }
                }
                let id = ids.unique(page_safe_id(id.map_or_else(|| heading_id(&stem), |i| i.to_string())));
                headings.push(Heading { level: level as u32, id: id.clone(), text: shown.trim().to_string() });
                let link = format!("<a class=\"permalink\" href=\"#{}\" aria-label=\"Permalink to this section\">#</a>", escape(&id));
                out.push((Item::Md(Event::Start(Tag::Heading { level, id: Some(CowStr::from(id)), classes, attrs })), hrange));
                out.extend(inner);
                out.push((Item::Md(Event::InlineHtml(CowStr::from(link))), range.clone()));
                out.push((Item::Md(Event::End(end)), range));
            }
            item => match open.as_mut() {
                Some((_, _, inner)) => inner.push((item, range)),
                None => out.push((item, range)),
            },
        }
    }
    (out, headings)
}

/// Footnotes with ids unique on the page and links both ways. Notes are numbered from 1
/// in the order they are first referred to (then, unreferred, in the order written);
/// reference `k` of note `n` is `<sup id="fnref-n-k">` linking to `#fn-n`, and the note,
/// moved to a `footnotes` section at the end of the body, links back to each of its
/// references (↩, ↩², …). The ids avoid the headings' ids (`fn-1` becomes `fn-1-1` on a
/// page with a heading `fn-1`). A reference with no note is left as its text by the parser.
fn footnotes<'a>(items: Stream<'a>, headings: &[Heading]) -> Stream<'a> {
    let (mut labels, mut refs) = footnote_labels(&items);
    if labels.is_empty() {
        return items;
    }
    let mut ids = Ids::default();
    for h in headings {
        ids.used.insert(h.id.clone());
    }
    let note_ids: Vec<String> = (1..=labels.len()).map(|n| ids.unique(format!("fn-{n}"))).collect();
    let ref_ids: Vec<Vec<String>> =
        refs.iter().enumerate().map(|(i, &r)| (1..=r).map(|k| ids.unique(format!("fnref-{}-{k}", i + 1))).collect()).collect();
    let mut out = Vec::with_capacity(items.len());
    let mut notes: Vec<Stream<'a>> = (0..labels.len()).map(|_| Vec::new()).collect();
    let mut seen = vec![0usize; labels.len()];
    let mut open: Option<usize> = None;
    for (item, range) in items {
        match item {
            Item::Md(Event::FootnoteReference(l)) => {
                let i = footnote_number(&mut labels, &mut refs, &l);
                let id = &ref_ids[i][seen[i]];
                seen[i] += 1;
                let html = format!(
                    "<sup class=\"footnote-reference\" id=\"{}\"><a href=\"#{}\">{}</a></sup>",
                    escape(id),
                    escape(&note_ids[i]),
                    i + 1
                );
                let target = match open {
                    Some(n) => &mut notes[n],
                    None => &mut out,
                };
                target.push((Item::Md(Event::InlineHtml(CowStr::from(html))), range));
            }
            Item::Md(Event::Start(Tag::FootnoteDefinition(l))) if open.is_none() => {
                let i = footnote_number(&mut labels, &mut refs, &l);
                open = Some(i);
                let html = format!("<li class=\"footnote-definition\" id=\"{}\" value=\"{}\">", escape(&note_ids[i]), i + 1);
                notes[i].push((Item::Md(Event::Html(CowStr::from(html))), range));
            }
            Item::Md(Event::End(TagEnd::FootnoteDefinition)) if open.is_some() => {
                let i = open.take().unwrap_or_default();
                // The ↩ ends the note's last paragraph, on its last line, when the note
                // ends with one; after a list or a code block it follows on its own.
                let back = backlinks(&ref_ids[i]);
                let ends_in_paragraph = matches!(notes[i].last(), Some((Item::Md(Event::End(TagEnd::Paragraph)), _)));
                if ends_in_paragraph {
                    let end = notes[i].pop().expect("the paragraph's end");
                    notes[i].push((Item::Md(Event::InlineHtml(CowStr::from(format!(" {back}")))), range.clone()));
                    notes[i].push(end);
                    notes[i].push((Item::Md(Event::Html(CowStr::from("</li>\n"))), range));
                } else {
                    notes[i].push((Item::Md(Event::Html(CowStr::from(format!("{back}</li>\n")))), range));
                }
            }
            item => match open {
                Some(n) => notes[n].push((item, range)),
                None => out.push((item, range)),
            },
        }
    }
    out.push((Item::Md(Event::Html(CowStr::from("<section class=\"footnotes\" aria-label=\"Notes\"><ol>\n"))), 0..0));
    out.extend(notes.into_iter().flatten());
    out.push((Item::Md(Event::Html(CowStr::from("</ol></section>\n"))), 0..0));
    out
}

/// The footnotes' labels in the order of their numbers (first referred to, then the
/// unreferred in the order written), and how often each is referred to.
fn footnote_labels<'a>(items: &Stream<'a>) -> (Vec<CowStr<'a>>, Vec<usize>) {
    let (mut labels, mut refs) = (Vec::new(), Vec::new());
    for (item, _) in items {
        if let Item::Md(Event::FootnoteReference(l)) = item {
            let i = footnote_number(&mut labels, &mut refs, l);
            refs[i] += 1;
        }
    }
    for (item, _) in items {
        if let Item::Md(Event::Start(Tag::FootnoteDefinition(l))) = item {
            footnote_number(&mut labels, &mut refs, l);
        }
    }
    (labels, refs)
}

/// The index of footnote `l` in `labels`, added (with no reference yet) when new.
fn footnote_number<'a>(labels: &mut Vec<CowStr<'a>>, refs: &mut Vec<usize>, l: &CowStr<'a>) -> usize {
    match labels.iter().position(|x| x == l) {
        Some(i) => i,
        None => {
            labels.push(l.clone());
            refs.push(0);
            labels.len() - 1
        }
    }
}

/// The links back from a note to each of its references, by their ids: ↩, ↩2, ….
fn backlinks(ref_ids: &[String]) -> String {
    let links: Vec<String> = ref_ids
        .iter()
        .enumerate()
        .map(|(k, id)| {
            let mark = if k == 0 { String::new() } else { (k + 1).to_string() };
            format!("<a class=\"footnote-backref\" href=\"#{}\" aria-label=\"Back to reference {}\">↩{mark}</a>", escape(id), k + 1)
        })
        .collect();
    links.join(" ")
}

/// The plain text of a body as its events are written, and where each mark falls in it.
#[derive(Default)]
struct Plain {
    text: String,
    marks: Vec<Mark>,
}

impl Plain {
    /// Take in one event written to the HTML: its text, or a space where it ends a word
    /// (a block's edge, a break, math or HTML, whose own text is not the essay's prose).
    fn take(&mut self, ev: &Event<'_>) {
        match ev {
            Event::Text(t) | Event::Code(t) => self.text.push_str(t),
            Event::Start(tag) if is_inline(tag) => {}
            Event::End(tag) if is_inline_end(tag) => {}
            _ => self.text.push(' '),
        }
    }
}

/// Tags inside a line of text, whose edges are not word breaks (`*a*b` is one word).
fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis | Tag::Strong | Tag::Strikethrough | Tag::Link { .. } | Tag::Image { .. } | Tag::Superscript | Tag::Subscript
    )
}

/// The ends of the tags of [`is_inline`].
fn is_inline_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link | TagEnd::Image | TagEnd::Superscript | TagEnd::Subscript
    )
}

/// The HTML of `items` and where each mark falls in it, and the body's plain text with
/// its marks ([`Body::text`]). A claim reads as its link (`claim_html`), or as its plain
/// text inside a link or an image; in the plain text always as its text.
fn write_html(items: Stream<'_>, claim_html: &[String], claim_text: &[String]) -> (String, Vec<Mark>, Plain) {
    struct Sink<'b>(&'b std::cell::RefCell<String>);
    impl std::fmt::Write for Sink<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.borrow_mut().push_str(s);
            Ok(())
        }
    }
    let html = std::cell::RefCell::new(String::new());
    let mut marks = Vec::new();
    let mut depth = Depth::default();
    let mut inner_links: Vec<bool> = Vec::new();
    let mut plain = Plain::default();
    let mark = |reference: usize, closing: bool, within: Within, marks: &mut Vec<Mark>| {
        marks.push(Mark { at: html.borrow().len(), reference, closing, within })
    };
    let events = items.into_iter().filter_map(|(item, _)| {
        let within = depth.step(&item);
        let ev = match item {
            // A code block scrolls sideways on a narrow screen, so it takes keyboard focus
            // (a scrollable region a keyboard cannot reach is an accessibility failure).
            Item::Md(Event::Start(Tag::CodeBlock(kind))) => {
                plain.text.push(' ');
                Event::Html(CowStr::from(code_block_open(&kind)))
            }
            Item::Md(Event::End(TagEnd::CodeBlock)) => {
                plain.text.push(' ');
                Event::Html(CowStr::from("</code></pre>\n"))
            }
            Item::Md(ev) => {
                let ev = inner_link(ev, within, &mut inner_links);
                plain.take(&ev);
                ev
            }
            Item::Claim(k) => {
                let text = claim_text.get(k).map_or("", String::as_str);
                plain.text.push_str(text);
                let html = claim_html.get(k).map_or("", String::as_str);
                match (within, claim_parts(html)) {
                    (Within::Prose, _) => Event::InlineHtml(CowStr::from(html.to_string())),
                    (Within::Link, Some(parts)) => Event::InlineHtml(CowStr::from(claim_in_link(parts, text))),
                    _ => Event::Text(CowStr::from(text.to_string())),
                }
            }
            Item::Math { latex, .. } => {
                plain.text.push(' ');
                Event::Code(CowStr::from(latex))
            }
            Item::Mark(n) => {
                plain.marks.push(Mark { at: plain.text.len(), reference: n, closing: false, within });
                mark(n, false, within, &mut marks);
                return None;
            }
            Item::LinkMark { reference, closing } => {
                plain.marks.push(Mark { at: plain.text.len(), reference, closing, within });
                mark(reference, closing, within, &mut marks);
                return None;
            }
            Item::Searched(text) => {
                plain.text.push(' ');
                plain.text.push_str(&text);
                plain.text.push(' ');
                return None;
            }
        };
        Some(ev)
    });
    // The writer writes each event before asking for the next, so a mark's offset is
    // the length written when it is reached.
    let _ = pulldown_cmark::html::write_html_fmt(Sink(&html), events);
    (html.into_inner(), marks, plain)
}

/// `ev`, or for a link inside a link (a Markdown link in a raw `<a>`, an autolink in a
/// link's text) a span: a link may not hold a link. `inner` holds, for each link open,
/// whether it was made a span.
fn inner_link<'a>(ev: Event<'a>, within: Within, inner: &mut Vec<bool>) -> Event<'a> {
    match ev {
        Event::Start(Tag::Link { .. }) if within == Within::Link => {
            inner.push(true);
            Event::InlineHtml(CowStr::from("<span class=\"inner-link\">"))
        }
        Event::Start(Tag::Link { .. }) => {
            inner.push(false);
            ev
        }
        Event::End(TagEnd::Link) if inner.pop() == Some(true) => Event::InlineHtml(CowStr::from("</span>")),
        ev => ev,
    }
}

/// The opening tags of a code block: `<pre tabindex="0"><code class="language-L">`, L the
/// first word of a fenced block's info string (none for an indented block or no info).
fn code_block_open(kind: &CodeBlockKind<'_>) -> String {
    let lang = match kind {
        CodeBlockKind::Fenced(info) => info.split(|c: char| c.is_whitespace() || c == ',').next().unwrap_or(""),
        CodeBlockKind::Indented => "",
    };
    if lang.is_empty() {
        "<pre tabindex=\"0\"><code>".to_string()
    } else {
        format!("<pre tabindex=\"0\"><code class=\"language-{}\">", escape(lang))
    }
}

/// Parse the inside of `[@…]` / `[-@…]`: `@a; @b, p. 3`. None when it is not a citation.
fn parse_cite(inner: &str) -> Option<RefKind> {
    let (year_only, inner) = match inner.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, inner),
    };
    let mut keys = Vec::new();
    for item in inner.split(';') {
        let item = item.trim().strip_prefix('@')?;
        let (key, loc) = match item.split_once(',') {
            Some((k, l)) => (k.trim(), Some(l.trim().to_string()).filter(|l| !l.is_empty())),
            None => (item.trim(), None),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || "_:.-".contains(c)) {
            return None;
        }
        keys.push((key.to_string(), loc));
    }
    if keys.len() == 1 && !year_only {
        let (k, loc) = &keys[0];
        if loc.is_none() {
            if let Some(id) = k.strip_prefix("fig:") {
                return Some(RefKind::Figure(id.to_string()));
            }
            if let Some(id) = k.strip_prefix("eq:") {
                return Some(RefKind::Equation(id.to_string()));
            }
        }
    }
    Some(RefKind::Cite { keys, year_only })
}

/// Split `text` at its citations: byte ranges of `text`, each plain (`None`) or a
/// citation with its kind, in order and covering all of `text`.
fn split_cites(text: &str) -> Vec<(Range<usize>, Option<RefKind>)> {
    let mut out = Vec::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(a) = text[from..].find('[').map(|a| a + from) {
        let rest = &text[a + 1..];
        if !(rest.starts_with('@') || rest.starts_with("-@")) {
            from = a + 1;
            continue;
        }
        let Some(b) = rest.find(']') else { break };
        match parse_cite(&rest[..b]) {
            Some(kind) => {
                out.push((last..a, None));
                out.push((a..a + b + 2, Some(kind)));
                last = a + b + 2;
                from = last;
            }
            None => from = a + 1,
        }
    }
    out.push((last..text.len(), None));
    out
}

/// Split `[[Title#heading]]` or `essay:slug#heading` into target and heading.
fn essay_target(dest: &str) -> (String, Option<String>) {
    let dest = dest.strip_prefix("essay:").unwrap_or(dest);
    match dest.split_once('#') {
        Some((t, h)) => (t.trim().to_string(), Some(h.trim().to_string()).filter(|h| !h.is_empty())),
        None => (dest.trim().to_string(), None),
    }
}

/// Escape text for HTML (see [`countersign_core::text::escape_html`]).
pub use countersign_core::text::escape_html as escape;

/// `id` unless the page around the body uses it (the provenance list `how-computed`, its
/// items `calls-ID`, the references `references` and `ref-KEY`, figures `fig-ID`,
/// equations `eq-NAME`, `content`, `search-*`, `ladder-*`): then `h-` + `id`, so a heading
/// "Calls g" never takes the id a claim links to.
fn page_safe_id(id: String) -> String {
    let reserved = ["how-computed", "references", "content"].contains(&id.as_str())
        || ["calls-", "ref-", "fig-", "eq-", "search-", "ladder-", "claim-"].iter().any(|p| id.starts_with(p));
    if reserved {
        format!("h-{id}")
    } else {
        id
    }
}

pub use countersign_core::text::heading_id;

#[cfg(test)]
mod tests {
    use super::*;

    /// An essay made from `body` (no file is read), rendered with each claim's HTML
    /// `<c>text</c>` and its text as written (`plain`'s text, a check's stated text).
    fn rendered(body: &str, figures: &[Figure]) -> (Essay, Body, Vec<Diagnostic>) {
        let (e, d) = countersign_core::content::parse_essay("essays/a.md", "essays/a.md".into(), format!("---\ntitle: T\n---\n{body}"));
        assert!(d.is_empty(), "{d:?}");
        let e = e.expect("essay");
        let text: Vec<String> = e
            .claims
            .iter()
            .map(|c| match &c.kind {
                ClaimKind::Check { stated, .. } => stated.clone(),
                ClaimKind::Plain { text } => text.clone(),
                _ => "?".into(),
            })
            .collect();
        let html: Vec<String> = text.iter().map(|t| format!("<c>{}</c>", escape(t))).collect();
        let math = Math::new(&Default::default()).expect("math");
        let (b, d) = render(&e, &html, &text, figures, &math);
        (e, b, d)
    }

    #[test]
    fn private_use_characters_an_author_writes_are_kept() {
        let body =
            "A \u{E000}0\u{E001} and \u{E002}0\u{E003} with {{ plain 5 }} and `\u{E000}1\u{E001}`.\n\n## \u{E002}1\u{E003} {{ plain 5 }}\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(
            b.html.contains("A \u{E000}0\u{E001} and \u{E002}0\u{E003} with <c>5</c> and <code>\u{E000}1\u{E001}</code>."),
            "{}",
            b.html
        );
        assert_eq!(b.headings[0].text, "\u{E002}1\u{E003} 5");
        assert!(b.marks.is_empty());
    }

    #[test]
    fn code_blocks_take_keyboard_focus_and_keep_their_language() {
        let (_, b, d) = rendered("```sh\ncargo test <x> && y\n```\n\n    indented\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(
            b.html.contains("<pre tabindex=\"0\"><code class=\"language-sh\">cargo test &lt;x&gt; &amp;&amp; y\n</code></pre>"),
            "{}",
            b.html
        );
        assert!(b.html.contains("<pre tabindex=\"0\"><code>indented\n</code></pre>"), "{}", b.html);
    }

    #[test]
    fn claims_survive_emphasis_breaks_and_smart_punctuation() {
        let (_, b, _) = rendered("*all {{ x.n =\n fifty-five }}* of 'them' -- {{ plain 'q' }}\n", &[]);
        assert!(b.html.contains("<em>all <c>fifty-five</c></em> of ‘them’ – <c>&#39;q&#39;</c>"), "{}", b.html);
        // A tag opened inside a claim goes with it; one around it stays. (One that crosses
        // a claim's edge, `*c {{ x.m = 6* }}`, is an error: see scan::crossing_markup.)
        let (_, b, _) = rendered("a {{ x.n = *5* }} b *c {{ x.m = 6 }}* d\n", &[]);
        assert_eq!(b.html.matches("<em>").count(), b.html.matches("</em>").count(), "{}", b.html);
        assert!(b.html.contains("<c>*5*</c>"), "{}", b.html);
    }

    /// A claim in a link's text is checked, but was published as bare text with no
    /// certificate: a link cannot hold the claim's own link. It keeps its certificate in a
    /// span described by it (shown when the link is hovered or focused); in an image's alt
    /// text it stays plain text, and outside links the claim keeps its link.
    #[test]
    fn a_claim_in_link_text_keeps_its_certificate() {
        let body = "[the {{ g.n = 5 }} positions](https://x.org) and ![b {{ g.n = 5 }}](i.png) and {{ g.n = 5 }} \
                    and [math $x^{{ g.n = 5 }}$](https://y.org) and <a href=\"https://z.org\">raw {{ g.n = 5 }}</a>\n";
        let (e, d) = countersign_core::content::parse_essay("essays/a.md", "essays/a.md".into(), format!("---\ntitle: T\n---\n{body}"));
        assert!(d.is_empty(), "{d:?}");
        let e = e.expect("essay");
        let html: Vec<String> = (0..e.claims.len())
            .map(|i| {
                format!(
                    "<span class=\"claimed\"><a class=\"claim\" href=\"#calls-g\" aria-describedby=\"claim-{i}-certificate\">5</a>\
                     <span class=\"certificate\" role=\"tooltip\" id=\"claim-{i}-certificate\"><b>cert {i}</b></span></span>"
                )
            })
            .collect();
        let text = vec!["5".to_string(); e.claims.len()];
        let (b, d) = render(&e, &html, &text, &[], &Math::new(&Default::default()).expect("math"));
        assert!(d.is_empty(), "{d:?}");
        let want =
            "<a href=\"https://x.org\">the <span class=\"claimed\"><span class=\"claim\" aria-describedby=\"claim-0-certificate\">5</span>\
                    <span class=\"certificate\" role=\"tooltip\" id=\"claim-0-certificate\"><b>cert 0</b></span></span> positions</a>";
        assert!(b.html.contains(want), "{}", b.html);
        assert!(b.html.contains("<img src=\"i.png\" alt=\"b 5\" />"), "{}", b.html);
        assert!(b.html.contains(&format!(" and {}", html[2])), "{}", b.html);
        // In a link's math and in a raw `<a>`, too, the claim is a span with its certificate.
        for i in [3, 4] {
            let open = format!("<span class=\"claimed\"><span class=\"claim\" aria-describedby=\"claim-{i}-certificate\">");
            assert!(b.html.contains(&open), "claim {i}: {}", b.html);
        }
        assert_eq!(b.html.matches("<a ").count(), 4, "no link inside a link: {}", b.html);
    }

    #[test]
    fn claims_in_titles_locators_and_targets_read_as_their_text() {
        let body = "[a](https://x.org \"page {{ plain 44 }}\") ![b {{ plain 3 }}](i.png \"{{ plain 7 }}\") \
                    [@onag, p. {{ plain 194 }}] [[Nim {{ plain 8 }} heaps]] [[#The {{ g.n = 5 }} positions|there]]\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(b.html.contains("<a href=\"https://x.org\" title=\"page 44\">a</a>"), "{}", b.html);
        assert!(b.html.contains("<img src=\"i.png\" alt=\"b 3\" title=\"7\" />"), "{}", b.html);
        let kinds: Vec<&RefKind> = b.refs.iter().map(|r| &r.kind).collect();
        assert_eq!(kinds[0], &RefKind::Cite { keys: vec![("onag".into(), Some("p. 194".into()))], year_only: false });
        assert_eq!(kinds[1], &RefKind::Essay { target: "Nim 8 heaps".into(), heading: None, own_text: false });
        assert_eq!(kinds[2], &RefKind::Essay { target: String::new(), heading: Some("The 5 positions".into()), own_text: true });
        // The locator's source span covers the whole citation.
        assert_eq!(b.marks.len(), 4);
    }

    /// A claim's text is never read as Markdown: `[@onag]` stated by a claim is no
    /// citation, `a]b` in a locator does not end it, `![i](j)` is no image.
    #[test]
    fn a_claims_text_neither_makes_nor_ends_a_citation() {
        let body = "A {{ plain [@onag] }}, B [@onag, p. {{ plain a]b }}], C {{ plain ![i](j) }}, D [@{{ plain onag }}].\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        let kinds: Vec<&RefKind> = b.refs.iter().map(|r| &r.kind).collect();
        assert_eq!(kinds, [&RefKind::Cite { keys: vec![("onag".into(), Some("p. a]b".into()))], year_only: false }]);
        for shown in ["<c>[@onag]</c>", "<c>![i](j)</c>", "[@<c>onag</c>]"] {
            assert!(b.html.contains(shown), "{shown} in {}", b.html);
        }
        assert!(!b.html.contains("<img"), "{}", b.html);
    }

    /// A reference's mark knows what holds it: a citation in a link's text may not bring
    /// its own link, one in an image's alt text only its text (see `links::Part::html`).
    #[test]
    fn marks_know_whether_a_link_or_an_image_holds_them() {
        let body = "[see [@onag]](https://x.org), ![a [@onag]](i.png), <a href=\"y\">[@onag]</a> and [@onag] \
                    [the [@onag]](essay:e).\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        let within: Vec<(Within, bool)> = b.marks.iter().map(|m| (m.within, m.closing)).collect();
        let (p, l, a) = (Within::Prose, Within::Link, Within::Alt);
        assert_eq!(within, [(l, false), (a, false), (l, false), (p, false), (p, false), (l, false), (p, true)]);
    }

    /// A link inside a link is a span: `<a href="e">[in](f)</a>` and an autolink in a
    /// link's text wrote `<a>` inside `<a>`. A claim in a title the title changes (an
    /// escape) is an error, not `{{ … }}` on the page.
    #[test]
    fn no_link_goes_inside_a_link_and_a_title_never_shows_a_claims_syntax() {
        let (_, b, d) = rendered("<a href=\"https://e.org\">[in](https://f.org)</a> and [a <https://g.org> b](https://h.org)\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(b.html.matches("<a ").count(), 2, "{}", b.html);
        assert_eq!(b.html.matches("<span class=\"inner-link\">").count(), 2, "{}", b.html);
        assert_eq!(b.html.matches("</a>").count(), 2, "{}", b.html);
        let (_, b, d) = rendered("[v](https://e.org \"x {{ plain a\\*b }} y\") and [w](https://e.org \"x {{ plain 3 }} y\")\n", &[]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, countersign_core::diag::Code::ClaimSyntax);
        assert!(b.html.contains("title=\"x 3 y\""), "{}", b.html);
    }

    #[test]
    fn raw_anchors_are_told_from_other_html() {
        let found: Vec<i32> =
            ["<a href=\"x\">", "<A>", " </a>", "</A >", "<abbr>", "</abbr>", "<span>", "<a", "<a class=\"p\">#</a>", "</a></a>"]
                .map(raw_anchor)
                .to_vec();
        assert_eq!(found, [1, 1, -1, -1, 0, 0, 0, 1, 0, -2]);
    }

    /// A paragraph of asserts shows nothing and is left out (it was `<p></p>`); one with
    /// anything else stays.
    #[test]
    fn a_paragraph_of_asserts_is_left_out() {
        let (e, d) = countersign_core::content::parse_essay(
            "essays/a.md",
            "essays/a.md".into(),
            "---\ntitle: T\n---\n{{ assert g.n == 5 }}\n\n{{ assert g.n == 5 }}\n{{ assert g.n > 1 }}\n\nText {{ assert g.n == 5 }}.\n"
                .into(),
        );
        assert!(d.is_empty(), "{d:?}");
        let e = e.expect("essay");
        let none = vec![String::new(); e.claims.len()];
        let (b, d) = render(&e, &none, &none, &[], &Math::new(&Default::default()).expect("math"));
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(b.html.trim(), "<p>Text .</p>");
    }

    #[test]
    fn claims_in_destinations_and_ids_are_errors() {
        let (e, b, d) = rendered("[a](<https://x.org/{{ plain 4 }}>) and ![b](<f{{ plain 5 }}.png>)\n\n## H {#h{{ plain 6 }}}\n", &[]);
        let at: Vec<&str> = d.iter().map(|d| &e.source[d.span.clone()]).collect();
        assert!(at.contains(&"{{ plain 4 }}") && at.contains(&"{{ plain 5 }}") && at.contains(&"{{ plain 6 }}"), "{d:?} {}", b.html);
        assert!(d.iter().all(|d| d.code == countersign_core::diag::Code::ClaimMisplaced), "{d:?}");
    }

    #[test]
    fn heading_ids_leave_out_stated_values() {
        let (_, b, _) = rendered("## The {{ g.n = 523 }} positions\n\n## In {{ plain 1954 }}\n", &[]);
        assert_eq!(b.headings[0].id, "the-positions");
        assert_eq!(b.headings[0].text, "The 523 positions");
        assert_eq!(b.headings[1].id, "in-1954");
        let (_, b2, _) = rendered("## The {{ g.n = 522 }} positions\n\n## In {{ plain 1954 }}\n", &[]);
        assert_eq!(b2.headings[0].id, b.headings[0].id);
    }

    #[test]
    fn many_identical_headings_get_distinct_ids() {
        // Quadratic (or worse) id assignment made this take minutes.
        let n = 20_000;
        let (_, b, _) = rendered(&"## Same\n\n".repeat(n), &[]);
        assert_eq!(b.headings.len(), n);
        assert_eq!(b.headings[n - 1].id, format!("same-{}", n - 1));
        let ids: HashSet<&str> = b.headings.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids.len(), n);
    }

    /// A claim in math is its text in the token it makes, marked as a claim's value: it
    /// used to be its bare text (the link and certificate around the math: see below).
    #[test]
    fn math_holds_its_claims_html() {
        let (_, b, d) = rendered("Here $n = {{ g.n = 99 }}$ and $\\frac{{1}}{2}$.\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(b.html.contains("<mo>=</mo><mn class=\"claim-value\">99</mn></math>"), "{}", b.html);
        assert!(!b.html.contains("{{"), "{}", b.html);
        // A set: LaTeX's braces around the claim's value.
        let (_, b, d) = rendered("$S = \\{{{ s.period = 99 }}\\}$\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        let set = "<mo stretchy=\"false\">{</mo><mn class=\"claim-value\">99</mn><mo stretchy=\"false\">}</mo>";
        assert!(b.html.contains(set), "{}", b.html);
        // Words go in an `<mtext>`, a claim in `\text{…}` into its text; a subscript holds
        // the whole claim (`x^{{ … }}` is one group).
        let (_, b, d) = rendered("$a = {{ g.w = fifty-five }}$, $\\text{all {{ g.n = 12 }} here}$, $x^{{ g.e = 10 }}$\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(b.html.contains("<mtext class=\"claim-value\">fifty-five</mtext>"), "{}", b.html);
        assert!(b.html.contains("<mtext>all\u{a0}<span class=\"claim-value\">12</span>\u{a0}here</mtext>"), "{}", b.html);
        assert!(b.html.contains("<msup><mi>x</mi><mn class=\"claim-value\">10</mn></msup>"), "{}", b.html);
        // A digit run in the math is never taken for a marker.
        let (_, b, d) = rendered("$908170000 + {{ g.n = 1 }} + 9081710000$\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(
            b.html.contains("<mn>908170000</mn>")
                && b.html.contains("<mn class=\"claim-value\">1</mn>")
                && b.html.contains("<mn>9081710000</mn>"),
            "{}",
            b.html
        );
    }

    /// The math with linked claims is wrapped in the first claim's link (a focusable
    /// element inside `<math>` is not announced: its children are presentational), with
    /// one certificate holding every claim's; before, the claims in math had neither.
    #[test]
    fn math_with_claims_is_wrapped_in_their_link_and_certificate() {
        let (e, _, d) = rendered("$a = {{ g.n = 3 }} + {{ g.m = 4 }}$\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        let html: Vec<String> = (0..2)
            .map(|i| {
                format!(
                    "<span class=\"claimed\"><a class=\"claim\" href=\"#calls-g\" aria-describedby=\"claim-{i}-certificate\">{}</a>\
                     <span class=\"certificate\" role=\"tooltip\" id=\"claim-{i}-certificate\"><b>cert {i}</b></span></span>",
                    i + 3
                )
            })
            .collect();
        let text = vec!["3".to_string(), "4".to_string()];
        let (b, d) = render(&e, &html, &text, &[], &Math::new(&Default::default()).unwrap());
        assert!(d.is_empty(), "{d:?}");
        let want = "<p><span class=\"claimed\"><a class=\"claim\" href=\"#calls-g\" aria-describedby=\"claim-0-certificate\" aria-label=\"a=3+4\"><math>";
        assert!(b.html.starts_with(want), "{}", b.html);
        assert!(b.html.contains("<mn class=\"claim-value\">3</mn><mo>+</mo><mn class=\"claim-value\">4</mn></math></a>"), "{}", b.html);
        assert!(
            b.html.contains(
                "</a><span class=\"certificate\" role=\"tooltip\" id=\"claim-0-certificate\"><b>cert 0</b> <b>cert 1</b></span></span>"
            ),
            "{}",
            b.html
        );
    }

    /// A command that changes a claim's characters leaves no place for its link: an error
    /// at the claim (the math is shown with its text).
    #[test]
    fn a_claim_whose_link_cannot_be_placed_is_an_error() {
        let (e, b, d) = rendered("$\\mathbf{{{ g.n = 12 }}}$\n", &[]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, Code::ClaimMisplaced);
        assert_eq!(&e.source[d[0].span.clone()], "{{ g.n = 12 }}");
        assert!(b.html.contains("<math>"), "{}", b.html);
    }

    /// `$\{{{ plain 2 }}, 5\}$` was LaTeX's brace and the group "plain 2": a set of 2 and 5.
    #[test]
    fn a_set_holds_its_claim() {
        let (_, b, d) = rendered("$\\{{{ plain 2 }}, 5\\}$\n", &[]);
        assert!(d.is_empty(), "{d:?}");
        assert!(b.html.contains("<mo stretchy=\"false\">{</mo><mn class=\"claim-value\">2</mn><mo>,</mo><mn>5</mn>"), "{}", b.html);
    }

    #[test]
    fn captions_render_markdown_math_and_claims() {
        let body = "```census\nid: g\nrun: x\n```\n\n```figure\nid: f\nfrom: g\nplot: grid\n\
                    caption: \"*All* $x_1$ of {{ g.n = 12 }} [@onag]\"\nalt: \"Cells {{ plain 3 }} and *b*\"\n```\n";
        let figure = format!("<figure><img alt=\"A\">{}</figure>\n", caption_slot(1));
        let (e, b, d) = rendered(body, &[Figure { html: figure, text: "cell 7".into() }]);
        assert!(d.is_empty(), "{d:?}");
        // The search text has the figure's own text and its caption, not its number.
        let words = b.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words, "cell 7 All of 12", "{words}");
        assert_eq!(e.figures[0].alt, "Cells 3 and b");
        assert_eq!(e.figures[0].caption, "All x_1 of 12 [@onag]");
        let cap = &b.html[b.html.find("<figcaption>").expect("caption")..];
        assert!(cap.starts_with("<figcaption><span class=\"fig-number\">Figure 1.</span> <em>All</em> <math"), "{cap}");
        assert!(cap.contains(" of <c>12</c> "), "{cap}");
        assert_eq!(b.refs.len(), 1);
        assert!(matches!(&b.refs[0].kind, RefKind::Cite { .. }));
    }

    /// Footnotes: numbered by first reference, ids unique on the page (a heading `fn-1`
    /// keeps its id), each note at the end linking back to every reference to it.
    #[test]
    fn footnotes_have_unique_ids_and_link_back_to_each_reference() {
        let body = "# fn-1\n\nFirst[^b] and again[^b], then[^a].\n\n[^a]: Note a.\n[^b]: Note b.\n\nAfter.\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        let h = &b.html;
        assert!(h.contains(r##"<h1 id="fn-1">"##), "{h}");
        assert!(h.contains(r##"<sup class="footnote-reference" id="fnref-1-1"><a href="#fn-1-1">1</a></sup>"##), "{h}");
        assert!(h.contains(r##"<sup class="footnote-reference" id="fnref-1-2"><a href="#fn-1-1">1</a></sup>"##), "{h}");
        assert!(h.contains(r##"<a href="#fn-2">2</a>"##), "{h}");
        assert!(h.contains(r##"<li class="footnote-definition" id="fn-1-1" value="1">"##), "{h}");
        assert!(h.contains(r##"href="#fnref-1-1" aria-label="Back to reference 1">↩</a> <a class="footnote-backref" href="#fnref-1-2" aria-label="Back to reference 2">↩2</a>"##), "{h}");
        assert!(h.contains(r##"href="#fnref-2-1""##), "{h}");
        // The notes come last, note 1 (b) before note 2 (a), after the prose.
        let (after, notes, b_at, a_at) =
            (h.find("After.").unwrap(), h.find("class=\"footnotes\"").unwrap(), h.find("Note b").unwrap(), h.find("Note a").unwrap());
        assert!(after < notes && notes < b_at && b_at < a_at, "{h}");
        let mut ids: Vec<&str> = h.match_indices(" id=\"").map(|(i, _)| &h[i + 5..i + 5 + h[i + 5..].find('"').unwrap()]).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate ids: {h}");
    }

    /// A note's ↩ ends its last paragraph (so it sits on the note's last line); after a
    /// list it follows the list.
    #[test]
    fn a_footnotes_backlink_ends_its_last_paragraph() {
        let body = "A[^a] and b[^b].\n\n[^a]: One.\n\n    Two.\n[^b]: A list:\n\n    - x\n";
        let (_, b, d) = rendered(body, &[]);
        assert!(d.is_empty(), "{d:?}");
        let h = &b.html;
        assert!(h.contains(r##"<p>Two. <a class="footnote-backref" href="#fnref-1-1" aria-label="Back to reference 1">↩</a></p>"##), "{h}");
        assert!(h.contains("</ul>\n<a class=\"footnote-backref\" href=\"#fnref-2-1\""), "{h}");
    }
}
