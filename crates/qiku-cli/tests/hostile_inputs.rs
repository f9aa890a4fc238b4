//! Hostile inputs, second round: writers given one of their inputs as output, a closed stdout,
//! huge protocol lines, leftovers of killed writers, FIFOs, crafted `.obk` databases, symbolic
//! link loops and absurd table selections. Each test fails on the code before the fix (it
//! destroyed a file, panicked, aborted, hung, or accepted the input).
#![cfg(unix)]

use crate::common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const QIKU: &str = env!("CARGO_BIN_EXE_qiku");
const QIKU_BOOK: &str = env!("CARGO_BIN_EXE_qiku-book");
const QIKU_TB: &str = env!("CARGO_BIN_EXE_qiku-tb");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/games/ccpd-iccs.pgn.zst");

fn repertoire() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn run(exe: &str, args: &[&str], secs: u64) -> Output {
    common::run_with_timeout(exe, args, secs)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts that `out` is a refusal (exit code 1, no panic) whose message contains every word.
fn assert_refused(out: &Output, words: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} missing from: {err}");
    }
}

fn build_book(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    qiku::book::build(&[repertoire()], &out, &qiku::book::BuildOptions::default()).unwrap();
    out
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo").success());
}

#[test]
fn every_writer_refuses_an_output_that_is_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book = build_book(d, "a.qbk");
    let book_bytes = std::fs::read(&book).unwrap();
    // export: the book through another spelling and through a symbolic link.
    let dotted = d.join(".").join("a.qbk");
    let link = d.join("link.obk");
    std::os::unix::fs::symlink(&book, &link).unwrap();
    for out in [&dotted, &link] {
        let r = run(QIKU_BOOK, &["export", s(&book), "-o", s(out)], 60);
        assert_refused(&r, &["same file", "a.qbk"]);
        assert_eq!(std::fs::read(&book).unwrap(), book_bytes, "export destroyed its input");
    }
    // import: the .obk through a hard link.
    let obk = d.join("s.obk");
    assert!(run(QIKU_BOOK, &["export", s(&book), "-o", s(&obk)], 60).status.success());
    let obk_bytes = std::fs::read(&obk).unwrap();
    let hard = d.join("hard.qbk");
    std::fs::hard_link(&obk, &hard).unwrap();
    for out in [&obk, &hard] {
        let r = run(QIKU_BOOK, &["import", s(&obk), "-o", s(out)], 60);
        assert_refused(&r, &["same file", "s.obk"]);
        assert_eq!(std::fs::read(&obk).unwrap(), obk_bytes, "import destroyed its input");
    }
    // The library refuses too, whoever calls it.
    let opened = qiku::book::Book::open(&book).unwrap();
    let err = qiku::book::obk::export(&opened, &dotted).unwrap_err();
    assert!(matches!(err, qiku::book::obk::ObkError::Book(qiku::book::BookError::OutputIsInput { .. })), "{err}");
    // tune --emit: a --pgn file, and a game file inside a --pgn directory.
    let games_dir = d.join("games");
    std::fs::create_dir(&games_dir).unwrap();
    let games = games_dir.join("t.pgn");
    std::fs::copy(repertoire(), &games).unwrap();
    let games_bytes = std::fs::read(&games).unwrap();
    for (pgn, emit) in [(&games, &games), (&games_dir, &games)] {
        let r = run(QIKU, &["tune", "--pgn", s(pgn), "--emit", s(emit), "--epochs", "1", "--quiet"], 120);
        assert_refused(&r, &["same file", "t.pgn"]);
        assert_eq!(std::fs::read(&games).unwrap(), games_bytes, "tune destroyed its input");
    }
    // match --pgn: the openings file through a symbolic link; the engine's own program.
    let openings = d.join("op.txt");
    std::fs::write(&openings, "h2e2 h9g7\n").unwrap();
    let op_link = d.join("op-link.pgn");
    std::os::unix::fs::symlink(&openings, &op_link).unwrap();
    let common = ["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "2"];
    let r = run(QIKU, &[&common[..], &["--openings", s(&openings), "--pgn", s(&op_link)]].concat(), 60);
    assert_refused(&r, &["same file", "op.txt", "op-link.pgn"]);
    assert_eq!(std::fs::read_to_string(&openings).unwrap(), "h2e2 h9g7\n");
    let engine_copy = d.join("engine");
    std::fs::copy(QIKU, &engine_copy).unwrap();
    let engine_bytes = std::fs::read(&engine_copy).unwrap();
    let r = run(
        QIKU,
        &["match", "--engine", s(&engine_copy), "--engine", QIKU, "--depth", "1", "--pgn", s(&engine_copy)],
        60,
    );
    assert_refused(&r, &["same file", "engine"]);
    assert_eq!(std::fs::read(&engine_copy).unwrap(), engine_bytes);
}

/// The writing end of a pipe whose reading end is already closed: every write fails.
#[cfg(target_os = "linux")]
fn closed_pipe() -> std::fs::File {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two new descriptors into the array; close-on-exec, so that no other
    // test's child inherits the reading end.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(reader);
    std::fs::File::from(writer)
}

/// Runs `exe args` with a stdout whose reading end is already closed: every write fails.
#[cfg(target_os = "linux")]
fn run_with_closed_stdout(exe: &str, args: &[&str]) -> Output {
    let child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child.wait_with_output().expect("wait")
}

#[test]
#[cfg(target_os = "linux")]
fn a_closed_stdout_is_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path(), "b.qbk");
    let board = dir.path().join("board.txt");
    std::fs::write(&board, format!("{}\n", ".".repeat(15)).repeat(15)).unwrap();
    let game = dir.path().join("game.txt");
    std::fs::write(&game, "h8 h9 i9 g7\n").unwrap();
    let commands: Vec<(&str, Vec<&str>)> = vec![
        (QIKU, vec!["show"]),
        (QIKU, vec!["perft", "3", "--divide"]),
        (QIKU, vec!["perft", "2", "--json"]),
        (QIKU, vec!["bench", "--depth", "2"]),
        (QIKU, vec!["probe", "startpos", "--depth", "2"]),
        (QIKU, vec!["probe", "startpos", "--book", s(&book), "--json"]),
        (QIKU, vec!["analyze", "startpos", "--depth", "2"]),
        (QIKU, vec!["analyze", "startpos", "--depth", "2", "--eval", "--json"]),
        (QIKU, vec!["renju", "forbidden", "--board", s(&board), "h8"]),
        (QIKU, vec!["renju", "eval", "h8 h9"]),
        (QIKU, vec!["renju", "judge", s(&game)]),
        (QIKU, vec!["--help"]),
        (QIKU_BOOK, vec!["probe", s(&book), "startpos"]),
        (QIKU_BOOK, vec!["stats", s(&book)]),
        (QIKU_BOOK, vec!["dump", s(&book)]),
        (QIKU_TB, vec!["plan", "KRvK", "--speed", "1"]),
    ];
    for (exe, args) in commands {
        let out = run_with_closed_stdout(exe, &args);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{exe} {args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{exe} {args:?}: {err}");
        assert!(out.status.code().is_some(), "{exe} {args:?} killed by a signal");
        // `| head` is no error: nothing said, and the normal exit.
        assert!(err.is_empty() && out.status.success(), "{exe} {args:?}: {:?} {err}", out.status);
    }
}

/// `-o -` is refused by every book writer, as by the other writers: `-` is standard input to the
/// readers, and `qiku-book build ... -o -` wrote a file named `-`.
#[test]
fn a_dash_output_is_refused_by_the_book_writers() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path(), "b.qbk");
    let rep = repertoire();
    let mut commands: Vec<Vec<&str>> =
        vec![vec!["build", s(&rep), "-o", "-"], vec!["merge", s(&book), s(&book), "-o", "-"]];
    if cfg!(feature = "obk") {
        commands.push(vec!["export", s(&book), "-o", "-"]);
        commands.push(vec!["import", "any.obk", "-o", "-"]);
    }
    for args in commands {
        let out = Command::new(QIKU_BOOK).args(&args).current_dir(dir.path()).output().expect("runs");
        assert_refused(&out, &["-: this output is written as a whole file, not to standard output", "./-"]);
        assert!(!dir.path().join("-").exists(), "{args:?} wrote a file named -");
    }
}

/// A closed stderr (`qiku-book build ... 2>&1 | head -1`, the messages' reader gone) loses no
/// work: the progress lines and bad-game messages are dropped, the book and the tables are
/// written as without it, and the exit status is the usual one. The programs panicked at their
/// first message ("failed printing to stderr"), leaving no output at all.
#[test]
#[cfg(target_os = "linux")]
fn a_closed_stderr_loses_no_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A bad game before good ones: a message for it, and a progress line for the file.
    let games = d.join("games.pgn");
    let good = std::fs::read_to_string(repertoire()).unwrap();
    std::fs::write(&games, format!("1. h2e2 zz9 *\n\n{good}")).unwrap();
    let with_stderr = d.join("said.qbk");
    let r = run(QIKU_BOOK, &["build", s(&games), "-o", s(&with_stderr)], 120);
    assert!(r.status.success() && stderr(&r).contains("zz9"), "{}", stderr(&r));
    let closed_stderr = |exe: &str, args: &[&str]| {
        Command::new(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(closed_pipe())
            .status()
            .expect("spawn")
    };
    let book = d.join("quiet.qbk");
    for extra in [&[][..], &["-q"][..]] {
        let _ = std::fs::remove_file(&book);
        let status = closed_stderr(QIKU_BOOK, &[&["build", s(&games), "-o", s(&book)], extra].concat());
        assert!(status.success(), "qiku-book build {extra:?}: {status:?}");
        assert_eq!(std::fs::read(&book).unwrap(), std::fs::read(&with_stderr).unwrap());
    }
    let tables = d.join("tb");
    let status = closed_stderr(QIKU_TB, &["generate", "KRvK", "KNvK", "-d", s(&tables)]);
    assert!(status.success(), "qiku-tb generate: {status:?}");
    let r = run(QIKU_TB, &["verify", "-d", s(&tables)], 120);
    assert!(r.status.success(), "{}", stderr(&r));
    // A refusal with nobody to read it still fails, with its own status, not a panic's.
    let status = closed_stderr(QIKU_BOOK, &["build", s(&d.join("absent.pgn")), "-o", s(&book)]);
    assert_eq!(status.code(), Some(1), "{status:?}");
}

/// Runs `exe args` with `input` on stdin and `stdout` as its standard output.
#[cfg(target_os = "linux")]
fn run_with_stdout(exe: &str, args: &[&str], input: &[u8], stdout: std::fs::File) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // From a thread: a program that stops reading cannot block the test.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    out
}

/// `qiku renju play` whose manager has gone (`| head`) ends quietly, as the other commands do
/// (it said "qiku: renju play: Broken pipe (os error 32)" and failed).
#[test]
#[cfg(target_os = "linux")]
fn renju_play_on_a_closed_stdout_is_quiet() {
    let out = run_with_stdout(QIKU, &["renju", "play"], b"START 15\nBEGIN\nABOUT\n", closed_pipe());
    let err = stderr(&out);
    assert!(err.is_empty() && out.status.success(), "{:?} {err}", out.status);
}

/// Output that cannot be written for another reason than a closed pipe (a full disk, here
/// /dev/full) is an error said on stderr, with a failing exit; the commands exited 0 silently.
#[test]
#[cfg(target_os = "linux")]
fn a_full_stdout_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path(), "b.qbk");
    let tables = dir.path().join("tables");
    qiku::tablebase::generate::generate_set(
        &["KRvK".parse().unwrap()],
        &qiku::tablebase::generate::GenerateOptions::new(&tables),
    )
    .unwrap();
    let krk = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1";
    let commands: Vec<(&str, Vec<&str>, &[u8])> = vec![
        (QIKU, vec!["show"], b""),
        (QIKU, vec!["perft", "3", "--divide"], b""),
        (QIKU, vec!["analyze", "startpos", "--depth", "2", "--json"], b""),
        (QIKU, vec!["probe", "startpos", "--depth", "2"], b""),
        (QIKU, vec!["bench", "--depth", "1"], b""),
        (QIKU, vec!["renju", "forbidden", "h8"], b""),
        (QIKU, vec!["renju", "eval", "h8 h9"], b""),
        (QIKU, vec!["renju", "play"], b"START 15\nBEGIN\n"),
        (QIKU_BOOK, vec!["dump", s(&book)], b""),
        (QIKU_BOOK, vec!["stats", s(&book)], b""),
        (QIKU_TB, vec!["probe", krk, "--dir", s(&tables)], b""),
    ];
    for (exe, args, input) in commands {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = run_with_stdout(exe, &args, input, full);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{exe} {args:?}: {err}");
        assert!(err.contains("cannot write to standard output: No space left on device"), "{exe} {args:?}: {err}");
        assert!(!err.contains("panicked"), "{exe} {args:?}: {err}");
    }
}

/// Feeds `input` (written from a thread, so that a reader that stops reading cannot block the
/// test) to `qiku args` and returns everything it printed.
fn session(args: &[&str], input: Vec<u8>, limit_data: Option<u64>) -> (String, Output) {
    let mut cmd = Command::new(QIKU);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(bytes) = limit_data {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; the closure allocates nothing and touches no
        // lock between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let lim = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                if libc::setrlimit(libc::RLIMIT_DATA, &lim) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for chunk in input.chunks(1 << 20) {
            if stdin.write_all(chunk).is_err() {
                break;
            }
        }
    });
    let mut text = String::new();
    child.stdout.take().unwrap().read_to_string(&mut text).unwrap();
    writer.join().unwrap();
    let out = child.wait_with_output().unwrap();
    (text, out)
}

fn long_line(bytes: usize, newline: bool) -> Vec<u8> {
    let mut v = vec![b'x'; bytes];
    if newline {
        v.push(b'\n');
    }
    v
}

#[test]
fn overlong_protocol_lines_get_a_short_answer_and_reading_goes_on() {
    const MB20: usize = 20 << 20;
    // UCI and UCCI: a 20 MB line, then isready.
    for (hello, ok) in [("uci", "uciok"), ("ucci", "ucciok")] {
        let input = [format!("{hello}\n").into_bytes(), long_line(MB20, true), b"isready\nquit\n".to_vec()].concat();
        let (text, out) = session(&[], input, None);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(text.contains(ok), "{text}");
        assert!(text.lines().any(|l| l == "readyok"), "the engine stopped answering: {text}");
        let reply = text.lines().find(|l| l.contains("too long")).expect("the long line is answered");
        assert!(reply.starts_with("info string") && reply.ends_with("...") && reply.len() < 200, "{reply}");
        assert!(text.len() < 4000, "{} bytes of output", text.len());
    }
    // An unknown command just under the line limit is quoted briefly.
    let input = [b"uci\n".to_vec(), long_line(60_000, true), b"isready\nquit\n".to_vec()].concat();
    let (text, _) = session(&[], input, None);
    let reply = text.lines().find(|l| l.contains("unknown command")).expect("answered");
    assert!(reply.ends_with("...") && reply.len() < 200, "{reply}");
    assert!(text.lines().any(|l| l == "readyok"));
    // A 400 MB line without a newline, under a 200 MB data limit: read without keeping it
    // (the whole line used to be kept: the allocation failed and the process aborted).
    let input = [b"uci\nisready\n".to_vec(), long_line(400 << 20, false)].concat();
    let (text, out) = session(&[], input, Some(200 << 20));
    assert!(out.status.success(), "{:?} {}", out.status, stderr(&out));
    assert!(text.lines().any(|l| l == "readyok") && text.contains("too long"), "{text}");
    // Gomocup: a 20 MB line, then ABOUT; a long unknown command and a long TURN argument.
    let input = [
        b"START 15\n".to_vec(),
        long_line(MB20, true),
        format!("{}\nTURN {}\nABOUT\nEND\n", "Q".repeat(10_000), "7".repeat(10_000)).into_bytes(),
    ]
    .concat();
    let (text, out) = session(&["renju"], input, None);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text:.500}");
    assert_eq!(lines[0], "OK");
    assert!(lines[1].starts_with("ERROR line too long") && lines[1].len() < 200, "{}", lines[1]);
    assert!(lines[2].starts_with("UNKNOWN") && lines[2].len() < 200, "{}", lines[2]);
    assert!(lines[3].starts_with("ERROR") && lines[3].len() < 200, "{}", lines[3]);
    assert!(lines[4].starts_with("name=\"qiku-renju\""), "{}", lines[4]);
}

#[test]
fn leftovers_of_killed_writers_are_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let book = build_book(d, "a.qbk");
    // What SIGKILLed writers leave (PIDs above the kernel's maximum are never running), and a
    // running writer's file, which must stay.
    let dead_obk = d.join(".a.obk.4194999.Ab12Cd.tmp");
    let dead_qbk = d.join(".b.qbk.4194999.Ef34Gh.tmp");
    let dead_emit = d.join(".tuned.rs.4194999.Ij56Kl.tmp");
    let live = d.join(format!(".a.obk.{}.Zz99Zz.tmp", std::process::id()));
    for f in [&dead_obk, &dead_qbk, &dead_emit, &live] {
        std::fs::write(f, vec![0u8; 1000]).unwrap();
    }
    let obk = d.join("a.obk");
    assert!(run(QIKU_BOOK, &["export", s(&book), "-o", s(&obk)], 60).status.success());
    assert!(!dead_obk.exists() && live.exists());
    assert!(run(QIKU_BOOK, &["import", s(&obk), "-o", s(&d.join("b.qbk"))], 60).status.success());
    assert!(!dead_qbk.exists());
    let r = run(
        QIKU,
        &["tune", "--pgn", GAMES, "--max-games", "50", "--epochs", "1", "--quiet", "--emit", s(&d.join("tuned.rs"))],
        300,
    );
    assert!(r.status.success(), "{}", stderr(&r));
    assert!(!dead_emit.exists());
    // Nothing else of ours is left.
    let mut left: Vec<String> =
        std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, [live.file_name().unwrap().to_string_lossy().as_ref(), "a.obk", "a.qbk", "b.qbk", "tuned.rs"]);
}

#[test]
fn fifos_are_refused_by_the_last_four_readers() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.obk");
    mkfifo(&fifo);
    let f = s(&fifo);
    let out_qbk = dir.path().join("o.qbk");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (QIKU_BOOK, vec!["import", f, "-o", s(&out_qbk)]),
        (QIKU, vec!["renju", "judge", f]),
        (QIKU, vec!["renju", "forbidden", "--board", f]),
        (QIKU, vec!["renju", "eval", "--board", f]),
        (QIKU, vec!["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1", "--openings", f]),
    ];
    for (exe, args) in cases {
        let out = run(exe, &args, 20);
        assert_refused(&out, &["pipe.obk", "FIFO"]);
    }
    assert!(!out_qbk.exists());
}

/// An `.obk` made by `sql`.
fn crafted_obk(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let path = dir.join(name);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(sql).unwrap();
    path
}

const COLUMNS: &str = "vkey, vmove, vwin, vdraw, vlost, vvalid, vmemo";

#[test]
fn crafted_obk_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        // A view that never ends (a recursive CTE without a bound).
        (
            "cte.obk",
            format!(
                "CREATE VIEW bhobk({COLUMNS}) AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) \
                 SELECT x, x, 1, 0, 0, 1, '' FROM c;"
            ),
            "view",
        ),
        // A view of gigabyte blobs.
        (
            "blob.obk",
            format!("CREATE VIEW bhobk({COLUMNS}) AS SELECT randomblob(2000000000), 1, 1, 0, 0, 1, '';"),
            "view",
        ),
        // A table whose column is computed on every read.
        (
            "generated.obk",
            "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, \
             vvalid INTEGER, vmemo TEXT GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL);"
                .to_string(),
            "generated",
        ),
        // Columns missing or of a non-integer type.
        ("missing.obk", "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER);".to_string(), "no column vwin"),
        (
            "types.obk",
            "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER, vwin BLOB, vdraw INTEGER, vlost INTEGER, \
             vvalid INTEGER, vmemo TEXT);"
                .to_string(),
            "not an integer type",
        ),
        // No bhobk at all.
        ("none.obk", "CREATE TABLE other(x);".to_string(), "no bhobk table"),
        // A trigger.
        (
            "trigger.obk",
            "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, \
             vvalid INTEGER, vmemo TEXT);
             CREATE TRIGGER t AFTER INSERT ON bhobk BEGIN SELECT randomblob(2000000000); END;"
                .to_string(),
            "trigger",
        ),
    ];
    for (name, sql, why) in cases {
        let obk = crafted_obk(d, name, &sql);
        let out_qbk = d.join("out.qbk");
        let out = run(QIKU_BOOK, &["import", s(&obk), "-o", s(&out_qbk)], 30);
        assert_refused(&out, &[name, why, "not a BHGUI .obk book"]);
        assert!(!out_qbk.exists(), "{name}: an output was written");
    }
    // A view named qiku_book (the header table) beside a good bhobk is not read.
    let book = build_book(d, "a.qbk");
    let good = d.join("good.obk");
    assert!(run(QIKU_BOOK, &["export", s(&book), "-o", s(&good)], 60).status.success());
    let conn = rusqlite::Connection::open(&good).unwrap();
    conn.execute_batch(
        "DROP TABLE qiku_book; CREATE VIEW qiku_book(header) AS WITH RECURSIVE c(x) AS \
         (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0;",
    )
    .unwrap();
    drop(conn);
    let out = run(QIKU_BOOK, &["import", s(&good), "-o", s(&d.join("good.qbk"))], 60);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn symbolic_link_loops_are_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    let sub = games.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(repertoire(), games.join("a.pgn")).unwrap();
    std::fs::copy(repertoire(), sub.join("b.pgn")).unwrap();
    // Two loops: a link to the directory itself and one from the subdirectory to its parent.
    std::os::unix::fs::symlink(&games, games.join("self")).unwrap();
    std::os::unix::fs::symlink("..", sub.join("up")).unwrap();
    let found = qiku::xqf::expand_inputs(std::slice::from_ref(&games)).unwrap();
    assert_eq!(found, [games.join("a.pgn"), sub.join("b.pgn")]);
    // The book built from the directory has the games of the two files, each read once.
    let out = dir.path().join("o.qbk");
    let r = run(QIKU_BOOK, &["build", s(&games), "-o", s(&out), "--json", "--quiet"], 120);
    assert!(r.status.success(), "{}", stderr(&r));
    let once = qiku::book::build(&[repertoire()], &dir.path().join("once.qbk"), &Default::default()).unwrap();
    let twice = qiku::book::Book::open(&out).unwrap().header().games.read;
    assert_eq!(twice, 2 * once.header.games.read);
}

/// A symbolic link whose target does not exist, found by listing an input directory, is skipped
/// with a warning that says what it is (the build goes on with the other files, and counts it);
/// a directory whose only game files are such links builds nothing and says so.
#[test]
fn broken_links_in_a_directory_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    std::fs::copy(repertoire(), games.join("a.pgn")).unwrap();
    let dangling = games.join("dangling.pgn");
    std::os::unix::fs::symlink(dir.path().join("gone.pgn"), &dangling).unwrap();
    let out = dir.path().join("o.qbk");
    let r = run(QIKU_BOOK, &["build", s(&games), "-o", s(&out), "--json", "--quiet"], 120);
    let err = stderr(&r);
    assert!(r.status.success(), "{err}");
    let said = format!(
        "warning: {}: a symbolic link whose target {} does not exist, found in {}; skipped",
        dangling.display(),
        dir.path().join("gone.pgn").display(),
        games.display()
    );
    assert!(err.contains(&said), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).expect("one JSON object");
    assert_eq!(v["broken_links"], serde_json::json!([s(&dangling)]), "{v}");
    assert_eq!(v["files"].as_array().map(Vec::len), Some(1), "{v}");
    // The text summary counts it.
    let r = run(QIKU_BOOK, &["build", s(&games), "-o", s(&out), "--quiet"], 120);
    assert!(String::from_utf8_lossy(&r.stdout).contains("broken links skipped 1"), "{}", stderr(&r));
    // Only a broken link: nothing to build, and the message names the link.
    std::fs::remove_file(games.join("a.pgn")).unwrap();
    let r = run(QIKU_BOOK, &["build", s(&games), "-o", s(&dir.path().join("p.qbk")), "--quiet"], 120);
    assert_refused(&r, &[s(&dangling), "its only game file is a symbolic link whose target does not exist"]);
}

#[test]
fn absurd_table_selections_are_refused_and_the_largest_is_planned_quickly() {
    for (args, flag) in [
        (vec!["plan", "--max-pieces", "100"], "--max-pieces"),
        (vec!["plan", "--max-pieces", "2"], "--max-pieces"),
        (vec!["plan", "--max-attackers", "99999999999999"], "--max-attackers"),
        (vec!["generate", "--max-defenders", "9"], "--max-defenders"),
        (vec!["generate", "--max-attackers", "ten"], "--max-attackers"),
    ] {
        let out = run(QIKU_TB, &args, 20);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag) && err.contains("expected a whole number from"), "{err}");
    }
    // The largest accepted selections: every table of up to 12 pieces, once; nothing beyond.
    let dir = tempfile::tempdir().unwrap();
    for filter in [["--max-pieces", "12"], ["--max-attackers", "10"], ["--max-defenders", "8"]] {
        let out = run(QIKU_TB, &["plan", filter[0], filter[1], "--speed", "1", "-d", s(dir.path())], 120);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        let summary = text.lines().find(|l| l.contains(" tables (")).expect("summary line");
        assert!(summary.starts_with("109979 tables (109979 selected, 0 dependencies)"), "{filter:?}: {summary}");
    }
}

/// A huge position argument or opening line is quoted in part in the error (the whole
/// 100,000 characters came back in each message).
#[test]
fn a_huge_fen_is_quoted_in_part() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a".repeat(100_000);
    // An opening of moves, and one of a FEN.
    let openings = dir.path().join("openings.txt");
    std::fs::write(&openings, format!("{long}\n")).unwrap();
    let fen_openings = dir.path().join("fen-openings.txt");
    std::fs::write(&fen_openings, format!("9/9/9/9/9/9/9/9/9/{long} w\n")).unwrap();
    let moves = format!("startpos moves {long}");
    let mut runs: Vec<(&str, Vec<&str>)> = vec![
        (QIKU, vec!["show", &long]),
        (QIKU, vec!["show", &moves]),
        (QIKU, vec!["show", &long, "b"]),
        (QIKU, vec!["perft", "1", "--fen", &long]),
        (QIKU, vec!["analyze", "--moves", &long]),
        (QIKU_TB, vec!["probe", &long]),
    ];
    for file in [&openings, &fen_openings] {
        let game = ["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "2"];
        runs.push((QIKU, [&game[..], &["--openings", s(file)]].concat()));
    }
    for (exe, args) in runs {
        let out = run(exe, &args, 60);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{exe}: {}", &err[..err.len().min(300)]);
        assert!(err.len() < 1000, "{exe}: {} bytes: {}", err.len(), &err[..300]);
        assert!(err.contains(&format!("{}...", "a".repeat(60))), "{exe}: {err}");
    }
}

/// `match --pgn` naming a book (or another binary file of a known kind) says what the file is;
/// it said the book "holds text that is not UTF-8". The file is left as it was.
#[test]
fn match_pgn_naming_a_book_says_it_is_a_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path(), "b.qbk");
    let before = std::fs::read(&book).unwrap();
    let args = ["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "2", "--pgn", s(&book)];
    let out = run(QIKU, &args, 60);
    assert_refused(&out, &["b.qbk", "a qiku opening book (.qbk)", "choose another --pgn"]);
    assert!(!stderr(&out).contains("UTF-8"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&book).unwrap(), before);
}

/// Files named on the command line are read whole only up to a limit: a Renju game or board
/// (`qiku renju judge FILE`, `--board FILE`) at most a MiB, as standard input already was, an
/// openings file (`qiku match --openings FILE`) at most 16 MiB. A larger file is refused before
/// it is read, naming the file, its size and the limit (it was read whole, however large); a
/// FIFO is refused at once, never waited on. A file of exactly the limit is read.
#[test]
fn files_over_their_limit_and_fifos_are_refused_naming_size_and_limit() {
    use qiku_cli::matchrunner::openings::{self, Problem, OPENINGS_LIMIT};
    let dir = tempfile::tempdir().unwrap();
    // Sparse files: the sizes cost no disk.
    let sized = |name: &str, text: &str, size: u64| {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f.set_len(size).unwrap();
        path
    };
    let limit = qiku_cli::TEXT_LIMIT;
    assert_eq!(limit, 1 << 20);
    let big = sized("game.txt", "h8 h9\n", limit + 1);
    let too_large = format!("{}: {} bytes, more than the limit of {limit} bytes (1 MiB)", s(&big), limit + 1);
    assert_refused(&run(QIKU, &["renju", "judge", s(&big)], 20), &[&too_large]);
    assert_refused(&run(QIKU, &["renju", "forbidden", "--board", s(&big)], 20), &[&too_large]);
    // At the limit: read (a game of two moves and spaces).
    let at_limit = dir.path().join("at-limit.txt");
    std::fs::write(&at_limit, format!("h8 h9{}", " ".repeat(limit as usize - 5))).unwrap();
    assert_eq!(std::fs::metadata(&at_limit).unwrap().len(), limit);
    let out = run(QIKU, &["renju", "judge", s(&at_limit)], 20);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "unfinished after 2 moves\n", "{}", stderr(&out));
    // Openings.
    assert_eq!(OPENINGS_LIMIT, 16 << 20);
    let big = sized("openings.txt", "h2e2 h9g7\n", OPENINGS_LIMIT + 1);
    let err = openings::load(&big).unwrap_err();
    assert_eq!(err.reason, Problem::TooLarge { size: OPENINGS_LIMIT + 1, limit: OPENINGS_LIMIT });
    let out = run(QIKU, &["match", "--engine", "/nonexistent", "--engine", "/nonexistent", "--openings", s(&big)], 20);
    let words = format!(
        "{}: {} bytes, more than the limit of {OPENINGS_LIMIT} bytes (16 MiB); an openings file holds one short line \
         per opening",
        s(&big),
        OPENINGS_LIMIT + 1
    );
    assert_refused(&out, &[&words]);
    let fine = sized("fine.txt", "h2e2 h9g7\n", 10);
    assert_eq!(openings::load(&fine).unwrap().len(), 1);
    // FIFOs: refused at once, naming the file (no writer ever comes).
    let fifo = dir.path().join("fifo.txt");
    mkfifo(&fifo);
    let t = std::time::Instant::now();
    assert_refused(&run(QIKU, &["renju", "judge", s(&fifo)], 20), &[s(&fifo), "not a regular file"]);
    let err = openings::load(&fifo).unwrap_err();
    assert!(matches!(err.reason, Problem::Read(_)), "{err}");
    assert!(err.to_string().starts_with(&format!("{}: cannot read: ", s(&fifo))), "{err}");
    let out = run(QIKU, &["match", "--engine", "/nonexistent", "--engine", "/nonexistent", "--openings", s(&fifo)], 20);
    assert_refused(&out, &[s(&fifo)]);
    assert!(t.elapsed() < std::time::Duration::from_secs(10), "{:?}", t.elapsed());
}
