//! The Python exceptions the module raises, and the conversions from qiku's errors. Bad input
//! text (a FEN, a move, a point) is a `ValueError`; files that cannot be opened or read raise
//! subclasses of `OSError`. Every message is the library's own.

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::adapter::{BookError, BuildError, FileError, NotationError, TbError};

create_exception!(
    qiku,
    InvalidFenError,
    PyValueError,
    "A FEN that is not a legal Xiangqi position (the message says what is wrong)."
);
create_exception!(
    qiku,
    IllegalMoveError,
    PyValueError,
    "A move that cannot be read in any notation, or that is not legal in the position."
);
create_exception!(qiku, BookFileError, PyOSError, "An opening book that cannot be built, opened or read.");
create_exception!(qiku, TablebaseError, PyOSError, "A tablebase directory or file that cannot be opened or read.");
create_exception!(qiku, GameFileError, PyOSError, "A game file (PGN, XQF) that cannot be opened or read.");

/// A bad FEN.
pub fn fen_error(message: String) -> PyErr {
    InvalidFenError::new_err(message)
}

/// A move that could not be read or played.
pub fn move_error(e: &NotationError) -> PyErr {
    IllegalMoveError::new_err(e.to_string())
}

/// `err` with `filename` set, as `OSError` has it for the file it is about (`None`: left unset).
fn with_filename(err: PyErr, path: Option<&Path>) -> PyErr {
    let Some(path) = path else { return err };
    Python::attach(|py| {
        // Setting an attribute of a fresh exception does not fail; if it did, the error is kept.
        let _ = err.value(py).setattr("filename", path);
    });
    err
}

/// A book error: `OSError` for the file's problems, with `errno` when the system's error is
/// the cause and `filename` the book's path.
pub fn book_error(e: &BookError) -> PyErr {
    let err = match crate::adapter::book_error_io(e).and_then(|io| io.raw_os_error()) {
        Some(errno) => BookFileError::new_err((errno, e.to_string())),
        None => BookFileError::new_err(e.to_string()),
    };
    with_filename(err, crate::adapter::book_error_path(e))
}

/// A failed book build.
pub fn build_error(e: &BuildError) -> PyErr {
    BookFileError::new_err(e.to_string())
}

/// A tablebase error: `errno` set when the cause is the operating system's (a missing
/// directory: ENOENT), as for books and game files.
pub fn tb_error(e: &TbError) -> PyErr {
    let err = match crate::adapter::tb_error_io(e).and_then(|io| io.raw_os_error()) {
        Some(errno) => TablebaseError::new_err((errno, e.to_string())),
        None => TablebaseError::new_err(e.to_string()),
    };
    with_filename(err, e.path())
}

/// A game file that could not be opened or read (the message names the file).
pub fn file_error(e: FileError) -> PyErr {
    let err = match e.errno {
        // As OSError(errno, message): `errno` set, as for books.
        Some(errno) => GameFileError::new_err((errno, e.message)),
        None => GameFileError::new_err(e.message),
    };
    with_filename(err, Some(&e.path))
}

/// A bad argument value (an unknown option name and the like).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// Adds the exception types to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidFenError", py.get_type::<InvalidFenError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("BookFileError", py.get_type::<BookFileError>())?;
    m.add("TablebaseError", py.get_type::<TablebaseError>())?;
    m.add("GameFileError", py.get_type::<GameFileError>())?;
    Ok(())
}
