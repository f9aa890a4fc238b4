//! The chase rule: which enemy pieces a move newly *chases* (threatens to win), and the verdict
//! on a repetition cycle in which one side chases the same piece on every one of its moves.
//!
//! Definitions implemented (Asian Xiangqi Federation rules, as `docs/RULES.md` states them):
//! - A piece of the chasing side *threatens* an enemy piece when it can capture it by a legal
//!   move and either the target is *unprotected* (after the capture, the target's side has no
//!   legal move back onto the square) or the target is worth more in the rules' sense: a horse
//!   or cannon attacking a rook, or an advisor or elephant attacking a rook, horse or cannon,
//!   count even when the target is protected.
//! - Kings and pawns may chase: their attacks never count. The king is never chased (that is
//!   check), nor is a pawn that has not crossed the river.
//! - Two pieces of the same kind that attack each other do not chase each other (each may take
//!   the other), unless the target cannot legally capture back (for example because it is
//!   pinned).
//! - A move *chases* the pieces that a piece of its side threatens after it and could not capture
//!   before it: new attacks, whether by the moved piece or discovered behind it. An old attack
//!   also becomes a chase when the move makes the target's defence fake: every defender that
//!   could take back is now pinned, or taking back would not answer the discovered check that the
//!   capture would give. (A threat that becomes real only because a defender's line was blocked
//!   or its screen removed is not a new chase.)
//! - Over a repetition cycle, a side *perpetually chases* when one and the same enemy piece is
//!   chased by every one of its moves (followed through the opponent's moves when the chased
//!   piece runs). That side loses, unless the other side also chases perpetually (a draw).
//!   Perpetual check is judged first (`Game::repetition_verdict`).
//!
//! Protection and threats are decided by legal moves (a pinned defender protects nothing, a
//! capture that would expose the capturer's own king threatens nothing), so the rule needs no
//! special cases for pins or the facing kings.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// Is `attacker` attacking `target` a chase whatever the target's protection? (AXF: horse or
/// cannon against a rook; advisor or elephant against a rook, horse or cannon.)
const fn attacks_stronger(attacker: Role, target: Role) -> bool {
    matches!(
        (attacker, target),
        (Role::Horse | Role::Cannon, Role::Rook)
            | (Role::Advisor | Role::Elephant, Role::Rook | Role::Horse | Role::Cannon)
    )
}

/// Can a piece of `color` on `sq` be chased at all? Kings never (that is check), pawns only once
/// they have crossed the river.
fn can_be_chased(role: Role, color: Color, sq: Square) -> bool {
    match role {
        Role::King => false,
        Role::Pawn => !attacks::home_half(color).contains(sq),
        _ => true,
    }
}

/// Does the side to move have a legal move onto `sq`?
fn can_move_to(pos: &Position, sq: Square) -> bool {
    let mut list = MoveList::new();
    pos.pseudo_legal_moves_to(Bitboard::from_square(sq), &mut list);
    list.iter().any(|&m| !pos.leaves_king_attacked(m))
}

/// After the side to move captures on `to` from `from`, does the other side have a move back onto
/// `to` by the pieces' rules that is illegal (a pinned defender, or one that leaves a check)?
fn has_fake_defender(pos: &Position, from: Square, to: Square) -> bool {
    let after = pos.play_unchecked(Move::new(from, to));
    let mut list = MoveList::new();
    after.pseudo_legal_moves_to(Bitboard::from_square(to), &mut list);
    !list.is_empty()
}

/// Can the side to move win the enemy piece on `to` with the piece on `from`, in the sense of the
/// chase rule (see the module docs)? `from` must hold a piece of the side to move.
fn threatens(pos: &Position, from: Square, to: Square) -> bool {
    let (Some(attacker), Some(target)) = (pos.piece_at(from), pos.piece_at(to)) else { return false };
    if matches!(attacker.role, Role::King | Role::Pawn) || !can_be_chased(target.role, target.color, to) {
        return false;
    }
    let capture = Move::new(from, to);
    if !pos.piece_targets(attacker, from).contains(to) || pos.leaves_king_attacked(capture) {
        return false;
    }
    if attacks_stronger(attacker.role, target.role) {
        return true;
    }
    if target.role == attacker.role {
        // Mutual attack between equals: no chase if the target may take back first.
        let mut theirs = pos.clone();
        theirs.make_null_move();
        if theirs.is_legal(Move::new(to, from)) {
            return false;
        }
    }
    !can_move_to(&pos.play_unchecked(capture), to)
}

/// The opponent's pieces that the legal move `m` chases: threatened after it (with the mover to
/// move again) by a piece that could not capture them before it (the moved piece from its new
/// square, or a piece whose line or leg the move opened). Squares are those of the position
/// after `m`.
///
/// ```
/// use qiku::core::chase::chased_by;
/// use qiku::{notation::iccs, Position};
///
/// // The cannon goes from c2 to a2 and attacks the rook on a7 over the pawn on a5: a cannon
/// // attacking a rook chases it even when the rook is protected.
/// let pos = Position::from_fen("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1")?;
/// let chased = chased_by(&pos, iccs::parse(&pos, "c2a2")?);
/// assert_eq!(chased.map(|sq| sq.to_string()).collect::<Vec<_>>(), ["a7"]);
/// // A quiet move far away chases nothing.
/// assert!(chased_by(&pos, iccs::parse(&pos, "i0i1")?).is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn chased_by(before: &Position, m: Move) -> Bitboard {
    let mut after = before.play_unchecked(m);
    after.make_null_move();
    let us = after.turn();
    let mut chased = Bitboard::EMPTY;
    for from in after.by_color(us) {
        let Some(attacker) = after.piece_at(from) else { continue };
        // Where this piece stood before the move, and what it could capture from there.
        let old_from = if from == m.to() { m.from() } else { from };
        let before_targets = before.piece_targets(attacker, old_from);
        for to in after.piece_targets(attacker, from) & after.by_color(!us) {
            if chased.contains(to) || !threatens(&after, from, to) {
                continue;
            }
            // A new attack; or an old one that became a threat because every defender that could
            // still take back is now pinned, or taking back would not answer a discovered check.
            let new_attack = !before_targets.contains(to);
            if new_attack || (!threatens(before, old_from, to) && has_fake_defender(&after, from, to)) {
                chased = chased.with(to);
            }
        }
    }
    chased
}

/// For each side, is there one enemy piece that it chased on every one of its moves of the
/// cycle? `positions[i]` is the position before `moves[i]`; the cycle closes after the last move
/// (the position after it repeats `positions[0]`). Indexed by [`Color::index`].
///
/// ```
/// use qiku::core::chase::perpetual_chasers;
/// use qiku::{notation::iccs, Move, Position};
///
/// let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
/// let start = Position::from_fen(fen)?.play(iccs::parse_move("c2a2")?)?; // the cannon attacks the rook
/// let moves: Vec<Move> =
///     ["a7b7", "a2b2", "b7a7", "b2a2"].into_iter().map(iccs::parse_move).collect::<Result<_, _>>()?;
/// let (mut pos, mut positions) = (start.clone(), Vec::new());
/// for &m in &moves {
///     positions.push(pos.clone());
///     pos = pos.play(m)?;
/// }
/// assert_eq!(pos.key(), start.key()); // the cycle closes: the rook ran, the cannon followed
/// assert_eq!(perpetual_chasers(&positions, &moves), [true, false]); // red chased, black did not
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn perpetual_chasers(positions: &[Position], moves: &[Move]) -> [bool; 2] {
    debug_assert_eq!(positions.len(), moves.len());
    let mut result = [false; 2];
    for side in [Color::Red, Color::Black] {
        // Walk back from the side's last move; `set` holds the pieces chased by every move seen
        // so far, as squares of the position after the move being looked at.
        let mut set: Option<Bitboard> = None;
        for i in (0..moves.len()).rev() {
            let pos = &positions[i];
            if pos.turn() == side {
                let chased = chased_by(pos, moves[i]);
                set = Some(set.map_or(chased, |s| s & chased));
                if set.is_some_and(|s| s.is_empty()) {
                    break;
                }
            } else if let Some(s) = set {
                // The opponent's move may have moved a chased piece: follow it back.
                let (from, to) = (moves[i].from(), moves[i].to());
                set = Some(if s.contains(to) { s.without(to).with(from) } else { s });
            }
        }
        result[side.index()] = set.is_some_and(|s| s.any());
    }
    result
}
