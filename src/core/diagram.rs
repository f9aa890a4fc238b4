//! Drawing a position as text: Chinese piece characters on a grid, red and black in ANSI color
//! when asked. The CLI's `qiku show` and the engine's UCI `d` command both print this, so it lives
//! in the core rather than in either of them.

use std::fmt;

use super::position::Position;
use super::square::Square;

const FULLWIDTH_FILES: [char; 9] = ['ａ', 'ｂ', 'ｃ', 'ｄ', 'ｅ', 'ｆ', 'ｇ', 'ｈ', 'ｉ'];

/// A position drawn as text (see [`Position::diagram`]): rank 9 on top, files `a`..`i` below, the
/// river between ranks 5 and 4, then who is to move and the FEN.
///
/// ```
/// let pos = qiku::Position::startpos();
/// let text = pos.diagram().to_string();
/// assert_eq!(text.lines().next(), Some("9 車馬象士將士象馬車"));
/// ```
#[derive(Copy, Clone, Debug)]
pub struct Diagram<'a> {
    pos: &'a Position,
    color: bool,
}

impl<'a> Diagram<'a> {
    /// The plain drawing of `pos`.
    ///
    /// ```
    /// use qiku::{core::Diagram, Position};
    ///
    /// let pos = Position::startpos();
    /// let text = Diagram::new(&pos).to_string();
    /// assert_eq!(text.lines().count(), 14);
    /// assert_eq!(text.lines().nth(10), Some("0 俥傌相仕帥仕相傌俥"));
    /// assert!(text.ends_with(&format!("FEN {}\n", pos.fen())));
    /// ```
    pub fn new(pos: &'a Position) -> Diagram<'a> {
        Diagram { pos, color: false }
    }

    /// With ANSI colors (bold red and blue pieces) when `color` is true, for terminals.
    ///
    /// ```
    /// let pos = qiku::Position::startpos();
    /// let colored = pos.diagram().color(true).to_string();
    /// assert!(colored.contains("\x1b[1;31m帥\x1b[0m")); // red's king in bold red
    /// assert!(!pos.diagram().to_string().contains('\x1b'));
    /// assert_eq!(pos.diagram().color(false).to_string(), pos.diagram().to_string());
    /// ```
    pub fn color(self, color: bool) -> Diagram<'a> {
        Diagram { color, ..self }
    }
}

impl Position {
    /// This position drawn as text with Chinese piece characters (plain; see
    /// [`Diagram::color`]).
    ///
    /// ```
    /// let pos = qiku::Position::from_fen("3k5/9/9/9/3R5/9/9/9/9/4K4 b")?;
    /// let text = pos.diagram().to_string();
    /// assert_eq!(text.lines().nth(4), Some("5 ＋＋＋俥＋＋＋＋＋")); // rank 5, above the river
    /// assert!(text.lines().any(|l| l == "black (將) to move, in check"));
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn diagram(&self) -> Diagram<'_> {
        Diagram::new(self)
    }
}

impl fmt::Display for Diagram<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.pos;
        for rank in (0..10).rev() {
            write!(f, "{rank} ")?;
            for file in 0..9 {
                // Both coordinates are in range by construction of the loops.
                let piece = Square::from_coords(file, rank).and_then(|sq| pos.piece_at(sq));
                match piece {
                    Some(p) if self.color => {
                        let code = p.color.fold("\x1b[1;31m", "\x1b[1;34m");
                        write!(f, "{code}{}\x1b[0m", p.chinese())?;
                    }
                    Some(p) => write!(f, "{}", p.chinese())?,
                    None => f.write_str("＋")?,
                }
            }
            f.write_str("\n")?;
            if rank == 5 {
                f.write_str("  　楚　河　　　漢　界　\n")?;
            }
        }
        f.write_str("  ")?;
        for c in FULLWIDTH_FILES {
            write!(f, "{c}")?;
        }
        f.write_str("\n")?;
        let side = pos.turn().fold("red (帥) to move", "black (將) to move");
        writeln!(f, "{side}{}", if pos.is_check() { ", in check" } else { "" })?;
        writeln!(f, "FEN {}", pos.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_drawing() {
        let text = Position::startpos().diagram().to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "9 車馬象士將士象馬車");
        assert_eq!(lines[5], "  　楚　河　　　漢　界　");
        assert_eq!(lines[10], "0 俥傌相仕帥仕相傌俥");
        assert_eq!(lines[11], "  ａｂｃｄｅｆｇｈｉ");
        assert!(lines[12].starts_with("red (帥) to move"));
        assert_eq!(lines.len(), 14);
    }

    #[test]
    fn color_wraps_each_piece() {
        let text = Position::startpos().diagram().color(true).to_string();
        assert!(text.lines().next().is_some_and(|l| l.starts_with("9 \x1b[1;34m車\x1b[0m")));
        assert!(text.lines().nth(10).is_some_and(|l| l.starts_with("0 \x1b[1;31m俥\x1b[0m")));
    }
}
