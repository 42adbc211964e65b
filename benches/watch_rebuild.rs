//! One incremental rebuild after a prose save, as watch mode makes it: a copy of the
//! ok-basic fixture, census results in memory and a [`pipeline::Incremental`] kept across
//! builds, and each iteration saving the essay with one sentence changed (two texts in
//! turn, so every build has a real edit to parse, check and render) before building.
//! Load, plan, check and render are measured; the file write is included (it is what a
//! save costs the build: one file read back).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use countersign_site::pipeline::{self, Hooks, Incremental, RunOptions};
use criterion::{criterion_group, criterion_main, Criterion};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().filter_map(Result::ok) {
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn prose_rebuild(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sites/ok-basic"), dir.path());
    let essay = dir.path().join("essays/small.md");
    let text = std::fs::read_to_string(&essay).unwrap();
    let texts = [text.replacen("There are", "First, there are", 1), text.replacen("There are", "Second, there are", 1)];
    let opts = RunOptions {
        root: dir.path().to_path_buf(),
        use_cache: false,
        progress: false,
        render: true,
        theme: countersign::THEME,
        base_url: None,
    };
    let memory = Mutex::new(HashMap::new());
    let mut memo = Incremental::default();
    let build = |memo: &mut Incremental| {
        pipeline::run_with(&opts, Hooks { memory: Some(&memory), memo: Some(memo), on_plan: None, sink: None }).unwrap()
    };
    assert!(build(&mut memo).ok());
    let mut turn = 0;
    c.bench_function("watch: one incremental prose rebuild (ok-basic)", |b| {
        b.iter(|| {
            turn += 1;
            std::fs::write(&essay, &texts[turn % 2]).unwrap();
            let run = build(&mut memo);
            assert_eq!((run.stats.ran, run.work.parsed, run.work.rendered.pages), (0, 1, 1));
            run.output.map(|o| o.files.len())
        })
    });
}

criterion_group!(benches, prose_rebuild);
criterion_main!(benches);
