//! libFuzzer target for the PGN reader: arbitrary bytes, read in every mode and through the
//! decoders, must never panic or hang, and must keep the visitor protocol.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use qiku::pgn::{
    self, EncodingChoice, Location, Mode, Reader, Skip, SyntaxError, TextEncoding, Transcoder,
    Visitor,
};

/// Checks that games are balanced and that nothing follows an error within a game.
#[derive(Default)]
struct Check {
    open: bool,
    broken: bool,
    games: u64,
}

impl Check {
    fn item(&self, loc: Location) {
        assert!(self.open && !self.broken && loc.game == self.games);
    }
}

impl Visitor for Check {
    fn begin_game(&mut self, loc: Location) {
        assert!(!self.open);
        self.open = true;
        self.broken = false;
        self.games += 1;
        self.item(loc);
    }
    fn tag(&mut self, _name: &str, _value: &str, loc: Location) -> Skip {
        self.item(loc);
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        assert!(!token.is_empty());
        self.item(loc);
        Skip::Continue
    }
    fn comment(&mut self, _text: &str, loc: Location) {
        self.item(loc);
    }
    fn begin_variation(&mut self, loc: Location) -> Skip {
        self.item(loc);
        // Enter every other variation to cover both paths.
        if loc.column % 2 == 0 {
            Skip::Continue
        } else {
            Skip::SkipVariation
        }
    }
    fn end_game(&mut self, loc: Location) {
        assert!(self.open && loc.game == self.games);
        self.open = false;
    }
    fn malformed(&mut self, error: &SyntaxError) {
        assert!(self.open && !self.broken);
        self.broken = true;
        let _ = error.to_string();
    }
}

fuzz_target!(|data: &[u8]| {
    for mode in [Mode::Auto, Mode::Pgn, Mode::Lines] {
        let mut check = Check::default();
        let mut reader = Reader::with_mode(data, mode);
        reader.set_max_line_len(512);
        let n = reader.read_all(&mut check).expect("in-memory input");
        assert!(!check.open && n == check.games);
        assert_eq!(reader.bytes_read(), data.len() as u64);
    }
    for enc in [TextEncoding::Gbk, TextEncoding::Big5] {
        let mut check = Check::default();
        Reader::new(Transcoder::new(data, enc)).read_all(&mut check).expect("in-memory input");
    }
    if let Ok(input) = pgn::open_reader(Cursor::new(data.to_vec()), "fuzz", EncodingChoice::Auto) {
        let _ = Reader::new(input).read_all(&mut Check::default());
    }
});
