//! Renju's tests, one module per subject, built as one test program (one link instead of four
//! in every `cargo test --release`). Run one subject with
//! `cargo test --release -p qiku-renju --test renju SUBJECT::` (for example `renju_vcf::`).

mod renju_util;

mod renju_readers;
mod renju_reference;
mod renju_rules;
mod renju_vcf;
