//! Retrograde analysis of one material: DTM for every entry, given the (already solved) tables
//! that its captures lead to, in 2.25 bytes of memory per entry.
//!
//! 1. **Initialisation** (parallel over index chunks): each entry is unranked; overlapping or
//!    illegal placements are marked illegal. For a legal one, the legal moves are generated:
//!    captures are resolved at once through the smaller tables; non-captures are only counted
//!    (the *remaining* counter). No legal move: lost in 0 plies. A capture into a child lost in
//!    `d` makes the entry won in at most `d + 1` (pending at that level); a capture into a draw
//!    or a won-with-capture makes it unlosable; captures into children won in `d` set the lowest
//!    level `d + 1` at which the entry may be declared lost.
//! 2. **Levels** `n = 0, 1, 2, ...`: the frontier is every entry whose value was settled at `n`,
//!    a bitmap filled as entries are settled (no frontier lists). Un-moves of the side that just moved give the predecessors (never captures: those
//!    are in other tables). If the frontier is lost in `n`, each unsettled predecessor is won in
//!    `n + 1`. If won in `n`, each unsettled predecessor's counter is decremented; at zero every
//!    move loses, and the entry is lost in `max(n + 1, capture bound)`, the capture bound being
//!    derived again then from the entry's captures (it is not stored). Updates are atomic and
//!    the final values do not depend on their order, so any thread count gives the same bytes.
//! 3. Entries never settled are draws: neither side can force a mate, which includes every
//!    cycle. Repetition rules (perpetual check, chasing) are not applied.
//!
//! **Memory.** The result is a `Vec<u16>` of value codes; while solving, the same allocation is
//! used as two byte arrays: a 1-byte working value per entry (the value code itself up to level
//! [`FAR_LEVEL`] - 1, a marker with the level in a side list beyond) and a 1-byte counter (which
//! also holds an unlosable entry's pending capture win). At the end the bytes are widened into
//! the codes in place. Besides that: two frontier bitmaps (current and next level), a few bits per
//! chunk of 8,192 entries, and short lists of the rare entries whose loss waits for a capture
//! bound. See "Memory" in `docs/TABLEBASES.md`.
//!
//! Mirror symmetry: a frontier entry stands for a placement and its mirror image, so its
//! predecessors are found from one of them and mapped to their canonical entries; see
//! `Solver::unmoves` for the case of the self-mirrored king pairs.

use super::bits::Bits;
use super::board::{child_squares, Board, Found as Move};
use super::checkpoint::{Checkpoints, Shape};
use super::error::TbError;
use super::index::{mirror_sq, Layout, Squares, MAX_PIECES};
use super::material::Material;
use super::paging::{Paging, Store};
use super::value::{self, dtm_of, Counts, ILLEGAL};

/// Code of an entry not yet decided (during generation): the code a draw ends with.
const UNKNOWN: u16 = value::DRAW;
use crate::core::{Color, Piece};
use crate::util::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// A table held in memory, decoded whole: one value code per entry (the scheme of
/// [`crate::tablebase::format`]), for tools that read or rewrite every entry. Made by the solver,
/// or read back by [`crate::tablebase::generate::load`].
///
/// ```
/// use qiku::tablebase::format::{self, dtm_of, DRAW};
/// use qiku::tablebase::generate::{generate_set, load, verify_table, GenerateOptions, TableCache};
/// use qiku::tablebase::{file_name, Material};
/// use qiku::Position;
///
/// let dir = tempfile::tempdir()?;
/// let krk: Material = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()).rules(false))?;
/// let path = dir.path().join(file_name(krk));
/// let mut table = load(&path)?;
/// assert_eq!((table.material(), table.entries()), (krk, 2 * 45 * 90));
/// // The entry of a position, and the position of an entry.
/// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
/// let i = table.index_of(&pos).expect("a KRvK position");
/// assert_eq!(table.setup(i).map(|s| s.to_fen()), Some(pos.fen()));
/// assert!(dtm_of(table.codes()[i as usize]).is_some_and(|d| d % 2 == 1)); // won
/// // Claim the win is a draw and write the file again: verification names the position.
/// table.codes_mut()[i as usize] = DRAW;
/// format::write_atomic(&path, &format::encode(krk, table.codes(), &table.counts(), true)?)?;
/// let err = verify_table(dir.path(), krk, &mut TableCache::new()).unwrap_err();
/// assert!(err.to_string().contains("but its moves give"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Table {
    /// The index layout.
    pub(crate) layout: Layout,
    /// The value code of every entry (in memory, or in a scratch file when paged).
    pub(crate) values: Store<u16>,
}

impl Table {
    /// The table's (canonical) material. (example at [`Table`])
    pub fn material(&self) -> Material {
        self.layout.material
    }

    /// Entries, both sides to move (red-to-move entries first). (example at [`Table`])
    pub fn entries(&self) -> u64 {
        self.values.len() as u64
    }

    /// Every entry's value code. (example at [`Table`])
    pub fn codes(&self) -> &[u16] {
        &self.values
    }

    /// Every entry's value code, to change (a tool that rewrites a table, a test that damages
    /// one). (example at [`Table`])
    pub fn codes_mut(&mut self) -> &mut [u16] {
        &mut self.values
    }

    /// The entry of a position of this material (either color order: the one the table
    /// stores), `None` for another material. (example at [`Table`])
    pub fn index_of(&self, pos: &crate::core::Position) -> Option<u64> {
        self.layout.index_of(pos)
    }

    /// How many positions entry `entry` stands for: 1 when its kings are both on file e (the
    /// placement is its own mirror image), 2 otherwise (it and its mirror image), as
    /// [`Counts`] count them; 0 past the end.
    ///
    /// ```
    /// use qiku::tablebase::format::ILLEGAL;
    /// use qiku::tablebase::generate::{generate_set, load, GenerateOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()).rules(false))?;
    /// let table = load(&dir.path().join("KRvK.qtb"))?;
    /// // Red to move: the legal entries, weighted by the positions they stand for, are the legal count.
    /// let red = (0..table.entries() / 2).filter(|&e| table.codes()[e as usize] != ILLEGAL);
    /// assert_eq!(red.map(|e| table.positions_of(e)).sum::<u64>(), table.counts()[0].legal);
    /// assert_eq!(table.positions_of(table.entries()), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn positions_of(&self, entry: u64) -> u64 {
        let per = self.layout.per_side;
        if entry >= 2 * per {
            return 0;
        }
        if self.layout.pair_symmetric((entry % per) / self.layout.group_span) {
            1
        } else {
            2
        }
    }

    /// The placement of entry `entry`: `None` past the end and where two pieces share a square. (example at [`Table`])
    pub fn setup(&self, entry: u64) -> Option<crate::core::Setup> {
        self.layout.entry_setup(entry)
    }

    /// Counts for `stats` and the file header (see [`Counts`]).
    ///
    /// ```
    /// use qiku::tablebase::format::TableFile;
    /// use qiku::tablebase::generate::{generate_set, load, GenerateOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()).rules(false))?;
    /// let path = dir.path().join("KRvK.qtb");
    /// let counts = load(&path)?.counts();
    /// assert_eq!(counts, TableFile::open(&path)?.header().counts); // what the file records
    /// assert_eq!(counts[0].legal, counts[0].wins + counts[0].draws + counts[0].losses);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn counts(&self) -> [Counts; 2] {
        count(&self.layout, &self.values)
    }
}

/// Where a capture of one slot leads: the smaller table (none for a dead-drawn material), how
/// parent slots map to its slots, and whether colors are swapped.
pub(super) struct CaptureTarget {
    /// The smaller table, `None` for a dead-drawn material.
    pub(super) table: Option<Arc<Table>>,
    /// The entries of `table` that read as draws here (see [`Sub`]).
    pub(super) drawn: Option<Arc<Bits>>,
    /// Parent slot -> child slot (255: the captured piece).
    pub(super) map: [u8; MAX_PIECES],
    /// Colors swapped in the child table.
    pub(super) flip: bool,
}

impl CaptureTarget {
    /// The code of the child placement `sq` (slots of the smaller table) with `turn` to move;
    /// `None` for a dead-drawn material or a placement outside the table.
    #[inline]
    pub(super) fn code(&self, turn: Color, sq: &Squares) -> Option<u16> {
        let t = self.table.as_ref()?;
        let idx = t.layout.rank(sq)?;
        let e = (turn.index() as u64 * t.layout.per_side + idx) as usize;
        let code = *t.values.get(e)?;
        Some(if self.drawn.as_ref().is_some_and(|d| d.get(e)) { UNKNOWN } else { code })
    }
}

/// A decoded smaller table as the solvers read it through captures: its codes, and, where it is
/// the plain view of a table held only with its Asian-rules codes, the entries the rules changed,
/// which read as draws (only draws change). So one array serves both views of a table the rules
/// change, where two copies were held before.
#[derive(Clone)]
pub(crate) struct Sub {
    /// The codes.
    pub(crate) table: Arc<Table>,
    /// The entries that read as draws in this view; `None`: every code as it is.
    pub(crate) drawn: Option<Arc<Bits>>,
}

impl Sub {
    /// A table read as it is.
    pub(crate) fn of(table: Arc<Table>) -> Sub {
        Sub { table, drawn: None }
    }
}

/// Entries per chunk: the unit of parallel work and of the "has a frontier entry" flags.
pub(super) const CHUNK: usize = 1 << 13;

pub(crate) use super::advice::check_supported;
pub use super::advice::MAX_ENTRIES;

/// Levels from this one on do not fit a working byte (whose codes stop at `code(FAR_LEVEL - 1)`,
/// 239, the largest 1-byte code of the file format): their entries hold `FAR` and are listed
/// with their level.
pub const FAR_LEVEL: u16 = 238;
/// The working byte of an entry settled at [`FAR_LEVEL`] or later.
const FAR: u8 = 255;

/// Counter byte of an entry that a capture keeps from losing; above it, `UNLOSABLE + 1 + j`: also
/// won by a capture in `2j + 1` plies unless something faster is found. Below it: the number of
/// non-capture moves not yet known to lose, always below 128: a whole side (two rooks, horses and
/// cannons, five pawns, two advisors and elephants, the king) has at most 84 + 15 + 8 + 8 + 4.
const UNLOSABLE: u8 = 128;
/// The longest capture win a counter byte holds (`UNLOSABLE + 1 + 126 = 255`); longer ones are
/// listed.
pub(super) const MAX_PENDING_WIN: u16 = 2 * 126 + 1;

/// The working byte of an entry settled at `level < FAR_LEVEL`.
#[inline]
fn code8(level: u16) -> u8 {
    debug_assert!(level < FAR_LEVEL);
    value::code(level) as u8
}

/// Where the working bytes stop: [`FAR_LEVEL`] and [`MAX_PENDING_WIN`], lowered by the tests to
/// run the side lists on small tables.
#[derive(Copy, Clone, Debug)]
struct Limits {
    far_level: u16,
    max_pending_win: u16,
}

const LIMITS: Limits = Limits { far_level: FAR_LEVEL, max_pending_win: MAX_PENDING_WIN };

/// Solves `material` (canonical), given solved tables for every canonical material its captures
/// lead to. Progress goes to `bar` ([`crate::NoProgress`] for none). With `paging`, the value
/// and frontier arrays live in scratch files within its budget (the same values, more slowly),
/// and the solve checkpoints its levels there: the level it resumed at from an interrupted run's
/// checkpoint comes with the table.
pub fn solve(
    material: Material,
    subs: &HashMap<Material, Sub>,
    bar: &dyn Progress,
    paging: Option<&Paging>,
) -> Result<(Table, Option<u16>), TbError> {
    solve_with(material, subs, bar, LIMITS, paging)
}

fn solve_with(
    material: Material,
    subs: &HashMap<Material, Sub>,
    bar: &dyn Progress,
    limits: Limits,
    paging: Option<&Paging>,
) -> Result<(Table, Option<u16>), TbError> {
    check_supported(&material)?;
    let layout = Layout::new(material);
    let captures = capture_targets(&layout, subs)?;
    let n = layout.entries() as usize;
    bar.start(&material.to_string(), n as u64);
    bar.message("initialising");
    // Zeroed memory (or a sparse scratch file): the pages are only committed as they are written.
    let mut values: Store<u16> = Store::zeroed(n, paging)?;
    // A paged solve checkpoints its levels (see `checkpoint`), and resumes from the last one.
    let mut resume = match (paging, values.file()) {
        (Some(p), Some(file)) => {
            let file = file.try_clone().map_err(|e| TbError::io(p.scratch(), e))?;
            let ident = Solver::solve_identity(&layout, &captures, limits);
            Some((Checkpoints::new(p.scratch(), &material.to_string(), ident, p.checkpoint_interval()), file))
        }
        _ => None,
    };
    let (far, resumed) = {
        let store: &mut [u16] = &mut values;
        // Safety: `store` is 2n initialised bytes, exclusively borrowed for this block, and
        // AtomicU8 has the size and alignment of u8; while the atomic view lives, `store` is not
        // touched in any other way.
        let bytes: &[AtomicU8] = unsafe { std::slice::from_raw_parts(store.as_mut_ptr().cast::<AtomicU8>(), 2 * n) };
        let (val, cnt) = bytes.split_at(n);
        let solver = Solver { layout: &layout, captures, val, cnt, limits };
        solver.run(bar, paging, resume.as_mut().map(|(c, f)| (c, &*f)))?
    };
    widen_in_place(&mut values);
    for (level, list) in far {
        for q in list {
            values[q as usize] = value::code(level);
        }
    }
    Ok((Table { layout, values }, resumed))
}

/// Turns `values`, whose first `len` bytes hold one working byte per entry, into one `u16` code
/// per entry (the working bytes below [`FAR`] are the codes themselves).
fn widen_in_place(values: &mut [u16]) {
    let p = values.as_mut_ptr();
    for i in (0..values.len()).rev() {
        if i % (1 << 20) == 0 {
            crate::util::pressure::wait_for_release();
        }
        // Safety: byte `i` and entry `i` (bytes `2i` and `2i + 1`) lie within the slice. Going
        // down, entry `i` is written after byte `i` is read, and the bytes still to be read
        // (`0..i`) lie below `2i`, so none is overwritten before it is read.
        unsafe {
            let b = p.cast::<u8>().add(i).read();
            p.add(i).write(b as u16);
        }
    }
}

pub(super) fn capture_targets(
    layout: &Layout,
    subs: &HashMap<Material, Sub>,
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
        let (table, drawn) = if sub.has_attackers() {
            let held = subs.get(&sub).cloned().ok_or_else(|| TbError::MissingDependency {
                material: layout.material.to_string(),
                needs: sub.to_string(),
            })?;
            (Some(held.table), held.drawn)
        } else {
            (None, None)
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
        out.push(Some(CaptureTarget { table, drawn, map, flip }));
    }
    Ok(out)
}

/// An entry waiting for a later level, in 8 bytes: the level in the top 16 bits, the entry
/// (below 2^48, far above [`MAX_ENTRIES`]) in the rest. The lists of such entries reach millions
/// in the largest tables (a `(u16, u64)` took 16 bytes, and the list was copied every level).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Waiting(u64);

/// The bits of a [`Waiting`] that hold its entry (the level is above them).
pub(super) const WAITING_ENTRY_BITS: u32 = 48;

/// What a checkpoint of the solve of a table of `entries` entries must agree with, at the
/// solver's real limits.
pub(crate) fn checkpoint_shape(entries: u64) -> Shape {
    Shape {
        entries,
        chunk: CHUNK as u64,
        far_level: FAR_LEVEL,
        max_pending_win: MAX_PENDING_WIN,
        waiting_entry_bits: WAITING_ENTRY_BITS,
    }
}

impl Waiting {
    const ENTRY_BITS: u32 = WAITING_ENTRY_BITS;

    fn new(level: u16, entry: u64) -> Waiting {
        debug_assert!(entry < 1 << Self::ENTRY_BITS);
        Waiting(u64::from(level) << Self::ENTRY_BITS | entry)
    }

    fn level(self) -> u16 {
        (self.0 >> Self::ENTRY_BITS) as u16
    }

    fn entry(self) -> usize {
        (self.0 & ((1 << Self::ENTRY_BITS) - 1)) as usize
    }
}

/// What initialisation found besides the bytes it set.
#[derive(Default)]
struct Init {
    /// Losses through captures alone, and capture wins too long for a counter byte.
    later: Vec<Waiting>,
    /// The latest level of any of those or of a pending capture win.
    horizon: u16,
}

struct Solver<'a> {
    layout: &'a Layout,
    captures: Vec<Option<CaptureTarget>>,
    /// Working value byte per entry: `UNKNOWN`, `ILLEGAL`, `code8(level)` or [`FAR`].
    val: &'a [AtomicU8],
    /// Counter byte per entry (see [`UNLOSABLE`]).
    cnt: &'a [AtomicU8],
    limits: Limits,
}

/// What a pass over one chunk found besides the values it set: entries settled at a far level,
/// losses that wait for a later level, and how many entries it settled.
#[derive(Default)]
struct Found {
    far: Vec<u64>,
    later: Vec<Waiting>,
    settled: u64,
}

impl Found {
    fn merge(mut self, other: Found) -> Found {
        self.far.extend(other.far);
        self.later.extend(other.later);
        self.settled += other.settled;
        self
    }
}

/// Per-chunk bookkeeping of the level loop.
struct Chunks {
    /// Chunks holding an entry settled at the current level, and at the next.
    cur: Vec<AtomicBool>,
    next: Vec<AtomicBool>,
    /// One bit per entry: settled at the current level, and at the next (the frontiers; a
    /// quarter of a byte an entry for both, and scanned 64 entries a word).
    bits_cur: Store<AtomicU64>,
    bits_next: Store<AtomicU64>,
    /// Per chunk, the levels (bit `l`) at which some entry has a pending capture win.
    pending: Vec<[AtomicU64; 4]>,
}

/// Frontier bitmap words per chunk.
const CHUNK_WORDS: usize = CHUNK / 64;

impl Chunks {
    /// Marks entry `q` as settled at the next level.
    #[inline]
    fn mark_next(&self, q: usize) {
        self.next[q / CHUNK].store(true, Relaxed);
        self.bits_next[q / 64].fetch_or(1 << (q % 64), Relaxed);
    }

    fn pending_at(&self, c: usize, level: u16) -> bool {
        level < 256 && self.pending[c][level as usize / 64].load(Relaxed) >> (level % 64) & 1 != 0
    }
}

impl Solver<'_> {
    fn side_and_index(&self, full: usize) -> (Color, u64) {
        side_and_index(self.layout, full)
    }

    /// Settles `q` at `level` unless it is settled already.
    #[inline]
    fn settle(&self, q: usize, level: u16, chunks: &Chunks, found: &mut Found) {
        let far = level >= self.limits.far_level;
        let byte = if far { FAR } else { code8(level) };
        if self.val[q].compare_exchange(UNKNOWN as u8, byte, Relaxed, Relaxed).is_ok() {
            found.settled += 1;
            if !far {
                chunks.mark_next(q);
            } else {
                found.far.push(q as u64);
            }
        }
    }

    /// Steps 1 to 3. Returns the entries settled at far levels, by level.
    fn run(
        &self,
        bar: &dyn Progress,
        paging: Option<&Paging>,
        mut resume: Option<(&mut Checkpoints, &std::fs::File)>,
    ) -> Result<(FarLevels, Option<u16>), TbError> {
        let n = self.val.len();
        let n_chunks = n.div_ceil(CHUNK);
        let far_level = self.limits.far_level;
        let mut chunks = Chunks {
            cur: (0..n_chunks).map(|_| AtomicBool::new(false)).collect(),
            next: (0..n_chunks).map(|_| AtomicBool::new(false)).collect(),
            bits_cur: Store::zeroed(n.div_ceil(64), paging)?,
            bits_next: Store::zeroed(n.div_ceil(64), paging)?,
            pending: (0..n_chunks).map(|_| Default::default()).collect(),
        };
        let shape = Shape { far_level, max_pending_win: self.limits.max_pending_win, ..checkpoint_shape(n as u64) };
        let mut saved = match &mut resume {
            Some((c, values)) => match chunks.bits_cur.file() {
                Some(bits) => c.load(&shape, &[("values", values), ("bits", bits)], bar)?,
                None => None,
            },
            None => None,
        };
        if let (Some(s), Some((c, _))) = (&saved, &mut resume) {
            // The state was checked on its own; now its arrays against it. Refused, the arrays
            // copied in are cleared for the fresh start (initialisation sets every working byte
            // and counter, but only marks the frontier bits it sets).
            if let Err((array, why)) = self.check_arrays(&chunks, s) {
                c.refuse(&c.loaded_array(array), &why, bar);
                chunks.bits_cur.par_iter().for_each(|w| w.store(0, Relaxed));
                saved = None;
            }
        }
        let mut later: Vec<Waiting>;
        let mut horizon: u16;
        let mut far_levels: Vec<(u16, Vec<u64>)>;
        let mut far_frontier: Vec<u64>;
        let mut level: u16;
        let resumed = saved.as_ref().map(|s| s.level as u16);
        match saved {
            Some(s) => {
                // The arrays were copied back; the small state follows.
                for (flag, &v) in chunks.cur.iter().zip(&s.cur) {
                    flag.store(v != 0, Relaxed);
                }
                for (p, w) in chunks.pending.iter().zip(s.pending.chunks(4)) {
                    for (a, &v) in p.iter().zip(w) {
                        a.store(v, Relaxed);
                    }
                }
                later = s.later.into_iter().map(Waiting).collect();
                horizon = s.horizon as u16;
                far_levels = s.far_levels.into_iter().map(|(l, v)| (l as u16, v)).collect();
                far_frontier = s.far_frontier;
                level = s.level as u16;
                // The initialisation's work is in the checkpoint: the entries count as done. Said
                // as a line of its own, which a log of plain progress lines keeps (a message is
                // replaced by the next level's before such a log prints it).
                bar.set_position(n as u64);
                bar.println(&format!(
                    "{}: resumed at level {level} from the checkpoint of an interrupted run",
                    self.layout.material
                ));
                bar.message(&format!("resumed at level {level}"));
            }
            None => {
                let init = self.initialise(&chunks, bar);
                if bar.stop_requested() {
                    // Before a checkpoint could keep the half-made values.
                    return Err(TbError::Stopped { material: self.layout.material.to_string() });
                }
                // Level 0's frontier was marked in `next`.
                std::mem::swap(&mut chunks.cur, &mut chunks.next);
                std::mem::swap(&mut chunks.bits_cur, &mut chunks.bits_next);
                later = init.later;
                horizon = init.horizon;
                far_levels = Vec::new();
                far_frontier = Vec::new();
                level = 0;
                if let Some((c, values)) = &mut resume {
                    Self::save_checkpoint(c, values, &chunks, (level, horizon), (&later, &far_levels, &far_frontier))?;
                }
            }
        }
        loop {
            if bar.stop_requested() {
                // A paged solve keeps what it has done: the next run resumes at this level.
                if let Some((c, values)) = &mut resume {
                    bar.message(&format!("level {level}: checkpoint before stopping"));
                    Self::save_checkpoint(c, values, &chunks, (level, horizon), (&later, &far_levels, &far_frontier))?;
                }
                return Err(TbError::Stopped { material: self.layout.material.to_string() });
            }
            // Real solves end hundreds of plies below the format's limit; only a doctored
            // checkpoint's levels could run past it.
            if level >= value::MAX_DTM_U16 {
                return Err(TbError::TooDeep { material: self.layout.material.to_string() });
            }
            let target = level + 1;
            bar.message(&format!("level {level}"));
            let active: Vec<usize> =
                (0..n_chunks).filter(|&c| chunks.cur[c].load(Relaxed) || chunks.pending_at(c, target)).collect();
            let mut found = active
                .par_iter()
                .map(|&c| {
                    // Between chunks: a paging watcher's release is waited for (a load otherwise).
                    crate::util::pressure::wait_for_release();
                    let mut found = Found::default();
                    let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                    if level < far_level && chunks.cur[c].load(Relaxed) {
                        let words = c * CHUNK_WORDS..((c + 1) * CHUNK_WORDS).min(chunks.bits_cur.len());
                        for w in words {
                            // Taken, which also clears the word for its reuse two levels on.
                            let mut bits = chunks.bits_cur[w].swap(0, Relaxed);
                            while bits != 0 {
                                let p = w * 64 + bits.trailing_zeros() as usize;
                                bits &= bits - 1;
                                self.expand(p, level, &chunks, &mut found);
                            }
                        }
                    }
                    if chunks.pending_at(c, target) {
                        let want = UNLOSABLE + 1 + ((target - 1) / 2) as u8;
                        for q in range {
                            if self.cnt[q].load(Relaxed) == want {
                                self.settle(q, target, &chunks, &mut found);
                            }
                        }
                    }
                    found
                })
                .reduce(Found::default, Found::merge);
            if level >= far_level {
                let more = far_frontier
                    .par_chunks(CHUNK / 4)
                    .map(|list| {
                        crate::util::pressure::wait_for_release();
                        let mut found = Found::default();
                        for &p in list {
                            self.expand(p as usize, level, &chunks, &mut found);
                        }
                        found
                    })
                    .reduce(Found::default, Found::merge);
                found = found.merge(more);
            }
            // Losses that waited for a capture bound, and capture wins too long for a counter byte.
            for w in &found.later {
                horizon = horizon.max(w.level());
            }
            later.append(&mut found.later);
            // In place: a copy would double the list at its longest (settling lists nothing).
            later.retain(|w| {
                let due = w.level() == target;
                if due {
                    self.settle(w.entry(), target, &chunks, &mut found);
                }
                !due
            });
            if level >= far_level || !far_frontier.is_empty() {
                far_levels.push((level, std::mem::take(&mut far_frontier)));
            }
            found.far.par_sort_unstable();
            far_frontier = found.far;
            if found.settled == 0 && target >= horizon {
                if !far_frontier.is_empty() {
                    far_levels.push((target, far_frontier));
                }
                break;
            }
            std::mem::swap(&mut chunks.cur, &mut chunks.next);
            std::mem::swap(&mut chunks.bits_cur, &mut chunks.bits_next);
            chunks.next.par_iter().for_each(|f| f.store(false, Relaxed));
            level = target;
            if let Some((c, values)) = &mut resume {
                if c.due() {
                    bar.message(&format!("level {level}: checkpoint"));
                    Self::save_checkpoint(c, values, &chunks, (level, horizon), (&later, &far_levels, &far_frontier))?;
                }
            }
        }
        far_levels.retain(|(_, list)| !list.is_empty());
        Ok((far_levels, resumed))
    }

    /// Step 1: every entry's working byte and counter; chunks with entries lost in 0 are marked in
    /// `chunks.next`, pending capture wins in `chunks.pending`. Works by placement, both sides to
    /// move at once, so each placement is unranked and set up once.
    fn initialise(&self, chunks: &Chunks, bar: &dyn Progress) -> Init {
        let per = self.layout.per_side as usize;
        (0..per.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                crate::util::pressure::wait_for_release();
                let mut init = Init::default();
                if bar.stop_requested() {
                    // The caller asks again after this step, and drops everything.
                    return init;
                }
                let start = c * CHUNK;
                let end = (start + CHUNK).min(per);
                self.layout.walk(start as u64..end as u64, |idx, sq| {
                    let idx = idx as usize;
                    let board = Board::new(self.layout, sq);
                    for turn in Color::ALL {
                        let full = turn.index() * per + idx;
                        let (code, cnt, queue) = match &board {
                            Some(b) => self.init_entry(b, sq, turn),
                            None => (ILLEGAL, 0, None),
                        };
                        self.val[full].store(code as u8, Relaxed);
                        self.cnt[full].store(cnt, Relaxed);
                        if code == value::code(0) {
                            chunks.mark_next(full);
                        }
                        if let Some(level) = queue {
                            init.horizon = init.horizon.max(level);
                            if cnt > UNLOSABLE {
                                chunks.pending[full / CHUNK][level as usize / 64].fetch_or(1 << (level % 64), Relaxed);
                            } else {
                                init.later.push(Waiting::new(level, full as u64));
                            }
                        }
                    }
                });
                bar.advance(2 * (end - start) as u64);
                init
            })
            .reduce(Init::default, |mut a, b| {
                a.later.extend(b.later);
                a.horizon = a.horizon.max(b.horizon);
                a
            })
    }

    /// One legal-or-not entry's initial value code and counter byte, and the level of its pending
    /// capture win or of its loss through captures alone. A pending win that fits the counter
    /// byte is held there (counter above [`UNLOSABLE`]); otherwise it is listed.
    fn init_entry(&self, board: &Board, sq: &Squares, turn: Color) -> (u16, u8, Option<u16>) {
        if !board.is_legal(turn) {
            return (ILLEGAL, 0, None);
        }
        let (quiet, any_capture, unlosable, best_win, loss_bound) = self.moves_summary::<true>(board, sq, turn);
        if quiet == 0 && !any_capture {
            return (value::code(0), 0, None);
        }
        if let Some(w) = best_win {
            if w <= self.limits.max_pending_win {
                return (UNKNOWN, UNLOSABLE + 1 + ((w - 1) / 2) as u8, Some(w));
            }
            return (UNKNOWN, UNLOSABLE, Some(w));
        }
        if unlosable {
            return (UNKNOWN, UNLOSABLE, None);
        }
        debug_assert!(quiet < UNLOSABLE as u32, "{quiet} non-capture moves");
        let queue = if quiet == 0 { Some(loss_bound) } else { None };
        (UNKNOWN, quiet as u8, queue)
    }

    /// An entry's moves (`QUIET`: non-captures counted too, otherwise the count is 0): the non-capture count, whether it has a capture, whether a capture keeps
    /// it from losing, the fastest capture win, and the lowest level at which it may be lost
    /// (1 + its slowest losing capture).
    #[inline]
    fn moves_summary<const QUIET: bool>(
        &self,
        board: &Board,
        sq: &Squares,
        turn: Color,
    ) -> (u32, bool, bool, Option<u16>, u16) {
        let n = self.layout.pieces.len();
        let mut any_capture = false;
        let mut unlosable = false;
        let mut best_win: Option<u16> = None;
        let mut loss_bound: u16 = 0;
        let on_capture = |m: Move| {
            any_capture = true;
            let Some(victim) = m.captured else { return };
            let Some(target) = &self.captures[victim] else { return };
            let child = match &target.table {
                None => UNKNOWN,
                Some(_) => {
                    let csq = child_squares(sq, n, m.slot, m.to, &target.map, target.flip);
                    let cturn = if target.flip { turn } else { !turn };
                    target.code(cturn, &csq).unwrap_or(UNKNOWN)
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
        };
        let quiet = if QUIET {
            board.for_each_move(turn, on_capture)
        } else {
            board.for_each_capture(turn, on_capture);
            0
        };
        (quiet, any_capture, unlosable, best_win, loss_bound)
    }

    /// The capture bound of entry `q` (1 + its slowest losing capture), derived again from its
    /// moves when its counter reaches zero: storing it would cost 2 bytes an entry.
    fn capture_bound(&self, q: usize) -> u16 {
        let (turn, idx) = self.side_and_index(q);
        let mut sq = [0u8; MAX_PIECES];
        self.layout.unrank(idx, &mut sq);
        match Board::new(self.layout, &sq) {
            Some(board) => self.moves_summary::<false>(&board, &sq, turn).4,
            None => 0,
        }
    }

    /// Step 2 for one frontier entry `p` settled at `level`: settles its predecessors at
    /// `level + 1` or lists the losses that must wait for a capture bound.
    #[inline]
    fn expand(&self, p: usize, level: u16, chunks: &Chunks, found: &mut Found) {
        let won = level % 2 == 1;
        self.unmoves(p, |q| {
            if self.val[q].load(Relaxed) != UNKNOWN as u8 {
                return;
            }
            if !won {
                self.settle(q, level + 1, chunks, found);
                return;
            }
            // Unlosable entries are never lost; their counter byte is not a counter.
            if self.cnt[q].load(Relaxed) >= UNLOSABLE {
                return;
            }
            let prev = self.cnt[q].fetch_sub(1, Relaxed);
            debug_assert!(prev > 0, "counter underflow at {q}");
            if prev == 1 {
                let at = self.capture_bound(q).max(level + 1);
                if at == level + 1 {
                    self.settle(q, at, chunks, found);
                } else {
                    found.later.push(Waiting::new(at, q as u64));
                }
            }
        });
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
    fn unmoves(&self, p: usize, f: impl FnMut(usize)) {
        predecessors(self.layout, p, f);
    }
}

/// Entries settled at far levels, by level (see [`FAR_LEVEL`]).
type FarLevels = Vec<(u16, Vec<u64>)>;

/// [`Solver::unmoves`] for any pass over `layout`'s entries (side-major, as the value arrays are
/// laid out): the rule-aware pass walks the same predecessors.
pub(super) fn predecessors(layout: &Layout, p: usize, mut f: impl FnMut(usize)) {
    let (turn, idx) = side_and_index(layout, p);
    let mover = !turn;
    let base = mover.index() * layout.per_side as usize;
    let mut sq = [0u8; MAX_PIECES];
    layout.unrank(idx, &mut sq);
    let Some(board) = Board::new(layout, &sq) else { return };
    let Some(sym_p) = layout.symmetric(&sq) else { return };
    let n = layout.pieces.len();
    board.for_each_unmove(mover, |slot, from| {
        let mut q = sq;
        q[slot] = from;
        let mut emit = |q: &Squares, canonical: bool| {
            let r = if canonical { layout.rank_canonical(q) } else { layout.rank(q) };
            if let Some(r) = r {
                f(base + r as usize);
            }
        };
        if !layout.in_camp(slot) {
            // The camps stay, and so does the orientation: one digit changes.
            if let Some(r) = layout.rerank(idx, &sq, slot, from) {
                f(base + r as usize);
            }
            return;
        }
        // A king, advisor or elephant moved: the orientation may change. An entry whose camps
        // are not both symmetric stands for its mirror image too, whose un-moves are the
        // mirror images of these.
        let Some((sym_q, mirror_q)) = layout.orientation(&q) else { return };
        if sym_q {
            emit(&q, true);
            if !sym_p {
                let mut m = q;
                for s in &mut m[..n] {
                    *s = mirror_sq(*s);
                }
                emit(&m, true);
            }
        } else if !mirror_q {
            emit(&q, true);
        } else if !sym_p {
            emit(&q, false);
        }
    });
}

/// The side to move and the index within that side of entry `full`.
pub(super) fn side_and_index(layout: &Layout, full: usize) -> (Color, u64) {
    let per = layout.per_side as usize;
    (if full < per { Color::Red } else { Color::Black }, (full % per) as u64)
}

/// The counts of two parts of a table together.
fn add_counts(mut k: Counts, o: Counts) -> Counts {
    k.legal += o.legal;
    k.wins += o.wins;
    k.draws += o.draws;
    k.losses += o.losses;
    k.no_moves += o.no_moves;
    k.max_dtm = k.max_dtm.max(o.max_dtm);
    k
}

/// Counts per side to move (red, black) from a value array. An entry whose kings are not both on
/// file e also stands for its mirror image, a distinct position, so it counts twice.
///
/// Every whole table read is counted (to check it against its header), so this is one tight pass:
/// the entries of one camp pair (a run of `group_span` entries, whose weight is the same) are
/// counted together, and weighted once.
pub fn count(layout: &Layout, values: &[u16]) -> [Counts; 2] {
    let per = layout.per_side as usize;
    let span = layout.group_span.max(1) as usize;
    let side = |s: usize| -> Counts {
        values[s * per..(s + 1) * per]
            .par_chunks(1 << 16)
            .enumerate()
            .map(|(c, chunk)| {
                crate::util::pressure::wait_for_release();
                let mut k = Counts::default();
                let first = c << 16;
                let mut at = 0;
                while at < chunk.len() {
                    let pair = (first + at) / span;
                    let end = ((pair + 1) * span - first).min(chunk.len());
                    let w = if layout.pair_symmetric(pair as u64) { 1 } else { 2 };
                    let run = count_run(&chunk[at..end]);
                    k.legal += w * run.legal;
                    k.wins += w * run.wins;
                    k.draws += w * run.draws;
                    k.losses += w * run.losses;
                    k.no_moves += w * run.no_moves;
                    k.max_dtm = k.max_dtm.max(run.max_dtm);
                    at = end;
                }
                k
            })
            .reduce(Counts::default, add_counts)
    };
    [side(0), side(1)]
}

/// The counts of a run of entries, each counted once.
#[inline]
fn count_run(codes: &[u16]) -> Counts {
    let (mut illegal, mut draws, mut wins, mut no_moves, mut max) = (0u64, 0u64, 0u64, 0u64, 0u16);
    for &code in codes {
        // Codes: 0 a draw, 1 illegal, 2 + d decided in d plies (odd d: a win).
        illegal += u64::from(code == ILLEGAL);
        draws += u64::from(code == value::DRAW);
        wins += u64::from(code >= 2 && code % 2 == 1);
        no_moves += u64::from(code == value::code(0));
        max = max.max(code);
    }
    let legal = codes.len() as u64 - illegal;
    Counts { legal, wins, draws, losses: legal - draws - wins, no_moves, max_dtm: dtm_of(max).map_or(0, u64::from) }
}

mod resume;

#[cfg(test)]
mod tests;
