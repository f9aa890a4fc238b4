//! The `qiku` engine and position tool; all logic lives in `qiku_cli::qiku_program`.
fn main() -> std::process::ExitCode {
    qiku_cli::qiku_program::main()
}
