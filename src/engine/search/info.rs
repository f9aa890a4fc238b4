//! The search's progress lines ([`Info`]) and their UCI form.

use super::Score;
use crate::core::Move;
use std::time::Duration;

/// One line of search output (UCI `info`).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Completed iteration depth.
    pub depth: u32,
    /// Which line this is (1 = the best; more with [`SearchOptions::multi_pv`](super::SearchOptions::multi_pv)).
    pub multipv: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Score of the principal variation.
    pub score: Score,
    /// Nodes searched so far (all threads).
    pub nodes: u64,
    /// Time since the search began.
    pub time: Duration,
    /// Permille of the table filled.
    pub hashfull: u32,
    /// Tablebase probes so far.
    pub tbhits: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_millis() as u64;
        (self.nodes * 1000).checked_div(ms).unwrap_or(self.nodes * 1000)
    }

    /// The UCI form: `info depth 9 seldepth 14 multipv 1 score cp 25 nodes ... pv h2e2 h9g7`.
    pub fn to_uci(&self) -> String {
        let mut s = format!(
            "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} tbhits {} time {}",
            self.depth,
            self.seldepth,
            self.multipv,
            self.score.to_uci(),
            self.nodes,
            self.nps(),
            self.hashfull,
            self.tbhits,
            self.time.as_millis()
        );
        if !self.pv.is_empty() {
            s.push_str(" pv");
            for m in &self.pv {
                s.push(' ');
                s.push_str(&m.to_string());
            }
        }
        s
    }
}
