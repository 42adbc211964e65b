//! The one module that touches YAML. `serde_yaml` (archived upstream) deserializes;
//! `saphyr-parser`, a maintained pure-Rust YAML 1.2 parser, reads the same text as events
//! with their marks into an [`Index`], which is the only place the line and column of a
//! key, a value, an alias or a nesting level are found. Every YAML read in the workspace
//! goes through [`from_str`] or [`parse`], so replacing either crate is a change to this
//! file.
//!
//! Errors are told apart by where they arise, never by their words: an error of the event
//! parser is [`YamlErrorKind::Syntax`]; the nesting limit is measured on the events before
//! `serde_yaml` runs, and alias expansion explains a `serde_yaml` error that has no
//! position; anything else `serde_yaml` refuses is [`YamlErrorKind::Deserialize`], at the
//! position it reports.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, Span};
use serde::de::DeserializeOwned;

/// Refuse YAML documents larger than this many bytes (front matter and directive blocks
/// are small; this bounds alias expansion and parser work on hostile input).
pub const MAX_YAML_BYTES: usize = 256 * 1024;

/// Refuse flow collections (`[…]`, `{…}`) nested deeper than this. libyaml's scanner
/// does work proportional to the flow depth for every token, so 100,000 nested brackets
/// (200 kB) took five minutes before this limit; the event parser that measures the depth
/// keeps its stack on the heap and stops at the first level over the limit (it stops by
/// itself at 256). No essay nests more than a few levels.
pub const MAX_FLOW_DEPTH: usize = 64;

/// Refuse lists and mappings of any style nested deeper than this, as written or through
/// aliases: `serde_yaml`'s own recursion limit, refused here first and with a position.
pub const MAX_DEPTH: usize = 128;

/// How many times its size a document may grow when its aliases are expanded before it
/// is taken for an alias bomb. `serde_yaml` refuses a document whose expansion follows
/// more than 100 aliases per event it has, so any document it refuses for that has grown
/// past this factor.
const EXPANSION_FACTOR: u64 = 100;

/// What kind of problem a [`YamlError`] is, from where it arose (see the module doc), so
/// callers decide by kind and never by the message's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The event parser refused the text: not well-formed YAML (an unclosed quote or
    /// bracket, a bad indent, a key without its `:`), at the parser's mark.
    Syntax,
    /// `serde_yaml` refused the text: a value of the wrong type or out of range, an
    /// unknown, missing or duplicate key, more than one document; at its position.
    Deserialize,
    /// The text is over [`MAX_YAML_BYTES`].
    TooLarge,
    /// Brackets nested deeper than [`MAX_FLOW_DEPTH`], or lists and mappings deeper than
    /// [`MAX_DEPTH`], as written or through aliases.
    TooDeep,
    /// Aliases expand to too much data (an alias bomb, "billion laughs").
    AliasBomb,
    /// A key written twice in one mapping (YAML 1.2 §3.2.1.1: keys are unique), at the
    /// second; `serde_yaml` would keep the last of a map's and name a struct's at the first.
    DuplicateKey,
}

/// A YAML error with its position, 1-based, within the text that was parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// What went wrong, for callers to act on.
    pub kind: YamlErrorKind,
    /// The parser's or deserializer's message, without a position: for the reader, never
    /// to be compared.
    pub message: String,
    /// 1-based line within the parsed text, when the parser knows it.
    pub line: Option<usize>,
    /// 1-based column (characters) within that line, when known.
    pub column: Option<usize>,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl YamlError {
    fn at(kind: YamlErrorKind, message: String, text: &str, offset: usize) -> YamlError {
        let (line, column) = crate::diag::line_col(text, offset);
        YamlError { kind, message, line: Some(line), column: Some(column) }
    }
}

/// Deserialize `text` into `T` and index its positions.
///
/// Errors: more than [`MAX_YAML_BYTES`]; malformed YAML or nesting deeper than
/// [`MAX_DEPTH`] (found by the event parser, before `serde_yaml` reads the text); a value
/// that does not fit `T` (a wrong type, an unknown or missing field); an alias bomb
/// (`serde_yaml` refuses deep or repeated alias expansion) — each a [`YamlError`] with
/// its position.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<(T, Index), YamlError> {
    if text.len() > MAX_YAML_BYTES {
        return Err(YamlError {
            kind: YamlErrorKind::TooLarge,
            message: format!("YAML of {} bytes is over the limit of {MAX_YAML_BYTES}", text.len()),
            line: Some(1),
            column: Some(1),
        });
    }
    let ix = Index::of(text);
    if let Some((e, _)) = &ix.stop {
        return Err(e.clone());
    }
    if let Some(e) = &ix.duplicate {
        return Err(e.clone());
    }
    // The byte-order mark an editor may write is not part of the document (YAML 1.2
    // §5.2); `serde_yaml` would read it as the start of a second one.
    let body = strip_bom(text);
    match serde_yaml::from_str::<T>(body) {
        Ok(value) => Ok((value, ix)),
        Err(e) => Err(ix.explain(body, &e)),
    }
}

/// Deserialize `text` into `T`; see [`parse`], which also gives the positions.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    parse(text).map(|(value, _)| value)
}

/// What a node of the document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A scalar: plain, quoted, or a block scalar (`|`, `>`).
    Scalar,
    /// A list, flow (`[…]`) or block (`- …`).
    Sequence,
    /// A mapping, flow (`{…}`) or block (`key: value` lines).
    Mapping,
    /// An alias (`*name`) of an anchored node.
    Alias,
}

/// How a node is reached from its parent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Seg {
    /// The value of this (scalar) key of a mapping.
    Key(String),
    /// This item (0-based) of a sequence.
    Item(usize),
}

/// One value of the document, as written.
#[derive(Clone, Debug)]
struct Node {
    kind: NodeKind,
    /// Bytes of the value as written: quotes and its anchor included; a block scalar from
    /// its first line of content; a block collection from its first entry to the end of
    /// its last, a flow one from bracket to bracket.
    span: Range<usize>,
    /// Bytes of its key, for a value in a mapping.
    key: Option<Range<usize>>,
    /// A scalar's value as parsed (quotes and escapes resolved, lines folded).
    text: Option<String>,
}

/// Where the keys and values of one YAML text are, in bytes of that text, from the event
/// parser's marks: the one place diagnostics find a position in YAML. A path names a
/// node from the top: each step a mapping key (compared with the key as parsed, so
/// quoting does not matter) or, in a list, the item's 0-based number (`["planned", "2"]`).
///
/// Built by [`Index::of`] (which never fails: a text with an error is indexed up to the
/// error) or with the value by [`parse`].
#[derive(Clone, Debug, Default)]
pub struct Index {
    nodes: Vec<Node>,
    /// Node by (parent, step); the top node is at (TOP, Item(0)).
    children: HashMap<(usize, Seg), usize>,
    /// Byte offset of the first alias.
    first_alias: Option<usize>,
    /// Nodes read (keys and values), and nodes with every alias expanded (saturating).
    read: u64,
    expanded: u64,
    /// The deepest nesting with every alias expanded, and the alias that reached it.
    expanded_depth: (usize, Option<usize>),
    /// Why reading stopped early (a syntax error, a level over [`MAX_DEPTH`]), and where.
    stop: Option<(YamlError, usize)>,
    /// The first key written a second time in its mapping, at the second.
    duplicate: Option<YamlError>,
}

/// The parent of the top node.
const TOP: usize = usize::MAX;

impl Index {
    /// Index `text` (at most [`MAX_YAML_BYTES`] of it are read). Where the text has a
    /// syntax error or nests deeper than [`MAX_DEPTH`] (as written or through aliases),
    /// what came before is indexed and the problem kept for [`parse`].
    pub fn of(text: &str) -> Index {
        let body = strip_bom(text);
        let mut ix = Index::of_body(&body[..floor(body, MAX_YAML_BYTES)]);
        ix.shift(text.len() - body.len());
        ix
    }

    /// Move every position `by` bytes on: the index of a text read after a prefix of that
    /// many bytes (a byte-order mark), in bytes of the whole text.
    fn shift(&mut self, by: usize) {
        if by == 0 {
            return;
        }
        let move_range = |r: &mut Range<usize>| *r = r.start + by..r.end + by;
        for node in &mut self.nodes {
            move_range(&mut node.span);
            node.key.as_mut().map(move_range);
        }
        self.first_alias = self.first_alias.map(|a| a + by);
        self.expanded_depth.1 = self.expanded_depth.1.map(|a| a + by);
        if let Some((_, at)) = &mut self.stop {
            *at += by;
        }
    }

    /// [`Index::of`] a text without a byte-order mark.
    fn of_body(text: &str) -> Index {
        let mut ix = Index::read(text);
        // The parser reads a flow collection's tokens ahead until it knows whether the
        // collection is a key, and refuses more than 255 levels before it gives their
        // events; the text before its stop tells whether the nesting went over the limit.
        if let Some((YamlErrorKind::Syntax, at)) = ix.stop.as_ref().map(|(e, at)| (e.kind, *at)) {
            let before = Index::read(&text[..at]);
            if let Some(deep) = before.stop.filter(|(e, _)| e.kind == YamlErrorKind::TooDeep) {
                ix.stop = Some(deep);
            }
        }
        if ix.stop.is_none() && ix.expanded_depth.0 > MAX_DEPTH {
            let message = format!("YAML nested too deeply through its aliases: more than {MAX_DEPTH} levels");
            let at = ix.expanded_depth.1.unwrap_or(0);
            ix.stop = Some((YamlError::at(YamlErrorKind::TooDeep, message, text, at), at));
        }
        ix
    }

    /// The events of `text` read into an index, up to the first problem.
    fn read(text: &str) -> Index {
        let mut b = Builder::new(text);
        let mut parser = Parser::new_from_str(text);
        while let Some(event) = parser.next_event() {
            match event {
                Ok((ev, span)) => {
                    if !b.event(ev, span) {
                        break;
                    }
                }
                Err(e) => {
                    let at = b.offsets.byte(e.marker().index());
                    b.ix.stop = Some((YamlError::at(YamlErrorKind::Syntax, e.info().to_string(), text, at), at));
                    break;
                }
            }
        }
        b.ix
    }

    fn node(&self, path: &[&str]) -> Option<&Node> {
        let mut at = *self.children.get(&(TOP, Seg::Item(0)))?;
        for step in path {
            let key = (at, Seg::Key(step.to_string()));
            at = match (self.children.get(&key), step.parse::<usize>()) {
                (Some(&n), _) => n,
                (None, Ok(i)) => *self.children.get(&(at, Seg::Item(i)))?,
                (None, Err(_)) => return None,
            };
        }
        self.nodes.get(at)
    }

    /// What the top of the document is (`None` for an empty document).
    pub fn root(&self) -> Option<NodeKind> {
        self.node(&[]).map(|n| n.kind)
    }

    /// The span of the key of the value at `path` (for a value in a mapping).
    pub fn key(&self, path: &[&str]) -> Option<Range<usize>> {
        self.node(path)?.key.clone()
    }

    /// The span of the value at `path` as written (see [`Index`]); empty for a key whose
    /// value is left out (`with:`).
    pub fn value(&self, path: &[&str]) -> Option<Range<usize>> {
        Some(self.node(path)?.span.clone())
    }

    /// The scalar at `path`, as parsed.
    pub fn scalar(&self, path: &[&str]) -> Option<&str> {
        self.node(path)?.text.as_deref()
    }

    /// The span from the key of the value at `path` to the end of the value (`title: A`).
    pub fn entry(&self, path: &[&str]) -> Option<Range<usize>> {
        let n = self.node(path)?;
        let key = n.key.clone()?;
        Some(key.start..n.span.end.max(key.end))
    }

    /// The span of the value at `path` when it is not empty, else of its key.
    pub fn value_or_key(&self, path: &[&str]) -> Option<Range<usize>> {
        let n = self.node(path)?;
        match &n.key {
            Some(k) if n.span.is_empty() => Some(k.clone()),
            _ => Some(n.span.clone()),
        }
    }

    /// The span of the key (or, for a list item, the value) of the deepest node on `path`
    /// that is in the document: where to point at a parameter that is named but absent,
    /// or at a path into a value. `None` when not even the first step is there.
    pub fn nearest(&self, path: &[&str]) -> Option<Range<usize>> {
        (1..=path.len()).rev().find_map(|n| {
            let node = self.node(&path[..n])?;
            Some(node.key.clone().unwrap_or_else(|| node.span.clone()))
        })
    }

    /// Byte offset of the first alias (`*name`), if any.
    pub fn first_alias(&self) -> Option<usize> {
        self.first_alias
    }

    /// The error for a `serde_yaml` error `e` on the text indexed here. `serde_yaml` gives
    /// the position of every error but a few, one of which the index explains: an alias
    /// bomb (its repetition limit; nesting through aliases was refused before it ran).
    fn explain(&self, text: &str, e: &serde_yaml::Error) -> YamlError {
        let mut message = e.to_string();
        let Some(loc) = e.location() else {
            if self.expanded > self.read.saturating_mul(EXPANSION_FACTOR) {
                let message = "YAML aliases expand to too much data (repetition limit exceeded); an alias bomb?".to_string();
                return YamlError::at(YamlErrorKind::AliasBomb, message, text, self.first_alias.unwrap_or(0));
            }
            return YamlError { kind: YamlErrorKind::Deserialize, message, line: None, column: None };
        };
        // serde_yaml's message ends with the position it also gives apart; callers show
        // the position themselves.
        let suffix = format!(" at line {} column {}", loc.line(), loc.column());
        if let Some(i) = message.find(&suffix) {
            message.replace_range(i..i + suffix.len(), "");
        }
        YamlError { kind: YamlErrorKind::Deserialize, message, line: Some(loc.line()), column: Some(loc.column()) }
    }
}

/// `text` without the byte-order mark it may start with.
fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The largest char boundary at or below `at`.
fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte offsets of the parser's character indexes.
struct Offsets {
    /// The byte offset of every character and of the end; empty for ASCII text, whose
    /// character indexes are its byte offsets.
    bytes: Vec<usize>,
    len: usize,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        let bytes = if text.is_ascii() { Vec::new() } else { text.char_indices().map(|(i, _)| i).chain([text.len()]).collect() };
        Offsets { bytes, len: text.len() }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.bytes.is_empty() {
            char_index.min(self.len)
        } else {
            self.bytes.get(char_index).copied().unwrap_or(self.len)
        }
    }
}

/// An open list or mapping while the events are read.
struct Frame {
    node: usize,
    mapping: bool,
    /// Written in brackets.
    flow: bool,
    /// In a mapping: the next node is a key.
    expect_key: bool,
    /// In a mapping: the key just read (its text when a scalar) and its span.
    pending: Option<(Option<String>, Range<usize>)>,
    /// In a list: the number of items so far.
    items: usize,
    /// Whether this collection is itself a key (`? [a, b]: c`).
    is_key: bool,
    /// Its anchor id (0 for none).
    anchor: usize,
    /// Nodes inside with aliases expanded, the deepest nesting from here (1 for a flat
    /// collection), and where its last entry ends.
    expanded: u64,
    height: usize,
    last_end: usize,
}

/// Where a new node goes: its step from the parent, its key's span, whether it is a key.
struct Place {
    seg: Option<Seg>,
    key: Option<Range<usize>>,
    is_key: bool,
}

/// Reads events into an [`Index`].
struct Builder<'t> {
    text: &'t str,
    offsets: Offsets,
    ix: Index,
    stack: Vec<Frame>,
    /// How many of the open collections are flow collections.
    flow_depth: usize,
    /// By anchor id: the anchored node's expanded size and nesting height. An anchor
    /// still open counts as endless, so an alias inside its own anchor is too deep.
    anchors: HashMap<usize, (u64, usize)>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Builder<'t> {
        Builder { text, offsets: Offsets::new(text), ix: Index::default(), stack: Vec::new(), flow_depth: 0, anchors: HashMap::new() }
    }

    /// Bytes of a span, trailing whitespace dropped.
    fn bytes(&self, span: Span) -> Range<usize> {
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index()).max(start);
        start..start + self.text[start..end].trim_end().len()
    }

    /// Read one event; false to stop (a level too deep).
    fn event(&mut self, ev: Event<'_>, span: Span) -> bool {
        let at = self.bytes(span);
        match ev {
            Event::Scalar(value, _, anchor, _) => {
                if anchor != 0 {
                    self.anchors.insert(anchor, (1, 0));
                }
                self.leaf(NodeKind::Scalar, at, Some(value.into_owned()), (1, 0));
            }
            Event::Alias(id) => {
                self.ix.first_alias.get_or_insert(at.start);
                let (size, height) = self.anchors.get(&id).copied().unwrap_or((1, 0));
                let depth = self.stack.len().saturating_add(height);
                if depth > self.ix.expanded_depth.0 {
                    self.ix.expanded_depth = (depth, Some(at.start));
                }
                self.leaf(NodeKind::Alias, at, None, (size, height));
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                // A flow collection's start is its bracket; a block one's is empty.
                let flow = !at.is_empty();
                let message = if flow && self.flow_depth == MAX_FLOW_DEPTH {
                    format!("YAML nested too deeply: more than {MAX_FLOW_DEPTH} levels of brackets")
                } else if self.stack.len() == MAX_DEPTH {
                    format!("YAML nested too deeply: more than {MAX_DEPTH} levels of lists and mappings")
                } else {
                    self.open(matches!(ev, Event::MappingStart(..)), flow, at, anchor);
                    return true;
                };
                self.ix.stop = Some((YamlError::at(YamlErrorKind::TooDeep, message, self.text, at.start), at.start));
                return false;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(at),
            Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::DocumentEnd | Event::Nothing => {}
        }
        true
    }

    /// The place of the next node under the innermost open collection.
    fn place(&mut self) -> Place {
        self.ix.read += 1;
        let Some(f) = self.stack.last_mut() else {
            let first = !self.ix.children.contains_key(&(TOP, Seg::Item(0)));
            return Place { seg: first.then_some(Seg::Item(0)), key: None, is_key: false };
        };
        if !f.mapping {
            f.items += 1;
            return Place { seg: Some(Seg::Item(f.items - 1)), key: None, is_key: false };
        }
        if f.expect_key {
            return Place { seg: None, key: None, is_key: true };
        }
        let (text, key) = f.pending.take().map_or((None, None), |(t, s)| (t, Some(s)));
        Place { seg: text.map(Seg::Key), key, is_key: false }
    }

    fn add(&mut self, place: Place, kind: NodeKind, span: Range<usize>, text: Option<String>) -> usize {
        let n = self.ix.nodes.len();
        self.ix.nodes.push(Node { kind, span, key: place.key.clone(), text });
        let parent = self.stack.last().map_or(TOP, |f| f.node);
        let Some(seg) = place.seg else { return n };
        match self.ix.children.entry((parent, seg)) {
            Entry::Vacant(v) => {
                v.insert(n);
            }
            Entry::Occupied(o) if self.ix.duplicate.is_none() => {
                let (Seg::Key(name), Some(second)) = (&o.key().1, &place.key) else { return n };
                // No line number: the caller's text may be a block inside a file.
                let message = format!("duplicate key `{name}`: it is set earlier in the same mapping, and a key may be set once");
                self.ix.duplicate = Some(YamlError::at(YamlErrorKind::DuplicateKey, message, self.text, second.start));
            }
            Entry::Occupied(_) => {}
        }
        n
    }

    /// A scalar or an alias: a key of the open mapping, or a value.
    fn leaf(&mut self, kind: NodeKind, span: Range<usize>, text: Option<String>, size: (u64, usize)) {
        let place = self.place();
        let end = span.end;
        if place.is_key {
            if let Some(f) = self.stack.last_mut() {
                f.pending = Some((text, span));
            }
        } else {
            self.add(place, kind, span, text);
        }
        self.done(size, end);
    }

    fn open(&mut self, mapping: bool, flow: bool, span: Range<usize>, anchor: usize) {
        let place = self.place();
        let is_key = place.is_key;
        let start = span.start;
        let kind = if mapping { NodeKind::Mapping } else { NodeKind::Sequence };
        let node = self.add(place, kind, span, None);
        if anchor != 0 {
            self.anchors.insert(anchor, (u64::MAX, MAX_DEPTH + 1));
        }
        self.flow_depth += usize::from(flow);
        let pending = None;
        let frame =
            Frame { node, mapping, flow, expect_key: true, pending, items: 0, is_key, anchor, expanded: 1, height: 1, last_end: start };
        self.stack.push(frame);
    }

    /// The end of a list or mapping: a flow collection ends after its bracket, a block
    /// one after its last entry.
    fn close(&mut self, at: Range<usize>) {
        let Some(f) = self.stack.pop() else { return };
        self.flow_depth -= usize::from(f.flow);
        let end = if at.is_empty() { f.last_end } else { at.end };
        let node = &mut self.ix.nodes[f.node];
        node.span.end = end.max(node.span.start);
        if f.anchor != 0 {
            self.anchors.insert(f.anchor, (f.expanded, f.height));
        }
        if f.is_key {
            let span = node.span.clone();
            if let Some(parent) = self.stack.last_mut() {
                parent.pending = Some((None, span));
            }
        }
        self.done((f.expanded, f.height), end);
    }

    /// A node of `size` (expanded nodes, nesting height) ending at `end` is complete: add
    /// it to the open collection, whose next node is a key again after a value.
    fn done(&mut self, (size, height): (u64, usize), end: usize) {
        let Some(f) = self.stack.last_mut() else {
            self.ix.expanded = self.ix.expanded.saturating_add(size);
            return;
        };
        f.expanded = f.expanded.saturating_add(size);
        f.height = f.height.max(height.saturating_add(1));
        f.last_end = f.last_end.max(end);
        if f.mapping {
            f.expect_key = !f.expect_key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(expecting = "a mapping of keys to values")]
    #[allow(dead_code)]
    struct S {
        a: u32,
    }

    /// The text at a span, for assertions.
    fn at(text: &str, span: Option<Range<usize>>) -> &str {
        span.map_or("<none>", |s| &text[s])
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_document() {
        let text = "\u{feff}a: 1\nb: [2]\n";
        let (s, ix) = parse::<std::collections::BTreeMap<String, serde_yaml::Value>>(text).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(at(text, ix.key(&["a"])), "a");
        assert_eq!(at(text, ix.value(&["b"])), "[2]");
        let e = parse::<S>("\u{feff}a: x\n").unwrap_err();
        assert_eq!((e.kind, e.line), (YamlErrorKind::Deserialize, Some(1)));
    }

    #[test]
    fn a_key_set_twice_is_refused_at_the_second() {
        for (text, line, column) in [
            ("a: 1\nb: 2\na: 3\n", 3, 1),
            ("with:\n  k: 1\n  j: 0\n  k: 2\n", 4, 3),
            ("{a: 1, b: {c: 1, c: 2}}", 1, 18),
            ("x:\n  - {a: 1}\n  - {a: 1, 'a': 2}\n", 3, 12),
        ] {
            let e = parse::<serde_yaml::Value>(text).unwrap_err();
            assert_eq!((e.kind, e.line, e.column), (YamlErrorKind::DuplicateKey, Some(line), Some(column)), "{text}");
        }
        let e = parse::<serde_yaml::Value>("\u{feff}a: 1\na: 2\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
        assert!(e.message.contains("`a`: it is set earlier"), "{}", e.message);
        // The same key in two mappings, and in a list's items, is no duplicate.
        assert!(parse::<serde_yaml::Value>("a: {k: 1}\nb: {k: 2}\nc: [{k: 1}, {k: 2}]\n").is_ok());
    }

    #[test]
    fn unclosed_quote_points_at_its_opening() {
        let e = from_str::<S>("a: 1\nb: \"open\nc: 2\n").unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::Syntax, "{e:?}");
        assert_eq!((e.line, e.column), (Some(2), Some(4)), "{e:?}");
        let e = from_str::<S>("a: 'open\n").unwrap_err();
        assert_eq!((e.kind, e.line, e.column), (YamlErrorKind::Syntax, Some(1), Some(4)), "{e:?}");
    }

    #[test]
    fn alias_bomb_is_refused_with_a_position() {
        let mut t = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
        for (p, n) in ["a", "b", "c", "d", "e", "f", "g", "h"].iter().zip(["b", "c", "d", "e", "f", "g", "h", "i"]) {
            t.push_str(&format!("{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"));
        }
        let e = from_str::<serde_json::Value>(&t).unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::AliasBomb, "{e:?}");
        assert!(e.message.contains("alias"), "{e:?}");
        assert_eq!((e.line, e.column), (Some(2), Some(8)), "{e:?}");
        // A few aliases are ordinary YAML.
        let v: serde_json::Value = from_str("a: &a {x: 1}\nb: *a\nc: [*a, *a]\n").unwrap();
        assert_eq!(v["c"][1]["x"], 1);
    }

    #[test]
    fn an_alias_inside_its_own_anchor_is_too_deep() {
        let e = from_str::<serde_json::Value>("a: &a [1, *a]\n").unwrap_err();
        assert_eq!((e.kind, e.line, e.column), (YamlErrorKind::TooDeep, Some(1), Some(11)), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_deserializing() {
        // 100,000 levels took libyaml five minutes; the event parser stops at level 65.
        let t = format!("a: 1\nb: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = from_str::<serde_json::Value>(&t).unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::TooDeep, "{e:?}");
        assert!(e.message.contains("nested too deeply"), "{e:?}");
        assert_eq!((e.line, e.column), (Some(2), Some(4 + MAX_FLOW_DEPTH)), "{e:?}");
        // Block nesting has serde_yaml's limit: each `- ` opens a level (the mapping is the first).
        let block = format!("x:\n  {}1\n", "- ".repeat(100_000));
        let e = from_str::<serde_json::Value>(&block).unwrap_err();
        assert_eq!((e.kind, e.line, e.column), (YamlErrorKind::TooDeep, Some(2), Some(3 + 2 * (MAX_DEPTH - 1))), "{e:?}");
        assert!(from_str::<serde_json::Value>(&format!("x:\n  {}1\n", "- ".repeat(MAX_DEPTH - 1))).is_ok());
        // Brackets in quotes and comments do not count; ordinary nesting passes.
        let deep_in_strings = format!("a: '{0}'\nb: \"{0}\"\nc: 1 # {0}\nd: [[1, [2]], {{e: [3]}}]\n", "[".repeat(100));
        assert!(from_str::<serde_json::Value>(&deep_in_strings).is_ok());
        let at_limit = format!("{}{}", "[".repeat(MAX_FLOW_DEPTH), "]".repeat(MAX_FLOW_DEPTH));
        assert!(from_str::<serde_json::Value>(&at_limit).is_ok());
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        a: u32,
        inner: Option<S>,
    }

    #[test]
    fn every_error_has_its_kind_and_place() {
        use YamlErrorKind::*;
        let cases = [
            ("a: 1\nb: 2\n", Deserialize, (2, 1)),
            ("inner: {a: 1}\n", Deserialize, (1, 1)),
            ("a: -1\n", Deserialize, (1, 4)),
            ("a: [1]\n", Deserialize, (1, 4)),
            ("a: 1\ninner: [1]\n", Deserialize, (2, 8)),
            ("just a line\n", Deserialize, (1, 1)),
            ("a: 'open\n", Syntax, (1, 4)),
            ("a: 1\ninner: {a: 1\n", Syntax, (3, 1)),
            ("a: b: c\n", Syntax, (1, 5)),
        ];
        for (text, kind, (line, column)) in cases {
            let e = from_str::<Outer>(text).unwrap_err();
            assert_eq!((e.kind, e.line, e.column), (kind, Some(line), Some(column)), "{text:?}: {e:?}");
            assert!(!e.message.contains(" at line "), "{text:?}: {e:?}");
        }
        let e = from_str::<Outer>("a: 1\ninner: [1]\n").unwrap_err();
        assert!(e.message.contains("expected a mapping") && !e.message.contains("struct"), "{e:?}");
        assert_eq!(from_str::<Outer>(&"a".repeat(MAX_YAML_BYTES + 1)).unwrap_err().kind, TooLarge);
    }

    #[test]
    fn keys_and_values_are_found_in_every_style() {
        let t = "# a comment: not a key\nflow: {k: v, \"q k\": [1, 2]}\n'quoted': x\n\"dq\": 'y'\n\
                 folded: >\n  one\n  two\n\nplain: first\n  second\nlist:\n  - a\n  - &anchor b\nalias: *anchor\nnull:\n";
        let (v, ix) = parse::<serde_json::Value>(t).unwrap();
        assert_eq!(v["flow"]["q k"][1], 2);
        assert_eq!(ix.root(), Some(NodeKind::Mapping));
        assert_eq!(at(t, ix.key(&["flow"])), "flow");
        assert_eq!(at(t, ix.entry(&["quoted"])), "'quoted': x");
        assert_eq!(at(t, ix.value(&["flow"])), "{k: v, \"q k\": [1, 2]}");
        assert_eq!(at(t, ix.key(&["flow", "k"])), "k");
        assert_eq!(at(t, ix.value(&["flow", "k"])), "v");
        assert_eq!(at(t, ix.key(&["flow", "q k"])), "\"q k\"");
        assert_eq!(at(t, ix.value(&["flow", "q k", "1"])), "2");
        assert_eq!(at(t, ix.key(&["quoted"])), "'quoted'");
        assert_eq!(at(t, ix.value(&["dq"])), "'y'");
        assert_eq!(ix.scalar(&["dq"]), Some("y"));
        assert_eq!(at(t, ix.value(&["folded"])), "one\n  two");
        assert_eq!(at(t, ix.value(&["plain"])), "first\n  second");
        assert_eq!(at(t, ix.value(&["list"])), "- a\n  - &anchor b");
        assert_eq!(at(t, ix.value(&["list", "1"])), "&anchor b");
        assert_eq!(at(t, ix.value(&["alias"])), "*anchor");
        assert_eq!(ix.first_alias(), t.find("*anchor"));
        assert_eq!(ix.value(&["null"]).map(|r| r.is_empty()), Some(true));
        assert_eq!(at(t, ix.value_or_key(&["null"])), "null");
        assert_eq!(at(t, ix.nearest(&["flow", "q k", "7"])), "\"q k\"");
        assert_eq!(ix.nearest(&["absent", "x"]), None);
        assert_eq!(ix.key(&["a comment"]), None);
    }

    #[test]
    fn positions_are_bytes_of_multibyte_text() {
        let t = "é: 'ü'\nb: [ä, {c: d}]\n";
        let ix = Index::of(t);
        assert_eq!(at(t, ix.key(&["é"])), "é");
        assert_eq!(at(t, ix.value(&["é"])), "'ü'");
        assert_eq!(at(t, ix.value(&["b", "1", "c"])), "d");
        let e = from_str::<serde_json::Value>("é: ü\nb: 'open\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(4)), "{e:?}");
    }

    #[test]
    fn a_text_with_an_error_is_indexed_up_to_it() {
        let t = "id: g\nrun x\nwith: 1\n";
        let ix = Index::of(t);
        assert_eq!(ix.scalar(&["id"]), Some("g"));
        assert!(ix.stop.as_ref().is_some_and(|(e, _)| e.kind == YamlErrorKind::Syntax));
        assert_eq!(Index::of("").root(), None);
        assert_eq!(Index::of("- 1\n").root(), Some(NodeKind::Sequence));
    }
}
