//! Move notations, each parsed against a position (so that a move is resolved to one legal
//! [`crate::Move`]) and formatted from one:
//! - [`iccs`]: coordinates, `h2e2` or `H2-E2`.
//! - [`wxf`]: the WXF file notation, `C2.5`, `H8+7`, `R+.4`.
//! - [`chinese`]: Chinese file notation, `炮二平五`, `馬８進７`, `前車進一` (traditional or
//!   simplified characters).
//!
//! [`parse_any`] tells the three apart by the token's shape, and [`format()`] writes any of them;
//! [`spec`] reads a whole position as text (`startpos|FEN [moves M ...]`, moves in any notation).

pub mod chinese;
pub mod iccs;
mod relative;
pub mod spec;
pub mod wxf;

use crate::core::{Move, Position};
use std::fmt;
use std::str::FromStr;

/// A move notation.
///
/// ```
/// use qiku::notation::Notation;
///
/// assert_eq!(Notation::detect("h2e2"), Notation::Iccs);
/// assert_eq!(Notation::detect("H2-E2"), Notation::Iccs);
/// assert_eq!(Notation::detect("C2.5"), Notation::Wxf);
/// assert_eq!(Notation::detect("E3+5"), Notation::Wxf); // a WXF elephant, not a square
/// assert_eq!(Notation::detect("炮二平五"), Notation::Chinese);
/// assert_eq!("Chinese".parse::<Notation>(), Ok(Notation::Chinese));
/// let err = "san".parse::<Notation>().unwrap_err();
/// assert_eq!(err.to_string(), r#"unknown notation "san" (expected iccs, wxf or chinese)"#);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// Coordinates: `h2e2`, `H2-E2`.
    Iccs,
    /// WXF: `C2.5`.
    Wxf,
    /// Chinese characters: `炮二平五`.
    Chinese,
}

impl Notation {
    /// The three notations.
    pub const ALL: [Notation; 3] = [Notation::Iccs, Notation::Wxf, Notation::Chinese];

    /// Lowercase name, as on the command line: `iccs`, `wxf`, `chinese`.
    ///
    /// ```
    /// use qiku::notation::Notation;
    ///
    /// assert_eq!(Notation::ALL.map(Notation::name), ["iccs", "wxf", "chinese"]);
    /// for n in Notation::ALL {
    ///     assert_eq!(n.name().parse::<Notation>(), Ok(n)); // the name is read back
    /// }
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Notation::Iccs => "iccs",
            Notation::Wxf => "wxf",
            Notation::Chinese => "chinese",
        }
    }

    /// The notation a token is written in, judged by its shape alone: any non-ASCII character
    /// means Chinese; square-square (`h2e2`, `H2-E2`, also with a check or annotation mark after
    /// it) means ICCS; other ASCII means WXF.
    ///
    /// ```
    /// use qiku::notation::Notation;
    ///
    /// assert_eq!(Notation::detect("h2e2+"), Notation::Iccs); // a check mark after the move
    /// assert_eq!(Notation::detect("R1+2"), Notation::Wxf);
    /// assert_eq!(Notation::detect("炮2平5"), Notation::Chinese); // any non-ASCII character
    /// assert_eq!(Notation::detect("h2x2"), Notation::Wxf); // no square-square shape: WXF (and an error there)
    /// ```
    pub fn detect(token: &str) -> Notation {
        let token = without_marks(token);
        let b = token.as_bytes();
        let file = |c: u8| matches!(c.to_ascii_lowercase(), b'a'..=b'i');
        let rank = |c: u8| c.is_ascii_digit();
        let squares = |f1, r1, f2, r2| file(f1) && rank(r1) && file(f2) && rank(r2);
        if !token.is_ascii() {
            Notation::Chinese
        } else if matches!(b, &[f1, r1, f2, r2] if squares(f1, r1, f2, r2))
            || matches!(b, &[f1, r1, b'-', f2, r2] if squares(f1, r1, f2, r2))
        {
            Notation::Iccs
        } else {
            Notation::Wxf
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A notation name that is not `iccs`, `wxf` or `chinese`.
///
/// ```
/// use qiku::notation::{Notation, ParseNotationError};
///
/// assert_eq!("WXF".parse::<Notation>(), Ok(Notation::Wxf)); // names in any case
/// let err = "san".parse::<Notation>().unwrap_err();
/// assert_eq!(err, ParseNotationError("san".into()));
/// assert_eq!(err.to_string(), "unknown notation \"san\" (expected iccs, wxf or chinese)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseNotationError(pub String);

impl fmt::Display for ParseNotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown notation {:?} (expected iccs, wxf or chinese)", self.0)
    }
}

impl std::error::Error for ParseNotationError {}

impl FromStr for Notation {
    type Err = ParseNotationError;
    fn from_str(s: &str) -> Result<Notation, ParseNotationError> {
        Notation::ALL
            .into_iter()
            .find(|n| n.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseNotationError(s.to_string()))
    }
}

/// The marks game files put after a move: check `+`, mate `#`, and the annotations `!` and `?`.
const MARKS: [char; 4] = ['+', '#', '!', '?'];

/// `token` without the marks after it (any run of `+`, `#`, `!`, `?`): every parser reads a move
/// with them as without them (`h9g7+`, `R1+2+`, `馬二進三+`, `C2.5!?`). No move of any notation
/// ends with one of them.
pub(crate) fn without_marks(token: &str) -> &str {
    token.trim_end_matches(MARKS)
}

/// Reads a move in whichever notation the token is written in (see [`Notation::detect`]) and
/// resolves it in `pos`; returns the move and the notation it was read as.
///
/// ```
/// use qiku::notation::{self, Notation};
/// let pos = qiku::Position::startpos();
/// let (m, n) = notation::parse_any(&pos, "炮二平五").unwrap();
/// assert_eq!((m.to_string().as_str(), n), ("h2e2", Notation::Chinese));
/// assert_eq!(notation::parse_any(&pos, "C2.5").unwrap().0, m);
/// assert_eq!(notation::format(&pos, m, Notation::Wxf), "C2.5");
/// ```
pub fn parse_any(pos: &Position, token: &str) -> Result<(Move, Notation), ParseMoveError> {
    let notation = Notation::detect(token);
    let m = match notation {
        Notation::Iccs => iccs::parse(pos, token)?,
        Notation::Wxf => wxf::parse(pos, token)?,
        Notation::Chinese => chinese::parse(pos, token)?,
    };
    Ok((m, notation))
}

/// Writes the legal move `m` of `pos` in `notation` (canonical form: `h2e2`, `C2.5`, `炮二平五`).
///
/// ```
/// use qiku::notation::{self, Notation};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let (m, _) = notation::parse_any(&pos, "H2-E2")?;
/// let all: Vec<String> = Notation::ALL.iter().map(|&n| notation::format(&pos, m, n)).collect();
/// assert_eq!(all, ["h2e2", "C2.5", "炮二平五"]);
/// # Ok::<(), notation::ParseMoveError>(())
/// ```
pub fn format(pos: &Position, m: Move, notation: Notation) -> String {
    match notation {
        Notation::Iccs => iccs::format(m),
        Notation::Wxf => wxf::format(pos, m),
        Notation::Chinese => chinese::format(pos, m),
    }
}

/// Why a move token could not be read in a position.
///
/// ```
/// use qiku::notation::{parse_any, ParseMoveError};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// assert!(matches!(parse_any(&pos, "xyz"), Err(ParseMoveError::Syntax { .. })));
/// assert_eq!(parse_any(&pos, "h5h6").map_err(|e| e.kind()), Err("no-such-piece"));
/// let err = parse_any(&pos, "a0a4").unwrap_err();
/// assert_eq!((err.kind(), err.token()), ("illegal", "a0a4"));
/// // Both rooks of the e-file (五) can step forward: the file alone does not say which.
/// let rooks = Position::from_fen("5k3/9/9/9/4R4/9/9/4R4/9/3K5 w")?;
/// match parse_any(&rooks, "俥五進一") {
///     Err(ParseMoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
///     other => panic!("expected an ambiguity, got {other:?}"),
/// }
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseMoveError {
    /// The text is not a move in this notation.
    Syntax {
        /// The text read.
        token: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// It names a piece that is not there.
    NoSuchPiece {
        /// The text read.
        token: String,
    },
    /// It is well-formed but names no legal move here.
    Illegal {
        /// The text read.
        token: String,
    },
    /// It fits more than one legal move.
    Ambiguous {
        /// The text read.
        token: String,
        /// The legal moves it fits.
        candidates: Vec<Move>,
    },
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseMoveError::Syntax { token, reason } => write!(f, "cannot read move {token:?}: {reason}"),
            ParseMoveError::NoSuchPiece { token } => write!(f, "move {token:?}: no such piece in this position"),
            ParseMoveError::Illegal { token } => write!(f, "move {token:?} is illegal in this position"),
            ParseMoveError::Ambiguous { token, candidates } => {
                write!(f, "move {token:?} is ambiguous: it fits")?;
                for m in candidates {
                    write!(f, " {m}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ParseMoveError {}

impl ParseMoveError {
    /// The token the error is about.
    ///
    /// ```
    /// use qiku::notation::parse_any;
    /// use qiku::Position;
    ///
    /// let err = parse_any(&Position::startpos(), "a0a4!?").unwrap_err();
    /// assert_eq!(err.token(), "a0a4!?"); // as written, marks included
    /// ```
    pub fn token(&self) -> &str {
        match self {
            ParseMoveError::Syntax { token, .. }
            | ParseMoveError::NoSuchPiece { token }
            | ParseMoveError::Illegal { token }
            | ParseMoveError::Ambiguous { token, .. } => token,
        }
    }

    /// The same error about `token` (the text as written, where the parser read it without its
    /// marks).
    pub(crate) fn for_token(self, token: &str) -> Self {
        let token = token.to_string();
        match self {
            ParseMoveError::Syntax { reason, .. } => ParseMoveError::Syntax { token, reason },
            ParseMoveError::NoSuchPiece { .. } => ParseMoveError::NoSuchPiece { token },
            ParseMoveError::Illegal { .. } => ParseMoveError::Illegal { token },
            ParseMoveError::Ambiguous { candidates, .. } => ParseMoveError::Ambiguous { token, candidates },
        }
    }

    /// A short machine-readable reason, for counting errors by kind.
    ///
    /// ```
    /// use qiku::notation::parse_any;
    /// use qiku::Position;
    ///
    /// let pos = Position::startpos();
    /// let kinds = ["xyz", "h5h6", "a0a4"].map(|t| parse_any(&pos, t).map_err(|e| e.kind()).err());
    /// assert_eq!(kinds, [Some("syntax"), Some("no-such-piece"), Some("illegal")]);
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            ParseMoveError::Syntax { .. } => "syntax",
            ParseMoveError::NoSuchPiece { .. } => "no-such-piece",
            ParseMoveError::Illegal { .. } => "illegal",
            ParseMoveError::Ambiguous { .. } => "ambiguous",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_and_parses_each_notation() {
        let pos = Position::startpos();
        for (token, notation) in [
            ("h2e2", Notation::Iccs),
            ("H2-E2", Notation::Iccs),
            ("C2.5", Notation::Wxf),
            ("c2=5", Notation::Wxf),
            ("炮二平五", Notation::Chinese),
            ("炮2平5", Notation::Chinese),
        ] {
            assert_eq!(Notation::detect(token), notation, "{token}");
            let (m, n) = parse_any(&pos, token).unwrap();
            assert_eq!((m.to_string().as_str(), n), ("h2e2", notation), "{token}");
        }
        // WXF tokens that start with a file letter are not mistaken for coordinates.
        assert_eq!(Notation::detect("E3+5"), Notation::Wxf);
        assert_eq!(Notation::detect("A4+5"), Notation::Wxf);
        assert_eq!(Notation::detect("C2-1+"), Notation::Wxf);
        // A check or annotation mark after a move is read past, in every notation.
        for (token, notation) in [("h2e2+", Notation::Iccs), ("H2-E2#", Notation::Iccs), ("C2.5+", Notation::Wxf)] {
            assert_eq!(Notation::detect(token), notation, "{token}");
        }
        for token in ["h2e2+", "H2-E2#", "h2e2!?", "C2.5+", "C25+", "炮二平五+", "炮二平五#", "炮二平五?!"]
        {
            assert_eq!(parse_any(&pos, token).map(|(m, _)| m.to_string()), Ok("h2e2".to_string()), "{token}");
        }
        // An error names the token as written.
        assert_eq!(parse_any(&pos, "a0a4+"), Err(ParseMoveError::Illegal { token: "a0a4+".into() }));
        let e = parse_any(&pos, "h2x2+").unwrap_err();
        assert_eq!((e.kind(), e.token()), ("syntax", "h2x2+"));
        let m = parse_any(&pos, "h2e2").unwrap().0;
        let written: Vec<String> = Notation::ALL.iter().map(|&n| format(&pos, m, n)).collect();
        assert_eq!(written, ["h2e2", "C2.5", "炮二平五"]);
        assert_eq!("WXF".parse::<Notation>(), Ok(Notation::Wxf));
        assert!("san".parse::<Notation>().is_err());
    }
}
