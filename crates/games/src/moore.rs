//! Moore's Nim_k: heaps of counters; a move takes a positive number of counters from each
//! of between 1 and `k` heaps (optionally at most `cap` counters from each heap touched).
//! At `k = 1` this is Nim.
//!
//! Positions are multisets of heap sizes. Their canonical form is the list of non-zero
//! heap sizes in nondecreasing order (a heap emptied by a move disappears), so `[]` is the
//! empty position.
//!
//! Two solvers, which share no memo and no move generator:
//!
//! * [`Plain`]: memoised recursion over [`for_each_option`] (the generator behind
//!   [`options`]), with no rule assumed, stopping at a position's first lost option. The base case is where
//!   the conventions differ: a player facing the empty position has lost under normal play
//!   and has won under misère play.
//! * [`solve`]: retrograde marking over a dense index of every position with at most
//!   `max_heaps` heaps of at most `max_counters` counters ([`Index`]). Positions are visited
//!   in an order in which every option comes before the positions it is an option of; a
//!   position that no loss has marked when it is reached is a loss (a P-position), and it
//!   then marks every position one move above it (its predecessors) as a win.
//!
//! Rules checked against them:
//!
//! * [`column_rule_lost`]: Moore's rule (Moore 1910, "A generalization of the game called
//!   nim", Annals of Mathematics 11): a position is a P-position under normal play exactly
//!   when every binary column of the heap sizes sums to 0 modulo `k + 1`.
//! * [`patched_rule_lost`]: the misère patch: when every heap holds one counter the mover
//!   loses exactly when the number of heaps is 1 modulo `k + 1`; otherwise Moore's rule.
//!   At `k = 1` this is Bouton's misère rule for Nim (Bouton 1901/02; Winning Ways ch. 13).
//! * [`capped_rule_lost`]: the candidate rule for capped moves: reduce every heap modulo
//!   `cap + 1`, then apply a column rule to the residues (binary columns or base-`(k+1)`
//!   columns, see [`Columns`]). Exact at `k = 1`, where a capped heap is the subtraction
//!   game {1, …, cap} with Grundy value `n mod (cap + 1)` (Winning Ways ch. 4).

use rustc_hash::FxHashSet;
use std::ops::ControlFlow;

/// What a move may do: touch between 1 and `k` heaps, taking a positive number of counters
/// from each, and (when `cap` is `Some(c)`) at most `c` counters from each heap touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Moves {
    /// Largest number of heaps one move may touch, at least 1.
    pub k: u32,
    /// Largest number of counters one move may take from one heap; `None` for no limit.
    pub cap: Option<u32>,
}

impl Moves {
    /// Moore's Nim_k: up to `k` heaps, any positive amount from each.
    pub fn moore(k: u32) -> Moves {
        Moves { k, cap: None }
    }

    /// Moore's Nim_k with at most `cap` counters taken from each heap touched.
    pub fn capped(k: u32, cap: u32) -> Moves {
        Moves { k, cap: Some(cap) }
    }

    /// Smallest size a heap of `v` counters can be left at by one move (0 = emptied).
    fn lowest_from(self, v: u32) -> u32 {
        match self.cap {
            Some(c) => v.saturating_sub(c),
            None => 0,
        }
    }
}

/// The ending convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Play {
    /// The player who cannot move loses (the player facing the empty position has lost).
    Normal,
    /// The player who cannot move wins (the player facing the empty position has won:
    /// whoever took the last counter lost).
    Misere,
}

/// The canonical form of a position: the non-zero sizes of `heaps` in nondecreasing order.
/// O(n log n).
pub fn canonical(heaps: &[u32]) -> Vec<u32> {
    let mut p: Vec<u32> = heaps.iter().copied().filter(|&h| h > 0).collect();
    p.sort_unstable();
    p
}

/// True when the position has at least one heap and every heap holds exactly one counter.
pub fn is_all_ones(heaps: &[u32]) -> bool {
    let mut any = false;
    for &h in heaps {
        if h > 1 {
            return false;
        }
        any |= h == 1;
    }
    any
}

/// Every position reachable from `heaps` (any order, zeros ignored) in one move, each
/// exactly once, in canonical form and increasing lexicographic order.
///
/// The list is [`for_each_option`]'s, sorted and deduplicated: different choices can meet
/// (from {3, 5}, taking to {1, 2} either way). Cost: the number of such choices, at most
/// Σ_{j ≤ k} C(n, j) · max^j, times the position length, plus the sort.
pub fn options(heaps: &[u32], moves: Moves) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let _ = for_each_option(heaps, moves, &mut |q| {
        out.push(q.to_vec());
        ControlFlow::Continue(())
    });
    out.sort_unstable();
    out.dedup();
    out
}

/// Call `visit` with every position reachable from `heaps` (any order, zeros ignored) in
/// one move, in canonical form, until it returns `Break` (which is then returned).
///
/// Generation chooses, for each distinct heap size from the largest down, how many heaps
/// of that size to touch (most first) and the multiset of sizes they are left at (largest
/// first), so equal heaps are never distinguished. The order only affects how soon
/// [`Plain`] meets a lost option: on 8 heaps of 8 at k = 3 it looks at about a tenth
/// fewer options than with the smallest sizes first. Two different choices can still
/// reach the same position (from {3, 5}, taking to {1, 2} either way), so a position may
/// be visited more than once; [`options`] removes the repeats. Nothing is allocated per
/// option: `visit` borrows a scratch list.
pub fn for_each_option(heaps: &[u32], moves: Moves, visit: &mut dyn FnMut(&[u32]) -> ControlFlow<()>) -> ControlFlow<()> {
    walk_options(heaps, moves, &mut |o| visit(o.list()))
}

/// [`for_each_option`]'s walk, visiting each option as an [`OptionAt`]: its [`MemoKey`]
/// is known without building the option (see [`MemoKey::of`]), its list is built only
/// when asked for.
fn walk_options(heaps: &[u32], moves: Moves, visit: &mut dyn FnMut(&mut OptionAt) -> ControlFlow<()>) -> ControlFlow<()> {
    let p = canonical(heaps);
    // Runs of equal sizes, largest size first.
    let mut groups: Vec<(u32, usize)> = Vec::new();
    for &h in p.iter().rev() {
        match groups.last_mut() {
            Some((v, m)) if *v == h => *m += 1,
            _ => groups.push((h, 1)),
        }
    }
    let key = match MemoKey::of(&p) {
        MemoKey::Packed(k) => Some(k),
        MemoKey::List(_) => None,
    };
    let at = OptionAt {
        p: &p,
        touched: Vec::with_capacity(moves.k as usize),
        left_at: Vec::with_capacity(moves.k as usize),
        new_sizes: Vec::with_capacity(moves.k as usize),
        scratch: Vec::with_capacity(p.len()),
        key,
    };
    OptionWalk { groups: &groups, moves, at, visit }.group(0)
}

/// The state of one [`for_each_option`] enumeration.
struct OptionWalk<'a, 'v> {
    /// Runs of equal sizes of the position, largest first: (size, count).
    groups: &'a [(u32, usize)],
    moves: Moves,
    /// The option being chosen.
    at: OptionAt<'a>,
    visit: &'v mut dyn FnMut(&mut OptionAt) -> ControlFlow<()>,
}

/// One option of a position, as far as [`OptionWalk`] has chosen it.
struct OptionAt<'a> {
    /// The position, canonical.
    p: &'a [u32],
    /// Sizes of the heaps touched so far, one entry per heap, in nonincreasing order.
    touched: Vec<u32>,
    /// What each touched heap is left at (0 = emptied).
    left_at: Vec<u32>,
    /// The non-zero entries of `left_at`, sorted.
    new_sizes: Vec<u32>,
    /// The option, built by [`OptionAt::list`].
    scratch: Vec<u32>,
    /// The packed key of the option as chosen so far, when the position's key is packed
    /// (then so is every option's: a move adds no heap and grows none).
    key: Option<u128>,
}

impl OptionWalk<'_, '_> {
    /// Decide how many heaps of `groups[gi]` to touch, most first.
    fn group(&mut self, gi: usize) -> ControlFlow<()> {
        // With every heap a move may touch chosen, the groups left are all kept as they are.
        if gi == self.groups.len() || self.at.touched.len() == self.moves.k as usize {
            return self.emit();
        }
        let (v, m) = self.groups[gi];
        let budget = (self.moves.k as usize).saturating_sub(self.at.touched.len());
        let lo = self.moves.lowest_from(v);
        for t in (0..=m.min(budget)).rev() {
            for _ in 0..t {
                self.at.touched.push(v);
            }
            self.at.shift(v, t, false);
            let flow = self.leave(gi, t, lo, v);
            self.at.shift(v, t, true);
            for _ in 0..t {
                self.at.touched.pop();
            }
            flow?;
        }
        ControlFlow::Continue(())
    }

    /// Choose `left` more sizes, nondecreasing, each in `from..v`, for heaps of size `v`;
    /// then go on to the next group.
    fn leave(&mut self, gi: usize, left: usize, from: u32, v: u32) -> ControlFlow<()> {
        if left == 0 {
            return self.group(gi + 1);
        }
        for s in (from..v).rev() {
            self.at.left_at.push(s);
            self.at.shift(s, 1, true);
            let flow = self.leave(gi, left - 1, s, v);
            self.at.shift(s, 1, false);
            self.at.left_at.pop();
            flow?;
        }
        ControlFlow::Continue(())
    }

    /// Visit the option chosen, if anything was touched.
    fn emit(&mut self) -> ControlFlow<()> {
        if self.at.touched.is_empty() {
            return ControlFlow::Continue(());
        }
        (self.visit)(&mut self.at)
    }
}

impl OptionAt<'_> {
    /// Add (`add`) or remove `n` heaps of size `h` in the packed key, if any.
    fn shift(&mut self, h: u32, n: usize, add: bool) {
        if let (Some(k), true) = (self.key.as_mut(), h > 0) {
            let d = (n as u128) << (PACK_BITS * (h - 1));
            *k = if add { *k + d } else { *k - d };
        }
    }

    /// The option's memo key.
    fn key(&mut self) -> MemoKey {
        match self.key {
            Some(k) => MemoKey::Packed(k),
            None => MemoKey::of(self.list()),
        }
    }

    /// The option, canonical: the position minus the touched heaps plus what they were
    /// left at; the heaps kept (in order) merged with the sorted new sizes.
    fn list(&mut self) -> &[u32] {
        self.new_sizes.clear();
        self.new_sizes.extend(self.left_at.iter().copied().filter(|&h| h > 0));
        self.new_sizes.sort_unstable();
        self.scratch.clear();
        // `touched` is nonincreasing: walk `p` upwards, skipping touched heaps from its end.
        let mut ti = self.touched.len();
        let mut ni = 0;
        for &h in self.p {
            if ti > 0 && self.touched[ti - 1] == h {
                ti -= 1;
                continue;
            }
            while ni < self.new_sizes.len() && self.new_sizes[ni] <= h {
                self.scratch.push(self.new_sizes[ni]);
                ni += 1;
            }
            self.scratch.push(h);
        }
        self.scratch.extend_from_slice(&self.new_sizes[ni..]);
        &self.scratch
    }
}

/// Outcomes by plain memoised recursion over [`for_each_option`], no rule assumed.
///
/// A position is lost (a P-position) when it has options and none of them is lost; with
/// no option it is lost under normal play and won under misère play. The memo is two
/// sets, the positions known lost and those known won. A position is settled in two
/// passes over its options: first it looks for one among the known losses only (a small
/// set, since losses are rare, so the lookups stay in cache) and is won if it finds one;
/// otherwise it evaluates its options in turn, recursing into those not yet known, and
/// stops at the first lost one. A won position whose options are all known costs one pass
/// to its first winning move; a lost one costs all its options twice.
/// The recursion uses the call stack: its depth is at most the number of counters in the
/// position asked about (every move removes at least one).
///
/// Source: the definition of P- and N-positions (Winning Ways ch. 2); misère base case as
/// in Winning Ways ch. 13.
pub struct Plain {
    moves: Moves,
    play: Play,
    memo: Memo,
}

/// The memo of [`Plain`]: positions known lost and positions known won.
#[derive(Default)]
struct Memo {
    lost: FxHashSet<MemoKey>,
    won: FxHashSet<MemoKey>,
    /// One bit per slot of [`filter_slot`], set for the slot of every packed key in
    /// `lost`: a clear bit answers "not lost" without a lookup (most options are won, and
    /// looking for a lost option was a third of the recursion's time).
    lost_slots: Vec<u64>,
}

/// Slots of [`Memo::lost_slots`]: 2^16 bits, 8 KB.
const FILTER_BITS: u32 = 16;

/// The slot of a packed key in [`Memo::lost_slots`]: a multiplicative hash of its halves.
fn filter_slot(k: u128) -> usize {
    let x = (k as u64) ^ ((k >> 64) as u64);
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - FILTER_BITS)) as usize
}

impl Memo {
    /// True when `key` is known lost.
    fn is_lost(&self, key: &MemoKey) -> bool {
        if let MemoKey::Packed(k) = key {
            let slot = filter_slot(*k);
            if self.lost_slots.get(slot / 64).is_none_or(|w| w >> (slot % 64) & 1 == 0) {
                return false;
            }
        }
        self.lost.contains(key)
    }

    /// Remember `key` as lost.
    fn insert_lost(&mut self, key: MemoKey) {
        if let MemoKey::Packed(k) = key {
            if self.lost_slots.is_empty() {
                self.lost_slots = vec![0; 1 << (FILTER_BITS - 6)];
            }
            let slot = filter_slot(k);
            self.lost_slots[slot / 64] |= 1 << (slot % 64);
        }
        self.lost.insert(key);
    }
}

/// Bits per heap size in a packed [`MemoKey`]: a count of 0..=31 heaps.
const PACK_BITS: u32 = 5;

/// A canonical position as a hash key: packed into one integer when it has at most 31
/// heaps of at most 25 counters (every census position of the essays does), else the list
/// itself. A packed key holds, for each size h in 1..=25, the number of heaps of size h in
/// bits 5(h − 1) to 5h − 1: one-to-one on such positions, hashed and compared without a
/// pointer to follow, and a move changes it by adding and subtracting one term per heap
/// touched, so [`Plain`] knows an option's key without building the option.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemoKey {
    /// The counts of each size, five bits each, size 1 in the lowest bits.
    Packed(u128),
    /// Positions too large to pack.
    List(Vec<u32>),
}

impl MemoKey {
    /// The key of the canonical position `p` (nondecreasing non-zero sizes).
    pub fn of(p: &[u32]) -> MemoKey {
        if p.len() < 1 << PACK_BITS && p.iter().all(|&h| (1..=128 / PACK_BITS).contains(&h)) {
            MemoKey::Packed(p.iter().map(|&h| 1u128 << (PACK_BITS * (h - 1))).sum())
        } else {
            MemoKey::List(p.to_vec())
        }
    }
}

impl Plain {
    /// A solver for `moves` under `play`, with an empty memo.
    pub fn new(moves: Moves, play: Play) -> Plain {
        Plain { moves, play, memo: Memo::default() }
    }

    /// True when the player to move from `heaps` (any order, zeros ignored) loses.
    pub fn lost(&mut self, heaps: &[u32]) -> bool {
        let p = canonical(heaps);
        let key = MemoKey::of(&p);
        plain_lost(&mut self.memo, &p, key, self.moves, self.play)
    }

    /// Number of positions whose outcome is memoised.
    pub fn memo_len(&self) -> usize {
        self.memo.lost.len() + self.memo.won.len()
    }
}

/// The recursion of [`Plain`] on a canonical position `p` whose key is `key`.
fn plain_lost(memo: &mut Memo, p: &[u32], key: MemoKey, moves: Moves, play: Play) -> bool {
    if memo.is_lost(&key) {
        return true;
    }
    if memo.won.contains(&key) {
        return false;
    }
    // Pass 1: an option already known lost.
    let mut any = false;
    let mut won = walk_options(p, moves, &mut |q| {
        any = true;
        if memo.is_lost(&q.key()) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break();
    // Pass 2: evaluate the options, recursing into the unknown ones.
    if !won && any {
        won = walk_options(p, moves, &mut |q| {
            let k = q.key();
            let lost = memo.is_lost(&k) || !memo.won.contains(&k) && plain_lost(memo, q.list(), k, moves, play);
            if lost {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .is_break();
    }
    let lost = if any { !won } else { play == Play::Normal };
    if lost {
        memo.insert_lost(key);
    } else {
        memo.won.insert(key);
    }
    lost
}

/// Moore's column rule (Moore 1910): true when every binary column of `heaps` sums to 0
/// modulo `k + 1`, the condition for a P-position of Moore's Nim_k under normal play.
/// True for the empty position. O(n · bits).
pub fn column_rule_lost(heaps: &[u32], k: u32) -> bool {
    let m = u64::from(k) + 1;
    (0..32).all(|b| heaps.iter().map(|&h| u64::from((h >> b) & 1)).sum::<u64>() % m == 0)
}

/// The misère patch of Moore's rule: if every heap holds one counter (vacuously so for the
/// empty position), the mover loses exactly when the number of heaps is 1 modulo `k + 1`;
/// otherwise [`column_rule_lost`]. The all-ones clause is the misère subtraction game
/// {1, …, k} on the number of heaps; at `k = 1` the rule is Bouton's misère Nim rule.
pub fn patched_rule_lost(heaps: &[u32], k: u32) -> bool {
    if heaps.iter().all(|&h| h <= 1) {
        let n = heaps.iter().filter(|&&h| h == 1).count() as u64;
        n % (u64::from(k) + 1) == 1
    } else {
        column_rule_lost(heaps, k)
    }
}

/// How [`capped_rule_lost`] reads the residues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Columns {
    /// Moore's binary columns, each summed modulo `k + 1`.
    Binary,
    /// Base-`(k + 1)` digits, each column summed modulo `k + 1` (the digit-wise sum
    /// without carry in base `k + 1`).
    BaseK1,
}

/// The candidate rule for capped moves: replace every heap by its residue modulo
/// `cap + 1`, then the mover loses when every column of the residues sums to 0 modulo
/// `k + 1`, columns read as `columns` says. Exact for `k = 1` under normal play (the sum
/// of subtraction games {1, …, cap}); a hypothesis for `k ≥ 2`.
pub fn capped_rule_lost(heaps: &[u32], k: u32, cap: u32, columns: Columns) -> bool {
    let m = u64::from(k) + 1;
    let c1 = u64::from(cap) + 1;
    let residues: Vec<u64> = heaps.iter().map(|&h| u64::from(h) % c1).collect();
    match columns {
        Columns::Binary => (0..64).all(|b| residues.iter().map(|&r| (r >> b) & 1).sum::<u64>() % m == 0),
        Columns::BaseK1 => {
            let mut rs = residues;
            while rs.iter().any(|&r| r > 0) {
                if rs.iter().map(|&r| r % m).sum::<u64>() % m != 0 {
                    return false;
                }
                for r in rs.iter_mut() {
                    *r /= m;
                }
            }
            true
        }
    }
}

/// Largest `max_heaps` an [`Index`] accepts.
pub const MAX_INDEX_HEAPS: usize = 24;
/// Largest `max_counters` an [`Index`] accepts (heap sizes are held in a byte).
pub const MAX_INDEX_COUNTERS: u32 = 200;

/// A dense numbering of every position with at most `heaps` heaps of at most `counters`
/// counters, the empty position included: C(heaps + counters, heaps) positions.
///
/// A position is written as its sizes in nonincreasing order padded with zeros to length
/// `heaps`, a_1 ≥ … ≥ a_H; its rank is its place in lexicographic order,
/// Σ_i C(H − i + a_i, H − i + 1) (combinatorial number system). A move lowers some entries,
/// and re-sorting a pointwise-lower list gives a pointwise-lower list, so every option has
/// a smaller rank than the position it is an option of.
#[derive(Clone, Debug)]
pub struct Index {
    heaps: usize,
    counters: u32,
    /// `term[i][a]` = C(H − 1 − i + a, H − i) for slot i (0-based) holding a.
    term: Vec<Vec<u64>>,
    len: u64,
}

pub use super::count::binomial;

impl Index {
    /// The index of positions with at most `heaps` heaps of at most `counters` counters.
    /// `None` when `heaps` is 0 or over [`MAX_INDEX_HEAPS`], `counters` is 0 or over
    /// [`MAX_INDEX_COUNTERS`], or the number of positions is over `u32::MAX`.
    pub fn new(heaps: usize, counters: u32) -> Option<Index> {
        if heaps == 0 || heaps > MAX_INDEX_HEAPS || counters == 0 || counters > MAX_INDEX_COUNTERS {
            return None;
        }
        let len = binomial(heaps as u64 + u64::from(counters), heaps as u64);
        if len > u64::from(u32::MAX) {
            return None;
        }
        let term = (0..heaps)
            .map(|i| {
                let rest = (heaps - 1 - i) as u64;
                (0..=u64::from(counters)).map(|a| binomial(rest + a, rest + 1)).collect()
            })
            .collect();
        Some(Index { heaps, counters, term, len })
    }

    /// Number of positions indexed (the empty position included).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Never true: the empty position is always indexed.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Largest number of heaps.
    pub fn max_heaps(&self) -> usize {
        self.heaps
    }

    /// Largest heap size.
    pub fn max_counters(&self) -> u32 {
        self.counters
    }

    /// Rank of a padded nonincreasing list of length `max_heaps` (no checks).
    fn rank_desc(&self, desc: &[u8]) -> u64 {
        desc.iter().enumerate().map(|(i, &a)| self.term[i][a as usize]).sum()
    }

    /// Rank of the position `heaps` (any order, zeros ignored); `None` when it has more
    /// than `max_heaps` heaps or a heap over `max_counters`.
    pub fn rank(&self, heaps: &[u32]) -> Option<u64> {
        let mut p = canonical(heaps);
        if p.len() > self.heaps || p.iter().any(|&h| h > self.counters) {
            return None;
        }
        p.reverse();
        let mut desc = vec![0u8; self.heaps];
        for (d, &h) in desc.iter_mut().zip(&p) {
            *d = h as u8;
        }
        Some(self.rank_desc(&desc))
    }

    /// Every position in rank order, each in canonical (nondecreasing) form; the first is
    /// the empty position.
    pub fn positions(&self) -> Positions<'_> {
        Positions { index: self, desc: vec![0u8; self.heaps], started: false }
    }
}

/// Iterator over an [`Index`]'s positions in rank order; see [`Index::positions`].
pub struct Positions<'a> {
    index: &'a Index,
    desc: Vec<u8>,
    started: bool,
}

/// Advance a padded nonincreasing list to its lexicographic successor; false at the end.
fn next_desc(desc: &mut [u8], max: u8) -> bool {
    for i in (0..desc.len()).rev() {
        let ceiling = if i == 0 { max } else { desc[i - 1] };
        if desc[i] < ceiling {
            desc[i] += 1;
            for d in desc[i + 1..].iter_mut() {
                *d = 0;
            }
            return true;
        }
    }
    false
}

impl Iterator for Positions<'_> {
    type Item = Vec<u32>;
    fn next(&mut self) -> Option<Vec<u32>> {
        if self.started {
            if !next_desc(&mut self.desc, self.index.counters as u8) {
                return None;
            }
        } else {
            self.started = true;
        }
        Some(self.desc.iter().rev().filter(|&&a| a > 0).map(|&a| u32::from(a)).collect())
    }
}

/// The outcome of every position of an [`Index`], from [`solve`].
#[derive(Clone, Debug)]
pub struct Solved {
    index: Index,
    /// Bit r set when the position of rank r is a P-position (lost for the mover).
    lost: Vec<u64>,
    /// Predecessors marked, counting repeats: the sweep's work beyond visiting positions.
    marks: u64,
}

impl Solved {
    /// The index solved over.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// True when the position of rank `rank` is lost for the player to move.
    pub fn lost_at(&self, rank: u64) -> bool {
        (self.lost[(rank / 64) as usize] >> (rank % 64)) & 1 == 1
    }

    /// True when `heaps` is lost for the player to move; `None` when it is out of range.
    pub fn lost(&self, heaps: &[u32]) -> Option<bool> {
        self.index.rank(heaps).map(|r| self.lost_at(r))
    }

    /// Number of predecessor markings the sweep made (a predecessor reached from two
    /// losses, or by two raisings, counts each time): its work beyond the visits.
    pub fn marks(&self) -> u64 {
        self.marks
    }

    /// Number of P-positions (losses for the mover) in the index.
    pub fn losses(&self) -> u64 {
        self.lost.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// Solve every position with at most `max_heaps` heaps of at most `max_counters` counters
/// by retrograde marking from the losses.
///
/// Positions are visited in rank order ([`Index`]), so all options of a position are
/// settled before it. A position no loss has marked is a loss (except the empty position
/// under misère play, which is a win for the player facing it); each loss then marks all
/// its predecessors — the positions it is an option of — as wins. Predecessors are made
/// by raising between 1 and `k` entries of the padded list (an empty slot is a new heap),
/// each by 1 to `cap` counters and to at most `max_counters`; equal entries are raised as
/// a group with nondecreasing new sizes, so only predecessors reachable by two different
/// raisings are marked twice (marking is idempotent).
///
/// `progress(done, total)` is called every few thousand positions; returning false stops
/// the sweep and `solve` returns `None`. `None` also when the index cannot be built (see
/// [`Index::new`]) or `moves.k` is 0. Memory: two bits per position. Time: the number of
/// positions plus, for each loss, its number of predecessors times the list length.
pub fn solve(max_heaps: usize, max_counters: u32, moves: Moves, play: Play, progress: &mut dyn FnMut(u64, u64) -> bool) -> Option<Solved> {
    let index = Index::new(max_heaps, max_counters)?;
    if moves.k == 0 || moves.cap == Some(0) {
        return None;
    }
    let words = (index.len as usize).div_ceil(64);
    let mut won = vec![0u64; words];
    let mut lost = vec![0u64; words];
    let mut desc = vec![0u8; index.heaps];
    let mut marker = Marker {
        index: &index,
        k: moves.k.min(index.heaps as u32) as usize,
        cap: moves.cap.unwrap_or(max_counters).min(max_counters) as u8,
        max: max_counters as u8,
        work: vec![0u8; index.heaps],
        sorted: vec![0u8; index.heaps],
        groups: Vec::with_capacity(index.heaps),
        marks: 0,
    };
    let mut rank: u64 = 0;
    loop {
        if rank.is_multiple_of(4096) && !progress(rank, index.len) {
            return None;
        }
        let is_won = (won[(rank / 64) as usize] >> (rank % 64)) & 1 == 1;
        let terminal_win = rank == 0 && play == Play::Misere;
        if !is_won && !terminal_win {
            lost[(rank / 64) as usize] |= 1 << (rank % 64);
            marker.mark_predecessors(&desc, &mut won);
        }
        if !next_desc(&mut desc, index.counters as u8) {
            break;
        }
        rank += 1;
    }
    progress(index.len, index.len);
    let marks = marker.marks;
    Some(Solved { index, lost, marks })
}

/// Scratch space for enumerating the predecessors of a loss in [`solve`].
struct Marker<'a> {
    index: &'a Index,
    k: usize,
    cap: u8,
    max: u8,
    work: Vec<u8>,
    sorted: Vec<u8>,
    /// Runs of equal entries of the padded list: (start, length).
    groups: Vec<(usize, usize)>,
    marks: u64,
}

impl Marker<'_> {
    fn mark_predecessors(&mut self, desc: &[u8], won: &mut [u64]) {
        self.work.copy_from_slice(desc);
        self.groups.clear();
        let mut i = 0;
        while i < desc.len() {
            let mut j = i + 1;
            while j < desc.len() && desc[j] == desc[i] {
                j += 1;
            }
            self.groups.push((i, j - i));
            i = j;
        }
        self.raise_group(0, self.k, false, won);
    }

    /// Decide how many entries of group `gi` to raise, with `budget` raisings left.
    fn raise_group(&mut self, gi: usize, budget: usize, any: bool, won: &mut [u64]) {
        if gi == self.groups.len() {
            if any {
                self.sorted.copy_from_slice(&self.work);
                self.sorted.sort_unstable_by(|a, b| b.cmp(a));
                let r = self.index.rank_desc(&self.sorted);
                won[(r / 64) as usize] |= 1 << (r % 64);
                self.marks += 1;
            }
            return;
        }
        let (start, len) = self.groups[gi];
        let v = self.work[start];
        if v >= self.max {
            self.raise_group(gi + 1, budget, any, won);
            return;
        }
        let hi = (u16::from(v) + u16::from(self.cap)).min(u16::from(self.max)) as u8;
        for t in 0..=len.min(budget) {
            self.raise_entries(gi, start, t, v + 1, hi, budget - t, any || t > 0, won);
        }
        for e in &mut self.work[start..start + len] {
            *e = v;
        }
    }

    /// Raise `t` entries from `at` on to a nondecreasing list of sizes in `from..=hi`,
    /// then continue with the next group.
    #[allow(clippy::too_many_arguments)]
    fn raise_entries(&mut self, gi: usize, at: usize, t: usize, from: u8, hi: u8, budget: usize, any: bool, won: &mut [u64]) {
        if t == 0 {
            self.raise_group(gi + 1, budget, any, won);
            return;
        }
        for s in from..=hi {
            self.work[at] = s;
            self.raise_entries(gi, at + 1, t - 1, s, hi, budget, any, won);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Reference move generator: every subset of 1..=k heap indices, every reduction of
    /// each, canonicalised into a set.
    fn brute_options(p: &[u32], moves: Moves) -> BTreeSet<Vec<u32>> {
        let n = p.len();
        let mut out = BTreeSet::new();
        for mask in 1u32..(1 << n) {
            if mask.count_ones() > moves.k {
                continue;
            }
            let idx: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            let mut q = p.to_vec();
            fn rec(q: &mut Vec<u32>, p: &[u32], idx: &[usize], moves: Moves, out: &mut BTreeSet<Vec<u32>>) {
                match idx.split_first() {
                    None => {
                        out.insert(canonical(q));
                    }
                    Some((&i, rest)) => {
                        for s in moves.lowest_from(p[i])..p[i] {
                            q[i] = s;
                            rec(q, p, rest, moves, out);
                        }
                        q[i] = p[i];
                    }
                }
            }
            rec(&mut q, p, &idx, moves, &mut out);
        }
        out
    }

    fn all_positions(heaps: usize, counters: u32) -> Vec<Vec<u32>> {
        Index::new(heaps, counters).unwrap().positions().collect()
    }

    #[test]
    fn options_are_distinct_and_complete() {
        for moves in [Moves::moore(1), Moves::moore(2), Moves::moore(3), Moves::capped(2, 2), Moves::capped(3, 1)] {
            for p in all_positions(4, 5) {
                let got = options(&p, moves);
                let set: BTreeSet<Vec<u32>> = got.iter().cloned().collect();
                assert_eq!(set.len(), got.len(), "duplicate option from {p:?} under {moves:?}");
                assert_eq!(set, brute_options(&p, moves), "options of {p:?} under {moves:?}");
            }
        }
    }

    #[test]
    fn options_meet_from_different_choices() {
        // {3, 5} → {1, 2} by 3→1, 5→2 or 3→2, 5→1: listed once.
        let o = options(&[3, 5], Moves::moore(2));
        assert_eq!(o.iter().filter(|q| **q == vec![1, 2]).count(), 1);
    }

    #[test]
    fn index_ranks_in_iteration_order() {
        let idx = Index::new(5, 4).unwrap();
        assert_eq!(idx.len(), binomial(9, 5));
        let ps: Vec<Vec<u32>> = idx.positions().collect();
        assert_eq!(ps.len() as u64, idx.len());
        assert_eq!(ps[0], Vec::<u32>::new());
        for (r, p) in ps.iter().enumerate() {
            assert_eq!(idx.rank(p), Some(r as u64), "rank of {p:?}");
        }
        assert_eq!(idx.rank(&[5]), None);
        assert_eq!(idx.rank(&[1; 6]), None);
    }

    #[test]
    fn options_come_before_their_positions() {
        let idx = Index::new(4, 4).unwrap();
        for p in idx.positions() {
            let r = idx.rank(&p).unwrap();
            for q in options(&p, Moves::moore(4)) {
                assert!(idx.rank(&q).unwrap() < r, "{q:?} is an option of {p:?}");
            }
        }
    }

    /// Fast against plain on every position of `heaps` heaps ≤ `counters`; names the first
    /// position that differs.
    fn check_fast_against_plain(heaps: usize, counters: u32, moves: Moves, play: Play) {
        let solved = solve(heaps, counters, moves, play, &mut |_, _| true).unwrap();
        let mut plain = Plain::new(moves, play);
        for p in solved.index().positions() {
            let fast = solved.lost(&p).unwrap();
            assert_eq!(fast, plain.lost(&p), "first difference at {p:?}, {moves:?}, {play:?}");
        }
    }

    #[test]
    fn fast_agrees_with_plain_uncapped() {
        for k in 1..=7 {
            for play in [Play::Normal, Play::Misere] {
                check_fast_against_plain(6, 6, Moves::moore(k), play);
            }
        }
    }

    #[test]
    fn fast_agrees_with_plain_capped() {
        for k in 1..=3 {
            for c in 1..=5 {
                for play in [Play::Normal, Play::Misere] {
                    check_fast_against_plain(4, 9, Moves::capped(k, c), play);
                }
            }
        }
    }

    #[test]
    fn option_walk_stops_when_told() {
        let mut seen = 0;
        let flow = for_each_option(&[4, 5, 6], Moves::moore(2), &mut |_| {
            seen += 1;
            if seen == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert!(flow.is_break());
        assert_eq!(seen, 3);
        assert!(for_each_option(&[], Moves::moore(2), &mut |_| ControlFlow::Break(())).is_continue());
    }

    #[test]
    fn memo_keys_are_one_to_one() {
        let keys: BTreeSet<String> = all_positions(6, 9).iter().map(|p| format!("{:?}", MemoKey::of(p))).collect();
        assert_eq!(keys.len(), all_positions(6, 9).len());
        assert_eq!(MemoKey::of(&[1, 26]), MemoKey::List(vec![1, 26]));
        assert_eq!(MemoKey::of(&[1; 32]), MemoKey::List(vec![1; 32]));
        assert_eq!(MemoKey::of(&[1; 31]), MemoKey::Packed(31));
        assert_eq!(MemoKey::of(&[1, 25, 25]), MemoKey::Packed(1 | 2 << 120));
    }

    #[test]
    fn walked_keys_are_the_keys_of_the_options() {
        // The key the walk keeps as it chooses (added and subtracted per heap touched) is
        // the key of the option built, packed or not.
        for moves in [Moves::moore(3), Moves::capped(2, 2)] {
            for p in all_positions(5, 6).into_iter().chain([vec![1, 2, 30], vec![3; 33], vec![25, 25, 26]]) {
                let _ = walk_options(&p, moves, &mut |o| {
                    let key = o.key();
                    assert_eq!(key, MemoKey::of(o.list()), "an option of {p:?} under {moves:?}");
                    ControlFlow::Continue(())
                });
            }
        }
    }

    #[test]
    fn plain_goes_deep_and_past_the_packed_keys() {
        // Nim with two equal heaps is lost for the mover; 600 counters deep, and heaps
        // above 255 use list keys.
        let mut nim = Plain::new(Moves::moore(1), Play::Normal);
        assert!(nim.lost(&[300, 300]));
        assert!(!nim.lost(&[300, 299]));
        assert!(nim.lost(&[1, 2, 3]));
    }

    #[test]
    fn misere_empty_is_won_and_single_counter_lost() {
        let mut m = Plain::new(Moves::moore(2), Play::Misere);
        assert!(!m.lost(&[]));
        assert!(m.lost(&[1]));
        let mut n = Plain::new(Moves::moore(2), Play::Normal);
        assert!(n.lost(&[]));
        assert!(!n.lost(&[1]));
        let s = solve(3, 3, Moves::moore(2), Play::Misere, &mut |_, _| true).unwrap();
        assert_eq!(s.lost(&[]), Some(false));
        assert_eq!(s.lost(&[1]), Some(true));
    }

    #[test]
    fn moore_rule_and_patch_hold_on_small_census() {
        for k in 1..=5 {
            let normal = solve(6, 7, Moves::moore(k), Play::Normal, &mut |_, _| true).unwrap();
            let misere = solve(6, 7, Moves::moore(k), Play::Misere, &mut |_, _| true).unwrap();
            for p in normal.index().positions() {
                assert_eq!(normal.lost(&p).unwrap(), column_rule_lost(&p, k), "normal, k={k}, {p:?}");
                assert_eq!(misere.lost(&p).unwrap(), patched_rule_lost(&p, k), "misère, k={k}, {p:?}");
            }
        }
    }

    #[test]
    fn rules_on_examples() {
        assert!(column_rule_lost(&[1, 2, 3], 1));
        assert!(!column_rule_lost(&[1, 2, 3], 2));
        assert!(column_rule_lost(&[1, 1, 1], 2));
        assert!(patched_rule_lost(&[1, 1, 1, 1], 2));
        assert!(!patched_rule_lost(&[1, 1, 1], 2));
        assert!(!patched_rule_lost(&[], 2));
        assert!(is_all_ones(&[1, 1]));
        assert!(!is_all_ones(&[]));
        assert!(!is_all_ones(&[1, 2]));
        // residues mod 3 of {4, 5} are {1, 2}; binary columns: 1+0, 0+1 → odd at k=1.
        assert!(!capped_rule_lost(&[4, 5], 1, 2, Columns::Binary));
        assert!(capped_rule_lost(&[4, 7], 1, 2, Columns::Binary));
        // base 3 digits of residues {1, 2} mod 3: 1 + 2 = 3 ≡ 0.
        assert!(capped_rule_lost(&[1, 2], 2, 5, Columns::BaseK1));
        assert!(!capped_rule_lost(&[1, 2], 2, 5, Columns::Binary));
    }

    #[test]
    fn capped_rule_exact_at_k1_normal() {
        for c in 1..=4 {
            let s = solve(4, 10, Moves::capped(1, c), Play::Normal, &mut |_, _| true).unwrap();
            for p in s.index().positions() {
                assert_eq!(s.lost(&p).unwrap(), capped_rule_lost(&p, 1, c, Columns::Binary), "c={c}, {p:?}");
            }
        }
    }

    #[test]
    fn solve_refuses_bad_input_and_stops_when_asked() {
        assert!(solve(0, 3, Moves::moore(1), Play::Normal, &mut |_, _| true).is_none());
        assert!(solve(3, 0, Moves::moore(1), Play::Normal, &mut |_, _| true).is_none());
        assert!(solve(3, 3, Moves::moore(0), Play::Normal, &mut |_, _| true).is_none());
        assert!(solve(3, 3, Moves::capped(1, 0), Play::Normal, &mut |_, _| true).is_none());
        assert!(solve(3, 3, Moves::moore(1), Play::Normal, &mut |_, _| false).is_none());
        assert!(Index::new(24, 200).is_none());
    }
}
