//! A match runner for Xiangqi engines: plays two UCI or UCCI engines against each other with the
//! rules core as referee, alternating colors over each opening, writes the games as PGN and
//! reports the score with an Elo difference and its error bar.
//!
//! Referee rules (`docs/RULES.md`, `Game::outcome`): no legal move loses (mate or stalemate); at
//! the third occurrence of a position, perpetual check loses, then perpetual chase, and anything
//! else is a draw; 120 plies without capture draw, no attacking material draws, and a game longer
//! than `max_plies` is adjudicated a draw. An engine that sends an illegal move or no move, exits, or exceeds its time
//! (plus a margin) loses the game; a crashed or timed-out engine is restarted for the next game.
//!
//! With [`MatchConfig::sprt`] the match runs a sequential probability ratio test ([`sprt`]) on
//! the pair results and stops handing out games once the test decides; `games` is then the most
//! it plays.

pub mod cpus;
pub mod openings;
pub mod pgn_out;
pub mod process;
pub mod record;
pub mod sprt;
pub mod stats;

use openings::Opening;
use process::{EngineError, EngineProcess, EngineSpec, Go};
use qiku::core::{Color, Game, Move, Outcome};
use qiku::engine::game_over::reason_text;
use record::PgnGame;
use sprt::{Decision, PairTracker, Pentanomial, Sprt};
use stats::Tally;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The limit each engine gets per move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A fixed time per move.
    MoveTime(Duration),
    /// A fixed depth per move.
    Depth(u32),
    /// A fixed number of nodes per move.
    Nodes(u64),
    /// Base time per game and increment per move.
    Clock {
        /// Time per engine for the game.
        base: Duration,
        /// Time added after each move.
        inc: Duration,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::MoveTime(t) => write!(f, "movetime {} ms", t.as_millis()),
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "nodes {n}"),
            Limit::Clock { base, inc } => write!(f, "{}+{}", base.as_secs_f64(), inc.as_secs_f64()),
        }
    }
}

/// A time control that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcError {
    /// A part is not a number of seconds.
    NotSeconds {
        /// The whole time control as given.
        tc: String,
        /// The part that is not a number.
        part: String,
    },
    /// Base and increment are both zero.
    NoTime(String),
}

impl fmt::Display for TcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TcError::NotSeconds { tc, part } => {
                write!(
                    f,
                    "time control {tc:?}: {part:?} is not a number of seconds from 0 to under 10^12 (expected e.g. \
                     60+0.6)"
                )
            }
            TcError::NoTime(tc) => write!(f, "time control {tc:?} gives no time"),
        }
    }
}

impl std::error::Error for TcError {}

/// Reads `60+0.6` (seconds plus increment) or `60`.
pub fn parse_tc(s: &str) -> Result<Limit, TcError> {
    let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
    let secs = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e12)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| TcError::NotSeconds { tc: s.to_string(), part: v.to_string() })
    };
    let (base, inc) = (secs(base)?, secs(inc)?);
    if base.is_zero() && inc.is_zero() {
        return Err(TcError::NoTime(s.to_string()));
    }
    Ok(Limit::Clock { base, inc })
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The two engines.
    pub engines: [EngineSpec; 2],
    /// Number of games.
    pub games: u32,
    /// The limit per move.
    pub limit: Limit,
    /// Openings, each played twice with colors swapped.
    pub openings: Vec<Opening>,
    /// Where to write the games as PGN, if anywhere (after the games already in the file).
    pub pgn: Option<PathBuf>,
    /// Games played at the same time.
    pub concurrency: usize,
    /// A game is drawn once it is this many plies long (opening included). It must exceed the
    /// longest opening the games use: [`run`] refuses the match otherwise.
    pub max_plies: u32,
    /// Lateness tolerated beyond the clock or the movetime before a time forfeit.
    pub margin: Duration,
    /// PGN `Event` tag.
    pub event: String,
    /// A sequential probability ratio test that ends the match when it decides.
    pub sprt: Option<Sprt>,
    /// Pin each engine process to a core of its own ([`cpus`]): game slot `k` runs its engines
    /// on the `2k`-th and `2k+1`-th allowed cores. The match is refused when there are fewer
    /// than two cores per slot.
    pub pin: bool,
}

/// Why an engine lost by fault rather than on the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A move that is not legal, or a `bestmove` token that is not a move (`zzzz`, or a move in
    /// the other rank numbering).
    IllegalMove,
    /// No move (`bestmove (none)`, `bestmove 0000`, a bare `bestmove`, `nobestmove`) with legal
    /// moves left.
    NoMove,
    /// The engine exited or its pipe broke.
    Crash,
    /// The engine overstepped its time (plus the margin).
    Time,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 0-based game number.
    pub index: usize,
    /// 0-based index of the opening played.
    pub opening: usize,
    /// Which engine (0 or 1) had red.
    pub red_engine: usize,
    /// `None`: draw.
    pub winner: Option<Color>,
    /// Why the game ended, in words.
    pub reason: String,
    /// The engine (0 or 1) that lost by fault, and how.
    pub fault: Option<(usize, Fault)>,
    /// Output lines per engine (0, 1) dropped for being longer than [`process::MAX_LINE`].
    pub garbage: [u64; 2],
    /// The game as PGN.
    pub pgn: PgnGame,
}

impl GameRecord {
    /// Points of engine `e` (1, 1/2 or 0).
    pub fn points(&self, e: usize) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) => {
                let red_won = c == Color::Red;
                if (e == self.red_engine) == red_won {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }
}

/// The match's outcome.
#[derive(Clone, Debug, Default)]
pub struct MatchReport {
    /// The engines' names (`id name`, or as given).
    pub names: [String; 2],
    /// From engine 0's point of view.
    pub tally: Tally,
    /// Faults per engine: illegal moves, missing moves, crashes, time losses.
    pub faults: [[u32; 4]; 2],
    /// Output lines per engine dropped for being longer than [`process::MAX_LINE`].
    pub garbage_lines: [u64; 2],
    /// Every game, in game order.
    pub games: Vec<GameRecord>,
    /// Pair results of every finished pair (games `2k` and `2k+1`), from engine 0's side.
    pub pentanomial: Pentanomial,
    /// The test's state, with [`MatchConfig::sprt`].
    pub sprt: Option<SprtState>,
}

/// Where a match's SPRT stands. Once the test decides, this no longer changes: games that were
/// still running then are scored and written, but not counted by the test.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SprtState {
    /// The test.
    pub test: Sprt,
    /// Pair results counted by the test.
    pub pentanomial: Pentanomial,
    /// The log-likelihood ratio of those pairs.
    pub llr: f64,
    /// The decision (or [`Decision::Continue`]).
    pub decision: Decision,
    /// The game whose end last changed the test (it completed a pair); the caller prints the
    /// test's line after that game.
    pub last_update: Option<usize>,
    /// Games that ended after the decision (scored, but not in the test).
    pub late_games: u32,
}

impl SprtState {
    fn new(test: Sprt) -> SprtState {
        SprtState {
            test,
            pentanomial: Pentanomial::default(),
            llr: 0.0,
            decision: Decision::Continue,
            last_update: None,
            late_games: 0,
        }
    }

    /// Counts a finished game; `pair` is the pair's half points if the game completed it.
    fn game_done(&mut self, index: usize, pair: Option<u8>) {
        if self.decision != Decision::Continue {
            self.late_games += 1;
            return;
        }
        if let Some(k) = pair {
            self.pentanomial.counts[usize::from(k.min(4))] += 1;
            self.llr = self.test.llr(&self.pentanomial);
            self.decision = self.test.decide(self.llr);
            self.last_update = Some(index);
        }
    }

    /// The running line: `SPRT: games 24, pentanomial [1, 3, 5, 2, 1], LLR 0.12 (-2.94, 2.94) [0.00, 5.00]`.
    pub fn line(&self) -> String {
        format!(
            "SPRT: games {}, pentanomial {}, {}",
            2 * self.pentanomial.pairs(),
            self.pentanomial,
            self.test.status(self.llr)
        )
    }
}

/// A match that could not be played to the end.
#[derive(Debug)]
pub enum MatchError {
    /// Starting (or restarting) engine `engine` failed.
    Engine {
        /// 0 or 1.
        engine: usize,
        /// Its command line.
        command: String,
        /// What failed.
        error: EngineError,
    },
    /// The PGN file could not be written.
    Pgn {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The openings list is empty.
    NoOpenings,
    /// An opening is as long as the ply limit or longer: its games would be drawn before an
    /// engine moves.
    OpeningTooLong {
        /// [`MatchConfig::max_plies`].
        max_plies: u32,
        /// 0-based index of the longest opening.
        opening: usize,
        /// Its length in plies.
        plies: usize,
        /// Its moves ([`Opening::describe`]).
        text: String,
    },
    /// The engines cannot be pinned as asked.
    Pin(cpus::PinError),
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Engine { engine, command, error } => {
                write!(f, "engine {} ({command:?}): {error}", engine + 1)?;
                if let EngineError::Timeout { .. } = error {
                    // At start-up: the handshake or `isready` took too long.
                    f.write_str(" (--startup-timeout SECONDS gives it longer)")?;
                }
                Ok(())
            }
            MatchError::Pgn { path, error } => write!(f, "cannot write {}: {error}", path.display()),
            MatchError::NoOpenings => f.write_str("no openings"),
            MatchError::OpeningTooLong { max_plies, opening, plies, text } => write!(
                f,
                "--max-plies {max_plies} draws a game once it is {max_plies} plies long, opening included, but \
                 opening #{} ({text}) is {plies} plies long: its games would be drawn before either engine \
                 moves; give a --max-plies above {plies}, or shorter openings",
                opening + 1
            ),
            MatchError::Pin(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for MatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MatchError::Engine { error, .. } => Some(error),
            MatchError::Pgn { error, .. } => Some(error),
            MatchError::NoOpenings | MatchError::OpeningTooLong { .. } => None,
            MatchError::Pin(e) => Some(e),
        }
    }
}

fn fault_index(f: Fault) -> usize {
    match f {
        Fault::IllegalMove => 0,
        Fault::NoMove => 1,
        Fault::Crash => 2,
        Fault::Time => 3,
    }
}

/// Plays the match. `on_game` is called (serialised) after every game with the running tally.
pub fn run(
    config: &MatchConfig,
    on_game: &(dyn Fn(&GameRecord, &MatchReport) + Sync),
) -> Result<MatchReport, MatchError> {
    if config.openings.is_empty() {
        return Err(MatchError::NoOpenings);
    }
    // Only the openings the games use: game `i` plays opening `i / 2`.
    let used = config.openings.len().min((config.games as usize).div_ceil(2));
    if let Some((opening, o)) = config.openings[..used].iter().enumerate().rev().max_by_key(|(_, o)| o.moves.len()) {
        if o.moves.len() >= config.max_plies as usize {
            let (max_plies, plies, text) = (config.max_plies, o.moves.len(), o.describe());
            return Err(MatchError::OpeningTooLong { max_plies, opening, plies, text });
        }
    }
    // Games of an earlier match in the same file are kept: this match's follow them.
    let pgn_out = match &config.pgn {
        Some(path) => Some(pgn_out::PgnOut::open(path).map_err(|(path, error)| MatchError::Pgn { path, error })?),
        None => None,
    };
    let pgn_out = Mutex::new(pgn_out);
    let workers = config.concurrency.clamp(1, config.games.max(1) as usize);
    // Each slot's engine specs: with pinning, each engine on its own core.
    let slot_specs: Vec<[EngineSpec; 2]> = if config.pin {
        let cores = cpus::slot_cores(workers).map_err(MatchError::Pin)?;
        cores
            .iter()
            .map(|c| {
                let mut specs = config.engines.clone();
                specs[0].cpu = Some(c[0]);
                specs[1].cpu = Some(c[1]);
                specs
            })
            .collect()
    } else {
        vec![config.engines.clone(); workers]
    };
    // Start slot 0's pair first to learn the names (and fail early on a bad command).
    let mut first: Vec<EngineProcess> = Vec::new();
    for (i, spec) in slot_specs[0].iter().enumerate() {
        let e = EngineProcess::start(spec).map_err(|error| MatchError::Engine {
            engine: i,
            command: spec.command.clone(),
            error,
        })?;
        // Said once, for the first start: a value the engine refused is not silently ignored.
        for note in &e.option_notes {
            eprintln!("qiku: warning: engine {} ({}) said while its options were set: {note}", i + 1, e.name);
        }
        first.push(e);
    }
    let mut names = [first[0].name.clone(), first[1].name.clone()];
    if names[0] == names[1] {
        names[1] = format!("{} (2)", names[1]);
    }
    let state = Mutex::new(MatchReport {
        names: names.clone(),
        sprt: config.sprt.map(SprtState::new),
        ..MatchReport::default()
    });
    let next = AtomicUsize::new(0);
    let pairs = Mutex::new(PairTracker::default());
    let abort = AtomicBool::new(false);
    let error: Mutex<Option<MatchError>> = Mutex::new(None);
    let first = Mutex::new(Some(first));
    std::thread::scope(|scope| {
        // References, so that each slot's thread can move its own engine specs in.
        let (state, next, pairs, abort, error, first, names, pgn_out) =
            (&state, &next, &pairs, &abort, &error, &first, &names, &pgn_out);
        for specs in &slot_specs {
            scope.spawn(move || {
                let mut procs: [Option<EngineProcess>; 2] = [None, None];
                if let Some(mut f) = first.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    procs[1] = f.pop();
                    procs[0] = f.pop();
                }
                loop {
                    if abort.load(Ordering::Relaxed) {
                        break;
                    }
                    // Taken under the report's lock, where the test decides: no game starts after
                    // the decision.
                    let index = {
                        let report = state.lock().unwrap_or_else(|e| e.into_inner());
                        if report.sprt.is_some_and(|s| s.decision != Decision::Continue) {
                            break;
                        }
                        next.fetch_add(1, Ordering::Relaxed)
                    };
                    if index >= config.games as usize {
                        break;
                    }
                    for (i, slot) in procs.iter_mut().enumerate() {
                        if slot.is_none() {
                            match EngineProcess::start(&specs[i]) {
                                Ok(e) => *slot = Some(e),
                                Err(err) => {
                                    abort.store(true, Ordering::Relaxed);
                                    let cmd = config.engines[i].command.clone();
                                    error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(MatchError::Engine {
                                        engine: i,
                                        command: cmd,
                                        error: err,
                                    });
                                }
                            }
                        }
                    }
                    if abort.load(Ordering::Relaxed) {
                        break;
                    }
                    let record = play_game(config, index, names, &mut procs);
                    let mut report = state.lock().unwrap_or_else(|e| e.into_inner());
                    let p = record.points(0);
                    if p == 1.0 {
                        report.tally.wins += 1;
                    } else if p == 0.0 {
                        report.tally.losses += 1;
                    } else {
                        report.tally.draws += 1;
                    }
                    if let Some((e, f)) = record.fault {
                        report.faults[e][fault_index(f)] += 1;
                    }
                    let half_points = (2.0 * p) as u8;
                    let pair = pairs.lock().unwrap_or_else(|e| e.into_inner()).finish(record.index, half_points);
                    if let Some(k) = pair {
                        report.pentanomial.counts[usize::from(k.min(4))] += 1;
                    }
                    if let Some(s) = report.sprt.as_mut() {
                        s.game_done(record.index, pair);
                    }
                    for (total, g) in report.garbage_lines.iter_mut().zip(record.garbage) {
                        *total += g;
                    }
                    let pos = report.games.partition_point(|g| g.index < record.index);
                    report.games.insert(pos, record.clone());
                    if let Some(out) = pgn_out.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                        if let Err((path, e)) = out.add(record.index, record.pgn.to_pgn()) {
                            abort.store(true, Ordering::Relaxed);
                            error
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .get_or_insert(MatchError::Pgn { path, error: e });
                        }
                    }
                    on_game(&record, &report);
                }
                for p in procs.into_iter().flatten() {
                    p.quit();
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    if let Some(out) = pgn_out.into_inner().unwrap_or_else(|e| e.into_inner()) {
        out.finish().map_err(|(path, error)| MatchError::Pgn { path, error })?;
    }
    Ok(state.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Plays game `index` with the engines in `procs` (restarting none; a faulty engine's slot is
/// emptied so the caller restarts it).
fn play_game(
    config: &MatchConfig,
    index: usize,
    names: &[String; 2],
    procs: &mut [Option<EngineProcess>; 2],
) -> GameRecord {
    let opening_index = (index / 2) % config.openings.len();
    let opening = &config.openings[opening_index];
    let red_engine = index % 2;
    let engine_of = |c: Color| if c == Color::Red { red_engine } else { 1 - red_engine };
    let mut game = opening.game();
    let start_fen = opening.fen.clone();
    let mut comments: Vec<String> = vec![String::new(); opening.moves.len()];
    let mut clock = match config.limit {
        Limit::Clock { base, .. } => [base, base],
        _ => [Duration::ZERO; 2],
    };
    let mut fault: Option<(usize, Fault)> = None;
    let mut garbage = [0u64; 2];
    let reason: String;
    let mut winner: Option<Color> = None;
    for p in procs.iter_mut().flatten() {
        // A failure here shows again, and is charged, at the engine's first move.
        let _ = p.new_game();
    }
    loop {
        if let Some(outcome) = game.outcome() {
            match outcome {
                Outcome::Decisive { winner: w, reason: r } => {
                    winner = Some(w);
                    reason = reason_text(r).to_string();
                }
                Outcome::Draw(r) => reason = reason_text(r).to_string(),
            }
            break;
        }
        if game.len() >= config.max_plies as usize {
            // The game's length (the PGN's PlyCount), opening included.
            reason = format!("adjudicated draw after {} plies", game.len());
            break;
        }
        let turn = game.position().turn();
        let e = engine_of(turn);
        let Some(proc_) = procs[e].as_mut() else {
            fault = Some((e, Fault::Crash));
            reason = format!("{} could not be restarted", names[e]);
            winner = Some(!turn);
            break;
        };
        let (go, timeout) = match config.limit {
            Limit::MoveTime(t) => (Go::MoveTime(t), t + config.margin),
            Limit::Depth(d) => (Go::Depth(d), Duration::from_secs(600)),
            Limit::Nodes(n) => (Go::Nodes(n), Duration::from_secs(600)),
            Limit::Clock { inc, .. } => {
                (Go::Clock { time: clock, inc: [inc, inc] }, clock[turn.index()] + config.margin)
            }
        };
        let moves: Vec<Move> = game.moves().collect();
        let answer = proc_.go(&start_fen, &moves, go, timeout);
        garbage[e] += proc_.take_garbage();
        match answer {
            Err(err) => {
                let f = match err {
                    EngineError::Timeout { .. } => Fault::Time,
                    _ => Fault::Crash,
                };
                fault = Some((e, f));
                reason = format!("{}: {err}", names[e]);
                winner = Some(!turn);
                if let Some(p) = procs[e].take() {
                    p.kill();
                }
                break;
            }
            Ok(answer) => {
                if let Limit::Clock { inc, .. } = config.limit {
                    let left = clock[turn.index()];
                    if answer.elapsed > left + config.margin {
                        fault = Some((e, Fault::Time));
                        reason = format!(
                            "{} lost on time ({} ms used, {} ms left)",
                            names[e],
                            answer.elapsed.as_millis(),
                            left.as_millis()
                        );
                        winner = Some(!turn);
                        break;
                    }
                    clock[turn.index()] = left.saturating_sub(answer.elapsed) + inc;
                }
                let Some(m) = answer.mv else {
                    if process::is_no_move(&answer.token) {
                        fault = Some((e, Fault::NoMove));
                        reason = format!("{} sent no move ({:?}) with legal moves left", names[e], answer.token);
                    } else {
                        // Not a move at all, or one in the other rank numbering: the engine
                        // answered, so it is a bad move, not a missing one.
                        fault = Some((e, Fault::IllegalMove));
                        reason = format!(
                            "{} sent the unreadable move {:?} (not a move with ranks {}) in {}",
                            names[e],
                            answer.token,
                            proc_.ranks,
                            game.position().fen()
                        );
                    }
                    winner = Some(!turn);
                    break;
                };
                if game.play(m).is_err() {
                    fault = Some((e, Fault::IllegalMove));
                    reason =
                        format!("{} played the illegal move {:?} in {}", names[e], answer.token, game.position().fen());
                    winner = Some(!turn);
                    break;
                }
                let mut c = String::new();
                if let Some(s) = &answer.score {
                    c.push_str(s);
                }
                if let Some(d) = answer.depth {
                    c.push_str(&format!("/{d}"));
                }
                c.push_str(&format!(" {}ms", answer.elapsed.as_millis()));
                if let Some(n) = answer.nodes {
                    c.push_str(&format!(" nodes {n}"));
                }
                if let Some(t) = answer.tbhits.filter(|&t| t > 0) {
                    c.push_str(&format!(" tbhits {t}"));
                }
                comments.push(c);
            }
        }
    }
    let result = match winner {
        Some(Color::Red) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    };
    let pgn = PgnGame {
        event: config.event.clone(),
        site: "?".into(),
        date: record::today(),
        round: (index + 1).to_string(),
        red: names[red_engine].clone(),
        black: names[1 - red_engine].clone(),
        result: result.into(),
        start_fen: start_fen.clone(),
        moves: game_moves(&game),
        termination: reason.clone(),
        extra_tags: vec![
            ("TimeControl".into(), config.limit.to_string()),
            ("Opening".into(), format!("#{} {}", opening_index + 1, opening.describe())),
        ],
        comments,
    };
    GameRecord { index, opening: opening_index, red_engine, winner, reason, fault, garbage, pgn }
}

fn game_moves(game: &Game) -> Vec<Move> {
    game.moves().collect()
}

/// The summary lines printed after a match (and usable after each game).
pub fn summary(report: &MatchReport) -> String {
    let t = report.tally;
    let mut s = format!(
        "{} vs {}: +{} ={} -{} of {} games, score {:.1}/{} ({:.1}%)",
        report.names[0],
        report.names[1],
        t.wins,
        t.draws,
        t.losses,
        t.games(),
        t.points(),
        t.games(),
        100.0 * t.score()
    );
    if let Some(elo) = t.elo() {
        let diff = if elo.diff.abs() < 0.05 {
            // Rounds to zero, which has no sign ("-0.0" used to be printed for an even score).
            "0.0".to_string()
        } else if elo.diff.is_finite() {
            format!("{:+.1}", elo.diff)
        } else if elo.diff > 0.0 {
            "+inf".to_string()
        } else {
            "-inf".to_string()
        };
        let error = if elo.error95.is_finite() { format!("{:.1}", elo.error95) } else { "inf".to_string() };
        s.push_str(&format!("\nElo difference: {diff} +/- {error} (95%), LOS {:.1}%", 100.0 * t.los()));
    }
    if let Some(st) = &report.sprt {
        let test = &st.test;
        s.push_str(&format!(
            "\nSPRT {} Elo [{:.2}, {:.2}], alpha {}, beta {}: pairs {}, pentanomial {}, {}\nSPRT: {}",
            test.model,
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            st.pentanomial.pairs(),
            st.pentanomial,
            test.status(st.llr),
            st.decision
        ));
        let outside = t.games().saturating_sub(2 * st.pentanomial.pairs());
        if outside > 0 {
            s.push_str(&format!(
                " ({outside} game(s) whose pair was not complete at the decision are in the score above, not in the test)"
            ));
        }
    }
    for (i, f) in report.faults.iter().enumerate() {
        s.push_str(&format!(
            "\n{}: illegal moves {}, no move {}, crashes {}, time losses {}",
            report.names[i], f[0], f[1], f[2], f[3]
        ));
        if report.garbage_lines[i] > 0 {
            s.push_str(&format!(", overlong lines dropped {}", report.garbage_lines[i]));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls() {
        assert_eq!(
            parse_tc("60+0.6"),
            Ok(Limit::Clock { base: Duration::from_secs(60), inc: Duration::from_millis(600) })
        );
        assert_eq!(parse_tc("10"), Ok(Limit::Clock { base: Duration::from_secs(10), inc: Duration::ZERO }));
        assert!(parse_tc("x+1").is_err());
        assert!(parse_tc("0+0").is_err());
        assert!(parse_tc("-5").is_err());
        // Too large for a clock: the message gives the range, not only "not a number".
        let e = parse_tc("1e30+0").unwrap_err().to_string();
        assert!(e.contains("\"1e30\" is not a number of seconds from 0 to under 10^12"), "{e}");
    }

    #[test]
    fn the_test_stops_changing_at_its_decision() {
        let test = Sprt::new(0.0, 10.0, 0.05, 0.05, sprt::SprtModel::Normalized).unwrap();
        let mut st = SprtState::new(test);
        let mut pairs = PairTracker::default();
        // Engine 0 wins every game; games finish in the order 1, 0, 3, 2, ...
        let mut index = 0;
        while st.decision == Decision::Continue {
            for i in [index + 1, index] {
                let pair = pairs.finish(i, 2);
                st.game_done(i, pair);
                assert_eq!(st.last_update, pair.map(|_| i).or(st.last_update));
            }
            index += 2;
            assert!(index < 1000, "no decision");
        }
        assert_eq!(st.decision, Decision::H1);
        let decided = st;
        assert!(decided.llr >= test.upper());
        assert_eq!(decided.pentanomial.counts, [0, 0, 0, 0, index as u32 / 2]);
        assert_eq!(decided.last_update, Some(index - 2));
        // A game still running at the decision, and its partner, change nothing but the count.
        for i in [index + 1, index] {
            let pair = pairs.finish(i, 0);
            st.game_done(i, pair);
        }
        assert_eq!(st, SprtState { late_games: 2, ..decided });
        let report = MatchReport {
            names: ["a".into(), "b".into()],
            tally: Tally { wins: index as u32 + 1, draws: 0, losses: 1 },
            sprt: Some(st),
            ..MatchReport::default()
        };
        let text = summary(&report);
        assert!(
            text.contains(&format!("pairs {}, pentanomial [0, 0, 0, 0, {}], LLR ", index / 2, index / 2)),
            "{text}"
        );
        assert!(text.contains("\nSPRT: H1 accepted (2 game(s) whose pair was not complete"), "{text}");
    }
}
