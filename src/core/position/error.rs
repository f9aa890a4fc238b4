//! The errors of a position: [`PositionError`], a placement that breaks the rules (or a FEN
//! that cannot be read), and [`IllegalMove`], a move played where it is not legal.

use crate::core::moves::Move;
use crate::core::piece::{Color, Piece};
use crate::core::setup::ParseFenError;
use crate::core::square::Square;
use std::fmt;

/// A move that is not legal in the position it was played in.
///
/// ```
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// // The cannon on h2 cannot jump to h8 without a single piece to jump over.
/// let err = start.play(iccs::parse_move("h2h8")?).unwrap_err();
/// assert_eq!((err.mv.to_string(), err.fen.as_str()), ("h2h8".to_string(), start.fen().as_str()));
/// assert_eq!(err.to_string(), format!("illegal move h2h8 in {}", start.fen()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move.
    pub mv: Move,
    /// The position, as FEN.
    pub fen: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} in {}", self.mv, self.fen)
    }
}
impl std::error::Error for IllegalMove {}

/// A placement that breaks the rules of Xiangqi.
///
/// ```
/// use qiku::{Color, Position, PositionError};
///
/// let err = Position::from_fen("4k4/9/9/9/9/9/9/9/9/9 w").unwrap_err();
/// assert_eq!(err, PositionError::MissingKing(Color::Red));
/// assert_eq!(err.to_string(), "red has no king");
/// let facing = Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w").unwrap_err();
/// assert_eq!(facing.to_string(), "the kings face each other on an open file");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The FEN text cannot be read.
    Fen(ParseFenError),
    /// This side has no king.
    MissingKing(Color),
    /// More pieces of a kind than the game has (e.g. three rooks of one side).
    TooMany {
        /// The piece.
        piece: Piece,
        /// How many there are.
        count: u32,
    },
    /// A king outside its palace, an advisor off the palace diagonals, an elephant on a point it
    /// can never reach, or a pawn behind its start.
    ImpossibleSquare {
        /// The piece.
        piece: Piece,
        /// Where it stands.
        square: Square,
    },
    /// The two kings face each other on an open file.
    KingsFacing,
    /// The side that just moved is left in check.
    OppositeCheck,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Fen(e) => e.fmt(f),
            PositionError::MissingKing(c) => write!(f, "{c} has no king"),
            PositionError::TooMany { piece, count } => write!(
                f,
                "{} has {count} {}s; at most {} allowed",
                piece.color,
                piece.role.name(),
                piece.role.max_count()
            ),
            PositionError::ImpossibleSquare { piece, square } => {
                write!(f, "{} {} can never stand on {square}", piece.color, piece.role.name())
            }
            PositionError::KingsFacing => f.write_str("the kings face each other on an open file"),
            PositionError::OppositeCheck => f.write_str("the side not to move is in check"),
        }
    }
}

impl std::error::Error for PositionError {}

impl From<ParseFenError> for PositionError {
    fn from(e: ParseFenError) -> Self {
        PositionError::Fen(e)
    }
}
