//! The pruning that judges a node by its static evaluation before generating its moves (reverse
//! futility, razoring, null move, the quiescence search's stand-pat) at a node whose side to move
//! has no legal move: every path must return the loss, whatever the window and the depth.

use super::*;
use crate::notation::iccs;

/// Red's cannon h6-d6 stalemates black: the black horse on d8 and cannon on d7 screen the king
/// on d9 from it (leaving the file would give check, the cannon cannot capture without a screen
/// and is hemmed in along the file), d8 is taken and e9 faces the red king. Black keeps a horse
/// more, so its static evaluation is far above zero: every pruning would cut. (The search from
/// this position is tested in `tests/engine_search.rs`.)
const BEFORE: &str = "3k5/3n5/3c5/7C1/9/9/9/9/9/4K4 w - - 0 1";

fn stalemated_game() -> Game {
    let mut game = Game::new(Position::from_fen(BEFORE).unwrap());
    let m = iccs::parse(game.position(), "h6d6").unwrap();
    game.play(m).unwrap();
    game
}

#[test]
fn a_stalemated_node_is_lost_through_every_pruning() {
    let game = stalemated_game();
    let pos = game.position();
    assert!(!pos.is_check() && pos.moves().is_empty(), "{}", pos.fen());
    let (limits, options, shared) = (Limits::depth(64), SearchOptions::default(), Shared::new(1));
    let budget = budget(&limits, pos.turn(), options.move_overhead);
    let mut t = Thread::new(0, &game, &limits, budget, &options, &shared, Instant::now(), History::default());
    let eval = t.eval();
    assert!(eval > 200, "black, a horse up, evaluates at {eval}");
    let loss = -MATE + 1;
    let mut cases = 0;
    // Null windows far below the evaluation (where every pruning cuts), just below and above it,
    // and open windows (PV nodes, which prune nothing).
    for (alpha, beta) in [(eval - 1001, eval - 1000), (eval - 2, eval - 1), (eval + 50, eval + 51), (-INF, INF)] {
        shared.tt.clear();
        assert_eq!(t.quiesce(alpha, beta, 1), loss, "quiescence, window ({alpha}, {beta})");
        for depth in 1..=12 {
            for allow_null in [false, true] {
                for cut_node in [false, true] {
                    // A fresh table each time: a stored loss would answer before the pruning.
                    shared.tt.clear();
                    let v = t.negamax(alpha, beta, depth, 1, allow_null, cut_node);
                    assert_eq!(v, loss, "depth {depth}, window ({alpha}, {beta}), null {allow_null}, cut {cut_node}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 4 * 12 * 4);
}
