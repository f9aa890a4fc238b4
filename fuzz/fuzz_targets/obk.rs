//! libFuzzer target for BHGUI `.obk` books (SQLite databases): bytes written to a file and
//! imported (checks in `tests/fuzz_common/obk.rs`).
#![no_main]

#[path = "../../tests/fuzz_common/obk.rs"]
mod checks;

use std::path::PathBuf;
use std::sync::OnceLock;

/// One directory per fuzzing process, its files rewritten for every input.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("qiku-fuzz-obk-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("fuzz work directory");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_obk_bytes(dir(), data));
