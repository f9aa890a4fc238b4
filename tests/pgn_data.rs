//! Reads the real game collections in `books/games/` (see its README; copied from the CC BY 4.0 collections) and checks exact game
//! counts, first moves, encoding detection, agreement between the encodings, and that there are
//! no syntax errors. Run in release mode: `cargo test --release --test qiku pgn_data::`.
//!
//! The expected counts were established independently of this code:
//! `zstdcat ccpd-iccs.pgn.zst | grep -c '^\[Event'` (25,368),
//! `zstdcat ccpd-chinese-utf8.pgn.zst | grep -c '^\[Event'` (25,372),
//! `iconv -f CP950 ccpd-sample-big5.pgn | grep -c '^\[Event'` (2,000),
//! `iconv -f GB18030 ccpd-sample-gbk.pgn | grep -c '^\[Event'` (2,000),
//! `grep -c '^\[Event' wukong-hu-ronghua-uci.pgn` (1,391); result tokens by
//! `grep -v '^\[' | tr ' ' '\n' | sort | uniq -c`.

use std::collections::BTreeMap;
use std::path::Path;

use qiku::pgn::{self, EncodingChoice, GameResult, Location, Reader, Skip, SyntaxError, TextEncoding, Visitor};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games");

/// Collects every game's tags (a few), move tokens and result.
#[derive(Default)]
struct Collect {
    games: Vec<Game>,
    errors: Vec<SyntaxError>,
}

#[derive(Default, Clone, Debug)]
struct Game {
    source: String,
    moves: Vec<String>,
    result: Option<Option<GameResult>>,
    first_move_loc: Option<Location>,
    start: Location,
}

impl Visitor for Collect {
    fn begin_game(&mut self, loc: Location) {
        self.games.push(Game { start: loc, ..Game::default() });
    }

    fn tag(&mut self, name: &str, value: &str, _loc: Location) -> Skip {
        if name == "Source" {
            if let Some(g) = self.games.last_mut() {
                g.source = value.to_string();
            }
        }
        Skip::Continue
    }

    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        if let Some(g) = self.games.last_mut() {
            g.first_move_loc.get_or_insert(loc);
            g.moves.push(token.to_string());
        }
        Skip::Continue
    }

    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        if let Some(g) = self.games.last_mut() {
            g.result = Some(result);
        }
    }

    fn end_game(&mut self, _loc: Location) {}

    fn malformed(&mut self, error: &SyntaxError) {
        self.errors.push(error.clone());
    }
}

fn read(file: &str, choice: EncodingChoice) -> (TextEncoding, bool, Collect) {
    let path = Path::new(DATA).join(file);
    let input = pgn::open(&path, choice).unwrap_or_else(|e| panic!("{e}"));
    let (encoding, compressed) = (input.encoding(), input.is_compressed());
    let mut c = Collect::default();
    let mut reader = Reader::new(input);
    let n = reader.read_all(&mut c).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n as usize, c.games.len());
    assert_eq!(reader.mode(), pgn::Mode::Pgn);
    (encoding, compressed, c)
}

fn results(c: &Collect) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for g in &c.games {
        let key = match g.result {
            None => "none".to_string(),
            Some(None) => "*".to_string(),
            Some(Some(r)) => r.to_string(),
        };
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

fn no_errors(c: &Collect) {
    let shown: Vec<String> = c.errors.iter().take(5).map(|e| e.to_string()).collect();
    assert!(c.errors.is_empty(), "{} syntax errors, first: {shown:#?}", c.errors.len());
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn ccpd_iccs() {
    let (enc, compressed, c) = read("ccpd-iccs.pgn.zst", EncodingChoice::Auto);
    assert_eq!(enc, TextEncoding::Utf8);
    assert!(compressed);
    no_errors(&c);
    assert_eq!(c.games.len(), 25_368);
    let first = &c.games[0];
    assert_eq!(strs(&first.moves[..6]), ["H2-E2", "H9-G7", "H0-G2", "I9-H9", "I0-H0", "G6-G5"]);
    assert_eq!(first.moves.len(), 51); // 26. F7-F8 1-0
    assert_eq!(first.result, Some(Some(GameResult::RedWins)));
    assert_eq!(first.first_move_loc, Some(Location::new(1, 11, 4)));
    assert_eq!(first.source, "CCPD:Dataset/對局/大師對局/以棋手分類/吳貴臨/00000001.pgn");
    let last = &c.games[25_367];
    assert_eq!(last.start.game, 25_368);
    let r = results(&c);
    assert_eq!(r.get("1-0"), Some(&9826));
    assert_eq!(r.get("0-1"), Some(&6857));
    assert_eq!(r.get("1/2-1/2"), Some(&8558));
    assert_eq!(r.get("*"), Some(&127));
    assert_eq!(r.get("none"), None);
    // Every token is an ICCS move.
    for g in &c.games {
        for m in &g.moves {
            let b = m.as_bytes();
            assert!(
                b.len() == 5
                    && (b'A'..=b'I').contains(&b[0])
                    && b[1].is_ascii_digit()
                    && b[2] == b'-'
                    && (b'A'..=b'I').contains(&b[3])
                    && b[4].is_ascii_digit(),
                "{m:?} in game {}",
                g.start.game
            );
        }
    }
}

#[test]
fn ccpd_chinese_utf8() {
    let (enc, compressed, c) = read("ccpd-chinese-utf8.pgn.zst", EncodingChoice::Auto);
    assert_eq!(enc, TextEncoding::Utf8);
    assert!(compressed);
    no_errors(&c);
    assert_eq!(c.games.len(), 25_372);
    let first = &c.games[0];
    assert_eq!(strs(&first.moves[..4]), ["炮二平五", "馬８進７", "馬二進三", "車９平８"]);
    assert_eq!(first.moves.len(), 51);
    assert_eq!(first.moves[50], "兵四進一");
    assert_eq!(first.result, Some(Some(GameResult::RedWins)));
    // Line 15 is "1. 炮二平五 馬８進７": columns count characters.
    assert_eq!(first.first_move_loc, Some(Location::new(1, 15, 4)));
    let r = results(&c);
    assert_eq!(r.get("1-0"), Some(&9826));
    assert_eq!(r.get("0-1"), Some(&6857));
    assert_eq!(r.get("1/2-1/2"), Some(&8559));
    assert_eq!(r.get("*"), Some(&130));
    for g in &c.games {
        for m in &g.moves {
            assert_eq!(m.chars().count(), 4, "{m:?} in game {}", g.start.game);
        }
    }
}

#[test]
fn wukong_coordinates() {
    let (enc, compressed, c) = read("wukong-hu-ronghua-uci.pgn", EncodingChoice::Auto);
    assert_eq!(enc, TextEncoding::Utf8);
    assert!(!compressed);
    no_errors(&c);
    assert_eq!(c.games.len(), 1_391);
    let first = &c.games[0];
    assert_eq!(strs(&first.moves[..5]), ["g0e2", "b9c7", "g3g4", "c6c5", "h0g2"]);
    assert_eq!(first.moves.len(), 65); // ends "33. d9f8 "
    assert_eq!(first.moves[64], "d9f8");
    // The file has no result tokens.
    assert!(c.games.iter().all(|g| g.result.is_none()));
}

/// Traditional to simplified for the characters that differ in the GBK sample's movetext.
fn simplify(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '馬' => '马',
            '車' => '车',
            '進' => '进',
            '帥' => '帅',
            '將' => '将',
            '後' => '后',
            c => c,
        })
        .collect()
}

#[test]
fn big5_and_gbk_samples_match_utf8() {
    let (_, _, utf8) = read("ccpd-chinese-utf8.pgn.zst", EncodingChoice::Auto);

    let (enc, compressed, big5) = read("ccpd-sample-big5.pgn", EncodingChoice::Auto);
    assert_eq!(enc, TextEncoding::Big5);
    assert!(!compressed);
    no_errors(&big5);
    assert_eq!(big5.games.len(), 2_000);
    // The Big5 sample is the first 2,000 games of the UTF-8 file, same characters.
    for (b, u) in big5.games.iter().zip(&utf8.games[..2_000]) {
        assert_eq!(b.source, u.source);
        assert_eq!(b.moves, u.moves, "{}", b.source);
        assert_eq!(b.result, u.result, "{}", b.source);
    }

    let (enc, _, gbk) = read("ccpd-sample-gbk.pgn", EncodingChoice::Auto);
    assert_eq!(enc, TextEncoding::Gbk);
    no_errors(&gbk);
    assert_eq!(gbk.games.len(), 2_000);
    // The GBK sample is the next 2,000 games, with simplified piece names.
    assert!(gbk.games.iter().any(|g| g.moves.iter().any(|m| m.contains('马'))));
    for (g, u) in gbk.games.iter().zip(&utf8.games[2_000..4_000]) {
        assert_eq!(g.source, u.source);
        let simplified: Vec<String> = u.moves.iter().map(|m| simplify(m)).collect();
        assert_eq!(g.moves, simplified, "{}", g.source);
        assert_eq!(g.result, u.result, "{}", g.source);
    }
}

/// What a wrong forced encoding does. Automatic detection (tested above) is the real defence.
#[test]
fn wrong_forced_encoding() {
    // Big5 bytes read as UTF-8: every game is reported (its Source tag has Chinese characters),
    // the first at the first non-ASCII byte of line 1, and none is delivered as good.
    let (_, _, c) = read("ccpd-sample-big5.pgn", EncodingChoice::Utf8);
    assert_eq!(c.games.len(), 2_000);
    assert_eq!(c.errors.len(), 2_000);
    assert!(c.errors.iter().all(|e| e.kind == pgn::ErrorKind::InvalidUtf8));
    assert_eq!(c.errors[0].location, Location::new(1, 1, 23));
    assert_eq!(
        c.errors[0].to_string(),
        "game 1, line 1, column 23: bytes that are not UTF-8 near `[Source \"CCPD:Dataset/\\xb9`"
    );

    // GBK bytes read as Big5: nearly every GBK byte pair is also a valid Big5 pair, so this
    // decodes without a single replacement character into the wrong characters. The reader
    // cannot tell (it knows no notation); the move parser will reject these tokens.
    let (_, _, c) = read("ccpd-sample-gbk.pgn", EncodingChoice::Big5);
    no_errors(&c);
    assert_eq!(c.games.len(), 2_000);
    assert_eq!(strs(&c.games[0].moves[..2]), ["蘿媼ⅸ拻", "蘿ㄧⅸㄤ"]);
    assert!(c.games.iter().all(|g| g.moves.iter().all(|m| !m.contains('炮') && !m.contains('马'))));
}
