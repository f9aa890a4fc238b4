//! Point valuation: for every empty point, the shape a stone of the side to move would make in
//! each direction, a combined value, and black's forbidden points.
//!
//! The value is a heuristic for move choice, not a rule: the sum of per-direction scores, plus
//! bonuses for the combinations that win (two fours, a four and an open three, two open threes).
//! A point forbidden for black is worth nothing to black.

use super::forbid::{self, Forbidden};
use super::line::{self, FiveRule, LineInfo, Pattern};
use super::{Board, Point, Stone, DIRECTIONS, EMPTY};

/// The rules a side plays under.
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
    pub fn five_rule(self, side: Stone) -> FiveRule {
        match (self, side) {
            (Ruleset::Renju, Stone::Black) | (Ruleset::ExactFive, _) => FiveRule::Exact,
            _ => FiveRule::AtLeast,
        }
    }

    /// Does this side have forbidden moves?
    pub fn restricted(self, side: Stone) -> bool {
        self == Ruleset::Renju && side == Stone::Black
    }
}

/// The four line infos a stone of `side` on empty point `p` would have.
pub fn lines(board: &Board, p: Point, side: Stone, rules: Ruleset) -> [LineInfo; 4] {
    let table = line::table(rules.five_rule(side));
    let map = line::cell_map(side.cell());
    DIRECTIONS.map(|d| table[line::window_index(&board.cells, p.cell(), d, &map)])
}

/// Points where a stone of `side` makes a five (for black under renju, an exact five).
pub fn five_points(board: &Board, side: Stone, rules: Ruleset) -> Vec<Point> {
    board.empty_points().filter(|&p| lines(board, p, side, rules).iter().any(|l| l.pattern == Pattern::Five)).collect()
}

/// The points a stone of `side` on `p` would turn into five points (the ends of the fours it
/// makes), sorted and without repeats.
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
pub fn evaluate(board: &Board, side: Stone, rules: Ruleset) -> Vec<PointValue> {
    board.empty_points().map(|p| value_point(board, p, side, rules)).collect()
}
