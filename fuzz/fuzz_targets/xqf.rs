//! libFuzzer target for XQF game files: a game or an error, and a game's PGN text reads back as
//! the same tags, start position and moves (checks in `tests/fuzz_common`). Seeds: the samples
//! of `tests/data/xqf` (`.ci/run` passes that directory).
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_xqf_bytes(data));
