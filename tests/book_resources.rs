//! What a build holds while it works and what it does with inputs it cannot use: a directory of
//! many small game files is read with few files open at once, spilled runs hold no open files,
//! and a file found in a directory that cannot be used is skipped and reported while one named
//! fails the build.

use crate::book_util::{generate_games, write_pgn};
use qiku::book::{self, BuildOptions};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Files this process has open now (Linux: the entries of `/proc/self/fd`).
fn open_files() -> usize {
    std::fs::read_dir("/proc/self/fd").map(Iterator::count).unwrap_or(0)
}

/// A progress receiver that notes the most files the process had open at any of its calls, and
/// at those once the reading was done (while the book is written).
#[derive(Default)]
struct PeakFiles {
    peak: AtomicUsize,
    read: AtomicBool,
    writing_peak: AtomicUsize,
}

impl PeakFiles {
    fn note(&self) {
        let open = open_files();
        self.peak.fetch_max(open, Ordering::SeqCst);
        if self.read.load(Ordering::SeqCst) {
            self.writing_peak.fetch_max(open, Ordering::SeqCst);
        }
    }
    fn writing_peak(&self) -> usize {
        self.writing_peak.load(Ordering::SeqCst)
    }
}

impl qiku::Progress for PeakFiles {
    fn start(&self, _label: &str, _total: u64) {
        self.note();
    }
    fn advance(&self, _n: u64) {
        self.note();
    }
    fn set_position(&self, _done: u64) {
        self.note();
    }
    fn finish(&self) {
        self.read.store(true, Ordering::SeqCst);
        self.note();
    }
    fn stop_requested(&self) -> bool {
        self.note();
        false
    }
}

/// A budget so small that hundreds of runs of records and of recent-games references are spilled:
/// they wait on disk without an open file each (they used to hold one each, and a build failed
/// with "Too many open files" after a few hundred runs), are merged a bounded number at a time,
/// and the book is byte for byte the one built in memory.
#[cfg(target_os = "linux")]
#[test]
fn spilled_runs_hold_no_open_files() {
    let dir = tempfile::tempdir().unwrap();
    // Records are spilled a batch of games at a time, and a batch is at most one file's: many
    // small files make many runs.
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    for (i, five) in generate_games(32, 2000).chunks(5).enumerate() {
        std::fs::write(games.join(format!("g{i:03}.pgn")), write_pgn(five)).unwrap();
    }
    let before = open_files();
    let progress = PeakFiles::default();
    let out = dir.path().join("spilled.qbk");
    let tiny = BuildOptions { memory: 4096, threads: Some(2), ..BuildOptions::default() };
    let report = book::build::build_with_progress(std::slice::from_ref(&games), &out, &tiny, &progress).unwrap();
    assert!(report.runs_spilled > 300, "{} runs", report.runs_spilled);
    // Once the games are read, all the runs are there: few files are open.
    let writing = progress.writing_peak();
    assert!(writing > 0 && writing < before + 100, "{writing} files open while writing (before the build: {before})");
    let in_memory = dir.path().join("memory.qbk");
    let report = book::build(&[games], &in_memory, &BuildOptions::default()).unwrap();
    assert_eq!(report.runs_spilled, 0);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&in_memory).unwrap(), "spilling changed the book");
}
