//! Shared helpers of the book tests: a game generator, PGN writing, and an *independent* recount
//! of what a book should say about a position.
//!
//! The recount deliberately shares no code with the builder: it keys positions by their FEN
//! board and side to move (not by Zobrist keys), handles mirror images by actually mirroring the
//! position with `Position::mirror`, and computes outcomes from the result string itself.

#![allow(dead_code)]

use qiku::book::{Book, Counts};
use qiku::{Move, Position};
use std::collections::{BTreeMap, HashMap};

/// The crate's seeded generator (SplitMix64).
pub use qiku::Rng;

/// One game to write and to recount.
#[derive(Clone, Debug)]
pub struct TestGame {
    /// `None`: the standard start position (no FEN tag).
    pub fen: Option<String>,
    pub moves: Vec<Move>,
    /// `"1-0"`, `"0-1"`, `"1/2-1/2"`, `"*"` or `None` (no Result tag and no result token).
    pub result: Option<&'static str>,
    /// Write moves as `H2-E2` instead of `h2e2`.
    pub dashed: bool,
    pub elo: Option<(u32, u32)>,
}

impl TestGame {
    pub fn start(&self) -> Position {
        match &self.fen {
            Some(f) => Position::from_fen(f).expect("test FEN"),
            None => Position::startpos(),
        }
    }
}

/// Random games with a narrow opening tree (so that positions repeat, transpose and mirror):
/// in the first plies only the first few legal moves are chosen from; some games are played as
/// the exact mirror image of another; some start from a FEN; results vary, a few are missing.
pub fn generate_games(seed: u64, n: usize) -> Vec<TestGame> {
    let mut rng = Rng::new(seed);
    let mut games: Vec<TestGame> = Vec::with_capacity(n);
    let results = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1"];
    for i in 0..n {
        if i % 7 == 6 {
            // The mirror image of an earlier game.
            let g = &games[rng.below(games.len() as u64) as usize];
            if g.fen.is_none() {
                let mirrored = TestGame { moves: g.moves.iter().map(|m| m.mirror()).collect(), ..g.clone() };
                games.push(mirrored);
                continue;
            }
        }
        let mut fen = None;
        let mut pos = Position::startpos();
        if i % 11 == 10 {
            // Start from a position a few random plies in, given by FEN.
            for _ in 0..4 {
                let moves = pos.moves();
                pos.make_move(moves[rng.below(moves.len() as u64) as usize]);
            }
            fen = Some(pos.fen());
        }
        let len = 10 + (rng.below(60) as usize);
        let mut moves = Vec::new();
        for ply in 0..len {
            let mut legal: Vec<Move> = pos.moves().to_vec();
            if legal.is_empty() {
                break;
            }
            legal.sort_by_key(|m| m.to_u16());
            let width = if ply < 6 { 3.min(legal.len()) } else { legal.len() };
            let m = legal[rng.below(width as u64) as usize];
            pos.make_move(m);
            moves.push(m);
        }
        let result = match i % 23 {
            5 => None,
            9 => Some("*"),
            _ => Some(results[rng.below(results.len() as u64) as usize]),
        };
        let elo = (i % 3 != 0).then(|| (1800 + rng.below(800) as u32, 1800 + rng.below(800) as u32));
        games.push(TestGame { fen, moves, result, dashed: i % 2 == 0, elo });
    }
    games
}

/// PGN text of `games`.
pub fn write_pgn(games: &[TestGame]) -> String {
    let mut s = String::new();
    for (i, g) in games.iter().enumerate() {
        s.push_str(&format!("[Event \"test {i}\"]\n"));
        if let Some(r) = g.result {
            s.push_str(&format!("[Result \"{r}\"]\n"));
        }
        if let Some(f) = &g.fen {
            s.push_str(&format!("[FEN \"{f}\"]\n"));
        }
        if let Some((r, b)) = g.elo {
            s.push_str(&format!("[RedElo \"{r}\"]\n[BlackElo \"{b}\"]\n"));
        }
        if i % 4 == 0 {
            s.push_str("[Format \"ICCS\"]\n");
        }
        s.push('\n');
        let start = g.start();
        let black_first = start.turn() == qiku::Color::Black;
        for (k, m) in g.moves.iter().enumerate() {
            let ply = k + usize::from(black_first);
            if ply % 2 == 0 {
                s.push_str(&format!("{}. ", ply / 2 + 1));
            } else if k == 0 {
                s.push_str(&format!("{}... ", ply / 2 + 1));
            }
            let text = if g.dashed { qiku::notation::iccs::format_dashed(*m) } else { m.to_string() };
            s.push_str(&text);
            s.push(if k % 10 == 9 { '\n' } else { ' ' });
            if k == 3 && i % 5 == 0 {
                s.push_str("{a comment (with a variation-looking text)} (1... h9g7 2. h0g2) ");
            }
        }
        if let Some(r) = g.result {
            s.push_str(r);
        }
        s.push_str("\n\n");
    }
    s
}

/// Board and side to move of a FEN (the move counters do not identify a position).
pub fn fen_key(pos: &Position) -> String {
    pos.fen().split_whitespace().take(2).collect::<Vec<_>>().join(" ")
}

/// Counts by (position, move) as played, with no mirroring: [wins, draws, losses, unknown] for
/// the side to move.
#[derive(Default)]
pub struct Recount {
    pub map: HashMap<(String, u16), [u64; 4]>,
}

impl Recount {
    /// Adds a game: the first `max_ply` moves, with `result` as written in the PGN.
    pub fn add_game(&mut self, start: &Position, moves: &[Move], result: Option<&str>, max_ply: usize) {
        let mut pos = start.clone();
        for (ply, &m) in moves.iter().enumerate() {
            if ply >= max_ply {
                break;
            }
            let red = pos.turn() == qiku::Color::Red;
            let slot = match (result, red) {
                (Some("1-0"), true) | (Some("0-1"), false) => 0,
                (Some("1/2-1/2"), _) => 1,
                (Some("1-0"), false) | (Some("0-1"), true) => 2,
                _ => 3,
            };
            self.map.entry((fen_key(&pos), m.to_u16())).or_default()[slot] += 1;
            pos = pos.play_unchecked(m);
        }
    }

    /// What a book should report for `pos`: moves (as legal in `pos`) with counts, combining
    /// the position with its mirror image; in a symmetric position a move and its mirror are
    /// one choice, reported as the one played on red's right (from-file f-i, or for a move from
    /// the e-file, to-file f-i).
    pub fn expected(&self, pos: &Position) -> BTreeMap<u16, [u64; 4]> {
        let here = fen_key(pos);
        let mirror = pos.mirror();
        let there = fen_key(&mirror);
        let mut out: BTreeMap<u16, [u64; 4]> = BTreeMap::new();
        let mut add = |m: Move, c: &[u64; 4]| {
            let e = out.entry(m.to_u16()).or_default();
            for i in 0..4 {
                e[i] += c[i];
            }
        };
        for m in pos.moves().iter() {
            if let Some(c) = self.map.get(&(here.clone(), m.to_u16())) {
                if here == there {
                    let text = m.to_string().into_bytes();
                    let right = if text[0] != b'e' { text[0] > b'e' } else { text[2] >= b'e' };
                    let r = if right { *m } else { m.mirror() };
                    add(r, c);
                } else {
                    add(*m, c);
                }
            }
            if here != there {
                if let Some(c) = self.map.get(&(there.clone(), m.mirror().to_u16())) {
                    add(*m, c);
                }
            }
        }
        out
    }
}

/// A book's answer for `pos` in the same shape as [`Recount::expected`].
pub fn probed(book: &Book, pos: &Position) -> BTreeMap<u16, [u64; 4]> {
    let moves = book.probe(pos).expect("book readable");
    // Sorted by games, most first.
    assert!(moves.windows(2).all(|w| w[0].counts.games() >= w[1].counts.games()));
    moves
        .iter()
        .map(|m| {
            let c: Counts = m.counts;
            (m.mv.to_u16(), [c.wins.into(), c.draws.into(), c.losses.into(), c.unknown.into()])
        })
        .collect()
}

/// Every position reached in the first `max_ply` plies of `games`, plus their mirror images.
pub fn positions_of(games: &[TestGame], max_ply: usize) -> Vec<Position> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for g in games {
        let mut pos = g.start();
        for (ply, &m) in g.moves.iter().enumerate() {
            if ply > max_ply {
                break;
            }
            for p in [pos.clone(), pos.mirror()] {
                if seen.insert(fen_key(&p)) {
                    out.push(p);
                }
            }
            pos = pos.play_unchecked(m);
        }
    }
    out
}
