//! libFuzzer target for `.qtb` tables, `.qtr` companions and `.qtw` WDL files: bytes written as
//! `KRvK.qtb` (then as `KRvK.qtr`, then as `KRvK.qtw`), opened, probed, each block
//! read and the table verified (checks in `tests/fuzz_common`).
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

use std::path::PathBuf;
use std::sync::OnceLock;

/// One directory per fuzzing process, its table rewritten for every input.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("qiku-fuzz-tb-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_table_bytes(dir(), data));
