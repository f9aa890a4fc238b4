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
pub const MATERIAL: [Pair; 7] = [p(0, 0), p(33, 69), p(91, 69), p(352, 495), p(596, 1455), p(172, 505), p(195, 150)];

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
    [   0,   0,   0,-250, -60,-250,   0,   0,   0],
    [   0,   0,   0,  79,  85,  79,   0,   0,   0],
    [   0,   0,   0, 147, 180, 147,   0,   0,   0],
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
    [   0,   0,   0, -77,   0, -77,   0,   0,   0],
    [   0,   0,   0,   0, -28,   0,   0,   0,   0],
    [   0,   0,   0, -63,   0, -63,   0,   0,   0],
];

#[rustfmt::skip]
const ELEPHANT_PST: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0, -67,   0,   0,   0, -67,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [ -54,   0,   0,   0,  -3,   0,   0,   0, -54],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0, -28,   0,   0,   0, -28,   0,   0],
];

#[rustfmt::skip]
const HORSE_PST: Table = [
    [  10, -11,  49, 150,  14, 150,  49, -11,  10],
    [ 134, -15, 185,  51, 250,  51, 185, -15, 134],
    [  67,  62,  30, 200,  56, 200,  30,  62,  67],
    [ -10, 151,  13, 130, -25, 130,  13, 151, -10],
    [ -47,  -5,  36,  90,  94,  90,  36,  -5, -47],
    [  17, -20,  76,   9,  10,   9,  76, -20,  17],
    [ -63, -60, -32, -23,  24, -23, -32, -60, -63],
    [ -55, -48, -41,  36, -31,  36, -41, -48, -55],
    [ -85,-167, -71, -60,  37, -60, -71,-167, -85],
    [  -9, -86, -67, -61,-206, -61, -67, -86,  -9],
];

#[rustfmt::skip]
const ROOK_PST: Table = [
    [  10,  45,   5, 167, 139, 167,   5,  45,  10],
    [  -3,  34,  -2,  38, 223,  38,  -2,  34,  -3],
    [ -18,  16,  17,  59, 150,  59,  17,  16, -18],
    [  20,  18,  49,  24,  32,  24,  49,  18,  20],
    [ -31,   5,  23,   8,  31,   8,  23,   5, -31],
    [  16,   2,  28,  18,  12,  18,  28,   2,  16],
    [   8,  21,   1,  20,  30,  20,   1,  21,   8],
    [ -16, -17,  -9,  15, -84,  15,  -9, -17, -16],
    [ -21, -15,  18, -11,  23, -11,  18, -15, -21],
    [ -55, -16, -16,  18,-250,  18, -16, -16, -55],
];

#[rustfmt::skip]
const CANNON_PST: Table = [
    [ 105,  71,-113,-129,  62,-129,-113,  71, 105],
    [ -48, -37, -35,  -3, -88,  -3, -35, -37, -48],
    [  40, -18, -28, -54, -90, -54, -28, -18,  40],
    [  22, -21, -23, -29,  45, -29, -23, -21,  22],
    [  62, -33, -40,  -8,  71,  -8, -40, -33,  62],
    [   3, -31, -32, -53,  16, -53, -32, -31,   3],
    [ -51, -45, -12, -19, -15, -19, -12, -45, -51],
    [ -22, -33,   6,   5,   4,   5,   6, -33, -22],
    [  16, -10,  44,   4,  98,   4,  44, -10,  16],
    [  -6, -16, -17,  64, 191,  64, -17, -16,  -6],
];

#[rustfmt::skip]
const PAWN_PST: Table = [
    [-250,-185, 123, 142, -37, 142, 123,-185,-250],
    [-171,  65, 173, 250, 250, 250, 173,  65,-171],
    [ -92,  41,  38, 142, -22, 142,  38,  41, -92],
    [ -68, -75, -59,  46,  34,  46, -59, -75, -68],
    [-151, -82,-105,   2, -25,   2,-105, -82,-151],
    [-187,   0,-152,   0,-126,   0,-152,   0,-187],
    [-203,   0,-187,   0,-128,   0,-187,   0,-203],
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
    [   0,   0,   0,  54, -37,  54,   0,   0,   0],
    [   0,   0,   0,  -5,   7,  -5,   0,   0,   0],
    [   0,   0,   0,  -5, -17,  -5,   0,   0,   0],
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
    [   0,   0,   0,   0,  24,   0,   0,   0,   0],
    [   0,   0,   0,   8,   0,   8,   0,   0,   0],
];
#[rustfmt::skip]
const ELEPHANT_PST_EG: Table = [
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,  16,   0,   0,   0,  16,   0,   0],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [  -6,   0,   0,   0,   5,   0,   0,   0,  -6],
    [   0,   0,   0,   0,   0,   0,   0,   0,   0],
    [   0,   0,   4,   0,   0,   0,   4,   0,   0],
];
#[rustfmt::skip]
const HORSE_PST_EG: Table = [
    [   8, -58,  52,  66,  70,  66,  52, -58,   8],
    [-102,  61,  21,  40,-114,  40,  21,  61,-102],
    [  63,  22,   2, -28,  74, -28,   2,  22,  63],
    [  -7,   8,  17,  -7,  29,  -7,  17,   8,  -7],
    [  27,  37,  14,  22,  -7,  22,  14,  37,  27],
    [  22,  15,   9,  40,  44,  40,   9,  15,  22],
    [  51,  -5,  11,  35,  22,  35,  11,  -5,  51],
    [ -22,  -6, -22,  19, -57,  19, -22,  -6, -22],
    [ -66,  26,   1, -19,-173, -19,   1,  26, -66],
    [-212,  -5,-103, -25,-127, -25,-103,  -5,-212],
];
#[rustfmt::skip]
const ROOK_PST_EG: Table = [
    [  43,  16,  60, -65,  57, -65,  60,  16,  43],
    [   5,  42,  56,  71, -19,  71,  56,  42,   5],
    [  49,  16,  40,  25,  -6,  25,  40,  16,  49],
    [  40,  56,  50,  64,  72,  64,  50,  56,  40],
    [  67,  33,  50,  45,  53,  45,  50,  33,  67],
    [  -5,  62,  14,  49,  52,  49,  14,  62,  -5],
    [  23,  31,  71,  70,  90,  70,  71,  31,  23],
    [ -84,  15,  22, -19,  86, -19,  22,  15, -84],
    [ -70,  -9, -10, -23,-166, -23, -10,  -9, -70],
    [ -89, -43, -95, -41,-250, -41, -95, -43, -89],
];
#[rustfmt::skip]
const CANNON_PST_EG: Table = [
    [ -31, -15,  19,  26,-141,  26,  19, -15, -31],
    [  22,  36,  -9, -65,  30, -65,  -9,  36,  22],
    [   8, -32,  -6, -52, -29, -52,  -6, -32,   8],
    [ -20,   0,  18,   0,  21,   0,  18,   0, -20],
    [ -51,  18,  56,  -1, -13,  -1,  56,  18, -51],
    [ -19,   1,  -2,  -8,  23,  -8,  -2,   1, -19],
    [   9,  15,  18,  11,  35,  11,  18,  15,   9],
    [  20,   4,   7,  -7,  31,  -7,   7,   4,  20],
    [  10,  -6, -22,  27,  -8,  27, -22,  -6,  10],
    [  -2, -13, -39, -22, -38, -22, -39, -13,  -2],
];
#[rustfmt::skip]
const PAWN_PST_EG: Table = [
    [  33, -32,-167, -75,-250, -75,-167, -32,  33],
    [  57, -17, -30,  15, 250,  15, -30, -17,  57],
    [   1,  18,  41, 137, 241, 137,  41,  18,   1],
    [  36,  55,  79,  69,  85,  69,  79,  55,  36],
    [  41,  38,  82,  87,  89,  87,  82,  38,  41],
    [  11,   0,  18,   0,  67,   0,  18,   0,  11],
    [   3,   0,   3,   0,  41,   0,   3,   0,   3],
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
///
/// ```
/// use qiku::engine::eval::{pst, PieceSquareTables};
/// use qiku::{Color, Piece, Role, Square};
///
/// let horse = Piece::new(Color::Red, Role::Horse);
/// let b0: Square = "b0".parse()?;
/// assert_eq!(pst(horse, b0), PieceSquareTables::DEFAULT.pst(horse, b0));
/// // Black reads its table with the ranks flipped, and the tables are left-right symmetric.
/// assert_eq!(pst(Piece::new(Color::Black, Role::Horse), "b9".parse()?), pst(horse, b0));
/// assert_eq!(pst(horse, "h0".parse()?), pst(horse, b0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn pst(piece: Piece, sq: Square) -> Pair {
    PieceSquareTables::DEFAULT.pst(piece, sq)
}

/// The row and column of `piece` on `sq` in its role's table (black reads it with the ranks
/// flipped).
///
/// ```
/// use qiku::engine::eval::table_cell;
/// use qiku::{Color, Piece, Role};
///
/// // Each king at home reads the last row's middle cell.
/// assert_eq!(table_cell(Piece::new(Color::Red, Role::King), "e0".parse()?), (9, 4));
/// assert_eq!(table_cell(Piece::new(Color::Black, Role::King), "e9".parse()?), (9, 4));
/// assert_eq!(table_cell(Piece::new(Color::Red, Role::Pawn), "a6".parse()?), (3, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    ///
    /// ```
    /// use qiku::engine::eval::{pst, table_cell, PieceSquareTables};
    /// use qiku::{Color, Piece, Role, Square};
    ///
    /// let king = Piece::new(Color::Red, Role::King);
    /// let e0: Square = "e0".parse()?;
    /// let (row, col) = table_cell(king, e0);
    /// let mut tables = PieceSquareTables::DEFAULT;
    /// tables.pst[Role::King.index()][row][col] += 7;
    /// assert_eq!(tables.pst(king, e0).mg, pst(king, e0).mg + 7);
    /// assert_eq!(tables.pst(king, e0).eg, pst(king, e0).eg); // the endgame table is apart
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
        mobility: [p(32, -5), p(5, -1), p(2, -5), p(27, 15), p(4, 2), p(3, 3), p(-6, 6)],
        threat_second: 15,
        threat_first: 3,
        defended: [0, 10, 4, 1, 6, 4, 3],
        empty_cannon: p(120, -64),
        king_pressure: 1,
        missing_guard: 20,
        safe_check: [42, 33, 21],
        king_danger: [81, -192, 53, -301],
        horse_reach: [
            p(110, -138),
            p(70, 20),
            p(56, 17),
            p(42, 18),
            p(33, 18),
            p(7, 20),
            p(-15, 6),
            p(-32, 2),
            p(-64, -16),
        ],
        rook_open_file: p(10, 4),
        rook_half_open_file: p(-12, 51),
        connected_pawns: p(-150, 94),
        guards_complete: p(-27, -23),
        imbalance_own: [
            [0, 0, 0, 0, 0, 0, 0],
            [0, -10, 118, -127, -585, 212, -229],
            [0, 0, 46, -91, -100, 81, 15],
            [0, 0, 0, 56, 700, 429, 57],
            [0, 0, 0, 0, -949, 313, 126],
            [0, 0, 0, 0, 0, -457, 52],
            [0, 0, 0, 0, 0, 0, -1],
        ],
        imbalance_them: [
            [0, 0, 0, 0, 0, 0, 0],
            [0, 0, -37, 91, 499, -193, 132],
            [0, 37, 0, -113, -86, -34, 25],
            [0, -91, 113, 0, -827, -405, -122],
            [0, -499, 86, 827, 0, 87, -16],
            [0, 193, 34, 405, -87, 0, -98],
            [0, -132, -25, 122, 16, 98, 0],
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
