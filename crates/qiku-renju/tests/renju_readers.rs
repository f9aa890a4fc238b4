//! Renju's readers on random and mutated input: move lists, board diagrams and Gomocup
//! sessions (the checks are in `renju_util/readers.rs`, shared with the libFuzzer target
//! `fuzz/fuzz_targets/renju.rs`).

use crate::renju_util::readers::{check_diagram_text, check_moves_text, check_session};
use proptest::prelude::*;
use qiku_renju::{Board, Point, Stone};

/// Words a move list or a diagram is made of, right and wrong.
const WORDS: &[&str] = &[
    "h8",
    "a1",
    "o15",
    "A1",
    "O15",
    "p1",
    "a0",
    "a16",
    "h08",
    "h8h9",
    "8h",
    "h",
    "15",
    "h-8",
    "é8",
    "ｈ８",
    " ",
    "  ",
    ",",
    ",,",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "#",
    "# note",
    ".",
    "x",
    "o",
    "X",
    "O",
    "...............",
    "x.o.x.o.x.o.x.o",
    "h99999999999999999999999",
    "\u{feff}",
    "\0",
];

/// Text made of `WORDS`.
fn word_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..80).prop_map(|w| w.concat())
}

/// Distinct points in a random order: a legal game's moves.
fn game(max: usize) -> impl Strategy<Value = Vec<Point>> {
    Just(Point::all().collect::<Vec<_>>())
        .prop_shuffle()
        .prop_flat_map(move |all| (0..=max.min(all.len())).prop_map(move |n| all[..n].to_vec()))
}

/// `text` with up to four edits: a character inserted, deleted or replaced by one of `chars`.
fn mutated(text: impl Strategy<Value = String>, chars: &'static str) -> impl Strategy<Value = String> {
    let edit = (any::<prop::sample::Index>(), 0..3u8, prop::sample::select(chars.chars().collect::<Vec<_>>()));
    (text, prop::collection::vec(edit, 0..4)).prop_map(|(text, edits)| {
        let mut chars: Vec<char> = text.chars().collect();
        for (at, kind, c) in edits {
            let i = at.index(chars.len() + 1);
            match kind {
                0 => chars.insert(i, c),
                1 if i < chars.len() => {
                    chars.remove(i);
                }
                _ if i < chars.len() => chars[i] = c,
                _ => chars.push(c),
            }
        }
        chars.into_iter().collect()
    })
}

fn moves_text(points: Vec<Point>) -> String {
    points.iter().map(Point::to_string).collect::<Vec<_>>().join(" ")
}

fn diagram(points: Vec<Point>) -> String {
    let mut board = Board::new();
    for (i, p) in points.into_iter().enumerate() {
        board.put(p, if i % 2 == 0 { Stone::Black } else { Stone::White });
    }
    board.diagram()
}

/// One Gomocup command line, right or wrong.
fn command() -> impl Strategy<Value = String> {
    let coord = -2i32..17;
    prop_oneof![
        Just("START 15".to_string()),
        (0u32..30).prop_map(|n| format!("START {n}")),
        Just("RESTART".to_string()),
        Just("BEGIN".to_string()),
        (coord.clone(), coord.clone()).prop_map(|(x, y)| format!("TURN {x},{y}")),
        (coord.clone(), coord.clone()).prop_map(|(x, y)| format!("takeback {x},{y}")),
        (prop::collection::vec((coord.clone(), coord, 0u8..5), 0..12)).prop_map(|stones| {
            let rows: Vec<String> = stones.iter().map(|(x, y, f)| format!("{x},{y},{f}")).collect();
            format!("BOARD\n{}\nDONE", rows.join("\n"))
        }),
        Just("BOARD".to_string()),
        (0u32..16).prop_map(|r| format!("INFO rule {r}")),
        Just("INFO max_memory 1000".to_string()),
        Just("ABOUT".to_string()),
        Just("RECTSTART 15,20".to_string()),
        "\\PC{0,20}",
        Just("END".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn renju_moves_any_text(text in "(\\PC|\n|\r){0,200}") {
        check_moves_text(&text);
    }

    #[test]
    fn renju_moves_word_soup(text in word_soup()) {
        check_moves_text(&text);
    }

    #[test]
    fn renju_moves_mutated_games(text in mutated(game(120).prop_map(moves_text), "h8, \n0123456789abcopqxyz#")) {
        check_moves_text(&text);
    }

    #[test]
    fn renju_diagram_any_text(text in "(\\PC|\n|\r){0,300}") {
        check_diagram_text(&text);
    }

    #[test]
    fn renju_diagram_word_soup(text in word_soup()) {
        check_diagram_text(&text);
    }

    #[test]
    fn renju_diagram_mutated_boards(text in mutated(game(225).prop_map(diagram), ".xo #\n\r\tX8")) {
        check_diagram_text(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn renju_gomocup_sessions(lines in prop::collection::vec(command(), 0..24), crlf in any::<bool>()) {
        let sep = if crlf { "\r\n" } else { "\n" };
        let _ = check_session(lines.join(sep).as_bytes());
    }

    #[test]
    fn renju_gomocup_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = check_session(&bytes);
    }
}

/// A huge token or line is quoted, not echoed whole, by every reader.
#[test]
fn renju_huge_tokens_are_quoted_not_echoed() {
    let huge = format!("h8 h{}", "9".repeat(100_000));
    check_moves_text(&huge);
    check_diagram_text(&format!("{}\n", "x".repeat(100_000)));
    let replies = check_session(format!("START 15\nTURN {}\nTURN 7,7\n", "7".repeat(60_000)).as_bytes());
    let replies: Vec<&str> = replies.lines().collect();
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0], "OK");
    assert!(
        replies[1].starts_with("ERROR \"777") && replies[1].ends_with("...\" is not a point x,y with 0 <= x, y < 15")
    );
    // The session goes on: the next turn is answered with a move next to the first stone.
    let reply = qiku_renju::gomocup::from_protocol(replies[2]).expect("a move");
    assert!(reply.col().abs_diff(7) <= 2 && reply.row().abs_diff(7) <= 2, "{}", replies[2]);
}

/// `TAKEBACK` takes back only the last move: another stone is refused with the reason, and the
/// side to move stays right. It used to remove any stone, after which the player's own next
/// stone took the opponent's colour. `RECTSTART` is refused saying what is supported.
#[test]
fn renju_takeback_takes_back_only_the_last_move() {
    let lines = |text: String| -> Vec<String> { text.lines().map(String::from).collect() };
    let replies = lines(check_session(b"START 15\nBEGIN\nTURN 8,8\nTAKEBACK 8,8\nTAKEBACK 0,0\nRECTSTART 15,15\n"));
    assert_eq!(replies.len(), 6, "{replies:?}");
    let (first, reply) = (&replies[1], &replies[2]);
    assert_eq!(replies[3], format!("ERROR cannot take back \"8,8\": not the last move, which is {reply}"));
    assert_eq!(replies[4], "ERROR cannot take back \"0,0\": the point is empty");
    assert_eq!(replies[5], "ERROR rectangular boards are not supported (\"15,15\"): use START 15, the 15 by 15 board");
    // The last two moves taken back in order leave the player's first stone, and it answers
    // the same move with the same reply.
    let session = format!("START 15\nBEGIN\nTURN 8,8\nTAKEBACK {reply}\nTAKEBACK 8,8\nTURN 8,8\n");
    let again = lines(check_session(session.as_bytes()));
    assert_eq!(again, ["OK", first, reply, "OK", "OK", reply], "{again:?}");
    // After BOARD (black's stone 7,7, white's 8,8, black to move), once the player's reply is
    // taken back, a stone of the side that moved last (white) can be taken back, and one of
    // the side to move (black) cannot.
    let replies = lines(check_session(b"START 15\nBOARD\n7,7,1\n8,8,2\nDONE\n"));
    let reply = &replies[1];
    let session = format!("START 15\nBOARD\n7,7,1\n8,8,2\nDONE\nTAKEBACK {reply}\nTAKEBACK 7,7\nTAKEBACK 8,8\n");
    let replies = lines(check_session(session.as_bytes()));
    assert_eq!(replies.len(), 5, "{replies:?}");
    assert_eq!(replies[2], "OK");
    assert_eq!(
        replies[3],
        "ERROR cannot take back \"7,7\": a stone of the side to move (black); only the last move can be taken back"
    );
    assert_eq!(replies[4], "OK");
}
