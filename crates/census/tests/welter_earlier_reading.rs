//! Which census do the mate-pair counts of an earlier version of welter-distinct-heaps describe?
//!
//! That version ("No two heaps alike") stated 113 zero-valued positions with an even number of
//! coins, 41 of them unions of complete mate-pairs, 72 not, 24 of those with no mated pair,
//! and 660 moves out of complete-pair positions, every one with a reply back. Its own census
//! ({1: 12, 2: 11, 3: 10, 4: 9, 5: 9, 6: 9}, 523 positions) gives 27, 15, 12, 8 and 112.
//! These tests search candidate censuses systematically with `welter.census` itself and
//! pin down the readings that reproduce those counts.
//!
//! Only even coin counts matter: a union of complete mate-pairs has an even number of
//! coins, and the zero counts are over even coin counts only.

use std::collections::BTreeMap;

use countersign_census::welter::{Mates, WelterCensus, WelterParams};
use countersign_census::{Census, Ctx};
use countersign_games::welter::{mirror_reply, pairwise_sum, Position};

/// The five counts the earlier version states: zero, zero unions, zero others, no mated pair, moves.
const STATED: [u64; 5] = [113, 41, 72, 24, 660];

fn census(coins: &[(u32, u32)]) -> Mates {
    let p = WelterParams { coins: coins.iter().copied().collect(), probe: Vec::new() };
    WelterCensus::validate(&p).expect("valid");
    WelterCensus::run(&p, &Ctx::new()).expect("not cancelled").mates
}

fn counts(m: &Mates) -> [u64; 5] {
    [m.zero, m.zero_unions, m.zero_not_unions, m.zero_no_mated_pair, m.moves]
}

fn add(a: [u64; 5], b: [u64; 5]) -> [u64; 5] {
    std::array::from_fn(|i| a[i] + b[i])
}

/// Counts for `k` coins on `n` squares, for even `k ≤ max_k`, `k ≤ n ≤ max_n`, stopping
/// along `n` once a count passes the stated one (every count grows with the strip).
fn table(max_k: u32, max_n: u32) -> BTreeMap<(u32, u32), [u64; 5]> {
    let mut t = BTreeMap::new();
    for k in (2..=max_k).step_by(2) {
        for n in k..=max_n {
            let c = counts(&census(&[(k, n)]));
            if (0..5).any(|i| c[i] > STATED[i]) {
                break;
            }
            t.insert((k, n), c);
        }
    }
    t
}

#[test]
fn the_first_census_does_not_give_the_stated_mate_counts() {
    let m = census(&[(1, 12), (2, 11), (3, 10), (4, 9), (5, 9), (6, 9)]);
    assert_ne!(counts(&m), STATED);
    assert_eq!(counts(&m), [27, 15, 12, 8, 112]);
}

#[test]
fn one_to_k_coins_on_one_strip_fits_only_at_twelve_squares() {
    // The first census has one to six coins; read its strip as one length for all counts.
    let mut fits = Vec::new();
    for n in 2..=16u32 {
        for top in 1..=n {
            let coins: Vec<(u32, u32)> = (1..=top).map(|k| (k, n)).collect();
            let c = counts(&census(&coins));
            if c == STATED {
                fits.push((top, n));
            }
            if (0..5).any(|i| c[i] > STATED[i]) {
                break;
            }
        }
    }
    // Seven coins is odd and adds nothing, so "one to six" and "one to seven" both fit.
    assert_eq!(fits, vec![(6, 12), (7, 12)]);
}

#[test]
fn any_even_coin_counts_on_one_strip() {
    let t = table(16, 16);
    let mut fits = Vec::new();
    for n in 2..=16u32 {
        let ks: Vec<u32> = (2..=n).step_by(2).collect();
        for mask in 1u32..(1 << ks.len()) {
            let chosen: Vec<u32> = ks.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, &k)| k).collect();
            let mut sum = [0; 5];
            let mut over = false;
            for &k in &chosen {
                match t.get(&(k, n)) {
                    Some(&c) => sum = add(sum, c),
                    None => over = true,
                }
            }
            if !over && sum == STATED {
                fits.push((n, chosen));
            }
        }
    }
    // Ten coins on twelve squares leave two holes and count like two coins.
    assert_eq!(fits, vec![(12, vec![2, 4, 6]), (12, vec![4, 6, 10])]);
}

#[test]
fn a_strip_length_for_each_coin_count() {
    let t = table(16, 20);
    let ks: Vec<u32> = (2..=16).step_by(2).collect();
    let mut fits = Vec::new();
    fn search(
        t: &BTreeMap<(u32, u32), [u64; 5]>,
        ks: &[u32],
        sum: [u64; 5],
        chosen: &mut Vec<(u32, u32)>,
        fits: &mut Vec<Vec<(u32, u32)>>,
    ) {
        if (0..5).any(|i| sum[i] > STATED[i]) {
            return;
        }
        let Some((&k, rest)) = ks.split_first() else {
            if sum == STATED {
                fits.push(chosen.clone());
            }
            return;
        };
        search(t, rest, sum, chosen, fits);
        for (&(_, n), &c) in t.range((k, 0)..=(k, u32::MAX)) {
            chosen.push((k, n));
            search(t, rest, add(sum, c), chosen, fits);
            chosen.pop();
        }
    }
    search(&t, &ks, [0; 5], &mut Vec::new(), &mut fits);
    fits.sort();
    assert_eq!(fits, vec![vec![(2, 12), (4, 12), (6, 12)], vec![(2, 13), (4, 12), (6, 12)], vec![(4, 12), (6, 12), (10, 12)],]);
}

#[test]
fn mirror_reply_restores_the_pairs() {
    let p = Position::from_squares(&[0, 1, 4, 5]);
    // 5 → 2: the mirror takes 4 (mate of 5) to 3 (mate of 2).
    let q = Position::from_squares(&[0, 1, 2, 4]);
    assert_eq!(mirror_reply(p, q), Some(Position::from_squares(&[0, 1, 2, 3])));
    // 4 → 3: the mirror takes 5 (mate of 4) to 2 (mate of 3).
    let q = Position::from_squares(&[0, 1, 3, 5]);
    assert_eq!(mirror_reply(p, q), Some(Position::from_squares(&[0, 1, 2, 3])));
    // Not a single move.
    assert_eq!(mirror_reply(p, p), None);
    assert_eq!(mirror_reply(p, Position::from_squares(&[0, 1, 2, 3])), None);
    assert_eq!(mirror_reply(p, Position::from_squares(&[0, 1, 4, 6])), None);
}

#[test]
fn pairwise_sum_is_the_closed_form_without_its_parity_term() {
    assert_eq!(pairwise_sum(Position::from_squares(&[7])), 0);
    assert_eq!(pairwise_sum(Position::from_squares(&[3, 9])), (3 ^ 9) - 1);
    // ⟨0|2⟩ ⊕ ⟨0|4⟩ ⊕ ⟨0|6⟩ ⊕ ⟨2|4⟩ ⊕ ⟨2|6⟩ ⊕ ⟨4|6⟩ = 1 ⊕ 3 ⊕ 5 ⊕ 5 ⊕ 3 ⊕ 1 = 0.
    assert_eq!(pairwise_sum(Position::from_squares(&[0, 2, 4, 6])), 0);
}
