//! Verification of `.qtw` WDL files for `qiku-tb verify`: every legal entry against the `.qtb`
//! values and, where there is one, the `.qtr` companion's (both re-derived by [`super::verify`]
//! and [`super::verify_rules`] from the moves); the comparison itself is
//! [`super::wdl::check_file`].

use super::driver::check_file;
use super::error::TbError;
use super::material::{rules_file_name, wdl_file_name, Material};
use super::value::ILLEGAL;
use super::verify::{get, TableCache};
use super::verify_rules::get_rules;
use std::path::Path;

/// Checks the WDL file of `material` (canonical) in `dir` against its `.qtb` and, where there is
/// one, its `.qtr` (without it, no entry may be [`super::wdl::RULE`]). The tables are loaded into
/// the caches `verify` uses. Returns the number of legal entries checked.
pub fn verify_wdl(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<u64, TbError> {
    let table = get(dir, material, plain)?;
    let rule = if dir.join(rules_file_name(material)).exists() {
        get_rules(dir, material, plain, rules)?
    } else {
        table.clone()
    };
    check_file(&dir.join(wdl_file_name(material)), &table, &rule)?;
    Ok(table.values.iter().filter(|&&v| v != ILLEGAL).count() as u64)
}
