//! Perft against the published counts (the table of the reference `perft.md`, copied below).

use qiku::core::perft::{divide, perft, perft_bulk};
use qiku::Position;

const CASES: &[(&str, &str, &[u64])] = &[
    (
        "start",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        &[44, 1920, 79666, 3290240, 133312995, 5392831844],
    ),
    (
        "cpw2",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        &[38, 1128, 43929, 1339047, 53112976],
    ),
    ("cpw3", "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1", &[7, 281, 8620, 326201, 10369923]),
    ("cpw4", "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1", &[25, 424, 9850, 202884, 4739553, 100055401]),
    ("cpw5", "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1", &[28, 516, 14808, 395483, 11842230]),
    ("cpw6", "R1N1k1b2/9/3aba3/9/2nr5/2B6/9/4B4/4A4/4KA3 w - - 0 1", &[21, 364, 7626, 162837, 3500505, 81195154]),
];

/// Runs every case up to the deepest count of at most `limit` nodes.
fn check(limit: u64, bulk: bool) {
    for (name, fen, counts) in CASES {
        let mut pos = Position::from_fen(fen).unwrap();
        for (i, &expected) in counts.iter().enumerate() {
            if expected > limit {
                break;
            }
            let depth = i as u32 + 1;
            let got = if bulk { perft_bulk(&mut pos, depth) } else { perft(&mut pos, depth) };
            assert_eq!(got, expected, "{name} depth {depth}");
        }
    }
}

#[test]
fn perft_published_counts_up_to_12m_nodes() {
    check(12_000_000, true);
}

#[test]
fn perft_without_bulk_counting_agrees() {
    check(500_000, false);
}

/// Divide splits perft by root move: its counts sum to perft's at every depth from 1, and at
/// depth 0, where perft counts the position itself, it lists no move (it listed every root move,
/// a count of 1 each: perft 1's total under perft 0's name).
#[test]
fn divide_agrees_with_perft_at_every_depth() {
    let mut pos = Position::startpos();
    assert_eq!(perft(&mut pos, 0), 1);
    assert!(divide(&mut pos, 0).is_empty());
    for depth in 1..=3 {
        let split = divide(&mut pos, depth);
        assert_eq!(split.len(), 44);
        assert_eq!(split.iter().map(|&(_, n)| n).sum::<u64>(), perft(&mut pos, depth), "depth {depth}");
    }
}

/// The deep counts (up to 5.4 billion leaves): `cargo test --release -- --ignored perft_deep`.
#[test]
#[ignore]
fn perft_deep() {
    check(u64::MAX, true);
}

/// Visits every position up to `depth` plies from `pos`; counts the checking moves and the
/// moves the quick test passes, and fails if it lets a check through as "surely no check" or if
/// `is_check_after` disagrees with the full test.
fn walk_checks(pos: &mut Position, depth: u32, counts: &mut (u64, u64, u64)) {
    for &m in pos.moves().iter() {
        let checks = pos.gives_check(m);
        let may = pos.may_give_check(m);
        assert!(may || !checks, "{} gives check, said not to: {}", m, pos.fen());
        *counts = (counts.0 + 1, counts.1 + u64::from(checks), counts.2 + u64::from(may));
        let undo = pos.make_move(m);
        // The test of the lines and pieces the move touched agrees with the full one.
        assert_eq!(pos.is_check_after(m), checks, "{} after {}", pos.fen(), m);
        if depth > 1 {
            walk_checks(pos, depth - 1, counts);
        }
        pos.unmake_move(m, undo);
    }
}

/// Every square of every position within `depth` plies, for both sides, with the board's
/// occupancy and with each of the side to move's pieces lifted (as a capture test lifts the
/// capturer): `is_attacked_with` agrees with the attacker set. Counts (asked, attacked).
fn walk_attacks(pos: &mut Position, depth: u32, counts: &mut (u64, u64)) {
    let occ = pos.occupied();
    let lifted = pos.by_color(pos.turn()).into_iter().map(|sq| occ.without(sq));
    for occ in std::iter::once(occ).chain(lifted) {
        for sq in qiku::Square::all() {
            for c in qiku::Color::ALL {
                let attacked = pos.is_attacked_with(sq, c, occ);
                assert_eq!(attacked, pos.attackers_with(sq, c, occ).any(), "{sq} by {c:?} in {}", pos.fen());
                *counts = (counts.0 + 1, counts.1 + u64::from(attacked));
            }
        }
    }
    if depth > 1 {
        for &m in pos.moves().iter() {
            let undo = pos.make_move(m);
            walk_attacks(pos, depth - 1, counts);
            pos.unmake_move(m, undo);
        }
    }
}

#[test]
fn the_early_out_attack_test_agrees_with_the_attacker_sets() {
    let mut counts = (0, 0);
    let fens = CASES.iter().map(|c| c.1).chain(qiku::engine::bench::POSITIONS.iter().copied());
    for fen in fens {
        walk_attacks(&mut Position::from_fen(fen).unwrap(), 2, &mut counts);
    }
    let (asked, attacked) = counts;
    assert!(attacked > asked / 10 && attacked < asked * 9 / 10, "{attacked} of {asked} squares attacked");
}

#[test]
fn the_quick_check_test_never_misses_a_check() {
    let mut counts = (0, 0, 0);
    let fens = CASES.iter().map(|c| c.1).chain(qiku::engine::bench::POSITIONS.iter().copied());
    for fen in fens {
        walk_checks(&mut Position::from_fen(fen).unwrap(), 3, &mut counts);
    }
    let (moves, checks, may) = counts;
    // Many checks seen, and the test rules out most moves (else the search gains nothing).
    assert!(checks > 10_000, "{checks} checks in {moves} moves");
    assert!(may < moves / 2, "{may} of {moves} moves might give check");
}

/// Every position within `depth` plies of `pos`: `has_legal_move` (both forms) and
/// `has_no_moves` agree with the full legal move list. Counts [positions, checkmates,
/// stalemates].
fn walk_legal(pos: &mut Position, depth: u32, counts: &mut [u64; 3]) {
    let moves = pos.moves();
    let check = pos.is_check();
    let has = !moves.is_empty();
    assert_eq!(pos.has_legal_move(), has, "{}", pos.fen());
    assert_eq!(pos.has_legal_move_given_check(check), has, "{}", pos.fen());
    assert_eq!(pos.has_no_moves(), !has, "{}", pos.fen());
    counts[0] += 1;
    if !has {
        counts[if check { 1 } else { 2 }] += 1;
    }
    if depth > 0 {
        for &m in moves.iter() {
            let undo = pos.make_move(m);
            walk_legal(pos, depth - 1, counts);
            pos.unmake_move(m, undo);
        }
    }
}

/// The early-out test of a legal move against the full generation: every position three plies
/// from the perft and bench positions, and the independent oracle's positions (which hold
/// checkmates and stalemates, with pins and cannon screens by the king) and every position one
/// ply after them.
#[test]
fn has_legal_move_agrees_with_the_move_list() {
    let mut walked = [0; 3];
    let fens = CASES.iter().map(|c| c.1).chain(qiku::engine::bench::POSITIONS.iter().copied());
    for fen in fens {
        walk_legal(&mut Position::from_fen(fen).unwrap(), 3, &mut walked);
    }
    // 335 checkmates and 3 stalemates among 829,728 positions.
    assert_eq!(walked, [829_728, 335, 3]);
    let (mut oracle, mut children) = ([0; 3], [0; 3]);
    for line in include_str!("fixtures/oracle/movegen.txt").lines() {
        let mut pos = Position::from_fen(line.split('\t').next().unwrap()).unwrap();
        walk_legal(&mut pos, 0, &mut oracle);
        for &m in pos.moves().iter() {
            walk_legal(&mut pos.play_unchecked(m), 0, &mut children);
        }
    }
    // The oracle's own counts: 2,999 positions, 202 of them checkmates (no move, in check) and 80
    // stalemates; 52,437 legal moves from them.
    assert_eq!(oracle, [2999, 202, 80]);
    assert_eq!(children[0], 52_437, "{children:?}");
}
