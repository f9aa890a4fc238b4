//! Probe endgame tables: the value of a position (win, draw or loss for the side to move, and
//! the distance to mate) and its best moves, then the value of every legal move.
//!
//! ```sh
//! cargo run --release --example probe_tables                 # generates KRvK and KNvK first
//! cargo run --release --example probe_tables -- --dir tablebases "4k4/4a4/9/9/9/9/9/9/9/R3K4 w"
//! ```
//!
//! Without `--dir`, the rook-against-king and horse-against-king tables are generated into a
//! temporary directory first (a second or two), so the example runs in a fresh clone; after
//! the README's quick start, `--dir tablebases` holds every table of up to four pieces.
//!
//! Probing needs only the reader: with `--dir`, the example builds and runs without the
//! library's generator, as a probe-only program would:
//!
//! ```sh
//! cargo run --release -p qiku --no-default-features --example probe_tables -- --dir tablebases
//! ```

use qiku::notation::chinese;
use qiku::notation::spec::parse_position_spec;
#[cfg(feature = "generate")]
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::Tablebases;
use qiku::Position;
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: probe_tables [--dir DIR] [startpos | FEN] [moves MOVE...]";
/// A lone horse against the bare king: a win in Xiangqi (a side without a legal move loses,
/// stalemated or not).
const DEFAULT_FEN: &str = "4k4/9/9/9/9/9/9/9/9/3K1N3 w - - 0 1";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) is no failure.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("probe_tables: {e}");
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
    let dir = match args.iter().position(|a| a == "--dir") {
        Some(i) => {
            let dir = PathBuf::from(args.get(i + 1).ok_or(format!("--dir needs a directory\n{USAGE}"))?);
            args.drain(i..i + 2);
            Some(dir)
        }
        None => None,
    };
    // `startpos` or a FEN, then optionally `moves` and moves in any notation.
    let pos = match args.is_empty() {
        true => Position::from_fen(DEFAULT_FEN)?,
        false => parse_position_spec(&args.join(" "))?.position(),
    };

    // Without a directory, generate two small tables into a temporary one (removed at the end).
    #[cfg(feature = "generate")]
    let _temp;
    let dir = match dir {
        Some(dir) => dir,
        #[cfg(feature = "generate")]
        None => {
            _temp = tempfile::tempdir()?;
            let materials: Vec<qiku::tablebase::Material> = vec!["KRvK".parse()?, "KNvK".parse()?];
            for report in generate_set(&materials, &GenerateOptions::new(_temp.path()))? {
                writeln!(out, "generated {}", report.material)?;
            }
            _temp.path().to_path_buf()
        }
        #[cfg(not(feature = "generate"))]
        None => return Err(format!("built without the generator: give --dir with tables\n{USAGE}").into()),
    };

    let tables = Tablebases::open(&dir)?;
    writeln!(out, "tables in {}: {}", dir.display(), tables.tables().len())?;
    writeln!(out, "position {}", pos.fen())?;
    // `None`: no table covers this material.
    let Some(value) = tables.probe(&pos)? else {
        writeln!(out, "no table for this material")?;
        return Ok(());
    };
    writeln!(out, "value {value}")?;
    let best = tables.best_moves(&pos)?.unwrap_or_default();
    let names: Vec<String> = best.iter().map(|&m| format!("{m} ({})", chinese::format(&pos, m))).collect();
    writeln!(out, "best moves {}", if names.is_empty() { "(none)".to_string() } else { names.join(", ") })?;
    // Every legal move with its value for the side that plays it, best first.
    for (m, v) in tables.move_values(&pos)?.unwrap_or_default() {
        writeln!(out, "  {m} {:<8} {v}", chinese::format(&pos, m))?;
    }
    Ok(())
}
