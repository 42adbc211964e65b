//! Figures: one drawing function per kind, shared by every essay.
//!
//! A ```` ```figure ```` block names a kind (`plot:`), the data (`from:`, a path into a
//! bound census result), a caption and alt text, and the kind's own options. Each kind is
//! a function `fn(&Value, &Options, &Meta) -> Result<Drawn, FigureError>` in its own file,
//! registered in [`KINDS`]. SVG kinds draw with plotters' SVG backend (no system fonts, so
//! output is byte-identical on every machine) and go through [`finish_svg`], which adds
//! `<title>`/`<desc>` and a style block that reads in light and dark themes.
//!
//! Adding a kind: write `figures/<kind>.rs` with a `draw` function, an options struct
//! (`#[serde(deny_unknown_fields)]`, parsed with [`options`]) and a [`Kind`] declaring
//! its data shape, each option (type, default, meaning) and an example, and add it to
//! [`KINDS`]. `countersign figures` prints those declarations ([`reference`]); a test
//! checks that they name every field the options struct reads. Extend an existing kind
//! rather than write a second one that does the same.

pub mod bars;
pub mod grid;
pub mod lines;
pub mod palette;
pub mod reference;
pub mod strip;
pub mod table;
pub mod trie;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use reference::{Kind, OptionDoc};

/// What a kind produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// An SVG document, written beside the page as `<figure id>.svg`.
    Svg(String),
    /// An HTML fragment (a table), inlined in the `<figure>`, and its text for the search
    /// index (the cells, row by row).
    Html {
        /// The fragment.
        html: String,
        /// Its cells' text, separated by spaces.
        text: String,
    },
}

/// Why a figure could not be drawn: the data has the wrong shape, or an option is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FigureError {
    /// What is wrong.
    pub message: String,
    /// The option key concerned, if any (the diagnostic points at its line).
    pub key: Option<String>,
    /// What to do.
    pub hint: String,
}

impl FigureError {
    /// An error about the data's shape.
    pub fn data(message: impl Into<String>, hint: impl Into<String>) -> FigureError {
        FigureError { message: message.into(), key: None, hint: hint.into() }
    }
}

/// The figure's caption, alt text and number, for kinds that write them into the output.
#[derive(Clone, Copy, Debug)]
pub struct Meta<'a> {
    /// The block's id.
    pub id: &'a str,
    /// The caption.
    pub caption: &'a str,
    /// The alt text.
    pub alt: &'a str,
    /// The figure's number in its essay, from 1.
    pub number: usize,
}

/// A figure kind's drawing function.
pub type DrawFn = fn(&Value, &Map<String, Value>, &Meta) -> Result<Drawn, FigureError>;

/// Every figure kind, by the name a block's `plot:` gives, with its reference.
pub static KINDS: &[Kind] = &[grid::KIND, bars::KIND, strip::KIND, trie::KIND, table::KIND, lines::KIND];

/// The kind called `kind`.
pub fn lookup_kind(kind: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == kind)
}

/// The drawing function for `kind`.
pub fn lookup(kind: &str) -> Option<DrawFn> {
    lookup_kind(kind).map(|k| k.draw)
}

/// Deserialize `kind`'s options from the block's remaining keys. A key `kind` does not
/// document is refused first, naming the options it has; a wrong type is a
/// [`FigureError`] naming the key. Every hint points at `countersign figures KIND`.
pub fn options<T: DeserializeOwned>(opts: &Map<String, Value>, kind: &Kind) -> Result<T, FigureError> {
    if let Some(k) = opts.keys().find(|k| kind.option(k).is_none()) {
        let known: Vec<&str> = kind.options.iter().map(|o| o.name).collect();
        return Err(FigureError {
            message: format!("`plot: {}` has no option `{k}`; its options are {}", kind.name, known.join(", ")),
            key: Some(k.clone()),
            hint: reference::see(kind.name),
        });
    }
    serde_json::from_value(Value::Object(opts.clone())).map_err(|e| {
        let mut msg = e.to_string();
        let mut key = msg.split('`').nth(1).map(str::to_string).filter(|k| opts.contains_key(k));
        // A wrong type ("invalid type: string \"x\", expected a boolean") names no key: find
        // the key whose removal changes the error, and name it.
        if key.is_none() {
            key = opts
                .keys()
                .find(|k| {
                    let mut m = opts.clone();
                    m.remove(k.as_str());
                    serde_json::from_value::<T>(Value::Object(m)).err().map(|e2| e2.to_string()) != Some(msg.clone())
                })
                .cloned();
            if let Some(k) = &key {
                msg = format!("`{k}`: {msg}");
            }
        }
        let hint = match key.as_deref().and_then(|k| kind.option(k)) {
            Some(o) => format!("`{}` is {}: {}; {}", o.name, o.ty, o.meaning, reference::see(kind.name)),
            None => reference::see(kind.name),
        };
        FigureError { message: msg, key, hint }
    })
}

use countersign_core::text::escape_html as xml_escape;

/// Finish an SVG drawn by plotters: add `role="img"`, `<title>` (the caption) and `<desc>`
/// (the alt text), and a style block mapping the palette's ink colours to ones that read
/// on light and dark backgrounds (`prefers-color-scheme`).
pub fn finish_svg(svg: &str, meta: &Meta) -> String {
    let Some(open_end) = svg.find("<svg").and_then(|s| svg[s..].find('>').map(|e| s + e)) else {
        return svg.to_string();
    };
    let style = format!(
        "<style>[fill=\"{ink}\"]{{fill:#1f2328}}[stroke=\"{ink}\"]{{stroke:#1f2328}}\
         [fill=\"{faint}\"]{{fill:#59636e}}[stroke=\"{faint}\"]{{stroke:#8c959f}}\
         @media (prefers-color-scheme: dark){{[fill=\"{ink}\"]{{fill:#e6edf3}}[stroke=\"{ink}\"]{{stroke:#e6edf3}}\
         [fill=\"{faint}\"]{{fill:#9198a1}}[stroke=\"{faint}\"]{{stroke:#6e7681}}}}</style>",
        ink = palette::INK_HEX,
        faint = palette::FAINT_HEX
    );
    let head = &svg[..open_end];
    let head = if head.contains("role=") {
        head.to_string()
    } else {
        format!("{head} role=\"img\" aria-labelledby=\"{id}-title {id}-desc\"", id = xml_escape(meta.id))
    };
    format!(
        "{head}><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>{style}{}",
        xml_escape(meta.caption),
        xml_escape(meta.alt),
        &svg[open_end + 1..],
        id = xml_escape(meta.id)
    )
}

/// The numbers of a JSON value that must be a number or a ratio (`{"num": n, "den": d}`, the census crate's `Ratio`)
/// object, as `f64` for drawing; `None` for null.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Object(m) => {
            let n = m.get("num")?.as_f64()?;
            let d = m.get("den")?.as_f64()?;
            (d != 0.0).then_some(n / d)
        }
        _ => None,
    }
}
