//! The index scheme (scheme 2 in `docs/FORMAT.md`): a bijection between the placements of a
//! material, up to left-right mirroring, and `0..entries_per_side`.
//!
//! - Each side's *camp*, its king with its advisors and elephants, is one digit over the camp's
//!   legal placements: the king on one of its 9 palace squares, the advisors on their 5 squares
//!   and the elephants on their 7, no two on one square. Placed jointly, a king, two advisors and
//!   two elephants have 1,410 placements, not the 9 × 10 × 21 = 1,890 of placing them apart.
//! - The two camps form one digit over the *canonical camp pairs*. A camp is *primary* when it
//!   ranks before its mirror image, *symmetric* when it is its own mirror image (its king on file
//!   e and its advisors and elephants placed symmetrically), *secondary* otherwise. A pair is
//!   canonical when the red camp is primary, or symmetric with the black camp primary or
//!   symmetric; any other placement is mirrored first. Pairs of two symmetric camps are their own
//!   mirror image; their placements are indexed as they stand, so a placement and its mirror image
//!   both have entries there (the one redundancy).
//! - Each other group of identical pieces (same side and role, `count` of them: horses, rooks,
//!   cannons, pawns) is one digit over the `C(n, count)` combinations of that piece's `n` legal
//!   squares (pawn 55, horse, rook and cannon 90), ranked in the combinatorial number system.
//! - Digits are mixed-radix, camp pair most significant, then groups in slot order: red groups
//!   then black groups, each side in role order horse, rook, cannon, pawn.
//!
//! Placements where two pieces of different camps or groups share a square, kings face each
//! other, or the side not to move is in check get entries too (marked illegal in the value
//! array): ranking stays a few look-ups and multiply-adds.

// The solver's half of the scheme (walking, re-ranking after a move) is unused by a build that
// only probes.
#![cfg_attr(not(feature = "generate"), allow(dead_code))]

use super::material::Material;
use crate::core::{Color, Piece, Position, Role, Setup, Square};
use std::sync::OnceLock;

/// At most this many pieces in a table (kings included): room for family A's largest tables (11
/// pieces, like KRAABBvKAABB). 12 slots rather than 8 measured no slower (KRRvKN, one thread:
/// 7,186 and 7,204 ms against 7,114 and 7,203 ms of task clock).
pub const MAX_PIECES: usize = 12;
/// Most identical pieces in one group (five pawns).
const MAX_GROUP: usize = 5;
/// Camp keys of no placement (pieces sharing a square).
const NO_CAMP: u16 = u16::MAX;
/// Most pieces in one camp: a king, two advisors, two elephants.
const MAX_CAMP: usize = 5;
/// Bits of the advisor squares in a camp key (the elephants' follow).
const ADVISOR_BITS: u16 = 0b11111;

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

/// The roles whose pieces form a camp with their king.
const CAMP_ROLES: [Role; 2] = [Role::Advisor, Role::Elephant];
/// The roles ranked as groups of their own, in slot order after a side's camp.
const GROUP_ROLES: [Role; 4] = [Role::Horse, Role::Rook, Role::Cannon, Role::Pawn];

/// `count` identical pieces over their legal squares: a digit of the index, or a part of a camp.
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
    /// Place value of this digit (within the entry, or within its camp's raw rank).
    pub stride: u64,
    /// Squares of each combination, by rank (ascending squares).
    combos: Vec<[u8; MAX_GROUP]>,
}

impl Group {
    fn new(piece: Piece, count: usize, first_slot: usize) -> Group {
        let squares: Vec<u8> = Position::reachable_squares(piece).into_iter().map(|s| s.index() as u8).collect();
        let mut slot_of = [255u8; 90];
        for (i, &s) in squares.iter().enumerate() {
            slot_of[s as usize] = i as u8;
        }
        let mut combos = Vec::new();
        colex(&squares, count, &mut [0usize; MAX_GROUP], &mut combos);
        let size = BINOM[squares.len()][count];
        debug_assert_eq!(size as usize, combos.len());
        Group { piece, count, first_slot, slot_of, size, stride: 0, combos }
    }

    /// This group's squares in a placement.
    #[inline]
    fn of<'a>(&self, sq: &'a Squares) -> &'a [u8] {
        &sq[self.first_slot..self.first_slot + self.count]
    }

    /// Combination rank of this group's squares (any order); `None` if one is not a legal square.
    #[inline]
    fn rank(&self, squares: &[u8]) -> Option<u64> {
        let mut s = [0u8; MAX_GROUP];
        for (i, &q) in squares.iter().enumerate() {
            let v = *self.slot_of.get(q as usize)?;
            if v == 255 {
                return None;
            }
            s[i] = v;
        }
        if squares.len() == 1 {
            return Some(s[0] as u64);
        }
        if squares.len() == 2 {
            // Two identical pieces (the common group of more than one): no sort needed.
            let (lo, hi) = if s[0] < s[1] { (s[0], s[1]) } else { (s[1], s[0]) };
            return Some(BINOM[lo as usize][1] + BINOM[hi as usize][2]);
        }
        let s = &mut s[..squares.len()];
        s.sort_unstable();
        let mut r = 0;
        for (k, &v) in s.iter().enumerate() {
            r += BINOM[v as usize][k + 1];
        }
        Some(r)
    }

    /// Puts this group's pieces on the squares of its combination number `r`.
    #[inline(always)]
    fn place(&self, r: usize, sq: &mut Squares) {
        let c = &self.combos[r];
        // A single piece is the common case; a variable-length slice copy would be a memmove
        // call on the generator's hottest path.
        if self.count == 1 {
            sq[self.first_slot] = c[0];
        } else {
            sq[self.first_slot..self.first_slot + self.count].copy_from_slice(&c[..self.count]);
        }
    }
}

/// One side's camp: its king, advisors and elephants, ranked jointly over their placements with
/// no two on one square. Camp numbers: primary camps (ranked before their mirror image) in raw
/// order, then symmetric ones, then secondary ones, the mirror image of primary `i` being
/// `primary + symmetric + i`.
#[derive(Clone, Debug)]
struct Camp {
    /// The king's slot (0 red, 1 black).
    king_slot: usize,
    /// Palace position of each square, 255 elsewhere.
    king_of: [u8; 90],
    /// The palace squares, ascending.
    palace: [u8; 9],
    /// The advisor and elephant groups present (strides within the raw rank).
    parts: Vec<Group>,
    /// Raw ranks per king square: the product of the parts' sizes.
    part_span: u32,
    /// The mirror image of each camp number.
    mirror: Vec<u16>,
    /// The camp's slots in the order of [`Camp::squares`]: king, advisors, elephants.
    slots: [u8; MAX_CAMP],
    /// How many pieces the camp has (the used part of `slots`).
    len: usize,
    /// How many of them are advisors (the slots after the king's).
    advisors: usize,
    /// The squares of each camp number, slot by slot as in `slots`.
    squares: Vec<[u8; MAX_CAMP]>,
    /// Bit of each square in the advisor (first 5 bits) or elephant (next 7) square list, 0 on
    /// any other square: an advisor or elephant slot whose square has no bit of its role is off
    /// its squares.
    bit_of: [u16; 90],
    /// The camp number of each key `king position × 2^12 + advisor and elephant square bits`
    /// ([`NO_CAMP`] for keys of no placement): ranking is a few look-ups, no sorting.
    by_key: Vec<u16>,
    /// Primary camps.
    primary: u32,
    /// Symmetric camps.
    symmetric: u32,
}

impl Camp {
    fn new(color: Color, counts: [usize; 2], first_slot: usize) -> Camp {
        let king = Piece::new(color, Role::King);
        let mut palace = [0u8; 9];
        let mut king_of = [255u8; 90];
        for (i, s) in Position::reachable_squares(king).into_iter().enumerate() {
            palace[i] = s.index() as u8;
            king_of[s.index()] = i as u8;
        }
        let mut parts = Vec::new();
        let mut slot = first_slot;
        for (role, &count) in CAMP_ROLES.iter().zip(&counts) {
            if count > 0 {
                parts.push(Group::new(Piece::new(color, *role), count, slot));
                slot += count;
            }
        }
        let mut stride = 1;
        for g in parts.iter_mut().rev() {
            g.stride = stride;
            stride *= g.size;
        }
        let mut camp = Camp {
            king_slot: color.index(),
            king_of,
            palace,
            parts,
            part_span: stride as u32,
            mirror: Vec::new(),
            slots: [0; MAX_CAMP],
            len: 0,
            advisors: counts[0],
            squares: Vec::new(),
            bit_of: [0; 90],
            by_key: Vec::new(),
            primary: 0,
            symmetric: 0,
        };
        let slots: Vec<usize> = camp.slots().collect();
        camp.len = slots.len();
        for (i, &slot) in slots.iter().enumerate() {
            camp.slots[i] = slot as u8;
        }
        for (role, shift) in [(Role::Advisor, 0), (Role::Elephant, 5)] {
            for (i, s) in Position::reachable_squares(Piece::new(color, role)).into_iter().enumerate() {
                camp.bit_of[s.index()] |= 1 << (shift + i);
            }
        }
        let raws = 9 * camp.part_span;
        let (mut primary, mut symmetric) = (Vec::new(), Vec::new());
        let mut sq = [0u8; MAX_PIECES];
        for raw in 0..raws {
            camp.place_raw(raw, &mut sq);
            if camp.overlapping(&sq) {
                continue;
            }
            let mut m = sq;
            for s in camp.slots() {
                m[s] = mirror_sq(m[s]);
            }
            let Some(mirrored) = camp.raw(&m) else { continue };
            match raw.cmp(&mirrored) {
                std::cmp::Ordering::Less => primary.push((raw, mirrored)),
                std::cmp::Ordering::Equal => symmetric.push(raw),
                std::cmp::Ordering::Greater => {}
            }
        }
        let (p, s) = (primary.len(), symmetric.len());
        let mut camp_to_raw = vec![0; 2 * p + s];
        camp.mirror = vec![0; 2 * p + s];
        for (i, &(raw, mirrored)) in primary.iter().enumerate() {
            let twin = p + s + i;
            camp_to_raw[i] = raw;
            camp_to_raw[twin] = mirrored;
            camp.mirror[i] = twin as u16;
            camp.mirror[twin] = i as u16;
        }
        for (i, &raw) in symmetric.iter().enumerate() {
            camp_to_raw[p + i] = raw;
            camp.mirror[p + i] = (p + i) as u16;
        }
        camp.by_key = vec![NO_CAMP; 9 << 12];
        for (c, &raw) in camp_to_raw.iter().enumerate() {
            camp.place_raw(raw, &mut sq);
            let mut placed = [0u8; MAX_CAMP];
            for i in 0..camp.len {
                placed[i] = sq[camp.slots[i] as usize];
            }
            camp.squares.push(placed);
            let key = camp.key(&sq).expect("a camp placement has a key");
            camp.by_key[key] = c as u16;
        }
        (camp.primary, camp.symmetric) = (p as u32, s as u32);
        camp
    }

    /// Camp placements (both orientations).
    fn total(&self) -> u32 {
        self.squares.len() as u32
    }

    /// The slots this camp occupies.
    fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.king_slot).chain(self.parts.iter().flat_map(|g| g.first_slot..g.first_slot + g.count))
    }

    /// Do two of this camp's pieces share a square?
    fn overlapping(&self, sq: &Squares) -> bool {
        let mut seen = 0u128;
        for s in self.slots() {
            if seen >> sq[s] & 1 != 0 {
                return true;
            }
            seen |= 1 << sq[s];
        }
        false
    }

    /// The raw rank (king square, then parts, mixed-radix) of this camp's squares in `sq`.
    #[inline]
    fn raw(&self, sq: &Squares) -> Option<u32> {
        let k = *self.king_of.get(sq[self.king_slot] as usize)?;
        if k == 255 {
            return None;
        }
        let mut raw = k as u64 * self.part_span as u64;
        for g in &self.parts {
            raw += g.rank(g.of(sq))? * g.stride;
        }
        Some(raw as u32)
    }

    /// The camp number of this camp's squares in `sq`: `None` if one is off its legal squares or
    /// two share a square.
    #[inline]
    fn rank(&self, sq: &Squares) -> Option<u32> {
        let c = *self.by_key.get(self.key(sq)?)?;
        (c != NO_CAMP).then_some(c as u32)
    }

    /// The look-up key of this camp's squares in `sq` (see `by_key`); `None` if the king is off
    /// its palace or another piece off its squares. Two pieces of a role on one square give a
    /// key with too few bits, which no placement has.
    #[inline(always)]
    fn key(&self, sq: &Squares) -> Option<usize> {
        let k = *self.king_of.get(sq[self.king_slot] as usize)?;
        if k == 255 {
            return None;
        }
        let mut bits = 0u16;
        for (i, &slot) in self.slots[1..self.len].iter().enumerate() {
            let b = *self.bit_of.get(sq[slot as usize] as usize)?;
            // The role's own bits: advisors come first in the slots.
            let own = if i < self.advisors { b & ADVISOR_BITS } else { b & !ADVISOR_BITS };
            if own == 0 {
                return None;
            }
            bits |= own;
        }
        Some((k as usize) << 12 | bits as usize)
    }

    /// Puts this camp's pieces on the squares of raw rank `raw`.
    #[inline]
    fn place_raw(&self, raw: u32, sq: &mut Squares) {
        sq[self.king_slot] = self.palace[(raw / self.part_span) as usize];
        let mut rest = (raw % self.part_span) as u64;
        for g in self.parts.iter().rev() {
            g.place((rest % g.size) as usize, sq);
            rest /= g.size;
        }
    }

    /// Puts this camp's pieces on the squares of camp number `c`.
    #[inline]
    fn place(&self, c: u32, sq: &mut Squares) {
        let placed = &self.squares[c as usize];
        for i in 0..self.len {
            sq[self.slots[i] as usize] = placed[i];
        }
    }
}

/// `(primary, symmetric, total)` camp counts of a side with these advisor and elephant counts.
fn camp_shape(advisors: usize, elephants: usize) -> (u64, u64, u64) {
    static SHAPES: OnceLock<[[(u64, u64, u64); 3]; 3]> = OnceLock::new();
    let shape = |a: usize, e: usize| {
        let camp = Camp::new(Color::Red, [a, e], 2);
        (camp.primary as u64, camp.symmetric as u64, camp.total() as u64)
    };
    match SHAPES.get_or_init(|| std::array::from_fn(|a| std::array::from_fn(|e| shape(a, e)))).get(advisors) {
        Some(row) if elephants < 3 => row[elephants],
        _ => shape(advisors, elephants),
    }
}

/// Canonical camp pairs, from the two sides' `(primary, symmetric, total)` camp counts.
fn pair_count(red: (u64, u64, u64), black: (u64, u64, u64)) -> u64 {
    red.0 * black.2 + red.1 * (black.0 + black.1)
}

/// The index layout of one (canonical) material.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The material.
    pub material: Material,
    /// The piece of each slot.
    pub pieces: Vec<Piece>,
    /// Groups of identical pieces outside the camps, in index order.
    pub groups: Vec<Group>,
    /// Red's camp and black's.
    camps: [Camp; 2],
    /// Canonical camp pairs (the size of the most significant digit).
    pub pairs: u64,
    /// Product of the group sizes (the place value of the camp pair digit).
    pub group_span: u64,
    /// Entries for one side to move; the file holds red-to-move entries then black-to-move.
    pub per_side: u64,
    /// The group of each slot outside the camps (for [`rerank`](Self::rerank)), 255 for a camp's.
    slot_group: [u8; MAX_PIECES],
}

/// A canonical placement's index and camp numbers, from [`Layout::ranked`]: what
/// [`Layout::rank_moved`] needs to rank the placement's children without ranking them in full.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ranked {
    idx: u64,
    camps: [u32; 2],
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

/// Entries (both sides to move) of a material's table under this scheme, computed from the piece
/// counts alone: the same figure as a layout's entry count but for any number of pieces (a layout is
/// limited to [`MAX_PIECES`]), saturating at `u64::MAX`. Used to plan generation.
///
/// ```
/// # #[cfg(feature = "generate")] {
/// use qiku::tablebase::generate::entries_of;
///
/// // Two sides to move, 45 king pairs (mirror images apart), 90 squares for the rook.
/// assert_eq!(entries_of(&"KRvK".parse()?), 2 * 45 * 90);
/// assert_eq!(entries_of(&"KRRvK".parse()?), 2 * 45 * (90 * 89 / 2)); // the rooks unordered
/// # }
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn entries_of(material: &Material) -> u64 {
    let shape = |color: Color| {
        camp_shape(material.count(color, Role::Advisor) as usize, material.count(color, Role::Elephant) as usize)
    };
    let mut total: u128 = 2 * pair_count(shape(Color::Red), shape(Color::Black)) as u128;
    for color in Color::ALL {
        for role in GROUP_ROLES {
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

impl Layout {
    /// The layout of a canonical material.
    pub fn new(material: Material) -> Layout {
        let mut pieces = vec![Piece::new(Color::Red, Role::King), Piece::new(Color::Black, Role::King)];
        let mut groups = Vec::new();
        let mut camps = Vec::new();
        for color in Color::ALL {
            let counts = CAMP_ROLES.map(|role| material.count(color, role) as usize);
            camps.push(Camp::new(color, counts, pieces.len()));
            for (role, &count) in CAMP_ROLES.iter().zip(&counts) {
                pieces.extend(std::iter::repeat_n(Piece::new(color, *role), count));
            }
            for role in GROUP_ROLES {
                let count = material.count(color, role) as usize;
                if count > 0 {
                    groups.push(Group::new(Piece::new(color, role), count, pieces.len()));
                    pieces.extend(std::iter::repeat_n(Piece::new(color, role), count));
                }
            }
        }
        let mut stride = 1;
        for g in groups.iter_mut().rev() {
            g.stride = stride;
            stride *= g.size;
        }
        let [red, black]: [Camp; 2] = camps.try_into().expect("two sides");
        let shape = |c: &Camp| (c.primary as u64, c.symmetric as u64, c.total() as u64);
        let pairs = pair_count(shape(&red), shape(&black));
        let mut slot_group = [255u8; MAX_PIECES];
        for (gi, g) in groups.iter().enumerate() {
            slot_group[g.first_slot..g.first_slot + g.count].fill(gi as u8);
        }
        Layout {
            material,
            pieces,
            groups,
            camps: [red, black],
            pairs,
            group_span: stride,
            per_side: stride * pairs,
            slot_group,
        }
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

    /// Is `slot` a king, advisor or elephant (ranked in its side's camp, so that moving it can
    /// change the placement's orientation)?
    #[inline]
    pub fn in_camp(&self, slot: usize) -> bool {
        self.slot_group.get(slot).is_some_and(|&g| g == 255)
    }

    /// The camp pair digit of canonical camps `(red, black)`; `None` if the pair is not canonical.
    #[inline]
    fn pair_of(&self, red: u32, black: u32) -> Option<u64> {
        let [r, b] = &self.camps;
        if red < r.primary {
            Some(red as u64 * b.total() as u64 + black as u64)
        } else if red < r.primary + r.symmetric && black < b.primary + b.symmetric {
            let base = r.primary as u64 * b.total() as u64;
            Some(base + (red - r.primary) as u64 * (b.primary + b.symmetric) as u64 + black as u64)
        } else {
            None
        }
    }

    /// The camps `(red, black)` of camp pair digit `pair`.
    #[inline]
    fn camps_of(&self, pair: u64) -> (u32, u32) {
        let [r, b] = &self.camps;
        let (pair, total) = (pair as u32, b.total());
        let base = r.primary * total;
        if pair < base {
            (pair / total, pair % total)
        } else {
            let width = b.primary + b.symmetric;
            (r.primary + (pair - base) / width, (pair - base) % width)
        }
    }

    /// Must a placement with these camps be mirrored to reach its canonical form?
    #[inline]
    fn mirrored(&self, red: u32, black: u32) -> bool {
        let [r, b] = &self.camps;
        red >= r.primary + r.symmetric || (red >= r.primary && black >= b.primary + b.symmetric)
    }

    /// Is this camp pair its own mirror image (both camps symmetric)?
    #[inline]
    fn symmetric_camps(&self, red: u32, black: u32) -> bool {
        let [r, b] = &self.camps;
        (r.primary..r.primary + r.symmetric).contains(&red) && (b.primary..b.primary + b.symmetric).contains(&black)
    }

    /// Is camp pair digit `pair` its own mirror image? Its entries then stand for one position
    /// each (their mirror images have entries of their own); any other entry also stands for its
    /// mirror image.
    #[inline]
    pub fn pair_symmetric(&self, pair: u64) -> bool {
        let (red, black) = self.camps_of(pair);
        self.symmetric_camps(red, black)
    }

    /// Are a placement's camps their own mirror image (`None` if a camp's pieces are off their
    /// squares or share one)?
    #[inline]
    pub fn symmetric(&self, sq: &Squares) -> Option<bool> {
        Some(self.orientation(sq)?.0)
    }

    /// Whether a placement's camps are their own mirror image, and whether it must be mirrored
    /// to reach its canonical form (`None` as for [`symmetric`](Self::symmetric)).
    #[inline]
    pub fn orientation(&self, sq: &Squares) -> Option<(bool, bool)> {
        let (red, black) = (self.camps[0].rank(sq)?, self.camps[1].rank(sq)?);
        Some((self.symmetric_camps(red, black), self.mirrored(red, black)))
    }

    /// The squares of the placement with index `idx` (within one side to move).
    #[inline]
    pub fn unrank(&self, idx: u64, sq: &mut Squares) {
        // 32-bit division is several times faster than 64-bit, and every table up to 5 pieces
        // fits; the un-move loop unranks each frontier entry.
        let (pair, mut rest) = if self.per_side <= u32::MAX as u64 {
            ((idx as u32 / self.group_span as u32) as u64, (idx as u32 % self.group_span as u32) as u64)
        } else {
            (idx / self.group_span, idx % self.group_span)
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
            g.place(r, sq);
        }
        self.place_pair(pair, sq);
    }

    /// Puts both camps on the squares of camp pair digit `pair`.
    #[inline]
    fn place_pair(&self, pair: u64, sq: &mut Squares) {
        let (red, black) = self.camps_of(pair);
        self.camps[0].place(red, sq);
        self.camps[1].place(black, sq);
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
        let mut pair = range.start / self.group_span;
        for idx in range {
            f(idx, &sq);
            let mut gi = self.groups.len();
            loop {
                if gi == 0 {
                    pair += 1;
                    if pair < self.pairs {
                        self.place_pair(pair, &mut sq);
                    }
                    break;
                }
                gi -= 1;
                let g = &self.groups[gi];
                digits[gi] += 1;
                if digits[gi] as u64 == g.size {
                    digits[gi] = 0;
                    g.place(0, &mut sq);
                    continue;
                }
                g.place(digits[gi], &mut sq);
                break;
            }
        }
    }

    /// The index of a placement (within one side to move), mirrored first if its camps are not
    /// canonical. `None` if a piece stands where it never can, or two of one camp share a square.
    #[inline]
    pub fn rank(&self, sq: &Squares) -> Option<u64> {
        let (red, black) = (self.camps[0].rank(sq)?, self.camps[1].rank(sq)?);
        if self.mirrored(red, black) {
            let mut m = *sq;
            for s in &mut m[..self.pieces.len()] {
                *s = mirror_sq(*s);
            }
            let (red, black) = (self.camps[0].mirror[red as usize], self.camps[1].mirror[black as usize]);
            self.rank_groups(self.pair_of(red as u32, black as u32)?, &m)
        } else {
            self.rank_groups(self.pair_of(red, black)?, sq)
        }
    }

    /// [`rank`](Self::rank) for a placement whose camps are already canonical (`None` otherwise).
    #[inline]
    pub fn rank_canonical(&self, sq: &Squares) -> Option<u64> {
        let pair = self.pair_of(self.camps[0].rank(sq)?, self.camps[1].rank(sq)?)?;
        self.rank_groups(pair, sq)
    }

    /// The index of camp pair digit `pair` with the groups' squares in `sq`.
    #[inline]
    fn rank_groups(&self, pair: u64, sq: &Squares) -> Option<u64> {
        let mut idx = pair * self.group_span;
        for g in &self.groups {
            idx += g.rank(g.of(sq))? * g.stride;
        }
        Some(idx)
    }

    /// The index of placement `sq` (ranked `idx`, camps canonical) after the piece in `slot`,
    /// outside the camps, moves to `to`: only that piece's group digit changes, so this is a few
    /// look-ups instead of a full [`rank_canonical`](Self::rank_canonical), which it equals. The
    /// generator's un-move loop spends most of its time here. `None` for a camp's slot.
    #[inline]
    pub fn rerank(&self, idx: u64, sq: &Squares, slot: usize, to: u8) -> Option<u64> {
        let g = self.groups.get(*self.slot_group.get(slot)? as usize)?;
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
            ((idx / g.stride) % g.size, g.rank(g.of(&moved))?)
        };
        Some(idx - old * g.stride + new * g.stride)
    }

    /// What [`rank_moved`](Self::rank_moved) keeps of a canonical placement (one that
    /// [`unrank`](Self::unrank) gives): its index and its camps' numbers. `None` unless `sq`
    /// ranks back to `idx` ([`rank`](Self::rank) of `sq` is `idx`).
    #[inline]
    pub fn ranked(&self, idx: u64, sq: &Squares) -> Option<Ranked> {
        let camps = [self.camps[0].rank(sq)?, self.camps[1].rank(sq)?];
        let pair = self.pair_of(camps[0], camps[1])?;
        (self.rank_groups(pair, sq)? == idx).then_some(Ranked { idx, camps })
    }

    /// The index of placement `sq` (ranked as `r`) after the piece in `slot` moves to `to`, a
    /// square no other piece stands on: [`rank`](Self::rank) of the moved placement, which it
    /// equals. A piece outside the camps changes one group digit ([`rerank`](Self::rerank)); a
    /// camp's piece changes its camp's number only, and the group digits stay unless the new
    /// camps are mirrored, when the moved placement is ranked in full.
    #[inline]
    pub fn rank_moved(&self, r: &Ranked, sq: &Squares, slot: usize, to: u8) -> Option<u64> {
        if !self.in_camp(slot) {
            return self.rerank(r.idx, sq, slot, to);
        }
        let mut moved = *sq;
        moved[slot] = to;
        let side = self.pieces.get(slot)?.color.index();
        let mut camps = r.camps;
        camps[side] = self.camps[side].rank(&moved)?;
        if self.mirrored(camps[0], camps[1]) {
            return self.rank(&moved);
        }
        let old = self.pair_of(r.camps[0], r.camps[1])?;
        let new = self.pair_of(camps[0], camps[1])?;
        Some(r.idx - old * self.group_span + new * self.group_span)
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
        for g in self.groups.iter().chain(self.camps.iter().flat_map(|c| &c.parts)) {
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
mod tests;
