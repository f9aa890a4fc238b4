//! [`Storage`]: where the bytes of an opened book (`.qbk`) or table (`.qtb`, `.qtr`, `.qtw`) come
//! from, read by offset with every read bounds-checked. One layer for both formats:
//!
//! - **Positioned reads** of a file ([`Storage::open`], the default): no shared file position,
//!   so many threads read one handle at once. The process keeps at most [`OPEN_FILES`] such files
//!   open at once (fewer under a low limit on open files), the least recently read closed first
//!   and opened again when next read, so that a directory of thousands of tables opens under the
//!   usual limit of 1,024 descriptors. A file replaced by rename keeps serving its old content
//!   while it stays open; once closed, reading it again finds another file there and is an error
//!   saying so (never the other file's bytes). One truncated in place gives read errors, never a
//!   crash.
//! - **A memory map** ([`Storage::map`], the one `unsafe` constructor): a little faster, but the
//!   process dies (SIGBUS) if the file is truncated while mapped, which the caller must rule out.
//! - **Bytes in memory** ([`Storage::from_bytes`]): for tests, fuzzing and data already read.
//!
//! Readers keep the format's errors; this layer reports `std::io::Error`s only (a read past the
//! end is [`std::io::ErrorKind::UnexpectedEof`]).

use crate::util::files::{open_regular, read_exact_at};
use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Files opened by [`Storage::open`] that the process keeps open at once, all storages together,
/// at most: a quarter of the process's limit on open files if that is less (but at least 8).
/// Past it the least recently read file is closed, to be opened again when next read.
pub const OPEN_FILES: usize = 256;

/// [`OPEN_FILES`], or a quarter of the process's limit on open files (`RLIMIT_NOFILE`, read
/// once) if less, and at least 8: the rest stays free for the program's own files.
fn capacity() -> usize {
    static CAPACITY: OnceLock<usize> = OnceLock::new();
    *CAPACITY.get_or_init(|| {
        #[cfg(unix)]
        {
            let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            // Safety: getrlimit writes one rlimit through a valid pointer to a local.
            if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
                let quarter = usize::try_from(limit.rlim_cur / 4).unwrap_or(usize::MAX);
                return quarter.clamp(8, OPEN_FILES);
            }
        }
        OPEN_FILES
    })
}

/// The bytes of one opened file (or buffer), read by offset. Safe to share between threads.
pub(crate) struct Storage {
    inner: Inner,
}

enum Inner {
    /// Positioned reads of a file, kept open in the process's pool of open files.
    File(Pooled),
    /// A read-only memory map.
    Mapped(memmap2::Mmap),
    /// Bytes in memory.
    Bytes(Vec<u8>),
}

impl Storage {
    /// Opens a regular file (a FIFO, device or directory is refused at once) for positioned
    /// reads.
    pub(crate) fn open(path: &Path) -> io::Result<Storage> {
        Ok(Storage { inner: Inner::File(Pooled::open(path)?) })
    }

    /// Opens a regular file through a read-only memory map. An empty file is held as empty bytes
    /// (there is nothing to map).
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified in place while the storage lives: a mapped page
    /// that no longer exists kills the process with SIGBUS, and bytes modified in place change
    /// under the reader. Replacing the file by rename (as qiku's writers do) is safe.
    pub(crate) unsafe fn map(path: &Path) -> io::Result<Storage> {
        let file = open_regular(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(Storage::from_bytes(Vec::new()));
        }
        // Safety: the caller guarantees that the file is not modified while mapped; the map is
        // read-only, and every access goes through the bounds-checked `read_at`.
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        Ok(Storage { inner: Inner::Mapped(map) })
    }

    /// Bytes already in memory.
    pub(crate) fn from_bytes(bytes: Vec<u8>) -> Storage {
        Storage { inner: Inner::Bytes(bytes) }
    }

    /// Is this an open file (where a read costs a system call, so callers may cache)?
    pub(crate) fn is_file(&self) -> bool {
        matches!(self.inner, Inner::File(_))
    }

    /// The length in bytes (of a file: its current length, asked of the system).
    pub(crate) fn len(&self) -> io::Result<u64> {
        match &self.inner {
            Inner::File(f) => Ok(f.file()?.metadata()?.len()),
            Inner::Mapped(m) => Ok(m.len() as u64),
            Inner::Bytes(v) => Ok(v.len() as u64),
        }
    }

    /// Has the file changed since it was opened (another length or modification time, or another
    /// file at its path once closed by the pool)? Bytes in memory and maps never have (a map's
    /// caller promised it).
    pub(crate) fn changed(&self) -> io::Result<bool> {
        match &self.inner {
            Inner::File(f) => Ok(Identity::of(&f.file()?.metadata()?) != f.identity),
            Inner::Mapped(_) | Inner::Bytes(_) => Ok(false),
        }
    }

    /// Fills `buf` from byte `off`; [`io::ErrorKind::UnexpectedEof`] if the storage ends first.
    pub(crate) fn read_at(&self, off: u64, buf: &mut [u8]) -> io::Result<()> {
        // No file is longer than the largest signed offset: a range past it is past the end
        // (the system would call it an invalid argument).
        if off.checked_add(buf.len() as u64).is_none_or(|end| end > i64::MAX as u64) {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        match &self.inner {
            Inner::File(f) => read_exact_at(&*f.file()?, buf, off),
            Inner::Mapped(m) => copy_from(m, off, buf),
            Inner::Bytes(v) => copy_from(v, off, buf),
        }
    }

    /// `len` bytes from byte `off`, in a new buffer.
    pub(crate) fn read_vec(&self, off: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.read_at(off, &mut buf)?;
        Ok(buf)
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if let Inner::File(f) = &self.inner {
            pool().remove(&f.id);
        }
    }
}

/// A file read through the pool: its path, and what it was when first opened, to recognize it
/// when it is opened again.
struct Pooled {
    id: u64,
    path: PathBuf,
    identity: Identity,
}

/// What tells one file from another at a path: device, inode, length and modification time.
#[derive(Debug, PartialEq, Eq)]
struct Identity {
    #[cfg(unix)]
    dev_ino: (u64, u64),
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Identity {
    fn of(meta: &Metadata) -> Identity {
        Identity {
            #[cfg(unix)]
            dev_ino: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// The process's open files: by storage id, the file and when it was last read (a tick of the
/// pool's clock).
type OpenFiles = HashMap<u64, (Arc<File>, u64)>;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The pool, locked, and its clock. A panic while it was held left nothing half-done that
/// matters: the map is only a cache of open files.
fn pool_all() -> (MutexGuard<'static, OpenFiles>, &'static AtomicU64) {
    static POOL: OnceLock<(Mutex<OpenFiles>, AtomicU64)> = OnceLock::new();
    let (map, clock) = POOL.get_or_init(Default::default);
    (map.lock().unwrap_or_else(|e| e.into_inner()), clock)
}

fn pool() -> MutexGuard<'static, OpenFiles> {
    pool_all().0
}

impl Pooled {
    fn open(path: &Path) -> io::Result<Pooled> {
        let file = open_regular(path)?;
        let identity = Identity::of(&file.metadata()?);
        let pooled = Pooled { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), path: path.to_path_buf(), identity };
        pooled.keep(Arc::new(file));
        Ok(pooled)
    }

    /// Puts `file` in the pool, closing the least recently read files past the capacity.
    fn keep(&self, file: Arc<File>) {
        let (mut open, clock) = pool_all();
        let now = clock.fetch_add(1, Ordering::Relaxed);
        let capacity = capacity();
        while open.len() >= capacity {
            let Some(oldest) = open.iter().min_by_key(|(_, (_, used))| *used).map(|(id, _)| *id) else { break };
            open.remove(&oldest);
        }
        open.insert(self.id, (file, now));
    }

    /// The open file: from the pool, or opened again and checked to be the same file.
    fn file(&self) -> io::Result<Arc<File>> {
        {
            let (mut open, clock) = pool_all();
            if let Some((file, used)) = open.get_mut(&self.id) {
                *used = clock.fetch_add(1, Ordering::Relaxed);
                return Ok(Arc::clone(file));
            }
        }
        let file = open_regular(&self.path)?;
        if Identity::of(&file.metadata()?) != self.identity {
            return Err(io::Error::other(
                "the file changed since it was opened (replaced or modified in place); open it again",
            ));
        }
        let file = Arc::new(file);
        self.keep(Arc::clone(&file));
        Ok(file)
    }
}

/// Copies `bytes[off..off + buf.len()]` into `buf`, or fails if that range is not all there.
fn copy_from(bytes: &[u8], off: u64, buf: &mut [u8]) -> io::Result<()> {
    let src = usize::try_from(off)
        .ok()
        .and_then(|o| bytes.get(o..o.checked_add(buf.len())?))
        .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
    buf.copy_from_slice(src);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_kinds(bytes: &[u8]) -> Vec<Storage> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, bytes).unwrap();
        let file = Storage::open(&path).unwrap();
        // Safety: the file is private to this test and not modified while mapped.
        let mapped = unsafe { Storage::map(&path) }.unwrap();
        vec![file, mapped, Storage::from_bytes(bytes.to_vec())]
    }

    #[test]
    fn every_kind_reads_the_same_bytes_and_refuses_past_the_end() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        for s in all_kinds(&bytes) {
            assert_eq!(s.len().unwrap(), 256);
            assert_eq!(s.read_vec(10, 3).unwrap(), [10, 11, 12]);
            assert_eq!(s.read_vec(250, 6).unwrap(), [250, 251, 252, 253, 254, 255]);
            assert_eq!(s.read_vec(256, 0).unwrap(), Vec::<u8>::new());
            for (off, len) in [(251, 6), (256, 1), (u64::MAX, 1), (u64::MAX - 1, 4)] {
                let err = s.read_vec(off, len).unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{off} + {len}");
            }
        }
    }

    /// More files than the pool keeps open: each still reads its own bytes (the closed ones are
    /// opened again), a closed file replaced by rename is refused instead of read, an open one
    /// keeps its old content, and a dropped storage leaves the pool.
    #[test]
    fn the_pool_bounds_open_files_and_refuses_a_file_replaced_while_closed() {
        let dir = tempfile::tempdir().unwrap();
        let n = capacity() + 20;
        let paths: Vec<PathBuf> = (0..n).map(|i| dir.path().join(format!("f{i}"))).collect();
        for (i, p) in paths.iter().enumerate() {
            std::fs::write(p, [i as u8; 8]).unwrap();
        }
        let storages: Vec<Storage> = paths.iter().map(|p| Storage::open(p).unwrap()).collect();
        assert!(pool().len() <= capacity(), "{} open", pool().len());
        for (i, s) in storages.iter().enumerate() {
            assert_eq!(s.read_vec(0, 8).unwrap(), [i as u8; 8], "file {i}");
            assert_eq!(s.len().unwrap(), 8);
        }
        assert!(pool().len() <= capacity(), "{} open", pool().len());
        // The first file was read longest ago: it is closed. Another file in its place is refused.
        let id = |s: &Storage| match &s.inner {
            Inner::File(f) => f.id,
            _ => unreachable!("opened as a file"),
        };
        assert!(!pool().contains_key(&id(&storages[0])));
        let replace = |p: &Path| {
            let tmp = dir.path().join("tmp");
            std::fs::write(&tmp, [0xeeu8; 8]).unwrap();
            std::fs::rename(&tmp, p).unwrap();
        };
        replace(&paths[0]);
        let err = storages[0].read_vec(0, 8).unwrap_err();
        assert!(err.to_string().contains("changed since it was opened"), "{err}");
        // The last one read is open: it keeps serving the file it opened.
        assert_eq!(storages[n - 1].read_vec(0, 8).unwrap(), [(n - 1) as u8; 8]);
        replace(&paths[n - 1]);
        assert_eq!(storages[n - 1].read_vec(0, 8).unwrap(), [(n - 1) as u8; 8]);
        let last = id(&storages[n - 1]);
        drop(storages);
        assert!(!pool().contains_key(&last));
    }

    #[test]
    fn an_empty_file_maps_to_empty_bytes_and_directories_are_refused() {
        for s in all_kinds(&[]) {
            assert_eq!(s.len().unwrap(), 0);
            assert_eq!(s.read_vec(0, 1).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(Storage::open(dir.path()).is_err());
        // Safety: nothing is mapped: a directory is refused before.
        assert!(unsafe { Storage::map(dir.path()) }.is_err());
    }
}
