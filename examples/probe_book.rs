//! Probe an opening book: the book moves of a position, each with how often red won, drew and
//! lost after it.
//!
//! ```sh
//! cargo run --example probe_book                       # the start position
//! cargo run --example probe_book -- startpos moves h2e2 # after 炮二平五 (any notation)
//! cargo run --example probe_book -- --book books/ccpd-iccs.qbk "FEN" moves ...
//! ```
//!
//! Without `--book`, a small book is first compiled from `books/repertoire.pgn` into a temporary
//! directory, so the example runs in a fresh clone; after the README's quick start,
//! `--book books/ccpd-iccs.qbk` probes the book of 25,368 master games.

use qiku::book::{build, Book, BuildOptions};
use qiku::notation::chinese;
use qiku::notation::spec::parse_position_spec;
use qiku::Color;
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: probe_book [--book FILE.qbk] [startpos | FEN] [moves MOVE...]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) is no failure.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("probe_book: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut out = std::io::stdout().lock();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        writeln!(out, "{USAGE}")?;
        return Ok(());
    }
    let book_path = match args.iter().position(|a| a == "--book") {
        Some(i) => {
            let path = PathBuf::from(args.get(i + 1).ok_or(format!("--book needs a file\n{USAGE}"))?);
            args.drain(i..i + 2);
            Some(path)
        }
        None => None,
    };

    // Without a book, compile one from the repository's repertoire (kept in a temporary
    // directory that is removed when `_dir` goes out of scope).
    let _dir;
    let path = match book_path {
        Some(path) => path,
        None => {
            _dir = tempfile::tempdir()?;
            let games = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/books/repertoire.pgn"));
            let path = _dir.path().join("repertoire.qbk");
            let report = build(&[games], &path, &BuildOptions::default())?;
            writeln!(out, "compiled {} games of books/repertoire.pgn into a book", report.header.games.used)?;
            path
        }
    };

    // Opening verifies the whole file (checksums, key set); errors name the file.
    let book = Book::open(&path)?;
    // `startpos` (the default) or a FEN, then optionally `moves` and moves in any notation
    // (ICCS, WXF, Chinese).
    let spec = if args.is_empty() { "startpos".to_string() } else { args.join(" ") };
    let pos = parse_position_spec(&spec)?.position();
    writeln!(
        out,
        "book {} ({} positions, {} games)",
        path.display(),
        book.header().positions,
        book.header().games.used
    )?;
    writeln!(out, "position {}", pos.fen())?;

    // The book's counts are from the mover's point of view; turn them into red/draw/black.
    // A book damaged since it was opened is an error naming the file.
    let moves = book.probe(&pos)?;
    if moves.is_empty() {
        writeln!(out, "no book move")?;
        return Ok(());
    }
    // score: the points of the side to move per decided game; Chinese last, as its characters
    // are two columns wide.
    writeln!(out, "{:<6} {:>6} {:>6} {:>6} {:>6} {:>7}  chinese", "move", "games", "red", "draw", "black", "score")?;
    for m in &moves {
        let c = m.counts;
        let (red, black) = match pos.turn() {
            Color::Red => (c.wins, c.losses),
            Color::Black => (c.losses, c.wins),
        };
        let score = c.score().map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0));
        writeln!(
            out,
            "{:<6} {:>6} {:>6} {:>6} {:>6} {:>7}  {}",
            m.mv.to_string(),
            c.games(),
            red,
            c.draws,
            black,
            score,
            chinese::format(&pos, m.mv)
        )?;
    }
    Ok(())
}
