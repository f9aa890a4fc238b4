//! Game files that end early: cut short at the end of the file, or damaged so that reading fails
//! (a `.zst` whose stream breaks off). The games read before the end or the failure are all
//! delivered, the game the file ends in is reported as cut short, and a failure comes after them
//! with the file, the byte offset and the cause. Every file here is a byte-exact prefix of the
//! real collection `books/games/ccpd-iccs.pgn.zst`, whose first games are:
//! - bytes 0..40,000: games 1 to 37 whole, then game 38 up to the line
//!   `11. B4-G4 D9-E8 12. C3-C4 B9-D9 13. C4-C5` (its last full line ends at byte 39,958);
//! - bytes 0..199,688: games 1 to 192 whole, the last ending `35. G6-F6 1-0` and its newline.
//!
//! (Counted with `zstdcat ccpd-iccs.pgn.zst | head -c N | grep -c '^\[Game '`.)

use std::io::{Cursor, Read};
use std::path::Path;

use qiku::pgn::{self, EncodingChoice, GameResult, InputError, Location, Reader, Skip, Visitor};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games");

/// Games 1..37 whole, game 38 up to a line in its movetext.
const MID_GAME: usize = 40_000;
/// The end of the last full line before [`MID_GAME`].
const MID_GAME_LINE_END: usize = 39_958;
/// Just after game 192's result token and its newline.
const AFTER_RESULT: usize = 199_688;

/// The decompressed text of the real collection.
fn iccs_text() -> Vec<u8> {
    let mut text = Vec::new();
    let mut input = pgn::open(Path::new(DATA).join("ccpd-iccs.pgn.zst"), EncodingChoice::Auto).expect("open");
    input.read_to_end(&mut text).expect("read");
    text
}

/// What each game delivered.
#[derive(Debug, Default, Clone, PartialEq)]
struct Game {
    moves: u64,
    result: Option<Option<GameResult>>,
    cut_short: Option<Location>,
    malformed: bool,
}

#[derive(Default)]
struct Games(Vec<Game>);

impl Visitor for Games {
    fn begin_game(&mut self, _loc: Location) {
        self.0.push(Game::default());
    }
    fn move_token(&mut self, _token: &str, _loc: Location) -> Skip {
        if let Some(g) = self.0.last_mut() {
            g.moves += 1;
        }
        Skip::Continue
    }
    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        if let Some(g) = self.0.last_mut() {
            g.result = Some(result);
        }
    }
    fn malformed(&mut self, _error: &qiku::pgn::SyntaxError) {
        if let Some(g) = self.0.last_mut() {
            g.malformed = true;
        }
    }
    fn cut_short(&mut self, loc: Location) {
        if let Some(g) = self.0.last_mut() {
            g.cut_short = Some(loc);
        }
    }
    fn end_game(&mut self, _loc: Location) {}
}

/// Reads every game of `input` until its end or its failure; the games delivered, completed
/// (`end_game` called) ones only, and the failure.
fn read_all<R: std::io::BufRead>(input: R) -> (Vec<Game>, Option<std::io::Error>) {
    let mut reader = Reader::new(input);
    let mut games = Games::default();
    loop {
        let before = games.0.len();
        match reader.read_game(&mut games) {
            Ok(true) => {}
            Ok(false) => return (games.0, None),
            Err(e) => {
                assert_eq!(games.0.len(), before, "a failure delivers no game");
                return (games.0, Some(e));
            }
        }
    }
}

/// A `.zst` file whose first frame holds `text[..cut]` whole and whose second frame, holding the
/// rest, breaks off after its first 100 bytes (far less than one block): what appending to a
/// compressed file that was then cut short leaves.
fn broken_zst(dir: &Path, text: &[u8], cut: usize) -> std::path::PathBuf {
    let mut bytes = zstd::encode_all(&text[..cut], 3).expect("compress");
    let rest = zstd::encode_all(&text[cut..], 3).expect("compress");
    bytes.extend_from_slice(&rest[..100]);
    let path = dir.join("cut.pgn.zst");
    std::fs::write(&path, bytes).expect("write");
    path
}

/// The `InputError` inside a read failure.
fn input_error(e: &std::io::Error) -> &InputError {
    e.get_ref().and_then(|e| e.downcast_ref::<InputError>()).unwrap_or_else(|| panic!("not an InputError: {e}"))
}

/// A read failure within the first 64 KiB (where the encoding is detected) used to make opening
/// fail, losing the 37 whole games before it; they are delivered, then game 38 as cut short
/// (its last, partial line left out), then the failure with its file and offset.
#[test]
fn a_failure_in_the_first_64_kib_keeps_the_games_before_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = iccs_text();
    let path = broken_zst(dir.path(), &text, MID_GAME);
    let input = pgn::open(&path, EncodingChoice::Auto).expect("opens: the failure comes after 40,000 bytes");
    let (games, failure) = read_all(input);
    assert_eq!(games.len(), 38);
    assert!(games[..37].iter().all(|g| g.result.is_some() && g.cut_short.is_none() && !g.malformed), "{games:?}");
    let last = &games[37];
    assert!(last.result.is_none() && !last.malformed, "{last:?}");
    // The moves of the full lines: 10 moves and a half from `1.` to `10. ... G5-G4`.
    let (whole, _) = read_all(Cursor::new(&text[..MID_GAME_LINE_END]));
    assert_eq!(last.moves, whole[37].moves);
    assert_eq!(last.moves, 20);
    assert_eq!(last.cut_short.map(|l| l.game), Some(38));
    let failure = failure.expect("the failure is reported");
    let inner = input_error(&failure);
    assert_eq!(inner.offset(), MID_GAME as u64);
    assert!(inner.is_compressed());
    assert_eq!(inner.path(), path.as_path());
    let shown = format!("{}: decompression failed at byte 40000 of the text: ", path.display());
    assert!(failure.to_string().starts_with(&shown), "{failure}");
}

/// A read failure inside a game's tags: the game is cut short (it was counted as a game
/// without moves), and the games before it are whole.
#[test]
fn a_failure_in_the_tags_cuts_that_game_short() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = iccs_text();
    // Inside the tags of the game after the one that ends at AFTER_RESULT.
    let next = AFTER_RESULT + text[AFTER_RESULT..].windows(7).position(|w| w == b"[Event ").expect("a next game");
    let cut = next + 20;
    assert!(!text[next..cut].contains(&b'\n'), "inside one tag line");
    let (games, failure) = read_all(pgn::open(broken_zst(dir.path(), &text, cut), EncodingChoice::Auto).expect("open"));
    assert_eq!(games.len(), 193);
    assert!(games[..192].iter().all(|g| g.result.is_some() && g.cut_short.is_none() && !g.malformed));
    let last = &games[192];
    assert_eq!((last.moves, last.result, last.cut_short.map(|l| l.game)), (0, None, Some(193)), "{last:?}");
    assert_eq!(input_error(&failure.expect("the failure is reported")).offset(), cut as u64);
}

/// A game complete up to its result token, then a read failure: the game is delivered whole
/// (it used to be dropped), and the failure follows.
#[test]
fn a_complete_game_before_a_failure_is_delivered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = iccs_text();
    assert!(text[..AFTER_RESULT].ends_with(b" 35. G6-F6 1-0\n"));
    let path = broken_zst(dir.path(), &text, AFTER_RESULT);
    let (games, failure) = read_all(pgn::open(&path, EncodingChoice::Auto).expect("open"));
    assert_eq!(games.len(), 192);
    assert!(games.iter().all(|g| g.result.is_some() && g.cut_short.is_none() && !g.malformed));
    assert_eq!(games[191].result, Some(Some(GameResult::RedWins)));
    assert_eq!(games[191].moves, 69);
    let failure = failure.expect("the failure is reported");
    assert_eq!(input_error(&failure).offset(), AFTER_RESULT as u64);

    // The same from a reader that fails (an I/O error) rather than a damaged stream.
    struct Failing<'a>(&'a [u8]);
    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("device error"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let owned: &'static [u8] = Box::leak(text[..AFTER_RESULT].to_vec().into_boxed_slice());
    let input = pgn::open_reader(Failing(owned), "disk.pgn", EncodingChoice::Auto).expect("open");
    let (games, failure) = read_all(input);
    assert_eq!(games.len(), 192);
    let failure = failure.expect("the failure is reported");
    assert_eq!(failure.to_string(), format!("disk.pgn: read failed at byte {AFTER_RESULT}: device error"));
}

/// A file that ends in the middle of a game (no result token) is not taken for a complete game:
/// the last game is reported cut short, at its end; a file that ends after a result token, or
/// in the next game's tags, has no game cut short.
#[test]
fn a_file_that_ends_mid_game_reports_the_game_cut_short() {
    let text = iccs_text();
    let (games, failure) = read_all(Cursor::new(&text[..MID_GAME]));
    assert!(failure.is_none());
    assert_eq!(games.len(), 38);
    assert_eq!(games.iter().filter(|g| g.cut_short.is_some()).count(), 1);
    let last = &games[37];
    assert_eq!(last.result, None);
    // `13. C4-C5`, the file's last token, is read (the file ends, it does not fail).
    assert_eq!(last.moves, 25);
    let at = last.cut_short.expect("cut short");
    assert_eq!((at.game, at.column), (38, 42));
    assert_eq!(&text[MID_GAME - 41..MID_GAME], b"11. B4-G4 D9-E8 12. C3-C4 B9-D9 13. C4-C5");

    for (cut, count) in
        [(AFTER_RESULT, 192), (AFTER_RESULT - 1, 192), (AFTER_RESULT + 1, 192), (AFTER_RESULT + 10, 193)]
    {
        let (games, failure) = read_all(Cursor::new(&text[..cut]));
        assert!(failure.is_none());
        assert_eq!(games.len(), count, "cut at {cut}");
        assert!(games.iter().all(|g| g.cut_short.is_none()), "cut at {cut}");
    }
    // Cut inside the result token (`1-` of `1-0`): the game is cut short, and `1-` is not read as
    // a result.
    let (games, _) = read_all(Cursor::new(&text[..AFTER_RESULT - 2]));
    assert_eq!(games.len(), 192);
    assert!(games[191].cut_short.is_some() && games[191].result.is_none());
}
