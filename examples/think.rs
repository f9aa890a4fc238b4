//! Let the engine think about a position and print its principal variation in Chinese
//! notation and in ICCS, one line per completed depth, as a GUI would show it.
//!
//! ```sh
//! cargo run --release --example think                              # the start position, depth 8
//! cargo run --release --example think -- --movetime 2000 startpos moves h2e2 h9g7
//! cargo run --release --example think -- --depth 6 "3k5/9/9/9/R8/9/9/9/9/4K4 w"
//! ```

use qiku::engine::{time::Limits, Engine, Source};
use qiku::notation::{chinese, parse_any};
use qiku::{Game, Move, Position};
use std::error::Error;
use std::process::ExitCode;

const USAGE: &str = "usage: think [--depth N | --movetime MS] [--hash MIB] [startpos | FEN] [moves MOVE...]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("think: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut limits = Limits::depth(8);
    let mut hash_mib = 16;
    let mut rest = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a number\n{USAGE}"));
        match arg.as_str() {
            "--depth" => limits = Limits::depth(value("--depth")?.parse()?),
            "--movetime" => limits = Limits::movetime(value("--movetime")?.parse()?),
            "--hash" => hash_mib = value("--hash")?.parse()?,
            "--help" | "-h" => {
                println!("{USAGE}");
                return Ok(());
            }
            _ => rest.push(arg),
        }
    }
    // The game, not only the position: the search needs the history for repetitions.
    let game = game(&rest.join(" "))?;
    println!("position {}", game.position().fen());

    let mut engine = Engine::new(hash_mib);
    let start = game.position().clone();
    let (result, source) = engine.think(&game, &limits, &mut |info| {
        let (words, iccs) = pv(&start, &info.pv);
        println!(
            "depth {:>2} score {:>7} nodes {:>9}  {}  ({})",
            info.depth,
            info.score.to_string(),
            info.nodes,
            words,
            iccs
        );
    });
    let Some(best) = result.best else {
        println!("no legal move: the side to move has lost");
        return Ok(());
    };
    let from = match source {
        Source::Book => "book",
        Source::Tablebase => "tablebase",
        Source::Search => "search",
    };
    let (words, iccs) = pv(&start, &result.pv);
    println!("bestmove {best} ({}) from the {from}, score {}", chinese::format(&start, best), result.score.to_uci());
    println!("pv {words} ({iccs})");
    Ok(())
}

/// A line of moves in Chinese notation (each written in the position it is played in) and ICCS.
fn pv(start: &Position, moves: &[Move]) -> (String, String) {
    let mut pos = start.clone();
    let mut words = Vec::new();
    for &m in moves {
        words.push(chinese::format(&pos, m));
        pos = pos.play_unchecked(m);
    }
    (words.join(" "), moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "))
}

/// `startpos` or a FEN, then optionally `moves` and moves in any notation.
fn game(spec: &str) -> Result<Game, Box<dyn Error>> {
    let (setup, moves) = match spec.split_once("moves") {
        Some((setup, moves)) => (setup.trim(), moves),
        None => (spec.trim(), ""),
    };
    let start = match setup {
        "" | "startpos" => Position::startpos(),
        fen => Position::from_fen(fen).map_err(|e| format!("bad FEN {fen:?}: {e}"))?,
    };
    let mut game = Game::new(start);
    for token in moves.split_whitespace() {
        let (m, _) = parse_any(game.position(), token)?;
        game.play(m)?;
    }
    Ok(game)
}
