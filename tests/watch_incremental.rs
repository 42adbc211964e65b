//! Watch mode's incremental builds are byte for byte full builds.
//!
//! A temporary site (three essays on one ladder and off it, links between them, a figure,
//! a bibliography-free planned link, a site template included by another, a static file)
//! goes through a sequence of edits; after every step the incremental run (one
//! [`pipeline::Incremental`] and one results memory kept across the steps, as the watch
//! builder keeps them) is compared with a fresh full build of the same sources: every file
//! name and its bytes, and the diagnostics as printed. Each step also states what the
//! incremental run had to redo (essays parsed and checked, bodies and pages rendered,
//! static files replaced), so a step that redid too much, or too little, fails.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use countersign_site::pipeline::{self, Hooks, Incremental, RunOptions, Work};
use serde_json::Value;

const A: &str = "---
title: Small semigroups
anchor: sylver
rung: 1
date: 2024-01-02
summary: The smallest census.
---

```census
id: g4
run: sylver.census
with: { max_genus: 4 }
```

## Counting

There are {{ g4.positions = 14 }} positions and {{ g4.paired.positions = nine }} of them are paired.
Math: $a \\nimsum b$. The next rung is [[Bee]].

```figure
id: struck
from: g4.move_test.all_struck
plot: grid
caption: Struck moves
alt: One row of cells
x_label: move
```
";

const B: &str = "---
title: Bee
anchor: sylver
rung: 2
---

```census
id: g
run: sylver.census
with: { max_genus: 3 }
```

Back to [[Small semigroups]]. {{ assert g.positions > 0 }}
";

const C: &str = "---
title: Loose
---

A loose essay that links to [[Bee]], to [[Small semigroups#Counting]] and to [[A planned essay]].
";

const D: &str = "---
title: Dee
anchor: sylver
rung: 3
---

A new rung.
";

const CONFIG: &str = "title: Fixture
base_url: https://example.org/s
math:
  macros:
    nimsum: \\oplus
planned: [A planned essay]
";

const LADDER: &str = "{% extends \"base.html\" %}
{% block content %}<h1>{{ ladder.title }}</h1>{% include \"note.html\" %}
<ol>{% for e in ladder.essays %}<li>{{ e.title }}</li>{% endfor %}</ol>
{% endblock content %}
";

struct Site {
    dir: tempfile::TempDir,
    memory: Mutex<HashMap<String, Arc<Value>>>,
    memo: Incremental,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().unwrap();
        let s = Site { dir, memory: Mutex::new(HashMap::new()), memo: Incremental::default() };
        s.write("countersign.yaml", CONFIG);
        s.write("essays/a.md", A);
        s.write("essays/b.md", B);
        s.write("essays/c.md", C);
        s.write("templates/ladder.html", LADDER);
        s.write("templates/note.html", "<p class=\"note\">Read in order.</p>\n");
        s.write("static/extra.css", "body { color: black; }\n");
        s
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.dir.path().join(rel)).unwrap();
        assert!(text.contains(from), "{rel} lacks {from:?}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    fn opts(&self) -> RunOptions {
        RunOptions {
            root: self.dir.path().to_path_buf(),
            use_cache: true,
            progress: false,
            render: true,
            theme: countersign::THEME,
            base_url: None,
        }
    }

    /// One incremental run, compared with a fresh full build; returns what it redid and
    /// whether the site built without errors.
    fn step(&mut self, what: &str) -> (Work, bool, pipeline::Stats) {
        let opts = self.opts();
        let mut run =
            pipeline::run_with(&opts, Hooks { memory: Some(&self.memory), memo: Some(&mut self.memo), on_plan: None, sink: None })
                .expect("nothing cancels this run");
        let full = pipeline::run(&opts, None);
        let inc = run.output.as_ref().expect("the incremental run renders");
        let fresh = full.output.as_ref().expect("the full build renders");
        let names = |o: &countersign_render::Output| o.files.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(inc), names(fresh), "{what}: the incremental run has other files than a full build");
        for (name, bytes) in &fresh.files {
            assert!(
                inc.files[name] == *bytes,
                "{what}: {name} differs from a full build's:\n--- incremental\n{}\n--- full\n{}",
                String::from_utf8_lossy(&inc.files[name]),
                String::from_utf8_lossy(bytes)
            );
        }
        assert_eq!(
            run.loaded.sources.render(&run.diags, false),
            full.loaded.sources.render(&full.diags, false),
            "{what}: the diagnostics differ from a full build's"
        );
        let pages = fresh.files.keys().filter(|k| k.ends_with(".html")).count();
        assert!(full.work.rendered.pages >= pages, "{what}: a full build renders every page ({pages} written)");
        if !run.ok() {
            eprintln!("{what}:\n{}", run.loaded.sources.render(&run.diags, false));
        }
        let result = (run.work, run.ok(), run.stats);
        self.memo.give_back(std::mem::take(&mut run.loaded.essays));
        result
    }
}

#[test]
fn every_incremental_build_is_a_full_build_and_redoes_only_what_changed() {
    let mut s = Site::new();
    // Pages: three essays, the index, the ladder page, 404.html.
    let (w, ok, st) = s.step("first build");
    assert!(ok);
    assert_eq!((w.parsed, w.checked, w.rendered.bodies, w.rendered.figures, w.rendered.pages), (3, 3, 3, 1, 6), "{w:?}");
    assert_eq!(st.ran, 2, "{st:?}");

    let (w, _, _) = s.step("nothing changed");
    assert_eq!(
        (w.parsed, w.checked, w.rendered.bodies, w.rendered.pages, w.rendered.lists, w.rendered.static_files),
        (0, 0, 0, 0, 0, 0),
        "{w:?}"
    );

    s.edit("essays/a.md", "positions and", "positions, counted once, and");
    let (w, ok, st) = s.step("prose edit");
    assert!(ok);
    assert_eq!((w.parsed, w.checked, w.rendered.bodies, w.rendered.pages), (1, 1, 1, 1), "a prose edit redid more than its page: {w:?}");
    assert_eq!(w.rendered.lists, 1, "only the search index holds prose: {w:?}");
    assert_eq!(w.rendered.figures, 0, "a prose edit redrew a figure: {w:?}");

    s.edit("essays/a.md", "caption: Struck moves", "caption: The struck moves");
    let (w, ok, _) = s.step("figure edit");
    assert!(ok);
    assert_eq!((w.rendered.bodies, w.rendered.figures, w.rendered.pages), (1, 1, 1), "{w:?}");
    assert_eq!((st.ran, w.rendered.static_files), (0, 0));

    s.edit("essays/a.md", "summary: The smallest census.", "summary: The very smallest census.");
    let (w, ok, _) = s.step("front matter edit");
    assert!(ok);
    // a's page, b's (its ladder lists a's summary), the index and the ladder page.
    assert_eq!((w.rendered.bodies, w.rendered.pages), (1, 4), "{w:?}");

    s.edit("essays/b.md", "max_genus: 3", "max_genus: 5");
    let (w, ok, st) = s.step("directive edit");
    assert!(ok);
    assert_eq!((st.ran, st.remembered), (1, 1), "a directive edit recomputes its own call only: {st:?}");
    assert_eq!((w.checked, w.rendered.bodies, w.rendered.pages), (1, 1, 1), "{w:?}");

    s.edit("templates/note.html", "Read in order.", "Read them in order.");
    let (w, ok, _) = s.step("included template edit");
    assert!(ok);
    assert_eq!((w.parsed, w.rendered.bodies, w.rendered.pages), (0, 0, 1), "only the ladder page includes note.html: {w:?}");

    s.write(
        "templates/essay.html",
        &countersign::theme::TEMPLATES[1].1.replace("<article class=\"essay\">", "<article class=\"essay wide\">"),
    );
    let (w, ok, _) = s.step("essay template added");
    assert!(ok);
    assert_eq!((w.rendered.bodies, w.rendered.pages), (0, 3), "essay.html renders the three essay pages: {w:?}");

    s.edit("templates/essay.html", "essay wide", "essay narrow");
    let (w, _, _) = s.step("essay template edit");
    assert_eq!(w.rendered.pages, 3, "{w:?}");

    s.edit("static/extra.css", "black", "navy");
    let (w, ok, _) = s.step("static edit");
    assert!(ok);
    assert_eq!((w.rendered.pages, w.rendered.lists, w.rendered.static_files), (0, 0, 1), "{w:?}");

    s.write("essays/d.md", D);
    let (w, ok, _) = s.step("essay added");
    assert!(ok);
    assert_eq!((w.parsed, w.checked), (1, 1), "{w:?}");

    std::fs::remove_file(s.dir.path().join("essays/d.md")).unwrap();
    let (w, ok, _) = s.step("essay deleted");
    assert!(ok);
    assert_eq!(w.parsed, 0, "{w:?}");

    std::fs::rename(s.dir.path().join("essays/c.md"), s.dir.path().join("essays/see.md")).unwrap();
    let (w, ok, _) = s.step("essay renamed");
    assert!(ok);
    assert_eq!(w.parsed, 1, "{w:?}");

    s.edit("essays/a.md", "{{ g4.positions = 14 }}", "{{ g4.positions = 15 }}");
    let (_, ok, _) = s.step("broken claim");
    assert!(!ok, "a wrong claim must fail");
    s.edit("essays/a.md", "{{ g4.positions = 15 }}", "{{ g4.positions = 14 }}");
    let (w, ok, _) = s.step("claim fixed");
    assert!(ok);
    assert_eq!((w.checked, w.rendered.bodies), (1, 1), "{w:?}");

    s.edit("essays/b.md", "title: Bee\n", "title: [Bee\n");
    let (_, ok, _) = s.step("broken front matter");
    assert!(!ok, "broken front matter must fail");
    s.edit("essays/b.md", "title: [Bee\n", "title: Bee\n");
    let (_, ok, _) = s.step("front matter fixed");
    assert!(ok);

    s.edit("templates/note.html", "</p>", "{{ nothing_here }}</p>");
    let (_, ok, _) = s.step("broken template");
    assert!(!ok, "an unknown variable must fail");
    s.edit("templates/note.html", "{{ nothing_here }}</p>", "</p>");
    let (_, ok, _) = s.step("template fixed");
    assert!(ok);

    // A heading another essay links to: the linking page follows (here, into an error).
    s.edit("essays/a.md", "## Counting", "## Counting them");
    let (w, ok, _) = s.step("linked heading renamed");
    assert!(!ok, "a link to a heading that is gone must fail");
    assert_eq!(w.rendered.pages, 2, "a's page and c's, which links to the heading: {w:?}");
    s.edit("essays/a.md", "## Counting them", "## Counting");
    let (_, ok, _) = s.step("heading restored");
    assert!(ok);

    // A title others link to ([[Bee]] from a and c): renamed together with the links, the
    // linking pages, b's own, its ladder's pages and the listings follow; nothing is parsed
    // but the three edited essays.
    s.edit("essays/b.md", "title: Bee\n", "title: Bumblebee\n");
    s.edit("essays/a.md", "[[Bee]]", "[[Bumblebee]]");
    s.edit("essays/see.md", "[[Bee]]", "[[Bumblebee]]");
    let (w, ok, st) = s.step("linked title renamed");
    assert!(ok);
    assert_eq!((w.parsed, st.ran), (3, 0), "{w:?} {st:?}");
    // A title renamed without its links: the links break, as in a full build.
    s.edit("essays/b.md", "title: Bumblebee\n", "title: Bee again\n");
    let (w, ok, _) = s.step("linked title renamed alone");
    assert!(!ok, "links to a title that is gone must fail");
    assert_eq!(w.parsed, 1, "{w:?}");
    assert!(w.rendered.pages >= 3, "b's page and the two pages linking to it: {w:?}");
    s.edit("essays/b.md", "title: Bee again\n", "title: Bumblebee\n");
    let (_, ok, _) = s.step("linked title restored");
    assert!(ok);

    s.edit("countersign.yaml", "title: Fixture", "title: Fixture site");
    let (w, ok, _) = s.step("configuration edit");
    assert!(ok);
    assert_eq!(
        (w.checked, w.rendered.bodies, w.rendered.figures, w.rendered.pages),
        (3, 3, 1, 6),
        "a configuration edit rebuilds everything: {w:?}"
    );
}

#[test]
fn a_cancelled_call_stops_alone() {
    let s = Site::new();
    let loaded = pipeline::load(s.dir.path(), &countersign::THEME);
    let plan = pipeline::plan(&loaded);
    assert_eq!(plan.calls.len(), 2);
    let flags = [Arc::new(AtomicBool::new(true)), Arc::new(AtomicBool::new(false))];
    let cache = countersign_site::cache::Cache::disabled();
    let opts = pipeline::ComputeOptions { cache: &cache, memory: None, progress: false, cancel: Arc::default(), flags: Some(&flags) };
    let results = pipeline::compute(&plan, &opts);
    assert!(results.values[0].is_none(), "the cancelled call finished");
    assert!(results.values[1].is_some(), "the call left running was thrown away");
    assert_eq!(results.stats.ran, 1);
    assert!(!flags[1].load(Ordering::SeqCst));
}

/// Wait until every file written so far is older than the memo's settling time, so its
/// stamp is trusted and the next run reads it only when the stamp changed.
fn settle(s: &Site) {
    std::thread::sleep(s.memo.settles + std::time::Duration::from_millis(30));
}

#[test]
fn a_file_is_read_again_only_when_its_stamp_changed_and_every_save_style_is_seen() {
    let mut s = Site::new();
    s.memo.settles = std::time::Duration::from_millis(60);
    s.step("first build");
    settle(&s);
    let (w, _, _) = s.step("nothing changed, files settled");
    assert_eq!(w.parsed, 0, "{w:?}");

    // A same-size edit whose modification time is put back: its status-change time moved.
    let a = s.dir.path().join("essays/a.md");
    let before = std::fs::metadata(&a).unwrap().modified().unwrap();
    s.edit("essays/a.md", "There are", "Where are");
    std::fs::File::options().write(true).open(&a).unwrap().set_times(std::fs::FileTimes::new().set_modified(before)).unwrap();
    settle(&s);
    let (w, ok, _) = s.step("same-size edit, modification time restored");
    assert!(ok);
    assert_eq!(w.parsed, 1, "{w:?}");

    // A temporary file written and renamed over the essay (sed -i, VS Code).
    settle(&s);
    let b = s.dir.path().join("essays/b.md");
    let text = std::fs::read_to_string(&b).unwrap().replace("Back to", "Now back to");
    std::fs::write(s.dir.path().join("essays/b.md.tmp"), text).unwrap();
    std::fs::rename(s.dir.path().join("essays/b.md.tmp"), &b).unwrap();
    settle(&s);
    let (w, ok, _) = s.step("temporary file renamed over the essay");
    assert!(ok);
    assert_eq!(w.parsed, 1, "{w:?}");

    // Two essays saved in one burst: both are seen.
    s.edit("essays/a.md", "Where are", "There are");
    s.edit("essays/c.md", "A loose essay", "A loose little essay");
    settle(&s);
    let (w, ok, _) = s.step("two essays saved at once");
    assert!(ok);
    assert_eq!((w.parsed, w.rendered.bodies), (2, 2), "{w:?}");

    // Saves closer together than the file system's clock ticks: the run between them
    // read a file too fresh to trust its stamp, so the next run reads it again.
    s.edit("essays/c.md", "little essay", "lithe essay");
    let (w, _, _) = s.step("a save, built at once");
    assert_eq!(w.parsed, 1, "{w:?}");
    s.edit("essays/c.md", "lithe essay", "light essay");
    let (w, ok, _) = s.step("a second same-size save within the tick");
    assert!(ok);
    assert_eq!(w.parsed, 1, "{w:?}");
}
