//! A tiny ad-hoc reader for the CCPD game files in `books/games/` (zstd-compressed PGN), for
//! tests and benches only: tag pairs and movetext tokens, no comments or variations (the files
//! have none). The real streaming PGN reader lives in its own module.

#![allow(dead_code)]

use std::fs::File;
use std::io::{BufRead, BufReader};

pub const CHINESE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games/ccpd-chinese-utf8.pgn.zst");
pub const ICCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games/ccpd-iccs.pgn.zst");

#[derive(Debug, Default)]
pub struct Game {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// 1-based line of the game's first tag, for messages.
    pub line: usize,
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// The first `limit` games of a zstd-compressed PGN file (all of them if `limit` is `None`).
pub fn read_games(path: &str, limit: Option<usize>) -> Vec<Game> {
    let file = File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let reader = BufReader::new(zstd::stream::read::Decoder::new(file).unwrap_or_else(|e| panic!("{path}: {e}")));
    parse_games(reader, path, limit)
}

/// The first `limit` games of PGN text (all of them if `limit` is `None`); `path` is for messages.
pub fn parse_games(reader: impl BufRead, path: &str, limit: Option<usize>) -> Vec<Game> {
    let mut games: Vec<Game> = Vec::new();
    let mut cur = Game::default();
    let mut in_moves = false;
    for (i, line) in reader.lines().enumerate() {
        let line = line.unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1));
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if in_moves {
                games.push(std::mem::take(&mut cur));
                in_moves = false;
                if limit.is_some_and(|l| games.len() >= l) {
                    return games;
                }
            }
            if cur.tags.is_empty() {
                cur.line = i + 1;
            }
            if let Some((name, rest)) = tag.split_once(' ') {
                let value = rest.trim_end_matches(']').trim().trim_matches('"');
                cur.tags.push((name.to_string(), value.to_string()));
            }
            continue;
        }
        for token in line.split_whitespace() {
            in_moves = true;
            if is_result(token) {
                continue;
            }
            // Move numbers: "12." (or "12.H2-E2" glued, which these files do not have).
            let token = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if token.is_empty() {
                continue;
            }
            cur.moves.push(token.to_string());
        }
    }
    if !cur.tags.is_empty() && limit.is_none_or(|l| games.len() < l) {
        games.push(cur);
    }
    games
}
