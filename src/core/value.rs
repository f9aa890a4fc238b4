//! The values of positions that tables, the engine and every tool report: [`Wdl`] (win, draw or
//! loss for the side to move), [`Dtm`] (distance to mate in plies), [`TbValue`] (both),
//! [`Rules`], the choice of repetition rules under which a value holds, and [`Verdict`], a value
//! with the rules it holds under and what decided it, as every tool prints it.
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
    ///
    /// ```
    /// use qiku::Rules;
    ///
    /// assert_eq!(Rules::Asian.name(), "asian");
    /// assert_eq!(Rules::Plain.name().parse::<Rules>(), Ok(Rules::Plain)); // the name reads back
    /// ```
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
///
/// ```
/// use qiku::Wdl;
///
/// assert!(Wdl::Loss < Wdl::Draw && Wdl::Draw < Wdl::Win); // ordered for the side to move
/// // Positions after each move are valued for the opponent: the best move leaves it the worst one.
/// let after_each_move = [Wdl::Draw, Wdl::Loss, Wdl::Win];
/// assert_eq!(after_each_move.iter().map(|w| w.flip()).max(), Some(Wdl::Win));
/// ```
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
    ///
    /// ```
    /// use qiku::Wdl;
    ///
    /// assert_eq!([Wdl::Loss, Wdl::Draw, Wdl::Win].map(Wdl::name), ["loss", "draw", "win"]);
    /// assert_eq!(Wdl::Win.to_string(), Wdl::Win.name());
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
    /// The same result seen by the other side.
    ///
    /// ```
    /// use qiku::Wdl;
    ///
    /// assert_eq!(Wdl::Loss.flip(), Wdl::Win);
    /// assert_eq!(Wdl::Draw.flip(), Wdl::Draw);
    /// assert!([Wdl::Loss, Wdl::Draw, Wdl::Win].iter().all(|w| w.flip().flip() == *w));
    /// ```
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
    ///
    /// ```
    /// use qiku::{Dtm, TbValue, Wdl};
    ///
    /// let mated_in_6 = TbValue { wdl: Wdl::Loss, dtm: Dtm(-6) };
    /// assert_eq!(mated_in_6.dtm.plies(), 6);
    /// assert_eq!(TbValue::DRAW.dtm.plies(), 0);
    /// ```
    pub fn plies(self) -> u32 {
        self.0.unsigned_abs()
    }

    /// The distance as text, unsigned, in the unit every qiku tool states: `"1 ply"`,
    /// `"5 plies"`.
    ///
    /// ```
    /// use qiku::Dtm;
    ///
    /// assert_eq!(Dtm(1).in_plies(), "1 ply");
    /// assert_eq!(Dtm(-6).in_plies(), "6 plies");
    /// ```
    pub fn in_plies(self) -> String {
        match self.plies() {
            1 => "1 ply".to_string(),
            n => format!("{n} plies"),
        }
    }
}

/// The full result of an entry.
///
/// ```
/// use qiku::{Dtm, TbValue, Wdl};
///
/// let v = TbValue { wdl: Wdl::Win, dtm: Dtm(5) }; // the side to move mates in 5 plies
/// assert_eq!((v.wdl.name(), v.dtm.in_plies()), ("win", "5 plies".to_string()));
/// assert_eq!(v.before_move(), TbValue { wdl: Wdl::Loss, dtm: Dtm(-6) }); // the move before, seen by its mover
/// ```
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
    ///
    /// ```
    /// use qiku::{Dtm, TbValue, Wdl};
    ///
    /// let mated = TbValue { wdl: Wdl::Loss, dtm: Dtm(0) }; // no legal move
    /// assert_eq!(mated.before_move(), TbValue { wdl: Wdl::Win, dtm: Dtm(1) }); // the mating move
    /// assert_eq!(mated.before_move().before_move(), TbValue { wdl: Wdl::Loss, dtm: Dtm(-2) });
    /// assert_eq!(TbValue::DRAW.before_move(), TbValue::DRAW);
    /// ```
    pub fn before_move(self) -> TbValue {
        match self.wdl {
            Wdl::Draw => TbValue::DRAW,
            Wdl::Win => TbValue { wdl: Wdl::Loss, dtm: Dtm(-(self.dtm.plies() as i32 + 1)) },
            Wdl::Loss => TbValue { wdl: Wdl::Win, dtm: Dtm(self.dtm.plies() as i32 + 1) },
        }
    }

    /// Sort key: higher is better for the side to move (faster wins, slower losses).
    ///
    /// ```
    /// use qiku::{Dtm, TbValue, Wdl};
    ///
    /// let win = |n| TbValue { wdl: Wdl::Win, dtm: Dtm(n) };
    /// let loss = |n: i32| TbValue { wdl: Wdl::Loss, dtm: Dtm(-n) };
    /// let mut values = [loss(2), win(9), TbValue::DRAW, win(3), loss(8)];
    /// values.sort_by_key(|v| std::cmp::Reverse(v.goodness())); // best first
    /// assert_eq!(values, [win(3), win(9), TbValue::DRAW, loss(8), loss(2)]);
    /// ```
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
            Wdl::Win => write!(f, "win, mate in {}", self.dtm.in_plies()),
            Wdl::Loss if self.dtm.0 == 0 => f.write_str("loss, no legal move"),
            Wdl::Loss => write!(f, "loss, mated in {}", self.dtm.in_plies()),
        }
    }
}

/// A table's verdict on a position: its value, the rules it holds under, and whether only those
/// rules decide it. Its text is what every tool prints (`qiku-tb probe`, `qiku probe --tb`, the
/// engine's `info string`), so that one position gets one answer, always naming the rules and
/// the unit of its distance.
///
/// A value decided by the perpetual-check rule (`by_rule`) is a draw without the rule; its
/// distance is then the rank of the winning line in the table (follow the table's best moves),
/// not a number of plies to mate.
///
/// ```
/// use qiku::{Dtm, Rules, TbValue, Verdict, Wdl};
///
/// let mate = Verdict { value: TbValue { wdl: Wdl::Loss, dtm: Dtm(-30) }, rules: Rules::Asian, by_rule: false };
/// assert_eq!(mate.to_string(), "loss, mated in 30 plies (asian rules)");
/// let ruled = Verdict { by_rule: true, ..mate };
/// assert_eq!(
///     ruled.to_string(),
///     "loss by the perpetual-check rule: the side to move can only check forever (line rank 30, not plies to mate; asian rules)"
/// );
/// assert_eq!((mate.unit(), ruled.unit()), ("plies", "line rank"));
/// let draw = Verdict { value: TbValue::DRAW, rules: Rules::Plain, by_rule: false };
/// assert_eq!(draw.to_string(), "draw (plain rules)");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// The value for the side to move (for `by_rule`, the distance is a line rank).
    pub value: TbValue,
    /// The rules the value holds under.
    pub rules: Rules,
    /// Only the repetition rules decide it: without them it is a draw.
    pub by_rule: bool,
}

impl Verdict {
    /// The unit of `value.dtm`: `"plies"` (to mate), or `"line rank"` for a value the rules decide.
    ///
    /// ```
    /// use qiku::{Dtm, Rules, TbValue, Verdict, Wdl};
    ///
    /// let v = Verdict { value: TbValue { wdl: Wdl::Win, dtm: Dtm(11) }, rules: Rules::Asian, by_rule: false };
    /// assert_eq!(v.unit(), "plies");
    /// assert_eq!(Verdict { by_rule: true, ..v }.unit(), "line rank");
    /// ```
    pub fn unit(&self) -> &'static str {
        if self.by_rule {
            "line rank"
        } else {
            "plies"
        }
    }

    /// The verdict for the player who made a move into a position of this verdict (see
    /// [`TbValue::before_move`]): the same rules, decided the same way.
    ///
    /// ```
    /// use qiku::{Dtm, Rules, TbValue, Verdict, Wdl};
    ///
    /// let v = Verdict { value: TbValue { wdl: Wdl::Loss, dtm: Dtm(-4) }, rules: Rules::Asian, by_rule: true };
    /// assert_eq!(v.before_move(), Verdict { value: TbValue { wdl: Wdl::Win, dtm: Dtm(5) }, ..v });
    /// ```
    pub fn before_move(self) -> Verdict {
        Verdict { value: self.value.before_move(), ..self }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules = self.rules.name();
        if self.by_rule && self.value.wdl != Wdl::Draw {
            let (word, who) =
                if self.value.wdl == Wdl::Win { ("win", "the opponent") } else { ("loss", "the side to move") };
            return write!(
                f,
                "{word} by the perpetual-check rule: {who} can only check forever (line rank {}, not plies to mate; {rules} rules)",
                self.value.dtm.plies()
            );
        }
        write!(f, "{} ({rules} rules)", self.value)
    }
}
