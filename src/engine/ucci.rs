//! The UCCI front end (the protocol of ElephantEye and the classic Chinese GUIs such as
//! XQWizard), on top of the UCI session: same search, book and tables, another dialect.
//!
//! The engine switches to it when it receives `ucci` (instead of `uci`). Then:
//! - `ucci` answers `id ...`, the options under their UCCI names, and `ucciok`;
//! - `setoption <name> <value>` (UCCI form; the UCI form `setoption name N value V` is read too)
//!   with `usemillisec`, `hashsize`, `threads`, `multipv` (UCCI has none; qiku's own, as UCI's
//!   `MultiPV`: `info` lines then carry `multipv K`), `usebook`, `bookfiles` (`a.qbk;b.qbk`: the
//!   first that opens; if none does, the book loaded before stays), `newgame`, `ponder`,
//!   `batch`, `debug` and qiku's own `tablebasepath`, `tablebaserules` (`asian` or `plain`, UCI's
//!   `TablebaseRules`), `tablebaseprobelimit` (UCI's `TablebaseProbeLimit`, 0 to 12), `bookpolicy`,
//!   `bookmingames`, `bookminshare`, `evalterms`, `skilllevel` (UCI's `Skill Level`, 0 to 20);
//!   options this engine has nothing to do with (`idle`, `pruning`, `knowledge`, `randomness`,
//!   `style`, `promotion`) are accepted and ignored; a refused value is named under the name the
//!   GUI sent (`option hashsize: ...`), and `usemillisec` and `usebook` take `true` or `false`
//!   (`on`/`off`, `yes`/`no`, `1`/`0` too), another value refused and the setting kept;
//! - `position startpos|fen FEN [moves ...]` as under UCI (after a refused one, `go` answers
//!   `nobestmove` until a valid one arrives);
//! - `banmoves m1 m2 ...`: the next `go` of this position never plays these;
//! - `go [ponder] [draw] depth D | nodes N | time T [movestogo M] [increment I] [opptime T]
//!   [oppmovestogo M] [oppincrement I] | infinite`, times in seconds, or milliseconds after
//!   `setoption usemillisec true`; a `go` with a missing, negative or unreadable value is
//!   answered as under UCI: an `info string` naming the UCCI field, then a move found at depth 1
//!   (a time beyond UCI's most, `i64::MAX` milliseconds, is read as that most and searched);
//! - `ponderhit`, `stop`, `isready`/`readyok`;
//! - `probe [startpos|fen FEN] [moves ...]` answers `pophash` with what the hash table holds for
//!   that position (`bestmove`, `lowerbound`/`upperbound` with `depth`); a position `position`
//!   would refuse (a bad FEN, a move that cannot be played) refuses the probe with an `info
//!   string` naming why, and no `pophash`;
//! - `quit` answers `bye`.
//!
//! Output: `info depth D score S ... pv ...` with the score as a bare number (a mate is
//! `10000 - plies`, ElephantEye's convention), `bestmove M [ponder P]`, and `nobestmove` when
//! there is no legal move.

use super::tt::Bound;
use super::uci::{Openers, Output, Uci, DEFAULT_HASH_MIB};
use crate::core::{Color, Move, Position};
use crate::notation::iccs;
use std::io::Write;

/// The longest time a UCCI `go` passes on, in milliseconds: the most UCI's `go` reads.
const MAX_MS: u64 = i64::MAX as u64;

/// The mate value of UCCI scores: a mate in `p` plies is `MATE_VALUE - p`.
pub const MATE_VALUE: i32 = 10_000;

/// ElephantEye's `WIN_VALUE`: UCCI scores above it (and below [`MATE_VALUE`] - 100) are won
/// without a known mate distance. A table win the search reaches without its distance, or a
/// value only the perpetual-check rule decides, is `WIN_VALUE + 99 - plies` (at least
/// `WIN_VALUE + 1`): inside UCCI's range, below every mate, as in UCI.
pub const WIN_VALUE: i32 = MATE_VALUE - 200;

/// A UCI `mate N` (moves; negative: mated) as a UCCI score.
fn ucci_mate(n: i32) -> i32 {
    if n > 0 {
        MATE_VALUE - (2 * n - 1)
    } else {
        -(MATE_VALUE + 2 * n)
    }
}

/// A bare UCCI score read back as a mate: `Some(n)`, a mate in `n` moves (negative: mated), for
/// scores from `MATE_VALUE - 100` (9900) to [`MATE_VALUE`] in size, `MATE_VALUE - p` being a mate
/// in `p` plies (`(p + 1) / 2` moves; 0 for the side already mated); `None` for anything smaller
/// (centipawns, the won values of [`WIN_VALUE`] among them) or larger (not a UCCI score). The
/// inverse of the scores this front end writes, for programs that read UCCI engines.
///
/// ```
/// use qiku::engine::ucci::ucci_mate_moves;
///
/// assert_eq!(ucci_mate_moves(9999), Some(1)); // mates with its move
/// assert_eq!(ucci_mate_moves(-9998), Some(-1)); // mated after one move
/// assert_eq!(ucci_mate_moves(9850), None); // a table win without its distance: centipawns
/// assert_eq!(ucci_mate_moves(68), None);
/// ```
pub fn ucci_mate_moves(v: i32) -> Option<i32> {
    (MATE_VALUE - 100..=MATE_VALUE).contains(&v.abs()).then(|| v.signum() * ((MATE_VALUE - v.abs() + 1) / 2))
}

/// A search value (a hash table entry's, say) as a UCCI score.
fn ucci_value(v: super::eval::Value) -> i32 {
    match super::Score::from_value(v) {
        super::Score::Mate(n) => ucci_mate(n),
        super::Score::Cp(c) => ucci_cp(c),
    }
}

/// A UCI `cp` score in UCCI's range: table wins (see [`WIN_VALUE`]) shrink into it.
fn ucci_cp(v: i32) -> i32 {
    use super::search::{TB_BOUND, TB_WIN};
    if v.abs() < TB_BOUND {
        return v;
    }
    let plies = (TB_WIN - v.abs()).clamp(0, 98);
    v.signum() * (WIN_VALUE + 99 - plies)
}

/// Turns the UCI session's output lines into UCCI's.
struct Translate {
    out: Output,
    buf: Vec<u8>,
}

impl Write for Translate {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            self.out.line(&to_ucci(line.trim_end()));
        }
        // The UCI session's output fails with the real one, for it to stop a search as it does.
        match self.out.failed() {
            true => Err(std::io::Error::other("the output failed")),
            false => Ok(bytes.len()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One UCI output line in UCCI: `score cp X` becomes `score X` (a table win above every
/// evaluation becomes one of 9801 to 9899, see [`WIN_VALUE`]), `score mate N` becomes
/// `score ±(10000 - plies)`, and `bestmove (none)` and the null move `bestmove 0000` (no
/// position to search) become `nobestmove`.
///
/// ```
/// use qiku::engine::ucci::to_ucci;
///
/// assert_eq!(to_ucci("info depth 5 score cp 25 pv h2e2"), "info depth 5 score 25 pv h2e2");
/// assert_eq!(to_ucci("info depth 3 score mate 2 pv a0d0"), "info depth 3 score 9997 pv a0d0");
/// assert_eq!(to_ucci("bestmove (none)"), "nobestmove");
/// assert_eq!(to_ucci("bestmove h2e2 ponder h9g7"), "bestmove h2e2 ponder h9g7");
/// ```
pub fn to_ucci(line: &str) -> String {
    if line.starts_with("bestmove (none)") || line == "bestmove 0000" {
        return "nobestmove".to_string();
    }
    if !line.starts_with("info ") || line.starts_with("info string") {
        return line.to_string();
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        if words[i] == "score" && i + 2 < words.len() {
            let value = words[i + 2].parse::<i32>().ok();
            let converted = match (words[i + 1], value) {
                ("cp", Some(v)) => Some(ucci_cp(v)),
                ("mate", Some(n)) => Some(ucci_mate(n)),
                _ => None,
            };
            if let Some(v) = converted {
                out.push("score".into());
                out.push(v.to_string());
                i += 3;
                continue;
            }
        }
        out.push(words[i].to_string());
        i += 1;
    }
    out.join(" ")
}

/// The UCCI session: the UCI session it drives, and what UCCI keeps beyond it.
///
/// ```
/// use qiku::engine::{ucci::Ucci, uci::Output};
///
/// let log = tempfile::NamedTempFile::new()?;
/// let mut ucci = Ucci::new(Output::new(Box::new(log.reopen()?)), Default::default());
/// // Rook to d0 mates: found by `go depth` and answered with `bestmove`.
/// ucci.command("position fen 3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1");
/// ucci.command("go depth 2");
/// ucci.command("position startpos"); // waits for the search, which ends on its own
/// assert!(std::fs::read_to_string(log.path())?.ends_with("bestmove a0d0\n"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Ucci {
    out: Output,
    uci: Uci,
    /// `usemillisec`: `go` times are in milliseconds, not seconds.
    millis: bool,
    use_book: bool,
    /// `bookfiles`: the books to try, in order (the first that opens is used).
    book_files: Vec<String>,
    banned: Vec<Move>,
}

impl Ucci {
    /// A session writing to `out`.
    ///
    /// ```
    /// use qiku::engine::{ucci::Ucci, uci::Output};
    ///
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut ucci = Ucci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// ucci.command("ucci");
    /// let text = std::fs::read_to_string(log.path())?;
    /// assert!(text.contains("\noption hashsize type spin") && text.ends_with("ucciok\n"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(out: Output, openers: Openers) -> Ucci {
        let translated = Output::new(Box::new(Translate { out: out.clone(), buf: Vec::new() }));
        let mut uci = Uci::new(translated, openers);
        uci.name_book_option("bookfiles");
        Ucci { out, uci, millis: false, use_book: true, book_files: Vec::new(), banned: Vec::new() }
    }

    fn uci(&mut self, line: &str) {
        self.uci.command(line);
    }

    /// Ends the session at the end of input: a running search finishes its move, as if `stop`
    /// had been sent.
    ///
    /// ```
    /// use qiku::engine::{ucci::Ucci, uci::Output};
    ///
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut ucci = Ucci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// ucci.command("go infinite");
    /// ucci.finish(); // the end of the input: the search answers
    /// let text = std::fs::read_to_string(log.path())?;
    /// assert!(text.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{text}");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn finish(&mut self) {
        self.uci("stop");
    }

    fn info_string(&self, s: &str) {
        self.out.line(&format!("info string {s}"));
    }

    /// Handles one input line; returns false on `quit`.
    ///
    /// ```
    /// use qiku::engine::{ucci::Ucci, uci::Output};
    ///
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut ucci = Ucci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// assert!(ucci.command("isready"));
    /// assert!(!ucci.command("quit"));
    /// assert_eq!(std::fs::read_to_string(log.path())?, "readyok\nbye\n");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn command(&mut self, line: &str) -> bool {
        let line = line.trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, rest)) = words.split_first() else { return true };
        match cmd {
            "ucci" => self.hello(),
            "isready" | "stop" | "ponderhit" => self.uci(cmd),
            "setoption" => self.setoption(rest),
            "position" => {
                // A position the UCI session handles (accepted or refused; not one ignored while
                // a search runs) forgets the banned moves.
                let handled = self.uci.positions_handled();
                self.uci(line);
                if self.uci.positions_handled() != handled {
                    self.banned.clear();
                }
            }
            "banmoves" => {
                self.banned.clear();
                let Some(pos) = self.uci.current_position().cloned() else {
                    self.info_string("banmoves: no position (the last position command was refused)");
                    return true;
                };
                for t in rest {
                    match iccs::parse(&pos, t) {
                        Ok(m) => self.banned.push(m),
                        Err(e) => self.info_string(&format!("banmoves {}: {e}", super::uci::excerpt(t))),
                    }
                }
            }
            "go" => self.go(rest),
            "probe" => self.probe(rest),
            "quit" => {
                self.uci("quit");
                self.out.line("bye");
                return false;
            }
            // Diagnostics shared with UCI.
            "d" | "eval" => self.uci(line),
            _ => self.info_string(&format!("unknown command: {}", super::uci::excerpt(line))),
        }
        true
    }

    fn hello(&self) {
        let o = &self.out;
        o.line(&format!("id name qiku {}", env!("CARGO_PKG_VERSION")));
        o.line("id copyright the qiku authors, MIT OR Apache-2.0");
        o.line("id author the qiku authors");
        o.line("option usemillisec type check default false");
        o.line("option batch type check default false");
        o.line("option debug type check default false");
        o.line("option ponder type check default false");
        o.line(&format!("option hashsize type spin min 1 max 65536 default {DEFAULT_HASH_MIB}"));
        o.line("option threads type spin min 1 max 64 default 1");
        o.line(&format!("option multipv type spin min 1 max {} default 1", super::uci::MAX_MULTI_PV));
        let level = super::search::MAX_SKILL_LEVEL;
        o.line(&format!("option skilllevel type spin min 0 max {level} default {level}"));
        o.line("option usebook type check default true");
        o.line("option bookfiles type string default <empty>");
        o.line("option bookpolicy type combo var best var games var score default best");
        o.line("option bookmingames type spin min 0 max 1000000000 default 1");
        o.line(&format!(
            "option bookminshare type spin min 0 max 100 default {}",
            crate::book::DEFAULT_MIN_SHARE_PERCENT
        ));
        o.line("option tablebasepath type string default <empty>");
        let limit = super::uci::MAX_TB_PROBE_LIMIT;
        o.line(&format!("option tablebaseprobelimit type spin min 0 max {limit} default {limit}"));
        o.line("option tablebaserules type combo var asian var plain default asian");
        o.line("option evalterms type combo var full var basic default full");
        o.line("option newgame type button");
        o.line("ucciok");
    }

    fn setoption(&mut self, args: &[&str]) {
        // UCI form (some GUI libraries send it to UCCI engines too), else `setoption NAME VALUE`.
        let (name, value) = if args.first().is_some_and(|w| w.eq_ignore_ascii_case("name")) {
            let v = args.iter().position(|w| w.eq_ignore_ascii_case("value"));
            (args[1..v.unwrap_or(args.len())].join(" "), v.map(|v| args[v + 1..].join(" ")).unwrap_or_default())
        } else {
            match args.split_first() {
                Some((n, v)) => (n.to_string(), v.join(" ")),
                None => return self.info_string("setoption needs: setoption <name> <value>"),
            }
        };
        // A check option's value: `true` or `false` (`on`/`off`, `yes`/`no`, `1`/`0` too); anything
        // else is refused with the setting left as it was.
        let flag = |s: &Ucci, v: &str| match v.to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "1" => Some(true),
            "false" | "off" | "no" | "0" => Some(false),
            _ => {
                s.info_string(&format!("option {name}: {:?} is not true or false", super::uci::excerpt(v)));
                None
            }
        };
        // Set through the UCI session, refusals naming the option as the GUI sent it.
        let set = |s: &mut Ucci, uci_name: &str, v: &str| s.uci.set_option_as(uci_name, v, &name);
        match name.to_ascii_lowercase().as_str() {
            "usemillisec" => {
                if let Some(on) = flag(self, &value) {
                    self.millis = on;
                }
            }
            "hashsize" | "hash" => set(self, "Hash", &value),
            "threads" => set(self, "Threads", &value),
            "multipv" => set(self, "MultiPV", &value),
            "skilllevel" | "skill level" => set(self, "Skill Level", &value),
            "usebook" => {
                if let Some(on) = flag(self, &value) {
                    self.use_book = on;
                    self.apply_book();
                }
            }
            "bookfiles" | "bookfile" => {
                // UCCI allows several files separated by ';': qiku reads one book, the first of
                // them that opens.
                self.book_files = value
                    .split(';')
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && *s != "<empty>")
                    .map(str::to_string)
                    .collect();
                self.apply_book();
            }
            "newgame" => self.uci("ucinewgame"),
            "bookpolicy" => set(self, "BookPolicy", &value),
            "bookmingames" => set(self, "BookMinGames", &value),
            "bookminshare" => set(self, "BookMinShare", &value),
            "tablebasepath" => set(self, "TablebasePath", &value),
            "tablebaserules" => set(self, "TablebaseRules", &value),
            "tablebaseprobelimit" => set(self, "TablebaseProbeLimit", &value),
            "evalterms" => set(self, "EvalTerms", &value),
            "clear hash" => set(self, "Clear Hash", ""),
            "move overhead" => set(self, "Move Overhead", &value),
            "ponder" | "batch" | "debug" | "idle" | "pruning" | "knowledge" | "randomness" | "style" | "promotion"
            | "loadbook" => {}
            _ => self.info_string(&format!("unknown option {:?}", super::uci::excerpt(&name))),
        }
    }

    fn apply_book(&mut self) {
        if self.use_book && !self.book_files.is_empty() {
            self.uci.set_book_files(&self.book_files);
        } else {
            self.uci("setoption name BookFile value <empty>");
        }
    }

    /// Leaves the session without a position (a `position` line too long to read): the next
    /// `go` answers `nobestmove`.
    ///
    /// ```
    /// use qiku::engine::{ucci::Ucci, uci::Output};
    ///
    /// let log = tempfile::NamedTempFile::new()?;
    /// let mut ucci = Ucci::new(Output::new(Box::new(log.reopen()?)), Default::default());
    /// ucci.refuse_position("line too long");
    /// ucci.command("go depth 1");
    /// assert!(std::fs::read_to_string(log.path())?.ends_with("nobestmove\n"));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn refuse_position(&mut self, reason: &str) {
        let handled = self.uci.positions_handled();
        self.uci.refuse_position(reason);
        if self.uci.positions_handled() != handled {
            self.banned.clear();
        }
    }

    fn go(&mut self, args: &[&str]) {
        // A running search that ends on its own is waited for (it answers first); during an
        // infinite search, pondering or a `go mate N` alone the `go` is refused with an `info
        // string` and no answer of its own, since the running search's `bestmove` is still to
        // come: never two answers.
        if self.uci.busy("go") {
            return;
        }
        // After a refused `position` the UCI session says why and answers the null move
        // (`nobestmove` here).
        let Some(pos) = self.uci.current_position().cloned() else { return self.uci("go") };
        let mut uci = match self.uci_go_words(&pos, args) {
            Ok(uci) => uci,
            Err(message) => {
                self.info_string(&format!("{message}; answering at depth 1"));
                vec!["go".into(), "depth 1".into()]
            }
        };
        if !self.banned.is_empty() {
            let allowed: Vec<Move> = pos.moves().iter().copied().filter(|m| !self.banned.contains(m)).collect();
            if allowed.is_empty() {
                let n = pos.moves().len();
                self.info_string(&format!("banmoves: every legal move of this position ({n}) is banned"));
                self.out.line("nobestmove");
                return;
            }
            uci.push("searchmoves".into());
            uci.extend(allowed.iter().map(|m| m.to_string()));
        }
        self.uci(&uci.join(" "));
    }

    /// The UCI `go` line a UCCI `go` with `args` is searched as, or why it cannot be obeyed (the
    /// `info string` the session sends before it answers at depth 1); `None` when the session has
    /// no position (its last `position` was refused). UCCI's `time`, `increment`, `opptime` and
    /// `oppincrement` become the side to move's and the other side's UCI clocks, in milliseconds
    /// (seconds are multiplied unless `setoption usemillisec true`); `depth infinite` is
    /// `infinite`; `draw` and `oppmovestogo` are dropped; the counts are checked; other words
    /// pass as they are. Moves banned with `banmoves` are not in it (the session adds them as
    /// `searchmoves`).
    ///
    /// ```
    /// use qiku::engine::{ucci::Ucci, uci::Output};
    ///
    /// let mut ucci = Ucci::new(Output::new(Box::new(std::io::sink())), Default::default());
    /// ucci.command("position startpos moves h2e2");
    /// assert_eq!(ucci.uci_go(&["time", "60", "increment", "2", "opptime", "58"]).unwrap().unwrap(), "go btime 60000 binc 2000 wtime 58000");
    /// assert_eq!(ucci.uci_go(&["depth", "infinite", "draw"]).unwrap().unwrap(), "go infinite");
    /// let why = ucci.uci_go(&["time", "-3"]).unwrap().unwrap_err();
    /// assert!(why.starts_with("go: time -3 is negative"), "{why}");
    /// ```
    pub fn uci_go(&self, args: &[&str]) -> Option<Result<String, String>> {
        let pos = self.uci.current_position()?;
        Some(self.uci_go_words(pos, args).map(|words| words.join(" ")))
    }

    /// [`Ucci::uci_go`]'s words for `pos`.
    fn uci_go_words(&self, pos: &Position, args: &[&str]) -> Result<Vec<String>, String> {
        let (us, them) = match pos.turn() {
            Color::Red => ("w", "b"),
            Color::Black => ("b", "w"),
        };
        let unit = if self.millis { "milliseconds" } else { "seconds (milliseconds after setoption usemillisec true)" };
        let ms = |v: &str| -> Result<u64, &'static str> {
            let x: f64 = v.parse().map_err(|_| "is not a number")?;
            if !x.is_finite() {
                return Err("is not a number");
            }
            if x < 0.0 {
                return Err("is negative");
            }
            let x = if self.millis { x } else { x * 1000.0 };
            // A clock beyond what UCI reads (`i64::MAX` ms, some 292 million years) is that: as
            // good as endless, searched as any long clock is, never refused as too large.
            Ok(if x >= MAX_MS as f64 { MAX_MS } else { x.round() as u64 })
        };
        // A `go` it cannot obey (a missing, negative or unreadable value) is answered as under UCI:
        // a move found at depth 1, after an `info string` naming the UCCI field (a GUI waits for
        // an answer, and some send a clock a little below zero after an overstep).
        'read: {
            let mut uci: Vec<String> = vec!["go".into()];
            let mut i = 0;
            while i < args.len() {
                let key = args[i];
                let value = args.get(i + 1).copied();
                let clock = match key {
                    "time" => Some(format!("{us}time")),
                    "increment" => Some(format!("{us}inc")),
                    "opptime" => Some(format!("{them}time")),
                    "oppincrement" => Some(format!("{them}inc")),
                    _ => None,
                };
                match (key, clock) {
                    (_, Some(word)) => {
                        let v = match value.map(ms) {
                            Some(Ok(v)) => v,
                            Some(Err(why)) => {
                                let v = value.unwrap_or_default();
                                break 'read Err(format!("go: {key} {v} {why}: expected a time in {unit} from 0"));
                            }
                            None => break 'read Err(format!("go: {key} needs a time in {unit}")),
                        };
                        uci.push(format!("{word} {v}"));
                        i += 2;
                    }
                    ("oppmovestogo", _) => i += 2,
                    ("draw", _) => i += 1,
                    ("depth", _) if value == Some("infinite") => {
                        uci.push("infinite".into());
                        i += 2;
                    }
                    ("depth" | "nodes" | "movestogo" | "movetime" | "mate", _) => {
                        let what = if key == "movetime" { "a whole number of milliseconds" } else { "a whole number" };
                        let n = match value {
                            None => break 'read Err(format!("go: {key} needs {what}")),
                            Some(v) => match v.parse::<i64>() {
                                Ok(n) if n >= 0 => n.to_string(),
                                Ok(_) => break 'read Err(format!("go: {key} {v} is negative: expected {what} from 0")),
                                Err(_) => break 'read Err(format!("go: {key} {v} is not {what}")),
                            },
                        };
                        uci.push(format!("{key} {n}"));
                        i += 2;
                    }
                    _ => {
                        uci.push(key.to_string());
                        i += 1;
                    }
                }
            }
            Ok(uci)
        }
    }

    fn probe(&mut self, args: &[&str]) {
        let pos = if args.is_empty() {
            let Some(pos) = self.uci.current_position().cloned() else {
                return self.info_string("probe: no position (the last position command was refused)");
            };
            pos
        } else {
            // Read as `position` reads its arguments: a FEN or a move that cannot be played
            // refuses the probe, named, rather than answering for another position.
            match super::uci::read_position(args) {
                Ok(game) => game.position().clone(),
                Err(refusal) => return self.info_string(&format!("probe refused: {}", refusal.message)),
            }
        };
        let mut line = String::from("pophash");
        if let Some(e) = self.uci.hash_entry(&pos) {
            if let Some(m) = e.mv.filter(|&m| pos.is_legal(m)) {
                line.push_str(&format!(" bestmove {m}"));
            }
            if matches!(e.bound, Bound::Lower | Bound::Exact) {
                line.push_str(&format!(" lowerbound {} depth {}", ucci_value(e.score), e.depth));
            }
            if matches!(e.bound, Bound::Upper | Bound::Exact) {
                line.push_str(&format!(" upperbound {} depth {}", ucci_value(e.score), e.depth));
            }
        }
        self.out.line(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_in_ucci() {
        assert_eq!(
            to_ucci("info depth 5 seldepth 7 score cp 23 nodes 100 pv h2e2"),
            "info depth 5 seldepth 7 score 23 nodes 100 pv h2e2"
        );
        assert_eq!(to_ucci("info depth 9 score mate 2 pv a0a1"), "info depth 9 score 9997 pv a0a1");
        assert_eq!(to_ucci("info depth 9 score mate -1 pv a0a1"), "info depth 9 score -9998 pv a0a1");
        assert_eq!(to_ucci("info depth 0 score mate 0"), "info depth 0 score -10000");
        // Table wins without a mate distance: inside ElephantEye's range, above WIN_VALUE.
        use crate::engine::search::TB_WIN;
        assert_eq!(to_ucci(&format!("info depth 1 score cp {TB_WIN} pv a0a1")), "info depth 1 score 9899 pv a0a1");
        assert_eq!(
            to_ucci(&format!("info depth 1 score cp -{} pv a0a1", TB_WIN - 3)),
            "info depth 1 score -9896 pv a0a1"
        );
        assert_eq!(
            to_ucci(&format!("info depth 1 score cp {}", TB_WIN - 500)),
            format!("info depth 1 score {}", TB_WIN - 500)
        );
        assert_eq!(to_ucci("bestmove (none)"), "nobestmove");
        assert_eq!(to_ucci("bestmove h2e2 ponder h9g7"), "bestmove h2e2 ponder h9g7");
        assert_eq!(to_ucci("info string book move"), "info string book move");
    }
}
