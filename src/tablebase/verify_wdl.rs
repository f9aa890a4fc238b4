//! Verification of `.qtw` WDL files for `qiku-tb verify`: every legal entry against the `.qtb`
//! values and, where there is one, the `.qtr` companion's (both re-derived by [`super::verify`]
//! and [`super::verify_rules`] from the moves), each entry's code given by
//! [`super::wdl::code_of`]. The file is read one block at a time, never decoded whole.

use super::error::TbError;
use super::material::{rules_file_name, wdl_file_name, Material};
use super::value::ILLEGAL;
use super::verify::{get, TableCache};
use super::verify_rules::get_rules;
use super::wdl_check::check_file;
use crate::util::progress::{NoProgress, Progress};
use std::path::Path;

/// Checks the WDL file of `material` (canonical) in `dir` against its `.qtb` and its `.qtr`
/// companion (a WDL file is only written beside one: without it the check fails naming the
/// missing `.qtr`, not the intact `.qtw`). The tables are loaded into the caches `verify` uses.
/// Returns the number of legal entries checked. [`verify_wdl_with_progress`] reports how far it
/// has come.
pub fn verify_wdl(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<u64, TbError> {
    verify_wdl_with_progress(dir, material, plain, rules, &NoProgress)
}

/// [`verify_wdl`], reporting to `progress` while the file's entries are compared: one phase,
/// labelled `verifying MATERIAL (WDL)`, of the table's entries (advanced a block at a time),
/// started once the tables are loaded and finished when every entry agreed (a check that fails
/// ends without [`Progress::finish`]). Nothing is printed.
pub fn verify_wdl_with_progress(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    let table = get(dir, material, plain)?;
    let rules_path = dir.join(rules_file_name(material));
    if !rules_path.exists() {
        return Err(TbError::NoRules { path: rules_path });
    }
    let rule = get_rules(dir, material, plain, rules)?;
    progress.start(&format!("verifying {material} (WDL)"), table.values.len() as u64);
    check_file(&dir.join(wdl_file_name(material)), &table, &table.counts(), &rule, progress)?;
    progress.finish();
    Ok(table.values.iter().filter(|&&v| v != ILLEGAL).count() as u64)
}
