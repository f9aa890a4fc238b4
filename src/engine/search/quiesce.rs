//! The quiescence search at the leaves of the main search: captures only (all evasions when in
//! check), standing pat on the corrected static evaluation, with delta pruning and without
//! captures of defended pieces by dearer ones. A side to move without a legal move has lost
//! (checkmate or stalemate), never stands pat.

use super::{score_from_tt, score_to_tt, Thread, INF, MAX_PLY, NO_CAPTURE_DRAW_PLIES};
use crate::core::MoveList;
use crate::engine::eval::{Value, MATE};
use crate::engine::ordering::{is_bad_capture, CorrectionKeys, MovePicker};
use crate::engine::tt::{Bound, Entry};

impl Thread<'_> {
    /// Quiescence search: captures only (all evasions when in check), standing pat on the static
    /// evaluation otherwise.
    pub(super) fn quiesce(&mut self, mut alpha: Value, beta: Value, ply: usize) -> Value {
        self.nodes += 1;
        self.pv_len[ply] = ply;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        // The 120-ply rule, as in the main search: a leaf reached by the 120th move without a
        // capture is a draw unless its side to move has lost already. (At depth 1 every root
        // move leads here: the search said cp 1241 at clock 119, where every move draws.)
        if self.pos.halfmoves() >= NO_CAPTURE_DRAW_PLIES {
            return if self.pos.has_no_moves() { -MATE + ply as Value } else { 0 };
        }
        let in_check = self.line.in_check();
        if ply >= MAX_PLY - 2 {
            return if in_check { 0 } else { self.eval() };
        }
        let key = self.pos.key();
        let entry = self.shared.tt.probe(key);
        if let Some(e) = entry {
            let v = score_from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => v >= beta,
                Bound::Upper => v <= alpha,
            };
            if cut && beta - alpha == 1 {
                return v;
            }
        }
        let mut list = MoveList::new();
        let mut best;
        let stand_pat;
        let mut raw_eval = 0;
        if in_check {
            self.pos.legal_moves_given_check(true, &mut list);
            if list.is_empty() {
                return -MATE + ply as Value;
            }
            best = -INF;
            stand_pat = -INF;
        } else {
            raw_eval = entry.map_or_else(|| self.eval(), |e| e.eval);
            stand_pat = self.corrected(raw_eval, CorrectionKeys::new(&self.pos));
            // Standing pat assumes a move to stand on: without one the side to move has lost
            // (stalemate). Asked only where the answer matters: before standing pat at beta, and
            // when no capture is legal (a legal capture is a legal move).
            if stand_pat >= beta {
                return if self.pos.has_legal_move_given_check(false) { stand_pat } else { -MATE + ply as Value };
            }
            self.pos.legal_captures_given_check(false, &mut list);
            if list.is_empty() && !self.pos.has_legal_move_given_check(false) {
                return -MATE + ply as Value;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let picker = if in_check {
            MovePicker::new(&self.pos, list, entry.and_then(|e| e.mv), [None; 2], &self.history, self.line.cont_keys())
        } else {
            MovePicker::captures(&self.pos, list)
        };
        let mut best_move = None;
        for m in picker {
            if !in_check {
                let victim = self.endgame_value(m.to());
                // Delta pruning: even winning the piece outright cannot reach alpha.
                if stand_pat + victim + 150 < alpha {
                    continue;
                }
                if is_bad_capture(&self.pos, m) {
                    continue;
                }
            }
            let (undo, _) = self.make(m);
            let v = -self.quiesce(-beta, -alpha, ply + 1);
            self.unmake(m, undo);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = Some(m);
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta { Bound::Lower } else { Bound::Upper };
        self.shared
            .tt
            .store(key, Entry { mv: best_move, score: score_to_tt(best, ply), eval: raw_eval, depth: 0, bound });
        best
    }
}
