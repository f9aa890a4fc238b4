//! Endgame tablebases: every Xiangqi material of up to 5 pieces solved by retrograde analysis,
//! stored one file per material, and probed by engines.
//!
//! ```no_run
//! use qiku::tablebase::{Tablebases, Wdl};
//! use qiku::Position;
//! let tb = Tablebases::open("tablebases").unwrap();
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
//! assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Win));
//! let dtm = tb.probe_dtm(&pos).unwrap().unwrap(); // plies, signed for the side to move
//! let best = tb.best_moves(&pos).unwrap().unwrap(); // the moves that keep the best value
//! # let _ = (dtm, best);
//! ```
//!
//! - [`material`]: material names (`KRNvKR`), canonical color order, the table list.
//! - [`index`]: the index scheme (placements to entry numbers, mirror symmetry).
//! - [`generate`] and [`driver`]: retrograde analysis and the generation of whole sets.
//! - [`select`]: families, filters and named materials resolved into a work list; [`plan`]:
//!   its estimated memory, disk and time.
//! - [`mod@format`]: the `.qtb` file; [`probe`]: [`Tablebases`]; [`verify`]: independent checks.
//! - [`wdl`]: the `.qtw` files (win/draw/loss in 2 bits an entry) that searches probe;
//!   [`verify_wdl`]: their check against the verified values.
//!
//! The metric is distance to mate (DTM) in plies with best play and no repetition rules:
//! positions neither side can force are draws, cycles included. See `docs/TABLEBASES.md`.

#![warn(missing_docs)]

pub mod board;
pub mod driver;
mod error;
pub mod format;
pub mod generate;
pub mod index;
pub mod material;
pub mod plan;
pub mod probe;
pub mod rules;
pub mod select;
pub mod value;
pub mod verify;
pub mod verify_rules;
pub mod verify_wdl;
pub mod wdl;

pub use driver::{generate_set, GenerateOptions, TableReport};
pub use error::{TbError, TbField};
pub use index::MAX_PIECES;
pub use material::file_name;
pub use material::Material;
pub use probe::Tablebases;
pub use value::{Counts, Dtm, Rules, TbValue, Wdl};
