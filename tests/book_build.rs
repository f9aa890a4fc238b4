//! Building books from generated ICCS games: counts against an independent recount, the
//! filters, determinism (threads, input order, spilling) and merging.

use crate::book_util;

use book_util::{generate_games, positions_of, probed, write_pgn, Recount, TestGame};
use qiku::book::{self, Book, BuildOptions, BuildParams, MinScore, SideFilter};
use qiku::{Color, Position};
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn opts(params: BuildParams) -> BuildOptions {
    BuildOptions { params, ..BuildOptions::default() }
}

fn build(inputs: &[PathBuf], out: &Path, o: &BuildOptions) -> book::BuildReport {
    book::build(inputs, out, o).unwrap_or_else(|e| panic!("build failed: {e}"))
}

fn recount(games: &[TestGame], max_ply: usize) -> Recount {
    let mut r = Recount::default();
    for g in games {
        r.add_game(&g.start(), &g.moves, g.result, max_ply);
    }
    r
}

/// Splits generated games over three files.
fn three_files(dir: &Path, games: &[TestGame]) -> Vec<PathBuf> {
    let third = games.len() / 3;
    vec![
        write(dir, "a.pgn", &write_pgn(&games[..third])),
        write(dir, "b.pgn", &write_pgn(&games[third..2 * third])),
        write(dir, "c.pgn", &write_pgn(&games[2 * third..])),
    ]
}

#[test]
fn probes_match_an_independent_recount() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(1, 1500);
    let files = three_files(dir.path(), &games);
    let out = dir.path().join("t.qbk");
    let report = build(&files, &out, &opts(BuildParams::default()));
    assert_eq!(report.header.games.read, 1500);
    assert_eq!(report.header.games.used, 1500);
    assert_eq!(report.skipped_total(), 0, "{:?}", report.errors);
    let unknown = games.iter().filter(|g| !matches!(g.result, Some("1-0" | "0-1" | "1/2-1/2"))).count();
    assert_eq!(report.header.games.without_result, unknown as u64);

    let book = Book::open(&out).unwrap();
    let expected = recount(&games, 40);
    let total: u64 = expected.map.values().map(|c| c.iter().sum::<u64>()).sum();
    assert_eq!(book.header().moves, total);
    let positions = positions_of(&games, 45);
    assert!(positions.len() > 20_000, "{}", positions.len());
    let mut hits = 0;
    for pos in &positions {
        let want = expected.expected(pos);
        assert_eq!(probed(&book, pos), want, "{}", pos.fen());
        hits += usize::from(!want.is_empty());
    }
    assert!(hits > 10_000);
    // The start position is symmetric: only representatives, each counting both mirror moves.
    let start = probed(&book, &Position::startpos());
    let first_moves: u64 = start.values().map(|c| c.iter().sum::<u64>()).sum();
    let from_start = games.iter().filter(|g| g.fen.is_none() && !g.moves.is_empty()).count() as u64;
    assert_eq!(first_moves, from_start);
}

#[test]
fn filters() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(2, 600);
    let files = three_files(dir.path(), &games);

    // --max-ply 6 --only black: only black-to-move positions of the first 6 plies.
    let out = dir.path().join("black.qbk");
    let params = BuildParams { max_ply: 6, only: SideFilter::Only(Color::Black), ..BuildParams::default() };
    build(&files, &out, &opts(params));
    let book = Book::open(&out).unwrap();
    let expected = recount(&games, 6);
    for pos in positions_of(&games, 8) {
        let want = if pos.turn() == Color::Black { expected.expected(&pos) } else { Default::default() };
        assert_eq!(probed(&book, &pos), want, "{}", pos.fen());
    }

    // --min-games 3 --min-score 0.5: exactly the moves that pass both.
    let out = dir.path().join("filtered.qbk");
    let min_score = MinScore::from_fraction(0.5).unwrap();
    let params = BuildParams { min_games: 3, min_score, ..BuildParams::default() };
    build(&files, &out, &opts(params));
    let filtered = Book::open(&out).unwrap();
    let expected = recount(&games, 40);
    for pos in positions_of(&games, 10) {
        let want: std::collections::BTreeMap<u16, [u64; 4]> = expected
            .expected(&pos)
            .into_iter()
            .filter(|(_, c)| {
                let games: u64 = c.iter().sum();
                let decided = c[0] + c[1] + c[2];
                games >= 3 && (decided == 0 || 2 * c[0] + c[1] >= decided)
            })
            .collect();
        assert_eq!(probed(&filtered, &pos), want, "{}", pos.fen());
    }
    assert_eq!(filtered.header().params, params);

    // --min-elo 2200: games without Elo tags and with a player below are skipped.
    let out = dir.path().join("elo.qbk");
    let params = BuildParams { min_elo: Some(2200), ..BuildParams::default() };
    let report = build(&files, &out, &opts(params));
    let kept: Vec<TestGame> =
        games.iter().filter(|g| g.elo.is_some_and(|(r, b)| r >= 2200 && b >= 2200)).cloned().collect();
    let no_elo = games.iter().filter(|g| g.elo.is_none()).count() as u64;
    assert_eq!(report.header.games.used, kept.len() as u64);
    assert_eq!(report.skipped.get(&book::SkipReason::NoElo), Some(&no_elo));
    assert_eq!(
        report.skipped.get(&book::SkipReason::BelowMinElo).copied().unwrap_or(0),
        games.len() as u64 - no_elo - kept.len() as u64
    );
    assert!(report.errors.is_empty());
    let book = Book::open(&out).unwrap();
    let expected = recount(&kept, 40);
    for pos in positions_of(&games, 6) {
        assert_eq!(probed(&book, &pos), expected.expected(&pos), "{}", pos.fen());
    }
}

#[test]
fn bytes_do_not_depend_on_threads_input_order_or_spilling() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(3, 900);
    let files = three_files(dir.path(), &games);
    let reference = dir.path().join("ref.qbk");
    build(&files, &reference, &BuildOptions { threads: Some(1), ..BuildOptions::default() });
    let want = std::fs::read(&reference).unwrap();

    let variants: Vec<(Vec<PathBuf>, BuildOptions, bool)> = vec![
        (files.clone(), BuildOptions { threads: Some(2), ..BuildOptions::default() }, false),
        (files.iter().rev().cloned().collect(), BuildOptions { threads: Some(3), ..BuildOptions::default() }, false),
        // About 200 records per run: dozens of runs spilled and merged.
        (files.clone(), BuildOptions { threads: Some(2), memory: 200 * 16 * 4 / 3, ..BuildOptions::default() }, true),
        (
            vec![files[1].clone(), files[2].clone(), files[0].clone()],
            BuildOptions { threads: Some(1), memory: 5000, ..BuildOptions::default() },
            true,
        ),
    ];
    for (i, (inputs, o, spills)) in variants.into_iter().enumerate() {
        let out = dir.path().join(format!("v{i}.qbk"));
        let report = build(&inputs, &out, &o);
        assert_eq!(report.runs_spilled > 0, spills, "variant {i}");
        assert!(std::fs::read(&out).unwrap() == want, "variant {i} differs");
    }
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A file named twice, or reached both by name and through its directory (or a symlink), is read
/// once and reported as a repeat: the book is byte-identical to the one from each file once.
/// Directories hold `.txt.zst` game files too.
#[test]
fn repeated_inputs_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(9, 300);
    let files = three_files(dir.path(), &games);
    let reference = dir.path().join("ref.qbk");
    build(&files, &reference, &BuildOptions::default());
    let want = std::fs::read(&reference).unwrap();

    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    // The third file, compressed, is found only through its directory.
    let c = sub.join("c.txt.zst");
    std::fs::write(&c, zstd::encode_all(std::fs::read(&files[2]).unwrap().as_slice(), 3).unwrap()).unwrap();
    std::fs::remove_file(&files[2]).unwrap();
    let link = dir.path().join("a-again.pgn");
    std::os::unix::fs::symlink(&files[0], &link).unwrap();
    let inputs = vec![files[0].clone(), files[1].clone(), sub.clone(), files[0].clone(), link.clone(), c.clone()];
    let out = dir.path().join("again.qbk");
    let report = build(&inputs, &out, &BuildOptions::default());
    assert_eq!(report.header.games.read, 300);
    assert_eq!(report.files.len(), 3, "{:?}", report.files);
    let repeated: Vec<(PathBuf, PathBuf)> =
        vec![(files[0].clone(), files[0].clone()), (link, files[0].clone()), (c.clone(), c)];
    assert_eq!(report.repeated, repeated);
    assert!(std::fs::read(&out).unwrap() == want, "a repeated input changed the book");
}

#[test]
fn merging_halves_equals_building_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(4, 800);
    let files = three_files(dir.path(), &games);
    let whole = dir.path().join("whole.qbk");
    build(&files, &whole, &BuildOptions::default());
    let a = dir.path().join("a.qbk");
    let b = dir.path().join("b.qbk");
    build(&files[..1], &a, &BuildOptions::default());
    build(&files[1..], &b, &BuildOptions::default());
    let merged = dir.path().join("merged.qbk");
    book::merge_books(&[a.clone(), b.clone()], &merged, 0, MinScore::NONE).unwrap();
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap());
    // Order of the merged books does not matter either.
    book::merge_books(&[b.clone(), a.clone()], &merged, 0, MinScore::NONE).unwrap();
    assert!(std::fs::read(&merged).unwrap() == std::fs::read(&whole).unwrap());

    // Books that count differently are refused.
    let other = dir.path().join("other.qbk");
    let params = BuildParams { max_ply: 20, ..BuildParams::default() };
    build(&files[1..], &other, &opts(params));
    let err = book::merge_books(&[a.clone(), other], &merged, 0, MinScore::NONE).unwrap_err();
    assert!(matches!(err, book::BookError::Incompatible { .. }), "{err}");
    assert!(err.to_string().contains("max-ply 20"), "{err}");

    // Per-move filters are applied to the sums.
    let filtered = dir.path().join("filtered.qbk");
    let h = book::merge_books(&[a, b], &filtered, 5, MinScore::NONE).unwrap();
    assert_eq!(h.params.min_games, 5);
    let book = Book::open(&filtered).unwrap();
    assert!(book.entries().all(|e| e.counts.games() >= 5));
    let whole = Book::open(&whole).unwrap();
    assert_eq!(book.len(), whole.entries().filter(|e| e.counts.games() >= 5).count() as u64);
}

#[test]
fn keep_prefix_and_bad_moves() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 z9z9 3. b0c2 1-0\n\n\
                [Result \"0-1\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 0-1\n";
    let f = write(dir.path(), "g.pgn", text);
    let out = dir.path().join("g.qbk");
    let report = build(std::slice::from_ref(&f), &out, &BuildOptions::default());
    assert_eq!(report.header.games.used, 1);
    assert_eq!(report.errors.len(), 1);
    let e = &report.errors[0];
    assert_eq!((e.game, e.line, e.column, e.token.as_deref()), (1, 3, 22, Some("z9z9")));
    let h2e2 =
        |book: &Book| probed(book, &Position::startpos())[&qiku::notation::iccs::parse_move("h2e2").unwrap().to_u16()];
    assert_eq!(h2e2(&Book::open(&out).unwrap()), [0, 0, 1, 0]);

    let o = opts(BuildParams { keep_prefix: true, ..BuildParams::default() });
    let report = build(&[f], &out, &o);
    assert_eq!((report.header.games.used, report.truncated), (2, 1));
    assert_eq!(h2e2(&Book::open(&out).unwrap()), [1, 0, 1, 0]);
    assert_eq!(Book::open(&out).unwrap().header().moves, 3 + 4);
}

/// A progress receiver that asks for a stop at its first report of the reading, or only once
/// the reading is done (`finish`: the build's last chance to stop before writing).
struct StopAt {
    at_finish: bool,
    reports: std::sync::atomic::AtomicUsize,
    finished: std::sync::atomic::AtomicBool,
}

impl qiku::Progress for StopAt {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn set_position(&self, _done: u64) {
        self.reports.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn finish(&self) {
        self.finished.store(true, std::sync::atomic::Ordering::SeqCst);
    }
    fn stop_requested(&self) -> bool {
        if self.at_finish {
            self.finished.load(std::sync::atomic::Ordering::SeqCst)
        } else {
            self.reports.load(std::sync::atomic::Ordering::SeqCst) >= 1
        }
    }
}

/// A stop asked for at the first report (while reading) or only at the end of the reading ends
/// the build with `Stopped` and writes nothing: a book already at the output stays
/// byte-identical, and no temporary file is left beside it.
#[test]
fn a_stop_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(11, 300);
    let files = three_files(dir.path(), &games);
    let out = dir.path().join("book.qbk");
    build(&files[..1], &out, &BuildOptions::default());
    let before = std::fs::read(&out).unwrap();
    for at_finish in [false, true] {
        let progress = StopAt { at_finish, reports: Default::default(), finished: Default::default() };
        let err = book::build::build_with_progress(&files, &out, &BuildOptions::default(), &progress).unwrap_err();
        assert!(matches!(err, book::build::BuildError::Stopped), "{err}");
        assert_eq!(err.to_string(), "the build was stopped: no book was written");
        assert!(std::fs::read(&out).unwrap() == before, "a build stopped (at the end: {at_finish}) changed the output");
        if at_finish {
            assert!(progress.finished.load(std::sync::atomic::Ordering::SeqCst), "the reading was done");
        }
    }
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Check, mate and annotation marks after moves are read past in every notation, and move
/// numbers in full-width digits are move numbers: every one of these games is read whole.
#[test]
fn check_marks_and_full_width_move_numbers_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[Result \"1-0\"]\n\n1. h2e2+ H9-G7# 2. h0g2+! i9h9?! 1-0\n\n\
                [Result \"1-0\"]\n\n１．炮二平五+ 馬８進７ ２．馬二進三# 車９平８!? 1-0\n\n\
                [Result \"1-0\"]\n\n１． 炮二平五 馬８進７+ ２． 馬二進三 車９平８ 1-0\n\n\
                [Result \"1-0\"]\n\n1. C2.5+ H8+7 2. H2+3# R9.8 1-0\n";
    let file = write(dir.path(), "marks.pgn", text);
    let report = build(&[file], &dir.path().join("m.qbk"), &BuildOptions::default());
    assert!(report.errors.is_empty(), "{:#?}", report.errors);
    assert_eq!((report.header.games.read, report.header.games.used), (4, 4));
    // The same four moves each time: one line of four positions, each move played 4 times.
    assert_eq!((report.header.positions, report.raw_records), (4, 16));
}

/// A `[Format]` tag whose value names no notation is not silently ignored: the build warns once
/// for the file, naming the value, where it first is, how many there are, and what is done
/// instead (each move read in the notation its shape shows); the games are used.
#[test]
fn a_format_tag_of_no_notation_is_warned_about_once_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let game = |format: &str| format!("[Format \"{format}\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n");
    let odd =
        write(dir.path(), "odd.pgn", &[game("ICCS"), game("XYZ"), game("chinese"), game("pgn"), game("")].concat());
    let plain = write(dir.path(), "plain.pgn", &[game("ICCS"), game(" iccs "), game("")].concat());
    let report = build(&[odd, plain], &dir.path().join("f.qbk"), &BuildOptions::default());
    assert_eq!((report.header.games.read, report.header.games.used), (8, 7));
    // The game that says Chinese but is written in ICCS is not read (its notation is named).
    assert_eq!(report.errors_total, 1);
    assert_eq!(report.errors[0].game, 3);
    assert_eq!(
        report.files[0].warnings,
        ["game 2, line 6: [Format \"XYZ\"] names no notation qiku reads (ICCS, WXF or Chinese); the game's moves \
          are read each in the notation its shape shows, as without the tag (2 such tags in the file; this is the first)"]
    );
    assert_eq!(report.files[1].warnings, [] as [&str; 0]);
}
