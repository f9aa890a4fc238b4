//! The evaluation's numbers: material, the piece-square tables and the weights of the other
//! terms, all fitted by `qiku tune` (its `--emit` output replaces them here), with the types they
//! are written in and how a piece reads its table cell. The terms that use them are in the parent
//! module; nothing here depends on it.

use crate::core::{Piece, Square};

/// Scores in centipawn-like units. Uncrossed pawns are weak in Xiangqi, so the unit is smaller
/// than a pawn: a rook is worth about 600 in the opening and more as the board empties.
pub type Value = i32;

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
/// Then the endgame tables and the placement terms were added (the endgame tables starting as
/// copies of the middlegame ones, the new weights at zero) and everything tuned again the same
/// way, on the positions the evaluation of that time kept: 378,248 training and 42,531
/// validation positions, k = 0.005341, validation 0.118739 -> 0.118159 (a retune without the new
/// terms: 0.118598). Then the material imbalance was added (at zero) and everything tuned again
/// from those numbers: 371,376 training and 41,772 validation positions, k = 0.005317, validation
/// 0.117944 -> 0.116900 (a retune without it: 0.117949). Then the threat term moved to the fixed
/// [`PIECE_VALUE`]s and everything was tuned again: 370,645 training and 41,699 validation
/// positions, k = 0.005289, validation 0.116675 -> 0.116585. Then the safe checks of the king
/// safety were added (at zero) and everything tuned again: 374,071 training and 42,073
/// validation positions, k = 0.005276, validation 0.116586 -> 0.116403 (before the tuner left
/// out the positions of drawish material, which are few). Then the king danger (products of the
/// king safety's signs) was added (at zero) and everything tuned again: 375,661 training and
/// 42,288 validation positions, k = 0.005274, validation 0.116646 -> 0.116533 (a retune without
/// it: 0.116645); `docs/ENGINE.md` ("Tuning") has the
/// matches. The data prices pieces low in the middlegame and high in the endgame (the phase
/// blend) and moves value into the tables, the mobility and the imbalance: read them together,
/// not one by one (the advisor's 26 here is worth more against enemy rooks, the imbalance says).
pub const MATERIAL: [Pair; 7] = [p(0, 0), p(26, 68), p(86, 68), p(348, 494), p(594, 1455), p(170, 504), p(127, 126)];

/// What each role is worth when it is won or lost in an exchange, by role index, in centipawns:
/// fixed, not tuned. The move ordering (captures by victim, "bad" captures), the quiescence
/// search and the threat term (which looks for the cheapest attacker first) compare pieces by
/// these numbers.
/// They are not the evaluation's [`MATERIAL`], whose tuned middlegame numbers leave part of a
/// piece's worth to the imbalance, the mobility and the tables (a cannon's 176 there is not
/// what it costs to lose one). The ratios are the usual ones (a rook about two horses or
/// cannons, an advisor or elephant about one and a half pawns).
pub const PIECE_VALUE: [Value; 7] = [0, 140, 150, 450, 1000, 480, 100];

/// Piece-square bonuses, red's view, row 0 = rank 9 (black's back rank), column 0 = file a.
/// Every entry is within ±250 (`tune::PST_LIMIT`): the tables below are the last fit's with
/// the 21 entries beyond that bound clamped to it (a pawn on the enemy palace's centre had
/// 797, a horse there 522).
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
    [   0,   0,   0,-250,-120,-250,   0,   0,   0],
    [   0,   0,   0,  17,  17,  17,   0,   0,   0],
    [   0,   0,   0,  78, 112,  78,   0,   0,   0],
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
    [   0,   0,   0, -80,   0, -80,   0,   0,   0],
    [   0,   0,   0,   0, -30,   0,   0,   0,   0],
    [   0,   0,   0, -65,   0, -65,   0,   0,   0],
];

#[rustfmt::skip]
const ELEPHANT_PST: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0, -70,   0,   0,   0, -70,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [ -57,   0,   0,   0,  -6,   0,   0,   0, -57],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0, -31,   0,   0,   0, -31,   0,   0],
];

#[rustfmt::skip]
const HORSE_PST: Table = [
    [  20,  -4,  56, 120,  20, 120,  56,  -4,  20],
    [ 133,  -9, 195,  59, 250,  59, 195,  -9, 133],
    [  72,  67,  36, 198,  66, 198,  36,  67,  72],
    [  -4, 158,  18, 136, -22, 136,  18, 158,  -4],
    [ -43,   3,  37,  96, 102,  96,  37,   3, -43],
    [  22, -15,  82,  14,  16,  14,  82, -15,  22],
    [ -58, -53, -27, -16,  30, -16, -27, -53, -58],
    [ -50, -45, -35,  42, -30,  42, -35, -45, -50],
    [ -79,-158, -64, -55,  41, -55, -64,-158, -79],
    [  -8, -80, -65, -57,-204, -57, -65, -80,  -8],
];

#[rustfmt::skip]
const ROOK_PST: Table = [
    [   8,  42,   6, 164, 154, 164,   6,  42,   8],
    [  -9,  33,  -5,  36, 204,  36,  -5,  33,  -9],
    [ -24,  13,  15,  58, 137,  58,  15,  13, -24],
    [  16,  16,  46,  22,  28,  22,  46,  16,  16],
    [ -33,   3,  22,   5,  29,   5,  22,   3, -33],
    [  13,  -1,  25,  16,   9,  16,  25,  -1,  13],
    [   6,  19,  -3,  18,  28,  18,  -3,  19,   6],
    [ -19, -20, -11,  14, -90,  14, -11, -20, -19],
    [ -22, -19,  16, -14,  13, -14,  16, -19, -22],
    [ -57, -19, -18,  14,-250,  14, -18, -19, -57],
];

#[rustfmt::skip]
const CANNON_PST: Table = [
    [ 104,  72,-112,-118,  53,-118,-112,  72, 104],
    [ -50, -35, -39,  -4, -95,  -4, -39, -35, -50],
    [  37, -19, -28, -57, -91, -57, -28, -19,  37],
    [  21, -20, -23, -30,  46, -30, -23, -20,  21],
    [  59, -33, -41,  -7,  70,  -7, -41, -33,  59],
    [   2, -31, -31, -53,  15, -53, -31, -31,   2],
    [ -49, -45, -13, -17, -12, -17, -13, -45, -49],
    [ -22, -33,   6,   5,   3,   5,   6, -33, -22],
    [  16, -11,  42,   5,  99,   5,  42, -11,  16],
    [  -8, -15, -17,  62, 170,  62, -17, -15,  -8],
];

#[rustfmt::skip]
const PAWN_PST: Table = [
    [-250, -69, 243, 250, 250, 250, 243, -69,-250],
    [ -27, 197, 250, 250, 250, 250, 250, 197, -27],
    [  32, 179, 169, 250, 108, 250, 169, 179,  32],
    [  62,  61,  75, 182, 169, 182,  75,  61,  62],
    [ -21,  51,  28, 137, 109, 137,  28,  51, -21],
    [ -59,   0, -25,   0,   2,   0, -25,   0, -59],
    [ -75,   0, -60,   0,   0,   0, -60,   0, -75],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
];

#[rustfmt::skip]
const KING_PST_EG: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,  64, -43,  64,   0,   0,   0],
    [   0,   0,   0,  -9,   8,  -9,   0,   0,   0],
    [   0,   0,   0,  -4, -17,  -4,   0,   0,   0],
];
#[rustfmt::skip]
const ADVISOR_PST_EG: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,  30,   0,  30,   0,   0,   0],
    [   0,   0,   0,   0,  23,   0,   0,   0,   0],
    [   0,   0,   0,   8,   0,   8,   0,   0,   0],
];
#[rustfmt::skip]
const ELEPHANT_PST_EG: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,  15,   0,   0,   0,  15,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [  -5,   0,   0,   0,   4,   0,   0,   0,  -5],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   4,   0,   0,   0,   4,   0,   0],
];
#[rustfmt::skip]
const HORSE_PST_EG: Table = [
    [  13, -57,  51,  89,  76,  89,  51, -57,  13],
    [ -97,  63,  21,  43,-226,  43,  21,  63, -97],
    [  62,  26,   5, -18,  73, -18,   5,  26,  62],
    [  -6,   8,  20,  -5,  33,  -5,  20,   8,  -6],
    [  30,  37,  21,  22,  -6,  22,  21,  37,  30],
    [  26,  17,  11,  43,  45,  43,  11,  17,  26],
    [  55,  -2,  13,  34,  23,  34,  13,  -2,  55],
    [ -19,  -1, -19,  21, -51,  21, -19,  -1, -19],
    [ -64,  26,   1, -15,-169, -15,   1,  26, -64],
    [-206,  -4, -95, -18,-124, -18, -95,  -4,-206],
];
#[rustfmt::skip]
const ROOK_PST_EG: Table = [
    [  38,  11,  53, -67,  29, -67,  53,  11,  38],
    [  -3,  36,  50,  64, -19,  64,  50,  36,  -3],
    [  47,  12,  37,  17,  -2,  17,  37,  12,  47],
    [  36,  50,  45,  58,  67,  58,  45,  50,  36],
    [  62,  26,  44,  40,  47,  40,  44,  26,  62],
    [  -9,  56,  10,  44,  48,  44,  10,  56,  -9],
    [  18,  26,  67,  65,  85,  65,  67,  26,  18],
    [ -87,   8,  15, -28,  87, -28,  15,   8, -87],
    [ -77, -15, -15, -28,-163, -28, -15, -15, -77],
    [ -94, -50,-100, -49,-250, -49,-100, -50, -94],
];
#[rustfmt::skip]
const CANNON_PST_EG: Table = [
    [ -30, -15,  19,  19,-139,  19,  19, -15, -30],
    [  23,  33,  -7, -65,  34, -65,  -7,  33,  23],
    [   7, -31,  -7, -52, -29, -52,  -7, -31,   7],
    [ -20,   0,  18,   0,  20,   0,  18,   0, -20],
    [ -49,  17,  55,  -2, -14,  -2,  55,  17, -49],
    [ -19,   1,  -2,  -8,  22,  -8,  -2,   1, -19],
    [   7,  12,  20,   9,  32,   9,  20,  12,   7],
    [  19,   4,   6,  -8,  31,  -8,   6,   4,  19],
    [  10,  -6, -22,  26,  -7,  26, -22,  -6,  10],
    [  -1, -15, -40, -20, -23, -20, -40, -15,  -1],
];
#[rustfmt::skip]
const PAWN_PST_EG: Table = [
    [ 250,  -3,-135, -91,-250, -91,-135,  -3, 250],
    [  71,   8, -12, -14, 174, -14, -12,   8,  71],
    [  30,  34,  61, 155, 250, 155,  61,  34,  30],
    [  59,  72,  98,  87, 102,  87,  98,  72,  59],
    [  62,  57, 101, 105, 108, 105, 101,  57,  62],
    [  35,   0,  43,   0,  91,   0,  43,   0,  35],
    [  27,   0,  27,   0,  66,   0,  27,   0,  27],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
];

/// The middlegame tables by role index.
pub const PST: [&Table; 7] = [&KING_PST, &ADVISOR_PST, &ELEPHANT_PST, &HORSE_PST, &ROOK_PST, &CANNON_PST, &PAWN_PST];

/// The endgame tables by role index.
pub const PST_EG: [&Table; 7] =
    [&KING_PST_EG, &ADVISOR_PST_EG, &ELEPHANT_PST_EG, &HORSE_PST_EG, &ROOK_PST_EG, &CANNON_PST_EG, &PAWN_PST_EG];

/// The piece-square bonus (middlegame, endgame) for `piece` standing on `sq`.
#[inline]
pub fn pst(piece: Piece, sq: Square) -> Pair {
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
pub(super) fn cell_index(piece: Piece, sq: Square) -> usize {
    TABLE_CELLS[piece.color.index()][sq.index()] as usize
}

/// [`table_cell`] as one index into a table read row by row (`row * 9 + column`), by colour and
/// square: looked up rather than worked out, since the evaluation reads a table cell for every
/// piece.
pub(super) const TABLE_CELLS: [[u8; 90]; 2] = {
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
    /// Middlegame piece-square tables by role, as [`PST`].
    pub pst: [Table; 7],
    /// Endgame piece-square tables by role, as [`PST_EG`].
    pub pst_eg: [Table; 7],
}

impl PieceSquareTables {
    /// [`MATERIAL`] and [`PST`].
    pub const DEFAULT: PieceSquareTables = PieceSquareTables {
        material: MATERIAL,
        pst: [KING_PST, ADVISOR_PST, ELEPHANT_PST, HORSE_PST, ROOK_PST, CANNON_PST, PAWN_PST],
        pst_eg: [KING_PST_EG, ADVISOR_PST_EG, ELEPHANT_PST_EG, HORSE_PST_EG, ROOK_PST_EG, CANNON_PST_EG, PAWN_PST_EG],
    };

    /// The piece-square bonus (middlegame, endgame) for `piece` standing on `sq` in these tables.
    #[inline]
    pub fn pst(&self, piece: Piece, sq: Square) -> Pair {
        let cell = cell_index(piece, sq);
        let r = piece.role.index();
        Pair { mg: self.pst[r].as_flattened()[cell] as Value, eg: self.pst_eg[r].as_flattened()[cell] as Value }
    }
}

/// Where the evaluation reads a piece's table bonus: [`PieceSquareTables`] (the tuner's, any
/// numbers) or [`Compiled`] (the engine's, one load per piece).
pub(super) trait Lookup {
    fn pst(&self, piece: Piece, sq: Square) -> Pair;
}

impl Lookup for PieceSquareTables {
    #[inline(always)]
    fn pst(&self, piece: Piece, sq: Square) -> Pair {
        PieceSquareTables::pst(self, piece, sq)
    }
}

/// [`PieceSquareTables::DEFAULT`]'s bonuses by piece index and square, both phases side by side.
pub(super) struct Compiled([[Pair; 90]; 14]);

impl Lookup for Compiled {
    #[inline(always)]
    fn pst(&self, piece: Piece, sq: Square) -> Pair {
        self.0[piece.index()][sq.index()]
    }
}

/// The engine's tables, laid out for [`Compiled`] at compile time.
pub(super) static COMPILED: Compiled = {
    let t = &PieceSquareTables::DEFAULT;
    let mut out = [[Pair { mg: 0, eg: 0 }; 90]; 14];
    let mut piece = 0;
    while piece < 14 {
        let (color, role) = (piece / 7, piece % 7);
        let mut sq = 0;
        while sq < 90 {
            let cell = TABLE_CELLS[color][sq] as usize;
            let (row, col) = (cell / 9, cell % 9);
            out[piece][sq] = Pair { mg: t.pst[role][row][col] as Value, eg: t.pst_eg[role][row][col] as Value };
            sq += 1;
        }
        piece += 1;
    }
    Compiled(out)
};

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
    /// Per safe checking square, by the enemy rook, horse or cannon that can reach it: a square
    /// from which that piece would give check, which it can move to now, and which no piece of
    /// the king's side attacks.
    pub safe_check: [Value; 3],
    /// King danger, where the signs of an attack meet (in sixteenths): per safe checking square
    /// times the enemy's king-zone pressure units, per safe checking square times the missing
    /// advisors and elephants, per weak square of the king zone (attacked by the enemy, by no
    /// piece of the king's side but the king) times the pressure units, and per weak square.
    pub king_danger: [Value; 4],
    /// Extra bonus of a horse by how many squares it reaches (0 to 8), beyond `mobility`.
    pub horse_reach: [Pair; 9],
    /// A rook on a file without pawns.
    pub rook_open_file: Pair,
    /// A rook on a file with enemy pawns but none of its own.
    pub rook_half_open_file: Pair,
    /// Per pair of side-by-side pawns across the river.
    pub connected_pawns: Pair,
    /// Both advisors and both elephants still on the board.
    pub guards_complete: Pair,
    /// Material imbalance, in sixteenths: `imbalance_own[i][j]` (i <= j) per pair of the side's own
    /// pieces of roles `i` and `j` (counts multiplied), `imbalance_them[i][j]` per own piece of
    /// role `i` and enemy piece of role `j` (roles by index; the king's row and column unused).
    pub imbalance_own: [[Value; 7]; 7],
    /// See [`Weights::imbalance_own`].
    pub imbalance_them: [[Value; 7]; 7],
    /// Side to move's bonus.
    pub tempo: Value,
}

impl Weights {
    /// The weights the engine plays with (UCI `EvalTerms full`).
    pub const DEFAULT: Weights = Weights {
        mobility: [p(31, -5), p(4, 0), p(2, -5), p(26, 15), p(4, 2), p(3, 3), p(-9, 8)],
        threat_second: 15,
        threat_first: 3,
        defended: [0, 11, 4, 1, 6, 4, 3],
        empty_cannon: p(124, -65),
        king_pressure: 1,
        missing_guard: 22,
        safe_check: [43, 33, 21],
        king_danger: [78, -192, 51, -290],
        horse_reach: [
            p(107, -142),
            p(68, 17),
            p(54, 15),
            p(40, 16),
            p(32, 17),
            p(7, 19),
            p(-15, 6),
            p(-31, 1),
            p(-63, -15),
        ],
        rook_open_file: p(11, 4),
        rook_half_open_file: p(-10, 49),
        connected_pawns: p(-157, 98),
        guards_complete: p(-29, -22),
        imbalance_own: [
            [0, 0, 0, 0, 0, 0, 0],
            [0, -9, 115, -134, -594, 213, -234],
            [0, 0, 45, -98, -122, 71, 12],
            [0, 0, 0, 44, 678, 415, 12],
            [0, 0, 0, 0, -924, 313, 44],
            [0, 0, 0, 0, 0, -459, 10],
            [0, 0, 0, 0, 0, 0, 1],
        ],
        imbalance_them: [
            [0, 0, 0, 0, 0, 0, 0],
            [0, 0, -32, 90, 499, -194, 135],
            [0, 32, 0, -112, -77, -30, 31],
            [0, -90, 112, 0, -809, -399, -89],
            [0, -499, 77, 809, 0, 81, 52],
            [0, 194, 30, 399, -81, 0, -67],
            [0, -135, -31, 89, -52, 67, 0],
        ],
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
        safe_check: [0; 3],
        king_danger: [0; 4],
        horse_reach: [p(0, 0); 9],
        rook_open_file: p(0, 0),
        rook_half_open_file: p(0, 0),
        connected_pawns: p(0, 0),
        guards_complete: p(0, 0),
        imbalance_own: [[0; 7]; 7],
        imbalance_them: [[0; 7]; 7],
        tempo: 10,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::DEFAULT
    }
}
