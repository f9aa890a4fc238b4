//! The JSON API: `/api/explore`, `/api/game`, `/api/tablebase`, `/api/analyze`, `/api/tables`,
//! `/api/tables/{material}` and `/api/info` (documented in docs/SERVE.md), and the ChessDB
//! endpoint's handler.

use crate::adapter::{self, BookCounts, GameOver, MoveNames, Mv, Played, Pos, TableRules, TableValue};
use crate::{chessdb, AppState};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// Longest FEN accepted (a real one is under 100 bytes).
pub const MAX_FEN: usize = 200;
/// Most moves accepted in a `moves` parameter.
pub const MAX_MOVES: usize = 600;
/// Recent games listed per position.
const RECENT_GAMES: usize = 8;

/// An API error: a status and a message, sent as `{"error": "..."}`.
///
/// ```
/// let err = qiku_serve::api::params(Some("fen=1&fen=2")).unwrap_err();
/// assert_eq!((err.0.as_u16(), err.1.as_str()), (400, "parameter `fen` is given twice"));
/// ```
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

fn internal(msg: impl Into<String>) -> ApiError {
    let msg = msg.into();
    eprintln!("qiku serve: {msg}");
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, msg)
}

/// A query's parameters, decoded, and where a `+` of the URL became a space.
///
/// ```
/// let p = qiku_serve::api::params(Some("moves=H2%2B3+h9g7&fen="))?;
/// assert_eq!(p.get("moves").map(String::as_str), Some("H2+3 h9g7"));
/// assert_eq!((p.get("fen").map(String::as_str), p.get("rules")), (Some(""), None));
/// # Ok::<(), qiku_serve::api::ApiError>(())
/// ```
#[derive(Debug, Default)]
pub struct Params {
    values: HashMap<String, String>,
    /// Per parameter, the byte offsets in its decoded value of the spaces that were a `+`.
    pluses: HashMap<String, Vec<usize>>,
}

impl Params {
    /// The decoded value of parameter `name`.
    ///
    /// ```
    /// let p = qiku_serve::api::params(Some("n=0&moves=%E7%82%AE%E4%BA%8C%E5%B9%B3%E4%BA%94"))?;
    /// assert_eq!(p.get("moves").map(String::as_str), Some("炮二平五"));
    /// # Ok::<(), qiku_serve::api::ApiError>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<&String> {
        self.values.get(name)
    }

    /// Was the byte at `at` of parameter `name`'s value a `+` in the URL (now a space)?
    fn was_plus(&self, name: &str, at: usize) -> bool {
        self.pluses.get(name).is_some_and(|p| p.contains(&at))
    }
}

/// Decodes a query string into its parameters. An invalid percent-encoding of UTF-8 or a
/// repeated parameter is a 400 naming it.
///
/// ```
/// use qiku_serve::api::params;
///
/// assert_eq!(params(Some("moves=h2e2+h9g7"))?.get("moves").map(String::as_str), Some("h2e2 h9g7"));
/// assert!(params(None)?.get("fen").is_none());
/// let err = params(Some("fen=%FF")).unwrap_err();
/// assert_eq!((err.0.as_u16(), err.1.as_str()), (400, "parameter `fen` is not valid percent-encoded UTF-8"));
/// # Ok::<(), qiku_serve::api::ApiError>(())
/// ```
pub fn params(raw: Option<&str>) -> Result<Params, ApiError> {
    let mut out = Params::default();
    let Some(raw) = raw else { return Ok(out) };
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, _) = decode(k).ok_or_else(|| bad("a parameter name is not valid percent-encoded UTF-8"))?;
        let (v, pluses) =
            decode(v).ok_or_else(|| bad(format!("parameter `{k}` is not valid percent-encoded UTF-8")))?;
        if out.values.insert(k.clone(), v).is_some() {
            return Err(bad(format!("parameter `{k}` is given twice")));
        }
        out.pluses.insert(k, pluses);
    }
    Ok(out)
}

/// Percent-decoding with `+` as a space, and the byte offsets of those spaces; `None` for a bad
/// escape or invalid UTF-8.
fn decode(s: &str) -> Option<(String, Vec<usize>)> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut pluses = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                out.push(hex_byte(b.get(i + 1..i + 3)?)?);
                i += 3;
            }
            b'+' => {
                pluses.push(out.len());
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Some((String::from_utf8(out).ok()?, pluses))
}

/// The byte two hex digits after a `%` stand for; `None` unless both are hex digits (`%+5` is not
/// an escape, though Rust's number parser would take `+5` for 5).
fn hex_byte(two: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16);
    match two {
        &[hi, lo] => Some((digit(hi)? * 16 + digit(lo)?) as u8),
        _ => None,
    }
}

/// What `fen` and `moves` take, for the errors about them.
const POSITION_SYNTAX: &str = "`fen` is a FEN (rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1) \
     or `startpos`, and `moves` the moves played from it, separated by spaces or commas \
     (fen=startpos&moves=h2e2 h9g7)";

/// The position named by `fen` (default: the start position) and `moves`, with the moves' names
/// (see [`game_of`]).
///
/// ```
/// use qiku_serve::{adapter::fen_of, api::{params, position_of}};
///
/// let (pos, played) = position_of(&params(Some("moves=C2.5,%E9%A6%AC8%E9%80%B27"))?)?;
/// assert_eq!(fen_of(&pos), "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
/// assert_eq!((played[0].iccs.as_str(), played[1].iccs.as_str()), ("h2e2", "h9g7"));
/// # Ok::<(), qiku_serve::api::ApiError>(())
/// ```
pub fn position_of(p: &Params) -> Result<(Pos, Vec<MoveNames>), ApiError> {
    game_of(p).map(|(game, played)| (adapter::position(&game).clone(), played))
}

/// The game from `fen` (default: the start position) through `moves` (any notation, separated by
/// spaces or commas), with the moves' names: the position with its history, so that the rules
/// judge repetitions and the 120-ply limit as `qiku analyze` does. Errors name the bad part: a
/// bad move by its index in `moves`, its text and the position (FEN) it was tried in.
///
/// ```
/// use qiku_serve::{adapter::game_over, api::{game_of, params}};
///
/// let (game, _) = game_of(&params(Some("moves=h0g2+h9g7+g2h0+g7h9+h0g2+h9g7+g2h0+g7h9"))?)?;
/// assert_eq!(game_over(&game).map(|g| g.text), Some("draw by threefold repetition".to_string()));
/// let err = game_of(&params(Some("moves=h2e2+h2e2"))?).unwrap_err();
/// assert!(err.1.starts_with("moves[1] in rnbakabnr/"), "{}", err.1);
/// # Ok::<(), qiku_serve::api::ApiError>(())
/// ```
pub fn game_of(p: &Params) -> Result<(Played, Vec<MoveNames>), ApiError> {
    let fen = p.get("fen").map(String::as_str).unwrap_or("");
    if fen.len() > MAX_FEN {
        return Err(bad(format!("fen is {} bytes long; a FEN has at most {MAX_FEN}", fen.len())));
    }
    // `startpos moves h2e2` (a UCI engine's `position` command) or a FEN followed by moves.
    if fen.split_whitespace().any(|w| w.eq_ignore_ascii_case("moves")) {
        return Err(bad(format!("`fen` takes a position only, not moves; {POSITION_SYNTAX}")));
    }
    let start = adapter::parse_fen(fen).map_err(|e| bad(format!("{e}; {POSITION_SYNTAX}")))?;
    let mut game = adapter::start_game(&start);
    let mut played = Vec::new();
    if let Some(moves) = p.get("moves") {
        // Each move with its byte offset in `moves`.
        let tokens: Vec<(usize, &str)> = moves
            .split([' ', ','])
            .scan(0, |at, t| {
                let start = *at;
                *at += t.len() + 1;
                Some((start, t))
            })
            .filter(|(_, t)| !t.is_empty())
            .collect();
        if tokens.len() > MAX_MOVES {
            return Err(bad(format!("{} moves; at most {MAX_MOVES}", tokens.len())));
        }
        for (i, &(_, t)) in tokens.iter().enumerate() {
            let pos = adapter::position(&game);
            let m = adapter::parse_move(pos, t).map_err(|e| {
                bad(format!(
                    "moves[{i}] in {}: {e}{} (moves are played in order from `fen`, each legal where it is played, \
                     in ICCS, WXF or Chinese notation)",
                    adapter::fen_of(pos),
                    plus_advice(p, pos, &tokens, i)
                ))
            })?;
            played.push(adapter::names(pos, m));
            adapter::play_in(&mut game, m);
        }
    }
    Ok((game, played))
}

/// For a move that cannot be read next to a space that was a `+` in the URL (WXF's `H2+3` typed
/// as it is, read as `H2` and `3`): that a `+` must be sent as `%2B`, with the move so written
/// when the two parts joined by a `+` read as a move in `pos`. Empty otherwise.
fn plus_advice(p: &Params, pos: &Pos, tokens: &[(usize, &str)], i: usize) -> String {
    let (at, t) = tokens[i];
    let end = at + t.len();
    let after = p.was_plus("moves", end);
    let before = at > 0 && p.was_plus("moves", at - 1);
    if !(after || before) {
        return String::new();
    }
    let example = tokens
        .get(i + 1)
        .filter(|(next_at, next)| {
            after && *next_at == end + 1 && adapter::parse_move(pos, &format!("{t}+{next}")).is_ok()
        })
        .map_or_else(String::new, |(_, next)| format!(", as in {t}%2B{next}"));
    format!("; a `+` in a URL is read as a space, as here: send a move's `+` as `%2B`{example}")
}

fn rules_of(p: &Params, default: TableRules) -> Result<TableRules, ApiError> {
    match p.get("rules") {
        None => Ok(default),
        Some(r) => r.parse().map_err(bad),
    }
}

/// A move's (or position's) games by result: won by red, drawn, won by black; and the same
/// from the side to move's point of view (`wins`, `draws`, `losses`, as `qiku-book probe --json`
/// and Python count them).
#[derive(Serialize, Clone, Copy, Default)]
struct Tally {
    red: u64,
    draws: u64,
    black: u64,
    /// Won by the side to move (the mover): `red` or `black`, whichever it is.
    wins: u64,
    /// Lost by the side to move: the other of `red` and `black`.
    losses: u64,
    unknown: u64,
    games: u64,
}

fn tally(c: &BookCounts, red_moves: bool) -> Tally {
    let (red, black) = if red_moves { (c.wins, c.losses) } else { (c.losses, c.wins) };
    Tally { red, draws: c.draws, black, wins: c.wins, losses: c.losses, unknown: c.unknown, games: c.games() }
}

#[derive(Serialize)]
struct ExploreMove {
    #[serde(flatten)]
    names: MoveNames,
    #[serde(flatten)]
    tally: Tally,
    /// The mover's score (wins + draws/2) / decided games, as `qiku-book probe`.
    score: Option<f64>,
    /// The position after the move.
    fen: String,
    /// The table value for the mover (as `qiku-tb probe --json`'s moves).
    tablebase: Option<TableValue>,
    /// In the table's winning line.
    best: bool,
    /// In a position that is its own mirror image, the mirror twin whose games are counted with
    /// this book move's (`null` elsewhere).
    with_mirror: Option<MoveNames>,
}

#[derive(Serialize)]
struct Explore {
    fen: String,
    turn: &'static str,
    /// `ok` while the game goes on, else how it ended (the library's reason: `checkmate`,
    /// `stalemate`, `perpetual_check`, `perpetual_chase`, `repetition`, `no_capture_limit`,
    /// `insufficient_material`).
    status: &'static str,
    /// How the game ended (`qiku analyze --json`'s `game_over`); `null` while it goes on.
    game_over: Option<GameOver>,
    played: Vec<MoveNames>,
    rules: &'static str,
    book: Option<Tally>,
    tablebase: Option<TableValue>,
    moves: Vec<ExploreMove>,
    /// Every legal move (ICCS), for the board.
    legal: Vec<String>,
    recent_games: Vec<ListedGame>,
}

/// A recent game as the explorer lists it: `/api/game` with the same position and `n` gives it
/// whole.
#[derive(Serialize)]
struct ListedGame {
    n: usize,
    red: String,
    black: String,
    event: String,
    date: String,
    result: String,
    ply: usize,
    /// The game reached the position's mirror image (see `/api/game`).
    mirrored: bool,
}

/// `GET /api/explore?fen=&moves=&rules=`: the book's and the tables' view of a position.
///
/// ```
/// # fn get(addr: std::net::SocketAddr, target: &str) -> std::io::Result<String> { use std::io::{Read, Write};
/// #     let (mut c, mut r) = (std::net::TcpStream::connect(addr)?, String::new());
/// #     write!(c, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// #     c.read_to_string(&mut r)?; Ok(r) }
/// let server = qiku_serve::start(qiku_serve::Options { port: 0, ..Default::default() })?;
/// let reply = get(server.addr, "/api/explore?moves=h2e2%20h9g7")?;
/// assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
/// assert!(reply.contains(r#""chinese":"馬８進７""#) && reply.contains(r#""status":"ok""#), "{reply}");
/// // A WXF `+` sent as it is was read as a space: the error says to write `%2B`.
/// let reply = get(server.addr, "/api/explore?moves=H2+3")?;
/// assert!(reply.starts_with("HTTP/1.1 400") && reply.contains("%2B"), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn explore(State(st): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Result<Response, ApiError> {
    let p = params(q.as_deref())?;
    let (game, played) = game_of(&p)?;
    let pos = adapter::position(&game);
    let rules = rules_of(&p, st.rules)?;
    let red = adapter::red_to_move(pos);
    let book = st.books.probe(pos).map_err(internal)?;
    let table = st.tables.answer(pos, rules).map_err(internal)?;
    let mut total = Tally::default();
    let mut moves: Vec<ExploreMove> = Vec::new();
    let table_of = |m: Mv| table.as_ref().and_then(|t| t.moves.iter().find(|(tm, _)| *tm == m).map(|(_, v)| *v));
    let best_of = |m: Mv| table.as_ref().is_some_and(|t| t.best.contains(&m));
    for (m, c) in &book {
        let t = tally(c, red);
        total.red += t.red;
        total.draws += t.draws;
        total.black += t.black;
        total.wins += t.wins;
        total.losses += t.losses;
        total.unknown += t.unknown;
        total.games += t.games;
        moves.push(ExploreMove {
            names: adapter::names(pos, *m),
            tally: t,
            score: c.score(),
            fen: adapter::fen_of(&adapter::play(pos, *m)),
            tablebase: table_of(*m),
            best: best_of(*m),
            with_mirror: adapter::merged_mirror(pos, *m).map(|x| adapter::names(pos, x)),
        });
    }
    if let Some(t) = &table {
        for (m, v) in &t.moves {
            if book.iter().any(|(bm, _)| bm == m) {
                continue;
            }
            moves.push(ExploreMove {
                names: adapter::names(pos, *m),
                tally: Tally::default(),
                score: None,
                fen: adapter::fen_of(&adapter::play(pos, *m)),
                tablebase: Some(*v),
                best: t.best.contains(m),
                with_mirror: None,
            });
        }
    }
    let recent_games = st
        .books
        .recent_game_headers(pos, RECENT_GAMES)
        .map_err(internal)?
        .into_iter()
        .enumerate()
        .map(|(n, g)| ListedGame {
            n,
            red: g.red,
            black: g.black,
            event: g.event,
            date: g.date,
            result: g.result,
            ply: g.ply,
            mirrored: g.mirrored,
        })
        .collect();
    let legal = adapter::legal_moves(pos);
    let (game_over, status) = match adapter::game_end(&game) {
        Some((end, reason)) => (Some(end), reason),
        None => (None, "ok"),
    };
    let out = Explore {
        fen: adapter::fen_of(pos),
        turn: adapter::turn_name(pos),
        status,
        game_over,
        played,
        rules: rules.name(),
        book: st.books.any().then_some(total),
        tablebase: table.as_ref().map(|t| t.value),
        moves,
        legal: legal.into_iter().map(adapter::iccs_of).collect(),
        recent_games,
    };
    Ok(Json(out).into_response())
}

/// `GET /api/game?fen=&moves=&n=`: the `n`th game of the position's `recent_games` (counted from
/// 0, as `/api/explore` lists them), whole: its start position (`start`), every move in ICCS,
/// and the ply at which it reaches the position. 404 when the position has no such game.
pub async fn game(State(st): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Result<Response, ApiError> {
    let p = params(q.as_deref())?;
    let (pos, _) = position_of(&p)?;
    let n: usize = match p.get("n") {
        None => return Err(bad("give `n`, the game's place in the explorer's `recent_games` (from 0)")),
        Some(v) => v
            .parse()
            .ok()
            .filter(|n| *n < RECENT_GAMES)
            .ok_or_else(|| bad(format!("`n` must be a number from 0 to {}", RECENT_GAMES - 1)))?,
    };
    let mut games = st.books.recent_games(&pos, n + 1).map_err(internal)?;
    if games.len() <= n {
        return Err(ApiError(StatusCode::NOT_FOUND, format!("this position has {} recent games", games.len())));
    }
    Ok(Json(games.swap_remove(n)).into_response())
}

#[derive(Serialize)]
struct TbMove {
    #[serde(flatten)]
    names: MoveNames,
    #[serde(flatten)]
    value: TableValue,
    best: bool,
    fen: String,
}

#[derive(Serialize)]
struct TbReply {
    fen: String,
    turn: &'static str,
    rules: &'static str,
    #[serde(flatten)]
    value: TableValue,
    text: String,
    /// The moves of the table's winning line, in ICCS (`qiku-tb probe --json`'s `best_moves`);
    /// each entry of `moves` says whether it is one by its `best`.
    best_moves: Vec<String>,
    /// The WDL file's answer, checked against the value (`qiku-tb probe --json`'s `wdl_file`).
    wdl_file: Option<&'static str>,
    moves: Vec<TbMove>,
}

/// `GET /api/tablebase?fen=&moves=&rules=asian|plain`: the position's value and every move's,
/// best first (404 when no table covers the position; 500 with the library's message when its
/// file is damaged or a table its captures lead to is missing).
///
/// ```
/// # fn get(addr: std::net::SocketAddr, target: &str) -> std::io::Result<String> { use std::io::{Read, Write};
/// #     let (mut c, mut r) = (std::net::TcpStream::connect(addr)?, String::new());
/// #     write!(c, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// #     c.read_to_string(&mut r)?; Ok(r) }
/// let dir = tempfile::tempdir()?;
/// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let options = qiku_serve::Options { tables: Some(dir.path().into()), port: 0, ..Default::default() };
/// let server = qiku_serve::start(options)?;
/// let reply = get(server.addr, "/api/tablebase?fen=3k5/9/9/9/9/9/9/9/R8/4K4%20w%20-%20-%200%201")?;
/// assert!(reply.starts_with("HTTP/1.1 200 OK") && reply.contains(r#""wdl":"win""#), "{reply}");
/// // No table for the start position.
/// assert!(get(server.addr, "/api/tablebase")?.starts_with("HTTP/1.1 404"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn tablebase(State(st): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Result<Response, ApiError> {
    let p = params(q.as_deref())?;
    let (pos, _) = position_of(&p)?;
    let rules = rules_of(&p, st.rules)?;
    if !st.tables.any() {
        return Err(ApiError(StatusCode::NOT_FOUND, "this server has no tables (start it with --tb DIR)".into()));
    }
    let t = st
        .tables
        .answer(&pos, rules)
        .map_err(internal)?
        .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, st.tables.no_table(&pos)))?;
    let out = TbReply {
        fen: adapter::fen_of(&pos),
        turn: adapter::turn_name(&pos),
        rules: rules.name(),
        value: t.value,
        text: t.text.clone(),
        best_moves: t.best.iter().map(|m| adapter::iccs_of(*m)).collect(),
        wdl_file: t.wdl_file,
        moves: t
            .moves
            .iter()
            .map(|(m, v)| TbMove {
                names: adapter::names(&pos, *m),
                value: *v,
                best: t.best.contains(m),
                fen: adapter::fen_of(&adapter::play(&pos, *m)),
            })
            .collect(),
    };
    Ok(Json(out).into_response())
}

#[derive(Serialize)]
struct AnalyzeReply {
    fen: String,
    /// The move chosen: `null` when the side to move has none, or the game is over.
    bestmove: Option<MoveNames>,
    cp: Option<i32>,
    mate: Option<i32>,
    depth: u32,
    nodes: u64,
    pv: Vec<MoveNames>,
    /// `tablebase` (the tables chose the move) or `search`; `null` when the rules have ended the
    /// game (no search).
    source: Option<&'static str>,
    /// The rules of the tables the engine was given.
    rules: &'static str,
    /// The tables' verdict, when they cover the position.
    tablebase: Option<adapter::EngineVerdict>,
    /// How the game ended, as `qiku analyze --json`'s `game_over`: a game the rules have ended
    /// (not searched), or a side without a legal move (searched: no move); `null` otherwise.
    game_over: Option<GameOver>,
    /// The table files the engine could not use (`<file>: <cause>`), when there are any: the
    /// search went on without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unusable_tables: Vec<String>,
}

/// `GET /api/analyze?fen=&moves=&movetime=MS|depth=N&rules=asian|plain`: one bounded engine
/// search of the position `moves` reach from `fen`, the moves given to the search (repetitions
/// judged as in the game), the engine given the tables under those rules; a game the rules have
/// already ended is reported as `qiku analyze` reports it, without a search.
pub async fn analyze(
    State(st): State<Arc<AppState>>,
    method: Method,
    RawQuery(q): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(q.as_deref())?;
    let (game, _) = game_of(&p)?;
    let pos = adapter::position(&game).clone();
    let rules = rules_of(&p, st.rules)?;
    if !st.engine {
        return Err(ApiError(StatusCode::NOT_FOUND, "the engine is off (start the server with --engine)".into()));
    }
    let num = |k: &str, max: u64| -> Result<Option<u64>, ApiError> {
        match p.get(k) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<u64>() {
                Ok(n) if (1..=max).contains(&n) => Ok(Some(n)),
                _ => Err(bad(format!("{k} must be a whole number from 1 to {max}"))),
            },
        }
    };
    let movetime = num("movetime", st.limits.max_movetime_ms)?;
    let depth = num("depth", 30)?.map(|d| d as u32);
    if method == Method::HEAD {
        // The headers of the answer, without the search (its parameters checked as a GET's).
        return Ok(head_without_search("application/json"));
    }
    let movetime = movetime.or(Some(st.limits.max_movetime_ms.min(1000)));
    if let Some(over) = adapter::game_over(&game) {
        // As `qiku analyze --json`: the end, no move, no search (nor the tables' value of the
        // position, which the game no longer reaches for a move).
        return Ok(Json(AnalyzeReply {
            fen: adapter::fen_of(&pos),
            bestmove: None,
            cp: None,
            mate: None,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
            source: None,
            rules: rules.name(),
            tablebase: None,
            game_over: Some(over),
            unusable_tables: Vec::new(),
        })
        .into_response());
    }
    // A position the tables cover is answered from them whole or not at all: were a table one of
    // its moves leads into damaged (or missing), the engine would search without the tables and
    // the answer still give the position's own value, as if they had been read. The error is
    // `/api/tablebase`'s, naming the file.
    st.tables.answer(&pos, rules).map_err(internal)?;
    let Ok(permit) = st.searches.clone().try_acquire_owned() else {
        return Ok(busy("the engine is busy with other searches; retry shortly"));
    };
    let req = adapter::SearchRequest {
        movetime_ms: movetime,
        depth,
        hash_mib: st.limits.hash_mib,
        searchmoves: Vec::new(),
        rules: Some(rules),
    };
    // A checkmate or stalemate: searched (no move), and said beside the answer, as by `qiku analyze`.
    let game_over = adapter::game_end(&game).map(|(end, _)| end);
    let st2 = st.clone();
    let a = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        adapter::analyze(&game, &req, &st2.tables)
    })
    .await
    .map_err(|e| internal(format!("search failed: {e}")))?;
    let mut pv = Vec::new();
    let mut cur = pos.clone();
    for m in &a.pv {
        pv.push(adapter::names(&cur, *m));
        cur = adapter::play(&cur, *m);
    }
    Ok(Json(AnalyzeReply {
        fen: adapter::fen_of(&pos),
        bestmove: a.best.map(|m| adapter::names(&pos, m)),
        cp: a.cp,
        mate: a.mate,
        depth: a.depth,
        nodes: a.nodes,
        pv,
        source: Some(a.source),
        rules: a.rules.name(),
        tablebase: a.verdict,
        game_over,
        unusable_tables: a.unusable_tables,
    })
    .into_response())
}

#[derive(Serialize)]
struct Info {
    books: Vec<String>,
    tables: usize,
    engine: bool,
    rules: &'static str,
    version: &'static str,
}

/// `GET /api/info`: what the server holds.
///
/// ```
/// # fn get(addr: std::net::SocketAddr, target: &str) -> std::io::Result<String> { use std::io::{Read, Write};
/// #     let (mut c, mut r) = (std::net::TcpStream::connect(addr)?, String::new());
/// #     write!(c, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// #     c.read_to_string(&mut r)?; Ok(r) }
/// let server = qiku_serve::start(qiku_serve::Options { port: 0, engine: true, ..Default::default() })?;
/// let reply = get(server.addr, "/api/info")?;
/// assert!(reply.contains(r#""books":[]"#) && reply.contains(r#""engine":true"#), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub async fn info(State(st): State<Arc<AppState>>) -> Response {
    Json(Info {
        books: st.books.names(),
        tables: st.tables.count(),
        engine: st.engine,
        rules: st.rules.name(),
        version: env!("CARGO_PKG_VERSION"),
    })
    .into_response()
}

/// `GET /api/tables`: every table with its header's counts; a `500` naming every table file that
/// cannot be read (never a table left out, or listed without its rules).
pub async fn tables(State(st): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let list = st.tables.summaries().map_err(internal)?;
    Ok(Json(serde_json::json!({ "tables": list })).into_response())
}

/// What a material in `/api/tables/{material}` is, for the errors about it.
const MATERIAL_SYNTAX: &str = "a material is letters only, like KRvKN";

/// `GET /api/tables/{material}`: a table's statistics under both rules, its DTM histogram and
/// its longest mate (computed once for every name of the material, then cached).
pub async fn table_stats(
    State(st): State<Arc<AppState>>,
    name: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    // Not percent-encoded UTF-8 (`%FF`): the framework's own answer would be plain text.
    let Ok(Path(name)) = name else {
        return Err(bad(format!(
            "the material in /api/tables/{{material}} is not percent-encoded UTF-8; {MATERIAL_SYNTAX}"
        )));
    };
    if name.len() > 20 || !name.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(bad(MATERIAL_SYNTAX));
    }
    let stats_error = |e| match e {
        adapter::StatsError::Invalid(m) => bad(m),
        adapter::StatsError::Missing(m) => ApiError(StatusCode::NOT_FOUND, m),
        adapter::StatsError::TooLarge(m) => ApiError(StatusCode::UNPROCESSABLE_ENTITY, m),
        adapter::StatsError::Damaged(m) => internal(m),
    };
    let name = adapter::StatsName::parse(&name).map_err(stats_error)?;
    let key = name.table();
    if let Some(s) = st.stats_cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(Json(s.named(&name)).into_response());
    }
    let Ok(permit) = st.searches.clone().try_acquire_owned() else {
        return Ok(busy("the server is busy with other searches and statistics; retry shortly"));
    };
    let st2 = st.clone();
    let stats = tokio::task::spawn_blocking(move || -> Result<adapter::TableStats, adapter::StatsError> {
        let _permit = permit;
        let stats = st2.tables.stats(&name, st2.limits.max_stats_entries)?;
        // Kept here, not by the request: one over the request time finds it when it asks again.
        st2.stats_cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, stats.clone());
        Ok(stats)
    })
    .await
    .map_err(|e| internal(format!("statistics failed: {e}")))?
    .map_err(stats_error)?;
    Ok(Json(stats.named(&name)).into_response())
}

/// A `503` with `Retry-After`, as every one of this server's.
fn busy(msg: &str) -> Response {
    let mut r = ApiError(StatusCode::SERVICE_UNAVAILABLE, msg.into()).into_response();
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    r
}

/// Largest form body a ChessDB `POST` may send (a FEN, a ban list and a move list fit).
pub const MAX_FORM: usize = 64 * 1024;

/// Decodes ChessDB request parameters as PHP fills `$_REQUEST`: a bad percent escape is kept as
/// it is, invalid UTF-8 is replaced (a board holding either is then an `invalid board`), and the
/// last of a repeated parameter wins.
///
/// ```
/// let mut out = std::collections::HashMap::new();
/// qiku_serve::api::chessdb_params("action=queryall&action=querybest&board=%zz", &mut out);
/// assert_eq!((out["action"].as_str(), out["board"].as_str()), ("querybest", "%zz"));
/// ```
pub fn chessdb_params(raw: &str, out: &mut HashMap<String, String>) {
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode_lenient(k), decode_lenient(v));
    }
}

/// Percent-decoding with `+` as a space that never fails, as PHP's `urldecode`.
fn decode_lenient(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b.get(i + 1..i + 3).and_then(hex_byte);
        match (b[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `GET /chessdb.php?...`: the ChessDB-compatible endpoint.
pub async fn chessdb(State(st): State<Arc<AppState>>, method: Method, RawQuery(q): RawQuery) -> Response {
    let mut p = HashMap::new();
    chessdb_params(q.as_deref().unwrap_or(""), &mut p);
    chessdb_reply(st, p, method == Method::HEAD).await
}

/// `POST /chessdb.php`: the same, with the parameters also in an
/// `application/x-www-form-urlencoded` body (ChessDB reads `$_REQUEST`: a body parameter wins
/// over the same one in the query), at most [`MAX_FORM`] bytes. A body refused is answered in
/// plain text, as everything outside `/api/` (ChessDB's clients read text).
pub async fn chessdb_post(
    State(st): State<Arc<AppState>>,
    RawQuery(q): RawQuery,
    headers: axum::http::HeaderMap,
    body: axum::body::Body,
) -> Response {
    let ctype = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let form = ctype.is_empty() || ctype.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded");
    if !form {
        return form_refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("a POST to /chessdb.php sends application/x-www-form-urlencoded parameters, not `{ctype}`"),
        );
    }
    // hyper takes `Transfer-Encoding: chunked` off before the body gets here; any other coding
    // would leave bytes this reads as the form.
    if let Some(te) = headers.get(header::TRANSFER_ENCODING) {
        let te = String::from_utf8_lossy(te.as_bytes());
        if te.split(',').any(|c| !c.trim().eq_ignore_ascii_case("chunked")) {
            return form_refusal(
                StatusCode::NOT_IMPLEMENTED,
                format!("a POST to /chessdb.php may send its body chunked, not with `Transfer-Encoding: {te}`; send the form uncoded"),
            );
        }
    }
    let bytes = match read_form(body, &headers, st.limits.header_timeout).await {
        Ok(b) => b,
        Err(refusal) => return refusal,
    };
    let mut p = HashMap::new();
    chessdb_params(q.as_deref().unwrap_or(""), &mut p);
    chessdb_params(&String::from_utf8_lossy(&bytes), &mut p);
    chessdb_reply(st, p, false).await
}

/// A ChessDB form `POST` refused: `msg` as a line of plain text.
fn form_refusal(status: StatusCode, msg: String) -> Response {
    crate::refusals::refusal(status, false, msg)
}

/// Reads a form body of at most [`MAX_FORM`] bytes within `time` (the time a client has to send
/// its headers): a client that says a body comes and sends none, or sends it slower, would hold
/// its connection for the whole request time. Too slow is a `408`, and the connection closes.
async fn read_form(
    body: axum::body::Body,
    headers: &axum::http::HeaderMap,
    time: std::time::Duration,
) -> Result<Vec<u8>, Response> {
    use http_body_util::BodyExt;
    // A body said to be over the bound is refused at once, unread (not after waiting for it);
    // the connection then cannot carry another request.
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_FORM as u64) {
        let mut r = form_too_large();
        r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Err(r);
    }
    let deadline = tokio::time::Instant::now() + time;
    let mut body = http_body_util::Limited::new(body, MAX_FORM);
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(None) => return Ok(bytes),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    bytes.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(e))) => return Err(form_body_error(e)),
            Err(_) => {
                let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok());
                let came = match length {
                    Some(n) => format!("its Content-Length says {n} bytes; {} came", bytes.len()),
                    None => format!("{} bytes came", bytes.len()),
                };
                let msg = format!(
                    "the form body did not come within {} s ({came}): send the whole body right after the headers",
                    time.as_secs_f64()
                );
                let mut r = form_refusal(StatusCode::REQUEST_TIMEOUT, msg);
                // The rest of the body is not read: the connection cannot carry another request.
                r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
                return Err(r);
            }
        }
    }
}

/// The `413` of a form body over [`MAX_FORM`] bytes.
fn form_too_large() -> Response {
    form_refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("a form body has at most {MAX_FORM} bytes: send only ChessDB's parameters (action, board, ban, ...)"),
    )
}

/// Why a form body (with a `Content-Length`, or chunked: the same bound) could not be read: over
/// [`MAX_FORM`] bytes (`413`), or broken on the way (`400`: chunks not framed as `Transfer-Encoding:
/// chunked` says, or the connection closed before the body's end).
fn form_body_error(e: Box<dyn std::error::Error + Send + Sync>) -> Response {
    if e.is::<http_body_util::LengthLimitError>() {
        return form_too_large();
    }
    let mut cause = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !cause.contains(&more) {
            cause = format!("{cause}: {more}");
        }
        source = s.source();
    }
    form_refusal(
        StatusCode::BAD_REQUEST,
        format!(
            "the form body could not be read ({cause}); send it with a Content-Length, or as chunks framed as \
             `Transfer-Encoding: chunked` says (each chunk's size in hex on its own line, a last chunk of size 0)"
        ),
    )
}

/// The answer to a `HEAD` of a searching endpoint: the content type a `GET` gives, and no
/// `Content-Length`, which only the search would tell (HTTP lets a `HEAD` leave out what only
/// generating the content determines; an empty body would say `0`).
fn head_without_search(content_type: &'static str) -> Response {
    /// A body of no known length that ends at once.
    struct NoLength;
    impl axum::body::HttpBody for NoLength {
        type Data = axum::body::Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
            std::task::Poll::Ready(None)
        }
    }
    ([(header::CONTENT_TYPE, content_type)], axum::body::Body::new(NoLength)).into_response()
}

/// Answers ChessDB parameters: always status 200 with one of ChessDB's replies, as chessdb.php
/// (a board it cannot read is `invalid board`; the engine busy with other searches gives the
/// reply for a position nothing knows, which clients accept, rather than an error they retry
/// for ever). `HEAD` gets the headers without a search.
async fn chessdb_reply(st: Arc<AppState>, mut p: HashMap<String, String>, head: bool) -> Response {
    let json = p.get("json").is_some_and(|j| chessdb::is_true(j));
    let ctype = if json { "application/json" } else { "text/plain; charset=utf-8" };
    if head {
        return head_without_search(ctype);
    }
    if let Some(b) = p.get_mut("board").filter(|b| b.len() > MAX_FEN) {
        // No legal FEN is that long: an invalid board (and nothing that long is parsed).
        *b = "invalid".into();
    }
    let reply = match chessdb::answer(&st, &p) {
        Ok(r) => r,
        Err(q) => match st.searches.clone().try_acquire_owned() {
            Err(_) => chessdb::known_engine_reply(&st, &q.pos, &q.action, &q.ban)
                .unwrap_or_else(|| chessdb::busy_reply(&q.action)),
            Ok(permit) => {
                let st2 = st.clone();
                let run = tokio::task::spawn_blocking(move || {
                    let _permit = permit;
                    chessdb::engine_reply(&st2, &q.pos, &q.action, &q.ban)
                });
                match run.await {
                    Ok(r) => r,
                    // In ChessDB's form, as every other reply here (a 500, below).
                    Err(e) => chessdb::Reply::Error(format!("search failed: {e}")),
                }
            }
        },
    };
    let status =
        if matches!(reply, chessdb::Reply::Error(_)) { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK };
    (status, [(header::CONTENT_TYPE, ctype)], reply.render(json)).into_response()
}
