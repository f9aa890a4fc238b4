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
///
/// ```
/// use qiku::tablebase::format::ILLEGAL;
/// use qiku::tablebase::generate::{generate_set, load, verify_wdl, GenerateOptions, TableCache};
/// use qiku::tablebase::{Material, TbError};
///
/// let dir = tempfile::tempdir()?;
/// let krk: Material = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
/// let legal = load(&dir.path().join("KRvK.qtb"))?.codes().iter().filter(|&&c| c != ILLEGAL).count();
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// assert_eq!(verify_wdl(dir.path(), krk, &mut plain, &mut rules)?, legal as u64);
/// // Without its `.qtr` companion the check names the missing file.
/// std::fs::remove_file(dir.path().join("KRvK.qtr"))?;
/// let err = verify_wdl(dir.path(), krk, &mut TableCache::new(), &mut TableCache::new()).unwrap_err();
/// assert!(matches!(err, TbError::NoRules { .. }), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use qiku::tablebase::generate::{generate_set, verify_wdl_with_progress, GenerateOptions, TableCache};
/// # use qiku::Progress;
/// # use std::sync::Mutex;
/// # #[derive(Default)]
/// # struct Phases(Mutex<Vec<(String, u64)>>);
/// # impl Progress for Phases {
/// #     fn start(&self, label: &str, total: u64) {
/// #         self.0.lock().unwrap().push((label.to_string(), total));
/// #     }
/// #     fn advance(&self, _n: u64) {}
/// #     fn finish(&self) {}
/// # }
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let phases = Phases::default(); // a `Progress` that records each phase's label and size
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// verify_wdl_with_progress(dir.path(), "KRvK".parse()?, &mut plain, &mut rules, &phases)?;
/// assert_eq!(phases.0.into_inner()?, [("verifying KRvK (WDL)".to_string(), 2 * 45 * 90)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
