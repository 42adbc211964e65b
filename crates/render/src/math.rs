//! LaTeX math to MathML at build time (math-core), with the site's macros.

use std::collections::BTreeMap;
use std::ops::Range;

use countersign_core::diag::Code;
use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

/// A converter configured with the site's macros.
pub struct Math {
    conv: LatexToMathML,
    /// Each macro's weight: the [`structure`] of its expansion (its own macros counted by
    /// theirs), what one use of it adds to a formula's.
    weights: BTreeMap<String, usize>,
}

/// The most structure — commands, `{`, `^`, `_`, `&`, a site macro counting as its
/// expansion — a formula may hold. math-core recurses once for each level of a formula's
/// nesting, and nesting needs structure, so this bounds the recursion; the largest formula
/// of this site's essays holds 29. More is a `latex-error` at the formula.
pub const MAX_STRUCTURE: usize = 2_000;

/// A formula with no more structure than this is converted on the caller's stack.
const SMALL: usize = 64;

/// The stack a larger formula is converted on: room for [`MAX_STRUCTURE`] levels of
/// math-core's deepest construct (a few KiB each) many times over. Reserved, not touched.
const STACK: usize = 256 << 20;

/// A LaTeX error: the byte range within the LaTeX text, the message, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MathError {
    /// Byte range within the LaTeX source given.
    pub span: Range<usize>,
    /// What math-core said, or which environment is not whole.
    pub message: String,
    /// [`Code::MathMalformed`] for an environment never closed or closed by another
    /// `\end`, [`Code::LatexError`] for what math-core refuses.
    pub code: Code,
}

impl Math {
    /// A converter with `macros` (name without backslash → expansion).
    ///
    /// Errors: the name of the macro that does not parse (when known) and a message
    /// naming it.
    pub fn new(macros: &BTreeMap<String, String>) -> Result<Math, (Option<String>, String)> {
        let config = MathCoreConfig {
            macros: macros.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            xml_namespace: false,
            ..Default::default()
        };
        let weights = macro_weights(macros);
        LatexToMathML::new(config).map(|conv| Math { conv, weights }).map_err(|(e, i, def)| {
            let name = macros.keys().nth(i).cloned();
            let shown = name.as_deref().map_or_else(|| format!("#{}", i + 1), |n| format!("\\{n}"));
            (name, format!("math macro {shown} (`{def}`) does not parse: {}", e.error_message()))
        })
    }

    /// MathML for `latex`, inline (`$…$`) or display (`$$…$$`). An environment that is not
    /// whole is an error at its `\begin` or `\end` (math-core would say only that the input
    /// ended).
    ///
    /// A formula of more than [`MAX_STRUCTURE`] is a `latex-error` at its start, never a
    /// stack overflow; a large one is converted in a thread with a stack of known size.
    pub fn render(&self, latex: &str, display: bool) -> Result<String, MathError> {
        environments(latex)?;
        let weight = structure(latex, &self.weights);
        if weight > MAX_STRUCTURE {
            return Err(MathError {
                span: 0..0,
                message: format!(
                    "the formula is too deep or too large to render: {weight} commands, braces and scripts (site macros counted as their expansion), at most {MAX_STRUCTURE}"
                ),
                code: Code::LatexError,
            });
        }
        let mode = if display { MathDisplay::Block } else { MathDisplay::Inline };
        let convert = || {
            self.conv.convert_with_local_state(latex, mode).map(|r| r.mathml).map_err(|e| MathError {
                span: e.0.clone(),
                message: e.error_message(),
                code: Code::LatexError,
            })
        };
        if weight <= SMALL {
            return convert();
        }
        std::thread::scope(|s| match std::thread::Builder::new().stack_size(STACK).spawn_scoped(s, convert) {
            Ok(t) => t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(e) => {
                Err(MathError { span: 0..0, message: format!("no thread to render a large formula in: {e}"), code: Code::LatexError })
            }
        })
    }
}

/// The structure of `latex`: its control words and symbols, `{`, `^`, `_` and `&`, each
/// site macro (in `weights`) counting as its expansion's.
fn structure(latex: &str, weights: &BTreeMap<String, usize>) -> usize {
    let b = latex.as_bytes();
    let (mut n, mut i) = (0usize, 0);
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let name_len = b[i + 1..].iter().take_while(|c| c.is_ascii_alphabetic()).count().max(1);
                let name = latex.get(i + 1..(i + 1 + name_len).min(b.len())).unwrap_or("");
                n = n.saturating_add(weights.get(name).copied().unwrap_or(1));
                i += 1 + name_len;
                continue;
            }
            b'{' | b'^' | b'_' | b'&' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n
}

/// Each macro's weight (see [`Math::weights`]): a macro used in another's expansion counts
/// as its own weight, found innermost first; one in a cycle (which math-core refuses)
/// counts past the bound.
fn macro_weights(macros: &BTreeMap<String, String>) -> BTreeMap<String, usize> {
    let mut weights: BTreeMap<String, usize> = BTreeMap::new();
    // A macro's weight is settled once every macro it uses is; each round settles one more
    // level.
    for _ in 0..=macros.len() {
        let ready: Vec<&String> = macros
            .iter()
            .filter(|(n, body)| !weights.contains_key(*n) && words(body).all(|w| !macros.contains_key(w) || weights.contains_key(w)))
            .map(|(n, _)| n)
            .collect();
        if ready.is_empty() {
            break;
        }
        for name in ready {
            let w = structure(&macros[name], &weights).max(1);
            weights.insert(name.clone(), w);
        }
    }
    for name in macros.keys() {
        weights.entry(name.clone()).or_insert(MAX_STRUCTURE + 1);
    }
    weights
}

/// The control words (`\name`, without the backslash) of `latex`.
fn words(latex: &str) -> impl Iterator<Item = &str> {
    latex.split('\\').skip(1).map(|t| &t[..t.bytes().take_while(u8::is_ascii_alphabetic).count()]).filter(|w| !w.is_empty())
}

/// Every `\begin{name}` of `latex` closed by its own `\end{name}`, innermost first. Error
/// ([`Code::MathMalformed`]): an `\end` that closes another environment or none, at the
/// `\end`; else the innermost environment never closed, at its `\begin`. A backslash
/// escapes the character after it (`\\begin` is a line break and a word).
fn environments(latex: &str) -> Result<(), MathError> {
    let malformed = |span: Range<usize>, message: String| MathError { span, message, code: Code::MathMalformed };
    let b = latex.as_bytes();
    let mut open: Vec<(Range<usize>, &str)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let rest = &latex[i + 1..];
        let (begin, word) = match () {
            _ if rest.starts_with("begin") => (true, 5),
            _ if rest.starts_with("end") => (false, 3),
            _ => {
                i += 2;
                continue;
            }
        };
        let after = &rest[word..];
        let name_at = after.len() - after.trim_start().len();
        // A control word runs on over letters: `\endgroup` is not `\end`.
        let inner = after[name_at..].strip_prefix('{').filter(|_| !after.starts_with(|c: char| c.is_ascii_alphabetic()));
        let Some((inner, close)) = inner.and_then(|t| t.find('}').map(|c| (t, c))) else {
            i += 1 + word;
            continue;
        };
        let name = inner[..close].trim();
        let end = i + 1 + word + name_at + 1 + close + 1;
        if begin {
            open.push((i..end, name));
        } else {
            match open.pop() {
                Some((_, n)) if n == name => {}
                Some((_, n)) => return Err(malformed(i..end, format!("`\\end{{{name}}}` closes `\\begin{{{n}}}`"))),
                None => return Err(malformed(i..end, format!("`\\end{{{name}}}` with no `\\begin{{{name}}}` before it"))),
            }
        }
        i = end;
    }
    match open.pop() {
        Some((r, n)) => Err(malformed(r, format!("`\\begin{{{n}}}` is never closed"))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mathml_and_errors() {
        let mut m = BTreeMap::new();
        m.insert("nimsum".to_string(), r"\oplus".to_string());
        let math = Math::new(&m).unwrap();
        let out = math.render(r"\langle a \mid b\rangle = (a \nimsum b) - 1", false).unwrap();
        assert!(out.starts_with("<math"), "{out}");
        assert!(out.contains('⊕'), "{out}");
        let e = math.render(r"\frac{1}{", true).unwrap_err();
        assert!(!e.message.is_empty());
        assert!(math.render(r"\nosuchcommand", false).is_err());
    }

    /// An environment never closed was reported by math-core at the end of the input (the
    /// closing `$$` of a display, lines after the `\begin`); it is an error at its own
    /// `\begin`, and a wrong `\end` at itself.
    #[test]
    fn environments_not_whole_are_errors_at_their_begin_or_end() {
        let math = Math::new(&Default::default()).unwrap();
        for (latex, at, says) in [
            ("x = \\begin{cases} a \\\\ b", "\\begin{cases}", "never closed"),
            ("\\begin{aligned} \\begin{cases} a \\end{aligned}", "\\end{aligned}", "closes `\\begin{cases}`"),
            ("a \\end{cases}", "\\end{cases}", "no `\\begin{cases}`"),
        ] {
            let e = math.render(latex, true).unwrap_err();
            assert_eq!(e.code, Code::MathMalformed, "{latex}");
            assert_eq!(&latex[e.span.clone()], at, "{latex}: {e:?}");
            assert!(e.message.contains(says), "{latex}: {e:?}");
        }
        for ok in ["\\begin{cases} a & b \\\\ c & d \\end{cases}", "\\begin {aligned} a \\end {aligned}", "a \\\\begin"] {
            assert!(environments(ok).is_ok(), "{ok}");
        }
        assert_eq!(math.render("\\frac{1}{", true).unwrap_err().code, Code::LatexError);
    }
}
