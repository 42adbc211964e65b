//! LaTeX math to MathML at build time (math-core), with the site's macros.

use std::collections::BTreeMap;
use std::ops::Range;

use countersign_core::diag::Code;
use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

/// A converter configured with the site's macros.
pub struct Math {
    conv: LatexToMathML,
}

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
        LatexToMathML::new(config).map(|conv| Math { conv }).map_err(|(e, i, def)| {
            let name = macros.keys().nth(i).cloned();
            let shown = name.as_deref().map_or_else(|| format!("#{}", i + 1), |n| format!("\\{n}"));
            (name, format!("math macro {shown} (`{def}`) does not parse: {}", e.error_message()))
        })
    }

    /// MathML for `latex`, inline (`$…$`) or display (`$$…$$`). An environment that is not
    /// whole is an error at its `\begin` or `\end` (math-core would say only that the input
    /// ended).
    pub fn render(&self, latex: &str, display: bool) -> Result<String, MathError> {
        environments(latex)?;
        let mode = if display { MathDisplay::Block } else { MathDisplay::Inline };
        self.conv.convert_with_local_state(latex, mode).map(|r| r.mathml).map_err(|e| MathError {
            span: e.0.clone(),
            message: e.error_message(),
            code: Code::LatexError,
        })
    }
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
