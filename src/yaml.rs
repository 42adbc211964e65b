//! The one module that touches `serde_yaml` (archived upstream): every YAML read in the
//! crate goes through [`from_str`], so replacing the parser is a change to this file.

use serde::de::DeserializeOwned;

/// Refuse YAML documents larger than this many bytes (front matter and directive blocks
/// are small; this bounds alias expansion and parser work on hostile input).
pub const MAX_YAML_BYTES: usize = 256 * 1024;

/// A YAML error with its position, 1-based, within the text that was parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// The parser's or deserializer's message, without its own "at line" suffix.
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
            message: format!("YAML of {} bytes is over the limit of {MAX_YAML_BYTES}", text.len()),
            line: Some(1),
            column: Some(1),
        });
    }
    serde_yaml::from_str(text).map_err(|e| {
        let loc = e.location();
        let mut message = e.to_string();
        // serde_yaml appends " at line L column C"; the caller shows the position itself.
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        YamlError {
            message,
            line: loc.as_ref().map(|l| l.line()),
            column: loc.as_ref().map(|l| l.column()),
        }
    })
}
