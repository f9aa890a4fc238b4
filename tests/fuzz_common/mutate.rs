//! Byte mutations for the property tests that fuzz the readers (`tests/reader_fuzz.rs`,
//! `crates/qiku-cli/tests/obk_fuzz.rs`, which include this file by path).

/// Applies `edits` (position, kind, byte) to `data`: overwrite, flip a bit, insert, delete or
/// truncate.
pub fn mutate(data: &[u8], edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut out = data.to_vec();
    for &(at, kind, byte) in edits {
        let i = if out.is_empty() { 0 } else { at % out.len() };
        match kind % 8 {
            0..=3 if !out.is_empty() => out[i] = byte,
            4 if !out.is_empty() => out[i] ^= 1 << (byte % 8),
            5 => out.insert(i, byte),
            6 if !out.is_empty() => {
                out.remove(i);
            }
            7 => out.truncate(i),
            _ => {}
        }
    }
    out
}
