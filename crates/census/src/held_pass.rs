//! Nim with a held pass: censuses of one, two and three heaps (`held_pass.heaps`,
//! `held_pass.losses`), the full partner table (`held_pass.table`) and the slices of the
//! three-heap partner function with their eventual periods (`held_pass.slices`).
//!
//! The mathematics is in [`countersign_games::held_pass`]: a single pass token shared by both
//! players, not to be spent on the empty board. "Lost" means lost for the player to move
//! with the token still on the table (a P-position). P(x, y) is the unique z ≥ 0 with
//! (x, y, z) lost; it exists and is at most x + y + 1.
//!
//! # Figure data (for the shared figure kinds)
//!
//! * `grid` — [`TwoHeap::grid`] of `held_pass.heaps`: a list of rows, row y, column x
//!   holding the Grundy value of (x, y) with the token, for 0 ≤ x, y ≤ `grid`; the zeros
//!   (which the grid kind rings) are exactly the two-heap losses.
//! * `bars` — [`LossesResult::nim_sum_bars`] of `held_pass.losses`:
//!   `{ "losses": { "<nim-sum>": count, … } }`, one series keyed by nim-sum in increasing
//!   order, the histogram of the nim-sums of the three-heap losses.
//! * `lines` — [`SlicesResult::plot`] of `held_pass.slices`: a list of series
//!   `[{ "name": "a = 2", "points": [[b, c − b], …] }, …]`, one per slice in `plot_slices`,
//!   for middle heaps b = a..=`plot_to`.
//! * `table` — [`SlicesResult::table`] of `held_pass.slices`: a list of row objects
//!   `{ "slice": a, "status": "proved" | "observed" | "unsettled", "law_period": …,
//!   "law_start": …, "certificate_repeat": …, "period": p, "start": s,
//!   "longest_period": …, "longest_start": …, "halved_period": … }` for every slice (null
//!   where no period is accepted or, for `certificate_repeat`, none is proved).

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::{Cancelled, Census, Ctx, ParamDoc, ParamError};
use countersign_games::held_pass::{
    certify_slices, is_two_heap_loss, one_heap_value, two_heap_mate, Certificate, Law, PartnerTable, Period, Periodicity, Recursion, Slices,
};

const SOURCES: &[&str] = &["games/held_pass.rs", "games/impartial.rs", "census/held_pass.rs"];

/// Largest one-heap bound of `held_pass.heaps` (the recursion's memo grows linearly).
pub const HEAPS_MAX_ONE: u64 = 400;
/// Largest two-heap bound of `held_pass.heaps` (the recursion visits (n+1)² positions,
/// each with about 2n options).
pub const HEAPS_MAX_TWO: u64 = 80;

/// Parameters of `held_pass.heaps`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct HeapsParams {
    /// One heap: check the formula against the recursion on heaps 0..=`one_heap`
    /// (0..=400).
    pub one_heap: u64,
    /// Two heaps: check the formula against the recursion on pairs with both heaps at most
    /// `two_heap` (0..=80).
    pub two_heap: u64,
    /// Side of the two-heap grid for the figure: heaps 0..=`grid` (at most `two_heap`).
    pub grid: u64,
}

/// One heap with the token: the recursion against [`one_heap_value`].
#[derive(Clone, Debug, Serialize)]
pub struct OneHeap {
    /// Heaps 0..=max_heap checked.
    pub max_heap: u64,
    /// Heaps checked (max_heap + 1).
    pub checked: u64,
    /// Heaps where formula and recursion agree.
    pub formula_agrees: u64,
    /// The first heap where they differ, if any.
    pub first_difference: Option<u64>,
    /// Grundy values by the recursion, heap 0 first.
    pub values: Vec<u64>,
}

/// Two heaps with the token: the recursion against [`is_two_heap_loss`].
#[derive(Clone, Debug, Serialize)]
pub struct TwoHeap {
    /// Pairs with heaps 0..=max_heap checked.
    pub max_heap: u64,
    /// Ordered pairs checked, (max_heap + 1)².
    pub checked: u64,
    /// Pairs where the formula's loss/win agrees with the recursion.
    pub formula_agrees: u64,
    /// The first pair (x, y) where they differ, if any.
    pub first_difference: Option<[u64; 2]>,
    /// Lost pairs x ≤ y by the recursion, in increasing order.
    pub losses: Vec<[u64; 2]>,
    /// Number of those.
    pub loss_count: u64,
    /// Ordered pairs lost both here and in Nim without a pass (x = y).
    pub shared_with_nim: u64,
    /// Equal non-empty pairs (Nim's losses) that are won here.
    pub nim_losses_won: u64,
    /// The nim-sum of each losing pair (2k − 1, 2k), keyed by k, for the pairs within
    /// max_heap.
    pub mate_nim_sums: BTreeMap<u64, u64>,
    /// Grundy values for the figure: row y, column x, 0 ≤ x, y ≤ grid.
    pub grid: Vec<Vec<u64>>,
}

/// Result of `held_pass.heaps`.
#[derive(Clone, Debug, Serialize)]
pub struct HeapsResult {
    /// The one-heap check.
    pub one_heap: OneHeap,
    /// The two-heap check.
    pub two_heap: TwoHeap,
}

/// `held_pass.heaps`: the one- and two-heap formulas checked position by position
/// against the plain recursion, the two-heap losses, and the grid of two-heap Grundy
/// values.
///
/// Cost: about (n₂+1)²·2n₂ option visits for the two-heap part plus n₁² for one heap;
/// `{one_heap: 40, two_heap: 20, grid: 16}` runs in a few milliseconds.
pub struct HeldPassHeaps;

impl Census for HeldPassHeaps {
    type Params = HeapsParams;
    type Output = HeapsResult;

    const NAME: &'static str = "held_pass.heaps";
    const SUMMARY: &'static str = "Nim with a held pass on one and two heaps: formulas against the recursion, losses, grid of values";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc { name: "one_heap", shape: "integer", doc: "check one heap 0..=one_heap, at most 400" },
        ParamDoc { name: "two_heap", shape: "integer", doc: "check pairs with heaps 0..=two_heap, at most 80" },
        ParamDoc { name: "grid", shape: "integer", doc: "grid of two-heap values 0..=grid, at most two_heap" },
    ];
    const COST_MODEL: &'static str = "(two_heap + 1)² · 2·two_heap · 50 + (one_heap + 1)² · 50 steps (recursion with hashing)";
    const SOURCES: &'static [&'static str] = SOURCES;

    fn validate(p: &HeapsParams) -> Result<(), ParamError> {
        if p.one_heap > HEAPS_MAX_ONE {
            return Err(ParamError::at(&["one_heap"], format!("one_heap is {}, over the limit", p.one_heap))
                .hint(format!("the limit is {HEAPS_MAX_ONE}")));
        }
        if p.two_heap > HEAPS_MAX_TWO {
            return Err(ParamError::at(&["two_heap"], format!("two_heap is {}, over the limit", p.two_heap))
                .hint(format!("the limit is {HEAPS_MAX_TWO}")));
        }
        if p.grid > p.two_heap {
            return Err(ParamError::at(&["grid"], format!("grid is {} but two_heap is {}", p.grid, p.two_heap))
                .hint("the grid shows checked pairs: make it at most two_heap"));
        }
        Ok(())
    }

    fn cost(p: &HeapsParams) -> u64 {
        let t = p.two_heap.saturating_add(1);
        let o = p.one_heap.saturating_add(1);
        t.saturating_mul(t).saturating_mul(2 * t).saturating_mul(50).saturating_add(o.saturating_mul(o).saturating_mul(50))
    }

    fn run(p: &HeapsParams, ctx: &Ctx) -> Result<HeapsResult, Cancelled> {
        let mut rec = Recursion::new();
        let mut values = Vec::new();
        let mut agrees = 0;
        let mut first = None;
        for h in 0..=p.one_heap {
            ctx.checkpoint()?;
            let v = rec.value(&[h], true);
            if v == one_heap_value(h) {
                agrees += 1;
            } else if first.is_none() {
                first = Some(h);
            }
            values.push(v);
        }
        let one_heap = OneHeap { max_heap: p.one_heap, checked: p.one_heap + 1, formula_agrees: agrees, first_difference: first, values };
        let n = p.two_heap;
        let mut agrees = 0;
        let mut first = None;
        let mut losses = Vec::new();
        let mut shared = 0;
        let mut nim_won = 0;
        let mut grid = vec![vec![0u64; p.grid as usize + 1]; p.grid as usize + 1];
        for y in 0..=n {
            ctx.checkpoint()?;
            for x in 0..=n {
                let v = rec.value(&[x, y], true);
                let lost = v == 0;
                if lost == is_two_heap_loss(x, y) {
                    agrees += 1;
                } else if first.is_none() {
                    first = Some([x, y]);
                }
                if lost && x <= y {
                    losses.push([x, y]);
                }
                if lost && x == y {
                    shared += 1;
                }
                if !lost && x == y && x > 0 {
                    nim_won += 1;
                }
                if x <= p.grid && y <= p.grid {
                    grid[y as usize][x as usize] = v;
                }
            }
        }
        losses.sort_unstable();
        let mate_nim_sums = (1..=n / 2).map(|k| (k, (2 * k - 1) ^ two_heap_mate(2 * k - 1))).collect();
        let two_heap = TwoHeap {
            max_heap: n,
            checked: (n + 1) * (n + 1),
            formula_agrees: agrees,
            first_difference: first,
            loss_count: losses.len() as u64,
            losses,
            shared_with_nim: shared,
            nim_losses_won: nim_won,
            mate_nim_sums,
            grid,
        };
        Ok(HeapsResult { one_heap, two_heap })
    }
}

/// Largest `max_heap` of `held_pass.losses` (the result lists every loss and the partner
/// matrix, (n+1)² entries).
pub const LOSSES_MAX_HEAP: u32 = 200;
/// Largest `recursion_to` of `held_pass.losses`.
pub const LOSSES_MAX_RECURSION: u32 = 16;

/// Parameters of `held_pass.losses`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct LossesParams {
    /// Three non-empty heaps, each at most `max_heap` (1..=200).
    pub max_heap: u32,
    /// Also check the table against the plain recursion on every triple with heaps
    /// 0..=`recursion_to` (0..=16; default 0, a check of the empty board only).
    #[serde(default)]
    pub recursion_to: u32,
}

/// The table checked against the recursion.
#[derive(Clone, Debug, Serialize)]
pub struct RecursionCheck {
    /// Heaps 0..=max_heap.
    pub max_heap: u32,
    /// Sorted triples a ≤ b ≤ c checked.
    pub triples: u64,
    /// Triples where table and recursion agree on lost/won.
    pub agree: u64,
    /// The first triple where they differ, if any.
    pub first_difference: Option<[u32; 3]>,
}

/// Result of `held_pass.losses`.
#[derive(Clone, Debug, Serialize)]
pub struct LossesResult {
    /// The bound on the heaps.
    pub max_heap: u32,
    /// Lost positions with three non-empty heaps a ≤ b ≤ c ≤ max_heap.
    pub count: u64,
    /// Number of distinct nim-sums among them.
    pub distinct_nim_sums: u64,
    /// Of them, how many have nim-sum 0 (the pass argument says none).
    pub zero_nim_sum: u64,
    /// nim-sum → number of losses with it, increasing nim-sum.
    pub histogram: BTreeMap<u32, u64>,
    /// The nim-sum with the most losses (the smallest on a tie), and its count.
    pub commonest_nim_sum: Option<[u64; 2]>,
    /// The histogram as one series for the `bars` kind: `{"losses": histogram}`.
    pub nim_sum_bars: BTreeMap<String, BTreeMap<u32, u64>>,
    /// Losses a ≤ b ≤ c by smallest heap a, each row in increasing b.
    pub rows: BTreeMap<u32, Vec<[u32; 3]>>,
    /// Number of losses in each row.
    pub row_counts: BTreeMap<u32, u64>,
    /// Every loss, sorted.
    pub losses: Vec<[u32; 3]>,
    /// partners[x][y] = P(x, y) for x, y ≤ max_heap, null when P(x, y) > max_heap.
    pub partners: Vec<Vec<Option<u32>>>,
    /// The table against the recursion.
    pub recursion: RecursionCheck,
}

/// `held_pass.losses`: the three-heap losses with non-empty heaps up to n, from the full
/// table ([`PartnerTable`]), with their nim-sums, their rows by smallest heap, the
/// partner matrix, and a position-by-position check against the plain recursion.
///
/// Cost: n³/6 table steps (negligible) plus the recursion, about 20·(m+1)⁴ hashed steps
/// for `recursion_to` = m (m = 12: a fraction of a second).
pub struct HeldPassLosses;

impl Census for HeldPassLosses {
    type Params = LossesParams;
    type Output = LossesResult;

    const NAME: &'static str = "held_pass.losses";
    const SUMMARY: &'static str = "Nim with a held pass: losses on three non-empty heaps, their nim-sums, rows and partners";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc { name: "max_heap", shape: "integer", doc: "heaps 1..=max_heap, at most 200" },
        ParamDoc {
            name: "recursion_to",
            shape: "integer",
            doc: "check the table against the recursion on triples 0..=recursion_to, at most 16 (default 0)",
        },
    ];
    const COST_MODEL: &'static str = "(max_heap + 1)³ / 6 + 200 · (recursion_to + 1)⁴ steps";
    const SOURCES: &'static [&'static str] = SOURCES;

    fn validate(p: &LossesParams) -> Result<(), ParamError> {
        if p.max_heap == 0 || p.max_heap > LOSSES_MAX_HEAP {
            return Err(ParamError::at(&["max_heap"], format!("max_heap is {}", p.max_heap))
                .hint(format!("use 1..={LOSSES_MAX_HEAP}; held_pass.table goes further without listing")));
        }
        if p.recursion_to > LOSSES_MAX_RECURSION {
            return Err(ParamError::at(&["recursion_to"], format!("recursion_to is {}", p.recursion_to))
                .hint(format!("the plain recursion is limited to {LOSSES_MAX_RECURSION}")));
        }
        Ok(())
    }

    fn cost(p: &LossesParams) -> u64 {
        let n = p.max_heap as u64 + 1;
        let m = p.recursion_to as u64 + 1;
        n * n * n / 6 + 200 * m * m * m * m
    }

    fn run(p: &LossesParams, ctx: &Ctx) -> Result<LossesResult, Cancelled> {
        let n = p.max_heap.max(p.recursion_to);
        let t = PartnerTable::build(n, |_| !ctx.is_cancelled()).ok_or(Cancelled)?;
        // The recursion check.
        let m = p.recursion_to;
        let mut rec = Recursion::new();
        let (mut triples, mut agree, mut first) = (0u64, 0u64, None);
        for c in 0..=m {
            ctx.checkpoint()?;
            for b in 0..=c {
                for a in 0..=b {
                    triples += 1;
                    let r = rec.is_loss(&[a as u64, b as u64, c as u64]);
                    if r == t.is_loss(a, b, c) {
                        agree += 1;
                    } else if first.is_none() {
                        first = Some([a, b, c]);
                    }
                }
            }
        }
        let recursion = RecursionCheck { max_heap: m, triples, agree, first_difference: first };
        // The losses with non-empty heaps up to max_heap.
        let n = p.max_heap;
        let losses: Vec<[u32; 3]> = t.losses(1).into_iter().filter(|l| l[2] <= n).collect();
        let mut histogram = BTreeMap::new();
        let mut rows: BTreeMap<u32, Vec<[u32; 3]>> = BTreeMap::new();
        for l in &losses {
            *histogram.entry(l[0] ^ l[1] ^ l[2]).or_insert(0u64) += 1;
            rows.entry(l[0]).or_default().push(*l);
        }
        let row_counts = rows.iter().map(|(&a, r)| (a, r.len() as u64)).collect();
        let commonest = histogram.iter().fold(None::<[u64; 2]>, |best, (&s, &c)| match best {
            Some(b) if b[1] >= c => Some(b),
            _ => Some([s as u64, c]),
        });
        let partners = (0..=n).map(|x| (0..=n).map(|y| t.partner(x, y)).collect()).collect();
        Ok(LossesResult {
            max_heap: n,
            count: losses.len() as u64,
            distinct_nim_sums: histogram.len() as u64,
            zero_nim_sum: histogram.get(&0).copied().unwrap_or(0),
            commonest_nim_sum: commonest,
            nim_sum_bars: BTreeMap::from([("losses".to_string(), histogram.clone())]),
            histogram,
            rows,
            row_counts,
            losses,
            partners,
            recursion,
        })
    }
}

/// Parameters of `held_pass.table`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct TableParams {
    /// Every triple of heaps 0..=`max_heap` (1..=4000).
    pub max_heap: u32,
}

/// Result of `held_pass.table`.
#[derive(Clone, Debug, Serialize)]
pub struct TableResult {
    /// The bound N.
    pub max_heap: u32,
    /// Sorted triples 0 ≤ a ≤ b ≤ c ≤ N settled: C(N + 3, 3).
    pub triples: u64,
    /// Of them lost (empty heaps included).
    pub losses: u64,
    /// Of them lost with three non-empty heaps.
    pub nonempty_losses: u64,
    /// Unordered pairs x ≤ y ≤ N.
    pub pairs: u64,
    /// Of them, pairs whose partner is at most N.
    pub pairs_partnered: u64,
}

/// `held_pass.table`: the full table of the source essay, every sorted triple with heaps
/// up to N settled in order ([`PartnerTable`]), with its counts.
///
/// Cost: C(N+3, 3)/64 word steps plus 2.1·(N+1)² bytes; N = 1100 (223,045,351 triples)
/// takes tens of milliseconds.
pub struct HeldPassTable;

impl Census for HeldPassTable {
    type Params = TableParams;
    type Output = TableResult;

    const NAME: &'static str = "held_pass.table";
    const SUMMARY: &'static str = "Nim with a held pass: every triple to a bound settled in order (the full table)";
    const PARAMS: &'static [ParamDoc] = &[ParamDoc { name: "max_heap", shape: "integer", doc: "heaps 0..=max_heap, 1..=4000" }];
    const COST_MODEL: &'static str = "C(max_heap + 3, 3) / 16 + 4·(max_heap + 1)² steps";
    const SOURCES: &'static [&'static str] = SOURCES;

    fn validate(p: &TableParams) -> Result<(), ParamError> {
        if p.max_heap == 0 || p.max_heap > countersign_games::held_pass::TABLE_MAX_HEAP {
            return Err(ParamError::at(&["max_heap"], format!("max_heap is {}", p.max_heap))
                .hint("use 1..=4000; held_pass.slices reaches far larger middle heaps"));
        }
        Ok(())
    }

    fn cost(p: &TableParams) -> u64 {
        let n = p.max_heap as u64;
        (n + 1) * (n + 2) * (n + 3) / 6 / 16 + 4 * (n + 1) * (n + 1)
    }

    fn run(p: &TableParams, ctx: &Ctx) -> Result<TableResult, Cancelled> {
        let total = (p.max_heap as u64 + 1) * (p.max_heap as u64 + 2) * (p.max_heap as u64 + 3) / 6;
        let t = PartnerTable::build(p.max_heap, |done| {
            ctx.progress(done, total);
            !ctx.is_cancelled()
        })
        .ok_or(Cancelled)?;
        let n = p.max_heap;
        let (mut losses, mut nonempty, mut pairs, mut partnered) = (0u64, 0u64, 0u64, 0u64);
        for x in 0..=n {
            for y in x..=n {
                pairs += 1;
                if let Some(z) = t.partner(x, y) {
                    partnered += 1;
                    if z >= y {
                        losses += 1;
                        if x > 0 {
                            nonempty += 1;
                        }
                    }
                }
            }
        }
        Ok(TableResult { max_heap: n, triples: t.triples(), losses, nonempty_losses: nonempty, pairs, pairs_partnered: partnered })
    }
}

/// Largest number of slices `held_pass.slices` accepts (offsets stored in one byte).
pub const SLICES_MAX_SLICES: u32 = countersign_games::held_pass::SLICES_MAX;
/// Largest (slices + 1)·(max_heap + 1) of `held_pass.slices`: one byte of offset each
/// plus an eighth of a byte for the row sets, so at most about 1.13 GB; the only limit on
/// `max_heap` besides `max_heap` ≥ `slices`.
pub const SLICES_MAX_ENTRIES: u64 = 1_000_000_000;
/// Largest `plot_to`.
pub const SLICES_MAX_PLOT: u32 = 5000;
/// Terms a periodic tail must run past its start (the source essay's twenty heaps).
pub const MIN_RUN: usize = 20;
/// Slices whose offsets are read together for the period search (one pass over the
/// slices' storage per group; each offset is one byte per middle heap).
const PERIOD_GROUP: usize = 6;
/// Longest repeating block written out in full in a slice's result.
pub const BLOCK_SHOWN: usize = 16;

/// Parameters of `held_pass.slices`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct SlicesParams {
    /// Slices 1..=`slices` (smallest heap a), 1..=200.
    pub slices: u32,
    /// Middle heaps b = a..=`max_heap`, at least `slices`, with
    /// (slices + 1)·(max_heap + 1) at most 1,000,000,000.
    pub max_heap: u32,
    /// Largest period searched (default: none beyond a third of the range).
    #[serde(default)]
    pub max_period: Option<u32>,
    /// Slices whose offsets are written out for the `lines` figure (default none).
    #[serde(default)]
    pub plot_slices: Vec<u32>,
    /// Last middle heap written out for the figure (default 0; at most 5000 and
    /// `max_heap`).
    #[serde(default)]
    pub plot_to: u32,
}

/// An accepted eventual period of one slice's offsets.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct SlicePeriod {
    /// The period p.
    pub period: u64,
    /// The middle heap b from which the offsets repeat with period p to the end of the
    /// range (earliest such).
    pub start: u64,
    /// Length of the periodic tail: max_heap − start + 1 middle heaps.
    pub tail: u64,
    /// Full periods in the tail (tail / period, rounded down).
    pub repeats: u64,
}

/// How a slice's eventual period is known.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A [`Certificate`] proves the period for every middle heap from the start on (and
    /// every slice below is proved).
    Proved,
    /// A period with the longest periodic tail is seen in the range, but no certificate
    /// proves it (the range is too short, or a slice below is not proved).
    Observed,
    /// No period is accepted in the range.
    Unsettled,
}

/// The certificate behind a proved slice, as numbers (see [`Certificate`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct CertificateView {
    /// b₁: the middle heap where the state is taken.
    pub from: u64,
    /// q: the state at b₁ + q is the state at b₁, a multiple of `modulus`.
    pub repeat: u64,
    /// L = lcm(2^k, proved periods of the slices below), 2^k the least power of two above a.
    pub modulus: u64,
    /// b₀ = max(a, 1, proved starts of the slices below), at most b₁.
    pub settled_below: u64,
}

/// A slice's eventual law: its least period and earliest start, proved or observed.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct SliceLaw {
    /// Proved or observed (never unsettled: an unsettled slice has no law).
    pub status: Status,
    /// The least period, in middle heaps: proved, the least eventual period of the whole
    /// infinite slice; observed, the accepted period with the longest periodic tail.
    pub period: u64,
    /// The earliest middle heap from which that period holds (for ever when proved, to the
    /// end of the range when observed).
    pub start: u64,
    /// The certificate, when proved.
    pub certificate: Option<CertificateView>,
}

/// One slice: the offsets c − b of c = P(a, b), b = a..=N, and their periods.
#[derive(Clone, Debug, Serialize)]
pub struct SliceResult {
    /// Proved, observed or unsettled.
    pub status: Status,
    /// The slice's law (least period and earliest start), null when unsettled.
    pub law: Option<SliceLaw>,
    /// The smallest accepted period with its earliest start (the source essay's rule);
    /// null when none is accepted.
    pub period: Option<SlicePeriod>,
    /// The accepted period with the longest periodic tail; differs from `period` when a
    /// short repetition near the end of the range is accepted first.
    pub longest: Option<SlicePeriod>,
    /// `period` over the halved range, middle heaps a..=N/2.
    pub halved: Option<SlicePeriod>,
    /// `longest` over the halved range.
    pub halved_longest: Option<SlicePeriod>,
    /// True when `period` and `halved` have the same period (both null counts as the
    /// same).
    pub same_when_halved: bool,
    /// True when `longest` and `halved_longest` have the same period.
    pub longest_same_when_halved: bool,
    /// The repeating block of offsets (one period from `period.start`) when the period
    /// is at most 16.
    pub block: Option<Vec<i64>>,
    /// Least and greatest offset over the whole range.
    pub offset_range: [i64; 2],
}

/// A row of the period table figure.
#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    /// The slice a.
    pub slice: u32,
    /// "proved", "observed" or "unsettled".
    pub status: Status,
    /// `law.period`, null when unsettled.
    pub law_period: Option<u64>,
    /// `law.start`.
    pub law_start: Option<u64>,
    /// `law.certificate.repeat`, null unless proved.
    pub certificate_repeat: Option<u64>,
    /// `period.period`, null when none.
    pub period: Option<u64>,
    /// `period.start`.
    pub start: Option<u64>,
    /// `longest.period`.
    pub longest_period: Option<u64>,
    /// `longest.start`.
    pub longest_start: Option<u64>,
    /// `halved.period`.
    pub halved_period: Option<u64>,
}

/// One series of the slice plot.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// Legend name, "a = 2".
    pub name: String,
    /// [b, c − b] for b = a..=plot_to.
    pub points: Vec<[i64; 2]>,
}

/// A range of middle heaps, `{min, max}` (the checker reads it as "A to B").
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct Span {
    /// The least value.
    pub min: u64,
    /// The greatest value.
    pub max: u64,
}

/// Result of `held_pass.slices`.
#[derive(Clone, Debug, Serialize)]
pub struct SlicesResult {
    /// A: slices 1..=A.
    pub slices: u32,
    /// N: middle heaps up to N.
    pub max_heap: u32,
    /// Largest period searched in the full range: min(max_period, (N − A + 1)/3) for the
    /// last slice.
    pub max_period_searched: u64,
    /// Slice 0 (the two-heap mates), proved first: every certificate rests on it.
    pub slice_zero: Option<SliceLaw>,
    /// Slices 1..=A proved by a certificate, increasing.
    pub proved: Vec<u32>,
    /// Number of those.
    pub proved_count: u64,
    /// The largest a with slices 1..=a all proved (0 when slice 1 is not).
    pub proved_through: u32,
    /// Slices with an observed but unproved law, increasing.
    pub observed: Vec<u32>,
    /// `law.period` of slices 1..=A in order (index 0 is slice 1), null where unsettled.
    pub law_periods: Vec<Option<u64>>,
    /// `law.start` of slices 1..=A in order, null where unsettled.
    pub law_starts: Vec<Option<u64>>,
    /// The largest proved period, and the latest proved start.
    pub largest_proved_period: Option<u64>,
    /// The latest proved start.
    pub latest_proved_start: Option<u64>,
    /// Slices with an accepted period (`period` non-null).
    pub settled: u64,
    /// Slices without one.
    pub unsettled: Vec<u32>,
    /// Slices whose smallest accepted period is not the one with the longest tail.
    pub spurious: Vec<u32>,
    /// Slices whose smallest accepted period changes when the range is halved.
    pub changed_when_halved: Vec<u32>,
    /// Slices whose longest-tail period changes when the range is halved.
    pub longest_changed_when_halved: Vec<u32>,
    /// The largest accepted start (`period.start`) over the settled slices.
    pub latest_start: Option<u64>,
    /// The largest accepted period over the settled slices.
    pub largest_period: Option<u64>,
    /// Distinct accepted periods (`period`), increasing.
    pub periods: Vec<u64>,
    /// `period.period` of slices 1..=A in order (index 0 is slice 1), null where none.
    pub period_list: Vec<Option<u64>>,
    /// `period.start` of slices 1..=A in order, null where none.
    pub start_list: Vec<Option<u64>>,
    /// `longest.period` of slices 1..=A in order, null where none.
    pub longest_list: Vec<Option<u64>>,
    /// `longest.start` of slices 1..=A in order, null where none.
    pub longest_start_list: Vec<Option<u64>>,
    /// For each a, the least and greatest `period.start` over the settled slices among
    /// 1..=a as `{min, max}` (null while none is settled), e.g. `start_span.9` is 3 to 22.
    pub start_span: BTreeMap<u32, Option<Span>>,
    /// Per slice, keyed by a.
    pub per_slice: BTreeMap<u32, SliceResult>,
    /// Rows for the `table` figure, one per slice.
    pub table: Vec<TableRow>,
    /// Series for the `lines` figure.
    pub plot: Vec<Series>,
}

/// `held_pass.slices`: slices 1..=A of the partner function for middle heaps up to N by
/// the slice method ([`Slices`]), and for each the eventual period of its offsets
/// c − b by the Z-function ([`Periodicity`]), with the source essay's acceptance rule:
/// the tail covers at least three periods and runs at least twenty heaps past its start;
/// the smallest accepted period is reported with its earliest start, periods searched up
/// to a third of the range (and `max_period`). Also reported per slice: the accepted
/// period with the longest periodic tail, both over the halved range a..=N/2, and the
/// slice's law: proved by a [`Certificate`] (slices in order from slice 0, each on the
/// laws of those below; the theorem is on [`Certificate`]) or only observed (the longest
/// tail).
///
/// Cost: about 3·N·(A+1)(A+4)/2 steps for the slices, on all cores, plus 80·N·(A+1) for
/// the periods (about 7·10⁹ of these steps a second); memory about 1.13·(A+1)·(N+1) bytes
/// for the slices plus, per core, about 100 bytes per middle heap for one group of six
/// slices' period search. Measured as a whole `countersign run` on a 2-core machine shared
/// with other builds (load average about 4.5): `{slices: 40, max_heap: 1000000}` 0.7 s
/// wall, 0.9 s of CPU, 68 MB resident; `{slices: 44, max_heap: 10000000}` 8.2 s wall,
/// 10.0 s of CPU, 661 MB resident (33 s wall at load average 10). `benches/held_pass.rs`
/// times both.
pub struct HeldPassSlices;

fn slice_period(p: Option<Period>, a: u32) -> Option<SlicePeriod> {
    p.map(|q| SlicePeriod {
        period: q.period as u64,
        start: q.start as u64 + a as u64,
        tail: q.tail as u64,
        repeats: (q.tail / q.period) as u64,
    })
}

/// The periods of slice `a` read from its offsets `d` (middle heaps a..=n; no
/// certificate yet).
fn read_periods(d: &[i8], a: u32, n: u32, maxp: usize) -> SliceResult {
    let full = Periodicity::new(d, maxp);
    let period = slice_period(full.smallest(MIN_RUN), a);
    let longest = slice_period(full.longest_tail(MIN_RUN), a);
    drop(full);
    let half = n / 2;
    let (halved, halved_longest) = if half >= a {
        let h = Periodicity::new(&d[..(half - a) as usize + 1], maxp);
        (slice_period(h.smallest(MIN_RUN), a), slice_period(h.longest_tail(MIN_RUN), a))
    } else {
        (None, None)
    };
    let block = period.filter(|q| q.period as usize <= BLOCK_SHOWN).map(|q| {
        let i = (q.start - a as u64) as usize;
        d[i..i + q.period as usize].iter().map(|&x| x as i64).collect()
    });
    let lo = d.iter().copied().min().unwrap_or(0) as i64;
    let hi = d.iter().copied().max().unwrap_or(0) as i64;
    let observed = longest.map(|q| SliceLaw { status: Status::Observed, period: q.period, start: q.start, certificate: None });
    SliceResult {
        status: if longest.is_some() { Status::Observed } else { Status::Unsettled },
        law: observed,
        same_when_halved: period.map(|q| q.period) == halved.map(|q| q.period),
        longest_same_when_halved: longest.map(|q| q.period) == halved_longest.map(|q| q.period),
        period,
        longest,
        halved,
        halved_longest,
        block,
        offset_range: [lo, hi],
    }
}

/// Prove what can be proved: certify slices 0..=A in order on the candidates read from the
/// data (the longest tail), and replace each proved slice's law by the certified one.
/// Returns slice 0's law.
fn prove(s: &Slices, zero: &SliceResult, per_slice: &mut BTreeMap<u32, SliceResult>) -> Option<SliceLaw> {
    let candidate = |r: &SliceResult| r.longest.map(|q| (q.period, q.start));
    let mut candidates = vec![candidate(zero)];
    candidates.extend(per_slice.values().map(candidate));
    let proved = certify_slices(s, &candidates);
    let law = |(c, l): &(Certificate, Law)| SliceLaw {
        status: Status::Proved,
        period: l.period,
        start: l.start,
        certificate: Some(CertificateView { from: c.from, repeat: c.repeat, modulus: c.modulus, settled_below: c.settled_below }),
    };
    for (a, r) in per_slice.iter_mut() {
        if let Some(got) = &proved[*a as usize] {
            r.status = Status::Proved;
            r.law = Some(law(got));
        }
    }
    proved[0].as_ref().map(law).or(zero.law)
}

impl Census for HeldPassSlices {
    type Params = SlicesParams;
    type Output = SlicesResult;

    const NAME: &'static str = "held_pass.slices";
    const SUMMARY: &'static str = "Nim with a held pass: slices of the three-heap partner function and their eventual periods";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc { name: "slices", shape: "integer", doc: "slices (smallest heap) 1..=slices, at most 126" },
        ParamDoc {
            name: "max_heap",
            shape: "integer",
            doc: "middle heaps up to max_heap: at least slices, (slices+1)(max_heap+1) ≤ 10⁹ (1.13 bytes each)",
        },
        ParamDoc { name: "max_period", shape: "integer", doc: "largest period searched (default: a third of the range)" },
        ParamDoc { name: "plot_slices", shape: "list of integers", doc: "slices written out for the plot (default none)" },
        ParamDoc { name: "plot_to", shape: "integer", doc: "last middle heap written out, ≤ 5000 and ≤ max_heap (default 0)" },
    ];
    const COST_MODEL: &'static str =
        "3·max_heap·(slices+1)(slices+4)/2 + 80·max_heap·(slices+1) steps; memory 1.13·(slices+1)(max_heap+1) bytes";
    const SOURCES: &'static [&'static str] = SOURCES;

    fn validate(p: &SlicesParams) -> Result<(), ParamError> {
        if p.slices == 0 || p.slices > SLICES_MAX_SLICES {
            return Err(ParamError::at(&["slices"], format!("slices is {}", p.slices)).hint(format!("use 1..={SLICES_MAX_SLICES}")));
        }
        if p.max_heap < p.slices {
            return Err(ParamError::at(&["max_heap"], format!("max_heap is {}, below slices", p.max_heap))
                .hint(format!("use at least {}", p.slices)));
        }
        let entries = (p.slices as u64 + 1) * (p.max_heap as u64 + 1);
        if entries > SLICES_MAX_ENTRIES {
            return Err(ParamError::at(
                &["max_heap"],
                format!("{} slices to {} need {entries} entries, over the limit of {SLICES_MAX_ENTRIES}", p.slices, p.max_heap),
            )
            .hint("fewer slices or a smaller max_heap (1.13 bytes an entry)"));
        }
        if p.max_period == Some(0) {
            return Err(ParamError::at(&["max_period"], "max_period is 0").hint("a period is at least 1"));
        }
        if let Some(&bad) = p.plot_slices.iter().find(|&&a| a == 0 || a > p.slices) {
            return Err(
                ParamError::at(&["plot_slices"], format!("slice {bad} is not computed")).hint(format!("plot slices from 1..={}", p.slices))
            );
        }
        if p.plot_slices.len() > 12 {
            return Err(ParamError::at(&["plot_slices"], "more than 12 slices to plot").hint("a plot reads with a few"));
        }
        if p.plot_to > SLICES_MAX_PLOT || p.plot_to > p.max_heap {
            return Err(ParamError::at(&["plot_to"], format!("plot_to is {}", p.plot_to))
                .hint(format!("at most {SLICES_MAX_PLOT} and at most max_heap")));
        }
        Ok(())
    }

    fn cost(p: &SlicesParams) -> u64 {
        let n = p.max_heap as u64;
        let a = p.slices as u64;
        3 * n * (a + 1) * (a + 4) / 2 + 80 * n * (a + 1)
    }

    fn run(p: &SlicesParams, ctx: &Ctx) -> Result<SlicesResult, Cancelled> {
        let s = Slices::compute(p.slices, p.max_heap, |done, total| {
            ctx.progress(done, total);
            !ctx.is_cancelled()
        })
        .ok_or(Cancelled)?;
        let maxp = p.max_period.map_or(usize::MAX, |m| m as usize);
        // Slices in groups of PERIOD_GROUP, each group's offsets read in one pass.
        let all: Vec<u32> = (0..=p.slices).collect();
        let mut per: BTreeMap<u32, SliceResult> = all
            .par_chunks(PERIOD_GROUP)
            .flat_map_iter(|g| {
                let offsets = s.offsets_of(g[0]..=g[g.len() - 1]);
                g.iter().zip(offsets).map(|(&a, d)| (a, read_periods(&d, a, p.max_heap, maxp))).collect::<Vec<_>>()
            })
            .collect();
        ctx.checkpoint()?;
        let zero = per.remove(&0).expect("slice 0 is read");
        let slice_zero = prove(&s, &zero, &mut per);
        Ok(summarize(p, &s, slice_zero, per))
    }
}

/// The result from the per-slice readings.
fn summarize(p: &SlicesParams, s: &Slices, slice_zero: Option<SliceLaw>, per_slice: BTreeMap<u32, SliceResult>) -> SlicesResult {
    let n = p.max_heap;
    let maxp = p.max_period.map_or(u64::MAX, |m| m as u64);
    let pick = |f: &dyn Fn(&SliceResult) -> bool| -> Vec<u32> { per_slice.iter().filter(|(_, r)| f(r)).map(|(&a, _)| a).collect() };
    let list = |f: &dyn Fn(&SliceResult) -> Option<u64>| -> Vec<Option<u64>> { per_slice.values().map(f).collect() };
    let proved = pick(&|r| r.status == Status::Proved);
    let proved_laws: Vec<SliceLaw> = per_slice.values().filter_map(|r| r.law.filter(|l| l.status == Status::Proved)).collect();
    let settled: Vec<&SlicePeriod> = per_slice.values().filter_map(|r| r.period.as_ref()).collect();
    let mut periods: Vec<u64> = settled.iter().map(|q| q.period).collect();
    periods.sort_unstable();
    periods.dedup();
    let table = per_slice.iter().map(|(&a, r)| table_row(a, r)).collect();
    let plot = p
        .plot_slices
        .iter()
        .map(|&a| Series {
            name: format!("a = {a}"),
            points: (a..=p.plot_to).filter_map(|b| s.partner(a, b).map(|c| [b as i64, c as i64 - b as i64])).collect(),
        })
        .collect();
    let mut span: Option<Span> = None;
    let start_span = per_slice
        .iter()
        .map(|(&a, r)| {
            if let Some(q) = r.period {
                span = Some(
                    span.map_or(Span { min: q.start, max: q.start }, |sp| Span { min: sp.min.min(q.start), max: sp.max.max(q.start) }),
                );
            }
            (a, span)
        })
        .collect();
    SlicesResult {
        slices: p.slices,
        max_heap: n,
        max_period_searched: ((n - p.slices + 1) as u64 / 3).min(maxp),
        slice_zero,
        proved_count: proved.len() as u64,
        proved_through: (1..=p.slices).take_while(|a| proved.contains(a)).last().unwrap_or(0),
        proved,
        observed: pick(&|r| r.status == Status::Observed),
        law_periods: list(&|r| r.law.map(|l| l.period)),
        law_starts: list(&|r| r.law.map(|l| l.start)),
        largest_proved_period: proved_laws.iter().map(|l| l.period).max(),
        latest_proved_start: proved_laws.iter().map(|l| l.start).max(),
        settled: settled.len() as u64,
        latest_start: settled.iter().map(|q| q.start).max(),
        largest_period: settled.iter().map(|q| q.period).max(),
        periods,
        unsettled: pick(&|r| r.period.is_none()),
        spurious: pick(&|r| r.period.map(|q| q.period) != r.longest.map(|q| q.period)),
        changed_when_halved: pick(&|r| !r.same_when_halved),
        longest_changed_when_halved: pick(&|r| !r.longest_same_when_halved),
        period_list: list(&|r| r.period.map(|q| q.period)),
        start_list: list(&|r| r.period.map(|q| q.start)),
        longest_list: list(&|r| r.longest.map(|q| q.period)),
        longest_start_list: list(&|r| r.longest.map(|q| q.start)),
        start_span,
        per_slice,
        table,
        plot,
    }
}

fn table_row(a: u32, r: &SliceResult) -> TableRow {
    TableRow {
        slice: a,
        status: r.status,
        law_period: r.law.map(|l| l.period),
        law_start: r.law.map(|l| l.start),
        certificate_repeat: r.law.and_then(|l| l.certificate).map(|c| c.repeat),
        period: r.period.map(|q| q.period),
        start: r.period.map(|q| q.start),
        longest_period: r.longest.map(|q| q.period),
        longest_start: r.longest.map(|q| q.start),
        halved_period: r.halved.map(|q| q.period),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heaps_census_agrees_with_formulas() {
        let p = HeapsParams { one_heap: 40, two_heap: 20, grid: 16 };
        HeldPassHeaps::validate(&p).unwrap();
        let r = HeldPassHeaps::run(&p, &Ctx::new()).unwrap();
        assert_eq!(r.one_heap.formula_agrees, 41);
        assert_eq!(r.two_heap.formula_agrees, 441);
        assert_eq!(r.two_heap.shared_with_nim, 1);
        assert_eq!(r.two_heap.mate_nim_sums[&3], 3);
        assert_eq!(r.two_heap.grid.len(), 17);
        assert_eq!(r.two_heap.grid[6][5], 0);
    }

    #[test]
    fn losses_census_counts_and_checks() {
        let p = LossesParams { max_heap: 20, recursion_to: 8 };
        HeldPassLosses::validate(&p).unwrap();
        let r = HeldPassLosses::run(&p, &Ctx::new()).unwrap();
        assert_eq!(r.recursion.agree, r.recursion.triples);
        assert_eq!(r.zero_nim_sum, 0);
        assert_eq!(r.count, r.histogram.values().sum::<u64>());
        assert_eq!(r.rows[&2][0], [2, 2, 2]);
        assert_eq!(r.partners[1][2], Some(0));
    }

    #[test]
    fn slices_census_finds_the_small_periods() {
        let p = SlicesParams { slices: 4, max_heap: 400, max_period: None, plot_slices: vec![2], plot_to: 30 };
        HeldPassSlices::validate(&p).unwrap();
        let r = HeldPassSlices::run(&p, &Ctx::new()).unwrap();
        let two = &r.per_slice[&2];
        assert_eq!(two.period.map(|q| (q.period, q.start)), Some((4, 9)));
        assert_eq!(two.block, Some(vec![3, 1, -1, -3]));
        assert_eq!(r.plot[0].points[0], [2, 0]);
        assert_eq!(r.table.len(), 4);
        assert_eq!(r.period_list, vec![Some(1), Some(4), Some(4), Some(8)]);
        assert_eq!(r.start_span[&4], Some(Span { min: 3, max: 10 }));
    }

    #[test]
    fn slices_census_proves_the_small_slices() {
        let p = SlicesParams { slices: 12, max_heap: 3000, max_period: None, plot_slices: vec![], plot_to: 0 };
        let r = HeldPassSlices::run(&p, &Ctx::new()).unwrap();
        assert_eq!(r.slice_zero.map(|l| (l.status, l.period, l.start)), Some((Status::Proved, 2, 1)));
        let two = r.per_slice[&2].law.unwrap();
        assert_eq!((two.status, two.period, two.start), (Status::Proved, 4, 9));
        assert_eq!(r.proved, (1..=12).collect::<Vec<_>>());
        assert_eq!(r.proved_through, 12);
        assert_eq!(r.law_periods[9..12], [Some(160), Some(160), Some(160)]);
        assert_eq!(r.law_starts[10], Some(336));
        // Up to 60, slice 9 (period 10 from 20) repeats often enough to be observed, but
        // its certificate needs the state at 40 to recur at 120 (the modulus is 16).
        let p = SlicesParams { slices: 10, max_heap: 60, max_period: None, plot_slices: vec![], plot_to: 0 };
        let r = HeldPassSlices::run(&p, &Ctx::new()).unwrap();
        assert_eq!(r.proved_through, 8);
        let nine = r.per_slice[&9].law.unwrap();
        assert_eq!((nine.status, nine.period, nine.start, nine.certificate), (Status::Observed, 10, 20, None));
        assert_eq!(r.observed, vec![9]);
        assert_eq!(r.per_slice[&10].status, Status::Unsettled);
        assert_eq!(r.table[8].status, Status::Observed);
    }

    #[test]
    fn limits_are_refused() {
        let bad = SlicesParams { slices: 100, max_heap: 100_000_000, max_period: None, plot_slices: vec![], plot_to: 0 };
        assert_eq!(HeldPassSlices::validate(&bad).unwrap_err().path, vec!["max_heap"]);
        let ten_million = SlicesParams { slices: 44, max_heap: 10_000_000, max_period: None, plot_slices: vec![], plot_to: 0 };
        assert!(HeldPassSlices::validate(&ten_million).is_ok());
        let bad = SlicesParams { slices: 127, max_heap: 1000, max_period: None, plot_slices: vec![], plot_to: 0 };
        assert_eq!(HeldPassSlices::validate(&bad).unwrap_err().path, vec!["slices"]);
        let bad = SlicesParams { slices: 4, max_heap: 3, max_period: None, plot_slices: vec![], plot_to: 0 };
        assert!(HeldPassSlices::validate(&bad).is_err());
        let bad = SlicesParams { slices: 4, max_heap: 30, max_period: None, plot_slices: vec![5], plot_to: 0 };
        assert_eq!(HeldPassSlices::validate(&bad).unwrap_err().path, vec!["plot_slices"]);
        assert!(HeldPassTable::validate(&TableParams { max_heap: 5000 }).is_err());
        assert!(HeldPassLosses::validate(&LossesParams { max_heap: 0, recursion_to: 0 }).is_err());
        assert!(HeldPassHeaps::validate(&HeapsParams { one_heap: 10, two_heap: 10, grid: 11 }).is_err());
        assert!(HeldPassSlices::cost(&ten_million) < countersign_core::config::DEFAULT_BUDGET);
    }
}
