//! `qiku`: the engine (UCI on standard input when started without arguments) and the commands
//! that probe and inspect positions.

use crate::cli::board;
use crate::core::perft;
use crate::core::Game;
use crate::core::{Position, START_FEN};
use crate::engine::search::{self, SearchOptions, Shared};
use crate::engine::time::Limits;
use crate::engine::{bench, eval, ordering::History, uci, Score};
use crate::notation::iccs;
use clap::{Args, Parser, Subcommand};
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
    /// Draw a position in the terminal with Chinese piece characters.
    Show {
        /// Position (Pikafish FEN); default the start position.
        #[arg(default_value = START_FEN)]
        fen: String,
    },
    /// Speak UCI on standard input and output (the same as running qiku without a command).
    Uci,
    /// Search a position and print the search lines (UCI `info` form), then the best move.
    Analyze(AnalyzeArgs),
    /// Search a fixed set of positions to a fixed depth (one thread, cleared table) and print
    /// the total node count (a signature of the search's behaviour) and the speed.
    Bench {
        /// Depth of every search.
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct AnalyzeArgs {
    /// Position (Pikafish FEN); default the start position.
    #[arg(default_value = START_FEN)]
    fen: String,
    /// Moves played from the FEN (ICCS, e.g. h2e2 h9g7), so that repetitions are judged.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,
    /// Search to this depth.
    #[arg(long, conflicts_with = "movetime")]
    depth: Option<u32>,
    /// Search for this many milliseconds (default: depth 12 if neither is given).
    #[arg(long)]
    movetime: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Also print the static evaluation term by term (red's view).
    #[arg(long)]
    eval: bool,
    /// Print one JSON object (best move, score, depth, nodes, pv and the lines) instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_fen(fen: &str) -> Result<Position, String> {
    Position::from_fen(fen).map_err(|e| format!("invalid FEN {fen:?}: {e}"))
}

/// Entry point of the `qiku` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None | Some(Command::Uci) => {
            uci::run(std::io::stdin().lock(), uci::Output::new(Box::new(std::io::stdout())), Default::default());
            Ok(())
        }
        Some(Command::Analyze(args)) => run_analyze(&args),
        Some(Command::Bench { depth, hash, json }) => run_bench(depth, hash, json),
        Some(Command::Perft { depth, fen, divide, json }) => run_perft(depth, &fen, divide, json),
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

/// The game from a FEN and moves played from it.
fn game_from(fen: &str, moves: &[String]) -> Result<Game, String> {
    let mut game = Game::new(parse_fen(fen)?);
    for (i, token) in moves.iter().enumerate() {
        let m = iccs::parse(game.position(), token)
            .map_err(|e| format!("move {} ({token}) in {}: {e}", i + 1, game.position().fen()))?;
        game.play_unchecked(m);
    }
    Ok(game)
}

fn score_json(score: Score) -> serde_json::Value {
    match score {
        Score::Cp(v) => serde_json::json!({"cp": v}),
        Score::Mate(n) => serde_json::json!({"mate": n}),
    }
}

fn run_analyze(args: &AnalyzeArgs) -> Result<(), String> {
    let game = game_from(&args.fen, &args.moves)?;
    if args.eval {
        let b = eval::breakdown(game.position(), &eval::Weights::DEFAULT);
        if !args.json {
            println!(
                "eval (red's view): material {} pst {} mobility {} relations {} king safety {} tempo {} = {} (phase {}/{})",
                b.material, b.pst, b.mobility, b.relations, b.king_safety, b.tempo, b.total, b.phase, eval::PHASE_MAX
            );
        }
    }
    let limits = match (args.depth, args.movetime) {
        (_, Some(ms)) => Limits::movetime(ms),
        (Some(d), None) => Limits::depth(d),
        (None, None) => Limits::depth(12),
    };
    let shared = Shared::new(args.hash.max(1));
    let options = SearchOptions { threads: args.threads.max(1), ..SearchOptions::default() };
    let mut lines = Vec::new();
    let json = args.json;
    let r = search::search(&game, &limits, &options, &shared, &mut History::default(), &mut |info| {
        if json {
            lines.push(serde_json::json!({
                "depth": info.depth, "seldepth": info.seldepth, "score": score_json(info.score),
                "nodes": info.nodes, "nps": info.nps(), "time_ms": info.time.as_millis() as u64,
                "pv": info.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            }));
        } else {
            println!("{}", info.to_uci().trim_start_matches("info "));
        }
    });
    let best = r.best.map_or("(none)".to_string(), |m| m.to_string());
    if json {
        let obj = serde_json::json!({
            "fen": game.position().fen(), "bestmove": best, "ponder": r.ponder.map(|m| m.to_string()),
            "score": score_json(r.score), "depth": r.depth, "nodes": r.nodes,
            "pv": r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(), "lines": lines,
        });
        println!("{obj}");
    } else {
        match r.ponder {
            Some(p) => println!("bestmove {best} ponder {p}"),
            None => println!("bestmove {best}"),
        }
    }
    Ok(())
}

fn run_bench(depth: u32, hash: usize, json: bool) -> Result<(), String> {
    let total = bench::POSITIONS.len();
    let mut i = 0;
    let lines = bench::run(bench::POSITIONS, depth.max(1), hash.max(1), |l| {
        i += 1;
        if !json {
            println!("{i:>2}/{total} nodes {:>10} best {:<5} {:>7} ms  {}", l.nodes, l.best, l.time.as_millis(), l.fen);
        }
    })?;
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs: f64 = lines.iter().map(|l| l.time.as_secs_f64()).sum();
    let nps = if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 };
    if json {
        println!(
            "{}",
            serde_json::json!({"depth": depth, "positions": total, "nodes": nodes, "seconds": secs, "nps": nps})
        );
    } else {
        println!("===========================");
        println!("Depth: {depth}");
        println!("Total time (ms): {}", (secs * 1000.0) as u64);
        println!("Total nodes: {nodes}");
        println!("Nodes/second: {nps}");
    }
    Ok(())
}
