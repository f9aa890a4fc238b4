//! libFuzzer target for lines of the tuner's position files (checks in `tests/fuzz_common`).
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        checks::check_scored_line(text);
    }
});
