//! Verification of `.qtw` WDL files for `qiku-tb verify`: every legal entry against the `.qtb`
//! values and, where there is one, the `.qtr` companion's (both re-derived by [`super::verify`]
//! and [`super::verify_rules`] from the moves), each entry's code given by
//! [`super::wdl::code_of`]. The file is read one block at a time, never decoded whole.

use super::error::{TbError, TbField};
use super::format::TableFile;
use super::index::MAX_PIECES;
use super::material::{rules_file_name, wdl_file_name, Material};
use super::solve::Table;
use super::value::ILLEGAL;
use super::verify::{get, TableCache};
use super::verify_rules::get_rules;
use super::wdl::code_of;
use crate::core::Color;
use crate::util::checksum::{fold_checksum, FNV_OFFSET};
use rayon::prelude::*;
use std::path::Path;

/// Checks the WDL file of `material` (canonical) in `dir` against its `.qtb` and its `.qtr`
/// companion (a WDL file is only written beside one: without it the check fails naming the
/// missing `.qtr`, not the intact `.qtw`). The tables are loaded into the caches `verify` uses.
/// Returns the number of legal entries checked.
pub fn verify_wdl(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<u64, TbError> {
    let table = get(dir, material, plain)?;
    let rules_path = dir.join(rules_file_name(material));
    if !rules_path.exists() {
        return Err(TbError::NoRules { path: rules_path });
    }
    let rule = get_rules(dir, material, plain, rules)?;
    check_file(&dir.join(wdl_file_name(material)), &table, &rule)?;
    Ok(table.values.iter().filter(|&&v| v != ILLEGAL).count() as u64)
}

/// Checks the WDL file at `path` against its tables' codes: every block's checksum and the
/// payload checksum, the entry count, the header's counts (those of the plain table) and every
/// legal entry's code. The blocks are read one at a time, so that no decoded copy of the file is
/// held beside the tables. Generation checks a kept WDL file with it too.
pub(super) fn check_file(path: &Path, plain: &Table, rule: &Table) -> Result<(), TbError> {
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
            for i in start..(start + per_block).min(total).min(n) {
                let stored = file
                    .code_in(&raw, i - start)
                    .ok_or_else(|| corrupt(TbField::Block(b), "fewer codes than entries".into()))?;
                if code_of(plain.values[i], rule.values[i]).is_some_and(|c| u16::from(c) != stored) {
                    return Ok(Some((i, stored)));
                }
            }
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
    file.check_counts(&plain.counts())?;
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
