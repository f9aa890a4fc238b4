//! The search's progress lines ([`Info`]): how a search makes them, and their UCI form.

use super::{RootLine, Score, SearchResult, Thread};
use crate::core::Move;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// One line of search output (UCI `info`).
///
/// ```
/// use qiku::engine::{time::Limits, Engine, Info, Score};
/// use qiku::{Game, Position};
///
/// let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?);
/// let mut lines: Vec<Info> = Vec::new();
/// Engine::new(1).think(&game, &Limits::depth(2), &mut |info| lines.push(info.clone()));
/// assert_eq!(lines.iter().map(|i| i.depth).collect::<Vec<_>>(), [1, 2]); // one per depth
/// let last = &lines[1];
/// assert_eq!((last.multipv, last.score, last.pv[0].to_string()), (1, Score::Mate(1), "a0d0".to_string()));
/// assert!(last.to_uci().starts_with("info depth 2 seldepth "));
/// # Ok::<(), qiku::PositionError>(())
/// ```
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
    ///
    /// ```
    /// use qiku::engine::{Info, Score};
    /// use std::time::Duration;
    ///
    /// let info = |nodes, ms| Info {
    ///     depth: 1, multipv: 1, seldepth: 1, score: Score::Cp(0), nodes,
    ///     time: Duration::from_millis(ms), hashfull: 0, tbhits: 0, pv: Vec::new(),
    /// };
    /// assert_eq!(info(3_000, 1_500).nps(), 2_000);
    /// assert_eq!(info(3_000, 0).nps(), 3_000_000); // under a millisecond: counted as one
    /// ```
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_millis() as u64;
        (self.nodes * 1000).checked_div(ms).unwrap_or(self.nodes * 1000)
    }

    /// The UCI form: `info depth 9 seldepth 14 multipv 1 score cp 25 nodes ... pv h2e2 h9g7`.
    ///
    /// ```
    /// use qiku::engine::{Info, Score};
    /// use std::time::Duration;
    ///
    /// let info = Info {
    ///     depth: 9,
    ///     multipv: 1,
    ///     seldepth: 14,
    ///     score: Score::Cp(25),
    ///     nodes: 50_000,
    ///     time: Duration::from_millis(100),
    ///     hashfull: 3,
    ///     tbhits: 0,
    ///     pv: Vec::new(),
    /// };
    /// assert_eq!(info.nps(), 500_000);
    /// let line = "info depth 9 seldepth 14 multipv 1 score cp 25 nodes 50000 nps 500000 hashfull 3 tbhits 0 time 100";
    /// assert_eq!(info.to_uci(), line);
    /// ```
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

impl Thread<'_> {
    /// The progress line of this search at `depth` (line `multipv`): its root score and line,
    /// the nodes and time of the whole search so far.
    pub(super) fn info(&self, depth: u32, multipv: u32) -> Info {
        let nodes = self.total_nodes();
        Info {
            depth,
            multipv,
            seldepth: self.seldepth as u32,
            score: Score::from_value(self.root_score),
            nodes,
            time: self.elapsed(),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self.shared.tbhits.load(Ordering::Relaxed),
            pv: self.root_pv.clone(),
        }
    }

    /// Reports the iteration of `result.depth`: with MultiPV its `lines` (best first; the first
    /// `multi_pv` of them, when a `Skill Level` searched more), else `result`'s line; the nodes
    /// and time are the whole search's so far.
    pub(super) fn report(
        &self,
        result: &SearchResult,
        lines: &[RootLine],
        seldepth: u32,
        on_info: &mut dyn FnMut(&Info),
    ) {
        let mut show = |multipv: usize, depth: u32, score: Score, pv: &[Move]| {
            let mut info = self.info(depth, multipv as u32);
            info.seldepth = seldepth;
            info.score = score;
            info.pv = pv.to_vec();
            on_info(&info);
        };
        if lines.is_empty() {
            show(1, result.depth, result.score, &result.pv);
        }
        // Each line at the depth it was searched to: after a stop, the lines the last iteration
        // did not reach are the previous depth's.
        for (k, line) in lines.iter().take(self.options.multi_pv.max(1)).enumerate() {
            show(k + 1, line.depth, Score::from_value(line.score), &line.pv);
        }
    }
}
