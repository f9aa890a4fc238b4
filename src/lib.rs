//! qiku: Xiangqi rules core, opening books, endgame tablebases and a UCI engine.

pub mod pgn;
