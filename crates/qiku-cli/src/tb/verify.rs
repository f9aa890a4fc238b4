//! `qiku-tb verify`: re-derive every table's values, then its companions', and report each check as
//! a line while it runs (a family takes minutes) or, with `--json`, one report at the end.

use super::{open_tb, parse_materials};
use qiku::tablebase::generate::{
    last_uses, sort_dependency_order, verify_rules, verify_rules_after_plain, verify_table, verify_wdl, TableCache,
};
use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material, TbError};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// How one check of one file ended.
enum Outcome {
    /// Every entry agreed: `entries` checked (for the companion: entries the rules changed).
    Ok { entries: u64, seconds: f64 },
    /// A value or checksum disagreed, or the file could not be read.
    Failed(String),
    /// A table its captures lead to is missing, so nothing was checked.
    NotChecked { missing: String },
}

impl Outcome {
    fn of(result: Result<u64, TbError>, own: &Path, start: Instant) -> Outcome {
        match result {
            Ok(entries) => Outcome::Ok { entries, seconds: start.elapsed().as_secs_f64() },
            Err(e) => match missing_input(&e, own) {
                Some(missing) => Outcome::NotChecked { missing },
                None => Outcome::Failed(e.to_string()),
            },
        }
    }

    fn passed(&self) -> bool {
        matches!(self, Outcome::Ok { .. })
    }

    /// The JSON of the check, its count under `count` ("entries", or "changed" for the companion).
    fn to_json(&self, count: &str) -> Value {
        match self {
            Outcome::Ok { entries, seconds } => json!({"status": "ok", count: entries, "seconds": seconds}),
            Outcome::Failed(error) => json!({"status": "failed", "error": error}),
            Outcome::NotChecked { missing } => json!({"status": "not_checked", "missing": missing}),
        }
    }
}

/// The missing file an error of `verify` is about when it is not the checked file itself (`own`):
/// a table its captures lead to.
fn missing_input(e: &TbError, own: &Path) -> Option<String> {
    match e {
        TbError::Io { path, source } if source.kind() == std::io::ErrorKind::NotFound && path != own => {
            Some(path.display().to_string())
        }
        _ => None,
    }
}

/// Prints the line of one check: `material` and `what` file, then how it ended (`ok` says what an
/// entry count means).
fn say(material: Material, what: &str, outcome: &Outcome, ok: impl Fn(u64) -> String) {
    match outcome {
        Outcome::Ok { entries, seconds } => println!("{material}{what}: ok ({}, {seconds:.1} s)", ok(*entries)),
        Outcome::Failed(e) => println!("{material}{what}: FAILED: {e}"),
        // The table's own check says what to do about a missing input; its companions' repeat only the name.
        Outcome::NotChecked { missing } if what.is_empty() => println!(
            "{material}: NOT CHECKED: its captures lead to {missing}, which is missing (verify reads the tables a \
             table's captures lead to: generate them there, or verify the directory that holds them all)"
        ),
        Outcome::NotChecked { missing } => println!("{material}{what}: NOT CHECKED: {missing} is missing"),
    }
}

/// Verifies `names` (every table in `dir` when empty), printing a line per check, or the JSON
/// report with `json`; an error when any table failed or could not be checked.
pub(super) fn run_verify(names: &[String], dir: &Path, json: bool) -> Result<(), String> {
    let mut materials = parse_materials(names)?;
    if materials.is_empty() {
        materials = open_tb(dir)?.tables().into_iter().map(|t| t.material).collect();
        // The generator's order: a group's smaller tables are used only within the group, so
        // few are held at a time (family A: 1.1 GB at the peak, against 3.0 GB in order of
        // piece count).
        sort_dependency_order(&mut materials);
    }
    if materials.is_empty() {
        return Err(format!("no tables in {}", dir.display()));
    }
    let mut cache = TableCache::new();
    let mut rule_cache = TableCache::new();
    // Tables that failed one check or more (a table is counted once, whichever of its files failed).
    let mut failed = 0;
    let mut reports = Vec::new();
    let canonical: Vec<Material> = materials.iter().map(|m| m.canonical().0).collect();
    // A decoded table stays cached while a later table captures into it, and no longer (the
    // generation driver's rule): a whole family would not fit in memory otherwise.
    let last_use = last_uses(&canonical);
    for (i, &c) in canonical.iter().enumerate() {
        let start = Instant::now();
        let plain = Outcome::of(verify_table(dir, c, &mut cache), &dir.join(file_name(c)), start);
        if !json {
            say(c, "", &plain, |n| format!("{n} legal entries"));
        }
        let rules_path = dir.join(rules_file_name(c));
        let rules = rules_path.exists().then(|| {
            let start = Instant::now();
            // After a passed plain check, a companion equal to the plain values (and whose
            // captures lead to such companions) needs no second pass over its entries.
            let (result, same) = if plain.passed() {
                match verify_rules_after_plain(dir, c, &mut cache, &mut rule_cache) {
                    Ok(r) => (Ok(r.changed), r.same_as_plain),
                    Err(e) => (Err(e), false),
                }
            } else {
                (verify_rules(dir, c, &mut cache, &mut rule_cache), false)
            };
            let outcome = Outcome::of(result, &rules_path, start);
            if !json {
                let how = if same { ": the plain values, checked above" } else { "" };
                say(c, " (Asian rules)", &outcome, |n| format!("{n} entries changed{how}"));
            }
            outcome
        });
        let wdl_path = dir.join(wdl_file_name(c));
        let wdl = wdl_path.exists().then(|| {
            let start = Instant::now();
            let outcome = Outcome::of(verify_wdl(dir, c, &mut cache, &mut rule_cache), &wdl_path, start);
            if !json {
                say(c, " (WDL)", &outcome, |n| format!("{n} legal entries"));
            }
            outcome
        });
        let table_passed = plain.passed() && [&rules, &wdl].iter().all(|o| o.as_ref().is_none_or(Outcome::passed));
        failed += usize::from(!table_passed);
        if json {
            let opt = |o: &Option<Outcome>, count| o.as_ref().map_or(Value::Null, |o| o.to_json(count));
            reports.push(json!({"material": c.to_string(), "passed": table_passed, "table": plain.to_json("entries"),
                "rules": opt(&rules, "changed"), "wdl": opt(&wdl, "entries")}));
        }
        let keep = |k: &Material| last_use.get(k).is_some_and(|&last| last > i);
        cache.retain(|k, _| keep(k));
        rule_cache.retain(|k, _| keep(k));
    }
    if json {
        println!(
            "{}",
            json!({"dir": dir, "tables": reports, "verified": materials.len() - failed, "failed": failed,
                "entries_unit": "index entries (a position and its mirror image are one)"})
        );
    } else {
        // Verification counts index entries; `stats` counts positions.
        println!(
            "(entries: index entries, where a position and its mirror image are one; `qiku-tb stats` counts positions)"
        );
    }
    if failed > 0 {
        return Err(format!("{failed} of {} tables failed verification or could not be checked", materials.len()));
    }
    if !json {
        println!("{} tables verified", materials.len());
    }
    Ok(())
}
