//! Legal move generation: pseudo-legal moves by bitboards, then each tested for leaving the
//! mover's king attacked (which also covers the flying-general rule, pins along files and ranks,
//! cannon screens that a move creates or removes, and horse legs that a move opens).

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::piece::{Piece, Role};
use super::position::Position;
use super::square::Square;

/// Pushes one move per target, scanning the two 64-bit halves separately (cheaper than `u128`
/// bit tricks).
#[inline(always)]
fn push_targets(list: &mut MoveList, from: Square, targets: Bitboard) {
    let (mut lo, mut hi) = (targets.0 as u64, (targets.0 >> 64) as u64);
    while lo != 0 {
        list.push(Move::new(from, Square::from_index_unchecked(lo.trailing_zeros() as usize)));
        lo &= lo - 1;
    }
    while hi != 0 {
        list.push(Move::new(from, Square::from_index_unchecked(64 + hi.trailing_zeros() as usize)));
        hi &= hi - 1;
    }
}

impl Position {
    /// Calls `f(from, targets)` for every non-king piece of the side to move with its
    /// pseudo-legal targets within `targets` (cannon quiet moves only to empty squares, cannon
    /// captures only onto enemy pieces).
    #[inline(always)]
    fn for_each_non_king(&self, targets: Bitboard, mut f: impl FnMut(Square, Bitboard)) {
        let us = self.turn();
        let them = self.by_color(!us);
        let occ = self.occupied();
        let targets = targets - self.by_color(us);
        let mine = |r: Role| self.pieces(Piece::new(us, r));
        for from in mine(Role::Rook) {
            f(from, attacks::rook_attacks(from, occ) & targets);
        }
        // Captures only (the quiescence search): a cannon's quiet moves need not be worked out.
        let quiet_wanted = (targets - them).any();
        for from in mine(Role::Cannon) {
            let quiet = if quiet_wanted { attacks::rook_attacks(from, occ) - occ } else { Bitboard::EMPTY };
            let captures = attacks::cannon_captures(from, occ) & them;
            f(from, (quiet | captures) & targets);
        }
        for from in mine(Role::Horse) {
            f(from, attacks::horse_attacks(from, occ) & targets);
        }
        for from in mine(Role::Pawn) {
            f(from, attacks::pawn_attacks(us, from) & targets);
        }
        for from in mine(Role::Elephant) {
            f(from, attacks::elephant_attacks(from, occ) & targets);
        }
        for from in mine(Role::Advisor) {
            f(from, attacks::advisor_attacks(from) & targets);
        }
    }

    /// Appends the pseudo-legal moves (moves by the rules of each piece, ignoring whether the
    /// king is left attacked) whose target is in `targets`.
    ///
    /// ```
    /// use qiku::{notation::iccs, Bitboard, MoveList, Position};
    ///
    /// // The horse on e1 shields its king from the rook on e5: it may move by its own rules only.
    /// let pos = Position::from_fen("3k5/9/9/9/4r4/9/9/9/4N4/4K4 w")?;
    /// let mut list = MoveList::new();
    /// pos.pseudo_legal_moves_to(Bitboard::from_square("d3".parse()?), &mut list);
    /// assert_eq!(list.as_slice(), [iccs::parse_move("e1d3")?]);
    /// assert!(!pos.is_legal(list[0]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pseudo_legal_moves_to(&self, targets: Bitboard, list: &mut MoveList) {
        self.for_each_non_king(targets, |from, t| push_targets(list, from, t));
        let k = self.king(self.turn());
        push_targets(list, k, attacks::king_attacks(k) & (targets - self.by_color(self.turn())));
    }

    /// Appends the legal moves whose target is in `targets`. In check, every pseudo-legal move is
    /// tested. Otherwise only a move that leaves the king's file or rank (unblocking a rook,
    /// cannon or the enemy king, or removing a cannon's screen), frees a horse leg next to the
    /// king, or lands on the king's file or rank (becoming a cannon screen) can expose the king,
    /// so a piece elsewhere needs tests only for its targets on the king's lines.
    /// `in_check` must be [`is_check`](Self::is_check).
    #[inline]
    fn legal_moves_to(&self, targets: Bitboard, in_check: bool, list: &mut MoveList) {
        debug_assert_eq!(in_check, self.is_check());
        let us = self.turn();
        let k = self.king(us);
        if in_check {
            self.pseudo_legal_moves_to(targets, list);
            let checkers = self.checkers();
            if let (Some(checker), false) = (checkers.first(), checkers.more_than_one()) {
                // One checker: a move other than the king's must take it, block it, or (for a
                // cannon) take its screen away; only such moves get the full test.
                let (reach, leave) = self.evasion_squares(k, checker);
                list.retain(|m| {
                    (m.from() == k || reach.contains(m.to()) || leave.contains(m.from()))
                        && !self.leaves_king_attacked(m)
                });
            } else {
                // Only a move that changes what attacks the king can end the check (the geometry
                // of `may_give_check`, for our own king): the rest are not legal and need no
                // test. King moves start on the king's square and are always tested.
                list.retain(|m| (near_king(k, m.from()) || near_king(k, m.to())) && !self.leaves_king_attacked(m));
            }
            return;
        }
        let lines = attacks::lines(k);
        let risky_from = lines | attacks::diagonal_neighbours(k);
        self.for_each_non_king(targets, |from, t| {
            let (safe, risky) = if risky_from.contains(from) { (Bitboard::EMPTY, t) } else { (t - lines, t & lines) };
            push_targets(list, from, safe);
            for to in risky {
                let m = Move::new(from, to);
                if !self.exposes_king(m, k) {
                    list.push(m);
                }
            }
        });
        for to in attacks::king_attacks(k) & (targets - self.by_color(us)) {
            let m = Move::new(k, to);
            if !self.leaves_king_attacked(m) {
                list.push(m);
            }
        }
    }

    /// All legal moves.
    ///
    /// ```
    /// use qiku::{notation::iccs, MoveList, Position};
    ///
    /// // The pinned horse cannot move and d0 faces the black king: f0 is the only move.
    /// let pos = Position::from_fen("3k5/9/9/9/4r4/9/9/9/4N4/4K4 w")?;
    /// let mut list = MoveList::new();
    /// pos.legal_moves(&mut list);
    /// assert_eq!(list.as_slice(), [iccs::parse_move("e0f0")?]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.legal_moves_given_check(self.is_check(), list);
    }

    /// Legal captures only (for quiescence search).
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// let mut list = MoveList::new();
    /// Position::startpos().legal_captures(&mut list);
    /// assert_eq!(list.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["b2b9", "h2h9"]);
    /// ```
    pub fn legal_captures(&self, list: &mut MoveList) {
        self.legal_captures_given_check(self.is_check(), list);
    }

    /// [`legal_moves`](Self::legal_moves) for a caller that already knows whether the side to
    /// move is in check (the search keeps it per position): `in_check` must be
    /// [`is_check`](Self::is_check), which is then not worked out again.
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// let pos = Position::startpos();
    /// let mut list = MoveList::new();
    /// pos.legal_moves_given_check(pos.is_check(), &mut list);
    /// assert_eq!(list.as_slice(), pos.moves().as_slice());
    /// ```
    #[inline]
    pub fn legal_moves_given_check(&self, in_check: bool, list: &mut MoveList) {
        list.clear();
        self.legal_moves_to(Bitboard::FULL, in_check, list);
    }

    /// [`legal_captures`](Self::legal_captures) given [`is_check`](Self::is_check), as
    /// [`legal_moves_given_check`](Self::legal_moves_given_check).
    ///
    /// ```
    /// use qiku::{notation::iccs, MoveList, Position};
    ///
    /// // The rook on d1 checks; the black rook on a1 can take it.
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/r2R5/4K4 b")?;
    /// let mut list = MoveList::new();
    /// pos.legal_captures_given_check(pos.is_check(), &mut list);
    /// assert_eq!(list.as_slice(), [iccs::parse_move("a1d1")?]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn legal_captures_given_check(&self, in_check: bool, list: &mut MoveList) {
        list.clear();
        self.legal_moves_to(self.by_color(!self.turn()), in_check, list);
    }

    /// Convenience: the legal moves as a fresh list.
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// let pos = Position::startpos();
    /// let moves = pos.moves();
    /// assert_eq!(moves.len(), 44);
    /// assert_eq!(moves.iter().filter(|&&m| pos.is_capture(m)).count(), 2); // the cannons take the horses
    /// assert!(moves.iter().all(|&m| pos.is_legal(m)));
    /// ```
    pub fn moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list
    }

    /// Is `m` a legal move here? Accepts any move value, legal or not.
    /// Only the moving piece's targets are computed (not every piece's moves to the square), so
    /// move readers and the search's checks of table and book moves stay cheap.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// assert!(pos.is_legal(iccs::parse_move("h2e2")?));
    /// assert!(!pos.is_legal(iccs::parse_move("a0a5")?)); // through its own pawn
    /// assert!(!pos.is_legal(iccs::parse_move("h9g7")?)); // black's horse, and red is to move
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_legal(&self, m: Move) -> bool {
        let Some(p) = self.piece_at(m.from()) else { return false };
        p.color == self.turn() && self.piece_targets(p, m.from()).contains(m.to()) && !self.leaves_king_attacked(m)
    }

    /// The squares `piece`, standing on `from`, can move to by its own rules, whichever side is
    /// to move: pseudo-legal targets (the king may be left attacked), never its own side's
    /// pieces; a cannon moves only to empty squares and captures only enemy pieces.
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, Role};
    ///
    /// let pos = Position::startpos();
    /// // Black's horse on h9, though red is to move: g9 and i9 are its own pieces, h8 is free.
    /// let targets = pos.piece_targets(Piece::new(Color::Black, Role::Horse), "h9".parse()?);
    /// assert_eq!(targets.map(|s| s.to_string()).collect::<Vec<_>>(), ["g7", "i7"]);
    /// // The cannon on h2: eleven quiet moves and the capture over the screen on h7.
    /// assert_eq!(pos.piece_targets(Piece::new(Color::Red, Role::Cannon), "h2".parse()?).count(), 12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn piece_targets(&self, piece: Piece, from: Square) -> Bitboard {
        let occ = self.occupied();
        let reach = match piece.role {
            Role::King => attacks::king_attacks(from),
            Role::Advisor => attacks::advisor_attacks(from),
            Role::Elephant => attacks::elephant_attacks(from, occ),
            Role::Horse => attacks::horse_attacks(from, occ),
            Role::Rook => attacks::rook_attacks(from, occ),
            Role::Cannon => {
                (attacks::rook_attacks(from, occ) - occ)
                    | (attacks::cannon_captures(from, occ) & self.by_color(!piece.color))
            }
            Role::Pawn => attacks::pawn_attacks(piece.color, from),
        };
        reach - self.by_color(piece.color)
    }

    /// Does the side to move have no legal move? In Xiangqi that loses, whether checkmate or
    /// stalemate.
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// // The rook on d5 checks the king on d9; e9 and e8 are covered by the red king on the open
    /// // e-file (the flying general), d8 by the rook: mate.
    /// let mate = Position::from_fen("3k5/9/9/9/3R5/9/9/9/9/4K4 b")?;
    /// assert!(mate.is_check() && mate.has_no_moves());
    /// assert!(!Position::startpos().has_no_moves());
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn has_no_moves(&self) -> bool {
        !self.has_legal_move()
    }

    /// Does the side to move have a legal move? The cheap form of `!moves().is_empty()`: the
    /// moves are worked out piece by piece and the answer comes with the first legal one (see
    /// [`has_legal_move_given_check`](Self::has_legal_move_given_check)).
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// assert!(Position::startpos().has_legal_move());
    /// // Stalemate: the black king on d9 is not in check, but d8 is the rook's and e9 faces the
    /// // red king on the open e-file. No legal move loses in Xiangqi, as a checkmate does.
    /// let stalemated = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b")?;
    /// assert!(!stalemated.is_check() && !stalemated.has_legal_move());
    /// assert!(stalemated.moves().is_empty());
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    #[inline]
    pub fn has_legal_move(&self) -> bool {
        self.has_legal_move_given_check(self.is_check())
    }

    /// [`has_legal_move`](Self::has_legal_move) for a caller that already knows whether the side
    /// to move is in check: `in_check` must be [`is_check`](Self::is_check). Out of check a
    /// piece away from its king's file, rank and diagonal neighbours with a target off the
    /// king's file and rank has a legal move without any test (the reasoning of
    /// [`legal_moves_given_check`](Self::legal_moves_given_check)), so in most positions the
    /// first pawn or rook answers; only targets that might expose the king, and king moves, are tested,
    /// and the search stops at the first legal one. In check the evasions are generated.
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// // The black horse on d8 and cannon on d7 screen the king on d9 from the red cannon on
    /// // d6: leaving the file would give check, the cannon cannot capture without a screen and
    /// // is hemmed in along the file, d8 is taken and e9 faces the red king. Stalemate, with
    /// // more material than the side that stalemated.
    /// let pos = Position::from_fen("3k5/3n5/3c5/3C5/9/9/9/9/9/4K4 b")?;
    /// assert!(!pos.is_check());
    /// assert!(!pos.has_legal_move_given_check(false));
    /// // Red, to move in the same position, has moves.
    /// let red = Position::from_fen("3k5/3n5/3c5/3C5/9/9/9/9/9/4K4 w")?;
    /// assert!(red.has_legal_move_given_check(red.is_check()));
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn has_legal_move_given_check(&self, in_check: bool) -> bool {
        debug_assert_eq!(in_check, self.is_check());
        let us = self.turn();
        let k = self.king(us);
        if in_check {
            let mut list = MoveList::new();
            self.legal_moves_to(Bitboard::FULL, true, &mut list);
            return !list.is_empty();
        }
        let own = self.by_color(us);
        let them = self.by_color(!us);
        let occ = self.occupied();
        let lines = attacks::lines(k);
        let risky_from = lines | attacks::diagonal_neighbours(k);
        // Has the piece on `from` a legal move among its pseudo-legal targets `t`?
        let any_legal = |from: Square, t: Bitboard| {
            let t = t - own;
            let risky = if risky_from.contains(from) {
                t
            } else if (t - lines).any() {
                return true;
            } else {
                t & lines
            };
            any_square(risky, |to| !self.exposes_king(Move::new(from, to), k))
        };
        let mine = |r: Role| self.pieces(Piece::new(us, r));
        // Pawns first: their targets are a table lookup, and most positions have one with a
        // free step away from the king's lines.
        any_square(mine(Role::Pawn), |f| any_legal(f, attacks::pawn_attacks(us, f)))
            || any_square(mine(Role::Rook), |f| any_legal(f, attacks::rook_attacks(f, occ)))
            || any_square(mine(Role::Horse), |f| any_legal(f, attacks::horse_attacks(f, occ)))
            || any_square(mine(Role::Cannon), |f| {
                any_legal(f, (attacks::rook_attacks(f, occ) - occ) | (attacks::cannon_captures(f, occ) & them))
            })
            || any_square(mine(Role::Advisor), |f| any_legal(f, attacks::advisor_attacks(f)))
            || any_square(mine(Role::Elephant), |f| any_legal(f, attacks::elephant_attacks(f, occ)))
            || any_square(attacks::king_attacks(k) - own, |to| !self.leaves_king_attacked(Move::new(k, to)))
    }

    /// Is `m` (legal) a capture?
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// assert!(pos.is_capture(iccs::parse(&pos, "h2h9")?));
    /// assert!(!pos.is_capture(iccs::parse(&pos, "h2e2")?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_capture(&self, m: Move) -> bool {
        self.piece_at(m.to()).is_some()
    }

    /// Does the legal move `m` give check?
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// // Red's rook on e1 checks the king on d9 from the d-file or from rank 9.
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w")?;
    /// assert!(pos.gives_check(iccs::parse(&pos, "e1d1")?));
    /// assert!(!pos.gives_check(iccs::parse(&pos, "e1e2")?));
    /// let checks: Vec<String> =
    ///     pos.moves().iter().filter(|&&m| pos.gives_check(m)).map(|m| m.to_string()).collect();
    /// assert_eq!(checks.len(), 2);
    /// assert!(checks.contains(&"e1d1".to_string()) && checks.contains(&"e1e9".to_string()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gives_check(&self, m: Move) -> bool {
        let mut next = self.clone();
        next.make_move(m);
        next.is_check()
    }

    /// A quick test for the legal move `m`: `false` means it surely gives no check, `true` that
    /// it might ([`Position::gives_check`] says for sure). A check needs the moving piece to
    /// leave or reach the opposing king's file or rank (a rook's or a cannon's line, or a
    /// cannon's screen) or a square within two of the king (a horse, a horse's leg, a pawn).
    /// Searches use it to skip playing moves they would prune unless they give check.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/5K3 w")?;
    /// assert!(pos.may_give_check(iccs::parse(&pos, "e1d1")?));
    /// assert!(!pos.may_give_check(iccs::parse(&pos, "e1e2")?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn may_give_check(&self, m: Move) -> bool {
        let king = self.king(!self.turn());
        near_king(king, m.from()) || near_king(king, m.to())
    }
}

impl Position {
    /// Where a move other than the king's must go (`reach`), or come from (`leave`), to end
    /// the check that the piece on `checker` gives the king on `k`: onto the checker, onto a
    /// square between it and the king (a rook's, the king's or a cannon's line), onto a horse's
    /// leg, or off a cannon's screen. A necessary condition only: the move is still tested.
    #[inline]
    fn evasion_squares(&self, k: Square, checker: Square) -> (Bitboard, Bitboard) {
        let on = Bitboard::from_square(checker);
        match self.piece_at(checker).map(|p| p.role) {
            Some(Role::Rook | Role::King) => (on | attacks::between(checker, k), Bitboard::EMPTY),
            Some(Role::Cannon) => {
                let line = attacks::between(checker, k);
                (on | line, line & self.by_color(self.turn()))
            }
            Some(Role::Horse) => {
                // The leg of the horse's step that reaches the king.
                let leg = attacks::horse_steps(checker).iter().find(|s| s.targets.contains(k)).map(|s| s.block);
                (leg.map_or(on, |l| on.with(l)), Bitboard::EMPTY)
            }
            _ => (on, Bitboard::EMPTY),
        }
    }
}

/// Does `f` hold for some square of `squares`? (Stops at the first; `Bitboard::any` is the
/// emptiness test, which shadows `Iterator::any`.)
#[inline(always)]
fn any_square(squares: Bitboard, mut f: impl FnMut(Square) -> bool) -> bool {
    for sq in squares {
        if f(sq) {
            return true;
        }
    }
    false
}

/// Is `sq` on `king`'s file or rank, or within two files and two ranks of it? A move changes
/// whether a king is attacked only if it leaves or reaches such a square: a rook's, cannon's or
/// king's line, a cannon's screen, a horse, a horse's leg or a pawn.
#[inline]
fn near_king(king: Square, sq: Square) -> bool {
    NEAR_KING[king.index()].contains(sq)
}

/// [`near_king`] by table: per king square, every square on its file or rank or within two
/// files and two ranks of it.
static NEAR_KING: [Bitboard; 90] = {
    let mut t = [Bitboard::EMPTY; 90];
    let mut k: usize = 0;
    while k < 90 {
        let mut sq: usize = 0;
        let mut bits = 0u128;
        while sq < 90 {
            let df = (sq % 9).abs_diff(k % 9);
            let dr = (sq / 9).abs_diff(k / 9);
            if df == 0 || dr == 0 || (df <= 2 && dr <= 2) {
                bits |= 1u128 << sq;
            }
            sq += 1;
        }
        t[k] = Bitboard(bits);
        k += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_king_table_is_the_geometry() {
        let mut near = 0;
        for k in Square::all() {
            for sq in Square::all() {
                let df = sq.file().index().abs_diff(k.file().index());
                let dr = sq.rank().index().abs_diff(k.rank().index());
                let expected = df == 0 || dr == 0 || (df <= 2 && dr <= 2);
                assert_eq!(near_king(k, sq), expected, "king {k}, square {sq}");
                near += usize::from(expected);
            }
        }
        // A king in the middle of the board (e4) sees its file (10), its rank (9, itself
        // counted twice) and the 25 squares within two: 10 + 9 - 1 + 25 - 9 = 34.
        assert_eq!((0..90).filter(|&i| near_king("e4".parse().unwrap(), Square::from_index(i).unwrap())).count(), 34);
        assert!(near > 90 * 19);
    }
}
