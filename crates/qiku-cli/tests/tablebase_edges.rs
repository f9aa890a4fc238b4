//! What `qiku-tb` and `qiku probe --tb` say at the edges: a selection the filters empty, a table's
//! path taken by a directory or FIFO, a missing `.qtr` companion, companions without their table,
//! an empty or missing tables directory (and `info --json`'s list of the files that cannot be
//! used), and a FEN with a bad move counter. Each message says what
//! is wrong with which file or directory and what to run next.

use crate::common::{qiku_tb, tmp};
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::Material;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("run qiku")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `materials` (and the tables their captures lead to) generated in a fresh directory `name`.
fn tables(name: &str, materials: &[&str]) -> PathBuf {
    let dir = tmp(name);
    let ms: Vec<Material> = materials.iter().map(|m| m.parse().expect("material")).collect();
    generate_set(&ms, &GenerateOptions::new(&dir)).expect("generate");
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// KRvK with red to move, won.
const KRK: &str = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1";
/// KRvK with black to move: the king takes the rook, a draw (the Asian rules' value needs KRvK.qtr).
const KRK_DRAWN: &str = "3k5/3R5/9/9/9/9/9/9/9/4K4 b - - 0 1";
/// KNvK with red to move.
const KNK: &str = "3k5/9/9/9/9/9/9/9/9/N3K4 w - - 0 1";

#[test]
fn an_empty_selection_names_what_the_filters_left_out() {
    for command in ["plan", "generate"] {
        let dir = tmp(&format!("tb_edges_empty_{command}"));
        let mut args = vec![command, "KRvKN", "--max-pieces", "3", "-d", s(&dir)];
        if command == "plan" {
            args.extend(["--speed", "1"]);
        }
        let out = qiku_tb(&args);
        let e = stderr(&out);
        assert!(!out.status.success(), "{e}");
        assert!(e.contains("the selection contains no table"), "{e}");
        assert!(e.contains("KRvKN") && e.contains("--max-pieces 3"), "{e}");
        assert!(!dir.join("KRvK.qtb").exists(), "nothing is generated");
    }
    // A dead draw named with a filter: said why, too.
    let out = qiku_tb(&["plan", "KvKA", "KRRvKA", "--max-pieces", "4", "--speed", "1"]);
    let e = stderr(&out);
    assert!(!out.status.success(), "{e}");
    assert!(e.contains("KAvK has no attacking piece"), "{e}");
    assert!(e.contains("KRRvKA has 5 pieces, more than --max-pieces 4"), "{e}");
    // A family the filters empty says so.
    let out = qiku_tb(&["plan", "--family", "b", "--max-attackers", "1", "--speed", "1"]);
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("family B") && e.contains("--max-attackers 1"), "{e}");
}

#[cfg(unix)]
#[test]
fn generate_refuses_a_directory_or_fifo_where_a_table_file_goes_before_any_work() {
    let dir = tmp("tb_edges_taken");
    std::fs::create_dir_all(dir.join("KNvK.qtr")).expect("mkdir");
    let fifo = dir.join("KCvK.qtw");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("run mkfifo");
    assert!(made.success());
    let d = s(&dir);
    let out = qiku_tb(&["generate", "KRvK", "KNvK", "KCvK", "-d", d]);
    let e = stderr(&out);
    assert!(!out.status.success(), "{e}");
    // Both paths are named at once, with what to do; not the advice for a name the user typed.
    let qtr = dir.join("KNvK.qtr");
    assert!(e.contains(&format!("{} is a directory", qtr.display())), "{e}");
    assert!(e.contains(&format!("{} is not a regular file", fifo.display())), "{e}");
    assert!(e.contains("remove or rename each, then run the same command again"), "{e}");
    assert!(!e.contains("give the name of"), "{e}");
    // Refused before any work: no table was written.
    for name in ["KRvK.qtb", "KNvK.qtb", "KCvK.qtb"] {
        assert!(!dir.join(name).exists(), "{name} written: {e}");
    }
    // Once they are removed, the same command makes every table.
    std::fs::remove_dir(&qtr).expect("rmdir");
    std::fs::remove_file(&fifo).expect("rm");
    let out = qiku_tb(&["generate", "KRvK", "KNvK", "KCvK", "-d", d]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("KNvK.qtr").is_file() && dir.join("KCvK.qtw").is_file());
}

#[test]
fn a_missing_companion_says_to_make_it_or_probe_without_the_rules() {
    let dir = tables("tb_edges_no_qtr", &["KRvK"]);
    std::fs::remove_file(dir.join("KRvK.qtr")).expect("rm");
    let d = s(&dir);
    let qtr = dir.join("KRvK.qtr");
    for (program, out) in
        [("qiku-tb", qiku_tb(&["probe", KRK_DRAWN, "-d", d])), ("qiku", qiku(&["probe", KRK_DRAWN, "--tb", d]))]
    {
        let e = stderr(&out);
        assert!(!out.status.success(), "{e}");
        let first = e.lines().next().unwrap_or_default();
        assert!(first.starts_with(&format!("{program}: {}: missing", qtr.display())), "{e}");
        assert!(first.contains(&format!("`qiku-tb generate KRvK -d {d}`")), "{e}");
        assert!(first.contains("--rules plain"), "{e}");
        assert!(!first.contains(") ("), "one sentence, not two remarks in a row: {e}");
    }
    // With the plain rules the probe answers.
    let out = qiku_tb(&["probe", KRK_DRAWN, "-d", d, "--rules", "plain"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn companions_without_their_table_are_named_by_a_probe_of_their_material() {
    let dir = tables("tb_edges_orphans", &["KRvK", "KNvK"]);
    std::fs::remove_file(dir.join("KNvK.qtb")).expect("rm");
    let d = s(&dir);
    for (program, out) in [("qiku-tb", qiku_tb(&["probe", KNK, "-d", d])), ("qiku", qiku(&["probe", KNK, "--tb", d]))] {
        let e = stderr(&out);
        for ext in ["qtr", "qtw"] {
            let named = format!("{program}: warning: {}: ", dir.join(format!("KNvK.{ext}")).display());
            assert!(e.lines().any(|l| l.starts_with(&named) && l.contains("without its table")), "{e}");
        }
        assert!(!e.contains("other materials"), "{e}");
    }
    // A probe of another material counts them with the other materials' files.
    let out = qiku_tb(&["probe", KRK, "-d", d]);
    let e = stderr(&out);
    assert!(out.status.success() && e.contains("2 table files of other materials"), "{e}");
}

#[test]
fn an_empty_directory_has_no_tables_said_in_json_too() {
    let dir = tmp("tb_edges_empty_dir");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let d = s(&dir);
    let out = qiku_tb(&["verify", "-d", d, "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report on stdout");
    assert_eq!(v["tables"], serde_json::json!([]), "{v}");
    assert_eq!(v["verified"], 0, "{v}");
    let e = stderr(&out);
    assert!(e.contains(&format!("no tables in {d}")) && e.contains("qiku-tb generate"), "{e}");
    // `info` lists no table, says so and where, and succeeds (there is nothing wrong to report).
    let out = qiku_tb(&["info", "-d", d]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("no tables in {d}")));
    // A directory with only files that cannot be used: named, and the status says so.
    std::fs::write(dir.join("KRvK.qtr"), b"").expect("write");
    let out = qiku_tb(&["info", "-d", d]);
    let e = stderr(&out);
    assert!(!out.status.success() && e.contains("KRvK.qtr") && e.contains("cannot be used"), "{e}");
}

#[test]
fn info_json_lists_the_unusable_files_and_whether_generate_replaces_them() {
    // What the cluster workflow reads before any job (workflow/Snakefile): one call for the
    // whole directory.
    let dir = tables("tb_edges_info_unusable", &["KRvK", "KNvK"]);
    let d = s(&dir);
    let qtb = dir.join("KRvK.qtb");
    let len = std::fs::metadata(&qtb).expect("stat").len();
    std::fs::OpenOptions::new().write(true).open(&qtb).and_then(|f| f.set_len(len / 2)).expect("truncate");
    std::fs::write(dir.join("KNvK.qtw"), b"my notes\n").expect("write");
    let out = qiku_tb(&["info", "-d", d, "--json"]);
    assert!(!out.status.success(), "unusable files: status 1");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report on stdout");
    let tables: Vec<&str> =
        v["tables"].as_array().expect("tables").iter().map(|t| t["material"].as_str().unwrap()).collect();
    assert_eq!(tables, ["KNvK"], "{v}");
    let unusable = v["unusable"].as_array().expect("unusable");
    assert_eq!(unusable.len(), 2, "{v}");
    let (notes, cut) = (&unusable[0], &unusable[1]);
    assert_eq!(notes["path"], s(&dir.join("KNvK.qtw")), "{v}");
    assert_eq!((&notes["material"], &notes["replaceable"]), (&serde_json::json!("KNvK"), &serde_json::json!(false)));
    let error = notes["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!("{}: not a table file (it appears to be ", dir.join("KNvK.qtw").display())),
        "{error}"
    );
    assert_eq!(cut["path"], s(&qtb), "{v}");
    assert_eq!((&cut["material"], &cut["replaceable"]), (&serde_json::json!("KRvK"), &serde_json::json!(true)));
    let error = cut["error"].as_str().unwrap();
    let says = format!(
        "{}: invalid tablebase file (length: {} bytes, header says {len} (truncated?))",
        qtb.display(),
        len / 2
    );
    assert_eq!(error, says);
    // A usable directory lists none.
    std::fs::remove_file(&qtb).expect("rm");
    std::fs::remove_file(dir.join("KNvK.qtw")).expect("rm");
    std::fs::remove_file(dir.join("KRvK.qtr")).expect("rm");
    std::fs::remove_file(dir.join("KRvK.qtw")).expect("rm");
    let out = qiku_tb(&["info", "-d", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report on stdout");
    assert!(out.status.success() && v["unusable"] == serde_json::json!([]), "{v}");
}

#[test]
fn a_missing_directory_is_said_to_be_missing() {
    let dir = tmp("tb_edges_nonexistent");
    let d = s(&dir);
    let runs = [
        qiku_tb(&["stats", "KRvK", "-d", d]),
        qiku_tb(&["probe", KRK, "-d", d]),
        qiku_tb(&["verify", "-d", d]),
        qiku_tb(&["verify", "KRvK", "-d", d]),
        qiku_tb(&["info", "-d", d]),
    ];
    for out in runs {
        let e = stderr(&out);
        assert!(!out.status.success(), "{e}");
        let said = format!(
            "qiku-tb: {d}: the directory does not exist: generate tables there with `qiku-tb generate -d {d}`, "
        );
        assert!(e.starts_with(&said) && e.contains("or give -d the directory that holds them"), "{e}");
        assert!(e.contains("qiku-tb generate") && !e.contains("no table for") && !e.contains("os error"), "{e}");
    }
    let out = qiku_tb(&["verify", "KRvK", "-d", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report on stdout");
    assert!(!out.status.success() && v["tables"] == serde_json::json!([]), "{v}");
}

#[test]
fn a_bad_move_counter_is_named_as_a_counter() {
    for (fen, says) in [
        ("3k5/9/9/9/9/9/9/9/9/R3K4 w - - -1 0", "FEN move counter -1 is negative"),
        ("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 -1", "FEN move counter -1 is negative"),
    ] {
        let out = qiku_tb(&["probe", fen, "-d", "nowhere"]);
        let e = stderr(&out);
        assert!(!out.status.success() && e.contains(says), "{fen}: {e}");
        assert!(!e.contains("after the FEN"), "{fen}: {e}");
    }
    // Moves written without `moves` are still told apart from the FEN.
    let out = qiku_tb(&["probe", &format!("{KRK} a0a1"), "-d", "nowhere"]);
    assert!(stderr(&out).contains("write `moves` before the moves"), "{}", stderr(&out));
}

/// How many threads work is said in the help of every command that runs in parallel, and
/// `--threads N` sets it: the same files and the same report whatever it is, and the plan says
/// the count it was given.
#[test]
fn the_thread_count_is_said_in_the_help_and_set_by_an_option_that_changes_no_byte() {
    for command in ["generate", "verify", "plan"] {
        let out = qiku_tb(&[command, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--threads <N>") && help.contains("RAYON_NUM_THREADS"), "{command}: {help}");
    }
    let out = qiku_tb(&["plan", "KRvK", "--speed", "1", "--threads", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(" with 1 thread(s)"), "{text}{}", stderr(&out));
    let out = qiku_tb(&["plan", "KRvK", "--speed", "1", "--threads", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["threads"], 3, "{v}");
    let (one, two) = (tmp("tb_edges_threads_1"), tmp("tb_edges_threads_2"));
    for (dir, n) in [(&one, "1"), (&two, "2")] {
        let out = qiku_tb(&["generate", "KRvKA", "-d", s(dir), "--threads", n]);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = qiku_tb(&["verify", "-d", s(dir), "--threads", n]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    for name in ["KRvK.qtb", "KRvK.qtr", "KRvK.qtw", "KRvKA.qtb", "KRvKA.qtr", "KRvKA.qtw"] {
        assert!(std::fs::read(one.join(name)).expect("made") == std::fs::read(two.join(name)).expect("made"), "{name}");
    }
    let out = qiku_tb(&["generate", "KRvK", "-d", s(&one), "--threads", "0"]);
    assert!(!out.status.success() && stderr(&out).contains("1 to 1024"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&two);
}

/// `-q` leaves out the progress lines of `generate` and `verify` (as `qiku-book build -q`), and
/// nothing else: the summary is printed and the files are the same.
#[test]
fn quiet_leaves_out_the_progress_only() {
    let (loud, quiet) = (tmp("tb_edges_loud"), tmp("tb_edges_quiet"));
    let out = qiku_tb(&["generate", "KRvK", "-d", s(&loud)]);
    assert!(stderr(&out).contains("KRvK: 8100 of 8100 (100%) done"), "{}", stderr(&out));
    let out = qiku_tb(&["generate", "KRvK", "-d", s(&quiet), "-q"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("1 tables in "), "{out:?}");
    for name in ["KRvK.qtb", "KRvK.qtr", "KRvK.qtw"] {
        assert!(std::fs::read(loud.join(name)).unwrap() == std::fs::read(quiet.join(name)).unwrap(), "{name}");
    }
    let out = qiku_tb(&["verify", "-d", s(&quiet), "--quiet"]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("KRvK: ok ("), "{out:?}");
    let _ = std::fs::remove_dir_all(&loud);
    let _ = std::fs::remove_dir_all(&quiet);
}

/// A checkpoint interval that is not a number of minutes, or beyond what a span of time holds
/// (`1e30`, which panicked), is refused in words as a usage error, before any work.
#[test]
fn a_checkpoint_interval_out_of_range_is_refused_in_words() {
    let dir = tmp("tb_edges_checkpoint_minutes");
    for minutes in ["1e30", "1000001", "-1", "nan", "inf", "soon"] {
        let arg = format!("--checkpoint-minutes={minutes}");
        let out = qiku_tb(&["generate", "KRvK", "-d", s(&dir), "--memory", "1G", &arg]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{minutes}: {err}");
        assert!(err.contains(&format!("{minutes} is not a number of minutes from 0 to 1000000")), "{err}");
        assert!(!dir.exists(), "{minutes}: work started");
    }
}

/// The rule-aware pass's last word, on its progress line, says what it found, true whichever
/// side has what: not "black attacking" where black has only its king (KPvK) or only defends.
#[test]
fn the_rule_aware_pass_ends_saying_what_the_rules_decide() {
    let dir = tmp("tb_edges_rules_words");
    let out = qiku_tb(&["generate", "KPvK", "KRvKN", "-d", s(&dir), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let err = stderr(&out);
    assert!(!err.contains("attacking"), "{err}");
    for row in report["tables"].as_array().expect("tables") {
        let m = row["material"].as_str().expect("material");
        let changed = row["changed"][0].as_u64().unwrap() + row["changed"][1].as_u64().unwrap();
        let line = err.lines().find(|l| l.starts_with(&format!("{m} (")) && l.contains(" rules: done in "));
        let line = line.unwrap_or_else(|| panic!("no rules line of {m}: {err}"));
        let said = match changed {
            0 => "no position decided only by the rules".to_string(),
            n => format!("{n} positions decided only by the rules"),
        };
        assert!(line.ends_with(&said), "{line}");
    }
    assert!(err.contains(" rules: done in ") && err.contains("KRvKN ("), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
