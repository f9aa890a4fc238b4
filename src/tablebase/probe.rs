//! [`Tablebases`]: the engine-facing API. Opening a directory opens every `.qtb` file in it (with
//! its `.qtr` and `.qtw` companions) and
//! checks its header and block index (a few hundred bytes each); files that fail are recorded
//! with their error ([`Tablebases::problems`]) and probing their material returns that error.
//! Blocks are read with positioned reads (or from a memory map, with
//! [`Tablebases::open_mmap`]) and decompressed on demand into a small shared cache. Every
//! method takes `&self` and is safe to call from many threads at once.

use super::bands;
use super::error::{TbError, TbField};
use super::format::TableFile;
use super::format::{RULES_EXTENSION, TABLE_EXTENSION, WDL_EXTENSION};
use super::material::Material;
use super::value::FromCode as _;
use super::value::{dtm_of, Dtm, Rules, TbValue, Verdict, Wdl, MAX_DTM_U16, MAX_DTM_U8};
use crate::core::{Move, MoveList, Position};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Decompressed blocks kept, in bytes, across all tables (split over the shards).
const CACHE_BYTES: usize = 64 << 20;
const SHARDS: usize = 16;

struct Slot {
    material: Material,
    path: PathBuf,
    file: Result<Arc<TableFile>, TbError>,
    /// The `.qtr` companion: `None` if absent.
    rules: Option<Result<Arc<TableFile>, TbError>>,
    /// The `.qtw` WDL file: `None` if absent.
    wdl: Option<Result<Arc<TableFile>, TbError>>,
}

/// Cache keys of companion blocks: the slot number with this bit set.
const RULES_SLOT: u32 = 1 << 31;
/// Cache keys of WDL blocks: the slot number with this bit set.
const WDL_SLOT: u32 = 1 << 30;

#[derive(Default)]
struct Shard {
    map: HashMap<(u32, u32), Arc<Vec<u8>>>,
    order: VecDeque<(u32, u32)>,
    bytes: usize,
}

/// A directory of tables: their headers checked at open, their blocks read when probed and kept
/// in a small shared cache. Every method takes `&self`; share it between threads.
///
/// ```
/// # #[cfg(feature = "generate")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// use qiku::tablebase::{Material, Tablebases};
///
/// // `dir` holds KRvK.qtb with its .qtr and .qtw companions.
/// let tb = Tablebases::open(dir.path())?;
/// let names: Vec<String> = tb.tables().iter().map(|t| t.material.to_string()).collect();
/// assert_eq!(names, ["KRvK"]);
/// assert!(tb.problems().is_empty());
/// let krk: Material = "KRvK".parse()?;
/// assert!(tb.has_wdl(krk) && tb.has_rules(krk));
/// # Ok(()) }
/// # #[cfg(not(feature = "generate"))] fn main() {}
/// ```
pub struct Tablebases {
    dir: PathBuf,
    slots: Vec<Slot>,
    /// Files that could not be used, with why (damaged, foreign, misnamed, not regular).
    problems: Vec<TbError>,
    by_key: HashMap<u64, usize>,
    cache: Vec<Mutex<Shard>>,
}

/// A table in a directory, as [`Tablebases::tables`] lists it.
#[derive(Clone, Debug)]
pub struct TableInfo {
    /// The table's material.
    pub material: Material,
    /// Its file.
    pub path: PathBuf,
}

/// Where a position's value lives.
enum Located {
    /// No attacking piece on either side: a draw without a file.
    DeadDraw,
    /// No table of this material in the set.
    Absent,
    /// The slot of its material.
    Slot(usize),
}

impl Tablebases {
    /// Opens the tables in `dir` (files named like `KRNvKR.qtb` with a canonical material) with
    /// positioned reads. Fails only if the directory cannot be read; a table file that cannot
    /// be used (damaged, another format, a table under another material's name, not a regular
    /// file, a `.qtb`, `.qtr` or `.qtw` name that is not a table's) is recorded in
    /// [`Tablebases::problems`] and probing its material returns its error.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{TbError, Tablebases};
    /// use qiku::Position;
    ///
    /// // A damaged file does not stop the others from being used: it is listed with its error, and
    /// // probing its material returns that error.
    /// std::fs::write(dir.path().join("KNvK.qtb"), b"not a table")?;
    /// let tb = Tablebases::open(dir.path())?;
    /// assert_eq!(tb.problems().len(), 1);
    /// assert!(matches!(tb.problems()[0], TbError::Corrupt { .. }), "{}", tb.problems()[0]);
    /// let knk = Position::from_fen("3k5/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1")?;
    /// assert!(tb.probe(&knk).is_err());
    /// let krk = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// assert!(tb.probe(&krk)?.is_some());
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebases, TbError> {
        Tablebases::open_with(dir.as_ref(), TableFile::open)
    }

    /// Like [`Tablebases::open`], but every table is memory-mapped (probes a little faster).
    ///
    /// # Safety
    ///
    /// No table file in `dir` may be truncated or modified in place while this is open: a mapped
    /// page that no longer exists kills the process with SIGBUS. Replacing files by rename (as
    /// `qiku-tb generate` does) is safe.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::Tablebases;
    /// use qiku::Position;
    ///
    /// // Safety: the files in `dir` are not modified while the tables are open.
    /// let tb = unsafe { Tablebases::open_mmap(dir.path())? };
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// assert_eq!(tb.probe(&pos)?, Tablebases::open(dir.path())?.probe(&pos)?);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub unsafe fn open_mmap(dir: impl AsRef<Path>) -> Result<Tablebases, TbError> {
        // Safety: the caller's guarantee is passed on to every file.
        Tablebases::open_with(dir.as_ref(), |p| unsafe { TableFile::open_mmap(p) })
    }

    fn open_with(dir: &Path, open: impl Fn(&Path) -> Result<TableFile, TbError>) -> Result<Tablebases, TbError> {
        let dir = dir.to_path_buf();
        let io = |e: std::io::Error| TbError::io(&dir, e);
        // A file given for the directory (a book, a single table): say what it is, not only the
        // system's "Not a directory".
        if let Ok(kind) = crate::util::kind::file_kind(&dir) {
            let what = format!("is {kind}, not a directory of tables");
            return Err(io(std::io::Error::new(std::io::ErrorKind::NotADirectory, what)));
        }
        let mut found = Vec::new();
        let mut problems = Vec::new();
        let mut companions = HashMap::new();
        let mut wdl_files = HashMap::new();
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let ext = path.extension().and_then(|e| e.to_str());
            let known = [TABLE_EXTENSION, RULES_EXTENSION, WDL_EXTENSION];
            let Some(ext) = known.into_iter().find(|k| ext == Some(k)) else {
                continue;
            };
            // A stem that is not UTF-8 (`K\xffvK.qtb`) is no material's: listed with the other
            // misnamed files, not skipped unseen; so are misnamed companions.
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let material = stem
                .parse::<Material>()
                .ok()
                .filter(|m| m.is_canonical() && m.has_attackers() && m.to_string() == stem);
            let Some(m) = material else {
                problems.push(TbError::Corrupt {
                    path,
                    field: TbField::FileName,
                    detail: format!("not the name of a table's file (canonical material such as KRvKA.{ext}); ignored"),
                });
                continue;
            };
            match ext {
                RULES_EXTENSION => {
                    companions.insert(m.to_string(), path);
                }
                WDL_EXTENSION => {
                    wdl_files.insert(m.to_string(), path);
                }
                _ => found.push((m, path)),
            }
        }
        found.sort();
        let mut by_key = HashMap::new();
        let slots: Vec<Slot> = found
            .into_iter()
            .enumerate()
            .map(|(i, (material, path))| {
                by_key.insert(material.key(), i);
                let file = open(&path).map(Arc::new);
                if let Err(e) = &file {
                    problems.push(e.clone());
                }
                let rules = companions.remove(&material.to_string()).map(|p| open(&p).map(Arc::new));
                if let Some(Err(e)) = &rules {
                    problems.push(e.clone());
                }
                let wdl = wdl_files.remove(&material.to_string()).map(|p| open(&p).map(Arc::new));
                if let Some(Err(e)) = &wdl {
                    problems.push(e.clone());
                }
                Slot { material, path, file, rules, wdl }
            })
            .collect();
        for (ext, orphans) in [(RULES_EXTENSION, companions), (WDL_EXTENSION, wdl_files)] {
            for (_, path) in orphans {
                problems.push(TbError::Corrupt {
                    path,
                    field: TbField::FileName,
                    detail: format!("a companion (.{ext}) without its table (.qtb); ignored"),
                });
            }
        }
        problems.sort_by_key(|e| e.path().map(Path::to_path_buf));
        let cache = (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect();
        Ok(Tablebases { dir, slots, problems, by_key, cache })
    }

    /// The directory.
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// let tb = qiku::tablebase::Tablebases::open(dir.path())?;
    /// assert_eq!(tb.dir(), dir.path());
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table files that cannot be used, each error naming its file (example at
    /// [`Tablebases::open`]). Tools print these
    /// (`qiku-tb` on stderr, the engine as `info string`) so a damaged file is never silently
    /// treated as a missing one.
    pub fn problems(&self) -> &[TbError] {
        &self.problems
    }

    /// The tables found in the directory, by material (usable or not: see
    /// [`Tablebases::problems`]).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::Tablebases;
    ///
    /// std::fs::write(dir.path().join("KCvK.qtb"), b"damaged")?;
    /// let tb = Tablebases::open(dir.path())?;
    /// let names = |t: Vec<_>| t.iter().map(|i: &qiku::tablebase::TableInfo| i.material.to_string()).collect::<Vec<_>>();
    /// assert_eq!(names(tb.tables()), ["KCvK", "KRvK"]); // by material, usable or not
    /// assert_eq!(names(tb.usable_tables()), ["KRvK"]);
    /// assert!(tb.table("KRvK".parse()?)?.is_some());
    /// assert!(tb.table("KCvK".parse()?).is_err()); // the damaged file's error
    /// assert!(tb.table("KNvK".parse()?)?.is_none()); // no file
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn tables(&self) -> Vec<TableInfo> {
        self.slots.iter().map(|s| TableInfo { material: s.material, path: s.path.clone() }).collect()
    }

    /// The usable tables, by material (example at [`Tablebases::tables`]).
    pub fn usable_tables(&self) -> Vec<TableInfo> {
        self.slots
            .iter()
            .filter(|s| s.file.is_ok())
            .map(|s| TableInfo { material: s.material, path: s.path.clone() })
            .collect()
    }

    /// The open table file of a canonical material, `None` if absent, its error if the file
    /// cannot be used (example at [`Tablebases::tables`]).
    pub fn table(&self, material: Material) -> Result<Option<Arc<TableFile>>, TbError> {
        let Some(i) = self.slot_of(material) else { return Ok(None) };
        self.slots[i].file.clone().map(Some)
    }

    /// The slot of a canonical material. The key is a hash: the slot must hold this very
    /// material.
    fn slot_of(&self, material: Material) -> Option<usize> {
        self.by_key.get(&material.key()).copied().filter(|&i| self.slots[i].material == material)
    }

    /// The full value of a position under the default rules ([`Rules::default`], the Asian
    /// rules tournaments play: see [`Tablebases::probe_with`]): `Ok(None)` when no table covers
    /// its material (too many pieces, or the file is not in the directory). Materials without
    /// attacking pieces are draws without a file. A value only the rules decide has a line rank
    /// for a distance; [`Tablebases::verdict`] says which it is.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Tablebases, TbValue, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// // Red to move wins; with black to move, black loses.
    /// let red = tb.probe(&Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?)?.expect("KRvK");
    /// assert_eq!(red.wdl, Wdl::Win);
    /// assert!(red.dtm.0 > 0 && red.dtm.0 % 2 == 1); // odd plies: red gives the mate
    /// let black = tb.probe(&Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1")?)?.expect("KRvK");
    /// assert_eq!(black.wdl, Wdl::Loss);
    /// // The color swap is answered by the same file.
    /// let swapped = tb.probe(&Position::from_fen("4k4/4r4/9/9/9/9/9/9/9/3K5 b - - 0 1")?)?;
    /// assert_eq!(swapped.map(|v| v.wdl), Some(Wdl::Win));
    /// // Kings alone: a draw, no file needed. Two rooks: no table in this directory.
    /// assert_eq!(tb.probe(&Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")?)?, Some(TbValue::DRAW));
    /// assert_eq!(tb.probe(&Position::from_fen("3k5/9/9/9/9/9/9/9/R3R4/4K4 w - - 0 1")?)?, None);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn probe(&self, pos: &Position) -> Result<Option<TbValue>, TbError> {
        self.probe_with(pos, Rules::default())
    }

    /// The value of a position under `rules`. Under [`Rules::Asian`] a drawn position whose
    /// defender can only hold by checking forever is lost for that defender; this needs the
    /// table's `.qtr` companion ([`TbError::NoRules`] if it is missing). Wins and losses are the
    /// same under both rules; a decided value that only the rules give has a distance that is a
    /// rank for the winning line ([`Tablebases::best_moves_with`]), not plies to mate.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases, TbError, Wdl};
    /// use qiku::Position;
    ///
    /// let won = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let drawn = Position::from_fen("3k5/3R5/9/9/9/9/9/9/9/4K4 b - - 0 1")?; // the king takes the rook
    /// let tb = Tablebases::open(dir.path())?;
    /// // A win is a win under both rules, at the same distance; so is this draw.
    /// assert_eq!(tb.probe_with(&won, Rules::Asian)?, tb.probe_with(&won, Rules::Plain)?);
    /// assert_eq!(tb.probe_with(&drawn, Rules::Asian)?.map(|v| v.wdl), Some(Wdl::Draw));
    /// // Without the `.qtr` companion the rules' value of a draw is unknown: an error, not a
    /// // guess. Wins and losses need no companion.
    /// std::fs::remove_file(dir.path().join("KRvK.qtr"))?;
    /// let tb = Tablebases::open(dir.path())?;
    /// assert!(tb.probe_with(&won, Rules::Asian)?.is_some());
    /// let err = tb.probe_with(&drawn, Rules::Asian).unwrap_err();
    /// assert!(matches!(err, TbError::NoRules { .. }), "{err}");
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn probe_with(&self, pos: &Position, rules: Rules) -> Result<Option<TbValue>, TbError> {
        Ok(self.verdict(pos, rules)?.map(|v| v.value))
    }

    /// The verdict on a position under `rules`: its value, the rules, and whether only the rules
    /// decide it (a draw without them, whose distance is then a line rank, not plies to mate).
    /// Its text is what every qiku tool prints for a table value.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1")?;
    /// let v = tb.verdict(&pos, Rules::Asian)?.expect("KRvK");
    /// assert!(!v.by_rule && v.unit() == "plies");
    /// assert!(v.to_string().starts_with("loss, mated in ") && v.to_string().ends_with(" plies (asian rules)"));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn verdict(&self, pos: &Position, rules: Rules) -> Result<Option<Verdict>, TbError> {
        let plain_verdict = |value| Some(Verdict { value, rules, by_rule: false });
        let slot = match self.locate(pos) {
            Located::DeadDraw => return Ok(plain_verdict(TbValue::DRAW)),
            Located::Absent => return Ok(None),
            Located::Slot(slot) => slot,
        };
        let file = self.slots[slot].file.clone()?;
        // Under the rules a damaged companion fails every probe of its material (as a damaged
        // table does), not only those it would decide: it is never mistaken for a missing one.
        if let (Rules::Asian, Some(Err(e))) = (rules, &self.slots[slot].rules) {
            return Err(e.clone());
        }
        let idx = file.layout.index_of(pos).ok_or_else(|| entry_error(&file, pos, "position outside the index"))?;
        let code = self.code(slot as u32, &file, idx, pos)?;
        let plain = TbValue::from_code(code).ok_or_else(|| entry_error(&file, pos, "illegal or reserved code"))?;
        if rules == Rules::Plain || plain.wdl != Wdl::Draw {
            return Ok(plain_verdict(plain));
        }
        let companion = match &self.slots[slot].rules {
            None => return Err(TbError::NoRules { path: file.path.with_extension(RULES_EXTENSION) }),
            Some(r) => r.clone()?,
        };
        if companion.header.per_side != file.header.per_side {
            return Err(entry_error(&companion, pos, "companion of another size"));
        }
        match self.code(slot as u32 | RULES_SLOT, &companion, idx, pos)? {
            0 => Ok(plain_verdict(plain)),
            c => TbValue::from_code(c)
                .map(|value| Some(Verdict { value, rules, by_rule: true }))
                .ok_or_else(|| entry_error(&companion, pos, "illegal code")),
        }
    }

    /// Which slot holds a position's material, shared by the DTM and WDL probes.
    fn locate(&self, pos: &Position) -> Located {
        let material = Material::from_position(pos);
        if !material.has_attackers() {
            return Located::DeadDraw;
        }
        match self.slot_of(material.canonical().0) {
            Some(slot) => Located::Slot(slot),
            None => Located::Absent,
        }
    }

    /// The stored code of entry `idx` of `file` (any metric), through the block cache.
    fn raw_code(&self, slot: u32, file: &TableFile, idx: u64, pos: &Position) -> Result<u16, TbError> {
        let per_block = file.header.block_entries as u64;
        let raw = self.block(slot, (idx / per_block) as u32, file)?;
        file.code_in(&raw, (idx % per_block) as usize).ok_or_else(|| entry_error(file, pos, "entry past the block"))
    }

    /// The stored code of entry `idx` of `file`, checked as `verify` does: a code above the
    /// width's largest distance is reserved, and no distance exceeds the longest in the header.
    fn code(&self, slot: u32, file: &TableFile, idx: u64, pos: &Position) -> Result<u16, TbError> {
        let code = self.raw_code(slot, file, idx, pos)?;
        let width_max = if file.header.width == 1 { MAX_DTM_U8 } else { MAX_DTM_U16 };
        let header_max = file.header.counts.iter().map(|c| c.max_dtm).max().unwrap_or(0);
        if dtm_of(code).is_some_and(|d| d > width_max || u64::from(d) > header_max) {
            return Err(entry_error(file, pos, &format!("reserved value code {code}")));
        }
        Ok(code)
    }

    /// Win, draw or loss for the side to move under the default rules ([`Rules::default`], the
    /// Asian rules): from the material's `.qtw` WDL file when it has one (small blocks, made for
    /// probes inside a search; the few entries the rules decide from the `.qtr` companion), else
    /// from its `.qtb` and `.qtr`.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Material, Tablebases, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// assert!(tb.has_wdl("KRvK".parse::<Material>()?)); // KRvK.qtw: 2 bits an entry
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1")?;
    /// assert_eq!(tb.probe_wdl(&pos)?, Some(Wdl::Loss));
    /// assert_eq!(tb.probe_wdl(&pos)?, tb.probe(&pos)?.map(|v| v.wdl));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn probe_wdl(&self, pos: &Position) -> Result<Option<Wdl>, TbError> {
        self.probe_wdl_with(pos, Rules::default())
    }

    /// Win, draw or loss under `rules`, from the `.qtw` WDL file when the material has a usable
    /// one: under [`Rules::Asian`] the few entries the rules decide are then read from the `.qtr`
    /// companion. Without a usable WDL file (absent, or listed in [`Tablebases::problems`]) the
    /// DTM files answer, as [`Tablebases::probe_with`].
    ///
    /// Whenever both answer, this is the `wdl` of [`Tablebases::verdict`] under the same rules.
    /// A damaged table (`.qtb`), or under [`Rules::Asian`] a damaged `.qtr` companion, fails this
    /// probe as it fails [`Tablebases::verdict`], with the same error, even where the `.qtw` could
    /// answer: damaged data is refused, never answered around. Only a block of the `.qtw` that
    /// turns out damaged when read fails this probe alone (the DTM files do not read it).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// assert!(tb.has_wdl("KRvK".parse()?) && tb.has_rules("KRvK".parse()?));
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1")?;
    /// for rules in [Rules::Asian, Rules::Plain] {
    ///     assert_eq!(tb.probe_wdl_with(&pos, rules)?, Some(Wdl::Loss));
    ///     assert_eq!(tb.probe_wdl_with(&pos, rules)?, tb.verdict(&pos, rules)?.map(|v| v.value.wdl));
    /// }
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn probe_wdl_with(&self, pos: &Position, rules: Rules) -> Result<Option<Wdl>, TbError> {
        let slot = match self.locate(pos) {
            Located::DeadDraw => return Ok(Some(Wdl::Draw)),
            Located::Absent => return Ok(None),
            Located::Slot(slot) => slot,
        };
        // As `verdict` refuses them; checked by reference, so that the search's hot path clones
        // nothing.
        if let Err(e) = &self.slots[slot].file {
            return Err(e.clone());
        }
        if let (Rules::Asian, Some(Err(e))) = (rules, &self.slots[slot].rules) {
            return Err(e.clone());
        }
        let Some(Ok(wdl)) = &self.slots[slot].wdl else {
            return Ok(self.probe_with(pos, rules)?.map(|v| v.wdl));
        };
        let idx = wdl.layout.index_of(pos).ok_or_else(|| entry_error(wdl, pos, "position outside the index"))?;
        let code = self.raw_code(slot as u32 | WDL_SLOT, wdl, idx, pos)?;
        match super::wdl::wdl_of(code as u8, rules == Rules::Asian) {
            Some(w) => Ok(Some(w)),
            // Decided by the rule: the companion says which way (and checks it is a decided value).
            None => Ok(self.probe_with(pos, rules)?.map(|v| v.wdl)),
        }
    }

    /// The `.qtw` WDL file's answer on `pos` under `rules`, checked against `verdict` (the DTM
    /// files' answer, [`Tablebases::verdict`]): `None` when the material has no WDL file; the
    /// file's error when it is there but cannot be used (damaged, cut short, another material's:
    /// never read as absent); an error naming the WDL file when the two disagree (one of them is
    /// damaged in a way its checksums cannot see, or they were generated apart). Every tool that
    /// shows a WDL file's answer beside a table value asks this, so none shows two answers for
    /// one position.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1")?;
    /// let v = tb.verdict(&pos, Rules::Asian)?.expect("KRvK");
    /// assert_eq!(tb.checked_wdl_file(&pos, Rules::Asian, &v)?, Some(Wdl::Loss));
    /// // Another material's WDL file in its place is refused by name, not taken for none.
    /// # generate_set(&["KNvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// std::fs::copy(dir.path().join("KNvK.qtw"), dir.path().join("KRvK.qtw"))?;
    /// let tb = Tablebases::open(dir.path())?;
    /// let e = tb.checked_wdl_file(&pos, Rules::Asian, &v).unwrap_err();
    /// assert!(e.to_string().contains("KRvK.qtw"), "{e}");
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn checked_wdl_file(&self, pos: &Position, rules: Rules, verdict: &Verdict) -> Result<Option<Wdl>, TbError> {
        // A `.qtw` that is there but cannot be used (damaged, cut short, another material's) is
        // its error, never taken for an absent one.
        let Some(file) = self.wdl_file(Material::from_position(pos).canonical().0)? else { return Ok(None) };
        let wdl = self.probe_wdl_with(pos, rules)?;
        match wdl {
            Some(w) if w != verdict.value.wdl => Err(self.disagreement(pos, rules, verdict, w, file.path())),
            w => Ok(w),
        }
    }

    /// The error for a `.qtw` file (at `wdl_path`) that says `wdl` where the DTM files say
    /// `verdict`: the position's moves side with one of them, which names the other as the
    /// damaged file; when they cannot tell (a value only the rules decide, a move that cannot be
    /// probed), every file the two answers came from is named.
    fn disagreement(&self, pos: &Position, rules: Rules, verdict: &Verdict, wdl: Wdl, wdl_path: &Path) -> TbError {
        let Located::Slot(slot) = self.locate(pos) else {
            let detail = format!(
                "it says {} for {}, where the DTM files say {}",
                wdl.name(),
                pos.fen(),
                verdict.value.wdl.name()
            );
            return TbError::Disagree { files: vec![wdl_path.to_path_buf()], certain: false, detail };
        };
        let table = self.slots[slot].path.clone();
        let said = verdict.value.wdl;
        // What the moves give: the best of them, or a loss without one. Values the rules do not
        // decide are the `.qtb`'s, and follow from their moves.
        let derived = match self.move_verdicts(pos, rules) {
            Ok(Some(moves)) if !verdict.by_rule && moves.iter().all(|(_, v)| !v.by_rule) => {
                Some(moves.first().map_or(Wdl::Loss, |(_, v)| v.value.wdl))
            }
            _ => None,
        };
        let fen = pos.fen();
        match derived {
            Some(d) if d == said => TbError::Disagree {
                files: vec![wdl_path.to_path_buf()],
                certain: true,
                detail: format!(
                    "it says {} for {fen}, where the position's moves and {} say {}",
                    wdl.name(),
                    table.display(),
                    said.name()
                ),
            },
            Some(d) if d == wdl => TbError::Disagree {
                detail: format!(
                    "it says {} for {fen}, where the position's moves and {} say {}",
                    said.name(),
                    wdl_path.display(),
                    wdl.name()
                ),
                files: vec![table],
                certain: true,
            },
            _ => {
                let mut files = vec![table];
                if let (Rules::Asian, Some(Ok(companion))) = (rules, &self.slots[slot].rules) {
                    files.push(companion.path().to_path_buf());
                }
                files.push(wdl_path.to_path_buf());
                let detail = format!("the DTM files say {} for {fen}, the WDL file {}", said.name(), wdl.name());
                TbError::Disagree { files, certain: false, detail }
            }
        }
    }

    /// Does the table of `material` (canonical) have a usable `.qtw` WDL file? (Example at
    /// [`Tablebases::probe_wdl_with`].)
    pub fn has_wdl(&self, material: Material) -> bool {
        self.slot_of(material).is_some_and(|i| matches!(self.slots[i].wdl, Some(Ok(_))))
    }

    /// The open WDL file of a canonical material, `None` if absent, its error if it cannot be
    /// used.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// let tb = qiku::tablebase::Tablebases::open(dir.path())?;
    /// assert!(tb.wdl_file("KRvK".parse()?)?.is_some());
    /// std::fs::remove_file(dir.path().join("KRvK.qtw"))?;
    /// let tb = qiku::tablebase::Tablebases::open(dir.path())?;
    /// assert!(tb.wdl_file("KRvK".parse()?)?.is_none() && !tb.has_wdl("KRvK".parse()?));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn wdl_file(&self, material: Material) -> Result<Option<Arc<TableFile>>, TbError> {
        let Some(i) = self.slot_of(material) else { return Ok(None) };
        match &self.slots[i].wdl {
            None => Ok(None),
            Some(r) => r.clone().map(Some),
        }
    }

    /// Distance to mate in plies, signed for the side to move (0 for a draw), under the default
    /// rules; for a value only the rules decide, the line rank ([`Tablebases::verdict`]).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// let tb = qiku::tablebase::Tablebases::open(dir.path())?;
    /// let pos = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let dtm = tb.probe_dtm(&pos)?.expect("KRvK");
    /// assert_eq!(Some(dtm), tb.probe(&pos)?.map(|v| v.dtm));
    /// assert!(dtm.0 > 0); // red to move mates
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn probe_dtm(&self, pos: &Position) -> Result<Option<Dtm>, TbError> {
        Ok(self.probe(pos)?.map(|v| v.dtm))
    }

    /// Every legal move with its value for the side to move under the default rules
    /// ([`Rules::default`], the Asian rules; a move into a position lost in `d` is a win in
    /// `d + 1`), best first; `Ok(None)` if the position or a successor has no table.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Tablebases, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let values = tb.move_values(&pos)?.expect("KRvK");
    /// assert_eq!(values.len(), pos.moves().len());
    /// // Best first: the fastest mate, which is the position's own value.
    /// assert_eq!(values[0].1, tb.probe(&pos)?.expect("KRvK"));
    /// // Every other move is as good or worse, and some are worse.
    /// assert!(values.windows(2).all(|w| w[0].1.goodness() >= w[1].1.goodness()));
    /// assert!(values.iter().any(|(_, v)| v.goodness() < values[0].1.goodness()));
    /// assert!(values.iter().all(|(_, v)| v.wdl == Wdl::Win)); // a bare king cannot take the rook here
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn move_values(&self, pos: &Position) -> Result<Option<Vec<(Move, TbValue)>>, TbError> {
        self.move_values_with(pos, Rules::default())
    }

    /// [`Tablebases::move_values`] under `rules`.
    pub fn move_values_with(&self, pos: &Position, rules: Rules) -> Result<Option<Vec<(Move, TbValue)>>, TbError> {
        Ok(self.move_verdicts(pos, rules)?.map(|list| list.into_iter().map(|(m, v)| (m, v.value)).collect()))
    }

    /// Every legal move with its [`Verdict`] under `rules` (as [`Tablebases::move_values_with`]
    /// orders them), so that a tool can say of each move whether only the rules decide it.
    ///
    /// `Ok(None)` when no table covers the position itself; when one does but a capture leads to
    /// a material whose table is not in the directory, [`TbError::MissingDependency`] names it
    /// (the position has a value, its moves do not).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let verdicts = tb.move_verdicts(&pos, Rules::Asian)?.expect("KRvK");
    /// let values = tb.move_values_with(&pos, Rules::Asian)?.expect("KRvK");
    /// assert_eq!(verdicts.iter().map(|&(m, v)| (m, v.value)).collect::<Vec<_>>(), values);
    /// // No table covers a position with more pieces than the directory's tables.
    /// assert!(tb.move_verdicts(&Position::startpos(), Rules::Asian)?.is_none());
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn move_verdicts(&self, pos: &Position, rules: Rules) -> Result<Option<Vec<(Move, Verdict)>>, TbError> {
        // Whether a table covers the position is a lookup of its material; the moves' probes
        // below read the table (and report a damaged one).
        if matches!(self.locate(pos), Located::Absent) {
            return Ok(None);
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut out = Vec::with_capacity(list.len());
        for &m in list.iter() {
            let next = pos.play_unchecked(m);
            let Some(v) = self.verdict(&next, rules)? else {
                return Err(TbError::MissingDependency {
                    material: Material::from_position(pos).canonical().0.to_string(),
                    needs: Material::from_position(&next).canonical().0.to_string(),
                });
            };
            out.push((m, v.before_move()));
        }
        out.sort_by_key(|&(m, v)| (std::cmp::Reverse(v.value.goodness()), m.to_u16()));
        Ok(Some(out))
    }

    /// The moves that keep the position's best value (fastest mate, slowest loss, or any
    /// drawing move) under the default rules ([`Rules::default`], the Asian rules; see
    /// [`Tablebases::best_moves_with`]), in move order; empty when there is no legal move, an
    /// error naming the table when its values cannot be right ([`Tablebases::checked_best_among`]).
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Tablebases, Wdl};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let mut pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")?;
    /// let plies = tb.probe_dtm(&pos)?.expect("KRvK").plies();
    /// assert!(plies > 1);
    /// // Following the table's moves (red's best, black's most stubborn) mates in exactly that many plies.
    /// for _ in 0..plies {
    ///     let m = tb.best_moves(&pos)?.expect("KRvK")[0];
    ///     pos = pos.play(m)?;
    /// }
    /// assert!(pos.moves().is_empty()); // no legal move: black is mated
    /// assert_eq!(tb.probe_wdl(&pos)?, Some(Wdl::Loss));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn best_moves(&self, pos: &Position) -> Result<Option<Vec<Move>>, TbError> {
        self.best_moves_with(pos, Rules::default())
    }

    /// [`Tablebases::best_moves`] under `rules`. In a won position the winning line of
    /// the table's line is followed: the moves into the smallest distance below the position's
    /// own, or if there is none (a position won by the perpetual-check rule, where the line must
    /// make a quiet move), the non-checking moves into the smallest distance. Following these
    /// moves wins against any defence under a referee that applies the rule (`docs/TABLEBASES.md`).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let best = tb.best_moves_with(&pos, Rules::Plain)?.expect("KRvK");
    /// let own = tb.probe_with(&pos, Rules::Plain)?.expect("KRvK");
    /// assert!(!best.is_empty() && best.len() < pos.moves().len());
    /// for m in &best {
    ///     // Each keeps the win and brings the mate one ply nearer.
    ///     let after = tb.probe_with(&pos.play(*m)?, Rules::Plain)?.expect("KRvK");
    ///     assert_eq!(after.dtm.0, -(own.dtm.0 - 1));
    /// }
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn best_moves_with(&self, pos: &Position, rules: Rules) -> Result<Option<Vec<Move>>, TbError> {
        let Some(all) = self.move_values_with(pos, rules)? else { return Ok(None) };
        let Some(own) = self.probe_with(pos, rules)? else { return Ok(None) };
        self.checked_best_among(pos, own, &all).map(Some)
    }

    /// [`Tablebases::best_among`], checked against what a table's values must satisfy: a
    /// position with legal moves has one that keeps its value (a win has a move on the table's
    /// line), and a position without one is lost. Values that break this (damaged behind valid
    /// checksums, or not written by the generator) are an error naming the position's table, as
    /// a damaged file is, never an empty list taken for "no legal move" or a wrong move.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases, TbValue};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")?;
    /// let value = tb.probe_with(&pos, Rules::Asian)?.expect("KRvK");
    /// let values = tb.move_values_with(&pos, Rules::Asian)?.expect("KRvK");
    /// assert_eq!(tb.checked_best_among(&pos, value, &values)?, Tablebases::best_among(&pos, value, &values));
    /// // A draw where every move loses cannot be a table's: refused, naming the table.
    /// let err = tb.checked_best_among(&pos, TbValue::DRAW, &[]).unwrap_err();
    /// assert!(err.to_string().contains("KRvK.qtb") && err.to_string().contains("inconsistent"), "{err}");
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn checked_best_among(
        &self,
        pos: &Position,
        value: TbValue,
        values: &[(Move, TbValue)],
    ) -> Result<Vec<Move>, TbError> {
        let best = Tablebases::best_among(pos, value, values);
        let why = match (values.len(), best.is_empty()) {
            (0, _) if value.wdl != Wdl::Loss => "it has no legal move, and a position without one is lost".to_string(),
            (n, true) if n > 0 => format!("none of its {n} legal moves keeps that value"),
            _ => return Ok(best),
        };
        let Located::Slot(slot) = self.locate(pos) else { return Ok(best) };
        Err(TbError::Corrupt {
            path: self.slots[slot].path.clone(),
            field: TbField::Entry,
            detail: format!(
                "its values are inconsistent: {value} for {}, but {why} (damaged behind valid checksums, or not \
                 written by qiku-tb)",
                pos.fen()
            ),
        })
    }

    /// [`Tablebases::best_moves_with`] for a caller that already has the position's value and
    /// its moves' values under the same rules: `value` as [`Tablebases::probe_with`] gives it,
    /// `values` as [`Tablebases::move_values_with`] gives them (best first). No table is read.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use qiku::Position;
    ///
    /// let tb = Tablebases::open(dir.path())?;
    /// let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")?;
    /// let value = tb.probe_with(&pos, Rules::Asian)?.expect("KRvK");
    /// let values = tb.move_values_with(&pos, Rules::Asian)?.expect("KRvK");
    /// assert_eq!(Some(Tablebases::best_among(&pos, value, &values)), tb.best_moves_with(&pos, Rules::Asian)?);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn best_among(pos: &Position, value: TbValue, values: &[(Move, TbValue)]) -> Vec<Move> {
        let (own, all) = (value, values);
        let mut moves: Vec<Move> = if own.wdl == Wdl::Win {
            // Distances of the children (plies to the end of the line, one less than the move's).
            let wins: Vec<(Move, u16, bool)> = all
                .iter()
                .filter(|(_, v)| v.wdl == Wdl::Win)
                .map(|&(m, v)| (m, v.dtm.plies().saturating_sub(1) as u16, pos.play_unchecked(m).is_check()))
                .collect();
            let keys: Vec<(u16, bool)> = wins.iter().map(|&(_, d, c)| (d, c)).collect();
            match bands::choose(own.dtm.plies() as u16, &keys) {
                Some(i) => {
                    let (d, quiet) = (keys[i].0, keys[i].0 >= own.dtm.plies() as u16);
                    wins.iter().filter(|&&(_, cd, c)| cd == d && !(quiet && c)).map(|&(m, _, _)| m).collect()
                }
                None => Vec::new(),
            }
        } else {
            let best = all.first().map(|&(_, v)| v.goodness());
            all.iter().filter(|(_, v)| Some(v.goodness()) == best).map(|&(m, _)| m).collect()
        };
        moves.sort_by_key(|m| m.to_u16());
        moves
    }

    /// Does the table of `material` (canonical) have a usable `.qtr` companion? (Example at
    /// [`Tablebases::probe_wdl_with`].)
    pub fn has_rules(&self, material: Material) -> bool {
        self.slot_of(material).is_some_and(|i| matches!(self.slots[i].rules, Some(Ok(_))))
    }

    /// A block's bytes, from the cache or decompressed (and then cached).
    fn block(&self, slot: u32, block: u32, file: &TableFile) -> Result<Arc<Vec<u8>>, TbError> {
        let key = (slot, block);
        let shard = &self.cache[((slot & !(RULES_SLOT | WDL_SLOT)) as usize * 31 + block as usize) % SHARDS];
        if let Some(raw) = shard.lock().unwrap_or_else(|e| e.into_inner()).map.get(&key) {
            return Ok(raw.clone());
        }
        let raw = Arc::new(file.read_block(block as usize)?);
        let mut s = shard.lock().unwrap_or_else(|e| e.into_inner());
        if !s.map.contains_key(&key) {
            s.bytes += raw.len();
            s.map.insert(key, raw.clone());
            s.order.push_back(key);
            while s.bytes > CACHE_BYTES / SHARDS {
                let Some(old) = s.order.pop_front() else { break };
                if let Some(v) = s.map.remove(&old) {
                    s.bytes -= v.len();
                }
            }
        }
        Ok(raw)
    }

    /// Empties the block cache (for cold-probe measurements).
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// let tb = qiku::tablebase::Tablebases::open(dir.path())?;
    /// let pos = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let warm = tb.probe(&pos)?;
    /// tb.clear_cache();
    /// assert_eq!(tb.probe(&pos)?, warm); // read from the file again
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn clear_cache(&self) {
        for shard in &self.cache {
            *shard.lock().unwrap_or_else(|e| e.into_inner()) = Shard::default();
        }
    }
}

/// An error about the entry of `pos` in `file`.
fn entry_error(file: &TableFile, pos: &Position, detail: &str) -> TbError {
    TbError::Corrupt { path: file.path.clone(), field: TbField::Entry, detail: format!("{detail} for {}", pos.fen()) }
}
