//! Impartial games in general: the minimum excludant and Grundy values by memoised
//! recursion.
//!
//! Source: Sprague (1935), Grundy (1939); Berlekamp, Conway and Guy, *Winning Ways*, ch. 3.

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

/// Post-order evaluation for [`Grundy`]: the value of `position`
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
}
