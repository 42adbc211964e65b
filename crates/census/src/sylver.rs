//! Sylver Coinage censuses: every numerical semigroup of genus 1..=g as a game position
//! (`sylver.census`), and one position in detail (`sylver.position`).
//!
//! The mathematics is in [`countersign_games::sylver`]. A *paired* position is a numerical
//! semigroup whose gaps pair off around its Frobenius number F (symmetric or
//! pseudo-symmetric) with F > 1; every such position is won by the player to move. The
//! *move test* strikes a move when the position it reaches is paired: a struck move loses.
//!
//! # Figure data (for the shared figure kinds of `src/figures/`)
//!
//! * `bars` — `by_genus` of a `sylver.census` result is an object of groups (genus) each
//!   holding series; draw the struck share with `from: <id>.by_genus`,
//!   `layout: groups_series`, `series: [struck_share]` (each value an exact [`Ratio`],
//!   struck moves / legal moves; 0/1 at genus 1). `move_test.struck_share_by_genus` holds
//!   the same shares keyed by genus (genus ≥ 2 only), for claims.
//! * `strip` — a `sylver.position` result: `gaps` is the list of marked cells (the gaps),
//!   `strip.arcs` the pairs `[n, F − n]` for 0 ≤ n < F/2 (one gap and one element each in a
//!   paired position, so the kind must accept arcs with one unmarked end), `strip.middle`
//!   the unpaired F/2 of a pseudo-symmetric position (or null). `strip.cells` lists every cell 0..=F + 1 with its `mark` (`"gap"`/`"element"`)
//!   and, for gaps, a `note` (`"illegal"` for 1, else `"struck"`, `"wins"`, `"survives"`).

use std::collections::{BTreeMap, HashMap};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use serde::{Deserialize, Serialize};

use crate::{share, Cancelled, Census, Ctx, ParamDoc, ParamError, Ratio};
use countersign_games::sylver::{is_paired, pairs_off_by_scan, semigroups_by_genus, PlainSolver, PrunedSolver, Semigroup};

/// Largest `max_genus` [`SylverCensus`] accepts (about 740,000 semigroups, 17 million
/// moves; a few seconds).
pub const CENSUS_MAX_GENUS: u32 = 24;

/// Elementary steps per legal move in the cost model (two move generators, two tests,
/// hashing, the rules), calibrated on the genus-16 and genus-20 censuses.
const STEPS_PER_MOVE: f64 = 400.0;

/// Estimated legal moves over every semigroup of genus 1..=g: the semigroups of genus ≤ g
/// number about 2.5 φ^(g+2) (A007323 grows like φ^g; Zhai 2013), each with at most g − 1
/// moves. Saturating.
fn estimated_moves(g: u32) -> f64 {
    let phi: f64 = 1.618_033_988_75;
    2.5 * phi.powi(g as i32 + 2) * f64::from(g.saturating_sub(1).max(1))
}

/// Parameters of `sylver.census`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct SylverParams {
    /// Largest genus included, 1..=24. The census covers every numerical semigroup of
    /// genus 1..=`max_genus` (ℕ itself, genus 0, is not a position of the game).
    #[serde(deserialize_with = "genus")]
    pub max_genus: u32,
}

/// A genus as a `u32`, `-0` included: YAML reads `-0` as a signed zero, which serde's
/// `u32` refused as "invalid type: integer `0`"; it is zero, which validation then
/// refuses as out of range. Every other value is read, or refused, as a `u32` is.
fn genus<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    struct Genus;
    impl serde::de::Visitor<'_> for Genus {
        type Value = u32;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("u32")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u32, E> {
            u32::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u32, E> {
            u32::try_from(v).map_err(|_| E::invalid_type(serde::de::Unexpected::Signed(v), &self))
        }
    }
    d.deserialize_any(Genus)
}

/// `sylver.census`: every numerical semigroup of genus 1..=g solved as a Sylver Coinage
/// position, with the pairing, the move test, eight naming rules and two solvers.
///
/// Cost: about 400 steps per legal move; genus 16 has 159,728 moves (well under a second
/// cold), genus 20 about 1.7 million (about a second cold). Source: see
/// [`countersign_games::sylver`].
pub struct SylverCensus;

/// Counts over the paired positions (gaps pair off around F, F > 1).
#[derive(Clone, Debug, Serialize)]
pub struct Paired {
    /// Paired positions in the census.
    pub positions: u64,
    /// Of them symmetric (F = 2g − 1).
    pub symmetric: u64,
    /// Of them pseudo-symmetric (F = 2g − 2).
    pub pseudo_symmetric: u64,
    /// Paired positions lost for the player to move (the pairing argument says none).
    pub lost: u64,
    /// Legal moves summed over paired positions.
    pub legal_moves: u64,
    /// Legal moves per paired position.
    pub average_legal_moves: Ratio,
    /// Winning moves summed over paired positions.
    pub winning_moves: u64,
    /// Moves that pass the move test (not struck), summed over paired positions: the
    /// shortlist the test leaves.
    pub survivors: u64,
    /// Survivors per paired position.
    pub average_survivors: Ratio,
    /// Paired positions where the winning move is unique.
    pub one_winning_move: OneWinner,
}

/// The paired positions with exactly one winning move.
#[derive(Clone, Debug, Serialize)]
pub struct OneWinner {
    /// How many such positions.
    pub positions: u64,
    /// Legal moves summed over them.
    pub legal_moves: u64,
    /// Legal moves per such position.
    pub average_legal_moves: Ratio,
    /// Chance that a uniformly random legal move wins, averaged over these positions:
    /// the mean of 1 / (legal moves).
    pub random_guess: Ratio,
    /// One over the average number of legal moves (positions / legal moves): what the
    /// chance of a random guess looks like when computed from the average instead.
    pub one_over_average: Ratio,
}

/// How naming F fares at the paired positions.
#[derive(Clone, Debug, Serialize)]
pub struct NamingF {
    /// Paired positions where naming F wins.
    pub wins: u64,
    /// Of those, positions where F is the only winning move.
    pub only_winning_move: u64,
    /// Paired positions where naming F loses.
    pub loses: u64,
    /// Paired positions where naming F − m (m the multiplicity) wins.
    pub f_less_multiplicity_wins: u64,
    /// Paired positions where F or F − m wins.
    pub either_wins: u64,
    /// Paired positions where neither wins.
    pub neither: u64,
}

/// The move test over the whole census.
#[derive(Clone, Debug, Serialize)]
pub struct MoveTest {
    /// Legal moves summed over every position.
    pub moves: u64,
    /// Moves struck (they reach a paired position).
    pub struck: u64,
    /// `struck / moves`.
    pub struck_share: Ratio,
    /// Legal moves per position (`moves / positions`).
    pub average_legal_moves: Ratio,
    /// Winning moves (to a lost position) summed over every position.
    pub winning: u64,
    /// Winning moves that are struck (the argument says none).
    pub struck_winning: u64,
    /// Positions with at least one move, every one of them struck.
    pub all_struck_positions: u64,
    /// The gaps of each such position, in tree order.
    pub all_struck: Vec<Vec<u32>>,
    /// Moves that reach ⟨2, 3⟩ (only gap 1, lost, F = 1: not struck, winning).
    pub reaching_only_gap_one: u64,
    /// Per genus with at least one move: struck / moves.
    pub struck_share_by_genus: BTreeMap<u32, Ratio>,
    /// Moves x with 2x < F (the lower half of the strip) and how many are struck.
    pub lower_half: Split,
    /// Moves x with 2x ≥ F and how many are struck.
    pub upper_half: Split,
}

/// Moves of one kind and how many of them the test strikes.
#[derive(Clone, Debug, Serialize)]
pub struct Split {
    /// Legal moves of this kind.
    pub moves: u64,
    /// Of them struck.
    pub struck: u64,
    /// `struck / moves`.
    pub share: Ratio,
}

/// The score of one naming rule over the paired positions.
#[derive(Clone, Debug, Serialize)]
pub struct RuleScore {
    /// What the rule names.
    pub rule: &'static str,
    /// True when the rule names at most one gap.
    pub single: bool,
    /// Paired positions where the rule names at least one legal move.
    pub applicable: u64,
    /// Paired positions where some gap it names (legally) wins.
    pub hits: u64,
    /// `hits / paired positions`.
    pub hit_share: Ratio,
    /// Legal candidates summed over paired positions.
    pub candidates: u64,
    /// Candidates per paired position.
    pub average_candidates: Ratio,
}

/// The eight naming rules the sylver-move-test essay scores.
#[derive(Clone, Debug, Serialize)]
pub struct Rules {
    /// How many rules are scored (8).
    pub count: u64,
    /// Paired positions they are scored on.
    pub positions: u64,
    /// F.
    pub largest_gap: RuleScore,
    /// F − m.
    pub largest_gap_less_multiplicity: RuleScore,
    /// The second-largest gap.
    pub second_largest_gap: RuleScore,
    /// ⌊F/2⌋.
    pub half_largest_gap: RuleScore,
    /// The smallest gap above 1.
    pub smallest_gap_above_one: RuleScore,
    /// The number 2.
    pub two: RuleScore,
    /// Every pseudo-Frobenius number.
    pub pseudo_frobenius: RuleScore,
    /// F − a for every minimal generator a < F.
    pub largest_gap_less_generator: RuleScore,
    /// The best hit share among the single-gap rules.
    pub best_single_hit_share: Ratio,
}

/// Winning moves split by the parity of the genus they start from and of the genus drop.
#[derive(Clone, Debug, Serialize)]
pub struct ParitySplit {
    /// Winning moves counted.
    pub winning_moves: u64,
    /// Of them, moves reaching a position of odd genus.
    pub reaching_odd_genus: u64,
    /// From odd genus, closing an even number of gaps.
    pub from_odd_drop_even: u64,
    /// From odd genus, closing an odd number of gaps.
    pub from_odd_drop_odd: u64,
    /// From even genus, closing an odd number of gaps.
    pub from_even_drop_odd: u64,
    /// From even genus, closing an even number of gaps.
    pub from_even_drop_even: u64,
}

impl ParitySplit {
    fn new() -> ParitySplit {
        ParitySplit {
            winning_moves: 0,
            reaching_odd_genus: 0,
            from_odd_drop_even: 0,
            from_odd_drop_odd: 0,
            from_even_drop_odd: 0,
            from_even_drop_even: 0,
        }
    }

    fn add(&mut self, from: u32, to: u32) {
        self.winning_moves += 1;
        if to % 2 == 1 {
            self.reaching_odd_genus += 1;
        }
        let drop = from - to;
        match (from % 2, drop % 2) {
            (1, 0) => self.from_odd_drop_even += 1,
            (1, _) => self.from_odd_drop_odd += 1,
            (_, 1) => self.from_even_drop_odd += 1,
            _ => self.from_even_drop_even += 1,
        }
    }
}

/// Parity of the genus: lost positions by parity, and the winning moves split.
#[derive(Clone, Debug, Serialize)]
pub struct Parity {
    /// Positions of odd genus.
    pub odd_positions: u64,
    /// Lost positions of odd genus.
    pub odd_lost: u64,
    /// Positions of even genus.
    pub even_positions: u64,
    /// Lost positions of even genus.
    pub even_lost: u64,
    /// The smallest even genus with a lost position, 0 if none.
    pub first_even_genus_lost: u32,
    /// Winning moves from paired positions.
    pub paired: ParitySplit,
    /// Winning moves from every position.
    pub all: ParitySplit,
}

/// The two solvers, each run over every position of the census (tree order).
#[derive(Clone, Debug, Serialize)]
pub struct Solvers {
    /// Positions on which the two agree (every position, or the census is wrong).
    pub agree: u64,
    /// Positions on which they differ.
    pub disagree: u64,
    /// Plain solver: moves tried, summed over every position.
    pub plain_descents: u64,
    /// Pruned solver: moves tried after passing the move test.
    pub pruned_descents: u64,
    /// Pruned solver: move tests (moves considered, struck or tried).
    pub pruned_tests: u64,
    /// Pruned solver: moves struck and skipped.
    pub pruned_skipped: u64,
    /// `(plain − pruned) / plain` descents.
    pub saving: Ratio,
    /// Legal moves the plain solver never tries (a winning move came first).
    pub untried_moves: u64,
    /// Of them, moves the test would strike.
    pub untried_struck: u64,
    /// `untried_struck / untried_moves`.
    pub untried_struck_share: Ratio,
}

/// One genus of the census.
#[derive(Clone, Debug, Serialize)]
pub struct GenusRow {
    /// Semigroups of this genus (A007323).
    pub positions: u64,
    /// Lost for the player to move.
    pub lost: u64,
    /// Paired (F > 1).
    pub paired: u64,
    /// Legal moves.
    pub moves: u64,
    /// Struck moves.
    pub struck: u64,
    /// Winning moves.
    pub winning: u64,
    /// `struck / moves` (0/1 at genus 1, which has no legal move).
    pub struck_share: Ratio,
}

/// The result of `sylver.census`, summary first.
#[derive(Clone, Debug, Serialize)]
pub struct SylverCensusResult {
    /// Positions (semigroups of genus 1..=max_genus).
    pub positions: u64,
    /// Lost positions (P-positions).
    pub lost: u64,
    /// Paired positions and what happens on them.
    pub paired: Paired,
    /// Naming F on paired positions.
    pub naming_f: NamingF,
    /// The move test.
    pub move_test: MoveTest,
    /// The naming rules.
    pub rules: Rules,
    /// Parity of the genus.
    pub parity: Parity,
    /// The plain and pruned solvers.
    pub solvers: Solvers,
    /// Per genus 1..=max_genus.
    pub by_genus: BTreeMap<u32, GenusRow>,
}

/// Legal candidates a rule names at a position (sorted, deduplicated, legal moves only).
fn candidates(rule: usize, s: Semigroup) -> Vec<u32> {
    let f = s.frobenius().unwrap_or(0);
    let gaps = s.gaps();
    let mut c: Vec<u32> = match rule {
        0 => vec![f],
        1 => f.checked_sub(s.multiplicity()).into_iter().collect(),
        2 => gaps.iter().rev().nth(1).copied().into_iter().collect(),
        3 => vec![f / 2],
        4 => gaps.iter().copied().find(|&x| x > 1).into_iter().collect(),
        5 => vec![2],
        6 => s.pseudo_frobenius(),
        _ => s.minimal_generators().into_iter().filter(|&a| a < f).map(|a| f - a).collect(),
    };
    c.retain(|&x| x > 1 && !s.contains(u64::from(x)));
    c.sort_unstable();
    c.dedup();
    c
}

const RULES: [(&str, bool); 8] = [
    ("F, the largest gap", true),
    ("F - m, the largest gap less the multiplicity", true),
    ("the second-largest gap", true),
    ("floor(F/2)", true),
    ("the smallest gap above 1", true),
    ("the number 2", true),
    ("every pseudo-Frobenius number", false),
    ("F - a for every minimal generator a < F", false),
];

impl Census for SylverCensus {
    type Params = SylverParams;
    type Output = SylverCensusResult;

    const NAME: &'static str = "sylver.census";
    const SUMMARY: &'static str =
        "Every numerical semigroup of genus 1..=g as a Sylver Coinage position: pairing, move test, naming rules, two solvers";
    const PARAMS: &'static [ParamDoc] = &[ParamDoc {
        name: "max_genus",
        shape: "integer",
        doc: "largest genus included, 1..=24 (genus 16: 11,769 positions; genus 20: 93,141)",
    }];
    const COST_MODEL: &'static str = "400 steps per legal move; legal moves estimated as 2.5 φ^(g+2) (g − 1)";
    const SOURCES: &'static [&'static str] = &["games/sylver.rs", "games/count.rs", "census/sylver.rs"];

    fn validate(params: &SylverParams) -> Result<(), ParamError> {
        if params.max_genus == 0 || params.max_genus > CENSUS_MAX_GENUS {
            return Err(ParamError::at(&["max_genus"], format!("max_genus must be 1..={CENSUS_MAX_GENUS}, got {}", params.max_genus))
                .hint("the sylver-move-test essay uses genus 16; genus 20 takes about a second"));
        }
        Ok(())
    }

    fn cost(params: &SylverParams) -> u64 {
        (estimated_moves(params.max_genus) * STEPS_PER_MOVE) as u64
    }

    fn run(params: &SylverParams, ctx: &Ctx) -> Result<SylverCensusResult, Cancelled> {
        run_census(params.max_genus, ctx)
    }
}

fn run_census(max_genus: u32, ctx: &Ctx) -> Result<SylverCensusResult, Cancelled> {
    let max_genus = max_genus.clamp(1, CENSUS_MAX_GENUS);
    let levels = semigroups_by_genus(max_genus);
    let total: u64 = levels.iter().skip(1).map(|l| l.len() as u64).sum();
    let wins = solve_outcomes(&levels, total, ctx)?;

    let mut tally = Tally::new();
    for (g, level) in levels.iter().enumerate().skip(1) {
        ctx.checkpoint()?;
        ctx.progress(g as u64, u64::from(max_genus) * 2);
        let g = g as u32;
        let mut row =
            GenusRow { positions: level.len() as u64, lost: 0, paired: 0, moves: 0, struck: 0, winning: 0, struck_share: share(0, 0) };
        for (i, &s) in level.iter().enumerate() {
            if i % 4096 == 4095 {
                ctx.checkpoint()?;
            }
            tally.add_position(g, s, &wins, &mut row);
        }
        tally.end_genus(g, row);
    }
    tally.finish_paired();
    let rules = tally.rules();
    let solvers = compare_solvers(&levels, &wins, max_genus, ctx)?;
    let t = tally;
    Ok(SylverCensusResult {
        positions: total,
        lost: t.lost,
        paired: t.paired,
        naming_f: t.naming_f,
        move_test: MoveTest {
            moves: t.moves_total,
            struck: t.struck_total,
            struck_share: share(t.struck_total, t.moves_total),
            average_legal_moves: share(t.moves_total, total),
            winning: t.winning_total,
            struck_winning: t.struck_winning,
            all_struck_positions: t.all_struck.len() as u64,
            all_struck: t.all_struck,
            reaching_only_gap_one: t.reaching_one,
            struck_share_by_genus: t.struck_share_by_genus,
            lower_half: Split { moves: t.lower, struck: t.lower_struck, share: share(t.lower_struck, t.lower) },
            upper_half: Split { moves: t.upper, struck: t.upper_struck, share: share(t.upper_struck, t.upper) },
        },
        rules,
        parity: Parity {
            odd_positions: t.odd_positions,
            odd_lost: t.odd_lost,
            even_positions: t.even_positions,
            even_lost: t.even_lost,
            first_even_genus_lost: t.first_even_genus_lost,
            paired: t.parity_paired,
            all: t.parity_all,
        },
        solvers,
        by_genus: t.by_genus,
    })
}

/// Outcomes of every position of genus 1..=max, genus by genus (every move lowers the
/// genus): `true` when the player to move wins. The census's own table.
fn solve_outcomes(levels: &[Vec<Semigroup>], total: u64, ctx: &Ctx) -> Result<HashMap<Semigroup, bool>, Cancelled> {
    let mut wins: HashMap<Semigroup, bool> = HashMap::with_capacity(total as usize + 1);
    for level in levels.iter().skip(1) {
        ctx.checkpoint()?;
        for (i, &s) in level.iter().enumerate() {
            if i % 4096 == 4095 {
                ctx.checkpoint()?;
            }
            let w = s.moves().into_iter().any(|x| !wins[&s.join(x)]);
            wins.insert(s, w);
        }
    }
    Ok(wins)
}

/// The census's counters while the positions are visited genus by genus.
struct Tally {
    by_genus: BTreeMap<u32, GenusRow>,
    lost: u64,
    paired: Paired,
    /// Σ 1/legal over one-winner positions, as an exact fraction (a big rational: the
    /// denominators grow like lcm(1..=legal), so no fixed width is safe at every genus).
    guess: BigRational,
    naming_f: NamingF,
    moves_total: u64,
    struck_total: u64,
    winning_total: u64,
    struck_winning: u64,
    all_struck: Vec<Vec<u32>>,
    reaching_one: u64,
    lower: u64,
    lower_struck: u64,
    upper: u64,
    upper_struck: u64,
    struck_share_by_genus: BTreeMap<u32, Ratio>,
    rule_hits: [u64; 8],
    rule_applicable: [u64; 8],
    rule_candidates: [u64; 8],
    parity_paired: ParitySplit,
    parity_all: ParitySplit,
    odd_positions: u64,
    odd_lost: u64,
    even_positions: u64,
    even_lost: u64,
    first_even_genus_lost: u32,
}

impl Tally {
    fn new() -> Tally {
        let one_winning_move = OneWinner {
            positions: 0,
            legal_moves: 0,
            average_legal_moves: share(0, 0),
            random_guess: share(0, 0),
            one_over_average: share(0, 0),
        };
        Tally {
            by_genus: BTreeMap::new(),
            lost: 0,
            paired: Paired {
                positions: 0,
                symmetric: 0,
                pseudo_symmetric: 0,
                lost: 0,
                legal_moves: 0,
                average_legal_moves: share(0, 0),
                winning_moves: 0,
                survivors: 0,
                average_survivors: share(0, 0),
                one_winning_move,
            },
            guess: BigRational::zero(),
            naming_f: NamingF { wins: 0, only_winning_move: 0, loses: 0, f_less_multiplicity_wins: 0, either_wins: 0, neither: 0 },
            moves_total: 0,
            struck_total: 0,
            winning_total: 0,
            struck_winning: 0,
            all_struck: Vec::new(),
            reaching_one: 0,
            lower: 0,
            lower_struck: 0,
            upper: 0,
            upper_struck: 0,
            struck_share_by_genus: BTreeMap::new(),
            rule_hits: [0; 8],
            rule_applicable: [0; 8],
            rule_candidates: [0; 8],
            parity_paired: ParitySplit::new(),
            parity_all: ParitySplit::new(),
            odd_positions: 0,
            odd_lost: 0,
            even_positions: 0,
            even_lost: 0,
            first_even_genus_lost: 0,
        }
    }

    /// Counts one position `s` of genus `g` into `row` and the census totals.
    fn add_position(&mut self, g: u32, s: Semigroup, wins: &HashMap<Semigroup, bool>, row: &mut GenusRow) {
        let won = wins[&s];
        if !won {
            row.lost += 1;
        }
        let moves = s.moves();
        let mut winners = Vec::new();
        let mut n_struck = 0u64;
        for &x in &moves {
            let t = s.join(x);
            let struck = is_paired(t);
            let winning = !wins[&t];
            if struck {
                n_struck += 1;
            }
            if 2 * x < s.frobenius().unwrap_or(0) {
                self.lower += 1;
                self.lower_struck += u64::from(struck);
            } else {
                self.upper += 1;
                self.upper_struck += u64::from(struck);
            }
            if winning {
                winners.push(x);
                self.parity_all.add(g, t.genus());
                if struck {
                    self.struck_winning += 1;
                }
            }
            if t == Semigroup::ONLY_GAP_ONE {
                self.reaching_one += 1;
            }
        }
        row.moves += moves.len() as u64;
        row.struck += n_struck;
        row.winning += winners.len() as u64;
        if !moves.is_empty() && n_struck == moves.len() as u64 {
            self.all_struck.push(s.gaps());
        }
        if is_paired(s) {
            row.paired += 1;
            self.add_paired(g, s, won, moves.len() as u64, &winners, n_struck);
        }
    }

    /// Counts one paired position: its moves, winning moves and the naming rules.
    fn add_paired(&mut self, g: u32, s: Semigroup, won: bool, n_moves: u64, winners: &[u32], n_struck: u64) {
        let paired = &mut self.paired;
        paired.positions += 1;
        if s.is_symmetric() {
            paired.symmetric += 1;
        } else {
            paired.pseudo_symmetric += 1;
        }
        if !won {
            paired.lost += 1;
        }
        paired.legal_moves += n_moves;
        paired.winning_moves += winners.len() as u64;
        paired.survivors += n_moves - n_struck;
        for &x in winners {
            self.parity_paired.add(g, s.join(x).genus());
        }
        if winners.len() == 1 {
            let ow = &mut paired.one_winning_move;
            ow.positions += 1;
            ow.legal_moves += n_moves;
            self.guess += BigRational::new(BigInt::from(1u8), BigInt::from(n_moves));
        }
        self.add_naming_f(s, winners);
        for (r, hits) in self.rule_hits.iter_mut().enumerate() {
            let c = candidates(r, s);
            if !c.is_empty() {
                self.rule_applicable[r] += 1;
            }
            self.rule_candidates[r] += c.len() as u64;
            if c.iter().any(|x| winners.contains(x)) {
                *hits += 1;
            }
        }
    }

    /// Counts whether naming F, or F − m, wins at a paired position.
    fn add_naming_f(&mut self, s: Semigroup, winners: &[u32]) {
        let naming_f = &mut self.naming_f;
        let f = s.frobenius().unwrap_or(0);
        let f_wins = winners.contains(&f);
        let fm_wins = f.checked_sub(s.multiplicity()).is_some_and(|y| winners.contains(&y));
        if f_wins {
            naming_f.wins += 1;
            if winners.len() == 1 {
                naming_f.only_winning_move += 1;
            }
        } else {
            naming_f.loses += 1;
        }
        if fm_wins {
            naming_f.f_less_multiplicity_wins += 1;
        }
        if f_wins || fm_wins {
            naming_f.either_wins += 1;
        } else {
            naming_f.neither += 1;
        }
    }

    /// Adds the finished row of genus `g` to the totals.
    fn end_genus(&mut self, g: u32, mut row: GenusRow) {
        if g % 2 == 1 {
            self.odd_positions += row.positions;
            self.odd_lost += row.lost;
        } else {
            self.even_positions += row.positions;
            self.even_lost += row.lost;
            if row.lost > 0 && self.first_even_genus_lost == 0 {
                self.first_even_genus_lost = g;
            }
        }
        row.struck_share = share(row.struck, row.moves);
        if row.moves > 0 {
            self.struck_share_by_genus.insert(g, share(row.struck, row.moves));
        }
        self.lost += row.lost;
        self.moves_total += row.moves;
        self.struck_total += row.struck;
        self.winning_total += row.winning;
        self.by_genus.insert(g, row);
    }

    /// The paired positions' averages, once every position is counted.
    fn finish_paired(&mut self) {
        let paired = &mut self.paired;
        paired.average_legal_moves = share(paired.legal_moves, paired.positions);
        paired.average_survivors = share(paired.survivors, paired.positions);
        let ow = &mut paired.one_winning_move;
        ow.average_legal_moves = share(ow.legal_moves, ow.positions);
        ow.one_over_average = share(ow.positions, ow.legal_moves);
        // The mean of 1/legal over the one-winner positions, reduced; a numerator or
        // denominator beyond u64 is reported as u64::MAX.
        let mean = &self.guess / BigInt::from(ow.positions.max(1));
        ow.random_guess = share(u64::try_from(mean.numer()).unwrap_or(u64::MAX), u64::try_from(mean.denom()).unwrap_or(u64::MAX));
    }

    /// The naming rules' scores over the paired positions.
    fn rules(&self) -> Rules {
        let positions = self.paired.positions;
        let score = |r: usize| RuleScore {
            rule: RULES[r].0,
            single: RULES[r].1,
            applicable: self.rule_applicable[r],
            hits: self.rule_hits[r],
            hit_share: share(self.rule_hits[r], positions),
            candidates: self.rule_candidates[r],
            average_candidates: share(self.rule_candidates[r], positions),
        };
        let best_single = (0..8).filter(|&r| RULES[r].1).map(|r| self.rule_hits[r]).max().unwrap_or(0);
        Rules {
            count: RULES.len() as u64,
            positions,
            largest_gap: score(0),
            largest_gap_less_multiplicity: score(1),
            second_largest_gap: score(2),
            half_largest_gap: score(3),
            smallest_gap_above_one: score(4),
            two: score(5),
            pseudo_frobenius: score(6),
            largest_gap_less_generator: score(7),
            best_single_hit_share: share(best_single, positions),
        }
    }
}

/// The two solvers, each over every position in tree order, compared position by position
/// with the census's table `wins`; and the moves the plain solver never tries.
fn compare_solvers(levels: &[Vec<Semigroup>], wins: &HashMap<Semigroup, bool>, max_genus: u32, ctx: &Ctx) -> Result<Solvers, Cancelled> {
    let mut plain = PlainSolver::new();
    let mut pruned = PrunedSolver::new();
    let (mut agree, mut disagree) = (0u64, 0u64);
    for (g, level) in levels.iter().enumerate().skip(1) {
        ctx.checkpoint()?;
        ctx.progress(u64::from(max_genus) + g as u64, u64::from(max_genus) * 2);
        for (i, &s) in level.iter().enumerate() {
            if i % 4096 == 4095 {
                ctx.checkpoint()?;
            }
            let a = plain.wins(s);
            let b = pruned.wins(s);
            if a == b && a == wins[&s] {
                agree += 1;
            } else {
                disagree += 1;
            }
        }
    }
    let (untried, untried_struck) = untried_moves(levels, wins, ctx)?;
    Ok(Solvers {
        agree,
        disagree,
        plain_descents: plain.descents(),
        pruned_descents: pruned.descents(),
        pruned_tests: pruned.tests(),
        pruned_skipped: pruned.skipped(),
        saving: share(plain.descents().saturating_sub(pruned.descents()), plain.descents()),
        untried_moves: untried,
        untried_struck,
        untried_struck_share: share(untried_struck, untried),
    })
}

/// Moves the plain solver never tries (those after the first winning move), and of them
/// the struck ones.
fn untried_moves(levels: &[Vec<Semigroup>], wins: &HashMap<Semigroup, bool>, ctx: &Ctx) -> Result<(u64, u64), Cancelled> {
    let (mut untried, mut untried_struck) = (0u64, 0u64);
    for (i, &s) in levels.iter().skip(1).flatten().enumerate() {
        if i % 4096 == 4095 {
            ctx.checkpoint()?;
        }
        let moves = s.moves();
        if let Some(i) = moves.iter().position(|&x| !wins[&s.join(x)]) {
            for &x in &moves[i + 1..] {
                untried += 1;
                if is_paired(s.join(x)) {
                    untried_struck += 1;
                }
            }
        }
    }
    Ok((untried, untried_struck))
}

/// Parameters of `sylver.position`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct PositionParams {
    /// Generators of the position (1..=16 numbers, each 1..=1000, gcd 1), e.g. `[5, 7, 9, 11]`.
    /// The semigroup they generate must have genus at most 24.
    pub generators: Vec<u64>,
}

/// `sylver.position`: one numerical semigroup as a Sylver Coinage position, with every
/// legal move classified (struck, wins, survives) and the strip figure's data.
///
/// Cost: solving every position reachable from it (at most the census of its genus).
pub struct SylverPosition;

/// One legal move of a position.
#[derive(Clone, Debug, Serialize)]
pub struct MoveRow {
    /// Gaps of the position reached.
    pub gaps: Vec<u32>,
    /// Its genus.
    pub genus: u32,
    /// Its Frobenius number.
    pub frobenius: u32,
    /// The move is struck: the position reached is paired with F > 1.
    pub struck: bool,
    /// The move wins: the position reached is lost for the player to move.
    pub wins: bool,
}

/// A cell of the strip figure.
#[derive(Clone, Debug, Serialize)]
pub struct StripCell {
    /// The integer.
    pub n: u32,
    /// `"gap"` or `"element"`.
    pub mark: &'static str,
    /// For gaps: `"illegal"` (1), `"struck"`, `"wins"` or `"survives"`; empty for elements.
    pub note: &'static str,
}

/// The strip figure's data (see the module docs).
#[derive(Clone, Debug, Serialize)]
pub struct Strip {
    /// Cells 0..=F + 1.
    pub cells: Vec<StripCell>,
    /// Pairs {n, F − n} for 0 ≤ n < F/2.
    pub arcs: Vec<[u32; 2]>,
    /// F/2 when F is even.
    pub middle: Option<u32>,
}

/// The result of `sylver.position`.
#[derive(Clone, Debug, Serialize)]
pub struct PositionResult {
    /// Minimal generators.
    pub generators: Vec<u32>,
    /// Gaps.
    pub gaps: Vec<u32>,
    /// Genus.
    pub genus: u32,
    /// Frobenius number (0 for ⟨1⟩ = ℕ).
    pub frobenius: u32,
    /// Multiplicity.
    pub multiplicity: u32,
    /// Pseudo-Frobenius numbers.
    pub pseudo_frobenius: Vec<u32>,
    /// Symmetric.
    pub symmetric: bool,
    /// Pseudo-symmetric.
    pub pseudo_symmetric: bool,
    /// Paired with F > 1 (a win for the player to move).
    pub paired: bool,
    /// Won by the player to move.
    pub wins: bool,
    /// Number of legal moves.
    pub legal_count: u64,
    /// Number of struck moves.
    pub struck_count: u64,
    /// Number of moves that pass the test.
    pub survivor_count: u64,
    /// Number of winning moves.
    pub winning_count: u64,
    /// Legal moves, increasing.
    pub legal: Vec<u32>,
    /// Struck moves.
    pub struck: Vec<u32>,
    /// Moves that pass the test.
    pub survivors: Vec<u32>,
    /// Winning moves.
    pub winning: Vec<u32>,
    /// Every legal move, keyed by the number named.
    pub moves: BTreeMap<u32, MoveRow>,
    /// The strip figure's data.
    pub strip: Strip,
}

impl Census for SylverPosition {
    type Params = PositionParams;
    type Output = PositionResult;

    const NAME: &'static str = "sylver.position";
    const SUMMARY: &'static str = "One Sylver Coinage position: gaps, pairing, every move struck/winning, strip data";
    const PARAMS: &'static [ParamDoc] = &[ParamDoc {
        name: "generators",
        shape: "list of integers",
        doc: "1..=16 generators, each 1..=1000, gcd 1, generating a semigroup of genus ≤ 24",
    }];
    const COST_MODEL: &'static str = "as sylver.census with max_genus = the position's genus";
    const SOURCES: &'static [&'static str] = &["games/sylver.rs", "games/count.rs", "census/sylver.rs"];

    fn validate(params: &PositionParams) -> Result<(), ParamError> {
        let g = &params.generators;
        if g.is_empty() || g.len() > 16 {
            return Err(ParamError::at(&["generators"], format!("need 1..=16 generators, got {}", g.len())));
        }
        if let Some((i, a)) = g.iter().enumerate().find(|(_, &a)| a == 0 || a > 1000) {
            return Err(ParamError::at(&["generators", &i.to_string()], format!("generator {a} is outside 1..=1000")));
        }
        match Semigroup::generated_by(g) {
            None => Err(ParamError::at(&["generators"], "these numbers do not generate a numerical semigroup with every gap below 64")
                .hint("the generators need gcd 1, and the Frobenius number must be at most 63")),
            Some(s) if s.genus() > CENSUS_MAX_GENUS => {
                Err(ParamError::at(&["generators"], format!("the semigroup has genus {}, above the limit {CENSUS_MAX_GENUS}", s.genus())))
            }
            Some(_) => Ok(()),
        }
    }

    fn cost(params: &PositionParams) -> u64 {
        let g = Semigroup::generated_by(&params.generators).map_or(1, |s| s.genus().max(1));
        (estimated_moves(g) * STEPS_PER_MOVE) as u64
    }

    fn run(params: &PositionParams, ctx: &Ctx) -> Result<PositionResult, Cancelled> {
        ctx.checkpoint()?;
        let s = Semigroup::generated_by(&params.generators).unwrap_or(Semigroup::NATURALS);
        Ok(describe(s))
    }
}

/// Every detail of one position (solved by the plain solver on a fresh memo).
pub fn describe(s: Semigroup) -> PositionResult {
    let mut solver = PlainSolver::new();
    let f = s.frobenius().unwrap_or(0);
    let mut moves = BTreeMap::new();
    let (mut struck, mut survivors, mut winning) = (Vec::new(), Vec::new(), Vec::new());
    for x in s.moves() {
        let t = s.join(x);
        let row = MoveRow {
            gaps: t.gaps(),
            genus: t.genus(),
            frobenius: t.frobenius().unwrap_or(0),
            struck: pairs_off_by_scan(t),
            wins: !solver.wins(t),
        };
        if row.struck {
            struck.push(x);
        } else {
            survivors.push(x);
        }
        if row.wins {
            winning.push(x);
        }
        moves.insert(x, row);
    }
    let cells = (0..=f + 1)
        .map(|n| {
            let gap = !s.contains(u64::from(n));
            let note = match moves.get(&n) {
                _ if !gap => "",
                None => "illegal",
                Some(r) if r.struck => "struck",
                Some(r) if r.wins => "wins",
                Some(_) => "survives",
            };
            StripCell { n, mark: if gap { "gap" } else { "element" }, note }
        })
        .collect();
    let arcs = (0..=f).filter(|&n| 2 * n < f).map(|n| [n, f - n]).collect();
    PositionResult {
        generators: s.minimal_generators(),
        gaps: s.gaps(),
        genus: s.genus(),
        frobenius: f,
        multiplicity: s.multiplicity(),
        pseudo_frobenius: s.pseudo_frobenius(),
        symmetric: s.is_symmetric(),
        pseudo_symmetric: s.is_pseudo_symmetric(),
        paired: pairs_off_by_scan(s),
        wins: solver.wins(s),
        legal_count: moves.len() as u64,
        struck_count: struck.len() as u64,
        survivor_count: survivors.len() as u64,
        winning_count: winning.len() as u64,
        legal: s.moves(),
        struck,
        survivors,
        winning,
        moves,
        strip: Strip { cells, arcs, middle: if f.is_multiple_of(2) && f > 0 { Some(f / 2) } else { None } },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The random-guess share (the mean of 1/legal over the paired positions with one
    /// winning move) against a plain f64 sum over the positions, solved by the plain solver.
    #[test]
    fn random_guess_is_the_plain_mean_of_one_over_legal_moves() {
        for g in 1..=10 {
            let r = run_census(g, &Ctx::new()).expect("not cancelled");
            let mut solver = PlainSolver::new();
            let (mut sum, mut count) = (0.0f64, 0u64);
            for s in semigroups_by_genus(g).into_iter().skip(1).flatten() {
                if !is_paired(s) {
                    continue;
                }
                let moves = s.moves();
                let winners = moves.iter().filter(|&&x| !solver.wins(s.join(x))).count();
                if winners == 1 {
                    sum += 1.0 / moves.len() as f64;
                    count += 1;
                }
            }
            let ow = &r.paired.one_winning_move;
            assert_eq!(ow.positions, count, "genus {g}");
            let mean = if count == 0 { 0.0 } else { sum / count as f64 };
            let got = ow.random_guess.num as f64 / ow.random_guess.den as f64;
            assert!((got - mean).abs() < 1e-12, "genus {g}: {}/{} is not {mean}", ow.random_guess.num, ow.random_guess.den);
        }
    }

    #[test]
    fn genus_eight_census_is_self_consistent() {
        let r = run_census(8, &Ctx::new()).expect("not cancelled");
        assert_eq!(r.positions, 1 + 2 + 4 + 7 + 12 + 23 + 39 + 67);
        assert_eq!(r.move_test.struck_winning, 0);
        assert_eq!(r.paired.lost, 0);
        assert_eq!(r.solvers.disagree, 0);
        assert_eq!(r.solvers.agree, r.positions);
        assert_eq!(r.solvers.pruned_tests, r.solvers.plain_descents);
        assert_eq!(r.naming_f.wins + r.naming_f.loses, r.paired.positions);
        assert_eq!(r.paired.symmetric + r.paired.pseudo_symmetric, r.paired.positions);
        assert_eq!(r.rules.largest_gap.hits, r.naming_f.wins);
        assert_eq!(r.move_test.struck_share_by_genus[&3], Ratio { num: 5, den: 8 });
        assert_eq!(r.move_test.all_struck, vec![vec![1, 2, 3], vec![1, 2, 3, 6, 7]]);
        let moves: u64 = r.by_genus.values().map(|row| row.moves).sum();
        assert_eq!(moves, r.move_test.moves);
        let genus_sum: u64 = r.by_genus.iter().map(|(g, row)| (u64::from(*g) - 1) * row.positions).sum();
        assert_eq!(moves, genus_sum, "every gap but 1 is a legal move");
    }

    /// The essay's census (genus 1..=16): the figures its earlier version stated.
    #[test]
    fn genus_sixteen_census_reproduces_the_earlier_figures() {
        let r = run_census(16, &Ctx::new()).expect("not cancelled");
        assert_eq!(r.positions, 11_769);
        assert_eq!(r.paired.positions, 583);
        assert_eq!((r.naming_f.wins, r.naming_f.only_winning_move, r.naming_f.loses), (123, 123, 460));
        assert_eq!((r.naming_f.f_less_multiplicity_wins, r.naming_f.neither), (112, 348));
        assert_eq!((r.move_test.moves, r.move_test.struck, r.move_test.winning), (159_728, 27_215, 21_234));
        assert_eq!(r.move_test.struck_winning, 0);
        assert_eq!(r.move_test.all_struck, vec![vec![1, 2, 3], vec![1, 2, 3, 6, 7]]);
        assert_eq!(r.move_test.reaching_only_gap_one, 70);
        assert_eq!(r.paired.one_winning_move.positions, 367);
        assert_eq!((r.parity.paired.winning_moves, r.parity.paired.reaching_odd_genus), (981, 775));
        assert_eq!((r.solvers.plain_descents, r.solvers.pruned_descents), (95_516, 72_005));
        assert_eq!(r.solvers.pruned_tests, 95_516);
        let hits: Vec<u64> = [
            &r.rules.largest_gap,
            &r.rules.largest_gap_less_multiplicity,
            &r.rules.second_largest_gap,
            &r.rules.half_largest_gap,
            &r.rules.smallest_gap_above_one,
            &r.rules.two,
            &r.rules.pseudo_frobenius,
            &r.rules.largest_gap_less_generator,
        ]
        .iter()
        .map(|s| s.hits)
        .collect();
        assert_eq!(hits, vec![123, 112, 114, 67, 35, 20, 154, 279]);
        assert_eq!(r.rules.half_largest_gap.applicable, 394);
        assert_eq!((r.move_test.lower_half.struck, r.move_test.lower_half.moves), (24_813, 99_827));
        assert_eq!((r.move_test.upper_half.struck, r.move_test.upper_half.moves), (2_402, 59_901));
    }

    #[test]
    fn five_seven_nine_eleven_in_detail() {
        let r = describe(Semigroup::generated_by(&[5, 7, 9, 11]).expect("semigroup"));
        assert_eq!(r.gaps, vec![1, 2, 3, 4, 6, 8, 13]);
        assert_eq!(r.struck, vec![2, 3, 4, 6]);
        assert_eq!(r.survivors, vec![8, 13]);
        assert_eq!(r.winning.len(), 1);
        assert!(r.wins && r.paired);
        assert_eq!(r.strip.cells.len(), 15);
        assert_eq!(r.strip.arcs.len(), 7);
        assert_eq!(r.strip.middle, None);
    }

    #[test]
    fn the_registry_prepares_and_runs_both_censuses() {
        let c = crate::lookup("sylver.census").expect("registered");
        let out = c.prepare("id: a\nrun: sylver.census\nwith: {max_genus: 5}\n").expect("valid").run(&Ctx::new()).expect("not cancelled");
        assert_eq!(out["positions"], 1 + 2 + 4 + 7 + 12);
        assert_eq!(out["move_test"]["struck_share_by_genus"]["3"]["num"], 5);
        // `-0` is zero: out of range, said as such (not "invalid type: integer 0").
        for (g, shown) in [("-0", "max_genus must be 1..=24, got 0"), ("-3", "invalid type: integer `-3`, expected u32")] {
            let msg = match c.prepare(&format!("id: a\nrun: sylver.census\nwith: {{max_genus: {g}}}\n")) {
                Err(crate::PrepareError::Limit(e)) => e.message,
                Err(crate::PrepareError::Shape { message, .. }) => message,
                Ok(_) => panic!("{g} accepted"),
            };
            assert!(msg.contains(shown), "{g}: {msg}");
        }
        match c.prepare("id: a\nrun: sylver.census\nwith: {max_genus: 99}\n") {
            Err(crate::PrepareError::Limit(e)) => assert_eq!(e.path, vec!["max_genus".to_string()]),
            other => panic!("expected a limit error, got {other:?}"),
        }
        assert!(matches!(c.prepare("id: a\nrun: sylver.census\nwith: {max_genus: 5, extra: 1}\n"), Err(crate::PrepareError::Shape { .. })));
        let p = crate::lookup("sylver.position").expect("registered");
        let out =
            p.prepare("id: b\nrun: sylver.position\nwith: {generators: [3, 7]}\n").expect("valid").run(&Ctx::new()).expect("not cancelled");
        assert_eq!(out["moves"]["11"]["frobenius"], 8);
        assert!(matches!(p.prepare("id: b\nrun: sylver.position\nwith: {generators: [4, 6]}\n"), Err(crate::PrepareError::Limit(_))));
    }

    /// On every paired position each arc of the strip has exactly one gap end, and the
    /// cells' marks and notes agree with the move list.
    #[test]
    fn strip_data_matches_the_pairing_on_every_position_to_genus_nine() {
        for s in semigroups_by_genus(9).into_iter().skip(1).flatten() {
            let r = describe(s);
            let gap = |n: u32| r.gaps.contains(&n);
            if r.paired {
                for [a, b] in &r.strip.arcs {
                    assert_ne!(gap(*a), gap(*b), "arc {a}–{b} of {:?}", r.gaps);
                }
                assert_eq!(r.strip.middle.is_some(), r.pseudo_symmetric, "middle of {:?}", r.gaps);
            }
            for c in &r.strip.cells {
                assert_eq!(c.mark == "gap", gap(c.n));
                let expected = match r.moves.get(&c.n) {
                    Some(m) if m.struck => "struck",
                    Some(m) if m.wins => "wins",
                    Some(_) => "survives",
                    None if gap(c.n) => "illegal",
                    None => "",
                };
                assert_eq!(c.note, expected, "cell {} of {:?}", c.n, r.gaps);
            }
            assert_eq!(r.wins, !r.winning.is_empty(), "outcome of {:?}", r.gaps);
        }
    }

    #[test]
    fn a_cancelled_run_stops() {
        let ctx = Ctx::new();
        ctx.cancel();
        assert!(run_census(12, &ctx).is_err());
    }

    #[test]
    fn limits_are_checked() {
        assert!(SylverCensus::validate(&SylverParams { max_genus: 0 }).is_err());
        assert!(SylverCensus::validate(&SylverParams { max_genus: 25 }).is_err());
        assert!(SylverCensus::validate(&SylverParams { max_genus: 24 }).is_ok());
        assert!(SylverCensus::cost(&SylverParams { max_genus: 24 }) > SylverCensus::cost(&SylverParams { max_genus: 16 }));
        for bad in [vec![], vec![4, 6], vec![0, 3], vec![9, 10], vec![2; 17], vec![5000, 3]] {
            assert!(SylverPosition::validate(&PositionParams { generators: bad.clone() }).is_err(), "{bad:?}");
        }
        // ⟨7, 8⟩: F = 41, genus 21 — accepted; ⟨8, 9⟩: genus 28 — refused.
        assert!(SylverPosition::validate(&PositionParams { generators: vec![7, 8] }).is_ok());
        assert!(SylverPosition::validate(&PositionParams { generators: vec![8, 9] }).is_err());
    }
}
