//! libFuzzer target for the state file of a paged solve's checkpoint (`NAME.state` in the
//! scratch directory of `qiku-tb generate --memory`): the bytes as they are and with their
//! checksum made again, as a doctored file has it, read against a KRvK solve (checks in
//! `tests/fuzz_common`).
#![no_main]

#[path = "../../tests/fuzz_common/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_checkpoint_bytes(data));
