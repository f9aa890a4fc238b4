//! Parse and format speed of the move notations over real moves: the first 1,000 games of the
//! CCPD Chinese collection (about 97,000 moves), each token parsed in its own position.
//! Criterion reports moves per second (with confidence intervals) for Chinese, WXF and ICCS
//! parsing, for formatting, and for a full replay (parse + make_move) as a book compiler does it.
//! `cargo bench --bench notation [-- FILTER]`.

// `criterion_group!` with a config block defines an undocumented public function.
#![allow(missing_docs)]

#[path = "../tests/common/ccpd.rs"]
mod ccpd;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qiku::notation::{chinese, iccs, wxf};
use qiku::{Move, Position};
use std::hint::black_box;
use std::time::Duration;

struct Sample {
    pos: Position,
    chinese: String,
    wxf: String,
    iccs: String,
    m: Move,
}

/// Every move of the sample games in its position and notations, and the games as token lists.
fn samples() -> (Vec<Sample>, Vec<(Position, Vec<String>)>) {
    let games = ccpd::read_games(ccpd::CHINESE, Some(1000));
    let mut samples = Vec::new();
    let mut lines = Vec::new();
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
    println!("{} games, {} moves", games.len(), samples.len());
    (samples, lines)
}

fn notation(c: &mut Criterion) {
    let (samples, lines) = samples();
    let mut group = c.benchmark_group("notation");
    group.throughput(Throughput::Elements(samples.len() as u64));
    // Each parser is checked to give back every sample's move before it is timed, so a wrong
    // parse shows as a failed assertion instead of a fast benchmark.
    type Parser = fn(&Sample) -> Option<Move>;
    let parsers: [(&str, Parser); 4] = [
        ("chinese::parse", |s| chinese::parse(&s.pos, black_box(&s.chinese)).ok()),
        ("wxf::parse", |s| wxf::parse(&s.pos, black_box(&s.wxf)).ok()),
        ("iccs::parse", |s| iccs::parse(&s.pos, black_box(&s.iccs)).ok()),
        ("notation::parse_any (chinese)", |s| {
            qiku::notation::parse_any(&s.pos, black_box(&s.chinese)).ok().map(|r| r.0)
        }),
    ];
    for (name, parse) in parsers {
        let n = samples.iter().filter(|s| parse(s) == Some(s.m)).count();
        assert_eq!(n, samples.len(), "{name}: every sample move must parse back to itself");
        group.bench_function(name, |b| b.iter(|| samples.iter().filter(|s| parse(black_box(s)).is_some()).count()));
    }
    let mut buf = String::new();
    group.bench_function("chinese::write (CCPD style)", |b| {
        b.iter(|| {
            for s in &samples {
                buf.clear();
                chinese::write(&s.pos, black_box(s.m), chinese::Style::CCPD, &mut buf);
            }
            buf.len()
        })
    });
    group.bench_function("wxf::write", |b| {
        b.iter(|| {
            for s in &samples {
                buf.clear();
                wxf::write(&s.pos, black_box(s.m), &mut buf);
            }
            buf.len()
        })
    });
    group.bench_function("replay: chinese::parse + make_move", |b| {
        b.iter(|| {
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
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    // Each iteration handles ~97,000 moves (tens of milliseconds), so few samples suffice.
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = notation
}
criterion_main!(benches);
