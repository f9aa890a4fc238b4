//! Disk space for `generate` and `plan`: what the tables still to make will take against what is
//! free where they go, so that a long run is not stopped by a full disk hours in.

use qiku::tablebase::format::TableFile;
use qiku::tablebase::generate::PlannedTable;
use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material};
use std::path::Path;

/// Are `material`'s files in `dir`, so that `generate` keeps them: its table, and with the
/// rule-aware pass (`rules`) its companion and WDL file too, each opening as a table of that
/// material (header, key set and block index checked; the blocks' checksums are read only by
/// `generate`, so a file damaged inside a block still counts as present here).
pub(super) fn present(dir: &Path, material: Material, rules: bool) -> bool {
    let opens = |name: String| TableFile::open(&dir.join(name)).is_ok();
    opens(file_name(material)) && (!rules || (opens(rules_file_name(material)) && opens(wdl_file_name(material))))
}

/// The plan's disk estimate of the `tables` not [`present`] in `dir` yet (those present are
/// kept, so nothing more is written for them).
pub(super) fn still_to_write<'a>(tables: impl Iterator<Item = &'a PlannedTable>, dir: &Path, rules: bool) -> u64 {
    tables.filter(|t| !present(dir, t.material, rules)).map(|t| t.disk_bytes).sum()
}

/// Bytes this user may still write on the file system that holds `dir` (or, when `dir` does not
/// exist yet, its nearest existing ancestor, where it will be created); `None` where the system
/// does not say.
pub(super) fn free_bytes(dir: &Path) -> Option<u64> {
    let existing = dir.ancestors().find(|p| !p.as_os_str().is_empty() && p.exists()).unwrap_or(Path::new("."));
    available(existing)
}

#[cfg(unix)]
fn available(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // Safety: `c_path` is a NUL-terminated string alive for the call, and `stat` points to
    // writable memory of the struct's size, which statvfs fills when it returns 0.
    if unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return None;
    }
    // Safety: statvfs returned 0, so it initialised the whole struct.
    let stat = unsafe { stat.assume_init() };
    // The field types differ between systems (u32 or u64): widen both.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    Some(u64::from(stat.f_bavail).saturating_mul(stat.f_frsize as u64))
}

#[cfg(not(unix))]
fn available(_: &Path) -> Option<u64> {
    None
}

/// The warning when the tables still to make (`need` bytes, the plan's estimate) may not fit in
/// `free` bytes on `dir`'s file system; `None` when they fit.
pub(super) fn shortfall(need: u64, free: Option<u64>, dir: &Path) -> Option<String> {
    let free = free?;
    (need > free).then(|| {
        format!(
            "the tables still to make need about {} on disk (the plan's estimate), and {} is free where {} is: \
             free some space or choose another --dir (a table already written stays if the disk fills)",
            super::bytes(need),
            super::bytes(free),
            dir.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_space_of_a_missing_directory_is_its_parents() {
        let tmp = std::env::temp_dir();
        let free = free_bytes(&tmp);
        assert!(free.is_some_and(|b| b > 0), "{free:?}");
        // A directory still to be created is judged by the file system it will be made on.
        assert!(free_bytes(&tmp.join("qiku-not-made-yet/deeper")).is_some());
    }

    #[test]
    fn only_a_shortfall_warns() {
        let dir = Path::new("tables");
        assert_eq!(shortfall(10, Some(10), dir), None);
        assert_eq!(shortfall(10, None, dir), None);
        let warning = shortfall(3 << 30, Some(1 << 30), dir).unwrap();
        assert!(warning.contains("3.0 GiB") && warning.contains("1.0 GiB") && warning.contains("tables"), "{warning}");
    }
}
