//! The chase rule on real master games: the referee (`Game`) and the match runner adjudicate a
//! perpetual chase in games of the CCPD collection, and the search judges the repetition the same
//! way.
//!
//! The fixture `tests/fixtures/chase_games.pgn` holds two games copied unchanged from
//! `books/games/ccpd-iccs.pgn.zst` (CC BY 4.0, attribution in the fixture): in both, Red's rook
//! chases an unprotected black cannon to the third occurrence of a position, and Red lost. They
//! were found by `find_chase_cycles_in_the_collection` (ignored: it replays all 25,368 games of
//! the collection): it counts 8,068 repetitions whose cycle `Game` judges a perpetual chase, and
//! 30 games whose record ends at such a repetition (a third or later occurrence); 24 of those are
//! recorded as draws and 6 as lost by the side `Game` names as the chaser (all six by Red, 0-1).
//! Two of the six are here.

use qiku::core::{chase, Color, EndReason, Outcome, RepetitionVerdict, START_FEN};
use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::engine::Score;
use qiku::notation::iccs;
use qiku::pgn::{self, EncodingChoice, Location, Reader, Skip, Visitor};
use qiku::{Game, Move, Position};
use qiku_cli::matchrunner::openings::Opening;
use qiku_cli::matchrunner::process::{EngineSpec, RankBase};
use qiku_cli::matchrunner::{self, Limit, MatchConfig};
use std::path::Path;
use std::time::Duration;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/games");
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/chase_games.pgn");

/// One game of a PGN file: its tags in order and its move tokens.
#[derive(Default, Clone, Debug)]
struct RawGame {
    tags: Vec<(String, String)>,
    moves: Vec<String>,
}

impl RawGame {
    fn tag(&self, name: &str) -> &str {
        self.tags.iter().find(|(k, _)| k == name).map_or("", |(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Collect {
    games: Vec<RawGame>,
}

impl Visitor for Collect {
    fn begin_game(&mut self, _loc: Location) {
        self.games.push(RawGame::default());
    }
    fn tag(&mut self, name: &str, value: &str, _loc: Location) -> Skip {
        if let Some(g) = self.games.last_mut() {
            g.tags.push((name.to_string(), value.to_string()));
        }
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, _loc: Location) -> Skip {
        if let Some(g) = self.games.last_mut() {
            g.moves.push(token.to_string());
        }
        Skip::Continue
    }
    fn end_game(&mut self, _loc: Location) {}
}

fn read_games(path: &Path) -> Vec<RawGame> {
    let input = pgn::open(path, EncodingChoice::Auto).unwrap_or_else(|e| panic!("{e}"));
    let mut c = Collect::default();
    Reader::new(input).read_all(&mut c).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    c.games
}

/// Replays every game of the ICCS collection with `Game` and lists each repetition (a position
/// that occurred before, with the same side to move) whose cycle `Game` judges a perpetual chase:
/// game number (1-based, in file order), source, the ply, the occurrence, and the chaser. Then
/// the games whose record ends at such a third occurrence, with their recorded results.
#[test]
#[ignore = "replays the whole collection (about 6 s in debug): cargo test -p qiku-cli --test cli chase_game:: -- --ignored --nocapture"]
fn find_chase_cycles_in_the_collection() {
    let games = read_games(&Path::new(DATA).join("ccpd-iccs.pgn.zst"));
    assert!(games.len() > 25_000);
    let mut found = 0;
    let mut ending = Vec::new();
    // QIKU_SHOW_GAME=N also prints each chase cycle of game N move by move.
    let show: Option<usize> = std::env::var("QIKU_SHOW_GAME").ok().and_then(|v| v.parse().ok());
    for (n, raw) in games.iter().enumerate() {
        let fen = match raw.tag("FEN") {
            "" => START_FEN,
            f => f,
        };
        let Ok(start) = Position::from_fen(fen) else { continue };
        let mut game = Game::new(start);
        for (ply, token) in raw.moves.iter().enumerate() {
            let Ok(m) = iccs::parse(game.position(), token) else { break };
            if game.play(m).is_err() {
                break;
            }
            let reps = game.repetitions();
            if reps == 0 {
                continue;
            }
            if let Some(RepetitionVerdict::PerpetualChase { loser }) = game.repetition_verdict() {
                found += 1;
                if show == Some(n + 1) {
                    describe_cycle(&game);
                }
                println!(
                    "game {} ({}; {} - {}, {}): ply {}, occurrence {}, {:?} chases; {} plies in all",
                    n + 1,
                    raw.tag("Source"),
                    raw.tag("Red"),
                    raw.tag("Black"),
                    raw.tag("Result"),
                    ply + 1,
                    reps + 1,
                    loser,
                    raw.moves.len()
                );
                if reps >= 2 && ply + 1 == raw.moves.len() {
                    let chaser_lost = raw.tag("Result") == if loser == Color::Red { "0-1" } else { "1-0" };
                    ending.push((n + 1, raw.tag("Result").to_string(), chaser_lost));
                }
            }
        }
    }
    println!("{found} chase repetitions");
    let lost = ending.iter().filter(|e| e.2).count();
    println!("{} games end at a third occurrence judged a perpetual chase, {lost} lost by the chaser:", ending.len());
    for (n, result, chaser_lost) in &ending {
        println!("    game {n}: {result}{}", if *chaser_lost { " (chaser lost)" } else { "" });
    }
}

/// Prints the cycle that closes at the current position: each move with the pieces it chases.
fn describe_cycle(game: &Game) {
    let moves: Vec<Move> = game.moves().collect();
    let mut pos = game.start().clone();
    let mut positions = Vec::new();
    for &m in &moves {
        positions.push(pos.clone());
        pos.make_move(m);
    }
    let key = game.position().key();
    let Some(start) = positions.iter().rposition(|p| p.key() == key) else { return };
    for i in start..moves.len() {
        let chased: Vec<String> =
            chase::chased_by(&positions[i], moves[i]).into_iter().map(|s| s.to_string()).collect();
        println!("    {} {} chases {:?}  ({})", i + 1, moves[i], chased, positions[i].fen());
    }
}

/// The fixture's games, each with its moves read as moves of the standard start position.
fn fixture() -> Vec<(RawGame, Vec<Move>)> {
    let games = read_games(Path::new(FIXTURE));
    assert_eq!(games.len(), 2);
    games
        .into_iter()
        .map(|raw| {
            assert_eq!(raw.tag("FEN"), "", "the fixture's games start from the standard position");
            let mut pos = Position::startpos();
            let moves = raw
                .moves
                .iter()
                .map(|t| {
                    let m = iccs::parse(&pos, t).unwrap_or_else(|e| panic!("{}: {t}: {e}", raw.tag("Source")));
                    assert!(pos.is_legal(m), "{}: {t} is illegal", raw.tag("Source"));
                    pos.make_move(m);
                    m
                })
                .collect();
            (raw, moves)
        })
        .collect()
}

/// The ply (1-based) at which the referee ends each game, its outcome there, and the plies the
/// record has. Independent recount: in the World Cup game the position after 48... A0-A2 (ply
/// 96) recurs after 50... A0-A2 (ply 100), its third occurrence counting ply 92 (46... A1-A2);
/// in the other, the position after 53... I5-E5 (ply 106) recurs at plies 106 + 4 = 110 for the
/// third time (first after ply 102, 51... E3-E5).
const EXPECTED: [(&str, usize, usize); 2] = [("XU SONGHAO", 100, 102), ("崔俊", 110, 111)];

#[test]
fn the_referee_ends_both_real_games_by_red_perpetual_chase() {
    for ((raw, moves), (red, end, record)) in fixture().iter().zip(EXPECTED) {
        assert_eq!(raw.tag("Red"), red);
        assert_eq!(raw.tag("Result"), "0-1");
        assert_eq!(moves.len(), record);
        let mut game = Game::new(Position::startpos());
        for (i, &m) in moves.iter().enumerate() {
            assert_eq!(game.outcome(), None, "{red}: the game ended before ply {}", i + 1);
            game.play(m).unwrap();
            if game.len() == end {
                break;
            }
        }
        assert_eq!(game.len(), end);
        assert_eq!(game.repetitions(), 2, "{red}: third occurrence");
        assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::PerpetualChase { loser: Color::Red }));
        assert_eq!(
            game.outcome(),
            Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualChase }),
            "{red}"
        );
    }
}

/// What each move of the final cycle chases (`core::chase::chased_by`), as squares after the
/// move: Red's rook chases the cannon on every move; Black's cannon in the World Cup game
/// chases a different piece each time (from a2 the rook on h2; from a0 it gives check, so the
/// rook on c2 can no longer take back on e2 and the elephant there is chased), and in the other
/// game it only runs.
#[test]
fn each_move_of_the_final_cycles_chases_what_the_rules_say() {
    let want: [&[&[&str]]; 2] = [&[&["a2"], &["e2"], &["a0"], &["h2"]], &[&["e5"], &[], &["i5"], &[]]];
    for ((raw, moves), ((_, end, _), want)) in fixture().iter().zip(EXPECTED.iter().zip(want)) {
        let mut pos = Position::startpos();
        for &m in &moves[..end - 4] {
            pos.make_move(m);
        }
        for (k, &m) in moves[end - 4..*end].iter().enumerate() {
            let got: Vec<String> = chase::chased_by(&pos, m).into_iter().map(|s| s.to_string()).collect();
            assert_eq!(got, want[k], "{}: ply {} ({m})", raw.tag("Red"), end - 4 + k + 1);
            pos.make_move(m);
        }
    }
}

/// A fake UCI engine (a shell script) that plays `moves` in order: it answers `go` with the move
/// whose index is the number of moves in the last `position` command.
fn scripted_engine(dir: &Path, name: &str, moves: &[Move]) -> EngineSpec {
    let path = dir.join(name);
    let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let body = format!(
        "#!/bin/sh\nset -f\nMOVES=\"{}\"\nn=0\nwhile read line; do\n case \"$line\" in\n  uci) echo \"id name {name}\"; echo uciok;;\n  isready) echo readyok;;\n  position*) n=0; seen=0; for w in $line; do if [ $seen = 1 ]; then n=$((n+1)); fi; if [ \"$w\" = moves ]; then seen=1; fi; done;;\n  go*) i=0; for m in $MOVES; do if [ $i = $n ]; then echo \"bestmove $m\"; break; fi; i=$((i+1)); done;;\n  quit) exit 0;;\n esac\ndone\n",
        list.join(" ")
    );
    std::fs::write(&path, body).unwrap();
    let mut perm = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&path, perm).unwrap();
    let mut spec = EngineSpec::new(&path.display().to_string());
    spec.name = Some(name.to_string());
    // The script knows nothing but its list: no rank detection in the start position.
    spec.ranks = Some(RankBase::Zero);
    spec
}

/// The match runner plays each real game between two scripted engines (each replays the game's
/// moves) and must stop it at the third occurrence, lost by Red (the chaser) by perpetual chase,
/// in its record and in the PGN it writes.
#[test]
fn the_match_runner_adjudicates_the_real_games_as_lost_by_the_chaser() {
    let dir = tempfile::tempdir().unwrap();
    for (n, ((raw, moves), (red, end, _))) in fixture().iter().zip(EXPECTED).enumerate() {
        let pgn_path = dir.path().join(format!("game{n}.pgn"));
        let config = MatchConfig {
            engines: [
                scripted_engine(dir.path(), &format!("red{n}"), moves),
                scripted_engine(dir.path(), &format!("black{n}"), moves),
            ],
            games: 1,
            limit: Limit::Depth(1),
            openings: vec![Opening { fen: START_FEN.to_string(), moves: Vec::new() }],
            pgn: Some(pgn_path.clone()),
            concurrency: 1,
            max_plies: 400,
            margin: Duration::from_millis(500),
            event: raw.tag("Event").to_string(),
            sprt: None,
            pin: false,
        };
        let report = matchrunner::run(&config, &|_, _| {}).unwrap();
        assert_eq!(report.games.len(), 1);
        let g = &report.games[0];
        assert_eq!(g.red_engine, 0);
        assert_eq!(g.fault, None, "{red}: {}", g.reason);
        assert_eq!(g.winner, Some(Color::Black), "{red}: {}", g.reason);
        assert_eq!(g.reason, "perpetual chase");
        assert_eq!(g.pgn.moves, moves[..end].to_vec(), "{red}: the runner plays the record up to the verdict");
        assert_eq!((report.tally.wins, report.tally.draws, report.tally.losses), (0, 0, 1));
        let text = std::fs::read_to_string(&pgn_path).unwrap();
        assert!(text.contains("[Result \"0-1\"]"), "{text}");
        assert!(text.contains("[Termination \"perpetual chase\"]"), "{text}");
        assert!(text.contains(&format!("[PlyCount \"{end}\"]")), "{text}");
        // The PGN written reads back with the crate's reader to the same moves and result.
        let back = read_games(&pgn_path);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].tag("Result"), "0-1");
        let mut pos = Position::startpos();
        let replayed: Vec<Move> = back[0]
            .moves
            .iter()
            .map(|t| {
                let m = iccs::parse(&pos, t).unwrap();
                pos.make_move(m);
                m
            })
            .collect();
        assert_eq!(replayed, moves[..end].to_vec());
    }
}

/// The game of the second fixture (崔俊 - 薛文強) after `plies` moves.
fn second_game_after(plies: usize) -> Game {
    let (_, moves) = &fixture()[1];
    let mut game = Game::new(Position::startpos());
    for &m in &moves[..plies] {
        game.play(m).unwrap();
    }
    game
}

fn search_at_depth(game: &Game, depth: u32, searchmoves: Vec<Move>) -> search::SearchResult {
    let limits = Limits { searchmoves, ..Limits::depth(depth) };
    let shared = Shared::new(16);
    search::search(game, &limits, &SearchOptions::default(), &shared, &mut History::default(), &mut |_| {})
}

/// The search judges the real game's repetition as the referee does. After 54... E5-I5 (ply
/// 108), Red's 55. E3-I3 would repeat the position after ply 105 and close a cycle in which Red's
/// rook chased the cannon on every move: the search scores it as a loss and plays something
/// else (it has safe moves: the score is not a mate). After 55. E3-I3 (ply 109), Black's
/// 55... I5-E5 closes the same kind of cycle with Red the chaser: the search, as Black, scores
/// it as a win and plays it. Fixed depth, one thread: deterministic.
#[test]
fn the_search_scores_the_real_repetition_as_the_referee_judges_it() {
    // The chaser avoids the repetition.
    let game = second_game_after(108);
    assert_eq!(game.position().turn(), Color::Red);
    let repeat = iccs::parse(game.position(), "e3i3").unwrap();
    let mut after = game.clone();
    after.play(repeat).unwrap();
    assert_eq!(after.repetitions(), 1);
    assert_eq!(after.repetition_verdict(), Some(RepetitionVerdict::PerpetualChase { loser: Color::Red }));
    let forced = search_at_depth(&game, 6, vec![repeat]);
    assert!(matches!(forced.score, Score::Mate(n) if n <= 0), "e3i3 repeats Red's chase: {:?}", forced.score);
    let free = search_at_depth(&game, 6, Vec::new());
    assert_ne!(free.best, Some(repeat));
    assert!(matches!(free.score, Score::Cp(_)), "Red has a move that neither repeats nor loses: {:?}", free.score);

    // The victim repeats.
    let game = second_game_after(109);
    assert_eq!(game.position().turn(), Color::Black);
    let repeat = iccs::parse(game.position(), "i5e5").unwrap();
    let mut after = game.clone();
    after.play(repeat).unwrap();
    assert_eq!(after.repetition_verdict(), Some(RepetitionVerdict::PerpetualChase { loser: Color::Red }));
    let free = search_at_depth(&game, 6, Vec::new());
    assert_eq!(free.best, Some(repeat), "{:?}", free.score);
    assert!(matches!(free.score, Score::Mate(n) if n > 0), "repeating wins for Black: {:?}", free.score);
}

/// `qiku probe` searches with the moves that led to the position, as `analyze` does: after ply
/// 96 of the World Cup game it does not advise c0c2, which repeats the chase and loses.
#[test]
fn probe_judges_repetitions_with_the_moves_given() {
    let (_, moves) = &fixture()[0];
    let mut args: Vec<String> = ["probe", "startpos", "moves"].iter().map(|s| s.to_string()).collect();
    args.extend(moves[..96].iter().map(|m| m.to_string()));
    args.extend(["--depth", "6", "--json"].iter().map(|s| s.to_string()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qiku")).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let best = v["answer"]["move"].as_str().unwrap();
    assert_ne!(best, "c0c2", "{v}");
    args[0] = "analyze".into();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qiku")).args(&args).output().unwrap();
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(a["bestmove"].as_str(), Some(best), "probe and analyze agree");
}

/// A game the referee has ended (the third occurrence at ply 100, Red's perpetual chase) is
/// reported as over by `analyze` and `probe`, in text and JSON, instead of searched on.
#[test]
fn analyze_and_probe_say_the_game_is_over() {
    let (_, moves) = &fixture()[0];
    for (cmd, json) in [("analyze", false), ("analyze", true), ("probe", false), ("probe", true)] {
        let mut args: Vec<String> = [cmd, "startpos", "moves"].iter().map(|s| s.to_string()).collect();
        args.extend(moves[..100].iter().map(|m| m.to_string()));
        args.extend(["--depth", "4"].iter().map(|s| s.to_string()));
        if json {
            args.push("--json".into());
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_qiku")).args(&args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        if json {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["game_over"]["result"], "0-1", "{cmd}: {v}");
            assert_eq!(v["game_over"]["text"], "black wins by perpetual chase", "{cmd}: {v}");
            match cmd {
                "analyze" => assert!(v["bestmove"].is_null()),
                // `probe` keeps its fields (the book's and the tables' view), with no answer.
                _ => {
                    assert_eq!(v["answer"], serde_json::json!({"move": null, "iccs": null, "source": "game_over"}));
                    assert!(v["search"].is_null() && v["book"].is_null() && v["tablebase"].is_null(), "{v}");
                }
            }
        } else {
            let said = "game over: black wins by perpetual chase (0-1); no move to search\n";
            match cmd {
                "analyze" => assert_eq!(text, said),
                _ => assert_eq!(text, format!("answer: none: {said}")),
            }
        }
    }
}

/// `annotate` says where the referee ended each game ("game over", once, nothing after it), and
/// annotates each game alone: the second game's comments are those it gets in a file of its own.
#[test]
fn annotate_marks_the_end_and_each_game_stands_alone() {
    let dir = tempfile::tempdir().unwrap();
    let annotate = |input: &Path, name: &str| -> String {
        let out = dir.path().join(name);
        let args = ["annotate", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "2", "-q"];
        let r = std::process::Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let both = annotate(Path::new(FIXTURE), "both.pgn");
    assert_eq!(both.matches("{game over: black wins by perpetual chase (0-1)}").count(), 2, "{both}");
    let second_at = both.rfind("[Game ").unwrap();
    // After the first game's end, no comment until the second game.
    let first_end = both.find("game over").unwrap();
    assert!(!both[first_end + 10..second_at].contains('{'), "comments after the end of game 1");
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let alone_input = dir.path().join("second.pgn");
    std::fs::write(&alone_input, &text[text.rfind("[Game ").unwrap()..]).unwrap();
    let alone = annotate(&alone_input, "alone.pgn");
    assert_eq!(&both[second_at..], alone, "game 2's comments depend on game 1");
}
