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

/// A site of `n` one-paragraph essays (no census, no claim), each linking to the next by
/// its title, in a temporary folder.
fn many_essays(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(dir.path().join("essays")).expect("essays/");
    std::fs::write(dir.path().join("countersign.yaml"), "title: Many essays\nbase_url: https://example.org/many\n").expect("config");
    for i in 0..n {
        let next = (i + 1) % n;
        let text = format!(
            "---\ntitle: Essay number {i}\n---\n\nA paragraph on Nim and the nim-sum of its heaps, before [[Essay number {next}]].\n"
        );
        std::fs::write(dir.path().join(format!("essays/e{i:05}.md")), text).expect("an essay");
    }
    dir
}

/// `check` (every stage but the write) of 1,000 and of 4,000 one-paragraph essays: a step
/// that is linear keeps the second near four times the first; a quadratic one makes it
/// sixteen (as finding a link's essay by a scan of every title once did: 10,000 such
/// essays took 38 s to check, now under 1 s).
fn many_essays_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check one-paragraph essays");
    group.sample_size(10);
    for n in [1000, 4000] {
        let dir = many_essays(n);
        let opts = RunOptions { root: dir.path().to_path_buf(), ..site("ok-basic") };
        group.bench_function(format!("{n}"), |b| b.iter(|| pipeline::run(&opts, None).output.map(|o| o.files.len())));
    }
    group.finish();
}

criterion_group!(benches, whole_build, essays_build, many_essays_check);
criterion_main!(benches);
