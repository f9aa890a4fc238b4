//! Evaluation tests: left-right mirror symmetry, color-flip antisymmetry, and material sanity,
//! over positions from seeded random games.

use qiku::engine::eval::{breakdown, evaluate, Weights};
use qiku::{Piece, Position, Setup, Square};

/// The position with colors swapped and the board turned around (ranks flipped), other side to
/// move: the same game seen from the other chair.
fn color_flip(pos: &Position) -> Position {
    let s = pos.to_setup();
    let mut out = Setup::empty();
    for sq in Square::all() {
        if let Some(p) = s.piece_at(sq) {
            out.set(sq.flip(), Some(Piece::new(!p.color, p.role)));
        }
    }
    out.turn = !s.turn;
    Position::from_setup(&out).expect("a flipped legal position is legal")
}

/// Positions from seeded random playouts (up to 120 plies each, stopping at game end).
fn sample_positions(n_games: usize) -> Vec<Position> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut out = Vec::new();
    for _ in 0..n_games {
        let mut pos = Position::startpos();
        for ply in 0..120 {
            let moves = pos.moves();
            if moves.is_empty() {
                break;
            }
            // Prefer captures half of the time so material changes hands.
            let captures: Vec<_> = moves.iter().copied().filter(|&m| pos.is_capture(m)).collect();
            let m = if !captures.is_empty() && next(2) == 0 {
                captures[next(captures.len())]
            } else {
                moves[next(moves.len())]
            };
            pos.make_move(m);
            if ply % 7 == 0 {
                out.push(pos.clone());
            }
        }
    }
    out
}

#[test]
fn mirror_and_color_flip_symmetry() {
    let positions = sample_positions(40);
    assert!(positions.len() > 300);
    for w in [Weights::DEFAULT, Weights::BASIC] {
        for pos in &positions {
            let v = evaluate(pos, &w);
            assert_eq!(evaluate(&pos.mirror(), &w), v, "mirror of {}", pos.fen());
            let flipped = color_flip(pos);
            // Same side-to-move view of the same game...
            assert_eq!(evaluate(&flipped, &w), v, "flip of {}", pos.fen());
            // ...so red's view changes sign.
            assert_eq!(breakdown(&flipped, &w).total, -breakdown(pos, &w).total, "flip of {}", pos.fen());
        }
    }
}

#[test]
fn material_up_is_better_than_material_down() {
    let start = Position::startpos();
    let base = breakdown(&start, &Weights::DEFAULT).total;
    let without = |sq: &str| {
        let mut s = start.to_setup();
        s.set(sq.parse().unwrap(), None);
        breakdown(&Position::from_setup(&s).unwrap(), &Weights::DEFAULT).total
    };
    // Red's view: red losing a piece is worse, black losing one is better, by about its value (the
    // tuned values of the opening: rook about 640, cannon 275, advisor 130, horse 100 on its home
    // square, where the enemy cannon aims at it, pawn 25).
    for (red_sq, black_sq, at_least) in
        [("a0", "a9", 550), ("b0", "b9", 90), ("b2", "b7", 250), ("c3", "c6", 15), ("d0", "d9", 110)]
    {
        assert!(without(red_sq) < base - at_least, "red without {red_sq}");
        assert!(without(black_sq) > base + at_least, "black without {black_sq}");
    }
    // A rook is worth more than a horse or a cannon, which are worth more than a pawn.
    assert!(without("a0") < without("b0") && without("a0") < without("b2"));
    assert!(without("b0") < without("c3") && without("b2") < without("c3"));
}

#[test]
fn documented_tables_match_the_code() {
    use qiku::engine::eval::{PST, PST_EG};
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ENGINE.md")).unwrap();
    for (role, name) in ["king", "advisor", "elephant", "horse", "rook", "cannon", "pawn"].iter().enumerate() {
        for (tag, tables) in [("pst", PST), ("pst-eg", PST_EG)] {
            let start = doc.find(&format!("```{tag}-{name}\n")).unwrap_or_else(|| panic!("no {tag} table for {name}"));
            let body = &doc[start..];
            let body = &body[body.find('\n').unwrap() + 1..];
            let body = &body[..body.find("```").unwrap()];
            let rows: Vec<Vec<i16>> = body
                .lines()
                .map(|l| l.split('#').next().unwrap().split_whitespace().map(|v| v.parse().unwrap()).collect())
                .collect();
            let code: Vec<Vec<i16>> = tables[role].iter().map(|r| r.to_vec()).collect();
            assert_eq!(rows, code, "{tag} {name}");
        }
    }
}
