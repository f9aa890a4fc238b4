//! qiku: a Xiangqi (Chinese chess) library: the rules, move notations, a streaming PGN/XQF reader,
//! opening books, endgame tablebases and a UCI/UCCI engine.
//!
//! This crate is the library alone; it links no command-line or SQLite crate unless asked. The
//! rest of the qiku workspace sits on top of it: `qiku-cli` (the `qiku`, `qiku-book` and
//! `qiku-tb` programs and the match runner), `qiku-capi` (the C API, `libqiku.so`/`libqiku.a`
//! with `include/qiku.h`), `qiku-renju` (Renju, which uses nothing of this crate), `qiku-serve`
//! (the explorer server) and `qiku-python` (the Python bindings).
//!
//! Cargo features: `generate` (on by default: the tablebase generator, planner and verifier,
//! `qiku::tablebase::generate`; a program that only probes builds without it), `serde`
//! (`Serialize` for reports and values), `obk` (BHGUI-style `.obk` books through SQLite), `tune`
//! (the Texel tuner of the evaluation, `qiku::tune`).
//!
//! The modules form layers, each using only those below it (`docs/ARCHITECTURE.md`, held to the
//! code by a test): [`core`] (rules, values) at the bottom with the file helpers [`fs`]; then
//! [`notation`], [`pgn`] and [`xqf`]; then [`book`] and [`tablebase`]; then [`engine`]; then
//! the tuner.
//!
//! The flows an engine author needs, each a test that runs:
//!
//! **1. FEN → position → legal moves → notation** (ICCS, WXF, Chinese):
//!
//! ```
//! use qiku::notation::{chinese, iccs, wxf};
//! use qiku::Position;
//!
//! let pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1")?;
//! assert_eq!(pos, Position::startpos());
//! assert_eq!(pos.moves().len(), 44);
//! assert_eq!(qiku::core::perft::perft(&mut pos.clone(), 2), 1920);
//!
//! let m = iccs::parse(&pos, "h2e2")?; // the central cannon
//! assert_eq!(iccs::format(m), "h2e2");
//! assert_eq!(wxf::format(&pos, m), "C2.5");
//! assert_eq!(chinese::format(&pos, m), "炮二平五");
//! // Any notation is read back to the same move.
//! assert_eq!(qiku::notation::parse_any(&pos, "炮二平五")?.0, m);
//!
//! let after = pos.play(m)?; // checked: an illegal move is an error
//! assert_eq!(after.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **2. An opening book**: compile games (PGN) into a `.qbk` file, open it, probe a position and
//! pick a move by a policy:
//!
//! ```
//! use qiku::book::{self, build::{build, BuildOptions}, Book, Policy};
//! use qiku::Rng;
//! use qiku::Position;
//!
//! let dir = tempfile::tempdir()?;
//! let games = dir.path().join("games.pgn");
//! std::fs::write(&games, "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n\
//!                         [Result \"1/2-1/2\"]\n\n1. h2e2 b9c7 2. h0g2 1/2-1/2\n\n\
//!                         [Result \"0-1\"]\n\n1. c3c4 b7c7 0-1\n")?;
//! let path = dir.path().join("tiny.qbk");
//! let report = build(&[games], &path, &BuildOptions::default())?;
//! assert_eq!(report.header.games.used, 3);
//!
//! let book = Book::open(&path)?;
//! let start = Position::startpos();
//! let moves = book.probe(&start)?; // most played first
//! assert_eq!(moves.len(), 2);
//! assert_eq!((moves[0].mv.to_string(), moves[0].counts.games()), ("h2e2".to_string(), 2));
//! let pick = book::choose(&moves, Policy::BestScore, &mut Rng::new(1));
//! assert_eq!(pick.map(|m| m.to_string()).as_deref(), Some("h2e2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **3. Endgame tablebases**: generate the rook-against-king table, open the directory, probe
//! win/draw/loss, distance to mate and the best move:
//!
//! ```
//! use qiku::tablebase::generate::{generate_set, GenerateOptions};
//! use qiku::tablebase::{Material, Tablebases, Wdl};
//! use qiku::Position;
//!
//! let dir = tempfile::tempdir()?;
//! let krk: Material = "KRvK".parse()?;
//! generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
//!
//! let tables = Tablebases::open(dir.path())?;
//! // Rook and king against king: a win for red, at a distance the table knows.
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")?;
//! let value = tables.probe(&pos)?.expect("KRvK is covered");
//! assert_eq!(value.wdl, Wdl::Win);
//! assert!(value.dtm.plies() > 0);
//! let best = tables.best_moves(&pos)?.expect("covered");
//! // Every best move keeps the win, one ply closer to mate.
//! for m in best {
//!     let next = tables.probe(&pos.play(m)?)?.expect("covered");
//!     assert_eq!((next.wdl, next.dtm.plies() + 1), (Wdl::Loss, value.dtm.plies()));
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **4. A search from code**: the [`engine::Engine`] plays a book move, a tablebase move, or
//! searches (here it searches to depth 6):
//!
//! ```
//! use qiku::engine::{time::Limits, Engine, Score, Source};
//! use qiku::{Game, Position};
//!
//! let mut engine = Engine::new(16); // a 16 MiB transposition table
//! // Rook and king against king: the search finds the forced mate.
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1")?;
//! let game = Game::new(pos.clone());
//! let (result, source) = engine.think(&game, &Limits::depth(6), &mut |info| {
//!     // One line per iteration, as UCI `info`.
//!     assert!(info.to_uci().starts_with("info depth"));
//! });
//! assert_eq!(source, Source::Search);
//! let best = result.best.expect("a legal move exists");
//! assert!(pos.is_legal(best));
//! assert!(matches!(result.score, Score::Mate(n) if n > 0), "{:?}", result.score);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The same engine speaks UCI over any reader and writer: [`engine::session::run`] (UCI, or UCCI after `ucci`).
//!
//! Whole programs built on these flows (probe a book, think with the engine, read a PGN file with
//! located errors, probe tables, perft) are in the repository's `examples/` (`docs/EXAMPLES.md`):
//! `cargo run --release --example think -- startpos moves 炮二平五`.

#![warn(missing_docs)]

pub mod book;
pub mod core;
pub mod engine;
pub mod fs;
pub mod notation;
pub mod pgn;
mod storage;
pub mod tablebase;
#[cfg(feature = "tune")]
pub mod tune;
mod util;
pub mod xqf;

pub use crate::core::{
    Bitboard, Color, Dtm, File, Game, Move, MoveList, Piece, Position, PositionError, Rank, Role, Rules, Setup, Square,
    TbValue, Verdict, Wdl,
};
pub use crate::util::progress::{NoProgress, Progress};
pub use crate::util::rng::Rng;
pub use crate::util::threads::{check_worker_threads_env, WorkerThreadsError, MAX_WORKER_THREADS};
