//! Compiling game collections into a book: in parallel, in bounded memory, deterministically.
//!
//! Pipeline:
//! 1. Every input is opened first (a missing file fails the build before any work is done;
//!    a symbolic link found in an input directory whose target does not exist is skipped and
//!    reported in [`BuildReport::broken_links`]).
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
use super::filter::GameFilter;
use super::format::MAX_RECENT_GAMES;
use super::format::{BookWriter, BuildParams, GameCounts, Header};
use super::merge::{reduce_runs, EntryStream, Merge, Run, Scratch, MAX_FAN_IN, STOP_CHECK_RECORDS};
use super::recent::{RecentCollector, DEFAULT_RECENT_GAMES};
use super::record::{aggregate_sorted, Raw};
use super::replay::{replay_batch, Batch, BatchOutput, Collector, ReplayContext};
pub use super::report::{GameError, MoveErrorKind, SkipReason};
use super::stdin::{Abandon, Stdin};
use crate::pgn::{self, EncodingChoice, OpenError, OpenErrorKind, Reader, TextEncoding};
use crate::util::files::{check_output_place, open_regular, output_among_inputs, parent_dir, remove_stale_temp_files};
use crate::util::progress::{NoProgress, Progress};
use crate::xqf::BrokenLink;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the build waits for its readers before it looks whether it was told to stop.
const STOP_POLL: Duration = Duration::from_millis(200);

/// Options of [`build`] beyond the [`BuildParams`] stored in the book.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The options stored in the book.
    pub params: BuildParams,
    /// Text encoding of the inputs (default: detected per file).
    pub encoding: EncodingChoice,
    /// Memory budget for records in bytes; beyond it sorted runs are spilled to disk.
    pub memory: u64,
    /// Worker threads (default: rayon's default, the number of cores or `RAYON_NUM_THREADS`).
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
    /// name, which is [`FileReport::path`].
    pub error: Option<String>,
}

/// The outcome of a build.
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
    /// Used games cut at a bad move (`--keep-prefix`).
    pub truncated: u64,
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
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }

    /// Games left out by the [`GameFilter`] (included in [`BuildReport::skipped_total`]).
    pub fn filtered_total(&self) -> u64 {
        self.skipped.iter().filter(|(r, _)| matches!(r, SkipReason::Filtered(_))).map(|(_, n)| n).sum()
    }
}

/// Why a build failed as a whole (bad games never fail a build; they are reported).
#[derive(Debug)]
pub enum BuildError {
    /// An input could not be opened, or a temporary file or directory could not be made.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// An input is not a game file (one of qiku's binary files, or binary data); refused before
    /// any game is read.
    NotText(OpenError),
    /// Writing the book failed (or the output is one of the inputs).
    Book(BookError),
    /// The worker thread pool could not be started.
    Threads(rayon::ThreadPoolBuildError),
    /// `max_ply` is 0: no move would be recorded and the book would be empty; refused before
    /// anything is read.
    NoPlies,
    /// The progress receiver asked for a stop ([`Progress::stop_requested`]): nothing was
    /// written, and a file already at the output path was left as it was.
    Stopped,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Io { path, op, source } => write!(f, "{}: cannot {op}: {source}", path.display()),
            BuildError::NotText(e) => write!(f, "{e}"),
            BuildError::Book(e) => write!(f, "{e}"),
            BuildError::Threads(e) => write!(f, "cannot start worker threads: {e}"),
            BuildError::NoPlies => f.write_str(
                "a maximum of 0 plies records no move: the book would be empty; give 1 or more (default 40)",
            ),
            BuildError::Stopped => f.write_str("the build was stopped: no book was written"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Io { source, .. } => Some(source),
            BuildError::NotText(e) => Some(e),
            BuildError::Book(e) => Some(e),
            BuildError::Threads(e) => Some(e),
            BuildError::NoPlies | BuildError::Stopped => None,
        }
    }
}

impl From<BookError> for BuildError {
    fn from(e: BookError) -> Self {
        BuildError::Book(e)
    }
}

/// Counts bytes read from a file, for the progress bar.
struct Counting<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

enum Message {
    Batch(Batch),
    Done(FileReport, usize),
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
        if self.spill_dir.is_none() {
            self.spill_dir = Some(self.scratch.run_dir()?);
        }
        Ok(self.spill_dir.as_ref().map(|d| d.path().to_path_buf()).unwrap_or_default())
    }
}

/// The input name that stands for standard input (`-`, as in most command-line tools): its games
/// are read as a file's are (any encoding, `.zst` or not, told by content), once.
pub const STDIN: &str = "-";

/// Builds a book from `inputs` into `output` (see the module documentation). An input named
/// [`STDIN`] reads the games from standard input.
pub fn build(inputs: &[PathBuf], output: &Path, opts: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_with_progress(inputs, output, opts, &NoProgress)
}

/// [`build`], reporting the bytes of input read to `progress`. After each report it asks
/// [`Progress::stop_requested`], every 65,536 records while the book is written, and once more
/// before the book replaces the output: a stop ends the build with [`BuildError::Stopped`],
/// writing nothing and removing its temporary files and spilled runs.
///
/// Refused before anything is read: an output that is one of the inputs (by device and inode,
/// so also through a symlink), an input that is not a regular file, and an input that is not
/// text (a `.qbk` or `.qtb` file, or data with NUL bytes near the start). Temporary files and
/// spill directories left by interrupted builds into the same place are removed first.
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
    // Directories stand for the game files in them (XQF collections come as one file per game).
    let given = inputs;
    let expanded = crate::xqf::expand_game_inputs(inputs).map_err(|(path, source)| BuildError::Io {
        path,
        op: "list the directory",
        source,
    })?;
    let (inputs, broken_links) = (&expanded.files[..], expanded.broken_links);
    if let (true, Some(dir)) = (inputs.is_empty(), given.first()) {
        let why = if broken_links.is_empty() {
            "no .pgn, .pgn.zst, .txt, .txt.zst or .xqf file in it (or below it)".to_string()
        } else {
            let links: Vec<String> = broken_links.iter().map(|l| l.path.display().to_string()).collect();
            let (what, their) = match links.len() {
                1 => ("file is a symbolic link", "its target"),
                _ => ("files are symbolic links", "their targets"),
            };
            format!(
                "its only game {what} whose target does not exist ({}): restore {their} or give the game \
                 files themselves",
                links.join(", ")
            )
        };
        return Err(BuildError::Io {
            path: dir.clone(),
            op: "find game files",
            source: std::io::Error::new(std::io::ErrorKind::NotFound, why),
        });
    }
    if let Some(input) = output_among_inputs(output, inputs) {
        return Err(BookError::OutputIsInput { output: output.to_path_buf(), input: input.to_path_buf() }.into());
    }
    let (inputs, repeated) = without_repeats(inputs);
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
    let pool =
        rayon::ThreadPoolBuilder::new().num_threads(opts.threads.unwrap_or(0)).build().map_err(BuildError::Threads)?;
    let bytes_read = Arc::new(AtomicU64::new(0));
    let mut total_bytes = 0u64;
    let mut opened = Vec::with_capacity(inputs.len());
    let mut sized = true;
    // Standard input is read by a thread of its own, so that a stop need not wait for input.
    let abandon = Abandon::default();
    for path in inputs {
        let inner: Box<dyn Read + Send> = if path.as_os_str() == STDIN {
            sized = false;
            Box::new(Stdin::new(abandon.clone()))
        } else {
            let file = open_regular(path).map_err(|e| BuildError::Io { path: path.clone(), op: "open", source: e })?;
            total_bytes += file.metadata().map(|m| m.len()).unwrap_or(0);
            Box::new(file)
        };
        let counting = Counting { inner, bytes: Arc::clone(&bytes_read) };
        // A file that opens but cannot be decoded (say, a zstd stream cut short) is reported
        // with the others and the build goes on; only a file that cannot be opened at all
        // (a typo in a path) fails the build. (A broken symbolic link found in a directory was
        // set apart above, with a warning: nobody typed its name.)
        let input = if crate::xqf::is_xqf_path(path) {
            crate::xqf::open_as_pgn(counting, path)
        } else {
            // Opening reads the first bytes (to tell the encoding), which standard input may be
            // slow to give: a stop is heard meanwhile.
            let open = || pgn::open_reader(counting, path, opts.encoding);
            let opened = if path.as_os_str() == STDIN { while_heeding_stops(progress, &abandon, open) } else { open() };
            match opened {
                _ if abandon.is_set() => return Err(BuildError::Stopped),
                Err(e) if e.kind() == OpenErrorKind::NotText => return Err(BuildError::NotText(e)),
                other => other,
            }
        };
        opened.push(Mutex::new(Some(input)));
    }
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
    let mut files: Vec<Option<FileReport>> = vec![None; inputs.len()];
    let mut games = GameCounts::default();
    let mut truncated = 0u64;
    let mut skipped: BTreeMap<SkipReason, u64> = BTreeMap::new();
    let mut undecodable_headers = 0u64;
    let mut errors: Vec<(usize, GameError)> = Vec::new();
    let mut errors_total = 0u64;
    let mut failure: Option<BookError> = None;
    let mut stopped = false;

    let next_file = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (tx, rx): (SyncSender<Message>, Receiver<Message>) = sync_channel(round);
        for _ in 0..inputs.len().min(threads) {
            let tx = tx.clone();
            let (opened, next_file) = (&opened, &next_file);
            scope.spawn(move || read_files(opened, next_file, max_tokens, &tx));
        }
        drop(tx);
        let mut pending: Vec<Batch> = Vec::with_capacity(round);
        let mut open = true;
        while open {
            // Wait for one message, then take whatever else is ready, up to a round. The wait
            // hears a stop (reading standard input may wait on its producer for long).
            match rx.recv_timeout(STOP_POLL) {
                Ok(m) => pending_push(m, &mut pending, &mut files),
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
                    Ok(m) => pending_push(m, &mut pending, &mut files),
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => open = false,
                }
            }
            if failure.is_some() {
                // Stop: dropping the receiver makes the readers' next send fail.
                break;
            }
            if pending.is_empty() {
                continue;
            }
            let outputs: Vec<BatchOutput> =
                pool.install(|| pending.par_iter().map(|b| replay_batch(b, &inputs[b.file], &ctx)).collect());
            for (batch, mut out) in pending.drain(..).zip(outputs) {
                games.read += batch.games.len() as u64;
                games.used += out.used;
                games.without_result += out.without_result;
                truncated += out.truncated;
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
    if acc.runs.is_empty() {
        for e in aggregate_sorted(&acc.buf) {
            if stop_heard(&mut written_so_far) {
                return Err(BuildError::Stopped);
            }
            if params.keeps(&e.counts) {
                writer.push(&e)?;
            }
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
            if params.keeps(&e.counts) {
                writer.push(&e)?;
            }
        }
    }
    let section = match recent {
        Some(r) => Some((opts.recent_games, r.finish()?)),
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
    let files = files
        .into_iter()
        .zip(inputs)
        .map(|(f, path)| {
            f.unwrap_or_else(|| FileReport {
                path: path.clone(),
                encoding: None,
                compressed: false,
                games: 0,
                error: Some("not read".into()),
            })
        })
        .collect();
    Ok(BuildReport {
        header,
        written,
        files,
        repeated,
        broken_links,
        truncated,
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

/// `inputs` without the files that are the same file as an earlier one, and those left out, each
/// with the earlier input.
fn without_repeats(inputs: &[PathBuf]) -> (Vec<PathBuf>, Vec<(PathBuf, PathBuf)>) {
    let mut kept: Vec<PathBuf> = Vec::with_capacity(inputs.len());
    let mut repeated = Vec::new();
    for path in inputs {
        match kept.iter().find(|k| *k == path || crate::util::files::same_file(k, path)) {
            Some(earlier) => repeated.push((path.clone(), earlier.clone())),
            None => kept.push(path.clone()),
        }
    }
    (kept, repeated)
}

fn pending_push(m: Message, pending: &mut Vec<Batch>, files: &mut [Option<FileReport>]) {
    match m {
        Message::Batch(b) => pending.push(b),
        Message::Done(report, i) => {
            if let Some(slot) = files.get_mut(i) {
                *slot = Some(report);
            }
        }
    }
}

/// Sorts errors into file and game order and keeps the first `n`.
fn keep_first_errors(errors: &mut Vec<(usize, GameError)>, n: usize) {
    errors.sort_by(|(fa, a), (fb, b)| (fa, a.game, a.line, a.column).cmp(&(fb, b.game, b.line, b.column)));
    errors.truncate(n);
}

/// An error's message without the file name its reader put in front of it (a report names the
/// file apart).
fn without_path(path: &Path, message: String) -> String {
    match message.strip_prefix(&format!("{}: ", path.display())) {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

/// A reader thread: takes files one at a time and sends their games in batches.
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

fn read_files(
    opened: &[Mutex<Option<Result<pgn::Input, OpenError>>>],
    next: &AtomicUsize,
    max_tokens: usize,
    tx: &SyncSender<Message>,
) {
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = opened.get(i) else { return };
        let input = match slot.lock().ok().and_then(|mut s| s.take()) {
            Some(Ok(input)) => input,
            Some(Err(e)) => {
                let report = FileReport {
                    path: e.path().to_path_buf(),
                    encoding: None,
                    compressed: false,
                    games: 0,
                    error: Some(without_path(e.path(), e.to_string())),
                };
                if tx.send(Message::Done(report, i)).is_err() {
                    return;
                }
                continue;
            }
            None => continue,
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
        let stopped = collector.stopped;
        drop(collector);
        let report = FileReport { path, encoding, compressed, games, error };
        if stopped || tx.send(Message::Done(report, i)).is_err() {
            return;
        }
    }
}
