//! Perft speed from the start position, single-threaded: nodes per second with and without bulk
//! counting, and make/unmake against copy-make. Prints figures; asserts the counts.
//! `cargo bench --bench perft [-- DEPTH]` (default depth 5).

use qiku::core::perft::{perft, perft_bulk};
use qiku::{MoveList, Position};
use std::time::Instant;

fn perft_copy(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|&m| perft_copy(&pos.play_unchecked(m), depth - 1)).sum()
}

/// Nanoseconds this thread has run on a CPU (Linux), so figures stay honest on a busy machine.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

type Run = Box<dyn Fn(&mut Position) -> u64>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(5);
    // `cargo bench --bench perft -- 4 nobulk` runs only the runs whose name contains a filter word.
    let filter: Vec<&str> =
        args.iter().filter(|a| a.parse::<u32>().is_err() && !a.starts_with("--")).map(|s| s.as_str()).collect();
    let expected = [1u64, 44, 1920, 79666, 3290240, 133312995, 5392831844];
    let mut pos = Position::startpos();
    let runs: [(&str, Run); 3] = [
        ("make/unmake, no bulk counting", Box::new(move |p| perft(p, depth))),
        ("make/unmake, bulk counting", Box::new(move |p| perft_bulk(p, depth))),
        ("copy-make, no bulk counting", Box::new(move |p| perft_copy(p, depth))),
    ];
    for (name, run) in runs.iter() {
        if !filter.is_empty() && !filter.iter().any(|f| name.replace([' ', ','], "").contains(f)) {
            continue;
        }
        let (t, cpu0) = (Instant::now(), cpu_ns());
        let nodes = run(&mut pos);
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_ns().zip(cpu0).map(|(b, a)| (b - a) as f64 / 1e9).unwrap_or(secs);
        assert_eq!(Some(&nodes), expected.get(depth as usize), "perft {depth} count");
        println!(
            "perft {depth} start, {name:30} {nodes:>11} nodes  wall {secs:6.2} s {:6.1} M/s  cpu {cpu:6.2} s {:6.1} M/s",
            nodes as f64 / secs / 1e6,
            nodes as f64 / cpu / 1e6
        );
    }
}
