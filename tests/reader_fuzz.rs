//! Property-test fuzzing of every reader but PGN (which has `tests/pgn_fuzz.rs`), run by
//! `cargo test`: FEN and setup validation, tuning position files' lines, the ICCS/WXF/Chinese parsers and `parse_any`, `.qbk`
//! books, `.qtb` tables, XQF games and the engine's UCI and UCCI sessions, each fed random and mutated real input through the same checks as the
//! libFuzzer targets in `fuzz/` (`tests/fuzz_common`). Any panic fails the test with the input.
//!
//! Longer runs: `cargo fuzz run <target>` in `fuzz/` (see docs/FUZZING.md).

#[path = "fuzz_common/mod.rs"]
mod fuzz_common;

use fuzz_common::{
    check_book_bytes, check_checkpoint_bytes, check_engine_session, check_fen, check_notation, check_scored_line,
    check_table_bytes, check_token, check_wdl_bytes, check_xqf_bytes, CHECKPOINT_ENTRIES, NOTATION_FENS,
};
#[path = "fuzz_common/mutate.rs"]
mod mutate;

use mutate::mutate;
use proptest::prelude::*;
use qiku::book::{self, BuildOptions};
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::Material;
use qiku::{MoveList, Position};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// FENs of the seed corpus (from the tests) and of the notation positions.
fn seed_fens() -> Vec<String> {
    let dir = Path::new(ROOT).join("fuzz/seeds/fen");
    let mut fens: Vec<String> = std::fs::read_dir(&dir)
        .expect("fuzz/seeds/fen")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("seed"))
        .collect();
    fens.sort();
    fens.extend(NOTATION_FENS.iter().map(|s| s.to_string()));
    assert!(fens.len() > 50);
    fens
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)
}

/// Characters FENs and move tokens are made of, plus some that are not.
const FEN_ALPHABET: &str = "rnbakcpRNBAKCPEHeh0123456789/ -wbr\t";
const TOKEN_ALPHABET: &[&str] = &[
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "-", "+", ".", "=",
    "R", "H", "N", "E", "B", "A", "K", "C", "P", "車", "俥", "车", "馬", "傌", "马", "相", "象", "仕", "士", "帥",
    "將", "炮", "砲", "兵", "卒", "進", "进", "退", "平", "前", "後", "后", "中", "一", "二", "三", "五", "九", "１",
    "５", "９", "１０", "\u{0}", " ", "#", "!", "?",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn fen_random_text(chars in prop::collection::vec(prop::sample::select(FEN_ALPHABET.chars().collect::<Vec<_>>()), 0..100)) {
        check_fen(&chars.into_iter().collect::<String>());
    }

    #[test]
    fn scored_line_mutated_real(i in any::<prop::sample::Index>(), e in edits(), tail in 0usize..6) {
        let fens = seed_fens();
        let fen = &fens[i.index(fens.len())];
        let tails = ["\t1\ttrain", "\t0.5\tvalid\t-35", "\t0\ttrain\t#-3", "\t1\tvalid\t#2", "\t0.5\ttrain\t+12", "\t1"];
        let line = format!("{fen}{}", tails[tail]);
        if let Ok(text) = String::from_utf8(mutate(line.as_bytes(), &e)) {
            check_scored_line(&text);
        }
    }

    #[test]
    fn fen_mutated_real(i in any::<prop::sample::Index>(), e in edits()) {
        let fens = seed_fens();
        let fen = &fens[i.index(fens.len())];
        if let Ok(text) = String::from_utf8(mutate(fen.as_bytes(), &e)) {
            check_fen(&text);
        }
    }

    #[test]
    fn notation_random_tokens(
        fen in prop::sample::select(NOTATION_FENS),
        parts in prop::collection::vec(prop::sample::select(TOKEN_ALPHABET), 0..8),
    ) {
        let pos = Position::from_fen(fen).expect("built-in FEN");
        check_token(&pos, &parts.concat());
    }

    #[test]
    fn notation_real_moves_mutated(i in any::<prop::sample::Index>(), plies in 0usize..30, pick in any::<prop::sample::Index>(), e in edits()) {
        // A position reached by random legal moves, one of its moves written in each notation,
        // then mutated.
        let fens = seed_fens();
        let Ok(mut pos) = Position::from_fen(&fens[i.index(fens.len())]) else { return Ok(()) };
        let mut list = MoveList::new();
        for k in 0..plies {
            list.clear();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            pos = pos.play(list[(k * 7 + plies) % list.len()]).expect("legal");
        }
        list.clear();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return Ok(());
        }
        let m = list[pick.index(list.len())];
        for n in qiku::notation::Notation::ALL {
            let token = qiku::notation::format(&pos, m, n);
            check_token(&pos, &token);
            if let Ok(t) = String::from_utf8(mutate(token.as_bytes(), &e)) {
                check_token(&pos, &t);
            }
        }
    }

    #[test]
    fn notation_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        check_notation(&bytes);
    }
}

/// A small real book and table, built once per test binary.
struct Fixtures {
    _dir: tempfile::TempDir,
    book: Vec<u8>,
    table: Vec<u8>,
    /// The table's `.qtw` WDL file.
    wdl: Vec<u8>,
    work: PathBuf,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let book_path = dir.path().join("repertoire.qbk");
        let mut opts = BuildOptions::default();
        opts.params.max_ply = 10;
        book::build(&[Path::new(ROOT).join("books/repertoire.pgn")], &book_path, &opts).expect("book builds");
        let tb_dir = dir.path().join("tables");
        let options = GenerateOptions::new(&tb_dir);
        let krk: Material = "KRvK".parse().expect("material");
        generate_set(&[krk], &options).expect("table generates");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).expect("mkdir");
        Fixtures {
            book: std::fs::read(book_path).expect("book bytes"),
            table: std::fs::read(tb_dir.join("KRvK.qtb")).expect("table bytes"),
            wdl: std::fs::read(tb_dir.join("KRvK.qtw")).expect("WDL bytes"),
            work,
            _dir: dir,
        }
    })
}

/// A work directory of its own for each test thread (the checks write files into it).
fn work_dir(name: &str) -> PathBuf {
    let d = fixtures().work.join(format!("{name}-{:?}", std::thread::current().id()));
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

#[test]
fn real_files_pass_the_checks() {
    // The unmutated inputs must get through every check (the properties below start from them).
    let f = fixtures();
    check_book_bytes(&work_dir("book").join("x.qbk"), &f.book);
    check_table_bytes(&work_dir("table"), &f.table);
    check_wdl_bytes(&work_dir("wdl"), &f.table, &f.wdl);
    let book = qiku::book::Book::open(work_dir("book").join("x.qbk")).expect("the real book opens");
    assert!(!book.probe(&Position::startpos()).expect("book readable").is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn book_mutated(e in edits()) {
        let f = fixtures();
        check_book_bytes(&work_dir("book").join("x.qbk"), &mutate(&f.book, &e));
    }

    #[test]
    fn book_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_book_bytes(&work_dir("book").join("x.qbk"), &bytes);
    }

    #[test]
    fn table_mutated(e in edits()) {
        let f = fixtures();
        check_table_bytes(&work_dir("table"), &mutate(&f.table, &e));
    }

    #[test]
    fn wdl_mutated(e in edits()) {
        let f = fixtures();
        check_wdl_bytes(&work_dir("wdl"), &f.table, &mutate(&f.wdl, &e));
    }

    #[test]
    fn table_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_table_bytes(&work_dir("table"), &bytes);
    }
}

/// The checkpoint seeds (`fuzz/seeds/checkpoint/`): real state files of paged KRvK solves.
fn checkpoint_seeds() -> &'static [Vec<u8>] {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = Path::new(ROOT).join("fuzz/seeds/checkpoint");
        let mut paths: Vec<PathBuf> =
            std::fs::read_dir(&dir).expect("fuzz/seeds/checkpoint").map(|e| e.expect("entry").path()).collect();
        paths.sort();
        paths.iter().map(|p| std::fs::read(p).expect("seed")).collect()
    })
}

#[test]
fn real_checkpoint_states_pass_the_checks() {
    // Both seeds are accepted as they are (what the properties below start from).
    let seeds = checkpoint_seeds();
    assert_eq!(seeds.len(), 2);
    for seed in seeds {
        let again = qiku::tablebase::generate::fuzz_checkpoint_state(seed, CHECKPOINT_ENTRIES);
        assert_eq!(again.as_ref(), Ok(seed));
        check_checkpoint_bytes(seed);
    }
    // Read against a table of other entries, they are refused.
    let other = qiku::tablebase::generate::fuzz_checkpoint_state(&seeds[0], CHECKPOINT_ENTRIES + 8192);
    assert_eq!(other, Err("1 frontier flags for 2 chunks".to_string()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn checkpoint_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        let seeds = checkpoint_seeds();
        check_checkpoint_bytes(&mutate(&seeds[i.index(seeds.len())], &e));
    }

    #[test]
    fn checkpoint_random_words(words in prop::collection::vec(any::<u64>(), 0..64), small in prop::collection::vec(0u64..300, 0..64)) {
        // Behind the magic, so that they reach the lists; small numbers are lengths, levels
        // and entries more often.
        let mut bytes = b"QIKUCKP1".to_vec();
        for (w, s) in words.iter().zip(small.iter().chain(std::iter::repeat(&0))) {
            bytes.extend_from_slice(&(if w % 3 == 0 { *w } else { *s }).to_le_bytes());
        }
        bytes.extend_from_slice(&[0; 8]);
        check_checkpoint_bytes(&bytes);
    }

    #[test]
    fn checkpoint_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_checkpoint_bytes(&bytes);
    }
}

/// The XQF samples of `tests/data/xqf` (all versions, encrypted and not), the largest left out
/// to keep the properties quick.
fn xqf_samples() -> &'static [Vec<u8>] {
    static S: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    S.get_or_init(|| {
        let dir = Path::new(ROOT).join("tests/data/xqf");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("tests/data/xqf")
            .map(|e| e.expect("entry").path())
            .filter(|p| qiku::xqf::is_xqf_path(p))
            .collect();
        files.sort();
        files.iter().map(|p| std::fs::read(p).expect("sample")).filter(|b| b.len() < 20_000).collect()
    })
}

#[test]
fn xqf_samples_pass_the_checks() {
    let samples = xqf_samples();
    assert_eq!(samples.len(), 20);
    for s in samples {
        check_xqf_bytes(s);
        assert!(qiku::xqf::parse(s).is_ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn xqf_mutated(i in any::<prop::sample::Index>(), e in edits()) {
        let samples = xqf_samples();
        check_xqf_bytes(&mutate(&samples[i.index(samples.len())], &e));
    }

    #[test]
    fn xqf_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..1200)) {
        check_xqf_bytes(&bytes);
    }
}

/// The seed sessions of the `engine_session` target: the protocol byte, then the lines.
fn engine_sessions() -> &'static [Vec<u8>] {
    static SESSIONS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SESSIONS.get_or_init(|| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("fuzz/seeds/engine_session"))
            .expect("fuzz/seeds/engine_session")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        files.iter().map(|p| std::fs::read(p).expect("seed")).collect()
    })
}

/// Words engine sessions are made of, in both protocols, and some that are not.
const SESSION_WORDS: &[&str] = &[
    "uci",
    "ucci",
    "isready",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "time",
    "increment",
    "opptime",
    "oppincrement",
    "oppmovestogo",
    "draw",
    "infinite",
    "ponder",
    "mate",
    "searchmoves",
    "stop",
    "ponderhit",
    "setoption",
    "name",
    "value",
    "MultiPV",
    "Skill",
    "Level",
    "EvalTerms",
    "BookPolicy",
    "TablebaseRules",
    "usemillisec",
    "banmoves",
    "probe",
    "d",
    "eval",
    "true",
    "false",
    "basic",
    "full",
    "asian",
    "0",
    "1",
    "-1",
    "3",
    "99999999999999999999",
    "2.5",
    "1e400",
    "nan",
    "w",
    "b",
    "r",
    "-",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
    "3ak4/9/9/9/9/9/9/9/9/R2K5",
    "h2e2",
    "h9g7",
    "a0a8",
    "b0c2",
    "e9e8",
    "\t",
    "车",
    "\u{0}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn engine_session_mutated_real(i in any::<prop::sample::Index>(), e in edits()) {
        let sessions = engine_sessions();
        let data = mutate(&sessions[i.index(sessions.len())], &e);
        if let Some((&pick, rest)) = data.split_first() {
            if let Ok(text) = std::str::from_utf8(rest) {
                check_engine_session(text, pick % 2 == 1);
            }
        }
    }

    #[test]
    fn engine_session_word_soup(
        lines in prop::collection::vec(prop::collection::vec(prop::sample::select(SESSION_WORDS), 0..12), 0..24),
        ucci in any::<bool>(),
    ) {
        let text: Vec<String> = lines.iter().map(|l| l.join(" ")).collect();
        check_engine_session(&text.join("\n"), ucci);
    }
}

#[test]
fn engine_session_seeds_pass_the_checks() {
    let sessions = engine_sessions();
    assert_eq!(sessions.len(), 3);
    for s in sessions {
        check_engine_session(std::str::from_utf8(&s[1..]).expect("UTF-8"), s[0] % 2 == 1);
    }
}
