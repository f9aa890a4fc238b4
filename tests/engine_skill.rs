//! `Skill Level`: level 20 is the full-strength search, output for output and node for node;
//! lower levels play legal moves that are often not the best one, the same ones for the same
//! inputs, and report the line they play last.

use crate::buffer::Buffer;
use qiku::engine::bench::{self, POSITIONS};
use qiku::engine::ordering::History;
use qiku::engine::search::{self, skill, Info, SearchOptions, SearchResult, Shared, MAX_SKILL_LEVEL};
use qiku::engine::time::Limits;
use qiku::engine::uci::{Output, Uci};
use qiku::engine::{Engine, Source};
use qiku::notation::iccs;
use qiku::{Game, Move, Position};

/// The output of a UCI session given `commands`, each `go` waited for; `time` and `nps` (which
/// vary from run to run) taken out of the `info` lines.
fn uci_output(commands: &[&str]) -> Vec<String> {
    let buffer = Buffer::default();
    let mut uci = Uci::new(Output::new(Box::new(buffer.clone())), Default::default());
    for c in commands {
        uci.command(c);
        if c.starts_with("go") {
            // A search with a depth limit ends by itself: `busy` waits for its `bestmove`.
            assert!(!uci.busy("test"));
        }
    }
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    text.lines()
        .map(|line| {
            let mut words = Vec::new();
            let mut it = line.split_whitespace();
            while let Some(w) = it.next() {
                if line.starts_with("info depth") && (w == "time" || w == "nps") {
                    it.next();
                } else {
                    words.push(w);
                }
            }
            words.join(" ")
        })
        .collect()
}

#[test]
fn level_20_is_the_search_without_the_option() {
    // The same searches with the option never set and set to 20 (also after a weaker level was
    // chosen and taken back): the same lines, node counts and best moves.
    let searches = [
        "position startpos",
        "go depth 7",
        "position startpos moves h2e2 h9g7",
        "go depth 7",
        &format!("position fen {}", POSITIONS[3]),
        "go depth 6",
        &format!("position fen {}", POSITIONS[9]),
        "go depth 8",
    ];
    let plain = uci_output(&searches);
    assert_eq!(plain.iter().filter(|l| l.starts_with("bestmove")).count(), 4, "{plain:?}");
    assert!(plain.iter().any(|l| l.starts_with("info depth 7 ") && l.contains(" nodes ")), "{plain:?}");
    for set in [
        &["setoption name Skill Level value 20"][..],
        &["setoption name Skill Level value 3", "setoption name skill level value 20"],
    ] {
        let mut commands: Vec<&str> = set.to_vec();
        commands.extend(searches.iter().copied());
        assert_eq!(uci_output(&commands), plain, "after {set:?}");
    }
    // And the reference from before the option existed: `qiku bench`'s searches with level 20 set
    // visit the pinned signature's nodes.
    let shared = Shared::new(16);
    let options = SearchOptions { skill_level: 20, ..SearchOptions::default() };
    let mut total = 0;
    for fen in POSITIONS {
        shared.tt.clear();
        let game = Game::new(Position::from_fen(fen).unwrap());
        let limits = Limits::depth(bench::DEFAULT_DEPTH);
        total += search::search(&game, &limits, &options, &shared, &mut History::default(), &mut |_| {}).nodes;
    }
    assert_eq!(total, bench::SIGNATURE);
    // The option is advertised with its range, and a value out of it is refused.
    let hello = uci_output(&["uci", "setoption name Skill Level value 21"]);
    assert!(hello.contains(&"option name Skill Level type spin default 20 min 0 max 20".to_string()), "{hello:?}");
    assert!(hello.iter().any(|l| l.contains("Skill Level: value \"21\" is not a number from 0 to 20")), "{hello:?}");
}

/// Searches the game's position with a fresh engine at `level`, returning the result and every
/// `info`.
fn think(game: &Game, level: u32, depth: u32, multi_pv: usize) -> (SearchResult, Vec<Info>) {
    let mut engine = Engine::new(8);
    engine.options.skill_level = level;
    engine.options.multi_pv = multi_pv;
    let mut infos = Vec::new();
    let (r, source) = engine.think(game, &Limits::depth(depth), &mut |i| infos.push(i.clone()));
    assert_eq!(source, Source::Search);
    (r, infos)
}

fn games() -> Vec<Game> {
    let mut games: Vec<Game> = POSITIONS.iter().map(|f| Game::new(Position::from_fen(f).unwrap())).collect();
    // The positions after each of the start's common first moves, black to move.
    for first in ["h2e2", "b2e2", "c3c4", "g3g4", "h0g2", "b0c2", "c0e2", "g0e2"] {
        let mut g = Game::new(Position::startpos());
        g.play(iccs::parse(g.position(), first).unwrap()).unwrap();
        games.push(g);
    }
    games
}

#[test]
fn level_zero_plays_legal_moves_often_not_the_best_and_shows_the_line_played() {
    let mut differ = 0;
    let all = games();
    for game in &all {
        let pos = game.position();
        let (strong, _) = think(game, MAX_SKILL_LEVEL, 6, 1);
        let (weak, infos) = think(game, 0, 6, 1);
        let m = weak.best.expect("a move");
        assert!(pos.is_legal(m), "{}: {m} is illegal", pos.fen());
        // Level 0 searches one ply: the lines of depth 1 only, one shown (MultiPV 1), and the
        // line played last.
        assert_eq!(weak.depth, 1, "{}", pos.fen());
        assert!(infos.iter().all(|i| i.depth == 1 && i.multipv == 1), "{}: {infos:?}", pos.fen());
        let last = infos.last().unwrap();
        assert_eq!((last.pv.first(), last.score), (Some(&m), weak.score), "{}", pos.fen());
        assert_eq!(weak.pv, last.pv);
        assert_eq!(weak.ponder, last.pv.get(1).copied());
        if Some(m) != strong.best {
            differ += 1;
        }
    }
    // Not the full-strength move in a good share of the positions, and not in every one either
    // (often the best line wins the draw).
    assert!(differ >= all.len() / 4 && differ < all.len(), "{differ} of {} moves differ", all.len());
}

#[test]
fn the_same_inputs_give_the_same_moves() {
    // Two self-play games at level 3 (depth 4, the table and history carried from move to move),
    // each from a fresh engine: the same moves, every one legal. And the level changes them.
    let play = |level: u32| -> Vec<Move> {
        let mut engine = Engine::new(8);
        engine.options.skill_level = level;
        let mut game = Game::new(Position::startpos());
        let mut moves = Vec::new();
        for _ in 0..24 {
            let (r, _) = engine.think(&game, &Limits::depth(10), &mut |_| {});
            let Some(m) = r.best else { break };
            game.play(m).expect("a legal move");
            moves.push(m);
        }
        moves
    };
    let first = play(3);
    assert_eq!(first.len(), 24);
    assert_eq!(play(3), first);
    assert_ne!(play(1), first);
    // The same position searched twice by fresh engines at each level: the same move.
    for game in games().iter().take(6) {
        for level in [0, 4, 8] {
            assert_eq!(think(game, level, 20, 1).0, think(game, level, 20, 1).0, "{}", game.position().fen());
        }
    }
}

#[test]
fn multipv_lines_below_full_strength() {
    // MultiPV 2 below full strength: each depth shows two lines, searches at least four (the
    // search's own MultiPV 4 agrees on the first two), and the depth is 1 + level.
    let game = Game::new(Position::startpos());
    let (r, infos) = think(&game, 4, 12, 2);
    assert_eq!(r.depth, skill::depth_limit(4) as u32);
    for depth in 1..=5 {
        let at: Vec<u32> = infos.iter().filter(|i| i.depth == depth).map(|i| i.multipv).collect();
        let expected: &[u32] = if depth == 5 { &[1, 2, 1] } else { &[1, 2] };
        assert_eq!(at, expected, "depth {depth}");
    }
    let last = infos.last().unwrap();
    assert_eq!(r.best, last.pv.first().copied());
    // The four lines of a full-strength MultiPV 4 search to the same depth hold the move played.
    let shared = Shared::new(8);
    let options = SearchOptions { multi_pv: 4, ..SearchOptions::default() };
    let mut four = Vec::new();
    search::search(&game, &Limits::depth(5), &options, &shared, &mut History::default(), &mut |i| {
        if i.depth == 5 {
            four.push(i.pv[0])
        }
    });
    assert_eq!(four.len(), 4);
    assert!(four.contains(&r.best.unwrap()), "{:?} not among {four:?}", r.best);
}
