//! Retrograde analysis of one material: DTM for every entry, given the (already solved) tables
//! that its captures lead to.
//!
//! 1. **Initialisation** (parallel over index chunks): each entry is unranked; overlapping or
//!    illegal placements are marked illegal. For a legal one, the legal moves are generated:
//!    captures are resolved at once through the smaller tables; non-captures are only counted
//!    (the *remaining* counter). No legal move: lost in 0 plies. A capture into a child lost in
//!    `d` makes the entry won in at most `d + 1` (queued for that level); a capture into a draw
//!    or a won-with-capture makes it unlosable; captures into children won in `d` set the lowest
//!    level `d + 1` at which the entry may be declared lost.
//! 2. **Levels** `n = 0, 1, 2, ...`: the frontier is every entry whose value was settled at `n`.
//!    Un-moves of the side that just moved give the predecessors (never captures: those are in
//!    other tables). If the frontier is lost in `n`, each unsettled predecessor is won in `n + 1`.
//!    If won in `n`, each unsettled predecessor's counter is decremented; at zero every move loses,
//!    and the entry is lost in `max(n + 1, capture bound)`. Updates are atomic and the final
//!    values do not depend on their order, so any thread count gives the same bytes; each level's
//!    new entries are sorted before they become the next frontier.
//! 3. Entries never settled are draws: neither side can force a mate, which includes every
//!    cycle. Repetition rules (perpetual check, chasing) are not applied.
//!
//! Mirror symmetry: a frontier entry stands for a placement and its mirror image, so its
//! predecessors are found from one of them and mapped to their canonical entries; see
//! `Solver::unmoves` for the case of the self-mirrored king pairs.

use super::board::{child_squares, Board};
use super::error::TbError;
use super::index::{entries_of, kings_symmetric, mirror_sq, needs_mirror, Layout, Squares, MAX_PIECES};
use super::material::Material;
use super::value::{self, Counts, ILLEGAL, UNKNOWN};
use crate::core::{Color, Piece};
use crate::util::progress::Progress;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// A solved table held in memory: the layout and one value code per entry.
pub struct Table {
    /// The index layout.
    pub layout: Layout,
    /// The value code of every entry.
    pub values: Vec<u16>,
}

impl Table {
    /// The value code of a placement (any king orientation) with `turn` to move.
    #[inline]
    pub fn code(&self, turn: Color, sq: &Squares) -> Option<u16> {
        let idx = self.layout.rank(sq)?;
        self.values.get((turn.index() as u64 * self.layout.per_side + idx) as usize).copied()
    }

    /// Counts for `stats` and the file header (see [`Counts`]).
    pub fn counts(&self) -> [Counts; 2] {
        value::count(&self.layout, &self.values)
    }
}

/// Where a capture of one slot leads: the smaller table (none for a dead-drawn material), how
/// parent slots map to its slots, and whether colours are swapped.
struct CaptureTarget {
    table: Option<Arc<Table>>,
    map: [u8; MAX_PIECES],
    flip: bool,
}

const CHUNK: usize = 1 << 13;

/// The most entries (both sides to move) of a table the generator can solve: entry numbers in
/// its frontiers are 32-bit.
pub const MAX_ENTRIES: u64 = u32::MAX as u64 - 1;

/// Can the generator solve `material` (canonical or not)? An error naming the limit otherwise:
/// more pieces than the index scheme has slots for, or more entries than [`MAX_ENTRIES`]. Checked
/// for a whole plan before any work, and by [`solve`].
pub fn check_supported(material: &Material) -> Result<(), TbError> {
    let m = material.canonical().0;
    if m.piece_count() > MAX_PIECES {
        return Err(TbError::TooManyPieces { material: m.to_string(), max: MAX_PIECES });
    }
    let entries = entries_of(&m);
    if entries > MAX_ENTRIES {
        return Err(TbError::TooManyEntries { material: m.to_string(), entries, max: MAX_ENTRIES });
    }
    Ok(())
}

/// One initialised chunk: entries lost in 0, queued (level, entry) pairs, capture bounds.
type ChunkInit = (Vec<u32>, Vec<(u16, u32)>, Vec<u16>);

/// Solves `material` (canonical), given solved tables for every canonical material its captures
/// lead to. Progress goes to `bar` ([`crate::util::NoProgress`] for none).
pub fn solve(material: Material, subs: &HashMap<Material, Arc<Table>>, bar: &dyn Progress) -> Result<Table, TbError> {
    check_supported(&material)?;
    let layout = Layout::new(material);
    let captures = capture_targets(&layout, subs)?;
    let n_entries = layout.entries() as usize;
    let solver = Solver {
        layout: &layout,
        captures,
        val: (0..n_entries).map(|_| AtomicU16::new(UNKNOWN)).collect(),
        cnt: (0..n_entries).map(|_| AtomicU8::new(0)).collect(),
        cap: vec![0u16; n_entries],
    };
    let mut solver = solver;
    bar.start(&material.to_string(), n_entries as u64);
    bar.message("initialising");
    let (mut frontier, deferred) = solver.initialise(bar);
    let mut deferred = group_by_level(deferred);
    let mut level: u16 = 0;
    loop {
        bar.message(&format!("level {level}, {} entries", frontier.len()));
        let (mut next, more) = solver.expand(&frontier, level);
        for (l, list) in group_by_level(more) {
            deferred.entry(l).or_default().extend(list);
        }
        let target = level + 1;
        if let Some(list) = deferred.remove(&target) {
            let code = value::code(target);
            for idx in list {
                if solver.val[idx as usize].compare_exchange(UNKNOWN, code, Relaxed, Relaxed).is_ok() {
                    next.push(idx);
                }
            }
        }
        next.par_sort_unstable();
        if next.is_empty() && deferred.is_empty() {
            break;
        }
        frontier = next;
        level = target;
    }
    let values = solver.val.into_iter().map(AtomicU16::into_inner).collect();
    Ok(Table { layout, values })
}

fn group_by_level(mut list: Vec<(u16, u32)>) -> BTreeMap<u16, Vec<u32>> {
    list.sort_unstable();
    let mut out: BTreeMap<u16, Vec<u32>> = BTreeMap::new();
    for (l, i) in list {
        out.entry(l).or_default().push(i);
    }
    out
}

fn capture_targets(
    layout: &Layout,
    subs: &HashMap<Material, Arc<Table>>,
) -> Result<Vec<Option<CaptureTarget>>, TbError> {
    let n = layout.pieces.len();
    let mut out = Vec::new();
    for victim in 0..n {
        if victim < 2 {
            out.push(None);
            continue;
        }
        let mut counts = layout.material.counts();
        let p = layout.pieces[victim];
        counts[p.color.index()][p.role.index()] -= 1;
        let (sub, flip) = Material::from_counts(counts).canonical();
        let table = if sub.has_attackers() {
            Some(subs.get(&sub).cloned().ok_or_else(|| TbError::MissingDependency {
                material: layout.material.to_string(),
                needs: sub.to_string(),
            })?)
        } else {
            None
        };
        let mut map = [255u8; MAX_PIECES];
        if let Some(t) = &table {
            let mut used = [false; MAX_PIECES];
            for (i, piece) in layout.pieces.iter().enumerate() {
                if i == victim {
                    continue;
                }
                let want = if flip { Piece::new(!piece.color, piece.role) } else { *piece };
                let j =
                    (0..t.layout.pieces.len()).find(|&j| !used[j] && t.layout.pieces[j] == want).ok_or_else(|| {
                        TbError::MissingDependency { material: layout.material.to_string(), needs: sub.to_string() }
                    })?;
                used[j] = true;
                map[i] = j as u8;
            }
        }
        out.push(Some(CaptureTarget { table, map, flip }));
    }
    Ok(out)
}

struct Solver<'a> {
    layout: &'a Layout,
    captures: Vec<Option<CaptureTarget>>,
    val: Vec<AtomicU16>,
    /// Non-capture moves not yet known to lose; `+ UNLOSABLE` when a capture saves the entry.
    cnt: Vec<AtomicU8>,
    /// Lowest level at which the entry may be lost (1 + its longest losing capture).
    cap: Vec<u16>,
}

/// Added to the counter of an entry that a capture keeps from losing: it never reaches zero
/// (an entry has fewer than 100 non-capture moves: with at most 8 pieces, the most is about 92,
/// two rooks, two cannons, two horses, an advisor and the king; the counter is a `u8`).
const UNLOSABLE: u32 = 100;

impl Solver<'_> {
    fn side_and_index(&self, full: usize) -> (Color, u64) {
        let per = self.layout.per_side as usize;
        (if full < per { Color::Red } else { Color::Black }, (full % per) as u64)
    }

    /// Step 1. Returns the entries lost in 0 (sorted) and the queued capture results. Works by
    /// placement, both sides to move at once, so each placement is unranked and set up once.
    fn initialise(&mut self, bar: &dyn Progress) -> (Vec<u32>, Vec<(u16, u32)>) {
        let this = &*self;
        let per = this.layout.per_side as usize;
        let cap_chunks: Vec<ChunkInit> = (0..per.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let start = c * CHUNK;
                let end = (start + CHUNK).min(per);
                let mut lost = Vec::new();
                let mut deferred = Vec::new();
                let mut caps = vec![0u16; 2 * (end - start)];
                this.layout.walk(start as u64..end as u64, |idx, sq| {
                    let idx = idx as usize;
                    let board = Board::new(this.layout, sq);
                    for turn in Color::ALL {
                        let full = turn.index() * per + idx;
                        let (code, cnt, cap, queue) = match &board {
                            Some(b) => this.init_entry(b, sq, turn),
                            None => (ILLEGAL, 0, 0, None),
                        };
                        this.val[full].store(code, Relaxed);
                        this.cnt[full].store(cnt, Relaxed);
                        caps[turn.index() * (end - start) + idx - start] = cap;
                        if code == value::code(0) {
                            lost.push(full as u32);
                        }
                        if let Some(level) = queue {
                            deferred.push((level, full as u32));
                        }
                    }
                });
                bar.advance(2 * (end - start) as u64);
                (lost, deferred, caps)
            })
            .collect();
        let mut lost = Vec::new();
        let mut deferred = Vec::new();
        for (c, (l, d, caps)) in cap_chunks.into_iter().enumerate() {
            lost.extend(l);
            deferred.extend(d);
            let (red, black) = caps.split_at(caps.len() / 2);
            self.cap[c * CHUNK..c * CHUNK + red.len()].copy_from_slice(red);
            self.cap[per + c * CHUNK..per + c * CHUNK + black.len()].copy_from_slice(black);
        }
        lost.par_sort_unstable();
        (lost, deferred)
    }

    /// One legal-or-not entry's initial value code, counter, capture bound and queued level (a
    /// capture win, or a loss through captures alone).
    fn init_entry(&self, board: &Board, sq: &Squares, turn: Color) -> (u16, u8, u16, Option<u16>) {
        if !board.is_legal(turn) {
            return (ILLEGAL, 0, 0, None);
        }
        let n = self.layout.pieces.len();
        let mut any_capture = false;
        let mut unlosable = false;
        let mut best_win: Option<u16> = None;
        let mut loss_bound: u16 = 0;
        let quiet = board.for_each_move(turn, |m| {
            any_capture = true;
            let Some(victim) = m.captured else { return };
            let Some(target) = &self.captures[victim] else { return };
            let child = match &target.table {
                None => UNKNOWN,
                Some(t) => {
                    let csq = child_squares(sq, n, m.slot, m.to, &target.map, target.flip);
                    let cturn = if target.flip { turn } else { !turn };
                    t.code(cturn, &csq).unwrap_or(UNKNOWN)
                }
            };
            match value::dtm_of(child) {
                None => unlosable = true,
                Some(d) if d % 2 == 0 => {
                    unlosable = true;
                    best_win = Some(best_win.map_or(d + 1, |b| b.min(d + 1)));
                }
                Some(d) => loss_bound = loss_bound.max(d + 1),
            }
        });
        if quiet == 0 && !any_capture {
            return (value::code(0), 0, 0, None);
        }
        let cnt = quiet + if unlosable { UNLOSABLE } else { 0 };
        let queue = if best_win.is_some() {
            best_win
        } else if quiet == 0 && !unlosable {
            Some(loss_bound)
        } else {
            None
        };
        (UNKNOWN, cnt as u8, loss_bound, queue)
    }

    /// Step 2 for one level: returns the entries settled at `level + 1` by the frontier, and
    /// losses that must wait for a later level because of a capture bound.
    fn expand(&self, frontier: &[u32], level: u16) -> (Vec<u32>, Vec<(u16, u32)>) {
        let won = level % 2 == 1;
        let next_code = value::code(level + 1);
        frontier
            .par_chunks(CHUNK / 4)
            .map(|chunk| {
                let mut next = Vec::new();
                let mut later = Vec::new();
                for &p in chunk {
                    self.unmoves(p as usize, |q| {
                        let v = &self.val[q];
                        if v.load(Relaxed) != UNKNOWN {
                            return;
                        }
                        if !won {
                            if v.compare_exchange(UNKNOWN, next_code, Relaxed, Relaxed).is_ok() {
                                next.push(q as u32);
                            }
                            return;
                        }
                        let prev = self.cnt[q].fetch_sub(1, Relaxed);
                        debug_assert!(prev > 0, "counter underflow at {q}");
                        if prev == 1 {
                            let at = self.cap[q].max(level + 1);
                            if at == level + 1 {
                                v.store(next_code, Relaxed);
                                next.push(q as u32);
                            } else {
                                later.push((at, q as u32));
                            }
                        }
                    });
                }
                (next, later)
            })
            .reduce(
                || (Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a
                },
            )
    }

    /// Calls `f(entry)` once for every (legal or not) predecessor move into the frontier entry
    /// `p`, with multiplicity: an entry with two moves into `p`'s value class is reported twice.
    ///
    /// `p`'s placement stands for itself and, unless its kings are both on file e, for its mirror
    /// image. A predecessor `q` found from `p` is reported at its canonical entry, except:
    /// - `p` not self-mirrored, `q` with both kings on file e (a king un-move): `q` and its mirror
    ///   image are separate entries, and the mirror image moves into `p`'s mirror image, which is
    ///   the same entry, so both are reported;
    /// - `p` with both kings on file e, `q` whose canonical form is its mirror image: that mirror
    ///   image moves into `p`'s mirror image, a different entry, which reports it itself.
    fn unmoves(&self, p: usize, mut f: impl FnMut(usize)) {
        let (turn, idx) = self.side_and_index(p);
        let mover = !turn;
        let base = mover.index() * self.layout.per_side as usize;
        let mut sq = [0u8; MAX_PIECES];
        self.layout.unrank(idx, &mut sq);
        let Some(board) = Board::new(self.layout, &sq) else { return };
        let sym_p = kings_symmetric(sq[0], sq[1]);
        let n = self.layout.pieces.len();
        board.for_each_unmove(mover, |slot, from| {
            let mut q = sq;
            q[slot] = from;
            let mut emit = |q: &Squares, canonical: bool| {
                let r = if canonical { self.layout.rank_canonical(q) } else { self.layout.rank(q) };
                if let Some(r) = r {
                    f(base + r as usize);
                }
            };
            if slot >= 2 {
                if let Some(r) = self.layout.rerank(idx, &sq, slot, from) {
                    f(base + r as usize);
                }
            } else if kings_symmetric(q[0], q[1]) {
                emit(&q, true);
                if !sym_p {
                    let mut m = q;
                    for s in &mut m[..n] {
                        *s = mirror_sq(*s);
                    }
                    emit(&m, true);
                }
            } else if !needs_mirror(q[0], q[1]) {
                emit(&q, true);
            } else if !sym_p {
                emit(&q, false);
            }
        });
    }
}
