//! Every stated text is judged in bounded time (issue 14): the fraction search once took
//! time linear in the stated denominator, so `one in 100,000,000` ran until killed.
//!
//! The time-out here is generous (it only turns a hang into a failure); the speed itself
//! is measured by `benches/forms.rs`.

use std::sync::mpsc;
use std::time::Duration;

use countersign_core::check::forms::{self, Computed};
use serde_json::json;

/// Parse, check and bless every text against every value, on another thread; fail when
/// that takes longer than `limit`.
fn judged_within(texts: Vec<String>, limit: Duration) {
    let (done, wait) = mpsc::channel();
    let values = [
        json!({"num": 1, "den": 3}),
        json!({"num": 3, "den": 923}),
        json!({"num": 920, "den": 923}),
        json!(17),
        json!({"num": 1, "den": u64::MAX}),
    ];
    let count = texts.len();
    std::thread::spawn(move || {
        for t in &texts {
            for v in &values {
                let c = Computed::from_json(v);
                if let Some(f) = forms::parse_stated(t, false) {
                    let _ = forms::check(&f, &c);
                    let _ = forms::bless(&f, &c);
                }
            }
        }
        let _ = done.send(());
    });
    assert!(wait.recv_timeout(limit).is_ok(), "judging {count} stated texts took over {limit:?}: a hang");
}

#[test]
fn a_huge_denominator_is_judged_at_once() {
    let texts =
        ["one in 999,999,999,999,999,999", "one in 100,000,000", "two in 999999999999999999999999999999", "1 in 18446744073709551618"];
    judged_within(texts.iter().map(|s| s.to_string()).collect(), Duration::from_secs(30));
}

/// A small deterministic generator (xorshift), so the texts are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// A 200-character stated text built from the pieces forms are made of: digits, groups,
/// points, number words, ordinals, " in ", " of ", " to ", "%", ", " and " and ".
fn text(rng: &mut Rng) -> String {
    const PIECES: [&str; 24] = [
        "9",
        "99",
        "999,",
        "999",
        ",999",
        "0",
        ".",
        "1",
        " in ",
        " of ",
        " to ",
        " out of ",
        "%",
        " per cent",
        ", ",
        " and ",
        "one",
        "hundred",
        "thousand",
        "million",
        "ninety-nine",
        "thirds",
        "a ",
        "-",
    ];
    let mut s = String::new();
    while s.chars().count() < 200 {
        s.push_str(rng.pick(&PIECES));
    }
    s.chars().take(200).collect()
}

#[test]
fn a_thousand_long_texts_are_judged_within_a_generous_time_out() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut texts: Vec<String> = (0..1000).map(|_| text(&mut rng)).collect();
    // And the longest forms that do parse: a 40-digit denominator and a 40-digit decimal.
    texts.push(format!("one in {}", "9".repeat(40)));
    texts.push(format!("{} in {}", "7".repeat(40), "9".repeat(40)));
    texts.push(format!("0.{}1 per cent", "0".repeat(38)));
    judged_within(texts, Duration::from_secs(60));
}
