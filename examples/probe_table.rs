//! Probes a directory of endgame tables for one position: its value under both repetition rules,
//! and every move's value, best first. Needs only the reader, so it builds without the generator:
//!
//! ```text
//! cargo run -p qiku-cli --bin qiku-tb -- generate KRvKA -d /tmp/tables
//! cargo run -p qiku --no-default-features --example probe_table -- /tmp/tables "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"
//! ```

use qiku::tablebase::{Rules, Tablebases, TbError};
use qiku::Position;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, fen] = args.as_slice() else {
        eprintln!("usage: probe_table DIR FEN\n  DIR: a directory of .qtb tables (made by `qiku-tb generate`)\n  FEN: the position to probe, in quotes");
        return ExitCode::from(2);
    };
    match run(dir, fen) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("probe_table: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &str, fen: &str) -> Result<(), String> {
    let pos = Position::from_fen(fen).map_err(|e| format!("{fen:?}: {e}"))?;
    let tables = Tablebases::open(dir).map_err(|e| e.to_string())?;
    for problem in tables.problems() {
        eprintln!("probe_table: warning: {problem}");
    }
    println!("{} tables in {dir}", tables.tables().len());
    let Some(plain) = tables.probe(&pos).map_err(|e| e.to_string())? else {
        return Err(format!("no table for this position's material in {dir} (generate it with `qiku-tb generate`)"));
    };
    println!("plain rules: {plain}");
    match tables.probe_with(&pos, Rules::Asian) {
        Ok(Some(asian)) => println!("Asian rules: {asian}"),
        Ok(None) => {}
        Err(e @ TbError::NoRules { .. }) => println!("Asian rules: unknown ({e})"),
        Err(e) => return Err(e.to_string()),
    }
    match tables.move_values(&pos).map_err(|e| e.to_string())? {
        Some(moves) => {
            for (m, value) in moves {
                println!("  {m}: {value}");
            }
        }
        None => println!("(a move leads to a material without a table)"),
    }
    Ok(())
}
