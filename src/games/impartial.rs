//! Impartial games in general: the minimum excludant, Grundy values by memoised recursion,
//! and outcomes under normal and misère play.
//!
//! Source: Sprague (1935), Grundy (1939); Berlekamp, Conway and Guy, *Winning Ways*, ch. 3;
//! misère outcomes as in Winning Ways ch. 13.

use std::collections::HashMap;
use std::hash::Hash;

/// The minimum excludant: the least non-negative integer not in `values`.
///
/// `values`: any order, duplicates allowed. O(n) time, O(n) space.
pub fn mex<I: IntoIterator<Item = u64>>(values: I) -> u64 {
    let values: Vec<u64> = values.into_iter().collect();
    let mut seen = vec![false; values.len() + 1];
    for v in values {
        if (v as usize) < seen.len() {
            seen[v as usize] = true;
        }
    }
    seen.iter().position(|s| !s).unwrap_or(seen.len()) as u64
}

/// Who wins from a position with the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// A P-position: the previous player (the one who just moved) wins.
    P,
    /// An N-position: the next player (the one to move) wins.
    N,
}

/// Grundy values of an impartial game under normal play, by memoised recursion.
///
/// `options(p)` lists the positions reachable in one move (duplicates allowed). The game
/// must be finite (every play ends). The memo keeps every position visited. Recursion is
/// done with an explicit stack, so deep games do not overflow the call stack.
pub struct Grundy<P, F> {
    options: F,
    memo: HashMap<P, u64>,
}

impl<P: Clone + Eq + Hash, F: FnMut(&P) -> Vec<P>> Grundy<P, F> {
    /// A solver with an empty memo.
    pub fn new(options: F) -> Self {
        Grundy { options, memo: HashMap::new() }
    }

    /// The Grundy value of `position`: the mex of its options' values (0 for a terminal
    /// position).
    pub fn value(&mut self, position: &P) -> u64 {
        evaluate(&mut self.options, &mut self.memo, position, |vals| mex(vals.iter().copied()))
    }

    /// Number of positions whose value is memoised.
    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }
}

/// Outcome of `position` under normal play (no move: the player to move loses) or misère
/// play (no move: the player to move wins), by memoised recursion.
///
/// `options(p)` lists the positions reachable in one move. Explicit stack, no recursion.
pub struct Outcomes<P, F> {
    options: F,
    misere: bool,
    memo: HashMap<P, Outcome>,
}

impl<P: Clone + Eq + Hash, F: FnMut(&P) -> Vec<P>> Outcomes<P, F> {
    /// A normal-play solver.
    pub fn normal(options: F) -> Self {
        Outcomes { options, misere: false, memo: HashMap::new() }
    }

    /// A misère-play solver.
    pub fn misere(options: F) -> Self {
        Outcomes { options, misere: true, memo: HashMap::new() }
    }

    /// The outcome of `position` with the player to move.
    pub fn outcome(&mut self, position: &P) -> Outcome {
        let misere = self.misere;
        evaluate(&mut self.options, &mut self.memo, position, |vals| {
            if vals.is_empty() {
                // No move: the player to move loses under normal play, wins under misère.
                if misere {
                    Outcome::N
                } else {
                    Outcome::P
                }
            } else if vals.contains(&Outcome::P) {
                Outcome::N
            } else {
                Outcome::P
            }
        })
    }
}

/// Post-order evaluation shared by [`Grundy`] and [`Outcomes`]: the value of `position`
/// is `combine` of its options' values, each memoised in `memo`. An explicit stack
/// replaces recursion, so deep games do not overflow the call stack.
fn evaluate<P, V, F, C>(options: &mut F, memo: &mut HashMap<P, V>, position: &P, combine: C) -> V
where
    P: Clone + Eq + Hash,
    V: Copy,
    F: FnMut(&P) -> Vec<P>,
    C: Fn(&[V]) -> V,
{
    if let Some(&v) = memo.get(position) {
        return v;
    }
    let mut stack: Vec<(P, Vec<P>, usize)> = vec![(position.clone(), options(position), 0)];
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let child = top.1[top.2].clone();
            top.2 += 1;
            if !memo.contains_key(&child) {
                let opts = options(&child);
                stack.push((child, opts, 0));
            }
        } else {
            let (p, opts, _) = stack.pop().expect("non-empty stack");
            let vals: Vec<V> = opts.iter().map(|o| memo[o]).collect();
            memo.insert(p, combine(&vals));
        }
    }
    memo[position]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mex_of_small_sets() {
        assert_eq!(mex([]), 0);
        assert_eq!(mex([1, 2]), 0);
        assert_eq!(mex([0, 1, 3]), 2);
        assert_eq!(mex([0, 0, 1, 1, 2]), 3);
    }

    #[test]
    fn one_heap_nim_has_grundy_value_its_size() {
        let mut g = Grundy::new(|&n: &u64| (0..n).collect::<Vec<_>>());
        for n in 0..40 {
            assert_eq!(g.value(&n), n);
        }
    }

    #[test]
    fn misere_one_heap_nim() {
        // Misère single heap: n = 1 is lost for the mover (must take the last counter).
        let mut o = Outcomes::misere(|&n: &u64| (0..n).collect::<Vec<_>>());
        assert_eq!(o.outcome(&0), Outcome::N);
        assert_eq!(o.outcome(&1), Outcome::P);
        for n in 2..20 {
            assert_eq!(o.outcome(&n), Outcome::N);
        }
        let mut n = Outcomes::normal(|&n: &u64| (0..n).collect::<Vec<_>>());
        assert_eq!(n.outcome(&0), Outcome::P);
        assert_eq!(n.outcome(&5), Outcome::N);
    }
}
