//! Compiling game collections into a book: in parallel, in bounded memory, deterministically.
//!
//! Pipeline:
//! 1. Directories are listed and repeats left out; every file named is checked before any work
//!    is done (a missing file or one that is not text fails the build), but no file is kept
//!    open: each is opened when a reader takes it (see `inputs`), so thousands of small files
//!    cost neither file descriptors nor memory. A file found in an input directory that cannot
//!    be used (a symbolic link whose target does not exist, a file that cannot be opened or is
//!    not text, a directory below it that cannot be listed) is skipped and reported
//!    ([`BuildReport::broken_links`], [`BuildReport::unusable`]).
//! 2. Reader threads (one per file, at most one per worker thread) run the streaming PGN reader
//!    and cut games into batches of move tokens; a bounded channel carries
//!    them to the main thread, so reading never runs ahead by more than a few batches.
//! 3. The main thread hands rounds of batches to the rayon pool, which replays the games and
//!    emits one packed 16-byte record (key, move, outcome) per ply.
//! 4. Records collect in a buffer of at most `memory * 3/4 / 16` records. A full buffer is sorted
//!    in parallel, summed per (key, move) and spilled to disk as a sorted run.
//! 5. At the end the in-memory buffer and the runs are k-way merged, the per-move filters
//!    applied, and the book written atomically.
//!
//! The book's bytes depend only on the multiset of records, never on which thread or run a
//! record went through, so any thread count, memory budget or input order gives the same file.

use super::error::BookError;
pub use super::error::BuildError;
use super::filter::GameFilter;
use super::format::MAX_RECENT_GAMES;
use super::format::{BookWriter, BuildParams, GameCounts, Header};
use super::inputs::{self, without_path, Input, Opened};
use super::merge::{reduce_runs, EntryStream, Merge, Run, STOP_CHECK_RECORDS};
use super::recent::{KeptRecords, RecentCollector, DEFAULT_RECENT_GAMES};
use super::record::{aggregate_sorted, Raw};
use super::replay::{replay_batch, Batch, BatchOutput, Collector, ReplayContext};
pub use super::report::{GameError, MoveErrorKind, SkipReason};
use super::scratch::{Scratch, MAX_FAN_IN};
use super::stdin::{Abandon, Stdin};
use crate::pgn::{self, EncodingChoice, OpenError, OpenErrorKind, Reader, TextEncoding};
use crate::util::files::{check_output_place, parent_dir, remove_stale_temp_files};
use crate::util::progress::{NoProgress, Progress};
use crate::xqf::BrokenLink;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the build waits for its readers before it looks whether it was told to stop.
const STOP_POLL: Duration = Duration::from_millis(200);

/// Options of [`build`] beyond the [`BuildParams`] stored in the book.
///
/// ```
/// use qiku::book::{build, BuildOptions, BuildParams};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 2. h0g2 i9h9 1-0\n")?;
/// // The first two plies of each game only, read by one thread.
/// let params = BuildParams { max_ply: 2, ..BuildParams::default() };
/// let opts = BuildOptions { params, threads: Some(1), ..BuildOptions::default() };
/// let report = build(&[games], &dir.path().join("short.qbk"), &opts)?;
/// assert_eq!(report.header.records, 2); // h2e2 and h9g7
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The options stored in the book.
    pub params: BuildParams,
    /// Text encoding of the inputs (default: detected per file).
    pub encoding: EncodingChoice,
    /// Memory budget for records in bytes; beyond it sorted runs are spilled to disk.
    pub memory: u64,
    /// Worker threads (default: as many as the pool the build is called from has: rayon's global
    /// pool, one per core or `RAYON_NUM_THREADS`, unless called inside another pool).
    pub threads: Option<usize>,
    /// How many [`GameError`]s to keep for the report (the first ones in file and game order).
    pub max_errors: usize,
    /// Read every move of every game, so that a bad move anywhere skips the game. With `false`
    /// only the first `max_ply` moves are read and later errors go unnoticed (faster).
    pub whole_games: bool,
    /// Directory for spilled runs (default: the output's directory). Runs go into a private
    /// subdirectory `.qiku-book-spill.PID@HOST.RANDOM`, removed at the end, also when the build fails
    /// or is stopped ([`Progress::stop_requested`]); those of a killed process are removed by the
    /// next build that spills into the same directory.
    pub spill_dir: Option<PathBuf>,
    /// Which games are read (default: all). Not stored in the book.
    pub filter: GameFilter,
    /// The recent-games section keeps this many of the newest games through each position
    /// (default [`DEFAULT_RECENT_GAMES`], at most 255); 0 writes no section (a version 1 book).
    pub recent_games: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            params: BuildParams::default(),
            encoding: EncodingChoice::Auto,
            memory: 1 << 30,
            threads: None,
            max_errors: 1000,
            whole_games: true,
            spill_dir: None,
            filter: GameFilter::default(),
            recent_games: DEFAULT_RECENT_GAMES,
        }
    }
}

/// What was read from one input.
///
/// ```
/// use qiku::book::{build, BuildOptions};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n\n1. c3c4 0-1\n")?;
/// let report = build(&[games.clone()], &dir.path().join("b.qbk"), &BuildOptions::default())?;
/// let file = &report.files[0];
/// assert_eq!((&file.path, file.games, file.compressed), (&games, 2, false));
/// assert_eq!(file.error, None); // read to its end
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct FileReport {
    /// The input file.
    pub path: PathBuf,
    /// The text encoding detected or forced; `None` if the file could not be decoded at all.
    pub encoding: Option<TextEncoding>,
    /// Whether it was zstd-compressed.
    pub compressed: bool,
    /// Games read from it.
    pub games: u64,
    /// Why reading this file ended early (the games before it were used), without the file's
    /// name, which is [`FileReport::path`]. The build goes on with the other files and writes
    /// its book, as it does when games are skipped.
    pub error: Option<String>,
    /// What its games had that was worked around, each said once for the file (a `[Format]`
    /// tag that names no notation), without the file's name.
    pub warnings: Vec<String>,
    /// With an [`FileReport::error`], the last line of the (decompressed) text read before it:
    /// what follows that line could not be read. `None` when nothing could be read.
    pub error_line: Option<u64>,
}

/// A file found by listing an input directory that could not be used, or a directory below it
/// that could not be listed: it was skipped, and the build went on with the other files (a file
/// or directory named as an input that cannot be used fails the build instead).
///
/// ```
/// use qiku::book::{build, BuildOptions};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games");
/// std::fs::create_dir(&games)?;
/// std::fs::write(games.join("good.pgn"), "1. h2e2 h9g7 1-0\n")?;
/// std::fs::write(games.join("packed.pgn"), [0x50, 0x4b, 3, 4, 0, 0, 0xff, 0xfe])?; // a zip archive
/// let report = build(&[games.clone()], &dir.path().join("b.qbk"), &BuildOptions::default())?;
/// assert_eq!(report.unusable.len(), 1);
/// assert_eq!(report.unusable[0].path, games.join("packed.pgn"));
/// assert!(report.unusable[0].cause.starts_with("not a game file: this is a zip archive, not text"));
/// assert_eq!(report.header.games.used, 1); // the build went on with good.pgn
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnusableFile {
    /// The file, under the directory listed.
    pub path: PathBuf,
    /// Why, without the file's name: it cannot be opened (permissions, not a regular file), it
    /// is not text (a file packed by another tool, UTF-16 text, binary data), or it is a
    /// directory that cannot be listed.
    pub cause: String,
}

/// The outcome of a build.
///
/// ```
/// use qiku::book::{build, BuildOptions};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n\n1. h2h8 1-0\n")?;
/// let report = build(&[games], &dir.path().join("b.qbk"), &BuildOptions::default())?;
/// assert!(report.written);
/// // The second game's only move is illegal: it is skipped and counted as an error.
/// assert_eq!((report.header.games.used, report.errors_total, report.skipped_total()), (1, 1, 1));
/// assert_eq!(report.raw_records, 2); // a record for each ply of the first game
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// The header of the book written (or, when [`BuildReport::written`] is false, of the empty
    /// book that was not written).
    pub header: Header,
    /// Whether the book was written. A build that keeps no move (no game could be used, or the
    /// filters dropped every move) writes nothing: a file already at the output path is left as
    /// it was.
    pub written: bool,
    /// One report per input read, in input order.
    pub files: Vec<FileReport>,
    /// Inputs left out because they are the same file as an earlier input (named twice, or
    /// reached both by name and through a directory), each with the earlier one: every file is
    /// read once.
    pub repeated: Vec<(PathBuf, PathBuf)>,
    /// Symbolic links found in an input directory whose target does not exist: skipped, not
    /// read (a file given by name that cannot be opened fails the build instead).
    pub broken_links: Vec<BrokenLink>,
    /// Other files found in an input directory that could not be used, in input order: skipped,
    /// not read, not among [`BuildReport::files`].
    pub unusable: Vec<UnusableFile>,
    /// Used games cut at a bad move (`--keep-prefix`).
    pub truncated: u64,
    /// Games the input ended in, before their result token (a file cut short, or damaged
    /// there): skipped ([`SkipReason::CutShort`]) unless `--keep-prefix` kept their moves.
    pub cut_short: u64,
    /// Of [`BuildReport::cut_short`], the games used (`--keep-prefix`).
    pub cut_short_used: u64,
    /// Skipped games by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Of the games skipped for a malformed header ([`SkipReason::BadHeader`]), those whose tags
    /// are not valid UTF-8: what games in GBK or Big5 read as UTF-8 (`--encoding utf8`) give.
    pub undecodable_headers: u64,
    /// The first [`BuildOptions::max_errors`] bad games in file and game order.
    pub errors: Vec<GameError>,
    /// All bad games (reported or not).
    pub errors_total: u64,
    /// Records before aggregation (one per ply kept).
    pub raw_records: u64,
    /// Sorted runs spilled to disk (0 when everything fit in memory).
    pub runs_spilled: usize,
    /// Wall-clock time of the build.
    pub elapsed: Duration,
}

impl BuildReport {
    /// All skipped games.
    ///
    /// ```
    /// use qiku::book::{build, BuildOptions, GameFilter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let games = dir.path().join("games.pgn");
    /// std::fs::write(&games, "[Red \"Hu Ronghua\"]\n\n1. h2e2 h9g7 1-0\n\n[Red \"Lü Qin\"]\n\n1. c3c4 b9c7 0-1\n\n\
    ///                         [Red \"Hu Ronghua\"]\n\n1. h2h8 1-0\n")?;
    /// // Red games of Hu Ronghua only: the second game is filtered out, the third has an illegal move.
    /// let filter = GameFilter { red: Some("hu ronghua".into()), ..GameFilter::default() };
    /// let opts = BuildOptions { filter, ..BuildOptions::default() };
    /// let report = build(&[games], &dir.path().join("hu.qbk"), &opts)?;
    /// assert_eq!((report.skipped_total(), report.filtered_total(), report.errors_total), (2, 1, 1));
    /// assert_eq!(report.header.games.used, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// Games left out by the [`GameFilter`] (included in [`BuildReport::skipped_total`]). Example
    /// at [`BuildReport::skipped_total`].
    ///
    /// ```
    /// use qiku::book::{build, BuildOptions, GameFilter};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let games = dir.path().join("games.pgn");
    /// std::fs::write(&games, "[Event \"Cup\"]\n\n1. h2e2 1-0\n\n[Event \"League\"]\n\n1. c3c4 0-1\n")?;
    /// let filter = GameFilter { event: Some("cup".into()), ..GameFilter::default() };
    /// let report = build(&[games], &dir.path().join("cup.qbk"), &BuildOptions { filter, ..BuildOptions::default() })?;
    /// assert_eq!((report.filtered_total(), report.header.games.used), (1, 1)); // the league game is left out
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn filtered_total(&self) -> u64 {
        self.skipped.iter().filter(|(r, _)| matches!(r, SkipReason::Filtered(_))).map(|(_, n)| n).sum()
    }

    /// The files read that could not be read to their end ([`FileReport::error`]).
    ///
    /// ```
    /// use qiku::book::{build, BuildOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let text = "1. h2e2 h9g7 1-0\n".repeat(1_000);
    /// // A whole zstd frame, then one cut in half: the file ends in the middle of its second frame.
    /// let mut packed = zstd::encode_all(text.as_bytes(), 3)?;
    /// let more = zstd::encode_all(text.as_bytes(), 3)?;
    /// packed.extend_from_slice(&more[..more.len() / 2]);
    /// let (cut, whole) = (dir.path().join("cut.pgn.zst"), dir.path().join("whole.pgn"));
    /// std::fs::write(&cut, packed)?;
    /// std::fs::write(&whole, &text)?;
    /// let report = build(&[cut.clone(), whole], &dir.path().join("b.qbk"), &BuildOptions::default())?;
    /// let damaged: Vec<_> = report.damaged_files().map(|f| (f.path.clone(), f.games)).collect();
    /// assert_eq!(damaged, [(cut, 1_000)]); // the games of the first frame are used
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn damaged_files(&self) -> impl Iterator<Item = &FileReport> {
        self.files.iter().filter(|f| f.error.is_some())
    }
}

enum Message {
    Batch(Batch),
    /// Input `i` was read (to its end, or to an error the report names).
    Done(FileReport, usize),
    /// Input `i`, found by listing a directory, cannot be used: skipped, with the cause.
    Unusable(usize, String),
    /// An input named cannot be read after all: the build fails.
    Fatal(BuildError),
}

/// What became of each input.
#[derive(Clone)]
enum Outcome {
    Pending,
    Read(FileReport),
    Unusable(String),
}

/// Records of one record buffer and the runs spilled so far.
struct Accumulator {
    buf: Vec<Raw>,
    cap: usize,
    runs: Vec<Run>,
    /// The output and where the private spill directory is made (on the first spill).
    scratch: Scratch,
    spill_dir: Option<tempfile::TempDir>,
    /// Runs spilled (some may since have been merged into fewer).
    spilled: usize,
    raw_total: u64,
}

impl Accumulator {
    fn add(&mut self, records: &mut Vec<Raw>, pool: &rayon::ThreadPool) -> Result<(), BookError> {
        self.raw_total += records.len() as u64;
        if self.buf.len() + records.len() > self.cap && !self.buf.is_empty() {
            self.spill(pool)?;
        }
        let need = self.buf.len() + records.len();
        if need > self.buf.capacity() {
            // Grow by doubling but never past the budget (plain `extend` could double past it).
            let target = need.max(self.buf.capacity() * 2).min(self.cap.max(need));
            self.buf.reserve_exact(target - self.buf.len());
        }
        self.buf.append(records);
        Ok(())
    }

    fn spill(&mut self, pool: &rayon::ThreadPool) -> Result<(), BookError> {
        pool.install(|| self.buf.par_sort_unstable());
        let dir = self.run_dir()?;
        self.runs.push(Run::write(&dir, &self.scratch, aggregate_sorted(&self.buf).map(Ok))?);
        self.spilled += 1;
        self.buf.clear();
        Ok(())
    }

    /// The private directory of the runs (made on first use).
    fn run_dir(&mut self) -> Result<PathBuf, BookError> {
        self.scratch.run_dir(&mut self.spill_dir)
    }
}

pub use super::inputs::STDIN;

/// Builds a book from `inputs` into `output` (see the module documentation). An input named
/// [`STDIN`] reads the games from standard input.
///
/// ```
/// use qiku::book::{build, Book, BuildOptions};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n1. h2e2 b9c7 0-1\n")?;
/// let path = dir.path().join("games.qbk");
/// let report = build(&[games], &path, &BuildOptions::default())?;
/// assert!(report.written);
/// assert_eq!((report.files[0].games, report.header.games.used), (2, 2));
/// // Records: h2e2 in the start position (2 games), then h9g7 and b9c7 after it.
/// assert_eq!(Book::open(&path)?.len(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build(inputs: &[PathBuf], output: &Path, opts: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_with_progress(inputs, output, opts, &NoProgress)
}

/// [`build`], reporting the bytes of input read to `progress`. After each report it asks
/// [`Progress::stop_requested`], every 65,536 records while the book is written, and once more
/// before the book replaces the output: a stop ends the build with [`BuildError::Stopped`],
/// writing nothing and removing its temporary files and spilled runs.
///
/// Refused before anything is read: an output that is one of the inputs (by device and inode,
/// so also through a symlink) or cannot be written, an input named that cannot be opened or is
/// not a regular file, and an input named that is not text (a `.qbk` or `.qtb` file, or data with
/// NUL bytes near the start). A file of either kind found by listing a directory is skipped
/// instead ([`BuildReport::unusable`]), and a file that cannot be read to its end is reported
/// ([`FileReport::error`]) with the games before the damage used. Temporary files and spill
/// directories left by interrupted builds into the same place are removed first.
///
/// ```
/// use qiku::book::{build::build_with_progress, BuildError, BuildOptions};
/// use qiku::Progress;
///
/// struct Stop; // asks for a stop at once, as a Ctrl-C handler would
/// impl Progress for Stop {
///     fn start(&self, _: &str, _: u64) {}
///     fn advance(&self, _: u64) {}
///     fn finish(&self) {}
///     fn stop_requested(&self) -> bool { true }
/// }
///
/// # let dir = tempfile::tempdir()?;
/// # let games = dir.path().join("games.pgn");
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// let book = dir.path().join("games.qbk");
/// let err = build_with_progress(&[games], &book, &BuildOptions::default(), &Stop).unwrap_err();
/// assert!(matches!(err, BuildError::Stopped));
/// assert!(!book.exists()); // nothing written
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn build_with_progress(
    inputs: &[PathBuf],
    output: &Path,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildReport, BuildError> {
    let started = Instant::now();
    if opts.params.max_ply == 0 {
        return Err(BuildError::NoPlies);
    }
    if opts.recent_games > MAX_RECENT_GAMES {
        return Err(BuildError::Book(BookError::Internal(format!(
            "recent games per position {} above the maximum {MAX_RECENT_GAMES}",
            opts.recent_games
        ))));
    }
    check_output(output)?;
    let inputs::Inputs { files: inputs, repeated, broken_links, unlisted } = inputs::prepare(inputs, output)?;
    let inputs = &inputs[..];
    let spill_parent = match &opts.spill_dir {
        Some(dir) => dir.clone(),
        None => parent_dir(output).to_path_buf(),
    };
    let output_name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // Leftovers of killed builds: never complete, so removing them loses nothing. Failing to
    // remove them is not a reason to fail this build.
    let _ = remove_stale_temp_files(parent_dir(output), &|name| name == output_name);
    let _ = remove_stale_temp_files(&spill_parent, &|_| false);
    // Without a count, the size of the pool the caller runs in (rayon's global one, unless inside
    // another), not RAYON_NUM_THREADS read afresh: a program that checked or replaced that value
    // gets what it decided.
    let threads = opts.threads.unwrap_or_else(rayon::current_num_threads);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(BuildError::Threads)?;
    // The files named are checked before any game is read (each opened, its start read, closed
    // again); in input order, so that the error reported is the first input's.
    let checked: Vec<Result<(), BuildError>> =
        pool.install(|| inputs.par_iter().map(|input| inputs::check_named(input, opts.encoding)).collect());
    if let Some(e) = checked.into_iter().find_map(Result::err) {
        return Err(e);
    }
    let bytes_read = Arc::new(AtomicU64::new(0));
    let total_bytes: u64 = inputs.iter().map(|i| i.len).sum();
    let sized = !inputs.iter().any(|i| i.path.as_os_str() == STDIN);
    // Standard input is opened here, by a thread of its own (so that a stop need not wait for
    // input); the files are opened by the readers as they take them.
    let abandon = Abandon::default();
    let stdin = if sized {
        None
    } else {
        let counting = inputs::Counting { inner: Stdin::new(abandon.clone()), bytes: Arc::clone(&bytes_read) };
        let name = Path::new(STDIN);
        // Opening reads the first bytes (to tell the encoding), which standard input may be slow
        // to give: a stop is heard meanwhile.
        let opened = while_heeding_stops(progress, &abandon, || pgn::open_reader(counting, name, opts.encoding));
        match opened {
            _ if abandon.is_set() => return Err(BuildError::Stopped),
            Err(e) if e.kind() == OpenErrorKind::NotText => return Err(BuildError::NotText(e)),
            other => Some(other),
        }
    };
    let sources = Sources { inputs, stdin: Mutex::new(stdin), encoding: opts.encoding, bytes: Arc::clone(&bytes_read) };
    // Standard input's length is not known: no total then (a percentage would pass 100).
    progress.start("reading games", if sized { total_bytes } else { 0 });
    let params = opts.params;
    let max_tokens = if opts.whole_games { usize::MAX } else { params.max_ply as usize };
    let threads = pool.current_num_threads().max(1);
    // A round is a few batches per thread: enough to keep every thread busy, small enough that
    // reading overlaps replaying.
    let round = 4 * threads;
    let record_cap =
        usize::try_from(opts.memory / 4 * 3 / std::mem::size_of::<Raw>() as u64).unwrap_or(usize::MAX).max(1);
    let scratch = Scratch { output: output.to_path_buf(), dir: spill_parent };
    let mut recent =
        (opts.recent_games > 0).then(|| RecentCollector::new(opts.recent_games, scratch.clone(), opts.memory / 8));
    let ctx = ReplayContext { params: &params, filter: &opts.filter, recent: recent.is_some() };
    let mut acc = Accumulator {
        buf: Vec::new(),
        cap: record_cap,
        runs: Vec::new(),
        scratch,
        spill_dir: None,
        spilled: 0,
        raw_total: 0,
    };
    let mut outcomes: Vec<Outcome> = vec![Outcome::Pending; inputs.len()];
    let mut games = GameCounts::default();
    let mut truncated = 0u64;
    let (mut cut_short, mut cut_short_used) = (0u64, 0u64);
    let mut skipped: BTreeMap<SkipReason, u64> = BTreeMap::new();
    let mut undecodable_headers = 0u64;
    let mut errors: Vec<(usize, GameError)> = Vec::new();
    let mut errors_total = 0u64;
    let mut failure: Option<BookError> = None;
    let mut fatal: Option<BuildError> = None;
    let mut stopped = false;

    let next_file = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (tx, rx): (SyncSender<Message>, Receiver<Message>) = sync_channel(round);
        for _ in 0..inputs.len().min(threads) {
            let tx = tx.clone();
            let (sources, next_file) = (&sources, &next_file);
            scope.spawn(move || read_files(sources, next_file, max_tokens, &tx));
        }
        drop(tx);
        let mut pending: Vec<Batch> = Vec::with_capacity(round);
        let mut open = true;
        while open {
            // Wait for one message, then take whatever else is ready, up to a round. The wait
            // hears a stop (reading standard input may wait on its producer for long).
            match rx.recv_timeout(STOP_POLL) {
                Ok(m) => pending_push(m, &mut pending, &mut outcomes, &mut fatal),
                Err(RecvTimeoutError::Timeout) if progress.stop_requested() => {
                    abandon.set();
                    stopped = true;
                    break;
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => open = false,
            }
            while open && pending.len() < round {
                match rx.try_recv() {
                    Ok(m) => pending_push(m, &mut pending, &mut outcomes, &mut fatal),
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => open = false,
                }
            }
            if failure.is_some() || fatal.is_some() {
                // Stop: dropping the receiver makes the readers' next send fail.
                break;
            }
            if pending.is_empty() {
                continue;
            }
            let outputs: Vec<BatchOutput> =
                pool.install(|| pending.par_iter().map(|b| replay_batch(b, &inputs[b.file].path, &ctx)).collect());
            for (batch, mut out) in pending.drain(..).zip(outputs) {
                games.read += batch.games.len() as u64;
                games.used += out.used;
                games.without_result += out.without_result;
                truncated += out.truncated;
                cut_short += out.cut_short;
                cut_short_used += out.cut_short_used;
                for (r, n) in out.skipped.drain(..) {
                    *skipped.entry(r).or_default() += n;
                }
                undecodable_headers += out.undecodable_headers;
                errors_total += out.errors.len() as u64;
                errors.extend(out.errors.drain(..).map(|e| (batch.file, e)));
                if errors.len() > 2 * opts.max_errors.max(16) {
                    keep_first_errors(&mut errors, opts.max_errors);
                }
                if failure.is_none() {
                    if let Err(e) = acc.add(&mut out.records, &pool) {
                        failure = Some(e);
                    }
                }
                if let (None, Some(r)) = (&failure, recent.as_mut()) {
                    let added = out.games.iter().try_for_each(|(id, bytes)| r.add_game(*id, bytes));
                    if let Err(e) = added.and_then(|()| r.add_refs(&mut out.refs)) {
                        failure = Some(e);
                    }
                }
            }
            progress.set_position(bytes_read.load(Ordering::Relaxed));
            progress.message(&format!("{} game{}", games.read, if games.read == 1 { "" } else { "s" }));
            if progress.stop_requested() {
                // As for a failure: dropping the receiver ends the readers.
                stopped = true;
                break;
            }
        }
        // Dropping the receiver (end of scope) unblocks readers if we stopped early.
        drop(rx);
    });
    if let Some(e) = fatal {
        return Err(e);
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    if stopped {
        return Err(BuildError::Stopped);
    }
    progress.finish();
    if progress.stop_requested() {
        return Err(BuildError::Stopped);
    }
    keep_first_errors(&mut errors, opts.max_errors);

    pool.install(|| acc.buf.par_sort_unstable());
    let mut writer = BookWriter::create(output)?;
    // Writing a large book takes seconds: a stop is heard every so many records, and the
    // unfinished file is removed (dropped) on the way out, as are the spilled runs.
    let mut written_so_far = 0u64;
    let stop_heard = |n: &mut u64| {
        *n += 1;
        *n % STOP_CHECK_RECORDS == 0 && progress.stop_requested()
    };
    let mut kept = KeptRecords::new(params, recent.is_some(), acc.scratch.clone());
    if acc.runs.is_empty() {
        for e in aggregate_sorted(&acc.buf) {
            if stop_heard(&mut written_so_far) {
                return Err(BuildError::Stopped);
            }
            kept.push(&e, &mut writer)?;
        }
    } else {
        // The runs spilled, read at most MAX_FAN_IN at once with the buffer: more are merged
        // into fewer first.
        let dir = acc.run_dir()?;
        if !reduce_runs(&mut acc.runs, MAX_FAN_IN - 1, &dir, &acc.scratch, &|| progress.stop_requested())? {
            return Err(BuildError::Stopped);
        }
        let mut sources: Vec<EntryStream<'_>> = Vec::with_capacity(acc.runs.len() + 1);
        for run in &acc.runs {
            sources.push(run.read(&acc.scratch)?);
        }
        sources.push(Box::new(aggregate_sorted(&acc.buf).map(Ok)));
        for e in Merge::new(sources)? {
            let e = e?;
            if stop_heard(&mut written_so_far) {
                return Err(BuildError::Stopped);
            }
            kept.push(&e, &mut writer)?;
        }
    }
    let section = match recent {
        Some(r) => Some((opts.recent_games, r.finish(kept.kept_keys())?)),
        None => None,
    };
    // The last moment a stop can leave the output as it was (the unfinished file is removed).
    if progress.stop_requested() {
        return Err(BuildError::Stopped);
    }
    // A book without a move is not written: a file already at the output path (last week's
    // book, say) is worth more than an empty one.
    let written = writer.records() > 0;
    let header = if written { writer.finish_with(games, params, section)? } else { writer.discard(games, params) };
    let mut files = Vec::with_capacity(inputs.len());
    let mut unusable: Vec<UnusableFile> = unlisted
        .into_iter()
        .map(|d| UnusableFile { path: d.path, cause: format!("a directory that cannot be listed: {}", d.cause) })
        .collect();
    for (outcome, input) in outcomes.into_iter().zip(inputs) {
        match outcome {
            Outcome::Read(report) => files.push(report),
            Outcome::Unusable(cause) => unusable.push(UnusableFile { path: input.path.clone(), cause }),
            Outcome::Pending => files.push(FileReport {
                path: input.path.clone(),
                encoding: None,
                compressed: false,
                games: 0,
                error: Some("not read".into()),
                error_line: None,
                warnings: Vec::new(),
            }),
        }
    }
    Ok(BuildReport {
        header,
        written,
        files,
        repeated,
        broken_links,
        unusable,
        truncated,
        cut_short,
        cut_short_used,
        skipped,
        undecodable_headers,
        errors: errors.into_iter().map(|(_, e)| e).collect(),
        errors_total,
        raw_records: acc.raw_total,
        runs_spilled: acc.spilled,
        elapsed: started.elapsed(),
    })
}

/// Refuses an output that cannot be written before any game is read: a directory (or a name
/// ending in a slash), a path in a directory that does not exist or cannot be written in.
fn check_output(output: &Path) -> Result<(), BuildError> {
    check_output_place(output).map_err(|source| BuildError::Io {
        path: output.to_path_buf(),
        op: "write the book there",
        source,
    })
}

fn pending_push(m: Message, pending: &mut Vec<Batch>, outcomes: &mut [Outcome], fatal: &mut Option<BuildError>) {
    match m {
        Message::Batch(b) => pending.push(b),
        Message::Done(report, i) => {
            if let Some(slot) = outcomes.get_mut(i) {
                *slot = Outcome::Read(report);
            }
        }
        Message::Unusable(i, cause) => {
            if let Some(slot) = outcomes.get_mut(i) {
                *slot = Outcome::Unusable(cause);
            }
        }
        Message::Fatal(e) => {
            fatal.get_or_insert(e);
        }
    }
}

/// Sorts errors into file and game order and keeps the first `n`.
fn keep_first_errors(errors: &mut Vec<(usize, GameError)>, n: usize) {
    errors.sort_by(|(fa, a), (fb, b)| (fa, a.game, a.line, a.column).cmp(&(fb, b.game, b.line, b.column)));
    errors.truncate(n);
}

/// Runs `work` (which reads standard input) while a watcher sets `abandon` on a stop, so that a
/// read waiting for input gives up.
fn while_heeding_stops<T>(progress: &dyn Progress, abandon: &Abandon, work: impl FnOnce() -> T) -> T {
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if progress.stop_requested() {
                    abandon.set();
                    return;
                }
                std::thread::sleep(STOP_POLL / 2);
            }
        });
        let out = work();
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// What the reader threads share: the inputs, standard input once opened, and how to open the
/// files.
struct Sources<'a> {
    inputs: &'a [Input],
    stdin: Mutex<Option<Result<pgn::Input, OpenError>>>,
    encoding: EncodingChoice,
    /// Bytes read from all inputs, for the progress display.
    bytes: Arc<AtomicU64>,
}

/// A reader thread: takes files one at a time, opens each, and sends its games in batches.
fn read_files(sources: &Sources<'_>, next: &AtomicUsize, max_tokens: usize, tx: &SyncSender<Message>) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(source) = sources.inputs.get(i) else { return };
        let opened = if source.path.as_os_str() == STDIN {
            match sources.stdin.lock().ok().and_then(|mut s| s.take()) {
                Some(Ok(input)) => Opened::Ready(input),
                Some(Err(e)) => Opened::Damaged(e),
                None => continue,
            }
        } else {
            inputs::open(source, sources.encoding, &sources.bytes)
        };
        let input = match opened {
            Opened::Ready(input) => input,
            Opened::Damaged(e) => {
                let report = FileReport {
                    path: e.path().to_path_buf(),
                    encoding: None,
                    compressed: false,
                    games: 0,
                    error: Some(without_path(e.path(), e.to_string())),
                    warnings: Vec::new(),
                    error_line: None,
                };
                if tx.send(Message::Done(report, i)).is_err() {
                    return;
                }
                continue;
            }
            Opened::Unusable(cause) => {
                // Its bytes count as done, so that the progress display still reaches its total.
                sources.bytes.fetch_add(source.len, Ordering::Relaxed);
                if tx.send(Message::Unusable(i, cause)).is_err() {
                    return;
                }
                continue;
            }
            Opened::Fatal(e) => {
                let _ = tx.send(Message::Fatal(e));
                return;
            }
        };
        let (path, encoding, compressed) = (input.path().to_path_buf(), Some(input.encoding()), input.is_compressed());
        let mut reader = Reader::new(input);
        let mut games = 0u64;
        let mut collector = Collector::new(i, max_tokens, |batch: Batch| {
            games += batch.games.len() as u64;
            tx.send(Message::Batch(batch)).is_ok()
        });
        let error = loop {
            match reader.read_game(&mut collector) {
                Ok(true) if !collector.stopped => {}
                Ok(_) => break None,
                Err(e) => break Some(without_path(&path, e.to_string())),
            }
        };
        collector.flush();
        let (stopped, warnings) = (collector.stopped, collector.warnings());
        drop(collector);
        let error_line = error.as_ref().map(|_| reader.line()).filter(|&l| l > 0);
        let report = FileReport { path, encoding, compressed, games, error, error_line, warnings };
        if stopped || tx.send(Message::Done(report, i)).is_err() {
            return;
        }
    }
}
