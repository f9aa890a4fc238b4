//! What a file appears to be, judged by its first bytes ([`file_kind`]): so that a program about
//! to replace a file can tell the book it is rebuilding from a user's games, and so that an error
//! about a file given in the wrong place can say what the file is and what to do with it.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

/// How many bytes of a file [`file_kind`] looks at.
const SNIFF_LEN: u64 = 4096;

/// What a file appears to be, judged by its first bytes ([`file_kind`]). The names of the
/// variants say what the content looks like, never what the file's name says.
///
/// ```
/// use qiku::fs::{file_kind, FileKind};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.qbk"); // the name does not matter
/// std::fs::write(&games, "[Event \"club\"]\n\n1. h2e2 h9g7 *\n")?;
/// assert_eq!(file_kind(&games)?, FileKind::Pgn);
/// assert_eq!(FileKind::Pgn.to_string(), "a PGN file of games");
/// std::fs::write(&games, "")?;
/// assert_eq!(file_kind(&games)?, FileKind::Empty);
/// let missing = file_kind(&dir.path().join("missing")).unwrap_err();
/// assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKind {
    /// A file of no bytes.
    Empty,
    /// A qiku opening book (`.qbk`: it starts with the `QIKUBOOK` magic).
    QikuBook,
    /// A qiku endgame table (`.qtb`).
    QikuTable,
    /// An SQLite database: BHGUI `.obk` opening books are, and so are many programs' files.
    Sqlite,
    /// An XQF game file (XQStudio).
    Xqf,
    /// zstd-compressed data (`.pgn.zst` games, for one).
    Zstd,
    /// Data compressed or archived by another tool (gzip, zip, bzip2, xz, 7-Zip, RAR).
    Archive,
    /// Text with PGN tag pairs (`[Event "..."]`): games.
    Pgn,
    /// Other text: move lists, notes.
    Text,
    /// Binary data of no kind named above.
    Binary,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Empty => "an empty file",
            FileKind::QikuBook => "a qiku opening book (.qbk)",
            FileKind::QikuTable => "a qiku endgame table (.qtb)",
            FileKind::Sqlite => "an SQLite database",
            FileKind::Xqf => "an XQF game file",
            FileKind::Zstd => "a zstd-compressed file",
            FileKind::Archive => "a compressed file or archive",
            FileKind::Pgn => "a PGN file of games",
            FileKind::Text => "a text file",
            FileKind::Binary => "binary data",
        })
    }
}

/// Signatures of data packed by other tools, with what each is (bzip2 is told by its block
/// header, in [`packed_by`]).
const PACKED: [(&[u8], &str); 5] = [
    (b"\x1f\x8b", "gzip-compressed (.gz)"),
    (b"PK\x03\x04", "a zip archive"),
    (b"\xfd7zXZ\x00", "xz-compressed (.xz)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
];

/// Which other tool packed `head` (the start of a file), in words (`"gzip-compressed (.gz)"`),
/// if one did: every signature holds bytes text never has.
pub(crate) fn packed_by(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"BZh") && head.get(4..10) == Some(b"1AY&SY".as_slice()) {
        return Some("bzip2-compressed (.bz2)");
    }
    PACKED.iter().find(|(magic, _)| head.starts_with(magic)).map(|&(_, what)| what)
}

/// What the bytes `head` (the start of a file, up to a few KiB) and a file of `len` bytes look
/// like.
pub(crate) fn kind_of_bytes(head: &[u8], len: u64) -> FileKind {
    if head.is_empty() {
        return FileKind::Empty;
    }
    if head.starts_with(b"QIKUBOOK") {
        return FileKind::QikuBook;
    }
    if head.starts_with(b"QIKU-TB\x1a") {
        return FileKind::QikuTable;
    }
    if head.starts_with(b"SQLite format 3\0") {
        return FileKind::Sqlite;
    }
    if head.starts_with(b"\x28\xb5\x2f\xfd") {
        return FileKind::Zstd;
    }
    if packed_by(head).is_some() {
        return FileKind::Archive;
    }
    // An XQF file has a 1024-byte header that starts with `XQ`; text that starts so is shorter
    // or has no NUL bytes (an XQF header has many).
    if head.starts_with(b"XQ") && len >= 1024 && head.contains(&0) {
        return FileKind::Xqf;
    }
    let utf16 = head.starts_with(b"\xff\xfe") || head.starts_with(b"\xfe\xff");
    if head.contains(&0) && !utf16 {
        return FileKind::Binary;
    }
    // PGN: a line that opens with a tag pair, `[Name "value"]`. UTF-16 text has NUL bytes
    // between the characters: they are left out for the look.
    let text: Vec<u8> = head.iter().copied().filter(|&b| b != 0).collect();
    let tag = text.split(|&b| b == b'\n').any(|line| {
        let line = line.strip_prefix(b"\xef\xbb\xbf".as_slice()).unwrap_or(line);
        let line =
            line.strip_prefix(b"\xff\xfe".as_slice()).or(line.strip_prefix(b"\xfe\xff".as_slice())).unwrap_or(line);
        let trimmed = line.trim_ascii_start();
        trimmed.starts_with(b"[") && trimmed.contains(&b'"')
    });
    if tag {
        FileKind::Pgn
    } else {
        FileKind::Text
    }
}

/// What the file at `path` appears to be, from its first 4 KiB. Only a regular file is read (a
/// link to one is followed): a directory, a FIFO or a device is an
/// [`io::ErrorKind::InvalidInput`] error, as from [`crate::fs::open_regular`], and a missing
/// file is [`io::ErrorKind::NotFound`].
///
/// ```
/// use qiku::fs::{file_kind, FileKind};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.txt");
/// std::fs::write(&games, "[Event \"x\"]\n\n1. h2e2 h9g7 1-0\n")?;
/// assert_eq!(file_kind(&games)?, FileKind::Pgn); // by its content, whatever its name
/// assert_eq!(file_kind(dir.path()).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn file_kind(path: &Path) -> io::Result<FileKind> {
    let file = super::files::open_regular(path)?;
    let len = file.metadata()?.len();
    let mut head = Vec::new();
    file.take(SNIFF_LEN).read_to_end(&mut head)?;
    Ok(kind_of_bytes(&head, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_content() {
        let xqf = {
            let mut h = b"XQ\x0a".to_vec();
            h.resize(1024, 0);
            h
        };
        let cases: [(&[u8], FileKind); 14] = [
            (b"", FileKind::Empty),
            (b"QIKUBOOK\x02\0\0\0", FileKind::QikuBook),
            (b"QIKU-TB\x1a\x01", FileKind::QikuTable),
            (b"SQLite format 3\0\x10\0", FileKind::Sqlite),
            (b"\x28\xb5\x2f\xfd\x04\x00", FileKind::Zstd),
            (b"\x1f\x8b\x08\x00", FileKind::Archive),
            (b"BZh91AY&SYxx", FileKind::Archive),
            (&xqf, FileKind::Xqf),
            (b"XQ is not a header\n", FileKind::Text),
            (b"[Event \"x\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n", FileKind::Pgn),
            (b"\xef\xbb\xbf[Event \"x\"]\n", FileKind::Pgn),
            (b"\xff\xfe[\0E\0v\0 \0\"\0x\0\"\0]\0\n\0", FileKind::Pgn),
            (b"h2e2 h9g7 h0g2\n", FileKind::Text),
            (b"\x01\x00\x00\x00\x02\x00\x00\x00", FileKind::Binary),
        ];
        for (bytes, kind) in cases {
            assert_eq!(kind_of_bytes(bytes, bytes.len() as u64), kind, "{bytes:?}");
        }
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(file_kind(dir.path()).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(file_kind(&dir.path().join("missing")).unwrap_err().kind(), io::ErrorKind::NotFound);
        let book = dir.path().join("b.pgn");
        std::fs::write(&book, b"QIKUBOOK").unwrap();
        assert_eq!(file_kind(&book).unwrap(), FileKind::QikuBook);
    }
}
