//! Black's forbidden moves under the RIF rules (International Rules of Renju, section 9).
//!
//! A black move that makes an exact five is allowed and wins, whatever else it makes. Otherwise
//! it is forbidden if it makes an overline, two or more fours (also two on one line), or two or
//! more threes of which at least two are *real*: a three is real if some point completing it to a
//! straight four is itself not forbidden for black once the move is on the board. That last test
//! recurses; it ends because every level adds a stone.
//!
//! Each direction is one lookup in the exact-five [`line`](mod@super::line) table; only when two
//! directions hold open threes does the judge place the stone and look at the completion points.

use super::line::{self, FiveRule, LineInfo, Pattern, CENTRE, WINDOW};
use super::{Board, Point, BLACK, DIRECTIONS, EMPTY, GRID};
use std::fmt;

/// Why a black move is forbidden. The order is the order of precedence when a move is forbidden
/// in several ways.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Forbidden {
    /// Six or more black stones in a row (and no exact five elsewhere).
    Overline,
    /// Two or more fours at once.
    DoubleFour,
    /// Two or more threes at once, at least two of them real.
    DoubleThree,
}

impl Forbidden {
    /// `overline`, `double-four` or `double-three`.
    pub fn name(self) -> &'static str {
        match self {
            Forbidden::Overline => "overline",
            Forbidden::DoubleFour => "double-four",
            Forbidden::DoubleThree => "double-three",
        }
    }
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The four directions' line infos for a black stone on grid cell `c`.
#[inline]
fn black_lines(cells: &[u8; GRID], c: usize) -> [LineInfo; 4] {
    let table = line::table(FiveRule::Exact);
    let map = line::cell_map(BLACK);
    DIRECTIONS.map(|d| table[line::window_index(cells, c, d, &map)])
}

/// The judgement of a black stone on empty grid cell `c`: `Ok(true)` for an exact five,
/// `Err(kind)` when forbidden, `Ok(false)` otherwise. `cells` is restored before returning.
pub(crate) fn judge_cell(cells: &mut [u8; GRID], c: usize) -> Result<bool, Forbidden> {
    let lines = black_lines(cells, c);
    if lines.iter().any(|l| l.pattern == Pattern::Five) {
        return Ok(true);
    }
    if lines.iter().any(|l| l.pattern == Pattern::Overline) {
        return Err(Forbidden::Overline);
    }
    if lines.iter().map(|l| l.fours).sum::<u8>() >= 2 {
        return Err(Forbidden::DoubleFour);
    }
    if lines.iter().filter(|l| l.three_mask != 0).count() < 2 {
        return Ok(false);
    }
    cells[c] = BLACK;
    let mut real = 0;
    for (l, &d) in lines.iter().zip(DIRECTIONS.iter()) {
        if l.three_mask == 0 {
            continue;
        }
        let completable = (0..WINDOW).filter(|&w| w != CENTRE && l.three_mask & (1 << w) != 0).any(|w| {
            let q = line::window_cell(c, d, w);
            cells[q] == EMPTY && judge_cell(cells, q).is_ok()
        });
        if completable {
            real += 1;
            if real >= 2 {
                break;
            }
        }
    }
    cells[c] = EMPTY;
    if real >= 2 {
        Err(Forbidden::DoubleThree)
    } else {
        Ok(false)
    }
}

/// Is black forbidden to play `p` on this board? `None` if `p` is occupied or the move allowed.
pub fn forbidden(board: &Board, p: Point) -> Option<Forbidden> {
    if !board.is_empty(p) {
        return None;
    }
    let c = p.cell();
    // Most points are decided by the four lookups; copy the grid only to recurse.
    let lines = black_lines(&board.cells, c);
    if lines.iter().filter(|l| l.three_mask != 0).count() < 2 {
        if lines.iter().any(|l| l.pattern == Pattern::Five) {
            return None;
        }
        if lines.iter().any(|l| l.pattern == Pattern::Overline) {
            return Some(Forbidden::Overline);
        }
        if lines.iter().map(|l| l.fours).sum::<u8>() >= 2 {
            return Some(Forbidden::DoubleFour);
        }
        return None;
    }
    let mut cells = board.cells;
    judge_cell(&mut cells, c).err()
}

/// Every forbidden point for black, sorted by point name (column, then row).
pub fn forbidden_points(board: &Board) -> Vec<(Point, Forbidden)> {
    let mut cells = board.cells;
    let mut out: Vec<(Point, Forbidden)> = Point::all()
        .filter(|&p| board.is_empty(p))
        .filter_map(|p| judge_cell(&mut cells, p.cell()).err().map(|k| (p, k)))
        .collect();
    out.sort_by_key(|(p, _)| p.sort_key());
    out
}
