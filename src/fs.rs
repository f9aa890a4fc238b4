//! Files as every qiku reader and writer handles them, for programs built on the library that
//! want the same guarantees: inputs opened only when they are regular files (a FIFO or a device
//! is refused at once instead of blocking), outputs written atomically (a temporary file beside
//! the target, renamed over it only when complete), and the check that an output does not name
//! one of the inputs (through any path, link or relative name), whole reads bounded by a size
//! ([`read_capped`]); and [`file_kind`], what a file appears to be by its first bytes (a book, a
//! PGN file of games, an SQLite database, ...).
//!
//! ```
//! use qiku::fs::{open_regular, same_file, AtomicFile};
//! use std::io::Read;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("notes.txt");
//! AtomicFile::write(&path, b"h2e2 h9g7")?;
//! let mut text = String::new();
//! open_regular(&path)?.read_to_string(&mut text)?;
//! assert_eq!(text, "h2e2 h9g7");
//! // The same file through another spelling of its path.
//! assert!(same_file(&path, &dir.path().join(".").join("notes.txt")));
//! // A directory is not a regular file.
//! assert!(open_regular(dir.path()).is_err());
//! # Ok::<(), std::io::Error>(())
//! ```

pub use crate::util::files::{
    check_output_place, open_regular, other_machines_temp_files, parent_dir, read_capped, same_file, AtomicFile,
    CappedRead,
};
pub use crate::util::kind::{file_kind, FileKind};
