//! Where a book writer puts its temporary files (sorted runs spilled to disk), and how many of
//! them are read at once: shared by the merge of book records and the recent-games section.

use super::error::BookError;
use crate::util::files::job_temp_dir;
use std::path::PathBuf;

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

    /// A private directory for runs inside [`Scratch::dir`], removed with them when dropped.
    pub(crate) fn run_dir(&self) -> Result<tempfile::TempDir, BookError> {
        job_temp_dir(&self.dir, "book-spill").map_err(self.error("create a directory for temporary files"))
    }
}

/// At most this many runs are read at once, each an open file and a read buffer (and the
/// build's records in memory besides): more are first merged into fewer, this many at a time,
/// so that a build spilling thousands of runs needs no more open files than one spilling a few.
pub(crate) const MAX_FAN_IN: usize = 32;
