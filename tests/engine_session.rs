//! The UCI session over a reader and a writer: output that fails ends it, `go searchmoves` reads
//! on past a word it cannot read, and a book move comes with a line a GUI shows.
//! Time bounds here are liveness checks (generous), not speed assertions.

use crate::buffer::Buffer;
use qiku::engine::adapters::{AttachError, Openers};
use qiku::engine::uci::{Output, Uci};
use qiku::engine::{session, OpeningBook};
use qiku::notation::iccs;
use qiku::{Move, Position};
use std::io::{Cursor, ErrorKind, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIVENESS: Duration = Duration::from_secs(20);

/// A writer whose every write fails as `kind`, counting the attempts.
#[derive(Clone)]
struct Failing {
    attempts: Arc<AtomicUsize>,
    kind: ErrorKind,
}

impl Failing {
    fn new(kind: ErrorKind) -> Failing {
        Failing { attempts: Arc::default(), kind }
    }
    fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }
}

impl Write for Failing {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        Err(self.kind.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn output_that_fails_ends_the_session() {
    // The GUI is gone (a closed pipe), or the output cannot take more (a full disk): the first
    // write fails, nothing more is tried, and no further line is read.
    for kind in [ErrorKind::BrokenPipe, ErrorKind::StorageFull] {
        let failing = Failing::new(kind);
        let text = "uci\nisready\nposition startpos\ngo depth 3\nisready\n";
        let mut input = Cursor::new(text);
        session::run(&mut input, Output::new(Box::new(failing.clone())), Openers::default());
        assert_eq!(failing.attempts(), 1, "{kind:?}");
        assert_eq!(input.position(), "uci\n".len() as u64, "{kind:?}: read on after the output failed");
    }
    // The same in UCCI, whose output goes through the UCI session's.
    let failing = Failing::new(ErrorKind::BrokenPipe);
    let mut input = Cursor::new("ucci\nisready\nquit\n");
    session::run(&mut input, Output::new(Box::new(failing.clone())), Openers::default());
    assert_eq!((failing.attempts(), input.position()), (1, "ucci\n".len() as u64));
}

#[test]
fn output_that_fails_stops_an_infinite_search() {
    // `go infinite` searches until `stop`, which a GUI that is gone never sends: the first line
    // the search cannot write ends it.
    let failing = Failing::new(ErrorKind::BrokenPipe);
    let mut uci = Uci::new(Output::new(Box::new(failing.clone())), Openers::default());
    uci.command("position startpos");
    uci.command("go infinite");
    let deadline = Instant::now() + LIVENESS;
    while uci.is_searching() {
        assert!(Instant::now() < deadline, "the search went on after its output failed");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(failing.attempts(), 1);
}

/// The output of a UCI session given `commands`, each search waited for.
fn uci_lines(openers: Openers, commands: &[&str]) -> Vec<String> {
    let buffer = Buffer::default();
    let mut uci = Uci::new(Output::new(Box::new(buffer.clone())), openers);
    for c in commands {
        uci.command(c);
        if c.starts_with("go") {
            // A search with a depth limit ends by itself: `busy` waits for its `bestmove`.
            assert!(!uci.busy("test"));
        }
    }
    buffer.lines()
}

#[test]
fn searchmoves_reads_on_past_a_word_it_cannot_read() {
    // The pawn move the search would never choose among all moves is the only one allowed: the
    // word before it is named, with why, and the depth after it is obeyed.
    let lines = uci_lines(Openers::default(), &["position startpos", "go searchmoves x9 a3a4 depth 2"]);
    let warning = "info string go searchmoves: ignored \"x9\": not a move (expected two squares such as h2e2 or H2-E2)";
    assert!(lines.iter().any(|l| l == warning), "{lines:?}");
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove a3a4")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info depth 2 ")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("info depth 3 ")), "{lines:?}");
    // A legal move and an illegal one: the illegal one named, the legal one searched.
    let lines = uci_lines(Openers::default(), &["position startpos", "go depth 1 searchmoves a3a5 i3i4"]);
    assert!(lines
        .iter()
        .any(|l| l == "info string go searchmoves: ignored \"a3a5\": not a legal move in this position"));
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove i3i4")), "{lines:?}");
    // A long unreadable word is quoted short.
    let long = "y".repeat(500);
    let lines = uci_lines(Openers::default(), &["position startpos", &format!("go depth 1 searchmoves {long} i3i4")]);
    let named = lines.iter().find(|l| l.contains("searchmoves: ignored")).expect("the word named");
    assert!(named.len() < 200 && named.contains("yyy..."), "{named}");
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove i3i4")), "{lines:?}");
}

/// A move that loses by itself (it completes red's perpetual check, a third occurrence) is
/// mated in 1, not "mate 0", which is for a side with no legal move and comes with no move; in
/// UCCI, mated in 2 plies' score as `mate -1` is. It said `score mate 0` with `bestmove e5d5`.
#[test]
fn a_move_that_loses_by_the_rules_is_mate_minus_one() {
    let position = "position fen 3k5/9/9/p1p6/3R5/9/9/9/9/5K2R b - - 0 1 moves d9e9 d5e5 e9d9 e5d5 d9e9 d5e5 e9d9";
    let lines = uci_lines(Openers::default(), &[position, "go depth 3 searchmoves e5d5"]);
    let scores: Vec<&str> =
        lines.iter().filter_map(|l| l.split(" score ").nth(1)).map(|r| r.split(" nodes").next().unwrap_or(r)).collect();
    assert!(!scores.is_empty() && scores.iter().all(|s| *s == "mate -1"), "{lines:?}");
    assert_eq!(lines.last().map(String::as_str), Some("bestmove e5d5"), "{lines:?}");
    // The other moves keep the game going: the engine chooses one of them.
    let lines = uci_lines(Openers::default(), &[position, "go depth 3"]);
    assert!(lines.last().is_some_and(|l| l.starts_with("bestmove ") && l != "bestmove e5d5"), "{lines:?}");
}

/// At clock 119 every move without a capture ends the game drawn by the 120-ply rule: a depth-1
/// search says so as the deeper ones do (its leaves, the quiescence search, did not count the
/// rule: cp 1241 for a rook against a pawn, which `Skill Level 0` played on).
#[test]
fn a_depth_one_search_counts_the_120_ply_rule() {
    for depth in [1, 2, 3] {
        let lines = uci_lines(
            Openers::default(),
            &["position fen 5k3/9/9/8p/9/R8/9/9/9/3K5 w - - 119 1", &format!("go depth {depth}")],
        );
        let last_info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
        assert!(last_info.contains(" score cp 0 "), "depth {depth}: {lines:?}");
    }
    // One ply earlier the rook's advantage stands.
    let lines = uci_lines(Openers::default(), &["position fen 5k3/9/9/8p/9/R8/9/9/9/3K5 w - - 100 1", "go depth 1"]);
    assert!(!lines.iter().any(|l| l.contains(" score cp 0 ")), "{lines:?}");
}

/// A book that knows one move, `h2e2`, in the start position, and nothing of its games.
struct OneMoveBook;

impl OpeningBook for OneMoveBook {
    fn pick(&self, pos: &Position) -> Option<Move> {
        iccs::parse(pos, "h2e2").ok().filter(|_| pos.key() == Position::startpos().key())
    }
}

fn open_one_move_book(_: &str, _: &str, _: u32, _: u32) -> Result<Arc<dyn OpeningBook>, AttachError> {
    Ok(Arc::new(OneMoveBook))
}

#[test]
fn a_book_move_comes_with_its_line_and_no_score() {
    // A GUI shows the move the engine plays from the `info` lines: a book move has one, at depth
    // 0, with the move as its line and no score (a book has games, not centipawns).
    let openers = Openers { book: open_one_move_book, ..Openers::default() };
    let lines = uci_lines(openers, &["setoption name BookFile value one.qbk", "position startpos", "go depth 5"]);
    assert_eq!(lines, ["info depth 0 pv h2e2", "info string book move", "bestmove h2e2"]);
}
