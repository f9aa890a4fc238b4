//! A compact board for the generator: squares by slot (as the index scheme lays them out) plus
//! occupancy bitboards, with forward moves (legal ones only) and un-moves (the moves that could
//! have led here, without captures). Built on the core's attack tables; the generator calls these
//! billions of times, so they avoid the full [`Position`](crate::core::Position).

use super::index::{Layout, Squares, MAX_PIECES};
use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Role, Square};

#[inline(always)]
fn sqr(s: u8) -> Square {
    Square::from_index_unchecked(s as usize)
}

/// Pieces on squares, by slot, with occupancy.
#[derive(Clone)]
pub struct Board<'a> {
    pub pieces: &'a [Piece],
    pub sq: Squares,
    pub occ: Bitboard,
    pub by_color: [Bitboard; 2],
}

/// A legal forward move found by [`Board::for_each_move`].
#[derive(Copy, Clone, Debug)]
pub struct Found {
    pub slot: usize,
    pub to: u8,
    /// The slot of the captured piece, if any.
    pub captured: Option<usize>,
}

impl<'a> Board<'a> {
    /// A board from squares; `None` if two pieces share a square.
    #[inline]
    pub fn new(layout: &'a Layout, sq: &Squares) -> Option<Board<'a>> {
        let n = layout.pieces.len();
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut occ = Bitboard::EMPTY;
        for slot in 0..n {
            let b = Bitboard::from_square(sqr(sq[slot]));
            if (occ & b).any() {
                return None;
            }
            occ |= b;
            by_color[layout.pieces[slot].color.index()] |= b;
        }
        Some(Board { pieces: &layout.pieces, sq: *sq, occ, by_color })
    }

    #[inline(always)]
    pub fn king(&self, color: Color) -> u8 {
        self.sq[color.index()]
    }

    /// Is the king of `color`, standing on `k`, attacked by the other side given occupancy `occ`,
    /// ignoring the piece in slot `dead` (just captured)? The facing enemy king counts.
    #[inline]
    pub fn attacked(&self, k: u8, color: Color, occ: Bitboard, dead: usize) -> bool {
        let ks = sqr(k);
        let by = !color;
        let rook_lines = attacks::rook_attacks(ks, occ);
        for slot in 0..self.pieces.len() {
            let p = self.pieces[slot];
            if p.color != by || slot == dead {
                continue;
            }
            let s = sqr(self.sq[slot]);
            let hit = match p.role {
                Role::King | Role::Rook => rook_lines.contains(s),
                Role::Cannon => attacks::cannon_captures(ks, occ).contains(s),
                Role::Horse => attacks::horse_attackers(ks, occ).contains(s),
                Role::Pawn => attacks::pawn_attackers(by, ks).contains(s),
                Role::Advisor | Role::Elephant => false,
            };
            if hit {
                return true;
            }
        }
        false
    }

    /// Is the king of `color` in check on this board?
    #[inline]
    pub fn in_check(&self, color: Color) -> bool {
        self.attacked(self.king(color), color, self.occ, usize::MAX)
    }

    /// Legal for `turn` to move: no overlap (checked by [`new`](Self::new)) and the side not to
    /// move not in check (which includes kings facing on an open file).
    #[inline]
    pub fn is_legal(&self, turn: Color) -> bool {
        !self.in_check(!turn)
    }

    /// The piece's move targets, own pieces excluded.
    #[inline]
    fn targets(&self, p: Piece, from: u8) -> Bitboard {
        let f = sqr(from);
        let own = self.by_color[p.color.index()];
        let occ = self.occ;
        match p.role {
            Role::King => attacks::king_attacks(f) - own,
            Role::Advisor => attacks::advisor_attacks(f) - own,
            Role::Elephant => attacks::elephant_attacks(f, occ) - own,
            Role::Horse => attacks::horse_attacks(f, occ) - own,
            Role::Rook => attacks::rook_attacks(f, occ) - own,
            Role::Cannon => {
                (attacks::rook_attacks(f, occ) - occ)
                    | (attacks::cannon_captures(f, occ) & self.by_color[(!p.color).index()])
            }
            Role::Pawn => attacks::pawn_attacks(p.color, f) - own,
        }
    }

    #[inline]
    fn slot_at(&self, s: u8) -> Option<usize> {
        (0..self.pieces.len()).find(|&i| self.sq[i] == s)
    }

    /// Does the move of `slot` to `to` leave `turn`'s king attacked?
    #[inline]
    fn leaves_check(&self, turn: Color, slot: usize, to: u8, captured: Option<usize>) -> bool {
        let from = self.sq[slot];
        let occ = (self.occ - Bitboard::from_square(sqr(from))) | Bitboard::from_square(sqr(to));
        let k = if slot == turn.index() { to } else { self.king(turn) };
        self.attacked(k, turn, occ, captured.unwrap_or(usize::MAX))
    }

    /// Calls `f` for every legal move of `turn` that captures, and returns the number of legal
    /// moves that do not. Only moves that can expose the king (king moves, moves from the king's
    /// lines or horse-leg squares, moves onto the king's lines) are tested when not in check.
    #[inline]
    pub fn for_each_move(&self, turn: Color, mut f: impl FnMut(Found)) -> u32 {
        let k = self.king(turn);
        let ks = sqr(k);
        let in_check = self.in_check(turn);
        let lines = attacks::lines(ks);
        let sensitive = lines | attacks::diagonal_neighbours(ks);
        let them = self.by_color[(!turn).index()];
        let mut quiet = 0;
        for slot in 0..self.pieces.len() {
            let p = self.pieces[slot];
            if p.color != turn {
                continue;
            }
            let from = self.sq[slot];
            let tg = self.targets(p, from);
            let must_test_all = in_check || slot == turn.index() || sensitive.contains(sqr(from));
            let quiet_tg = tg - self.occ;
            if must_test_all {
                for to in quiet_tg {
                    if !self.leaves_check(turn, slot, to.index() as u8, None) {
                        quiet += 1;
                    }
                }
            } else {
                quiet += (quiet_tg - lines).count();
                for to in quiet_tg & lines {
                    if !self.leaves_check(turn, slot, to.index() as u8, None) {
                        quiet += 1;
                    }
                }
            }
            for to in tg & them {
                let to = to.index() as u8;
                let Some(victim) = self.slot_at(to) else { continue };
                let test = must_test_all || lines.contains(sqr(to));
                if !test || !self.leaves_check(turn, slot, to, Some(victim)) {
                    f(Found { slot, to, captured: Some(victim) });
                }
            }
        }
        quiet
    }

    /// Calls `f(slot, from)` for every way `mover` could have reached this board by a move that
    /// captured nothing: the piece in `slot` came from the empty square `from`. Whether the
    /// earlier position was legal is for the caller to decide (the generator knows it from its
    /// value array).
    #[inline]
    pub fn for_each_unmove(&self, mover: Color, mut f: impl FnMut(usize, u8)) {
        let occ = self.occ;
        for slot in 0..self.pieces.len() {
            let p = self.pieces[slot];
            if p.color != mover {
                continue;
            }
            let s = sqr(self.sq[slot]);
            let from = match p.role {
                Role::King => attacks::king_attacks(s),
                Role::Advisor => attacks::advisor_attacks(s),
                Role::Elephant => attacks::elephant_attacks(s, occ),
                Role::Horse => attacks::horse_attackers(s, occ),
                Role::Rook | Role::Cannon => attacks::rook_attacks(s, occ),
                Role::Pawn => attacks::pawn_attackers(mover, s) & pawn_squares(mover),
            } - occ;
            for t in from {
                f(slot, t.index() as u8);
            }
        }
    }
}

/// Squares a pawn of `color` can stand on.
#[inline]
fn pawn_squares(color: Color) -> Bitboard {
    static SETS: std::sync::OnceLock<[Bitboard; 2]> = std::sync::OnceLock::new();
    SETS.get_or_init(|| {
        Color::ALL.map(|c| crate::core::Position::reachable_squares(Piece::new(c, Role::Pawn)))
    })[color.index()]
}

/// Squares after moving `slot` to `to` (and, for a capture, leaving out `captured`): returns the
/// child's squares compacted by `map` (slot in the child layout for each parent slot, 255 = gone).
#[inline]
pub fn child_squares(sq: &Squares, n: usize, slot: usize, to: u8, map: &[u8; MAX_PIECES], flip: bool) -> Squares {
    let mut out = [0u8; MAX_PIECES];
    for i in 0..n {
        let m = map[i];
        if m == 255 {
            continue;
        }
        let s = if i == slot { to } else { sq[i] };
        out[m as usize] = if flip { super::index::flip_sq(s) } else { s };
    }
    out
}
