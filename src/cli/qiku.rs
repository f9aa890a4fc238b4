//! `qiku`: the engine (UCI on standard input when started without arguments) and the commands
//! that probe and inspect positions.

use crate::cli::board;
use crate::core::perft;
use crate::core::{Position, START_FEN};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "qiku",
    version,
    about = "Xiangqi engine and position tools",
    long_about = "Xiangqi engine and position tools.\n\nWith no command, qiku speaks UCI on standard input and output, as Xiangqi GUIs start engines."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (the standard move-generator check).
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Position (Pikafish FEN); default the start position.
        #[arg(long, default_value = START_FEN)]
        fen: String,
        /// Also print the count below each root move (ICCS).
        #[arg(long)]
        divide: bool,
        /// Print one JSON object: {"fen", "depth", "nodes", "seconds", "nps"[, "divide"]}.
        #[arg(long)]
        json: bool,
    },
    /// The quick start: build the shipped opening book, generate the tablebases of up to four
    /// pieces (kept if present), and probe both.
    Demo {
        /// Folder holding `books/` and `tablebases/`.
        #[arg(long, default_value = ".")]
        root: std::path::PathBuf,
        /// Generate the tables of up to this many pieces.
        #[arg(long, default_value_t = 4)]
        max_pieces: usize,
    },
    /// Draw a position in the terminal with Chinese piece characters.
    Show {
        /// Position (Pikafish FEN); default the start position.
        #[arg(default_value = START_FEN)]
        fen: String,
    },
}

fn parse_fen(fen: &str) -> Result<Position, String> {
    Position::from_fen(fen).map_err(|e| format!("invalid FEN {fen:?}: {e}"))
}

/// Entry point of the `qiku` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => Err("the UCI engine is not built yet; see `qiku --help`".to_string()),
        Some(Command::Perft { depth, fen, divide, json }) => run_perft(depth, &fen, divide, json),
        Some(Command::Demo { root, max_pieces }) => super::demo::run(&root, max_pieces),
        Some(Command::Show { fen }) => {
            parse_fen(&fen).map(|pos| print!("{}", board::render(&pos, super::use_colour())))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qiku: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_perft(depth: u32, fen: &str, divide: bool, json: bool) -> Result<(), String> {
    let mut pos = parse_fen(fen)?;
    let t = Instant::now();
    let (nodes, per_move) = if divide {
        let d = perft::divide(&mut pos, depth);
        (d.iter().map(|(_, n)| n).sum(), Some(d))
    } else {
        (perft::perft_bulk(&mut pos, depth), None)
    };
    let secs = t.elapsed().as_secs_f64();
    let nps = if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 };
    if json {
        let mut obj =
            serde_json::json!({"fen": pos.fen(), "depth": depth, "nodes": nodes, "seconds": secs, "nps": nps});
        if let Some(d) = per_move {
            obj["divide"] =
                d.iter().map(|(m, n)| (m.to_string(), serde_json::json!(n))).collect::<serde_json::Map<_, _>>().into();
        }
        println!("{obj}");
    } else {
        for (m, n) in per_move.iter().flatten() {
            println!("{m}: {n}");
        }
        println!("nodes {nodes}\ndepth {depth}\ntime {secs:.3} s ({:.1} M nodes/s)", nps as f64 / 1e6);
    }
    Ok(())
}
