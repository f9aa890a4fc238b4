//! Opening books: compile game collections into a `.qbk` file, merge books, and probe them from
//! an engine. A book is read with positioned reads (a small cache of index buckets), so opening
//! one costs no memory for its records; a memory map is the opt-in `unsafe`
//! [`Book::open_mmap`].
//!
//! - [`record`]: what is stored per move (wins, draws, losses and unknown-result games from the
//!   mover's view) and the canonical (mirror-merged) form of positions and moves.
//! - [`mod@format`]: the file layout (header, sorted 26-byte records, top-bits index), checksums and
//!   the atomic writer. Documented byte by byte in docs/FORMAT.md.
//! - [`mod@build`]: the parallel, memory-bounded compiler (games → records → sorted runs spilled to
//!   disk → k-way merge → file) and [`merge_books`].
//! - [`probe`]: [`Book`], [`Book::probe`], [`Book::recent_games`] and move picking [`Policy`]s.
//! - [`filter`]: which games a build reads ([`GameFilter`]: player, event, dates, ECCO).
//! - [`recent`]: the optional recent-games section (the newest games through each position).
//! - [`open_hint`] and [`book_path_for`]: what to tell a user who gave games or an `.obk` where a
//!   book belongs, with an output path that never replaces the file given.
//! - `obk` (cargo feature `obk`): export to and import from BHGUI-style `.obk` (SQLite) books.
//!
//! The output depends only on the multiset of (position, move, outcome) records, so it is
//! byte-identical for any thread count and any order of the input files; see docs/BOOK.md.
//!
//! ```
//! use qiku::book::{build, BuildOptions};
//!
//! let dir = tempfile::tempdir()?;
//! let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
//! std::fs::write(&a, "1. h2e2 h9g7 1-0\n")?;
//! std::fs::write(&b, "1. c3c4 b9c7 0-1\n\n1. h2e2 b9c7 1/2-1/2\n")?;
//! let (ab, ba) = (dir.path().join("ab.qbk"), dir.path().join("ba.qbk"));
//! build(&[a.clone(), b.clone()], &ab, &BuildOptions { threads: Some(2), ..BuildOptions::default() })?;
//! build(&[b, a], &ba, &BuildOptions { threads: Some(1), ..BuildOptions::default() })?;
//! // The same games in the other order, on another number of threads: the same bytes.
//! assert_eq!(std::fs::read(&ab)?, std::fs::read(&ba)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod build;
mod choose;
mod error;
pub mod filter;
pub mod format;
mod hint;
mod inputs;
mod merge;
#[cfg(feature = "obk")]
pub mod obk;
pub mod probe;
pub mod recent;
pub mod record;
mod replay;
pub mod report;
mod scratch;
mod stdin;

pub use build::{build, BuildError, BuildOptions, BuildReport, FileReport, UnusableFile};
pub use error::BookError;
pub use filter::{DateBound, Ecco, EccoRange, FilterError, FilterMiss, GameDate, GameFilter};
pub use format::{BuildParams, GameCounts, Header, SideFilter};
pub use hint::{book_path_for, open_hint};
pub use merge::{merge_books, merge_books_with_progress};
pub use probe::{
    choose, choose_with_share, mirror_twin, with_min_share, Book, BookMove, Policy, Verify, DEFAULT_MIN_SHARE_PERCENT,
};
pub use recent::{RecentGame, DEFAULT_RECENT_GAMES};
pub use record::{Counts, Entry, MinScore, MoverResult};
pub use report::{GameError, MoveErrorKind, SkipReason};
