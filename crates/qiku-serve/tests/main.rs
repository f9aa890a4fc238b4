//! The server's tests, one module per subject, built as one test program: each test program links
//! the server and the library with link-time optimisation (about 35 s on two cores), so one
//! instead of five saves over a minute of every `cargo test --release`. Run one subject with
//! `cargo test --release -p qiku-serve --test serve SUBJECT::` (for example `browser::`).

mod common;

mod api;
mod browser;
mod chessdb;
mod chessdb_http;
mod history;
mod hostile;
mod requests;
