//! WXF and Chinese notation: known moves with their exact ICCS meaning, the tandem-piece
//! conventions on hand-built positions, and round trips of every legal move of thousands of
//! positions (random games and sparse setups crowded with same-kind pieces on one file) in every
//! style, with a check that no two legal moves are written alike.

use qiku::notation::chinese::{self, Charset, Numerals, PlaceWords, Style};
use qiku::notation::{self, wxf, Notation, ParseMoveError};
use qiku::{Color, Move, Piece, Position, Role, Setup, Square};
use std::collections::HashMap;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The ICCS text of what `token` parses to, or the error's kind.
fn read(p: &Position, token: &str) -> String {
    match notation::parse_any(p, token) {
        Ok((m, _)) => m.to_string(),
        Err(e) => e.kind().to_string(),
    }
}

fn check(p: &Position, cases: &[(&str, &str)]) {
    for &(token, expected) in cases {
        assert_eq!(read(p, token), expected, "{token} in {}", p.fen());
    }
}

/// Plays a line given in any notation from the start position.
fn after(line: &[&str]) -> Position {
    let mut p = Position::startpos();
    for t in line {
        let (m, _) = notation::parse_any(&p, t).unwrap_or_else(|e| panic!("{t}: {e}"));
        p.make_move(m);
    }
    p
}

#[test]
fn known_opening_moves() {
    let start = Position::startpos();
    check(
        &start,
        &[
            ("炮二平五", "h2e2"),
            ("傌二進三", "h0g2"),
            ("兵七進一", "c3c4"),
            ("相三進五", "g0e2"),
            ("仕六進五", "d0e1"),
            ("炮八平五", "b2e2"),
            ("C2.5", "h2e2"),
            ("H2+3", "h0g2"),
            ("P7+1", "c3c4"),
            ("R1+2", "i0i2"),
            ("E7+5", "c0e2"),
            ("俥一平二", "illegal"),
            ("R1.2", "illegal"),
        ],
    );
    let black = after(&["炮二平五"]);
    check(
        &black,
        &[("馬８進７", "h9g7"), ("H8+7", "h9g7"), ("炮８平５", "h7e7"), ("卒３進１", "c6c5"), ("車９進１", "i9i8")],
    );
    let p = after(&["傌二進三", "馬８進７"]);
    check(&p, &[("俥一平二", "i0h0"), ("車一平二", "i0h0"), ("R1.2", "i0h0"), ("R1=2", "i0h0")]);
    let p = after(&["傌二進三", "馬８進７", "俥一平二"]);
    check(&p, &[("車９平８", "i9h9"), ("R9.8", "i9h9"), ("车9平8", "i9h9")]);
}

#[test]
fn two_rooks_on_a_file() {
    // Red rooks i2 and i0 on red's file 1; black to move never enters.
    let p = pos("4k4/9/9/9/9/9/9/8R/9/3K4R w - - 0 1");
    check(
        &p,
        &[
            ("前車進一", "i2i3"),
            ("前俥進一", "i2i3"),
            ("車前進一", "i2i3"),
            ("後車進一", "i0i1"),
            ("后车进一", "i0i1"),
            ("前車平二", "i2h2"),
            ("後車平二", "i0h0"),
            ("前車退一", "i2i1"),
            ("R+.2", "i2h2"),
            ("R-+1", "i0i1"),
            ("+R+1", "i2i3"),
            ("-R.2", "i0h0"),
            // The file alone fits both rooks here ...
            ("車一進一", "ambiguous"),
            ("R1+1", "ambiguous"),
            // ... but only the front one can go two steps (the rear one would land on it).
            ("車一進二", "i2i4"),
            ("中車進一", "no-such-piece"),
        ],
    );
    let m = |s: &str| Move::new(s[..2].parse().unwrap(), s[2..].parse().unwrap());
    assert_eq!(chinese::format(&p, m("i2i3")), "前車進一");
    assert_eq!(chinese::format(&p, m("i0h0")), "後車平二");
    assert_eq!(wxf::format(&p, m("i2i3")), "R++1");
    assert_eq!(wxf::format(&p, m("i0h0")), "R-.2");
    match notation::parse_any(&p, "車一進一") {
        Err(ParseMoveError::Ambiguous { candidates, .. }) => {
            let mut c: Vec<String> = candidates.iter().map(|m| m.to_string()).collect();
            c.sort();
            assert_eq!(c, ["i0i1", "i2i3"]);
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
}

#[test]
fn two_black_cannons_and_two_red_horses() {
    // Black cannons c7 (rear) and c4 (front: nearer red) on black's file 3.
    let p = pos("4k4/9/2c6/9/9/2c6/9/9/9/5K3 b - - 0 1");
    check(
        &p,
        &[
            ("後炮平四", "c7d7"),
            ("前炮平四", "c4d4"),
            ("後砲平4", "c7d7"),
            ("C-.4", "c7d7"),
            ("C+.4", "c4d4"),
            ("前炮進１", "c4c3"),
        ],
    );
    let m: Move = Move::new("c7".parse().unwrap(), "d7".parse().unwrap());
    assert_eq!(chinese::format(&p, m), "後炮平４");
    assert_eq!(wxf::format(&p, m), "C-.4");
    // Red horses e4 (front) and e2 on red's file 5.
    let p = pos("3k5/9/9/9/9/4N4/9/4N4/9/5K3 w - - 0 1");
    check(
        &p,
        &[
            ("前馬進三", "e4g5"),
            ("後馬進三", "e2g3"),
            ("前傌退四", "e4f2"),
            ("H++3", "e4g5"),
            ("H-+3", "e2g3"),
            ("馬五進三", "ambiguous"),
        ],
    );
}

#[test]
fn tandem_pawns_one_file() {
    // Three red pawns c7, c6, c5 on red's file 7.
    let p = pos("3k5/9/2P6/2P6/2P6/9/9/9/9/5K3 w - - 0 1");
    check(
        &p,
        &[
            ("前兵平六", "c7d7"),
            ("中兵平六", "c6d6"),
            ("後兵平六", "c5d5"),
            ("前兵進一", "c7c8"),
            ("兵七平六", "ambiguous"),
            ("P+.6", "c7d7"),
            ("P7.6", "c6d6"),
            ("P-.6", "c5d5"),
            ("一兵平六", "c7d7"),
            ("三兵平六", "c5d5"),
        ],
    );
    // Five red pawns c9..c5: ordinals from the front; WXF ++, P+, P7 (middle), P-, --.
    let p = pos("2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/5K3 w - - 0 1");
    let cases = [
        ("c9d9", "一兵平六", "++.6"),
        ("c8d8", "二兵平六", "P+.6"),
        ("c7d7", "三兵平六", "P7.6"),
        ("c6d6", "四兵平六", "P-.6"),
        ("c5d5", "五兵平六", "--.6"),
    ];
    for (iccs, cn, w) in cases {
        let m = Move::new(iccs[..2].parse().unwrap(), iccs[2..].parse().unwrap());
        assert_eq!(chinese::format(&p, m), cn);
        assert_eq!(wxf::format(&p, m), w);
        check(&p, &[(cn, iccs), (w, iccs)]);
    }
    // Lenient readings: 前/後 and the xqbase letters for the extremes.
    check(&p, &[("前兵平六", "c9d9"), ("後兵平六", "c5d5"), ("Pa.6", "c9d9"), ("Pe.6", "c5d5"), ("+P.6", "c8d8")]);
    // Four black pawns c1..c4 (front = c1, nearest red): 一..四; WXF ++, P+, P-, --.
    let p = pos("4k4/9/9/9/9/2p6/2p6/2p6/2p6/5K3 b - - 0 1");
    let cases = [
        ("c1d1", "一卒平４", "++.4"),
        ("c2d2", "二卒平４", "P+.4"),
        ("c3d3", "三卒平４", "P-.4"),
        ("c4d4", "四卒平４", "--.4"),
    ];
    for (iccs, cn, w) in cases {
        let m = Move::new(iccs[..2].parse().unwrap(), iccs[2..].parse().unwrap());
        assert_eq!(chinese::format(&p, m), cn);
        assert_eq!(wxf::format(&p, m), w);
        check(&p, &[(cn, iccs), (w, iccs)]);
    }
}

#[test]
fn tandem_pawns_two_files() {
    // Red pawns c6, c5 (file 7) and g6, g5 (file 3). Ordinals go file by file from red's right:
    // g6 一, g5 二, c6 三, c5 四. WXF writes the file first: 3+, 3-, 7+, 7-.
    let p = pos("3k5/9/9/2P3P2/2P3P2/9/9/9/9/5K3 w - - 0 1");
    let cases = [
        ("g6f6", "一兵平四", "3+.4"),
        ("g5f5", "二兵平四", "3-.4"),
        ("c6d6", "三兵平六", "7+.6"),
        ("c5d5", "四兵平六", "7-.6"),
    ];
    for (iccs, cn, w) in cases {
        let m = Move::new(iccs[..2].parse().unwrap(), iccs[2..].parse().unwrap());
        assert_eq!(chinese::format(&p, m), cn);
        assert_eq!(wxf::format(&p, m), w);
        check(&p, &[(cn, iccs), (w, iccs)]);
    }
    check(
        &p,
        &[
            ("前兵七平六", "c6d6"),
            ("後兵三平四", "g5f5"),
            // 前兵 names both front pawns; only c6 can reach file 6, but both can advance.
            ("前兵平六", "c6d6"),
            ("前兵進一", "ambiguous"),
            ("P+.6", "c6d6"),
            ("P+.4", "g6f6"),
            ("P++1", "ambiguous"),
        ],
    );
    // Three on file 7 (c7, c6, c5) and two on file 3 (g6, g5): g6 g5 c7 c6 c5 = 一..五; the
    // middle pawn of file 7 in WXF is 77.
    let p = pos("3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/5K3 w - - 0 1");
    let cases = [
        ("g6f6", "一兵平四", "3+.4"),
        ("c7d7", "三兵平六", "7+.6"),
        ("c6d6", "四兵平六", "77.6"),
        ("c5d5", "五兵平六", "7-.6"),
    ];
    for (iccs, cn, w) in cases {
        let m = Move::new(iccs[..2].parse().unwrap(), iccs[2..].parse().unwrap());
        assert_eq!(chinese::format(&p, m), cn);
        assert_eq!(wxf::format(&p, m), w);
        check(&p, &[(cn, iccs), (w, iccs)]);
    }
    check(&p, &[("中兵平六", "c6d6"), ("中兵七平六", "c6d6"), ("中兵三平四", "no-such-piece")]);
}

#[test]
fn advisors_and_elephants_sharing_a_file_use_the_file() {
    // Red advisors d0 and d2 on file 6: each can go only one way.
    let p = pos("3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1");
    check(&p, &[("仕六進五", "d0e1"), ("仕六退五", "d2e1"), ("A6+5", "d0e1"), ("A6-5", "d2e1"), ("前仕退五", "d2e1")]);
    let m = Move::new("d2".parse().unwrap(), "e1".parse().unwrap());
    assert_eq!(chinese::format(&p, m), "仕六退五");
    assert_eq!(wxf::format(&p, m), "A6-5");
}

// ---------------------------------------------------------------------------------------------
// Round trips.

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
}

fn styles() -> Vec<Style> {
    let mut v = Vec::new();
    for charset in [Charset::Traditional, Charset::Simplified] {
        for red in [Numerals::Chinese, Numerals::FullWidth, Numerals::Ascii] {
            for black in [Numerals::Chinese, Numerals::FullWidth, Numerals::Ascii] {
                for place in [PlaceWords::Always, PlaceWords::WhenNeeded] {
                    v.push(Style { charset, red, black, place });
                }
            }
        }
    }
    v
}

#[derive(Default)]
struct Tally {
    positions: usize,
    moves: usize,
    /// Moves whose Chinese text needed a place word (前/中/後 or an ordinal).
    tandem_chinese: usize,
    /// ... an ordinal 一..五 (four or five tandem pawns).
    ordinal_chinese: usize,
    /// WXF texts naming a pawn by file first (two tandem files: `3+.4`).
    wxf_two_files: usize,
    /// WXF `++`/`--` (four or five pawns on one file).
    wxf_extremes: usize,
}

/// Every legal move of `p` written in WXF and every Chinese style parses back to itself, also
/// through `parse_any`, and no two moves share a text.
fn round_trip(p: &Position, styles: &[Style], tally: &mut Tally) {
    let moves = p.moves();
    tally.positions += 1;
    tally.moves += moves.len();
    let mut seen: HashMap<String, Move> = HashMap::new();
    let mut unique = |text: String, m: Move| {
        if let Some(other) = seen.insert(text.clone(), m) {
            panic!("{text} written for both {other} and {m} in {}", p.fen());
        }
    };
    for &m in moves.iter() {
        let w = wxf::format(p, m);
        assert_eq!(wxf::parse(p, &w), Ok(m), "WXF {w} in {}", p.fen());
        assert_eq!(notation::parse_any(p, &w), Ok((m, Notation::Wxf)), "{w}");
        assert_eq!(wxf::parse(p, &w.to_ascii_lowercase()), Ok(m), "WXF {w} lowercase in {}", p.fen());
        tally.wxf_two_files += w.starts_with(|c: char| c.is_ascii_digit()) as usize;
        tally.wxf_extremes += (w.starts_with("++") || w.starts_with("--")) as usize;
        unique(w, m);
        let c = chinese::format(p, m);
        assert_eq!(notation::parse_any(p, &c), Ok((m, Notation::Chinese)), "{c}");
        if !c.starts_with(|ch: char| "馬車炮兵卒帥將仕士相象".contains(ch)) {
            tally.tandem_chinese += 1;
            tally.ordinal_chinese += c.starts_with(|ch: char| "一二三四五".contains(ch)) as usize;
        }
        unique(c, m);
        for &style in styles {
            let c = chinese::format_with(p, m, style);
            assert_eq!(chinese::parse(p, &c), Ok(m), "{c} ({style:?}) in {}", p.fen());
        }
    }
    // Uniqueness per style, for the styles not covered by the shared set above.
    for &style in styles {
        let mut texts: Vec<String> = moves.iter().map(|&m| chinese::format_with(p, m, style)).collect();
        texts.sort();
        texts.dedup();
        assert_eq!(texts.len(), moves.len(), "{style:?} repeats a text in {}", p.fen());
    }
}

#[test]
fn round_trip_random_games() {
    let styles = styles();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut tally = Tally::default();
    for _game in 0..40 {
        let mut p = Position::startpos();
        for _ply in 0..150 {
            let moves = p.moves();
            if moves.is_empty() {
                break;
            }
            round_trip(&p, &styles, &mut tally);
            p.make_move(rng.pick(&moves));
        }
    }
    eprintln!("random games: {} positions, {} moves", tally.positions, tally.moves);
    assert!(tally.positions > 3000, "{}", tally.positions);
}

/// A random legal sparse position whose theme crowds same-kind pieces onto files.
fn crowded_position(rng: &mut Rng) -> Option<Position> {
    let mut setup = Setup::empty();
    let us = if rng.below(2) == 0 { Color::Red } else { Color::Black };
    setup.turn = us;
    let reach = |piece: Piece| Position::reachable_squares(piece).collect::<Vec<Square>>();
    let free = |setup: &Setup, sq: Square| setup.piece_at(sq).is_none();
    for color in Color::ALL {
        let king = Piece::new(color, Role::King);
        setup.set(rng.pick(&reach(king)), Some(king));
    }
    // The theme: several pieces of one kind on one or two files, for either side.
    let side = if rng.below(4) == 0 { !us } else { us };
    let role = rng.pick(&[
        Role::Pawn,
        Role::Pawn,
        Role::Pawn,
        Role::Rook,
        Role::Cannon,
        Role::Horse,
        Role::Advisor,
        Role::Elephant,
    ]);
    let piece = Piece::new(side, role);
    let squares = reach(piece);
    let files = if role == Role::Pawn && rng.below(3) == 0 { 2 } else { 1 };
    let mut left = role.max_count() as usize;
    for f in 0..files {
        let file = rng.below(9);
        let on_file: Vec<Square> = squares.iter().copied().filter(|s| s.file().index() == file).collect();
        let want = if role == Role::Pawn {
            if files == 2 {
                2 + (f == 0 && rng.below(2) == 0) as usize
            } else {
                2 + rng.below(4)
            }
        } else {
            2
        };
        for _ in 0..want.min(left) {
            for _try in 0..10 {
                if on_file.is_empty() {
                    break;
                }
                let sq = rng.pick(&on_file);
                if free(&setup, sq) {
                    setup.set(sq, Some(piece));
                    left -= 1;
                    break;
                }
            }
        }
    }
    // A few other pieces anywhere they may stand.
    for _ in 0..rng.below(8) {
        let other = Piece::new(if rng.below(2) == 0 { Color::Red } else { Color::Black }, rng.pick(&Role::ALL[1..]));
        let sq = rng.pick(&reach(other));
        let count = Square::all().filter(|&s| setup.piece_at(s) == Some(other)).count() as u32;
        if free(&setup, sq) && count < other.role.max_count() {
            setup.set(sq, Some(other));
        }
    }
    Position::from_setup(&setup).ok().filter(|p| !p.moves().is_empty())
}

#[test]
fn round_trip_crowded_endgames() {
    let styles = styles();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut tally = Tally::default();
    let mut built = 0;
    while built < 3000 {
        let Some(mut p) = crowded_position(&mut rng) else { continue };
        built += 1;
        // The setup itself and a few plies of random play from it.
        for _ in 0..4 {
            round_trip(&p, &styles, &mut tally);
            let moves = p.moves();
            if moves.is_empty() {
                break;
            }
            p.make_move(rng.pick(&moves));
            if p.moves().is_empty() {
                break;
            }
        }
    }
    eprintln!(
        "crowded: {} positions, {} moves; Chinese place words {} (ordinals {}); WXF two-file {}, ++/-- {}",
        tally.positions,
        tally.moves,
        tally.tandem_chinese,
        tally.ordinal_chinese,
        tally.wxf_two_files,
        tally.wxf_extremes
    );
    assert!(tally.positions > 6000, "{}", tally.positions);
    // The themes must really exercise every tandem rule.
    assert!(tally.tandem_chinese > 5000, "{}", tally.tandem_chinese);
    assert!(tally.ordinal_chinese > 1000, "{}", tally.ordinal_chinese);
    assert!(tally.wxf_two_files > 1000, "{}", tally.wxf_two_files);
    assert!(tally.wxf_extremes > 300, "{}", tally.wxf_extremes);
}

/// A position argument's errors quote a long input in part (the first 80 characters and `...`),
/// never whole: a 100,000-character FEN, move or word came back in full.
#[test]
fn position_errors_quote_long_inputs_in_part() {
    use qiku::notation::spec::{parse_position_args, parse_position_spec};
    let long = "a".repeat(100_000);
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let errors = [
        parse_position_spec(&long).unwrap_err(),
        parse_position_spec(&format!("startpos moves {long}")).unwrap_err(),
        parse_position_spec(&format!("{start} {long}")).unwrap_err(),
        parse_position_args(&[long.clone(), "b".into()]).unwrap_err(),
    ];
    for e in errors {
        let text = e.to_string();
        assert!(text.len() < 1000, "{} bytes: {}...", text.len(), &text[..200]);
        assert!(text.contains(&format!("{}...", "a".repeat(80))), "{text}");
    }
}

/// A side-to-move field that is neither `w`, `r` nor `b` is the FEN's error, not a word after it:
/// `BOARD x - - 0 1` said `unexpected "x" after the FEN ... (write moves before the moves)`. A
/// move written there without `moves` is still told to write `moves`.
#[test]
fn a_bad_side_to_move_is_named_as_such() {
    use qiku::notation::spec::parse_position_spec;
    let board = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
    for side in ["x", "red", "B2"] {
        let text = parse_position_spec(&format!("{board} {side} - - 0 1")).unwrap_err().to_string();
        assert!(text.contains(&format!("side to move {side:?} is not w, r or b")), "{text}");
        assert!(!text.contains("write `moves`"), "{text}");
    }
    for mv in ["h2e2", "C2.5", "炮二平五", "h2h9"] {
        let text = parse_position_spec(&format!("{board} {mv}")).unwrap_err().to_string();
        assert!(text.contains("write `moves` before the moves"), "{mv}: {text}");
    }
}

/// A check, mate or annotation mark after a move is read past alike in the three notations (WXF
/// read it already; ICCS and Chinese refused it), and the move is the one without the mark.
#[test]
fn check_and_annotation_marks_in_every_notation() {
    let start = Position::startpos();
    for token in
        ["h2e2+", "H2-E2+", "h2e2#", "h2e2!", "h2e2?!", "C2.5+", "C2.5#", "炮二平五+", "炮二平五#", "炮二平五!?"]
    {
        assert_eq!(read(&start, token), "h2e2", "{token}");
    }
    let black = after(&["h2e2"]);
    check(&black, &[("h9g7+", "h9g7"), ("H8+7+", "h9g7"), ("馬８進７+", "h9g7"), ("馬８進７#", "h9g7")]);
    // Each parser alone, not only through the detection.
    assert_eq!(notation::iccs::parse(&start, "h0g2+").map(|m| m.to_string()), Ok("h0g2".to_string()));
    assert_eq!(chinese::parse(&start, "馬二進三+").map(|m| m.to_string()), Ok("h0g2".to_string()));
    assert_eq!(wxf::parse(&start, "H2+3+").map(|m| m.to_string()), Ok("h0g2".to_string()));
    // A mark makes no bad move good, and the error quotes the token as written.
    assert_eq!(notation::iccs::parse(&start, "a0a4+"), Err(ParseMoveError::Illegal { token: "a0a4+".into() }));
    assert_eq!(read(&start, "+"), "syntax");
    assert_eq!(read(&start, "炮二平+"), "syntax");
}

/// A WXF move that fits two pieces is explained as that, not also as a bad ICCS square (the
/// token is no ICCS move, so its ICCS reading says nothing); a token no notation reads still
/// gets each notation's reason.
#[test]
fn an_ambiguous_wxf_move_is_not_also_explained_as_iccs() {
    use notation::spec::{parse_position_spec, read_move, tried_reasons};
    let rooks = pos("5k3/9/9/9/4R4/9/9/4R4/9/3K5 w");
    let tried = read_move(&rooks, "R5+1").unwrap_err();
    assert_eq!(tried_reasons(&tried), "read as WXF: ambiguous, it fits e2e3 and e5e6");
    let err = parse_position_spec("5k3/9/9/9/4R4/9/9/4R4/9/3K5 w moves R5+1").unwrap_err().to_string();
    assert!(err.contains("read as WXF: ambiguous") && !err.contains("read as ICCS"), "{err}");
    // ICCS read it, and found the move illegal: WXF's reading is left out.
    let tried = read_move(&Position::startpos(), "a0a4").unwrap_err();
    assert_eq!(tried_reasons(&tried), "read as ICCS: not a legal move in this position");
    // Neither reads it: both reasons.
    let tried = read_move(&Position::startpos(), "h2j2").unwrap_err();
    assert_eq!(tried.len(), 2, "{}", tried_reasons(&tried));
}
