//! The `qiku-book` opening-book compiler and prober; all logic lives in `qiku_cli::book`.
fn main() -> std::process::ExitCode {
    qiku_cli::book::main()
}
