//! The index scheme (scheme 1 in `docs/FORMAT.md`): a bijection between the placements of a
//! material, up to left-right mirroring, and `0..entries_per_side`.
//!
//! - The two kings form one digit over the 45 *canonical king pairs*: the red king on file d, or
//!   on file e with the black king on file d or e. Every other pair is the mirror image of one of
//!   these, so a placement is mirrored first when its kings are not canonical. Pairs with both
//!   kings on file e are their own mirror image; their placements are indexed as they stand, so a
//!   placement and its mirror image both have entries there (the one redundancy, about 11%).
//! - Each group of identical pieces (same side and role, `count` of them) is one digit over the
//!   `C(n, count)` combinations of that piece's `n` legal squares (advisor 5, elephant 7, pawn 55,
//!   horse, rook and cannon 90), ranked in the combinatorial number system.
//! - Digits are mixed-radix, king pair most significant, then groups in slot order: red groups
//!   then black groups, each side in role order advisor, elephant, horse, rook, cannon, pawn.
//!
//! Placements where two pieces share a square, kings face each other, or the side not to move is
//! in check get entries too (marked illegal in the value array): ranking stays a few multiply-adds.

// The solver's half of the scheme (walking, re-ranking after a move) is unused by a build that
// only probes.
#![cfg_attr(not(feature = "generate"), allow(dead_code))]

use super::material::Material;
use crate::core::{Color, Piece, Position, Role, Setup, Square};

/// At most this many pieces in a table (kings included): room for family A's largest tables (11
/// pieces, like KRAABBvKAABB). 12 slots rather than 8 measured no slower (KRRvKN, one thread:
/// 7,186 and 7,204 ms against 7,114 and 7,203 ms of task clock).
pub const MAX_PIECES: usize = 12;
/// Most identical pieces in one group (five pawns).
const MAX_GROUP: usize = 5;

/// Squares by slot; slot 0 is the red king, slot 1 the black king, then the groups' pieces.
pub type Squares = [u8; MAX_PIECES];

/// `C(n, k)` for `n <= 90`, `k <= 5`.
static BINOM: [[u64; MAX_GROUP + 1]; 91] = {
    let mut t = [[0u64; MAX_GROUP + 1]; 91];
    let mut n = 0;
    while n <= 90 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_GROUP {
            t[n][k] = if n == 0 { 0 } else { t[n - 1][k - 1] + t[n - 1][k] };
            k += 1;
        }
        n += 1;
    }
    t
};

/// One digit of the index: `count` identical pieces over their legal squares.
#[derive(Clone, Debug)]
pub struct Group {
    /// The piece.
    pub piece: Piece,
    /// How many of it.
    pub count: usize,
    /// First slot of this group's pieces.
    pub first_slot: usize,
    /// Position of each square in the piece's legal square list, or 255.
    slot_of: [u8; 90],
    /// Number of combinations, `C(squares, count)`.
    pub size: u64,
    /// Place value of this digit.
    pub stride: u64,
    /// Squares of each combination, by rank (ascending squares).
    combos: Vec<[u8; MAX_GROUP]>,
}

/// The index layout of one (canonical) material.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The material.
    pub material: Material,
    /// The piece of each slot.
    pub pieces: Vec<Piece>,
    /// Groups of identical pieces, in index order.
    pub groups: Vec<Group>,
    /// King pair digit: `kp_index[red king][black king]`, 255 for a non-canonical pair.
    kp_index: Box<[[u8; 90]; 90]>,
    /// The canonical king pairs, by digit.
    pub king_pairs: Vec<(u8, u8)>,
    /// Product of the group sizes (the place value of the king pair digit).
    pub group_span: u64,
    /// Entries for one side to move; the file holds red-to-move entries then black-to-move.
    pub per_side: u64,
    /// The group of each non-king slot (for [`rerank`](Self::rerank)).
    slot_group: [u8; MAX_PIECES],
}

/// Is the king pair its own mirror image (both kings on file e)?
#[inline]
pub fn kings_symmetric(rk: u8, bk: u8) -> bool {
    rk % 9 == 4 && bk % 9 == 4
}

/// Must a placement with these kings be mirrored to reach its canonical form?
#[inline]
pub fn needs_mirror(rk: u8, bk: u8) -> bool {
    let (rf, bf) = (rk % 9, bk % 9);
    rf > 4 || (rf == 4 && bf > 4)
}

/// Entries (both sides to move) of a material's table under this scheme, computed from the piece
/// counts alone: the same figure as a layout's entry count but for any number of pieces (a layout is
/// limited to [`MAX_PIECES`]), saturating at `u64::MAX`. Used to plan generation.
pub fn entries_of(material: &Material) -> u64 {
    let mut total: u128 = 2 * 45;
    for color in Color::ALL {
        for role in [Role::Advisor, Role::Elephant, Role::Horse, Role::Rook, Role::Cannon, Role::Pawn] {
            let count = material.count(color, role) as usize;
            if count == 0 {
                continue;
            }
            let squares = Position::reachable_squares(Piece::new(color, role)).count() as usize;
            // The table only goes to 5 identical pieces, the most the rules allow (five pawns).
            let Some(&c) = BINOM.get(squares).and_then(|row| row.get(count)) else { return u64::MAX };
            total = total.saturating_mul(c as u128);
        }
    }
    u64::try_from(total).unwrap_or(u64::MAX)
}

/// The left-right mirror of a square index.
#[inline]
pub fn mirror_sq(sq: u8) -> u8 {
    sq - sq % 9 + (8 - sq % 9)
}

/// The rank flip (r -> 9 - r) of a square index.
#[inline]
pub fn flip_sq(sq: u8) -> u8 {
    (9 - sq / 9) * 9 + sq % 9
}

impl Layout {
    /// The layout of a canonical material.
    pub fn new(material: Material) -> Layout {
        let mut pieces = vec![Piece::new(Color::Red, Role::King), Piece::new(Color::Black, Role::King)];
        let mut groups = Vec::new();
        for color in Color::ALL {
            for role in [Role::Advisor, Role::Elephant, Role::Horse, Role::Rook, Role::Cannon, Role::Pawn] {
                let count = material.count(color, role) as usize;
                if count == 0 {
                    continue;
                }
                let piece = Piece::new(color, role);
                let squares: Vec<u8> =
                    Position::reachable_squares(piece).into_iter().map(|s| s.index() as u8).collect();
                let mut slot_of = [255u8; 90];
                for (i, &s) in squares.iter().enumerate() {
                    slot_of[s as usize] = i as u8;
                }
                let mut combos = Vec::new();
                colex(&squares, count, &mut [0usize; MAX_GROUP], &mut combos);
                let size = BINOM[squares.len()][count];
                debug_assert_eq!(size as usize, combos.len());
                groups.push(Group { piece, count, first_slot: pieces.len(), slot_of, size, stride: 0, combos });
                pieces.extend(std::iter::repeat_n(piece, count));
            }
        }
        let mut stride = 1;
        for g in groups.iter_mut().rev() {
            g.stride = stride;
            stride *= g.size;
        }
        let mut kp_index = Box::new([[255u8; 90]; 90]);
        let mut king_pairs = Vec::new();
        let rks = Position::reachable_squares(Piece::new(Color::Red, Role::King));
        let bks = Position::reachable_squares(Piece::new(Color::Black, Role::King));
        for rk in rks {
            for bk in bks {
                let (r, b) = (rk.index() as u8, bk.index() as u8);
                if !needs_mirror(r, b) {
                    kp_index[r as usize][b as usize] = king_pairs.len() as u8;
                    king_pairs.push((r, b));
                }
            }
        }
        let per_side = stride * king_pairs.len() as u64;
        let mut slot_group = [255u8; MAX_PIECES];
        for (gi, g) in groups.iter().enumerate() {
            slot_group[g.first_slot..g.first_slot + g.count].fill(gi as u8);
        }
        Layout { material, pieces, groups, kp_index, king_pairs, group_span: stride, per_side, slot_group }
    }

    /// Total entries (both sides to move).
    pub fn entries(&self) -> u64 {
        2 * self.per_side
    }

    /// Pieces, kings included.
    #[cfg(test)]
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    /// The squares of the placement with index `idx` (within one side to move).
    #[inline]
    pub fn unrank(&self, idx: u64, sq: &mut Squares) {
        // 32-bit division is several times faster than 64-bit, and every table up to 5 pieces
        // fits; the un-move loop unranks each frontier entry.
        let (kp, mut rest) = if self.per_side <= u32::MAX as u64 {
            ((idx as u32 / self.group_span as u32) as usize, (idx as u32 % self.group_span as u32) as u64)
        } else {
            ((idx / self.group_span) as usize, idx % self.group_span)
        };
        for g in self.groups.iter().rev() {
            let r = if rest <= u32::MAX as u64 {
                let (rest32, size32) = (rest as u32, g.size as u32);
                let r = rest32 % size32;
                rest = (rest32 / size32) as u64;
                r as usize
            } else {
                let r = (rest % g.size) as usize;
                rest /= g.size;
                r
            };
            self.place(g, r, sq);
        }
        let (rk, bk) = self.king_pairs[kp];
        sq[0] = rk;
        sq[1] = bk;
    }

    /// Puts a group's pieces on the squares of its combination number `r`.
    #[inline(always)]
    fn place(&self, g: &Group, r: usize, sq: &mut Squares) {
        let c = &g.combos[r];
        // A single piece is the common case; a variable-length slice copy would be a memmove
        // call on the generator's hottest path.
        if g.count == 1 {
            sq[g.first_slot] = c[0];
        } else {
            sq[g.first_slot..g.first_slot + g.count].copy_from_slice(&c[..g.count]);
        }
    }

    /// Calls `f(idx, &squares)` for every placement index in `range`, in order. An odometer over
    /// the digits: no division per entry, unlike [`unrank`](Self::unrank).
    pub fn walk(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, &Squares)) {
        if range.is_empty() {
            return;
        }
        let mut sq = [0u8; MAX_PIECES];
        self.unrank(range.start, &mut sq);
        let mut digits = [0usize; MAX_PIECES];
        let mut rest = range.start % self.group_span;
        for (gi, g) in self.groups.iter().enumerate().rev() {
            digits[gi] = (rest % g.size) as usize;
            rest /= g.size;
        }
        let mut kp = (range.start / self.group_span) as usize;
        for idx in range {
            f(idx, &sq);
            let mut gi = self.groups.len();
            loop {
                if gi == 0 {
                    kp += 1;
                    if let Some(&(rk, bk)) = self.king_pairs.get(kp) {
                        sq[0] = rk;
                        sq[1] = bk;
                    }
                    break;
                }
                gi -= 1;
                let g = &self.groups[gi];
                digits[gi] += 1;
                if digits[gi] as u64 == g.size {
                    digits[gi] = 0;
                    self.place(g, 0, &mut sq);
                    continue;
                }
                self.place(g, digits[gi], &mut sq);
                break;
            }
        }
    }

    /// The index of a placement (within one side to move), mirrored first if its kings are not
    /// canonical. `None` if a piece stands where it never can.
    #[inline]
    pub fn rank(&self, sq: &Squares) -> Option<u64> {
        let n = self.pieces.len();
        if needs_mirror(sq[0], sq[1]) {
            let mut m = *sq;
            for s in &mut m[..n] {
                *s = mirror_sq(*s);
            }
            self.rank_canonical(&m)
        } else {
            self.rank_canonical(sq)
        }
    }

    /// [`rank`](Self::rank) for a placement whose kings are already canonical.
    #[inline]
    pub fn rank_canonical(&self, sq: &Squares) -> Option<u64> {
        let kp = *self.kp_index.get(sq[0] as usize)?.get(sq[1] as usize)?;
        if kp == 255 {
            return None;
        }
        let mut idx = kp as u64 * self.group_span;
        for g in &self.groups {
            idx += self.group_rank(g, &sq[g.first_slot..g.first_slot + g.count])? * g.stride;
        }
        Some(idx)
    }

    /// The index of placement `sq` (ranked `idx`, kings canonical) after the non-king piece in
    /// `slot` moves to `to`: only that piece's group digit changes, so this is a few look-ups
    /// instead of a full [`rank_canonical`](Self::rank_canonical), which it equals. The
    /// generator's un-move loop spends most of its time here.
    #[inline]
    pub fn rerank(&self, idx: u64, sq: &Squares, slot: usize, to: u8) -> Option<u64> {
        let g = &self.groups[*self.slot_group.get(slot)? as usize];
        let (old, new) = if g.count == 1 {
            let new = *g.slot_of.get(to as usize)?;
            if new == 255 {
                return None;
            }
            (g.slot_of[sq[slot] as usize] as u64, new as u64)
        } else {
            // The old digit is in `idx` already; only the new combination needs ranking.
            let mut moved = *sq;
            moved[slot] = to;
            ((idx / g.stride) % g.size, self.group_rank(g, &moved[g.first_slot..g.first_slot + g.count])?)
        };
        Some(idx - old * g.stride + new * g.stride)
    }

    /// Combination rank of one group's squares (any order).
    #[inline]
    fn group_rank(&self, g: &Group, squares: &[u8]) -> Option<u64> {
        let mut s = [0u8; MAX_GROUP];
        for (i, &q) in squares.iter().enumerate() {
            let v = *g.slot_of.get(q as usize)?;
            if v == 255 {
                return None;
            }
            s[i] = v;
        }
        if squares.len() == 2 {
            // Two identical pieces (the common group of more than one): no sort needed.
            let (lo, hi) = if s[0] < s[1] { (s[0], s[1]) } else { (s[1], s[0]) };
            return Some(BINOM[lo as usize][1] + BINOM[hi as usize][2]);
        }
        let s = &mut s[..squares.len()];
        if s.len() > 1 {
            s.sort_unstable();
        }
        let mut r = 0;
        for (k, &v) in s.iter().enumerate() {
            r += BINOM[v as usize][k + 1];
        }
        Some(r)
    }

    /// Squares of a position of this material, by slot, after flipping colors if the position's
    /// material is this one's color swap. Returns the squares and the side to move as the table
    /// sees it (`None` if the position's material is neither this one nor its swap).
    pub fn squares_of(&self, pos: &Position) -> Option<(Squares, Color)> {
        let m = Material::from_position(pos);
        let swap = if m == self.material {
            false
        } else if m.swapped() == self.material {
            true
        } else {
            return None;
        };
        self.squares_swapped(pos, swap)
    }

    /// [`squares_of`](Self::squares_of) when the caller knows whether colors are swapped.
    #[inline]
    pub fn squares_swapped(&self, pos: &Position, swap: bool) -> Option<(Squares, Color)> {
        let mut sq = [0u8; MAX_PIECES];
        let place = |s: Square| if swap { flip_sq(s.index() as u8) } else { s.index() as u8 };
        for color in Color::ALL {
            let real = if swap { !color } else { color };
            let k = pos.pieces(Piece::new(real, Role::King)).first()?;
            sq[color.index()] = place(k);
        }
        for g in &self.groups {
            let real = if swap { Piece::new(!g.piece.color, g.piece.role) } else { g.piece };
            let bb = pos.pieces(real);
            if bb.count() as usize != g.count {
                return None;
            }
            for (i, s) in bb.into_iter().enumerate() {
                sq[g.first_slot + i] = place(s);
            }
        }
        let turn = if swap { !pos.turn() } else { pos.turn() };
        Some((sq, turn))
    }

    /// The full index of a position whose material is this one (`swap` false) or its color swap.
    #[inline]
    pub fn index_swapped(&self, pos: &Position, swap: bool) -> Option<u64> {
        let (sq, turn) = self.squares_swapped(pos, swap)?;
        Some(turn.index() as u64 * self.per_side + self.rank(&sq)?)
    }

    /// The full index (side to move included) of a position of this material or its color swap.
    pub fn index_of(&self, pos: &Position) -> Option<u64> {
        let (sq, turn) = self.squares_of(pos)?;
        Some(turn.index() as u64 * self.per_side + self.rank(&sq)?)
    }

    /// The setup of an entry's placement (no validation; squares may coincide, in which case the
    /// later slot wins) with the given side to move.
    pub fn setup(&self, sq: &Squares, turn: Color) -> Setup {
        let mut setup = Setup::empty();
        for (slot, piece) in self.pieces.iter().enumerate() {
            setup.set(Square::from_index_unchecked(sq[slot] as usize), Some(*piece));
        }
        setup.turn = turn;
        setup
    }

    /// The setup of full entry `entry` (red-to-move entries first): `None` past the end and for
    /// placements where two pieces share a square.
    pub fn entry_setup(&self, entry: u64) -> Option<Setup> {
        if entry >= 2 * self.per_side {
            return None;
        }
        let mut sq = [0u8; MAX_PIECES];
        self.unrank(entry % self.per_side, &mut sq);
        let turn = if entry < self.per_side { Color::Red } else { Color::Black };
        (!self.overlapping(&sq)).then(|| self.setup(&sq, turn))
    }

    /// Do two pieces share a square?
    pub fn overlapping(&self, sq: &Squares) -> bool {
        let mut seen = 0u128;
        for &s in &sq[..self.pieces.len()] {
            if seen >> s & 1 != 0 {
                return true;
            }
            seen |= 1 << s;
        }
        false
    }
}

/// All k-subsets of `squares` in colex order, the order of the combinatorial number system
/// (rank `sum C(i_j, j + 1)` over the subset's ascending positions `i_j`).
fn colex(squares: &[u8], k: usize, idx: &mut [usize; MAX_GROUP], out: &mut Vec<[u8; MAX_GROUP]>) {
    let n = squares.len();
    let total = BINOM[n][k];
    for r in 0..total {
        // Unrank r greedily from the largest element down.
        let mut rest = r;
        let mut top = n;
        for j in (0..k).rev() {
            let mut v = top - 1;
            while BINOM[v][j + 1] > rest {
                v -= 1;
            }
            idx[j] = v;
            rest -= BINOM[v][j + 1];
            top = v;
        }
        let mut c = [0u8; MAX_GROUP];
        for j in 0..k {
            c[j] = squares[idx[j]];
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry -> placement -> entry, for full entries (side to move included) of tables past
    /// 2^32 entries: around 2^32, the last entry and 10,000 spread entries. Only entries whose
    /// placement puts no two pieces on one square are positions; each must come back exactly.
    #[test]
    fn entries_past_2_pow_32_round_trip() {
        // KRNCvKR: 5,904,900,000 entries, each side's below 2^32 (the 32-bit division path);
        // KRNCvKRA: each side's past 2^32 (the 64-bit path).
        let krncvkr = Layout::new("KRNCvKR".parse().unwrap());
        assert_eq!(krncvkr.entries(), 5_904_900_000);
        let krncvkra = Layout::new("KRNCvKRA".parse().unwrap());
        assert!(krncvkra.per_side > u32::MAX as u64, "{}", krncvkra.per_side);
        for layout in [&krncvkr, &krncvkra] {
            let n = layout.entries();
            let mut entries: Vec<u64> = (0..5).map(|d| (1u64 << 32) - 2 + d).collect();
            entries.extend([n - 1, layout.per_side - 1, layout.per_side]);
            entries.extend((0..10_000u64).map(|k| (k * (n / 10_000) + k * 7919) % n));
            let mut positions = 0;
            for entry in entries {
                let Some(setup) = layout.entry_setup(entry) else { continue };
                let pos = Position::from_setup_unchecked(&setup);
                assert_eq!(layout.index_of(&pos), Some(entry), "{} entry {entry}", layout.material);
                positions += 1;
            }
            // About 85% (six pieces) and 72% (seven) of the entries are placements.
            assert!(positions > 7_000, "{positions}");
            assert!(layout.entry_setup(n).is_none());
        }
    }

    #[test]
    fn rank_inverts_unrank() {
        for name in ["KRvK", "KRRvK", "KPPPvK", "KNvKAB", "KCvKP"] {
            let layout = Layout::new(name.parse().unwrap());
            let step = (layout.per_side / 5000).max(1);
            let mut sq = [0u8; MAX_PIECES];
            for idx in (0..layout.per_side).step_by(step as usize) {
                layout.unrank(idx, &mut sq);
                assert_eq!(layout.rank(&sq), Some(idx), "{name} {idx}");
                // Identical pieces in another order rank the same.
                sq[2..layout.piece_count()].reverse();
                if layout.groups.len() == 1 {
                    assert_eq!(layout.rank(&sq), Some(idx));
                }
            }
        }
    }

    #[test]
    fn rerank_equals_a_full_rank() {
        for name in ["KRvK", "KRRvK", "KPPPvK", "KNvKAB", "KCPvKAA"] {
            let layout = Layout::new(name.parse().unwrap());
            let step = (layout.per_side / 3000).max(1);
            let mut sq = [0u8; MAX_PIECES];
            let mut checked = 0;
            for idx in (0..layout.per_side).step_by(step as usize) {
                layout.unrank(idx, &mut sq);
                for slot in 2..layout.piece_count() {
                    for to in 0..90u8 {
                        let mut moved = sq;
                        moved[slot] = to;
                        assert_eq!(layout.rerank(idx, &sq, slot, to), layout.rank_canonical(&moved), "{name} {idx}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 10_000, "{name}: {checked}");
        }
    }

    #[test]
    fn walk_visits_what_unrank_gives() {
        for name in ["KvK", "KRvK", "KPPPvK", "KNvKAB"] {
            let layout = Layout::new(name.parse().unwrap());
            let per = layout.per_side;
            for range in [0..per, per / 3..per / 3 + 5000.min(per - per / 3), per - 1..per] {
                let mut next = range.start;
                let mut want = [0u8; MAX_PIECES];
                layout.walk(range.clone(), |idx, sq| {
                    assert_eq!(idx, next);
                    layout.unrank(idx, &mut want);
                    assert_eq!(sq, &want, "{name} {idx}");
                    next += 1;
                });
                assert_eq!(next, range.end, "{name}");
            }
        }
    }

    #[test]
    fn entries_of_agrees_with_layouts() {
        for m in Material::all_up_to(5) {
            assert_eq!(entries_of(&m), Layout::new(m).entries(), "{m}");
        }
        // Beyond a layout's size: KRAABBvKAABB, 11 pieces.
        let m: Material = "KRAABBvKAABB".parse().unwrap();
        assert_eq!(entries_of(&m), 2 * 45 * 90 * (10 * 21) * (10 * 21));
    }

    #[test]
    fn sizes_follow_the_scheme() {
        let l = Layout::new("KRvK".parse().unwrap());
        assert_eq!(l.king_pairs.len(), 45);
        assert_eq!(l.per_side, 45 * 90);
        let l = Layout::new("KPPvKA".parse().unwrap());
        assert_eq!(l.per_side, 45 * (55 * 54 / 2) * 5);
    }
}
