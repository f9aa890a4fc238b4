//! A compact board for the generator: squares by slot (as the index scheme lays them out) plus
//! occupancy bitboards, with forward moves (legal ones only) and un-moves (the moves that could
//! have led here, without captures). Built on the core's attack tables; the generator calls these
//! billions of times, so they avoid the full [`Position`](crate::core::Position).

use super::index::{Layout, Squares, MAX_PIECES};
use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Role, Square};
use std::ops::ControlFlow;

#[inline(always)]
fn sqr(s: u8) -> Square {
    Square::from_index_unchecked(s as usize)
}

/// Pieces on squares, by slot, with occupancy.
#[derive(Clone)]
pub struct Board<'a> {
    /// The pieces of the material, in index order.
    pub pieces: &'a [Piece],
    /// The square of each piece.
    pub sq: Squares,
    /// All occupied squares.
    pub occ: Bitboard,
    /// Occupied squares by color.
    pub by_color: [Bitboard; 2],
    /// Per color, the pieces that attack along files and ranks (rooks, and the king for the
    /// flying-general rule), the cannons, the horses and the pawns: a king-attack test is then
    /// four bitboard intersections instead of a loop over the slots.
    /// Indexed `[color][class]` with the classes below (the last one collects advisors and
    /// elephants, which never attack a king), so that filling it needs no branch.
    attackers: [[Bitboard; 5]; 2],
}

const SLIDERS: usize = 0;
const CANNONS: usize = 1;
const HORSES: usize = 2;
const PAWNS: usize = 3;

/// The attacker class of a role.
const fn attacker_class(role: Role) -> usize {
    match role {
        Role::King | Role::Rook => SLIDERS,
        Role::Cannon => CANNONS,
        Role::Horse => HORSES,
        Role::Pawn => PAWNS,
        Role::Advisor | Role::Elephant => 4,
    }
}

/// Is the king of `color` on `k` attacked by the pieces `a` (the other side's, by attacker
/// class) given occupancy `occ`, counting only attackers on `live`?
#[inline]
fn attacked_by(a: &[Bitboard; 5], k: u8, color: Color, occ: Bitboard, live: Bitboard) -> bool {
    let ks = sqr(k);
    // Most placements have no slider or cannon on the king's lines: test that first.
    let lines = attacks::lines(ks);
    let sliders = a[SLIDERS] & live & lines;
    let cannons = a[CANNONS] & live & lines;
    (sliders.any() && (attacks::rook_attacks(ks, occ) & sliders).any())
        || ((attacks::pawn_attackers(!color, ks) & a[PAWNS] & live).any())
        || (a[HORSES].any() && (attacks::horse_attackers(ks, occ) & a[HORSES] & live).any())
        || (cannons.any() && (attacks::cannon_captures(ks, occ) & cannons).any())
}

/// A legal forward move found by [`Board::for_each_move`].
#[derive(Copy, Clone, Debug)]
pub struct Found {
    /// Which piece moves (its index in `pieces`).
    pub slot: usize,
    /// Its destination square.
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
        let mut attackers = [[Bitboard::EMPTY; 5]; 2];
        let mut occ = Bitboard::EMPTY;
        for (&s, &p) in sq[..n].iter().zip(&layout.pieces) {
            let b = Bitboard::from_square(sqr(s));
            if (occ & b).any() {
                return None;
            }
            occ |= b;
            let c = p.color.index();
            by_color[c] |= b;
            attackers[c][attacker_class(p.role)] |= b;
        }
        Some(Board { pieces: &layout.pieces, sq: *sq, occ, by_color, attackers })
    }

    #[inline(always)]
    /// The square of `color`'s king.
    pub fn king(&self, color: Color) -> u8 {
        self.sq[color.index()]
    }

    /// Is the king of `color`, standing on `k`, attacked by the other side given occupancy `occ`,
    /// ignoring an enemy piece on `dead` (just captured; `EMPTY` for none)? The facing enemy king
    /// counts.
    #[inline]
    pub fn attacked(&self, k: u8, color: Color, occ: Bitboard, dead: Bitboard) -> bool {
        attacked_by(&self.attackers[(!color).index()], k, color, occ, !dead)
    }

    /// Does `turn`'s move `m`, not a capture, give check? The same answer as building the child's
    /// board and asking [`in_check`](Self::in_check), from this board's bitboards with the moved
    /// piece's bit moved.
    #[inline]
    pub fn gives_check(&self, turn: Color, m: Found) -> bool {
        debug_assert!(m.captured.is_none(), "a capture");
        let from = Bitboard::from_square(sqr(self.sq[m.slot]));
        let to = Bitboard::from_square(sqr(m.to));
        let occ = (self.occ - from) | to;
        let mut a = self.attackers[turn.index()];
        let class = attacker_class(self.pieces[m.slot].role);
        a[class] = (a[class] - from) | to;
        attacked_by(&a, self.king(!turn), !turn, occ, !Bitboard::EMPTY)
    }

    /// Is the king of `color` in check on this board?
    #[inline]
    pub fn in_check(&self, color: Color) -> bool {
        self.attacked(self.king(color), color, self.occ, Bitboard::EMPTY)
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
        let dead = if captured.is_some() { Bitboard::from_square(sqr(to)) } else { Bitboard::EMPTY };
        self.attacked(k, turn, occ, dead)
    }

    /// Calls `f` for every legal move of `turn` that captures, and returns the number of legal
    /// moves that do not. Only moves that can expose the king (king moves, moves from the king's
    /// lines or horse-leg squares, moves onto the king's lines) are tested when not in check.
    #[inline]
    pub fn for_each_move(&self, turn: Color, f: impl FnMut(Found)) -> u32 {
        self.moves::<true>(turn, f)
    }

    /// Calls `f` for every legal move of `turn` that captures, like
    /// [`for_each_move`](Self::for_each_move) without counting the others: the generator derives
    /// an entry's capture bound again this way when its counter reaches zero.
    #[inline]
    pub fn for_each_capture(&self, turn: Color, f: impl FnMut(Found)) {
        self.moves::<false>(turn, f);
    }

    /// [`for_each_move`](Self::for_each_move), counting non-captures only if `QUIET`.
    #[inline]
    fn moves<const QUIET: bool>(&self, turn: Color, mut f: impl FnMut(Found)) -> u32 {
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
            // Non-captures: counted only when wanted (the capture-bound pass skips their checks).
            if QUIET && must_test_all {
                for to in quiet_tg {
                    if !self.leaves_check(turn, slot, to.index() as u8, None) {
                        quiet += 1;
                    }
                }
            } else if QUIET {
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

    /// Calls `f` for every legal move of `turn`, quiet ones (`captured: None`) included. Slower
    /// than [`for_each_move`](Self::for_each_move) (every move is tested for leaving the king
    /// attacked); the rule-aware pass, which needs each child, uses it on drawn entries only.
    pub fn for_each_legal(&self, turn: Color, mut f: impl FnMut(Found)) {
        let _ = self.try_for_each_legal(turn, |m| {
            f(m);
            ControlFlow::Continue(())
        });
    }

    /// [`for_each_legal`](Self::for_each_legal) until `f` breaks (the moves after it are not
    /// generated); breaks if `f` did.
    pub fn try_for_each_legal(&self, turn: Color, mut f: impl FnMut(Found) -> ControlFlow<()>) -> ControlFlow<()> {
        let them = self.by_color[(!turn).index()];
        for slot in 0..self.pieces.len() {
            let p = self.pieces[slot];
            if p.color != turn {
                continue;
            }
            for to in self.targets(p, self.sq[slot]) {
                let to = to.index() as u8;
                let captured = if them.contains(sqr(to)) { self.slot_at(to) } else { None };
                if !self.leaves_check(turn, slot, to, captured) {
                    f(Found { slot, to, captured })?;
                }
            }
        }
        ControlFlow::Continue(())
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
    SETS.get_or_init(|| Color::ALL.map(|c| crate::core::Position::reachable_squares(Piece::new(c, Role::Pawn))))
        [color.index()]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{MoveList, Position};

    /// The generator's board against the rules core: legality (the side not to move not in check,
    /// kings not facing) and the number of legal moves and captures, over a spread of placements.
    #[test]
    fn agrees_with_the_rules_core() {
        for name in ["KRvK", "KCNvKA", "KNPvKR", "KCCvKP", "KRvKCA", "KPPvKB"] {
            let layout = Layout::new(name.parse().unwrap());
            let step = (layout.per_side / 4000).max(1) as usize;
            let (mut legal, mut sq) = (0, [0u8; MAX_PIECES]);
            for idx in (0..layout.per_side).step_by(step) {
                layout.unrank(idx, &mut sq);
                let Some(board) = Board::new(&layout, &sq) else { continue };
                for turn in Color::ALL {
                    let other = Position::from_setup_unchecked(&layout.setup(&sq, !turn));
                    let facing = {
                        let (r, b) = (sqr(sq[0]), sqr(sq[1]));
                        r.file() == b.file() && (attacks::rook_attacks(r, board.occ)).contains(b)
                    };
                    assert_eq!(board.is_legal(turn), !other.is_check() && !facing, "{name} {idx} {turn:?}");
                    if !board.is_legal(turn) {
                        continue;
                    }
                    legal += 1;
                    let pos = Position::from_setup_unchecked(&layout.setup(&sq, turn));
                    let mut list = MoveList::new();
                    pos.legal_moves(&mut list);
                    let mut captures = 0;
                    let quiet = board.for_each_move(turn, |_| captures += 1);
                    let core_captures = list.iter().filter(|m| pos.piece_at(m.to()).is_some()).count();
                    assert_eq!((quiet as usize, captures), (list.len() - core_captures, core_captures), "{name} {idx}");
                }
            }
            assert!(legal > 1000, "{name}: only {legal} legal placements checked");
        }
    }

    /// A quiet move's check, from the bitboards with the moved piece's bit moved, against the
    /// child's own board and against the rules core's position after the move.
    #[test]
    fn gives_check_agrees_with_the_child_board_and_the_rules_core() {
        for name in ["KRvKA", "KCNvKA", "KNPvKR", "KCCvKP", "KRNvKR", "KPPvKB"] {
            let layout = Layout::new(name.parse().unwrap());
            let step = (layout.per_side / 3000).max(1) as usize;
            let (mut checks, mut quiet, mut sq) = (0, 0, [0u8; MAX_PIECES]);
            for idx in (0..layout.per_side).step_by(step) {
                layout.unrank(idx, &mut sq);
                let Some(board) = Board::new(&layout, &sq) else { continue };
                for turn in Color::ALL {
                    if !board.is_legal(turn) {
                        continue;
                    }
                    board.for_each_legal(turn, |m| {
                        if m.captured.is_some() {
                            return;
                        }
                        let mut q = sq;
                        q[m.slot] = m.to;
                        let child = Board::new(&layout, &q).expect("a quiet move overlaps nothing");
                        let check = board.gives_check(turn, m);
                        assert_eq!(check, child.in_check(!turn), "{name} {idx} {turn:?} {m:?}");
                        let pos = Position::from_setup_unchecked(&layout.setup(&q, !turn));
                        assert_eq!(check, pos.is_check(), "{name} {idx} {turn:?} {m:?}: the rules core");
                        quiet += 1;
                        checks += usize::from(check);
                    });
                }
            }
            assert!(checks > 100 && quiet > 3 * checks, "{name}: {checks} checks among {quiet} quiet moves");
        }
    }
}
