//! Game files from Python: `read_games` streams games (headers, moves, result, errors) from PGN
//! in any notation and encoding, `.zst` or not, and XQF; `positions` streams training samples
//! (position, move played, result); `batches` and `training_set` turn them into NumPy arrays at
//! Rust speed, with the GIL released while files are read.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::adapter::{self, Game, GameRecord, GameResult, GameStream, Move, Position};
use crate::args;
use crate::board::{PyBoard, PyMove};
use crate::closing::Closable;
use crate::errors;
use crate::interrupt::interruptible;
use crate::pickling;
use crate::planes::{self, PLANE_BYTES};

fn open_stream(inputs: &Bound<'_, PyAny>, encoding: &str) -> PyResult<GameStream> {
    // One path or a list of them (directories stand for the game files in them).
    let paths = args::paths(inputs, "inputs")?;
    let encoding = adapter::encoding_choice(encoding).map_err(errors::value_error)?;
    GameStream::new(&paths, encoding).map_err(errors::file_error)
}

/// `ply` of `Game.board`: not negative (past the last move is an `IndexError`).
fn ply_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    args::optional(v, |v| args::whole(v, "ply", 0, None))
}

/// `min_ply` of the samples: any ply.
fn min_ply_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "min_ply", 0, None)
}

/// `max_ply` of the samples: any ply (0: no sample).
fn max_ply_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    args::optional(v, |v| args::whole(v, "max_ply", 0, None))
}

/// `batch_size` of `batches`: at least 1.
fn batch_size_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "batch_size", 1, None)
}

/// `limit` of `training_set`: any number of samples.
fn limit_arg(v: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    args::optional(v, |v| args::whole(v, "limit", 0, None))
}

fn result_str(r: Option<GameResult>) -> &'static str {
    r.map_or("*", |r| r.as_str())
}

/// One game read from a file: its tags, the moves replayed (all legal, up to the first that
/// could not be read or played), the result, and the errors met (each naming file, line and
/// column).
///
/// Games compare equal (`==`) field for field (file, number, tags, start, moves, result,
/// errors), and hash.
#[pyclass(module = "qiku.pgn", name = "Game", frozen, eq, hash)]
pub struct PyGame {
    record: GameRecord,
}

impl PyGame {
    /// What `==` compares and `hash` hashes: every field, the start position by its FEN.
    #[allow(clippy::type_complexity)]
    fn key(&self) -> (&PathBuf, u64, &[(String, String)], Option<String>, &[Move], &'static str, &[String]) {
        let r = &self.record;
        (&r.path, r.number, &r.headers, self.start_fen(), &r.moves, result_str(r.result), &r.errors)
    }
}

impl PartialEq for PyGame {
    fn eq(&self, other: &PyGame) -> bool {
        self.key() == other.key()
    }
}

impl std::hash::Hash for PyGame {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h);
    }
}

/// A game in pickles: path, number, headers (in file order), start FEN (`None`: unreadable),
/// moves (ICCS), result, errors.
type GameState = (PathBuf, u64, Vec<(String, String)>, Option<String>, Vec<String>, &'static str, Vec<String>);

#[pymethods]
impl PyGame {
    /// Pickling and copying: the record (the moves in ICCS, replayed again when unpickled).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, GameState)> {
        let r = &self.record;
        let state = (
            r.path.clone(),
            r.number,
            r.headers.clone(),
            self.start_fen(),
            r.moves.iter().map(|m| m.to_string()).collect(),
            result_str(r.result),
            r.errors.clone(),
        );
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The game `__reduce__` describes (the inverse of pickling); the moves must be legal from
    /// the start position.
    #[staticmethod]
    fn _from_state(
        path: PathBuf,
        number: u64,
        headers: Vec<(String, String)>,
        start_fen: Option<&str>,
        moves: Vec<String>,
        result: &str,
        game_errors: Vec<String>,
    ) -> PyResult<PyGame> {
        let start = start_fen.map(adapter::parse_position).transpose().map_err(errors::fen_error)?;
        if start.is_none() && !moves.is_empty() {
            return Err(errors::value_error("a game without a start position has no moves"));
        }
        let mut pos = start.clone().unwrap_or_default();
        let mut played = Vec::with_capacity(moves.len());
        for text in &moves {
            let m = adapter::iccs::parse(&pos, text).map_err(|e| errors::move_error(&e))?;
            pos = pos.play_unchecked(m);
            played.push(m);
        }
        let result = adapter::parse_result(result).map_err(errors::value_error)?;
        let record = GameRecord { path, number, headers, start, moves: played, result, errors: game_errors };
        Ok(PyGame { record })
    }

    /// The file the game came from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.record.path.clone()
    }

    /// 1-based number of the game in its file.
    #[getter]
    fn number(&self) -> u64 {
        self.record.number
    }

    /// The tag pairs (`{"Event": ..., "Red": ...}`); a later tag of the same name wins.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.record.headers {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The moves replayed, in order.
    #[getter]
    fn moves(&self) -> Vec<PyMove> {
        self.record.moves.iter().map(|&m| PyMove::new(m)).collect()
    }

    /// The FEN of the start position (the `[FEN]` tag's, or the standard one); `None` when the
    /// `[FEN]` tag cannot be read (`errors` says why, and no move is replayed).
    #[getter]
    fn start_fen(&self) -> Option<String> {
        self.record.start.as_ref().map(Position::fen)
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"` (unknown): the `Result` tag when it states one,
    /// else the result written after the moves.
    #[getter]
    fn result(&self) -> &'static str {
        result_str(self.record.result)
    }

    /// What went wrong in this game; empty for a clean game.
    #[getter]
    fn errors(&self) -> Vec<String> {
        self.record.errors.clone()
    }

    /// The board after `ply` moves (all of them by default), with the history, so that its
    /// `outcome()` judges repetitions; `IndexError` past the last move. A game whose `[FEN]` tag
    /// cannot be read has no board: `InvalidFenError`, with the message of its error.
    #[pyo3(signature = (ply = None))]
    fn board(&self, #[pyo3(from_py_with = ply_arg)] ply: Option<usize>) -> PyResult<PyBoard> {
        let len = self.record.moves.len();
        let n = ply.unwrap_or(len);
        if n > len {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "ply {n} is past the end of the game ({len} moves replayed)"
            )));
        }
        let Some(start) = self.record.start.clone() else {
            let why = self.record.errors.iter().find(|e| e.contains("bad FEN tag"));
            return Err(errors::fen_error(
                why.cloned().unwrap_or_else(|| "the game's [FEN] tag cannot be read".into()),
            ));
        };
        let mut game = Game::new(start);
        for &m in &self.record.moves[..n] {
            game.play_unchecked(m);
        }
        Ok(PyBoard::from_game(game))
    }

    /// Number of moves replayed.
    fn __len__(&self) -> usize {
        self.record.moves.len()
    }

    fn __repr__(&self) -> String {
        let tag = |n: &str| {
            self.record.headers.iter().rfind(|(k, _)| k.eq_ignore_ascii_case(n)).map_or("?", |(_, v)| v.as_str())
        };
        format!(
            "Game(number={}, red={:?}, black={:?}, moves={}, result='{}')",
            self.record.number,
            tag("Red"),
            tag("Black"),
            self.record.moves.len(),
            self.result()
        )
    }
}

/// Streams the games of files. Iterating reads the next game with the GIL released.
#[pyclass(module = "qiku.pgn", name = "GameReader", frozen)]
pub struct PyGameReader {
    stream: Closable<GameStream>,
}

#[pymethods]
impl PyGameReader {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Refuses pickling and copying: the reader is part way through open files.
    fn __reduce__(&self) -> PyResult<()> {
        Err(reader_refusal("qiku.pgn.GameReader", "qiku.pgn.read_games(paths)"))
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyGame>> {
        let next = py.detach(|| self.stream.with(GAME_READER, |s| s.next_game()))?;
        Ok(next.map_err(errors::file_error)?.map(|record| PyGame { record }))
    }

    /// Closes the files being read; iterating afterwards raises `ValueError`. Closing again does
    /// nothing.
    fn close(&self, py: Python<'_>) {
        // A read in another thread holds the stream with the GIL released: wait for it likewise.
        py.detach(|| self.stream.close());
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.stream.is_closed()
    }

    /// `with qiku.pgn.read_games(paths) as reader:` closes the files at the end of the block.
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Closes the reader; an exception of the block goes on.
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _trace: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close(py);
        false
    }
}

/// `read_games(inputs, encoding="auto")`: the games of one or more files or directories.
#[pyfunction]
#[pyo3(signature = (inputs, encoding = "auto"))]
pub fn read_games(inputs: &Bound<'_, PyAny>, encoding: &str) -> PyResult<PyGameReader> {
    Ok(PyGameReader { stream: Closable::new(open_stream(inputs, encoding)?) })
}

/// The class names closed readers' errors give.
const GAME_READER: &str = "qiku.pgn.GameReader";
const SAMPLE_READER: &str = "qiku.pgn.SampleReader";
const BATCH_READER: &str = "qiku.pgn.BatchReader";

/// Which games and plies make samples.
#[derive(Clone, Copy)]
struct SampleOptions {
    /// Skip games without a known result.
    skip_unknown: bool,
    /// Skip games with an error (else the moves before it are used).
    skip_errors: bool,
    /// First ply (0-based) that makes a sample.
    min_ply: usize,
    /// Plies from this one on make no sample.
    max_ply: usize,
}

/// A position to learn from: the board before the move, the move played, the game's result.
struct Sample {
    pos: Position,
    mv: Move,
    /// +1: the side to move won the game; 0: draw or unknown; -1: it lost.
    value: i8,
    ply: usize,
    game: u64,
}

/// Samples from a game stream, one at a time.
struct SampleStream {
    games: GameStream,
    opts: SampleOptions,
    current: Option<(GameRecord, Position, usize)>,
    games_used: u64,
}

impl SampleStream {
    fn next_sample(&mut self) -> Result<Option<Sample>, adapter::FileError> {
        loop {
            if let Some((record, pos, ply)) = &mut self.current {
                if *ply < record.moves.len() && *ply < self.opts.max_ply {
                    let mv = record.moves[*ply];
                    let before = pos.clone();
                    pos.make_move(mv);
                    *ply += 1;
                    if *ply - 1 < self.opts.min_ply {
                        continue;
                    }
                    let value = match record.result {
                        Some(GameResult::Draw) | None => 0,
                        Some(GameResult::RedWins) => before.turn().fold(1, -1),
                        Some(GameResult::BlackWins) => before.turn().fold(-1, 1),
                    };
                    return Ok(Some(Sample { pos: before, mv, value, ply: *ply - 1, game: record.number }));
                }
                self.current = None;
            }
            let Some(record) = self.games.next_game()? else { return Ok(None) };
            if (self.opts.skip_unknown && record.result.is_none())
                || (self.opts.skip_errors && !record.errors.is_empty())
                || record.moves.is_empty()
            {
                continue;
            }
            // A game without a start position (an unreadable [FEN] tag) has no moves either.
            let Some(start) = record.start.clone() else { continue };
            self.games_used += 1;
            self.current = Some((record, start, 0));
        }
    }
}

fn sample_stream(
    inputs: &Bound<'_, PyAny>,
    encoding: &str,
    skip_unknown: bool,
    skip_errors: bool,
    min_ply: usize,
    max_ply: Option<usize>,
) -> PyResult<SampleStream> {
    Ok(SampleStream {
        games: open_stream(inputs, encoding)?,
        opts: SampleOptions { skip_unknown, skip_errors, min_ply, max_ply: max_ply.unwrap_or(usize::MAX) },
        current: None,
        games_used: 0,
    })
}

/// A training sample. Samples compare equal (`==`) field for field, their boards as boards do
/// (by FEN); they do not hash, their board being mutable.
#[pyclass(module = "qiku.pgn", name = "Sample", frozen, get_all, eq)]
pub struct PySample {
    /// The position before the move (no history).
    board: Py<PyBoard>,
    /// The move played.
    #[pyo3(name = "move")]
    mv: PyMove,
    /// The game's result for the side to move: 1 won, 0 drawn (or unknown), -1 lost.
    value: i8,
    /// 0-based ply of the move in its game.
    ply: usize,
    /// 1-based number of the game in its file.
    game: u64,
}

impl PartialEq for PySample {
    fn eq(&self, other: &PySample) -> bool {
        (self.mv, self.value, self.ply, self.game) == (other.mv, other.value, other.ply, other.game)
            && self.board.get().position().fen() == other.board.get().position().fen()
    }
}

/// A sample in pickles: board, move, value, ply, game.
type SampleState = (Py<PyBoard>, PyMove, i8, usize, u64);

#[pymethods]
impl PySample {
    fn __repr__(&self) -> String {
        format!("Sample(fen='{}', move={}, value={})", self.board.get().position().fen(), self.mv.mv, self.value)
    }

    /// Pickling and copying: the fields (the board pickles itself).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, SampleState)> {
        let state = (self.board.clone_ref(py), self.mv, self.value, self.ply, self.game);
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The sample `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    #[pyo3(signature = (board, r#move, value, ply, game))]
    fn _from_state(board: Py<PyBoard>, r#move: PyMove, value: i8, ply: usize, game: u64) -> PyResult<PySample> {
        if !(-1..=1).contains(&value) {
            return Err(errors::value_error(format!("value {value} is not 1, 0 or -1")));
        }
        Ok(PySample { board, mv: r#move, value, ply, game })
    }
}

/// The refusal of a reader to be pickled or copied, naming the call that makes one in a worker.
fn reader_refusal(class: &str, call: &str) -> PyErr {
    pickling::refuse(
        class,
        "it is part way through reading open files",
        &format!("send the paths to the other process and call {call} there"),
    )
}

/// Streams training samples. Iterating reads with the GIL released.
#[pyclass(module = "qiku.pgn", name = "SampleReader", frozen)]
pub struct PySampleReader {
    stream: Closable<SampleStream>,
}

#[pymethods]
impl PySampleReader {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Refuses pickling and copying: the reader is part way through open files.
    fn __reduce__(&self) -> PyResult<()> {
        Err(reader_refusal("qiku.pgn.SampleReader", "qiku.pgn.positions(paths)"))
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PySample>> {
        let next = py.detach(|| self.stream.with(SAMPLE_READER, |s| s.next_sample()))?;
        let Some(s) = next.map_err(errors::file_error)? else { return Ok(None) };
        Ok(Some(PySample {
            board: Py::new(py, PyBoard::from_game(Game::new(s.pos)))?,
            mv: PyMove::new(s.mv),
            value: s.value,
            ply: s.ply,
            game: s.game,
        }))
    }
    /// Closes the files being read; iterating afterwards raises `ValueError`. Closing again does
    /// nothing.
    fn close(&self, py: Python<'_>) {
        // A read in another thread holds the stream with the GIL released: wait for it likewise.
        py.detach(|| self.stream.close());
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.stream.is_closed()
    }

    /// `with qiku.pgn.positions(paths) as reader:` closes the files at the end of the block.
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Closes the reader; an exception of the block goes on.
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _trace: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close(py);
        false
    }
}

/// `positions(inputs, ...)`: one sample per move of every usable game.
#[pyfunction]
#[pyo3(signature = (inputs, *, encoding = "auto", skip_unknown = true, skip_errors = true, min_ply = 0, max_ply = None))]
pub fn positions(
    inputs: &Bound<'_, PyAny>,
    encoding: &str,
    skip_unknown: bool,
    skip_errors: bool,
    #[pyo3(from_py_with = min_ply_arg)] min_ply: usize,
    #[pyo3(from_py_with = max_ply_arg)] max_ply: Option<usize>,
) -> PyResult<PySampleReader> {
    let stream = sample_stream(inputs, encoding, skip_unknown, skip_errors, min_ply, max_ply)?;
    Ok(PySampleReader { stream: Closable::new(stream) })
}

/// Arrays of up to `limit` samples, filled without the GIL.
struct Arrays {
    planes: Vec<u8>,
    moves: Vec<i16>,
    values: Vec<i8>,
    plies: Vec<u16>,
}

/// Samples the arrays first make room for; they then grow with what is read (doubling, never
/// past `limit`), so that a large `limit` or `batch_size` reserves nothing it does not fill.
const FIRST_SAMPLES: usize = 1024;

/// Why arrays could not be filled: a game file, or memory for the samples.
enum FillError {
    File(adapter::FileError),
    /// The samples held when more room was refused, and the room asked for.
    Memory {
        samples: usize,
        more: usize,
    },
}

impl From<adapter::FileError> for FillError {
    fn from(e: adapter::FileError) -> FillError {
        FillError::File(e)
    }
}

/// A `GameFileError`, or a `MemoryError` saying how many samples did not fit.
fn fill_error(e: FillError) -> PyErr {
    match e {
        FillError::File(e) => errors::file_error(e),
        FillError::Memory { samples, more } => pyo3::exceptions::PyMemoryError::new_err(format!(
            "cannot allocate memory for {} training samples ({:.0} MB of planes) beyond the {samples} read; \
             ask for fewer (limit, batch_size) or read the files in batches",
            more,
            (more * PLANE_BYTES) as f64 / 1e6,
        )),
    }
}

impl Arrays {
    /// Room for `more` samples more in every array, or the error saying so (no abort).
    fn reserve(&mut self, more: usize) -> Result<(), FillError> {
        let samples = self.moves.len();
        let refused = || FillError::Memory { samples, more };
        let bytes = more.checked_mul(PLANE_BYTES).ok_or_else(refused)?;
        let room = self.planes.try_reserve_exact(bytes).is_ok()
            && self.moves.try_reserve_exact(more).is_ok()
            && self.values.try_reserve_exact(more).is_ok()
            && self.plies.try_reserve_exact(more).is_ok();
        if room {
            Ok(())
        } else {
            Err(refused())
        }
    }
}

/// Fills arrays with up to `limit` samples; stops early (with what it has) once `stop` is set.
fn fill_arrays(stream: &mut SampleStream, limit: usize, stop: &AtomicBool) -> Result<Arrays, FillError> {
    let mut a = Arrays { planes: Vec::new(), moves: Vec::new(), values: Vec::new(), plies: Vec::new() };
    while a.moves.len() < limit && !stop.load(Ordering::Relaxed) {
        let Some(s) = stream.next_sample()? else { break };
        let n = a.moves.len();
        if n == a.moves.capacity() || a.planes.len() + PLANE_BYTES > a.planes.capacity() {
            a.reserve(n.max(FIRST_SAMPLES).min(limit - n))?;
        }
        let at = a.planes.len();
        a.planes.resize(at + PLANE_BYTES, 0);
        planes::fill(&s.pos, &mut a.planes[at..]);
        a.moves.push((s.mv.from().index() * 90 + s.mv.to().index()) as i16);
        a.values.push(s.value);
        a.plies.push(s.ply.min(u16::MAX as usize) as u16);
    }
    Ok(a)
}

fn arrays_dict(py: Python<'_>, a: Arrays) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("planes", planes::batch_array(py, a.planes))?;
    d.set_item("moves", PyArray1::from_vec(py, a.moves))?;
    d.set_item("values", PyArray1::from_vec(py, a.values))?;
    d.set_item("plies", PyArray1::from_vec(py, a.plies))?;
    Ok(d)
}

/// Streams samples as NumPy arrays of `batch_size` samples (the last may be shorter).
#[pyclass(module = "qiku.pgn", name = "BatchReader", frozen)]
pub struct PyBatchReader {
    stream: Closable<SampleStream>,
    batch_size: usize,
}

#[pymethods]
impl PyBatchReader {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Refuses pickling and copying: the reader is part way through open files.
    fn __reduce__(&self) -> PyResult<()> {
        Err(reader_refusal("qiku.pgn.BatchReader", "qiku.pgn.batches(paths)"))
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let never = AtomicBool::new(false);
        let a = py.detach(|| self.stream.with(BATCH_READER, |s| fill_arrays(s, self.batch_size, &never)))?;
        let a = a.map_err(fill_error)?;
        if a.moves.is_empty() {
            return Ok(None);
        }
        arrays_dict(py, a).map(Some)
    }
    /// Closes the files being read; iterating afterwards raises `ValueError`. Closing again does
    /// nothing.
    fn close(&self, py: Python<'_>) {
        // A read in another thread holds the stream with the GIL released: wait for it likewise.
        py.detach(|| self.stream.close());
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.stream.is_closed()
    }

    /// `with qiku.pgn.batches(paths) as reader:` closes the files at the end of the block.
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Closes the reader; an exception of the block goes on.
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _trace: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close(py);
        false
    }
}

/// `batches(inputs, batch_size=4096, ...)`: dicts of arrays, `batch_size` samples each.
#[pyfunction]
#[pyo3(signature = (inputs, batch_size = 4096, *, encoding = "auto", skip_unknown = true, skip_errors = true, min_ply = 0, max_ply = None))]
pub fn batches(
    inputs: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = batch_size_arg)] batch_size: usize,
    encoding: &str,
    skip_unknown: bool,
    skip_errors: bool,
    #[pyo3(from_py_with = min_ply_arg)] min_ply: usize,
    #[pyo3(from_py_with = max_ply_arg)] max_ply: Option<usize>,
) -> PyResult<PyBatchReader> {
    let stream = sample_stream(inputs, encoding, skip_unknown, skip_errors, min_ply, max_ply)?;
    Ok(PyBatchReader { stream: Closable::new(stream), batch_size })
}

/// `training_set(inputs, limit=None, ...)`: every sample (or the first `limit`) as one dict of
/// arrays, plus the number of games used.
#[pyfunction]
#[pyo3(signature = (inputs, limit = None, *, encoding = "auto", skip_unknown = true, skip_errors = true, min_ply = 0, max_ply = None))]
#[allow(clippy::too_many_arguments)]
pub fn training_set<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = limit_arg)] limit: Option<usize>,
    encoding: &str,
    skip_unknown: bool,
    skip_errors: bool,
    #[pyo3(from_py_with = min_ply_arg)] min_ply: usize,
    #[pyo3(from_py_with = max_ply_arg)] max_ply: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut stream = sample_stream(inputs, encoding, skip_unknown, skip_errors, min_ply, max_ply)?;
    let limit = limit.unwrap_or(usize::MAX);
    let stop = AtomicBool::new(false);
    let filled = interruptible(
        py,
        || stop.store(true, Ordering::SeqCst),
        || fill_arrays(&mut stream, limit, &stop).map(|a| (a, stream.games_used)),
    )?;
    let (a, games) = filled.map_err(fill_error)?;
    let d = arrays_dict(py, a)?;
    d.set_item("games", games)?;
    Ok(d)
}

/// Counts games and moves of files at full speed (no Python object per game): the reading
/// benchmark's Rust figure. Returns `{"games": n, "moves": n, "errors": n}`.
#[pyfunction]
#[pyo3(signature = (inputs, encoding = "auto"))]
pub fn count_games(py: Python<'_>, inputs: &Bound<'_, PyAny>, encoding: &str) -> PyResult<HashMap<&'static str, u64>> {
    let mut stream = open_stream(inputs, encoding)?;
    let stop = AtomicBool::new(false);
    let counted = interruptible(
        py,
        || stop.store(true, Ordering::SeqCst),
        || {
            let (mut games, mut moves, mut bad) = (0u64, 0u64, 0u64);
            while let Some(g) = stream.next_game()? {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                games += 1;
                moves += g.moves.len() as u64;
                bad += u64::from(!g.errors.is_empty());
            }
            Ok::<_, adapter::FileError>((games, moves, bad))
        },
    )?;
    let (games, moves, bad) = counted.map_err(errors::file_error)?;
    Ok(HashMap::from([("games", games), ("moves", moves), ("errors", bad)]))
}
