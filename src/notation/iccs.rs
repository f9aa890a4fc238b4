//! ICCS coordinate notation: from-square and to-square, `h2e2`, also written `H2-E2`.

use super::ParseMoveError;
use crate::core::{File, Move, Position, Rank, Square};

/// Reads `h2e2`, `H2-E2` or `h2-e2` without a position (no legality check).
///
/// ```
/// use qiku::notation::{iccs, ParseMoveError};
///
/// let m = iccs::parse_move("H2-E2")?;
/// assert_eq!(m, iccs::parse_move("h2e2")?);
/// assert_eq!(iccs::format_dashed(m), "H2-E2");
/// assert!(matches!(iccs::parse_move("h2h2"), Err(ParseMoveError::Syntax { .. })));
/// assert!(iccs::parse_move("z2e2").is_err());
/// # Ok::<(), ParseMoveError>(())
/// ```
pub fn parse_move(token: &str) -> Result<Move, ParseMoveError> {
    let syntax = |reason| ParseMoveError::Syntax { token: token.to_string(), reason };
    let shape = || syntax("expected two squares such as h2e2 or H2-E2");
    // The four characters other than dashes, gathered byte by byte without allocating: book
    // builders read millions of these tokens. Every byte of a non-ASCII character is >= 0x80.
    let mut compact = [0u8; 4];
    let mut n = 0;
    for b in token.bytes().filter(|&b| b != b'-') {
        if !b.is_ascii() || n == compact.len() {
            return Err(shape());
        }
        compact[n] = b;
        n += 1;
    }
    if n != compact.len() {
        return Err(shape());
    }
    let square = |f: u8, r: u8| Some(Square::new(File::from_char(char::from(f))?, Rank::from_char(char::from(r))?));
    let from = square(compact[0], compact[1])
        .ok_or_else(|| syntax("the first square is not one of a0-i9 (files a-i, ranks 0-9)"))?;
    let to = square(compact[2], compact[3])
        .ok_or_else(|| syntax("the second square is not one of a0-i9 (files a-i, ranks 0-9)"))?;
    if from == to {
        return Err(syntax("from- and to-square are the same"));
    }
    Ok(Move::new(from, to))
}

/// Reads an ICCS move and checks it is legal in `pos`.
///
/// ```
/// use qiku::notation::{iccs, ParseMoveError};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// assert_eq!(iccs::parse(&pos, "h0g2")?.to_string(), "h0g2"); // 馬二進三
/// // No red piece on e5; the rook cannot jump its own pawn.
/// assert_eq!(iccs::parse(&pos, "e5e6").unwrap_err().kind(), "no-such-piece");
/// assert_eq!(iccs::parse(&pos, "a0a4"), Err(ParseMoveError::Illegal { token: "a0a4".into() }));
/// # Ok::<(), ParseMoveError>(())
/// ```
pub fn parse(pos: &Position, token: &str) -> Result<Move, ParseMoveError> {
    let m = parse_move(token)?;
    if pos.piece_at(m.from()).is_none_or(|p| p.color != pos.turn()) {
        return Err(ParseMoveError::NoSuchPiece { token: token.to_string() });
    }
    if !pos.is_legal(m) {
        return Err(ParseMoveError::Illegal { token: token.to_string() });
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
    fn token_shapes() {
        for good in ["h2e2", "H2-E2", "h2-e2", "h-2e2"] {
            assert_eq!(parse_move(good).map(|m| m.to_string()), Ok("h2e2".into()), "{good}");
        }
        for bad in ["", "h2e", "h2e22", "j2e2", "h2e:", "h2h2", "h2_e2", "炮二平五", "C2.5", "h2é2"] {
            assert!(matches!(parse_move(bad), Err(ParseMoveError::Syntax { .. })), "{bad}");
        }
    }

    #[test]
    fn errors() {
        let pos = Position::startpos();
        assert!(matches!(parse(&pos, "h2"), Err(ParseMoveError::Syntax { .. })));
        assert!(matches!(parse(&pos, "z2e2"), Err(ParseMoveError::Syntax { .. })));
        assert!(matches!(parse(&pos, "e5e6"), Err(ParseMoveError::NoSuchPiece { .. })));
        assert!(matches!(parse(&pos, "h7e7"), Err(ParseMoveError::NoSuchPiece { .. })));
        assert!(matches!(parse(&pos, "h2h8"), Err(ParseMoveError::Illegal { .. })));
    }
}
