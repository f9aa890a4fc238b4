//! The library side of a book: open a `.qbk` (read by positioned reads; a memory map is the
//! opt-in [`Book::open_mmap`]), probe a [`Position`] for its book
//! moves, and pick one by a [`Policy`].
//!
//! ```no_run
//! use qiku::book::{Book, Policy};
//! use qiku::Rng;
//! use qiku::Position;
//! let book = Book::open("books/repertoire.qbk")?;
//! let pos = Position::startpos();
//! for m in book.probe(&pos)? {
//!     println!("{} {} games, score {:?}", m.mv, m.counts.games(), m.counts.score());
//! }
//! let mut rng = Rng::new(42);
//! let choice = book.pick(&pos, Policy::WeightedByGames, &mut rng)?;
//! # Ok::<(), qiku::book::BookError>(())
//! ```

use super::error::BookError;
use super::format::SECTION_HEADER_LEN;
use super::format::{bucket, decode_entry, record_key, Checksum, Header, HEADER_LEN, RECORD_LEN};
use super::recent::{RecentGame, SectionLayout, StoredGame, POSITION_LEN};
use super::record::{canonical_key, restore_move, Entry};
use crate::core::{Move, Position};
use crate::storage::Storage;
use crate::util::rng::Rng;
use std::path::{Path, PathBuf};

pub use super::choose::{
    choose, choose_with_share, mirror_twin, with_min_share, BookMove, Policy, DEFAULT_MIN_SHARE_PERCENT,
};

/// Index buckets whose records are kept in memory after a read (direct-mapped by bucket number),
/// so repeated probes of the same positions cost no system call. Buckets hold about 4 records
/// (about 100 bytes), so a full cache is about 2 MiB.
const BUCKET_CACHE_SLOTS: usize = 16384;

/// A direct-mapped cache of index buckets: slot `bucket % BUCKET_CACHE_SLOTS` holds the bucket's
/// record bytes.
struct BucketCache {
    slots: Vec<std::sync::Mutex<Option<CachedBucket>>>,
}

/// A bucket number and its records' bytes.
type CachedBucket = (usize, std::sync::Arc<[u8]>);

impl BucketCache {
    fn new() -> Self {
        BucketCache { slots: (0..BUCKET_CACHE_SLOTS).map(|_| std::sync::Mutex::new(None)).collect() }
    }
    fn get(&self, bucket: usize) -> Option<std::sync::Arc<[u8]>> {
        let slot = self.slots[bucket % BUCKET_CACHE_SLOTS].lock().unwrap_or_else(|e| e.into_inner());
        slot.as_ref().filter(|(b, _)| *b == bucket).map(|(_, bytes)| bytes.clone())
    }
    fn put(&self, bucket: usize, bytes: std::sync::Arc<[u8]>) {
        *self.slots[bucket % BUCKET_CACHE_SLOTS].lock().unwrap_or_else(|e| e.into_inner()) = Some((bucket, bytes));
    }
}

/// How thoroughly [`Book::open_with`] checks a file.
///
/// ```
/// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
/// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
/// # qiku::book::build(&[pgn], &path, &Default::default())?;
/// use qiku::book::{format::HEADER_LEN, Book, Verify};
/// let mut bytes = std::fs::read(&path)?;
/// bytes[HEADER_LEN + 10] ^= 1; // one more win in the first record: the body checksum no longer matches
/// assert!(Book::from_bytes_with(bytes.clone(), "damaged.qbk", Verify::Structure).is_ok());
/// assert!(Book::from_bytes_with(bytes, "damaged.qbk", Verify::Full).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verify {
    /// Header, sizes and index (cheap, independent of the book's size). Corruption inside the
    /// records then goes unnoticed, but can never cause a panic: probes only return moves legal
    /// in the probed position.
    Structure,
    /// Also the body checksum, the order of the records and every record's move (reads the whole
    /// file once, at several GB/s).
    Full,
}

/// An opened opening book. Safe to share between threads.
///
/// ```
/// # use qiku::book::{build, Book, BuildOptions};
/// # let dir = tempfile::tempdir()?;
/// # let pgn = dir.path().join("games.pgn");
/// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
/// # let path = dir.path().join("games.qbk");
/// # build(&[pgn], &path, &BuildOptions::default())?;
/// let book = std::sync::Arc::new(Book::open(&path)?);
/// let start = qiku::Position::startpos();
/// let counts = std::thread::scope(|s| {
///     let probes: Vec<_> = (0..2).map(|_| s.spawn(|| book.probe(&start).map(|m| m.len()))).collect();
///     probes.into_iter().map(|p| p.join().expect("no panic")).collect::<Result<Vec<_>, _>>()
/// })?;
/// assert_eq!(counts, [2, 2]); // h2e2 and c3c4, from each thread
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Book {
    data: Storage,
    /// Buckets read from the file (`None` for maps and bytes in memory, where a copy is cheaper).
    cache: Option<BucketCache>,
    header: Header,
    /// The header's bytes as opened: a probe compares them with the file's, so that a book
    /// rewritten in place while open is reported, not read as another book.
    head: Vec<u8>,
    path: PathBuf,
    /// Record index where each top-bits bucket starts (`2^bits + 1` entries).
    index: Vec<u64>,
    /// The recent-games section's layout and its position index, if the book has one.
    recent: Option<(SectionLayout, Vec<u64>)>,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book").field("path", &self.path).field("header", &self.header).finish_non_exhaustive()
    }
}

impl Book {
    /// Opens and fully verifies a book ([`Verify::Full`]).
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// // games.qbk: built from three games (1. h2e2 h9g7 1-0, 1. h2e2 b9c7 0-1, 1. c3c4 1/2-1/2).
    /// let book = Book::open(&path)?;
    /// assert_eq!((book.path(), book.header().games.used), (path.as_path(), 3));
    /// // The games themselves are not a book: refused, saying so.
    /// let err = Book::open(dir.path().join("games.pgn")).unwrap_err();
    /// assert!(matches!(err, qiku::book::BookError::NotABook { .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        Book::open_with(path, Verify::Full)
    }

    /// Opens a book with the given verification. The file is read with positioned reads (and a
    /// small cache of index buckets), so replacing or truncating it while it is open can give
    /// errors ([`Book::probe`]) or the old content, never a crash. Only regular files are
    /// opened (a FIFO or device is refused at once).
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Verify;
    ///
    /// let quick = Book::open_with(&path, Verify::Structure)?;
    /// let pos = qiku::Position::startpos();
    /// assert_eq!(quick.probe(&pos)?, Book::open_with(&path, Verify::Full)?.probe(&pos)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open_with(path: impl AsRef<Path>, verify: Verify) -> Result<Book, BookError> {
        let path = path.as_ref();
        let data =
            Storage::open(path).map_err(|e| BookError::Io { path: path.to_path_buf(), op: "open", source: e })?;
        Book::from_storage(data, path, verify)
    }

    /// Opens a book through a memory map (a little faster to probe than [`Book::open_with`]).
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified in place while the book is open: a mapped
    /// page that no longer exists kills the process with SIGBUS, and modified bytes change
    /// under the reader. Replacing the file by rename (as qiku's writers do) is safe.
    ///
    /// ```
    /// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
    /// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # qiku::book::build(&[pgn], &path, &Default::default())?;
    /// use qiku::book::{Book, Verify};
    /// // Safety: nothing writes to the file while the book is open.
    /// let mapped = unsafe { Book::open_mmap(&path, Verify::Full)? };
    /// let start = qiku::Position::startpos();
    /// assert_eq!(mapped.probe(&start)?, Book::open(&path)?.probe(&start)?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn open_mmap(path: impl AsRef<Path>, verify: Verify) -> Result<Book, BookError> {
        let path = path.as_ref();
        // Safety: the caller's guarantee is the map's; every read of it is bounds-checked.
        let data = unsafe { Storage::map(path) }.map_err(|e| BookError::Io {
            path: path.to_path_buf(),
            op: "map",
            source: e,
        })?;
        Book::from_storage(data, path, verify)
    }

    /// A book from bytes in memory (fully verified). `name` is used in error messages.
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let bytes = std::fs::read(&path)?;
    /// let book = Book::from_bytes(bytes.clone(), "in-memory.qbk")?;
    /// let pos = qiku::Position::startpos();
    /// assert_eq!(book.probe(&pos)?, Book::open(&path)?.probe(&pos)?);
    /// // Damaged bytes are refused, named by `name`.
    /// let mut damaged = bytes;
    /// let last = damaged.len() - 1;
    /// damaged[last] ^= 1;
    /// let err = Book::from_bytes(damaged, "in-memory.qbk").unwrap_err();
    /// assert!(err.to_string().contains("in-memory.qbk"), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: Vec<u8>, name: impl AsRef<Path>) -> Result<Book, BookError> {
        Book::from_bytes_with(bytes, name, Verify::Full)
    }

    /// A book from bytes in memory with the given verification.
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let book = Book::from_bytes_with(std::fs::read(&path)?, "mem.qbk", qiku::book::Verify::Structure)?;
    /// assert_eq!(book.len(), Book::open(&path)?.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes_with(bytes: Vec<u8>, name: impl AsRef<Path>, verify: Verify) -> Result<Book, BookError> {
        Book::from_storage(Storage::from_bytes(bytes), name.as_ref(), verify)
    }

    fn from_storage(data: Storage, path: &Path, verify: Verify) -> Result<Book, BookError> {
        let io = |op, source| BookError::Io { path: path.to_path_buf(), op, source };
        let len = data.len().map_err(|e| io("stat", e))?;
        let mut head = vec![0u8; (HEADER_LEN as u64).min(len) as usize];
        data.read_at(0, &mut head).map_err(|e| io("read", e))?;
        let header = Header::decode(&head, len, path)?;
        let corrupt = |what: String| BookError::Corrupt { path: path.to_path_buf(), what };
        // Header::decode checked the file length against these, so the sizes are in range.
        let index_len = usize::try_from(header.index_len() * 8).map_err(|_| corrupt("index too large".into()))?;
        let mut index_bytes = vec![0u8; index_len];
        data.read_at(header.index_offset(), &mut index_bytes).map_err(|e| io("read", e))?;
        let index: Vec<u64> = index_bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        if index.len() as u64 != header.index_len()
            || index.first() != Some(&0)
            || index.last() != Some(&header.records)
            || index.windows(2).any(|w| w[0] > w[1])
        {
            return Err(corrupt("index is not a monotonic table ending at the record count".into()));
        }
        let recent = if header.section_len > 0 {
            let start = header.section_offset();
            let mut h = [0u8; SECTION_HEADER_LEN as usize];
            data.read_at(start, &mut h).map_err(|e| io("read", e))?;
            let layout = SectionLayout::decode(&h, start, header.section_len).map_err(corrupt)?;
            let n = usize::try_from(layout.index_len() * 8).map_err(|_| corrupt("index too large".into()))?;
            let mut bytes = vec![0u8; n];
            data.read_at(layout.index_at(), &mut bytes).map_err(|e| io("read", e))?;
            let index: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect();
            if index.first() != Some(&0)
                || index.last() != Some(&layout.positions)
                || index.windows(2).any(|w| w[0] > w[1])
            {
                return Err(corrupt("recent-games index is not a monotonic table ending at the position count".into()));
            }
            Some((layout, index))
        } else {
            None
        };
        let cache = data.is_file().then(BucketCache::new);
        let book = Book { header, head, path: path.to_path_buf(), index, data, cache, recent };
        if verify == Verify::Full {
            book.verify_body()?;
        }
        Ok(book)
    }

    /// Fails if the file changed since it was opened: its length, modification time or header
    /// bytes (truncated, rewritten or written to in place). Only for files read by positioned reads; bytes in memory
    /// cannot change, and a memory map's caller promised they do not.
    fn check_unchanged(&self) -> Result<(), BookError> {
        if self.cache.is_none() {
            return Ok(());
        }
        let changed = || BookError::Corrupt {
            path: self.path.clone(),
            what: "the file changed since it was opened (truncated or rewritten in place); reopen it".into(),
        };
        // The length is part of what `changed` compares: at open it was the header's.
        if self.data.changed().map_err(|e| self.io_error(e))? {
            return Err(changed());
        }
        let mut now = vec![0u8; self.head.len()];
        match self.data.read_at(0, &mut now) {
            Ok(()) if now == self.head => Ok(()),
            Ok(()) => Err(changed()),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(changed()),
            Err(e) => Err(self.io_error(e)),
        }
    }

    fn io_error(&self, source: std::io::Error) -> BookError {
        BookError::Io { path: self.path.clone(), op: "read", source }
    }

    /// Checks the body checksum, record order, record moves and the counts in the header,
    /// reading the file once in large chunks.
    fn verify_body(&self) -> Result<(), BookError> {
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        let mut sum = Checksum::new();
        let mut last: Option<(u64, u16)> = None;
        let (mut positions, mut moves) = (0u64, 0u64);
        const CHUNK_RECORDS: u64 = 1 << 15;
        let mut buf = Vec::new();
        let mut i = 0u64;
        while i < self.header.records {
            let n = CHUNK_RECORDS.min(self.header.records - i);
            buf.resize(n as usize * RECORD_LEN, 0);
            self.data.read_at(HEADER_LEN as u64 + i * RECORD_LEN as u64, &mut buf).map_err(|e| self.io_error(e))?;
            sum.update(&buf);
            for rec in buf.chunks_exact(RECORD_LEN) {
                let rec: &[u8; RECORD_LEN] = rec.try_into().map_err(|_| corrupt(format!("record {i} cut short")))?;
                let e = decode_entry(rec).ok_or_else(|| corrupt(format!("record {i} has an invalid move")))?;
                let sk = e.sort_key();
                if last.is_some_and(|l| l >= sk) {
                    return Err(corrupt(format!("record {i} is out of order")));
                }
                if last.is_none_or(|l| l.0 != sk.0) {
                    positions += 1;
                }
                let b = bucket(e.key, self.header.index_bits);
                let in_bucket = matches!((self.index.get(b), self.index.get(b + 1)),
                    (Some(&lo), Some(&hi)) if (lo..hi).contains(&i));
                if !in_bucket {
                    return Err(corrupt(format!("index does not point at record {i}")));
                }
                last = Some(sk);
                moves += e.counts.games();
                i += 1;
            }
        }
        for w in &self.index {
            sum.update(&w.to_le_bytes());
        }
        if let Some((layout, _)) = &self.recent {
            self.verify_section(layout, &mut sum)?;
        }
        if sum.finish() != self.header.body_checksum {
            let parts = if self.recent.is_some() { "records, index or recent games" } else { "records or index" };
            return Err(corrupt(format!("body checksum mismatch ({parts} damaged)")));
        }
        if positions != self.header.positions || moves != self.header.moves {
            return Err(corrupt("position or move count in the header does not match the records".into()));
        }
        Ok(())
    }

    /// Reads `len` bytes from `at` in chunks of whole `item`-byte items, calling `f` on each.
    fn read_chunked(
        &self,
        at: u64,
        len: u64,
        item: u64,
        f: &mut dyn FnMut(&[u8]) -> Result<(), BookError>,
    ) -> Result<(), BookError> {
        let chunk = (1u64 << 20) / item * item;
        let mut buf = Vec::new();
        let mut done = 0u64;
        while done < len {
            let n = chunk.min(len - done);
            buf.resize(n as usize, 0);
            self.data.read_at(at + done, &mut buf).map_err(|e| self.io_error(e))?;
            f(&buf)?;
            done += n;
        }
        Ok(())
    }

    /// Checksums the recent-games section and checks its tables: positions sorted and in their
    /// index buckets, each with 1 to `recent_games` references, references naming games of the
    /// table, game offsets increasing to the data length.
    fn verify_section(&self, l: &SectionLayout, sum: &mut Checksum) -> Result<(), BookError> {
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        let mut chk = |b: &[u8]| -> Result<(), BookError> {
            sum.update(b);
            Ok(())
        };
        self.read_chunked(l.start, self.header.section_len, 1, &mut chk)?;
        let keep = u64::from(self.header.recent_games);
        let index = self.recent.as_ref().map(|(_, i)| i.as_slice()).unwrap_or(&[]);
        let (mut i, mut last_key, mut last_start) = (0u64, None::<u64>, 0u64);
        self.read_chunked(l.positions_at(), POSITION_LEN * l.positions, POSITION_LEN, &mut |b| {
            for e in b.chunks_exact(POSITION_LEN as usize) {
                let key = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
                let start = u64::from(u32::from_le_bytes([e[8], e[9], e[10], e[11]]));
                if last_key.is_some_and(|k| k >= key) {
                    return Err(corrupt(format!("recent-games position {i} is out of order")));
                }
                let ok = if i == 0 { start == 0 } else { start > last_start && start - last_start <= keep };
                if !ok {
                    return Err(corrupt(format!("recent-games position {i} has a bad reference range")));
                }
                let b = bucket(key, l.index_bits);
                if !matches!((index.get(b), index.get(b + 1)), (Some(&lo), Some(&hi)) if (lo..hi).contains(&i)) {
                    return Err(corrupt(format!("recent-games index does not point at position {i}")));
                }
                last_key = Some(key);
                last_start = start;
                i += 1;
            }
            Ok(())
        })?;
        if l.positions > 0 && (l.refs <= last_start || l.refs - last_start > keep) {
            return Err(corrupt("recent-games reference count does not match the last position".into()));
        }
        if l.positions == 0 && l.refs != 0 {
            return Err(corrupt("recent-games references without positions".into()));
        }
        let mut n = 0u64;
        self.read_chunked(l.refs_at(), 4 * l.refs, 4, &mut |b| {
            for r in b.chunks_exact(4) {
                if u64::from(u32::from_le_bytes([r[0], r[1], r[2], r[3]])) >= l.games {
                    return Err(corrupt(format!("recent-games reference {n} names no game")));
                }
                n += 1;
            }
            Ok(())
        })?;
        let (mut prev, mut first) = (0u64, true);
        self.read_chunked(l.offsets_at(), 8 * (l.games + 1), 8, &mut |b| {
            for c in b.chunks_exact(8) {
                let o = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                if (first && o != 0) || o < prev || o > l.game_bytes {
                    return Err(corrupt("recent-games game offsets are not increasing within the data".into()));
                }
                (prev, first) = (o, false);
            }
            Ok(())
        })?;
        if prev != l.game_bytes {
            return Err(corrupt("recent-games game offsets do not end at the data length".into()));
        }
        Ok(())
    }

    /// Calls `f(key, game)` for every reference of the recent-games section, in file order
    /// (positions by key, newest game first), reading the tables in large chunks.
    pub(crate) fn for_each_recent_ref(
        &self,
        f: &mut dyn FnMut(u64, u32) -> Result<(), BookError>,
    ) -> Result<(), BookError> {
        let Some((l, _)) = &self.recent else {
            return Ok(());
        };
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        // References are read in chunks alongside the positions.
        let mut refs: Vec<u8> = Vec::new();
        let (mut refs_from, mut next_ref) = (0u64, 0u64);
        let mut emit = |key: u64, end: u64| -> Result<(), BookError> {
            if end < next_ref || end > l.refs {
                return Err(corrupt(format!("recent-games references end at {end}")));
            }
            while next_ref < end {
                if next_ref >= refs_from + (refs.len() / 4) as u64 {
                    refs_from = next_ref;
                    let n = (1u64 << 16).min(l.refs - next_ref);
                    refs.resize((n * 4) as usize, 0);
                    self.data.read_at(l.refs_at() + next_ref * 4, &mut refs).map_err(|e| self.io_error(e))?;
                }
                let at = ((next_ref - refs_from) * 4) as usize;
                f(key, u32::from_le_bytes([refs[at], refs[at + 1], refs[at + 2], refs[at + 3]]))?;
                next_ref += 1;
            }
            Ok(())
        };
        let mut pending: Option<u64> = None;
        self.read_chunked(l.positions_at(), POSITION_LEN * l.positions, POSITION_LEN, &mut |b| {
            for e in b.chunks_exact(POSITION_LEN as usize) {
                let key = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
                let start = u64::from(u32::from_le_bytes([e[8], e[9], e[10], e[11]]));
                if let Some(k) = pending {
                    emit(k, start)?;
                }
                pending = Some(key);
            }
            Ok(())
        })?;
        if let Some(k) = pending {
            emit(k, l.refs)?;
        }
        Ok(())
    }

    /// The stored bytes of game `g` of the recent-games section.
    pub(crate) fn recent_game_bytes(&self, g: u32) -> Result<Vec<u8>, BookError> {
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        let Some((l, _)) = &self.recent else {
            return Err(corrupt("no recent-games section".into()));
        };
        let g = u64::from(g);
        if g >= l.games {
            return Err(corrupt(format!("recent-games reference to game {g} of {}", l.games)));
        }
        let mut span = [0u8; 16];
        self.data.read_at(l.offsets_at() + g * 8, &mut span).map_err(|e| self.io_error(e))?;
        let from = u64::from_le_bytes([span[0], span[1], span[2], span[3], span[4], span[5], span[6], span[7]]);
        let to = u64::from_le_bytes([span[8], span[9], span[10], span[11], span[12], span[13], span[14], span[15]]);
        if from > to || to > l.game_bytes || to - from > 1 << 20 {
            return Err(corrupt(format!("recent-games game {g} has a bad extent {from}..{to}")));
        }
        let mut game = vec![0u8; (to - from) as usize];
        self.data.read_at(l.data_at() + from, &mut game).map_err(|e| self.io_error(e))?;
        Ok(game)
    }

    /// Games kept per position in the recent-games section (0: the book has none).
    ///
    /// ```
    /// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
    /// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # qiku::book::build(&[pgn], &path, &Default::default())?;
    /// let book = qiku::book::Book::open(&path)?;
    /// assert_eq!(book.recent_games_kept(), qiku::book::DEFAULT_RECENT_GAMES); // built with the default
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recent_games_kept(&self) -> u32 {
        self.header.recent_games
    }

    /// The most recent games (newest first, at most [`Book::recent_games_kept`]) that reached
    /// `pos` or its mirror image, each oriented so that its moves reach `pos` (see
    /// [`RecentGame`]). Empty for a position not in the section and for a book without one.
    /// An error if the section cannot be read or a stored game is damaged.
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::notation::iccs;
    ///
    /// let book = Book::open(&path)?;
    /// assert_eq!(book.recent_games_kept(), qiku::book::DEFAULT_RECENT_GAMES);
    /// let start = qiku::Position::startpos();
    /// let after = start.play(iccs::parse(&start, "h2e2")?)?;
    /// let games = book.recent_games(&after)?;
    /// let mut players: Vec<&str> = games.iter().map(|g| g.red.as_str()).collect();
    /// players.sort();
    /// assert_eq!(players, ["A", "B"]); // the two games that played h2e2
    /// // Each whole game, with how far into it the position came.
    /// assert!(games.iter().all(|g| g.moves.len() == 2 && g.ply == 1 && g.start == start));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recent_games(&self, pos: &Position) -> Result<Vec<RecentGame>, BookError> {
        let Some((l, index)) = &self.recent else {
            return Ok(Vec::new());
        };
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        let (key, orientation) = canonical_key(pos);
        let b = bucket(key, l.index_bits);
        let (Some(&lo), Some(&hi)) = (index.get(b), index.get(b + 1)) else {
            return Ok(Vec::new());
        };
        if hi <= lo {
            return Ok(Vec::new());
        }
        // The bucket's entries and the one after it (whose first reference ends the last range).
        let read_to = (hi + 1).min(l.positions);
        let mut bytes = vec![0u8; ((read_to - lo) * POSITION_LEN) as usize];
        self.data.read_at(l.positions_at() + lo * POSITION_LEN, &mut bytes).map_err(|e| self.io_error(e))?;
        let entries: Vec<(u64, u64)> = bytes
            .chunks_exact(POSITION_LEN as usize)
            .map(|e| {
                (
                    u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]),
                    u64::from(u32::from_le_bytes([e[8], e[9], e[10], e[11]])),
                )
            })
            .collect();
        let in_bucket = &entries[..(hi - lo) as usize];
        let Some(at) = in_bucket.iter().position(|e| e.0 == key) else {
            return Ok(Vec::new());
        };
        let first = entries[at].1;
        let end = entries.get(at + 1).map_or(l.refs, |e| e.1);
        if end < first || end - first > u64::from(self.header.recent_games) || end > l.refs {
            return Err(corrupt(format!("recent-games references {first}..{end} out of range")));
        }
        let mut refs = vec![0u8; ((end - first) * 4) as usize];
        self.data.read_at(l.refs_at() + first * 4, &mut refs).map_err(|e| self.io_error(e))?;
        let mut games = Vec::with_capacity(refs.len() / 4);
        for r in refs.chunks_exact(4) {
            let g = u32::from_le_bytes([r[0], r[1], r[2], r[3]]);
            let game = self.recent_game_bytes(g)?;
            let stored = StoredGame::decode(&game).map_err(|e| corrupt(format!("recent-games game {g}: {e}")))?;
            games.push(stored.orient(key, orientation).map_err(|e| corrupt(format!("recent-games game {g}: {e}")))?);
        }
        Ok(games)
    }

    /// The decoded header.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let header = Book::open(&path)?.header().clone();
    /// // Three games read and used; four records (start: h2e2, c3c4; after h2e2: h9g7, b9c7) of two positions.
    /// assert_eq!((header.games.read, header.games.used, header.records, header.positions), (3, 3, 4, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file (or the name given to [`Book::from_bytes`]).
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// assert_eq!(Book::open(&path)?.path(), path);
    /// assert_eq!(Book::from_bytes(std::fs::read(&path)?, "in memory")?.path(), std::path::Path::new("in memory"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of records (position-move pairs).
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let book = Book::open(&path)?;
    /// // Start: h2e2 and c3c4; after h2e2: h9g7 and b9c7.
    /// assert_eq!((book.len(), book.is_empty()), (4, false));
    /// assert_eq!(book.entries().count() as u64, book.len());
    /// assert_eq!(book.entry(0), book.entries().next());
    /// assert_eq!(book.entry(book.len()), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.header.records
    }

    /// Whether the book has no record. [`build`](super::build()) writes no such book (a build that
    /// keeps no move says so and leaves no file), so one comes only from elsewhere.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// assert!(!Book::open(&path)?.is_empty());
    /// // No move was played in three games: none is kept, and no book is written.
    /// let params = qiku::book::BuildParams { min_games: 3, ..Default::default() };
    /// let none = dir.path().join("none.qbk");
    /// let report = build(&[dir.path().join("games.pgn")], &none, &BuildOptions { params, ..Default::default() })?;
    /// assert!(!report.written && !none.exists() && report.header.records == 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.header.records == 0
    }

    /// The bytes of records `lo..hi`.
    fn read_records(&self, lo: u64, hi: u64) -> Result<Vec<u8>, BookError> {
        let n = usize::try_from(hi.saturating_sub(lo) * RECORD_LEN as u64)
            .map_err(|_| BookError::Corrupt { path: self.path.clone(), what: "record range too large".into() })?;
        let mut buf = vec![0u8; n];
        self.data.read_at(HEADER_LEN as u64 + lo * RECORD_LEN as u64, &mut buf).map_err(|e| self.io_error(e))?;
        Ok(buf)
    }

    /// The `i`-th record (in key order), or `None` past the end, if it does not decode or cannot
    /// be read.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let book = Book::open(&path)?;
    /// let first = book.entry(0).expect("a record");
    /// let same = book.entries_for_key(first.key).find(|e| e.mv == first.mv);
    /// assert_eq!(same, Some(first)); // the record its key's lookup finds
    /// assert_eq!(book.entry(4), None); // four records: 0 to 3
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entry(&self, i: u64) -> Option<Entry> {
        if i >= self.header.records {
            return None;
        }
        let bytes = self.read_records(i, i + 1).ok()?;
        decode_entry(bytes.as_slice().try_into().ok()?)
    }

    /// All records in key order, read in large chunks. Records that do not decode (only possible
    /// in a corrupt book opened with [`Verify::Structure`]) are skipped; a read error (the file
    /// was truncated while open) ends the iteration; use [`Book::try_entries`] to see it.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let book = Book::open(&path)?;
    /// let keys: Vec<u64> = book.entries().map(|e| e.key).collect();
    /// assert_eq!(keys.len(), 4);
    /// assert!(keys.windows(2).all(|w| w[0] <= w[1])); // in key order
    /// // Every game counted once per position it reached: 3 at the start, 2 after h2e2.
    /// assert_eq!(book.entries().map(|e| e.counts.games()).sum::<u64>(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.try_entries().map_while(Result::ok)
    }

    /// All records in key order, or the error that stopped the reading.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// let book = Book::open(&path)?;
    /// let all: Vec<_> = book.try_entries().collect::<Result<_, _>>()?;
    /// assert_eq!(all, book.entries().collect::<Vec<_>>());
    /// // Cut short while open: the reading ends in an error instead of stopping quietly.
    /// std::fs::OpenOptions::new().write(true).open(&path)?.set_len(200)?;
    /// assert!(book.try_entries().any(|e| e.is_err()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_entries(&self) -> impl Iterator<Item = Result<Entry, BookError>> + '_ {
        const CHUNK: u64 = 1 << 14;
        let records = self.header.records;
        (0..records.div_ceil(CHUNK)).flat_map(move |c| {
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(records));
            let chunk: Vec<Result<Entry, BookError>> = match self.read_records(lo, hi) {
                Ok(bytes) => {
                    bytes.chunks_exact(RECORD_LEN).filter_map(|r| decode_entry(r.try_into().ok()?)).map(Ok).collect()
                }
                Err(e) => vec![Err(e)],
            };
            chunk
        })
    }

    /// The records of index bucket `b` (from the cache, or read and cached).
    fn bucket_bytes(&self, b: usize) -> Result<std::sync::Arc<[u8]>, BookError> {
        if let Some(bytes) = self.cache.as_ref().and_then(|c| c.get(b)) {
            return Ok(bytes);
        }
        let (Some(&lo), Some(&hi)) = (self.index.get(b), self.index.get(b + 1)) else {
            return Ok(std::sync::Arc::from(Vec::new()));
        };
        let bytes: std::sync::Arc<[u8]> = self.read_records(lo, hi)?.into();
        if let Some(cache) = &self.cache {
            cache.put(b, bytes.clone());
        }
        Ok(bytes)
    }

    /// The stored entries of a canonical key (moves in the canonical orientation), or the error
    /// reading them.
    ///
    /// The bucket read is checked as the index promises it (every key in this bucket, in key
    /// order), so that a file overwritten in place since it was opened is an error, not moves of
    /// another book.
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::record::canonical_key;
    ///
    /// let book = Book::open(&path)?;
    /// let (key, _) = canonical_key(&qiku::Position::startpos());
    /// let stored = book.try_entries_for_key(key)?;
    /// assert_eq!(stored.len(), 2); // h2e2 and c3c4, as stored (in the canonical orientation)
    /// assert_eq!(book.entries_for_key(key).collect::<Vec<_>>(), stored);
    /// assert!(book.try_entries_for_key(key ^ 1)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_entries_for_key(&self, key: u64) -> Result<Vec<Entry>, BookError> {
        let b = bucket(key, self.header.index_bits);
        let bytes = self.bucket_bytes(b)?;
        let records: Vec<&[u8; RECORD_LEN]> =
            bytes.chunks_exact(RECORD_LEN).filter_map(|r| r.try_into().ok()).collect();
        let in_order = records.windows(2).all(|w| record_key(w[0]) <= record_key(w[1]));
        if !in_order || records.iter().any(|r| bucket(record_key(r), self.header.index_bits) != b) {
            return Err(BookError::Corrupt {
                path: self.path.clone(),
                what:
                    "its records do not match its index (damaged, or changed since it was opened); reopen or rebuild it"
                        .into(),
            });
        }
        // First record in the bucket with a key >= `key` (records are sorted by key).
        let start = records.partition_point(|r| record_key(r) < key);
        Ok(records[start..].iter().take_while(|r| record_key(r) == key).filter_map(|r| decode_entry(r)).collect())
    }

    /// The stored entries of a canonical key (moves in the canonical orientation); none if the
    /// file cannot be read any more.
    ///
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::record::canonical_key;
    ///
    /// let book = Book::open(&path)?;
    /// let (key, _) = canonical_key(&qiku::Position::startpos());
    /// let games: Vec<u64> = book.entries_for_key(key).map(|e| e.counts.games()).collect();
    /// assert_eq!(games.iter().sum::<u64>(), 3); // h2e2 twice, c3c4 once
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entries_for_key(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        self.try_entries_for_key(key).unwrap_or_default().into_iter()
    }

    /// The book moves of `pos`: only moves legal there, in the position's own orientation, most
    /// played first (ties by move encoding). In a symmetric position only the representative of
    /// each mirror pair is returned (see [`record`](super::record)).
    ///
    /// A file that can no longer be read (truncated, damaged or overwritten while open) is an
    /// error naming it, never an empty answer: a caller can tell "not in the book" (`Ok` with no
    /// moves) from "the book is gone" (`Err`).
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::notation::iccs;
    ///
    /// let book = Book::open(&path)?;
    /// let start = qiku::Position::startpos();
    /// let moves = book.probe(&start)?;
    /// let list: Vec<(String, u64)> = moves.iter().map(|m| (m.mv.to_string(), m.counts.games())).collect();
    /// // Most played first. The start is symmetric: c3c4 and its mirror image g3g4 are one move
    /// // here, given once.
    /// assert_eq!(list, [("h2e2".to_string(), 2), ("g3g4".to_string(), 1)]);
    /// // Counts are the mover's: after h2e2, black's h9g7 lost its game.
    /// let after = start.play(iccs::parse(&start, "h2e2")?)?;
    /// let h9g7 = book.probe(&after)?.into_iter().find(|m| m.mv.to_string() == "h9g7").expect("in the book");
    /// assert_eq!((h9g7.counts.wins, h9g7.counts.losses), (0, 1));
    /// // A position no game reached: no moves, not an error.
    /// assert!(book.probe(&after.play(iccs::parse(&after, "h7e7")?)?)?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn probe(&self, pos: &Position) -> Result<Vec<BookMove>, BookError> {
        self.check_unchanged()?;
        let (key, orientation) = canonical_key(pos);
        let mut moves: Vec<BookMove> = self
            .try_entries_for_key(key)?
            .into_iter()
            .map(|e| BookMove { mv: restore_move(orientation, e.mv), counts: e.counts })
            .filter(|m| pos.is_legal(m.mv))
            .collect();
        moves.sort_by(|a, b| b.counts.games().cmp(&a.counts.games()).then(a.mv.to_u16().cmp(&b.mv.to_u16())));
        Ok(moves)
    }

    /// A book move for `pos` chosen by `policy` among the moves played in at least
    /// [`DEFAULT_MIN_SHARE_PERCENT`] of its games: `Ok(None)` when the position is not in the
    /// book, an error when the file can no longer be read ([`Book::probe`]).
    /// ```
    /// # use qiku::book::{build, Book, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::Rng;
    ///
    /// let book = Book::open(&path)?;
    /// let start = qiku::Position::startpos();
    /// let mut rng = Rng::new(7);
    /// let m = book.pick(&start, Policy::WeightedByGames, &mut rng)?.expect("in the book");
    /// assert!(book.probe(&start)?.iter().any(|b| b.mv == m));
    /// let empty = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w")?;
    /// assert_eq!(book.pick(&empty, Policy::BestScore, &mut rng)?, None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pick(&self, pos: &Position, policy: Policy, rng: &mut Rng) -> Result<Option<Move>, BookError> {
        Ok(choose(&self.probe(pos)?, policy, rng))
    }
}
