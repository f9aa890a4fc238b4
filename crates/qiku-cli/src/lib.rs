//! The qiku programs' logic: `qiku` ([`qiku_program`]: the engine over UCI/UCCI, probes,
//! analysis, `perft`, `bench`, the match runner, Renju), `qiku-book` ([`book`]) and `qiku-tb`
//! ([`tb`]). The binaries in `src/bin/` only call a `main` here, so that everything they do is
//! library code, tested like the rest. This is the only crate of the workspace that links clap,
//! indicatif and serde_json; all JSON output is written here, never in the `qiku` library.

pub mod annotate;
pub mod book;
pub mod demo;
pub mod matchrunner;
#[cfg(feature = "obk")]
pub mod obk;
pub mod progress;
pub mod qiku_program;
pub mod renju;
pub mod tb;
pub mod tune;

use std::io::IsTerminal;

use qiku::core::{Position, PositionError, START_FEN};

/// A position argument that is neither `startpos` nor a valid FEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPosition {
    /// The argument as given (trimmed).
    pub fen: String,
    /// Why it is not a position.
    pub source: PositionError,
}

impl std::fmt::Display for BadPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid FEN {:?}: {}", self.fen, self.source)
    }
}

impl std::error::Error for BadPosition {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The programs' commands report errors as text on stderr; this lets `?` turn the error into it.
impl From<BadPosition> for String {
    fn from(e: BadPosition) -> String {
        e.to_string()
    }
}

/// A position named on the command line: `startpos` or a FEN (Pikafish style).
pub fn parse_position(fen: &str) -> Result<Position, BadPosition> {
    let fen = fen.trim();
    let fen = if fen.eq_ignore_ascii_case("startpos") { START_FEN } else { fen };
    Position::from_fen(fen).map_err(|source| BadPosition { fen: fen.to_string(), source })
}

/// Should output to stdout use ANSI colors? Only on a terminal, and never with `NO_COLOR` set.
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
