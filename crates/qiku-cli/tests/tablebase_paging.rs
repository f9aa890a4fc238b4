//! `qiku-tb generate --memory`: a table over the budget is solved with its working arrays in
//! scratch files, writes the same bytes as in memory, and resumes from its last checkpoint after
//! the process is killed; `plan --memory` says which tables page and which cannot fit at all.

use crate::common::{qiku_tb, tmp};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
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

#[test]
fn a_paged_table_writes_the_same_bytes_and_resumes_after_a_kill() {
    let (mem, paged) = (tmp("paging_mem"), tmp("paging_paged"));
    let out = qiku_tb(&["generate", "KRPvKC", "-d", mem.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A checkpoint after initialisation and after every level from a second on; the run is
    // killed once the first is there, in the middle of the table's solve.
    let d = paged.to_str().unwrap();
    let args = ["generate", "KRPvKC", "-d", d, PAGED[0], PAGED[1], "--checkpoint-minutes", "0.01", "--json"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_qiku-tb"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let state = paged.join(".scratch").join("KRPvKC.state");
    let start = Instant::now();
    while !state.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first checkpoint");
        assert!(start.elapsed() < Duration::from_secs(300), "no checkpoint after 5 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!paged.join("KRPvKC.qtb").exists(), "killed before the table was written");
    assert!(state.exists(), "the checkpoint outlives the killed run");

    // Run again: it resumes from the checkpoint and writes the same bytes as the run in memory.
    let out = qiku_tb(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let row = report["tables"].as_array().unwrap().iter().find(|t| t["material"] == "KRPvKC").unwrap().clone();
    assert_eq!(row["paged"], true, "{row}");
    assert!(row["resumed_at_level"].as_u64().is_some(), "{row}");
    assert_eq!(files(&mem), files(&paged));
    for name in files(&mem) {
        let same = std::fs::read(mem.join(&name)).unwrap() == std::fs::read(paged.join(&name)).unwrap();
        assert!(same, "{name} differs between the paged and the in-memory run");
    }
    // The checkpoints are gone with the written table, the scratch files were never named, and
    // the empty scratch directory is removed.
    assert!(!paged.join(".scratch").exists());
    let _ = std::fs::remove_dir_all(&mem);
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
    assert!(String::from_utf8_lossy(&text.stdout).contains("PAGED"), "{}", String::from_utf8_lossy(&text.stdout));

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
