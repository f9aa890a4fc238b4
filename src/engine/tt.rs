//! The transposition table: what the search learned about a position (best move, score and
//! bound, depth, static evaluation), keyed by the rules core's fixed Zobrist key.
//!
//! Each slot is two `AtomicU64` words, the key XOR the data and the data, so that search threads
//! share the table without locks: a torn write (one word from one thread, one from another) fails
//! the key check and reads as a miss. Four slots form a 64-byte bucket; a new entry replaces the
//! same position, else the slot with the least depth, older searches first. The size is set by the
//! UCI option `Hash` in MiB; the table's memory is touched when it is made and cleared in parallel
//! (one thread a core), so that neither the first search nor `ucinewgame` waits for gigabytes.
//!
//! Beside it, each search thread keeps an [`EvalCache`]: the static evaluations it has made, so
//! that a position reached again (by another move order, or in the next iteration after a
//! quiescence node that stood pat without storing anything) is not evaluated twice.

use crate::core::Move;
use std::collections::TryReserveError;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Why a table of the asked size could not be made. The engine keeps a table of its old size then.
///
/// ```
/// use qiku::engine::tt::{TableSizeError, TranspositionTable};
///
/// let err = TranspositionTable::try_new(1 << 44).err().expect("too large");
/// assert!(matches!(err, TableSizeError::TooLarge { mib } if mib == 1 << 44));
/// assert_eq!(err.to_string(), "a 17592186044416 MiB hash table does not fit in memory addresses");
/// ```
#[derive(Debug)]
pub enum TableSizeError {
    /// The size in bytes does not fit in the address space.
    TooLarge {
        /// The size asked for, in MiB.
        mib: usize,
    },
    /// More than the system says it can give without swapping or killing a process (Linux's
    /// `MemAvailable`, or less where the process's control group, a container's or a job's memory
    /// limit, leaves less): refused before any memory is touched, since the system would
    /// otherwise grant it and stop the engine when the table is first written.
    MoreThanAvailable {
        /// The size asked for, in MiB.
        mib: usize,
        /// The memory available when it was asked for, in MiB.
        available_mib: u64,
    },
    /// The allocator refused the memory.
    OutOfMemory {
        /// The size asked for, in MiB.
        mib: usize,
        /// The allocator's refusal.
        source: TryReserveError,
    },
}

impl fmt::Display for TableSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableSizeError::TooLarge { mib } => write!(f, "a {mib} MiB hash table does not fit in memory addresses"),
            TableSizeError::MoreThanAvailable { mib, available_mib } => write!(
                f,
                "cannot allocate a {mib} MiB hash table: only {available_mib} MiB of memory is available here; set a smaller Hash"
            ),
            TableSizeError::OutOfMemory { mib, source } => {
                write!(f, "cannot allocate a {mib} MiB hash table: {source}")
            }
        }
    }
}

impl std::error::Error for TableSizeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TableSizeError::TooLarge { .. } | TableSizeError::MoreThanAvailable { .. } => None,
            TableSizeError::OutOfMemory { source, .. } => Some(source),
        }
    }
}

/// What a stored score means relative to the true value.
///
/// ```
/// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
///
/// let tt = TranspositionTable::new(1);
/// for bound in [Bound::Upper, Bound::Lower, Bound::Exact] {
///     tt.store(7, Entry { mv: None, score: 50, eval: 0, depth: 3, bound });
///     assert_eq!(tt.probe(7).map(|e| e.bound), Some(bound)); // kept with the score
/// }
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (every move failed low).
    Upper,
    /// The true value is at least the score (a move failed high).
    Lower,
    /// The score is the true value.
    Exact,
}

/// One stored result.
///
/// ```
/// use qiku::engine::ordering::History;
/// use qiku::engine::search::{search, SearchOptions, Shared};
/// use qiku::engine::{time::Limits, Score};
/// use qiku::{Game, Position};
///
/// // Rook to d0 mates: the search stores the root with its move and score.
/// let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?);
/// let shared = Shared::new(1);
/// let r = search(&game, &Limits::depth(2), &SearchOptions::default(), &shared, &mut History::default(), &mut |_| {});
/// let entry = shared.tt.probe(game.position().key()).expect("stored");
/// assert_eq!((entry.mv, Score::from_value(entry.score)), (r.best, Score::Mate(1)));
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// Search score, with mate scores relative to this position (see `search::score_to_tt`).
    pub score: i32,
    /// Static evaluation of the position (side to move's view).
    pub eval: i32,
    /// Remaining depth of the search that produced the score (quiescence entries store 0).
    pub depth: i32,
    /// How the score relates to the true value.
    pub bound: Bound,
}

const SLOTS: usize = 4;
/// Depths are stored as `depth + DEPTH_OFFSET` in a byte.
const DEPTH_OFFSET: i32 = 16;

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// One cache line, so that a probe touches one line and [`TranspositionTable::prefetch`] fetches
/// all of it.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    slots: [Slot; SLOTS],
}

/// A shared transposition table.
///
/// ```
/// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
///
/// // Threads store and probe the same table without a lock.
/// let tt = TranspositionTable::new(1);
/// let entry = Entry { mv: None, score: 10, eval: 5, depth: 4, bound: Bound::Exact };
/// std::thread::scope(|s| {
///     s.spawn(|| tt.store(1, entry));
///     s.spawn(|| tt.store(2, Entry { score: 20, ..entry }));
/// });
/// assert_eq!((tt.probe(1), tt.probe(2).map(|e| e.score)), (Some(entry), Some(20)));
/// ```
pub struct TranspositionTable {
    buckets: Buckets,
    generation: AtomicU8,
}

/// Huge pages are this size (x86-64 Linux), and the mapped tables are aligned to it.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// The table's buckets. On Linux they live in an anonymous mapping of their own, aligned to and
/// offered huge pages: a probe lands on a random bucket, and with small pages nearly every one
/// also misses the processor's page-translation cache (measured: `docs/ENGINE.md`, "Measured
/// strength", the speed paragraphs).
/// Elsewhere, or if the mapping fails, an ordinary vector.
enum Buckets {
    #[cfg(target_os = "linux")]
    Mapped {
        map: memmap2::MmapMut,
        offset: usize,
        len: usize,
    },
    Heap(Vec<Bucket>),
}

impl Buckets {
    /// `n` empty buckets in a mapping, or `None` for a table smaller than a huge page (a
    /// vector serves it as well) or if the system refuses a mapping that large.
    #[cfg(target_os = "linux")]
    fn mapped(n: usize) -> Option<Buckets> {
        let bytes = n.checked_mul(std::mem::size_of::<Bucket>()).filter(|&b| b >= HUGE_PAGE)?.checked_add(HUGE_PAGE)?;
        let map = memmap2::MmapOptions::new().len(bytes).map_anon().ok()?;
        // Only a hint: without huge pages the table works the same, a little slower.
        let _ = map.advise(memmap2::Advice::HugePage);
        let offset = map.as_ptr().align_offset(HUGE_PAGE);
        let buckets = (offset < HUGE_PAGE).then_some(Buckets::Mapped { map, offset, len: n })?;
        // The system hands out an anonymous mapping's pages when they are first touched: touch
        // them all now, on every core, so that the first search does not pay for it (a 1 GiB
        // table slowed a 100 ms search to 0.2-0.8 s).
        buckets.zero();
        Some(buckets)
    }

    #[cfg(not(target_os = "linux"))]
    fn mapped(_: usize) -> Option<Buckets> {
        None
    }

    /// Empties every bucket, the chunks in parallel (rayon's threads, one a core): clearing,
    /// and first touching, gigabytes on one thread took seconds.
    fn zero(&self) {
        use rayon::prelude::*;
        /// Buckets a task clears: 2 MiB, one huge page.
        const CHUNK: usize = (2 << 20) / std::mem::size_of::<Bucket>();
        self.as_slice().par_chunks(CHUNK).for_each(|chunk| {
            for b in chunk {
                for s in &b.slots {
                    s.check.store(0, Ordering::Relaxed);
                    s.data.store(0, Ordering::Relaxed);
                }
            }
        });
    }

    #[inline]
    fn as_slice(&self) -> &[Bucket] {
        match self {
            #[cfg(target_os = "linux")]
            Buckets::Mapped { map, offset, len } => {
                // Safety: the mapping holds `offset + len` buckets' bytes past its start (it was
                // made `len * size_of::<Bucket>() + HUGE_PAGE` long and `offset < HUGE_PAGE`), its
                // start plus `offset` is aligned to 2 MiB and so to `Bucket`'s 64 bytes, an
                // anonymous mapping starts zeroed and zero bytes are an empty bucket (atomics
                // holding 0, as `Bucket::default`), every later write goes through those atomics
                // (the mapping is never borrowed mutably), and the slice borrows `self`, which
                // owns the mapping.
                unsafe { std::slice::from_raw_parts(map.as_ptr().add(*offset).cast::<Bucket>(), *len) }
            }
            Buckets::Heap(v) => v,
        }
    }
}

/// Refuses `bytes` (a table of `mib` MiB) above `available` bytes, when the system says.
fn check_available(mib: usize, bytes: usize, available: Option<u64>) -> Result<(), TableSizeError> {
    match available {
        Some(available) if bytes as u64 > available => {
            Err(TableSizeError::MoreThanAvailable { mib, available_mib: available >> 20 })
        }
        _ => Ok(()),
    }
}

// Data word layout (bits): 0-15 move (0 = none), 16-31 score (i16), 32-47 eval (i16),
// 48-55 depth + DEPTH_OFFSET, 56-57 bound (1 upper, 2 lower, 3 exact; 0 = empty slot),
// 58-63 generation.
fn pack(e: &Entry, generation: u8) -> u64 {
    let mv = e.mv.map_or(0, |m| m.to_u16()) as u64;
    let score = (e.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16) as u64;
    let eval = (e.eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16) as u64;
    let depth = (e.depth + DEPTH_OFFSET).clamp(0, 255) as u64;
    let bound = match e.bound {
        Bound::Upper => 1u64,
        Bound::Lower => 2,
        Bound::Exact => 3,
    };
    mv | score << 16 | eval << 32 | depth << 48 | bound << 56 | ((generation & 63) as u64) << 58
}

fn unpack(d: u64) -> Option<Entry> {
    let bound = match (d >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    Some(Entry {
        mv: Move::from_u16(d as u16),
        score: (d >> 16) as u16 as i16 as i32,
        eval: (d >> 32) as u16 as i16 as i32,
        depth: ((d >> 48) & 0xff) as i32 - DEPTH_OFFSET,
        bound,
    })
}

fn generation_of(d: u64) -> u8 {
    (d >> 58) as u8 & 63
}

impl TranspositionTable {
    /// A table of about `mib` MiB (at least one bucket), for sizes known to fit: like any `Vec`,
    /// it aborts the process if the memory cannot be had. Sizes chosen by a user go through
    /// [`TranspositionTable::try_new`].
    ///
    /// ```
    /// use qiku::engine::tt::TranspositionTable;
    ///
    /// let tt = TranspositionTable::new(1);
    /// assert_eq!(tt.mib(), 1);
    /// assert_eq!(tt.hashfull(), 0);
    /// ```
    pub fn new(mib: usize) -> TranspositionTable {
        let n = ((mib.max(1) << 20) / std::mem::size_of::<Bucket>()).max(1);
        let buckets = Buckets::mapped(n).unwrap_or_else(|| {
            let mut buckets = Vec::with_capacity(n);
            buckets.resize_with(n, Bucket::default);
            Buckets::Heap(buckets)
        });
        TranspositionTable { buckets, generation: AtomicU8::new(0) }
    }

    /// A table of about `mib` MiB (at least one bucket), or why the memory cannot be had (an
    /// error instead of the allocator's abort, so that a UCI `Hash` too large for the machine
    /// leaves the engine running). On Linux a size above the memory available now
    /// (`MemAvailable` in `/proc/meminfo`, or what the process's control group has left below its
    /// memory limit when that is less) is refused before any of it is touched: the system would
    /// grant it, then stop the process when the table is first written.
    ///
    /// ```
    /// use qiku::engine::tt::{TableSizeError, TranspositionTable};
    ///
    /// assert_eq!(TranspositionTable::try_new(16).unwrap().mib(), 16);
    /// // 2^44 MiB, 16 EiB: past what any machine's addresses reach.
    /// assert!(matches!(TranspositionTable::try_new(1 << 44), Err(TableSizeError::TooLarge { .. })));
    /// ```
    pub fn try_new(mib: usize) -> Result<TranspositionTable, TableSizeError> {
        let bytes = mib.max(1).checked_mul(1 << 20).ok_or(TableSizeError::TooLarge { mib })?;
        check_available(mib, bytes, crate::util::memory::available())?;
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let buckets = match Buckets::mapped(n) {
            Some(mapped) => mapped,
            None => {
                let mut buckets = Vec::new();
                buckets.try_reserve_exact(n).map_err(|source| TableSizeError::OutOfMemory { mib, source })?;
                buckets.resize_with(n, Bucket::default);
                Buckets::Heap(buckets)
            }
        };
        Ok(TranspositionTable { buckets, generation: AtomicU8::new(0) })
    }

    /// Size in MiB as configured.
    ///
    /// ```
    /// use qiku::engine::tt::TranspositionTable;
    ///
    /// assert_eq!(TranspositionTable::new(4).mib(), 4);
    /// assert_eq!(TranspositionTable::new(0).mib(), 1); // never less than a MiB
    /// ```
    pub fn mib(&self) -> usize {
        std::mem::size_of_val(self.buckets.as_slice()) >> 20
    }

    /// Forgets everything (for `ucinewgame` and for the deterministic bench), clearing the
    /// table's parts in parallel.
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    ///
    /// let tt = TranspositionTable::new(1);
    /// tt.store(42, Entry { mv: None, score: 25, eval: 10, depth: 6, bound: Bound::Exact });
    /// assert!(tt.probe(42).is_some());
    /// tt.clear();
    /// assert_eq!(tt.probe(42), None);
    /// ```
    pub fn clear(&self) {
        self.buckets.zero();
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    ///
    /// let tt = TranspositionTable::new(1);
    /// let entry = Entry { mv: None, score: 0, eval: 0, depth: 1, bound: Bound::Exact };
    /// for i in 0..1000u64 {
    ///     tt.store(i << 50 | 1, entry); // one in each of the first 1,000 buckets
    /// }
    /// tt.new_search();
    /// // The entries stay, but no longer count as this search's.
    /// assert_eq!((tt.hashfull(), tt.probe(1)), (0, Some(entry)));
    /// ```
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store(g.wrapping_add(1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto any table length without a modulo.
        let buckets = self.buckets.as_slice();
        let i = ((key as u128 * buckets.len() as u128) >> 64) as usize;
        &buckets[i]
    }

    /// Asks the processor to start loading `key`'s bucket into the cache, so that a
    /// [`TranspositionTable::probe`] of it shortly after does not wait on memory (the search
    /// calls it as soon as a move is made, before the work that precedes the child's probe).
    /// Only a hint: no effect on any result.
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    ///
    /// let tt = TranspositionTable::new(1);
    /// let entry = Entry { mv: None, score: 25, eval: 10, depth: 6, bound: Bound::Lower };
    /// tt.store(42, entry);
    /// tt.prefetch(42); // a hint: the probe's answer is the same
    /// assert_eq!(tt.probe(42), Some(entry));
    /// ```
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch_line(self.bucket(key));
    }

    /// The entry for `key`, if stored.
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    /// use qiku::Position;
    ///
    /// let tt = TranspositionTable::new(1);
    /// let key = Position::startpos().key();
    /// assert_eq!(tt.probe(key), None);
    /// let entry = Entry { mv: None, score: -3, eval: 10, depth: 2, bound: Bound::Upper };
    /// tt.store(key, entry);
    /// assert_eq!(tt.probe(key), Some(entry));
    /// ```
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in &self.bucket(key).slots {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    /// Stores a result. A result for the same position without a move keeps the old move.
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let tt = TranspositionTable::new(1);
    /// let pos = Position::startpos();
    /// let entry = Entry { mv: Some(iccs::parse(&pos, "h2e2")?), score: 25, eval: 10, depth: 6, bound: Bound::Exact };
    /// tt.store(pos.key(), entry);
    /// assert_eq!(tt.probe(pos.key()), Some(entry));
    /// // A later result without a move keeps the move.
    /// tt.store(pos.key(), Entry { mv: None, depth: 7, ..entry });
    /// assert_eq!(tt.probe(pos.key()), Some(Entry { depth: 7, ..entry }));
    /// # Ok::<(), qiku::notation::ParseMoveError>(())
    /// ```
    pub fn store(&self, key: u64, mut e: Entry) {
        let generation = self.generation.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for (i, s) in bucket.slots.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            let check = s.check.load(Ordering::Relaxed);
            if check ^ data == key {
                if let Some(old) = unpack(data) {
                    // Keep a deeper result of the same search unless the new one is exact.
                    if old.depth > e.depth + 2 && e.bound != Bound::Exact && generation_of(data) == generation {
                        return;
                    }
                    if e.mv.is_none() {
                        e.mv = old.mv;
                    }
                }
                victim = i;
                break;
            }
            let worth = match unpack(data) {
                None => i32::MIN,
                Some(old) => {
                    let age = (generation.wrapping_sub(generation_of(data)) & 63) as i32;
                    old.depth - 8 * age
                }
            };
            if worth < victim_worth {
                victim_worth = worth;
                victim = i;
            }
        }
        let data = pack(&e, generation);
        let s = &bucket.slots[victim];
        s.check.store(key ^ data, Ordering::Relaxed);
        s.data.store(data, Ordering::Relaxed);
    }

    /// Permille of the first thousand buckets' slots filled by the current search (UCI
    /// `hashfull`).
    ///
    /// ```
    /// use qiku::engine::tt::{Bound, Entry, TranspositionTable};
    ///
    /// let tt = TranspositionTable::new(1); // 16,384 buckets of 4 slots
    /// let entry = Entry { mv: None, score: 0, eval: 0, depth: 1, bound: Bound::Exact };
    /// // One entry in each of the first 1,000 buckets: a quarter of their slots.
    /// for i in 0..1000u64 {
    ///     tt.store(i << 50 | 1, entry);
    /// }
    /// assert_eq!(tt.hashfull(), 250);
    /// ```
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let buckets = self.buckets.as_slice();
        let n = buckets.len().min(1000);
        let mut used = 0;
        for b in &buckets[..n] {
            for s in &b.slots {
                let d = s.data.load(Ordering::Relaxed);
                if unpack(d).is_some() && generation_of(d) == generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (n * SLOTS)) as u32
    }
}

/// Asks the processor to start loading the cache line of `value` (the table's and the evaluation
/// cache's prefetches). Only a hint: no effect on any result.
#[inline(always)]
fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // Safety: a prefetch reads nothing and cannot fault, whatever the address; this one is
        // of a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Slots of an [`EvalCache`]: 64K, half a megabyte, which keeps most of a search's repeated
/// evaluations (measured on the bench: 15% of the evaluations hit, against 17% for sixteen times
/// the size) while staying near the core.
const EVAL_CACHE_SLOTS: usize = 1 << 16;

/// The static evaluations one search thread has made, by position key: a direct-mapped cache in
/// which a new evaluation replaces whatever held its slot.
///
/// A slot holds the key's upper 32 bits (with the lowest set, so that an empty slot matches no
/// key) and the value; the slot is chosen by the key's lowest 16 bits, so a hit is a position
/// whose key agrees in 47 bits. The evaluation is a function of the position alone, so the cache
/// changes no search result, only its speed (the bench's node count shows it).
///
/// ```
/// use qiku::engine::tt::EvalCache;
///
/// let mut cache = EvalCache::new();
/// assert_eq!(cache.get(0x1234_5678_9abc_def0), None);
/// cache.put(0x1234_5678_9abc_def0, -57);
/// assert_eq!(cache.get(0x1234_5678_9abc_def0), Some(-57));
/// // Another key in the same slot replaces it.
/// cache.put(0x4321_5678_9abc_def0, 12);
/// assert_eq!(cache.get(0x1234_5678_9abc_def0), None);
/// ```
pub struct EvalCache {
    slots: Box<[u64]>,
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache::new()
    }
}

impl EvalCache {
    /// An empty cache.
    ///
    /// ```
    /// use qiku::engine::tt::EvalCache;
    /// use qiku::Position;
    ///
    /// let cache = EvalCache::new();
    /// assert_eq!(cache.get(Position::startpos().key()), None); // nothing evaluated yet
    /// ```
    pub fn new() -> EvalCache {
        EvalCache { slots: vec![0; EVAL_CACHE_SLOTS].into_boxed_slice() }
    }

    #[inline]
    fn slot(key: u64) -> usize {
        key as usize & (EVAL_CACHE_SLOTS - 1)
    }

    #[inline]
    fn tag(key: u64) -> u64 {
        (key | 1 << 32) >> 32 << 32
    }

    /// The evaluation stored for `key`, if its slot still holds it.
    ///
    /// ```
    /// use qiku::engine::eval::{evaluate, Weights};
    /// use qiku::engine::tt::EvalCache;
    /// use qiku::Position;
    ///
    /// let pos = Position::startpos();
    /// let mut cache = EvalCache::new();
    /// cache.put(pos.key(), evaluate(&pos, &Weights::DEFAULT));
    /// assert_eq!(cache.get(pos.key()), Some(evaluate(&pos, &Weights::DEFAULT)));
    /// assert_eq!(cache.get(pos.mirror().key() ^ 1), None); // another key
    /// ```
    #[inline]
    pub fn get(&self, key: u64) -> Option<i32> {
        let e = self.slots[Self::slot(key)];
        (e & !0xFFFF_FFFF == Self::tag(key)).then_some(e as u32 as i32)
    }

    /// Asks the processor to start loading `key`'s slot, as [`TranspositionTable::prefetch`]
    /// does for the table (the search calls both as soon as a move is made). Only a hint: no
    /// effect on any result.
    ///
    /// ```
    /// use qiku::engine::tt::EvalCache;
    ///
    /// let mut cache = EvalCache::new();
    /// cache.put(0x1234_5678_9abc_def0, -57);
    /// cache.prefetch(0x1234_5678_9abc_def0); // a hint: the answer is the same
    /// assert_eq!(cache.get(0x1234_5678_9abc_def0), Some(-57));
    /// ```
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch_line(&self.slots[Self::slot(key)]);
    }

    /// Stores `value` as the evaluation of `key`.
    ///
    /// ```
    /// use qiku::engine::tt::EvalCache;
    ///
    /// let mut cache = EvalCache::new();
    /// cache.put(99, -30_000); // any i32 is kept whole
    /// assert_eq!(cache.get(99), Some(-30_000));
    /// cache.put(99, 12); // the same key again: the new value
    /// assert_eq!(cache.get(99), Some(12));
    /// ```
    #[inline]
    pub fn put(&mut self, key: u64, value: i32) {
        self.slots[Self::slot(key)] = Self::tag(key) | u64::from(value as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Square;

    fn mv(a: &str, b: &str) -> Move {
        Move::new(a.parse::<Square>().unwrap(), b.parse::<Square>().unwrap())
    }

    #[test]
    fn pack_round_trips() {
        for e in [
            Entry { mv: Some(mv("h2", "e2")), score: -29990, eval: 123, depth: 37, bound: Bound::Lower },
            Entry { mv: None, score: 0, eval: -5, depth: -1, bound: Bound::Upper },
            Entry { mv: Some(mv("i9", "i0")), score: 30000, eval: -32000, depth: 0, bound: Bound::Exact },
        ] {
            assert_eq!(unpack(pack(&e, 5)), Some(e));
        }
        assert_eq!(unpack(0), None);
    }

    #[test]
    fn a_table_above_the_available_memory_is_refused_naming_both_sizes() {
        let gib = 1usize << 30;
        let refused = check_available(2048, 2 * gib, Some(gib as u64 + 12345)).unwrap_err();
        assert!(matches!(refused, TableSizeError::MoreThanAvailable { mib: 2048, available_mib: 1024 }));
        assert_eq!(
            refused.to_string(),
            "cannot allocate a 2048 MiB hash table: only 1024 MiB of memory is available here; set a smaller Hash"
        );
        assert!(check_available(1024, gib, Some(gib as u64)).is_ok());
        assert!(check_available(2048, 2 * gib, None).is_ok());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_available_memory_is_read_and_bounds_try_new() {
        let available = crate::util::memory::available().expect("MemAvailable in /proc/meminfo");
        assert!(available > 1 << 20, "{available} bytes available");
        // Twice what is available, in MiB: refused before any of it is touched, whichever check
        // of the system or this one comes first.
        let mib = usize::try_from(available >> 19).unwrap();
        let refused = TranspositionTable::try_new(mib).map(|t| t.mib()).unwrap_err();
        assert!(matches!(refused, TableSizeError::MoreThanAvailable { .. }), "{refused}");
    }

    #[test]
    fn store_probe_replace() {
        let tt = TranspositionTable::new(1);
        let e = Entry { mv: Some(mv("h2", "e2")), score: 40, eval: 10, depth: 5, bound: Bound::Exact };
        tt.store(0x1234_5678_9abc_def0, e);
        assert_eq!(tt.probe(0x1234_5678_9abc_def0), Some(e));
        assert_eq!(tt.probe(0x1234_5678_9abc_def1), None);
        // A shallower result without a move keeps the move and replaces the score.
        let e2 = Entry { mv: None, score: -7, eval: 10, depth: 4, bound: Bound::Upper };
        tt.store(0x1234_5678_9abc_def0, e2);
        assert_eq!(tt.probe(0x1234_5678_9abc_def0), Some(Entry { mv: e.mv, ..e2 }));
        tt.clear();
        assert_eq!(tt.probe(0x1234_5678_9abc_def0), None);
        assert_eq!(tt.mib(), 1);
    }

    #[test]
    fn every_bucket_of_a_mapped_table_stores_and_clears() {
        // 4 MiB: on Linux a mapping offered huge pages, elsewhere a vector; the same answers.
        let tt = TranspositionTable::try_new(4).unwrap();
        #[cfg(target_os = "linux")]
        assert!(matches!(tt.buckets, Buckets::Mapped { .. }));
        let n = tt.buckets.as_slice().len() as u64;
        assert_eq!(n, 4 << 20 >> 6);
        // One key per bucket, first to last (the index is the key's high bits times `n`).
        let key = |i: u64| ((u128::from(i) << 64).div_ceil(u128::from(n)) + 1) as u64;
        let e = |i: u64| Entry { mv: None, score: (i % 1000) as i32, eval: 0, depth: 3, bound: Bound::Lower };
        for i in 0..n {
            tt.store(key(i), e(i));
        }
        for i in 0..n {
            assert_eq!(tt.probe(key(i)), Some(e(i)), "bucket {i}");
        }
        assert_eq!(tt.hashfull(), 250);
        tt.clear();
        assert!((0..n).all(|i| tt.probe(key(i)).is_none()));
        assert_eq!(tt.mib(), 4);
    }

    /// The fraction of `tt`'s memory pages the system has given it (Linux's `mincore`).
    #[cfg(target_os = "linux")]
    fn resident(tt: &TranspositionTable) -> f64 {
        let table = tt.buckets.as_slice();
        let page = 4096;
        let bytes = std::mem::size_of_val(table);
        let mut pages = vec![0u8; bytes.div_ceil(page)];
        // Safety: the range is the table's own memory (its start is aligned to 2 MiB), and
        // `pages` has one byte for each of its pages.
        let rc = unsafe { libc::mincore(table.as_ptr() as *mut libc::c_void, bytes, pages.as_mut_ptr()) };
        assert_eq!(rc, 0);
        pages.iter().filter(|&&p| p & 1 == 1).count() as f64 / pages.len() as f64
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_new_table_is_in_memory_before_the_first_search() {
        // The pages of an anonymous mapping come on first touch, which used to be during the
        // first search (slowing it by up to seconds with a large Hash): all are touched at once.
        let tt = TranspositionTable::try_new(64).unwrap();
        assert!(matches!(tt.buckets, Buckets::Mapped { .. }));
        assert_eq!(resident(&tt), 1.0);
        tt.clear();
        assert_eq!(resident(&tt), 1.0);
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        // More bytes than a usize holds.
        let e = TranspositionTable::try_new(usize::MAX >> 10).err();
        assert!(matches!(e, Some(TableSizeError::TooLarge { .. })), "{e:?}");
        // 2^60 bytes: beyond any machine's memory (refused before the allocator where the
        // available memory is known) and address space (the allocator refuses).
        let e = TranspositionTable::try_new(1 << 40).err();
        if cfg!(target_os = "linux") {
            assert!(matches!(e, Some(TableSizeError::MoreThanAvailable { mib, .. }) if mib == 1 << 40), "{e:?}");
        } else {
            assert!(matches!(e, Some(TableSizeError::OutOfMemory { mib, .. }) if mib == 1 << 40), "{e:?}");
            assert!(e.is_some_and(|e| std::error::Error::source(&e).is_some()));
        }
        assert_eq!(TranspositionTable::try_new(2).map(|t| t.mib()).ok(), Some(2));
    }
}
