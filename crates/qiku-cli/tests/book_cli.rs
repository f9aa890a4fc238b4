//! The `qiku-book` command line, run as a user would: the quick-start repertoire builds with
//! every move read, probe (text and JSON), stats, dump, merge, and clear errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qiku_book(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku-book")).args(args).output().expect("run qiku-book")
}

fn ok(args: &[&str]) -> String {
    let out = qiku_book(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn fail(args: &[&str]) -> String {
    let out = qiku_book(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

fn repertoire() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn")
}

/// A copy of the repertoire's games in `dir`, named `name`.
fn repertoire_in(dir: &Path, name: &str) -> PathBuf {
    let games = dir.join(name);
    std::fs::copy(repertoire(), &games).unwrap();
    games
}

#[test]
fn quick_start_repertoire_builds_and_probes() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    let b = book.to_str().unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&ok(&["build", repertoire().to_str().unwrap(), "-o", b, "--json"])).unwrap();
    // Every game of the shipped repertoire is read without a single bad move.
    assert_eq!(summary["games_skipped"], 0, "{summary}");
    assert_eq!(summary["bad_games"], 0);
    let games = summary["games_read"].as_u64().unwrap();
    assert!(games >= 30);
    assert_eq!(summary["games_used"].as_u64(), Some(games));

    let probe: serde_json::Value = serde_json::from_str(&ok(&["probe", b, "startpos", "--json"])).unwrap();
    assert_eq!(probe["fen"], "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    let moves = probe["moves"].as_array().unwrap();
    assert_eq!(moves[0]["move"], "h2e2");
    assert_eq!(moves[0]["chinese"], "炮二平五");
    // Every game starts from the start position, so the first moves add up to all games.
    assert_eq!(moves.iter().map(|m| m["games"].as_u64().unwrap()).sum::<u64>(), games);
    for m in moves {
        let wdl = ["wins", "draws", "losses", "unknown"].iter().map(|k| m[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(wdl, m["games"].as_u64().unwrap());
    }
    // Sorted by games.
    assert!(moves.windows(2).all(|w| w[0]["games"].as_u64() >= w[1]["games"].as_u64()));

    let text = ok(&["probe", b, "startpos"]);
    assert!(text.contains("h2e2") && text.contains("炮二平五"), "{text}");
    let after = ok(&["probe", b, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"]);
    assert!(after.contains("h9g7") && after.contains("馬８進７"), "{after}");
    assert!(ok(&["probe", b, "3k5/9/9/9/9/9/9/9/9/4K4 w"]).contains("not in the book"));
    let pick: serde_json::Value =
        serde_json::from_str(&ok(&["probe", b, "startpos", "--json", "--pick", "best"])).unwrap();
    assert!(pick["pick"].is_string());
    // ICCS is the default notation: the pick and its ICCS twin are one move.
    assert_eq!(pick["pick_iccs"], pick["pick"], "{pick}");
    assert_eq!(pick["turn"], "red", "{pick}");

    let stats: serde_json::Value = serde_json::from_str(&ok(&["stats", b, "--json"])).unwrap();
    assert_eq!(stats["games_used"].as_u64(), Some(games));
    assert_eq!(stats["max_ply"], 40);
    let dump = ok(&["dump", b]);
    assert_eq!(dump.lines().count() as u64, stats["records"].as_u64().unwrap());
    let first = dump.lines().next().unwrap().split_whitespace().collect::<Vec<_>>();
    assert_eq!(first.len(), 6);
    assert_eq!(first[0].len(), 16);
}

/// The repertoire cut in two: `a.pgn` and `b.pgn` in `dir`, and their books `a.qbk` and `b.qbk`.
fn two_books(dir: &Path) {
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let text = std::fs::read_to_string(repertoire()).unwrap();
    let cut = text.find("[Event \"列手炮\"]").unwrap();
    std::fs::write(p("a.pgn"), &text[..cut]).unwrap();
    std::fs::write(p("b.pgn"), &text[cut..]).unwrap();
    ok(&["build", &p("a.pgn"), "-o", &p("a.qbk"), "-q"]);
    ok(&["build", &p("b.pgn"), "-o", &p("b.qbk"), "-q"]);
}

#[test]
fn merge_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    two_books(dir.path());
    ok(&["build", &p("b.pgn"), &p("a.pgn"), "-o", &p("all.qbk"), "-q", "--threads", "1"]);
    ok(&["merge", &p("a.qbk"), &p("b.qbk"), "-o", &p("m.qbk")]);
    assert!(std::fs::read(p("m.qbk")).unwrap() == std::fs::read(p("all.qbk")).unwrap());

    let e = fail(&["probe", &p("a.pgn"), "startpos"]);
    assert!(e.contains("a.pgn") && e.contains("not a qiku opening book"), "{e}");
    let e = fail(&["probe", &p("a.qbk"), "not a fen"]);
    assert!(e.contains("invalid FEN"), "{e}");
    let e = fail(&["build", &p("missing.pgn"), "-o", &p("x.qbk")]);
    assert!(e.contains("missing.pgn"), "{e}");
    // An option out of range is a usage error (exit status 2), as clap's own.
    for (option, value) in [("--min-score", "2"), ("--min-score", "nan"), ("--max-ply", "0")] {
        let out = qiku_book(&["build", &p("a.pgn"), "-o", &p("x.qbk"), option, value]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option} {value}: {e}");
        assert!(e.contains(&format!("invalid value '{value}' for '{option}")), "{e}");
    }
    ok(&["build", &p("a.pgn"), "-o", &p("short.qbk"), "-q", "--max-ply", "4"]);
    let e = fail(&["merge", &p("a.qbk"), &p("short.qbk"), "-o", &p("y.qbk")]);
    assert!(e.contains("cannot merge") && e.contains("max-ply 4"), "{e}");

    // Bad games are reported on stderr with file, game, line and token; the build succeeds.
    std::fs::write(p("bad.pgn"), "[Result \"1-0\"]\n\n1. 炮二平五 馬８進７ 2. 馬二進九 1-0\n").unwrap();
    // ... unless no game at all could be used: then it fails with a message.
    let out = qiku_book(&["build", &p("bad.pgn"), "-o", &p("bad.qbk"), "-q"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no game could be used"), "{err}");
    // The summary says why nothing was written, with no building rate for a book never built.
    let summary = String::from_utf8(out.stdout).unwrap();
    let last = summary.lines().last().unwrap_or_default();
    assert_eq!(last, format!("did not write {}: no game could be used", p("bad.qbk")), "{summary}");
    assert!(!summary.contains("games/s"), "{summary}");
    let out = qiku_book(&["build", repertoire().to_str().unwrap(), "-o", &p("none.qbk"), "-q", "--min-games", "1000"]);
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        !out.status.success() && summary.ends_with(&format!("did not write {}: no move was kept\n", p("none.qbk")))
    );
    std::fs::write(
        p("bad.pgn"),
        "[Result \"1-0\"]\n\n1. 炮二平五 馬８進７ 2. 馬二進九 1-0\n\n[Result \"1-0\"]\n\n1. 炮二平五 馬８進７ 1-0\n",
    )
    .unwrap();
    let out = qiku_book(&["build", &p("bad.pgn"), "-o", &p("bad.qbk"), "-q"]);
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.pgn: game 1, line 3, column 17") && err.contains("馬二進九"), "{err}");
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(summary.contains("games skipped  1"), "{summary}");
}

/// A build that would write an empty book is an error, not a success: `--max-ply 0` is refused
/// before anything is read (no file written), and filters that drop every move fail the command.
#[test]
fn empty_books_are_errors_not_successes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("none.qbk");
    let o = out.to_str().unwrap();
    let e = fail(&["build", repertoire().to_str().unwrap(), "-o", o, "-q", "--max-ply", "0"]);
    assert!(e.contains("'--max-ply <MAX_PLY>': 0 records no move") && e.contains("1 or more"), "{e}");
    assert!(!out.exists());
    let e = fail(&["build", repertoire().to_str().unwrap(), "-o", o, "-q", "--min-games", "1000"]);
    assert!(e.contains("no move was kept") && e.contains("nothing written to"), "{e}");
    assert!(!out.exists());
    // A book already at the output path survives a build that keeps nothing: last week's book is
    // worth more than an empty one.
    let ok = qiku_book(&["build", repertoire().to_str().unwrap(), "-o", o, "-q"]);
    assert!(ok.status.success());
    let before = std::fs::read(&out).unwrap();
    let e = fail(&["build", repertoire().to_str().unwrap(), "-o", o, "-q", "--min-games", "1000"]);
    assert!(e.contains("nothing written to") && e.contains("left as it was"), "{e}");
    let e = fail(&["build", repertoire().to_str().unwrap(), "-o", o, "-q", "--player", "nobody at all"]);
    assert!(e.contains("no game could be used") && e.contains("left as it was"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file may remain");
    // The library refuses it too, before writing anything.
    std::fs::remove_file(&out).unwrap();
    let opts = qiku::book::BuildOptions {
        params: qiku::book::BuildParams { max_ply: 0, ..Default::default() },
        ..Default::default()
    };
    let err = qiku::book::build(&[repertoire()], &out, &opts).unwrap_err();
    assert!(matches!(err, qiku::book::build::BuildError::NoPlies), "{err}");
    assert!(!out.exists());
}

/// An `.obk` of moves from games without a result would be invisible in GUIs that skip moves
/// without a positive `vscore`: the export says so. A book from decided games does not warn.
#[test]
fn export_warns_when_moves_have_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/wukong-hu-ronghua-uci.pgn");
    ok(&["build", games.to_str().unwrap(), "-o", &p("wk.qbk"), "-q"]);
    let out = qiku_book(&["export", &p("wk.qbk"), "-o", &p("wk.obk"), "-q"]);
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    let stats = ok(&["stats", &p("wk.qbk"), "--json"]);
    let records = serde_json::from_str::<serde_json::Value>(&stats).unwrap()["records"].as_u64().unwrap();
    assert!(records > 0);
    assert!(err.contains(&format!("{records} of the {records} moves come only from games without a result")), "{err}");
    ok(&["build", repertoire().to_str().unwrap(), "-o", &p("rep.qbk"), "-q"]);
    let out = qiku_book(&["export", &p("rep.qbk"), "-o", &p("rep.obk"), "-q"]);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("without a result"));
    // What the .obk cannot hold is said: the recent games (kept by default), not when there are none.
    let kept = "the recent games stay in the .qbk: an .obk has no place for them";
    assert!(String::from_utf8_lossy(&out.stdout).contains(kept));
    ok(&["build", repertoire().to_str().unwrap(), "-o", &p("bare.qbk"), "-q", "--recent-games", "0"]);
    assert!(!ok(&["export", &p("bare.qbk"), "-o", &p("bare.obk"), "-q"]).contains(kept));
}

/// Moves whose games have no result show `-` for the shares, as for the score (not 0.0); in
/// Chinese notation the move is not printed a second time in the Chinese column.
#[test]
fn probe_shows_no_shares_without_results_and_chinese_once() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("wk.qbk");
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/wukong-hu-ronghua-uci.pgn");
    ok(&["build", games.to_str().unwrap(), "-o", book.to_str().unwrap(), "-q"]);
    let text = ok(&["probe", book.to_str().unwrap(), "startpos", "--notation", "chinese"]);
    let row = text.lines().find(|l| l.starts_with("炮二平五")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(row.matches("炮二平五").count(), 1, "{row}");
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&fields[2..6], ["-", "-", "-", "-"], "{row}");
    let text = ok(&["probe", book.to_str().unwrap(), "startpos"]);
    assert!(text.lines().any(|l| l.starts_with("h2e2 炮二平五")), "{text}");
}

#[test]
fn json_summary_counts_skipped_games_under_stable_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lv.qbk");
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/wukong-hu-ronghua-uci.pgn");
    let summary: serde_json::Value = serde_json::from_str(&ok(&[
        "build",
        games.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--player",
        "lv qin",
        "--json",
    ]))
    .unwrap();
    // 153 of the 1,391 games have Lv Qin as a player; the rest are counted under one key.
    let read = summary["games_read"].as_u64().unwrap();
    assert_eq!(summary["games_used"], 153, "{summary}");
    assert_eq!(summary["games_filtered"].as_u64(), Some(read - 153));
    assert_eq!(summary["skipped"], serde_json::json!({ "other_player": read - 153 }), "{summary}");
    assert_eq!(summary["errors"], serde_json::json!([]), "filtered games are no errors");
    // Bad games are listed for programs as stderr names them: file, game, line, column, token.
    let pgn = dir.path().join("bad.pgn");
    std::fs::write(&pgn, "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n[Result \"0-1\"]\n\n1. h2e2 xyz 0-1\n").unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&ok(&["build", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(summary["bad_games"], 1, "{summary}");
    let e = &summary["errors"][0];
    assert_eq!(
        (e["file"].as_str(), &e["game"], &e["line"], &e["column"], e["token"].as_str(), e["reason"].as_str()),
        (
            pgn.to_str(),
            &serde_json::json!(2),
            &serde_json::json!(7),
            &serde_json::json!(9),
            Some("xyz"),
            Some("unknown_move")
        ),
        "{summary}"
    );
    assert!(e["message"].as_str().unwrap().contains("game 2, line 7, column 9: unknown move token at \"xyz\""), "{e}");
}

/// `import` counts the rows it skips with the noun in agreement: `1 row skipped`, `2 rows
/// skipped`.
#[test]
fn import_counts_skipped_rows_in_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let (book, obk, back) = (path("rep.qbk"), path("rep.obk"), path("back.qbk"));
    ok(&["build", repertoire().to_str().unwrap(), "-o", &book]);
    ok(&["export", &book, "-o", &obk]);
    // Copies of a real row: one marked invalid, one with a negative count; then two of each.
    let conn = rusqlite::Connection::open(&obk).unwrap();
    let copy = |valid: i64, win: &str| {
        let sql = format!(
            "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid) \
             SELECT vkey, vmove, vscore, {win}, vdraw, vlost, {valid} FROM bhobk WHERE vvalid = 1 LIMIT 1"
        );
        conn.execute_batch(&sql).unwrap();
    };
    for (n, noun) in [(1, "row"), (2, "rows")] {
        copy(0, "vwin");
        copy(1, "-1");
        let out = qiku_book(&["import", &obk, "-o", &back]);
        let (said, warned) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{warned}");
        assert!(said.contains(&format!("  {n} {noun} skipped: marked invalid (vvalid 0)\n")), "{said}");
        assert!(warned.contains(&format!("warning: {n} {noun} skipped: a negative or missing")), "{warned}");
    }
    // --json: the same counts, one object on stdout, and the book's own figures.
    let out = qiku_book(&["import", &obk, "-o", &back, "--json", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((v["skipped"]["invalid"].as_u64(), v["skipped"]["bad_counts"].as_u64()), (Some(2), Some(2)), "{v}");
    let book = qiku::book::Book::open(&back).unwrap();
    let header = book.header();
    assert_eq!((v["positions"].as_u64(), v["records"].as_u64()), (Some(header.positions), Some(header.records)));
    let rows: i64 = conn.query_row("SELECT COUNT(*) FROM bhobk", [], |r| r.get(0)).unwrap();
    assert_eq!(v["rows"].as_i64(), Some(rows), "{v}");
}

/// A file of games given to `import` is named as what it is, with the command that makes a
/// book of it (whose output is never the file itself); nothing is written.
#[test]
fn import_names_a_file_of_games_and_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let games = repertoire_in(dir.path(), "some.pgn");
    let out = dir.path().join("x.qbk");
    let e = fail(&["import", games.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    let built = dir.path().join("some.qbk");
    let hint = format!(
        "{} looks like a PGN file of games, not a book: build a book from it with `qiku-book build {} -o {}`",
        games.display(),
        games.display(),
        built.display()
    );
    assert!(e.contains(&hint), "{e}");
    assert!(!out.exists());
}

/// `merge` and `export` with `--json`: one object on stdout whose figures are the written file's.
#[test]
fn merge_and_export_print_json_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    two_books(dir.path());
    let v: serde_json::Value =
        serde_json::from_str(&ok(&["merge", &p("a.qbk"), &p("b.qbk"), "-o", &p("m.qbk"), "--json"])).expect("JSON");
    let merged = qiku::book::Book::open(p("m.qbk")).unwrap();
    let header = merged.header();
    assert_eq!(v["output"], p("m.qbk"));
    assert_eq!(v["inputs"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["positions"].as_u64(), Some(header.positions));
    assert_eq!(v["records"].as_u64(), Some(header.records));
    assert_eq!(v["games_used"].as_u64(), Some(header.games.used));
    assert_eq!(v["file_bytes"].as_u64(), Some(std::fs::metadata(p("m.qbk")).unwrap().len()));

    let v: serde_json::Value =
        serde_json::from_str(&ok(&["export", &p("m.qbk"), "-o", &p("m.obk"), "-q", "--json"])).expect("JSON");
    assert_eq!(v["records"].as_u64(), Some(header.records), "{v}");
    let conn = rusqlite::Connection::open(p("m.obk")).unwrap();
    let rows: i64 = conn.query_row("SELECT COUNT(*) FROM bhobk", [], |r| r.get(0)).unwrap();
    assert_eq!(v["rows"].as_i64(), Some(rows), "{v}");
    assert_eq!(v["recent_games_not_exported"].as_u64(), Some(u64::from(header.recent_games)), "{v}");
}

/// Games read in the wrong encoding given with `--encoding` (the Big5 sample read as GBK): the
/// failure says that the encoding is the likely cause and what to do; detected, they build.
#[test]
fn a_wrong_encoding_is_named_as_the_likely_cause() {
    let dir = tempfile::tempdir().unwrap();
    let big5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-sample-big5.pgn");
    let (big5, out) = (big5.to_str().unwrap(), dir.path().join("b.qbk"));
    let e = fail(&["build", big5, "-o", out.to_str().unwrap(), "-q", "--encoding", "gbk"]);
    assert!(e.contains("no game could be used"), "{e}");
    assert!(
        e.contains("games stopped at a token that is no move, as text read in the wrong encoding does: the files were read as GBK (--encoding); leave --encoding out"),
        "{e}"
    );
    let built = ok(&["build", big5, "-o", out.to_str().unwrap(), "-q", "--json"]);
    assert!(built.contains("\"games_used\":2000") && built.contains("\"encoding\":\"Big5\""), "{built}");
}

/// GBK games read as UTF-8 with `--encoding utf8` stop at their first tag with Chinese in it,
/// before any move: the failure says the encoding is the likely cause and to leave `--encoding`
/// out, once for the build (not once per game); a file read in its own encoding gives no hint.
#[test]
fn tags_in_the_wrong_encoding_name_it_as_the_likely_cause() {
    let dir = tempfile::tempdir().unwrap();
    let gbk = dir.path().join("gbk.pgn");
    // "测试" (a test) in GBK: not UTF-8.
    let game = b"[Event \"\xb2\xe2\xca\xd4\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n";
    std::fs::write(&gbk, game.repeat(3)).unwrap();
    let out = dir.path().join("g.qbk");
    let e = fail(&["build", gbk.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--encoding", "utf8"]);
    assert!(e.contains("malformed header: bytes that are not UTF-8 near `[Event \"\\xb2`"), "{e}");
    let hint = "3 of 3 games stopped at a tag that is not UTF-8, as text read in the wrong encoding does: \
                the files were read as UTF-8 (--encoding); leave --encoding out";
    assert!(e.contains(hint), "{e}");
    assert_eq!(e.matches("leave --encoding out").count(), 1, "{e}");
    let built = ok(&["build", gbk.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--json"]);
    assert!(built.contains("\"games_used\":3") && built.contains("\"encoding\":\"GBK\""), "{built}");
}

/// A file that joins UTF-8 games and GBK ones is read in the encoding detected from its start:
/// the GBK games stop at their first Chinese tag, and the build says once why and what to do
/// (each game's error said only "bytes that are not UTF-8"). The UTF-8 games are in the book.
#[test]
fn a_file_joining_two_encodings_is_named_as_the_likely_cause() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = dir.path().join("mixed.pgn");
    let utf8 = "[Event \"測試\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n".as_bytes();
    // "测试" (a test) in GBK: not UTF-8.
    let gbk = b"[Event \"\xb2\xe2\xca\xd4\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n";
    // More than the 64 KiB the encoding is detected from, all UTF-8; then 5 GBK games.
    let (n_utf8, n_gbk) = (70 * 1024 / utf8.len() + 1, 5);
    std::fs::write(&mixed, [utf8.repeat(n_utf8), gbk.repeat(n_gbk)].concat()).unwrap();
    let out = dir.path().join("m.qbk");
    let r = qiku_book(&["build", mixed.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--json"]);
    let (stdout, e) = (String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
    assert!(r.status.success(), "{e}");
    assert!(
        stdout.contains(&format!("\"games_used\":{n_utf8}")) && stdout.contains("\"encoding\":\"UTF-8\""),
        "{stdout}"
    );
    let hint = format!(
        "{n_gbk} of {} games stopped at a tag that is not in the encoding detected for their file, as text read in \
         the wrong encoding does: each file's encoding is detected once",
        n_utf8 + n_gbk
    );
    assert!(e.contains(&hint) && e.contains("iconv -f GBK -t UTF-8"), "{e}");
    assert_eq!(e.matches("each file's encoding is detected once").count(), 1, "{e}");
}

/// A player's name in simplified characters matches no game of a collection written in
/// traditional ones: the failure says why and what to write; as the games write it, it matches.
#[test]
fn a_name_in_the_other_script_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let big5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-sample-big5.pgn");
    let (big5, out) = (big5.to_str().unwrap(), dir.path().join("p.qbk"));
    let e = fail(&["build", big5, "-o", out.to_str().unwrap(), "-q", "--player", "许银川"]);
    assert!(
        e.contains("no game has a player named 许银川: names are compared as written, so simplified and traditional characters differ"),
        "{e}"
    );
    let built = ok(&["build", big5, "-o", out.to_str().unwrap(), "-q", "--player", "許銀川", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&built).unwrap();
    assert!(v["games_used"].as_u64().unwrap() > 0, "{v}");
}

/// A one-sided book says why a position of the other side is not in it; `--seed` without
/// `--pick` (which it seeds) is refused rather than ignored.
#[test]
fn one_sided_books_and_seeds_say_what_they_do() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("black.qbk");
    ok(&["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap(), "--only", "black"]);
    let book = book.to_str().unwrap();
    let start = ok(&["probe", book, "startpos"]);
    assert!(
        start.contains(
            "not in the book: it keeps only positions with black to move (built with --only black), and red is to move here"
        ),
        "{start}"
    );
    assert!(ok(&["probe", book, "startpos", "moves", "h2e2"]).contains("score%: for black"));
    let out = qiku_book(&["probe", book, "startpos", "--seed", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pick"));
}

/// `-` reads games from standard input as a file is read (compressed or not, any encoding): the
/// book is byte for byte the one built from the file, and a bad game on standard input is named
/// with `-`.
#[test]
fn games_from_standard_input_make_the_same_book() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games");
    let build_piped = |input: &[u8], out: &Path| -> Output {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qiku-book"))
            .args(["build", "-", "-o", out.to_str().unwrap(), "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        // Written from a thread: the program reads while it writes its report.
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        out
    };
    for name in ["ccpd-iccs.pgn.zst", "ccpd-sample-gbk.pgn"] {
        let file = games.join(name);
        let (from_file, from_stdin) = (dir.path().join("file.qbk"), dir.path().join("stdin.qbk"));
        ok(&["build", file.to_str().unwrap(), "-o", from_file.to_str().unwrap(), "-q", "--force"]);
        let out = build_piped(&std::fs::read(&file).unwrap(), &from_stdin);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(report["games_used"].as_u64().unwrap() > 100 && report["files"][0]["path"] == "-", "{report}");
        assert!(std::fs::read(&from_file).unwrap() == std::fs::read(&from_stdin).unwrap(), "{name}: books differ");
        std::fs::remove_file(&from_stdin).unwrap();
    }
    let out = build_piped(b"[Event \"x\"]\n1. h2e2 h9g7 2. zz *\n\n1. h2e2 h9g7 1-0\n", &dir.path().join("bad.qbk"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("-: game 1, line 2, column 17: unknown move token at \"zz\""), "{stderr}");
}

/// A `[Format]` tag that names no notation is warned about on stderr, once for the file, naming
/// the file, the value and what is done instead; `--json` lists it under the file's `warnings`.
#[test]
fn a_format_tag_of_no_notation_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("fmt.pgn");
    let game = |format: &str| format!("[Format \"{format}\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n\n");
    std::fs::write(&games, [game("ICCS"), game("XYZ"), game("XYZ")].concat()).unwrap();
    let out = dir.path().join("f.qbk");
    let run = qiku_book(&["build", games.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q"]);
    assert!(run.status.success());
    let stderr = String::from_utf8(run.stderr).unwrap();
    let warning = format!(
        "qiku-book: warning: {}: game 2, line 6: [Format \"XYZ\"] names no notation qiku reads (ICCS, WXF or \
         Chinese); the game's moves are read each in the notation its shape shows, as without the tag (2 such tags \
         in the file; this is the first)",
        games.display()
    );
    assert_eq!(stderr.matches("qiku-book: warning:").count(), 1, "{stderr}");
    assert!(stderr.contains(&warning), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["build", games.to_str().unwrap(), "-o", out.to_str().unwrap(), "-q", "--json"]))
            .unwrap();
    assert_eq!(json["games_used"], 3);
    let listed = json["files"][0]["warnings"][0].as_str().unwrap_or_default();
    assert!(listed.starts_with("game 2, line 6: [Format \"XYZ\"] names no notation"), "{json}");
}

/// A WXF move that fits two pieces, given to probe: the error says so, without an ICCS reading
/// of a token that is no ICCS move.
#[test]
fn an_ambiguous_wxf_move_is_explained_as_wxf_only() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    ok(&["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap(), "-q"]);
    let e = fail(&["probe", book.to_str().unwrap(), "5k3/9/9/9/4R4/9/9/4R4/9/3K5 w", "moves", "R5+1"]);
    assert!(e.contains("move 1 \"R5+1\": read as WXF: ambiguous, it fits e2e3 and e5e6 (position"), "{e}");
    assert!(!e.contains("read as ICCS"), "{e}");
}

/// A build whose filters leave out every game says which filters did and by how many (the
/// repertoire's games have no dates and no ratings), rather than only "no game could be used".
#[test]
fn filters_that_leave_out_every_game_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("none.qbk");
    let (rep, out) = (repertoire(), out.to_str().unwrap().to_string());
    let e = fail(&["build", rep.to_str().unwrap(), "--since", "2000", "-o", &out]);
    assert!(e.contains("every game was left out by the filters (34 no readable date (--since/--until))"), "{e}");
    assert!(e.contains("leave out a game without a readable Date tag"), "{e}");
    let e = fail(&["build", rep.to_str().unwrap(), "--min-elo", "2000", "-o", &out]);
    assert!(e.contains("every game was left out by the filters (34 no Elo tags (--min-elo))"), "{e}");
    assert!(!Path::new(&out).exists());
}

/// An input given twice is read once and said so: by two spellings, naming both; by the same one
/// (or named and found in a directory given), without naming it twice as if two files.
#[test]
fn an_input_given_twice_is_read_once_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let games = repertoire_in(dir.path(), "rep.pgn");
    let out = dir.path().join("o.qbk");
    let (g, o) = (games.to_str().unwrap(), out.to_str().unwrap());
    let other = format!("{}/./rep.pgn", dir.path().display());
    let r = qiku_book(&["build", g, &other, dir.path().to_str().unwrap(), "-o", o]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains(&format!("note: {other} is the same file as {g}; read once")), "{err}");
    assert!(err.contains(&format!("note: {g} comes twice among the inputs (named, or in a directory given)")), "{err}");
    assert!(ok(&["stats", o]).contains("34 read"));
}
