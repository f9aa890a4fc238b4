//! The library's tests, one module per subject, built as one test program: each test program
//! links the library, and one program rather than one per subject saves minutes of every
//! `cargo test --release` on two cores. Run one subject with
//! `cargo test --release -p qiku --test qiku SUBJECT::` (for example `perft::`). Subjects that
//! generate tables need the `generate` feature (on by default); the reader fuzzing needs `tune`
//! too, which the workspace's programs turn on.

mod book_util;
#[path = "common/buffer.rs"]
mod buffer;
#[path = "common/ccpd.rs"]
mod ccpd;
#[path = "fuzz_common/seal.rs"]
mod seal;
#[cfg(feature = "generate")]
mod tablebase_common;

mod architecture;
mod bench_signature;
mod book_build;
mod book_data;
mod book_file;
mod book_malformed;
mod book_recent;
mod book_resources;
mod book_stop;
mod chase;
mod endgame_openings;
#[cfg(feature = "generate")]
mod engine_drawish;
mod engine_eval;
mod engine_search;
mod engine_session;
mod engine_skill;
mod examples;
mod notation;
mod notation_data;
mod notation_oracle;
mod obk;
mod oracle;
mod perft;
mod pgn_data;
mod pgn_fuzz;
mod pgn_malformed;
mod pgn_truncated;
#[cfg(all(feature = "generate", feature = "tune"))]
mod reader_fuzz;
mod rules;
#[cfg(feature = "generate")]
mod table_sealed;
#[cfg(feature = "generate")]
mod tablebase_ci;
#[cfg(feature = "generate")]
mod tablebase_inputs;
#[cfg(feature = "generate")]
mod tablebase_known;
mod tablebase_rule_skip;
#[cfg(feature = "generate")]
mod tablebase_rules;
#[cfg(feature = "generate")]
mod tablebase_stop;
#[cfg(feature = "generate")]
mod tablebase_theory;
#[cfg(feature = "generate")]
mod tablebase_wdl;
mod xqf;
