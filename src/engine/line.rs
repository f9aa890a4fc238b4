//! The line the search is on: for every position since the game's last capture, then for every
//! position of the current search line, its key, whether the side to move was in check, the
//! plies since the last capture or null move, the move into it and that move's
//! continuation-history row.
//!
//! The search pushes a position after each move it makes and pops it when it takes the move
//! back. From this record the line judges a repetition inside the tree by the rules core's
//! verdict (`docs/RULES.md`): the side that checked on every move of the cycle loses; failing a
//! perpetual check, the side that chased one piece on every move loses; otherwise a draw. Cycles
//! that began before the root are judged too, because the game's positions are on the line, but
//! only where the game has already met the position twice: a position met once in the game may
//! be left by either side on the next move, so reaching it again below the root ends nothing.

use super::eval::{Value, MATE};
use super::ordering::ContKey;
use crate::core::{chase, Game, Move, Position, Square, Undo};

/// The move recorded for the first position and after a null move: no real move led there.
pub(super) const NO_MOVE: Move = Move::new(Square::from_index_unchecked(0), Square::from_index_unchecked(1));

/// The positions of the game since its last capture and of the search line below the root.
pub(super) struct Line {
    /// One record per position, oldest first (one push and one pop per move searched).
    records: Vec<Record>,
}

/// What the line keeps of one position.
#[derive(Copy, Clone)]
struct Record {
    /// The position's key.
    key: u64,
    /// Plies since the last capture or null move.
    window: u32,
    /// Was the side to move in check there (did the move into it give check)?
    in_check: bool,
    /// The move into the position ([`NO_MOVE`] for the first and after a null move), for the
    /// chase rule's look at a cycle.
    mv: Move,
    /// The continuation-history row of the move into the position (`None` for the first and
    /// after a null move).
    cont: Option<ContKey>,
}

impl Line {
    /// Replays `game` from its start: the line of its positions, and the current position.
    pub(super) fn from_game(game: &Game) -> (Line, Position) {
        let mut pos = game.start().clone();
        let mut line = Line {
            records: vec![Record { key: pos.key(), window: 0, in_check: pos.is_check(), mv: NO_MOVE, cont: None }],
        };
        for m in game.moves() {
            line.play(&mut pos, m);
        }
        (line, pos)
    }

    /// Plays the move `m` (pseudo-legal) on `pos`, the line's last position, and records the
    /// position it leads to. Returns what [`Position::unmake_move`] needs and whether `m` gave
    /// check; [`Line::pop`] forgets the record.
    #[inline(always)]
    pub(super) fn play(&mut self, pos: &mut Position, m: Move) -> (Undo, bool) {
        self.play_then(pos, m, |_| {})
    }

    /// [`Line::play`], calling `made` with the new position's key as soon as the move is on the
    /// board (the search prefetches the transposition table's bucket for it there).
    #[inline]
    pub(super) fn play_then(&mut self, pos: &mut Position, m: Move, made: impl FnOnce(u64)) -> (Undo, bool) {
        let capture = pos.is_capture(m);
        let cont = pos.piece_at(m.from()).map(|p| ContKey::new(p, m));
        // Most moves cannot give check; the full test runs only for those that might.
        let may_check = pos.may_give_check(m);
        let undo = pos.make_move(m);
        made(pos.key());
        let check = may_check && pos.is_check_after(m);
        let window = if capture { 0 } else { self.records.last().map_or(0, |r| r.window) + 1 };
        self.records.push(Record { key: pos.key(), window, in_check: check, mv: m, cont });
        (undo, check)
    }

    /// Records `after`, the position a null move led to: no check, the repetition window
    /// broken, no move for the chase rule or the continuation histories.
    pub(super) fn push_null(&mut self, after: &Position) {
        self.records.push(Record { key: after.key(), window: 0, in_check: false, mv: NO_MOVE, cont: None });
    }

    /// Forgets the last position recorded.
    #[inline(always)]
    pub(super) fn pop(&mut self) {
        self.records.pop();
    }

    /// Is the side to move in check in the last position?
    #[inline]
    pub(super) fn in_check(&self) -> bool {
        self.records.last().is_some_and(|r| r.in_check)
    }

    /// The continuation-history rows of the moves one and two plies before the last position.
    #[inline]
    pub(super) fn cont_keys(&self) -> [Option<ContKey>; 2] {
        let n = self.records.len();
        [self.records[n - 1].cont, if n >= 2 { self.records[n - 2].cont } else { None }]
    }

    /// The last of the positions `from`, `from - 2`, ... (the same side to move), down to `lo`,
    /// whose key is `key`.
    #[inline]
    fn last_with_key(r: &[Record], from: usize, lo: usize, key: u64) -> Option<usize> {
        let mut j = from;
        loop {
            if j < lo {
                return None;
            }
            if r[j].key == key {
                return Some(j);
            }
            j = j.checked_sub(2)?;
        }
    }

    /// If the last position, `pos`, repeats one since the last capture, its value for the side
    /// to move `ply` plies from the root: a loss for the side that checked (failing that,
    /// chased) on every move of the cycle, a win against it, else a draw.
    pub(super) fn repetition(&self, pos: &Position, ply: usize) -> Option<Value> {
        let r = &self.records;
        let n = r.len() - 1;
        let w = r[n].window as usize;
        let lo = n.saturating_sub(w);
        let key = r[n].key;
        let j = Self::last_with_key(r, n.checked_sub(2)?, lo, key)?;
        // A position met once at or before the root, in the game itself, may be left by either side
        // on the next move: the line ends only if the game has met it twice (the third time
        // now), as Stockfish judges; a cycle inside the searched line ends it at once.
        if j <= n.saturating_sub(ply) {
            Self::last_with_key(r, j.checked_sub(2)?, lo, key)?;
        }
        // Moves of the side to move led into positions j+1, j+3, ..., n-1; the opponent's into
        // j+2, ..., n.
        let ours = (j + 1..n).step_by(2).all(|i| r[i].in_check);
        let theirs = (j + 2..=n).step_by(2).all(|i| r[i].in_check);
        let (ours, theirs) = match (ours, theirs) {
            (false, false) => {
                let chasers = self.cycle_chasers(pos, j, n);
                let us = pos.turn();
                (chasers[us.index()], chasers[(!us).index()])
            }
            checks => checks,
        };
        Some(match (ours, theirs) {
            (true, false) => -MATE + ply as Value,
            (false, true) => MATE - ply as Value,
            _ => 0,
        })
    }

    /// Which sides perpetually chase over the cycle from position `j` to the last position `n`,
    /// `pos` (the same judgement as the referee's, `core::chase`). The cycle's positions are
    /// rebuilt backwards from the last one: a cycle holds no capture, so each move is undone by
    /// moving the piece back.
    #[cold]
    fn cycle_chasers(&self, pos: &Position, j: usize, n: usize) -> [bool; 2] {
        let mut positions = Vec::with_capacity(n - j);
        let mut pos = pos.clone();
        for i in (j + 1..=n).rev() {
            let m = self.records[i].mv;
            pos.make_move(Move::new(m.to(), m.from()));
            positions.push(pos.clone());
        }
        positions.reverse();
        let moves: Vec<Move> = self.records[j + 1..=n].iter().map(|r| r.mv).collect();
        chase::perpetual_chasers(&positions, &moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    /// Plays the ICCS moves on the line as the search does, returning the final position.
    fn play(line: &mut Line, mut pos: Position, moves: &[&str]) -> Position {
        for text in moves {
            let m = iccs::parse(&pos, text).unwrap();
            line.play(&mut pos, m);
        }
        pos
    }

    #[test]
    fn perpetual_check_loses_for_the_checker() {
        // Red's rook checks the black king on d9 from a9, the king steps to d8, the rook checks
        // from a8, the king steps back, and the rook checks from a9 again.
        let start = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w").unwrap();
        let (mut line, pos) = Line::from_game(&Game::new(start));
        let pos = play(&mut line, pos, &["a0a9", "d9d8", "a9a8", "d8d9", "a8a9"]);
        // The position after the first a0a9 repeats, black to move: red checked on every one
        // of its moves of the cycle, so black wins.
        assert!(line.in_check());
        assert_eq!(line.repetition(&pos, 5), Some(MATE - 5));
        // One more move: the position after the first d9d8 repeats, red to move, and red loses.
        let pos = play(&mut line, pos, &["d9d8"]);
        assert_eq!(line.repetition(&pos, 6), Some(-MATE + 6));
        // With the last two moves taken back, the position after a9a8 does not repeat.
        line.pop();
        line.pop();
        let after_d8d9 = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 w").unwrap();
        assert_eq!(line.repetition(&after_d8d9, 4), None);
    }

    #[test]
    fn quiet_cycle_is_a_draw_and_a_null_move_breaks_the_window() {
        let start = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w").unwrap();
        let (mut line, pos) = Line::from_game(&Game::new(start));
        // Rook a0a1, king d9d8, rook back, king back, rook out again: nobody checked or chased.
        let pos = play(&mut line, pos, &["a0a1", "d9d8", "a1a0"]);
        assert_eq!(line.repetition(&pos, 3), None);
        // Back at the root: met once before the search (the root itself), so no end yet.
        let pos = play(&mut line, pos, &["d8d9"]);
        assert_eq!(line.repetition(&pos, 4), None);
        // The position after the first a0a1, below the root, repeats: a draw.
        let pos = play(&mut line, pos, &["a0a1"]);
        assert_eq!(line.repetition(&pos, 5), Some(0));
        assert!(!line.in_check());
        // A null move breaks the window: nothing after it repeats across it.
        let mut after_null = pos.clone();
        after_null.make_null_move();
        line.push_null(&after_null);
        assert_eq!(line.repetition(&after_null, 6), None);
        assert_eq!(line.cont_keys()[0], None);
    }

    /// The game `moves` from `fen`, then its line with the root at the game's end.
    fn game_line(fen: &str, moves: &[&str]) -> (Line, Position) {
        let mut game = Game::new(Position::from_fen(fen).unwrap());
        for text in moves {
            let m = iccs::parse(game.position(), text).unwrap();
            game.play(m).unwrap();
        }
        Line::from_game(&game)
    }

    #[test]
    fn a_position_met_once_before_the_root_does_not_end_the_line() {
        let fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w";
        // The game: the rook and king go out and back once; the root is the start again.
        let (mut line, pos) = game_line(fen, &["a0a1", "d9d8", "a1a0", "d8d9"]);
        // Below the root the same cycle meets the start a third time: a draw.
        let pos = play(&mut line, pos, &["a0a1", "d9d8", "a1a0", "d8d9"]);
        assert_eq!(line.repetition(&pos, 4), Some(0));
        // Met only once in the game: the root's first moves repeat positions of the game once
        // more (the second time), which ends nothing; the second cycle below the root does.
        let (mut line, pos) = game_line(fen, &["a0a1", "d9d8"]);
        let pos = play(&mut line, pos, &["a1a0", "d8d9", "a0a1"]);
        assert_eq!(line.repetition(&pos, 3), None, "the position after a0a1 is met a second time");
        let pos = play(&mut line, pos, &["d9d8"]);
        assert_eq!(line.repetition(&pos, 4), None, "the root's position is met a second time");
        let pos = play(&mut line, pos, &["a1a0", "d8d9", "a0a1", "d9d8"]);
        assert_eq!(line.repetition(&pos, 8), Some(0), "a cycle below the root");
    }
}
