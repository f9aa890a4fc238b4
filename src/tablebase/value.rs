//! Values: the public [`Wdl`] / [`Dtm`] / [`TbValue`] types and the integer codes stored per
//! entry (in memory as `u16`, in files as 1 or 2 bytes).
//!
//! Code `0` is a draw (also "not yet settled" during generation), `1` an illegal placement,
//! `2 + d` a decided entry with distance to mate `d` plies: `d` odd is a win for the side to move,
//! `d` even a loss (`d = 0`: no legal move). The top 16 codes of each width (`0xF0..=0xFF`,
//! `0xFFF0..=0xFFFF`) are reserved for a future rule-aware metric (results that depend on
//! perpetual-check or chasing rules); this metric never writes them.

use std::fmt;

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

/// Which repetition rules a probe applies.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Rules {
    /// No repetition rule: every cycle is a draw (the `.qtb` file alone).
    Plain,
    /// The Asian (AXF) rules: a side that checks perpetually loses (the `.qtr` companion).
    #[default]
    Asian,
}

impl Rules {
    /// `plain` or `asian`.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Plain => "plain",
            Rules::Asian => "asian",
        }
    }
}

impl std::str::FromStr for Rules {
    type Err = String;
    fn from_str(s: &str) -> Result<Rules, String> {
        match s.to_ascii_lowercase().as_str() {
            "plain" | "none" => Ok(Rules::Plain),
            "asian" | "axf" => Ok(Rules::Asian),
            _ => Err(format!("unknown rules `{s}` (plain or asian)")),
        }
    }
}

/// Win, draw or loss for the side to move, with best play and no repetition rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
    /// The same result seen by the other side.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Distance to mate in plies, signed for the side to move: positive = it wins in that many plies,
/// negative = it is mated in that many, 0 = draw or mated now (see [`TbValue::wdl`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Dtm(pub i32);

impl Dtm {
    /// Plies to mate, unsigned.
    pub fn plies(self) -> u32 {
        self.0.unsigned_abs()
    }
}

/// The full result of an entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TbValue {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Distance to mate.
    pub dtm: Dtm,
}

impl TbValue {
    /// A draw.
    pub const DRAW: TbValue = TbValue { wdl: Wdl::Draw, dtm: Dtm(0) };

    /// The value of a stored code; `None` for an illegal entry or a reserved code.
    pub fn from_code(code: u16) -> Option<TbValue> {
        match dtm_of(code) {
            None if code == DRAW => Some(TbValue::DRAW),
            None => None,
            Some(d) if d > MAX_DTM_U16 => None,
            Some(d) if d % 2 == 1 => Some(TbValue { wdl: Wdl::Win, dtm: Dtm(d as i32) }),
            Some(d) => Some(TbValue { wdl: Wdl::Loss, dtm: Dtm(-(d as i32)) }),
        }
    }

    /// The value for the player who made a move into a position of value `self`: one ply
    /// further, seen from the other side.
    pub fn before_move(self) -> TbValue {
        match self.wdl {
            Wdl::Draw => TbValue::DRAW,
            Wdl::Win => TbValue { wdl: Wdl::Loss, dtm: Dtm(-(self.dtm.plies() as i32 + 1)) },
            Wdl::Loss => TbValue { wdl: Wdl::Win, dtm: Dtm(self.dtm.plies() as i32 + 1) },
        }
    }

    /// Sort key: higher is better for the side to move (faster wins, slower losses).
    pub fn goodness(self) -> i64 {
        match self.wdl {
            Wdl::Win => 1_000_000 - self.dtm.plies() as i64,
            Wdl::Draw => 0,
            Wdl::Loss => -1_000_000 + self.dtm.plies() as i64,
        }
    }
}

impl fmt::Display for TbValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.wdl {
            Wdl::Draw => f.write_str("draw"),
            Wdl::Win => write!(f, "win, mate in {} plies", self.dtm.plies()),
            Wdl::Loss if self.dtm.0 == 0 => f.write_str("loss, no legal move"),
            Wdl::Loss => write!(f, "loss, mated in {} plies", self.dtm.plies()),
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
