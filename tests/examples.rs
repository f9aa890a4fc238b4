//! The programs of `examples/` run on the repository's data and print what they should.
//!
//! Cargo builds the examples as plain programs (`target/<profile>/examples/NAME`) with
//! `cargo build --examples`, and with every `cargo test` that is not limited to some targets;
//! this test runs those programs. Run alone, build them first in the same profile:
//! `cargo build --release --examples && cargo test --release --test qiku examples::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The example program `name`, built beside this test's own executable
/// (`target/<profile>/deps/examples-HASH` -> `target/<profile>/examples/NAME`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("the test runs from target/<profile>/deps");
    let path = profile_dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is not built: run `cargo build --examples` in the profile of this test (add --release for a release test) first",
        path.display()
    );
    path
}

/// Runs an example to completion, returning its exit code and standard output.
fn run(name: &str, args: &[&str]) -> (i32, String) {
    let Output { status, stdout, stderr } =
        Command::new(example(name)).args(args).output().expect("the example starts");
    let stdout = String::from_utf8(stdout).expect("UTF-8 output");
    let stderr = String::from_utf8_lossy(&stderr);
    println!("$ {name} {}\n{stdout}{stderr}", args.join(" "));
    (status.code().unwrap_or(-1), stdout)
}

fn line_starting<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no line starting with {prefix:?} in\n{out}"))
}

#[test]
fn probe_book_lists_the_repertoire_moves_with_red_draw_black_counts() {
    let (code, out) = run("probe_book", &[]);
    assert_eq!(code, 0);
    assert!(out.starts_with("compiled 34 games of books/repertoire.pgn"), "{out}");
    // Each move line: move, games, red, draw, black, score, Chinese; the counts add up.
    let moves: Vec<Vec<&str>> =
        out.lines().skip_while(|l| !l.starts_with("move")).skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert!(!moves.is_empty(), "{out}");
    // The most played first: 炮二平五 in 22 of the 34 games, 12 won by red, 5 drawn, 5 lost.
    assert_eq!(moves[0], ["h2e2", "22", "12", "5", "5", "65.9%", "炮二平五"], "{out}");
    for m in &moves {
        let n: Vec<u64> = m[1..5].iter().map(|s| s.parse().expect("a count")).collect();
        assert!(n[1] + n[2] + n[3] <= n[0], "{m:?}");
    }
    let games: u64 = moves.iter().map(|m| m[1].parse::<u64>().expect("games")).sum();
    assert_eq!(games, 34, "every repertoire game starts with one of these moves: {out}");

    // After 炮二平五 (given in WXF), black's replies.
    let (code, out) = run("probe_book", &["startpos", "moves", "C2.5"]);
    assert_eq!(code, 0);
    assert!(line_starting(&out, "position ").contains(" b - - 1 1"), "{out}");
    // 馬８進７ is black's most played reply: 13 games, 8 won by red.
    assert!(out.contains("h9g7       13      8      3      2   26.9%  馬８進７"), "{out}");
    // A bad move is an error naming it, with a failing exit status.
    let (code, _) = run("probe_book", &["startpos", "moves", "h2h2"]);
    assert_eq!(code, 1);
}

#[test]
fn think_finds_a_mate_in_one_and_prints_it_in_chinese_and_iccs() {
    // The rook goes to d5: the king on d9 cannot leave the d-file, and the e-file is the red king's.
    let (code, out) = run("think", &["--depth", "4", "3k5/9/9/9/R8/9/9/9/9/4K4", "w"]);
    assert_eq!(code, 0);
    assert_eq!(line_starting(&out, "bestmove "), "bestmove a5d5 (車九平六) from the search, score mate 1", "{out}");
    assert_eq!(line_starting(&out, "pv "), "pv 車九平六 (a5d5)");
    assert!(out.lines().filter(|l| l.starts_with("depth ")).count() >= 1, "{out}");

    let (code, out) = run("think", &["--depth", "3", "startpos", "moves", "炮二平五"]);
    assert_eq!(code, 0);
    assert!(line_starting(&out, "depth  3 ").contains('('), "{out}");
}

#[test]
fn read_pgn_counts_games_moves_and_located_errors() {
    let (code, out) = run("read_pgn", &[]);
    assert_eq!(code, 0, "the shipped files have no bad game");
    assert!(line_starting(&out, "total: ").starts_with("total: 2034 games"), "{out}");
    assert!(out.contains("ccpd-sample-gbk.pgn (GBK): 2000 games"), "{out}");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bad.pgn");
    let text = "[Event \"good\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n\
                [Event \"illegal\"]\n\n1. h2e2 h9g7\n2. a0a5 1-0\n\n\
                [Event \"broken\"]\n\n1. c3c4 {unclosed\n";
    std::fs::write(&path, text).expect("write the games");
    let (code, out) = run("read_pgn", &[path.to_str().expect("a UTF-8 path")]);
    assert_eq!(code, 1, "bad games give exit status 1");
    assert!(out.contains("(UTF-8): 3 games, 6 moves, 2 errors"), "{out}");
    assert!(out.contains("game 2, line 8, column 4: move \"a0a5\" is illegal in this position"), "{out}");
    assert!(out.contains("game 3, line 12, column 9: unterminated comment"), "{out}");
}

#[test]
fn probe_tables_gives_the_value_and_the_best_moves() {
    // The default: the horse-against-king and rook-against-king tables are generated, and a
    // lone horse wins (a side without a legal move loses, stalemated or not).
    let (code, out) = run("probe_tables", &[]);
    assert_eq!(code, 0);
    assert!(line_starting(&out, "tables in ").ends_with(": 2"), "{out}");
    assert_eq!(line_starting(&out, "value "), "value win, mate in 11 plies", "{out}");
    assert_eq!(line_starting(&out, "best moves "), "best moves d0d1 (帥六進一), f0e2 (馬四進五), f0g2 (馬四進三)");
    // Then every legal move with its value, best first: the three best keep mate in 11.
    let values: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(values.len(), 5, "{out}");
    assert!(values[..3].iter().all(|l| l.ends_with("win, mate in 11 plies")), "{out}");
    assert!(values[3..].iter().all(|l| l.ends_with("win, mate in 13 plies")), "{out}");
    // Two bare kings: covered by the tables (every capture's material is), a draw.
    let (code, out) = run("probe_tables", &["3k5/9/9/9/9/9/9/9/9/4K4 w"]);
    assert_eq!(code, 0);
    assert_eq!(line_starting(&out, "value "), "value draw", "{out}");
    // Moves after the position, in any notation: the horse's best move d0d1, then black's.
    let (code, out) = run("probe_tables", &["4k4/9/9/9/9/9/9/9/9/3K1N3 w", "moves", "帥六進一"]);
    assert_eq!(code, 0);
    assert_eq!(line_starting(&out, "value "), "value loss, mated in 10 plies", "{out}");
    // A material without a table.
    let (code, out) = run("probe_tables", &["3k5/9/9/9/9/9/9/9/9/C3K4 w"]);
    assert_eq!(code, 0);
    assert!(out.contains("no table for this material"), "{out}");
}

#[test]
fn perft_matches_the_published_count() {
    let (code, out) = run("perft", &["3"]);
    assert_eq!(code, 0);
    assert!(line_starting(&out, "perft 3: ").starts_with("perft 3: 79666 leaves"), "{out}");
    assert_eq!(out.lines().filter(|l| l.len() > 4 && l.as_bytes()[4] == b' ').count(), 44, "{out}");
    let (code, _) = run("perft", &["0"]);
    assert_eq!(code, 1, "depth 0 is refused");
    // Positions as everywhere: `startpos` or a FEN, then moves in any notation. After 炮二平五
    // black has 45 moves, and red 1,564 answers to them (Fairy-Stockfish's legal moves agree).
    let (code, out) = run("perft", &["2", "startpos", "moves", "炮二平五"]);
    assert_eq!(code, 0);
    assert!(line_starting(&out, "perft 2: ").starts_with("perft 2: 1564 leaves"), "{out}");
    assert_eq!(out.lines().filter(|l| l.len() > 4 && l.as_bytes()[4] == b' ').count(), 45, "{out}");
}

#[test]
fn a_reader_that_stops_reading_ends_an_example_quietly() {
    // `perft 5 | head -1`, `read_pgn ... | head -1`, `think | head -1`: the first line read, the
    // pipe closed; each example then stops with status 0 and nothing on standard error (no panic).
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    for (name, args) in [("perft", &["5"][..]), ("read_pgn", &[][..]), ("think", &["--depth", "12"][..])] {
        let mut child = Command::new(example(name))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the example starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("piped")).read_line(&mut first).expect("a first line");
        // The reader is dropped here: the pipe is closed with the example still writing.
        let out = child.wait_with_output().expect("the example ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{name}: no first line");
        assert!(out.status.success() && stderr.is_empty(), "{name}: {:?}, stderr {stderr}", out.status);
    }
}
