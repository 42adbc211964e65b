//! Diagnostics: problems a user can cause, as data with a file and a byte span, rendered
//! like a compiler's (the source line underlined, a hint saying what to do).
//!
//! Loading, checking and rendering collect diagnostics; only the CLI decides how to print
//! them and which exit code to use.

use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The build fails.
    Error,
    /// Reported; the build goes on (`--strict` findings, for instance, when not strict).
    Warning,
}

/// One problem at one place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file, as shown to the user (relative to the site root where possible).
    pub file: String,
    /// Byte range into the file's text; empty at a point. `0..0` when the whole file is
    /// meant (or the file could not be read).
    pub span: Range<usize>,
    /// One line saying what is wrong.
    pub message: String,
    /// Short text under the underline (may be empty).
    pub label: String,
    /// Hints and notes, each one line, shown after the source ("hint: ...").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span` of `file`.
    pub fn error(file: impl Into<String>, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, file: file.into(), span, message: message.into(), label: String::new(), notes: Vec::new() }
    }

    /// A warning at `span` of `file`.
    pub fn warning(file: impl Into<String>, span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(file, span, message) }
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

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// 1-based line and column of byte `offset` in `text`; the column counts Unicode scalar
/// values, so `’`, `—` and `⟨` are one column each. An offset past the end or inside a
/// character is clamped to the nearest character boundary before it.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// The texts of the files diagnostics point into, for rendering their source lines.
#[derive(Default, Clone, Debug)]
pub struct Sources {
    files: Vec<(String, String)>,
}

impl Sources {
    /// No files.
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Remember `text` as the contents of `name` (a later add of the same name wins).
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) {
        let name = name.into();
        let text = text.into();
        if let Some(slot) = self.files.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = text;
        } else {
            self.files.push((name, text));
        }
    }

    /// The text of `name`, if known.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.files.iter().find(|(n, _)| n == name).map(|(_, t)| t.as_str())
    }

    /// `file:line:column` of a diagnostic (line 1, column 1 when the file is unknown).
    pub fn position(&self, d: &Diagnostic) -> (usize, usize) {
        match self.get(&d.file) {
            Some(t) => line_col(t, d.span.start),
            None => (1, 1),
        }
    }

    /// Render `diags` as a compiler would, one after another, with colour when `color`.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let mut files = SimpleFiles::new();
        let mut ids = Vec::new();
        for (name, text) in &self.files {
            ids.push((name.clone(), files.add(name.clone(), text.clone())));
        }
        let mut buf = if color { termcolor::Buffer::ansi() } else { termcolor::Buffer::no_color() };
        let config = term::Config::default();
        for d in diags {
            let mut cs = match d.severity {
                Severity::Error => CsDiagnostic::error(),
                Severity::Warning => CsDiagnostic::warning(),
            }
            .with_message(d.message.clone());
            let mut notes = d.notes.clone();
            match ids.iter().find(|(n, _)| *n == d.file) {
                Some((_, id)) => {
                    let text = self.get(&d.file).unwrap_or("");
                    let mut span = d.span.start.min(text.len())..d.span.end.min(text.len());
                    while !text.is_char_boundary(span.start) {
                        span.start -= 1;
                    }
                    while !text.is_char_boundary(span.end) {
                        span.end += 1;
                    }
                    cs = cs.with_labels(vec![Label::primary(*id, span).with_message(d.label.clone())]);
                }
                None => notes.insert(0, format!("in {}", d.file)),
            }
            cs = cs.with_notes(notes);
            let _ = term::emit(&mut buf, &config, &files, &cs);
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }
}
