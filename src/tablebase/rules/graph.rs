//! The rule-aware pass's entry numbers and graphs: [`Entry`] (a `u32` or `u64` entry number,
//! chosen per table), the perpetual band's [`Graph`] and the runs [`Scanned`] it is built from,
//! flat edge lists with [`Offsets`], and their [`Reverse`]. See the parent module's doc.

use crate::core::Color;
use crate::tablebase::bits::Bits;
use crate::tablebase::board::{Board, Found};
use crate::tablebase::error::TbError;
use crate::tablebase::paging::Paging;
use rayon::prelude::*;

/// Can every entry of a table of `n` entries (and every id into a list of them) be numbered in
/// a `u32`?
pub(super) fn fits_u32(n: usize) -> bool {
    n as u64 <= 1 << 32
}

/// An entry number (or an id into a list of entries) as the pass stores it: `u32` or `u64`, see
/// "Entry numbers" in the module doc.
pub(super) trait Entry: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    /// Entry `e`; it fits, by the choice of the width (checked in debug builds).
    fn of(e: usize) -> Self;
    /// The entry as an index.
    fn index(self) -> usize;
}

impl Entry for u32 {
    #[inline]
    fn of(e: usize) -> u32 {
        debug_assert!(u32::try_from(e).is_ok(), "entry {e} past 32 bits");
        e as u32
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

impl Entry for u64 {
    #[inline]
    fn of(e: usize) -> u64 {
        e as u64
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// What the next perpetual band's search needs to look at again: the entries that qualified last
/// time (with the checks they had, kept), and those whose moves' values changed since (`dirty`:
/// a predecessor of an entry decided since), looked at anew. Any other entry's moves lead where
/// they led, so it still does not qualify, and a qualified entry that is not dirty has the same
/// checks.
pub(super) struct Graph<E> {
    /// The entries that qualified, ascending.
    pub(super) xs: Vec<E>,
    /// Where each one's checks start in `x_to` (one more offset at the end).
    pub(super) x_off: Offsets,
    /// Their checks, as ids into `a_nodes`.
    pub(super) x_to: Vec<E>,
    /// The entries their checks reach, ascending.
    pub(super) a_nodes: Vec<E>,
    pub(super) dirty: Bits,
}

/// Entries to queue, with their distances, in entry order.
pub(super) type Queued<E> = Vec<(u32, E)>;

/// A run of the defender's qualifying entries, ascending: the entries, how many checks each has,
/// and the entries the checks reach, in order. Filled by the perpetual band's search, and by the
/// counters' initialisation where it makes the first search at the same time.
pub(super) struct Scanned<E> {
    pub(super) xs: Vec<E>,
    pub(super) lens: Vec<u8>,
    pub(super) reach: Vec<E>,
}

impl<E: Entry> Scanned<E> {
    pub(super) fn new() -> Self {
        Scanned { xs: Vec::new(), lens: Vec::new(), reach: Vec::new() }
    }

    /// One move of the entry being scanned that does not lose, into `child` (its entry in this
    /// table, `None` for a capture): a check into the table is recorded; anything else (a quiet
    /// move, a capture that leaves the table) is an escape, and returns false.
    #[inline]
    pub(super) fn check(&mut self, board: &Board, turn: Color, m: Found, child: Option<E>) -> bool {
        match child {
            Some(c) if board.gives_check(turn, m) => {
                self.reach.push(c);
                true
            }
            _ => false,
        }
    }

    /// Ends the scan of entry `e`, begun when `reach` held `before` entries: kept when no move
    /// escaped and some move checks (every move lost otherwise: not this search's), dropped
    /// otherwise.
    #[inline]
    pub(super) fn close(&mut self, e: usize, before: usize, escaped: bool) {
        let checks = self.reach.len() - before;
        if !escaped && checks > 0 {
            // At most a side's moves (see the counters, below 128).
            debug_assert!(checks <= u8::MAX as usize, "{checks} checks");
            self.xs.push(E::of(e));
            self.lens.push(checks as u8);
        } else {
            self.reach.truncate(before);
        }
    }
}

impl<E: Entry> Graph<E> {
    /// The graph of the runs `parts` (in entry order) of the defender's half `from..from + per`,
    /// nothing dirty yet.
    pub(super) fn of(
        parts: Vec<Scanned<E>>,
        from: usize,
        per: usize,
        paging: Option<&Paging>,
    ) -> Result<Graph<E>, TbError> {
        let nx: usize = parts.iter().map(|p| p.xs.len()).sum();
        let edges: usize = parts.iter().map(|p| p.reach.len()).sum();
        let mut xs: Vec<E> = Vec::with_capacity(nx);
        let mut x_to: Vec<E> = Vec::with_capacity(edges);
        let mut lens: Vec<u8> = Vec::with_capacity(nx);
        for part in parts {
            xs.extend(part.xs);
            lens.extend(part.lens);
            x_to.extend(part.reach);
        }
        let x_off = Offsets::of(lens.into_iter(), nx, edges);
        let mut a_nodes: Vec<E> = x_to.clone();
        a_nodes.par_sort_unstable();
        a_nodes.dedup();
        a_nodes.shrink_to_fit();
        // Defender edges (with multiplicity, as counted), as ids of attacker nodes.
        x_to.par_iter_mut().for_each(|e| *e = E::of(a_nodes.binary_search(e).unwrap_or(0)));
        Ok(Graph { xs, x_off, x_to, a_nodes, dirty: Bits::new_in(from, per, paging)? })
    }
}

/// A run of attacker nodes' edges: each node's count, then its edges (defender id, check).
pub(super) type Edges<E> = (Vec<u8>, Vec<(E, bool)>);

/// Offsets into a flat list of edges: 4 bytes each while they fit, 8 beyond.
pub(super) enum Offsets {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Offsets {
    /// The offsets of lists of lengths `lens`, in order (one more than lists, from 0).
    pub(super) fn of(lens: impl Iterator<Item = u8>, lists: usize, total: usize) -> Offsets {
        fn fill<T: Copy + std::ops::Add<Output = T> + From<u8>>(
            lens: impl Iterator<Item = u8>,
            lists: usize,
        ) -> Vec<T> {
            let mut off = Vec::with_capacity(lists + 1);
            let mut at = T::from(0);
            off.push(at);
            for l in lens {
                at = at + T::from(l);
                off.push(at);
            }
            off
        }
        if u32::try_from(total).is_ok() {
            Offsets::Narrow(fill(lens, lists))
        } else {
            Offsets::Wide(fill(lens, lists))
        }
    }

    /// The range of list `i`.
    #[inline]
    pub(super) fn range(&self, i: usize) -> std::ops::Range<usize> {
        match self {
            Offsets::Narrow(o) => o[i] as usize..o[i + 1] as usize,
            Offsets::Wide(o) => o[i] as usize..o[i + 1] as usize,
        }
    }
}

/// Reversed edges as flat lists with offsets: for each target, its sources in the order the
/// edges were given (fewer than 256 each: a source is one of a position's moves).
pub(super) struct Reverse<E> {
    pub(super) off: Offsets,
    pub(super) from: Vec<E>,
}

impl<E: Entry> Reverse<E> {
    /// The reverse of `edges` (target, source), whose targets are below `targets`; the edges
    /// are walked twice (a count, then a fill).
    pub(super) fn new<I: Iterator<Item = (usize, usize)>>(targets: usize, edges: impl Fn() -> I) -> Reverse<E> {
        let mut lens = vec![0u8; targets];
        let mut total = 0;
        for (t, _) in edges() {
            lens[t] += 1;
            total += 1;
        }
        let off = Offsets::of(lens.iter().copied(), targets, total);
        let mut from = vec![E::of(0); total];
        for (t, s) in edges() {
            let r = off.range(t);
            lens[t] -= 1;
            from[r.end - 1 - lens[t] as usize] = E::of(s);
        }
        Reverse { off, from }
    }

    /// The sources of target `t`.
    pub(super) fn of(&self, t: usize) -> &[E] {
        &self.from[self.off.range(t)]
    }
}
