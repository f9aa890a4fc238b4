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

use super::error::TbError;
use crate::util::checksum::{fnv1a, FNV_OFFSET};
use crate::util::files::{open_regular, AtomicFile};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The state file's first bytes.
const MAGIC: &[u8; 8] = b"QIKUCKP1";

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
            let mut out = File::create(&path).map_err(|e| io(&path, e))?;
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

    /// The last checkpoint of this solve, its arrays copied into `files` (name, file); `None`
    /// when there is none, or one of another solve (removed then).
    pub(crate) fn load(&mut self, files: &[(&str, &File)]) -> Result<Option<Saved>, TbError> {
        let state = self.state_path();
        // Through the regular-file check: a FIFO left in the scratch directory under a
        // checkpoint's name is no checkpoint, and must not be waited on.
        let mut bytes = Vec::new();
        if open_regular(&state).and_then(|mut f| f.read_to_end(&mut bytes)).is_err() {
            return Ok(None);
        }
        let Some((generation, saved)) = decode(&bytes, self.ident) else {
            self.remove();
            return Ok(None);
        };
        for (array, file) in files {
            let path = self.array_path(array, generation);
            let want = file.metadata().map_err(|e| TbError::io(&path, e))?.len();
            // A missing or short array file: the checkpoint is not complete, so the solve starts
            // over (and the checkpoint goes).
            let src = open_regular(&path).ok().filter(|f| f.metadata().is_ok_and(|m| m.len() == want));
            let Some(mut src) = src else {
                self.remove();
                return Ok(None);
            };
            let mut dst = *file;
            dst.seek(SeekFrom::Start(0)).map_err(|e| TbError::io(&path, e))?;
            std::io::copy(&mut src, &mut dst).map_err(|e| TbError::io(&path, e))?;
        }
        self.generation = generation;
        self.last = Instant::now();
        Ok(Some(saved))
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

fn encode(ident: u64, generation: u64, s: &Saved) -> Vec<u8> {
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

/// The generation and state of a state file of solve `ident`; `None` if damaged or another's.
fn decode(bytes: &[u8], ident: u64) -> Option<(u64, Saved)> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if !body.starts_with(MAGIC) || fnv1a(FNV_OFFSET, body).to_le_bytes() != sum {
        return None;
    }
    let words: Vec<u64> =
        body[8..].chunks(8).map(|c| c.try_into().map(u64::from_le_bytes)).collect::<Result<_, _>>().ok()?;
    let mut it = words.into_iter();
    let mut next = || it.next();
    if next()? != ident {
        return None;
    }
    let generation = next()?;
    let mut s = Saved { level: next()?, horizon: next()?, ..Saved::default() };
    let list = |next: &mut dyn FnMut() -> Option<u64>| -> Option<Vec<u64>> {
        let n = usize::try_from(next()?).ok()?;
        let mut v = Vec::with_capacity(n.min(1 << 20));
        for _ in 0..n {
            v.push(next()?);
        }
        Some(v)
    };
    s.later = list(&mut next)?;
    for _ in 0..next()? {
        let level = next()?;
        s.far_levels.push((level, list(&mut next)?));
    }
    s.far_frontier = list(&mut next)?;
    s.cur = list(&mut next)?;
    s.pending = list(&mut next)?;
    if next().is_some() {
        return None;
    }
    Some((generation, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_checkpoint_round_trips_and_refuses_another_solve() {
        let dir = tempfile::tempdir().unwrap();
        let saved = Saved {
            level: 7,
            horizon: 9,
            later: vec![1, 2, 3],
            far_levels: vec![(240, vec![5, 6]), (241, vec![])],
            far_frontier: vec![8],
            cur: vec![0, 1, 0],
            pending: vec![0; 12],
        };
        let mut array = tempfile::tempfile().unwrap();
        array.write_all(b"the values").unwrap();
        let mut c = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
        c.save(&saved, &[("values", &array)]).unwrap();
        // A second save replaces the first generation's files.
        c.save(&saved, &[("values", &array)]).unwrap();
        let mut names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names, ["KRvK.state", "KRvK.values.2"]);
        let mut into = tempfile::tempfile().unwrap();
        into.set_len(10).unwrap();
        let mut again = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
        assert_eq!(again.load(&[("values", &into)]).unwrap().as_ref(), Some(&saved));
        let mut text = String::new();
        into.seek(SeekFrom::Start(0)).unwrap();
        into.read_to_string(&mut text).unwrap();
        assert_eq!(text, "the values");
        // An array file missing: not used, and removed.
        std::fs::remove_file(dir.path().join("KRvK.values.2")).unwrap();
        let mut lost = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
        assert_eq!(lost.load(&[("values", &into)]).unwrap(), None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        c.save(&saved, &[("values", &array)]).unwrap();
        // Other inputs: the checkpoint is not used, and is removed.
        let mut other = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[2]), Duration::ZERO);
        assert_eq!(other.load(&[("values", &into)]).unwrap(), None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn damaged_state_files_are_refused() {
        let saved = Saved { level: 3, later: vec![4; 5], ..Saved::default() };
        let bytes = encode(42, 1, &saved);
        assert_eq!(decode(&bytes, 42), Some((1, saved)));
        assert_eq!(decode(&bytes, 43), None);
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            assert_eq!(decode(&bytes[..cut], 42), None, "{cut}");
        }
        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert_eq!(decode(&flipped, 42), None);
    }
}
