//! Where each piece can go from a square, as lookup tables built at compile time by `const fn`,
//! plus the ray scans for rooks and cannons.
//!
//! Leapers (king, advisor, elephant, horse, pawn) are table lookups; the elephant and horse tables
//! carry the blocking square (elephant eye, horse leg) with each target so that one test of the
//! occupancy decides. Sliders use the classical ray approach: per direction, the first occupied
//! square on the ray is found with one bit scan, which is both small in cache and fast for u128.
//! Every table is checked against a slow coordinate-based reference in the tests below.

use super::bitboard::Bitboard;
use super::piece::Color;
use super::square::Square;

const fn bb(sq: Square) -> u128 {
    1u128 << sq.index()
}

const fn in_palace(file: i32, rank: i32) -> bool {
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7) && rank >= 0 && rank <= 9
}

/// The palace squares of both sides.
pub const PALACE: Bitboard = {
    let mut b = 0u128;
    let mut i = 0;
    while i < 90 {
        if in_palace(i % 9, i / 9) {
            b |= 1u128 << i;
        }
        i += 1;
    }
    Bitboard(b)
};

/// Squares on red's side of the river (ranks 0-4).
pub const RED_HALF: Bitboard = Bitboard((1u128 << 45) - 1);
/// Squares on black's side of the river (ranks 5-9).
pub const BLACK_HALF: Bitboard = Bitboard(((1u128 << 90) - 1) ^ ((1u128 << 45) - 1));

/// The half of the board `color` starts on.
///
/// ```
/// use qiku::core::attacks::home_half;
/// use qiku::Color;
///
/// assert!(home_half(Color::Red).contains("e4".parse()?));
/// assert!(!home_half(Color::Red).contains("e5".parse()?)); // across the river
/// assert_eq!(home_half(Color::Black), !home_half(Color::Red));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const fn home_half(color: Color) -> Bitboard {
    match color {
        Color::Red => RED_HALF,
        Color::Black => BLACK_HALF,
    }
}

const fn step_table(steps: [(i32, i32); 4], palace_only: bool) -> [Bitboard; 90] {
    let mut table = [Bitboard(0); 90];
    let mut i = 0;
    while i < 90 {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let mut b = 0u128;
        let mut k = 0;
        while k < 4 {
            let (nf, nr) = (f + steps[k].0, r + steps[k].1);
            if let Some(to) = Square::from_coords(nf, nr) {
                if !palace_only || (in_palace(f, r) && in_palace(nf, nr)) {
                    b |= bb(to);
                }
            }
            k += 1;
        }
        table[i] = Bitboard(b);
        i += 1;
    }
    table
}

const ORTHOGONAL: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

static KING_STEPS: [Bitboard; 90] = step_table(ORTHOGONAL, true);
static ADVISOR_STEPS: [Bitboard; 90] = step_table(DIAGONAL, true);

/// King steps from `sq` inside its palace (the flying-general capture is a rook-like file
/// attack and handled by the caller).
///
/// ```
/// use qiku::core::attacks::king_attacks;
///
/// let names = |b: qiku::Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(king_attacks("e0".parse()?)), ["d0", "f0", "e1"]);
/// assert_eq!(names(king_attacks("d2".parse()?)), ["d1", "e2"]); // the palace corner
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING_STEPS[sq.index()]
}

/// Advisor steps from `sq` inside its palace.
///
/// ```
/// use qiku::core::attacks::advisor_attacks;
///
/// let names = |b: qiku::Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(advisor_attacks("e1".parse()?)), ["d0", "f0", "d2", "f2"]);
/// assert_eq!(names(advisor_attacks("d9".parse()?)), ["e8"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn advisor_attacks(sq: Square) -> Bitboard {
    ADVISOR_STEPS[sq.index()]
}

/// A blocking square and the targets that are reachable when it is empty.
///
/// ```
/// use qiku::core::attacks::{horse_steps, Blockable};
///
/// // The horse on h0 has two legs: h1 (towards g2 and i2) and g0 (towards f1).
/// let step: &Blockable = &horse_steps("h0".parse()?)[1];
/// assert_eq!(step.block.to_string(), "g0");
/// assert_eq!(step.targets.map(|s| s.to_string()).collect::<Vec<_>>(), ["f1"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug)]
pub struct Blockable {
    /// The square whose occupant blocks the move (a horse's leg, an elephant's eye).
    pub block: Square,
    /// The targets reachable while `block` is empty.
    pub targets: Bitboard,
}

/// Up to four [`Blockable`] groups for one square: the tables behind the horse's and the
/// elephant's attacks (crate-internal; users get the groups from [`horse_steps`] and [`elephant_steps`]).
#[derive(Copy, Clone, Debug)]
pub(crate) struct BlockableSet {
    /// How many of `items` are used.
    pub len: u8,
    /// The groups; only the first `len` are meaningful.
    pub items: [Blockable; 4],
}

const EMPTY_SET: BlockableSet =
    BlockableSet { len: 0, items: [Blockable { block: Square::from_index_unchecked(0), targets: Bitboard(0) }; 4] };

const fn same_half(a: i32, b: i32) -> bool {
    (a <= 4) == (b <= 4)
}

/// Elephant moves: two diagonal steps, blocked at the eye, never across the river.
const fn elephant_table() -> [BlockableSet; 90] {
    let mut table = [EMPTY_SET; 90];
    let mut i = 0;
    while i < 90 {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let mut k = 0;
        while k < 4 {
            let (df, dr) = DIAGONAL[k];
            if let (Some(eye), Some(to)) =
                (Square::from_coords(f + df, r + dr), Square::from_coords(f + 2 * df, r + 2 * dr))
            {
                if same_half(r, r + 2 * dr) {
                    let n = table[i].len as usize;
                    table[i].items[n] = Blockable { block: eye, targets: Bitboard(bb(to)) };
                    table[i].len += 1;
                }
            }
            k += 1;
        }
        i += 1;
    }
    table
}

/// Horse moves: one orthogonal step (the leg, which must be empty) then one diagonal step outward.
const fn horse_table() -> [BlockableSet; 90] {
    let mut table = [EMPTY_SET; 90];
    let mut i = 0;
    while i < 90 {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let mut k = 0;
        while k < 4 {
            let (df, dr) = ORTHOGONAL[k];
            if let Some(leg) = Square::from_coords(f + df, r + dr) {
                // The two targets beyond the leg: 2 along the leg direction, 1 across it.
                let (af, ar) = (dr, df); // perpendicular
                let mut t = 0u128;
                if let Some(to) = Square::from_coords(f + 2 * df + af, r + 2 * dr + ar) {
                    t |= bb(to);
                }
                if let Some(to) = Square::from_coords(f + 2 * df - af, r + 2 * dr - ar) {
                    t |= bb(to);
                }
                if t != 0 {
                    let n = table[i].len as usize;
                    table[i].items[n] = Blockable { block: leg, targets: Bitboard(t) };
                    table[i].len += 1;
                }
            }
            k += 1;
        }
        i += 1;
    }
    table
}

/// Squares from which a horse attacks a given square, grouped by the leg square (diagonally
/// adjacent to the target) that must be empty.
const fn horse_attacker_table() -> [BlockableSet; 90] {
    let mut table = [EMPTY_SET; 90];
    let mut i = 0;
    while i < 90 {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let mut k = 0;
        while k < 4 {
            let (df, dr) = DIAGONAL[k];
            if let Some(leg) = Square::from_coords(f + df, r + dr) {
                let mut t = 0u128;
                if let Some(from) = Square::from_coords(f + 2 * df, r + dr) {
                    t |= bb(from);
                }
                if let Some(from) = Square::from_coords(f + df, r + 2 * dr) {
                    t |= bb(from);
                }
                if t != 0 {
                    let n = table[i].len as usize;
                    table[i].items[n] = Blockable { block: leg, targets: Bitboard(t) };
                    table[i].len += 1;
                }
            }
            k += 1;
        }
        i += 1;
    }
    table
}

static ELEPHANT: [BlockableSet; 90] = elephant_table();
static HORSE: [BlockableSet; 90] = horse_table();
static HORSE_ATTACKERS: [BlockableSet; 90] = horse_attacker_table();

#[inline]
fn blockable(set: &BlockableSet, occupied: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for item in &set.items[..set.len as usize] {
        if !occupied.contains(item.block) {
            out |= item.targets;
        }
    }
    out
}

/// Elephant moves from `sq` given the occupancy (blocked eyes), on its own side of the river.
///
/// ```
/// use qiku::core::attacks::elephant_attacks;
/// use qiku::{Bitboard, Square};
///
/// let c4: Square = "c4".parse()?;
/// let names = |b: Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(elephant_attacks(c4, Bitboard::EMPTY)), ["a2", "e2"]); // not across the river
/// assert_eq!(names(elephant_attacks(c4, Bitboard::from_square("d3".parse()?))), ["a2"]); // d3 blocks the eye
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn elephant_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    blockable(&ELEPHANT[sq.index()], occupied)
}

/// Horse moves from `sq` given the occupancy (blocked legs).
///
/// ```
/// use qiku::core::attacks::horse_attacks;
/// use qiku::{Bitboard, Square};
///
/// let h0: Square = "h0".parse()?;
/// let names = |b: Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(horse_attacks(h0, Bitboard::EMPTY)), ["f1", "g2", "i2"]);
/// // A piece on h1 blocks the horse's leg towards g2 and i2.
/// assert_eq!(names(horse_attacks(h0, Bitboard::from_square("h1".parse()?))), ["f1"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn horse_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    blockable(&HORSE[sq.index()], occupied)
}

/// Squares from which a horse would attack `sq` given the occupancy.
///
/// ```
/// use qiku::core::attacks::horse_attackers;
/// use qiku::{Bitboard, Square};
///
/// let e9: Square = "e9".parse()?;
/// let names = |b: Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(horse_attackers(e9, Bitboard::EMPTY)), ["d7", "f7", "c8", "g8"]);
/// // A piece on d8 is the leg of the horses on d7 and c8.
/// assert_eq!(names(horse_attackers(e9, Bitboard::from_square("d8".parse()?))), ["f7", "g8"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn horse_attackers(sq: Square, occupied: Bitboard) -> Bitboard {
    blockable(&HORSE_ATTACKERS[sq.index()], occupied)
}

/// Raw elephant and horse step tables (target and blocking square), for code that walks moves
/// backwards such as retrograde analysis.
///
/// ```
/// use qiku::core::attacks::{elephant_attacks, elephant_steps, Blockable};
/// use qiku::{Bitboard, Square};
///
/// let c0: Square = "c0".parse()?;
/// let show = |s: &Blockable| format!("{}>{:?}", s.block, s.targets.collect::<Vec<_>>());
/// assert_eq!(elephant_steps(c0).iter().map(show).collect::<Vec<_>>(), ["d1>[e2]", "b1>[a2]"]); // eye>point
/// let free = elephant_attacks(c0, Bitboard::EMPTY);
/// for step in elephant_steps(c0) {
///     assert_eq!(elephant_attacks(c0, Bitboard::from_square(step.block)), free - step.targets); // a blocked eye
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn elephant_steps(sq: Square) -> &'static [Blockable] {
    let set = &ELEPHANT[sq.index()];
    &set.items[..set.len as usize]
}

/// See [`elephant_steps`]; for each leg, the targets it unblocks.
///
/// ```
/// use qiku::core::attacks::{horse_attacks, horse_steps, Blockable};
/// use qiku::{Bitboard, Square};
///
/// let h0: Square = "h0".parse()?;
/// let show = |s: &Blockable| format!("{}>{:?}", s.block, s.targets.collect::<Vec<_>>());
/// assert_eq!(horse_steps(h0).iter().map(show).collect::<Vec<_>>(), ["h1>[g2, i2]", "g0>[f1]"]); // leg>points
/// let all = horse_steps(h0).iter().fold(Bitboard::EMPTY, |b, s| b | s.targets);
/// assert_eq!(all, horse_attacks(h0, Bitboard::EMPTY));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn horse_steps(sq: Square) -> &'static [Blockable] {
    let set = &HORSE[sq.index()];
    &set.items[..set.len as usize]
}

const fn pawn_table(color: Color) -> [Bitboard; 90] {
    let mut table = [Bitboard(0); 90];
    let forward = match color {
        Color::Red => 1,
        Color::Black => -1,
    };
    let mut i = 0;
    while i < 90 {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let crossed = match color {
            Color::Red => r >= 5,
            Color::Black => r <= 4,
        };
        let mut b = 0u128;
        if let Some(to) = Square::from_coords(f, r + forward) {
            b |= bb(to);
        }
        if crossed {
            if let Some(to) = Square::from_coords(f + 1, r) {
                b |= bb(to);
            }
            if let Some(to) = Square::from_coords(f - 1, r) {
                b |= bb(to);
            }
        }
        table[i] = Bitboard(b);
        i += 1;
    }
    table
}

const fn invert(table: &[Bitboard; 90]) -> [Bitboard; 90] {
    let mut out = [Bitboard(0); 90];
    let mut from = 0;
    while from < 90 {
        let mut to = 0;
        while to < 90 {
            if table[from].0 >> to & 1 != 0 {
                out[to].0 |= 1u128 << from;
            }
            to += 1;
        }
        from += 1;
    }
    out
}

static PAWN: [[Bitboard; 90]; 2] = [pawn_table(Color::Red), pawn_table(Color::Black)];
static PAWN_ATTACKERS: [[Bitboard; 90]; 2] = [invert(&pawn_table(Color::Red)), invert(&pawn_table(Color::Black))];

/// Pawn moves of `color` from `sq`: forward, and sideways once across the river.
///
/// ```
/// use qiku::core::attacks::pawn_attacks;
/// use qiku::{Bitboard, Color};
///
/// let names = |b: Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(pawn_attacks(Color::Red, "e3".parse()?)), ["e4"]);
/// assert_eq!(names(pawn_attacks(Color::Red, "e5".parse()?)), ["d5", "f5", "e6"]); // across the river
/// assert_eq!(names(pawn_attacks(Color::Black, "e6".parse()?)), ["e5"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

/// Squares from which a pawn of `color` attacks `sq`.
///
/// ```
/// use qiku::core::attacks::pawn_attackers;
/// use qiku::{Bitboard, Color};
///
/// let names = |b: Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(pawn_attackers(Color::Red, "e5".parse()?)), ["e4", "d5", "f5"]);
/// assert_eq!(names(pawn_attackers(Color::Red, "e4".parse()?)), ["e3"]); // no sideways step before the river
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn pawn_attackers(color: Color, sq: Square) -> Bitboard {
    PAWN_ATTACKERS[color.index()][sq.index()]
}

// Rays, indexed up to 127 so that a sentinel bit at 127 (empty ray northward/eastward) reads an
// empty entry instead of branching.
const NORTH: usize = 0;
const EAST: usize = 1;
const SOUTH: usize = 2;
const WEST: usize = 3;

const fn ray_table() -> [[u128; 128]; 4] {
    let dirs: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
    let mut t = [[0u128; 128]; 4];
    let mut d = 0;
    while d < 4 {
        let mut i = 0;
        while i < 90 {
            let (mut f, mut r) = ((i % 9) as i32, (i / 9) as i32);
            loop {
                f += dirs[d].0;
                r += dirs[d].1;
                match Square::from_coords(f, r) {
                    Some(s) => t[d][i] |= bb(s),
                    None => break,
                }
            }
            i += 1;
        }
        d += 1;
    }
    t
}

static RAYS: [[u128; 128]; 4] = ray_table();

/// The ray from `sq` in direction `dir` up to and including the
/// first occupied square. `ascending` directions (north, east) find it with a forward scan.
#[inline(always)]
fn ray_until_blocker(dir: usize, sq: usize, occupied: u128) -> u128 {
    let ray = RAYS[dir][sq];
    if dir == NORTH || dir == EAST {
        let blocker = (ray & occupied | 1u128 << 127).trailing_zeros() as usize;
        ray & !RAYS[dir][blocker]
    } else {
        let blocker = 127 - (ray & occupied | 1).leading_zeros() as usize;
        ray & !RAYS[dir][blocker]
    }
}

/// Rook moves and captures from `sq`: every square up to and including the first piece in each
/// direction. Also the file attack of a king for the flying-general rule.
///
/// ```
/// use qiku::core::attacks::rook_attacks;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// // The rook on a0 sees a1, a2, and the pawn on a3 (which it could take were it black's), and
/// // its own horse on b0.
/// let seen = rook_attacks("a0".parse()?, pos.occupied());
/// assert_eq!(seen.map(|s| s.to_string()).collect::<Vec<_>>(), ["b0", "a1", "a2", "a3"]);
/// assert_eq!(rook_attacks("e4".parse()?, qiku::Bitboard::EMPTY).count(), 17); // 8 + 9
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(
        ray_until_blocker(NORTH, s, o)
            | ray_until_blocker(EAST, s, o)
            | ray_until_blocker(SOUTH, s, o)
            | ray_until_blocker(WEST, s, o),
    )
}

/// The first piece beyond exactly one screen in direction `dir`, if any.
#[inline(always)]
fn beyond_screen(dir: usize, sq: usize, occupied: u128) -> u128 {
    let blockers = RAYS[dir][sq] & occupied;
    if blockers == 0 {
        return 0;
    }
    if dir == NORTH || dir == EAST {
        let screen = blockers.trailing_zeros() as usize;
        let behind = RAYS[dir][screen] & occupied;
        behind & behind.wrapping_neg()
    } else {
        let screen = 127 - blockers.leading_zeros() as usize;
        let behind = RAYS[dir][screen] & occupied;
        if behind == 0 {
            0
        } else {
            1u128 << (127 - behind.leading_zeros())
        }
    }
}

/// Cannon captures from `sq`: the first piece beyond exactly one screen in each direction
/// (whatever its color; the caller masks). Cannon quiet moves are rook moves onto empty squares.
///
/// ```
/// use qiku::core::attacks::cannon_captures;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// // From h2, up the h-file over the black cannon on h7 (the screen): the horse on h9. Along rank
/// // 2 the screen is the other red cannon, with nothing beyond; down, the horse on h0 screens
/// // nothing.
/// let captures = cannon_captures("h2".parse()?, pos.occupied());
/// assert_eq!(captures.map(|s| s.to_string()).collect::<Vec<_>>(), ["h9"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn cannon_captures(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(
        beyond_screen(NORTH, s, o) | beyond_screen(EAST, s, o) | beyond_screen(SOUTH, s, o) | beyond_screen(WEST, s, o),
    )
}

/// Every square beyond exactly one screen in direction `dir`: from the first piece (exclusive)
/// up to and including the second.
#[inline(always)]
fn behind_screen(dir: usize, sq: usize, occupied: u128) -> u128 {
    let blockers = RAYS[dir][sq] & occupied;
    if blockers == 0 {
        return 0;
    }
    let screen =
        if dir == NORTH || dir == EAST { blockers.trailing_zeros() } else { 127 - blockers.leading_zeros() } as usize;
    ray_until_blocker(dir, screen, occupied)
}

/// Squares from which a cannon would attack `sq` given the occupancy: those with exactly one
/// piece between them and `sq` (the square beyond the screen up to and including the next
/// piece), as [`horse_attackers`] is for the horse. A cannon on any of them, the board otherwise
/// unchanged, captures on `sq`.
///
/// ```
/// use qiku::core::attacks::{cannon_attackers, cannon_captures};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let e9 = "e9".parse()?;
/// // Down the e-file from the black king the pawn on e6 is the screen, with e5, e4 and the red
/// // pawn on e3 beyond it; along rank 9 the advisors on d9 and f9 are the screens, with the
/// // elephants on c9 and g9 beyond them.
/// let from = cannon_attackers(e9, pos.occupied());
/// assert_eq!(from.map(|s| s.to_string()).collect::<Vec<_>>(), ["e3", "e4", "e5", "c9", "g9"]);
/// assert!(from.into_iter().all(|sq| cannon_captures(sq, pos.occupied()).contains(e9)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn cannon_attackers(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(
        behind_screen(NORTH, s, o) | behind_screen(EAST, s, o) | behind_screen(SOUTH, s, o) | behind_screen(WEST, s, o),
    )
}

const fn lines_table() -> [Bitboard; 90] {
    let rays = ray_table();
    let mut t = [Bitboard(0); 90];
    let mut i = 0;
    while i < 90 {
        t[i] = Bitboard(rays[0][i] | rays[1][i] | rays[2][i] | rays[3][i]);
        i += 1;
    }
    t
}

static LINES: [Bitboard; 90] = lines_table();
static DIAGONAL_NEIGHBOURS: [Bitboard; 90] = step_table(DIAGONAL, false);
static ORTHOGONAL_NEIGHBOURS: [Bitboard; 90] = step_table(ORTHOGONAL, false);

/// Every other square on the file and rank of `sq`.
///
/// ```
/// use qiku::core::attacks::lines;
/// use qiku::Square;
///
/// let a0: Square = "a0".parse()?;
/// assert_eq!(lines(a0).count(), 9 + 8); // the rest of the a-file and of rank 0
/// assert!(lines(a0).contains("a9".parse()?) && lines(a0).contains("i0".parse()?));
/// assert!(!lines(a0).contains(a0) && !lines(a0).contains("b1".parse()?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn lines(sq: Square) -> Bitboard {
    LINES[sq.index()]
}

/// The (up to four) squares diagonally adjacent to `sq`: the legs of horses that attack it.
///
/// ```
/// use qiku::core::attacks::diagonal_neighbours;
///
/// let names = |b: qiku::Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(diagonal_neighbours("e4".parse()?)), ["d3", "f3", "d5", "f5"]);
/// assert_eq!(names(diagonal_neighbours("a0".parse()?)), ["b1"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn diagonal_neighbours(sq: Square) -> Bitboard {
    DIAGONAL_NEIGHBOURS[sq.index()]
}

/// The (up to four) squares orthogonally adjacent to `sq`, anywhere on the board.
///
/// ```
/// use qiku::core::attacks::orthogonal_neighbours;
///
/// let names = |b: qiku::Bitboard| b.map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(names(orthogonal_neighbours("e4".parse()?)), ["e3", "d4", "f4", "e5"]);
/// assert_eq!(names(orthogonal_neighbours("i9".parse()?)), ["i8", "h9"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn orthogonal_neighbours(sq: Square) -> Bitboard {
    ORTHOGONAL_NEIGHBOURS[sq.index()]
}

/// Rook-like attacks from `sq` along its file only (up to and including the first piece).
///
/// ```
/// use qiku::core::attacks::{file_slider, rank_slider, rook_attacks};
/// use qiku::{Position, Square};
///
/// let (occ, e0) = (Position::startpos().occupied(), "e0".parse::<Square>()?);
/// // The king's file up to its own pawn on e3.
/// assert_eq!(file_slider(e0, occ).map(|s| s.to_string()).collect::<Vec<_>>(), ["e1", "e2", "e3"]);
/// assert_eq!(file_slider(e0, occ) | rank_slider(e0, occ), rook_attacks(e0, occ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn file_slider(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(ray_until_blocker(NORTH, s, o) | ray_until_blocker(SOUTH, s, o))
}

/// Rook-like attacks from `sq` along its rank only.
///
/// ```
/// use qiku::core::attacks::rank_slider;
/// use qiku::Position;
///
/// let occ = Position::startpos().occupied();
/// // From the cannon on b2: a2, and c2 to h2 where the other cannon stands.
/// assert_eq!(rank_slider("b2".parse()?, occ).count(), 7);
/// assert_eq!(rank_slider("a0".parse()?, occ).map(|s| s.to_string()).collect::<Vec<_>>(), ["b0"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn rank_slider(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(ray_until_blocker(EAST, s, o) | ray_until_blocker(WEST, s, o))
}

/// Cannon captures from `sq` along its file only.
///
/// ```
/// use qiku::core::attacks::file_cannon;
/// use qiku::Position;
///
/// let occ = Position::startpos().occupied();
/// // Up the h-file over the black cannon on h7 onto the horse on h9.
/// assert_eq!(file_cannon("h2".parse()?, occ).map(|s| s.to_string()).collect::<Vec<_>>(), ["h9"]);
/// // From a0 over its own pawn on a3 onto black's pawn on a6 (the caller masks the colors).
/// assert_eq!(file_cannon("a0".parse()?, occ).map(|s| s.to_string()).collect::<Vec<_>>(), ["a6"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn file_cannon(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(beyond_screen(NORTH, s, o) | beyond_screen(SOUTH, s, o))
}

/// Cannon captures from `sq` along its rank only.
///
/// ```
/// use qiku::core::attacks::{file_cannon, rank_cannon};
/// use qiku::{Bitboard, Square};
///
/// let occ: Bitboard = ["a4", "c4", "g4", "i4"].iter().map(|s| s.parse::<Square>()).collect::<Result<_, _>>()?;
/// let a4: Square = "a4".parse()?;
/// assert_eq!(rank_cannon(a4, occ).map(|s| s.to_string()).collect::<Vec<_>>(), ["g4"]); // over c4
/// assert!(file_cannon(a4, occ).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn rank_cannon(sq: Square, occupied: Bitboard) -> Bitboard {
    let (s, o) = (sq.index(), occupied.0);
    Bitboard(beyond_screen(EAST, s, o) | beyond_screen(WEST, s, o))
}

/// The squares strictly between two squares on one file or rank (empty otherwise).
///
/// ```
/// use qiku::core::attacks::between;
/// use qiku::Square;
///
/// let sq = |s: &str| s.parse::<Square>();
/// assert_eq!(between(sq("e0")?, sq("e9")?).count(), 8); // e1 to e8
/// assert_eq!(between(sq("c0")?, sq("a0")?).map(|s| s.to_string()).collect::<Vec<_>>(), ["b0"]);
/// assert!(between(sq("a0")?, sq("b1")?).is_empty()); // not on one file or rank
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn between(a: Square, b: Square) -> Bitboard {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let (l, h) = (lo.index(), hi.index());
    for dir in [NORTH, EAST] {
        if RAYS[dir][l] >> h & 1 != 0 {
            return Bitboard(RAYS[dir][l] & !RAYS[dir][h] & !(1u128 << h));
        }
    }
    Bitboard::EMPTY
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(f: i32, r: i32) -> Option<Square> {
        Square::from_coords(f, r)
    }

    /// Slow reference: walk a direction square by square.
    fn slow_slider(s: Square, occ: Bitboard, cannon: bool) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let (mut f, mut r) = (s.file().index() as i32, s.rank().index() as i32);
            let mut screens = 0;
            while let Some(t) = sq(f + df, r + dr) {
                f += df;
                r += dr;
                if occ.contains(t) {
                    screens += 1;
                    if !cannon && screens == 1 || cannon && screens == 2 {
                        out = out.with(t);
                        break;
                    }
                } else if !cannon {
                    out = out.with(t);
                }
            }
        }
        out
    }

    fn random_occupancies() -> Vec<Bitboard> {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..400)
            .map(|i| {
                let raw = (next() as u128) << 64 | next() as u128;
                // Vary density: every few boards sparser.
                let thin = if i % 3 == 0 { (next() as u128) << 64 | next() as u128 } else { !0 };
                Bitboard(raw & thin) & Bitboard::FULL
            })
            .collect()
    }

    #[test]
    fn sliders_match_slow_reference_exhaustively_over_random_occupancies() {
        for occ in random_occupancies() {
            for s in Square::all() {
                assert_eq!(rook_attacks(s, occ), slow_slider(s, occ, false), "rook {s} {occ:?}");
                assert_eq!(cannon_captures(s, occ), slow_slider(s, occ, true), "cannon {s} {occ:?}");
            }
        }
    }

    #[test]
    fn leapers_match_slow_reference() {
        for occ in random_occupancies().into_iter().take(50) {
            for s in Square::all() {
                let (f, r) = (s.file().index() as i32, s.rank().index() as i32);
                let mut horse = Bitboard::EMPTY;
                for (df, dr) in [(1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)] {
                    // The leg is the orthogonal neighbour in the direction of the long step.
                    let leg = if i32::abs(df) == 2 { sq(f + df / 2, r) } else { sq(f, r + dr / 2) };
                    if let (Some(t), Some(leg)) = (sq(f + df, r + dr), leg) {
                        if !occ.contains(leg) {
                            horse = horse.with(t);
                        }
                    }
                }
                assert_eq!(horse_attacks(s, occ), horse, "horse from {s}");
                let mut elephant = Bitboard::EMPTY;
                for (df, dr) in [(2, 2), (2, -2), (-2, 2), (-2, -2)] {
                    if let (Some(t), Some(eye)) = (sq(f + df, r + dr), sq(f + df / 2, r + dr / 2)) {
                        if !occ.contains(eye) && (r <= 4) == (r + dr <= 4) {
                            elephant = elephant.with(t);
                        }
                    }
                }
                assert_eq!(elephant_attacks(s, occ), elephant, "elephant from {s}");
                // Horse attackers are exactly the inverse relation of horse moves.
                let attackers: Bitboard = Square::all().filter(|&h| horse_attacks(h, occ).contains(s)).collect();
                assert_eq!(horse_attackers(s, occ), attackers, "horse attackers of {s}");
            }
        }
    }

    #[test]
    fn palace_and_pawn_tables() {
        assert_eq!(PALACE.count(), 18);
        let e1: Square = "e1".parse().unwrap();
        assert_eq!(king_attacks(e1).count(), 4);
        assert_eq!(advisor_attacks(e1).count(), 4);
        let d0: Square = "d0".parse().unwrap();
        assert_eq!(king_attacks(d0), ["d1", "e0"].iter().map(|s| s.parse::<Square>().unwrap()).collect());
        assert_eq!(advisor_attacks(d0), Bitboard::from_square(e1));
        // A red pawn before the river only moves forward; after it, also sideways; never back.
        let e3: Square = "e3".parse().unwrap();
        let e5: Square = "e5".parse().unwrap();
        assert_eq!(pawn_attacks(Color::Red, e3), Bitboard::from_square("e4".parse().unwrap()));
        assert_eq!(pawn_attacks(Color::Red, e5).count(), 3);
        assert_eq!(pawn_attacks(Color::Black, "e4".parse().unwrap()).count(), 3);
        assert_eq!(pawn_attacks(Color::Red, "e9".parse().unwrap()).count(), 2);
        for c in [Color::Red, Color::Black] {
            for s in Square::all() {
                let attackers: Bitboard = Square::all().filter(|&p| pawn_attacks(c, p).contains(s)).collect();
                assert_eq!(pawn_attackers(c, s), attackers);
            }
        }
    }

    #[test]
    fn between_squares() {
        let a: Square = "e0".parse().unwrap();
        let b: Square = "e9".parse().unwrap();
        assert_eq!(between(a, b).count(), 8);
        assert_eq!(between(b, a).count(), 8);
        assert_eq!(between("a3".parse().unwrap(), "i3".parse().unwrap()).count(), 7);
        assert_eq!(between("a3".parse().unwrap(), "b4".parse().unwrap()), Bitboard::EMPTY);
        assert_eq!(between("a3".parse().unwrap(), "a4".parse().unwrap()), Bitboard::EMPTY);
    }
}
