//! Pickling and copying. Value classes (moves, boards, outcomes, book entries, table verdicts,
//! analyses, games, samples, Renju boards and judgements) reduce to a private constructor of
//! their class (`_from_state`) and their fields, so that they travel to `multiprocessing` workers
//! and `copy.deepcopy` works. Handles on open files and running machinery (books, tables,
//! engines, game readers) refuse with a `TypeError` that says what to send instead.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::PyTypeInfo;

use crate::errors;

/// The name among `allowed` equal to `value` (the `&'static str` a class keeps), or a
/// `ValueError` naming the field: a pickled value restored into a class must be one it can hold.
pub fn one_of(field: &str, value: &str, allowed: &[&'static str]) -> PyResult<&'static str> {
    allowed
        .iter()
        .copied()
        .find(|a| *a == value)
        .ok_or_else(|| errors::value_error(format!("{field} {value:?} is not one of {}", allowed.join(", "))))
}

/// [`one_of`] for a field that may be `None`.
pub fn maybe_one_of(field: &str, value: Option<&str>, allowed: &[&'static str]) -> PyResult<Option<&'static str>> {
    value.map(|v| one_of(field, v, allowed)).transpose()
}

/// The class's `_from_state`, which `__reduce__` names as the constructor of the pickled value.
pub fn restorer<'py, T: PyTypeInfo>(py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    py.get_type::<T>().getattr("_from_state")
}

/// The `TypeError` a handle raises when pickled or copied: what it is (`class`, e.g.
/// `qiku.Book`), why it cannot travel, and what to do instead.
pub fn refuse(class: &str, why: &str, instead: &str) -> PyErr {
    PyTypeError::new_err(format!("cannot pickle or copy a {class}: {why}; {instead}"))
}

/// Win, draw or loss, as the tables name them.
pub const WDL: &[&str] = &["win", "draw", "loss"];
/// The rules of a table value.
pub const RULES: &[&str] = &["asian", "plain"];
/// The unit of a table distance.
pub const UNITS: &[&str] = &["plies", "line rank"];
/// The sides of Xiangqi.
pub const COLORS: &[&str] = &["red", "black"];
