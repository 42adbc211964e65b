//! Resolving the reference marks [`super::markdown::render`] leaves in a body, once every
//! essay's headings are known: links to essays by title or slug (with heading anchors),
//! citations of the bibliography, and cross-references to figures and equations.
//!
//! A link to an essay that does not exist is an error at the link (file:line:column),
//! unless `countersign.yaml` lists its title under `planned:`; then it renders as plain
//! text and the build reports it in one list of planned essays. Titles and headings match
//! loosely: case, punctuation and spacing are ignored (both sides go through
//! [`heading_id`]).

use std::borrow::Cow;

use countersign_core::content::Essay;
use countersign_core::diag::{Code, Diagnostic};

use super::bib::Bibliography;
use super::markdown::{escape, heading_id, Body, Heading, Mark, RefKind, Within};

/// An essay a link may point to, borrowed from the essay and its body (a render makes
/// the list every time: copying every essay's headings into it cost more than the links).
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// Its slug.
    pub slug: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Its headings (ids and texts).
    pub headings: &'a [Heading],
}

/// Every essay a link may point to, in site order, indexed by slug and by the
/// [`heading_id`] of title and slug, so that finding a link's essay costs O(1) rather
/// than a scan of every essay (which made a site of n essays linking by title O(n²)).
#[derive(Clone, Debug, Default)]
pub struct Targets<'a> {
    list: Vec<Target<'a>>,
    /// Slug → the first essay with it.
    by_slug: std::collections::HashMap<&'a str, usize>,
    /// `heading_id` of a title, or a slug → the first essay with that title id or slug.
    by_name: std::collections::HashMap<String, usize>,
}

impl<'a> Targets<'a> {
    /// The essays `list`, indexed.
    pub fn new(list: Vec<Target<'a>>) -> Targets<'a> {
        let mut by_slug = std::collections::HashMap::new();
        let mut by_name = std::collections::HashMap::new();
        for (i, t) in list.iter().enumerate() {
            by_slug.entry(t.slug).or_insert(i);
            by_name.entry(heading_id(t.title)).or_insert(i);
            by_name.entry(t.slug.to_string()).or_insert(i);
        }
        Targets { list, by_slug, by_name }
    }

    /// Every essay, in site order.
    pub fn list(&self) -> &[Target<'a>] {
        &self.list
    }

    /// The essay a link to `target` names: the one whose slug is `target`, else the first
    /// whose title or slug is `target` up to case, punctuation and spacing.
    fn find(&self, target: &str) -> Option<&Target<'a>> {
        let i = self.by_slug.get(target).or_else(|| self.by_name.get(&heading_id(target)))?;
        self.list.get(*i)
    }
}

/// Everything links resolve against.
pub struct Context<'a> {
    /// Every essay of the site.
    pub essays: &'a Targets<'a>,
    /// Titles listed under `planned:`.
    pub planned: &'a [String],
    /// The bibliography.
    pub bib: &'a Bibliography,
}

/// A body with its markers resolved.
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    /// The HTML.
    pub html: String,
    /// The body's plain text ([`Body::text`]) with each reference's text in its place: the
    /// essay's text for the search index.
    pub text: String,
    /// Broken links, unknown keys, figures or equations.
    pub diags: Vec<Diagnostic>,
    /// Planned essays linked to (as written in the config), first use first.
    pub planned: Vec<String>,
    /// Bibliography keys cited, first citation first.
    pub cited: Vec<String>,
}

fn find_heading<'a>(headings: &'a [Heading], h: &str) -> Option<&'a Heading> {
    let want = heading_id(h);
    headings.iter().find(|x| x.id == h).or_else(|| headings.iter().find(|x| x.id == want || heading_id(&x.text) == want))
}

/// What [`resolve`] reads of the other essays to resolve `body`'s links, as text: for
/// each link to another essay, the slug and title it finds (and that essay's headings when
/// the link names one), or, when it finds none, every essay's title and slug (the
/// diagnostic lists them). Two bodies' links resolve alike against two lists of essays
/// when this text is the same (watch mode re-renders a page only then).
pub fn reads(body: &Body, essays: &Targets) -> String {
    let mut out = String::new();
    for rf in &body.refs {
        let RefKind::Essay { target, heading, .. } = &rf.kind else { continue };
        if target.is_empty() {
            continue;
        }
        let part = match essays.find(target) {
            Some(t) if heading.is_some() => format!("{target:?} {:?} {:?} {:?}\n", t.slug, t.title, t.headings),
            Some(t) => format!("{target:?} {:?} {:?}\n", t.slug, t.title),
            None => format!("{target:?} none {:?}\n", essays.list.iter().map(|t| (&t.title, &t.slug)).collect::<Vec<_>>()),
        };
        out.push_str(&part);
    }
    out
}

/// Resolve the marks of `body` (the rendered body of `essay`, which lives at `/<slug>/`).
/// `figures` are the essay's figure ids in order (Figure 1 first).
pub fn resolve(essay: &Essay, body: &Body, figures: &[String], ctx: &Context) -> Resolved {
    let mut r = Resolved::default();
    // The HTML for each reference (opening or whole, closing), and its plain text.
    let mut parts: Vec<Part> = Vec::with_capacity(body.refs.len());
    for rf in &body.refs {
        let err = |code: Code, msg: String, hint: String| {
            Diagnostic::error(code, &essay.file, rf.span.clone(), msg).with_label("here").with_hint(hint)
        };
        let html = match &rf.kind {
            RefKind::Essay { target, heading, own_text } => {
                essay_link(essay, body, ctx, (target, heading.as_deref(), *own_text), &err, &mut r)
            }
            RefKind::Cite { keys, year_only } => {
                let (html, text) = citation(ctx, keys, *year_only, &err, &mut r);
                Part::whole(html, text)
            }
            RefKind::Figure(id) => match figures.iter().position(|f| f == id) {
                Some(i) => {
                    Part::whole(format!("<a class=\"xref\" href=\"#fig-{}\">Figure {}</a>", escape(id), i + 1), format!("Figure {}", i + 1))
                }
                None => {
                    r.diags.push(err(
                        Code::UnknownFigure,
                        format!("no figure `{id}` in this essay"),
                        format!("figures: {}", figures.join(", ")),
                    ));
                    Part::whole(format!("Figure {}", escape(id)), format!("Figure {id}"))
                }
            },
            RefKind::Equation(name) => match body.equations.iter().find(|e| e.label.as_deref() == Some(name.as_str())) {
                Some(e) => Part::whole(
                    format!("<a class=\"xref\" href=\"#{}\">equation ({})</a>", escape(&e.id), e.number),
                    format!("equation ({})", e.number),
                ),
                None => {
                    let names: Vec<&str> = body.equations.iter().filter_map(|e| e.label.as_deref()).collect();
                    r.diags.push(err(
                        Code::UnknownEquation,
                        format!("no equation labelled `{name}` in this essay"),
                        format!("label a display equation with \\label{{eq:{name}}}; labels: {}", names.join(", ")),
                    ));
                    Part::whole(format!("equation {}", escape(name)), format!("equation {name}"))
                }
            },
        };
        parts.push(html);
    }
    r.html = splice(&body.html, &body.marks, |m| parts.get(m.reference).map_or(Cow::Borrowed(""), |p| p.html(m)));
    r.text = splice(&body.text, &body.text_marks, |m| {
        Cow::Borrowed(parts.get(m.reference).filter(|_| !m.closing).map_or("", |p| p.text.as_str()))
    });
    r
}

/// What a reference puts in the page: its HTML (the opening, or the whole, and the
/// closing around the author's text) and its plain text for the search index (empty when
/// the author wrote the link's text).
struct Part {
    open: String,
    close: String,
    text: String,
}

impl Part {
    /// A reference that is all generated: HTML and its text.
    fn whole(html: String, text: String) -> Self {
        Part { open: html, close: String::new(), text }
    }

    /// What goes at mark `m`: the opening or closing; in a link's text the same without
    /// its links (a link may not hold a link); in an image's alt text, the plain text.
    fn html(&self, m: &Mark) -> Cow<'_, str> {
        let tag = if m.closing { &self.close } else { &self.open };
        match m.within {
            Within::Prose => Cow::Borrowed(tag),
            Within::Link => Cow::Owned(unlinked(tag)),
            Within::Alt if m.closing => Cow::Borrowed(""),
            Within::Alt => Cow::Owned(escape(&self.text)),
        }
    }
}

/// `html` (markup countersign wrote: `<a class="…" href="…">`, attributes double-quoted)
/// with each link made a span of its class: its `href` dropped, `</a>` made `</span>`.
fn unlinked(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find("<a ") {
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..].find('>').map(|e| at + e) else { break };
        let mut attrs = rest[at + 3..end].to_string();
        if let Some(h) = attrs.find("href=\"") {
            let stop = attrs[h + 6..].find('"').map_or(attrs.len(), |e| h + 7 + e);
            attrs.replace_range(h..stop, "");
        }
        out.push_str("<span ");
        out.push_str(attrs.trim());
        out.push('>');
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out.replace("</a>", "</span>")
}

/// `body` with each mark replaced by what `part` gives for it (a reference's opening,
/// closing or text). Marks are in order of their offset.
fn splice<'p>(body: &str, marks: &[Mark], part: impl Fn(&Mark) -> Cow<'p, str>) -> String {
    let mut out = String::with_capacity(body.len());
    let mut last = 0;
    for m in marks {
        let at = m.at.clamp(last, body.len());
        out.push_str(&body[last..at]);
        out.push_str(&part(m));
        last = at;
    }
    out.push_str(&body[last..]);
    out
}

/// How many essays an `unknown-essay` hint names: a broken link in a site of thousands of
/// essays must not cost a line of every title (n broken links × n essays).
const TITLES_SHOWN: usize = 10;

/// The first [`TITLES_SHOWN`] essays as “title” (slug), then how many more there are.
fn some_titles(targets: &Targets) -> String {
    let mut shown: Vec<String> = targets.list.iter().take(TITLES_SHOWN).map(|t| format!("“{}” ({})", t.title, t.slug)).collect();
    if targets.list.len() > TITLES_SHOWN {
        shown.push(format!("and {} more", targets.list.len() - TITLES_SHOWN));
    }
    shown.join(", ")
}

/// A diagnostic at the reference being resolved: (message, hint) → diagnostic.
type ErrAt<'e> = dyn Fn(Code, String, String) -> Diagnostic + 'e;

/// The link to an essay (`link`: target, heading, own text): opening and closing around
/// the author's text, or the whole link and its text. A missing essay is an error unless
/// it is planned; a missing heading is an error.
fn essay_link(essay: &Essay, body: &Body, ctx: &Context, link: (&str, Option<&str>, bool), err: &ErrAt, r: &mut Resolved) -> Part {
    let (target, heading, own_text) = link;
    let found = if target.is_empty() { None } else { ctx.essays.find(target) };
    if !target.is_empty() && found.is_none() {
        if let Some(p) = ctx.planned.iter().find(|p| heading_id(p) == heading_id(target)) {
            if !r.planned.contains(p) {
                r.planned.push(p.clone());
            }
            return if own_text {
                Part { open: "<span class=\"planned\">".to_string(), close: "</span>".to_string(), text: String::new() }
            } else {
                Part::whole(format!("<span class=\"planned\">{}</span>", escape(target)), target.to_string())
            };
        }
        r.diags.push(err(
            Code::UnknownEssay,
            format!("link to an essay that does not exist: `{target}`"),
            format!("essays: {}; or list it under `planned:` in countersign.yaml", some_titles(ctx.essays)),
        ));
        return Part::whole(escape(target), target.to_string());
    }
    let (mut href, headings, title) = match found {
        Some(t) => (format!("../{}/", t.slug), t.headings, t.title),
        None => (String::new(), body.headings.as_slice(), essay.front.title.as_str()),
    };
    let mut shown = title.to_string();
    if let Some(h) = heading {
        match find_heading(headings, h) {
            Some(x) => {
                href.push('#');
                href.push_str(&x.id);
                shown = if target.is_empty() { x.text.clone() } else { format!("{shown}, § {}", x.text) };
            }
            None => {
                let ids: Vec<&str> = headings.iter().map(|x| x.id.as_str()).collect();
                r.diags.push(err(
                    Code::UnknownHeading,
                    format!("`{}` has no heading `{h}`", if target.is_empty() { "this essay" } else { target }),
                    format!("headings: {}", ids.join(", ")),
                ));
            }
        }
    }
    let open = format!("<a class=\"essay-link\" href=\"{}\">", escape(&href));
    if own_text {
        Part { open, close: "</a>".to_string(), text: String::new() }
    } else {
        Part::whole(format!("{open}{}</a>", escape(&shown)), shown)
    }
}

/// The HTML of a citation of `keys` (each with its locator, shown as written), and its
/// plain text; an unknown key is an error.
fn citation(ctx: &Context, keys: &[(String, Option<String>)], year_only: bool, err: &ErrAt, r: &mut Resolved) -> (String, String) {
    let mut items = Vec::new();
    let mut texts = Vec::new();
    for (key, loc) in keys {
        let Some(e) = ctx.bib.entries.get(key) else {
            let known: Vec<&str> = ctx.bib.entries.keys().map(String::as_str).collect();
            r.diags.push(err(
                Code::UnknownCitation,
                format!("no bibliography entry `{key}`"),
                if known.is_empty() {
                    "add it to references.yaml at the site root (hayagriva's YAML format)".to_string()
                } else {
                    format!("keys in references.yaml: {}", known.join(", "))
                },
            ));
            items.push(escape(key));
            texts.push(key.clone());
            continue;
        };
        if !r.cited.contains(key) {
            r.cited.push(key.clone());
        }
        let mut text = if year_only { e.year.map(|y| y.to_string()).unwrap_or_else(|| e.names.clone()) } else { e.short() };
        if let Some(l) = loc {
            text.push_str(", ");
            text.push_str(l);
        }
        items.push(format!("<a class=\"cite\" href=\"#ref-{}\">{}</a>", escape(key), escape(&text)));
        texts.push(text);
    }
    (format!("({})", items.join("; ")), format!("({})", texts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Math;

    fn body(src: &str) -> (Essay, Body) {
        let (e, d) =
            countersign_core::content::parse_essay("essays/a.md", "essays/a.md".into(), format!("---\ntitle: First essay\n---\n{src}"));
        assert!(d.is_empty(), "{d:?}");
        let e = e.expect("essay");
        let math = Math::new(&Default::default()).expect("math");
        let texts: Vec<String> = vec![String::new(); e.claims.len()];
        let (b, d) = crate::markdown::render(&e, &texts, &texts, &[], &math);
        assert!(d.is_empty(), "{d:?}");
        (e, b)
    }

    fn targets() -> Targets<'static> {
        let headings = vec![Heading { level: 2, id: "the-proof".into(), text: "The proof".into() }].leak();
        Targets::new(vec![Target { slug: "no-two-heaps", title: "Nim where no two heaps match", headings }])
    }

    #[test]
    fn a_reference_in_a_link_loses_its_link_and_in_an_alt_text_is_text() {
        let part = Part::whole(
            "<a class=\"cite\" href=\"#ref-onag\">Conway 1976</a> and <a class=\"xref\" href=\"#f\">F</a>".into(),
            "Conway \"1976\"".into(),
        );
        let at = |within| Mark { at: 0, reference: 0, closing: false, within };
        assert_eq!(part.html(&at(Within::Prose)), part.open);
        assert_eq!(part.html(&at(Within::Link)), "<span class=\"cite\">Conway 1976</span> and <span class=\"xref\">F</span>");
        assert_eq!(part.html(&at(Within::Alt)), "Conway &quot;1976&quot;");
        let link = Part { open: "<a class=\"essay-link\" href=\"../e/\">".into(), close: "</a>".into(), text: String::new() };
        let close = Mark { closing: true, ..at(Within::Link) };
        assert_eq!((link.html(&at(Within::Link)), link.html(&close)), ("<span class=\"essay-link\">".into(), "</span>".into()));
        assert_eq!((link.html(&at(Within::Alt)), link.html(&Mark { within: Within::Alt, ..close })), ("".into(), "".into()));
    }

    #[test]
    fn links_by_title_slug_and_heading() {
        let (e, b) =
            body("See [[Nim where no two heaps match]], [[no-two-heaps#The proof|the proof]] and [there](essay:no-two-heaps#the-proof).\n");
        let bib = Bibliography::default();
        let t = targets();
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        assert!(r.diags.is_empty(), "{:?}", r.diags);
        assert!(r.html.contains("<a class=\"essay-link\" href=\"../no-two-heaps/\">Nim where no two heaps match</a>"), "{}", r.html);
        assert!(r.html.contains("<a class=\"essay-link\" href=\"../no-two-heaps/#the-proof\">the proof</a>"), "{}", r.html);
        assert!(r.html.contains("href=\"../no-two-heaps/#the-proof\">there</a>"), "{}", r.html);
    }

    #[test]
    fn missing_essay_is_an_error_at_the_link_unless_planned() {
        let (e, b) = body("Later: [[The move that gives counters back]].\n");
        let bib = Bibliography::default();
        let t = targets();
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        assert_eq!(r.diags.len(), 1);
        assert_eq!(r.diags[0].code, countersign_core::diag::Code::UnknownEssay, "{:?}", r.diags);
        let at = e.source.find("[[").unwrap_or(0);
        assert_eq!(r.diags[0].span.start, at);
        let planned = vec!["The move that gives counters back".to_string()];
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &planned, bib: &bib });
        assert!(r.diags.is_empty());
        assert_eq!(r.planned, planned);
        assert!(r.html.contains("<span class=\"planned\">The move that gives counters back</span>"), "{}", r.html);
    }

    #[test]
    fn an_unknown_essay_hint_names_at_most_ten_essays_and_counts_the_rest() {
        let (e, b) = body("See [[Nowhere]].\n");
        let bib = Bibliography::default();
        let titles: Vec<(String, String)> = (0..30).map(|i| (format!("essay-{i}"), format!("Essay {i}"))).collect();
        let t = Targets::new(titles.iter().map(|(slug, title)| Target { slug, title, headings: &[] }).collect());
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        let hint = r.diags[0].notes.join(" ");
        assert!(hint.contains("“Essay 9” (essay-9), and 20 more;"), "{hint}");
        assert!(!hint.contains("Essay 10"), "{hint}");
    }

    #[test]
    fn missing_heading_is_an_error() {
        let (e, b) = body("See [[no-two-heaps#nowhere]].\n");
        let bib = Bibliography::default();
        let t = targets();
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        assert_eq!(r.diags.len(), 1);
        assert_eq!(r.diags[0].code, countersign_core::diag::Code::UnknownHeading, "{:?}", r.diags);
        assert!(r.diags[0].message.contains("no heading `nowhere`"), "{}", r.diags[0].message);
    }

    #[test]
    fn citations_and_cross_references() {
        let (bib, d) = crate::bib::parse("welter1954:\n  type: article\n  title: Games\n  author: Welter, C. P.\n  date: 1954\n");
        assert!(d.is_empty());
        let (e, b) = body("Welter [-@welter1954] proved it [@welter1954, p. 3]; see [@fig:grid] and [@eq:main]. Not `[@code]`.\n\n$$x \\label{eq:main}$$\n\nUnknown [@nobody].\n");
        let t = targets();
        let r = resolve(&e, &b, &["grid".to_string()], &Context { essays: &t, planned: &[], bib: &bib });
        assert!(r.html.contains("Welter (<a class=\"cite\" href=\"#ref-welter1954\">1954</a>)"), "{}", r.html);
        assert!(r.html.contains(">Welter 1954, p. 3</a>)"), "{}", r.html);
        assert!(r.html.contains("<a class=\"xref\" href=\"#fig-grid\">Figure 1</a>"), "{}", r.html);
        assert!(r.html.contains("<a class=\"xref\" href=\"#eq-main\">equation (1)</a>"), "{}", r.html);
        assert!(r.html.contains("<code>[@code]</code>"), "{}", r.html);
        assert!(r.html.contains("class=\"eq-number\">(1)</span>"), "{}", r.html);
        assert_eq!(r.cited, vec!["welter1954".to_string()]);
        assert_eq!(r.diags.len(), 1, "{:?}", r.diags);
        assert_eq!(r.diags[0].code, countersign_core::diag::Code::UnknownCitation, "{:?}", r.diags);
        assert!(r.diags[0].message.contains("`nobody`"));
    }

    /// The search text after [`resolve`], whitespace made single spaces.
    fn words(r: &Resolved) -> String {
        r.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn search_text_holds_the_prose_and_the_references_text_but_no_markup() {
        let (bib, _) = crate::bib::parse("welter1954:\n  type: article\n  title: Games\n  author: Welter, C. P.\n  date: 1954\n");
        let (e, b) = body(
            "## Heads\n\nWelter's *game*<b>raw</b> $x^2$ is [[Nim where no two heaps match]], [[no-two-heaps|its rule]] [-@welter1954].\n\
             See [@fig:grid] and [@eq:main].[^n]\n\n- one\n- two\n\n```\nlet a = 1;\n```\n\n$$y \\label{eq:main}$$\n\n[^n]: A note.\n",
        );
        let t = targets();
        let r = resolve(&e, &b, &["grid".to_string()], &Context { essays: &t, planned: &[], bib: &bib });
        assert!(r.diags.is_empty(), "{:?}", r.diags);
        assert_eq!(
            words(&r),
            "Heads Welter’s game raw is Nim where no two heaps match, its rule (1954). See Figure 1 and equation (1). one two let a = 1; A note."
        );
    }

    #[test]
    fn search_text_keeps_words_apart_at_block_edges_and_together_across_inline_markup() {
        let (e, b) = body("# A\nB\n\nc*d*e **f**g\n\n> q\n\n| h | i |\n|---|---|\n| j | k |\n");
        let bib = Bibliography::default();
        let t = targets();
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        assert_eq!(words(&r), "A B cde fg q h i j k");
    }

    #[test]
    fn a_claims_certificate_is_not_search_text_but_its_shown_text_is() {
        let (e, _) = body("Half: {{ g.a = 255 }} of them.\n");
        let math = Math::new(&Default::default()).expect("math");
        let html = vec!["<span class=\"claimed\"><a>255</a><span class=\"certificate\">census x.y path g.a</span></span>".to_string()];
        let text = vec!["255".to_string()];
        let (b, d) = crate::markdown::render(&e, &html, &text, &[], &math);
        assert!(d.is_empty(), "{d:?}");
        let bib = Bibliography::default();
        let t = targets();
        let r = resolve(&e, &b, &[], &Context { essays: &t, planned: &[], bib: &bib });
        assert!(r.html.contains("certificate"), "{}", r.html);
        assert_eq!(words(&r), "Half: 255 of them.");
    }
}
