//! Renju speed: `cargo bench --bench renju`. Prints figures (best of several runs, one thread):
//!
//! - single-point forbidden checks per second on mid-game positions, over the empty points
//!   within two of a stone (where the shapes are) and over every empty point;
//! - full-board scans (`Board::forbidden_points`) per second;
//! - full valuations (`eval::evaluate`) per second;
//! - VCF searches on the same positions (time, how many found);
//! - and first the time to build the line tables.
//!
//! The positions are reproducible: from a seeded generator, 30 to 60 stones placed next to
//! earlier ones in the middle of the board, no five on the board and black never on a forbidden
//! point, so that they hold the dense, threat-rich shapes of real middle games.

use qiku_renju::eval::{self, Ruleset};
use qiku_renju::vcf::{find_vcf, VcfLimits};
use qiku_renju::{Board, Point, Stone};
use std::hint::black_box;
use std::time::{Duration, Instant};

const POSITIONS: usize = 200;
const RUNS: usize = 5;

fn positions() -> Vec<Board> {
    let mut seed: u64 = 0x853c_49e6_748f_ea9b;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut out = Vec::new();
    while out.len() < POSITIONS {
        let mut b = Board::new();
        b.put(Point::CENTRE, Stone::Black);
        let target = 30 + next(31) as usize;
        let mut tries = 0;
        while b.stone_count() < target && tries < 10_000 {
            tries += 1;
            let stones: Vec<Point> = Point::all().filter(|&p| !b.is_empty(p)).collect();
            let base = stones[next(stones.len() as u64) as usize];
            let (dc, dr) = (next(5) as isize - 2, next(5) as isize - 2);
            let Some(p) = Point::new((base.col() as isize + dc) as usize, (base.row() as isize + dr) as usize) else {
                continue;
            };
            let side = b.to_move();
            if b.is_empty(p) && !b.makes_five(p, side) && (side == Stone::White || b.forbidden(p).is_none()) {
                b.put(p, side);
            }
        }
        out.push(b);
    }
    out
}

fn near(b: &Board) -> Vec<Point> {
    let stones: Vec<Point> = Point::all().filter(|&p| !b.is_empty(p)).collect();
    b.empty_points()
        .filter(|p| stones.iter().any(|q| q.col().abs_diff(p.col()) <= 2 && q.row().abs_diff(p.row()) <= 2))
        .collect()
}

/// Best of RUNS of `f`, which returns a count of operations.
fn best(mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        n = f();
        best = best.min(t.elapsed());
    }
    (best, n)
}

fn report(what: &str, (time, n): (Duration, usize)) {
    let rate = n as f64 / time.as_secs_f64();
    println!("{what:<52} {n:>9} in {:>9.3} ms = {rate:>12.0} /s", time.as_secs_f64() * 1e3);
}

fn main() {
    // First use builds the line tables: time it before anything else touches them.
    let t = Instant::now();
    black_box(qiku_renju::line::table(qiku_renju::line::FiveRule::Exact));
    black_box(qiku_renju::line::table(qiku_renju::line::FiveRule::AtLeast));
    println!("building both line tables (first use): {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
    let boards = positions();
    let stones: usize = boards.iter().map(Board::stone_count).sum();
    let near_points: Vec<Vec<Point>> = boards.iter().map(near).collect();
    let forbidden: usize = boards.iter().map(|b| b.forbidden_points().len()).sum();
    println!(
        "{POSITIONS} positions, {:.1} stones and {:.1} forbidden points each on average",
        stones as f64 / POSITIONS as f64,
        forbidden as f64 / POSITIONS as f64
    );
    report(
        "single-point checks, points near stones",
        best(|| {
            let mut n = 0;
            for (b, pts) in boards.iter().zip(&near_points) {
                for &p in pts {
                    black_box(b.forbidden(black_box(p)));
                    n += 1;
                }
            }
            n
        }),
    );
    report(
        "single-point checks, every empty point",
        best(|| {
            let mut n = 0;
            for b in &boards {
                for p in b.empty_points() {
                    black_box(b.forbidden(black_box(p)));
                    n += 1;
                }
            }
            n
        }),
    );
    report(
        "full-board scans (forbidden_points)",
        best(|| {
            for b in &boards {
                black_box(b.forbidden_points());
            }
            boards.len()
        }),
    );
    report(
        "full valuations (every empty point, side to move)",
        best(|| {
            for b in &boards {
                black_box(eval::evaluate(b, b.to_move(), Ruleset::Renju));
            }
            boards.len()
        }),
    );
    let limits = VcfLimits { max_nodes: 20_000, ..VcfLimits::default() };
    let t = Instant::now();
    let (mut found, mut nodes) = (0, 0u64);
    for b in &boards {
        for side in [Stone::Black, Stone::White] {
            if let Some(v) = find_vcf(b, side, Ruleset::Renju, limits) {
                found += 1;
                nodes += v.nodes;
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "VCF searches (both sides, at most 20,000 nodes each): {} searches in {:.1} ms, {found} VCFs found \
         ({nodes} nodes in successful searches)",
        2 * boards.len(),
        secs * 1e3
    );
}
