//! Reading a table file decoded whole ([`load`]) and its `.qtr` companion merged with it
//! ([`load_rules`]). The one implementation for every reader of whole tables: the generator (its
//! inputs, and a kept table or companion when a run resumes), the verifier's caches and the tools
//! (`qiku-tb stats`, the explorer server's statistics).
//!
//! Checksums only say that the bytes are those written; a file rewritten with wrong values and
//! its checksums recomputed passes them. So every whole table read is also checked against its
//! own header, at the cost of one more pass over values already decoded: no entry may hold a
//! reserved value code (a distance above what the file's width holds, which a probe refuses
//! too), and the values must give the counts the header records. A table that fails is an
//! error naming the file: the generator then makes it again (a kept one) or refuses to read
//! it (an input), and `verify` reports it, never a table made from it as correct.
//!
//! A companion that stores no change (every stored code 0, the usual case) is recognised block by
//! block, every checksum checked, without a decoded copy beside the plain table: its values are
//! the plain table itself, shared (the same [`Arc`]).

use super::error::{TbError, TbField};
use super::format::{self, TableFile};
use super::paging::{Paging, Store};
use super::solve::Table;
use super::value::{dtm_of, Counts, MAX_DTM_U16, MAX_DTM_U8};
use crate::util::checksum::{fold_checksum, FNV_OFFSET};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// Opens a table file and decodes it whole, checking every checksum, that no entry holds a
/// reserved value code and that the values give the counts in the header.
///
/// ```
/// use qiku::tablebase::format::{self, TableFile};
/// use qiku::tablebase::generate::{generate_set, load, GenerateOptions};
/// use qiku::tablebase::{Material, TbField, TbError};
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse::<Material>()?], &GenerateOptions::new(dir.path()))?;
/// let path = dir.path().join("KRvK.qtb");
/// let mut table = load(&path)?;
/// // One value changed and the file written again with the header's counts as they were:
/// // every checksum is right, the counts are not.
/// let counts = TableFile::open(&path)?.header().counts;
/// let won = table.codes().iter().position(|&c| c == format::code(1)).expect("a mate in 1");
/// table.codes_mut()[won] = format::DRAW;
/// format::write_atomic(&path, &format::encode(table.material(), table.codes(), &counts, true)?)?;
/// let err = load(&path).err().expect("refused");
/// assert!(matches!(err, TbError::Corrupt { field: TbField::Counts, .. }), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(path: &Path) -> Result<Table, TbError> {
    load_in(path, None).map(|(table, _)| table)
}

/// [`load`], the values in a scratch file when `paging` is given; with the table's counts (the
/// header's, which its values were checked to give).
pub(crate) fn load_in(path: &Path, paging: Option<&Paging>) -> Result<(Table, [Counts; 2]), TbError> {
    let file = TableFile::open(path)?;
    let mut values = Store::zeroed((2 * file.layout.per_side) as usize, paging)?;
    file.decode_into(&mut values)?;
    let table = Table { layout: file.layout.clone(), values };
    let counts = table.counts();
    check_values(&file, &table.values, &counts)?;
    Ok((table, counts))
}

/// Are `values`, decoded from `file`, with their `counts` (made by [`Table::counts`]), those the
/// header describes? A reserved code is named first (with its entry), then counts that differ.
fn check_values(file: &TableFile, values: &[u16], counts: &[Counts; 2]) -> Result<(), TbError> {
    let width_max = if file.header.width == 1 { MAX_DTM_U8 } else { MAX_DTM_U16 };
    // The counts hold the largest distance of any code: only then is a code looked for.
    if counts.iter().any(|c| c.max_dtm > u64::from(width_max)) {
        let reserved = |c: u16| dtm_of(c).is_some_and(|d| d > width_max);
        if let Some(i) = values.par_iter().position_first(|&c| reserved(c)) {
            let at = file.setup(i as u64).map_or(String::new(), |s| format!(" ({})", s.to_fen()));
            return Err(TbError::Corrupt {
                path: file.path.clone(),
                field: TbField::Entry,
                detail: format!("reserved value code {} at entry {i}{at}", values[i]),
            });
        }
    }
    file.check_counts(counts)
}

/// Opens a companion file (`.qtr`) and merges it with its decoded table `plain`: the Asian rules'
/// code of every entry. Checks every checksum, the entry count, that it changes only drawn
/// entries, and as [`load`] checks a table, that the merged values hold no reserved code and give
/// the counts in the companion's header. A companion that stores no change gives `plain` itself
/// (the same allocation, no copy); one that changes entries gives a merged table of its own.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, load, load_rules, GenerateOptions};
/// use qiku::tablebase::Material;
/// use std::sync::Arc;
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse::<Material>()?], &GenerateOptions::new(dir.path()))?;
/// let plain = Arc::new(load(&dir.path().join("KRvK.qtb"))?);
/// // The rules decide nothing in KRvK: the companion stores no change, and shares the values.
/// let rules = load_rules(&dir.path().join("KRvK.qtr"), &plain)?;
/// assert!(Arc::ptr_eq(&plain, &rules));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_rules(path: &Path, plain: &Arc<Table>) -> Result<Arc<Table>, TbError> {
    load_rules_in(path, plain, &plain.counts(), None).map(|(table, _)| table)
}

/// [`load_rules`] of the table `plain` whose counts are `plain_counts`, the merged values (of a
/// companion that stores changes) in a scratch file when `paging` is given; with the merged
/// values' counts (the companion header's, which they were checked to give). The stored
/// changes are decoded into the array that becomes the merged table, and merged there: no
/// second array.
pub(crate) fn load_rules_in(
    path: &Path,
    plain: &Arc<Table>,
    plain_counts: &[Counts; 2],
    paging: Option<&Paging>,
) -> Result<(Arc<Table>, [Counts; 2]), TbError> {
    let file = TableFile::open(path)?;
    if file.entries() != plain.values.len() as u64 {
        return Err(TbError::Corrupt {
            path: path.to_path_buf(),
            field: TbField::Entries,
            detail: format!("{} entries, the table has {}", file.entries(), plain.values.len()),
        });
    }
    if stores_nothing(&file)? {
        // The plain values, which must give the companion's counts too.
        check_values(&file, &plain.values, plain_counts)?;
        return Ok((Arc::clone(plain), *plain_counts));
    }
    let mut values = Store::zeroed(plain.values.len(), paging)?;
    file.decode_into(&mut values)?;
    const CHUNK: usize = 1 << 16;
    let decided = |(c, delta): (usize, &[u16])| {
        let from = c * CHUNK;
        let plain = &plain.values[from..from + delta.len()];
        delta.iter().zip(plain).position(|(&d, &p)| d != 0 && p != super::value::DRAW).map(|i| from + i)
    };
    if let Some(i) = values.par_chunks(CHUNK).enumerate().find_map_first(decided) {
        return Err(TbError::Corrupt {
            path: path.to_path_buf(),
            field: TbField::Entry,
            detail: format!("entry {i} changes a decided value"),
        });
    }
    values.par_chunks_mut(CHUNK).enumerate().for_each(|(c, delta)| {
        crate::util::pressure::wait_for_release();
        let from = c * CHUNK;
        format::merge_rules_into(delta, &plain.values[from..from + delta.len()]);
    });
    let merged = Table { layout: plain.layout.clone(), values };
    let counts = merged.counts();
    check_values(&file, &merged.values, &counts)?;
    Ok((Arc::new(merged), counts))
}

/// Is every code the companion `file` stores 0 (the plain values), with every block's checksum and
/// the payload checksum right? Read one block at a time, so that no decoded copy of the table is
/// made beside the plain one, and stopping at the first block that stores a change. A damaged
/// block is an error (the first in file order, as [`TableFile::decode_all`] would name it); a
/// wrong payload checksum gives `false`, for the full decode to report.
fn stores_nothing(file: &TableFile) -> Result<bool, TbError> {
    let first = (0..file.blocks().len()).into_par_iter().find_map_first(|i| match file.read_block(i) {
        Ok(raw) if raw.iter().all(|&b| b == 0) => None,
        Ok(_) => Some(Ok(())),
        Err(e) => Some(Err(e)),
    });
    match first {
        Some(Err(e)) => Err(e),
        Some(Ok(())) => Ok(false),
        None => {
            let payload = file.blocks().iter().fold(FNV_OFFSET, |h, b| fold_checksum(h, b.checksum));
            Ok(payload == file.header.payload_checksum)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::bands::{Band, BandKind};
    use crate::tablebase::driver::{generate_set, GenerateOptions};
    use crate::tablebase::format::{encode_rules, write_atomic};
    use crate::tablebase::material::{file_name, rules_file_name, Material};
    use crate::tablebase::value::{code, DRAW};

    /// KRvKA (two blocks) with its companion, which stores no change, and its plain table.
    fn krka() -> (tempfile::TempDir, Material, Arc<Table>) {
        let dir = tempfile::tempdir().unwrap();
        let m: Material = "KRvKA".parse().unwrap();
        generate_set(&[m], &GenerateOptions::new(dir.path())).unwrap();
        let plain = Arc::new(load(&dir.path().join(file_name(m))).unwrap());
        (dir, m, plain)
    }

    /// Rewrites the companion of `m` with `rule`'s codes (valid checksums and counts).
    fn write_companion(dir: &Path, m: Material, plain: &Table, rule: &Table) {
        let bands = [Band { start: 2, kind: BandKind::Forced }];
        let bytes = encode_rules(m, &plain.values, &rule.values, &rule.counts(), &bands, true).unwrap();
        write_atomic(&dir.join(rules_file_name(m)), &bytes).unwrap();
    }

    #[test]
    fn a_companion_storing_nothing_shares_the_plain_table() {
        let (dir, m, plain) = krka();
        let rule = load_rules(&dir.path().join(rules_file_name(m)), &plain).unwrap();
        assert!(Arc::ptr_eq(&plain, &rule));
        assert_eq!(Arc::strong_count(&plain), 2);
    }

    #[test]
    fn a_changed_companion_merges_into_a_table_of_its_own() {
        let (dir, m, plain) = krka();
        // Two drawn entries, one in the first block and one in the last, stored as decided.
        let draws: Vec<usize> = plain.values.iter().enumerate().filter(|&(_, &v)| v == DRAW).map(|(i, _)| i).collect();
        let (first, last) = (draws[0], draws[draws.len() - 1]);
        assert!(last / format::BLOCK_ENTRIES as usize > first / format::BLOCK_ENTRIES as usize);
        let mut changed = Table { layout: plain.layout.clone(), values: plain.values.clone() };
        changed.values[first] = code(9);
        changed.values[last] = code(10);
        write_companion(dir.path(), m, &plain, &changed);
        let rule = load_rules(&dir.path().join(rules_file_name(m)), &plain).unwrap();
        assert!(!Arc::ptr_eq(&plain, &rule));
        assert_eq!(rule.values, changed.values);
        assert_eq!(rule.counts(), changed.counts());
        // The plain table is untouched.
        assert_eq!(plain.values[first], DRAW);
        // Paged (a budget of one byte: every page released at each look), from paged plain
        // values: the same merged codes, in a scratch file.
        let scratch = tempfile::tempdir().unwrap();
        let paging = Paging::new(1, scratch.path());
        let (paged_plain, counts) = load_in(&dir.path().join(file_name(m)), Some(&paging)).unwrap();
        let paged_plain = Arc::new(paged_plain);
        assert!(paged_plain.values.is_mapped() && paged_plain.values == plain.values);
        let rules_path = dir.path().join(rules_file_name(m));
        let (paged, _) = load_rules_in(&rules_path, &paged_plain, &counts, Some(&paging)).unwrap();
        assert!(paged.values.is_mapped() && paged.values == changed.values);
    }

    #[test]
    fn a_companion_changing_a_decided_value_or_damaged_is_refused() {
        let (dir, m, plain) = krka();
        let path = dir.path().join(rules_file_name(m));
        let decided = plain.values.iter().position(|&v| v != DRAW && v != crate::tablebase::value::ILLEGAL).unwrap();
        let mut wrong = Table { layout: plain.layout.clone(), values: plain.values.clone() };
        wrong.values[decided] = code(99);
        write_companion(dir.path(), m, &plain, &wrong);
        let e = load_rules(&path, &plain).err().expect("refused");
        assert!(e.to_string().contains(&format!("entry {decided} changes a decided value")), "{e}");
        // An unchanged companion with a byte of its last block flipped: the block is named.
        generate_set(&[m], &GenerateOptions::new(dir.path())).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[n - 1] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        let e = load_rules(&path, &plain).err().expect("refused");
        assert!(matches!(e, TbError::Corrupt { field: TbField::Block(_), .. }), "{e}");
    }
}
