//! `qiku-book`: compile game collections into an opening book, and probe, merge, inspect and
//! dump books. The library side is [`qiku::book`]; this is only argument handling and output.

use super::interrupt::{self, Failure};
use clap::{Parser, Subcommand, ValueEnum};
use qiku::book::{self, Book, BookError, BookMove, BuildOptions, BuildParams, Counts, MinScore, Policy, SideFilter};
use qiku::core::{Color, Move, Position};
use qiku::notation;
use qiku::pgn::EncodingChoice;
use serde::Serialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "qiku-book",
    version,
    about = "Compile Xiangqi game collections into opening books (.qbk) and query them",
    long_about = "Compile Xiangqi game collections into opening books (.qbk) and query them.\n\n\
        A book records, for every position reached in the first plies of the games, each move played \
        there with its wins, draws and losses from the mover's point of view. Mirror-image positions \
        share one entry. See docs/BOOK.md.\n\n\
        Example:\n  qiku-book build my-games.pgn more-games.pgn.zst -o my.qbk\n  qiku-book probe my.qbk startpos"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Side {
    Red,
    Black,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Encoding {
    /// Detect per file (UTF-8 with or without BOM, GBK/GB18030, Big5).
    Auto,
    Utf8,
    Gbk,
    Big5,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum PickPolicy {
    /// The best-scoring move (deterministic).
    Best,
    /// At random, weighted by games played.
    Games,
    /// At random, weighted by points scored.
    Score,
}

/// The game filters of `build` (substring matches; all given must match).
#[derive(clap::Args)]
struct FilterArgs {
    /// Only games with a player whose name contains NAME, on either side (Red or Black tag).
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
    /// Only games whose Red tag contains NAME.
    #[arg(long, value_name = "NAME")]
    red: Option<String>,
    /// Only games whose Black tag contains NAME.
    #[arg(long, value_name = "NAME")]
    black: Option<String>,
    /// Only games whose Event tag contains TEXT.
    #[arg(long, value_name = "TEXT")]
    event: Option<String>,
    /// Only games dated in or after DATE: YYYY, YYYY-MM or YYYY-MM-DD (undated games are left out).
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only games dated in or before DATE: YYYY, YYYY-MM or YYYY-MM-DD (undated games are left out).
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Only games whose ECCO tag is in CODES: a code (C45), a prefix (C, C4) or a range (A00-C99).
    #[arg(long, value_name = "CODES")]
    ecco: Option<String>,
}

impl FilterArgs {
    fn to_filter(&self) -> Result<book::GameFilter, String> {
        let date = |flag: &str, v: &Option<String>| -> Result<Option<book::DateBound>, String> {
            v.as_deref().map(|s| s.parse().map_err(|e: book::FilterError| format!("--{flag}: {e}"))).transpose()
        };
        let filter = book::GameFilter {
            player: self.player.clone(),
            red: self.red.clone(),
            black: self.black.clone(),
            event: self.event.clone(),
            since: date("since", &self.since)?,
            until: date("until", &self.until)?,
            ecco: self
                .ecco
                .as_deref()
                .map(|s| s.parse().map_err(|e: book::FilterError| format!("--ecco: {e}")))
                .transpose()?,
        };
        filter.validate().map_err(|e| e.to_string())?;
        Ok(filter)
    }
}

// Parsed once per run: the size of the `build` variant (its filters) does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Build a book from PGN files (or plain move lists, one game per line), optionally
    /// .zst-compressed, XQF files and directories of game files.
    #[command(long_about = "Build a book from PGN files (or plain move lists, one game per line).\n\n\
        XQF files (XQStudio 1.0-1.8) are read as one game each (main line); a directory stands for \
        the .xqf/.pgn/.pgn.zst/.txt/.txt.zst files under it. \
        Inputs may be UTF-8, GBK or Big5 (detected per file) and zstd-compressed. Moves may be in ICCS \
        (h2e2, H2-E2), WXF or Chinese notation, chosen by the [Format] tag or detected. Games with a bad \
        move or a malformed header are reported (file, game, line, token, reason) and skipped; the build \
        goes on. A file that cannot be read to its end (a truncated .zst) is reported with the line it \
        stopped after, and its games before that are used; a file found in a directory that cannot be \
        opened or is no game file is skipped with a warning. Games without a result count toward move frequency but not toward wins/draws/losses.\n\n\
        The output is byte-identical for any thread count and any order of the inputs; a file named twice \
        (or also reached through a directory) is read once. A build that keeps no move writes nothing and \
        fails, leaving a file already at the output path as it was.")]
    Build {
        /// Game files (.pgn, .txt, optionally .zst-compressed; .xqf) or directories of them; `-`
        /// reads games from standard input (any encoding, compressed or not).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The book to write (atomically: a temporary file renamed into place).
        #[arg(short, long)]
        output: PathBuf,
        /// Record moves of the first N plies of each game.
        #[arg(long, default_value_t = 40, value_parser = max_ply_arg)]
        max_ply: u32,
        /// Drop moves played in fewer than N games.
        #[arg(long, default_value_t = 0)]
        min_games: u32,
        /// Drop moves scoring below this fraction (0.0-1.0) for the mover; moves without decided games are kept.
        #[arg(long, default_value = "0", value_parser = fraction_arg)]
        min_score: MinScore,
        /// Keep only positions with this side to move.
        #[arg(long)]
        only: Option<Side>,
        /// Use only games whose RedElo and BlackElo tags are both at least N (games without them are skipped).
        #[arg(long)]
        min_elo: Option<u32>,
        /// Keep the moves before a bad move instead of skipping the whole game.
        #[arg(long)]
        keep_prefix: bool,
        /// Keep, for every position, this many of the most recent games that reached it
        /// (players, event, date, result, moves; shown by `probe`); 0: none (a smaller book).
        #[arg(long, default_value_t = book::DEFAULT_RECENT_GAMES,
              value_parser = super::whole_number::<u32>(0, 255))]
        recent_games: u32,
        #[command(flatten)]
        filter: FilterArgs,
        /// Text encoding of the inputs.
        #[arg(long, value_enum, default_value_t = Encoding::Auto)]
        encoding: Encoding,
        /// Memory for records before sorted runs are spilled to disk (e.g. 512M, 2G; at least 1M).
        #[arg(long, default_value = "1G", value_parser = parse_memory)]
        memory: u64,
        /// Worker threads, 1 to 1024 (default: all cores, or RAYON_NUM_THREADS).
        #[arg(long, value_parser = super::whole_number::<usize>(1, qiku::MAX_WORKER_THREADS as u64))]
        threads: Option<usize>,
        /// Read only the first --max-ply moves of each game (faster; bad moves later in a game go unnoticed).
        #[arg(long)]
        head_only: bool,
        /// Print at most N bad-game messages (all are counted).
        #[arg(long, default_value_t = 20)]
        show_errors: usize,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// No progress display (neither the bar on a terminal nor the plain progress lines).
        #[arg(long, short)]
        quiet: bool,
        /// Replace the file at the output path even if it is not a .qbk book (by default only a
        /// book is replaced: games or a GUI's book there are left alone and the command fails).
        #[arg(long)]
        force: bool,
    },
    /// Show the book moves of a position: games, results by color (red wins, draws, black wins,
    /// as opening explorers show them) and the score for the side to move.
    Probe {
        /// The book (.qbk) to read.
        book: PathBuf,
        #[arg(help = super::POSITION_HELP, value_name = "POSITION")]
        position: Vec<String>,
        /// Print {"fen", "turn", "moves": [{"move", "iccs", "games", "wins", "draws", "losses", ...}]}
        /// (with --pick, "pick" and "pick_iccs"); wins, draws, losses and score for the side to
        /// move; "move" in --notation, "iccs" always ICCS.
        #[arg(long)]
        json: bool,
        /// Notation of the moves printed: iccs, wxf or chinese.
        #[arg(long, default_value = "iccs", value_parser = super::notation_arg)]
        notation: notation::Notation,
        /// Also pick a move by this policy.
        #[arg(long, value_enum)]
        pick: Option<PickPolicy>,
        /// --pick chooses among the moves played in at least this percentage of the position's games.
        #[arg(long, default_value_t = book::DEFAULT_MIN_SHARE_PERCENT,
              value_parser = super::whole_number::<u32>(0, 100))]
        min_share: u32,
        /// Seed for the random policies (of --pick games or score).
        #[arg(long, default_value_t = 0, requires = "pick")]
        seed: u64,
    },
    /// Merge books by adding their counts (built with the same counting options).
    ///
    /// The books must be built with the same --max-ply, --only, --min-elo, --keep-prefix and
    /// --recent-games. The game filters (--player, --event, --since and the others) are not stored
    /// in a book, so that books of different players or events merge.
    Merge {
        /// The books (.qbk) to add up.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The merged book to write (atomically; it may not be one of the inputs).
        #[arg(short, long)]
        output: PathBuf,
        /// Drop moves played in fewer than N games (after adding).
        #[arg(long, default_value_t = 0)]
        min_games: u32,
        /// Drop moves scoring below this fraction (after adding).
        #[arg(long, default_value = "0", value_parser = fraction_arg)]
        min_score: MinScore,
        /// Replace the file at the output path even if it is not a .qbk book (by default only a
        /// book is replaced: games or a GUI's book there are left alone and the command fails).
        #[arg(long)]
        force: bool,
        /// Print the summary as one JSON object: output, inputs, positions, records (distinct
        /// moves), moves (played in all), games_used, file_bytes.
        #[arg(long)]
        json: bool,
    },
    /// Print a book's header: build parameters and counts.
    Stats {
        /// The book (.qbk) to read.
        book: PathBuf,
        /// Print the header as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Print every record, one line each: key (hex), move (ICCS, canonical orientation), wins, draws, losses, unknown.
    Dump {
        /// The book (.qbk) to read.
        book: PathBuf,
    },
    /// Write a book as a BHGUI-style .obk (SQLite) that VinXiangQi and other BHGUI-keyed GUIs read.
    #[cfg(feature = "obk")]
    Export {
        /// The book (.qbk) to convert.
        book: PathBuf,
        /// The .obk to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Also write keys of 2^63 and above as VinXiangQi looks them up (extra REAL-keyed rows;
        /// other readers never see them).
        #[arg(long)]
        vinxiangqi: bool,
        /// No progress display (neither the bar on a terminal nor the plain progress lines).
        #[arg(long, short)]
        quiet: bool,
        /// Replace the file at the output path even if it is not an .obk book (by default only an
        /// .obk is replaced: anything else there is left alone and the command fails).
        #[arg(long)]
        force: bool,
        /// Print the summary as one JSON object: output, positions, records (distinct moves),
        /// rows, alias_rows, without_result, unreachable, recent_games_not_exported (the recent
        /// games the .qbk keeps per position, which an .obk has no place for; 0: it keeps none),
        /// seconds.
        #[arg(long)]
        json: bool,
    },
    /// Read a BHGUI-style .obk (SQLite) book and write it as a .qbk.
    #[cfg(feature = "obk")]
    Import {
        /// The .obk (SQLite) book to read.
        obk: PathBuf,
        /// The .qbk to write.
        #[arg(short, long)]
        output: PathBuf,
        /// No progress display (neither the bar on a terminal nor the plain progress lines).
        #[arg(long, short)]
        quiet: bool,
        /// Replace the file at the output path even if it is not a .qbk book (by default only a
        /// book is replaced: games or a GUI's book there are left alone and the command fails).
        #[arg(long)]
        force: bool,
        /// Print the summary as one JSON object: output, positions, records, rows, used, the rows
        /// skipped by reason (skipped: invalid, unreadable, alias, illegal, unreachable,
        /// bad_counts, bad_memos, repeated), saturated, header_ignored, seconds.
        #[arg(long)]
        json: bool,
    },
}

/// The smallest `--memory` of `build`: below it nearly every batch of games would be spilled as
/// a run of its own, which only makes a build slow.
const MIN_MEMORY: u64 = 1 << 20;

/// `--memory`: a size ([`parse_size`]) of at least [`MIN_MEMORY`].
fn parse_memory(s: &str) -> Result<u64, String> {
    let n = parse_size(s)?;
    if n < MIN_MEMORY {
        return Err(format!(
            "{s:?} is below the minimum 1M: a smaller budget would spill nearly every batch of games to disk as a \
             run of its own; give 1M or more (default 1G)"
        ));
    }
    Ok(n)
}

/// `123`, `64K`, `512M`, `2G` (binary units).
fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                _ => return Err(format!("unknown size unit in {s:?} (use K, M, G or T)")),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("not a size: {s:?} (e.g. 512M, 2G)"))?;
    n.checked_mul(mult).ok_or_else(|| format!("size {s:?} too large"))
}

/// `--min-score`: a fraction from 0 to 1, refused as a usage error (exit status 2) otherwise.
fn fraction_arg(s: &str) -> Result<MinScore, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .and_then(MinScore::from_fraction)
        .ok_or_else(|| format!("{s} is not a fraction from 0 to 1 (0.55: moves scoring at least 55% for the mover)"))
}

/// `--max-ply`: 1 or more; 0 would record no move.
fn max_ply_arg(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(0) => Err("0 records no move: the book would be empty; give 1 or more (default 40)".into()),
        Ok(n) => Ok(n),
        Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
            Err(format!("{s} is too large: give at most {} plies (default 40)", u32::MAX))
        }
        Err(_) => Err(format!("{s} is not a whole number of plies, 1 or more (default 40)")),
    }
}

impl Command {
    /// The file a writer (`build`, `merge`, `export`, `import`) writes; `None` for the readers.
    fn output(&self) -> Option<&Path> {
        match self {
            Command::Build { output, .. } | Command::Merge { output, .. } => Some(output),
            #[cfg(feature = "obk")]
            Command::Export { output, .. } | Command::Import { output, .. } => Some(output),
            _ => None,
        }
    }
}

/// Entry point of the `qiku-book` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(code) = crate::check_thread_env("qiku-book") {
        return code;
    }
    // A writer stopped by Ctrl-C says whether a file was at its output before it started.
    let target = cli.command.output().map(|o| (o.to_path_buf(), o.exists()));
    if target.is_some() {
        if let Err(e) = interrupt::install() {
            eprintln!("qiku-book: warning: {e}; Ctrl-C will end the command at once");
        }
    }
    let result: Result<(), Failure> = match cli.command {
        Command::Build {
            inputs,
            output,
            max_ply,
            min_games,
            min_score: ms,
            only,
            min_elo,
            keep_prefix,
            recent_games,
            filter,
            encoding,
            memory,
            threads,
            head_only,
            show_errors,
            json,
            quiet,
            force,
        } => build_options(BuildArgs { max_ply, min_games, min_score: ms, only, min_elo, keep_prefix }, &filter)
            .map_err(Failure::from)
            .and_then(|params_and_filter| {
                let (params, filter) = params_and_filter;
                let opts = BuildOptions {
                    params,
                    encoding: match encoding {
                        Encoding::Auto => EncodingChoice::Auto,
                        Encoding::Utf8 => EncodingChoice::Utf8,
                        Encoding::Gbk => EncodingChoice::Gbk,
                        Encoding::Big5 => EncodingChoice::Big5,
                    },
                    memory,
                    threads,
                    max_errors: show_errors,
                    whole_games: !head_only,
                    spill_dir: None,
                    filter,
                    recent_games,
                };
                super::book_build::run_build(&inputs, &output, &opts, json, !quiet && !json, force)
            }),
        Command::Probe { book, position, json, notation, pick, min_share, seed } => {
            run_probe(&book, &position, json, ProbeOutput { notation, pick, min_share, seed }).map_err(Failure::from)
        }
        Command::Merge { inputs, output, min_games, min_score, force, json } => {
            super::book_build::run_merge(&inputs, &output, min_games, min_score, force, json)
        }
        Command::Stats { book, json } => run_stats(&book, json).map_err(Failure::from),
        Command::Dump { book } => run_dump(&book).map_err(Failure::from),
        #[cfg(feature = "obk")]
        Command::Export { book, output, vinxiangqi, quiet, force, json } => {
            super::obk::run_export(&book, &output, super::obk::ExportFlags { vinxiangqi, quiet, force, json })
        }
        #[cfg(feature = "obk")]
        Command::Import { obk, output, quiet, force, json } => {
            super::obk::run_import(&obk, &output, quiet, force, json)
        }
    };
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Error(message)) => {
            eprintln!("qiku-book: {message}");
            ExitCode::FAILURE
        }
        Err(Failure::Stopped) => {
            let (output, existed) = target.unwrap_or_default();
            eprintln!("qiku-book: {}", interrupt::nothing_written(&output, existed));
            return ExitCode::from(interrupt::exit_status());
        }
    };
    if super::stdout_failed("qiku-book") {
        return ExitCode::FAILURE;
    }
    code
}

/// The options of `build` stored in the book.
struct BuildArgs {
    max_ply: u32,
    min_games: u32,
    min_score: MinScore,
    only: Option<Side>,
    min_elo: Option<u32>,
    keep_prefix: bool,
}

/// The book's parameters and the game filter of `build`, checked.
fn build_options(a: BuildArgs, filter: &FilterArgs) -> Result<(BuildParams, book::GameFilter), String> {
    let params = BuildParams {
        max_ply: a.max_ply,
        min_games: a.min_games,
        min_score: a.min_score,
        only: match a.only {
            None => SideFilter::Both,
            Some(Side::Red) => SideFilter::Only(Color::Red),
            Some(Side::Black) => SideFilter::Only(Color::Black),
        },
        min_elo: a.min_elo,
        keep_prefix: a.keep_prefix,
    };
    Ok((params, filter.to_filter()?))
}

/// A move in Chinese notation, for display.
pub fn chinese(pos: &Position, m: Move) -> String {
    notation::chinese::format(pos, m)
}

/// Terminal columns of `s` (CJK and full-width characters take two).
fn display_width(s: &str) -> usize {
    s.chars().map(|c| if c.is_ascii() { 1 } else { 2 }).sum()
}

/// `s` padded with spaces to `width` terminal columns.
fn pad_display(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(display_width(s))))
}

fn pct(n: u32, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * f64::from(n) / d as f64
    }
}

/// One move of `probe --json`, fields in this order.
#[derive(Serialize)]
struct MoveJson {
    /// In the notation of `--notation`.
    #[serde(rename = "move")]
    mv: String,
    /// Always ICCS, whatever `--notation` says: the key a program can rely on.
    iccs: String,
    chinese: String,
    /// In a symmetric position (the start), the mirror-image move whose games this line also
    /// counts (`h2e2` also counts `b2e2`); absent when the line is one move.
    #[serde(skip_serializing_if = "Option::is_none")]
    with_mirror: Option<String>,
    games: u64,
    wins: u32,
    draws: u32,
    losses: u32,
    /// Games without a result (counted in `games`, not in wins/draws/losses).
    unknown: u32,
    /// (wins + draws / 2) / (wins + draws + losses); null without a decided game.
    score: Option<f64>,
}

#[derive(Serialize)]
struct ProbeJson {
    fen: String,
    /// `red` or `black`: the side to move, whose wins, draws, losses and score the moves'
    /// numbers are (`turn`, as every other JSON output names it).
    turn: &'static str,
    moves: Vec<MoveJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pick: Option<Option<String>>,
    /// The pick in ICCS whatever `--notation` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pick_iccs: Option<Option<String>>,
    /// The most recent games through the position (empty without a recent-games section).
    recent_games: Vec<serde_json::Value>,
}

fn result_text(r: Option<qiku::pgn::GameResult>) -> &'static str {
    match r {
        Some(qiku::pgn::GameResult::RedWins) => "1-0",
        Some(qiku::pgn::GameResult::BlackWins) => "0-1",
        Some(qiku::pgn::GameResult::Draw) => "1/2-1/2",
        None => "*",
    }
}

fn recent_json(g: &book::RecentGame) -> serde_json::Value {
    json!({
        "red": g.red,
        "black": g.black,
        "event": g.event,
        "date": g.date,
        "when": g.when.map(|d| d.to_string()),
        "ecco": g.ecco,
        "result": result_text(g.result),
        "start": g.start.fen(),
        "moves": g.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        "ply": g.ply,
        "mirrored": g.mirrored,
    })
}

fn write_recent(s: &mut String, games: &[book::RecentGame]) {
    use std::fmt::Write;
    if games.is_empty() {
        return;
    }
    let _ = writeln!(s, "recent games:");
    for g in games {
        let when = g.when.map_or_else(|| "????.??.??".to_string(), |d| d.to_string());
        let name = |n: &str| if n.is_empty() { "?".to_string() } else { n.to_string() };
        let _ = writeln!(
            s,
            "  {when}  {} {} {}  {}{}  (here after ply {} of {}{})",
            name(&g.red),
            result_text(g.result),
            name(&g.black),
            g.event,
            if g.ecco.is_empty() { String::new() } else { format!(" [{}]", g.ecco) },
            g.ply,
            g.moves.len(),
            if g.mirrored { ", mirrored" } else { "" }
        );
    }
}

fn move_json(pos: &Position, m: &BookMove, n: notation::Notation) -> MoveJson {
    let c: &Counts = &m.counts;
    MoveJson {
        mv: notation::format(pos, m.mv, n),
        iccs: m.mv.to_string(),
        chinese: chinese(pos, m.mv),
        with_mirror: m.merged_mirror(pos).map(|x| notation::format(pos, x, n)),
        games: c.games(),
        wins: c.wins,
        draws: c.draws,
        losses: c.losses,
        unknown: c.unknown,
        score: c.score(),
    }
}

/// An error opening `path` as a `.qbk`, with what to do when the file is something else: an
/// `.obk` (SQLite) book to import, games to build a book from, or missing
/// ([`qiku::book::open_hint`]; the output it suggests is never `path` itself).
pub fn book_open_error(path: &Path, error: &str) -> String {
    match book::open_hint(path) {
        Some(hint) => format!("{error}\n{hint}"),
        None => error.to_string(),
    }
}

/// A book error as the programs print it: when a book could not be opened because the file is
/// no book or is missing, with [`book_open_error`]'s advice.
pub fn book_error_text(e: &BookError) -> String {
    match e {
        BookError::NotABook { path } | BookError::Io { path, op: "open", .. } => book_open_error(path, &e.to_string()),
        _ => e.to_string(),
    }
}

fn open_book(path: &Path) -> Result<Book, String> {
    Book::open(path).map_err(|e: BookError| book_open_error(path, &e.to_string()))
}

/// Why a book of one side's moves (`--only`) has none in `pos`: the other side is to move there
/// (`it keeps only positions with black to move (built with --only black), and red is to move
/// here`); `None` when it keeps `pos`'s side. `qiku-book probe` and `qiku probe --book` say it.
pub(crate) fn other_side_only(book: &Book, pos: &qiku::Position) -> Option<String> {
    match book.header().params.only {
        SideFilter::Only(side) if side != pos.turn() => Some(format!(
            "it keeps only positions with {side} to move (built with --only {side}), and {} is to move here",
            pos.turn()
        )),
        _ => None,
    }
}

/// How `probe` prints and picks.
struct ProbeOutput {
    notation: notation::Notation,
    pick: Option<PickPolicy>,
    min_share: u32,
    seed: u64,
}

fn run_probe(path: &Path, position: &[String], json: bool, o: ProbeOutput) -> Result<(), String> {
    let ProbeOutput { notation: n, pick, min_share, seed } = o;
    let pos = super::position_args(position)?.position();
    let book = open_book(path)?;
    let moves = book.probe(&pos).map_err(|e| e.to_string())?;
    let recent = book.recent_games(&pos).map_err(|e| e.to_string())?;
    let picked = pick.and_then(|p| {
        let policy = match p {
            PickPolicy::Best => Policy::BestScore,
            PickPolicy::Games => Policy::WeightedByGames,
            PickPolicy::Score => Policy::WeightedByScore,
        };
        book::choose_with_share(&moves, policy, min_share, &mut qiku::Rng::new(seed))
    });
    let write = |m: Move| notation::format(&pos, m, n);
    let turn = match pos.turn() {
        Color::Red => "red",
        Color::Black => "black",
    };
    if json {
        let out = ProbeJson {
            fen: pos.fen(),
            turn,
            moves: moves.iter().map(|m| move_json(&pos, m, n)).collect(),
            pick: pick.map(|_| picked.map(write)),
            pick_iccs: pick.map(|_| picked.map(|m| m.to_string())),
            recent_games: recent.iter().map(recent_json).collect(),
        };
        outln!("{}", serde_json::to_string(&out).map_err(|e| e.to_string())?);
        return Ok(());
    }
    let picked = pick.map(|_| picked);
    out!("{}", probe_text(&book, &pos, &moves, &recent, n, picked));
    Ok(())
}

/// What `qiku-book probe` prints without `--json` (the demo shows the same): the FEN, then the
/// book moves of `pos` with their games and results, notes, the pick (`picked`: `None` when no
/// pick was asked for, `Some(None)` when none was made) and the recent games.
pub fn probe_text(
    book: &Book,
    pos: &Position,
    moves: &[BookMove],
    recent: &[book::RecentGame],
    n: notation::Notation,
    picked: Option<Option<Move>>,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let write = |m: Move| notation::format(pos, m, n);
    let turn = match pos.turn() {
        Color::Red => "red",
        Color::Black => "black",
    };
    let _ = writeln!(s, "{}", pos.fen());
    if moves.is_empty() {
        let _ = match other_side_only(book, pos) {
            Some(why) => writeln!(s, "not in the book: {why}"),
            None => writeln!(s, "not in the book"),
        };
        write_recent(&mut s, recent);
        return s;
    }
    let _ = writeln!(s, "red%, draw%, black%: who won the games with this move; score%: for {turn}, the side to move");
    let width = moves.iter().map(|m| display_width(&write(m.mv))).max().unwrap_or(4).max(4);
    // The Chinese column beside the moves, unless the moves are in Chinese already.
    let chinese_column = n != notation::Notation::Chinese;
    let _ = writeln!(
        s,
        "{} {}{:>8} {:>6} {:>6} {:>6} {:>6}",
        pad_display("move", width),
        if chinese_column { format!("{:<10} ", "chinese") } else { String::new() },
        "games",
        "red%",
        "draw%",
        "black%",
        "score%"
    );
    let mut merged = false;
    for m in moves {
        let c = &m.counts;
        let d = c.decided();
        let score = c.score().map(|s| format!("{:.1}", 100.0 * s)).unwrap_or_else(|| "-".into());
        let (red, black) = if pos.turn() == Color::Red { (c.wins, c.losses) } else { (c.losses, c.wins) };
        let mirror = m.merged_mirror(pos).map(|x| format!("  (with its mirror {})", write(x)));
        merged |= mirror.is_some();
        // Without a decided game there is no share to show: `-`, as for the score.
        let share = |n: u32| if d == 0 { "-".to_string() } else { format!("{:.1}", pct(n, d)) };
        let _ = writeln!(
            s,
            "{} {}{:>8} {:>6} {:>6} {:>6} {:>6}{}",
            pad_display(&write(m.mv), width),
            if chinese_column { format!("{} ", pad_display(&chinese(pos, m.mv), 10)) } else { String::new() },
            c.games(),
            share(red),
            share(c.draws),
            share(black),
            score,
            mirror.unwrap_or_default()
        );
    }
    if merged {
        let _ = writeln!(
            s,
            "(the position is its own mirror image: a move and its mirror image are one line, their games added)"
        );
    }
    let unknown: u64 = moves.iter().map(|m| u64::from(m.counts.unknown)).sum();
    if unknown > 0 {
        let _ = writeln!(s, "({unknown} games without a result count in games but not in the percentages)");
    }
    match picked {
        Some(Some(m)) => {
            let _ = writeln!(s, "pick: {}", write(m));
        }
        Some(None) => {
            let _ = writeln!(s, "pick: none");
        }
        None => {}
    }
    write_recent(&mut s, recent);
    s
}

fn side_name(only: SideFilter) -> &'static str {
    match only {
        SideFilter::Both => "both",
        SideFilter::Only(Color::Red) => "red",
        SideFilter::Only(Color::Black) => "black",
    }
}

fn run_stats(path: &Path, json: bool) -> Result<(), String> {
    let book = open_book(path)?;
    let h = book.header();
    let p = &h.params;
    if json {
        outln!(
            "{}",
            json!({
                "path": path.display().to_string(),
                "version": h.version,
                "fingerprint": format!("{:#018x}", h.fingerprint),
                "positions": h.positions,
                "records": h.records,
                "moves": h.moves,
                "games_read": h.games.read,
                "games_used": h.games.used,
                "games_without_result": h.games.without_result,
                "index_bits": h.index_bits,
                "max_ply": p.max_ply,
                "min_games": p.min_games,
                "min_score": p.min_score.fraction(),
                "only": side_name(p.only),
                "min_elo": p.min_elo,
                "keep_prefix": p.keep_prefix,
                "recent_games": h.recent_games,
                "recent_games_bytes": h.section_len,
                "body_checksum": format!("{:#018x}", h.body_checksum),
            })
        );
        return Ok(());
    }
    outln!("book          {}", path.display());
    outln!(
        "format        version {}, Zobrist fingerprint {:#018x}, checksum {:#018x} (verified)",
        h.version,
        h.fingerprint,
        h.body_checksum
    );
    outln!(
        "games         {} read, {} used, {} of them without result",
        h.games.read,
        h.games.used,
        h.games.without_result
    );
    outln!("positions     {}", h.positions);
    outln!(
        "moves         {} distinct, {} in all (distinct: different position-and-move pairs; in all: moves \
         played, each counted once per game that played it)",
        h.records,
        h.moves
    );
    outln!("index         {} buckets", 1u64 << h.index_bits);
    if h.recent_games > 0 {
        outln!("recent games  {} per position ({} bytes)", h.recent_games, h.section_len);
    } else {
        outln!("recent games  none");
    }
    outln!("built with    {}", p.flags());
    Ok(())
}

fn run_dump(path: &Path) -> Result<(), String> {
    use std::io::Write;
    let book = open_book(path)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for e in book.try_entries() {
        let e = e.map_err(|e| e.to_string())?;
        let c = e.counts;
        let r = writeln!(out, "{:016x} {} {} {} {} {}", e.key, e.mv, c.wins, c.draws, c.losses, c.unknown);
        if let Err(e) = r {
            // A closed pipe (`| head`) is dropped quietly; another error is reported at the end.
            super::stdout_error(&e);
            return Ok(());
        }
    }
    if let Err(e) = out.flush() {
        super::stdout_error(&e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("123"), Ok(123));
        assert_eq!(parse_size("64K"), Ok(65536));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn startpos_alias() {
        assert_eq!(super::super::parse_position("startpos").unwrap().fen(), Position::startpos().fen());
        assert!(super::super::parse_position("nonsense").is_err());
    }
}
