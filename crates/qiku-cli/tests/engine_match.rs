//! The match runner against real processes: qiku against itself (PGN written and replayed), and
//! against scripted misbehaving engines (illegal moves, crashes, timeouts), plus Fairy-Stockfish
//! when it is installed (rank numbering 1-10 detected).

use qiku::notation::iccs;
use qiku::{Game, Position};
use qiku_cli::matchrunner::process::{EngineSpec, Protocol, RankBase};
use qiku_cli::matchrunner::{self, openings, Fault, Limit, MatchConfig};
use std::path::{Path, PathBuf};
use std::time::Duration;

const QIKU: &str = env!("CARGO_BIN_EXE_qiku");

fn config(engines: [EngineSpec; 2], games: u32, limit: Limit, pgn: Option<PathBuf>) -> MatchConfig {
    MatchConfig {
        engines,
        games,
        limit,
        openings: openings::builtin(),
        pgn,
        concurrency: 1,
        max_plies: 120,
        margin: Duration::from_millis(500),
        event: "test".into(),
        sprt: None,
        pin: false,
    }
}

/// Replays every game of a PGN file written by the runner and checks tags and results.
fn replay_pgn(path: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for block in text.split("\n\n[Event").filter(|b| !b.trim().is_empty()) {
        let (tags, movetext) = block.split_once("\n\n").expect("tags then movetext");
        assert!(tags.contains("[Format \"ICCS\"]"));
        let result = tags.split("[Result \"").nth(1).unwrap().split('"').next().unwrap().to_string();
        let mut game = Game::new(Position::startpos());
        let mut in_comment = false;
        for w in movetext.split_whitespace() {
            if w.starts_with('{') {
                in_comment = true;
            }
            if in_comment {
                in_comment = !w.ends_with('}');
                continue;
            }
            if w.ends_with('.') || w == result {
                continue;
            }
            let m = iccs::parse(game.position(), w).unwrap_or_else(|e| panic!("{w}: {e}"));
            game.play(m).unwrap();
        }
        let plies: usize = tags.split("[PlyCount \"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert_eq!(plies, game.len());
        out.push((result, plies));
    }
    out
}

#[test]
fn qiku_against_itself_writes_a_replayable_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("games.pgn");
    let mut a = EngineSpec::new(QIKU);
    a.name = Some("qiku-a".into());
    a.options.push(("Hash".into(), "4".into()));
    let b = EngineSpec::new(QIKU);
    let report = matchrunner::run(&config([a, b], 4, Limit::Depth(2), Some(pgn.clone())), &|_, _| {}).unwrap();
    assert_eq!(report.names, ["qiku-a".to_string(), format!("qiku {}", env!("CARGO_PKG_VERSION"))]);
    assert_eq!(report.tally.games(), 4);
    assert_eq!(report.faults, [[0; 4]; 2]);
    let games = replay_pgn(&pgn);
    assert_eq!(games.len(), 4);
    // Colors alternate over each opening: games 1 and 2 share opening 1.
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Opening \"#1 ").count(), 2);
    assert_eq!(text.matches("[Red \"qiku-a\"]").count(), 2);
    // Every move's comment carries the searched nodes (the engine's last `info ... nodes`).
    let comments = text.matches('{').count();
    assert!(comments > 0);
    assert_eq!(text.matches(" nodes ").count(), comments);
    // The tally agrees with the PGN results.
    let points: f64 = report.games.iter().map(|g| g.points(0)).sum();
    assert_eq!(points, report.tally.points());
    for (g, (result, _)) in report.games.iter().zip(&games) {
        assert_eq!(&g.pgn.result, result);
    }
    // A second match into the same file keeps the first one's games: its own follow them.
    let (a, b) = (EngineSpec::new(QIKU), EngineSpec::new(QIKU));
    let second = matchrunner::run(&config([a, b], 2, Limit::Depth(1), Some(pgn.clone())), &|_, _| {}).unwrap();
    assert_eq!(second.tally.games(), 2);
    let again = std::fs::read_to_string(&pgn).unwrap();
    assert!(again.starts_with(&text), "the first match's games are kept as they were");
    assert_eq!(replay_pgn(&pgn).len(), 6);
}

#[test]
fn concurrent_games_give_a_complete_ordered_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("c.pgn");
    let mut cfg = config([EngineSpec::new(QIKU), EngineSpec::new(QIKU)], 6, Limit::Depth(1), Some(pgn.clone()));
    cfg.concurrency = 3;
    let report = matchrunner::run(&cfg, &|_, _| {}).unwrap();
    assert_eq!(report.tally.games(), 6);
    assert_eq!(report.games.iter().map(|g| g.index).collect::<Vec<_>>(), (0..6).collect::<Vec<_>>());
    let text = std::fs::read_to_string(&pgn).unwrap();
    let rounds: Vec<&str> = text.lines().filter(|l| l.starts_with("[Round ")).collect();
    assert_eq!(
        rounds,
        (1..=6).map(|i| format!("[Round \"{i}\"]")).collect::<Vec<_>>().iter().map(|s| s.as_str()).collect::<Vec<_>>()
    );
    assert_eq!(replay_pgn(&pgn).len(), 6);
}

#[test]
fn skill_level_zero_scores_clearly_worse_than_full_strength() {
    // The UCI option through the runner's `setoption`: qiku at Skill Level 0 (one ply, a line
    // picked among four) against qiku at full strength, both at depth 4. Every search has a depth
    // limit, one thread and a table cleared at each new game, and the level's choices are seeded
    // by the position: the games, and so the score, are the same on every run.
    let mut weak = EngineSpec::new(QIKU);
    weak.name = Some("skill-0".into());
    weak.options.push(("Skill Level".into(), "0".into()));
    let mut full = EngineSpec::new(QIKU);
    full.name = Some("skill-20".into());
    let mut cfg = config([weak, full], 20, Limit::Depth(4), None);
    cfg.max_plies = 200;
    cfg.concurrency = 2;
    let report = matchrunner::run(&cfg, &|_, _| {}).unwrap();
    let t = report.tally;
    eprintln!("Skill Level 0 against 20: +{} ={} -{} ({:.1}%)", t.wins, t.draws, t.losses, 100.0 * t.score());
    assert_eq!(t.games(), 20);
    assert_eq!(report.faults, [[0; 4]; 2]);
    assert!(t.score() <= 0.2, "level 0 scored {:.1}%: +{} ={} -{}", 100.0 * t.score(), t.wins, t.draws, t.losses);
    assert!(t.losses >= 14, "+{} ={} -{}", t.wins, t.draws, t.losses);
    // The same match from the command line (`--option "Skill Level=0"`): the same games' score.
    let out = std::process::Command::new(QIKU)
        .args(["match", "--engine", QIKU, "--option", "Skill Level=0", "--engine", QIKU])
        .args(["--games", "20", "--depth", "4", "--max-plies", "200", "--concurrency", "2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["wins"], &v["draws"], &v["losses"]), (&t.wins.into(), &t.draws.into(), &t.losses.into()), "{v}");
}

/// A fake UCI engine written as a shell script; `on_go` is what it does when asked to move.
fn script(dir: &Path, name: &str, on_go: &str) -> String {
    let path = dir.join(name);
    let body = format!(
        "#!/bin/sh\nwhile read line; do\n case \"$line\" in\n  uci) echo \"id name {name}\"; echo uciok;;\n  isready) echo readyok;;\n  go*) {on_go};;\n  quit) exit 0;;\n esac\ndone\n"
    );
    std::fs::write(&path, body).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    path.display().to_string()
}

fn misbehaving(on_go: &str, limit: Limit) -> matchrunner::MatchReport {
    // Skip rank detection: the script never plays a legal move.
    misbehaving_with_ranks(on_go, limit, Some(RankBase::Zero))
}

fn misbehaving_with_ranks(on_go: &str, limit: Limit, ranks: Option<RankBase>) -> matchrunner::MatchReport {
    let dir = tempfile::tempdir().unwrap();
    let mut bad = EngineSpec::new(&script(dir.path(), "bad", on_go));
    bad.ranks = ranks;
    let mut cfg = config([EngineSpec::new(QIKU), bad], 2, limit, None);
    cfg.margin = Duration::from_millis(200);
    matchrunner::run(&cfg, &|_, _| {}).unwrap()
}

#[test]
fn illegal_moves_lose() {
    let r = misbehaving("echo 'bestmove e0e5'", Limit::Depth(1));
    assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (2, 0, 0));
    assert_eq!(r.faults[1], [2, 0, 0, 0]);
    assert!(r.games.iter().all(|g| g.fault == Some((1, Fault::IllegalMove))));
    assert!(r.games[0].reason.contains("illegal move \"e0e5\""), "{}", r.games[0].reason);
}

#[test]
fn unreadable_moves_count_as_illegal_moves_not_as_no_move() {
    // Not a move at all: it used to be counted as "sent no move".
    let r = misbehaving("echo 'bestmove zzzz'", Limit::Depth(1));
    assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (2, 0, 0));
    assert_eq!(r.faults[1], [2, 0, 0, 0]);
    assert!(r.games.iter().all(|g| g.fault == Some((1, Fault::IllegalMove))));
    let reason = &r.games[0].reason;
    assert!(reason.contains("unreadable move \"zzzz\" (not a move with ranks 0-9)"), "{reason}");
    assert!(!reason.contains("no move"), "{reason}");
    // A move in the other rank numbering (ranks 0-9 given, the engine writes 1-10).
    let r = misbehaving("echo 'bestmove a1a10'", Limit::Depth(1));
    assert_eq!(r.faults[1], [2, 0, 0, 0]);
    assert!(r.games[1].reason.contains("unreadable move \"a1a10\""), "{}", r.games[1].reason);
    // `(none)`, `0000` and `nobestmove` are still no move.
    for token in ["(none)", "0000"] {
        let r = misbehaving(&format!("echo 'bestmove {token}'"), Limit::Depth(1));
        assert_eq!(r.faults[1], [0, 2, 0, 0], "{token}");
        assert!(r.games[0].reason.contains("sent no move"), "{}", r.games[0].reason);
    }
    let r = misbehaving("echo nobestmove", Limit::Depth(1));
    assert_eq!(r.faults[1], [0, 2, 0, 0]);
    let summary = matchrunner::summary(&r);
    assert!(summary.contains("illegal moves 0, no move 2"), "{summary}");
}

#[test]
fn no_move_crash_and_timeout_lose() {
    let r = misbehaving("echo 'bestmove (none)'", Limit::Depth(1));
    assert_eq!(r.faults[1], [0, 2, 0, 0]);
    let r = misbehaving("exit 1", Limit::Depth(1));
    assert_eq!(r.faults[1], [0, 0, 2, 0]);
    assert_eq!(r.tally.wins, 2);
    let r = misbehaving("sleep 3", Limit::MoveTime(Duration::from_millis(50)));
    assert_eq!(r.faults[1], [0, 0, 0, 2]);
    assert_eq!(r.tally.wins, 2);
    // Output before the time runs out does not shorten the wait the message names: 50 ms of
    // movetime and 200 ms of margin, not what was left when the last line came.
    let r = misbehaving(
        "echo 'info depth 1'; sleep 0.1; echo 'info depth 2'; sleep 3",
        Limit::MoveTime(Duration::from_millis(50)),
    );
    assert_eq!(r.faults[1], [0, 0, 0, 2]);
    assert!(r.games[0].reason.ends_with("no bestmove within 250 ms"), "{}", r.games[0].reason);
}

/// `--startup-timeout` bounds the handshake and `isready`: an engine that never says `readyok`
/// stops the match with a message naming the wait and the flag's value, not the default's.
#[test]
fn an_engine_that_never_gets_ready_is_named_with_the_startup_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sleepy");
    std::fs::write(
        &path,
        "#!/bin/sh\nwhile read line; do\n case \"$line\" in\n  uci) echo uciok;;\n  quit) exit 0;;\n esac\ndone\n",
    )
    .unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    let out = std::process::Command::new(QIKU)
        .args(["match", "--engine", QIKU, "--engine"])
        .arg(&path)
        .args(["--ranks", "0", "--games", "2", "--depth", "1", "--startup-timeout", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no readyok within 1.0 s (--startup-timeout SECONDS gives it longer)"), "{stderr}");
}

/// A mistyped option name stops the match before any game, naming it and the engine's options;
/// a value the engine refuses is reported once (both were silently ignored: a mistyped
/// `Skill Levl=5` played the whole match at full strength).
#[test]
fn engine_options_that_do_not_take_are_reported() {
    let run = |option: &str| {
        std::process::Command::new(QIKU)
            .args(["match", "--engine", QIKU, "--option", option, "--engine", QIKU, "--games", "2", "--depth", "1"])
            .output()
            .unwrap()
    };
    let out = run("Skill Levl=5");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("engine 1") && stderr.contains("it has no option \"Skill Levl\""), "{stderr}");
    assert!(stderr.contains("Skill Level") && !stderr.contains("game   1/2"), "{stderr}");
    let out = run("Hash=abc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warning = format!(
        "warning: engine 1 (qiku {}) said while its options were set: option Hash: value \"abc\"",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
}

#[test]
fn faults_during_rank_detection_lose_games_instead_of_aborting_the_match() {
    // Ranks auto-detected (the default): the first move is asked in the start position before
    // the games; an unreadable move or a crash there used to abort the whole match.
    let r = misbehaving_with_ranks("echo 'bestmove e0e5'", Limit::Depth(1), None);
    assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (2, 0, 0));
    assert_eq!(r.faults[1], [2, 0, 0, 0]);
    let r = misbehaving_with_ranks("exit 1", Limit::Depth(1), None);
    assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (2, 0, 0));
    assert_eq!(r.faults[1], [0, 0, 2, 0]);
}

#[test]
fn overlong_output_lines_are_dropped_and_counted() {
    // 300 KB without a newline, then an illegal move: the line is not buffered whole, the move
    // after it is still read.
    let r = misbehaving("head -c 300000 /dev/zero | tr '\\0' x; echo; echo 'bestmove e0e5'", Limit::Depth(1));
    assert_eq!(r.faults[1], [2, 0, 0, 0]);
    assert_eq!(r.garbage_lines, [0, 2]);
    assert!(r.games.iter().all(|g| g.garbage == [0, 1]));
    assert!(matchrunner::summary(&r).contains("overlong lines dropped 2"));
}

#[test]
fn cli_attaches_flags_to_the_preceding_engine() {
    let out = std::process::Command::new(QIKU)
        .args([
            "match", "--engine", QIKU, "--name", "first", "--option", "Hash=2", "--engine", QIKU, "--name", "second",
        ])
        .args(["--games", "2", "--depth", "1", "--max-plies", "20", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engines"], serde_json::json!(["first", "second"]));
    assert_eq!(v["games"], 2);
    // A per-engine flag before any --engine is an error that says so.
    let out = std::process::Command::new(QIKU)
        .args(["match", "--name", "x", "--engine", QIKU, "--engine", QIKU, "--games", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--name must follow the --engine"));
}

#[test]
fn fairy_stockfish_ranks_are_detected_when_installed() {
    let fsf = ["/usr/games/fairy-stockfish", "/usr/bin/fairy-stockfish"].into_iter().find(|p| Path::new(p).exists());
    let Some(fsf) = fsf else {
        eprintln!("fairy-stockfish not installed; skipped");
        return;
    };
    let mut uci = EngineSpec::new(fsf);
    uci.options.push(("UCI_Variant".into(), "xiangqi".into()));
    let p = qiku_cli::matchrunner::process::EngineProcess::start(&uci).unwrap();
    assert_eq!(p.ranks, RankBase::One);
    p.quit();
    let mut ucci = EngineSpec::new(fsf);
    ucci.protocol = Protocol::Ucci;
    let p = qiku_cli::matchrunner::process::EngineProcess::start(&ucci).unwrap();
    assert_eq!(p.ranks, RankBase::Zero);
    p.quit();
    // Two short games in each dialect without faults.
    for spec in [uci, ucci] {
        let r = matchrunner::run(&config([EngineSpec::new(QIKU), spec], 2, Limit::Depth(2), None), &|_, _| {}).unwrap();
        assert_eq!(r.faults, [[0; 4]; 2], "{:?}", r.games.iter().map(|g| &g.reason).collect::<Vec<_>>());
    }
}

#[test]
fn scores_are_read_in_both_dialects() {
    use qiku_cli::matchrunner::process::read_score;
    let read = |line: &str| read_score(&line.split_whitespace().collect::<Vec<_>>());
    // UCCI: a bare number after `score` (it used to read "68 nodes").
    assert_eq!(read("68 nodes 623 pv h2e2").as_deref(), Some("cp 68"));
    assert_eq!(read("-14 nodes 353").as_deref(), Some("cp -14"));
    // UCCI mates, ElephantEye's 10000 - plies: mate in 5 plies is 3 moves, mated in 4 plies -2.
    assert_eq!(read("9995 nodes 1").as_deref(), Some("mate 3"));
    assert_eq!(read("-9996").as_deref(), Some("mate -2"));
    assert_eq!(read("9999").as_deref(), Some("mate 1"));
    // A win without a mate distance (qiku's table wins: 9801 to 9899) stays a number.
    assert_eq!(read("9850").as_deref(), Some("cp 9850"));
    // UCI, with and without a bound word after the value.
    assert_eq!(read("cp 25 lowerbound nodes 9").as_deref(), Some("cp 25"));
    assert_eq!(read("cp -7 upperbound").as_deref(), Some("cp -7"));
    assert_eq!(read("mate -3 nodes 9").as_deref(), Some("mate -3"));
    // No number: nothing (the previous score is kept).
    assert_eq!(read("nodes 5"), None);
    assert_eq!(read("cp x"), None);
    assert_eq!(read(""), None);
}

#[test]
fn openings_files_with_a_byte_order_mark_other_encodings_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    // A byte order mark (as Windows editors write) is skipped: it used to spoil the first move.
    let bom = write("bom.txt", "\u{feff}h2e2 h9g7\nc3c4\n".as_bytes());
    let o = openings::load(&bom).unwrap();
    assert_eq!(o.iter().map(|o| o.describe()).collect::<Vec<_>>(), ["h2e2 h9g7", "c3c4"]);
    // GBK text (炮二平五), and a zstd-compressed game collection: not UTF-8, said so, with no line.
    let gbk = write("gbk.txt", b"\xc5\xda\xb6\xfe\xc6\xbd\xce\xe5\n");
    let zst = write("games.pgn.zst", b"\x28\xb5\x2f\xfd\x04\x58\x91\x02\x00\xff");
    for path in [gbk, zst] {
        let err = openings::load(&path).unwrap_err().to_string();
        let expected = format!(
            "{}: not UTF-8 text (an openings file is one line of moves per opening, such as `h2e2 h9g7`",
            path.display()
        );
        assert!(err.starts_with(&expected), "{err}");
        assert!(err.contains("convert it to UTF-8 (a GBK file: `iconv -f GBK -t UTF-8`)"), "{err}");
        assert!(!err.contains("line 0") && !err.contains("stream did not contain"), "{err}");
    }
    // Empty, and comments only: no openings, and why.
    let empty = write("empty.txt", b"");
    let err = openings::load(&empty).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: no openings (the file is empty", empty.display())), "{err}");
    assert_eq!(openings::load(&write("blank.txt", b"\xef\xbb\xbf \n\n")).unwrap_err().reason, openings::Problem::Empty);
    let comments = write("comments.txt", b"# nothing yet\n\n");
    let err = openings::load(&comments).unwrap_err().to_string();
    assert!(err.ends_with("comments.txt: no openings (every line is blank or a # comment)"), "{err}");
    // The command says the same and starts no engine.
    let out = std::process::Command::new(QIKU)
        .args(["match", "--engine", "/nonexistent", "--engine", "/nonexistent", "--openings"])
        .arg(dir.path().join("gbk.txt"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("gbk.txt: not UTF-8 text"), "{stderr}");
}

#[test]
fn max_plies_must_exceed_the_openings_and_the_draw_names_the_game_length() {
    let dir = tempfile::tempdir().unwrap();
    let qiku_match = |args: &[&str]| std::process::Command::new(QIKU).arg("match").args(args).output().unwrap();
    // The built-in openings are 8 plies: a limit of 5 or 8 drew every game before an engine moved
    // ("adjudicated draw after 5 plies" with PlyCount 8).
    for limit in ["5", "8"] {
        let out =
            qiku_match(&["--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "2", "--max-plies", limit]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{limit}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(out.stdout.is_empty(), "no game is played");
        assert!(
            stderr.contains(&format!("--max-plies {limit} draws a game once it is {limit} plies long")),
            "{stderr}"
        );
        assert!(stderr.contains("opening #1 (h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 c3c4 g6g5) is 8 plies long"), "{stderr}");
        assert!(stderr.contains("give a --max-plies above 8"), "{stderr}");
    }
    // One ply beyond: each engine game is one engine move long, and the reason gives its length.
    let out = qiku_match(&["--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "2", "--max-plies", "9"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("1/2-1/2 adjudicated draw after 9 plies").count(), 2, "{stdout}");
    // Only the openings the games use count: a 6-ply second opening is refused once --games
    // reaches it, and named.
    let openings = dir.path().join("o.txt");
    std::fs::write(&openings, "h2e2 h9g7\nh2e2 h9g7 h0g2 i9h9 i0h0 b9c7\n").unwrap();
    let pgn = dir.path().join("o.pgn");
    let base = ["--engine", QIKU, "--engine", QIKU, "--depth", "1", "--max-plies", "4"];
    let with = |games: &str| {
        let mut args = base.to_vec();
        args.extend(["--games", games, "--openings", openings.to_str().unwrap(), "--pgn", pgn.to_str().unwrap()]);
        qiku_match(&args)
    };
    let out = with("2");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Termination \"adjudicated draw after 4 plies\"]").count(), 2, "{text}");
    assert_eq!(text.matches("[PlyCount \"4\"]").count(), 2, "{text}");
    let out = with("3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("opening #2 (h2e2 h9g7 h0g2 i9h9 i0h0 b9c7) is 6 plies long"), "{stderr}");
}

#[test]
fn an_even_score_has_an_elo_difference_of_zero_without_a_sign() {
    use qiku_cli::matchrunner::stats::Tally;
    let summary = |wins, draws, losses| {
        let report = matchrunner::MatchReport {
            names: ["a".into(), "b".into()],
            tally: Tally { wins, draws, losses },
            ..matchrunner::MatchReport::default()
        };
        matchrunner::summary(&report)
    };
    // All draws: the Elo difference was printed as -0.0.
    let s = summary(0, 2, 0);
    assert!(s.contains("\nElo difference: 0.0 +/- 0.0 (95%), LOS 50.0%"), "{s}");
    // A difference that rounds to zero either way.
    assert!(summary(10_000, 0, 10_001).contains("\nElo difference: 0.0 +/- "), "{}", summary(10_000, 0, 10_001));
    assert!(summary(10_001, 0, 10_000).contains("\nElo difference: 0.0 +/- "));
    assert!(summary(3, 0, 1).contains("\nElo difference: +190.8 +/- "), "{}", summary(3, 0, 1));
    assert!(summary(1, 0, 3).contains("\nElo difference: -190.8 +/- "));
    // As numbers: no negative zero, and an even LOS of exactly one half.
    let t = Tally { wins: 1, draws: 3, losses: 1 };
    assert!(t.elo().unwrap().diff.is_sign_positive());
    assert_eq!(t.los(), 0.5);
    assert_eq!(serde_json::json!(t.elo().unwrap().diff).to_string(), "0.0");
}

#[test]
fn a_match_killed_mid_way_leaves_whole_games_in_game_order() {
    // Two games at once, so games end out of order and wait in the file for their predecessors;
    // killed (SIGKILL, no chance to tidy up) once ten games are in, the file holds whole games
    // only, each replayable, in game order, after what was there before.
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("killed.pgn");
    std::fs::write(&pgn, "[Event \"before\"]\n[Result \"*\"]\n\n*").unwrap();
    let mut child = std::process::Command::new(QIKU)
        .args(["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1", "--games", "400"])
        .args(["--concurrency", "2", "--max-plies", "120", "--pgn"])
        .arg(&pgn)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let rounds = |text: &str| text.lines().filter(|l| l.starts_with("[Round ")).count();
    let start = std::time::Instant::now();
    while rounds(&std::fs::read_to_string(&pgn).unwrap()) < 10 {
        assert!(start.elapsed() < Duration::from_secs(120), "no ten games in two minutes");
        assert!(child.try_wait().unwrap().is_none(), "the match ended before ten games");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&pgn).unwrap();
    let ours = text.strip_prefix("[Event \"before\"]\n[Result \"*\"]\n\n*\n\n").expect("the earlier content kept");
    assert!(ours.ends_with("\n\n"), "a game cut short: {:?}", &ours[ours.len().saturating_sub(200)..]);
    let numbers: Vec<usize> =
        ours.lines().filter_map(|l| l.strip_prefix("[Round \"")?.strip_suffix("\"]")?.parse().ok()).collect();
    assert!(numbers.len() >= 10, "{numbers:?}");
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "not in game order: {numbers:?}");
    let kept = dir.path().join("ours.pgn");
    std::fs::write(&kept, ours).unwrap();
    assert_eq!(replay_pgn(&kept).len(), numbers.len());
}
