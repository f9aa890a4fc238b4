//! The command-line programs' logic. The binaries in `src/bin/` only call `main` here, so that
//! everything they do is library code, tested like the rest.

pub mod board;
pub mod book;
pub mod qiku;
pub mod tb;

use std::io::IsTerminal;

/// Should output to stdout use ANSI colours? Only on a terminal, and never with `NO_COLOR` set.
pub fn use_colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
