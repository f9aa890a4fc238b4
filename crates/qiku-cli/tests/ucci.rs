//! UCCI: the `qiku` binary driven over its standard streams in the UCCI dialect, and by the
//! Python `cchess` package's `UcciEngine` and `UciEngine` classes (CRLF line endings), when
//! Python and cchess are installed.

use qiku::notation::iccs;
use qiku::Position;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qiku"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Engine { child, stdin, lines }
    }

    /// Started and greeted in UCCI (`ucci`, up to `ucciok`).
    fn ucci() -> Engine {
        let mut e = Engine::start();
        e.send("ucci");
        e.until(&["ucciok"]);
        e
    }

    /// Sends a line ending in CRLF, as Windows GUIs do.
    fn send(&mut self, line: &str) {
        write!(self.stdin, "{line}\r\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with one of `ends`.
    fn until(&mut self, ends: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("engine went silent");
            let done = ends.iter().any(|e| line.starts_with(e));
            out.push(line);
            if done {
                return out;
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bestmove(lines: &[String]) -> String {
    lines.last().unwrap().split_whitespace().nth(1).unwrap_or("").to_string()
}

#[test]
fn ucci_session() {
    let mut e = Engine::start();
    e.send("ucci");
    let hello = e.until(&["ucciok"]);
    assert!(hello.iter().any(|l| l.starts_with("id name qiku")));
    assert!(hello.iter().any(|l| l == "option usemillisec type check default false"));
    assert!(hello.iter().any(|l| l.starts_with("option hashsize type spin")));
    assert!(hello.iter().any(|l| l.starts_with("option bookfiles type string")));
    e.send("setoption hashsize 8");
    e.send("setoption name threads value 1");
    e.send("setoption usemillisec true");
    e.send("isready");
    assert_eq!(e.until(&["readyok"]).last().unwrap(), "readyok");

    // A search: UCCI scores are bare numbers.
    e.send("position startpos moves h2e2");
    e.send("go depth 4");
    let lines = e.until(&["bestmove", "nobestmove"]);
    let after = Position::startpos().play(iccs::parse(&Position::startpos(), "h2e2").unwrap()).unwrap();
    let m = bestmove(&lines);
    assert!(after.is_legal(iccs::parse(&after, &m).unwrap()), "{m}");
    let info = lines.iter().find(|l| l.starts_with("info depth 4")).unwrap();
    let w: Vec<&str> = info.split_whitespace().collect();
    let at = w.iter().position(|&x| x == "score").unwrap();
    assert!(w[at + 1].parse::<i32>().is_ok(), "{info}");
    assert!(!info.contains(" cp "), "{info}");

    // probe: what the hash table holds for the searched position.
    e.send("probe startpos moves h2e2");
    let pop = e.until(&["pophash"]);
    assert!(pop.last().unwrap().starts_with(&format!("pophash bestmove {m}")), "{pop:?}");

    // banmoves: ban every move but one.
    let legal: Vec<String> = after.moves().iter().map(|m| m.to_string()).collect();
    let keep = legal.iter().find(|s| **s != m).unwrap().clone();
    e.send("position startpos moves h2e2");
    e.send(&format!("banmoves {}", legal.iter().filter(|s| **s != keep).cloned().collect::<Vec<_>>().join(" ")));
    e.send("go depth 3");
    assert_eq!(bestmove(&e.until(&["bestmove", "nobestmove"])), keep);
    // Every legal move banned: no move to give, and said why.
    e.send("position startpos moves h2e2");
    e.send(&format!("banmoves {}", legal.join(" ")));
    e.send("go depth 3");
    let lines = e.until(&["bestmove", "nobestmove"]);
    let why = format!("info string banmoves: every legal move of this position ({}) is banned", legal.len());
    assert_eq!(lines[lines.len() - 2..], [why, "nobestmove".to_string()], "{lines:?}");
    // ...and a new position forgets them.
    e.send("position startpos moves h2e2");
    e.send("go depth 4");
    assert_eq!(bestmove(&e.until(&["bestmove", "nobestmove"])), m);

    // Clock times in milliseconds (usemillisec), the side to move's own clock.
    e.send("position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    e.send("go time 200 increment 0 opptime 1 oppincrement 0");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");

    // Checkmated: nobestmove.
    e.send("position fen R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1");
    e.send("go depth 2");
    assert_eq!(e.until(&["bestmove", "nobestmove"]).last().unwrap(), "nobestmove");
    // Mate scores in ElephantEye's convention (the win here is a quiet pawn move that leaves no
    // legal move, which the search's move-count pruning may pass over in a shallow search).
    e.send("position fen 4k4/9/4P4/9/9/9/9/9/9/3K5 w - - 0 1");
    e.send("go depth 8");
    let lines = e.until(&["bestmove"]);
    assert!(lines.iter().any(|l| l.contains("score 9997")), "{lines:?}");

    e.send("quit");
    assert_eq!(e.until(&["bye"]).last().unwrap(), "bye");
    let status = e.child.wait().unwrap();
    assert!(status.success());
}

/// Drives qiku through `cchess.engine.UcciEngine` and `UciEngine`: a few moves of a game, each
/// `bestmove` checked legal by cchess's own board.
const CLIENT: &str = r#"
import sys, time
from cchess.engine import UcciEngine, UciEngine
from cchess import ChessBoard, FULL_INIT_FEN

for cls in (UcciEngine, UciEngine):
    e = cls()
    assert e.load(sys.argv[1]), cls
    assert e.wait_for_ready(), cls
    e.set_option('Hash', 8)
    board = ChessBoard(FULL_INIT_FEN)
    for ply in range(6):
        fen = board.to_full_fen()
        e.go_from(fen, {'depth': 3})
        deadline = time.time() + 60
        while True:
            a = e.get_action()
            if a is None:
                assert time.time() < deadline, 'no bestmove'
                time.sleep(0.02)
                continue
            if a['action'] == 'bestmove':
                break
            assert a['action'] in ('ready', 'info', 'info_move'), a
        move = board.move_iccs(a['move'])
        assert move is not None, (cls.__name__, fen, a)
        board.next_turn()
    e.quit()
    print(cls.__name__, board.to_fen())
"#;

#[test]
fn cchess_ucci_and_uci_clients_play_through_qiku() {
    let ok = Command::new("python3").args(["-c", "import cchess.engine"]).output();
    if !ok.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: needs python3 with the cchess package (pip install cchess)");
        return;
    }
    let out = Command::new("python3").args(["-c", CLIENT, env!("CARGO_BIN_EXE_qiku")]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("UcciEngine") && stdout.contains("UciEngine"), "{stdout}");
    eprintln!("{stdout}");
}

#[test]
fn match_runner_plays_qiku_over_ucci_against_qiku_over_uci_without_faults() {
    let qiku = env!("CARGO_BIN_EXE_qiku");
    let out = Command::new(qiku)
        .args(["match", "--engine", qiku, "--protocol", "ucci", "--engine", qiku, "--games", "2", "--depth", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("of 2 games"), "{text}");
    let faults: Vec<&str> = text.lines().filter(|l| l.contains("illegal moves")).collect();
    assert_eq!(faults.len(), 2, "{text}");
    for l in faults {
        assert!(l.ends_with("illegal moves 0, no move 0, crashes 0, time losses 0"), "{l}");
    }
}

/// A UCCI engine's `info depth 3 score 68 nodes 623` carries a bare score: the PGN comment reads
/// it as centipawns (it used to take the two words after `score`, `{14 nodes/3 4ms nodes 353}`).
#[test]
fn match_pgn_comments_read_ucci_scores_as_centipawns() {
    let qiku = env!("CARGO_BIN_EXE_qiku");
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("u.pgn");
    let out = Command::new(qiku)
        .args(["match", "--engine", qiku, "--protocol", "ucci", "--name", "ucci", "--engine", qiku])
        .args(["--name", "uci", "--games", "2", "--depth", "3", "--max-plies", "24", "--pgn"])
        .arg(&pgn)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&pgn).unwrap();
    // Each comment: `cp N/D Tms nodes N` (or `mate N/...`), for both engines' moves.
    let comments: Vec<&str> = text.split('{').skip(1).map(|c| c.split('}').next().unwrap()).collect();
    // One per engine move: every ply after the built-in openings' 8.
    let plies: usize = text
        .lines()
        .filter_map(|l| l.strip_prefix("[PlyCount \"")?.strip_suffix("\"]")?.parse::<usize>().ok())
        .map(|p| p - 8)
        .sum();
    assert!(plies > 0, "{text}");
    assert_eq!(comments.len(), plies, "{text}");
    for c in &comments {
        let words: Vec<&str> = c.split_whitespace().collect();
        assert!(matches!(words.first(), Some(&"cp") | Some(&"mate")), "{c:?} in\n{text}");
        let (value, depth) = words[1].split_once('/').unwrap_or_else(|| panic!("{c:?}"));
        assert!(value.parse::<i32>().is_ok() && depth == "3", "{c:?}");
        assert!(words[2].ends_with("ms") && words[3] == "nodes" && words[4].parse::<u64>().is_ok(), "{c:?}");
    }
}

/// The shipped repertoire built into `dir` with `qiku-book`.
fn repertoire_book(dir: &std::path::Path) -> std::path::PathBuf {
    let book = dir.join("rep.qbk");
    let games = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn");
    let built = Command::new(env!("CARGO_BIN_EXE_qiku-book"))
        .args(["build", games.to_str().unwrap(), "-o", book.to_str().unwrap(), "-q"])
        .output()
        .unwrap();
    assert!(built.status.success());
    book
}

/// With the book's choice banned, the engine plays the book's next choice (it used to search).
#[test]
fn banning_the_book_move_plays_the_next_book_move() {
    let dir = tempfile::tempdir().unwrap();
    let book = repertoire_book(dir.path());
    let in_book: Vec<String> = qiku::book::Book::open(&book)
        .unwrap()
        .probe(&Position::startpos())
        .unwrap()
        .iter()
        .map(|m| m.mv.to_string())
        .collect();
    assert!(in_book.len() >= 3, "{in_book:?}");
    let mut e = Engine::ucci();
    e.send(&format!("setoption bookfiles {}", book.display()));
    e.send("position startpos");
    e.send("go depth 3");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(lines.iter().any(|l| l == "info string book move"), "{lines:?}");
    let first = bestmove(&lines);
    e.send("position startpos");
    e.send(&format!("banmoves {first}"));
    e.send("go depth 3");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(lines.iter().any(|l| l == "info string book move"), "{lines:?}");
    let next = bestmove(&lines);
    assert!(next != first && in_book.contains(&next), "{first} banned, then {next}: {in_book:?}");
}

#[test]
fn refused_position_answers_nobestmove() {
    // A refused `position` leaves no position: `go` says why and answers `nobestmove`, never a
    // move of the previous position; banmoves has nothing to ban in.
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("position fen 4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1");
    e.send("go depth 1");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert_eq!(lines.last().unwrap(), "nobestmove", "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string no position") && l.contains("invalid FEN")), "{lines:?}");
    e.send("banmoves h2e2");
    e.send("isready");
    let lines = e.until(&["readyok"]);
    assert!(lines.iter().any(|l| l.starts_with("info string banmoves: no position")), "{lines:?}");
    e.send("probe");
    let lines = e.until(&["info string", "pophash"]);
    assert_eq!(lines.last().unwrap(), "info string probe: no position (the last position command was refused)");
    e.send("position startpos moves h2e2 h9g7 a0a5");
    e.send("go depth 1");
    assert_eq!(e.until(&["bestmove", "nobestmove"]).last().unwrap(), "nobestmove");
    e.send("position startpos");
    e.send("go depth 1");
    let m = bestmove(&e.until(&["bestmove", "nobestmove"]));
    iccs::parse(&Position::startpos(), &m).unwrap();
}

#[test]
fn go_during_a_search_is_answered_once() {
    let mut e = Engine::ucci();
    e.send("setoption usemillisec true");
    // A finite search: the next position and go wait for it, and both are answered.
    e.send("position startpos");
    e.send("go time 600 movestogo 1");
    e.send("position startpos moves h2e2");
    e.send("go depth 1");
    iccs::parse(&Position::startpos(), &bestmove(&e.until(&["bestmove", "nobestmove"]))).unwrap();
    let after = Position::startpos().play_unchecked(iccs::parse(&Position::startpos(), "h2e2").unwrap());
    iccs::parse(&after, &bestmove(&e.until(&["bestmove", "nobestmove"]))).unwrap();
    // A bad go during an infinite search: refused with an info string, no answer of its own (it
    // used to get nobestmove at once and the real bestmove later).
    e.send("go infinite");
    e.send("go depth abc");
    e.send("isready");
    let said = e.until(&["readyok"]);
    assert!(said.iter().any(|l| l.starts_with("info string ignored go")), "{said:?}");
    assert!(!said.iter().any(|l| l.contains("bestmove")), "{said:?}");
    e.send("stop");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    e.send("isready");
    let rest = e.until(&["readyok"]);
    assert!(!rest.iter().any(|l| l.contains("bestmove")), "{rest:?}");
}

#[test]
fn bookfiles_uses_the_first_book_that_opens() {
    let dir = tempfile::tempdir().unwrap();
    let book = repertoire_book(dir.path());
    let missing = dir.path().join("missing.qbk");
    let (book, missing) = (book.display().to_string(), missing.display().to_string());
    let mut e = Engine::ucci();
    let book_move = |e: &mut Engine| {
        e.send("position startpos");
        e.send("go depth 2");
        e.until(&["bestmove", "nobestmove"]).iter().any(|l| l == "info string book move")
    };
    // The first is missing: the second is used, and the missing one named.
    e.send(&format!("setoption bookfiles {missing};{book}"));
    e.send("isready");
    let said = e.until(&["readyok"]);
    assert!(
        said.iter().any(|l| l.starts_with("info string book files that did not open") && l.contains(&missing)),
        "{said:?}"
    );
    assert!(book_move(&mut e));
    // None opens: the book loaded before stays.
    e.send(&format!("setoption bookfiles {missing};{missing}.2"));
    e.send("isready");
    let said = e.until(&["readyok"]);
    assert!(said.iter().any(|l| l.contains(&format!("keeping the book {book}"))), "{said:?}");
    assert!(book_move(&mut e));
}

/// `qiku ucci`, as GUIs set up to start an engine with that word run it, speaks UCCI (it was an
/// unknown command that printed the usage and exited).
#[test]
fn the_ucci_command_speaks_ucci() {
    let out = Command::new(env!("CARGO_BIN_EXE_qiku"))
        .arg("ucci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(b"ucci\r\nposition startpos\r\ngo depth 2\r\nquit\r\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.lines().any(|l| l == "ucciok") && text.lines().any(|l| l.starts_with("bestmove ")), "{text}");
}

#[test]
fn skilllevel_is_uci_skill_level() {
    // UCCI's `skilllevel` is UCI's `Skill Level`: the same weaker move, found at depth 1 (level 0),
    // in the same position; out of range it is refused and the level stays.
    let position = "position startpos moves h2e2 h9g7 h0g2";
    let mut e = Engine::start();
    e.send("ucci");
    let hello = e.until(&["ucciok"]);
    assert!(hello.iter().any(|l| l == "option skilllevel type spin min 0 max 20 default 20"), "{hello:?}");
    e.send("setoption skilllevel 0");
    e.send("setoption skilllevel 21");
    e.send(position);
    e.send("go depth 8");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(
        lines.iter().any(|l| l == "info string option skilllevel: value \"21\" is not a number from 0 to 20"),
        "{lines:?}"
    );
    let depths: Vec<&str> = lines.iter().filter(|l| l.starts_with("info depth")).map(|l| &l[..12]).collect();
    assert!(!depths.is_empty() && depths.iter().all(|d| *d == "info depth 1"), "{lines:?}");
    let weak = bestmove(&lines);

    let mut u = Engine::start();
    u.send("uci");
    u.until(&["uciok"]);
    u.send("setoption name Skill Level value 0");
    u.send(position);
    u.send("go depth 8");
    assert_eq!(bestmove(&u.until(&["bestmove"])), weak);

    // Back to full strength: depth 8 is searched.
    e.send("setoption skilllevel 20");
    e.send(position);
    e.send("go depth 8");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(lines.iter().any(|l| l.starts_with("info depth 8 ")), "{lines:?}");
}

/// UCCI's `tablebaserules` and `tablebaseprobelimit` are UCI's `TablebaseRules` and
/// `TablebaseProbeLimit` (they were unknown options): the tables' verdict names the rules chosen,
/// and a limit of 0 leaves the position to the search.
#[test]
fn tablebaserules_and_tablebaseprobelimit_reach_the_tables() {
    use qiku::tablebase::generate::{generate_set, GenerateOptions};
    let dir = tempfile::tempdir().unwrap();
    generate_set(&["KRvK".parse().unwrap()], &GenerateOptions::new(dir.path())).unwrap();
    let mut e = Engine::start();
    e.send("ucci");
    let hello = e.until(&["ucciok"]);
    for option in [
        "option tablebaseprobelimit type spin min 0 max 12 default 12",
        "option tablebaserules type combo var asian var plain default asian",
    ] {
        assert!(hello.iter().any(|l| l == option), "{option}: {hello:?}");
    }
    e.send(&format!("setoption tablebasepath {}", dir.path().display()));
    let note = |e: &mut Engine, set: &str| {
        e.send(set);
        e.send("position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1");
        e.send("go depth 3");
        let lines = e.until(&["bestmove", "nobestmove"]);
        assert!(!lines.iter().any(|l| l.contains("unknown option")), "{set}: {lines:?}");
        lines.into_iter().find(|l| l.starts_with("info string tablebase move")).unwrap_or_default()
    };
    assert!(note(&mut e, "setoption tablebaserules asian").ends_with("(asian rules)"));
    assert!(note(&mut e, "setoption tablebaserules plain").ends_with("(plain rules)"));
    // The UCI form, as some GUI libraries send it, is read too.
    assert!(note(&mut e, "setoption name TablebaseRules value asian").ends_with("(asian rules)"));
    assert_eq!(note(&mut e, "setoption tablebaseprobelimit 0"), "");
    assert!(note(&mut e, "setoption tablebaseprobelimit 3").starts_with("info string tablebase move"));
    e.send("setoption tablebaseprobelimit 13");
    e.send("isready");
    let said = e.until(&["readyok"]);
    assert!(
        said.iter().any(|l| l == "info string option tablebaseprobelimit: value \"13\" is not a number from 0 to 12"),
        "{said:?}"
    );
}

/// UCCI's `go mate N` takes UCI's path: without a mate that short `stop` ends it (the `position`
/// before the `stop` is refused, not waited on), and with one it ends by itself.
#[test]
fn stop_ends_a_mate_search_that_finds_no_mate() {
    let mut e = Engine::ucci();
    e.send("position startpos");
    e.send("go mate 1");
    e.send("position startpos moves h2e2");
    e.send("stop");
    let lines = e.until(&["bestmove", "nobestmove"]);
    assert!(
        lines.iter().any(|l| l == "info string ignored position: a search is running (send stop first)"),
        "{lines:?}"
    );
    iccs::parse(&Position::startpos(), &bestmove(&lines)).unwrap();
    e.send("isready");
    e.until(&["readyok"]);
    let fen = "3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go mate 1");
    let lines = e.until(&["bestmove", "nobestmove"]);
    let pos = Position::from_fen(fen).unwrap();
    let m = iccs::parse(&pos, &bestmove(&lines)).unwrap();
    assert!(pos.play_unchecked(m).has_no_moves(), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains(" score 9999 ")), "{lines:?}");
}

/// `probe` reads its position as `position` does: a move that cannot be read or played refuses
/// the probe, named, with no `pophash` (it answered for the position before that move).
#[test]
fn probe_with_a_bad_move_is_refused_and_named() {
    let mut e = Engine::ucci();
    e.send("position startpos moves h2e2");
    e.send("go depth 4");
    e.until(&["bestmove", "nobestmove"]);
    e.send("probe startpos moves h2e2");
    let lines = e.until(&["pophash", "info string"]);
    assert!(lines.last().unwrap().starts_with("pophash bestmove "), "{lines:?}");
    for bad in ["zz99", "a0a5"] {
        e.send(&format!("probe startpos moves h2e2 {bad}"));
        e.send("isready");
        let lines = e.until(&["readyok"]);
        assert!(!lines.iter().any(|l| l.starts_with("pophash")), "{bad}: {lines:?}");
        let said: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(said.len(), 1, "{bad}: {lines:?}");
        assert!(said[0].starts_with(&format!("info string probe refused: move 2 ({bad}): ")), "{said:?}");
    }
}

/// A clock too large for UCI's `go` (but readable and not negative) is as good as endless and
/// searched as a long clock is: no message, and the search deepens until `stop` (it was
/// answered at depth 1 after a message naming UCI's `wtime` and a number never sent).
#[test]
fn a_huge_clock_is_searched() {
    for (millis, time) in [(false, "1e300"), (false, "10000000000000000"), (true, "9.3e18")] {
        let mut e = Engine::ucci();
        if millis {
            e.send("setoption usemillisec true");
        }
        e.send("position startpos moves h2e2");
        e.send(&format!("go time {time}"));
        let lines = e.until(&["info depth 4 ", "bestmove", "nobestmove"]);
        assert!(lines.last().unwrap().starts_with("info depth 4 "), "{time}: {lines:?}");
        e.send("stop");
        let lines = e.until(&["bestmove", "nobestmove"]);
        assert!(lines.last().unwrap().starts_with("bestmove "), "{time}: {lines:?}");
        assert!(!lines.iter().any(|l| l.starts_with("info string")), "{time}: {lines:?}");
    }
}

/// A refused option value is named under the UCCI name the GUI sent (it was UCI's: `option
/// Hash: ...` for `hashsize`), and a check option's value other than true or false (or on/off,
/// yes/no, 1/0) is refused, the setting kept (`maybe` was taken as false).
#[test]
fn option_refusals_name_the_ucci_option() {
    let mut e = Engine::ucci();
    for (set, refusal) in [
        ("hashsize 0", "option hashsize: value \"0\" is not a number from 1 to 65536"),
        ("skilllevel 30", "option skilllevel: value \"30\" is not a number from 0 to 20"),
        ("multipv 0", "option multipv: value \"0\" is not a number from 1 to 500"),
        ("threads x", "option threads: value \"x\" is not a number from 1 to 64"),
        ("tablebaseprobelimit 13", "option tablebaseprobelimit: value \"13\" is not a number from 0 to 12"),
        ("tablebaserules european", "option tablebaserules: \"european\" is not asian or plain"),
        ("evalterms none", "option evalterms: \"none\" is not full or basic"),
        ("usebook maybe", "option usebook: \"maybe\" is not true or false"),
        ("usemillisec maybe", "option usemillisec: \"maybe\" is not true or false"),
        ("name Hash value 0", "option Hash: value \"0\" is not a number from 1 to 65536"),
    ] {
        e.send(&format!("setoption {set}"));
        e.send("isready");
        let said: Vec<String> = e.until(&["readyok"]).into_iter().filter(|l| l.starts_with("info string")).collect();
        assert_eq!(said, [format!("info string {refusal}")], "{set}");
    }
    // `usemillisec maybe` keeps milliseconds: the unit a bad time is explained in says so.
    e.send("setoption usemillisec on");
    e.send("setoption usemillisec maybe");
    e.send("position startpos");
    e.send("go time x");
    let lines = e.until(&["bestmove", "nobestmove"]);
    let want = "info string go: time x is not a number: expected a time in milliseconds from 0; answering at depth 1";
    assert!(lines.iter().any(|l| l == want), "{lines:?}");
    // `usebook maybe` keeps the book; `off` and `on` are read.
    let dir = tempfile::tempdir().unwrap();
    let book = repertoire_book(dir.path());
    e.send(&format!("setoption bookfiles {}", book.display()));
    let book_move = |e: &mut Engine, usebook: &str| {
        e.send(&format!("setoption usebook {usebook}"));
        e.send("position startpos");
        e.send("go depth 2");
        e.until(&["bestmove", "nobestmove"]).iter().any(|l| l == "info string book move")
    };
    assert!(book_move(&mut e, "maybe"));
    assert!(!book_move(&mut e, "off"));
    assert!(!book_move(&mut e, "maybe"));
    assert!(book_move(&mut e, "ON"));
}
