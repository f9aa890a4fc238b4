//! Endgame tablebases: every Xiangqi material of up to 5 pieces solved by retrograde analysis,
//! stored one file per material, and probed by engines.
//!
//! ```no_run
//! use qiku::tablebase::{Tablebases, Wdl};
//! use qiku::Position;
//! let tb = Tablebases::open("tablebases").unwrap();
//! let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1").unwrap();
//! assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Win));
//! let dtm = tb.probe_dtm(&pos).unwrap().unwrap(); // plies, signed for the side to move
//! let best = tb.best_moves(&pos).unwrap().unwrap(); // the moves that keep the best value
//! # let _ = (dtm, best);
//! ```
//!
//! - [`material`]: material names (`KRNvKR`), canonical colour order, the table list.
//! - [`index`]: the index scheme (placements to entry numbers, mirror symmetry).
//! - [`generate`] and [`driver`]: retrograde analysis and the generation of whole sets.
//! - [`format`]: the `.qtb` file; [`probe`]: [`Tablebases`]; [`verify`]: independent checks.
//!
//! The metric is distance to mate (DTM) in plies with best play and no repetition rules:
//! positions neither side can force are draws, cycles included. See `docs/TABLEBASES.md`.

pub mod board;
pub mod driver;
pub mod format;
pub mod generate;
pub mod index;
pub mod material;
pub mod probe;
pub mod value;
pub mod verify;

pub use driver::{generate_set, GenerateOptions, TableReport};
pub use material::Material;
pub use probe::Tablebases;
pub use value::{Counts, Dtm, TbValue, Wdl};

use std::fmt;
use std::path::PathBuf;

/// Largest number of pieces (kings included) the generator accepts.
pub const MAX_PIECES: usize = 5;

/// Everything that can go wrong with tablebases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TbError {
    Io { path: PathBuf, error: String },
    /// A file that is not a valid table: the field that failed and why.
    Corrupt { path: PathBuf, field: String, detail: String },
    Material(material::MaterialError),
    /// Generation needs a smaller table that is not available.
    MissingDependency { material: String, needs: String },
    TooLarge { material: String, entries: u64 },
    /// `verify` found a value that does not follow from its successors.
    Mismatch { material: String, fen: String, stored: String, derived: String },
    /// A table of more pieces than supported was requested.
    TooManyPieces { material: String, max: usize },
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            TbError::Corrupt { path, field, detail } => {
                write!(f, "{}: invalid tablebase file ({field}: {detail})", path.display())
            }
            TbError::Material(e) => e.fmt(f),
            TbError::MissingDependency { material, needs } => {
                write!(f, "{material} needs the table {needs}, which is missing")
            }
            TbError::TooLarge { material, entries } => write!(f, "{material}: too large ({entries})"),
            TbError::Mismatch { material, fen, stored, derived } => {
                write!(f, "{material}: {fen}: stored {stored}, but its moves give {derived}")
            }
            TbError::TooManyPieces { material, max } => {
                write!(f, "{material}: more than {max} pieces are not supported")
            }
        }
    }
}

impl std::error::Error for TbError {}

impl From<material::MaterialError> for TbError {
    fn from(e: material::MaterialError) -> Self {
        TbError::Material(e)
    }
}

/// The file name of a material's table (`KRNvKR.qtb`).
pub fn file_name(material: Material) -> String {
    format!("{material}.qtb")
}
