//! [`Position`]: a placement that obeys the rules, with side to move, Zobrist keys kept up to
//! date, and make/unmake. Build one from a [`Setup`] (checked) or from a FEN.
//!
//! Make/unmake was chosen over copy-make by benchmark (`benches/perft.rs`): the position is about
//! 300 bytes, and undoing a move is four bitboard updates.

use super::attacks::{self, home_half};
use super::bitboard::Bitboard;
use super::moves::Move;
use super::piece::{Color, Piece, Role};
use super::setup::Setup;
use super::square::Square;
use super::zobrist;
use std::fmt;

mod error;
pub use error::{IllegalMove, PositionError};

#[derive(Clone, PartialEq, Eq, Hash)]
/// A legal Xiangqi position: placement, side to move, move counters and Zobrist keys.
///
/// ```
/// use qiku::{Color, Position, Role};
///
/// let pos = Position::startpos();
/// assert_eq!(pos.turn(), Color::Red);
/// assert_eq!(pos.occupied().count(), 32);
/// assert_eq!(pos.by_role(Role::Cannon).count(), 4);
/// assert_eq!(pos.king(Color::Black).to_string(), "e9");
/// assert_eq!(pos.key(), pos.compute_key()); // the incremental Zobrist key
/// ```
pub struct Position {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 7],
    board: [Option<Piece>; 90],
    turn: Color,
    key: u64,
    mirror_key: u64,
    halfmoves: u32,
    fullmoves: u32,
}

/// What [`Position::make_move`] returns and [`Position::unmake_move`] needs back.
///
/// ```
/// use qiku::{notation::iccs, Position, Role};
///
/// // A rook takes a rook: the undo holds the captured piece, and unmaking restores everything.
/// let mut pos = Position::from_fen("3k5/9/9/9/9/9/9/9/r8/R3K4 w - - 0 1")?;
/// let before = pos.clone();
/// let m = iccs::parse(&pos, "a0a1")?;
/// let undo = pos.make_move(m);
/// assert_eq!(undo.captured.map(|p| p.role), Some(Role::Rook));
/// pos.unmake_move(m, undo);
/// assert_eq!(pos, before);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Undo {
    /// The piece the move captured, if any.
    pub captured: Option<Piece>,
    halfmoves: u32,
    fullmoves: u32,
    // Restoring the keys is cheaper than toggling them back.
    key: u64,
    mirror_key: u64,
}

/// Squares where each kind of piece can ever stand, `[color][role]`: palace, the elephant's
/// seven points, pawns' files before the river and everything beyond it. Built at compile time;
/// validation asks this for every piece of every position it builds.
static REACHABLE: [[Bitboard; 7]; 2] = {
    const fn bits(squares: &[u32]) -> u128 {
        let mut b = 0u128;
        let mut i = 0;
        while i < squares.len() {
            b |= 1u128 << squares[i];
            i += 1;
        }
        b
    }
    /// Rank r -> 9 - r of every square.
    const fn flip(b: u128) -> u128 {
        let mut out = 0u128;
        let mut sq = 0;
        while sq < 90 {
            if b >> sq & 1 != 0 {
                out |= 1u128 << ((9 - sq / 9) * 9 + sq % 9);
            }
            sq += 1;
        }
        out
    }
    // Square index = rank * 9 + file (a0 = 0, i9 = 89).
    let king = attacks::PALACE.0 & attacks::RED_HALF.0;
    let advisor = bits(&[3, 5, 13, 21, 23]);
    let elephant = bits(&[2, 6, 18, 22, 26, 38, 42]);
    let pawn = bits(&[27, 29, 31, 33, 35, 36, 38, 40, 42, 44]) | attacks::BLACK_HALF.0;
    let all = (1u128 << 90) - 1;
    let red = [king, advisor, elephant, all, all, all, pawn];
    let mut table = [[Bitboard(0); 7]; 2];
    let mut r = 0;
    while r < 7 {
        table[0][r] = Bitboard(red[r]);
        table[1][r] = Bitboard(flip(red[r]));
        r += 1;
    }
    table
};

#[inline]
fn reachable(piece: Piece) -> Bitboard {
    REACHABLE[piece.color.index()][piece.role.index()]
}

impl Position {
    /// The standard starting position.
    ///
    /// ```
    /// use qiku::core::START_FEN;
    /// let pos = qiku::Position::startpos();
    /// assert_eq!(pos.fen(), START_FEN);
    /// assert_eq!(pos.moves().len(), 44);
    /// assert!(!pos.is_check());
    /// ```
    pub fn startpos() -> Position {
        Position::from_fen(super::setup::START_FEN).unwrap_or_else(|_| unreachable!("start FEN is valid"))
    }

    /// Parses and validates a FEN.
    ///
    /// The FEN may stop after the side to move; the counters default to `0 1`. Bad text and illegal
    /// placements are errors that say what is wrong:
    ///
    /// ```
    /// use qiku::{Color, Position, PositionError};
    ///
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w")?;
    /// assert_eq!(pos.fen(), "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1");
    /// // The two kings may not face each other on an open file.
    /// assert_eq!(Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w"), Err(PositionError::KingsFacing));
    /// assert_eq!(Position::from_fen("9/9/9/9/9/9/9/9/9/4K4 w"), Err(PositionError::MissingKing(Color::Black)));
    /// assert!(matches!(Position::from_fen("4k4/9/9 w"), Err(PositionError::Fen(_))));
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn from_fen(fen: &str) -> Result<Position, PositionError> {
        Position::from_setup(&Setup::from_fen(fen)?)
    }

    /// Validates a setup against the rules: one king each in its palace, piece counts, pieces only
    /// on squares they can reach, kings not facing, side not to move not in check.
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, PositionError, Role, Setup};
    ///
    /// // A setup holds any placement; a position only a legal one.
    /// let mut setup = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w")?;
    /// assert_eq!(Position::from_setup(&setup), Err(PositionError::KingsFacing));
    /// setup.set("e3".parse()?, Some(Piece::new(Color::Red, Role::Pawn)));
    /// let pos = Position::from_setup(&setup)?;
    /// assert_eq!(pos.fen(), "4k4/9/9/9/9/9/4P4/9/9/4K4 w - - 0 1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        let pos = Position::from_setup_unchecked(setup);
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                let bb = pos.pieces(piece);
                if role == Role::King && bb.is_empty() {
                    return Err(PositionError::MissingKing(color));
                }
                if bb.count() > role.max_count() {
                    return Err(PositionError::TooMany { piece, count: bb.count() });
                }
                if let Some(square) = (bb - reachable(piece)).first() {
                    return Err(PositionError::ImpossibleSquare { piece, square });
                }
            }
        }
        for color in Color::ALL {
            // A pawn changes file only after crossing the river, so before it each file holds at
            // most the one pawn that started there.
            let uncrossed = pos.pieces(Piece::new(color, Role::Pawn)) & home_half(color);
            let mut files = [false; 9];
            for square in uncrossed {
                if std::mem::replace(&mut files[square.file().index()], true) {
                    return Err(PositionError::ImpossibleSquare { piece: Piece::new(color, Role::Pawn), square });
                }
            }
        }
        if pos.kings_facing() {
            return Err(PositionError::KingsFacing);
        }
        if pos.is_attacked_king(!pos.turn) {
            return Err(PositionError::OppositeCheck);
        }
        Ok(pos)
    }

    /// Builds a position without checking the rules. The caller guarantees the placement is
    /// legal (as tablebase unranking does); at least one king per side is required for move
    /// generation.
    ///
    /// ```
    /// use qiku::{Position, Setup};
    /// let setup = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w")?; // the kings face each other
    /// assert!(Position::from_setup(&setup).is_err());
    /// assert_eq!(Position::from_setup_unchecked(&setup).to_setup(), setup); // taken on trust
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn from_setup_unchecked(setup: &Setup) -> Position {
        let pieces = Square::all().filter_map(|sq| setup.piece_at(sq).map(|p| (sq, p)));
        let mut pos = Position::from_pieces_unchecked(pieces, setup.turn);
        pos.halfmoves = setup.halfmoves;
        pos.fullmoves = setup.fullmoves.max(1);
        pos
    }

    /// Builds a position from its pieces (each on its own square) and the side to move, without
    /// checking the rules: the position [`Position::from_setup_unchecked`] builds from a setup
    /// holding exactly these pieces (no halfmoves, move 1), without visiting the empty squares.
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, Role, Setup, Square};
    ///
    /// let pieces = [
    ///     (Square::from_index(4).unwrap(), Piece { color: Color::Red, role: Role::King }),
    ///     (Square::from_index(0).unwrap(), Piece { color: Color::Red, role: Role::Rook }),
    ///     (Square::from_index(84).unwrap(), Piece { color: Color::Black, role: Role::King }),
    /// ];
    /// let mut setup = Setup::empty();
    /// for (sq, p) in pieces {
    ///     setup.set(sq, Some(p));
    /// }
    /// setup.turn = Color::Black;
    /// assert_eq!(Position::from_pieces_unchecked(pieces, Color::Black), Position::from_setup_unchecked(&setup));
    /// ```
    pub fn from_pieces_unchecked(pieces: impl IntoIterator<Item = (Square, Piece)>, turn: Color) -> Position {
        let mut pos = Position {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 7],
            board: [None; 90],
            turn,
            key: zobrist::turn(turn),
            mirror_key: zobrist::turn(turn),
            halfmoves: 0,
            fullmoves: 1,
        };
        for (sq, p) in pieces {
            pos.put(sq, p);
        }
        pos
    }

    /// The setup of this position (for FEN output or editing).
    ///
    /// ```
    /// let mut setup = qiku::Position::startpos().to_setup();
    /// setup.set("b2".parse()?, None); // take a cannon off the board
    /// assert_eq!(qiku::Position::from_setup(&setup)?.occupied().count(), 31);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_setup(&self) -> Setup {
        Setup { board: self.board, turn: self.turn, halfmoves: self.halfmoves, fullmoves: self.fullmoves }
    }

    /// The position as FEN (Pikafish style: `w`/`b`, `-` `-`, half-move clock and move number).
    ///
    /// ```
    /// let fen = "r1bakabr1/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKABR1 b - - 4 3";
    /// assert_eq!(qiku::Position::from_fen(fen)?.fen(), fen); // FEN round trip
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn fen(&self) -> String {
        self.to_setup().to_fen()
    }

    #[inline]
    fn put(&mut self, sq: Square, p: Piece) {
        let b = Bitboard::from_square(sq);
        self.by_color[p.color.index()] |= b;
        self.by_role[p.role.index()] |= b;
        self.board[sq.index()] = Some(p);
        self.toggle_keys(p, sq);
    }

    #[inline(always)]
    fn toggle_keys(&mut self, p: Piece, sq: Square) {
        let [k, m] = zobrist::piece_square_pair(p, sq);
        self.key ^= k;
        self.mirror_key ^= m;
    }

    #[inline]
    fn remove(&mut self, sq: Square, p: Piece) {
        let b = Bitboard::from_square(sq);
        self.by_color[p.color.index()] ^= b;
        self.by_role[p.role.index()] ^= b;
        self.board[sq.index()] = None;
        self.toggle_keys(p, sq);
    }

    /// Moves `p` from `from` to the empty square `to`.
    #[inline(always)]
    fn shift(&mut self, p: Piece, from: Square, to: Square) {
        self.place_bits(p, from, to);
        self.toggle_keys(p, from);
        self.toggle_keys(p, to);
    }

    /// [`shift`](Self::shift) without the keys.
    #[inline(always)]
    fn place_bits(&mut self, p: Piece, from: Square, to: Square) {
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_color[p.color.index()] ^= b;
        self.by_role[p.role.index()] ^= b;
        self.board[from.index()] = None;
        self.board[to.index()] = Some(p);
    }

    /// The side to move.
    ///
    /// ```
    /// use qiku::{notation::iccs, Color, Position};
    /// let pos = Position::startpos();
    /// assert_eq!(pos.turn(), Color::Red);
    /// assert_eq!(pos.play(iccs::parse(&pos, "h2e2")?)?.turn(), Color::Black);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Zobrist key of placement and side to move.
    ///
    /// ```
    /// use qiku::Position;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_ne!(pos.key(), Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 b")?.key()); // side to move
    /// assert_eq!(pos.key(), Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 7 20")?.key()); // not counters
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn key(&self) -> u64 {
        self.key
    }
    /// Zobrist key of the left-right mirrored position, kept up to date alongside [`key`](Self::key).
    ///
    /// ```
    /// let pos = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_eq!(pos.mirror_key(), pos.mirror().key());
    /// assert_ne!(pos.mirror_key(), pos.key()); // the placement is not symmetric
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn mirror_key(&self) -> u64 {
        self.mirror_key
    }
    /// Plies since the last capture.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    /// let pos = Position::from_fen("3k5/9/9/9/9/p8/9/9/R8/4K4 w - - 10 30")?;
    /// assert_eq!(pos.play(iccs::parse(&pos, "a1b1")?)?.halfmoves(), 11);
    /// assert_eq!(pos.play(iccs::parse(&pos, "a1a4")?)?.halfmoves(), 0); // takes the pawn
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }
    /// The FEN move number (starts at 1, grows after black's move).
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    /// let pos = Position::startpos().play(iccs::parse_move("h2e2")?)?;
    /// assert_eq!(pos.fullmoves(), 1);
    /// assert_eq!(pos.play(iccs::parse_move("h9g7")?)?.fullmoves(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }
    #[inline]
    /// The piece on `sq`, if any.
    ///
    /// ```
    /// let pos = qiku::Position::startpos();
    /// assert_eq!(pos.piece_at("b2".parse()?).map(|p| p.chinese()), Some('炮'));
    /// assert_eq!(pos.piece_at("e4".parse()?), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }
    #[inline]
    /// Every occupied square.
    ///
    /// ```
    /// let pos = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_eq!(pos.occupied().map(|s| s.to_string()).collect::<Vec<_>>(), ["e0", "a1", "d9"]);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline]
    /// The squares of `c`'s pieces.
    ///
    /// ```
    /// use qiku::{Color, Position};
    /// let pos = Position::startpos();
    /// assert_eq!(pos.by_color(Color::Red).count(), 16);
    /// assert_eq!(pos.by_color(Color::Red) | pos.by_color(Color::Black), pos.occupied());
    /// ```
    pub fn by_color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }
    #[inline]
    /// The squares of both sides' pieces of role `r`.
    ///
    /// ```
    /// use qiku::{Color, Position, Role};
    /// let cannons = Position::startpos().by_role(Role::Cannon);
    /// assert_eq!(cannons.map(|s| s.to_string()).collect::<Vec<_>>(), ["b2", "h2", "b7", "h7"]);
    /// assert_eq!((cannons & Position::startpos().by_color(Color::Black)).count(), 2);
    /// ```
    pub fn by_role(&self, r: Role) -> Bitboard {
        self.by_role[r.index()]
    }
    #[inline]
    /// The squares of piece `p`.
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, Role};
    /// let red_horses = Position::startpos().pieces(Piece::new(Color::Red, Role::Horse));
    /// assert_eq!(red_horses.map(|s| s.to_string()).collect::<Vec<_>>(), ["b0", "h0"]);
    /// ```
    pub fn pieces(&self, p: Piece) -> Bitboard {
        self.by_color[p.color.index()] & self.by_role[p.role.index()]
    }
    #[inline]
    /// The square of `c`'s king.
    ///
    /// ```
    /// use qiku::{Color, Position};
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_eq!([pos.king(Color::Red), pos.king(Color::Black)].map(|s| s.to_string()), ["e0", "d9"]);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn king(&self, c: Color) -> Square {
        let k = self.pieces(Piece::new(c, Role::King));
        debug_assert!(k.any(), "position without {c} king");
        k.first().unwrap_or(Square::from_index_unchecked(0))
    }

    /// Piece counts `[color][role]`.
    ///
    /// ```
    /// use qiku::{Color, Position, Role};
    ///
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// let material = pos.material();
    /// assert_eq!(material[Color::Red.index()][Role::Rook.index()], 1);
    /// assert_eq!(material[Color::Black.index()].iter().sum::<u8>(), 1); // the bare king
    /// assert!(pos.has_attackers());
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn material(&self) -> [[u8; 7]; 2] {
        let mut counts = [[0u8; 7]; 2];
        for c in Color::ALL {
            for r in Role::ALL {
                counts[c.index()][r.index()] = self.pieces(Piece::new(c, r)).count() as u8;
            }
        }
        counts
    }

    /// The material key (see [`zobrist::material_key`]).
    ///
    /// ```
    /// use qiku::Position;
    /// let rook = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_ne!(rook.material_key(), Position::from_fen("3k5/9/9/9/9/9/9/9/C8/4K4 w")?.material_key());
    /// assert_eq!(rook.material_key(), rook.mirror().material_key());
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn material_key(&self) -> u64 {
        zobrist::material_key(&self.material())
    }

    fn kings_facing(&self) -> bool {
        let (r, b) = (self.king(Color::Red), self.king(Color::Black));
        r.file() == b.file() && (attacks::between(r, b) & self.occupied()).is_empty()
    }

    /// Pieces of `by` that attack `sq`, given the occupancy `occ` (which may differ from the
    /// board, to test a move before making it). Kings count as file attackers (flying general).
    ///
    /// ```
    /// use qiku::{Color, Position, Square};
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// let (d1, occ): (Square, _) = ("d1".parse()?, pos.occupied());
    /// assert_eq!(pos.attackers_with(d1, Color::Red, occ).first().map(|s| s.to_string()).as_deref(), Some("a1"));
    /// assert!(pos.attackers_with(d1, Color::Red, occ.with("b1".parse()?)).is_empty()); // a piece put on b1 blocks
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn attackers_with(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let them = self.by_color[by.index()] & occ;
        let rooks = (self.by_role(Role::Rook) | self.by_role(Role::King)) & them;
        (attacks::rook_attacks(sq, occ) & rooks)
            | (attacks::cannon_captures(sq, occ) & self.by_role(Role::Cannon) & them)
            | (attacks::horse_attackers(sq, occ) & self.by_role(Role::Horse) & them)
            | (attacks::pawn_attackers(by, sq) & self.by_role(Role::Pawn) & them)
            | (attacks::advisor_attacks(sq) & self.by_role(Role::Advisor) & them)
            | (attacks::elephant_attacks(sq, occ) & self.by_role(Role::Elephant) & them)
            | (attacks::king_attacks(sq) & self.by_role(Role::King) & them)
    }

    /// Does any piece of `by` attack `sq`, given the occupancy `occ`? The same answer as
    /// `attackers_with(sq, by, occ).any()`, sooner: the pieces with the cheapest attack tests
    /// are asked first, and the first attacker found ends it.
    ///
    /// ```
    /// use qiku::{Color, Position, Square};
    ///
    /// let pos = Position::startpos();
    /// let occ = pos.occupied();
    /// // e1 is guarded by red's king and advisors; a9, black's rook, by no red piece.
    /// for sq in ["e1", "a9", "h7", "e3"] {
    ///     let sq: Square = sq.parse().unwrap();
    ///     for c in Color::ALL {
    ///         assert_eq!(pos.is_attacked_with(sq, c, occ), pos.attackers_with(sq, c, occ).any());
    ///     }
    /// }
    /// assert!(pos.is_attacked_with("e1".parse().unwrap(), Color::Red, occ));
    /// assert!(!pos.is_attacked_with("a9".parse().unwrap(), Color::Red, occ));
    /// ```
    #[inline]
    pub fn is_attacked_with(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.by_color[by.index()] & occ;
        let role = |r: Role| self.by_role[r.index()] & them;
        (attacks::pawn_attackers(by, sq) & role(Role::Pawn)).any()
            || (attacks::advisor_attacks(sq) & role(Role::Advisor)).any()
            || (attacks::king_attacks(sq) & role(Role::King)).any()
            || (attacks::elephant_attacks(sq, occ) & role(Role::Elephant)).any()
            || (attacks::horse_attackers(sq, occ) & role(Role::Horse)).any()
            || (attacks::rook_attacks(sq, occ) & (role(Role::Rook) | role(Role::King))).any()
            || (attacks::cannon_captures(sq, occ) & role(Role::Cannon)).any()
    }

    /// Pieces of `by` attacking `sq` on the current board.
    ///
    /// ```
    /// use qiku::{Color, Position};
    /// let pos = Position::startpos();
    /// assert_eq!(pos.attackers("e1".parse()?, Color::Red).count(), 3); // the king and both advisors
    /// assert_eq!(pos.attackers("h9".parse()?, Color::Red).first().map(|s| s.to_string()).as_deref(), Some("h2"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn attackers(&self, sq: Square, by: Color) -> Bitboard {
        self.attackers_with(sq, by, self.occupied())
    }

    /// Is the king of `color` attacked (including by the facing enemy king)?
    ///
    /// ```
    /// use qiku::{Color, Position, Setup};
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/3R5/4K4 b")?; // the rook on d1 checks
    /// assert!(pos.is_attacked_king(Color::Black) && !pos.is_attacked_king(Color::Red));
    /// let facing = Position::from_setup_unchecked(&Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w")?);
    /// assert!(facing.is_attacked_king(Color::Red) && facing.is_attacked_king(Color::Black));
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    #[inline]
    pub fn is_attacked_king(&self, color: Color) -> bool {
        self.king_attacked(self.king(color), !color, self.occupied(), Bitboard::FULL)
    }

    /// Can `them` (restricted to `alive`) capture a king on `k` with occupancy `occ`? Only the
    /// piece kinds that can ever reach a palace are tested.
    #[inline(always)]
    fn king_attacked(&self, k: Square, by: Color, occ: Bitboard, alive: Bitboard) -> bool {
        let them = self.by_color[by.index()] & alive;
        let rooks = (self.by_role[Role::Rook.index()] | self.by_role[Role::King.index()]) & them;
        (attacks::rook_attacks(k, occ) & rooks).any()
            || (attacks::cannon_captures(k, occ) & self.by_role[Role::Cannon.index()] & them).any()
            || (attacks::horse_attackers(k, occ) & self.by_role[Role::Horse.index()] & them).any()
            || (attacks::pawn_attackers(by, k) & self.by_role[Role::Pawn.index()] & them).any()
    }

    /// Is the side to move in check?
    ///
    /// ```
    /// use qiku::notation::iccs;
    /// use qiku::Position;
    ///
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w")?;
    /// let check = iccs::parse(&pos, "e1d1")?;
    /// assert!(!pos.is_check());
    /// let after = pos.play(check)?;
    /// assert!(after.is_check());
    /// assert_eq!(after.checkers().map(|sq| sq.to_string()).collect::<Vec<_>>(), ["d1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn is_check(&self) -> bool {
        self.is_attacked_king(self.turn)
    }

    /// [`is_check`](Self::is_check) in a position that `m` has just led to, tested only where
    /// `m` can have changed what attacks the king: the king's file or rank if the move left or
    /// reached it, the horses if a horse moved or a horse's leg next to the king was freed, the
    /// pawns if a pawn moved. Before `m` the king was not attacked (the mover could otherwise
    /// have taken it), so nothing else can attack it now.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let mut pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w")?;
    /// let m = iccs::parse(&pos, "e1d1")?;
    /// pos.make_move(m);
    /// assert!(pos.is_check_after(m) && pos.is_check());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn is_check_after(&self, m: Move) -> bool {
        let k = self.king(self.turn);
        let (from, to) = (m.from(), m.to());
        let by = !self.turn;
        let mover = self.board[to.index()].map(|p| p.role);
        self.attacked_through(k, from, to, self.occupied(), self.by_color[by.index()], mover == Some(Role::Horse))
            || (mover == Some(Role::Pawn) && attacks::pawn_attackers(by, k).contains(to))
    }

    /// Do the pieces `them` attack the king on `k`, with occupancy `occ`, along the king's file
    /// or rank where a move from `from` to `to` left or reached it, or by a horse if a leg next
    /// to the king was freed at `from` (or, with `horse_moved`, a horse moved)? The attacks a
    /// move can have changed: the shared part of [`is_check_after`](Self::is_check_after) and
    /// [`exposes_king`](Self::exposes_king).
    #[inline(always)]
    fn attacked_through(
        &self,
        k: Square,
        from: Square,
        to: Square,
        occ: Bitboard,
        them: Bitboard,
        horse_moved: bool,
    ) -> bool {
        let sliders = (self.by_role[Role::Rook.index()] | self.by_role[Role::King.index()]) & them;
        let cannons = self.by_role[Role::Cannon.index()] & them;
        if (from.file() == k.file() || to.file() == k.file())
            && ((attacks::file_slider(k, occ) & sliders).any() || (attacks::file_cannon(k, occ) & cannons).any())
        {
            return true;
        }
        if (from.rank() == k.rank() || to.rank() == k.rank())
            && ((attacks::rank_slider(k, occ) & sliders).any() || (attacks::rank_cannon(k, occ) & cannons).any())
        {
            return true;
        }
        (horse_moved || attacks::diagonal_neighbours(k).contains(from))
            && (attacks::horse_attackers(k, occ) & self.by_role[Role::Horse.index()] & them).any()
    }

    /// Pieces giving check to the side to move.
    ///
    /// ```
    /// let pos = qiku::Position::from_fen("4k4/6N2/9/9/9/4R4/9/9/9/3K5 b")?; // rook and horse check
    /// assert_eq!(pos.checkers().map(|s| s.to_string()).collect::<Vec<_>>(), ["e4", "g8"]);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn checkers(&self) -> Bitboard {
        let k = self.king(self.turn);
        let occ = self.occupied();
        let them = self.by_color[(!self.turn).index()];
        let rooks = (self.by_role(Role::Rook) | self.by_role(Role::King)) & them;
        (attacks::rook_attacks(k, occ) & rooks)
            | (attacks::cannon_captures(k, occ) & self.by_role(Role::Cannon) & them)
            | (attacks::horse_attackers(k, occ) & self.by_role(Role::Horse) & them)
            | (attacks::pawn_attackers(!self.turn, k) & self.by_role(Role::Pawn) & them)
    }

    /// Would the pseudo-legal move `m` leave the mover's own king attacked?
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    /// let pos = Position::from_fen("3k5/9/9/9/4r4/9/9/9/4N4/4K4 w")?; // the horse on e1 is pinned
    /// assert!(pos.leaves_king_attacked(iccs::parse_move("e1d3")?));
    /// assert!(pos.leaves_king_attacked(iccs::parse_move("e0d0")?)); // facing the king on d9
    /// assert!(!pos.leaves_king_attacked(iccs::parse_move("e0f0")?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn leaves_king_attacked(&self, m: Move) -> bool {
        let (from, to) = (m.from(), m.to());
        let us = self.turn;
        let occ = (self.occupied() - Bitboard::from_square(from)) | Bitboard::from_square(to);
        let k = if self.board[from.index()].is_some_and(|p| p.role == Role::King) { to } else { self.king(us) };
        self.king_attacked(k, !us, occ, !Bitboard::from_square(to))
    }

    /// [`leaves_king_attacked`](Self::leaves_king_attacked) for a non-king move when the side to
    /// move is not in check: only the king's file or rank that the move touches, and horse legs
    /// if the move vacates one, can change. Always inlined: called from the move generator and
    /// from `has_legal_move_given_check`, the compiler kept it out of line in both, which cost
    /// the search about 0.8% of its instructions.
    #[inline(always)]
    pub(crate) fn exposes_king(&self, m: Move, k: Square) -> bool {
        let (from, to) = (m.from(), m.to());
        let occ = (self.occupied() - Bitboard::from_square(from)) | Bitboard::from_square(to);
        let them = self.by_color[(!self.turn).index()] - Bitboard::from_square(to);
        self.attacked_through(k, from, to, occ, them, false)
    }

    /// Plays `m`, which must be pseudo-legal for the side to move, and returns what
    /// [`unmake_move`](Self::unmake_move) needs.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let mut pos = Position::startpos();
    /// let before = pos.clone();
    /// let m = iccs::parse(&pos, "h2h9")?; // the cannon takes the horse
    /// let undo = pos.make_move(m);
    /// assert_eq!(undo.captured.map(|p| p.char()), Some('n'));
    /// assert_eq!(pos.halfmoves(), 0);
    /// pos.unmake_move(m, undo);
    /// assert_eq!(pos, before); // placement, counters and keys all restored
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn make_move(&mut self, m: Move) -> Undo {
        let (from, to) = (m.from(), m.to());
        let undo = Undo {
            captured: self.board[to.index()],
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
            key: self.key,
            mirror_key: self.mirror_key,
        };
        let Some(piece) = self.board[from.index()] else {
            debug_assert!(false, "make_move {m} from an empty square in {}", self.fen());
            return undo;
        };
        if let Some(captured) = undo.captured {
            self.remove(to, captured);
            self.halfmoves = 0;
        } else {
            // Counters read from a FEN may start anywhere up to u32::MAX: they stop there.
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        self.shift(piece, from, to);
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        self.key ^= zobrist::black_to_move();
        self.mirror_key ^= zobrist::black_to_move();
        undo
    }

    /// Takes back `m`, which was the last move made, with the value `make_move` returned.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    /// let mut pos = Position::startpos();
    /// let (a, b) = (iccs::parse_move("h2e2")?, iccs::parse_move("h9g7")?);
    /// let (undo_a, undo_b) = (pos.make_move(a), pos.make_move(b));
    /// pos.unmake_move(b, undo_b); // the last move first
    /// pos.unmake_move(a, undo_a);
    /// assert_eq!(pos, Position::startpos());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline(always)]
    pub fn unmake_move(&mut self, m: Move, undo: Undo) {
        let (from, to) = (m.from(), m.to());
        self.turn = !self.turn;
        self.fullmoves = undo.fullmoves;
        if let Some(piece) = self.board[to.index()] {
            self.place_bits(piece, to, from);
        }
        if let Some(captured) = undo.captured {
            let b = Bitboard::from_square(to);
            self.by_color[captured.color.index()] |= b;
            self.by_role[captured.role.index()] |= b;
            self.board[to.index()] = Some(captured);
        }
        self.halfmoves = undo.halfmoves;
        self.key = undo.key;
        self.mirror_key = undo.mirror_key;
    }

    /// Passes the turn without moving (for null-move pruning). Undo by calling it again.
    ///
    /// ```
    /// use qiku::{Color, Position};
    /// let mut pos = Position::startpos();
    /// pos.make_null_move();
    /// assert_eq!((pos.turn(), pos.key()), (Color::Black, pos.compute_key()));
    /// pos.make_null_move(); // undone by a second one
    /// assert_eq!(pos, Position::startpos());
    /// ```
    pub fn make_null_move(&mut self) {
        self.turn = !self.turn;
        self.key ^= zobrist::black_to_move();
        self.mirror_key ^= zobrist::black_to_move();
    }

    /// The position after `m` (copy-make), or an error naming the move and the position when `m`
    /// is not legal here. The checked entry point for moves that come from outside.
    ///
    /// ```
    /// use qiku::{Move, Position};
    ///
    /// let pos = Position::startpos();
    /// let central_cannon = Move::new("h2".parse()?, "e2".parse()?);
    /// let after = pos.play(central_cannon)?;
    /// assert_eq!(after.piece_at("e2".parse()?).map(|p| p.chinese()), Some('炮'));
    /// assert_eq!(after.fullmoves(), 1); // black moves next, still move 1
    ///
    /// // The rook cannot jump over its own pawn: an error naming the move and the position.
    /// let err = pos.play(Move::new("a0".parse()?, "a4".parse()?)).unwrap_err();
    /// assert!(err.to_string().contains("a0a4"), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&self, m: Move) -> Result<Position, IllegalMove> {
        if !self.is_legal(m) {
            return Err(IllegalMove { mv: m, fen: self.fen() });
        }
        Ok(self.play_unchecked(m))
    }

    /// The position after `m` (copy-make) without checking legality: the fast path for moves the
    /// caller generated or already checked. An illegal `m` gives a position that breaks the rules.
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// let pos = Position::startpos();
    /// // Every generated move is legal, so the unchecked path is safe for them.
    /// let replies: usize = pos.moves().iter().map(|&m| pos.play_unchecked(m).moves().len()).sum();
    /// assert_eq!(replies, 1920); // perft 2
    /// ```
    pub fn play_unchecked(&self, m: Move) -> Position {
        let mut next = self.clone();
        next.make_move(m);
        next
    }

    /// The left-right mirrored position.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let start = Position::startpos();
    /// let right = start.play(iccs::parse(&start, "h2e2")?)?; // 炮二平五
    /// let left = start.play(iccs::parse(&start, "b2e2")?)?; // 炮八平五
    /// assert_eq!(right.mirror(), left);
    /// assert_eq!(right.mirror_key(), left.key());
    /// assert_eq!(start.mirror(), start);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mirror(&self) -> Position {
        Position::from_setup_unchecked(&self.to_setup().mirror())
    }

    /// Zobrist key recomputed from scratch (tests check the incremental one against it).
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    /// let mut pos = Position::startpos();
    /// for m in ["h2e2", "h9g7", "e2e6"] { pos.make_move(iccs::parse_move(m)?); } // e2e6 takes a pawn
    /// assert_eq!(pos.key(), pos.compute_key());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compute_key(&self) -> u64 {
        Square::all()
            .filter_map(|s| self.piece_at(s).map(|p| zobrist::piece_square(p, s)))
            .fold(zobrist::turn(self.turn), |a, b| a ^ b)
    }

    /// Does any side have a piece that can cross the river? Without one neither side can ever
    /// win (the position is a dead draw).
    ///
    /// ```
    /// use qiku::Position;
    /// assert!(Position::startpos().has_attackers());
    /// assert!(!Position::from_fen("3ak4/4a4/4b4/9/9/9/9/4B4/4A4/3AK4 w")?.has_attackers()); // a dead draw
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn has_attackers(&self) -> bool {
        self.attacking_pieces().any()
    }

    /// Every piece that can cross the river (rook, horse, cannon, pawn), both sides': mask with
    /// [`by_color`](Self::by_color) for one side's.
    ///
    /// ```
    /// use qiku::{Color, Position};
    ///
    /// let pos = Position::startpos();
    /// // Two rooks, two horses, two cannons and five pawns a side.
    /// assert_eq!((pos.attacking_pieces() & pos.by_color(Color::Red)).count(), 11);
    /// ```
    #[inline]
    pub fn attacking_pieces(&self) -> Bitboard {
        self.by_role(Role::Horse) | self.by_role(Role::Rook) | self.by_role(Role::Cannon) | self.by_role(Role::Pawn)
    }

    /// Squares the kind of piece of `color` can ever stand on (for validation and indexing).
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, Role};
    /// let elephant = Position::reachable_squares(Piece::new(Color::Red, Role::Elephant));
    /// assert_eq!(elephant.count(), 7);
    /// assert!(elephant.contains("e2".parse()?) && !elephant.contains("e4".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reachable_squares(piece: Piece) -> Bitboard {
        reachable(piece)
    }

    /// Pieces of `color` on their own half (a helper for evaluation).
    ///
    /// ```
    /// use qiku::{Color, Position};
    /// let pos = Position::from_fen("3k5/9/9/4P4/9/9/9/9/R8/4K4 w")?; // the pawn on e6 has crossed
    /// assert_eq!(pos.at_home(Color::Red).count(), 2);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn at_home(&self, color: Color) -> Bitboard {
        self.by_color(color) & home_half(color)
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}
