//! ICCS coordinate notation: from-square and to-square, `h2e2`, also written `H2-E2`.

use super::NotationError;
use crate::core::{Move, Position, Square};

/// Reads `h2e2`, `H2-E2` or `h2-e2` without a position (no legality check).
pub fn parse_move(token: &str) -> Result<Move, NotationError> {
    let syntax = |reason| NotationError::Syntax { token: token.to_string(), reason };
    let compact: String = token.chars().filter(|&c| c != '-').collect();
    if compact.len() != 4 || !compact.is_ascii() {
        return Err(syntax("expected two squares such as h2e2 or H2-E2"));
    }
    let from: Square = compact[..2].parse().map_err(|_| syntax("bad from-square"))?;
    let to: Square = compact[2..].parse().map_err(|_| syntax("bad to-square"))?;
    if from == to {
        return Err(syntax("from- and to-square are the same"));
    }
    Ok(Move::new(from, to))
}

/// Reads an ICCS move and checks it is legal in `pos`.
pub fn parse(pos: &Position, token: &str) -> Result<Move, NotationError> {
    let m = parse_move(token)?;
    if pos.piece_at(m.from()).is_none_or(|p| p.color != pos.turn()) {
        return Err(NotationError::NoSuchPiece { token: token.to_string() });
    }
    if !pos.is_legal(m) {
        return Err(NotationError::Illegal { token: token.to_string() });
    }
    Ok(m)
}

/// `h2e2`.
pub fn format(m: Move) -> String {
    m.to_string()
}

/// `H2-E2`, the form ICCS game files use.
pub fn format_dashed(m: Move) -> String {
    let s = m.to_string().to_ascii_uppercase();
    format!("{}-{}", &s[..2], &s[2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_legal_move_both_forms() {
        let pos = Position::startpos();
        for &m in pos.moves().iter() {
            assert_eq!(parse(&pos, &format(m)), Ok(m));
            assert_eq!(parse(&pos, &format_dashed(m)), Ok(m));
        }
        assert_eq!(format_dashed(parse(&pos, "h2e2").unwrap()), "H2-E2");
    }

    #[test]
    fn errors() {
        let pos = Position::startpos();
        assert!(matches!(parse(&pos, "h2"), Err(NotationError::Syntax { .. })));
        assert!(matches!(parse(&pos, "z2e2"), Err(NotationError::Syntax { .. })));
        assert!(matches!(parse(&pos, "e5e6"), Err(NotationError::NoSuchPiece { .. })));
        assert!(matches!(parse(&pos, "h7e7"), Err(NotationError::NoSuchPiece { .. })));
        assert!(matches!(parse(&pos, "h2h8"), Err(NotationError::Illegal { .. })));
    }
}
