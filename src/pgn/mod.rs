//! Reading Xiangqi game collections: PGN (and plain one-game-per-line move lists) in any of the
//! encodings they come in, compressed or not.
//!
//! Two layers, deliberately independent of the rules core:
//! - [`open`] / [`Input`] (module `encoding`): turns a file — zstd-compressed or not, UTF-8, GBK
//!   or Big5 — into a stream of UTF-8 bytes, detecting both without reading the whole file.
//! - [`Reader`] + [`Visitor`] (module `reader`): a streaming, visitor-style tokenizer that yields
//!   tags, comments, NAGs, variations, results and move *tokens* (strings). Interpreting a token
//!   (`h2e2`, `H2-E2`, `C2.5`, `炮二平五`) against a board is the visitor's job.
//!
//! ```no_run
//! use qiku::pgn::{self, EncodingChoice, Location, Reader, Skip, Visitor};
//!
//! struct Count { games: u64, moves: u64 }
//! impl Visitor for Count {
//!     fn move_token(&mut self, _token: &str, _loc: Location) -> Skip { self.moves += 1; Skip::Continue }
//!     fn end_game(&mut self, _loc: Location) { self.games += 1; }
//! }
//!
//! let input = pgn::open("games.pgn.zst", EncodingChoice::Auto)?;
//! println!("{} is {}", input.path().display(), input.encoding().name());
//! let mut count = Count { games: 0, moves: 0 };
//! Reader::new(input).read_all(&mut count)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The accepted syntax, the encoding detection and the error kinds are described in
//! `docs/PGN.md`.

#![warn(missing_docs)]

mod encoding;
mod error;
mod lex;
mod location;
mod reader;
mod visitor;

#[cfg(test)]
mod tests;

pub use encoding::{
    detect_encoding, open, open_reader, EncodingChoice, Input, InputError, OpenError, OpenErrorKind, TextEncoding,
    Transcoder,
};
pub use error::{ErrorKind, SyntaxError};
pub use reader::{Mode, Reader, DEFAULT_MAX_LINE_LEN};
pub use visitor::{BadResultTag, GameResult, Location, Skip, Visitor};
