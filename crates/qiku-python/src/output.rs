//! Output files written from Python (`qiku.pgn.write_training_set`'s `.npz`) by the library's
//! rules, as its own outputs are: [`check_output_place`] refuses, before any work, an output
//! that is a directory, a FIFO or a device (a symbolic link is followed) or whose directory does
//! not exist, and [`PyAtomicWriter`] writes a temporary file in the output's directory that
//! replaces it, synced, only when committed (with ordinary permissions: 0666 less the umask).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use crate::adapter::AtomicFile;
use crate::closing::{self, Closable};
use crate::{adapter, args, errors};

/// What the closed writer's errors name.
const ATOMIC_WRITER: &str = "qiku._qiku._AtomicWriter";

fn output_arg(v: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    args::path(v, "output")
}

/// `_check_output_place(output)`: raises the `OSError` a write of `output` would end with (a
/// directory: `IsADirectoryError`; no such directory: `FileNotFoundError`; a FIFO or device:
/// `OSError` with `errno` `EINVAL`), before any work.
#[pyfunction(name = "_check_output_place")]
pub fn check_output_place(py: Python<'_>, #[pyo3(from_py_with = output_arg)] output: PathBuf) -> PyResult<()> {
    py.detach(|| adapter::check_output_place(&output)).map_err(|e| errors::output_error(py, &output, &e))
}

/// `_AtomicWriter(output)`: a binary file object (`write`, `read`, `tell`, `seek`) whose content
/// replaces `output` on `commit()`; closed, or collected, without a commit, it leaves nothing.
/// (No `with` block: its one user closes it in a `finally`.)
#[pyclass(module = "qiku._qiku", name = "_AtomicWriter", frozen)]
pub struct PyAtomicWriter {
    output: PathBuf,
    file: Closable<AtomicFile>,
}

impl PyAtomicWriter {
    /// `f` on the file being written, its error an `OSError` naming the output.
    fn with<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut AtomicFile) -> std::io::Result<R> + Send,
    ) -> PyResult<R> {
        py.detach(|| self.file.with(ATOMIC_WRITER, f))?.map_err(|e| errors::output_error(py, &self.output, &e))
    }
}

#[pymethods]
impl PyAtomicWriter {
    #[new]
    fn new(py: Python<'_>, #[pyo3(from_py_with = output_arg)] output: PathBuf) -> PyResult<PyAtomicWriter> {
        let file = py.detach(|| AtomicFile::create(&output)).map_err(|e| errors::output_error(py, &output, &e))?;
        Ok(PyAtomicWriter { output, file: Closable::new(file) })
    }

    /// Writes all of `data` (bytes or any buffer); returns its length.
    fn write(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<usize> {
        let data: PyBackedBytes = match data.extract() {
            Ok(bytes) => bytes,
            Err(_) => py.get_type::<PyBytes>().call1((data,))?.extract()?,
        };
        self.with(py, |f| f.write_all(&data))?;
        Ok(data.len())
    }

    /// Reads up to `size` bytes from the position (to the end when `size` is negative); numpy
    /// takes for a file only what has a `read`.
    #[pyo3(signature = (size = -1))]
    fn read<'py>(&self, py: Python<'py>, size: i64) -> PyResult<Bound<'py, PyBytes>> {
        let mut bytes = Vec::new();
        self.with(py, |f| match u64::try_from(size) {
            Ok(size) => f.file().take(size).read_to_end(&mut bytes),
            Err(_) => f.file().read_to_end(&mut bytes),
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The position in the file.
    fn tell(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(py, |f| f.file().stream_position())
    }

    /// Moves to `offset` from the start (`whence` 0), the position (1) or the end (2).
    #[pyo3(signature = (offset, whence = 0))]
    fn seek(&self, py: Python<'_>, offset: i64, whence: i32) -> PyResult<u64> {
        let to = match whence {
            0 => SeekFrom::Start(u64::try_from(offset).map_err(|_| errors::value_error("negative seek position"))?),
            1 => SeekFrom::Current(offset),
            2 => SeekFrom::End(offset),
            _ => return Err(errors::value_error(format!("invalid whence ({whence}, should be 0, 1 or 2)"))),
        };
        self.with(py, |f| f.file().seek(to))
    }

    /// True: zip writers (`numpy.savez`) go back to fill in sizes.
    fn seekable(&self) -> bool {
        true
    }

    /// Nothing to do: writes go to the file at once.
    fn flush(&self) {}

    /// Syncs the file and renames it over the output; the writer is then closed.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        let file = self.file.take().ok_or_else(|| closing::closed(ATOMIC_WRITER))?;
        py.detach(|| file.commit()).map_err(|e| errors::output_error(py, &self.output, &e))
    }

    /// Removes the file unless it was committed; closing again does nothing.
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.file.close());
    }
}
