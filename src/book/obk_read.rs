//! Opening an `.obk` for reading without writing a byte beside it.
//!
//! SQLite opening a database read-only still writes in its directory when the database is in
//! WAL mode (a `-shm` index and a `-wal` file), and fails there when the directory is
//! read-only ("attempt to write a readonly database"). A book to import is only read, so it is
//! opened `immutable` (a URI parameter: no locks, no journal, no files beside it). That reads the
//! main file alone, which is the whole database unless a `-wal` or `-journal` file beside it
//! holds changes not yet written into it (a program has the book open, or was stopped while
//! writing): then the database and that file are copied into a private directory beside the
//! output, where SQLite reads them as it would in place, and the copy is removed afterwards.

use super::ObkError;
use crate::util::files::{job_temp_dir, parent_dir};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// A database opened for reading; the copy it was opened from, if one, is removed when dropped
/// (after the connection: fields drop in order).
pub(super) struct ReadOnly {
    pub(super) conn: Connection,
    _copy: Option<tempfile::TempDir>,
}

/// Opens `input` for reading only, writing nothing beside it; a copy, when one is needed (see
/// the module documentation), goes into a private directory beside `output`.
pub(super) fn open(input: &Path, output: &Path) -> Result<ReadOnly, ObkError> {
    let pending: Vec<PathBuf> =
        ["-wal", "-journal"].iter().map(|suffix| with_suffix(input, suffix)).filter(|p| non_empty(p)).collect();
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let sql_err = |source| ObkError::Sqlite { path: input.to_path_buf(), op: "open the database", source };
    if pending.is_empty() {
        let conn = Connection::open_with_flags(immutable_uri(input), flags).map_err(sql_err)?;
        return Ok(ReadOnly { conn, _copy: None });
    }
    let dir = parent_dir(output);
    let io = |op| move |source| ObkError::Io { path: input.to_path_buf(), op, source };
    let copy = job_temp_dir(dir, "obk-import").map_err(io("copy the database (it has changes in a file beside it)"))?;
    let db = copy.path().join("book.obk");
    std::fs::copy(input, &db).map_err(io("copy the database (it has changes in a file beside it)"))?;
    for side in &pending {
        let name = side.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let suffix = if name.ends_with("-wal") { "-wal" } else { "-journal" };
        std::fs::copy(side, with_suffix(&db, suffix))
            .map_err(io("copy the database's changes (the -wal or -journal file beside it)"))?;
    }
    // The copy is written by SQLite's recovery, in the private directory only.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&db, flags).map_err(sql_err)?;
    Ok(ReadOnly { conn, _copy: Some(copy) })
}

/// `path` with `suffix` appended to its file name (`book.obk-wal`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether `path` is a file with something in it.
fn non_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

/// The SQLite URI that opens `path` immutable: `file:` and the path, every byte but unreserved
/// ASCII and `/` percent-encoded, then `?immutable=1`.
pub(super) fn immutable_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file:");
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_sqlite_would_read_as_syntax() {
        assert_eq!(immutable_uri(Path::new("books/a b?#%.obk")), "file:books/a%20b%3F%23%25.obk?immutable=1");
        assert_eq!(immutable_uri(Path::new("/tmp/x.obk")), "file:/tmp/x.obk?immutable=1");
    }
}
