//! Connects the engine's [`OpeningBook`] and [`Endgames`] traits to the crate's book and
//! tablebase file formats.

use super::uci::Openers;
use super::{Endgames, OpeningBook};
use std::sync::Arc;

fn no_book(_: &str, _: &str, _: u32) -> Result<Arc<dyn OpeningBook>, String> {
    Err("opening books are not available in this build".into())
}

fn no_tablebases(_: &str) -> Result<Arc<dyn Endgames>, String> {
    Err("tablebases are not available in this build".into())
}

/// The openers the `qiku` binary uses.
pub fn openers() -> Openers {
    Openers { book: no_book, tablebases: no_tablebases, book_policies: &["best"] }
}
