//! `qiku tune` end to end on a slice of the shipped master games: the figures it prints are
//! sensible (the fit lowers the training loss), do not depend on the thread count, `--emit`
//! writes Rust constants, and bad input is refused with a message naming it.

use std::path::Path;
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

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("start qiku")
}

/// The scored-position path end to end: `tune --write-positions` writes the sampled positions,
/// `label` scores them with qiku itself (the same file for one or two engines at a time; the
/// sign of each score is red's view), and `tune --scored` fits on them.
#[test]
fn positions_are_written_scored_and_fitted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let (pos, one, two) = (path("pos.tsv"), path("one.tsv"), path("two.tsv"));
    let out = tune(&["--pgn", GAMES, "--max-games", "12", "--write-positions", &pos, "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&pos).expect("positions written");
    let lines: Vec<&str> = text.lines().collect();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with(&format!("{} positions", lines.len())), "{said}");
    assert!(lines.len() > 50, "{}", lines.len());
    for l in &lines {
        let cols: Vec<&str> = l.split('\t').collect();
        assert_eq!(cols.len(), 3, "{l}");
        assert!(["1", "0.5", "0"].contains(&cols[1]) && ["train", "valid"].contains(&cols[2]), "{l}");
    }
    // The same positions as the fit itself uses.
    let fit = json(&tune(&["--pgn", GAMES, "--max-games", "12", "--epochs", "1", "--json", "--quiet"]));
    let counted = fit["training"].as_u64().unwrap() + fit["validation"].as_u64().unwrap();
    assert_eq!(counted, lines.len() as u64);

    let label = |out: &str, conc: &str| qiku(&["label", &pos, out, "--depth", "2", "--concurrency", conc, "--quiet"]);
    for (out, conc) in [(&one, "1"), (&two, "2")] {
        let o = label(out, conc);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let scored = std::fs::read_to_string(&one).expect("scored file");
    assert_eq!(scored, std::fs::read_to_string(&two).expect("scored file"), "depends on --concurrency");
    assert_eq!(scored.lines().count(), lines.len());
    for (l, s) in lines.iter().zip(scored.lines()) {
        let (head, score) = s.rsplit_once('\t').expect("a fourth column");
        assert_eq!(&head, l);
        // A number or a mate.
        assert!(score.parse::<i32>().is_ok() || score.starts_with('#'), "{s}");
    }
    // Killed half-way (SIGKILL: no chance to tidy up), the same command continues from the scores
    // kept in OUTPUT.partial and writes the file a run never stopped writes; the partial file goes.
    let (straight, resumed) = (path("straight.tsv"), path("resumed.tsv"));
    let deep = |out: &str| -> Vec<String> {
        ["label", &pos, out, "--depth", "8", "--concurrency", "2", "--quiet"].map(String::from).to_vec()
    };
    let run = |args: Vec<String>| qiku(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(run(deep(&straight)).status.success());
    let partial = format!("{resumed}.partial");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qiku"))
        .args(deep(&resumed))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start qiku label");
    let lines_in = |p: &str| std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
    while lines_in(&partial) < 11 {
        assert!(child.try_wait().expect("wait").is_none(), "label ended before ten positions were kept");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().expect("kill");
    child.wait().expect("reap");
    let kept = lines_in(&partial) - 1;
    assert!(kept >= 10 && kept < lines.len(), "{kept} kept");
    let o = run(deep(&resumed));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains(&format!("continuing from {partial}: ")), "{err}");
    assert_eq!(std::fs::read(&resumed).expect("resumed"), std::fs::read(&straight).expect("straight"));
    assert!(!std::path::Path::new(&partial).exists());
    // Red's view: a position with red a rook up scores positive with either side to move.
    let won = ["3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\t1\ttrain", "3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1\t1\ttrain"];
    let (w_in, w_out) = (path("won.tsv"), path("won-scored.tsv"));
    std::fs::write(&w_in, won.join("\n")).unwrap();
    assert!(qiku(&["label", &w_in, &w_out, "--depth", "3", "--quiet"]).status.success());
    for l in std::fs::read_to_string(&w_out).unwrap().lines() {
        let score = l.rsplit('\t').next().unwrap();
        assert!(score.starts_with('#') && !score.starts_with("#-") || score.parse::<i32>().unwrap() > 300, "{l}");
    }

    let fitted = json(&tune(&["--scored", &one, "--lambda", "0.5", "--epochs", "20", "--json", "--quiet"]));
    assert_eq!(fitted["training"].as_u64().unwrap() + fitted["validation"].as_u64().unwrap(), lines.len() as u64);
    assert_eq!(fitted["lambda"], 0.5);
    assert!(fitted["engine_k"].as_f64().unwrap() > 0.0, "{fitted}");
    let (before, after) =
        (fitted["training_loss_before"].as_f64().unwrap(), fitted["training_loss_after"].as_f64().unwrap());
    assert!(after < before, "{fitted}");
    // Results only (--lambda 0) from the unscored file gives the PGN path's figures.
    let results = json(&tune(&["--scored", &pos, "--lambda", "0", "--epochs", "1", "--json", "--quiet"]));
    assert_eq!(results["k"], fit["k"]);
    assert_eq!(results["training_loss_before"], fit["training_loss_before"]);
}

#[test]
fn label_and_scored_tuning_refuse_bad_files_by_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let cases = [
        (format!("{start}\t1\ttrain\n{start}\t3\ttrain\n"), "line 2", "result \"3\""),
        (format!("{start}\t1\ttrain\nnot a fen\t1\ttrain\n"), "line 2", "FEN"),
        (format!("{start}\t1\n"), "line 1", "columns"),
    ];
    for (i, (text, line, cause)) in cases.iter().enumerate() {
        let input = path(&format!("bad{i}.tsv"));
        let output = path(&format!("out{i}.tsv"));
        std::fs::write(&input, text).unwrap();
        for out in [
            qiku(&["label", &input, &output, "--depth", "1", "--quiet"]),
            tune(&["--scored", &input, "--lambda", "0", "--epochs", "1", "--quiet"]),
        ] {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(err.contains(&input) && err.contains(line) && err.contains(cause), "{err}");
        }
        assert!(!std::path::Path::new(&output).exists());
    }
    // A file without scores cannot be blended with them.
    let input = path("unscored.tsv");
    std::fs::write(&input, format!("{start}\t1\ttrain\n")).unwrap();
    let out = tune(&["--scored", &input, "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(1) && err.contains("no score") && err.contains("qiku label"), "{err}");
    // The output may not be the input.
    let out = qiku(&["label", &input, &input, "--depth", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), format!("{start}\t1\ttrain\n"));
    // Neither depth nor nodes.
    let out = qiku(&["label", &input, &path("x.tsv")]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--depth or --nodes"));
}

/// A UCCI engine's scores are bare numbers (`score 68`, a mate as `10000 - plies`): read over
/// `--protocol ucci` they give the same file as the same engine over UCI, position by position
/// (one position a run: UCCI has no new game to clear the engine's hash between positions).
#[test]
fn label_reads_ucci_scores_as_uci_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
    // Red to move and black to move; red mates in one (Rb9), black mates in one (Rb0), and a
    // black to move whom red mates after his move.
    let cases = [
        (format!("{start} w - - 0 1\t0.5\ttrain"), None),
        (format!("{start} b - - 0 1\t0.5\tvalid"), None),
        ("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1\t1\ttrain".to_string(), Some("#1")),
        ("1r2k4/9/9/9/9/9/9/9/r8/3K5 b - - 0 1\t0\tvalid".to_string(), Some("#-1")),
        ("3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1\t1\ttrain".to_string(), Some("#1")),
    ];
    // All in one run: a new game before each position (`ucinewgame`, UCCI's `setoption
    // newgame`) makes each score the position's alone, whatever was searched before it.
    let input = path("in.tsv");
    std::fs::write(&input, cases.iter().map(|(l, _)| format!("{l}\n")).collect::<String>()).unwrap();
    let mut scores: Vec<Vec<String>> = Vec::new();
    for protocol in ["uci", "ucci"] {
        let output = path(&format!("{protocol}.tsv"));
        let out = qiku(&["label", &input, &output, "--depth", "4", "--protocol", protocol, "--quiet"]);
        assert!(out.status.success(), "{protocol}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&output).expect("scored file");
        let mut column = Vec::new();
        for (row, (line, _)) in text.lines().zip(&cases) {
            let (head, score) = row.rsplit_once('\t').expect("a fourth column");
            assert_eq!(head, line.as_str());
            column.push(score.to_string());
        }
        assert_eq!(column.len(), cases.len());
        scores.push(column);
    }
    for (i, (line, mate)) in cases.iter().enumerate() {
        let scores = [&scores[0][i], &scores[1][i]];
        assert_eq!(scores[0], scores[1], "{line}: uci then ucci");
        match mate {
            Some(m) => assert_eq!(scores[1], *m, "{line}"),
            None => assert!(scores[1].parse::<i32>().is_ok_and(|cp| cp.abs() < 300), "{line}: {}", scores[1]),
        }
    }
}

/// `--lr` and `--l2` out of their range stop `qiku tune` before any work, naming the option:
/// NaN or infinity would write a file of zeros, a negative step would climb the loss.
#[test]
fn tune_refuses_steps_and_penalties_that_cannot_fit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let emit = dir.path().join("tuned.rs");
    let emit = emit.to_str().expect("utf-8 path");
    let bad: [(&[&str], &str, &str); 8] = [
        (&["--lr", "nan"], "--lr", "above 0"),
        (&["--lr", "inf"], "--lr", "above 0"),
        (&["--lr=-5"], "--lr", "above 0"),
        (&["--lr", "0"], "--lr", "above 0"),
        (&["--l2=-1"], "--l2", "from 0 up"),
        (&["--l2", "NaN"], "--l2", "from 0 up"),
        (&["--l2", "inf"], "--l2", "from 0 up"),
        (&["--lambda", "nan"], "--lambda", "from 0 to 1"),
    ];
    for (args, option, range) in bad {
        let common = ["--pgn", GAMES, "--max-games", "5", "--epochs", "1", "--emit", emit, "--quiet"];
        let out = tune(&[&common[..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(option) && err.contains(range), "{args:?}: {err}");
        assert!(!std::path::Path::new(emit).exists(), "{args:?} wrote {emit}");
    }
    // The edges of the ranges are accepted.
    let out = tune(&["--pgn", GAMES, "--max-games", "5", "--epochs", "1", "--lr", "0.5", "--l2", "0", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// An output that cannot be written (its directory missing, or a directory) is refused before
/// any work: before the engine is started, the games are read or the fit runs.
#[test]
fn unwritable_outputs_are_refused_before_any_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("pos.tsv");
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    std::fs::write(&input, format!("{start}\t1\ttrain\n")).unwrap();
    let input = input.to_str().expect("utf-8 path");
    let missing = dir.path().join("no-such-dir");
    let missing_out = missing.join("out");
    let missing_out = missing_out.to_str().expect("utf-8 path");
    let a_dir = dir.path().to_str().expect("utf-8 path");
    let refused = |out: &Output, path: &str, why: &str| {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(path) && err.contains(why), "{err}");
        assert!(out.stdout.is_empty(), "work was done: {}", String::from_utf8_lossy(&out.stdout));
    };
    // An engine that cannot start: the output is refused first.
    for (out, why) in [(missing_out, "does not exist"), (a_dir, "directory")] {
        let o = qiku(&["label", input, out, "--depth", "1", "--engine", "/no/such/engine", "--quiet"]);
        refused(&o, out, why);
    }
    // The fit is not run (its figures would be printed first) and games that are not there are
    // not looked for.
    let o = tune(&["--pgn", GAMES, "--max-games", "20", "--epochs", "1", "--emit", missing_out, "--quiet"]);
    refused(&o, missing_out, "does not exist");
    for option in ["--emit", "--write-positions"] {
        let o = tune(&["--pgn", "no/such/games.pgn", option, missing_out, "--quiet"]);
        refused(&o, missing_out, "does not exist");
        let o = tune(&["--pgn", "no/such/games.pgn", option, a_dir, "--quiet"]);
        refused(&o, a_dir, "directory");
    }
    assert!(!missing.exists());
}

/// A position file that starts with a UTF-8 byte-order mark (as Windows editors write) reads
/// as without it, in `label` and in `tune --scored`.
#[test]
fn position_files_may_start_with_a_byte_order_mark() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let (input, output) = (path("bom.tsv"), path("scored.tsv"));
    std::fs::write(&input, format!("\u{feff}{fen}\t1\ttrain\n{fen}\t0\tvalid\n")).unwrap();
    let out = qiku(&["label", &input, &output, "--depth", "1", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scored = std::fs::read_to_string(&output).expect("scored file");
    assert!(scored.starts_with(&format!("{fen}\t1\ttrain\t")), "{scored:?}");
    for file in [&input, &output] {
        let fitted = json(&tune(&["--scored", file, "--lambda", "0", "--epochs", "1", "--json", "--quiet"]));
        assert_eq!((fitted["training"].as_u64(), fitted["validation"].as_u64()), (Some(1), Some(1)), "{fitted}");
    }
}

/// Nothing to write is an error that says why, and nothing is written: games without results
/// (the Wukong collection has no Result tags) for `tune --write-positions`, an empty or blank
/// file for `label` and `tune --scored`.
#[test]
fn nothing_to_write_is_an_error_that_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let unfinished = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/games/wukong-hu-ronghua-uci.pgn");
    let pos = path("pos.tsv");
    let out = tune(&["--pgn", unfinished, "--max-games", "50", "--write-positions", &pos, "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("none of the 50 games read has a result"), "{err}");
    assert!(!std::path::Path::new(&pos).exists());
    // Fitting on them says the same.
    let out = tune(&["--pgn", unfinished, "--max-games", "50", "--quiet"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has a result"), "{out:?}");
    for (i, text) in ["", "\n  \n\t\n", "\u{feff}"].iter().enumerate() {
        let (input, output) = (path(&format!("empty{i}.tsv")), path(&format!("out{i}.tsv")));
        std::fs::write(&input, text).unwrap();
        for out in [
            qiku(&["label", &input, &output, "--depth", "1", "--quiet"]),
            tune(&["--scored", &input, "--lambda", "0", "--emit", &output, "--quiet"]),
        ] {
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(err.contains(&input) && err.contains("no positions"), "{err}");
        }
        assert!(!std::path::Path::new(&output).exists());
    }
}

/// Without validation positions the validation losses are said to be none (null in JSON), not
/// shown as losses of 0.
#[test]
fn no_validation_set_is_said_to_be_none() {
    let common = ["--pgn", GAMES, "--max-games", "20", "--epochs", "2", "--validation", "0", "--quiet"];
    let out = tune(&common);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("0.000000"), "{text}");
    assert_eq!(text.matches("validation none (no validation positions)").count(), 2, "{text}");
    assert!(text.contains("engine's evaluation: none (no validation positions)"), "{text}");
    let j = json(&tune(&[&common[..], &["--json"]].concat()));
    assert_eq!(j["validation"], 0);
    for key in
        ["validation_loss_before", "validation_loss_after", "validation_eval_loss_before", "validation_eval_loss_after"]
    {
        assert!(j[key].is_null(), "{key}: {j}");
    }
    assert!(j["training_loss_after"].as_f64().is_some_and(|l| l > 0.0), "{j}");
}

/// `label --timeout` holds from the engine's first search on: an engine that never answers
/// `go` is given up after the timeout, not after the 20 s of the handshake.
#[test]
fn label_gives_up_on_a_silent_engine_after_the_timeout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = dir.path().join("silent.sh");
    std::fs::write(
        &engine,
        "#!/bin/sh\nwhile read line; do\n case \"$line\" in\n  uci) echo 'id name silent'; echo uciok;;\n  \
         isready) echo readyok;;\n  quit) exit 0;;\n esac\ndone\n",
    )
    .unwrap();
    let mut perm = std::fs::metadata(&engine).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&engine, perm).unwrap();
    let input = dir.path().join("pos.tsv");
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    std::fs::write(&input, format!("{start}\t1\ttrain\n")).unwrap();
    let output = dir.path().join("out.tsv");
    let args = [
        "label",
        input.to_str().unwrap(),
        output.to_str().unwrap(),
        "--depth",
        "1",
        "--timeout",
        "1",
        "--engine",
        engine.to_str().unwrap(),
        "--quiet",
    ];
    let t0 = std::time::Instant::now();
    let out = crate::common::run_with_timeout(env!("CARGO_BIN_EXE_qiku"), &args, 60);
    let secs = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("line 1") && err.contains("no bestmove within 1.0 s"), "{err}");
    assert!(secs < 10.0, "took {secs:.1} s");
    assert!(!output.exists());
}

/// Counts agree with their nouns.
#[test]
fn label_says_one_position_not_one_positions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let (input, output) = (path("one.tsv"), path("scored.tsv"));
    std::fs::write(&input, format!("{fen}\t1\ttrain\n")).unwrap();
    let out = qiku(&["label", &input, &output, "--depth", "1", "--quiet"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && said.starts_with("1 position scored by "), "{said}");
}

/// A bad `[FEN]` tag is named at its own line and column, as `qiku annotate` and `qiku-book
/// build` name it, not by its game alone.
#[test]
fn tune_names_a_bad_fen_tag_at_its_line_and_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pgn = dir.path().join("fen.pgn");
    // Game 2 starts on line 5; its FEN tag is on line 7, after another tag on the same line.
    let text =
        "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n[Result \"1-0\"]\n[Round \"1\"]\n[Site \"c\"] [FEN \"garbage\"]\n\n\
                1. h2e2 h9g7 1-0\n";
    std::fs::write(&pgn, text).expect("write");
    let out = tune(&["--pgn", pgn.to_str().expect("utf-8 path"), "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fen.pgn: game 2 line 7: bad FEN tag \"garbage\" at column 12: "), "{err}");
}

/// A position file is read line by line, from a regular file only: a FIFO is refused at once
/// (both commands used to wait on it forever for a writer), and a line that is not UTF-8 or is
/// longer than the line limit is named with the file and its line (a file with one used to give
/// only "stream did not contain valid UTF-8").
#[test]
fn position_files_are_regular_files_of_utf8_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |n: &str| dir.path().join(n).to_str().expect("utf-8 path").to_string();
    let exe = env!("CARGO_BIN_EXE_qiku");
    let refused = |args: &[&str], words: &[&str]| {
        let out = crate::common::run_with_timeout(exe, args, 30);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        for w in words {
            assert!(err.contains(w), "{args:?}: {w:?} missing from {err}");
        }
    };
    let fifo = path("pipe.tsv");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let fifo_named = format!("{fifo}: cannot open: not a regular file (a FIFO (named pipe))");
    refused(&["label", &fifo, &path("out.tsv"), "--depth", "1", "--quiet"], &[&fifo_named]);
    refused(&["tune", "--scored", &fifo, "--lambda", "0", "--epochs", "1", "--quiet"], &[&fifo_named]);
    assert!(!Path::new(&path("out.tsv")).exists());

    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let mut latin1 = format!("{start}\t1\ttrain\n\n{start}\t0\tvalid\t").into_bytes();
    latin1.extend_from_slice(b"\xB135\n");
    let long = format!("{start}\t1\ttrain\n{}\n", "x".repeat(qiku::tune::scored::MAX_LINE + 1));
    let cases = [
        ("latin1.tsv", latin1, format!("line 3: not UTF-8 text: byte 0xB1 at column {}", start.len() + 10)),
        ("long.tsv", long.into_bytes(), format!("line 2: longer than {} bytes", qiku::tune::scored::MAX_LINE)),
    ];
    for (name, bytes, cause) in cases {
        let input = path(name);
        std::fs::write(&input, bytes).unwrap();
        let named = format!("{input}: {cause}");
        refused(&["label", &input, &path("out.tsv"), "--depth", "1", "--quiet"], &[&named]);
        refused(&["tune", "--scored", &input, "--lambda", "0", "--epochs", "1", "--quiet"], &[&named]);
        assert!(!Path::new(&path("out.tsv")).exists());
    }
}
