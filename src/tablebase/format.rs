//! The `.qtb` file: a 256-byte header, a block index, then the value codes of every entry in
//! independent blocks (zstd-compressed, or raw when that is not smaller). Written atomically,
//! read by positioned reads (a memory map is the opt-in); every field and offset is checked at open, every block's checksum
//! when it is read. The byte-by-byte layout is in `docs/FORMAT.md`.
//!
//! For tools that inspect or write table files; probing goes through
//! [`crate::tablebase::Tablebases`]. Each entry holds a value code: [`DRAW`] (0), [`ILLEGAL`] (1)
//! or [`code`]`(d)` = `2 + d` for a position decided `d` plies from mate (odd: a win for the side
//! to move, even: a loss); the `.qtw` WDL files hold 2-bit codes instead
//! ([`crate::tablebase::wdl`]).
//!
//! ```
//! use qiku::tablebase::format::{code, dtm_of, DRAW, ILLEGAL, MAX_DTM_U8};
//!
//! assert_eq!(dtm_of(code(7)), Some(7)); // odd: won by the side to move in 7 plies
//! assert_eq!(dtm_of(code(0)), Some(0)); // even: lost (here: no legal move)
//! assert_eq!((dtm_of(DRAW), dtm_of(ILLEGAL)), (None, None));
//! // 1-byte codes hold distances up to 237 plies; the top 16 codes are reserved.
//! assert_eq!(code(MAX_DTM_U8), 0xEF);
//! ```

pub use super::bands::{Band, BandKind};
use super::error::{TbError, TbField};
use super::index::Layout;
use super::material::Material;
use super::value::Counts;
pub use super::value::{code, dtm_of, DRAW, ILLEGAL, MAX_DTM_U16, MAX_DTM_U8};
use crate::core::{zobrist, Setup};
use crate::storage::Storage;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"QIKU-TB\x1a";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
/// Bytes in the header.
pub const HEADER_LEN: usize = 256;
/// Bytes per block in the block index.
pub const BLOCK_ENTRY_LEN: usize = 24;
/// Index scheme 2 (camps ranked jointly): see `index.rs` and `docs/FORMAT.md`. Scheme 1 placed
/// kings, advisors and elephants apart; its files are refused with a message to regenerate.
pub const SCHEME: u32 = 2;
/// Metric 1: distance to mate in plies, cycles drawn, no repetition rules.
pub const METRIC_DTM: u32 = 1;
/// Metric 2: the Asian rules' values (perpetual check loses) of a companion `.qtr` file: each
/// entry's code where it differs from the `.qtb` file of the same material, 0 where it does not;
/// a band table follows the block index (see `docs/FORMAT.md` and [`Band`]).
pub const METRIC_ASIAN: u32 = 2;
/// Metric 3: win, draw or loss of every entry in 2-bit codes, 4 to a byte, for probes inside a
/// search (a `.qtw` file beside the `.qtb`; codes in [`super::wdl`], layout in `docs/FORMAT.md`).
pub const METRIC_WDL: u32 = 3;
/// Entries per block of a WDL file: 32 KiB of packed codes, the raw size of a DTM block, so a
/// cold WDL probe decompresses no more than a DTM one.
pub const WDL_BLOCK_ENTRIES: u32 = 1 << 17;
pub use super::material::{RULES_EXTENSION, TABLE_EXTENSION, WDL_EXTENSION};
/// Bytes per band in a metric-2 file's band table.
pub const BAND_LEN: usize = 4;
/// A block stored uncompressed.
pub const CODEC_RAW: u8 = 0;
/// A zstd-compressed block.
pub const CODEC_ZSTD: u8 = 1;
/// Entries per block: 32 KiB of 1-byte codes.
pub const BLOCK_ENTRIES: u32 = 1 << 15;
/// zstd level used when writing (deterministic for a given level and input).
pub const ZSTD_LEVEL: i32 = 9;

use crate::util::checksum::{block_checksum, fnv1a, fold_checksum, FNV_OFFSET};

mod write;
#[cfg(all(feature = "generate", test))]
pub(crate) use write::encode_rules;
pub use write::{encode, encode_wdl, write_atomic};
#[cfg(feature = "generate")]
pub(crate) use write::{encode_rule_table, encode_rules_unchanged, encode_wdl_blocks, merge_rules_into};

thread_local! {
    /// One zstd context per thread, reused: creating one costs more than decompressing a block.
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// The parsed header.
///
/// ```
/// # use qiku::tablebase::{format::{encode, TableFile, DRAW, METRIC_DTM}, Counts, Material};
/// let bytes = encode("KRvK".parse::<Material>()?, &[DRAW; 2 * 45 * 90], &[Counts::default(); 2], true)?;
/// let header = TableFile::from_bytes(bytes, "KRvK.qtb")?.header().clone(); // 45 king pairs, 90 rook squares
/// assert_eq!((header.metric, header.width, header.per_side, header.block_count), (METRIC_DTM, 1, 45 * 90, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Header {
    /// The (canonical) material of the table.
    pub material: Material,
    /// Bytes per value code (1 or 2); 0 in a WDL file (2-bit codes, 4 to a byte).
    pub width: u8,
    /// Codec the writer asked for ([`CODEC_RAW`] or [`CODEC_ZSTD`]).
    pub compression: u8,
    /// Entries per block.
    pub block_entries: u32,
    /// Entries per side to move.
    pub per_side: u64,
    /// Number of blocks.
    pub block_count: u64,
    /// Counts per side to move (red, black).
    pub counts: [Counts; 2],
    /// Checksum of all block checksums, in order.
    pub payload_checksum: u64,
    /// Size of the whole file.
    pub file_len: u64,
    /// [`METRIC_DTM`], [`METRIC_ASIAN`] or [`METRIC_WDL`].
    pub metric: u32,
    /// The bands of a metric-2 file (empty for metric 1).
    pub bands: Vec<Band>,
}

/// One block's place in the file.
///
/// ```
/// # use qiku::tablebase::format::*;
/// # use qiku::tablebase::{Counts, Material};
/// # let krk: Material = "KRvK".parse()?;
/// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
/// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
/// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
/// let block: Block = file.blocks()[0]; // 8,100 entries fit one block of 32,768
/// assert_eq!(block.offset + u64::from(block.len), file.file_len()); // the last bytes of the file
/// assert!(block.codec == CODEC_ZSTD || block.codec == CODEC_RAW);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug)]
pub struct Block {
    /// Byte offset in the file.
    pub offset: u64,
    /// Stored (possibly compressed) length.
    pub len: u32,
    /// [`CODEC_RAW`] or [`CODEC_ZSTD`].
    pub codec: u8,
    /// Checksum of the decompressed bytes.
    pub checksum: u64,
}

/// An open table file (`.qtb`, `.qtr` or `.qtw`), its header and block index checked.
/// [`crate::tablebase::Tablebases`] probes through these; tools open one to inspect it.
///
/// ```
/// # #[cfg(feature = "generate")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use qiku::tablebase::format::{TableFile, METRIC_DTM, METRIC_WDL};
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// use qiku::tablebase::Material;
///
/// let dir = tempfile::tempdir()?;
/// let krk: Material = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
/// let file = TableFile::open(&dir.path().join("KRvK.qtb"))?;
/// let header = file.header();
/// assert_eq!((header.material, header.metric), (krk, METRIC_DTM));
/// // 45 king pairs and 90 rook squares, for each side to move.
/// assert_eq!(file.entries(), 2 * 45 * 90);
/// assert_eq!(header.counts[0].legal, header.counts[0].wins + header.counts[0].draws + header.counts[0].losses);
/// // Every entry's code, every checksum verified; codes are in `format::code`'s scheme.
/// assert_eq!(file.decode_all()?.len() as u64, file.entries());
/// // The WDL file of the same table: the same entries, 2 bits each.
/// let wdl = TableFile::open(&dir.path().join("KRvK.qtw"))?;
/// assert_eq!((wdl.header().metric, wdl.entries()), (METRIC_WDL, file.entries()));
/// assert!(wdl.file_len() < file.file_len());
/// # Ok(()) }
/// # #[cfg(not(feature = "generate"))] fn main() {}
/// ```
pub struct TableFile {
    /// The file.
    pub(crate) path: PathBuf,
    data: Storage,
    /// The checked header.
    pub(crate) header: Header,
    /// The index layout of its material.
    pub(crate) layout: Layout,
    blocks: Vec<Block>,
}

/// The header's reserved bytes (docs/FORMAT.md, "Layout"): 0 in every file.
const RESERVED: [std::ops::Range<usize>; 3] = [62..64, 74..76, 212..248];

fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}
fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

impl TableFile {
    /// The file (or the name given to [`TableFile::from_bytes`]).
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// assert_eq!(file.path(), std::path::Path::new("KRvK.qtb"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The checked header.
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// assert_eq!((file.header().material, file.header().metric), (krk, METRIC_DTM));
    /// assert_eq!(file.header().per_side, 45 * 90); // king pairs times rook squares
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Entries of the file, both sides to move (red-to-move entries first).
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// assert_eq!(file.entries(), values.len() as u64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn entries(&self) -> u64 {
        2 * self.header.per_side
    }

    /// The placement of entry `entry` (`0..entries()`): `None` past the end and for placements
    /// where two pieces share a square. The position may still be illegal (kings facing, the side
    /// not to move in check): those entries are never probed.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, TableFile, DRAW};
    /// use qiku::tablebase::{Counts, Material};
    /// use qiku::Color;
    ///
    /// let bytes = encode("KRvK".parse::<Material>()?, &[DRAW; 2 * 45 * 90], &[Counts::default(); 2], true)?;
    /// let file = TableFile::from_bytes(bytes, "KRvK.qtb")?;
    /// // Entry 0: kings on file d, facing (an illegal placement, never probed), the rook on a0.
    /// assert_eq!(file.setup(0).map(|s| s.to_fen()).as_deref(), Some("9/9/3k5/9/9/9/9/9/9/R2K5 w - - 0 1"));
    /// assert_eq!(file.setup(file.entries() / 2).map(|s| s.turn), Some(Color::Black));
    /// assert!(file.setup(file.entries()).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn setup(&self, entry: u64) -> Option<Setup> {
        self.layout.entry_setup(entry)
    }

    /// Are the header's counts `counts` (those the decoded values give)? Shared by `verify`
    /// and the WDL file check, so that both name a mismatch the same way.
    #[cfg(feature = "generate")]
    pub(crate) fn check_counts(&self, counts: &[Counts; 2]) -> Result<(), TbError> {
        if *counts != self.header.counts {
            return Err(TbError::Corrupt {
                path: self.path.clone(),
                field: TbField::Counts,
                detail: format!(
                    "header says {}, the values give {}",
                    counts_text(&self.header.counts),
                    counts_text(counts)
                ),
            });
        }
        Ok(())
    }

    /// Opens and checks a table file: magic, version, key-set fingerprint, material (which
    /// must be the one the file name says, when it is named like `KRvK.qtb`), scheme, metric,
    /// sizes, header checksum and every block's bounds. Only the header and block index are
    /// read; blocks are read with positioned reads when probed, so a file truncated or
    /// replaced while open gives errors or the old content, never a crash. Only regular files
    /// are opened. The process keeps a bounded number of such files open at once (256, or a
    /// quarter of its limit on open files), opening again the ones it closed when they are
    /// read: a file replaced in the meantime is then an error, not the other file's values.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, write_atomic, TableFile, DRAW};
    /// use qiku::tablebase::{Counts, Material, TbError};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let bytes = encode("KRvK".parse::<Material>()?, &[DRAW; 2 * 45 * 90], &[Counts::default(); 2], true)?;
    /// write_atomic(&dir.path().join("KRvK.qtb"), &bytes)?;
    /// assert_eq!(TableFile::open(&dir.path().join("KRvK.qtb"))?.entries(), 2 * 45 * 90);
    /// // The same bytes under another material's name are refused.
    /// write_atomic(&dir.path().join("KNvK.qtb"), &bytes)?;
    /// let err = TableFile::open(&dir.path().join("KNvK.qtb")).err().expect("not KNvK");
    /// assert!(matches!(err, TbError::WrongMaterial { .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: &Path) -> Result<TableFile, TbError> {
        let data = Storage::open(path).map_err(|e| TbError::io(path, e))?;
        TableFile::from_storage(data, path)
    }

    /// Opens a table through a memory map.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified in place while the table is open: a mapped
    /// page that no longer exists kills the process with SIGBUS. Replacing it by rename (as
    /// qiku's writers do) is safe.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, write_atomic, TableFile};
    /// use qiku::tablebase::{Counts, Material};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("KRvK.qtb");
    /// let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// write_atomic(&path, &encode("KRvK".parse::<Material>()?, &values, &[Counts::default(); 2], true)?)?;
    /// // Safety: the file is not modified while it is open.
    /// let file = unsafe { TableFile::open_mmap(&path)? };
    /// assert_eq!(file.decode_all()?, values);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub unsafe fn open_mmap(path: &Path) -> Result<TableFile, TbError> {
        // Safety: the caller's guarantee is the map's; every read of it is bounds-checked.
        let data = unsafe { Storage::map(path) }.map_err(|e| TbError::io(path, e))?;
        TableFile::from_storage(data, path)
    }

    /// A table file from bytes in memory (for tests and fuzzing), checked as [`TableFile::open`]
    /// checks a file. `name` is its file name (`KRvK.qtb`, `.qtr` or `.qtw`): its extension says
    /// which metric to expect, its stem which material, and errors name it.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, TableFile, DRAW};
    /// use qiku::tablebase::{Counts, Material, TbError, TbField};
    ///
    /// let bytes = encode("KRvK".parse::<Material>()?, &[DRAW; 2 * 45 * 90], &[Counts::default(); 2], true)?;
    /// assert!(TableFile::from_bytes(bytes.clone(), "KRvK.qtb").is_ok());
    /// let err = TableFile::from_bytes(bytes[..200].to_vec(), "KRvK.qtb").err().expect("truncated");
    /// assert!(matches!(err, TbError::Corrupt { field: TbField::Length, .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: Vec<u8>, name: impl AsRef<Path>) -> Result<TableFile, TbError> {
        TableFile::from_storage(Storage::from_bytes(bytes), name.as_ref())
    }

    fn from_storage(data: Storage, path: &Path) -> Result<TableFile, TbError> {
        let bad = |field: TbField, detail: String| TbError::Corrupt { path: path.to_path_buf(), field, detail };
        let actual_len = data.len().map_err(|e| TbError::io(path, e))?;
        if actual_len < HEADER_LEN as u64 {
            return Err(bad(TbField::Length, format!("{actual_len} bytes, shorter than the {HEADER_LEN}-byte header")));
        }
        let head = data.read_vec(0, HEADER_LEN).map_err(|e| TbError::io(path, e))?;
        let b: &[u8] = &head;
        if b[0..8] != MAGIC {
            return Err(bad(TbField::Magic, "not a qiku tablebase file".into()));
        }
        let version = le_u32(b, 8);
        if version != VERSION {
            return Err(bad(TbField::Version, format!("format version {version}, this reader knows {VERSION}")));
        }
        if le_u32(b, 12) as usize != HEADER_LEN {
            return Err(bad(TbField::HeaderLength, format!("{}", le_u32(b, 12))));
        }
        let fp = le_u64(b, 16);
        if fp != zobrist::FINGERPRINT {
            return Err(bad(
                TbField::Fingerprint,
                format!("key set {fp:#018x}, expected {:#018x}", zobrist::FINGERPRINT),
            ));
        }
        let name_end = b[32..48].iter().position(|&c| c == 0).unwrap_or(16);
        let name =
            std::str::from_utf8(&b[32..32 + name_end]).map_err(|_| bad(TbField::Material, "not ASCII".into()))?;
        let material: Material = name.parse().map_err(|e| bad(TbField::Material, format!("{e}")))?;
        if material.piece_count() > super::index::MAX_PIECES {
            return Err(bad(TbField::Material, format!("{material}: more pieces than the index scheme supports")));
        }
        if !material.is_canonical() || !material.has_attackers() {
            return Err(bad(TbField::Material, format!("{material} is not a canonical table material")));
        }
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".qtb").or_else(|| n.strip_suffix(".qtr")).or_else(|| n.strip_suffix(".qtw")))
            .and_then(|stem| stem.parse::<Material>().ok());
        if let Some(named) = named {
            if named.canonical().0 != material {
                return Err(TbError::WrongMaterial { path: path.to_path_buf(), named, found: material });
            }
        }
        let mut counts = [[0u8; 7]; 2];
        counts[0].copy_from_slice(&b[48..55]);
        counts[1].copy_from_slice(&b[55..62]);
        if counts != material.counts() || le_u64(b, 24) != material.key() {
            return Err(bad(TbField::Material, "piece counts or material key disagree with the name".into()));
        }
        match le_u32(b, 64) {
            SCHEME => {}
            1 => {
                return Err(bad(
                    TbField::IndexScheme,
                    format!(
                        "1, written by an older qiku-tb; this one reads {SCHEME} (kings, advisors and \
                         elephants ranked together): run `qiku-tb generate` for this table on its \
                         directory to write it again"
                    ),
                ))
            }
            other => return Err(bad(TbField::IndexScheme, format!("{other}, this reader knows {SCHEME}"))),
        }
        let metric = le_u32(b, 68);
        let expected = match path.extension().and_then(|e| e.to_str()) {
            Some(RULES_EXTENSION) => METRIC_ASIAN,
            Some(WDL_EXTENSION) => METRIC_WDL,
            _ => METRIC_DTM,
        };
        if metric != expected {
            return Err(bad(
                TbField::Metric,
                format!("{metric}, expected {expected} for this file name (1: DTM in .qtb, 2: Asian rules in .qtr, 3: WDL in .qtw)"),
            ));
        }
        let band_count = le_u32(b, 208) as usize;
        if metric != METRIC_ASIAN && band_count != 0 || band_count > u16::MAX as usize {
            return Err(bad(TbField::Metric, format!("{band_count} bands")));
        }
        let width = b[72];
        let compression = b[73];
        // A WDL file's codes are 2 bits (width 0); the others' 1 or 2 bytes.
        let width_ok = if metric == METRIC_WDL { width == 0 } else { width == 1 || width == 2 };
        if !width_ok {
            return Err(bad(TbField::ValueWidth, format!("{width} for metric {metric}")));
        }
        if compression > CODEC_ZSTD {
            return Err(bad(TbField::Compression, format!("{compression}")));
        }
        let block_entries = le_u32(b, 76);
        let per_side = le_u64(b, 80);
        let block_count = le_u64(b, 88);
        let layout = Layout::new(material);
        if per_side != layout.per_side {
            return Err(bad(
                TbField::Entries,
                format!("{per_side} per side, the index scheme gives {}", layout.per_side),
            ));
        }
        if block_entries == 0 || block_count != (2 * per_side).div_ceil(block_entries as u64) {
            return Err(bad(TbField::BlockCount, format!("{block_count} blocks of {block_entries}")));
        }
        let mut sides = [Counts::default(); 2];
        for (s, c) in sides.iter_mut().enumerate() {
            let f = |i: usize| le_u64(b, 96 + s * 48 + i * 8);
            *c = Counts { legal: f(0), wins: f(1), draws: f(2), losses: f(3), no_moves: f(4), max_dtm: f(5) };
        }
        let file_len = le_u64(b, 200);
        if file_len != actual_len {
            return Err(bad(TbField::Length, format!("{actual_len} bytes, header says {file_len} (truncated?)")));
        }
        let index_end = (block_count as usize)
            .checked_mul(BLOCK_ENTRY_LEN)
            .and_then(|n| n.checked_add(HEADER_LEN + band_count * BAND_LEN))
            .filter(|&e| e as u64 <= actual_len)
            .ok_or_else(|| bad(TbField::BlockIndex, "extends past the end of the file".into()))?;
        let index = data.read_vec(HEADER_LEN as u64, index_end - HEADER_LEN).map_err(|e| TbError::io(path, e))?;
        let sum = fnv1a(fnv1a(FNV_OFFSET, &b[..248]), &index);
        if sum != le_u64(b, 248) {
            return Err(bad(TbField::HeaderChecksum, "header or block index damaged".into()));
        }
        // Reserved bytes are 0 in every file this format's writers make: a non-zero one is a
        // file of another (later) layout or a crafted one, refused rather than read as if 0.
        if let Some(at) = RESERVED.iter().flat_map(|r| r.clone()).find(|&at| b[at] != 0) {
            return Err(bad(TbField::Reserved, format!("header byte {at} is {}, not 0", b[at])));
        }
        let mut blocks = Vec::with_capacity(block_count as usize);
        for i in 0..block_count as usize {
            let at = i * BLOCK_ENTRY_LEN;
            let b: &[u8] = &index;
            let blk = Block {
                offset: le_u64(b, at),
                len: le_u32(b, at + 8),
                codec: b[at + 12],
                checksum: le_u64(b, at + 16),
            };
            if let Some(k) = (13..16).find(|&k| b[at + k] != 0) {
                return Err(bad(
                    TbField::Reserved,
                    format!("byte {k} of block {i}'s index record is {}, not 0", b[at + k]),
                ));
            }
            let end = blk.offset.checked_add(blk.len as u64);
            if blk.offset < index_end as u64 || end.is_none_or(|e| e > actual_len) || blk.codec > CODEC_ZSTD {
                return Err(bad(TbField::BlockIndex, format!("block {i} out of bounds or unknown codec")));
            }
            blocks.push(blk);
        }
        let mut bands = Vec::with_capacity(band_count);
        let table = &index[block_count as usize * BLOCK_ENTRY_LEN..];
        for (i, raw) in table.chunks_exact(BAND_LEN).enumerate() {
            let start = u16::from_le_bytes([raw[0], raw[1]]);
            let kind = BandKind::from_code(raw[2] as u32)
                .ok_or_else(|| bad(TbField::Metric, format!("band {i}: unknown kind {}", raw[2])))?;
            if raw[3] != 0 {
                return Err(bad(TbField::Reserved, format!("byte 3 of band {i} is {}, not 0", raw[3])));
            }
            if start % 2 != 0 || bands.last().is_some_and(|b: &Band| b.start >= start) {
                return Err(bad(TbField::Metric, format!("band {i}: start {start} odd or out of order")));
            }
            bands.push(Band { start, kind });
        }
        let header = Header {
            material,
            width,
            compression,
            block_entries,
            per_side,
            block_count,
            counts: sides,
            payload_checksum: le_u64(b, 192),
            file_len,
            metric,
            bands,
        };
        Ok(TableFile { path: path.to_path_buf(), data, header, layout, blocks })
    }

    /// Number of entries in block `i`.
    fn block_len(&self, i: usize) -> usize {
        let total = 2 * self.header.per_side;
        let start = i as u64 * self.header.block_entries as u64;
        (total - start).min(self.header.block_entries as u64) as usize
    }

    /// The block index.
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// assert_eq!(file.blocks().len(), 1);
    /// assert!(file.blocks()[0].offset >= (HEADER_LEN + BLOCK_ENTRY_LEN) as u64); // after the header and index
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Bytes that `n` entries take uncompressed.
    fn bytes_for(&self, n: usize) -> usize {
        if self.header.width == 0 {
            n.div_ceil(4)
        } else {
            n * self.header.width as usize
        }
    }

    /// The raw (decompressed) bytes of block `i`, checksum verified.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, TableFile};
    /// use qiku::tablebase::{Counts, Material};
    ///
    /// let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode("KRvK".parse::<Material>()?, &values, &[Counts::default(); 2], true)?;
    /// let file = TableFile::from_bytes(bytes, "KRvK.qtb")?;
    /// assert_eq!(file.blocks().len(), 1); // 8,100 entries, blocks of 32,768
    /// let raw = file.read_block(0)?;
    /// assert_eq!((raw.len(), file.code_in(&raw, 7)), (8100, Some(values[7])));
    /// assert!(file.read_block(1).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_block(&self, i: usize) -> Result<Vec<u8>, TbError> {
        // A block that cannot be read or does not check out: if the file is no longer the one
        // opened (truncated or rewritten in place since), that is the cause to report, with its
        // remedy, rather than a short read or a checksum.
        self.read_block_as_opened(i).map_err(|e| match self.data.changed() {
            Ok(true) => TbError::Corrupt {
                path: self.path.clone(),
                field: TbField::Block(i),
                detail: "the file changed since it was opened (truncated or rewritten in place); open the tables \
                         again"
                    .into(),
            },
            _ => e,
        })
    }

    /// [`TableFile::read_block`] without asking whether the file changed.
    fn read_block_as_opened(&self, i: usize) -> Result<Vec<u8>, TbError> {
        let bad = |detail: String| TbError::Corrupt { path: self.path.clone(), field: TbField::Block(i), detail };
        let blk = self.blocks.get(i).ok_or_else(|| bad("no such block".into()))?;
        let expect = self.bytes_for(self.block_len(i));
        let stored = self.data.read_vec(blk.offset, blk.len as usize).map_err(|e| TbError::io(&self.path, e))?;
        let stored = stored.as_slice();
        let raw = if blk.codec == CODEC_ZSTD {
            let out = DECOMPRESSOR
                .with(|d| {
                    let mut d = d.borrow_mut();
                    if d.is_none() {
                        *d = Some(zstd::bulk::Decompressor::new()?);
                    }
                    match d.as_mut() {
                        Some(d) => d.decompress(stored, expect),
                        None => Err(std::io::Error::other("no decompressor")),
                    }
                })
                .map_err(|e| bad(format!("zstd: {e}")))?;
            if out.len() != expect {
                return Err(bad(format!("{} bytes decompressed, expected {expect}", out.len())));
            }
            out
        } else {
            if stored.len() != expect {
                return Err(bad(format!("{} raw bytes, expected {expect}", stored.len())));
            }
            stored.to_vec()
        };
        if block_checksum(&raw) != blk.checksum {
            return Err(bad("checksum mismatch".into()));
        }
        Ok(raw)
    }

    /// The code at position `k` of a block's raw bytes (`None` past its end).
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// let raw = file.read_block(0)?;
    /// assert_eq!((file.code_in(&raw, 7), file.code_in(&raw, 8_099)), (Some(2), Some(4)));
    /// assert_eq!(file.code_in(&raw, 8_100), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn code_in(&self, raw: &[u8], k: usize) -> Option<u16> {
        if self.header.width == 0 {
            raw.get(k / 4).map(|&b| (b >> (2 * (k % 4)) & 3) as u16)
        } else if self.header.width == 1 {
            raw.get(k).map(|&v| v as u16)
        } else {
            raw.get(2 * k..2 * k + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
        }
    }

    /// Every entry's code, each block and the whole payload checksum verified.
    ///
    /// ```
    /// use qiku::tablebase::format::{encode, TableFile, DRAW};
    /// use qiku::tablebase::{Counts, Material, TbError, TbField};
    ///
    /// let mut bytes = encode("KRvK".parse::<Material>()?, &[DRAW; 2 * 45 * 90], &[Counts::default(); 2], false)?;
    /// *bytes.last_mut().unwrap() ^= 1; // a value damaged: the header and block index still check out
    /// let file = TableFile::from_bytes(bytes, "KRvK.qtb")?;
    /// let err = file.decode_all().err().expect("damaged");
    /// assert!(matches!(err, TbError::Corrupt { field: TbField::Block(0), .. }), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn decode_all(&self) -> Result<Vec<u16>, TbError> {
        let mut out = vec![0u16; 2 * self.header.per_side as usize];
        self.decode_into(&mut out)?;
        Ok(out)
    }

    /// [`TableFile::decode_all`] into `out`, which holds exactly the table's entries (in memory or
    /// in a scratch file).
    pub(crate) fn decode_into(&self, out: &mut [u16]) -> Result<(), TbError> {
        debug_assert_eq!(out.len() as u64, 2 * self.header.per_side);
        // Each block is decompressed and widened straight into its place, so the raw bytes of the
        // whole table are never held beside its codes (they had been: a third more at the peak
        // of loading a 1-byte table). The header's block count covers the entries exactly, and
        // `read_block` checks each block's length. A damaged block is named, the first in file
        // order (whichever thread met it first).
        let results: Vec<Result<(), TbError>> = out
            .par_chunks_mut(self.header.block_entries as usize)
            .enumerate()
            .map(|(i, codes)| {
                crate::util::pressure::wait_for_release();
                let raw = self.read_block(i)?;
                match self.header.width {
                    0 => codes.iter_mut().enumerate().for_each(|(k, c)| *c = (raw[k / 4] >> (2 * (k % 4)) & 3) as u16),
                    1 => codes.iter_mut().zip(&raw).for_each(|(c, &v)| *c = v as u16),
                    _ => codes
                        .iter_mut()
                        .zip(raw.chunks_exact(2))
                        .for_each(|(c, s)| *c = u16::from_le_bytes([s[0], s[1]])),
                }
                Ok(())
            })
            .collect();
        results.into_iter().collect::<Result<(), TbError>>()?;
        let sum = self.blocks.iter().fold(FNV_OFFSET, |h, b| fold_checksum(h, b.checksum));
        if sum != self.header.payload_checksum {
            return Err(TbError::Corrupt {
                path: self.path.clone(),
                field: TbField::PayloadChecksum,
                detail: "values damaged".into(),
            });
        }
        Ok(())
    }

    /// Bytes of the file.
    ///
    /// ```
    /// # use qiku::tablebase::format::*;
    /// # use qiku::tablebase::{Counts, Material};
    /// # let krk: Material = "KRvK".parse()?;
    /// # let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect();
    /// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?; // KRvK's 8,100 entries
    /// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtb")?;
    /// assert_eq!(file.file_len(), bytes.len() as u64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file_len(&self) -> u64 {
        self.header.file_len
    }
}

/// A table's counts per side to move, in words (for error messages).
#[cfg(feature = "generate")]
fn counts_text(counts: &[super::value::Counts; 2]) -> String {
    let side = |c: &super::value::Counts| {
        format!(
            "{} legal, {} wins, {} draws, {} losses, {} without a move, longest {} plies",
            c.legal, c.wins, c.draws, c.losses, c.no_moves, c.max_dtm
        )
    };
    format!("red to move: {}; black to move: {}", side(&counts[0]), side(&counts[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::index::entries_of;
    use crate::tablebase::value::{code, DRAW};

    /// Codes decoded straight into place equal the codes written, at each width, and a damaged
    /// file names its first damaged block in file order, however the threads meet them.
    #[test]
    fn decoding_in_place_round_trips_and_names_the_first_damaged_block() {
        let m: Material = "KRvKR".parse().unwrap();
        let n = entries_of(&m) as usize;
        for (longest, width) in [(9u16, 1u8), (600, 2)] {
            let values: Vec<u16> =
                (0..n).map(|i| if i % 7 == 0 { DRAW } else { code((i % longest as usize) as u16) }).collect();
            let counts = [Counts { max_dtm: longest as u64, ..Counts::default() }; 2];
            let bytes = encode(m, &values, &counts, false).unwrap();
            let file = TableFile::from_bytes(bytes.clone(), "KRvKR.qtb").unwrap();
            assert_eq!(file.header.width, width);
            assert!(file.blocks().len() > 8, "{} blocks", file.blocks().len());
            assert!(file.decode_all().unwrap() == values, "width {width}");
            let mut damaged = bytes;
            for b in [7, 3] {
                let blk = &file.blocks()[b];
                damaged[(blk.offset + blk.len as u64 / 2) as usize] ^= 0x55;
            }
            let err = TableFile::from_bytes(damaged, "KRvKR.qtb").unwrap().decode_all().unwrap_err();
            assert!(matches!(err, TbError::Corrupt { field: TbField::Block(3), .. }), "{err}");
        }
    }
}
