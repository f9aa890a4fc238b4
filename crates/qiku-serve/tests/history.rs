//! The moves played before a position (`moves`) count as they do in a game: `/api/analyze`
//! reports a game the rules have ended as `qiku analyze --json` does (`game_over`, no move, no
//! search), searches with the moves so that its answer is `qiku analyze`'s, and `/api/explore`'s
//! `status` names how the game ended. The expected answers are the library's, computed here as
//! `qiku analyze` computes them.

use crate::common::*;
use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::{notation::iccs, Game, Position};
use serde_json::Value;

/// The game from `fen` through `moves` (ICCS, space-separated), as `qiku analyze FEN moves ...`
/// reads it.
fn game(fen: &str, moves: &str) -> Game {
    let mut game = Game::new(Position::from_fen(fen).expect("fen"));
    for t in moves.split_whitespace() {
        game.play(iccs::parse(game.position(), t).expect("legal")).expect("legal");
    }
    game
}

fn analyze(srv: &qiku_serve::Running, fen: &str, moves: &str, extra: &str) -> Value {
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&moves={}&{extra}", enc(fen), enc(moves)));
    assert_eq!(status, 200, "{v}");
    v
}

fn engine_server() -> qiku_serve::Running {
    let mut o = options();
    o.engine = true;
    server(o)
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
const REPEATED: &str = "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0 g7h9";
/// KRvKN: the tables win it for red by the perpetual-check rule; after these moves black's
/// horse has checked on every move of the cycle (red wins by perpetual check).
const PERPETUAL: &str = "9/9/4k4/1R7/9/9/6n2/9/5K3/9 w - - 0 1";
const PERPETUAL_MOVES: &str = "f1f0 g3h1 f0f1 h1g3 f1f0 g3h1 f0f1 h1g3";
/// KRvKN with the 120-ply limit reached: a draw, though the tables mate.
const LIMIT: &str = "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 120 61";

/// A game the rules have ended is reported as `qiku analyze --json` reports it: the library's
/// words and result in `game_over`, no move, no search (it was searched on, the moves dropped:
/// `cp 49` after a threefold repetition, the tables' `f1f0` after a perpetual check, `mate 3`
/// past the 120-ply limit).
#[test]
fn analyze_reports_a_game_the_rules_ended() {
    let srv = engine_server();
    for (fen, moves, text, result) in [
        (START, REPEATED, "draw by threefold repetition", "1/2-1/2"),
        (PERPETUAL, PERPETUAL_MOVES, "red wins by perpetual check", "1-0"),
        (LIMIT, "", "draw by 120 plies without capture", "1/2-1/2"),
    ] {
        let expected = qiku::engine::game_over(&game(fen, moves)).expect("the rules ended the game");
        assert_eq!((expected.text.as_str(), expected.result), (text, result));
        let v = analyze(&srv, fen, moves, "depth=6");
        assert_eq!(v["game_over"]["text"].as_str(), Some(expected.text.as_str()), "{fen} {moves}: {v}");
        assert_eq!(v["game_over"]["result"].as_str(), Some(expected.result), "{v}");
        assert_eq!(
            (&v["bestmove"], &v["cp"], &v["mate"], &v["source"]),
            (&Value::Null, &Value::Null, &Value::Null, &Value::Null),
            "{v}"
        );
        assert_eq!(
            (v["pv"].as_array().map(Vec::len), v["depth"].as_u64(), v["nodes"].as_u64()),
            (Some(0), Some(0), Some(0))
        );
        assert_eq!(v["tablebase"], Value::Null, "{v}");
        assert_eq!(v["fen"].as_str(), Some(game(fen, moves).position().fen().as_str()));
    }
}

/// A game that goes on is searched with its moves, as `qiku analyze startpos moves ...` searches
/// it: the same score, line and nodes for the same depth and hash (without the moves the search
/// judged the repetitions ahead otherwise: `cp 175` where `qiku analyze` says `cp 190`).
#[test]
fn analyze_searches_with_the_moves_played() {
    let srv = engine_server();
    let moves = "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0";
    let game = game(START, moves);
    assert!(qiku::engine::game_end(&game).is_none());
    // `qiku analyze startpos moves ... --depth 7 --hash H`, H the server's hash.
    let hash = qiku_serve::Limits::default().hash_mib;
    let shared = Shared::try_new(hash).expect("hash");
    let cli = search::search(
        &game,
        &Limits::depth(7),
        &SearchOptions::default(),
        &shared,
        &mut History::default(),
        &mut |_| {},
    );
    let v = analyze(&srv, START, moves, "depth=7&movetime=5000");
    assert_eq!(
        (v["cp"].as_i64(), v["mate"].as_i64()),
        (cli.score.cp().map(i64::from), cli.score.mate().map(i64::from)),
        "{v}"
    );
    assert_eq!(v["depth"].as_u64(), Some(u64::from(cli.depth)), "{v}");
    let pv: Vec<&str> = v["pv"].as_array().expect("pv").iter().map(|m| m["iccs"].as_str().expect("iccs")).collect();
    let cli_pv: Vec<String> = cli.pv.iter().map(|m| m.to_string()).collect();
    assert_eq!(pv, cli_pv, "{v}");
    assert_eq!(v["bestmove"]["iccs"].as_str(), cli.best.map(|m| m.to_string()).as_deref(), "{v}");
    assert_eq!(v["nodes"].as_u64(), Some(cli.nodes), "{v}");
    assert_eq!((v["source"].as_str(), &v["game_over"]), (Some("search"), &Value::Null), "{v}");
}

/// A side without a legal move is still searched (no move, mated now) and the end said beside
/// it, as `qiku analyze --json` says it.
#[test]
fn analyze_says_the_end_of_a_mated_game_beside_the_search() {
    let srv = engine_server();
    let mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1";
    let end = qiku::engine::game_end(&game(mated, "")).expect("mated");
    let v = analyze(&srv, mated, "", "movetime=100");
    assert_eq!(v["game_over"]["text"].as_str(), Some(end.text.as_str()), "{v}");
    assert_eq!(v["game_over"]["result"].as_str(), Some("1-0"), "{v}");
    assert_eq!(
        (v["mate"].as_i64(), &v["bestmove"], v["source"].as_str()),
        (Some(0), &Value::Null, Some("search")),
        "{v}"
    );
}

/// `/api/explore`'s `status` names how the game ended, by the library's reason (`ok` while it
/// goes on; it was `ok` for every game with a legal move left), and `game_over` says it in the
/// words of `qiku analyze`.
#[test]
fn explore_status_names_the_end_of_the_game() {
    let srv = server(options());
    for (fen, moves, status) in [
        (START, "", "ok"),
        (START, REPEATED, "repetition"),
        (PERPETUAL, PERPETUAL_MOVES, "perpetual_check"),
        (LIMIT, "", "no_capture_limit"),
        ("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "", "insufficient_material"),
        ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", "", "checkmate"),
    ] {
        let (code, v) = get_json(srv.addr, &format!("/api/explore?fen={}&moves={}", enc(fen), enc(moves)));
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["status"].as_str(), Some(status), "{fen} {moves}: {v}");
        match qiku::engine::game_end(&game(fen, moves)) {
            Some(end) => {
                assert_eq!(qiku::engine::game_over::reason_name(end.reason()), status);
                assert_eq!(v["game_over"]["text"].as_str(), Some(end.text.as_str()), "{v}");
                assert_eq!(v["game_over"]["result"].as_str(), Some(end.result), "{v}");
            }
            None => assert_eq!(v["game_over"], Value::Null, "{v}"),
        }
    }
}
