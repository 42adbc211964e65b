//! The site configuration, `countersign.yaml` at the site root.
//!
//! ```yaml
//! title: Positions and their values     # the site's title
//! base_url: https://example.org/essays  # canonical URLs, the feed and the sitemap
//! budget: 200000000000                  # largest census cost (elementary steps) a build runs
//! math:
//!   macros:                             # LaTeX macros for every essay's math
//!     xor: \oplus
//! planned: [The move that gives counters back]   # essays linked to before they exist
//! ladders:                              # a ladder's title, by its anchor
//!   held-pass: Holding the pass         # (default: the anchor, capitalised: "Held pass")
//! claim_marks: hover                    # claims underlined only on hover or focus
//!                                       # (default: underline, always dotted-underlined)
//! ```
//!
//! Every key is optional; a folder of essays with no config builds with the defaults.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::diag::{Code, Diagnostic};

/// The default census budget: 2·10^11 elementary steps (a few minutes of one core).
pub const DEFAULT_BUDGET: u64 = 200_000_000_000;

/// Math settings.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct MathConfig {
    /// LaTeX macros, name (without backslash) → expansion (`#1` for arguments).
    #[serde(default)]
    pub macros: BTreeMap<String, String>,
}

/// How the claims in an essay's text are marked (`claim_marks:`); the page's `<body>`
/// carries it as `data-claim-marks`, which `static/style.css` reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimMarks {
    /// Every claim has a dotted underline in the claim colour.
    #[default]
    Underline,
    /// A claim shows its underline only while hovered or focused; at rest it is told from
    /// the text around it by a colour at 3:1 contrast to the text (WCAG technique G183).
    Hover,
}

/// The site configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct Config {
    /// The site's title.
    #[serde(default = "default_title")]
    pub title: String,
    /// Absolute URL the site is served from, without a trailing slash.
    #[serde(default)]
    pub base_url: String,
    /// One line describing the site, for the index and the feed.
    #[serde(default)]
    pub description: String,
    /// Largest census cost a build runs; calls estimated above it are refused.
    #[serde(default = "default_budget")]
    pub budget: u64,
    /// Math settings.
    #[serde(default)]
    pub math: MathConfig,
    /// Titles of essays that may be linked to before they exist.
    #[serde(default)]
    pub planned: Vec<String>,
    /// Ladder titles by anchor (`held-pass: Holding the pass`); a ladder not named here
    /// is titled from its anchor (see `render::ladder_title`).
    #[serde(default)]
    pub ladders: BTreeMap<String, String>,
    /// How claims are marked in the text.
    #[serde(default)]
    pub claim_marks: ClaimMarks,
    /// Drafts a publishing build leaves out, by title: (file, span of its `draft` key).
    /// Not read from the file: `pipeline` fills it, and links to them render as links to
    /// planned essays do.
    #[serde(skip)]
    pub drafts_left_out: BTreeMap<String, (String, Range<usize>)>,
    /// Where the planned titles and the macros are written in the file, for diagnostics.
    #[serde(skip)]
    pub spans: Spans,
}

/// Byte ranges in `countersign.yaml` of values that diagnostics point at, from the YAML
/// index; a value the index cannot place is missing here and its diagnostic points at
/// its key instead, or at the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    /// Each planned title's item under `planned:` (its first, if written twice).
    pub planned: BTreeMap<String, Range<usize>>,
    /// Each macro name's key under `math:` / `macros:`.
    pub macros: BTreeMap<String, Range<usize>>,
}

impl Spans {
    /// Place the planned titles and macro names of `config` by the index of its text.
    fn locate(ix: &crate::yaml::Index, config: &Config) -> Spans {
        let mut spans = Spans::default();
        if let Some(key) = ix.key(&["planned"]) {
            for (i, t) in config.planned.iter().enumerate() {
                let span = ix.value(&["planned", &i.to_string()]).unwrap_or(key.clone());
                spans.planned.entry(t.clone()).or_insert(span);
            }
        }
        if let Some(key) = ix.key(&["math", "macros"]) {
            for name in config.math.macros.keys() {
                spans.macros.insert(name.clone(), ix.key(&["math", "macros", name]).unwrap_or(key.clone()));
            }
        }
        spans
    }

    /// The span of `title` under `planned:`, or an empty one at the start of the file.
    pub fn planned(&self, title: &str) -> Range<usize> {
        self.planned.get(title).cloned().unwrap_or(0..0)
    }

    /// The span of macro `name` under `math.macros`, or an empty one at the start.
    pub fn macro_name(&self, name: &str) -> Range<usize> {
        self.macros.get(name).cloned().unwrap_or(0..0)
    }
}

fn default_title() -> String {
    "Essays".into()
}

fn default_budget() -> u64 {
    DEFAULT_BUDGET
}

impl Default for Config {
    fn default() -> Self {
        crate::yaml::from_str("{}").expect("defaults")
    }
}

/// File name of the configuration at the site root.
pub const FILE: &str = "countersign.yaml";

impl Config {
    /// Parse the text of `countersign.yaml` (the site crate reads the file; empty text
    /// gives the defaults). Errors (bad YAML, unknown keys) are a diagnostic at their line.
    pub fn parse(text: &str) -> Result<Config, Box<Diagnostic>> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        match crate::yaml::parse::<Config>(text) {
            Ok((mut c, ix)) => {
                if !c.base_url.is_empty() {
                    match base_url(&c.base_url) {
                        Ok(u) => c.base_url = u,
                        Err(why) => {
                            let at = ix.key(&["base_url"]).unwrap_or(0..0);
                            return Err(Box::new(
                                Diagnostic::error(Code::BadConfig, FILE, at, format!("base_url: {why}"))
                                    .with_hint("write the address the site is served from, e.g. base_url: https://example.org/essays"),
                            ));
                        }
                    }
                }
                c.spans = Spans::locate(&ix, &c);
                Ok(c)
            }
            Err(e) => {
                let at = match (e.line, e.column) {
                    (Some(l), Some(col)) => crate::content::offset_of(text, l, col),
                    _ => 0,
                };
                Err(Box::new(
                    Diagnostic::error(
                        Code::BadConfig,
                        FILE,
                        crate::content::char_span(text, at),
                        format!("in the site configuration: {}", e.message),
                    )
                    .with_hint(
                        "keys: title, base_url, description, budget, math.macros, planned, ladders, claim_marks (underline or hover)",
                    ),
                ))
            }
        }
    }
}

/// Check a `base_url` (from `countersign.yaml` or `build --base-url`) and return it with
/// any trailing `/` removed: an `http` or `https` URL (the scheme in any case) with a
/// host, no query or fragment (pages' addresses are made by appending paths to it), and
/// no character that cannot stand in an XML document or a URL as written (space, control
/// characters, noncharacters). Errors: a sentence saying what is wrong.
pub fn base_url(url: &str) -> Result<String, String> {
    let lower = url.get(..8).map(str::to_ascii_lowercase).unwrap_or_default();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err(format!("`{}` is not an http or https URL with a host, e.g. https://example.org/essays", url.escape_debug()));
    };
    let unusable = |c: char| c.is_whitespace() || c.is_control() || matches!(c as u32, 0xFDD0..=0xFDEF) || (c as u32 & 0xFFFE) == 0xFFFE;
    if let Some(c) = url.chars().find(|&c| unusable(c)) {
        return Err(format!("`{}` holds {:?}, which a URL cannot hold as written", url.escape_debug(), c));
    }
    if let Some(c) = url.chars().find(|&c| c == '?' || c == '#') {
        return Err(format!(
            "`{url}` has a {}; a base URL is a folder that pages' paths are appended to",
            if c == '?' { "query" } else { "fragment" }
        ));
    }
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Err(format!("`{url}` is not an http or https URL with a host, e.g. https://example.org/essays"));
    }
    Ok(url.trim_end_matches('/').to_string())
}

#[cfg(test)]
mod base_url_tests {
    use super::*;

    #[test]
    fn base_urls_are_http_with_a_host_and_nothing_a_page_address_cannot_extend() {
        for (url, want) in [
            ("https://example.org/essays/", "https://example.org/essays"),
            ("HTTP://E.ORG", "HTTP://E.ORG"),
            ("https://e.org:8080/a%20b", "https://e.org:8080/a%20b"),
            ("https://été.example/ü", "https://été.example/ü"),
        ] {
            assert_eq!(base_url(url).as_deref(), Ok(want), "{url}");
        }
        for url in [
            "example.org",
            "https://",
            "https:///x",
            "ftp://x.org",
            "javascript:alert(1)",
            "https://e.org/\u{1}",
            "https://e.org/\u{FFFE}",
            "https://e.org/\u{FDD0}",
            "https://e.org/a b",
            "https://e.org/a?q=1",
            "https://e.org/#top",
            "https://:80/",
        ] {
            assert!(base_url(url).is_err(), "{url:?} was accepted");
        }
    }

    #[test]
    fn a_base_url_in_the_configuration_is_checked_at_its_key() {
        let e = Config::parse("title: T\nbase_url: javascript:alert(1)\n").unwrap_err();
        assert_eq!(e.code, Code::BadConfig);
        assert_eq!(e.span, 9..17);
        assert_eq!(Config::parse("base_url: https://e.org/x/\n").unwrap().base_url, "https://e.org/x");
    }
}
