//! Positions written as text, the one form every tool reads: `startpos` or a FEN, optionally
//! followed by `moves` and the moves played from it, each in ICCS, WXF or Chinese notation
//! (told apart move by move, so one list may mix them):
//!
//! ```text
//! startpos
//! startpos moves h2e2 h9g7
//! startpos moves 炮二平五 馬８進７ R1.2
//! rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves C2.5
//! fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w moves h2e2
//! ```
//!
//! The word `fen` before a FEN (as UCI writes it) is optional, and so is `moves` after
//! `startpos`. An error names the move by its number, the notations it was read in and why
//! each failed, and the position it was read in.
//!
//! ```
//! use qiku::notation::spec::{parse_position_spec, PositionSpec};
//!
//! let spec = parse_position_spec("startpos moves 炮二平五 H8+7 b0c2")?;
//! assert_eq!(spec.moves.len(), 3);
//! assert_eq!(spec.position().fen(), "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN1C4/9/R1BAKABNR b - - 3 2");
//! let err = parse_position_spec("startpos moves h2e2 h9j7").unwrap_err();
//! assert!(err.to_string().starts_with("move 2 \"h9j7\""), "{err}");
//! # Ok::<(), qiku::notation::spec::SpecError>(())
//! ```

use super::{chinese, iccs, wxf, Notation, ParseMoveError};
use crate::core::{Game, Move, ParseFenError, Position, PositionError, START_FEN};
use crate::util::text::excerpt;
use std::fmt;

/// A position read from text: the position named and the moves played from it.
///
/// ```
/// use qiku::notation::spec::parse_position_spec;
/// use qiku::Position;
///
/// let spec = parse_position_spec("startpos moves 炮二平五 h9g7")?;
/// assert_eq!(spec.start, Position::startpos());
/// // The moves, read in whichever notation each was written in.
/// assert_eq!(spec.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["h2e2", "h9g7"]);
/// # Ok::<(), qiku::notation::spec::SpecError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// The position named by `startpos` or the FEN.
    pub start: Position,
    /// The moves played from it, in order (each legal where it is played).
    pub moves: Vec<Move>,
}

impl PositionSpec {
    /// The position after the moves.
    ///
    /// ```
    /// use qiku::notation::spec::parse_position_spec;
    ///
    /// let spec = parse_position_spec("startpos moves h2e2 h9g7")?;
    /// assert_eq!(spec.position().fen(), "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
    /// assert_eq!(spec.start, qiku::Position::startpos()); // the position named, before the moves
    /// # Ok::<(), qiku::notation::spec::SpecError>(())
    /// ```
    pub fn position(&self) -> Position {
        self.moves.iter().fold(self.start.clone(), |p, &m| p.play_unchecked(m))
    }

    /// The game from the start through the moves (so that repetitions are judged).
    ///
    /// ```
    /// use qiku::notation::spec::parse_position_spec;
    ///
    /// let spec = parse_position_spec("startpos moves h0g2 h9g7 g2h0 g7h9")?;
    /// let game = spec.game();
    /// assert_eq!((game.len(), game.position()), (4, &spec.position()));
    /// // The start position again: a repetition, which the position alone cannot tell.
    /// assert_eq!(game.repetitions(), 1);
    /// # Ok::<(), qiku::notation::spec::SpecError>(())
    /// ```
    pub fn game(&self) -> Game {
        let mut game = Game::new(self.start.clone());
        for &m in &self.moves {
            game.play_unchecked(m);
        }
        game
    }
}

/// Why a position could not be read from text.
///
/// ```
/// use qiku::notation::spec::{parse_position_spec, SpecError};
///
/// let err = parse_position_spec("").unwrap_err();
/// assert_eq!(err, SpecError::Empty);
/// assert_eq!(err.to_string(), "no position given: expected startpos or a FEN, then optionally moves M ...");
/// // The second h2e2 cannot be played: black is to move and the cannon has left h2.
/// let err = parse_position_spec("startpos moves h2e2 h2e2").unwrap_err();
/// assert!(matches!(&err, SpecError::Move { number: 2, token, .. } if token == "h2e2"), "{err}");
/// assert!(matches!(parse_position_spec("4k4/9 w"), Err(SpecError::Fen { .. })));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecError {
    /// Nothing was given.
    Empty,
    /// The FEN is not a valid position.
    Fen {
        /// The FEN as given.
        fen: String,
        /// Why it is not a position.
        source: PositionError,
    },
    /// A move cannot be played.
    Move {
        /// Its number in the list, from 1.
        number: usize,
        /// The text of the move.
        token: String,
        /// Each notation it was read in, with why it failed there.
        tried: Vec<(Notation, ParseMoveError)>,
        /// The position it was read in (FEN).
        fen: String,
    },
    /// A FEN given as several command-line arguments (its fields separated by spaces without
    /// quotes around it).
    SplitFen {
        /// The arguments joined again.
        joined: String,
    },
    /// Words after the FEN that are neither FEN fields nor `moves`.
    Trailing {
        /// The first such word.
        word: String,
    },
}

/// Whether `word` is `startpos` with at most two letters added, dropped or changed (any case).
fn near_startpos(word: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (word.to_lowercase().chars().collect(), "startpos".chars().collect());
    if a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    // Edit distance, one row at a time.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()] <= 2
}

/// The notation's name as users know it.
fn long_name(n: Notation) -> &'static str {
    match n {
        Notation::Iccs => "ICCS",
        Notation::Wxf => "WXF",
        Notation::Chinese => "Chinese notation",
    }
}

/// Why a move failed in one notation, without repeating the token.
fn reason(e: &ParseMoveError) -> String {
    match e {
        ParseMoveError::Syntax { reason, .. } => (*reason).to_string(),
        ParseMoveError::NoSuchPiece { .. } => "the side to move has no such piece there".to_string(),
        ParseMoveError::Illegal { .. } => "not a legal move in this position".to_string(),
        ParseMoveError::Ambiguous { candidates, .. } => {
            let list: Vec<String> = candidates.iter().map(|m| m.to_string()).collect();
            format!("ambiguous, it fits {}", list.join(" and "))
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::Empty => {
                f.write_str("no position given: expected startpos or a FEN, then optionally moves M ...")
            }
            // The input is quoted in part: a huge argument never comes back whole.
            SpecError::Fen { fen, source } => {
                write!(f, "invalid FEN {:?}: {source}", excerpt(fen))?;
                // One word without a rank separator was no FEN meant: a misspelt `startpos`.
                if !fen.contains(['/', ' ']) && near_startpos(fen) {
                    f.write_str(" (did you mean startpos?)")?;
                }
                Ok(())
            }
            SpecError::Move { number, token, tried, fen } => write!(
                f,
                "move {number} {:?}: {} (position {fen}; moves may be written in ICCS h2e2, WXF C2.5 or \
                 Chinese 炮二平五)",
                excerpt(token),
                tried_reasons(tried)
            ),
            SpecError::SplitFen { joined } => write!(
                f,
                "the FEN was split into several arguments: quote it, e.g. \"{}\" (a shell splits unquoted \
                 text at spaces)",
                excerpt(joined)
            ),
            SpecError::Trailing { word } => write!(
                f,
                "unexpected {:?} after the FEN: expected startpos|FEN [moves M ...] (write `moves` before the moves)",
                excerpt(word)
            ),
        }
    }
}

impl std::error::Error for SpecError {}

/// Reads one move in whichever notation it is written in, resolved in `pos`. An ASCII token that
/// fails in the notation its shape suggests is also tried in the other ASCII notation; the error
/// lists both when neither could read it, else only the one that read it and why it found no
/// move (a WXF `R5+1` that fits two rooks is not also explained as a bad ICCS square).
///
/// ```
/// use qiku::notation::spec::read_move;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// assert_eq!(read_move(&pos, "C2.5").unwrap().to_string(), "h2e2");
/// let tried = read_move(&pos, "h2j2").unwrap_err();
/// assert_eq!(tried.len(), 2); // ICCS and WXF, each with its reason
/// let tried = read_move(&pos, "R1+3").unwrap_err(); // WXF: the rook's own pawn is in the way
/// assert_eq!(tried.len(), 1);
/// ```
pub fn read_move(pos: &Position, token: &str) -> Result<Move, Vec<(Notation, ParseMoveError)>> {
    let first = Notation::detect(token);
    let order: &[Notation] = match first {
        Notation::Chinese => &[Notation::Chinese],
        Notation::Iccs => &[Notation::Iccs, Notation::Wxf],
        Notation::Wxf if looks_like_squares(token) => &[Notation::Iccs, Notation::Wxf],
        Notation::Wxf => &[Notation::Wxf, Notation::Iccs],
    };
    let mut tried = Vec::new();
    for &n in order {
        let r = match n {
            Notation::Iccs => iccs::parse(pos, token),
            Notation::Wxf => wxf::parse(pos, token),
            Notation::Chinese => chinese::parse(pos, token),
        };
        match r {
            Ok(m) => return Ok(m),
            Err(e) => tried.push((n, e)),
        }
    }
    // A notation that could read the token but found no move for it (no such piece, illegal,
    // ambiguous) explains the failure: a notation that cannot even read it adds only noise.
    let readable = |e: &ParseMoveError| !matches!(e, ParseMoveError::Syntax { .. });
    if tried.iter().any(|(_, e)| readable(e)) {
        tried.retain(|(_, e)| readable(e));
    }
    Err(tried)
}

/// Why each notation [`read_move`] tried failed, in its order, without repeating the token:
/// `read as ICCS: ...; read as WXF: ...`.
///
/// ```
/// use qiku::notation::spec::{read_move, tried_reasons};
/// use qiku::Position;
///
/// let tried = read_move(&Position::startpos(), "zz99").unwrap_err();
/// let why = tried_reasons(&tried);
/// assert!(why.starts_with("read as WXF: ") && why.contains("; read as ICCS: "), "{why}");
/// ```
pub fn tried_reasons(tried: &[(Notation, ParseMoveError)]) -> String {
    let each: Vec<String> = tried.iter().map(|(n, e)| format!("read as {}: {}", long_name(*n), reason(e))).collect();
    each.join("; ")
}

/// `h2j2`, `z0a1`: letter, digit, letter, digit (an ICCS move with a bad square).
fn looks_like_squares(token: &str) -> bool {
    let b: Vec<u8> = token.bytes().filter(|&c| c != b'-').collect();
    matches!(b.as_slice(), [f1, r1, f2, r2]
        if f1.is_ascii_alphabetic() && r1.is_ascii_digit() && f2.is_ascii_alphabetic() && r2.is_ascii_digit())
}

/// Plays `tokens` (any notation, see [`read_move`]) from `start`; the error numbers moves from
/// `first_number`.
///
/// ```
/// use qiku::notation::spec::{read_moves, SpecError};
/// use qiku::Position;
///
/// let start = Position::startpos();
/// let moves = read_moves(&start, &["炮二平五", "H8+7", "b0c2"], 1)?;
/// assert_eq!(moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["h2e2", "h9g7", "b0c2"]);
/// // Numbered from 4 here: the second token is move 5.
/// assert!(matches!(read_moves(&start, &["h2e2", "h9j7"], 4), Err(SpecError::Move { number: 5, .. })));
/// # Ok::<(), SpecError>(())
/// ```
pub fn read_moves<S: AsRef<str>>(start: &Position, tokens: &[S], first_number: usize) -> Result<Vec<Move>, SpecError> {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let token = token.as_ref();
        match read_move(&pos, token) {
            Ok(m) => {
                pos = pos.play_unchecked(m);
                moves.push(m);
            }
            Err(tried) => {
                return Err(SpecError::Move {
                    number: first_number + i,
                    token: token.to_string(),
                    tried,
                    fen: pos.fen(),
                })
            }
        }
    }
    Ok(moves)
}

/// Reads `startpos|FEN [moves M ...]` from one string (see the module documentation).
///
/// ```
/// use qiku::notation::spec::parse_position_spec;
/// use qiku::Position;
///
/// let spec = parse_position_spec("fen 4k4/R8/9/9/9/9/9/9/9/3K5 w moves a8b8 e9f9")?;
/// assert_eq!(spec.start, Position::from_fen("4k4/R8/9/9/9/9/9/9/9/3K5 w")?);
/// assert_eq!(spec.moves.len(), 2);
/// let err = parse_position_spec("startpos moves a0a5").unwrap_err(); // the rook cannot jump its pawn
/// assert!(err.to_string().starts_with("move 1 \"a0a5\""), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_position_spec(text: &str) -> Result<PositionSpec, SpecError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    parse_words(&words)
}

/// Reads a position given as command-line arguments: one argument (`"startpos moves h2e2"` or a
/// quoted FEN with its moves) or several (`startpos moves h2e2 h9g7`, a quoted FEN followed by
/// `moves` and moves). A FEN whose fields arrive as separate arguments (it was not quoted) is
/// refused with [`SpecError::SplitFen`], which says to quote it.
///
/// ```
/// use qiku::notation::spec::{parse_position_args, SpecError};
///
/// let spec = parse_position_args(&["startpos", "moves", "h2e2"]).unwrap();
/// assert_eq!(spec.moves.len(), 1);
/// let split = ["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "w", "-", "-", "0", "1"];
/// assert!(matches!(parse_position_args(&split), Err(SpecError::SplitFen { .. })));
/// ```
pub fn parse_position_args<S: AsRef<str>>(args: &[S]) -> Result<PositionSpec, SpecError> {
    let args: Vec<&str> = args.iter().map(|a| a.as_ref()).collect();
    if args.len() > 1 && !args[0].contains(char::is_whitespace) && args[0].contains('/') {
        let fields = args[1..].iter().take_while(|w| !w.eq_ignore_ascii_case("moves")).count();
        if fields > 0 && args[1..=fields].iter().all(|w| is_fen_field(w)) {
            let joined = args[..=fields].join(" ");
            return Err(SpecError::SplitFen { joined });
        }
    }
    let words: Vec<&str> = args.iter().flat_map(|a| a.split_whitespace()).collect();
    parse_words(&words)
}

/// A FEN field after the board: side to move, `-`, or a counter. A signed number (`-1`) is a
/// counter too, if a wrong one: the FEN's own error then names it as a move counter, where read
/// as a word after the FEN it would be taken for a move written without `moves`.
fn is_fen_field(w: &str) -> bool {
    let digits = w.strip_prefix(['-', '+']).unwrap_or(w);
    matches!(w, "w" | "r" | "b" | "-") || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// The longest word after a board that is taken for a bad side to move (`white`, `red`);
/// a longer one is quoted in part as a word after the FEN.
const MAX_TURN_CHARS: usize = 8;

/// Whether `word` has the shape of a move in some notation (legal here or not), rather than being
/// no move at all.
fn move_shaped(pos: &Position, word: &str) -> bool {
    match read_move(pos, word) {
        Ok(_) => true,
        Err(tried) => tried.iter().any(|(_, e)| !matches!(e, ParseMoveError::Syntax { .. })),
    }
}

fn parse_words(words: &[&str]) -> Result<PositionSpec, SpecError> {
    let Some(&first) = words.first() else { return Err(SpecError::Empty) };
    let moves_at = words.iter().position(|w| w.eq_ignore_ascii_case("moves"));
    let (start, rest): (Position, &[&str]) = if first.eq_ignore_ascii_case("startpos") {
        let rest = &words[1..];
        let rest = if rest.first().is_some_and(|w| w.eq_ignore_ascii_case("moves")) { &rest[1..] } else { rest };
        (Position::from_fen(START_FEN).map_err(|source| SpecError::Fen { fen: START_FEN.into(), source })?, rest)
    } else {
        let fen_words = if first.eq_ignore_ascii_case("fen") { &words[1..] } else { words };
        let end = fen_words.iter().position(|w| w.eq_ignore_ascii_case("moves")).unwrap_or(fen_words.len());
        if end == 0 {
            return Err(SpecError::Empty);
        }
        // Board and up to five FEN fields; anything else before `moves` is an error.
        let fields = fen_words[1..end].iter().take_while(|w| is_fen_field(w)).count();
        let fen = fen_words[..end].join(" ");
        if 1 + fields < end {
            // Words that are no FEN fields after a board: say so, unless there is no board.
            let board = match Position::from_fen(fen_words[0]) {
                Ok(board) => board,
                Err(source) => return Err(SpecError::Fen { fen, source }),
            };
            let word = fen_words[1 + fields];
            // Right after the board, a short word that is no move is a bad side to move (`x`),
            // the FEN's error; a move there was written without `moves`.
            if fields == 0 && word.chars().count() <= MAX_TURN_CHARS && !move_shaped(&board, word) {
                let source = PositionError::Fen(ParseFenError::BadTurn(word.to_string()));
                return Err(SpecError::Fen { fen, source });
            }
            return Err(SpecError::Trailing { word: word.to_string() });
        }
        let pos = Position::from_fen(&fen).map_err(|source| SpecError::Fen { fen, source })?;
        (pos, moves_at.map_or(&[][..], |i| &words[i + 1..]))
    };
    let moves = read_moves(&start, rest, 1)?;
    Ok(PositionSpec { start, moves })
}

/// Writes a line of moves played from `pos` in `notation` (each move written in the position it
/// is played in, as WXF and Chinese need).
///
/// ```
/// use qiku::notation::{spec::format_line, Notation};
/// use qiku::notation::spec::parse_position_spec;
///
/// let spec = parse_position_spec("startpos moves h2e2 h9g7")?;
/// assert_eq!(format_line(&spec.start, &spec.moves, Notation::Wxf), ["C2.5", "H8+7"]);
/// # Ok::<(), qiku::notation::spec::SpecError>(())
/// ```
pub fn format_line(pos: &Position, moves: &[Move], notation: Notation) -> Vec<String> {
    let mut pos = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        if !pos.is_legal(m) {
            // Not a line of this position: the rest is written as coordinates.
            out.push(m.to_string());
            continue;
        }
        out.push(super::format(&pos, m, notation));
        pos = pos.play_unchecked(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let a = parse_position_spec("startpos moves h2e2 h9g7").unwrap();
        let b = parse_position_spec("startpos 炮二平五 馬８進７").unwrap();
        let c = parse_position_spec(&format!("fen {START_FEN} moves C2.5 H8+7")).unwrap();
        let d = parse_position_spec("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w moves H2-E2 h9g7")
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a, d);
        assert!(matches!(parse_position_spec(""), Err(SpecError::Empty)));
        assert!(matches!(parse_position_spec(&format!("{START_FEN} h2e2")), Err(SpecError::Trailing { .. })));
        assert!(matches!(parse_position_spec("not a fen"), Err(SpecError::Fen { .. })));
        // A misspelt startpos is named as one; another word is not.
        for typo in ["starpos", "StartPo", "startps", "sartpos1"] {
            let e = parse_position_spec(typo).unwrap_err().to_string();
            assert!(e.ends_with("(did you mean startpos?)"), "{typo}: {e}");
        }
        for other in ["start", "position", "8/8 w"] {
            let e = parse_position_spec(other).unwrap_err().to_string();
            assert!(!e.contains("did you mean"), "{other}: {e}");
        }
        // A negative counter is a bad counter of the FEN, not a word after it.
        let e = parse_position_spec("4k4/9/9/9/9/9/9/9/9/3K5 w - - -1 0").unwrap_err().to_string();
        assert!(e.contains("FEN move counter -1 is negative"), "{e}");
        let e = parse_position_spec("startpos moves h2e2 h9g7 h0j2").unwrap_err().to_string();
        assert!(e.starts_with("move 3 \"h0j2\": read as ICCS: "), "{e}");
        assert!(e.contains("read as WXF"), "{e}");
        assert!(!e.contains("bad to-square"), "{e}");
        let e = parse_position_spec("startpos moves 炮二平九").unwrap_err().to_string();
        assert!(e.starts_with("move 1 \"炮二平九\": read as Chinese notation: "), "{e}");
        let joined = parse_position_args(&[START_FEN]).unwrap();
        assert_eq!(joined.moves.len(), 0);
        let split: Vec<&str> = START_FEN.split(' ').collect();
        let e = parse_position_args(&split).unwrap_err();
        assert!(e.to_string().contains(&format!("quote it, e.g. \"{START_FEN}\"")), "{e}");
    }
}
