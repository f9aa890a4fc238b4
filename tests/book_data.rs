//! Books from the real collections shipped in books/games/: probe results against an independent
//! recount, the Chinese-notation and ICCS versions of CCPD giving the same book, the GBK and
//! Big5 samples giving the same books as the same games in UTF-8, and a result-less collection.

use crate::book_util;

use book_util::{fen_key, probed, Recount};
use qiku::book::{self, Book, BuildOptions, MinScore, MoveErrorKind, SkipReason};
use qiku::notation::iccs;
use qiku::{Move, Position};
use std::io::Read;
use std::path::{Path, PathBuf};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games");

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

fn decompress(name: &str) -> String {
    let mut text = String::new();
    zstd::Decoder::new(std::fs::File::open(data(name)).unwrap()).unwrap().read_to_string(&mut text).unwrap();
    text
}

/// A deliberately naive reader of the ICCS file, independent of `qiku::pgn`: tag lines, then
/// whitespace-separated movetext where move numbers end in `.` and results are the usual tokens.
fn iccs_games(text: &str) -> Vec<(Option<String>, Vec<Move>)> {
    let mut games = Vec::new();
    let mut result: Option<String> = None;
    let mut moves: Vec<Move> = Vec::new();
    let mut in_moves = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            if in_moves {
                games.push((result.take(), std::mem::take(&mut moves)));
                in_moves = false;
            }
            if let Some(v) = line.strip_prefix("[Result \"").and_then(|r| r.strip_suffix("\"]")) {
                result = Some(v.to_string());
            }
            continue;
        }
        for tok in line.split_whitespace() {
            in_moves = true;
            if tok.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok) {
                continue;
            }
            moves.push(iccs::parse_move(tok).unwrap_or_else(|e| panic!("{tok}: {e}")));
        }
    }
    if in_moves {
        games.push((result, moves));
    }
    games
}

#[test]
fn ccpd_iccs_probes_match_an_independent_recount() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("iccs.qbk");
    let report = book::build(&[data("ccpd-iccs.pgn.zst")], &out, &BuildOptions::default()).unwrap();
    let book = Book::open(&out).unwrap();

    let games = iccs_games(&decompress("ccpd-iccs.pgn.zst"));
    assert_eq!(games.len(), 25_368);
    assert_eq!(report.header.games.used, 25_368);
    let mut recount = Recount::default();
    let mut samples: Vec<Position> = Vec::new();
    for (i, (result, moves)) in games.iter().enumerate() {
        let start = Position::startpos();
        recount.add_game(&start, moves, result.as_deref(), 40);
        if i % 41 == 0 {
            // Positions along the game, up to and past the --max-ply boundary.
            let mut pos = start;
            for (ply, &m) in moves.iter().enumerate().take(43) {
                assert!(pos.is_legal(m), "game {i} ply {ply}");
                if ply % 3 == 0 || ply >= 38 {
                    samples.push(pos.clone());
                }
                pos = pos.play_unchecked(m);
            }
        }
    }
    let without_result = games.iter().filter(|(r, _)| !matches!(r.as_deref(), Some("1-0" | "0-1" | "1/2-1/2"))).count();
    assert_eq!(report.header.games.without_result, without_result as u64);
    let total: u64 = recount.map.values().map(|c| c.iter().sum::<u64>()).sum();
    assert_eq!(book.header().moves, total);

    // Every position of the first three plies the book knows, walked through the book itself.
    let mut frontier = vec![Position::startpos()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for pos in &frontier {
            for m in book.probe(pos).expect("book readable") {
                next.push(pos.play_unchecked(m.mv));
            }
        }
        samples.extend(frontier);
        frontier = next;
    }
    samples.extend(frontier);
    // And their mirror images (the same entries, moves mirrored).
    let mirrored: Vec<Position> = samples.iter().map(|p| p.mirror()).collect();
    samples.extend(mirrored);

    let mut seen = std::collections::HashSet::new();
    let mut nonempty = 0;
    for pos in &samples {
        if !seen.insert(fen_key(pos)) {
            continue;
        }
        let want = recount.expected(pos);
        assert_eq!(probed(&book, pos), want, "{}", pos.fen());
        nonempty += usize::from(!want.is_empty());
    }
    assert!(seen.len() > 10_000 && nonempty > 5_000, "{} sampled, {nonempty} in the book", seen.len());

    // Known figures: 1. h2e2 (炮二平五) is by far the most played first move.
    let start = book.probe(&Position::startpos()).expect("book readable");
    assert_eq!(start[0].mv.to_string(), "h2e2");
    assert_eq!(start[0].counts.games(), 15_609);
}

#[test]
fn chinese_and_iccs_versions_give_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let zh = dir.path().join("zh.qbk");
    let ic = dir.path().join("ic.qbk");
    let r_zh = book::build(&[data("ccpd-chinese-utf8.pgn.zst")], &zh, &BuildOptions::default()).unwrap();
    let r_ic = book::build(&[data("ccpd-iccs.pgn.zst")], &ic, &BuildOptions::default()).unwrap();
    // The Chinese file has 4 games more: each has an illegal move (a piece that cannot make the
    // written move), which is why the ICCS conversion dropped them. They are skipped here too.
    assert_eq!((r_zh.header.games.read, r_zh.header.games.used), (25_372, 25_368));
    assert_eq!(r_zh.skipped.get(&SkipReason::BadMove(MoveErrorKind::Illegal)), Some(&4));
    assert_eq!(r_zh.errors.len(), 4);
    assert!(r_zh.errors.iter().all(|e| e.token.is_some() && e.line > 0));
    assert_eq!(r_ic.skipped_total(), 0);
    // Everything else is identical: the records byte for byte, and the header but for games read.
    let (a, b) = (std::fs::read(&zh).unwrap(), std::fs::read(&ic).unwrap());
    assert!(a[128..] == b[128..], "record sections differ");
    let (ha, mut hb) = (*Book::open(&zh).unwrap().header(), *Book::open(&ic).unwrap().header());
    hb.games.read = ha.games.read;
    assert_eq!(ha, hb);
}

/// Cuts the UTF-8 Chinese collection into games (each starts with its `[Source` tag).
fn chinese_games(range: std::ops::Range<usize>) -> String {
    let text = decompress("ccpd-chinese-utf8.pgn.zst");
    let starts: Vec<usize> = text.match_indices("[Source ").map(|(i, _)| i).collect();
    let end = starts.get(range.end).copied().unwrap_or(text.len());
    text[starts[range.start]..end].to_string()
}

/// One byte that is not UTF-8 (0xE9, an `é` in Latin-1) in the first game of a UTF-8 collection
/// costs that game alone: the file is still read as UTF-8, not as GBK (which garbled every game:
/// all moves unknown tokens, all names unmatched by `--player`), and the bad game is reported
/// with its place and cause.
#[test]
fn a_stray_byte_costs_its_game_not_the_file() {
    use qiku::book::GameFilter;
    use qiku::pgn::TextEncoding;
    let dir = tempfile::tempdir().unwrap();
    let with_stray = |text: &str, name: &str| -> PathBuf {
        let at = text.find("[Event \"").unwrap() + "[Event \"".len();
        let mut bytes = text.as_bytes().to_vec();
        bytes.insert(at, 0xe9);
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    // Chinese notation: the first 165 games (about 300 KB).
    let zh = with_stray(&chinese_games(0..165), "zh.pgn");
    let r = book::build(&[zh], &dir.path().join("zh.qbk"), &BuildOptions::default()).unwrap();
    assert_eq!(r.files[0].encoding, Some(TextEncoding::Utf8));
    assert_eq!((r.header.games.read, r.header.games.used), (165, 164));
    assert_eq!(r.skipped.get(&SkipReason::BadHeader), Some(&1), "{:?}", r.skipped);
    let e = &r.errors[0];
    assert_eq!((e.game, e.line, e.column), (1, 3, 9));
    let shown = "zh.pgn: game 1, line 3, column 9: malformed header: bytes that are not UTF-8 near `[Event \"\\xe9`";
    assert!(e.to_string().ends_with(shown), "{e}");

    // ICCS moves, Chinese names: read right, the names match a player filter.
    let text = decompress("ccpd-iccs.pgn.zst");
    let starts: Vec<usize> = text.match_indices("[Game ").map(|(i, _)| i).take(301).collect();
    let games = &text[..starts[300]];
    let player = "柳大華";
    let named =
        |g: &&str| g.lines().any(|l| (l.starts_with("[Red ") || l.starts_with("[Black ")) && l.contains(player));
    let theirs = starts.windows(2).map(|w| &text[w[0]..w[1]]).filter(named).count() as u64;
    assert!(theirs > 10, "{theirs}");
    let iccs = with_stray(games, "iccs.pgn");
    let filter = GameFilter { player: Some(player.into()), ..GameFilter::default() };
    let opts = BuildOptions { filter, ..BuildOptions::default() };
    let r = book::build(&[iccs], &dir.path().join("iccs.qbk"), &opts).unwrap();
    assert_eq!(r.files[0].encoding, Some(TextEncoding::Utf8));
    assert_eq!(r.header.games.read, 300);
    // Game 1 is one of the player's, lost to the stray byte in its Event tag.
    assert_eq!((r.header.games.used, r.errors_total), (theirs - 1, 1));
    assert_eq!((r.errors[0].game, r.errors[0].line), (1, 2));
}

#[test]
fn gbk_and_big5_samples_match_the_same_games_in_utf8() {
    // The Big5 sample holds the collection's games 1-2000, the GBK sample (simplified
    // characters) games 2001-4000.
    // Without recent games: the section keeps the tags as written, and the GBK sample's names and
    // events are in simplified characters (tests/book_recent.rs merges these samples with it).
    let dir = tempfile::tempdir().unwrap();
    let build = |inputs: &[PathBuf], name: &str| -> (PathBuf, book::BuildReport) {
        let out = dir.path().join(name);
        let r = book::build(inputs, &out, &BuildOptions { recent_games: 0, ..BuildOptions::default() }).unwrap();
        (out, r)
    };
    let first = dir.path().join("first.pgn");
    let second = dir.path().join("second.pgn");
    std::fs::write(&first, chinese_games(0..2000)).unwrap();
    std::fs::write(&second, chinese_games(2000..4000)).unwrap();

    let (big5, r) = build(&[data("ccpd-sample-big5.pgn")], "big5.qbk");
    assert_eq!(r.files[0].encoding, Some(qiku::pgn::TextEncoding::Big5));
    assert_eq!(r.header.games.used, 2000);
    let (gbk, r) = build(&[data("ccpd-sample-gbk.pgn")], "gbk.qbk");
    assert_eq!(r.files[0].encoding, Some(qiku::pgn::TextEncoding::Gbk));
    assert_eq!(r.header.games.used, 2000);
    let (utf_first, _) = build(std::slice::from_ref(&first), "u1.qbk");
    let (utf_second, _) = build(std::slice::from_ref(&second), "u2.qbk");
    assert!(std::fs::read(&big5).unwrap() == std::fs::read(&utf_first).unwrap());
    assert!(std::fs::read(&gbk).unwrap() == std::fs::read(&utf_second).unwrap());

    // Merging the two samples gives the book of all 4000 games.
    let (both, _) = build(&[second, first], "both.qbk");
    let merged = dir.path().join("merged.qbk");
    book::merge_books(&[big5, gbk], &merged, 0, MinScore::NONE).unwrap();
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&both).unwrap());
}

#[test]
fn games_without_results_count_only_toward_frequency() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wukong.qbk");
    let r = book::build(&[data("wukong-hu-ronghua-uci.pgn")], &out, &BuildOptions::default()).unwrap();
    assert_eq!(r.header.games.used, 1391);
    assert_eq!(r.header.games.without_result, 1391);
    let book = Book::open(&out).unwrap();
    assert!(book.entries().all(|e| e.counts.decided() == 0 && e.counts.unknown > 0));
    let start = book.probe(&Position::startpos()).expect("book readable");
    assert_eq!(start.iter().map(|m| m.counts.games()).sum::<u64>(), 1391);
}

/// `1234567` as `1,234,567`, as the docs write numbers.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What docs/BOOK.md states about the book of the shipped ICCS collection is what a build of it
/// gives: file sizes with and without recent games, positions, distinct moves and moves in all.
#[test]
fn book_md_states_the_shipped_collections_real_counts() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/BOOK.md")).unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let dir = tempfile::tempdir().unwrap();
    for recent in [0u32, 5] {
        let out = dir.path().join(format!("ccpd-{recent}.qbk"));
        let opts = BuildOptions { recent_games: recent, ..BuildOptions::default() };
        let r = book::build(&[data("ccpd-iccs.pgn.zst")], &out, &opts).unwrap();
        let h = r.header;
        let len = std::fs::metadata(&out).unwrap().len();
        let row = format!("| {recent}{} | {} B |", if recent == 5 { " (default)" } else { "" }, thousands(len));
        assert!(doc.contains(&row), "BOOK.md lacks {row:?}");
        let counts = format!(
            "{} positions and {} distinct moves ({} in all)",
            thousands(h.positions),
            thousands(h.records),
            thousands(h.moves)
        );
        assert!(doc.contains(&counts), "BOOK.md lacks {counts:?}");
        assert!(doc.contains(&format!("{}-game ICCS collection", thousands(h.games.used))));
        assert!(doc.contains(&format!("{} without result", h.games.without_result)));
        if recent == 5 {
            assert!(doc.contains(&format!("| {} B |", thousands(h.section_len))), "section {}", h.section_len);
            assert!(doc.contains(&format!("The section holds {} positions", thousands(h.positions))));
        }
    }
}
