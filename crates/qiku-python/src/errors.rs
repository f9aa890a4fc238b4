//! The Python exceptions the module raises, and the conversions from qiku's errors. Bad input
//! text (a FEN, a move, a point) is a `ValueError`; files that cannot be opened or read raise
//! subclasses of `OSError`. Every message is the library's own.

use std::ffi::CStr;
use std::io;
use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::PyTypeInfo;

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

/// An `OSError` subclass `E` as Python makes one for a file: `E(errno, message, filename)`, so
/// that `errno` is the system's error number when that is the cause (`None` otherwise),
/// `strerror` the library's message (naming the file and the cause) and `filename` the file as a
/// `str` (`None` when the error is about no file). `str()` of it is the message (see
/// [`register`]).
fn os_error<E: PyTypeInfo>(errno: Option<i32>, message: String, path: Option<&Path>) -> PyErr {
    PyErr::new::<E, _>((errno, message, path.map(|p| p.as_os_str().to_os_string())))
}

/// A book error: `OSError` for the file's problems, with `errno` when the system's error is
/// the cause and `filename` the book's path.
pub fn book_error(e: &BookError) -> PyErr {
    let errno = crate::adapter::book_error_io(e).and_then(|io| io.raw_os_error());
    os_error::<BookFileError>(errno, e.to_string(), crate::adapter::book_error_path(e))
}

/// A failed book build: `filename` the input or output concerned, `errno` when the system's
/// error is the cause (a missing input: ENOENT), as for a book opened.
pub fn build_error(e: &BuildError) -> PyErr {
    let errno = crate::adapter::build_error_io(e).and_then(|io| io.raw_os_error());
    os_error::<BookFileError>(errno, e.to_string(), crate::adapter::build_error_path(e))
}

/// A tablebase error: `errno` set when the cause is the operating system's (a missing
/// directory: ENOENT), as for books and game files.
pub fn tb_error(e: &TbError) -> PyErr {
    let errno = crate::adapter::tb_error_io(e).and_then(|io| io.raw_os_error());
    os_error::<TablebaseError>(errno, e.to_string(), e.path())
}

/// A probe's error in the tables of `dir`, with what to do next in the words of the command line
/// and the C API (`qiku::tablebase::probe_error_message`): the command that makes a missing or
/// damaged table, or for a missing `.qtr` companion, the way to probe without the rules.
pub fn probe_error(e: &TbError, dir: &Path) -> PyErr {
    let errno = crate::adapter::tb_error_io(e).and_then(|io| io.raw_os_error());
    let said = crate::adapter::probe_error_message(e, dir, "rules=\"plain\"");
    os_error::<TablebaseError>(errno, said, e.path())
}

/// A directory given for tables that can answer nothing (it does not exist, or holds no table
/// file): `said` is the library's message for it, `errno` the system's error if there is one.
pub fn tables_dir_error(errno: Option<i32>, said: String, dir: &Path) -> PyErr {
    os_error::<TablebaseError>(errno, said, Some(dir))
}

/// An error of `generate_tablebases`: [`tb_error`], in Python's words where the library's name
/// the command line's `--memory`.
pub fn generate_error(e: &TbError) -> PyErr {
    let mib = |bytes: &u64| format!("{:.0} MiB", *bytes as f64 / (1 << 20) as f64);
    let message = match e {
        TbError::MoreThanAvailable { material, needs, available } => format!(
            "{material}: needs about {} of memory to be generated in memory, and only {} is available here \
             (free memory, or what this process's control group has left below its limit); give memory=SIZE \
             of at most that (such as memory=\"1G\") to page its working arrays to scratch files (slower, the \
             same files), or generate it where more memory is free",
            mib(needs),
            mib(available)
        ),
        TbError::OverBudget { material, budget, needs } => format!(
            "{material}: cannot be generated within memory={}: it needs about {} (in memory, or with its \
             working arrays paged to scratch files, whichever needs less); give memory= at least that",
            budget,
            mib(needs)
        ),
        e => return tb_error(e),
    };
    os_error::<TablebaseError>(None, message, None)
}

/// A game file that could not be opened or read (the message names the file).
pub fn file_error(e: FileError) -> PyErr {
    os_error::<GameFileError>(e.errno, e.message, Some(&e.path))
}

/// An output file that cannot be written: `OSError(errno, "OUTPUT: why", OUTPUT)`, which Python
/// makes the subclass of its `errno` (`IsADirectoryError`, `FileNotFoundError`,
/// `PermissionError`). The library's refusals of a place (a directory, a FIFO, no such directory)
/// carry no system error: their `errno` is the one of their kind (a FIFO or device: `EINVAL`).
pub fn output_error(py: Python<'_>, output: &Path, e: &io::Error) -> PyErr {
    let name = match e.kind() {
        io::ErrorKind::IsADirectory => Some("EISDIR"),
        io::ErrorKind::NotFound => Some("ENOENT"),
        io::ErrorKind::PermissionDenied => Some("EACCES"),
        io::ErrorKind::ReadOnlyFilesystem => Some("EROFS"),
        io::ErrorKind::InvalidInput => Some("EINVAL"),
        _ => None,
    };
    let errno = e.raw_os_error().or_else(|| py.import("errno").ok()?.getattr(name?).ok()?.extract().ok());
    os_error::<PyOSError>(errno, format!("{}: {e}", output.display()), Some(output))
}

/// A bad argument value (an unknown option name and the like).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// `str()` of the file errors. `OSError`'s own is "[Errno N] strerror: 'filename'" whenever
/// `filename` is set, which for an error without a system cause reads "[Errno None] ...", and
/// repeats the file the message already names: the file errors print the library's message (their
/// `strerror`) alone, and `OSError`'s form only when made without one (`BookFileError("text")`).
const MESSAGE_STR: &CStr = c"def __str__(self):
    \"\"\"The message: what went wrong, naming the file.\"\"\"
    if isinstance(self.strerror, str):
        return self.strerror
    return OSError.__str__(self)
";

/// Adds the exception types to the module, the file errors with their `str()`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidFenError", py.get_type::<InvalidFenError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("BookFileError", py.get_type::<BookFileError>())?;
    m.add("TablebaseError", py.get_type::<TablebaseError>())?;
    m.add("GameFileError", py.get_type::<GameFileError>())?;
    let scope = PyDict::new(py);
    // The function's `__module__`, as the classes': the native module.
    scope.set_item("__name__", m.name()?)?;
    py.run(MESSAGE_STR, Some(&scope), None)?;
    let message_str = scope.get_item("__str__")?.ok_or_else(|| value_error("__str__ was not defined"))?;
    for file_error in [py.get_type::<BookFileError>(), py.get_type::<TablebaseError>(), py.get_type::<GameFileError>()]
    {
        file_error.setattr("__str__", &message_str)?;
    }
    Ok(())
}
