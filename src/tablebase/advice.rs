//! What can be said when no table answers: whether a material's table can be generated at all,
//! and the one message every surface (`qiku-tb probe`, the C API) gives for a missing table, so
//! that none of them tells the user to generate a table the generator refuses; and the one
//! message for a probe's error, with what to do next.

use super::error::{TbError, TbField};
use super::index::{entries_of, MAX_PIECES};
use super::material::{Material, RULES_EXTENSION, TABLE_EXTENSION, WDL_EXTENSION};
use std::path::Path;

/// The most entries (both sides to move) of a table the generator accepts: 2^47. The index, the
/// solver (64-bit scans, 48-bit side lists), the rule-aware pass (64-bit entry numbers past 2^32
/// entries), the writers and the file format (64-bit counts and offsets) number more; the bound
/// is the probe's 32-bit block numbers (2^32 blocks of 2^15 entries). Far beyond any table that
/// fits in memory.
pub const MAX_ENTRIES: u64 = 1 << 47;

/// Can the generator solve `material` (canonical or not)? An error naming the limit otherwise:
/// more pieces than the index scheme has slots for, or more entries than [`MAX_ENTRIES`]. Checked
/// for a whole plan before any work, by the solver, and before advising to generate a table.
pub(crate) fn check_supported(material: &Material) -> Result<(), TbError> {
    let m = material.canonical().0;
    if m.piece_count() > MAX_PIECES {
        return Err(TbError::TooManyPieces { material: m.to_string(), max: MAX_PIECES });
    }
    let entries = entries_of(&m);
    if entries > MAX_ENTRIES {
        return Err(TbError::TooManyEntries { material: m.to_string(), entries, max: MAX_ENTRIES });
    }
    Ok(())
}

/// The message for a position of `material` that no table in `dir` covers: the command that
/// generates its table, or `elsewhere` (the caller's other way out, "give the directory that holds
/// it with -d"); or, when the generator refuses that material (more than 12 pieces, or more than
/// 2^47 entries), that none can be made and why: advice to generate it could not be followed.
///
/// ```
/// use qiku::tablebase::{no_table_message, Material};
/// use std::path::Path;
///
/// let krk: Material = "KRvK".parse()?;
/// assert_eq!(
///     no_table_message(&krk, Path::new("tb"), "or open the directory that holds it"),
///     "no table for KRvK in tb (generate it with `qiku-tb generate KRvK -d tb`, or open the directory that holds it)"
/// );
/// let all: Material = "KRRNNCCPPPPPAABBvKRRNNCCPPPPPAABB".parse()?;
/// let said = no_table_message(&all, Path::new("tb"), "or open the directory that holds it");
/// assert!(said.contains("none can be made: it has 32 pieces, and a table holds at most 12"));
/// assert!(!said.contains("qiku-tb generate"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn no_table_message(material: &Material, dir: &Path, elsewhere: &str) -> String {
    let m = material.canonical().0;
    let why = match check_supported(&m) {
        Ok(()) => {
            let dir = dir.display();
            return format!(
                "no table for {m} in {dir} (generate it with `qiku-tb generate {m} -d {dir}`, {elsewhere})"
            );
        }
        Err(TbError::TooManyPieces { max, .. }) => {
            format!("it has {} pieces, and a table holds at most {max}", m.piece_count())
        }
        Err(TbError::TooManyEntries { .. }) => {
            format!("its table would have more entries than the 2^{} the generator supports", MAX_ENTRIES.ilog2())
        }
        Err(e) => e.to_string(),
    };
    format!(
        "no table for {m} in {}, and none can be made: {why} (tables answer endgames; search such a position \
         with the engine instead)",
        dir.display()
    )
}

/// What to say of a directory given for tables that can answer nothing, or `None` when it holds
/// tables: `opened` is what [`Tablebases::open`](super::Tablebases::open) gave for `dir`. A
/// directory that does not exist, or holds no table file (`.qtb`), is what a wrong path looks
/// like: the message names it, says which, and gives the command that makes tables there, then
/// `elsewhere` (the caller's other way out, "or set TablebasePath to the directory that holds
/// them"). Another error of the open is said as it is. Every program that takes a directory of
/// tables says these in the same words.
///
/// ```
/// use qiku::tablebase::{unusable_dir_message, Tablebases};
///
/// let dir = tempfile::tempdir()?;
/// let (missing, empty) = (dir.path().join("tb"), dir.path());
/// let or = "or give --tb another";
/// let said = unusable_dir_message(&missing, Tablebases::open(&missing).as_ref(), or).unwrap();
/// let m = missing.display();
/// assert_eq!(said, format!("{m}: the directory does not exist: generate tables there with `qiku-tb generate -d {m}`, {or}"));
/// let said = unusable_dir_message(empty, Tablebases::open(empty).as_ref(), or).unwrap();
/// assert!(said.starts_with(&format!("{}: it holds no table (.qtb file): generate", empty.display())), "{said}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn unusable_dir_message(
    dir: &Path,
    opened: Result<&super::Tablebases, &TbError>,
    elsewhere: &str,
) -> Option<String> {
    match opened {
        Ok(tb) if tb.tables().is_empty() => Some(no_tables_text(dir, false, elsewhere)),
        Ok(_) => None,
        Err(e) if e.no_directory() => Some(no_tables_text(dir, true, elsewhere)),
        Err(e) => Some(e.to_string()),
    }
}

/// The words of [`unusable_dir_message`] for a directory that is `missing` or holds no table.
pub(crate) fn no_tables_text(dir: &Path, missing: bool, elsewhere: &str) -> String {
    let d = dir.display();
    let what = match missing {
        true => "the directory does not exist",
        false => "it holds no table (.qtb file)",
    };
    format!("{d}: {what}: generate tables there with `qiku-tb generate -d {d}`, {elsewhere}")
}

/// What to say of `materials` without attacking pieces (dead draws, which never have a table):
/// `KvK has no attacking piece: every position is a draw, and there is no table`. Callers add
/// what it means for them (` to verify`, `; left out`).
///
/// ```
/// use qiku::tablebase::{dead_draw_message, Material};
///
/// let kk: Material = "KvK".parse()?;
/// let kak: Material = "KAvK".parse()?;
/// assert_eq!(dead_draw_message(&[kk]), "KvK has no attacking piece: every position is a draw, and there is no table");
/// assert!(dead_draw_message(&[kk, kak]).starts_with("KvK, KAvK have no attacking piece"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dead_draw_message(materials: &[Material]) -> String {
    let names: Vec<String> = materials.iter().map(|m| m.to_string()).collect();
    let have = if names.len() == 1 { "has" } else { "have" };
    format!("{} {have} no attacking piece: every position is a draw, and there is no table", names.join(", "))
}

/// A probe's error in `dir` with what to do next, as every surface (`qiku-tb probe`,
/// `qiku probe --tb`, the C API) gives it: for a missing table a capture leads to, the command that
/// generates it; for a missing `.qtr` companion, the command that makes it and the surface's way to
/// probe without the Asian rules, `without_rules` (`--rules plain`, `QIKU_RULES_PLAIN`); for a
/// damaged or unreadable file of a table, the command that makes that table's files again.
///
/// ```
/// use qiku::tablebase::{probe_error_message, TbError, TbField};
/// use std::path::Path;
///
/// let dir = Path::new("tb");
/// let damaged = TbError::Corrupt { path: dir.join("KNvK.qtb"), field: TbField::Length, detail: "truncated".into() };
/// assert_eq!(
///     probe_error_message(&damaged, dir, "--rules plain"),
///     "tb/KNvK.qtb: invalid tablebase file (length: truncated) (`qiku-tb generate KNvK -d tb` makes its files again)"
/// );
/// let missing = TbError::NoRules { path: dir.join("KRvKN.qtr") };
/// let said = probe_error_message(&missing, dir, "QIKU_RULES_PLAIN");
/// assert!(said.contains("`qiku-tb generate KRvKN -d tb`, or probe without the rules: QIKU_RULES_PLAIN"), "{said}");
/// ```
pub fn probe_error_message(err: &TbError, dir: &Path, without_rules: &str) -> String {
    let d = dir.display();
    match err {
        TbError::MissingDependency { needs, .. } => {
            format!("{err} in {d} (generate it with `qiku-tb generate {needs} -d {d}`)")
        }
        // One sentence with both ways on: make the companion, or probe without it.
        TbError::NoRules { path } => format!(
            "{}: missing, so the Asian rules' values are unknown: make it beside its table with `qiku-tb generate \
             {} -d {d}`, or probe without the rules: {without_rules}",
            path.display(),
            table_of_file(path).map_or_else(|| "MATERIAL".to_string(), |m| m.to_string())
        ),
        // Damaged behind valid checksums: `generate` would keep such a file, so the damaged
        // files are found and removed first.
        TbError::Disagree { .. } | TbError::Corrupt { field: TbField::Entry, .. } => {
            match err.path().and_then(table_of_file) {
                Some(m) => format!(
                    "{err} (`qiku-tb verify {m} -d {d}` checks its files; remove those it finds damaged and \
                     `qiku-tb generate {m} -d {d}` makes them again)"
                ),
                None => err.to_string(),
            }
        }
        _ => match err.path().and_then(table_of_file) {
            Some(m) => format!("{err} (`qiku-tb generate {m} -d {d}` makes its files again)"),
            None => err.to_string(),
        },
    }
}

/// The table a file of a tables directory belongs to (`KRvK.qtb`, `.qtr` or `.qtw`: KRvK).
fn table_of_file(path: &Path) -> Option<Material> {
    let ext = path.extension()?.to_str()?;
    let m: Material = path.file_stem()?.to_str()?.parse().ok()?;
    let ours = [TABLE_EXTENSION, RULES_EXTENSION, WDL_EXTENSION].contains(&ext);
    (ours && m.is_canonical() && m.has_attackers()).then_some(m)
}
