//! Driving an engine process over UCI or UCCI: spawn it with piped standard streams, read its
//! output on a thread that forwards lines over a channel (so every wait has a timeout), and
//! convert moves at the boundary between qiku's ICCS (ranks 0-9) and the engine's dialect.
//!
//! Dialects seen in practice (see `docs/ENGINE.md`): Pikafish and qiku use ranks 0-9;
//! Fairy-Stockfish writes ranks 1-10 after `uci` (with `UCI_Variant xiangqi`) and 0-9 after
//! `ucci`; ElephantEye-style engines speak UCCI (`ucciok`, `setoption <name> <value>`,
//! `go time .. increment ..`, `nobestmove`). The rank base is detected by asking for a move in the
//! start position and seeing which reading is legal, unless given.

use qiku::core::{Move, Position, Square, START_FEN};
use qiku::engine::session::read_bounded_line;
use std::fmt;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The protocol an engine speaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// UCI (`uci`, `uciok`, `go wtime ...`).
    Uci,
    /// UCCI (`ucci`, `ucciok`, `go time ... increment ...`).
    Ucci,
}

/// A protocol or rank-base name that is not one of the known words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnknownName {
    /// Not `uci` or `ucci`.
    Protocol(String),
    /// Not `0` or `1`.
    RankBase(String),
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnknownName::Protocol(s) => write!(f, "unknown protocol {s:?} (expected uci or ucci)"),
            UnknownName::RankBase(s) => {
                write!(f, "unknown rank base {s:?} (expected 0 for ranks 0-9, 1 for ranks 1-10)")
            }
        }
    }
}

impl std::error::Error for UnknownName {}

impl std::str::FromStr for Protocol {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s.to_ascii_lowercase().as_str() {
            "uci" => Ok(Protocol::Uci),
            "ucci" => Ok(Protocol::Ucci),
            _ => Err(UnknownName::Protocol(s.to_string())),
        }
    }
}

/// How an engine numbers ranks in moves: `h2e2` (0-9, ICCS) or `h3e3` (1-10).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RankBase {
    /// Ranks 0-9, as ICCS.
    Zero,
    /// Ranks 1-10.
    One,
}

impl fmt::Display for RankBase {
    /// `0-9` or `1-10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RankBase::Zero => "0-9",
            RankBase::One => "1-10",
        })
    }
}

impl std::str::FromStr for RankBase {
    type Err = UnknownName;
    fn from_str(s: &str) -> Result<Self, UnknownName> {
        match s {
            "0" => Ok(RankBase::Zero),
            "1" => Ok(RankBase::One),
            _ => Err(UnknownName::RankBase(s.to_string())),
        }
    }
}

/// How to start and configure one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Program and arguments, split on whitespace (double quotes group words).
    pub command: String,
    /// Name for reports and PGN; default the engine's `id name`.
    pub name: Option<String>,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// `setoption` pairs, sent in order after the handshake.
    pub options: Vec<(String, String)>,
    /// `None`: detect.
    pub ranks: Option<RankBase>,
    /// The core to run on ([`super::cpus`]); `None`: wherever the system puts it.
    pub cpu: Option<usize>,
    /// How long the engine may take to answer `uci`/`ucci`, and each `isready` (after its
    /// options, and at each new game: a large hash table may take a while to allocate or clear).
    pub startup: Duration,
}

impl EngineSpec {
    /// A UCI engine started by `command`, ranks detected, no options.
    pub fn new(command: &str) -> EngineSpec {
        EngineSpec {
            command: command.to_string(),
            name: None,
            protocol: Protocol::Uci,
            options: Vec::new(),
            ranks: None,
            cpu: None,
            startup: STARTUP,
        }
    }
}

/// What went wrong with an engine.
#[derive(Debug)]
pub enum EngineError {
    /// The program could not be started.
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        error: std::io::Error,
    },
    /// The process closed its output (crashed or quit).
    Exited {
        /// What we waited for.
        waiting_for: String,
    },
    /// The engine did not answer in time.
    Timeout {
        /// What we waited for.
        waiting_for: String,
        /// How long we waited.
        after: Duration,
    },
    /// Its input pipe is closed.
    Write {
        /// Why.
        error: std::io::Error,
    },
    /// Output that makes no sense (a move that is not a move, ...).
    Protocol(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn { command, error } => write!(f, "cannot start {command:?}: {error}"),
            EngineError::Exited { waiting_for } => write!(f, "the engine exited while we waited for {waiting_for}"),
            // Milliseconds below a second: a clock run down to its last moment read "within 0.0 s".
            EngineError::Timeout { waiting_for, after } if *after < Duration::from_secs(1) => {
                write!(f, "no {waiting_for} within {} ms", after.as_millis())
            }
            EngineError::Timeout { waiting_for, after } => {
                write!(f, "no {waiting_for} within {:.1} s", after.as_secs_f64())
            }
            EngineError::Write { error } => write!(f, "cannot write to the engine: {error}"),
            EngineError::Protocol(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EngineError::Spawn { error, .. } | EngineError::Write { error } => Some(error),
            _ => None,
        }
    }
}

/// The name of an option an engine lists in its handshake: UCI's `option name NAME type ...`,
/// UCCI's `option NAME type ...`.
fn option_name(line: &str, protocol: Protocol) -> Option<String> {
    let rest = match protocol {
        Protocol::Uci => line.trim().strip_prefix("option name ")?,
        Protocol::Ucci => line.trim().strip_prefix("option ")?,
    };
    let name = rest.split(" type ").next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Splits a command line on whitespace, keeping double-quoted groups together.
pub fn split_command(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Writes `m` in the engine's rank numbering.
pub fn format_move(m: Move, base: RankBase) -> String {
    let sq = |s: Square| {
        let rank = s.rank().index() + usize::from(base == RankBase::One);
        format!("{}{}", s.file().char(), rank)
    };
    format!("{}{}", sq(m.from()), sq(m.to()))
}

/// Whether a `bestmove` token says "no move": `(none)` (UCI), `0000` (UCI's null move), nothing
/// at all, or UCCI's `nobestmove` (which [`Answer::token`] holds as that word). Any other token
/// that [`parse_move`] cannot read is a bad move, not a missing one.
pub fn is_no_move(token: &str) -> bool {
    matches!(token, "(none)" | "0000" | "" | "nobestmove")
}

/// Reads an engine's move token (`h2e2`, `h10h9`) in the given rank numbering.
pub fn parse_move(token: &str, base: RankBase) -> Option<Move> {
    qiku::notation::iccs::parse_coords(token, base == RankBase::One)
}

/// Reads the score after an `info ... score` word, as a PGN comment writes it: UCI `cp X` and
/// `mate N` as given, UCCI's bare number as `cp X` or, at ±9900 and beyond, `mate N` (N in
/// moves, negative when mated; `10000 - p` is a mate in `p` plies). A `lowerbound` or
/// `upperbound` word after the value is skipped like the rest of the line. `None` when no number
/// follows.
pub fn read_score(after: &[&str]) -> Option<String> {
    let number = |w: Option<&&str>| w.and_then(|w| w.parse::<i64>().ok());
    match after.first().copied() {
        Some("cp") => number(after.get(1)).map(|v| format!("cp {v}")),
        Some("mate") => number(after.get(1)).map(|n| format!("mate {n}")),
        // ElephantEye's scale, as qiku's UCCI front end writes it (`qiku::engine::ucci`).
        _ => number(after.first()).map(|v| match i32::try_from(v).ok().and_then(qiku::engine::ucci::ucci_mate_moves) {
            Some(moves) => format!("mate {moves}"),
            None => format!("cp {v}"),
        }),
    }
}

/// The longest output line kept from an engine, in bytes. A longer line is read to its end but
/// its content dropped and counted as garbage, so that an engine writing without newlines cannot
/// make the runner buffer without bound (a 300 MB line used to take 297 MB).
pub const MAX_LINE: usize = 64 * 1024;

/// One line of engine output as the reader thread forwards it.
enum Incoming {
    Line(String),
    /// A line longer than [`MAX_LINE`], dropped.
    Overlong,
}

/// A running engine.
pub struct EngineProcess {
    /// How it was started.
    pub spec: EngineSpec,
    /// The engine's `id name`, or the spec's name.
    pub name: String,
    /// The rank numbering of its moves (given, detected, or 0-9 when detection failed).
    pub ranks: RankBase,
    /// Why rank detection failed, if it did: the engine's first move in the start position was
    /// unreadable or it exited. The match goes on with ranks 0-9 (as `--ranks 0`), so the fault is
    /// charged in the engine's games instead of aborting the match.
    pub detection_error: Option<EngineError>,
    /// What the engine said (`info string`) while its `--option`s were set: a refused value is
    /// reported there (`option Hash: value "abc" is not a number`), and would otherwise go unseen.
    pub option_notes: Vec<String>,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Incoming>,
    /// Overlong lines dropped since last asked ([`EngineProcess::take_garbage`]).
    garbage: u64,
}

/// How long the handshake and each `isready` may take unless the spec says otherwise.
pub const STARTUP: Duration = Duration::from_secs(20);

/// A wait for an engine's reply: when it ends, and how long it was (for the message).
#[derive(Copy, Clone, Debug)]
struct Wait {
    deadline: Instant,
    allowed: Duration,
}

impl Wait {
    fn from_now(allowed: Duration) -> Wait {
        Wait { deadline: Instant::now() + allowed, allowed }
    }
}

/// One `go`: the limit for this move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Go {
    /// Think this long.
    MoveTime(Duration),
    /// Search to this depth.
    Depth(u32),
    /// Search this many nodes.
    Nodes(u64),
    /// Remaining time and increment of red and black.
    Clock {
        /// Remaining time of red and black.
        time: [Duration; 2],
        /// Increment of red and black.
        inc: [Duration; 2],
    },
}

/// An engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The move token as sent, and as read (`None`: `nobestmove`, `(none)`, `0000`).
    pub token: String,
    /// The move, read in the engine's rank numbering.
    pub mv: Option<Move>,
    /// The last score seen, as `cp N` or `mate N` (a UCCI engine's bare number read by
    /// [`read_score`]), for PGN comments.
    pub score: Option<String>,
    /// The depth of the last `info depth` seen.
    pub depth: Option<u32>,
    /// The last `nodes` and `tbhits` counts seen (the share of a search's nodes that a tablebase
    /// answered is what a match with and without tables reports).
    pub nodes: Option<u64>,
    /// See `nodes`.
    pub tbhits: Option<u64>,
    /// Time from `go` to `bestmove`.
    pub elapsed: Duration,
}

impl EngineProcess {
    /// Starts the engine, does the handshake, sets the options and detects the rank base.
    pub fn start(spec: &EngineSpec) -> Result<EngineProcess, EngineError> {
        let words = split_command(&spec.command);
        let Some((program, args)) = words.split_first() else {
            return Err(EngineError::Protocol("empty engine command".into()));
        };
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let spawn_error = |error| EngineError::Spawn { command: spec.command.clone(), error };
        if let Some(cpu) = spec.cpu {
            super::cpus::pin_command(&mut command, cpu).map_err(spawn_error)?;
        }
        let mut child = command.spawn().map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(EngineError::Protocol("no pipes to the engine".into()));
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            // Ends at end of output or a read error: either way the engine is gone.
            while let Ok(Some(fits)) = read_bounded_line(&mut reader, MAX_LINE, &mut buf) {
                // Not UTF-8 is garbage to ignore, not the end of the engine.
                let item =
                    if fits { Incoming::Line(String::from_utf8_lossy(&buf).into_owned()) } else { Incoming::Overlong };
                if tx.send(item).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            spec: spec.clone(),
            name: spec.name.clone().unwrap_or_default(),
            ranks: spec.ranks.unwrap_or(RankBase::Zero),
            detection_error: None,
            option_notes: Vec::new(),
            child,
            stdin,
            lines: rx,
            garbage: 0,
        };
        let (hello, ok) = match spec.protocol {
            Protocol::Uci => ("uci", "uciok"),
            Protocol::Ucci => ("ucci", "ucciok"),
        };
        e.send(hello)?;
        let wait = Wait::from_now(spec.startup);
        let mut offered: Vec<String> = Vec::new();
        loop {
            let line = e.read_line(wait, ok)?;
            if let Some(name) = line.strip_prefix("id name ") {
                if e.name.is_empty() {
                    e.name = name.trim().to_string();
                }
            }
            if let Some(name) = option_name(&line, spec.protocol) {
                offered.push(name);
            }
            if line.trim() == ok {
                break;
            }
        }
        // A UCI engine lists every option it has; a name it does not list is a typo that would
        // play the whole match without the setting. (UCCI engines accept standard options they do
        // not list; what they refuse shows in `option_notes`.)
        if spec.protocol == Protocol::Uci && !offered.is_empty() {
            if let Some((name, _)) =
                spec.options.iter().find(|(n, _)| !offered.iter().any(|o| o.eq_ignore_ascii_case(n)))
            {
                return Err(EngineError::Protocol(format!(
                    "it has no option {name:?}; its options are {}: check the name given to --option",
                    offered.join(", ")
                )));
            }
        }
        if e.name.is_empty() {
            e.name = words[0].rsplit('/').next().unwrap_or("engine").to_string();
        }
        if spec.protocol == Protocol::Ucci {
            // UCCI's `go time` is in seconds unless the engine is told otherwise; the runner
            // sends milliseconds.
            e.send("setoption usemillisec true")?;
        }
        for (name, value) in &spec.options {
            let cmd = match spec.protocol {
                Protocol::Uci => format!("setoption name {name} value {value}"),
                Protocol::Ucci => format!("setoption {name} {value}"),
            };
            e.send(&cmd)?;
        }
        e.option_notes = e.sync_notes()?;
        if spec.ranks.is_none() {
            match e.detect_ranks() {
                Ok(r) => e.ranks = r,
                // An unreadable first move or a crash is the engine's fault, charged in its game
                // (where it will most likely do the same), not a reason to abort the match.
                Err(err @ (EngineError::Protocol(_) | EngineError::Exited { .. } | EngineError::Write { .. })) => {
                    e.ranks = RankBase::Zero;
                    e.detection_error = Some(err);
                }
                Err(err) => return Err(err),
            }
        }
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|error| EngineError::Write { error })
    }

    fn read_line(&mut self, wait: Wait, waiting_for: &str) -> Result<String, EngineError> {
        loop {
            let left = wait.deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Incoming::Line(line)) => return Ok(line),
                Ok(Incoming::Overlong) => self.garbage += 1,
                Err(RecvTimeoutError::Timeout) => {
                    // The whole wait, not what was left of it when the last line came.
                    return Err(EngineError::Timeout { waiting_for: waiting_for.to_string(), after: wait.allowed });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Exited { waiting_for: waiting_for.to_string() })
                }
            }
        }
    }

    /// Output lines longer than [`MAX_LINE`] dropped since the last call.
    pub fn take_garbage(&mut self) -> u64 {
        std::mem::take(&mut self.garbage)
    }

    /// `isready` / `readyok`.
    pub fn sync(&mut self) -> Result<(), EngineError> {
        self.sync_notes().map(|_| ())
    }

    /// `isready` / `readyok`, keeping what the engine said on the way (`info string` lines).
    fn sync_notes(&mut self) -> Result<Vec<String>, EngineError> {
        self.send("isready")?;
        let wait = Wait::from_now(self.spec.startup);
        let mut notes = Vec::new();
        loop {
            let line = self.read_line(wait, "readyok")?;
            let line = line.trim();
            if line == "readyok" {
                return Ok(notes);
            }
            if let Some(note) = line.strip_prefix("info string ") {
                notes.push(note.to_string());
            }
        }
    }

    /// Tells the engine a new game starts: UCI's `ucinewgame`, UCCI's `setoption newgame` (as
    /// ElephantEye reads it: it clears the hash table), so that what it searched before does not
    /// change what it says now.
    pub fn new_game(&mut self) -> Result<(), EngineError> {
        self.send(match self.spec.protocol {
            Protocol::Uci => "ucinewgame",
            Protocol::Ucci => "setoption newgame",
        })?;
        self.sync()
    }

    /// Asks for a depth-1 move in the start position and keeps the rank reading that is legal.
    fn detect_ranks(&mut self) -> Result<RankBase, EngineError> {
        let pos = Position::startpos();
        self.send(&format!("position fen {START_FEN}"))?;
        self.send("go depth 1")?;
        let answer = self.wait_bestmove(Wait::from_now(self.spec.startup))?;
        let legal = |b| parse_move(&answer.token, b).is_some_and(|m| pos.is_legal(m));
        match (legal(RankBase::Zero), legal(RankBase::One)) {
            (true, _) => Ok(RankBase::Zero),
            (false, true) => Ok(RankBase::One),
            _ => Err(EngineError::Protocol(format!(
                "cannot read the engine's move {:?} in the start position with ranks 0-9 or 1-10",
                answer.token
            ))),
        }
    }

    /// Sends the position (start FEN and moves) and `go`, and waits for `bestmove` until
    /// `timeout`.
    pub fn go(&mut self, start_fen: &str, moves: &[Move], go: Go, timeout: Duration) -> Result<Answer, EngineError> {
        let mut cmd = format!("position fen {start_fen}");
        if !moves.is_empty() {
            cmd.push_str(" moves");
            for &m in moves {
                cmd.push(' ');
                cmd.push_str(&format_move(m, self.ranks));
            }
        }
        self.send(&cmd)?;
        let turn_is_red = {
            // Side to move: the FEN's, flipped once per move.
            let black_first = start_fen.split_whitespace().nth(1).is_some_and(|t| t == "b");
            (moves.len() % 2 == 0) != black_first
        };
        let go_cmd = match (go, self.spec.protocol) {
            (Go::MoveTime(t), Protocol::Uci) => format!("go movetime {}", t.as_millis()),
            // UCCI has no movetime: all the "remaining" time for one move.
            (Go::MoveTime(t), Protocol::Ucci) => format!("go time {} movestogo 1", t.as_millis()),
            (Go::Depth(d), _) => format!("go depth {d}"),
            (Go::Nodes(n), _) => format!("go nodes {n}"),
            (Go::Clock { time, inc }, Protocol::Uci) => format!(
                "go wtime {} btime {} winc {} binc {}",
                time[0].as_millis(),
                time[1].as_millis(),
                inc[0].as_millis(),
                inc[1].as_millis()
            ),
            (Go::Clock { time, inc }, Protocol::Ucci) => {
                let (us, them) = if turn_is_red { (0, 1) } else { (1, 0) };
                format!(
                    "go time {} increment {} opptime {} oppincrement {}",
                    time[us].as_millis(),
                    inc[us].as_millis(),
                    time[them].as_millis(),
                    inc[them].as_millis()
                )
            }
        };
        let start = Instant::now();
        self.send(&go_cmd)?;
        let mut answer = self.wait_bestmove(Wait { deadline: start + timeout, allowed: timeout })?;
        answer.elapsed = start.elapsed();
        Ok(answer)
    }

    fn wait_bestmove(&mut self, wait: Wait) -> Result<Answer, EngineError> {
        let mut score = None;
        let mut depth = None;
        let mut nodes = None;
        let mut tbhits = None;
        loop {
            let line = self.read_line(wait, "bestmove")?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    // `info string` is free text to its end: its words are not fields.
                    let w: Vec<&str> = line.split_whitespace().take_while(|&w| w != "string").collect();
                    for i in 0..w.len() {
                        if w[i] == "score" {
                            score = read_score(&w[i + 1..]).or(score);
                        }
                        if i + 1 < w.len() {
                            match w[i] {
                                "depth" => depth = w[i + 1].parse().ok().or(depth),
                                "nodes" => nodes = w[i + 1].parse().ok().or(nodes),
                                "tbhits" => tbhits = w[i + 1].parse().ok().or(tbhits),
                                _ => {}
                            }
                        }
                    }
                }
                Some("bestmove") => {
                    let token = words.next().unwrap_or("").to_string();
                    let mv = parse_move(&token, self.ranks);
                    return Ok(Answer { token, mv, score, depth, nodes, tbhits, elapsed: Duration::ZERO });
                }
                Some("nobestmove") => {
                    let token = "nobestmove".into();
                    return Ok(Answer { token, mv: None, score, depth, nodes, tbhits, elapsed: Duration::ZERO });
                }
                _ => {}
            }
        }
    }

    /// Asks the engine to quit, and kills it if it does not within a second.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Kills the process at once (after a timeout or protocol error).
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_bases() {
        let pos = Position::startpos();
        for &m in pos.moves().iter() {
            for base in [RankBase::Zero, RankBase::One] {
                assert_eq!(parse_move(&format_move(m, base), base), Some(m));
            }
        }
        let m = qiku::notation::iccs::parse_move("a0a9").unwrap();
        assert_eq!(format_move(m, RankBase::One), "a1a10");
        assert_eq!(parse_move("a1a10", RankBase::One), Some(m));
        assert_eq!(parse_move("a10a1", RankBase::Zero), None);
        assert_eq!(parse_move("(none)", RankBase::Zero), None);
        assert_eq!(parse_move("0000", RankBase::Zero), None);
        assert_eq!(parse_move("", RankBase::Zero), None);
        assert_eq!(parse_move("j1a1", RankBase::Zero), None);
    }

    #[test]
    fn rank_detection_is_unambiguous_in_the_start_position() {
        // Every start-position move written with ranks 1-10 reads as illegal with ranks 0-9 and
        // vice versa, so one `go depth 1` decides the numbering.
        let pos = Position::startpos();
        for &m in pos.moves().iter() {
            let as_one = format_move(m, RankBase::One);
            assert!(parse_move(&as_one, RankBase::Zero).is_none_or(|x| !pos.is_legal(x)), "{as_one}");
            let as_zero = format_move(m, RankBase::Zero);
            assert!(parse_move(&as_zero, RankBase::One).is_none_or(|x| !pos.is_legal(x)), "{as_zero}");
        }
    }

    #[test]
    fn command_splitting() {
        assert_eq!(split_command("fairy-stockfish"), vec!["fairy-stockfish"]);
        assert_eq!(split_command("  ./a  b \"c d\" "), vec!["./a", "b", "c d"]);
        assert_eq!(split_command("\"\""), vec![""]);
        assert!(split_command("   ").is_empty());
    }

    #[test]
    fn lines_are_bounded() {
        let long = "x".repeat(100);
        let input = format!("uciok\r\n{long}\nbestmove h2e2\n{long}");
        let mut r = std::io::BufReader::with_capacity(16, input.as_bytes());
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while let Some(fits) = read_bounded_line(&mut r, 20, &mut buf).unwrap() {
            got.push((fits, String::from_utf8_lossy(&buf).into_owned()));
        }
        let x20 = "x".repeat(20);
        assert_eq!(got, [(true, "uciok".into()), (false, x20.clone()), (true, "bestmove h2e2".into()), (false, x20)]);
        // Exactly the bound fits; end of input without a newline is a line.
        let mut r = "x".repeat(20).into_bytes();
        r.extend_from_slice(b"\nabc");
        let mut r = &r[..];
        assert_eq!(read_bounded_line(&mut r, 20, &mut buf).unwrap(), Some(true));
        assert_eq!(read_bounded_line(&mut r, 20, &mut buf).unwrap(), Some(true));
        assert_eq!(buf, b"abc");
        assert_eq!(read_bounded_line(&mut r, 20, &mut buf).unwrap(), None);
    }
}
