//! The one module that touches `serde_yaml` (archived upstream): every YAML read in the
//! crate goes through [`from_str`], so replacing the parser is a change to this file.

use serde::de::DeserializeOwned;

/// Refuse YAML documents larger than this many bytes (front matter and directive blocks
/// are small; this bounds alias expansion and parser work on hostile input).
pub const MAX_YAML_BYTES: usize = 256 * 1024;

/// Refuse flow collections (`[…]`, `{…}`) nested deeper than this. libyaml's scanner does
/// work proportional to the nesting depth for every token, so 100,000 nested brackets
/// (200 kB) took five minutes before this limit; no essay nests more than a few levels.
pub const MAX_FLOW_DEPTH: usize = 64;

/// The byte offset of the bracket that opens level `MAX_FLOW_DEPTH + 1`, if any. Brackets
/// inside quoted scalars and comments are skipped (a quote counts when it starts a token).
fn flow_too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut prev = '\n';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some('\'') if c == '\'' => {
                // '' is an escaped quote inside a single-quoted scalar.
                if chars.peek().is_some_and(|&(_, n)| n == '\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some('"') if c == '"' => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' if prev.is_whitespace() || matches!(prev, '[' | '{' | ',' | ':') => quote = Some(c),
                '#' if prev.is_whitespace() => {
                    while chars.peek().is_some_and(|&(_, n)| n != '\n') {
                        chars.next();
                    }
                }
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some(i);
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        prev = c;
    }
    None
}

/// What kind of problem a [`YamlError`] is, so callers decide by kind and never by the
/// message's words (which may be reworded here or by the parser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The text is not well-formed YAML (an unclosed quote, a bad indent, a tab).
    Syntax,
    /// A value of another type stands where a mapping of keys to values was expected (a
    /// list or a scalar as a whole document, or as a field that takes a mapping).
    NotAMapping,
    /// A value of the wrong type or out of its type's range (`rung: -1`, `title: {a: b}`).
    WrongType,
    /// A key the target does not know.
    UnknownField,
    /// A key the target needs is absent.
    MissingField,
    /// The text is over [`MAX_YAML_BYTES`].
    TooLarge,
    /// Brackets or nodes nested deeper than the limits allow.
    TooDeep,
    /// Aliases expand to too much data (an alias bomb).
    AliasBomb,
    /// Anything else serde reports (a custom error of a `Deserialize` impl).
    Other,
}

/// A YAML error with its position, 1-based, within the text that was parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// What went wrong, for callers to act on.
    pub kind: YamlErrorKind,
    /// The parser's or deserializer's message, without its own "at line" suffix: for the
    /// reader, never to be compared.
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

/// Deserialize `text` into `T`.
///
/// Errors: malformed YAML, a value of the wrong type, an unknown or missing field, more
/// than [`MAX_YAML_BYTES`], or an alias bomb (serde_yaml refuses deep or repeated alias
/// expansion) — each as a [`YamlError`] with the position serde_yaml reports.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    if text.len() > MAX_YAML_BYTES {
        return Err(YamlError {
            kind: YamlErrorKind::TooLarge,
            message: format!("YAML of {} bytes is over the limit of {MAX_YAML_BYTES}", text.len()),
            line: Some(1),
            column: Some(1),
        });
    }
    if let Some(at) = flow_too_deep(text) {
        let before = &text[..at];
        return Err(YamlError {
            kind: YamlErrorKind::TooDeep,
            message: format!("YAML nested too deeply: more than {MAX_FLOW_DEPTH} levels of brackets"),
            line: Some(before.matches('\n').count() + 1),
            column: Some(before.rsplit('\n').next().unwrap_or("").chars().count() + 1),
        });
    }
    serde_yaml::from_str(text).map_err(|e| {
        let loc = e.location();
        let full = e.to_string();
        let mut kind = kind_of(&full);
        let mut message = full.clone();
        let mut line = loc.as_ref().map(|l| l.line());
        let mut column = loc.as_ref().map(|l| l.column());
        // serde_yaml appends " at line L column C"; the caller shows the position itself.
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        // A scanner error may go on with its context: "…, while scanning a quoted scalar at
        // line 2 column 8". Keep the context's words; when the problem is the end of the
        // text (an unclosed quote or bracket), the context's position is the useful one.
        if let Some((ctx, ctx_at)) = scanner_context(&full) {
            message = format!("{message}, {ctx}");
            // Likewise a key without its `:` is reported on the line after the key.
            if message.starts_with("found unexpected end of stream") || message.starts_with("could not find expected ':'") {
                if let Some((l, c)) = ctx_at {
                    line = Some(l);
                    column = Some(c);
                }
            }
        }
        // serde names the Rust type it wanted ("expected struct CensusHead"); users wrote
        // YAML, where that is a mapping.
        if let Some(i) = message.find("expected struct ") {
            message.truncate(i);
            message.push_str("expected a mapping of keys to values");
            if kind == YamlErrorKind::WrongType {
                kind = YamlErrorKind::NotAMapping;
            }
        }
        // Alias bombs and deep nesting are refused by serde_yaml without a position; point
        // at the first alias (or the start) and say what happened in the user's terms.
        if message.contains("repetition limit exceeded") || message.contains("recursion limit exceeded") {
            let bomb = message.contains("repetition");
            kind = if bomb { YamlErrorKind::AliasBomb } else { YamlErrorKind::TooDeep };
            message = if bomb {
                "YAML aliases expand to too much data (repetition limit exceeded); an alias bomb?".to_string()
            } else {
                "YAML nested too deeply (recursion limit exceeded)".to_string()
            };
            if line.is_none() {
                let at = if bomb { first_alias(text).unwrap_or(0) } else { 0 };
                let before = &text[..at];
                line = Some(before.matches('\n').count() + 1);
                column = Some(before.rsplit('\n').next().unwrap_or("").chars().count() + 1);
            }
        }
        YamlError { kind, message, line, column }
    })
}

/// The kind of a serde_yaml error, from its text: serde_yaml 0.9 exposes no error kind,
/// so this is the one place that reads the parser's words (serde's `de::Error` messages,
/// "invalid type: …", "unknown field …", and libyaml's scanner and parser errors, which
/// carry no serde prefix). The limits refused before parsing have their kinds set where
/// they are refused.
fn kind_of(full: &str) -> YamlErrorKind {
    const SERDE: [(&str, YamlErrorKind); 5] = [
        ("invalid type: ", YamlErrorKind::WrongType),
        ("invalid value: ", YamlErrorKind::WrongType),
        ("invalid length ", YamlErrorKind::WrongType),
        ("unknown field ", YamlErrorKind::UnknownField),
        ("missing field ", YamlErrorKind::MissingField),
    ];
    // serde_yaml prefixes a deserializer's error with the path of the key: "title: invalid type: …".
    let serde = SERDE.iter().find(|(p, _)| full.starts_with(p) || full.contains(&format!(": {p}")));
    if let Some((_, kind)) = serde {
        return *kind;
    }
    let libyaml = ["while scanning", "while parsing", "found ", "did not find", "could not find", "mapping values are not allowed"];
    if libyaml.iter().any(|w| full.contains(w)) {
        YamlErrorKind::Syntax
    } else {
        YamlErrorKind::Other
    }
}

/// The context of a libyaml error message ("while scanning a quoted scalar") and its
/// position, from serde_yaml's text "PROBLEM at line L column C, CONTEXT at line L column C".
fn scanner_context(full: &str) -> Option<(String, Option<(usize, usize)>)> {
    let first = full.find(" at line ")?;
    let rest = &full[first + " at line ".len()..];
    let comma = rest.find(", ")?;
    // Only "L column C" may stand between the position and the comma.
    if !rest[..comma].split(" column ").all(|n| n.trim().parse::<usize>().is_ok()) {
        return None;
    }
    let ctx = &rest[comma + 2..];
    match ctx.find(" at line ") {
        Some(i) => {
            let mut nums = ctx[i + " at line ".len()..].split(" column ").map(|n| n.trim().parse::<usize>().ok());
            let at = match (nums.next().flatten(), nums.next().flatten()) {
                (Some(l), Some(c)) => Some((l, c)),
                _ => None,
            };
            Some((ctx[..i].to_string(), at))
        }
        None => Some((ctx.to_string(), None)),
    }
}

/// Byte offset of the first alias (`*name` after a space, `[`, `{`, `,` or `:`) in `text`.
fn first_alias(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    (1..b.len()).find(|&i| {
        b[i] == b'*'
            && matches!(b[i - 1], b' ' | b'[' | b'{' | b',' | b':')
            && b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: u32,
    }

    #[test]
    fn unclosed_quote_points_at_its_opening() {
        let e = from_str::<S>("a: 1\nb: \"open\nc: 2\n").unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::Syntax, "{e:?}");
        assert!(e.message.contains("while scanning a quoted scalar"), "{e:?}");
        assert_eq!((e.line, e.column), (Some(2), Some(4)), "{e:?}");
    }

    #[test]
    fn rust_type_names_are_not_shown() {
        let e = from_str::<S>("- 1\n- 2\n").unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::NotAMapping, "{e:?}");
        assert!(e.message.contains("expected a mapping") && !e.message.contains("struct"), "{e:?}");
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
        assert_eq!(e.line, Some(2), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        // 100,000 levels took libyaml five minutes; the pre-scan refuses at level 65.
        let t = format!("a: 1\nb: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = from_str::<serde_json::Value>(&t).unwrap_err();
        assert_eq!(e.kind, YamlErrorKind::TooDeep, "{e:?}");
        assert!(e.message.contains("nested too deeply"), "{e:?}");
        assert_eq!((e.line, e.column), (Some(2), Some(4 + MAX_FLOW_DEPTH)), "{e:?}");
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
    fn every_error_has_its_kind() {
        let cases = [
            ("a: 1\nb: 2\n", YamlErrorKind::UnknownField),
            ("inner: {a: 1}\n", YamlErrorKind::MissingField),
            ("a: -1\n", YamlErrorKind::WrongType),
            ("a: [1]\n", YamlErrorKind::WrongType),
            // Read lazily: `a: 1 b` is a string where a number was wanted.
            ("a: 1\n  b: 2\n", YamlErrorKind::WrongType),
            ("a: 1\ninner: [1]\n", YamlErrorKind::NotAMapping),
            ("just a line\n", YamlErrorKind::NotAMapping),
            ("a: 'open\n", YamlErrorKind::Syntax),
            ("a: 1\ninner: {a: 1\n", YamlErrorKind::Syntax),
        ];
        for (text, want) in cases {
            let e = from_str::<Outer>(text).unwrap_err();
            assert_eq!(e.kind, want, "{text:?}: {e:?}");
        }
        assert_eq!(from_str::<Outer>(&"a".repeat(MAX_YAML_BYTES + 1)).unwrap_err().kind, YamlErrorKind::TooLarge);
    }
}
