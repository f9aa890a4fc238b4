//! The qiku engine: evaluation ([`eval`]), move ordering ([`ordering`]), transposition table
//! ([`tt`]), search ([`search`]), time management ([`time`]) and the UCI and UCCI front ends ([`uci`], [`ucci`]).
//!
//! [`Engine`] ties them together the way a game needs it: at the root, a book move while the
//! position is in the opening book, else the DTM-best move when an endgame table covers the
//! position, else a search (which itself probes the tables inside the tree). The book and the
//! tablebases are reached through the small traits [`OpeningBook`] and [`Endgames`], so the
//! search does not depend on their file formats.

pub mod adapters;
pub mod bench;
pub mod eval;
pub mod ordering;
pub mod search;
pub mod time;
pub mod tt;
pub mod ucci;
pub mod uci;

use crate::core::{Game, Move, Position};
use ordering::History;
use search::{SearchOptions, SearchResult, Shared, MATE, MATE_BOUND};
use std::fmt;
use std::sync::Arc;
use time::Limits;

pub use search::Info;

/// A search score as reported: centipawn-like units, or a mate distance in moves (positive: the
/// side to move mates; `Mate(0)`: the side to move is mated).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// From an internal search value (`MATE - plies` for a mate in `plies`).
    pub fn from_value(v: eval::Value) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }

    /// `cp 25` or `mate -3`.
    pub fn to_uci(self) -> String {
        match self {
            Score::Cp(v) => format!("cp {v}"),
            Score::Mate(n) => format!("mate {n}"),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(v) => write!(f, "{:+.2}", v as f64 / 100.0),
            Score::Mate(n) => write!(f, "#{n}"),
        }
    }
}

/// An endgame table's verdict, from the side to move's view, with the distance to mate in plies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TbValue {
    Win { plies: u32 },
    Loss { plies: u32 },
    Draw,
}

/// Endgame tables as the search uses them.
pub trait Endgames: Send + Sync {
    /// The most pieces (kings included) any loaded table covers.
    fn max_pieces(&self) -> u32;
    /// The exact value of `pos`, if a loaded table covers its material.
    fn probe(&self, pos: &Position) -> Option<TbValue>;
    /// Every legal move with its value for the side to move, best first (fastest win, then
    /// draws, then slowest loss; ties in a fixed order); `None` if a table is missing.
    fn move_values(&self, pos: &Position) -> Option<Vec<(Move, TbValue)>>;
}

/// An opening book as the engine uses it: the move to play by the configured policy.
pub trait OpeningBook: Send + Sync {
    fn pick(&self, pos: &Position) -> Option<Move>;
}

/// Where a decision came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Book,
    Tablebase,
    Search,
}

/// The engine: its table, options, book and tables, and the history heuristic it carries from
/// move to move.
pub struct Engine {
    pub shared: Arc<Shared>,
    pub options: SearchOptions,
    pub book: Option<Arc<dyn OpeningBook>>,
    /// Largest number of pieces for which the root plays the tablebase move.
    pub tb_root_limit: u32,
    history: History,
}

impl Engine {
    pub fn new(hash_mib: usize) -> Engine {
        Engine {
            shared: Arc::new(Shared::new(hash_mib)),
            options: SearchOptions::default(),
            book: None,
            tb_root_limit: 5,
            history: History::default(),
        }
    }

    /// Replaces the transposition table by one of `mib` MiB (empty).
    pub fn set_hash(&mut self, mib: usize) {
        self.shared = Arc::new(Shared::new(mib));
    }

    /// Forgets what earlier searches learned.
    pub fn new_game(&mut self) {
        self.shared.tt.clear();
        self.history.clear();
    }

    /// Chooses a move for the game's current position: book, then tablebase (a won or lost
    /// position plays the table's best move; a drawn one searches among the drawing moves), then
    /// search.
    /// `on_info` receives the search lines (and one line for a tablebase move). The caller resets
    /// `shared.stop` before and may set it from another thread to end the search.
    pub fn think(&mut self, game: &Game, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> (SearchResult, Source) {
        let pos = game.position();
        if let Some(book) = &self.book {
            // A book move outside `searchmoves` (UCCI's `banmoves`) is not played.
            let allowed = |m: &Move| limits.searchmoves.is_empty() || limits.searchmoves.contains(m);
            if let Some(m) = book.pick(pos).filter(|&m| pos.is_legal(m) && allowed(&m)) {
                let r =
                    SearchResult { best: Some(m), ponder: None, score: Score::Cp(0), depth: 0, nodes: 0, pv: vec![m] };
                return (r, Source::Book);
            }
        }
        let mut limits = limits.clone();
        if let Some(tb) = self.options.tablebases.clone() {
            if pos.occupied().count() <= self.tb_root_limit.min(5) {
                let values = tb.move_values(pos).map(|mut v| {
                    // Only the allowed root moves (`searchmoves`, UCCI's `banmoves`) count.
                    v.retain(|(m, _)| limits.searchmoves.is_empty() || limits.searchmoves.contains(m));
                    v
                });
                if let Some(values) = values.filter(|v| !v.is_empty()) {
                    let (m, v) = values[0];
                    if v != TbValue::Draw {
                        // Won: the fastest mate (DTM decreases every move, so no repetition can
                        // interfere). Lost: the longest defence.
                        let score = Score::from_value(search::tb_score(v, 0));
                        let info = Info {
                            depth: 1,
                            seldepth: 1,
                            score,
                            nodes: 0,
                            time: std::time::Duration::ZERO,
                            hashfull: 0,
                            tbhits: values.len() as u64,
                            pv: vec![m],
                        };
                        on_info(&info);
                        let r = SearchResult { best: Some(m), ponder: None, score, depth: 1, nodes: 0, pv: vec![m] };
                        return (r, Source::Tablebase);
                    }
                    // Drawn: the tables ignore repetition rules (a "drawing" perpetual check
                    // loses), so search among the drawing moves, which does apply them.
                    let drawing: Vec<Move> =
                        values.iter().filter(|(_, v)| *v == TbValue::Draw).map(|&(m, _)| m).collect();
                    limits.searchmoves = drawing;
                }
            }
        }
        self.history.age();
        let r = search::search(game, &limits, &self.options, &self.shared, &mut self.history, on_info);
        (r, Source::Search)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_conversion() {
        assert_eq!(Score::from_value(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_value(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_value(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_value(-MATE), Score::Mate(0));
        assert_eq!(Score::from_value(123), Score::Cp(123));
        assert_eq!(Score::Mate(-3).to_uci(), "mate -3");
        assert_eq!(Score::Cp(-40).to_string(), "-0.40");
    }
}
