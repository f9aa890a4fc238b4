//! The command-line programs' logic. The binaries in `src/bin/` only call `main` here, so that
//! everything they do is library code, tested like the rest.

pub mod board;
pub mod book;
pub mod demo;
pub mod progress;
pub mod qiku;
pub mod tb;

use std::io::IsTerminal;

use crate::core::{Position, START_FEN};

/// A position named on the command line: `startpos` or a FEN (Pikafish style).
pub fn parse_position(fen: &str) -> Result<Position, String> {
    let fen = fen.trim();
    let fen = if fen.eq_ignore_ascii_case("startpos") { START_FEN } else { fen };
    Position::from_fen(fen).map_err(|e| format!("invalid FEN {fen:?}: {e}"))
}

/// Should output to stdout use ANSI colours? Only on a terminal, and never with `NO_COLOR` set.
pub fn use_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
