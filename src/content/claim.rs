//! The grammar inside `{{ … }}`: checked claims, interpolations, asserts and plain text.
//!
//! ```text
//! claim    = "{{" ws path ws "=" ws stated ws "}}"     checked
//!          | "{{" ws path ws "}}"                       interpolated (flagged by --strict)
//!          | "{{" ws "assert" ws expr ws "}}"           checked, renders nothing
//!          | "{{" ws "plain" ws text ws "}}"            not computed: renders text as is
//! path     = id ( "." key | "[" index "]" | "[" index ".." "="? index "]" )*
//! key      = identifier | integer        an integer key is a map key, not an index
//! expr     = cmp ( "and" cmp )*
//! cmp      = operand ( "==" | "!=" | "<=" | ">=" | "<" | ">" ) operand
//! operand  = path | number               number: -?digits(.digits)?
//! ```
//!
//! Spans are byte offsets into the essay's source, so diagnostics point at the path or
//! the stated value itself.

use std::fmt;
use std::ops::Range;

use crate::diag::Code;

/// One step of a path into a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.name` or `.2`: a map key (integer keys are map keys too).
    Key(String),
    /// `[i]`: the i-th element of a list, from 0.
    Index(usize),
    /// `[a..b]` (b exclusive) or `[a..=b]` (stored as exclusive end): a sub-list.
    Slice(usize, usize),
}

/// A path into a bound result: `small.positions.2`, `m.rules[0].hits`, `s.with.coins.3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The id a ```` ```census ```` block bound.
    pub id: String,
    /// The steps below it.
    pub steps: Vec<Step>,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)?;
        for s in &self.steps {
            match s {
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(i) => write!(f, "[{i}]")?,
                Step::Slice(a, b) => write!(f, "[{a}..{b}]")?,
            }
        }
        Ok(())
    }
}

/// A comparison operator of an assert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// An operand of an assert comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A path into a result, with its span.
    Path(Path, Range<usize>),
    /// A number as written (`0`, `-3`, `0.5`), with its span.
    Number(String, Range<usize>),
}

/// One comparison `a op b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// Left operand.
    pub left: Operand,
    /// Operator.
    pub op: Op,
    /// Right operand.
    pub right: Operand,
}

/// What a `{{ … }}` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// `{{ path = stated }}`: the stated text must agree with the value at `path`.
    Check {
        /// The path.
        path: Path,
        /// Span of the path.
        path_span: Range<usize>,
        /// The stated text exactly as written (rendered on the page).
        stated: String,
        /// Span of the stated text.
        stated_span: Range<usize>,
    },
    /// `{{ path }}`: the computed value is written into the page; checks nothing.
    Interpolate {
        /// The path.
        path: Path,
        /// Span of the path.
        path_span: Range<usize>,
    },
    /// `{{ assert a == b and … }}`: every comparison must hold; renders nothing.
    Assert {
        /// The comparisons, all of which must hold.
        all: Vec<Comparison>,
    },
    /// `{{ plain text }}`: a number that is not computed (a year, a prize); rendered as is.
    Plain {
        /// The text.
        text: String,
    },
}

/// A claim found in an essay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Span of the whole `{{ … }}`.
    pub span: Range<usize>,
    /// What it says.
    pub kind: ClaimKind,
}

/// A syntax error inside a claim, with the span it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimSyntaxError {
    /// The kind of problem (the code of its diagnostic).
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// Where (byte offsets into the essay).
    pub span: Range<usize>,
    /// What to do.
    pub hint: String,
}

/// The end of the character starting at byte `at` of `s` (`at` itself at the end), so
/// that a one-character error span never splits a multi-byte character (found by the
/// fuzz tests: `{{ é }}` gave a span ending inside `é`).
fn char_end(s: &str, at: usize) -> usize {
    s.get(at..).and_then(|r| r.chars().next()).map_or(at.min(s.len()), |c| at + c.len_utf8())
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Parse a path starting at the beginning of `s` (no leading space); `base` is the byte
/// offset of `s` in the essay. Returns the path and the number of bytes it took.
pub fn parse_path(s: &str, base: usize) -> Result<(Path, usize), ClaimSyntaxError> {
    let bytes = s.as_bytes();
    let err = |msg: &str, at: usize, hint: &str| ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: msg.to_string(),
        span: base + at..base + char_end(s, at),
        hint: hint.to_string(),
    };
    let first = s.chars().next();
    if !first.is_some_and(is_ident_start) {
        return Err(err(
            "expected the id of a census block",
            0,
            "a claim starts with the `id:` of a ```census block, e.g. {{ small.positions = 523 }}",
        ));
    }
    let mut i = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    let id = s[..i].to_string();
    let mut steps = Vec::new();
    loop {
        match bytes.get(i) {
            Some(b'.') => {
                let rest = &s[i + 1..];
                let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
                if end == 0 {
                    return Err(err("expected a key after `.`", i + 1, "keys are names or integers"));
                }
                steps.push(Step::Key(rest[..end].to_string()));
                i += 1 + end;
            }
            Some(b'[') => {
                let close =
                    s[i..].find(']').map(|c| i + c).ok_or_else(|| err("unclosed `[`", i, "write an index as [3] or a slice as [0..4]"))?;
                let inner = s[i + 1..close].trim();
                let num = |t: &str| t.trim().parse::<usize>().ok();
                // Digits past the largest index (or an inclusive end at it) are their own
                // error, not "needs two integers" nor, wrapped round, "runs backwards".
                let too_large = |t: &str| {
                    t.trim().parse::<usize>().is_err_and(|e| *e.kind() == std::num::IntErrorKind::PosOverflow)
                        || inner.contains("..=") && num(t) == Some(usize::MAX)
                };
                let parts: Vec<&str> = inner.splitn(2, "..").map(|t| t.trim_start_matches('=')).collect();
                if let Some(t) = parts.iter().find(|t| too_large(t)) {
                    return Err(err(
                        &format!("a list index is out of range: {} is larger than any list", t.trim()),
                        i + 1,
                        "no list has that many elements; write an index below the list's length",
                    ));
                }
                let step = if let Some((a, b)) = inner.split_once("..") {
                    let (inclusive, b) = match b.strip_prefix('=') {
                        Some(b) => (true, b),
                        None => (false, b),
                    };
                    match (num(a), num(b)) {
                        (Some(a), Some(b)) => {
                            let end = if inclusive { b + 1 } else { b };
                            if end < a {
                                return Err(err("a slice must not run backwards", i, "write [a..b] with a ≤ b"));
                            }
                            Step::Slice(a, end)
                        }
                        _ => return Err(err("a slice needs two integers", i + 1, "write [a..b] or [a..=b]")),
                    }
                } else {
                    match num(inner) {
                        Some(n) => Step::Index(n),
                        None => {
                            return Err(err(
                                "a list index must be a non-negative integer",
                                i + 1,
                                "write [0] for the first element; use .key for a map key",
                            ))
                        }
                    }
                };
                steps.push(step);
                i = close + 1;
            }
            _ => break,
        }
    }
    Ok((Path { id, steps }, i))
}

/// Parse the text between `{{` and `}}`. `inner` is that text, `base` its byte offset in
/// the essay, `span` the span of the whole claim.
pub fn parse_claim(inner: &str, base: usize, span: Range<usize>) -> Result<Claim, ClaimSyntaxError> {
    let lead = inner.len() - inner.trim_start().len();
    let t = inner.trim();
    let tbase = base + lead;
    if t.is_empty() {
        return Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: "empty claim".into(),
            span,
            hint: "write {{ id.path = value }}, or \\{{ for a literal `{{`".into(),
        });
    }
    let word_end = t.find(char::is_whitespace).unwrap_or(t.len());
    let word = &t[..word_end];
    if word == "assert" && word_end < t.len() {
        let rest = &t[word_end..];
        let rlead = rest.len() - rest.trim_start().len();
        let all = parse_expr(rest.trim_start(), tbase + word_end + rlead)?;
        return Ok(Claim { span, kind: ClaimKind::Assert { all } });
    }
    if word == "plain" && word_end < t.len() {
        return Ok(Claim { span, kind: ClaimKind::Plain { text: t[word_end..].trim().to_string() } });
    }
    // A lone keyword is a marker with its text left out, not an interpolation of a census
    // bound as `plain` or `assert`.
    if t == "plain" || t == "assert" {
        return Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: format!("`{t}` with nothing after it"),
            span: tbase..tbase + t.len(),
            hint: if t == "plain" {
                "write the number that is not computed after it: {{ plain 1954 }}".into()
            } else {
                "write the comparison after it: {{ assert id.path == 0 }}".into()
            },
        });
    }
    let (path, used) = parse_path(t, tbase)?;
    let path_span = tbase..tbase + used;
    let rest = &t[used..];
    let rest_trim = rest.trim_start();
    if rest_trim.is_empty() {
        return Ok(Claim { span, kind: ClaimKind::Interpolate { path, path_span } });
    }
    let eq_at = tbase + used + (rest.len() - rest_trim.len());
    if let Some(after) = rest_trim.strip_prefix('=') {
        if after.starts_with('=') {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "`==` in a claim".into(),
                span: eq_at..eq_at + 2,
                hint: "a claim states a value with one `=`; comparisons belong in {{ assert … }}".into(),
            });
        }
        let stated = after.trim();
        if stated.is_empty() {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "nothing stated after `=`".into(),
                span: eq_at..eq_at + 1,
                hint: "write the value as the sentence should read, e.g. {{ small.positions = 523 }}".into(),
            });
        }
        let s_off = eq_at + 1 + (after.len() - after.trim_start().len());
        return Ok(Claim {
            span,
            kind: ClaimKind::Check { path, path_span, stated: stated.to_string(), stated_span: s_off..s_off + stated.len() },
        });
    }
    Err(ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: format!("unexpected `{}` after the path", rest_trim.chars().next().unwrap_or(' ')),
        span: eq_at..eq_at + rest_trim.chars().next().map(char::len_utf8).unwrap_or(1),
        hint: "write {{ path = stated }} to check a number, or {{ path }} to print it".into(),
    })
}

fn parse_operand(s: &str, base: usize) -> Result<(Operand, usize), ClaimSyntaxError> {
    let first = s.chars().next();
    if first.is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '−') {
        let mut end = first.map(char::len_utf8).unwrap_or(0);
        for (i, c) in s.char_indices().skip(1) {
            if c.is_ascii_digit() || c == '.' {
                end = i + c.len_utf8();
            } else {
                break;
            }
        }
        let text = s[..end].to_string();
        return Ok((Operand::Number(text, base..base + end), end));
    }
    let (p, used) = parse_path(s, base)?;
    Ok((Operand::Path(p, base..base + used), used))
}

fn parse_expr(s: &str, base: usize) -> Result<Vec<Comparison>, ClaimSyntaxError> {
    let mut all = Vec::new();
    let mut i = 0;
    loop {
        let skip = |i: usize| i + (s[i..].len() - s[i..].trim_start().len());
        i = skip(i);
        let (left, used) = parse_operand(&s[i..], base + i)?;
        i = skip(i + used);
        let ops = [("==", Op::Eq), ("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)];
        let Some((tok, op)) = ops.iter().find(|(t, _)| s[i..].starts_with(t)) else {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "expected a comparison (==, !=, <, <=, >, >=)".into(),
                span: base + i..base + char_end(s, i),
                hint: "an assert compares, e.g. {{ assert moves.struck_winning == 0 }}".into(),
            });
        };
        i = skip(i + tok.len());
        let (right, used) = parse_operand(&s[i..], base + i)?;
        i = skip(i + used);
        all.push(Comparison { left, op: *op, right });
        if i >= s.len() {
            return Ok(all);
        }
        if let Some(r) = s[i..].strip_prefix("and") {
            if r.starts_with(char::is_whitespace) {
                i += 3;
                continue;
            }
        }
        return Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: "expected `and` or the end of the assert".into(),
            span: base + i..base + char_end(s, i),
            hint: "join comparisons with `and`".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(s: &str) -> Claim {
        parse_claim(s, 0, 0..s.len()).unwrap()
    }

    #[test]
    fn paths_with_keys_indices_and_slices() {
        let (p, n) = parse_path("small.positions.2[3][1..=4].with-x rest", 0).unwrap();
        assert_eq!(n, "small.positions.2[3][1..=4].with-x".len());
        assert_eq!(p.id, "small");
        assert_eq!(
            p.steps,
            vec![Step::Key("positions".into()), Step::Key("2".into()), Step::Index(3), Step::Slice(1, 5), Step::Key("with-x".into())]
        );
        assert!(parse_path("1abc", 0).is_err());
        assert!(parse_path("a[x]", 0).is_err());
        assert!(parse_path("a[3..1]", 0).is_err());
        assert!(parse_path("a.", 0).is_err());
    }

    #[test]
    fn check_claim_spans() {
        let src = "x {{ small.positions = 1,001 }} y";
        let c = parse_claim(&src[4..29], 4, 2..31).unwrap();
        match c.kind {
            ClaimKind::Check { path, path_span, stated, stated_span } => {
                assert_eq!(path.to_string(), "small.positions");
                assert_eq!(&src[path_span], "small.positions");
                assert_eq!(stated, "1,001");
                assert_eq!(&src[stated_span], "1,001");
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn error_spans_cover_whole_characters() {
        for inner in [" é ", " assert x é 1 ", " assert a == 1 é ", " a.b[é] ", " a.é ", "é"] {
            let e = parse_claim(inner, 10, 8..inner.len() + 12).unwrap_err();
            let r = e.span.start - 10..e.span.end - 10;
            assert!(inner.get(r.clone()).is_some(), "{inner:?}: span {r:?} splits a character");
        }
    }

    #[test]
    fn kinds() {
        assert!(matches!(claim(" a.b ").kind, ClaimKind::Interpolate { .. }));
        assert!(matches!(claim("plain 1954").kind, ClaimKind::Plain { ref text } if text == "1954"));
        for lone in ["plain", " assert "] {
            let e = parse_claim(lone, 0, 0..lone.len()).unwrap_err();
            assert!(e.message.contains("with nothing after it"), "{lone}: {}", e.message);
        }
        match claim("assert m.x == 0 and m.y <= -2.5").kind {
            ClaimKind::Assert { all } => {
                assert_eq!(all.len(), 2);
                assert_eq!(all[1].op, Op::Le);
                assert!(matches!(&all[1].right, Operand::Number(n, _) if n == "-2.5"));
            }
            k => panic!("{k:?}"),
        }
        assert!(parse_claim("", 0, 0..4).is_err());
        assert!(parse_claim("a.b = ", 0, 0..4).is_err());
        assert!(parse_claim("a.b == 3", 0, 0..4).is_err());
        assert!(parse_claim("a.b ~ 3", 0, 0..4).is_err());
        assert!(parse_claim("assert a.b", 0, 0..4).is_err());
        assert!(parse_claim("assert a.b == 1 or c == 2", 0, 0..4).is_err());
    }
}
