//! The Gomocup player through the built binary: protocol replies, and complete games of the
//! player against itself over pipes, refereed with the library's rules (black must never play a
//! forbidden move; a five ends the game).

use qiku_renju::gomocup::{from_protocol, to_protocol};
use qiku_renju::{Board, Point, Stone};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qiku"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start qiku");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Engine { child, stdin, stdout }
    }
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }
    fn line(&mut self) -> String {
        let mut s = String::new();
        self.stdout.read_line(&mut s).expect("read");
        assert!(!s.is_empty(), "engine closed its output");
        s.trim().to_string()
    }
    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.line()
    }
    fn end(mut self) {
        self.send("END");
        let status = self.child.wait().expect("wait");
        assert!(status.success(), "{status:?}");
    }
}

fn pt(s: &str) -> Point {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn coordinates() {
    assert_eq!(to_protocol(pt("h8")), "7,7");
    assert_eq!(to_protocol(pt("a15")), "0,0");
    assert_eq!(to_protocol(pt("a1")), "0,14");
    assert_eq!(to_protocol(pt("o1")), "14,14");
    assert_eq!(from_protocol("3,4"), Some(pt("d11")));
    // Exactly two fields: a BOARD line's `x,y,field` given to TURN is not a point.
    assert_eq!(from_protocol("3,4,1"), None);
    assert_eq!(from_protocol("3,4,"), None);
    assert_eq!(from_protocol(" 3 , 4 "), Some(pt("d11")));
    assert_eq!(from_protocol("15,0"), None);
    assert_eq!(from_protocol("x,0"), None);
    assert!(Point::all().all(|p| from_protocol(&to_protocol(p)) == Some(p)));
}

#[test]
fn protocol_replies() {
    let mut e = Engine::start(&["renju"]);
    assert_eq!(e.ask("START 20"), "ERROR unsupported board size \"20\" (only 15)");
    assert_eq!(e.ask("START 15"), "OK");
    e.send("INFO rule 4");
    e.send("INFO timeout_turn 1000");
    assert!(e.ask("ABOUT").starts_with("name=\"qiku-renju\""));
    assert_eq!(e.ask("BEGIN"), "7,7");
    let reply = e.ask("TURN 7,8");
    let p = from_protocol(&reply).unwrap_or_else(|| panic!("{reply}"));
    assert!(![pt("h8"), pt("h7")].contains(&p), "{reply}");
    assert!(e.ask("TURN 7,8").starts_with("ERROR"), "occupied point accepted");
    assert!(e.ask("TURN 99,1").starts_with("ERROR"));
    // A third field is not ignored: `TURN 9,9,1` was played as 9,9.
    assert_eq!(e.ask("TURN 9,9,1"), r#"ERROR "9,9,1" is not a point x,y with 0 <= x, y < 15"#);
    assert!(e.ask("TAKEBACK 7,8,0").starts_with("ERROR cannot take back"));
    assert!(e.ask("FOO").starts_with("UNKNOWN"));
    e.send("BOARD");
    e.send("3,7,1,9");
    assert_eq!(e.ask("DONE"), r#"ERROR bad BOARD line "3,7,1,9" (expected x,y,field with 0 <= x, y < 15)"#);
    // BOARD: own stones (1) on row 8 d-g, opponent (2) scattered: the five at c8 or h8 is found.
    e.send("BOARD");
    for (x, y, f) in [(3, 7, 1), (4, 7, 1), (5, 7, 1), (6, 7, 1), (0, 0, 2), (0, 2, 2), (0, 4, 2), (0, 6, 2)] {
        e.send(&format!("{x},{y},{f}"));
    }
    let reply = e.ask("DONE");
    assert!(["2,7", "7,7"].contains(&reply.as_str()), "{reply}");
    // BOARD as white with black's four to block (black e5 f5 g5 h5 with d5 white).
    assert_eq!(e.ask("RESTART"), "OK");
    e.send("BOARD");
    let stones =
        [(4, 10, 2), (5, 10, 2), (6, 10, 2), (7, 10, 2), (9, 9, 2), (3, 10, 1), (0, 0, 1), (0, 2, 1), (0, 4, 1)];
    for (x, y, f) in stones {
        e.send(&format!("{x},{y},{f}"));
    }
    assert_eq!(e.ask("DONE"), "8,10", "must block i5");
    e.end();
}

#[test]
fn black_does_not_take_a_forbidden_block() {
    // The player is black (six stones each: black to move) facing white's four whose five point
    // f8 is an overline for black: it must not play f8 (it loses anyway, but legally).
    let mut e = Engine::start(&["renju", "play"]);
    assert_eq!(e.ask("START 15"), "OK");
    e.send("INFO timeout_turn 500");
    e.send("BOARD");
    let own = ["c8", "d8", "e8", "g8", "h8", "f13"];
    let theirs = ["f9", "f10", "f11", "f12", "a1", "a3"];
    for (names, field) in [(own, 1), (theirs, 2)] {
        for n in names {
            e.send(&format!("{},{field}", to_protocol(pt(n))));
        }
    }
    let reply = e.ask("DONE");
    let p = from_protocol(&reply).unwrap_or_else(|| panic!("{reply}"));
    assert_ne!(p, pt("f8"), "black blocked on its forbidden point");
    e.end();
}

/// Plays one game of the player against itself from `opening` (moves, black first) and returns
/// the judged end and the moves.
fn self_play(opening: &str, turn_ms: u32) -> (String, Vec<Point>, std::time::Duration) {
    let mut players = [Engine::start(&["renju"]), Engine::start(&["renju", "play"])];
    for p in players.iter_mut() {
        assert_eq!(p.ask("START 15"), "OK");
        p.send("INFO rule 4");
        p.send(&format!("INFO timeout_turn {turn_ms}"));
    }
    let mut board = Board::from_moves(opening).expect("opening");
    // Player 0 is black. A player's first request is BOARD with the whole position (or BEGIN
    // on the empty board), later ones TURN with the opponent's last move.
    let mut fresh = [true, true];
    let mut ask = |players: &mut [Engine; 2], board: &Board| -> String {
        let i = board.stone_count() % 2;
        if !std::mem::replace(&mut fresh[i], false) {
            let last = *board.moves().last().expect("a move");
            return players[i].ask(&format!("TURN {}", to_protocol(last)));
        }
        if board.stone_count() == 0 {
            return players[i].ask("BEGIN");
        }
        let me = if i == 0 { Stone::Black } else { Stone::White };
        players[i].send("BOARD");
        for &p in board.moves() {
            let field = if board.stone(p) == Some(me) { 1 } else { 2 };
            players[i].send(&format!("{},{field}", to_protocol(p)));
        }
        players[i].ask("DONE")
    };
    let mut clock = std::time::Instant::now();
    let mut reply = ask(&mut players, &board);
    let mut slowest = clock.elapsed();
    loop {
        let side = board.to_move();
        let p = from_protocol(&reply).unwrap_or_else(|| panic!("bad reply {reply:?}"));
        assert!(board.is_empty(p), "{} played on occupied {p}", side.name());
        if side == Stone::Black {
            assert_eq!(board.forbidden(p), None, "black played a forbidden move {p} after {:?}", board.moves());
        }
        let five = board.makes_five(p, side);
        board.play(p).expect("empty");
        if five {
            for e in players {
                e.end();
            }
            return (format!("{} five", side.name()), board.moves().to_vec(), slowest);
        }
        if board.stone_count() == 225 {
            for e in players {
                e.end();
            }
            return ("draw".into(), board.moves().to_vec(), slowest);
        }
        clock = std::time::Instant::now();
        reply = ask(&mut players, &board);
        slowest = slowest.max(clock.elapsed());
    }
}

#[test]
fn self_play_complete_games() {
    let mut results = Vec::new();
    for opening in ["", "h8 h9", "h8 i9 j10", "h8 g7 i7 g9"] {
        let (result, moves, slowest) = self_play(opening, 300);
        // The referee's verdict agrees with the judge's replay of the whole game.
        let j = qiku_renju::judge(&moves).expect("judge");
        assert!(!matches!(j.outcome, qiku_renju::Outcome::Forbidden { .. }), "{j:?}");
        // Reported, not asserted: timing depends on the machine's load.
        eprintln!("opening {opening:?}: {result} after {} moves, slowest reply {slowest:?}", moves.len());
        results.push(result);
    }
    assert!(results.iter().all(|r| r.ends_with("five") || r == "draw"), "{results:?}");
}

/// Does `reply` start a win by continuous fours for `me`? Checked with the library: a five, a
/// four that cannot be blocked, or a four whose forced block leaves a VCF.
fn starts_vcf(board: &Board, me: Stone, reply: Point) -> bool {
    use qiku_renju::eval::{five_points, Ruleset};
    use qiku_renju::vcf::{find_vcf, VcfLimits};
    if board.makes_five(reply, me) {
        return true;
    }
    let mut b = board.clone();
    b.put(reply, me);
    match five_points(&b, me, Ruleset::Renju).as_slice() {
        [] => false,
        [f] if me == Stone::White && b.forbidden(*f).is_some() => true,
        [f] => {
            b.put(*f, me.other());
            find_vcf(&b, me, Ruleset::Renju, VcfLimits::default()).is_some()
        }
        _ => true,
    }
}

#[test]
fn player_finds_vcfs() {
    // (black stones, white stones, side to move) from tests/renju_vcf.rs.
    let positions = [
        ("d8 h4 a1 a3", "e8 f8 g8 h5 h6 h7", Stone::White),
        ("d5 a1 a3 a5", "e5 f5 g5 h6 h7", Stone::White),
        ("e10 f10 g10 e8 f8 g8 h9", "d10 d8 a1 a3 a5 a7 f11", Stone::Black),
        ("c8 d8 e8 g8 h8 f13", "f10 f11 f12 a1 a3 a5", Stone::White),
        ("e8 f8 g8 d5 f2 g3 h4 i6 i7", "e5 f5 g5 h5 d8 e1", Stone::Black),
    ];
    // Far-away stones that make no shape, to give the side to move the right stone count.
    let pads = ["o15", "m15", "k15", "o13", "o11", "m13", "o9", "k13"];
    for (black, white, me) in positions {
        let mut b = Board::new();
        for (list, stone) in [(black, Stone::Black), (white, Stone::White)] {
            for n in list.split_whitespace() {
                b.put(pt(n), stone);
            }
        }
        let mut pad = pads.iter();
        while b.to_move() != me {
            let p = pt(pad.next().expect("enough pads"));
            // The side "to move" by the count is the one that is a stone short.
            b.put(p, b.to_move());
        }
        assert!(qiku_renju::vcf::find_vcf(&b, me, qiku_renju::eval::Ruleset::Renju, Default::default()).is_some());
        let mut e = Engine::start(&["renju"]);
        assert_eq!(e.ask("START 15"), "OK");
        e.send("INFO rule 4");
        e.send("INFO timeout_turn 3000");
        e.send("BOARD");
        for p in Point::all() {
            if let Some(s) = b.stone(p) {
                e.send(&format!("{},{}", to_protocol(p), if s == me { 1 } else { 2 }));
            }
        }
        let reply = e.ask("DONE");
        let p = from_protocol(&reply).unwrap_or_else(|| panic!("{reply}"));
        assert!(b.is_empty(p), "{reply}");
        assert!(starts_vcf(&b, me, p), "{} played {p}, which starts no VCF, in\n{}", me.name(), b.diagram());
        e.end();
    }
}

/// Gomocup's `INFO rule 1`: exactly five wins, so a six is no win and the opponent's five point
/// must be blocked (it used to play freestyle, make the six and lose). Freestyle (`INFO rule 0`)
/// takes the six. A `BOARD` whose opponent is two stones ahead cannot come from a game: refused.
#[test]
fn exact_five_rule_and_impossible_boards() {
    let play = |rule: &str| -> String {
        let mut e = Engine::start(&["renju", "play"]);
        assert_eq!(e.ask("START 15"), "OK");
        e.send(&format!("INFO rule {rule}"));
        e.send("INFO timeout_turn 500");
        e.send("BOARD");
        for s in ["0,7,1", "1,7,1", "2,7,1", "3,7,1", "5,7,1", "10,0,2", "10,1,2", "10,2,2", "10,3,2", "12,12,2"] {
            e.send(s);
        }
        let reply = e.ask("DONE");
        e.end();
        reply
    };
    assert_eq!(play("1"), "10,4", "exactly five: block the opponent's five");
    assert_eq!(play("0"), "4,7", "freestyle: the six wins");
    let mut e = Engine::start(&["renju", "play"]);
    assert_eq!(e.ask("START 15"), "OK");
    e.send("BOARD");
    e.send("7,7,2");
    e.send("8,8,2");
    assert!(e.ask("DONE").starts_with("ERROR BOARD has 0 own and 2 opponent stones"));
    assert_eq!(
        e.ask("RECTSTART 15,15"),
        "ERROR rectangular boards are not supported (\"15,15\"): use START 15, the 15 by 15 board"
    );
    e.end();
}
