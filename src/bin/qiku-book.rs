//! The `qiku-book` opening-book compiler and prober; all logic lives in `qiku::cli::book`.
fn main() -> std::process::ExitCode {
    qiku::cli::book::main()
}
