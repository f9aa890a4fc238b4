//! Numeric arguments, checked before any work: a number out of range is a `ValueError` naming
//! the parameter, its range and the value given (`depth must be between 1 and 100, got -1`), and
//! an argument that is no number a `TypeError` naming the parameter (`depth must be an int, not
//! str`). PyO3's own conversions would raise `OverflowError` for a negative number and name no
//! parameter in their messages.
//!
//! Each numeric parameter has a one-line reader, given to PyO3 as
//! `#[pyo3(from_py_with = reader)]`, that calls [`whole`] or [`real`] with its name and range
//! (the range of the command-line option where the tools have one); [`optional`] lets `None`
//! through for the parameters that default to it.
//!
//! Paths are read the same way, by [`path`] and [`paths`] with the parameter's name: a `str` or an
//! `os.PathLike`; `bytes` raise a `TypeError` naming the parameter and saying to decode them
//! (PyO3's own conversion says only that bytes are not str). The Python wrappers check their
//! paths with the same function ([`text_path`], `qiku._qiku._text_path`).

use std::path::PathBuf;

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString};

use crate::errors;

/// The Rust integer types a whole-number argument is read into.
pub trait Whole: Copy + TryFrom<i128> {
    /// The largest value of the type: the end of an open range.
    const MAX: i128;
}

macro_rules! whole_types {
    ($($t:ty),*) => {
        $(impl Whole for $t {
            const MAX: i128 = <$t>::MAX as i128;
        })*
    };
}

whole_types!(u32, u64, usize);

/// The name of the argument's Python type (`str`, `float`).
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// The argument as Python prints it (`-1`, `nan`, `1e+40`).
fn shown(value: &Bound<'_, PyAny>) -> String {
    value.str().map_or_else(|_| "?".to_string(), |s| s.to_string())
}

/// Whether the argument is a Python int, or stands for one (`__index__`: NumPy's integers);
/// floats and strings do not, nor does a bool (an int to Python, but `Move(True, 5)` is a
/// mistake, not square 1).
pub fn is_int(value: &Bound<'_, PyAny>) -> bool {
    !value.is_instance_of::<PyBool>()
        && (value.is_instance_of::<PyInt>() || value.hasattr("__index__").unwrap_or(false))
}

/// The int `value` as an `i128`, or `None` when it is too large for one (its text is then shown).
fn int_value(value: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    match value.extract::<i64>() {
        Ok(v) => Ok(Some(i128::from(v))),
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Ok(value.extract::<u64>().ok().map(i128::from)),
        Err(e) => Err(e),
    }
}

/// A whole-number argument `name` within `lo..=hi` (`hi` `None`: as large as `T` holds, and the
/// message says "at least `lo`").
pub fn whole<T: Whole>(value: &Bound<'_, PyAny>, name: &str, lo: i128, hi: Option<i128>) -> PyResult<T> {
    if !is_int(value) {
        return Err(PyTypeError::new_err(format!("{name} must be an int, not {}", type_name(value))));
    }
    let most = hi.unwrap_or(T::MAX).min(T::MAX);
    let number = int_value(value)?;
    if let Some(n) = number.filter(|n| (lo..=most).contains(n)) {
        if let Ok(v) = T::try_from(n) {
            return Ok(v);
        }
    }
    let got = shown(value);
    Err(errors::value_error(match hi {
        Some(hi) => format!("{name} must be between {lo} and {hi}, got {got}"),
        None if number.is_some_and(|n| n < lo) => format!("{name} must be at least {lo}, got {got}"),
        None => format!("{name} must be at most {most}, got {got}"),
    }))
}

/// A number argument `name` (a float, or an int) within `lo..=hi`, in `unit` (`" seconds"`, or
/// `""`); NaN and the infinities are out of every range.
pub fn real(value: &Bound<'_, PyAny>, name: &str, lo: f64, hi: f64, unit: &str) -> PyResult<f64> {
    let range = || format!("{name} must be between {lo} and {hi}{unit}, got {}", shown(value));
    match value.extract::<f64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        Ok(_) => Err(errors::value_error(range())),
        // An int too large for a float.
        Err(e) if e.is_instance_of::<PyOverflowError>(value.py()) => Err(errors::value_error(range())),
        Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => {
            Err(PyTypeError::new_err(format!("{name} must be a number, not {}", type_name(value))))
        }
        Err(e) => Err(e),
    }
}

/// `None`, or the argument `read` reads.
pub fn optional<T>(
    value: &Bound<'_, PyAny>,
    read: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Option<T>> {
    if value.is_none() {
        Ok(None)
    } else {
        read(value).map(Some)
    }
}

/// What a path parameter takes, in its messages.
const A_PATH: &str = "a path (str or os.PathLike)";

/// A path argument `name`: a `str`, or an `os.PathLike` giving one. Bytes (or a path object
/// giving bytes) raise `TypeError` saying to decode them; anything else a `TypeError` saying
/// `name` must be `expected` (`"a path (str or os.PathLike)"`, or more where the parameter takes
/// other things too).
pub fn path_or(value: &Bound<'_, PyAny>, name: &str, expected: &str) -> PyResult<PathBuf> {
    let text = if value.is_instance_of::<PyString>() {
        value.clone()
    } else {
        let fspath = value.py().import("os")?.getattr("fspath")?;
        match fspath.call1((value,)) {
            Ok(text) => text,
            Err(e) if e.is_instance_of::<PyTypeError>(value.py()) => {
                return Err(PyTypeError::new_err(format!("{name} must be {expected}, not {}", type_name(value))));
            }
            Err(e) => return Err(e),
        }
    };
    if text.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a str path, not bytes: decode it first (os.fsdecode)"
        )));
    }
    text.extract::<PathBuf>()
}

/// A path argument `name` (see [`path_or`]).
pub fn path(value: &Bound<'_, PyAny>, name: &str) -> PyResult<PathBuf> {
    path_or(value, name, A_PATH)
}

/// Whether `value` is one path (`str`, `bytes` or `os.PathLike`) rather than a list of them.
fn is_one_path(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyString>()
        || value.is_instance_of::<PyBytes>()
        || value.hasattr("__fspath__").unwrap_or(false)
}

/// A paths argument `name`: one path or an iterable of them, each read by [`path`].
pub fn paths(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<PathBuf>> {
    if is_one_path(value) {
        return Ok(vec![path(value, name)?]);
    }
    let Ok(items) = value.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "{name} must be {A_PATH} or a list of paths, not {}",
            type_name(value)
        )));
    };
    items.map(|item| path(&item?, name)).collect()
}

/// `qiku._qiku._text_path(path, name)`: `path` as a `str`, checked as the native functions check
/// theirs (for the Python wrappers, which need the text before calling them).
#[pyfunction(name = "_text_path")]
pub fn text_path(path: &Bound<'_, PyAny>, name: &str) -> PyResult<std::ffi::OsString> {
    self::path(path, name).map(PathBuf::into_os_string)
}
