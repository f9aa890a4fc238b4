//! The `qiku-serve` program: `qiku serve` on its own (the `qiku` program's `serve` subcommand
//! calls the same [`qiku_serve::run`]).

use clap::Parser;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "qiku-serve", version, about, long_about = None)]
struct Cli {
    #[command(flatten)]
    args: qiku_serve::cli::ServeArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = qiku_serve::adapter::check_worker_threads_env() {
        qiku_serve::write_stderr(&format!("qiku-serve: {e}\n"));
        return ExitCode::from(2);
    }
    match qiku_serve::run(cli.args.options()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            qiku_serve::write_stderr(&format!("qiku-serve: {e}\n"));
            ExitCode::FAILURE
        }
    }
}
