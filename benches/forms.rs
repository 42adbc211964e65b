//! Judging stated texts: parse, check and bless, for the slowest texts the forms allow
//! (issue 14: any stated text of up to 200 characters in under 10 ms).
//!
//! Run with `cargo bench --bench forms`.

use countersign_core::check::forms::{self, Computed};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;

fn judge(text: &str, c: &Computed) {
    if let Some(f) = forms::parse_stated(text, false) {
        black_box(forms::check(&f, c));
        black_box(forms::bless(&f, c).ok());
    }
}

fn bench(c: &mut Criterion) {
    let share = Computed::from_json(&json!({"num": 66939u64, "den": 710524u64}));
    let tiny = Computed::from_json(&json!({"num": 1u64, "den": u64::MAX}));
    let long_words =
        format!("{} thirds", "nine hundred and ninety-nine million nine hundred and ninety-nine thousand nine hundred and ninety-nine");
    let cases = [
        ("one_in_10^18", "one in 999,999,999,999,999,999".to_string()),
        ("p_in_q_40_digits", format!("{} in {}", "7".repeat(40), "9".repeat(40))),
        ("percentage_40_digits", format!("0.{}1 per cent", "0".repeat(38))),
        ("words_ordinal", long_words),
        ("unreadable_200", "9,999,999 in 9".repeat(15)[..200].to_string()),
    ];
    let mut g = c.benchmark_group("stated_forms");
    for (name, text) in &cases {
        g.bench_function(*name, |b| {
            b.iter(|| {
                judge(text, &share);
                judge(text, &tiny);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
