//! `qiku-book`'s writers at the limits of the machine and of their inputs: more game files than
//! file descriptors, a damaged input, files in a directory that are no games, an output that
//! names a directory or cannot be written, a disk that fills up. Each test fails on the code
//! before the fix.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qiku_book() -> &'static str {
    env!("CARGO_BIN_EXE_qiku-book")
}

fn run(args: &[&str]) -> Output {
    Command::new(qiku_book()).args(args).output().expect("run qiku-book")
}

/// Runs `qiku-book args` under the shell's `limits` (`ulimit -n 64`, say), with SIGXFSZ
/// ignored so that a file-size limit makes writes fail as a full disk does instead of killing
/// the program.
fn run_limited(limits: &str, args: &[&str]) -> Output {
    let script = format!("trap '' XFSZ; {limits} && exec \"$0\" \"$@\"");
    Command::new("sh").arg("-c").arg(script).arg(qiku_book()).args(args).output().expect("run sh")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn iccs_games() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-iccs.pgn.zst")
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

/// Files in the directory `dir` whose names start with a dot (temporary files, spill directories).
fn hidden(dir: &Path) -> Vec<String> {
    let names = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with('.')).collect()
}

/// A collection as one file per game, more files than the process may have open: every file used
/// to be opened before reading started, and the build failed with "Too many open files".
#[test]
fn more_game_files_than_file_descriptors_build() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    let openings = ["h2e2 h9g7", "b2e2 b9c7", "c3c4 g6g5", "h0g2 h9g7", "g3g4 c6c5"];
    for i in 0..300 {
        let moves = openings[i % openings.len()];
        let result = ["1-0", "0-1", "1/2-1/2"][i % 3];
        let game = format!("[Event \"game {i}\"]\n[Result \"{result}\"]\n\n1. {moves} {result}\n");
        std::fs::write(games.join(format!("g{i:03}.pgn")), game).unwrap();
    }
    let out = dir.path().join("games.qbk");
    let o = run_limited("ulimit -n 64", &["build", s(&games), "-o", s(&out), "-q", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(json(&o)["games_used"], 300);
    assert!(out.exists());
}

/// A damaged input (a zstd file cut short) is reported where and why it stopped, with its games
/// before the damage in the book, which is written; the build succeeds, as when games are
/// skipped. It used to replace the book and then exit with status 1, so that `build || restore`
/// threw the new book away.
#[test]
fn a_damaged_input_is_reported_and_the_rest_built() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read(iccs_games()).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &whole[..2_000_000]).unwrap();
    let small = dir.path().join("small.pgn");
    std::fs::write(&small, "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n").unwrap();
    let out = dir.path().join("book.qbk");
    let o = run(&["build", s(&small), "-o", s(&out), "-q"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let before = std::fs::read(&out).unwrap();

    let o = run(&["build", s(&cut), "-o", s(&out), "-q"]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "status {:?}: {stderr}", o.status.code());
    assert!(std::fs::read(&out).unwrap() != before, "the book is written");
    let warning = stderr.lines().find(|l| l.contains("cut.pgn.zst: unreadable")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(warning.starts_with("qiku-book: warning: "), "{warning}");
    // The game the damage cuts is reported as cut short, before the warning.
    let cut_game =
        stderr.lines().position(|l| l.contains("cut.pgn.zst: game 11503, line 236466, column 75: cut short"));
    assert!(cut_game.is_some_and(|i| i < stderr.lines().position(|l| l == warning).unwrap()), "{stderr}");
    assert!(warning.contains("(game 11504 on): decompression failed at byte 11534336 of the text: "), "{warning}");
    assert!(warning.contains("unreadable after line ") && warning.contains("games before that were read"), "{warning}");
    assert!(stdout.contains("files not read to the end 1"), "{stdout}");

    let o = run(&["build", s(&cut), "-o", s(&out), "-q", "--json"]);
    assert!(o.status.success());
    let j = json(&o);
    assert_eq!(j["files_damaged"], 1);
    let file = &j["files"][0];
    let games = file["games"].as_u64().unwrap();
    assert!(games > 10_000 && games < 25_368, "{file}");
    assert_eq!(j["games_read"].as_u64(), Some(games));
    assert!(file["error_line"].as_u64().unwrap() > 100_000 && file["error"].is_string(), "{file}");
}

/// The first 40,000 bytes of the ICCS collection: games 1 to 37 whole, then game 38 cut in its
/// movetext (`... 13. C4-C5`, no result token). The cut game used to be taken as a complete
/// game; it is counted as cut short, skipped and reported, or with `--keep-prefix` used.
#[test]
fn a_game_the_file_ends_in_is_counted_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let mut whole = Vec::new();
    zstd::stream::copy_decode(std::fs::File::open(iccs_games()).unwrap(), &mut whole).unwrap();
    let cut = dir.path().join("cut.pgn");
    std::fs::write(&cut, &whole[..40_000]).unwrap();
    let out = dir.path().join("book.qbk");

    let o = run(&["build", s(&cut), "-o", s(&out), "-q", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let j = json(&o);
    assert_eq!((j["games_read"].as_u64(), j["games_used"].as_u64()), (Some(38), Some(37)), "{j}");
    assert_eq!(j["cut_short"], 1);
    assert_eq!(j["skipped"]["cut_short"], 1);
    assert_eq!(j["games_skipped"], 1);
    let e = &j["errors"][0];
    assert_eq!((e["game"].as_u64(), e["reason"].as_str()), (Some(38), Some("cut_short")), "{e}");
    assert_eq!((e["line"].as_u64(), e["column"].as_u64()), (Some(805), Some(42)), "{e}");

    let o = run(&["build", s(&cut), "-o", s(&out), "-q"]);
    let summary = text(&o.stdout);
    assert!(
        summary.lines().any(|l| l.starts_with("  cut short (input ended mid-game)") && l.ends_with(" 1")),
        "{summary}"
    );
    let stderr = text(&o.stderr);
    assert!(stderr.contains("cut.pgn: game 38, line 805, column 42: cut short (input ended mid-game): "), "{stderr}");

    let o = run(&["build", s(&cut), "-o", s(&out), "-q", "--json", "--keep-prefix"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let j = json(&o);
    assert_eq!((j["games_used"].as_u64(), j["cut_short"].as_u64()), (Some(38), Some(1)), "{j}");
    assert_eq!(j["games_skipped"], 0);
    let o = run(&["build", s(&cut), "-o", s(&out), "-q", "--keep-prefix"]);
    assert!(
        text(&o.stdout).contains("\n  cut short 1 (the input ended mid-game; --keep-prefix)\n"),
        "{}",
        text(&o.stdout)
    );

    // The same 40,000 bytes as a .zst whose next frame breaks off: a failure inside the first
    // 64 KiB (where the encoding is detected) used to lose all 37 games before it.
    let mut z = zstd::encode_all(&whole[..40_000], 3).unwrap();
    z.extend_from_slice(&zstd::encode_all(&whole[40_000..200_000], 3).unwrap()[..100]);
    let damaged = dir.path().join("damaged.pgn.zst");
    std::fs::write(&damaged, z).unwrap();
    let o = run(&["build", s(&damaged), "-o", s(&out), "-q", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let j = json(&o);
    assert_eq!((j["games_read"].as_u64(), j["games_used"].as_u64()), (Some(38), Some(37)), "{j}");
    assert_eq!((j["cut_short"].as_u64(), j["files_damaged"].as_u64()), (Some(1), Some(1)), "{j}");
    let error = j["files"][0]["error"].as_str().unwrap();
    assert!(error.starts_with("decompression failed at byte 40000 of the text: "), "{error}");

    // Cut just after game 37's result: nothing cut short.
    let end = whole[..40_000].windows(9).rposition(|w| w == b"\n[Game \"C").unwrap();
    std::fs::write(&cut, &whole[..end + 1]).unwrap();
    let o = run(&["build", s(&cut), "-o", s(&out), "-q", "--json"]);
    let j = json(&o);
    assert_eq!((j["games_used"].as_u64(), j["cut_short"].as_u64()), (Some(37), Some(0)), "{j}");
}

/// Files in a directory given as an input that are no game files (a readme in UTF-16 without a
/// byte-order mark, games packed with gzip, a FIFO) are skipped with a warning each, counted in
/// the summary and listed in `--json`; the book is built from the rest. One of them used to stop
/// the whole build.
#[test]
fn unusable_files_in_a_directory_are_named_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    std::fs::write(games.join("a.pgn"), "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n").unwrap();
    let utf16: Vec<u8> = "About these games.\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(games.join("readme.txt"), utf16).unwrap();
    std::fs::write(games.join("z.pgn"), b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03packed").unwrap();
    assert!(Command::new("mkfifo").arg(games.join("pipe.pgn")).status().unwrap().success());
    let out = dir.path().join("games.qbk");
    let o = run(&["build", s(&games), "-o", s(&out), "-q"]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stderr}");
    assert!(out.exists());
    for (name, cause) in [("pipe.pgn", "FIFO"), ("readme.txt", "not a game file"), ("z.pgn", "gzip")] {
        let line = stderr.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}: {stderr}"));
        assert!(line.starts_with("qiku-book: warning: ") && line.contains(cause) && line.contains("skipped"), "{line}");
    }
    assert!(stdout.contains("unusable files skipped 3"), "{stdout}");
    let o = run(&["build", s(&games), "-o", s(&out), "-q", "--json"]);
    let j = json(&o);
    let listed = j["unusable_files"].as_array().unwrap();
    assert_eq!(listed.len(), 3, "{j}");
    assert!(listed[0]["path"].as_str().unwrap().ends_with("pipe.pgn") && listed[0]["cause"].is_string());
    assert_eq!(j["files"].as_array().unwrap().len(), 1);
}

/// `--memory` below the minimum is refused with the minimum; it used to be taken (0 as a budget
/// of one record) and a build spilled a run per batch of games.
#[test]
fn a_memory_budget_below_the_minimum_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.qbk");
    for memory in ["0", "1000", "512K"] {
        let o = run(&["build", s(&iccs_games()), "-o", s(&out), "-q", "--memory", memory]);
        assert!(!o.status.success(), "--memory {memory} was taken");
        assert!(text(&o.stderr).contains("below the minimum 1M"), "{}", text(&o.stderr));
        assert!(!out.exists());
    }
}

/// An output that names a directory (ending in a slash, whether or not there is one) is refused
/// by every writer before any work, saying to give a file name; `build -o newdir/` used to read
/// every game and then fail with "Not a directory".
#[test]
fn outputs_naming_a_directory_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.qbk");
    let o = run(&["build", s(&iccs_games()), "-o", s(&book), "-q", "--recent-games", "0", "--max-ply", "4"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let obk = dir.path().join("b.obk");
    assert!(run(&["export", s(&book), "-o", s(&obk), "-q"]).status.success());
    let new = format!("{}/", dir.path().join("new").display());
    let games = iccs_games();
    let cases: [&[&str]; 4] = [
        &["build", s(&games), "-o", &new, "-q"],
        &["merge", s(&book), "-o", &new],
        &["export", s(&book), "-o", &new, "-q"],
        &["import", s(&obk), "-o", &new, "-q"],
    ];
    for args in cases {
        let started = std::time::Instant::now();
        let o = run(args);
        let stderr = text(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(stderr.contains(&new) && stderr.contains("give the name of a file"), "{args:?}: {stderr}");
        assert!(started.elapsed().as_secs() < 5, "{args:?} worked before refusing");
        assert!(!dir.path().join("new").exists());
    }
    assert!(hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
}

/// `merge` checks its output as `build` does, before reading the books: a missing directory is
/// named as such (it used to say it could not create a spill file).
#[test]
fn merge_checks_its_output_first() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.qbk");
    let small = dir.path().join("small.pgn");
    std::fs::write(&small, "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n").unwrap();
    assert!(run(&["build", s(&small), "-o", s(&book), "-q"]).status.success());
    let nodir = dir.path().join("nodir").join("x.qbk");
    let o = run(&["merge", s(&book), "-o", s(&nodir)]);
    let stderr = text(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("nodir does not exist; create it first"), "{stderr}");
}

/// A disk that fills up (a file-size limit here) while the book or its spilled runs are written:
/// the error names the book being built (and the temporary file or the directory of the
/// temporary files, with what to do), and nothing is left behind. It used to name only the
/// temporary file, or `.` and "spill file".
#[test]
fn a_full_disk_names_the_book_being_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.qbk");
    // The book (16 MB without recent games) passes the limit of 2 to 4 MB (the shell counts in
    // blocks of 512 or 1024 bytes).
    let limit = "ulimit -f 4000";
    let o = run_limited(limit, &["build", s(&iccs_games()), "-o", s(&out), "-q", "--recent-games", "0"]);
    let stderr = text(&o.stderr);
    assert!(!o.status.success());
    let expected = format!("qiku-book: {}: cannot write the book: ", out.display());
    assert!(stderr.starts_with(&expected) && stderr.contains("temporary file"), "{stderr}");
    assert!(stderr.contains("free space in"), "{stderr}");
    // With recent games, the games of the section (7 MB) are spilled first, and fail first.
    let o = run_limited(limit, &["build", s(&iccs_games()), "-o", s(&out), "-q"]);
    let stderr = text(&o.stderr);
    assert!(!o.status.success());
    let expected = format!("qiku-book: {}: cannot write a spill file in ", out.display());
    assert!(stderr.starts_with(&expected) && stderr.contains("free space in"), "{stderr}");
    assert!(!out.exists() && hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
}

/// Runs `qiku-book args` as an unprivileged user, so that permissions apply (root reads and
/// writes anywhere): as the user itself when not root, else as `nobody` through `setpriv`.
/// `None`, with the reason printed, when that cannot be done here.
fn run_unprivileged(args: &[&str]) -> Option<Output> {
    // Safety: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        return Some(run(args));
    }
    let setpriv = Path::new("/usr/bin/setpriv");
    if !setpriv.exists() {
        eprintln!("skipped: running as root without setpriv to drop the privilege");
        return None;
    }
    let mut c = Command::new(setpriv);
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", qiku_book()]).args(args);
    let o = c.output().unwrap();
    if o.stderr.starts_with(b"setpriv:") {
        eprintln!("skipped: the program cannot be run as an unprivileged user here: {}", text(&o.stderr));
        return None;
    }
    Some(o)
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// An output in a directory the user cannot write in is refused before any work (as an
/// unprivileged user: root writes anywhere). It used to read every game and then fail to create
/// a spill file or the book.
#[test]
fn an_output_in_a_read_only_directory_is_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let read_only = dir.path().join("ro");
    std::fs::create_dir(&read_only).unwrap();
    for d in [dir.path(), read_only.as_path()] {
        set_mode(d, 0o555);
    }
    let out = read_only.join("x.qbk");
    let games = iccs_games();
    let o = run_unprivileged(&["build", s(&games), "-o", s(&out), "-q"]);
    set_mode(dir.path(), 0o755);
    let Some(o) = o else { return };
    let stderr = text(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("cannot write in the directory") && stderr.contains("you can write to"), "{stderr}");
}

/// A directory below an input directory that cannot be listed is skipped with a warning and
/// counted among the unusable files, and the book is built from the rest; it used to stop the
/// whole build. When nothing else is found, the build fails naming that directory.
#[test]
fn a_directory_below_an_input_that_cannot_be_listed_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (games, private) = (dir.path().join("games"), dir.path().join("games/private"));
    std::fs::create_dir_all(&private).unwrap();
    let game = "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n";
    std::fs::write(games.join("a.pgn"), game).unwrap();
    std::fs::write(private.join("b.pgn"), game).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    set_mode(dir.path(), 0o755);
    set_mode(&out, 0o777);
    set_mode(&private, 0o000);
    let book = out.join("games.qbk");
    let built = run_unprivileged(&["build", s(&games), "-o", s(&book), "-q", "--json"]);
    std::fs::remove_file(games.join("a.pgn")).unwrap();
    let nothing = run_unprivileged(&["build", s(&games), "-o", s(&out.join("none.qbk"))]);
    set_mode(&private, 0o755);
    let (Some(built), Some(nothing)) = (built, nothing) else { return };
    let stderr = text(&built.stderr);
    assert!(built.status.success(), "{stderr}");
    let warning = format!("qiku-book: warning: {}: a directory that cannot be listed: Permission denied", s(&private));
    assert!(stderr.contains(&warning) && stderr.contains("skipped"), "{stderr}");
    let j = json(&built);
    assert_eq!(j["games_read"].as_u64(), Some(1), "{j}");
    let listed = j["unusable_files"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{j}");
    assert_eq!(listed[0]["path"].as_str(), Some(s(&private)), "{j}");
    let stderr = text(&nothing.stderr);
    assert!(!nothing.status.success());
    assert!(
        stderr.contains("no game file found in it, and a directory below it cannot be listed")
            && stderr.contains(s(&private)),
        "{stderr}"
    );
    assert!(!out.join("none.qbk").exists());
}
