//! Generating, planning and verifying tables (cargo feature `generate`, on by default).
//!
//! - [`generate_set`]: solve materials and everything their captures need, writing each table's
//!   `.qtb` (distance to mate), `.qtr` (the Asian rules' values) and `.qtw` (win/draw/loss)
//!   files atomically; tables already there and intact are kept. [`GenerateOptions`] says where
//!   and how.
//! - [`Selection`]: named materials, a [`Family`] and bounds on the pieces, resolved into a work
//!   list in dependency order; [`estimate`] gives its memory, disk and time before any work.
//! - [`verify_table`], [`verify_rules`], [`verify_wdl`]: independent checks of written files,
//!   every entry against its successors through the rules core; [`verify_rules_after_plain`]
//!   after a passed [`verify_table`], where a companion that stores no change is covered by it.
//!   Each has a `_with_progress` form that reports its entries to a [`crate::Progress`] as they
//!   are checked (a large table takes minutes).
//! - [`Table`] ([`load`], [`load_rules`]): a table decoded whole, for tools that read or rewrite
//!   every entry.
//!
//! The retrograde solver itself, its board and its index arithmetic are internal.

pub use super::calibrate::{calibrate, Calibration, CALIBRATION_MATERIAL, CALIBRATION_RUNS, REFERENCE_SECONDS};
pub use super::driver::{generate_only, generate_set, not_a_table_file, GenerateOptions, TableReport};
pub use super::index::entries_of;
pub use super::load::{load, load_rules};
pub use super::paging::{MemorySize, Paging};
pub use super::plan::{
    estimate, inputs, last_uses, memory_mode, perpetual_checks, rook_pair_checks, rules_pass, MemoryMode, PlannedTable,
    Rates, RulesPass, Totals, UNCOUNTED,
};
pub use super::rules::changed;
pub use super::select::{sort_dependency_order, Family, Resolved, SelectError, Selection, DEFAULT_MAX_PIECES};
pub use super::solve::{Table, MAX_ENTRIES};
pub use super::verify::{verify_table, verify_table_with_progress, TableCache};
pub use super::verify_rules::{
    verify_rules, verify_rules_after_plain, verify_rules_after_plain_with_progress, verify_rules_with_progress,
    RulesChecked,
};
pub use super::verify_wdl::{verify_wdl, verify_wdl_with_progress};

/// The memory this process can have now, in bytes: the system's available memory, lowered to
/// what the process's control groups (a container's, a Kubernetes pod's or a Slurm job's limit)
/// have left below their limits; `None` where neither is known (outside Linux). Without
/// [`GenerateOptions::memory`], [`generate_set`] and [`generate_only`] refuse before any work a
/// table whose [`memory_mode`] within this is not in memory ([`super::TbError::MoreThanAvailable`]);
/// `qiku-tb plan` marks the same tables.
///
/// ```
/// use qiku::tablebase::generate::{available_memory, memory_mode, MemoryMode};
///
/// let krvkn = "KRvKN".parse()?;
/// if let Some(bytes) = available_memory() {
///     let fits = matches!(memory_mode(krvkn, true, bytes), MemoryMode::InMemory { .. });
///     println!("KRvKN {} in the {bytes} bytes available", if fits { "fits" } else { "does not fit" });
/// }
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn available_memory() -> Option<u64> {
    crate::util::memory::available()
}

/// The fuzzing entry point of the reader of a paged solve's checkpoint state file (the fuzz
/// target `checkpoint`, `tests/reader_fuzz.rs`): `bytes` read as the state file of a solve of a
/// table of `entries` entries, whatever solve it names, and checked against every invariant of
/// the solver. `Ok` with the bytes the decoded state encodes to (for an accepted file, the same
/// bytes), or the reason it is refused. Not an API: its signature may change with the state file.
///
/// ```
/// use qiku::tablebase::generate::fuzz_checkpoint_state;
///
/// // Bytes that are no state file are refused with the reason, never a panic.
/// let reason = fuzz_checkpoint_state(b"not a checkpoint", 2 * 45 * 90).unwrap_err();
/// assert!(reason.contains("not a checkpoint state file"), "{reason}");
/// assert!(fuzz_checkpoint_state(&[], 2 * 45 * 90).is_err());
/// ```
#[doc(hidden)]
pub fn fuzz_checkpoint_state(bytes: &[u8], entries: u64) -> Result<Vec<u8>, String> {
    super::checkpoint::fuzz_decode(bytes, &super::solve::checkpoint_shape(entries))
}
