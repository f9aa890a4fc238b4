//! Boards as NumPy arrays for machine learning: 15 planes of 10 x 9 bytes, one per kind of
//! piece and color plus one for the side to move.

use numpy::ndarray::Array3;
use numpy::{PyArray3, PyArray4};
use pyo3::prelude::*;

use crate::adapter::{Color, Position, Square};

/// Planes per position: 7 piece kinds of each color, and the side to move.
pub const PLANES: usize = 15;
/// Bytes of one position's planes.
pub const PLANE_BYTES: usize = PLANES * 90;

/// Writes the planes of `pos` into `out` (`PLANE_BYTES` long, zeroed by the caller): plane
/// `color * 7 + role` has a 1 where such a piece stands, at `rank * 9 + file`; plane 14 is all
/// ones when red is to move.
pub fn fill(pos: &Position, out: &mut [u8]) {
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            out[(p.color.index() * 7 + p.role.index()) * 90 + sq.index()] = 1;
        }
    }
    if pos.turn() == Color::Red {
        out[14 * 90..15 * 90].fill(1);
    }
}

/// One position's planes as a `(15, 10, 9)` array.
pub fn board_planes<'py>(py: Python<'py>, pos: &Position) -> Bound<'py, PyArray3<u8>> {
    let mut buf = vec![0u8; PLANE_BYTES];
    fill(pos, &mut buf);
    // The shape matches the buffer's length by construction.
    let arr = Array3::from_shape_vec((PLANES, 10, 9), buf).unwrap_or_else(|_| Array3::zeros((PLANES, 10, 9)));
    PyArray3::from_owned_array(py, arr)
}

/// Many positions' planes, `(n, 15, 10, 9)`, from a buffer of `n * PLANE_BYTES` bytes.
pub fn batch_array(py: Python<'_>, buf: Vec<u8>) -> Bound<'_, PyArray4<u8>> {
    let n = buf.len() / PLANE_BYTES;
    let arr = numpy::ndarray::Array4::from_shape_vec((n, PLANES, 10, 9), buf)
        .unwrap_or_else(|_| numpy::ndarray::Array4::zeros((0, PLANES, 10, 9)));
    PyArray4::from_owned_array(py, arr)
}

/// `planes_batch(boards)`: the planes of many boards (or FENs) as one `(n, 15, 10, 9)` `uint8`
/// array, filled with the GIL released.
#[pyfunction]
pub fn planes_batch<'py>(py: Python<'py>, boards: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray4<u8>>> {
    if boards.is_instance_of::<pyo3::types::PyString>() {
        // A string is iterable, but by characters: one FEN goes in a list.
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "planes_batch takes an iterable of qiku.Board or FEN strings, not one string: put a FEN in a list",
        ));
    }
    let mut positions = Vec::new();
    for item in boards.try_iter()? {
        let item = item?;
        if let Ok(b) = item.cast::<crate::board::PyBoard>() {
            positions.push(b.get().position());
        } else {
            let fen: String = item.extract().map_err(|_| {
                pyo3::exceptions::PyTypeError::new_err("planes_batch takes an iterable of qiku.Board or FEN strings")
            })?;
            positions.push(crate::adapter::parse_position(&fen).map_err(crate::errors::fen_error)?);
        }
    }
    let buf = py.detach(move || {
        let mut buf = vec![0u8; positions.len() * PLANE_BYTES];
        for (pos, out) in positions.iter().zip(buf.chunks_exact_mut(PLANE_BYTES)) {
            fill(pos, out);
        }
        buf
    });
    Ok(batch_array(py, buf))
}
