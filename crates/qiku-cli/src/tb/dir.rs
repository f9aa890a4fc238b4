//! The tables directory of a `qiku-tb` command (`-d DIR`): opened with every unusable file named,
//! and a directory that is not there said to be missing, with the command that makes tables there,
//! rather than read as a directory without the table asked for.

use qiku::tablebase::{Material, Tablebases, TbError};
use std::path::Path;

/// The error when `dir` does not exist (`None` when it does, or cannot be told), in the words every
/// program that takes a directory of tables uses.
pub(super) fn no_directory(dir: &Path) -> Option<String> {
    let Err(source) = std::fs::metadata(dir) else { return None };
    let elsewhere = "or give -d the directory that holds them";
    let missing = TbError::Io { path: dir.to_path_buf(), source };
    missing.no_directory().then(|| qiku::tablebase::unusable_dir_message(dir, Err(&missing), elsewhere)).flatten()
}

/// The error for a material without a table in `dir`, with the command that makes it.
pub(super) fn missing_table(material: Material, dir: &Path) -> String {
    qiku::tablebase::no_table_message(&material, dir, "or give the directory that holds it with -d")
}

/// Opens a directory of tables.
pub(super) fn open_dir(dir: &Path) -> Result<Tablebases, String> {
    if let Some(e) = no_directory(dir) {
        return Err(e);
    }
    Tablebases::open(dir).map_err(|e| match e.not_a_directory() {
        true => format!("{e}; give -d a directory of tables (.qtb files), such as `qiku-tb generate -d DIR` writes"),
        false => format!("{e} (generate tables with `qiku-tb generate -d {}`)", dir.display()),
    })
}

/// Opens a directory of tables for a command about the whole directory (`info`, `verify`): every
/// file that cannot be used is named on stderr.
pub(super) fn open_tb(dir: &Path) -> Result<Tablebases, String> {
    let tb = open_dir(dir)?;
    for problem in tb.problems() {
        eprintln!("qiku-tb: {problem}");
    }
    Ok(tb)
}
