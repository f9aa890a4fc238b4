//! Broken input: every kind of damage is reported with its exact kind and location, and the
//! good games around it are still read.

use std::io::Cursor;

use qiku::pgn::{
    self, EncodingChoice, ErrorKind, GameResult, Location, Mode, OpenErrorKind, Reader, Skip, SyntaxError,
    TextEncoding, Visitor,
};

const FIXTURE: &str = include_str!("fixtures/pgn/three-games.pgn");

#[derive(Debug, Default, Clone, PartialEq)]
struct Game {
    event: String,
    moves: Vec<String>,
    result: Option<Option<GameResult>>,
    error: Option<SyntaxError>,
}

#[derive(Default)]
struct Games(Vec<Game>);

impl Games {
    fn good(&self) -> Vec<&Game> {
        self.0.iter().filter(|g| g.error.is_none()).collect()
    }
    fn errors(&self) -> Vec<(ErrorKind, Location)> {
        self.0.iter().filter_map(|g| g.error.as_ref().map(|e| (e.kind, e.location))).collect()
    }
    fn events(&self) -> Vec<&str> {
        self.good().iter().map(|g| g.event.as_str()).collect()
    }
}

impl Visitor for Games {
    fn begin_game(&mut self, _loc: Location) {
        self.0.push(Game::default());
    }
    fn tag(&mut self, name: &str, value: &str, _loc: Location) -> Skip {
        if let (Some(g), "Event") = (self.0.last_mut(), name) {
            g.event = value.to_string();
        }
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, _loc: Location) -> Skip {
        if let Some(g) = self.0.last_mut() {
            g.moves.push(token.to_string());
        }
        Skip::Continue
    }
    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        if let Some(g) = self.0.last_mut() {
            g.result = Some(result);
        }
    }
    fn end_game(&mut self, _loc: Location) {}
    fn malformed(&mut self, error: &SyntaxError) {
        if let Some(g) = self.0.last_mut() {
            assert!(g.error.is_none(), "one error per game");
            g.error = Some(error.clone());
        }
    }
}

fn read(bytes: &[u8]) -> Games {
    let mut games = Games::default();
    let n = Reader::new(bytes).read_all(&mut games).expect("in-memory input");
    assert_eq!(n as usize, games.0.len());
    games
}

fn game(event: &str, moves: &str) -> String {
    format!("[Event \"{event}\"]\n\n1. {moves} *\n\n")
}

#[test]
fn fixtures_read_cleanly() {
    let g = read(FIXTURE.as_bytes());
    assert_eq!(g.errors(), []);
    assert_eq!(g.events(), ["fixture 1", "fixture 2", "fixture 3"]);
    assert_eq!(g.0[0].moves, ["炮二平五", "馬８進７", "馬二進三", "車９平８"]);
    assert_eq!(g.0[1].moves, ["H2-E2", "H9-G7", "H0-G2", "I9-H9"]);
    assert_eq!(g.0[2].moves, ["h2e2", "h9g7", "h0g2", "i9h9"]);
    let results: Vec<_> = g.0.iter().map(|g| g.result).collect();
    assert_eq!(
        results,
        [Some(Some(GameResult::RedWins)), Some(Some(GameResult::BlackWins)), Some(Some(GameResult::Draw))]
    );

    let text = include_str!("fixtures/pgn/lines.txt");
    let mut games = Games::default();
    let mut reader = Reader::new(text.as_bytes());
    assert_eq!(reader.read_all(&mut games).expect("read"), 3);
    assert_eq!(reader.mode(), Mode::Lines);
    assert_eq!(games.0[0].moves, ["h2e2", "h9g7", "h0g2", "i9h9"]);
    assert_eq!(games.0[1].result, Some(Some(GameResult::RedWins)));
    assert_eq!(games.0[2].moves.len(), 4);
}

#[test]
fn broken_tag() {
    let text =
        [game("A", "h2e2"), "[Event \"B\"]\n[Red \"no end\n[Black \"x\"]\n\n1. h2e2 *\n\n".into(), game("C", "h2e2")]
            .concat();
    let g = read(text.as_bytes());
    assert_eq!(g.errors(), [(ErrorKind::BadTag("unterminated tag value"), Location::new(2, 6, 1))]);
    assert_eq!(g.events(), ["A", "C"]);
}

#[test]
fn unterminated_comment() {
    let text =
        [game("A", "h2e2"), "[Event \"B\"]\n\n1. h2e2 {never closed\nh9g7\n\n".into(), game("C", "b0c2")].concat();
    let g = read(text.as_bytes());
    assert_eq!(g.errors(), [(ErrorKind::UnterminatedComment, Location::new(2, 7, 9))]);
    assert_eq!(g.events(), ["A", "C"]);
    assert_eq!(g.good()[1].moves, ["b0c2"]);
}

#[test]
fn truncated_at_chosen_points() {
    let cases: [(&str, Option<(ErrorKind, Location)>); 5] = [
        // Mid-move: the reader cannot know the token is cut; the move parser will.
        ("1. 炮二平五 馬８進", None),
        // Mid-tag.
        ("[Event \"fixture 2", Some((ErrorKind::BadTag("unterminated tag value"), Location::new(2, 12, 1)))),
        // Mid-comment.
        ("1. H2-E2 {central ca", Some((ErrorKind::UnterminatedComment, Location::new(2, 15, 10)))),
        // Mid-variation.
        ("H0-G2 (2. B0-C2", Some((ErrorKind::UnclosedVariation, Location::new(2, 15, 42)))),
        // Inside a UTF-8 character (炮 is e7 82 ae; keep two of its bytes).
        ("1. \u{70ae}", Some((ErrorKind::InvalidUtf8, Location::new(1, 7, 4)))),
    ];
    for (cut_after, expected) in cases {
        let mut end = FIXTURE.find(cut_after).expect("cut point") + cut_after.len();
        if cut_after.ends_with('\u{70ae}') {
            end -= 1;
        }
        let g = read(&FIXTURE.as_bytes()[..end]);
        assert_eq!(g.errors(), expected.into_iter().collect::<Vec<_>>(), "cut after {cut_after:?}");
    }
}

/// Every prefix of the fixture: no panic, at most one error (in the last game), and every game
/// that ended before the cut is read exactly as from the whole file.
#[test]
fn truncated_everywhere() {
    let full = read(FIXTURE.as_bytes());
    let bytes = FIXTURE.as_bytes();
    for end in 0..=bytes.len() {
        let g = read(&bytes[..end]);
        let errors = g.errors();
        assert!(errors.len() <= 1, "cut at {end}: {errors:?}");
        if let Some((kind, loc)) = errors.first() {
            assert_eq!(loc.game as usize, g.0.len(), "cut at {end}: error not in the last game");
            assert!(
                matches!(
                    kind,
                    ErrorKind::BadTag(_)
                        | ErrorKind::UnterminatedComment
                        | ErrorKind::UnclosedVariation
                        | ErrorKind::InvalidUtf8
                        | ErrorKind::BadNag
                ),
                "cut at {end}: {kind:?}"
            );
        }
        // Games before the last one are complete.
        let complete = g.0.len().saturating_sub(1);
        assert_eq!(g.0[..complete], full.0[..complete], "cut at {end}");
    }
}

#[test]
fn binary_junk_between_games() {
    // A PNG header and some random-looking bytes pasted between two games.
    let mut bytes = game("A", "h2e2").into_bytes();
    bytes.extend_from_slice(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\x08\x06\xfa\xd3\n\x7f\x80\xff[\xee\n\n");
    bytes.extend_from_slice(game("C", "b0c2").as_bytes());
    let g = read(&bytes);
    // Line 5 starts with 0x89, not valid UTF-8: the junk is one broken game.
    assert_eq!(g.errors(), [(ErrorKind::InvalidUtf8, Location::new(2, 5, 1))]);
    assert_eq!(g.events(), ["A", "C"]);
}

#[test]
fn nul_bytes() {
    // A NUL inside a move, inside a tag value, and a NUL-padded tail (as after a crash).
    let text = [
        game("A", "h2e2"),
        game("B", "h2\0e2"),
        "[Event \"C\0\"]\n\n1. h2e2 *\n\n".into(),
        game("D", "b0c2"),
        "\0".repeat(1000),
    ]
    .concat();
    let g = read(text.as_bytes());
    assert_eq!(
        g.errors(),
        [
            (ErrorKind::ControlCharacter(0), Location::new(2, 7, 6)),
            (ErrorKind::ControlCharacter(0), Location::new(3, 9, 10)),
            (ErrorKind::ControlCharacter(0), Location::new(5, 17, 1)),
        ]
    );
    assert_eq!(g.events(), ["A", "D"]);
    // The move before the NUL was delivered (the error comes after it).
    assert_eq!(g.0[1].moves, ["h2"]);
}

#[test]
fn gbk_game_inside_a_utf8_file() {
    // Enough UTF-8 games that the detection sample (64 KiB) sees only UTF-8.
    let mut bytes = Vec::new();
    for i in 0..2000 {
        bytes.extend_from_slice(game(&format!("{i}"), "炮二平五 馬８進７").as_bytes());
    }
    let lines_before = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let (gbk, _, _) = encoding_rs::GBK.encode("[Event \"gbk\"]\n\n1. 炮二平五 马８进７ *\n\n");
    bytes.extend_from_slice(&gbk);
    bytes.extend_from_slice(game("last", "h2e2").as_bytes());

    let input = pgn::open_reader(Cursor::new(bytes), "mixed.pgn", EncodingChoice::Auto).expect("open");
    assert_eq!(input.encoding(), TextEncoding::Utf8);
    let mut g = Games::default();
    Reader::new(input).read_all(&mut g).expect("read");
    assert_eq!(g.0.len(), 2002);
    assert_eq!(g.good().len(), 2001);
    assert_eq!(g.errors(), [(ErrorKind::InvalidUtf8, Location::new(2001, lines_before + 3, 4))]);
    assert_eq!(g.good()[2000].event, "last");
}

#[test]
fn undecodable_bytes_in_a_big5_file() {
    let text = [game("A", "炮二平五"), game("B", "炮二平五 馬８進７"), game("C", "馬二進三")].concat();
    let (big5, _, _) = encoding_rs::BIG5.encode(&text);
    let mut bytes = big5.into_owned();
    // Overwrite 馬 in game B with two 0xFF bytes (not a Big5 lead byte).
    let (ma, _, _) = encoding_rs::BIG5.encode("馬");
    let at = bytes.windows(2).position(|w| w == &ma[..]).expect("馬 in B");
    bytes[at..at + 2].copy_from_slice(b"\xff\xff");
    let input = pgn::open_reader(Cursor::new(bytes), "damaged.pgn", EncodingChoice::Auto).expect("open");
    assert_eq!(input.encoding(), TextEncoding::Big5);
    let mut g = Games::default();
    Reader::new(input).read_all(&mut g).expect("read");
    assert_eq!(g.errors(), [(ErrorKind::ReplacementCharacter, Location::new(2, 7, 9))]);
    assert_eq!(g.events(), ["A", "C"]);
    assert_eq!(g.0[1].moves, ["炮二平五"]);
}

#[test]
fn endless_line_of_junk() {
    let mut bytes = game("A", "h2e2").into_bytes();
    bytes.extend_from_slice(&vec![b'x'; 3 << 20]);
    bytes.extend_from_slice(b"\n\n");
    bytes.extend_from_slice(game("C", "b0c2").as_bytes());
    let mut g = Games::default();
    let mut reader = Reader::new(&bytes[..]);
    reader.read_all(&mut g).expect("read");
    assert_eq!(g.errors(), [(ErrorKind::LineTooLong, Location::new(2, 5, 1))]);
    assert_eq!(g.events(), ["A", "C"]);
    assert_eq!(reader.bytes_read(), bytes.len() as u64);
}

/// A tag line over the length limit is the error of the game it starts: the rest of that game
/// (its other tags and its moves) is skipped with it, not read as a game of its own, and a game
/// before it that has no result is not blamed for it.
#[test]
fn over_long_tag_line_is_the_error_of_its_game() {
    let long = format!("[Event \"{}\"]\n[Result \"0-1\"]\n\n1. c3c4 0-1\n\n", "y".repeat(200));
    // Game A ends with its result, game B (A's twin) without one: the long line follows each.
    let unfinished = "[Event \"B\"]\n\n1. h2e2\n\n";
    let text = [game("A", "h2e2"), long.clone(), unfinished.into(), long, game("C", "b0c2")].concat();
    let mut reader = Reader::new(text.as_bytes());
    reader.set_max_line_len(100);
    let mut g = Games::default();
    assert_eq!(reader.read_all(&mut g).expect("read"), 5);
    assert_eq!(
        g.errors(),
        [(ErrorKind::LineTooLong, Location::new(2, 5, 1)), (ErrorKind::LineTooLong, Location::new(4, 14, 1))]
    );
    assert_eq!(g.events(), ["A", "B", "C"]);
    assert_eq!(g.good()[1].moves, ["h2e2"]);
    let error = g.0[1].error.as_ref().expect("game 2 is broken");
    assert!(error.to_string().ends_with("near `[Event \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy`"), "{error}");
}

/// A move list (one game per line) whose first line is over the limit: that line is the first
/// game's error, and every later line is a game, read as usual.
#[test]
fn over_long_first_line_of_a_move_list() {
    let text = format!("{}\nh0g2 h9g7\nb0c2 1-0\n", "h2e2 h9g7 ".repeat(30));
    let mut reader = Reader::new(text.as_bytes());
    reader.set_max_line_len(100);
    let mut g = Games::default();
    assert_eq!(reader.read_all(&mut g).expect("read"), 3);
    assert_eq!(reader.mode(), Mode::Lines);
    assert_eq!(g.errors(), [(ErrorKind::LineTooLong, Location::new(1, 1, 1))]);
    assert_eq!(g.0[0].moves, [] as [&str; 0]);
    let moves: Vec<&[String]> = g.good().iter().map(|g| &g.moves[..]).collect();
    assert_eq!(moves, [&["h0g2", "h9g7"][..], &["b0c2"][..]]);
    assert_eq!(reader.bytes_read(), text.len() as u64);
}

#[test]
fn truncated_zstd_stream() {
    // Varied games, so that the compressed stream is long and the cut falls after the part
    // read for encoding detection.
    let mut text = String::new();
    let mut x = 12345u64;
    for i in 0..20_000 {
        text.push_str(&format!("[Event \"{i}\"]\n\n1."));
        for _ in 0..40 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = (x >> 33) as usize;
            let f = |k: usize| (b'a' + (k % 9) as u8) as char;
            text.push_str(&format!(" {}{}{}{}", f(m), m / 9 % 10, f(m / 90), m / 810 % 10));
        }
        text.push_str(" *\n\n");
    }
    let packed = zstd::encode_all(text.as_bytes(), 3).expect("compress");
    let cut = packed[..packed.len() * 2 / 3].to_vec();
    let input = pgn::open_reader(Cursor::new(cut), "cut.pgn.zst", EncodingChoice::Auto).expect("open");
    assert!(input.is_compressed());
    let mut g = Games::default();
    let err = Reader::new(input).read_all(&mut g).expect_err("truncated stream");
    assert!(err.to_string().starts_with("cut.pgn.zst: "), "{err}");
    // What came before the cut was read normally.
    assert!(g.0.len() > 1000 && g.0.len() < 20_000, "{}", g.0.len());
    assert_eq!(g.errors().len(), 0);
}

/// Move numbers in full-width digits (`１．`, `１２．．．`, as Chinese text writes them) are move
/// numbers, alone or glued to the move, as ASCII ones are; a full-width digit that starts a move
/// (an ordinal among tandem pawns, `１卒平２`) is not one.
#[test]
fn full_width_move_numbers() {
    let text = "１．炮二平五 馬８進７ ２． 馬二進三 １２．．．車９平８ ３ 1．兵七進一 １卒平２ *\n";
    let g = read(text.as_bytes());
    assert_eq!(g.errors(), []);
    assert_eq!(g.0[0].moves, ["炮二平五", "馬８進７", "馬二進三", "車９平８", "兵七進一", "１卒平２"]);
}

/// A file in UTF-16 without a byte-order mark is refused as not text, as before, but the message
/// says what it looks like and how to convert it, instead of calling it binary data.
#[test]
fn utf16_without_a_byte_order_mark_is_named_as_such() {
    let text = [game("A", "h2e2 h9g7"), game("中炮", "炮二平五 馬８進７"), game("C", "b0c2")].concat();
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    for (order, bytes) in [("UTF-16LE", le), ("UTF-16BE", be)] {
        let err = pgn::open_reader(Cursor::new(bytes), "u16.pgn", EncodingChoice::Auto).unwrap_err();
        assert_eq!(err.kind(), OpenErrorKind::NotText);
        let message = err.to_string();
        assert!(message.contains(&format!("this looks like {order} text without a byte-order mark")), "{message}");
        assert!(message.contains(&format!("iconv -f {order} -t UTF-8")), "{message}");
    }
    // Binary data with NULs on both kinds of offsets is still binary data.
    let mut x = 7u32;
    let junk: Vec<u8> = (0..4096)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            if x >> 28 == 0 {
                0
            } else {
                (x >> 16) as u8
            }
        })
        .collect();
    let err = pgn::open_reader(Cursor::new(junk), "junk.bin", EncodingChoice::Auto).unwrap_err();
    assert!(err.to_string().contains("binary data ("), "{err}");
}

/// One byte that is not UTF-8 in a UTF-8 file with many Chinese characters: the file is still
/// detected as UTF-8 (read as GBK, every character of it would be garbled), and only the game
/// holding the byte is reported, at the byte, quoting the text before it.
#[test]
fn a_stray_byte_in_utf8_text_is_one_games_error() {
    let mut bytes = Vec::new();
    for i in 0..50 {
        bytes.extend_from_slice(game(&format!("第{i}局"), "炮二平五 馬８進７ 馬二進三 車９平８").as_bytes());
    }
    // In game 3's Event tag (第2局), after `[Event "第`.
    let tag = "[Event \"第2局".as_bytes();
    let at = bytes.windows(tag.len()).position(|w| w == tag).expect("game 3") + "[Event \"第".len();
    bytes.insert(at, 0xe9);
    assert_eq!(pgn::detect_encoding(&bytes), TextEncoding::Utf8);
    let input = pgn::open_reader(Cursor::new(bytes), "stray.pgn", EncodingChoice::Auto).expect("open");
    assert_eq!(input.encoding(), TextEncoding::Utf8);
    let mut g = Games::default();
    Reader::new(input).read_all(&mut g).expect("read");
    assert_eq!(g.0.len(), 50);
    assert_eq!(g.errors(), [(ErrorKind::InvalidUtf8, Location::new(3, 9, 10))]);
    let error = g.0[2].error.as_ref().expect("game 3 is broken").to_string();
    assert_eq!(error, "game 3, line 9, column 10: bytes that are not UTF-8 near `[Event \"第\\xe9`");
    assert_eq!(g.good()[2].event, "第3局");
}
