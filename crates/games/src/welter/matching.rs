//! Matchings of a Welter position: ways of pairing the coins off (one coin left over when
//! the number of coins is odd), the value a matching reads, five greedy rules for choosing
//! one, and the low-bit (2-adic) trie whose odd nodes pick out the matching that always
//! reads the Grundy value.
//!
//! The value a matching *reads* is the nim-sum of Conway's animating values ⟨a|b⟩ over its
//! pairs, nim-added to the square of the left-over coin when there is one. Because
//! ⟨a|b⟩ = (a ⊕ b) − 1 = (a ⊕ b) ⊕ (2^(v+1) − 1), where `v` is the lowest bit in which
//! `a` and `b` differ (their *parting bit*), a matching's reading is the nim-sum of all
//! squares nim-added to one mask per pair, and the mask depends only on the parting bit.
//! Conway's closed form is likewise the nim-sum of the squares nim-added to one mask for
//! every node of the low-bit trie with an odd number of coins on both sides
//! ([`value_by_trie_nodes`]); the low-bit matching has exactly one pair at each such node
//! and none elsewhere, which is why it reads the value.
//!
//! Sources: Welter (1954); Conway, *On Numbers and Games*, ch. 13 (animating function);
//! the 2-adic valuation as in any text on p-adic numbers (Gouvêa, *p-adic Numbers*, ch. 2).
//!
//! Every function takes a [`Position`] (squares below 64). Matchings are small values:
//! at most 32 pairs. Enumerating all matchings costs (n − 1)!! for even `n` coins and
//! n·(n − 2)!! for odd `n`, so callers should keep `n` small (≤ 10 gives ≤ 945).

use super::{animating, Position};
use std::collections::{BTreeSet, HashMap};

/// A matching of a position's coins: disjoint pairs `(a, b)` with `a < b`, sorted, and
/// the left-over coin when the number of coins is odd.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Matching {
    /// The pairs, each `(low square, high square)`, in increasing order.
    pub pairs: Vec<(u32, u32)>,
    /// The coin left unpaired (odd number of coins only).
    pub leftover: Option<u32>,
}

impl Matching {
    /// A matching from pairs in any order and orientation (normalised) and a left-over.
    pub fn new(pairs: &[(u32, u32)], leftover: Option<u32>) -> Matching {
        let mut pairs: Vec<(u32, u32)> = pairs.iter().map(|&(a, b)| if a < b { (a, b) } else { (b, a) }).collect();
        pairs.sort_unstable();
        Matching { pairs, leftover }
    }

    /// The value the matching reads: the nim-sum of ⟨a|b⟩ over its pairs, nim-added to the
    /// left-over coin's square. O(pairs).
    pub fn reading(&self) -> u64 {
        let v = self.pairs.iter().fold(0u64, |acc, &(a, b)| acc ^ animating(a, b));
        v ^ self.leftover.map_or(0, u64::from)
    }

    /// The parting bit of each pair (see [`parting_bit`]), sorted increasingly: the
    /// multiset that decides the reading, given the squares.
    pub fn parting_bits(&self) -> Vec<u32> {
        let mut bits: Vec<u32> = self.pairs.iter().map(|&(a, b)| parting_bit(a, b)).collect();
        bits.sort_unstable();
        bits
    }

    /// The square paired with `square`, or `None` when `square` is the left-over coin or
    /// not a coin of this matching.
    pub fn partner(&self, square: u32) -> Option<u32> {
        self.pairs.iter().find_map(|&(a, b)| {
            if a == square {
                Some(b)
            } else if b == square {
                Some(a)
            } else {
                None
            }
        })
    }

    /// True when `(a, b)` (either order) is one of the pairs.
    pub fn contains_pair(&self, a: u32, b: u32) -> bool {
        let p = if a < b { (a, b) } else { (b, a) };
        self.pairs.contains(&p)
    }
}

/// The lowest bit in which distinct squares `a` and `b` differ: the number of trailing
/// bits they share, i.e. the 2-adic valuation of `a − b`. 32 when `a == b` (not a pair).
pub fn parting_bit(a: u32, b: u32) -> u32 {
    (a ^ b).trailing_zeros()
}

/// Every matching of `p`'s coins: all perfect matchings when the number of coins `n` is
/// even, and for odd `n` every choice of left-over coin with every perfect matching of the
/// rest. (n − 1)!! matchings for even `n`, n·(n − 2)!! for odd (1 for a single coin, one
/// empty matching for no coins). Sorted, without repeats.
pub fn all_matchings(p: Position) -> Vec<Matching> {
    let sq = p.squares();
    let mut out = Vec::new();
    if sq.len() % 2 == 1 {
        for (i, &left) in sq.iter().enumerate() {
            let rest: Vec<u32> = sq.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &s)| s).collect();
            perfect(&rest, &mut Vec::new(), &mut |pairs| out.push(Matching::new(pairs, Some(left))));
        }
    } else {
        perfect(&sq, &mut Vec::new(), &mut |pairs| out.push(Matching::new(pairs, None)));
    }
    out.sort();
    out.dedup();
    out
}

/// A callback given each perfect matching as a list of pairs.
type EmitMatching<'a> = dyn FnMut(&[(u32, u32)]) + 'a;

/// Calls `emit` with every perfect matching of `rest` (even length), extending `acc`.
fn perfect(rest: &[u32], acc: &mut Vec<(u32, u32)>, emit: &mut EmitMatching<'_>) {
    if rest.is_empty() {
        emit(acc);
        return;
    }
    let first = rest[0];
    for j in 1..rest.len() {
        let others: Vec<u32> = rest[1..].iter().enumerate().filter(|&(k, _)| k + 1 != j).map(|(_, &s)| s).collect();
        acc.push((first, rest[j]));
        perfect(&others, acc, emit);
        acc.pop();
    }
}

/// The number of matchings [`all_matchings`] returns for `n` coins: (n − 1)!! for even
/// `n`, n·(n − 2)!! for odd `n`. Saturates at `u64::MAX`.
pub fn matching_count(n: u32) -> u64 {
    let mut c: u64 = 1;
    let mut k = if n.is_multiple_of(2) { n.saturating_sub(1) } else { n };
    while k > 1 {
        c = c.saturating_mul(k as u64);
        k -= 2;
    }
    c
}

/// Five greedy rules for choosing a matching. Each repeatedly pairs the two remaining
/// coins whose [`Rule::key`] is smallest, until fewer than two coins remain (the last one,
/// for an odd count, is left over).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// Pair the two lowest coins, then the next two, and so on (key: the higher square of
    /// the pair, so the two lowest remaining coins win). Left over: the highest coin.
    Neighbours,
    /// Pair the lowest coin with the highest and work inwards (key: minus the difference,
    /// so the widest remaining pair wins). Left over: the middle coin.
    Outermost,
    /// Pair the two coins whose squares differ least (key: the difference). Ties between
    /// pairs sharing a coin change the matching.
    Closest,
    /// Pair the two coins agreeing in the most leading bits (key: a ⊕ b). Tied pairs are
    /// always disjoint (a ⊕ b = a ⊕ c forces b = c), so ties never change the matching.
    HighBits,
    /// Pair the two coins agreeing in the most trailing bits (key: minus the parting bit).
    /// The result is the trie matching ([`trie_matching`]) whatever the tie-breaking.
    LowBits,
}

impl Rule {
    /// The five rules, in the order the essays list them.
    pub const ALL: [Rule; 5] = [Rule::Neighbours, Rule::Outermost, Rule::Closest, Rule::HighBits, Rule::LowBits];

    /// A short identifier: `neighbours`, `outermost`, `closest`, `high_bits`, `low_bits`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Neighbours => "neighbours",
            Rule::Outermost => "outermost",
            Rule::Closest => "closest",
            Rule::HighBits => "high_bits",
            Rule::LowBits => "low_bits",
        }
    }

    /// The rule's preference for pairing distinct squares `a` and `b`: smaller is
    /// preferred. Squares below 64.
    pub fn key(self, a: u32, b: u32) -> u64 {
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        match self {
            Rule::Neighbours => hi as u64,
            Rule::Outermost => 64 - (hi - lo) as u64,
            Rule::Closest => (hi - lo) as u64,
            Rule::HighBits => (lo ^ hi) as u64,
            Rule::LowBits => 64 - parting_bit(lo, hi) as u64,
        }
    }
}

/// The pairs of `coins` (a bit set) with the smallest key under `rule`, in increasing
/// order. Empty when fewer than two coins.
fn best_pairs(coins: u64, rule: Rule) -> Vec<(u32, u32)> {
    let sq = Position(coins).squares();
    let mut best = u64::MAX;
    let mut out = Vec::new();
    for i in 0..sq.len() {
        for j in i + 1..sq.len() {
            let k = rule.key(sq[i], sq[j]);
            if k < best {
                best = k;
                out.clear();
            }
            if k == best {
                out.push((sq[i], sq[j]));
            }
        }
    }
    out
}

/// The matching `rule` builds on `p`, breaking every tie by the lowest pair (smallest
/// lower square, then smallest higher square). O(n³) for `n` coins.
pub fn greedy(p: Position, rule: Rule) -> Matching {
    let mut coins = p.0;
    let mut pairs = Vec::new();
    while coins.count_ones() >= 2 {
        let (a, b) = best_pairs(coins, rule)[0];
        pairs.push((a, b));
        coins &= !(1u64 << a) & !(1u64 << b);
    }
    let leftover = (coins != 0).then(|| coins.trailing_zeros());
    Matching::new(&pairs, leftover)
}

/// Every matching `rule` can build on `p` under some way of breaking its ties: the greedy
/// step branches on every pair of smallest key. Sorted, without repeats. Memoised on the
/// set of remaining coins; at most 2^n sets for `n` coins, in practice far fewer.
pub fn greedy_outcomes(p: Position, rule: Rule) -> Vec<Matching> {
    fn go(coins: u64, rule: Rule, memo: &mut HashMap<u64, Vec<Matching>>) -> Vec<Matching> {
        if let Some(m) = memo.get(&coins) {
            return m.clone();
        }
        let out = if coins.count_ones() < 2 {
            let leftover = (coins != 0).then(|| coins.trailing_zeros());
            vec![Matching { pairs: Vec::new(), leftover }]
        } else {
            let mut set = BTreeSet::new();
            for (a, b) in best_pairs(coins, rule) {
                let rest = coins & !(1u64 << a) & !(1u64 << b);
                for m in go(rest, rule, memo) {
                    let mut pairs = m.pairs.clone();
                    pairs.push((a, b));
                    set.insert(Matching::new(&pairs, m.leftover));
                }
            }
            set.into_iter().collect()
        };
        memo.insert(coins, out.clone());
        out
    }
    go(p.0, rule, &mut HashMap::new())
}

/// The same set as [`greedy_outcomes`], by brute force and without the greedy step: every
/// matching of `p` ([`all_matchings`]) is kept when some order of its pairs has each pair,
/// at its turn, of smallest key among all pairs of the coins not yet paired. Cost: the
/// number of matchings times (n/2)! orders times n² per check; for tests on small
/// positions.
pub fn greedy_outcomes_brute_force(p: Position, rule: Rule) -> Vec<Matching> {
    fn permutations(k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for perm in permutations(k - 1) {
            for pos in 0..=perm.len() {
                let mut q = perm.clone();
                q.insert(pos, k - 1);
                out.push(q);
            }
        }
        out
    }
    let sq = p.squares();
    let mut out = Vec::new();
    for m in all_matchings(p) {
        let consistent = permutations(m.pairs.len()).into_iter().any(|order| {
            let mut remaining: Vec<u32> = sq.clone();
            order.iter().all(|&i| {
                let (a, b) = m.pairs[i];
                let mine = rule.key(a, b);
                let mut ok = true;
                for x in 0..remaining.len() {
                    for y in x + 1..remaining.len() {
                        if rule.key(remaining[x], remaining[y]) < mine {
                            ok = false;
                        }
                    }
                }
                remaining.retain(|&s| s != a && s != b);
                ok
            })
        });
        if consistent {
            out.push(m);
        }
    }
    out
}

/// A node of the low-bit (2-adic) trie of a position at which coins part: the coins
/// congruent to `residue` modulo 2^`bit`, split by bit `bit` into those with a 0 there
/// (`zeros`) and those with a 1 (`ones`), both non-empty. Every pair of coins parts at
/// exactly one node: the one at their parting bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrieNode {
    /// The bit read at this node (0 for the root).
    pub bit: u32,
    /// The trailing `bit` bits shared by every coin below the node.
    pub residue: u64,
    /// Coins below the node with bit `bit` clear, increasing.
    pub zeros: Vec<u32>,
    /// Coins below the node with bit `bit` set, increasing.
    pub ones: Vec<u32>,
    /// The pair the trie matching makes at this node: present exactly when both sides have
    /// an odd number of coins.
    pub pair: Option<(u32, u32)>,
}

impl TrieNode {
    /// True when both sides hold an odd number of coins.
    pub fn is_odd(&self) -> bool {
        self.zeros.len() % 2 == 1 && self.ones.len() % 2 == 1
    }

    /// The number of pairs of coins that part here: |zeros| · |ones|.
    pub fn parting_pairs(&self) -> u64 {
        (self.zeros.len() * self.ones.len()) as u64
    }

    /// The mask 2^(bit+1) − 1 that each pair parting here adds to its animating value.
    pub fn mask(&self) -> u64 {
        (1u64 << (self.bit + 1)) - 1
    }
}

/// The low-bit trie of `p` and its matching: the nodes at which coins part, ordered by
/// bit and then residue, each with the pair the bottom-up matching makes there; and the
/// matching itself. The matching is built from the leaves up: each side of a node passes
/// up its one unpaired coin when it holds an odd number, and two coins passed up from the
/// two sides are paired at the node. O(n · 64) for `n` coins.
pub fn trie(p: Position) -> (Vec<TrieNode>, Matching) {
    fn go(coins: &[u32], bit: u32, residue: u64, nodes: &mut Vec<TrieNode>, pairs: &mut Vec<(u32, u32)>) -> Option<u32> {
        if coins.len() <= 1 || bit >= 64 {
            return coins.first().copied();
        }
        let (zeros, ones): (Vec<u32>, Vec<u32>) = coins.iter().partition(|&&s| (s >> bit) & 1 == 0);
        if zeros.is_empty() || ones.is_empty() {
            let r = if zeros.is_empty() { residue | (1u64 << bit) } else { residue };
            return go(coins, bit + 1, r, nodes, pairs);
        }
        let index = nodes.len();
        nodes.push(TrieNode { bit, residue, zeros: zeros.clone(), ones: ones.clone(), pair: None });
        let up0 = go(&zeros, bit + 1, residue, nodes, pairs);
        let up1 = go(&ones, bit + 1, residue | (1u64 << bit), nodes, pairs);
        match (up0, up1) {
            (Some(a), Some(b)) => {
                pairs.push((a, b));
                nodes[index].pair = Some((a.min(b), a.max(b)));
                None
            }
            (a, b) => a.or(b),
        }
    }
    let sq = p.squares();
    let mut nodes = Vec::new();
    let mut pairs = Vec::new();
    let leftover = go(&sq, 0, 0, &mut nodes, &mut pairs);
    nodes.sort_by_key(|n| (n.bit, n.residue));
    (nodes, Matching::new(&pairs, leftover))
}

/// The low-bit matching of `p`, read from its trie (see [`trie`]).
pub fn trie_matching(p: Position) -> Matching {
    trie(p).1
}

/// The Grundy value of `p` read from its trie alone: the nim-sum of all squares,
/// nim-added to the mask 2^(bit+1) − 1 of every node with an odd number of coins on both
/// sides. Equal to Conway's closed form because each of the |zeros|·|ones| pairs parting
/// at a node contributes that node's mask once, and masks cancel in pairs.
pub fn value_by_trie_nodes(p: Position) -> u64 {
    let (nodes, _) = trie(p);
    let masks = nodes.iter().filter(|n| n.is_odd()).fold(0u64, |acc, n| acc ^ n.mask());
    super::nim_sum(p) ^ masks
}

#[cfg(test)]
mod tests {
    use super::super::{closed_form, values_by_recursion};
    use super::*;

    /// A small census: every position of 1..=8 coins on squares below 9 or 10.
    fn small() -> Vec<(Position, u64)> {
        let mut out = Vec::new();
        for (coins, squares) in [(1, 12), (2, 12), (3, 10), (4, 10), (5, 9), (6, 9), (7, 9), (8, 9)] {
            out.extend(values_by_recursion(coins, squares));
        }
        out
    }

    #[test]
    fn matching_counts_are_double_factorials() {
        for n in 0..=8u32 {
            let p = Position((1u64 << n) - 1);
            assert_eq!(all_matchings(p).len() as u64, matching_count(n), "{n} coins");
        }
        assert_eq!(matching_count(6), 15);
        assert_eq!(matching_count(8), 105);
        assert_eq!(matching_count(5), 15);
    }

    #[test]
    fn trie_matching_reads_the_recursions_value_and_the_closed_form_everywhere() {
        for (p, v) in small() {
            let m = trie_matching(p);
            assert_eq!(m.reading(), v, "trie matching vs recursion, first difference at {:?}", p.squares());
            assert_eq!(m.reading(), closed_form(p), "trie matching vs closed form at {:?}", p.squares());
            assert_eq!(value_by_trie_nodes(p), v, "trie nodes vs recursion at {:?}", p.squares());
        }
    }

    #[test]
    fn some_matching_reads_the_value_and_the_low_bit_rule_always_does() {
        for (p, v) in small() {
            if p.coins() < 2 {
                continue;
            }
            assert!(all_matchings(p).iter().any(|m| m.reading() == v), "no matching reads {v} at {:?}", p.squares());
            for m in greedy_outcomes(p, Rule::LowBits) {
                assert_eq!(m.reading(), v, "low-bit rule misreads {:?}", p.squares());
            }
        }
    }

    #[test]
    fn low_bit_greedy_is_the_trie_matching_whatever_the_ties() {
        for (p, _) in small() {
            assert_eq!(greedy_outcomes(p, Rule::LowBits), vec![trie_matching(p)], "at {:?}", p.squares());
        }
    }

    #[test]
    fn trie_pairs_sit_exactly_at_odd_nodes() {
        for (p, _) in small() {
            let (nodes, m) = trie(p);
            let odd = nodes.iter().filter(|n| n.is_odd()).count();
            assert_eq!(odd, m.pairs.len(), "at {:?}", p.squares());
            for n in &nodes {
                assert_eq!(n.pair.is_some(), n.is_odd(), "node at bit {} of {:?}", n.bit, p.squares());
                if let Some((a, b)) = n.pair {
                    assert_eq!(parting_bit(a, b), n.bit);
                }
            }
            // every pair of coins parts at exactly one node
            let total: u64 = nodes.iter().map(|n| n.parting_pairs()).sum();
            let c = p.coins() as u64;
            assert_eq!(total, c * c.saturating_sub(1) / 2);
        }
    }

    #[test]
    fn branching_on_ties_agrees_with_brute_force() {
        for (coins, squares) in [(2, 8), (3, 8), (4, 8), (5, 8), (6, 8), (7, 9)] {
            for p in super::super::positions(coins, squares) {
                for rule in Rule::ALL {
                    assert_eq!(greedy_outcomes(p, rule), greedy_outcomes_brute_force(p, rule), "{} at {:?}", rule.name(), p.squares());
                }
            }
        }
    }

    #[test]
    fn the_deterministic_greedy_is_one_of_the_outcomes() {
        for (p, _) in small() {
            for rule in Rule::ALL {
                assert!(greedy_outcomes(p, rule).contains(&greedy(p, rule)), "{} at {:?}", rule.name(), p.squares());
            }
        }
    }

    #[test]
    fn only_closest_numbers_has_ties_that_matter() {
        let mut closest_ties = 0;
        for (p, _) in small() {
            for rule in Rule::ALL {
                let n = greedy_outcomes(p, rule).len();
                if rule == Rule::Closest {
                    closest_ties += usize::from(n > 1);
                } else {
                    assert_eq!(n, 1, "{} at {:?}", rule.name(), p.squares());
                }
            }
        }
        assert!(closest_ties > 0);
        let p = Position::from_squares(&[1, 2, 3, 10]);
        assert_eq!(greedy_outcomes(p, Rule::Closest).len(), 2);
    }

    #[test]
    fn the_rules_on_a_strip() {
        let p = Position::from_squares(&[0, 1, 2, 3, 4]);
        assert_eq!(greedy(p, Rule::Neighbours), Matching::new(&[(0, 1), (2, 3)], Some(4)));
        assert_eq!(greedy(p, Rule::Outermost), Matching::new(&[(0, 4), (1, 3)], Some(2)));
        let q = Position::from_squares(&[0, 1, 2, 3]);
        assert_eq!(trie_matching(q), Matching::new(&[(0, 2), (1, 3)], None));
        assert_eq!(trie_matching(q).reading(), 0);
    }

    #[test]
    fn the_worked_examples() {
        let p = Position::from_squares(&[1, 2, 4, 7, 9, 11]);
        let m = trie_matching(p);
        assert_eq!(m, Matching::new(&[(1, 9), (7, 11), (2, 4)], None));
        assert_eq!(m.reading(), 9);
        let q = Position::from_squares(&[3, 5, 6, 9, 12]);
        let m = trie_matching(q);
        assert_eq!(m, Matching::new(&[(5, 9), (6, 12)], Some(3)));
        assert_eq!(m.reading(), 1);
        let r = Position::from_squares(&[0, 2, 4, 6]);
        assert_eq!(trie_matching(r), Matching::new(&[(0, 4), (2, 6)], None));
        let odd: Vec<u32> = trie(r).0.iter().filter(|n| n.is_odd()).map(|n| n.bit).collect();
        assert_eq!(odd, vec![2, 2]);
    }

    #[test]
    fn four_coins_two_of_three_matchings_part_alike_and_the_third_is_the_trie_matching() {
        for p in super::super::positions(4, 10) {
            let ms = all_matchings(p);
            assert_eq!(ms.len(), 3);
            let bits: Vec<Vec<u32>> = ms.iter().map(|m| m.parting_bits()).collect();
            let odd: Vec<usize> = (0..3).filter(|&i| bits[(i + 1) % 3] == bits[(i + 2) % 3] && bits[i] != bits[(i + 1) % 3]).collect();
            assert_eq!(odd.len(), 1, "at {:?}", p.squares());
            assert_eq!(ms[odd[0]], trie_matching(p), "at {:?}", p.squares());
            assert_eq!(ms[odd[0]].reading(), closed_form(p));
        }
    }

    #[test]
    fn readings_differ_only_through_parting_bits() {
        for p in super::super::positions(6, 9) {
            let ms = all_matchings(p);
            for x in &ms {
                for y in &ms {
                    if x.parting_bits() == y.parting_bits() {
                        assert_eq!(x.reading(), y.reading(), "at {:?}", p.squares());
                    }
                }
            }
        }
    }
}
