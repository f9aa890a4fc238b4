//! qiku: Xiangqi rules core, opening books, endgame tablebases and a UCI engine.
//!
//! ```
//! use qiku::{Position, notation::iccs};
//! let mut pos = Position::startpos();
//! assert_eq!(pos.moves().len(), 44);
//! assert_eq!(qiku::core::perft::perft(&mut pos, 2), 1920);
//! let m = iccs::parse(&pos, "h2e2").unwrap(); // central cannon
//! pos.make_move(m);
//! assert_eq!(pos.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
//! ```

pub mod book;
#[cfg(feature = "capi")]
pub mod capi;
pub mod cli;
pub mod core;
pub mod engine;
pub mod matchrunner;
pub mod notation;
pub mod pgn;
pub mod tablebase;

pub use crate::core::{
    Bitboard, Color, File, Game, Move, MoveList, Piece, Position, PositionError, Rank, Role, Setup, Square,
};
