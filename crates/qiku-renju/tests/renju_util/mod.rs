//! Helpers shared by the Renju tests: points by name and hand-built positions.

#![allow(dead_code)]

use qiku_renju::{Board, Point, Stone};

/// The point named `s` (`h8`); panics with the parser's message on a bad name.
pub fn pt(s: &str) -> Point {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// A set-up position: black and white stones by name.
pub fn setup(black: &str, white: &str) -> Board {
    let mut b = Board::new();
    for s in black.split_whitespace() {
        b.put(pt(s), Stone::Black);
    }
    for s in white.split_whitespace() {
        b.put(pt(s), Stone::White);
    }
    b
}

pub mod readers;
