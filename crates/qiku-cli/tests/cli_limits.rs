//! Out-of-range numbers on the command line are refused with a message naming the flag and the
//! range, never accepted nor turned into an abort (stack overflow, allocation failure).

use std::process::{Command, Output};

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().expect("start binary")
}

/// The command failed cleanly: exit code 2 (clap's usage error) or 1, not a signal, and stderr
/// says `what`.
fn refused(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(1 | 2)), "status {:?}, stderr {stderr}", out.status);
    assert!(stderr.contains(what), "stderr lacks {what:?}: {stderr}");
}

#[test]
fn perft_depth_is_bounded() {
    // Depth 21000 used to recurse until the stack overflowed.
    let out = run(env!("CARGO_BIN_EXE_qiku"), &["perft", "21000"]);
    refused(&out, "from 0 to 64");
    let out = run(env!("CARGO_BIN_EXE_qiku"), &["perft", "2"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nodes 1920"));
}

/// `perft 0 --divide` counts what `perft 0` counts, the position itself: 1 node and no root move
/// (it said 44 and listed every move), in text and in JSON.
#[test]
fn perft_0_divided_is_one_node_and_no_move() {
    let qiku = env!("CARGO_BIN_EXE_qiku");
    for args in [&["perft", "0"][..], &["perft", "0", "--divide"]] {
        let out = run(qiku, args);
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.lines().next(), Some("nodes 1"), "{args:?}: {text}");
    }
    let out = run(qiku, &["perft", "0", "--divide", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 1, "{v}");
    assert_eq!(v["divide"], serde_json::json!({}), "{v}");
    let out = run(qiku, &["perft", "1", "--divide", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["nodes"].as_u64(), v["divide"].as_object().map(|d| d.len())), (Some(44), Some(44)), "{v}");
}

#[test]
fn analyze_hash_and_threads_are_range_checked() {
    let qiku = env!("CARGO_BIN_EXE_qiku");
    // 999999999 MiB used to abort the process on allocation failure.
    refused(&run(qiku, &["analyze", "--depth", "1", "--hash", "999999999"]), "from 1 to 65536");
    refused(&run(qiku, &["analyze", "--depth", "1", "--hash", "0"]), "from 1 to 65536");
    refused(&run(qiku, &["analyze", "--depth", "1", "--threads", "100000"]), "from 1 to 64");
    refused(&run(qiku, &["analyze", "--depth", "1", "--threads", "0"]), "from 1 to 64");
    // A search of 0 ms reported the same depth twice; the bounds are `match`'s.
    refused(&run(qiku, &["analyze", "--movetime", "0"]), "from 1 to 3600000");
    refused(&run(qiku, &["bench", "--hash", "0"]), "from 1 to 65536");
    refused(&run(qiku, &["match", "--engine", "a", "--engine", "b", "--concurrency", "100000"]), "from 1 to 256");
    let out = run(qiku, &["analyze", "--depth", "2", "--hash", "1", "--threads", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bestmove "));
}

#[test]
fn book_build_threads_are_range_checked() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    std::fs::write(&pgn, "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n").unwrap();
    let book = dir.path().join("b.qbk");
    let args = |t: &'static str| {
        vec![
            "build".to_string(),
            pgn.display().to_string(),
            "-o".into(),
            book.display().to_string(),
            "--threads".into(),
            t.into(),
        ]
    };
    let out = Command::new(env!("CARGO_BIN_EXE_qiku-book")).args(args("100000")).output().unwrap();
    refused(&out, "from 1 to 1024");
    assert!(!book.exists());
}

#[test]
fn match_limits_games_and_plies_of_zero_are_refused() {
    // They used to be accepted: `--games 0` printed "score 0.0/0 (50.0%)" and succeeded, the
    // limits of 0 were quietly raised to 1.
    let qiku = env!("CARGO_BIN_EXE_qiku");
    for (flag, range) in [
        ("--games", "from 1 to 4294967295"),
        ("--depth", "from 1 to 100"),
        ("--nodes", "from 1 to 18446744073709551615"),
        ("--movetime", "from 1 to 3600000"),
        ("--max-plies", "from 1 to 4294967295"),
    ] {
        let out = run(qiku, &["match", "--engine", qiku, "--engine", qiku, flag, "0"]);
        refused(&out, &format!("invalid value '0' for '{flag} <"));
        refused(&out, range);
        assert!(out.stdout.is_empty(), "{flag}: {}", String::from_utf8_lossy(&out.stdout));
    }
    refused(&run(qiku, &["match", "--engine", qiku, "--engine", qiku, "--depth", "101"]), "from 1 to 100");
}

#[test]
fn probe_depth_is_range_checked_like_every_other_depth() {
    // `--depth 1000` searched until killed and `--depth 0` was quietly depth 1.
    let qiku = env!("CARGO_BIN_EXE_qiku");
    for depth in ["0", "101", "1000"] {
        let out = crate::common::run_with_timeout(qiku, &["probe", "startpos", "--depth", depth], 30);
        refused(&out, &format!("invalid value '{depth}' for '--depth <"));
        refused(&out, "from 1 to 100");
    }
    let help = String::from_utf8_lossy(&run(qiku, &["probe", "--help"]).stdout).into_owned();
    assert!(help.contains("(1 to 100)"), "{help}");
}

#[test]
fn demo_max_pieces_is_range_checked_before_any_work() {
    // `--max-pieces 99` built the book and failed at the tables; 0 to 2 generated nothing.
    let qiku = env!("CARGO_BIN_EXE_qiku");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    for n in ["0", "1", "2", "13", "99"] {
        let out = crate::common::run_with_timeout(qiku, &["demo", "--root", root, "--max-pieces", n], 60);
        refused(&out, "from 3 to 12");
        assert!(out.stdout.is_empty(), "{n}: {}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{n}: the demo wrote files");
    }
    let help = String::from_utf8_lossy(&run(qiku, &["demo", "--help"]).stdout).into_owned();
    assert!(help.contains("3 to 12"), "{help}");
}

#[test]
fn options_that_act_only_with_another_are_refused_without_it() {
    // `qiku probe --policy games` without a book, and `qiku tune --lambda` without a scored
    // file, were taken and did nothing.
    let qiku = env!("CARGO_BIN_EXE_qiku");
    for (args, needed) in [
        (&["probe", "startpos", "--policy", "games"][..], "--book <BOOK>"),
        (&["probe", "startpos", "--min-games", "3"][..], "--book <BOOK>"),
        (&["probe", "startpos", "--min-share", "5"][..], "--book <BOOK>"),
        (&["tune", "--pgn", "games.pgn", "--lambda", "0.3"][..], "--scored <FILE>"),
    ] {
        let out = crate::common::run_with_timeout(qiku, args, 30);
        refused(&out, "the following required arguments were not provided");
        refused(&out, needed);
        assert!(out.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    }
}

/// A worker-thread count out of range in RAYON_NUM_THREADS is refused as `--threads` out of its
/// range is: rayon would start that many threads (99999 kept a KRvK generation running for half
/// an hour). Nothing is written; a count in range is used.
#[test]
fn worker_threads_from_the_environment_are_bounded() {
    let dir = std::env::temp_dir().join(format!("qiku_rayon_env_{}", std::process::id()));
    let d = dir.to_str().unwrap();
    for (bin, args) in [
        (env!("CARGO_BIN_EXE_qiku-tb"), &["generate", "KRvK", "-d", d][..]),
        (env!("CARGO_BIN_EXE_qiku-book"), &["build", "no-such.pgn", "-o", "x.qbk"][..]),
        (env!("CARGO_BIN_EXE_qiku"), &["perft", "1"][..]),
    ] {
        for value in ["99999", "two"] {
            let out = Command::new(bin).args(args).env("RAYON_NUM_THREADS", value).output().expect("start binary");
            assert_eq!(out.status.code(), Some(2), "{bin} {value}: {}", String::from_utf8_lossy(&out.stderr));
            refused(&out, &format!("RAYON_NUM_THREADS is \"{value}\""));
            refused(&out, "from 1 to 1024");
        }
    }
    assert!(!dir.exists(), "nothing may be made before the refusal");
    let out = Command::new(env!("CARGO_BIN_EXE_qiku-tb"))
        .args(["generate", "KRvK", "-d", d])
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("start qiku-tb");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("KRvK.qtb").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}
