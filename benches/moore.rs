//! Speed of the Moore's Nim_k solvers: the retrograde sweep over every position with at
//! most 10 heaps of at most 10 counters (184,756 positions) under misère play, k = 1..3,
//! and the plain memoised recursion on 8 heaps ≤ 8 for comparison.

use countersign_games::moore::{solve, Index, Moves, Plain, Play};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn sweep_10_by_10_misere(c: &mut Criterion) {
    let mut g = c.benchmark_group("moore_sweep_10x10_misere");
    g.sample_size(10);
    for k in 1..=3 {
        g.bench_function(format!("k{k}"), |b| {
            b.iter(|| {
                let s = solve(10, 10, Moves::moore(k), Play::Misere, &mut |_, _| true).expect("10 heaps of 10 is in range");
                black_box(s.losses())
            })
        });
    }
    g.finish();
}

fn plain_6_by_6_misere(c: &mut Criterion) {
    let mut g = c.benchmark_group("moore_plain_8x8_misere");
    g.sample_size(10);
    let positions: Vec<Vec<u32>> = Index::new(8, 8).expect("in range").positions().collect();
    for k in 1..=3 {
        g.bench_function(format!("k{k}"), |b| {
            b.iter(|| {
                let mut p = Plain::new(Moves::moore(k), Play::Misere);
                black_box(positions.iter().filter(|q| p.lost(q)).count())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sweep_10_by_10_misere, plain_6_by_6_misere);
criterion_main!(benches);
