//! The UCI front end, in the dialect Pikafish uses for Xiangqi: `position startpos|fen FEN
//! moves h2e2 h9g7` with ICCS moves and ranks 0-9, `go` with the usual limits, `info ... score
//! cp|mate ... pv ...` and `bestmove`.
//!
//! Standard input is read on the calling thread; a search runs on a worker thread, so `stop`,
//! `isready` and `ponderhit` are answered while it thinks; `position`, `go`, `setoption` and
//! `ucinewgame` wait for a search that ends on its own, and are refused during `go infinite`,
//! pondering or a `go mate N` without another limit. Unknown commands and malformed input
//! are reported with `info string` and never end the engine. A refused `position` leaves the
//! session without a position: `go` then answers the null move, `bestmove 0000`, after an
//! `info string` naming why, until a valid `position` arrives.

use super::eval::{self, Weights};
use super::search::{Info, Shared, MAX_SKILL_LEVEL};
use super::time::Limits;
use super::{Engine, Source};
use crate::core::{Game, Position};
use crate::notation::iccs;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod go;
pub use go::{parse_go, GoError};

/// Where the engine writes: shared by the reading thread and the search thread, one whole line
/// at a time. The first write that fails (the GUI is gone, or the output cannot take more) ends
/// the output: nothing more is written, and [`Output::failed`] says so, for the session to end
/// (the writer itself has the error: there is nobody left to tell over this output).
///
/// ```
/// use qiku::engine::uci::Output;
///
/// let log = tempfile::NamedTempFile::new()?;
/// let out = Output::new(Box::new(log.reopen()?));
/// let for_search = out.clone(); // the search thread's handle: the same output
/// out.line("readyok");
/// for_search.line("bestmove h2e2");
/// assert_eq!(std::fs::read_to_string(log.path())?, "readyok\nbestmove h2e2\n");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct Output {
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    failed: Arc<AtomicBool>,
}

impl Output {
    /// Output to `w`.
    ///
    /// ```
    /// use qiku::engine::uci::Output;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("engine.log");
    /// let out = Output::new(Box::new(std::fs::File::create(&path)?)); // any writer
    /// out.line("id name qiku");
    /// assert_eq!(std::fs::read_to_string(&path)?, "id name qiku\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output { writer: Arc::new(Mutex::new(w)), failed: Arc::new(AtomicBool::new(false)) }
    }

    /// Writes `s` and a newline, and flushes; nothing once a write has failed.
    ///
    /// ```
    /// use qiku::engine::uci::Output;
    /// let log = tempfile::NamedTempFile::new()?;
    /// let out = Output::new(Box::new(log.reopen()?));
    /// out.line("readyok");
    /// assert_eq!(std::fs::read_to_string(log.path())?, "readyok\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn line(&self, s: &str) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if self.failed() {
            return;
        }
        if writeln!(w, "{s}").and_then(|()| w.flush()).is_err() {
            self.failed.store(true, Ordering::Release);
        }
    }

    /// Whether a write has failed: the session ends at once (see [`super::session::run`]).
    ///
    /// ```
    /// use qiku::engine::uci::Output;
    ///
    /// let out = Output::new(Box::new(std::io::sink()));
    /// out.line("readyok");
    /// assert!(!out.failed());
    /// let full = Output::new(Box::new(std::io::Cursor::new([0u8; 4])));
    /// full.line("readyok"); // 8 bytes into 4
    /// assert!(full.failed());
    /// ```
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }
}

pub use super::adapters::{BookOpener, Openers, TablebaseOpener};

/// Option values as set by `setoption`.
struct Options {
    hash: usize,
    book_file: String,
    book_policy: String,
    book_min_games: u32,
    /// `BookMinShare`: percent of a position's games a book move needs.
    book_min_share: u32,
    tb_path: String,
    /// `TablebaseRules`: the repetition rules of the tables' values.
    tb_rules: crate::core::Rules,
    weights: Weights,
}

/// `Hash` in MiB until the GUI sets it.
pub const DEFAULT_HASH_MIB: usize = 16;
/// Largest `Hash` in MiB (the UCI option and the CLI's `--hash`).
pub const MAX_HASH_MIB: usize = 65_536;
/// Most lines of the UCI option `MultiPV` (and the CLI's `analyze --multipv`); a position has
/// fewer legal moves, so the search never reports this many.
pub const MAX_MULTI_PV: usize = 500;
/// Most search threads (the UCI option `Threads` and the CLI's `--threads`).
pub const MAX_THREADS: usize = 64;

/// Largest `TablebaseProbeLimit` (pieces, kings included): as advertised and as checked.
pub(crate) const MAX_TB_PROBE_LIMIT: u64 = 12;

/// The first 80 characters of `text`, followed by `...` if there is more: how
/// replies quote an input line, so that a huge line never comes back whole (the one rule of
/// the library's messages, also the position errors').
pub use crate::util::text::excerpt;

/// `PATH: CAUSE` for a file or directory an option could not open, the path said once: the
/// library's errors mostly start with the path already (`a.qbk: cannot open: ...`), and then are
/// taken as they are.
fn path_error(path: &str, cause: &str) -> String {
    match cause.strip_prefix(path).is_some_and(|rest| rest.starts_with(": ")) {
        true => cause.to_string(),
        false => format!("{}: {cause}", excerpt(path)),
    }
}

/// What the front ends say after a decision, beside its score (`info string <note>`): a book
/// move, or the tables' verdict with the rules that decided it and the unit of its distance
/// (`verdict` is [`Engine::last_verdict`]). `None` for a search the tables did not cover.
///
/// ```
/// use qiku::engine::{uci::decision_note, Source};
/// assert_eq!(decision_note(Source::Book, None).as_deref(), Some("book move"));
/// assert_eq!(decision_note(Source::Search, None), None); // a search the tables did not cover
/// ```
pub fn decision_note(source: Source, verdict: Option<crate::core::Verdict>) -> Option<String> {
    match (source, verdict) {
        (Source::Book, _) => Some("book move".to_string()),
        (Source::Tablebase, Some(v)) => Some(format!("tablebase move: {v}")),
        (Source::Tablebase, None) => Some("tablebase move".to_string()),
        (Source::Search, Some(v)) if v.value.wdl == crate::core::Wdl::Draw => {
            Some(format!("tablebase: {v}; the search chooses among the drawing moves"))
        }
        // No move to choose (mated or stalemated): the tables' value alone.
        (Source::Search, Some(v)) => Some(format!("tablebase: {v}")),
        (Source::Search, None) => None,
    }
}

/// The `info` line of a book move, written before its note: the move as the line a GUI shows, at
/// depth 0 and without a score (a book counts the games a move won, drew and lost, which are no
/// centipawns, and no search stands behind the move).
///
/// ```
/// use qiku::engine::uci::book_info;
/// use qiku::{notation::iccs, Position};
///
/// assert_eq!(book_info(iccs::parse(&Position::startpos(), "h2e2")?), "info depth 0 pv h2e2");
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
pub fn book_info(m: crate::core::Move) -> String {
    format!("info depth 0 pv {m}")
}

/// The UCI session.
///
/// ```
/// use qiku::engine::uci::{Output, Uci};
///
/// let log = tempfile::NamedTempFile::new()?;
/// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
/// uci.command("uci");
/// let text = std::fs::read_to_string(log.path())?;
/// assert!(text.starts_with("id name qiku ") && text.ends_with("uciok\n"));
/// assert!(text.contains("\noption name Hash type spin"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Uci {
    out: Output,
    engine: Arc<Mutex<Engine>>,
    worker: Option<JoinHandle<()>>,
    /// The running search's shared state, to stop it without the engine lock it holds.
    active: Option<Arc<Shared>>,
    /// Whether the running search ends without `stop` (a depth, node, time or clock limit; once
    /// pondering ends, for `go ponder`). Not a mate limit alone: there may be no such mate.
    ends_by_itself: bool,
    /// Set by the search thread just before it writes `bestmove`: from then on it is as good as
    /// finished, so a `position` or `go` right after `bestmove` waits for it instead of being
    /// refused.
    done: Arc<AtomicBool>,
    game: Game,
    /// Why the last `position` command was refused, while no valid one has followed: a `go`
    /// then answers the null move instead of searching a position the GUI did not ask for.
    no_position: Option<String>,
    /// Counts the `position` commands handled (accepted or refused, not those ignored while a
    /// search runs), so that UCCI knows when to forget its banned moves.
    positions_handled: u64,
    options: Options,
    openers: Openers,
    /// The name of the book file option in messages: `BookFile`, or UCCI's `bookfiles`.
    book_option: &'static str,
}

impl Uci {
    /// A session writing to `out`, opening books and tables with `openers`.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// use qiku::Position;
    ///
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default()); // the crate's file formats
    /// assert_eq!(uci.current_position(), Some(&Position::startpos())); // until a `position` command
    /// assert!(!uci.is_searching());
    /// ```
    pub fn new(out: Output, openers: Openers) -> Uci {
        Uci {
            out,
            engine: Arc::new(Mutex::new(Engine::new(DEFAULT_HASH_MIB))),
            worker: None,
            active: None,
            ends_by_itself: false,
            done: Arc::new(AtomicBool::new(false)),
            game: Game::new(Position::startpos()),
            no_position: None,
            positions_handled: 0,
            options: Options {
                hash: DEFAULT_HASH_MIB,
                book_file: String::new(),
                book_policy: openers.book_policies.first().unwrap_or(&"best").to_string(),
                book_min_games: 1,
                book_min_share: crate::book::DEFAULT_MIN_SHARE_PERCENT,
                tb_path: String::new(),
                tb_rules: crate::core::Rules::Asian,
                weights: Weights::DEFAULT,
            },
            openers,
            book_option: "BookFile",
        }
    }

    fn info_string(&self, s: &str) {
        self.out.line(&format!("info string {s}"));
    }

    fn searching(&mut self) -> bool {
        if self.worker.as_ref().is_some_and(|w| w.is_finished()) || self.done.load(Ordering::Acquire) {
            self.join();
        }
        self.worker.is_some()
    }

    fn join(&mut self) {
        if let Some(w) = self.worker.take() {
            if w.join().is_err() {
                self.info_string("error: the search thread failed");
            }
        }
    }

    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Handles one input line; returns false on `quit`.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// assert!(uci.command("isready") && uci.command("go depth 2"));
    /// assert!(!uci.command("quit")); // stops the search, which still answers
    /// let text = std::fs::read_to_string(log.path())?;
    /// assert!(text.starts_with("readyok\n") && text.lines().last().unwrap().starts_with("bestmove "));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn command(&mut self, line: &str) -> bool {
        let line = line.trim();
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else { return true };
        let rest: Vec<&str> = words.collect();
        match cmd {
            "uci" => self.uci(),
            "isready" => self.out.line("readyok"),
            "ucinewgame" => {
                if self.busy("ucinewgame") {
                    return true;
                }
                self.engine().new_game();
                self.game = Game::new(Position::startpos());
                self.no_position = None;
            }
            "setoption" => {
                if !self.busy("setoption") {
                    self.setoption(&rest);
                }
            }
            "position" => {
                if !self.busy("position") {
                    self.position(&rest);
                }
            }
            "go" => {
                if !self.busy("go") {
                    self.go(&rest);
                }
            }
            "stop" => self.stop(),
            "ponderhit" => {
                if let Some(shared) = &self.active {
                    *shared.ponderhit_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                    shared.pondering.store(false, Ordering::Relaxed);
                }
            }
            "quit" => {
                self.stop();
                return false;
            }
            "d" | "eval" if self.no_position.is_some() => self.say_no_position(),
            "d" => {
                let pos = self.game.position();
                // The diagram without its own FEN line: `Fen:` below is the one tools read.
                let diagram = pos.diagram().to_string();
                let lines: Vec<&str> = diagram.lines().filter(|l| !l.starts_with("FEN ")).collect();
                self.out.line(&lines.join("\n"));
                self.out.line(&format!("Fen: {}", pos.fen()));
                self.out.line(&format!("Key: {:016x}", pos.key()));
            }
            "eval" => {
                let b = eval::breakdown(self.game.position(), &self.weights());
                self.out.line(&format!("info string eval (red's view): {b}"));
            }
            _ => self.info_string(&format!("unknown command: {}", excerpt(line))),
        }
        true
    }

    /// Before `what` (`position`, `go`, `setoption`, `ucinewgame`): a running search that ends
    /// on its own (a depth, node, time or clock limit) is waited for, its `bestmove` written,
    /// as Stockfish does, so that a script piping several commands gets every answer; during
    /// `go infinite`, pondering or a `go mate N` without another limit, where waiting might never
    /// end, `what` is refused with an `info string` (send `stop` first). Returns whether it was
    /// refused.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// assert!(!uci.busy("position")); // no search running
    /// uci.command("go infinite");
    /// assert!(uci.busy("position")); // it might never end: refused
    /// uci.stop();
    /// ```
    pub fn busy(&mut self, what: &str) -> bool {
        if !self.searching() {
            return false;
        }
        let pondering = self.active.as_ref().is_some_and(|s| s.pondering.load(Ordering::Relaxed));
        if self.ends_by_itself && !pondering {
            self.join();
            self.active = None;
            return false;
        }
        self.info_string(&format!("ignored {what}: a search is running (send stop first)"));
        true
    }

    fn engine_shared(&self) -> Arc<Shared> {
        self.engine().shared.clone()
    }

    fn weights(&self) -> Weights {
        self.options.weights
    }

    fn set_weights(&mut self, w: Weights) {
        self.options.weights = w;
        self.engine().options.weights = w;
    }

    fn uci(&self) {
        let o = &self.out;
        o.line(&format!("id name qiku {}", env!("CARGO_PKG_VERSION")));
        o.line("id author the qiku authors");
        o.line(&format!("option name Hash type spin default {DEFAULT_HASH_MIB} min 1 max {MAX_HASH_MIB}"));
        o.line(&format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"));
        o.line("option name Move Overhead type spin default 30 min 0 max 5000");
        o.line(&format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTI_PV}"));
        o.line(&format!("option name Skill Level type spin default {MAX_SKILL_LEVEL} min 0 max {MAX_SKILL_LEVEL}"));
        o.line("option name Clear Hash type button");
        o.line("option name Ponder type check default false");
        o.line("option name BookFile type string default <empty>");
        let policies: String = self.openers.book_policies.iter().map(|p| format!(" var {p}")).collect();
        o.line(&format!("option name BookPolicy type combo default {}{policies}", self.options.book_policy));
        o.line("option name BookMinGames type spin default 1 min 0 max 1000000000");
        o.line(&format!(
            "option name BookMinShare type spin default {} min 0 max 100",
            crate::book::DEFAULT_MIN_SHARE_PERCENT
        ));
        o.line("option name TablebasePath type string default <empty>");
        o.line(&format!(
            "option name TablebaseProbeLimit type spin default {MAX_TB_PROBE_LIMIT} min 0 max {MAX_TB_PROBE_LIMIT}"
        ));
        o.line("option name TablebaseRules type combo default asian var asian var plain");
        o.line("option name EvalTerms type combo default full var full var basic");
        o.line("option name UCI_Variant type combo default xiangqi var xiangqi");
        o.line("uciok");
    }

    fn setoption(&mut self, args: &[&str]) {
        // setoption name <name words> [value <value words>]
        let name_at = args.iter().position(|w| w.eq_ignore_ascii_case("name"));
        let Some(n) = name_at else {
            return self.info_string("setoption needs: setoption name <name> [value <value>]");
        };
        // The value's word counts only after the name's (`setoption value 1 name X` names X).
        let value_at = args[n + 1..].iter().position(|w| w.eq_ignore_ascii_case("value")).map(|v| n + 1 + v);
        let name = args[n + 1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at.map(|v| args[v + 1..].join(" ")).unwrap_or_default();
        self.set_option(&name, &value, None);
    }

    /// `setoption` for another dialect (UCCI): sets the option UCI calls `name` to `value`, and
    /// every refusal or note names it `shown`, the name the GUI sent. Waits for a search that
    /// ends on its own, and is refused during one that does not, as `setoption` is.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// uci.set_option_as("Hash", "0", "hashsize");
    /// let text = std::fs::read_to_string(log.path())?;
    /// assert_eq!(text, "info string option hashsize: value \"0\" is not a number from 1 to 65536\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_option_as(&mut self, name: &str, value: &str, shown: &str) {
        if !self.busy("setoption") {
            self.set_option(name, value, Some(shown));
        }
    }

    /// Under UCCI the book file option is `bookfiles`: how a book that does not open is named.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// uci.name_book_option("bookfiles");
    /// uci.command("setoption name BookFile value missing.qbk");
    /// assert!(std::fs::read_to_string(log.path())?.starts_with("info string bookfiles missing.qbk: "));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn name_book_option(&mut self, name: &'static str) {
        self.book_option = name;
    }

    /// Sets option `name` (UCI's, any case) to `value`; refusals and notes name the option
    /// `shown` if given, else as UCI does.
    fn set_option(&mut self, name: &str, value: &str, shown: Option<&str>) {
        let value = value.to_string();
        let label = |uci_name: &str| shown.unwrap_or(uci_name).to_string();
        let sent = label(name);
        let number = |lo: u64, hi: u64| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| format!("option {sent}: value {value:?} is not a number from {lo} to {hi}"))
        };
        let result: Result<(), String> = match name.to_ascii_lowercase().as_str() {
            "hash" => number(1, MAX_HASH_MIB as u64).and_then(|v| {
                let result = self.engine().set_hash(v as usize);
                match result {
                    Ok(()) => {
                        self.options.hash = v as usize;
                        Ok(())
                    }
                    Err(e) => {
                        Err(format!("option {}: {e}; keeping the {} MiB table", label("Hash"), self.options.hash))
                    }
                }
            }),
            "threads" => number(1, MAX_THREADS as u64).map(|v| {
                let runs = crate::engine::search::search_threads(v as usize);
                if runs < v as usize {
                    self.info_string(&format!(
                        "{} {v}: this machine has {runs} logical CPUs, so the search runs {runs} threads \
                         (more would take turns on them and miss the clock)",
                        label("Threads")
                    ));
                }
                self.engine().options.threads = v as usize
            }),
            "multipv" => number(1, MAX_MULTI_PV as u64).map(|v| self.engine().options.multi_pv = v as usize),
            "skill level" => {
                number(0, u64::from(MAX_SKILL_LEVEL)).map(|v| self.engine().options.skill_level = v as u32)
            }
            "move overhead" => number(0, 5000).map(|v| self.engine().options.move_overhead = Duration::from_millis(v)),
            "clear hash" => {
                self.engine().new_game();
                Ok(())
            }
            // Accepted for GUIs that send them; values outside the advertised ones are refused.
            "ponder" => match value.to_ascii_lowercase().as_str() {
                "true" | "false" => Ok(()),
                _ => Err(format!("option {}: {:?} is not true or false", label("Ponder"), excerpt(&value))),
            },
            "uci_variant" => match value.to_ascii_lowercase().as_str() {
                "xiangqi" => Ok(()),
                _ => Err(format!(
                    "option {}: {:?} is not supported; the only variant is xiangqi",
                    label("UCI_Variant"),
                    excerpt(&value)
                )),
            },
            "evalterms" => match value.to_ascii_lowercase().as_str() {
                "full" => {
                    self.set_weights(Weights::DEFAULT);
                    Ok(())
                }
                "basic" => {
                    self.set_weights(Weights::BASIC);
                    Ok(())
                }
                _ => Err(format!("option {}: {value:?} is not full or basic", label("EvalTerms"))),
            },
            "bookfile" => {
                self.options.book_file = if value == "<empty>" { String::new() } else { value.clone() };
                self.reopen_book()
            }
            "bookpolicy" => {
                if let Some(p) = self.openers.book_policies.iter().find(|p| p.eq_ignore_ascii_case(&value)) {
                    self.options.book_policy = p.to_string();
                    self.reopen_book()
                } else {
                    Err(format!(
                        "option {}: {value:?} is not one of {}",
                        label("BookPolicy"),
                        self.openers.book_policies.join(", ")
                    ))
                }
            }
            "bookmingames" => number(0, 1_000_000_000).and_then(|v| {
                self.options.book_min_games = v as u32;
                self.reopen_book()
            }),
            "bookminshare" => number(0, 100).and_then(|v| {
                self.options.book_min_share = v as u32;
                self.reopen_book()
            }),
            "tablebasepath" => {
                self.options.tb_path = if value == "<empty>" { String::new() } else { value.clone() };
                if self.options.tb_path.is_empty() {
                    self.engine().options.tablebases = None;
                    Ok(())
                } else {
                    match (self.openers.tablebases)(&self.options.tb_path) {
                        Ok(tb) => {
                            tb.set_rules(self.options.tb_rules);
                            self.info_string(&format!(
                                "tablebases loaded from {} (up to {} pieces)",
                                self.options.tb_path,
                                tb.max_pieces()
                            ));
                            self.engine().options.tablebases = Some(tb);
                            Ok(())
                        }
                        Err(e) => {
                            self.engine().options.tablebases = None;
                            Err(format!(
                                "{} {}",
                                label("TablebasePath"),
                                path_error(&self.options.tb_path, &e.to_string())
                            ))
                        }
                    }
                }
            }
            "tablebaserules" => value
                .parse::<crate::core::Rules>()
                .map_err(|_| format!("option {}: {value:?} is not asian or plain", label("TablebaseRules")))
                .map(|r| {
                    self.options.tb_rules = r;
                    if let Some(tb) = &self.engine().options.tablebases {
                        tb.set_rules(r);
                    }
                }),
            "tablebaseprobelimit" => number(0, MAX_TB_PROBE_LIMIT).map(|v| {
                let mut e = self.engine();
                e.options.tb_probe_limit = v as u32;
                e.tb_root_limit = v as u32;
            }),
            _ => Err(format!("unknown option {:?}", excerpt(&sent))),
        };
        if let Err(e) = result {
            self.info_string(&e);
        }
    }

    /// Opens the first of `files` that opens as the book (`BookFile`), with the current book
    /// options; an `info string` names those that did not open and why. If none opens, the book
    /// loaded before stays (UCCI's `bookfiles a.qbk;b.qbk`).
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// uci.set_book_files(&["a.qbk".to_string(), "b.qbk".to_string()]);
    /// let text = std::fs::read_to_string(log.path())?;
    /// assert!(text.starts_with("info string book files that did not open: a.qbk: "));
    /// assert!(text.ends_with("; no book loaded\n"), "{text}");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_book_files(&mut self, files: &[String]) {
        if self.busy("setoption") {
            return;
        }
        let mut failed = Vec::new();
        let mut opened = false;
        for file in files {
            let o = &self.options;
            match (self.openers.book)(file, &o.book_policy, o.book_min_games, o.book_min_share) {
                Ok(b) => {
                    self.options.book_file = file.clone();
                    self.engine().book = Some(b);
                    opened = true;
                    break;
                }
                Err(e) => failed.push(path_error(file, &e.to_string())),
            }
        }
        if failed.is_empty() {
            return;
        }
        let outcome = match (opened, self.options.book_file.as_str()) {
            (true, file) => format!("using {}", excerpt(file)),
            (false, "") => "no book loaded".to_string(),
            (false, file) => format!("keeping the book {}", excerpt(file)),
        };
        self.info_string(&format!("book files that did not open: {}; {outcome}", failed.join("; ")));
    }

    fn reopen_book(&mut self) -> Result<(), String> {
        if self.options.book_file.is_empty() {
            self.engine().book = None;
            return Ok(());
        }
        let o = &self.options;
        match (self.openers.book)(&o.book_file, &o.book_policy, o.book_min_games, o.book_min_share) {
            Ok(b) => {
                self.engine().book = Some(b);
                Ok(())
            }
            Err(e) => {
                self.engine().book = None;
                // No book is used, and the file is forgotten: the book options after it (a GUI
                // sends them all) have nothing to reopen, and the failure is named once.
                let file = std::mem::take(&mut self.options.book_file);
                // UCCI's `bookfiles` takes a `;` list; UCI's `BookFile` one file.
                let list = if file.contains(';') {
                    " (BookFile names one book; UCCI's bookfiles takes a `;`-separated list)"
                } else {
                    ""
                };
                Err(format!("{} {}{list}", self.book_option, path_error(&file, &e.to_string())))
            }
        }
    }

    fn position(&mut self, args: &[&str]) {
        self.positions_handled += 1;
        match read_position(args) {
            Ok(game) => {
                self.game = game;
                self.no_position = None;
            }
            Err(refusal) => {
                self.info_string(&format!("{}; no position until a valid position command", refusal.message));
                self.no_position = Some(refusal.reason);
            }
        }
    }

    /// Leaves the session without a position, `reason` saying why (a `position` line too long to
    /// read): the next `go` answers the null move instead of searching the previous position.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// uci.refuse_position("line too long");
    /// uci.command("go depth 1");
    /// assert!(std::fs::read_to_string(log.path())?.ends_with("bestmove 0000\n")); // not a search
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn refuse_position(&mut self, reason: &str) {
        if self.busy("position") {
            return;
        }
        self.positions_handled += 1;
        self.no_position = Some(reason.to_string());
    }

    /// The position a `go` would search: `None` after a refused `position` command.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// uci.command("position fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1");
    /// assert_eq!(uci.current_position().map(|p| p.fen()).as_deref(), Some("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"));
    /// uci.command("position fen not-a-fen"); // refused
    /// assert!(uci.current_position().is_none());
    /// assert_eq!(uci.positions_handled(), 2);
    /// ```
    pub fn current_position(&self) -> Option<&Position> {
        self.no_position.is_none().then(|| self.game.position())
    }

    /// How many `position` commands the session has handled (accepted or refused).
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    ///
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// assert_eq!(uci.positions_handled(), 0);
    /// uci.command("position startpos moves h2e2");
    /// uci.command("isready"); // not a position command
    /// uci.command("position startpos moves h2e2 h2e2"); // refused (an illegal move), but handled
    /// assert_eq!(uci.positions_handled(), 2);
    /// ```
    pub fn positions_handled(&self) -> u64 {
        self.positions_handled
    }

    fn say_no_position(&self) {
        let reason = self.no_position.as_deref().unwrap_or("none was sent");
        self.info_string(&format!("no position: the last position command was refused ({reason}); send a valid one"));
    }

    fn go(&mut self, args: &[&str]) {
        // The clock runs from here: starting the search thread and readying the search count.
        let start = Instant::now();
        if self.no_position.is_some() {
            // Never a move for another position than the one asked for: the null move.
            self.say_no_position();
            return self.out.line("bestmove 0000");
        }
        let limits = match parse_go(args, self.game.position()) {
            Ok((l, warnings)) => {
                for w in warnings {
                    self.info_string(&w);
                }
                l
            }
            // A GUI waits for `bestmove` after every `go` (some send a clock a little below zero
            // after an overstep): a move found at depth 1, at once, rather than silence.
            Err(e) => {
                self.info_string(&format!("{e}; answering at depth 1"));
                Limits { depth: Some(1), ..Limits::default() }
            }
        };
        let limits = Limits { start: Some(start), ..limits };
        // A mate limit alone is no bound: in a position without a mate that short the search
        // deepens on until `stop`, so the commands after it are refused as during `go infinite`
        // (waiting would block the input, and the `stop` in it, for good).
        self.ends_by_itself = !limits.infinite
            && (limits.depth.is_some() || limits.nodes.is_some() || limits.movetime.is_some() || limits.uses_clock());
        let shared = self.engine_shared();
        shared.stop.store(false, Ordering::Relaxed);
        shared.pondering.store(limits.ponder, Ordering::Relaxed);
        *shared.ponderhit_at.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.active = Some(shared.clone());
        let done = Arc::new(AtomicBool::new(false));
        self.done = done.clone();
        let engine = self.engine.clone();
        let game = self.game.clone();
        let out = self.out.clone();
        self.worker = Some(std::thread::spawn(move || {
            let lock = || engine.lock().unwrap_or_else(|e| e.into_inner());
            let mut thinker = lock();
            // Output that fails ends the search: the GUI is gone, nobody waits for its move.
            let mut report = |info: &Info| {
                out.line(&info.to_uci());
                if out.failed() {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            };
            let (result, source) = thinker.think(&game, &limits, &mut report);
            let verdict = thinker.last_verdict;
            drop(thinker);
            if let (Source::Book, Some(m)) = (source, result.best) {
                out.line(&book_info(m));
            }
            if let Some(note) = decision_note(source, verdict) {
                out.line(&format!("info string {note}"));
            }
            // UCI: after `go infinite` (or while pondering) bestmove waits for stop/ponderhit.
            if limits.infinite || limits.ponder {
                while !shared.stop.load(Ordering::Relaxed)
                    && !out.failed()
                    && (limits.infinite || shared.pondering.load(Ordering::Relaxed))
                {
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
            done.store(true, Ordering::Release);
            match result.best {
                Some(m) => match result.ponder {
                    Some(p) => out.line(&format!("bestmove {m} ponder {p}")),
                    None => out.line(&format!("bestmove {m}")),
                },
                None => {
                    out.line("info depth 0 score mate 0");
                    out.line("bestmove (none)");
                }
            }
            // Between moves, off the clock of the next one.
            lock().age_history();
        }));
    }

    /// Whether a search is running.
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    ///
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// assert!(!uci.is_searching());
    /// uci.command("go infinite");
    /// assert!(uci.is_searching()); // until `stop`
    /// uci.command("stop");
    /// assert!(!uci.is_searching());
    /// ```
    pub fn is_searching(&mut self) -> bool {
        self.searching()
    }

    /// The hash table's entry for `pos`, if any, for UCCI's `probe` (`None` while searching).
    ///
    /// ```
    /// use qiku::{engine::uci::{Output, Uci}, Position};
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// uci.command("go depth 3");
    /// uci.busy("position"); // waits for the search, which ends on its own
    /// let entry = uci.hash_entry(&Position::startpos()).expect("the root was stored");
    /// assert!(entry.mv.is_some_and(|m| Position::startpos().is_legal(m)));
    /// ```
    pub fn hash_entry(&mut self, pos: &Position) -> Option<super::tt::Entry> {
        if self.searching() {
            return None;
        }
        self.engine().shared.tt.probe(pos.key())
    }

    /// Stops a running search and waits for its `bestmove` (as the `stop` command does).
    ///
    /// ```
    /// use qiku::engine::uci::{Output, Uci};
    /// let mut uci = Uci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// uci.command("go infinite");
    /// assert!(uci.is_searching());
    /// uci.stop(); // returns once `bestmove` is written
    /// assert!(!uci.is_searching());
    /// ```
    pub fn stop(&mut self) {
        if let Some(shared) = self.active.take() {
            shared.stop.store(true, Ordering::Relaxed);
        }
        self.join();
    }
}

/// Why a `position` command was refused: the full message, and a short reason for the `go`
/// that follows.
pub(super) struct PositionRefusal {
    pub(super) message: String,
    reason: String,
}

/// The game of `startpos|fen FEN [moves ...]`, or why it cannot be set up (an unreadable or
/// impossible FEN, an illegal move in the list); UCCI's `probe` reads its position so too.
pub(super) fn read_position(args: &[&str]) -> Result<Game, PositionRefusal> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (spec, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let start = match spec.first() {
        Some(&"startpos") if spec.len() == 1 => Position::startpos(),
        Some(&"fen") if spec.len() > 1 => {
            let fen = spec[1..].join(" ");
            Position::from_fen(&fen).map_err(|e| PositionRefusal {
                message: format!("invalid FEN {:?}: {e}", excerpt(&fen)),
                reason: format!("invalid FEN: {e}"),
            })?
        }
        _ => {
            return Err(PositionRefusal {
                message: format!(
                    "malformed position command {:?}: expected position startpos|fen FEN [moves ...]",
                    excerpt(&args.join(" "))
                ),
                reason: "malformed position command".to_string(),
            })
        }
    };
    let mut game = Game::new(start);
    for (i, token) in moves.iter().enumerate() {
        match iccs::parse(game.position(), token) {
            Ok(m) => game.play_unchecked(m),
            Err(e) => {
                let token = excerpt(token);
                return Err(PositionRefusal {
                    message: format!("move {} ({token}): {e} in {}", i + 1, game.position().fen()),
                    reason: format!("move {} ({token}): {e}", i + 1),
                });
            }
        }
    }
    Ok(game)
}
