//! Welter's game: coins on a strip of squares numbered from 0; a move slides one coin to
//! any lower empty square (jumping is allowed; two coins never share a square).
//! Equivalently Nim in which no two heaps may be equal.
//!
//! A position is a set of distinct squares, held as a bit set ([`Position`]); squares are
//! below 64. Sources: Welter, "The theory of a class of games on a sequence of squares, in
//! terms of the advancing operation in a special group" (1954); Conway, *On Numbers and
//! Games*, ch. 13 (the animating function and mates).

pub mod matching;

use crate::impartial::{mex, Grundy};
use std::collections::HashMap;

/// Largest number of squares a strip may have (squares `0..MAX_SQUARES`).
pub const MAX_SQUARES: u32 = 64;

/// A Welter position: bit `s` set when square `s` holds a coin. Squares `0..64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position(pub u64);

impl Position {
    /// The position with coins on `squares` (any order). Panics in debug builds on a
    /// square ≥ 64; a repeated square is one coin.
    pub fn from_squares(squares: &[u32]) -> Position {
        Position(squares.iter().fold(0u64, |m, &s| m | (1u64 << s)))
    }

    /// The occupied squares in increasing order.
    pub fn squares(self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.0.count_ones() as usize);
        let mut m = self.0;
        while m != 0 {
            let s = m.trailing_zeros();
            out.push(s);
            m &= m - 1;
        }
        out
    }

    /// Number of coins.
    pub fn coins(self) -> u32 {
        self.0.count_ones()
    }

    /// Every position reachable in one move, in increasing order of (coin moved, target).
    /// A position with `n` coins packed against the wall (`0..n`) has none.
    pub fn options(self) -> Vec<Position> {
        let mut out = Vec::new();
        for s in self.squares() {
            for t in 0..s {
                if self.0 & (1u64 << t) == 0 {
                    out.push(Position(self.0 & !(1u64 << s) | (1u64 << t)));
                }
            }
        }
        out
    }
}

/// Conway's animating function ⟨a|b⟩ = (a ⊕ b) − 1 for distinct squares `a ≠ b`: the
/// Grundy value of the two-coin position {a, b}. Source: On Numbers and Games, ch. 13.
pub fn animating(a: u32, b: u32) -> u64 {
    debug_assert_ne!(a, b, "the animating function needs distinct squares");
    ((a ^ b) as u64).wrapping_sub(1)
}

/// The mate of square `s`: the square reached by flipping its bottom bit ({2k, 2k+1}).
pub fn mate(s: u32) -> u32 {
    s ^ 1
}

/// Grundy value of a position by Conway's closed form: the nim-sum over all pairs of
/// coins of ⟨a|b⟩, nim-added to the nim-sum of all squares when the number of coins is
/// odd. O(n²) for `n` coins. Source: Welter (1954); On Numbers and Games, ch. 13.
pub fn closed_form(p: Position) -> u64 {
    let sq = p.squares();
    let mut v = 0u64;
    for i in 0..sq.len() {
        for j in i + 1..sq.len() {
            v ^= animating(sq[i], sq[j]);
        }
    }
    if sq.len() % 2 == 1 {
        v ^= sq.iter().fold(0u64, |acc, &s| acc ^ s as u64);
    }
    v
}

/// The plain nim-sum of the squares: what the value would be if the coins were
/// independent Nim heaps.
pub fn nim_sum(p: Position) -> u64 {
    p.squares().iter().fold(0u64, |acc, &s| acc ^ s as u64)
}

/// True when the occupied squares are a union of complete mate-pairs {2k, 2k+1}.
pub fn is_union_of_mate_pairs(p: Position) -> bool {
    let even = p.0 & 0x5555_5555_5555_5555;
    let odd = (p.0 >> 1) & 0x5555_5555_5555_5555;
    even == odd
}

/// True when some coin's mate square also holds a coin.
pub fn has_mated_pair(p: Position) -> bool {
    let even = p.0 & 0x5555_5555_5555_5555;
    let odd = (p.0 >> 1) & 0x5555_5555_5555_5555;
    even & odd != 0
}

/// Grundy values by the plain recursion: the mex of the options' values, never using the
/// closed form. Memoised across calls; memory grows with the positions visited.
pub struct Recursion {
    solver: Grundy<Position, fn(&Position) -> Vec<Position>>,
}

impl Default for Recursion {
    fn default() -> Self {
        Recursion::new()
    }
}

impl Recursion {
    /// An empty memo.
    pub fn new() -> Recursion {
        let options: fn(&Position) -> Vec<Position> = |q| q.options();
        Recursion { solver: Grundy::new(options) }
    }

    /// Grundy value of `p`, memoised.
    pub fn value(&mut self, p: Position) -> u64 {
        self.solver.value(&p)
    }
}

/// Grundy values of every position with `coins` coins on squares below `squares`,
/// computed by the plain recursion in increasing order of the bit set (every option of a
/// position is a smaller bit set, so each value is a mex over values already known).
///
/// Returns `(position, value)` in increasing bit-set order. Cost: the number of positions,
/// C(squares, coins), times the options per position (at most coins × squares).
pub fn values_by_recursion(coins: u32, squares: u32) -> Vec<(Position, u64)> {
    let positions = positions(coins, squares);
    let mut value: HashMap<u64, u64> = HashMap::with_capacity(positions.len());
    let mut out = Vec::with_capacity(positions.len());
    for p in positions {
        let v = mex(p.options().iter().map(|o| value[&o.0]));
        value.insert(p.0, v);
        out.push((p, v));
    }
    out
}

/// Every position with exactly `coins` coins on squares `0..squares`, in increasing order
/// of the bit set. Empty when `coins > squares`. C(squares, coins) positions.
pub fn positions(coins: u32, squares: u32) -> Vec<Position> {
    let mut out = Vec::new();
    if coins > squares || squares > MAX_SQUARES {
        return out;
    }
    if coins == 0 {
        out.push(Position(0));
        return out;
    }
    // Gosper's hack over bit sets of popcount `coins`, below 2^squares.
    let mut m: u64 = if coins >= 64 { u64::MAX } else { (1u64 << coins) - 1 };
    loop {
        if squares < 64 && m >> squares != 0 {
            break;
        }
        out.push(Position(m));
        let c = m & m.wrapping_neg();
        let r = m.wrapping_add(c);
        if r == 0 {
            break;
        }
        m = (((r ^ m) >> 2) / c) | r;
    }
    out
}

/// The nim-sum over all pairs of coins of ⟨a|b⟩, without the parity term of
/// [`closed_form`]: the natural guess that "a function of pairs composes". Equal to the
/// Grundy value when the number of coins is even; off by the nim-sum of the squares when
/// it is odd (0 for a single coin, whose value is its square). O(n²) for `n` coins.
/// Source: On Numbers and Games, ch. 13.
pub fn pairwise_sum(p: Position) -> u64 {
    let sq = p.squares();
    let mut v = 0u64;
    for (i, &a) in sq.iter().enumerate() {
        for &b in &sq[i + 1..] {
            v ^= animating(a, b);
        }
    }
    v
}

/// The mirror reply to a move that broke a union of mate-pairs.
///
/// `before` must be a union of complete mate-pairs ([`is_union_of_mate_pairs`]) and
/// `after` one of its options (a coin moved from `s` down to an empty `t`). The mirror
/// reply moves the coin on `mate(s)` to `mate(t)`. Returns the position it leads to when
/// that move is legal (the coin is there, `mate(t)` is empty and below `mate(s)`) and lands
/// in a union of complete mate-pairs; `None` otherwise, and `None` when `after` is not a
/// single move from `before`. O(1). Source: On Numbers and Games, ch. 13 (mates).
pub fn mirror_reply(before: Position, after: Position) -> Option<Position> {
    let left = before.0 & !after.0;
    let arrived = after.0 & !before.0;
    if left.count_ones() != 1 || arrived.count_ones() != 1 || arrived > left {
        return None;
    }
    let (s, t) = (left.trailing_zeros(), arrived.trailing_zeros());
    let (from, to) = (mate(s), mate(t));
    let occupied = |q: u32| after.0 & (1u64 << q) != 0;
    if to >= from || !occupied(from) || occupied(to) {
        return None;
    }
    let reply = Position(after.0 & !(1u64 << from) | (1u64 << to));
    is_union_of_mate_pairs(reply).then_some(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binom(n: u64, k: u64) -> u64 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    #[test]
    fn positions_are_counted_by_binomials() {
        for squares in 0..=12 {
            for coins in 0..=squares {
                assert_eq!(positions(coins, squares).len() as u64, binom(squares as u64, coins as u64));
            }
        }
    }

    #[test]
    fn closed_form_matches_recursion_on_small_census() {
        for (coins, squares) in [(1, 12), (2, 11), (3, 10), (4, 9), (5, 9), (6, 9)] {
            for (p, v) in values_by_recursion(coins, squares) {
                assert_eq!(closed_form(p), v, "first difference at {:?}", p.squares());
            }
        }
    }

    #[test]
    fn the_memoised_solver_agrees_with_the_ordered_sweep() {
        let mut r = Recursion::new();
        for (p, v) in values_by_recursion(3, 8) {
            assert_eq!(r.value(p), v);
        }
    }

    #[test]
    fn mate_pairs() {
        assert!(is_union_of_mate_pairs(Position::from_squares(&[0, 1, 4, 5])));
        assert!(!is_union_of_mate_pairs(Position::from_squares(&[1, 2])));
        assert!(!has_mated_pair(Position::from_squares(&[0, 2, 4, 6])));
        assert_eq!(closed_form(Position::from_squares(&[0, 2, 4, 6])), 0);
        assert_eq!(mate(6), 7);
        assert_eq!(animating(0, 4), 3);
    }
}
