//! The recent-games section and the game filters of `qiku-book build`: a hand-written collection
//! whose recent games per position are known (newest first, mirror images, FEN starts,
//! duplicates), books of the previous format, exact filter counts on the shipped collection,
//! determinism, merging, and damaged sections.

use qiku::book::{self, Book, BuildOptions, FilterMiss, GameFilter, SkipReason, Verify};
use qiku::notation::iccs;
use qiku::pgn::GameResult;
use qiku::{Move, Position};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One hand-written game: (name, date tag, FEN or "", ICCS moves, result).
struct G {
    name: &'static str,
    date: &'static str,
    fen: &'static str,
    moves: &'static str,
    result: &'static str,
}

const AFTER_H2E2_H9G7: &str = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 0 2";

const GAMES: &[G] = &[
    G { name: "G1", date: "2001.01.01", fen: "", moves: "h2e2 h9g7 h0g2 i9h9 i0h0", result: "1-0" },
    G { name: "G2", date: "2005.06.01", fen: "", moves: "h2e2 h9g7 h0g2", result: "1/2-1/2" },
    // The mirror image of G2's first moves.
    G { name: "G3", date: "2003年3月3日", fen: "", moves: "b2e2 b9c7 b0c2", result: "0-1" },
    G { name: "G4", date: "", fen: "", moves: "h2e2 h9g7", result: "*" },
    G { name: "G5", date: "4/17/1996", fen: "", moves: "h2e2 b9c7 b0c2", result: "1-0" },
    // Starts after 1. h2e2 h9g7 and transposes into G1 at its ply 4.
    G { name: "G6", date: "2010-02-03", fen: AFTER_H2E2_H9G7, moves: "h0g2 i9h9 i0h0", result: "0-1" },
    // Identical to G2 in every stored field: stored and listed once.
    G { name: "G2", date: "2005.06.01", fen: "", moves: "h2e2 h9g7 h0g2", result: "1/2-1/2" },
    // The same date as G2: the tie is broken by the games' fingerprints.
    G { name: "G8", date: "2005.06.01", fen: "", moves: "h2e2 h9g7 h0g2 i9h9", result: "1-0" },
];

fn pgn() -> String {
    let mut s = String::new();
    for g in GAMES {
        s += &format!("[Event \"Test {}\"]\n[Red \"{} red\"]\n[Black \"{} black\"]\n", g.name, g.name, g.name);
        s += &format!("[Date \"{}\"]\n[Result \"{}\"]\n[ECCO \"B10\"]\n", g.date, g.result);
        if !g.fen.is_empty() {
            s += &format!("[FEN \"{}\"]\n", g.fen);
        }
        s += &format!("\n{} {}\n\n", g.moves, g.result);
    }
    s
}

fn start_of(g: &G) -> Position {
    if g.fen.is_empty() {
        Position::startpos()
    } else {
        Position::from_fen(g.fen).unwrap()
    }
}

fn moves_of(g: &G) -> Vec<Move> {
    let mut pos = start_of(g);
    g.moves
        .split_whitespace()
        .map(|t| {
            let m = iccs::parse(&pos, t).unwrap();
            pos = pos.play(m).unwrap();
            m
        })
        .collect()
}

fn play(start: &Position, line: &str) -> Position {
    let mut pos = start.clone();
    for t in line.split_whitespace() {
        pos = pos.play(iccs::parse(&pos, t).unwrap()).unwrap();
    }
    pos
}

/// Placement and side to move (the FEN without its move counters).
fn board(p: &Position) -> String {
    p.fen().split(' ').take(2).collect::<Vec<_>>().join(" ")
}

fn build(inputs: &[PathBuf], out: &Path, opts: &BuildOptions) -> book::BuildReport {
    book::build(inputs, out, opts).unwrap_or_else(|e| panic!("build failed: {e}"))
}

fn small_book(dir: &Path, keep: u32) -> PathBuf {
    let input = dir.join("g.pgn");
    std::fs::write(&input, pgn()).unwrap();
    let out = dir.join(format!("g{keep}.qbk"));
    let report = build(&[input], &out, &BuildOptions { recent_games: keep, ..BuildOptions::default() });
    assert_eq!(report.header.games.used, GAMES.len() as u64, "{:?}", report.errors);
    out
}

/// The names of the games listed for `pos`, checking each: its moves are legal, reach `pos`
/// after `ply` moves, and are the game's moves (mirrored when `mirrored`).
fn listed(book: &Book, pos: &Position) -> Vec<&'static str> {
    let games = book.recent_games(pos).unwrap();
    assert!(games.len() <= book.recent_games_kept() as usize);
    games
        .iter()
        .map(|r| {
            let mut p = r.start.clone();
            for (i, &m) in r.moves.iter().enumerate() {
                if i == r.ply {
                    assert_eq!(p.key(), pos.key(), "{} does not reach {}", r.red, pos.fen());
                }
                p = p.play(m).unwrap();
            }
            let name = GAMES.iter().find(|g| format!("{} red", g.name) == r.red).unwrap();
            let mut want = moves_of(name);
            let mut start = start_of(name);
            if r.mirrored {
                want = want.iter().map(|m| m.mirror()).collect();
                start = start.mirror();
            }
            assert_eq!((&r.moves, r.start.fen()), (&want, start.fen()), "{}", name.name);
            assert_eq!(r.event, format!("Test {}", name.name));
            assert_eq!(r.date, name.date);
            assert_eq!(r.ecco, "B10");
            name.name
        })
        .collect()
}

#[test]
fn recent_games_are_the_newest_through_each_position() {
    let dir = tempfile::tempdir().unwrap();
    let book = Book::open(small_book(dir.path(), 3)).unwrap();
    assert_eq!(book.recent_games_kept(), 3);
    assert_eq!(book.header().version, 2);
    let start = Position::startpos();
    // 2005.06.01 twice (G2 and G8, in fingerprint order; G2's duplicate once), then 2003.
    let s = listed(&book, &start);
    assert_eq!(s.len(), 3);
    assert_eq!(s[..2].iter().copied().collect::<BTreeSet<_>>(), BTreeSet::from(["G2", "G8"]));
    assert_eq!(s[2], "G3");
    // After h2e2: G3 played b2e2, the mirror image, and is listed mirrored.
    let after = play(&start, "h2e2");
    assert_eq!(listed(&book, &after)[2], "G3");
    let g3 = &book.recent_games(&after).unwrap()[2];
    assert!(g3.mirrored && g3.ply == 1);
    assert_eq!(g3.when.map(|d| d.to_string()).as_deref(), Some("2003.03.03"));
    assert_eq!(g3.result, Some(GameResult::BlackWins));
    // ...and probing the mirror image lists the same games, G3 as played.
    let mirror = play(&start, "b2e2");
    let m = book.recent_games(&mirror).unwrap();
    assert_eq!(m.len(), 3);
    assert!(!m[2].mirrored && m[2].red == "G3 red");
    assert!(m[..2].iter().all(|g| g.mirrored));
    // After h2e2 h9g7: G6 (2010, starting from that very position) comes first.
    let two = play(&start, "h2e2 h9g7");
    let l = listed(&book, &two);
    assert_eq!(l[0], "G6");
    assert_eq!(book.recent_games(&two).unwrap()[0].ply, 0);
    // G1 and G6 transpose: G6 at ply 2 (2010) before G1 at ply 4 (2001).
    let four = play(&start, "h2e2 h9g7 h0g2 i9h9");
    assert_eq!(listed(&book, &four), ["G6", "G1"]);
    let plies: Vec<usize> = book.recent_games(&four).unwrap().iter().map(|g| g.ply).collect();
    assert_eq!(plies, [2, 4]);
    // After h2e2 b9c7 only G5 (4/17/1996 read as 1996.04.17), and the undated G4 nowhere before
    // older dated games: after h2e2 h9g7 h0g2 G4 never went there.
    let five = play(&start, "h2e2 b9c7");
    assert_eq!(listed(&book, &five), ["G5"]);
    assert_eq!(book.recent_games(&five).unwrap()[0].when.map(|d| d.to_string()).as_deref(), Some("1996.04.17"));
    // A position no game reached, and the last position of a game (no move was played there).
    assert!(book.recent_games(&play(&start, "c3c4")).unwrap().is_empty());
    assert!(book.recent_games(&play(&start, "h2e2 h9g7 h0g2 i9h9 i0h0")).unwrap().is_empty());

    // With room for every game, the undated G4 comes last (G6 starts after this position).
    let all = Book::open(small_book(dir.path(), 10)).unwrap();
    let l = listed(&all, &after);
    assert_eq!(l[..2].iter().copied().collect::<BTreeSet<_>>(), BTreeSet::from(["G2", "G8"]));
    assert_eq!(l[2..], ["G3", "G1", "G5", "G4"]);
    // The tie is broken the same way everywhere: G2 and G8 in the same order at every position.
    assert_eq!(l[..2], s[..2]);
    // Every book position of the collection agrees with an independent search of the games.
    for g in GAMES {
        let mut pos = start_of(g);
        for m in moves_of(g) {
            let mut want: Vec<(&str, &str)> = GAMES
                .iter()
                .filter(|h| {
                    let mut p = start_of(h);
                    moves_of(h).into_iter().any(|m| {
                        let hit = board(&p) == board(&pos) || board(&p.mirror()) == board(&pos);
                        p = p.play(m).unwrap();
                        hit
                    })
                })
                .map(|h| (h.name, h.date))
                .collect();
            want.sort();
            want.dedup();
            let mut got: Vec<(&str, &str)> =
                listed(&all, &pos).into_iter().map(|n| (n, GAMES.iter().find(|h| h.name == n).unwrap().date)).collect();
            got.sort();
            assert_eq!(got, want, "{}", pos.fen());
            pos = pos.play(m).unwrap();
        }
    }
}

#[test]
fn books_of_the_previous_format_open_and_recent_games_zero_writes_them() {
    // Built by the code before the recent-games section (format version 1).
    let fixture = Path::new(ROOT).join("fuzz/seeds/book/repertoire-ply8.qbk");
    let old = Book::open(&fixture).unwrap();
    assert_eq!((old.header().version, old.recent_games_kept()), (1, 0));
    assert!(!old.probe(&Position::startpos()).expect("book readable").is_empty());
    assert!(old.recent_games(&Position::startpos()).unwrap().is_empty());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rep.qbk");
    let mut opts = BuildOptions { recent_games: 0, ..BuildOptions::default() };
    opts.params.max_ply = 8;
    build(&[Path::new(ROOT).join("books/repertoire.pgn")], &out, &opts);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&fixture).unwrap());
    // With the section: the same records, a longer file.
    let with = dir.path().join("rep5.qbk");
    build(&[Path::new(ROOT).join("books/repertoire.pgn")], &with, &BuildOptions { recent_games: 5, ..opts });
    let new = Book::open(&with).unwrap();
    assert_eq!(new.entries().collect::<Vec<_>>(), old.entries().collect::<Vec<_>>());
    assert_eq!(new.recent_games(&Position::startpos()).unwrap().len(), 5);
}

/// The tags of every game of the shipped ICCS collection, read with a plain line scan.
fn collection_tags() -> Vec<std::collections::HashMap<String, String>> {
    let mut text = String::new();
    zstd::Decoder::new(std::fs::File::open(Path::new(ROOT).join("books/games/ccpd-iccs.pgn.zst")).unwrap())
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let mut games = Vec::new();
    let mut in_tags = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix('[') {
            if !in_tags {
                games.push(std::collections::HashMap::new());
                in_tags = true;
            }
            let (name, value) = rest.split_once(' ').unwrap();
            let value = value.trim_end_matches(']').trim_matches('"');
            games.last_mut().unwrap().insert(name.to_string(), value.to_string());
        } else if !line.trim().is_empty() {
            in_tags = false;
        }
    }
    games
}

/// A year as the date reading takes it (1000-2999): the first number if it has four or eight
/// digits, else the third if the first two have at most two (`5/12/2003`, `12，5，2003`).
fn year_of(date: &str) -> Option<u32> {
    let d: String = date
        .chars()
        .map(|c| if ('０'..='９').contains(&c) { char::from_u32(c as u32 - 0xFEE0).unwrap() } else { c })
        .collect();
    let numbers: Vec<&str> = d.split(|c: char| !c.is_ascii_digit()).filter(|n| !n.is_empty()).collect();
    let year = match numbers[..] {
        [first, ..] if first.len() == 4 || first.len() == 8 => first[..4].parse().ok(),
        [a, b, y, ..] if a.len() <= 2 && b.len() <= 2 && y.len() == 4 => y.parse().ok(),
        _ => None,
    };
    year.filter(|y| (1000..=2999).contains(y))
}

#[test]
fn filters_count_exactly_on_the_shipped_collection() {
    let tags = collection_tags();
    assert_eq!(tags.len(), 25_368);
    let get = |g: &std::collections::HashMap<String, String>, k: &str| g.get(k).cloned().unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    let input = [Path::new(ROOT).join("books/games/ccpd-iccs.pgn.zst")];
    let cases: Vec<(GameFilter, FilterMiss, usize)> = vec![
        (
            GameFilter { player: Some("許銀川".into()), ..GameFilter::default() },
            FilterMiss::Player,
            tags.iter().filter(|g| get(g, "Red").contains("許銀川") || get(g, "Black").contains("許銀川")).count(),
        ),
        (
            GameFilter { black: Some("胡榮華".into()), ..GameFilter::default() },
            FilterMiss::Player,
            tags.iter().filter(|g| get(g, "Black").contains("胡榮華")).count(),
        ),
        (
            GameFilter { event: Some("全國".into()), ..GameFilter::default() },
            FilterMiss::Event,
            tags.iter().filter(|g| get(g, "Event").contains("全國")).count(),
        ),
        (
            GameFilter { ecco: Some("C".parse().unwrap()), ..GameFilter::default() },
            FilterMiss::Ecco,
            tags.iter().filter(|g| get(g, "ECCO").starts_with('C')).count(),
        ),
        (
            GameFilter {
                since: Some("2010".parse().unwrap()),
                until: Some("2010".parse().unwrap()),
                ..GameFilter::default()
            },
            FilterMiss::Date,
            tags.iter().filter(|g| year_of(&get(g, "Date")) == Some(2010)).count(),
        ),
    ];
    for (filter, miss, want) in cases {
        assert!(want > 100, "{filter:?}: {want}");
        let out = dir.path().join("f.qbk");
        let opts = BuildOptions { filter: filter.clone(), recent_games: 0, ..BuildOptions::default() };
        let report = build(&input, &out, &opts);
        assert_eq!(report.header.games.read, 25_368);
        assert_eq!(report.header.games.used, want as u64, "{filter:?}");
        assert_eq!(report.filtered_total(), 25_368 - want as u64, "{filter:?}");
        let undated = report.skipped.get(&SkipReason::Filtered(FilterMiss::NoDate)).copied().unwrap_or(0);
        if miss == FilterMiss::Date {
            let no_year = tags.iter().filter(|g| year_of(&get(g, "Date")).is_none()).count() as u64;
            assert_eq!(undated, no_year);
        }
        assert_eq!(
            report.skipped.get(&SkipReason::Filtered(miss)).copied().unwrap_or(0) + undated,
            25_368 - want as u64
        );
        assert_eq!(report.skipped_total(), report.filtered_total());
    }
}

#[test]
fn sections_are_deterministic_and_merge_like_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let games = Path::new(ROOT).join("books/games");
    let (big5, gbk) = (games.join("ccpd-sample-big5.pgn"), games.join("ccpd-sample-gbk.pgn"));
    let whole = dir.path().join("whole.qbk");
    build(&[big5.clone(), gbk.clone()], &whole, &BuildOptions::default());
    let bytes = std::fs::read(&whole).unwrap();
    for threads in [1, 2, 3] {
        // A budget small enough to spill records and references in many runs.
        let out = dir.path().join(format!("t{threads}.qbk"));
        let opts = BuildOptions { threads: Some(threads), memory: 256 << 10, ..BuildOptions::default() };
        let report = build(&[gbk.clone(), big5.clone()], &out, &opts);
        assert!(report.runs_spilled > 1);
        assert!(std::fs::read(&out).unwrap() == bytes, "{threads} threads");
    }
    let (a, b) = (dir.path().join("a.qbk"), dir.path().join("b.qbk"));
    build(&[big5], &a, &BuildOptions::default());
    build(&[gbk], &b, &BuildOptions::default());
    let merged = dir.path().join("merged.qbk");
    book::merge_books(&[b.clone(), a.clone()], &merged, 0, book::MinScore::NONE).unwrap();
    assert!(std::fs::read(&merged).unwrap() == bytes, "merge differs from one build");
    let book = Book::open(&whole).unwrap();
    assert_eq!(book.recent_games(&Position::startpos()).unwrap().len(), 5);
    // A book whose per-move filters drop moves keeps the games of its own positions only (it
    // kept the whole section: 17 of the 34 MB of a book of the ICCS collection pruned to 6,228
    // positions), the same games for each as the whole book; merged with the filters, as built.
    let pruned = dir.path().join("pruned.qbk");
    let params = book::BuildParams { min_games: 5, ..book::BuildParams::default() };
    let report = build(
        &[games.join("ccpd-sample-big5.pgn"), games.join("ccpd-sample-gbk.pgn")],
        &pruned,
        &BuildOptions { params, ..BuildOptions::default() },
    );
    let small = Book::open(&pruned).unwrap();
    // The same with the records and references spilled in many runs, on 2 threads.
    let spilled = dir.path().join("pruned-spilled.qbk");
    let opts = BuildOptions { params, threads: Some(2), memory: 256 << 10, ..BuildOptions::default() };
    let spilled_report =
        build(&[games.join("ccpd-sample-gbk.pgn"), games.join("ccpd-sample-big5.pgn")], &spilled, &opts);
    assert!(spilled_report.runs_spilled > 1);
    assert!(std::fs::read(&spilled).unwrap() == std::fs::read(&pruned).unwrap(), "spilled pruned build differs");
    assert!(report.header.positions < book.header().positions / 10, "{:?}", report.header);
    let (section, whole_section) = (std::fs::metadata(&pruned).unwrap().len(), bytes.len() as u64);
    assert!(section * 4 < whole_section, "{section} of {whole_section} bytes");
    let mut frontier = vec![Position::startpos()];
    let mut seen = std::collections::HashSet::new();
    let mut reached = 0;
    while let Some(pos) = frontier.pop() {
        // Book lines can repeat a position.
        if !seen.insert(pos.key()) {
            continue;
        }
        let recent = |b: &Book| b.recent_games(&pos).unwrap().iter().map(|g| g.red.clone()).collect::<Vec<_>>();
        let moves = small.probe(&pos).unwrap();
        // A position reached by a kept move but with none of its own is not in the book.
        let want = if moves.is_empty() { Vec::new() } else { recent(&book) };
        assert_eq!(recent(&small), want, "{}", pos.fen());
        reached += 1;
        for m in moves {
            frontier.push(pos.play(m.mv).unwrap());
        }
    }
    assert!(reached > 10, "{reached} positions");
    // A position the pruned book does not keep has no recent games in it.
    let rare = book.probe(&Position::startpos()).unwrap().into_iter().min_by_key(|m| m.counts.games()).unwrap();
    let dropped = Position::startpos().play(rare.mv).unwrap();
    assert!(small.probe(&dropped).unwrap().is_empty() && !book.recent_games(&dropped).unwrap().is_empty());
    assert!(small.recent_games(&dropped).unwrap().is_empty());
    let merged_pruned = dir.path().join("merged-pruned.qbk");
    book::merge_books(&[b.clone(), a.clone()], &merged_pruned, 5, book::MinScore::NONE).unwrap();
    assert!(std::fs::read(&merged_pruned).unwrap() == std::fs::read(&pruned).unwrap(), "pruned merge differs");
    // Books keeping different numbers of games are not merged.
    let c = dir.path().join("c.qbk");
    build(&[games.join("ccpd-sample-gbk.pgn")], &c, &BuildOptions { recent_games: 2, ..BuildOptions::default() });
    let err = book::merge_books(&[a, c], &merged, 0, book::MinScore::NONE).unwrap_err();
    assert!(err.to_string().contains("recent games"), "{err}");
}

/// Where the section's parts are, read from the file as docs/FORMAT.md describes it.
fn section_layout(b: &[u8]) -> (usize, u64, u64, u64, u64) {
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let start = 128 + 26 * u64_at(32) as usize + 8 * ((1usize << u32_at(28)) + 1);
    assert_eq!(&b[start..start + 8], b"QBKGAMES");
    assert_eq!(start as u64 + u64_at(104), b.len() as u64);
    (start, u64_at(start + 16), u64_at(start + 24), u64_at(start + 32), u64_at(start + 40))
}

#[test]
fn damaged_sections_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_book(dir.path(), 3);
    let good = std::fs::read(&path).unwrap();
    let (start, positions, refs, games, data) = section_layout(&good);
    let data_at = start + 64 + 12 * positions as usize + 4 * refs as usize + 8 * (games as usize + 1);
    assert_eq!(data_at + data as usize + 8 * 2, good.len()); // few positions: one index bucket
    let bad = dir.path().join("bad.qbk");
    let open = |bytes: &[u8], verify| {
        std::fs::write(&bad, bytes).unwrap();
        Book::open_with(&bad, verify)
    };
    // Cut short, or the section length in the header changed: refused at once.
    let err = open(&good[..good.len() - 1], Verify::Structure).unwrap_err();
    assert!(err.to_string().contains("truncated"), "{err}");
    // Bytes all over the game data changed: the checksum refuses the book. Opened without the
    // body check, a game that no longer decodes or replays is an error; one that still does (a
    // letter of a name, a move after the position changed) is returned, still reaching it.
    for at in (data_at..data_at + data as usize).step_by(7) {
        let mut b = good.clone();
        b[at] ^= 0x55;
        let err = open(&b, Verify::Full).unwrap_err();
        // Named where it is: the message said "records or index damaged" for these too.
        assert!(err.to_string().contains("checksum mismatch (records, index or recent games damaged)"), "{err}");
        let book = open(&b, Verify::Structure).unwrap();
        match book.recent_games(&Position::startpos()) {
            Ok(games) => {
                for g in games {
                    let mut p = g.start.clone();
                    for &m in &g.moves[..g.ply] {
                        p = p.play(m).unwrap();
                    }
                    assert_eq!(p.key(), Position::startpos().key());
                }
            }
            Err(e) => assert!(e.to_string().contains("bad.qbk"), "{e}"),
        }
    }
    // A reference to a game that does not exist, and positions out of order.
    let mut b = good.clone();
    let refs_at = start + 64 + 12 * positions as usize;
    b[refs_at..refs_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(open(&b, Verify::Full).unwrap_err().to_string().contains("corrupt"));
    let book = open(&b, Verify::Structure).unwrap();
    let mut errors = 0;
    for g in GAMES {
        let mut pos = start_of(g);
        for m in moves_of(g) {
            if let Err(e) = book.recent_games(&pos) {
                assert!(e.to_string().contains("bad.qbk") && e.to_string().contains("reference to game"), "{e}");
                errors += 1;
            }
            pos = pos.play(m).unwrap();
        }
    }
    assert!(errors > 0, "the bad reference went unnoticed");
    let mut b = good.clone();
    let p_at = start + 64;
    b.swap(p_at, p_at + 12);
    assert!(open(&b, Verify::Full).is_err());
    // Version 1 with section bytes set, and the section magic damaged.
    let mut b = good.clone();
    b[8] = 1;
    assert!(open(&b, Verify::Structure).is_err());
    let mut b = good.clone();
    b[start] ^= 1;
    assert!(open(&b, Verify::Structure).unwrap_err().to_string().contains("QBKGAMES"));
}

#[test]
fn filter_values_are_checked() {
    for (v, want) in [("2003-13", "YYYY-MM-DD"), ("03", "YYYY"), ("yesterday", "e.g. 1995")] {
        let e = v.parse::<book::DateBound>().unwrap_err().to_string();
        assert!(e.contains(v) && e.contains(want), "{e}");
    }
    for v in ["F10", "C100"] {
        let e = v.parse::<book::EccoRange>().unwrap_err().to_string();
        assert!(e.contains(v) && e.contains("A00-E99"), "{e}");
    }
    // Ends the wrong way round: said so, with the range as meant.
    let e = "C99-A00".parse::<book::EccoRange>().unwrap_err().to_string();
    assert_eq!(e, "ECCO range \"C99-A00\" runs backwards: write it A00-C99");
    let e = "c - b".parse::<book::EccoRange>().unwrap_err().to_string();
    assert_eq!(e, "ECCO range \"c-b\" runs backwards: write it b-c");
}
