//! `countersign new NAME`: a new site in the folder NAME, ready to build at once.
//!
//! It writes `countersign.yaml` (title, base_url, description), `essays/first-essay.md`
//! (front matter, one `welter.census` block with small parameters, claims, a figure-free
//! body, and a section whose census is the site's own: `censuses/subtraction.py`, a Python
//! script declared in `censuses/subtraction.grundy.yaml`), a one-entry `references.yaml`
//! cited by the essay, and a `.gitignore` for the
//! output and the cache. Templates and styles are built into the binary; copy files into
//! `templates/` or `static/` only to override them. Refuses a folder that exists and is
//! not empty, so it never overwrites anything.

use std::path::Path;

/// The files of a new site: (relative path, text). `title` goes into the config.
pub fn files(title: &str) -> Vec<(&'static str, String)> {
    let title_yaml = serde_json::to_string(title).unwrap_or_else(|_| "\"Essays\"".into());
    vec![
        (
            "countersign.yaml",
            format!(
                "title: {title_yaml}\n# Where the site will be served from (canonical URLs, the feed, the sitemap).\nbase_url: https://example.org\ndescription: Essays whose numbers are recomputed at every build.\n"
            ),
        ),
        ("essays/first-essay.md", format!("{ESSAY}{SITE_CENSUS_SECTION}")),
        ("censuses/subtraction.grundy.yaml", SITE_CENSUS_DECLARATION.to_string()),
        ("censuses/subtraction.py", SITE_CENSUS_SCRIPT.to_string()),
        ("references.yaml", REFERENCES.to_string()),
        (".gitignore", "public/\n.countersign-cache/\n".to_string()),
    ]
}

const ESSAY: &str = r#"---
title: A first essay
anchor: welter
rung: 1
date: 2026-01-01
summary: Welter's game on a short strip, every number checked by the build.
---

In Welter's game [@welter1954] each coin sits on its own square of a strip and a move slides
one coin down to an empty square. This census looks at every position of two coins, and of
{{ plain three }}, on the first {{ plain 8 }} squares.

```census
id: small
run: welter.census
with: { coins: { 2: 8, 3: 8 } }
```

Of the {{ small.positions_total = 84 }} positions, Conway's closed form gives the Grundy
value of all {{ small.closed_form_right = 84 }}, while the plain nim-sum of the squares is
right on {{ small.nim_sum_right = 0 }} of them: not a single one.

Change a number above and run `countersign check`: the build refuses it, pointing at the
number. `countersign check --bless` writes the computed value back.
"#;

/// The essay's section on a census the site brings with it (README, "Site censuses").
const SITE_CENSUS_SECTION: &str = r#"
## A game of your own

A game need not be built in to be counted. This site brings its own census: the Python
script `censuses/subtraction.py`, declared in `censuses/subtraction.grundy.yaml`. In its
subtraction game a move takes {{ plain 1 }}, {{ plain 3 }} or {{ plain 4 }} counters from
a heap, and the script finds the Grundy value of each heap and the period of the sequence.

```census
id: subtraction
run: subtraction.grundy
with: { heaps: 30 }
```

The values repeat with period {{ subtraction.period = 7 }} from the empty heap on, in the
block {{ subtraction.block = 0, 1, 0, 1, 2, 3 and 2 }}.

Change the moves in the script to `(1, 3, 5)` and run `countersign check`, or save the
script while `countersign watch` runs: the census runs again and both claims fail.
`countersign check --bless` writes the new values back.
"#;

/// The declaration of the new site's own census.
const SITE_CENSUS_DECLARATION: &str = include_str!("scaffold/subtraction.grundy.yaml");

/// The new site's own census: Grundy values of a subtraction game, in Python.
const SITE_CENSUS_SCRIPT: &str = include_str!("scaffold/subtraction.py");

const REFERENCES: &str = r#"# The bibliography, in hayagriva's YAML format; cite with [@key].
welter1954:
  type: article
  title: The theory of a class of games on a sequence of squares, in terms of the advancing operation in a special group
  author: Welter, C. P.
  date: 1954
  parent:
    type: periodical
    title: Indagationes Mathematicae
    volume: 16
  page-range: 194-200
"#;

/// Create the site in `dir` (its last component is the title). Errors name the path.
pub fn create(dir: &Path) -> Result<Vec<String>, String> {
    if dir.exists() {
        let empty = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?.next().is_none();
        if !empty {
            return Err(format!("{} exists and is not empty; choose a new folder", dir.display()));
        }
    }
    let title = dir.file_name().map(|n| n.to_string_lossy().to_string()).filter(|n| !n.is_empty()).unwrap_or_else(|| "Essays".into());
    let mut written = Vec::new();
    for (rel, text) in files(&title) {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(rel.to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_site_census_is_the_fixture_census() {
        // tests/site_censuses.rs edits and blesses the fixture; it must be what `new` writes.
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sites/ext-census-subtraction/censuses/");
        assert_eq!(std::fs::read_to_string(format!("{fixture}subtraction.py")).unwrap(), SITE_CENSUS_SCRIPT);
        assert_eq!(std::fs::read_to_string(format!("{fixture}subtraction.grundy.yaml")).unwrap(), SITE_CENSUS_DECLARATION);
    }

    #[test]
    fn a_new_site_builds_at_once_and_passes_strict() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("my-essays");
        let written = create(&dir).expect("scaffold");
        assert!(written.contains(&"essays/first-essay.md".to_string()));
        let run =
            crate::pipeline::run(&crate::pipeline::RunOptions { root: dir.clone(), use_cache: false, progress: false, render: true }, None);
        let errors: Vec<String> = run.diags.iter().map(|d| format!("{}: {}", d.file, d.message)).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let strict = crate::strict::findings(&run.loaded.essays, None);
        assert!(strict.is_empty(), "{:?}", strict.iter().map(|d| &d.message).collect::<Vec<_>>());
        let reports = &run.checked.as_ref().expect("checked").reports[0];
        assert!(reports.iter().filter(|r| r.kind == "check").count() >= 3);
        let out = run.output.expect("output");
        let page = String::from_utf8(out.files.get("first-essay/index.html").cloned().expect("essay page")).expect("utf-8");
        assert!(page.contains("href=\"#calls-small\""), "claims link to provenance");
        assert!(page.contains("id=\"ref-welter1954\""), "the citation is listed");
        assert!(out.files.contains_key("welter/index.html") && out.files.contains_key("feed.xml"));
        // The site's own census ran (Python is needed) and certified its claims.
        let site_census = reports.iter().filter(|r| r.kind == "check" && r.census.as_deref() == Some("subtraction.grundy")).count();
        assert_eq!(site_census, 2, "the period and the block are checked by the site census");
        // Never over an existing site.
        assert!(create(&dir).is_err());
    }
}
