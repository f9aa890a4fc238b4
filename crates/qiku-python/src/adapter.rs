//! The one place that names the qiku library: every type and function the bindings use comes
//! through here, so that a change of the library's paths (a module moved, a crate split off) is
//! answered in this file alone.
//!
//! Besides the re-exports it holds the few pieces of glue the library has no public function for:
//! reading a game file into replayed games ([`GameStream`]), with the notation and result rules
//! the book compiler applies to the same files.

use std::io;
use std::path::{Path, PathBuf};

pub use qiku::book::build::build_with_progress;
pub use qiku::book::{Book, BookError, BookMove, BuildError, BuildOptions, BuildReport, MinScore, Policy};
pub use qiku::book::{BuildParams, SideFilter};
pub use qiku::core::diagram::Diagram;
pub use qiku::core::game::{EndReason, Outcome};
pub use qiku::core::perft::{perft, MAX_DEPTH as PERFT_MAX_DEPTH};
pub use qiku::core::{Color, Game, Move, Piece, Position, Role, Square, START_FEN};
pub use qiku::engine::adapters::{policy as book_policy, Notes, QbkOpeningBook as QbkBook, QtbEndgames as QtbTables};
pub use qiku::engine::game_over::{game_over, reason_name};
pub use qiku::engine::search::{Shared, MAX_SKILL_LEVEL};
pub use qiku::engine::time::Limits;
pub use qiku::engine::uci::{book_info, decision_note, excerpt, MAX_HASH_MIB, MAX_THREADS};
pub use qiku::engine::{Endgames, Engine, OpeningBook, Score, Source};
pub use qiku::fs::{check_output_place, AtomicFile};
pub use qiku::notation::spec::{parse_position_spec, SpecError};
pub use qiku::notation::{chinese, iccs, parse_any, wxf, Notation, ParseMoveError as NotationError};
pub use qiku::pgn::GameResult;
pub use qiku::tablebase::generate::{generate_set, GenerateOptions, MemorySize};
pub use qiku::tablebase::{
    dead_draw_message, probe_error_message, unusable_dir_message, Material, Rules, Tablebases, TbError, TbValue,
    Verdict, Wdl,
};
pub use qiku::{check_worker_threads_env, NoProgress, Progress, Rng as BookRng, MAX_WORKER_THREADS};

/// The opening-book module (its move choice by policy).
pub mod book {
    pub use qiku::book::choose;
}

/// The Renju judge (today a module of the library; a crate of its own later).
pub mod renju {
    pub use qiku_renju::eval::{evaluate, Ruleset};
    pub use qiku_renju::gomocup::choose_move;
    pub use qiku_renju::{judge, parse_game, Board, Forbidden, Judgement, Outcome, Point, RenjuError, Stone};
}

use qiku::pgn::{EncodingChoice, Input, Location, Reader, Skip, SyntaxError, Visitor};

/// A FEN, or `startpos`, read as the command-line programs read it.
pub fn parse_position(fen: &str) -> Result<Position, String> {
    let fen = fen.trim();
    let fen = if fen.eq_ignore_ascii_case("startpos") { START_FEN } else { fen };
    Position::from_fen(fen).map_err(|e| format!("bad FEN {:?}: {e}", qiku::engine::uci::excerpt(fen)))
}

/// The encoding named by `name` (`auto`, `utf-8`, `gbk`, `big5`, any case).
pub fn encoding_choice(name: &str) -> Result<EncodingChoice, String> {
    match name.to_ascii_lowercase().replace('_', "-").as_str() {
        "auto" => Ok(EncodingChoice::Auto),
        "utf-8" | "utf8" => Ok(EncodingChoice::Utf8),
        "gbk" | "gb2312" | "gb18030" => Ok(EncodingChoice::Gbk),
        "big5" | "cp950" => Ok(EncodingChoice::Big5),
        _ => Err(format!("unknown encoding {name:?} (expected auto, utf-8, gbk or big5)")),
    }
}

/// The notation a `[Format]` tag names (`ICCS`, `WXF`, `Chinese`), if any.
fn notation_of(format: Option<&str>) -> Option<Notation> {
    format.and_then(|f| f.trim().parse::<Notation>().ok())
}

/// Reads a move written in `notation`, or in whichever notation its shape says when `None`.
pub fn parse_move_in(pos: &Position, token: &str, notation: Option<Notation>) -> Result<Move, NotationError> {
    match notation {
        Some(Notation::Iccs) => iccs::parse(pos, token),
        Some(Notation::Wxf) => wxf::parse(pos, token),
        Some(Notation::Chinese) => chinese::parse(pos, token),
        None => parse_any(pos, token).map(|(m, _)| m),
    }
}

/// A game's result as the bindings write it (`1-0`, `0-1`, `1/2-1/2`, or `*` for unknown: `None`),
/// read as a `[Result]` tag is; an error quoting anything else.
pub fn parse_result(text: &str) -> Result<Option<GameResult>, String> {
    GameResult::from_tag(text).map_err(|bad| bad.to_string())
}

/// One game as read and replayed: the moves up to the first that could not be read or played.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// The file the game came from.
    pub path: PathBuf,
    /// 1-based number of the game in its file.
    pub number: u64,
    /// Tag pairs in file order.
    pub headers: Vec<(String, String)>,
    /// The start position (the `[FEN]` tag's, or the standard one); `None` when the `[FEN]` tag
    /// cannot be read (then no move is replayed, and `errors` says why).
    pub start: Option<Position>,
    /// The moves replayed, all legal.
    pub moves: Vec<Move>,
    /// The game's result: the `[Result]` tag when it states one, else the movetext's.
    pub result: Option<GameResult>,
    /// What went wrong in this game (a syntax error, a bad FEN or result tag, a move that could
    /// not be read or played), each with the file, line and column.
    pub errors: Vec<String>,
}

/// Collects one game's tags and move tokens.
#[derive(Default)]
struct Collector {
    number: u64,
    headers: Vec<(String, String)>,
    /// Where each of `headers` is: a bad tag is named at its own line.
    header_locs: Vec<Location>,
    tokens: Vec<(String, Location)>,
    outcome: Option<Option<GameResult>>,
    error: Option<SyntaxError>,
    /// The input ended in the game's movetext, before its result token: where.
    cut_short: Option<Location>,
    done: bool,
}

impl Visitor for Collector {
    fn begin_game(&mut self, loc: Location) {
        self.number = loc.game;
    }
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        self.headers.push((name.to_string(), value.to_string()));
        self.header_locs.push(loc);
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        self.tokens.push((token.to_string(), loc));
        Skip::Continue
    }
    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        self.outcome = Some(result);
    }
    fn malformed(&mut self, error: &SyntaxError) {
        self.error = Some(error.clone());
    }
    fn cut_short(&mut self, loc: Location) {
        self.cut_short = Some(loc);
    }
    fn end_game(&mut self, _loc: Location) {
        self.done = true;
    }
}

impl Collector {
    /// Replays the collected game.
    fn replay(self, path: &Path) -> GameRecord {
        let name = path.display();
        let mut errors = Vec::new();
        if let Some(e) = &self.error {
            errors.push(format!("{name}: {e}"));
        }
        if let Some(at) = &self.cut_short {
            errors.push(format!("{name}: {at}: {CUT_SHORT}"));
        }
        // A tag given twice counts with its last value, as in `Game.headers` and the book compiler.
        // With its place: the tag's own (game, line, column), as the syntax and move errors say.
        let tag_at = |n: &str| {
            let i = self.headers.iter().rposition(|(k, _)| k.eq_ignore_ascii_case(n))?;
            let loc = self.header_locs.get(i).copied().unwrap_or(Location::new(self.number, 0, 0));
            self.headers.get(i).map(|(_, v)| (v.as_str(), loc))
        };
        let tag = |n: &str| tag_at(n).map(|(v, _)| v);
        let start = match tag_at("FEN") {
            Some((fen, loc)) => match Position::from_fen(fen.trim()) {
                Ok(p) => Some(p),
                Err(e) => {
                    errors.push(format!("{name}: {loc}: bad FEN tag {:?}: {e}", qiku::engine::uci::excerpt(fen)));
                    None
                }
            },
            None => Some(Position::startpos()),
        };
        let result = match tag_at("Result").map(|(v, loc)| (GameResult::from_tag(v), loc)) {
            Some((Ok(Some(r)), _)) => Some(r),
            Some((Err(bad), loc)) => {
                errors.push(format!("{name}: {loc}: {bad}"));
                self.outcome.flatten()
            }
            _ => self.outcome.flatten(),
        };
        let notation = notation_of(tag("Format"));
        let mut moves = Vec::with_capacity(self.tokens.len());
        if let Some(mut pos) = start.clone() {
            for (token, loc) in &self.tokens {
                match parse_move_in(&pos, token, notation) {
                    Ok(m) => {
                        moves.push(m);
                        pos.make_move(m);
                    }
                    Err(e) => {
                        errors.push(format!("{name}: {loc}: {e}"));
                        break;
                    }
                }
            }
        }
        GameRecord {
            path: path.to_path_buf(),
            number: self.number,
            headers: self.headers,
            start,
            moves,
            result,
            errors,
        }
    }
}

/// The error of a game the input ended in, before its result token.
const CUT_SHORT: &str =
    "cut short: the input ends in this game, before its result token (the file is truncated or damaged here)";

/// Why a game file could not be read.
#[derive(Debug)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong, naming the file.
    pub message: String,
    /// The operating system's error number, when the cause is one (a missing file: 2).
    pub errno: Option<i32>,
}

/// Games from a list of files and directories (a directory stands for the game files under it),
/// one at a time: PGN in any notation and encoding, `.zst`-compressed or not, and XQF.
pub struct GameStream {
    files: Vec<PathBuf>,
    next_file: usize,
    encoding: EncodingChoice,
    reader: Option<(PathBuf, Reader<Input>)>,
}

impl GameStream {
    /// Lists the files now; each is opened when its turn comes.
    pub fn new(inputs: &[PathBuf], encoding: EncodingChoice) -> Result<GameStream, FileError> {
        let files = qiku::xqf::expand_inputs(inputs).map_err(|(path, e)| FileError {
            message: format!("{}: cannot list the directory: {e}", path.display()),
            path,
            errno: e.raw_os_error(),
        })?;
        Ok(GameStream { files, next_file: 0, encoding, reader: None })
    }

    /// The next game, `Ok(None)` at the end of the last file.
    pub fn next_game(&mut self) -> Result<Option<GameRecord>, FileError> {
        loop {
            if let Some((path, reader)) = &mut self.reader {
                let mut c = Collector::default();
                let more = reader.read_game(&mut c).map_err(|e| {
                    // The reader's errors name the file already (a truncated zstd stream, say).
                    let message = e.to_string();
                    let named = format!("{}: ", path.display());
                    FileError {
                        path: path.clone(),
                        message: if message.starts_with(&named) { message } else { format!("{named}{message}") },
                        errno: e.raw_os_error(),
                    }
                })?;
                if more && c.done {
                    return Ok(Some(c.replay(path)));
                }
                self.reader = None;
            }
            let Some(path) = self.files.get(self.next_file).cloned() else { return Ok(None) };
            self.next_file += 1;
            if qiku::xqf::is_xqf_path(&path) {
                return Ok(Some(read_xqf(&path)?));
            }
            let input = qiku::pgn::open(&path, self.encoding).map_err(|e| FileError {
                path: path.clone(),
                message: e.to_string(),
                errno: e.io_error().raw_os_error(),
            })?;
            self.reader = Some((path, Reader::new(input)));
        }
    }
}

/// One XQF file as a game record (illegal moves end the game with an error, as in PGN).
fn read_xqf(path: &Path) -> Result<GameRecord, FileError> {
    let g = qiku::xqf::read(path).map_err(|e| FileError {
        path: path.to_path_buf(),
        message: e.to_string(),
        errno: match &e {
            qiku::xqf::XqfError::Io { source, .. } => source.raw_os_error(),
            qiku::xqf::XqfError::Format { .. } => None,
        },
    })?;
    let mut headers: Vec<(String, String)> = g.tags.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    headers.push(("FEN".to_string(), g.start.fen()));
    if let Some(r) = g.result {
        headers.push(("Result".to_string(), r.as_str().to_string()));
    }
    let mut pos = g.start.clone();
    let mut moves = Vec::with_capacity(g.moves.len());
    let mut errors = Vec::new();
    for (i, &m) in g.moves.iter().enumerate() {
        if !pos.is_legal(m) {
            errors.push(format!("{}: move {} ({m}) is illegal in {}", path.display(), i + 1, pos.fen()));
            break;
        }
        pos.make_move(m);
        moves.push(m);
    }
    Ok(GameRecord {
        path: path.to_path_buf(),
        number: 1,
        headers,
        start: Some(g.start),
        moves,
        result: g.result,
        errors,
    })
}

/// The io error behind a tablebase error, for the Python exception's errno.
pub fn tb_error_io(e: &TbError) -> Option<&io::Error> {
    match e {
        TbError::Io { source, .. } => Some(source),
        _ => None,
    }
}

/// The file a book error is about, for the Python exception's `filename`.
pub fn book_error_path(e: &BookError) -> Option<&Path> {
    match e {
        BookError::Io { path, .. }
        | BookError::Write { output: path, .. }
        | BookError::Spill { output: path, .. }
        | BookError::NotABook { path }
        | BookError::Version { path, .. }
        | BookError::Fingerprint { path, .. }
        | BookError::Truncated { path, .. }
        | BookError::Corrupt { path, .. }
        | BookError::Incompatible { path, .. } => Some(path),
        _ => None,
    }
}

/// The io error kind behind a book error, for the Python exception's errno.
pub fn book_error_io(e: &BookError) -> Option<&io::Error> {
    match e {
        BookError::Io { source, .. } | BookError::Write { source, .. } | BookError::Spill { source, .. } => {
            Some(source)
        }
        _ => None,
    }
}

/// The file a build error is about (the input that could not be read, the output that could
/// not be written), for the Python exception's `filename`.
pub fn build_error_path(e: &BuildError) -> Option<&Path> {
    match e {
        BuildError::Io { path, .. } => Some(path),
        BuildError::NotText(e) => Some(e.path()),
        BuildError::Book(e) => book_error_path(e),
        _ => None,
    }
}

/// The io error behind a build error, for the Python exception's errno (a file that is not
/// text has none: its io error is the reader's, not the system's).
pub fn build_error_io(e: &BuildError) -> Option<&io::Error> {
    match e {
        BuildError::Io { source, .. } => Some(source),
        BuildError::Book(e) => book_error_io(e),
        _ => None,
    }
}
