//! What the book writers must not destroy, run as a user would: a file of games or a GUI's book
//! at the output path is left alone (unless `--force`), the advice for a file given where a book
//! belongs never names that file as an output, Ctrl-C or SIGTERM in the middle of a build, an
//! export or an import leaves the previous output byte for byte and no temporary file behind,
//! and a book that cannot become a usable `.obk` is not exported as an empty one.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BOOK: &str = env!("CARGO_BIN_EXE_qiku-book");
const QIKU: &str = env!("CARGO_BIN_EXE_qiku");

fn run(exe: &str, args: &[&str]) -> Output {
    crate::common::run_with_timeout(exe, args, 120)
}

fn ok(args: &[&str]) -> String {
    let out = run(BOOK, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command that must fail with status 1; its stderr.
fn fails(exe: &str, args: &[&str]) -> String {
    let out = run(exe, args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The hidden files in `dir`: temporary outputs (`.NAME.PID@HOST.*.tmp`) and spill directories.
fn hidden(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// `build`, `merge`, `import` and `export` leave a file that is not of the kind they write as it
/// was, say what it appears to be and what to do; a book of the kind written is replaced, and so
/// is anything with `--force`.
#[test]
fn writers_replace_only_books_of_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = d.join("games.pgn");
    std::fs::copy(root().join("books/repertoire.pgn"), &games).unwrap();
    let victim = d.join("victim.pgn");
    std::fs::copy(&games, &victim).unwrap();
    let victim_bytes = std::fs::read(&victim).unwrap();
    let (qbk, obk) = (d.join("rep.qbk"), d.join("rep.obk"));
    ok(&["build", s(&games), "-o", s(&qbk), "-q"]);
    ok(&["export", s(&qbk), "-o", s(&obk), "-q"]);
    let suggested_qbk = format!("-o {}", d.join("victim.qbk").display());
    let suggested_obk = format!("-o {}", d.join("victim.obk").display());
    for (args, kind, suggested) in [
        (vec!["build", s(&games), "-o", s(&victim), "-q"], "a .qbk book", &suggested_qbk),
        (vec!["merge", s(&qbk), s(&qbk), "-o", s(&victim)], "a .qbk book", &suggested_qbk),
        (vec!["import", s(&obk), "-o", s(&victim), "-q"], "a .qbk book", &suggested_qbk),
        (vec!["export", s(&qbk), "-o", s(&victim), "-q"], "an .obk book", &suggested_obk),
    ] {
        let e = fails(BOOK, &args);
        let what = format!("{}: exists and appears to be a PGN file of games, not {kind}", victim.display());
        assert!(e.contains(&what), "{args:?}: {e}");
        assert!(e.contains(suggested.as_str()) && e.contains("or pass --force to replace it"), "{args:?}: {e}");
        assert_eq!(std::fs::read(&victim).unwrap(), victim_bytes, "{args:?} changed the games");
    }
    // A GUI's .obk where a .qbk is written, and a .qbk where an .obk is: refused by content, not
    // by name.
    let obk_bytes = std::fs::read(&obk).unwrap();
    let gui = d.join("gui.qbk");
    std::fs::copy(&obk, &gui).unwrap();
    let e = fails(BOOK, &["build", s(&games), "-o", s(&gui), "-q"]);
    assert!(e.contains("appears to be an .obk (SQLite) opening book, not a .qbk book"), "{e}");
    assert!(e.contains(&format!("-o {}", d.join("gui-book.qbk").display())), "{e}");
    assert_eq!(std::fs::read(&gui).unwrap(), obk_bytes);
    let qbk_bytes = std::fs::read(&qbk).unwrap();
    let named_obk = d.join("named.obk");
    std::fs::copy(&qbk, &named_obk).unwrap();
    let e = fails(BOOK, &["export", s(&qbk), "-o", s(&named_obk), "-q"]);
    assert!(e.contains("appears to be a qiku opening book (.qbk), not an .obk book"), "{e}");
    assert_eq!(std::fs::read(&named_obk).unwrap(), qbk_bytes);
    // Another program's SQLite database is no .obk either.
    let db = d.join("other.obk");
    rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE notes(x TEXT);").unwrap();
    let db_bytes = std::fs::read(&db).unwrap();
    let e = fails(BOOK, &["export", s(&qbk), "-o", s(&db), "-q"]);
    // Said once, not "... that is not an .obk book (no bhobk table), not an .obk book".
    assert!(e.contains("appears to be an SQLite database with no bhobk table, not an .obk book"), "{e}");
    assert_eq!(e.matches("not an .obk book").count(), 1, "{e}");
    assert_eq!(std::fs::read(&db).unwrap(), db_bytes);
    // Rebuilding a book, re-exporting an .obk, importing over a .qbk: allowed, as always.
    ok(&["build", s(&games), "-o", s(&qbk), "-q", "--max-ply", "10"]);
    ok(&["export", s(&qbk), "-o", s(&obk), "-q"]);
    ok(&["import", s(&obk), "-o", s(&qbk), "-q"]);
    // Merging: a copy of a book is refused (its games would count twice), another book's merge
    // replaces the book the last one wrote.
    let copy = d.join("copy.qbk");
    std::fs::copy(&qbk, &copy).unwrap();
    let e = fails(BOOK, &["merge", s(&qbk), s(&copy), "-o", s(&d.join("twice.qbk"))]);
    assert!(e.contains(&format!("{}: cannot merge: holds the same records as {}", s(&copy), s(&qbk))), "{e}");
    let (one, other) = (d.join("one.qbk"), d.join("other.qbk"));
    ok(&["build", s(&games), "-o", s(&one), "-q", "--max-ply", "10", "--event", "中炮"]);
    ok(&["build", s(&games), "-o", s(&other), "-q", "--max-ply", "10", "--event", "五七炮"]);
    ok(&["merge", s(&one), s(&other), "-o", s(&d.join("two.qbk"))]);
    ok(&["merge", s(&one), s(&other), "-o", s(&d.join("two.qbk"))]);
    assert!(hidden(d).is_empty(), "{:?}", hidden(d));
    // --force replaces the games with a book.
    ok(&["build", s(&games), "-o", s(&victim), "-q", "--force"]);
    assert!(std::fs::read(&victim).unwrap().starts_with(b"QIKUBOOK"));
    ok(&["export", s(&qbk), "-o", s(&db), "-q", "--force"]);
    assert!(qiku::book::obk::is_obk(&db));
}

/// `qiku demo` writes its book under a fixed name: a file of games there is left alone.
#[test]
fn the_demo_keeps_a_file_of_another_kind_at_its_book_path() {
    let dir = tempfile::tempdir().unwrap();
    let books = dir.path().join("books");
    std::fs::create_dir(&books).unwrap();
    let games = books.join("repertoire.qbk");
    std::fs::copy(root().join("books/repertoire.pgn"), &games).unwrap();
    let before = std::fs::read(&games).unwrap();
    let e = fails(QIKU, &["demo", "--root", s(dir.path()), "--max-pieces", "3"]);
    let said = format!("{}: exists and appears to be a PGN file of games, not a .qbk book", games.display());
    assert!(e.contains(&said) && e.contains("move the file away or give another --root"), "{e}");
    assert_eq!(std::fs::read(&games).unwrap(), before);
    assert!(!dir.path().join("tablebases").exists(), "the demo went on");
}

/// `qiku annotate`, `qiku tune --write-positions`/`--emit` and `qiku label` leave a book (or any
/// file of another kind) at their output as it was, naming it and the ways out; they replace their
/// own kind (text, games), and anything with `--force`. (They replaced a book silently.)
#[test]
fn annotate_tune_and_label_replace_only_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = d.join("games.pgn");
    std::fs::copy(root().join("books/repertoire.pgn"), &games).unwrap();
    let victim = d.join("victim.qbk");
    ok(&["build", s(&games), "-o", s(&victim), "-q"]);
    let victim_bytes = std::fs::read(&victim).unwrap();
    let positions = d.join("positions.tsv");
    let tune = |out_flag: &str, out: &Path, more: &[&str]| {
        let mut args = vec!["tune", "--pgn", s(&games), "--epochs", "1", "--quiet", out_flag, s(out)];
        args.extend_from_slice(more);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let annotate = |out: &Path, more: &[&str]| {
        let mut args = vec!["annotate", s(&games), "-o", s(out), "--no-eval", "--book", s(&victim), "-q"];
        args.extend_from_slice(more);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let qiku_ok = |args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(QIKU, &args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    qiku_ok(&tune("--write-positions", &positions, &[]));
    let label = |out: &Path, more: &[&str]| {
        let mut args = vec!["label", s(&positions), s(out), "--nodes", "1", "--quiet"];
        args.extend_from_slice(more);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    // A copy of the book is the victim of annotate (its own book is an input, refused otherwise).
    let copy = d.join("copy.qbk");
    std::fs::copy(&victim, &copy).unwrap();
    for (args, kind, suggested) in [
        (annotate(&copy, &[]), "a PGN file of games", format!("-o {}", d.join("copy.pgn").display())),
        (
            tune("--write-positions", &victim, &[]),
            "a text file of positions",
            format!("--write-positions {}", d.join("victim.tsv").display()),
        ),
        (tune("--emit", &victim, &[]), "a Rust source file", format!("--emit {}", d.join("victim.rs").display())),
        (label(&victim, &[]), "a text file of positions", format!("say {})", d.join("victim.tsv").display())),
    ] {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let e = fails(QIKU, &argv);
        let target = if argv[0] == "annotate" { &copy } else { &victim };
        let what = format!("{}: exists and appears to be a qiku opening book (.qbk), not {kind}", target.display());
        assert!(e.contains(&what), "{args:?}: {e}");
        assert!(e.contains(&suggested) && e.contains("or pass --force to replace it"), "{args:?}: {e}");
        assert_eq!(std::fs::read(target).unwrap(), victim_bytes, "{args:?} changed the book");
    }
    // Their own kind is replaced, as always: annotated games, positions, scored positions, source.
    let (ann, scored, rs) = (d.join("ann.pgn"), d.join("scored.tsv"), d.join("tuned.rs"));
    for _ in 0..2 {
        qiku_ok(&annotate(&ann, &[]));
        qiku_ok(&tune("--write-positions", &positions, &[]));
        qiku_ok(&label(&scored, &[]));
        qiku_ok(&tune("--emit", &rs, &[]));
    }
    // A file of games is no file of positions.
    let other_games = d.join("other.pgn");
    std::fs::copy(&games, &other_games).unwrap();
    let e = fails(QIKU, &tune("--write-positions", &other_games, &[]).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("a PGN file of games, not a text file of positions"), "{e}");
    // --force replaces the book.
    qiku_ok(&annotate(&copy, &["--force"]));
    assert!(std::fs::read_to_string(&copy).unwrap().contains("[Event"));
    qiku_ok(&tune("--emit", &victim, &["--force"]));
    assert!(std::fs::read_to_string(&victim).unwrap().starts_with("// qiku tune"));
}

/// A file given where a book belongs gets advice whose output is never that file: following it
/// makes a book and leaves the games (or the GUI's book) as they were.
#[test]
fn advice_never_names_the_file_given_as_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let three = d.join("three.pgn");
    std::fs::copy(root().join("books/repertoire.pgn"), &three).unwrap();
    let three_bytes = std::fs::read(&three).unwrap();
    let three_qbk = d.join("three.qbk");
    let build_hint = format!("`qiku-book build {} -o {}`", three.display(), three_qbk.display());
    let (x_obk, m_qbk, ann) = (d.join("x.obk"), d.join("m.qbk"), d.join("ann.pgn"));
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (BOOK, vec!["probe", s(&three)]),
        (BOOK, vec!["stats", s(&three)]),
        (BOOK, vec!["dump", s(&three)]),
        (BOOK, vec!["export", s(&three), "-o", s(&x_obk)]),
        (BOOK, vec!["merge", s(&three), s(&three), "-o", s(&m_qbk)]),
        (QIKU, vec!["probe", "--book", s(&three)]),
        (QIKU, vec!["serve", "--book", s(&three), "--port", "0"]),
        (QIKU, vec!["annotate", s(&three), "-o", s(&ann), "--book", s(&three), "--no-eval"]),
    ];
    for (exe, args) in &cases {
        let e = fails(exe, args);
        assert!(e.contains(&build_hint), "{args:?}: {e}");
        assert!(!e.contains(&format!("-o {}`", three.display())), "{args:?}: {e}");
    }
    // Following the advice: a book, the games untouched.
    ok(&["build", s(&three), "-o", s(&three_qbk), "-q"]);
    assert_eq!(std::fs::read(&three).unwrap(), three_bytes);
    ok(&["probe", s(&three_qbk)]);
    // A GUI's book, even one named .qbk: import it to a new name.
    let gui = d.join("x.obk");
    ok(&["export", s(&three_qbk), "-o", s(&gui), "-q"]);
    let odd = d.join("odd.qbk");
    std::fs::copy(&gui, &odd).unwrap();
    for (path, to) in [(&gui, d.join("x.qbk")), (&odd, d.join("odd-book.qbk"))] {
        let hint = format!("convert it first with `qiku-book import {} -o {}`", path.display(), to.display());
        for (exe, args) in [(QIKU, vec!["serve", "--book", s(path), "--port", "0"]), (BOOK, vec!["probe", s(path)])] {
            let e = fails(exe, &args);
            assert!(e.contains(&hint), "{args:?}: {e}");
        }
        let bytes = std::fs::read(path).unwrap();
        ok(&["import", s(path), "-o", s(&to), "-q"]);
        assert_eq!(std::fs::read(path).unwrap(), bytes);
        ok(&["probe", s(&to)]);
    }
    // A missing book: the name asked for, with the .qbk extension.
    let e = fails(QIKU, &["serve", "--book", s(&d.join("new.obk")), "--port", "0"]);
    assert!(e.contains(&format!("qiku-book build GAMES.pgn -o {}`", d.join("new.qbk").display())), "{e}");
}

/// A writer started with stderr read line by line (its progress lines: stderr is a pipe).
struct Running {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    stderr: Vec<String>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        Running::start_with(args, Stdio::null())
    }

    fn start_with(args: &[&str], stdin: Stdio) -> Running {
        let mut child =
            Command::new(BOOK).args(args).stdin(stdin).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let (tx, lines) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Running { child, lines, stderr: Vec::new() }
    }

    /// Waits (at most a minute) for the first stderr line containing `text`.
    fn wait_for_line(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
                let found = line.contains(text);
                self.stderr.push(line);
                if found {
                    return;
                }
            }
        }
        let _ = self.child.kill();
        panic!("no line with {text:?} in a minute: {:?}", self.stderr);
    }

    fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: kill only sends a signal, to the child this test started and has not waited for
        // (so the pid is still its own).
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }

    /// Waits (at most a minute) for the end: the exit code and all of stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("still running a minute after the signal: {:?}", self.stderr);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader thread ends with the pipe.
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(10)) {
            self.stderr.push(line);
        }
        (status.code(), self.stderr.join("\n"))
    }
}

/// Ctrl-C in the middle of a build of the shipped games, with spilled runs on disk beside the
/// output: exit status 130, the message, the previous book byte for byte (or no book when
/// there was none), and no temporary file or spill directory left in the output's directory.
#[test]
fn ctrl_c_during_a_build_writes_nothing_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("games.qbk");
    ok(&["build", s(&root().join("books/repertoire.pgn")), "-o", s(&out), "-q"]);
    let before = std::fs::read(&out).unwrap();
    let games = root().join("books/games");
    for existed in [true, false] {
        if !existed {
            std::fs::remove_file(&out).unwrap();
        }
        // A small record budget and one thread: many spilled runs, and seconds of reading.
        let mut build = Running::start(&["build", s(&games), "-o", s(&out), "--memory", "1M", "--threads", "1"]);
        build.wait_for_line("reading games:");
        // Interrupted once runs are spilled, so that their removal is tested.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !hidden(d).iter().any(|n| n.starts_with(".qiku-book-spill.")) {
            assert!(Instant::now() < deadline, "no spill directory appeared in {}", d.display());
            std::thread::sleep(Duration::from_millis(5));
        }
        build.signal(libc::SIGINT);
        let (code, stderr) = build.finish();
        assert_eq!(code, Some(130), "{stderr}");
        let said = if existed {
            format!("qiku-book: interrupted; nothing written ({} is unchanged)", out.display())
        } else {
            format!("qiku-book: interrupted; nothing written (no {} was made)", out.display())
        };
        assert!(stderr.lines().any(|l| l == said), "{stderr}");
        if existed {
            assert!(std::fs::read(&out).unwrap() == before, "the book changed");
        } else {
            assert!(!out.exists(), "a book was made");
        }
        assert!(hidden(d).is_empty(), "left behind: {:?}", hidden(d));
    }
}

/// Ctrl-C during a build from standard input whose producer sends nothing more (a slow pipe, a
/// terminal): the build stops at once, not when the input ends, whether it waits for the first
/// bytes or for more games.
#[test]
fn ctrl_c_during_a_build_waiting_for_standard_input_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stdin.qbk");
    let games = std::fs::read(root().join("books/repertoire.pgn")).unwrap();
    for send_games in [false, true] {
        let mut build = Running::start_with(&["build", "-", "-o", s(&out)], Stdio::piped());
        // Held open (never closed) until the build has ended.
        let mut input = build.child.stdin.take().unwrap();
        if send_games {
            input.write_all(&games).unwrap();
            input.flush().unwrap();
        }
        // Time for the signal handlers to be set and the games to be read.
        std::thread::sleep(Duration::from_secs(1));
        build.signal(libc::SIGINT);
        let (code, stderr) = build.finish();
        drop(input);
        assert_eq!(code, Some(130), "with games sent: {send_games}: {stderr}");
        let said = format!("qiku-book: interrupted; nothing written (no {} was made)", out.display());
        assert!(stderr.lines().any(|l| l == said), "{stderr}");
        assert!(!out.exists());
    }
}

/// Ctrl-C during an export and SIGTERM during an import of a large book: 130 and 143, the
/// previous file kept, no temporary file left.
#[test]
fn ctrl_c_during_an_export_or_import_leaves_the_previous_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (qbk, obk) = (d.join("ccpd.qbk"), d.join("ccpd.obk"));
    ok(&["build", s(&root().join("books/games/ccpd-iccs.pgn.zst")), "-o", s(&qbk), "-q"]);
    ok(&["export", s(&qbk), "-o", s(&obk), "-q"]);
    let (small_qbk, small_obk) = (d.join("small.qbk"), d.join("small.obk"));
    ok(&["build", s(&root().join("books/repertoire.pgn")), "-o", s(&small_qbk), "-q"]);
    ok(&["export", s(&small_qbk), "-o", s(&small_obk), "-q"]);
    let (qbk_before, obk_before) = (std::fs::read(&small_qbk).unwrap(), std::fs::read(&small_obk).unwrap());
    for (args, phase, signal, status, kept, before) in [
        (vec!["export", s(&qbk), "-o", s(&small_obk)], "writing:", libc::SIGINT, 130, &small_obk, &obk_before),
        (vec!["import", s(&obk), "-o", s(&small_qbk)], "reading:", libc::SIGTERM, 143, &small_qbk, &qbk_before),
    ] {
        let mut job = Running::start(&args);
        job.wait_for_line(phase);
        job.signal(signal);
        let (code, stderr) = job.finish();
        assert_eq!(code, Some(status), "{args:?}: {stderr}");
        let said = format!("qiku-book: interrupted; nothing written ({} is unchanged)", kept.display());
        assert!(stderr.lines().any(|l| l == said), "{args:?}: {stderr}");
        assert!(std::fs::read(kept).unwrap() == *before, "{args:?} changed {}", kept.display());
        assert!(hidden(d).is_empty(), "{args:?} left behind: {:?}", hidden(d));
    }
}

/// A book built with `--only black` has no red move at the start: its export would hold no
/// position, and one built with `--only red` the start position alone. Both are refused, saying
/// why and what to do, and write nothing; so is a book none of whose moves can be reached from
/// the start. A book most of whose moves are reachable is written, with a warning for the rest.
#[test]
fn books_that_cannot_become_a_usable_obk_are_not_exported() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = root().join("books/repertoire.pgn");
    for (side, other, reach) in
        [("black", "red", "no position can be reached"), ("red", "black", "the start position alone")]
    {
        let (qbk, obk) = (d.join(format!("{side}.qbk")), d.join(format!("{side}.obk")));
        ok(&["build", s(&games), "-o", s(&qbk), "-q", "--only", side]);
        let e = fails(BOOK, &["export", s(&qbk), "-o", s(&obk), "-q"]);
        let why =
            format!("built with --only {side}: an .obk's positions are found by playing book moves from the start");
        assert!(e.contains(&why) && e.contains(&format!("this book has no {other} moves")), "{e}");
        assert!(e.contains(reach) && e.contains("nothing was written"), "{e}");
        assert!(e.contains("Build a book of both sides from the same games (without --only) and export that"), "{e}");
        assert!(!obk.exists(), "{side}: an .obk was written");
    }
    // Games that all start from a set-up position: nothing reachable from the start.
    let fen = d.join("fen.pgn");
    std::fs::write(
        &fen,
        "[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1\"]\n[Result \"1-0\"]\n\n\
         1... h9g7 2. h0g2 1-0\n",
    )
    .unwrap();
    ok(&["build", s(&fen), "-o", s(&d.join("fen.qbk")), "-q"]);
    let e = fails(BOOK, &["export", s(&d.join("fen.qbk")), "-o", s(&d.join("fen.obk")), "-q"]);
    assert!(e.contains("none of its 2 book moves is reachable from the start position"), "{e}");
    assert!(e.contains("nothing was written") && !d.join("fen.obk").exists(), "{e}");
    // Pruned by --min-games: most of the book is written, the rest counted in a warning.
    ok(&["build", s(&games), "-o", s(&d.join("pruned.qbk")), "-q", "--min-games", "2"]);
    let out = run(BOOK, &["export", s(&d.join("pruned.qbk")), "-o", s(&d.join("pruned.obk")), "-q"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(e.contains("qiku-book: warning: 1 of the book's 50 moves is not reachable from the start position"), "{e}");
    assert!(qiku::book::obk::is_obk(&d.join("pruned.obk")));
    assert!(hidden(d).is_empty(), "{:?}", hidden(d));
}
