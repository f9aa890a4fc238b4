//! The search: iterative deepening over a principal variation search (NegaScout) with aspiration
//! windows, a shared transposition table, null-move pruning, late-move reductions, futility and
//! move-count pruning near the leaves, check extensions, and a quiescence search of captures
//! (all evasions when in check). Scores are from the side to move's view; a mate found `n` plies
//! from the root scores `MATE - n`.
//!
//! Game rules inside the tree follow the rules core (`docs/RULES.md`): no legal move loses
//! (checkmate and stalemate alike); a position that repeats one since the last capture ends the
//! line (one the game met before the root only at its third occurrence) with the repetition
//! verdict (the side that checked on every move of the cycle loses, then the side that chased one
//! piece on every move, otherwise a draw); 120 plies without capture and positions without
//! attacking pieces are draws.
//! The search keeps the game's positions and the current line's (the `line` module), to judge
//! cycles that start before the root too.
//!
//! More than one thread runs "Lazy SMP": the helpers search the same root with the same table,
//! which they fill for the main thread; only the main thread reports and decides.

use super::eval::{evaluate, Value, Weights, MATERIAL};
pub use super::eval::{MATE, MATE_BOUND};
use super::line::{Line, NO_MOVE};
use super::ordering::{is_bad_capture, ContKey, CorrectionKeys, History, MovePicker};
use super::time::{budget, Budget, Limits};
use super::tt::{Bound, Entry, EvalCache, TableSizeError, TranspositionTable};
use super::{Endgames, Score, MAX_TB_PIECES};
use crate::core::game::NO_CAPTURE_DRAW_PLIES;
use crate::core::{Game, Move, MoveList, Position, Role, Square};
use crate::core::{TbValue, Wdl};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod info;
mod iterate;
mod quiesce;
pub mod skill;
#[cfg(test)]
mod tests;
pub use info::Info;
pub use skill::MAX_SKILL_LEVEL;

/// Deepest line the search follows.
pub const MAX_PLY: usize = 128;
const INF: Value = 31_000;
/// Deepest remaining depth at which a table move is searched before the moves are generated
/// (see `negamax`): nearly all nodes lie below it, and the history's journal then holds the
/// writes of a subtree of that depth at most.
const TABLE_MOVE_FIRST_DEPTH: i32 = 6;
/// How near the hard time limit the main thread reads the clock every 64 nodes instead of every
/// 1,024: several times what 1,024 nodes take (about a millisecond), so that no coarse reading
/// lands far past the limit, and short enough that the fine readings cost nothing measurable.
const DEADLINE_NEAR: Duration = Duration::from_millis(5);

/// State shared by the search threads and the thread that may stop them.
///
/// ```
/// use qiku::engine::ordering::History;
/// use qiku::engine::search::{search, SearchOptions, Shared};
/// use qiku::engine::time::Limits;
/// use qiku::{Game, Position};
/// use std::sync::atomic::Ordering;
///
/// let (game, shared) = (Game::new(Position::startpos()), Shared::new(1));
/// let r = search(&game, &Limits::depth(3), &SearchOptions::default(), &shared, &mut History::default(), &mut |_| {});
/// assert!(r.nodes > 0 && !shared.stop.load(Ordering::Relaxed)); // it ended by its depth, not `stop`
/// assert!(shared.finished.load(Ordering::Relaxed)); // the main thread has decided
/// assert!(shared.tt.probe(game.position().key()).is_some()); // what it learned stays
/// ```
pub struct Shared {
    /// The transposition table.
    pub tt: TranspositionTable,
    /// Set to end the search (UCI `stop`). The search never sets it itself, so that after `go
    /// infinite` the front end can wait for the GUI's `stop` even when the search ends early.
    pub stop: AtomicBool,
    /// Set by the main thread when it has decided, to end the helper threads.
    pub finished: AtomicBool,
    /// While set (`go ponder` before `ponderhit`), time limits are not applied.
    pub pondering: AtomicBool,
    /// Set at `ponderhit`: the clock limits count from then on.
    pub ponderhit_at: std::sync::Mutex<Option<Instant>>,
    /// Nodes of all threads while more than one searches (each adds its own in batches). A
    /// single-threaded search leaves it at 0 and counts in [`SearchResult::nodes`] alone.
    pub nodes: AtomicU64,
    /// Tablebase probes of all threads.
    pub tbhits: AtomicU64,
}

impl Shared {
    /// Shared state with a `hash_mib` MiB table (for sizes known to fit; see [`Shared::try_new`]).
    ///
    /// ```
    /// use qiku::engine::search::Shared;
    /// use std::sync::atomic::Ordering;
    ///
    /// let shared = Shared::new(1);
    /// assert_eq!(shared.tt.mib(), 1);
    /// assert!(!shared.stop.load(Ordering::Relaxed));
    /// ```
    pub fn new(hash_mib: usize) -> Shared {
        Shared::with_table(TranspositionTable::new(hash_mib))
    }

    /// Like [`Shared::new`], but a table the machine cannot hold is an error, not an abort.
    ///
    /// ```
    /// use qiku::engine::search::Shared;
    ///
    /// assert_eq!(Shared::try_new(1).map(|s| s.tt.mib()).ok(), Some(1));
    /// assert!(Shared::try_new(1 << 44).is_err()); // 16 EiB
    /// ```
    pub fn try_new(hash_mib: usize) -> Result<Shared, TableSizeError> {
        TranspositionTable::try_new(hash_mib).map(Shared::with_table)
    }

    fn with_table(tt: TranspositionTable) -> Shared {
        Shared {
            tt,
            stop: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            ponderhit_at: std::sync::Mutex::new(None),
            nodes: AtomicU64::new(0),
            tbhits: AtomicU64::new(0),
        }
    }
}

/// How the search is configured (the UCI options that matter to it).
///
/// ```
/// use qiku::engine::ordering::History;
/// use qiku::engine::search::{search, SearchOptions, Shared};
/// use qiku::engine::time::Limits;
/// use qiku::{Game, Position};
///
/// // Three lines reported at each depth (UCI `MultiPV`).
/// let options = SearchOptions { multi_pv: 3, ..SearchOptions::default() };
/// let mut lines = Vec::new();
/// let game = Game::new(Position::startpos());
/// let (shared, mut history) = (Shared::new(1), History::default());
/// search(&game, &Limits::depth(2), &options, &shared, &mut history, &mut |i| lines.push(i.multipv));
/// assert_eq!(lines, [1, 2, 3, 1, 2, 3]);
/// ```
#[derive(Clone)]
pub struct SearchOptions {
    /// Search threads (1 = no helpers).
    pub threads: usize,
    /// Time kept back per move for the GUI's and the pipe's latency.
    pub move_overhead: Duration,
    /// Evaluation weights.
    pub weights: Weights,
    /// Endgame tables probed inside the tree, if any.
    pub tablebases: Option<Arc<dyn Endgames>>,
    /// Probe tables inside the search only with at most this many pieces on the board.
    pub tb_probe_limit: u32,
    /// Lines searched and reported (UCI `MultiPV`): the best line, then the best with its first
    /// move excluded, and so on, capped by the number of root moves. 1 (or 0): only the best.
    pub multi_pv: usize,
    /// Strength handicap (UCI `Skill Level`), 0 (weakest) to [`MAX_SKILL_LEVEL`] (the default:
    /// full strength, the search exactly as without it). Below it the main thread searches at
    /// least [`skill::SKILL_LINES`] root lines (reporting `multi_pv` of them) no deeper than
    /// [`skill::depth_limit`], and plays the line [`skill::pick`] chooses (see [`skill`]).
    pub skill_level: u32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            threads: 1,
            move_overhead: Duration::from_millis(30),
            weights: Weights::DEFAULT,
            tablebases: None,
            tb_probe_limit: MAX_TB_PIECES,
            multi_pv: 1,
            skill_level: MAX_SKILL_LEVEL,
        }
    }
}

/// One root line of a MultiPV search: its first move, score, principal variation and the depth
/// it was searched to (a line a stopped iteration did not reach keeps its earlier depth).
#[derive(Clone)]
struct RootLine {
    mv: Move,
    score: Value,
    pv: Vec<Move>,
    depth: u32,
}

/// What the search decided.
///
/// ```
/// use qiku::engine::ordering::History;
/// use qiku::engine::search::{search, SearchOptions, Shared};
/// use qiku::engine::{time::Limits, Score};
/// use qiku::{Game, Position};
///
/// let (options, shared) = (SearchOptions::default(), Shared::new(1));
/// let run = |game: &Game| search(game, &Limits::depth(2), &options, &shared, &mut History::default(), &mut |_| {});
/// // Rook to d0 mates: a line of one move, and no reply to ponder on.
/// let r = run(&Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?));
/// assert_eq!((r.best, r.ponder, r.pv.len(), r.depth), (r.pv.first().copied(), None, 1, 2));
/// // Mated: no move at all.
/// let r = run(&Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?));
/// assert_eq!((r.best, r.score), (None, Score::Mate(0)));
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move.
    pub best: Option<Move>,
    /// The expected reply, to ponder on.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// Searches `game`'s current position within `limits`, calling `on_info` after each completed
/// iteration (main thread only). Returns when a limit is reached or `shared.stop` is set; with
/// `go infinite` or `go ponder` it keeps going (iterations stop at `MAX_PLY`) until then.
///
/// ```
/// use qiku::engine::ordering::History;
/// use qiku::engine::search::{search, SearchOptions, Shared};
/// use qiku::engine::{time::Limits, Score};
/// use qiku::{Game, Position};
///
/// // Rook to d0 mates.
/// let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?);
/// let (shared, mut history) = (Shared::new(1), History::default());
/// let mut depths = Vec::new();
/// let options = SearchOptions::default();
/// let r = search(&game, &Limits::depth(2), &options, &shared, &mut history, &mut |i| depths.push(i.depth));
/// assert_eq!(depths, [1, 2]);
/// assert_eq!((r.best.map(|m| m.to_string()), r.score), (Some("a0d0".to_string()), Score::Mate(1)));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn search(
    game: &Game,
    limits: &Limits,
    options: &SearchOptions,
    shared: &Shared,
    history: &mut History,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    shared.tt.new_search();
    shared.finished.store(false, Ordering::Relaxed);
    shared.nodes.store(0, Ordering::Relaxed);
    shared.tbhits.store(0, Ordering::Relaxed);
    let start = limits.start.unwrap_or_else(Instant::now);
    let budget = budget(limits, game.position().turn(), options.move_overhead);
    let helpers = search_threads(options.threads) - 1;
    std::thread::scope(|scope| {
        for id in 1..=helpers {
            let history = history.clone();
            scope.spawn(move || {
                let mut t = Thread::new(id, game, limits, budget, options, shared, start, history);
                t.iterate(&mut |_| {});
                shared.nodes.fetch_add(t.nodes - t.nodes_reported, Ordering::Relaxed);
            });
        }
        // The main thread searches with the caller's history and hands it back; the stand-in
        // spares allocating and zeroing a fresh one for every search.
        let mut main = Thread::new(
            0,
            game,
            limits,
            budget,
            options,
            shared,
            start,
            std::mem::replace(history, History::placeholder()),
        );
        let result = main.iterate(on_info);
        shared.finished.store(true, Ordering::Relaxed);
        std::mem::swap(history, &mut main.history);
        result
    })
}

/// The threads a search with the option `Threads` = `asked` runs: at most the machine's logical
/// CPUs. More threads than those do not search more; they take turns, the main thread among
/// them, which then looks at the clock too late and loses on time (64 threads on 2 cores
/// answered `go movetime 100` after 1 to 4 seconds).
///
/// ```
/// use qiku::engine::search::search_threads;
///
/// let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
/// assert_eq!((search_threads(0), search_threads(1)), (1, 1));
/// assert_eq!(search_threads(1000), cpus);
/// ```
pub fn search_threads(asked: usize) -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cpus = *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    asked.clamp(1, cpus.max(1))
}

/// Converts a score to the form stored in the table: mate and tablebase-win distances from this
/// node, not the root.
fn score_to_tt(v: Value, ply: usize) -> Value {
    if v >= TB_BOUND {
        v + ply as Value
    } else if v <= -TB_BOUND {
        v - ply as Value
    } else {
        v
    }
}

fn score_from_tt(v: Value, ply: usize) -> Value {
    if v >= TB_BOUND {
        v - ply as Value
    } else if v <= -TB_BOUND {
        v + ply as Value
    } else {
        v
    }
}

/// The value at the root of a position won by table whose mate distance is unknown (a WDL probe):
/// below every mate score, so it is never reported as a mate it has not seen, above every
/// evaluation and every such win found later (`TB_WIN - ply`): the search heads for the nearest
/// table win, and once the game is in the tables the root's DTM probe picks the fastest mate.
pub const TB_WIN: Value = MATE_BOUND - 1 - 2 * MAX_PLY as Value;
/// The lowest tablebase-win score (`TB_WIN` at the deepest ply); scores from here up are stored
/// in the transposition table relative to their node, as mate scores are.
pub const TB_BOUND: Value = TB_WIN - MAX_PLY as Value;

/// The value of a tablebase WDL verdict `ply` plies from the root (see [`TB_WIN`]).
///
/// ```
/// use qiku::engine::search::{tb_wdl_score, MATE_BOUND, TB_WIN};
/// use qiku::Wdl;
///
/// assert_eq!(tb_wdl_score(Wdl::Win, 3), TB_WIN - 3); // nearer wins score higher
/// assert_eq!(tb_wdl_score(Wdl::Loss, 3), -(TB_WIN - 3));
/// assert_eq!(tb_wdl_score(Wdl::Draw, 3), 0);
/// assert!(TB_WIN < MATE_BOUND); // never read as a mate
/// ```
pub fn tb_wdl_score(v: Wdl, ply: usize) -> Value {
    match v {
        Wdl::Win => TB_WIN - ply as Value,
        Wdl::Loss => -TB_WIN + ply as Value,
        Wdl::Draw => 0,
    }
}

/// The value of a tablebase verdict `ply` plies from the root.
///
/// ```
/// use qiku::engine::search::{tb_score, MATE};
/// use qiku::engine::Score;
/// use qiku::{Dtm, TbValue, Wdl};
///
/// // Mate in 5 plies, 2 plies from the root: mate in 7 plies, 4 moves.
/// let v = tb_score(TbValue { wdl: Wdl::Win, dtm: Dtm(5) }, 2);
/// assert_eq!(v, MATE - 7);
/// assert_eq!(Score::from_value(v), Score::Mate(4));
/// assert_eq!(tb_score(TbValue::DRAW, 2), 0);
/// ```
pub fn tb_score(v: TbValue, ply: usize) -> Value {
    match v.wdl {
        Wdl::Win => MATE - ply as Value - v.dtm.plies() as Value,
        Wdl::Loss => -MATE + ply as Value + v.dtm.plies() as Value,
        Wdl::Draw => 0,
    }
}

/// Late-move reductions, by depth and move number.
fn lmr_table() -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
        }
    }
    t
}

/// One search thread's state.
struct Thread<'a> {
    id: usize,
    pos: Position,
    /// The game's positions since the last capture, then the current line's.
    line: Line,
    killers: Vec<[Option<Move>; 2]>,
    history: History,
    evals: EvalCache,
    static_eval: Vec<Value>,
    pv: Vec<[Move; MAX_PLY]>,
    pv_len: Vec<usize>,
    lmr: Box<[[u8; 64]; 64]>,
    nodes: u64,
    nodes_reported: u64,
    seldepth: usize,
    root_depth: i32,
    root_best: Option<Move>,
    root_score: Value,
    root_pv: Vec<Move>,
    root_moves: usize,
    /// The root moves to consider when restricted (`go searchmoves`, tablebase draws).
    root_filter: Option<MoveList>,
    /// The root moves of the lines already searched at this depth (MultiPV): skipped.
    root_excluded: Vec<Move>,
    stopped: bool,
    /// The hard time limit is at most [`DEADLINE_NEAR`] away: the clock is read more often.
    deadline_near: bool,
    limits: &'a Limits,
    budget: Budget,
    options: &'a SearchOptions,
    shared: &'a Shared,
    start: Instant,
}

impl<'a> Thread<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        id: usize,
        game: &Game,
        limits: &'a Limits,
        budget: Budget,
        options: &'a SearchOptions,
        shared: &'a Shared,
        start: Instant,
        mut history: History,
    ) -> Thread<'a> {
        let (line, pos) = Line::from_game(game);
        history.reset_journal();
        Thread {
            id,
            pos,
            line,
            killers: vec![[None; 2]; MAX_PLY + 2],
            history,
            evals: EvalCache::new(),
            static_eval: vec![0; MAX_PLY + 2],
            pv: vec![[NO_MOVE; MAX_PLY]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            lmr: lmr_table(),
            nodes: 0,
            nodes_reported: 0,
            seldepth: 0,
            root_depth: 0,
            root_best: None,
            root_score: -INF,
            root_pv: Vec::new(),
            root_moves: 0,
            root_filter: None,
            root_excluded: Vec::new(),
            stopped: false,
            deadline_near: false,
            limits,
            budget,
            options,
            shared,
            start,
        }
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time since the clock started counting for us (the ponderhit, when pondering).
    fn thinking_time(&self) -> Duration {
        match *self.shared.ponderhit_at.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(t) => t.elapsed(),
            None => self.elapsed(),
        }
    }

    /// Called at every node: honours `stop`, the node limit and the hard time limit. The first
    /// iteration always completes so that there is a move to play.
    #[inline]
    fn should_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes & 1023 == 0 {
            self.shared.nodes.fetch_add(self.nodes - self.nodes_reported, Ordering::Relaxed);
            self.nodes_reported = self.nodes;
            if self.shared.stop.load(Ordering::Relaxed) || self.shared.finished.load(Ordering::Relaxed) {
                self.stopped = true;
                return true;
            }
            // A helper stops at the node limit too: the main thread, descheduled on a busy
            // machine, would otherwise let the helpers search on far past it.
            if self.id > 0 && self.limits.nodes.is_some_and(|n| self.shared.nodes.load(Ordering::Relaxed) >= n) {
                self.stopped = true;
                return true;
            }
        }
        // The main thread reads the clock every 1,024 nodes (about a millisecond), and every 64
        // once the hard limit is near, so that it stops within some 50 microseconds of it.
        let clock_due = self.nodes & 1023 == 0 || (self.deadline_near && self.nodes & 63 == 0);
        if clock_due && self.id == 0 && self.root_depth > 1 && !self.shared.pondering.load(Ordering::Relaxed) {
            if let Some(hard) = self.budget.hard {
                let t = self.thinking_time();
                if t >= hard {
                    self.stopped = true;
                    return true;
                }
                self.deadline_near = hard - t <= DEADLINE_NEAR;
            }
        }
        // The node limit counts every thread's nodes (the helpers' as far as they have reported
        // them, every 1,024), so that `go nodes N` stops near N with any number of threads.
        if self.id == 0 && self.root_depth > 1 {
            if let Some(n) = self.limits.nodes {
                if self.total_nodes() >= n {
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }

    /// The nodes of the whole search so far: this thread's, and with helpers, theirs as far as
    /// they have reported them.
    #[inline]
    fn total_nodes(&self) -> u64 {
        if self.options.threads <= 1 {
            self.nodes
        } else {
            self.shared.nodes.load(Ordering::Relaxed) + self.nodes - self.nodes_reported
        }
    }

    /// Plays the move `m` and records the position on the line; returns the undo and whether
    /// `m` gave check.
    #[inline]
    fn make(&mut self, m: Move) -> (crate::core::Undo, bool) {
        let (tt, evals) = (&self.shared.tt, &self.evals);
        self.line.play_then(&mut self.pos, m, |key| {
            tt.prefetch(key);
            evals.prefetch(key);
        })
    }

    #[inline]
    fn unmake(&mut self, m: Move, undo: crate::core::Undo) {
        self.pos.unmake_move(m, undo);
        self.line.pop();
    }

    /// Passes the move (null-move pruning).
    fn make_null(&mut self) {
        self.pos.make_null_move();
        self.shared.tt.prefetch(self.pos.key());
        self.evals.prefetch(self.pos.key());
        self.line.push_null(&self.pos);
    }

    /// Takes back [`Thread::make_null`].
    fn unmake_null(&mut self) {
        self.pos.make_null_move();
        self.line.pop();
    }

    /// The static evaluation of the current position, from the thread's cache when it has it.
    fn eval(&mut self) -> Value {
        let key = self.pos.key();
        if let Some(v) = self.evals.get(key) {
            return v;
        }
        let v = evaluate(&self.pos, &self.options.weights);
        self.evals.put(key, v);
        v
    }

    /// `raw`, the static evaluation, plus the correction history's entry for the position.
    #[inline]
    fn corrected(&self, raw: Value, keys: CorrectionKeys) -> Value {
        (raw + self.history.correction(keys)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
    }

    /// Can the side to move afford a null move (zugzwang is rare while it has a rook, horse or
    /// cannon)?
    fn has_big_pieces(&self) -> bool {
        let us = self.pos.by_color(self.pos.turn());
        ((self.pos.by_role(Role::Rook) | self.pos.by_role(Role::Horse) | self.pos.by_role(Role::Cannon)) & us).any()
    }

    fn probe_tb(&self, ply: usize) -> Option<Value> {
        let tb = self.options.tablebases.as_ref()?;
        // Only right after a capture: the material changes only then, and a node after a capture
        // whose material has a table ends its line here, so the nodes below it that keep its
        // material are never searched (the root's own material is the player's business). A
        // probe elsewhere could only miss, at the cost of a material lookup per node.
        if self.pos.halfmoves() != 0 {
            return None;
        }
        let pieces = self.pos.occupied().count();
        if pieces > self.options.tb_probe_limit || pieces > tb.max_pieces() {
            return None;
        }
        // Inside the tree only win, draw or loss matters: the small WDL files answer. The root
        // (the player, before searching) uses DTM for the fastest mate.
        let v = tb.probe_wdl(&self.pos)?;
        self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
        Some(tb_wdl_score(v, ply))
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let next_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..next_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = next_len;
    }

    /// Principal variation search. `cut_node`: a zero-window node expected to fail high (its
    /// parent expects its move to be refuted here), where late moves are reduced more.
    fn negamax(
        &mut self,
        mut alpha: Value,
        mut beta: Value,
        depth: i32,
        ply: usize,
        allow_null: bool,
        cut_node: bool,
    ) -> Value {
        let pv_node = beta - alpha > 1;
        self.pv_len[ply] = ply;
        if depth <= 0 {
            return self.quiesce(alpha, beta, ply);
        }
        self.nodes += 1;
        if self.should_stop() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let root = ply == 0;
        if !root {
            if let Some(v) = self.line.repetition(&self.pos, ply) {
                return v;
            }
            if self.pos.halfmoves() >= NO_CAPTURE_DRAW_PLIES {
                return if self.pos.has_no_moves() { -MATE + ply as Value } else { 0 };
            }
            if !self.pos.has_attackers() {
                return 0;
            }
            if ply >= MAX_PLY - 2 {
                return self.eval();
            }
            // Mate-distance pruning: no line from here can beat a mate already found nearer.
            alpha = alpha.max(-MATE + ply as Value);
            beta = beta.min(MATE - ply as Value - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let key = self.pos.key();
        let in_check = self.line.in_check();
        let entry = self.shared.tt.probe(key);
        let tt_move = if root { self.root_best.or(entry.and_then(|e| e.mv)) } else { entry.and_then(|e| e.mv) };
        if let Some(e) = entry {
            if !pv_node && e.depth >= depth {
                let v = score_from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if cut {
                    return v;
                }
            }
        }
        if !root {
            if let Some(v) = self.probe_tb(ply) {
                self.shared.tt.store(
                    key,
                    Entry { mv: None, score: score_to_tt(v, ply), eval: 0, depth: MAX_PLY as i32, bound: Bound::Exact },
                );
                return v;
            }
        }

        // The table keeps the evaluation itself; the correction learnt by earlier searches is
        // added on reading.
        // In check there is no static evaluation, and nothing to learn about it.
        let corr_keys = (!in_check).then(|| CorrectionKeys::new(&self.pos));
        let raw_eval = if in_check { 0 } else { entry.map_or_else(|| self.eval(), |e| e.eval) };
        let static_eval = corr_keys.map_or(-INF, |keys| self.corrected(raw_eval, keys));
        self.static_eval[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.static_eval[ply - 2];

        // The pruning below judges the position by its evaluation before any move is generated:
        // a side to move that has none has lost (stalemate, docs/RULES.md), whatever the material
        // says. Each asks `has_legal_move` only when it is about to prune (in check, the
        // evasions are generated below and an empty list is the loss).
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta near the leaves, a quiet position holds.
            if depth <= 8 && static_eval - 80 * (depth - improving as i32) >= beta {
                return if self.pos.has_legal_move_given_check(false) { static_eval } else { -MATE + ply as Value };
            }
            // Razoring: far below alpha near the leaves, only a capture could help.
            if depth <= 3 && static_eval + 300 + 250 * depth * depth < alpha {
                let v = self.quiesce(alpha - 1, alpha, ply);
                if v < alpha {
                    return v;
                }
            }
            // Null move: if passing still fails high, a real move surely would.
            if allow_null && depth >= 3 && static_eval >= beta && self.has_big_pieces() {
                if !self.pos.has_legal_move_given_check(false) {
                    return -MATE + ply as Value;
                }
                let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(2);
                self.make_null();
                let v = -self.negamax(-beta, -beta + 1, depth - 1 - r, ply + 1, false, !cut_node);
                self.unmake_null();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    return if v >= MATE_BOUND { beta } else { v };
                }
            }
        }
        // Without a table move, a PV node searched shallower first would order badly anyway.
        let depth = if pv_node && tt_move.is_none() && depth >= 6 { depth - 1 } else { depth };

        let killers = self.killers[ply];
        let tt_capture = tt_move.is_some_and(|m| self.pos.is_capture(m));
        let cont = self.line.cont_keys();
        // Away from the principal variation and near the leaves a legal table move is searched
        // before the other moves are generated: most often it cuts off, and they never are. The
        // history's writes meanwhile are journaled, so that the moves generated afterwards are
        // ordered as if they had been generated first (the same nodes either way); the depth
        // bound keeps the journal to the writes of a small subtree.
        let table_move_first = !root && !pv_node && depth <= TABLE_MOVE_FIRST_DEPTH;
        let mut first = tt_move.filter(|&m| table_move_first && self.pos.is_legal(m));
        let mut journal = first.map(|_| self.history.open_journal());
        let mut picker = None;
        if first.is_none() {
            let mut list = MoveList::new();
            self.pos.legal_moves_given_check(in_check, &mut list);
            if list.is_empty() {
                // Checkmate or stalemate: both lose.
                return -MATE + ply as Value;
            }
            picker = Some(MovePicker::new(&self.pos, list, tt_move, killers, &self.history, cont));
        }
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut quiets_tried: [Move; 64] = [NO_MOVE; 64];
        let mut n_quiets = 0;
        let alpha_orig = alpha;
        let move_count_limit = (3 + depth * depth) / if improving { 1 } else { 2 };
        loop {
            let m = match first.take() {
                Some(m) => m,
                None => {
                    if let Some(mark) = journal.take() {
                        // The table move did not cut off: now the rest, ordered by the history
                        // as it stood before it, and without it.
                        let mut list = MoveList::new();
                        self.pos.legal_moves_given_check(in_check, &mut list);
                        let pos = &self.pos;
                        let mut p = self.history.as_at(mark, |h| MovePicker::new(pos, list, tt_move, killers, h, cont));
                        self.history.close_journal(mark);
                        let searched_first = p.next();
                        debug_assert_eq!(searched_first, tt_move);
                        picker = Some(p);
                    }
                    match picker.as_mut().and_then(Iterator::next) {
                        Some(m) => m,
                        None => break,
                    }
                }
            };
            if root && (self.root_filter.as_ref().is_some_and(|f| !f.contains(m)) || self.root_excluded.contains(&m)) {
                continue;
            }
            let capture = self.pos.is_capture(m);
            let mover = self.pos.piece_at(m.from());
            // Prune late quiet moves near the leaves once a move has been searched: before the
            // move is played where it surely gives no check, after it where it might.
            let prunable = !root && !pv_node && !in_check && searched > 0 && best > -MATE_BOUND;
            let prune = prunable
                && if capture {
                    self.capture_is_futile(m, depth, static_eval, alpha)
                } else {
                    // The depth this move would be searched at after its late-move reduction
                    // (the table's, before the adjustments): a late move is judged by it.
                    let lmr_depth = depth - 1 - self.base_reduction(depth, searched);
                    let futile = lmr_depth <= 8 && static_eval + 100 + 100 * lmr_depth.max(0) <= alpha;
                    let bad_history = lmr_depth <= 4
                        && mover.is_some_and(|p| self.history.quiet_score(p, m, cont) < -100_000 * depth);
                    (depth <= 8 && searched as i32 >= move_count_limit) || futile || bad_history
                };
            if prune && !self.pos.may_give_check(m) {
                continue;
            }
            let (undo, gives_check) = self.make(m);
            let quiet = !capture && !gives_check;
            if prune && !gives_check {
                self.unmake(m, undo);
                continue;
            }
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            let v = if searched == 0 {
                -self.negamax(-beta, -alpha, new_depth, ply + 1, true, !pv_node && !cut_node)
            } else {
                let is_killer = killers.contains(&Some(m));
                let mut r = 0;
                if depth >= 3 && quiet && !in_check && searched >= if pv_node { 3 } else { 1 } {
                    r = self.base_reduction(depth, searched);
                    r -= i32::from(pv_node) + i32::from(is_killer) + i32::from(improving);
                    r += 2 * i32::from(cut_node) + i32::from(tt_capture);
                    if let Some(p) = mover {
                        r -= self.history.quiet_score(p, m, cont) / 200_000;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = -self.negamax(-alpha - 1, -alpha, new_depth - r, ply + 1, true, true);
                if v > alpha && r > 0 {
                    v = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, true, !cut_node);
                }
                if v > alpha && v < beta {
                    v = -self.negamax(-beta, -alpha, new_depth, ply + 1, true, false);
                }
                v
            };
            self.unmake(m, undo);
            if self.stopped {
                return 0;
            }
            searched += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    alpha = v;
                    self.update_pv(ply, m);
                    if root {
                        self.root_best = Some(m);
                        self.root_score = v;
                        self.root_pv = self.pv[0][..self.pv_len[0]].to_vec();
                    }
                    if v >= beta {
                        if !capture {
                            self.reward_quiet(ply, depth, m, mover, cont, &quiets_tried[..n_quiets]);
                        }
                        break;
                    }
                }
            }
            if !capture && n_quiets < quiets_tried.len() {
                quiets_tried[n_quiets] = m;
                n_quiets += 1;
            }
        }
        if let Some(mark) = journal {
            self.history.close_journal(mark);
        }
        if searched == 0 {
            // Every move was pruned (cannot happen: the first move is always searched).
            return static_eval;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // What the search found beyond the static evaluation, where its bound says which way:
        // not when a capture was best (the evaluation judges quiet positions) nor in check.
        let direction_known = match bound {
            Bound::Exact => true,
            Bound::Lower => best > static_eval,
            Bound::Upper => best < static_eval,
        };
        let best_is_quiet = !best_move.is_some_and(|m| self.pos.is_capture(m));
        if let Some(keys) = corr_keys.filter(|_| best_is_quiet && best.abs() < MATE_BOUND && direction_known) {
            self.history.update_correction(keys, best - static_eval, depth);
        }
        self.shared.tt.store(key, Entry { mv: best_move, score: score_to_tt(best, ply), eval: raw_eval, depth, bound });
        best
    }

    /// The late-move reduction's table entry for the `searched`-th move at `depth`, before the
    /// adjustments of each move.
    #[inline]
    fn base_reduction(&self, depth: i32, searched: usize) -> i32 {
        self.lmr[depth.clamp(0, 63) as usize][searched.min(63)] as i32
    }

    /// A quiet move cut off: remember it as a killer and in the history; the quiet moves tried
    /// before it get a malus.
    fn reward_quiet(
        &mut self,
        ply: usize,
        depth: i32,
        m: Move,
        mover: Option<crate::core::Piece>,
        cont: [Option<ContKey>; 2],
        tried: &[Move],
    ) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        // A fifth of the history's bound at depth 5 (Stockfish's bonus is about a sixth of its
        // own), so that a few cut-offs move a move's history as far as the pruning and the
        // reductions look.
        let bonus = (24_000 * depth - 16_000).min(120_000);
        if let Some(p) = mover {
            self.history.update_all(p, m, cont, bonus);
        }
        for &q in tried {
            if let Some(p) = self.pos.piece_at(q.from()) {
                self.history.update_all(p, q, cont, -bonus);
            }
        }
    }

    /// Near the leaves, off the principal variation: would the capture `m` surely leave the
    /// node below `alpha` (even winning the piece outright leaves the evaluation short by a
    /// margin), or give away much more than it takes (a dearer piece takes a defended cheaper
    /// one)?
    fn capture_is_futile(&self, m: Move, depth: i32, static_eval: Value, alpha: Value) -> bool {
        let victim = self.endgame_value(m.to());
        if depth <= 6 && static_eval + 200 + 150 * depth + victim <= alpha {
            return true;
        }
        depth <= 4 && self.endgame_value(m.from()) - victim > 120 * depth && is_bad_capture(&self.pos, m)
    }

    /// The endgame material value of the piece on `sq` (0 if empty): what winning it outright
    /// adds to the evaluation, for the pruning margins of captures.
    fn endgame_value(&self, sq: Square) -> Value {
        self.pos.piece_at(sq).map_or(0, |p| MATERIAL[p.role.index()].eg)
    }
}
