//! The values of positions that tables, the engine and every tool report: [`Wdl`] (win, draw or
//! loss for the side to move), [`Dtm`] (distance to mate in plies), [`TbValue`] (both), and
//! [`Rules`], the choice of repetition rules under which a value holds.
//!
//! They live here, beside the rules of the game, so that the tables (`tablebase`), the engine and
//! every front end speak of a position's value in one vocabulary.
//!
//! ```
//! use qiku::{Dtm, TbValue, Wdl};
//!
//! // The side to move mates in 5 plies; one ply earlier, the other side is mated in 6.
//! let v = TbValue { wdl: Wdl::Win, dtm: Dtm(5) };
//! assert_eq!(v.to_string(), "win, mate in 5 plies");
//! let before = v.before_move();
//! assert_eq!((before.wdl, before.dtm.plies()), (Wdl::Loss, 6));
//! assert!(v.goodness() > TbValue::DRAW.goodness());
//! assert_eq!(Wdl::Win.flip(), Wdl::Loss);
//! assert_eq!("asian".parse::<qiku::Rules>(), Ok(qiku::Rules::Asian));
//! ```

use std::fmt;

/// Which repetition rules a probe applies.
///
/// ```
/// use qiku::Rules;
///
/// assert_eq!(Rules::default(), Rules::Asian);
/// assert_eq!("AXF".parse::<Rules>(), Ok(Rules::Asian));
/// assert_eq!("none".parse::<Rules>().map(Rules::name), Ok("plain"));
/// assert!("chess".parse::<Rules>().unwrap_err().contains("plain or asian"));
/// ```
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
///
/// ```
/// use qiku::Dtm;
///
/// assert_eq!(Dtm(7).plies(), 7);
/// assert_eq!(Dtm(-4).plies(), 4); // the sign belongs to the Wdl
/// ```
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
