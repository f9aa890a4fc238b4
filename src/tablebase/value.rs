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
///
/// ```
/// use qiku::tablebase::format::{code, dtm_of, MAX_DTM_U16};
///
/// assert_eq!(code(0), 2); // lost: no legal move
/// assert_eq!(code(7), 9); // won in 7 plies
/// assert_eq!(dtm_of(code(MAX_DTM_U16)), Some(MAX_DTM_U16));
/// ```
#[inline]
pub const fn code(dtm: u16) -> u16 {
    dtm + 2
}

/// The distance of a decided code, `None` for draws and illegal entries.
///
/// ```
/// use qiku::tablebase::format::{code, dtm_of, DRAW, ILLEGAL};
///
/// assert_eq!(dtm_of(code(12)), Some(12)); // even: lost in 12 plies
/// assert_eq!((dtm_of(DRAW), dtm_of(ILLEGAL)), (None, None));
/// ```
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
    /// Longest distance among this side's wins or losses: plies to mate in a plain table; in a
    /// rule-aware one (a `.qtr` companion's counts) the largest of the plies to mate and the
    /// line ranks of the values only the rules decide, two units in one number that
    /// [`highest_line_rank`] tells apart.
    pub max_dtm: u64,
}

/// The highest line rank of one side to move's values that only the Asian rules decide, from
/// its plain counts and its rule-aware counts (the same table with its `.qtr` companion).
///
/// A rule-aware table's `max_dtm` mixes units: the mates are the plain table's (the rules change
/// only draws), in plies, and the values the rules decide carry a line rank, not plies. So the
/// longest mate is always `plain.max_dtm`, and the rule-aware `max_dtm` is a line rank only when
/// the rules decide some position and it is above the longest mate: then this is `Some(rank)`.
/// `None` when the rules decide nothing for this side, and when no rank is above the longest
/// mate (the counts do not say the highest rank then). `qiku-tb stats --json` reports the two
/// as `longest_mate_plies` and `highest_line_rank`, and so does the explorer server's
/// `/api/tables/{material}`.
///
/// ```
/// use qiku::tablebase::{highest_line_rank, Counts};
///
/// let plain = Counts { legal: 100, wins: 60, draws: 40, losses: 0, no_moves: 0, max_dtm: 25 };
/// // The rules decide 10 of the draws; the largest distance stored is then a line rank.
/// let rules = Counts { wins: 70, draws: 30, max_dtm: 29, ..plain };
/// assert_eq!(highest_line_rank(&plain, &rules), Some(29));
/// // Ranks no higher than the longest mate: the counts cannot tell the highest one.
/// assert_eq!(highest_line_rank(&plain, &Counts { max_dtm: 25, ..rules }), None);
/// // Nothing decided by the rules (or the plain counts twice): no rank.
/// assert_eq!(highest_line_rank(&plain, &plain), None);
/// ```
pub fn highest_line_rank(plain: &Counts, rule: &Counts) -> Option<u64> {
    // The rules turn draws into wins and losses only: fewer draws is a position they decide.
    (rule.draws < plain.draws && rule.max_dtm > plain.max_dtm).then_some(rule.max_dtm)
}
