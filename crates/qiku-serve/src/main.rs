//! The `qiku-serve` program: `qiku serve` on its own (the `qiku` program's `serve` subcommand
//! calls the same [`qiku_serve::run`]).

use clap::Parser;
use qiku_serve::{adapter::TableRules, Limits, Options};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// A local opening explorer and tablebase browser: open http://127.0.0.1:8080/ in a browser.
/// Serves a page, a JSON API (/api/explore, /api/tablebase, /api/analyze, /api/tables) and a
/// ChessDB-compatible endpoint (/chessdb.php), read-only, from the given books and tables.
#[derive(Parser, Debug)]
#[command(name = "qiku-serve", version)]
struct Cli {
    /// An opening book (.qbk, built by `qiku-book build`); repeat for several (counts add up).
    #[arg(long = "book", value_name = "FILE.qbk")]
    books: Vec<PathBuf>,
    /// A directory of endgame tables (.qtb, with .qtr companions for the Asian rules).
    #[arg(long = "tb", value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Answer /api/analyze, and ChessDB queries nothing else knows, with the engine.
    #[arg(long)]
    engine: bool,
    /// The address to listen on. Anything but loopback makes the server reachable from other
    /// machines.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The port (0: any free one, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Repetition rules of table values unless a request names them: `asian` (perpetual check
    /// loses) or `plain` (every cycle a draw).
    #[arg(long, default_value = "asian")]
    rules: TableRules,
    /// Open connections at most (more are answered 503).
    #[arg(long, default_value_t = 256)]
    max_connections: usize,
    /// Engine searches at once (more are answered 503).
    #[arg(long, default_value_t = 2)]
    max_searches: usize,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let limits = Limits { max_connections: cli.max_connections, max_searches: cli.max_searches, ..Limits::default() };
    let options = Options {
        books: cli.books,
        tables: cli.tables,
        engine: cli.engine,
        bind: cli.bind,
        port: cli.port,
        rules: cli.rules,
        limits,
    };
    match qiku_serve::run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("qiku-serve: {e}");
            ExitCode::FAILURE
        }
    }
}
