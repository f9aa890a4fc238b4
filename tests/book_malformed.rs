//! Malformed input at the build level: every bad game is counted under its reason and located
//! (file, game, line, token), the rest of the input still builds, and nothing panics, whatever
//! the bytes (hand-made breakage, random mutations, binary junk, wrong encodings, truncated zstd).

use crate::book_util;

use book_util::{generate_games, write_pgn, Rng};
use qiku::book::{self, Book, BuildOptions, BuildParams, BuildReport, MoveErrorKind, SkipReason};
use qiku::pgn::EncodingChoice;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn build(inputs: &[PathBuf], dir: &Path, o: &BuildOptions) -> BuildReport {
    let out = dir.join("out.qbk");
    let report = book::build(inputs, &out, o).unwrap_or_else(|e| panic!("build failed: {e}"));
    // Every game read is either used or skipped for a counted reason.
    assert_eq!(report.header.games.read, report.header.games.used + report.skipped_total());
    let book = Book::open(&out).unwrap();
    assert_eq!(book.header(), &report.header);
    report
}

const GOOD: &str = "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n";

#[test]
fn hand_made_breakage_is_counted_and_located() {
    let dir = tempfile::tempdir().unwrap();
    let text = [
        GOOD,                                                             // game 1, lines 1-3
        "[Result \"0-1\"]\n\n1. h2e2 xyz 2. h0g2 0-1\n\n",                // 2: unknown token, line 7
        "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. i0i5 1-0\n\n",               // 3: illegal, line 11
        "[Result \"1-0\"]\n\n1. e5e6 1-0\n\n",                            // 4: no such piece, line 15
        "[Result \"1-0\"]\n[FEN \"rnbakabnr/9/9 w\"]\n\n1. h2e2 1-0\n\n", // 5: bad FEN, line 18
        "[Result \"maybe\"]\n\n1. h2e2 1-0\n\n",                          // 6: bad result tag, line 22
        "[Event \"unterminated\n\n1. h2e2 1-0\n\n",                       // 7: broken tag, line 25
        "[Result \"1-0\"]\n\n1. h2e2 {never closed\n\n",                  // 8: unterminated comment
        GOOD,
        "[Result \"1/2-1/2\"]\n\n1. h2e2 h9", // truncated at end of file
    ]
    .concat();
    let f = write(dir.path(), "broken.pgn", text.as_bytes());
    let report = build(std::slice::from_ref(&f), dir.path(), &BuildOptions::default());
    let by = |r: SkipReason| report.skipped.get(&r).copied().unwrap_or(0);
    assert_eq!(by(SkipReason::BadMove(MoveErrorKind::Syntax)), 1, "{:#?}", report.errors); // xyz
                                                                                           // The last game, which the file ends in (`h9`, no result token): cut short.
    assert_eq!((by(SkipReason::CutShort), report.cut_short), (1, 1), "{:#?}", report.errors);
    assert_eq!(by(SkipReason::BadMove(MoveErrorKind::Illegal)), 1);
    assert_eq!(by(SkipReason::BadMove(MoveErrorKind::NoSuchPiece)), 1);
    assert!(by(SkipReason::BadHeader) >= 3, "{:#?}", report.errors);
    assert_eq!(report.header.games.used, 2);
    let find = |token: &str| report.errors.iter().find(|e| e.token.as_deref() == Some(token)).unwrap();
    let e = find("xyz");
    assert_eq!((e.game, e.line, e.column), (2, 7, 9));
    assert!(e.file.ends_with("broken.pgn"));
    assert!(e.to_string().contains("broken.pgn: game 2, line 7, column 9: unknown move token at \"xyz\""), "{e}");
    // A token no notation reads, in a game without a [Format] tag: each notation's reason, as a
    // move on the command line gets (its shape alone suggested one notation).
    assert!(e.detail.contains("read as WXF: ") && e.detail.contains("; read as ICCS: "), "{e}");
    assert_eq!((find("i0i5").game, find("i0i5").line), (3, 11));
    assert_eq!(find("e5e6").reason, SkipReason::BadMove(MoveErrorKind::NoSuchPiece));
    let fen = report.errors.iter().find(|e| e.detail.contains("FEN")).unwrap();
    assert_eq!((fen.game, fen.line, fen.reason), (5, 18, SkipReason::BadHeader));
    let result = report.errors.iter().find(|e| e.detail.contains("maybe")).unwrap();
    assert_eq!((result.game, result.line), (6, 22));
    // Errors come in file order.
    assert!(report.errors.windows(2).all(|w| (w[0].game, w[0].line) <= (w[1].game, w[1].line)));
    // Only the good games' moves are stored: 2 games x 4 plies.
    assert_eq!(report.header.moves, 8);
}

#[test]
fn junk_wrong_encodings_and_truncated_zstd_do_not_stop_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.pgn", GOOD.repeat(3).as_bytes());
    let mut rng = Rng::new(5);
    let junk: Vec<u8> = (0..50_000).map(|_| rng.next_u64() as u8).collect();
    let junk = write(dir.path(), "junk.bin", &junk);
    // GBK bytes (炮二平五 etc.) in a file forced to be read as UTF-8.
    let gbk =
        [b"[Result \"1-0\"]\n\n1. ".as_slice(), &[0xc5, 0xda, 0xb6, 0xfe, 0xc6, 0xbd, 0xce, 0xe5], b" 1-0\n"].concat();
    let gbk = write(dir.path(), "gbk.pgn", &gbk);
    // A zstd file cut in the middle.
    let games = generate_games(11, 3000);
    let compressed = zstd::encode_all(write_pgn(&games).as_bytes(), 3).unwrap();
    let cut = write(dir.path(), "cut.pgn.zst", &compressed[..compressed.len() / 2]);
    let whole_zst = write(dir.path(), "whole.pgn.zst", &compressed);

    // Binary data is not a game file: refused up front, naming the file (it used to give
    // thousands of syntax errors and an empty book).
    let err = book::build(&[good.clone(), junk], &dir.path().join("junk.qbk"), &BuildOptions::default()).unwrap_err();
    assert!(matches!(err, book::BuildError::NotText(_)), "{err}");
    assert!(err.to_string().contains("junk.bin") && err.to_string().contains("NUL"), "{err}");
    let inputs = vec![good.clone(), gbk, cut.clone()];
    let o = BuildOptions { encoding: EncodingChoice::Utf8, ..BuildOptions::default() };
    let report = build(&inputs, dir.path(), &o);
    assert!(report.header.games.used >= 3);
    let cut_report = report.files.iter().find(|f| f.path == cut).unwrap();
    assert!(cut_report.compressed);
    assert!(cut_report.error.is_some(), "a truncated zstd stream must be reported");
    assert!(cut_report.games > 100 && cut_report.games < 3000, "{}", cut_report.games);
    assert!(report.errors.iter().any(|e| e.file.ends_with("gbk.pgn")), "{:#?}", report.errors);
    // Cut so short that not even the encoding sample decompresses: reported, not fatal.
    let stub = write(dir.path(), "stub.pgn.zst", &compressed[..100]);
    let report = build(&[good.clone(), stub.clone()], dir.path(), &BuildOptions::default());
    assert_eq!(report.header.games.used, 3);
    let stub_report = report.files.iter().find(|f| f.path == stub).unwrap();
    // The report names the file apart; its error is the cause alone.
    let cause = stub_report.error.as_deref().unwrap_or_default();
    assert!(cause.contains("decompress") && !cause.contains("stub.pgn.zst"), "{cause:?}");

    // The whole compressed file reads completely, detected by content, not by name.
    let report = build(&[whole_zst], dir.path(), &BuildOptions::default());
    assert_eq!((report.header.games.read, report.header.games.used), (3000, 3000));

    // A missing input fails the build up front, naming the file.
    let err = book::build(&[good, dir.path().join("missing.pgn")], &dir.path().join("x.qbk"), &BuildOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("missing.pgn"), "{err}");
}

/// A megabyte of junk in one token makes a message of a line, not of two megabytes; a movetext
/// line over the reader's limit is a syntax error (with the limit), not a malformed header.
#[test]
fn huge_tokens_and_lines_give_short_messages_under_the_right_reason() {
    let dir = tempfile::tempdir().unwrap();
    let junk = "x".repeat(500_000);
    let long_line = "h2e2 h9g7 ".repeat(120_000);
    let text = format!("[Result \"1-0\"]\n\n1. h2e2 {junk} 1-0\n\n{GOOD}[Result \"1-0\"]\n\n1. {long_line}\n");
    let file = write(dir.path(), "huge.pgn", text.as_bytes());
    let report = build(&[file], dir.path(), &BuildOptions::default());
    assert_eq!((report.header.games.read, report.header.games.used), (3, 1));
    assert_eq!(report.skipped.get(&SkipReason::Syntax), Some(&1), "{:?}", report.skipped);
    assert_eq!(report.skipped.get(&SkipReason::BadHeader), None);
    let messages: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(messages.iter().all(|m| m.len() < 400), "{messages:#?}");
    assert!(messages[0].contains("game 1, line 3, column 9") && messages[0].contains("(500000 bytes)"));
    assert!(messages[1].contains("game 3") && messages[1].contains("line too long (over the reader's limit, 1 MiB"));
}

/// A line over the reader's limit (1 MiB) is the error of the game it belongs to, and reading
/// goes on at the next game: a tag line's game is left out whole (not cut into a broken game and
/// a game of its remaining tags and moves), and in a move list every later line is still a game.
#[test]
fn an_over_long_line_costs_its_own_game_only() {
    let dir = tempfile::tempdir().unwrap();
    let long_tag = format!("[Event \"{}\"]\n[Result \"0-1\"]\n\n1. c3c4 0-1\n\n", "y".repeat(1_100_000));
    let pgn = write(dir.path(), "tag.pgn", [GOOD, &long_tag, GOOD].concat().as_bytes());
    let report = build(&[pgn], dir.path(), &BuildOptions::default());
    assert_eq!((report.header.games.read, report.header.games.used), (3, 2));
    assert_eq!(report.skipped.get(&SkipReason::Syntax), Some(&1), "{:?}", report.skipped);
    let e = &report.errors[0];
    assert_eq!((e.game, e.line, e.column), (2, 5, 1));
    // c3c4 (兵七進一), black's reply only in the broken game, is nowhere in the book.
    assert_eq!(report.header.games.used * 4, report.raw_records);

    let lines = format!("{}\nh0g2 h9g7\nb0c2\n", "h2e2 h9g7 ".repeat(110_000));
    let txt = write(dir.path(), "lines.txt", lines.as_bytes());
    let report = build(&[txt], dir.path(), &BuildOptions::default());
    assert_eq!((report.header.games.read, report.header.games.used), (3, 2));
    assert_eq!(report.raw_records, 3);
    let e = &report.errors[0];
    assert_eq!((e.game, e.line, e.column, e.reason), (1, 1, 1, SkipReason::Syntax));
}

/// Under `--min-elo`, an Elo tag with no rating in it (empty, or the PGN standard's `-` for
/// unrated and `?` for unknown) is as if the tag were not there: the game is counted under "no
/// Elo tags", not skipped as a malformed header. A value that is no number, or too large to be
/// a rating, still is one.
#[test]
fn elo_tags_without_a_rating_count_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    let game = |red: &str, black: &str| {
        format!("[RedElo \"{red}\"]\n[BlackElo \"{black}\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n")
    };
    let text = [
        game("", "2500"),
        game("2500", " "),
        game("-", "2500"),
        game("?", "?"),
        "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n".to_string(),
        game("2500", "2600"),
        game("2500", "strong"),
        game("99999999999", "2500"),
    ]
    .concat();
    let f = write(dir.path(), "elo.pgn", text.as_bytes());
    let o =
        BuildOptions { params: BuildParams { min_elo: Some(2200), ..BuildParams::default() }, ..Default::default() };
    let report = build(&[f], dir.path(), &o);
    assert_eq!(report.skipped.get(&SkipReason::NoElo), Some(&5), "{:?}", report.skipped);
    assert_eq!(report.skipped.get(&SkipReason::BadHeader), Some(&2));
    assert_eq!(report.header.games.used, 1);
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(errors[0].contains("game 7, line 36, column 1: malformed header: Elo tag \"strong\" is not a number"));
    assert!(
        errors[1].contains("game 8, line 41, column 1: malformed header: Elo tag \"99999999999\" is too large to be a rating (at most 4294967295)"),
        "{errors:#?}"
    );
}

#[test]
fn random_mutations_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(12, 30);
    let text = write_pgn(&games).into_bytes();
    let mut rng = Rng::new(99);
    let mut inputs = Vec::new();
    for i in 0..60 {
        let mut bytes = text.clone();
        for _ in 0..1 + (rng.below(20) as usize) {
            if bytes.is_empty() {
                break;
            }
            let at = rng.below(bytes.len() as u64) as usize;
            match rng.below(4) {
                0 => bytes[at] = rng.next_u64() as u8,
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, b"[]{}()\"\n;$!?*0-1 \xff\x00"[rng.below(19) as usize]),
                _ => bytes.truncate(at),
            }
        }
        inputs.push(write(dir.path(), &format!("m{i}.pgn"), &bytes));
    }
    let report = build(&inputs, dir.path(), &keep_prefix_default());
    assert!(report.header.games.read >= 30);
    let report = build(&inputs, dir.path(), &BuildOptions::default());
    assert!(report.header.games.used > 0);
    assert!(report.errors_total > 0);
}

fn keep_prefix_default() -> BuildOptions {
    BuildOptions { params: book::BuildParams { keep_prefix: true, ..Default::default() }, ..BuildOptions::default() }
}

/// Files packed by other tools are named for what they are, with what to do, not "binary data";
/// text that merely starts like a signature is read as text.
#[test]
fn packed_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        ("a.pgn.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03junk", "gzip-compressed (.gz)"),
        ("a.zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00junk", "a zip archive"),
        ("a.bz2", b"BZh91AY&SY\x01\x02junk", "bzip2-compressed (.bz2)"),
        ("a.xz", b"\xfd7zXZ\x00\x00\x04junk", "xz-compressed (.xz)"),
    ];
    for (name, bytes, what) in cases {
        let file = write(dir.path(), name, bytes);
        let err = book::build(&[file], &dir.path().join("out.qbk"), &BuildOptions::default()).unwrap_err();
        assert!(matches!(err, book::BuildError::NotText(_)), "{name}: {err}");
        let msg = err.to_string();
        assert!(msg.contains(name) && msg.contains(what) && msg.contains("recompress it with zstd"), "{msg}");
    }
    // A GUI's SQLite book and an XQF game under another name: named, with the command or the
    // name that reads them.
    let xqf = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/BadMoveTest1.xqf")).unwrap();
    let sqlite = [b"SQLite format 3\0".as_slice(), &[0u8; 100]].concat();
    for (name, bytes, what) in
        [("book.pgn", &sqlite[..], "`qiku-book import`"), ("game.dat", &xqf[..], "name it with the .xqf extension")]
    {
        let file = write(dir.path(), name, bytes);
        let err = book::build(&[file], &dir.path().join("out.qbk"), &BuildOptions::default()).unwrap_err();
        assert!(matches!(err, book::BuildError::NotText(_)), "{name}: {err}");
        assert!(err.to_string().contains(what), "{err}");
    }
    let text = write(dir.path(), "bz.pgn", format!("BZh9 is no move\n\n{GOOD}").as_bytes());
    let report = build(&[text], dir.path(), &BuildOptions::default());
    assert_eq!(report.header.games.used, 1, "read as text: the good game is used");
}

/// Chinese `[Result]` tags, as Xiangqi sites and programs write them, count as the results they
/// state, in both scripts; a tag that is no result still skips its game, quoted.
#[test]
fn chinese_result_tags_count_as_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let game = |result: &str| format!("[Result \"{result}\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9\n\n");
    let red = ["红胜", "紅勝", "红先胜", "黑负", "黑負"];
    let black = ["黑胜", "黑勝", "红负", "紅先負"];
    let draw = ["和棋", "和局", "和", "红和", "紅先和"];
    let mut text: String = red.iter().chain(&black).chain(&draw).map(|r| game(r)).collect();
    text.push_str(&game("红赢了"));
    let f = write(dir.path(), "zh-results.pgn", text.as_bytes());
    let report = build(std::slice::from_ref(&f), dir.path(), &BuildOptions::default());
    assert_eq!(report.header.games.used, 14, "{:#?}", report.errors);
    assert_eq!(report.skipped.get(&SkipReason::BadHeader), Some(&1));
    assert!(report.errors[0].detail.contains("\"红赢了\""), "{}", report.errors[0]);
    let book = Book::open(dir.path().join("out.qbk")).unwrap();
    let pos = qiku::core::Position::startpos();
    let moves = book.probe(&pos).unwrap();
    let c = moves.iter().find(|m| m.mv.to_string() == "h2e2").expect("h2e2 in the book").counts;
    // Red is the mover: its wins are red's.
    assert_eq!((c.wins, c.draws, c.losses, c.unknown), (5, 5, 4, 0), "{c:?}");
}

/// Moves written with ranks 1 to 10 (`h3e3` for ICCS `h2e2`) are named as such: the error says
/// which legal move the token is with its ranks lowered by one; a move that is wrong either way
/// gets no such note.
#[test]
fn moves_with_ranks_from_one_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("[Result \"1-0\"]\n\n1. h3e3 h10g8 1-0\n\n[Result \"1-0\"]\n\n1. e5e6 1-0\n\n{GOOD}");
    let f = write(dir.path(), "ranks.pgn", text.as_bytes());
    let report = build(std::slice::from_ref(&f), dir.path(), &keep_prefix_default());
    let detail = |token: &str| report.errors.iter().find(|e| e.token.as_deref() == Some(token)).unwrap().detail.clone();
    assert!(
        detail("h3e3").ends_with(
            "(with ranks counted 1 to 10 it is the legal move h2e2: ICCS counts ranks 0 to 9, so the file's moves need \
             their ranks lowered by one)"
        ),
        "{}",
        detail("h3e3")
    );
    assert!(!detail("e5e6").contains("ranks counted"), "{}", detail("e5e6"));
}
