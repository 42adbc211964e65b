//! The Atom feed (`feed.xml`) and `sitemap.xml`.
//!
//! Dates come from the essays' front matter (`date: YYYY-MM-DD`), never from the clock,
//! so two builds of the same sources give the same bytes; an essay without a date is left
//! out of the feed. URLs are absolute under `base_url`; with no `base_url` the feed uses
//! relative links and `urn:` ids, and there is no sitemap (the protocol wants absolute
//! URLs).

use super::markdown::escape;

/// What the feed and sitemap need of one essay.
#[derive(Clone, Debug)]
pub struct FeedEssay {
    /// Slug (the page is `/<slug>/`).
    pub slug: String,
    /// Title.
    pub title: String,
    /// Summary, if any.
    pub summary: Option<String>,
    /// `YYYY-MM-DD`, if any.
    pub date: Option<String>,
}

fn url(base: &str, path: &str) -> String {
    if base.is_empty() {
        path.to_string()
    } else {
        format!("{base}/{path}")
    }
}

/// The Atom feed: newest first (by date, then slug), `updated` the newest entry's date.
pub fn atom(title: &str, description: &str, base_url: &str, essays: &[FeedEssay]) -> String {
    let mut dated: Vec<&FeedEssay> = essays.iter().filter(|e| e.date.is_some()).collect();
    dated.sort_by(|a, b| b.date.cmp(&a.date).then(a.slug.cmp(&b.slug)));
    let updated = dated.first().and_then(|e| e.date.clone()).unwrap_or_else(|| "1970-01-01".into());
    let site_id = if base_url.is_empty() { "urn:countersign:site".to_string() } else { format!("{base_url}/") };
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("<title>{}</title>\n", escape(title)));
    if !description.is_empty() {
        s.push_str(&format!("<subtitle>{}</subtitle>\n", escape(description)));
    }
    s.push_str(&format!(
        "<link rel=\"self\" href=\"{}\"/>\n<link href=\"{}\"/>\n",
        escape(&url(base_url, "feed.xml")),
        escape(&url(base_url, ""))
    ));
    s.push_str(&format!(
        "<id>{}</id>\n<updated>{updated}T00:00:00Z</updated>\n<author><name>{}</name></author>\n",
        escape(&site_id),
        escape(title)
    ));
    for e in dated {
        let link = url(base_url, &format!("{}/", e.slug));
        let id = if base_url.is_empty() { format!("urn:countersign:essay:{}", e.slug) } else { link.clone() };
        let date = e.date.clone().unwrap_or_default();
        s.push_str(&format!(
            "<entry>\n<title>{}</title>\n<link href=\"{}\"/>\n<id>{}</id>\n<published>{date}T00:00:00Z</published>\n<updated>{date}T00:00:00Z</updated>\n",
            escape(&e.title),
            escape(&link),
            escape(&id)
        ));
        if let Some(sum) = &e.summary {
            s.push_str(&format!("<summary>{}</summary>\n", escape(sum)));
        }
        s.push_str("</entry>\n");
    }
    s.push_str("</feed>\n");
    s
}

/// The sitemap: the index, every essay and every extra page (paths like `welter/`).
/// None when there is no `base_url`.
pub fn sitemap(base_url: &str, essays: &[FeedEssay], extra: &[String]) -> Option<String> {
    if base_url.is_empty() {
        return None;
    }
    let mut s =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    s.push_str(&format!("<url><loc>{}</loc></url>\n", escape(&url(base_url, ""))));
    for p in extra {
        s.push_str(&format!("<url><loc>{}</loc></url>\n", escape(&url(base_url, p))));
    }
    for e in essays {
        s.push_str(&format!("<url><loc>{}</loc>", escape(&url(base_url, &format!("{}/", e.slug)))));
        if let Some(d) = &e.date {
            s.push_str(&format!("<lastmod>{}</lastmod>", escape(d)));
        }
        s.push_str("</url>\n");
    }
    s.push_str("</urlset>\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn essays() -> Vec<FeedEssay> {
        vec![
            FeedEssay { slug: "a".into(), title: "A & B".into(), summary: Some("s".into()), date: Some("2026-01-02".into()) },
            FeedEssay { slug: "b".into(), title: "B".into(), summary: None, date: Some("2026-03-04".into()) },
            FeedEssay { slug: "c".into(), title: "Undated".into(), summary: None, date: None },
        ]
    }

    #[test]
    fn feed_dates_come_from_front_matter() {
        let f = atom("T", "D", "https://x.org/s", &essays());
        assert!(f.contains("<updated>2026-03-04T00:00:00Z</updated>\n<author>"), "{f}");
        assert!(f.find("https://x.org/s/b/").unwrap_or(usize::MAX) < f.find("https://x.org/s/a/").unwrap_or(0), "newest first");
        assert!(f.contains("<title>A &amp; B</title>"));
        assert!(!f.contains("Undated"));
        assert_eq!(f, atom("T", "D", "https://x.org/s", &essays()), "deterministic");
    }

    #[test]
    fn sitemap_needs_a_base_url() {
        assert!(sitemap("", &essays(), &[]).is_none());
        let s = sitemap("https://x.org", &essays(), &["welter/".into()]).unwrap_or_default();
        assert!(s.contains("<loc>https://x.org/welter/</loc>"));
        assert!(s.contains("<loc>https://x.org/a/</loc><lastmod>2026-01-02</lastmod>"));
    }
}
