//! Benchmarks for Welter matchings: the whole `welter.matchings` census of the essay
//! (3,696 positions), the worked-position census, and the trie matching alone.

use std::collections::BTreeMap;

use countersign_census::welter_matchings::{MatchingsParams, PositionParams, WelterMatchings, WelterPosition};
use countersign_census::{Census, Ctx};
use countersign_games::welter::matching::{greedy_outcomes, trie_matching, Rule};
use countersign_games::welter::positions;
use criterion::{criterion_group, criterion_main, Criterion};

fn census(c: &mut Criterion) {
    let coins: BTreeMap<u32, u32> = [(2, 16), (3, 14), (4, 14), (5, 12), (6, 12), (7, 11), (8, 11)].into_iter().collect();
    let params = MatchingsParams { coins };
    let mut g = c.benchmark_group("welter_matchings");
    g.sample_size(10);
    g.bench_function("census_3696_positions", |b| b.iter(|| WelterMatchings::run(&params, &Ctx::new()).map(|r| r.positions)));
    let one = PositionParams { squares: vec![1, 2, 4, 7, 9, 11] };
    g.bench_function("position_1_2_4_7_9_11", |b| b.iter(|| WelterPosition::run(&one, &Ctx::new()).map(|r| r.value)));
    let eight = positions(8, 11);
    g.bench_function("trie_matching_8_coins_below_11", |b| b.iter(|| eight.iter().map(|&p| trie_matching(p).pairs.len()).sum::<usize>()));
    g.bench_function("closest_ties_8_coins_below_11", |b| {
        b.iter(|| eight.iter().map(|&p| greedy_outcomes(p, Rule::Closest).len()).sum::<usize>())
    });
    g.finish();
}

criterion_group!(benches, census);
criterion_main!(benches);
