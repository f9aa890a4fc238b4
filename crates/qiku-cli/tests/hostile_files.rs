//! Hostile files (a reliability probe): books and tables changed under an open reader,
//! FIFOs, outputs that are inputs, planted temporary-file symlinks, misnamed, damaged and
//! crafted tables, damaged compressed and binary game files, leftovers of killed builds. Each
//! test fails on the code before the fix (most of them crashed, hung or silently succeeded).
#![cfg(unix)]

use crate::tablebase_common;

use crate::common;

use qiku::book::{self, Book, BookError, BuildOptions};
use qiku::tablebase::format::{self, TableFile};
use qiku::tablebase::generate;
use qiku::tablebase::{Material, Tablebases, TbError};
use qiku::Position;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repertoire() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn")
}

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe).args(args).output().expect("run")
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo").success();
    assert!(ok, "mkfifo {}", path.display());
}

fn build_book(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    book::build(&[repertoire()], &out, &BuildOptions::default()).unwrap();
    out
}

/// Positions reached in the repertoire's opening: a spread of book keys to probe.
fn probe_positions(book: &Book) -> Vec<Position> {
    let mut out = vec![Position::startpos()];
    let mut frontier = vec![Position::startpos()];
    while out.len() < 200 {
        let Some(pos) = frontier.pop() else { break };
        for m in book.probe(&pos).expect("book readable") {
            let next = pos.play_unchecked(m.mv);
            out.push(next.clone());
            frontier.insert(0, next);
        }
    }
    out
}

#[test]
fn book_truncated_or_overwritten_in_place_is_reported_never_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_book(dir.path(), "r.qbk");
    let positions = probe_positions(&Book::open(&path).unwrap());
    assert!(positions.len() > 50);
    let before: Vec<_> =
        positions.iter().map(|p| Book::open(&path).unwrap().probe(p).expect("book readable")).collect();
    // Opened before the damage, nothing read since but the header and index.
    let book = Book::open(&path).unwrap();
    let len = std::fs::metadata(&path).unwrap().len();
    // Truncate in place (a memory map would die of SIGBUS on the next probe).
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(300).unwrap();
    // Every probe says so, naming the file: never the old content mixed with errors, never an
    // empty answer that reads as "not in the book".
    assert!(before.iter().any(|m| !m.is_empty()));
    for p in &positions {
        let e = book.probe(p).expect_err("a truncated book is an error");
        assert!(e.to_string().contains("r.qbk") && e.to_string().contains("changed since it was opened"), "{e}");
    }
    // Overwritten in place with garbage of the same length: an error too, not another book's moves.
    let fresh = build_book(dir.path(), "fresh.qbk");
    std::fs::copy(&fresh, &path).unwrap();
    let book2 = Book::open(&path).unwrap();
    std::fs::write(&path, vec![0xa5u8; len as usize]).unwrap();
    for p in &positions {
        let e = book2.probe(p).expect_err("a book overwritten in place is an error");
        assert!(e.to_string().contains("changed since it was opened"), "{e}");
    }
    // Reopening sees the damage and says so.
    assert!(Book::open(&path).is_err());
    // One record byte changed in place, the length and header untouched: an error too, not
    // changed counts.
    std::fs::copy(&fresh, &path).unwrap();
    let book3 = Book::open(&path).unwrap();
    assert_eq!(book3.probe(&positions[0]).unwrap(), before[0]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(SeekFrom::Start(len - 8)).unwrap();
        f.write_all(&[0x5a]).unwrap();
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), len);
    for p in &positions {
        let e = book3.probe(p).expect_err("a book written to in place is an error");
        assert!(e.to_string().contains("changed since it was opened"), "{e}");
    }
}

#[test]
fn table_truncated_in_place_is_an_error_not_a_crash() {
    let dir = tablebase_common::fresh_dir("hostile_tb_truncate", &["KRvK"]);
    let tb = Tablebases::open(&dir).unwrap();
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    let value = tb.probe(&pos).unwrap().unwrap();
    let path = dir.join("KRvK.qtb");
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(400).unwrap();
    tb.clear_cache();
    let mut errors = 0;
    for p in tablebase_common::all_positions("KRvK".parse().unwrap()).iter().step_by(97) {
        match tb.probe(p) {
            Ok(v) => assert!(v.is_some()),
            Err(e) => {
                assert!(e.to_string().contains("KRvK.qtb"), "{e}");
                errors += 1;
            }
        }
    }
    assert!(errors > 0);
    // A table replaced by rename keeps serving the old file's values to an open reader.
    let dir2 = tablebase_common::fresh_dir("hostile_tb_rename", &["KRvK"]);
    let tb2 = Tablebases::open(&dir2).unwrap();
    std::fs::write(dir2.join("new.tmp"), b"junk").unwrap();
    std::fs::rename(dir2.join("new.tmp"), dir2.join("KRvK.qtb")).unwrap();
    assert_eq!(tb2.probe(&pos).unwrap(), Some(value));
}

#[test]
fn output_that_is_an_input_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_qiku-book");
    let games = dir.path().join("games.pgn");
    std::fs::copy(repertoire(), &games).unwrap();
    let original = std::fs::read(&games).unwrap();
    let g = games.to_str().unwrap();
    let out = run(exe, &["build", g, "-o", g]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("games.pgn") && err.contains("same file"), "{err}");
    assert_eq!(std::fs::read(&games).unwrap(), original, "the input must be untouched");
    // Through a symlink, and spelled differently.
    let link = dir.path().join("link.qbk");
    std::os::unix::fs::symlink(&games, &link).unwrap();
    assert!(!run(exe, &["build", g, "-o", link.to_str().unwrap()]).status.success());
    let dotted = dir.path().join(".").join("games.pgn");
    assert!(!run(exe, &["build", g, "-o", dotted.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::read(&games).unwrap(), original);
    // Merge too.
    let a = build_book(dir.path(), "a.qbk");
    let before = std::fs::read(&a).unwrap();
    let a = a.to_str().unwrap();
    let out = run(exe, &["merge", a, a, "-o", a]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("same file"));
    assert_eq!(std::fs::read(a).unwrap(), before);
    let err = book::merge_books(&[PathBuf::from(a)], Path::new(a), 0, book::MinScore::NONE).unwrap_err();
    assert!(matches!(err, BookError::OutputIsInput { .. }), "{err}");
}

#[test]
fn planted_symlinks_at_temp_names_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    // The names the old writers used for this process.
    let pid = std::process::id();
    for name in [format!(".out.qbk.{pid}.write.tmp"), format!(".KRvK.qtb.tmp-{pid}")] {
        std::os::unix::fs::symlink(&victim, dir.path().join(name)).unwrap();
    }
    build_book(dir.path(), "out.qbk");
    Book::open(dir.path().join("out.qbk")).unwrap();
    format::write_atomic(&dir.path().join("KRvK.qtb"), b"bytes").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    // No temporary file is left behind by a finished write.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") && !n.contains(&format!(".{pid}.write.")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn fifos_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.qbk");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    let out = common::run_with_timeout(env!("CARGO_BIN_EXE_qiku-book"), &["probe", f], 20);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("f.qbk") && err.contains("FIFO"), "{err}");
    // As a game file.
    let out = common::run_with_timeout(
        env!("CARGO_BIN_EXE_qiku-book"),
        &["build", f, "-o", dir.path().join("o.qbk").to_str().unwrap()],
        20,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("FIFO"));
    // A FIFO named like a table, beside a good table.
    let tbdir = tablebase_common::fresh_dir("hostile_tb_fifo", &["KNvK"]);
    mkfifo(&tbdir.join("KRvK.qtb"));
    let d = tbdir.to_str().unwrap();
    let out = common::run_with_timeout(env!("CARGO_BIN_EXE_qiku-tb"), &["info", "-d", d], 20);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("KRvK.qtb") && err.contains("FIFO"), "{err}");
    let out = common::run_with_timeout(
        env!("CARGO_BIN_EXE_qiku-tb"),
        &["probe", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "-d", d],
        20,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("FIFO"));
    let tb = Tablebases::open(&tbdir).unwrap();
    assert_eq!(tb.problems().len(), 1);
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1").unwrap();
    assert!(tb.probe(&pos).unwrap().is_some(), "the good table still works");
}

#[test]
fn a_table_under_another_name_is_refused_everywhere() {
    let dir = tablebase_common::fresh_dir("hostile_tb_misnamed", &["KNvK"]);
    let wrong = dir.join("KRvK.qtb");
    std::fs::copy(dir.join("KNvK.qtb"), &wrong).unwrap();
    let err = TableFile::open(&wrong).err().expect("misnamed table must be refused");
    assert!(matches!(err, TbError::WrongMaterial { .. }), "{err}");
    assert!(err.to_string().contains("KRvK.qtb") && err.to_string().contains("KNvK"), "{err}");
    assert!(generate::load(&wrong).is_err());
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().iter().any(|p| matches!(p, TbError::WrongMaterial { .. })));
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    assert!(tb.probe(&pos).is_err());
    let d = dir.to_str().unwrap();
    let exe = env!("CARGO_BIN_EXE_qiku-tb");
    for args in [
        vec!["verify", "KRvK", "-d", d],
        vec!["verify", "-d", d],
        vec!["stats", "KRvK", "-d", d],
        vec!["info", "-d", d],
    ] {
        let out = run(exe, &args);
        assert!(!out.status.success(), "{args:?} must fail");
        let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("KRvK.qtb"), "{args:?}: {text}");
    }
}

#[test]
fn damaged_and_foreign_tables_are_named_not_hidden() {
    let dir = tablebase_common::fresh_dir("hostile_tb_foreign", &["KNvK"]);
    let book = build_book(&dir, "book.qbk");
    std::fs::rename(&book, dir.join("KRvK.qtb")).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert_eq!(tb.problems().len(), 1);
    assert!(tb.problems()[0].to_string().contains("KRvK.qtb"));
    // qiku probe --tb names the file instead of "no table for this material".
    let d = dir.to_str().unwrap();
    let out = run(env!("CARGO_BIN_EXE_qiku"), &["probe", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "--tb", d]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("KRvK.qtb") && !err.contains("no table"), "{err}");
    // The engine names it when TablebasePath is set.
    let mut engine = Command::new(env!("CARGO_BIN_EXE_qiku"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let script = format!("uci\nsetoption name TablebasePath value {d}\nisready\nquit\n");
    engine.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = engine.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("info string") && l.contains("KRvK.qtb")), "{text}");
}

#[test]
fn reserved_value_codes_are_refused_on_probe() {
    let dir = tablebase_common::fresh_dir("hostile_tb_reserved", &["KRvK"]);
    let m: Material = "KRvK".parse().unwrap();
    let path = dir.join("KRvK.qtb");
    let mut table = generate::load(&path).unwrap();
    let counts = table.counts();
    // A legal entry given code 253 (distance 251: above what 1-byte codes may hold), written
    // with valid checksums and the true counts.
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    let i = table.index_of(&pos).unwrap() as usize;
    table.codes_mut()[i] = 253;
    format::write_atomic(&path, &format::encode(m, table.codes(), &counts, true).unwrap()).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    let err = tb.probe(&pos).unwrap_err();
    assert!(err.to_string().contains("reserved") && err.to_string().contains("KRvK.qtb"), "{err}");
    let out = run(
        env!("CARGO_BIN_EXE_qiku-tb"),
        &["probe", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "-d", dir.to_str().unwrap(), "--json"],
    );
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("253"));
    // `stats` reads the whole table: refused the same way, not "longest mate 251 plies".
    for rules in ["plain", "asian"] {
        let out = run(env!("CARGO_BIN_EXE_qiku-tb"), &["stats", "KRvK", "-d", dir.to_str().unwrap(), "--rules", rules]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{rules}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(err.contains("KRvK.qtb") && err.contains("reserved value code 253"), "{rules}: {err}");
    }
}

/// A KRvK table whose every legal entry says "win in 1", with valid checksums and the true
/// counts: no position can have such values (a win whose moves all lose). Every best-move answer
/// refuses it naming the table: the library, `qiku-tb probe` and `qiku probe --tb` (which printed
/// the moves with no best one, or gave none as if there were no legal move).
#[test]
fn inconsistent_values_behind_valid_checksums_give_no_best_move() {
    let dir = tablebase_common::fresh_dir("hostile_tb_inconsistent", &["KRvK"]);
    let m: Material = "KRvK".parse().unwrap();
    let path = dir.join("KRvK.qtb");
    let mut table = generate::load(&path).unwrap();
    let counts = table.counts();
    for code in table.codes_mut().iter_mut().filter(|c| **c != format::ILLEGAL) {
        *code = 3;
    }
    format::write_atomic(&path, &format::encode(m, table.codes(), &counts, true).unwrap()).unwrap();
    let fen = "R8/4k4/9/9/9/9/9/9/9/5K3 w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().is_empty(), "{:?}", tb.problems());
    let err = tb.best_moves(&pos).unwrap_err().to_string();
    assert!(err.contains("KRvK.qtb") && err.contains("none of its 18 legal moves keeps that value"), "{err}");
    let d = dir.to_str().unwrap();
    for out in [
        run(env!("CARGO_BIN_EXE_qiku-tb"), &["probe", fen, "-d", d]),
        run(env!("CARGO_BIN_EXE_qiku"), &["probe", "--tb", d, fen]),
    ] {
        assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("KRvK.qtb") && stderr.contains("inconsistent"), "{stderr}");
        // Found and removed first: `generate` keeps a table whose checksums and counts are right.
        let advice = format!("(`qiku-tb verify KRvK -d {d}` checks its files; remove those it finds damaged");
        assert!(stderr.contains(&advice), "{stderr}");
        assert!(stderr.contains(&format!("`qiku-tb generate KRvK -d {d}` makes them again)")), "{stderr}");
    }
}

/// A damaged compressed input is reported, never silently taken, and the book is built from the
/// rest (as skipped games are); a file that is no text fails the build at once.
#[test]
fn damaged_compressed_inputs_are_reported_and_binary_ones_fail_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_qiku-book");
    let text = std::fs::read(repertoire()).unwrap();
    let z = zstd::encode_all(&text[..], 3).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &z[..z.len() * 2 / 3]).unwrap();
    let out_path = dir.path().join("o.qbk");
    let o = out_path.to_str().unwrap();
    let out = run(exe, &["build", repertoire().to_str().unwrap(), cut.to_str().unwrap(), "-o", o, "-q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && out_path.exists(), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("cut.pgn.zst: unreadable from the start: cannot decompress"),
        "{err}"
    );
    // A book given as games: a clear message at once, not thousands of syntax errors.
    let qbk = build_book(dir.path(), "r.qbk");
    let out = run(exe, &["build", qbk.to_str().unwrap(), "-o", dir.path().join("x.qbk").to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("r.qbk") && err.contains("opening book"), "{err}");
    assert!(err.lines().count() < 5, "{err}");
    // Text without a single usable game.
    let junk = dir.path().join("junk.pgn");
    std::fs::write(&junk, "hello world\nthis is not a game\n").unwrap();
    let out = run(exe, &["build", junk.to_str().unwrap(), "-o", o, "-q"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no game"));
}

/// The text summary of a build with a damaged input and skipped games: the files not read to the
/// end are a line of their own after the skipped games' breakdown, not one of its reasons; the
/// book is written and the build succeeds.
#[test]
fn unread_files_follow_the_breakdown_of_skipped_games() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read(repertoire()).unwrap();
    let z = zstd::encode_all(&text[..], 3).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &z[..z.len() * 2 / 3]).unwrap();
    // One game with an illegal move: one skipped game.
    let bad = dir.path().join("bad.pgn");
    std::fs::write(&bad, "[Event \"a\"]\n\n1. h2e2 h9g7 2. a0a5 *\n").unwrap();
    let o = dir.path().join("o.qbk");
    let rep = repertoire();
    let args = ["build", rep.to_str().unwrap(), bad.to_str().unwrap(), cut.to_str().unwrap()];
    let out = run(env!("CARGO_BIN_EXE_qiku-book"), &[&args[..], &["-o", o.to_str().unwrap(), "-q"]].concat());
    // Reported (stderr and the summary) and built from the rest, as skipped games are.
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = summary.lines().collect();
    let at = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{summary}"));
    let (skipped, unread) = (at("games skipped "), at("files not read to the end 1 "));
    // The breakdown (indented) right under "games skipped", then the unread files.
    assert!(unread > skipped + 1, "{summary}");
    assert!(lines[skipped + 1..unread].iter().all(|l| l.starts_with("  ")), "{summary}");
    assert!(lines[skipped + 1..unread].iter().any(|l| l.trim_start().starts_with("illegal move")), "{summary}");
    assert!(!lines[unread + 1].starts_with("  "), "{summary}");
}

#[test]
fn leftovers_of_killed_builds_are_removed_by_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    // What a SIGKILLed build leaves (PIDs above the kernel's maximum are never running).
    let temp = dir.path().join(".out.qbk.4194999.Ab12Cd.tmp");
    std::fs::write(&temp, vec![0u8; 1000]).unwrap();
    let spill = dir.path().join(".qiku-book-spill.4194999.XyZ123");
    std::fs::create_dir(&spill).unwrap();
    std::fs::write(spill.join("run0"), vec![0u8; 1000]).unwrap();
    // A live process's temporary file is left alone.
    let live = dir.path().join(format!(".out.qbk.{}.Zz99Zz.tmp", std::process::id()));
    std::fs::write(&live, b"in use").unwrap();
    // Enough games for several batches, and a tiny memory budget: spilled runs.
    let games = dir.path().join("games.pgn");
    std::fs::write(&games, std::fs::read_to_string(repertoire()).unwrap().repeat(40)).unwrap();
    let opts = BuildOptions { memory: 4096, ..BuildOptions::default() };
    let report = book::build(&[games], &dir.path().join("out.qbk"), &opts).unwrap();
    assert!(report.runs_spilled > 1);
    assert!(!temp.exists() && !spill.exists() && live.exists());
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with(".qiku-")), "spill directory left behind: {names:?}");
}
