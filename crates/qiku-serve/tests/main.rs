//! The server's tests, one module per subject, built as one test program: each test program links
//! the server and the library, so one program rather than one per subject saves time in every
//! `cargo test --release` on two cores. Run one subject with
//! `cargo test --release -p qiku-serve --test serve SUBJECT::` (for example `browser::`).

mod common;

mod api;
mod browser;
mod chessdb;
mod chessdb_http;
mod history;
mod hostile;
mod requests;
