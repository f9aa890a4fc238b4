//! `qiku-tb generate --memory`: a table over the budget is solved with its working arrays in
//! scratch files, writes the same bytes as in memory, and resumes from its last checkpoint after
//! the process is killed, or from the checkpoint it saves when Ctrl-C stops it, and refuses a
//! doctored checkpoint, starting the table over; `plan --memory`
//! says which tables page and which cannot fit at all.

use crate::common::{qiku_tb, tmp};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    v.sort();
    v
}

/// KRPvKC (40 million entries) needs about 107 MiB in memory; within 100M it is paged.
const PAGED: [&str; 2] = ["--memory", "100M"];

/// The files of KRPvKC and its inputs generated in memory, once for the tests of this file.
fn in_memory() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let mem = tmp("paging_mem");
        let out = qiku_tb(&["generate", "KRPvKC", "-d", mem.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        mem
    })
}

/// The files of `dir` are those of the in-memory run, byte for byte.
fn same_as_in_memory(dir: &Path) {
    let mem = in_memory();
    assert_eq!(files(mem), files(dir));
    for name in files(mem) {
        let same = std::fs::read(mem.join(&name)).unwrap() == std::fs::read(dir.join(&name)).unwrap();
        assert!(same, "{name} differs between the paged and the in-memory run");
    }
}

/// The report's row of KRPvKC.
fn krpvkc_row(stdout: &[u8]) -> Value {
    let report: Value = serde_json::from_slice(stdout).unwrap();
    report["tables"].as_array().unwrap().iter().find(|t| t["material"] == "KRPvKC").unwrap().clone()
}

/// Starts `qiku-tb args` (a paged KRPvKC into `dir`, stderr to `stderr`) and waits for its first
/// checkpoint, the state file it returns with the running child.
fn start_until_checkpoint(args: &[&str], dir: &Path, stderr: Stdio) -> (std::process::Child, PathBuf) {
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(args).stdout(Stdio::null()).stderr(stderr).spawn().unwrap();
    let state = dir.join(".scratch").join("KRPvKC.state");
    let start = Instant::now();
    while !state.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first checkpoint");
        assert!(start.elapsed() < Duration::from_secs(300), "no checkpoint after 5 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, state)
}

#[test]
fn a_paged_table_writes_the_same_bytes_and_resumes_after_a_kill() {
    let paged = tmp("paging_paged");
    in_memory();

    // A checkpoint after initialisation and after every level from a second on; the run is
    // killed once the first is there, in the middle of the table's solve.
    let d = paged.to_str().unwrap();
    let args = ["generate", "KRPvKC", "-d", d, PAGED[0], PAGED[1], "--checkpoint-minutes", "0.01", "--json"];
    let (mut child, state) = start_until_checkpoint(&args, &paged, Stdio::null());
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!paged.join("KRPvKC.qtb").exists(), "killed before the table was written");
    assert!(state.exists(), "the checkpoint outlives the killed run");

    // Run again: it resumes from the checkpoint and writes the same bytes as the run in memory.
    let out = qiku_tb(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let row = krpvkc_row(&out.stdout);
    assert_eq!(row["paged"], true, "{row}");
    let level = row["resumed_at_level"].as_u64().expect("resumed");
    // Its progress lines (stderr is no terminal here) say so, and count the entries the
    // checkpoint had, not "0 of 40095000 (0%) done".
    let err = String::from_utf8_lossy(&out.stderr);
    let said = format!("KRPvKC: resumed at level {level} from the checkpoint of an interrupted run");
    assert!(err.lines().any(|l| l == said), "{err}");
    let done = err.lines().find(|l| l.starts_with("KRPvKC: ") && l.contains(" done in ")).expect("a done line");
    let n = qiku::tablebase::generate::entries_of(&"KRPvKC".parse().unwrap());
    assert!(done.starts_with(&format!("KRPvKC: {n} of {n} (100%) done in ")), "{done}");
    same_as_in_memory(&paged);
    // The checkpoints are gone with the written table, the scratch files were never named, and
    // the empty scratch directory is removed.
    assert!(!paged.join(".scratch").exists());
    let _ = std::fs::remove_dir_all(&paged);
}

/// Ctrl-C in the middle of a paged solve that checkpoints only after its initialisation: exit
/// status 130, a message saying what is kept and how to go on, and a checkpoint saved at the
/// level it stopped at, which the next run resumes from (a level after the first) to the same
/// bytes as the run in memory.
#[test]
fn ctrl_c_saves_a_paged_solve_for_the_next_run() {
    let paged = tmp("paging_stopped");
    in_memory();
    let d = paged.to_str().unwrap();
    let args = ["generate", "KRPvKC", "-d", d, PAGED[0], PAGED[1], "--checkpoint-minutes", "60", "--json"];
    let (child, _) = start_until_checkpoint(&args, &paged, Stdio::piped());
    // Levels under way (the next checkpoint would be an hour on).
    std::thread::sleep(Duration::from_millis(1000));
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill only sends a signal, to the child this test started and has not waited for.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let said = format!(
        "qiku-tb: interrupted while making KRPvKC; the files finished before are kept in {d}; run the same \
         command again to go on (its paged solve resumes from the checkpoint it saved)"
    );
    assert!(stderr.lines().any(|l| l == said), "{stderr}");
    assert!(!paged.join("KRPvKC.qtb").exists() && paged.join("KRvKC.qtb").exists());

    let out = qiku_tb(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let row = krpvkc_row(&out.stdout);
    assert!(row["resumed_at_level"].as_u64().is_some_and(|l| l > 0), "{row}");
    same_as_in_memory(&paged);
    let _ = std::fs::remove_dir_all(&paged);
}

/// The state file at `state` with one entry, 2^60, put in its far frontier and its checksum
/// made again (FNV-1a of the bytes before it), as anyone can: the doctoring that made the solver
/// index out of bounds. Its words: the magic, the identity, the generation, the level, the
/// horizon, the waiting list (length, entries), the far levels (count, then each level and its
/// list), the far frontier (length, entries), the frontier flags, the pending wins, the checksum.
fn doctor_far_frontier(state: &Path) {
    let bytes = std::fs::read(state).unwrap();
    assert!(bytes.starts_with(b"QIKUCKP1"));
    let mut w: Vec<u64> =
        bytes[8..bytes.len() - 8].chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let far_count_at = 5 + w[4] as usize;
    assert_eq!(w[far_count_at], 0, "far levels in the first checkpoint");
    let frontier_at = far_count_at + 1;
    assert_eq!(w[frontier_at], 0, "a far frontier in the first checkpoint");
    w[frontier_at] = 1;
    w.insert(frontier_at + 1, 1 << 60);
    let mut out = b"QIKUCKP1".to_vec();
    for x in &w {
        out.extend_from_slice(&x.to_le_bytes());
    }
    let sum = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    out.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(state, out).unwrap();
}

/// A paged run killed after its first checkpoint, whose state file is then doctored (an entry of
/// 2^60, the checksum made again): the next run refuses it in one line naming the file and why,
/// starts the table over (no panic, exit status 0) and writes the same bytes as the run in memory.
#[test]
fn a_doctored_checkpoint_is_refused_and_the_table_made_afresh() {
    let paged = tmp("paging_doctored");
    in_memory();
    let d = paged.to_str().unwrap();
    let args = ["generate", "KRPvKC", "-d", d, PAGED[0], PAGED[1], "--checkpoint-minutes", "60", "--json"];
    let (mut child, state) = start_until_checkpoint(&args, &paged, Stdio::null());
    child.kill().unwrap();
    child.wait().unwrap();
    doctor_far_frontier(&state);
    let out = qiku_tb(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let said = format!(
        "KRPvKC: checkpoint file {} refused: far frontier entry 1152921504606846976 is past the table's 40095000 \
         entries; starting this table over",
        state.display()
    );
    assert!(err.lines().any(|l| l == said), "{err}");
    let row = krpvkc_row(&out.stdout);
    assert!(row["paged"] == true && row["resumed_at_level"].is_null(), "{row}");
    same_as_in_memory(&paged);
    assert!(!paged.join(".scratch").exists());
    let _ = std::fs::remove_dir_all(&paged);
}

#[test]
fn plan_says_which_tables_page_and_generate_refuses_what_cannot_fit() {
    let plan = |budget: &str| -> Value {
        let out = qiku_tb(&["plan", "KRPvKC", "--json", "--speed", "1", "--memory", budget]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let mode = |v: &Value, m: &str| -> String {
        let rows = v["tables"].as_array().unwrap();
        rows.iter().find(|t| t["material"] == m).unwrap()["memory"]["mode"].as_str().unwrap().to_string()
    };
    let v = plan("100M");
    assert_eq!(mode(&v, "KRPvKC"), "paged");
    assert_eq!(mode(&v, "KRvKC"), "in_memory");
    assert_eq!((v["totals"]["paged"].as_u64(), v["totals"]["not_within_memory"].as_u64()), (Some(1), Some(0)));
    // The whole set within the budget: no decoded copies are kept across tables under it.
    let within = v["totals"]["peak_memory_bytes_within_memory"].as_f64().unwrap();
    assert!(within <= 100.0 * 1024.0 * 1024.0, "{}", v["totals"]);
    assert!(v["totals"]["peak_memory_bytes"].as_f64().unwrap() > within);
    let refused = plan("10M");
    assert_eq!(mode(&refused, "KRPvKC"), "refused");
    // The totals agree with the rows: the refused table is counted as such, and its memory and
    // time are not in the totals within the budget.
    assert_eq!(refused["totals"]["not_within_memory"].as_u64(), Some(1));
    let krpvkc = refused["tables"].as_array().unwrap().iter().find(|t| t["material"] == "KRPvKC").unwrap().clone();
    let within = refused["totals"]["peak_memory_bytes_within_memory"].as_f64().unwrap();
    assert!(within < krpvkc["peak_memory_bytes"].as_f64().unwrap());
    let time = refused["totals"]["seconds_within_memory"].as_f64().unwrap();
    let all = refused["totals"]["seconds"].as_f64().unwrap();
    assert!((all - krpvkc["seconds"].as_f64().unwrap() - time).abs() < 1e-6 * all, "{}", refused["totals"]);
    let text = qiku_tb(&["plan", "KRPvKC", "--speed", "1", "--memory", "10M"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("1 cannot be generated within it, not counted"), "{text}");
    assert!(text.contains("1 table(s) cannot be generated within --memory 10.0 MiB"), "{text}");
    let text = qiku_tb(&["plan", "KRPvKC", "--speed", "1", "--memory", "100M"]);
    let text = String::from_utf8_lossy(&text.stdout);
    // The paged table's line gives the budget as its peak, as the totals count it.
    let line = text.lines().find(|l| l.contains(" KRPvKC ")).unwrap();
    assert!(line.contains("PAGED") && line.contains(" 100.0 MiB "), "{line}");

    // Refused before any work, with the size it would need.
    let dir = tmp("paging_refused");
    let out = qiku_tb(&["generate", "KRPvKC", "-d", dir.to_str().unwrap(), "--memory", "10M"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot be generated within --memory 10 MiB"), "{err}");
    assert!(!dir.join("KRPvKC.qtb").exists() && !dir.join("KRvKC.qtb").exists(), "no work was done");
    // A scratch directory that cannot be made (under a file): named, with what to do.
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let scratch = file.join("scratch");
    let out = qiku_tb(&[
        "generate",
        "KRPvKC",
        "-d",
        dir.to_str().unwrap(),
        "--memory",
        "100M",
        "--scratch",
        scratch.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("give a writable scratch directory"), "{err}");
    let bad = qiku_tb(&["generate", "KRvK", "-d", dir.to_str().unwrap(), "--memory", "lots"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a size"), "{}", String::from_utf8_lossy(&bad.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checkpoints of a paged run that was killed go with the table also when the next run makes
/// it in memory (they stayed, the size of the table's working arrays, until removed by hand), and
/// the emptied scratch directory with them.
#[test]
fn checkpoints_go_with_their_table_made_in_memory() {
    let dir = tmp("paging_stale");
    let scratch = dir.join(".scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    for name in ["KRvKC.state", "KRvKC.values.2", "KRvKC.bits.2"] {
        std::fs::write(scratch.join(name), b"left by a killed paged run").unwrap();
    }
    let out = qiku_tb(&["generate", "KRvKC", "-d", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("KRvKC.qtb").is_file());
    assert!(!scratch.exists(), "left: {:?}", std::fs::read_dir(&scratch).map(|d| d.count()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_memory_a_table_above_a_control_groups_limit_is_refused_before_any_work() {
    // A container's or a job's memory limit, which the system's free memory does not show: the
    // generator was stopped by the system part way through such a table.
    let Some(group) = crate::common::LimitedGroup::or_skip(192 << 20) else { return };
    let exe = env!("CARGO_BIN_EXE_qiku-tb");
    let dir = tmp("tb-cgroup-limit");
    // KRNvKR needs about 275 MiB in memory, its smaller tables less. The plan for this machine
    // marks the one table `generate` refuses.
    let out = group.command(exe).args(["plan", "KRNvKR", "--json", "-d"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let available = plan["totals"]["available_memory_bytes"].as_u64().unwrap();
    assert!(available <= 192 << 20, "{available}");
    assert_eq!(plan["totals"]["over_available_memory"], 1);
    let over: Vec<&str> = plan["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["fits_available_memory"] == false)
        .map(|t| t["material"].as_str().unwrap())
        .collect();
    assert_eq!(over, ["KRNvKR"]);
    assert!(plan["tables"].as_array().unwrap().iter().all(|t| t["fits_available_memory"].is_boolean()));
    let out = group.command(exe).args(["plan", "KRNvKR", "-d"]).arg(&dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text.lines().find(|l| l.contains(" KRNvKR ")).unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("NOT ENOUGH MEMORY: needs ") && row.contains("`generate` refuses it without --memory"),
        "{row}"
    );
    assert!(text.contains("1 table(s) need more memory than is available here ("), "{text}");
    // With --speed the plan may be for other machines: nothing is checked against this one.
    let out = group.command(exe).args(["plan", "KRNvKR", "--json", "--speed", "1", "-d"]).arg(&dir).output().unwrap();
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        plan["totals"]["available_memory_bytes"].is_null() && plan["totals"].get("over_available_memory").is_none()
    );
    let out = group.command(exe).args(["generate", "KRNvKR", "-d"]).arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("KRNvKR: needs about ") && stderr.contains("MiB is available here"), "{stderr}");
    assert!(stderr.contains("give --memory SIZE of at most that"), "{stderr}");
    // Refused before any work: not even the smaller tables were made.
    assert_eq!(files(&dir), Vec::<String>::new());
    // A table within the limit is generated there as anywhere.
    let out = group.command(exe).args(["generate", "KRvKN", "-d"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(files(&dir).contains(&"KRvKN.qtb".to_string()), "{:?}", files(&dir));
}
