//! Checks of Renju's readers on any input, shared by the property tests (`renju_readers.rs`)
//! and the libFuzzer target `fuzz/fuzz_targets/renju.rs` (which includes this file by path), so
//! that an input found by one is reproducible with the other. What must hold: a reader returns
//! a value or an error with a short message (never a panic or a hang), and whatever it accepts
//! writes back to text it reads as the same.

use qiku_renju::gomocup;
use qiku_renju::{judge, parse_moves, Board, Point};

/// The longest error message a reader may give: it quotes a bad token or line, never all of it
/// (at most 80 characters, each up to 10 bytes once escaped, `\u{10ffff}`, and its own words).
pub const MAX_MESSAGE: usize = 1_000;

fn short(message: String, input: &str) -> String {
    assert!(!message.is_empty(), "an empty error for {input:?}");
    let start: String = message.chars().take(200).collect();
    assert!(message.len() <= MAX_MESSAGE, "a {}-byte message: {start}...", message.len());
    message
}

/// A move list (`"h8 h9 i9"`): parsed, replayed on a board and judged.
pub fn check_moves_text(text: &str) {
    let points = match parse_moves(text) {
        Ok(points) => points,
        Err(e) => {
            short(e.to_string(), text);
            // The board reader gives the same error.
            assert_eq!(Board::from_moves(text).err(), Some(e), "{text:?}");
            return;
        }
    };
    // Written back, the points read as the same list.
    let written: Vec<String> = points.iter().map(Point::to_string).collect();
    assert_eq!(parse_moves(&written.join(" ")).as_ref(), Ok(&points), "{text:?}");
    match Board::from_moves(text) {
        Ok(board) => {
            assert_eq!(board.moves(), &points[..]);
            assert_eq!(board.stone_count(), points.len());
            check_board(&board);
        }
        Err(e) => {
            short(e.to_string(), text);
            assert!(matches!(e, qiku_renju::RenjuError::Occupied { .. }), "{e:?} for {text:?}");
        }
    }
    match judge(&points) {
        Ok(j) => assert!(j.extra_moves < points.len().max(1), "{j:?} for {} moves", points.len()),
        Err(e) => {
            short(e.to_string(), text);
        }
    }
}

/// A board diagram: parsed, written back and read again.
pub fn check_diagram_text(text: &str) {
    match Board::from_diagram(text) {
        Ok(board) => check_board(&board),
        Err(e) => {
            short(e.to_string(), text);
        }
    }
}

/// An accepted board: its diagram reads back to the same stones, and the points it calls
/// forbidden are empty.
fn check_board(board: &Board) {
    let diagram = board.diagram();
    let back = Board::from_diagram(&diagram).expect("a board's own diagram reads back");
    assert_eq!(back.diagram(), diagram);
    for (p, _) in board.forbidden_points() {
        assert!(board.is_empty(p), "{p} is forbidden but occupied");
    }
}

/// A Gomocup session: `bytes` as the manager's input (lines about time are dropped, and a turn
/// limit of 20 ms is given first, so that no session thinks for long). The player answers each
/// command with known replies only and stops at `END` or the end of the input. Returns the
/// replies.
pub fn check_session(bytes: &[u8]) -> String {
    let mut input = b"INFO timeout_turn 20\n".to_vec();
    for line in bytes.split(|&b| b == b'\n') {
        let lower = String::from_utf8_lossy(line).to_ascii_lowercase();
        if !lower.contains("time") {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
    }
    let mut output = Vec::new();
    gomocup::run(&input[..], &mut output).expect("writing to memory never fails");
    let output = String::from_utf8(output).expect("replies are UTF-8");
    for line in output.lines() {
        let known = line == "OK"
            || line.starts_with("ERROR ")
            || line.starts_with("UNKNOWN ")
            || line.starts_with("name=\"qiku-renju\"")
            || gomocup::from_protocol(line).is_some_and(|p| gomocup::to_protocol(p) == line);
        assert!(known, "reply {line:?}");
        short(line.to_string(), line);
    }
    output
}
