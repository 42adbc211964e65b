//! `countersign new NAME`: a new site in the folder NAME, ready to build at once.
//!
//! It writes `countersign.yaml` (title, base_url, description), `essays/first-essay.md`
//! showing every feature once (census blocks, a claim in each stated form, an assert, two
//! figures, a labelled equation and a reference to it, a link by title, a citation, a
//! footnote and an image beside it, `essays/first-essay/strip.svg`), a second essay on the
//! same ladder with no census, a one-entry `references.yaml` cited by the first, and a
//! `.gitignore` for the output and the cache, and `.github/workflows/site.yml`, which checks
//! and publishes the site to GitHub Pages through this repository's action. Each feature has its own `##` section, so a
//! section can be added without touching the others; the last is a census the site brings
//! itself (`censuses/subtraction.py`, a Python script declared in
//! `censuses/subtraction.grundy.yaml`). Templates and styles are built into the binary; copy files into
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
        ("essays/first-essay/strip.svg", STRIP_SVG.to_string()),
        ("essays/second-essay.md", SECOND.to_string()),
        ("references.yaml", REFERENCES.to_string()),
        (".gitignore", "public/\n.countersign-cache/\n".to_string()),
        (".github/workflows/site.yml", workflow()),
    ]
}

/// The new site's GitHub workflow: the countersign action of this repository at this
/// binary's version (`owner/name@vX.Y.Z`, from the package's `repository` and version),
/// which checks every claim, builds the site and publishes it to GitHub Pages.
fn workflow() -> String {
    let repository = env!("CARGO_PKG_REPOSITORY").trim_start_matches("https://github.com/").trim_end_matches('/');
    SITE_WORKFLOW.replace("ACTION_REPOSITORY", repository).replace("ACTION_VERSION", env!("CARGO_PKG_VERSION"))
}

/// [`workflow`] before the action's name and version are filled in.
const SITE_WORKFLOW: &str = include_str!("scaffold/site.yml");

const ESSAY: &str = r#"---
title: A first essay
anchor: welter
rung: 1
date: 2026-01-01
summary: Welter's game on a short strip, every number checked by the build.
---

In Welter's game [@welter1954] each coin sits on its own square of a strip and a move slides
one coin down to an empty square.[^strip] Every number below is computed when the site is
built: change one and `countersign check` refuses it, pointing at the number;
`countersign check --bless` writes the computed value back. The next essay, [[A second
essay]], says what to try next.

## Every position of a short strip

```census
id: small
run: welter.census
with: { coins: { 2: 8, 3: 8 } }
```

Of the {{ small.positions_total = 84 }} positions of two or {{ plain three }} coins on the
first {{ plain 8 }} squares, Conway's closed form gives the Grundy value of all
{{ small.closed_form_right = 84 }}, while the plain nim-sum of the squares is right on
{{ small.nim_sum_share = 0 of 84 }}: not a single one.
{{ assert small.closed_form_right == small.positions_total and small.nim_sum_right == 0 }}
With {{ plain three }} coins, {{ small.by_coins.3.zero = seven }} positions are lost for
the player to move.

For two coins on squares $a$ and $b$ the value is Conway's mate formula,

$$
\langle a \mid b \rangle = (a \oplus b) - 1 \label{eq:mate}
$$

which [@fig:values] draws: [@eq:mate] is zero exactly when $b = a \oplus 1$.

```figure
id: values
from: small.grid
plot: grid
x_label: b
y_label: a
caption: The values of two coins, by the squares they stand on.
alt: A triangle of numbers; the zeros lie next to the diagonal, where the two squares are mates.
```

## One position and its pairs

```census
id: pos
run: welter.position
with: { squares: [1, 2, 4, 7] }
```

The coins on squares {{ pos.squares = 1, 2, 4 and 7 }} have value {{ pos.value = 0 }}: the
position is lost for the player to move. Pairing each coin with the one it shares the most
low bits with reads that value off the pairs: {{ pos.low_bits.reads_value = true }}.

```figure
id: pairs
from: pos
plot: strip
pairs: low_bits.pairs
pair_label: animating
caption: The pairs of the position, each arc labelled with the value it contributes.
alt: "A strip of squares with coins on {{ pos.coins = four }} of them, joined in pairs by arcs."
```

The same strip drawn by hand, as an image beside the essay:
![A strip of squares with coins on {{ pos.coins = four }} of them](strip.svg)

## How often a rule is right

```census
id: rules
run: welter.matchings
with: { coins: { 4: 8 } }
```

Over every position of {{ plain four }} coins, pairing the outermost coins first reads the
value right on {{ rules.rules.outermost.4.share_min = 54.3 per cent }} of them, pairing
neighbours on {{ rules.rules.neighbours.4.share_min = three in seven }}, and pairing the
closest numbers on {{ rules.rules.closest.4.right = 24 to 36 }} positions, depending on how
its ties are broken. A position has one matching that reads its value in a share of
{{ rules.uniqueness.4.unique_share = 0.69 }}, and a reply to a move is the partner move in
{{ rules.replies.4.partner_share = one in two }} cases.

[^strip]: The squares are numbered from zero at the end coins move towards.
"#;

/// The essay's section on a census the site brings with it (the guide's chapter "Censuses of your own", `docs/guide/essays/site-censuses.md`).
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
const SECOND: &str = r#"---
title: A second essay
anchor: welter
rung: 2
summary: What to try next, with no census of its own.
---

This essay computes nothing, so it has no list of computations at its end. It follows
[[A first essay]]: edit a census block there and watch its numbers being checked again
with `countersign watch`, or mark an essay `draft: true` to keep it out of the published
site while you write it.
"#;

/// The hand-drawn strip the first essay shows as an image beside it.
const STRIP_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 170 40" width="340" height="80" role="img"><title>A strip with four coins</title><g fill="none" stroke="#59636e"><rect x="5" y="15" width="160" height="20"/><path d="M25 15v20M45 15v20M65 15v20M85 15v20M105 15v20M125 15v20M145 15v20"/></g><g fill="#0550ae"><circle cx="35" cy="25" r="7"/><circle cx="55" cy="25" r="7"/><circle cx="95" cy="25" r="7"/><circle cx="155" cy="25" r="7"/></g></svg>
"##;

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
        // tests/site_censuses.rs edits and blesses the fixture; it must be what `new` writes:
        // its script is copied from the one `new` writes (`copies:` in its expect.yaml).
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sites/ext-census-subtraction/censuses/");
        let expect =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sites/ext-census-subtraction/expect.yaml")).unwrap();
        assert!(expect.contains("censuses/subtraction.py: src/scaffold/subtraction.py"), "{expect}");
        assert!(!std::path::Path::new(&format!("{fixture}subtraction.py")).exists(), "a second copy of the script");
        assert_eq!(std::fs::read_to_string(format!("{fixture}subtraction.grundy.yaml")).unwrap(), SITE_CENSUS_DECLARATION);
    }

    /// The steps the README and the guide's "Checking in CI" show are the workflow's, line
    /// for line (indentation aside).
    #[test]
    fn the_documented_workflow_steps_are_the_ones_new_writes() {
        let files = files("t");
        let (_, workflow) = files.iter().find(|(p, _)| *p == ".github/workflows/site.yml").expect("a workflow");
        let lines: Vec<&str> = workflow.lines().map(str::trim).collect();
        for doc in ["README.md", "docs/guide/essays/ci.md"] {
            let text = std::fs::read_to_string(format!("{}/{doc}", env!("CARGO_MANIFEST_DIR"))).unwrap();
            let start = text.find("- uses: actions/checkout@v4").unwrap_or_else(|| panic!("{doc}: no workflow steps"));
            let snippet = &text[start..start + text[start..].find("```").unwrap()];
            for line in snippet.lines().map(str::trim).filter(|l| !l.is_empty()) {
                assert!(lines.contains(&line), "{doc}: `{line}` is not in the workflow new writes");
            }
        }
    }

    /// configure-pages reads the repository's Pages settings, so the job running it is
    /// granted `pages: write`; and a site publishes from its default branch, whatever it is
    /// named (`git init` may make `master`).
    #[test]
    fn the_new_site_workflow_may_read_pages_and_publishes_from_the_default_branch() {
        let files = files("t");
        let (_, workflow) = files.iter().find(|(p, _)| *p == ".github/workflows/site.yml").expect("a workflow");
        let doc: serde_json::Value = countersign_core::yaml::from_str(workflow).expect("the workflow is YAML");
        for (name, job) in doc["jobs"].as_object().expect("jobs") {
            let steps = job["steps"].as_array().map(Vec::as_slice).unwrap_or_default();
            if steps.iter().any(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("actions/configure-pages@"))) {
                assert_eq!(job["permissions"]["pages"], "write", "job {name} runs configure-pages");
            }
        }
        assert!(doc["on"]["push"].get("branches").is_none(), "a branch filter: {workflow}");
        assert!(doc["jobs"]["deploy"]["if"].as_str().is_some_and(|c| c.contains("github.event.repository.default_branch")), "{workflow}");
    }

    #[test]
    fn the_new_site_workflow_uses_the_action_at_this_version() {
        let files = files("t");
        let (_, workflow) = files.iter().find(|(p, _)| *p == ".github/workflows/site.yml").expect("a workflow");
        let uses = format!("uses: countersign/countersign@v{}\n", env!("CARGO_PKG_VERSION"));
        assert!(workflow.contains(&uses), "{workflow}");
        assert!(!workflow.contains("ACTION_"), "{workflow}");
    }

    #[test]
    fn a_new_site_builds_at_once_and_passes_strict() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("my-essays");
        let written = create(&dir).expect("scaffold");
        assert!(written.contains(&"essays/first-essay.md".to_string()));
        let run = countersign_site::pipeline::run(
            &countersign_site::pipeline::RunOptions {
                root: dir.clone(),
                use_cache: false,
                progress: false,
                render: true,
                theme: countersign::THEME,
                base_url: None,
            },
            None,
        );
        let errors: Vec<String> = run.diags.iter().map(|d| format!("{:?}: {}", d.origin, d.message)).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let strict = countersign_core::strict::findings::<std::collections::BTreeMap<String, countersign_core::check::Bound>>(
            &run.loaded.essays,
            None,
        );
        assert!(strict.is_empty(), "{:?}", strict.iter().map(|d| &d.message).collect::<Vec<_>>());
        let reports = &run.checked.as_ref().expect("checked").reports[0];
        assert!(reports.iter().filter(|r| r.kind == countersign_core::check::ReportKind::Check).count() >= 3);
        let out = run.output.expect("output");
        let page = String::from_utf8(out.files.get("first-essay/index.html").expect("essay page").to_vec()).expect("utf-8");
        assert!(page.contains("href=\"#calls-small\""), "claims link to provenance");
        assert!(page.contains("id=\"ref-welter1954\""), "the citation is listed");
        assert!(out.files.contains_key("welter/index.html") && out.files.contains_key("feed.xml"));
        // The site's own census ran (Python is needed) and certified its claims.
        let site_census = reports
            .iter()
            .filter(|r| r.kind == countersign_core::check::ReportKind::Check && r.census.as_deref() == Some("subtraction.grundy"))
            .count();
        assert_eq!(site_census, 2, "the period and the block are checked by the site census");
        // Every feature once: each stated form, an assert, figures, a labelled equation and
        // a reference to it, a link by title, a footnote, an image beside the essay.
        let kinds: Vec<&str> = reports.iter().map(|r| r.kind.as_str()).collect();
        assert!(kinds.contains(&"assert"), "{kinds:?}");
        let essay = ESSAY;
        for form in [
            "= 84 }}",
            "= 0 of 84 }}",
            "= seven }}",
            "= 1, 2, 4 and 7 }}",
            "= true }}",
            "= 54.3 per cent }}",
            "= three in seven }}",
            "= 24 to 36 }}",
            "= 0.69 }}",
            "= one in two }}",
        ] {
            assert!(essay.contains(form), "no claim in the form {form}");
        }
        for html in [
            "href=\"#fig-values\"",
            "href=\"#eq-mate\"",
            "href=\"../second-essay/\"",
            "class=\"footnote-backref\"",
            "<img src=\"strip.svg\"",
        ] {
            assert!(page.contains(html), "the page lacks {html}");
        }
        assert!(out.files.contains_key("first-essay/strip.svg") && out.files.contains_key("first-essay/fig-pairs.svg"));
        let second = String::from_utf8(out.files["second-essay/index.html"].to_vec()).expect("utf-8");
        assert!(!second.contains("how-computed"), "an essay with no census lists no computations");
        // Never over an existing site.
        assert!(create(&dir).is_err());
    }
}
