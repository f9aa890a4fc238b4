//! Count the leaves of the legal move tree (perft), per root move and in all, with the speed:
//! the standard check of a move generator against published counts.
//!
//! ```sh
//! cargo run --release --example perft                  # the start position, depth 4: 3,290,240
//! cargo run --release --example perft -- 3 "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w"
//! ```

use qiku::core::perft::{divide, MAX_DEPTH};
use qiku::notation::chinese;
use qiku::notation::spec::parse_position_spec;
use qiku::Position;
use std::error::Error;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) is no failure.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("perft: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let mut out = std::io::stdout().lock();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        writeln!(out, "usage: perft [DEPTH] [startpos | FEN] [moves MOVE...]   (depth 1 to {MAX_DEPTH}, the start position by default)")?;
        return Ok(());
    }
    let depth: u32 = match args.first() {
        Some(d) => d.parse().map_err(|_| format!("depth {d:?} is not a number"))?,
        None => 4,
    };
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(format!("depth {depth} is out of range (1 to {MAX_DEPTH})").into());
    }
    // `startpos` or a FEN, then optionally `moves` and moves in any notation.
    let mut pos = match args.get(1..).filter(|rest| !rest.is_empty()) {
        Some(spec) => parse_position_spec(&spec.join(" "))?.position(),
        None => Position::startpos(),
    };
    writeln!(out, "position {}", pos.fen())?;
    let start = Instant::now();
    let split = divide(&mut pos, depth);
    let elapsed = start.elapsed();
    for (m, n) in &split {
        writeln!(out, "{m} {:<6} {n}", chinese::format(&pos, *m))?;
    }
    let total: u64 = split.iter().map(|(_, n)| n).sum();
    let rate = total as f64 / elapsed.as_secs_f64().max(1e-9);
    writeln!(out, "perft {depth}: {total} leaves in {:.3} s ({:.1} M/s)", elapsed.as_secs_f64(), rate / 1e6)?;
    Ok(())
}
