//! The programs' tests, one module per subject, built as one test program: each test program
//! links the whole workspace, and one program rather than one per subject saves minutes of every
//! `cargo test --release` on two cores. Run one subject with
//! `cargo test --release -p qiku-cli --test cli SUBJECT::` (for example `tablebase_files::`).

mod common;
#[path = "../../../tests/tablebase_common/mod.rs"]
mod tablebase_common;

mod analysis;
mod book_cli;
mod book_limits;
mod book_safety;
mod chase_game;
mod cli_limits;
mod demo;
mod engine_book_tb;
mod engine_match;
mod engine_output;
mod hostile_files;
mod hostile_inputs;
mod inputs;
mod match_sprt;
mod obk_fuzz;
mod one_verdict;
mod renju_cli;
mod renju_gomocup;
mod tablebase_damaged;
mod tablebase_edges;
mod tablebase_files;
mod tablebase_paging;
mod tablebase_plan;
mod tune_cli;
mod ucci;
mod uci_protocol;
mod workflow;
