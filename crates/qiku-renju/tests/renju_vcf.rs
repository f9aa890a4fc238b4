//! The VCF search on hand-built positions: it must find a VCF where one exists, every line it
//! returns must check out move by move (each attacker move a four with one five point that the
//! next move blocks, black never on a forbidden point, ending in a win), and it must report none
//! where there is none.

use crate::renju_util::{pt, setup};
use qiku_renju::eval::{self, Ruleset};
use qiku_renju::vcf::{find_vcf, VcfLimits};
use qiku_renju::{Board, Point, Stone};

/// Replays a VCF line and checks it, independently of the search.
fn check_line(board: &Board, attacker: Stone, line: &[Point]) {
    let rules = Ruleset::Renju;
    let mut b = board.clone();
    assert!(!line.is_empty() && line.len() % 2 == 1, "line {line:?}");
    for (i, pair) in line.chunks(2).enumerate() {
        let a = pair[0];
        assert!(b.is_empty(a), "move {i}: {a} occupied");
        if attacker == Stone::Black {
            assert_eq!(b.forbidden(a), None, "black's {a} is forbidden");
        }
        if b.makes_five(a, attacker) {
            assert_eq!(pair.len(), 1, "five at {a} before the end");
            return;
        }
        let threats = eval::five_points(&b, attacker.other(), rules);
        assert!(threats.is_empty() || threats == [a], "{a} ignores the defender's five points {threats:?}");
        b.put(a, attacker);
        let fives = eval::five_points(&b, attacker, rules);
        assert!(!fives.is_empty(), "{a} is not a four");
        match pair.get(1) {
            Some(&d) => {
                assert_eq!(fives, vec![d], "after {a} the defence is not forced to {d}");
                b.put(d, attacker.other());
            }
            None => {
                let unstoppable =
                    fives.len() >= 2 || (attacker == Stone::White && fives.iter().all(|&f| b.forbidden(f).is_some()));
                assert!(unstoppable, "the last four {a} can be blocked at {fives:?}");
                return;
            }
        }
    }
}

fn solve(board: &Board, attacker: Stone) -> Option<Vec<Point>> {
    let v = find_vcf(board, attacker, Ruleset::Renju, VcfLimits::default())?;
    check_line(board, attacker, &v.line);
    Some(v.line)
}

fn names(line: &[Point]) -> String {
    line.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ")
}

#[test]
fn white_double_four_at_once() {
    let b = setup("d8 h4 a1 a3", "e8 f8 g8 h5 h6 h7");
    assert_eq!(solve(&b, Stone::White).map(|l| names(&l)), Some("h8".into()));
}

#[test]
fn black_may_not_win_by_double_four() {
    // The same shape for black: h8 is a forbidden double four, so it is not a VCF move.
    let b = setup("e8 f8 g8 h5 h6 h7", "d8 h4 a1 a3");
    assert!(b.forbidden(pt("h8")).is_some());
    if let Some(line) = solve(&b, Stone::Black) {
        assert!(!line.contains(&pt("h8")), "{}", names(&line));
    }
}

#[test]
fn four_then_straight_four() {
    // White h5 is a four on row 5 and makes h5 h6 h7; after the block at i5, h8 or h4 is a
    // straight four.
    let b = setup("d5 a1 a3 a5", "e5 f5 g5 h6 h7");
    let line = solve(&b, Stone::White).expect("VCF");
    assert_eq!(line.len(), 3, "{}", names(&line));
    assert_eq!(line[..2], [pt("h5"), pt("i5")]);
}

#[test]
fn black_vcf_three_fours_deep() {
    // h10 (four on row 10, i10 forced), h8 (four on row 8 and h8 h9 h10, i8 forced), then a
    // straight four on column h wins in three fours. There is a shorter one, which iterative
    // deepening finds first: i8 (four on row 8, h8 forced) also makes g10 h9 i8 on the
    // anti-diagonal, and j7 makes that a straight four.
    let b = setup("e10 f10 g10 e8 f8 g8 h9", "d10 d8 a1 a3 a5 a7 a9");
    let line = solve(&b, Stone::Black).expect("VCF");
    assert_eq!(names(&line), "i8 h8 j7");
    // With the anti-diagonal blocked at f11 there are still short lines (i10 h10 f7 uses the
    // diagonal f7 g8 h9 i10); whatever is found must check out.
    let b = setup("e10 f10 g10 e8 f8 g8 h9", "d10 d8 a1 a3 a5 a7 f11");
    let line = solve(&b, Stone::Black).expect("VCF");
    assert!(line.len() <= 5, "{}", names(&line));
}

#[test]
fn white_wins_where_black_cannot_block() {
    // White f9 makes a four whose only five point f8 would be an overline for black.
    let b = setup("c8 d8 e8 g8 h8 f13", "f10 f11 f12 a1 a3 a5");
    assert_eq!(b.forbidden(pt("f8")), Some(qiku_renju::Forbidden::Overline));
    let line = solve(&b, Stone::White).expect("VCF");
    assert_eq!(names(&line), "f9");
}

#[test]
fn an_existing_four_is_completed_first() {
    // White c3 d4 e5 . g7: f6 is a five, found before any four is tried.
    let b = setup("b2 a9 a11", "c3 d4 e5 g7");
    assert_eq!(solve(&b, Stone::White).map(|l| names(&l)), Some("f6".into()));
}

#[test]
fn no_vcf_in_quiet_positions() {
    let b = setup("h8 j10", "i9");
    assert_eq!(find_vcf(&b, Stone::Black, Ruleset::Renju, VcfLimits::default()), None);
    assert_eq!(find_vcf(&b, Stone::White, Ruleset::Renju, VcfLimits::default()), None);
    // A closed three alone gives one four and nothing after it.
    let b = setup("h8 i8 j8", "g8 a1 a2");
    assert_eq!(find_vcf(&b, Stone::Black, Ruleset::Renju, VcfLimits::default()), None);
}

#[test]
fn attacker_must_first_answer_a_four() {
    // White has a four (five point i5); black's row-8 four elsewhere is no VCF unless the block
    // at i5 is itself a four. Here it is not, so there is no VCF for black.
    let b = setup("e8 f8 g8 a1 d5", "e5 f5 g5 h5 d8");
    assert_eq!(find_vcf(&b, Stone::Black, Ruleset::Renju, VcfLimits::default()), None);
    // With f2 g3 h4 (e1 white) and i6 i7, the block i5 is a four (five point j6) and makes
    // i5 i6 i7: after white's j6, i4 or i8 is a straight four.
    let b = setup("e8 f8 g8 d5 f2 g3 h4 i6 i7", "e5 f5 g5 h5 d8 e1");
    let line = solve(&b, Stone::Black).expect("VCF");
    assert_eq!(line.len(), 3, "{}", names(&line));
    assert_eq!(line[..2], [pt("i5"), pt("j6")]);
}

/// Random dense positions: every VCF the search reports must check out, and there must be many
/// (including long ones), so that the check is exercised.
#[test]
fn every_vcf_found_on_random_positions_checks_out() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let (mut found, mut longest) = (0, 0);
    for _ in 0..60 {
        let mut b = Board::new();
        let stones = 16 + next(20);
        while (b.stone_count() as u64) < stones {
            let p = Point::new(3 + next(9) as usize, 3 + next(9) as usize).unwrap();
            let side = b.to_move();
            // Positions as they could arise: no fives on the board, black never forbidden.
            if b.is_empty(p) && !b.makes_five(p, side) && (side == Stone::White || b.forbidden(p).is_none()) {
                b.put(p, side);
            }
        }
        for attacker in [Stone::Black, Stone::White] {
            let limits = VcfLimits { max_nodes: 50_000, ..VcfLimits::default() };
            if let Some(v) = find_vcf(&b, attacker, Ruleset::Renju, limits) {
                check_line(&b, attacker, &v.line);
                found += 1;
                longest = longest.max(v.line.len());
            }
        }
    }
    eprintln!("{found} VCFs found, longest {longest} moves");
    assert!(found >= 20 && longest >= 5, "found {found}, longest {longest}");
}
