//! LaTeX math to MathML at build time (math-core), with the site's macros.

use std::collections::BTreeMap;
use std::ops::Range;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};

/// A converter configured with the site's macros.
pub struct Math {
    conv: LatexToMathML,
}

/// A LaTeX error: the byte range within the LaTeX text, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MathError {
    /// Byte range within the LaTeX source given.
    pub span: Range<usize>,
    /// What math-core said.
    pub message: String,
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

    /// MathML for `latex`, inline (`$…$`) or display (`$$…$$`).
    pub fn render(&self, latex: &str, display: bool) -> Result<String, MathError> {
        let mode = if display { MathDisplay::Block } else { MathDisplay::Inline };
        self.conv
            .convert_with_local_state(latex, mode)
            .map(|r| r.mathml)
            .map_err(|e| MathError { span: e.0.clone(), message: e.error_message() })
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
}
