//! `qiku-tb plan`: per table of a selection, its entries, estimated peak memory, disk and time,
//! how it runs within `--memory` (in memory, paged or not at all) and within the memory this
//! machine has available, and the totals against the disk free where the tables go.

use super::{bytes, duration, resolve, space, SelectArgs};
use qiku::tablebase::generate::{
    self, calibrate, estimate, memory_mode, MemoryMode, MemorySize, Rates, RulesPass, CALIBRATION_MATERIAL, UNCOUNTED,
};
use serde_json::json;
use std::path::Path;

/// A table's estimated peak memory and time as it would be generated: without `--memory` its
/// plan row's (smaller tables held included); within it, when paged the budget and the time
/// slowed down, else its job's peak alone (a run within a budget reads each table's inputs from
/// their files instead of holding them).
fn within(r: &generate::PlannedTable, mode: &Option<MemoryMode>, memory: Option<MemorySize>) -> (u64, f64) {
    match (mode, memory) {
        (Some(MemoryMode::Paged { slowdown, .. }), Some(budget)) => (budget.bytes(), r.seconds * slowdown),
        (Some(MemoryMode::InMemory { .. }), Some(_)) => (r.job_peak_memory_bytes, r.seconds),
        _ => (r.peak_memory_bytes, r.seconds),
    }
}

/// A speed factor for `plan --speed`: from 0.001 to 1000 (a machine a thousand times slower or
/// faster than the project machine; beyond that the figures mean nothing).
pub(super) fn speed_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.001..=1000.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a speed: give a number from 0.001 to 1000 (1 is the project machine's)")),
    }
}

pub(super) fn run_plan(
    args: &SelectArgs,
    dir: &Path,
    rules: bool,
    memory: Option<MemorySize>,
    speed: Option<f64>,
    json: bool,
) -> Result<(), String> {
    let resolved = resolve(args)?;
    // Without --memory, for this machine (a plan with --speed may be for others): the memory
    // available here, against which `generate` refuses a table before any work.
    let available = if memory.is_none() && speed.is_none() { generate::available_memory() } else { None };
    let calibration = match speed {
        Some(_) => None,
        None => Some(calibrate().map_err(|e| {
            format!("timing this machine for the plan failed: {e} (give --speed 1 for the project machine's times)")
        })?),
    };
    let speed = speed.or(calibration.map(|c| c.speed)).unwrap_or(1.0);
    let rates = Rates::MEASURED.at_speed(speed);
    let threads = rayon::current_num_threads();
    let (rows, totals) = estimate(&resolved, &rates, threads, rules);
    let present: Vec<bool> = rows.iter().map(|r| space::present(dir, r.material, rules)).collect();
    // What is still to write (the present tables are kept), against the space free there.
    let to_write = space::still_to_write(rows.iter().filter(|r| r.unsupported.is_none()), dir, rules);
    let free = space::free_bytes(dir);
    let modes: Vec<Option<MemoryMode>> =
        rows.iter().map(|r| memory.map(|m| memory_mode(r.material, rules, m.bytes()))).collect();
    let refused = modes.iter().filter(|m| matches!(m, Some(MemoryMode::Refused { .. }))).count();
    // Per table, how it would run within the memory available here (`None`: not checked).
    let here: Vec<Option<MemoryMode>> = rows
        .iter()
        .map(|r| available.filter(|_| r.unsupported.is_none()).map(|a| memory_mode(r.material, rules, a)))
        .collect();
    let over_available = here.iter().filter(|m| m.as_ref().is_some_and(|m| !fits(m))).count();
    // Within --memory, a paged table's peak is the budget and its time is slowed down; a table
    // in memory reads its inputs from their files, as alone (no decoded copies kept across the
    // set), so its peak is its job's.
    let (mut peak, mut seconds, mut paged) = (totals.peak_memory_bytes, totals.seconds, 0);
    if memory.is_some() {
        (peak, seconds) = (0, 0.0);
        for (r, mode) in rows.iter().zip(&modes) {
            match mode {
                // Not generated at all within the budget: neither its memory nor its time counts.
                Some(MemoryMode::Refused { .. }) => continue,
                Some(MemoryMode::Paged { .. }) => paged += 1,
                _ => {}
            }
            // Unsupported tables are left out of the totals (they are refused before any work).
            if r.unsupported.is_none() {
                let (p, s) = within(r, mode, memory);
                peak = peak.max(p);
                seconds += s;
            }
        }
    }
    if json {
        let mut totals = json!(totals);
        if memory.is_some() {
            totals["paged"] = json!(paged);
            totals["not_within_memory"] = json!(refused);
            totals["peak_memory_bytes_within_memory"] = json!(peak);
            totals["seconds_within_memory"] = json!(seconds);
        }
        totals["disk_bytes_to_write"] = json!(to_write);
        totals["free_disk_bytes"] = json!(free);
        totals["available_memory_bytes"] = json!(available);
        if available.is_some() {
            totals["over_available_memory"] = json!(over_available);
        }
        let list: Vec<_> = rows
            .iter()
            .zip(&present)
            .zip(&modes)
            .zip(&here)
            .map(|(((r, p), mode), here)| {
                let mut v = json!(r);
                v["present"] = json!(p);
                if let Some(mode) = mode {
                    v["memory"] = json!(mode);
                }
                if let Some(here) = here {
                    v["fits_available_memory"] = json!(fits(here));
                }
                v
            })
            .collect();
        println!(
            "{}",
            json!({"dir": dir, "threads": threads, "rules": rules, "rates": rates, "speed": speed,
                "calibration": calibration, "tables": list, "totals": totals})
        );
        return Ok(());
    }
    println!(
        "{:>5} {:<16} {:>6} {:>14} {:>10} {:>10} {:>10}  note",
        "#", "material", "pieces", "entries", "peak mem", "disk", "time"
    );
    for (i, (((r, p), mode), here)) in rows.iter().zip(&present).zip(&modes).zip(&here).enumerate() {
        let mut note = Vec::new();
        if let (Some(here), Some(available)) = (here, available) {
            if let Some(why) = not_enough_here(here, available) {
                note.push(why);
            }
        }
        match mode {
            Some(MemoryMode::Paged { needs, resident, least_budget, slowdown }) => note.push(format!(
                "PAGED: needs {} in memory; paged, {} stays resident (with a working set: --memory {} at \
                 least), about {slowdown:.1}x the time",
                bytes(*needs),
                bytes(*resident),
                bytes(*least_budget)
            )),
            Some(MemoryMode::Refused { needs, resident }) => note.push(format!(
                "NOT WITHIN --memory: it needs {} in memory, and paged {} must still stay in memory (a share of its \
                 arrays{}, and a working set)",
                bytes(*needs),
                bytes(*resident),
                if r.rules_pass == Some(RulesPass::Checks) { " and its perpetual-check graph" } else { "" }
            )),
            Some(MemoryMode::InMemory { .. }) | None => {}
        }
        if !r.target {
            note.push("dependency".to_string());
        }
        match r.rules_pass {
            Some(RulesPass::Light) => note.push("light rule-aware pass (a side without attacking pieces)".to_string()),
            Some(RulesPass::Checks) => {
                note.push("many perpetual checks (a slower, larger rule-aware pass)".to_string())
            }
            Some(RulesPass::Full) | None => {}
        }
        if *p {
            note.push(format!("present in {}", dir.display()));
        }
        if let Some(why) = &r.unsupported {
            note.push(format!("CANNOT GENERATE: {why}"));
        }
        let (row_peak, row_seconds) = within(r, mode, memory);
        // A table of more pieces than an index has slots has no count to estimate from.
        let [entries, peak, disk, time] = match r.entries {
            UNCOUNTED => ["-".to_string(), "-".to_string(), "-".to_string(), "-".to_string()],
            n => [n.to_string(), bytes(row_peak), bytes(r.disk_bytes), duration(row_seconds)],
        };
        println!(
            "{:>5} {:<16} {:>6} {:>14} {:>10} {:>10} {:>10}  {}",
            i + 1,
            r.material.to_string(),
            r.pieces,
            entries,
            peak,
            disk,
            time,
            note.join("; ")
        );
    }
    let pass = if rules {
        format!(
            "; the rule-aware pass {:.1} M entries/s, {:.1} bytes an entry, {:.3} .qtr and .qtw file bytes, \
             where a side has no attacking piece {:.1} M entries/s and {:.1} bytes (no copy of the values), \
             and where a weaker side's rook checks without end {:.1} M entries/s, {:.1} bytes ({:.1} against two \
             rooks), {:.3} file bytes (--no-rules skips it)",
            rates.rules_entries_per_second(threads) / 1e6,
            rates.rules_bytes_per_entry,
            rates.rules_disk_bytes_per_entry,
            rates.light_rules_entries_per_second(threads) / 1e6,
            rates.light_rules_bytes_per_entry,
            rates.checks_rules_entries_per_second(threads) / 1e6,
            rates.checks_rules_bytes_per_entry,
            rates.rook_pair_checks_rules_bytes_per_entry,
            rates.checks_rules_disk_bytes_per_entry
        )
    } else {
        String::new()
    };
    let within = match memory {
        Some(budget) if refused > 0 => format!(
            " (within --memory {}: {paged} table(s) paged; {refused} cannot be generated within it, not counted)",
            bytes(budget.bytes())
        ),
        Some(budget) => format!(" (within --memory {}: {paged} table(s) paged)", bytes(budget.bytes())),
        None => String::new(),
    };
    let not_counted = match totals.unsupported {
        0 => String::new(),
        n => format!(" (not counting the {n} that cannot be generated yet)"),
    };
    println!(
        "{} tables ({} selected, {} dependencies), {} entries{not_counted}; peak memory {}{within}, disk {}, time {} \
         (at {:.1} M entries/s with {threads} thread(s), {:.3} .qtb file bytes and {:.1} solver bytes an entry{pass})",
        totals.tables,
        totals.targets,
        totals.tables - totals.targets,
        totals.entries,
        bytes(peak),
        bytes(totals.disk_bytes),
        duration(seconds),
        rates.entries_per_second(threads) / 1e6,
        rates.disk_bytes_per_entry,
        rates.solver_bytes_per_entry
    );
    match calibration {
        Some(c) => println!(
            "Times are for this machine: it generated {CALIBRATION_MATERIAL} in {:.2} s on one thread, {:.2}x the project \
             machine's speed (--speed {:.2} gives the same times without timing it again)",
            c.seconds, c.speed, c.speed
        ),
        None => println!("Times are for a machine {speed}x as fast as the project machine (--speed)"),
    }
    println!(
        "A table's time depends on how many of its positions the solve decides, known only once it is solved: \
         measured tables took from half to 1.7 times their estimate (peak memory and disk within 25%)"
    );
    let present_count = present.iter().filter(|p| **p).count();
    if present_count > 0 {
        println!("{present_count} of them already present in {} (kept if intact)", dir.display());
    }
    match (space::shortfall(to_write, free, dir), free) {
        (Some(warning), _) => println!("NOT ENOUGH DISK: {warning}"),
        (None, Some(free)) => {
            println!("Disk: {} to write, {} free where {} is", bytes(to_write), bytes(free), dir.display())
        }
        (None, None) => {}
    }
    if totals.unsupported > 0 {
        println!(
            "{} tables cannot be generated yet (marked above): `qiku-tb generate` refuses this selection",
            totals.unsupported
        );
    }
    match available {
        Some(available) if over_available > 0 => println!(
            "{over_available} table(s) need more memory than is available here ({}; marked NOT ENOUGH MEMORY above): \
             `qiku-tb generate` refuses them before any work; give --memory SIZE to page them to scratch files \
             (`qiku-tb plan --memory SIZE` shows how each runs within it), or generate them where more is free",
            bytes(available)
        ),
        Some(available) => println!("Memory: {} available here, enough for every table", bytes(available)),
        None => {}
    }
    if let (Some(budget), true) = (memory, refused > 0) {
        println!(
            "{refused} table(s) cannot be generated within --memory {} (marked NOT WITHIN above): `qiku-tb generate` \
             refuses this selection with that budget; give a larger one",
            bytes(budget.bytes())
        );
    }
    Ok(())
}

/// In memory within the memory mode's budget.
fn fits(mode: &MemoryMode) -> bool {
    matches!(mode, MemoryMode::InMemory { .. })
}

/// The note of a table that needs more than the memory `available` here, by how it would run
/// within that much (`here`); `None` when it fits.
fn not_enough_here(here: &MemoryMode, available: u64) -> Option<String> {
    match here {
        MemoryMode::InMemory { .. } => None,
        MemoryMode::Paged { needs, least_budget, slowdown, .. } => Some(format!(
            "NOT ENOUGH MEMORY: needs {} in memory, {} is available here; `generate` refuses it without \
             --memory, and pages it within --memory SIZE from {} to {} (about {slowdown:.1}x the time)",
            bytes(*needs),
            bytes(available),
            bytes(*least_budget),
            bytes(available)
        )),
        MemoryMode::Refused { needs, resident } => Some(format!(
            "NOT ENOUGH MEMORY: needs {} in memory, {} is available here, and paged {} must still stay in \
             memory: generate it where more is free",
            bytes(*needs),
            bytes(available),
            bytes(*resident)
        )),
    }
}
