//! `qiku tune` end to end on a slice of the shipped master games: the figures it prints are
//! sensible (the fit lowers the training loss), do not depend on the thread count, `--emit`
//! writes Rust constants, and bad input is refused with a message naming it.

use std::process::{Command, Output};

const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/games/ccpd-iccs.pgn.zst");

fn tune(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).arg("tune").args(args).output().expect("start qiku")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn tune_lowers_the_loss_the_same_way_for_any_thread_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let emit = dir.path().join("tuned.rs");
    let emit = emit.to_str().expect("utf-8 path");
    let common = ["--pgn", GAMES, "--max-games", "150", "--epochs", "30", "--json", "--quiet"];
    let one = json(&tune(&[&common[..], &["--threads", "1", "--emit", emit]].concat()));
    let two = json(&tune(&[&common[..], &["--threads", "2"]].concat()));
    assert_eq!(one["games"], 150);
    let training = one["training"].as_u64().expect("training count");
    assert!(training > 1000, "{one}");
    assert!(one["validation"].as_u64().expect("validation count") > 0, "{one}");
    let (before, after) = (one["training_loss_before"].as_f64().unwrap(), one["training_loss_after"].as_f64().unwrap());
    assert!(after < before && after > 0.0, "{one}");
    // Everything but the time is the same with two threads.
    for key in
        ["training", "validation", "k", "training_loss_after", "validation_loss_after", "validation_eval_loss_after"]
    {
        assert_eq!(one[key], two[key], "{key}");
    }
    let rust = std::fs::read_to_string(emit).expect("--emit wrote the file");
    assert!(rust.contains("pub const MATERIAL: [Pair; 7]") && rust.contains("const PAWN_PST: Table"), "{rust}");
    assert!(rust.contains("pub const DEFAULT: Weights"), "{rust}");
}

#[test]
fn tune_refuses_bad_input() {
    let out = tune(&["--pgn", "no/such/games.pgn", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/games.pgn"), "{out:?}");
    let out = tune(&["--fix", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a parameter group"), "{out:?}");
    let out = tune(&["--validation", "90"]);
    assert_eq!(out.status.code(), Some(2));
}
