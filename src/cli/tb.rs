//! `qiku-tb`: generate, probe, count, verify and list endgame tablebases.

use crate::core::Move;
use crate::tablebase::format::TableFile;
use crate::tablebase::verify::{verify_table, TableCache};
use crate::tablebase::verify_rules::verify_rules;
use crate::tablebase::{driver, file_name, GenerateOptions, Material, Rules, Tablebases, TbValue, Wdl, MAX_PIECES};
use clap::{Parser, Subcommand};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "qiku-tb",
    version,
    about = "Xiangqi endgame tablebases: generate, probe, count, verify",
    long_about = "Xiangqi endgame tablebases of up to 5 pieces, solved by retrograde analysis.\n\n\
Values are distance to mate in plies with best play; positions neither side can force are draws. \
Beside each table KRvKN.qtb, a companion KRvKN.qtr holds the values under the Asian rules, where a \
side that can only hold by perpetual check loses (`--rules asian` on probe and stats). Materials are written like KRNvKR: red's \
pieces, 'v', black's, with K R N C P A B for king, rook, horse, cannon, pawn, advisor, elephant. One \
file serves both colour assignments (KRvKA answers positions where black has the rook)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate tables (and every smaller table they need), skipping intact existing files.
    Generate {
        /// Materials such as KRNvKR; none means every table up to --max-pieces.
        materials: Vec<String>,
        /// With no material given: generate all tables with at most this many pieces (kings included).
        #[arg(long, default_value_t = MAX_PIECES)]
        max_pieces: usize,
        /// Directory of the table files.
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Store blocks uncompressed.
        #[arg(long)]
        no_compress: bool,
        /// Print a JSON report of every table instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Show the value of a position and of each legal move.
    Probe {
        /// Position: a FEN (Pikafish style) or `startpos`.
        fen: String,
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// Repetition rules: `plain` (every cycle a draw, the .qtb files) or `asian` (perpetual
        /// check loses, from the .qtr companions). A value only the rules decide is marked: its
        /// distance ranks the winning line (follow `best`), it is not plies to mate.
        #[arg(long, default_value = "plain")]
        rules: Rules,
        /// Print {"rules", "wdl", "dtm", "by_rule", "best", "moves": [{"move", "wdl", "dtm",
        /// "by_rule"}]}; dtm in plies, positive when the side to move wins, negative when it
        /// loses, 0 for a draw; by_rule: decided only by the rules.
        #[arg(long)]
        json: bool,
    },
    /// Count a table's legal positions per side to move: wins, draws, losses, no-move positions
    /// and the longest distance. Mirror images count separately, identical pieces unordered.
    Stats {
        material: String,
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        /// `plain` or `asian` (counts under the perpetual-check rule, with how many positions it
        /// changes per side to move: "changed" in the JSON).
        #[arg(long, default_value = "plain")]
        rules: Rules,
        #[arg(long)]
        json: bool,
    },
    /// Re-derive every value from its successors (independently of the generator) and check the
    /// checksums; then the same for the .qtr companion (the Asian rules' values) where there is
    /// one. With no material, every table in the directory.
    Verify {
        materials: Vec<String>,
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
    },
    /// List the tables in a directory with sizes and compression.
    Info {
        #[arg(short, long, default_value = "tablebases")]
        dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

/// Entry point of the `qiku-tb` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate { materials, max_pieces, dir, no_compress, json } => {
            run_generate(&materials, max_pieces, dir, !no_compress, json)
        }
        Command::Probe { fen, dir, rules, json } => run_probe(&fen, &dir, rules, json),
        Command::Stats { material, dir, rules, json } => run_stats(&material, &dir, rules, json),
        Command::Verify { materials, dir } => run_verify(&materials, &dir),
        Command::Info { dir, json } => run_info(&dir, json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qiku-tb: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse_materials(names: &[String]) -> Result<Vec<Material>, String> {
    names
        .iter()
        .map(|n| {
            let m: Material = n.parse().map_err(|e| format!("{e}"))?;
            if m.piece_count() > MAX_PIECES {
                return Err(format!("{m}: at most {MAX_PIECES} pieces are supported"));
            }
            Ok(m)
        })
        .collect()
}

fn run_generate(names: &[String], max_pieces: usize, dir: PathBuf, compress: bool, json: bool) -> Result<(), String> {
    if !(3..=MAX_PIECES).contains(&max_pieces) {
        return Err(format!("--max-pieces must be between 3 and {MAX_PIECES}"));
    }
    let mut materials = parse_materials(names)?;
    if materials.is_empty() {
        materials = Material::all_up_to(max_pieces);
    }
    let dead: Vec<String> = materials.iter().filter(|m| !m.has_attackers()).map(|m| m.to_string()).collect();
    if !dead.is_empty() {
        eprintln!("qiku-tb: {} have no attacking piece: always drawn, no file needed", dead.join(", "));
    }
    let start = Instant::now();
    let opts = GenerateOptions { dir: dir.clone(), compress };
    let progress = super::progress::TermProgress::new(!json, false);
    let reports = driver::generate_set_with_progress(&materials, &opts, &progress).map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    if json {
        println!("{}", json!({"dir": dir, "seconds": secs, "tables": reports}));
        return Ok(());
    }
    let made = reports.iter().filter(|r| !r.kept).count();
    let entries: u64 = reports.iter().map(|r| r.entries).sum();
    let bytes: u64 = reports.iter().map(|r| r.file_bytes).sum();
    println!(
        "{} tables in {} ({} generated, {} kept), {} entries, {:.1} MB on disk, {:.1} s",
        reports.len(),
        dir.display(),
        made,
        reports.len() - made,
        entries,
        bytes as f64 / 1e6,
        secs
    );
    Ok(())
}

/// Opens a directory of tables; every file that cannot be used is named on stderr.
fn open_tb(dir: &Path) -> Result<Tablebases, String> {
    let tb = Tablebases::open(dir)
        .map_err(|e| format!("{e} (generate tables with `qiku-tb generate -d {}`)", dir.display()))?;
    for problem in tb.problems() {
        eprintln!("qiku-tb: {problem}");
    }
    Ok(tb)
}

fn run_probe(fen: &str, dir: &Path, rules: Rules, json: bool) -> Result<(), String> {
    let pos = super::parse_position(fen)?;
    let tb = open_tb(dir)?;
    let material = Material::from_position(&pos);
    let missing = || format!("no table for {} in {}", material.canonical().0, dir.display());
    let value = tb.probe_with(&pos, rules).map_err(|e| e.to_string())?.ok_or_else(missing)?;
    let plain = tb.probe(&pos).map_err(|e| e.to_string())?.ok_or_else(missing)?;
    let moves = tb.move_values_with(&pos, rules).map_err(|e| e.to_string())?.ok_or_else(missing)?;
    let plain_moves = tb.move_values(&pos).map_err(|e| e.to_string())?.ok_or_else(missing)?;
    let best = tb.best_moves_with(&pos, rules).map_err(|e| e.to_string())?.ok_or_else(missing)?;
    // A move's value is decided by the rules when it differs from the plain one.
    let by_rule = |m: &Move, v: &TbValue| plain_moves.iter().any(|(pm, pv)| pm == m && pv != v);
    if json {
        let list: Vec<_> = moves
            .iter()
            .map(|(m, v)| json!({"move": m.to_string(), "wdl": v.wdl.name(), "dtm": v.dtm.0, "by_rule": by_rule(m, v)}))
            .collect();
        let best: Vec<String> = best.iter().map(|m| m.to_string()).collect();
        println!(
            "{}",
            json!({"rules": rules.name(), "wdl": value.wdl.name(), "dtm": value.dtm.0, "by_rule": value != plain,
                   "best": best, "moves": list})
        );
        return Ok(());
    }
    let show = |v: &TbValue, ruled: bool| -> String {
        if !ruled {
            return v.to_string();
        }
        let (word, who) = if v.wdl == Wdl::Win { ("win", "the opponent") } else { ("loss", "the side to move") };
        format!("{word} by the perpetual-check rule ({who} can only check forever; line rank {})", v.dtm.plies())
    };
    println!("{} ({} to move, {} rules): {}", material, pos.turn(), rules.name(), show(&value, value != plain));
    for (m, v) in &moves {
        let mark = if best.contains(m) { "*" } else { " " };
        println!(" {mark}{m}  {}", show(v, by_rule(m, v)));
    }
    if moves.is_empty() {
        println!("  (no legal move: {} loses)", pos.turn());
    } else {
        println!("  (* the table's line)");
    }
    Ok(())
}

fn run_stats(name: &str, dir: &Path, rules: Rules, json: bool) -> Result<(), String> {
    let m: Material = name.parse().map_err(|e| format!("{e}"))?;
    let (canonical, swapped) = m.canonical();
    if !canonical.has_attackers() {
        return Err(format!("{m} has no attacking piece: every position is a draw and there is no table"));
    }
    let table = driver::load(&dir.join(file_name(canonical))).map_err(|e| e.to_string())?;
    let plain = table.counts();
    let counts = match rules {
        Rules::Plain => plain,
        Rules::Asian => driver::load_rules(&dir.join(driver::rules_file_name(canonical)), &table)
            .map_err(|e| e.to_string())?
            .counts(),
    };
    let changed = [0, 1].map(|s| plain[s].draws - counts[s].draws);
    // Colour swap: the table's red-to-move positions are the named material's black-to-move ones.
    let (red, black) = if swapped { (counts[1], counts[0]) } else { (counts[0], counts[1]) };
    let (red_changed, black_changed) = if swapped { (changed[1], changed[0]) } else { (changed[0], changed[1]) };
    if json {
        let mut out = json!({"material": m.to_string(), "rules": rules.name(), "red": red, "black": black});
        if rules == Rules::Asian {
            out["changed"] = json!({"red": red_changed, "black": black_changed});
        }
        println!("{out}");
        return Ok(());
    }
    println!(
        "{m}{} under {} rules",
        if swapped { format!(" (table {canonical}, colours swapped)") } else { String::new() },
        rules.name()
    );
    for (side, c, ch) in [("red", red, red_changed), ("black", black, black_changed)] {
        let changed = if rules == Rules::Asian { format!(", {ch} decided by the rule") } else { String::new() };
        println!(
            "  {side} to move: {} legal, {} wins, {} draws, {} losses, {} without a move, longest {} plies{changed}",
            c.legal, c.wins, c.draws, c.losses, c.no_moves, c.max_dtm
        );
    }
    Ok(())
}

fn run_verify(names: &[String], dir: &Path) -> Result<(), String> {
    let mut materials = parse_materials(names)?;
    if materials.is_empty() {
        materials = open_tb(dir)?.tables().into_iter().map(|t| t.material).collect();
        materials.sort_by_key(|m| (m.piece_count(), m.to_string()));
    }
    if materials.is_empty() {
        return Err(format!("no tables in {}", dir.display()));
    }
    let mut cache = TableCache::new();
    let mut rule_cache = TableCache::new();
    let mut failed = 0;
    for m in &materials {
        let (c, _) = m.canonical();
        let start = Instant::now();
        match verify_table(dir, c, &mut cache) {
            Ok(legal) => println!("{c}: ok ({legal} legal entries, {:.1} s)", start.elapsed().as_secs_f64()),
            Err(e) => {
                println!("{c}: FAILED: {e}");
                failed += 1;
            }
        }
        if dir.join(driver::rules_file_name(c)).exists() {
            let start = Instant::now();
            match verify_rules(dir, c, &mut cache, &mut rule_cache) {
                Ok(n) => {
                    println!("{c} (Asian rules): ok ({n} entries changed, {:.1} s)", start.elapsed().as_secs_f64())
                }
                Err(e) => {
                    println!("{c} (Asian rules): FAILED: {e}");
                    failed += 1;
                }
            }
        }
        // Keep only tables that later (larger) ones may still need.
        let keep = |k: &Material| k.piece_count() < c.piece_count() || materials.iter().any(|x| x.canonical().0 == *k);
        cache.retain(|k, _| keep(k));
        rule_cache.retain(|k, _| keep(k));
        if cache.len() > 400 {
            cache.clear();
            rule_cache.clear();
        }
    }
    if failed > 0 {
        return Err(format!("{failed} of {} tables failed verification", materials.len()));
    }
    println!("{} tables verified", materials.len());
    Ok(())
}

fn run_info(dir: &Path, json: bool) -> Result<(), String> {
    let tb = open_tb(dir)?;
    let mut rows = Vec::new();
    let (mut total_raw, mut total_file) = (0u64, 0u64);
    for t in tb.usable_tables() {
        let f = TableFile::open(&t.path).map_err(|e| e.to_string())?;
        let raw = 2 * f.header.per_side * f.header.width as u64;
        total_raw += raw;
        total_file += f.file_len();
        let max_dtm = f.header.counts.iter().map(|c| c.max_dtm).max().unwrap_or(0);
        rows.push((t.material, f.header.per_side * 2, raw, f.file_len(), f.header.compression, max_dtm));
    }
    if json {
        let list: Vec<_> = rows
            .iter()
            .map(|(m, e, raw, file, comp, dtm)| {
                json!({"material": m.to_string(), "entries": e, "uncompressed_bytes": raw, "file_bytes": file,
                       "compression": if *comp == 1 { "zstd" } else { "none" }, "max_dtm": dtm})
            })
            .collect();
        println!("{}", json!({"dir": dir, "tables": list, "uncompressed_bytes": total_raw, "file_bytes": total_file}));
        return unusable(&tb);
    }
    println!(
        "{:<14} {:>12} {:>14} {:>12} {:>6} {:>8}",
        "material", "entries", "uncompressed", "file", "codec", "max dtm"
    );
    for (m, e, raw, file, comp, dtm) in &rows {
        let codec = if *comp == 1 { "zstd" } else { "none" };
        println!("{:<14} {e:>12} {raw:>14} {file:>12} {codec:>6} {dtm:>8}", m.to_string());
    }
    println!(
        "{} tables, {:.1} MB uncompressed, {:.1} MB in files ({:.1}%)",
        rows.len(),
        total_raw as f64 / 1e6,
        total_file as f64 / 1e6,
        if total_raw > 0 { 100.0 * total_file as f64 / total_raw as f64 } else { 0.0 }
    );
    unusable(&tb)
}

/// An error if some table files in the directory cannot be used (each was named on stderr).
fn unusable(tb: &Tablebases) -> Result<(), String> {
    match tb.problems().len() {
        0 => Ok(()),
        n => Err(format!("{n} table file(s) in {} cannot be used (see above)", tb.dir().display())),
    }
}
