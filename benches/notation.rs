//! Parse and format speed of the move notations over real moves: the first 1,000 games of the
//! CCPD Chinese collection (about 97,000 moves), each token parsed in its own position.
//! Prints moves per second (CPU time of this thread, so a busy machine does not skew it) for
//! Chinese, WXF and ICCS parsing, for formatting, and for a full replay (parse + make_move) as
//! a book compiler does it. `cargo bench --bench notation`.

#[path = "../tests/common/ccpd.rs"]
mod ccpd;

use qiku::notation::{chinese, iccs, wxf};
use qiku::{Move, Position};
use std::hint::black_box;
use std::time::Instant;

/// Nanoseconds this thread has run on a CPU (Linux), else wall time.
fn cpu_ns(wall: Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| wall.elapsed().as_nanos() as u64)
}

/// Runs `f` (which handles `n` moves) repeatedly for about a second and prints moves per second.
fn measure(name: &str, n: usize, mut f: impl FnMut() -> usize) {
    let wall = Instant::now();
    let start = cpu_ns(wall);
    let (mut rounds, mut check) = (0u64, 0usize);
    while rounds < 3 || cpu_ns(wall) - start < 1_000_000_000 {
        check = check.wrapping_add(f());
        rounds += 1;
    }
    let secs = (cpu_ns(wall) - start) as f64 / 1e9;
    let rate = n as f64 * rounds as f64 / secs;
    println!("{name:<34} {:>8.2} M moves/s  ({:.0} ns/move, check {check})", rate / 1e6, 1e9 / rate);
}

struct Sample {
    pos: Position,
    chinese: String,
    wxf: String,
    iccs: String,
    m: Move,
}

fn main() {
    let games = ccpd::read_games(ccpd::CHINESE, Some(1000));
    let mut samples = Vec::new();
    let mut lines: Vec<(Position, Vec<String>)> = Vec::new();
    for game in &games {
        let fen = game.tag("FEN").unwrap_or(qiku::core::START_FEN);
        let Ok(start) = Position::from_fen(fen) else { continue };
        let mut pos = start.clone();
        for token in &game.moves {
            let Ok(m) = chinese::parse(&pos, token) else { break };
            samples.push(Sample {
                pos: pos.clone(),
                chinese: token.clone(),
                wxf: wxf::format(&pos, m),
                iccs: iccs::format(m),
                m,
            });
            pos.make_move(m);
        }
        lines.push((start, game.moves.clone()));
    }
    let n = samples.len();
    println!("{} games, {n} moves", games.len());
    let ok = |r: Result<Move, _>, m: Move| (r == Ok(m)) as usize;
    measure("chinese::parse", n, || {
        samples.iter().map(|s| ok(chinese::parse(black_box(&s.pos), black_box(&s.chinese)), s.m)).sum()
    });
    measure("wxf::parse", n, || {
        samples.iter().map(|s| ok(wxf::parse(black_box(&s.pos), black_box(&s.wxf)), s.m)).sum()
    });
    measure("iccs::parse", n, || {
        samples.iter().map(|s| ok(iccs::parse(black_box(&s.pos), black_box(&s.iccs)), s.m)).sum()
    });
    measure("notation::parse_any (chinese)", n, || {
        samples.iter().map(|s| ok(qiku::notation::parse_any(&s.pos, black_box(&s.chinese)).map(|r| r.0), s.m)).sum()
    });
    let mut buf = String::new();
    measure("chinese::write (CCPD style)", n, || {
        samples
            .iter()
            .map(|s| {
                buf.clear();
                chinese::write(&s.pos, black_box(s.m), chinese::Style::CCPD, &mut buf);
                buf.len()
            })
            .sum()
    });
    measure("wxf::write", n, || {
        samples
            .iter()
            .map(|s| {
                buf.clear();
                wxf::write(&s.pos, black_box(s.m), &mut buf);
                buf.len()
            })
            .sum()
    });
    measure("replay: chinese::parse + make_move", n, || {
        let mut count = 0;
        for (start, tokens) in &lines {
            let mut pos = start.clone();
            for t in tokens {
                let Ok(m) = chinese::parse(&pos, black_box(t)) else { break };
                pos.make_move(m);
                count += 1;
            }
        }
        count
    });
}
