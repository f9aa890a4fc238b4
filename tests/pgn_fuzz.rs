//! Random and mutated input: the reader must never panic, must always terminate having consumed
//! the whole input, and must keep the visitor protocol (balanced games, one error per game at
//! most, nothing after an error, locations in order) whatever it is fed.
//!
//! Deeper fuzzing: `cargo +nightly fuzz run pgn_reader` in `fuzz/`.

use std::io::Cursor;

use proptest::prelude::*;
use qiku::pgn::{
    self, EncodingChoice, GameResult, Location, Mode, Reader, Skip, SyntaxError, TextEncoding, Transcoder, Visitor,
};

/// Checks the callback protocol as it happens.
#[derive(Default)]
struct Checker {
    in_game: bool,
    game: u64,
    broken: bool,
    last: (u64, u32),
    games: u64,
    enter: bool,
    depth: u32,
}

impl Checker {
    fn at(&mut self, loc: Location) {
        assert!(self.in_game, "callback outside a game");
        assert!(!self.broken, "callback after malformed");
        assert_eq!(loc.game, self.game);
        assert!(loc.line >= 1 && loc.column >= 1, "{loc:?}");
        assert!((loc.line, loc.column) >= self.last, "{loc:?} before {:?}", self.last);
        self.last = (loc.line, loc.column);
    }
}

impl Visitor for Checker {
    fn begin_game(&mut self, loc: Location) {
        assert!(!self.in_game, "nested begin_game");
        self.in_game = true;
        self.broken = false;
        self.game += 1;
        self.depth = 0;
        self.at(loc);
    }
    fn tag(&mut self, name: &str, _value: &str, loc: Location) -> Skip {
        assert!(!name.is_empty());
        self.at(loc);
        Skip::Continue
    }
    fn begin_movetext(&mut self, loc: Location) -> Skip {
        self.at(loc);
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        assert!(!token.is_empty() && !token.contains(char::is_whitespace), "{token:?}");
        self.at(loc);
        Skip::Continue
    }
    fn comment(&mut self, _text: &str, loc: Location) {
        self.at(loc);
    }
    fn nag(&mut self, _nag: u16, loc: Location) {
        self.at(loc);
    }
    fn begin_variation(&mut self, loc: Location) -> Skip {
        self.at(loc);
        if self.enter {
            self.depth += 1;
            Skip::Continue
        } else {
            Skip::SkipVariation
        }
    }
    fn end_variation(&mut self) {
        assert!(self.depth > 0, "unbalanced end_variation");
        self.depth -= 1;
    }
    fn outcome(&mut self, _result: Option<GameResult>, loc: Location) {
        self.at(loc);
    }
    fn end_game(&mut self, loc: Location) {
        assert!(self.in_game, "end_game without begin_game");
        assert_eq!(loc.game, self.game);
        self.in_game = false;
        self.games += 1;
    }
    fn malformed(&mut self, error: &SyntaxError) {
        assert!(self.in_game && !self.broken, "second error in a game");
        assert_eq!(error.location.game, self.game);
        assert!(!error.to_string().is_empty());
        self.broken = true;
    }
}

fn check_reader(bytes: &[u8], mode: Mode, enter: bool) {
    let mut v = Checker { enter, ..Checker::default() };
    let mut reader = Reader::with_mode(bytes, mode);
    reader.set_max_line_len(256);
    let n = reader.read_all(&mut v).expect("in-memory input");
    assert!(!v.in_game);
    assert_eq!(n, v.games);
    assert_eq!(reader.bytes_read(), bytes.len() as u64, "input not fully consumed");
    // Reading past the end stays at the end.
    assert!(!reader.read_game(&mut v).expect("in-memory input"));
}

fn check_all(bytes: &[u8]) {
    for mode in [Mode::Auto, Mode::Pgn, Mode::Lines] {
        check_reader(bytes, mode, false);
    }
    check_reader(bytes, Mode::Pgn, true);
    // Through the decoders, as `open` would do it.
    for enc in [TextEncoding::Gbk, TextEncoding::Big5, TextEncoding::Utf16Le] {
        let mut v = Checker::default();
        Reader::new(Transcoder::new(bytes, enc)).read_all(&mut v).expect("in-memory input");
    }
    let input = pgn::open_reader(Cursor::new(bytes.to_vec()), "fuzz", EncodingChoice::Auto);
    if let Ok(input) = input {
        let mut v = Checker::default();
        // A stream that looks like zstd may fail with an I/O error; that is fine.
        let _ = Reader::new(input).read_all(&mut v);
    }
}

/// Fragments that exercise the grammar; random concatenations of them reach far deeper than
/// random bytes.
const FRAGMENTS: &[&[u8]] = &[
    b"[Event \"x\"]\n",
    b"[Red \"a\\\"b\"]",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"{",
    b"}",
    b"(",
    b")",
    b";",
    b"$",
    b"$7",
    b"%",
    b"!",
    b"?",
    b"1.",
    b"12...",
    b"1-0",
    b"0-1",
    b"1/2-1/2",
    b"*",
    b"h2e2",
    b"H2-E2",
    "炮二平五".as_bytes(),
    "馬８進７".as_bytes(),
    "\u{3000}".as_bytes(),
    "\u{FEFF}".as_bytes(),
    "\u{FFFD}".as_bytes(),
    b" ",
    b"\t",
    b"\n",
    b"\n\n",
    b"\r\n",
    b"\r",
    b"\0",
    b"\x1b",
    b"\xff",
    b"\xe7\x82",
    b"\x28\xb5\x2f\xfd",
    "１２．".as_bytes(),
    "．".as_bytes(),
    b"+",
    // Longer than the 256-byte line limit the checks set: over-long tag lines, movetext and
    // move lists.
    &[b'x'; 300],
];

fn fragment_soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0..FRAGMENTS.len(), 0..200)
        .prop_map(|ix| ix.into_iter().flat_map(|i| FRAGMENTS[i].iter().copied()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_all(&bytes);
    }

    #[test]
    fn grammar_soup(bytes in fragment_soup()) {
        check_all(&bytes);
    }
}

/// A small deterministic generator, so the mutation loop needs no seed files or extra crates.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

/// Mutates real PGN text (flips, insertions of special bytes, deletions, duplications,
/// truncation) and reads each mutant.
#[test]
fn mutated_fixture() {
    let seed: Vec<u8> = include_bytes!("fixtures/pgn/three-games.pgn").to_vec();
    let specials: &[&[u8]] =
        &[b"{", b"}", b"(", b")", b"[", b"]", b"\"", b"\n", b"\0", b"\xff", b";", b"$", b"\n\n[", b"1-0"];
    // PGN_FUZZ_ITERS=1000000 for a longer soak.
    let iters = std::env::var("PGN_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let mut rng = Lcg(0x5eed);
    for _ in 0..iters {
        let mut bytes = seed.clone();
        for _ in 0..1 + rng.next() % 8 {
            if bytes.is_empty() {
                break;
            }
            let at = rng.next() % bytes.len();
            match rng.next() % 5 {
                0 => bytes[at] ^= 1 << (rng.next() % 8),
                1 => {
                    let s = specials[rng.next() % specials.len()];
                    bytes.splice(at..at, s.iter().copied());
                }
                2 => {
                    let end = (at + 1 + rng.next() % 16).min(bytes.len());
                    bytes.drain(at..end);
                }
                3 => {
                    let end = (at + 1 + rng.next() % 64).min(bytes.len());
                    let chunk: Vec<u8> = bytes[at..end].to_vec();
                    bytes.splice(at..at, chunk);
                }
                _ => bytes.truncate(at),
            }
        }
        check_all(&bytes);
    }
}
