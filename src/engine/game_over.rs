//! The end of a game as every front end reports it: `qiku analyze` and `qiku probe`, Python's
//! `Engine().analyse`, the server's `/api/analyze` and `/api/explore`. A game the rules have
//! already ended with legal moves left (a perpetual check or chase, a threefold repetition, the
//! 120-ply limit, no attacking material) is not searched on: each says so, in the same words.
//!
//! ```
//! use qiku::engine::game_over::{game_end, game_over};
//! use qiku::{notation::iccs, Game, Position};
//!
//! let mut game = Game::new(Position::startpos());
//! for t in "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0 g7h9".split(' ') {
//!     game.play(iccs::parse(game.position(), t).unwrap()).unwrap();
//! }
//! let end = game_over(&game).expect("over");
//! assert_eq!((end.text.as_str(), end.result), ("draw by threefold repetition", "1/2-1/2"));
//! // Checkmate and stalemate leave no move to search: an end, but no `game_over`.
//! let mated = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1").unwrap());
//! assert!(game_over(&mated).is_none());
//! assert_eq!(game_end(&mated).expect("over").text, "red wins by checkmate");
//! ```

use crate::core::{Color, EndReason, Game, Outcome};

/// How a game ended: the library's outcome, in words and as a PGN result.
///
/// ```
/// use qiku::core::{EndReason, Outcome};
/// use qiku::engine::game_end;
/// use qiku::{Color, Game, Position};
///
/// let mated = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?);
/// let end = game_end(&mated).expect("over");
/// assert_eq!(end.outcome, Outcome::Decisive { winner: Color::Red, reason: EndReason::Checkmate });
/// assert_eq!((end.text.as_str(), end.result), ("red wins by checkmate", "1-0"));
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The outcome.
    pub outcome: Outcome,
    /// In words: `red wins by perpetual check`, `draw by threefold repetition`.
    pub text: String,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
}

impl GameEnd {
    /// The words and result of `outcome`.
    ///
    /// ```
    /// use qiku::core::{EndReason, Outcome};
    /// use qiku::engine::GameEnd;
    /// use qiku::Color;
    ///
    /// let end = GameEnd::of(Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualCheck });
    /// assert_eq!((end.text.as_str(), end.result), ("black wins by perpetual check", "0-1"));
    /// assert_eq!(end.reason(), EndReason::PerpetualCheck);
    /// assert!(end.by_rule()); // legal moves were left
    /// let mate = GameEnd::of(Outcome::Decisive { winner: Color::Red, reason: EndReason::Checkmate });
    /// assert!(!mate.by_rule());
    /// ```
    pub fn of(outcome: Outcome) -> GameEnd {
        match outcome {
            Outcome::Decisive { winner, reason } => {
                let (name, result) = if winner == Color::Red { ("red", "1-0") } else { ("black", "0-1") };
                GameEnd { outcome, text: format!("{name} wins by {}", reason_text(reason)), result }
            }
            Outcome::Draw(reason) => {
                GameEnd { outcome, text: format!("draw by {}", reason_text(reason)), result: "1/2-1/2" }
            }
        }
    }

    /// Why the game ended.
    ///
    /// ```
    /// use qiku::core::{EndReason, Outcome};
    /// use qiku::engine::GameEnd;
    ///
    /// let end = GameEnd::of(Outcome::Draw(EndReason::Repetition));
    /// assert_eq!((end.reason(), end.text.as_str()), (EndReason::Repetition, "draw by threefold repetition"));
    /// ```
    pub fn reason(&self) -> EndReason {
        match self.outcome {
            Outcome::Decisive { reason, .. } | Outcome::Draw(reason) => reason,
        }
    }

    /// Did the rules end the game with legal moves left (not a checkmate or stalemate)?
    ///
    /// ```
    /// use qiku::core::{EndReason, Outcome};
    /// use qiku::engine::GameEnd;
    /// use qiku::Color;
    ///
    /// assert!(GameEnd::of(Outcome::Draw(EndReason::NoCaptureLimit)).by_rule());
    /// // A stalemate loses, but no move was left: the board ended it, not a rule.
    /// let stalemate = GameEnd::of(Outcome::Decisive { winner: Color::Black, reason: EndReason::Stalemate });
    /// assert!(!stalemate.by_rule());
    /// ```
    pub fn by_rule(&self) -> bool {
        !matches!(self.outcome, Outcome::Decisive { reason: EndReason::Checkmate | EndReason::Stalemate, .. })
    }
}

/// Why a game ended, in the words that follow `wins by` or `draw by`: `perpetual check`,
/// `120 plies without capture`.
///
/// ```
/// use qiku::core::EndReason;
/// use qiku::engine::game_over::reason_text;
///
/// assert_eq!(reason_text(EndReason::NoCaptureLimit), "120 plies without capture");
/// assert_eq!(reason_text(EndReason::Stalemate), "stalemate (no legal move)");
/// ```
pub fn reason_text(r: EndReason) -> &'static str {
    match r {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate (no legal move)",
        EndReason::PerpetualCheck => "perpetual check",
        EndReason::PerpetualChase => "perpetual chase",
        EndReason::Repetition => "threefold repetition",
        EndReason::NoCaptureLimit => "120 plies without capture",
        EndReason::InsufficientMaterial => "no attacking material",
    }
}

/// Why a game ended, as one word for programs: `checkmate`, `stalemate`, `perpetual_check`,
/// `perpetual_chase`, `repetition`, `no_capture_limit`, `insufficient_material` (Python's
/// `Outcome.reason`, the server's `status`).
///
/// ```
/// use qiku::core::EndReason;
/// use qiku::engine::game_over::reason_name;
///
/// assert_eq!(reason_name(EndReason::PerpetualChase), "perpetual_chase");
/// assert_eq!(reason_name(EndReason::InsufficientMaterial), "insufficient_material");
/// ```
pub fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::PerpetualCheck => "perpetual_check",
        EndReason::PerpetualChase => "perpetual_chase",
        EndReason::Repetition => "repetition",
        EndReason::NoCaptureLimit => "no_capture_limit",
        EndReason::InsufficientMaterial => "insufficient_material",
    }
}

/// Any end of the game, a checkmate or stalemate included; `None` while the game goes on.
///
/// ```
/// use qiku::engine::game_end;
/// use qiku::{Game, Position};
///
/// let mated = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?);
/// let end = game_end(&mated).expect("over");
/// assert_eq!((end.text.as_str(), end.result), ("red wins by checkmate", "1-0"));
/// assert!(game_end(&Game::new(Position::startpos())).is_none());
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn game_end(game: &Game) -> Option<GameEnd> {
    game.outcome().map(GameEnd::of)
}

/// A game the rules have already ended with legal moves left (see [`GameEnd::by_rule`]), which
/// is not searched on; `None` while the game goes on, and when the side to move has no legal
/// move (the search says that: no best move, mated).
///
/// ```
/// use qiku::engine::game_over;
/// use qiku::{Game, Position};
///
/// // Bare kings: a draw by rule, with moves left.
/// let bare = Game::new(Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1")?);
/// assert_eq!(game_over(&bare).map(|e| e.text).as_deref(), Some("draw by no attacking material"));
/// // Checkmate leaves no move: the search says it, not `game_over`.
/// assert!(game_over(&Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?)).is_none());
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn game_over(game: &Game) -> Option<GameEnd> {
    game_end(game).filter(GameEnd::by_rule)
}
