//! libFuzzer target for `.qbk` opening books: bytes written to a file, opened, walked and probed
//! (checks in `tests/fuzz_common`).
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

use std::path::PathBuf;
use std::sync::OnceLock;

/// One file per fuzzing process, rewritten for every input.
fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("qiku-fuzz-book-{}.qbk", std::process::id())))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_book_bytes(path(), data));
