//! The bench signature (Stockfish's practice): the total node count of `qiku bench` at its default
//! depth is pinned, so that any change to what the search or the evaluation does shows here. A
//! change meant to alter the search updates `qiku::engine::bench::SIGNATURE` in the same commit.

use qiku::engine::bench;

#[test]
#[cfg_attr(debug_assertions, ignore = "about a minute unoptimised; `cargo test --release` runs it")]
fn bench_node_count_is_the_pinned_signature() {
    let lines = bench::run(bench::POSITIONS, bench::DEFAULT_DEPTH, 16, |_| {}).expect("bench runs");
    assert_eq!(lines.len(), bench::POSITIONS.len());
    // Every position searched something (a position skipped would lower the sum silently).
    assert!(lines.iter().all(|l| l.nodes > 0 && l.best != "(none)"), "{lines:?}");
    let total: u64 = lines.iter().map(|l| l.nodes).sum();
    assert_eq!(total, bench::SIGNATURE, "the search's node count changed: update SIGNATURE only if meant");
}

#[test]
fn bench_reports_bad_input() {
    let e = bench::run(&["not a fen"], 1, 1, |_| {}).err();
    assert!(matches!(e, Some(bench::BenchError::Fen { .. })), "{e:?}");
    let e = bench::run(bench::POSITIONS, 1, 1 << 40, |_| {}).err();
    assert!(matches!(e, Some(bench::BenchError::Hash(_))), "{e:?}");
}
