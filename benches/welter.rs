//! Speed of `welter.census`: the seed essay's 523-position census, the mate-pair census on
//! twelve squares, and the plain recursion against the closed form on one row.

use std::hint::black_box;

use countersign_census::welter::{WelterCensus, WelterParams};
use countersign_census::{Census, Ctx};
use countersign_games::welter::{closed_form, positions, values_by_recursion};
use criterion::{criterion_group, criterion_main, Criterion};

fn params(coins: &[(u32, u32)]) -> WelterParams {
    WelterParams { coins: coins.iter().copied().collect(), probe: Vec::new() }
}

fn census(c: &mut Criterion) {
    let seed = params(&[(1, 12), (2, 11), (3, 10), (4, 9), (5, 9), (6, 9)]);
    c.bench_function("welter.census seed 523 positions", |b| b.iter(|| WelterCensus::run(black_box(&seed), &Ctx::new())));
    let pairs = params(&[(2, 12), (4, 12), (6, 12)]);
    c.bench_function("welter.census mates 2,4,6 coins on 12 squares", |b| b.iter(|| WelterCensus::run(black_box(&pairs), &Ctx::new())));
}

fn row(c: &mut Criterion) {
    c.bench_function("recursion 6 coins on 16 squares", |b| b.iter(|| values_by_recursion(black_box(6), 16)));
    let ps = positions(6, 16);
    c.bench_function("closed form 6 coins on 16 squares", |b| {
        b.iter(|| ps.iter().map(|&p| closed_form(black_box(p))).fold(0, |a, v| a ^ v))
    });
}

criterion_group!(benches, census, row);
criterion_main!(benches);
