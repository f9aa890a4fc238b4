//! Legal move generation: pseudo-legal moves by bitboards, then each tested for leaving the
//! mover's king attacked (which also covers the flying-general rule, pins along files and ranks,
//! cannon screens that a move creates or removes, and horse legs that a move opens).

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::piece::{Piece, Role};
use super::position::Position;
use super::square::Square;

#[inline(always)]
fn push_targets(list: &mut MoveList, from: Square, targets: Bitboard) {
    for to in targets {
        list.push(Move::new(from, to));
    }
}

impl Position {
    /// Appends the pseudo-legal moves (moves by the rules of each piece, ignoring whether the
    /// king is left attacked) whose target is in `targets`. Cannon quiet moves go only to empty
    /// squares, cannon captures only to enemy pieces.
    pub fn pseudo_legal_moves_to(&self, targets: Bitboard, list: &mut MoveList) {
        let us = self.turn();
        let own = self.by_color(us);
        let them = self.by_color(!us);
        let occ = self.occupied();
        let targets = targets - own;
        let mine = |r: Role| self.pieces(Piece::new(us, r));

        for from in mine(Role::Rook) {
            push_targets(list, from, attacks::rook_attacks(from, occ) & targets);
        }
        for from in mine(Role::Cannon) {
            let quiet = attacks::rook_attacks(from, occ) - occ;
            let captures = attacks::cannon_captures(from, occ) & them;
            push_targets(list, from, (quiet | captures) & targets);
        }
        for from in mine(Role::Horse) {
            push_targets(list, from, attacks::horse_attacks(from, occ) & targets);
        }
        for from in mine(Role::Pawn) {
            push_targets(list, from, attacks::pawn_attacks(us, from) & targets);
        }
        for from in mine(Role::Elephant) {
            push_targets(list, from, attacks::elephant_attacks(from, occ) & targets);
        }
        for from in mine(Role::Advisor) {
            push_targets(list, from, attacks::advisor_attacks(from) & targets);
        }
        let k = self.king(us);
        push_targets(list, k, attacks::king_attacks(k) & targets);
    }

    /// All legal moves.
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        list.clear();
        self.pseudo_legal_moves_to(Bitboard::FULL, list);
        self.retain_legal(list);
    }

    /// Legal captures only (for quiescence search).
    pub fn legal_captures(&self, list: &mut MoveList) {
        list.clear();
        self.pseudo_legal_moves_to(self.by_color(!self.turn()), list);
        self.retain_legal(list);
    }

    /// Drops the pseudo-legal moves that leave the king attacked. Out of check, only a move that
    /// leaves the king's file or rank (unblocking a rook, cannon or the enemy king, or removing a
    /// cannon's screen), frees a horse leg next to the king, lands on the king's file or rank
    /// (becoming a cannon screen), or moves the king itself can do that; the rest skip the test.
    #[inline]
    fn retain_legal(&self, list: &mut MoveList) {
        if self.is_check() {
            list.retain(|m| !self.leaves_king_attacked(m));
            return;
        }
        let k = self.king(self.turn());
        let lines = attacks::lines(k);
        let sensitive_from = lines | attacks::diagonal_neighbours(k);
        list.retain(|m| {
            if m.from() == k {
                !self.leaves_king_attacked(m)
            } else if sensitive_from.contains(m.from()) || lines.contains(m.to()) {
                !self.exposes_king(m, k)
            } else {
                true
            }
        });
    }

    /// Convenience: the legal moves as a fresh list.
    pub fn moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list
    }

    /// Is `m` a legal move here? Accepts any move value, legal or not.
    pub fn is_legal(&self, m: Move) -> bool {
        let Some(p) = self.piece_at(m.from()) else { return false };
        if p.color != self.turn() {
            return false;
        }
        let mut list = MoveList::new();
        self.pseudo_legal_moves_to(Bitboard::from_square(m.to()), &mut list);
        list.contains(m) && !self.leaves_king_attacked(m)
    }

    /// Does the side to move have no legal move? In Xiangqi that loses, whether checkmate or
    /// stalemate.
    pub fn has_no_moves(&self) -> bool {
        let mut list = MoveList::new();
        self.pseudo_legal_moves_to(Bitboard::FULL, &mut list);
        list.iter().all(|&m| self.leaves_king_attacked(m))
    }

    /// Is `m` (legal) a capture?
    pub fn is_capture(&self, m: Move) -> bool {
        self.piece_at(m.to()).is_some()
    }

    /// Does the legal move `m` give check?
    pub fn gives_check(&self, m: Move) -> bool {
        let mut next = self.clone();
        next.make_move(m);
        next.is_check()
    }
}
