//! libFuzzer target for the ICCS, WXF and Chinese move parsers and `notation::parse_any`, against
//! positions (checks in `tests/fuzz_common`). Input: `FEN\ntoken`, or a token alone.
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_notation(data));
