//! [`Game`]: a start position plus the moves played, with the repetition and move-count rules.
//!
//! Rules implemented (documented in `docs/RULES.md`):
//! - A position repeated with the same side to move closes a cycle. Over the moves of that cycle,
//!   if every move of one side gave check and not every move of the other did, the checking side
//!   loses (perpetual check is forbidden); if both sides checked on every move, it is a draw.
//!   Otherwise, if one side chased one and the same enemy piece with every one of its moves of the
//!   cycle and the other side did not, the chasing side loses (perpetual chase, see
//!   [`super::chase`]); mutual chases, mixed cycles and idle cycles are draws.
//! - A game is adjudicated when the same position occurs for the third time.
//! - 120 plies (60 moves each) without a capture is a draw.
//! - No legal move (checkmate or stalemate) loses for the side to move.

use super::chase;
use super::moves::Move;
use super::piece::Color;
use super::position::{IllegalMove, Position};

/// Plies without capture after which the game is drawn.
pub const NO_CAPTURE_DRAW_PLIES: u32 = 120;

/// How a game ended, or why it would end now.
///
/// ```
/// use qiku::core::{EndReason, Outcome};
/// use qiku::{Color, Game, Position};
///
/// // Black's king on d9 is checked by the rook on a9 and cannot step to d8 (the other rook) or e9.
/// let game = Game::new(Position::from_fen("R2k5/R8/9/9/9/9/9/9/9/4K4 b")?);
/// assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Red, reason: EndReason::Checkmate }));
/// assert_eq!(Game::new(Position::startpos()).outcome(), None); // the game goes on
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner` won; `reason` says how.
    Decisive {
        /// The side that won.
        winner: Color,
        /// How.
        reason: EndReason,
    },
    /// A draw, and why.
    Draw(EndReason),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
/// Why a game ends.
///
/// ```
/// use qiku::core::{EndReason, Outcome};
/// use qiku::{Color, Game, Position};
///
/// // Black is not in check but has no legal move: unlike chess, it loses.
/// let game = Game::new(Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b")?);
/// assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Red, reason: EndReason::Stalemate }));
/// // Kings alone cannot mate.
/// let kings = Game::new(Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w")?);
/// assert_eq!(kings.outcome(), Some(Outcome::Draw(EndReason::InsufficientMaterial)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub enum EndReason {
    /// The side to move is in check and has no legal move (it loses).
    Checkmate,
    /// The side to move is not in check but has no legal move (it loses, unlike chess).
    Stalemate,
    /// One side checked on every move of a repetition cycle (that side loses).
    PerpetualCheck,
    /// One side chased the same unprotected (or more valuable) piece throughout a cycle.
    PerpetualChase,
    /// A position occurred the third time without a perpetual check or chase (a draw).
    Repetition,
    /// 120 plies (60 moves) without a capture (a draw).
    NoCaptureLimit,
    /// Neither side has a piece that can cross the river.
    InsufficientMaterial,
}

/// The verdict on a repetition cycle (see the module docs).
///
/// Perpetual check: red checks on every move of the cycle, black does not, so red loses.
///
/// ```
/// use qiku::core::{EndReason, Outcome, RepetitionVerdict};
/// use qiku::{notation::iccs, Color, Game, Position};
///
/// let mut game = Game::new(Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w")?);
/// let mut play = |game: &mut Game, moves: &str| -> Result<(), Box<dyn std::error::Error>> {
///     for token in moves.split_whitespace() {
///         game.play(iccs::parse(game.position(), token)?)?;
///     }
///     Ok(())
/// };
/// play(&mut game, "a8a9 e9e8 a9a8 e8e9")?; // the start position recurs once
/// assert_eq!(game.repetitions(), 1);
/// assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::PerpetualCheck { loser: Color::Red }));
/// assert_eq!(game.outcome(), None); // adjudicated only at the third occurrence
/// play(&mut game, "a8a9 e9e8 a9a8 e8e9")?;
/// assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualCheck }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Perpetual chase (the AXF rule book's direct chase by a cannon): red's cannon attacks black's
/// rook with every move, the rook runs, and the third occurrence ends the game for black.
///
/// ```
/// use qiku::core::{EndReason, Outcome, RepetitionVerdict};
/// use qiku::{notation::iccs, Color, Game, Position};
///
/// let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
/// let mut game = Game::new(Position::from_fen(fen)?);
/// for (i, token) in "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split_whitespace().enumerate() {
///     game.play(iccs::parse(game.position(), token)?)?;
///     if i == 4 {
///         // The position after c2a2 has recurred: red chased the rook throughout.
///         assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::PerpetualChase { loser: Color::Red }));
///     }
/// }
/// assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualChase }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Idle moves that repeat are a draw:
///
/// ```
/// use qiku::core::{EndReason, Outcome, RepetitionVerdict};
/// use qiku::{notation::iccs, Game, Position};
///
/// let mut game = Game::new(Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w")?);
/// for token in "a8b8 e9f9 b8a8 f9e9 a8b8 e9f9 b8a8 f9e9".split_whitespace() {
///     game.play(iccs::parse(game.position(), token)?)?;
/// }
/// assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::Draw));
/// assert_eq!(game.outcome(), Some(Outcome::Draw(EndReason::Repetition)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RepetitionVerdict {
    /// A draw: neither side or both sides checked throughout, and neither side or both chased.
    Draw,
    /// `loser` checked on every move of the cycle; the other side did not.
    PerpetualCheck {
        /// The side that gave the perpetual check (it loses).
        loser: Color,
    },
    /// `loser` chased one and the same enemy piece with every move of the cycle; the other side
    /// did not (and neither side checked perpetually).
    PerpetualChase {
        /// The side that chased (it loses).
        loser: Color,
    },
}

#[derive(Clone, Debug)]
struct Ply {
    mv: Move,
    /// Key of the position before the move.
    key_before: u64,
    gave_check: bool,
}

/// A game in progress: where it started, the moves, and the current position.
///
/// ```
/// use qiku::{notation::iccs, Game, Position};
///
/// let mut game = Game::new(Position::startpos());
/// for token in ["h2e2", "h9g7", "h0g2"] {
///     game.play(iccs::parse(game.position(), token)?)?;
/// }
/// assert_eq!(game.len(), 3);
/// assert_eq!(game.moves().map(|m| m.to_string()).collect::<Vec<_>>(), ["h2e2", "h9g7", "h0g2"]);
/// // An illegal move is refused and changes nothing.
/// assert!(game.play(qiku::Move::new("a0".parse()?, "a5".parse()?)).is_err());
/// assert_eq!(game.undo().map(|m| m.to_string()).as_deref(), Some("h0g2"));
/// assert_eq!(game.len(), 2);
/// assert_eq!(game.start(), &Position::startpos());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    plies: Vec<Ply>,
}

impl Game {
    /// A game starting from `start`, with no move played.
    ///
    /// ```
    /// use qiku::{Game, Position};
    ///
    /// let game = Game::new(Position::startpos());
    /// assert!(game.is_empty());
    /// assert_eq!(game.position(), game.start());
    /// assert_eq!(game.outcome(), None);
    /// ```
    pub fn new(start: Position) -> Game {
        Game { position: start.clone(), start, plies: Vec::new() }
    }
    /// The starting position.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let start = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// let mut game = Game::new(start.clone());
    /// game.play(iccs::parse(game.position(), "a1d1")?)?;
    /// assert_eq!(game.start(), &start); // the moves change the position, not the start
    /// assert_ne!(game.position(), &start);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start(&self) -> &Position {
        &self.start
    }
    /// The current position.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// game.play(iccs::parse(game.position(), "h2e2")?)?;
    /// assert_eq!(game.position().fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// The moves played, in order.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// for token in ["h2e2", "h9g7"] {
    ///     game.play(iccs::parse(game.position(), token)?)?;
    /// }
    /// assert_eq!(game.moves().map(|m| m.to_string()).collect::<Vec<_>>(), ["h2e2", "h9g7"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.plies.iter().map(|p| p.mv)
    }
    /// Number of plies played.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// for token in ["h2e2", "h9g7", "h0g2"] {
    ///     game.play(iccs::parse(game.position(), token)?)?;
    /// }
    /// assert_eq!(game.len(), 3); // plies, not moves: the FEN's move number is 2
    /// assert_eq!(game.position().fullmoves(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        self.plies.len()
    }
    /// Whether no move has been played.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// assert!(game.is_empty());
    /// game.play(iccs::parse(game.position(), "h2e2")?)?;
    /// assert!(!game.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// Plays a legal move.
    ///
    /// ```
    /// use qiku::{core::START_FEN, notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// let err = game.play(iccs::parse_move("a0a5")?).unwrap_err(); // the rook cannot jump its pawn
    /// assert_eq!(err.fen, START_FEN);
    /// assert!(game.is_empty()); // refused: nothing changed
    /// game.play(iccs::parse_move("a0a2")?)?;
    /// assert_eq!(game.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        if !self.position.is_legal(mv) {
            return Err(IllegalMove { mv, fen: self.position.fen() });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move the caller knows to be legal.
    ///
    /// ```
    /// use qiku::{Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// let m = game.position().moves()[0]; // generated, so legal
    /// game.play_unchecked(m);
    /// assert_eq!(game.moves().collect::<Vec<_>>(), [m]);
    /// assert_eq!(game.position(), &Position::startpos().play(m)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play_unchecked(&mut self, mv: Move) {
        let key_before = self.position.key();
        self.position.make_move(mv);
        let gave_check = self.position.is_check();
        self.plies.push(Ply { mv, key_before, gave_check });
    }

    /// Takes back the last move.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// game.play(iccs::parse(game.position(), "h2e2")?)?;
    /// assert_eq!(game.undo().map(|m| m.to_string()).as_deref(), Some("h2e2"));
    /// assert_eq!(game.position(), &Position::startpos());
    /// assert_eq!(game.undo(), None); // nothing left to take back
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn undo(&mut self) -> Option<Move> {
        let ply = self.plies.pop()?;
        let mut pos = self.start.clone();
        for p in &self.plies {
            pos.make_move(p.mv);
        }
        self.position = pos;
        Some(ply.mv)
    }

    /// How many times the current position occurred before (same placement and side to move),
    /// looking back only as far as the last capture.
    ///
    /// ```
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w")?);
    /// for (i, token) in "a8b8 e9f9 b8a8 f9e9 a8b8 e9f9 b8a8 f9e9".split_whitespace().enumerate() {
    ///     game.play(iccs::parse(game.position(), token)?)?;
    ///     assert_eq!(game.repetitions(), (i + 1) / 4); // each position recurs four plies later
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn repetitions(&self) -> usize {
        let key = self.position.key();
        let window = (self.position.halfmoves() as usize).min(self.plies.len());
        self.plies[self.plies.len() - window..].iter().rev().skip(1).step_by(2).filter(|p| p.key_before == key).count()
    }

    /// If the current position repeats an earlier one, the verdict on the cycle between the most
    /// recent earlier occurrence and now.
    ///
    /// ```
    /// use qiku::core::RepetitionVerdict;
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w")?);
    /// for token in ["a8b8", "e9f9", "b8a8"] {
    ///     game.play(iccs::parse(game.position(), token)?)?;
    /// }
    /// assert_eq!(game.repetition_verdict(), None); // no position has recurred yet
    /// game.play(iccs::parse(game.position(), "f9e9")?)?;
    /// assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::Draw)); // idle moves on both sides
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn repetition_verdict(&self) -> Option<RepetitionVerdict> {
        let key = self.position.key();
        let window = (self.position.halfmoves() as usize).min(self.plies.len());
        let recent = &self.plies[self.plies.len() - window..];
        // The cycle starts at the last ply whose before-position equals the current one.
        let start = recent.iter().rposition(|p| p.key_before == key)?;
        let cycle = &recent[start..];
        // The side who made the last move made the cycle's odd-indexed-from-end moves.
        let last_mover = !self.position.turn();
        let mut checks = [true, true];
        for (i, ply) in cycle.iter().rev().enumerate() {
            let mover = if i % 2 == 0 { last_mover } else { !last_mover };
            checks[mover.index()] &= ply.gave_check;
        }
        Some(match checks {
            [true, false] => RepetitionVerdict::PerpetualCheck { loser: Color::Red },
            [false, true] => RepetitionVerdict::PerpetualCheck { loser: Color::Black },
            [true, true] => RepetitionVerdict::Draw,
            [false, false] => match self.cycle_chasers(cycle) {
                [true, false] => RepetitionVerdict::PerpetualChase { loser: Color::Red },
                [false, true] => RepetitionVerdict::PerpetualChase { loser: Color::Black },
                _ => RepetitionVerdict::Draw,
            },
        })
    }

    /// Which sides perpetually chase over `cycle`, the last plies of the game (positions are
    /// replayed from the start: this runs only when a position repeats).
    fn cycle_chasers(&self, cycle: &[Ply]) -> [bool; 2] {
        let first = self.plies.len() - cycle.len();
        let mut pos = self.start.clone();
        for p in &self.plies[..first] {
            pos.make_move(p.mv);
        }
        let mut positions = Vec::with_capacity(cycle.len());
        let mut moves = Vec::with_capacity(cycle.len());
        for p in cycle {
            positions.push(pos.clone());
            moves.push(p.mv);
            pos.make_move(p.mv);
        }
        chase::perpetual_chasers(&positions, &moves)
    }

    /// The game's result if it is over: no legal move, third occurrence of a position,
    /// 120 plies without capture, or no attacking material left.
    ///
    /// ```
    /// use qiku::core::{EndReason, Outcome};
    /// use qiku::{Color, Game, Position};
    ///
    /// // Black is mated: the rook checks on the d-file, the red king holds the e-file.
    /// let game = Game::new(Position::from_fen("3k5/9/9/9/3R5/9/9/9/9/4K4 b")?);
    /// assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Red, reason: EndReason::Checkmate }));
    /// // Two bare kings cannot mate each other.
    /// let bare = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w")?);
    /// assert_eq!(bare.outcome(), Some(Outcome::Draw(EndReason::InsufficientMaterial)));
    /// assert_eq!(Game::new(Position::startpos()).outcome(), None);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = &self.position;
        if pos.has_no_moves() {
            let reason = if pos.is_check() { EndReason::Checkmate } else { EndReason::Stalemate };
            return Some(Outcome::Decisive { winner: !pos.turn(), reason });
        }
        if self.repetitions() >= 2 {
            return Some(match self.repetition_verdict() {
                Some(RepetitionVerdict::PerpetualCheck { loser }) => {
                    Outcome::Decisive { winner: !loser, reason: EndReason::PerpetualCheck }
                }
                Some(RepetitionVerdict::PerpetualChase { loser }) => {
                    Outcome::Decisive { winner: !loser, reason: EndReason::PerpetualChase }
                }
                _ => Outcome::Draw(EndReason::Repetition),
            });
        }
        if pos.halfmoves() >= NO_CAPTURE_DRAW_PLIES {
            return Some(Outcome::Draw(EndReason::NoCaptureLimit));
        }
        if !pos.has_attackers() {
            return Some(Outcome::Draw(EndReason::InsufficientMaterial));
        }
        None
    }
}
