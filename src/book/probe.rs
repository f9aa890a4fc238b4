//! The library side of a book: open a `.qbk` (memory-mapped), probe a [`Position`] for its book
//! moves, and pick one by a [`Policy`].
//!
//! ```no_run
//! use qiku::book::{Book, BookRng, Policy};
//! use qiku::Position;
//! let book = Book::open("books/repertoire.qbk")?;
//! let pos = Position::startpos();
//! for m in book.probe(&pos) {
//!     println!("{} {} games, score {:?}", m.mv, m.counts.games(), m.counts.score());
//! }
//! let mut rng = BookRng::new(42);
//! let choice = book.pick(&pos, Policy::WeightedByGames, &mut rng);
//! # Ok::<(), qiku::book::BookError>(())
//! ```

use super::format::{bucket, decode_entry, record_key, Checksum, Header, HEADER_LEN, RECORD_LEN};
use super::record::{canonical_key, restore_move, Counts, Entry};
use super::BookError;
use crate::core::{Move, Position};
use std::fs::File;
use std::path::{Path, PathBuf};

/// A move found in the book for a position, with its counts from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub counts: Counts,
}

/// How [`Book::pick`] chooses among the book moves of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// The move with the best score (wins + draws / 2 over decided games); ties go to the move
    /// played more often, then to the smaller move encoding. Moves without a decided game only
    /// when no move has one. Deterministic: the random generator is not used.
    BestScore,
    /// At random, each move with probability proportional to the games it was played in.
    WeightedByGames,
    /// At random, each move with probability proportional to the points it scored
    /// (wins + draws / 2): often-played *and* successful moves are preferred. If no move scored a
    /// point, falls back to [`Policy::WeightedByGames`].
    WeightedByScore,
}

/// A small seeded random generator (SplitMix64) for [`Book::pick`], so that a given seed always
/// gives the same choices.
#[derive(Clone, Debug)]
pub struct BookRng(u64);

impl BookRng {
    pub fn new(seed: u64) -> Self {
        BookRng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), without modulo bias (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let n = n.max(1);
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }
}

/// Chooses among `moves` by `policy` (`None` if `moves` is empty).
pub fn choose(moves: &[BookMove], policy: Policy, rng: &mut BookRng) -> Option<Move> {
    let weighted = |rng: &mut BookRng, weight: &dyn Fn(&BookMove) -> u64| -> Option<Move> {
        let total: u64 = moves.iter().map(weight).sum();
        if total == 0 {
            return None;
        }
        let mut r = rng.below(total);
        for m in moves {
            let w = weight(m);
            if r < w {
                return Some(m.mv);
            }
            r -= w;
        }
        None
    };
    match policy {
        Policy::BestScore => moves
            .iter()
            .max_by(|a, b| {
                let sa = a.counts.score().unwrap_or(-1.0);
                let sb = b.counts.score().unwrap_or(-1.0);
                sa.total_cmp(&sb).then(a.counts.games().cmp(&b.counts.games())).then(b.mv.to_u16().cmp(&a.mv.to_u16()))
            })
            .map(|m| m.mv),
        Policy::WeightedByGames => weighted(rng, &|m| m.counts.games()),
        Policy::WeightedByScore => {
            weighted(rng, &|m| m.counts.double_points()).or_else(|| weighted(rng, &|m| m.counts.games()))
        }
    }
}

enum Storage {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(m) => m,
            Storage::Owned(v) => v,
        }
    }
}

/// How thoroughly [`Book::open_with`] checks a file.
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

/// An opened opening book.
pub struct Book {
    data: Storage,
    header: Header,
    path: PathBuf,
    /// Record index where each top-bits bucket starts (`2^bits + 1` entries).
    index: Vec<u64>,
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book").field("path", &self.path).field("header", &self.header).finish_non_exhaustive()
    }
}

impl Book {
    /// Opens and fully verifies a book ([`Verify::Full`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        Book::open_with(path, Verify::Full)
    }

    /// Opens a book, memory-mapped, with the given verification.
    pub fn open_with(path: impl AsRef<Path>, verify: Verify) -> Result<Book, BookError> {
        let path = path.as_ref();
        let io = |op, source| BookError::Io { path: path.to_path_buf(), op, source };
        let file = File::open(path).map_err(|e| io("open", e))?;
        let len = file.metadata().map_err(|e| io("stat", e))?.len();
        let data = if len == 0 {
            Storage::Owned(Vec::new())
        } else {
            // Safety: the map is read-only and every access goes through bounds-checked slices of
            // it. As with any file mapping, another process truncating the file while it is
            // mapped would make reads fault (SIGBUS); books are written to a temporary file and
            // renamed into place, so qiku itself never modifies a mapped book.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io("map", e))?;
            Storage::Mapped(map)
        };
        Book::from_storage(data, path, verify)
    }

    /// A book from bytes in memory (fully verified). `name` is used in error messages.
    pub fn from_bytes(bytes: Vec<u8>, name: impl AsRef<Path>) -> Result<Book, BookError> {
        Book::from_storage(Storage::Owned(bytes), name.as_ref(), Verify::Full)
    }

    fn from_storage(data: Storage, path: &Path, verify: Verify) -> Result<Book, BookError> {
        let bytes = data.bytes();
        let header = Header::decode(bytes, bytes.len() as u64, path)?;
        let corrupt = |what: String| BookError::Corrupt { path: path.to_path_buf(), what };
        // Header::decode checked the file length against these, so the slices are in range;
        // `get` keeps that a checked fact rather than an assumption.
        let index_off = header.index_offset() as usize;
        let index_bytes = bytes.get(index_off..).ok_or_else(|| corrupt("index out of range".into()))?;
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
        let book = Book { header, path: path.to_path_buf(), index, data };
        if verify == Verify::Full {
            book.verify_body()?;
        }
        Ok(book)
    }

    /// Checks the body checksum, record order, record moves and the counts in the header.
    fn verify_body(&self) -> Result<(), BookError> {
        let corrupt = |what: String| BookError::Corrupt { path: self.path.clone(), what };
        let bytes = self.data.bytes();
        let body = bytes.get(HEADER_LEN..).unwrap_or(&[]);
        if Checksum::of(body) != self.header.body_checksum {
            return Err(corrupt("body checksum mismatch (records or index damaged)".into()));
        }
        let mut last: Option<(u64, u16)> = None;
        let (mut positions, mut moves) = (0u64, 0u64);
        for i in 0..self.header.records {
            let rec = self.record(i).ok_or_else(|| corrupt(format!("record {i} out of range")))?;
            let e = decode_entry(rec).ok_or_else(|| corrupt(format!("record {i} has an invalid move")))?;
            let sk = e.sort_key();
            if last.is_some_and(|l| l >= sk) {
                return Err(corrupt(format!("record {i} is out of order")));
            }
            if last.is_none_or(|l| l.0 != sk.0) {
                positions += 1;
            }
            if bucket(e.key, self.header.index_bits) >= self.index.len() - 1
                || !(self.index[bucket(e.key, self.header.index_bits)]
                    ..self.index[bucket(e.key, self.header.index_bits) + 1])
                    .contains(&i)
            {
                return Err(corrupt(format!("index does not point at record {i}")));
            }
            last = Some(sk);
            moves += e.counts.games();
        }
        if positions != self.header.positions || moves != self.header.moves {
            return Err(corrupt("position or move count in the header does not match the records".into()));
        }
        Ok(())
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of records (position-move pairs).
    pub fn len(&self) -> u64 {
        self.header.records
    }

    pub fn is_empty(&self) -> bool {
        self.header.records == 0
    }

    fn record(&self, i: u64) -> Option<&[u8; RECORD_LEN]> {
        let start = HEADER_LEN as u64 + i.checked_mul(RECORD_LEN as u64)?;
        let start = usize::try_from(start).ok()?;
        self.data.bytes().get(start..start + RECORD_LEN)?.try_into().ok()
    }

    /// The `i`-th record (in key order), or `None` past the end or if it does not decode.
    pub fn entry(&self, i: u64) -> Option<Entry> {
        if i >= self.header.records {
            return None;
        }
        decode_entry(self.record(i)?)
    }

    /// All records in key order. Records that do not decode (only possible in a corrupt book
    /// opened with [`Verify::Structure`]) are skipped.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.header.records).filter_map(move |i| self.entry(i))
    }

    /// The range of records with canonical key `key`.
    fn key_range(&self, key: u64) -> std::ops::Range<u64> {
        let b = bucket(key, self.header.index_bits);
        let (Some(&lo), Some(&hi)) = (self.index.get(b), self.index.get(b + 1)) else {
            return 0..0;
        };
        let key_at = |i: u64| self.record(i).map(record_key);
        // First record in the bucket with a key >= `key`.
        let (mut a, mut z) = (lo, hi);
        while a < z {
            let mid = a + (z - a) / 2;
            match key_at(mid) {
                Some(k) if k < key => a = mid + 1,
                Some(_) => z = mid,
                None => return 0..0,
            }
        }
        let mut end = a;
        while end < hi && key_at(end) == Some(key) {
            end += 1;
        }
        a..end
    }

    /// The stored entries of a canonical key (moves in the canonical orientation).
    pub fn entries_for_key(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        self.key_range(key).filter_map(move |i| self.entry(i))
    }

    /// The book moves of `pos`: only moves legal there, in the position's own orientation, most
    /// played first (ties by move encoding). In a symmetric position only the representative of
    /// each mirror pair is returned (see [`record`](super::record)).
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        let (key, orientation) = canonical_key(pos);
        let mut moves: Vec<BookMove> = self
            .entries_for_key(key)
            .map(|e| BookMove { mv: restore_move(orientation, e.mv), counts: e.counts })
            .filter(|m| pos.is_legal(m.mv))
            .collect();
        moves.sort_by(|a, b| b.counts.games().cmp(&a.counts.games()).then(a.mv.to_u16().cmp(&b.mv.to_u16())));
        moves
    }

    /// A book move for `pos` chosen by `policy`, or `None` when the position is not in the book.
    pub fn pick(&self, pos: &Position, policy: Policy, rng: &mut BookRng) -> Option<Move> {
        choose(&self.probe(pos), policy, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    fn bm(pos: &Position, s: &str, w: u32, d: u32, l: u32, u: u32) -> BookMove {
        BookMove { mv: iccs::parse(pos, s).unwrap(), counts: Counts { wins: w, draws: d, losses: l, unknown: u } }
    }

    #[test]
    fn rng_below_is_in_range_and_seeded() {
        let mut a = BookRng::new(7);
        let mut b = BookRng::new(7);
        for n in [1u64, 2, 3, 10, u64::MAX] {
            for _ in 0..100 {
                let x = a.below(n);
                assert!(x < n);
                assert_eq!(x, b.below(n));
            }
        }
    }

    #[test]
    fn policies() {
        let pos = Position::startpos();
        let moves = [bm(&pos, "h2e2", 50, 30, 20, 0), bm(&pos, "c3c4", 6, 2, 2, 0), bm(&pos, "b0c2", 0, 0, 0, 40)];
        let mut rng = BookRng::new(1);
        // c3c4 scores 0.7, h2e2 0.65, b0c2 has no score.
        assert_eq!(choose(&moves, Policy::BestScore, &mut rng), Some(moves[1].mv));
        assert_eq!(choose(&[], Policy::BestScore, &mut rng), None);
        assert_eq!(choose(&moves[2..], Policy::BestScore, &mut rng), Some(moves[2].mv));
        // Weighted by games: frequencies follow 100 : 10 : 40.
        let mut hits = [0u32; 3];
        for _ in 0..15_000 {
            let m = choose(&moves, Policy::WeightedByGames, &mut rng).unwrap();
            hits[moves.iter().position(|x| x.mv == m).unwrap()] += 1;
        }
        assert!((9_500..10_500).contains(&hits[0]), "{hits:?}");
        assert!((800..1_200).contains(&hits[1]), "{hits:?}");
        assert!((3_600..4_400).contains(&hits[2]), "{hits:?}");
        // Weighted by score: points 65 : 7 : 0, so b0c2 never.
        let mut hits = [0u32; 3];
        for _ in 0..7_200 {
            let m = choose(&moves, Policy::WeightedByScore, &mut rng).unwrap();
            hits[moves.iter().position(|x| x.mv == m).unwrap()] += 1;
        }
        assert_eq!(hits[2], 0);
        assert!((6_200..6_800).contains(&hits[0]), "{hits:?}");
        // No points at all: falls back to games.
        let lost = [bm(&pos, "h2e2", 0, 0, 3, 0)];
        assert_eq!(choose(&lost, Policy::WeightedByScore, &mut rng), Some(lost[0].mv));
    }
}
