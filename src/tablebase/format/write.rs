//! Writing table files: the value codes of a solved table, its Asian-rules companion and its WDL
//! file encoded into the bytes [`super::TableFile`] reads (blocks compressed with zstd, or raw
//! when that is not smaller; the header and block index assembled), and written atomically.
//! Deterministic: the same values give the same bytes.

#[cfg(feature = "generate")]
use super::METRIC_ASIAN;
use super::{
    Band, Counts, Material, TbError, BAND_LEN, BLOCK_ENTRIES, BLOCK_ENTRY_LEN, CODEC_RAW, CODEC_ZSTD, HEADER_LEN,
    MAGIC, MAX_DTM_U16, MAX_DTM_U8, METRIC_DTM, METRIC_WDL, SCHEME, VERSION, WDL_BLOCK_ENTRIES, ZSTD_LEVEL,
};
use crate::core::zobrist;
use crate::util::checksum::{block_checksum, fnv1a, fold_checksum, FNV_OFFSET};
use crate::util::files::AtomicFile;
use rayon::prelude::*;
use std::borrow::Cow;
use std::path::Path;

/// Stored bytes of the value codes in `values[range]` at `width` bytes each.
fn raw_bytes(values: &[u16], width: u8) -> Vec<u8> {
    if width == 1 {
        values.iter().map(|&v| v as u8).collect()
    } else {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
}

/// Serialises a solved table. Deterministic: the same values give the same bytes.
///
/// ```
/// use qiku::tablebase::format::{encode, TableFile};
/// use qiku::tablebase::{Counts, Material};
///
/// let krk: Material = "KRvK".parse()?;
/// let values: Vec<u16> = (0..2 * 45 * 90).map(|e| (e % 5) as u16).collect(); // a code per entry
/// let bytes = encode(krk, &values, &[Counts::default(); 2], true)?;
/// assert_eq!(TableFile::from_bytes(bytes, "KRvK.qtb")?.decode_all()?, values);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode(material: Material, values: &[u16], counts: &[Counts; 2], compress: bool) -> Result<Vec<u8>, TbError> {
    encode_with(material, values, counts, compress, METRIC_DTM, &[])
}

#[cfg(all(feature = "generate", test))]
/// Serialises a companion file: `rule` are the Asian rules' codes, `plain` the table's; entries
/// where they agree are stored as 0. `counts` are those of `rule`.
pub(crate) fn encode_rules(
    material: Material,
    plain: &[u16],
    rule: &[u16],
    counts: &[Counts; 2],
    bands: &[Band],
    compress: bool,
) -> Result<Vec<u8>, TbError> {
    let delta =
        |r: std::ops::Range<usize>| Cow::Owned(r.map(|e| if plain[e] == rule[e] { 0 } else { rule[e] }).collect());
    encode_blocks(material, plain.len(), &delta, counts, compress, METRIC_ASIAN, bands)
}

#[cfg(feature = "generate")]
/// The bytes of `encode_rules` from the rule-aware pass's result, which holds the plain codes
/// only as the rule-aware ones and the entries changed: each block's stored codes are made as it
/// is compressed, never a whole table of them.
pub(crate) fn encode_rule_table(
    material: Material,
    rule: &crate::tablebase::rules::RuleTable,
    counts: &[Counts; 2],
    compress: bool,
) -> Result<Vec<u8>, TbError> {
    let n = rule.table.values.len();
    encode_blocks(material, n, &|r| Cow::Owned(rule.delta(r)), counts, compress, METRIC_ASIAN, &rule.bands)
}

#[cfg(feature = "generate")]
/// The bytes of `encode_rules` for a table of `entries` entries whose rule-aware codes are all
/// its plain codes (`counts` are the table's): every stored code is 0, so every full block is
/// the same and is compressed once.
pub(crate) fn encode_rules_unchanged(
    material: Material,
    entries: u64,
    counts: &[Counts; 2],
    compress: bool,
) -> Result<Vec<u8>, TbError> {
    let width = width_of(material, counts)?;
    let block = BLOCK_ENTRIES as u64;
    let (full, rest) = (entries / block, entries % block);
    let zeros = |n: u64| seal(raw_bytes(&vec![0u16; n as usize], width), compress);
    let mut blocks = Vec::with_capacity(full as usize + 1);
    if full > 0 {
        let one = zeros(block);
        blocks.resize(full as usize, one);
    }
    if rest > 0 {
        blocks.push(zeros(rest));
    }
    let shape = Shape { per_side: entries / 2, width, block_entries: BLOCK_ENTRIES, metric: METRIC_ASIAN };
    assemble(material, shape, blocks, counts, compress, &[])
}

/// The Asian rules' codes from a table's codes and its companion's stored codes, in place:
/// `delta`, the stored codes, becomes the merged codes of the table whose codes are `plain`.
#[cfg(feature = "generate")]
pub(crate) fn merge_rules_into(delta: &mut [u16], plain: &[u16]) {
    for (d, &p) in delta.iter_mut().zip(plain) {
        if *d == 0 {
            *d = p;
        }
    }
}

fn encode_with(
    material: Material,
    values: &[u16],
    counts: &[Counts; 2],
    compress: bool,
    metric: u32,
    bands: &[Band],
) -> Result<Vec<u8>, TbError> {
    encode_blocks(material, values.len(), &|r| Cow::Borrowed(&values[r]), counts, compress, metric, bands)
}

/// [`encode_with`] for a table of `n` entries whose codes are made block by block by `codes`
/// (given the block's range of entries; borrowed where the codes are held whole).
fn encode_blocks<'v>(
    material: Material,
    n: usize,
    codes: &(dyn Fn(std::ops::Range<usize>) -> Cow<'v, [u16]> + Sync),
    counts: &[Counts; 2],
    compress: bool,
    metric: u32,
    bands: &[Band],
) -> Result<Vec<u8>, TbError> {
    let width = width_of(material, counts)?;
    // Each block is compressed as soon as its bytes are made: collecting the raw bytes of every
    // block first would hold another byte per entry beside the codes (KRPvKCA: 3.2 bytes an
    // entry at the peak instead of 2.3).
    let block = BLOCK_ENTRIES as usize;
    let blocks = (0..n.div_ceil(block))
        .into_par_iter()
        .map(|b| {
            crate::util::pressure::wait_for_release();
            seal(raw_bytes(&codes(b * block..((b + 1) * block).min(n)), width), compress)
        })
        .collect();
    let shape = Shape { per_side: n as u64 / 2, width, block_entries: BLOCK_ENTRIES, metric };
    assemble(material, shape, blocks, counts, compress, bands)
}

/// Bytes per stored code for values with these counts: 1 or 2.
fn width_of(material: Material, counts: &[Counts; 2]) -> Result<u8, TbError> {
    let max = counts.iter().map(|c| c.max_dtm).max().unwrap_or(0);
    if max <= MAX_DTM_U8 as u64 {
        Ok(1)
    } else if max <= MAX_DTM_U16 as u64 {
        Ok(2)
    } else {
        Err(TbError::TooLarge { material: material.to_string(), entries: max })
    }
}

/// Serialises a WDL file ([`METRIC_WDL`]): `codes` holds one 2-bit code (0..=3) per entry of the
/// table, `counts` are the table's. Entry `k` of a block is bits `2 (k mod 4)` and up of the
/// block's byte `k / 4`; the last byte of a block is padded with zero bits.
///
/// ```
/// use qiku::tablebase::format::{encode_wdl, TableFile, METRIC_WDL};
/// use qiku::tablebase::{Counts, Material};
///
/// let codes: Vec<u8> = (0..2 * 45 * 90).map(|e| (e % 4) as u8).collect();
/// let bytes = encode_wdl("KRvK".parse::<Material>()?, &codes, &[Counts::default(); 2], true)?;
/// let file = TableFile::from_bytes(bytes.clone(), "KRvK.qtw")?;
/// assert_eq!(file.header().metric, METRIC_WDL);
/// assert!(file.decode_all()?.iter().zip(&codes).all(|(&read, &c)| read == c as u16));
/// assert!(TableFile::from_bytes(bytes, "KRvK.qtb").is_err()); // a `.qtb` is a DTM file
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_wdl(material: Material, codes: &[u8], counts: &[Counts; 2], compress: bool) -> Result<Vec<u8>, TbError> {
    encode_wdl_blocks(material, codes.len(), &|r| Cow::Borrowed(&codes[r]), counts, compress)
}

/// [`encode_wdl`] for a table of `n` entries whose codes are made block by block by `codes`
/// (given the block's range of entries), so that no array of a code per entry is held.
pub(crate) fn encode_wdl_blocks<'v>(
    material: Material,
    n: usize,
    codes: &(dyn Fn(std::ops::Range<usize>) -> Cow<'v, [u8]> + Sync),
    counts: &[Counts; 2],
    compress: bool,
) -> Result<Vec<u8>, TbError> {
    let block = WDL_BLOCK_ENTRIES as usize;
    let blocks = (0..n.div_ceil(block))
        .into_par_iter()
        .map(|b| {
            crate::util::pressure::wait_for_release();
            seal(pack_wdl(&codes(b * block..((b + 1) * block).min(n))), compress)
        })
        .collect();
    let shape = Shape { per_side: n as u64 / 2, width: 0, block_entries: WDL_BLOCK_ENTRIES, metric: METRIC_WDL };
    assemble(material, shape, blocks, counts, compress, &[])
}

/// 2-bit codes packed 4 to a byte, first entry in the low bits.
fn pack_wdl(codes: &[u8]) -> Vec<u8> {
    codes.chunks(4).map(|q| q.iter().enumerate().fold(0u8, |b, (i, &c)| b | (c & 3) << (2 * i))).collect()
}

/// The header fields that differ between metrics.
struct Shape {
    per_side: u64,
    width: u8,
    block_entries: u32,
    metric: u32,
}

/// A block ready for the file: its codec, its stored bytes and the checksum of its raw bytes.
type Sealed = (u8, Vec<u8>, u64);

/// Checksums a block's raw bytes and compresses them when that makes them smaller.
fn seal(raw: Vec<u8>, compress: bool) -> Sealed {
    let sum = block_checksum(&raw);
    if compress {
        if let Ok(mut z) = zstd::bulk::compress(&raw, ZSTD_LEVEL) {
            // The compressor's buffer is sized for the worst case: keeping it would hold
            // about a byte per entry of the table until the file is written.
            z.shrink_to_fit();
            if z.len() < raw.len() {
                return (CODEC_ZSTD, z, sum);
            }
        }
    }
    (CODEC_RAW, raw, sum)
}

/// Lays out the file from its sealed blocks (made in parallel, in block order, so the bytes are
/// the same for any thread count).
fn assemble(
    material: Material,
    shape: Shape,
    blocks: Vec<Sealed>,
    counts: &[Counts; 2],
    compress: bool,
    bands: &[Band],
) -> Result<Vec<u8>, TbError> {
    let Shape { per_side, width, block_entries, metric } = shape;
    let payload_checksum = blocks.iter().fold(FNV_OFFSET, |h, b| fold_checksum(h, b.2));
    let mut band_table = Vec::with_capacity(bands.len() * BAND_LEN);
    for b in bands {
        band_table.extend_from_slice(&b.start.to_le_bytes());
        band_table.extend_from_slice(&[b.kind.code() as u8, 0]);
    }
    let index_len = blocks.len() * BLOCK_ENTRY_LEN + band_table.len();
    let data_len: usize = blocks.iter().map(|b| b.1.len()).sum();
    let file_len = (HEADER_LEN + index_len + data_len) as u64;
    let mut h = vec![0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    h[16..24].copy_from_slice(&zobrist::FINGERPRINT.to_le_bytes());
    h[24..32].copy_from_slice(&material.key().to_le_bytes());
    let name = material.to_string();
    h[32..32 + name.len().min(16)].copy_from_slice(&name.as_bytes()[..name.len().min(16)]);
    for (c, side) in material.counts().iter().enumerate() {
        h[48 + 7 * c..55 + 7 * c].copy_from_slice(side);
    }
    h[64..68].copy_from_slice(&SCHEME.to_le_bytes());
    h[68..72].copy_from_slice(&metric.to_le_bytes());
    h[72] = width;
    h[73] = if compress { CODEC_ZSTD } else { CODEC_RAW };
    h[76..80].copy_from_slice(&block_entries.to_le_bytes());
    h[80..88].copy_from_slice(&per_side.to_le_bytes());
    h[88..96].copy_from_slice(&(blocks.len() as u64).to_le_bytes());
    for (s, c) in counts.iter().enumerate() {
        let fields = [c.legal, c.wins, c.draws, c.losses, c.no_moves, c.max_dtm];
        for (i, v) in fields.iter().enumerate() {
            let at = 96 + s * 48 + i * 8;
            h[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    h[192..200].copy_from_slice(&payload_checksum.to_le_bytes());
    h[200..208].copy_from_slice(&file_len.to_le_bytes());
    h[208..212].copy_from_slice(&(bands.len() as u32).to_le_bytes());
    let mut index = Vec::with_capacity(index_len);
    let mut offset = (HEADER_LEN + index_len) as u64;
    for (codec, bytes, sum) in &blocks {
        index.extend_from_slice(&offset.to_le_bytes());
        index.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        index.extend_from_slice(&[*codec, 0, 0, 0]);
        index.extend_from_slice(&sum.to_le_bytes());
        offset += bytes.len() as u64;
    }
    index.extend_from_slice(&band_table);
    let header_sum = fnv1a(fnv1a(FNV_OFFSET, &h[..248]), &index);
    h[248..256].copy_from_slice(&header_sum.to_le_bytes());
    let mut out = h;
    out.reserve(index_len + data_len);
    out.extend_from_slice(&index);
    for (_, bytes, _) in &blocks {
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// Writes `bytes` to `path` atomically (see [`AtomicFile`]). A symbolic link at `path` is
/// replaced by the file, as `qiku-tb generate` does, rather than followed: a table belongs in
/// the directory named, and the file a link points to (another set's table, say) is left as
/// it is.
///
/// ```
/// # #[cfg(unix)] {
/// use qiku::tablebase::format::write_atomic;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("other.qtb"), "kept")?;
/// let link = dir.path().join("KRvK.qtb");
/// std::os::unix::fs::symlink("other.qtb", &link)?;
/// write_atomic(&link, b"new")?;
/// assert!(std::fs::symlink_metadata(&link)?.file_type().is_file());
/// assert_eq!(std::fs::read(dir.path().join("other.qtb"))?, b"kept");
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TbError> {
    AtomicFile::write_replacing_link(path, bytes).map_err(|e| TbError::io(path, e))
}
