//! What a build holds while it works and what it does with inputs it cannot use: a directory of
//! many small game files is read with few files open at once, spilled runs hold no open files,
//! and a file found in a directory that cannot be used is skipped and reported while one named
//! fails the build.

use crate::book_util::{generate_games, write_pgn};
use qiku::book::{self, BuildError, BuildOptions};
use std::path::{Path, PathBuf};
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
    fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
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

/// One game per file, as XQF collections and some sites' downloads come: the build opens each
/// file when a reader takes it (it used to open them all before reading, which failed with "Too
/// many open files" past the descriptor limit and held a buffer per file), and the book is the
/// one the same games give in one file.
#[cfg(target_os = "linux")]
#[test]
fn a_directory_of_many_small_files_is_read_with_few_open() {
    let dir = tempfile::tempdir().unwrap();
    let games = generate_games(31, 1200);
    let many = dir.path().join("many");
    std::fs::create_dir(&many).unwrap();
    let mut all = String::new();
    for (i, g) in games.iter().enumerate() {
        let text = write_pgn(std::slice::from_ref(g));
        std::fs::write(many.join(format!("g{i:04}.pgn")), &text).unwrap();
        all.push_str(&text);
    }
    let before = open_files();
    let progress = PeakFiles::default();
    let out = dir.path().join("many.qbk");
    let report = book::build::build_with_progress(&[many], &out, &BuildOptions::default(), &progress).unwrap();
    assert_eq!((report.files.len(), report.header.games.used), (1200, 1200));
    // Other tests of this program run beside this one and open files too: a margin for them,
    // far below the 1,200 inputs.
    assert!(progress.peak() < before + 200, "{} files open at once (before the build: {before})", progress.peak());
    let one = dir.path().join("one.pgn");
    std::fs::write(&one, all).unwrap();
    let whole = dir.path().join("one.qbk");
    book::build(&[one], &whole, &BuildOptions::default()).unwrap();
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&whole).unwrap(), "the same games, the same book");
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

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A directory holds game files and, as directories do, files that are none: a readme in UTF-16
/// without a byte-order mark, games packed with gzip under a `.pgn` name, a FIFO. Found by
/// listing, each is skipped and reported with its cause, and the book is built from the rest
/// (one of them used to abort the whole build); named on the command line, each fails the build
/// before anything is written.
#[cfg(unix)]
#[test]
fn unusable_files_found_in_a_directory_are_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    let generated = generate_games(33, 40);
    write(&games, "a.pgn", write_pgn(&generated[..20]).as_bytes());
    write(&games, "b.pgn", write_pgn(&generated[20..]).as_bytes());
    let utf16: Vec<u8> = "These are my games, in PGN.\r\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let readme = write(&games, "readme.txt", &utf16);
    let gzip = write(&games, "z.pgn", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03packed games");
    let fifo = games.join("pipe.pgn");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // Safety: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);

    let out = dir.path().join("games.qbk");
    let report = book::build(std::slice::from_ref(&games), &out, &BuildOptions::default())
        .unwrap_or_else(|e| panic!("one bad file failed the build: {e}"));
    assert!(report.written && out.exists());
    assert_eq!(report.header.games.read, 40);
    let read: Vec<&Path> = report.files.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(read, [games.join("a.pgn"), games.join("b.pgn")]);
    let skipped: Vec<(&Path, &str)> = report.unusable.iter().map(|f| (f.path.as_path(), f.cause.as_str())).collect();
    assert_eq!(skipped.len(), 3, "{skipped:#?}");
    assert_eq!(skipped[0].0, fifo);
    assert!(skipped[0].1.contains("cannot open") && skipped[0].1.contains("FIFO"), "{skipped:?}");
    assert_eq!(skipped[1].0, readme);
    assert!(skipped[1].1.contains("not a game file") && skipped[1].1.contains("NUL"), "{skipped:?}");
    assert_eq!(skipped[2].0, gzip);
    assert!(skipped[2].1.contains("gzip"), "{skipped:?}");
    assert!(skipped.iter().all(|(_, cause)| !cause.contains("games/")), "the cause is without the file's name");
    // The same book as from the good files alone.
    let good = dir.path().join("good.qbk");
    book::build(&[games.join("a.pgn"), games.join("b.pgn")], &good, &BuildOptions::default()).unwrap();
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&good).unwrap());

    // Named, each is refused and nothing is written.
    let before = std::fs::read(&out).unwrap();
    for bad in [&readme, &gzip, &fifo] {
        let err = book::build(&[games.join("a.pgn"), bad.clone()], &out, &BuildOptions::default()).unwrap_err();
        assert!(matches!(err, BuildError::NotText(_) | BuildError::Io { op: "open", .. }), "{err}");
        assert!(err.to_string().contains(&bad.display().to_string()), "{err}");
        assert!(std::fs::read(&out).unwrap() == before, "a failed build changed the output");
    }
}
