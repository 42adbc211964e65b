//! `welter.census`: Welter's game over every position of a few strips, checking Conway's
//! closed form and the plain nim-sum against the plain recursion, and counting how far the
//! mate-pair strategy reaches among the zero-valued positions.
//!
//! Parameters (YAML under `with:`):
//!
//! ```yaml
//! coins: { 1: 12, 2: 11, 3: 10, 4: 9, 5: 9, 6: 9 }   # coin count -> number of squares
//! probe: [[0, 2, 4, 6], [0, 1, 4, 5]]                 # optional: positions to report
//! ```
//!
//! For each entry `k: n` of `coins`, every position with exactly `k` coins on squares
//! `0..n` (C(n, k) positions) is valued by the plain recursion
//! ([`welter::values_by_recursion`]: mex over the options, never the formula), and then
//! compared with [`welter::closed_form`], [`welter::nim_sum`] and
//! [`welter::pairwise_sum`]. The result ([`WelterResult`]) has the totals first, then one
//! [`Row`] per coin count, the mate-pair summary over the even coin counts ([`Mates`]), the
//! two-coin Grundy value grid, and the probes.
//!
//! The grid (`<id>.grid`, for the `grid` figure kind: `from: <id>.grid`) is a square
//! matrix, `n × n` where `n` is the number of squares given for two coins: row `a`,
//! column `b`, `grid[a][b]` is the Grundy value of the two-coin position {a, b} by the
//! recursion when `a < b`, and `null` on and below the diagonal (`a ≥ b`). It is the empty
//! list when `coins` has no entry for two coins. In claims: `<id>.grid[0][2]`.
//!
//! Sources: Welter (1954); Conway, *On Numbers and Games*, ch. 13 (the animating function
//! ⟨a|b⟩ = (a ⊕ b) − 1, the closed form, mates {2k, 2k+1}).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{share, Cancelled, Census, Ctx, ParamDoc, ParamError, Ratio};
use countersign_games::welter::{
    self, closed_form, has_mated_pair, is_union_of_mate_pairs, mirror_reply, nim_sum, pairwise_sum, Position, Recursion, MAX_SQUARES,
};

/// Most positions one coin count may survey: C(n, k) ≤ 2^22 (4,194,304). The plain
/// recursion keeps every position of a row in memory (about 50 bytes each at peak, so
/// about 200 MB at the limit); a row over it is refused by [`Census::validate`] even when
/// its cost is under the site's budget.
pub const MAX_ROW_POSITIONS: u64 = 1 << 22;

/// Most positions a `probe` list may name.
pub const MAX_PROBES: usize = 64;

/// Parameters of `welter.census`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct WelterParams {
    /// Coin count `k` → number of squares `n`: survey every position with `k` coins on
    /// squares `0..n`. At least one entry; `1 ≤ k ≤ n ≤ 64` and C(n, k) ≤
    /// [`MAX_ROW_POSITIONS`].
    pub coins: BTreeMap<u32, u32>,
    /// Positions to value individually, each a list of distinct squares below 64 (any
    /// order; the empty list is the empty board). At most [`MAX_PROBES`]. Optional.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probe: Vec<Vec<u32>>,
}

/// The counts for one coin count `k` on `n` squares.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Row {
    /// `n`, the number of squares (squares `0..n`).
    pub squares: u32,
    /// Positions surveyed: C(n, k).
    pub positions: u64,
    /// Positions where the closed form equals the recursion's Grundy value.
    pub closed_form_right: u64,
    /// Positions where the plain nim-sum of the squares equals the Grundy value.
    pub nim_sum_right: u64,
    /// Positions where the plain nim-sum differs from the Grundy value.
    pub nim_sum_wrong: u64,
    /// Positions where the pairwise sum without the parity term equals the Grundy value.
    pub pairwise_right: u64,
    /// Positions where the pairwise sum without the parity term differs from it.
    pub pairwise_wrong: u64,
    /// The first position (squares, increasing; positions in increasing bit-set order)
    /// where the closed form differs from the recursion; `null` when it never does.
    pub closed_form_first_miss: Option<Vec<u32>>,
    /// Zero-valued positions (P-positions).
    pub zero: u64,
    /// Positions whose squares are a union of complete mate-pairs {2k, 2k+1} (0 when the
    /// coin count is odd).
    pub unions: u64,
    /// Zero-valued positions that are unions of complete mate-pairs.
    pub zero_unions: u64,
    /// Zero-valued positions that are not unions of complete mate-pairs.
    pub zero_not_unions: u64,
    /// Of those, the ones in which no coin's mate square holds a coin.
    pub zero_no_mated_pair: u64,
    /// Moves out of the union positions (each legal move of each union position).
    pub moves_out_of_unions: u64,
    /// Of those moves, the ones after which some move lands back in a union position.
    pub moves_with_reply: u64,
    /// Of those moves, the ones after which exactly one move lands back in a union.
    pub moves_with_one_reply: u64,
    /// Of those moves, the ones whose mirror reply ([`welter::mirror_reply`]: the mate of
    /// the moved coin to the mate of its target) is legal and lands in a union.
    pub moves_with_mirror_reply: u64,
}

/// The mate-pair counts summed over the even coin counts only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Mates {
    /// Even coin counts included, increasing.
    pub coin_counts: Vec<u32>,
    /// Positions with those coin counts.
    pub positions: u64,
    /// Zero-valued positions with an even number of coins.
    pub zero: u64,
    /// Union-of-complete-mate-pairs positions (all of them, whatever their value).
    pub unions: u64,
    /// Zero-valued union positions (equal to `unions` when the mirror strategy holds).
    pub zero_unions: u64,
    /// Zero-valued positions that are not unions of complete mate-pairs.
    pub zero_not_unions: u64,
    /// Of those, the ones containing no mated pair at all.
    pub zero_no_mated_pair: u64,
    /// Moves out of union positions.
    pub moves: u64,
    /// Moves with a reply back into a union position.
    pub moves_with_reply: u64,
    /// Moves with exactly one such reply.
    pub moves_with_one_reply: u64,
    /// Moves whose mirror reply is legal and lands in a union.
    pub moves_with_mirror_reply: u64,
}

/// One probed position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Probe {
    /// Its squares, increasing.
    pub squares: Vec<u32>,
    /// Number of coins.
    pub coins: u32,
    /// Grundy value by the memoised plain recursion.
    pub value: u64,
    /// Grundy value by the closed form.
    pub closed_form: u64,
    /// Nim-sum of the squares.
    pub nim_sum: u64,
    /// Pairwise sum of ⟨a|b⟩ without the parity term.
    pub pairwise_sum: u64,
    /// Whether the squares are a union of complete mate-pairs.
    pub union: bool,
    /// Whether some coin's mate square holds a coin.
    pub has_mated_pair: bool,
}

/// The result of `welter.census`. Totals first; maps keyed by coin count (in claims:
/// `<id>.positions.2`, `<id>.by_coins.4.nim_sum_right`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WelterResult {
    /// Positions surveyed over all coin counts.
    pub positions_total: u64,
    /// Positions where the closed form gives the Grundy value.
    pub closed_form_right: u64,
    /// Positions where the plain nim-sum gives the Grundy value.
    pub nim_sum_right: u64,
    /// `nim_sum_right / positions_total`.
    pub nim_sum_share: Ratio,
    /// Positions where the pairwise sum without the parity term gives the Grundy value.
    pub pairwise_right: u64,
    /// Coin count → positions surveyed.
    pub positions: BTreeMap<u32, u64>,
    /// Coin count → its [`Row`].
    pub by_coins: BTreeMap<u32, Row>,
    /// Mate-pair counts over the even coin counts.
    pub mates: Mates,
    /// The two-coin Grundy value grid (see the module docs for its shape).
    pub grid: Vec<Vec<Option<u64>>>,
    /// The probed positions, in the order given.
    pub probes: Vec<Probe>,
}

/// The census `welter.census`. See the module docs.
pub struct WelterCensus;

/// C(n, k), saturating at `u64::MAX` (see [`countersign_games::count::binomial`]).
fn binom(n: u32, k: u32) -> u64 {
    countersign_games::count::binomial(u64::from(n), u64::from(k))
}

/// Estimated steps for one row of `k` coins on `n` squares.
fn row_cost(k: u32, n: u32) -> u64 {
    let positions = binom(n, k);
    let options = (k as u64) * ((n - k) as u64);
    // Sweep: about 50 steps per option (generate it, look its value up in the memo: the
    // bench `recursion 6 coins on 16 squares` runs near 60 ns an option), plus the three
    // formulas (k² each).
    let per_position = options.saturating_mul(50).saturating_add(3 * (k as u64) * (k as u64)).saturating_add(50);
    let sweep = positions.saturating_mul(per_position);
    // Each move out of a union position generates the options of the position it reaches
    // and tests each for a union (about 10 steps an option).
    let unions = if k.is_multiple_of(2) { binom(n / 2, k / 2) } else { 0 };
    let replies = unions.saturating_mul(options.saturating_mul(options.saturating_mul(10).saturating_add(50)));
    let grid = if k == 2 { (n as u64) * (n as u64) } else { 0 };
    sweep.saturating_add(replies).saturating_add(grid)
}

/// Estimated steps for one probe: the memoised recursion visits at most every position
/// with as many coins on squares up to the highest one, about 100 steps an option.
fn probe_cost(squares: &[u32]) -> u64 {
    let k = squares.len() as u32;
    let n = squares.iter().max().map_or(0, |&m| m + 1);
    let options = (k as u64) * ((n - k.min(n)) as u64);
    binom(n, k).saturating_mul(options.saturating_mul(100).saturating_add(50))
}

/// Plain counting of one row, reporting progress in positions and honouring cancellation.
fn survey_row(k: u32, n: u32, ctx: &Ctx, done: &mut u64, total: u64) -> Result<(Row, Vec<(Position, u64)>), Cancelled> {
    ctx.checkpoint()?;
    let values = welter::values_by_recursion(k, n);
    let mut row = Row { squares: n, positions: values.len() as u64, ..Row::default() };
    for (i, &(p, v)) in values.iter().enumerate() {
        if i % 1024 == 0 {
            ctx.checkpoint()?;
            ctx.progress(*done + i as u64, total);
        }
        if closed_form(p) == v {
            row.closed_form_right += 1;
        } else if row.closed_form_first_miss.is_none() {
            row.closed_form_first_miss = Some(p.squares());
        }
        if nim_sum(p) == v {
            row.nim_sum_right += 1;
        } else {
            row.nim_sum_wrong += 1;
        }
        if pairwise_sum(p) == v {
            row.pairwise_right += 1;
        } else {
            row.pairwise_wrong += 1;
        }
        let union = is_union_of_mate_pairs(p);
        if v == 0 {
            row.zero += 1;
            if union {
                row.zero_unions += 1;
            } else {
                row.zero_not_unions += 1;
                row.zero_no_mated_pair += u64::from(!has_mated_pair(p));
            }
        }
        if union {
            row.unions += 1;
            for q in p.options() {
                row.moves_out_of_unions += 1;
                let replies = q.options().into_iter().filter(|&r| is_union_of_mate_pairs(r)).count();
                row.moves_with_reply += u64::from(replies > 0);
                row.moves_with_one_reply += u64::from(replies == 1);
                row.moves_with_mirror_reply += u64::from(mirror_reply(p, q).is_some());
            }
        }
    }
    *done += values.len() as u64;
    ctx.progress(*done, total);
    Ok((row, values))
}

/// The two-coin grid from the recursion's values of every two-coin position on `n`
/// squares (see the module docs for the shape).
fn two_coin_grid(n: u32, values: &[(Position, u64)]) -> Vec<Vec<Option<u64>>> {
    let mut grid = vec![vec![None; n as usize]; n as usize];
    for &(p, v) in values {
        let sq = p.squares();
        if let [a, b] = sq[..] {
            grid[a as usize][b as usize] = Some(v);
        }
    }
    grid
}

impl Census for WelterCensus {
    type Params = WelterParams;
    type Output = WelterResult;

    const NAME: &'static str = "welter.census";
    const SUMMARY: &'static str = "Welter's game: closed form and nim-sum against the plain recursion on \
         every position of given strips; zero positions and the mate-pair strategy; the two-coin grid";
    const PARAMS: &'static [ParamDoc] = &[
        ParamDoc {
            name: "coins",
            shape: "map of integer → integer",
            doc: "coin count k → number of squares n: every position with k coins on squares 0..n; \
                  at least one entry, 1 ≤ k ≤ n ≤ 64, C(n, k) ≤ 4,194,304 positions per entry",
        },
        ParamDoc {
            name: "probe",
            shape: "list of lists of integers (optional)",
            doc: "positions to value one by one, each a list of distinct squares below 64; at most 64",
        },
    ];
    const COST_MODEL: &'static str = "per coin count k on n squares: C(n, k) positions × (50 steps \
         per option, k·(n−k) options, + 3·k² for the formulas), plus C(n/2, k/2) union positions × \
         k·(n−k) moves × 10·k·(n−k) for the replies; per probe C(m+1, k) × 100·k·(m+1−k) for the \
         highest square m (the memoised solver's hash map); saturating (about a nanosecond a step)";
    const SOURCES: &'static [&'static str] = &["games/welter.rs", "games/impartial.rs", "games/count.rs", "census/welter.rs"];

    fn validate(params: &WelterParams) -> Result<(), ParamError> {
        if params.coins.is_empty() {
            return Err(ParamError::at(&["coins"], "no coin counts given")
                .hint("give at least one entry, e.g. `coins: { 2: 11 }` (two coins on squares 0..11)"));
        }
        for (&k, &n) in &params.coins {
            let key = k.to_string();
            if k == 0 {
                return Err(ParamError::at(&["coins", &key], "a coin count must be at least 1")
                    .hint("the empty board is the only position with no coins"));
            }
            if n > MAX_SQUARES {
                return Err(ParamError::at(&["coins", &key], format!("{n} squares is over the limit"))
                    .hint(format!("the strip has at most {MAX_SQUARES} squares")));
            }
            if k > n {
                return Err(ParamError::at(&["coins", &key], format!("{k} coins need at least {k} squares, got {n}"))
                    .hint("two coins may never share a square"));
            }
            let rows = binom(n, k);
            if rows > MAX_ROW_POSITIONS {
                return Err(ParamError::at(
                    &["coins", &key],
                    format!("{k} coins on {n} squares is {rows} positions, over the limit of {MAX_ROW_POSITIONS}"),
                )
                .hint("the plain recursion holds a whole row in memory; use fewer squares"));
            }
        }
        if params.probe.len() > MAX_PROBES {
            return Err(ParamError::at(&["probe"], format!("{} probes given", params.probe.len()))
                .hint(format!("at most {MAX_PROBES} probed positions")));
        }
        for (i, squares) in params.probe.iter().enumerate() {
            let idx = i.to_string();
            let mut seen = 0u64;
            for &s in squares {
                if s >= MAX_SQUARES {
                    return Err(ParamError::at(&["probe", &idx], format!("square {s} is off the strip"))
                        .hint(format!("squares are numbered 0..{}", MAX_SQUARES - 1)));
                }
                if seen & (1u64 << s) != 0 {
                    return Err(
                        ParamError::at(&["probe", &idx], format!("square {s} is named twice")).hint("two coins may never share a square")
                    );
                }
                seen |= 1u64 << s;
            }
        }
        Ok(())
    }

    fn cost(params: &WelterParams) -> u64 {
        let rows = params.coins.iter().fold(0u64, |acc, (&k, &n)| acc.saturating_add(row_cost(k, n)));
        params.probe.iter().fold(rows, |acc, p| acc.saturating_add(probe_cost(p)))
    }

    fn run(params: &WelterParams, ctx: &Ctx) -> Result<WelterResult, Cancelled> {
        let total: u64 = params.coins.iter().map(|(&k, &n)| binom(n, k)).fold(0, u64::saturating_add);
        let mut done = 0u64;
        let mut by_coins = BTreeMap::new();
        let mut grid = Vec::new();
        for (&k, &n) in &params.coins {
            let (row, values) = survey_row(k, n, ctx, &mut done, total)?;
            if k == 2 {
                grid = two_coin_grid(n, &values);
            }
            by_coins.insert(k, row);
        }

        let mut mates = Mates::default();
        for (&k, row) in by_coins.iter().filter(|(&k, _)| k.is_multiple_of(2)) {
            mates.coin_counts.push(k);
            mates.positions += row.positions;
            mates.zero += row.zero;
            mates.unions += row.unions;
            mates.zero_unions += row.zero_unions;
            mates.zero_not_unions += row.zero_not_unions;
            mates.zero_no_mated_pair += row.zero_no_mated_pair;
            mates.moves += row.moves_out_of_unions;
            mates.moves_with_reply += row.moves_with_reply;
            mates.moves_with_one_reply += row.moves_with_one_reply;
            mates.moves_with_mirror_reply += row.moves_with_mirror_reply;
        }

        let mut recursion = Recursion::new();
        let mut probes = Vec::with_capacity(params.probe.len());
        for squares in &params.probe {
            ctx.checkpoint()?;
            let p = Position::from_squares(squares);
            probes.push(Probe {
                squares: p.squares(),
                coins: p.coins(),
                value: recursion.value(p),
                closed_form: closed_form(p),
                nim_sum: nim_sum(p),
                pairwise_sum: pairwise_sum(p),
                union: is_union_of_mate_pairs(p),
                has_mated_pair: has_mated_pair(p),
            });
        }

        let sum = |f: fn(&Row) -> u64| by_coins.values().map(f).sum::<u64>();
        let positions_total = sum(|r| r.positions);
        let nim_sum_right = sum(|r| r.nim_sum_right);
        Ok(WelterResult {
            positions_total,
            closed_form_right: sum(|r| r.closed_form_right),
            nim_sum_right,
            nim_sum_share: share(nim_sum_right, positions_total),
            pairwise_right: sum(|r| r.pairwise_right),
            positions: by_coins.iter().map(|(&k, r)| (k, r.positions)).collect(),
            by_coins,
            mates,
            grid,
            probes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lookup, PrepareError};
    use countersign_games::welter::{animating, positions};

    fn params(coins: &[(u32, u32)]) -> WelterParams {
        WelterParams { coins: coins.iter().copied().collect(), probe: Vec::new() }
    }

    fn run(p: &WelterParams) -> WelterResult {
        WelterCensus::validate(p).expect("valid parameters");
        WelterCensus::run(p, &Ctx::new()).expect("not cancelled")
    }

    /// Every count of a row recounted position by position with the memoised solver
    /// (its own memo, depth-first, not the ordered sweep the census uses), naming the
    /// first position where the closed form disagrees with it.
    fn recount(k: u32, n: u32, solver: &mut Recursion) -> Row {
        let mut row = Row { squares: n, ..Row::default() };
        for p in positions(k, n) {
            let v = solver.value(p);
            row.positions += 1;
            assert_eq!(closed_form(p), v, "closed form differs from the recursion first at {:?}", p.squares());
            row.closed_form_right += 1;
            row.nim_sum_right += u64::from(nim_sum(p) == v);
            row.nim_sum_wrong += u64::from(nim_sum(p) != v);
            row.pairwise_right += u64::from(pairwise_sum(p) == v);
            row.pairwise_wrong += u64::from(pairwise_sum(p) != v);
            let union = p.squares().iter().all(|&s| p.squares().contains(&(s ^ 1)));
            let mated = p.squares().iter().any(|&s| p.squares().contains(&(s ^ 1)));
            if v == 0 {
                row.zero += 1;
                if union {
                    row.zero_unions += 1;
                } else {
                    row.zero_not_unions += 1;
                    row.zero_no_mated_pair += u64::from(!mated);
                }
            }
            if union {
                row.unions += 1;
                for q in p.options() {
                    row.moves_out_of_unions += 1;
                    let back: Vec<_> =
                        q.options().into_iter().filter(|r| r.squares().iter().all(|&s| r.squares().contains(&(s ^ 1)))).collect();
                    row.moves_with_reply += u64::from(!back.is_empty());
                    row.moves_with_one_reply += u64::from(back.len() == 1);
                    row.moves_with_mirror_reply += u64::from(mirror_reply(p, q).is_some_and(|m| back.contains(&m)));
                }
            }
        }
        row
    }

    #[test]
    fn every_row_agrees_with_an_independent_recount() {
        let p = params(&[(1, 9), (2, 9), (3, 8), (4, 8), (5, 8), (6, 8)]);
        let out = run(&p);
        let mut solver = Recursion::new();
        for (&k, &n) in &p.coins {
            assert_eq!(out.by_coins[&k], recount(k, n, &mut solver), "row for {k} coins on {n} squares");
        }
    }

    #[test]
    fn closed_form_is_right_on_every_position_of_the_first_strip() {
        let out = run(&params(&[(1, 12), (2, 11), (3, 10), (4, 9), (5, 9), (6, 9)]));
        for (k, row) in &out.by_coins {
            assert_eq!(row.closed_form_first_miss, None, "{k} coins");
            assert_eq!(row.closed_form_right, row.positions, "{k} coins");
        }
        assert_eq!(out.positions_total, 12 + 55 + 120 + 126 + 126 + 84);
        assert_eq!(out.closed_form_right, out.positions_total);
        // One coin is a Nim heap: the nim-sum is its value; two coins never (⟨a|b⟩ ≠ a ⊕ b).
        assert_eq!(out.by_coins[&1].nim_sum_right, 12);
        assert_eq!(out.by_coins[&2].nim_sum_right, 0);
        // Without the parity term a single coin is valued 0: right only on square 0.
        assert_eq!(out.by_coins[&1].pairwise_right, 1);
        assert_eq!(out.by_coins[&2].pairwise_right, 55);
        assert_eq!(out.nim_sum_share, share(out.nim_sum_right, out.positions_total));
        for row in out.by_coins.values() {
            assert_eq!(row.nim_sum_right + row.nim_sum_wrong, row.positions);
            assert_eq!(row.pairwise_right + row.pairwise_wrong, row.positions);
        }
        let total = |f: fn(&Row) -> u64| out.by_coins.values().map(f).sum::<u64>();
        assert_eq!(out.nim_sum_right, total(|r| r.nim_sum_right));
        assert_eq!(out.pairwise_right, total(|r| r.pairwise_right));
        assert_eq!(out.positions.values().sum::<u64>(), out.positions_total);
    }

    #[test]
    fn mate_pair_counts_on_twelve_squares() {
        let out = run(&params(&[(2, 12), (4, 12), (6, 12)]));
        let m = &out.mates;
        assert_eq!(m.coin_counts, vec![2, 4, 6]);
        // A union of complete pairs chooses k/2 of the 6 pairs.
        assert_eq!(m.unions, binom(6, 1) + binom(6, 2) + binom(6, 3));
        assert_eq!(m.zero_unions, m.unions, "every union of mate-pairs is a P-position");
        assert_eq!(m.zero, m.zero_unions + m.zero_not_unions);
        assert!(m.zero_no_mated_pair <= m.zero_not_unions);
        assert_eq!(m.moves_with_reply, m.moves);
        assert_eq!(m.moves_with_one_reply, m.moves);
        assert_eq!(m.moves_with_mirror_reply, m.moves);
        // The counts an earlier version of the welter-distinct-heaps essay stated for its strip.
        assert_eq!((m.zero, m.zero_unions, m.zero_not_unions, m.zero_no_mated_pair), (113, 41, 72, 24));
        assert_eq!(m.moves, 660);
    }

    #[test]
    fn odd_coin_counts_add_nothing_to_the_mate_counts() {
        let even = run(&params(&[(2, 10), (4, 10)])).mates;
        let mixed = run(&params(&[(1, 10), (2, 10), (3, 10), (4, 10)]));
        assert_eq!(mixed.mates, even);
        assert_eq!(mixed.by_coins[&3].unions, 0);
        assert_eq!(mixed.by_coins[&3].moves_out_of_unions, 0);
    }

    #[test]
    fn the_grid_is_upper_triangular_and_holds_the_animating_function() {
        let out = run(&params(&[(2, 9), (3, 5)]));
        assert_eq!(out.grid.len(), 9);
        for (a, row) in out.grid.iter().enumerate() {
            assert_eq!(row.len(), 9);
            for (b, cell) in row.iter().enumerate() {
                if a < b {
                    assert_eq!(*cell, Some(animating(a as u32, b as u32)), "cell ({a}, {b})");
                } else {
                    assert_eq!(*cell, None, "cell ({a}, {b})");
                }
            }
        }
        assert!(run(&params(&[(3, 5)])).grid.is_empty());
    }

    #[test]
    fn probes_report_value_and_mating() {
        let mut p = params(&[(1, 2)]);
        p.probe = vec![vec![6, 4, 2, 0], vec![2, 3, 8, 9, 10, 11], vec![], vec![5]];
        let out = run(&p);
        let four = &out.probes[0];
        assert_eq!(four.squares, vec![0, 2, 4, 6]);
        assert_eq!((four.value, four.closed_form, four.union, four.has_mated_pair), (0, 0, false, false));
        assert_eq!(four.nim_sum, 0, "0 ⊕ 2 ⊕ 4 ⊕ 6");
        assert_eq!((out.probes[1].value, out.probes[1].union), (0, true));
        assert_eq!((out.probes[2].coins, out.probes[2].value), (0, 0));
        assert_eq!((out.probes[3].value, out.probes[3].pairwise_sum), (5, 0));
    }

    #[test]
    fn limits_are_checked_before_anything_runs() {
        let err = |p: &WelterParams| WelterCensus::validate(p).unwrap_err().path;
        assert_eq!(err(&params(&[])), vec!["coins"]);
        assert_eq!(err(&params(&[(0, 5)])), vec!["coins", "0"]);
        assert_eq!(err(&params(&[(2, 65)])), vec!["coins", "2"]);
        assert_eq!(err(&params(&[(2, 3), (7, 5)])), vec!["coins", "7"]);
        let mut p = params(&[(1, 3)]);
        p.probe = vec![vec![1], vec![3, 64]];
        assert_eq!(err(&p), vec!["probe", "1"]);
        p.probe = vec![vec![3, 1, 3]];
        assert_eq!(err(&p), vec!["probe", "0"]);
        p.probe = vec![vec![1]; MAX_PROBES + 1];
        assert_eq!(err(&p), vec!["probe"]);
        assert!(WelterCensus::validate(&params(&[(64, 64), (1, 64)])).is_ok());
        assert!(WelterCensus::validate(&params(&[(6, 40)])).is_ok(), "3,838,380 positions");
        assert_eq!(err(&params(&[(8, 32)])), vec!["coins", "8"], "10,518,300 positions");
    }

    #[test]
    fn the_edges_of_the_limits_run() {
        let out = run(&params(&[(64, 64), (63, 64)]));
        assert_eq!(out.positions[&64], 1);
        assert_eq!(out.positions[&63], 64);
        assert_eq!(out.closed_form_right, 65);
        assert_eq!(out.by_coins[&64].unions, 1);
        assert_eq!(out.by_coins[&64].moves_out_of_unions, 0);
    }

    #[test]
    fn huge_censuses_are_refused_by_cost() {
        // 20 coins on 64 squares: C(64, 20) ≈ 2·10^16 positions, each with 880 options.
        let huge = WelterCensus::cost(&params(&[(20, 64)]));
        assert!(huge >= 1u64 << 60, "cost {huge} would let 20 coins on 64 squares run");
        // Over any budget a site can set short of u64::MAX, and refused by the row limit too.
        assert_eq!(huge, u64::MAX);
        assert!(WelterCensus::validate(&params(&[(20, 64)])).is_err());
        let small = WelterCensus::cost(&params(&[(1, 12), (2, 11), (3, 10), (4, 9), (5, 9), (6, 9)]));
        assert!(small < 10_000_000, "the first strip costs {small}");
        assert!(small > 523, "every position costs at least a step");
        // Cost grows with each parameter that grows the work.
        assert!(WelterCensus::cost(&params(&[(4, 13)])) > WelterCensus::cost(&params(&[(4, 12)])));
        assert!(WelterCensus::cost(&params(&[(5, 12)])) > WelterCensus::cost(&params(&[(4, 12)])));
        let mut probed = params(&[(4, 12)]);
        probed.probe = vec![vec![0, 2, 4, 40]];
        assert!(WelterCensus::cost(&probed) > WelterCensus::cost(&params(&[(4, 12)])));
        // The largest legal call still has a cost (saturated, not wrapped).
        let all: Vec<(u32, u32)> = (1..=64).map(|k| (k, 64)).collect();
        assert_eq!(WelterCensus::cost(&params(&all)), u64::MAX);
    }

    #[test]
    fn cancellation_stops_the_run() {
        let ctx = Ctx::new();
        ctx.cancel();
        assert_eq!(WelterCensus::run(&params(&[(2, 6)]), &ctx), Err(Cancelled));
    }

    #[test]
    fn parameters_come_from_yaml_through_the_registry() {
        let block = |with: &str| format!("id: t\nrun: welter.census\nwith: {with}\n");
        let entry = lookup("welter.census").expect("registered");
        let prepared = entry.prepare(&block("{ coins: { 2: 6, 1: 3 } }")).expect("valid");
        assert_eq!(prepared.params, serde_json::json!({ "coins": { "1": 3, "2": 6 } }));
        let out = prepared.run(&Ctx::new()).expect("runs");
        assert_eq!(out["positions"]["2"], 15);
        assert_eq!(out["by_coins"]["2"]["zero"], 3);
        assert_eq!(out["grid"][0][1], 0);
        assert!(out["grid"][1][0].is_null());
        assert!(matches!(entry.prepare(&block("{ coins: { 2: 6 }, squares: 3 }")), Err(PrepareError::Shape { .. })));
        assert!(matches!(entry.prepare(&block("{ coins: { 2: -6 } }")), Err(PrepareError::Shape { .. })));
        assert!(matches!(entry.prepare(&block("{ coins: { 9: 6 } }")), Err(PrepareError::Limit(_))));
    }

    #[test]
    fn binomials_are_exact_and_saturate_nowhere_below_65() {
        assert_eq!(binom(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binom(12, 0), 1);
        assert_eq!(binom(3, 5), 0);
        for n in 0..=64u32 {
            let row: u128 = (0..=n).map(|k| binom(n, k) as u128).sum();
            assert_eq!(row, 1u128 << n, "row {n} of Pascal's triangle sums to 2^{n}");
        }
    }
}
