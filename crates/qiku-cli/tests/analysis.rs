//! The analysis commands: `qiku analyze --multipv` (text and JSON), `qiku annotate`, and
//! progress reports when stderr is not a terminal.

use std::collections::HashSet;
use std::process::{Command, Output};

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("start qiku")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "status {:?}, stderr {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn analyze_multipv_text_lines() {
    let text = stdout(&qiku(&["analyze", "--depth", "4", "--multipv", "3"]));
    let last: Vec<&str> = text.lines().filter(|l| l.starts_with("depth 4 ")).collect();
    assert_eq!(last.len(), 3, "{text}");
    let mut firsts = HashSet::new();
    for (k, l) in last.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", k + 1)), "{l}");
        let pv = l.split(" pv ").nth(1).unwrap_or_else(|| panic!("no pv in {l}"));
        firsts.insert(pv.split_whitespace().next().unwrap().to_string());
    }
    assert_eq!(firsts.len(), 3, "{text}");
}

#[test]
fn analyze_multipv_json_is_capped_and_sorted() {
    // Black: a king and a pawn across the river, five legal moves; ask for twenty lines.
    let fen = "4k4/9/9/9/9/9/2p6/9/9/3K5 b";
    let out = stdout(&qiku(&["analyze", fen, "--depth", "3", "--multipv", "20", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = v["multipv"].as_array().unwrap();
    let legal = qiku::Position::from_fen(fen).unwrap().moves().len();
    assert_eq!(lines.len(), legal, "{out}");
    let firsts: HashSet<&str> = lines.iter().map(|l| l["pv"][0].as_str().unwrap()).collect();
    assert_eq!(firsts.len(), legal);
    let ks: Vec<u64> = lines.iter().map(|l| l["multipv"].as_u64().unwrap()).collect();
    assert_eq!(ks, (1..=legal as u64).collect::<Vec<_>>());
    assert_eq!(v["bestmove"], lines[0]["pv"][0]);
    // Out of range: refused.
    let out = qiku(&["analyze", "--depth", "1", "--multipv", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--multipv"));
}
