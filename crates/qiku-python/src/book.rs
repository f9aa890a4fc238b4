//! `qiku.Book` (a `.qbk` opening book: probe a position, pick a move) and the book compiler
//! (`qiku.book.build`), which reads game files with the GIL released and reports progress to a
//! Python callable. An exception from the callable, or Ctrl-C, stops the build at its next
//! report without writing.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::adapter::{self, Book, BookRng, BuildOptions, Color, MinScore, Position, Progress, SideFilter};
use crate::args;
use crate::board::{PyBoard, PyMove};
use crate::closing::Closable;
use crate::errors;
use crate::interrupt::interruptible;
use crate::pickling;

/// Most worker threads of a book build, as `qiku-book build --threads`.
const MAX_BUILD_THREADS: i128 = adapter::MAX_WORKER_THREADS as i128;

/// `seed` of `Book.pick`: any 64-bit number.
fn seed_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    args::optional(v, |v| args::whole(v, "seed", 0, None))
}

/// `max_ply` of a build: at least 1 (a book of no ply would be empty), as `qiku-book build`.
fn max_ply_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    args::whole(v, "max_ply", 1, None)
}

/// `min_games` of a build: any count, as `qiku-book build --min-games`.
fn min_games_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    args::whole(v, "min_games", 0, None)
}

/// `min_score` of a build: a fraction, 0 to 1, as `qiku-book build --min-score`.
fn min_score_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    args::optional(v, |v| args::real(v, "min_score", 0.0, 1.0, ""))
}

/// `min_elo` of a build: any rating, as `qiku-book build --min-elo`.
fn min_elo_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    args::optional(v, |v| args::whole(v, "min_elo", 0, None))
}

/// `threads` of a build: 1 to 1024 worker threads, as `qiku-book build --threads`.
fn build_threads_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    args::optional(v, |v| args::whole(v, "threads", 1, Some(MAX_BUILD_THREADS)))
}

/// The book file `Book` opens.
fn path_arg(v: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    args::path(v, "path")
}

/// The game files of a build: one path or a list of them.
fn inputs_arg(v: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    args::paths(v, "inputs")
}

/// The book a build writes.
fn output_arg(v: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    args::path(v, "output")
}

/// `max_errors` of a build: any count.
fn max_errors_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "max_errors", 0, None)
}

/// A position given as a `Board` or a FEN string.
pub fn position_arg(value: &Bound<'_, PyAny>) -> PyResult<Position> {
    if let Ok(b) = value.cast::<PyBoard>() {
        return Ok(b.get().position());
    }
    let fen: String = value
        .extract()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("a position is a qiku.Board or a FEN string"))?;
    adapter::parse_position(&fen).map_err(errors::fen_error)
}

/// One move of a book position with its results. `wins`, `draws`, `losses` count the games from
/// the point of view of the side that plays the move; `red` and `black` are the same wins and
/// losses by color.
///
/// Entries compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku", name = "BookEntry", frozen, get_all, eq, hash)]
#[derive(Clone, PartialEq)]
pub struct PyBookEntry {
    /// The move.
    #[pyo3(name = "move")]
    mv: PyMove,
    /// Games in which the move was played (results known or not).
    games: u64,
    /// Games the mover won.
    wins: u32,
    /// Games drawn.
    draws: u32,
    /// Games the mover lost.
    losses: u32,
    /// Games red won.
    red: u32,
    /// Games black won.
    black: u32,
    /// Games without a known result.
    unknown: u32,
    /// The mover's score over decided games (wins + draws / 2) / (wins + draws + losses), or
    /// `None` if no game had a result.
    score: Option<f64>,
    /// In a position that is its own mirror image (the start), the mirror twin whose games the
    /// book counts with this move's (`b2e2` beside `h2e2`, as `qiku-book probe` says "with its
    /// mirror"); `None` elsewhere.
    with_mirror: Option<PyMove>,
}

/// The hash of the fields `==` compares (the score by its value: `0.0` and `-0.0` alike).
impl std::hash::Hash for PyBookEntry {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let score = self.score.map(|s| if s == 0.0 { 0 } else { s.to_bits() });
        (self.mv, self.games, self.wins, self.draws, self.losses, self.red, self.black, self.unknown).hash(h);
        (score, self.with_mirror).hash(h);
    }
}

/// A book entry's fields in their order: move, games, wins, draws, losses, red, black, unknown,
/// score, with_mirror.
type EntryState = (PyMove, u64, u32, u32, u32, u32, u32, u32, Option<f64>, Option<PyMove>);

#[pymethods]
impl PyBookEntry {
    fn __repr__(&self) -> String {
        format!(
            "BookEntry(move={}, games={}, red={}, draws={}, black={})",
            self.mv.mv, self.games, self.red, self.draws, self.black
        )
    }

    /// Pickling and copying: the fields.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, EntryState)> {
        let state = (
            self.mv,
            self.games,
            self.wins,
            self.draws,
            self.losses,
            self.red,
            self.black,
            self.unknown,
            self.score,
            self.with_mirror,
        );
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The entry `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (r#move, games, wins, draws, losses, red, black, unknown, score, with_mirror))]
    fn _from_state(
        r#move: PyMove,
        games: u64,
        wins: u32,
        draws: u32,
        losses: u32,
        red: u32,
        black: u32,
        unknown: u32,
        score: Option<f64>,
        with_mirror: Option<PyMove>,
    ) -> PyBookEntry {
        PyBookEntry { mv: r#move, games, wins, draws, losses, red, black, unknown, score, with_mirror }
    }
}

/// An opening book (`.qbk`), fully checked when opened. Safe to share between threads.
/// `close()`, or the end of a `with` block, lets the file go; using the book afterwards raises
/// `ValueError` (an engine it was attached to keeps its own hold on it).
#[pyclass(module = "qiku", name = "Book", frozen)]
pub struct PyBook {
    book: Closable<Arc<Book>>,
    path: PathBuf,
    rng: Mutex<BookRng>,
}

/// The class name a closed book's error gives.
const BOOK: &str = "qiku.Book";

impl PyBook {
    /// The opened book, which an engine shares (it opens no file again: a relative path and a
    /// later change of directory do not matter); `ValueError` once closed.
    pub fn shared(&self) -> PyResult<Arc<Book>> {
        self.book.with(BOOK, |b| Arc::clone(b))
    }
}

/// The policy named `name` (`best`, `games`, `score`).
pub fn policy_arg(name: &str) -> PyResult<adapter::Policy> {
    adapter::book_policy(name)
        .ok_or_else(|| errors::value_error(format!("unknown book policy {name:?} (expected best, games or score)")))
}

#[pymethods]
impl PyBook {
    /// Opens and checks a book; `BookFileError` (an `OSError`) names the file and the problem.
    #[new]
    fn py_new(py: Python<'_>, #[pyo3(from_py_with = path_arg)] path: PathBuf) -> PyResult<PyBook> {
        let p = path.clone();
        let book = py.detach(move || Book::open(&p)).map_err(|e| errors::book_error(&e))?;
        // Seeded from the clock, as the engine's book: the random policies vary between runs
        // unless `pick` is given a seed.
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        Ok(PyBook { book: Closable::new(Arc::new(book)), path, rng: Mutex::new(BookRng::new(seed)) })
    }

    /// The book's moves for a position (a `Board` or a FEN), most played first; an empty list
    /// when the position is not in the book.
    fn probe(&self, position: &Bound<'_, PyAny>) -> PyResult<Vec<PyBookEntry>> {
        let pos = position_arg(position)?;
        let moves = self.shared()?.probe(&pos).map_err(|e| errors::book_error(&e))?;
        let mover = pos.turn();
        Ok(moves
            .into_iter()
            .map(|m| {
                let c = m.counts;
                let (red, black) = if mover == Color::Red { (c.wins, c.losses) } else { (c.losses, c.wins) };
                PyBookEntry {
                    mv: PyMove::new(m.mv),
                    games: c.games(),
                    wins: c.wins,
                    draws: c.draws,
                    losses: c.losses,
                    red,
                    black,
                    unknown: c.unknown,
                    score: c.score(),
                    with_mirror: m.merged_mirror(&pos).map(PyMove::new),
                }
            })
            .collect())
    }

    /// A book move for the position by `policy`: `"best"` (the best score, deterministic),
    /// `"games"` (at random, weighted by games) or `"score"` (weighted by points), among the moves
    /// played in at least 5% of the position's games; `None` when the position is not in the book
    /// (or no move has that share). `seed` makes the random policies repeatable.
    #[pyo3(signature = (position, policy = "best", seed = None))]
    fn pick(
        &self,
        position: &Bound<'_, PyAny>,
        policy: &str,
        #[pyo3(from_py_with = seed_arg)] seed: Option<u64>,
    ) -> PyResult<Option<PyMove>> {
        let pos = position_arg(position)?;
        let policy = policy_arg(policy)?;
        let moves = self.shared()?.probe(&pos).map_err(|e| errors::book_error(&e))?;
        let pick = match seed {
            Some(s) => adapter::book::choose(&moves, policy, &mut BookRng::new(s)),
            None => adapter::book::choose(&moves, policy, &mut self.rng.lock().unwrap_or_else(|e| e.into_inner())),
        };
        Ok(pick.map(PyMove::new))
    }

    /// The path the book was opened from.
    #[getter(path)]
    fn py_path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Distinct positions in the book.
    #[getter]
    fn positions(&self) -> PyResult<u64> {
        Ok(self.shared()?.header().positions)
    }

    /// Games the book was built from (used ones).
    #[getter]
    fn games(&self) -> PyResult<u64> {
        Ok(self.shared()?.header().games.used)
    }

    /// Plies of each game the book records.
    #[getter]
    fn max_ply(&self) -> PyResult<u32> {
        Ok(self.shared()?.header().params.max_ply)
    }

    /// Number of position-move records.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.shared()?.len() as usize)
    }

    /// Lets the book's file go; later calls raise `ValueError`. Closing again does nothing.
    fn close(&self) {
        self.book.close();
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.book.is_closed()
    }

    /// `with qiku.Book(path) as book:` closes the book at the end of the block.
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Closes the book; an exception of the block goes on.
    fn __exit__(
        &self,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _trace: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        let closed = if self.book.is_closed() { " (closed)" } else { "" };
        format!("Book('{}'){closed}", self.path.display())
    }

    /// Refuses pickling and copying: a book is an open file.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pickling::refuse(
            "qiku.Book",
            "it is an open file",
            "send its path (book.path) to the other process and open qiku.Book(path) there; \
             within one process, share the Book itself (it is safe to use from several threads)",
        ))
    }
}

/// Calls a Python callable (if any) with `(done, total)` bytes of input read, at most ten times a
/// second (and once at the end), from whichever thread the build reports on; asks the build to
/// stop once the callable raised or Ctrl-C was pressed.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    total: AtomicU64,
    last: Mutex<Option<Instant>>,
    /// The callable's first exception.
    error: Mutex<Option<PyErr>>,
    /// Set with `error`, or by Ctrl-C: the build stops at its next report.
    stop: AtomicBool,
}

impl PyProgress {
    fn report(&self, done: u64, force: bool) {
        let Some(callback) = &self.callback else { return };
        if self.stop.load(Ordering::SeqCst) {
            return;
        }
        {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            if !force && last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
                return;
            }
            *last = Some(Instant::now());
        }
        let total = self.total.load(Ordering::Relaxed);
        Python::attach(|py| {
            if let Err(e) = callback.call1(py, (done, total)) {
                let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(e);
                self.stop.store(true, Ordering::SeqCst);
            }
        });
    }
}

impl Progress for PyProgress {
    fn start(&self, _label: &str, total: u64) {
        self.total.store(total, Ordering::Relaxed);
    }
    fn advance(&self, _n: u64) {}
    fn set_position(&self, done: u64) {
        self.report(done, false);
    }
    fn finish(&self) {
        let total = self.total.load(Ordering::Relaxed);
        self.report(total, true);
    }
    fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// Builds a `.qbk` book from game files (see `qiku.book.build` for the options).
#[pyfunction]
#[pyo3(signature = (inputs, output, *, max_ply = 40, min_games = 0, min_score = None, only = None,
                    min_elo = None, keep_prefix = false, whole_games = true, threads = None,
                    encoding = "auto", max_errors = 1000, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn build_book<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = inputs_arg)] inputs: Vec<PathBuf>,
    #[pyo3(from_py_with = output_arg)] output: PathBuf,
    #[pyo3(from_py_with = max_ply_arg)] max_ply: u32,
    #[pyo3(from_py_with = min_games_arg)] min_games: u32,
    #[pyo3(from_py_with = min_score_arg)] min_score: Option<f64>,
    only: Option<&str>,
    #[pyo3(from_py_with = min_elo_arg)] min_elo: Option<u32>,
    keep_prefix: bool,
    whole_games: bool,
    #[pyo3(from_py_with = build_threads_arg)] threads: Option<usize>,
    encoding: &str,
    #[pyo3(from_py_with = max_errors_arg)] max_errors: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(p) = &progress {
        if !p.bind(py).is_callable() {
            let kind = p.bind(py).get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "progress must be a callable taking (bytes_done, bytes_total), True or None, not {kind}"
            )));
        }
    }
    let mut opts = BuildOptions::default();
    opts.params.max_ply = max_ply;
    opts.params.min_games = min_games;
    if let Some(f) = min_score {
        opts.params.min_score = MinScore::from_fraction(f)
            .ok_or_else(|| errors::value_error(format!("min_score {f} is not a fraction from 0 to 1")))?;
    }
    opts.params.only = match only {
        None => SideFilter::Both,
        Some(s) if s.eq_ignore_ascii_case("red") => SideFilter::Only(Color::Red),
        Some(s) if s.eq_ignore_ascii_case("black") => SideFilter::Only(Color::Black),
        Some(s) => return Err(errors::value_error(format!("only={s:?}: expected 'red', 'black' or None"))),
    };
    opts.params.min_elo = min_elo;
    opts.params.keep_prefix = keep_prefix;
    opts.whole_games = whole_games;
    opts.threads = threads;
    opts.encoding = adapter::encoding_choice(encoding).map_err(errors::value_error)?;
    opts.max_errors = max_errors;
    let progress = PyProgress {
        callback: progress,
        total: AtomicU64::new(0),
        last: Mutex::new(None),
        error: Mutex::new(None),
        stop: AtomicBool::new(false),
    };
    // Ctrl-C stops the build as an exception of the callable does: at its next report.
    let report = interruptible(
        py,
        || progress.stop.store(true, Ordering::SeqCst),
        || adapter::build_with_progress(&inputs, &output, &opts, &progress),
    )?;
    if let Some(e) = progress.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let report = report.map_err(|e| errors::build_error(&e))?;
    let d = PyDict::new(py);
    d.set_item("output", output)?;
    d.set_item("written", report.written)?;
    d.set_item("repeated", report.repeated.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>())?;
    d.set_item("games_read", report.header.games.read)?;
    d.set_item("games_used", report.header.games.used)?;
    d.set_item("games_without_result", report.header.games.without_result)?;
    d.set_item("positions", report.header.positions)?;
    d.set_item("records", report.header.records)?;
    let skipped = PyDict::new(py);
    for (reason, n) in &report.skipped {
        skipped.set_item(reason.key(), n)?;
    }
    d.set_item("skipped", skipped)?;
    d.set_item("errors", report.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>())?;
    d.set_item("errors_total", report.errors_total)?;
    d.set_item("seconds", report.elapsed.as_secs_f64())?;
    let files: Vec<Bound<'py, PyDict>> = report
        .files
        .iter()
        .map(|f| {
            let fd = PyDict::new(py);
            fd.set_item("path", &f.path)?;
            fd.set_item("encoding", f.encoding.map(|e| e.name()))?;
            fd.set_item("compressed", f.compressed)?;
            fd.set_item("games", f.games)?;
            fd.set_item("error", f.error.clone())?;
            Ok(fd)
        })
        .collect::<PyResult<_>>()?;
    d.set_item("files", files)?;
    Ok(d)
}
