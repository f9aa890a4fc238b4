//! The integer codes stored per entry (in memory as `u16`, in files as 1 or 2 bytes), how they
//! read as the crate's [`TbValue`]s, and the [`Counts`] of a table.
//!
//! Code `0` is a draw (also "not yet settled" during generation), `1` an illegal placement,
//! `2 + d` a decided entry with distance to mate `d` plies: `d` odd is a win for the side to move,
//! `d` even a loss (`d = 0`: no legal move). The top 16 codes of each width (`0xF0..=0xFF`,
//! `0xFFF0..=0xFFFF`) are reserved for a future rule-aware metric (results that depend on
//! perpetual-check or chasing rules); this metric never writes them.

/// Code of a draw (undecided entries end as draws).
pub const DRAW: u16 = 0;
/// Code of an illegal placement.
pub const ILLEGAL: u16 = 1;
/// Largest distance storable with 1-byte codes (`0xEF - 2`).
pub const MAX_DTM_U8: u16 = 0xEF - 2;
/// Largest distance storable with 2-byte codes.
pub const MAX_DTM_U16: u16 = 0xFFEF - 2;

/// The code of a decided entry `dtm` plies from mate.
#[inline]
pub const fn code(dtm: u16) -> u16 {
    dtm + 2
}

/// The distance of a decided code, `None` for draws and illegal entries.
#[inline]
pub const fn dtm_of(code: u16) -> Option<u16> {
    if code >= 2 {
        Some(code - 2)
    } else {
        None
    }
}

pub use crate::core::value::{Dtm, Rules, TbValue, Verdict, Wdl};

/// Reading a [`TbValue`] from a stored code (the code scheme is the table files', not the
/// value's business, so this lives here rather than on the type).
pub(crate) trait FromCode: Sized {
    /// The value of a stored code; `None` for an illegal entry or a reserved code.
    fn from_code(code: u16) -> Option<Self>;
}

impl FromCode for TbValue {
    /// The value of a stored code; `None` for an illegal entry or a reserved code.
    fn from_code(code: u16) -> Option<TbValue> {
        match dtm_of(code) {
            None if code == DRAW => Some(TbValue::DRAW),
            None => None,
            Some(d) if d > MAX_DTM_U16 => None,
            Some(d) if d % 2 == 1 => Some(TbValue { wdl: Wdl::Win, dtm: Dtm(d as i32) }),
            Some(d) => Some(TbValue { wdl: Wdl::Loss, dtm: Dtm(-(d as i32)) }),
        }
    }
}

/// Counts of one side to move, every legal position once: mirror images apart, identical pieces
/// unordered.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Counts {
    /// Legal positions.
    pub legal: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// Checkmated or stalemated (lost in 0).
    pub no_moves: u64,
    /// Longest distance among this side's wins or losses, in plies.
    pub max_dtm: u64,
}
