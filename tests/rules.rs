//! One test per rule of Xiangqi, on hand-built positions whose legal moves are known by hand,
//! plus consistency checks of keys and make/unmake over random games.

use qiku::core::game::{EndReason, Outcome, RepetitionVerdict};
use qiku::core::zobrist;
use qiku::notation::iccs;
use qiku::{Color, Game, Move, Position, PositionError, Setup, Square};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The legal moves of the piece on `from`, as sorted ICCS strings.
fn moves_from(p: &Position, from: &str) -> Vec<String> {
    let mut v: Vec<String> = p.moves().iter().filter(|m| m.from().to_string() == from).map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn flying_general_forbids_facing_kings() {
    // Red king d0, black king e9: the red king may not step onto the open e-file.
    let p = pos("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1");
    assert_eq!(moves_from(&p, "d0"), strs(&["d0d1"]));
    // Kings already facing is not a legal position.
    assert_eq!(Position::from_fen("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"), Err(PositionError::KingsFacing));
}

#[test]
fn piece_pinned_between_kings_moves_only_along_the_file() {
    // The red cannon on e1 is the only piece between the kings (no screen, so no check).
    let p = pos("4k4/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1");
    assert_eq!(moves_from(&p, "e1"), strs(&["e1e2", "e1e3", "e1e4", "e1e5", "e1e6", "e1e7", "e1e8"]));
    // A pinned horse cannot move at all.
    let p = pos("4k4/9/9/9/9/9/9/9/4N4/4K4 w - - 0 1");
    assert_eq!(moves_from(&p, "e1"), Vec::<String>::new());
}

#[test]
fn cannon_needs_exactly_one_screen_to_capture() {
    // Red cannon b2; black pieces b5 (screen), b7 (target), b9 (behind, not capturable).
    let p = pos("1r2k4/9/1n7/9/1n7/9/9/1C7/9/3K5 w - - 0 1");
    let m = moves_from(&p, "b2");
    assert!(m.contains(&"b2b7".to_string()), "capture over one screen: {m:?}");
    assert!(!m.contains(&"b2b5".to_string()), "no capture without a screen");
    assert!(!m.contains(&"b2b9".to_string()), "no capture over two screens");
    assert!(m.contains(&"b2b4".to_string()) && !m.contains(&"b2b6".to_string()), "quiet moves stop at the first piece");
    // A cannon checks through a screen.
    let p = pos("4k4/9/9/9/9/9/4c4/9/4A4/3K5 w - - 0 1");
    assert!(!p.is_check());
    // Moving the red king onto the e-file behind the advisor screen would walk into the cannon.
    assert!(!moves_from(&p, "d0").contains(&"d0e0".to_string()));
    assert!(moves_from(&p, "d0").contains(&"d0d1".to_string()));
}

#[test]
fn moving_onto_a_line_can_create_a_cannon_screen() {
    // Black cannon e5 faces the red king e0 over an empty file: a red rook stepping onto e2
    // would become the cannon's screen.
    let p = pos("3k5/9/9/9/4c4/9/9/R8/9/4K4 w - - 0 1");
    assert!(!p.is_check());
    let m = moves_from(&p, "a2");
    assert!(!m.contains(&"a2e2".to_string()), "rook on e2 would screen the cannon: {m:?}");
    assert!(m.contains(&"a2d2".to_string()));
}

#[test]
fn horse_leg_blocks() {
    // Red horse e4 with its upward leg e5 occupied: no moves to d6/f6; the others are there.
    let p = pos("3k5/9/9/9/4p4/4N4/9/9/9/5K3 w - - 0 1");
    assert_eq!(moves_from(&p, "e4"), strs(&["e4c3", "e4c5", "e4d2", "e4f2", "e4g3", "e4g5"]));
    // A horse whose leg is blocked does not give check either.
    let p = pos("3k5/4a4/4N4/9/9/9/9/9/9/5K3 b - - 0 1");
    assert!(!p.is_check());
    let p = pos("3k5/9/4N4/9/9/9/9/9/9/5K3 b - - 0 1");
    assert!(p.is_check());
}

#[test]
fn elephant_eye_and_river() {
    // Red elephant e2: eye d3 blocked, so no c4; it cannot cross to the black half from c4/g4.
    let p = pos("4k4/9/9/9/9/9/3N5/4B4/9/3K5 w - - 0 1");
    assert_eq!(moves_from(&p, "e2"), strs(&["e2c0", "e2g0", "e2g4"]));
    let p = pos("4k4/9/9/9/9/2B6/9/9/9/3K5 w - - 0 1");
    assert_eq!(moves_from(&p, "c4"), strs(&["c4a2", "c4e2"]));
}

#[test]
fn pawns_move_sideways_only_after_the_river_and_never_back() {
    let p = pos("4k4/9/9/9/9/9/4P4/9/9/3K5 w - - 0 1");
    assert_eq!(moves_from(&p, "e3"), strs(&["e3e4"]));
    let p = pos("4k4/9/9/9/4P4/9/9/9/9/3K5 w - - 0 1");
    assert_eq!(moves_from(&p, "e5"), strs(&["e5d5", "e5e6", "e5f5"]));
    let p = pos("3k5/9/9/9/9/4p4/9/9/9/5K3 b - - 0 1");
    assert_eq!(moves_from(&p, "e4"), strs(&["e4d4", "e4e3", "e4f4"]));
    // On the last rank a pawn only moves sideways.
    let p = pos("P2k5/9/9/9/9/9/9/9/9/5K3 w - - 0 1");
    assert_eq!(moves_from(&p, "a9"), strs(&["a9b9"]));
}

#[test]
fn king_and_advisors_stay_in_the_palace() {
    let p = pos("3k5/9/9/9/9/9/9/9/9/3AK4 w - - 0 1");
    assert_eq!(moves_from(&p, "d0"), strs(&["d0e1"]));
    // King on d2 corner: d1 and e2 only (d3 is outside the palace).
    let p = pos("5k3/9/9/9/9/9/9/3K5/9/9 w - - 0 1");
    assert_eq!(moves_from(&p, "d2"), strs(&["d2d1", "d2e2"]));
}

#[test]
fn stalemate_loses_for_the_side_to_move() {
    // Black king e9: d9 faces the red king, e8 is covered by the rook on a8, f9 by the rook on f1.
    let p = pos("4k4/R8/9/9/9/9/9/9/5R3/3K5 b - - 0 1");
    assert!(!p.is_check());
    assert!(p.moves().is_empty());
    let game = Game::new(p);
    assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Red, reason: EndReason::Stalemate }));
    // The case the tables store as a loss in 0 plies: red to move, boxed in by its own pieces,
    // has no legal move and loses although not in check.
    let p = pos("4k4/9/9/9/9/9/9/9/4N4/3AKA3 w - - 0 1");
    assert!(p.moves().is_empty() && !p.is_check());
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::Stalemate }));
}

#[test]
fn checkmate_loses() {
    // Two red rooks on ranks 9 and 8; red king d0 covers the d-file.
    let p = pos("R3k4/1R7/9/9/9/9/9/9/9/3K5 b - - 0 1");
    assert!(p.is_check());
    assert!(p.moves().is_empty());
    assert_eq!(Game::new(p).outcome(), Some(Outcome::Decisive { winner: Color::Red, reason: EndReason::Checkmate }));
}

fn play(game: &mut Game, moves: &str) {
    for t in moves.split_whitespace() {
        let m = iccs::parse(game.position(), t).unwrap_or_else(|e| panic!("{t}: {e}"));
        game.play(m).unwrap();
    }
}

#[test]
fn perpetual_check_loses_for_the_checking_side() {
    let mut game = Game::new(pos("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1"));
    play(&mut game, "a8a9 e9e8 a9a8 e8e9");
    assert_eq!(game.repetitions(), 1);
    assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::PerpetualCheck { loser: Color::Red }));
    assert_eq!(game.outcome(), None, "adjudicated only at the third occurrence");
    play(&mut game, "a8a9 e9e8 a9a8 e8e9");
    assert_eq!(game.repetitions(), 2);
    assert_eq!(game.outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualCheck }));
}

#[test]
fn repetition_without_perpetual_check_is_a_draw() {
    let mut game = Game::new(pos("4k4/R8/9/9/9/9/9/9/9/3K5 w - - 0 1"));
    play(&mut game, "a8b8 e9f9 b8a8 f9e9 a8b8 e9f9 b8a8 f9e9");
    assert_eq!(game.repetition_verdict(), Some(RepetitionVerdict::Draw));
    assert_eq!(game.outcome(), Some(Outcome::Draw(EndReason::Repetition)));
}

#[test]
fn invalid_setups_are_refused_with_the_reason() {
    use qiku::{Piece, Role};
    let cases: &[(&str, PositionError)] = &[
        ("9/9/9/9/9/9/9/9/9/4K4 w", PositionError::MissingKing(Color::Black)),
        (
            "4k4/9/9/9/9/9/9/9/9/RRR1K4 w",
            PositionError::TooMany { piece: Piece::new(Color::Red, Role::Rook), count: 3 },
        ),
        ("4k4/9/9/9/9/9/9/9/9/4KA3 w", PositionError::KingsFacing),
    ];
    for (fen, err) in cases {
        assert_eq!(&Position::from_fen(fen).unwrap_err(), err, "{fen}");
    }
    let impossible = [
        "4k4/9/9/9/9/9/9/4A4/9/3K5 w",
        "4k4/9/9/9/9/9/9/3B5/9/3K5 w",
        "4k4/9/9/9/9/9/9/9/9/2K6 w",
        "4k4/9/9/9/9/9/1P7/9/9/3K5 w",
        "4k4/9/9/9/9/9/9/4P4/9/3K5 w",
        "4k4/9/9/9/2B6/9/9/9/9/3K5 w",
    ];
    for fen in impossible {
        assert!(matches!(Position::from_fen(fen), Err(PositionError::ImpossibleSquare { .. })), "{fen}");
    }
    // Black in check with red to move.
    assert_eq!(Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 w"), Err(PositionError::OppositeCheck));
    assert!(Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b").is_ok());
}

/// Deterministic random games: keys stay equal to a full recomputation, the mirror key equals
/// the key of the mirrored position, unmake restores everything, FEN round-trips.
#[test]
fn keys_and_make_unmake_stay_consistent_over_random_games() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut rand = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..200 {
        let mut p = Position::startpos();
        for _ in 0..150 {
            assert_eq!(p.key(), p.compute_key());
            assert_eq!(p.mirror_key(), p.mirror().key());
            assert_eq!(Position::from_fen(&p.fen()).as_ref(), Ok(&p));
            let moves = p.moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rand(moves.len())];
            let before = p.clone();
            let undo = p.make_move(m);
            let mut back = p.clone();
            back.unmake_move(m, undo);
            assert_eq!(back, before);
            // The mirrored move is legal in the mirrored position.
            assert!(before.mirror().is_legal(m.mirror()));
        }
    }
}

/// `is_legal` tests only the moving piece; the slow reference is membership in the full legal
/// move list. Every from/to pair in positions along random games, and ICCS reading agrees.
#[test]
fn is_legal_agrees_with_the_legal_move_list_on_every_square_pair() {
    let mut seed = 0x1234_5678_u64;
    let mut positions = Vec::new();
    for _ in 0..10 {
        let mut p = Position::startpos();
        for _ in 0..80 {
            let moves = p.moves();
            if moves.is_empty() {
                break;
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            p.make_move(moves[(seed >> 33) as usize % moves.len()]);
            positions.push(p.clone());
        }
    }
    assert!(positions.len() > 600);
    let mut legal = 0;
    for p in &positions {
        let list = p.moves();
        for from in Square::all() {
            for to in Square::all().filter(|&to| to != from) {
                let m = Move::new(from, to);
                let expected = list.contains(m);
                assert_eq!(p.is_legal(m), expected, "{m} in {}", p.fen());
                assert_eq!(iccs::parse(p, &m.to_string()).ok(), expected.then_some(m), "{m} in {}", p.fen());
                assert_eq!(iccs::parse(p, &iccs::format_dashed(m)).ok(), expected.then_some(m));
                legal += usize::from(expected);
            }
        }
    }
    assert!(legal > 15_000, "{legal}");
}

#[test]
fn pinned_zobrist_values() {
    assert_eq!(format!("{:016x}", Position::startpos().key()), "d4ae14a83e0342de");
    assert_eq!(format!("{:016x}", zobrist::FINGERPRINT), "e4d0c632dcc22682");
    // The start position is symmetric, so its mirror key equals its key.
    assert_eq!(Position::startpos().mirror_key(), Position::startpos().key());
    let s = Setup::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w").unwrap();
    let p = Position::from_setup(&s).unwrap();
    assert_ne!(p.mirror_key(), p.key());
}

/// The squares each kind of piece can ever stand on (validation and tablebase indexing use them),
/// against a flood fill of its moves on an empty board from its squares in the start position.
/// Horses, rooks and cannons reach everything.
#[test]
fn reachable_squares_are_what_the_pieces_can_reach() {
    use qiku::core::attacks;
    use qiku::{Bitboard, Piece, Role};
    let start = Position::startpos();
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece::new(color, role);
            let step = |s: qiku::Square| match role {
                Role::King => attacks::king_attacks(s),
                Role::Advisor => attacks::advisor_attacks(s),
                Role::Elephant => attacks::elephant_attacks(s, Bitboard::EMPTY),
                Role::Pawn => attacks::pawn_attacks(color, s),
                Role::Horse | Role::Rook | Role::Cannon => attacks::rook_attacks(s, Bitboard::EMPTY),
            };
            let mut seen = start.pieces(piece);
            let mut todo: Vec<qiku::Square> = seen.into_iter().collect();
            while let Some(s) = todo.pop() {
                for t in step(s) - seen {
                    seen |= Bitboard::from_square(t);
                    todo.push(t);
                }
            }
            assert_eq!(Position::reachable_squares(piece), seen, "{piece:?}");
        }
    }
    // Spot checks by name: a red elephant on c4, never on e4; a black pawn on b4 (across the
    // river), never on b6 (before the river it keeps to files a, c, e, g, i).
    let red_elephant = Position::reachable_squares(Piece::new(Color::Red, Role::Elephant));
    assert!(red_elephant.contains("c4".parse().unwrap()) && !red_elephant.contains("e4".parse().unwrap()));
    let black_pawn = Position::reachable_squares(Piece::new(Color::Black, Role::Pawn));
    assert!(black_pawn.contains("b4".parse().unwrap()) && !black_pawn.contains("b6".parse().unwrap()));
}

/// Move counters read from a FEN may start at their largest value: moves stop them there (they
/// never wrap to 0, which would end a draw by the no-capture rule), and taking a move back
/// restores them exactly.
#[test]
fn move_counters_at_their_largest_do_not_wrap() {
    let start = pos("4k4/9/9/9/9/9/9/9/R8/3K5 b - - 4294967295 4294967295");
    let mut p = start.clone();
    let m = iccs::parse(&p, "e9e8").unwrap();
    let undo = p.make_move(m);
    assert_eq!((p.halfmoves(), p.fullmoves()), (u32::MAX, u32::MAX));
    assert!(p.fen().ends_with(" w - - 4294967295 4294967295"), "{}", p.fen());
    p.unmake_move(m, undo);
    assert_eq!(p, start);
    let mut game = Game::new(start);
    assert!(game.outcome().is_some());
    game.play(m).unwrap();
    assert!(game.outcome().is_some(), "still over the no-capture limit");
}
