//! One position, one answer: the KRvKN position that only the perpetual-check rule decides gets
//! the same verdict, with the rules and the unit stated, from the library, `qiku-tb probe`,
//! `qiku probe --tb` and the engine (UCI and UCCI), under the one default (the Asian rules);
//! and damaged or missing companions are named, never mistaken for absent tables.

use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{Rules, Tablebases, Wdl};
use qiku::Position;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Black to move; the rook checks forever unless black loses: a draw without the rule.
const FEN: &str = "4k4/9/9/8R/9/9/8n/9/9/5K3 b - - 0 1";
/// What every tool prints for it.
const VERDICT: &str = "loss by the perpetual-check rule: the side to move can only check forever \
                       (line rank 30, not plies to mate; asian rules)";

fn tables(dir: &Path) {
    generate_set(&["KRvKN".parse().unwrap()], &GenerateOptions::new(dir)).unwrap();
}

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The engine's lines up to `bestmove` after `go depth 2` in `FEN`, speaking `dialect`.
fn engine_lines(dir: &Path, ucci: bool) -> Vec<String> {
    engine_lines_for(dir, ucci, FEN, "go depth 2")
}

fn engine_lines_for(dir: &Path, ucci: bool, fen: &str, go: &str) -> Vec<String> {
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_qiku")).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    if ucci {
        writeln!(stdin, "ucci\nsetoption TablebasePath {}", dir.display()).unwrap();
    } else {
        writeln!(stdin, "setoption name TablebasePath value {}", dir.display()).unwrap();
    }
    writeln!(stdin, "position fen {fen}\n{go}").unwrap();
    let mut lines = Vec::new();
    loop {
        let mut l = String::new();
        assert!(out.read_line(&mut l).unwrap() > 0, "qiku closed its output: {lines:?}");
        let done = l.starts_with("bestmove");
        lines.push(l.trim_end().to_string());
        if done {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
    lines
}

#[test]
fn the_rule_decided_position_has_one_verdict_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let d = dir.path().to_str().unwrap();
    let pos = Position::from_fen(FEN).unwrap();

    // The library: the default rules are the Asian ones, in every probe.
    assert_eq!(Rules::default(), Rules::Asian);
    let tb = Tablebases::open(dir.path()).unwrap();
    let v = tb.verdict(&pos, Rules::default()).unwrap().unwrap();
    assert!(v.by_rule && v.unit() == "line rank" && v.rules == Rules::Asian, "{v:?}");
    assert_eq!((v.value.wdl, v.value.dtm.0), (Wdl::Loss, -30));
    assert_eq!(v.to_string(), VERDICT);
    assert_eq!(tb.probe(&pos).unwrap(), Some(v.value));
    assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Loss));
    assert_eq!(tb.move_values(&pos).unwrap(), tb.move_values_with(&pos, Rules::Asian).unwrap());
    assert_eq!(tb.best_moves(&pos).unwrap(), tb.best_moves_with(&pos, Rules::Asian).unwrap());
    let plain = tb.verdict(&pos, Rules::Plain).unwrap().unwrap();
    assert_eq!(plain.to_string(), "draw (plain rules)");

    // qiku-tb probe, text and JSON.
    let tb_out = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["probe", FEN, "-d", d]));
    assert_eq!(tb_out.lines().next(), Some(format!("KRvKN (black to move): {VERDICT}").as_str()), "{tb_out}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["probe", FEN, "-d", d, "--json"]))).unwrap();
    assert_eq!(
        (&json["rules"], &json["wdl"], &json["dtm"], &json["by_rule"], &json["unit"], &json["text"]),
        (&"asian".into(), &"loss".into(), &(-30).into(), &true.into(), &"line rank".into(), &VERDICT.into())
    );
    let best = json["best_moves"][0].as_str().unwrap().to_string();
    assert_eq!(
        json["best_moves_iccs"][0],
        json["moves"].as_array().unwrap().iter().find(|m| m["move"] == best.as_str()).unwrap()["iccs"]
    );
    let plain_out = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["probe", FEN, "-d", d, "--rules", "plain"]));
    assert_eq!(plain_out.lines().next(), Some("KRvKN (black to move): draw (plain rules)"));

    // qiku probe --tb: the same words, the same best move, the same choice of rules.
    let q = stdout(&run(env!("CARGO_BIN_EXE_qiku"), &["probe", FEN, "--tb", d]));
    assert_eq!(q.lines().next(), Some(format!("tablebase: {VERDICT} (best: {best})").as_str()), "{q}");
    let q = stdout(&run(env!("CARGO_BIN_EXE_qiku"), &["probe", FEN, "--tb", d, "--rules", "plain"]));
    assert!(q.starts_with("tablebase: draw (plain rules)"), "{q}");

    // The engine, UCI and UCCI: the verdict beside the score, which is no mate score.
    for ucci in [false, true] {
        let lines = engine_lines(dir.path(), ucci);
        assert!(lines.contains(&format!("info string tablebase move: {VERDICT}")), "{lines:?}");
        let scored: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(scored.len(), 1, "{lines:?}");
        assert!(!scored[0].contains("mate"), "a rule-decided loss is not a mate: {lines:?}");
        assert_eq!(lines.last().unwrap(), &format!("bestmove {best}"));
    }
}

#[test]
fn damaged_or_missing_companions_are_named() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let d = dir.path().to_str().unwrap();
    // A zero-length .qtr: both probes fail with the file's error, not "no table".
    let qtr = dir.path().join("KRvKN.qtr");
    let saved = std::fs::read(&qtr).unwrap();
    std::fs::write(&qtr, b"").unwrap();
    for (exe, args) in [
        (env!("CARGO_BIN_EXE_qiku"), vec!["probe", FEN, "--tb", d]),
        (env!("CARGO_BIN_EXE_qiku-tb"), vec!["probe", FEN, "-d", d]),
    ] {
        let o = run(exe, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("KRvKN.qtr"), "{args:?}: {err}");
        assert!(!String::from_utf8_lossy(&o.stdout).contains("no table"), "{args:?}");
    }
    // A won position of the same material too: the damaged companion is never silently skipped.
    let won = "4k4/9/9/8R/9/9/8n/9/9/5K3 w - - 0 1";
    let o = run(env!("CARGO_BIN_EXE_qiku"), &["probe", won, "--tb", d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("KRvKN.qtr"));
    // verify: the companion's check and the WDL file's fail, and the table counts once.
    let o = run(env!("CARGO_BIN_EXE_qiku-tb"), &["verify", "KRvKN", "-d", d]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.matches("FAILED").count(), 2, "{out}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 1 tables failed verification"), "{out}");

    // A missing .qtr: verify names it, not the intact .qtw.
    std::fs::remove_file(&qtr).unwrap();
    let o = run(env!("CARGO_BIN_EXE_qiku-tb"), &["verify", "KRvKN", "-d", d]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success());
    let wdl_line = out.lines().find(|l| l.starts_with("KRvKN (WDL)")).unwrap_or_else(|| panic!("{out}"));
    assert!(wdl_line.contains("KRvKN.qtr: missing"), "{out}");
    assert!(!wdl_line.contains("KRvKN.qtw"), "{out}");
    std::fs::write(&qtr, saved).unwrap();
    let o = run(env!("CARGO_BIN_EXE_qiku-tb"), &["verify", "KRvKN", "-d", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn generate_without_rules_says_no_wdl_file_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["generate", "KRvK", "-d", d, "--no-rules"]));
    assert!(out.contains("WDL files: none written (--no-rules"), "{out}");
    assert!(!out.contains("written, "), "{out}");
    assert!(!dir.path().join("KRvK.qtw").exists() && !dir.path().join("KRvK.qtr").exists());
}

/// `stats` under the Asian rules: the longest mate is the plain table's (the rule changes only
/// draws), and the rule's values are line ranks, said as such (they were printed as plies).
#[test]
fn stats_tell_mates_from_line_ranks() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let d = dir.path().to_str().unwrap();
    let asian = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["stats", "KRvKN", "-d", d]));
    assert!(
        asian.contains("red to move: 348021 legal")
            && asian.contains("longest mate 25 plies, line ranks up to 29, 624 decided by the rule"),
        "{asian}"
    );
    assert!(asian.contains("longest mate 26 plies, line ranks up to 30, 2570 decided by the rule"), "{asian}");
    let plain = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["stats", "KRvKN", "-d", d, "--rules", "plain"]));
    assert!(plain.contains("longest mate 25 plies\n") && !plain.contains("line rank"), "{plain}");
}

/// With the best moves left out (`searchmoves`, UCCI's `banmoves`), the verdict the engine says
/// is that of the move it plays, not the position's.
#[test]
fn the_engine_says_the_value_of_the_move_it_plays() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"; // e1d1 mates at once
    let all = engine_lines_for(dir.path(), false, fen, "go depth 3");
    assert!(all.contains(&"info string tablebase move: win, mate in 1 ply (asian rules)".to_string()), "{all:?}");
    assert_eq!(all.last().unwrap(), "bestmove e1d1");
    let some = engine_lines_for(dir.path(), false, fen, "go depth 3 searchmoves e1a1 e0f0");
    assert!(some.contains(&"info string tablebase move: win, mate in 3 plies (asian rules)".to_string()), "{some:?}");
    assert!(some.iter().any(|l| l.contains("score mate 2") && l.ends_with("pv e1a1")), "{some:?}");
    assert_eq!(some.last().unwrap(), "bestmove e1a1");
    let banned = engine_lines_for(dir.path(), true, fen, "banmoves e1d1 e1e8\ngo depth 3");
    assert!(banned.iter().any(|l| l == "info string tablebase move: win, mate in 3 plies (asian rules)"), "{banned:?}");
}

/// A win only the rule decides where the winner's line makes its quiet move into the checks: the
/// position ranks 29, its line move 31 (its position after the move plus one). The engine says
/// the position's verdict, as `qiku-tb probe` does, not the move's.
#[test]
fn the_engine_says_the_positions_rank_at_a_quiet_line_move() {
    const QUIET: &str = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
    const WIN: &str = "win by the perpetual-check rule: the opponent can only check forever \
                       (line rank 29, not plies to mate; asian rules)";
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let tb = Tablebases::open(dir.path()).unwrap();
    let pos = Position::from_fen(QUIET).unwrap();
    assert_eq!(tb.verdict(&pos, Rules::Asian).unwrap().unwrap().to_string(), WIN);
    let line = tb.best_moves(&pos).unwrap().unwrap();
    let moves = tb.move_verdicts(&pos, Rules::Asian).unwrap().unwrap();
    let on_line = moves.iter().find(|(m, _)| *m == line[0]).unwrap().1;
    assert!(on_line.by_rule && on_line.value.dtm.plies() == 31, "{on_line}");
    let probe = stdout(&run(env!("CARGO_BIN_EXE_qiku-tb"), &["probe", QUIET, "-d", dir.path().to_str().unwrap()]));
    assert_eq!(probe.lines().next(), Some(format!("KRvKN (red to move): {WIN}").as_str()), "{probe}");
    assert!(probe.contains("a move's line rank is its position's after it plus one, not plies"), "{probe}");
    for ucci in [false, true] {
        let lines = engine_lines_for(dir.path(), ucci, QUIET, "go depth 2");
        assert!(lines.contains(&format!("info string tablebase move: {WIN}")), "{lines:?}");
    }
}

/// A `.qtw` WDL file with a damaged block: `qiku probe --tb` fails naming it, as `qiku-tb probe`
/// does, for every position whose entry is in that block (it answered from the DTM files while
/// `qiku-tb probe` and the server failed).
#[test]
fn a_damaged_wdl_file_fails_both_probes() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let d = dir.path().to_str().unwrap();
    let qtw = dir.path().join("KRvKN.qtw");
    let mut bytes = std::fs::read(&qtw).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x41;
    std::fs::write(&qtw, bytes).unwrap();
    // The rook on every square of the board beside the kings and the knight of `FEN`: the
    // positions whose WDL entry the library cannot read.
    let tb = Tablebases::open(dir.path()).unwrap();
    let mut failing = Vec::new();
    for sq in 0..90 {
        let mut setup = qiku::Setup::from_fen(FEN).unwrap();
        let rook = setup.board.iter().position(|p| p.is_some_and(|p| p.char() == 'R')).unwrap();
        if setup.board[sq].is_some() {
            continue;
        }
        setup.board.swap(rook, sq);
        for turn in [qiku::Color::Red, qiku::Color::Black] {
            setup.turn = turn;
            if let Ok(pos) = Position::from_setup(&setup) {
                if tb.probe_wdl_with(&pos, Rules::Plain).is_err() {
                    failing.push(pos.fen());
                }
            }
        }
    }
    assert!(!failing.is_empty(), "no position with its WDL entry in the damaged block");
    for fen in failing.iter().take(3) {
        for (exe, args) in [
            (env!("CARGO_BIN_EXE_qiku"), vec!["probe", fen, "--tb", d, "--rules", "plain"]),
            (env!("CARGO_BIN_EXE_qiku-tb"), vec!["probe", fen, "-d", d, "--rules", "plain"]),
        ] {
            let o = run(exe, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("KRvKN.qtw"), "{args:?}: {err}");
        }
    }
}
