//! The static search index, `search-index.json`: one record per essay (slug, title,
//! summary, and the body's plain text collected from the Markdown events), read by `static/search.js`
//! in the reader's browser. No external service.

use serde_json::{json, Value};

/// One essay's record: `text` is its body's plain text as rendering collected it from
/// the Markdown events ([`crate::links::Resolved::text`]), here with runs of whitespace
/// made one space.
pub fn record(slug: &str, title: &str, summary: Option<&str>, text: &str) -> Value {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    json!({ "slug": slug, "title": title, "summary": summary.unwrap_or(""), "text": text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_collapses_whitespace() {
        let r = record("s", "T", None, "  a \n\n b\tc ");
        assert_eq!(r["text"], "a b c");
        assert_eq!(r["summary"], "");
    }
}
