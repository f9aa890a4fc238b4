//! A paged solve's checkpoints as the solver sees them: what it saves at a level boundary, what
//! identifies its solve, and the check of a loaded checkpoint's arrays against its state (the
//! state itself is checked by [`checkpoint::decode`]).

use super::{code8, CaptureTarget, Chunks, FarLevels, Limits, Solver, Waiting, CHUNK_WORDS, FAR};
use crate::tablebase::checkpoint::{self, Checkpoints, Refused, Saved};
use crate::tablebase::error::TbError;
use crate::tablebase::index::Layout;
use crate::util::checksum::{fold_checksum, FNV_OFFSET};
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

impl Solver<'_> {
    /// A loaded checkpoint's arrays against its state `s`: frontier bits only in the chunks it
    /// flags, within the table and below the far levels, each on an entry settled at the current
    /// level; every entry of the far lists holding the far marker. The array that disagrees, and
    /// how.
    pub(super) fn check_arrays(&self, chunks: &Chunks, s: &Saved) -> Result<(), (&'static str, Refused)> {
        let n = self.val.len();
        let level = s.level as u16;
        let bits = |e: Refused| ("bits", e);
        let stray = (0..chunks.bits_cur.len()).into_par_iter().find_first(|&w| {
            let word = chunks.bits_cur[w].load(Relaxed);
            if word == 0 {
                return false;
            }
            let flagged = s.cur.get(w / CHUNK_WORDS).is_some_and(|&f| f != 0);
            // Bits past the end of the table (the last word's top bits).
            let past = w * 64 + 64 > n && word >> (n - w * 64) != 0;
            past || !flagged || level >= self.limits.far_level
        });
        if let Some(w) = stray {
            let word = chunks.bits_cur[w].load(Relaxed);
            return Err(bits(Refused::StrayFrontier { entry: (w * 64) as u64 + u64::from(word.trailing_zeros()) }));
        }
        if level < self.limits.far_level {
            let want = code8(level);
            let wrong = (0..chunks.bits_cur.len()).into_par_iter().find_map_first(|w| {
                let mut word = chunks.bits_cur[w].load(Relaxed);
                while word != 0 {
                    let p = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    if self.val[p].load(Relaxed) != want {
                        return Some(p);
                    }
                }
                None
            });
            if let Some(p) = wrong {
                return Err(("values", Refused::FrontierValue { entry: p as u64 }));
            }
        }
        let far = s.far_levels.iter().flat_map(|(_, l)| l).chain(&s.far_frontier);
        for &q in far {
            // Below the table's entries: the state was checked.
            if self.val[q as usize].load(Relaxed) != FAR {
                return Err(("values", Refused::FarValue { entry: q }));
            }
        }
        Ok(())
    }

    /// Saves a checkpoint of a paged solve at the start of `level` (see [`Checkpoints`]): the values
    /// file, the current frontier's bits (the next frontier is empty then) and the small state.
    pub(super) fn save_checkpoint(
        c: &mut Checkpoints,
        values: &std::fs::File,
        chunks: &Chunks,
        (level, horizon): (u16, u16),
        (later, far_levels, far_frontier): (&[Waiting], &FarLevels, &[u64]),
    ) -> Result<(), TbError> {
        let Some(bits) = chunks.bits_cur.file() else { return Ok(()) };
        let saved = Saved {
            level: level.into(),
            horizon: horizon.into(),
            later: later.iter().map(|w| w.0).collect(),
            far_levels: far_levels.iter().map(|(l, v)| (u64::from(*l), v.clone())).collect(),
            far_frontier: far_frontier.to_vec(),
            cur: chunks.cur.iter().map(|f| f.load(Relaxed) as u64).collect(),
            pending: chunks.pending.iter().flat_map(|p| p.iter().map(|a| a.load(Relaxed))).collect(),
        };
        c.save(&saved, &[("values", values), ("bits", bits)])
    }

    /// What identifies a solve for its checkpoints: the material, its entries, the working bytes'
    /// limits, and every table its captures lead to (entries and a checksum of the codes).
    pub(super) fn solve_identity(layout: &Layout, captures: &[Option<CaptureTarget>], limits: Limits) -> u64 {
        let mut parts = vec![layout.entries(), limits.far_level.into(), limits.max_pending_win.into()];
        for t in captures.iter().flatten().filter_map(|c| c.table.as_ref()) {
            let sums: Vec<u64> = t
                .values
                .par_chunks(1 << 16)
                .map(|c| c.iter().fold(FNV_OFFSET, |h, &v| fold_checksum(h, u64::from(v))))
                .collect();
            parts.push(t.values.len() as u64);
            parts.push(sums.into_iter().fold(FNV_OFFSET, fold_checksum));
        }
        checkpoint::identity(&layout.material.to_string(), &parts)
    }
}
