//! Writing match games as PGN: the seven-tag roster (with `Red`/`Black` for the players), `FEN`
//! when a game does not start from the standard position, `Format "ICCS"`, and ICCS movetext in
//! the dashed form (`1. H2-E2 H9-G7`) that Xiangqi game collections use. The match's file is
//! written by [`super::pgn_out`].

use qiku::core::{Color, Move, Position, START_FEN};
use qiku::notation::iccs;
use std::fmt::Write as _;

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// PGN `Event`.
    pub event: String,
    /// PGN `Site`.
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    /// PGN `Round`.
    pub round: String,
    /// Red's name.
    pub red: String,
    /// Black's name.
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The start position (a `FEN` tag when not the standard one).
    pub start_fen: String,
    /// The moves.
    pub moves: Vec<Move>,
    /// Why the game ended (PGN `Termination`), and extra tags in order.
    pub termination: String,
    /// Further tags, written in this order.
    pub extra_tags: Vec<(String, String)>,
    /// A comment after each move (same length as `moves`, or empty).
    pub comments: Vec<String>,
}

/// A tag value as PGN writes it: backslashes and quotes escaped, and control characters (NUL,
/// line breaks, tabs: what an engine's `id name` may hold) turned into spaces, which PGN
/// readers, this crate's among them, would refuse or misread.
fn escape(s: &str) -> String {
    let s: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A move comment's text: the brace that would end it early becomes `)`, and control characters
/// spaces, as in tag values.
fn comment_text(c: &str) -> String {
    c.chars()
        .map(|c| {
            if c.is_control() {
                ' '
            } else if c == '}' {
                ')'
            } else {
                c
            }
        })
        .collect()
}

impl PgnGame {
    /// The game as PGN text, ending with a blank line.
    pub fn to_pgn(&self) -> String {
        let mut out = String::new();
        let mut tag = |name: &str, value: &str| {
            let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
        };
        tag("Event", &self.event);
        tag("Site", &self.site);
        tag("Date", &self.date);
        tag("Round", &self.round);
        tag("Red", &self.red);
        tag("Black", &self.black);
        tag("Result", &self.result);
        if self.start_fen != START_FEN {
            tag("FEN", &self.start_fen);
        }
        tag("Format", "ICCS");
        tag("Termination", &self.termination);
        tag("PlyCount", &self.moves.len().to_string());
        for (k, v) in &self.extra_tags {
            tag(k, v);
        }
        out.push('\n');
        let (mut number, mut turn) = match Position::from_fen(&self.start_fen) {
            Ok(p) => (p.fullmoves(), p.turn()),
            Err(_) => (1, Color::Red),
        };
        let mut words: Vec<String> = Vec::new();
        for (i, &m) in self.moves.iter().enumerate() {
            if turn == Color::Red {
                words.push(format!("{number}."));
            } else if i == 0 {
                words.push(format!("{number}..."));
            }
            words.push(iccs::format_dashed(m));
            if let Some(c) = self.comments.get(i).filter(|c| !c.is_empty()) {
                words.push(format!("{{{}}}", comment_text(c)));
            }
            if turn == Color::Black {
                number += 1;
            }
            turn = !turn;
        }
        words.push(self.result.clone());
        // Wrap at 80 columns.
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > 80 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }
}

/// Today's date as `YYYY.MM.DD` (UTC), from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetext_and_tags() {
        let pos = Position::startpos();
        let m1 = iccs::parse(&pos, "h2e2").unwrap();
        let m2 = iccs::parse(&pos.play_unchecked(m1), "h9g7").unwrap();
        let g = PgnGame {
            event: "qiku match".into(),
            site: "?".into(),
            date: "2025.01.02".into(),
            round: "3".into(),
            red: "qiku".into(),
            black: "Fairy \"FSF\"".into(),
            result: "1/2-1/2".into(),
            start_fen: START_FEN.into(),
            moves: vec![m1, m2],
            termination: "adjudication: move limit".into(),
            extra_tags: vec![("TimeControl".into(), "movetime 100 ms".into())],
            comments: vec!["+0.25/9".into(), String::new()],
        };
        let text = g.to_pgn();
        assert!(text.starts_with("[Event \"qiku match\"]\n[Site \"?\"]\n[Date \"2025.01.02\"]\n[Round \"3\"]\n"));
        assert!(text.contains("[Black \"Fairy \\\"FSF\\\"\"]\n"));
        assert!(!text.contains("[FEN"));
        assert!(text.contains("[Format \"ICCS\"]\n[Termination \"adjudication: move limit\"]\n[PlyCount \"2\"]\n"));
        assert!(text.ends_with("\n\n1. H2-E2 {+0.25/9} H9-G7 1/2-1/2\n\n"), "{text}");
        // A game starting with black to move numbers from the FEN.
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 7";
        let g = PgnGame { start_fen: fen.into(), moves: vec![m2], comments: vec![], result: "*".into(), ..g };
        let text = g.to_pgn();
        assert!(text.contains(&format!("[FEN \"{fen}\"]")));
        assert!(text.ends_with("\n7... H9-G7 *\n\n"), "{text}");
    }

    /// What an engine names itself or prints goes into the file as text a PGN reader takes.
    #[test]
    fn engine_supplied_text_is_made_readable() {
        let pos = Position::startpos();
        let m1 = iccs::parse(&pos, "h2e2").unwrap();
        let g = PgnGame {
            event: "qiku match".into(),
            site: "?".into(),
            date: "2025.01.02".into(),
            round: "1".into(),
            red: "bad\u{fffd}\u{0}\u{7}name\r\nx".into(),
            black: "b\\s".into(),
            result: "*".into(),
            start_fen: START_FEN.into(),
            moves: vec![m1],
            termination: "engine said \u{0}\u{1b}[31m".into(),
            extra_tags: vec![],
            comments: vec!["+0.25/9 }\n{".into()],
        };
        let text = g.to_pgn();
        assert!(text.contains("[Red \"bad\u{fffd}  name  x\"]\n"), "{text}");
        assert!(text.contains("[Black \"b\\\\s\"]\n"), "{text}");
        assert!(text.contains("[Termination \"engine said   [31m\"]\n"), "{text}");
        assert!(text.contains("H2-E2 {+0.25/9 ) {} *"), "{text}");
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
    }

    #[test]
    fn date_format() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
        assert_eq!(&d[4..5], ".");
    }
}
