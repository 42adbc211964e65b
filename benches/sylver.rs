//! Sylver Coinage: the genus ≤ 16 census, each solver alone and the whole census.
//!
//! Run with `cargo bench --bench sylver`. Figures go in the essay's closing note.

use countersign_census::sylver::{SylverCensus, SylverParams};
use countersign_census::{Census, Ctx};
use countersign_games::sylver::{semigroups_by_genus, PlainSolver, PrunedSolver};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let positions: Vec<_> = semigroups_by_genus(16).into_iter().skip(1).flatten().collect();
    let mut g = c.benchmark_group("sylver_genus_16");
    g.sample_size(20);
    g.bench_function("tree_enumeration", |b| b.iter(|| black_box(semigroups_by_genus(16))));
    g.bench_function("plain_solver", |b| {
        b.iter(|| {
            let mut s = PlainSolver::new();
            let won = positions.iter().filter(|&&p| s.wins(p)).count();
            black_box((won, s.descents()))
        })
    });
    g.bench_function("pruned_solver", |b| {
        b.iter(|| {
            let mut s = PrunedSolver::new();
            let won = positions.iter().filter(|&&p| s.wins(p)).count();
            black_box((won, s.descents()))
        })
    });
    g.bench_function("whole_census", |b| b.iter(|| black_box(SylverCensus::run(&SylverParams { max_genus: 16 }, &Ctx::new()))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
