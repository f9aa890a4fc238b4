//! Point valuation: for every empty point, the shape a stone of the side to move would make in
//! each direction, a combined value, and black's forbidden points.
//!
//! The value is a heuristic for move choice, not a rule: the sum of per-direction scores, plus
//! bonuses for the combinations that win (two fours, a four and an open three, two open threes).
//! A point forbidden for black is worth nothing to black.
//!
//! ```
//! use qiku_renju::eval::{evaluate, Ruleset};
//! use qiku_renju::{Board, Stone};
//!
//! // Black h8 i8 j8 (an open three), white h9 i9: black's best points make the straight four.
//! let board = Board::from_moves("h8 h9 i8 i9 j8")?;
//! let values = evaluate(&board, Stone::Black, Ruleset::Renju);
//! let best = values.iter().map(|v| v.value).max().unwrap_or(0);
//! let mut points: Vec<String> = values.iter().filter(|v| v.value == best).map(|v| v.point.to_string()).collect();
//! points.sort();
//! assert_eq!(points, ["g8", "k8"]);
//! # Ok::<(), qiku_renju::RenjuError>(())
//! ```

use super::forbid::{self, Forbidden};
use super::line::{self, FiveRule, LineInfo, Pattern};
use super::{Board, Point, Stone, DIRECTIONS, EMPTY};

/// The rules a side plays under.
///
/// ```
/// use qiku_renju::eval::{five_points, Ruleset};
/// use qiku_renju::{Board, Stone};
///
/// // Black c8 d8 e8 f8 . h8, white b8: g8 makes six, which wins only in freestyle.
/// let board = Board::from_moves("c8 b8 d8 a1 e8 a3 f8 a5 h8")?;
/// assert_eq!(five_points(&board, Stone::Black, Ruleset::Renju), []);
/// assert_eq!(five_points(&board, Stone::Black, Ruleset::ExactFive), []);
/// assert_eq!(five_points(&board, Stone::Black, Ruleset::Freestyle), ["g8".parse()?]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ruleset {
    /// RIF renju: black needs an exact five and has forbidden moves.
    Renju,
    /// Freestyle gomoku: five or more wins for both, nothing is forbidden.
    Freestyle,
    /// Standard gomoku (Gomocup's `INFO rule 1`): exactly five wins for both, an overline does
    /// not, nothing is forbidden.
    ExactFive,
}

impl Ruleset {
    /// The five rule that applies to a side.
    ///
    /// ```
    /// use qiku_renju::eval::Ruleset;
    /// use qiku_renju::line::FiveRule;
    /// use qiku_renju::Stone;
    ///
    /// assert_eq!(Ruleset::Renju.five_rule(Stone::Black), FiveRule::Exact);
    /// assert_eq!(Ruleset::Renju.five_rule(Stone::White), FiveRule::AtLeast);
    /// assert_eq!(Ruleset::ExactFive.five_rule(Stone::White), FiveRule::Exact);
    /// assert_eq!(Ruleset::Freestyle.five_rule(Stone::Black), FiveRule::AtLeast);
    /// ```
    pub fn five_rule(self, side: Stone) -> FiveRule {
        match (self, side) {
            (Ruleset::Renju, Stone::Black) | (Ruleset::ExactFive, _) => FiveRule::Exact,
            _ => FiveRule::AtLeast,
        }
    }

    /// Does this side have forbidden moves?
    ///
    /// ```
    /// use qiku_renju::eval::Ruleset;
    /// use qiku_renju::Stone;
    ///
    /// assert!(Ruleset::Renju.restricted(Stone::Black));
    /// assert!(!Ruleset::Renju.restricted(Stone::White));
    /// assert!(!Ruleset::ExactFive.restricted(Stone::Black) && !Ruleset::Freestyle.restricted(Stone::Black));
    /// ```
    pub fn restricted(self, side: Stone) -> bool {
        self == Ruleset::Renju && side == Stone::Black
    }
}

/// The four line infos a stone of `side` on empty point `p` would have.
///
/// ```
/// use qiku_renju::eval::{lines, Ruleset};
/// use qiku_renju::line::Pattern;
/// use qiku_renju::{Board, Stone};
///
/// let board = Board::from_moves("h8 h9 i8 i9 j8")?;
/// let infos = lines(&board, "k8".parse()?, Stone::Black, Ruleset::Renju);
/// // Horizontal first, as in `DIRECTION_NAMES`.
/// assert_eq!(infos.map(|l| l.pattern), [Pattern::StraightFour, Pattern::None, Pattern::None, Pattern::None]);
/// assert_eq!(infos[0].fours, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lines(board: &Board, p: Point, side: Stone, rules: Ruleset) -> [LineInfo; 4] {
    let table = line::table(rules.five_rule(side));
    let map = line::cell_map(side.cell());
    DIRECTIONS.map(|d| table[line::window_index(&board.cells, p.cell(), d, &map)])
}

/// Points where a stone of `side` makes a five (for black under renju, an exact five).
///
/// ```
/// use qiku_renju::eval::{five_points, Ruleset};
/// use qiku_renju::{Board, Stone};
///
/// // Black h8 i8 j8 k8 is an open four: g8 and l8 both make five.
/// let board = Board::from_moves("h8 a1 i8 a3 j8 a5 k8")?;
/// assert_eq!(five_points(&board, Stone::Black, Ruleset::Renju), ["g8".parse()?, "l8".parse()?]);
/// assert_eq!(five_points(&board, Stone::White, Ruleset::Renju), []);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn five_points(board: &Board, side: Stone, rules: Ruleset) -> Vec<Point> {
    board.empty_points().filter(|&p| lines(board, p, side, rules).iter().any(|l| l.pattern == Pattern::Five)).collect()
}

/// The points a stone of `side` on `p` would turn into five points (the ends of the fours it
/// makes), sorted and without repeats.
///
/// ```
/// use qiku_renju::eval::{four_targets, lines, Ruleset};
/// use qiku_renju::{Board, Point, Stone};
///
/// // Black k8 next to h8 i8 j8 makes a straight four, open at g8 and l8.
/// let board = Board::from_moves("h8 h9 i8 i9 j8")?;
/// let k8: Point = "k8".parse()?;
/// let infos = lines(&board, k8, Stone::Black, Ruleset::Renju);
/// assert_eq!(four_targets(&board, k8, &infos), ["g8".parse()?, "l8".parse()?]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn four_targets(board: &Board, p: Point, infos: &[LineInfo; 4]) -> Vec<Point> {
    let mut out = Vec::new();
    for (l, &d) in infos.iter().zip(DIRECTIONS.iter()) {
        for w in 0..line::WINDOW {
            if l.five_mask & (1 << w) != 0 {
                if let Some(q) = Point::from_cell(line::window_cell(p.cell(), d, w)) {
                    if board.cells[q.cell()] == EMPTY && !out.contains(&q) {
                        out.push(q);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

fn direction_score(p: Pattern) -> i32 {
    match p {
        Pattern::Five => 1_000_000,
        Pattern::Overline => 0,
        Pattern::DoubleFour | Pattern::StraightFour => 100_000,
        Pattern::Four => 1_000,
        Pattern::OpenThree => 800,
        Pattern::Three => 120,
        Pattern::OpenTwo => 100,
        Pattern::Two => 15,
        Pattern::None => 0,
    }
}

/// The combined value of a stone of some side on a point, from its four line infos.
///
/// ```
/// use qiku_renju::eval::{combine, lines, Ruleset};
/// use qiku_renju::{Board, Stone};
///
/// // Next to black h8 i8 j8 (white h9 i9), k8 makes a straight four, l8 only a four.
/// let board = Board::from_moves("h8 h9 i8 i9 j8")?;
/// let value = |p: &str| -> Result<i32, qiku_renju::PointError> {
///     Ok(combine(&lines(&board, p.parse()?, Stone::Black, Ruleset::Renju)))
/// };
/// assert!(value("k8")? > value("l8")? && value("l8")? > value("o1")?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn combine(infos: &[LineInfo; 4]) -> i32 {
    let mut value: i32 = infos.iter().map(|l| direction_score(l.pattern)).sum();
    let fours: u8 = infos.iter().map(|l| l.fours).sum();
    let threes = infos.iter().filter(|l| l.pattern == Pattern::OpenThree).count();
    if fours >= 2 {
        value += 100_000;
    } else if fours == 1 && threes >= 1 {
        value += 20_000;
    } else if threes >= 2 {
        value += 8_000;
    }
    value
}

/// The valuation of one empty point for one side.
///
/// ```
/// use qiku_renju::eval::{value_point, Ruleset};
/// use qiku_renju::line::Pattern;
/// use qiku_renju::{Board, Forbidden, Stone};
///
/// // h8 is a double three for black (f8 g8, h9 h10): marked, and worth nothing to black.
/// let board = Board::from_moves("f8 a1 g8 a3 h9 a5 h10 a7")?;
/// let black = value_point(&board, "h8".parse()?, Stone::Black, Ruleset::Renju);
/// assert_eq!((black.forbidden, black.value), (Some(Forbidden::DoubleThree), 0));
/// assert_eq!(black.patterns, [Pattern::OpenThree, Pattern::OpenThree, Pattern::None, Pattern::None]);
/// // Under freestyle rules nothing is forbidden.
/// let free = value_point(&board, "h8".parse()?, Stone::Black, Ruleset::Freestyle);
/// assert!(free.forbidden.is_none() && free.value > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointValue {
    /// The point.
    pub point: Point,
    /// The shape in each direction (order of [`super::DIRECTION_NAMES`]).
    pub patterns: [Pattern; 4],
    /// Fours made, over all directions.
    pub fours: u8,
    /// The combined value (0 on a point forbidden to the side).
    pub value: i32,
    /// Why black may not play here, when the side is black under renju rules.
    pub forbidden: Option<Forbidden>,
}

/// Values one empty point for `side`.
///
/// ```
/// use qiku_renju::eval::{value_point, Ruleset};
/// use qiku_renju::line::Pattern;
/// use qiku_renju::{Board, Stone};
///
/// let board = Board::from_moves("h8 h9 i8 i9 j8")?;
/// let v = value_point(&board, "l8".parse()?, Stone::Black, Ruleset::Renju);
/// assert_eq!((v.patterns[0], v.fours, v.forbidden), (Pattern::Four, 1, None)); // h8 i8 j8 . l8
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn value_point(board: &Board, p: Point, side: Stone, rules: Ruleset) -> PointValue {
    let infos = lines(board, p, side, rules);
    let forbidden = if rules.restricted(side) { forbid::forbidden(board, p) } else { None };
    let value = if forbidden.is_some() { 0 } else { combine(&infos) };
    PointValue {
        point: p,
        patterns: infos.map(|l| l.pattern),
        fours: infos.iter().map(|l| l.fours).sum(),
        value,
        forbidden,
    }
}

/// Values every empty point for `side`, in index order.
///
/// ```
/// use qiku_renju::eval::{evaluate, Ruleset};
/// use qiku_renju::{Board, Stone};
///
/// let board = Board::from_moves("h8 h9 i8")?;
/// let values = evaluate(&board, Stone::White, Ruleset::Renju);
/// assert_eq!(values.len(), 225 - 3);
/// assert_eq!(values[0].point.to_string(), "a1");
/// # Ok::<(), qiku_renju::RenjuError>(())
/// ```
pub fn evaluate(board: &Board, side: Stone, rules: Ruleset) -> Vec<PointValue> {
    board.empty_points().map(|p| value_point(board, p, side, rules)).collect()
}
