//! `qiku-tb`: endgame tablebases; all logic lives in `qiku_cli::tb`.
fn main() -> std::process::ExitCode {
    qiku_cli::tb::main()
}
