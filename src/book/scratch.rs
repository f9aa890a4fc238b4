//! Where a book writer puts its temporary files (sorted runs spilled to disk), and how many of
//! them are read at once: shared by the merge of book records and the recent-games section.

use super::error::BookError;
use crate::util::files::job_temp_dir;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Where a writer puts its temporary files, named in their errors: the book being written and
/// the directory of the temporary files.
#[derive(Clone, Debug)]
pub(crate) struct Scratch {
    /// The book being written.
    pub(crate) output: PathBuf,
    /// The directory the temporary files go in.
    pub(crate) dir: PathBuf,
}

impl Scratch {
    /// The error of `op` on a temporary file.
    pub(crate) fn error(&self, op: &'static str) -> impl Fn(std::io::Error) -> BookError + '_ {
        move |source| BookError::Spill { output: self.output.clone(), dir: self.dir.clone(), op, source }
    }

    /// The private directory for runs inside [`Scratch::dir`], kept in `slot`: made on first
    /// use, and removed with the runs when the slot is dropped.
    pub(crate) fn run_dir(&self, slot: &mut Option<tempfile::TempDir>) -> Result<PathBuf, BookError> {
        if slot.is_none() {
            let dir =
                job_temp_dir(&self.dir, "book-spill").map_err(self.error("create a directory for temporary files"))?;
            *slot = Some(dir);
        }
        Ok(slot.as_ref().map(|d| d.path().to_path_buf()).unwrap_or_default())
    }

    /// Writes `records` to a new spill file in `dir` (a [`Scratch::run_dir`]), its name starting
    /// with `prefix`, through a write buffer of `buffer` bytes.
    pub(crate) fn write_records<const N: usize>(
        &self,
        dir: &Path,
        prefix: &str,
        buffer: usize,
        records: impl Iterator<Item = Result<[u8; N], BookError>>,
    ) -> Result<Records<N>, BookError> {
        let file =
            tempfile::Builder::new().prefix(prefix).tempfile_in(dir).map_err(self.error("create a spill file"))?;
        let mut out = BufWriter::with_capacity(buffer, file.as_file());
        let mut len = 0u64;
        for r in records {
            out.write_all(&r?).map_err(self.error("write a spill file"))?;
            len += 1;
        }
        out.flush().map_err(self.error("write a spill file"))?;
        drop(out);
        Ok(Records { path: file.into_temp_path(), len })
    }
}

/// A spill file of `N`-byte records, nothing else: a random name in the build's private
/// temporary directory, closed while it waits (it holds no open file), removed when dropped.
pub(crate) struct Records<const N: usize> {
    /// The file.
    pub(crate) path: tempfile::TempPath,
    /// How many records it holds.
    pub(crate) len: u64,
}

impl<const N: usize> Records<N> {
    /// Streams the records back through a read buffer of `buffer` bytes.
    pub(crate) fn read(
        &self,
        scratch: &Scratch,
        buffer: usize,
    ) -> Result<impl Iterator<Item = Result<[u8; N], BookError>> + 'static, BookError> {
        let file = std::fs::File::open(&self.path).map_err(scratch.error("open a spill file"))?;
        let mut input = BufReader::with_capacity(buffer, file);
        let mut left = self.len;
        let scratch = scratch.clone();
        Ok(std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let mut b = [0u8; N];
            Some(input.read_exact(&mut b).map(|()| b).map_err(scratch.error("read a spill file")))
        }))
    }
}

/// At most this many runs are read at once, each an open file and a read buffer (and the
/// build's records in memory besides): more are first merged into fewer, this many at a time,
/// so that a build spilling thousands of runs needs no more open files than one spilling a few.
pub(crate) const MAX_FAN_IN: usize = 32;
