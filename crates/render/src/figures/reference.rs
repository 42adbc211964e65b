//! The figure reference: what each kind draws and the options it takes, declared as data
//! beside the drawing code, so the docs `countersign figures` prints cannot drift from it.
//!
//! Each kind declares a [`Kind`]: its data shape, an [`OptionDoc`] per option, and an
//! example block with example data. The option parser ([`super::options`]) refuses any key
//! the table lacks, naming the documented ones; a test compares each table with the
//! fields its options struct deserializes, and draws every example.

use std::fmt::Write as _;

use super::DrawFn;

/// One option of a figure kind, as `countersign figures` documents it.
#[derive(Clone, Copy, Debug)]
pub struct OptionDoc {
    /// The key in the figure block.
    pub name: &'static str,
    /// Its type as an author writes it (`string`, `bool`, `number`, `list of strings`, …).
    pub ty: &'static str,
    /// What it is when left out.
    pub default: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

/// A figure kind: its name, drawing function and reference.
#[derive(Clone, Copy)]
pub struct Kind {
    /// The name a block's `plot:` gives.
    pub name: &'static str,
    /// The drawing function.
    pub draw: DrawFn,
    /// One line: what the figure shows.
    pub summary: &'static str,
    /// The shape of the data `from:` must lead to.
    pub data: &'static str,
    /// Every option the kind reads, in the order documented.
    pub options: &'static [OptionDoc],
    /// The keys of an example block after `plot:` (one `key: value` per line).
    pub example: &'static str,
    /// Data the example draws, as JSON (tests draw every example with it).
    pub example_data: &'static str,
    /// The fields the kind's options struct deserializes (for the test that every one is
    /// documented); see [`fields`].
    pub fields: fn() -> &'static [&'static str],
}

impl Kind {
    /// The documented option called `name`.
    pub fn option(&self, name: &str) -> Option<&'static OptionDoc> {
        self.options.iter().find(|o| o.name == name)
    }
}

/// The hint every figure diagnostic ends with: where the kind is documented.
pub fn see(kind: &str) -> String {
    format!("`countersign figures {kind}` documents its data and options")
}

/// The names that exist, for a hint: "present: a, b" or "the data has none" (never an
/// empty list).
pub fn present(what: &str, names: &[String]) -> String {
    if names.is_empty() {
        format!("the data has no {what} at all")
    } else {
        format!("{what} present: {}", names.join(", "))
    }
}

/// The reference of one kind, or of every kind when `kind` is `None`; an unknown kind
/// is `Err` with a message naming the kinds.
pub fn reference(kind: Option<&str>) -> Result<String, String> {
    let kinds = super::KINDS;
    let chosen: Vec<&Kind> = match kind {
        None => kinds.iter().collect(),
        Some(k) => match super::lookup_kind(k) {
            Some(found) => vec![found],
            None => return Err(format!("no figure kind `{k}`; the kinds are {}", names().join(", "))),
        },
    };
    let mut out = String::new();
    if kind.is_none() {
        out.push_str("Figure kinds (a ```figure block's `plot:`). Every block also has id, from, plot, caption and alt.\n\n");
    }
    for k in chosen {
        write_kind(&mut out, k);
    }
    Ok(out)
}

/// Every kind's name, in registry order.
pub fn names() -> Vec<&'static str> {
    super::KINDS.iter().map(|k| k.name).collect()
}

fn write_kind(out: &mut String, k: &Kind) {
    let _ = writeln!(out, "plot: {} — {}\n", k.name, k.summary);
    let _ = writeln!(out, "  data: {}\n", k.data);
    out.push_str("  options:\n");
    for o in k.options {
        let _ = writeln!(out, "    {} ({}, default {}): {}", o.name, o.ty, o.default, o.meaning);
    }
    out.push_str("\n  example:\n    ```figure\n    id: example\n    from: result.path\n");
    let _ = writeln!(out, "    plot: {}", k.name);
    for line in k.example.lines() {
        let _ = writeln!(out, "    {line}");
    }
    out.push_str("    caption: What the figure shows.\n    alt: What a reader who cannot see it should know.\n    ```\n");
    let _ = writeln!(out, "  with data like: {}\n", k.example_data);
}

/// The field names `T`'s derived `Deserialize` asks for (what its code can read), by
/// asking it to deserialize from a deserializer that only records them.
pub fn fields<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(FieldNames) {
        Err(Fields(f)) => f,
        Ok(_) => &[],
    }
}

/// The error [`FieldNames`] stops with, carrying the struct's field names.
#[derive(Debug)]
struct Fields(&'static [&'static str]);

impl std::fmt::Display for Fields {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fields {:?}", self.0)
    }
}

impl std::error::Error for Fields {}

impl serde::de::Error for Fields {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Fields(&[])
    }
}

/// A deserializer that answers `deserialize_struct` with its field names and nothing else.
struct FieldNames;

impl<'de> serde::Deserializer<'de> for FieldNames {
    type Error = Fields;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Fields> {
        Err(Fields(&[]))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Fields> {
        Err(Fields(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::{Meta, KINDS};

    /// Every kind in the registry, and every option its code reads (each field of its
    /// options struct), is in the reference; the table documents nothing the code lacks.
    #[test]
    fn every_kind_and_every_option_it_reads_is_documented() {
        let all = reference(None).unwrap();
        assert!(KINDS.len() >= 6);
        for k in KINDS {
            assert!(all.contains(&format!("plot: {} — ", k.name)), "{} missing from the reference", k.name);
            let read: Vec<&str> = (k.fields)().to_vec();
            assert!(!read.is_empty(), "{}: no fields found in its options struct", k.name);
            let documented: Vec<&str> = k.options.iter().map(|o| o.name).collect();
            let mut a = read.clone();
            let mut b = documented.clone();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{}: the options its code reads (left) and the documented ones (right) differ", k.name);
            let one = reference(Some(k.name)).unwrap();
            for o in k.options {
                assert!(one.contains(&format!("    {} (", o.name)), "{}: option {} missing", k.name, o.name);
                assert!(!o.meaning.is_empty() && !o.ty.is_empty() && !o.default.is_empty(), "{}.{}", k.name, o.name);
            }
        }
    }

    /// Every example block draws from its example data, with the options it shows.
    #[test]
    fn every_example_draws() {
        for k in KINDS {
            let opts: serde_json::Value = countersign_core::yaml::from_str(k.example).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            let opts = opts.as_object().cloned().unwrap_or_default();
            let data: serde_json::Value = serde_json::from_str(k.example_data).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            let meta = Meta { id: "example", caption: "C", alt: "A", number: 1 };
            if let Err(e) = (k.draw)(&data, &opts, &meta) {
                panic!("{}: the example does not draw: {} ({})", k.name, e.message, e.hint);
            }
        }
    }

    #[test]
    fn an_unknown_kind_names_the_kinds() {
        let e = reference(Some("pie")).unwrap_err();
        assert!(e.contains("grid") && e.contains("lines"), "{e}");
    }

    #[test]
    fn present_never_lists_nothing() {
        assert_eq!(present("series", &[]), "the data has no series at all");
        assert_eq!(present("series", &["a".into(), "b".into()]), "series present: a, b");
    }
}
