//! [`BookError`]: why a book could not be read, written or merged. Kept apart from the module
//! root so that the format, builder and reader depend on it without depending on each other.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::pgn::OpenError;

/// Why a book could not be read, written or merged. Every variant names the file.
///
/// ```
/// use qiku::book::{Book, BookError};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 *\n")?;
/// // A game file is not a book.
/// let err = Book::open(&games).unwrap_err();
/// assert!(matches!(err, BookError::NotABook { .. }));
/// assert!(err.to_string().ends_with("not a qiku opening book (no QIKUBOOK magic at the start)"), "{err}");
/// // A missing file: the operating system's error, with the file and what was being done.
/// let err = Book::open(dir.path().join("missing.qbk")).unwrap_err();
/// assert!(matches!(err, BookError::Io { .. }));
/// assert!(std::error::Error::source(&err).is_some());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub enum BookError {
    /// An operating-system error on a file.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done (`open`, `read`, ...).
        op: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// The book being written could not be written (a full disk, say). Nothing was written: the
    /// temporary file is removed, and a file already at the output path is as it was.
    Write {
        /// The book being written.
        output: PathBuf,
        /// The temporary file it was being written to, beside it (removed).
        temp: PathBuf,
        /// What was being done (`write the book`, ...).
        op: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// A temporary file of a build, merge or import could not be made, written or read in the
    /// directory for temporary files (sorted runs of records or references spilled beyond the
    /// memory budget, the games of the recent-games section). Nothing was written to the output.
    Spill {
        /// The book being written.
        output: PathBuf,
        /// The directory of the temporary files.
        dir: PathBuf,
        /// What was being done (`create a spill file`, ...).
        op: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// The output of a build or merge is one of its inputs (writing it would destroy the input);
    /// refused before anything is read.
    OutputIsInput {
        /// The output as given.
        output: PathBuf,
        /// The input it is the same file as.
        input: PathBuf,
    },
    /// The file does not start with the `.qbk` magic bytes.
    NotABook {
        /// The file.
        path: PathBuf,
    },
    /// Another format version.
    Version {
        /// The file.
        path: PathBuf,
        /// The version it has.
        found: u32,
        /// The version this qiku reads.
        supported: u32,
    },
    /// Built with another Zobrist key set: its keys mean nothing to this build of qiku.
    Fingerprint {
        /// The file.
        path: PathBuf,
        /// The fingerprint it has.
        found: u64,
    },
    /// Shorter than its header says.
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header implies.
        expected: u64,
        /// Bytes there are.
        actual: u64,
    },
    /// A checksum, count, order or field does not match.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What does not match.
        what: String,
    },
    /// Books that cannot be merged (built with different game-level options).
    Incompatible {
        /// The book that differs from the first.
        path: PathBuf,
        /// How its options differ.
        what: String,
    },
    /// The caller asked for a stop ([`crate::Progress::stop_requested`]) before the book was
    /// complete: nothing was written, the temporary files were removed, and a file already at
    /// the output path was left as it was.
    Stopped {
        /// The book that was not written.
        output: PathBuf,
    },
    /// A bug in qiku (an invariant of the writer was broken); never caused by input.
    Internal(String),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            BookError::Write { output, temp, op, source } => write!(
                f,
                "{}: cannot {op}: {source}; nothing was written: its temporary file {} is removed, and a file \
                 already there is left as it was{}",
                output.display(),
                temp.display(),
                advice(source, crate::util::files::parent_dir(output))
            ),
            BookError::Spill { output, dir, op, source } => write!(
                f,
                "{}: cannot {op} in {}, the directory of the temporary files for this book: {source}; nothing \
                 was written{}",
                output.display(),
                dir.display(),
                advice(source, dir)
            ),
            BookError::OutputIsInput { output, input } => write!(
                f,
                "{}: the output is the input {} (same file); refusing to overwrite it",
                output.display(),
                input.display()
            ),
            BookError::NotABook { path } => {
                write!(f, "{}: not a qiku opening book (no QIKUBOOK magic at the start)", path.display())
            }
            BookError::Version { path, found, supported } => write!(
                f,
                "{}: book format version {found}, but this qiku reads versions 1 to {supported}; rebuild the book",
                path.display()
            ),
            BookError::Fingerprint { path, found } => write!(
                f,
                "{}: built with another Zobrist key set (fingerprint {found:#018x}, this qiku uses {:#018x}); \
                 its position keys do not match, rebuild the book",
                path.display(),
                crate::core::zobrist::FINGERPRINT
            ),
            BookError::Truncated { path, expected, actual } => write!(
                f,
                "{}: truncated: {actual} bytes, the header says {expected} (cut short: copy it again, or build it \
                 again with `qiku-book build`)",
                path.display()
            ),
            BookError::Corrupt { path, what } => write!(
                f,
                "{}: corrupt book: {what} (damaged: copy it again, or build it again with `qiku-book build`)",
                path.display()
            ),
            BookError::Incompatible { path, what } => write!(f, "{}: cannot merge: {what}", path.display()),
            BookError::Stopped { output } => {
                write!(f, "{}: stopped on request before the book was complete; nothing was written", output.display())
            }
            BookError::Internal(what) => write!(f, "internal error: {what}"),
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Io { source, .. } | BookError::Write { source, .. } | BookError::Spill { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

/// What to do when writing in `dir` failed with `e`, after a `; ` (empty when nothing useful can
/// be said).
fn advice(e: &std::io::Error, dir: &Path) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
            format!("; free space in {} or write the book to a disk with more room", dir.display())
        }
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
            format!("; {} cannot be written to: write the book to a directory you can write to", dir.display())
        }
        _ => String::new(),
    }
}

/// Why a build failed as a whole (bad games never fail a build; they are reported).
#[derive(Debug)]
pub enum BuildError {
    /// An input named could not be opened (or a directory listed), or a temporary file or
    /// directory could not be made.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// An input named is not a game file (one of qiku's binary files, or binary data); refused
    /// before any game is read.
    NotText(OpenError),
    /// Writing the book failed (or the output is one of the inputs).
    Book(BookError),
    /// The worker thread pool could not be started.
    Threads(rayon::ThreadPoolBuildError),
    /// `max_ply` is 0: no move would be recorded and the book would be empty; refused before
    /// anything is read.
    NoPlies,
    /// The progress receiver asked for a stop ([`crate::Progress::stop_requested`]): nothing was
    /// written, and a file already at the output path was left as it was.
    Stopped,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            BuildError::NotText(e) => write!(f, "{e}"),
            BuildError::Book(e) => write!(f, "{e}"),
            BuildError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
            BuildError::NoPlies => f.write_str(
                "a maximum of 0 plies records no move: the book would be empty; give 1 or more (default 40)",
            ),
            BuildError::Stopped => f.write_str("the build was stopped: no book was written"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Io { source, .. } => Some(source),
            BuildError::NotText(e) => Some(e),
            BuildError::Book(e) => Some(e),
            BuildError::Threads(e) => Some(e),
            BuildError::NoPlies | BuildError::Stopped => None,
        }
    }
}

impl From<BookError> for BuildError {
    fn from(e: BookError) -> Self {
        BuildError::Book(e)
    }
}
