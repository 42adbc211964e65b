//! The static search index, `search-index.json`: one record per essay (slug, title,
//! summary, and the body's text with tags and math removed), read by `static/search.js`
//! in the reader's browser. No external service.

use serde_json::{json, Value};

/// The text of rendered HTML: tags dropped, `<math>` and `<svg>` elements dropped whole,
/// the common entities decoded, whitespace collapsed.
pub fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(a) = rest.find('<') {
        out.push_str(&rest[..a]);
        let after = &rest[a..];
        // A claim's certificate (a tooltip) is not the essay's text; it holds no element
        // of its own kind, so its first `</span></span></span>` closes it.
        let certificate =
            after.starts_with("<span class=\"certificate\"").then(|| after.find("</span></span></span>").map(|e| e + 21)).flatten();
        let skip_to = certificate.or_else(|| {
            ["<math", "<svg"].iter().find(|t| after.starts_with(**t)).and_then(|t| {
                let close = format!("</{}>", &t[1..]);
                after.find(&close).map(|e| e + close.len())
            })
        });
        match skip_to {
            Some(e) => {
                out.push(' ');
                rest = &after[e..];
            }
            None => match after.find('>') {
                Some(e) => {
                    out.push(' ');
                    rest = &after[e + 1..];
                }
                None => {
                    rest = "";
                }
            },
        }
    }
    out.push_str(rest);
    let out = out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One essay's record.
pub fn record(slug: &str, title: &str, summary: Option<&str>, body_html: &str) -> Value {
    json!({ "slug": slug, "title": title, "summary": summary.unwrap_or(""), "text": text_of(body_html) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_drops_tags_and_math() {
        let t = text_of("<p>Welter&#39;s <em>game</em> <math><mi>x</mi></math> is <a href=\"#c\">523</a>.</p>\n<h2 id=\"x\">Next</h2>");
        assert_eq!(t, "Welter's game is 523 . Next");
    }

    #[test]
    fn a_claims_certificate_is_not_body_text() {
        let html = "<p>a <span class=\"claimed\"><a class=\"claim\" href=\"#calls-g\">half</a><span class=\"certificate\" role=\"tooltip\" id=\"c\">\
                    <span class=\"cert-census\">census <b>x.y</b> (g)</span> <span class=\"cert-path\">path <code>g.a / g.b</code></span> \
                    <span class=\"cert-value\">value <b>255 of 495</b></span></span></span> of them</p>";
        assert_eq!(text_of(html), "a half of them");
    }
}
