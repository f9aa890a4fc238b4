//! [`Storage`]: where the bytes of an opened book (`.qbk`) or table (`.qtb`, `.qtr`, `.qtw`) come
//! from, read by offset with every read bounds-checked. One layer for both formats:
//!
//! - **Positioned reads** of an open file ([`Storage::open`], the default): no shared file
//!   position, so many threads read one handle at once. A file replaced by rename keeps serving
//!   its old content; one truncated in place gives read errors, never a crash.
//! - **A memory map** ([`Storage::map`], the one `unsafe` constructor): a little faster, but the
//!   process dies (SIGBUS) if the file is truncated while mapped, which the caller must rule out.
//! - **Bytes in memory** ([`Storage::from_bytes`]): for tests, fuzzing and data already read.
//!
//! Readers keep the format's errors; this layer reports `std::io::Error`s only (a read past the
//! end is [`std::io::ErrorKind::UnexpectedEof`]).

use crate::util::files::{open_regular, read_exact_at};
use std::fs::File;
use std::io;
use std::path::Path;

/// The bytes of one opened file (or buffer), read by offset. Safe to share between threads.
pub(crate) struct Storage {
    inner: Inner,
}

enum Inner {
    /// Positioned reads of an open file.
    File(File),
    /// A read-only memory map.
    Mapped(memmap2::Mmap),
    /// Bytes in memory.
    Bytes(Vec<u8>),
}

impl Storage {
    /// Opens a regular file (a FIFO, device or directory is refused at once) for positioned
    /// reads.
    pub(crate) fn open(path: &Path) -> io::Result<Storage> {
        Ok(Storage { inner: Inner::File(open_regular(path)?) })
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
            Inner::File(f) => Ok(f.metadata()?.len()),
            Inner::Mapped(m) => Ok(m.len() as u64),
            Inner::Bytes(v) => Ok(v.len() as u64),
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
            Inner::File(f) => read_exact_at(f, buf, off),
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
