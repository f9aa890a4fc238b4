//! The engine with an opening book and with endgame tablebases: a book move at once from the
//! start position (no search), exact DTM mates in won endgames, and no loss from drawn ones.

use qiku::book::{self, BuildOptions};
use qiku::engine::adapters::{QbkOpeningBook, QtbEndgames};
use qiku::engine::time::Limits;
use qiku::engine::{Endgames, Engine, Source};
use qiku::notation::iccs;
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{Material, Tablebases};
use qiku::{Color, Game, Move, Piece, Position, Role, Setup};
use qiku::{TbValue, Wdl};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Three short games: the book's start position has h2e2 (twice) and c3c4.
const GAMES: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 1-0\n\n\
[Event \"b\"]\n[Result \"1/2-1/2\"]\n\n1. h2e2 b9c7 2. b0c2 1/2-1/2\n\n\
[Event \"c\"]\n[Result \"0-1\"]\n\n1. c3c4 g6g5 0-1\n\n";

fn build_book(dir: &Path) -> PathBuf {
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let out = dir.join("test.qbk");
    book::build(&[pgn], &out, &BuildOptions::default()).unwrap();
    out
}

fn tables(dir: &Path) -> Tablebases {
    let ms: Vec<Material> = ["KRvK", "KNvK", "KRvKA", "KRvKAA", "KNPvK", "KNvKAB", "KCPvKA", "KPvKA"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let opts = GenerateOptions::new(dir);
    generate_set(&ms, &opts).unwrap();
    Tablebases::open(dir).unwrap()
}

#[test]
fn book_move_from_the_start_position_over_uci() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path());
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_qiku")).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "setoption name BookFile value {}", book.display()).unwrap();
    writeln!(stdin, "setoption name BookPolicy value games").unwrap();
    writeln!(stdin, "isready").unwrap();
    let mut lines = Vec::new();
    let read_until = |stdout: &mut BufReader<_>, prefix: &str, lines: &mut Vec<String>| loop {
        let mut l = String::new();
        assert!(stdout.read_line(&mut l).unwrap() > 0, "qiku closed its output");
        let done = l.starts_with(prefix);
        lines.push(l.trim_end().to_string());
        if done {
            return;
        }
    };
    read_until(&mut stdout, "readyok", &mut lines);
    assert!(lines.iter().all(|l| !l.contains("BookFile")), "{lines:?}");
    for _ in 0..5 {
        lines.clear();
        writeln!(stdin, "position startpos").unwrap();
        let t = Instant::now();
        writeln!(stdin, "go wtime 600000 btime 600000").unwrap();
        read_until(&mut stdout, "bestmove", &mut lines);
        // Instantly (a liveness bound: a search of a 10-minute clock would take seconds).
        assert!(t.elapsed() < Duration::from_secs(2));
        assert!(lines.iter().any(|l| l == "info string book move"), "{lines:?}");
        let mv = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
        // One line for a GUI to show, the move at depth 0 and no score (the book has games, not
        // centipawns); no search started.
        let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        assert_eq!(infos, [&format!("info depth 0 pv {mv}")], "{lines:?}");
        // A symmetric position: the book may answer with either mirror image of a move.
        assert!(["h2e2", "b2e2", "c3c4", "g3g4"].contains(&mv.as_str()), "{mv}");
    }
    // Out of the book (a move no game played): a normal search.
    lines.clear();
    writeln!(stdin, "position startpos moves a3a4").unwrap();
    writeln!(stdin, "go depth 3").unwrap();
    read_until(&mut stdout, "bestmove", &mut lines);
    assert!(lines.iter().any(|l| l.starts_with("info depth 3")), "{lines:?}");
    writeln!(stdin, "quit").unwrap();
    assert!(child.wait().unwrap().success());
}

/// A book truncated or overwritten while the engine has it open is reported on the UCI channel
/// (once, naming the file), and the engine searches instead of silently finding no book move.
#[test]
fn book_damaged_while_open_is_reported_and_the_engine_searches() {
    for damage in ["truncate", "overwrite"] {
        let dir = tempfile::tempdir().unwrap();
        let book = build_book(dir.path());
        let mut child =
            Command::new(env!("CARGO_BIN_EXE_qiku")).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let read_until = |stdout: &mut BufReader<_>, prefix: &str| {
            let mut lines = Vec::new();
            loop {
                let mut l = String::new();
                assert!(stdout.read_line(&mut l).unwrap() > 0, "qiku closed its output");
                let done = l.starts_with(prefix);
                lines.push(l.trim_end().to_string());
                if done {
                    return lines;
                }
            }
        };
        writeln!(stdin, "setoption name BookFile value {}", book.display()).unwrap();
        writeln!(stdin, "isready").unwrap();
        read_until(&mut stdout, "readyok");
        let len = std::fs::metadata(&book).unwrap().len();
        if damage == "truncate" {
            std::fs::OpenOptions::new().write(true).open(&book).unwrap().set_len(200).unwrap();
        } else {
            // Another file's bytes written over it in place (same inode, same length).
            std::fs::OpenOptions::new().write(true).open(&book).unwrap().write_all(&vec![0x5a; len as usize]).unwrap();
        }
        for round in 0..2 {
            writeln!(stdin, "position startpos").unwrap();
            writeln!(stdin, "go depth 2").unwrap();
            let lines = read_until(&mut stdout, "bestmove");
            let reports: Vec<_> = lines.iter().filter(|l| l.contains("playing on without the book")).collect();
            // Reported once, naming the file; then the engine simply searches.
            assert_eq!(reports.len(), usize::from(round == 0), "{damage}: {lines:?}");
            if round == 0 {
                assert!(reports[0].starts_with("info string ") && reports[0].contains("test.qbk"), "{reports:?}");
            }
            assert!(lines.iter().all(|l| l != "info string book move"), "{damage}: {lines:?}");
            assert!(lines.iter().any(|l| l.starts_with("info depth 2")), "{damage}: {lines:?}");
        }
        writeln!(stdin, "quit").unwrap();
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn book_policy_and_min_games_through_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_book(dir.path());
    let mut engine = Engine::new(1);
    engine.book = Some(Arc::new(QbkOpeningBook::open(&path, qiku::book::Policy::BestScore, 1).unwrap()));
    let game = Game::new(Position::startpos());
    let (r, source) = engine.think(&game, &Limits::depth(20), &mut |_| {});
    assert_eq!(source, Source::Book);
    // best score: h2e2 scored 1.5/2, c3c4 0/1.
    assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("h2e2"));
    // With a minimum of two games only h2e2 qualifies; after h2e2 (single games) nothing does.
    engine.book = Some(Arc::new(QbkOpeningBook::open(&path, qiku::book::Policy::WeightedByGames, 2).unwrap()));
    assert_eq!(engine.think(&game, &Limits::depth(20), &mut |_| {}).1, Source::Book);
    let mut g = game.clone();
    g.play(iccs::parse(g.position(), "h2e2").unwrap()).unwrap();
    assert_eq!(engine.think(&g, &Limits::depth(2), &mut |_| {}).1, Source::Search);
}

/// Seeded random legal positions of `material` (red's pieces first, as named) with `turn` to
/// move.
fn sample(material: &str, turn: Color, n: usize, seed: u64) -> Vec<Position> {
    let m: Material = material.parse().unwrap();
    let mut pieces = Vec::new();
    for c in Color::ALL {
        for r in Role::ALL {
            for _ in 0..m.count(c, r) {
                pieces.push(Piece::new(c, r));
            }
        }
    }
    let mut state = seed;
    let mut next = move |k: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % k as u64) as usize
    };
    let mut out = Vec::new();
    while out.len() < n {
        let mut s = Setup::empty();
        s.turn = turn;
        let mut ok = true;
        for &p in &pieces {
            let squares: Vec<_> = Position::reachable_squares(p).collect();
            let sq = squares[next(squares.len())];
            ok &= s.piece_at(sq).is_none();
            s.set(sq, Some(p));
        }
        if let (true, Ok(pos)) = (ok, Position::from_setup(&s)) {
            out.push(pos);
        }
    }
    out
}

fn engine_with(tb: &Arc<QtbEndgames>) -> Engine {
    let mut e = Engine::new(4);
    e.options.tablebases = Some(tb.clone() as Arc<dyn Endgames>);
    e
}

fn engine_move(engine: &mut Engine, game: &Game) -> (Move, Source) {
    let (r, source) = engine.think(game, &Limits::depth(6), &mut |_| {});
    (r.best.expect("a move"), source)
}

#[test]
fn won_endgames_are_mated_in_exactly_the_table_distance() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Arc::new(QtbEndgames::new(tables(dir.path())));
    for (material, seed) in [("KRvK", 1), ("KNvK", 2), ("KRvKA", 3), ("KRvKAA", 4), ("KNPvK", 5)] {
        // The longest wins among a sample, and a few others.
        let mut won: Vec<(u32, Position)> = sample(material, Color::Red, 400, seed)
            .into_iter()
            .filter_map(|p| match tb.probe(&p) {
                Some(v) if v.wdl == Wdl::Win => Some((v.dtm.plies(), p)),
                _ => None,
            })
            .collect();
        won.sort_by_key(|(d, p)| (std::cmp::Reverse(*d), p.fen()));
        assert!(!won.is_empty(), "{material}");
        for (dtm, pos) in won.iter().take(3) {
            let mut engine = engine_with(&tb);
            let mut game = Game::new(pos.clone());
            loop {
                if let Some(outcome) = game.outcome() {
                    assert_eq!(
                        outcome,
                        qiku::core::Outcome::Decisive {
                            winner: Color::Red,
                            reason: if game.position().is_check() {
                                qiku::core::EndReason::Checkmate
                            } else {
                                qiku::core::EndReason::Stalemate
                            }
                        },
                        "{material} {}",
                        pos.fen()
                    );
                    break;
                }
                let m = if game.position().turn() == Color::Red {
                    let (m, source) = engine_move(&mut engine, &game);
                    assert_eq!(source, Source::Tablebase);
                    m
                } else {
                    // The table's longest defence.
                    tb.move_values(game.position()).unwrap()[0].0
                };
                game.play(m).unwrap();
                assert!(game.len() <= *dtm as usize, "{material} {}: no mate after {dtm} plies", pos.fen());
            }
            assert_eq!(game.len(), *dtm as usize, "{material} {}", pos.fen());
        }
    }
}

/// Plays `pos` for up to `plies`: the engine (with the tables) on the side to move, the table's
/// first best move for the opponent, which wins at once from any mistake. Asserts that the
/// opponent is never winning after the engine's move and that the game is not lost.
fn hold_the_draw(tb: &Arc<QtbEndgames>, pos: &Position, plies: usize) {
    let mut engine = engine_with(tb);
    let mut game = Game::new(pos.clone());
    let us = pos.turn();
    while game.outcome().is_none() && game.len() < plies {
        let m = if game.position().turn() == us {
            engine_move(&mut engine, &game).0
        } else {
            tb.move_values(game.position()).unwrap()[0].0
        };
        game.play(m).unwrap();
        if game.position().turn() != us {
            let v = tb.probe(game.position());
            assert!(
                !matches!(v, Some(TbValue { wdl: Wdl::Win, .. })),
                "{} lost the draw: {v:?} in {}",
                pos.fen(),
                game.position().fen()
            );
        }
    }
    if let Some(qiku::core::Outcome::Decisive { winner, reason }) = game.outcome() {
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        assert_eq!(winner, us, "{} lost by {reason:?}: {}", pos.fen(), moves.join(" "));
    }
}

#[test]
fn drawn_endgames_are_not_lost() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Arc::new(QtbEndgames::new(tables(dir.path())));
    // Defenders without checking pieces in drawn positions where some move loses (horse against
    // advisor and elephant; cannon and pawn against an advisor, five pieces).
    for (material, seed) in [("KNvKAB", 21), ("KCPvKA", 22)] {
        let drawn: Vec<Position> = sample(material, Color::Black, 4000, seed)
            .into_iter()
            .filter(|p| {
                tb.probe(p) == Some(TbValue::DRAW) && tb.move_values(p).unwrap().iter().any(|(_, v)| v.wdl == Wdl::Loss)
            })
            .take(3)
            .collect();
        assert_eq!(drawn.len(), 3, "{material}");
        for pos in &drawn {
            hold_the_draw(&tb, pos, 40);
        }
    }
    // The side with the pawn in a drawn pawn-against-advisor ending, with checks available: the
    // tables call every move a draw, but a perpetual check would lose under the rules.
    let drawn: Vec<Position> = sample("KPvKA", Color::Red, 4000, 23)
        .into_iter()
        .filter(|p| tb.probe(p) == Some(TbValue::DRAW) && p.moves().iter().any(|&m| p.gives_check(m)))
        .take(3)
        .collect();
    assert_eq!(drawn.len(), 3);
    for pos in &drawn {
        hold_the_draw(&tb, pos, 60);
    }
}

#[test]
fn tablebase_move_over_uci_reports_the_mate() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_qiku")).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "setoption name TablebasePath value {}", dir.path().display()).unwrap();
    writeln!(stdin, "position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    writeln!(stdin, "go movetime 5000").unwrap();
    let mut lines = Vec::new();
    for l in stdout.lines() {
        let l = l.unwrap();
        let done = l.starts_with("bestmove");
        lines.push(l);
        if done {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    assert!(lines.iter().any(|l| l.starts_with("info string tablebases loaded")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("score mate 1 ")), "{lines:?}");
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(["e1d1", "e1e8"].contains(&best.as_str()), "{best}");
    assert!(child.wait().unwrap().success());
}

#[test]
fn probe_command_combines_book_tables_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let book = build_book(dir.path());
    let tb_dir = dir.path().join("tb");
    let opts = GenerateOptions::new(&tb_dir);
    generate_set(&["KRvK".parse().unwrap()], &opts).unwrap();
    let probe = |args: &[&str]| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_qiku")).arg("probe").args(args).arg("--json").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (b, t) = (book.display().to_string(), tb_dir.display().to_string());
    // The start position: in the book, not in the tables.
    let v = probe(&["--book", &b, "--tb", &t]);
    assert_eq!(v["answer"]["source"], "book");
    assert_eq!(v["book"]["moves"].as_array().unwrap().len(), 2);
    assert!(v["tablebase"].is_null() && v["search"].is_null());
    // Rook against king: the tables answer with a mate in one.
    let v = probe(&["3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", "--book", &b, "--tb", &t]);
    assert_eq!(v["answer"]["source"], "tablebase");
    assert_eq!(
        v["tablebase"]["value"],
        serde_json::json!({"wdl": "win", "dtm": 1, "by_rule": false, "unit": "plies", "rules": "asian",
                           "text": "win, mate in 1 ply (asian rules)"})
    );
    assert_eq!(v["tablebase"]["best_moves"], serde_json::json!(["e1d1", "e1e8"]));
    // Neither: a short search.
    let v = probe(&["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b", "--depth", "3", "--tb", &t]);
    assert_eq!(v["answer"]["source"], "search");
    assert_eq!(v["search"]["depth"], 3);
}

/// A drawn root in the tables: the search chooses among the drawing moves, and every score it
/// reports is the tables' draw, 0 (its evaluation of those moves said up to 0.79 here).
#[test]
fn a_drawn_root_scores_zero_at_every_depth() {
    let dir = tempfile::tempdir().unwrap();
    generate_set(&["KRvKR".parse::<Material>().unwrap()], &GenerateOptions::new(dir.path())).unwrap();
    let tb = Arc::new(QtbEndgames::new(Tablebases::open(dir.path()).unwrap()));
    let mut engine = engine_with(&tb);
    let game = Game::new(Position::from_fen("4k4/9/9/r8/9/9/8R/9/9/3K5 w - - 0 1").unwrap());
    let mut scores = Vec::new();
    let (r, source) = engine.think(&game, &Limits::depth(8), &mut |info| scores.push(info.score));
    assert_eq!(source, Source::Search);
    assert_eq!(scores.len(), 8, "{scores:?}");
    assert!(scores.iter().chain([&r.score]).all(|&s| s == qiku::engine::Score::Cp(0)), "{scores:?} {:?}", r.score);
    let best = r.best.expect("a move");
    assert_eq!(tb.probe(&game.position().play(best).unwrap()), Some(TbValue::DRAW));
}

/// The tables do not count the 120-ply limit: a table win whose mate would come after the limit
/// from the position's clock is a draw in the game (here every move of the rook leaves the
/// knight alone, and the limit comes first), so the engine searches it, with the limit, instead
/// of announcing the table's mate; with the clock low enough for the mate, the tables answer.
#[test]
fn a_table_win_past_the_120_ply_limit_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    generate_set(&["KRvKN".parse::<Material>().unwrap()], &GenerateOptions::new(dir.path())).unwrap();
    let tb = Arc::new(QtbEndgames::new(Tablebases::open(dir.path()).unwrap()));
    let board = "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - -";
    let dtm = tb.probe(&Position::from_fen(&format!("{board} 0 1")).unwrap()).unwrap();
    assert_eq!((dtm.wdl, dtm.dtm.plies()), (Wdl::Win, 5));
    for clock in [0, 115, 116, 119] {
        let game = Game::new(Position::from_fen(&format!("{board} {clock} 1")).unwrap());
        let mut engine = engine_with(&tb);
        let (r, source) = engine.think(&game, &Limits::depth(6), &mut |_| {});
        if clock + 5 <= 120 {
            assert_eq!((source, r.score), (Source::Tablebase, qiku::engine::Score::Mate(3)), "clock {clock}");
            assert!(engine.last_verdict.is_some());
        } else {
            // One ply to the limit: no mate, no capture of the knight in one move; a draw.
            assert_eq!(source, Source::Search, "clock {clock}");
            assert!(!matches!(r.score, qiku::engine::Score::Mate(_)), "clock {clock}: {:?}", r.score);
            assert!(engine.last_verdict.is_none(), "clock {clock}");
        }
    }
}

/// A position whose own value is in a damaged block of its `.qtr` companion, while the values of
/// its moves are readable: the tables cannot say its value (`qiku-tb probe` fails, naming the
/// file), so the engine searches instead of playing, and announcing, a table move built from
/// its moves' values alone (it said "tablebase move: loss by the perpetual-check rule").
#[test]
fn a_root_value_in_a_damaged_block_is_searched_not_played_from_the_tables() {
    use qiku::Rules;
    let dir = tempfile::tempdir().unwrap();
    let ms: Vec<Material> = ["KRvK", "KNvK", "KRvKN"].iter().map(|m| m.parse().unwrap()).collect();
    generate_set(&ms, &GenerateOptions::new(dir.path())).unwrap();
    let qtr = dir.path().join("KRvKN.qtr");
    let mut bytes = std::fs::read(&qtr).unwrap();
    let at = bytes.len() * 7 / 10;
    bytes[at] ^= 0x41;
    std::fs::write(&qtr, bytes).unwrap();
    let tables = Tablebases::open(dir.path()).unwrap();
    // A decided position whose value fails to read and whose moves' values do not.
    let root = sample("KRvKN", Color::Black, 20_000, 7)
        .into_iter()
        .find(|p| {
            let decided = tables
                .move_values_with(p, Rules::Asian)
                .is_ok_and(|v| v.and_then(|v| v.first().copied()).is_some_and(|x| x.1.wdl != Wdl::Draw));
            decided && tables.verdict(p, Rules::Asian).is_err()
        })
        .expect("a decided position whose own value is in the damaged block and whose moves' values are not");
    let tb = Arc::new(QtbEndgames::new(tables));
    let mut engine = engine_with(&tb);
    let (r, source) = engine.think(&Game::new(root.clone()), &Limits::depth(3), &mut |_| {});
    assert_eq!(source, Source::Search, "{}: a table move from a value the tables cannot read", root.fen());
    assert!(r.best.is_some_and(|m| root.is_legal(m)));
}

/// A mated side in the tables: no move to choose, but the tables' verdict is the engine's as
/// every other tool gives it (loss, 0 plies), and UCI says it without the drawn root's words.
#[test]
fn a_mated_root_has_the_tables_verdict() {
    let dir = tempfile::tempdir().unwrap();
    generate_set(&["KRvK".parse::<Material>().unwrap()], &GenerateOptions::new(dir.path())).unwrap();
    let tb = Arc::new(QtbEndgames::new(Tablebases::open(dir.path()).unwrap()));
    let mut engine = engine_with(&tb);
    let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1").unwrap());
    let (r, source) = engine.think(&game, &Limits::depth(3), &mut |_| {});
    assert_eq!((r.best, source), (None, Source::Search));
    let verdict = engine.last_verdict.expect("the tables cover a mated KRvK position");
    assert_eq!((verdict.value.wdl, verdict.value.dtm.0), (Wdl::Loss, 0));
    assert_eq!(tb.verdict(game.position()), Some(verdict));
    assert_eq!(
        qiku::engine::uci::decision_note(source, Some(verdict)).as_deref(),
        Some("tablebase: loss, no legal move (asian rules)")
    );
}
