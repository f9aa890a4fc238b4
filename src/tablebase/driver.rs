//! Generating a set of tables: dependencies first, one table at a time (each parallel inside),
//! skipping tables whose files are already present and intact, writing each file atomically.
//! Each table gets three files: the `.qtb` (DTM), its `.qtr` companion (the Asian rules) and its
//! `.qtw` WDL file ([`super::wdl`]); a set whose `.qtb`/`.qtr` are there but whose `.qtw` files
//! are missing or damaged gets them on the next run, from the kept tables.
//! Memory is bounded by the largest table being solved plus the decoded smaller tables that it
//! and later tables of the plan capture into: each is dropped after its last user
//! ([`plan::last_uses`]). Under a memory budget no decoded copy is kept from one table to the
//! next: each table reads its inputs from their files, as a workflow job does, so that the whole
//! set, not only each table, stays within the budget.

use super::bits::Bits;
use super::error::TbError;
use super::format;
use super::load::{load_in, load_rules_in};
use super::material::Material;
use super::material::{file_name, rules_file_name, wdl_file_name};
use super::paging::Paging;
use super::plan::MemoryMode;
use super::rules;
use super::solve::{self, Sub, Table};
use super::time_left::{self, TimeLeft};
use super::value::Counts;
use super::wdl::{self, Fill};
use super::{plan, select};
use crate::util::files::{remove_stale_temp_files, AtomicFile};
use crate::util::progress::{NoProgress, Progress};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Decoded smaller tables held for the captures of the table being solved.
type Held = HashMap<Material, Sub>;

/// What [`one_table`] made: its report, and when asked, its values and its values under the
/// Asian rules (when the options ask for them), as later tables read them through captures: one
/// array for both (see [`Sub`]).
type Made = (TableReport, Option<(Sub, Option<Sub>)>);

/// A table's companion: its values under both rules, the file's size, whether an intact one was
/// kept, how many of the rule-aware pass's directions were skipped, and the rule-aware counts
/// where they may differ from the plain ones.
struct Companion {
    values: Both,
    bytes: u64,
    kept: bool,
    skipped: u8,
    counts: Option<[Counts; 2]>,
}

/// How to generate: the directory, and what to write. Built from [`GenerateOptions::new`] with
/// builder-style setters; the defaults are compressed blocks, the `.qtr` companions and `.qtw`
/// files, rayon's current thread pool and no progress reports.
///
/// ```
/// use qiku::tablebase::generate::GenerateOptions;
///
/// let opts = GenerateOptions::new("tables").compress(false).rules(false).threads(2);
/// assert_eq!(opts.dir(), std::path::Path::new("tables"));
/// assert!(!opts.is_compressed() && !opts.has_rules());
/// assert_eq!(opts.thread_count(), Some(2));
/// // The defaults.
/// let opts = GenerateOptions::new("tables");
/// assert!(opts.is_compressed() && opts.has_rules() && opts.thread_count().is_none());
/// ```
#[derive(Clone)]
pub struct GenerateOptions {
    dir: PathBuf,
    compress: bool,
    rules: bool,
    shortcuts: bool,
    threads: Option<usize>,
    progress: Option<Arc<dyn Progress + Send>>,
    memory: Option<u64>,
    scratch: Option<PathBuf>,
    checkpoint_every: Option<std::time::Duration>,
    speed: Option<f64>,
}

impl std::fmt::Debug for GenerateOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenerateOptions")
            .field("dir", &self.dir)
            .field("compress", &self.compress)
            .field("rules", &self.rules)
            .field("shortcuts", &self.shortcuts)
            .field("threads", &self.threads)
            .field("memory", &self.memory)
            .field("scratch", &self.scratch)
            .field("checkpoint_every", &self.checkpoint_every)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl GenerateOptions {
    /// Tables in `dir` (created if missing), with the defaults. (example at [`GenerateOptions`])
    pub fn new(dir: impl Into<PathBuf>) -> GenerateOptions {
        GenerateOptions {
            dir: dir.into(),
            compress: true,
            rules: true,
            shortcuts: true,
            threads: None,
            progress: None,
            memory: None,
            scratch: None,
            checkpoint_every: None,
            speed: None,
        }
    }

    /// Keep the process within `bytes` of resident memory: a table whose estimated peak
    /// ([`memory_mode`](super::generate::memory_mode)) is larger is solved with its working
    /// arrays in scratch files ([`Paging`]). The files are the same bytes; paged tables take
    /// longer. A table whose part that is not paged exceeds the budget is refused before any work.
    ///
    /// ```
    /// use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// use qiku::tablebase::TbError;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let tight = GenerateOptions::new(dir.path()).memory(1 << 20); // 1 MiB: not even paged
    /// let err = generate_set(&["KRvK".parse()?], &tight).unwrap_err();
    /// assert!(matches!(err, TbError::OverBudget { .. }), "{err}");
    /// let reports = generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()).memory(1 << 30))?;
    /// assert!(!reports[0].paged); // KRvK fits 1 GiB
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn memory(mut self, bytes: u64) -> GenerateOptions {
        self.memory = Some(bytes);
        self
    }

    /// The directory of the scratch files of paged tables (default: `.scratch` in the tables'
    /// directory). The working arrays' files are unlinked as they are made; a paged solve's
    /// checkpoints stay there until its table is written (an interrupted run leaves them for the
    /// next one), and an empty default directory is removed at the end of a run.
    pub fn scratch(mut self, dir: impl Into<PathBuf>) -> GenerateOptions {
        self.scratch = Some(dir.into());
        self
    }

    /// This machine's speed against the project machine's ([`calibrate`](super::generate::calibrate)),
    /// for the time left that a set's progress labels give from its first table: the plan's
    /// estimate of the tables still to make at this speed, averaged, once enough is made, with
    /// the same estimate scaled by how long the recent tables took against theirs. Without it
    /// the time left is the scaled estimate alone, said once enough is made. (example at
    /// [`GenerateOptions::progress`])
    pub fn speed(mut self, speed: f64) -> GenerateOptions {
        self.speed = Some(speed);
        self
    }

    /// Checkpoint a paged table's solve this often (default 5 minutes; see
    /// [`Paging::checkpoint_every`]), so that an interrupted run resumes at its last checkpoint.
    pub fn checkpoint_every(mut self, every: std::time::Duration) -> GenerateOptions {
        self.checkpoint_every = Some(every);
        self
    }

    /// Where paged tables keep their scratch files and checkpoints: `--scratch`, or `.scratch` in
    /// the tables' directory.
    fn scratch_dir(&self) -> PathBuf {
        self.scratch.clone().unwrap_or_else(|| self.dir.join(".scratch"))
    }

    /// Removes the default scratch directory when it is empty (the scratch files are unlinked as
    /// they are made, and checkpoints go with their tables): a run leaves no directory behind.
    fn remove_default_scratch(&self) {
        // Also without --memory: an earlier paged run's checkpoints went with their tables.
        if self.scratch.is_none() {
            let _ = std::fs::remove_dir(self.dir.join(".scratch"));
        }
    }

    /// How `material` is solved under the options' budget: its [`MemoryMode`] and the paging
    /// to use (`None` in memory). Without a budget, in memory if its estimated peak is within
    /// `available` (the memory available, when known).
    fn paging_for(&self, material: Material, available: Option<u64>) -> Result<Option<Paging>, TbError> {
        let Some(budget) = self.memory else { return fits_available(material, self.rules, available).map(|()| None) };
        match plan::memory_mode(material, self.rules, budget) {
            MemoryMode::InMemory { .. } => Ok(None),
            MemoryMode::Paged { .. } => {
                // Before any work: a scratch directory that cannot hold files is named as such
                // (not as an input that cannot be read once the first input is paged into it).
                super::paging::scratch_file(&self.scratch_dir())?;
                let paging = Paging::new(budget, self.scratch_dir());
                Ok(Some(match self.checkpoint_every {
                    Some(every) => paging.checkpoint_every(every),
                    None => paging,
                }))
            }
            // The smallest budget that works: in memory when that takes less than paging's
            // resident share and working set (small tables).
            MemoryMode::Refused { needs, resident } => {
                Err(TbError::OverBudget { material: material.to_string(), budget, needs: resident.min(needs) })
            }
        }
    }

    /// zstd-compress the blocks (`true`, the default), or write them raw. (example at [`GenerateOptions`])
    pub fn compress(mut self, compress: bool) -> GenerateOptions {
        self.compress = compress;
        self
    }

    /// Write the `.qtr` companions with the Asian rules' values and the `.qtw` WDL files (`true`,
    /// the default). Without them the rule-aware pass, which needs several times the plain
    /// solver's memory per entry, is skipped; a later run with them adds the missing files to the
    /// kept tables. (example at [`GenerateOptions`])
    pub fn rules(mut self, rules: bool) -> GenerateOptions {
        self.rules = rules;
        self
    }

    /// Skip the directions of the rule-aware pass that provably change nothing (`true`, the
    /// default). Only tests turn this off, to check that the files are the same bytes either way.
    #[doc(hidden)]
    pub fn rule_shortcuts(mut self, shortcuts: bool) -> GenerateOptions {
        self.shortcuts = shortcuts;
        self
    }

    /// Solve with `threads` worker threads (a pool of its own) instead of rayon's current pool.
    /// The files are the same bytes for any thread count. (example at [`GenerateOptions`])
    pub fn threads(mut self, threads: usize) -> GenerateOptions {
        self.threads = Some(threads.max(1));
        self
    }

    /// Report each table's progress (one phase per table, labelled with its material) to
    /// `progress`. It may also stop the generation ([`Progress::stop_requested`], asked before
    /// each table and all through its solve, between levels and between chunks of work): the run
    /// then ends with [`TbError::Stopped`] within a second or so, the tables finished before kept.
    ///
    /// ```
    /// use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # use std::sync::{Arc, Mutex};
    /// # #[derive(Default)] struct Labels(Mutex<Vec<String>>);
    /// # impl qiku::Progress for Labels {
    /// #     fn start(&self, label: &str, _total: u64) { self.0.lock().unwrap().push(label.to_string()) }
    /// #     fn advance(&self, _n: u64) {}
    /// #     fn finish(&self) {}
    /// # }
    ///
    /// let dir = tempfile::tempdir()?;
    /// let labels = Arc::new(Labels::default()); // a `Progress` that records each phase's label
    /// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()).progress(labels.clone()))?;
    /// assert_eq!(labels.0.lock().unwrap()[0], "KRvK (1/1)");
    /// // Given a speed (1: the project machine's), the labels say the time left from the first table.
    /// let opts = GenerateOptions::new(dir.path()).speed(1.0).progress(labels.clone());
    /// generate_set(&["KNvK".parse()?], &opts)?;
    /// let first = labels.0.lock().unwrap().iter().find(|l| l.starts_with("KNvK")).cloned().unwrap_or_default();
    /// assert!(first.starts_with("KNvK (1/1, about ") && first.ends_with(" left)"), "{first}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn progress(mut self, progress: Arc<dyn Progress + Send>) -> GenerateOptions {
        self.progress = Some(progress);
        self
    }

    /// The directory of the table files. (example at [`GenerateOptions`])
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Are blocks compressed? (example at [`GenerateOptions`])
    pub fn is_compressed(&self) -> bool {
        self.compress
    }

    /// Are the `.qtr` companions and `.qtw` files written? (example at [`GenerateOptions`])
    pub fn has_rules(&self) -> bool {
        self.rules
    }

    /// The worker threads asked for (`None`: rayon's current pool). (example at [`GenerateOptions`])
    pub fn thread_count(&self) -> Option<usize> {
        self.threads
    }
}

/// What happened to one table.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TableReport {
    /// The material (`KRvK`).
    pub material: String,
    /// True if an intact file was already there.
    pub kept: bool,
    /// Entries of the table (both sides to move).
    pub entries: u64,
    /// Size of the file.
    pub file_bytes: u64,
    /// Time spent on this table (its companion included).
    pub seconds: f64,
    /// Size of its `.qtr` companion (the Asian rules' values).
    pub rules_bytes: u64,
    /// Time spent on the companion (the rule-aware pass, or checking a kept file).
    pub rules_seconds: f64,
    /// Positions drawn without the rules and decided with them, per side to move (red, black).
    pub changed: [u64; 2],
    /// Directions of the rule-aware pass (red attacking, black attacking) skipped because they
    /// provably change nothing: a defender that can never give check, or an attacker that wins
    /// nothing and no perpetual check to hold the defender to (see "Directions skipped" in
    /// `docs/TABLEBASES.md`). 0 to 2; 0 when the companion was kept or not made.
    pub rules_skipped: u8,
    /// Size of its `.qtw` WDL file.
    pub wdl_bytes: u64,
    /// Time spent on the WDL file (writing it, or checking a kept one).
    pub wdl_seconds: f64,
    /// True if an intact WDL file was already there.
    pub wdl_kept: bool,
    /// True if its working arrays were paged to scratch files (`--memory`).
    pub paged: bool,
    /// The level its solve resumed at from a checkpoint of an interrupted run; `None` when it
    /// started from the beginning (or was kept).
    pub resumed_at_level: Option<u16>,
}

/// Generates `materials` (any color order) and everything their captures need, into
/// `opts.dir()`, in dependency order (the plan of a [`Selection`](super::generate::Selection) of
/// `materials`). Every table of that plan is checked against the generator's limits (pieces,
/// entries) before any work. Returns one report
/// per table of the plan, in generation order.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// use qiku::tablebase::Material;
///
/// let dir = tempfile::tempdir()?;
/// // KRvKA needs KRvK (the rook captures the advisor): both are made, smaller first.
/// let reports = generate_set(&["KRvKA".parse::<Material>()?], &GenerateOptions::new(dir.path()).threads(2))?;
/// let made: Vec<&str> = reports.iter().map(|r| r.material.as_str()).collect();
/// assert_eq!(made, ["KRvK", "KRvKA"]);
/// assert!(reports.iter().all(|r| !r.kept && r.file_bytes > 0 && r.wdl_bytes > 0));
/// for name in ["KRvK.qtb", "KRvK.qtr", "KRvK.qtw", "KRvKA.qtb", "KRvKA.qtr", "KRvKA.qtw"] {
///     assert!(dir.path().join(name).is_file(), "{name}");
/// }
/// // A second run keeps the intact files.
/// let again = generate_set(&["KRvKA".parse::<Material>()?], &GenerateOptions::new(dir.path()))?;
/// assert!(again.iter().all(|r| r.kept && r.wdl_kept));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_set(materials: &[Material], opts: &GenerateOptions) -> Result<Vec<TableReport>, TbError> {
    in_pool(opts, |progress| generate_in_pool(materials, opts, progress))
}

/// [`generate_set`] in the current thread pool.
fn generate_in_pool(
    materials: &[Material],
    opts: &GenerateOptions,
    progress: &dyn Progress,
) -> Result<Vec<TableReport>, TbError> {
    let dir = &opts.dir;
    prepare_dir(dir)?;
    // Temporary files of an interrupted run are never complete: remove them.
    remove_stale_temp_files(dir, &super::material::is_table_file_name).map_err(|e| TbError::io(dir, e))?;
    remove_legacy_temp_files(dir)?;
    let plan = select::closure(materials);
    // Before any work: every table within the generator's limits, and within the memory budget
    // (in memory or paged), and nothing but files where its files go.
    let pagings = within_limits(&plan, opts)?;
    check_file_places(&plan, opts)?;
    let last_use = plan::last_uses(&plan);

    let planned = plan.len();
    let mut time_left = TimeLeft::new(&plan, dir, rayon::current_num_threads(), opts.rules, opts.speed);
    // Under a budget, the decoded copies a set keeps for later tables would come on top of the
    // table being solved: none are kept (the plan's estimates assume the same).
    let bounded = opts.memory.is_some();
    let mut subs: Held = HashMap::new();
    let mut rule_subs: Held = HashMap::new();
    let mut reports = Vec::new();
    for (done, (material, paging)) in plan.into_iter().zip(pagings).enumerate() {
        // Decoded tables no later table captures into are dropped.
        subs.retain(|m, _| last_use.get(m).is_some_and(|&last| last >= done));
        rule_subs.retain(|m, _| last_use.get(m).is_some_and(|&last| last >= done));
        let needed_later = !bounded && last_use.get(&material).is_some_and(|&last| last > done);
        let label = match time_left.before(done) {
            Some(left) => format!("{material} ({}/{planned}, {} left)", done + 1, time_left::about(left)),
            None => format!("{material} ({}/{planned})", done + 1),
        };
        let start = Instant::now();
        let (report, values) = if !bounded {
            one_table(material, &label, (&subs, &rule_subs), None, opts, progress, needed_later)?
        } else {
            // It reads its inputs from their files (into scratch files when paged), as a job of
            // the workflow does.
            let (inputs, rule_inputs) = load_inputs(material, opts, paging.as_ref())?;
            one_table(material, &label, (&inputs, &rule_inputs), paging.as_ref(), opts, progress, needed_later)?
        };
        if !report.kept {
            time_left.made(done, start.elapsed());
        }
        reports.push(report);
        if let Some((table, rule)) = values {
            subs.insert(material, table);
            if let Some(rule) = rule {
                rule_subs.insert(material, rule);
            }
        }
    }
    opts.remove_default_scratch();
    Ok(reports)
}

/// Generates exactly `materials` and none of the tables they capture into: those (the inputs,
/// [`inputs`](super::generate::inputs)) must already be in `opts.dir()`, intact (checksums, and
/// values that give the counts their headers record), with their `.qtr` companions when the
/// options write them. A missing input is [`TbError::MissingDependency`] and a damaged one
/// [`TbError::BadInput`], found before any table is made (the inputs only a later table reads
/// are read an extra time for that); no file but the tables' own `.qtb`, `.qtr` and `.qtw` is
/// written, each atomically. This is one job of a workflow engine that runs one material per job
/// (`workflow/Snakefile`): the engine orders the jobs, and a job never races another for a
/// shared input. The files are the bytes [`generate_set`] writes.
///
/// ```
/// use qiku::tablebase::generate::{generate_only, generate_set, GenerateOptions};
/// use qiku::tablebase::{Material, TbError};
///
/// let dir = tempfile::tempdir()?;
/// let (opts, krka) = (GenerateOptions::new(dir.path()), "KRvKA".parse::<Material>()?);
/// let err = generate_only(&[krka], &opts).unwrap_err(); // its input KRvK is not there yet
/// assert!(matches!(err, TbError::MissingDependency { .. }), "{err}");
/// generate_set(&["KRvK".parse()?], &opts)?;
/// let made = generate_only(&[krka], &opts)?; // KRvKA alone, reading KRvK
/// assert_eq!(made.iter().map(|r| r.material.as_str()).collect::<Vec<_>>(), ["KRvKA"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn generate_only(materials: &[Material], opts: &GenerateOptions) -> Result<Vec<TableReport>, TbError> {
    in_pool(opts, |progress| generate_only_in_pool(materials, opts, progress))
}

/// Runs `f` with the options' progress (or none) in the options' thread pool: a pool of its own
/// when a thread count is set, else rayon's current one.
fn in_pool<T: Send>(
    opts: &GenerateOptions,
    f: impl FnOnce(&dyn Progress) -> Result<T, TbError> + Send,
) -> Result<T, TbError> {
    let progress: &(dyn Progress + Sync) = match &opts.progress {
        Some(p) => p.as_ref(),
        None => &NoProgress,
    };
    match opts.threads {
        None => f(progress),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(|e| {
                TbError::io(&opts.dir, std::io::Error::other(format!("cannot start {n} worker threads: {e}")))
            })?;
            pool.install(|| f(progress))
        }
    }
}

/// [`generate_only`] in the current thread pool.
fn generate_only_in_pool(
    materials: &[Material],
    opts: &GenerateOptions,
    progress: &dyn Progress,
) -> Result<Vec<TableReport>, TbError> {
    let dir = &opts.dir;
    prepare_dir(dir)?;
    let wanted: Vec<Material> = materials.iter().map(|m| m.canonical().0).collect();
    let targets: Vec<Material> = select::closure(materials).into_iter().filter(|m| wanted.contains(m)).collect();
    let pagings = within_limits(&targets, opts)?;
    check_file_places(&targets, opts)?;
    check_inputs_first(&targets, &pagings, opts)?;
    // Leftovers of this job's own files only: other jobs may be writing theirs beside them.
    let own: Vec<String> = targets.iter().flat_map(|&m| [file_name(m), rules_file_name(m), wdl_file_name(m)]).collect();
    remove_stale_temp_files(dir, &|name| own.iter().any(|o| o == name)).map_err(|e| TbError::io(dir, e))?;
    let mut reports = Vec::new();
    for (done, (&material, paging)) in targets.iter().zip(&pagings).enumerate() {
        // A paged table's inputs are paged too: read from their files into scratch files.
        let (subs, rule_subs) = load_inputs(material, opts, paging.as_ref())?;
        let label = format!("{material} ({}/{})", done + 1, targets.len());
        let (report, _) = one_table(material, &label, (&subs, &rule_subs), paging.as_ref(), opts, progress, false)?;
        reports.push(report);
    }
    opts.remove_default_scratch();
    Ok(reports)
}

/// Decoded tables captured into by `material`, read from `opts.dir` (plain, and under the Asian
/// rules when `opts.rules`); each must be there and intact.
fn load_inputs(material: Material, opts: &GenerateOptions, paging: Option<&Paging>) -> Result<(Held, Held), TbError> {
    let (mut subs, mut rule_subs) = (HashMap::new(), HashMap::new());
    for input in plan::inputs(material) {
        let (plain, rule) = load_input(material, input, opts, paging)?;
        subs.insert(input, plain);
        if let Some(rule) = rule {
            rule_subs.insert(input, rule);
        }
    }
    Ok((subs, rule_subs))
}

/// The files of `input` that generating `material` reads: its `.qtb`, and its `.qtr` with the
/// rule-aware pass.
fn input_files(input: Material, opts: &GenerateOptions) -> Vec<PathBuf> {
    let mut names = vec![file_name(input)];
    if opts.rules {
        names.push(rules_file_name(input));
    }
    names.into_iter().map(|n| opts.dir.join(n)).collect()
}

/// The table `input` that `material` captures into, read from `opts.dir` and checked (see
/// [`load_in`]): its plain view, and its rule-aware view when `opts.rules`. A missing file is
/// [`TbError::MissingDependency`], one that cannot be used [`TbError::BadInput`].
fn load_input(
    material: Material,
    input: Material,
    opts: &GenerateOptions,
    paging: Option<&Paging>,
) -> Result<(Sub, Option<Sub>), TbError> {
    let files = input_files(input, opts);
    if let Some(path) = files.iter().find(|p| !p.exists()) {
        return Err(TbError::MissingDependency { material: material.to_string(), needs: path.display().to_string() });
    }
    // An error about the input file makes it a bad input; one about another place (the scratch
    // directory its values are paged into) is that place's.
    let bad = |file: &Path| {
        let file = file.to_path_buf();
        move |e: TbError| match e.path() {
            Some(p) if p != file => e,
            _ => TbError::BadInput { material: material.to_string(), source: Box::new(e) },
        }
    };
    let (table, counts) = load_in(&files[0], paging).map_err(bad(&files[0]))?;
    let table = Arc::new(table);
    match files.get(1) {
        Some(path) => {
            let (rule, _) = load_rules_in(path, &table, &counts, paging).map_err(bad(path))?;
            let (plain, rule) = views(table, rule, paging)?;
            Ok((plain, Some(rule)))
        }
        None => Ok((Sub::of(table), None)),
    }
}

/// Before any work of [`generate_only`]: every input of `targets` that is not among them is
/// there, and is intact, so that a missing or damaged one ends the run before any file is
/// written. The first target's inputs are read (and checked) before it writes anything anyway;
/// those only later targets read are read and checked here one at a time (with the paging of
/// the target that reads them), and read again when their target comes.
fn check_inputs_first(targets: &[Material], pagings: &[Option<Paging>], opts: &GenerateOptions) -> Result<(), TbError> {
    let outside = |m: &Material| !targets.contains(m);
    // Every missing file at once is a cheap look: the first one found is named.
    for &target in targets {
        for input in plan::inputs(target).into_iter().filter(outside) {
            if let Some(path) = input_files(input, opts).into_iter().find(|p| !p.exists()) {
                let needs = path.display().to_string();
                return Err(TbError::MissingDependency { material: target.to_string(), needs });
            }
        }
    }
    let first = targets.first().map(|&t| plan::inputs(t)).unwrap_or_default();
    let mut checked = Vec::new();
    for (&target, paging) in targets.iter().zip(pagings).skip(1) {
        for input in plan::inputs(target) {
            if outside(&input) && !first.contains(&input) && !checked.contains(&input) {
                load_input(target, input, opts, paging.as_ref())?;
                checked.push(input);
            }
        }
    }
    Ok(())
}

/// Without a budget: `material` generated in memory, its estimated peak within the memory
/// `available` (when known); a larger one is refused before any work, naming `--memory`.
fn fits_available(material: Material, rules: bool, available: Option<u64>) -> Result<(), TbError> {
    let Some(available) = available else { return Ok(()) };
    match plan::memory_mode(material, rules, available) {
        MemoryMode::InMemory { .. } => Ok(()),
        MemoryMode::Paged { needs, .. } | MemoryMode::Refused { needs, .. } => {
            Err(TbError::MoreThanAvailable { material: material.to_string(), needs, available })
        }
    }
}

/// Before any work: every table of `plan` within the generator's limits and within the memory
/// budget, with the paging each is solved with (`None`: in memory).
fn within_limits(plan: &[Material], opts: &GenerateOptions) -> Result<Vec<Option<Paging>>, TbError> {
    // Without a budget every table is held to the memory available, read once for the run.
    let available = if opts.memory.is_none() { crate::util::memory::available() } else { None };
    plan.iter()
        .map(|m| {
            solve::check_supported(m)?;
            opts.paging_for(*m, available)
        })
        .collect()
}

/// Before any work: no directory, FIFO, device or socket (through a link too), and no file that
/// is not a table file (this format's magic: a text file, a book, ...) where a file of
/// `materials` is written (the `.qtb`, and with the rule-aware pass the `.qtr` and `.qtw`).
/// Generation replaces a damaged table file (an empty one too), but anything else may be
/// someone's, and is not removed: every such path is named at once, rather than the run failing
/// at the first after hours of work (a FIFO would even hang the check of an existing table). A
/// symbolic link is looked through for this; the files written replace the link itself, in the
/// tables' directory, never the file it points to.
fn check_file_places(materials: &[Material], opts: &GenerateOptions) -> Result<(), TbError> {
    let mut paths = Vec::new();
    for &m in materials {
        let mut names = vec![file_name(m)];
        if opts.rules {
            names.extend([rules_file_name(m), wdl_file_name(m)]);
        }
        for path in names.into_iter().map(|n| opts.dir.join(n)) {
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => paths.push((path, "a directory".to_string())),
                Ok(meta) if !meta.is_file() => {
                    paths.push((path, "not a regular file (a FIFO, a device or a socket)".to_string()))
                }
                Ok(_) => {
                    if let Some(what) = not_a_table_file(&path) {
                        paths.push((path, what));
                    }
                }
                _ => {}
            }
        }
    }
    match paths.is_empty() {
        true => Ok(()),
        false => Err(TbError::NotFiles { paths }),
    }
}

/// What the file at `path` is, in words, when it is no table file: neither empty, nor starting
/// with this format's magic (or a part of it, a table cut short) or with zeros, so that a table
/// file of any damage (which [`generate_set`] and [`generate_only`] replace) is told apart from
/// someone's file (which they refuse to replace). `None` for a table file, damaged or not; a file
/// that cannot be read (a directory, a FIFO) is not known to be one.
///
/// ```
/// use qiku::tablebase::generate::not_a_table_file;
///
/// let dir = tempfile::tempdir()?;
/// let (cut, notes) = (dir.path().join("KRvK.qtb"), dir.path().join("KNvK.qtb"));
/// std::fs::write(&cut, b"QIKU")?; // a table cut short: replaceable
/// std::fs::write(&notes, b"my notes")?;
/// assert_eq!(not_a_table_file(&cut), None);
/// assert!(not_a_table_file(&notes).is_some_and(|what| what.starts_with("not a table file")));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn not_a_table_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(format::MAGIC.len());
    let read =
        crate::util::files::open_regular(path).and_then(|f| f.take(format::MAGIC.len() as u64).read_to_end(&mut head));
    match read {
        // A file of zeros is what a crash can leave of a file being written: a damaged table.
        Ok(_) if format::MAGIC.starts_with(&head) || head.iter().all(|&b| b == 0) => None,
        Ok(_) => {
            let kind = crate::util::kind::file_kind(path).map_or_else(|_| "something else".into(), |k| k.to_string());
            Some(format!("not a table file (it appears to be {kind})"))
        }
        Err(e) => Some(format!("a file that cannot be read ({e}), so not known to be a table file")),
    }
}

/// Makes the tables' directory if needed and checks, before any work, that files can be written
/// in it: a run must not solve for minutes and then fail to write what it computed. A path that
/// is a file, or a directory without write permission, is named with what to do.
fn prepare_dir(dir: &Path) -> Result<(), TbError> {
    let refused = |why: String| TbError::io(dir, std::io::Error::new(std::io::ErrorKind::PermissionDenied, why));
    if dir.exists() && !dir.is_dir() {
        return Err(TbError::io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "a file, not a directory; give a directory for the tables (-d DIR)",
            ),
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| TbError::io(dir, e))?;
    // A temporary file made and removed at once, as the table files will be made.
    tempfile::Builder::new()
        .prefix(".qiku-write-check.")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|e| refused(format!("cannot write files in it ({e}); give a writable directory (-d DIR)")))
}

/// One table of a work list: kept when its files are there and intact, else solved from the
/// decoded smaller tables `subs` (and `rule_subs`, their Asian rules' values), with its working
/// arrays in scratch files under `paging`, and written atomically. Returns its report and, when
/// `keep` (a later table captures into it), its values (plain, and under the Asian rules when
/// `opts.rules`).
fn one_table(
    material: Material,
    label: &str,
    (subs, rule_subs): (&Held, &Held),
    paging: Option<&Paging>,
    opts: &GenerateOptions,
    progress: &dyn Progress,
    keep: bool,
) -> Result<Made, TbError> {
    if progress.stop_requested() {
        return Err(TbError::Stopped { material: material.to_string() });
    }
    let dir = &opts.dir;
    let path = dir.join(file_name(material));
    let start = Instant::now();
    let mut kept = None;
    if path.exists() {
        // Kept only when its checksums are right and its values are those its header describes.
        match load_in(&path, paging) {
            Ok(table) => kept = Some(table),
            Err(e) => progress.println(&format!("{e}; generating it again")),
        }
    }
    let mut resumed_at_level = None;
    let (table, plain_counts, file_bytes, plain_kept) = match kept {
        Some((table, counts)) => (table, counts, std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), true),
        None => {
            progress.start(label, 0);
            let (table, resumed) = solve::solve(material, subs, progress, paging)?;
            resumed_at_level = resumed;
            let counts = table.counts();
            let bytes = format::encode(material, &table.values, &counts, opts.compress)?;
            AtomicFile::write_replacing_link(&path, &bytes).map_err(|e| TbError::io(&path, e))?;
            // The table is written: its solve's checkpoints are not needed any more, also those
            // of an earlier paged run when this one ran in memory.
            let scratch = paging.map_or_else(|| opts.scratch_dir(), |p| p.scratch().to_path_buf());
            super::checkpoint::remove(&scratch, &material.to_string());
            progress.finish();
            let len = bytes.len() as u64;
            (table, counts, len, false)
        }
    };
    let entries = table.layout.entries();
    // The Asian rules' companion file.
    let rules_start = Instant::now();
    let (both, rules_bytes, rules_kept, skipped, rule_counts) = if opts.rules {
        let c =
            companion(material, table, &plain_counts, plain_kept, (subs, rule_subs), opts, (progress, paging), label)?;
        (c.values, c.bytes, c.kept, c.skipped, c.counts)
    } else {
        (Both::Plain(Arc::new(table)), 0, true, 0, None)
    };
    let changed = rule_counts.map_or([0, 0], |r| rules::changed(&plain_counts, &r));
    // The WDL file, from both value sets; a kept one is checked entry by entry against them.
    // Without the rule-aware pass there is none: its code 0 claims a draw under both rules,
    // which only the pass can tell (a later run with the pass writes both files).
    let wdl_path = dir.join(wdl_file_name(material));
    let wdl_start = Instant::now();
    let mut wdl_kept = false;
    let mut wdl_bytes = 0;
    if !matches!(both, Both::Plain(_)) {
        if let Both::Tables(table, rule) = &both {
            if plain_kept && rules_kept && wdl_path.exists() {
                match super::wdl_check::check_file(&wdl_path, table, &plain_counts, rule, &NoProgress) {
                    Ok(()) => wdl_kept = true,
                    Err(e) => progress.println(&format!("{e}; writing it again")),
                }
            }
        }
        wdl_bytes = if wdl_kept {
            std::fs::metadata(&wdl_path).map(|m| m.len()).unwrap_or(0)
        } else {
            progress.start(&format!("{label} wdl"), 0);
            let codes = |r| Cow::Owned(wdl::block_codes(r, Fill::Previous, wdl::DRAW, &|e| both.codes(e)));
            let bytes = format::encode_wdl_blocks(material, entries as usize, &codes, &plain_counts, opts.compress)?;
            AtomicFile::write_replacing_link(&wdl_path, &bytes).map_err(|e| TbError::io(&wdl_path, e))?;
            progress.finish();
            bytes.len() as u64
        };
    }
    let report = TableReport {
        material: material.to_string(),
        kept: plain_kept && rules_kept,
        wdl_bytes,
        wdl_seconds: wdl_start.elapsed().as_secs_f64(),
        wdl_kept,
        entries,
        file_bytes,
        seconds: start.elapsed().as_secs_f64(),
        rules_bytes,
        rules_seconds: rules_start.elapsed().as_secs_f64(),
        changed,
        rules_skipped: skipped,
        paged: paging.is_some(),
        resumed_at_level,
    };
    if !keep {
        return Ok((report, None));
    }
    let values = match both {
        Both::Plain(table) => (Sub::of(table), None),
        Both::Tables(table, rule) => {
            let (plain, rule) = views(table, rule, paging)?;
            (plain, Some(rule))
        }
        Both::Pass(r) => {
            let r = *r;
            let rule = Arc::new(r.table);
            let plain = Sub { table: Arc::clone(&rule), drawn: r.changed.map(Arc::new) };
            (plain, Some(Sub::of(rule)))
        }
    };
    Ok((report, Some(values)))
}

/// The plain and rule-aware views of a table from its two decoded value sets, holding one array:
/// the rule-aware codes, with the entries that differ (plain draws the rules decide) read as draws
/// in the plain view.
fn views(plain: Arc<Table>, rule: Arc<Table>, paging: Option<&Paging>) -> Result<(Sub, Sub), TbError> {
    if Arc::ptr_eq(&plain, &rule) {
        return Ok((Sub::of(Arc::clone(&plain)), Sub::of(plain)));
    }
    let changed = Bits::from_fn(rule.values.len(), paging, |e| plain.values[e] != rule.values[e])?;
    Ok((Sub { table: Arc::clone(&rule), drawn: Some(Arc::new(changed)) }, Sub::of(rule)))
}

/// A table's values under both rules, as [`one_table`] holds them after its companion.
enum Both {
    /// Without the rule-aware pass: the plain values only.
    Plain(Arc<Table>),
    /// The plain and rule-aware tables (the same `Arc` when the rules change nothing).
    Tables(Arc<Table>, Arc<Table>),
    /// Fresh from the rule-aware pass, which changed the plain values in place: the plain codes
    /// are read through it, not copied (a copy is made only for a later table's captures).
    Pass(Box<rules::RuleTable>),
}

impl Both {
    /// Entry `e`'s plain and rule-aware codes (the plain twice without the pass).
    fn codes(&self, e: usize) -> (u16, u16) {
        match self {
            Both::Plain(t) => (t.values[e], t.values[e]),
            Both::Tables(t, r) => (t.values[e], r.values[e]),
            Both::Pass(r) => (r.plain_code(e), r.table.values[e]),
        }
    }
}

/// The companion of `table` (whose counts are `counts`): kept when an intact one sits beside a
/// kept table, else computed by the rule-aware pass from the smaller tables (`inputs`: plain and
/// rule-aware) and written.
#[allow(clippy::too_many_arguments)]
fn companion(
    material: Material,
    table: Table,
    counts: &[Counts; 2],
    plain_kept: bool,
    (subs, rule_subs): (&Held, &Held),
    opts: &GenerateOptions,
    (progress, paging): (&dyn Progress, Option<&Paging>),
    label: &str,
) -> Result<Companion, TbError> {
    let rules_path = opts.dir.join(rules_file_name(material));
    // A companion is only kept beside the table it was computed from.
    let table = if plain_kept && rules_path.exists() {
        let plain = Arc::new(table);
        match load_rules_in(&rules_path, &plain, counts, paging) {
            Ok((rule, rule_counts)) => {
                let bytes = std::fs::metadata(&rules_path).map(|m| m.len()).unwrap_or(0);
                let counts = (!Arc::ptr_eq(&plain, &rule)).then_some(rule_counts);
                return Ok(Companion { values: Both::Tables(plain, rule), bytes, kept: true, skipped: 0, counts });
            }
            Err(e) => progress.println(&format!("{e}; computing it again")),
        }
        // The pass takes the table: a failed load keeps no other reference to it.
        Arc::try_unwrap(plain)
            .unwrap_or_else(|shared| Table { layout: shared.layout.clone(), values: shared.values.clone() })
    } else {
        table
    };
    progress.start(&format!("{label} rules"), 0);
    let r = rules::solve(table, subs, rule_subs, opts.shortcuts, progress, paging)?;
    let skipped = r.skipped.iter().filter(|&&s| s).count() as u8;
    let (values, bytes, rule_counts) = if r.ran() {
        let rule_counts = r.table.counts();
        let bytes = format::encode_rule_table(material, &r, &rule_counts, opts.compress)?;
        (Both::Pass(Box::new(r)), bytes, Some(rule_counts))
    } else {
        let bytes = format::encode_rules_unchanged(material, r.table.entries(), counts, opts.compress)?;
        let plain = Arc::new(r.table);
        (Both::Tables(Arc::clone(&plain), plain), bytes, None)
    };
    AtomicFile::write_replacing_link(&rules_path, &bytes).map_err(|e| TbError::io(&rules_path, e))?;
    // The phase's last word is what it found (the pass's messages name the direction at work).
    let decided: u64 = rule_counts.map_or(0, |r| rules::changed(counts, &r).iter().sum());
    progress.message(&match decided {
        0 => "no position decided only by the rules".to_string(),
        1 => "1 position decided only by the rules".to_string(),
        n => format!("{n} positions decided only by the rules"),
    });
    progress.finish();
    Ok(Companion { values, bytes: bytes.len() as u64, kept: false, skipped, counts: rule_counts })
}

/// Temporary files of runs by qiku before 0.2 (`.NAME.qtb.tmp-PID`, written in place by this
/// process only, hence never complete once their run is gone): remove them.
fn remove_legacy_temp_files(dir: &Path) -> Result<(), TbError> {
    let io = |e: std::io::Error| TbError::io(dir, e);
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let pid = name.rsplit_once(".qtb.tmp-").and_then(|(_, pid)| pid.parse::<u32>().ok());
        if name.starts_with('.') && pid.is_some_and(|p| p != std::process::id()) {
            std::fs::remove_file(&path).map_err(io)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
