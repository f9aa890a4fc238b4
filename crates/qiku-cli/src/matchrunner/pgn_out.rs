//! The match's `--pgn` file: games added as they end, kept in game order, with what an earlier
//! match wrote there kept in front of them.
//!
//! Each finished game costs one write of at most the games still waiting for an earlier one
//! (fewer than `--concurrency`): the file holds, after the earlier content, every game whose
//! predecessors have all ended, then the games that ended before a predecessor, in game order.
//! When the missing game ends, it is written where the waiting games began, and they after it:
//! one positioned write, longer than what it covers, so a kill at any moment leaves a file of
//! whole games (the kernel finishes a write to a regular file once begun). A failed write (a
//! full disk) cuts the file back to the games in order before it, and the error stops the match.
//! The file is synced once, when the match ends. Rewriting the whole file after every game, as
//! before, made a match's writing grow with the square of its games and synced every time.

use crate::ordered::InOrder;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Why the `--pgn` file cannot be opened or written.
pub type PgnError = (PathBuf, io::Error);

/// The `--pgn` file of a match.
#[derive(Debug)]
pub struct PgnOut {
    path: PathBuf,
    /// Opened at the first game: a match that ends no game leaves no file and no change.
    file: Option<File>,
    /// Bytes of the file in order: the earlier content and the games with no game missing before.
    settled: u64,
    /// Newlines still owed after the earlier content so that it ends with a blank line.
    separator: &'static str,
    /// The games written after `settled`, by game index: those in order from the next game on,
    /// then those that wait for an earlier one.
    order: InOrder<String>,
}

impl PgnOut {
    /// The file at `path`, checked: absent, or games an earlier match wrote (UTF-8 text, not a
    /// book, table or compressed file), which stay in front of this match's.
    pub fn open(path: &Path) -> Result<PgnOut, PgnError> {
        use std::io::Read;
        let fail = |error| (path.to_path_buf(), error);
        let invalid = |what: String| fail(io::Error::new(io::ErrorKind::InvalidData, what));
        let mut bytes = Vec::new();
        match qiku::fs::open_regular(path) {
            Ok(mut file) => file.read_to_end(&mut bytes).map_err(fail)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => 0,
            Err(e) => return Err(fail(e)),
        };
        // A file of a known other kind (a book, a table, compressed games) is named as what it is.
        if let Some(what) = crate::overwrite::foreign_kind(path, crate::overwrite::Writes::Pgn) {
            return Err(invalid(format!(
                "it is {what}, not games a match wrote (its games would follow them); choose another --pgn"
            )));
        }
        if std::str::from_utf8(&bytes).is_err() {
            return Err(invalid(
                "it holds text that is not UTF-8, not games a match wrote (its games would follow them); choose \
                 another --pgn"
                    .into(),
            ));
        }
        let separator = if bytes.iter().all(u8::is_ascii_whitespace) || bytes.ends_with(b"\n\n") {
            ""
        } else if bytes.ends_with(b"\n") {
            "\n"
        } else {
            "\n\n"
        };
        Ok(PgnOut {
            path: path.to_path_buf(),
            file: None,
            settled: bytes.len() as u64,
            separator,
            order: InOrder::starting_at(0),
        })
    }

    /// Adds game `index` (counted from 0 in this match), whose PGN text is `text`.
    pub fn add(&mut self, index: usize, text: String) -> Result<(), PgnError> {
        self.order.insert(index, text);
        let mut tail = String::from(self.separator);
        tail.extend(self.order.held().map(String::as_str));
        if let Err(e) = self.write_tail(tail.as_bytes()) {
            // Back to the games in order before this write; the match stops on the error.
            if let Some(f) = &self.file {
                let _ = f.set_len(self.settled);
            }
            return Err((self.path.clone(), e));
        }
        let in_order = self.order.take_ready();
        if !in_order.is_empty() {
            self.settled += (self.separator.len() + in_order.iter().map(String::len).sum::<usize>()) as u64;
            self.separator = "";
        }
        Ok(())
    }

    /// Syncs what was written to the disk (once, at the end of the match).
    pub fn finish(&self) -> Result<(), PgnError> {
        match &self.file {
            Some(f) => f.sync_data().map_err(|e| (self.path.clone(), e)),
            None => Ok(()),
        }
    }

    fn write_tail(&mut self, tail: &[u8]) -> io::Result<()> {
        if self.file.is_none() {
            self.file = Some(open_for_games(&self.path)?);
        }
        let file = self.file.as_ref().ok_or_else(|| io::Error::other("the file is not open"))?;
        write_all_at(file, tail, self.settled)
    }
}

/// Opens `path` for writing without truncating it, only if it is (or becomes) a regular file;
/// never blocks on a FIFO put there since the check.
fn open_for_games(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "it is no longer a regular file"));
    }
    Ok(file)
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(i: usize) -> String {
        format!("[Round \"{}\"]\n\n1. H2-E2 *\n\n", i + 1)
    }

    #[test]
    fn games_ending_out_of_order_are_kept_in_game_order_at_every_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.pgn");
        std::fs::write(&path, "[Round \"0\"]\n\n1. H2-E2 *").unwrap();
        let mut out = PgnOut::open(&path).unwrap();
        let earlier = "[Round \"0\"]\n\n1. H2-E2 *\n\n";
        let mut ended = Vec::new();
        for i in [1, 3, 0, 2, 5, 4, 7] {
            out.add(i, game(i)).unwrap();
            ended.push(i);
            ended.sort();
            let want: String = std::iter::once(earlier.to_string()).chain(ended.iter().map(|&g| game(g))).collect();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), want, "after game {i}");
        }
        out.finish().unwrap();
        assert_eq!((out.order.next(), out.order.held().count()), (6, 1));
    }

    #[test]
    fn no_game_no_file_and_earlier_content_is_kept_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.pgn");
        let out = PgnOut::open(&path).unwrap();
        out.finish().unwrap();
        assert!(!path.exists());
        for (before, sep) in [("", ""), ("  \n", ""), ("*\n", "\n"), ("*\n\n", "")] {
            std::fs::write(&path, before).unwrap();
            let mut out = PgnOut::open(&path).unwrap();
            out.add(0, game(0)).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{before}{sep}{}", game(0)));
        }
    }

    #[test]
    fn what_is_not_games_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.pgn");
        std::fs::write(&path, b"\xff\xfe games").unwrap();
        let (p, e) = PgnOut::open(&path).unwrap_err();
        assert_eq!(p, path);
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"\xff\xfe games");
        assert!(PgnOut::open(dir.path()).is_err());
    }
}
