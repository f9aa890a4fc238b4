//! `qiku-tb plan` and `qiku-tb generate` with families and filters: the same selection, in
//! dependency order, with unsupported tables reported by `plan` and refused by `generate` before
//! any work.

use crate::common::{qiku_tb, tmp};
use qiku::tablebase::generate::entries_of;
use qiku::tablebase::Material;
use serde_json::Value;

/// `plan --json` at the project machine's speed (no calibration run: quicker, and the same
/// figures on every machine).
fn plan_json(args: &[&str]) -> Value {
    let mut all = vec!["plan", "--json", "--speed", "1"];
    all.extend_from_slice(args);
    let out = qiku_tb(&all);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn materials(plan: &Value) -> Vec<Material> {
    plan["tables"].as_array().unwrap().iter().map(|t| t["material"].as_str().unwrap().parse().unwrap()).collect()
}

#[test]
fn plan_lists_families_in_dependency_order_with_totals() {
    let v = plan_json(&["--family", "b"]);
    let list = materials(&v);
    assert_eq!(list.len(), 126, "90 of family B and the 36 single-attacker tables they capture into");
    assert_eq!(v["totals"]["targets"], 90);
    for (i, m) in list.iter().enumerate() {
        for (_, _, sub) in m.captures() {
            let sub = sub.canonical().0;
            if sub.has_attackers() {
                assert!(list[..i].contains(&sub), "{sub} must come before {m}");
            }
        }
    }
    // Totals are the sums of the rows; entries are recounted here from the piece counts.
    let rows = v["tables"].as_array().unwrap();
    let sum = |key: &str| rows.iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(v["totals"]["entries"].as_u64(), Some(sum("entries")));
    assert_eq!(sum("entries"), list.iter().map(entries_of).sum::<u64>());
    assert_eq!(v["totals"]["disk_bytes"].as_u64(), Some(sum("disk_bytes")));
    let peak = rows.iter().map(|r| r["peak_memory_bytes"].as_u64().unwrap()).max();
    assert_eq!(v["totals"]["peak_memory_bytes"].as_u64(), peak);
    assert!(rows.iter().all(|r| r["unsupported"].is_null()), "family B fits the generator");
}

#[test]
fn unsupported_tables_are_reported_and_refused_before_any_work() {
    // Family A goes up to 11 pieces (KRAABBvKAABB), within the index's 12 slots.
    let v = plan_json(&["--family", "a"]);
    assert_eq!(v["tables"].as_array().unwrap().len(), 324);
    assert_eq!(v["totals"]["unsupported"], 0);
    // 13 pieces: more than the index has slots for. Its dependencies (12 pieces at most) are
    // within the generator's entry numbers (any above them would be named).
    let v = plan_json(&["KRRAABBvKPAABB"]);
    let rows = v["tables"].as_array().unwrap();
    for r in rows {
        let why = r["unsupported"].as_str();
        let figures = ["entries", "peak_memory_bytes", "disk_bytes", "job_peak_memory_bytes", "seconds"];
        if r["pieces"] == 13 {
            // No index, so no count of entries and no estimate: null, not a number.
            assert!(figures.iter().all(|f| r[f].is_null()), "{r}");
            assert!(why.unwrap().contains("more than 12 pieces"), "{r}");
            continue;
        }
        let entries = r["entries"].as_u64().unwrap();
        match r["pieces"].as_u64().unwrap() {
            _ if entries > qiku::tablebase::generate::MAX_ENTRIES => {
                assert!(why.unwrap().contains("entries, more than"), "{r}")
            }
            _ => assert!(why.is_none(), "{r}"),
        }
    }
    let text = String::from_utf8(qiku_tb(&["plan", "KRRAABBvKPAABB", "--speed", "1"]).stdout).unwrap();
    assert!(text.contains("CANNOT GENERATE: KRRAABBvKPAABB"), "{text}");
    let row = text.lines().find(|l| l.contains(" KRRAABBvKPAABB ")).expect("its row");
    let words: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(words[2..7], ["13", "-", "-", "-", "-"], "{row}");

    let dir = tmp("tb_refuse");
    let d = dir.to_str().unwrap();
    let args = ["generate", "KRRAABBvKPAABB", "-d", d];
    let out = qiku_tb(&args);
    assert!(!out.status.success(), "{args:?} must fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot be generated yet") && err.contains("more than 12 pieces"), "{err}");
    // Nothing was written: the refusal comes before the first table.
    let written = std::fs::read_dir(&dir).map(|r| r.count()).unwrap_or(0);
    assert_eq!(written, 0);
}

#[test]
fn generate_makes_exactly_the_planned_tables() {
    let dir = tmp("tb_filters");
    let d = dir.to_str().unwrap();
    let filters = ["--max-attackers", "1", "--max-defenders", "1"];
    let mut plan_args = filters.to_vec();
    plan_args.extend(["-d", d]);
    let plan = plan_json(&plan_args);
    let planned = materials(&plan);
    // One attacker of four kinds, and no defender or one of four kinds (red or black advisor or
    // elephant).
    assert_eq!(planned.len(), 4 * 5);
    let mut args = vec!["generate", "--json"];
    args.extend(filters);
    args.extend(["-d", d]);
    let out = qiku_tb(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    // One attacking piece: the plan counts the light rule-aware pass for every table, and the
    // generator skipped both directions of each (so it held no copy of the values).
    for (t, r) in plan["tables"].as_array().unwrap().iter().zip(report["tables"].as_array().unwrap()) {
        assert_eq!(t["rules_pass"], "light", "{t}");
        assert_eq!(r["rules_skipped"], 2, "{r}");
    }
    let made: Vec<String> =
        report["tables"].as_array().unwrap().iter().map(|t| t["material"].as_str().unwrap().to_string()).collect();
    let want: Vec<String> = planned.iter().map(|m| m.to_string()).collect();
    assert_eq!(made, want);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".qtb"))
        .collect();
    files.sort();
    let mut want_files: Vec<String> = want.iter().map(|m| format!("{m}.qtb")).collect();
    want_files.sort();
    assert_eq!(files, want_files);
    // The plan's disk estimate counts the three files of each table (the default generation
    // writes the .qtb, the .qtr companion and the .qtw WDL file) and is within 25% of their
    // sizes, for all of them and for the rule-aware pass's two.
    let size = |ext: &str| -> u64 {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name().to_string_lossy().ends_with(ext))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    };
    let rules_files = size(".qtr") + size(".qtw");
    let measured = size(".qtb") + rules_files;
    let sum = |key: &str| plan["tables"].as_array().unwrap().iter().map(|t| t[key].as_u64().unwrap()).sum::<u64>();
    let (estimated, rules_estimated) = (sum("disk_bytes"), sum("rules_disk_bytes"));
    assert_eq!(plan["totals"]["disk_bytes"].as_u64(), Some(estimated));
    // Before generation nothing was present: all of it was still to write, against the free space there.
    assert_eq!(plan["totals"]["disk_bytes_to_write"].as_u64(), Some(estimated));
    assert!(plan["totals"]["free_disk_bytes"].as_u64() > Some(0), "{}", plan["totals"]);
    let within = |est: u64, real: u64| (est as f64 - real as f64).abs() <= 0.25 * real as f64;
    assert!(within(estimated, measured), "estimated {estimated} bytes, the files have {measured}");
    assert!(
        within(rules_estimated, rules_files),
        "estimated {rules_estimated} bytes, .qtr and .qtw have {rules_files}"
    );
    // Now every table is present, and the plan says so.
    let v = plan_json(&plan_args);
    assert!(v["tables"].as_array().unwrap().iter().all(|t| t["present"] == true));
    assert_eq!(v["totals"]["disk_bytes_to_write"], 0, "{}", v["totals"]);
    // A table counts as present only with all its files, each a table of its material: without
    // its .qtw, or with a .qtb cut short, it is still to write (`generate` makes it).
    let (gone, garbled) = (&v["tables"][0], &v["tables"][1]);
    let name = |t: &Value| t["material"].as_str().unwrap().to_string();
    std::fs::remove_file(dir.join(format!("{}.qtw", name(gone)))).unwrap();
    let qtb = dir.join(format!("{}.qtb", name(garbled)));
    let cut = std::fs::read(&qtb).unwrap()[..100].to_vec();
    std::fs::write(&qtb, cut).unwrap();
    let v = plan_json(&plan_args);
    let present: Vec<(String, bool)> =
        v["tables"].as_array().unwrap().iter().map(|t| (name(t), t["present"] == true)).collect();
    let absent: Vec<&String> = present.iter().filter(|(_, p)| !p).map(|(m, _)| m).collect();
    assert_eq!(absent, [&name(gone), &name(garbled)], "{present:?}");
    let still = gone["disk_bytes"].as_u64().unwrap() + garbled["disk_bytes"].as_u64().unwrap();
    assert_eq!(v["totals"]["disk_bytes_to_write"].as_u64(), Some(still), "{}", v["totals"]);
    // Without the rule-aware pass only the .qtb is written: the table without its .qtw is present.
    let mut plain_args = plan_args.clone();
    plain_args.push("--no-rules");
    let v = plan_json(&plain_args);
    let absent: Vec<String> =
        v["tables"].as_array().unwrap().iter().filter(|t| t["present"] != true).map(name).collect();
    assert_eq!(absent, [name(garbled)]);
    assert!(qiku_tb(&args).status.success());
    // A named material with a filter it does not pass is left out, with a note.
    let out = qiku_tb(&["plan", "KRNvKR", "KRvKA", "--max-pieces", "4", "--speed", "1", "-d", d]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("KRNvKR left out"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_names_the_rule_aware_pass_and_counts_no_copy_for_the_light_one() {
    let v = plan_json(&["KRvKAABB", "KNPvKAB", "KRvKN", "KRPvKR", "-d", "none"]);
    let rates = &v["rates"];
    let rate = |k: &str| rates[k].as_f64().unwrap();
    let rows = v["tables"].as_array().unwrap();
    let row = |m: &str| rows.iter().find(|r| r["material"] == m).unwrap_or_else(|| panic!("{m} planned"));
    // A side without attacking pieces (families A and B): light; attackers on both sides: full;
    // a weaker side's rook: checks.
    for (m, pass) in [("KRvKAABB", "light"), ("KNPvKAB", "light"), ("KRvKN", "full"), ("KRPvKR", "checks")] {
        assert_eq!(row(m)["rules_pass"], pass, "{m}");
    }
    // A job alone holds its inputs once with a bit per entry for both rules; the light pass adds
    // no rule-aware copy of the table's own values: its peak is the light rate's (the solve's),
    // below the full pass's.
    for m in ["KRvKAABB", "KNPvKAB"] {
        let r = row(m);
        let e = r["entries"].as_f64().unwrap();
        let inputs: f64 = r["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| entries_of(&i.as_str().unwrap().parse().unwrap()) as f64)
            .sum();
        let held = 1.0625 * rate("held_bytes_per_entry") * inputs;
        let own = rate("light_rules_bytes_per_entry").max(rate("solver_bytes_per_entry"));
        let job = r["job_peak_memory_bytes"].as_u64().unwrap();
        assert_eq!(job, (rate("base_bytes") + own * e + held) as u64, "{m}");
        let full = (rate("base_bytes") + rate("rules_bytes_per_entry") * e + held) as u64;
        assert!(job < full, "{m}: {job} against {full}");
    }
    // Without the pass there is none to name.
    let v = plan_json(&["KRvKAABB", "--no-rules", "-d", "none"]);
    assert!(v["tables"].as_array().unwrap().iter().all(|r| r["rules_pass"].is_null()));
    // The text output says which tables get the light pass and which the checks.
    let out = qiku_tb(&["plan", "KRvKAABB", "KRPvKR", "--speed", "1", "-d", "none"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let line =
        |m: &str| text.lines().find(|l| l.split_whitespace().nth(1) == Some(m)).unwrap_or_else(|| panic!("{text}"));
    assert!(line("KRvKAABB").contains("light rule-aware pass"), "{text}");
    assert!(line("KRPvKR").contains("many perpetual checks"), "{text}");
    assert!(!line("KRvKR").contains("rule-aware pass"), "{text}");
}

/// tablebases/README.md's counts are the real ones: 40 tables (120 files with their `.qtr` and
/// `.qtw`) up to 4 pieces, as `qiku demo` generates them, and 209 tables (627 files) up to 5.
#[test]
fn tablebases_readme_counts_are_true() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tablebases/README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let none = tmp("readme_counts");
    let four = plan_json(&["--max-pieces", "4", "-d", none.to_str().unwrap()]);
    let five = plan_json(&["-d", none.to_str().unwrap()]);
    let (n4, n5) = (materials(&four).len(), materials(&five).len());
    assert_eq!((n4, n5), (40, 209));
    assert!(readme.contains(&format!("({n4} tables, {} files,", 3 * n4)), "{readme}");
    assert!(readme.contains(&format!("the full set is {} files", 3 * n5)), "{readme}");
    assert!(readme.contains(&format!("all {n5} tables of up to 5 pieces")), "{readme}");
    // Generating the 4-piece set writes exactly that many files.
    let dir = tmp("readme_four");
    let out = qiku_tb(&["generate", "--max-pieces", "4", "-d", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files = std::fs::read_dir(&dir).unwrap().count();
    let bytes: u64 = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(files, 3 * n4);
    assert!(bytes < 1_000_000, "under 1 MB: {bytes}");
}

/// A set's progress says the time left once a percent of the plan's estimate is made: the plan's
/// estimates of the tables still to make, scaled by how long those made took against theirs.
#[test]
fn generate_says_the_time_left_by_the_plan() {
    let dir = tmp("time_left");
    let d = dir.to_str().unwrap();
    let out = qiku_tb(&["generate", "--max-pieces", "4", "-d", d]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let started: Vec<&str> = err.lines().filter(|l| l.ends_with("): started")).collect();
    assert_eq!(started.len(), 40, "{err}");
    // Nothing made yet: no time said.
    assert!(started[0].ends_with(" (1/40): started"), "{err}");
    // The last table: its own estimate is left, at least a second.
    let last = started[39];
    let (_, left) = last.split_once(" (40/40, about ").unwrap_or_else(|| panic!("{err}"));
    let seconds: u64 =
        left.strip_suffix(" s left): started").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{last}"));
    assert!(seconds >= 1, "{last}");
    // Every table kept: nothing made, nothing to scale by.
    let out = qiku_tb(&["generate", "--max-pieces", "4", "-d", d]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains(" left)"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without `--speed`, the plan times a small generation on this machine and gives its times for
/// it: the project machine's times over the measured speed, and it says so.
/// Speeds and memory sizes beyond what means anything are refused, each saying why.
#[test]
fn plan_refuses_speeds_and_sizes_out_of_range() {
    for speed in ["1e308", "0.0000001", "-1", "0", "inf", "fast"] {
        let out = qiku_tb(&["plan", "KRvK", "--speed", speed]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("give a number from 0.001 to 1000"), "{speed}: {err}");
    }
    let out = qiku_tb(&["plan", "KRvK", "--speed", "1", "--memory", "99999999999T"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("too large a size"), "{err}");
}

#[test]
fn plan_times_are_for_this_machine_unless_a_speed_is_given() {
    let out = qiku_tb(&["plan", "KRvKAABB", "--json", "-d", "none"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let here: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cal = &here["calibration"];
    let (seconds, speed) = (cal["seconds"].as_f64().unwrap(), cal["speed"].as_f64().unwrap());
    assert!(seconds > 0.0 && speed > 0.0, "{cal}");
    assert_eq!(here["speed"].as_f64(), Some(speed));
    let reference = plan_json(&["KRvKAABB", "-d", "none"]);
    assert!(reference["calibration"].is_null() && reference["speed"] == 1.0, "{reference}");
    // Times scale with the speed; memory and disk do not depend on the machine.
    for (a, b) in here["tables"].as_array().unwrap().iter().zip(reference["tables"].as_array().unwrap()) {
        let (t, t1) = (a["seconds"].as_f64().unwrap(), b["seconds"].as_f64().unwrap());
        assert!((t * speed - t1).abs() <= 1e-9 * t1.max(1.0), "{a} against {b}");
        assert_eq!((&a["job_peak_memory_bytes"], &a["disk_bytes"]), (&b["job_peak_memory_bytes"], &b["disk_bytes"]));
    }
    let text = String::from_utf8(qiku_tb(&["plan", "KRvKAABB", "-d", "none"]).stdout).unwrap();
    assert!(text.contains("Times are for this machine") && text.contains("--speed"), "{text}");
    assert!(text.contains("took from half to 1.7 times their estimate"), "the time's uncertainty is said: {text}");
    // A speed must be a positive number.
    for bad in ["0", "-1", "fast", "inf"] {
        let out = qiku_tb(&["plan", "KRvK", &format!("--speed={bad}")]);
        assert!(!out.status.success(), "--speed {bad} must be refused");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not a speed"), "{err}");
    }
}

/// The totals add up what can be generated: a selection with tables beyond the generator's
/// limits said 18446744073709551615 entries (its largest table's count saturated the sum).
#[test]
fn totals_leave_out_the_tables_that_cannot_be_generated() {
    let out = qiku_tb(&["plan", "KRNCPABvKRNCPAB", "--speed", "1", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["tables"].as_array().unwrap();
    let supported: u64 =
        rows.iter().filter(|r| r["unsupported"].is_null()).map(|r| r["entries"].as_u64().unwrap()).sum();
    assert!(v["totals"]["unsupported"].as_u64().unwrap() > 0, "{}", v["totals"]);
    assert_eq!(v["totals"]["entries"].as_u64(), Some(supported), "{}", v["totals"]);
    let text = String::from_utf8_lossy(&qiku_tb(&["plan", "KRNCPABvKRNCPAB", "--speed", "1"]).stdout).to_string();
    assert!(text.contains(&format!("{supported} entries (not counting the ")), "{}", text.lines().last().unwrap());
}
