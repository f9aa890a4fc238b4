//! Table files: deterministic bytes for any thread count, refusal of damaged or foreign files
//! (an error, never a panic), resumed generation, verify catching a wrong value (also where a
//! companion equal to the plain values is checked with them), and the CLI's JSON output.

use crate::tablebase_common;

use qiku::tablebase::format::{self, TableFile};
use qiku::tablebase::generate::{self, generate_set, verify_table, GenerateOptions, TableCache};
use qiku::tablebase::{file_name, Material, Tablebases, TbError};
use qiku::Position;
use std::path::{Path, PathBuf};
use std::process::Command;

fn opts(dir: &Path) -> GenerateOptions {
    GenerateOptions::new(dir)
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn generate_with_threads(threads: usize, dir: &Path, materials: &[&str]) {
    let ms: Vec<Material> = materials.iter().map(|m| m.parse().unwrap()).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| generate_set(&ms, &opts(dir))).unwrap();
}

#[test]
fn files_are_identical_for_any_thread_count() {
    let (a, b) = (tmp("tb_threads_1"), tmp("tb_threads_3"));
    generate_with_threads(1, &a, &["KRvKN", "KCvKA"]);
    generate_with_threads(3, &b, &["KRvKN", "KCvKA"]);
    let mut names: Vec<_> = std::fs::read_dir(&a).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    // KRvKN, KCvKA, KRvK, KNvK, KCvK, each with its .qtr companion (KRvKN's changes 1,597 entries)
    // and its .qtw WDL file.
    assert_eq!(names.len(), 15, "{names:?}");
    for n in names {
        assert_eq!(std::fs::read(a.join(&n)).unwrap(), std::fs::read(b.join(&n)).unwrap(), "{n:?}");
    }
}

#[test]
fn damaged_and_foreign_files_are_refused() {
    let dir = tmp("tb_damaged");
    generate_with_threads(2, &dir, &["KRvK", "KNvK"]);
    let path = dir.join("KRvK.qtb");
    let good = std::fs::read(&path).unwrap();
    let open_err = |bytes: &[u8]| -> TbError {
        std::fs::write(&path, bytes).unwrap();
        TableFile::open(&path).err().expect("damaged file must be refused")
    };
    // Truncated anywhere.
    for cut in [0, 10, 100, 255, 256, good.len() / 2, good.len() - 1] {
        assert!(matches!(open_err(&good[..cut]), TbError::Corrupt { .. }), "cut at {cut}");
    }
    // Foreign: wrong magic, wrong fingerprint, wrong version, random bytes.
    let mut b = good.clone();
    b[0] = b'X';
    assert!(open_err(&b).to_string().contains("magic"));
    let mut b = good.clone();
    b[16] ^= 1;
    assert!(open_err(&b).to_string().contains("fingerprint"));
    let mut b = good.clone();
    b[8] = 9;
    assert!(open_err(&b).to_string().contains("version"));
    // A file of the older index scheme (kings, advisors and elephants placed apart) is refused
    // with what to do; an unknown scheme names itself.
    let mut b = good.clone();
    b[64..68].copy_from_slice(&1u32.to_le_bytes());
    let message = open_err(&b).to_string();
    assert!(
        message.contains("index scheme: 1, written by an older qiku-tb") && message.contains("qiku-tb generate"),
        "{message}"
    );
    b[64..68].copy_from_slice(&7u32.to_le_bytes());
    let message = open_err(&b).to_string();
    assert!(message.contains("index scheme: 7, this reader knows 2"), "{message}");
    assert!(matches!(open_err(&vec![7u8; 5000]), TbError::Corrupt { .. }));
    // Any flipped header or block-index byte is caught by the header checksum (or a field check).
    for at in (0..256 + 24).step_by(7) {
        let mut b = good.clone();
        b[at] ^= 0x40;
        assert!(matches!(open_err(&b), TbError::Corrupt { .. }), "byte {at}");
    }
    // A damaged value block opens but fails when read: at probe time and in decode/verify.
    let mut b = good.clone();
    let last = b.len() - 3;
    b[last] ^= 0xff;
    std::fs::write(&path, &b).unwrap();
    let f = TableFile::open(&path).unwrap();
    assert!(f.decode_all().is_err());
    let tb = Tablebases::open(&dir).unwrap();
    let mut errors = 0;
    for pos in tablebase_common::all_positions("KRvK".parse().unwrap()) {
        if tb.probe(&pos).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 0, "probing the damaged block must fail");
    // A garbage file under a table's name is an error at probe time, not a panic.
    std::fs::write(&path, b"not a table").unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    assert!(tb.probe(&pos).is_err());
    // Other tables in the directory still work.
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1").unwrap();
    assert!(tb.probe(&pos).unwrap().is_some());
}

#[test]
fn interrupted_generation_resumes() {
    let dir = tmp("tb_resume");
    generate_with_threads(2, &dir, &["KRvKA"]);
    let before = std::fs::read(dir.join("KRvKA.qtb")).unwrap();
    // Simulate an interruption: a leftover temporary file and a damaged table.
    std::fs::write(dir.join(".KRvKA.qtb.tmp-12345"), b"partial").unwrap();
    let mut damaged = std::fs::read(dir.join("KRvK.qtb")).unwrap();
    let n = damaged.len();
    damaged.truncate(n - 5);
    std::fs::write(dir.join("KRvK.qtb"), damaged).unwrap();
    let reports = generate_set(&["KRvKA".parse().unwrap()], &opts(&dir)).unwrap();
    let kept: Vec<(&str, bool)> = reports.iter().map(|r| (r.material.as_str(), r.kept)).collect();
    assert_eq!(kept, [("KRvK", false), ("KRvKA", true)]);
    assert!(!dir.join(".KRvKA.qtb.tmp-12345").exists());
    assert_eq!(std::fs::read(dir.join("KRvKA.qtb")).unwrap(), before);
    TableFile::open(&dir.join("KRvK.qtb")).unwrap().decode_all().unwrap();
}

/// On a directory shared by several machines, `generate` removes the leftovers of this
/// machine's dead runs, leaves another machine's (whose processes it cannot see), and says which.
#[test]
fn other_machines_leftovers_are_left_and_named() {
    let dir = tmp("tb_shared_dir");
    generate_with_threads(1, &dir, &["KRvK"]);
    let theirs = dir.join(".KRvKA.qtb.4194999@other-node-7.Ab12Cd.tmp");
    std::fs::write(&theirs, vec![0u8; 4096]).unwrap();
    // The same dead PID on this machine (names without a machine are judged as this machine's).
    let ours = dir.join(".KRvKA.qtb.4194999.Ef34Gh.tmp");
    std::fs::write(&ours, b"partial").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(["generate", "KRvKA", "-d"]).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!ours.exists(), "this machine's dead run's leftover is removed");
    assert!(theirs.exists(), "another machine's is not this run's to judge");
    assert!(
        err.contains("left alone: 1 temporary file(s) of other machines")
            && err.contains(".KRvKA.qtb.4194999@other-node-7.Ab12Cd.tmp")
            && err.contains("4.0 KiB")
            && err.contains("once no qiku-tb job runs on other-node-7"),
        "{err}"
    );
    TableFile::open(&dir.join("KRvKA.qtb")).unwrap().decode_all().unwrap();
}

#[test]
fn verify_catches_a_wrong_value() {
    let dir = tmp("tb_tamper");
    generate_with_threads(2, &dir, &["KNvK"]);
    let m: Material = "KNvK".parse().unwrap();
    let path = dir.join(file_name(m));
    verify_table(&dir, m, &mut TableCache::new()).unwrap();
    let mut table = generate::load(&path).unwrap();
    // Turn one win into a draw, with consistent checksums and counts: only the values are wrong.
    let i = table.codes().iter().position(|&v| v == qiku::tablebase::format::code(5)).unwrap();
    table.codes_mut()[i] = qiku::tablebase::format::DRAW;
    let counts = table.counts();
    format::write_atomic(&path, &format::encode(m, table.codes(), &counts, true).unwrap()).unwrap();
    let err = verify_table(&dir, m, &mut TableCache::new()).unwrap_err();
    assert!(matches!(err, TbError::Mismatch { .. }), "{err}");
    // The command's JSON report says which file failed and why, and the exit status is a failure.
    let out = Command::new(env!("CARGO_BIN_EXE_qiku-tb"))
        .args(["verify", "KNvK", "-d", dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!out.status.success());
    assert_eq!((v["verified"].as_u64(), v["failed"].as_u64()), (Some(0), Some(1)), "{v}");
    let table = &v["tables"][0];
    assert_eq!((&table["material"], &table["passed"]), (&"KNvK".into(), &false.into()), "{v}");
    assert_eq!(table["table"]["status"], "failed", "{v}");
    assert!(table["table"]["error"].as_str().unwrap().contains(&err.to_string()), "{v}");
}

#[test]
fn cli_probe_and_stats_print_json() {
    let dir = tmp("tb_cli");
    let exe = env!("CARGO_BIN_EXE_qiku-tb");
    let run = |args: &[&str]| {
        let out = Command::new(exe).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let d = dir.to_str().unwrap();
    run(&["generate", "KRvK", "-d", d]);
    let v: serde_json::Value =
        serde_json::from_str(&run(&["probe", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "-d", d, "--json"])).unwrap();
    assert_eq!(v["wdl"], "win");
    assert_eq!(v["dtm"], 1, "Rd1 mates: the open e-file keeps the black king off e9");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap().moves().len());
    assert!(moves.iter().any(|m| m["move"] == "e1d1" && m["wdl"] == "win" && m["dtm"] == 1));
    assert!(moves.iter().all(|m| m["move"].as_str().unwrap().len() == 4));
    // Black to move with the rook: the KRvK table seen with colors swapped, a loss for red.
    let v: serde_json::Value =
        serde_json::from_str(&run(&["probe", "4k4/4r4/9/9/9/9/9/9/9/3K5 w - - 0 1", "-d", d, "--json"])).unwrap();
    assert_eq!(v["wdl"], "loss");
    assert!(v["dtm"].as_i64().unwrap() < 0);
    let s: serde_json::Value = serde_json::from_str(&run(&["stats", "KRvK", "-d", d, "--json"])).unwrap();
    assert_eq!(s["material"], "KRvK");
    assert_eq!(s["red"]["legal"], 3834);
    assert_eq!(s["red"]["max_dtm"], 3);
    assert!(s["black"]["no_moves"].as_u64().unwrap() > 0);
    let s: serde_json::Value = serde_json::from_str(&run(&["stats", "KvKR", "-d", d, "--json"])).unwrap();
    assert_eq!(s["black"]["legal"], 3834, "KvKR: black to move is KRvK's red to move");
    assert!(run(&["verify", "-d", d]).contains("KRvK: ok"));
    assert!(run(&["info", "-d", d]).contains("KRvK"));
    // Bad input: a clear error and a failure status, no panic.
    let out = Command::new(exe).args(["probe", "not a fen", "-d", d]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid FEN"));
    let out = Command::new(exe).args(["generate", "KRRRvK", "-d", d]).output().unwrap();
    assert!(!out.status.success());
}

#[test]
fn cli_verify_checks_unchanged_companions_with_the_plain_values_and_still_fails_a_wrong_table() {
    let dir = tmp("tb_verify_lean");
    generate_with_threads(2, &dir, &["KRvKN", "KRvKA"]);
    let exe = env!("CARGO_BIN_EXE_qiku-tb");
    let d = dir.to_str().unwrap();
    let verify = || {
        let out = Command::new(exe).args(["verify", "-d", d]).output().unwrap();
        (out.status.success(), String::from_utf8(out.stdout).unwrap())
    };
    let (ok, text) = verify();
    assert!(ok, "{text}");
    // KRvKA's companion stores nothing: the plain check covers it. KRvKN's changes entries:
    // every one is checked under the rules.
    assert!(text.contains("KRvKA (Asian rules): ok (0 entries changed: the plain values, checked above, "), "{text}");
    assert!(text.contains("KRvKN (Asian rules): ok (1597 entries changed, "), "{text}");
    // One win of KRvKA turned into a draw, with consistent checksums and counts: the plain check
    // fails, naming the position, and so does the companion, which still stores nothing (its
    // header's counts are no longer those of the values it gives).
    let m: Material = "KRvKA".parse().unwrap();
    let path = dir.join(file_name(m));
    let mut table = generate::load(&path).unwrap();
    let i = table.codes().iter().position(|&v| v == format::code(5)).unwrap();
    table.codes_mut()[i] = format::DRAW;
    let counts = table.counts();
    format::write_atomic(&path, &format::encode(m, table.codes(), &counts, true).unwrap()).unwrap();
    let (ok, text) = verify();
    assert!(!ok, "{text}");
    assert!(text.contains("KRvKA: FAILED: KRvKA: "), "{text}");
    assert!(text.contains("KRvKA (Asian rules): FAILED: "), "{text}");
    assert!(text.contains("KRvKN (Asian rules): ok (1597 entries changed, "), "{text}");
}

/// A directory with more table files than the process may have open (120 files for the 40
/// tables of up to 4 pieces, under a limit of 40 descriptors) opens and probes in full: files are
/// kept open in a bounded pool and opened again when read, none is reported unusable.
#[test]
fn more_table_files_than_open_file_descriptors_all_probe() {
    use std::os::unix::process::CommandExt;
    let dir = tmp("tb_many_files");
    let d = dir.to_str().unwrap();
    let out = crate::common::qiku_tb(&["generate", "--max-pieces", "4", "-d", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 120);
    // KRvK sorts after most tables (KRvKR...), so it is opened again after the pool closed it.
    for fen in ["3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "3k5/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1"] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_qiku-tb"));
        cmd.args(["probe", fen, "-d", d]);
        // SAFETY: setrlimit is async-signal-safe; the closure allocates nothing and touches no
        // lock between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit { rlim_cur: 40, rlim_max: 40 };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        let out = cmd.output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && stderr.is_empty(), "{stderr}");
        assert!(stdout.contains("win, mate in"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tables' directory that is a file is named with what to do before any work (it said "File
/// exists (os error 17)"), and the file is left as it was.
#[test]
fn a_file_given_as_the_tables_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tables");
    std::fs::write(&file, b"my notes").unwrap();
    let err = generate_set(&["KRvK".parse::<Material>().unwrap()], &opts(&file)).unwrap_err();
    assert!(err.to_string().ends_with("a file, not a directory; give a directory for the tables (-d DIR)"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"my notes");
    let out = Command::new(env!("CARGO_BIN_EXE_qiku-tb"))
        .args(["generate", "KRvK", "-d", file.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("a file, not a directory"), "{stderr}");
}

/// `verify` of a table whose captures lead to tables that are not there says it could not check
/// it, naming the missing file (it read as a damaged table); `stats` gives the longest mate in
/// plies and the highest line rank apart (its `max_dtm` is either), and names a missing companion
/// with what to do.
#[test]
fn verify_and_stats_say_what_they_count_and_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (all, alone) = (dir.path().join("all"), dir.path().join("alone"));
    generate_set(&["KRvKN".parse::<Material>().unwrap()], &opts(&all)).unwrap();
    std::fs::create_dir_all(&alone).unwrap();
    for ext in ["qtb", "qtr", "qtw"] {
        std::fs::copy(all.join(format!("KRvKN.{ext}")), alone.join(format!("KRvKN.{ext}"))).unwrap();
    }
    let tb = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(args).output().unwrap();
    let out = tb(&["verify", "KRvKN", "-d", alone.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(text.contains("KRvKN: NOT CHECKED: its captures lead to ") && text.contains("which is missing"), "{text}");
    assert!(!text.contains("FAILED"), "{text}");
    let out = tb(&["verify", "KRvKN", "-d", alone.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!out.status.success());
    assert_eq!(v["tables"][0]["table"]["status"], "not_checked", "{v}");
    assert!(v["tables"][0]["table"]["missing"].as_str().unwrap().ends_with(".qtb"), "{v}");
    let out = tb(&["verify", "KRvKN", "-d", all.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let table = &v["tables"][0];
    assert!(out.status.success() && v["failed"] == 0 && table["passed"] == true, "{v}");
    // KRvKN: 386,433 legal index entries; the Asian rules change some (draws held only by perpetual check).
    assert_eq!(table["table"]["entries"], 386_433, "{v}");
    assert_eq!(table["wdl"]["entries"], 386_433, "{v}");
    assert!(table["rules"]["changed"].as_u64() > Some(0), "{v}");
    let out = tb(&["verify", "KRvKN", "-d", all.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("(entries: index entries, where a position and its mirror"),
        "{text}"
    );

    let out = tb(&["stats", "KRvKN", "-d", all.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (mate, rank) = (&v["longest_mate_plies"]["red"], &v["highest_line_rank"]["red"]);
    assert!(mate.as_u64().is_some() && rank.as_u64() > mate.as_u64(), "{v}");
    assert_eq!(rank, &v["red"]["max_dtm"], "{v}");
    std::fs::remove_file(alone.join("KRvKN.qtr")).unwrap();
    let out = tb(&["stats", "KRvKN", "-d", alone.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("KRvKN.qtr: missing") && err.ends_with("or count without the rules: --rules plain\n"),
        "{err}"
    );
}

/// `verify` reports each check's progress on stderr as `generate` does (plain lines: stderr is a
/// pipe here, so no terminal codes): per check a line when it starts, at 0 of the table's
/// entries, counts that never go back, and a last line at every entry; and stdout holds what it
/// held before, the check lines or, with `--json`, the report alone.
#[test]
fn verify_reports_progress_on_stderr_and_keeps_stdout_clean() {
    let dir = tmp("tb_verify_progress");
    let krkn: Material = "KRvKN".parse().unwrap();
    generate_set(&[krkn], &opts(&dir)).unwrap();
    let d = dir.to_str().unwrap();
    // The index's 45 king placements, 90 rook squares and 90 horse squares, for each side to move.
    let entries = generate::entries_of(&krkn);
    assert_eq!(entries, 2 * 45 * 90 * 90);
    let legal = verify_table(&dir, krkn, &mut TableCache::new()).unwrap();
    let labels = ["verifying KRvKN", "verifying KRvKN (Asian rules)", "verifying KRvKN (WDL)"];
    let progress_of = |stderr: &[u8]| {
        let err = String::from_utf8(stderr.to_vec()).unwrap();
        assert!(!err.contains('\x1b') && !err.contains('\r'), "{err}");
        // Every line is a check's progress line, the checks in order.
        let mut at = 0;
        for line in err.lines() {
            let label = labels.iter().position(|l| line.starts_with(&format!("{l}: "))).unwrap_or_else(|| {
                panic!("not a progress line: {line:?} in\n{err}");
            });
            assert!(label >= at, "{err}");
            at = label;
        }
        for label in labels {
            let lines: Vec<&str> = err.lines().filter(|l| l.starts_with(&format!("{label}: "))).collect();
            assert_eq!(lines.first().copied(), Some(format!("{label}: 0 of {entries} (0%) started").as_str()), "{err}");
            let last = lines.last().unwrap();
            assert!(last.starts_with(&format!("{label}: {entries} of {entries} (100%) done in ")), "{err}");
            let done: Vec<u64> =
                lines.iter().map(|l| l[label.len() + 2..].split(' ').next().unwrap().parse::<u64>().unwrap()).collect();
            assert!(done.windows(2).all(|w| w[0] <= w[1]), "{label}: {done:?}");
        }
    };

    let out = Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(["verify", "KRvKN", "-d", d]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    progress_of(&out.stderr);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[0].starts_with(&format!("KRvKN: ok ({legal} legal entries, ")), "{text}");
    let changed: u64 = lines[1]
        .strip_prefix("KRvKN (Asian rules): ok (")
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(changed > 0 && lines[1].contains(" entries changed, "), "{text}");
    assert!(lines[2].starts_with(&format!("KRvKN (WDL): ok ({legal} legal entries, ")), "{text}");
    assert_eq!(lines[4], "1 tables verified");

    let out =
        Command::new(env!("CARGO_BIN_EXE_qiku-tb")).args(["verify", "KRvKN", "-d", d, "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    progress_of(&out.stderr);
    // One line, the report, the same as ever but for the seconds each check took.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("}\n") && text.lines().count() == 1, "{text}");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for check in ["table", "rules", "wdl"] {
        let seconds = &mut v["tables"][0][check]["seconds"];
        assert!(seconds.as_f64().is_some_and(|s| s >= 0.0), "{text}");
        *seconds = 0.into();
    }
    let ok = |count: &str, n: u64| serde_json::json!({"status": "ok", count: n, "seconds": 0});
    let want = serde_json::json!({"dir": d, "tables": [{"material": "KRvKN", "passed": true, "status": "ok",
        "table": ok("entries", legal), "rules": ok("changed", changed), "wdl": ok("entries", legal)}],
        "verified": 1, "failed": 0, "not_checked": 0, "missing": 0,
        "entries_unit": "index entries (a position and its mirror image are one)"});
    assert_eq!(v, want);
    let _ = std::fs::remove_dir_all(&dir);
}
