//! `qiku-tb`: generate, probe, count, verify and list endgame tablebases.

mod dir;
mod plan;
mod space;
mod stats;
mod unusable;
mod verify;

use dir::{missing_table, no_directory, open_dir, open_tb};
use plan::{run_plan, speed_arg};

pub use unusable::{probe_error, probe_warnings};

use super::interrupt::Failure;
use clap::{Args, Parser, Subcommand};
use qiku::tablebase::format::TableFile;
use qiku::tablebase::generate::{
    self, calibrate, estimate, memory_mode, Family, GenerateOptions, MemoryMode, MemorySize, Rates, Resolved, Selection,
};
use qiku::tablebase::{rules_file_name, wdl_file_name, Material, Rules, Tablebases, TbError, Wdl};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "qiku-tb",
    version,
    about = "Xiangqi endgame tablebases: generate, probe, count, verify",
    long_about = "Xiangqi endgame tablebases (every material of up to 5 pieces, and endings of up to 12 pieces with advisors and elephants), solved by retrograde analysis.\n\n\
Values are distance to mate in plies with best play; positions neither side can force are draws. \
Beside each table KRvKN.qtb, a companion KRvKN.qtr holds the values under the Asian rules, where a \
side that can only hold by perpetual check loses (`--rules asian` on probe and stats), and KRvKN.qtw \
the win/draw/loss of every entry in 2 bits (for engines' probes inside their search). Materials are written like KRNvKR: red's \
pieces, 'v', black's, with K R N C P A B for king, rook, horse, cannon, pawn, advisor, elephant. One \
file serves both color assignments (KRvKA answers positions where black has the rook)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which tables: the same options for `generate` and `plan` (one selection code path).
#[derive(Args)]
struct SelectArgs {
    /// Materials such as KRNvKR. With neither materials nor --family: every material the filters
    /// admit (every table up to 5 pieces when no filter is given).
    materials: Vec<String>,
    /// A family of endings with defenders: a (one attacking piece, any defenders), b (two attacking pieces on
    /// one side without defenders, against defenders), c (two attacking pieces, at most two
    /// defenders). Added to the named materials.
    #[arg(long)]
    family: Option<Family>,
    /// At most this many attacking pieces (rook, horse, cannon, pawn), both sides together: 1 to
    /// 10.
    #[arg(long, value_parser = attackers)]
    max_attackers: Option<usize>,
    /// At most this many defending pieces (advisor, elephant), both sides together: 0 to 8.
    #[arg(long, value_parser = defenders)]
    max_defenders: Option<usize>,
    /// At most this many pieces, kings included: 3 to 12 (default 5 when no other filter,
    /// material or family is given). No table holds more than 12 pieces.
    #[arg(long, value_parser = max_pieces_arg)]
    max_pieces: Option<usize>,
}

/// `--max-pieces`: 3 (a king each and one attacker) to the largest table's 12 (also `qiku demo`'s).
pub(crate) fn max_pieces_arg(s: &str) -> Result<usize, String> {
    count_from_to(s, 3, 12, "no table holds more than 12 pieces, kings included")
}

/// `--max-attackers`: 1 to 10 (12 pieces less the kings).
fn attackers(s: &str) -> Result<usize, String> {
    count_from_to(s, 1, 10, "no table holds more than 12 pieces, kings included")
}

/// `--max-defenders`: 0 to 8 (two advisors and two elephants a side).
fn defenders(s: &str) -> Result<usize, String> {
    count_from_to(s, 0, 8, "each side has at most two advisors and two elephants")
}

fn count_from_to(s: &str, lo: usize, hi: usize, why: &str) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| format!("expected a whole number from {lo} to {hi} ({why}), got {s:?}"))
}

#[derive(Subcommand)]
enum Command {
    /// Generate tables (and every smaller table they need, unless --only), skipping intact
    /// existing files.
    Generate {
        #[command(flatten)]
        select: SelectArgs,
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Store blocks uncompressed.
        #[arg(long)]
        no_compress: bool,
        /// Skip the rule-aware pass: no `.qtr` companions with the Asian rules' values (the pass
        /// takes about the plain solve's time and memory again, more where perpetual checks
        /// abound), and no `.qtw` WDL files (they need both). Probes under the Asian rules then
        /// fail for these tables; a later run without the flag adds both.
        #[arg(long)]
        no_rules: bool,
        /// Generate only the selected tables, not the smaller tables their captures lead to:
        /// those must already be in --dir, intact (with their .qtr companions unless
        /// --no-rules); a missing or damaged one is an error, and no other file is written. For
        /// workflow engines that run one material per job (`workflow/Snakefile`).
        #[arg(long)]
        only: bool,
        /// Keep the process within this much resident memory (such as 1G or 512M): a table
        /// whose estimated peak is larger is solved with its working arrays in scratch files,
        /// which takes longer but writes the same bytes; one that cannot fit even so is refused
        /// before any work. `plan --memory` says which tables page and why. Without it a table
        /// whose estimated peak is above the memory available (or a container's limit) is refused.
        #[arg(long, value_name = "SIZE")]
        memory: Option<MemorySize>,
        /// Directory of the scratch files of paged tables (default: `.scratch` in --dir). The
        /// working arrays' files are unlinked as they are made; a paged table's checkpoints stay
        /// until the table is written, so that a run started again after an interruption resumes.
        #[arg(long, value_name = "DIR", requires = "memory")]
        scratch: Option<PathBuf>,
        /// A paged table's solve saves a checkpoint in the scratch directory after its
        /// initialisation and then this often (minutes, fractions allowed); a run started again
        /// after an interruption resumes at the last one.
        #[arg(long, value_name = "MINUTES", default_value_t = 5.0, requires = "memory", value_parser = minutes)]
        checkpoint_minutes: f64,
        /// Print a JSON report of every table instead of a summary (progress stays on stderr).
        #[arg(long)]
        json: bool,
        /// No progress display (neither the bar on a terminal nor the plain progress lines); the
        /// summary or the JSON report is printed all the same.
        #[arg(short, long)]
        quiet: bool,
        /// Worker threads, 1 to 1024 (default: the RAYON_NUM_THREADS environment variable when
        /// set, else one per CPU). The files are the same bytes for any count.
        #[arg(long, value_name = "N", value_parser = super::whole_number::<usize>(1, qiku::MAX_WORKER_THREADS as u64))]
        threads: Option<usize>,
    },
    /// Before any work: the tables a selection means, in generation order, with entries and
    /// estimated peak memory, disk and time, which ones the generator cannot do yet, and totals
    /// (with the disk space still to write against the space free where --dir is).
    /// The times are for this machine: the plan first times a small generation (a few seconds)
    /// and scales the rates measured on the project machine by it (`--speed` instead gives the
    /// factor); so is the memory checked, against what this machine has available (`--memory`
    /// instead gives a budget).
    Plan {
        #[command(flatten)]
        select: SelectArgs,
        /// Directory of the table files (tables already there are marked present).
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Estimate a generation with `--no-rules`: no rule-aware pass, so no `.qtr` or `.qtw`
        /// files, and only the lean solver's memory.
        #[arg(long)]
        no_rules: bool,
        /// Estimate a generation with `--memory SIZE`: per table, whether it runs in memory,
        /// paged (with the estimated slowdown) or not at all, and why. Without it (and without
        /// --speed), the tables that need more memory than this machine has available are
        /// marked NOT ENOUGH MEMORY: `generate` refuses them unless given --memory.
        #[arg(long, value_name = "SIZE")]
        memory: Option<MemorySize>,
        /// Estimate the times for a machine SPEED times as fast as the project machine, without
        /// timing this one: 1 gives the project machine's times (the same output on every
        /// machine); a plan for other machines than this one (a cluster's nodes) takes the speed
        /// that a plan printed there. From 0.001 to 1000.
        #[arg(long, value_name = "SPEED", value_parser = speed_arg, allow_negative_numbers = true)]
        speed: Option<f64>,
        /// Print {"rates", "speed", "calibration", "threads", "rules", "tables": [{"material", "pieces", "target",
        /// "entries", "peak_memory_bytes", "disk_bytes", "seconds", "rules_pass", "unsupported",
        /// "inputs", "job_peak_memory_bytes", "present"}], "totals"}: "speed" is the factor the times
        /// were scaled by, "calibration" its measurement ({"seconds", "speed"}; null with
        /// `--speed`), "rules_pass" is the
        /// rule-aware pass counted ("light" where a side has no attacking piece, "full", "checks"
        /// for many perpetual checks; null with --no-rules), "inputs" the tables its captures lead
        /// to, "job_peak_memory_bytes" the memory of generating it alone with `--only`; the
        /// totals' "disk_bytes_to_write" (the tables not present) and "free_disk_bytes" (free
        /// where --dir is; null where unknown). Without --memory and --speed, the plan is this
        /// machine's: the totals' "available_memory_bytes" (null where unknown) and
        /// "over_available_memory", and per table "fits_available_memory" (false: `generate`
        /// refuses it without --memory).
        #[arg(long)]
        json: bool,
        /// Worker threads, 1 to 1024 (default: the RAYON_NUM_THREADS environment variable when
        /// set, else one per CPU). The times are estimated for the generation with as many.
        #[arg(long, value_name = "N", value_parser = super::whole_number::<usize>(1, qiku::MAX_WORKER_THREADS as u64))]
        threads: Option<usize>,
    },
    /// Show the value of a position and of each legal move.
    Probe {
        #[arg(help = super::REQUIRED_POSITION_HELP, value_name = "POSITION", required = true)]
        position: Vec<String>,
        /// Notation of the moves printed: iccs, wxf or chinese.
        #[arg(long, default_value = "iccs", value_parser = super::notation_arg)]
        notation: qiku::notation::Notation,
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Repetition rules: `asian` (perpetual check loses, from the .qtr companions; as
        /// tournaments play) or `plain` (every cycle a draw, the .qtb files). A value only the
        /// rules decide is marked: its distance ranks the winning line (follow `best_moves`), it is not
        /// plies to mate.
        #[arg(long, default_value = "asian")]
        rules: Rules,
        /// Print {"rules", "wdl", "dtm", "by_rule", "unit", "text", "wdl_file", "best_moves",
        /// "best_moves_iccs", "moves": [{"move", "iccs", "wdl", "dtm", "by_rule", "unit"}]}; moves
        /// in --notation, and in ICCS under the "_iccs" and "iccs" keys; dtm in plies (unit "plies"), positive when the
        /// side to move wins, negative when it loses, 0 for a draw and for a side mated now (wdl
        /// says which); by_rule: decided only by the
        /// rules, and dtm is then a line rank (unit "line rank").
        #[arg(long)]
        json: bool,
    },
    /// Count a table's legal positions per side to move: wins, draws, losses, no-move positions
    /// and the longest distance. Mirror images count separately, identical pieces unordered.
    Stats {
        /// A material such as KRNvKR (its color swap reads the same table).
        material: String,
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// `asian` (counts under the perpetual-check rule, with how many positions it changes per
        /// side to move: "changed" in the JSON; the default, as tournaments play) or `plain`.
        #[arg(long, default_value = "asian")]
        rules: Rules,
        /// Print {"material", "rules", "red", "black", "longest_mate_plies"; asian: "changed", "highest_line_rank"}.
        #[arg(long)]
        json: bool,
    },
    /// Re-derive every value from its successors (independently of the generator) and check the
    /// checksums; then the same for the .qtr companion (the Asian rules' values) where there is
    /// one, and every entry of the .qtw WDL file against both. With no material, every table in
    /// the directory.
    Verify {
        /// Materials such as KRNvKR (default: every table in --dir).
        materials: Vec<String>,
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Print {"dir", "tables": [{"material", "passed", "status", "table", "rules", "wdl"}],
        /// "verified", "failed", "not_checked", "missing"} at the end: each check {"status": "ok", "entries"
        /// (for "rules": "changed", the entries the rules change), "seconds"}, {"status": "failed",
        /// "error"} (a file of this table is wrong) or {"status": "not_checked", "input",
        /// "input_error"} (another table's file it reads cannot be used; "input_error" null and
        /// "missing" set when it is absent); null where the file is absent. A table's "status" is
        /// "missing" when its .qtb is not there (a named table never made), "failed" when a check
        /// failed, else "not_checked" when one was not checked, else "ok"; "missing" counts them;
        /// "entries_unit" says what "entries" counts (index entries: a position and its mirror
        /// image are one).
        #[arg(long)]
        json: bool,
        /// No progress display (neither the bar on a terminal nor the plain progress lines); the
        /// summary or the JSON report is printed all the same.
        #[arg(short, long)]
        quiet: bool,
        /// Worker threads, 1 to 1024 (default: the RAYON_NUM_THREADS environment variable when
        /// set, else one per CPU).
        #[arg(long, value_name = "N", value_parser = super::whole_number::<usize>(1, qiku::MAX_WORKER_THREADS as u64))]
        threads: Option<usize>,
    },
    /// List the tables in a directory with sizes and compression, and the sizes of their .qtr
    /// and .qtw files.
    Info {
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Print {"dir", "tables": [{"material", "entries", sizes in bytes...}], the totals, and
        /// "unusable": [{"path", "material", "error", "replaceable"}]}: the files that cannot be
        /// used (their header, size, key set and index checked, not every block), "material"
        /// null for a name that is no table's, "replaceable" true for a table file (damaged,
        /// cut short, of another format or key set) that `generate` writes again, false for
        /// anything else (someone's file, a directory), which it refuses to replace ("error" then
        /// says what it appears to be). The exit
        /// status is 1 when the list is not empty.
        #[arg(long)]
        json: bool,
    },
}

/// Entry point of the `qiku-tb` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(code) = crate::check_thread_env("qiku-tb") {
        return code;
    }
    // Printed after the command's own answer or error (the unusable files a probe did not need).
    let mut warnings = Vec::new();
    let result = match cli.command {
        Command::Generate {
            select,
            dir,
            no_compress,
            no_rules,
            only,
            memory,
            scratch,
            checkpoint_minutes,
            json,
            quiet,
            threads,
        } => {
            if let Err(e) = use_threads(threads) {
                eprintln!("qiku-tb: {e}");
                return ExitCode::FAILURE;
            }
            let mut opts = GenerateOptions::new(dir)
                .compress(!no_compress)
                .rules(!no_rules)
                .checkpoint_every(std::time::Duration::from_secs_f64(checkpoint_minutes * 60.0));
            if let Some(m) = memory {
                opts = opts.memory(m.bytes());
            }
            if let Some(s) = scratch {
                opts = opts.scratch(s);
            }
            if let Err(e) = super::interrupt::install() {
                eprintln!("qiku-tb: warning: {e}; Ctrl-C will end the command at once");
            }
            match run_generate(&select, opts, only, memory, json, quiet) {
                Err(Failure::Stopped) => return ExitCode::from(super::interrupt::exit_status()),
                Err(Failure::Error(message)) => Err(message),
                Ok(()) => Ok(()),
            }
        }
        Command::Plan { select, dir, no_rules, memory, speed, json, threads } => {
            use_threads(threads).and_then(|()| run_plan(&select, &dir, !no_rules, memory, speed, json))
        }
        Command::Probe { position, notation, dir, rules, json } => {
            run_probe(&position, notation, &dir, rules, json, &mut warnings)
        }
        Command::Stats { material, dir, rules, json } => stats::run_stats(&material, &dir, rules, json),
        Command::Verify { materials, dir, json, quiet, threads } => {
            use_threads(threads).and_then(|()| verify::run_verify(&materials, &dir, json, quiet))
        }
        Command::Info { dir, json } => run_info(&dir, json),
    };
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qiku-tb: {message}");
            ExitCode::FAILURE
        }
    };
    for warning in warnings {
        eprintln!("qiku-tb: {warning}");
    }
    if super::stdout_failed("qiku-tb") {
        return ExitCode::FAILURE;
    }
    code
}

/// `--threads N`: the process's worker threads (rayon's pool); without it rayon's default
/// (RAYON_NUM_THREADS, else one per CPU). Every table file is the same bytes for any count.
fn use_threads(threads: Option<usize>) -> Result<(), String> {
    match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| format!("--threads {n}: cannot start the worker threads: {e}")),
        None => Ok(()),
    }
}

fn parse_materials(names: &[String]) -> Result<Vec<Material>, String> {
    names.iter().map(|n| n.parse::<Material>().map_err(|e| format!("{e}"))).collect()
}

/// Resolves the selection options (shared by `generate` and `plan`); notes on stderr the named
/// materials that are dead draws or that the filters exclude.
fn resolve(args: &SelectArgs) -> Result<Resolved, String> {
    let named = parse_materials(&args.materials)?;
    let filtered = args.family.is_some() || args.max_attackers.is_some() || args.max_defenders.is_some();
    if !named.is_empty() && !filtered && args.max_pieces.is_none() && named.iter().all(|m| !m.has_attackers()) {
        // Said rather than "no table": nothing is wrong with the names.
        return Err(format!("{} to make or plan", qiku::tablebase::dead_draw_message(&named)));
    }
    let mut selection = Selection::new().materials(named);
    if let Some(family) = args.family {
        selection = selection.family(family);
    }
    if let Some(n) = args.max_attackers {
        selection = selection.max_attackers(n);
    }
    if let Some(n) = args.max_defenders {
        selection = selection.max_defenders(n);
    }
    if let Some(n) = args.max_pieces {
        selection = selection.max_pieces(n);
    }
    let resolved = selection.resolve();
    let names = |list: &[Material]| list.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ");
    if let Ok(r) = &resolved {
        if !r.dead.is_empty() {
            let have = if r.dead.len() == 1 { "has" } else { "have" };
            eprintln!("qiku-tb: {} {have} no attacking piece: always drawn, no file needed", names(&r.dead));
        }
        if !r.excluded.is_empty() {
            eprintln!("qiku-tb: {} left out by the --max-* filters", names(&r.excluded));
        }
    }
    resolved.map_err(|e| e.to_string())
}

/// What `generate` says of the temporary table files that writers on other machines sharing
/// `dir` left (none: `None`): this run leaves them, and they take space until deleted.
fn other_machines_note(dir: &Path) -> Option<String> {
    let found = qiku::fs::other_machines_temp_files(dir, &qiku::tablebase::is_table_file_name).ok()?;
    if found.is_empty() {
        return None;
    }
    let mut hosts: Vec<&str> = found.iter().map(|(_, h)| h.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let size: u64 = found.iter().filter_map(|(p, _)| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    let names: Vec<String> =
        found.iter().take(3).map(|(p, _)| p.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
    let more = if found.len() > 3 { format!(" and {} more", found.len() - 3) } else { String::new() };
    Some(format!(
        "left alone: {} temporary file(s) of other machines sharing {} ({}, {}{more}): this machine cannot see \
         whether their jobs still run. None is complete; once no qiku-tb job runs on {} any more, delete them \
         (or run the same tables there, which removes them)",
        found.len(),
        dir.display(),
        bytes(size),
        names.join(", "),
        hosts.join(", ")
    ))
}

fn run_generate(
    args: &SelectArgs,
    opts: GenerateOptions,
    only: bool,
    memory: Option<MemorySize>,
    json: bool,
    quiet: bool,
) -> Result<(), Failure> {
    let dir = opts.dir().to_path_buf();
    let resolved = resolve(args)?;
    // Refuse before any work if the generator cannot do some table of the plan.
    let (rows, _) = estimate(&resolved, &Rates::MEASURED, 1, opts.has_rules());
    let unsupported: Vec<String> =
        rows.iter().filter(|r| !only || r.target).filter_map(|r| r.unsupported.clone()).collect();
    if !unsupported.is_empty() {
        // The first two and the last (the largest, in dependency order) name every kind of limit
        // hit in practice; `plan` lists them all.
        let shown: Vec<&str> = if unsupported.len() <= 3 {
            unsupported.iter().map(String::as_str).collect()
        } else {
            vec![&unsupported[0], &unsupported[1], "...", &unsupported[unsupported.len() - 1]]
        };
        return Err(Failure::Error(format!(
            "{} of the {} tables cannot be generated yet: {}; see `qiku-tb plan`",
            unsupported.len(),
            rows.len(),
            shown.join("; ")
        )));
    }
    // The tables paged to scratch files within --memory (the generator refuses, before any work,
    // one that cannot fit).
    let paged: Vec<String> = match memory {
        Some(budget) => rows
            .iter()
            .filter(|r| !only || r.target)
            .filter(|r| matches!(memory_mode(r.material, opts.has_rules(), budget.bytes()), MemoryMode::Paged { .. }))
            .map(|r| r.material.to_string())
            .collect(),
        None => Vec::new(),
    };
    if let (Some(budget), false) = (memory, paged.is_empty() || json) {
        eprintln!(
            "qiku-tb: within --memory {}: {} paged to scratch files (slower, the same bytes)",
            bytes(budget.bytes()),
            paged.join(", ")
        );
    }
    // Warn before the work (it may take days) when its files may not fit where they go.
    let need = space::still_to_write(rows.iter().filter(|r| !only || r.target), &dir, opts.has_rules());
    if let Some(warning) = space::shortfall(need, space::free_bytes(&dir), &dir) {
        eprintln!("qiku-tb: warning: {warning}");
    }
    if let Some(note) = other_machines_note(&dir) {
        eprintln!("qiku-tb: {note}");
    }
    // A set with minutes still to make (the tables whose file is there are kept): the machine is
    // timed (about 2 s, as `plan` does), so that the progress says the time left from the first
    // table on, as `plan` would.
    let to_make: f64 =
        rows.iter().filter(|r| !space::present(&dir, r.material, opts.has_rules())).map(|r| r.seconds).sum();
    let speed = (!only && to_make >= TIMED_FROM_SECONDS).then(|| calibrate().ok().map(|c| c.speed)).flatten();
    let start = Instant::now();
    // Progress goes to stderr with --json too (the report is on stdout): a workflow job's log
    // then shows how far a long table has come.
    let progress = std::sync::Arc::new(super::progress::TermProgress::new(!quiet, false));
    let has_rules = opts.has_rules();
    let opts = opts.progress(progress);
    let opts = match speed {
        Some(speed) => opts.speed(speed),
        None => opts,
    };
    let reports = if only {
        generate::generate_only(&resolved.targets, &opts)
    } else {
        generate::generate_set(&resolved.plan, &opts)
    };
    let reports = reports.map_err(|e| match e {
        TbError::MissingDependency { .. } => {
            Failure::Error(format!("{e} (generate it first, or leave out --only to generate missing inputs too)"))
        }
        TbError::Stopped { material } => {
            eprintln!("qiku-tb: {}", stopped(&material, &dir, paged.contains(&material)));
            Failure::Stopped
        }
        e @ TbError::NotFiles { .. } => Failure::Error(format!("{e}, then run the same command again")),
        e => Failure::Error(e.to_string()),
    })?;
    let secs = start.elapsed().as_secs_f64();
    if json {
        println!("{}", json!({"dir": dir, "seconds": secs, "tables": reports}));
        return Ok(());
    }
    let made = reports.iter().filter(|r| !r.kept).count();
    let entries: u64 = reports.iter().map(|r| r.entries).sum();
    let bytes: u64 = reports.iter().map(|r| r.file_bytes).sum();
    let rules_bytes: u64 = reports.iter().map(|r| r.rules_bytes).sum();
    let wdl_bytes: u64 = reports.iter().map(|r| r.wdl_bytes).sum();
    let wdl_made = reports.iter().filter(|r| !r.wdl_kept && r.wdl_bytes > 0).count();
    let wdl_kept = reports.iter().filter(|r| r.wdl_kept).count();
    println!(
        "{} tables in {} ({} generated, {} kept), {} entries, {:.1} MB on disk ({:.1} MB of .qtb files), {:.1} s",
        reports.len(),
        dir.display(),
        made,
        reports.len() - made,
        entries,
        (bytes + rules_bytes + wdl_bytes) as f64 / 1e6,
        bytes as f64 / 1e6,
        secs
    );
    for r in &reports {
        if let Some(level) = r.resumed_at_level {
            println!("{}: resumed at level {level} from the checkpoint of an interrupted run", r.material);
        }
    }
    if !has_rules {
        println!("WDL files: none written (--no-rules: no .qtr companions and no .qtw WDL files)");
    } else {
        println!(
            "WDL files: {:.2} MB ({:.4} bytes an entry; {} written, {} kept)",
            wdl_bytes as f64 / 1e6,
            if entries > 0 { wdl_bytes as f64 / entries as f64 } else { 0.0 },
            wdl_made,
            wdl_kept
        );
    }
    Ok(())
}

/// A set whose plan takes at least this long on the project machine has this machine timed first
/// for its time left (the timing takes about 2 s).
const TIMED_FROM_SECONDS: f64 = 120.0;

/// What `generate` says when Ctrl-C or SIGTERM stopped it while `material` was being made: what
/// is kept, and that the same command goes on.
fn stopped(material: &str, dir: &Path, paged: bool) -> String {
    let resumes = if paged { " (its paged solve resumes from the checkpoint it saved)" } else { "" };
    format!(
        "interrupted while making {material}; the files finished before are kept in {}; run the same \
         command again to go on{resumes}",
        dir.display()
    )
}

/// Bytes in binary units, one decimal.
fn bytes(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// Seconds as `12 s`, `3.5 min`, `2.1 h` or `4.0 d`.
fn duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.1} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else if s < 86400.0 {
        format!("{:.1} h", s / 3600.0)
    } else {
        format!("{:.1} d", s / 86400.0)
    }
}

/// Probes one position; the files of `dir` that cannot be used are left to `warnings`, printed
/// after the answer or the probe's own error (a script reading the first line of stderr gets the
/// error that matters).
fn run_probe(
    position: &[String],
    notation: qiku::notation::Notation,
    dir: &Path,
    rules: Rules,
    json: bool,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let pos = super::position_args(position)?.position();
    let tb = open_dir(dir)?;
    let result = probe_tables(&tb, &pos, notation, dir, rules, json);
    *warnings = probe_warnings(&tb, Material::from_position(&pos), result.as_ref().err().map(String::as_str));
    result
}

fn probe_tables(
    tb: &Tablebases,
    pos: &qiku::Position,
    notation: qiku::notation::Notation,
    dir: &Path,
    rules: Rules,
    json: bool,
) -> Result<(), String> {
    let write = |m: &qiku::Move| qiku::notation::format(pos, *m, notation);
    let material = Material::from_position(pos);
    let missing = || missing_table(material.canonical().0, dir);
    let value = tb.verdict(pos, rules).map_err(|e| probe_error(e, dir))?.ok_or_else(missing)?;
    let moves = tb.move_verdicts(pos, rules).map_err(|e| probe_error(e, dir))?.ok_or_else(missing)?;
    let values: Vec<(qiku::Move, qiku::TbValue)> = moves.iter().map(|&(m, v)| (m, v.value)).collect();
    let best = tb.checked_best_among(pos, value.value, &values).map_err(|e| probe_error(e, dir))?;
    // The WDL file's answer (null when the material has none), which must agree.
    let from_wdl = tb.checked_wdl_file(pos, rules, &value).map_err(|e| probe_error(e, dir))?;
    if json {
        let list: Vec<_> = moves
            .iter()
            .map(|(m, v)| {
                json!({"move": write(m), "iccs": m.to_string(), "wdl": v.value.wdl.name(), "dtm": v.value.dtm.0, "by_rule": v.by_rule,
                       "unit": v.unit()})
            })
            .collect();
        let best_iccs: Vec<String> = best.iter().map(|m| m.to_string()).collect();
        let best: Vec<String> = best.iter().map(write).collect();
        println!(
            "{}",
            json!({"rules": rules.name(), "wdl": value.value.wdl.name(), "dtm": value.value.dtm.0,
                   "by_rule": value.by_rule, "unit": value.unit(), "text": value.to_string(),
                   "wdl_file": from_wdl.map(|w| w.name()), "best_moves": best, "best_moves_iccs": best_iccs,
                   "moves": list})
        );
        return Ok(());
    }
    println!("{} ({} to move): {value}", material, pos.turn());
    if let Some(w) = from_wdl {
        println!("  WDL file: {w}");
    }
    for (m, v) in &moves {
        let mark = if best.contains(m) { "*" } else { " " };
        println!(" {mark}{}  {v}", write(m));
    }
    if moves.is_empty() {
        println!("  (no legal move: {} loses)", pos.turn());
    } else if moves.iter().any(|(_, v)| v.by_rule && v.value.wdl != Wdl::Draw) {
        // Ranks order a line; they do not count plies, so the line's move may rank above the
        // position (where the winner makes its quiet move into the repeating checks).
        println!("  (* the table's line; a move's line rank is its position's after it plus one, not plies)");
    } else {
        println!("  (* the table's line)");
    }
    Ok(())
}

fn run_info(dir: &Path, json: bool) -> Result<(), String> {
    let tb = open_tb(dir)?;
    let mut rows = Vec::new();
    let (mut total_raw, mut total_file, mut total_entries, mut total_rules, mut total_wdl) = (0u64, 0u64, 0, 0, 0);
    // Size of a companion file that opens (absent or unusable ones were named by `open_tb`).
    let size = |path: PathBuf| TableFile::open(&path).ok().map(|f| f.file_len());
    let mut tables = tb.usable_tables();
    // Smaller tables first, then by name, as `plan` and `generate` go.
    tables.sort_by_key(|t| (t.material.piece_count(), t.material.to_string()));
    if tables.is_empty() && !json {
        println!("no tables in {} (make some with `qiku-tb generate MATERIAL... -d {}`)", dir.display(), dir.display());
        // Files that cannot be used were named: the status says so, as with tables beside them.
        return unusable(&tb);
    }
    for t in tables {
        let f = TableFile::open(&t.path).map_err(|e| e.to_string())?;
        let raw = f.entries() * f.header().width as u64;
        let rules = size(dir.join(rules_file_name(t.material)));
        let wdl = size(dir.join(wdl_file_name(t.material)));
        total_raw += raw;
        total_file += f.file_len();
        total_entries += f.entries();
        total_rules += rules.unwrap_or(0);
        total_wdl += wdl.unwrap_or(0);
        let max_dtm = f.header().counts.iter().map(|c| c.max_dtm).max().unwrap_or(0);
        rows.push((t.material, f.entries(), raw, f.file_len(), f.header().compression, max_dtm, rules, wdl));
    }
    let per_entry = |b: u64| if total_entries > 0 { b as f64 / total_entries as f64 } else { 0.0 };
    if json {
        let list: Vec<_> = rows
            .iter()
            .map(|(m, e, raw, file, comp, dtm, rules, wdl)| {
                json!({"material": m.to_string(), "entries": e, "uncompressed_bytes": raw, "file_bytes": file,
                       "compression": if *comp == 1 { "zstd" } else { "none" }, "max_dtm": dtm,
                       "rules_bytes": rules, "wdl_bytes": wdl})
            })
            .collect();
        println!(
            "{}",
            json!({"dir": dir, "tables": list, "entries": total_entries, "uncompressed_bytes": total_raw,
                   "file_bytes": total_file, "rules_bytes": total_rules, "wdl_bytes": total_wdl,
                   "unusable": unusable_json(&tb)})
        );
        return unusable(&tb);
    }
    println!(
        "{:<14} {:>12} {:>14} {:>12} {:>6} {:>8} {:>10} {:>10}",
        "material", "entries", "uncompressed", "file", "codec", "max dtm", "qtr", "qtw"
    );
    let opt = |v: &Option<u64>| v.map_or("-".to_string(), |b| b.to_string());
    for (m, e, raw, file, comp, dtm, rules, wdl) in &rows {
        let codec = if *comp == 1 { "zstd" } else { "none" };
        println!(
            "{:<14} {e:>12} {raw:>14} {file:>12} {codec:>6} {dtm:>8} {:>10} {:>10}",
            m.to_string(),
            opt(rules),
            opt(wdl)
        );
    }
    println!(
        "{} tables, {:.1} MB uncompressed, {:.1} MB in files ({:.1}%); .qtb {:.4}, .qtr {:.4}, .qtw {:.4} bytes an entry",
        rows.len(),
        total_raw as f64 / 1e6,
        total_file as f64 / 1e6,
        if total_raw > 0 { 100.0 * total_file as f64 / total_raw as f64 } else { 0.0 },
        per_entry(total_file),
        per_entry(total_rules),
        per_entry(total_wdl)
    );
    unusable(&tb)
}

/// `info --json`'s "unusable": each file of `tb` that cannot be used, with its material (from
/// its name, null when that is no table's), the error, and whether `generate` replaces it (a
/// table file, damaged or foreign) or refuses to (anything else: the error then says what it is).
fn unusable_json(tb: &Tablebases) -> Vec<serde_json::Value> {
    tb.problems()
        .iter()
        .map(|problem| {
            let path = problem.path();
            let material = path
                .and_then(|p| p.file_stem())
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok().filter(|m| m.is_canonical() && m.to_string() == s))
                .map(|m| m.to_string());
            // Not a table file: said as such, rather than as a table's bad magic or size.
            match path.and_then(generate::not_a_table_file) {
                Some(what) => json!({"path": path, "material": material,
                                     "error": format!("{}: {what}", path.unwrap_or(tb.dir()).display()),
                                     "replaceable": false}),
                None => json!({"path": path, "material": material, "error": problem.to_string(), "replaceable": true}),
            }
        })
        .collect()
}

/// An error if some table files in the directory cannot be used (each was named on stderr).
fn unusable(tb: &Tablebases) -> Result<(), String> {
    match tb.problems().len() {
        0 => Ok(()),
        n => Err(format!("{n} table file(s) in {} cannot be used (see above)", tb.dir().display())),
    }
}

/// The most `--checkpoint-minutes` takes: a year and more between checkpoints, beyond any run.
const MAX_CHECKPOINT_MINUTES: f64 = 1_000_000.0;

/// `--checkpoint-minutes`: minutes from 0 to [`MAX_CHECKPOINT_MINUTES`], fractions allowed.
fn minutes(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|m| (0.0..=MAX_CHECKPOINT_MINUTES).contains(m))
        .ok_or_else(|| format!("{s} is not a number of minutes from 0 to {MAX_CHECKPOINT_MINUTES}"))
}
