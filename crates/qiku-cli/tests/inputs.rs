//! One position, one form: every command reads `startpos|FEN [moves M ...]` with moves in ICCS,
//! WXF or Chinese notation and prints moves in the notation asked for; the book's default move
//! needs a real share of the position's games; output speaks of the product (no `Debug` text);
//! errors say what to do next.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
/// The start after 炮二平五 馬８進７ (h2e2 h9g7).
const AFTER_TWO: &str = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2";

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().expect("start binary")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(bin: &str, args: &[&str]) -> String {
    let o = run(bin, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn fail(bin: &str, args: &[&str]) -> String {
    let o = run(bin, args);
    assert_eq!(o.status.code(), Some(1), "{args:?} should fail cleanly: {}", stdout(&o));
    stderr(&o)
}

const QIKU: &str = env!("CARGO_BIN_EXE_qiku");
const BOOK: &str = env!("CARGO_BIN_EXE_qiku-book");
const TB: &str = env!("CARGO_BIN_EXE_qiku-tb");

/// The shipped master-game book (`books/games/ccpd-iccs.pgn.zst`, 25,368 games), built once per
/// test that needs it.
fn shipped_book(dir: &Path) -> PathBuf {
    let out = dir.join("ccpd.qbk");
    let games = Path::new(ROOT).join("books/games/ccpd-iccs.pgn.zst");
    ok(BOOK, &["build", games.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    out
}

/// The same position in one argument or several, with moves in any notation (mixed too), and
/// with the UCI word `fen`: every command reads them alike.
#[test]
fn every_command_reads_positions_with_moves_in_any_notation() {
    let dir = tempfile::tempdir().unwrap();
    let book = shipped_book(dir.path());
    let book = book.to_str().unwrap();
    let forms: [&[&str]; 5] = [
        &["startpos", "moves", "h2e2", "h9g7"],
        &["startpos moves C2.5 H8+7"],
        &["startpos", "moves", "炮二平五", "马８进７"],
        &[&format!("{START} moves H2-E2 馬８進７")],
        &[&format!("fen {START} moves h2e2 H8+7")],
    ];
    for form in forms {
        let show = ok(QIKU, &[&["show"], form].concat());
        assert!(show.contains(&format!("FEN {AFTER_TWO}")), "{form:?}: {show}");
        let probe = ok(BOOK, &[&["probe", book], form].concat());
        assert_eq!(probe.lines().next(), Some(AFTER_TWO), "{form:?}");
        let engine = ok(QIKU, &[&["probe", "--book", book], form].concat());
        assert!(engine.contains("answer: "), "{form:?}: {engine}");
        let analyze = ok(QIKU, &[&["analyze", "--depth", "1", "--json"], form].concat());
        assert!(analyze.contains(&format!("\"fen\":\"{AFTER_TWO}\"")), "{form:?}: {analyze}");
    }
    // --moves after the position, in any notation, numbered on from the position's own moves.
    let a = ok(QIKU, &["analyze", "--depth", "1", "--json", "startpos", "moves", "h2e2", "--moves", "馬８進７"]);
    assert!(a.contains(&format!("\"fen\":\"{AFTER_TWO}\"")), "{a}");
    let e = fail(QIKU, &["analyze", "--depth", "1", "startpos", "moves", "h2e2", "--moves", "h9g7", "h0j2"]);
    assert!(e.contains("move 3 \"h0j2\""), "{e}");
    // The tablebase prober reads the same form (no table here: the error is about the table,
    // not the position).
    let e = fail(TB, &["probe", "-d", dir.path().to_str().unwrap(), "4k4/9/9/9/9/9/9/9/9/3K1R3 w moves R4+9"]);
    assert!(e.contains("no table for KRvK"), "{e}");
    // `qiku perft --fen` too.
    let nodes = |fen: &str| ok(QIKU, &["perft", "2", "--fen", fen]).lines().next().unwrap().to_string();
    let after = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
    assert_eq!(nodes("startpos moves C2.5"), nodes(after));
    assert_ne!(nodes("startpos moves C2.5"), nodes("startpos"));
}

/// A bad move is named by its number, with the notations it was read in and why each failed;
/// never a bare "bad to-square".
#[test]
fn move_errors_name_the_move_and_the_notations_tried() {
    let e = fail(QIKU, &["show", "startpos", "moves", "h2e2", "h9j7"]);
    assert!(e.contains("move 2 \"h9j7\": read as ICCS: the second square is not one of a0-i9"), "{e}");
    assert!(e.contains("read as WXF: "), "{e}");
    assert!(!e.contains("bad to-square"), "{e}");
    let e = fail(BOOK, &["probe", "nothing.qbk", "startpos", "moves", "炮二平九"]);
    assert!(e.contains("move 1 \"炮二平九\": read as Chinese notation: "), "{e}");
    // WXF is read from the mover's side: the second C2.5 is black's, the third has no cannon.
    let e = fail(QIKU, &["probe", "startpos", "moves", "C2.5", "C2.5", "C2.5"]);
    assert!(e.contains("move 3 \"C2.5\": read as WXF: "), "{e}");
}

/// An unquoted FEN arrives as six arguments: recognised, and the fix is said.
#[test]
fn an_unquoted_fen_is_recognised() {
    let split: Vec<&str> = START.split(' ').collect();
    for (bin, head) in
        [(QIKU, vec!["show"]), (QIKU, vec!["probe"]), (BOOK, vec!["probe", "x.qbk"]), (TB, vec!["probe"])]
    {
        let e = fail(bin, &[head.as_slice(), &split].concat());
        assert!(e.contains(&format!("the FEN was split into several arguments: quote it, e.g. \"{START}\"")), "{e}");
    }
}

/// `--notation` prints moves in WXF or Chinese in book probes, the engine's probe and analysis.
#[test]
fn output_notation_is_selectable() {
    let dir = tempfile::tempdir().unwrap();
    let book = shipped_book(dir.path());
    let book = book.to_str().unwrap();
    let wxf = ok(BOOK, &["probe", book, "startpos", "--notation", "wxf", "--pick", "best"]);
    assert!(wxf.lines().any(|l| l.starts_with("C2.5 ") && l.contains("(with its mirror C8.5)")), "{wxf}");
    assert!(wxf.contains("pick: P3+1"), "{wxf}");
    let json = ok(BOOK, &["probe", book, "startpos", "moves", "h2e2", "--notation", "chinese", "--json"]);
    assert!(json.contains("\"move\":\"馬８進７\",\"iccs\":\"h9g7\""), "{json}");
    // `--json` keeps the ICCS beside every move in another notation.
    let v: serde_json::Value =
        serde_json::from_str(&ok(QIKU, &["probe", "--book", book, "--notation", "wxf", "--json"])).unwrap();
    assert_eq!((v["answer"]["move"].as_str(), v["answer"]["iccs"].as_str()), (Some("P3+1"), Some("g3g4")), "{v}");
    assert_eq!((v["book"]["pick"].as_str(), v["book"]["pick_iccs"].as_str()), (Some("P3+1"), Some("g3g4")), "{v}");
    assert_eq!(
        (v["book"]["moves"][0]["move"].as_str(), v["book"]["moves"][0]["iccs"].as_str()),
        (Some("C2.5"), Some("h2e2"))
    );
    let v: serde_json::Value = serde_json::from_str(&ok(
        QIKU,
        &["probe", "--depth", "2", "--notation", "wxf", "--json", "startpos", "moves", "h2e2"],
    ))
    .unwrap();
    let pos =
        qiku::Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1").unwrap();
    let wxf = |iccs: &serde_json::Value| {
        let m = qiku::notation::iccs::parse(&pos, iccs.as_str().unwrap()).unwrap();
        qiku::notation::format(&pos, m, qiku::notation::Notation::Wxf)
    };
    assert_eq!(v["search"]["bestmove"].as_str(), Some(wxf(&v["search"]["bestmove_iccs"]).as_str()), "{v}");
    assert_eq!(v["answer"]["iccs"], v["search"]["bestmove_iccs"]);
    let p = ok(QIKU, &["probe", "--book", book, "--notation", "chinese"]);
    assert!(p.contains("book: 炮二平五 games   15609"), "{p}");
    assert!(p.contains("answer: 兵三進一 (book)"), "{p}");
    // The search's lines and best move.
    let a = ok(QIKU, &["analyze", "--depth", "3", "--notation", "wxf", "startpos", "moves", "h2e2"]);
    let best = a.lines().last().unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    assert!(mv.contains(['+', '-', '.']) && mv.len() == 4, "{a}");
    let info = a.lines().find(|l| l.starts_with("depth 3 ")).unwrap();
    let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split(' ').collect();
    assert!(pv.iter().all(|m| m.len() == 4 && m.contains(['+', '-', '.'])), "{info}");
    let json = ok(QIKU, &["analyze", "--depth", "2", "--notation", "chinese", "--json"]);
    assert!(json.contains("\"bestmove\":\"") && !json.is_ascii(), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let start = qiku::Position::startpos();
    let best = qiku::notation::iccs::parse(&start, v["bestmove_iccs"].as_str().unwrap()).unwrap();
    assert_eq!(
        v["bestmove"].as_str(),
        Some(qiku::notation::format(&start, best, qiku::notation::Notation::Chinese).as_str())
    );
    assert_eq!(v["pv_iccs"][0], v["bestmove_iccs"]);
    assert_eq!(v["lines"].as_array().unwrap().last().unwrap()["pv_iccs"], v["pv_iccs"], "{json}");
}

/// The engine's default book move, from the shipped book: at the start and after h2e2 a move at
/// least 5% of the position's games played (not h0i2 from 101 of 25,368 games, nor g9e7 from 2).
#[test]
fn default_book_moves_have_a_real_share_of_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let book = shipped_book(dir.path());
    let book_s = book.to_str().unwrap();
    // The shares the test relies on, as the book states them.
    let table = ok(BOOK, &["probe", book_s, "startpos", "--json"]);
    assert!(
        table.contains(
            "\"move\":\"h0i2\",\"iccs\":\"h0i2\",\"chinese\":\"馬二進一\",\"with_mirror\":\"b0a2\",\"games\":101"
        ),
        "{table}"
    );
    let games = |json: &str, mv: &str| -> u64 {
        let at = json.find(&format!("\"move\":\"{mv}\"")).unwrap();
        let g = &json[at..][json[at..].find("\"games\":").unwrap() + 8..];
        g[..g.find(',').unwrap()].parse().unwrap()
    };
    let total = |json: &str| -> u64 {
        json.match_indices("\"games\":")
            .map(|(i, _)| &json[i + 8..])
            .map(|g| g[..g.find(',').unwrap()].parse::<u64>().unwrap())
            .sum()
    };
    let after = ok(BOOK, &["probe", book_s, "startpos", "moves", "h2e2", "--json"]);
    assert_eq!(games(&after, "g9e7"), 2);
    // The engine over UCI, its default options but the book; one session per position, so that
    // the second `position` never meets the first search still running.
    let engine_move = |position: &str| -> (String, String) {
        let mut engine = Command::new(QIKU).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = engine.stdin.take().unwrap();
        writeln!(stdin, "uci\nsetoption name BookFile value {book_s}\nposition {position}\ngo movetime 50").unwrap();
        drop(stdin);
        let text = stdout(&engine.wait_with_output().unwrap());
        let mv = text.lines().find_map(|l| l.strip_prefix("bestmove ")).unwrap_or_default();
        (mv.split(' ').next().unwrap_or_default().to_string(), text)
    };
    let (first, t1) = engine_move("startpos");
    let (second, t2) = engine_move("startpos moves h2e2");
    let text = t1 + &t2;
    let played = [first.as_str(), second.as_str()];
    assert_eq!(text.matches("info string book move").count(), 2, "{text}");
    for (json, mv) in [(&table, played[0]), (&after, played[1])] {
        assert!(games(json, mv) * 100 >= 5 * total(json), "{mv}: {} of {} games", games(json, mv), total(json));
    }
    assert_eq!(played, ["g3g4", "b9c7"], "the best-scoring of the moves with 5% or more");
    // `qiku probe --book` and `qiku-book probe --pick` agree; --min-share 0 brings back the old pick.
    assert!(ok(QIKU, &["probe", "--book", book_s]).contains("answer: g3g4 (book)"));
    assert!(ok(QIKU, &["probe", "--book", book_s, "startpos", "moves", "h2e2"]).contains("answer: b9c7 (book)"));
    assert!(ok(BOOK, &["probe", book_s, "--pick", "best"]).contains("pick: g3g4"));
    assert!(ok(QIKU, &["probe", "--book", book_s, "--min-share", "0"]).contains("answer: h0i2 (book)"));
}

/// Book output says whose results the numbers are, marks merged mirror moves, and `stats`
/// explains its two move counts.
#[test]
fn book_output_says_whose_results_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let book = shipped_book(dir.path());
    let book = book.to_str().unwrap();
    let start = ok(BOOK, &["probe", book, "startpos"]);
    assert!(start.contains("red%, draw%, black%: who won the games with this move; score%: for red, the side to move"));
    assert!(start.contains("red%  draw% black% score%"), "{start}");
    // 炮二平五: 37.9% red wins, 29.3% black wins (the mover's wins first).
    let h2e2 = start.lines().find(|l| l.starts_with("h2e2")).unwrap();
    assert!(h2e2.contains("15609   37.9   32.9   29.3   54.3  (with its mirror b2e2)"), "{h2e2}");
    assert!(start.contains("a move and its mirror image are one line, their games added"));
    // Black to move: black's wins are in the black column, the score is black's.
    let after = ok(BOOK, &["probe", book, "startpos", "moves", "h2e2"]);
    assert!(after.contains("score%: for black, the side to move"), "{after}");
    let h9g7 = after.lines().find(|l| l.starts_with("h9g7")).unwrap();
    assert!(h9g7.contains("10449   36.1   35.4   28.5   46.2") && !h9g7.contains("mirror"), "{h9g7}");
    let json = ok(BOOK, &["probe", book, "startpos", "moves", "h2e2", "--json"]);
    assert!(json.contains("\"turn\":\"black\""), "{json}");
    let engine = ok(QIKU, &["probe", "--book", book]);
    assert!(engine.contains("+wins =draws -losses and score for red, the side to move"), "{engine}");
    let stats = ok(BOOK, &["stats", book]);
    assert!(stats.contains("(distinct: different position-and-move pairs; in all: moves played"), "{stats}");
}

/// Diagnostics in words: `eval` without `Breakdown { .. }`, `d` with the FEN once, merge
/// refusals with the build options' names.
#[test]
fn no_rust_internals_in_output() {
    let mut engine = Command::new(QIKU).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = engine.stdin.take().unwrap();
    writeln!(stdin, "d\neval\nquit").unwrap();
    drop(stdin);
    let text = stdout(&engine.wait_with_output().unwrap());
    assert_eq!(text.matches(START).count(), 1, "{text}");
    assert!(text.contains(&format!("Fen: {START}")), "{text}");
    assert!(text.contains("info string eval (red's view): material 0 pst 0 mobility 0"), "{text}");
    assert!(!text.contains('{') && !text.contains("Breakdown"), "{text}");
    let a = ok(QIKU, &["analyze", "--depth", "1", "--eval"]);
    assert!(a.starts_with("eval (red's view): material 0 pst 0 "), "{a}");
    // Books built with different options: the refusal names the options as `build` takes them.
    let dir = tempfile::tempdir().unwrap();
    let rep = Path::new(ROOT).join("books/repertoire.pgn");
    let (a, b, m) = (dir.path().join("a.qbk"), dir.path().join("b.qbk"), dir.path().join("m.qbk"));
    ok(BOOK, &["build", rep.to_str().unwrap(), "-o", a.to_str().unwrap(), "-q"]);
    ok(BOOK, &["build", rep.to_str().unwrap(), "-o", b.to_str().unwrap(), "-q", "--only", "red", "--max-ply", "30"]);
    let e = fail(BOOK, &["merge", a.to_str().unwrap(), b.to_str().unwrap(), "-o", m.to_str().unwrap()]);
    assert!(e.contains("built with --max-ply 30 --only red, but"), "{e}");
    assert!(e.ends_with("with --max-ply 40; merge only books built with the same options\n"), "{e}");
    // The flags named are ones `build` takes (no `--only both`, no `--min-elo none`).
    let stats = ok(BOOK, &["stats", a.to_str().unwrap()]);
    assert!(stats.contains("built with    --min-games 0 --min-score 0 --max-ply 40\n"), "{stats}");
    assert!(!e.contains("Both") && !e.contains("None") && !e.contains("Some("), "{e}");
    // Ranges in words.
    let e = run(QIKU, &["bench", "--depth", "0"]);
    assert!(stderr(&e).contains("0 is not a whole number from 1 to 100"), "{}", stderr(&e));
}

/// UCCI's `go` errors name UCCI's fields; in both protocols they are answered at depth 1 (UCCI
/// used to answer `nobestmove`, UCI a move: a GUI may send a clock a little below zero after an
/// overstep and waits for a move).
#[test]
fn go_errors_in_each_protocol() {
    let session = |input: &str| -> String {
        let mut engine = Command::new(QIKU).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = engine.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        stdout(&engine.wait_with_output().unwrap())
    };
    let ucci = session("ucci\ngo time -5\ngo depth\ngo time 1 increment x\ngo depth -3\nquit\n");
    let lines: Vec<&str> = ucci
        .lines()
        .skip_while(|l| *l != "ucciok")
        .skip(1)
        .filter(|l| !l.starts_with("info depth"))
        .map(|l| match l.strip_prefix("bestmove ").map(|m| m.split(' ').next().unwrap_or("")) {
            // A legal move of the start position, whichever the search found.
            Some(m) if qiku::notation::iccs::parse(&qiku::Position::startpos(), m).is_ok() => "bestmove",
            _ => l,
        })
        .collect();
    let unit = "seconds (milliseconds after setoption usemillisec true)";
    assert_eq!(
        lines,
        [
            format!("info string go: time -5 is negative: expected a time in {unit} from 0; answering at depth 1")
                .as_str(),
            "bestmove",
            "info string go: depth needs a whole number; answering at depth 1",
            "bestmove",
            format!(
                "info string go: increment x is not a number: expected a time in {unit} from 0; answering at depth 1"
            )
            .as_str(),
            "bestmove",
            "info string go: depth -3 is negative: expected a whole number from 0; answering at depth 1",
            "bestmove",
            "bye",
        ]
    );
    assert!(!ucci.contains("wtime") && !ucci.contains("winc"), "{ucci}");
    // UCI has no `nobestmove`, and a GUI waits for `bestmove` after every `go`: an unusable `go`
    // is answered at depth 1, with a legal move.
    for (go, why) in [
        ("go wtime -100 btime 1000", "go: wtime -100 is negative: times are milliseconds from 0"),
        ("go movetime -1", "go: movetime -1 is negative: times are milliseconds from 0"),
        ("go movetime abc", "go: movetime needs a number"),
    ] {
        let uci = session(&format!("position startpos moves h2e2\n{go}\nquit\n"));
        let lines: Vec<&str> = uci.lines().collect();
        assert_eq!(lines[0], format!("info string {why}; answering at depth 1"), "{uci}");
        assert!(lines[1].starts_with("info depth 1 "), "{uci}");
        let best = lines.last().unwrap().strip_prefix("bestmove ").expect(&uci);
        let pos = qiku::Position::startpos()
            .play(qiku::notation::iccs::parse(&qiku::Position::startpos(), "h2e2").unwrap())
            .unwrap();
        assert!(qiku::notation::iccs::parse(&pos, best.split(' ').next().unwrap()).is_ok(), "{uci}");
    } // A clock with a fraction of a millisecond, as some GUIs send it (and UCCI allows), is read
      // as its whole milliseconds: a search on the clock, not a move at depth 1 with a complaint.
    let uci = session("position startpos\ngo wtime 979.5 btime 1000.25 winc 0.5 binc 0.5\nquit\n");
    assert!(!uci.contains("info string"), "{uci}");
    assert!(uci.lines().last().unwrap().starts_with("bestmove "), "{uci}");
}

/// Errors that say what to do next.
#[test]
fn errors_say_what_to_do_next() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // A missing table in `stats`, as in `probe`: the command that makes it.
    let e = fail(TB, &["stats", "KRvKN", "-d", d]);
    assert!(e.contains(&format!("no table for KRvKN in {d} (generate it with `qiku-tb generate KRvKN -d {d}`")), "{e}");
    let e = fail(TB, &["probe", "-d", d, "4k4/9/9/8R/9/9/8n/9/9/5K3 b"]);
    assert!(e.contains(&format!("generate it with `qiku-tb generate KRvKN -d {d}`")), "{e}");
    // An .obk where a .qbk is expected: import it.
    let rep = Path::new(ROOT).join("books/repertoire.pgn");
    let qbk = dir.path().join("r.qbk");
    let obk = dir.path().join("r.obk");
    ok(BOOK, &["build", rep.to_str().unwrap(), "-o", qbk.to_str().unwrap(), "-q"]);
    ok(BOOK, &["export", qbk.to_str().unwrap(), "-o", obk.to_str().unwrap()]);
    let hint = format!(
        "looks like an .obk (SQLite) book, not a .qbk: convert it first with `qiku-book import {} -o {}`",
        obk.display(),
        dir.path().join("r.qbk").display()
    );
    for (bin, args) in [
        (BOOK, vec!["probe", obk.to_str().unwrap()]),
        (BOOK, vec!["stats", obk.to_str().unwrap()]),
        (QIKU, vec!["probe", "--book", obk.to_str().unwrap()]),
    ] {
        let e = fail(bin, &args);
        assert!(e.contains(&hint), "{args:?}: {e}");
    }
    // `qiku tune` away from the repository: where it looked, and what to pass.
    let o = Command::new(QIKU).args(["tune", "--epochs", "1"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    let looked = dir.path().canonicalize().unwrap().join("books/games/ccpd-iccs.pgn.zst");
    assert!(
        e.contains(&format!("looked for {}", looked.display())) || e.contains(&format!("looked for {}/books", d)),
        "{e}"
    );
    assert!(e.contains("run qiku tune there, or pass --pgn with your game collection"), "{e}");
}

/// No advice that cannot be followed: a position or material beyond what the generator makes is
/// said to have no possible table (and why), not given a `qiku-tb generate` it would refuse; a
/// file given for the table directory is said to be one, not to be a place to generate tables.
#[test]
fn table_advice_can_be_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let e = fail(TB, &["probe", "-d", d, "startpos"]);
    let want = format!(
        "no table for KRRNNCCPPPPPAABBvKRRNNCCPPPPPAABB in {d}, and none can be made: it has 32 pieces, and a \
         table holds at most 12"
    );
    assert!(e.contains(&want) && !e.contains("qiku-tb generate"), "{e}");
    // Twelve pieces, but more entries than the generator supports.
    let e = fail(TB, &["stats", "KRRNNCCvKRRNC", "-d", d]);
    assert!(e.contains("none can be made: its table would have more entries than the 2^47 the generator supports"));
    assert!(!e.contains("qiku-tb generate"), "{e}");
    // The generator does refuse both.
    for m in ["KRRNNCCPPPPPAABBvKRRNNCCPPPPPAABB", "KRRNNCCvKRRNC"] {
        fail(TB, &["generate", m, "-d", d]);
    }
    // A book given with -d.
    let book = dir.path().join("some.qbk");
    let rep = Path::new(ROOT).join("books/repertoire.pgn");
    ok(BOOK, &["build", rep.to_str().unwrap(), "-o", book.to_str().unwrap(), "-q"]);
    let e = fail(TB, &["probe", "-d", book.to_str().unwrap(), "startpos"]);
    let want = format!(
        "{}: is a qiku opening book (.qbk), not a directory of tables; give -d a directory of tables (.qtb files)",
        book.display()
    );
    assert!(e.contains(&want) && !e.contains("Not a directory") && !e.contains(&format!("-d {}`", book.display())));
}

/// A table without a table its captures lead to has a value but no move values: every tool says
/// which table is missing and how to make it (it used to say the table itself was missing, or to
/// answer with the value and no moves, or to search without a word).
#[test]
fn a_missing_smaller_table_is_named_by_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let (all, lone) = (dir.path().join("all"), dir.path().join("lone"));
    std::fs::create_dir_all(&lone).unwrap();
    ok(TB, &["generate", "KRvKN", "-d", all.to_str().unwrap()]);
    for ext in ["qtb", "qtr", "qtw"] {
        std::fs::copy(all.join(format!("KRvKN.{ext}")), lone.join(format!("KRvKN.{ext}"))).unwrap();
    }
    let d = lone.to_str().unwrap();
    // Black's knight can take the rook: that capture leads into KNvK, not in the directory.
    let fen = "4k4/9/9/9/7R1/9/8n/9/9/5K3 b";
    let want = format!(
        "KRvKN needs the table KNvK, which is missing in {d} (generate it with `qiku-tb generate KNvK -d {d}`)"
    );
    let e = fail(TB, &["probe", "-d", d, fen]);
    assert!(e.contains(&want), "{e}");
    let e = fail(QIKU, &["probe", "--tb", d, fen]);
    assert!(e.contains(&want), "{e}");
    let tb = qiku::tablebase::Tablebases::open(&lone).unwrap();
    let pos = qiku::Position::from_fen(fen).unwrap();
    assert!(tb.probe(&pos).unwrap().is_some(), "the position's own value is in its file");
    let err = tb.move_verdicts(&pos, qiku::tablebase::Rules::Asian).unwrap_err();
    assert_eq!(err.to_string(), "KRvKN needs the table KNvK, which is missing");
    assert!(tb.best_moves(&pos).is_err());
    // Where no capture is possible the moves stay in the table: answered as before.
    ok(TB, &["probe", "-d", d, "4k4/9/9/8R/9/9/8n/9/9/5K3 b"]);
}
