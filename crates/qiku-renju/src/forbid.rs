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
//!
//! ```
//! use qiku_renju::{forbid, Board, Forbidden};
//!
//! // Black f8 g8 and h9 h10: h8 makes two open threes.
//! let board = Board::from_moves("f8 a1 g8 a3 h9 a5 h10 a7")?;
//! assert_eq!(forbid::forbidden(&board, "h8".parse()?), Some(Forbidden::DoubleThree));
//! // With white on e8 instead of a1 the row is a closed three: one open three is allowed.
//! let board = Board::from_moves("f8 e8 g8 a3 h9 a5 h10 a7")?;
//! assert_eq!(forbid::forbidden(&board, "h8".parse()?), None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::line::{self, FiveRule, LineInfo, Pattern, CENTRE, WINDOW};
use super::{Board, Point, BLACK, DIRECTIONS, EMPTY, GRID};
use std::fmt;

/// Why a black move is forbidden. The order is the order of precedence when a move is forbidden
/// in several ways.
///
/// ```
/// use qiku_renju::{Board, Forbidden};
///
/// assert!(Forbidden::Overline < Forbidden::DoubleFour && Forbidden::DoubleFour < Forbidden::DoubleThree);
/// // f8 would make six (c8-h8) and two open threes (with f7 f9, and e7 g9): the overline is reported.
/// let board = Board::from_moves("c8 a1 d8 a3 e8 a5 g8 a7 h8 a9 f7 a11 f9 a13 e7 o1 g9 o3")?;
/// assert_eq!(board.forbidden("f8".parse()?), Some(Forbidden::Overline));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    ///
    /// ```
    /// use qiku_renju::Forbidden;
    ///
    /// assert_eq!(Forbidden::DoubleFour.name(), "double-four");
    /// assert_eq!(Forbidden::Overline.to_string(), Forbidden::Overline.name());
    /// ```
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
///
/// ```
/// use qiku_renju::{forbid, Board, Forbidden};
///
/// // Black d8 f8 h8 j8 (x.x.x.x): g8 makes two fours on one line.
/// let board = Board::from_moves("d8 a1 f8 a3 h8 a5 j8 a7")?;
/// assert_eq!(forbid::forbidden(&board, "g8".parse()?), Some(Forbidden::DoubleFour));
/// assert_eq!(forbid::forbidden(&board, "h8".parse()?), None); // occupied
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use qiku_renju::{forbid, Board, Forbidden};
///
/// // A double three at h8 (f8 g8, h9 h10) and a double four at d12 (a12 c12 e12 g12).
/// let board = Board::from_moves("f8 o1 g8 o3 h9 o5 h10 o7 a12 o9 c12 o11 e12 o13 g12 o15")?;
/// let names: Vec<String> = forbid::forbidden_points(&board).iter().map(|(p, k)| format!("{p} {k}")).collect();
/// assert_eq!(names, ["d12 double-four", "h8 double-three"]); // d12 first: column d comes before h
/// # Ok::<(), qiku_renju::RenjuError>(())
/// ```
pub fn forbidden_points(board: &Board) -> Vec<(Point, Forbidden)> {
    let mut cells = board.cells;
    let mut out: Vec<(Point, Forbidden)> = Point::all()
        .filter(|&p| board.is_empty(p))
        .filter_map(|p| judge_cell(&mut cells, p.cell()).err().map(|k| (p, k)))
        .collect();
    out.sort_by_key(|(p, _)| p.sort_key());
    out
}
