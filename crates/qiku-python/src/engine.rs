//! `qiku.Engine`: the library's engine (book, then tablebases, then alpha-beta search) analysing
//! a board with its history, so that repetitions are judged as in a game. The search runs with
//! the GIL released; `stop()` from another thread ends it early.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use crate::adapter::{self, Engine, Limits, QbkBook, QtbTables, Score, Shared, Source, Tablebases};
use crate::board::{PyBoard, PyMove};
use crate::book::{policy_arg, PyBook};
use crate::errors;
use crate::tables::PyTablebases;

/// The result of `Engine.analyse`.
#[pyclass(module = "qiku", name = "Analysis", frozen, get_all)]
pub struct PyAnalysis {
    /// The move to play, or `None` when the side to move has no legal move.
    best: Option<PyMove>,
    /// The score in centipawns for the side to move, or `None` when it is a mate score.
    cp: Option<i32>,
    /// Mate in this many moves (negative: the side to move is mated), or `None`.
    mate: Option<i32>,
    /// The score as UCI writes it: `"cp 25"` or `"mate -3"`.
    score: String,
    /// The principal variation, starting with `best`.
    pv: Vec<PyMove>,
    /// Depth reached in plies (0 for a book move).
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// Where the move came from: `"book"`, `"tablebase"` or `"search"`.
    source: &'static str,
    /// The search's progress lines in UCI `info` form, one per iteration.
    info: Vec<String>,
}

#[pymethods]
impl PyAnalysis {
    fn __repr__(&self) -> String {
        let best = self.best.map_or("None".to_string(), |m| m.mv.to_string());
        format!("Analysis(best={best}, score='{}', depth={}, source='{}')", self.score, self.depth, self.source)
    }
}

/// The engine: a transposition table of `hash_mb` MiB searched by `threads` threads, with an
/// optional opening book and endgame tables. Calls are serialised; `stop()` may come from any
/// thread.
#[pyclass(module = "qiku", name = "Engine", frozen)]
pub struct PyEngine {
    engine: Mutex<Engine>,
    shared: Arc<Shared>,
}

impl PyEngine {
    /// Runs `f` on the engine, locked with the GIL released (a search can be long; the lock is
    /// never taken while holding the GIL, so a second caller waits without blocking Python).
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Engine) -> T + Send) -> T {
        py.detach(|| f(&mut self.engine.lock().unwrap_or_else(|e| e.into_inner())))
    }
}

#[pymethods]
impl PyEngine {
    /// `Engine(hash_mb=16, threads=1)`.
    #[new]
    #[pyo3(signature = (hash_mb = 16, threads = 1))]
    fn py_new(py: Python<'_>, hash_mb: usize, threads: usize) -> PyResult<PyEngine> {
        if !(1..=65536).contains(&hash_mb) {
            return Err(errors::value_error(format!("hash_mb {hash_mb} is out of range (1 to 65536 MiB)")));
        }
        let max = adapter::MAX_THREADS;
        if !(1..=max).contains(&threads) {
            return Err(errors::value_error(format!(
                "threads {threads} is out of range (1 to {max}, as the UCI option)"
            )));
        }
        let engine = py.detach(move || {
            let mut e = Engine::new(1);
            e.set_hash(hash_mb).map(|()| {
                e.options.threads = threads;
                e
            })
        });
        let engine = engine.map_err(|e| pyo3::exceptions::PyMemoryError::new_err(e.to_string()))?;
        let shared = engine.shared.clone();
        Ok(PyEngine { engine: Mutex::new(engine), shared })
    }

    /// Analyses the board's current position, its history included: to `depth` plies, for
    /// `movetime` seconds, or to `nodes` nodes (depth 12 when none is given, as `qiku analyze`).
    /// A book or tablebase move is returned at once when they have one.
    #[pyo3(signature = (board, depth = None, movetime = None, nodes = None))]
    fn analyse(
        &self,
        py: Python<'_>,
        board: &PyBoard,
        depth: Option<u32>,
        movetime: Option<f64>,
        nodes: Option<u64>,
    ) -> PyResult<PyAnalysis> {
        let mut limits = Limits::default();
        if let Some(d) = depth {
            if !(1..=100).contains(&d) {
                return Err(errors::value_error(format!("depth {d} is out of range (1 to 100)")));
            }
            limits.depth = Some(d);
        }
        if let Some(t) = movetime {
            if !(t > 0.0 && t < 1e7) {
                return Err(errors::value_error(format!("movetime {t} is not a positive number of seconds")));
            }
            limits.movetime = Some(Duration::from_secs_f64(t));
        }
        limits.nodes = nodes;
        if depth.is_none() && movetime.is_none() && nodes.is_none() {
            limits.depth = Some(12);
        }
        let game = board.game();
        let (result, source, info) = self.with(py, move |engine| {
            engine.shared.stop.store(false, Ordering::SeqCst);
            let mut info = Vec::new();
            let (result, source) = engine.think(&game, &limits, &mut |i| info.push(i.to_uci()));
            (result, source, info)
        });
        let (cp, mate) = match result.score {
            Score::Cp(v) => (Some(v), None),
            Score::Mate(n) => (None, Some(n)),
        };
        Ok(PyAnalysis {
            best: result.best.map(PyMove::new),
            cp,
            mate,
            score: result.score.to_uci(),
            pv: result.pv.into_iter().map(PyMove::new).collect(),
            depth: result.depth,
            nodes: result.nodes,
            source: match source {
                Source::Book => "book",
                Source::Tablebase => "tablebase",
                Source::Search => "search",
            },
            info,
        })
    }

    /// Ends a running `analyse` (from another thread); it returns its best move so far.
    fn stop(&self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }

    /// Forgets what earlier searches learned (clears the table).
    fn new_game(&self, py: Python<'_>) {
        self.with(py, |e| e.new_game());
    }

    /// Attaches an opening book (a `Book` or a path to a `.qbk`; `None` detaches it). `policy`
    /// chooses among its moves (`"best"`, `"games"`, `"score"`); moves played in fewer than
    /// `min_games` games are ignored.
    #[pyo3(signature = (book, policy = "best", min_games = 1))]
    fn set_book(&self, py: Python<'_>, book: Option<&Bound<'_, PyAny>>, policy: &str, min_games: u32) -> PyResult<()> {
        let policy = policy_arg(policy)?;
        let path: Option<PathBuf> = match book {
            None => None,
            Some(b) => match b.cast::<PyBook>() {
                Ok(b) => Some(b.get().path().to_path_buf()),
                Err(_) => Some(b.extract()?),
            },
        };
        let opened = match path {
            None => None,
            Some(p) => Some(
                py.detach(|| QbkBook::open(&p, policy, min_games))
                    .map_err(|e| errors::BookFileError::new_err(e.to_string()))?,
            ),
        };
        self.with(py, move |e| e.book = opened.map(|b| Arc::new(b) as Arc<dyn adapter::OpeningBook>));
        Ok(())
    }

    /// Attaches endgame tables (a `Tablebases` or a directory; `None` detaches them), probed at
    /// the root and inside the search under `rules` (`"asian"` or `"plain"`).
    #[pyo3(signature = (tables, rules = "asian"))]
    fn set_tablebases(&self, py: Python<'_>, tables: Option<&Bound<'_, PyAny>>, rules: &str) -> PyResult<()> {
        let rules: adapter::Rules = rules.parse().map_err(errors::value_error)?;
        let dir: Option<PathBuf> = match tables {
            None => None,
            Some(t) => match t.cast::<PyTablebases>() {
                Ok(t) => Some(t.get().dir().to_path_buf()),
                Err(_) => Some(t.extract()?),
            },
        };
        let opened = match dir {
            None => None,
            Some(d) => Some(py.detach(|| Tablebases::open(&d)).map_err(|e| errors::tb_error(&e))?),
        };
        self.with(py, move |e| {
            e.options.tablebases = opened.map(|t| {
                let tb = QtbTables::new(t);
                adapter::Endgames::set_rules(&tb, rules);
                Arc::new(tb) as Arc<dyn adapter::Endgames>
            });
        });
        Ok(())
    }

    fn __repr__(&self) -> String {
        let mib = self.shared.tt.mib();
        format!("Engine(hash_mb={mib})")
    }
}
