//! The `qiku` engine and position tool; all logic lives in `qiku::cli::qiku`.
fn main() -> std::process::ExitCode {
    qiku::cli::qiku::main()
}
