//! The checks behind every reader's fuzzing, shared by the libFuzzer targets in `fuzz/` (which
//! include this file by path) and the property tests of `tests/reader_fuzz.rs`: each takes raw
//! input, feeds it to a public entry point, and panics only if qiku misbehaves (a panic inside
//! qiku, or an answer that breaks an invariant), never because the input is bad.
//!
//! Byte readers go through the public path API (bytes written to a file, then opened), so they
//! stay valid whatever the readers' internals become.

#![allow(dead_code)]

use qiku::book::{Book, Verify};
use qiku::notation::{self, chinese, iccs, wxf, Notation};
use qiku::tablebase::format::TableFile;
use qiku::tablebase::generate::{verify_rules, verify_table, verify_wdl, TableCache};
use qiku::tablebase::{Material, Rules, Tablebases};
use qiku::{MoveList, Position, Setup};
use std::path::Path;

/// Options a fuzzed session leaves out: they open files, or take memory or threads.
const UCI_OUTSIDE_OPTIONS: [&str; 4] = ["file", "path", "hash", "thread"];

/// Output text a session wrote, kept for the check (`Output` takes any writer).
#[derive(Clone, Default)]
struct SessionText(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SessionText {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The lines of `text` as a UCI session (`uci`: `qiku::engine::uci::Uci`) or a UCCI one, in the
/// process: every line is the session's command, but for `go`, which is parsed against the
/// session's position (`parse_go`) without starting a search, and the options that open files
/// or take memory or threads, which are left out. No panic; the session stays open until `quit`
/// and, at the end, still answers `isready`.
pub fn check_engine_session(text: &str, ucci: bool) {
    use qiku::engine::ucci::Ucci;
    use qiku::engine::uci::{parse_go, Output, Uci};
    /// A session of either protocol.
    enum Session {
        Uci(Uci),
        Ucci(Ucci),
    }
    impl Session {
        fn command(&mut self, line: &str) -> bool {
            match self {
                Session::Uci(u) => u.command(line),
                Session::Ucci(u) => u.command(line),
            }
        }
    }
    let out = SessionText::default();
    let output = Output::new(Box::new(out.clone()));
    let mut session = match ucci {
        false => Session::Uci(Uci::new(output, Default::default())),
        true => Session::Ucci(Ucci::new(output, Default::default())),
    };
    for line in text.lines().take(64) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("go") => {
                match &session {
                    Session::Uci(u) => {
                        if let Some(Err(e)) = u.current_position().map(|pos| parse_go(&words[1..], pos)) {
                            assert!(!e.to_string().is_empty(), "{line:?}");
                        }
                    }
                    // A UCCI `go` becomes a UCI `go` line, or an `info string` saying why not; the
                    // line it becomes is obeyed by the UCI reader, but for a UCI word passed as it was.
                    Session::Ucci(u) => match u.uci_go(&words[1..]) {
                        Some(Err(why)) => assert!(why.starts_with("go: "), "{line:?}: {why:?}"),
                        Some(Ok(go)) => check_uci_go_of_ucci(&go, &words[1..]),
                        None => {}
                    },
                }
                continue;
            }
            Some("setoption") if UCI_OUTSIDE_OPTIONS.iter().any(|o| line.to_ascii_lowercase().contains(o)) => continue,
            Some("quit") => return,
            _ => {}
        }
        assert!(session.command(line), "{line:?} ended the session");
    }
    session.command("isready");
    let said = String::from_utf8_lossy(&out.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned();
    assert!(said.ends_with("readyok\n"), "no readyok at the end of {text:?}: {said:?}");
}

/// The UCI `go` line `go` that the UCCI `go` words `ucci` became: the UCI reader obeys it (in the
/// start position: the clocks and counts do not depend on it), unless it refuses a word the UCCI
/// line gave as it was (`wtime -5`, which UCCI does not have and passes on).
fn check_uci_go_of_ucci(go: &str, ucci: &[&str]) {
    use qiku::engine::uci::{parse_go, GoError};
    let words: Vec<&str> = go.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"go"), "{go:?}");
    if let Err(e) = parse_go(&words[1..], &Position::startpos()) {
        let key = match &e {
            GoError::MissingNumber(key) | GoError::Negative(key, _) | GoError::TooLarge(key, _) => key,
        };
        assert!(ucci.contains(&key.as_str()), "UCCI go {ucci:?} became {go:?}, which the UCI reader refuses: {e}");
    }
}

/// One line of a tuning position file (`qiku::tune::scored`): an error with a message, or a line
/// that writes back to a line read as the same, whose FEN (if legal) passes [`check_fen`].
pub fn check_scored_line(text: &str) {
    use qiku::tune::scored::ScoredPosition;
    match ScoredPosition::parse(text) {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(p) => {
            let again =
                ScoredPosition::parse(&p.to_line()).unwrap_or_else(|e| panic!("{text:?} writes back unreadably: {e}"));
            assert_eq!(again, p, "{text:?}");
            assert!([0.0, 0.5, 1.0].contains(&p.result), "{text:?}");
            check_fen(&p.fen);
        }
    }
}

/// FEN text: a `Setup` and a `Position` or errors; an accepted position writes back a FEN that
/// reads to the same position, mirrors to itself twice, and its legal moves all play.
pub fn check_fen(text: &str) {
    let setup = Setup::from_fen(text);
    let pos = Position::from_fen(text);
    match &setup {
        Err(e) => {
            let _ = e.to_string();
            assert!(pos.is_err(), "{text:?} gives a position but no setup");
        }
        Ok(s) => {
            assert_eq!(Setup::from_fen(&s.to_fen()).as_ref().ok(), Some(s), "setup round trip of {text:?}");
            // Validation must agree whichever way the setup arrives.
            assert_eq!(Position::from_setup(s).is_ok(), pos.is_ok(), "{text:?}");
            let _ = s.mirror().to_fen();
        }
    }
    match pos {
        Err(e) => {
            let _ = e.to_string();
        }
        Ok(pos) => {
            let fen = pos.fen();
            let again = Position::from_fen(&fen).unwrap_or_else(|e| panic!("own FEN {fen} does not read back: {e}"));
            assert_eq!(again.fen(), fen);
            assert_eq!(again.key(), pos.key(), "{fen}");
            let mirrored = pos.mirror();
            assert_eq!(mirrored.mirror().fen(), fen);
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let mut mirrored_list = MoveList::new();
            mirrored.legal_moves(&mut mirrored_list);
            assert_eq!(list.len(), mirrored_list.len(), "mirror symmetry of {fen}");
            for &m in list.iter() {
                assert!(pos.is_legal(m), "{m} generated but not legal in {fen}");
                let child = pos.play(m).unwrap_or_else(|e| panic!("generated {m} does not play in {fen}: {e}"));
                assert_eq!(child.key(), child.compute_key(), "incremental key after {m} in {fen}");
                let child_fen = child.fen();
                Position::from_fen(&child_fen).unwrap_or_else(|e| panic!("child FEN {child_fen} is rejected: {e}"));
            }
        }
    }
}

/// Positions chosen for notation corner cases: the start, doubled rooks and pawns on one file
/// (front/rear, tandem), advanced pawns, and Black to move. All legal.
pub const NOTATION_FENS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 2 2",
    "4k4/9/9/9/9/9/9/8R/9/3K4R w - - 0 1",
    "3k5/9/9/4P4/4P4/4P4/9/9/9/4K4 w - - 0 1",
    "2bak4/4a4/4b4/2P1P1P2/2P3P2/9/9/9/9/3K5 w - - 0 1",
    "3ak4/4a4/9/9/9/9/2p1p1p2/2p3p2/9/4K4 b - - 0 1",
    "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1CN4C1/9/R1BAKAB1R w - - 4 3",
];

/// A move token, preceded by a FEN and a newline or alone (then read in one of
/// [`NOTATION_FENS`], chosen by the first byte): every parser gives a legal move or an error, and
/// every move read writes back in each notation to a token that reads to the same move.
pub fn check_notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (pos, token) = match text.split_once('\n') {
        Some((fen, token)) => match Position::from_fen(fen) {
            Ok(pos) => (pos, token),
            Err(_) => return,
        },
        None => {
            let pick = data.first().map_or(0, |&b| b as usize % NOTATION_FENS.len());
            (Position::from_fen(NOTATION_FENS[pick]).expect("built-in FEN"), text)
        }
    };
    check_token(&pos, token);
}

/// The notation checks of [`check_notation`] for one token in one position.
pub fn check_token(pos: &Position, token: &str) {
    let parsed = [
        (Some(Notation::Iccs), iccs::parse(pos, token)),
        (Some(Notation::Wxf), wxf::parse(pos, token)),
        (Some(Notation::Chinese), chinese::parse(pos, token)),
        (None, notation::parse_any(pos, token).map(|(m, _)| m)),
    ];
    for (which, result) in &parsed {
        match result {
            Err(e) => {
                let _ = (e.to_string(), e.token(), e.kind());
            }
            &Ok(m) => {
                assert!(pos.is_legal(m), "{which:?} read {token:?} as illegal {m} in {}", pos.fen());
                for n in Notation::ALL {
                    let written = notation::format(pos, m, n);
                    let back = notation::parse_any(pos, &written)
                        .unwrap_or_else(|e| panic!("{m} written in {n} as {written:?} does not read back: {e}"));
                    assert_eq!(back, (m, n), "{written:?} in {}", pos.fen());
                }
            }
        }
    }
    // A check or annotation mark after a move is read past by every parser that reads the move.
    let marked = format!("{token}+");
    let again = [
        iccs::parse(pos, &marked),
        wxf::parse(pos, &marked),
        chinese::parse(pos, &marked),
        notation::parse_any(pos, &marked).map(|(m, _)| m),
    ];
    for ((which, plain), with_mark) in parsed.iter().zip(again) {
        if let Ok(m) = plain {
            assert_eq!(
                with_mark.as_ref().ok(),
                Some(m),
                "{which:?} read {token:?} but not {marked:?} in {}",
                pos.fen()
            );
        }
    }
    let _ = iccs::parse_move(token);
}

/// Probes `pos` and the positions the book's moves lead to, `depth` plies deep, checking that
/// every book move is legal where it is offered.
fn walk(book: &Book, pos: &Position, depth: u32, budget: &mut u32) {
    if depth == 0 || *budget == 0 {
        return;
    }
    *budget -= 1;
    // Recent games: an error, or games whose moves are legal and reach the position.
    if let Ok(games) = book.recent_games(pos) {
        assert!(games.len() <= book.recent_games_kept() as usize);
        for g in games {
            let mut p = g.start.clone();
            for (i, &m) in g.moves.iter().enumerate() {
                if i == g.ply {
                    assert!(p.key() == pos.key() || p.key() == pos.mirror_key(), "recent game misses {}", pos.fen());
                }
                p = p.play(m).unwrap_or_else(|e| panic!("recent game move {m} not legal: {e}"));
            }
        }
    }
    // A damaged file is an error, never a crash or a wrong move.
    let Ok(moves) = book.probe(pos) else { return };
    for bm in moves {
        let child = pos.play(bm.mv).unwrap_or_else(|e| panic!("book move {} not legal in {}: {e}", bm.mv, pos.fen()));
        assert!(bm.counts.games() >= bm.counts.decided());
        walk(book, &child, depth - 1, budget);
    }
}

/// `.qbk` bytes, written to `path` and opened fully verified and structure-checked only: an error
/// naming the file, or a book whose header, record walk and probes work, with legal moves only.
pub fn check_book_bytes(path: &Path, data: &[u8]) {
    std::fs::write(path, data).expect("write the book file");
    for verify in [Verify::Full, Verify::Structure] {
        match Book::open_with(path, verify) {
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(&*path.to_string_lossy()), "error does not name the file: {msg}");
            }
            Ok(book) => {
                let _ = format!("{:?} {}", book.header(), book.len());
                let n = book.entries().take(100_000).count() as u64;
                assert!(n <= book.len());
                let mut budget = 200;
                walk(&book, &Position::startpos(), 4, &mut budget);
            }
        }
    }
}

/// KRvK positions with either side to move, the rook on either side. All legal.
pub const KRVK_FENS: &[&str] = &[
    "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1",
    "3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1",
    "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1",
    "5k3/9/9/9/9/9/9/9/r8/4K4 b - - 0 1",
    "5k3/9/9/9/9/9/9/9/r8/4K4 w - - 0 1",
    "3k5/4R4/9/9/9/9/9/9/9/5K3 b - - 0 1",
];

/// `.qtb` bytes, written as `KRvK.qtb` into `dir` (which must hold nothing else): probes (value,
/// WDL, DTM, best moves), the reading of every block and the independent verifier give values or
/// errors, and best moves are legal; the same bytes as its `.qtr` and as its `.qtw`.
pub fn check_table_bytes(dir: &Path, data: &[u8]) {
    let path = dir.join("KRvK.qtb");
    std::fs::write(&path, data).expect("write the table file");
    let tb = Tablebases::open(dir).expect("the directory exists");
    for fen in KRVK_FENS {
        let pos = Position::from_fen(fen).expect("built-in FEN");
        let _ = tb.probe(&pos).map_err(|e| e.to_string());
        let _ = tb.probe_wdl(&pos).map_err(|e| e.to_string());
        let _ = tb.probe_dtm(&pos).map_err(|e| e.to_string());
        if let Ok(Some(moves)) = tb.best_moves(&pos) {
            for m in moves {
                assert!(pos.is_legal(m), "best move {m} not legal in {fen}");
            }
        }
    }
    if let Ok(file) = TableFile::open(&path) {
        for i in 0..file.blocks().len().min(64) {
            let _ = file.read_block(i).map_err(|e| e.to_string());
        }
    }
    let material: Material = "KRvK".parse().expect("material name");
    let _ = verify_table(dir, material, &mut TableCache::new()).map_err(|e| e.to_string());
    // The same bytes as the table's `.qtr` companion (metric 2, band table): opened, probed under
    // the Asian rules, merged and verified; then removed so the next input starts clean.
    let companion = dir.join("KRvK.qtr");
    std::fs::write(&companion, data).expect("write the companion file");
    let tb = Tablebases::open(dir).expect("the directory exists");
    for fen in KRVK_FENS {
        let pos = Position::from_fen(fen).expect("built-in FEN");
        let _ = tb.probe_with(&pos, Rules::Asian).map_err(|e| e.to_string());
        if let Ok(Some(moves)) = tb.best_moves_with(&pos, Rules::Asian) {
            for m in moves {
                assert!(pos.is_legal(m), "best move {m} not legal in {fen} (Asian rules)");
            }
        }
    }
    if let Ok(file) = TableFile::open(&companion) {
        for i in 0..file.blocks().len().min(64) {
            let _ = file.read_block(i).map_err(|e| e.to_string());
        }
    }
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    let _ = verify_rules(dir, material, &mut plain, &mut rules).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&companion);
    // The same bytes as the table's `.qtw` WDL file (metric 3, 2-bit codes).
    check_wdl_file(dir, data);
}

/// Entries of KRvK, the table of the checkpoint seeds (`fuzz/seeds/checkpoint/`).
pub const CHECKPOINT_ENTRIES: u64 = 2 * 45 * 90;

/// Bytes read as the state file of a paged solve's checkpoint (of a table of
/// [`CHECKPOINT_ENTRIES`]), as they are and with their checksum made again (as a doctored file
/// has it), so that changed bytes reach the checks behind the checksum: refused with a reason, or
/// accepted as a state that encodes back to the same bytes; never a panic.
pub fn check_checkpoint_bytes(data: &[u8]) {
    use qiku::tablebase::generate::fuzz_checkpoint_state;
    if let Err(why) = fuzz_checkpoint_state(data, CHECKPOINT_ENTRIES) {
        assert!(!why.is_empty(), "a refusal without a reason");
    }
    if data.len() < 8 {
        return;
    }
    let mut sealed = data.to_vec();
    let body = sealed.len() - 8;
    // FNV-1a over the body, as the state file's checksum.
    let sum =
        sealed[..body].iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    sealed[body..].copy_from_slice(&sum.to_le_bytes());
    match fuzz_checkpoint_state(&sealed, CHECKPOINT_ENTRIES) {
        Ok(again) => assert!(again == sealed, "an accepted state file does not encode back to its bytes"),
        Err(why) => assert!(!why.is_empty(), "a refusal without a reason"),
    }
}

/// A real `.qtb` (`table`) with `data` as its `.qtw` WDL file, in `dir` (which must hold nothing
/// else): WDL probes under both rules give a value or an error, and when they give a value it is
/// the DTM files' (a damaged WDL file is refused or caught by its checksums, never believed).
pub fn check_wdl_bytes(dir: &Path, table: &[u8], data: &[u8]) {
    std::fs::write(dir.join("KRvK.qtb"), table).expect("write the table file");
    let tb = Tablebases::open(dir).expect("the directory exists");
    let truth: Vec<_> = KRVK_FENS
        .iter()
        .map(|fen| {
            let pos = Position::from_fen(fen).expect("built-in FEN");
            tb.probe(&pos).ok().flatten().map(|v| v.wdl)
        })
        .collect();
    std::fs::write(dir.join("KRvK.qtw"), data).expect("write the WDL file");
    let tb = Tablebases::open(dir).expect("the directory exists");
    for (fen, truth) in KRVK_FENS.iter().zip(truth) {
        let pos = Position::from_fen(fen).expect("built-in FEN");
        if let (Ok(Some(w)), Some(t)) = (tb.probe_wdl(&pos), truth) {
            assert_eq!(w, t, "the WDL file answers {w} for {fen}, the table {t}");
        }
    }
    check_wdl_file(dir, data);
}

/// `data` written as `KRvK.qtw` beside whatever `KRvK.qtb` is in `dir`: opened, probed under both
/// rules, every block read and the file verified; then removed.
fn check_wdl_file(dir: &Path, data: &[u8]) {
    let wdl = dir.join("KRvK.qtw");
    std::fs::write(&wdl, data).expect("write the WDL file");
    let tb = Tablebases::open(dir).expect("the directory exists");
    for fen in KRVK_FENS {
        let pos = Position::from_fen(fen).expect("built-in FEN");
        let _ = tb.probe_wdl_with(&pos, Rules::Plain).map_err(|e| e.to_string());
        let _ = tb.probe_wdl_with(&pos, Rules::Asian).map_err(|e| e.to_string());
    }
    if let Ok(file) = TableFile::open(&wdl) {
        for i in 0..file.blocks().len().min(64) {
            let _ = file.read_block(i).map_err(|e| e.to_string());
        }
        let _ = file.decode_all().map_err(|e| e.to_string());
    }
    let material: Material = "KRvK".parse().expect("material name");
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    let _ = verify_wdl(dir, material, &mut plain, &mut rules).map_err(|e| e.to_string());
    let _ = std::fs::remove_file(&wdl);
}

/// Collects a PGN game's tags and move tokens, and whether the reader found it malformed.
#[derive(Default)]
struct Collect {
    games: usize,
    tags: Vec<(String, String)>,
    moves: Vec<String>,
    malformed: Option<String>,
}

impl qiku::pgn::Visitor for Collect {
    fn begin_game(&mut self, _: qiku::pgn::Location) {
        self.games += 1;
    }
    fn tag(&mut self, name: &str, value: &str, _: qiku::pgn::Location) -> qiku::pgn::Skip {
        self.tags.push((name.to_string(), value.to_string()));
        qiku::pgn::Skip::Continue
    }
    fn move_token(&mut self, token: &str, _: qiku::pgn::Location) -> qiku::pgn::Skip {
        self.moves.push(token.to_string());
        qiku::pgn::Skip::Continue
    }
    fn end_game(&mut self, _: qiku::pgn::Location) {}
    fn malformed(&mut self, error: &qiku::pgn::SyntaxError) {
        self.malformed = Some(error.to_string());
    }
}

/// An XQF file's bytes: an error with a message, or a game whose start position is legal, whose
/// moves replay without a panic up to the first one that cannot be played, and whose PGN text
/// (how XQF games enter the book pipeline) reads back as one well-formed game with the same tags,
/// start position and moves.
pub fn check_xqf_bytes(data: &[u8]) {
    // The book builder's view of the file: the game as PGN text, or a cut one's moves and then a
    // failed read (a game cut short), or an error; the same text as `to_pgn` when it parses.
    let parsed = qiku::xqf::parse(data);
    if let Ok(mut input) = qiku::xqf::open_as_pgn(data, std::path::Path::new("fuzz.xqf")) {
        let mut text = Vec::new();
        let read = std::io::Read::read_to_end(&mut input, &mut text);
        if let Ok(game) = &parsed {
            assert!(read.is_ok(), "a file that parses reads as PGN to its end: {read:?}");
            assert_eq!(text, game.to_pgn().into_bytes(), "the PGN pipeline's text is to_pgn's");
        } else {
            assert!(read.is_err(), "a file parse refuses never reads as a whole game");
        }
    }
    let game = match parsed {
        Err(msg) => {
            assert!(!msg.is_empty(), "an XQF error without a message");
            return;
        }
        Ok(game) => game,
    };
    let fen = game.start.fen();
    let start = Position::from_fen(&fen).unwrap_or_else(|e| panic!("XQF start {fen} does not read back: {e}"));
    assert!(start == game.start, "XQF start {fen} reads back as another position");
    let mut pos = game.start.clone();
    for &m in &game.moves {
        match pos.play(m) {
            Ok(next) => pos = next,
            Err(_) => break,
        }
    }
    let pgn = game.to_pgn();
    let mut c = Collect::default();
    qiku::pgn::Reader::new(pgn.as_bytes()).read_all(&mut c).expect("in-memory input");
    assert_eq!((c.games, c.malformed.as_deref()), (1, None), "XQF game as PGN:\n{pgn}");
    let tag = |name: &str| c.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    for (name, value) in &game.tags {
        let written = value.replace(['\n', '\r'], " ");
        assert_eq!(tag(name), Some(written.as_str()), "tag {name} of the XQF game as PGN:\n{pgn}");
    }
    if game.start != Position::startpos() {
        assert_eq!(tag("FEN"), Some(fen.as_str()), "FEN of the XQF game as PGN:\n{pgn}");
    }
    let moves: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(c.moves, moves, "moves of the XQF game as PGN:\n{pgn}");
}
