//! Crafted table files with valid checksums, written from the layout in docs/FORMAT.md (not from
//! the library's writer), so that the property tests reach what lies behind the checksums: a
//! mutated header field, block index record or block body that a reader must refuse or survive.
//! Random mutations almost never keep the FNV checksums right, so without this the readers'
//! deeper checks would go untested (`tests/table_sealed.rs`). Its field edits ([`Value`],
//! [`put`]) serve the crafted books of `tests/book_file.rs` too.

use proptest::prelude::*;

/// FNV-1a 64's offset basis and prime (docs/FORMAT.md).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x100_0000_01b3;

/// FNV-1a 64 over bytes: the header checksum.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h = FNV_OFFSET;
    for part in parts {
        for &b in *part {
            h = (h ^ u64::from(b)).wrapping_mul(FNV_PRIME);
        }
    }
    h
}

/// The block checksum: FNV's constants over little-endian 64-bit words (the last one
/// zero-padded), then the length in bytes XORed in.
fn block_checksum(data: &[u8]) -> u64 {
    let mut h = FNV_OFFSET;
    for chunk in data.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(FNV_PRIME);
    }
    h ^ data.len() as u64
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

const HEADER: usize = 256;
const RECORD: usize = 24;

/// A table file taken apart: its header, band table and uncompressed blocks.
#[derive(Clone, Debug)]
pub struct Unsealed {
    header: Vec<u8>,
    bands: Vec<u8>,
    blocks: Vec<Vec<u8>>,
}

impl Unsealed {
    /// Takes a well-formed file (one the library wrote) apart.
    pub fn parse(file: &[u8]) -> Unsealed {
        let header = file[..HEADER].to_vec();
        let count = u64_at(&header, 88) as usize;
        let bands = u32_at(&header, 208) as usize;
        let band_start = HEADER + count * RECORD;
        let blocks = (0..count)
            .map(|i| {
                let r = &file[HEADER + i * RECORD..][..RECORD];
                let (off, len, codec) = (u64_at(r, 0) as usize, u32_at(r, 8) as usize, r[12]);
                let stored = &file[off..off + len];
                match codec {
                    0 => stored.to_vec(),
                    _ => zstd::decode_all(stored).expect("a zstd block"),
                }
            })
            .collect();
        Unsealed { header, bands: file[band_start..band_start + 4 * bands].to_vec(), blocks }
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The same values stored 2 bytes an entry (a DTM or companion file of width 1 becomes one of
    /// width 2, as tables with distances above 237 plies are written), so that the wide codes'
    /// reading is reached with real values; WDL files are returned as they are.
    pub fn widen(&self) -> Unsealed {
        let mut t = self.clone();
        if t.header[72] == 1 {
            t.header[72] = 2;
            t.blocks = t.blocks.iter().map(|b| b.iter().flat_map(|&c| [c, 0]).collect()).collect();
        }
        t
    }

    /// Number of bands (companion files).
    pub fn bands(&self) -> usize {
        self.bands.len() / 4
    }
}

/// One deliberate change, made before the checksums are recomputed (block bodies) or after the
/// derived fields are written but before the header checksum (header and index fields), so that
/// every change is covered by valid checksums.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Overwrite byte `at` of block `block` (indices taken modulo the sizes).
    BlockByte { block: usize, at: usize, byte: u8 },
    /// Cut block `block` to `len` bytes (modulo its size plus one) or, with `grow`, add `len % 64`
    /// bytes of `0xEE`.
    BlockLength { block: usize, len: usize, grow: bool },
    /// Overwrite the header field starting at the `field`-th offset of [`FIELDS`] with `value`'s
    /// low bytes.
    Header { field: usize, value: Value },
    /// Overwrite a field of block `block`'s index record: 0 offset, 1 stored length, 2 codec,
    /// 3 reserved bytes, 4 checksum.
    Index { block: usize, field: u8, value: Value },
    /// Overwrite byte `at` of the band table (when there is one).
    Band { at: usize, byte: u8 },
}

/// A new value for a field: a boundary or a neighbour of the old one.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// Exactly this.
    Raw(u64),
    /// The old value plus this (wrapping).
    Plus(i8),
    /// All ones.
    Max,
    /// The old value doubled.
    Double,
}

impl Value {
    /// Any of them, with raw values both anywhere and small.
    pub fn any() -> impl Strategy<Value = Value> + Clone {
        prop_oneof![
            any::<u64>().prop_map(Value::Raw),
            (0u64..300).prop_map(Value::Raw),
            any::<i8>().prop_map(Value::Plus),
            Just(Value::Max),
            Just(Value::Double),
        ]
    }

    fn apply(self, old: u64) -> u64 {
        match self {
            Value::Raw(v) => v,
            Value::Plus(d) => old.wrapping_add(d as i64 as u64),
            Value::Max => u64::MAX,
            Value::Double => old.wrapping_mul(2),
        }
    }
}

/// Offsets and widths of the header's fields (docs/FORMAT.md, "Layout"), the checksum at 248
/// excepted; the reserved bytes (62, 74, 212 to 247: both ends of the last), which a reader must
/// refuse when not 0, among them.
pub const FIELDS: &[(usize, usize)] = &[
    (0, 8),
    (8, 4),
    (12, 4),
    (16, 8),
    (24, 8),
    (32, 8),
    (40, 8),
    (48, 1),
    (52, 1),
    (55, 1),
    (59, 1),
    (62, 2),
    (64, 4),
    (68, 4),
    (72, 1),
    (73, 1),
    (74, 2),
    (76, 4),
    (80, 8),
    (88, 8),
    (96, 8),
    (104, 8),
    (112, 8),
    (120, 8),
    (128, 8),
    (136, 8),
    (144, 8),
    (152, 8),
    (160, 8),
    (168, 8),
    (176, 8),
    (184, 8),
    (192, 8),
    (200, 8),
    (208, 4),
    (212, 8),
    (240, 8),
];

/// Overwrites the little-endian field of `width` bytes (at most 8) at `at` with `value`.
pub fn put(bytes: &mut [u8], at: usize, width: usize, value: Value) {
    let mut old = [0u8; 8];
    old[..width].copy_from_slice(&bytes[at..at + width]);
    let new = value.apply(u64::from_le_bytes(old)).to_le_bytes();
    bytes[at..at + width].copy_from_slice(&new[..width]);
}

/// Applies `edits` to `table` and writes it back as a file whose block checksums, payload
/// checksum, file length and header checksum are all valid for what it holds; `compress` picks,
/// per block, zstd (bit set) or raw storage.
pub fn seal(table: &Unsealed, edits: &[Edit], compress: u64) -> Vec<u8> {
    let mut t = table.clone();
    for e in edits {
        match *e {
            Edit::BlockByte { block, at, byte } => {
                let b = &mut t.blocks[block % table.blocks()];
                if !b.is_empty() {
                    let i = at % b.len();
                    b[i] = byte;
                }
            }
            Edit::BlockLength { block, len, grow } => {
                let b = &mut t.blocks[block % table.blocks()];
                if grow {
                    b.extend(std::iter::repeat_n(0xEE, len % 64));
                } else {
                    b.truncate(len % (b.len() + 1));
                }
            }
            Edit::Band { at, byte } if !t.bands.is_empty() => {
                let i = at % t.bands.len();
                t.bands[i] = byte;
            }
            _ => {}
        }
    }
    let n = t.blocks.len();
    let stored: Vec<(Vec<u8>, u8)> = t
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| match compress >> (i % 64) & 1 {
            1 => (zstd::encode_all(&b[..], 1).expect("zstd"), 1),
            _ => (b.clone(), 0),
        })
        .collect();
    let mut index = vec![0u8; n * RECORD];
    let mut offset = (HEADER + n * RECORD + t.bands.len()) as u64;
    let mut payload = FNV_OFFSET;
    for (i, ((data, codec), raw)) in stored.iter().zip(&t.blocks).enumerate() {
        let r = &mut index[i * RECORD..][..RECORD];
        let sum = block_checksum(raw);
        r[0..8].copy_from_slice(&offset.to_le_bytes());
        r[8..12].copy_from_slice(&(data.len() as u32).to_le_bytes());
        r[12] = *codec;
        r[16..24].copy_from_slice(&sum.to_le_bytes());
        payload = (payload ^ sum).wrapping_mul(FNV_PRIME);
        offset += data.len() as u64;
    }
    let mut header = t.header;
    header[192..200].copy_from_slice(&payload.to_le_bytes());
    header[200..208].copy_from_slice(&offset.to_le_bytes());
    for e in edits {
        match *e {
            Edit::Header { field, value } => {
                let (at, width) = FIELDS[field % FIELDS.len()];
                put(&mut header, at, width, value);
            }
            Edit::Index { block, field, value } if n > 0 => {
                let r = (block % n) * RECORD;
                let (at, width) = [(0, 8), (8, 4), (12, 1), (13, 3), (16, 8)][usize::from(field % 5)];
                put(&mut index, r + at, width, value);
            }
            _ => {}
        }
    }
    let sum = fnv1a(&[&header[..248], &index, &t.bands]);
    header[248..256].copy_from_slice(&sum.to_le_bytes());
    let mut out = header;
    out.extend_from_slice(&index);
    out.extend_from_slice(&t.bands);
    for (data, _) in &stored {
        out.extend_from_slice(data);
    }
    out
}
