//! Working arrays held within a memory budget: a table too large for the budget is solved with
//! its large arrays (values, counters, frontiers, the rule-aware pass's bits) in files of a
//! scratch directory, mapped into memory, while a watcher thread keeps the process's resident
//! memory within the budget by releasing the mapped pages whenever it is exceeded. The data stays
//! in the files; a page touched again is read back from them.
//!
//! The solvers run the same code on the same arrays either way, in the same order, so a paged
//! run writes the same bytes as one in memory; only the speed differs, and by how much depends on
//! how local the accesses are. The index puts the camp pair (the kings, advisors and elephants)
//! most significant, so a move of any other piece stays within one camp pair's run of entries,
//! and a level of the solver sweeps its frontier in entry order: most accesses fall in a few
//! runs at a time.
//!
//! Like any file, the scratch files may stay in the operating system's page cache while memory is
//! free; the system writes them out and drops them under memory pressure, which the budget
//! never forces on the process's own memory.
//!
//! ```
//! use qiku::tablebase::generate::Paging;
//!
//! let dir = tempfile::tempdir()?;
//! let paging = Paging::new(1 << 30, dir.path());
//! assert_eq!(paging.budget(), 1 << 30);
//! assert_eq!("1.5G".parse::<qiku::tablebase::generate::MemorySize>()?.bytes(), 3 << 29);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::error::TbError;
use crate::util::pressure;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// A memory budget and the directory of the scratch files of the arrays that do not fit it.
///
/// ```
/// use qiku::tablebase::generate::{MemorySize, Paging};
/// use std::time::Duration;
///
/// let paging = Paging::new("2G".parse::<MemorySize>()?.bytes(), "/scratch/tb");
/// assert_eq!(paging.budget(), 2 << 30);
/// // Checkpoints every five minutes unless told otherwise.
/// assert_eq!(paging.clone().checkpoint_every(Duration::from_secs(300)), paging);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paging {
    budget: u64,
    scratch: PathBuf,
    checkpoint_every: Duration,
}

impl Paging {
    /// At most `budget` bytes resident, the rest in files under `scratch` (created when needed).
    ///
    /// ```
    /// use qiku::tablebase::generate::Paging;
    /// use std::path::Path;
    /// use std::time::Duration;
    ///
    /// let paging = Paging::new(1 << 30, "scratch");
    /// assert_eq!((paging.budget(), paging.scratch()), (1 << 30, Path::new("scratch")));
    /// assert_eq!(paging.checkpoint_interval(), Duration::from_secs(300)); // the default
    /// ```
    pub fn new(budget: u64, scratch: impl Into<PathBuf>) -> Paging {
        Paging { budget, scratch: scratch.into(), checkpoint_every: Duration::from_secs(300) }
    }

    /// Checkpoint a paged solve at the first level boundary after `every` has passed since the
    /// last checkpoint (default 5 minutes; the first comes after initialisation), so that an
    /// interrupted run resumes there. Each costs a copy of the table's working arrays.
    ///
    /// ```
    /// use qiku::tablebase::generate::Paging;
    /// use std::time::Duration;
    ///
    /// let paging = Paging::new(1 << 30, "scratch").checkpoint_every(Duration::from_secs(60));
    /// assert_eq!(paging.checkpoint_interval(), Duration::from_secs(60));
    /// ```
    pub fn checkpoint_every(mut self, every: Duration) -> Paging {
        self.checkpoint_every = every;
        self
    }

    /// The interval between checkpoints.
    ///
    /// ```
    /// use qiku::tablebase::generate::Paging;
    /// use std::time::Duration;
    ///
    /// let paging = Paging::new(1 << 30, "scratch");
    /// assert_eq!(paging.checkpoint_interval(), Duration::from_secs(300)); // the default
    /// assert_eq!(paging.checkpoint_every(Duration::ZERO).checkpoint_interval(), Duration::ZERO);
    /// ```
    pub fn checkpoint_interval(&self) -> Duration {
        self.checkpoint_every
    }

    /// The budget in bytes.
    ///
    /// ```
    /// use qiku::tablebase::generate::Paging;
    ///
    /// assert_eq!(Paging::new(512 << 20, "scratch").budget(), 512 << 20);
    /// ```
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// The scratch directory.
    ///
    /// ```
    /// use qiku::tablebase::generate::Paging;
    ///
    /// let dir = tempfile::tempdir()?;
    /// assert_eq!(Paging::new(1 << 30, dir.path()).scratch(), dir.path());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn scratch(&self) -> &Path {
        &self.scratch
    }
}

/// A size with an optional binary suffix, as `--memory` takes it: `1G`, `512M`, `1.5G`, `800000K`,
/// or bytes. `K`, `M`, `G` and `T` are powers of 1,024 (`GiB` and `GB` are read the same way).
///
/// ```
/// use qiku::tablebase::generate::MemorySize;
///
/// let size = |s: &str| s.parse::<MemorySize>().map(MemorySize::bytes);
/// assert_eq!(size("512M"), Ok(512 << 20));
/// assert_eq!(size("1.5G"), Ok(3 << 29));
/// assert_eq!(size("2GiB"), size("2GB")); // powers of 1,024 either way
/// assert_eq!(size("lots").unwrap_err(), "`lots`: not a size (such as 1G, 512M or 800000000)");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemorySize(u64);

impl MemorySize {
    /// A size of `bytes` bytes.
    ///
    /// ```
    /// use qiku::tablebase::generate::MemorySize;
    ///
    /// assert_eq!(MemorySize::from_bytes(512 << 20), "512M".parse()?);
    /// assert_eq!(MemorySize::from_bytes(1000).bytes(), 1000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: u64) -> MemorySize {
        MemorySize(bytes)
    }

    /// The size in bytes.
    ///
    /// ```
    /// use qiku::tablebase::generate::MemorySize;
    ///
    /// assert_eq!("800000K".parse::<MemorySize>()?.bytes(), 800_000 * 1024);
    /// # Ok::<(), String>(())
    /// ```
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl std::str::FromStr for MemorySize {
    type Err = String;

    fn from_str(s: &str) -> Result<MemorySize, String> {
        let t = s.trim();
        let digits = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
        let (number, unit) = t.split_at(digits);
        if number.is_empty() {
            return Err(format!("`{s}`: not a size (such as 1G, 512M or 800000000)"));
        }
        let scale: u64 = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
            "" => 1,
            "K" => 1 << 10,
            "M" => 1 << 20,
            "G" => 1 << 30,
            "T" => 1 << 40,
            _ => return Err(format!("`{s}`: unknown unit `{}` (use K, M, G or T, as in 1G or 512M)", unit.trim())),
        };
        let x: f64 = number.parse().map_err(|_| format!("`{s}`: not a size (such as 1G, 512M or 800000000)"))?;
        let bytes = x * scale as f64;
        if bytes < 1.0 {
            return Err(format!("`{s}`: a size must be at least one byte"));
        }
        if bytes >= u64::MAX as f64 {
            return Err(format!("`{s}`: too large a size (at most 16777215T)"));
        }
        Ok(MemorySize(bytes as u64))
    }
}

/// Element types of a scratch array.
///
/// # Safety
/// Implementors are plain data without drop glue, valid when every byte is zero.
pub(crate) unsafe trait Zeroed: Sized + Send + Sync + 'static {}
// Safety: integers and their atomic forms are plain data, zero when every byte is.
unsafe impl Zeroed for u16 {}
// Safety: as above.
unsafe impl Zeroed for u64 {}
// Safety: as above.
unsafe impl Zeroed for AtomicU64 {}

/// An array in memory or in a mapped scratch file (see the module doc).
pub(crate) enum Store<T: Zeroed> {
    /// On the heap.
    Heap(Vec<T>),
    /// In a scratch file.
    Mapped(Mapped<T>),
}

/// A mapped scratch file holding `len` elements, registered with the watcher under `id`.
pub(crate) struct Mapped<T: Zeroed> {
    map: memmap2::MmapMut,
    file: std::fs::File,
    len: usize,
    id: u64,
    _t: std::marker::PhantomData<T>,
}

/// A new scratch file in `dir` (made if needed), unlinked at once: nothing is left behind however
/// the process ends. An unusable directory is named with what to do.
pub(crate) fn scratch_file(dir: &std::path::Path) -> Result<std::fs::File, TbError> {
    let unusable = |e: std::io::Error| {
        let why = format!("cannot hold scratch files ({e}); give a writable scratch directory (--scratch DIR)");
        TbError::io(dir, std::io::Error::new(e.kind(), why))
    };
    std::fs::create_dir_all(dir).map_err(unusable)?;
    tempfile::tempfile_in(dir).map_err(unusable)
}

impl<T: Zeroed> Store<T> {
    /// `len` zeroed elements: in a scratch file when `paging` is given, else on the heap.
    pub(crate) fn zeroed(len: usize, paging: Option<&Paging>) -> Result<Store<T>, TbError> {
        match paging {
            None => Ok(Store::Heap(zeroed_vec(len))),
            Some(p) => Store::mapped(len, p),
        }
    }

    fn mapped(len: usize, paging: &Paging) -> Result<Store<T>, TbError> {
        let dir = &paging.scratch;
        let file = scratch_file(dir)?;
        let bytes = (len * std::mem::size_of::<T>()).max(1);
        file.set_len(bytes as u64).map_err(|e| TbError::io(dir, e))?;
        // Safety: the file is this process's own (unlinked, never truncated while mapped).
        let map = unsafe { memmap2::MmapOptions::new().len(bytes).map_mut(&file) }.map_err(|e| TbError::io(dir, e))?;
        // Pages are mapped one at a time, without the read-ahead of neighbours a sequential
        // read would get: a sweep over a whole array would otherwise map large runs between
        // two looks of the watcher. Advice only: without it the budget is kept less tightly.
        let _ = map.advise(memmap2::Advice::Random);
        let id = watcher().register(map.as_ptr() as usize, bytes, paging.budget);
        Ok(Store::Mapped(Mapped { map, file, len, id, _t: std::marker::PhantomData }))
    }

    /// Is the array in a scratch file?
    #[cfg(test)]
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, Store::Mapped(_))
    }

    /// The scratch file of a mapped array (its bytes are the array's, as the mapping is shared).
    pub(crate) fn file(&self) -> Option<&std::fs::File> {
        match self {
            Store::Heap(_) => None,
            Store::Mapped(m) => Some(&m.file),
        }
    }
}

/// `len` zeroed elements on the heap (zeroed memory: the pages are only committed as written).
fn zeroed_vec<T: Zeroed>(len: usize) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    // Safety: the capacity is `len` elements; zero bytes are a valid `T` (`Zeroed`).
    unsafe {
        std::ptr::write_bytes(v.as_mut_ptr(), 0, len);
        v.set_len(len);
    }
    v
}

impl<T: Zeroed> Deref for Store<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Store::Heap(v) => v,
            // Safety: the mapping holds `len` elements (page-aligned, so aligned for `T`), all
            // valid (`Zeroed`, written only as `T`), and lives as long as `self`.
            Store::Mapped(m) => unsafe { std::slice::from_raw_parts(m.map.as_ptr().cast::<T>(), m.len) },
        }
    }
}

impl<T: Zeroed> DerefMut for Store<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Store::Heap(v) => v,
            // Safety: as for `deref`, borrowed exclusively through `self`.
            Store::Mapped(m) => unsafe { std::slice::from_raw_parts_mut(m.map.as_mut_ptr().cast::<T>(), m.len) },
        }
    }
}

impl<T: Zeroed + Clone> Clone for Store<T> {
    /// A copy on the heap.
    fn clone(&self) -> Store<T> {
        Store::Heap(self.to_vec())
    }
}

impl<T: Zeroed + std::fmt::Debug> std::fmt::Debug for Store<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Zeroed + PartialEq> PartialEq for Store<T> {
    fn eq(&self, other: &Store<T>) -> bool {
        self[..] == other[..]
    }
}

impl<T: Zeroed> From<Vec<T>> for Store<T> {
    fn from(v: Vec<T>) -> Store<T> {
        Store::Heap(v)
    }
}

impl<T: Zeroed> Drop for Mapped<T> {
    fn drop(&mut self) {
        // Unregistered before the mapping goes, so the watcher never touches freed addresses.
        watcher().unregister(self.id);
    }
}

/// The watcher: the mapped scratch arrays of the process and the smallest budget among them.
struct Watcher {
    regions: Mutex<HashMap<u64, (usize, usize, u64)>>,
    next_id: AtomicU64,
    releases: AtomicU64,
}

/// How often the watcher reads the resident size.
const POLL: Duration = Duration::from_millis(1);

fn watcher() -> &'static Watcher {
    static WATCHER: OnceLock<&'static Watcher> = OnceLock::new();
    WATCHER.get_or_init(|| {
        let w: &'static Watcher = Box::leak(Box::new(Watcher {
            regions: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            releases: AtomicU64::new(0),
        }));
        // A thread of its own that lives as long as the process; without one the budget is
        // not watched, which costs speed, never correctness.
        let _ = std::thread::Builder::new().name("qiku-paging".into()).spawn(move || w.watch());
        w
    })
}

impl Watcher {
    fn register(&self, addr: usize, len: usize, budget: u64) -> u64 {
        let id = self.next_id.fetch_add(1, Relaxed);
        self.regions.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (addr, len, budget));
        id
    }

    fn unregister(&self, id: u64) {
        self.regions.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    fn watch(&self) {
        loop {
            let limit = {
                let regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
                regions.values().map(|r| r.2).min()
            };
            let Some(limit) = limit else {
                std::thread::sleep(Duration::from_millis(50));
                continue;
            };
            // A quarter of the budget is left for what the threads map before the next look and
            // while the pages are released (the sweeping passes wait for the release).
            if resident_bytes().is_some_and(|r| r > limit - limit / 4) {
                pressure::set_releasing(true);
                self.release();
                pressure::set_releasing(false);
            }
            std::thread::sleep(POLL);
        }
    }

    /// Releases every mapped page of every scratch array: their contents stay in the files.
    fn release(&self) {
        let regions = self.regions.lock().unwrap_or_else(|e| e.into_inner());
        for &(addr, len, _) in regions.values() {
            // Safety: the region is a live shared file mapping (unregistered, under this lock,
            // before it is unmapped); releasing its pages keeps their contents in the file, and
            // a later access reads them back, so no thread sees a change.
            unsafe {
                libc::madvise(addr as *mut libc::c_void, len, libc::MADV_DONTNEED);
            }
        }
        self.releases.fetch_add(1, Relaxed);
    }
}

/// How many times the watcher has released the mapped pages.
#[cfg(test)]
pub(crate) fn releases() -> u64 {
    watcher().releases.load(Relaxed)
}

/// The process's resident memory in bytes (Linux; `None` elsewhere).
pub(crate) fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units_and_refuse_nonsense() {
        for (s, b) in [("1G", 1u64 << 30), ("512M", 512 << 20), ("1.5G", 3 << 29), ("2048", 2048), ("1GiB", 1 << 30)] {
            assert_eq!(s.parse::<MemorySize>().map(|m| m.bytes()), Ok(b), "{s}");
        }
        for s in ["", "G", "1X", "-1G", "0"] {
            assert!(s.parse::<MemorySize>().is_err(), "{s}");
        }
        // Too large is said as such, not as too small.
        let e = "99999999999T".parse::<MemorySize>().unwrap_err();
        assert!(e.contains("too large"), "{e}");
        assert!("0.1".parse::<MemorySize>().unwrap_err().contains("at least one byte"));
    }

    #[test]
    fn a_mapped_array_keeps_its_contents_through_releases() {
        let dir = tempfile::tempdir().unwrap();
        let paging = Paging::new(1, dir.path());
        let mut a: Store<u16> = Store::zeroed(1 << 20, Some(&paging)).unwrap();
        assert!(a.is_mapped() && a.iter().all(|&v| v == 0));
        for (i, v) in a.iter_mut().enumerate() {
            *v = (i * 7) as u16;
        }
        // A budget of one byte: the watcher releases the pages at every look.
        let before = releases();
        while releases() < before + 2 {
            std::thread::sleep(POLL);
        }
        assert!(a.iter().enumerate().all(|(i, &v)| v == (i * 7) as u16));
        let copy = a.clone();
        assert!(!copy.is_mapped() && copy[..] == a[..]);
    }
}
