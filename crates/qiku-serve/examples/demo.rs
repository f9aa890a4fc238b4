//! Serves the test fixtures (a book from the repository's CCPD games, small tables) on
//! 127.0.0.1:PORT (default 8080), for a look at the page: `cargo run --example demo -- 8080`.

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let port = std::env::args().nth(1).and_then(|p| p.parse().ok()).unwrap_or(8080);
    let mut options = common::options();
    options.port = port;
    options.engine = true;
    if let Err(e) = qiku_serve::run(options) {
        eprintln!("demo: {e}");
        std::process::exit(1);
    }
}
