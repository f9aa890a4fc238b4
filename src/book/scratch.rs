//! Where a book writer puts its temporary files (sorted runs spilled to disk), and how many of
//! them are read at once: shared by the merge of book records and the recent-games section.

use super::error::BookError;
use crate::util::files::job_temp_dir;
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

    /// A new spill file in `dir` (a [`Scratch::run_dir`]), its name starting with `prefix`.
    pub(crate) fn create_spill(&self, dir: &Path, prefix: &str) -> Result<tempfile::NamedTempFile, BookError> {
        tempfile::Builder::new().prefix(prefix).tempfile_in(dir).map_err(self.error("create a spill file"))
    }
}

/// At most this many runs are read at once, each an open file and a read buffer (and the
/// build's records in memory besides): more are first merged into fewer, this many at a time,
/// so that a build spilling thousands of runs needs no more open files than one spilling a few.
pub(crate) const MAX_FAN_IN: usize = 32;
