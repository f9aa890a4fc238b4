//! Generating a set of tables: dependencies first, one table at a time (each parallel inside),
//! skipping tables whose files are already present and intact, writing each file atomically.
//! Memory is bounded by the largest table being solved plus the decoded smaller tables its
//! captures need (kept while later tables may need them).

use super::format::{self, TableFile};
use super::generate::{self, Table};
use super::material::Material;
use super::{file_name, TbError, MAX_PIECES};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// How to generate.
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    pub dir: PathBuf,
    /// zstd-compress the blocks (the default); raw blocks otherwise.
    pub compress: bool,
    /// Show progress bars (only drawn when stderr is a terminal).
    pub progress: bool,
}

impl GenerateOptions {
    pub fn new(dir: impl Into<PathBuf>) -> GenerateOptions {
        GenerateOptions { dir: dir.into(), compress: true, progress: true }
    }
}

/// What happened to one table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TableReport {
    pub material: String,
    /// True if an intact file was already there.
    pub kept: bool,
    pub entries: u64,
    pub file_bytes: u64,
    pub seconds: f64,
}

/// Generates `materials` (any colour order) and everything their captures need, into
/// `opts.dir`. Returns one report per table of the plan, in generation order.
pub fn generate_set(materials: &[Material], opts: &GenerateOptions) -> Result<Vec<TableReport>, TbError> {
    let dir = &opts.dir;
    std::fs::create_dir_all(dir).map_err(|e| TbError::Io { path: dir.clone(), error: e.to_string() })?;
    remove_stale_temp_files(dir)?;
    let mut plan: Vec<Material> = Vec::new();
    for m in materials {
        if m.piece_count() > MAX_PIECES {
            return Err(TbError::TooManyPieces { material: m.to_string(), max: MAX_PIECES });
        }
        for dep in m.with_dependencies() {
            if !plan.contains(&dep) {
                plan.push(dep);
            }
        }
    }
    plan.sort_by_key(|m| (m.piece_count(), m.to_string()));
    let max_pieces = plan.iter().map(|m| m.piece_count()).max().unwrap_or(0);

    let draw = opts.progress && std::io::stderr().is_terminal();
    let multi = MultiProgress::with_draw_target(if draw {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    });
    let overall = multi.add(ProgressBar::new(plan.len() as u64));
    overall.set_style(
        ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} tables, {elapsed} elapsed, ETA {eta} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    overall.set_prefix("overall");

    let mut subs: HashMap<Material, Arc<Table>> = HashMap::new();
    let mut reports = Vec::new();
    for material in plan {
        let path = dir.join(file_name(material));
        let needed_later = material.piece_count() < max_pieces;
        let start = Instant::now();
        if path.exists() {
            match load(&path) {
                Ok(table) => {
                    let entries = table.layout.entries();
                    let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                    if needed_later {
                        subs.insert(material, Arc::new(table));
                    }
                    reports.push(TableReport {
                        material: material.to_string(),
                        kept: true,
                        entries,
                        file_bytes,
                        seconds: start.elapsed().as_secs_f64(),
                    });
                    overall.inc(1);
                    continue;
                }
                Err(e) => {
                    let _ = multi.println(format!("{e}; generating it again"));
                    if !draw {
                        eprintln!("{e}; generating it again");
                    }
                }
            }
        }
        let bar = multi.add(ProgressBar::new(0));
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {percent:>3}% {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(material.to_string());
        let table = generate::solve(material, &subs, &bar)?;
        let counts = table.counts();
        let bytes = format::encode(material, &table.values, &counts, opts.compress)?;
        format::write_atomic(&path, &bytes)?;
        bar.finish_and_clear();
        multi.remove(&bar);
        reports.push(TableReport {
            material: material.to_string(),
            kept: false,
            entries: table.layout.entries(),
            file_bytes: bytes.len() as u64,
            seconds: start.elapsed().as_secs_f64(),
        });
        if needed_later {
            subs.insert(material, Arc::new(table));
        }
        overall.inc(1);
    }
    overall.finish_and_clear();
    Ok(reports)
}

/// Opens a table file and decodes it whole, checking every checksum.
pub fn load(path: &Path) -> Result<Table, TbError> {
    let file = TableFile::open(path)?;
    let values = file.decode_all()?;
    Ok(Table { layout: file.layout.clone(), values })
}

/// Temporary files of an interrupted run (`.NAME.qtb.tmp-PID`) are never complete: remove them.
fn remove_stale_temp_files(dir: &Path) -> Result<(), TbError> {
    let io = |e: std::io::Error| TbError::Io { path: dir.to_path_buf(), error: e.to_string() };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') && name.contains(".qtb.tmp-") {
            std::fs::remove_file(&path).map_err(io)?;
        }
    }
    Ok(())
}
