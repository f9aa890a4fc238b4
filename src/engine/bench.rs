//! `qiku bench`: a fixed set of positions searched to a fixed depth with one thread and a cleared
//! table before each, so the total node count is a signature of the search's behaviour (it changes
//! exactly when the search or the evaluation does) and nodes per second measure speed.

use super::ordering::History;
use super::search::{self, SearchOptions, Shared};
use super::time::Limits;
use crate::core::{Game, Position};
use std::time::{Duration, Instant};

/// Start position, middlegames from master games, and endgames.
pub const POSITIONS: &[&str] = &["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"];

/// Default depth of `qiku bench`.
pub const DEFAULT_DEPTH: u32 = 10;

/// One position's figures.
#[derive(Clone, Debug)]
pub struct BenchLine {
    pub fen: String,
    pub nodes: u64,
    pub time: Duration,
    pub best: String,
}

/// Searches every position of `fens` to `depth` (one thread, `hash_mib` table cleared before each
/// position, fresh history) and returns the figures per position.
pub fn run(
    fens: &[&str],
    depth: u32,
    hash_mib: usize,
    mut progress: impl FnMut(&BenchLine),
) -> Result<Vec<BenchLine>, String> {
    let shared = Shared::new(hash_mib);
    let options = SearchOptions::default();
    let mut lines = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(fen).map_err(|e| format!("bench position {fen:?}: {e}"))?;
        shared.tt.clear();
        shared.stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut history = History::default();
        let game = Game::new(pos);
        let t = Instant::now();
        let r = search::search(&game, &Limits::depth(depth), &options, &shared, &mut history, &mut |_| {});
        let line = BenchLine {
            fen: fen.to_string(),
            nodes: r.nodes,
            time: t.elapsed(),
            best: r.best.map_or("(none)".into(), |m| m.to_string()),
        };
        progress(&line);
        lines.push(line);
    }
    Ok(lines)
}
