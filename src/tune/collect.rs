//! Collecting the tuner's positions from game collections: replay every game with a result,
//! keep a deterministic sample of quiet positions after the opening plies, and split the games
//! into training and validation sets (see the parent module).

use super::{trace, Params, Sample, Trace};
use crate::core::{MoveList, Position, Square};
use crate::engine::eval::{self, Value, Weights};
use crate::notation::{self, iccs, wxf, Notation};
use crate::pgn::{self, EncodingChoice, GameResult, Location, Skip, Visitor};
use crate::util::progress::Progress;
use rayon::prelude::*;
use std::fmt;
use std::path::{Path, PathBuf};

/// Settings of [`collect`].
#[derive(Clone, Debug)]
pub struct CollectOptions {
    /// Plies from the start of each game that are never used (book moves).
    pub skip_plies: u32,
    /// Keep about one position in this many (chosen by a hash of game and ply).
    pub every: u32,
    /// Percentage of games (chosen by a hash of file and game number) held out for validation.
    pub validation_percent: u32,
    /// Read at most this many games per file (0: all).
    pub max_games: u64,
    /// Depth limit (plies) of the capture search that decides whether a position is quiet.
    pub quiet_depth: u32,
    /// Keep the training positions themselves too ([`Dataset::training_positions`]), to write
    /// them out for an engine to score ([`super::scored`]).
    pub keep_positions: bool,
    /// Compute each position's trace (on by default): the fit needs it. Off, every sample's
    /// trace is empty and only its result and, with `keep_positions`, its position are of use:
    /// for writing the positions out, without the traces' time and memory.
    pub traces: bool,
}

impl Default for CollectOptions {
    fn default() -> Self {
        CollectOptions {
            skip_plies: 10,
            every: 3,
            validation_percent: 10,
            max_games: 0,
            quiet_depth: 8,
            keep_positions: false,
            traces: true,
        }
    }
}

/// The positions collected, and counts for the report.
#[derive(Debug, Default)]
pub struct Dataset {
    /// Training positions.
    pub training: Vec<Sample>,
    /// Validation positions.
    pub validation: Vec<Sample>,
    /// The validation positions themselves (to check the rounded parameters with the real
    /// evaluation), in the order of `validation`.
    pub validation_positions: Vec<Position>,
    /// The training positions, in the order of `training`, if
    /// [`CollectOptions::keep_positions`] was set (else empty).
    pub training_positions: Vec<Position>,
    /// Games read.
    pub games: u64,
    /// Games used (with a result and legal moves).
    pub games_used: u64,
    /// Games without a result (not used).
    pub without_result: u64,
    /// Games with a move that could not be read or is illegal (used up to that move).
    pub bad_moves: u64,
    /// The first few of those, as messages naming file, game, line and token.
    pub first_errors: Vec<String>,
    /// Sampled positions rejected because the side to move is in check.
    pub in_check: u64,
    /// Sampled positions rejected because a capture sequence changes the evaluation.
    pub not_quiet: u64,
    /// Sampled positions rejected because drawish material scales their evaluation (a side
    /// without attacking pieces, or with one against guards alone): the fit is linear in the
    /// evaluation's terms, and the scale multiplies them.
    pub drawish: u64,
}

/// Why positions could not be collected.
#[derive(Debug)]
pub enum TuneError {
    /// A file could not be opened or decoded.
    Open(pgn::OpenError),
    /// Reading a file failed.
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Open(e) => write!(f, "{e}"),
            TuneError::Read { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for TuneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TuneError::Open(e) => Some(e),
            TuneError::Read { source, .. } => Some(source),
        }
    }
}

/// A game as read: its start, notation, result and move tokens.
#[derive(Debug, Default)]
struct RawGame {
    number: u64,
    /// The `[FEN]` tag's value and where the tag is (a bad one is named there).
    fen: Option<(String, Location)>,
    format: Option<Notation>,
    result: Option<GameResult>,
    tokens: Vec<(String, Location)>,
}

/// Collects games of one file.
struct Games {
    games: Vec<RawGame>,
    game: RawGame,
}

impl Visitor for Games {
    fn begin_game(&mut self, loc: Location) {
        self.game = RawGame { number: loc.game, ..RawGame::default() };
    }
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        if name.eq_ignore_ascii_case("FEN") {
            self.game.fen = Some((value.to_string(), loc));
        } else if name.eq_ignore_ascii_case("Format") {
            self.game.format = value.trim().parse().ok();
        } else if name.eq_ignore_ascii_case("Result") && self.game.result.is_none() {
            // A value that is no result counts as unknown here: the game still gives positions.
            self.game.result = GameResult::from_tag(value).ok().flatten();
        }
        Skip::Continue
    }
    fn begin_variation(&mut self, _loc: Location) -> Skip {
        Skip::SkipVariation
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        self.game.tokens.push((token.to_string(), loc));
        Skip::Continue
    }
    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        if result.is_some() {
            self.game.result = result;
        }
    }
    fn end_game(&mut self, _loc: Location) {
        self.games.push(std::mem::take(&mut self.game));
    }
}

/// A 64-bit mix (splitmix64's finaliser): the deterministic "random" choices of positions and
/// of the validation games.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Is the side to move's static evaluation also its capture-search value? A null-window capture
/// search (captures ordered most valuable victim first, `depth` plies at most) that cannot beat
/// standing pat.
///
/// ```
/// use qiku::engine::eval::Weights;
/// use qiku::tune::collect::is_quiet;
/// use qiku::Position;
///
/// assert!(is_quiet(&Position::startpos(), &Weights::DEFAULT, 8));
/// // Red to move takes black's rook on a9 with its own.
/// let pos = Position::from_fen("r3k4/9/9/4p4/9/9/9/9/9/R3K4 w - - 0 1")?;
/// assert!(!is_quiet(&pos, &Weights::DEFAULT, 8));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn is_quiet(pos: &Position, w: &Weights, depth: u32) -> bool {
    let stand = eval::evaluate(pos, w);
    let mut p = pos.clone();
    capture_search(&mut p, stand, stand + 1, depth, w) <= stand
}

fn capture_search(pos: &mut Position, mut alpha: Value, beta: Value, depth: u32, w: &Weights) -> Value {
    let stand = eval::evaluate(pos, w);
    if stand >= beta || depth == 0 {
        return stand;
    }
    alpha = alpha.max(stand);
    let mut best = stand;
    let mut list = MoveList::new();
    pos.legal_captures(&mut list);
    let mut moves: Vec<_> = list.as_slice().to_vec();
    let value = |sq: Square, pos: &Position| pos.piece_at(sq).map_or(0, |p| eval::MATERIAL[p.role.index()].mg);
    moves.sort_by_key(|m| std::cmp::Reverse(value(m.to(), pos) * 16 - value(m.from(), pos) / 16));
    for m in moves {
        let undo = pos.make_move(m);
        let v = -capture_search(pos, -beta, -alpha, depth - 1, w);
        pos.unmake_move(m, undo);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if v >= beta {
                break;
            }
        }
    }
    best
}

/// What replaying one game gave.
#[derive(Default)]
struct GameOutput {
    samples: Vec<(Sample, Option<Position>)>,
    validation: bool,
    error: Option<String>,
    in_check: u64,
    not_quiet: u64,
    drawish: u64,
}

fn replay(path: &Path, file: u64, g: &RawGame, opts: &CollectOptions, params: &Params) -> GameOutput {
    let mut out = GameOutput::default();
    let Some(result) = g.result else { return out };
    let score = match result {
        GameResult::RedWins => 1.0,
        GameResult::BlackWins => 0.0,
        GameResult::Draw => 0.5,
    };
    let game_key = mix((file << 40) ^ g.number);
    out.validation = game_key % 100 < opts.validation_percent as u64;
    let mut pos = match &g.fen {
        Some((fen, loc)) => match Position::from_fen(fen) {
            Ok(p) => p,
            Err(e) => {
                // Where the tag is, as `qiku annotate` and `qiku-book build` say it.
                out.error = Some(format!(
                    "{}: game {} line {}: bad FEN tag {:?} at column {}: {e}",
                    path.display(),
                    g.number,
                    loc.line,
                    crate::util::text::excerpt(fen),
                    loc.column
                ));
                return out;
            }
        },
        None => Position::startpos(),
    };
    for (ply, (token, loc)) in g.tokens.iter().enumerate() {
        let parsed = match g.format {
            Some(Notation::Iccs) => iccs::parse(&pos, token),
            Some(Notation::Wxf) => wxf::parse(&pos, token),
            Some(Notation::Chinese) => notation::chinese::parse(&pos, token),
            None => notation::parse_any(&pos, token).map(|(m, _)| m),
        };
        let m = match parsed {
            Ok(m) => m,
            Err(e) => {
                out.error = Some(format!(
                    "{}: game {} line {}: move {:?} (ply {}): {e}",
                    path.display(),
                    g.number,
                    loc.line,
                    token,
                    ply + 1
                ));
                break;
            }
        };
        pos.make_move(m);
        let ply = ply as u64 + 1;
        if ply <= opts.skip_plies as u64
            || mix(game_key ^ ply.wrapping_mul(0x2545_F491_4F6C_DD1D)) % opts.every.max(1) as u64 != 0
        {
            continue;
        }
        if pos.is_check() {
            out.in_check += 1;
            continue;
        }
        if crate::engine::drawish::applies(&pos) {
            out.drawish += 1;
            continue;
        }
        if !is_quiet(&pos, &params.weights, opts.quiet_depth) {
            out.not_quiet += 1;
            continue;
        }
        let trace = if opts.traces { trace(&pos) } else { Trace::default() };
        let sample = Sample { trace, result: score };
        out.samples.push((sample, (out.validation || opts.keep_positions).then(|| pos.clone())));
    }
    out
}

/// Reads `files`, replays their games and returns the quiet sampled positions with traces under
/// `params` (unless [`CollectOptions::traces`] is off). Games without a result are skipped; a
/// game with an unreadable or illegal move is used up to that move and reported in
/// [`Dataset::first_errors`].
///
/// ```
/// use qiku::tune::collect::{collect, CollectOptions};
/// use qiku::tune::Params;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("games.pgn");
/// std::fs::write(&path, "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 4. b2b6 a9b9 1-0\n\n\
///                        [Result \"*\"]\n\n1. c3c4 b9c7 *\n")?;
/// let opts = CollectOptions { skip_plies: 2, every: 1, validation_percent: 0, ..CollectOptions::default() };
/// let data = collect(&[path], &opts, &Params::DEFAULT, &qiku::NoProgress)?;
/// assert_eq!((data.games, data.games_used, data.without_result), (2, 1, 1));
/// // Plies 3 to 8 of the won game: kept, or left out for a reason counted.
/// assert_eq!(data.training.len() as u64 + data.in_check + data.not_quiet + data.drawish, 6);
/// assert!(!data.training.is_empty() && data.training.iter().all(|s| s.result == 1.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn collect(
    files: &[PathBuf],
    opts: &CollectOptions,
    params: &Params,
    progress: &dyn Progress,
) -> Result<Dataset, TuneError> {
    let mut data = Dataset::default();
    for (file, path) in files.iter().enumerate() {
        let input = pgn::open(path, EncodingChoice::Auto).map_err(TuneError::Open)?;
        let mut games = Games { games: Vec::new(), game: RawGame::default() };
        let mut reader = pgn::Reader::new(input);
        progress.start("reading", 0);
        loop {
            match reader.read_game(&mut games) {
                Ok(true) => {}
                Ok(false) => break,
                Err(source) => return Err(TuneError::Read { path: path.clone(), source }),
            }
            if opts.max_games > 0 && games.games.len() as u64 >= opts.max_games {
                break;
            }
        }
        progress.finish();
        let list = games.games;
        progress.start("replaying", list.len() as u64);
        let outputs: Vec<GameOutput> = list
            .par_iter()
            .map(|g| {
                let o = replay(path, file as u64, g, opts, params);
                progress.advance(1);
                o
            })
            .collect();
        progress.finish();
        data.games += list.len() as u64;
        for (g, o) in list.iter().zip(outputs) {
            if g.result.is_none() {
                data.without_result += 1;
                continue;
            }
            data.games_used += 1;
            if let Some(e) = o.error {
                data.bad_moves += 1;
                if data.first_errors.len() < 5 {
                    data.first_errors.push(e);
                }
            }
            data.in_check += o.in_check;
            data.not_quiet += o.not_quiet;
            data.drawish += o.drawish;
            for (s, p) in o.samples {
                if o.validation {
                    data.validation.push(s);
                    if let Some(p) = p {
                        data.validation_positions.push(p);
                    }
                } else {
                    data.training.push(s);
                    if let Some(p) = p {
                        data.training_positions.push(p);
                    }
                }
            }
        }
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collect_reads_games_and_reports_bad_moves() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("games.pgn");
        let mut text = String::new();
        // Two good games with results, one without, one with an illegal move at ply 3.
        for (result, moves) in [
            ("1-0", "1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 4. b2b6 a9b9 5. b0c2 g6g5 6. a0b0 c9e7"),
            ("1/2-1/2", "1. c3c4 b9c7 2. b0c2 a9b9 3. a0b0 h9g7 4. b2b6 i9h9 5. h0g2 g6g5 6. i0h0 c9e7"),
            ("*", "1. h2e2 h9g7"),
            ("0-1", "1. h2e2 h9g7 2. e2e9 b9c7"),
        ] {
            text.push_str(&format!("[Result \"{result}\"]\n\n{moves} {result}\n\n"));
        }
        std::fs::write(&path, text).expect("write");
        let opts = CollectOptions { skip_plies: 2, every: 1, validation_percent: 0, ..CollectOptions::default() };
        let data = collect(std::slice::from_ref(&path), &opts, &Params::DEFAULT, &crate::NoProgress).expect("collect");
        assert_eq!((data.games, data.games_used, data.without_result, data.bad_moves), (4, 3, 1, 1));
        assert!(data.validation.is_empty());
        // Plies 3-12 of two games and ply 3 of none (the bad move): at most 20 positions, all
        // quiet ones kept, each with the game's result.
        let kept = data.training.len() as u64;
        assert_eq!(kept + data.in_check + data.not_quiet + data.drawish, 20, "{data:?}");
        assert!(kept > 0);
        assert!(data.training.iter().all(|s| s.result == 1.0 || s.result == 0.5));
        assert!(data.training.iter().all(|s| !s.trace.terms.is_empty()));
        // Without traces: the same positions and results, the traces empty.
        let keep = CollectOptions { keep_positions: true, ..opts.clone() };
        let with = collect(std::slice::from_ref(&path), &keep, &Params::DEFAULT, &crate::NoProgress).expect("collect");
        let without = CollectOptions { traces: false, ..keep };
        let bare =
            collect(std::slice::from_ref(&path), &without, &Params::DEFAULT, &crate::NoProgress).expect("collect");
        assert_eq!(with.training_positions.len(), data.training.len());
        assert_eq!(bare.training_positions, with.training_positions);
        let results = |d: &Dataset| d.training.iter().map(|s| s.result).collect::<Vec<_>>();
        assert_eq!(results(&bare), results(&data));
        assert!(bare.training.iter().all(|s| s.trace.terms.is_empty()));
        let e = &data.first_errors[0];
        assert!(e.contains("games.pgn") && e.contains("game 4") && e.contains("e2e9") && e.contains("line"), "{e}");
        // A missing file is an error naming it.
        let missing = dir.path().join("missing.pgn");
        let err = collect(&[missing], &opts, &Params::DEFAULT, &crate::NoProgress).expect_err("missing file");
        assert!(err.to_string().contains("missing.pgn"), "{err}");
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn quiet_filter() {
        // Start position: nothing to capture profitably.
        assert!(is_quiet(&Position::startpos(), &Weights::DEFAULT, 8));
        // Red to move, black's rook on a9 hangs to red's on a0.
        let pos = Position::from_fen("r3k4/9/9/4p4/9/9/9/9/9/R3K4 w - - 0 1").expect("fen");
        assert!(!is_quiet(&pos, &Weights::DEFAULT, 8));
    }
}
