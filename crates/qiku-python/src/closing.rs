//! Handles on open files (books, tables, game readers) that close, as Python's files do:
//! `close()`, or the end of a `with` block, lets the files go at once rather than when the
//! handle is collected; using the handle afterwards raises `ValueError`.
//!
//! Each class writes its own `close`, `closed`, `__enter__` and `__exit__` (four one-line bodies
//! over [`Closable`]). They cannot come from one place: a class has a single `#[pymethods]`
//! block unless PyO3's `multiple-pymethods` feature (and its `inventory` dependency) is on, and
//! `#[pymethods]` refuses a macro called inside the block. A `macro_rules!` wrapping the
//! whole block could append them, but rustfmt leaves a brace macro's body unformatted, which
//! would cost the classes' other methods more than the four short ones save.

use std::sync::Mutex;

use pyo3::prelude::*;

use crate::errors;

/// What a handle holds until it is closed.
pub struct Closable<T>(Mutex<Option<T>>);

impl<T> Closable<T> {
    /// An open handle on `value`.
    pub fn new(value: T) -> Closable<T> {
        Closable(Mutex::new(Some(value)))
    }

    /// Lets the value go (closing what it holds open); closing again does nothing.
    pub fn close(&self) {
        drop(self.take());
    }

    /// Closes the handle, giving its value to the caller (`None` when it was closed already).
    pub fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// `f` on the value, locked; a `ValueError` naming `class` once the handle is closed.
    pub fn with<R>(&self, class: &str, f: impl FnOnce(&mut T) -> R) -> PyResult<R> {
        match self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            Some(value) => Ok(f(value)),
            None => Err(closed(class)),
        }
    }
}

/// The error of a closed handle, worded as Python's for a closed file.
pub fn closed(class: &str) -> PyErr {
    errors::value_error(format!("I/O operation on a closed {class}"))
}
