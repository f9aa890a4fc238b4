//! From text to records, in two steps so that the expensive one runs in parallel:
//! 1. [`Collector`], a [`Visitor`] on a file's reader thread, copies each game's few relevant
//!    tags and its move tokens (with their locations) into a [`Batch`] — cheap, sequential;
//! 2. [`replay_batch`], on the rayon pool, replays each game on a [`Position`] (reading each
//!    token in the game's notation), applies the game-level filters and emits one packed record
//!    per ply: canonical key, stored move, outcome for the side to move.

use super::filter::{GameDate, GameFilter, GameTags};
use super::format::BuildParams;
use super::recent::{fingerprint, Ref, StoredGame};
use super::record::{canonical_key, store_move, MoverResult, Raw};
use super::report::{GameError, SkipReason};
use crate::core::{Move, Position};
use crate::notation::{self, chinese, iccs, wxf, Notation, ParseMoveError};
use crate::pgn::{ErrorKind, GameResult, Location, Skip, SyntaxError, Visitor};
use std::path::Path;

/// Games per batch: large enough to amortise scheduling, small enough to spread over threads.
pub(crate) const BATCH_GAMES: usize = 256;

/// Where a move token sits in a batch's text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TokenRef {
    start: u32,
    end: u32,
    loc: Location,
}

/// A tag value and where it was.
#[derive(Clone, Debug)]
pub(crate) struct TagValue {
    value: String,
    loc: Location,
}

/// One game as read, before replay.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawGame {
    pub(crate) number: u64,
    fen: Option<TagValue>,
    format: Option<TagValue>,
    result_tag: Option<TagValue>,
    red_elo: Option<TagValue>,
    black_elo: Option<TagValue>,
    red: Option<TagValue>,
    black: Option<TagValue>,
    event: Option<TagValue>,
    date: Option<TagValue>,
    ecco: Option<TagValue>,
    tokens: std::ops::Range<usize>,
    /// The movetext result token: `Some(None)` for `*`.
    outcome: Option<Option<GameResult>>,
    /// A syntax error from the reader, and whether it happened in the movetext.
    error: Option<(SyntaxError, bool)>,
    /// The input ended in the movetext, before the result token: where.
    cut_short: Option<Location>,
}

/// Games of one file, in file order.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub(crate) file: usize,
    pub(crate) games: Vec<RawGame>,
    text: String,
    tokens: Vec<TokenRef>,
}

impl Batch {
    fn token(&self, t: &TokenRef) -> &str {
        self.text.get(t.start as usize..t.end as usize).unwrap_or("")
    }
}

/// Collects games into batches and hands each full batch to `emit`.
pub(crate) struct Collector<F: FnMut(Batch) -> bool> {
    file: usize,
    batch: Batch,
    game: RawGame,
    in_movetext: bool,
    /// Tokens beyond this many are not kept (the game is still checked by the reader).
    max_tokens: usize,
    emit: F,
    /// `emit` returned false: the consumer is gone, stop reading.
    pub(crate) stopped: bool,
    /// The first `[Format]` tag whose value names no notation, and how many games had one.
    unknown_format: Option<(String, Location)>,
    unknown_formats: u64,
}

impl<F: FnMut(Batch) -> bool> Collector<F> {
    pub(crate) fn new(file: usize, max_tokens: usize, emit: F) -> Self {
        Collector {
            file,
            batch: Batch { file, ..Batch::default() },
            game: RawGame::default(),
            in_movetext: false,
            max_tokens,
            emit,
            stopped: false,
            unknown_format: None,
            unknown_formats: 0,
        }
    }

    /// What the file's games had that was worked around rather than refused, each said once for
    /// the file: a `[Format]` tag that names no notation (its games' moves are read by their
    /// shape).
    pub(crate) fn warnings(&self) -> Vec<String> {
        let Some((value, at)) = &self.unknown_format else { return Vec::new() };
        let others = match self.unknown_formats {
            0 | 1 => String::new(),
            n => format!(" ({n} such tags in the file; this is the first)"),
        };
        vec![format!(
            "game {}, line {}: [Format {value:?}] names no notation qiku reads (ICCS, WXF or Chinese); the game's \
             moves are read each in the notation its shape shows, as without the tag{others}",
            at.game, at.line
        )]
    }

    /// Hands over the last, partial batch.
    pub(crate) fn flush(&mut self) {
        if !self.batch.games.is_empty() && !self.stopped {
            let batch = std::mem::replace(&mut self.batch, Batch { file: self.file, ..Batch::default() });
            self.stopped = !(self.emit)(batch);
        }
    }
}

impl<F: FnMut(Batch) -> bool> Visitor for Collector<F> {
    fn begin_game(&mut self, loc: Location) {
        let at = self.batch.tokens.len();
        self.game = RawGame { number: loc.game, tokens: at..at, ..RawGame::default() };
        self.in_movetext = false;
    }

    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        let slot = if name.eq_ignore_ascii_case("FEN") {
            &mut self.game.fen
        } else if name.eq_ignore_ascii_case("Result") {
            &mut self.game.result_tag
        } else if name.eq_ignore_ascii_case("Format") {
            let named = value.trim();
            if !named.is_empty() && named.parse::<Notation>().is_err() {
                self.unknown_formats += 1;
                if self.unknown_format.is_none() {
                    self.unknown_format = Some((value.to_string(), loc));
                }
            }
            &mut self.game.format
        } else if name.eq_ignore_ascii_case("RedElo") {
            &mut self.game.red_elo
        } else if name.eq_ignore_ascii_case("BlackElo") {
            &mut self.game.black_elo
        } else if name.eq_ignore_ascii_case("Red") {
            &mut self.game.red
        } else if name.eq_ignore_ascii_case("Black") {
            &mut self.game.black
        } else if name.eq_ignore_ascii_case("Event") {
            &mut self.game.event
        } else if name.eq_ignore_ascii_case("Date") {
            &mut self.game.date
        } else if name.eq_ignore_ascii_case("ECCO") {
            &mut self.game.ecco
        } else {
            return Skip::Continue;
        };
        *slot = Some(TagValue { value: value.to_string(), loc });
        Skip::Continue
    }

    fn begin_movetext(&mut self, _loc: Location) -> Skip {
        self.in_movetext = true;
        Skip::Continue
    }

    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        if self.batch.tokens.len() - self.game.tokens.start >= self.max_tokens {
            return Skip::Continue;
        }
        let start = self.batch.text.len();
        self.batch.text.push_str(token);
        // Batches are a few hundred kilobytes; u32 offsets are plenty (a giant token would
        // only be cut short, and then fail to parse as a move).
        let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        self.batch.tokens.push(TokenRef { start: clamp(start), end: clamp(self.batch.text.len()), loc });
        Skip::Continue
    }

    fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
        self.game.outcome = Some(result);
    }

    fn malformed(&mut self, error: &SyntaxError) {
        self.game.error = Some((error.clone(), self.in_movetext));
    }

    fn cut_short(&mut self, loc: Location) {
        self.game.cut_short = Some(loc);
    }

    fn end_game(&mut self, _loc: Location) {
        self.game.tokens.end = self.batch.tokens.len();
        self.batch.games.push(std::mem::take(&mut self.game));
        if self.batch.games.len() >= BATCH_GAMES && !self.stopped {
            let batch = std::mem::replace(&mut self.batch, Batch { file: self.file, ..Batch::default() });
            self.stopped = !(self.emit)(batch);
        }
    }
}

/// What replaying a batch produced.
#[derive(Debug, Default)]
pub(crate) struct BatchOutput {
    pub(crate) records: Vec<Raw>,
    pub(crate) used: u64,
    pub(crate) without_result: u64,
    /// Used games that lost their moves after a bad one (`--keep-prefix`).
    pub(crate) truncated: u64,
    /// Games the input ended in (used with `--keep-prefix`, else skipped).
    pub(crate) cut_short: u64,
    /// Of those, the ones used (`--keep-prefix`).
    pub(crate) cut_short_used: u64,
    pub(crate) skipped: Vec<(SkipReason, u64)>,
    /// Of the games skipped for a malformed header, those whose tags are not valid UTF-8 (text
    /// read in the wrong encoding).
    pub(crate) undecodable_headers: u64,
    pub(crate) errors: Vec<GameError>,
    /// Stored bytes of used games, by fingerprint (with recent games only).
    pub(crate) games: Vec<(u64, Vec<u8>)>,
    /// (position, game) references of used games (with recent games only).
    pub(crate) refs: Vec<Ref>,
}

/// What the replay needs beyond the stored parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReplayContext<'a> {
    pub(crate) params: &'a BuildParams,
    pub(crate) filter: &'a GameFilter,
    /// Keep each used game's bytes and positions for the recent-games section.
    pub(crate) recent: bool,
}

impl BatchOutput {
    fn skip(&mut self, reason: SkipReason) {
        match self.skipped.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => self.skipped.push((reason, 1)),
        }
    }
}

/// The notation a game's `[Format]` tag names (`ICCS`, `WXF`, `Chinese`, any case); `None`
/// (no tag, or another value): detected from each token's shape.
fn notation_of(format: Option<&TagValue>) -> Option<Notation> {
    format.and_then(|t| t.value.trim().parse::<Notation>().ok())
}

/// Reads one move token in `pos`.
fn parse_move(pos: &Position, token: &str, notation: Option<Notation>) -> Result<Move, ParseMoveError> {
    match notation {
        Some(Notation::Iccs) => iccs::parse(pos, token),
        Some(Notation::Wxf) => wxf::parse(pos, token),
        Some(Notation::Chinese) => chinese::parse(pos, token),
        None => notation::parse_any(pos, token).map(|(m, _)| m),
    }
}

/// Why `token` could not be read in `pos`: with no `[Format]` tag naming the notation and a token
/// that fits none, each ASCII notation tried and why (as a position's moves on the command line
/// are explained), since its shape alone may have suggested the wrong one; else `e`.
fn unreadable(pos: &Position, token: &str, notation: Option<Notation>, e: &ParseMoveError) -> String {
    if notation.is_none() && matches!(e, ParseMoveError::Syntax { .. }) {
        if let Err(tried) = notation::spec::read_move(pos, token) {
            if tried.len() > 1 && tried.iter().all(|(_, e)| matches!(e, ParseMoveError::Syntax { .. })) {
                return format!("cannot read move {token:?}: {}", notation::spec::tried_reasons(&tried));
            }
        }
    }
    e.to_string()
}

/// `token` read as an ICCS move whose ranks count 1 to 10 (`h3e3`, `h10g8`, as some programs
/// write them), if that is a legal move in `pos`: the ICCS spelling of it.
fn ranks_from_one(pos: &Position, token: &str) -> Option<String> {
    let m = iccs::parse_coords(&notation::without_marks(token.trim()).replace('-', ""), true)?;
    pos.is_legal(m).then(|| m.to_string())
}

/// Replays every game of `batch` into records.
pub(crate) fn replay_batch(batch: &Batch, path: &Path, ctx: &ReplayContext<'_>) -> BatchOutput {
    let mut out = BatchOutput::default();
    for game in &batch.games {
        replay_game(batch, game, path, ctx, &mut out);
    }
    out
}

fn tag(t: &Option<TagValue>) -> &str {
    t.as_ref().map_or("", |t| t.value.as_str())
}

fn replay_game(batch: &Batch, game: &RawGame, path: &Path, ctx: &ReplayContext<'_>, out: &mut BatchOutput) {
    let params = ctx.params;
    let error = |loc: Location, token: Option<&str>, reason: SkipReason, detail: String| GameError {
        file: path.to_path_buf(),
        game: game.number,
        line: loc.line,
        column: loc.column,
        token: token.map(str::to_string),
        reason,
        detail,
    };
    // A broken tag section: the game is unusable whatever the options. (A line or comment over
    // the length limit is a syntax error wherever it is: it may be movetext the reader had not
    // recognised yet.)
    let oversized = |e: &SyntaxError| matches!(e.kind, ErrorKind::LineTooLong | ErrorKind::CommentTooLong);
    if let Some((e, false)) = game.error.as_ref().filter(|(e, _)| !oversized(e)) {
        out.skip(SkipReason::BadHeader);
        if e.kind == ErrorKind::InvalidUtf8 {
            out.undecodable_headers += 1;
        }
        out.errors.push(error(e.location, None, SkipReason::BadHeader, e.kind.to_string() + &snippet_suffix(e)));
        return;
    }
    let tags = GameTags {
        red: tag(&game.red),
        black: tag(&game.black),
        event: tag(&game.event),
        date: tag(&game.date),
        ecco: tag(&game.ecco),
    };
    if let Some(miss) = ctx.filter.check(&tags) {
        out.skip(SkipReason::Filtered(miss));
        return;
    }
    let result = match game.result_tag.as_ref().map(|t| (GameResult::from_tag(&t.value), t)) {
        Some((Err(bad), t)) => {
            out.skip(SkipReason::BadHeader);
            out.errors.push(error(t.loc, None, SkipReason::BadHeader, bad.to_string()));
            return;
        }
        Some((Ok(Some(r)), _)) => Some(r),
        _ => game.outcome.flatten(),
    };
    if let Some(min) = params.min_elo {
        // An empty value, or the PGN standard's `-` (unrated) or `?` (unknown), is no rating:
        // as if the tag were not there.
        fn elo(t: &Option<TagValue>) -> Option<(Result<u32, std::num::ParseIntError>, &TagValue)> {
            let rated = |t: &&TagValue| !matches!(t.value.trim(), "" | "-" | "?");
            t.as_ref().filter(rated).map(|t| (t.value.trim().parse::<u32>(), t))
        }
        match (elo(&game.red_elo), elo(&game.black_elo)) {
            (Some((Ok(r), _)), Some((Ok(b), _))) => {
                if r < min || b < min {
                    out.skip(SkipReason::BelowMinElo);
                    return;
                }
            }
            (Some((Err(e), t)), _) | (_, Some((Err(e), t))) => {
                out.skip(SkipReason::BadHeader);
                let detail = match e.kind() {
                    std::num::IntErrorKind::PosOverflow => {
                        format!("Elo tag {:?} is too large to be a rating (at most {})", t.value, u32::MAX)
                    }
                    _ => format!("Elo tag {:?} is not a number", t.value),
                };
                out.errors.push(error(t.loc, None, SkipReason::BadHeader, detail));
                return;
            }
            _ => {
                out.skip(SkipReason::NoElo);
                return;
            }
        }
    }
    let mut pos = match &game.fen {
        None => Position::startpos(),
        Some(t) => match Position::from_fen(t.value.trim()) {
            Ok(p) => p,
            Err(e) => {
                out.skip(SkipReason::BadHeader);
                out.errors.push(error(t.loc, None, SkipReason::BadHeader, format!("FEN tag {:?}: {e}", t.value)));
                return;
            }
        },
    };
    // A game the input ended in is incomplete, as one stopped by a bad move is: skipped, unless
    // `--keep-prefix` keeps the moves it has (up to a last token the cut made unreadable).
    if let Some(at) = game.cut_short {
        out.cut_short += 1;
        if !params.keep_prefix {
            let reason = SkipReason::CutShort;
            out.skip(reason);
            out.errors.push(error(at, None, reason, CUT_SHORT.to_string()));
            return;
        }
    }
    let start = ctx.recent.then(|| pos.clone());
    let mut moves: Vec<Move> = Vec::new();
    let mut keys: Vec<u64> = Vec::new();
    let notation = notation_of(game.format.as_ref());
    let first_record = out.records.len();
    let tokens = batch.tokens.get(game.tokens.clone()).unwrap_or(&[]);
    let mut played = 0usize;
    // The reason of a bad move or syntax error after which `--keep-prefix` kept the moves.
    let mut truncated: Option<SkipReason> = None;
    for (ply, t) in tokens.iter().enumerate() {
        let token = batch.token(t);
        let m = match parse_move(&pos, token, notation) {
            Ok(m) => m,
            Err(e) => {
                let reason = SkipReason::BadMove((&e).into());
                let detail = match ranks_from_one(&pos, token) {
                    Some(zero_based) => format!(
                        "{e} (with ranks counted 1 to 10 it is the legal move {zero_based}: ICCS counts ranks 0 to 9, \
                         so the file's moves need their ranks lowered by one)"
                    ),
                    None => unreadable(&pos, token, notation, &e),
                };
                out.errors.push(error(t.loc, Some(token), reason, detail));
                if params.keep_prefix {
                    truncated = Some(reason);
                    break;
                }
                out.records.truncate(first_record);
                out.skip(reason);
                return;
            }
        };
        if (ply as u64) < u64::from(params.max_ply) && params.only.keeps(pos.turn()) {
            let (key, orientation) = canonical_key(&pos);
            out.records.push(Raw::new(key, store_move(orientation, m), MoverResult::for_side(result, pos.turn())));
            if ctx.recent {
                keys.push(key);
            }
        }
        if ctx.recent {
            moves.push(m);
        }
        pos.make_move(m);
        played += 1;
    }
    if let (Some((e, _)), None) =
        (game.error.as_ref().filter(|(e, in_movetext)| *in_movetext || oversized(e)), truncated)
    {
        let reason = SkipReason::Syntax;
        out.errors.push(error(e.location, None, reason, e.kind.to_string() + &snippet_suffix(e)));
        if !params.keep_prefix {
            out.records.truncate(first_record);
            out.skip(reason);
            return;
        }
        truncated = Some(reason);
    }
    if played == 0 {
        out.skip(truncated.unwrap_or(SkipReason::NoMoves));
        return;
    }
    out.used += 1;
    out.truncated += u64::from(truncated.is_some());
    out.cut_short_used += u64::from(game.cut_short.is_some());
    out.without_result += u64::from(result.is_none());
    if let Some(start) = start {
        let fen = if game.fen.is_some() && start != Position::startpos() { start.fen() } else { String::new() };
        let date_key = GameDate::parse(tags.date).map_or(0, GameDate::key);
        let stored = StoredGame {
            date_key,
            result,
            red: tags.red.to_string(),
            black: tags.black.to_string(),
            event: tags.event.to_string(),
            date: tags.date.to_string(),
            ecco: tags.ecco.to_string(),
            fen,
            moves,
        };
        let bytes = stored.encode();
        let id = fingerprint(&bytes);
        keys.sort_unstable();
        keys.dedup();
        let rank = StoredGame::rank(date_key);
        out.refs.extend(keys.into_iter().map(|key| Ref { key, rank, id }));
        out.games.push((id, bytes));
    }
}

/// The message for a game the input ended in.
const CUT_SHORT: &str =
    "the input ends in this game, before its result token: the file is cut short or damaged here; its moves are left \
     out (--keep-prefix keeps them)";

fn snippet_suffix(e: &SyntaxError) -> String {
    if e.snippet.is_empty() {
        String::new()
    } else {
        format!(" near `{}`", e.snippet)
    }
}
