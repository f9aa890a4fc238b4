//! Iterative deepening at the root: aspiration windows around the previous iteration's score,
//! the other lines of a MultiPV search, and when to stop deepening (the time budget, the best
//! move's stability, a proven result).

use super::{skill, Info, RootLine, SearchResult, Thread, INF, MAX_PLY};
use crate::core::Move;
use crate::engine::eval::{Value, MATE, MATE_BOUND};
use crate::engine::Score;
use std::sync::atomic::Ordering;

impl Thread<'_> {
    /// Iterative deepening with aspiration windows.
    pub(super) fn iterate(&mut self, on_info: &mut dyn FnMut(&Info)) -> SearchResult {
        let mut root_moves = self.pos.moves();
        if !self.limits.searchmoves.is_empty() {
            let allowed = &self.limits.searchmoves;
            let before = root_moves.clone();
            root_moves.retain(|m| allowed.contains(&m));
            if root_moves.is_empty() {
                // None of them is legal: search everything rather than play nothing.
                root_moves = before;
            }
        }
        self.root_filter = (root_moves.len() < self.pos.moves().len()).then(|| root_moves.clone());
        self.root_moves = root_moves.len();
        let mut result = SearchResult {
            best: root_moves.first().copied(),
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
        if root_moves.is_empty() {
            result.score = Score::Mate(0);
            return result;
        }
        let mut max_depth = self.limits.depth.map_or(MAX_PLY as i32 - 8, |d| (d as i32).clamp(1, MAX_PLY as i32 - 8));
        let level = self.options.skill_level;
        let weakened = skill::weakens(level);
        if weakened {
            max_depth = max_depth.min(skill::depth_limit(level));
        }
        let root_key = self.pos.key();
        let mut last_best: Option<Move> = None;
        let mut stable = 0;
        let mut depth = 1;
        // Helpers start one ply deeper on odd ids, to spread the threads over depths.
        if self.id % 2 == 1 {
            depth = 2;
        }
        // MultiPV: the main thread searches this many lines; the previous depth's, best first
        // (empty with one line wanted, so that the line reported is the result's). Below full
        // strength at least `SKILL_LINES`, to choose among.
        let asked = if weakened { self.options.multi_pv.max(skill::SKILL_LINES) } else { self.options.multi_pv };
        let wanted = if self.id == 0 { asked.clamp(1, root_moves.len()) } else { 1 };
        let mut lines: Vec<RootLine> = Vec::new();
        // The depth `lines` were searched to (the result's may be an unfinished iteration's).
        let mut lines_depth = 0;
        // The deepest ply of the last finished iteration, for reporting it again.
        let mut finished_seldepth = 0;
        while depth <= max_depth {
            self.root_depth = depth;
            self.seldepth = 0;
            let prev = self.root_score;
            self.aspiration(depth, prev);
            if self.stopped && depth > 1 && self.root_best == last_best {
                // The unfinished iteration kept the best move: report the last finished one
                // again with the nodes and time spent in all (a GUI shows the final count).
                if self.id == 0 {
                    self.report(&result, &lines, finished_seldepth, on_info);
                }
                break;
            }
            result.best = self.root_best.or(result.best);
            result.pv = self.root_pv.clone();
            result.ponder = self.root_pv.get(1).copied();
            result.score = Score::from_value(self.root_score);
            result.depth = depth as u32;
            if let (true, true, Some(best)) = (wanted > 1, self.stopped, self.root_best) {
                // Stopped in this depth's first line with a new best move: it leads, at this
                // depth, and the last depth's other lines follow at theirs.
                let first = RootLine { mv: best, score: self.root_score, pv: result.pv.clone(), depth: depth as u32 };
                let rest = lines.iter().filter(|l| l.mv != best).take(wanted - 1).cloned();
                lines = std::iter::once(first).chain(rest).collect();
            }
            if wanted > 1 && !self.stopped {
                lines = self.other_lines(depth, &lines, wanted);
                lines_depth = depth as u32;
                // A later line may have scored higher than the first: the best is the first of the
                // sorted lines.
                result.best = self.root_best.or(result.best);
                result.pv = self.root_pv.clone();
                result.ponder = self.root_pv.get(1).copied();
                result.score = Score::from_value(self.root_score);
            }
            if self.id == 0 {
                self.report(&result, &lines, self.seldepth as u32, on_info);
            }
            finished_seldepth = self.seldepth as u32;
            if self.stopped {
                break;
            }
            if self.root_best == last_best {
                stable += 1;
            } else {
                stable = 0;
            }
            last_best = self.root_best;
            if self.id == 0 && self.iteration_limit_reached(depth, stable, &lines) {
                if self.limits.nodes.is_some() && self.options.threads > 1 {
                    // The helpers searched on while the iteration was reported: report it again
                    // with the whole search's nodes, the count a GUI shows last.
                    self.report(&result, &lines, finished_seldepth, on_info);
                }
                break;
            }
            depth += 1;
        }
        if self.id == 0 && weakened && lines.len() > 1 {
            self.play_weaker(&mut result, &lines, lines_depth, root_key, finished_seldepth, on_info);
        }
        result.nodes = if self.id == 0 { self.total_nodes() } else { self.nodes };
        result
    }

    /// One search of the root at `depth` with aspiration windows around `prev`, widened until
    /// the value falls inside (or the search is stopped).
    pub(super) fn aspiration(&mut self, depth: i32, prev: Value) {
        let mut delta: Value = 30;
        let (mut alpha, mut beta) =
            if depth >= 4 && prev.abs() < MATE_BOUND { (prev - delta, prev + delta) } else { (-INF, INF) };
        loop {
            let v = self.negamax(alpha, beta, depth, 0, true, false);
            if self.stopped {
                break;
            }
            if v <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-INF);
            } else if v >= beta {
                beta = (v + delta).min(INF);
            } else {
                break;
            }
            delta += delta;
            if delta > 1000 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// MultiPV: after the best line of `depth` is found, searches the next `wanted - 1` lines,
    /// each with the root moves of the lines before it excluded (as Stockfish does), starting
    /// from `previous` (the last depth's lines). Returns the lines sorted by score, best first,
    /// and leaves the best of them as the root's best. A line the search was stopped in keeps
    /// its previous depth's move and score.
    pub(super) fn other_lines(&mut self, depth: i32, previous: &[RootLine], wanted: usize) -> Vec<RootLine> {
        let Some(first) = self.root_best else { return Vec::new() };
        let at = depth as u32;
        let mut lines = vec![RootLine { mv: first, score: self.root_score, pv: self.root_pv.clone(), depth: at }];
        self.root_excluded.clear();
        self.root_excluded.push(first);
        while lines.len() < wanted {
            let start = previous.iter().find(|l| !self.root_excluded.contains(&l.mv));
            self.root_best = start.map(|l| l.mv);
            self.root_score = start.map_or(-INF, |l| l.score);
            self.root_pv.clear();
            self.aspiration(depth, self.root_score);
            let Some(mv) = self.root_best.filter(|m| !self.stopped && !self.root_excluded.contains(m)) else { break };
            lines.push(RootLine { mv, score: self.root_score, pv: self.root_pv.clone(), depth: at });
            self.root_excluded.push(mv);
        }
        self.root_excluded.clear();
        lines.sort_by_key(|l| std::cmp::Reverse(l.score));
        for old in previous {
            if lines.len() < wanted && !lines.iter().any(|l| l.mv == old.mv) {
                lines.push(old.clone());
            }
        }
        self.root_best = Some(lines[0].mv);
        self.root_score = lines[0].score;
        self.root_pv = lines[0].pv.clone();
        lines
    }

    /// Should the main thread stop after this iteration (of `depth`, its MultiPV `lines` empty
    /// with one line wanted)?
    pub(super) fn iteration_limit_reached(&self, depth: i32, stable: u32, lines: &[RootLine]) -> bool {
        if let Some(mate) = self.limits.mate {
            if self.root_score >= MATE_BOUND && (MATE - self.root_score + 1) / 2 <= mate as Value {
                return true;
            }
        }
        if self.limits.infinite || self.shared.pondering.load(Ordering::Relaxed) {
            return false;
        }
        if self.limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
            return true;
        }
        // A settled mate ends every search that ends on its own, a fixed depth or movetime too:
        // deeper iterations could only confirm it.
        let scores: Vec<Value> =
            if lines.is_empty() { vec![self.root_score] } else { lines.iter().map(|l| l.score).collect() };
        if mate_settled(depth, &scores) {
            return true;
        }
        // A fixed movetime is used in full (the hard limit ends the last iteration).
        if self.limits.movetime.is_some() {
            return false;
        }
        let Some(soft) = self.budget.soft else { return false };
        // A forced move or a proven result on a clock: no need to think longer.
        if self.root_moves == 1 || (self.root_score.abs() >= MATE_BOUND && depth >= 8) {
            return true;
        }
        // A stable best move needs less time; a changing one gets the whole target.
        let factor = match stable {
            0 => 1.0,
            1 => 0.7,
            _ => 0.5,
        };
        self.thinking_time().as_secs_f64() >= soft.as_secs_f64() * factor
    }
}

/// Whether an iteration of `depth` whose lines scored `scores` (the best line's; under MultiPV
/// every line's) has settled the game: every score is a mate, for either side, and `depth` is at
/// least twice the longest of them plus two plies.
///
/// A mate score is proven by the tree, whatever the depth: the side to move mates within its
/// plies against every defence the search met (no defence is pruned while every move searched so
/// far is mated), and when it is mated every one of its moves was searched and shown mated within
/// them. A deeper iteration cannot lengthen it; it can only find a shorter mate that late-move
/// reductions and pruning of quiet moves hid. By twice its length plus two the mating line has
/// been searched with as many plies again to spare, and the iterations stop: the move played
/// mates (or defends) all the same.
fn mate_settled(depth: i32, scores: &[Value]) -> bool {
    let plies = |v: Value| (v.abs() >= MATE_BOUND).then_some(MATE - v.abs());
    match scores.iter().map(|&v| plies(v)).collect::<Option<Vec<Value>>>() {
        Some(p) => p.iter().max().is_some_and(|&longest| depth >= 2 * longest + 2),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mate_settles_at_twice_its_length_plus_two() {
        // Mate in 1 (1 ply) for the side to move; mated in 3 (6 plies).
        assert!(!mate_settled(3, &[MATE - 1]));
        assert!(mate_settled(4, &[MATE - 1]));
        assert!(!mate_settled(13, &[-MATE + 6]));
        assert!(mate_settled(14, &[-MATE + 6]));
        // Not a mate (a table win without its distance, an evaluation): never settled.
        assert!(!mate_settled(100, &[MATE_BOUND - 1]));
        assert!(!mate_settled(100, &[35]));
        // MultiPV: every line a mate, the longest deciding.
        assert!(!mate_settled(8, &[MATE - 1, MATE - 3, 12]));
        assert!(!mate_settled(7, &[MATE - 1, MATE - 3]));
        assert!(mate_settled(8, &[MATE - 1, MATE - 3]));
    }
}
