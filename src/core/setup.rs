//! [`Setup`]: an unvalidated placement with side to move and counters, as read from a FEN.
//! Turning it into a [`Position`](super::Position) checks that it could occur in a game.
//!
//! FEN is the form Pikafish and Fairy-Stockfish use: ranks from 9 (black's back rank) down to 0,
//! uppercase red, `w` for red to move. On input `h`/`e` are accepted for horse/elephant and `r`
//! for red to move.

use super::piece::{Color, Piece};
use super::square::Square;
use std::fmt;

/// The standard starting position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A board placement that has not been checked against the rules.
///
/// ```
/// use qiku::{Color, Setup};
///
/// let setup = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4")?; // only the placement is required
/// assert_eq!(setup.turn, Color::Red);
/// assert_eq!((setup.halfmoves, setup.fullmoves), (0, 1));
/// assert_eq!(setup.piece_at("e9".parse()?).map(|p| p.char()), Some('k'));
/// // Not checked against the rules: these kings face each other.
/// assert!(qiku::Position::from_setup(&setup).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// The piece on each square, by square index.
    pub board: [Option<Piece>; 90],
    /// The side to move.
    pub turn: Color,
    /// Plies since the last capture (the FEN's fifth field).
    pub halfmoves: u32,
    /// Move number, starting at 1, incremented after black moves.
    pub fullmoves: u32,
}

impl Setup {
    /// An empty board, red to move.
    ///
    /// ```
    /// use qiku::{Position, Setup};
    ///
    /// let setup = Setup::empty();
    /// assert_eq!(setup.to_fen(), "9/9/9/9/9/9/9/9/9/9 w - - 0 1");
    /// assert!(Position::from_setup(&setup).is_err()); // no kings yet
    /// ```
    pub fn empty() -> Setup {
        Setup { board: [None; 90], turn: Color::Red, halfmoves: 0, fullmoves: 1 }
    }
    /// The piece on `sq`, if any.
    ///
    /// ```
    /// use qiku::core::{Setup, START_FEN};
    ///
    /// let setup = Setup::from_fen(START_FEN)?;
    /// assert_eq!(setup.piece_at("e0".parse()?).map(|p| p.chinese()), Some('帥'));
    /// assert_eq!(setup.piece_at("e4".parse()?), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }
    /// Puts `piece` on `sq` (or empties it).
    ///
    /// ```
    /// use qiku::{Color, Piece, Role, Setup};
    ///
    /// let mut setup = Setup::empty();
    /// setup.set("e0".parse()?, Some(Piece::new(Color::Red, Role::King)));
    /// setup.set("d9".parse()?, Some(Piece::new(Color::Black, Role::King)));
    /// assert_eq!(setup.to_fen(), "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1");
    /// setup.set("d9".parse()?, None); // empties the square
    /// assert_eq!(setup.board.iter().flatten().count(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.board[sq.index()] = piece;
    }

    /// Parses a FEN. Only the placement is required; missing fields default to red to move,
    /// 0 and 1.
    ///
    /// ```
    /// use qiku::core::{ParseFenError, Setup};
    /// use qiku::Color;
    ///
    /// let setup = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 b - - 3 7")?;
    /// assert_eq!((setup.turn, setup.halfmoves, setup.fullmoves), (Color::Black, 3, 7));
    /// assert_eq!(Setup::from_fen("9/9/9 w"), Err(ParseFenError::RankCount(3)));
    /// # Ok::<(), ParseFenError>(())
    /// ```
    pub fn from_fen(fen: &str) -> Result<Setup, ParseFenError> {
        let mut fields = fen.split_ascii_whitespace();
        let placement = fields.next().ok_or(ParseFenError::Empty)?;
        let mut setup = Setup::empty();
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 10 {
            return Err(ParseFenError::RankCount(ranks.len()));
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 9 - row as i32;
            let mut file = 0i32;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(ParseFenError::BadChar { rank: rank as u8, c });
                    }
                    file += d as i32;
                } else {
                    let piece = Piece::from_char(c).ok_or(ParseFenError::BadChar { rank: rank as u8, c })?;
                    if let Some(sq) = Square::from_coords(file, rank) {
                        setup.set(sq, Some(piece));
                    }
                    file += 1;
                }
                if file > 9 {
                    break;
                }
            }
            if file != 9 {
                return Err(ParseFenError::FileCount { rank: rank as u8, files: file as u32 });
            }
        }
        if let Some(turn) = fields.next() {
            setup.turn = match turn {
                "w" | "r" | "W" | "R" => Color::Red,
                "b" | "B" => Color::Black,
                _ => return Err(ParseFenError::BadTurn(turn.to_string())),
            };
        }
        // Castling and en-passant fields ("- -") carry nothing in Xiangqi; Pikafish writes them.
        let rest: Vec<&str> = fields.collect();
        let counters: Vec<&str> = rest.iter().copied().filter(|f| *f != "-").collect();
        let number = |s: &str| s.parse::<u32>().map_err(|_| ParseFenError::BadNumber(s.to_string()));
        match counters.as_slice() {
            [] => {}
            [half, full] => {
                setup.halfmoves = number(half)?;
                setup.fullmoves = number(full)?.max(1);
            }
            [one] => setup.halfmoves = number(one)?,
            _ => return Err(ParseFenError::BadNumber(rest.join(" "))),
        }
        Ok(setup)
    }

    /// Writes the FEN in Pikafish's form (`w`/`b`, `- -` placeholders).
    ///
    /// ```
    /// use qiku::core::{Setup, START_FEN};
    ///
    /// assert_eq!(Setup::from_fen(START_FEN)?.to_fen(), START_FEN);
    /// // Elephants may be written E/e and horses H/h; the FEN written back uses B/b and N/n.
    /// let fen = Setup::from_fen("2eakae2/9/4h4/9/9/9/9/4H4/9/2EAKAE2 b")?.to_fen();
    /// assert_eq!(fen, "2bakab2/9/4n4/9/9/9/9/4N4/9/2BAKAB2 b - - 0 1");
    /// # Ok::<(), qiku::core::ParseFenError>(())
    /// ```
    pub fn to_fen(&self) -> String {
        let mut out = String::with_capacity(80);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match Square::from_coords(file, rank).and_then(|s| self.piece_at(s)) {
                    Some(p) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push_str(match self.turn {
            Color::Red => " w - - ",
            Color::Black => " b - - ",
        });
        out.push_str(&format!("{} {}", self.halfmoves, self.fullmoves));
        out
    }

    /// The placement mirrored left-right (same side to move).
    ///
    /// ```
    /// use qiku::Setup;
    ///
    /// let setup = Setup::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// assert_eq!(setup.mirror().to_fen(), "5k3/9/9/9/9/9/9/9/8R/4K4 w - - 0 1");
    /// assert_eq!(setup.mirror().mirror(), setup);
    /// # Ok::<(), qiku::core::ParseFenError>(())
    /// ```
    pub fn mirror(&self) -> Setup {
        let mut out = self.clone();
        for sq in Square::all() {
            out.board[sq.mirror().index()] = self.board[sq.index()];
        }
        out
    }
}

/// A FEN that cannot be read as text (before any rule is checked).
///
/// ```
/// use qiku::core::{ParseFenError, Setup};
///
/// let err = Setup::from_fen("rnbakabnr/9/1c5c1 w - - 0 1").unwrap_err();
/// assert_eq!(err, ParseFenError::RankCount(3));
/// assert_eq!(err.to_string(), "FEN has 3 ranks, expected 10 separated by '/'");
/// // A chess FEN's castling rights are named as such.
/// let chess = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQkq - 0 1";
/// assert!(Setup::from_fen(chess).unwrap_err().to_string().contains("looks like chess castling rights"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseFenError {
    /// No text.
    Empty,
    /// The placement does not have 10 ranks (the count found).
    RankCount(usize),
    /// A rank does not add up to 9 files.
    FileCount {
        /// The rank (0-9).
        rank: u8,
        /// The files it adds up to (not 9).
        files: u32,
    },
    /// A character that is no piece letter or digit.
    BadChar {
        /// The rank (0-9).
        rank: u8,
        /// The character.
        c: char,
    },
    /// The side to move is not `w`, `r` or `b` (the text found).
    BadTurn(String),
    /// A move counter is not a number (the text found).
    BadNumber(String),
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFenError::Empty => f.write_str("empty FEN"),
            ParseFenError::RankCount(n) => write!(f, "FEN has {n} ranks, expected 10 separated by '/'"),
            ParseFenError::FileCount { rank, files } => write!(f, "FEN rank {rank} has {files} files, expected 9"),
            ParseFenError::BadChar { rank, c } => {
                write!(f, "FEN rank {rank}: unknown piece letter {c:?} (expected one of KABNRCP/kabnrcp, E/H aliases, or 1-9)")
            }
            ParseFenError::BadTurn(t) => write!(f, "FEN side to move {t:?} is not w, r or b"),
            ParseFenError::BadNumber(t) => {
                const FIELDS: &str = "a Xiangqi FEN ends with the side to move, '- -' (no castling, no en passant) \
                                      and two counters, as in 'w - - 0 1'";
                let castling = |w: &str| w.chars().all(|c| "KQkq".contains(c));
                if let Some(w) = t.split_whitespace().find(|w| castling(w)) {
                    write!(f, "FEN field {w:?} looks like chess castling rights, which Xiangqi has not: {FIELDS}")
                } else if let Some(w) = t.split_whitespace().find(|w| w.parse::<i64>().is_ok_and(|n| n < 0)) {
                    write!(f, "FEN move counter {w} is negative: {FIELDS}, whole numbers from 0")
                } else if t.split_whitespace().count() > 2 {
                    write!(f, "FEN has too many fields after the side to move ({t:?}): {FIELDS}")
                } else {
                    write!(f, "FEN move counters {t:?} are not whole numbers from 0: {FIELDS}")
                }
            }
        }
    }
}

impl std::error::Error for ParseFenError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_fen_round_trips() {
        let s = Setup::from_fen(START_FEN).unwrap();
        assert_eq!(s.to_fen(), START_FEN);
        assert_eq!(s.board.iter().flatten().count(), 32);
    }

    #[test]
    fn aliases_and_short_forms() {
        let s = Setup::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r").unwrap();
        assert_eq!(s.to_fen(), START_FEN);
        let s = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 b 3 7").unwrap();
        assert_eq!((s.turn, s.halfmoves, s.fullmoves), (Color::Black, 3, 7));
    }

    #[test]
    fn text_errors() {
        assert_eq!(Setup::from_fen(""), Err(ParseFenError::Empty));
        assert_eq!(Setup::from_fen("9/9/9"), Err(ParseFenError::RankCount(3)));
        assert_eq!(Setup::from_fen("4k3/9/9/9/9/9/9/9/9/4K4 w"), Err(ParseFenError::FileCount { rank: 9, files: 8 }));
        assert_eq!(Setup::from_fen("4k5/9/9/9/9/9/9/9/9/4K4 w"), Err(ParseFenError::FileCount { rank: 9, files: 10 }));
        assert_eq!(Setup::from_fen("4x4/9/9/9/9/9/9/9/9/4K4 w"), Err(ParseFenError::BadChar { rank: 9, c: 'x' }));
        assert_eq!(Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 x"), Err(ParseFenError::BadTurn("x".into())));
        assert!(matches!(Setup::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - a 1"), Err(ParseFenError::BadNumber(_))));
    }

    #[test]
    fn counter_errors_say_what_is_wrong() {
        let message = |fen: &str| Setup::from_fen(fen).unwrap_err().to_string();
        let m = message("4k4/9/9/9/9/9/9/9/9/4K4 w KQkq - 0 1");
        assert!(m.starts_with("FEN field \"KQkq\" looks like chess castling rights"), "{m}");
        assert!(m.contains("'w - - 0 1'") && !m.contains("not numbers"), "{m}");
        let m = message("4k4/9/9/9/9/9/9/9/9/4K4 w - - -3 1");
        assert!(m.starts_with("FEN move counter -3 is negative"), "{m}");
        let m = message("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1 7");
        assert!(m.starts_with("FEN has too many fields after the side to move"), "{m}");
        let m = message("4k4/9/9/9/9/9/9/9/9/4K4 w - - a 1");
        assert!(m.starts_with("FEN move counters \"a\" are not whole numbers from 0"), "{m}");
    }
}
