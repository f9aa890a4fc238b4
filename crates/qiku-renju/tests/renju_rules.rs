//! Renju rules: fives, overlines, fours, threes and black's forbidden moves on hand-built
//! positions, each chosen for a shape that trips implementations up (see docs/RENJU.md).

use crate::renju_util::{pt, setup};
use qiku_renju::eval::{self, Ruleset};
use qiku_renju::line::Pattern;
use qiku_renju::{judge, Board, Forbidden, Outcome, Point, RenjuError, Stone};

fn forbidden(black: &str, white: &str, at: &str) -> Option<Forbidden> {
    let b = setup(black, white);
    assert!(b.is_empty(pt(at)), "{at} must be empty");
    b.forbidden(pt(at))
}

#[test]
fn point_names() {
    assert_eq!(pt("h8"), Point::CENTRE);
    assert_eq!(pt("a1"), Point::new(0, 0).unwrap());
    assert_eq!(pt("o15").to_string(), "o15");
    assert_eq!(pt("H8"), Point::CENTRE);
    for bad in ["p1", "a0", "a16", "h", "8", "hh", "h8x", ""] {
        assert!(bad.parse::<Point>().is_err(), "{bad:?} parsed");
    }
    assert_eq!(Point::all().count(), 225);
    assert!(Point::all().all(|p| p.to_string().parse::<Point>() == Ok(p)));
}

#[test]
fn bad_move_lists_name_the_token() {
    let e = Board::from_moves("h8 h9 q3").unwrap_err();
    assert!(matches!(e, RenjuError::BadToken { index: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("\"q3\""), "{e}");
    let e = Board::from_moves("h8 h9 pass").unwrap_err();
    assert!(e.to_string().contains("\"pass\""), "{e}");
    let e = Board::from_moves("h8 h9 h8").unwrap_err();
    assert_eq!(e, RenjuError::Occupied { index: 3, point: pt("h8") });
}

#[test]
fn diagram_round_trip() {
    let b = Board::from_moves("h8 h9 i9 g7 j10").unwrap();
    let d = b.diagram();
    let back = Board::from_diagram(&d).unwrap();
    assert_eq!(back.diagram(), d);
    assert_eq!(back.to_move(), Stone::White);
    assert_eq!(back.stone(pt("j10")), Some(Stone::Black));
    assert_eq!(back.stone(pt("g7")), Some(Stone::White));
    let mut lines: Vec<&str> = d.lines().collect();
    lines[3] = "..............z";
    let e = Board::from_diagram(&lines.join("\n")).unwrap_err();
    assert!(matches!(e, RenjuError::BadDiagram { line: 4, .. }), "{e:?}");
    assert!(Board::from_diagram("...\n").is_err());
}

#[test]
fn diagrams_with_impossible_stone_counts_are_refused() {
    // Black moves first: a position of a game has as many black stones as white ones, or one
    // more. The set-up API (`put`, which the reference comparisons use) still makes any position.
    for moves in ["", "h8", "h8 h9", "h8 h9 i9"] {
        let b = Board::from_moves(moves).unwrap();
        assert_eq!(Board::from_diagram(&b.diagram()).unwrap().diagram(), b.diagram(), "{moves:?}");
    }
    for (black, white) in [("h8 i8", ""), ("h8 i8 j8 k8", "a1 a2"), ("", "a1"), ("h8", "a1 a2"), ("", "a1 a2 a3")] {
        let b = setup(black, white);
        let want = (black.split_whitespace().count(), white.split_whitespace().count());
        let e = Board::from_diagram(&b.diagram()).expect_err(&format!("{black:?} / {white:?} accepted"));
        assert_eq!(e, RenjuError::StoneCounts { black: want.0, white: want.1 });
        assert_eq!(
            e.to_string(),
            format!(
                "the diagram has {} black and {} white stones: black moves first, so black must have \
                 as many stones as white or one more",
                want.0, want.1
            )
        );
    }
}

#[test]
fn diagrams_and_game_files_read_any_line_ending() {
    let b = Board::from_moves("h8 h9 i9 g7 j10").unwrap();
    let mut lines: Vec<String> = vec!["# a comment line".into()];
    lines.extend(b.diagram().lines().map(String::from));
    let mut bad = lines.clone();
    bad[4] = "..............z".into();
    for ending in ["\n", "\r\n", "\r"] {
        let text = lines.join(ending) + ending;
        let back = Board::from_diagram(&text).unwrap_or_else(|e| panic!("{ending:?}: {e}"));
        assert_eq!(back.diagram(), b.diagram(), "{ending:?}");
        // Errors count lines the same whatever the ending (the comment is line 1).
        let e = Board::from_diagram(&bad.join(ending)).unwrap_err();
        assert!(matches!(e, RenjuError::BadDiagram { line: 5, .. }), "{ending:?}: {e:?}");
    }
    // A game file: `#` comments to the end of the line, moves on several lines. With a lone CR
    // ending, a comment must not swallow the lines after it.
    let game = "# a double three\nf8 a1 g8 a3 # black's threes\nh9 a5 h10 a7\nh8 a9 # forbidden\n";
    let want = qiku_renju::parse_moves("f8 a1 g8 a3 h9 a5 h10 a7 h8 a9").unwrap();
    for ending in ["\n", "\r\n", "\r"] {
        let moves = qiku_renju::parse_game(&game.replace('\n', ending)).unwrap();
        assert_eq!(moves, want, "{ending:?}");
    }
    let e = qiku_renju::parse_game("h8 h9 # fine\rh10 zz").unwrap_err();
    assert!(matches!(e, RenjuError::BadToken { index: 4, .. }), "{e:?}");
    // A byte-order mark (editors saving "UTF-8 with BOM") is skipped, before a move, a comment
    // or a diagram's first row; elsewhere it is still no point.
    assert_eq!(qiku_renju::parse_game(&format!("\u{feff}{game}")).unwrap(), want);
    assert_eq!(qiku_renju::parse_game("\u{feff}# note\nh8 h9").unwrap().len(), 2);
    let back = Board::from_diagram(&format!("\u{feff}{}", b.diagram())).unwrap();
    assert_eq!(back.diagram(), b.diagram());
    assert!(qiku_renju::parse_game("h8 \u{feff}h9").is_err());
}

#[test]
fn exact_five_with_overline_elsewhere_is_allowed_and_wins() {
    // Row: d8-g8 + h8 = exact five; column: h5 h6 h7 + h8 + h9 h10 = six.
    let b = setup("d8 e8 f8 g8 h5 h6 h7 h9 h10", "");
    assert_eq!(b.forbidden(pt("h8")), None);
    assert!(b.makes_five(pt("h8"), Stone::Black));
    // Without the row five the same move is an overline.
    let b = setup("d8 e8 f8 h5 h6 h7 h9 h10", "");
    assert_eq!(b.forbidden(pt("h8")), Some(Forbidden::Overline));
    assert!(!b.makes_five(pt("h8"), Stone::Black));
}

#[test]
fn exact_five_with_four_four_elsewhere_is_allowed() {
    // Five on row 8, fours on column h (h9-h11) and the diagonal (i9 j10 k11).
    let b = setup("d8 e8 f8 g8 h9 h10 h11 i9 j10 k11", "");
    assert_eq!(b.forbidden(pt("h8")), None);
    assert!(b.makes_five(pt("h8"), Stone::Black));
    let b = setup("e8 f8 g8 h9 h10 h11 i9 j10 k11", "d8");
    assert_eq!(b.forbidden(pt("h8")), Some(Forbidden::DoubleFour));
}

#[test]
fn a_black_line_of_six_is_forbidden_and_not_a_five() {
    let moves = "d8 a1 e8 a3 f8 a5 g8 a7 i8 a9 h8";
    let j = judge(&qiku_renju::parse_moves(moves).unwrap()).unwrap();
    assert_eq!(j.outcome, Outcome::Forbidden { ply: 11, point: pt("h8"), kind: Forbidden::Overline });
    // The same shape for white wins.
    let moves = "a1 d8 a3 e8 a5 f8 a7 g8 a9 i8 a11 h8";
    let j = judge(&qiku_renju::parse_moves(moves).unwrap()).unwrap();
    assert_eq!(j.outcome, Outcome::Five { ply: 12, point: pt("h8"), winner: Stone::White });
}

#[test]
fn four_four_on_one_line() {
    // x.xxx.x with the move in the middle.
    assert_eq!(forbidden("d8 f8 h8 j8", "", "g8"), Some(Forbidden::DoubleFour));
    // xx.xx.xx
    assert_eq!(forbidden("c8 d8 g8 i8 j8", "", "f8"), Some(Forbidden::DoubleFour));
    // xxx.x.xxx
    assert_eq!(forbidden("b8 c8 d8 h8 i8 j8", "", "f8"), Some(Forbidden::DoubleFour));
    // Blocking one end of x.xxx.x leaves... still two fours: each gap makes its own five.
    assert_eq!(forbidden("d8 f8 h8 j8", "c8 k8", "g8"), Some(Forbidden::DoubleFour));
    // A straight four is one four, not two.
    assert_eq!(forbidden("e8 f8 g8", "", "h8"), None);
    // Straight four on the row plus a four on the column: two fours.
    assert_eq!(forbidden("e8 f8 g8 h5 h6 h7", "", "h8"), Some(Forbidden::DoubleFour));
}

#[test]
fn overline_adjacent_shapes_are_not_fours() {
    // x.xxxx: filling the gap makes six, so only i8 makes a five: one four on the row (closed at
    // j8 by nothing) ... with i8 blocked there is no four on the row at all.
    let b = setup("c8 e8 f8 g8 h9 h10 h11", "i8 h12");
    assert_eq!(b.forbidden(pt("h8")), None, "x.xxxx counted as a four");
    let lines = eval::lines(&b, pt("h8"), Stone::Black, Ruleset::Renju);
    assert_eq!(lines[0].pattern, Pattern::None, "row: {:?}", lines[0]);
    assert_eq!(lines[1].pattern, Pattern::Four);
    // For white the same shape is a straight four (an overline wins for white).
    let w = setup("", "c8 e8 f8 g8");
    let lines = eval::lines(&w, pt("h8"), Stone::White, Ruleset::Renju);
    assert_eq!(lines[0].pattern, Pattern::StraightFour, "for white d8 and i8 both win");
    let b = setup("c8 e8 f8 g8", "");
    let lines = eval::lines(&b, pt("h8"), Stone::Black, Ruleset::Renju);
    assert_eq!(lines[0].pattern, Pattern::Four, "for black only i8 makes a five");
}

#[test]
fn plain_double_three() {
    assert_eq!(forbidden("f8 g8 h9 h10", "", "h8"), Some(Forbidden::DoubleThree));
    // Split threes count too: e8 . g8 h8 and h8 h9 . h11.
    assert_eq!(forbidden("e8 g8 h9 h11", "", "h8"), Some(Forbidden::DoubleThree), "split threes");
    // d8 . . g8 h8 can only become a four (at f8 or e8): a closed three, not a three.
    assert_eq!(forbidden("d8 g8 h9 h11", "", "h8"), None);
    assert_eq!(forbidden("f8 g8 h10 h11", "", "h8"), Some(Forbidden::DoubleThree));
    // One of them closed by white: a four-three shape is not even involved; a closed three is
    // not a three.
    assert_eq!(forbidden("f8 g8 h9 h10", "e8", "h8"), None);
    // Closed at distance two: e8 white and d8... .xxx with the far end white is still open if
    // both five points exist.
    assert_eq!(forbidden("f8 g8 h9 h10", "d8", "h8"), Some(Forbidden::DoubleThree));
}

#[test]
fn double_three_whose_only_completion_is_forbidden_is_allowed() {
    // Row: e8 f8 . h8 is a three whose only completing point is g8; column h: h8 h9 h10.
    // Column g: g5 g6 g7 . g9 g10, so g8 would be an overline for black.
    let black = "e8 f8 h9 h10 g5 g6 g7 g9 g10";
    assert_eq!(forbidden(black, "", "h8"), None);
    // The completion g8 itself, once h8 is played, is an overline.
    let mut b = setup(black, "");
    b.put(pt("h8"), Stone::Black);
    assert_eq!(b.forbidden(pt("g8")), Some(Forbidden::Overline));
    // Without column g, g8 completes the row to a straight four and h8 is a double three.
    assert_eq!(forbidden("e8 f8 h9 h10", "", "h8"), Some(Forbidden::DoubleThree));
}

/// Two levels: h8's row three is completed only at g8; g8 (after h8) would be a four plus two
/// threes, one of which (column g, g8 . g10 g11) is completed only at g9; g9 (after h8 and g8)
/// would be an overline on row 9. So g9 is forbidden, g8's column three is not real, g8 has one
/// real three and is allowed, h8's row three is real: h8 is a double three.
const TWO_LEVELS: &str = "e8 f8 h9 h10 g10 g11 f7 c9 d9 e9 f9";

#[test]
fn double_three_two_levels_deep() {
    assert_eq!(forbidden(TWO_LEVELS, "", "h8"), Some(Forbidden::DoubleThree));
    let mut b = setup(TWO_LEVELS, "");
    b.put(pt("h8"), Stone::Black);
    assert_eq!(b.forbidden(pt("g8")), None, "g8 has only one real three");
    b.put(pt("g8"), Stone::Black);
    assert_eq!(b.forbidden(pt("g9")), Some(Forbidden::Overline));
    // Take c9 away: g9 now makes the exact five d9-h9, so it is allowed, g8's column three is
    // real, g8 is a double three, h8's row three is not real, and h8 is allowed.
    let one_less = TWO_LEVELS.replace("c9 ", "");
    assert_eq!(forbidden(&one_less, "", "h8"), None);
    let mut b = setup(&one_less, "");
    b.put(pt("h8"), Stone::Black);
    assert_eq!(b.forbidden(pt("g8")), Some(Forbidden::DoubleThree));
}

#[test]
fn completion_point_that_makes_a_five_is_allowed() {
    // Row: e8 . g8 h8 completed only at f8. f8 would be a double four (row straight four and
    // column f9 f10 f11 closed by f12), but it also makes the exact five b4-f8 on the diagonal.
    let black = "e8 g8 h9 h10 f9 f10 f11 b4 c5 d6 e7";
    assert_eq!(forbidden(black, "f12", "h8"), Some(Forbidden::DoubleThree));
    // Without b4 there is no five at f8; f8 is a double four and h8's row three is not real.
    let black = "e8 g8 h9 h10 f9 f10 f11 c5 d6 e7";
    assert_eq!(forbidden(black, "f12 b4", "h8"), None);
}

#[test]
fn threes_blocked_by_the_edge() {
    // a2 b2 c2 against the left edge: d2 makes a four with only one five point, not a straight
    // four, so the row is no three; column c2 c3 c4 is. One three: allowed.
    assert_eq!(forbidden("a2 b2 c3 c4", "", "c2"), None);
    // b2 c2 d2 with a2 empty: e2 makes the straight four b2-e2 (a2 and f2 both make fives).
    assert_eq!(forbidden("b2 d2 c3 c4", "", "c2"), Some(Forbidden::DoubleThree));
    // At the top edge, h13 h14 h15 has no room above: column h is no three.
    assert_eq!(forbidden("h14 h15 f13 g13", "", "h13"), None);
    assert_eq!(forbidden("h14 h12 f13 g13", "", "h13"), Some(Forbidden::DoubleThree));
    // On the right edge every line but the column ends at the edge: m13 n13 o13 is no three.
    assert_eq!(forbidden("m13 n13 o12 o11", "", "o13"), None);
}

#[test]
fn white_has_no_forbidden_moves_and_wins_with_six() {
    let b = setup("", "d8 e8 f8 g8 i8");
    assert!(b.makes_five(pt("h8"), Stone::White));
    assert!(!b.makes_five(pt("h8"), Stone::Black));
    // A black five on a diagonal ends the game at once.
    let moves = "h8 a1 i9 a3 j10 a5 k11 b7 l12";
    let j = judge(&qiku_renju::parse_moves(moves).unwrap()).unwrap();
    assert_eq!(j.outcome, Outcome::Five { ply: 9, point: pt("l12"), winner: Stone::Black });
    let j = judge(&qiku_renju::parse_moves("h8 h9 i8").unwrap()).unwrap();
    assert_eq!(j.outcome, Outcome::Unfinished);
}

#[test]
fn judge_reports_first_forbidden_move() {
    // Black builds f8 g8 and h9 h10, then plays the double three h8.
    let moves = "f8 a1 g8 a3 h9 a5 h10 a7 h8 a9";
    let j = judge(&qiku_renju::parse_moves(moves).unwrap()).unwrap();
    assert_eq!(j.outcome, Outcome::Forbidden { ply: 9, point: pt("h8"), kind: Forbidden::DoubleThree });
    assert_eq!(j.extra_moves, 1);
}

#[test]
fn forbidden_points_are_sorted_and_kinds_take_precedence() {
    let b = setup("f8 g8 h9 h10 f6 f5", "");
    let list = b.forbidden_points();
    let keys: Vec<(usize, usize)> = list.iter().map(|(p, _)| p.sort_key()).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(list.contains(&(pt("h8"), Forbidden::DoubleThree)), "{list:?}");
    // A point that is an overline and a double three at once reports the overline.
    let b = setup("c8 d8 e8 g8 h8 f7 f9 e7 g9", "");
    assert_eq!(b.forbidden(pt("f8")), Some(Forbidden::Overline));
}

#[test]
fn valuation_patterns() {
    let b = setup("h8 i8 j8", "h9 i9");
    let v = eval::value_point(&b, pt("k8"), Stone::Black, Ruleset::Renju);
    assert_eq!(v.patterns[0], Pattern::StraightFour);
    let v = eval::value_point(&b, pt("g8"), Stone::Black, Ruleset::Renju);
    assert_eq!(v.patterns[0], Pattern::StraightFour);
    let v = eval::value_point(&b, pt("l8"), Stone::Black, Ruleset::Renju);
    assert_eq!(v.patterns[0], Pattern::Four);
    let v = eval::value_point(&b, pt("j9"), Stone::White, Ruleset::Renju);
    assert_eq!(v.patterns[0], Pattern::OpenThree);
    let all = eval::evaluate(&b, Stone::Black, Ruleset::Renju);
    assert_eq!(all.len(), 225 - 5);
    let best = all.iter().max_by_key(|v| v.value).unwrap();
    assert!(["g8", "k8"].contains(&best.point.to_string().as_str()), "{best:?}");
    // Forbidden points are marked and worth nothing to black.
    let b = setup("f8 g8 h9 h10", "");
    let v = eval::value_point(&b, pt("h8"), Stone::Black, Ruleset::Renju);
    assert_eq!(v.forbidden, Some(Forbidden::DoubleThree));
    assert_eq!(v.value, 0);
    let v = eval::value_point(&b, pt("h8"), Stone::White, Ruleset::Renju);
    assert_eq!(v.forbidden, None);
}
