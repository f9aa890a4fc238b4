//! Known results of endgame theory with defenders (advisors, elephants) on the board, checked
//! against the generated tables. Each test names its source and the claim it makes;
//! where the source states a general result, the test checks a figure that could fail (the share
//! of won positions over the whole table or over a formation the source names) and the comment
//! gives the measured figure. Values are the Asian rules' (`Tablebases::probe_with(pos,
//! Rules::Asian)`, the `.qtr` companions); none of these tables changes under the rule
//! (`the_asian_rules_change_none_of_these_tables`), so the plain values are the same.
//!
//! Sources (public web pages; claims in our own words):
//! - [S1] <http://www.xqinenglish.com/eg1chariotendgames01.html>: a single rook wins easily
//!   against two advisors or two elephants, and surely against one advisor with two elephants or
//!   two advisors with one elephant; against the full guard it is normally a draw.
//! - [S2] <http://www.xqinenglish.com/eg1chariotendgames02.html>: a single rook is usually a draw
//!   against the full guard, with some positional wins; the defender must never lose a piece.
//! - [S3] <https://g230.com/569493922.html>: a rook against a guard that is not complete (and no
//!   horse, cannon or rook beside it) is a book win; against the full guard it is a draw when the
//!   advisors and elephants are linked on the centre file, and can be a positional win when the
//!   king is off centre and they are not linked.
//! - [S4] <http://www.xqinenglish.com/theanatomyofxiangqipart4.html>: a horse against one advisor
//!   is a sure win wherever the pieces stand; a horse against two elephants a sure draw; a horse
//!   against one elephant normally a draw, with positional wins.
//! - [S5] <http://www.djwx.org/65_65236/1560737.html> (a chapter that reproduces Xie Xiaxun's list
//!   of book wins and draws; the same text at <http://m.77nt.net/118_118681/46226954.html>): a lone
//!   pawn hardly beats one advisor; pawn and advisor hardly beat one advisor; a lone pawn against
//!   two advisors is a book draw; a high and a low pawn are a book win against two advisors and
//!   against two elephants; a horse beats one advisor; a horse against one elephant draws when the
//!   king and the elephant stand on opposite sides, and can win when they are on the same side; a
//!   horse against a pawn past the river is a book draw unless the horse wins the pawn.
//! - [S6] <https://kpfans.com/article/BWxQrMEP52.html>: a horse beats two advisors only
//!   positionally (巧胜), a horse surely beats one advisor, and a cannon with one advisor surely
//!   beats two advisors (炮仕必胜双士).
//! - [S7] <http://www.gamesreviews.net/archive568-2005-2-221290.html>: a lone cannon cannot mate a
//!   lone king, but with an advisor (or most other pieces, not an elephant) it can.
//! - [S8] <http://www.gamesreviews.net/archive568-2005-1-205175.html>: David Li's pawn-against-
//!   advisor diagram ("First Syllabus on XiangQi", diagram 11) with its line; Li says black's
//!   seventh move K4.5 is the mistake that loses and A6+5 should have been played.
//! - [S9] <http://i07.com.cn/gonglue/202407/574596.html>: a high pawn stands on the opponent's
//!   first or second rank past the river, a low pawn on the third or fourth; a high and a low
//!   pawn together beat two advisors or two elephants.
//! - [S10] <http://xiangqibowl.org/double-horses>: horse against advisor is a sure win.
//!
//! The claim that a cannon with two advisors beats two advisors (炮双士 vs 双士), which no source
//! above makes, is checked beside [S6]'s weaker material.
//!
//! CI cost: one generation of 37 tables (12.9 M entries) shared by every test.

use crate::tablebase_common;

use qiku::notation::wxf;
use qiku::tablebase::generate;
use qiku::tablebase::{file_name, Counts, Material, Rules, Tablebases, Wdl};
use qiku::{Color, Piece, Position, Role, Setup, Square};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Every material the tests probe; their dependencies come with them.
const MATERIALS: &[&str] = &[
    "KRvKAABB", "KCAAvKAA", "KCAvKAA", "KNvKA", "KNvKB", "KNvKAA", "KNvKBB", "KPvKA", "KPvKAA", "KPAvKA", "KPPvKAA",
    "KPPvKBB", "KCAvK", "KCBvK", "KNvKP",
];

/// The generated tables, once for the whole file.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| tablebase_common::fresh_dir("tb_theory", MATERIALS))
}

/// The tables opened once, shared by the tests.
fn tb() -> &'static Tablebases {
    static TB: OnceLock<Tablebases> = OnceLock::new();
    TB.get_or_init(|| Tablebases::open(dir()).unwrap())
}

/// A table's counts per side to move (red, black) under `rules`.
fn counts(name: &str, rules: Rules) -> [Counts; 2] {
    let m: Material = name.parse().unwrap();
    let path = dir().join(file_name(m));
    let plain = std::sync::Arc::new(generate::load(&path).unwrap());
    match rules {
        Rules::Plain => plain.counts(),
        Rules::Asian => generate::load_rules(&path.with_extension("qtr"), &plain).unwrap().counts(),
    }
}

/// Red to move: (legal, wins, draws, losses) under the Asian rules.
fn red_to_move(name: &str) -> (u64, u64, u64, u64) {
    let [r, _] = counts(name, Rules::Asian);
    (r.legal, r.wins, r.draws, r.losses)
}

/// A square from its name, e.g. `e9`.
fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

/// Squares from names separated by spaces.
fn squares(names: &str) -> Vec<Square> {
    names.split_whitespace().map(sq).collect()
}

/// The piece of a FEN letter.
fn piece(c: char) -> Piece {
    let color = if c.is_ascii_uppercase() { Color::Red } else { Color::Black };
    let role = match c.to_ascii_lowercase() {
        'k' => Role::King,
        'a' => Role::Advisor,
        'b' => Role::Elephant,
        'n' => Role::Horse,
        'r' => Role::Rook,
        'c' => Role::Cannon,
        'p' => Role::Pawn,
        _ => panic!("no piece {c}"),
    };
    Piece::new(color, role)
}

/// Every legal position, `turn` to move, in which each slot's piece (a FEN letter) stands on one
/// of the slot's squares (an empty list: every square the piece can reach), each position once.
fn placements(slots: &[(char, Vec<Square>)], turn: Color) -> Vec<Position> {
    fn go(slots: &[(Piece, Vec<Square>)], setup: &mut Setup, seen: &mut HashSet<u64>, out: &mut Vec<Position>) {
        let Some(((p, squares), rest)) = slots.split_first() else {
            // from_setup refuses facing kings and the side not to move in check.
            if let Ok(pos) = Position::from_setup(setup) {
                if seen.insert(pos.key()) {
                    out.push(pos);
                }
            }
            return;
        };
        for &s in squares {
            if setup.piece_at(s).is_none() {
                setup.set(s, Some(*p));
                go(rest, setup, seen, out);
                setup.set(s, None);
            }
        }
    }
    let slots: Vec<(Piece, Vec<Square>)> = slots
        .iter()
        .map(|(c, s)| {
            let p = piece(*c);
            (p, if s.is_empty() { Position::reachable_squares(p).collect() } else { s.clone() })
        })
        .collect();
    let mut setup = Setup::empty();
    setup.turn = turn;
    let (mut seen, mut out) = (HashSet::new(), Vec::new());
    go(&slots, &mut setup, &mut seen, &mut out);
    out
}

/// The value for the side to move under the Asian rules.
fn wdl(pos: &Position) -> Wdl {
    tb().probe_with(pos, Rules::Asian).unwrap().unwrap_or_else(|| panic!("no table for {}", pos.fen())).wdl
}

/// (wins, draws, losses) for the side to move over `positions`, Asian rules.
fn tally(positions: &[Position]) -> [usize; 3] {
    let mut t = [0; 3];
    for p in positions {
        t[match wdl(p) {
            Wdl::Win => 0,
            Wdl::Draw => 1,
            Wdl::Loss => 2,
        }] += 1;
    }
    t
}

/// Every legal position of a material (colors as written) with `turn` to move.
fn all_with(name: &str, turn: Color) -> Vec<Position> {
    let m: Material = name.parse().unwrap();
    tablebase_common::all_positions(m).into_iter().filter(|p| p.turn() == turn).collect()
}

/// Where the one `p` of `pos` stands.
fn square_of(pos: &Position, p: Piece) -> Square {
    Square::all().find(|&s| pos.piece_at(s) == Some(p)).unwrap()
}

#[test]
fn the_asian_rules_change_none_of_these_tables() {
    // Except in KNvKP the weaker side has no attacking piece, so it can never check perpetually
    // and the perpetual-check rule has nothing to decide; in KNvKP it decides nothing either
    // (measured). The companions must agree with the tables.
    for name in MATERIALS {
        assert_eq!(counts(name, Rules::Asian), counts(name, Rules::Plain), "{name}");
    }
}

#[test]
fn a_lone_rook_draws_against_the_full_guard_linked_on_the_centre_file() {
    // [S2], [S3] (单车 vs 士象全 is generally a draw). The drawing formation of
    // [S3]: king at home, an advisor on the palace centre linked to one in a corner, an elephant
    // on the centre file linked to one on the back rank. With red to move, every placement of
    // the red king and rook: all 747 drawn, for the formation and for its mirror image.
    for guard in ["e8 d9 e7 g9", "e8 f9 e7 c9"] {
        let g = squares(guard);
        let pos = placements(
            &[
                ('k', vec![sq("e9")]),
                ('a', vec![g[0]]),
                ('a', vec![g[1]]),
                ('b', vec![g[2]]),
                ('b', vec![g[3]]),
                ('K', vec![]),
                ('R', vec![]),
            ],
            Color::Red,
        );
        assert_eq!(tally(&pos), [0, 747, 0], "{guard}");
    }
    // It is not a book draw whatever the formation ([S2]'s positional wins): with the guard on
    // its starting squares, unlinked, red to move wins 174 of the 450 placements, and over the
    // whole table red to move wins 590,094 of 719,532 legal positions (82.0%).
    let home = placements(
        &[
            ('k', vec![sq("e9")]),
            ('a', vec![sq("d9")]),
            ('a', vec![sq("f9")]),
            ('b', vec![sq("c9")]),
            ('b', vec![sq("g9")]),
            ('K', vec![]),
            ('R', vec![]),
        ],
        Color::Red,
    );
    assert_eq!(tally(&home), [174, 276, 0]);
    assert_eq!(red_to_move("KRvKAABB"), (719_532, 590_094, 129_438, 0));
}

#[test]
fn a_lone_rook_wins_against_every_incomplete_guard() {
    // [S1], [S3]: two advisors, two elephants, two advisors and an elephant, an advisor and two
    // elephants are all book wins for the rook. Red to move wins every legal position of each.
    for (name, legal) in [("KRvKAA", 35_166), ("KRvKBB", 80_328), ("KRvKAAB", 242_988), ("KRvKABB", 383_343)] {
        assert_eq!(red_to_move(name), (legal, legal, 0, 0), "{name}");
    }
}

#[test]
fn a_cannon_with_advisors_beats_two_advisors() {
    // [S6]: cannon and one advisor surely beat two advisors. Red to move wins 180,630 of 180,742
    // legal positions (99.94%). With two advisors (炮双士 vs 双士): 323,130 of 323,336 (99.94%).
    assert_eq!(red_to_move("KCAvKAA"), (180_742, 180_630, 112, 0));
    assert_eq!(red_to_move("KCAAvKAA"), (323_336, 323_130, 206, 0));
}

#[test]
fn a_horse_beats_a_lone_advisor_unless_it_is_pinned_at_once() {
    // [S4], [S5], [S6], [S10]: horse against one advisor is a book win wherever the pieces
    // stand. Red to move wins 21,366 of 21,426 legal positions; the 60 draws are all positions
    // where the horse stands between the two kings on one file (it cannot move without exposing
    // its king) and the black king or advisor attacks it: it is lost, and nothing is left to win
    // with.
    assert_eq!(red_to_move("KNvKA"), (21_426, 21_366, 60, 0));
    let horse = piece('N');
    let mut draws = 0;
    for pos in all_with("KNvKA", Color::Red) {
        if wdl(&pos) != Wdl::Draw {
            continue;
        }
        draws += 1;
        let (n, rk, bk) = (square_of(&pos, horse), pos.king(Color::Red), pos.king(Color::Black));
        let pinned = n.file() == rk.file() && n.file() == bk.file();
        assert!(pinned && pos.attackers(n, Color::Black).any(), "{}", pos.fen());
    }
    assert_eq!(draws, 60);
}

#[test]
fn a_horse_cannot_beat_two_elephants() {
    // [S4]: horse against two elephants is a sure draw. Red to move wins 444 of 94,416 legal
    // positions (0.47%, positions where an elephant is lost or the king is caught at once); black
    // to move, none.
    assert_eq!(red_to_move("KNvKBB"), (94_416, 444, 93_972, 0));
    let [_, black] = counts("KNvKBB", Rules::Asian);
    assert_eq!((black.legal, black.losses), (100_602, 0));
}

#[test]
fn a_horse_against_one_elephant_wins_when_king_and_elephant_share_a_side() {
    // [S4]: normally a draw, with positional wins; [S5]: it is a draw with the black king and
    // the elephant on opposite sides of the centre file, and the horse can win when they are on
    // the same side. Red to move, over every legal position: king and elephant on opposite sides
    // 1,014 wins of 9,072 (11.2%); on the same side 4,856 wins of 9,108 (53.3%).
    let elephant = piece('b');
    let (mut opposite, mut same) = ([0; 2], [0; 2]);
    for pos in all_with("KNvKB", Color::Red) {
        let side = |s: Square| s.file().index() as i32 - 4;
        let product = side(pos.king(Color::Black)) * side(square_of(&pos, elephant));
        let won = usize::from(wdl(&pos) == Wdl::Win);
        if product < 0 {
            opposite[won] += 1;
        } else if product > 0 {
            same[won] += 1;
        }
    }
    assert_eq!(opposite, [8_058, 1_014]);
    assert_eq!(same, [4_252, 4_856]);
    assert_eq!(red_to_move("KNvKB"), (31_800, 7_668, 24_132, 0));
}

#[test]
fn a_horse_beats_two_advisors_only_positionally() {
    // [S6]: 单马巧胜双士, a win only in particular positions. Red to move wins 2,859 of 39,360
    // legal positions (7.3%).
    assert_eq!(red_to_move("KNvKAA"), (39_360, 2_859, 36_501, 0));
}

#[test]
fn li_pawn_against_advisor_line_and_its_mistake() {
    // [S8]: red king e0, pawn e6 (on the centre file just outside black's palace), black king
    // d7, advisor f9, red to move. The book's line ends with black stalemated after black's
    // seventh move K4.5; Li says A6+5 instead holds. The tables: the start is a draw, the line is
    // legal, K4.5 turns the draw into a loss, A6+5 keeps it, and the final position is lost
    // with no legal move.
    let mut pos = Position::from_fen("5a3/9/3k5/4P4/9/9/9/9/9/4K4 w - - 0 1").unwrap();
    assert_eq!(wdl(&pos), Wdl::Draw);
    let play = |pos: &Position, token: &str| pos.play_unchecked(wxf::parse(pos, token).unwrap());
    let line = "P5+1 K4-1 K5+1 K4-1 P5.6 A6+5 P6.5 A5-6 K5.4 K4+1 K4+1 K4-1 P5.6";
    for token in line.split_whitespace() {
        pos = play(&pos, token);
        // No move of the line changes the value: the draw holds while black plays well.
        assert_eq!(wdl(&pos), Wdl::Draw, "after {token}: {}", pos.fen());
    }
    assert_eq!(wdl(&play(&pos, "A6+5")), Wdl::Draw, "Li's improvement holds");
    pos = play(&pos, "K4.5");
    assert_eq!(wdl(&pos), Wdl::Win, "K4.5 loses: red to move now wins");
    for token in "P6+1 A6+5 K4.5 K5.6 P6.5".split_whitespace() {
        pos = play(&pos, token);
    }
    assert!(pos.moves().is_empty());
    assert_eq!(tb().probe_with(&pos, Rules::Asian).unwrap().unwrap().dtm.0, 0);
    assert_eq!(wdl(&pos), Wdl::Loss);
}

#[test]
fn a_lone_pawn_hardly_beats_one_advisor() {
    // [S5]: 单兵难胜单士 and 兵仕难胜单士. Red to move wins 1,104 of 13,092 legal positions of
    // KPvKA (8.4%) and 4,745 of 60,861 of KPAvKA (7.8%).
    assert_eq!(red_to_move("KPvKA"), (13_092, 1_104, 11_988, 0));
    assert_eq!(red_to_move("KPAvKA"), (60_861, 4_745, 56_116, 0));
}

#[test]
fn a_lone_pawn_against_two_advisors_is_a_book_draw() {
    // [S5]: 单兵例和双士. Red to move wins 264 of 23,904 legal positions (1.1%).
    assert_eq!(red_to_move("KPvKAA"), (23_904, 264, 23_640, 0));
}

#[test]
fn a_high_and_a_low_pawn_beat_two_advisors_or_two_elephants() {
    // [S5], [S9]: 高低兵例胜双士 / 双象. A high pawn on black's ranks 5-6 (the river bank and the
    // pawn rank), a low one on ranks 7-8, every placement of both kings and the defenders, red
    // to move: all 125,982 positions won against two advisors, 297,741 of 298,641 (99.7%)
    // against two elephants. Over the whole tables (any pawn ranks) red to move wins 85.9% and
    // 60.4%.
    let high: Vec<Square> = Square::all().filter(|s| (5..=6).contains(&s.rank().index())).collect();
    let low: Vec<Square> = Square::all().filter(|s| (7..=8).contains(&s.rank().index())).collect();
    let with = |d: char| {
        placements(
            &[('k', vec![]), (d, vec![]), (d, vec![]), ('K', vec![]), ('P', high.clone()), ('P', low.clone())],
            Color::Red,
        )
    };
    assert_eq!(tally(&with('a')), [125_982, 0, 0]);
    assert_eq!(tally(&with('b')), [297_741, 900, 0]);
    assert_eq!(red_to_move("KPPvKAA"), (590_010, 506_694, 83_316, 0));
    assert_eq!(red_to_move("KPPvKBB"), (1_404_279, 847_926, 556_353, 0));
}

#[test]
fn a_cannon_mates_with_an_advisor_but_not_with_an_elephant() {
    // [S7]: a lone cannon cannot mate, with an advisor it can, not with an elephant. Red to move
    // wins all 22,710 legal positions of KCAvK, none of the 33,927 of KCBvK (both sides to move
    // drawn throughout).
    assert_eq!(red_to_move("KCAvK"), (22_710, 22_710, 0, 0));
    let [red, black] = counts("KCBvK", Rules::Asian);
    assert_eq!((red.legal, red.draws, black.legal, black.draws), (33_927, 33_927, 33_966, 33_966));
}

#[test]
fn a_horse_against_a_crossed_pawn_is_a_book_draw() {
    // [S5]: 单马例和过河卒, a draw as long as the horse does not win the pawn. Black's pawn past
    // the river (ranks 0-4), every placement of the other pieces, the horse side (red) to move:
    // 23,286 of 205,641 won (11.3%), nearly all by taking a pawn left en prise; where neither the
    // horse nor the red king attacks the pawn, 135,054 of 136,746 are drawn (98.8%), 1,202 won
    // and 490 lost (the pawn mates).
    let crossed: Vec<Square> = Square::all().filter(|s| s.rank().index() <= 4).collect();
    let pos = placements(&[('K', vec![]), ('N', vec![]), ('k', vec![]), ('p', crossed)], Color::Red);
    assert_eq!(tally(&pos), [23_286, 181_388, 967]);
    let pawn = piece('p');
    let safe: Vec<Position> =
        pos.into_iter().filter(|p| p.attackers(square_of(p, pawn), Color::Red).is_empty()).collect();
    assert_eq!(tally(&safe), [1_202, 135_054, 490]);
}
