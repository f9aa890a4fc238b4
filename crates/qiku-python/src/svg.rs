//! The board as an SVG picture: the grid with its river and palaces, and each piece as a disc
//! with its Chinese character (red pieces in red, black ones in black). Notebooks show it through
//! `Board._repr_svg_`.

use std::fmt::Write;

use crate::adapter::{Color, Move, Position, Square};

/// The picture at the default width (450 pixels).
pub fn render(pos: &Position, last: Option<Move>) -> String {
    render_sized(pos, last, 450)
}

/// The picture, `width` pixels wide (the height follows the board's proportions).
pub fn render_sized(pos: &Position, last: Option<Move>, width: u32) -> String {
    // Drawing units: 50 per square, a margin of 40 around the grid of 8 x 9 squares.
    let (cell, margin) = (50.0_f64, 40.0_f64);
    let (w, h) = (2.0 * margin + 8.0 * cell, 2.0 * margin + 9.0 * cell);
    let height = (f64::from(width) * h / w).round() as u32;
    let x = |file: usize| margin + cell * file as f64;
    let y = |rank: usize| margin + cell * (9 - rank) as f64;
    let mut s = String::with_capacity(8192);
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{width}" height="{height}"><rect width="{w}" height="{h}" fill="#f2d8a7"/><g stroke="#5a3a1a" stroke-width="1.5">"##
    );
    for rank in 0..10 {
        let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(0), y(rank), x(8), y(rank));
    }
    for file in 0..9 {
        if file == 0 || file == 8 {
            let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(file), y(0), x(file), y(9));
        } else {
            // The river interrupts the inner files.
            let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(file), y(0), x(file), y(4));
            let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(file), y(5), x(file), y(9));
        }
    }
    for (r0, r1) in [(0, 2), (7, 9)] {
        let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(3), y(r0), x(5), y(r1));
        let _ = write!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, x(5), y(r0), x(3), y(r1));
    }
    s.push_str("</g>");
    let river_y = (y(4) + y(5)) / 2.0 + 9.0;
    let _ = write!(
        s,
        r##"<text x="{}" y="{river_y}" font-size="26" text-anchor="middle" fill="#5a3a1a">楚 河</text><text x="{}" y="{river_y}" font-size="26" text-anchor="middle" fill="#5a3a1a">漢 界</text>"##,
        x(2),
        x(6)
    );
    if let Some(m) = last {
        for sq in [m.from(), m.to()] {
            let (cx, cy) = (x(sq.file().index()), y(sq.rank().index()));
            let _ = write!(
                s,
                r##"<rect x="{}" y="{}" width="{cell}" height="{cell}" fill="none" stroke="#2a7de1" stroke-width="3"/>"##,
                cx - cell / 2.0,
                cy - cell / 2.0
            );
        }
    }
    for sq in Square::all() {
        let Some(p) = pos.piece_at(sq) else { continue };
        let (cx, cy) = (x(sq.file().index()), y(sq.rank().index()));
        let color = if p.color == Color::Red { "#c8102e" } else { "#1a1a1a" };
        let _ = write!(
            s,
            r##"<circle cx="{cx}" cy="{cy}" r="22" fill="#fbeed2" stroke="{color}" stroke-width="2.5"/><text x="{cx}" y="{}" font-size="26" text-anchor="middle" fill="{color}">{}</text>"##,
            cy + 9.0,
            p.chinese()
        );
    }
    s.push_str("</svg>");
    s
}
