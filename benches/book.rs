//! Book compiler and prober speed: `cargo bench --bench book`.
//!
//! - Builds books from books/games/ccpd-iccs.pgn.zst and ccpd-chinese-utf8.pgn.zst (25,368 /
//!   25,372 games) with all threads and with one; prints wall time (best and median of several
//!   runs), process CPU time and games per second.
//! - Opens the ICCS book (full verification) and times probes of positions from the games, with
//!   the default reader (positioned reads and a bucket cache) and with the memory-mapped one
//!   (`Book::open_mmap`), each warm (one reader) and cold (a fresh reader per round).
//!   `BOOK_BENCH_PROBE_ONLY=1` builds the ICCS book once and runs only this part.
//! - `BOOK_BENCH_1M=iccs` (or `chinese`): also generates a synthetic collection of 1,000,000 games
//!   (the real games, each repeated 40 times with a random deviation from a random ply on, in the
//!   chosen notation, zstd-compressed in a temporary directory) and builds it in a child process,
//!   reporting wall time, CPU time and peak memory (VmHWM). `BOOK_BENCH_MEMORY=256M` sets the
//!   builder's memory budget for that run (default 1G) to show spilling; `BOOK_BENCH_SKIP_SMALL=1`
//!   skips the 25,000-game part; `BOOK_BENCH_SYNTHETIC=FILE` keeps the generated collection in
//!   FILE and reuses it on later runs; `BOOK_BENCH_HEAD_ONLY=1` builds it with `--head-only`.
//!
//! On a shared machine the best run is the one least disturbed by other processes; CPU time
//! says how much work was done whatever the load.

use qiku::book::{self, Book, BuildOptions, Verify};
use qiku::notation::{self, iccs, Notation};
use qiku::Rng;
use qiku::{Move, Position};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games");
const RUNS: usize = 5;

/// User + system CPU seconds of this process so far (all threads), from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // Linux reports in clock ticks of 1/100 s (USER_HZ).
    (ticks(11) + ticks(12)) / 100.0
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn build_once(input: &Path, out: &Path, threads: Option<usize>, memory: u64) -> (Duration, f64, book::BuildReport) {
    let opts = BuildOptions { threads, memory, ..BuildOptions::default() };
    let cpu = cpu_seconds();
    let t = Instant::now();
    let report = book::build(&[input.to_path_buf()], out, &opts).expect("build");
    (t.elapsed(), cpu_seconds() - cpu, report)
}

fn bench_build(name: &str, dir: &Path) -> PathBuf {
    let input = Path::new(DATA).join(name);
    let out = dir.join(format!("{name}.qbk"));
    for threads in [None, Some(1)] {
        let mut runs = Vec::new();
        let mut last = None;
        for _ in 0..RUNS {
            let (wall, cpu, report) = build_once(&input, &out, threads, 1 << 30);
            runs.push((wall, cpu));
            last = Some(report);
        }
        runs.sort_by_key(|r| r.0);
        let r = last.expect("RUNS > 0");
        let games = r.header.games.read as f64;
        let (best, cpu) = runs[0];
        println!(
            "build {name:28} threads {:>3}: best {:6.3} s wall ({:7.0} games/s), median {:6.3} s, CPU {:5.2} s; {} games, {} positions, {} records",
            threads.map_or("all".to_string(), |t| t.to_string()),
            best.as_secs_f64(),
            games / best.as_secs_f64(),
            runs[RUNS / 2].0.as_secs_f64(),
            cpu,
            r.header.games.read,
            r.header.positions,
            r.header.records
        );
    }
    out
}

/// The moves of the ICCS collection's games, read with the library's own reader.
fn real_games() -> Vec<Vec<Move>> {
    let mut text = String::new();
    let file = std::fs::File::open(Path::new(DATA).join("ccpd-iccs.pgn.zst")).expect("data");
    zstd::Decoder::new(file).expect("zstd").read_to_string(&mut text).expect("read");
    let mut games = Vec::new();
    let mut cur = Vec::new();
    for line in text.lines() {
        if line.starts_with('[') {
            if !cur.is_empty() {
                games.push(std::mem::take(&mut cur));
            }
            continue;
        }
        for tok in line.split_whitespace() {
            if let Ok(m) = iccs::parse_move(tok) {
                cur.push(m);
            }
        }
    }
    if !cur.is_empty() {
        games.push(cur);
    }
    games
}

fn bench_probe(book_path: &Path) {
    let t = Instant::now();
    let book = Book::open(book_path).expect("open");
    println!(
        "open {} ({} records, full verification): {:.1} ms",
        book_path.display(),
        book.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut positions = Vec::new();
    for (i, g) in real_games().iter().enumerate().step_by(7) {
        let mut pos = Position::startpos();
        for &m in g.iter().take(10 + i % 30) {
            pos = pos.play_unchecked(m);
        }
        positions.push(pos);
    }
    let rounds = 5;
    let time = |name: &str, book: &Book, fresh: &dyn Fn() -> Book| {
        // Warm: the same reader for every round (its bucket cache fills in round 1).
        let mut found = 0usize;
        let t = Instant::now();
        for _ in 0..rounds {
            for p in &positions {
                found += book.probe(p).expect("book readable").len();
            }
        }
        let warm = t.elapsed().as_secs_f64() / (rounds * positions.len()) as f64;
        // Cold reader cache (a fresh reader per round; the OS page cache stays warm).
        let mut cold = 0.0;
        for _ in 0..rounds {
            let b = fresh();
            let t = Instant::now();
            for p in &positions {
                found += b.probe(p).expect("book readable").len();
            }
            cold += t.elapsed().as_secs_f64();
        }
        let cold = cold / (rounds * positions.len()) as f64;
        println!(
            "probe ({name}): {:.2} us per position warm, {:.2} us cold ({} positions x {rounds}, {} moves found)",
            warm * 1e6,
            cold * 1e6,
            positions.len(),
            found / (2 * rounds)
        );
    };
    time("positioned reads, the default", &book, &|| Book::open_with(book_path, Verify::Structure).expect("open"));
    // Safety: the benchmark's own temporary book is not modified while mapped.
    let mapped = unsafe { Book::open_mmap(book_path, Verify::Structure) }.expect("map");
    time("memory map, Book::open_mmap", &mapped, &|| {
        // Safety: as above.
        unsafe { Book::open_mmap(book_path, Verify::Structure) }.expect("map")
    });
}

/// Writes 1,000,000 games: each real game 40 times (fewer for the last copy), each copy
/// following the original up to a random ply (4-39), then playing random legal moves up to the
/// original game's length. Returns (games, plies).
fn synthetic(path: &Path, notation: Notation) -> (u64, u64) {
    let games = real_games();
    let file = std::fs::File::create(path).expect("create");
    let mut out = zstd::Encoder::new(file, 1).expect("zstd").auto_finish();
    let mut rng = Rng::new(2024);
    let results = ["1-0", "0-1", "1/2-1/2"];
    let mut n = 0u64;
    let mut plies = 0u64;
    let mut text = String::new();
    'outer: for copy in 0..40 {
        for g in &games {
            if n == 1_000_000 {
                break 'outer;
            }
            let deviate = 4 + (rng.next_u64() % 36) as usize;
            let mut pos = Position::startpos();
            text.clear();
            text.push_str(&format!(
                "[Event \"synthetic {copy}\"]\n[Result \"{}\"]\n\n",
                results[(rng.next_u64() % 3) as usize]
            ));
            let mut off_book = false;
            for (ply, &orig) in g.iter().enumerate() {
                // From the deviation on, and once the original moves stop being legal, random
                // legal moves keep the game as long as the original.
                off_book |= (ply == deviate && copy > 0) || !pos.is_legal(orig);
                let m = if off_book {
                    let legal = pos.moves();
                    if legal.is_empty() {
                        break;
                    }
                    legal[(rng.next_u64() % legal.len() as u64) as usize]
                } else {
                    orig
                };
                if ply % 2 == 0 {
                    text.push_str(&format!("{}. ", ply / 2 + 1));
                }
                text.push_str(&notation::format(&pos, m, notation));
                text.push(' ');
                pos.make_move(m);
                plies += 1;
            }
            text.push_str("*\n\n");
            out.write_all(text.as_bytes()).expect("write");
            n += 1;
        }
    }
    (n, plies)
}

fn child_build(input: &str, out: &str, memory: u64) {
    let head_only = std::env::var_os("BOOK_BENCH_HEAD_ONLY").is_some();
    let opts = BuildOptions { memory, whole_games: !head_only, ..BuildOptions::default() };
    let cpu = cpu_seconds();
    let t = Instant::now();
    let r = book::build(&[PathBuf::from(input)], Path::new(out), &opts).expect("build");
    let (wall, cpu) = (t.elapsed(), cpu_seconds() - cpu);
    println!(
        "build synthetic{}: {} games in {:.1} s wall ({:.0} games/s), CPU {:.1} s, peak RSS {:.0} MiB, {} runs spilled; {} positions, {} records, {} MB book",
        if head_only { " (--head-only)" } else { "" },
        r.header.games.read,
        wall.as_secs_f64(),
        r.header.games.read as f64 / wall.as_secs_f64(),
        cpu,
        peak_rss_mib(),
        r.runs_spilled,
        r.header.positions,
        r.header.records,
        std::fs::metadata(out).map(|m| m.len() / 1_000_000).unwrap_or(0)
    );
}

fn parse_size(s: &str) -> u64 {
    let s = s.trim();
    let (n, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().unwrap_or(1 << 30) * mult
}

fn main() {
    if let Ok(spec) = std::env::var("BOOK_BENCH_CHILD") {
        let mut parts = spec.splitn(3, '\t');
        let (input, out, memory) =
            (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or("1G"));
        child_build(input, out, parse_size(memory));
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("qiku-book-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    if std::env::var_os("BOOK_BENCH_PROBE_ONLY").is_some() {
        let out = dir.join("ccpd-iccs.qbk");
        build_once(&Path::new(DATA).join("ccpd-iccs.pgn.zst"), &out, None, 1 << 30);
        bench_probe(&out);
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    if std::env::var_os("BOOK_BENCH_SKIP_SMALL").is_none() {
        let iccs_book = bench_build("ccpd-iccs.pgn.zst", &dir);
        bench_build("ccpd-chinese-utf8.pgn.zst", &dir);
        bench_probe(&iccs_book);
    }

    if let Ok(which) = std::env::var("BOOK_BENCH_1M") {
        let notation: Notation = which.parse().unwrap_or(Notation::Iccs);
        // BOOK_BENCH_SYNTHETIC=FILE keeps the generated collection there (and reuses it).
        let kept = std::env::var_os("BOOK_BENCH_SYNTHETIC").map(PathBuf::from);
        let input = kept.clone().unwrap_or_else(|| dir.join(format!("synthetic-1m-{}.pgn.zst", notation.name())));
        if !input.exists() {
            let t = Instant::now();
            let (n, plies) = synthetic(&input, notation);
            println!(
                "generated {n} synthetic games ({}, {:.1} plies on average) in {:.1} s: {} MB compressed",
                notation.name(),
                plies as f64 / n as f64,
                t.elapsed().as_secs_f64(),
                std::fs::metadata(&input).map(|m| m.len() / 1_000_000).unwrap_or(0)
            );
        }
        let memory = std::env::var("BOOK_BENCH_MEMORY").unwrap_or_else(|_| "1G".into());
        let out = dir.join("synthetic.qbk");
        let spec = format!("{}\t{}\t{memory}", input.display(), out.display());
        let status = std::process::Command::new(std::env::current_exe().expect("exe"))
            .env("BOOK_BENCH_CHILD", spec)
            .status()
            .expect("child");
        assert!(status.success());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
