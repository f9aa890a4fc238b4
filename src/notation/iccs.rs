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

/// Reads a coordinate move as engines write it, without dashes and without a position (no
/// legality check): ranks counted from 0 as ICCS does (`h2e2`), or from 1 (`h3e3`, ranks 1-10,
/// as Fairy-Stockfish writes Xiangqi moves and some files do) when `ranks_from_one`. `None` when
/// the token is not two squares of the board.
///
/// ```
/// use qiku::notation::iccs;
///
/// let m = iccs::parse_coords("a1a10", true).unwrap();
/// assert_eq!(Some(m), iccs::parse_coords("a0a9", false));
/// assert_eq!(iccs::parse_coords("a10a1", false), None);
/// assert_eq!(iccs::parse_coords("(none)", false), None);
/// ```
pub fn parse_coords(token: &str, ranks_from_one: bool) -> Option<Move> {
    let b = token.as_bytes();
    let file = |c: u8| (b'a'..=b'i').contains(&c.to_ascii_lowercase()).then(|| (c.to_ascii_lowercase() - b'a') as i32);
    // Split into two squares: letter + 1-2 digits each.
    let second = b.iter().skip(1).position(|c| c.is_ascii_alphabetic())? + 1;
    let (s1, s2) = (&token[..second], &token[second..]);
    let square = |s: &str| -> Option<Square> {
        let f = file(*s.as_bytes().first()?)?;
        let r: i32 = s.get(1..)?.parse().ok()?;
        let r = if ranks_from_one { r - 1 } else { r };
        Square::from_coords(f, r)
    };
    let (from, to) = (square(s1)?, square(s2)?);
    (from != to).then(|| Move::new(from, to))
}

/// Reads an ICCS move and checks it is legal in `pos`. A check, mate or annotation mark after
/// it (`h9g7+`, `H2-E2#`, `h0g2!?`) is read past, as by every notation's parser.
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
    let m = parse_move(super::without_marks(token)).map_err(|e| e.for_token(token))?;
    if pos.piece_at(m.from()).is_none_or(|p| p.color != pos.turn()) {
        return Err(ParseMoveError::NoSuchPiece { token: token.to_string() });
    }
    if !pos.is_legal(m) {
        return Err(ParseMoveError::Illegal { token: token.to_string() });
    }
    Ok(m)
}

/// `h2e2`.
///
/// ```
/// use qiku::notation::iccs;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let m = iccs::parse(&pos, "H2-E2")?; // either form is read
/// assert_eq!(iccs::format(m), "h2e2");
/// assert_eq!(iccs::parse(&pos, &iccs::format(m))?, m);
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
pub fn format(m: Move) -> String {
    m.to_string()
}

/// `H2-E2`, the form ICCS game files use.
///
/// ```
/// use qiku::notation::iccs;
///
/// let m = iccs::parse_move("h0g2")?;
/// assert_eq!(iccs::format_dashed(m), "H0-G2");
/// assert_eq!(iccs::parse_move(&iccs::format_dashed(m))?, m);
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
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
