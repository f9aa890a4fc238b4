//! A plain bitset over entry numbers, an eighth of a byte an entry: what the rule-aware pass
//! keeps beside the values it changes in place (which entries it changed, which hold a counter).

use super::error::TbError;
use super::paging::{Paging, Store};

/// One bit per entry of a range `from..from + len`; a bit outside the range reads as clear.
#[derive(Clone, Debug)]
pub(crate) struct Bits {
    from: usize,
    len: usize,
    words: Store<u64>,
}

impl Default for Bits {
    fn default() -> Bits {
        Bits::new(0, 0)
    }
}

impl Bits {
    /// `len` clear bits for entries `from..from + len`.
    pub(crate) fn new(from: usize, len: usize) -> Bits {
        Bits { from, len, words: vec![0; len.div_ceil(64)].into() }
    }

    /// [`Bits::new`], in a scratch file when `paging` is given.
    pub(crate) fn new_in(from: usize, len: usize, paging: Option<&Paging>) -> Result<Bits, TbError> {
        Ok(Bits { from, len, words: Store::zeroed(len.div_ceil(64), paging)? })
    }

    /// Bits for entries `0..len`, set where `f` says (filled in parallel, 64 entries a word),
    /// the words in a scratch file when `paging` is given.
    pub(crate) fn from_fn(
        len: usize,
        paging: Option<&Paging>,
        f: impl Fn(usize) -> bool + Sync,
    ) -> Result<Bits, TbError> {
        let mut b = Bits::new_in(0, len, paging)?;
        b.fill(f);
        Ok(b)
    }

    /// Sets the bits of entries where `f` says.
    fn fill(&mut self, f: impl Fn(usize) -> bool + Sync) {
        use rayon::prelude::*;
        let len = self.len;
        self.words.par_iter_mut().enumerate().for_each(|(i, w)| {
            for k in 0..64.min(len - 64 * i) {
                if f(64 * i + k) {
                    *w |= 1 << k;
                }
            }
        });
    }

    /// The bit of entry `e` (clear outside the range).
    #[inline]
    pub(crate) fn get(&self, e: usize) -> bool {
        match e.checked_sub(self.from) {
            Some(i) if i < self.len => self.words[i / 64] >> (i % 64) & 1 == 1,
            _ => false,
        }
    }

    /// Sets the bit of entry `e`, inside the range.
    #[inline]
    pub(crate) fn set(&mut self, e: usize) {
        let i = e - self.from;
        debug_assert!(i < self.len, "entry {e} outside the bits");
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Clears the bit of entry `e` (nothing outside the range).
    #[inline]
    pub(crate) fn clear(&mut self, e: usize) {
        if let Some(i) = e.checked_sub(self.from).filter(|&i| i < self.len) {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// The words, 64 entries each from the range's start, to fill or scan in parallel chunks.
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// The entries whose bit is set, ascending.
    pub(crate) fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(move |(i, &w)| {
            let base = self.from + 64 * i;
            (0..64).filter(move |k| w >> k & 1 == 1).map(move |k| base + k)
        })
    }

    /// The words, read only.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// Is every bit clear?
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    #[test]
    fn bits_read_set_and_clear_within_their_range_only() {
        let mut b = Bits::new(100, 130);
        assert!(b.is_empty());
        for e in [100, 163, 164, 229] {
            b.set(e);
        }
        let set: Vec<usize> = (0..300).filter(|&e| b.get(e)).collect();
        assert_eq!(set, [100, 163, 164, 229]);
        assert_eq!(b.ones().collect::<Vec<_>>(), set);
        let odd = Bits::from_fn(130, None, |e| e % 2 == 1).unwrap();
        assert_eq!(odd.ones().collect::<Vec<_>>(), (1..130).step_by(2).collect::<Vec<_>>());
        b.clear(163);
        b.clear(5);
        b.clear(1000);
        assert!(!b.get(163) && b.get(164));
        assert!(!b.is_empty());
    }
}
