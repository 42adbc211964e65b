//! Nim with a held pass: the full partner table to 1,100 (the source essay's "about 220
//! million triples"), the slice census {slices: 40, max_heap: 10⁶} (the essay's) and
//! {slices: 44, max_heap: 10⁷} (issue 22's target: under 20 s and 1 GiB on 2 cores), alone
//! and as whole censuses; and, once and outside the timings, the check that the
//! certificates made at 10⁶ predict every offset computed at 10⁷ (a panic if one differs).
//!
//! Run with `cargo bench --bench held_pass` (`-- 1e6` or `-- 1e7` for one group). The peak
//! resident memory of the process so far is printed after each group, from
//! `/proc/self/status` (VmHWM; Linux only): the 10⁶ group runs first, so its figure is the
//! 10⁶ peak. Figures go in the essay's closing note and the branch report.

use countersign_census::held_pass::{HeldPassSlices, HeldPassTable, SlicesParams, Status, TableParams};
use countersign_census::{Census, Ctx};
use countersign_games::held_pass::{PartnerTable, Periodicity, Slices};
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

/// Peak resident memory of this process so far, from /proc/self/status, if readable.
fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" ")))
        .unwrap_or_else(|| "unknown".into())
}

fn params(slices: u32, max_heap: u32) -> SlicesParams {
    SlicesParams { slices, max_heap, max_period: None, plot_slices: vec![], plot_to: 0 }
}

fn slices_at(c: &mut Criterion, slices: u32, max_heap: u32, name: &str) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(if max_heap > 2_000_000 { 120 } else { 30 }));
    g.bench_function("slice_method", |b| b.iter(|| black_box(Slices::compute(slices, max_heap, |_, _| true))));
    let s = Slices::compute(slices, max_heap, |_, _| true).expect("not cancelled");
    let d = s.offsets_i8(slices);
    drop(s);
    g.bench_function("periods_one_slice", |b| {
        b.iter(|| {
            let p = Periodicity::new(&d, usize::MAX);
            black_box((p.smallest(20), p.longest_tail(20)))
        })
    });
    g.bench_function("whole_census", |b| b.iter(|| black_box(HeldPassSlices::run(&params(slices, max_heap), &Ctx::new()))));
    g.finish();
    eprintln!("{name}: peak resident memory of the bench process so far {}", peak_memory());
}

/// The certificates of the census at 10⁶ predict every offset of the slice method at 10⁷,
/// slice by slice from each proved start. Panics at the first difference.
fn certificates_hold_at_ten_million() {
    let small = HeldPassSlices::run(&params(44, 1_000_000), &Ctx::new()).expect("not cancelled");
    let base = Slices::compute(44, 1_000_000, |_, _| true).expect("not cancelled");
    let large = Slices::compute(44, 10_000_000, |_, _| true).expect("not cancelled");
    let mut checked = 0u64;
    for (&a, r) in &small.per_slice {
        let Some(law) = r.law.filter(|l| l.status == Status::Proved) else { continue };
        for b in law.start..=10_000_000u64 {
            let at = law.start + (b - law.start) % law.period;
            let predicted = base.partner(a, at as u32).unwrap() as i64 - at as i64;
            let got = large.partner(a, b as u32).unwrap() as i64 - b as i64;
            assert_eq!(predicted, got, "slice {a}, middle heap {b}: the certificate made at 10⁶ fails at 10⁷");
            checked += 1;
        }
    }
    eprintln!(
        "certificates made at 10⁶ (slices {:?} proved) predict all {checked} offsets computed at 10⁷ from their starts",
        small.proved
    );
}

fn slices_1e6(c: &mut Criterion) {
    slices_at(c, 40, 1_000_000, "held_pass_slices_40_1e6");
}

fn slices_1e7(c: &mut Criterion) {
    slices_at(c, 44, 10_000_000, "held_pass_slices_44_1e7");
    certificates_hold_at_ten_million();
}

criterion_group!(benches, table, slices_1e6, slices_1e7);
criterion_main!(benches);
