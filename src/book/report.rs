//! What a build reports about the games it could not use: [`SkipReason`] (a kind, never a
//! string) and [`GameError`] (a located bad game). Shared by the builder and the replayer, so
//! neither imports the other's internals.

use super::filter::FilterMiss;
use crate::notation::ParseMoveError;
use std::fmt;
use std::path::PathBuf;

/// Why a move could not be read or played (the kinds of [`ParseMoveError`]).
///
/// ```
/// use qiku::book::MoveErrorKind;
/// use qiku::notation::parse_any;
/// use qiku::Position;
///
/// let err = parse_any(&Position::startpos(), "h5h6").unwrap_err();
/// assert_eq!(MoveErrorKind::from(&err), MoveErrorKind::NoSuchPiece);
/// assert_eq!(MoveErrorKind::NoSuchPiece.label(), "no such piece");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MoveErrorKind {
    /// The token is not a move in any notation qiku reads.
    Syntax,
    /// No piece of the side to move stands where the move starts.
    NoSuchPiece,
    /// The move is not legal in the position.
    Illegal,
    /// The token fits more than one legal move.
    Ambiguous,
}

impl MoveErrorKind {
    /// A short label for summaries.
    ///
    /// ```
    /// use qiku::book::MoveErrorKind;
    ///
    /// assert_eq!(MoveErrorKind::Illegal.label(), "illegal move");
    /// assert_eq!(MoveErrorKind::Syntax.label(), "unknown move token");
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            MoveErrorKind::Syntax => "unknown move token",
            MoveErrorKind::NoSuchPiece => "no such piece",
            MoveErrorKind::Illegal => "illegal move",
            MoveErrorKind::Ambiguous => "ambiguous move",
        }
    }
}

impl From<&ParseMoveError> for MoveErrorKind {
    fn from(e: &ParseMoveError) -> Self {
        match e {
            ParseMoveError::Syntax { .. } => MoveErrorKind::Syntax,
            ParseMoveError::NoSuchPiece { .. } => MoveErrorKind::NoSuchPiece,
            ParseMoveError::Illegal { .. } => MoveErrorKind::Illegal,
            ParseMoveError::Ambiguous { .. } => MoveErrorKind::Ambiguous,
        }
    }
}

/// Why a game was skipped.
///
/// ```
/// use qiku::book::{MoveErrorKind, SkipReason};
///
/// assert!(SkipReason::BadMove(MoveErrorKind::Illegal).is_error());
/// assert_eq!(SkipReason::BadMove(MoveErrorKind::Illegal).to_string(), "illegal move");
/// assert!(!SkipReason::NoMoves.is_error()); // a filter at work, not an error
/// assert_eq!(SkipReason::BelowMinElo.label(), "below --min-elo");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// A malformed tag section, or an unusable `FEN`, `Result` or Elo tag.
    BadHeader,
    /// Broken movetext (unterminated comment, stray character, bad bytes, ...).
    Syntax,
    /// A move that cannot be read or played, and why.
    BadMove(MoveErrorKind),
    /// The input ended in the middle of the game, before its result token (a file cut short or
    /// damaged there): its moves are only the start of it. Skipped unless `--keep-prefix`
    /// ([`BuildParams::keep_prefix`](super::BuildParams)) keeps them, as it keeps the moves of a
    /// game before a bad move.
    CutShort,
    /// No moves at all.
    NoMoves,
    /// `--min-elo` was given and the game lacks a `RedElo` or `BlackElo` tag.
    NoElo,
    /// A player is rated below `--min-elo`.
    BelowMinElo,
    /// Excluded by a game filter (`--player`, `--event`, `--since`/`--until`, `--ecco`).
    Filtered(FilterMiss),
}

impl SkipReason {
    /// Whether this is an error in the input (reported), rather than a filter at work.
    ///
    /// ```
    /// use qiku::book::{FilterMiss, SkipReason};
    ///
    /// assert!(SkipReason::CutShort.is_error()); // a damaged or truncated file
    /// assert!(!SkipReason::Filtered(FilterMiss::Date).is_error()); // left out on purpose
    /// ```
    pub fn is_error(self) -> bool {
        !matches!(self, SkipReason::NoMoves | SkipReason::NoElo | SkipReason::BelowMinElo | SkipReason::Filtered(_))
    }
    /// A short label for summaries (the words a person reads; [`SkipReason::key`] is for
    /// programs).
    ///
    /// ```
    /// use qiku::book::{FilterMiss, MoveErrorKind, SkipReason};
    ///
    /// assert_eq!(SkipReason::Filtered(FilterMiss::Ecco).label(), "other ECCO codes (--ecco)");
    /// assert_eq!(SkipReason::BadMove(MoveErrorKind::Ambiguous).label(), MoveErrorKind::Ambiguous.label());
    /// assert_eq!(SkipReason::NoMoves.label(), SkipReason::NoMoves.to_string());
    /// ```
    pub fn label(self) -> &'static str {
        match self {
            SkipReason::BadHeader => "malformed header",
            SkipReason::Syntax => "syntax error",
            SkipReason::CutShort => "cut short (input ended mid-game)",
            SkipReason::BadMove(kind) => kind.label(),
            SkipReason::NoMoves => "no moves",
            SkipReason::NoElo => "no Elo tags (--min-elo)",
            SkipReason::BelowMinElo => "below --min-elo",
            SkipReason::Filtered(FilterMiss::Player) => "other players (--player/--red/--black)",
            SkipReason::Filtered(FilterMiss::Event) => "other events (--event)",
            SkipReason::Filtered(FilterMiss::Date) => "outside --since/--until",
            SkipReason::Filtered(FilterMiss::NoDate) => "no readable date (--since/--until)",
            SkipReason::Filtered(FilterMiss::Ecco) => "other ECCO codes (--ecco)",
        }
    }
}

impl SkipReason {
    /// A stable identifier for JSON and other output programs read (`snake_case`, never
    /// reworded): `bad_header`, `syntax`, `unknown_move`, `no_such_piece`, `illegal_move`,
    /// `ambiguous_move`, `cut_short`, `no_moves`, `no_elo`, `below_min_elo`, `other_player`, `other_event`,
    /// `outside_dates`, `no_date`, `other_ecco`.
    ///
    /// ```
    /// use qiku::book::{MoveErrorKind, SkipReason};
    ///
    /// assert_eq!(SkipReason::BadMove(MoveErrorKind::Illegal).key(), "illegal_move");
    /// assert_eq!(SkipReason::BelowMinElo.key(), "below_min_elo");
    /// ```
    pub fn key(self) -> &'static str {
        match self {
            SkipReason::BadHeader => "bad_header",
            SkipReason::Syntax => "syntax",
            SkipReason::BadMove(MoveErrorKind::Syntax) => "unknown_move",
            SkipReason::BadMove(MoveErrorKind::NoSuchPiece) => "no_such_piece",
            SkipReason::BadMove(MoveErrorKind::Illegal) => "illegal_move",
            SkipReason::BadMove(MoveErrorKind::Ambiguous) => "ambiguous_move",
            SkipReason::CutShort => "cut_short",
            SkipReason::NoMoves => "no_moves",
            SkipReason::NoElo => "no_elo",
            SkipReason::BelowMinElo => "below_min_elo",
            SkipReason::Filtered(FilterMiss::Player) => "other_player",
            SkipReason::Filtered(FilterMiss::Event) => "other_event",
            SkipReason::Filtered(FilterMiss::Date) => "outside_dates",
            SkipReason::Filtered(FilterMiss::NoDate) => "no_date",
            SkipReason::Filtered(FilterMiss::Ecco) => "other_ecco",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A bad game, located.
///
/// A build reports each bad game with its file, game number, line and column:
///
/// ```
/// use qiku::book::{build, BuildOptions, MoveErrorKind, SkipReason};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "[Result \"1-0\"]\n\n1. h2e2 h9g7\n2. h0g2 i9i4 1-0\n")?;
/// let report = build(&[games.clone()], &dir.path().join("b.qbk"), &BuildOptions::default())?;
/// assert_eq!(report.errors_total, 1);
/// let e = &report.errors[0];
/// assert_eq!((e.file.as_path(), e.game, e.line, e.column), (games.as_path(), 1, 4, 9));
/// assert_eq!(e.token.as_deref(), Some("i9i4")); // the rook cannot jump its own pawn
/// assert_eq!(e.reason, SkipReason::BadMove(MoveErrorKind::Illegal));
/// assert!(e.to_string().contains("game 1, line 4, column 9"), "{e}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// The input file.
    pub file: PathBuf,
    /// 1-based game number within the file.
    pub game: u64,
    /// 1-based line of the error.
    pub line: u64,
    /// 1-based column of the error.
    pub column: u32,
    /// The offending move token, if the error is about a move.
    pub token: Option<String>,
    /// The kind of error.
    pub reason: SkipReason,
    /// The full message.
    pub detail: String,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: game {}, line {}, column {}: {}",
            self.file.display(),
            self.game,
            self.line,
            self.column,
            self.reason
        )?;
        match &self.token {
            // A token of a megabyte (junk in a file) would make a line of two: the message shows
            // its start and its length, in the detail too.
            Some(t) if t.chars().nth(SHOWN_TOKEN_CHARS).is_some() => {
                let short: String = t.chars().take(SHOWN_TOKEN_CHARS).collect::<String>() + "…";
                let shown = format!("{short:?} ({} bytes)", t.len());
                write!(f, " at {shown}: {}", self.detail.replace(&format!("{t:?}"), &shown).replace(t.as_str(), &short))
            }
            Some(t) => write!(f, " at {t:?}: {}", self.detail),
            None => write!(f, ": {}", self.detail),
        }
    }
}

/// How much of a long token an error message shows.
const SHOWN_TOKEN_CHARS: usize = 40;
