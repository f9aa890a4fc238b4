//! Work that ends out of order, kept in order: `qiku label`'s scored lines (`label::partial`)
//! and `qiku match --pgn`'s games ([`crate::matchrunner::pgn_out`]) are numbered from 0 as they
//! are handed out and come back in any order. Each is held here until every one before it has
//! come; what each file does with them differs (the partial file takes only those in order, the
//! PGN file also the ones that wait, behind them), so the files are written by their owners.

use std::collections::BTreeMap;

/// Records numbered from `next` on, held until their turn.
#[derive(Debug)]
pub struct InOrder<T> {
    /// The first record not handed on yet.
    next: usize,
    /// The records not handed on, by number.
    held: BTreeMap<usize, T>,
}

impl<T> InOrder<T> {
    /// Nothing held; the records before `next` were handed on already.
    pub fn starting_at(next: usize) -> InOrder<T> {
        InOrder { next, held: BTreeMap::new() }
    }

    /// The number of the first record not handed on: how many were.
    pub fn next(&self) -> usize {
        self.next
    }

    /// Holds record `index` (one not handed on yet).
    pub fn insert(&mut self, index: usize, record: T) {
        debug_assert!(index >= self.next, "record {index} was handed on already");
        self.held.insert(index, record);
    }

    /// The records held, in order: first those whose turn it is, then those waiting for a record
    /// missing before them.
    pub fn held(&self) -> impl Iterator<Item = &T> {
        self.held.values()
    }

    /// Hands on the records whose turn it is (from `next` on, with none missing before them), in
    /// order; `next` is then past them.
    pub fn take_ready(&mut self) -> Vec<T> {
        let mut ready = Vec::new();
        while let Some(record) = self.held.remove(&self.next) {
            ready.push(record);
            self.next += 1;
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_wait_for_those_before_them() {
        let mut order = InOrder::starting_at(2);
        order.insert(4, "e");
        order.insert(3, "d");
        assert_eq!((order.take_ready(), order.next()), (vec![], 2));
        order.insert(2, "c");
        order.insert(6, "g");
        assert_eq!(order.held().copied().collect::<Vec<_>>(), ["c", "d", "e", "g"]);
        assert_eq!(order.take_ready(), ["c", "d", "e"]);
        assert_eq!((order.next(), order.held().copied().collect::<Vec<_>>()), (5, vec!["g"]));
    }
}
