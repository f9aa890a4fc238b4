//! A fast path for the commonest token in big collections: an ICCS move (`h2e2`, `H2-E2`).
//!
//! Profiling the builder showed half of its time in `Position::is_legal` (called by
//! `notation::iccs::parse`), which generates every piece's moves to the target square to test
//! one move. Here only the moving piece's targets are computed, with the same attack functions
//! and the same king-safety test as the core's move generator, and the token is read without
//! allocating. Anything this path does not accept goes to `notation::iccs::parse`, so errors
//! (and any form this path does not know) are exactly the notation module's; the tests check
//! that both agree on every from/to pair in many positions.

use crate::core::attacks;
use crate::core::{Move, Position, Role, Square};

/// Reads `h2e2` / `H2-E2` (any case) without a position; `None` for anything else.
#[inline]
fn read_iccs(token: &str) -> Option<Move> {
    let b = token.as_bytes();
    let (f1, r1, f2, r2) = match *b {
        [f1, r1, f2, r2] => (f1, r1, f2, r2),
        [f1, r1, b'-', f2, r2] => (f1, r1, f2, r2),
        _ => return None,
    };
    let square = |f: u8, r: u8| {
        let file = f.to_ascii_lowercase().checked_sub(b'a').filter(|&x| x < 9)?;
        let rank = r.checked_sub(b'0').filter(|&x| x < 10)?;
        Square::from_index(usize::from(rank) * 9 + usize::from(file))
    };
    let (from, to) = (square(f1, r1)?, square(f2, r2)?);
    (from != to).then(|| Move::new(from, to))
}

/// Exactly `pos.is_legal(m)`, computing only the moving piece's targets.
#[inline]
pub(crate) fn is_legal(pos: &Position, m: Move) -> bool {
    let (from, to) = (m.from(), m.to());
    let Some(p) = pos.piece_at(from) else { return false };
    let us = pos.turn();
    if p.color != us || pos.by_color(us).contains(to) {
        return false;
    }
    let occ = pos.occupied();
    let targets = match p.role {
        Role::Rook => attacks::rook_attacks(from, occ),
        Role::Cannon => {
            (attacks::rook_attacks(from, occ) - occ) | (attacks::cannon_captures(from, occ) & pos.by_color(!us))
        }
        Role::Horse => attacks::horse_attacks(from, occ),
        Role::Pawn => attacks::pawn_attacks(us, from),
        Role::Elephant => attacks::elephant_attacks(from, occ),
        Role::Advisor => attacks::advisor_attacks(from),
        Role::King => attacks::king_attacks(from),
    };
    targets.contains(to) && !pos.leaves_king_attacked(m)
}

/// A legal ICCS move, if `token` is one; `None` means "ask the notation module" (which then
/// either reads it or says precisely why not).
#[inline]
pub(crate) fn legal_iccs(pos: &Position, token: &str) -> Option<Move> {
    read_iccs(token).filter(|&m| is_legal(pos, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    /// Positions along pseudo-random games, including checks and captures.
    fn positions() -> Vec<Position> {
        let mut out = Vec::new();
        let mut seed = 0x1234_5678_u64;
        for _ in 0..10 {
            let mut pos = Position::startpos();
            for _ in 0..80 {
                let moves = pos.moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                pos.make_move(moves[(seed >> 33) as usize % moves.len()]);
                out.push(pos.clone());
            }
        }
        out
    }

    #[test]
    fn agrees_with_the_core_and_the_notation_module_on_every_square_pair() {
        let positions = positions();
        assert!(positions.len() > 600);
        let mut legal = 0;
        for pos in &positions {
            for from in Square::all() {
                for to in Square::all() {
                    if from == to {
                        continue;
                    }
                    let m = Move::new(from, to);
                    assert_eq!(is_legal(pos, m), pos.is_legal(m), "{m} in {}", pos.fen());
                    let token = m.to_string();
                    let fast = legal_iccs(pos, &token);
                    assert_eq!(fast, iccs::parse(pos, &token).ok(), "{token} in {}", pos.fen());
                    if fast.is_some() {
                        assert_eq!(legal_iccs(pos, &iccs::format_dashed(m)), fast);
                        legal += 1;
                    }
                }
            }
        }
        assert!(legal > 15_000, "{legal}");
    }

    #[test]
    fn reads_only_plain_iccs() {
        assert_eq!(read_iccs("h2e2").map(|m| m.to_string()), Some("h2e2".into()));
        assert_eq!(read_iccs("H2-E2").map(|m| m.to_string()), Some("h2e2".into()));
        for bad in ["", "h2e", "h2e22", "j2e2", "h2e:", "h2h2", "h2_e2", "炮二平五", "C2.5", "h-2e2"] {
            assert_eq!(read_iccs(bad), None, "{bad}");
        }
    }
}
