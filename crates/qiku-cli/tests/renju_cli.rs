//! `qiku renju forbidden | eval | judge` through the built binary: outputs, `--board`, and errors
//! that name the bad token.

use std::process::{Command, Output};

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("run qiku")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    assert!(!o.status.success(), "succeeded: {}", String::from_utf8_lossy(&o.stdout));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn forbidden_json() {
    // x.x.x.x on row 8 (white far away): g8 is a double four (e8 and i8 make fives with it).
    let o = qiku(&["renju", "forbidden", "d8 a1 f8 a3 h8 a5 j8 a7", "--json"]);
    assert_eq!(stdout(&o).trim(), r#"{"forbidden": [{"point": "g8", "kind": "double-four"}]}"#);
    let o = qiku(&["renju", "forbidden", "h8", "--json"]);
    assert_eq!(stdout(&o).trim(), r#"{"forbidden": []}"#);
    // Moves may also be separate arguments. f8 g8 h9 h10: h8 is a double three; the overline
    // c8-h8 shape adds an overline point.
    let o = qiku(&["renju", "forbidden", "f8", "a1", "g8", "a3", "h9", "a5", "h10", "a7", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let list = v["forbidden"].as_array().expect("array");
    assert!(list.iter().any(|e| e["point"] == "h8" && e["kind"] == "double-three"), "{v}");
    let o = qiku(&["renju", "forbidden", "c8 a1 d8 a3 e8 a5 g8 a7 h8 a9 f7 a11 f9 a13 e7 o1 g9 o3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert!(v["forbidden"].as_array().unwrap().iter().any(|e| e["point"] == "f8" && e["kind"] == "overline"), "{v}");
}

#[test]
fn forbidden_text_and_board_file() {
    let o = qiku(&["renju", "forbidden", "d8 a1 f8 a3 h8 a5 j8 a7"]);
    assert_eq!(stdout(&o), "g8 double-four\n");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("board.txt");
    let mut rows = vec![".".repeat(15); 15];
    // Row 8 is line 8 from the top (15 - 8 + 1); black d8 f8 h8 j8, white a1 a3 a5 a7.
    rows[7] = "...x.x.x.x.....".into();
    for r in [1, 3, 5, 7] {
        rows[15 - r].replace_range(0..1, "o");
    }
    std::fs::write(&path, rows.join("\n")).expect("write");
    let p = path.to_str().expect("path");
    let o = qiku(&["renju", "forbidden", "--board", p, "--json"]);
    assert_eq!(stdout(&o).trim(), r#"{"forbidden": [{"point": "g8", "kind": "double-four"}]}"#);
    // Moves after the diagram: black blocks nothing, white takes g8.
    let o = qiku(&["renju", "forbidden", "--board", p, "k1", "g8"]);
    assert_eq!(stdout(&o), "no forbidden points for black\n");
    rows[3] = "..x....q.......".into();
    std::fs::write(&path, rows.join("\n")).expect("write");
    let e = stderr(&qiku(&["renju", "forbidden", "--board", p]));
    assert!(e.contains("board line 4") && e.contains("'q'"), "{e}");
}

#[test]
fn bad_moves_are_named() {
    let e = stderr(&qiku(&["renju", "forbidden", "h8 h9 p3"]));
    assert!(e.contains("move 3") && e.contains("\"p3\""), "{e}");
    let e = stderr(&qiku(&["renju", "forbidden", "h8 h9 h8"]));
    assert!(e.contains("move 3") && e.contains("h8 is already occupied"), "{e}");
    let e = stderr(&qiku(&["renju", "eval", "h8 pass"]));
    assert!(e.contains("\"pass\""), "{e}");
    let e = stderr(&qiku(&["renju", "forbidden", "h0"]));
    assert!(e.contains("\"h0\"") && e.contains("off the board"), "{e}");
}

#[test]
fn eval_outputs() {
    let o = qiku(&["renju", "eval", "h8 h9 i8", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["to_move"], "white");
    let points = v["points"].as_array().expect("points");
    assert_eq!(points.len(), 222);
    // White to move: g8 and j8 stop black's open two from becoming an open three; white's own
    // best shapes are around h9. Check one pattern exactly: white on g9 makes g9 h9 (open two).
    let g9 = points.iter().find(|p| p["point"] == "g9").expect("g9");
    assert_eq!(g9["patterns"]["horizontal"], "open-two", "{g9}");
    assert!(g9["value"].as_i64().unwrap() > 0);
    let text = stdout(&qiku(&["renju", "eval", "f8 a1 g8 a3 h9 a5 h10"]));
    assert!(text.contains(" 8 . . . . . x x ! . . . . . . ."), "{text}");
    assert!(text.contains("white to move"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("h8 ")).count(), 1, "{text}");
}

#[test]
fn judge_games() {
    let dir = tempfile::tempdir().expect("tempdir");
    let game = dir.path().join("game.txt");
    std::fs::write(&game, "# a double three\nf8 a1 g8 a3\nh9 a5 h10 a7\nh8 a9 # forbidden\n").expect("write");
    let o = qiku(&["renju", "judge", game.to_str().unwrap()]);
    assert_eq!(stdout(&o), "white wins: black's move 9 (h8) is forbidden (double-three)\n");
    std::fs::write(&game, "h8 a1 i9 a3 j10 a5 k11 b7 l12").expect("write");
    assert_eq!(stdout(&qiku(&["renju", "judge", game.to_str().unwrap()])), "black wins: five at move 9 (l12)\n");
    std::fs::write(&game, "h8 h9").expect("write");
    assert_eq!(stdout(&qiku(&["renju", "judge", game.to_str().unwrap()])), "unfinished after 2 moves\n");
    std::fs::write(&game, "h8 h9\nh10 zz").expect("write");
    let e = stderr(&qiku(&["renju", "judge", game.to_str().unwrap()]));
    assert!(e.contains("game.txt") && e.contains("move 4") && e.contains("\"zz\""), "{e}");
    let e = stderr(&qiku(&["renju", "judge", "/nonexistent/game.txt"]));
    assert!(e.contains("/nonexistent/game.txt"), "{e}");
}

#[test]
fn judge_and_board_read_any_line_ending() {
    let dir = tempfile::tempdir().expect("tempdir");
    let game = dir.path().join("game.txt");
    // With lone CR line ends (old Mac OS), a comment ends at its line as with LF: the moves after
    // it are read, and the forbidden ninth move is found.
    for ending in ["\r\n", "\r"] {
        let text = "# a double three\nf8 a1 g8 a3 # threes\nh9 a5 h10 a7\nh8 a9 # forbidden\n".replace('\n', ending);
        std::fs::write(&game, text).expect("write");
        let o = qiku(&["renju", "judge", game.to_str().unwrap()]);
        assert_eq!(stdout(&o), "white wins: black's move 9 (h8) is forbidden (double-three)\n", "{ending:?}");
        // The double four of `forbidden_json`, as a diagram file with a comment line.
        let mut diagram = vec!["# x.x.x.x on row 8".to_string()];
        diagram.extend((1..=15).rev().map(|row| match row {
            8 => "...x.x.x.x.....".to_string(),
            1 | 3 | 5 | 7 => format!("o{}", ".".repeat(14)),
            _ => ".".repeat(15),
        }));
        let board = dir.path().join("board.txt");
        std::fs::write(&board, diagram.join(ending)).expect("write");
        let o = qiku(&["renju", "forbidden", "--board", board.to_str().unwrap(), "--json"]);
        assert_eq!(stdout(&o).trim(), r#"{"forbidden": [{"point": "g8", "kind": "double-four"}]}"#, "{ending:?}");
    }
}

/// `qiku ARGS` with `input` on its standard input.
fn qiku_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_qiku"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run qiku");
    let mut stdin = child.stdin.take().expect("stdin");
    // The program may stop reading early (an input too long): a closed pipe is not an error here.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("wait")
}

#[test]
fn judge_and_board_read_standard_input_for_a_dash() {
    let game = b"# a double three\nf8 a1 g8 a3\nh9 a5 h10 a7\nh8 a9 # forbidden\n";
    let o = qiku_with_stdin(&["renju", "judge", "-"], game);
    assert_eq!(stdout(&o), "white wins: black's move 9 (h8) is forbidden (double-three)\n");
    let e = stderr(&qiku_with_stdin(&["renju", "judge", "-"], b"h8 h9\nh10 zz"));
    assert!(e.contains("standard input: move 4") && e.contains("\"zz\""), "{e}");
    // An input that does not end (`yes | qiku renju judge -`) is refused after a MiB, not read forever.
    let e = stderr(&qiku_with_stdin(&["renju", "judge", "-"], &vec![b'h'; 3 << 20]));
    assert!(e.contains("standard input: more than"), "{e}");
    // A board diagram from standard input (top row first): x.x.x.x on row 8 (d8 f8 h8 j8), white
    // on a1 a3 a5 a7, as in `forbidden_json`: g8 is a double four.
    let mut diagram = vec![".".repeat(15); 15];
    diagram[15 - 8] = "...x.x.x.x.....".into();
    for row in [1, 3, 5, 7] {
        diagram[15 - row] = format!("o{}", ".".repeat(14));
    }
    let o = qiku_with_stdin(&["renju", "forbidden", "--board", "-", "--json"], diagram.join("\n").as_bytes());
    assert_eq!(stdout(&o).trim(), r#"{"forbidden": [{"point": "g8", "kind": "double-four"}]}"#);
    let e = stderr(&qiku_with_stdin(&["renju", "forbidden", "--board", "-"], b"x.o\n"));
    assert!(e.starts_with("qiku: standard input: "), "{e}");
}

/// `forbidden` and `eval` stop at the end of the game (a five, or black's forbidden move) and say
/// on stderr that the moves after it were ignored, as `judge` does; they played on silently.
/// A game that ends at the last move given is said to have ended too (it was silent).
#[test]
fn moves_after_the_end_of_the_game_are_ignored_with_a_warning() {
    let warned = |args: &[&str]| {
        let o = qiku(args);
        (stdout(&o), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let five = "h8 a1 i8 a2 j8 a3 k8 a4 l8";
    let forbidden = "h8 a1 i8 a2 g9 a3 g10 a4 g8";
    for command in ["forbidden", "eval"] {
        // Nothing after the end: the end is still said, the points being of a game over.
        let (at_five, err) = warned(&["renju", command, five]);
        assert_eq!(err, "qiku: black wins: five at move 9 (l8); the position shown is after it\n", "{command}");
        let (_, err) = warned(&["renju", command, "h8 a1 i8 a2 j8 a3 k8"]);
        assert_eq!(err, "", "{command}: the game goes on");
        let (out, err) = warned(&["renju", command, five, "a5 m8 a6"]);
        assert_eq!(out, at_five, "{command}");
        assert_eq!(
            err, "qiku: black wins: five at move 9 (l8); 3 moves after the end of the game were ignored\n",
            "{command}"
        );
        let (at_forbidden, err) = warned(&["renju", command, forbidden]);
        assert_eq!(
            err, "qiku: white wins: black's move 9 (g8) is forbidden (double-three); the position shown is after it\n",
            "{command}"
        );
        let (out, err) = warned(&["renju", command, forbidden, "a5"]);
        assert_eq!(out, at_forbidden, "{command}");
        assert_eq!(
            err,
            "qiku: white wins: black's move 9 (g8) is forbidden (double-three); 1 move after the end of the game \
             was ignored\n",
            "{command}"
        );
    }
}

/// A diagram with too few rows says how many it has, not a line of it: an empty one said
/// `board line 0: 0 rows, expected 15`.
#[test]
fn a_short_diagram_counts_its_rows() {
    let o = qiku_with_stdin(&["renju", "forbidden", "--board", "-"], b"");
    let e = stderr(&o);
    assert!(e.contains("standard input: the diagram has no rows, expected 15"), "{e}");
    assert!(!e.contains("line 0"), "{e}");
    let three = format!("# three rows\n{}", format!("{}\n", ".".repeat(15)).repeat(3));
    let e = stderr(&qiku_with_stdin(&["renju", "eval", "--board", "-"], three.as_bytes()));
    assert!(e.contains("standard input: the diagram has 3 rows, expected 15"), "{e}");
}
