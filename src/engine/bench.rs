//! `qiku bench`: a fixed set of positions searched to a fixed depth with one thread and a cleared
//! table before each, so the total node count is a signature of the search's behaviour (it changes
//! exactly when the search or the evaluation does) and nodes per second measure speed.

use super::ordering::History;
use super::search::{self, SearchOptions, Shared};
use super::time::Limits;
use super::tt::TableSizeError;
use crate::core::{Game, Position, PositionError};
use std::fmt;
use std::time::{Duration, Instant};

/// Why a bench could not run.
///
/// ```
/// use qiku::engine::bench::{self, BenchError};
///
/// let err = bench::run(&["not a fen"], 1, 1, |_| {}).unwrap_err();
/// assert!(matches!(err, BenchError::Fen { .. }));
/// assert!(err.to_string().starts_with("bench position \"not a fen\": "), "{err}");
/// // 2^44 MiB of table: refused before any position is read.
/// assert!(matches!(bench::run(&["not a fen"], 1, 1 << 44, |_| {}), Err(BenchError::Hash(_))));
/// ```
#[derive(Debug)]
pub enum BenchError {
    /// A position is not a valid FEN.
    Fen {
        /// The FEN as given.
        fen: String,
        /// What is wrong with it.
        source: PositionError,
    },
    /// The transposition table could not be allocated.
    Hash(TableSizeError),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Fen { fen, source } => write!(f, "bench position {fen:?}: {source}"),
            BenchError::Hash(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BenchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BenchError::Fen { source, .. } => Some(source),
            BenchError::Hash(e) => Some(e),
        }
    }
}

/// Start position, middlegames from master games, and endgames.
pub const POSITIONS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    // Middlegames from CCPD master games (plies 24-48).
    "2bakab2/5r3/1cn1c1n2/2C1p1p1p/9/1p4P2/P1r1P3P/1RN1C1N2/4A4/2BAK1BR1 w - - 2 13",
    "2bak1b2/2n1a4/3cc1n2/prp1p3p/1C4p2/P1P6/4P1P1P/2N3N1C/4A4/1RBAK1B2 w - - 13 13",
    "1r1akab2/5R3/bcn1c1n2/p3R3p/2p3p2/9/P1PrP1P1P/2NCC1N2/4A4/2BAK1B2 w - - 1 13",
    "2b1ka3/4an3/3cb3c/4C1p1p/2p6/1R4P2/3rP3P/B5N2/4A4/2CAK1B2 w - - 1 19",
    "2b1kab2/4a4/c5n1c/pr6p/5nR2/4R1P2/P1P2r2P/C1N1C1N2/9/2BAKAB2 w - - 1 19",
    "2bakab2/6c2/2n1c1R2/p1p1p3p/9/2P1PN3/PrN5P/4C4/9/2BAKAB2 w - - 1 19",
    "4kab2/4a4/2n1b3c/2R3P2/p3p4/5p3/P3P1c2/N2CB1Nr1/4A4/2BAK4 w - - 5 25",
    "1r2kabr1/3c5/2nab3n/p2Np3p/2p6/PR6P/2P1P3R/N8/2C1A2C1/2BAK3c w - - 14 25",
    // Endgames.
    "3aka3/9/4b4/9/9/2P6/9/4B4/9/3AK1R2 w - - 0 1",
    "4k4/9/4b4/9/6r2/9/9/4B4/4A4/2NCK4 w - - 0 1",
    "3k5/9/4P4/9/9/9/9/9/4p4/5K3 w - - 0 1",
];

/// Default depth of `qiku bench`.
pub const DEFAULT_DEPTH: u32 = 10;

/// One position's figures.
///
/// ```
/// use qiku::engine::bench::{self, POSITIONS};
///
/// let mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1";
/// let mut seen = Vec::new();
/// let lines = bench::run(&[POSITIONS[0], mated], 2, 1, |line| seen.push(line.fen.clone()))?;
/// assert_eq!(seen, [POSITIONS[0], mated]); // each line as its position is done
/// assert!(lines[0].nodes > 0 && lines[0].best != "(none)");
/// assert_eq!(lines[1].best, "(none)"); // no legal move
/// # Ok::<(), bench::BenchError>(())
/// ```
#[derive(Clone, Debug)]
pub struct BenchLine {
    /// The position searched.
    pub fen: String,
    /// Nodes the search visited.
    pub nodes: u64,
    /// Time it took.
    pub time: Duration,
    /// The best move found (ICCS), or `(none)`.
    pub best: String,
}

/// Searches every position of `fens` to `depth` (one thread, `hash_mib` table cleared before each
/// position, fresh history) and returns the figures per position.
///
/// ```
/// use qiku::engine::bench::{self, POSITIONS};
///
/// let lines = bench::run(&POSITIONS[..2], 4, 8, |_line| {})?;
/// assert_eq!(lines.len(), 2);
/// assert!(lines.iter().all(|l| l.nodes > 0 && l.best != "(none)"));
/// // The same search again visits the same nodes: the count is a signature of the search.
/// let again = bench::run(&POSITIONS[..2], 4, 8, |_line| {})?;
/// assert_eq!(lines.iter().map(|l| l.nodes).collect::<Vec<_>>(), again.iter().map(|l| l.nodes).collect::<Vec<_>>());
/// assert!(bench::run(&["not a fen"], 4, 8, |_| {}).is_err());
/// # Ok::<(), bench::BenchError>(())
/// ```
pub fn run(
    fens: &[&str],
    depth: u32,
    hash_mib: usize,
    mut progress: impl FnMut(&BenchLine),
) -> Result<Vec<BenchLine>, BenchError> {
    let shared = Shared::try_new(hash_mib).map_err(BenchError::Hash)?;
    let options = SearchOptions::default();
    let mut lines = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(fen).map_err(|source| BenchError::Fen { fen: fen.to_string(), source })?;
        shared.tt.clear();
        shared.stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut history = History::default();
        let game = Game::new(pos);
        let t = Instant::now();
        let r = search::search(&game, &Limits::depth(depth), &options, &shared, &mut history, &mut |_| {});
        let line = BenchLine {
            fen: fen.to_string(),
            nodes: r.nodes,
            time: t.elapsed(),
            best: r.best.map_or("(none)".into(), |m| m.to_string()),
        };
        progress(&line);
        lines.push(line);
    }
    Ok(lines)
}

/// Total nodes of [`POSITIONS`] at [`DEFAULT_DEPTH`] with a 16 MiB table (`qiku bench`'s
/// defaults): the search's signature, pinned by a test so that any change to what the search does
/// shows (change it only with a change meant to alter the search, and say so in the commit).
pub const SIGNATURE: u64 = 667_024;
