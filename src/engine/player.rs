//! [`Engine`]: the decision at the root of a game (book, then tablebase, then search), with the
//! table, options and history it carries from move to move.

use super::ordering::History;
use super::search::{self, Info, SearchOptions, SearchResult, Shared};
use super::time::Limits;
use super::tt::TableSizeError;
use super::{OpeningBook, Score, MAX_TB_PIECES};
use crate::core::{Game, Move};
use crate::core::{TbValue, Verdict, Wdl};
use std::sync::Arc;

/// Where a decision came from.
///
/// ```
/// use qiku::engine::{time::Limits, Engine, OpeningBook, Source};
/// use qiku::{notation::iccs, Game, Move, Position};
/// use std::sync::Arc;
///
/// struct Central; // a book of one move
/// impl OpeningBook for Central {
///     fn pick(&self, pos: &Position) -> Option<Move> {
///         iccs::parse(pos, "h2e2").ok()
///     }
/// }
/// let (mut engine, game) = (Engine::new(1), Game::new(Position::startpos()));
/// assert_eq!(engine.think(&game, &Limits::depth(1), &mut |_| {}).1, Source::Search);
/// engine.book = Some(Arc::new(Central));
/// assert_eq!(engine.think(&game, &Limits::depth(1), &mut |_| {}).1, Source::Book);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The opening book's move.
    Book,
    /// The endgame tables' best move.
    Tablebase,
    /// The search's move.
    Search,
}

/// The engine: its table, options, book and tables, and the history heuristic it carries from
/// move to move.
///
/// ```
/// use qiku::engine::{time::Limits, Engine, Score, Source};
/// use qiku::{Game, Position};
///
/// let mut engine = Engine::new(1);
/// // Rook to d0 mates; with no book and no tables, the search finds it.
/// let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?);
/// let (result, source) = engine.think(&game, &Limits::depth(2), &mut |_| {});
/// assert_eq!(source, Source::Search);
/// assert_eq!((result.best.map(|m| m.to_string()), result.score), (Some("a0d0".to_string()), Score::Mate(1)));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub struct Engine {
    /// Transposition table and the flags the search threads share.
    pub shared: Arc<Shared>,
    /// Search options (threads, overhead, weights, tablebases).
    pub options: SearchOptions,
    /// The opening book, if one is set.
    pub book: Option<Arc<dyn OpeningBook>>,
    /// Largest number of pieces for which the root plays the tablebase move.
    pub tb_root_limit: u32,
    /// The tables' verdict on the position of the last [`Engine::think`], when they covered it
    /// (the front ends print it beside the score: rules and unit stated); a position without a
    /// legal move has its verdict too (a loss in 0 plies).
    pub last_verdict: Option<Verdict>,
    history: History,
    /// Whether the history was aged since the last search ([`Engine::age_history`]), so that the
    /// next [`Engine::think`] does not age it again.
    history_aged: bool,
}

/// An empty history whose memory is touched now: a fresh table's first touch (some
/// milliseconds, its 6 MiB mapped page by page) would otherwise be spent in the next search's time.
fn touched_history() -> History {
    let mut history = History::default();
    // Halving writes every cell of the tables it ages (zeros stay zeros).
    history.age();
    history
}

impl Engine {
    /// An engine with a `hash_mib` MiB table, default options, no book and no tablebases.
    ///
    /// ```
    /// use qiku::engine::{Engine, MAX_TB_PIECES};
    ///
    /// let engine = Engine::new(1);
    /// assert_eq!(engine.shared.tt.mib(), 1);
    /// assert!(engine.book.is_none() && engine.options.tablebases.is_none());
    /// assert_eq!((engine.options.threads, engine.tb_root_limit), (1, MAX_TB_PIECES));
    /// ```
    pub fn new(hash_mib: usize) -> Engine {
        Engine {
            shared: Arc::new(Shared::new(hash_mib)),
            options: SearchOptions::default(),
            book: None,
            tb_root_limit: MAX_TB_PIECES,
            last_verdict: None,
            history: touched_history(),
            history_aged: false,
        }
    }

    /// Replaces the transposition table by an empty one of `mib` MiB. The old table is let go
    /// first, so that its memory counts as available to the new one (the peak is the larger of
    /// the two, not both). If the memory cannot be had, the error says why and an empty table of
    /// the old size takes its place.
    ///
    /// ```
    /// use qiku::engine::Engine;
    ///
    /// let mut engine = Engine::new(1);
    /// engine.set_hash(2)?;
    /// assert_eq!(engine.shared.tt.mib(), 2);
    /// // 2^44 MiB is refused; an empty table of the old size takes its place.
    /// assert!(engine.set_hash(1 << 44).is_err());
    /// assert_eq!(engine.shared.tt.mib(), 2);
    /// # Ok::<(), qiku::engine::tt::TableSizeError>(())
    /// ```
    pub fn set_hash(&mut self, mib: usize) -> Result<(), TableSizeError> {
        let old = self.shared.tt.mib();
        self.shared = Arc::new(Shared::new(1));
        match Shared::try_new(mib) {
            Ok(shared) => {
                self.shared = Arc::new(shared);
                Ok(())
            }
            Err(e) => {
                // The old size fitted before and its memory is free again.
                self.shared = Arc::new(Shared::try_new(old).unwrap_or_else(|_| Shared::new(1)));
                Err(e)
            }
        }
    }

    /// Forgets what earlier searches learned.
    ///
    /// ```
    /// use qiku::engine::{time::Limits, Engine};
    /// use qiku::{Game, Position};
    ///
    /// let mut engine = Engine::new(1);
    /// let game = Game::new(Position::startpos());
    /// engine.think(&game, &Limits::depth(2), &mut |_| {});
    /// let key = game.position().key();
    /// assert!(engine.shared.tt.probe(key).is_some()); // the search stored the root
    /// engine.new_game();
    /// assert!(engine.shared.tt.probe(key).is_none());
    /// ```
    pub fn new_game(&mut self) {
        self.shared.tt.clear();
        self.history = touched_history();
    }

    /// Ages the history now, between moves (the UCI session does it after writing `bestmove`),
    /// rather than at the start of the next [`Engine::think`]: its millisecond then falls outside
    /// the time of the next move. The searches are the same either way.
    ///
    /// ```
    /// use qiku::engine::{time::Limits, Engine};
    /// use qiku::{Game, Position};
    ///
    /// let game = Game::new(Position::startpos());
    /// let (mut now, mut later) = (Engine::new(1), Engine::new(1));
    /// now.think(&game, &Limits::depth(3), &mut |_| {});
    /// later.think(&game, &Limits::depth(3), &mut |_| {});
    /// now.age_history(); // between moves; `later` ages at its next think
    /// let (a, _) = now.think(&game, &Limits::depth(4), &mut |_| {});
    /// let (b, _) = later.think(&game, &Limits::depth(4), &mut |_| {});
    /// assert_eq!(a, b); // the same search, node for node
    /// ```
    pub fn age_history(&mut self) {
        if !self.history_aged {
            self.history.age();
            self.history_aged = true;
        }
    }

    /// Chooses a move for the game's current position: book, then tablebase (a won or lost
    /// position plays the table's best move; a drawn one searches among the drawing moves), then
    /// search.
    /// `on_info` receives the search lines (and one line for a tablebase move). The caller resets
    /// `shared.stop` before and may set it from another thread to end the search.
    ///
    /// Searching the position after 炮二平五 to depth 5 (`Limits::movetime(ms)` would search for a
    /// fixed time instead), then writing the principal variation in Chinese notation:
    ///
    /// ```
    /// use qiku::engine::{time::Limits, Engine, Source};
    /// use qiku::notation::chinese;
    /// use qiku::{notation::iccs, Game, Position};
    ///
    /// let mut game = Game::new(Position::startpos());
    /// game.play(iccs::parse(game.position(), "h2e2")?)?;
    /// let mut engine = Engine::new(16);
    /// let mut lines = 0;
    /// let (result, source) = engine.think(&game, &Limits::depth(5), &mut |_info| lines += 1);
    /// assert_eq!(source, Source::Search);
    /// assert_eq!((lines, result.depth), (5, 5)); // one line per completed depth
    /// let mut pos = game.position().clone();
    /// let mut words = Vec::new();
    /// for &m in &result.pv {
    ///     words.push(chinese::format(&pos, m));
    ///     pos = pos.play(m)?; // the principal variation is a line of legal moves
    /// }
    /// assert_eq!(result.best, result.pv.first().copied());
    /// assert!(!words.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn think(&mut self, game: &Game, limits: &Limits, on_info: &mut dyn FnMut(&Info)) -> (SearchResult, Source) {
        let pos = game.position();
        self.last_verdict = None;
        // `go infinite` is analysis: a book move would end it at once with no line to show.
        if let Some(book) = self.book.as_ref().filter(|_| !limits.infinite) {
            // A book move outside `searchmoves` (UCCI's `banmoves`) is not played.
            let allowed = |m: &Move| limits.searchmoves.is_empty() || limits.searchmoves.contains(m);
            if let Some(m) = book.pick_among(pos, &allowed).filter(|&m| pos.is_legal(m) && allowed(&m)) {
                let r =
                    SearchResult { best: Some(m), ponder: None, score: Score::Cp(0), depth: 0, nodes: 0, pv: vec![m] };
                return (r, Source::Book);
            }
        }
        let mut limits = limits.clone();
        let mut drawn_root = false;
        if let Some(tb) = self.options.tablebases.clone() {
            if pos.occupied().count() <= self.tb_root_limit {
                let values = tb.move_values(pos).map(|mut v| {
                    // Only the allowed root moves (`searchmoves`, UCCI's `banmoves`) count.
                    v.retain(|(m, _)| limits.searchmoves.is_empty() || limits.searchmoves.contains(m));
                    v
                });
                // The position's own value must be readable too: its moves' values alone (its own
                // entry in a damaged block) would play and announce a value every other tool
                // refuses to give. The search goes on without the table instead.
                let values = values.filter(|_| tb.probe(pos).is_some());
                if values.is_some() {
                    // Covered: the verdict is the tables' even with no move to choose (mated,
                    // stalemated), as `qiku probe --tb` and `Tablebases.probe` give it.
                    self.last_verdict = tb.verdict(pos);
                }
                // The tables' values do not count the 120-ply limit: a win or loss whose mate
                // comes after it from this position's clock (should no capture on the way reset
                // the clock) may be a draw in the game. The search, which counts the limit,
                // decides instead, with every move.
                let past_limit = self.last_verdict.filter(|v| v.value.wdl != Wdl::Draw).is_some_and(|v| {
                    pos.halfmoves().saturating_add(v.value.dtm.plies()) > crate::core::game::NO_CAPTURE_DRAW_PLIES
                });
                if past_limit {
                    self.last_verdict = None;
                }
                if let Some(values) = values.filter(|v| !v.is_empty() && !past_limit) {
                    let (mut m, v) = values[0];
                    let verdict = self.last_verdict;
                    if v.wdl != Wdl::Draw {
                        // Won: the table's line (the fastest mate, whose DTM decreases every move
                        // so no repetition can interfere; or, for a win by the perpetual-check
                        // rule, the line that makes the defender's checks repeat). Lost: the
                        // longest defence.
                        let allowed = |x: &Move| values.iter().any(|(y, _)| y == x);
                        let line = tb.best_moves(pos).and_then(|b| b.into_iter().find(allowed));
                        if let Some(line) = line {
                            m = line;
                        }
                        // The move of the table's line plays the position's value: the verdict
                        // said is the position's, as every other tool says it (a line rank of a
                        // win only the rules decide may be lower than its line move's). A move
                        // `searchmoves` (`banmoves`) leave instead has its own value and verdict.
                        let v = values.iter().find(|(x, _)| *x == m).map_or(v, |&(_, v)| v);
                        let verdict = match line {
                            Some(_) => verdict,
                            None => tb.verdict(&pos.play_unchecked(m)).map(Verdict::before_move).or(verdict),
                        };
                        self.last_verdict = verdict;
                        // A value only the repetition rules decide has a line rank, not a mate
                        // distance: it scores as a table win of unknown distance, never as a mate.
                        let score_of = |v: TbValue, by_rule: bool| {
                            if by_rule {
                                Score::from_value(search::tb_wdl_score(v.wdl, 0))
                            } else {
                                Score::from_value(search::tb_score(v, 0))
                            }
                        };
                        let score = score_of(v, verdict.is_some_and(|v| v.by_rule));
                        let line = |multipv: u32, score: Score, m: Move| Info {
                            depth: 1,
                            multipv,
                            seldepth: 1,
                            score,
                            nodes: 0,
                            time: std::time::Duration::ZERO,
                            hashfull: 0,
                            tbhits: values.len() as u64,
                            pv: vec![m],
                        };
                        on_info(&line(1, score, m));
                        // With MultiPV, the next moves by the tables' values, each scored as its
                        // own value (a value only the rules decide as a table win or loss).
                        let others =
                            values.iter().filter(|(x, _)| *x != m).take(self.options.multi_pv.saturating_sub(1));
                        for (k, &(x, xv)) in others.enumerate() {
                            let by_rule = tb.verdict(&pos.play_unchecked(x)).is_some_and(|v| v.by_rule);
                            on_info(&line(k as u32 + 2, score_of(xv, by_rule), x));
                        }
                        let r = SearchResult { best: Some(m), ponder: None, score, depth: 1, nodes: 0, pv: vec![m] };
                        return (r, Source::Tablebase);
                    }
                    // Drawn: search among the drawing moves (the search judges chases, which the
                    // tables do not).
                    let drawing: Vec<Move> =
                        values.iter().filter(|(_, v)| v.wdl == Wdl::Draw).map(|&(m, _)| m).collect();
                    limits.searchmoves = drawing;
                    drawn_root = true;
                }
            }
        }
        if !std::mem::take(&mut self.history_aged) {
            self.history.age();
        }
        if !drawn_root {
            let r = search::search(game, &limits, &self.options, &self.shared, &mut self.history, on_info);
            return (r, Source::Search);
        }
        // The tables say draw: the score said is theirs, 0, as engines report a table root
        // (the search's own evaluation of the drawing moves would read as an advantage). Only a
        // mate the search finds stays: a drawing move that loses by the chase rule, which the
        // tables do not judge.
        let drawn = |score: Score| if matches!(score, Score::Mate(_)) { score } else { Score::Cp(0) };
        let mut said = |info: &Info| on_info(&Info { score: drawn(info.score), ..info.clone() });
        let mut r = search::search(game, &limits, &self.options, &self.shared, &mut self.history, &mut said);
        r.score = drawn(r.score);
        (r, Source::Search)
    }
}
