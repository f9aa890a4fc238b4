//! Search tests: exact mate distances (checked against an independent brute-force mate solver),
//! no rook blunders, and the repetition rules (perpetual check loses) inside the tree.

use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, SearchResult, Shared};
use qiku::engine::time::Limits;
use qiku::engine::{Engine, Score};
use qiku::notation::iccs;
use qiku::{Game, Position, Role};
use std::time::{Duration, Instant};

fn search_game(game: &Game, depth: u32) -> SearchResult {
    let shared = Shared::new(8);
    search::search(
        game,
        &Limits::depth(depth),
        &SearchOptions::default(),
        &shared,
        &mut History::default(),
        &mut |_| {},
    )
}

fn search_fen(fen: &str, depth: u32) -> SearchResult {
    search_game(&Game::new(Position::from_fen(fen).unwrap()), depth)
}

/// Can the side to move force a position without legal moves for the opponent (checkmate or
/// stalemate, both losses) within `n` of its moves? Plain minimax, no pruning beyond "any" and
/// "all": independent of the engine.
fn mates_within(pos: &mut Position, n: u32) -> bool {
    for &m in pos.moves().iter() {
        let undo = pos.make_move(m);
        let ok = defender_lost(pos, n);
        pos.unmake_move(m, undo);
        if ok {
            return true;
        }
    }
    false
}

fn defender_lost(pos: &mut Position, n: u32) -> bool {
    let moves = pos.moves();
    if moves.is_empty() {
        return true;
    }
    if n == 1 {
        return false;
    }
    moves.iter().all(|&m| {
        let undo = pos.make_move(m);
        let ok = mates_within(pos, n - 1);
        pos.unmake_move(m, undo);
        ok
    })
}

/// The exact mate distance by brute force.
fn solver_distance(fen: &str, max: u32) -> Option<u32> {
    let mut pos = Position::from_fen(fen).unwrap();
    (1..=max).find(|&n| mates_within(&mut pos, n))
}

const MATES: &[(&str, i32)] = &[
    ("3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1", 1),
    ("9/9/5k3/9/9/9/9/1R7/N2K5/9 w - - 0 1", 2),
    ("9/9/5kN2/9/9/9/9/3K5/6R2/9 w - - 0 1", 2),
    ("9/5k3/3a5/9/9/9/7N1/3RK4/9/9 w - - 0 1", 2),
    ("5a3/4a2C1/5k3/6R2/9/9/2P6/3K5/5N3/9 w - - 0 1", 3),
    ("5a3/4k4/1N3aC2/9/9/9/2R6/9/5K3/9 w - - 0 1", 3),
    ("3k5/9/3a1a3/5R3/9/5N3/9/9/9/4K4 w - - 0 1", 4),
];

#[test]
fn finds_mates_at_the_exact_distance() {
    for &(fen, n) in MATES {
        assert_eq!(solver_distance(fen, n as u32), Some(n as u32), "solver disagrees on {fen}");
        let r = search_fen(fen, 2 * n as u32 + 1);
        assert_eq!(r.score, Score::Mate(n), "{fen}");
        // The move played keeps the mate at distance n - 1 (or mates now).
        let mut after = Position::from_fen(fen).unwrap();
        after.make_move(r.best.unwrap());
        if n == 1 {
            assert!(after.moves().is_empty(), "{fen}: {} does not mate", r.best.unwrap());
        } else {
            assert!(defender_lost(&mut after, n as u32), "{fen}: {} lets the mate slip", r.best.unwrap());
            // And the defender sees it is mated in n - 1 (a few plies deeper than the attacker
            // needs: null-move and futility pruning on the winning side hide the mate from the
            // losing side's shallow searches).
            let d = search_game(&Game::new(after.clone()), 2 * n as u32 + 4);
            assert_eq!(d.score, Score::Mate(-(n - 1)), "{}", after.fen());
        }
    }
}

#[test]
fn mated_and_stalemated_roots_have_no_move() {
    // Black is checkmated (rook on the back rank, the other rook covering rank 8).
    let r = search_fen("R2k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", 3);
    assert_eq!((r.best, r.score), (None, Score::Mate(0)));
    // Black is stalemated (no legal move, not in check): in Xiangqi that loses too.
    let pos = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/2R1K4 b - - 0 1").unwrap();
    assert!(!pos.is_check() && pos.moves().is_empty());
    assert_eq!(search_game(&Game::new(pos), 3).best, None);
    // One move before: red stalemates black in one, which the engine scores as a mate in 1.
    let r = search_fen("3k5/R8/9/9/9/9/9/9/9/1R2K4 w - - 0 1", 3);
    assert_eq!(r.score, Score::Mate(1));
}

/// Checks with the rules core that `mv` stalemates the side to move's opponent in `fen` (no
/// legal move, not in check, and the game over as a win for the mover) and that no other move
/// wins at once: the stalemate is the only win in one.
fn only_win_in_one_is_the_stalemate(fen: &str, mv: &str) {
    let pos = Position::from_fen(fen).unwrap();
    let stalemate = iccs::parse(&pos, mv).unwrap();
    let mut game = Game::new(pos.clone());
    game.play(stalemate).unwrap();
    let after = game.position();
    assert!(!after.is_check() && after.moves().is_empty() && !after.has_legal_move(), "{}", after.fen());
    assert_eq!(
        game.outcome(),
        Some(qiku::core::Outcome::Decisive { winner: pos.turn(), reason: qiku::core::EndReason::Stalemate }),
        "{fen} {mv}"
    );
    let wins: Vec<String> =
        pos.moves().iter().filter(|&&m| pos.play_unchecked(m).moves().is_empty()).map(|m| m.to_string()).collect();
    assert_eq!(wins, [mv], "{fen}");
}

/// At every depth from 1 to `max_depth` the engine plays `mv` in `fen` and scores it mate in 1.
fn plays_the_stalemate_as_mate_in_one(fen: &str, mv: &str, max_depth: u32) {
    for depth in 1..=max_depth {
        let r = search_fen(fen, depth);
        assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some(mv), "depth {depth}");
        assert_eq!(r.score, Score::Mate(1), "depth {depth}");
    }
}

/// A stalemate wins (docs/RULES.md), and the engine finds it at depth 1, where the node after
/// the stalemating move is a quiescence node: it stood pat on its evaluation, and the rook move
/// that leaves the black king no square scored as a quiet move.
#[test]
fn finds_a_stalemating_win_at_depth_one() {
    // Rook a6-a8 takes d8 from the king on d9, whose e9 faces the red king: stalemate. Every
    // rook move to the d-file would mate, but the pawn on b6 bars the way; a6-a9 checks, and the
    // king steps to d8.
    let fen = "3k5/9/9/RP7/9/9/9/9/9/4K4 w - - 0 1";
    only_win_in_one_is_the_stalemate(fen, "a6a8");
    plays_the_stalemate_as_mate_in_one(fen, "a6a8", 6);
}

/// The stalemated side is a horse up, so its static evaluation is far above the bounds the
/// pruning compares it with (the quiescence search's stand-pat at depth 1; reverse futility and
/// the null move at the nodes of deeper searches): the stalemate must still count as the loss.
#[test]
fn finds_a_stalemate_of_the_side_with_more_material() {
    // Cannon h6-d6: the black horse on d8 and cannon on d7 screen the king on d9 from it, so
    // neither may leave the d-file; the cannon is hemmed in along it and cannot capture without
    // a screen; d8 is taken and e9 faces the red king. Red has no check at all.
    let fen = "3k5/3n5/3c5/7C1/9/9/9/9/9/4K4 w - - 0 1";
    only_win_in_one_is_the_stalemate(fen, "h6d6");
    plays_the_stalemate_as_mate_in_one(fen, "h6d6", 10);
    // Black to move instead keeps its moves, and its advantage.
    let r = search_fen("3k5/3n5/3c5/7C1/9/9/9/9/9/4K4 b - - 0 1", 6);
    assert!(matches!(r.score, Score::Cp(v) if v > 200), "{:?}", r.score);
}

#[test]
fn saves_an_attacked_rook() {
    // The black horse on c7 attacks the red rook on b5; red must move it somewhere safe.
    let fen = "r2aka3/9/2n6/9/1R7/9/4P4/7C1/9/3AKA3 w - - 0 1";
    for depth in [3, 5, 7] {
        let r = search_fen(fen, depth);
        let after = Position::from_fen(fen).unwrap().play_unchecked(r.best.unwrap());
        let rook_en_prise = after.moves().iter().any(|&m| after.piece_at(m.to()).is_some_and(|p| p.role == Role::Rook));
        assert!(!rook_en_prise, "depth {depth}: {} leaves a rook to be taken", r.best.unwrap());
    }
}

#[test]
fn takes_a_free_rook() {
    // The black rook on b7 is free for the red cannon (screen b5); take it.
    let r = search_fen("3k1ab2/9/1r7/9/1P7/9/9/1C7/9/4K4 w - - 0 1", 4);
    assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("b2b7"));
    // Afterwards red has a cannon and a pawn against an advisor and an elephant.
    assert!(matches!(r.score, Score::Cp(v) if v > 200), "{:?}", r.score);
}

/// From X0 (red to move, rook d5, black king e9 and two black rooks that would mate red soon)
/// red can check forever: d5e5+ Kd9, e5d5+ Ke9, ... Black's replies are forced and never check.
const PERPETUAL_X0: &str = "4k4/9/9/9/3R5/9/9/r8/1r7/5K3 w - - 0 1";

fn game_with(fen: &str, moves: &[&str]) -> Game {
    let mut g = Game::new(Position::from_fen(fen).unwrap());
    for t in moves {
        let m = iccs::parse(g.position(), t).unwrap();
        g.play(m).unwrap();
    }
    g
}

#[test]
fn perpetual_check_loses_for_the_checker() {
    // The cycle d5e5+ e9d9 e5d5+ e9d9 has been played once; red checks again (d5e5+ e9d9 e5d5+)
    // and black's only move d9e9 meets X0 a third time with red having checked on every move of
    // the cycle, so black wins at once (reported as mate in 1).
    let cycle = ["d5e5", "e9d9", "e5d5", "d9e9"];
    let g = game_with(PERPETUAL_X0, &[&cycle[..], &cycle[..3]].concat());
    assert_eq!(g.position().moves().len(), 1);
    let r = search_game(&g, 4);
    assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("d9e9"));
    assert_eq!(r.score, Score::Mate(1));
    // The rules core agrees once the position recurs.
    let mut g2 = g.clone();
    g2.play(r.best.unwrap()).unwrap();
    assert_eq!(
        g2.repetition_verdict(),
        Some(qiku::core::RepetitionVerdict::PerpetualCheck { loser: qiku::Color::Red })
    );

    // Red at X0 again (second occurrence): going round the cycle again would meet X0 a third
    // time and lose, so the engine leaves it (one more check is allowed: the game has met the
    // position after it only once) and knows it is losing (two rooks against one), not drawing.
    let g = game_with(PERPETUAL_X0, &cycle);
    let r = search_game(&g, 5);
    let pv: Vec<String> = r.pv.iter().map(|m| m.to_string()).collect();
    assert!(pv.len() < 4 || pv[..4] != cycle, "{pv:?}");
    assert!(matches!(r.score, Score::Cp(v) if v < -300) || matches!(r.score, Score::Mate(n) if n < 0), "{:?}", r.score);
}

#[test]
fn repetition_without_perpetual_check_is_a_draw() {
    // Kings and rooks shuffling without checks: the cycle a0a1 d9d8 a1a0 d8d9 has been played
    // once, and black to move can complete it again: a third occurrence of the start, a
    // repetition in a position where black is a rook down, is a welcome draw.
    let fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1";
    let g = game_with(fen, &["a0a1", "d9d8", "a1a0", "d8d9", "a0a1", "d9d8", "a1a0"]);
    // d8d9 meets the start position a third time (no checks in the cycle): a draw, better than
    // any other move for the side a rook down.
    let r = search_game(&g, 3);
    assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("d8d9"));
    assert_eq!(r.score, Score::Cp(0));
}

/// A position the game has met only once does not end the search's line there: the opponent may
/// leave the cycle on the next move, so a side a rook down does not count on the repetition.
#[test]
fn a_position_met_once_in_the_game_is_no_draw_yet() {
    let fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1";
    let g = game_with(fen, &["a0a1", "d9d8", "a1a0"]);
    let r = search_game(&g, 3);
    // The kings may not face each other, so black's king is held on the d-file, where the rook
    // mates it from d0 whatever black plays; d8d9 back to the start is no refuge.
    assert_eq!(r.score, Score::Mate(-1));
}

#[test]
fn bench_node_counts_are_a_deterministic_signature() {
    use qiku::engine::bench;
    let run = || bench::run(bench::POSITIONS, 6, 4, |_| {}).unwrap();
    let (a, b) = (run(), run());
    assert_eq!(a.len(), bench::POSITIONS.len());
    let nodes = |v: &[bench::BenchLine]| v.iter().map(|l| (l.nodes, l.best.clone())).collect::<Vec<_>>();
    assert_eq!(nodes(&a), nodes(&b));
    assert!(a.iter().all(|l| l.nodes > 0));
}

#[test]
fn two_threads_search_and_agree_on_a_mate() {
    let options = SearchOptions { threads: 2, ..SearchOptions::default() };
    let shared = Shared::new(8);
    let game = Game::new(Position::from_fen(MATES[4].0).unwrap());
    let r = search::search(&game, &Limits::depth(8), &options, &shared, &mut History::default(), &mut |_| {});
    assert_eq!(r.score, Score::Mate(MATES[4].1));
    let game = Game::new(Position::startpos());
    shared.stop.store(false, std::sync::atomic::Ordering::Relaxed);
    let r = search::search(&game, &Limits::depth(6), &options, &shared, &mut History::default(), &mut |_| {});
    assert!(Position::startpos().is_legal(r.best.unwrap()));
}

/// Endgame tables that know nothing but record the positions the search asks about.
struct Recorder {
    /// The halfmove clock of every position probed.
    asked: std::sync::Mutex<Vec<u32>>,
}

impl qiku::engine::Endgames for Recorder {
    fn max_pieces(&self) -> u32 {
        32
    }
    fn probe(&self, pos: &Position) -> Option<qiku::TbValue> {
        self.asked.lock().unwrap().push(pos.halfmoves());
        None
    }
    fn move_values(&self, _: &Position) -> Option<Vec<(qiku::Move, qiku::TbValue)>> {
        None
    }
}

#[test]
fn the_search_probes_tables_only_right_after_a_capture() {
    // Material changes only by captures, and a node after a capture whose material has a table
    // ends its line there; so every probe is of a position whose halfmove clock is 0, and there
    // are some (rooks can be exchanged within the horizon).
    let game = Game::new(Position::from_fen("3k5/9/9/9/4r4/9/4R4/9/9/5K3 w - - 7 40").unwrap());
    let recorder = std::sync::Arc::new(Recorder { asked: std::sync::Mutex::new(Vec::new()) });
    let tables: std::sync::Arc<dyn qiku::engine::Endgames> = recorder.clone();
    let options = SearchOptions { tablebases: Some(tables), ..SearchOptions::default() };
    let shared = Shared::new(8);
    let result = search::search(&game, &Limits::depth(5), &options, &shared, &mut History::default(), &mut |_| {});
    assert!(result.best.is_some());
    let asked = recorder.asked.lock().unwrap();
    assert!(!asked.is_empty(), "no probe at all");
    assert!(asked.iter().all(|&halfmoves| halfmoves == 0), "a probe away from a capture: {asked:?}");
}

/// `game` searched under `limits` with the default options, and every `info` it gave.
fn search_with(game: &Game, limits: &Limits) -> (SearchResult, Vec<search::Info>) {
    let mut infos = Vec::new();
    let r =
        search::search(game, limits, &SearchOptions::default(), &Shared::new(8), &mut History::default(), &mut |i| {
            infos.push(i.clone())
        });
    (r, infos)
}

/// Searches `game` with `multi_pv` lines and returns every `info` of the search.
fn multipv_infos(game: &Game, depth: u32, multi_pv: usize) -> (SearchResult, Vec<search::Info>) {
    let options = SearchOptions { multi_pv, ..SearchOptions::default() };
    let shared = Shared::new(8);
    let mut infos = Vec::new();
    let r = search::search(game, &Limits::depth(depth), &options, &shared, &mut History::default(), &mut |i| {
        infos.push(i.clone())
    });
    (r, infos)
}

/// A comparable form of a score (mates beyond every centipawn value).
fn score_key(s: Score) -> i64 {
    match s {
        Score::Cp(v) => i64::from(v),
        Score::Mate(n) if n > 0 => 1_000_000 - i64::from(n),
        Score::Mate(n) => -1_000_000 - i64::from(n),
    }
}

#[test]
fn multipv_reports_distinct_first_moves_sorted_by_score() {
    let game = Game::new(Position::startpos());
    let (r, infos) = multipv_infos(&game, 5, 4);
    // Every depth reports lines 1 to 4, in that order.
    for depth in 1..=5 {
        let at: Vec<_> = infos.iter().filter(|i| i.depth == depth).collect();
        assert_eq!(at.iter().map(|i| i.multipv).collect::<Vec<_>>(), [1, 2, 3, 4], "depth {depth}");
        let firsts: std::collections::HashSet<_> = at.iter().map(|i| i.pv[0]).collect();
        assert_eq!(firsts.len(), 4, "depth {depth}: first moves repeat: {at:?}");
        assert!(at.iter().all(|i| Position::startpos().is_legal(i.pv[0])));
        let scores: Vec<i64> = at.iter().map(|i| score_key(i.score)).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "depth {depth}: not sorted: {scores:?}");
    }
    // The best move is the first line's.
    let last = infos.iter().rev().find(|i| i.multipv == 1).unwrap();
    assert_eq!(r.best, Some(last.pv[0]));
    assert_eq!(r.score, last.score);
}

/// A search stopped inside an iteration (here by a node limit) reports, last, a first line that
/// starts with the move it plays, each line at the depth it was searched to, and distinct first
/// moves: a new best move found in the unfinished iteration leads, and the lines it did not reach
/// keep their earlier depth.
#[test]
fn a_stopped_multipv_search_reports_the_move_it_plays_first() {
    let openings = [
        vec!["c3c4", "h9g7", "g3g4", "b7e7"],
        vec!["g0e2", "c6c5", "b2c2", "b9a7"],
        vec!["h2e2", "h9g7", "h0g2", "i9h9"],
        vec![],
    ];
    let mut lines_at_an_earlier_depth = 0;
    for moves in openings {
        let mut game = Game::new(Position::startpos());
        for m in &moves {
            let mv = qiku::notation::parse_any(game.position(), m).unwrap().0;
            game.play(mv).unwrap();
        }
        for nodes in (5_000..=200_000).step_by(5_000) {
            let options = SearchOptions { multi_pv: 3, ..SearchOptions::default() };
            let limits = Limits { nodes: Some(nodes), ..Limits::default() };
            let mut infos = Vec::new();
            let r = search::search(&game, &limits, &options, &Shared::new(8), &mut History::default(), &mut |i| {
                infos.push(i.clone())
            });
            let start = infos.iter().rposition(|i| i.multipv == 1).unwrap();
            let last = &infos[start..];
            let context = format!("{moves:?}, {nodes} nodes: {last:?}");
            assert_eq!(Some(last[0].pv[0]), r.best, "{context}");
            assert_eq!(last[0].depth, r.depth, "{context}");
            assert!(last.iter().all(|i| i.depth <= r.depth && i.depth + 1 >= r.depth), "{context}");
            let firsts: std::collections::HashSet<_> = last.iter().map(|i| i.pv[0]).collect();
            assert_eq!(firsts.len(), last.len(), "{context}");
            lines_at_an_earlier_depth += usize::from(last.iter().any(|i| i.depth < r.depth));
        }
    }
    // The case is met, not only the finished iterations.
    assert!(lines_at_an_earlier_depth > 0);
}

#[test]
fn multipv_is_capped_by_the_legal_moves() {
    // Black has a king and a pawn across the river: a handful of legal moves.
    let pos = Position::from_fen("4k4/9/9/9/9/9/2p6/9/9/3K5 b").unwrap();
    let legal = pos.moves().len();
    assert!((2..10).contains(&legal), "{legal}");
    let (_, infos) = multipv_infos(&Game::new(pos.clone()), 3, 50);
    let at: Vec<_> = infos.iter().filter(|i| i.depth == 3).collect();
    assert_eq!(at.len(), legal);
    let firsts: std::collections::HashSet<_> = at.iter().map(|i| i.pv[0]).collect();
    let all: std::collections::HashSet<_> = pos.moves().iter().copied().collect();
    assert_eq!(firsts, all, "every legal move is one line's first");
}

#[test]
fn multipv_one_searches_as_without_the_option() {
    // MultiPV 1 is the plain search: the same nodes, move and score as the default options.
    let game = Game::new(Position::startpos());
    let (one, infos) = multipv_infos(&game, 6, 1);
    let plain = search_game(&game, 6);
    assert_eq!((one.nodes, one.best, one.score), (plain.nodes, plain.best, plain.score));
    assert!(infos.iter().all(|i| i.multipv == 1));
    assert_eq!(infos.len(), 6);
}

#[test]
fn the_last_info_counts_every_node_of_a_stopped_search() {
    // A node limit stops the search inside an iteration; the last line a GUI sees must carry the
    // whole search's count, as `bestmove` ends it.
    for nodes in [20_000, 45_000, 90_000] {
        let limits = Limits { nodes: Some(nodes), ..Limits::default() };
        let (r, infos) = search_with(&Game::new(Position::startpos()), &limits);
        let last = infos.last().expect("at least one info");
        assert_eq!(last.nodes, r.nodes, "limit {nodes}");
        assert!(r.nodes >= nodes, "limit {nodes}: stopped at {}", r.nodes);
        assert_eq!(last.depth, r.depth, "limit {nodes}");
        assert_eq!(last.pv, r.pv, "limit {nodes}");
    }
}

#[test]
fn a_settled_mate_ends_a_bounded_search_early() {
    // Deepening to the limit (100 plies asked, 120 the most) cannot change a mate once an
    // iteration twice its length plus two has confirmed it: the search stops there, with the mate
    // at the distance the brute-force solver gives, for the mating side and for the mated one.
    let settle = |plies: i32| 2 * plies as u32 + 2;
    for &(fen, n) in MATES {
        let r = search_fen(fen, 100);
        assert_eq!(r.score, Score::Mate(n), "{fen}");
        assert_eq!(r.depth, settle(2 * n - 1), "{fen}: stopped at depth {}", r.depth);
        let mut after = Position::from_fen(fen).unwrap();
        after.make_move(r.best.unwrap());
        if n > 1 {
            let d = search_game(&Game::new(after.clone()), 100);
            assert_eq!(d.score, Score::Mate(-(n - 1)), "{}", after.fen());
            assert_eq!(d.depth, settle(2 * (n - 1)), "{}: stopped at depth {}", after.fen(), d.depth);
        }
    }
    // A movetime search stops there too, long before its time is up.
    let limits = Limits::movetime(60_000);
    let game = Game::new(Position::from_fen(MATES[0].0).unwrap());
    let (r, _) = search_with(&game, &limits);
    assert_eq!((r.score, r.depth), (Score::Mate(1), settle(1)));
    // `go infinite` keeps deepening (UCI: it ends only at `stop`): to the deepest iteration.
    let limits = Limits { infinite: true, ..Limits::default() };
    let (r, _) = search_with(&game, &limits);
    assert_eq!((r.score, r.depth), (Score::Mate(1), search::MAX_PLY as u32 - 8));
}

#[test]
fn the_clock_runs_from_the_given_start() {
    // The UCI session starts the clock when it takes up `go`: a `go movetime 1000` taken up ten
    // seconds ago has no time left, and the search answers at its first reading of the clock
    // after the first iteration, its `info` counting the time from that start.
    let Some(start) = Instant::now().checked_sub(Duration::from_secs(10)) else { return };
    let limits = Limits { start: Some(start), ..Limits::movetime(1_000) };
    let (r, infos) = search_with(&Game::new(Position::startpos()), &limits);
    let last = infos.last().expect("at least one info");
    assert!(last.time >= Duration::from_secs(10), "time counted from the search: {:?}", last.time);
    assert!(r.nodes < 4_096, "searched on after the time was up: {} nodes", r.nodes);
}

#[test]
fn ageing_the_history_between_moves_changes_no_search() {
    // The UCI session ages the history after `bestmove`, off the next move's clock: the next
    // search is the one it would have been, node for node, however often that is asked.
    let first = Game::new(Position::startpos());
    let mut second = first.clone();
    for m in ["h2e2", "h9g7"] {
        second.play(iccs::parse(second.position(), m).unwrap()).unwrap();
    }
    let searches = |between: usize| {
        let mut engine = Engine::new(8);
        let a = engine.think(&first, &Limits::depth(7), &mut |_| {}).0;
        for _ in 0..between {
            engine.age_history();
        }
        let b = engine.think(&second, &Limits::depth(7), &mut |_| {}).0;
        let c = engine.think(&first, &Limits::depth(7), &mut |_| {}).0;
        (a, b, c)
    };
    let plain = searches(0);
    assert_eq!(searches(1), plain);
    assert_eq!(searches(2), plain);
}
