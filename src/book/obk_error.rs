//! [`ObkError`]: why an `.obk` could not be written or read (SQLite, the file system, the `.qbk`
//! side, an untrusted file refused, a book that gives nothing to convert, a stop on request).

use crate::book::BookError;
use crate::core::Color;
use std::fmt;
use std::path::PathBuf;

/// Why an `.obk` could not be written or read. Every variant names the file.
#[derive(Debug)]
pub enum ObkError {
    /// SQLite failed (cannot open, not a database, no `bhobk` table, ...).
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// What qiku was doing.
        op: &'static str,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A file operation failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What qiku was doing.
        op: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Reading or writing the `.qbk` side failed.
    Book(BookError),
    /// The file is not a plain `.obk`: `bhobk` is a view, has generated or missing columns, or
    /// reading it takes far more work than a table of the file's size needs. An `.obk` is
    /// untrusted input: its schema is checked before any of it is read.
    Refused {
        /// The database file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The `.obk` has no row that gives a book move (none reached from the start position with
    /// a readable, legal move and counts): no `.qbk` is written.
    NoUsableRow {
        /// The `.obk` file.
        path: PathBuf,
        /// Rows in its `bhobk` table.
        rows: u64,
    },
    /// The book was built with `--only red` or `--only black` ([`SideFilter::Only`]): it has no
    /// moves of the other side, so the walk from the start position that computes the `.obk`'s
    /// keys ends after at most one position. Refused before anything is written.
    ///
    /// [`SideFilter::Only`]: crate::book::SideFilter::Only
    OneSided {
        /// The `.qbk` book.
        book: PathBuf,
        /// The side whose moves it keeps.
        side: Color,
    },
    /// No position of the book is reachable from the start position by its own moves (its games
    /// start from set-up positions, or per-move filters dropped every first move): the `.obk`
    /// would hold no position, so nothing is written.
    NothingReachable {
        /// The `.qbk` book.
        book: PathBuf,
        /// The book's records, none of them reachable.
        records: u64,
    },
    /// The caller asked for a stop ([`Progress::stop_requested`]): nothing was written, the
    /// temporary file was removed, and a file already at the output path was left as it was.
    ///
    /// [`Progress::stop_requested`]: crate::Progress::stop_requested
    Stopped {
        /// The file that was not written.
        output: PathBuf,
    },
}

impl fmt::Display for ObkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObkError::Sqlite { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            ObkError::Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            ObkError::Book(e) => write!(f, "{e}"),
            ObkError::Refused { path, why } => {
                write!(f, "{}: not a BHGUI .obk book: {why}; nothing was imported", path.display())
            }
            ObkError::NoUsableRow { path, rows } => write!(
                f,
                "{}: no usable book move in its {rows} rows (none reached from the start position with a readable, \
                 legal move and counts); nothing written",
                path.display()
            ),
            ObkError::OneSided { book, side } => {
                let (other, reach) = match side {
                    Color::Red => (
                        "black",
                        "no position after the first move can be reached: the .obk would hold the start position alone",
                    ),
                    Color::Black => ("red", "no position can be reached: the start position has red to move"),
                };
                write!(
                    f,
                    "{}: built with --only {side}: an .obk's positions are found by playing book moves from the start \
                     position (their keys cannot be computed from a .qbk's), and this book has no {other} moves, so \
                     {reach}; nothing was written. Build a book of both sides from the same games (without --only) \
                     and export that: a GUI picks the moves of the side it plays",
                    book.display()
                )
            }
            ObkError::NothingReachable { book, records } => write!(
                f,
                "{}: none of its {records} book moves is reachable from the start position by book moves (its \
                 games start from set-up positions, or --min-games or --min-score dropped every first move), and an \
                 .obk's positions are found by playing book moves from the start position; nothing was written. \
                 Build the book from games that start from the initial position, or with lower --min-games and \
                 --min-score",
                book.display()
            ),
            ObkError::Stopped { output } => {
                write!(f, "{}: stopped on request before the file was complete; nothing was written", output.display())
            }
        }
    }
}

impl std::error::Error for ObkError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ObkError::Sqlite { source, .. } => Some(source),
            ObkError::Io { source, .. } => Some(source),
            ObkError::Book(e) => Some(e),
            ObkError::Refused { .. }
            | ObkError::NoUsableRow { .. }
            | ObkError::OneSided { .. }
            | ObkError::NothingReachable { .. }
            | ObkError::Stopped { .. } => None,
        }
    }
}

impl From<BookError> for ObkError {
    fn from(e: BookError) -> Self {
        ObkError::Book(e)
    }
}
