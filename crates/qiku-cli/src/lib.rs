//! The qiku programs' logic: `qiku` ([`qiku_program`]: the engine over UCI/UCCI, probes,
//! analysis, `perft`, `bench`, the match runner, Renju), `qiku-book` ([`book`]) and `qiku-tb`
//! ([`tb`]). The binaries in `src/bin/` only call a `main` here, so that everything they do is
//! library code, tested like the rest. This is the only crate of the workspace that links clap,
//! indicatif and serde_json; all JSON output is written here, never in the `qiku` library.

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

use qiku::core::Position;
use qiku::notation::spec::{parse_position_args, parse_position_spec, PositionSpec, SpecError};
use qiku::notation::Notation;

/// A position argument that cannot be read: not `startpos` or a valid FEN, a move that cannot
/// be played, or a FEN split into several arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPosition(pub SpecError);

impl std::fmt::Display for BadPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for BadPosition {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The programs' commands report errors as text on stderr; this lets `?` turn the error into it.
impl From<BadPosition> for String {
    fn from(e: BadPosition) -> String {
        e.to_string()
    }
}

/// A position named on the command line in one argument: `startpos` or a FEN (Pikafish style),
/// optionally followed by `moves` and moves in ICCS, WXF or Chinese notation; the position after
/// the moves.
pub fn parse_position(text: &str) -> Result<Position, BadPosition> {
    parse_position_spec(text).map(|s| s.position()).map_err(BadPosition)
}

/// A position given as the command's positional arguments (see
/// [`qiku::notation::spec::parse_position_args`]); no argument means `startpos`.
pub fn position_args(args: &[String]) -> Result<PositionSpec, BadPosition> {
    if args.is_empty() {
        return parse_position_spec("startpos").map_err(BadPosition);
    }
    parse_position_args(args).map_err(BadPosition)
}

/// Help text of the position arguments, shared by every command that takes one.
pub const POSITION_HELP: &str = "Position: startpos or a FEN (Pikafish style; quote it), optionally followed by \
    `moves` and moves in ICCS (h2e2), WXF (C2.5) or Chinese (炮二平五) notation";

/// `--notation`: the notation moves are printed in.
pub fn notation_arg(s: &str) -> Result<Notation, String> {
    s.parse::<Notation>().map_err(|e| e.to_string())
}

/// Should output to stdout use ANSI colors? Only on a terminal, and never with `NO_COLOR` set.
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// A value parser for a whole number from `lo` to `hi`, whose error says the range in words
/// ("from 1 to 100"), as the rest of the programs' messages do.
pub fn whole_number<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|v| (lo..=hi).contains(v))
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("{s} is not a whole number from {lo} to {hi}"))
    }
}
