//! Censuses of Welter matchings: `welter.matchings` (how five greedy rules, the low-bit
//! trie and every matching read the Grundy value over a census of positions, and whether
//! the low-bit matching answers moves) and `welter.position` (one position worked out:
//! value, low-bit matching, trie nodes, every matching and each rule's choice).
//!
//! Grundy values come from the plain recursion ([`welter::values_by_recursion`],
//! [`welter::Recursion`]); Conway's closed form and the trie-node form are computed
//! beside it and their agreement is reported, never assumed.
//! Mathematics: [`countersign_games::welter::matching`]; Welter (1954); Conway, *On Numbers
//! and Games*, ch. 13.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::{share, Cancelled, Census, Ctx, ParamDoc, ParamError, Ratio};
use countersign_games::welter::matching::{
    all_matchings, greedy_outcomes, greedy_outcomes_brute_force, matching_count, parting_bit, trie, Matching, Rule,
};
use countersign_games::welter::{self, animating, closed_form, nim_sum, Position, Recursion};

/// Most coins a census or a position may have (945 matchings at ten coins).
pub const MAX_COINS: u32 = 10;
/// Most squares a census strip may have.
pub const MAX_CENSUS_SQUARES: u32 = 24;
/// Squares of a single position must be below this.
pub const MAX_POSITION_SQUARE: u32 = 40;

use countersign_games::count::binomial as binom;

fn factorial(k: u64) -> u64 {
    (1..=k).fold(1u64, |acc, i| acc.saturating_mul(i))
}

/// An exact count that may depend on how a rule's ties are broken: the least and the
/// greatest over every way of breaking them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Range {
    /// The count when every tie is broken against the rule.
    pub min: u64,
    /// The count when every tie is broken in the rule's favour.
    pub max: u64,
}

// ---------------------------------------------------------------------------------------
// welter.matchings
// ---------------------------------------------------------------------------------------

/// Parameters of `welter.matchings`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct MatchingsParams {
    /// Number of coins → number of squares of the strip (squares `0..n`). Coins 1..=10,
    /// squares from the number of coins up to 24.
    pub coins: BTreeMap<u32, u32>,
}

/// One coin count's totals.
#[derive(Clone, Debug, Serialize)]
pub struct CoinRow {
    /// Squares of the strip for this coin count.
    pub squares: u32,
    /// Positions: C(squares, coins).
    pub positions: u64,
    /// Matchings of one position of this many coins.
    pub matchings: u64,
    /// Positions of value 0 by the recursion (P-positions).
    pub lost: u64,
    /// Lost positions in which no coin's mate square (its square with the bottom bit
    /// flipped) holds a coin, so no mated pair explains the loss.
    pub lost_without_mated_pair: u64,
    /// Positions where the closed form equals the recursion's value.
    pub closed_form_agrees: u64,
    /// Positions where the trie-node form equals the recursion's value.
    pub trie_nodes_agree: u64,
    /// Positions where the low-bit trie matching reads the recursion's value.
    pub trie_matching_reads_value: u64,
    /// Positions where some matching reads the recursion's value.
    pub some_matching_reads_value: u64,
    /// Positions where the greedy low-bit rule, under every tie-breaking, builds exactly
    /// the bottom-up trie matching.
    pub low_bit_rule_is_trie_matching: u64,
    /// Positions where, for all five rules, branching on ties and the brute-force check
    /// over every matching and every order of its pairs give the same set of matchings.
    pub ties_checked_by_brute_force: u64,
}

/// One rule at one coin count.
#[derive(Clone, Debug, Serialize)]
pub struct RuleRow {
    /// Positions of this coin count.
    pub positions: u64,
    /// Positions where the rule's matching reads the Grundy value: least and greatest over
    /// every way of breaking the rule's ties.
    pub right: Range,
    /// The same count when ties cannot change it (`min == max`), else null.
    pub right_exact: Option<u64>,
    /// Positions where the rule's ties lead to more than one matching.
    pub tied: u64,
    /// Positions where one way of breaking the ties reads the value and another does not.
    pub tie_decides: u64,
    /// right.min / positions.
    pub share_min: Ratio,
    /// right.max / positions.
    pub share_max: Ratio,
}

/// The five rules, each by coin count (struct order is the essays' order).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Rules {
    /// Neighbours in order.
    pub neighbours: BTreeMap<u32, RuleRow>,
    /// Outermost first.
    pub outermost: BTreeMap<u32, RuleRow>,
    /// Closest numbers.
    pub closest: BTreeMap<u32, RuleRow>,
    /// High bits (smallest exclusive-or).
    pub high_bits: BTreeMap<u32, RuleRow>,
    /// Low bits (most trailing bits in common).
    pub low_bits: BTreeMap<u32, RuleRow>,
}

impl Rules {
    fn get_mut(&mut self, rule: Rule) -> &mut BTreeMap<u32, RuleRow> {
        match rule {
            Rule::Neighbours => &mut self.neighbours,
            Rule::Outermost => &mut self.outermost,
            Rule::Closest => &mut self.closest,
            Rule::HighBits => &mut self.high_bits,
            Rule::LowBits => &mut self.low_bits,
        }
    }
}

/// The four-coin analysis: of the three matchings of a position, two part their pairs at
/// the same bits (the ultrametric property) and the third reads the closed form.
#[derive(Clone, Debug, Serialize)]
pub struct FourCoins {
    /// Four-coin positions examined.
    pub positions: u64,
    /// Positions where exactly two of the three matchings have the same parting bits.
    pub exactly_two_part_alike: u64,
    /// Positions where all three matchings have the same parting bits.
    pub all_three_part_alike: u64,
    /// Positions where the odd one out reads the closed form.
    pub odd_one_reads_closed_form: u64,
    /// Positions where the odd one out is the low-bit matching.
    pub odd_one_is_low_bits: u64,
    /// Positions where the odd one out contains the pair with the highest parting bit.
    pub odd_one_pairs_closest_coins: u64,
}

/// Uniqueness of the matching reading the value, at one coin count.
#[derive(Clone, Debug, Serialize)]
pub struct Uniqueness {
    /// Positions.
    pub positions: u64,
    /// Matchings per position.
    pub matchings: u64,
    /// Positions where the low-bit matching is the only matching reading the value.
    pub only_low_bits: u64,
    /// Positions where some other matching reads the value too.
    pub others_too: u64,
    /// only_low_bits / positions.
    pub unique_share: Ratio,
    /// Matchings reading the value, summed over positions.
    pub reading_matchings: u64,
}

/// Replies from the lost positions of one coin count.
#[derive(Clone, Debug, Serialize)]
pub struct Replies {
    /// Lost positions (value 0).
    pub lost_positions: u64,
    /// Moves from them.
    pub moves: u64,
    /// Moves that have some reply back to a lost position (all of them, if the values
    /// are right).
    pub moves_with_winning_reply: u64,
    /// Moves answerable by sliding the moved coin's partner in the low-bit matching of the
    /// position before the move to a lost position.
    pub answered_by_partner: u64,
    /// Moves of the left-over coin (it has no partner).
    pub moved_coin_unpaired: u64,
    /// answered_by_partner / moves.
    pub partner_share: Ratio,
}

/// The result of `welter.matchings`.
#[derive(Clone, Debug, Serialize)]
pub struct MatchingsResult {
    /// Positions in the census.
    pub positions: u64,
    /// Positions where the closed form equals the recursion's value.
    pub closed_form_agrees: u64,
    /// Positions where the low-bit trie matching reads the recursion's value.
    pub trie_matching_reads_value: u64,
    /// Positions where the ties of all five rules were checked by brute force.
    pub ties_checked_by_brute_force: u64,
    /// Bits read by the deepest node of any position's trie (its bit plus one).
    pub trie_depth: u32,
    /// Totals by coin count.
    pub by_coins: BTreeMap<u32, CoinRow>,
    /// Each rule by coin count.
    pub rules: Rules,
    /// The four-coin analysis (null without four coins in the census).
    pub four_coins: Option<FourCoins>,
    /// Uniqueness by coin count (two coins and more).
    pub uniqueness: BTreeMap<u32, Uniqueness>,
    /// Replies by coin count (two coins and more).
    pub replies: BTreeMap<u32, Replies>,
}

/// `welter.matchings`: matchings, rules, trie, uniqueness and replies over a census.
pub struct WelterMatchings;

fn check_coins(coins: &BTreeMap<u32, u32>) -> Result<(), ParamError> {
    if coins.is_empty() {
        return Err(ParamError::at(&["coins"], "no coin counts given").hint("e.g. coins: { 4: 14 }"));
    }
    for (&n, &s) in coins {
        let key = n.to_string();
        if n == 0 || n > MAX_COINS {
            return Err(ParamError::at(&["coins", &key], format!("{n} coins is outside 1..={MAX_COINS}")));
        }
        if s < n {
            return Err(ParamError::at(&["coins", &key], format!("{n} coins need at least {n} squares, got {s}")));
        }
        if s > MAX_CENSUS_SQUARES {
            return Err(ParamError::at(&["coins", &key], format!("{s} squares is over the limit"))
                .hint(format!("the limit is {MAX_CENSUS_SQUARES} squares")));
        }
    }
    Ok(())
}

impl Census for WelterMatchings {
    type Params = MatchingsParams;
    type Output = MatchingsResult;

    const NAME: &'static str = "welter.matchings";
    const SUMMARY: &'static str =
        "Welter matchings: five greedy rules (tie ranges), the low-bit trie, uniqueness, replies from lost positions";
    const PARAMS: &'static [ParamDoc] =
        &[ParamDoc {
            name: "coins", shape: "map of integer → integer", doc: "number of coins (1..=10) → number of squares (coins..=24)"
        }];
    const COST_MODEL: &'static str = "per coin count n on s squares: C(s, n) positions × (n·s for the recursion \
         + n²·s² for replies + 5 rules × matchings(n) × (n/2)! × n³ for the brute-force tie check)";
    const SOURCES: &'static [&'static str] =
        &["games/welter.rs", "games/welter/matching.rs", "games/impartial.rs", "games/count.rs", "census/welter_matchings.rs"];

    fn validate(params: &MatchingsParams) -> Result<(), ParamError> {
        check_coins(&params.coins)
    }

    fn cost(params: &MatchingsParams) -> u64 {
        let mut total: u64 = 0;
        for (&n, &s) in &params.coins {
            let (n, s) = (n as u64, s as u64);
            let per = (n * s)
                .saturating_add(n * n * s * s)
                .saturating_add(5u64.saturating_mul(matching_count(n as u32)).saturating_mul(factorial(n / 2)).saturating_mul(n * n * n));
            total = total.saturating_add(binom(s, n).saturating_mul(per));
        }
        total
    }

    fn run(params: &MatchingsParams, ctx: &Ctx) -> Result<MatchingsResult, Cancelled> {
        run_matchings(params, ctx)
    }
}

fn run_matchings(params: &MatchingsParams, ctx: &Ctx) -> Result<MatchingsResult, Cancelled> {
    let total: u64 = params.coins.iter().map(|(&n, &s)| binom(s as u64, n as u64)).sum();
    let mut done = 0u64;
    let mut result = MatchingsResult {
        positions: 0,
        closed_form_agrees: 0,
        trie_matching_reads_value: 0,
        ties_checked_by_brute_force: 0,
        trie_depth: 0,
        by_coins: BTreeMap::new(),
        rules: Rules::default(),
        four_coins: None,
        uniqueness: BTreeMap::new(),
        replies: BTreeMap::new(),
    };
    for (&n, &s) in &params.coins {
        ctx.checkpoint()?;
        let values = welter::values_by_recursion(n, s);
        let value_of: HashMap<u64, u64> = values.iter().map(|&(p, v)| (p.0, v)).collect();
        let mut tally = CoinTally::new(n, s, values.len() as u64);
        for &(p, v) in &values {
            ctx.checkpoint()?;
            done += 1;
            ctx.progress(done, total);
            tally.add(n, p, v, &value_of, &mut result.trie_depth);
        }
        tally.fold_into(n, &mut result);
    }
    Ok(result)
}

/// One coin count's counters while its positions are visited.
struct CoinTally {
    row: CoinRow,
    rule_rows: Vec<RuleRow>,
    four: FourCoins,
    uniq: Uniqueness,
    replies: Replies,
}

impl CoinTally {
    /// Empty counters for `n` coins on `s` squares, `positions` positions.
    fn new(n: u32, s: u32, positions: u64) -> CoinTally {
        let row = CoinRow {
            squares: s,
            positions,
            matchings: matching_count(n),
            lost: 0,
            lost_without_mated_pair: 0,
            closed_form_agrees: 0,
            trie_nodes_agree: 0,
            trie_matching_reads_value: 0,
            some_matching_reads_value: 0,
            low_bit_rule_is_trie_matching: 0,
            ties_checked_by_brute_force: 0,
        };
        let rule_row = || RuleRow {
            positions: 0,
            right: Range { min: 0, max: 0 },
            right_exact: None,
            tied: 0,
            tie_decides: 0,
            share_min: Ratio::new(0, 1),
            share_max: Ratio::new(0, 1),
        };
        CoinTally {
            row,
            rule_rows: Rule::ALL.iter().map(|_| rule_row()).collect(),
            four: FourCoins {
                positions: 0,
                exactly_two_part_alike: 0,
                all_three_part_alike: 0,
                odd_one_reads_closed_form: 0,
                odd_one_is_low_bits: 0,
                odd_one_pairs_closest_coins: 0,
            },
            uniq: Uniqueness {
                positions: 0,
                matchings: matching_count(n),
                only_low_bits: 0,
                others_too: 0,
                unique_share: Ratio::new(0, 1),
                reading_matchings: 0,
            },
            replies: Replies {
                lost_positions: 0,
                moves: 0,
                moves_with_winning_reply: 0,
                answered_by_partner: 0,
                moved_coin_unpaired: 0,
                partner_share: Ratio::new(0, 1),
            },
        }
    }

    /// Counts position `p` of `n` coins, of value `v`; `value_of` holds every value of `n`
    /// coins, `trie_depth` the deepest trie so far.
    fn add(&mut self, n: u32, p: Position, v: u64, value_of: &HashMap<u64, u64>, trie_depth: &mut u32) {
        let row = &mut self.row;
        if v == 0 {
            row.lost += 1;
            if !welter::has_mated_pair(p) {
                row.lost_without_mated_pair += 1;
            }
        }
        if closed_form(p) == v {
            row.closed_form_agrees += 1;
        }
        let (nodes, low) = trie(p);
        if let Some(deepest) = nodes.iter().map(|nd| nd.bit + 1).max() {
            *trie_depth = (*trie_depth).max(deepest);
        }
        let masks = nodes.iter().filter(|nd| nd.is_odd()).fold(0u64, |acc, nd| acc ^ nd.mask());
        if nim_sum(p) ^ masks == v {
            row.trie_nodes_agree += 1;
        }
        if low.reading() == v {
            row.trie_matching_reads_value += 1;
        }
        let all = all_matchings(p);
        let reading: Vec<bool> = all.iter().map(|m| m.reading() == v).collect();
        if reading.iter().any(|&r| r) {
            row.some_matching_reads_value += 1;
        }
        self.add_rules(p, v, &low);
        if n == 4 {
            self.add_four_coins(p, &all, &low);
        }
        if n >= 2 {
            self.add_uniqueness(&all, &reading, &low);
        }
        if n >= 2 && v == 0 {
            self.add_replies(p, &low, value_of);
        }
    }

    /// The greedy rules at `p`, with ties branched and checked by brute force.
    fn add_rules(&mut self, p: Position, v: u64, low: &Matching) {
        let mut brute_ok = true;
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let outcomes = greedy_outcomes(p, rule);
            if outcomes != greedy_outcomes_brute_force(p, rule) {
                brute_ok = false;
            }
            if rule == Rule::LowBits && outcomes.len() == 1 && outcomes[0] == *low {
                self.row.low_bit_rule_is_trie_matching += 1;
            }
            let rights = outcomes.iter().filter(|m| m.reading() == v).count();
            let r = &mut self.rule_rows[i];
            r.positions += 1;
            if rights == outcomes.len() {
                r.right.min += 1;
            }
            if rights > 0 {
                r.right.max += 1;
            }
            if outcomes.len() > 1 {
                r.tied += 1;
            }
            if rights > 0 && rights < outcomes.len() {
                r.tie_decides += 1;
            }
        }
        if brute_ok {
            self.row.ties_checked_by_brute_force += 1;
        }
    }

    /// Four coins: how the three matchings part, and what the odd one out reads.
    fn add_four_coins(&mut self, p: Position, all: &[Matching], low: &Matching) {
        let four = &mut self.four;
        four.positions += 1;
        let bits: Vec<Vec<u32>> = all.iter().map(Matching::parting_bits).collect();
        if bits[0] == bits[1] && bits[1] == bits[2] {
            four.all_three_part_alike += 1;
        }
        let odd: Vec<usize> = (0..3).filter(|&i| bits[(i + 1) % 3] == bits[(i + 2) % 3] && bits[i] != bits[(i + 1) % 3]).collect();
        if odd.len() != 1 {
            return;
        }
        four.exactly_two_part_alike += 1;
        let m = &all[odd[0]];
        if m.reading() == closed_form(p) {
            four.odd_one_reads_closed_form += 1;
        }
        if m == low {
            four.odd_one_is_low_bits += 1;
        }
        let sq = p.squares();
        let mut best = (0u32, (0u32, 0u32));
        for a in 0..4 {
            for b in a + 1..4 {
                let pb = parting_bit(sq[a], sq[b]);
                if pb > best.0 {
                    best = (pb, (sq[a], sq[b]));
                }
            }
        }
        if m.contains_pair(best.1 .0, best.1 .1) {
            four.odd_one_pairs_closest_coins += 1;
        }
    }

    /// Whether the low-bits matching is the only one reading the value.
    fn add_uniqueness(&mut self, all: &[Matching], reading: &[bool], low: &Matching) {
        let uniq = &mut self.uniq;
        uniq.positions += 1;
        let count = reading.iter().filter(|&&r| r).count() as u64;
        uniq.reading_matchings += count;
        let low_reads = all.iter().zip(reading).any(|(m, &r)| r && m == low);
        if low_reads && count == 1 {
            uniq.only_low_bits += 1;
        } else if low_reads {
            uniq.others_too += 1;
        }
    }

    /// At a lost position `p`: every move, and whether moving the moved coin's partner
    /// answers it.
    fn add_replies(&mut self, p: Position, low: &Matching, value_of: &HashMap<u64, u64>) {
        let replies = &mut self.replies;
        replies.lost_positions += 1;
        for s_from in p.squares() {
            let partner = low.partner(s_from);
            for t in 0..s_from {
                if p.0 & (1u64 << t) != 0 {
                    continue;
                }
                let after = Position(p.0 & !(1u64 << s_from) | (1u64 << t));
                replies.moves += 1;
                if after.options().iter().any(|o| value_of.get(&o.0) == Some(&0)) {
                    replies.moves_with_winning_reply += 1;
                }
                match partner {
                    None => replies.moved_coin_unpaired += 1,
                    Some(q) => {
                        let answered =
                            (0..q).any(|u| after.0 & (1u64 << u) == 0 && value_of.get(&(after.0 & !(1u64 << q) | (1u64 << u))) == Some(&0));
                        if answered {
                            replies.answered_by_partner += 1;
                        }
                    }
                }
            }
        }
    }

    /// Adds the finished counters of `n` coins to `result`.
    fn fold_into(self, n: u32, result: &mut MatchingsResult) {
        let CoinTally { row, rule_rows, four, mut uniq, mut replies } = self;
        for (i, &rule) in Rule::ALL.iter().enumerate() {
            let mut r = rule_rows[i].clone();
            r.right_exact = (r.right.min == r.right.max).then_some(r.right.min);
            r.share_min = share(r.right.min, r.positions);
            r.share_max = share(r.right.max, r.positions);
            result.rules.get_mut(rule).insert(n, r);
        }
        if n == 4 {
            result.four_coins = Some(four);
        }
        if n >= 2 {
            uniq.unique_share = share(uniq.only_low_bits, uniq.positions);
            result.uniqueness.insert(n, uniq);
            replies.partner_share = share(replies.answered_by_partner, replies.moves);
            result.replies.insert(n, replies);
        }
        result.positions += row.positions;
        result.closed_form_agrees += row.closed_form_agrees;
        result.trie_matching_reads_value += row.trie_matching_reads_value;
        result.ties_checked_by_brute_force += row.ties_checked_by_brute_force;
        result.by_coins.insert(n, row);
    }
}

// ---------------------------------------------------------------------------------------
// welter.position
// ---------------------------------------------------------------------------------------

/// Parameters of `welter.position`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
pub struct PositionParams {
    /// The occupied squares, distinct, each below 40; 1..=10 coins.
    pub squares: Vec<u32>,
}

/// A pair of a matching with what it contributes.
#[derive(Clone, Debug, Serialize)]
pub struct PairOut {
    /// The lower square.
    pub a: u32,
    /// The higher square.
    pub b: u32,
    /// The lowest bit in which `a` and `b` differ.
    pub parting_bit: u32,
    /// Conway's animating value ⟨a|b⟩ = (a ⊕ b) − 1.
    pub animating: u64,
}

/// A matching written out.
#[derive(Clone, Debug, Serialize)]
pub struct MatchingOut {
    /// Its pairs, by lower square.
    pub pairs: Vec<PairOut>,
    /// The left-over coin (odd counts), else null.
    pub leftover: Option<u32>,
    /// The parting bits of its pairs, increasing.
    pub parting_bits: Vec<u32>,
    /// The value it reads.
    pub reading: u64,
    /// True when the reading is the position's Grundy value.
    pub reads_value: bool,
    /// True when it is the low-bit (trie) matching.
    pub is_low_bits: bool,
}

/// A node of the low-bit trie at which coins part.
#[derive(Clone, Debug, Serialize)]
pub struct NodeOut {
    /// The bit read at the node.
    pub bit: u32,
    /// The trailing bits shared below the node, as a number below 2^bit.
    pub residue: u64,
    /// Coins with a 0 at `bit`.
    pub zeros: Vec<u32>,
    /// Coins with a 1 at `bit`.
    pub ones: Vec<u32>,
    /// Pairs of coins parting here: |zeros|·|ones|.
    pub parting_pairs: u64,
    /// Both sides odd.
    pub odd: bool,
    /// 2^(bit+1) − 1.
    pub mask: u64,
    /// The low-bit pair made here, as [a, b], else null.
    pub pair: Option<[u32; 2]>,
}

/// One rule's choice on the position.
#[derive(Clone, Debug, Serialize)]
pub struct RuleOut {
    /// Every matching the rule can build under some tie-breaking.
    pub outcomes: Vec<MatchingOut>,
    /// How many of them read the value: least and greatest is 0 or 1 per position, so
    /// this is `{min, max}` over tie-breaks of "reads the value" (1 = yes).
    pub reads_value: Range,
}

/// The five rules on one position.
#[derive(Clone, Debug, Serialize)]
pub struct RulesOut {
    /// Neighbours in order.
    pub neighbours: RuleOut,
    /// Outermost first.
    pub outermost: RuleOut,
    /// Closest numbers.
    pub closest: RuleOut,
    /// High bits.
    pub high_bits: RuleOut,
    /// Low bits.
    pub low_bits: RuleOut,
}

/// The result of `welter.position`.
#[derive(Clone, Debug, Serialize)]
pub struct PositionResult {
    /// The squares, increasing.
    pub squares: Vec<u32>,
    /// Number of coins.
    pub coins: u32,
    /// Grundy value by the plain recursion.
    pub value: u64,
    /// Conway's closed form.
    pub closed_form: u64,
    /// The trie-node form: nim-sum of squares ⊕ masks of the odd nodes.
    pub value_by_trie_nodes: u64,
    /// The nim-sum of the squares.
    pub nim_sum: u64,
    /// The low-bit matching.
    pub low_bits: MatchingOut,
    /// The trie's parting nodes, by bit and residue.
    pub trie: Vec<NodeOut>,
    /// Nodes with an odd number of coins on both sides.
    pub odd_nodes: u64,
    /// Every matching, sorted by pairs.
    pub matchings: Vec<MatchingOut>,
    /// How many matchings read the value.
    pub matchings_reading_value: u64,
    /// Each rule's matchings.
    pub rules: RulesOut,
}

/// `welter.position`: one position worked out.
pub struct WelterPosition;

fn matching_out(m: &Matching, value: u64, low: &Matching) -> MatchingOut {
    MatchingOut {
        pairs: m.pairs.iter().map(|&(a, b)| PairOut { a, b, parting_bit: parting_bit(a, b), animating: animating(a, b) }).collect(),
        leftover: m.leftover,
        parting_bits: m.parting_bits(),
        reading: m.reading(),
        reads_value: m.reading() == value,
        is_low_bits: m == low,
    }
}

impl Census for WelterPosition {
    type Params = PositionParams;
    type Output = PositionResult;

    const NAME: &'static str = "welter.position";
    const SUMMARY: &'static str = "One Welter position: value, low-bit matching and trie, every matching, each rule's choice";
    const PARAMS: &'static [ParamDoc] =
        &[ParamDoc { name: "squares", shape: "list of integers", doc: "the occupied squares: 1..=10 distinct squares, each below 40" }];
    const COST_MODEL: &'static str =
        "C(m+1, n) positions below the highest square m for the recursion × n·m options, plus matchings(n)·(n/2)!·n³";
    const SOURCES: &'static [&'static str] =
        &["games/welter.rs", "games/welter/matching.rs", "games/impartial.rs", "games/count.rs", "census/welter_matchings.rs"];

    fn validate(params: &PositionParams) -> Result<(), ParamError> {
        let sq = &params.squares;
        if sq.is_empty() || sq.len() > MAX_COINS as usize {
            return Err(ParamError::at(&["squares"], format!("{} squares given; 1..={MAX_COINS} allowed", sq.len())));
        }
        for (i, &s) in sq.iter().enumerate() {
            if s >= MAX_POSITION_SQUARE {
                return Err(ParamError::at(&["squares", &i.to_string()], format!("square {s} is not below {MAX_POSITION_SQUARE}")));
            }
            if sq[..i].contains(&s) {
                return Err(
                    ParamError::at(&["squares", &i.to_string()], format!("square {s} is repeated")).hint("two coins never share a square")
                );
            }
        }
        Ok(())
    }

    fn cost(params: &PositionParams) -> u64 {
        let n = params.squares.len() as u64;
        let m = params.squares.iter().copied().max().unwrap_or(0) as u64;
        binom(m + 1, n)
            .saturating_mul(n * (m + 1))
            .saturating_add(matching_count(n as u32).saturating_mul(factorial(n / 2)).saturating_mul(5 * n * n * n))
    }

    fn run(params: &PositionParams, ctx: &Ctx) -> Result<PositionResult, Cancelled> {
        ctx.checkpoint()?;
        let p = Position::from_squares(&params.squares);
        let value = Recursion::new().value(p);
        ctx.checkpoint()?;
        let (nodes, low) = trie(p);
        let masks = nodes.iter().filter(|nd| nd.is_odd()).fold(0u64, |acc, nd| acc ^ nd.mask());
        let all = all_matchings(p);
        let rule_out = |rule: Rule| {
            let outcomes = greedy_outcomes(p, rule);
            let rights = outcomes.iter().filter(|m| m.reading() == value).count();
            RuleOut {
                reads_value: Range { min: u64::from(rights == outcomes.len()), max: u64::from(rights > 0) },
                outcomes: outcomes.iter().map(|m| matching_out(m, value, &low)).collect(),
            }
        };
        Ok(PositionResult {
            squares: p.squares(),
            coins: p.coins(),
            value,
            closed_form: closed_form(p),
            value_by_trie_nodes: nim_sum(p) ^ masks,
            nim_sum: nim_sum(p),
            low_bits: matching_out(&low, value, &low),
            odd_nodes: nodes.iter().filter(|nd| nd.is_odd()).count() as u64,
            trie: nodes
                .iter()
                .map(|nd| NodeOut {
                    bit: nd.bit,
                    residue: nd.residue,
                    zeros: nd.zeros.clone(),
                    ones: nd.ones.clone(),
                    parting_pairs: nd.parting_pairs(),
                    odd: nd.is_odd(),
                    mask: nd.mask(),
                    pair: nd.pair.map(|(a, b)| [a, b]),
                })
                .collect(),
            matchings_reading_value: all.iter().filter(|m| m.reading() == value).count() as u64,
            matchings: all.iter().map(|m| matching_out(m, value, &low)).collect(),
            rules: RulesOut {
                neighbours: rule_out(Rule::Neighbours),
                outermost: rule_out(Rule::Outermost),
                closest: rule_out(Rule::Closest),
                high_bits: rule_out(Rule::HighBits),
                low_bits: rule_out(Rule::LowBits),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(u32, u32)]) -> MatchingsParams {
        MatchingsParams { coins: pairs.iter().copied().collect() }
    }

    #[test]
    fn small_census_is_consistent() {
        let p = params(&[(2, 8), (3, 8), (4, 9), (5, 8), (6, 8)]);
        WelterMatchings::validate(&p).unwrap();
        let r = WelterMatchings::run(&p, &Ctx::new()).unwrap();
        assert_eq!(r.positions, 28 + 56 + 126 + 56 + 28);
        assert_eq!(r.closed_form_agrees, r.positions);
        assert_eq!(r.trie_matching_reads_value, r.positions);
        assert_eq!(r.ties_checked_by_brute_force, r.positions);
        for (n, row) in &r.by_coins {
            assert_eq!(row.low_bit_rule_is_trie_matching, row.positions, "{n} coins");
        }
        for (n, row) in &r.rules.low_bits {
            assert_eq!(row.right_exact, Some(row.positions), "low bits at {n} coins");
        }
        for (n, row) in &r.rules.neighbours {
            assert_eq!(row.tied, 0, "neighbours at {n} coins");
        }
        assert_eq!(r.rules.outermost[&2].right_exact, Some(28));
        let four = r.four_coins.unwrap();
        assert_eq!(four.exactly_two_part_alike, 126);
        assert_eq!(four.odd_one_is_low_bits, 126);
        for (n, rep) in &r.replies {
            assert_eq!(rep.moves_with_winning_reply, rep.moves, "{n} coins");
            assert!(rep.answered_by_partner + rep.moved_coin_unpaired <= rep.moves);
        }
        for (n, u) in &r.uniqueness {
            assert_eq!(u.only_low_bits + u.others_too, u.positions, "{n} coins");
        }
    }

    #[test]
    fn limits_are_refused() {
        assert!(WelterMatchings::validate(&params(&[(11, 20)])).is_err());
        assert!(WelterMatchings::validate(&params(&[(4, 3)])).is_err());
        assert!(WelterMatchings::validate(&params(&[(4, 25)])).is_err());
        assert!(WelterMatchings::validate(&params(&[])).is_err());
        assert!(WelterMatchings::cost(&params(&[(10, 24)])) > 1_000_000_000_000);
        let bad = PositionParams { squares: vec![1, 1] };
        assert!(WelterPosition::validate(&bad).is_err());
        let bad = PositionParams { squares: vec![40] };
        assert!(WelterPosition::validate(&bad).is_err());
        assert!(WelterPosition::validate(&PositionParams { squares: vec![] }).is_err());
    }

    #[test]
    fn the_six_coin_example() {
        let r = WelterPosition::run(&PositionParams { squares: vec![11, 1, 2, 4, 7, 9] }, &Ctx::new()).unwrap();
        assert_eq!(r.value, 9);
        assert_eq!(r.closed_form, 9);
        assert_eq!(r.value_by_trie_nodes, 9);
        let an: Vec<u64> = r.low_bits.pairs.iter().map(|p| p.animating).collect();
        assert_eq!(an, vec![7, 5, 11]); // pairs 1–9, 2–4, 7–11
        assert_eq!(r.odd_nodes, 3);
        assert_eq!(r.matchings.len(), 15);
        assert_eq!(r.trie[0].parting_pairs, 8);
        assert!(r.trie[0].pair.is_none());
    }
}
