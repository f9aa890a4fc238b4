//! Static evaluation, in the spirit of the classic Xiangqi programs (ElephantEye, XQWLight and
//! their descendants): material, piece-square tables by role, mobility, and the attack/defence
//! relations between pieces, blended between middlegame and endgame by the attacking material
//! left on the board. Every table is written from red's point of view with black's back rank
//! (rank 9) on the first row, as the board is drawn; black pieces read the table with the ranks
//! flipped. The tables are left-right symmetric, so the evaluation of a position and of its mirror
//! image are equal (tested). `docs/ENGINE.md` describes every term.
//!
//! The numbers (material, tables and [`Weights::DEFAULT`]) are fitted to master-game results by
//! `qiku tune` (Texel's method, `qiku::tune`); the note above [`MATERIAL`] says how.
//!
//! The evaluation is a pure function of the placement and the side to move: no hidden state, so
//! it can be called from any number of search threads.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Position, Role, Square};

/// Scores in centipawn-like units. Uncrossed pawns are weak in Xiangqi, so the unit is smaller
/// than a pawn: a rook is worth about 500 in the opening and more as the board empties.
pub type Value = i32;

/// The score (kept with [`Value`], the scale it belongs to) of delivering mate now; a mate in `n` plies scores `MATE - n`.
pub const MATE: Value = 30_000;
/// Scores beyond this (either sign) are mates or tablebase wins at a known distance.
pub const MATE_BOUND: Value = MATE - 1_000;

/// A middlegame/endgame pair of values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Middlegame value.
    pub mg: Value,
    /// Endgame value.
    pub eg: Value,
}

const fn p(mg: Value, eg: Value) -> Pair {
    Pair { mg, eg }
}

/// Material by role (king, advisor, elephant, horse, rook, cannon, pawn). The piece-square tables
/// add to these.
///
/// How these numbers, the tables below and [`Weights::DEFAULT`] were produced: from the
/// hand-set values of commit dd1f3b0 (kept in git history and in the table of `docs/ENGINE.md`'s
/// "Tuning" section), `qiku tune --every 3 --epochs 1000 --threads 2 --emit tuned.rs` on
/// `books/games/ccpd-iccs.pgn.zst` (25,368 games, 25,241 with a result; plies 11 on, one position
/// in about 3, quiet and not in check): 359,790 training and 40,426 validation positions (10% of
/// the games), k = 0.005336 per unit, Adam at step 1.0, the king's material and the tempo fixed.
/// Mean squared error, training 0.127490 -> 0.118309, validation 0.127284 -> 0.117684 (0.127313
/// -> 0.117814 with the engine's own integer evaluation). Kept because a match said so: 200
/// games, 30,000 nodes a move, against the hand-set evaluation, +105 =50 -45, +107.5 +/- 43.3 Elo.
/// The data prices pieces low in the middlegame and high in the endgame (the phase blend) and
/// moves value into the tables and mobility: read them together, not one by one.
pub const MATERIAL: [Pair; 7] = [p(0, 0), p(180, 56), p(182, 81), p(197, 517), p(424, 1346), p(265, 552), p(40, 131)];

/// Piece-square bonuses, red's view, row 0 = rank 9 (black's back rank), column 0 = file a.
pub type Table = [[i16; 9]; 10];

#[rustfmt::skip]
const KING_PST: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0, -97, -78, -97,   0,   0,   0],
    [   0,   0,   0, -13,  11, -13,   0,   0,   0],
    [   0,   0,   0,  21,  33,  21,   0,   0,   0],
];

#[rustfmt::skip]
const ADVISOR_PST: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   9,   0,   9,   0,   0,   0],
    [   0,   0,   0,   0,  26,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
];

#[rustfmt::skip]
const ELEPHANT_PST: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   4,   0,   0,   0,   4,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,  30,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,  19,   0,   0,   0,  19,   0,   0],
];

#[rustfmt::skip]
const HORSE_PST: Table = [
    [   3, -49,  40,  94,  41,  94,  40, -49,   3],
    [  -6,  29,  86,  49,  27,  49,  86,  29,  -6],
    [  68,  30,   9,  64,  64,  64,   9,  30,  68],
    [ -16,  84,  12,  66,  -2,  66,  12,  84, -16],
    [  -6,  16,  16,  52,  35,  52,  16,  16,  -6],
    [  11, -11,  36,  12,  24,  12,  36, -11,  11],
    [ -17, -37, -15,   0,  19,   0, -15, -37, -17],
    [ -44, -31, -34,  23, -41,  23, -34, -31, -44],
    [ -81, -74, -39, -46, -49, -46, -39, -74, -81],
    [-108, -68, -81, -75,-154, -75, -81, -68,-108],
];

#[rustfmt::skip]
const ROOK_PST: Table = [
    [  11,  25,  23,  24,  90,  24,  23,  25,  11],
    [  -6,  31,  11,  36,  93,  36,  11,  31,  -6],
    [   5,  14,  15,  36,  66,  36,  15,  14,   5],
    [  16,  26,  37,  14,  34,  14,  37,  26,  16],
    [ -11,  13,  27,   3,  25,   3,  27,  13, -11],
    [  -1,  12,  19,  10,  16,  10,  19,  12,  -1],
    [   6,  19,  15,  14,  41,  14,  15,  19,   6],
    [ -37, -14,  -7, -15, -28, -15,  -7, -14, -37],
    [ -32, -21,   1, -23, -75, -23,   1, -21, -32],
    [ -66, -16, -35, -35,-282, -35, -35, -16, -66],
];

#[rustfmt::skip]
const CANNON_PST: Table = [
    [  42,  39, -30, -59, -78, -59, -30,  39,  42],
    [  -8,   0, -13, -21, -33, -21, -13,   0,  -8],
    [  32, -10, -17, -56, -57, -56, -17, -10,  32],
    [  15,  -1,   6,  -3,  40,  -3,   6,  -1,  15],
    [  15,  -2,   7,   8,  46,   8,   7,  -2,  15],
    [   6, -12,  -9, -24,  26, -24,  -9, -12,   6],
    [ -10, -21,   7,  -1,  20,  -1,   7, -21, -10],
    [   1, -12,  15,   9,  20,   9,  15, -12,   1],
    [  21,   2,  31,  16,  37,  16,  31,   2,  21],
    [   8,  -5, -14,  21,  40,  21, -14,  -5,   8],
];

#[rustfmt::skip]
const PAWN_PST: Table = [
    [ -35, -36, -31,  60,-253,  60, -31, -36, -35],
    [  18,  58,  80, 140, 328, 140,  80,  58,  18],
    [  14,  78,  95, 190, 195, 190,  95,  78,  14],
    [  47,  60,  78, 119, 119, 119,  78,  60,  47],
    [  14,  44,  45, 107,  95, 107,  45,  44,  14],
    [ -19,   0,   1,   0,  33,   0,   1,   0, -19],
    [ -30,   0, -29,   0,  26,   0, -29,   0, -30],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
];

/// The tables by role index.
pub const PST: [&Table; 7] = [&KING_PST, &ADVISOR_PST, &ELEPHANT_PST, &HORSE_PST, &ROOK_PST, &CANNON_PST, &PAWN_PST];

/// The piece-square bonus for `piece` standing on `sq`.
#[inline]
pub fn pst(piece: Piece, sq: Square) -> Value {
    PieceSquareTables::DEFAULT.pst(piece, sq)
}

/// The row and column of `piece` on `sq` in its role's table (black reads it with the ranks
/// flipped).
#[inline]
pub fn table_cell(piece: Piece, sq: Square) -> (usize, usize) {
    let cell = cell_index(piece, sq);
    (cell / 9, cell % 9)
}

/// [`table_cell`] as one index, `row * 9 + column`.
#[inline]
fn cell_index(piece: Piece, sq: Square) -> usize {
    TABLE_CELLS[piece.color.index()][sq.index()] as usize
}

/// [`table_cell`] as one index into a table read row by row (`row * 9 + column`), by colour and
/// square: looked up rather than worked out, since the evaluation reads a table cell for every
/// piece.
const TABLE_CELLS: [[u8; 90]; 2] = {
    let mut cells = [[0u8; 90]; 2];
    let mut sq = 0;
    while sq < 90 {
        let (rank, file) = (sq / 9, sq % 9);
        // Red reads rank 9 on row 0; black reads its ranks flipped, so rank 0 on row 0.
        cells[0][sq] = ((9 - rank) * 9 + file) as u8;
        cells[1][sq] = (rank * 9 + file) as u8;
        sq += 1;
    }
    cells
};

/// Material and piece-square tables as one value, so that the tuner (`qiku::tune`) can
/// evaluate with tables other than the compiled-in ones; the engine always uses
/// [`PieceSquareTables::DEFAULT`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceSquareTables {
    /// Material by role, as [`MATERIAL`].
    pub material: [Pair; 7],
    /// Piece-square tables by role, as [`PST`].
    pub pst: [Table; 7],
}

impl PieceSquareTables {
    /// [`MATERIAL`] and [`PST`].
    pub const DEFAULT: PieceSquareTables = PieceSquareTables {
        material: MATERIAL,
        pst: [KING_PST, ADVISOR_PST, ELEPHANT_PST, HORSE_PST, ROOK_PST, CANNON_PST, PAWN_PST],
    };

    /// The piece-square bonus for `piece` standing on `sq` in these tables.
    #[inline]
    pub fn pst(&self, piece: Piece, sq: Square) -> Value {
        self.pst[piece.role.index()].as_flattened()[cell_index(piece, sq)] as Value
    }
}

/// Weights of the terms beyond material and tables. Kept in one struct so that a term can be
/// switched off (set to zero) for a measured match against the full evaluation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Per reachable square (empty or enemy-occupied), by role.
    pub mobility: [Pair; 7],
    /// Fraction (in 1/64) of a piece's value lost when it is attacked and undefended, or attacked
    /// by a cheaper piece (then the difference counts), for the side to move's second-largest
    /// threat (the side to move can save one piece, rarely two).
    pub threat_second: Value,
    /// The same for the side to move's largest threat (it usually costs a tempo).
    pub threat_first: Value,
    /// Bonus for each non-king piece defended by its own side, by role.
    pub defended: [Value; 7],
    /// Penalty when an enemy cannon stands on the king's file with nothing between (the
    /// "empty-headed cannon": any piece entering the file gives check).
    pub empty_cannon: Pair,
    /// King-zone pressure: per unit squared, where enemy rooks, horses, cannons and pawns that
    /// attack the 3x3 square around the king count 3, 3, 2, 2 units.
    pub king_pressure: Value,
    /// For each missing advisor or elephant, per enemy attacking unit (rook 2, horse or cannon 1).
    pub missing_guard: Value,
    /// Side to move's bonus.
    pub tempo: Value,
}

impl Weights {
    /// The weights the engine plays with (UCI `EvalTerms full`).
    pub const DEFAULT: Weights = Weights {
        mobility: [p(-18, 23), p(0, 2), p(3, -5), p(10, 9), p(3, 5), p(2, 4), p(3, -5)],
        threat_second: 17,
        threat_first: 4,
        defended: [0, 11, 5, 1, 4, 3, 4],
        empty_cannon: p(136, -53),
        king_pressure: 1,
        missing_guard: -6,
        tempo: 10,
    };

    /// Material and tables only (for measuring what the other terms are worth).
    pub const BASIC: Weights = Weights {
        mobility: [p(0, 0); 7],
        threat_second: 0,
        threat_first: 0,
        defended: [0; 7],
        empty_cannon: p(0, 0),
        king_pressure: 0,
        missing_guard: 0,
        tempo: 10,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::DEFAULT
    }
}

/// Attacking weight of each role for the game phase: the middlegame lasts while rooks, horses
/// and cannons are on the board.
pub(crate) const PHASE_WEIGHT: [i32; 7] = [0, 0, 0, 3, 6, 3, 0];
/// Phase of the starting position (2 sides x (2 rooks x 6 + 2 horses x 3 + 2 cannons x 3)).
pub const PHASE_MAX: i32 = 48;

/// Roles from cheapest to dearest, for "attacked by a cheaper piece".
pub(crate) const BY_VALUE: [Role; 7] =
    [Role::Pawn, Role::Advisor, Role::Elephant, Role::Horse, Role::Cannon, Role::Rook, Role::King];

/// The evaluation split into its terms, each from red's point of view, for `qiku analyze --eval`
/// and for tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Game phase, from 0 (bare kings) to `PHASE_MAX` (all pieces).
    pub phase: i32,
    /// Material.
    pub material: Value,
    /// Piece-square tables.
    pub pst: Value,
    /// Mobility.
    pub mobility: Value,
    /// Piece relations (cannon screens, connected pieces, ...).
    pub relations: Value,
    /// King safety.
    pub king_safety: Value,
    /// The side to move's bonus.
    pub tempo: Value,
    /// The sum, as the search sees it (red's view).
    pub total: Value,
}

impl std::fmt::Display for Breakdown {
    /// `material 0 pst 0 mobility 0 relations 0 king safety 0 tempo 10 = 10 (phase 48/48)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "material {} pst {} mobility {} relations {} king safety {} tempo {} = {} (phase {}/{PHASE_MAX})",
            self.material,
            self.pst,
            self.mobility,
            self.relations,
            self.king_safety,
            self.tempo,
            self.total,
            self.phase
        )
    }
}

/// The evaluation from the side to move's point of view.
///
/// ```
/// use qiku::engine::eval::{breakdown, evaluate, Weights};
/// use qiku::Position;
///
/// let w = Weights::DEFAULT;
/// // The start position is symmetric: only the side to move's bonus remains.
/// assert_eq!(evaluate(&Position::startpos(), &w), w.tempo);
/// // A rook up: good for red to move, as bad for black to move.
/// let red = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
/// let black = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 b")?;
/// assert!(evaluate(&red, &w) > 500);
/// assert!(evaluate(&black, &w) < -500);
/// assert_eq!(evaluate(&red, &w), breakdown(&red, &w).total); // red's view when red moves
/// assert_eq!(evaluate(&red, &w), evaluate(&red.mirror(), &w)); // left-right symmetric
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[inline]
pub fn evaluate(pos: &Position, w: &Weights) -> Value {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: `evaluate_popcnt` only enables POPCNT, which this CPU has (just checked).
        return unsafe { evaluate_popcnt(pos, w) };
    }
    evaluate_portable(pos, w)
}

/// [`evaluate`] compiled with the POPCNT instruction: the evaluation counts many square sets,
/// and the baseline x86-64 target counts bits without it, several times slower. The same code,
/// so the same value.
///
/// # Safety
///
/// The CPU must support POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn evaluate_popcnt(pos: &Position, w: &Weights) -> Value {
    evaluate_portable(pos, w)
}

/// [`evaluate`] for any CPU (inlined into [`evaluate_popcnt`] to be compiled with POPCNT).
#[inline(always)]
fn evaluate_portable(pos: &Position, w: &Weights) -> Value {
    let v = breakdown_with(pos, &PieceSquareTables::DEFAULT, w).total;
    match pos.turn() {
        Color::Red => v,
        Color::Black => -v,
    }
}

/// Per side: what each role attacks, and everything attacked.
struct Attacks {
    by_role: [[Bitboard; 7]; 2],
    all: [Bitboard; 2],
}

/// What `piece` on `sq` attacks (the tuner's trace; the evaluation itself works role by role).
#[cfg(any(test, feature = "tune"))]
pub(crate) fn piece_attacks(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::King => attacks::king_attacks(sq),
        Role::Advisor => attacks::advisor_attacks(sq),
        Role::Elephant => attacks::elephant_attacks(sq, occ),
        Role::Horse => attacks::horse_attacks(sq, occ),
        Role::Rook => attacks::rook_attacks(sq, occ),
        Role::Cannon => attacks::cannon_captures(sq, occ),
        Role::Pawn => attacks::pawn_attacks(piece.color, sq),
    }
}

/// One side's pieces of one role, summed: see [`scan_role`].
struct RoleScan {
    /// How many there are.
    pieces: i32,
    /// Their piece-square bonuses.
    pst: Value,
    /// Every square they attack.
    attacks: Bitboard,
    /// Their mobility: reachable squares, counted per piece.
    reach: i32,
    /// How many attack the enemy king's zone.
    pressing: i32,
}

/// Sums the evaluation's per-piece terms over the pieces `piece` on the board; `attack(sq)`
/// gives a piece's attacks and its reachable squares from `sq`.
#[inline(always)]
fn scan_role(
    pos: &Position,
    tables: &PieceSquareTables,
    piece: Piece,
    zone: Bitboard,
    attack: impl Fn(Square) -> (Bitboard, Bitboard),
) -> RoleScan {
    let mut scan = RoleScan { pieces: 0, pst: 0, attacks: Bitboard::EMPTY, reach: 0, pressing: 0 };
    for sq in pos.pieces(piece) {
        let (a, reach) = attack(sq);
        scan.pieces += 1;
        scan.pst += tables.pst(piece, sq);
        scan.attacks |= a;
        scan.reach += reach.count() as i32;
        scan.pressing += i32::from((a & zone).any());
    }
    scan
}

/// Blends a pair by phase.
#[inline]
pub(crate) fn taper(v: Pair, phase: i32) -> Value {
    (v.mg * phase + v.eg * (PHASE_MAX - phase)) / PHASE_MAX
}

/// Every term of the evaluation, red's point of view.
pub fn breakdown(pos: &Position, w: &Weights) -> Breakdown {
    breakdown_with(pos, &PieceSquareTables::DEFAULT, w)
}

/// [`breakdown`] with other material and piece-square tables (the tuner's reference evaluation).
#[inline(always)]
pub fn breakdown_with(pos: &Position, tables: &PieceSquareTables, w: &Weights) -> Breakdown {
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);

    let mut material = [0; 2];
    let mut pst_sum = [0; 2];
    let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
    let mut att = Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2] };
    // Attacking units per side aimed at the other king's zone.
    let mut pressure = [0i32; 2];
    let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];

    for c in Color::ALL {
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        let zone = zones[(!c).index()];
        // Each role with its own attack function, so that no loop dispatches on the role.
        let scans = [
            scan_role(pos, tables, Piece::new(c, Role::King), zone, |sq| {
                let a = attacks::king_attacks(sq);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Advisor), zone, |sq| {
                let a = attacks::advisor_attacks(sq);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Elephant), zone, |sq| {
                let a = attacks::elephant_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Horse), zone, |sq| {
                let a = attacks::horse_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Rook), zone, |sq| {
                let a = attacks::rook_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Cannon), zone, |sq| {
                // A cannon moves like a rook but only captures over a screen.
                let a = attacks::cannon_captures(sq, occ);
                (a, (attacks::rook_attacks(sq, occ) - occ) | (a & them))
            }),
            scan_role(pos, tables, Piece::new(c, Role::Pawn), zone, |sq| {
                let a = attacks::pawn_attacks(c, sq);
                (a, a - own)
            }),
        ];
        for (r, scan) in Role::ALL.into_iter().zip(scans) {
            // Per piece the same terms: summed per role, the totals are the same.
            material[c.index()] += scan.pieces * taper(tables.material[r.index()], phase);
            pst_sum[c.index()] += scan.pst;
            att.by_role[c.index()][r.index()] = scan.attacks;
            let mw = w.mobility[r.index()];
            mobility[c.index()].mg += mw.mg * scan.reach;
            mobility[c.index()].eg += mw.eg * scan.reach;
            pressure[c.index()] += scan.pressing
                * match r {
                    Role::Rook | Role::Horse => 3,
                    Role::Cannon | Role::Pawn => 2,
                    _ => 0,
                };
        }
        att.all[c.index()] = att.by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    }

    let relations = [
        relations(pos, &att, Color::Red, &tables.material, w),
        relations(pos, &att, Color::Black, &tables.material, w),
    ];
    let safety =
        [king_safety(pos, Color::Red, pressure[1], phase, w), king_safety(pos, Color::Black, pressure[0], phase, w)];
    Sides { phase, material, pst: pst_sum, mobility, relations, safety }.breakdown(pos.turn(), w)
}

/// The evaluation's terms per side (red, black), before they are tapered and subtracted.
struct Sides {
    phase: i32,
    material: [Value; 2],
    pst: [Value; 2],
    mobility: [Pair; 2],
    relations: [Value; 2],
    safety: [Value; 2],
}

impl Sides {
    /// The breakdown from red's point of view with `turn` to move.
    fn breakdown(self, turn: Color, w: &Weights) -> Breakdown {
        let phase = self.phase;
        let diff = |a: [Value; 2]| a[0] - a[1];
        let mob = [taper(self.mobility[0], phase), taper(self.mobility[1], phase)];
        let tempo = match turn {
            Color::Red => w.tempo,
            Color::Black => -w.tempo,
        };
        let mut b = Breakdown {
            phase,
            material: diff(self.material),
            pst: diff(self.pst),
            mobility: diff(mob),
            relations: diff(self.relations),
            king_safety: diff(self.safety),
            tempo,
            total: 0,
        };
        b.total = b.material + b.pst + b.mobility + b.relations + b.king_safety + b.tempo;
        b
    }
}

/// The king's square and its orthogonal and diagonal neighbours.
#[inline]
pub(crate) fn king_zone(k: Square) -> Bitboard {
    Bitboard::from_square(k) | attacks::orthogonal_neighbours(k) | attacks::diagonal_neighbours(k)
}

/// Attack/defence relations of `c`'s pieces: defended pieces earn a small bonus; pieces that are
/// attacked and undefended, or attacked by a cheaper piece, are threats. Only the side to move's
/// threats are charged here: the opponent's hanging pieces are won by the quiescence search.
#[inline(always)]
fn relations(pos: &Position, att: &Attacks, c: Color, material: &[Pair; 7], w: &Weights) -> Value {
    let (us, them) = (c.index(), (!c).index());
    let defended = att.all[us];
    let mut bonus = 0;
    for r in &Role::ALL[1..] {
        bonus += w.defended[r.index()] * (pos.pieces(Piece::new(c, *r)) & defended).count() as i32;
    }
    if pos.turn() == c {
        // The two largest threats do not depend on the order the pieces are looked at.
        let mut threats = TopThreats::default();
        for sq in (pos.by_color(c) - pos.by_role(Role::King)) & att.all[them] {
            let Some(piece) = pos.piece_at(sq) else { continue };
            let value = material[piece.role.index()].mg;
            threats.add(threat_size(value, defended.contains(sq), sq, &att.by_role[them], material));
        }
        bonus -= (threats.first * w.threat_first + threats.second * w.threat_second) / 64;
    }
    bonus
}

/// What a piece worth `value` on `sq`, attacked by pieces on `attackers` (by role), stands to
/// lose: all of it when undefended, else what it is worth above its cheapest attacker. A king
/// cannot take a defended piece, so it does not count as a cheaper attacker. Shared with the
/// tuner's trace, which must read the same threats off a position.
pub(crate) fn threat_size(
    value: Value,
    defended: bool,
    sq: Square,
    attackers: &[Bitboard; 7],
    material: &[Pair; 7],
) -> Value {
    if !defended {
        return value;
    }
    let cheapest =
        BY_VALUE[..6].iter().find(|r| attackers[r.index()].contains(sq)).map_or(value, |r| material[r.index()].mg);
    (value - cheapest).max(0)
}

/// The two largest threats against one side's pieces (the side to move can save one, rarely two).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct TopThreats {
    /// The largest.
    pub first: Value,
    /// The second largest.
    pub second: Value,
}

impl TopThreats {
    /// Counts one more threat.
    pub fn add(&mut self, threat: Value) {
        if threat > self.first {
            self.second = self.first;
            self.first = threat;
        } else if threat > self.second {
            self.second = threat;
        }
    }
}

/// King safety of `c`: pressure of enemy pieces on the king zone, missing guards against the
/// enemy's attackers, and an enemy cannon on the king's open file.
#[inline(always)]
fn king_safety(pos: &Position, c: Color, enemy_pressure: i32, phase: i32, w: &Weights) -> Value {
    let k = pos.king(c);
    let mut v = -(enemy_pressure * enemy_pressure * w.king_pressure);
    let enemy = !c;
    let units = 2 * pos.pieces(Piece::new(enemy, Role::Rook)).count() as i32
        + pos.pieces(Piece::new(enemy, Role::Horse)).count() as i32
        + pos.pieces(Piece::new(enemy, Role::Cannon)).count() as i32;
    let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() as i32
        + pos.pieces(Piece::new(c, Role::Elephant)).count() as i32;
    v -= (4 - guards) * units * w.missing_guard;
    let occ = pos.occupied();
    for cannon in pos.pieces(Piece::new(enemy, Role::Cannon)) {
        if cannon.file() == k.file() && (attacks::between(cannon, k) & occ).is_empty() {
            v -= taper(w.empty_cannon, phase);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn king_zone_is_the_square_and_its_eight_neighbours() {
        for i in 0..90 {
            let k = Square::from_index_unchecked(i);
            let mut expected = Bitboard::from_square(k);
            for (df, dr) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
                if let Some(s) = k.offset(df, dr) {
                    expected = expected.with(s);
                }
            }
            assert_eq!(king_zone(k), expected, "{k}");
        }
    }

    #[test]
    fn tables_are_left_right_symmetric() {
        for (role, table) in PST.iter().enumerate() {
            for row in table.iter() {
                for f in 0..9 {
                    assert_eq!(row[f], row[8 - f], "role {role}");
                }
            }
        }
    }

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let pos = Position::startpos();
        let b = breakdown(&pos, &Weights::DEFAULT);
        assert_eq!(b.total, Weights::DEFAULT.tempo, "{b:?}");
        assert_eq!(b.phase, PHASE_MAX);
    }

    /// The evaluation as first written, piece by piece: the summed-per-role form above must give
    /// the same value term for term (and `evaluate`, compiled with POPCNT where available, the
    /// same total).
    fn reference_breakdown(pos: &Position, w: &Weights) -> Breakdown {
        let tables = &PieceSquareTables::DEFAULT;
        let occ = pos.occupied();
        let mut phase = 0;
        for r in Role::ALL {
            phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
        }
        let phase = phase.min(PHASE_MAX);
        let mut material = [0; 2];
        let mut pst_sum = [0; 2];
        let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
        let mut att = Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2] };
        let mut pressure = [0i32; 2];
        let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];
        for c in Color::ALL {
            let own = pos.by_color(c);
            let them = pos.by_color(!c);
            for r in Role::ALL {
                let piece = Piece::new(c, r);
                for sq in pos.pieces(piece) {
                    material[c.index()] += taper(tables.material[r.index()], phase);
                    pst_sum[c.index()] += tables.pst(piece, sq);
                    let a = piece_attacks(piece, sq, occ);
                    att.by_role[c.index()][r.index()] |= a;
                    let reach = match r {
                        Role::Cannon => (attacks::rook_attacks(sq, occ) - occ) | (a & them),
                        _ => a - own,
                    };
                    let n = reach.count() as i32;
                    let mw = w.mobility[r.index()];
                    mobility[c.index()].mg += mw.mg * n;
                    mobility[c.index()].eg += mw.eg * n;
                    if (a & zones[(!c).index()]).any() {
                        pressure[c.index()] += match r {
                            Role::Rook | Role::Horse => 3,
                            Role::Cannon | Role::Pawn => 2,
                            _ => 0,
                        };
                    }
                }
            }
            att.all[c.index()] = att.by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
        }
        let relations = |c: Color| {
            let (us, them) = (c.index(), (!c).index());
            let mut bonus = 0;
            let mut threats = TopThreats::default();
            for sq in pos.by_color(c) - pos.by_role(Role::King) {
                let Some(piece) = pos.piece_at(sq) else { continue };
                let defended = att.all[us].contains(sq);
                if defended {
                    bonus += w.defended[piece.role.index()];
                }
                if !att.all[them].contains(sq) {
                    continue;
                }
                let value = tables.material[piece.role.index()].mg;
                threats.add(threat_size(value, defended, sq, &att.by_role[them], &tables.material));
            }
            if pos.turn() == c {
                bonus -= (threats.first * w.threat_first + threats.second * w.threat_second) / 64;
            }
            bonus
        };
        let relations = [relations(Color::Red), relations(Color::Black)];
        let safety = [
            king_safety(pos, Color::Red, pressure[1], phase, w),
            king_safety(pos, Color::Black, pressure[0], phase, w),
        ];
        // The per-side terms are what this reference computes its own way; summing them is shared.
        Sides { phase, material, pst: pst_sum, mobility, relations, safety }.breakdown(pos.turn(), w)
    }

    #[test]
    fn breakdown_equals_the_piece_by_piece_reference() {
        // Random games (a fixed-seed generator) from the start and from a middlegame, every
        // position checked with the default and the basic weights.
        let starts = [
            Position::startpos(),
            Position::from_fen("2bakab2/5r3/1cn1c1n2/2C1p1p1p/9/1p4P2/P1r1P3P/1RN1C1N2/4A4/2BAK1BR1 w - - 2 13")
                .unwrap(),
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for start in &starts {
            for _game in 0..40 {
                let mut pos = start.clone();
                for _ply in 0..120 {
                    for w in [Weights::DEFAULT, Weights::BASIC] {
                        let b = breakdown(&pos, &w);
                        assert_eq!(b, reference_breakdown(&pos, &w), "{}", pos.fen());
                        // `evaluate` (with POPCNT where the CPU has it) agrees with the portable code.
                        let v = if pos.turn() == Color::Red { b.total } else { -b.total };
                        assert_eq!(evaluate(&pos, &w), v, "{}", pos.fen());
                    }
                    checked += 1;
                    let moves = pos.moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    pos.make_move(moves[(seed >> 33) as usize % moves.len()]);
                }
            }
        }
        assert!(checked > 5_000, "{checked}");
    }
}
