//! `qiku.renju`: the Renju judge (15x15 five-in-a-row under the RIF rules, black barred from
//! overlines, double fours and double threes). Points are named as in Renju literature: columns
//! `a`..`o` from the left, rows `1`..`15` from the bottom, `h8` the centre.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyBool;

use crate::adapter::renju::{self as lib, Board, Outcome, Point, RenjuError, Stone};
use crate::args;
use crate::errors;
use crate::pickling::{self, maybe_one_of, one_of};

fn point_arg(text: &str) -> PyResult<Point> {
    text.trim().parse::<Point>().map_err(|e| errors::value_error(format!("{text:?}: {e}")))
}

/// A Renju input error as a `ValueError` with the library's message.
fn renju_error(e: RenjuError) -> PyErr {
    errors::value_error(e.to_string())
}

/// Plays a game's moves, written as `qiku renju judge` reads a game file (`#` comments, any
/// line ending), on `board`.
fn play_text(mut board: Board, text: &str) -> PyResult<Board> {
    for (i, point) in lib::parse_game(text).map_err(renju_error)?.into_iter().enumerate() {
        board.play(point).map_err(|point| renju_error(RenjuError::Occupied { index: i + 1, point }))?;
    }
    Ok(board)
}

/// `seconds` of `best_move`: 0.001 to 3600, as an engine's `movetime`.
fn seconds_arg(v: &Bound<'_, PyAny>) -> PyResult<f64> {
    args::real(v, "seconds", 0.001, 3600.0, " seconds")
}

/// The sides, as stones are named.
const STONES: &[&str] = &["black", "white"];
/// How a judged game ended.
const REASONS: &[&str] = &["five", "forbidden", "full", "unfinished"];
/// The kinds of forbidden move.
const FORBIDDEN: &[&str] = &["overline", "double-four", "double-three"];

fn stone_name(s: Stone) -> &'static str {
    s.name()
}

/// A Renju position and the moves that led to it. Safe to share between threads.
#[pyclass(module = "qiku.renju", name = "Board", frozen)]
pub struct PyRenjuBoard {
    board: Mutex<Board>,
}

impl PyRenjuBoard {
    fn lock(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The board before the moves played (the stones of its diagram, or none) and the moves.
    fn setup_and_moves(&self) -> (Board, Vec<String>) {
        let mut setup = self.lock().clone();
        let mut moves = Vec::new();
        while let Some(p) = setup.undo() {
            moves.push(p.to_string());
        }
        moves.reverse();
        (setup, moves)
    }
}

/// A board in pickles: the diagram of the stones set up before the moves, and the moves.
type BoardState = (String, Vec<String>);

#[pymethods]
impl PyRenjuBoard {
    /// `Board(moves="")`: the board after a move list, black first (`"h8 h9"`), written as a game
    /// file for `qiku renju judge` is: moves separated by spaces, commas or line breaks (`\n`,
    /// `\r\n` or `\r`), `#` starting a comment that runs to the end of its line.
    #[new]
    #[pyo3(signature = (moves = ""))]
    fn py_new(moves: &str) -> PyResult<PyRenjuBoard> {
        Ok(PyRenjuBoard { board: Mutex::new(play_text(Board::new(), moves)?) })
    }

    /// A board from a diagram: 15 lines of 15 cells, `.` empty, `x` black, `o` white, top row
    /// first, as `qiku renju forbidden --board FILE` reads it (blank lines and lines starting
    /// with `#` are skipped; lines may end in `\n`, `\r\n` or `\r`). Black, who moves first,
    /// must have as many stones as white or one more (`ValueError` naming the counts). `moves`
    /// are then played, as the moves after `--board FILE` are, and kept as the board's `moves`.
    #[staticmethod]
    #[pyo3(signature = (text, moves = ""))]
    fn from_diagram(text: &str, moves: &str) -> PyResult<PyRenjuBoard> {
        let board = play_text(Board::from_diagram(text).map_err(renju_error)?, moves)?;
        Ok(PyRenjuBoard { board: Mutex::new(board) })
    }

    /// Plays a stone for the side to move (forbidden moves are not refused here: see
    /// `forbidden`); `ValueError` if the point is occupied.
    fn play(&self, point: &str) -> PyResult<()> {
        let p = point_arg(point)?;
        self.lock().play(p).map_err(|p| errors::value_error(format!("point {p} is already occupied")))
    }

    /// The side to move: `"black"` or `"white"`.
    #[getter]
    fn to_move(&self) -> &'static str {
        stone_name(self.lock().to_move())
    }

    /// The moves played, as point names.
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.lock().moves().iter().map(|p| p.to_string()).collect()
    }

    /// The stone on a point: `"black"`, `"white"` or `None`.
    fn stone(&self, point: &str) -> PyResult<Option<&'static str>> {
        let p = point_arg(point)?;
        Ok(self.lock().stone(p).map(stone_name))
    }

    /// Why black may not play on `point` (`"overline"`, `"double-four"`, `"double-three"`), or
    /// `None` when the move is allowed (a move that makes an exact five always is).
    fn forbidden(&self, point: &str) -> PyResult<Option<&'static str>> {
        let p = point_arg(point)?;
        Ok(self.lock().forbidden(p).map(|f| f.name()))
    }

    /// Every point black may not play, with why, sorted by point name.
    fn forbidden_points(&self) -> Vec<(String, &'static str)> {
        self.lock().forbidden_points().into_iter().map(|(p, f)| (p.to_string(), f.name())).collect()
    }

    /// Whether a stone of `stone` (`"black"`/`"white"`, default the side to move) on `point` wins:
    /// black needs an exact five, white five or more.
    #[pyo3(signature = (point, stone = None))]
    fn makes_five(&self, point: &str, stone: Option<&str>) -> PyResult<bool> {
        let p = point_arg(point)?;
        let board = self.lock();
        let s = match stone {
            None => board.to_move(),
            Some(s) if s.eq_ignore_ascii_case("black") => Stone::Black,
            Some(s) if s.eq_ignore_ascii_case("white") => Stone::White,
            Some(s) => return Err(errors::value_error(format!("stone {s:?}: expected 'black' or 'white'"))),
        };
        Ok(board.makes_five(p, s))
    }

    /// A move for the side to move, chosen by the built-in player within `seconds`.
    #[pyo3(signature = (seconds = 1.0))]
    fn best_move(&self, py: Python<'_>, #[pyo3(from_py_with = seconds_arg)] seconds: f64) -> PyResult<Option<String>> {
        let board = self.lock().clone();
        let p = py.detach(move || lib::choose_move(&board, lib::Ruleset::Renju, Duration::from_secs_f64(seconds)));
        Ok(p.map(|p| p.to_string()))
    }

    /// Takes back the last move and returns its point; `IndexError` when there is none.
    fn undo(&self) -> PyResult<String> {
        self.lock().undo().map(|p| p.to_string()).ok_or_else(|| PyIndexError::new_err("no move to take back"))
    }

    /// Whether two boards hold the same stones on the same points, as `qiku.Board` compares
    /// positions: the side to move, which follows from the stone counts, is then the same too,
    /// and so is every judgement (`forbidden`, `makes_five`), which the rules draw from the stones
    /// alone. The moves are not compared: boards that reached the stones by different moves, or
    /// set them up from a diagram, are equal (compare `moves` for the game). Boards are mutable,
    /// hence unhashable; `str(board)` makes a dictionary key that compares as they do. Compared
    /// with anything else, `NotImplemented` (so `board == "h8"` is `False`).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> Py<PyAny> {
        let py = other.py();
        match other.cast::<PyRenjuBoard>() {
            Ok(o) => {
                let same = std::ptr::eq(self, o.get()) || {
                    // One lock at a time: `a == b` and `b == a` in two threads cannot deadlock.
                    let mine = self.lock().clone();
                    let theirs = o.get().lock();
                    Point::all().all(|p| mine.stone(p) == theirs.stone(p))
                };
                PyBool::new(py, same).to_owned().into_any().unbind()
            }
            Err(_) => py.NotImplemented(),
        }
    }

    /// The diagram `from_diagram` reads.
    fn __str__(&self) -> String {
        self.lock().diagram()
    }

    /// An expression that rebuilds the board: `renju.Board('h8 h9')` for moves from the empty
    /// board; `renju.Board.from_diagram('...', moves='h8')` for a board set up from a diagram,
    /// the diagram holding the stones set up (one row per `\n`, top row first).
    fn __repr__(&self) -> String {
        let (setup, moves) = self.setup_and_moves();
        let moves = moves.join(" ");
        if setup.stone_count() == 0 {
            return format!("renju.Board('{moves}')");
        }
        // The diagram holds only `.`, `x`, `o` and line breaks: no other character to escape.
        let diagram = setup.diagram().replace('\n', "\\n");
        if moves.is_empty() {
            format!("renju.Board.from_diagram('{diagram}')")
        } else {
            format!("renju.Board.from_diagram('{diagram}', moves='{moves}')")
        }
    }

    /// Pickling and copying: the diagram of the stones set up before the moves, and the moves.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, BoardState)> {
        let (setup, moves) = self.setup_and_moves();
        Ok((pickling::restorer::<Self>(py)?, (setup.diagram(), moves)))
    }

    /// The board `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    fn _from_state(diagram: &str, moves: Vec<String>) -> PyResult<PyRenjuBoard> {
        let board = play_text(Board::from_diagram(diagram).map_err(renju_error)?, &moves.join(" "))?;
        Ok(PyRenjuBoard { board: Mutex::new(board) })
    }
}

/// A judged game: `winner` (`"black"`, `"white"` or `None`), `reason` (`"five"`, `"forbidden"`,
/// `"full"` or `"unfinished"`), the deciding `ply` (1-based) and `point`, the `forbidden` kind,
/// and `extra_moves` played after the end.
///
/// Judgements compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku.renju", name = "Judgement", frozen, get_all, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyJudgement {
    /// `"black"` or `"white"`, or `None` for a full board or an unfinished game.
    winner: Option<&'static str>,
    /// `"five"`, `"forbidden"` (black's forbidden move: white wins), `"full"` or `"unfinished"`.
    reason: &'static str,
    /// The 1-based ply of the deciding move (the five, or the forbidden move); `None` without one.
    ply: Option<usize>,
    /// The point of the deciding move (`"h8"`); `None` without one.
    point: Option<String>,
    /// Why the deciding move was forbidden: `"overline"`, `"double-four"` or `"double-three"`;
    /// `None` unless `reason` is `"forbidden"`.
    forbidden: Option<&'static str>,
    /// Moves the game went on with after the deciding one (ignored by the judgement).
    extra_moves: usize,
}

/// A judgement in pickles: winner, reason, ply, point, forbidden, extra_moves.
type JudgementState = (Option<&'static str>, &'static str, Option<usize>, Option<String>, Option<&'static str>, usize);

#[pymethods]
impl PyJudgement {
    /// Pickling and copying: the fields.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, JudgementState)> {
        let state = (self.winner, self.reason, self.ply, self.point.clone(), self.forbidden, self.extra_moves);
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The judgement `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    fn _from_state(
        winner: Option<&str>,
        reason: &str,
        ply: Option<usize>,
        point: Option<String>,
        forbidden: Option<&str>,
        extra_moves: usize,
    ) -> PyResult<PyJudgement> {
        if let Some(p) = &point {
            point_arg(p)?;
        }
        Ok(PyJudgement {
            winner: maybe_one_of("winner", winner, STONES)?,
            reason: one_of("reason", reason, REASONS)?,
            ply,
            point,
            forbidden: maybe_one_of("forbidden", forbidden, FORBIDDEN)?,
            extra_moves,
        })
    }

    fn __repr__(&self) -> String {
        let q = |s: Option<&str>| s.map_or("None".to_string(), |s| format!("'{s}'"));
        let ply = self.ply.map_or("None".to_string(), |p| p.to_string());
        format!(
            "Judgement(winner={}, reason='{}', ply={ply}, point={})",
            q(self.winner),
            self.reason,
            q(self.point.as_deref())
        )
    }
}

/// Replays a game from the empty board and judges it: the first forbidden black move (white
/// wins), the first five, a full board, or unfinished. `moves` is a game file's text, as `qiku
/// renju judge` reads it: moves separated by spaces, commas or line breaks (`\n`, `\r\n` or
/// `\r`), black first, `#` starting a comment that runs to the end of its line.
#[pyfunction]
pub fn judge(moves: &str) -> PyResult<PyJudgement> {
    let points = lib::parse_game(moves).map_err(renju_error)?;
    let j = lib::judge(&points).map_err(renju_error)?;
    let (winner, reason, ply, point, forbidden) = match j.outcome {
        Outcome::Forbidden { ply, point, kind } => {
            (Some("white"), "forbidden", Some(ply), Some(point), Some(kind.name()))
        }
        Outcome::Five { ply, point, winner } => (Some(stone_name(winner)), "five", Some(ply), Some(point), None),
        Outcome::Full => (None, "full", None, None, None),
        Outcome::Unfinished => (None, "unfinished", None, None, None),
    };
    Ok(PyJudgement { winner, reason, ply, point: point.map(|p| p.to_string()), forbidden, extra_moves: j.extra_moves })
}
