//! Drawing a position as text: Chinese piece characters on a grid, red and black in colour when
//! asked.

use crate::core::{Color, Position, Square};

const FULLWIDTH_FILES: [char; 9] = ['ａ', 'ｂ', 'ｃ', 'ｄ', 'ｅ', 'ｆ', 'ｇ', 'ｈ', 'ｉ'];

/// The board with rank 9 on top, files `a`..`i` below, the river between ranks 5 and 4, and a
/// line saying who is to move.
pub fn render(pos: &Position, colour: bool) -> String {
    let mut out = String::new();
    for rank in (0..10).rev() {
        out.push_str(&format!("{rank} "));
        for file in 0..9 {
            let sq = Square::from_coords(file, rank).unwrap_or_else(|| unreachable!());
            match pos.piece_at(sq) {
                Some(p) if colour => {
                    let code = p.color.fold("\x1b[1;31m", "\x1b[1;34m");
                    out.push_str(&format!("{code}{}\x1b[0m", p.chinese()));
                }
                Some(p) => out.push(p.chinese()),
                None => out.push('＋'),
            }
        }
        out.push('\n');
        if rank == 5 {
            out.push_str("  　楚　河　　　漢　界　\n");
        }
    }
    out.push_str("  ");
    out.extend(FULLWIDTH_FILES);
    out.push('\n');
    let side = pos.turn().fold("red (帥) to move", "black (將) to move");
    out.push_str(&format!("{side}{}\nFEN {}\n", if pos.is_check() { ", in check" } else { "" }, pos.fen()));
    out
}

/// A side's name as a FEN letter, for compact output.
pub fn side_letter(c: Color) -> char {
    c.fold('w', 'b')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_drawing() {
        let text = render(&Position::startpos(), false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "9 車馬象士將士象馬車");
        assert_eq!(lines[5], "  　楚　河　　　漢　界　");
        assert_eq!(lines[10], "0 俥傌相仕帥仕相傌俥");
        assert!(lines[12].starts_with("red (帥) to move"));
    }
}
