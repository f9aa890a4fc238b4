//! Stopping the book writers from their progress receiver ([`qiku::Progress::stop_requested`],
//! which the command-line programs answer from Ctrl-C): at every point where a writer asks, a stop
//! ends it with its "stopped" error, the book already at the output stays byte-identical, and no
//! temporary file, spilled run or spill directory is left; asked at no point, it writes the book.

use crate::book_util::{generate_games, write_pgn};
use qiku::book::{self, Book, BookError, BuildOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A receiver that asks for a stop from its `after`-th question on (counting from 0), and
/// counts the questions.
struct StopAfter {
    after: usize,
    asked: AtomicUsize,
}

impl StopAfter {
    fn new(after: usize) -> StopAfter {
        StopAfter { after, asked: AtomicUsize::new(0) }
    }
}

impl qiku::Progress for StopAfter {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
    fn stop_requested(&self) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst) >= self.after
    }
}

/// The hidden files in `dir` (temporary files and spill directories start with a dot).
fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

fn repertoire() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/repertoire.pgn")
}

/// Runs `write` with a stop asked at its first question, then its second, and so on, until a run
/// asks fewer questions than it would take to stop it (so it wrote its output). Every stopped run
/// must fail with an error `stopped` accepts, leave `output` as `before` and nothing hidden in
/// `dir`. Returns how many runs were stopped (at least `min_stops`, so that the points tested are
/// real).
fn stop_everywhere<E: std::fmt::Display>(
    dir: &Path,
    output: &Path,
    min_stops: usize,
    write: &dyn Fn(&StopAfter) -> Result<(), E>,
    stopped: &dyn Fn(&E) -> bool,
) -> usize {
    let before = std::fs::read(output).ok();
    for after in 0.. {
        let progress = StopAfter::new(after);
        match write(&progress) {
            Ok(()) => {
                assert!(after >= min_stops, "only {after} stop points");
                assert!(std::fs::read(output).ok() != before, "the unstopped run wrote nothing");
                assert!(hidden(dir).is_empty(), "left behind: {:?}", hidden(dir));
                return after;
            }
            Err(e) => {
                assert!(stopped(&e), "stop at question {after}: {e}");
                assert!(e.to_string().contains("nothing was written") || e.to_string().contains("no book was written"));
                assert!(std::fs::read(output).ok() == before, "a stop at question {after} changed the output");
                assert!(hidden(dir).is_empty(), "a stop at question {after} left behind: {:?}", hidden(dir));
            }
        }
    }
    unreachable!()
}

/// A build that spills many runs (and recent-games runs), stopped at each of its questions while
/// reading and while writing the book.
#[test]
fn a_build_stopped_anywhere_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    std::fs::write(&games, write_pgn(&generate_games(5, 4000))).unwrap();
    let out = dir.path().join("book.qbk");
    book::build(&[repertoire()], &out, &BuildOptions::default()).unwrap();
    // 64 KiB of records: dozens of spilled runs; one thread, so that rounds are small.
    let opts = BuildOptions { memory: 64 << 10, threads: Some(1), ..BuildOptions::default() };
    let stops = stop_everywhere(
        dir.path(),
        &out,
        3,
        &|p| book::build::build_with_progress(std::slice::from_ref(&games), &out, &opts, p).map(drop),
        &|e| matches!(e, book::BuildError::Stopped),
    );
    let report = book::build(&[games], &out, &opts).unwrap();
    assert!(report.runs_spilled >= 10, "{} runs spilled: the spill path was not tested", report.runs_spilled);
    // The records of the book (more than 65,536, so that the writing phase is asked too).
    assert!(report.header.records > 1 << 16, "{} records", report.header.records);
    assert!(stops > 3);
}

#[test]
fn a_merge_stopped_anywhere_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games.pgn");
    std::fs::write(&games, write_pgn(&generate_games(7, 4000))).unwrap();
    let (a, b) = (dir.path().join("a.qbk"), dir.path().join("b.qbk"));
    book::build(&[games], &a, &BuildOptions::default()).unwrap();
    book::build(&[repertoire()], &b, &BuildOptions::default()).unwrap();
    assert!(Book::open(&a).unwrap().len() > 1 << 16);
    let out = dir.path().join("merged.qbk");
    book::build(&[repertoire()], &out, &BuildOptions { recent_games: 0, ..BuildOptions::default() }).unwrap();
    let inputs = [a, b];
    stop_everywhere(
        dir.path(),
        &out,
        2,
        &|p| book::merge_books_with_progress(&inputs, &out, 0, book::MinScore::NONE, p).map(drop),
        &|e| matches!(e, BookError::Stopped { output } if output == &out),
    );
}

#[cfg(feature = "obk")]
#[test]
fn an_export_or_import_stopped_anywhere_leaves_nothing() {
    use qiku::book::obk::{self, ObkError};
    let dir = tempfile::tempdir().unwrap();
    let qbk = dir.path().join("rep.qbk");
    book::build(&[repertoire()], &qbk, &BuildOptions { recent_games: 0, ..BuildOptions::default() }).unwrap();
    let book = Book::open(&qbk).unwrap();
    // An older export at the output: kept byte for byte by every stopped export.
    let obk_path = dir.path().join("rep.obk");
    let few = dir.path().join("few.qbk");
    let opts = BuildOptions { params: book::BuildParams { max_ply: 2, ..Default::default() }, ..Default::default() };
    book::build(&[repertoire()], &few, &opts).unwrap();
    obk::export(&Book::open(&few).unwrap(), &obk_path).unwrap();
    let is_stop = |e: &ObkError, out: &Path| matches!(e, ObkError::Stopped { output } if output == out);
    // One question per position written: as many stops as the book has positions.
    let stops = stop_everywhere(
        dir.path(),
        &obk_path,
        2,
        &|p| obk::export_with_progress(&book, &obk_path, obk::ExportOptions::default(), p).map(drop),
        &|e| is_stop(e, &obk_path),
    );
    assert!(stops as u64 >= book.header().positions, "{stops} stops for {} positions", book.header().positions);
    // Import back over the book: every stopped import leaves the .qbk as it was.
    let back = dir.path().join("back.qbk");
    std::fs::copy(&few, &back).unwrap();
    stop_everywhere(dir.path(), &back, 2, &|p| obk::import_with_progress(&obk_path, &back, p).map(drop), &|e| {
        is_stop(e, &back)
    });
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&qbk).unwrap(), "the unstopped import gives the book back");
}
