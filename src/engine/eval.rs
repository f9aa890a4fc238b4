//! Static evaluation, in the spirit of the classic Xiangqi programs (ElephantEye, XQWLight and
//! their descendants): material, piece-square tables by role, mobility, the attack/defence
//! relations between pieces, king safety and a few placement terms, blended between middlegame and
//! endgame by the attacking material left on the board, and a material imbalance (what each piece
//! is worth beside the others, own and enemy). Every table is written from red's point of view
//! with black's back rank (rank 9) on the first row, as the board is drawn; black
//! pieces read the table with the ranks flipped. The tables are left-right symmetric, so the
//! evaluation of a position and of its mirror image are equal (tested). `docs/ENGINE.md`
//! describes every term.
//!
//! The numbers (material, tables and [`Weights::DEFAULT`]) are fitted to master-game results by
//! `qiku tune` (Texel's method, `qiku::tune`); the note above [`MATERIAL`] says how.
//!
//! The evaluation is a pure function of the placement and the side to move: no hidden state, so
//! it can be called from any number of search threads.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Position, Role, Square};

/// Scores in centipawn-like units. Uncrossed pawns are weak in Xiangqi, so the unit is smaller
/// than a pawn: a rook is worth about 600 in the opening and more as the board empties.
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
    [   0,   0,   0,-332,-120,-332,   0,   0,   0],
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
    [ 133,  -9, 195,  59, 522,  59, 195,  -9, 133],
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
    [ -57, -19, -18,  14,-448,  14, -18, -19, -57],
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
    [-982, -69, 243, 329, 583, 329, 243, -69,-982],
    [ -27, 197, 311, 506, 797, 506, 311, 197, -27],
    [  32, 179, 169, 278, 108, 278, 169, 179,  32],
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
    [ -94, -50,-100, -49,-303, -49,-100, -50, -94],
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
    [ 405,  -3,-135, -91,-459, -91,-135,  -3, 405],
    [  71,   8, -12, -14, 174, -14, -12,   8,  71],
    [  30,  34,  61, 155, 261, 155,  61,  34,  30],
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
trait Lookup {
    fn pst(&self, piece: Piece, sq: Square) -> Pair;
}

impl Lookup for PieceSquareTables {
    #[inline(always)]
    fn pst(&self, piece: Piece, sq: Square) -> Pair {
        PieceSquareTables::pst(self, piece, sq)
    }
}

/// [`PieceSquareTables::DEFAULT`]'s bonuses by piece index and square, both phases side by side.
struct Compiled([[Pair; 90]; 14]);

impl Lookup for Compiled {
    #[inline(always)]
    fn pst(&self, piece: Piece, sq: Square) -> Pair {
        self.0[piece.index()][sq.index()]
    }
}

/// The engine's tables, laid out for [`Compiled`] at compile time.
static COMPILED: Compiled = {
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
    /// Piece placement beyond the tables: horses by their reach, rooks on open files, connected
    /// pawns, complete guards.
    pub structure: Value,
    /// The side to move's bonus.
    pub tempo: Value,
    /// What drawish material takes back from the side ahead (zero unless that side has no
    /// attacking piece, or only one against guards alone: [`super::drawish`]).
    pub drawish: Value,
    /// The sum, as the search sees it (red's view).
    pub total: Value,
}

impl std::fmt::Display for Breakdown {
    /// `material 0 pst 0 mobility 0 relations 0 king safety 0 structure 0 tempo 10 = 10 (phase
    /// 48/48)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "material {} pst {} mobility {} relations {} king safety {} structure {} tempo {}",
            self.material, self.pst, self.mobility, self.relations, self.king_safety, self.structure, self.tempo,
        )?;
        if self.drawish != 0 {
            write!(f, " drawish {}", self.drawish)?;
        }
        write!(f, " = {} (phase {}/{PHASE_MAX})", self.total, self.phase)
    }
}

/// The evaluation from the side to move's point of view.
///
/// ```
/// use qiku::engine::eval::{breakdown, evaluate, Weights};
/// use qiku::Position;
///
/// let w = Weights::DEFAULT;
/// // The start position is symmetric: either side to move sees the same value.
/// let start = Position::startpos();
/// let black_to_move = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")?;
/// assert_eq!(evaluate(&start, &w), evaluate(&black_to_move, &w));
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
    let v = breakdown_in(pos, &COMPILED, &MATERIAL, w).total;
    match pos.turn() {
        Color::Red => v,
        Color::Black => -v,
    }
}

/// Per side: what each role attacks, and everything attacked.
struct Attacks {
    by_role: [[Bitboard; 7]; 2],
    all: [Bitboard; 2],
    /// Every square each side's cannons can move to (quiet moves and captures).
    cannon_moves: [Bitboard; 2],
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
    pst: Pair,
    /// Every square they attack.
    attacks: Bitboard,
    /// Their mobility: reachable squares, counted per piece.
    reach: i32,
    /// Every square they can move to.
    moves: Bitboard,
    /// How many attack the enemy king's zone.
    pressing: i32,
    /// Their bonuses by reach count (horses: [`Weights::horse_reach`]).
    by_reach: Pair,
}

/// Sums the evaluation's per-piece terms over the pieces `piece` on the board; `attack(sq)`
/// gives a piece's attacks and its reachable squares from `sq`.
#[inline(always)]
fn scan_role(
    pos: &Position,
    tables: &impl Lookup,
    piece: Piece,
    zone: Bitboard,
    by_reach: &[Pair],
    attack: impl Fn(Square) -> (Bitboard, Bitboard),
) -> RoleScan {
    let zero = Pair { mg: 0, eg: 0 };
    let mut scan = RoleScan {
        pieces: 0,
        pst: zero,
        attacks: Bitboard::EMPTY,
        reach: 0,
        moves: Bitboard::EMPTY,
        pressing: 0,
        by_reach: zero,
    };
    for sq in pos.pieces(piece) {
        let (a, reach) = attack(sq);
        if let Some(b) = by_reach.get(reach.count() as usize) {
            scan.by_reach.mg += b.mg;
            scan.by_reach.eg += b.eg;
        }
        scan.pieces += 1;
        let v = tables.pst(piece, sq);
        scan.pst.mg += v.mg;
        scan.pst.eg += v.eg;
        scan.attacks |= a;
        scan.reach += reach.count() as i32;
        scan.moves |= reach;
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
    breakdown_in(pos, &COMPILED, &MATERIAL, w)
}

/// [`breakdown`] with other material and piece-square tables (the tuner's reference evaluation).
pub fn breakdown_with(pos: &Position, tables: &PieceSquareTables, w: &Weights) -> Breakdown {
    breakdown_in(pos, tables, &tables.material, w)
}

/// [`breakdown_with`], reading the tables through `tables`.
#[inline(always)]
fn breakdown_in(pos: &Position, tables: &impl Lookup, material_values: &[Pair; 7], w: &Weights) -> Breakdown {
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);

    let mut material = [0; 2];
    let mut pst_sum = [Pair { mg: 0, eg: 0 }; 2];
    let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
    // The horses' bonuses by reach, counted with the placement terms.
    let mut horse_reach = [Pair { mg: 0, eg: 0 }; 2];
    let mut att =
        Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2], cannon_moves: [Bitboard::EMPTY; 2] };
    // Attacking units per side aimed at the other king's zone.
    let mut pressure = [0i32; 2];
    let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];
    let mut counts = [[0i32; 7]; 2];

    for c in Color::ALL {
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        let zone = zones[(!c).index()];
        // Each role with its own attack function, so that no loop dispatches on the role.
        let scans = [
            scan_role(pos, tables, Piece::new(c, Role::King), zone, &[], |sq| {
                let a = attacks::king_attacks(sq);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Advisor), zone, &[], |sq| {
                let a = attacks::advisor_attacks(sq);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Elephant), zone, &[], |sq| {
                let a = attacks::elephant_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Horse), zone, &w.horse_reach, |sq| {
                let a = attacks::horse_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Rook), zone, &[], |sq| {
                let a = attacks::rook_attacks(sq, occ);
                (a, a - own)
            }),
            scan_role(pos, tables, Piece::new(c, Role::Cannon), zone, &[], |sq| {
                // A cannon moves like a rook but only captures over a screen.
                let a = attacks::cannon_captures(sq, occ);
                (a, (attacks::rook_attacks(sq, occ) - occ) | (a & them))
            }),
            scan_role(pos, tables, Piece::new(c, Role::Pawn), zone, &[], |sq| {
                let a = attacks::pawn_attacks(c, sq);
                (a, a - own)
            }),
        ];
        for (r, scan) in Role::ALL.into_iter().zip(scans) {
            // Per piece the same terms: summed per role, the totals are the same.
            material[c.index()] += scan.pieces * taper(material_values[r.index()], phase);
            counts[c.index()][r.index()] = scan.pieces;
            pst_sum[c.index()].mg += scan.pst.mg;
            pst_sum[c.index()].eg += scan.pst.eg;
            att.by_role[c.index()][r.index()] = scan.attacks;
            if r == Role::Cannon {
                att.cannon_moves[c.index()] = scan.moves;
            }
            let mw = w.mobility[r.index()];
            mobility[c.index()].mg += mw.mg * scan.reach;
            mobility[c.index()].eg += mw.eg * scan.reach;
            horse_reach[c.index()].mg += scan.by_reach.mg;
            horse_reach[c.index()].eg += scan.by_reach.eg;
            pressure[c.index()] += scan.pressing
                * match r {
                    Role::Rook | Role::Horse => 3,
                    Role::Cannon | Role::Pawn => 2,
                    _ => 0,
                };
        }
        att.all[c.index()] = att.by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    }

    material[0] += imbalance(&counts[0], &counts[1], w);
    material[1] += imbalance(&counts[1], &counts[0], w);
    let relations = [relations(pos, &att, Color::Red, w), relations(pos, &att, Color::Black, w)];
    let safety = [
        king_safety(pos, &att, Color::Red, pressure[1], phase, w),
        king_safety(pos, &att, Color::Black, pressure[0], phase, w),
    ];
    let structure = [structure(pos, Color::Red, horse_reach[0], w), structure(pos, Color::Black, horse_reach[1], w)];
    let b = Sides { phase, material, pst: pst_sum, mobility, relations, safety, structure }.breakdown(pos.turn(), w);
    scale_drawish(pos, b)
}

/// The side ahead keeps only the share of its advantage that its material can win
/// ([`super::drawish`]): sets [`Breakdown::drawish`] and the total.
#[inline(always)]
fn scale_drawish(pos: &Position, mut b: Breakdown) -> Breakdown {
    let ahead = match b.total {
        t if t > 0 => Some(Color::Red),
        t if t < 0 => Some(Color::Black),
        _ => None,
    };
    if let Some(c) = ahead {
        let scale = super::drawish::scale(pos, c);
        if scale < super::drawish::FULL {
            b.drawish = b.total * scale / super::drawish::FULL - b.total;
            b.total += b.drawish;
        }
    }
    b
}

/// The material imbalance of a side with `own` pieces per role against `them` (see
/// [`Weights::imbalance_own`]).
#[inline(always)]
pub(crate) fn imbalance(own: &[i32; 7], them: &[i32; 7], w: &Weights) -> Value {
    let mut v = 0;
    for i in 1..7 {
        if own[i] == 0 {
            continue;
        }
        let with_own: Value = w.imbalance_own[i][i..].iter().zip(&own[i..]).map(|(a, n)| a * n).sum();
        let with_them: Value = w.imbalance_them[i][1..].iter().zip(&them[1..]).map(|(a, n)| a * n).sum();
        v += own[i] * (with_own + with_them);
    }
    v / 16
}

/// Every square of the file of each square.
static FILE_OF: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut rank = 0;
        while rank < 10 {
            t[sq] |= 1u128 << (rank * 9 + sq % 9);
            rank += 1;
        }
        sq += 1;
    }
    t
};

/// Every square but those of file i (the last file).
const NOT_LAST_FILE: u128 = {
    let mut m = 0u128;
    let mut sq = 0;
    while sq < 90 {
        if sq % 9 != 8 {
            m |= 1u128 << sq;
        }
        sq += 1;
    }
    m
};

/// How many of each placement term `c` scores: rooks on open and half-open files, side-by-side
/// crossed pawns, complete guards. Shared with the tuner's trace.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StructureCounts {
    pub rook_open: i32,
    pub rook_half_open: i32,
    pub connected: i32,
    pub guards_complete: i32,
}

/// Counts [`StructureCounts`] for `c`.
#[inline(always)]
pub(crate) fn structure_counts(pos: &Position, c: Color) -> StructureCounts {
    let mut k = StructureCounts::default();
    let mine = pos.pieces(Piece::new(c, Role::Pawn)).0;
    let theirs = pos.pieces(Piece::new(!c, Role::Pawn)).0;
    for sq in pos.pieces(Piece::new(c, Role::Rook)) {
        let file = FILE_OF[sq.index()];
        if mine & file == 0 {
            if theirs & file == 0 {
                k.rook_open += 1;
            } else {
                k.rook_half_open += 1;
            }
        }
    }
    // A crossed pawn with another on the next file of its rank (both are then across).
    let crossed = mine & attacks::home_half(!c).0;
    k.connected = (crossed & (crossed >> 1) & NOT_LAST_FILE).count_ones() as i32;
    let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() + pos.pieces(Piece::new(c, Role::Elephant)).count();
    k.guards_complete = i32::from(guards == 4);
    k
}

/// The placement terms of `c` (middlegame, endgame), with its horses' bonuses by reach
/// (`horse_reach`, summed while the horses are scanned).
#[inline(always)]
fn structure(pos: &Position, c: Color, horse_reach: Pair, w: &Weights) -> Pair {
    let k = structure_counts(pos, c);
    let mut v = horse_reach;
    let mut add = |n: i32, x: Pair| {
        v.mg += n * x.mg;
        v.eg += n * x.eg;
    };
    add(k.rook_open, w.rook_open_file);
    add(k.rook_half_open, w.rook_half_open_file);
    add(k.connected, w.connected_pawns);
    add(k.guards_complete, w.guards_complete);
    v
}

/// The evaluation's terms per side (red, black), before they are tapered and subtracted.
struct Sides {
    phase: i32,
    material: [Value; 2],
    pst: [Pair; 2],
    mobility: [Pair; 2],
    relations: [Value; 2],
    safety: [Value; 2],
    structure: [Pair; 2],
}

impl Sides {
    /// The breakdown from red's point of view with `turn` to move.
    fn breakdown(self, turn: Color, w: &Weights) -> Breakdown {
        let phase = self.phase;
        let diff = |a: [Value; 2]| a[0] - a[1];
        let mob = [taper(self.mobility[0], phase), taper(self.mobility[1], phase)];
        let pst = [taper(self.pst[0], phase), taper(self.pst[1], phase)];
        let structure = [taper(self.structure[0], phase), taper(self.structure[1], phase)];
        let tempo = match turn {
            Color::Red => w.tempo,
            Color::Black => -w.tempo,
        };
        let mut b = Breakdown {
            phase,
            material: diff(self.material),
            pst: diff(pst),
            mobility: diff(mob),
            relations: diff(self.relations),
            king_safety: diff(self.safety),
            structure: diff(structure),
            tempo,
            drawish: 0,
            total: 0,
        };
        b.total = b.material + b.pst + b.mobility + b.relations + b.king_safety + b.structure + b.tempo;
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
fn relations(pos: &Position, att: &Attacks, c: Color, w: &Weights) -> Value {
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
            threats.add(threat_size(piece.role, defended.contains(sq), sq, &att.by_role[them]));
        }
        bonus -= (threats.first * w.threat_first + threats.second * w.threat_second) / 64;
    }
    bonus
}

/// What a piece of `role` on `sq`, attacked by pieces on `attackers` (by role), stands to lose,
/// in [`PIECE_VALUE`]s: all of it when undefended, else what it is worth above its cheapest
/// attacker. A king cannot take a defended piece, so it does not count as a cheaper attacker.
/// Shared with the tuner's trace, which must read the same threats off a position.
pub(crate) fn threat_size(role: Role, defended: bool, sq: Square, attackers: &[Bitboard; 7]) -> Value {
    let value = PIECE_VALUE[role.index()];
    if !defended {
        return value;
    }
    let cheapest =
        BY_VALUE[..6].iter().find(|r| attackers[r.index()].contains(sq)).map_or(value, |r| PIECE_VALUE[r.index()]);
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
/// enemy's attackers, an enemy cannon on the king's open file, the enemy's safe checks
/// ([`safe_checks`]), and the king danger where these meet ([`Weights::king_danger`]).
#[inline(always)]
fn king_safety(pos: &Position, att: &Attacks, c: Color, enemy_pressure: i32, phase: i32, w: &Weights) -> Value {
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
    let checks = safe_checks(pos, &att.by_role[enemy.index()], att.cannon_moves[enemy.index()], att.all[c.index()], c);
    v -= checks.iter().zip(&w.safe_check).map(|(n, x)| n * x).sum::<Value>();
    let weak = weak_zone_squares(k, &att.by_role[c.index()], att.all[enemy.index()]);
    let danger = danger_counts(checks.iter().sum(), enemy_pressure, 4 - guards, weak);
    v -= danger.iter().zip(&w.king_danger).map(|(n, x)| n * x).sum::<Value>() / 16;
    v
}

/// The squares of the zone around the king at `k` that the enemy attacks (`enemy_attacks`) and
/// no piece of the king's side but the king (`own_attacks`, by role) defends.
#[inline(always)]
pub(crate) fn weak_zone_squares(k: Square, own_attacks: &[Bitboard; 7], enemy_attacks: Bitboard) -> i32 {
    let defended = own_attacks[1..].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    ((king_zone(k) & enemy_attacks) - defended).count() as i32
}

/// The counts [`Weights::king_danger`] weighs, from the safe checking squares, the enemy's
/// king-zone pressure units, the missing guards and the weak zone squares.
#[inline(always)]
pub(crate) fn danger_counts(checks: i32, pressure: i32, missing_guards: i32, weak: i32) -> [i32; 4] {
    [checks * pressure, checks * missing_guards, weak * pressure, weak]
}

/// How many safe checking squares the enemy's rooks, horses and cannons have against `c`'s
/// king: squares from which the piece would give check (the board otherwise unchanged), that
/// one of them can move to now (`enemy_attacks` by role for rooks and horses,
/// `enemy_cannon_moves` for the cannons: their quiet moves and captures), and that `defended`
/// (everything `c` attacks) does not cover.
#[inline(always)]
pub(crate) fn safe_checks(
    pos: &Position,
    enemy_attacks: &[Bitboard; 7],
    enemy_cannon_moves: Bitboard,
    defended: Bitboard,
    c: Color,
) -> [i32; 3] {
    let k = pos.king(c);
    let occ = pos.occupied();
    let enemy = !c;
    let open = !(pos.by_color(enemy) | defended);
    let rook = attacks::rook_attacks(k, occ) & enemy_attacks[Role::Rook.index()] & open;
    let horse = attacks::horse_attackers(k, occ) & enemy_attacks[Role::Horse.index()] & open;
    let cannon = attacks::cannon_attackers(k, occ) & enemy_cannon_moves & open;
    [rook.count() as i32, horse.count() as i32, cannon.count() as i32]
}

#[cfg(test)]
mod tests;
