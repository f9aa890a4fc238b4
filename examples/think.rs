//! Let the engine think about a position and print its principal variation in Chinese
//! notation and in ICCS, one line per completed depth, as a GUI would show it.
//!
//! ```sh
//! cargo run --release --example think                              # the start position, depth 8
//! cargo run --release --example think -- --movetime 2000 startpos moves h2e2 h9g7
//! cargo run --release --example think -- --depth 6 "3k5/9/9/9/R8/9/9/9/9/4K4 w"
//! ```

use qiku::engine::{time::Limits, Engine, Source};
use qiku::notation::chinese;
use qiku::notation::spec::parse_position_spec;
use qiku::{Move, Position};
use std::error::Error;
use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "usage: think [--depth N | --movetime MS] [--hash MIB] [startpos | FEN] [moves MOVE...]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) is no failure.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("think: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut out = std::io::stdout().lock();
    let mut limits = Limits::depth(8);
    let mut hash_mib = 16;
    let mut rest = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // The number after an option, or an error naming the option.
        let mut value = |name: &str| {
            let text = args.next().ok_or(format!("{name} needs a number\n{USAGE}"))?;
            text.parse::<u32>().map_err(|e| format!("{name} {text:?}: {e}\n{USAGE}"))
        };
        match arg.as_str() {
            "--depth" => limits = Limits::depth(value("--depth")?),
            "--movetime" => limits = Limits::movetime(value("--movetime")?.into()),
            "--hash" => hash_mib = value("--hash")?.try_into()?,
            "--help" | "-h" => {
                writeln!(out, "{USAGE}")?;
                return Ok(());
            }
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}\n{USAGE}").into()),
            _ => rest.push(arg),
        }
    }
    // `startpos` (the default) or a FEN, then optionally `moves` and moves in any notation; the
    // game, not only the position: the search needs the history for repetitions.
    let spec = if rest.is_empty() { "startpos".to_string() } else { rest.join(" ") };
    let game = parse_position_spec(&spec)?.game();
    writeln!(out, "position {}", game.position().fen())?;

    let mut engine = Engine::new(hash_mib);
    let start = game.position().clone();
    // The search reports each depth here; the first failed write is kept and returned after it.
    let mut failed: Option<std::io::Error> = None;
    let (result, source) = engine.think(&game, &limits, &mut |info| {
        if failed.is_some() {
            return;
        }
        let (words, iccs) = pv(&start, &info.pv);
        let written = writeln!(
            out,
            "depth {:>2} score {:>7} nodes {:>9}  {}  ({})",
            info.depth,
            info.score.to_string(),
            info.nodes,
            words,
            iccs
        );
        failed = written.err();
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    let Some(best) = result.best else {
        writeln!(out, "no legal move: the side to move has lost")?;
        return Ok(());
    };
    let from = match source {
        Source::Book => "book",
        Source::Tablebase => "tablebase",
        Source::Search => "search",
    };
    let (words, iccs) = pv(&start, &result.pv);
    writeln!(
        out,
        "bestmove {best} ({}) from the {from}, score {}",
        chinese::format(&start, best),
        result.score.to_uci()
    )?;
    writeln!(out, "pv {words} ({iccs})")?;
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
