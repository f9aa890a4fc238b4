//! `qiku-tb verify`: re-derive every table's values, then its companions', and report each check as
//! a line while it runs (a family takes minutes) or, with `--json`, one report at the end. While a
//! check re-derives its entries, its progress goes to stderr as `generate`'s does
//! ([`crate::progress::TermProgress`]: a bar on a terminal, plain lines otherwise), with `--json`
//! too: stdout holds only the lines or the report.

use super::{no_directory, open_tb, parse_materials};
use crate::progress::TermProgress;
use qiku::tablebase::generate::{
    last_uses, sort_dependency_order, verify_rules_after_plain_with_progress, verify_rules_with_progress,
    verify_table_with_progress, verify_wdl_with_progress, TableCache,
};
use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material, TbError};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// How one check of one file ended.
enum Outcome {
    /// Every entry agreed: `entries` checked (for the companion: entries the rules changed).
    Ok { entries: u64, seconds: f64 },
    /// A value or checksum disagreed, or the checked file itself could not be read.
    Failed(String),
    /// Another file the check reads (a table its captures lead to, or the table a companion
    /// goes with) is missing or cannot be used, so nothing was checked: the checked file may be
    /// right.
    NotChecked(Input),
    /// The table itself (its `.qtb`) is not in the directory: a named table never made there.
    Missing,
}

/// A file a check reads besides the checked one, which is missing or cannot be used.
struct Input {
    /// Its path.
    path: String,
    /// Why it cannot be used; `None` when it is missing.
    error: Option<String>,
}

/// Which of a table's checks an outcome is.
#[derive(Clone, Copy, PartialEq)]
enum Check {
    /// The table's own (its `.qtb`).
    Table,
    /// A companion's (its `.qtr` or `.qtw`), which reads the `.qtb` too.
    Companion,
}

impl Outcome {
    /// The outcome of `check` of one of `material`'s files.
    fn of(result: Result<u64, TbError>, material: Material, check: Check, start: Instant) -> Outcome {
        match result {
            Ok(entries) => Outcome::Ok { entries, seconds: start.elapsed().as_secs_f64() },
            Err(e) => match bad_input(&e, material, check) {
                Some(input) => Outcome::NotChecked(input),
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
            Outcome::NotChecked(Input { path, error: None }) => {
                json!({"status": "not_checked", "input": path, "input_error": null, "missing": path})
            }
            Outcome::NotChecked(Input { path, error: Some(error) }) => {
                json!({"status": "not_checked", "input": path, "input_error": error})
            }
            Outcome::Missing => json!({"status": "missing"}),
        }
    }
}

/// The other file an error of `check` of `material` is about when it is not one of the files
/// that check answers for: missing, or unusable with the error's cause. The table's check
/// answers for `material`'s own files (`.qtb`, `.qtr`, `.qtw`); a companion's (`.qtr`, `.qtw`)
/// for the companions only, so that the `.qtb` they go with is named as the cause when it cannot
/// be used (its own check says why), not the companion as invalid. An error without a file (a
/// value that does not follow from its successors) is the checked file's.
fn bad_input(e: &TbError, material: Material, check: Check) -> Option<Input> {
    let mut own = vec![rules_file_name(material), wdl_file_name(material)];
    if check == Check::Table {
        own.push(file_name(material));
    }
    let path = e.path().filter(|p| p.file_name().is_none_or(|n| !own.iter().any(|o| n == o.as_str())))?;
    let missing = matches!(e, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
        || matches!(e, TbError::NoRules { .. });
    Some(Input { path: path.display().to_string(), error: (!missing).then(|| e.to_string()) })
}

/// How a table ended over its checks: failed when one of its own files is wrong, not checked when
/// none is but a file one of its checks reads is missing or cannot be used, missing when its table
/// is not there at all.
#[derive(Clone, Copy, PartialEq)]
enum Status {
    Ok,
    Failed,
    NotChecked,
    Missing,
}

impl Status {
    fn of<'a>(checks: impl IntoIterator<Item = &'a Outcome>) -> Status {
        let mut status = Status::Ok;
        for check in checks {
            match check {
                Outcome::Failed(_) => return Status::Failed,
                Outcome::NotChecked(_) => status = Status::NotChecked,
                Outcome::Missing => return Status::Missing,
                Outcome::Ok { .. } => {}
            }
        }
        status
    }

    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::NotChecked => "not_checked",
            Status::Missing => "missing",
        }
    }
}

/// Prints the line of one check: `material` and `what` file, then how it ended (`ok` says what an
/// entry count means); `dir` for the command that makes an unusable input again.
fn say(material: Material, what: &str, outcome: &Outcome, dir: &Path, ok: impl Fn(u64) -> String) {
    match outcome {
        Outcome::Ok { entries, seconds } => println!("{material}{what}: ok ({}, {seconds:.1} s)", ok(*entries)),
        Outcome::Failed(e) => println!("{material}{what}: FAILED: {e}"),
        // The table's own check says what to do about an input; its companions' repeat only the name.
        Outcome::NotChecked(Input { path, error: None }) if what.is_empty() => println!(
            "{material}: NOT CHECKED: its captures lead to {path}, which is missing (verify reads the tables a \
             table's captures lead to: generate them there, or verify the directory that holds them all)"
        ),
        Outcome::NotChecked(Input { path, error: Some(e) }) if what.is_empty() => println!(
            "{material}: NOT CHECKED: its captures lead to {path}, which cannot be used ({e}); nothing was found \
             wrong in {material}'s own files: make that table again ({}), then verify {material} again",
            remake(path, dir)
        ),
        Outcome::NotChecked(Input { path, error: None }) => {
            println!("{material}{what}: NOT CHECKED: {path} is missing")
        }
        Outcome::NotChecked(Input { path, .. }) => {
            println!("{material}{what}: NOT CHECKED: {path} cannot be used")
        }
        Outcome::Missing => println!(
            "{material}{what}: MISSING: there is no {} in {} (make it: {})",
            file_name(material),
            dir.display(),
            remake(&file_name(material), dir)
        ),
    }
}

/// The command that makes the table of the file at `path` again (`generate` replaces a damaged
/// file).
fn remake(path: &str, dir: &Path) -> String {
    let stem = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or("MATERIAL");
    format!("`qiku-tb generate {stem} -d {}`", dir.display())
}

/// Verifies `names` (every table in `dir` when empty), printing a line per check, or the JSON
/// report with `json`; an error when any table failed or could not be checked. With `json`, a
/// run that checks nothing (no tables in `dir`, no directory, only dead draws named) prints the
/// report of no table too, and fails.
pub(super) fn run_verify(names: &[String], dir: &Path, json: bool, quiet: bool) -> Result<(), String> {
    let materials = parse_materials(names)?;
    let nothing = |why: String| {
        if json {
            println!("{}", report(dir, Vec::new(), [0, 0, 0, 0]));
        }
        Err(why)
    };
    match to_verify(materials, dir) {
        Ok(materials) if materials.is_empty() => nothing(format!(
            "no tables in {d} (make some with `qiku-tb generate MATERIAL... -d {d}`, or give -d the directory \
             that holds them)",
            d = dir.display()
        )),
        Ok(materials) => verify_each(&materials, dir, json, quiet),
        Err(e) => nothing(e),
    }
}

/// The JSON report of `verify`: each table's, and the counts `[verified, failed, not_checked,
/// missing]`.
fn report(dir: &Path, tables: Vec<Value>, [verified, failed, not_checked, missing]: [usize; 4]) -> Value {
    json!({"dir": dir, "tables": tables, "verified": verified, "failed": failed, "not_checked": not_checked,
        "missing": missing, "entries_unit": "index entries (a position and its mirror image are one)"})
}

/// The tables to verify: `materials` less the dead draws (noted) and repeats, or every table in
/// `dir` when none is named; empty when `dir` holds none.
fn to_verify(mut materials: Vec<Material>, dir: &Path) -> Result<Vec<Material>, String> {
    // A material without attacking pieces is a dead draw: it never has a table.
    let (draws, rest): (Vec<Material>, Vec<Material>) = materials.iter().partition(|m| !m.has_attackers());
    if !draws.is_empty() {
        let what = qiku::tablebase::dead_draw_message(&draws);
        if rest.is_empty() {
            return Err(format!("{what} to verify"));
        }
        eprintln!("qiku-tb: {what}; left out");
    }
    materials = rest;
    if let Some(e) = no_directory(dir) {
        return Err(e);
    }
    // Each table once, whatever colour order or how often it is named.
    let mut seen = std::collections::HashSet::new();
    materials.retain(|m| seen.insert(m.canonical().0));
    if materials.is_empty() {
        materials = open_tb(dir)?.tables().into_iter().map(|t| t.material).collect();
        // The generator's order: a group's smaller tables are used only within the group, so
        // few are held at a time (family A: 1.1 GB at the peak, against 3.0 GB in order of
        // piece count).
        sort_dependency_order(&mut materials);
    }
    Ok(materials)
}

/// Verifies `materials` in `dir` (see [`run_verify`]).
fn verify_each(materials: &[Material], dir: &Path, json: bool, quiet: bool) -> Result<(), String> {
    let mut cache = TableCache::new();
    let mut rule_cache = TableCache::new();
    // Tables with a wrong file (a table is counted once, whichever of its files failed), and
    // tables not checked, their own files not found wrong, because a file they read is bad.
    let (mut failed, mut not_checked, mut missing) = (0, 0, 0);
    let mut reports = Vec::new();
    let canonical: Vec<Material> = materials.iter().map(|m| m.canonical().0).collect();
    // A decoded table stays cached while a later table captures into it, and no longer (the
    // generation driver's rule): a whole family would not fit in memory otherwise.
    let last_use = last_uses(&canonical);
    // Progress goes to stderr with --json too (the report is on stdout), as `generate`'s does.
    let progress = TermProgress::new(!quiet, false);
    // A check that failed did not finish its phase: its bar goes before the check's line.
    let ended = |outcome: Outcome| {
        progress.clear();
        outcome
    };
    for (i, &c) in canonical.iter().enumerate() {
        let start = Instant::now();
        let qtb = dir.join(file_name(c));
        let plain = match std::fs::metadata(&qtb) {
            Ok(_) => {
                ended(Outcome::of(verify_table_with_progress(dir, c, &mut cache, &progress), c, Check::Table, start))
            }
            // A link there that leads to no file (dangling, or a loop): the table is there, broken.
            Err(e) if std::fs::symlink_metadata(&qtb).is_ok() => {
                Outcome::Failed(format!("{}: a symbolic link that leads to no file ({e})", qtb.display()))
            }
            Err(_) => Outcome::Missing,
        };
        if !json {
            say(c, "", &plain, dir, |n| format!("{n} legal entries"));
        }
        let rules_path = dir.join(rules_file_name(c));
        let rules = rules_path.exists().then(|| {
            let start = Instant::now();
            // After a passed plain check, a companion equal to the plain values (and whose
            // captures lead to such companions) needs no second pass over its entries.
            let (result, same) = if plain.passed() {
                match verify_rules_after_plain_with_progress(dir, c, &mut cache, &mut rule_cache, &progress) {
                    Ok(r) => (Ok(r.changed), r.same_as_plain),
                    Err(e) => (Err(e), false),
                }
            } else {
                (verify_rules_with_progress(dir, c, &mut cache, &mut rule_cache, &progress), false)
            };
            let outcome = ended(Outcome::of(result, c, Check::Companion, start));
            if !json {
                let how = if same { ": the plain values, checked above" } else { "" };
                say(c, " (Asian rules)", &outcome, dir, |n| format!("{n} entries changed{how}"));
            }
            outcome
        });
        let wdl_path = dir.join(wdl_file_name(c));
        let wdl = wdl_path.exists().then(|| {
            let start = Instant::now();
            let result = verify_wdl_with_progress(dir, c, &mut cache, &mut rule_cache, &progress);
            let outcome = ended(Outcome::of(result, c, Check::Companion, start));
            if !json {
                say(c, " (WDL)", &outcome, dir, |n| format!("{n} legal entries"));
            }
            outcome
        });
        let status = Status::of(std::iter::once(&plain).chain(rules.as_ref()).chain(wdl.as_ref()));
        failed += usize::from(status == Status::Failed);
        not_checked += usize::from(status == Status::NotChecked);
        missing += usize::from(status == Status::Missing);
        if json {
            let opt = |o: &Option<Outcome>, count| o.as_ref().map_or(Value::Null, |o| o.to_json(count));
            reports.push(json!({"material": c.to_string(), "passed": status == Status::Ok, "status": status.name(),
                "table": plain.to_json("entries"), "rules": opt(&rules, "changed"), "wdl": opt(&wdl, "entries")}));
        }
        let keep = |k: &Material| last_use.get(k).is_some_and(|&last| last > i);
        cache.retain(|k, _| keep(k));
        rule_cache.retain(|k, _| keep(k));
    }
    if json {
        let verified = materials.len() - failed - not_checked - missing;
        println!("{}", report(dir, reports, [verified, failed, not_checked, missing]));
    } else {
        // Verification counts index entries; `stats` counts positions.
        println!(
            "(entries: index entries, where a position and its mirror image are one; `qiku-tb stats` counts positions)"
        );
    }
    let total = materials.len();
    if missing > 0 {
        let mut why = format!("{missing} of {total} tables are not in {} (see their MISSING lines)", dir.display());
        if failed + not_checked > 0 {
            why.push_str(&format!(
                "; of the others, {failed} failed verification and {not_checked} could not be checked"
            ));
        }
        return Err(why);
    }
    match (failed, not_checked) {
        (0, 0) => {}
        (f, 0) => return Err(format!("{f} of {total} tables failed verification (a file of theirs is wrong)")),
        (0, n) => {
            return Err(format!(
                "{n} of {total} tables could not be checked: a table they read is missing or cannot be used (see \
                 their NOT CHECKED lines)"
            ))
        }
        (f, n) => {
            return Err(format!(
                "{f} of {total} tables failed verification (a file of theirs is wrong), and {n} more could not be \
                 checked: a table they read is missing or cannot be used (see their NOT CHECKED lines)"
            ))
        }
    }
    if !json {
        println!("{} tables verified", materials.len());
    }
    Ok(())
}
