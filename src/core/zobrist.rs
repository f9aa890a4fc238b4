//! The fixed Zobrist key table. It is part of every book and tablebase file's identity: files
//! record [`FINGERPRINT`] and are refused when it differs, so these keys must never change
//! silently. The generator (SplitMix64 from [`SEED`]) is specified in `docs/FORMAT.md` so any
//! program can reproduce the table; tests pin known values.

use super::piece::{Color, Piece, Role};
use super::square::Square;

/// The seed of the key generator: the ASCII bytes `qikuzobr`, read big-endian.
pub const SEED: u64 = 0x7169_6b75_7a6f_6272;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

struct Keys {
    piece_square: [[u64; 90]; 14],
    black_to_move: u64,
}

const fn generate() -> Keys {
    let mut keys = Keys { piece_square: [[0; 90]; 14], black_to_move: 0 };
    let mut state = SEED;
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (next, key) = splitmix64(state);
            state = next;
            keys.piece_square[p][s] = key;
            s += 1;
        }
        p += 1;
    }
    let (_, key) = splitmix64(state);
    keys.black_to_move = key;
    keys
}

static KEYS: Keys = generate();

/// For each piece and square, the key and the key of the mirrored square, side by side so that
/// make/unmake updates both keys from one cache line.
static PAIRS: [[[u64; 2]; 90]; 14] = {
    let keys = generate();
    let mut t = [[[0u64; 2]; 90]; 14];
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            t[p][s] = [keys.piece_square[p][s], keys.piece_square[p][Square::from_index_unchecked(s).mirror().index()]];
            s += 1;
        }
        p += 1;
    }
    t
};

/// `[key, mirrored key]` of `piece` on `sq`.
///
/// ```
/// use qiku::core::zobrist;
/// use qiku::{Color, Piece, Role, Square};
///
/// let (cannon, b2) = (Piece::new(Color::Red, Role::Cannon), "b2".parse::<Square>()?);
/// let [key, mirrored] = zobrist::piece_square_pair(cannon, b2);
/// assert_eq!(key, zobrist::piece_square(cannon, b2));
/// assert_eq!(mirrored, zobrist::piece_square(cannon, "h2".parse()?)); // b2 seen in the mirror
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline(always)]
pub fn piece_square_pair(piece: Piece, sq: Square) -> [u64; 2] {
    PAIRS[piece.index()][sq.index()]
}

/// FNV-1a (64-bit) over the little-endian bytes of all 1,261 keys in generation order.
const fn fingerprint() -> u64 {
    let keys = generate();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < 14 * 90 + 1 {
        let key = if i < 14 * 90 { keys.piece_square[i / 90][i % 90] } else { keys.black_to_move };
        let bytes = key.to_le_bytes();
        let mut b = 0;
        while b < 8 {
            h ^= bytes[b] as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
            b += 1;
        }
        i += 1;
    }
    h
}

/// Identifies this key set; stored in every book and tablebase header.
pub const FINGERPRINT: u64 = fingerprint();

/// The key of `piece` standing on `sq`.
///
/// A position's key is the XOR of the keys of its pieces on their squares and of the side to move:
///
/// ```
/// use qiku::core::zobrist;
/// use qiku::{Position, Square};
///
/// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 b")?;
/// let mut key = zobrist::turn(pos.turn());
/// for sq in Square::all() {
///     if let Some(piece) = pos.piece_at(sq) {
///         key ^= zobrist::piece_square(piece, sq);
///     }
/// }
/// assert_eq!(key, pos.key());
/// assert_eq!(zobrist::turn(qiku::Color::Black), zobrist::black_to_move());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn piece_square(piece: Piece, sq: Square) -> u64 {
    KEYS.piece_square[piece.index()][sq.index()]
}

/// XORed into the key when black is to move.
///
/// ```
/// use qiku::{core::zobrist, Position};
///
/// let mut pos = Position::startpos();
/// let red_to_move = pos.key();
/// pos.make_null_move(); // the same placement, black to move
/// assert_eq!(pos.key(), red_to_move ^ zobrist::black_to_move());
/// ```
#[inline]
pub fn black_to_move() -> u64 {
    KEYS.black_to_move
}

/// The side-to-move part of a key.
///
/// ```
/// use qiku::core::zobrist;
/// use qiku::{Color, Piece, Position, Role};
///
/// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 b")?;
/// let kings = zobrist::piece_square(Piece::new(Color::Red, Role::King), "e0".parse()?)
///     ^ zobrist::piece_square(Piece::new(Color::Black, Role::King), "d9".parse()?);
/// assert_eq!(pos.key(), kings ^ zobrist::turn(Color::Black));
/// assert_eq!(zobrist::turn(Color::Red), 0); // red to move adds nothing
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn turn(color: Color) -> u64 {
    match color {
        Color::Red => 0,
        Color::Black => KEYS.black_to_move,
    }
}

/// A key for a material signature (piece counts, ignoring squares and side to move): for each
/// piece kind with `n` pieces, the keys of that piece on square indices `0..n` are XORed, as
/// Stockfish does. Tablebases are found through it.
///
/// ```
/// use qiku::core::zobrist;
/// use qiku::Position;
///
/// // Same material on other squares, other side to move: the same material key.
/// let a = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
/// let b = Position::from_fen("4k4/9/9/4R4/9/9/9/9/9/3K5 b")?;
/// assert_eq!(a.material_key(), b.material_key());
/// assert_eq!(a.material_key(), zobrist::material_key(&a.material()));
/// assert_ne!(a.material_key(), Position::startpos().material_key());
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn material_key(counts: &[[u8; 7]; 2]) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece::new(color, role);
            let n = counts[color.index()][role.index()] as usize;
            if n <= 90 {
                key ^= MATERIAL_PREFIX[piece.index()][n];
            } else {
                // More pieces than squares: only a caller's made-up counts get here.
                for i in 0..n {
                    key ^= KEYS.piece_square[piece.index()][i % 90];
                }
            }
        }
    }
    key
}

/// For each piece and count `n` up to 90, the XOR of the piece's keys on square indices `0..n`:
/// [`material_key`]'s terms, looked up (the search asks for a material key at every node).
static MATERIAL_PREFIX: [[u64; 91]; 14] = {
    let keys = generate();
    let mut t = [[0u64; 91]; 14];
    let mut p = 0;
    while p < 14 {
        let mut n = 1;
        while n <= 90 {
            t[p][n] = t[p][n - 1] ^ keys.piece_square[p][n - 1];
            n += 1;
        }
        p += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_keys_never_change() {
        // These values are part of the file formats; if this test fails, the key table changed.
        assert_eq!(KEYS.piece_square[0][0], splitmix64(SEED).1);
        assert_eq!(format!("{:016x}", KEYS.piece_square[0][0]), PINNED_FIRST);
        assert_eq!(format!("{:016x}", KEYS.black_to_move), PINNED_SIDE);
        assert_eq!(format!("{:016x}", FINGERPRINT), PINNED_FINGERPRINT);
    }

    const PINNED_FIRST: &str = "a159bddcfbb11c0c";
    const PINNED_SIDE: &str = "c232ae8604204928";
    const PINNED_FINGERPRINT: &str = "e4d0c632dcc22682";

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KEYS.piece_square.iter().flatten().copied().collect();
        all.push(KEYS.black_to_move);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 14 * 90 + 1);
        assert!(all[0] != 0);
    }
}
