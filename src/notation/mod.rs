//! Move notations, each parsed against a position (so that a move is resolved to one legal
//! [`Move`](crate::Move)) and formatted from one:
//! - [`iccs`]: coordinates, `h2e2` or `H2-E2`.

pub mod iccs;

use crate::core::Move;
use std::fmt;

/// Why a move token could not be read in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a move in this notation.
    Syntax { token: String, reason: &'static str },
    /// It names a piece that is not there.
    NoSuchPiece { token: String },
    /// It is well-formed but names no legal move here.
    Illegal { token: String },
    /// It fits more than one legal move.
    Ambiguous { token: String, candidates: Vec<Move> },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Syntax { token, reason } => write!(f, "cannot read move {token:?}: {reason}"),
            NotationError::NoSuchPiece { token } => write!(f, "move {token:?}: no such piece in this position"),
            NotationError::Illegal { token } => write!(f, "move {token:?} is illegal in this position"),
            NotationError::Ambiguous { token, candidates } => {
                write!(f, "move {token:?} is ambiguous: it fits")?;
                for m in candidates {
                    write!(f, " {m}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for NotationError {}

impl NotationError {
    /// A short machine-readable reason, for counting errors by kind.
    pub fn kind(&self) -> &'static str {
        match self {
            NotationError::Syntax { .. } => "syntax",
            NotationError::NoSuchPiece { .. } => "no-such-piece",
            NotationError::Illegal { .. } => "illegal",
            NotationError::Ambiguous { .. } => "ambiguous",
        }
    }
}
