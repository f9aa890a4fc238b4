//! The check of a `.qtw` WDL file against the values it was made from, shared by `qiku-tb
//! verify` (against values re-derived from the moves) and by generation (a kept file on resume,
//! against the values just solved or loaded). The file is read one block at a time, never decoded
//! whole.

use super::error::{TbError, TbField};
use super::format::TableFile;
use super::index::MAX_PIECES;
use super::solve::Table;
use super::value::Counts;
use super::wdl::code_of;
use crate::core::Color;
use crate::util::checksum::{fold_checksum, FNV_OFFSET};
use crate::util::progress::Progress;
use rayon::prelude::*;
use std::path::Path;

/// Checks the WDL file at `path` against its tables' codes: every block's checksum and the
/// payload checksum, the entry count, the header's counts (those of the plain table, given as
/// `plain_counts`) and every
/// legal entry's code. The blocks are read one at a time, so that no decoded copy of the file is
/// held beside the tables. Each block's entries are reported done to `progress` (advanced, in a
/// phase the caller starts) once compared.
pub(super) fn check_file(
    path: &Path,
    plain: &Table,
    plain_counts: &[Counts; 2],
    rule: &Table,
    progress: &dyn Progress,
) -> Result<(), TbError> {
    let file = TableFile::open(path)?;
    let corrupt = |field, detail| TbError::Corrupt { path: path.to_path_buf(), field, detail };
    let total = file.entries() as usize;
    let n = plain.values.len().min(rule.values.len());
    let per_block = file.header.block_entries as usize;
    // The first entry of each block whose stored code is not the tables' (with the code).
    let first_bad = (0..file.blocks().len())
        .into_par_iter()
        .map(|b| {
            let raw = file.read_block(b)?;
            let start = b * per_block;
            let entries = start..(start + per_block).min(total).min(n);
            let len = entries.len() as u64;
            for i in entries {
                let stored = file
                    .code_in(&raw, i - start)
                    .ok_or_else(|| corrupt(TbField::Block(b), "fewer codes than entries".into()))?;
                if code_of(plain.values[i], rule.values[i]).is_some_and(|c| u16::from(c) != stored) {
                    return Ok(Some((i, stored)));
                }
            }
            progress.advance(len);
            Ok(None)
        })
        .collect::<Result<Vec<Option<(usize, u16)>>, TbError>>()?;
    let payload = file.blocks().iter().fold(FNV_OFFSET, |h, b| fold_checksum(h, b.checksum));
    if payload != file.header.payload_checksum {
        return Err(corrupt(TbField::PayloadChecksum, "values damaged".into()));
    }
    if total != plain.values.len() || rule.values.len() != plain.values.len() {
        return Err(corrupt(TbField::Entries, format!("{total} entries, the table has {}", plain.values.len())));
    }
    // The header's counts are the plain table's.
    file.check_counts(plain_counts)?;
    if let Some((i, stored)) = first_bad.into_iter().flatten().next() {
        let per = plain.layout.per_side as usize;
        let mut sq = [0u8; MAX_PIECES];
        plain.layout.unrank((i % per) as u64, &mut sq);
        let turn = if i < per { Color::Red } else { Color::Black };
        let fen = plain.layout.setup(&sq, turn).to_fen();
        let name = |c: u16| ["draw", "win", "loss", "draw decided by the Asian rules"][(c & 3) as usize];
        let expect = code_of(plain.values[i], rule.values[i]).map_or(0, u16::from);
        return Err(corrupt(
            TbField::Entry,
            format!("entry {i} ({fen}): stored {}, the tables give {}", name(stored), name(expect)),
        ));
    }
    Ok(())
}
