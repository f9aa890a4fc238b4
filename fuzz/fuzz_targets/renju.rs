//! libFuzzer target for Renju's readers: move lists, board diagrams and Gomocup sessions (checks
//! in `crates/qiku-renju/tests/renju_util/readers.rs`). The first byte chooses the reader.
#![no_main]

#[path = "../../crates/qiku-renju/tests/renju_util/readers.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else { return };
    match which % 3 {
        0 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                checks::check_moves_text(text);
            }
        }
        1 => {
            if let Ok(text) = std::str::from_utf8(rest) {
                checks::check_diagram_text(text);
            }
        }
        _ => {
            let _ = checks::check_session(rest);
        }
    }
});
