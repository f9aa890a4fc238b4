//! Throughput of the PGN layer on the real collections: `cargo bench --bench pgn_read`.
//!
//! For each file it times, on one thread:
//! - `open+read`: zstd decompression + decoding + tokenizing with a counting visitor (what the
//!   book compiler pays before move parsing);
//! - `read only`: tokenizing text already decompressed into memory (the reader's own speed);
//! - `decompress only`: zstd (or transcoding) alone, for reference.
//!
//! MB/s are of decompressed UTF-8 text (1 MB = 10^6 bytes). Best and median of several runs.
//! On a shared machine the best run is the one least disturbed by other processes.
//! `PGN_BENCH=iccs` restricts the run to files whose name contains the string.

use std::io::{self, BufRead, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use qiku::pgn::{self, EncodingChoice, Location, Reader, Skip, Visitor};

#[derive(Default)]
struct Count {
    games: u64,
    moves: u64,
    errors: u64,
}

impl Visitor for Count {
    fn move_token(&mut self, _token: &str, _loc: Location) -> Skip {
        self.moves += 1;
        Skip::Continue
    }
    fn end_game(&mut self, _loc: Location) {
        self.games += 1;
    }
    fn malformed(&mut self, _error: &pgn::SyntaxError) {
        self.errors += 1;
    }
}

const RUNS: usize = 7;

/// Runs `f` several times; returns (best, median) durations and the last result.
fn time<T>(mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let r = f();
        times.push(start.elapsed());
        last = Some(r);
    }
    times.sort();
    let result = last.unwrap_or_else(|| unreachable!("RUNS > 0"));
    (times[0], times[RUNS / 2], result)
}

fn report(file: &str, what: &str, bytes: u64, games: u64, best: Duration, median: Duration) {
    let mb = bytes as f64 / 1e6;
    let games_s = |d: Duration| games as f64 / d.as_secs_f64();
    println!(
        "{file:28} {what:16} {mb:6.1} MB {games:6} games  best {:6.1} ms = {:6.0} MB/s {:8.0} games/s  (median {:6.1} ms = {:6.0} MB/s)",
        best.as_secs_f64() * 1e3,
        mb / best.as_secs_f64(),
        games_s(best),
        median.as_secs_f64() * 1e3,
        mb / median.as_secs_f64(),
    );
}

fn bench(file: &str) -> io::Result<()> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/books/games")).join(file);
    if !path.exists() {
        println!("{file}: not found at {}, skipped", path.display());
        return Ok(());
    }
    let open = || pgn::open(&path, EncodingChoice::Auto).map_err(io::Error::other);

    // Decompressed, decoded text in memory.
    let mut text = Vec::new();
    open()?.read_to_end(&mut text)?;

    let (best, median, count) = time(|| -> io::Result<Count> {
        let mut count = Count::default();
        Reader::new(open()?).read_all(&mut count)?;
        Ok(count)
    });
    let count = count?;
    assert_eq!(count.errors, 0, "{file}: syntax errors");
    report(file, "open+read", text.len() as u64, count.games, best, median);

    let (best, median, count) = time(|| -> io::Result<Count> {
        let mut count = Count::default();
        Reader::new(&text[..]).read_all(&mut count)?;
        Ok(count)
    });
    report(file, "read only", text.len() as u64, count?.games, best, median);

    let (best, median, n) = time(|| -> io::Result<u64> {
        let mut input = open()?;
        let mut n = 0u64;
        loop {
            let len = input.fill_buf()?.len();
            if len == 0 {
                return Ok(n);
            }
            input.consume(len);
            n += len as u64;
        }
    });
    report(file, "decompress only", n?, 0, best, median);
    Ok(())
}

fn main() -> io::Result<()> {
    let only = std::env::var("PGN_BENCH").unwrap_or_default();
    for file in [
        "ccpd-iccs.pgn.zst",
        "ccpd-chinese-utf8.pgn.zst",
        "ccpd-sample-big5.pgn",
        "ccpd-sample-gbk.pgn",
        "wukong-hu-ronghua-uci.pgn",
    ] {
        if file.contains(only.as_str()) {
            bench(file)?;
        }
    }
    Ok(())
}
