//! The check behind the `.obk` reader's fuzzing, shared by the libFuzzer target `fuzz/obk`
//! (which includes this file by path) and the property tests of `crates/qiku-cli/tests/obk_fuzz.rs`.
//! Kept apart from `mod.rs` because it needs the library's `obk` feature (SQLite).

use qiku::book::obk::{self, ObkError};
use qiku::book::Book;
use qiku::Position;
use std::path::Path;

/// `.obk` bytes, written as `x.obk` into `dir` and imported into `x.qbk`: an error naming the
/// `.obk`, or a book that opens, whose start position's moves are legal, and whose report counts
/// no more rows used than read. SQLite does the reading: a crafted file must neither crash nor
/// run on (the reader's work is bounded), which libFuzzer's timeout checks.
pub fn check_obk_bytes(dir: &Path, data: &[u8]) {
    let input = dir.join("x.obk");
    let output = dir.join("x.qbk");
    std::fs::write(&input, data).expect("write the .obk file");
    let _ = std::fs::remove_file(&output);
    match obk::import(&input, &output) {
        Err(e) => {
            let msg = e.to_string();
            let named = match &e {
                // The .qbk side: the output is named.
                ObkError::Book(_) => msg.contains(&*output.to_string_lossy()),
                _ => msg.contains(&*input.to_string_lossy()),
            };
            assert!(named, "error does not name the file: {msg}");
            assert!(!output.exists(), "a failed import left an output");
        }
        Ok(report) => {
            assert!(report.used <= report.rows, "{} used of {} rows", report.used, report.rows);
            let book = Book::open(&output).expect("the imported book opens");
            let start = Position::startpos();
            for bm in book.probe(&start).expect("the imported book reads") {
                assert!(start.is_legal(bm.mv), "illegal book move {}", bm.mv);
            }
        }
    }
}
