//! Nim with a held pass: Nim (take any positive number of counters from one heap; the
//! player who cannot move loses) with one pass token shared by both players. On a turn
//! the player to move may spend the token instead of moving in a heap; it is then gone for
//! good. The token may not be spent when every heap is empty, so a player facing the
//! empty board has lost whether or not the token is still there ("held" pass).
//!
//! Positions here always mean "the token is still on the table" unless said otherwise;
//! with the token spent the game is ordinary Nim, whose Grundy value is the nim-sum
//! (Bouton 1901/02).
//!
//! What this module provides:
//!
//! * [`grundy_recursive`]: Grundy values of positions with or without the token by the
//!   plain memoised recursion of [`crate::impartial::Grundy`] (small heaps only).
//! * [`one_heap_value`] and [`is_two_heap_loss`]: the one-heap and two-heap formulas.
//! * The three-heap partner function P(x, y): the unique z ≥ 0 such that (x, y, z) is a
//!   P-position (lost for the player to move). See [`partner_bound`] for why it exists,
//!   is unique and is at most x + y + 1. Two independent methods compute it:
//!   [`PartnerTable`] (every triple to a bound, filled in order of the heaps, the method
//!   of the source essay) and [`Slices`] (the slice method, by a mex over a row and a
//!   column; its dependency proof is on [`Slices`]).
//! * [`Periodicity`]: eventual periods of a sequence by the Z-function of the reversed
//!   sequence, linear time.
//! * [`Certificate`]: the theorem that every slice is eventually periodic, with its
//!   proof; a certificate (a repeated state proves a slice's period for ever) and
//!   [`certify_slices`], which proves slices in order and gives each its [`Law`] (least
//!   period, earliest start).
//!
//! Sources: the pass in Nim as an open question is in R. K. Guy and R. J. Nowakowski,
//! "Unsolved problems in combinatorial games" (*More Games of No Chance*, MSRI Publ. 42,
//! 2002); three-heap Nim with a pass studied numerically in R. E. Morrison,
//! E. J. Friedman and A. S. Landsberg, "Combinatorial games with a pass: a dynamical
//! systems approach", *Chaos* 21 (2011) 043108, and arXiv:2010.10643 ("Investigations of
//! impartial games with a pass"). Grundy values and mex as in Berlekamp, Conway and Guy,
//! *Winning Ways*, ch. 3. The mex characterisation of the partner function and the slice
//! method are derived (and proved) here.

use crate::impartial::Grundy;

/// A position of Nim with a held pass: heap sizes (any order) and whether the pass token
/// is still on the table.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    /// Heap sizes, kept sorted in increasing order (empty heaps included).
    pub heaps: Vec<u64>,
    /// True while the pass token is unspent.
    pub token: bool,
}

impl Position {
    /// The position with `heaps` (any order; sorted on construction) and the token as
    /// given.
    pub fn new(heaps: &[u64], token: bool) -> Position {
        let mut heaps = heaps.to_vec();
        heaps.sort_unstable();
        Position { heaps, token }
    }

    /// Every option: each heap reduced to each smaller size (token unchanged), and, when
    /// the token is present and some heap is non-empty, the pass (same heaps, no token).
    /// Duplicates from equal heaps are kept; they do not change a mex.
    pub fn options(&self) -> Vec<Position> {
        let mut out = Vec::new();
        for i in 0..self.heaps.len() {
            for v in 0..self.heaps[i] {
                let mut h = self.heaps.clone();
                h[i] = v;
                h.sort_unstable();
                out.push(Position { heaps: h, token: self.token });
            }
        }
        if self.token && self.heaps.iter().any(|&h| h > 0) {
            out.push(Position { heaps: self.heaps.clone(), token: false });
        }
        out
    }
}

/// Grundy values of held-pass positions by plain memoised recursion over
/// [`Position::options`] (positions without the token are recursed too, not looked up as
/// nim-sums). Keep the heaps small: the memo holds every position below the ones asked
/// about, about ∏(h+1) of them per token state.
pub struct Recursion {
    g: Grundy<Position, fn(&Position) -> Vec<Position>>,
}

impl Default for Recursion {
    fn default() -> Self {
        Recursion::new()
    }
}

impl Recursion {
    /// A solver with an empty memo.
    pub fn new() -> Recursion {
        fn opts(p: &Position) -> Vec<Position> {
            p.options()
        }
        Recursion { g: Grundy::new(opts as fn(&Position) -> Vec<Position>) }
    }

    /// The Grundy value of `heaps` (any order) with the token present when `token`.
    pub fn value(&mut self, heaps: &[u64], token: bool) -> u64 {
        self.g.value(&Position::new(heaps, token))
    }

    /// True when `heaps` with the token present is a P-position (Grundy value 0).
    pub fn is_loss(&mut self, heaps: &[u64]) -> bool {
        self.value(heaps, true) == 0
    }
}

/// Grundy value of `heaps` with the token present, by a fresh [`Recursion`].
/// Convenience for one-off checks; use a [`Recursion`] to share the memo.
pub fn grundy_recursive(heaps: &[u64]) -> u64 {
    Recursion::new().value(heaps, true)
}

/// The one-heap formula: the Grundy value of a single heap of `h` with the token present
/// is 0 for h = 0, h + 1 for odd h and h − 1 for even h > 0.
///
/// Proof (induction on h): the options are the smaller heaps with the token, whose values
/// by induction are {0, …, h−1} for odd h and {0, …, h−2, h} for even h, plus the pass,
/// worth h (a Nim heap). The mex is h + 1 for odd h and h − 1 for even h. O(1).
pub fn one_heap_value(h: u64) -> u64 {
    if h == 0 {
        0
    } else if h % 2 == 1 {
        h + 1
    } else {
        h - 1
    }
}

/// The two-heap formula: (x, y) with the token present is lost for the player to move
/// exactly when it is the empty board or {x, y} = {2k − 1, 2k} for some k ≥ 1.
///
/// Proof sketch: such a pair has non-zero nim-sum (so the pass loses) and no heap move
/// reaches another such pair; from any other pair, equal non-empty heaps are won by the
/// pass (Nim with nim-sum 0), and unequal heaps by moving the larger to the smaller's mate
/// (2k−1 ↔ 2k, 0 ↔ 0). O(1).
pub fn is_two_heap_loss(x: u64, y: u64) -> bool {
    two_heap_mate(x) == y
}

/// The unique y with (x, y) a two-heap loss: 0 for 0, x + 1 for odd x, x − 1 for even x.
/// It is also P(0, x), the partner of (0, x). O(1).
pub fn two_heap_mate(x: u64) -> u64 {
    if x == 0 {
        0
    } else if x % 2 == 1 {
        x + 1
    } else {
        x - 1
    }
}

/// The bound x + y + 1 on the partner P(x, y), with the proof that P exists and is unique.
///
/// Lemma. For heaps x, y (token present) there is exactly one z ≥ 0 with (x, y, z) lost,
/// and it is P(x, y) = mex S(x, y), where
/// S(x, y) = {P(x', y) : x' < x} ∪ {P(x, y') : y' < y} ∪ {x ⊕ y, unless x = y = 0}.
///
/// Proof, by induction on x + y. Uniqueness: if z < z' both gave losses, (x, y, z') would
/// move to (x, y, z) by taking from the third heap, and a P-position has no P-position
/// option. For z ∈ S the position (x, y, z) is won: z = P(x', y) means taking x down to
/// x' reaches a loss; likewise for y; z = x ⊕ y (not all empty) means the pass leaves Nim
/// with nim-sum 0. For m = mex S, (x, y, m) has no winning heap move in x or y (m ∉ S),
/// the pass leaves a non-zero nim-sum (or is not allowed on the empty board), and every
/// move in the third heap reaches (x, y, z) with z < m, z ∈ S, which is won. So (x, y, m)
/// is lost; and every z > m is won by moving to m. S has at most x + y + 1 elements, so
/// m ≤ x + y + 1. ∎
pub fn partner_bound(x: u64, y: u64) -> u64 {
    x.saturating_add(y).saturating_add(1)
}

/// "No partner within the table's bound" in a [`PartnerTable`]'s storage.
const NONE16: u16 = u16::MAX;

/// The largest bound a [`PartnerTable`] accepts (its memory is 2·(n+1)² bytes).
pub const TABLE_MAX_HEAP: u32 = 4000;

/// The full table: every triple 0 ≤ a ≤ b ≤ c ≤ n settled in turn, the source essay's
/// method. Holds the partner of every pair (x, y) with x, y ≤ n when that partner is at
/// most n.
///
/// Order: c outermost, then b, then a, each increasing. Reducing one heap of a sorted
/// triple gives a triple that sorts componentwise below it, hence earlier in this order,
/// so every option is settled before the position. A triple is lost when it is the empty
/// board or its nim-sum is non-zero (else the pass wins), and no heap move reaches a loss;
/// since each pair has at most one lost partner, "some move of heap a reaches a loss" is
/// the single lookup "the partner of (b, c) is already known and below a", and likewise
/// for b and c: three lookups per triple. Within a row (b, c) the partner of (b, c) is
/// unknown until the row's loss is found (a partner below b is found in this row, one of
/// b or more later), and a partner of (a, b) or (a, c) known before the row is below c or
/// below b respectively, so "known" is all the two other lookups need to say. They are
/// kept as one bit set per heap (bit a of set x: the partner of (a, x) is known), and a
/// row is settled 64 values of a at a time by one OR of two words, up to its first loss;
/// the rest of the row is settled by the one lookup P(b, c) = a < a'.
///
/// Cost: C(n + 3, 3) ≈ n³/6 triples (223,045,351 for n = 1100), each O(1);
/// memory 2.125·(n+1)² bytes. Independent of [`Slices`] and of the recursion: no shared memo
/// or move generator.
pub struct PartnerTable {
    n: u32,
    p: Vec<u16>,
    triples: u64,
}

impl PartnerTable {
    /// Fill the table for heaps up to `n` (`n` ≤ [`TABLE_MAX_HEAP`]; larger `n` is
    /// clamped). `keep_going` is called once per value of the largest heap with the number
    /// of triples settled so far; returning false stops early and yields `None`.
    pub fn build(n: u32, mut keep_going: impl FnMut(u64) -> bool) -> Option<PartnerTable> {
        let n = n.min(TABLE_MAX_HEAP);
        let w = n as usize + 1;
        let words = w.div_ceil(64);
        let mut p = vec![NONE16; w * w];
        // known[x] bit a: the partner of (a, x) is already known.
        let mut known = vec![0u64; w * words];
        let mut triples = 0u64;
        for c in 0..w {
            if !keep_going(triples) {
                return None;
            }
            for b in 0..=c {
                triples += b as u64 + 1;
                // a = b ⊕ c has nim-sum 0: the pass wins there (unless all are empty).
                let zero_sum = if c == 0 { usize::MAX } else { b ^ c };
                let mut found = None;
                for wi in 0..=b / 64 {
                    // Bit a: P(a, b) unknown (a move of heap c reaches no loss) and
                    // P(a, c) unknown (a move of heap b reaches no loss).
                    let mut free = !(known[b * words + wi] | known[c * words + wi]);
                    if wi == b / 64 && b % 64 != 63 {
                        free &= (1u64 << (b % 64 + 1)) - 1;
                    }
                    if zero_sum / 64 == wi {
                        free &= !(1u64 << (zero_sum % 64));
                    }
                    if free != 0 {
                        found = Some(wi * 64 + free.trailing_zeros() as usize);
                        break;
                    }
                }
                if let Some(a) = found {
                    for (x, y, z) in [(a, b, c), (a, c, b), (b, c, a)] {
                        p[x * w + y] = z as u16;
                        p[y * w + x] = z as u16;
                        known[x * words + y / 64] |= 1u64 << (y % 64);
                        known[y * words + x / 64] |= 1u64 << (x % 64);
                    }
                }
            }
        }
        Some(PartnerTable { n, p, triples })
    }

    /// The bound n.
    pub fn max_heap(&self) -> u32 {
        self.n
    }

    /// Number of sorted triples settled, C(n + 3, 3).
    pub fn triples(&self) -> u64 {
        self.triples
    }

    /// P(x, y) when it is at most n; `None` when it exceeds n or x or y exceeds n.
    pub fn partner(&self, x: u32, y: u32) -> Option<u32> {
        if x > self.n || y > self.n {
            return None;
        }
        let w = self.n as usize + 1;
        let v = self.p[x as usize * w + y as usize];
        (v != NONE16).then_some(v as u32)
    }

    /// True when (x, y, z), all at most n, is lost.
    pub fn is_loss(&self, x: u32, y: u32, z: u32) -> bool {
        self.partner(x, y) == Some(z)
    }

    /// Every lost sorted triple a ≤ b ≤ c ≤ n with a ≥ `min_heap`, in increasing
    /// lexicographic order.
    pub fn losses(&self, min_heap: u32) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        for a in min_heap..=self.n {
            for b in a..=self.n {
                if let Some(c) = self.partner(a, b) {
                    if c >= b {
                        out.push([a, b, c]);
                    }
                }
            }
        }
        out
    }
}

/// The largest smallest heap [`Slices`] accepts: every offset P(a, b) − b lies within
/// a + 1 of 0 (see [`Slices`]), so with a ≤ 126 each entry is stored in one signed byte.
pub const SLICES_MAX: u32 = 126;
/// The largest middle heap [`Slices`] accepts: every value P(a, b) ≤ a + b + 1 must fit a
/// `u32`. Memory, not this bound, is what limits a computation (see [`Slices`]).
pub const SLICES_MAX_HEAP: u32 = 4_000_000_000;

/// The slice method: P(a, b) for every smallest heap a ≤ A and every middle heap b ≤ N
/// (b ≥ a, and also b < a through symmetry), without the rest of the table.
///
/// Slice a is the sequence b ↦ P(a, b) for b ≥ a. By the lemma on [`partner_bound`],
/// P(a, b) = mex( {P(a', b) : a' < a} ∪ {P(a, b') : b' < b} ∪ {a ⊕ b unless a = b = 0} ).
///
/// Claim: slice a depends only on slices below a and on its own earlier entries.
/// Proof. In the set above, P(a', b) with a' < a ≤ b is entry b of slice a' < a. P(a, b')
/// with a ≤ b' < b is an earlier entry of slice a itself. P(a, b') with b' < a equals
/// P(b', a) (the losing set is symmetric), entry a of slice b' < a. Nothing else enters.
/// (Equivalently, in game terms: every option of (a, b, c) with a ≤ b has smallest heap
/// at most a, and if it is a its middle heap is at most b.) So computing slices in
/// increasing a, each in increasing b, reads only computed values. ∎
///
/// Algorithm, per slice a: a bit set R of the row's used partners {P(a, b') : b' < b}
/// (started with the entries P(b', a), b' < a, from lower slices) with a pointer to its
/// least missing value, which only grows. Every offset lies within a + 1 (see below), so
/// the pointer is at least b − a − 1, the mex at most a + b + 1, and every value of column
/// b within A + 1 of b. Columns are walked upwards through the slices: the column set
/// {P(a', b) : a' < a} is kept as a running bit mask over a window of 2A + 3 values around
/// b (slice a adds P(a, b) for the slice above), a ⊕ b is added for the entry alone, the
/// mask is ORed with R's words from the pointer, and the mex is the first zero bit.
/// Time O(A/64) word operations per entry, plus O(A) per column to start the mask of a
/// thread's group of slices: O(N·A²) in all, far less in practice. Memory (A+1)·(N+1)
/// bytes for the partners (each stored as its offset P(a, b) − b in an `i8`) and
/// (A+1)·(N+3A)/8 bytes for the sets R: about 1.13·(A+1)·(N+1) bytes, O(N·A).
///
/// Order of work: the middle heaps are cut into blocks of [`SLICE_BLOCK`], stored column
/// by column (the values P(a', b), a' ≤ A, of one b are contiguous, so the column set of
/// an entry is one short contiguous read), and the slices into as many contiguous groups
/// of about equal cost (a + 2 per entry) as rayon has threads. Group j works on block
/// t − j at step t, column by column and within a column slice by slice; it reads only
/// what the groups below it finished on that block at earlier steps and its own earlier
/// columns, so the groups run in parallel and every value is the one the sequential order
/// gives (tested with several block sizes and group counts). Independent of
/// [`PartnerTable`] and the recursion.
///
/// A bound used in sizing: every offset P(a, b) − b lies in [−a − 1, a + 1], since
/// P(a, b) ≤ a + b + 1 and, when c = P(a, b) < b, b = P(a, c) ≤ a + c + 1.
pub struct Slices {
    a_max: u32,
    n: u32,
    /// a_max + 1, the length of a stored column.
    h: usize,
    /// Middle heaps per block ([`SLICE_BLOCK`] outside tests).
    bsize: usize,
    /// blocks[k][(b − k·bsize) * h + a] = P(a, b) − b: one column (fixed b) is contiguous.
    blocks: Vec<Vec<i8>>,
}

/// Middle heaps per block in [`Slices`] (more than [`SLICES_MAX`], so block 0 holds every
/// entry b < a that a slice's start needs).
pub const SLICE_BLOCK: usize = 1 << 15;

/// One slice's running state: its set R of used partners and the least value missing
/// from R.
struct RowState {
    row: Vec<u64>,
    ptr: usize,
}

/// One group of slices (lo..hi) and their running states.
struct Group {
    lo: usize,
    hi: usize,
    rows: Vec<RowState>,
    /// Scratch: the running column set as bits over the column's window.
    win: Vec<u64>,
}

impl Group {
    /// Compute slices lo..hi on block k. `block` holds the block's columns, column by
    /// column: block[(b − k·bs) * h + a] = P(a, b) − b.
    fn run_block(&mut self, k: usize, block: &mut [i8], nn: usize, bs: usize, h: usize) {
        let b0 = k * bs;
        let b1 = (b0 + bs).min(nn);
        // Every value in column b (P(a', b), a' ≤ a_max, and a ⊕ b) lies within h + 1 of b,
        // so a window of wn words from cbase = (b − h − 1) rounded down to a word holds the
        // column set; the column set of slice a is that of slice a − 1 plus P(a − 1, b), so
        // it is kept as a running bit mask while the column is walked upwards.
        let wn = (2 * h + 66) / 64 + 2;
        for b in b0..b1 {
            let off = b - b0;
            let amax = self.hi.min(b + 1);
            if self.lo >= amax {
                continue;
            }
            let cbase = b.saturating_sub(h + 1) / 64 * 64;
            let cw = cbase / 64;
            let win = &mut self.win[..wn];
            win.fill(0);
            let mut outside = false;
            let at = |d: i8| b.wrapping_add_signed(d as isize);
            for ap in 0..self.lo {
                let d = at(block[off * h + ap]).wrapping_sub(cbase);
                if d < wn * 64 {
                    win[d / 64] |= 1u64 << (d % 64);
                } else {
                    outside = true;
                }
            }
            for a in self.lo..amax {
                let st = &mut self.rows[a - self.lo];
                if b == a {
                    // Slice a starts: its entries b' < a are P(b', a), found in this column
                    // (block 0, as a < bs); copy them into their own columns too.
                    for bp in 0..a {
                        let v = at(block[off * h + bp]);
                        // P(a, b′) − b′ lies within a + 1 of 0 (see the bound on Slices).
                        block[bp * h + a] = (v as isize - bp as isize) as i8;
                        st.row[v / 64] |= 1u64 << (v % 64);
                    }
                    st.ptr = next_zero(&st.row, st.ptr);
                }
                let row = &mut st.row;
                // a ⊕ b is excluded unless the board is empty (a = b = 0).
                let pass = if b != 0 { (a ^ b).wrapping_sub(cbase) } else { usize::MAX };
                let mut z = None;
                if !outside && st.ptr >= cbase && (b == 0 || pass < wn * 64) {
                    for i in (st.ptr - cbase) / 64..wn {
                        let mut used = row[cw + i] | win[i];
                        if pass / 64 == i {
                            used |= 1u64 << (pass % 64);
                        }
                        if used != !0u64 {
                            z = Some(cbase + i * 64 + used.trailing_ones() as usize);
                            break;
                        }
                    }
                }
                let z = z.unwrap_or_else(|| plain_walk(row, &block[off * h..off * h + a], st.ptr, a, b));
                block[off * h + a] = (z as isize - b as isize) as i8;
                row[z / 64] |= 1u64 << (z % 64);
                st.ptr = next_zero(row, st.ptr);
                let d = z.wrapping_sub(cbase);
                if d < wn * 64 {
                    win[d / 64] |= 1u64 << (d % 64);
                } else {
                    outside = true;
                }
            }
        }
    }
}

/// P(a, b) by a plain walk from `from`: the least value ≥ `from` missing from the row set
/// `row`, from the column's entries below a (`lower`, each as P(a′, b) − b) and, unless
/// b = 0, from a ⊕ b. Used only outside the proven bounds (never reached; kept for safety).
#[cold]
fn plain_walk(row: &[u64], lower: &[i8], from: usize, a: usize, b: usize) -> usize {
    let at = |d: i8| b.wrapping_add_signed(d as isize);
    let mut z = from;
    loop {
        z = next_zero(row, z);
        if lower.iter().any(|&v| at(v) == z) || (b != 0 && z == a ^ b) {
            z += 1;
        } else {
            break z;
        }
    }
}

/// The least value ≥ `from` missing from the bit set `row` (which must have a zero bit at
/// or after `from`).
fn next_zero(row: &[u64], from: usize) -> usize {
    let mut wi = from / 64;
    let mut word = !row[wi] & (!0u64 << (from % 64));
    while word == 0 {
        wi += 1;
        word = !row[wi];
    }
    wi * 64 + word.trailing_zeros() as usize
}

impl Slices {
    /// Compute slices 0..=`a_max` for middle heaps up to `n`. Runs on the current rayon
    /// pool. `keep_going(done, total)` is called before each of the pipeline's steps;
    /// returning false stops early and yields `None`.
    ///
    /// Panics unless `a_max` ≤ [`SLICES_MAX`], `a_max` ≤ `n` and `n` ≤
    /// [`SLICES_MAX_HEAP`] (nothing is clamped: callers validate, as the census does).
    /// Memory about 1.13·(a_max + 1)·(n + 1) bytes.
    pub fn compute(a_max: u32, n: u32, keep_going: impl FnMut(u64, u64) -> bool) -> Option<Slices> {
        Slices::compute_in(a_max, n, SLICE_BLOCK, rayon::current_num_threads(), keep_going)
    }

    /// [`Slices::compute`] with `bsize` middle heaps per block (raised to more than
    /// `a_max`) and `threads` groups of slices; for tests of the pipeline.
    fn compute_in(a_max: u32, n: u32, bsize: usize, threads: usize, mut keep_going: impl FnMut(u64, u64) -> bool) -> Option<Slices> {
        use rayon::prelude::*;
        assert!(a_max <= SLICES_MAX && a_max <= n && n <= SLICES_MAX_HEAP, "Slices::compute({a_max}, {n}) out of range");
        let h = a_max as usize + 1;
        let bsize = bsize.max(h + 1);
        let bs = bsize;
        let nn = n as usize + 1;
        let nb = nn.div_ceil(bs);
        // Values reach at most a + b + 1 ≤ a_max + n + 1.
        let vmax = h + nn + 1;
        // Room for the window of 2h + 3 values past any pointer.
        let words = (vmax + 2 * h) / 64 + 6;
        // Groups of slices of about equal cost.
        let threads = threads.clamp(1, h);
        let total_cost: usize = (0..h).map(|a| a + 2).sum();
        let mut groups: Vec<Group> = Vec::new();
        let mut lo = 0usize;
        let mut acc = 0usize;
        for a in 0..h {
            acc += a + 2;
            let want = total_cost * (groups.len() + 1) / threads;
            if acc >= want || a + 1 == h {
                groups.push(Group {
                    lo,
                    hi: a + 1,
                    rows: (lo..=a).map(|_| RowState { row: vec![0u64; words], ptr: 0 }).collect(),
                    win: vec![0u64; (2 * h + 66) / 64 + 2],
                });
                lo = a + 1;
            }
        }
        let g = groups.len();
        let mut blocks: Vec<Vec<i8>> = (0..nb).map(|_| vec![0i8; h * bs]).collect();
        let steps = nb + g - 1;
        for t in 0..steps {
            if !keep_going(t as u64, steps as u64) {
                return None;
            }
            // Group j works on block k = t − j: blocks lo_k..=hi_k pair with groups
            // t − hi_k..=t − lo_k in reverse order; distinct blocks, so disjoint borrows.
            let lo_k = (t + 1).saturating_sub(g);
            let hi_k = t.min(nb - 1);
            let blk = &mut blocks[lo_k..=hi_k];
            let grp = &mut groups[t - hi_k..=t - lo_k];
            let work: Vec<(&mut Group, usize, &mut Vec<i8>)> =
                grp.iter_mut().zip(blk.iter_mut().enumerate().rev()).map(|(gr, (off, block))| (gr, lo_k + off, block)).collect();
            work.into_par_iter().for_each(|(gr, k, block)| gr.run_block(k, block, nn, bsize, h));
        }
        Some(Slices { a_max, n, h, bsize, blocks })
    }

    /// The largest smallest heap A: slices are 0..=A.
    pub fn a_max(&self) -> u32 {
        self.a_max
    }

    /// The largest middle heap N.
    pub fn max_heap(&self) -> u32 {
        self.n
    }

    /// P(a, b) for a ≤ a_max and b ≤ N (either order of the pair when both fit).
    /// `None` outside the computed range.
    pub fn partner(&self, x: u32, y: u32) -> Option<u32> {
        let (a, b) = if x <= self.a_max && y <= self.n {
            (x, y)
        } else if y <= self.a_max && x <= self.n {
            (y, x)
        } else {
            return None;
        };
        Some(b.wrapping_add_signed(self.offset(a, b) as i32))
    }

    /// The stored offset P(a, b) − b for a ≤ a_max, b ≤ N.
    fn offset(&self, a: u32, b: u32) -> i8 {
        let b = b as usize;
        self.blocks[b / self.bsize][(b % self.bsize) * self.h + a as usize]
    }

    /// The offsets P(a, b) − b for b = a..=N, in order of b, one byte each (every offset
    /// lies within a + 1 ≤ 127 of 0). Empty when a > a_max.
    pub fn offsets_i8(&self, a: u32) -> Vec<i8> {
        self.offsets_of(a..=a).pop().unwrap_or_default()
    }

    /// [`Slices::offsets_i8`] of every slice in `slices` (those above a_max left out), in
    /// one pass over the storage: the slices of one middle heap lie side by side, so
    /// reading several slices at once reads memory once rather than once per slice.
    pub fn offsets_of(&self, slices: std::ops::RangeInclusive<u32>) -> Vec<Vec<i8>> {
        let (lo, hi) = (*slices.start() as usize, (*slices.end()).min(self.a_max) as usize);
        let n = self.n as usize;
        let mut out: Vec<Vec<i8>> = (lo..=hi).map(|a| Vec::with_capacity(n + 1 - a)).collect();
        if lo > hi {
            return out;
        }
        for (k, block) in self.blocks.iter().enumerate() {
            let b0 = k * self.bsize;
            for b in b0.max(lo)..(n + 1).min(b0 + self.bsize) {
                let column = &block[(b - b0) * self.h..];
                for a in lo..=hi.min(b) {
                    out[a - lo].push(column[a]);
                }
            }
        }
        out
    }

    /// [`Slices::offsets_i8`] widened to `i64`.
    pub fn offsets(&self, a: u32) -> Vec<i64> {
        self.offsets_i8(a).into_iter().map(i64::from).collect()
    }
}

/// A slice's proved eventual law: d_a(b + period) = d_a(b) for every b ≥ start, and no
/// smaller period or earlier start (b ≥ a) has that property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Law {
    /// The least eventual period, in middle heaps.
    pub period: u64,
    /// The earliest middle heap b ≥ a from which the period holds forever.
    pub start: u64,
}

/// A certificate that slice `slice` is periodic with period `repeat` from middle heap
/// `from` on, for ever: the window of used values at `from` and at `from + repeat` agree,
/// `modulus` divides `repeat`, and `from` is at least `settled_below`. Why that suffices
/// is the theorem below.
///
/// Theorem. For every a ≥ 0 the offsets d_a(b) = P(a, b) − b, b ≥ a, are eventually
/// periodic.
///
/// Proof, by induction on a. Fix a and suppose slices 0..a are eventually periodic:
/// slice a′ < a with period p_a′ from middle heap s_a′. Let 2^k be the least power of two
/// above a, L = lcm(2^k, p_0, …, p_{a−1}) and b₀ = max(a, 1, s_0, …, s_{a−1}) (the 1
/// because the empty board, b = a = 0, is the one place a ⊕ b is not excluded). Write
/// R_b = {P(a, b′) : b′ < b} for the slice's used values (b′ < a included, P(a, b′) =
/// P(b′, a)).
///
/// 1. *P(a, ·) is an involution*, since (a, b, c) lost means both P(a, b) = c and
///    P(a, c) = b; so its values are distinct.
/// 2. *The window.* Every offset of every slice x is at most x + 1 in size (see
///    [`Slices`]). So every value c < b − a − 1 is in R_b: its own partner P(a, c) lies
///    within a + 1 of c, below b, and P(a, P(a, c)) = c. And no value above b + a is:
///    P(a, b′) ≤ a + b′ + 1 ≤ a + b for b′ < b. Hence R_b is fixed by the window
///    W_b = {c − (b − a − 1) : c ∈ R_b} ∩ [0, 2a + 1], a set of 2a + 2 bits
///    ([`slice_window`]).
/// 3. *The step.* By the lemma on [`partner_bound`], for b ≥ a,
///    P(a, b) = mex(R_b ∪ C_b ∪ {a ⊕ b}) with C_b = {P(a′, b) : a′ < a}. The mex lies in
///    [b − a − 1, b + a + 1]. Relative to b, C_b − b = {d_a′(b) : a′ < a} depends only on
///    b mod L once b ≥ b₀ (each d_a′ has period p_a′ | L from s_a′ ≤ b₀), and
///    a ⊕ b − b depends only on b mod 2^k, which divides L. So d_a(b) is a function of
///    the state (W_b, b mod L); and W_{b+1} is W_b with P(a, b) added, shifted down one
///    (its lowest bit is set by step 2 and its new top bit is clear). The state at b + 1
///    is a function of the state at b.
/// 4. *Finiteness.* There are at most 2^(2a+2)·L states, so two states among the first
///    2^(2a+2)·L + 1 from b₀ coincide; from the first of them the states, and with them
///    the offsets, repeat. Slice a is eventually periodic, which completes the induction.
///
/// The base is slice 0 itself (no lower slices, L = 1, window of 2 bits): P(0, b) is the
/// two-heap mate. The same argument turns any repeat into a proof: if the states at b₁
/// and b₂ = b₁ + q agree, with b₁ ≥ b₀ and L | q, then d_a(b + q) = d_a(b) for every
/// b ≥ b₁, past any computed range. That is a [`Certificate`]. Its premises are the lower
/// slices' periods and starts, so a slice is proved only when every slice below it is.
/// The least period then divides q (two eventual periods give their gcd) and is read off
/// one repetition; the earliest start is found by walking back from b₁. ∎
///
/// Source: derived here; the argument is the one used for octal games with finite
/// memory (a recursion whose state is finite is eventually periodic), cf. Berlekamp,
/// Conway and Guy, *Winning Ways*, ch. 4, on periodicity of octal games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The slice a.
    pub slice: u32,
    /// b₁: the middle heap at which the state first is taken.
    pub from: u64,
    /// q = b₂ − b₁ ≥ 1: the state at b₁ + q equals the state at b₁.
    pub repeat: u64,
    /// L = lcm(2^k, proved periods of slices 0..a), 2^k the least power of two above a.
    pub modulus: u64,
    /// b₀ = max(a, 1, proved starts of slices 0..a).
    pub settled_below: u64,
}

/// L = lcm(2^k, `lower_periods`…) with 2^k the least power of two above `a`; `None` if it
/// overflows a u64 or some period is 0 (a period is at least 1). O(a log).
pub fn phase_modulus(a: u32, lower_periods: impl IntoIterator<Item = u64>) -> Option<u64> {
    let pow = 1u64.checked_shl(u64::BITS - (a as u64).leading_zeros())?;
    lower_periods.into_iter().try_fold(pow, lcm)
}

/// The least common multiple of two positive numbers, x / gcd(x, y) · y (the gcd is
/// [`crate::count::gcd`]); `None` if either is 0 or it overflows a u64.
fn lcm(x: u64, y: u64) -> Option<u64> {
    if x == 0 || y == 0 {
        return None;
    }
    let g = crate::count::gcd(x.into(), y.into());
    u64::try_from(u128::from(x) / g * u128::from(y)).ok()
}

/// The window W_b of slice `a` at middle heap `b`: bit i set when the value b − a − 1 + i
/// (i in 0..2a + 2) is some P(a, b′), b′ < b, read from `s`. Words of 64 bits, least bit
/// first. `None` unless a ≤ a_max and b ≤ N + 1 (the entries b′ < b must be computed).
/// O(a).
pub fn slice_window(s: &Slices, a: u32, b: u64) -> Option<Vec<u64>> {
    if a > s.a_max() || b > s.max_heap() as u64 + 1 {
        return None;
    }
    let width = 2 * a as u64 + 2;
    let mut w = vec![0u64; (width as usize).div_ceil(64)];
    let low = b as i64 - a as i64 - 1;
    for bp in b.saturating_sub(width)..b {
        let i = s.partner(a, bp as u32)? as i64 - low;
        if (0..width as i64).contains(&i) {
            w[i as usize / 64] |= 1 << (i % 64);
        }
    }
    Some(w)
}

impl Certificate {
    /// Look for a certificate of slice `a` given the proved laws of slices 0..a (`lower`,
    /// slice 0 first; `a` laws) and a candidate eventual period and start (read from the
    /// data, e.g. by [`Periodicity::longest_tail`]): the state is compared at
    /// b₁ = max(b₀, start + 2a + 2) and b₁ + lcm(period, L). `None` when `lower` is not
    /// complete, the range is too short (or b₁ would overflow a u64), or the states differ.
    /// O(a + log).
    pub fn find(s: &Slices, a: u32, lower: &[Law], period: u64, start: u64) -> Option<Certificate> {
        if lower.len() != a as usize || period == 0 {
            return None;
        }
        let modulus = phase_modulus(a, lower.iter().map(|l| l.period))?;
        let settled_below = settled_below(a, lower);
        let repeat = lcm(period, modulus)?;
        let from = settled_below.max(start.checked_add(2 * u64::from(a) + 2)?);
        let c = Certificate { slice: a, from, repeat, modulus, settled_below };
        c.holds(s, lower).then_some(c)
    }

    /// True when the certificate's premises hold in `s` with the lower slices' proved laws
    /// `lower` (slices 0..a): the modulus and b₀ are the ones `lower` gives, b₁ ≥ b₀,
    /// L | q, b₁ + q ≤ N + 1 (computed without overflow: a sum past `u64::MAX` is refused,
    /// never wrapped), and the windows at b₁ and b₁ + q agree. O(a + log).
    pub fn holds(&self, s: &Slices, lower: &[Law]) -> bool {
        let a = self.slice;
        let Some(to) = self.from.checked_add(self.repeat) else {
            return false;
        };
        lower.len() == a as usize
            && phase_modulus(a, lower.iter().map(|l| l.period)) == Some(self.modulus)
            && settled_below(a, lower) == self.settled_below
            && self.from >= self.settled_below
            && self.repeat > 0
            && self.repeat.is_multiple_of(self.modulus)
            && to <= u64::from(s.max_heap()) + 1
            && slice_window(s, a, self.from).is_some_and(|w| slice_window(s, a, to) == Some(w))
    }

    /// The law the certificate proves: the least period (a divisor of q, read off the one
    /// repetition d(b₁..b₁ + q) by its Z-function) and the earliest start (walking back
    /// from b₁ while the period holds). It is a proved law only when the certificate
    /// [`holds`](Self::holds) in `s`; `None` when q is 0 or b₁ + q is past the range of
    /// `s` (as it is for no certificate that holds). O(q + b₁).
    pub fn law(&self, s: &Slices) -> Option<Law> {
        let a = self.slice;
        let end = self.from.checked_add(self.repeat).filter(|&e| self.repeat > 0 && e <= u64::from(s.max_heap()) + 1)?;
        let d = |b: u64| s.partner(a, u32::try_from(b).ok()?).map(|c| i64::from(c) - b as i64);
        let one: Vec<i64> = (self.from..end).map(d).collect::<Option<_>>()?;
        let z = z_function(&one);
        let q = one.len();
        let period = (1..q).find(|&p| q.is_multiple_of(p) && z[p] == q - p).unwrap_or(q) as u64;
        let mut start = self.from;
        while start > u64::from(a) && d(start - 1) == d(start - 1 + period) {
            start -= 1;
        }
        Some(Law { period, start })
    }
}

/// b₀ = max(a, 1, starts of the lower slices' laws): the middle heap from which every
/// slice below `a` is periodic and a ⊕ b is excluded (b ≥ 1). O(a).
fn settled_below(a: u32, lower: &[Law]) -> u64 {
    lower.iter().map(|l| l.start).fold(u64::from(a.max(1)), u64::max)
}

impl Law {
    /// The offset P(a, b) − b the law predicts for any b ≥ `start`, read from one period
    /// of `s` (which must hold middle heaps start..start + period of slice `a`). `None`
    /// when b < start, the period is 0 or that middle heap is past `s`.
    pub fn predict(&self, s: &Slices, a: u32, b: u64) -> Option<i64> {
        let phase = b.checked_sub(self.start)?.checked_rem(self.period)?;
        let at = self.start.checked_add(phase)?;
        s.partner(a, u32::try_from(at).ok()?).map(|c| i64::from(c) - at as i64)
    }
}

/// Certify slices 0..=A of `s` in order: slice a with the laws of slices 0..a and the
/// candidate `candidates[a]` (period, start), as [`Certificate::find`]. The result has
/// one entry per slice; from the first slice without a certificate on, every entry is
/// `None` (a slice is proved only when every slice below it is).
pub fn certify_slices(s: &Slices, candidates: &[Option<(u64, u64)>]) -> Vec<Option<(Certificate, Law)>> {
    let mut laws: Vec<Law> = Vec::new();
    let mut out = Vec::new();
    for a in 0..=s.a_max() {
        let got = if laws.len() == a as usize {
            candidates.get(a as usize).copied().flatten().and_then(|(p, st)| Certificate::find(s, a, &laws, p, st))
        } else {
            None
        };
        let got = got.and_then(|c| Some((c, c.law(s)?)));
        if let Some((_, law)) = got {
            laws.push(law);
        }
        out.push(got);
    }
    out
}

/// The Z-function of `s`: z[i] = length of the longest common prefix of `s` and `s[i..]`
/// (z[0] = s.len()). O(n). Source: Gusfield, *Algorithms on Strings, Trees and
/// Sequences* (1997), §1.4.
pub fn z_function<T: PartialEq>(s: &[T]) -> Vec<usize> {
    let n = s.len();
    let mut z = vec![0usize; n];
    if n == 0 {
        return z;
    }
    z[0] = n;
    let (mut l, mut r) = (0usize, 0usize);
    for i in 1..n {
        let mut k = if i < r { (r - i).min(z[i - l]) } else { 0 };
        while i + k < n && s[k] == s[i + k] {
            k += 1;
        }
        z[i] = k;
        if i + k > r {
            l = i;
            r = i + k;
        }
    }
    z
}

/// An eventual period of a sequence: from index `start` on, s[i] = s[i + period].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The period p ≥ 1.
    pub period: usize,
    /// Earliest index (0-based into the sequence) from which the period holds to the end.
    pub start: usize,
    /// Length of the periodic tail, len − start.
    pub tail: usize,
}

/// Eventual periods of one sequence, by the Z-function of the reversed sequence.
///
/// A tail of length L has period p exactly when the reversed sequence r agrees with
/// r shifted by p on its first L − p terms, i.e. when Z_r[p] ≥ L − p; so the longest tail
/// with period p has length p + Z_r[p], and one Z-function (O(n)) gives it for every p at
/// once. No period is tried in turn.
///
/// Acceptance rule (the source essay's): a period p is accepted when its longest tail
/// covers at least three periods (L ≥ 3p) and runs at least `min_run` terms past its
/// start (L − 1 ≥ `min_run`; the essay uses 20); p ranges over 1..=min(`max_period`,
/// n / 3).
pub struct Periodicity {
    /// tail[p] = length of the longest tail with period p (index 0 unused).
    tail: Vec<usize>,
    len: usize,
}

impl Periodicity {
    /// Analyse `s` for periods up to `max_period` (and at most `s.len() / 3`). O(n).
    pub fn new<T: PartialEq + Copy>(s: &[T], max_period: usize) -> Periodicity {
        let n = s.len();
        let pmax = max_period.min(n / 3);
        // The Z-function of the reversed sequence r, computed only for shifts 1..=pmax
        // (each z[i] needs only z at smaller shifts).
        let r: Vec<T> = s.iter().rev().copied().collect();
        let mut z = vec![0u32; pmax + 1];
        let (mut l, mut rr) = (0usize, 0usize);
        for i in 1..=pmax {
            let mut k = if i < rr { (rr - i).min(z[i - l] as usize) } else { 0 };
            while i + k < n && r[k] == r[i + k] {
                k += 1;
            }
            z[i] = k as u32;
            if i + k > rr {
                l = i;
                rr = i + k;
            }
        }
        let tail = (0..=pmax).map(|p| if p == 0 { 0 } else { (p + z[p] as usize).min(n) }).collect();
        Periodicity { tail, len: n }
    }

    fn accepted(&self, p: usize, min_run: usize) -> Option<Period> {
        let l = self.tail[p];
        (l >= 3 * p && l > min_run).then_some(Period { period: p, start: self.len - l, tail: l })
    }

    /// The smallest accepted period with its earliest start, if any.
    pub fn smallest(&self, min_run: usize) -> Option<Period> {
        (1..self.tail.len()).find_map(|p| self.accepted(p, min_run))
    }

    /// The accepted period whose periodic tail is longest (the smallest such period on a
    /// tie), if any.
    pub fn longest_tail(&self, min_run: usize) -> Option<Period> {
        let mut best: Option<Period> = None;
        for p in 1..self.tail.len() {
            if let Some(q) = self.accepted(p, min_run) {
                if best.is_none_or(|b| q.tail > b.tail) {
                    best = Some(q);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// lcm against the plain search for the least common multiple, and its `None`s.
    #[test]
    fn lcm_is_the_least_common_multiple_and_none_on_zero_or_overflow() {
        for x in 1..40u64 {
            for y in 1..40u64 {
                let least = (1..=x * y).find(|m| m % x == 0 && m % y == 0);
                assert_eq!(lcm(x, y), least, "lcm({x}, {y})");
            }
        }
        assert_eq!(lcm(0, 5), None);
        assert_eq!(lcm(5, 0), None);
        assert_eq!(lcm(1 << 32, 1 << 32), Some(1 << 32));
        assert_eq!(lcm(u64::MAX, u64::MAX - 1), None);
        assert_eq!(lcm(u64::MAX, 1), Some(u64::MAX));
    }

    #[test]
    fn one_heap_formula_matches_recursion_to_40() {
        let mut r = Recursion::new();
        for h in 0..=40 {
            assert_eq!(r.value(&[h], true), one_heap_value(h), "first difference at heap {h}");
        }
    }

    #[test]
    fn two_heap_formula_matches_recursion_to_24() {
        let mut r = Recursion::new();
        for x in 0..=24 {
            for y in 0..=24 {
                assert_eq!(r.is_loss(&[x, y]), is_two_heap_loss(x, y), "first difference at ({x}, {y})");
            }
        }
    }

    #[test]
    fn positions_without_token_are_nim() {
        let mut r = Recursion::new();
        for a in 0..6 {
            for b in 0..6 {
                for c in 0..6 {
                    assert_eq!(r.value(&[a, b, c], false), a ^ b ^ c, "({a}, {b}, {c})");
                }
            }
        }
    }

    #[test]
    fn table_matches_recursion_on_every_triple_to_40() {
        let n = 40u32;
        let t = PartnerTable::build(n, |_| true).unwrap();
        let mut r = Recursion::new();
        for a in 0..=n {
            for b in a..=n {
                for c in b..=n {
                    let rec = r.is_loss(&[a as u64, b as u64, c as u64]);
                    assert_eq!(t.is_loss(a, b, c), rec, "first difference at ({a}, {b}, {c})");
                    assert_eq!(t.is_loss(c, a, b), rec, "symmetry at ({a}, {b}, {c})");
                }
            }
        }
    }

    #[test]
    fn partner_exists_and_is_bounded() {
        // With the table to n, every pair x, y with x + y + 1 ≤ n has its partner in range.
        let n = 120u32;
        let t = PartnerTable::build(n, |_| true).unwrap();
        for x in 0..=n {
            for y in 0..=n {
                if x + y < n {
                    let p = t.partner(x, y);
                    assert!(p.is_some(), "no partner for ({x}, {y})");
                    assert!(p.unwrap() as u64 <= partner_bound(x as u64, y as u64), "({x}, {y})");
                }
            }
        }
        assert_eq!(t.triples(), 121 * 122 * 123 / 6);
    }

    #[test]
    fn slices_match_table_on_every_pair_to_300() {
        // Every slice the method allows (a ≤ 126), every middle heap to 300.
        let n = 300u32;
        let t = PartnerTable::build(n, |_| true).unwrap();
        let s = Slices::compute(SLICES_MAX, n, |_, _| true).unwrap();
        for x in 0..=SLICES_MAX {
            for y in x..=n {
                let sp = s.partner(x, y).unwrap();
                let sym = s.partner(y, x).unwrap();
                assert_eq!(sp, sym, "slice symmetry at ({x}, {y})");
                match t.partner(x, y) {
                    Some(c) => assert_eq!(sp, c, "first difference at pair ({x}, {y})"),
                    None => assert!(sp > n, "pair ({x}, {y}): slices give {sp} ≤ {n}, table none"),
                }
            }
        }
    }

    #[test]
    fn slices_match_recursion_on_small_pairs() {
        let s = Slices::compute(6, 10, |_, _| true).unwrap();
        let mut r = Recursion::new();
        for a in 0..=6u32 {
            for b in a..=10u32 {
                let c = s.partner(a, b).unwrap();
                assert!(r.is_loss(&[a as u64, b as u64, c as u64]), "({a}, {b}, {c}) not lost");
                assert!(c as u64 <= partner_bound(a as u64, b as u64), "({a}, {b}, {c}) over the bound");
            }
        }
    }

    #[test]
    fn pipelined_blocks_and_groups_change_nothing() {
        // Blocks of 32 heaps and 1 to 5 groups against one block and one group.
        let (a, n) = (12u32, 3000u32);
        let one = Slices::compute_in(a, n, 1 << 20, 1, |_, _| true).unwrap();
        for groups in 1..=5 {
            let s = Slices::compute_in(a, n, 32, groups, |_, _| true).unwrap();
            for x in 0..=a {
                for y in 0..=n {
                    assert_eq!(s.partner(x, y), one.partner(x, y), "{groups} groups, pair ({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn offsets_stay_within_a_plus_one() {
        let s = Slices::compute(12, 5000, |_, _| true).unwrap();
        let together = Slices::compute_in(12, 5000, 32, 2, |_, _| true).unwrap().offsets_of(3..=20);
        assert_eq!(together.len(), 10);
        for a in 0..=12u32 {
            let wide: Vec<i64> = (a..=5000).map(|b| s.partner(a, b).unwrap() as i64 - b as i64).collect();
            assert_eq!(s.offsets(a), wide, "slice {a}");
            if let Some(many) = together.get((a as usize).wrapping_sub(3)) {
                let many: Vec<i64> = many.iter().map(|&d| d as i64).collect();
                assert_eq!(many, wide, "slice {a} read with slices 3..=12, blocks of 32 heaps");
            }
            for (i, &d) in s.offsets(a).iter().enumerate() {
                assert!(d.abs() <= a as i64 + 1, "slice {a}, middle heap {}: offset {d}", a as usize + i);
            }
        }
    }

    #[test]
    fn slice_zero_is_the_two_heap_rule() {
        let s = Slices::compute(0, 200, |_, _| true).unwrap();
        for b in 0..=200u32 {
            assert_eq!(s.partner(0, b).unwrap() as u64, two_heap_mate(b as u64), "b = {b}");
        }
    }

    /// The laws of slices 0..=A of `s`, proved in order on the longest-tail candidates.
    fn proved_laws(s: &Slices) -> Vec<Option<(Certificate, Law)>> {
        let candidates: Vec<Option<(u64, u64)>> = (0..=s.a_max())
            .map(|a| {
                Periodicity::new(&s.offsets_i8(a), usize::MAX).longest_tail(20).map(|p| (p.period as u64, (p.start + a as usize) as u64))
            })
            .collect();
        certify_slices(s, &candidates)
    }

    #[test]
    fn certificates_predict_the_plain_recursion_beyond_their_range() {
        // Certificates made on middle heaps up to 40 predict the partners of slices 0..=4
        // up to 80; the plain recursion confirms every predicted triple is lost.
        let s = Slices::compute(4, 40, |_, _| true).unwrap();
        let proved = proved_laws(&s);
        let laws: Vec<Law> = proved.iter().map(|p| p.expect("slices 0..=4 settle by 40").1).collect();
        let periods: Vec<(u64, u64)> = laws.iter().map(|l| (l.period, l.start)).collect();
        assert_eq!(periods, vec![(2, 1), (1, 3), (4, 9), (4, 10), (8, 10)]);
        let mut r = Recursion::new();
        for (a, law) in laws.iter().enumerate() {
            for b in law.start..=80 {
                let c = (b as i64 + law.predict(&s, a as u32, b).unwrap()) as u64;
                assert!(r.is_loss(&[a as u64, b, c]), "slice {a}: predicted ({a}, {b}, {c}) is not lost");
            }
        }
    }

    #[test]
    fn certificates_at_twenty_thousand_predict_every_offset_to_two_hundred_thousand() {
        let small = Slices::compute(16, 20_000, |_, _| true).unwrap();
        let large = Slices::compute(16, 200_000, |_, _| true).unwrap();
        let proved = proved_laws(&small);
        assert!(proved.iter().all(|p| p.is_some()), "slices 0..=16 are proved by 20,000");
        for (a, p) in proved.iter().enumerate() {
            let (cert, law) = p.unwrap();
            assert!(cert.repeat % law.period == 0 && cert.repeat % cert.modulus == 0, "slice {a}");
            let a = a as u32;
            for b in law.start..=200_000u64 {
                let got = large.partner(a, b as u32).unwrap() as i64 - b as i64;
                assert_eq!(law.predict(&small, a, b), Some(got), "slice {a}, middle heap {b}");
            }
            // The start is the earliest: one heap before it the period fails.
            if law.start > a as u64 {
                let d = |b: u64| large.partner(a, b as u32).unwrap() as i64 - b as i64;
                assert_ne!(d(law.start - 1), d(law.start - 1 + law.period), "slice {a} starts earlier");
            }
        }
    }

    #[test]
    fn a_certificate_whose_premises_fail_is_refused() {
        let s = Slices::compute(12, 3000, |_, _| true).unwrap();
        let proved = proved_laws(&s);
        let laws: Vec<Law> = proved.iter().map(|p| p.unwrap().1).collect();
        let (good, _) = proved[10].unwrap();
        assert!(good.holds(&s, &laws[..10]));
        // Slice 10's state at 40 recurs at 200 (period 160) but the windows at 40 and 120
        // differ, and 120 is a multiple of the modulus 80 but not a period.
        assert_eq!((good.from, good.repeat, good.modulus), (40, 160, 80));
        assert!(!Certificate { repeat: 80, ..good }.holds(&s, &laws[..10]));
        assert!(!Certificate { repeat: 40, modulus: 40, ..good }.holds(&s, &laws[..10]), "a wrong modulus");
        assert!(!Certificate { from: 21, ..good }.holds(&s, &laws[..10]), "a state taken before the slices below settle");
        assert!(!Certificate { from: 3000, ..good }.holds(&s, &laws[..10]), "past the range");
        assert!(!good.holds(&s, &laws[..9]), "without every slice below");
        let mut wrong = laws[..10].to_vec();
        wrong[9].period = 30;
        assert!(!good.holds(&s, &wrong), "another period below");
        let mut wrong = laws[..10].to_vec();
        wrong[9].start = 30;
        assert!(!good.holds(&s, &wrong), "another start below");
        // Slice 0's state may not be taken at the empty board, where a ⊕ b is not excluded.
        let (zero, _) = proved[0].unwrap();
        assert_eq!(zero.settled_below, 1);
        assert!(!Certificate { from: 0, settled_below: 0, ..zero }.holds(&s, &[]));
        // A range too short for slice 11 to show its period (three periods of 160 from 336
        // need 816) proves nothing from slice 11 on.
        let short = Slices::compute(12, 560, |_, _| true).unwrap();
        let proved = proved_laws(&short);
        assert!(proved[..11].iter().all(|p| p.is_some()));
        assert!(proved[11..].iter().all(|p| p.is_none()));
    }

    #[test]
    fn a_certificate_whose_end_overflows_a_u64_is_refused() {
        // Slice 9 has period 10; its modulus is 16. A repeat of 2^64 − 80 is a multiple of
        // 16 but not of 10, and b₁ + q = 200 + 2^64 − 80 wraps to 120, whose window equals
        // the one at 200 (80 is a period). The end must be refused, not wrapped.
        let s = Slices::compute(9, 400, |_, _| true).unwrap();
        let laws: Vec<Law> = proved_laws(&s).iter().map(|p| p.expect("slices 0..=9 settle by 400").1).collect();
        assert_eq!(laws[9].period, 10);
        let repeat = u64::MAX - 79;
        let cert = Certificate { slice: 9, from: 200, repeat, modulus: 16, settled_below: settled_below(9, &laws[..9]) };
        assert_eq!(phase_modulus(9, laws[..9].iter().map(|l| l.period)), Some(16));
        assert!(repeat.is_multiple_of(16) && !repeat.is_multiple_of(10) && cert.from >= cert.settled_below);
        assert_eq!(slice_window(&s, 9, 200), slice_window(&s, 9, 200u64.wrapping_add(repeat)), "the wrapped end's window");
        assert!(!cert.holds(&s, &laws[..9]), "b₁ + q past u64::MAX");
        assert_eq!(cert.law(&s), None, "no law from an end past u64::MAX");
        assert_eq!(Certificate { repeat: 0, ..cert }.law(&s), None, "no law from a repeat of 0");
        assert_eq!(Certificate { repeat: 202, ..cert }.law(&s), None, "no law from an end past the range");
        // A candidate start whose b₁ = start + 2a + 2 overflows gives no certificate.
        assert_eq!(Certificate::find(&s, 9, &laws[..9], 10, u64::MAX - 5), None);
        // A period of 0 is no law: no modulus, no prediction (and no division by zero).
        assert_eq!(phase_modulus(3, [0, 0]), None);
        assert_eq!(phase_modulus(3, [2, 0]), None);
        let none = [Law { period: 0, start: 1 }; 9];
        assert!(!Certificate { modulus: 0, ..cert }.holds(&s, &none));
        assert_eq!(Law { period: 0, start: 9 }.predict(&s, 9, 30), None);
    }

    /// The lost positions (token present) of three-heap Nim with a held pass whose
    /// smallest heap is at most `a_max` and whose heaps are all at most `m`, by the plain
    /// game-tree search on the definition: a position is lost exactly when no option is
    /// lost. The options are every reduction of one heap and, unless every heap is empty,
    /// the pass, which leaves Nim without the token, lost exactly when its nim-sum is 0
    /// (Bouton; `positions_without_token_are_nim` checks it). Sorted triples are settled
    /// in increasing (largest, middle, smallest) order, in which every option (sorted) comes
    /// first, and its smallest heap is at most the position's. No mex, partner, bound or
    /// slice enters: independent of [`Slices`], [`PartnerTable`] and the certificates.
    /// Cost O(a_max · m³) lookups.
    struct GameTree {
        m: usize,
        lost: Vec<bool>,
    }

    impl GameTree {
        fn new(a_max: usize, m: usize) -> GameTree {
            let w = m + 1;
            let mut t = GameTree { m, lost: vec![false; (a_max + 1) * w * w] };
            for z in 0..=m {
                for y in 0..=z {
                    for x in 0..=y.min(a_max) {
                        let pass_wins = z > 0 && x ^ y ^ z == 0;
                        let lost = !pass_wins
                            && !(0..x).any(|v| t.is_lost([v, y, z]))
                            && !(0..y).any(|v| t.is_lost([x, v, z]))
                            && !(0..z).any(|v| t.is_lost([x, y, v]));
                        t.lost[(x * w + y) * w + z] = lost;
                    }
                }
            }
            t
        }

        fn is_lost(&self, mut h: [usize; 3]) -> bool {
            h.sort_unstable();
            let w = self.m + 1;
            self.lost[(h[0] * w + h[1]) * w + h[2]]
        }

        /// The offsets P(a, b) − b of slice a for b = a..=`last`, P(a, b) being the one
        /// heap z ≤ m with (a, b, z) lost (asserted unique and present).
        fn offsets(&self, a: usize, last: usize) -> Vec<i64> {
            (a..=last)
                .map(|b| {
                    let zs: Vec<usize> = (0..=self.m).filter(|&z| self.is_lost([a, b, z])).collect();
                    assert_eq!(zs.len(), 1, "({a}, {b}, z) lost for z in {zs:?}, z ≤ {}", self.m);
                    zs[0] as i64 - b as i64
                })
                .collect()
        }
    }

    /// The law of a sequence d(a), d(a + 1), … (given as `d`, indexed from middle heap `a`)
    /// by direct comparison: the least period p whose longest periodic tail starts in the
    /// first half of the data and covers at least three periods, with that tail's start.
    fn law_of_data(a: u64, d: &[i64]) -> Law {
        let n = d.len();
        (1..=n / 3)
            .find_map(|p| {
                let mut s = n - p;
                while s > 0 && d[s - 1] == d[s - 1 + p] {
                    s -= 1;
                }
                (s <= n / 2 && n - s >= 3 * p).then_some(Law { period: p as u64, start: a + s as u64 })
            })
            .expect("every small slice shows its period in the data")
    }

    /// The true laws of slices 0..=`a_max`, read off the game tree with heaps to `m` (slice
    /// a's offsets to middle heap m − a − 1, whose partners are at most m).
    fn game_tree_laws(a_max: u32, m: usize) -> Vec<Law> {
        let t = GameTree::new(a_max as usize, m);
        (0..=a_max as usize).map(|a| law_of_data(a as u64, &t.offsets(a, m - a - 1))).collect()
    }

    #[test]
    fn certified_laws_are_the_game_trees_laws() {
        // Slices 0..=9 certified on middle heaps to 400 against their laws read off the
        // game tree with heaps to 400.
        let s = Slices::compute(9, 400, |_, _| true).unwrap();
        let certified: Vec<Option<Law>> = proved_laws(&s).iter().map(|p| p.map(|(_, l)| l)).collect();
        let truth: Vec<Option<Law>> = true_laws().iter().copied().map(Some).collect();
        assert_eq!(certified, truth);
    }

    /// The search range: slices 0..=SEARCH_A on middle heaps to SEARCH_N.
    const SEARCH_A: u32 = 9;
    const SEARCH_N: u32 = 160;

    /// The true laws of slices 0..=SEARCH_A (from the game tree with heaps to 400) and
    /// the slices to SEARCH_N, checked entry by entry against the game tree.
    fn search_setup() -> (Vec<Law>, Slices) {
        let (a_max, n) = (SEARCH_A as usize, SEARCH_N as usize);
        let tree = GameTree::new(a_max, n + a_max + 1);
        let s = Slices::compute(SEARCH_A, SEARCH_N, |_, _| true).unwrap();
        for a in 0..=a_max {
            assert_eq!(s.offsets(a as u32), tree.offsets(a, n), "slice {a}: the slices' partners are the game tree's");
        }
        (true_laws().to_vec(), s)
    }

    /// The true laws of slices 0..=SEARCH_A, read off the game tree with heaps to 400
    /// (computed once for all the tests).
    fn true_laws() -> &'static [Law] {
        static LAWS: std::sync::OnceLock<Vec<Law>> = std::sync::OnceLock::new();
        LAWS.get_or_init(|| game_tree_laws(SEARCH_A, 400))
    }

    /// L and b₀ of slice a computed plainly from the lower laws: 2^k by doubling until it
    /// exceeds a, the lcm by stepping through multiples, b₀ = max(a, 1, starts).
    fn plain_modulus_and_settled(a: u32, lower: &[Law]) -> (u64, u64) {
        let mut pow = 1u64;
        while pow <= u64::from(a) {
            pow *= 2;
        }
        let modulus = lower.iter().fold(pow, |l, law| (1..).map(|k| k * l).find(|m| m % law.period == 0).unwrap());
        let settled = lower.iter().map(|l| l.start).chain([u64::from(a), 1]).max().unwrap();
        (modulus, settled)
    }

    #[test]
    fn slice_window_is_the_used_values_around_b() {
        // W_b of slice a by its definition from the game tree: bit i set when the value
        // b − a − 1 + i (i < 2a + 2) is P(a, b′) for some b′ < b.
        let (a_max, n) = (SEARCH_A as usize, SEARCH_N as usize);
        let tree = GameTree::new(a_max, n + a_max + 1);
        let s = Slices::compute(SEARCH_A, SEARCH_N, |_, _| true).unwrap();
        for a in 0..=a_max {
            let partners: Vec<usize> = (0..=n).map(|bp| (0..=tree.m).find(|&z| tree.is_lost([a, bp, z])).unwrap()).collect();
            let width = 2 * a + 2;
            for b in 0..=n + 1 {
                let mut want = vec![0u64; width.div_ceil(64)];
                for i in 0..width {
                    if (b + i).checked_sub(a + 1).is_some_and(|v| partners[..b].contains(&v)) {
                        want[i / 64] |= 1 << (i % 64);
                    }
                }
                assert_eq!(slice_window(&s, a as u32, b as u64), Some(want), "slice {a}, middle heap {b}");
            }
        }
        assert_eq!(slice_window(&s, SEARCH_A + 1, u64::from(SEARCH_A) + 1), None, "a slice past A");
        assert_eq!(slice_window(&s, 0, u64::from(SEARCH_N) + 2), None, "a middle heap past N + 1");
    }

    #[test]
    fn every_certificate_the_checker_accepts_is_a_true_law() {
        // Every certificate of slices 0..=A on middle heaps to N (every b₁ ≤ N + 1, every
        // q ≥ 0 with b₁ + q ≤ N + 1), the lower slices' true laws as premises, the derived
        // fields (L, b₀) set as the checker demands them so that every certificate it can
        // accept is tried. An accepted certificate claims d(b + q) = d(b) for every
        // b ≥ b₁; with the true law (p, s) of the slice, read off the game tree, that is
        // true exactly when q > 0, p | q and b₁ ≥ s (the least eventual period divides
        // every eventual period, and q cannot start before s: d(s − 1 + q) = d(s − 1 + p)).
        // Each accepted certificate's law is then the true law (p, s). Conversely, every
        // certificate with the plain L and b₀, L | q, p | q, b₁ ≥ max(b₀, s + 2a + 2) (the
        // window at b₁ reads middle heaps from b₁ − 2a − 2, all past s) and b₁ + q ≤ N + 1
        // is a repeated state and must be accepted.
        let (truth, s) = search_setup();
        let n1 = u64::from(SEARCH_N) + 1;
        let (mut accepted, mut false_laws, mut wrong_laws, mut refused) = (0u64, Vec::new(), Vec::new(), Vec::new());
        for a in 0..=SEARCH_A {
            let lower = &truth[..a as usize];
            let law = truth[a as usize];
            let (plain_l, plain_b0) = plain_modulus_and_settled(a, lower);
            let asked = phase_modulus(a, lower.iter().map(|l| l.period)).map(|m| (m, settled_below(a, lower)));
            for from in 0..=n1 {
                for repeat in 0..=n1 - from {
                    let true_law = repeat > 0 && repeat.is_multiple_of(law.period) && from >= law.start;
                    if let Some((modulus, settled_below)) = asked {
                        let c = Certificate { slice: a, from, repeat, modulus, settled_below };
                        if c.holds(&s, lower) {
                            accepted += 1;
                            if !true_law {
                                false_laws.push((a, from, repeat));
                            } else if c.law(&s) != Some(law) {
                                wrong_laws.push((a, from, repeat, c.law(&s)));
                            }
                        }
                    }
                    let c = Certificate { slice: a, from, repeat, modulus: plain_l, settled_below: plain_b0 };
                    let repeated = true_law && repeat.is_multiple_of(plain_l) && from >= plain_b0.max(law.start + 2 * u64::from(a) + 2);
                    if repeated && !c.holds(&s, lower) {
                        refused.push((a, from, repeat));
                    }
                }
            }
        }
        assert!(accepted > 0, "the search accepts some certificate");
        let some = |v: &[(u32, u64, u64)]| v[..v.len().min(5)].to_vec();
        assert!(false_laws.is_empty(), "{} false laws accepted (slice, b₁, q), e.g. {:?}", false_laws.len(), some(&false_laws));
        assert!(
            wrong_laws.is_empty(),
            "{} true certificates give another law, e.g. {:?}",
            wrong_laws.len(),
            &wrong_laws[..wrong_laws.len().min(5)]
        );
        assert!(refused.is_empty(), "{} repeated states refused (slice, b₁, q), e.g. {:?}", refused.len(), some(&refused));
    }

    #[test]
    fn find_proposes_the_documented_certificate() {
        // For every slice of the search range and every candidate (period ≤ 24, start ≤
        // N): a certificate found is a true law, compared at b₁ = max(b₀, start + 2a + 2)
        // and b₁ + lcm(period, L) with the plain L and b₀; and with the true period and a
        // start at or past the true one, it is found whenever b₁ + q ≤ N + 1.
        let (truth, s) = search_setup();
        let n1 = u64::from(SEARCH_N) + 1;
        for a in 0..=SEARCH_A {
            let lower = &truth[..a as usize];
            let law = truth[a as usize];
            let (modulus, settled_below) = plain_modulus_and_settled(a, lower);
            assert_eq!(Certificate::find(&s, a, &truth[..a as usize + 1], law.period, law.start), None, "slice {a} with a law too many");
            assert_eq!(Certificate::find(&s, a, lower, 0, law.start), None, "slice {a} with period 0");
            for period in 1..=24u64 {
                let repeat = (1..).map(|k| k * period).find(|q| q % modulus == 0).unwrap();
                for start in 0..=u64::from(SEARCH_N) {
                    let from = settled_below.max(start + 2 * u64::from(a) + 2);
                    let want = Certificate { slice: a, from, repeat, modulus, settled_below };
                    match Certificate::find(&s, a, lower, period, start) {
                        Some(c) => {
                            assert_eq!(c, want, "slice {a}, candidate period {period} from {start}");
                            assert!(repeat % law.period == 0 && from >= law.start, "slice {a}: a false law {c:?}");
                        }
                        None => assert!(
                            period != law.period || start < law.start || from + repeat > n1,
                            "slice {a}: the true period {period} from {start} ({want:?}) is not found"
                        ),
                    }
                }
            }
        }
    }

    #[test]
    fn phase_modulus_is_the_lcm_with_a_power_of_two_above_a() {
        assert_eq!(phase_modulus(0, []), Some(1));
        assert_eq!(phase_modulus(1, [2]), Some(2));
        assert_eq!(phase_modulus(9, [2, 1, 4, 4, 8, 8, 8, 4, 8]), Some(16));
        assert_eq!(phase_modulus(10, [2, 1, 4, 4, 8, 8, 8, 4, 8, 10]), Some(80));
        assert_eq!(phase_modulus(3, [u64::MAX, u64::MAX - 1]), None);
    }

    #[test]
    fn z_function_small() {
        assert_eq!(z_function(b"aabxaab"), vec![7, 1, 0, 0, 3, 1, 0]);
        assert_eq!(z_function::<u8>(&[]), Vec::<usize>::new());
    }

    #[test]
    fn z_function_matches_direct_comparison_on_every_short_word() {
        // Every word of length ≤ 9 over three letters, against the common prefix of s and
        // s[i..] measured letter by letter.
        for len in 0..=9u32 {
            for code in 0..3usize.pow(len) {
                let w: Vec<usize> = (0..len).map(|j| code / 3usize.pow(j) % 3).collect();
                let naive: Vec<usize> = (0..w.len()).map(|i| w[i..].iter().zip(&w).take_while(|(x, y)| x == y).count()).collect();
                assert_eq!(z_function(&w), naive, "{w:?}");
            }
        }
    }

    fn naive_tail(s: &[i64], p: usize) -> usize {
        // longest tail with period p, by direct comparison
        let n = s.len();
        let mut l = p.min(n);
        while l < n && s[n - l - 1] == s[n - l - 1 + p] {
            l += 1;
        }
        l
    }

    #[test]
    fn periodicity_matches_direct_comparison() {
        let mut s: Vec<i64> = (0..37).map(|i| (i * i % 11) as i64).collect();
        for i in 0..60 {
            s.push([3, 1, -1, -3][i % 4]);
        }
        let per = Periodicity::new(&s, 1000);
        for p in 1..=s.len() / 3 {
            assert_eq!(per.tail[p], naive_tail(&s, p), "period {p}");
        }
        let got = per.smallest(20).unwrap();
        assert_eq!((got.period, got.start), (4, 37));
        let nothing = Periodicity::new(&s[..45], 1000);
        assert_eq!(nothing.smallest(20), None);
    }

    #[test]
    fn longest_tail_prefers_the_real_period() {
        // Period 30 (a run of 25 ones, then 2..=6) from index 5, the range ending inside a
        // run of ones: period 1 is accepted on the last 25 terms, period 30 on 145.
        let mut block = vec![1i64; 25];
        block.extend([2, 3, 4, 5, 6]);
        let mut s: Vec<i64> = (0..5).map(|i| 100 + i).collect();
        for _ in 0..4 {
            s.extend(&block);
        }
        s.extend(std::iter::repeat_n(1, 25));
        let per = Periodicity::new(&s, 1000);
        assert_eq!(per.smallest(20), Some(Period { period: 1, start: s.len() - 25, tail: 25 }));
        assert_eq!(per.longest_tail(20), Some(Period { period: 30, start: 5, tail: 145 }));
        // Halving the range removes the spurious period.
        let half = Periodicity::new(&s[..s.len() - 25], 1000);
        assert_eq!(half.smallest(20).map(|p| p.period), Some(30));
    }
}
