//! Stream game files (PGN or one game per line; UTF-8, GBK or Big5; optionally
//! zstd-compressed), replay every move on a board, and count games, moves and errors. Each
//! error is printed with its place: file, game, line and column.
//!
//! ```sh
//! cargo run --release --example read_pgn                  # books/repertoire.pgn and a GBK sample
//! cargo run --release --example read_pgn -- books/games/ccpd-chinese-utf8.pgn.zst
//! ```
//!
//! The reader only cuts the text into tags and move tokens; reading a token (`h2e2`, `C2.5`,
//! `炮二平五`) against the board is this visitor's job, as it is any program's.

use qiku::notation::parse_any;
use qiku::pgn::{self, EncodingChoice, Location, Reader, Skip, SyntaxError, Visitor};
use qiku::Position;
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Errors printed per file; the rest are only counted.
const SHOWN_ERRORS: usize = 10;

/// Replays each game: the start position (a `FEN` tag or the initial one), then every move.
#[derive(Default)]
struct Replay {
    games: u64,
    moves: u64,
    errors: u64,
    shown: Vec<String>,
    /// The board of the current game; `None` once the game is known to be broken.
    pos: Option<Position>,
}

impl Replay {
    fn error(&mut self, text: String) {
        self.errors += 1;
        if self.shown.len() < SHOWN_ERRORS {
            self.shown.push(text);
        }
    }
}

impl Visitor for Replay {
    fn begin_game(&mut self, _loc: Location) {
        self.pos = Some(Position::startpos());
    }

    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        if name == "FEN" {
            match Position::from_fen(value) {
                Ok(pos) => self.pos = Some(pos),
                Err(e) => {
                    self.error(format!("{loc}: bad FEN tag {value:?}: {e}"));
                    self.pos = None;
                    return Skip::SkipGame;
                }
            }
        }
        Skip::Continue
    }

    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        let Some(pos) = &self.pos else { return Skip::SkipGame };
        // Any notation: ICCS, WXF or Chinese, told apart by the token's shape.
        match parse_any(pos, token) {
            Ok((m, _)) => {
                self.pos = Some(pos.play_unchecked(m)); // parse_any only returns legal moves
                self.moves += 1;
                Skip::Continue
            }
            Err(e) => {
                self.error(format!("{loc}: {e}"));
                self.pos = None;
                Skip::SkipGame // the rest of this game cannot be replayed
            }
        }
    }

    fn malformed(&mut self, error: &SyntaxError) {
        // Display gives "game G, line L, column C: what, near `text`".
        self.error(error.to_string());
    }

    fn end_game(&mut self, _loc: Location) {
        self.games += 1;
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(0) => ExitCode::SUCCESS,
        // Bad games in the input are reported, and the exit status says there were some.
        Ok(_) => ExitCode::from(1),
        // A reader that stopped reading (`| head`) is no failure.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("read_pgn: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<u64, Box<dyn Error>> {
    let mut out = std::io::stdout().lock();
    let mut files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.iter().any(|f| f.as_os_str() == "--help" || f.as_os_str() == "-h") {
        writeln!(out, "usage: read_pgn [FILE...]   (PGN or move lists, .zst or not, UTF-8/GBK/Big5)")?;
        return Ok(0);
    }
    if files.is_empty() {
        let root = env!("CARGO_MANIFEST_DIR");
        files = vec![
            format!("{root}/books/repertoire.pgn").into(),
            format!("{root}/books/games/ccpd-sample-gbk.pgn").into(),
        ];
    }
    let mut total = Replay::default();
    for path in &files {
        // The encoding and the compression are detected from the first bytes.
        let input = pgn::open(path, EncodingChoice::Auto)?;
        let encoding = input.encoding();
        let compressed = if input.is_compressed() { ", zstd" } else { "" };
        let mut replay = Replay::default();
        Reader::new(input).read_all(&mut replay)?;
        writeln!(
            out,
            "{} ({encoding}{compressed}): {} games, {} moves, {} errors",
            path.display(),
            replay.games,
            replay.moves,
            replay.errors
        )?;
        for e in &replay.shown {
            writeln!(out, "  {}: {e}", path.display())?;
        }
        if replay.errors > replay.shown.len() as u64 {
            writeln!(out, "  ... and {} more", replay.errors - replay.shown.len() as u64)?;
        }
        total.games += replay.games;
        total.moves += replay.moves;
        total.errors += replay.errors;
    }
    writeln!(out, "total: {} games, {} moves, {} errors", total.games, total.moves, total.errors)?;
    Ok(total.errors)
}
