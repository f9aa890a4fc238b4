//! The rules of Xiangqi: board geometry, pieces, positions, legal moves, keys and game history.
//! Nothing here knows about books, tablebases or search.
//!
//! ```
//! use qiku::core::{Color, Game, Move, Position};
//!
//! let mut game = Game::new(Position::startpos());
//! assert_eq!(game.position().moves().len(), 44);
//! game.play(Move::new("h2".parse()?, "e2".parse()?))?; // the central cannon
//! assert_eq!((game.len(), game.position().turn()), (1, Color::Black));
//! assert_eq!(game.position().moves().len(), 45); // black's replies
//! // The cannon has left h2: the same move again is refused, and the game is unchanged.
//! assert!(game.play(Move::new("h2".parse()?, "e2".parse()?)).is_err());
//! assert_eq!(game.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod attacks;
pub mod bitboard;
pub mod chase;
pub mod diagram;
pub mod game;
mod movegen;
pub mod moves;
pub mod perft;
pub mod piece;
pub mod position;
pub mod setup;
pub mod square;
pub mod value;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use diagram::Diagram;
pub use game::{EndReason, Game, Outcome, RepetitionVerdict};
pub use moves::{Move, MoveList};
pub use piece::{Color, Piece, Role};
pub use position::{IllegalMove, Position, PositionError, Undo};
pub use setup::{ParseFenError, Setup, START_FEN};
pub use square::{File, Rank, Square};
pub use value::{Dtm, Rules, TbValue, Verdict, Wdl};
