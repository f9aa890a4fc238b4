//! Checkpoints of a paged solve, so that an interrupted generation resumes at its last level
//! instead of starting the table again.
//!
//! A paged table's working arrays are already files in the scratch directory. At a level
//! boundary (all threads idle) the solver copies them, by the kernel, into files of a new
//! *generation* (`KRPvKCC.values.3`, `KRPvKCC.bits.3`), syncs them, and then replaces the state
//! file `KRPvKCC.state` atomically: the level, the side lists, the per-chunk flags, and the
//! generation its arrays are in. Only then are the older generation's files removed. So at any
//! moment the state file names complete arrays, and a run that starts finds either a complete
//! checkpoint or none.
//!
//! The first checkpoint is taken after initialisation, then one whenever `every` has passed since
//! the last. A checkpoint is used only by the same version of the program for the same table
//! with the same inputs (their entry counts and value checksums); any other is ignored and
//! removed. The files go when the table is written.
//!
//! The scratch directory is outside input like any file, and the checksum only detects damage
//! (anyone can compute it again). So a state file is trusted only once [`decode`] has checked it
//! against every invariant the solver keeps for the table it claims to be (see [`Refused`]), and
//! its arrays against it (`solve::resume`); a refused checkpoint is said in one line through the
//! solver's progress, removed, and the table starts over.

use super::error::TbError;
use super::value::MAX_DTM_U16;
use crate::util::checksum::{fnv1a, FNV_OFFSET};
use crate::util::files::{create_regular, open_regular, AtomicFile};
use crate::util::progress::Progress;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The state file's first bytes.
const MAGIC: &[u8; 8] = b"QIKUCKP1";

/// The last level a solve can reach: the longest distance a table stores.
const MAX_LEVEL: u16 = MAX_DTM_U16;

/// Generations count saves from 1; one this high is no save's (and the next would overflow).
const MAX_GENERATION: u64 = 1 << 62;

/// What a state file must agree with: the shape of the solve whose checkpoint it claims to be
/// (the solver gives it: `solve::checkpoint_shape`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The table's entries (both sides to move).
    pub(crate) entries: u64,
    /// Entries per chunk (the unit of the frontier flags and pending-win words).
    pub(crate) chunk: u64,
    /// The first level whose entries are listed rather than held in a working byte.
    pub(crate) far_level: u16,
    /// The longest capture win a counter byte holds.
    pub(crate) max_pending_win: u16,
    /// The low bits of a waiting entry's word that hold its entry (its level is above them).
    pub(crate) waiting_entry_bits: u32,
}

/// Where and how often a paged solve checkpoints, and what identifies its table.
pub(crate) struct Checkpoints {
    dir: PathBuf,
    name: String,
    ident: u64,
    every: Duration,
    last: Instant,
    generation: u64,
}

/// The solver's small state at a level boundary (the arrays are files beside it).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Saved {
    /// The level about to be expanded.
    pub(crate) level: u64,
    /// The latest level of any waiting entry.
    pub(crate) horizon: u64,
    /// The entries waiting for a later level (raw).
    pub(crate) later: Vec<u64>,
    /// Entries settled at far levels: per level, its entries.
    pub(crate) far_levels: Vec<(u64, Vec<u64>)>,
    /// The current far frontier.
    pub(crate) far_frontier: Vec<u64>,
    /// Per chunk: has an entry in the current frontier.
    pub(crate) cur: Vec<u64>,
    /// Per chunk: the levels with pending capture wins (4 words each).
    pub(crate) pending: Vec<u64>,
}

impl Checkpoints {
    /// Checkpoints of table `name` in `dir` every `every`, for a solve identified by `ident` (see
    /// [`identity`]).
    pub(crate) fn new(dir: &Path, name: &str, ident: u64, every: Duration) -> Checkpoints {
        Checkpoints {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            ident,
            every,
            last: Instant::now(),
            generation: 0,
        }
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join(format!("{}.state", self.name))
    }

    fn array_path(&self, array: &str, generation: u64) -> PathBuf {
        self.dir.join(format!("{}.{array}.{generation}", self.name))
    }

    /// Is a checkpoint due?
    pub(crate) fn due(&self) -> bool {
        self.last.elapsed() >= self.every
    }

    /// Saves `saved` and the arrays in `files` (name, file), replacing the last checkpoint.
    pub(crate) fn save(&mut self, saved: &Saved, files: &[(&str, &File)]) -> Result<(), TbError> {
        let io = |p: &Path, e| TbError::io(p, e);
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let generation = self.generation + 1;
        for (array, file) in files {
            let path = self.array_path(array, generation);
            // Never opened blindly: a FIFO left there (a stale run, someone else) would block the
            // open forever, a link would be written through. Either is refused, naming the file;
            // the state file's atomic write refuses them likewise.
            let mut out = create_regular(&path).map_err(|e| io(&path, e))?;
            let mut src = *file;
            src.seek(SeekFrom::Start(0)).map_err(|e| io(&path, e))?;
            // A copy by the kernel (copy_file_range): the pages never enter this process.
            std::io::copy(&mut src, &mut out).map_err(|e| io(&path, e))?;
            out.sync_data().map_err(|e| io(&path, e))?;
        }
        let state = self.state_path();
        AtomicFile::write(&state, &encode(self.ident, generation, saved)).map_err(|e| io(&state, e))?;
        for (array, _) in files {
            let _ = std::fs::remove_file(self.array_path(array, self.generation));
        }
        self.generation = generation;
        self.last = Instant::now();
        Ok(())
    }

    /// The last checkpoint of this solve, of a table of `shape`, its arrays copied into `files`
    /// (name, file); `None` when there is none. A checkpoint refused (damaged, another solve's,
    /// or one saying what the solver never saves: see [`decode`]) is said in one line through
    /// `bar`, and removed; the solve then starts over.
    pub(crate) fn load(
        &mut self,
        shape: &Shape,
        files: &[(&str, &File)],
        bar: &dyn Progress,
    ) -> Result<Option<Saved>, TbError> {
        let state = self.state_path();
        // Through the regular-file check: a FIFO left in the scratch directory under a
        // checkpoint's name is no checkpoint, and must not be waited on; it is refused (and
        // removed, so that this solve's own checkpoints can be saved there).
        let mut bytes = Vec::new();
        match open_regular(&state).and_then(|mut f| f.read_to_end(&mut bytes)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                self.refuse(&state, &Refused::Unreadable(e.to_string()), bar);
                return Ok(None);
            }
        }
        let (generation, saved) = match decode(&bytes, self.ident, shape) {
            Ok(decoded) => decoded,
            Err(why) => {
                self.refuse(&state, &why, bar);
                return Ok(None);
            }
        };
        for (array, file) in files {
            let path = self.array_path(array, generation);
            let want = file.metadata().map_err(|e| TbError::io(&path, e))?.len();
            // A missing or short array file: the checkpoint is not complete, so the solve starts
            // over (and the checkpoint goes).
            let src = match open_regular(&path).and_then(|f| f.metadata().map(|m| (f, m.len()))) {
                Ok((f, len)) if len == want => f,
                Ok((_, found)) => {
                    self.refuse(&path, &Refused::ArrayLength { found, want }, bar);
                    return Ok(None);
                }
                Err(e) => {
                    self.refuse(&path, &Refused::Unreadable(e.to_string()), bar);
                    return Ok(None);
                }
            };
            let mut src = src;
            let mut dst = *file;
            dst.seek(SeekFrom::Start(0)).map_err(|e| TbError::io(&path, e))?;
            std::io::copy(&mut src, &mut dst).map_err(|e| TbError::io(&path, e))?;
        }
        self.generation = generation;
        self.last = Instant::now();
        Ok(Some(saved))
    }

    /// The path of array file `array` of the checkpoint loaded last.
    pub(crate) fn loaded_array(&self, array: &str) -> PathBuf {
        self.array_path(array, self.generation)
    }

    /// Says through `bar` that the checkpoint file `path` is refused and why, and removes the
    /// checkpoint: the solve starts this table over.
    pub(crate) fn refuse(&mut self, path: &Path, why: &Refused, bar: &dyn Progress) {
        bar.println(&format!(
            "{}: checkpoint file {} refused: {why}; starting this table over",
            self.name,
            path.display()
        ));
        self.remove();
        self.generation = 0;
    }

    /// Removes every file of this table's checkpoints.
    pub(crate) fn remove(&self) {
        remove(&self.dir, &self.name);
    }
}

/// Removes every checkpoint file of table `name` in `dir` (none there is no error).
pub(crate) fn remove(dir: &Path, name: &str) {
    let prefix = format!("{name}.");
    if let Ok(list) = std::fs::read_dir(dir) {
        for entry in list.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let ours = file
                .strip_prefix(&prefix)
                .is_some_and(|rest| rest == "state" || rest.starts_with("values.") || rest.starts_with("bits."));
            if ours {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// What identifies a solve: the program's version, the table and its entries, and its inputs
/// (`parts`: any numbers that tell them apart, such as their entry counts and checksums).
pub(crate) fn identity(name: &str, parts: &[u64]) -> u64 {
    let mut h = fnv1a(FNV_OFFSET, env!("CARGO_PKG_VERSION").as_bytes());
    h = fnv1a(h, name.as_bytes());
    for p in parts {
        h = fnv1a(h, &p.to_le_bytes());
    }
    h
}

/// The bytes of a state file of solve `ident`, generation `generation`: the magic, the words of
/// `s`, and an FNV-1a checksum of all that.
pub(crate) fn encode(ident: u64, generation: u64, s: &Saved) -> Vec<u8> {
    let mut w: Vec<u64> = vec![ident, generation, s.level, s.horizon];
    let list = |w: &mut Vec<u64>, l: &[u64]| {
        w.push(l.len() as u64);
        w.extend_from_slice(l);
    };
    list(&mut w, &s.later);
    w.push(s.far_levels.len() as u64);
    for (level, entries) in &s.far_levels {
        w.push(*level);
        list(&mut w, entries);
    }
    list(&mut w, &s.far_frontier);
    list(&mut w, &s.cur);
    list(&mut w, &s.pending);
    let mut out = MAGIC.to_vec();
    for x in &w {
        out.extend_from_slice(&x.to_le_bytes());
    }
    let sum = fnv1a(FNV_OFFSET, &out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The generation and state of a state file of solve `ident` whose table has `shape`, checked
/// against every invariant the solver keeps (see [`Refused`]): a pure function of its inputs,
/// so that it can be fuzzed.
pub(crate) fn decode(bytes: &[u8], ident: u64, shape: &Shape) -> Result<(u64, Saved), Refused> {
    let (body, sum) =
        bytes.split_at_checked(bytes.len().checked_sub(8).ok_or(Refused::Short)?).ok_or(Refused::Short)?;
    if !body.starts_with(MAGIC) {
        return Err(Refused::Magic);
    }
    if fnv1a(FNV_OFFSET, body).to_le_bytes() != sum {
        return Err(Refused::Checksum);
    }
    if body.len() % 8 != 0 {
        return Err(Refused::Truncated);
    }
    let mut it = body[8..].chunks_exact(8).map(|c| c.try_into().map_or(0, u64::from_le_bytes));
    let mut next = || it.next().ok_or(Refused::Truncated);
    if next()? != ident {
        return Err(Refused::OtherSolve);
    }
    let generation = next()?;
    let mut s = Saved { level: next()?, horizon: next()?, ..Saved::default() };
    let list = |next: &mut dyn FnMut() -> Result<u64, Refused>| -> Result<Vec<u64>, Refused> {
        let n = usize::try_from(next()?).map_err(|_| Refused::Truncated)?;
        // The length is not trusted for the allocation: the words must be there.
        let mut v = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            v.push(next()?);
        }
        Ok(v)
    };
    s.later = list(&mut next)?;
    let far_count = next()?;
    for _ in 0..far_count {
        let level = next()?;
        s.far_levels.push((level, list(&mut next)?));
    }
    s.far_frontier = list(&mut next)?;
    s.cur = list(&mut next)?;
    s.pending = list(&mut next)?;
    if next().is_ok() {
        return Err(Refused::Trailing);
    }
    validate(generation, &s, shape)?;
    Ok((generation, s))
}

/// The solver's invariants at a level boundary (see `Solver::run` in `solve`), checked on a
/// decoded state: whatever a state file says, the solver may then index and loop by it.
fn validate(generation: u64, s: &Saved, shape: &Shape) -> Result<(), Refused> {
    if generation == 0 || generation >= MAX_GENERATION {
        return Err(Refused::Generation(generation));
    }
    let max = u64::from(MAX_LEVEL);
    if s.level > max {
        return Err(Refused::Level { level: s.level, max: MAX_LEVEL });
    }
    if s.horizon > max {
        return Err(Refused::Horizon { horizon: s.horizon, max: MAX_LEVEL });
    }
    let entry = |list: &'static str, e: u64| {
        if e < shape.entries {
            Ok(())
        } else {
            Err(Refused::Entry { list, entry: e, entries: shape.entries })
        }
    };
    // An entry waits for a level after the one about to be expanded, at most the horizon (which
    // ends the solve once passed with nothing settled).
    for &w in &s.later {
        entry("waiting", w & ((1 << shape.waiting_entry_bits) - 1))?;
        let at = w >> shape.waiting_entry_bits;
        if at <= s.level || at > s.horizon {
            return Err(Refused::WaitingLevel { at, level: s.level, horizon: s.horizon });
        }
    }
    // Far levels: each at least the far level and before the current one, in increasing order,
    // each list sorted without repeats (they are frontiers, sorted when made).
    let far = u64::from(shape.far_level);
    let mut previous: Option<u64> = None;
    for (level, list) in &s.far_levels {
        if *level < far || *level >= s.level || previous.is_some_and(|p| p >= *level) {
            return Err(Refused::FarLevel { far_level: *level, level: s.level, first: shape.far_level });
        }
        previous = Some(*level);
        for &e in list {
            entry("far level", e)?;
        }
        sorted("far level", list)?;
    }
    // The far frontier: entries settled at the current level, when it is a far one.
    for &e in &s.far_frontier {
        entry("far frontier", e)?;
    }
    if !s.far_frontier.is_empty() && s.level < far {
        return Err(Refused::FarFrontier { level: s.level, first: shape.far_level });
    }
    sorted("far frontier", &s.far_frontier)?;
    let chunks = shape.entries.div_ceil(shape.chunk.max(1));
    if s.cur.len() as u64 != chunks {
        return Err(Refused::ChunkFlags { found: s.cur.len() as u64, want: chunks });
    }
    if let Some(&flag) = s.cur.iter().find(|&&f| f > 1) {
        return Err(Refused::ChunkFlag(flag));
    }
    if s.pending.len() as u64 != 4 * chunks {
        return Err(Refused::PendingWords { found: s.pending.len() as u64, want: 4 * chunks });
    }
    // Pending capture wins: bit `l` of a chunk's 4 words, only at the odd levels a counter byte
    // holds (a win in `2j + 1` plies), none past the horizon (which counts them in).
    let limit = u64::from(shape.max_pending_win).min(s.horizon);
    for words in s.pending.chunks(4) {
        for (i, &word) in words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let level = i as u64 * 64 + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                if level % 2 == 0 || level > limit {
                    return Err(Refused::PendingLevel { at: level, limit });
                }
            }
        }
    }
    Ok(())
}

/// `list` in increasing order without repeats.
fn sorted(list: &'static str, v: &[u64]) -> Result<(), Refused> {
    match v.windows(2).all(|w| w[0] < w[1]) {
        true => Ok(()),
        false => Err(Refused::Unsorted { list }),
    }
}

/// The fuzzing entry point of the state file's reader (`fuzz/fuzz_targets/checkpoint.rs`,
/// `tests/reader_fuzz.rs`): `bytes` read as the state file of a solve of `shape`, whatever solve
/// it names. `Ok` with the bytes the decoded state encodes to (the same bytes, for an accepted
/// file), or the reason it is refused.
pub(crate) fn fuzz_decode(bytes: &[u8], shape: &Shape) -> Result<Vec<u8>, String> {
    let ident = bytes.get(8..16).and_then(|w| w.try_into().ok()).map_or(0, u64::from_le_bytes);
    let (generation, saved) = decode(bytes, ident, shape).map_err(|e| e.to_string())?;
    Ok(encode(ident, generation, &saved))
}

/// Why a checkpoint was refused: the state file is damaged, another solve's, or says something
/// the solver never saves (a doctored file); or its arrays disagree with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Shorter than its checksum.
    Short,
    /// Does not start with the state file's magic.
    Magic,
    /// Its checksum does not match its bytes.
    Checksum,
    /// Ends inside its lists.
    Truncated,
    /// Has words after its lists.
    Trailing,
    /// Made by another version of the program, or for another table or other inputs.
    OtherSolve,
    /// A generation no save makes.
    Generation(u64),
    /// A level past the longest distance a table stores.
    Level {
        /// The level.
        level: u64,
        /// The largest level.
        max: u16,
    },
    /// A horizon past the longest distance a table stores.
    Horizon {
        /// The horizon.
        horizon: u64,
        /// The largest level.
        max: u16,
    },
    /// An entry of a list past the table's end.
    Entry {
        /// The list.
        list: &'static str,
        /// The entry.
        entry: u64,
        /// The table's entries.
        entries: u64,
    },
    /// A waiting entry's level not after the current level, or past the horizon.
    WaitingLevel {
        /// The level it waits for.
        at: u64,
        /// The current level.
        level: u64,
        /// The horizon.
        horizon: u64,
    },
    /// A far level below the first far level, not before the current level, or out of order.
    FarLevel {
        /// The far level.
        far_level: u64,
        /// The current level.
        level: u64,
        /// The first far level.
        first: u16,
    },
    /// A far frontier at a level below the first far level.
    FarFrontier {
        /// The current level.
        level: u64,
        /// The first far level.
        first: u16,
    },
    /// A list of entries out of order or with repeats.
    Unsorted {
        /// The list.
        list: &'static str,
    },
    /// Not one frontier flag per chunk.
    ChunkFlags {
        /// Flags found.
        found: u64,
        /// Chunks of the table.
        want: u64,
    },
    /// A frontier flag neither 0 nor 1.
    ChunkFlag(u64),
    /// Not four pending-win words per chunk.
    PendingWords {
        /// Words found.
        found: u64,
        /// Four per chunk.
        want: u64,
    },
    /// A pending capture win at a level a counter byte never holds, or past the horizon.
    PendingLevel {
        /// The level.
        at: u64,
        /// The last level one may be at.
        limit: u64,
    },
    /// An array file of another length than the table's array.
    ArrayLength {
        /// Bytes found.
        found: u64,
        /// Bytes of the table's array.
        want: u64,
    },
    /// A file of the checkpoint cannot be read (an array file missing, or the state file or an
    /// array file not a regular file, such as a FIFO left there): why.
    Unreadable(String),
    /// Frontier bits where the state has no frontier: in a chunk not flagged, past the table's
    /// end, or at a far level (whose frontier is a list).
    StrayFrontier {
        /// The first such entry.
        entry: u64,
    },
    /// A frontier entry whose value is not settled at the current level.
    FrontierValue {
        /// The entry.
        entry: u64,
    },
    /// An entry of a far list whose working byte is not the far marker.
    FarValue {
        /// The entry.
        entry: u64,
    },
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Short => write!(f, "too short to be a state file"),
            Refused::Magic => write!(f, "not a checkpoint state file"),
            Refused::Checksum => write!(f, "its checksum does not match its bytes (damaged)"),
            Refused::Truncated => write!(f, "it ends inside its lists"),
            Refused::Trailing => write!(f, "it has bytes after its lists"),
            Refused::OtherSolve => {
                write!(f, "it was made by another version of the program, or for other tables")
            }
            Refused::Generation(g) => write!(f, "generation {g} is none a save makes"),
            Refused::Level { level, max } => write!(f, "level {level} is past the last level {max}"),
            Refused::Horizon { horizon, max } => write!(f, "horizon {horizon} is past the last level {max}"),
            Refused::Entry { list, entry, entries } => {
                write!(f, "{list} entry {entry} is past the table's {entries} entries")
            }
            Refused::WaitingLevel { at, level, horizon } => write!(
                f,
                "an entry waits for level {at}, not after the current level {level} and up to the horizon {horizon}"
            ),
            Refused::FarLevel { far_level, level, first } => write!(
                f,
                "far level {far_level} is out of order, below the first far level {first} or not before the \
                 current level {level}"
            ),
            Refused::FarFrontier { level, first } => {
                write!(f, "a far frontier at level {level}, below the first far level {first}")
            }
            Refused::Unsorted { list } => write!(f, "a {list} list is out of order or repeats an entry"),
            Refused::ChunkFlags { found, want } => write!(f, "{found} frontier flags for {want} chunks"),
            Refused::ChunkFlag(v) => write!(f, "frontier flag {v} is neither 0 nor 1"),
            Refused::PendingWords { found, want } => {
                write!(f, "{found} pending-win words where the table's chunks have {want}")
            }
            Refused::PendingLevel { at, limit } => {
                write!(f, "a pending capture win at level {at}, not an odd level up to {limit}")
            }
            Refused::ArrayLength { found, want } => write!(f, "{found} bytes where the table's array has {want}"),
            Refused::Unreadable(why) => write!(f, "it cannot be read ({why})"),
            Refused::StrayFrontier { entry } => {
                write!(f, "entry {entry} is marked in the frontier where the state has no frontier")
            }
            Refused::FrontierValue { entry } => {
                write!(f, "frontier entry {entry} does not hold a value of the current level")
            }
            Refused::FarValue { entry } => write!(f, "far entry {entry} does not hold the far marker"),
        }
    }
}

impl std::error::Error for Refused {}

#[cfg(test)]
mod tests;
