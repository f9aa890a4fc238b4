//! The checksums of qiku's file formats, in one place. Both formats use the same streaming
//! routine, [`WordHash`]: little-endian 64-bit words (the last one zero-padded), each folded in
//! as `h = rotl((h ^ w) * K, r)`, with the byte length mixed in at the end. Every step is a
//! bijection of the state, so a change of any single word is always detected, and it runs at
//! several GB/s. The two formats differ only in their constants (fixed by docs/FORMAT.md, so
//! existing files stay readable):
//!
//! - `.qbk` books ([`Checksum`]): seed `qikubook`, `K = 0x9e3779b97f4a7c15`, `r = 31`, then the
//!   length XORed in and a MurmurHash3-style finaliser.
//! - `.qtb` blocks ([`block_checksum`]): seed and `K` of FNV-1a, `r = 0`, then the length XORed
//!   in. The table header additionally uses bytewise FNV-1a ([`fnv1a`]), as written since
//!   version 1.

/// FNV-1a's 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
/// FNV-1a's 64-bit offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// Seed of the book checksum (ASCII `qikubook`).
pub const BOOK_SEED: u64 = 0x7169_6b75_626f_6f6b;
/// Multiplier of the book checksum (the 64-bit golden ratio).
pub const BOOK_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// The streaming word hash behind every checksum (see the module documentation).
#[derive(Clone, Debug)]
pub struct WordHash {
    h: u64,
    mul: u64,
    rot: u32,
    len: u64,
    pending: [u8; 8],
    pending_len: usize,
}

impl WordHash {
    /// A hash with seed `seed`, multiplier `mul` and rotation `rot`.
    pub const fn new(seed: u64, mul: u64, rot: u32) -> Self {
        WordHash { h: seed, mul, rot, len: 0, pending: [0; 8], pending_len: 0 }
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(self.mul).rotate_left(self.rot);
    }

    /// Adds `data`; splitting the input into any pieces gives the same result.
    pub fn update(&mut self, mut data: &[u8]) {
        self.len += data.len() as u64;
        if self.pending_len > 0 {
            let take = (8 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.pending));
            self.pending_len = 0;
        }
        let mut chunks = data.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.word(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The state after the zero-padded last word, with the byte length XORed in.
    pub fn finish_plain(mut self) -> u64 {
        if self.pending_len > 0 {
            self.pending[self.pending_len..].fill(0);
            self.word(u64::from_le_bytes(self.pending));
        }
        self.h ^ self.len
    }

    /// [`WordHash::finish_plain`] followed by a MurmurHash3-style avalanche.
    pub fn finish_mixed(self) -> u64 {
        let mut h = self.finish_plain();
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// The `.qbk` checksum (header and body), streaming.
#[derive(Clone, Debug)]
pub struct Checksum(WordHash);

impl Default for Checksum {
    fn default() -> Self {
        Checksum(WordHash::new(BOOK_SEED, BOOK_MUL, 31))
    }
}

impl Checksum {
    /// An empty checksum.
    ///
    /// (example at [`Checksum::of`])
    ///
    /// ```
    /// use qiku::book::format::Checksum;
    ///
    /// assert_eq!(Checksum::new().finish(), Checksum::of(b"")); // the checksum of no bytes
    /// ```
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds `data`.
    ///
    /// (example at [`Checksum::of`])
    ///
    /// ```
    /// use qiku::book::format::Checksum;
    ///
    /// let mut c = Checksum::new();
    /// for piece in [&b"QI"[..], b"KUBO", b"OK"] {
    ///     c.update(piece);
    /// }
    /// assert_eq!(c.finish(), Checksum::of(b"QIKUBOOK")); // however the bytes are split
    /// ```
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    /// The checksum of everything added.
    ///
    /// (example at [`Checksum::of`])
    ///
    /// ```
    /// use qiku::book::format::Checksum;
    ///
    /// let mut c = Checksum::new();
    /// c.update(b"QIKUBOOK");
    /// let sum = c.finish();
    /// assert_eq!(sum, Checksum::of(b"QIKUBOOK"));
    /// assert_ne!(sum, Checksum::of(b"QIKUBOOL")); // one bit changed
    /// ```
    pub fn finish(self) -> u64 {
        self.0.finish_mixed()
    }
    /// The checksum of `data`.
    ///
    /// ```
    /// use qiku::book::format::Checksum;
    ///
    /// let mut c = Checksum::new();
    /// c.update(b"QIKU");
    /// c.update(b"BOOK");
    /// assert_eq!(c.finish(), Checksum::of(b"QIKUBOOK")); // in pieces or at once
    /// assert_ne!(Checksum::of(b"QIKUBOOK"), Checksum::of(b"QIKUBOOL"));
    /// ```
    pub fn of(data: &[u8]) -> u64 {
        let mut c = Checksum::new();
        c.update(data);
        c.finish()
    }
}

/// The `.qtb` block checksum (`docs/FORMAT.md`): FNV-1a's offset and prime applied to 64-bit
/// little-endian words instead of bytes, with no rotation.
pub fn block_checksum(bytes: &[u8]) -> u64 {
    let mut h = WordHash::new(FNV_OFFSET, FNV_PRIME, 0);
    h.update(bytes);
    h.finish_plain()
}

/// The `.qtb` payload checksum: block checksums folded in order with the same word step
/// (start from [`FNV_OFFSET`]).
pub fn fold_checksum(h: u64, block_sum: u64) -> u64 {
    (h ^ block_sum).wrapping_mul(FNV_PRIME)
}

/// Bytewise FNV-1a over `bytes`, continuing from `h` (start with [`FNV_OFFSET`]); the `.qtb`
/// header checksum.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block checksum as version 1 of the format defines it, written out independently.
    fn reference_block(bytes: &[u8]) -> u64 {
        let mut h = FNV_OFFSET;
        for w in bytes.chunks(8) {
            let mut a = [0u8; 8];
            a[..w.len()].copy_from_slice(w);
            h = (h ^ u64::from_le_bytes(a)).wrapping_mul(FNV_PRIME);
        }
        h ^ bytes.len() as u64
    }

    #[test]
    fn streaming_matches_one_shot_and_detects_flips() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = Checksum::of(&data);
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let mut c = Checksum::new();
            c.update(&data[..split]);
            c.update(&data[split..]);
            assert_eq!(c.finish(), whole, "split at {split}");
        }
        let mut flipped = data.clone();
        for i in 0..data.len() {
            flipped[i] ^= 0x10;
            assert_ne!(Checksum::of(&flipped), whole, "byte {i}");
            flipped[i] ^= 0x10;
        }
        assert_ne!(Checksum::of(&data[..999]), Checksum::of(&[&data[..999], &[0u8][..]].concat()));
    }

    #[test]
    fn block_checksum_is_unchanged() {
        for len in [0usize, 1, 7, 8, 9, 31, 32, 33, 1000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 13 % 256) as u8).collect();
            assert_eq!(block_checksum(&data), reference_block(&data), "len {len}");
        }
    }
}
