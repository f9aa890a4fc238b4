//! The `.qbk` file, byte by byte (documented in docs/FORMAT.md, "Opening books"): a 128-byte
//! header, the sorted fixed-size records, then a lookup index on the top bits of the key.
//!
//! Everything is little-endian and decoded with `from_le_bytes` from bounds-checked slices; no
//! struct is ever cast over file bytes. Files are written to a temporary file in the output's
//! directory and renamed into place, so a reader never sees a half-written book.

use super::error::BookError;
use super::record::{Counts, Entry, MinScore};
use crate::core::{zobrist, Color, Move};
use crate::util::files::AtomicFile;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// `QIKUBOOK`.
pub const MAGIC: [u8; 8] = *b"QIKUBOOK";
/// The format version of books without a recent-games section (read and written).
pub const VERSION: u32 = 1;
/// The format version of books with a recent-games section (read and written): version 1 plus
/// the section after the index, described by header bytes 100..112.
pub const VERSION_RECENT: u32 = 2;
/// Bytes in the header.
pub const HEADER_LEN: usize = 128;
/// Bytes in one record: key (8), move (2), wins, draws, losses, unknown (4 each).
pub const RECORD_LEN: usize = 26;
/// The index never has more than `2^MAX_INDEX_BITS` buckets.
pub const MAX_INDEX_BITS: u32 = 20;
/// Bytes of the recent-games section's header (the section's layout is `recent`'s).
pub const SECTION_HEADER_LEN: u64 = 64;
/// At most this many games are kept per position in the recent-games section.
pub const MAX_RECENT_GAMES: u32 = 255;

/// A section written after the index (format version 2: the recent-games section, which the
/// `recent` module lays out), streamed into the book as its last bytes.
pub(crate) trait TrailingSection {
    /// Its length in bytes.
    fn len(&self) -> u64;
    /// Writes it, in order, to `sink`.
    fn write(self, sink: &mut dyn FnMut(&[u8]) -> Result<(), BookError>) -> Result<(), BookError>;
}

/// No section (a version 1 book).
pub(crate) struct NoSection;

impl TrailingSection for NoSection {
    fn len(&self) -> u64 {
        0
    }
    fn write(self, _: &mut dyn FnMut(&[u8]) -> Result<(), BookError>) -> Result<(), BookError> {
        Ok(())
    }
}
/// Aim for about this many records per index bucket.
const RECORDS_PER_BUCKET: u64 = 4;

pub use crate::util::checksum::Checksum;

/// Which side's positions a book keeps.
///
/// ```
/// use qiku::book::{build, Book, BuildOptions, BuildParams, SideFilter};
/// use qiku::Color;
///
/// let dir = tempfile::tempdir()?;
/// let (pgn, path) = (dir.path().join("games.pgn"), dir.path().join("red.qbk"));
/// std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n")?;
/// let params = BuildParams { only: SideFilter::Only(Color::Red), ..BuildParams::default() };
/// build(&[pgn], &path, &BuildOptions { params, ..BuildOptions::default() })?;
/// // Red's h2e2 is kept; black's reply h9g7 is not.
/// assert_eq!(Book::open(&path)?.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SideFilter {
    #[default]
    /// Positions with either side to move.
    Both,
    /// Only positions with this side to move.
    Only(Color),
}

impl SideFilter {
    /// Whether positions with `side` to move are kept.
    ///
    /// ```
    /// use qiku::book::SideFilter;
    /// use qiku::Color;
    ///
    /// assert!(SideFilter::Both.keeps(Color::Black));
    /// assert!(SideFilter::Only(Color::Red).keeps(Color::Red));
    /// assert!(!SideFilter::Only(Color::Red).keeps(Color::Black));
    /// ```
    pub fn keeps(self, side: Color) -> bool {
        match self {
            SideFilter::Both => true,
            SideFilter::Only(c) => c == side,
        }
    }
    fn code(self) -> u8 {
        match self {
            SideFilter::Both => 0,
            SideFilter::Only(Color::Red) => 1,
            SideFilter::Only(Color::Black) => 2,
        }
    }
    fn from_code(c: u8) -> Option<SideFilter> {
        match c {
            0 => Some(SideFilter::Both),
            1 => Some(SideFilter::Only(Color::Red)),
            2 => Some(SideFilter::Only(Color::Black)),
            _ => None,
        }
    }
}

/// The options a book was built with; stored in its header.
///
/// ```
/// use qiku::book::{BuildParams, Counts};
///
/// let params = BuildParams { min_games: 2, ..BuildParams::default() };
/// assert_eq!(params.max_ply, 40); // by default the first 40 plies of each game are read
/// assert!(!params.keeps(&Counts { wins: 1, ..Counts::default() })); // one game, fewer than 2
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BuildParams {
    /// Moves are recorded for plies `0..max_ply` of each game.
    pub max_ply: u32,
    /// Moves played fewer times than this are dropped (0 and 1 keep everything).
    pub min_games: u32,
    /// Moves scoring below this are dropped.
    pub min_score: MinScore,
    /// Only positions with this side to move are kept.
    pub only: SideFilter,
    /// Only games whose players both have at least this Elo (`RedElo`/`BlackElo` tags) are read.
    pub min_elo: Option<u32>,
    /// Games with a bad move keep the moves before it.
    pub keep_prefix: bool,
}

impl Default for BuildParams {
    fn default() -> Self {
        BuildParams {
            max_ply: 40,
            min_games: 0,
            min_score: MinScore::NONE,
            only: SideFilter::Both,
            min_elo: None,
            keep_prefix: false,
        }
    }
}

impl BuildParams {
    /// Whether an aggregated entry survives the per-move filters.
    ///
    /// ```
    /// use qiku::book::{BuildParams, Counts, MinScore};
    ///
    /// let half = MinScore::from_ppm(500_000).ok_or("range")?;
    /// let params = BuildParams { min_games: 3, min_score: half, ..BuildParams::default() };
    /// // 2 wins, 1 draw, 1 loss: 4 games scoring 62.5%.
    /// let good = Counts { wins: 2, draws: 1, losses: 1, unknown: 0 };
    /// assert!(params.keeps(&good));
    /// assert!(!params.keeps(&Counts { wins: 2, ..Counts::default() })); // 2 games, fewer than 3
    /// assert!(!params.keeps(&Counts { wins: 1, losses: 3, ..good })); // 5 games scoring 30%
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn keeps(&self, counts: &Counts) -> bool {
        counts.games() >= u64::from(self.min_games) && counts.score_at_least(self.min_score)
    }

    /// Whether [`BuildParams::keeps`] can drop a move (a minimum above one game, or a minimum
    /// score): a book built without either keeps every move played.
    pub(crate) fn may_drop(&self) -> bool {
        self.min_games > 1 || self.min_score != MinScore::NONE
    }

    /// Whether books with these two parameter sets count the same games the same way, so that
    /// adding their counts gives what one build over both inputs would (the per-move filters
    /// `min_games` and `min_score` are applied after counting and may differ).
    ///
    /// ```
    /// use qiku::book::BuildParams;
    ///
    /// let base = BuildParams::default();
    /// // The per-move filters may differ: the counts still add up.
    /// assert!(base.same_counting(&BuildParams { min_games: 5, ..base }));
    /// // Books that read a different number of plies count different moves.
    /// assert!(!base.same_counting(&BuildParams { max_ply: 20, ..base }));
    /// ```
    pub fn same_counting(&self, other: &BuildParams) -> bool {
        (self.max_ply, self.only, self.min_elo, self.keep_prefix)
            == (other.max_ply, other.only, other.min_elo, other.keep_prefix)
    }

    /// The options that decide what a book counts ([`BuildParams::same_counting`]), as
    /// `qiku-book build` takes them: flags with their defaults (`--only` both sides, no
    /// `--min-elo`) left out, since they have no value to write.
    ///
    /// ```
    /// use qiku::book::{BuildParams, SideFilter};
    /// use qiku::Color;
    ///
    /// assert_eq!(BuildParams::default().counting_flags(), "--max-ply 40");
    /// let p = BuildParams { only: SideFilter::Only(Color::Red), min_elo: Some(2400), ..BuildParams::default() };
    /// assert_eq!(p.counting_flags(), "--max-ply 40 --only red --min-elo 2400");
    /// ```
    pub fn counting_flags(&self) -> String {
        let mut flags = format!("--max-ply {}", self.max_ply);
        if let SideFilter::Only(c) = self.only {
            flags += &format!(" --only {c}");
        }
        if let Some(elo) = self.min_elo {
            flags += &format!(" --min-elo {elo}");
        }
        if self.keep_prefix {
            flags += " --keep-prefix";
        }
        flags
    }

    /// Every option of the header as `qiku-book build` takes them: the per-move filters, then
    /// [`BuildParams::counting_flags`].
    ///
    /// ```
    /// use qiku::book::BuildParams;
    ///
    /// assert_eq!(BuildParams::default().flags(), "--min-games 0 --min-score 0 --max-ply 40");
    /// ```
    pub fn flags(&self) -> String {
        format!("--min-games {} --min-score {} {}", self.min_games, self.min_score.fraction(), self.counting_flags())
    }
}

/// Game counts stored in the header. All are sums over the input, so merging books adds them.
///
/// ```
/// use qiku::book::{build, Book, GameCounts};
///
/// let dir = tempfile::tempdir()?;
/// let (pgn, path) = (dir.path().join("games.pgn"), dir.path().join("games.qbk"));
/// std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n\n1. c3c4 *\n")?;
/// build(&[pgn], &path, &Default::default())?;
/// // Both games were used; the second one has no result.
/// assert_eq!(Book::open(&path)?.header().games, GameCounts { read: 2, used: 2, without_result: 1 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameCounts {
    /// Games found in the input (including skipped ones).
    pub read: u64,
    /// Games that contributed moves.
    pub used: u64,
    /// Used games without a result (they count toward frequency only).
    pub without_result: u64,
}

impl GameCounts {
    /// Adds the counts of another book (merging).
    ///
    /// ```
    /// use qiku::book::GameCounts;
    ///
    /// let mut total = GameCounts { read: 10, used: 8, without_result: 1 };
    /// total.add(&GameCounts { read: 5, used: 5, without_result: 2 });
    /// assert_eq!(total, GameCounts { read: 15, used: 13, without_result: 3 });
    /// ```
    pub fn add(&mut self, o: &GameCounts) {
        self.read += o.read;
        self.used += o.used;
        self.without_result += o.without_result;
    }
}

/// A decoded `.qbk` header.
///
/// ```
/// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
/// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n")?;
/// # qiku::book::build(&[pgn], &path, &Default::default())?;
/// use qiku::book::{format::VERSION_RECENT, Book};
///
/// let header = *Book::open(&path)?.header();
/// // 1. h2e2 h9g7: two positions, one move each.
/// assert_eq!((header.records, header.positions, header.moves), (2, 2, 2));
/// assert_eq!(header.version, VERSION_RECENT); // it has a recent-games section
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Fingerprint of the Zobrist key set the keys were made with.
    pub fingerprint: u64,
    /// The index has `2^index_bits` buckets, by the top bits of the key.
    pub index_bits: u32,
    /// Records (distinct position-move pairs).
    pub records: u64,
    /// Distinct positions (canonical keys).
    pub positions: u64,
    /// Sum of the games of all records (moves stored, counting repeats).
    pub moves: u64,
    /// Games read, used and without result.
    pub games: GameCounts,
    /// The options the book was built with.
    pub params: BuildParams,
    /// Checksum of everything after the header (records, index, recent-games section).
    pub body_checksum: u64,
    /// Games kept per position in the recent-games section (0: no section, version 1).
    pub recent_games: u32,
    /// Bytes of the recent-games section (0: none).
    pub section_len: u64,
}

impl Header {
    /// Byte offset of the index.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let games = dir.path().join("games.pgn");
    /// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # qiku::book::build(&[games], &path, &Default::default())?;
    /// use qiku::book::format::{HEADER_LEN, RECORD_LEN};
    /// use qiku::book::Book;
    ///
    /// let header = *Book::open(&path)?.header();
    /// // The header, the records, the index (one offset per bucket and one for the end), the section.
    /// assert_eq!(header.index_offset(), (HEADER_LEN + 2 * RECORD_LEN) as u64);
    /// assert_eq!(header.index_len(), (1 << header.index_bits) + 1);
    /// assert_eq!(header.section_offset(), header.index_offset() + 8 * header.index_len());
    /// assert_eq!(header.file_len(), header.section_offset() + header.section_len);
    /// assert_eq!(header.file_len(), std::fs::metadata(&path)?.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index_offset(&self) -> u64 {
        HEADER_LEN as u64 + self.records * RECORD_LEN as u64
    }
    /// Entries in the index: one per bucket plus the end. Example at [`Header::index_offset`].
    ///
    /// ```
    /// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
    /// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n")?;
    /// # qiku::book::build(&[pgn], &path, &Default::default())?;
    /// let header = *qiku::book::Book::open(&path)?.header();
    /// assert_eq!(header.index_len(), (1 << header.index_bits) + 1); // one per bucket and the end
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn index_len(&self) -> u64 {
        (1u64 << self.index_bits) + 1
    }
    /// Byte offset of the recent-games section (the end of the index). Example at
    /// [`Header::index_offset`].
    ///
    /// ```
    /// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
    /// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n")?;
    /// # qiku::book::build(&[pgn], &path, &Default::default())?;
    /// let header = *qiku::book::Book::open(&path)?.header();
    /// // The recent-games section follows the index and ends the file.
    /// assert_eq!(header.section_offset(), header.index_offset() + 8 * header.index_len());
    /// assert_eq!(header.section_offset() + header.section_len, std::fs::metadata(&path)?.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn section_offset(&self) -> u64 {
        self.index_offset() + self.index_len() * 8
    }
    /// The exact size a file with this header has. Example at [`Header::index_offset`].
    ///
    /// ```
    /// # let d = tempfile::tempdir()?; let (pgn, path) = (d.path().join("games.pgn"), d.path().join("games.qbk"));
    /// # std::fs::write(&pgn, "1. h2e2 h9g7 1-0\n")?;
    /// # qiku::book::build(&[pgn], &path, &Default::default())?;
    /// let header = *qiku::book::Book::open(&path)?.header();
    /// assert_eq!(header.file_len(), std::fs::metadata(&path)?.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file_len(&self) -> u64 {
        self.section_offset() + self.section_len
    }

    /// The 128 header bytes, checksum included.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let games = dir.path().join("games.pgn");
    /// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # qiku::book::build(&[games], &path, &Default::default())?;
    /// use qiku::book::format::{HEADER_LEN, MAGIC};
    /// use qiku::book::Book;
    ///
    /// let header = Book::open(&path)?.header().encode();
    /// assert_eq!(header[..8], MAGIC);
    /// assert_eq!(header[..], std::fs::read(&path)?[..HEADER_LEN]); // the file's first bytes
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.version.to_le_bytes());
        b[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.fingerprint.to_le_bytes());
        b[24..28].copy_from_slice(&(RECORD_LEN as u32).to_le_bytes());
        b[28..32].copy_from_slice(&self.index_bits.to_le_bytes());
        b[32..40].copy_from_slice(&self.records.to_le_bytes());
        b[40..48].copy_from_slice(&self.positions.to_le_bytes());
        b[48..56].copy_from_slice(&self.moves.to_le_bytes());
        b[56..64].copy_from_slice(&self.games.read.to_le_bytes());
        b[64..72].copy_from_slice(&self.games.used.to_le_bytes());
        b[72..80].copy_from_slice(&self.games.without_result.to_le_bytes());
        let p = &self.params;
        b[80..84].copy_from_slice(&p.max_ply.to_le_bytes());
        b[84..88].copy_from_slice(&p.min_games.to_le_bytes());
        b[88..92].copy_from_slice(&p.min_score.ppm().to_le_bytes());
        b[92..96].copy_from_slice(&p.min_elo.unwrap_or(0).to_le_bytes());
        b[96] = p.only.code();
        b[97] = u8::from(p.keep_prefix) | u8::from(p.min_elo.is_some()) << 1;
        // 98..100 reserved, zero.
        b[100..104].copy_from_slice(&self.recent_games.to_le_bytes());
        b[104..112].copy_from_slice(&self.section_len.to_le_bytes());
        b[112..120].copy_from_slice(&self.body_checksum.to_le_bytes());
        let check = Checksum::of(&b[..120]);
        b[120..128].copy_from_slice(&check.to_le_bytes());
        b
    }

    /// Decodes and checks a header: magic, version, fingerprint, sizes, reserved bytes, header
    /// checksum. `file_len` is the size of the whole file, checked against the counts.
    ///
    /// ```
    /// use qiku::book::format::BookWriter;
    /// use qiku::book::{BookError, BuildParams, GameCounts, Header};
    /// use std::path::Path;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// let writer = BookWriter::create(&dir.path().join("empty.qbk"))?;
    /// let header = writer.discard(GameCounts::default(), BuildParams::default()); // no file written
    /// let bytes = header.encode();
    /// assert_eq!(Header::decode(&bytes, header.file_len(), Path::new("b.qbk"))?, header);
    /// let short = Header::decode(&bytes, header.file_len() - 1, Path::new("b.qbk"));
    /// assert!(matches!(short, Err(BookError::Truncated { .. })));
    /// let mut bad = bytes;
    /// bad[40] ^= 1; // a count changed: the header's checksum no longer matches
    /// assert!(matches!(Header::decode(&bad, header.file_len(), Path::new("b.qbk")), Err(BookError::Corrupt { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode(bytes: &[u8], file_len: u64, path: &Path) -> Result<Header, BookError> {
        let corrupt = |what: String| BookError::Corrupt { path: path.to_path_buf(), what };
        let magic = bytes.get(0..8).ok_or_else(|| BookError::NotABook { path: path.to_path_buf() })?;
        if magic != MAGIC {
            return Err(BookError::NotABook { path: path.to_path_buf() });
        }
        let Some(b) = bytes.get(..HEADER_LEN) else {
            return Err(BookError::Truncated {
                path: path.to_path_buf(),
                expected: HEADER_LEN as u64,
                actual: file_len,
            });
        };
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u64_at = |o: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[o..o + 8]);
            u64::from_le_bytes(w)
        };
        let version = u32_at(8);
        if version != VERSION && version != VERSION_RECENT {
            return Err(BookError::Version { path: path.to_path_buf(), found: version, supported: VERSION_RECENT });
        }
        if Checksum::of(&b[..120]) != u64_at(120) {
            return Err(corrupt("header checksum mismatch".into()));
        }
        let fingerprint = u64_at(16);
        if fingerprint != zobrist::FINGERPRINT {
            return Err(BookError::Fingerprint { path: path.to_path_buf(), found: fingerprint });
        }
        if u32_at(12) as usize != HEADER_LEN || u32_at(24) as usize != RECORD_LEN {
            return Err(corrupt(format!("header length {} / record length {} unsupported", u32_at(12), u32_at(24))));
        }
        let index_bits = u32_at(28);
        if index_bits > MAX_INDEX_BITS {
            return Err(corrupt(format!("index bits {index_bits} above {MAX_INDEX_BITS}")));
        }
        let only = SideFilter::from_code(b[96]).ok_or_else(|| corrupt(format!("side filter code {}", b[96])))?;
        let flags = b[97];
        if flags & !0b11 != 0 || b[98..100].iter().any(|&x| x != 0) {
            return Err(corrupt("unknown flags or non-zero reserved bytes".into()));
        }
        let (recent_games, section_len) = (u32_at(100), u64_at(104));
        if version == VERSION && (recent_games != 0 || section_len != 0) {
            return Err(corrupt("non-zero reserved bytes".into()));
        }
        if version == VERSION_RECENT
            && (!(1..=MAX_RECENT_GAMES).contains(&recent_games) || section_len < SECTION_HEADER_LEN)
        {
            return Err(corrupt(format!(
                "recent-games section of {section_len} bytes keeping {recent_games} games per position"
            )));
        }
        let min_score = MinScore::from_ppm(u32_at(88)).ok_or_else(|| corrupt(format!("min score {}", u32_at(88))))?;
        let params = BuildParams {
            max_ply: u32_at(80),
            min_games: u32_at(84),
            min_score,
            only,
            min_elo: (flags & 2 != 0).then(|| u32_at(92)),
            keep_prefix: flags & 1 != 0,
        };
        let header = Header {
            version,
            fingerprint,
            index_bits,
            records: u64_at(32),
            positions: u64_at(40),
            moves: u64_at(48),
            games: GameCounts { read: u64_at(56), used: u64_at(64), without_result: u64_at(72) },
            params,
            body_checksum: u64_at(112),
            recent_games,
            section_len,
        };
        if header.positions > header.records {
            return Err(corrupt(format!("{} positions but {} records", header.positions, header.records)));
        }
        let expected = header
            .records
            .checked_mul(RECORD_LEN as u64)
            .and_then(|r| r.checked_add(HEADER_LEN as u64 + header.index_len() * 8))
            .and_then(|r| r.checked_add(header.section_len));
        match expected {
            Some(e) if e == file_len => Ok(header),
            Some(e) if e > file_len => {
                Err(BookError::Truncated { path: path.to_path_buf(), expected: e, actual: file_len })
            }
            Some(e) => Err(corrupt(format!("file is {file_len} bytes, header says {e}"))),
            None => Err(corrupt(format!("record count {} too large", header.records))),
        }
    }
}

/// The 26 bytes of a record.
///
/// ```
/// use qiku::book::format::{encode_entry, RECORD_LEN};
/// use qiku::book::{Counts, Entry};
/// use qiku::notation::iccs;
///
/// let counts = Counts { wins: 3, draws: 1, losses: 0, unknown: 2 };
/// let entry = Entry { key: 0x0123_4567_89ab_cdef, mv: iccs::parse_move("h2e2")?, counts };
/// let bytes: [u8; RECORD_LEN] = encode_entry(&entry);
/// assert_eq!(bytes[..8], entry.key.to_le_bytes());
/// assert_eq!(bytes[8..10], entry.mv.to_u16().to_le_bytes());
/// assert_eq!(bytes[10..14], 3u32.to_le_bytes()); // then draws, losses and unknown
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn encode_entry(e: &Entry) -> [u8; RECORD_LEN] {
    let mut b = [0u8; RECORD_LEN];
    b[0..8].copy_from_slice(&e.key.to_le_bytes());
    b[8..10].copy_from_slice(&e.mv.to_u16().to_le_bytes());
    b[10..14].copy_from_slice(&e.counts.wins.to_le_bytes());
    b[14..18].copy_from_slice(&e.counts.draws.to_le_bytes());
    b[18..22].copy_from_slice(&e.counts.losses.to_le_bytes());
    b[22..26].copy_from_slice(&e.counts.unknown.to_le_bytes());
    b
}

/// The key of an encoded record.
///
/// ```
/// use qiku::book::format::{encode_entry, record_key};
/// use qiku::book::{Counts, Entry};
/// use qiku::notation::iccs;
///
/// let entry = Entry { key: 42, mv: iccs::parse_move("h2e2")?, counts: Counts::default() };
/// assert_eq!(record_key(&encode_entry(&entry)), 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn record_key(b: &[u8; RECORD_LEN]) -> u64 {
    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// Decodes a record; `None` if its move is not a valid move encoding.
///
/// ```
/// use qiku::book::format::{decode_entry, encode_entry};
/// use qiku::book::{Counts, Entry};
/// use qiku::notation::iccs;
///
/// let counts = Counts { wins: 3, draws: 1, losses: 0, unknown: 2 };
/// let entry = Entry { key: 0x0123_4567_89ab_cdef, mv: iccs::parse_move("h2e2")?, counts };
/// let mut bytes = encode_entry(&entry);
/// assert_eq!(decode_entry(&bytes), Some(entry));
/// bytes[8..10].copy_from_slice(&[0, 0]); // a0 to a0: no move
/// assert_eq!(decode_entry(&bytes), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn decode_entry(b: &[u8; RECORD_LEN]) -> Option<Entry> {
    let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mv = Move::from_u16(u16::from_le_bytes([b[8], b[9]]))?;
    Some(Entry {
        key: record_key(b),
        mv,
        counts: Counts { wins: u32_at(10), draws: u32_at(14), losses: u32_at(18), unknown: u32_at(22) },
    })
}

/// The index bucket of `key` with `bits` bits.
///
/// ```
/// use qiku::book::format::bucket;
///
/// assert_eq!(bucket(0xF123_4567_89AB_CDEF, 4), 0xF);
/// assert_eq!(bucket(0xF123_4567_89AB_CDEF, 12), 0xF12);
/// assert_eq!(bucket(u64::MAX, 0), 0); // an index of one bucket
/// ```
#[inline]
pub fn bucket(key: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (key >> (64 - bits)) as usize
    }
}

/// Index bits for a book of `records` records: about [`RECORDS_PER_BUCKET`] per bucket.
fn index_bits_for(records: u64) -> u32 {
    let buckets = records / RECORDS_PER_BUCKET;
    let mut bits = 0;
    while bits < MAX_INDEX_BITS && (1u64 << bits) < buckets {
        bits += 1;
    }
    bits
}

/// Streams sorted entries into a new book file. Entries must arrive in strictly increasing
/// (key, move) order; [`BookWriter::finish`] writes the index and header and renames the file
/// into place.
///
/// ```
/// use qiku::book::format::BookWriter;
/// use qiku::book::{Book, BuildParams, Counts, Entry, GameCounts};
/// use qiku::notation::iccs::parse_move;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("two.qbk");
/// let mut writer = BookWriter::create(&path)?;
/// for (key, mv) in [(3, "h2e2"), (5, "c3c4")] {
///     writer.push(&Entry { key, mv: parse_move(mv)?, counts: Counts { draws: 1, ..Counts::default() } })?;
/// }
/// writer.finish(GameCounts::default(), BuildParams::default())?;
/// assert_eq!(Book::open(&path)?.entries().map(|e| e.key).collect::<Vec<_>>(), [3, 5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BookWriter {
    out: BufWriter<AtomicFile>,
    path: PathBuf,
    checksum: Checksum,
    records: u64,
    positions: u64,
    moves: u64,
    last: Option<(u64, u16)>,
    /// Records per top-[`MAX_INDEX_BITS`]-bits bucket, coarsened into the index at the end.
    histogram: Vec<u64>,
}

impl BookWriter {
    /// Starts a book at `path`: a temporary file in the same directory (see [`AtomicFile`]).
    ///
    /// ```
    /// use qiku::book::format::BookWriter;
    /// use qiku::book::{record::canonical_key, Book, BuildParams, Counts, Entry, GameCounts};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("by-hand.qbk");
    /// let start = Position::startpos();
    /// let counts = Counts { wins: 2, draws: 1, losses: 0, unknown: 0 };
    /// let mut writer = BookWriter::create(&path)?;
    /// writer.push(&Entry { key: canonical_key(&start).0, mv: iccs::parse(&start, "h2e2")?, counts })?;
    /// assert_eq!(writer.records(), 1);
    /// writer.finish(GameCounts { read: 3, used: 3, without_result: 0 }, BuildParams::default())?;
    /// let moves = Book::open(&path)?.probe(&start)?;
    /// assert_eq!((moves[0].mv.to_string(), moves[0].counts), ("h2e2".to_string(), counts));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create(path: &Path) -> Result<BookWriter, BookError> {
        let file =
            AtomicFile::create(path).map_err(|e| BookError::Io { path: path.to_path_buf(), op: "write", source: e })?;
        let temp = file.temp_path().to_path_buf();
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&[0u8; HEADER_LEN]).map_err(|source| BookError::Write {
            output: path.to_path_buf(),
            temp,
            op: "write the book",
            source,
        })?;
        Ok(BookWriter {
            out,
            path: path.to_path_buf(),
            checksum: Checksum::new(),
            records: 0,
            positions: 0,
            moves: 0,
            last: None,
            histogram: vec![0; 1 << MAX_INDEX_BITS],
        })
    }

    /// An error writing the book, naming it and its temporary file.
    fn io_err(&self, op: &'static str, source: std::io::Error) -> BookError {
        write_error(&self.path, self.out.get_ref().temp_path(), op, source)
    }

    /// Appends an entry (strictly after the previous one in (key, move) order).
    ///
    /// ```
    /// use qiku::book::format::BookWriter;
    /// use qiku::book::{Counts, Entry};
    /// use qiku::notation::iccs;
    ///
    /// # let dir = tempfile::tempdir()?;
    /// let mut writer = BookWriter::create(&dir.path().join("b.qbk"))?;
    /// let entry = |key, mv| -> Result<Entry, qiku::notation::ParseMoveError> {
    ///     Ok(Entry { key, mv: iccs::parse_move(mv)?, counts: Counts { wins: 1, ..Counts::default() } })
    /// };
    /// writer.push(&entry(7, "h2e2")?)?;
    /// writer.push(&entry(9, "b2e2")?)?;
    /// // Entries come in (key, move) order: a smaller key, or the same one again, is refused.
    /// assert!(writer.push(&entry(8, "h2e2")?).is_err());
    /// assert!(writer.push(&entry(9, "b2e2")?).is_err());
    /// assert_eq!(writer.records(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, e: &Entry) -> Result<(), BookError> {
        let sk = e.sort_key();
        if let Some(last) = self.last {
            if sk <= last {
                return Err(BookError::Internal(format!("book entries out of order: {last:?} then {sk:?}")));
            }
            if sk.0 != last.0 {
                self.positions += 1;
            }
        } else {
            self.positions = 1;
        }
        self.last = Some(sk);
        let bytes = encode_entry(e);
        self.checksum.update(&bytes);
        self.out.write_all(&bytes).map_err(|err| self.io_err("write the book", err))?;
        self.records += 1;
        self.moves += e.counts.games();
        self.histogram[bucket(e.key, MAX_INDEX_BITS)] += 1;
        Ok(())
    }

    /// Entries pushed so far. Example at [`BookWriter::create`].
    ///
    /// ```
    /// use qiku::book::{format::BookWriter, Counts, Entry};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut writer = BookWriter::create(&dir.path().join("b.qbk"))?;
    /// assert_eq!(writer.records(), 0);
    /// writer.push(&Entry { key: 1, mv: qiku::notation::iccs::parse_move("h2e2")?, counts: Counts::default() })?;
    /// assert_eq!(writer.records(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Abandons the book: the temporary file is removed and nothing at the path changes. Returns
    /// the header the entries pushed so far would have had (without an index checksum).
    ///
    /// ```
    /// use qiku::book::format::BookWriter;
    /// use qiku::book::{BuildParams, Counts, Entry, GameCounts};
    /// use qiku::notation::iccs;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("abandoned.qbk");
    /// let mut writer = BookWriter::create(&path)?;
    /// writer.push(&Entry { key: 7, mv: iccs::parse_move("h2e2")?, counts: Counts { wins: 1, ..Counts::default() } })?;
    /// let header = writer.discard(GameCounts::default(), BuildParams::default());
    /// assert_eq!((header.records, header.positions, header.moves), (1, 1, 1));
    /// assert!(!path.exists());
    /// assert_eq!(std::fs::read_dir(dir.path())?.count(), 0); // no temporary file left either
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn discard(self, games: GameCounts, params: BuildParams) -> Header {
        self.header(games, params, 0, 0)
    }

    /// The header of the entries pushed so far (the body checksum as far as it has been fed).
    fn header(&self, games: GameCounts, params: BuildParams, recent_games: u32, section_len: u64) -> Header {
        Header {
            version: if section_len > 0 { VERSION_RECENT } else { VERSION },
            fingerprint: zobrist::FINGERPRINT,
            index_bits: index_bits_for(self.records),
            records: self.records,
            positions: self.positions,
            moves: self.moves,
            games,
            params,
            body_checksum: self.checksum.clone().finish(),
            recent_games,
            section_len,
        }
    }

    /// Writes the index and header, syncs, renames into place; returns the header.
    ///
    /// ```
    /// use qiku::book::format::BookWriter;
    /// use qiku::book::{Book, BuildParams, Counts, Entry, GameCounts};
    /// use qiku::notation::iccs;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("b.qbk");
    /// let mut writer = BookWriter::create(&path)?;
    /// for (key, mv) in [(7, "h2e2"), (7, "h0g2"), (9, "b2e2")] {
    ///     writer.push(&Entry { key, mv: iccs::parse_move(mv)?, counts: Counts { draws: 1, ..Counts::default() } })?;
    /// }
    /// let header = writer.finish(GameCounts { read: 3, used: 3, without_result: 0 }, BuildParams::default())?;
    /// assert_eq!((header.records, header.positions, header.moves), (3, 2, 3));
    /// assert_eq!(*Book::open(&path)?.header(), header);
    /// assert_eq!(std::fs::metadata(&path)?.len(), header.file_len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn finish(self, games: GameCounts, params: BuildParams) -> Result<Header, BookError> {
        self.finish_with(games, params, None::<(u32, NoSection)>)
    }

    /// [`BookWriter::finish`], with a recent-games section keeping `keep` games per position
    /// after the index (format version 2).
    pub(crate) fn finish_with(
        mut self,
        games: GameCounts,
        params: BuildParams,
        section: Option<(u32, impl TrailingSection)>,
    ) -> Result<Header, BookError> {
        let bits = index_bits_for(self.records);
        let per = 1usize << (MAX_INDEX_BITS - bits);
        let mut index = Vec::with_capacity(((1usize << bits) + 1) * 8);
        let mut acc = 0u64;
        index.extend_from_slice(&acc.to_le_bytes());
        for chunk in self.histogram.chunks(per) {
            acc += chunk.iter().sum::<u64>();
            index.extend_from_slice(&acc.to_le_bytes());
        }
        self.checksum.update(&index);
        self.out.write_all(&index).map_err(|e| self.io_err("write the book", e))?;
        let (mut recent_games, mut section_len) = (0, 0);
        if let Some((keep, section)) = section {
            (recent_games, section_len) = (keep, section.len());
            let mut written = 0u64;
            let tmp = self.out.get_ref().temp_path().to_path_buf();
            let (out, checksum, path) = (&mut self.out, &mut self.checksum, &self.path);
            section.write(&mut |bytes: &[u8]| {
                checksum.update(bytes);
                written += bytes.len() as u64;
                out.write_all(bytes).map_err(|e| write_error(path, &tmp, "write the book", e))
            })?;
            if written != section_len {
                return Err(BookError::Internal(format!("section is {written} bytes, expected {section_len}")));
            }
        }
        let header = self.header(games, params, recent_games, section_len);
        let tmp = self.out.get_ref().temp_path().to_path_buf();
        let io = |op, source| write_error(&self.path, &tmp, op, source);
        let mut file = self.out.into_inner().map_err(|e| io("write the book", e.into_error()))?;
        use std::io::{Seek, SeekFrom};
        file.file().seek(SeekFrom::Start(0)).map_err(|e| io("seek in the book", e))?;
        file.file().write_all(&header.encode()).map_err(|e| io("write the book", e))?;
        file.commit().map_err(|e| io("sync the book and rename it into place", e))?;
        Ok(header)
    }
}

/// An error writing the book `output` into its temporary file `temp`.
fn write_error(output: &Path, temp: &Path, op: &'static str, source: std::io::Error) -> BookError {
    BookError::Write { output: output.to_path_buf(), temp: temp.to_path_buf(), op, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let h = Header {
            version: VERSION,
            fingerprint: zobrist::FINGERPRINT,
            index_bits: 3,
            records: 10,
            positions: 4,
            moves: 99,
            games: GameCounts { read: 12, used: 11, without_result: 2 },
            params: BuildParams {
                max_ply: 30,
                min_games: 2,
                min_score: MinScore::from_ppm(400_000).unwrap(),
                only: SideFilter::Only(Color::Black),
                min_elo: Some(2200),
                keep_prefix: true,
            },
            body_checksum: 0x1234,
            recent_games: 0,
            section_len: 0,
        };
        let b = h.encode();
        assert_eq!(Header::decode(&b, h.file_len(), Path::new("x")).unwrap(), h);
        assert!(matches!(Header::decode(&b, h.file_len() - 1, Path::new("x")), Err(BookError::Truncated { .. })));
        assert!(matches!(Header::decode(&b, h.file_len() + 1, Path::new("x")), Err(BookError::Corrupt { .. })));
        let mut bad = b;
        bad[40] ^= 1;
        assert!(matches!(Header::decode(&bad, h.file_len(), Path::new("x")), Err(BookError::Corrupt { .. })));
    }

    #[test]
    fn index_bits_grow_with_size() {
        assert_eq!(index_bits_for(0), 0);
        assert_eq!(index_bits_for(4), 0);
        assert_eq!(index_bits_for(1000), 8);
        assert_eq!(index_bits_for(u64::MAX), MAX_INDEX_BITS);
    }
}
