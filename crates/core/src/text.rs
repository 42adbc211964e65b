//! Text helpers shared by loading and rendering: the one HTML escaper, heading ids
//! (links by title compare them, so loading needs them as much as rendering does), and the
//! one count of a noun in messages.

/// Escape text for HTML and XML, in content and in quoted attributes: `&`, `<`, `>`, `"`
/// and `'` become `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`; everything else is kept.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `n` and `noun`, with an `s` unless `n` is 1: "1 essay", "0 essays", "2 essays". For
/// nouns whose plural is a plain `s` (every noun a message of countersign counts).
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A heading id from its text: lower case, letters and digits kept, runs of anything else
/// one `-` (GitHub style).
pub fn heading_id(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_end_matches('-').to_string();
    if t.is_empty() {
        "section".into()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_markup_character_is_escaped_including_the_apostrophe() {
        assert_eq!(super::escape_html(r#"<a href="x" title='y'>&</a>"#), "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    }

    #[test]
    fn a_count_is_singular_only_for_one() {
        assert_eq!(super::count(0, "essay"), "0 essays");
        assert_eq!(super::count(1, "essay"), "1 essay");
        assert_eq!(super::count(2, "stated value"), "2 stated values");
    }
}
