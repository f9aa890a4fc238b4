//! `qiku.Engine`: the library's engine (book, then tablebases, then alpha-beta search) analysing
//! a board with its history, so that repetitions are judged as in a game. The search runs with
//! the GIL released on a thread of its own; `stop()` from another thread, or Ctrl-C, ends it
//! early. What the book and table adapters report while the engine plays on (a damaged table, a
//! missing one, a book that can no longer be read) goes to `Analysis.info` and to
//! `warnings.warn`, not to the process's stdout.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use pyo3::prelude::*;

use crate::adapter::{self, Engine, Limits, Notes, QbkBook, QtbTables, Score, Shared, Source, Tablebases};
use crate::args;
use crate::board::{PyBoard, PyMove, PyOutcome};
use crate::book::{policy_arg, PyBook};
use crate::errors;
use crate::interrupt::interruptible;
use crate::pickling::{self, maybe_one_of};
use crate::tables::{PyTablebases, PyTbVerdict};

/// The result of `Engine.analyse`. Analyses compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku", name = "Analysis", frozen, get_all, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyAnalysis {
    /// The move to play, or `None` when the side to move has no legal move or the game is over
    /// (see `outcome`).
    best: Option<PyMove>,
    /// The search's score in centipawns for the side to move; `None` for a mate score, a book
    /// move and a tablebase move.
    cp: Option<i32>,
    /// Mate in this many moves (negative: the side to move is mated), from the search or from
    /// the tables' distance to mate; else `None`.
    mate: Option<i32>,
    /// The score as UCI writes it, text made from `cp` or `mate`: `"cp {cp}"` or `"mate {mate}"`
    /// (`"cp 25"`, `"mate -3"`); `None` when both are `None` (a book move, or a tablebase value
    /// only the repetition rules decide: see `verdict`).
    score: Option<String>,
    /// The principal variation, starting with `best`.
    pv: Vec<PyMove>,
    /// Depth reached in plies (0 for a book move).
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// Where the move came from: `"book"`, `"tablebase"` or `"search"`; `None` when nothing was
    /// searched because the rules have already ended the game (see `outcome`).
    source: Option<&'static str>,
    /// The tables' verdict when they cover the position: the position's value for the side to
    /// move, also for a tablebase move (in a win only the rules decide, the move's line rank can
    /// be above it); for a drawn position the search chose among the drawing moves. Else `None`.
    verdict: Option<PyTbVerdict>,
    /// The UCI `info` lines: the search's progress, one per iteration, and the `info string`
    /// lines UCI prints (what the book and tables reported, and the source of the move).
    info: Vec<String>,
    /// The board's `outcome()` when the game is already over, else `None`. A game the rules
    /// ended with legal moves left (a perpetual check or chase, a repetition, the 120-ply limit,
    /// no attacking material) is not searched, as `qiku analyze` does not search it: `best` and
    /// `source` are `None`, `pv` empty, `depth` and `nodes` 0. After a checkmate or stalemate the
    /// search runs and finds no move.
    outcome: Option<PyOutcome>,
}

/// Where a move may come from.
const SOURCES: &[&str] = &["book", "tablebase", "search"];

/// An analysis in pickles: best, cp, mate, score, pv, depth, nodes, source, verdict, info,
/// outcome.
type AnalysisState = (
    Option<PyMove>,
    Option<i32>,
    Option<i32>,
    Option<String>,
    Vec<PyMove>,
    u32,
    u64,
    Option<&'static str>,
    Option<PyTbVerdict>,
    Vec<String>,
    Option<PyOutcome>,
);

#[pymethods]
impl PyAnalysis {
    fn __repr__(&self) -> String {
        let best = self.best.map_or("None".to_string(), |m| m.mv.to_string());
        let score = self.score.as_ref().map_or("None".to_string(), |s| format!("'{s}'"));
        let source = self.source.map_or("None".to_string(), |s| format!("'{s}'"));
        match &self.outcome {
            Some(o) if self.source.is_none() => format!("Analysis(best={best}, outcome={})", o.__repr__()),
            _ => format!("Analysis(best={best}, score={score}, depth={}, source={source})", self.depth),
        }
    }

    /// Pickling and copying: the fields (an analysis made in a worker process comes back whole).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, AnalysisState)> {
        let state = (
            self.best,
            self.cp,
            self.mate,
            self.score.clone(),
            self.pv.clone(),
            self.depth,
            self.nodes,
            self.source,
            self.verdict.clone(),
            self.info.clone(),
            self.outcome.clone(),
        );
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The analysis `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn _from_state(
        best: Option<PyMove>,
        cp: Option<i32>,
        mate: Option<i32>,
        score: Option<String>,
        pv: Vec<PyMove>,
        depth: u32,
        nodes: u64,
        source: Option<&str>,
        verdict: Option<PyTbVerdict>,
        info: Vec<String>,
        outcome: Option<PyOutcome>,
    ) -> PyResult<PyAnalysis> {
        let source = maybe_one_of("source", source, SOURCES)?;
        // `score` is the text of `cp` or `mate`, as `analyse` makes it: never a value of its own.
        let made = match (cp, mate) {
            (Some(_), Some(_)) => {
                return Err(errors::value_error("cp and mate are both set (an analysis has one score)"))
            }
            (cp, mate) => cp.map(Score::Cp).or(mate.map(Score::Mate)).map(Score::to_uci),
        };
        if score != made {
            let quoted = |s: &Option<String>| s.as_ref().map_or("None".to_string(), |s| format!("{s:?}"));
            let (score, made) = (quoted(&score), quoted(&made));
            return Err(errors::value_error(format!("score {score} is not {made}, the text cp and mate make")));
        }
        Ok(PyAnalysis { best, cp, mate, score, pv, depth, nodes, source, verdict, info, outcome })
    }
}

/// One line of an analysis as it comes: a search line, or a note from the book or tables.
enum Line {
    Info(String),
    Note(String),
}

/// Where the engine's book and tables send their notes, and its search lines, in order.
type Log = Arc<Mutex<Vec<Line>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How often a call waiting for the engine asks whether it was interrupted.
const WAIT_POLL: Duration = Duration::from_millis(10);

/// The engine's lock, waited for (while another thread's search holds it) until `given_up` says
/// the wait is over: `None` then, so that Ctrl-C ends a wait as it ends a search.
fn lock_unless<'a, T>(m: &'a Mutex<T>, given_up: impl Fn() -> bool) -> Option<MutexGuard<'a, T>> {
    loop {
        match m.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) if given_up() => return None,
            Err(TryLockError::WouldBlock) => std::thread::sleep(WAIT_POLL),
        }
    }
}

/// Each note as a Python `RuntimeWarning` (an error when the warnings filter says so).
fn warn_all(py: Python<'_>, notes: &[String]) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
    for note in notes {
        let text = CString::new(note.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, &category, &text, 1)?;
    }
    Ok(())
}

/// The engine: a transposition table of `hash_mb` MiB searched by `threads` threads, with an
/// optional opening book and endgame tables. Calls are serialised; `stop()` may come from any
/// thread.
#[pyclass(module = "qiku", name = "Engine", frozen)]
pub struct PyEngine {
    engine: Mutex<Engine>,
    shared: Arc<Shared>,
    /// What the book and tables report, and the lines of the running search.
    log: Log,
}

impl PyEngine {
    /// Runs `f` on the engine, locked with the GIL released (a search can be long; the lock is
    /// never taken while holding the GIL, so a second caller waits without blocking Python).
    /// The wait is `analyse`'s: Ctrl-C while another thread's search holds the engine raises
    /// `KeyboardInterrupt` at once, and `f` is not run.
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Engine) -> T + Send) -> PyResult<T> {
        // An idle engine is taken at once, without the waiting thread `interruptible` starts
        // (which would make a call such as the `skill_level` getter a thousand times slower).
        if let Some(mut idle) = lock_unless(&self.engine, || true) {
            let engine: &mut Engine = &mut idle;
            return Ok(py.detach(move || f(engine)));
        }
        let given_up = AtomicBool::new(false);
        let done = interruptible(
            py,
            || given_up.store(true, Ordering::SeqCst),
            || lock_unless(&self.engine, || given_up.load(Ordering::SeqCst)).map(|mut e| f(&mut e)),
        )?;
        // `None` only when the wait was given up, and then the exception was raised above.
        done.ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"))
    }

    /// The sink the book and table adapters write to.
    fn notes(&self) -> Notes {
        let log = Arc::clone(&self.log);
        Arc::new(move |message: &str| lock(&log).push(Line::Note(message.to_string())))
    }
}

/// Takes the notes logged so far (and drops any search line).
fn take_notes(log: &Log) -> Vec<String> {
    std::mem::take(&mut *lock(log))
        .into_iter()
        .filter_map(|l| match l {
            Line::Note(n) => Some(n),
            Line::Info(_) => None,
        })
        .collect()
}

/// `hash_mb`: MiB of hash table, 1 to 65536, as the UCI option Hash and `qiku analyze --hash`.
fn hash_mb_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "hash_mb", 1, Some(adapter::MAX_HASH_MIB as i128))
}

/// `threads`: search threads, 1 to 64, as the UCI option Threads and `qiku analyze --threads`.
fn threads_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "threads", 1, Some(adapter::MAX_THREADS as i128))
}

/// `depth`: plies, 1 to 100, as `qiku analyze --depth`.
fn depth_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
    args::optional(v, |v| args::whole(v, "depth", 1, Some(100)))
}

/// `movetime`: seconds, 0.001 to 3600, as `qiku analyze --movetime` takes 1 to 3600000 ms.
fn movetime_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    args::optional(v, |v| args::real(v, "movetime", 0.001, 3600.0, " seconds"))
}

/// `nodes`: at least 1, as `qiku match --nodes`.
fn nodes_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    args::optional(v, |v| args::whole(v, "nodes", 1, None))
}

/// `min_games` of a book: any count, as `qiku probe --min-games`.
fn min_games_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    args::whole(v, "min_games", 0, None)
}

#[pymethods]
impl PyEngine {
    /// `Engine(hash_mb=16, threads=1)`.
    #[new]
    #[pyo3(signature = (hash_mb = 16, threads = 1))]
    fn py_new(
        py: Python<'_>,
        #[pyo3(from_py_with = hash_mb_arg)] hash_mb: usize,
        #[pyo3(from_py_with = threads_arg)] threads: usize,
    ) -> PyResult<PyEngine> {
        let engine = py.detach(move || {
            let mut e = Engine::new(1);
            e.set_hash(hash_mb).map(|()| {
                e.options.threads = threads;
                e
            })
        });
        let engine = engine.map_err(|e| pyo3::exceptions::PyMemoryError::new_err(e.to_string()))?;
        let shared = engine.shared.clone();
        Ok(PyEngine { engine: Mutex::new(engine), shared, log: Log::default() })
    }

    /// Analyses the board's current position, its history included: to `depth` plies, for
    /// `movetime` seconds, or to `nodes` nodes (depth 12 when none is given, as `qiku analyze`).
    /// A book or tablebase move is returned at once when they have one. Ctrl-C stops the search
    /// and raises `KeyboardInterrupt`; what the book and tables report (a damaged file) comes as
    /// `RuntimeWarning`s and in `info`.
    #[pyo3(signature = (board, depth = None, movetime = None, nodes = None))]
    fn analyse(
        &self,
        py: Python<'_>,
        board: &PyBoard,
        #[pyo3(from_py_with = depth_arg)] depth: Option<u32>,
        #[pyo3(from_py_with = movetime_arg)] movetime: Option<f64>,
        #[pyo3(from_py_with = nodes_arg)] nodes: Option<u64>,
    ) -> PyResult<PyAnalysis> {
        let limits = Limits {
            depth: depth.or(if movetime.is_none() && nodes.is_none() { Some(12) } else { None }),
            movetime: movetime.map(Duration::from_secs_f64),
            nodes,
            ..Limits::default()
        };
        let game = board.game();
        let ended = game.outcome();
        // As `qiku analyze`: a game the rules have ended with legal moves left (a perpetual, a
        // repetition, the 120-ply limit, no attacking material) is not searched on. After a
        // checkmate or stalemate the search runs and says there is no move.
        if let Some(over) = adapter::game_over(&game) {
            return Ok(PyAnalysis {
                best: None,
                cp: None,
                mate: None,
                score: None,
                pv: Vec::new(),
                depth: 0,
                nodes: 0,
                source: None,
                verdict: None,
                info: Vec::new(),
                outcome: Some(PyOutcome::from_outcome(over.outcome)),
            });
        }
        // (search started, interrupted): Ctrl-C stops this call's search, not one of another
        // thread that holds the engine while this one waits for it.
        let state = Mutex::new((false, false));
        let outcome = interruptible(
            py,
            || {
                let mut s = lock(&state);
                s.1 = true;
                if s.0 {
                    self.shared.stop.store(true, Ordering::SeqCst);
                }
            },
            || {
                // Waits for a search of another thread to end, unless Ctrl-C comes first.
                let mut engine = lock_unless(&self.engine, || lock(&state).1)?;
                {
                    let mut s = lock(&state);
                    if s.1 {
                        return None;
                    }
                    engine.shared.stop.store(false, Ordering::SeqCst);
                    s.0 = true;
                }
                lock(&self.log).clear();
                let log = Arc::clone(&self.log);
                let (result, source) = engine.think(&game, &limits, &mut |i| lock(&log).push(Line::Info(i.to_uci())));
                let lines = std::mem::take(&mut *lock(&self.log));
                Some((result, source, engine.last_verdict, lines))
            },
        )?;
        let Some((result, source, verdict, lines)) = outcome else {
            // Interrupted before the search started (the exception was raised above).
            return Err(pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"));
        };
        let mut info = Vec::with_capacity(lines.len() + 1);
        let mut notes = Vec::new();
        for line in lines {
            match line {
                Line::Info(l) => info.push(l),
                Line::Note(n) => {
                    info.push(format!("info string {n}"));
                    notes.push(n);
                }
            }
        }
        if let (Source::Book, Some(m)) = (source, result.best) {
            info.push(adapter::book_info(m));
        }
        if let Some(note) = adapter::decision_note(source, verdict) {
            info.push(format!("info string {note}"));
        }
        warn_all(py, &notes)?;
        // A book move has no score; nor has a table value only the repetition rules decide
        // (its distance is a line rank, not plies to mate: the verdict says so).
        let by_rule = verdict.is_some_and(|v| v.by_rule);
        let score = match source {
            Source::Book => None,
            Source::Tablebase if by_rule => None,
            Source::Tablebase | Source::Search => Some(result.score),
        };
        let (cp, mate) = (score.and_then(Score::cp), score.and_then(Score::mate));
        Ok(PyAnalysis {
            best: result.best.map(PyMove::new),
            cp,
            mate,
            score: score.map(|s| s.to_uci()),
            pv: result.pv.into_iter().map(PyMove::new).collect(),
            depth: result.depth,
            nodes: result.nodes,
            source: Some(match source {
                Source::Book => "book",
                Source::Tablebase => "tablebase",
                Source::Search => "search",
            }),
            verdict: verdict.as_ref().map(PyTbVerdict::new),
            info,
            outcome: ended.map(PyOutcome::from_outcome),
        })
    }

    /// Ends a running `analyse` (from another thread); it returns its best move so far.
    fn stop(&self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }

    /// The engine's strength, 0 (weakest) to 20 (full strength, the default): the UCI option
    /// `Skill Level`. Below 20 a search looks at least four moves no deeper than `1 + level`
    /// plies and plays one of them by a draw seeded from the position, so the same position
    /// searched the same way from the same hash table (after `new_game()`, say) gives the same
    /// move (docs/ENGINE.md, "Skill Level").
    #[getter]
    fn skill_level(&self, py: Python<'_>) -> PyResult<u32> {
        self.with(py, |e| e.options.skill_level)
    }

    /// Sets the strength (0 to 20, as the UCI option Skill Level; `ValueError` outside).
    #[setter]
    fn set_skill_level(&self, py: Python<'_>, level: &Bound<'_, PyAny>) -> PyResult<()> {
        let level: u32 = args::whole(level, "skill_level", 0, Some(i128::from(adapter::MAX_SKILL_LEVEL)))?;
        self.with(py, move |e| e.options.skill_level = level)
    }

    /// Forgets what earlier searches learned (clears the table).
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |e| e.new_game())
    }

    /// Attaches an opening book (a `Book`, shared as it is, or a path to a `.qbk`; `None`
    /// detaches it). `policy` chooses among its moves (`"best"`, `"games"`, `"score"`); moves
    /// played in fewer than `min_games` games are ignored.
    #[pyo3(signature = (book, policy = "best", min_games = 1))]
    fn set_book(
        &self,
        py: Python<'_>,
        book: Option<&Bound<'_, PyAny>>,
        policy: &str,
        #[pyo3(from_py_with = min_games_arg)] min_games: u32,
    ) -> PyResult<()> {
        let policy = policy_arg(policy)?;
        let opened = match book {
            None => None,
            Some(b) => Some(match b.cast::<PyBook>() {
                // The opened book itself: no file is opened again.
                Ok(b) => QbkBook::shared(b.get().shared()?, policy, min_games),
                Err(_) => {
                    // Opened as `qiku.Book(path)` opens it: the same checks, the same error.
                    let path = args::path_or(b, "book", "a qiku.Book, a path (str or os.PathLike) or None")?;
                    let book = py.detach(|| adapter::Book::open(&path)).map_err(|e| errors::book_error(&e))?;
                    QbkBook::shared(Arc::new(book), policy, min_games)
                }
            }),
        };
        let opened = opened.map(|b| Arc::new(b.with_notes(self.notes())) as Arc<dyn adapter::OpeningBook>);
        self.with(py, move |e| e.book = opened)
    }

    /// Attaches endgame tables (a `Tablebases`, shared as it is, or a directory; `None` detaches
    /// them), probed at the root and inside the search under `rules` (`"asian"` or `"plain"`).
    /// Files of the directory that cannot be used are named in `RuntimeWarning`s.
    #[pyo3(signature = (tables, rules = "asian"))]
    fn set_tablebases(&self, py: Python<'_>, tables: Option<&Bound<'_, PyAny>>, rules: &str) -> PyResult<()> {
        let rules: adapter::Rules = rules.parse().map_err(errors::value_error)?;
        let opened: Option<Arc<Tablebases>> = match tables {
            None => None,
            Some(t) => Some(match t.cast::<PyTablebases>() {
                // The opened tables themselves: no file is opened again.
                Ok(t) => t.get().shared()?,
                Err(_) => {
                    let dir =
                        args::path_or(t, "tables", "a qiku.Tablebases, a directory (str or os.PathLike) or None")?;
                    Arc::new(crate::tables::open_tables(py, &dir)?)
                }
            }),
        };
        let notes = self.notes();
        let log = Arc::clone(&self.log);
        // Under the engine's lock, so that the files named now are not taken for the notes of a
        // search running in another thread.
        let reported = self.with(py, move |e| {
            e.options.tablebases = opened.map(|t| {
                let tb = QtbTables::with_notes(t, notes);
                adapter::Endgames::set_rules(&tb, rules);
                Arc::new(tb) as Arc<dyn adapter::Endgames>
            });
            take_notes(&log)
        })?;
        // The files that cannot be used, named when the tables were attached.
        warn_all(py, &reported)
    }

    fn __repr__(&self) -> String {
        let mib = self.shared.tt.mib();
        format!("Engine(hash_mb={mib})")
    }

    /// Refuses pickling and copying: an engine holds its hash table, its search threads and the
    /// open files of its book and tables.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pickling::refuse(
            "qiku.Engine",
            "it holds its hash table, search threads and the open files of its book and tables",
            "create a qiku.Engine in each worker process and attach the book and tables there by \
             path (set_book(path), set_tablebases(directory)); within one process, share the Engine \
             itself (its calls are serialised)",
        ))
    }
}
