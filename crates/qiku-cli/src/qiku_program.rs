//! `qiku`: the engine (UCI on standard input when started without arguments) and the commands
//! that probe and inspect positions.

use crate::matchrunner::sprt::{Sprt, SprtError};
use crate::matchrunner::{self, openings, process::EngineSpec, Limit, MatchConfig};
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use qiku::core::perft;
use qiku::core::Game;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::engine::{bench, eval, ordering::History, uci};
use qiku::notation::{spec, Notation};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "qiku",
    version,
    about = "Xiangqi engine and position tools",
    long_about = "Xiangqi engine and position tools.\n\nWith no command, qiku speaks UCI on standard input and output, as Xiangqi GUIs start engines."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (the standard move-generator check).
    Perft {
        /// Depth in plies (0 to 64).
        #[arg(value_parser = super::whole_number::<u32>(0, perft::MAX_DEPTH as u64))]
        depth: u32,
        /// Position: a FEN (Pikafish style) or `startpos`.
        #[arg(long, default_value = "startpos")]
        fen: String,
        /// Also print the count below each root move (ICCS).
        #[arg(long)]
        divide: bool,
        /// Print one JSON object: {"fen", "depth", "nodes", "seconds", "nps"[, "divide"]}.
        #[arg(long)]
        json: bool,
    },
    /// The quick start: build the shipped opening book, generate the tablebases of up to four
    /// pieces (kept if present), and probe both.
    Demo {
        /// Folder holding `books/` and `tablebases/`.
        #[arg(long, default_value = ".")]
        root: std::path::PathBuf,
        /// Generate the tables of up to this many pieces, kings included: 3 to 12, as
        /// `qiku-tb generate --max-pieces` (the endgame the demo probes has 4).
        #[arg(long, default_value_t = 4, value_parser = super::tb::max_pieces_arg)]
        max_pieces: usize,
    },
    /// Play two UCI/UCCI engines against each other with qiku's rules as referee, write the games
    /// as PGN and print the score with an Elo difference and its 95% error bar.
    #[command(long_about = MATCH_HELP)]
    Match(MatchArgs),
    /// Draw a position in the terminal with Chinese piece characters.
    Show {
        #[arg(help = super::POSITION_HELP, value_name = "POSITION")]
        position: Vec<String>,
    },
    /// Speak UCI on standard input and output (the same as running qiku without a command).
    Uci,
    /// Speak UCCI on standard input and output: the same session as `uci`, which turns to UCCI
    /// at the GUI's first `ucci` (for GUIs set up to start an engine with this word).
    Ucci,
    /// Search a position and print the search lines (UCI `info` form), then the best move.
    Analyze(AnalyzeArgs),
    /// What the book and the tablebases say about a position (and a short search when neither
    /// has an answer).
    Probe(ProbeArgs),
    /// Write a copy of a PGN file with a comment after every move: the book's games of the move
    /// (red/draw/black), the table value and the engine's evaluation of the position after it.
    Annotate(super::annotate::AnnotateArgs),
    /// Search a fixed set of positions to a fixed depth (one thread, cleared table) and print
    /// the total node count (a signature of the search's behaviour) and the speed.
    Bench {
        /// Depth of every search (1 to 100).
        #[arg(long, default_value_t = bench::DEFAULT_DEPTH, value_parser = super::whole_number::<u32>(1, 100))]
        depth: u32,
        /// Transposition table size in MiB (1 to 65536).
        #[arg(long, default_value_t = 16, value_parser = hash_mib)]
        hash: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Renju (15x15 five-in-a-row, RIF rules): forbidden points, valuation, game judge, and a
    /// Gomocup-protocol player (the default).
    Renju(super::renju::RenjuArgs),
    /// A local opening explorer and tablebase browser in the browser, with a JSON API and a
    /// ChessDB-compatible endpoint (http://127.0.0.1:8080/ by default; read-only, loopback).
    #[cfg(feature = "serve")]
    Serve(qiku_serve::cli::ServeArgs),
    /// Fit the evaluation's parameters to game results (Texel tuning) and report the training
    /// and validation loss before and after.
    #[command(long_about = super::tune::TUNE_HELP)]
    Tune(super::tune::TuneArgs),
    /// Score the positions of a tuning position file with an engine (qiku itself by default), for
    /// `qiku tune --scored`.
    #[command(long_about = super::label::LABEL_HELP)]
    Label(super::label::LabelArgs),
}

const MATCH_HELP: &str = "Play two UCI/UCCI engines against each other with qiku's rules as referee.

Give --engine twice. --protocol, --option, --name and --ranks apply to the --engine before them:

  qiku match --engine qiku --engine /usr/games/fairy-stockfish --protocol uci \\
      --option UCI_Variant=xiangqi --games 100 --movetime 100 --pgn games.pgn

A weaker qiku is --engine qiku --option \"Skill Level=5\" (0 to 20; over UCCI skilllevel=5).

Each opening (built-in master-game openings, or --openings FILE) is played twice with colors
swapped. Mate, stalemate (no legal move), perpetual check, repetition, 120 plies without capture
and --max-plies end a game; an illegal move, no move, a crash or a time loss (beyond --margin)
loses it. Ranks in moves (0-9 or 1-10, as Fairy-Stockfish writes after `uci`) are detected per
engine unless --ranks is given.

To test a change the way fastchess and fishtest do, give --sprt ELO0 ELO1: a generalized sequential
probability ratio test of H0 (engine 1 is ELO0 Elo stronger than engine 2) against H1 (ELO1 Elo),
on the results of game pairs (each opening with both colours: 0, 1/2, 1, 3/2 or 2 points for
engine 1, counted as the pentanomial [LL, LD, DD+WL, WD, WW]). The Elo is normalized Elo by
default (--sprt-model normalized, as in fastchess and fishtest) or logistic Elo
(--sprt-model logistic). After each finished pair a line shows the games counted, the pentanomial
and `LLR x (lower, upper) [ELO0, ELO1]`, with lower = ln(beta/(1-alpha)) and
upper = ln((1-beta)/alpha). The match stops when the LLR reaches a bound (H1 accepted at the upper,
H0 accepted at the lower) or after --games games (no decision); --games is then a maximum and
must be even. Games still running at the decision finish and are scored, but not counted:

  qiku match --engine ./qiku-new --engine ./qiku-base --tc 10+0.1 --games 20000 \\
      --sprt 0 5 --concurrency 2

--pin (off by default) puts each engine process on a core of its own (engine 1 of game slot k on the allowed
core 2k, engine 2 on core 2k+1, Linux only); it needs two cores per --concurrency slot.";

#[derive(Args)]
struct MatchArgs {
    /// Engine command line (exactly twice); following per-engine flags apply to it.
    #[arg(long, required = true, value_name = "CMD")]
    engine: Vec<String>,
    /// Protocol of the preceding engine: uci (default) or ucci.
    #[arg(long, value_name = "uci|ucci")]
    protocol: Vec<String>,
    /// setoption for the preceding engine, e.g. UCI_Variant=xiangqi (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    option: Vec<String>,
    /// Name of the preceding engine in reports and PGN (default its `id name`).
    #[arg(long)]
    name: Vec<String>,
    /// Rank numbering of the preceding engine's moves: auto (default), 0 (ranks 0-9) or 1 (1-10).
    #[arg(long, value_name = "auto|0|1")]
    ranks: Vec<String>,
    /// Number of games (with --sprt the most played: the match stops when the test decides).
    #[arg(long, default_value_t = 100, value_parser = super::whole_number::<u32>(1, u32::MAX as u64))]
    games: u32,
    /// Clock per engine: seconds + increment, e.g. 60+0.6 (default 10+0.1 if no limit is given).
    #[arg(long, group = "limit")]
    tc: Option<String>,
    /// Fixed time per move in milliseconds, 1 to 3600000.
    #[arg(long, group = "limit", value_parser = super::whole_number::<u64>(1, 3_600_000))]
    movetime: Option<u64>,
    /// Fixed depth per move, 1 to 100.
    #[arg(long, group = "limit", value_parser = super::whole_number::<u32>(1, 100))]
    depth: Option<u32>,
    /// Fixed nodes per move (at least 1).
    #[arg(long, group = "limit", value_parser = super::whole_number::<u64>(1, u64::MAX))]
    nodes: Option<u64>,
    /// Openings file: one per line, startpos or a FEN [moves ...], or moves from the start position
    /// (ICCS, WXF or Chinese notation).
    #[arg(long)]
    openings: Option<std::path::PathBuf>,
    /// Write the games here as PGN, after any games already in the file (which are kept), in game
    /// order, each added when it ends; stopped at any moment, the file holds whole games.
    #[arg(long)]
    pgn: Option<std::path::PathBuf>,
    /// Games played at the same time, 1 to 256 (each with its own engine processes).
    #[arg(long, default_value_t = 1, value_parser = super::whole_number::<usize>(1, 256))]
    concurrency: usize,
    /// Adjudicate a draw once a game is this many plies long, opening included (more than the
    /// longest opening's plies).
    #[arg(long, default_value_t = 300, value_parser = super::whole_number::<u32>(1, u32::MAX as u64))]
    max_plies: u32,
    /// Milliseconds an engine may exceed its clock or movetime before losing on time.
    #[arg(long, default_value_t = 500)]
    margin: u64,
    /// Seconds each engine may take to start (to answer `uci` or `ucci`) and to answer each
    /// `isready` (after its options, and before each game: an engine clearing a large hash table
    /// may need more than the default), 1 to 3600.
    #[arg(long, default_value_t = 20, value_parser = super::whole_number::<u64>(1, 3600))]
    startup_timeout: u64,
    /// PGN Event tag.
    #[arg(long, default_value = "qiku match")]
    event: String,
    /// Print the result as one JSON object at the end (per-game lines still go to stderr).
    #[arg(long)]
    json: bool,
    /// Sequential probability ratio test of H0: Elo = ELO0 against H1: Elo = ELO1 (engine 1 over
    /// engine 2) on game pairs; the match stops when it decides, --games is the maximum.
    #[arg(long, num_args = 2, value_names = ["ELO0", "ELO1"], allow_negative_numbers = true)]
    sprt: Option<Vec<f64>>,
    /// SPRT: the chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    alpha: f64,
    /// SPRT: the chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05, requires = "sprt")]
    beta: f64,
    /// SPRT: the Elo of ELO0 and ELO1, normalized (the default, as fastchess and fishtest) or
    /// logistic.
    #[arg(long, default_value = "normalized", value_name = "normalized|logistic", requires = "sprt")]
    sprt_model: String,
    /// Pin each engine process to a core of its own (Linux; two cores per --concurrency slot).
    #[arg(long)]
    pin: bool,
}

#[derive(Args)]
struct ProbeArgs {
    #[arg(help = super::POSITION_HELP, value_name = "POSITION")]
    position: Vec<String>,
    /// Opening book (.qbk).
    #[arg(long)]
    book: Option<std::path::PathBuf>,
    /// Book policy for the suggested move, with --book: best (deterministic), games or score
    /// (weighted random).
    #[arg(long, default_value = "best", requires = "book")]
    policy: String,
    /// Ignore book moves played in fewer games (with --book).
    #[arg(long, default_value_t = 1, requires = "book")]
    min_games: u32,
    /// Ignore book moves played in less than this percentage of the position's games (0 to 100;
    /// with --book).
    #[arg(long, default_value_t = qiku::book::DEFAULT_MIN_SHARE_PERCENT,
          value_parser = super::whole_number::<u32>(0, 100), requires = "book")]
    min_share: u32,
    /// Notation of the moves printed: iccs, wxf or chinese.
    #[arg(long, default_value = "iccs", value_parser = super::notation_arg)]
    notation: Notation,
    /// Directory of tablebase files (.qtb).
    #[arg(long)]
    tb: Option<std::path::PathBuf>,
    /// Repetition rules of the table values: `asian` (perpetual check loses, from the .qtr
    /// companions; as tournaments play) or `plain` (every cycle a draw). A value only the rules
    /// decide is marked, with a line rank instead of plies to mate.
    #[arg(long, default_value = "asian")]
    rules: qiku::Rules,
    /// Depth of the search made when neither the book nor the tables answer (1 to 100).
    #[arg(long, default_value_t = 10, value_parser = super::whole_number::<u32>(1, 100))]
    depth: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct AnalyzeArgs {
    #[arg(help = super::POSITION_HELP, value_name = "POSITION")]
    position: Vec<String>,
    /// Moves played from the position (ICCS, WXF or Chinese, e.g. h2e2 H8+7), so that repetitions
    /// are judged.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    moves: Vec<String>,
    /// Notation of the moves printed (best move and lines): iccs, wxf or chinese.
    #[arg(long, default_value = "iccs", value_parser = super::notation_arg)]
    notation: Notation,
    /// Search to this depth (1 to 100).
    #[arg(long, conflicts_with = "movetime", value_parser = super::whole_number::<u32>(1, 100))]
    depth: Option<u32>,
    /// Search for this many milliseconds, 1 to 3600000 (default: depth 12 if neither is given).
    #[arg(long, value_parser = super::whole_number::<u64>(1, 3_600_000))]
    movetime: Option<u64>,
    /// Transposition table size in MiB (1 to 65536).
    #[arg(long, default_value_t = 64, value_parser = hash_mib)]
    hash: usize,
    /// Search threads (1 to 64).
    #[arg(long, default_value_t = 1, value_parser = threads)]
    threads: usize,
    /// Search and print the N best lines (1 to 500, at most the number of legal moves), as the
    /// UCI option MultiPV.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = multipv)]
    multipv: usize,
    /// Also print the static evaluation term by term (red's view; with --json, the key "eval").
    #[arg(long)]
    eval: bool,
    /// Directory of tablebase files (.qtb): the engine probes them as with the UCI option
    /// TablebasePath (a position they cover is answered from them, its win or loss by their line;
    /// the search scores captures into them), as `qiku serve --engine --tb` answers /api/analyze.
    #[arg(long, value_name = "DIR")]
    tb: Option<std::path::PathBuf>,
    /// Repetition rules of the tables (with --tb): `asian` (perpetual check loses, from the .qtr
    /// companions) or `plain`, as the UCI option TablebaseRules.
    #[arg(long, default_value = "asian", requires = "tb")]
    rules: qiku::Rules,
    /// Print one JSON object (best move, score, depth, nodes, pv and the lines, and with --eval
    /// the evaluation's terms) instead of text.
    #[arg(long)]
    json: bool,
}

/// `--hash`: MiB in 1..=[`uci::MAX_HASH_MIB`], as the UCI option allows.
fn hash_mib(s: &str) -> Result<usize, String> {
    in_range(s, 1, uci::MAX_HASH_MIB)
}

/// `--multipv`: 1..=[`uci::MAX_MULTI_PV`], as the UCI option allows.
fn multipv(s: &str) -> Result<usize, String> {
    in_range(s, 1, uci::MAX_MULTI_PV)
}

/// `--threads`: 1..=[`uci::MAX_THREADS`], as the UCI option allows.
fn threads(s: &str) -> Result<usize, String> {
    in_range(s, 1, uci::MAX_THREADS)
}

fn in_range(s: &str, lo: usize, hi: usize) -> Result<usize, String> {
    s.parse::<usize>()
        .ok()
        .filter(|v| (lo..=hi).contains(v))
        .ok_or_else(|| format!("{s} is not a number from {lo} to {hi}"))
}

/// Entry point of the `qiku` binary.
pub fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let Err(code) = crate::check_thread_env("qiku") {
        return code;
    }
    // Printed after the command's own answer or error (the unusable table files a probe did not need).
    let mut warnings = Vec::new();
    let result = match cli.command {
        None | Some(Command::Uci) | Some(Command::Ucci) => run_engine(),
        Some(Command::Analyze(args)) => run_analyze(&args),
        Some(Command::Probe(args)) => run_probe(&args, &mut warnings),
        Some(Command::Annotate(args)) => super::annotate::run(&args),
        Some(Command::Match(args)) => match matches.subcommand_matches("match") {
            Some(m) => run_match(&args, m),
            None => Err("internal: match arguments missing".into()),
        },
        Some(Command::Bench { depth, hash, json }) => run_bench(depth, hash, json),
        Some(Command::Perft { depth, fen, divide, json }) => run_perft(depth, &fen, divide, json),
        Some(Command::Demo { root, max_pieces }) => super::demo::run(&root, max_pieces),
        Some(Command::Renju(args)) => super::renju::run(&args),
        #[cfg(feature = "serve")]
        Some(Command::Serve(args)) => qiku_serve::run(args.options()).map_err(|e| e.to_string()),
        Some(Command::Tune(args)) => super::tune::run(&args),
        Some(Command::Label(args)) => super::label::run(&args),
        Some(Command::Show { position }) => super::position_args(&position)
            .map(|spec| print!("{}", spec.position().diagram().color(super::use_color())))
            .map_err(|e| e.to_string()),
    };
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("qiku: {message}");
            ExitCode::FAILURE
        }
    };
    for warning in warnings {
        eprintln!("qiku: {warning}");
    }
    if crate::stdout_failed("qiku") {
        return ExitCode::FAILURE;
    }
    code
}

/// The engine's session on standard input and output. It reads on a thread of its own, so that
/// output that fails (the GUI gone, or a full disk) ends the program at once, also while the
/// input stays open with no line to come: the search stops at its next line of output, and the
/// program's end reports an error other than a closed pipe (`stdout_failed`).
fn run_engine() -> Result<(), String> {
    use std::sync::mpsc::{self, RecvTimeoutError};
    let out = uci::Output::new(Box::new(crate::StdoutWriter::new()));
    let watched = out.clone();
    let (ended, end) = mpsc::channel();
    let session = std::thread::spawn(move || {
        qiku::engine::session::run(std::io::stdin().lock(), out, Default::default());
        let _ = ended.send(());
    });
    loop {
        match end.recv_timeout(std::time::Duration::from_millis(20)) {
            Err(RecvTimeoutError::Timeout) if !watched.failed() => continue,
            // The session may be waiting for input that never comes: left to the program's end.
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    session.join().map_err(|_| "the engine session failed".to_string())
}

fn run_perft(depth: u32, fen: &str, divide: bool, json: bool) -> Result<(), String> {
    let mut pos = super::parse_position(fen)?;
    let t = Instant::now();
    // At depth 0 the one leaf is the position itself, under no root move: 1 node, none listed.
    let (nodes, per_move) = if divide && depth > 0 {
        let d = perft::divide(&mut pos, depth);
        (d.iter().map(|(_, n)| n).sum(), Some(d))
    } else if divide {
        (perft::perft_bulk(&mut pos, depth), Some(Vec::new()))
    } else {
        (perft::perft_bulk(&mut pos, depth), None)
    };
    let secs = t.elapsed().as_secs_f64();
    let nps = if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 };
    if json {
        let mut obj =
            serde_json::json!({"fen": pos.fen(), "depth": depth, "nodes": nodes, "seconds": secs, "nps": nps});
        if let Some(d) = per_move {
            obj["divide"] =
                d.iter().map(|(m, n)| (m.to_string(), serde_json::json!(n))).collect::<serde_json::Map<_, _>>().into();
        }
        println!("{obj}");
    } else {
        for (m, n) in per_move.iter().flatten() {
            println!("{m}: {n}");
        }
        println!("nodes {nodes}\ndepth {depth}\ntime {secs:.3} s ({:.1} M nodes/s)", nps as f64 / 1e6);
    }
    Ok(())
}

/// The game from the position arguments and the moves played after them (any notation).
fn game_from(position: &[String], moves: &[String]) -> Result<Game, String> {
    let spec = super::position_args(position)?;
    let mut game = spec.game();
    let played = spec::read_moves(game.position(), moves, spec.moves.len() + 1).map_err(|e| format!("--moves: {e}"))?;
    for m in played {
        game.play_unchecked(m);
    }
    Ok(game)
}

/// `moves` written from `pos` in `notation`, space-separated.
fn line_text(pos: &qiku::Position, moves: &[qiku::Move], notation: Notation) -> String {
    spec::format_line(pos, moves, notation).join(" ")
}

/// Prints the end of a game the rules have already ended (see [`qiku::engine::game_over`]);
/// `true` if they have.
fn report_game_over(game: &Game, json: bool) -> bool {
    let Some(ended) = qiku::engine::game_over(game) else { return false };
    if json {
        let v = serde_json::json!({
            "fen": game.position().fen(), "game_over": {"result": ended.result, "text": ended.text}, "bestmove": null,
        });
        println!("{v}");
    } else {
        println!("game over: {} ({}); no move to search", ended.text, ended.result);
    }
    true
}

fn run_analyze(args: &AnalyzeArgs) -> Result<(), String> {
    let game = game_from(&args.position, &args.moves)?;
    if report_game_over(&game, args.json) {
        return Ok(());
    }
    // No legal move (checkmate, stalemate): reported as the other ends are; the JSON keeps the
    // search's answer (no move, `mate` 0) beside `game_over`.
    let no_move_end = qiku::engine::game_end(&game).filter(|_| game.position().has_no_moves());
    if let (Some(ended), false) = (&no_move_end, args.json) {
        println!("game over: {} ({}); no move to search", ended.text, ended.result);
        return Ok(());
    }
    let root = game.position().clone();
    let notation = args.notation;
    let breakdown = args.eval.then(|| eval::breakdown(game.position(), &eval::Weights::DEFAULT));
    if let (Some(b), false) = (&breakdown, args.json) {
        println!("eval (red's view): {b}");
    }
    let limits = match (args.depth, args.movetime) {
        (_, Some(ms)) => Limits::movetime(ms),
        (Some(d), None) => Limits::depth(d),
        (None, None) => Limits::depth(12),
    };
    let shared = Shared::try_new(args.hash).map_err(|e| format!("--hash {}: {e}", args.hash))?;
    let mut options = SearchOptions { threads: args.threads, multi_pv: args.multipv, ..SearchOptions::default() };
    if let Some(dir) = &args.tb {
        // The files that cannot be used are named on stderr; the search goes on without them.
        let notes: qiku::engine::adapters::Notes = std::sync::Arc::new(|note: &str| eprintln!("qiku: {note}"));
        let tables =
            qiku::engine::adapters::QtbEndgames::with_notes(std::sync::Arc::new(crate::open_tables_dir(dir)?), notes);
        qiku::engine::Endgames::set_rules(&tables, args.rules);
        options.tablebases = Some(std::sync::Arc::new(tables));
    }
    let mut lines = Vec::new();
    // The last depth's lines, one per `multipv` index.
    let mut last: Vec<serde_json::Value> = Vec::new();
    let json = args.json;
    let mut on_info = |info: &search::Info| {
        if json {
            // Every line in the notation asked for (`--notation`), as `pv` and `bestmove`, and in
            // ICCS beside it (`pv_iccs`, `bestmove_iccs`) whatever the notation.
            let pv = spec::format_line(&root, &info.pv, notation);
            let pv_iccs = iccs_line(&info.pv);
            if info.multipv == 1 {
                last.clear();
            }
            last.push(serde_json::json!({
                "multipv": info.multipv, "depth": info.depth, "cp": info.score.cp(), "mate": info.score.mate(), "pv": pv,
                "pv_iccs": pv_iccs,
            }));
            lines.push(serde_json::json!({
                "depth": info.depth, "multipv": info.multipv, "seldepth": info.seldepth, "cp": info.score.cp(), "mate": info.score.mate(),
                "nodes": info.nodes, "nps": info.nps(), "time_ms": info.time.as_millis() as u64,
                "pv": pv, "pv_iccs": pv_iccs,
            }));
        } else if notation == Notation::Iccs {
            println!("{}", info.to_uci().trim_start_matches("info "));
        } else {
            let uci = info.to_uci();
            let head = uci.split(" pv ").next().unwrap_or(&uci).trim_start_matches("info ");
            println!("{head} pv {}", line_text(&root, &info.pv, notation));
        }
    };
    // With tables, the engine as the UCI engine plays (the tables answer a position they cover);
    // without, its search alone.
    let (r, source, verdict) = match &options.tablebases {
        None => (search::search(&game, &limits, &options, &shared, &mut History::default(), &mut on_info), None, None),
        Some(_) => {
            let mut engine = qiku::engine::Engine::new(1);
            engine.shared = std::sync::Arc::new(shared);
            engine.options = options;
            let (r, source) = engine.think(&game, &limits, &mut on_info);
            (r, Some(source), engine.last_verdict)
        }
    };
    let pv = spec::format_line(&root, &r.pv, notation);
    let best = r.best.map(|m| qiku::notation::format(&root, m, notation));
    let ponder = r.best.zip(r.ponder).map(|(b, p)| qiku::notation::format(&root.play_unchecked(b), p, notation));
    if json {
        // A missing move (no legal move) is null, in every notation.
        let mut obj = serde_json::json!({
            "fen": game.position().fen(), "bestmove": best, "bestmove_iccs": r.best.map(|m| m.to_string()),
            "ponder": ponder, "ponder_iccs": r.best.and(r.ponder).map(|m| m.to_string()), "cp": r.score.cp(), "mate": r.score.mate(), "depth": r.depth, "nodes": r.nodes,
            "pv": pv, "pv_iccs": iccs_line(&r.pv), "lines": lines, "multipv": last,
        });
        if let Some(ended) = no_move_end {
            obj["game_over"] = serde_json::json!({"result": ended.result, "text": ended.text});
        }
        if let Some(source) = source {
            // With --tb: who chose the move, and the tables' verdict of the position.
            obj["source"] =
                serde_json::json!(if source == qiku::engine::Source::Tablebase { "tablebase" } else { "search" });
            obj["tablebase"] = verdict.map_or(serde_json::Value::Null, verdict_json);
        }
        if let Some(b) = breakdown {
            // The text's terms, the same numbers, red's view.
            obj["eval"] = serde_json::json!({
                "material": b.material, "pst": b.pst, "mobility": b.mobility, "relations": b.relations,
                "king_safety": b.king_safety, "structure": b.structure, "tempo": b.tempo, "drawish": b.drawish,
                "total": b.total, "phase": b.phase, "phase_max": eval::PHASE_MAX,
            });
        }
        println!("{obj}");
    } else {
        if let Some(note) = source.and_then(|source| uci::decision_note(source, verdict)) {
            println!("{note}");
        }
        let best = best.as_deref().unwrap_or("(none)");
        match ponder {
            Some(p) => println!("bestmove {best} ponder {p}"),
            None => println!("bestmove {best}"),
        }
    }
    Ok(())
}

fn run_bench(depth: u32, hash: usize, json: bool) -> Result<(), String> {
    let total = bench::POSITIONS.len();
    let mut i = 0;
    let lines = bench::run(bench::POSITIONS, depth, hash, |l| {
        i += 1;
        if !json {
            println!("{i:>2}/{total} nodes {:>10} best {:<5} {:>7} ms  {}", l.nodes, l.best, l.time.as_millis(), l.fen);
        }
    })
    .map_err(|e| e.to_string())?;
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs: f64 = lines.iter().map(|l| l.time.as_secs_f64()).sum();
    let nps = if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 };
    if json {
        println!(
            "{}",
            serde_json::json!({"depth": depth, "positions": total, "nodes": nodes, "seconds": secs, "nps": nps})
        );
    } else {
        println!("===========================");
        println!("Depth: {depth}");
        println!("Total time (ms): {}", (secs * 1000.0) as u64);
        println!("Total nodes: {nodes}");
        println!("Nodes/second: {nps}");
    }
    Ok(())
}

/// Builds the two engine specs, attaching each per-engine flag to the `--engine` before it.
fn engine_specs(args: &MatchArgs, m: &ArgMatches) -> Result<[EngineSpec; 2], String> {
    if args.engine.len() != 2 {
        return Err(format!("give --engine exactly twice (got {})", args.engine.len()));
    }
    let engine_at: Vec<usize> = m.indices_of("engine").map(|i| i.collect()).unwrap_or_default();
    let owner = |flag: &str, idx: usize| -> Result<usize, String> {
        engine_at
            .iter()
            .rposition(|&e| e < idx)
            .ok_or_else(|| format!("--{flag} must follow the --engine it applies to"))
    };
    let mut specs = [EngineSpec::new(&args.engine[0]), EngineSpec::new(&args.engine[1])];
    for spec in &mut specs {
        spec.startup = std::time::Duration::from_secs(args.startup_timeout);
    }
    let indices = |id: &str| -> Vec<usize> { m.indices_of(id).map(|i| i.collect()).unwrap_or_default() };
    for (v, idx) in args.protocol.iter().zip(indices("protocol")) {
        specs[owner("protocol", idx)?].protocol =
            v.parse().map_err(|e: matchrunner::process::UnknownName| e.to_string())?;
    }
    for (v, idx) in args.option.iter().zip(indices("option")) {
        let (name, value) = v.split_once('=').ok_or_else(|| format!("--option {v:?}: expected NAME=VALUE"))?;
        specs[owner("option", idx)?].options.push((name.trim().to_string(), value.trim().to_string()));
    }
    for (v, idx) in args.name.iter().zip(indices("name")) {
        specs[owner("name", idx)?].name = Some(v.clone());
    }
    for (v, idx) in args.ranks.iter().zip(indices("ranks")) {
        specs[owner("ranks", idx)?].ranks = if v == "auto" {
            None
        } else {
            Some(v.parse().map_err(|e: matchrunner::process::UnknownName| e.to_string())?)
        };
    }
    Ok(specs)
}

/// A fixed depth or node count makes a single-threaded engine deterministic: once every opening
/// has been played with both colours, later games repeat earlier ones move for move and add no
/// information (a test on them, `--sprt` above all, would count the same games again).
fn repeat_warning(limit: &Limit, openings: usize, games: u32) -> Option<String> {
    let unique = 2 * openings as u64;
    let fixed = match limit {
        Limit::Depth(_) => "--depth",
        Limit::Nodes(_) => "--nodes",
        _ => return None,
    };
    (u64::from(games) > unique).then(|| {
        format!(
            "with {fixed}, engines that search with one thread play the same game again for the same opening and colours: \
             {openings} opening{} give{} {unique} different games, and games beyond the first {unique} repeat earlier ones. \
             Give --openings with at least {} openings, or a clock (--tc) or --movetime",
            if openings == 1 { "" } else { "s" },
            if openings == 1 { "s" } else { "" },
            u64::from(games).div_ceil(2)
        )
    })
}

/// A line of moves in ICCS, as `--json` gives it beside the line in `--notation`.
fn iccs_line(moves: &[qiku::Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

fn run_match(args: &MatchArgs, m: &ArgMatches) -> Result<(), String> {
    let engines = engine_specs(args, m)?;
    if let Some(pgn) = &args.pgn {
        // The openings file, and an engine given by its path, are the match's input files.
        let programs: Vec<PathBuf> = engines
            .iter()
            .filter_map(|e| e.command.split_whitespace().next())
            .map(|p| PathBuf::from(p.trim_matches('"')))
            .collect();
        let inputs = args.openings.iter().chain(&programs).map(PathBuf::as_path);
        crate::refuse_output_among_inputs(pgn, inputs)?;
        crate::refuse_unwritable_output(pgn)?;
    }
    let limit = if let Some(tc) = &args.tc {
        matchrunner::parse_tc(tc).map_err(|e| e.to_string())?
    } else if let Some(ms) = args.movetime {
        Limit::MoveTime(std::time::Duration::from_millis(ms))
    } else if let Some(d) = args.depth {
        Limit::Depth(d)
    } else if let Some(n) = args.nodes {
        Limit::Nodes(n)
    } else {
        matchrunner::parse_tc("10+0.1").map_err(|e| e.to_string())?
    };
    let sprt = match args.sprt.as_deref() {
        Some(&[elo0, elo1]) => {
            let model: matchrunner::sprt::SprtModel = args.sprt_model.parse().map_err(|e: SprtError| e.to_string())?;
            if args.games % 2 == 1 {
                return Err(format!(
                    "--sprt counts pairs of games (each opening with both colours): give an even --games, not {}",
                    args.games
                ));
            }
            Some(Sprt::new(elo0, elo1, args.alpha, args.beta, model).map_err(|e| e.to_string())?)
        }
        Some(other) => return Err(format!("--sprt takes two Elo values, ELO0 and ELO1 (got {})", other.len())),
        None => None,
    };
    let openings = match &args.openings {
        Some(path) => openings::load(path).map_err(|e| e.to_string())?,
        None => openings::builtin(),
    };
    if let Some(warning) = repeat_warning(&limit, openings.len(), args.games) {
        eprintln!("warning: {warning}");
    }
    let config = MatchConfig {
        engines,
        games: args.games,
        limit,
        openings,
        pgn: args.pgn.clone(),
        concurrency: args.concurrency.max(1),
        max_plies: args.max_plies,
        margin: std::time::Duration::from_millis(args.margin),
        event: args.event.clone(),
        sprt,
        pin: args.pin,
    };
    let total = config.games;
    let json = args.json;
    let report = matchrunner::run(&config, &|g, r| {
        let line = format!(
            "game {:>3}/{total} opening {:>2} {} (red) vs {}: {} {} | {} {:.1}-{:.1}",
            g.index + 1,
            g.opening + 1,
            g.pgn.red,
            g.pgn.black,
            g.pgn.result,
            g.reason,
            r.names[0],
            r.tally.points(),
            r.tally.games() as f64 - r.tally.points()
        );
        let sprt_line = r.sprt.filter(|s| s.last_update == Some(g.index)).map(|s| s.line());
        for l in std::iter::once(line).chain(sprt_line) {
            if json {
                eprintln!("{l}");
            } else {
                println!("{l}");
            }
        }
    })
    .map_err(|e| e.to_string())?;
    if json {
        let elo = report.tally.elo();
        let finite = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
        println!(
            "{}",
            serde_json::json!({
                "engines": report.names, "games": report.tally.games(), "wins": report.tally.wins,
                "draws": report.tally.draws, "losses": report.tally.losses, "score": report.tally.score(),
                "elo": elo.map(|e| finite(e.diff)), "elo_error95": elo.map(|e| finite(e.error95)),
                "los": report.tally.los(),
                "faults": report.faults.iter().map(|f| serde_json::json!({
                    "illegal_moves": f[0], "no_move": f[1], "crashes": f[2], "time_losses": f[3]})).collect::<Vec<_>>(),
                "garbage_lines": report.garbage_lines,
                "sprt": report.sprt.map(|s| serde_json::json!({
                    "elo0": s.test.elo0, "elo1": s.test.elo1, "alpha": s.test.alpha, "beta": s.test.beta,
                    "model": s.test.model.name(), "llr": finite(s.llr), "lower": s.test.lower(),
                    "upper": s.test.upper(), "pentanomial": s.pentanomial.counts, "pairs": s.pentanomial.pairs(),
                    "decision": s.decision.short(), "late_games": s.late_games})),
            })
        );
    } else {
        println!("{}", matchrunner::summary(&report));
    }
    Ok(())
}

/// A table verdict as JSON: `dtm` in plies (or the line rank when `by_rule`), with its unit.
fn verdict_json(v: qiku::Verdict) -> serde_json::Value {
    serde_json::json!({"wdl": v.value.wdl.name(), "dtm": v.value.dtm.0, "by_rule": v.by_rule,
                       "unit": v.unit(), "rules": v.rules.name(), "text": v.to_string()})
}

/// `qiku probe`; with `--tb`, the table files that cannot be used are left to `warnings`, printed
/// after the answer or the probe's own error.
fn run_probe(args: &ProbeArgs, warnings: &mut Vec<String>) -> Result<(), String> {
    use qiku::engine::adapters::{self, QbkOpeningBook};
    use qiku::engine::OpeningBook;
    let spec = super::position_args(&args.position)?;
    // A game the rules have ended (a repetition, the 120-ply limit) still gets the book's and the
    // tables' view of its position, as `/api/explore` gives it; only the answer is none.
    let ended = qiku::engine::game_over(&spec.game());
    let pos = spec.position();
    let n = args.notation;
    let write = |m: qiku::Move| qiku::notation::format(&pos, m, n);
    let mut out = serde_json::json!({"fen": pos.fen(), "book": null, "tablebase": null, "search": null});
    // The answering move (`None`: the side to move has none) and where it came from.
    let mut answer: Option<(Option<qiku::Move>, &str)> = None;
    if let Some(path) = &args.book {
        let policy = adapters::policy(&args.policy)
            .ok_or_else(|| format!("unknown --policy {:?} (expected best, games or score)", args.policy))?;
        // The error names the file.
        let opened = qiku::book::Book::open(path).map_err(|e| super::book::book_open_error(path, &e.to_string()))?;
        // A book of one side's moves has none where the other side is to move.
        let other_side = super::book::other_side_only(&opened, &pos);
        let book =
            QbkOpeningBook::shared(std::sync::Arc::new(opened), policy, args.min_games).with_min_share(args.min_share);
        let moves = book.moves(&pos).map_err(|e| e.to_string())?;
        let pick = book.pick(&pos);
        if !args.json {
            if let (true, Some(why)) = (moves.is_empty(), &other_side) {
                println!("book: not in book: {why}");
            } else if moves.is_empty() {
                println!("book: not in book (or no move in at least {}% of its games)", args.min_share);
            } else {
                println!(
                    "book: moves in at least {} and {}% of the position's games; +wins =draws -losses and \
                     score for {}, the side to move",
                    match args.min_games.max(1) {
                        1 => "1 game".to_string(),
                        n => format!("{n} games"),
                    },
                    args.min_share,
                    pos.turn()
                );
            }
            for m in &moves {
                let c = m.counts;
                let score = c.score().map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s));
                println!(
                    "book: {} games {:>7} +{} ={} -{} score {score}",
                    write(m.mv),
                    c.games(),
                    c.wins,
                    c.draws,
                    c.losses
                );
            }
        }
        out["book"] = serde_json::json!({
            "results_for": "side to move",
            "min_share_percent": args.min_share,
            "moves": moves.iter().map(|m| serde_json::json!({
                "move": write(m.mv), "iccs": m.mv.to_string(), "games": m.counts.games(), "wins": m.counts.wins,
                "draws": m.counts.draws, "losses": m.counts.losses, "score": m.counts.score(),
            })).collect::<Vec<_>>(),
            "pick": pick.map(write), "pick_iccs": pick.map(|m| m.to_string()),
        });
        if let Some(m) = pick {
            answer = Some((Some(m), "book"));
        }
    }
    if let Some(dir) = &args.tb {
        let tables = crate::open_tables_dir(dir)?;
        // A damaged or foreign table (or companion) fails with its file's error, never reads as
        // a missing one; the values are those of `qiku-tb probe --rules RULES`.
        let rules = args.rules;
        let found = (|| -> Result<_, String> {
            if pos.occupied().count() as usize > qiku::tablebase::MAX_PIECES {
                return Ok(None);
            }
            let e = |e: qiku::tablebase::TbError| super::tb::probe_error(e, dir);
            let moves = tables.move_verdicts(&pos, rules).map_err(e)?;
            Ok(match (tables.verdict(&pos, rules).map_err(e)?, moves) {
                (Some(v), Some(moves)) => {
                    // The WDL file's answer is checked as `qiku-tb probe` checks it: a damaged or
                    // disagreeing `.qtw` fails here as it fails there.
                    tables.checked_wdl_file(&pos, rules, &v).map_err(e)?;
                    let values: Vec<(qiku::Move, qiku::TbValue)> = moves.iter().map(|&(m, mv)| (m, mv.value)).collect();
                    let best = tables.checked_best_among(&pos, v.value, &values).map_err(e)?;
                    Some((v, moves, Some(best)))
                }
                _ => None,
            })
        })();
        // The other unusable files are said after the answer or the probe's own error, as
        // `qiku-tb probe` says them.
        let material = qiku::tablebase::Material::from_position(&pos);
        *warnings = super::tb::probe_warnings(&tables, material, found.as_ref().err().map(String::as_str));
        let found = found?;
        match found {
            Some((v, values, best)) => {
                let best_moves = best.unwrap_or_default();
                let best: Vec<String> = best_moves.iter().map(|m| write(*m)).collect();
                if !args.json && best.is_empty() {
                    println!("tablebase: {v}");
                } else if !args.json {
                    println!("tablebase: {v} (best: {})", best.join(" "));
                    for (m, mv) in &values {
                        println!("tablebase: {} {mv}", write(*m));
                    }
                }
                out["tablebase"] = serde_json::json!({
                    "value": verdict_json(v), "best_moves": best,
                    "best_moves_iccs": best_moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                    "moves": values.iter().map(|(m, mv)| {
                        let mut o = verdict_json(*mv);
                        o["move"] = serde_json::json!(write(*m));
                        o["iccs"] = serde_json::json!(m.to_string());
                        o
                    }).collect::<Vec<_>>(),
                });
                if answer.is_none() {
                    answer = best_moves.first().map(|&m| (Some(m), "tablebase"));
                }
            }
            None => {
                if !args.json {
                    println!("tablebase: no table for this material in {}", dir.display());
                }
            }
        }
    }
    if let Some(ended) = ended {
        if args.json {
            out["answer"] = serde_json::json!({"move": null, "iccs": null, "source": "game_over"});
            out["game_over"] = serde_json::json!({"result": ended.result, "text": ended.text});
            println!("{out}");
        } else {
            println!("answer: none: game over: {} ({}); no move to search", ended.text, ended.result);
        }
        return Ok(());
    }
    if answer.is_none() && pos.has_no_moves() {
        // Nothing to search: the side to move loses (Xiangqi counts a stalemate as a loss too).
        let how = if pos.is_check() { "checkmated" } else { "stalemated" };
        if !args.json {
            println!("answer: none: {} has no legal move and loses ({how})", pos.turn());
        } else {
            out["answer"] = serde_json::json!({"move": null, "iccs": null, "source": how});
            // The end in the words `analyze --json` gives it, beside the book's and the tables'
            // answers (the game's outcome: `red wins by stalemate (no legal move)`, `1-0`).
            if let Some(ended) = qiku::engine::game_end(&spec.game()) {
                out["game_over"] = serde_json::json!({"result": ended.result, "text": ended.text});
            }
            println!("{out}");
        }
        return Ok(());
    }
    if answer.is_none() {
        let shared = Shared::new(16);
        // With the moves that led here, so that the search judges repetitions as `analyze` does.
        let game = spec.game();
        let r = search::search(
            &game,
            &Limits::depth(args.depth),
            &SearchOptions::default(),
            &shared,
            &mut History::default(),
            &mut |_| {},
        );
        let best = r.best.map(write);
        let pv = spec::format_line(&pos, &r.pv, n);
        if !args.json {
            let shown = best.as_deref().unwrap_or("(none)");
            println!("search: depth {} score {} best {shown} pv {}", r.depth, r.score.to_words(), pv.join(" "));
        }
        out["search"] = serde_json::json!({
            "depth": r.depth, "cp": r.score.cp(), "mate": r.score.mate(), "bestmove": best,
            "bestmove_iccs": r.best.map(|m| m.to_string()), "pv": pv, "pv_iccs": iccs_line(&r.pv),
        });
        answer = Some((r.best, "search"));
    }
    if let Some((mv, source)) = answer {
        if args.json {
            // `iccs` whatever --notation says; both null when there is no move.
            out["answer"] =
                serde_json::json!({"move": mv.map(write), "iccs": mv.map(|m| m.to_string()), "source": source});
            println!("{out}");
        } else {
            println!("answer: {} ({source})", mv.map_or("(none)".to_string(), write));
        }
    }
    Ok(())
}
