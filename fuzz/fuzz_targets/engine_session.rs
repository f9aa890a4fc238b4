//! libFuzzer target for the engine's protocol lines, UCI and UCCI sessions in the process (checks
//! in `tests/fuzz_common`). Input: a byte that picks the protocol (even: UCI, odd: UCCI), then the
//! session's lines.
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((&pick, rest)) = data.split_first() {
        if let Ok(text) = std::str::from_utf8(rest) {
            checks::check_engine_session(text, pick % 2 == 1);
        }
    }
});
