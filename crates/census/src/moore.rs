//! Moore's Nim_k censuses: outcomes of every small position under normal or misère play
//! checked against Moore's column rule and the misère patch (`moore.outcomes`), and the
//! capped-move game checked against the residue rule (`moore.capped`).
//!
//! The mathematics is in [`countersign_games::moore`]. A census position is a non-empty
//! multiset of at most `max_heaps` heaps of 1..=`max_counters` counters (the empty
//! position only when `include_empty` is set). Outcomes come from the retrograde sweep
//! ([`countersign_games::moore::solve`]); with `plain: true` every position is also solved by
//! the plain memoised recursion ([`countersign_games::moore::Plain`]) and the two compared.
//!
//! # Figure data (for the shared figure kinds)
//!
//! * `bars` — [`OutcomesResult::wrong_by_k`] of `moore.outcomes`: `{"column_rule":
//!   {"1": 6, "2": 4, …}, "patched_rule": {"1": 0, …}}`, one series per rule, each an
//!   object keyed by k, the number of positions the rule misjudges.
//! * `table` — from `by_k` of `moore.outcomes` (an object of rows keyed by k; columns such
//!   as `lost`, `column_rule.wrong`, `all_ones_lost`), or from `rows` of `moore.capped` (a
//!   list of row objects with `k`, `cap`, the rules' counts and the residue classes).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::{share, Cancelled, Census, Ctx, ParamDoc, ParamError, Ratio};
use countersign_games::moore::{
    binomial, capped_rule_lost, column_rule_lost, is_all_ones, patched_rule_lost, solve, Columns, Moves, Plain, Play,
};

/// Largest `max_heaps` a census accepts.
pub const MAX_HEAPS: usize = 16;
/// Largest `max_counters` a census accepts.
pub const MAX_COUNTERS: u32 = 63;
/// Largest `k` (heaps a move may touch).
pub const MAX_K: u32 = 16;
/// Largest cap (counters taken from one heap in a move).
pub const MAX_CAP: u32 = 63;
/// Largest number of positions (the empty one included) a census sweeps per run.
pub const MAX_POSITIONS: u64 = 40_000_000;
/// Largest number of positions a census lists per rule.
pub const MAX_LIST: usize = 100;

/// One value or a list of values, as a parameter: `k: 2` or `k: [1, 2, 3]`.
///
/// Deserialized by hand, not as an untagged enum: serde's untagged error ("data did not
/// match any variant") names no parameter and points at the whole block, while this one
/// says what is wrong (`-1`, `1.5`, `4294967296`) at the value itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single value.
    One(u32),
    /// Several values, each once.
    Many(Vec<u32>),
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OneOrMany, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OneOrMany;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a non-negative integer below 2^32, or a list of them")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<OneOrMany, E> {
                u32::try_from(v).map(OneOrMany::One).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<OneOrMany, E> {
                u32::try_from(v).map(OneOrMany::One).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<u32>()? {
                    out.push(v);
                }
                Ok(OneOrMany::Many(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl OneOrMany {
    /// The values in the order written.
    pub fn values(&self) -> Vec<u32> {
        match self {
            OneOrMany::One(v) => vec![*v],
            OneOrMany::Many(vs) => vs.clone(),
        }
    }

    /// Check every value is in `lo..=hi`, the list is non-empty and has no repeats.
    fn validate(&self, name: &str, lo: u32, hi: u32, hint: &str) -> Result<(), ParamError> {
        let vs = self.values();
        if vs.is_empty() {
            return Err(ParamError::at(&[name], format!("{name} is an empty list"))
                .hint(format!("give one value or a list of values in {lo}..={hi}")));
        }
        let mut seen = BTreeSet::new();
        for (i, &v) in vs.iter().enumerate() {
            let idx = i.to_string();
            let path: Vec<&str> = if matches!(self, OneOrMany::One(_)) { vec![name] } else { vec![name, &idx] };
            if v < lo || v > hi {
                return Err(ParamError::at(&path, format!("{name} must be {lo}..={hi}, got {v}")).hint(hint.to_string()));
            }
            if !seen.insert(v) {
                return Err(ParamError::at(&path, format!("{name} = {v} is listed twice")).hint("list each value once"));
            }
        }
        Ok(())
    }
}

/// The ending convention, as a parameter: `normal` or `misere`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayParam {
    /// The player who cannot move loses.
    Normal,
    /// The player who cannot move wins (taking the last counter loses).
    Misere,
}

impl From<PlayParam> for Play {
    fn from(p: PlayParam) -> Play {
        match p {
            PlayParam::Normal => Play::Normal,
            PlayParam::Misere => Play::Misere,
        }
    }
}

fn default_list() -> usize {
    12
}

/// Parameters of `moore.outcomes`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct OutcomesParams {
    /// Largest number of heaps, 1..=16.
    pub max_heaps: usize,
    /// Largest heap size, 1..=63.
    pub max_counters: u32,
    /// Heaps a move may touch: one value or a list, each 1..=16.
    pub k: OneOrMany,
    /// `normal` or `misere`.
    pub play: PlayParam,
    /// Count the empty position too (default false).
    #[serde(default)]
    pub include_empty: bool,
    /// Also solve every position by the plain recursion and compare (default false).
    #[serde(default)]
    pub plain: bool,
    /// How many positions each rule's wrong list shows, 0..=100 (default 12).
    #[serde(default = "default_list")]
    pub list: usize,
}

/// Parameters of `moore.capped`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct CappedParams {
    /// Largest number of heaps, 1..=16.
    pub max_heaps: usize,
    /// Largest heap size, 1..=63.
    pub max_counters: u32,
    /// Heaps a move may touch: one value or a list, each 1..=16.
    pub k: OneOrMany,
    /// Most counters a move takes from one heap: one value or a list, each 1..=63.
    pub cap: OneOrMany,
    /// `normal` or `misere`.
    pub play: PlayParam,
    /// Also solve every position by the plain recursion and compare (default false).
    #[serde(default)]
    pub plain: bool,
}

/// How one rule fared against the computed outcomes.
#[derive(Clone, Debug, Serialize)]
pub struct RuleCheck {
    /// Positions where the rule gives the computed outcome.
    pub right: u64,
    /// Positions where it does not.
    pub wrong: u64,
    /// `right / positions`.
    pub share_right: Ratio,
    /// `wrong / positions`.
    pub share_wrong: Ratio,
    /// Wrong positions in which every heap holds one counter.
    pub wrong_all_ones: u64,
    /// Wrong positions with a heap of two or more counters.
    pub wrong_other: u64,
    /// 1 when the empty position is counted and the rule gets it wrong, else 0.
    pub wrong_empty: u64,
    /// The first `list` wrong positions, fewest heaps first, then in increasing order.
    pub wrong_listed: Vec<Vec<u32>>,
}

/// The plain recursion compared with the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct PlainCheck {
    /// True when the plain recursion was run (`plain: true`).
    pub run: bool,
    /// Positions compared (0 when not run).
    pub compared: u64,
    /// Positions on which the two methods differ.
    pub differ: u64,
    /// The first position (in sweep order) on which they differ, if any.
    pub first_difference: Option<Vec<u32>>,
}

impl PlainCheck {
    /// Nothing compared yet; `run` says whether the plain recursion will be.
    fn new(run: bool) -> PlainCheck {
        PlainCheck { run, compared: 0, differ: 0, first_difference: None }
    }

    /// Compare `plain`'s outcome of `heaps` (when it runs) with the sweep's, `truth`.
    fn compare(&mut self, plain: Option<&mut Plain>, heaps: &[u32], truth: bool) {
        let Some(plain) = plain else { return };
        self.compared += 1;
        if plain.lost(heaps) != truth {
            self.differ += 1;
            if self.first_difference.is_none() {
                self.first_difference = Some(heaps.to_vec());
            }
        }
    }
}

/// `moore.outcomes` for one value of k.
#[derive(Clone, Debug, Serialize)]
pub struct KOutcomes {
    /// Positions lost for the player to move (P-positions).
    pub lost: u64,
    /// Positions won for the player to move (N-positions).
    pub won: u64,
    /// Moore's column rule against the computed outcomes.
    pub column_rule: RuleCheck,
    /// The misère patch against the computed outcomes.
    pub patched_rule: RuleCheck,
    /// Numbers of heaps n (1..=max_heaps) at which the all-ones position of n heaps is lost.
    pub all_ones_lost: Vec<u64>,
    /// The two solvers compared.
    pub plain: PlainCheck,
    /// Predecessor markings the sweep made (its work beyond visiting each position).
    pub sweep_marks: u64,
}

/// The result of `moore.outcomes`, summary first.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomesResult {
    /// Positions in the census (the same for every k).
    pub positions: u64,
    /// Positions in which every heap holds one counter.
    pub all_ones: u64,
    /// Positions with a heap of two or more counters.
    pub with_big_heap: u64,
    /// 1 when the empty position is counted, else 0.
    pub empty: u64,
    /// Per k (keys in increasing order).
    pub by_k: BTreeMap<u32, KOutcomes>,
    /// Positions each rule gets wrong, per k: `column_rule` and `patched_rule`, each a map
    /// k → count (the shape of a `bars` figure's data).
    pub wrong_by_k: BTreeMap<&'static str, BTreeMap<u32, u64>>,
    /// Positions the column rule gets wrong, one entry per k in increasing order of k.
    pub column_rule_wrong_list: Vec<u64>,
    /// Positions the column rule gets wrong, summed over every k.
    pub column_rule_wrong_total: u64,
    /// Positions the patched rule gets wrong, summed over every k.
    pub patched_rule_wrong_total: u64,
    /// Plain and sweep differences summed over every k (0 when the plain check was off).
    pub solver_differences: u64,
}

/// The positions of a census in sweep order, with flags for which to count.
fn counted(include_empty: bool, heaps: &[u32]) -> bool {
    include_empty || !heaps.is_empty()
}

/// Keep the `limit` smallest positions (fewest heaps, then lexicographic).
fn keep_listed(set: &mut BTreeSet<(usize, Vec<u32>)>, p: &[u32], limit: usize) {
    if limit == 0 {
        return;
    }
    set.insert((p.len(), p.to_vec()));
    if set.len() > limit {
        let last = set.iter().next_back().cloned();
        if let Some(last) = last {
            set.remove(&last);
        }
    }
}

struct RuleTally {
    right: u64,
    wrong: u64,
    all_ones: u64,
    other: u64,
    empty: u64,
    listed: BTreeSet<(usize, Vec<u32>)>,
}

impl RuleTally {
    fn new() -> RuleTally {
        RuleTally { right: 0, wrong: 0, all_ones: 0, other: 0, empty: 0, listed: BTreeSet::new() }
    }

    fn add(&mut self, p: &[u32], rule: bool, truth: bool, limit: usize) {
        if rule == truth {
            self.right += 1;
            return;
        }
        self.wrong += 1;
        if p.is_empty() {
            self.empty += 1;
        } else if is_all_ones(p) {
            self.all_ones += 1;
        } else {
            self.other += 1;
        }
        keep_listed(&mut self.listed, p, limit);
    }

    fn finish(self, positions: u64) -> RuleCheck {
        RuleCheck {
            right: self.right,
            wrong: self.wrong,
            share_right: share(self.right, positions),
            share_wrong: share(self.wrong, positions),
            wrong_all_ones: self.all_ones,
            wrong_other: self.other,
            wrong_empty: self.empty,
            wrong_listed: self.listed.into_iter().map(|(_, p)| p).collect(),
        }
    }
}

/// Census positions (empty included or not).
fn census_positions(max_heaps: usize, max_counters: u32, include_empty: bool) -> u64 {
    let all = binomial(max_heaps as u64 + u64::from(max_counters), max_heaps as u64);
    if include_empty {
        all
    } else {
        all.saturating_sub(1)
    }
}

/// Estimated steps for one sweep: visiting each position and checking the rules, plus
/// predecessor markings, estimated as 3^(min(k, heaps/2) − 1) · heaps · counters / 40 per
/// position at ~100 steps each (fitted on 6..12 heaps; an overestimate at large k).
fn sweep_cost(heaps: usize, counters: u32, k: u32, cap: Option<u32>) -> u64 {
    let n = binomial(heaps as u64 + u64::from(counters), heaps as u64);
    let reach = u64::from(counters.min(cap.unwrap_or(counters)));
    let depth = (k as u64).min((heaps as u64).div_ceil(2)).max(1);
    let per = 3u64.saturating_pow((depth - 1) as u32);
    let marks_per_40 = per.saturating_mul(heaps as u64).saturating_mul(reach.max(1));
    let visit = n.saturating_mul(heaps as u64 * 12 + 40);
    let marks = n.saturating_mul(marks_per_40) / 40;
    visit.saturating_add(marks.saturating_mul(100))
}

/// Estimated steps for the plain recursion over every position: all its options, about
/// Σ_{j ≤ k} C(heaps, j) · ⌈reach/2⌉^j / 2^(j−1), at ~60 steps each (as when an option was
/// built in a scratch list and looked up in a hash set; its key is now kept as the walk
/// chooses it, and most lookups end at a filter). An upper estimate: a won position stops
/// at its first winning move, and on 10 heaps of 10 at k = 3 the recursion takes well
/// under a tenth of this.
fn plain_cost(heaps: usize, counters: u32, k: u32, cap: Option<u32>) -> u64 {
    let n = binomial(heaps as u64 + u64::from(counters), heaps as u64);
    let reach = u64::from(counters.min(cap.unwrap_or(counters))).div_ceil(2).max(1);
    let mut per: u64 = 0;
    for j in 1..=(k as u64).min(heaps as u64) {
        let term = binomial(heaps as u64, j).saturating_mul(reach.saturating_pow(j as u32)) >> (j - 1);
        per = per.saturating_add(term.max(1));
    }
    n.saturating_mul(per).saturating_mul(60)
}

fn validate_range(max_heaps: usize, max_counters: u32) -> Result<(), ParamError> {
    if max_heaps == 0 || max_heaps > MAX_HEAPS {
        return Err(ParamError::at(&["max_heaps"], format!("max_heaps must be 1..={MAX_HEAPS}, got {max_heaps}"))
            .hint("the seed's census is 6 heaps of at most 6"));
    }
    if max_counters == 0 || max_counters > MAX_COUNTERS {
        return Err(ParamError::at(&["max_counters"], format!("max_counters must be 1..={MAX_COUNTERS}, got {max_counters}"))
            .hint("the seed's census is 6 heaps of at most 6"));
    }
    let n = binomial(max_heaps as u64 + u64::from(max_counters), max_heaps as u64);
    if n > MAX_POSITIONS {
        return Err(ParamError::at(
            &[],
            format!(
                "{max_heaps} heaps of at most {max_counters} counters is {n} positions, over \
                 the limit of {MAX_POSITIONS}"
            ),
        )
        .hint("12 heaps of at most 12 (2,704,156 positions) is in range"));
    }
    Ok(())
}

/// `moore.outcomes`: every position, its computed outcome, and the two rules.
pub struct MooreOutcomes;

impl Census for MooreOutcomes {
    type Params = OutcomesParams;
    type Output = OutcomesResult;

    const NAME: &'static str = "moore.outcomes";
    const SUMMARY: &'static str = "Moore's Nim_k on every multiset of at most max_heaps heaps of \
        1..=max_counters: outcomes under normal or misère play against Moore's column rule and \
        the misère patch";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc { name: "max_heaps", shape: "integer", doc: "largest number of heaps, 1..=16" },
        ParamDoc { name: "max_counters", shape: "integer", doc: "largest heap size, 1..=63; at most 40,000,000 positions in all" },
        ParamDoc { name: "k", shape: "integer or list of integers", doc: "heaps a move may touch, each 1..=16, no repeats" },
        ParamDoc { name: "play", shape: "normal | misere", doc: "the ending convention" },
        ParamDoc { name: "include_empty", shape: "boolean", doc: "count the empty position (default false)" },
        ParamDoc {
            name: "plain",
            shape: "boolean",
            doc: "also run the plain memoised recursion on every position and compare (default false; slow beyond 10 heaps of 10 at k = 3)",
        },
        ParamDoc { name: "list", shape: "integer", doc: "wrong positions listed per rule, 0..=100 (default 12)" },
    ];
    const COST_MODEL: &'static str = "per k: positions × (12 × heaps + 40) plus 100 per predecessor \
        marking, estimated as 3^(min(k, ⌈heaps/2⌉) − 1) × heaps × counters / 40 per position; \
        with plain, 60 per option, estimated as Σ_{j ≤ k} C(heaps, j) ⌈counters/2⌉^j / 2^(j − 1) per position";
    const SOURCES: &'static [&'static str] = &["games/moore.rs", "games/count.rs", "census/moore.rs"];

    fn validate(p: &OutcomesParams) -> Result<(), ParamError> {
        validate_range(p.max_heaps, p.max_counters)?;
        p.k.validate("k", 1, MAX_K, "k = 1 is Nim; the seed uses k = 1, 2, 3")?;
        if p.list > MAX_LIST {
            return Err(ParamError::at(&["list"], format!("list must be 0..={MAX_LIST}, got {}", p.list)));
        }
        Ok(())
    }

    fn cost(p: &OutcomesParams) -> u64 {
        p.k.values().iter().fold(0u64, |acc, &k| {
            let mut c = sweep_cost(p.max_heaps, p.max_counters, k, None);
            if p.plain {
                c = c.saturating_add(plain_cost(p.max_heaps, p.max_counters, k, None));
            }
            acc.saturating_add(c)
        })
    }

    fn run(p: &OutcomesParams, ctx: &Ctx) -> Result<OutcomesResult, Cancelled> {
        run_outcomes(p, ctx)
    }
}

fn run_outcomes(p: &OutcomesParams, ctx: &Ctx) -> Result<OutcomesResult, Cancelled> {
    let play: Play = p.play.into();
    let mut ks = p.k.values();
    ks.sort_unstable();
    let positions = census_positions(p.max_heaps, p.max_counters, p.include_empty);
    let total_work = positions.saturating_mul(ks.len() as u64).max(1);
    let mut by_k = BTreeMap::new();
    let mut all_ones = 0u64;
    let mut with_big_heap = 0u64;
    for (ki, &k) in ks.iter().enumerate() {
        let base = positions.saturating_mul(ki as u64);
        let counts = if ki == 0 { Some((&mut all_ones, &mut with_big_heap)) } else { None };
        let outcomes = outcomes_for_k(p, k, play, base, positions, ctx, counts)?;
        by_k.insert(k, outcomes);
        ctx.progress(base + positions, total_work);
    }
    let column_rule_wrong_by_k: BTreeMap<u32, u64> = by_k.iter().map(|(&k, o)| (k, o.column_rule.wrong)).collect();
    let patched_rule_wrong_by_k: BTreeMap<u32, u64> = by_k.iter().map(|(&k, o)| (k, o.patched_rule.wrong)).collect();
    let solver_differences = by_k.values().map(|o| o.plain.differ).sum();
    let column_rule_wrong_total = column_rule_wrong_by_k.values().sum();
    let column_rule_wrong_list = column_rule_wrong_by_k.values().copied().collect();
    let patched_rule_wrong_total = patched_rule_wrong_by_k.values().sum();
    let wrong_by_k = BTreeMap::from([("column_rule", column_rule_wrong_by_k), ("patched_rule", patched_rule_wrong_by_k)]);
    Ok(OutcomesResult {
        positions,
        all_ones,
        with_big_heap,
        empty: u64::from(p.include_empty),
        by_k,
        wrong_by_k,
        column_rule_wrong_list,
        column_rule_wrong_total,
        patched_rule_wrong_total,
        solver_differences,
    })
}

/// One `k` of `moore.outcomes`: every position solved and compared with the two rules
/// (and the plain solver when asked). Progress runs from `base` over the census's
/// `positions` (of `positions × ks` in all). With `counts`, the all-ones positions and
/// those with a heap above 1 are counted into it (done for the first `k` only).
fn outcomes_for_k(
    p: &OutcomesParams,
    k: u32,
    play: Play,
    base: u64,
    positions: u64,
    ctx: &Ctx,
    mut counts: Option<(&mut u64, &mut u64)>,
) -> Result<KOutcomes, Cancelled> {
    let total_work = positions.saturating_mul(p.k.values().len() as u64).max(1);
    let solved = solve(p.max_heaps, p.max_counters, Moves::moore(k), play, &mut |d, _| {
        ctx.progress(base + d / 2, total_work);
        !ctx.is_cancelled()
    })
    .ok_or(Cancelled)?;
    let mut plain = p.plain.then(|| Plain::new(Moves::moore(k), play));
    let mut column = RuleTally::new();
    let mut patched = RuleTally::new();
    let (mut lost, mut won) = (0u64, 0u64);
    let mut ones_lost = Vec::new();
    let mut plain_check = PlainCheck::new(p.plain);
    for (rank, heaps) in solved.index().positions().enumerate() {
        if rank % 4096 == 0 {
            ctx.checkpoint()?;
        }
        if !counted(p.include_empty, &heaps) {
            continue;
        }
        let truth = solved.lost_at(rank as u64);
        if truth {
            lost += 1;
        } else {
            won += 1;
        }
        if let Some((all_ones, with_big_heap)) = counts.as_mut() {
            if is_all_ones(&heaps) {
                **all_ones += 1;
            } else if !heaps.is_empty() {
                **with_big_heap += 1;
            }
        }
        if truth && is_all_ones(&heaps) {
            ones_lost.push(heaps.len() as u64);
        }
        column.add(&heaps, column_rule_lost(&heaps, k), truth, p.list);
        patched.add(&heaps, patched_rule_lost(&heaps, k), truth, p.list);
        plain_check.compare(plain.as_mut(), &heaps, truth);
    }
    ones_lost.sort_unstable();
    Ok(KOutcomes {
        lost,
        won,
        column_rule: column.finish(positions),
        patched_rule: patched.finish(positions),
        all_ones_lost: ones_lost,
        plain: plain_check,
        sweep_marks: solved.marks(),
    })
}

/// Two positions with the same residues and different outcomes.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    /// The residues of both (heap sizes modulo cap + 1, nondecreasing, zeros kept).
    pub residues: Vec<u32>,
    /// A lost position of that class (the smallest: fewest heaps, then increasing).
    pub lost: Vec<u32>,
    /// A won position of that class (the smallest).
    pub won: Vec<u32>,
}

/// `moore.capped` for one (k, cap).
#[derive(Clone, Debug, Serialize)]
pub struct CapOutcome {
    /// Positions lost for the player to move.
    pub lost: u64,
    /// Positions won for the player to move.
    pub won: u64,
    /// Share of positions a constant guess of "won" gets right (the base rate).
    pub always_won_share: Ratio,
    /// The residue rule with binary columns summed modulo k + 1: positions right.
    pub binary_rule_right: u64,
    /// The same, positions wrong.
    pub binary_rule_wrong: u64,
    /// The same, share right.
    pub binary_rule_share: Ratio,
    /// The residue rule with base-(k+1) columns: positions right.
    pub base_rule_right: u64,
    /// The same, positions wrong.
    pub base_rule_wrong: u64,
    /// The same, share right.
    pub base_rule_share: Ratio,
    /// Residue classes: distinct multisets of heap sizes modulo cap + 1 (a heap whose
    /// residue is 0 still counts as a heap).
    pub classes: u64,
    /// Classes holding both a lost and a won position: no rule that reads only the
    /// residues can be right on both.
    pub mixed_classes: u64,
    /// Positions in mixed classes.
    pub positions_in_mixed: u64,
    /// The smallest mixed class (fewest heaps, then increasing residues), if any.
    pub witness: Option<Witness>,
    /// The two solvers compared.
    pub plain: PlainCheck,
}

/// The result of `moore.capped`, summary first.
#[derive(Clone, Debug, Serialize)]
pub struct CappedResult {
    /// Positions in the census (non-empty; the same for every k and cap).
    pub positions: u64,
    /// Number of (k, cap) pairs run.
    pub runs: u64,
    /// Number of (k, cap) pairs at which the binary residue rule is wrong somewhere.
    pub binary_rule_inexact: u64,
    /// Number of (k, cap) pairs with a residue class holding both outcomes.
    pub undecided: u64,
    /// Number of (k, cap) pairs at which the binary residue rule is right less often than
    /// a constant guess of "won".
    pub binary_rule_below_guess: u64,
    /// Plain and sweep differences summed over every (k, cap).
    pub solver_differences: u64,
    /// Values of (k, cap) at which the binary residue rule is right on every position.
    pub binary_rule_exact: Vec<[u32; 2]>,
    /// Values of (k, cap) at which some residue class holds both outcomes.
    pub residues_undecided: Vec<[u32; 2]>,
    /// Per k, then per cap (keys in increasing order).
    pub by_k: BTreeMap<u32, BTreeMap<u32, CapOutcome>>,
    /// One row per (k, cap), k then cap increasing, for a table.
    pub rows: Vec<CapRow>,
}

/// One (k, cap) of `moore.capped` as a flat row.
#[derive(Clone, Debug, Serialize)]
pub struct CapRow {
    /// Heaps a move may touch.
    pub k: u32,
    /// Most counters taken from one heap.
    pub cap: u32,
    /// Positions lost for the player to move.
    pub lost: u64,
    /// Share of positions a constant guess of "won" gets right.
    pub always_won_share: Ratio,
    /// Share of positions the binary residue rule gets right.
    pub binary_rule_share: Ratio,
    /// Share of positions the base-(k+1) residue rule gets right.
    pub base_rule_share: Ratio,
    /// Residue classes.
    pub classes: u64,
    /// Residue classes holding both outcomes.
    pub mixed_classes: u64,
}

/// `moore.capped`: Moore's Nim_k with at most `cap` counters from each heap touched.
pub struct MooreCapped;

impl Census for MooreCapped {
    type Params = CappedParams;
    type Output = CappedResult;

    const NAME: &'static str = "moore.capped";
    const SUMMARY: &'static str = "Moore's Nim_k with at most cap counters from each heap: the \
        rule 'reduce mod cap + 1, then read the columns' and residue classes holding both outcomes";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc { name: "max_heaps", shape: "integer", doc: "largest number of heaps, 1..=16" },
        ParamDoc { name: "max_counters", shape: "integer", doc: "largest heap size, 1..=63; at most 40,000,000 positions in all" },
        ParamDoc { name: "k", shape: "integer or list of integers", doc: "heaps a move may touch, each 1..=16, no repeats" },
        ParamDoc { name: "cap", shape: "integer or list of integers", doc: "most counters taken from one heap, each 1..=63, no repeats" },
        ParamDoc { name: "play", shape: "normal | misere", doc: "the ending convention" },
        ParamDoc { name: "plain", shape: "boolean", doc: "also run the plain memoised recursion and compare (default false)" },
    ];
    const COST_MODEL: &'static str = "per (k, cap): as moore.outcomes with counters replaced by \
        min(counters, cap) in the marking and option estimates, plus 30 × heaps per position for \
        the residue classes";
    const SOURCES: &'static [&'static str] = &["games/moore.rs", "games/count.rs", "census/moore.rs"];

    fn validate(p: &CappedParams) -> Result<(), ParamError> {
        validate_range(p.max_heaps, p.max_counters)?;
        p.k.validate("k", 1, MAX_K, "the seed's capped rungs use k = 1, 2, 3")?;
        p.cap.validate("cap", 1, MAX_CAP, "the seed's capped rungs use caps 1..=5")?;
        Ok(())
    }

    fn cost(p: &CappedParams) -> u64 {
        let n = binomial(p.max_heaps as u64 + u64::from(p.max_counters), p.max_heaps as u64);
        let mut total = 0u64;
        for &k in &p.k.values() {
            for &c in &p.cap.values() {
                let mut one = sweep_cost(p.max_heaps, p.max_counters, k, Some(c)).saturating_add(n.saturating_mul(30 * p.max_heaps as u64));
                if p.plain {
                    one = one.saturating_add(plain_cost(p.max_heaps, p.max_counters, k, Some(c)));
                }
                total = total.saturating_add(one);
            }
        }
        total
    }

    fn run(p: &CappedParams, ctx: &Ctx) -> Result<CappedResult, Cancelled> {
        run_capped(p, ctx)
    }
}

fn run_capped(p: &CappedParams, ctx: &Ctx) -> Result<CappedResult, Cancelled> {
    let play: Play = p.play.into();
    let mut ks = p.k.values();
    ks.sort_unstable();
    let mut caps = p.cap.values();
    caps.sort_unstable();
    let positions = census_positions(p.max_heaps, p.max_counters, false);
    let runs = (ks.len() * caps.len()) as u64;
    let total_work = positions.saturating_mul(runs).max(1);
    let mut by_k: BTreeMap<u32, BTreeMap<u32, CapOutcome>> = BTreeMap::new();
    let mut done_runs = 0u64;
    for &k in &ks {
        for &c in &caps {
            let base = positions.saturating_mul(done_runs);
            let outcome = capped_run(p, k, c, play, (base, total_work), positions, ctx)?;
            by_k.entry(k).or_default().insert(c, outcome);
            done_runs += 1;
            ctx.progress(positions.saturating_mul(done_runs), total_work);
        }
    }
    Ok(capped_summary(positions, by_k))
}

/// Smallest position of a residue class by (number of heaps, heaps).
type Best = Option<(usize, Vec<u32>)>;

/// One (k, cap) run of `moore.capped`: every non-empty position solved and compared with
/// the two column rules, and the positions classed by their heaps' residues mod cap + 1.
/// Progress is reported from `work.0` of `work.1`.
fn capped_run(p: &CappedParams, k: u32, c: u32, play: Play, work: (u64, u64), positions: u64, ctx: &Ctx) -> Result<CapOutcome, Cancelled> {
    let (base, total_work) = work;
    let moves = Moves::capped(k, c);
    let solved = solve(p.max_heaps, p.max_counters, moves, play, &mut |d, _| {
        ctx.progress(base + d / 2, total_work);
        !ctx.is_cancelled()
    })
    .ok_or(Cancelled)?;
    let mut plain = p.plain.then(|| Plain::new(moves, play));
    let mut plain_check = PlainCheck::new(p.plain);
    let (mut lost, mut bin_right, mut base_right) = (0u64, 0u64, 0u64);
    // residues → (smallest lost, smallest won, positions), smallest by (len, lex).
    let mut classes: BTreeMap<Vec<u32>, (Best, Best, u64)> = BTreeMap::new();
    for (rank, heaps) in solved.index().positions().enumerate() {
        if rank % 4096 == 0 {
            ctx.checkpoint()?;
        }
        if heaps.is_empty() {
            continue;
        }
        let truth = solved.lost_at(rank as u64);
        lost += u64::from(truth);
        bin_right += u64::from(capped_rule_lost(&heaps, k, c, Columns::Binary) == truth);
        base_right += u64::from(capped_rule_lost(&heaps, k, c, Columns::BaseK1) == truth);
        let mut res: Vec<u32> = heaps.iter().map(|&h| h % (c + 1)).collect();
        res.sort_unstable();
        let entry = classes.entry(res).or_insert((None, None, 0));
        entry.2 += 1;
        let slot = if truth { &mut entry.0 } else { &mut entry.1 };
        let key = (heaps.len(), heaps.clone());
        if slot.as_ref().is_none_or(|b| key < *b) {
            *slot = Some(key);
        }
        plain_check.compare(plain.as_mut(), &heaps, truth);
    }
    let (mixed, in_mixed, witness) = mixed_classes(&classes);
    Ok(CapOutcome {
        lost,
        won: positions - lost,
        always_won_share: share(positions - lost, positions),
        binary_rule_right: bin_right,
        binary_rule_wrong: positions - bin_right,
        binary_rule_share: share(bin_right, positions),
        base_rule_right: base_right,
        base_rule_wrong: positions - base_right,
        base_rule_share: share(base_right, positions),
        classes: classes.len() as u64,
        mixed_classes: mixed,
        positions_in_mixed: in_mixed,
        witness,
        plain: plain_check,
    })
}

/// The residue classes holding both a lost and a won position: how many, the positions
/// in them, and the smallest such class (by length, then residues) with its witnesses.
fn mixed_classes(classes: &BTreeMap<Vec<u32>, (Best, Best, u64)>) -> (u64, u64, Option<Witness>) {
    let mut mixed = 0u64;
    let mut in_mixed = 0u64;
    let mut witness: Option<Witness> = None;
    let mut witness_key: Option<(usize, Vec<u32>)> = None;
    for (res, (l, w, count)) in classes {
        if let (Some(l), Some(w)) = (l, w) {
            mixed += 1;
            in_mixed += count;
            let key = (res.len(), res.clone());
            if witness_key.as_ref().is_none_or(|b| key < *b) {
                witness_key = Some(key);
                witness = Some(Witness { residues: res.clone(), lost: l.1.clone(), won: w.1.clone() });
            }
        }
    }
    (mixed, in_mixed, witness)
}

/// `moore.capped`'s result from its runs, `by_k[k][cap]`, over `positions` positions.
fn capped_summary(positions: u64, by_k: BTreeMap<u32, BTreeMap<u32, CapOutcome>>) -> CappedResult {
    let mut binary_rule_exact = Vec::new();
    let mut residues_undecided = Vec::new();
    let mut rows = Vec::new();
    let mut solver_differences = 0;
    let mut binary_rule_below_guess = 0;
    for (&k, per) in &by_k {
        for (&c, o) in per {
            binary_rule_below_guess += u64::from(o.binary_rule_right < o.won);
            if o.binary_rule_wrong == 0 {
                binary_rule_exact.push([k, c]);
            }
            if o.mixed_classes > 0 {
                residues_undecided.push([k, c]);
            }
            solver_differences += o.plain.differ;
            rows.push(CapRow {
                k,
                cap: c,
                lost: o.lost,
                always_won_share: o.always_won_share,
                binary_rule_share: o.binary_rule_share,
                base_rule_share: o.base_rule_share,
                classes: o.classes,
                mixed_classes: o.mixed_classes,
            });
        }
    }
    let runs = rows.len() as u64;
    let binary_rule_inexact = runs - binary_rule_exact.len() as u64;
    let undecided = residues_undecided.len() as u64;
    CappedResult {
        positions,
        by_k,
        binary_rule_exact,
        residues_undecided,
        runs,
        binary_rule_inexact,
        undecided,
        binary_rule_below_guess,
        solver_differences,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup;

    fn outcomes(yaml: &str) -> OutcomesResult {
        let p: OutcomesParams = countersign_core::yaml::from_str(yaml).unwrap();
        MooreOutcomes::validate(&p).unwrap();
        run_outcomes(&p, &Ctx::new()).unwrap()
    }

    #[test]
    fn one_or_many_reads_a_value_or_a_list_and_names_a_bad_one() {
        let k = |y: &str| countersign_core::yaml::from_str::<OneOrMany>(y);
        assert_eq!(k("2").unwrap(), OneOrMany::One(2));
        assert_eq!(k("[1, 3]").unwrap(), OneOrMany::Many(vec![1, 3]));
        for (bad, says) in [("4294967296", "4294967296"), ("-1", "-1"), ("1.5", "1.5"), ("[1, x]", "\"x\""), ("{a: 1}", "map")] {
            let e = k(bad).unwrap_err().to_string();
            assert!(e.contains(says) && !e.contains("untagged"), "{bad}: {e}");
        }
    }

    #[test]
    fn seed_census_counts() {
        let r = outcomes("{max_heaps: 6, max_counters: 6, k: [1, 2, 3], play: misere, plain: true}");
        assert_eq!(r.positions, 923);
        assert_eq!(r.all_ones, 6);
        assert_eq!(r.with_big_heap, 917);
        assert_eq!(r.solver_differences, 0);
        let right: Vec<u64> = r.by_k.values().map(|o| o.column_rule.right).collect();
        assert_eq!(right, vec![917, 919, 920]);
        for o in r.by_k.values() {
            assert_eq!(o.patched_rule.wrong, 0);
            assert_eq!(o.column_rule.wrong_other, 0);
        }
        assert_eq!(r.by_k[&1].column_rule.wrong_listed[0], vec![1]);
    }

    #[test]
    fn empty_position_adds_one_disagreement_under_misere() {
        let r = outcomes("{max_heaps: 6, max_counters: 6, k: 1, play: misere, include_empty: true}");
        assert_eq!(r.positions, 924);
        assert_eq!(r.by_k[&1].column_rule.wrong, 7);
        assert_eq!(r.by_k[&1].column_rule.wrong_empty, 1);
        assert_eq!(r.by_k[&1].patched_rule.wrong, 0);
    }

    #[test]
    fn normal_play_column_rule_exact() {
        let r = outcomes("{max_heaps: 5, max_counters: 7, k: [1, 2, 3, 4], play: normal, plain: true}");
        assert_eq!(r.solver_differences, 0);
        for o in r.by_k.values() {
            assert_eq!(o.column_rule.wrong, 0);
            assert!(o.patched_rule.wrong > 0);
        }
    }

    #[test]
    fn capped_k1_exact_and_k2_undecided() {
        let p: CappedParams =
            countersign_core::yaml::from_str("{max_heaps: 4, max_counters: 8, k: [1, 2], cap: [1, 2], play: normal, plain: true}").unwrap();
        MooreCapped::validate(&p).unwrap();
        let r = run_capped(&p, &Ctx::new()).unwrap();
        assert_eq!(r.solver_differences, 0);
        assert!(r.binary_rule_exact.contains(&[1, 1]) && r.binary_rule_exact.contains(&[1, 2]));
        for o in r.by_k[&1].values() {
            assert_eq!(o.mixed_classes, 0);
        }
        let w = r.by_k[&2][&2].witness.as_ref().expect("a mixed class at k = 2, cap 2");
        let mut a: Vec<u32> = w.lost.iter().map(|h| h % 3).collect();
        let mut b: Vec<u32> = w.won.iter().map(|h| h % 3).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, w.residues);
        assert_eq!(b, w.residues);
    }

    /// Prepare a census block `{id, run, with}` for `name` with `with` as given.
    fn prep(name: &str, with: &str) -> Result<crate::Prepared, crate::PrepareError> {
        lookup(name).unwrap().prepare(&format!("id: t\nrun: {name}\nwith: {with}\n"))
    }

    #[test]
    fn parameters_are_validated() {
        assert!(prep("moore.outcomes", "{max_heaps: 0, max_counters: 6, k: 1, play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 64, k: 1, play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 16, max_counters: 63, k: 1, play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: [1, 1], play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: [], play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: 0, play: normal}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: 1, play: sideways}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: 1, play: normal, extra: 1}").is_err());
        assert!(prep("moore.outcomes", "{max_heaps: 6, max_counters: 6, k: 1, play: normal, list: 101}").is_err());
        let ok = prep("moore.outcomes", "{max_heaps: 10, max_counters: 10, k: [1, 2, 3], play: misere}").unwrap();
        assert!(ok.cost < 20_000_000_000, "cost {}", ok.cost);
        assert!(prep("moore.capped", "{max_heaps: 6, max_counters: 6, k: 1, cap: 0, play: normal}").is_err());
        assert!(prep("moore.capped", "{max_heaps: 6, max_counters: 12, k: [1, 2, 3], cap: [1, 2, 3, 4, 5], play: normal}").is_ok());
    }

    #[test]
    fn cancellation_stops_the_run() {
        let p: OutcomesParams = countersign_core::yaml::from_str("{max_heaps: 6, max_counters: 6, k: 1, play: normal}").unwrap();
        let ctx = Ctx::new();
        ctx.cancel();
        assert!(run_outcomes(&p, &ctx).is_err());
    }
}
