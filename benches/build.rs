//! A whole build of a fixture site: load, plan, compute (warm: results in memory; cold:
//! every census run), check and render into memory. Writing to disk is left out so the
//! bench measures countersign, not the file system. `build essays (warm)` does the same
//! for this repository's own essays (results from the cache on the first run, then from
//! memory); `scripts/peer-build` times the whole process against Zola and mdBook.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use countersign_site::pipeline::{self, RunOptions};
use criterion::{criterion_group, criterion_main, Criterion};

fn site(name: &str) -> RunOptions {
    RunOptions {
        root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sites").join(name),
        use_cache: false,
        progress: false,
        render: true,
        theme: countersign::THEME,
        base_url: None,
    }
}

fn whole_build(c: &mut Criterion) {
    let opts = site("ok-basic");
    let memory = Mutex::new(HashMap::new());
    let first = pipeline::run(&opts, Some(&memory));
    assert!(first.ok());
    c.bench_function("build ok-basic (warm)", |b| {
        b.iter(|| {
            let run = pipeline::run(&opts, Some(&memory));
            assert_eq!(run.stats.ran, 0);
            run.output.map(|o| o.files.len())
        })
    });
    c.bench_function("build ok-basic (cold)", |b| b.iter(|| pipeline::run(&opts, None).output.map(|o| o.files.len())));
}

fn essays_build(c: &mut Criterion) {
    let opts = RunOptions {
        root: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        use_cache: true,
        progress: false,
        render: true,
        theme: countersign::THEME,
        base_url: None,
    };
    let memory = Mutex::new(HashMap::new());
    assert!(pipeline::run(&opts, Some(&memory)).ok());
    c.bench_function("build essays (warm)", |b| {
        b.iter(|| {
            let run = pipeline::run(&opts, Some(&memory));
            assert_eq!(run.stats.ran, 0);
            run.output.map(|o| o.files.len())
        })
    });
}

criterion_group!(benches, whole_build, essays_build);
criterion_main!(benches);
