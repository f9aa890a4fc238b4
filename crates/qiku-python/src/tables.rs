//! `qiku.Tablebases`: a directory of endgame tables probed for a position's value, each move's
//! value and the table's best moves, under the Asian rules (perpetual check loses) or none; and
//! `qiku.generate_tablebases` to make tables.
//!
//! Values are what `qiku-tb probe` prints: `wdl` for the side to move and `dtm`, the signed
//! distance to mate in plies (positive: the side to move mates; negative: it is mated; 0: draw,
//! or mated now).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::prelude::*;

use crate::adapter::{self, GenerateOptions, Material, MemorySize, Move, Rules, Tablebases, TbValue, Verdict};
use crate::board::PyMove;
use crate::book::position_arg;
use crate::closing::Closable;
use crate::errors;
use crate::interrupt::{interruptible, StopFlag};
use crate::pickling::{self, one_of, RULES, UNITS, WDL};

/// The directory of tables (`Tablebases`, `generate_tablebases`).
fn directory_arg(v: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    crate::args::path(v, "directory")
}

/// The `materials` argument of `generate_tablebases`: a list (or any sequence) of names. One
/// string alone is refused with the list it was meant to be in, rather than taken letter by letter
/// or refused in the binding's terms.
fn materials_arg(v: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if v.extract::<String>().is_ok() {
        let shown = v.repr().map_or_else(|_| "'KRvK'".to_string(), |r| r.to_string());
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "materials must be a list of materials, such as [{shown}], not one string"
        )));
    }
    v.extract::<Vec<String>>().map_err(|_| {
        let kind = v.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
        pyo3::exceptions::PyTypeError::new_err(format!(
            "materials must be a list of materials (strings such as \"KRvK\"), not {kind}"
        ))
    })
}

/// The `memory` argument of `generate_tablebases`: bytes (an int), or a size as `qiku-tb generate
/// --memory` takes it (`"1G"`, `"512M"`).
fn memory_arg(v: &Bound<'_, PyAny>) -> PyResult<MemorySize> {
    if crate::args::is_int(v) {
        return crate::args::whole::<u64>(v, "memory", 1, None).map(MemorySize::from_bytes);
    }
    let Ok(text) = v.extract::<String>() else {
        let kind = v.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "memory must be an int (bytes) or a size such as \"1G\", not {kind}"
        )));
    };
    text.parse::<MemorySize>().map_err(|e| errors::value_error(format!("memory={text:?}: {e}")))
}

/// The rules named `name` (`asian` or `plain`).
fn rules_arg(name: &str) -> PyResult<Rules> {
    name.parse::<Rules>().map_err(errors::value_error)
}

/// One legal move with the value of the position it leads to, from the mover's point of view.
///
/// Values compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku", name = "TablebaseMove", frozen, get_all, from_py_object, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyTbMove {
    /// The move.
    #[pyo3(name = "move")]
    mv: PyMove,
    /// `"win"`, `"draw"` or `"loss"` for the side that plays the move.
    wdl: &'static str,
    /// Signed distance to mate in plies after the move, for the mover (positive: the mover mates).
    dtm: i32,
    /// Whether only the repetition rules decide this value (it differs from the plain one).
    by_rule: bool,
    /// The unit of `dtm`: `"plies"`, or `"line rank"` when `by_rule`.
    unit: &'static str,
}

/// A move's value in pickles: move, wdl, dtm, by_rule, unit.
type MoveState = (PyMove, &'static str, i32, bool, &'static str);

#[pymethods]
impl PyTbMove {
    fn __repr__(&self) -> String {
        format!("TablebaseMove(move={}, wdl='{}', dtm={}, unit='{}')", self.mv.mv, self.wdl, self.dtm, self.unit)
    }

    /// Pickling and copying: the fields.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, MoveState)> {
        Ok((pickling::restorer::<Self>(py)?, (self.mv, self.wdl, self.dtm, self.by_rule, self.unit)))
    }

    /// The value `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    #[pyo3(signature = (r#move, wdl, dtm, by_rule, unit))]
    fn _from_state(r#move: PyMove, wdl: &str, dtm: i32, by_rule: bool, unit: &str) -> PyResult<PyTbMove> {
        Ok(PyTbMove { mv: r#move, wdl: one_of("wdl", wdl, WDL)?, dtm, by_rule, unit: one_of("unit", unit, UNITS)? })
    }
}

/// A tablebase probe: the position's value for the side to move, every legal move's value (best
/// first) and the table's best moves (the moves of its winning line, or all the moves that keep
/// the best value).
///
/// Probes compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku", name = "TablebaseProbe", frozen, get_all, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyTbProbe {
    /// `"win"`, `"draw"` or `"loss"` for the side to move.
    wdl: &'static str,
    /// Signed distance to mate in plies (positive: the side to move mates in that many plies;
    /// negative: it is mated; 0: a draw, or no legal move). For a value only the rules decide
    /// (`by_rule`), the distance ranks the winning line rather than counting plies to mate.
    dtm: i32,
    /// `abs(dtm)`, in the same unit (plies to mate, or a line rank when `by_rule`).
    distance: u32,
    /// Whether only the repetition rules decide the value (a draw without them).
    by_rule: bool,
    /// The rules of the values: `"asian"` or `"plain"`.
    rules: &'static str,
    /// The unit of `dtm`: `"plies"`, or `"line rank"` when `by_rule`.
    unit: &'static str,
    /// The value in words, with its rules and unit, as `qiku-tb probe` prints it.
    text: String,
    /// Every legal move with its value, best first.
    moves: Vec<PyTbMove>,
    /// The moves of the table's line.
    best_moves: Vec<PyMove>,
}

/// A probe in pickles: the verdict's fields (as [`VerdictState`]), the moves and the best moves.
type ProbeState = (&'static str, i32, u32, bool, &'static str, &'static str, String, Vec<PyTbMove>, Vec<PyMove>);

#[pymethods]
impl PyTbProbe {
    /// Pickling and copying: the fields.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, ProbeState)> {
        let state = (
            self.wdl,
            self.dtm,
            self.distance,
            self.by_rule,
            self.rules,
            self.unit,
            self.text.clone(),
            self.moves.clone(),
            self.best_moves.clone(),
        );
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The probe `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    #[allow(clippy::too_many_arguments)]
    fn _from_state(
        wdl: &str,
        dtm: i32,
        distance: u32,
        by_rule: bool,
        rules: &str,
        unit: &str,
        text: String,
        moves: Vec<PyTbMove>,
        best_moves: Vec<PyMove>,
    ) -> PyResult<PyTbProbe> {
        let PyTbVerdict { wdl, dtm, distance, by_rule, rules, unit, text } =
            PyTbVerdict::_from_state(wdl, dtm, distance, by_rule, rules, unit, text)?;
        Ok(PyTbProbe { wdl, dtm, distance, by_rule, rules, unit, text, moves, best_moves })
    }

    fn __repr__(&self) -> String {
        let best: Vec<String> = self.best_moves.iter().map(|m| m.mv.to_string()).collect();
        format!(
            "TablebaseProbe(wdl='{}', dtm={}, unit='{}', rules='{}', best_moves=[{}])",
            self.wdl,
            self.dtm,
            self.unit,
            self.rules,
            best.join(", ")
        )
    }
}

/// The tables' verdict on a position, as `qiku-tb probe --json` gives it: the value for the side
/// to move, the rules it holds under, and whether only those rules decide it.
///
/// Verdicts compare equal (`==`) field for field, and hash.
#[pyclass(module = "qiku", name = "TablebaseVerdict", frozen, get_all, from_py_object, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyTbVerdict {
    /// `"win"`, `"draw"` or `"loss"` for the side to move.
    wdl: &'static str,
    /// Signed distance for the side to move: plies to mate (positive: it mates), or a line rank
    /// when `by_rule`.
    dtm: i32,
    /// `abs(dtm)`, in the same unit.
    distance: u32,
    /// Whether only the repetition rules decide the value (a draw without them).
    by_rule: bool,
    /// The rules of the value: `"asian"` or `"plain"`.
    rules: &'static str,
    /// The unit of `dtm`: `"plies"`, or `"line rank"` when `by_rule`.
    unit: &'static str,
    /// The value in words, with its rules and unit, as `qiku-tb probe` prints it.
    text: String,
}

impl PyTbVerdict {
    /// The library's verdict.
    pub fn new(v: &Verdict) -> PyTbVerdict {
        PyTbVerdict {
            wdl: wdl_name(&v.value),
            dtm: v.value.dtm.0,
            distance: v.value.dtm.plies(),
            by_rule: v.by_rule,
            rules: v.rules.name(),
            unit: v.unit(),
            text: v.to_string(),
        }
    }
}

/// A verdict in pickles: wdl, dtm, distance, by_rule, rules, unit, text.
type VerdictState = (&'static str, i32, u32, bool, &'static str, &'static str, String);

#[pymethods]
impl PyTbVerdict {
    fn __repr__(&self) -> String {
        format!("TablebaseVerdict(wdl='{}', dtm={}, unit='{}', rules='{}')", self.wdl, self.dtm, self.unit, self.rules)
    }

    /// Pickling and copying: the fields.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, VerdictState)> {
        let state = (self.wdl, self.dtm, self.distance, self.by_rule, self.rules, self.unit, self.text.clone());
        Ok((pickling::restorer::<Self>(py)?, state))
    }

    /// The verdict `__reduce__` describes (the inverse of pickling).
    #[staticmethod]
    fn _from_state(
        wdl: &str,
        dtm: i32,
        distance: u32,
        by_rule: bool,
        rules: &str,
        unit: &str,
        text: String,
    ) -> PyResult<PyTbVerdict> {
        Ok(PyTbVerdict {
            wdl: one_of("wdl", wdl, WDL)?,
            dtm,
            distance,
            by_rule,
            rules: one_of("rules", rules, RULES)?,
            unit: one_of("unit", unit, UNITS)?,
            text,
        })
    }
}

/// The endgame tables of a directory (`.qtb` files with their `.qtr` and `.qtw` companions).
/// Opening reads only the file headers; a damaged or foreign file is listed in `problems` and
/// raises `TablebaseError` when its material is probed. Safe to share between threads.
/// `close()`, or the end of a `with` block, lets the files go; using the tables afterwards raises
/// `ValueError` (an engine they were attached to keeps its own hold on them).
#[pyclass(module = "qiku", name = "Tablebases", frozen)]
pub struct PyTablebases {
    tables: Closable<Arc<Tablebases>>,
    dir: PathBuf,
}

/// The class name closed tables' error gives.
const TABLES: &str = "qiku.Tablebases";

impl PyTablebases {
    /// The opened tables, which an engine shares (it opens no file again: a relative path and a
    /// later change of directory do not matter); `ValueError` once closed.
    pub fn shared(&self) -> PyResult<Arc<Tablebases>> {
        self.tables.with(TABLES, |t| Arc::clone(t))
    }
}

/// Opens the tables in `dir` for `Tablebases(dir)` and `Engine.set_tablebases(dir)`. A directory
/// that does not exist (`errno` ENOENT) or holds no table file is refused, in the words the
/// command line and the C API use, with the way to make tables from Python: such tables could
/// only ever answer "no table", which is what a wrong path looks like. A directory whose only
/// table files cannot be used opens, and lists them in `problems`.
pub fn open_tables(py: Python<'_>, dir: &Path) -> PyResult<Tablebases> {
    let d = dir.to_path_buf();
    let opened = py.detach(move || Tablebases::open(&d));
    let elsewhere = format!(
        "or `qiku.generate_tablebases(materials, {:?})` from Python, or pass the directory that holds them",
        dir.display().to_string()
    );
    let with_problems = opened.as_ref().is_ok_and(|t| !t.problems().is_empty());
    match adapter::unusable_dir_message(dir, opened.as_ref(), &elsewhere).filter(|_| !with_problems) {
        Some(said) => {
            let errno = opened.as_ref().err().and_then(adapter::tb_error_io).and_then(|io| io.raw_os_error());
            Err(errors::tables_dir_error(errno, said, dir))
        }
        None => opened.map_err(|e| errors::tb_error(&e)),
    }
}

fn wdl_name(v: &TbValue) -> &'static str {
    v.wdl.name()
}

#[pymethods]
impl PyTablebases {
    /// Opens the tables in `directory`; `TablebaseError` if it cannot be read.
    #[new]
    fn py_new(py: Python<'_>, #[pyo3(from_py_with = directory_arg)] directory: PathBuf) -> PyResult<PyTablebases> {
        let tables = open_tables(py, &directory)?;
        Ok(PyTablebases { tables: Closable::new(Arc::new(tables)), dir: directory })
    }

    /// The value of a position (a `Board` or a FEN) under `rules` (`"asian"`, the default, where
    /// a side that can only hold by perpetual check loses; or `"plain"`, every cycle a draw), or
    /// `None` when no table of the directory covers its material. Releases the GIL.
    #[pyo3(signature = (position, rules = "asian"))]
    fn probe(&self, py: Python<'_>, position: &Bound<'_, PyAny>, rules: &str) -> PyResult<Option<PyTbProbe>> {
        let pos = position_arg(position)?;
        let rules = rules_arg(rules)?;
        let tb = self.shared()?;
        type Found = Option<(Verdict, Vec<(Move, Verdict)>, Vec<Move>)>;
        let found: Result<Found, adapter::TbError> = py.detach(|| {
            // One probe of the position and one of each move: the verdicts say whether the rules
            // decided, and the best moves come from the values already read.
            let Some(verdict) = tb.verdict(&pos, rules)? else { return Ok(None) };
            let moves = tb.move_verdicts(&pos, rules)?.unwrap_or_default();
            let values: Vec<(Move, TbValue)> = moves.iter().map(|&(m, v)| (m, v.value)).collect();
            let best = Tablebases::best_among(&pos, verdict.value, &values);
            Ok(Some((verdict, moves, best)))
        });
        let Some((verdict, moves, best)) = found.map_err(|e| errors::probe_error(&e, &self.dir))? else {
            return Ok(None);
        };
        // The position's verdict in the words of `TablebaseVerdict` (the same fields).
        let PyTbVerdict { wdl, dtm, distance, by_rule, rules, unit, text } = PyTbVerdict::new(&verdict);
        Ok(Some(PyTbProbe {
            wdl,
            dtm,
            distance,
            by_rule,
            rules,
            unit,
            text,
            moves: moves
                .iter()
                .map(|(m, v)| PyTbMove {
                    mv: PyMove::new(*m),
                    wdl: wdl_name(&v.value),
                    dtm: v.value.dtm.0,
                    by_rule: v.by_rule,
                    unit: v.unit(),
                })
                .collect(),
            best_moves: best.into_iter().map(PyMove::new).collect(),
        }))
    }

    /// Only win, draw or loss (`"win"`, `"draw"`, `"loss"`) for the side to move, from the small
    /// WDL files where present; `None` when no table covers the material.
    #[pyo3(signature = (position, rules = "asian"))]
    fn wdl(&self, py: Python<'_>, position: &Bound<'_, PyAny>, rules: &str) -> PyResult<Option<&'static str>> {
        let pos = position_arg(position)?;
        let rules = rules_arg(rules)?;
        let tb = self.shared()?;
        let w = py.detach(|| tb.probe_wdl_with(&pos, rules)).map_err(|e| errors::probe_error(&e, &self.dir))?;
        Ok(w.map(|w| w.name()))
    }

    /// The directory.
    #[getter]
    fn directory(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The materials of the usable tables (`"KRvK"`, ...), sorted.
    #[getter]
    fn materials(&self) -> PyResult<Vec<String>> {
        let mut v: Vec<String> = self.shared()?.usable_tables().iter().map(|t| t.material.to_string()).collect();
        v.sort();
        Ok(v)
    }

    /// Why some files of the directory cannot be used, one message each.
    #[getter]
    fn problems(&self) -> PyResult<Vec<String>> {
        Ok(self.shared()?.problems().iter().map(|e| e.to_string()).collect())
    }

    /// Lets the table files go; later calls raise `ValueError`. Closing again does nothing.
    fn close(&self) {
        self.tables.close();
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.tables.is_closed()
    }

    /// `with qiku.Tablebases(directory) as tables:` closes the tables at the end of the block.
    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// Closes the tables; an exception of the block goes on.
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
        let closed = if self.tables.is_closed() { " (closed)" } else { "" };
        format!("Tablebases('{}'){closed}", self.dir.display())
    }

    /// Refuses pickling and copying: the tables are open files.
    fn __reduce__(&self) -> PyResult<()> {
        Err(pickling::refuse(
            "qiku.Tablebases",
            "its table files are open",
            "send its directory (tables.directory) to the other process and open \
             qiku.Tablebases(directory) there; within one process, share the Tablebases itself (it \
             is safe to use from several threads)",
        ))
    }
}

/// Generates the tables of `materials` (names like `"KRvK"`) into `directory`, each with its
/// Asian-rules companion and WDL file, together with every smaller table they capture into
/// (generated first); intact files already there are kept. Returns a `(material, kept, entries)`
/// tuple per table, those captured into included (`kept`: an intact file was already there).
/// Materials without an attacking piece (`KAvK`) have no table: named alone they raise
/// `ValueError`, as `qiku-tb generate` refuses them, and among others a `RuntimeWarning` says
/// they are left out. Releases the GIL (generation uses every core); Ctrl-C stops it within moments, before the
/// table being solved is written (the tables finished before it are kept).
///
/// `memory` (bytes, or a size such as `"1G"` or `"512M"`) keeps the process within that much
/// resident memory, as `qiku-tb generate --memory` does: a larger table is solved with its
/// working arrays paged to scratch files in `directory` (slower, the same files). Without it, a
/// table that needs more than the memory available here raises `TablebaseError` before any work.
#[pyfunction]
#[pyo3(signature = (materials, directory, *, memory = None))]
pub fn generate_tablebases(
    py: Python<'_>,
    #[pyo3(from_py_with = materials_arg)] materials: Vec<String>,
    #[pyo3(from_py_with = directory_arg)] directory: PathBuf,
    memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(String, bool, u64)>> {
    let memory = memory.map(memory_arg).transpose()?;
    let mats = materials
        .iter()
        .map(|m| m.parse::<Material>().map_err(|e| errors::value_error(format!("material {m:?}: {e}"))))
        .collect::<PyResult<Vec<_>>>()?;
    // Dead draws, in the library's words (those of `qiku-tb generate`).
    let dead: Vec<Material> = mats.iter().copied().filter(|m| !m.has_attackers()).collect();
    if !dead.is_empty() && dead.len() == mats.len() {
        return Err(errors::value_error(format!("{} to make", adapter::dead_draw_message(&dead))));
    }
    if !dead.is_empty() {
        let note = format!("{}; left out", adapter::dead_draw_message(&dead));
        let text = std::ffi::CString::new(note).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(), &text, 1)?;
    }
    let stop = StopFlag::default();
    let mut opts = GenerateOptions::new(directory).progress(Arc::new(stop.clone()));
    if let Some(memory) = memory {
        opts = opts.memory(memory.bytes());
    }
    let reports = interruptible(py, || stop.stop(), || adapter::generate_set(&mats, &opts))?
        .map_err(|e| errors::generate_error(&e))?;
    Ok(reports.into_iter().map(|r| (r.material, r.kept, r.entries)).collect())
}
