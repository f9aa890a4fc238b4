//! `qiku._qiku`: the native module behind the `qiku` Python package (Xiangqi boards and moves in
//! every notation, game files, opening books, endgame tablebases, the engine, training data and
//! the Renju judge). The Python package (`python/qiku`) re-exports it with docstrings and type
//! stubs; `docs/PYTHON.md` describes the API.
//!
//! Every call into the qiku library goes through [`adapter`]. Long calls release the GIL, and
//! Ctrl-C interrupts them ([`interrupt`]); every class is `Send + Sync` (frozen, with a lock where
//! it has state).

pub mod adapter;
pub mod args;
pub mod board;
pub mod book;
pub mod closing;
pub mod engine;
pub mod errors;
pub mod games;
pub mod interrupt;
pub mod output;
pub mod pickling;
pub mod planes;
pub mod renju;
pub mod svg;
pub mod tables;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _qiku(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    // A RAYON_NUM_THREADS out of range would start that many worker threads at the first
    // parallel call (the command-line programs refuse it): the library's pool gets one thread per
    // CPU instead, and a warning says so.
    if let Err(e) = adapter::check_worker_threads_env() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        let note = match rayon::ThreadPoolBuilder::new().num_threads(n).build_global() {
            Ok(()) => format!("{e}; qiku uses {n} worker threads, one per CPU"),
            Err(_) => format!("{e}; qiku's worker threads had already started"),
        };
        let text = std::ffi::CString::new(note).unwrap_or_default();
        PyErr::warn(m.py(), &m.py().get_type::<pyo3::exceptions::PyRuntimeWarning>(), &text, 1)?;
    }
    m.add_class::<board::PyBoard>()?;
    m.add_class::<board::PyMove>()?;
    m.add_class::<board::PyOutcome>()?;
    m.add_function(wrap_pyfunction!(board::_board_from_moves, m)?)?;
    m.add_function(wrap_pyfunction!(board::_legal_moves_rust, m)?)?;
    m.add_function(wrap_pyfunction!(planes::planes_batch, m)?)?;
    m.add_class::<book::PyBook>()?;
    m.add_class::<book::PyBookEntry>()?;
    m.add_function(wrap_pyfunction!(book::build_book, m)?)?;
    m.add_function(wrap_pyfunction!(args::text_path, m)?)?;
    m.add_class::<tables::PyTablebases>()?;
    m.add_class::<tables::PyTbProbe>()?;
    m.add_class::<tables::PyTbMove>()?;
    m.add_class::<tables::PyTbVerdict>()?;
    m.add_function(wrap_pyfunction!(tables::generate_tablebases, m)?)?;
    m.add_class::<engine::PyEngine>()?;
    m.add_class::<engine::PyAnalysis>()?;
    m.add_class::<games::PyGame>()?;
    m.add_class::<games::PyGameReader>()?;
    m.add_class::<games::PySample>()?;
    m.add_class::<games::PySampleReader>()?;
    m.add_class::<games::PyBatchReader>()?;
    m.add_function(wrap_pyfunction!(games::read_games, m)?)?;
    m.add_function(wrap_pyfunction!(games::positions, m)?)?;
    m.add_function(wrap_pyfunction!(games::batches, m)?)?;
    m.add_function(wrap_pyfunction!(games::training_set, m)?)?;
    m.add_function(wrap_pyfunction!(games::count_games, m)?)?;
    m.add_function(wrap_pyfunction!(output::check_output_place, m)?)?;
    m.add_class::<output::PyAtomicWriter>()?;
    m.add("RenjuBoard", m.py().get_type::<renju::PyRenjuBoard>())?;
    m.add_class::<renju::PyJudgement>()?;
    m.add_function(wrap_pyfunction!(renju::judge, m)?)?;
    m.add("STARTING_FEN", adapter::START_FEN)?;
    Ok(())
}
