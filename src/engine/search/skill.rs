//! `Skill Level`: a weaker engine on request, after Stockfish's strength handicap.
//!
//! At [`MAX_SKILL_LEVEL`] (the default) nothing changes: the search is the same, node for node.
//! Below it the main thread searches at least [`SKILL_LINES`] root lines (MultiPV), no deeper
//! than [`depth_limit`], and plays one of the lines it ends with, chosen by [`pick`]: each line's
//! score plus a push that grows with the weakness (`120 - 2 * level`) and with the line's gap to
//! the best one, plus a random push of up to about a pawn (less when the lines are closer than
//! that). A weak level thus often plays a slightly worse move, now and then a clearly worse one,
//! and still plays a mate it has seen.
//!
//! The randomness is reproducible: a SplitMix64 generator ([`Rng`]) seeded from the root
//! position's Zobrist key, its state advanced by a fixed step for each line drawn. The same
//! position searched the same way (same options, same limits, same table and history, one
//! thread) gives the same move every time.

use super::{Info, RootLine, Score, SearchResult, Thread};
use crate::engine::eval::{Value, PIECE_VALUE};
use crate::util::rng::Rng;

/// The full-strength `Skill Level` (and the option's maximum): the search exactly as without it.
pub const MAX_SKILL_LEVEL: u32 = 20;

/// The fewest root lines searched below [`MAX_SKILL_LEVEL`] (more if `MultiPV` asks for more),
/// for [`pick`] to choose among.
pub const SKILL_LINES: usize = 4;

/// Mixed into the root key before seeding, so that the draws differ from those of other
/// generators seeded with the position's key.
const SEED_TAG: u64 = 0x5348_494c_4c5f_4c56;

/// Whether `level` weakens the search (below [`MAX_SKILL_LEVEL`]).
///
/// ```
/// use qiku::engine::search::skill::{weakens, MAX_SKILL_LEVEL};
///
/// assert!(weakens(0) && weakens(19));
/// assert!(!weakens(MAX_SKILL_LEVEL));
/// ```
pub fn weakens(level: u32) -> bool {
    level < MAX_SKILL_LEVEL
}

/// The deepest iteration at `level`: `1 + level` plies, as in Stockfish (depth 1 at level 0,
/// 20 at level 19).
///
/// ```
/// use qiku::engine::search::skill::depth_limit;
///
/// assert_eq!((depth_limit(0), depth_limit(10), depth_limit(19)), (1, 11, 20));
/// ```
pub fn depth_limit(level: u32) -> i32 {
    1 + level.min(MAX_SKILL_LEVEL) as i32
}

/// The index of the line played at `level` among root lines scored `scores` (best first, as the
/// MultiPV search sorts them), for the root position of Zobrist key `key`. Stockfish's rule:
/// with `weakness = 120 - 2 * level` and `delta` the gap from the best to the last line (at most
/// a pawn, 100), each line `i` counts as `score[i] + (weakness * (score[0] - score[i]) + delta *
/// r[i]) / 128`, `r[i]` drawn uniformly from `0..weakness`; the highest count wins (a tie goes to
/// the later line). Deterministic for given arguments; 0 for fewer than two lines.
///
/// ```
/// use qiku::engine::search::skill::pick;
///
/// let scores = [40, 25, 20, -300];
/// let k = pick(&scores, 0, 0x1234_5678);
/// assert!(k < scores.len());
/// assert_eq!(k, pick(&scores, 0, 0x1234_5678)); // the same inputs, the same line
/// assert_eq!(pick(&[40], 0, 7), 0);
/// // A mate is kept even at the weakest level: the gap dwarfs the random push.
/// assert_eq!(pick(&[29_990, 30, 20, 10], 0, 99), 0);
/// ```
pub fn pick(scores: &[Value], level: u32, key: u64) -> usize {
    if scores.len() < 2 {
        return 0;
    }
    let weakness = i64::from(120 - 2 * level.min(MAX_SKILL_LEVEL));
    let top = i64::from(scores[0]);
    let pawn = i64::from(PIECE_VALUE[crate::core::Role::Pawn.index()]);
    let delta = (top - i64::from(scores[scores.len() - 1])).clamp(0, pawn);
    let mut rng = Rng::new(key ^ SEED_TAG);
    let mut best = 0;
    let mut best_count = i64::MIN;
    for (i, &s) in scores.iter().enumerate() {
        let s = i64::from(s);
        let r = rng.below(weakness as u64) as i64;
        let push = (weakness * (top - s) + delta * r) / 128;
        if s + push >= best_count {
            best_count = s + push;
            best = i;
        }
    }
    best
}

impl Thread<'_> {
    /// Below full strength: makes the line [`pick`] chooses among `lines` (those of
    /// `depth`, the last finished one, best first) the result, and reports it last, as `multipv
    /// 1`, so that a GUI shows the line of the move played.
    pub(super) fn play_weaker(
        &self,
        result: &mut SearchResult,
        lines: &[RootLine],
        depth: u32,
        root_key: u64,
        seldepth: u32,
        on_info: &mut dyn FnMut(&Info),
    ) {
        let scores: Vec<Value> = lines.iter().map(|l| l.score).collect();
        let chosen = &lines[pick(&scores, self.options.skill_level, root_key)];
        result.best = Some(chosen.mv);
        result.pv = chosen.pv.clone();
        result.ponder = chosen.pv.get(1).copied();
        result.score = Score::from_value(chosen.score);
        result.depth = depth;
        let mut info = self.info(depth, 1);
        info.seldepth = seldepth;
        info.score = result.score;
        info.pv = result.pv.clone();
        on_info(&info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_depths() {
        assert!(weakens(0) && weakens(19) && !weakens(20));
        assert_eq!((depth_limit(0), depth_limit(10), depth_limit(19)), (1, 11, 20));
    }

    #[test]
    fn close_lines_are_all_played_at_level_zero_and_a_far_worse_one_never() {
        // Four moves within 15 points of each other and a fifth 3000 worse: over many roots
        // (keys) the weakest level plays each of the four sometimes and the blunder never (what
        // is left of its gap, 3000 * 8 / 128, is beyond the random push of at most 93).
        let scores = [30, 25, 20, 15, -2970];
        let mut seen = [0u32; 5];
        for key in 0..2000u64 {
            seen[pick(&scores, 0, key.wrapping_mul(0x9e37_79b9_7f4a_7c15))] += 1;
        }
        assert!(seen[..4].iter().all(|&n| n > 100), "{seen:?}");
        assert_eq!(seen[4], 0, "{seen:?}");
    }

    #[test]
    fn stronger_levels_keep_the_best_line_more_often() {
        let scores = [50, 10, -20, -60];
        let best_kept = |level| (0..2000u64).filter(|&k| pick(&scores, level, k * 7919) == 0).count();
        let (weak, strong) = (best_kept(0), best_kept(19));
        assert!(strong > weak, "level 19 kept the best line {strong} times, level 0 {weak}");
    }
}
