//! Match openings: a start position and moves played from it. Each is played twice with colors
//! swapped, so neither engine profits from a lopsided line.
//!
//! An openings file is UTF-8 text (a byte order mark at its start is skipped) with one opening
//! per line; blank lines and lines starting with `#` are
//! skipped. A line is a position as every qiku command reads one, `startpos` or a FEN, optionally
//! followed by `moves` and moves, or just moves from the start position (`h2e2 h9g7`,
//! `H2-E2 H9-G7`, `C2.5 H8+7`, `炮二平五 馬８進７`; move numbers such as `1.` are skipped). Moves may
//! be in ICCS, WXF or Chinese notation, told apart move by move. Every move is checked legal, and
//! an opening must leave a game that is not over.

use qiku::core::{Game, Move, Outcome, Position, PositionError, START_FEN};
use qiku::notation::spec::{self, SpecError};
use std::fmt;
use std::path::Path;

/// A start position and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start position (FEN).
    pub fen: String,
    /// The moves played from it.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The game after the opening moves.
    pub fn game(&self) -> Game {
        let pos = Position::from_fen(&self.fen).unwrap_or_else(|_| Position::startpos());
        let mut g = Game::new(pos);
        for &m in &self.moves {
            g.play_unchecked(m);
        }
        g
    }

    /// `h2e2 h9g7 ...` (with the FEN first when not the start position).
    pub fn describe(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        if self.fen == START_FEN {
            moves.join(" ")
        } else if moves.is_empty() {
            self.fen.clone()
        } else {
            format!("{} moves {}", self.fen, moves.join(" "))
        }
    }
}

/// Common master-game openings (8 plies each, no two transposing into the same position), chosen
/// from the most frequent lines of the CCPD collection with a red score between 42% and 61%: central cannon against screen horses and
/// against the same-direction cannon, the pawn opening, the elephant opening, the horse opening.
pub const BUILTIN: &[&str] = &[
    "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 c3c4 g6g5",
    "h2e2 h9g7 h0g2 i9h9 i0h0 g6g5 h0h6 b9c7",
    "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 g3g4 c6c5",
    "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b0a2 g6g5",
    "h2e2 h9g7 h0g2 i9h9 c3c4 g6g5 b0c2 b9c7",
    "h2e2 h9g7 h0g2 i9h9 i0h0 h7h3 g3g4 b7e7",
    "c3c4 b7c7 h2e2 c9e7 h0g2 c6c5 i0h0 c5c4",
    "h2e2 b9c7 h0g2 h7f7 i0h0 h9g7 g3g4 c6c5",
    "h2e2 b9c7 h0g2 h7f7 i0h0 h9g7 b2d2 a9b9",
    "c3c4 b7c7 h2e2 c9e7 h0g2 i9i8 i0h0 i8b8",
    "h2e2 b9c7 h0g2 h7f7 i0h0 h9g7 c3c4 g6g5",
    "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b0a2 c6c5",
    "h2e2 h7e7 h0g2 h9g7 i0i1 i9h9 i1d1 h9h5",
    "c3c4 b7c7 h2e2 g9e7 b0a2 b9a7 a0b0 a9a8",
    "c3c4 b7c7 b2e2 h7e7 h0g2 h9g7 i0h0 c6c5",
    "h2d2 h9g7 h0g2 i9h9 g3g4 h7i7 b0c2 c6c5",
    "c3c4 c9e7 b0c2 g6g5 b2a2 b9c7 a0b0 a9b9",
    "c3c4 g6g5 b0c2 h9g7 b2a2 b9c7 a0b0 a9b9",
    "g0e2 b7d7 c3c4 b9a7 b0c2 a9b9 a0b0 b9b5",
    "g0e2 b7d7 a0a1 b9c7 a1d1 h9g7 b0a2 a9b9",
    "b0c2 c6c5 h2f2 b9c7 h0g2 h9i7 i0h0 i9h9",
    "g0e2 h7d7 h0g2 h9g7 i0h0 i9h9 h2h6 g6g5",
    "h2e2 h9g7 h0g2 i9h9 c3c4 h7i7 b0c2 h9h4",
    "h2e2 h9g7 g3g4 i9h9 h0g2 h7i7 b0c2 c6c5",
    "c3c4 b7c7 h2e2 c9e7 b0a2 i9i8 e2e6 d9e8",
    "h2e2 h7e7 h0g2 h9g7 i0h0 g6g5 c3c4 b7b3",
    "c3c4 g6g5 h2g2 h7e7 b0c2 h9g7 c0e2 b9a7",
    "h2e2 b9c7 h0g2 h7f7 g3g4 c6c5 b0a2 g9e7",
    "c3c4 b7c7 h2e2 c9e7 b0a2 i9i8 h0g2 i8d8",
    "h2e2 h7e7 h0g2 h9g7 i0h0 i9i8 g3g4 i8d8",
    "h2e2 h9g7 h0g2 i9h9 c3c4 h7i7 b0c2 g6g5",
    "h2e2 b9c7 h0g2 h7f7 i0h0 h9g7 b0a2 g6g5",
];

/// What is wrong with one opening line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// The FEN does not describe a valid position.
    Fen {
        /// The FEN as written.
        fen: String,
        /// Why it is refused.
        source: PositionError,
    },
    /// A move cannot be read or is not legal (the error numbers it, from 1, and says which
    /// notations it was read in).
    Move(SpecError),
    /// The opening leaves a finished game.
    GameOver(Outcome),
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Fen { fen, source } => write!(f, "invalid FEN {:?}: {source}", qiku::engine::uci::excerpt(fen)),
            LineError::Move(source) => write!(f, "{source}"),
            LineError::GameOver(Outcome::Decisive { winner, reason }) => {
                write!(
                    f,
                    "the game is already over ({winner} wins by {})",
                    qiku::engine::game_over::reason_text(*reason)
                )
            }
            LineError::GameOver(Outcome::Draw(reason)) => {
                write!(f, "the game is already over (a draw by {})", qiku::engine::game_over::reason_text(*reason))
            }
        }
    }
}

impl std::error::Error for LineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LineError::Fen { source, .. } => Some(source),
            LineError::Move(source) => Some(source),
            LineError::GameOver(_) => None,
        }
    }
}

/// Why openings could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The file could not be read (the I/O error's text: kept as text so that the error stays
    /// comparable in tests).
    Read(String),
    /// The file holds more bytes than an openings file may ([`OPENINGS_LIMIT`]): nothing of it
    /// was read.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not UTF-8 text (a GBK file, a compressed file, ...).
    NotUtf8,
    /// A line is unusable.
    Line(LineError),
    /// The text is empty (or only white space).
    Empty,
    /// No line holds an opening: every line is blank or a comment.
    NoOpenings,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Read(e) => write!(f, "cannot read: {e}"),
            Problem::TooLarge { size, limit } => write!(
                f,
                "{}; an openings file holds one short line per opening: give fewer openings, or split the file \
                 over several matches",
                crate::BoundedReadError::TooLarge { size: *size, limit: *limit }
            ),
            Problem::NotUtf8 => f.write_str(
                "not UTF-8 text (an openings file is one line of moves per opening, such as `h2e2 h9g7`, \
                 or a FEN followed by `moves ...`); convert it to UTF-8 (a GBK file: `iconv -f GBK -t UTF-8`) or \
                 give such a text file, not a compressed file or a game collection",
            ),
            Problem::Line(e) => write!(f, "{e}"),
            Problem::Empty => {
                f.write_str("no openings (the file is empty: give one line of moves per opening, such as `h2e2 h9g7`)")
            }
            Problem::NoOpenings => f.write_str("no openings (every line is blank or a # comment)"),
        }
    }
}

/// A line of an openings file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningError {
    /// Where (file name, or `built-in`).
    pub source: String,
    /// Which line (1-based; 0 for the whole file, and then the message names no line).
    pub line: usize,
    /// What is wrong.
    pub reason: Problem,
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.source, self.reason)
        } else {
            write!(f, "{} line {}: {}", self.source, self.line, self.reason)
        }
    }
}

impl std::error::Error for OpeningError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.reason {
            Problem::Line(e) => Some(e),
            Problem::Read(_) | Problem::TooLarge { .. } | Problem::NotUtf8 | Problem::Empty | Problem::NoOpenings => {
                None
            }
        }
    }
}

/// Reads one opening line (see the module docs); `None` for blank and comment lines.
pub fn parse_line(line: &str) -> Option<Result<Opening, LineError>> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words[0];
    let (fen, move_words): (String, &[&str]) = if first.eq_ignore_ascii_case("startpos") {
        let rest = &words[1..];
        (
            START_FEN.to_string(),
            if rest.first().is_some_and(|w| w.eq_ignore_ascii_case("moves")) { &rest[1..] } else { rest },
        )
    } else if line.contains('/') {
        let fen_words = if first.eq_ignore_ascii_case("fen") { &words[1..] } else { &words[..] };
        match fen_words.iter().position(|w| w.eq_ignore_ascii_case("moves")) {
            Some(i) => (fen_words[..i].join(" "), &fen_words[i + 1..]),
            None => (fen_words.join(" "), &[][..]),
        }
    } else {
        (START_FEN.to_string(), &words[..])
    };
    Some((|| {
        let pos = Position::from_fen(&fen).map_err(|source| LineError::Fen { fen: fen.clone(), source })?;
        let fen = pos.fen();
        // Move numbers ("1.", "12...") are skipped.
        let tokens: Vec<&str> =
            move_words.iter().copied().filter(|t| !t.chars().next().is_some_and(|c| c.is_ascii_digit())).collect();
        let moves = spec::read_moves(&pos, &tokens, 1).map_err(LineError::Move)?;
        let mut game = Game::new(pos);
        for &m in &moves {
            game.play_unchecked(m);
        }
        if let Some(outcome) = game.outcome() {
            return Err(LineError::GameOver(outcome));
        }
        Ok(Opening { fen, moves })
    })())
}

/// Reads openings from text (a byte order mark at its start is skipped); `source` names it in
/// errors.
pub fn parse(text: &str, source: &str) -> Result<Vec<Opening>, OpeningError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(OpeningError { source: source.to_string(), line: 0, reason: Problem::Empty });
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(r) = parse_line(line) {
            out.push(r.map_err(|e| OpeningError {
                source: source.to_string(),
                line: i + 1,
                reason: Problem::Line(e),
            })?);
        }
    }
    if out.is_empty() {
        return Err(OpeningError { source: source.to_string(), line: 0, reason: Problem::NoOpenings });
    }
    Ok(out)
}

/// The largest openings file read: 16 MiB, about 400,000 openings of 8 ICCS moves (far more
/// than a match plays), and a bound for a file named by mistake (a game collection, a disk
/// image).
pub const OPENINGS_LIMIT: u64 = 16 << 20;

/// Reads an openings file (UTF-8 text, a byte order mark allowed) of at most [`OPENINGS_LIMIT`]
/// bytes; a FIFO, device or directory is refused at once.
pub fn load(path: &Path) -> Result<Vec<Opening>, OpeningError> {
    let source = path.display().to_string();
    let error = |reason| OpeningError { source: source.clone(), line: 0, reason };
    let bytes = crate::read_bounded(path, OPENINGS_LIMIT).map_err(|e| match e {
        crate::BoundedReadError::Io(e) => error(Problem::Read(e.to_string())),
        crate::BoundedReadError::TooLarge { size, limit } => error(Problem::TooLarge { size, limit }),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| error(Problem::NotUtf8))?;
    parse(&text, &source)
}

/// The built-in openings.
pub fn builtin() -> Vec<Opening> {
    parse(&BUILTIN.join("\n"), "built-in").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_openings_are_legal_and_distinct() {
        let all = builtin();
        assert_eq!(all.len(), BUILTIN.len());
        let mut keys: Vec<u64> = all.iter().map(|o| o.game().position().key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), BUILTIN.len());
        assert!(all.iter().all(|o| o.moves.len() == 8 && o.fen == START_FEN));
    }

    #[test]
    fn file_formats_and_errors() {
        let text = "# comment\n\n1. H2-E2 H9-G7 2. H0-G2\nrnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1 moves h9g7\n4k4/9/9/9/9/9/9/9/4A4/3RK4 w\n";
        let o = parse(text, "t").unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].describe(), "h2e2 h9g7 h0g2");
        assert_eq!(o[1].moves.len(), 1);
        assert_eq!(o[1].game().position().turn(), qiku::Color::Red);
        assert!(o[2].moves.is_empty());
        let e = parse("h2e2\nh2e2 h2e2\n", "f.txt").unwrap_err();
        assert_eq!((e.source.as_str(), e.line), ("f.txt", 2));
        assert!(matches!(e.reason, Problem::Line(LineError::Move(SpecError::Move { number: 2, .. }))), "{e}");
        assert!(e.to_string().contains("line 2: move 2 \"h2e2\": read as ICCS: "), "{e}");
        // Any notation, mixed within a line, and the `startpos` form every command reads.
        let mixed = parse("startpos moves C2.5 馬８進７ h0g2\n1. 炮二平五 H8+7 2. H0-G2\n", "m").unwrap();
        assert_eq!(mixed[0].describe(), "h2e2 h9g7 h0g2");
        assert_eq!(mixed[1].describe(), "h2e2 h9g7 h0g2");
        assert!(std::error::Error::source(&e).is_some());
        assert!(matches!(parse("9/9 w\n", "x").unwrap_err().reason, Problem::Line(LineError::Fen { .. })));
        assert_eq!(parse("# nothing\n", "x").unwrap_err().reason, Problem::NoOpenings);
    }
}
