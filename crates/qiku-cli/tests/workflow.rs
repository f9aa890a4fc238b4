//! The Snakemake workflow (`workflow/Snakefile`) against `qiku-tb generate`: the same selection
//! through both gives byte-identical files, on one machine, after the workflow is killed with
//! SIGKILL and rerun, and through the Slurm profile on a one-machine Slurm cluster
//! (`workflow/slurm/start.sh`). Also `qiku-tb generate --only`, the command each job runs.
//!
//! Snakemake is found as `$QIKU_SNAKEMAKE` or `snakemake` on PATH (install it with
//! `pip install -r workflow/requirements.txt`); without it the workflow tests print why and
//! pass. The Slurm test runs where `sinfo` reports an idle node, and skips with a message
//! elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const QIKU_TB: &str = env!("CARGO_BIN_EXE_qiku-tb");

fn repo() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn snakefile() -> PathBuf {
    repo().join("workflow/Snakefile")
}

/// The Snakemake program, or `None` (with the reason printed) when there is none that runs.
fn snakemake() -> Option<String> {
    let program = std::env::var("QIKU_SNAKEMAKE").unwrap_or_else(|_| "snakemake".to_string());
    match Command::new(&program).arg("--version").output() {
        Ok(out) if out.status.success() => Some(program),
        _ => {
            println!(
                "SKIPPED: no working `{program}` (install the workflow's tools with \
                 `pip install -r workflow/requirements.txt`, or set QIKU_SNAKEMAKE)"
            );
            None
        }
    }
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Writes the plan of `selection` to `dir/plan.json` and returns its path and table count.
fn plan(dir: &Path, selection: &[&str]) -> (PathBuf, usize) {
    let out = run(Command::new(QIKU_TB)
        .arg("plan")
        .args(selection)
        .args(["--json", "--speed", "1"])
        .arg("-d")
        .arg(dir.join("none")));
    let path = dir.join("plan.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap().len();
    (path, tables)
}

/// `qiku-tb generate` of `selection` into `dir`, with its wall time.
fn generate(dir: &Path, selection: &[&str]) -> Duration {
    let start = Instant::now();
    run(Command::new(QIKU_TB).arg("generate").args(selection).arg("-d").arg(dir).arg("--json"));
    start.elapsed()
}

/// A Snakemake run of the workflow, its working directory `work`.
fn workflow(snakemake: &str, work: &Path, plan: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(snakemake);
    cmd.arg("-s")
        .arg(snakefile())
        .arg("--directory")
        .arg(work)
        .args(extra)
        .arg("--config")
        .arg(format!("plan={}", plan.display()))
        .arg(format!("dir={}", out.display()))
        .arg(format!("qiku_tb={QIKU_TB}"));
    cmd
}

/// The table files (`.qtb`, `.qtr`, `.qtw`) of a directory with their contents; any other
/// file at its top level but the logs directory is an error (a leftover temporary file, say).
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "logs" {
            continue;
        }
        assert!(
            [".qtb", ".qtr", ".qtw"].iter().any(|e| name.ends_with(e)) && !name.starts_with('.'),
            "unexpected file {name} in {}",
            dir.display()
        );
        out.insert(name, std::fs::read(entry.path()).unwrap());
    }
    out
}

/// Every table file of `got` is byte for byte the one in `want`, and both have the same files.
fn assert_same_tables(got: &Path, want: &Path, expected_tables: usize) {
    let (got, want) = (tables(got), tables(want));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
    assert_eq!(got.len(), 3 * expected_tables, "a .qtb, .qtr and .qtw per table");
    for (name, bytes) in &want {
        assert!(got[name] == *bytes, "{name} differs from `qiku-tb generate`'s");
    }
}

#[test]
fn generate_only_needs_its_inputs_and_writes_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(QIKU_TB).args(["generate", "--only", "KRvKA", "-d"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("KRvK.qtb") && err.contains("missing") && err.contains("--only"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
    run(Command::new(QIKU_TB).args(["generate", "--only", "KRvK", "-d"]).arg(dir.path()));
    assert_eq!(tables(dir.path()).len(), 3);
    run(Command::new(QIKU_TB).args(["generate", "--only", "KRvKA", "-d"]).arg(dir.path()));
    let full = tempfile::tempdir().unwrap();
    generate(full.path(), &["KRvKA"]);
    assert_same_tables(dir.path(), full.path(), 2);
    // A damaged input: named, and the job fails before writing anything.
    for ext in ["qtb", "qtr", "qtw"] {
        std::fs::remove_file(dir.path().join(format!("KRvKA.{ext}"))).unwrap();
    }
    let qtb = dir.path().join("KRvK.qtb");
    let mut bytes = std::fs::read(&qtb).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&qtb, &bytes).unwrap();
    let out = Command::new(QIKU_TB).args(["generate", "--only", "KRvKA", "-d"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("KRvKA needs a table that cannot be used") && err.contains("KRvK.qtb"), "{err}");
    assert!(!dir.path().join("KRvKA.qtb").exists());
}

/// The selection of the one-machine tests: every table of up to 4 pieces (40 tables).
const SET: [&str; 2] = ["--max-pieces", "4"];

#[test]
fn workflow_on_one_machine_matches_generate_even_when_killed() {
    let Some(snakemake) = snakemake() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (plan, count) = plan(tmp.path(), &SET);
    assert_eq!(count, 40);
    let reference = tmp.path().join("reference");
    let took = generate(&reference, &SET);
    println!("qiku-tb generate: {count} tables in {:.1} s", took.as_secs_f64());

    // Straight through.
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    let start = Instant::now();
    run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--quiet"]));
    println!("snakemake --cores 2: {count} tables in {:.1} s", start.elapsed().as_secs_f64());
    assert_same_tables(&out, &reference, count);
    // Nothing left to do.
    let again = run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--dry-run"]));
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(text.contains("Nothing to be done"), "{text}");
    // One file lost: that table alone is made again (the tables above it keep theirs, which
    // its new files, the same bytes, leave right), and the set is whole again.
    std::fs::remove_file(out.join("KRvK.qtw")).unwrap();
    let again = run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--dry-run"]));
    let text = String::from_utf8_lossy(&again.stdout);
    let jobs = text.lines().find_map(|l| l.strip_prefix("table")).map(|n| n.trim().to_string());
    assert_eq!(jobs.as_deref(), Some("1"), "{text}");
    run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--quiet"]));
    assert_same_tables(&out, &reference, count);

    // Killed with SIGKILL, the whole process group, once some tables are written; then rerun.
    let (work, out) = (tmp.path().join("work2"), tmp.path().join("tb2"));
    let mut cmd = workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--quiet"]);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let written = || std::fs::read_dir(&out).map(|d| d.filter(|e| e.is_ok()).count()).unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(300);
    while written() < 12 && Instant::now() < deadline {
        assert!(child.try_wait().unwrap().is_none(), "the workflow ended before it could be killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    run(Command::new("kill").args(["-KILL", "--"]).arg(format!("-{}", child.id())));
    let status = child.wait().unwrap();
    assert!(!status.success());
    // Whole table files only; the killed job's temporary file may be there too.
    let partial = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && [".qtb", ".qtr", ".qtw"].iter().any(|x| name.ends_with(x))
        })
        .count();
    assert!(partial < 3 * count, "killed after the end: {partial} files");
    println!("killed with {partial} of {} files written", 3 * count);
    // The killed run's lock on its working directory stays: Snakemake's own way to lift it,
    // then the same command again.
    run(&mut workflow(&snakemake, &work, &plan, &out, &["--unlock"]));
    let start = Instant::now();
    run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--quiet"]));
    println!("rerun: {:.1} s", start.elapsed().as_secs_f64());
    assert_same_tables(&out, &reference, count);
}

/// Whether a Slurm controller answers and a node is up.
fn slurm_up() -> bool {
    let out = Command::new("sinfo").args(["-h", "-o", "%t"]).output();
    match out {
        Ok(o) if o.status.success() => {
            let states = String::from_utf8_lossy(&o.stdout).to_string();
            if states.lines().any(|s| ["idle", "mix", "alloc"].contains(&s.trim())) {
                return true;
            }
            println!("SKIPPED: Slurm answers but no node is up (sinfo: {states:?}); see workflow/slurm/start.sh");
            false
        }
        _ => {
            println!("SKIPPED: no Slurm cluster (start one with `workflow/slurm/start.sh`, as root)");
            false
        }
    }
}

#[test]
fn workflow_through_slurm_matches_generate() {
    let Some(snakemake) = snakemake() else { return };
    if !slurm_up() {
        return;
    }
    let selection = ["KRvKA", "KCvKA"];
    let tmp = tempfile::tempdir().unwrap();
    let (plan, count) = plan(tmp.path(), &selection);
    assert_eq!(count, 4, "KRvK and KCvK as dependencies");
    let reference = tmp.path().join("reference");
    generate(&reference, &selection);
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    let profile = repo().join("workflow/profiles/slurm");
    let start = Instant::now();
    // The first status check after 2 s, not the plugin's default 40: these jobs take a second.
    let args = ["--profile", profile.to_str().unwrap(), "--slurm-init-seconds-before-status-checks", "2"];
    let result = run(&mut workflow(&snakemake, &work, &plan, &out, &args));
    let log = format!("{}{}", String::from_utf8_lossy(&result.stdout), String::from_utf8_lossy(&result.stderr));
    let submitted = log.lines().filter(|l| l.contains("has been submitted with SLURM jobid")).count();
    println!(
        "snakemake --profile slurm: {count} tables, {submitted} sbatch jobs, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(submitted, count, "one Slurm job per table:\n{log}");
    assert_same_tables(&out, &reference, count);
}

#[test]
fn a_memory_cap_gives_every_job_its_memory_as_the_budget() {
    let Some(snakemake) = snakemake() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // KRPvKCC needs about 4.5 GB in memory; within a 1,000 MB cap it is paged.
    let (plan, count) = plan(tmp.path(), &["KRPvKCC"]);
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    let mut cmd = workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--dry-run", "--printshellcmds"]);
    let result = run(cmd.arg("max_mem_mb=1000"));
    let log = format!("{}{}", String::from_utf8_lossy(&result.stdout), String::from_utf8_lossy(&result.stderr));
    let shells: Vec<&str> = log.lines().filter(|l| l.contains("generate --only")).collect();
    assert_eq!(shells.len(), count, "{log}");
    let big = shells.iter().find(|l| l.contains("KRPvKCC")).unwrap();
    assert!(big.contains("--memory 1000000000 --json"), "{big}");
    // A small table asks for the floor, 512 MB, and gets that as its budget.
    let small = shells.iter().find(|l| l.contains(" KRvK ")).unwrap();
    assert!(small.contains("--memory 512000000 --json"), "{small}");
}

#[test]
fn settings_are_checked_before_any_job() {
    let Some(snakemake) = snakemake() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (plan, _) = plan(tmp.path(), &["KRvK"]);
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    // Each a Snakemake start (about 7 s): one of each kind of check.
    let refused = [
        ("thread=4", "unknown setting `thread`; did you mean `threads`?"),
        ("compress=flase", "setting `compress=flase`: it must be true or false"),
        ("threads=0", "setting `threads=0`: it must be a whole number of at least 1"),
        ("max_mem_mb=1G", "setting `max_mem_mb=1G`: it must be a whole number of at least 1"),
        ("mem_factor=nan", "setting `mem_factor=nan`: it must be a number above 0"),
        // No value (YAML's null) is no value, not a directory named None.
        ("dir=", "setting `dir=`: it must be a file or directory name"),
    ];
    for (setting, message) in refused {
        let result =
            workflow(&snakemake, &work, &plan, &out, &["--cores", "1", "--dry-run"]).arg(setting).output().unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(!result.status.success(), "{setting} accepted:\n{err}");
        assert!(err.contains(&format!("qiku workflow: error: {message}")), "{setting}:\n{err}");
        assert!(!err.contains("Traceback") && !err.contains("File \""), "{setting}: a traceback\n{err}");
    }
    assert!(!out.exists(), "nothing made");
    // What is accepted, and what it means: `compress=no` gives the jobs `--no-compress`.
    let args = ["--cores", "1", "--dry-run", "--printshellcmds"];
    let result = run(workflow(&snakemake, &work, &plan, &out, &args).args(["compress=no", "threads=1", "max_mem_mb="]));
    let log = String::from_utf8_lossy(&result.stdout);
    let shell = log.lines().find(|l| l.contains("generate --only KRvK")).unwrap_or_else(|| panic!("{log}"));
    assert!(shell.contains("RAYON_NUM_THREADS=1 ") && shell.contains(" --no-compress --json"), "{shell}");
}

/// A plan with a table the generator cannot do (13 pieces: no index, so no estimates, `null` in
/// the plan) is refused before any job, naming it, unless `skip_unsupported=true` leaves it out
/// with every table needing it.
#[test]
fn tables_the_generator_cannot_do_are_refused_or_left_out() {
    let Some(snakemake) = snakemake() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (plan, tables) = plan(tmp.path(), &["KRRAABBvKPAABB"]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    let big = v["tables"].as_array().unwrap().iter().find(|t| t["pieces"] == 13).expect("the 13-piece table");
    assert!(big["job_peak_memory_bytes"].is_null() && big["seconds"].is_null(), "{big}");
    let unsupported = v["totals"]["unsupported"].as_u64().unwrap() as usize;
    assert!(unsupported >= 1, "{}", v["totals"]);
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    let refused = workflow(&snakemake, &work, &plan, &out, &["--cores", "1", "--dry-run"]).output().unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    let said = format!("qiku workflow: error: {unsupported} tables of {} cannot be generated yet", plan.display());
    assert!(err.contains(&said) && err.contains("`--config skip_unsupported=true` leaves them out"), "{err}");
    let args = ["--cores", "1", "--dry-run"];
    let result = run(workflow(&snakemake, &work, &plan, &out, &args).arg("skip_unsupported=true"));
    let err = String::from_utf8_lossy(&result.stderr);
    let left = err.lines().find(|l| l.starts_with("qiku workflow: leaving out ")).unwrap_or_else(|| panic!("{err}"));
    let number = |text: &str| text.split(' ').next().and_then(|n| n.parse::<usize>().ok()).unwrap();
    let out_count = number(left.trim_start_matches("qiku workflow: leaving out "));
    let kept = number(left.rsplit("; ").next().unwrap());
    assert!(out_count >= unsupported && kept == tables - out_count && kept > 0, "{left}");
    assert_eq!(table_jobs(&String::from_utf8_lossy(&result.stdout)), Some(kept), "{left}");
    assert!(!out.exists(), "nothing made");
}

/// The jobs a dry run's summary counts for the rule `table` (its line "table N"), or `None`.
fn table_jobs(dry_run: &str) -> Option<usize> {
    dry_run.lines().find_map(|l| l.strip_prefix("table")).and_then(|n| n.trim().parse().ok())
}

#[test]
fn tables_already_there_that_cannot_be_used_are_refused_before_any_job() {
    let Some(snakemake) = snakemake() else { return };
    let selection = ["KRvKA", "KCvKA", "KNvKA"];
    let tmp = tempfile::tempdir().unwrap();
    let (plan, count) = plan(tmp.path(), &selection);
    assert_eq!(count, 6, "KRvK, KCvK and KNvK as dependencies");
    let reference = tmp.path().join("reference");
    generate(&reference, &selection);
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    std::fs::create_dir(&out).unwrap();
    for (name, bytes) in tables(&reference) {
        std::fs::write(out.join(name), bytes).unwrap();
    }
    let file = |name: &str| out.join(name).display().to_string();
    // Cut short; a byte of the header changed (the counts: the header checksum no longer
    // matches); written by a build with other Zobrist keys (the key-set fingerprint, bytes 16 to
    // 23: docs/FORMAT.md).
    let bytes = std::fs::read(out.join("KRvK.qtb")).unwrap();
    std::fs::write(out.join("KRvK.qtb"), &bytes[..bytes.len() - 100]).unwrap();
    let mut bytes = std::fs::read(out.join("KCvKA.qtr")).unwrap();
    bytes[100] ^= 1;
    std::fs::write(out.join("KCvKA.qtr"), &bytes).unwrap();
    let mut bytes = std::fs::read(out.join("KNvKA.qtw")).unwrap();
    bytes[16..24].copy_from_slice(&0x0123_4567_89ab_cdefu64.to_le_bytes());
    std::fs::write(out.join("KNvKA.qtw"), &bytes).unwrap();
    let damaged = tables(&out);
    let kept = ["KCvK.qtb", "KNvK.qtb"].map(|n| std::fs::metadata(out.join(n)).unwrap().modified().unwrap());

    // Before any job, in a dry run too: one line naming each file with its cause and the
    // command that removes them; nothing is changed.
    for extra in [&["--dry-run"][..], &["--quiet"]] {
        let mut cmd = workflow(&snakemake, &work, &plan, &out, &["--cores", "2"]);
        let result = cmd.args(extra).output().unwrap();
        let err = String::from_utf8_lossy(&result.stderr);
        assert!(!result.status.success(), "{err}");
        let prefix = format!("qiku workflow: error: 3 table file(s) already in {} cannot be used: ", out.display());
        let line = err.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains(&format!("{} (invalid tablebase file (length: ", file("KRvK.qtb"))), "{line}");
        assert!(line.contains(&format!("{} (invalid tablebase file (header checksum: ", file("KCvKA.qtr"))), "{line}");
        let foreign = format!("{} (invalid tablebase file (fingerprint: key set 0x0123456789abcdef", file("KNvKA.qtw"));
        assert!(line.contains(&foreign), "{line}");
        assert!(!err.contains("Traceback"), "{err}");
        assert!(tables(&out) == damaged, "nothing changed");
    }
    // Removed as the line says, they are missing files: their tables are made again, with the
    // table reading KRvK.qtb (KRvKA), and no other.
    let err = workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--dry-run"]).output().unwrap().stderr;
    let err = String::from_utf8_lossy(&err);
    let rm = err.split("(`rm ").nth(1).and_then(|r| r.split('`').next()).unwrap_or_else(|| panic!("{err}"));
    assert_eq!(rm, format!("{} {} {}", file("KCvKA.qtr"), file("KNvKA.qtw"), file("KRvK.qtb")));
    for path in rm.split(' ') {
        std::fs::remove_file(path).unwrap();
    }
    let result = run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--dry-run"]));
    let text = String::from_utf8_lossy(&result.stdout);
    assert_eq!(table_jobs(&text), Some(4), "KRvK, KRvKA, KCvKA and KNvKA:\n{text}");
    run(&mut workflow(&snakemake, &work, &plan, &out, &["--cores", "2", "--quiet"]));
    assert_same_tables(&out, &reference, count);
    let after = ["KCvK.qtb", "KNvK.qtb"].map(|n| std::fs::metadata(out.join(n)).unwrap().modified().unwrap());
    assert_eq!(kept, after, "KCvK and KNvK kept");

    // A file that is no table file (someone's) under a table's name: refused, never replaced.
    std::fs::write(out.join("KNvK.qtw"), b"my notes\n").unwrap();
    let result = workflow(&snakemake, &work, &plan, &out, &["--cores", "2"]).output().unwrap();
    let err = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success(), "{err}");
    let says = format!("qiku workflow: error: {}: not a table file (it appears to be ", file("KNvK.qtw"));
    assert!(err.contains(&says) && err.contains("never replaced; move it away"), "{err}");
    assert!(!err.contains("Traceback"), "{err}");
    assert_eq!(std::fs::read(out.join("KNvK.qtw")).unwrap(), b"my notes\n");
}

#[test]
fn kubernetes_profile_plans_one_pod_per_table() {
    let Some(snakemake) = snakemake() else { return };
    // Only a dry run: there is no Kubernetes cluster here. It still loads the profile, the
    // executor and the storage plugin, and builds every job.
    let help = run(Command::new(&snakemake).arg("--help"));
    if !String::from_utf8_lossy(&help.stdout).contains("--kubernetes-namespace") {
        println!(
            "SKIPPED: Snakemake's Kubernetes executor is not installed \
             (`pip install -r workflow/requirements-kubernetes.txt`)"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (plan, count) = plan(tmp.path(), &["KRvKA", "KCvKA"]);
    let profile = repo().join("workflow/profiles/kubernetes");
    let (work, out) = (tmp.path().join("work"), tmp.path().join("tb"));
    let args = ["--profile", profile.to_str().unwrap(), "--dry-run"];
    let result = run(&mut workflow(&snakemake, &work, &plan, &out, &args));
    let text = String::from_utf8_lossy(&result.stdout);
    let jobs = text.lines().find_map(|l| l.strip_prefix("table")).map(|n| n.trim().to_string());
    assert_eq!(jobs.as_deref(), Some(count.to_string().as_str()), "{text}");
    assert!(text.contains("This was a dry-run"), "{text}");
}
