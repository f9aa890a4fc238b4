//! `qiku-tb`: endgame tablebases; all logic lives in `qiku::cli::tb`.
fn main() -> std::process::ExitCode {
    qiku::cli::tb::main()
}
