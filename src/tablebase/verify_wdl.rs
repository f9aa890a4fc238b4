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
    check_file(&dir.join(wdl_file_name(material)), &table, &table.counts(), &rule)?;
    Ok(table.values.iter().filter(|&&v| v != ILLEGAL).count() as u64)
}
