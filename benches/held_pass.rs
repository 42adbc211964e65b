//! Nim with a held pass: the full partner table to 1,100 (the source essay's "about 220
//! million triples") and the slice census {slices: 40, max_heap: 1000000}, alone and as
//! whole censuses.
//!
//! Run with `cargo bench --bench held_pass`. Targets (issue 7): the table under 0.5 s,
//! the forty slices to a million under 10 s on 2 cores. Figures go in the essay's closing
//! note and the branch report.

use countersign::census::held_pass::{HeldPassSlices, HeldPassTable, SlicesParams, TableParams};
use countersign::census::{Census, Ctx};
use countersign::games::held_pass::{PartnerTable, Periodicity, Slices};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;

fn table(c: &mut Criterion) {
    let mut g = c.benchmark_group("held_pass_table_1100");
    g.sample_size(20);
    g.bench_function("partner_table", |b| b.iter(|| black_box(PartnerTable::build(1100, |_| true))));
    g.bench_function("whole_census", |b| b.iter(|| black_box(HeldPassTable::run(&TableParams { max_heap: 1100 }, &Ctx::new()))));
    g.finish();
}

fn slices(c: &mut Criterion) {
    let mut g = c.benchmark_group("held_pass_slices_40_1e6");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(40));
    g.bench_function("slice_method", |b| b.iter(|| black_box(Slices::compute(40, 1_000_000, |_, _| true))));
    let s = Slices::compute(40, 1_000_000, |_, _| true).expect("not cancelled");
    let d = s.offsets_i16(40);
    g.bench_function("periods_one_slice", |b| {
        b.iter(|| {
            let p = Periodicity::new(&d, usize::MAX);
            black_box((p.smallest(20), p.longest_tail(20)))
        })
    });
    g.bench_function("whole_census", |b| {
        b.iter(|| {
            let p = SlicesParams { slices: 40, max_heap: 1_000_000, max_period: None, plot_slices: vec![], plot_to: 0 };
            black_box(HeldPassSlices::run(&p, &Ctx::new()))
        })
    });
    g.finish();
}

criterion_group!(benches, table, slices);
criterion_main!(benches);
