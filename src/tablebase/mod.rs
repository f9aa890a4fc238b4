//! Endgame tablebases: Xiangqi materials solved by retrograde analysis (every material of up to 5
//! pieces, and families of up to 12 pieces with defenders: see `docs/TABLEBASES.md`), stored one
//! file per material, and probed by engines and tools.
//!
//! [`Tablebases`] opens a directory of tables and answers win/draw/loss, distance to mate and
//! the best moves of a position; [`Material`] names a table (`KRNvKR`). The values are
//! [`Wdl`], [`Dtm`] and [`TbValue`]; [`Rules`] chooses between plain values (every cycle a draw)
//! and the Asian rules (perpetual check loses), the default of every probe; [`Verdict`] is a
//! value with its rules and whether only they decide it, as every tool prints it.
//!
//! ```
//! # #[cfg(feature = "generate")] {
//! use qiku::tablebase::{generate::{generate_set, GenerateOptions}, Material, Tablebases, Wdl};
//! use qiku::Position;
//!
//! let dir = tempfile::tempdir().unwrap();
//! generate_set(&["KRvK".parse::<Material>().unwrap()], &GenerateOptions::new(dir.path())).unwrap();
//! let tb = Tablebases::open(dir.path()).unwrap();
//! let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
//! assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Win));
//! let dtm = tb.probe_dtm(&pos).unwrap().unwrap(); // plies, signed for the side to move
//! assert!(dtm.0 > 0);
//! let best = tb.best_moves(&pos).unwrap().unwrap(); // the moves that keep the best value
//! assert!(!best.is_empty());
//! # }
//! ```
//!
//! - Reading (always built): [`Tablebases`], [`Material`], the values, [`TbError`]; for tools
//!   that inspect or write the files themselves, [`mod@format`] (header, blocks, value codes) and
//!   [`wdl`] (the 2-bit codes of the `.qtw` files).
//! - `generate` (cargo feature `generate`, on by default): the solver and everything around
//!   it: generating sets of tables, selecting families, planning memory, disk and time, and the
//!   independent verification of table files. A program that only probes can leave it out.
//!
//! The metric is distance to mate (DTM) in plies with best play and no repetition rules:
//! positions neither side can force are draws, cycles included; the `.qtr` companions hold the
//! values under the Asian rules. See `docs/TABLEBASES.md`.

#![warn(missing_docs)]

mod advice;
mod bands;
mod error;
pub mod format;
mod index;
mod material;
mod probe;
mod value;
pub mod wdl;

#[cfg(feature = "generate")]
mod bits;
#[cfg(feature = "generate")]
mod board;
#[cfg(feature = "generate")]
mod calibrate;
#[cfg(feature = "generate")]
mod checkpoint;
#[cfg(feature = "generate")]
mod driver;
#[cfg(feature = "generate")]
pub mod generate;
#[cfg(feature = "generate")]
mod load;
#[cfg(feature = "generate")]
mod paging;
#[cfg(feature = "generate")]
mod plan;
#[cfg(feature = "generate")]
mod rules;
#[cfg(feature = "generate")]
mod select;
#[cfg(feature = "generate")]
mod solve;
#[cfg(feature = "generate")]
mod time_left;
#[cfg(feature = "generate")]
mod verify;
#[cfg(feature = "generate")]
mod verify_rules;
#[cfg(feature = "generate")]
mod verify_wdl;
#[cfg(feature = "generate")]
mod wdl_check;

pub(crate) use advice::no_tables_text;
pub use advice::{dead_draw_message, no_table_message, probe_error_message, unusable_dir_message};
pub use error::{TbError, TbField};
pub use index::MAX_PIECES;
pub use material::{file_name, is_table_file_name, rules_file_name, wdl_file_name, Material, MaterialError};
pub use probe::{TableInfo, Tablebases};
pub use value::{highest_line_rank, Counts, Dtm, Rules, TbValue, Verdict, Wdl};
