//! Nim: heaps of counters; a move takes any positive number from one heap.
//!
//! Source: Bouton, "Nim, a game with a complete mathematical theory" (1901/02).

/// The nim-sum (bitwise exclusive-or) of `heaps`. 0 for no heaps.
pub fn nim_sum<I: IntoIterator<Item = u64>>(heaps: I) -> u64 {
    heaps.into_iter().fold(0, |acc, h| acc ^ h)
}

/// True when the Nim position `heaps` is a P-position under normal play (Bouton: the
/// nim-sum is zero).
pub fn is_p_position(heaps: &[u64]) -> bool {
    nim_sum(heaps.iter().copied()) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impartial::Grundy;

    #[test]
    fn nim_sum_is_the_grundy_value_of_small_positions() {
        // Plain recursion over sorted heap triples up to 7.
        let mut g = Grundy::new(|h: &Vec<u64>| {
            let mut out = Vec::new();
            for i in 0..h.len() {
                for v in 0..h[i] {
                    let mut o = h.clone();
                    o[i] = v;
                    out.push(o);
                }
            }
            out
        });
        for a in 0..8 {
            for b in 0..8 {
                for c in 0..8 {
                    assert_eq!(g.value(&vec![a, b, c]), nim_sum([a, b, c]), "{a},{b},{c}");
                }
            }
        }
    }
}
