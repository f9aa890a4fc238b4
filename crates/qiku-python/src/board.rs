//! `qiku.Board`, `qiku.Move` and `qiku.Outcome`: a game in progress with python-chess's shape
//! (`push`, `pop`, `legal_moves`, `outcome`), judged by the library's `Game` (perpetual check and
//! chase, threefold repetition, 120 plies without capture).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString};

use crate::adapter::{self, Color, Game, Move, Outcome, Position, SpecError, Square};
use crate::args;
use crate::errors;
use crate::pickling::{self, maybe_one_of, one_of};

/// Perft of `pos` to `depth`, `None` once `stop` is set: subtrees of up to 4 plies (a few
/// milliseconds each) are counted by the library, the levels above by this function, which asks
/// `stop` before each move.
fn perft_until(pos: &Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if depth <= 4 {
        return Some(adapter::perft(&mut pos.clone(), depth));
    }
    let mut nodes = 0;
    for &m in pos.moves().iter() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        nodes += perft_until(&pos.play_unchecked(m), depth - 1, stop)?;
    }
    Some(nodes)
}

/// `red` or `black`.
pub fn color_name(c: Color) -> &'static str {
    c.name()
}

/// A move: the square a piece leaves and the square it goes to. Squares are numbered
/// `rank * 9 + file` (0 = `a0`, red's left corner, to 89 = `i9`), as in ICCS coordinates.
///
/// `str(move)` is ICCS (`h2e2`); `wxf(board)` and `chinese(board)` need the position the move is
/// played from. Moves are immutable, hashable and ordered by `index` (`from_square * 90 +
/// to_square`): by the square left, then by the square reached.
#[pyclass(module = "qiku", name = "Move", frozen, eq, hash, ord, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyMove {
    /// The library's move.
    pub mv: Move,
}

impl Ord for PyMove {
    /// By `index`, as `sorted(moves, key=lambda m: m.index)`.
    fn cmp(&self, other: &PyMove) -> std::cmp::Ordering {
        self.index().cmp(&other.index())
    }
}

impl PartialOrd for PyMove {
    fn partial_cmp(&self, other: &PyMove) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PyMove {
    /// Wraps a library move.
    pub fn new(mv: Move) -> PyMove {
        PyMove { mv }
    }
}

/// The square argument `name`, given as an index (0..89) or a name (`e0`).
fn square_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Square> {
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_cow()?;
        return text
            .parse::<Square>()
            .map_err(|_| errors::value_error(format!("{name} {text:?} is not a square (a0 to i9)")));
    }
    if !args::is_int(value) {
        let kind = value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
        return Err(PyTypeError::new_err(format!(
            "{name} must be a square, an int (0 to 89) or a name like 'e0', not {kind}"
        )));
    }
    let index: usize = args::whole(value, name, 0, Some(89))?;
    Square::from_index(index).ok_or_else(|| errors::value_error(format!("{name} {index} is off the board (0 to 89)")))
}

/// `from_square` of `Move(from_square, to_square)`.
fn from_square_arg(v: &Bound<'_, PyAny>) -> PyResult<Square> {
    square_arg(v, "from_square")
}

/// `to_square` of `Move(from_square, to_square)`.
fn to_square_arg(v: &Bound<'_, PyAny>) -> PyResult<Square> {
    square_arg(v, "to_square")
}

/// `square` of `Board.piece_at`.
fn piece_square_arg(v: &Bound<'_, PyAny>) -> PyResult<Square> {
    square_arg(v, "square")
}

/// `index` of `Move.from_index`: `from * 90 + to`, 0 to 8099.
fn move_index_arg(v: &Bound<'_, PyAny>) -> PyResult<usize> {
    args::whole(v, "index", 0, Some(8099))
}

/// `depth` of `Board.perft`: 0 to the library's most.
fn perft_depth_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    args::whole(v, "depth", 0, Some(i128::from(adapter::PERFT_MAX_DEPTH)))
}

/// `size` of `Board.svg`: pixels, at least 1.
fn svg_size_arg(v: &Bound<'_, PyAny>) -> PyResult<u32> {
    args::whole(v, "size", 1, None)
}

#[pymethods]
impl PyMove {
    /// `Move(from_square, to_square)`: squares as indices (0..89) or names (`"h2"`).
    #[new]
    fn py_new(
        #[pyo3(from_py_with = from_square_arg)] from_square: Square,
        #[pyo3(from_py_with = to_square_arg)] to_square: Square,
    ) -> PyResult<PyMove> {
        let (from, to) = (from_square, to_square);
        if from == to {
            return Err(errors::value_error(format!("a move needs two different squares, got {from} twice")));
        }
        Ok(PyMove::new(Move::new(from, to)))
    }

    /// The move written in ICCS coordinates (`"h2e2"`, also `"H2-E2"`), without a position.
    #[staticmethod]
    fn from_iccs(text: &str) -> PyResult<PyMove> {
        adapter::iccs::parse_move(text).map(PyMove::new).map_err(|e| errors::move_error(&e))
    }

    /// The move of index `from_square * 90 + to_square` (see `Move.index`).
    #[staticmethod]
    fn from_index(#[pyo3(from_py_with = move_index_arg)] index: usize) -> PyResult<PyMove> {
        let (from, to) = (Square::from_index(index / 90), Square::from_index(index % 90));
        match (from, to) {
            (Some(f), Some(t)) if index < 8100 && f != t => Ok(PyMove::new(Move::new(f, t))),
            _ => {
                Err(errors::value_error(format!("{index} is not a move index (from * 90 + to, two different squares)")))
            }
        }
    }

    /// The square the piece leaves (0..89).
    #[getter(from_square)]
    fn origin(&self) -> usize {
        self.mv.from().index()
    }

    /// The square the piece goes to (0..89).
    #[getter(to_square)]
    fn destination(&self) -> usize {
        self.mv.to().index()
    }

    /// `from_square * 90 + to_square` (0..8099): the class index used by `qiku.pgn.training_set`.
    #[getter]
    fn index(&self) -> usize {
        self.mv.from().index() * 90 + self.mv.to().index()
    }

    /// ICCS coordinates, lowercase: `"h2e2"`.
    fn iccs(&self) -> String {
        adapter::iccs::format(self.mv)
    }

    /// The same as `iccs()`: the move as UCI engines for Xiangqi (ranks 0-9) write it.
    fn uci(&self) -> String {
        adapter::iccs::format(self.mv)
    }

    /// WXF notation (`"C2.5"`) in `board`'s current position, which the move must be legal in.
    fn wxf(&self, board: &PyBoard) -> PyResult<String> {
        let game = board.lock();
        let pos = legal_in(game.position(), self.mv)?;
        Ok(adapter::wxf::format(pos, self.mv))
    }

    /// Chinese notation (`"炮二平五"`) in `board`'s current position, which the move must be legal in.
    fn chinese(&self, board: &PyBoard) -> PyResult<String> {
        let game = board.lock();
        let pos = legal_in(game.position(), self.mv)?;
        Ok(adapter::chinese::format(pos, self.mv))
    }

    /// The same move seen in a left-right mirror.
    fn mirror(&self) -> PyMove {
        PyMove::new(self.mv.mirror())
    }

    fn __str__(&self) -> String {
        self.iccs()
    }

    fn __repr__(&self) -> String {
        format!("Move.from_iccs('{}')", self.iccs())
    }

    /// Pickling: the move's index.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (usize,))> {
        let ctor = py.import("qiku._qiku")?.getattr("Move")?.getattr("from_index")?;
        Ok((ctor, (self.index(),)))
    }
}

/// The position, or an `IllegalMoveError` when `mv` is not legal there.
fn legal_in(pos: &Position, mv: Move) -> PyResult<&Position> {
    if pos.is_legal(mv) {
        Ok(pos)
    } else {
        Err(errors::IllegalMoveError::new_err(format!("move {mv} is illegal in {}", pos.fen())))
    }
}

/// How a game ended: `winner` (`"red"`, `"black"` or `None` for a draw), `reason` and the PGN
/// `result` (`"1-0"`, `"0-1"`, `"1/2-1/2"`).
#[pyclass(module = "qiku", name = "Outcome", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyOutcome {
    /// `"red"`, `"black"`, or `None` for a draw.
    #[pyo3(get)]
    winner: Option<&'static str>,
    /// `checkmate`, `stalemate` (a loss for the side to move in Xiangqi), `perpetual_check`,
    /// `perpetual_chase`, `repetition`, `no_capture_limit` (120 plies) or `insufficient_material`.
    #[pyo3(get)]
    reason: &'static str,
}

/// Every `reason` an outcome may have.
const REASONS: &[&str] = &[
    "checkmate",
    "stalemate",
    "perpetual_check",
    "perpetual_chase",
    "repetition",
    "no_capture_limit",
    "insufficient_material",
];

/// An outcome in pickles: winner, reason.
type OutcomeState = (Option<&'static str>, &'static str);

impl PyOutcome {
    /// The library's outcome.
    pub fn from_outcome(o: Outcome) -> PyOutcome {
        match o {
            Outcome::Decisive { winner, reason } => {
                PyOutcome { winner: Some(color_name(winner)), reason: adapter::reason_name(reason) }
            }
            Outcome::Draw(reason) => PyOutcome { winner: None, reason: adapter::reason_name(reason) },
        }
    }
}

#[pymethods]
impl PyOutcome {
    /// `"1-0"`, `"0-1"` or `"1/2-1/2"`.
    fn result(&self) -> &'static str {
        match self.winner {
            Some("red") => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// `Outcome(winner=..., reason=...)`.
    pub fn __repr__(&self) -> String {
        match self.winner {
            Some(w) => format!("Outcome(winner='{w}', reason='{}')", self.reason),
            None => format!("Outcome(winner=None, reason='{}')", self.reason),
        }
    }

    /// Pickling and copying: the winner and the reason.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, OutcomeState)> {
        Ok((pickling::restorer::<Self>(py)?, (self.winner, self.reason)))
    }

    /// The outcome `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    fn _from_state(winner: Option<&str>, reason: &str) -> PyResult<PyOutcome> {
        Ok(PyOutcome {
            winner: maybe_one_of("winner", winner, pickling::COLORS)?,
            reason: one_of("reason", reason, REASONS)?,
        })
    }
}

/// A Xiangqi board: a start position plus the moves played, with the rules of the whole game
/// (the repetition rules need the history).
///
/// `Board()` is the standard start; `Board(fen)` any legal position (Pikafish-style FEN, red =
/// `w`). `push` plays a `Move` or a string in ICCS (`h2e2`), WXF (`C2.5`) or Chinese (`炮二平五`);
/// `pop` takes the last move back. A board may be shared between threads: each call is atomic.
///
/// `board == other` compares the positions as python-chess does: placement, side to move,
/// halfmove clock and fullmove number (the whole FEN), not the moves that led there. Boards are
/// mutable and so unhashable (`fen()` and `zobrist_hash()` make dictionary keys). Boards pickle
/// and copy with their start position and moves; `Board.from_uci_position` reads
/// `"startpos moves h2e2 ..."`.
#[pyclass(module = "qiku", name = "Board", frozen)]
pub struct PyBoard {
    game: Mutex<Game>,
}

impl PyBoard {
    /// A board over a game (its position and history).
    pub fn from_game(game: Game) -> PyBoard {
        PyBoard { game: Mutex::new(game) }
    }

    /// The game, locked. No lock is held while Python code runs or the GIL is released.
    pub fn lock(&self) -> MutexGuard<'_, Game> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of the current position.
    pub fn position(&self) -> Position {
        self.lock().position().clone()
    }

    /// A copy of the game.
    pub fn game(&self) -> Game {
        self.lock().clone()
    }
}

/// Reads `mv` (a `Move` or a string in any notation) in `pos`, checked legal.
pub fn move_arg(pos: &Position, mv: &Bound<'_, PyAny>) -> PyResult<Move> {
    if let Ok(m) = mv.cast::<PyMove>() {
        let m = m.get().mv;
        legal_in(pos, m)?;
        return Ok(m);
    }
    if let Ok(s) = mv.cast::<PyString>() {
        let text = s.to_cow()?;
        return adapter::parse_any(pos, text.trim()).map(|(m, _)| m).map_err(|e| errors::move_error(&e));
    }
    Err(PyTypeError::new_err("a move is a qiku.Move or a string (ICCS, WXF or Chinese)"))
}

/// What `Board.__reduce__` returns: the constructor and its arguments (start FEN, moves).
type Reduced<'py> = (Bound<'py, PyAny>, (String, Vec<String>));

/// Whether `text` is written as a UCI position rather than a FEN: it starts with `position`,
/// `fen` or `startpos`, or has a `moves` word.
fn looks_like_uci_position(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or_default();
    ["position", "fen", "startpos"].iter().any(|w| first.eq_ignore_ascii_case(w))
        || words.any(|w| w.eq_ignore_ascii_case("moves"))
}

/// The error of `Board(text)` for a text that is no FEN. A UCI position (`startpos moves h2e2`)
/// is not read there, as python-chess's `Board(fen)` reads only a FEN: the error names the
/// constructor that reads it.
fn not_a_fen(text: &str, error: String) -> PyErr {
    if looks_like_uci_position(text) {
        errors::fen_error(format!(
            "{:?} is a UCI position, not a FEN: Board() reads a FEN (or \"startpos\") alone; use \
             Board.from_uci_position(text) for \"startpos moves ...\" or \"fen ... moves ...\", which \
             plays the moves",
            adapter::excerpt(text.trim())
        ))
    } else {
        errors::fen_error(error)
    }
}

#[pymethods]
impl PyBoard {
    /// `Board(fen=None)`: the start position, or the position of a FEN (`"startpos"` also works).
    /// A UCI position with moves is read by `Board.from_uci_position`.
    #[new]
    #[pyo3(signature = (fen = None))]
    fn py_new(fen: Option<&str>) -> PyResult<PyBoard> {
        let pos = match fen {
            None => Position::startpos(),
            Some(f) => adapter::parse_position(f).map_err(|e| not_a_fen(f, e))?,
        };
        Ok(PyBoard::from_game(Game::new(pos)))
    }

    /// The board of a UCI `position` command's argument: `"startpos moves h2e2 h9g7"` or
    /// `"fen <FEN> moves ..."` (the word `position` before it, the word `fen` and the moves are
    /// optional). The moves are played from the start position and kept as the board's history
    /// (`move_stack`), so that repetitions are judged; they may be written in ICCS, WXF or Chinese
    /// notation. `InvalidFenError` for a bad FEN, `IllegalMoveError` naming the move that cannot
    /// be played.
    #[staticmethod]
    fn from_uci_position(text: &str) -> PyResult<PyBoard> {
        let trimmed = text.trim_start();
        let spec = match trimmed.split_once(char::is_whitespace) {
            Some((word, rest)) if word.eq_ignore_ascii_case("position") => rest,
            _ if trimmed.eq_ignore_ascii_case("position") => "",
            _ => trimmed,
        };
        match adapter::parse_position_spec(spec) {
            Ok(spec) => Ok(PyBoard::from_game(spec.game())),
            Err(e @ SpecError::Move { .. }) => Err(errors::IllegalMoveError::new_err(e.to_string())),
            Err(e) => Err(errors::fen_error(e.to_string())),
        }
    }

    /// The FEN of the current position.
    fn fen(&self) -> String {
        self.lock().position().fen()
    }

    /// The FEN of the position the game started from.
    fn start_fen(&self) -> String {
        self.lock().start().fen()
    }

    /// The side to move: `"red"` or `"black"`.
    #[getter]
    fn turn(&self) -> &'static str {
        color_name(self.lock().position().turn())
    }

    /// The legal moves of the current position (a new list at each access).
    #[getter]
    fn legal_moves(&self) -> Vec<PyMove> {
        self.lock().position().moves().iter().map(|&m| PyMove::new(m)).collect()
    }

    /// The moves played since the start position, oldest first.
    #[getter]
    fn move_stack(&self) -> Vec<PyMove> {
        self.lock().moves().map(PyMove::new).collect()
    }

    /// Number of moves played since the start position.
    #[getter]
    fn ply(&self) -> usize {
        self.lock().len()
    }

    /// Plies since the last capture (the FEN's halfmove clock).
    #[getter]
    fn halfmove_clock(&self) -> u32 {
        self.lock().position().halfmoves()
    }

    /// The FEN's move number (starts at 1, grows after black's move).
    #[getter]
    fn fullmove_number(&self) -> u32 {
        self.lock().position().fullmoves()
    }

    /// Reads a move (a `Move`, or a string in ICCS, WXF or Chinese) in the current position
    /// without playing it; `IllegalMoveError` if it cannot be read or is not legal.
    #[pyo3(signature = (r#move))]
    fn parse_move(&self, r#move: &Bound<'_, PyAny>) -> PyResult<PyMove> {
        let pos = self.position();
        move_arg(&pos, r#move).map(PyMove::new)
    }

    /// Whether a move (a `Move` or a string in any notation) is legal in the current position.
    #[pyo3(signature = (r#move))]
    fn is_legal(&self, r#move: &Bound<'_, PyAny>) -> PyResult<bool> {
        let pos = self.position();
        match move_arg(&pos, r#move) {
            Ok(_) => Ok(true),
            Err(e) if e.is_instance_of::<errors::IllegalMoveError>(r#move.py()) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Plays a move (a `Move`, or a string in ICCS, WXF or Chinese) and returns it as a `Move`.
    /// Raises `IllegalMoveError` (a `ValueError`) if it cannot be read or is not legal.
    #[pyo3(signature = (r#move))]
    fn push(&self, r#move: &Bound<'_, PyAny>) -> PyResult<PyMove> {
        let mut game = self.lock();
        let m = move_arg(game.position(), r#move)?;
        game.play_unchecked(m);
        Ok(PyMove::new(m))
    }

    /// Takes back the last move and returns it; `IndexError` when no move was played.
    fn pop(&self) -> PyResult<PyMove> {
        self.lock().undo().map(PyMove::new).ok_or_else(|| PyIndexError::new_err("pop from a board with no move played"))
    }

    /// The last move played, or `None`.
    fn peek(&self) -> Option<PyMove> {
        self.lock().moves().last().map(PyMove::new)
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.lock().position().is_check()
    }

    /// Whether the side to move is checkmated (it loses).
    fn is_checkmate(&self) -> bool {
        let game = self.lock();
        game.position().is_check() && game.position().has_no_moves()
    }

    /// Whether the side to move has no legal move without being in check (in Xiangqi it loses).
    fn is_stalemate(&self) -> bool {
        let game = self.lock();
        !game.position().is_check() && game.position().has_no_moves()
    }

    /// How often the current position occurred before (same placement and side to move), since
    /// the last capture.
    fn repetitions(&self) -> usize {
        self.lock().repetitions()
    }

    /// The game's end, or `None` if it goes on: no legal move (the side to move loses), a third
    /// occurrence of a position (perpetual check or chase loses, otherwise a draw), 120 plies
    /// without capture, or no piece left that can cross the river.
    fn outcome(&self) -> Option<PyOutcome> {
        self.lock().outcome().map(PyOutcome::from_outcome)
    }

    /// Whether `outcome()` is not `None`.
    fn is_game_over(&self) -> bool {
        self.lock().outcome().is_some()
    }

    /// A copy with the same start position and moves (independent of this board).
    fn copy(&self) -> PyBoard {
        PyBoard::from_game(self.game())
    }

    fn __copy__(&self) -> PyBoard {
        self.copy()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyBoard {
        self.copy()
    }

    /// The current position mirrored left to right (files a <-> i), as a new board without history.
    fn mirror(&self) -> PyBoard {
        PyBoard::from_game(Game::new(self.position().mirror()))
    }

    /// The 64-bit Zobrist key of the current position (pieces and side to move), as the
    /// engine's table and the opening books use it.
    fn zobrist_hash(&self) -> u64 {
        self.lock().position().key()
    }

    /// The piece on a square (index 0..89 or a name like `"e0"`) as its FEN letter (`"K"` red
    /// king, `"r"` black rook, ...), or `None` for an empty square.
    fn piece_at(&self, #[pyo3(from_py_with = piece_square_arg)] square: Square) -> Option<String> {
        self.lock().position().piece_at(square).map(|p| p.char().to_string())
    }

    /// Counts the leaves of the legal move tree to `depth` plies (the standard move-generator
    /// check; 44 at depth 1 and 1920 at depth 2 from the start). Releases the GIL; Ctrl-C
    /// interrupts it.
    fn perft(&self, py: Python<'_>, #[pyo3(from_py_with = perft_depth_arg)] depth: u32) -> PyResult<u64> {
        let pos = self.position();
        let stop = AtomicBool::new(false);
        let counted = crate::interrupt::interruptible(
            py,
            || stop.store(true, Ordering::SeqCst),
            || perft_until(&pos, depth, &stop),
        )?;
        // `None` only when stopped, and a stop comes with the exception raised above.
        counted.ok_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("interrupted"))
    }

    /// The board as a `(15, 10, 9)` `uint8` NumPy array: planes 0-6 red king, advisor,
    /// elephant, horse, rook, cannon, pawn; 7-13 the same for black; plane 14 all ones when red
    /// is to move. Index `[plane, rank, file]`, rank 0 being red's back rank (as in `a0`).
    fn planes<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray3<u8>> {
        crate::planes::board_planes(py, &self.position())
    }

    /// The board drawn as an SVG image (what notebooks show).
    fn _repr_svg_(&self) -> String {
        let game = self.lock();
        crate::svg::render(game.position(), game.moves().last())
    }

    /// The board drawn as an SVG image of `size` pixels wide.
    #[pyo3(signature = (size = 450))]
    fn svg(&self, #[pyo3(from_py_with = svg_size_arg)] size: u32) -> String {
        let game = self.lock();
        crate::svg::render_sized(game.position(), game.moves().last(), size)
    }

    /// Whether two boards hold the same position, as python-chess compares boards: the same
    /// pieces on the same squares, the same side to move, halfmove clock and fullmove number
    /// (the whole FEN). The history is not compared: boards that reached one position by
    /// different moves are equal, although their `outcome()` may differ (compare `move_stack`
    /// and `start_fen()` for that). Boards are mutable, hence unhashable; `fen()` or
    /// `zobrist_hash()` make dictionary keys. Compared with anything else, `NotImplemented` (so
    /// `board == "a FEN"` is `False`).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        let py = other.py();
        match other.cast::<PyBoard>() {
            Ok(o) => {
                let same = std::ptr::eq(self, o.get()) || self.position() == o.get().position();
                PyBool::new(py, same).to_owned().into_any().unbind()
            }
            Err(_) => py.NotImplemented(),
        }
    }

    /// Rank 9 on top with Chinese piece characters, then the side to move and the FEN.
    fn __str__(&self) -> String {
        adapter::Diagram::new(self.lock().position()).to_string()
    }

    fn __repr__(&self) -> String {
        format!("Board('{}')", self.fen())
    }

    /// Pickling: the start position and the moves in ICCS.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let game = slf.get().game();
        let ctor = slf.py().import("qiku._qiku")?.getattr("_board_from_moves")?;
        Ok((ctor, (game.start().fen(), game.moves().map(|m| m.to_string()).collect())))
    }
}

/// A board from a start FEN and moves (the inverse of pickling).
#[pyfunction]
pub fn _board_from_moves(fen: &str, moves: Vec<String>) -> PyResult<PyBoard> {
    let pos = adapter::parse_position(fen).map_err(errors::fen_error)?;
    let mut game = Game::new(pos);
    for m in moves {
        let mv = adapter::parse_any(game.position(), &m).map_err(|e| errors::move_error(&e))?.0;
        game.play_unchecked(mv);
    }
    Ok(PyBoard::from_game(game))
}

/// Generates the legal moves of every FEN `repeat` times in Rust, with the GIL released, and
/// returns the number of moves generated: the benchmark's plain-Rust figure, measured in the
/// same process as the bindings (parsing the FENs is done once, before the loop).
#[pyfunction]
pub fn _legal_moves_rust(py: Python<'_>, fens: Vec<String>, repeat: usize) -> PyResult<u64> {
    let positions = fens
        .iter()
        .map(|f| adapter::parse_position(f).map_err(errors::fen_error))
        .collect::<PyResult<Vec<Position>>>()?;
    Ok(py.detach(move || {
        let mut total = 0u64;
        for _ in 0..repeat {
            for pos in &positions {
                total += std::hint::black_box(pos.moves()).len() as u64;
            }
        }
        total
    }))
}
