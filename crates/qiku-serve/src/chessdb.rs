//! The ChessDB-compatible endpoint, `GET /chessdb.php?action=...&board=FEN`: the request
//! parameters and reply formats of the ChessDB cloud book (chessdb.cn), answered from the local
//! tables first, then the books, then (when enabled) the engine. See docs/SERVE.md for the
//! formats and the mapping of book counts and table values to ChessDB's scores.
//!
//! A program written for chessdb.cn asks a local server by changing only the host:
//!
//! ```
//! use qiku_serve::{start, Options};
//! use std::io::{Read, Write};
//!
//! let dir = tempfile::tempdir()?;
//! let (games, book) = (dir.path().join("games.pgn"), dir.path().join("games.qbk"));
//! std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
//! qiku::book::build(&[games], &book, &Default::default())?;
//! let server = start(Options { books: vec![book], port: 0, ..Options::default() })?;
//! let mut conn = std::net::TcpStream::connect(server.addr)?;
//! let board = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_w";
//! let request = format!("GET /chessdb.php?action=queryall&board={board} HTTP/1.1\r\nHost: localhost\r\n");
//! write!(conn, "{request}Connection: close\r\n\r\n")?;
//! let mut reply = String::new();
//! conn.read_to_string(&mut reply)?;
//! assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
//! assert!(reply.contains("move:h2e2,score:") && reply.ends_with('\0'), "{reply}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::adapter::{self, Analysis, BookCounts, Mv, Pos, RuleVerdict, TableAnswer, TableValue};
use crate::AppState;
use serde::Serialize;
use std::collections::HashMap;

/// ChessDB's mate score: a mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30000;
/// The score base of a value only the Asian rules decide: `RULE_WIN - rank`.
pub const RULE_WIN: i32 = 20000;
/// The scale of ChessDB's win rate: `winrate = 100 / (1 + exp(-score / SCALE))`.
pub const SCALE: f64 = 330.0;
/// Longest principal variation followed through a book or the tables.
const MAX_PV: usize = 60;

/// One move of a `queryall` reply.
///
/// ```
/// use qiku_serve::chessdb::{CdbMove, Reply};
///
/// let m = CdbMove { uci: "h2e2".into(), score: 25, rank: 2, note: "! (10-60)".into(), winrate: Some("53.78".into()) };
/// assert_eq!(Reply::Moves(vec![m]).render(false), "move:h2e2,score:25,rank:2,note:! (10-60),winrate:53.78\0");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CdbMove {
    /// The move (ICCS).
    pub uci: String,
    /// ChessDB score for the mover.
    pub score: i32,
    /// 2 best, 1 good, 0 other.
    pub rank: u8,
    /// `! (..)`, `* (..)` or `? (..)`.
    pub note: String,
    /// The win rate in percent, two decimals (not for table values).
    pub winrate: Option<String>,
}

/// What a request is answered with.
///
/// ```
/// use qiku_serve::chessdb::Reply;
///
/// let pv = Reply::Pv { score: 25, depth: 2, pv: vec!["h2e2".into(), "h9g7".into()] };
/// assert_eq!(pv.render(false), "score:25,depth:2,pv:h2e2|h9g7\0");
/// assert_eq!(Reply::Error("damaged".into()).render(true), r#"{"status":"error","error":"damaged"}"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// No output at all (no action).
    Empty,
    /// An empty reply: the NUL alone, or `{}` (`queryrule` without `movelist`), as ChessDB.
    Blank,
    /// A status word alone: `unknown`, `checkmate`, `stalemate`, `nobestmove`, `invalid board`,
    /// `invalid movelist`, `invalid parameters`, `ok` (`queue`).
    Status(&'static str),
    /// `queryall`.
    Moves(Vec<CdbMove>),
    /// `querysearch`: the moves worth searching, `search:X|search:Y` (`search_moves` in JSON).
    Search(Vec<String>),
    /// `querybest` / `query`: `move:X` (book, engine) or `egtb:X` (tables).
    Best {
        /// `move` or `egtb`.
        kind: &'static str,
        /// The move.
        uci: String,
    },
    /// `querypv`.
    Pv {
        /// Score of the first move.
        score: i32,
        /// Depth: the line's length, as ChessDB's `count($pv)`.
        depth: u32,
        /// The line.
        pv: Vec<String>,
    },
    /// `queryscore`.
    Eval(i32),
    /// `queryrule`: every legal move with `none`, `draw` or `ban`.
    Rules(Vec<(String, &'static str)>),
    /// A file the answer needs cannot be read (a damaged table or book): `Error: MESSAGE`, as
    /// chessdb.php reports its own failures, or `{"status":"error","error":"MESSAGE"}`; the
    /// endpoint sends it with status 500.
    Error(String),
}

#[derive(Serialize)]
struct JsonMove<'a> {
    uci: &'a str,
    score: i32,
    rank: u8,
    note: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    winrate: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonRule<'a> {
    uci: &'a str,
    rule: &'a str,
}

impl Reply {
    /// The reply body: plain text followed by a NUL byte, or a JSON object (`json=1`).
    ///
    /// ```
    /// use qiku_serve::chessdb::Reply;
    ///
    /// let best = Reply::Best { kind: "egtb", uci: "a1a0".into() };
    /// assert_eq!(best.render(false), "egtb:a1a0\0");
    /// assert_eq!(best.render(true), r#"{"status":"ok","egtb":"a1a0"}"#);
    /// assert_eq!(Reply::Status("unknown").render(true), r#"{"status":"unknown"}"#);
    /// ```
    pub fn render(&self, json: bool) -> String {
        if json {
            return self.render_json();
        }
        let body = match self {
            Reply::Empty => return String::new(),
            Reply::Blank => String::new(),
            Reply::Status(s) => s.to_string(),
            Reply::Moves(moves) => moves
                .iter()
                .map(|m| {
                    let mut s = format!("move:{},score:{},rank:{},note:{}", m.uci, m.score, m.rank, m.note);
                    if let Some(w) = &m.winrate {
                        s.push_str(",winrate:");
                        s.push_str(w);
                    }
                    s
                })
                .collect::<Vec<_>>()
                .join("|"),
            Reply::Search(list) => list.iter().map(|m| format!("search:{m}")).collect::<Vec<_>>().join("|"),
            Reply::Best { kind, uci } => format!("{kind}:{uci}"),
            Reply::Pv { score, depth, pv } => format!("score:{score},depth:{depth},pv:{}", pv.join("|")),
            Reply::Eval(e) => format!("eval:{e}"),
            Reply::Rules(list) => list.iter().map(|(m, r)| format!("move:{m},rule:{r}")).collect::<Vec<_>>().join("|"),
            Reply::Error(e) => format!("Error: {e}"),
        };
        format!("{body}\0")
    }

    fn render_json(&self) -> String {
        let ok = |rest: String| format!("{{\"status\":\"ok\",{rest}}}");
        match self {
            Reply::Empty => String::new(),
            Reply::Blank => "{}".into(),
            Reply::Status(s) => format!("{{\"status\":{}}}", enc(s)),
            Reply::Moves(moves) => {
                let list: Vec<JsonMove> = moves
                    .iter()
                    .map(|m| JsonMove {
                        uci: &m.uci,
                        score: m.score,
                        rank: m.rank,
                        note: &m.note,
                        winrate: m.winrate.as_deref(),
                    })
                    .collect();
                ok(format!("\"moves\":{}", enc(&list)))
            }
            Reply::Search(list) => {
                let list: Vec<serde_json::Value> = list.iter().map(|m| serde_json::json!({ "uci": m })).collect();
                ok(format!("\"search_moves\":{}", enc(&list)))
            }
            Reply::Best { kind, uci } => ok(format!("{}:{}", enc(kind), enc(uci))),
            Reply::Pv { score, depth, pv } => ok(format!("\"score\":{score},\"depth\":{depth},\"pv\":{}", enc(pv))),
            Reply::Eval(e) => ok(format!("\"eval\":{e}")),
            Reply::Rules(list) => {
                let list: Vec<JsonRule> = list.iter().map(|(m, r)| JsonRule { uci: m, rule: r }).collect();
                ok(format!("\"moves\":{}", enc(&list)))
            }
            Reply::Error(e) => format!("{{\"status\":\"error\",\"error\":{}}}", enc(e)),
        }
    }
}

/// JSON encoding of a piece of a reply (serializing plain values cannot fail).
fn enc<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// PHP's `FILTER_VALIDATE_BOOLEAN`, which ChessDB applies to `json`, `showall`...
///
/// ```
/// use qiku_serve::chessdb::is_true;
///
/// assert!(is_true("1") && is_true(" Yes ") && is_true("on"));
/// assert!(!is_true("0") && !is_true("") && !is_true("y"));
/// ```
pub fn is_true(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "on" | "yes")
}

/// The banned moves of a `ban` parameter: `move:h2e2|move:b0c2` (a leading `move:` on each entry
/// is optional).
///
/// ```
/// assert_eq!(qiku_serve::chessdb::parse_ban("move:h2e2|b0c2||"), ["h2e2", "b0c2"]);
/// ```
pub fn parse_ban(ban: &str) -> Vec<String> {
    ban.split('|')
        .map(|e| {
            let mut e = e.trim();
            while let Some(rest) = e.strip_prefix("move:") {
                e = rest;
            }
            e.to_string()
        })
        .filter(|e| !e.is_empty())
        .collect()
}

/// Reads ChessDB's board parameter: a FEN whose move counters (and even side to move, `w` by
/// default) may be missing; `b` or `r` may name the side; `_` separates fields as a space does
/// (ChessDB's own page writes `rnbakabnr/.../RNBAKABNR_w`).
///
/// ```
/// use qiku_serve::{adapter::fen_of, chessdb::parse_board};
///
/// let pos = parse_board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_b").ok_or("a board")?;
/// assert_eq!(fen_of(&pos), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1");
/// // Moves after the board would be dropped silently: refused.
/// assert!(parse_board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w moves h2e2").is_none());
/// # Ok::<(), &str>(())
/// ```
pub fn parse_board(board: &str) -> Option<Pos> {
    let board = board.replace('_', " ");
    let mut fields: Vec<&str> = board.split_whitespace().collect();
    if fields.is_empty() {
        return None;
    }
    if fields.len() == 1 {
        fields.push("w");
    }
    let side = match fields[1] {
        "w" | "r" | "W" | "R" => "w",
        "b" | "B" => "b",
        _ => return None,
    };
    // At most a FEN's six fields, `-` for castling and en passant, its counters numbers: anything
    // else (` moves h2e2`, after the side or after the counters) would be silently dropped and the
    // answer be that of another position.
    if fields.len() > 6
        || fields.iter().skip(2).take(2).any(|f| *f != "-")
        || fields.iter().skip(4).any(|f| f.parse::<u32>().is_err())
    {
        return None;
    }
    let fen = format!("{} {side} - - 0 1", fields[0]);
    adapter::parse_fen(&fen).ok()
}

/// The ChessDB score of a table value for the mover.
///
/// ```
/// use qiku_serve::adapter::TableValue;
/// use qiku_serve::chessdb::{table_score, MATE, RULE_WIN};
///
/// let win = TableValue { wdl: "win", dtm: 5, by_rule: false, unit: "plies" };
/// assert_eq!(table_score(&win), MATE - 5);
/// let lost_by_rule = TableValue { wdl: "loss", dtm: -29, by_rule: true, unit: "line rank" };
/// assert_eq!(table_score(&lost_by_rule), -(RULE_WIN - 29));
/// ```
pub fn table_score(v: &TableValue) -> i32 {
    let base = if v.by_rule { RULE_WIN } else { MATE };
    let plies = v.plies().min(9999) as i32;
    if v.is_win() {
        base - plies
    } else if v.is_loss() {
        -(base - plies)
    } else {
        0
    }
}

/// Pseudo-games at the position's average score added to every book move's games.
pub const PRIOR_GAMES: f64 = 200.0;
/// Standard deviations taken off the smoothed score (a lower confidence bound).
pub const CONFIDENCE: f64 = 2.0;

/// The position's average score for the side to move over all its book moves' decided games,
/// `(W + D/2 + 1) / (N + 2)`: the value a move's score is drawn towards.
///
/// ```
/// use qiku_serve::adapter::{legal_moves, parse_fen, BookCounts};
///
/// let moves = legal_moves(&parse_fen("startpos")?);
/// let c = |wins, draws, losses| BookCounts { wins, draws, losses, unknown: 0 };
/// let list = [(moves[0], c(3, 1, 0)), (moves[1], c(0, 0, 0))];
/// assert_eq!(qiku_serve::chessdb::book_average(&list), (6.0 + 1.0 + 2.0) / (8.0 + 4.0));
/// # Ok::<(), String>(())
/// ```
pub fn book_average(list: &[(Mv, BookCounts)]) -> f64 {
    let (points, decided) =
        list.iter().fold((0u64, 0u64), |(p, d), (_, c)| (p + 2 * c.wins + c.draws, d + c.decided()));
    (points + 2) as f64 / (2 * decided + 4) as f64
}

/// The ChessDB score of a move's book counts, given the position's average `avg`
/// ([`book_average`]): `round(SCALE * ln(p / (1 - p)))` with `p = m - CONFIDENCE * sqrt(m (1 - m)
/// / (n + PRIOR_GAMES))` and `m = (wins + draws/2 + PRIOR_GAMES * avg) / (n + PRIOR_GAMES)`, `n`
/// the move's decided games; `p` kept within 0.0001 and 0.9999. `m` is the mover's score with
/// `PRIOR_GAMES` games at the position's average added, `p` a lower bound of it: a move from few
/// games scores below the average, and one from thousands of games close to its own result, so
/// that a rarely played move cannot outrank a main line of similar results. The win rate ChessDB
/// derives from the score, `100 / (1 + exp(-score / SCALE))`, is `p` in percent.
///
/// ```
/// use qiku_serve::adapter::BookCounts;
/// use qiku_serve::chessdb::{book_score, winrate};
///
/// let c = |wins, draws, losses| BookCounts { wins, draws, losses, unknown: 0 };
/// // Won every game: from 4 games, below the position's average; from 4000, close to the result.
/// assert_eq!(book_score(&c(4, 0, 0), 0.5), -80);
/// assert_eq!(book_score(&c(4000, 0, 0), 0.5), 1164);
/// // The win rate of a score is the lower bound of the mover's score, in percent.
/// assert_eq!(winrate(book_score(&c(60, 40, 0), 0.5)), "54.31");
/// ```
pub fn book_score(c: &BookCounts, avg: f64) -> i32 {
    let n = c.decided() as f64 + PRIOR_GAMES;
    let m = ((c.wins as f64 + c.draws as f64 / 2.0) + PRIOR_GAMES * avg) / n;
    let p = (m - CONFIDENCE * (m * (1.0 - m) / n).sqrt()).clamp(0.0001, 0.9999);
    (SCALE * (p / (1.0 - p)).ln()).round() as i32
}

/// ChessDB's win rate of a score, as it prints it (two decimals).
///
/// ```
/// use qiku_serve::chessdb::{winrate, SCALE};
///
/// assert_eq!(winrate(0), "50.00");
/// assert_eq!(winrate(SCALE as i32), "73.11"); // 100 / (1 + e^-1)
/// ```
pub fn winrate(score: i32) -> String {
    format!("{:.2}", 100.0 / (1.0 + (-(score as f64) / SCALE).exp()))
}

fn symbol(rank: u8) -> char {
    match rank {
        2 => '!',
        1 => '*',
        _ => '?',
    }
}

/// The table answer as ChessDB moves: the winning line's moves first (rank 2), then the others
/// of the same result (rank 1), then the rest (rank 0), each group best first.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// use qiku_serve::{adapter::{parse_fen, TableRules}, chessdb::table_moves, load, Options};
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let state = load(&Options { tables: Some(dir.path().into()), ..Options::default() })?;
/// let pos = parse_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")?;
/// let answer = state.tables.answer(&pos, TableRules::Asian)?.ok_or("a table position")?;
/// let moves = table_moves(&answer, &[]);
/// assert!(moves[0].rank == 2 && moves[0].note.starts_with("! (W-M-"), "{:?}", moves[0]);
/// // A banned move is left out.
/// assert!(table_moves(&answer, &[moves[0].uci.clone()]).iter().all(|m| m.uci != moves[0].uci));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_moves(t: &TableAnswer, ban: &[String]) -> Vec<CdbMove> {
    let top = t.moves.iter().find(|(m, _)| t.best.contains(m)).map(|(_, v)| v.wdl);
    let mut out: Vec<CdbMove> = Vec::new();
    let mut rest: Vec<CdbMove> = Vec::new();
    for (m, v) in &t.moves {
        let uci = adapter::iccs_of(*m);
        if ban.contains(&uci) {
            continue;
        }
        let best = t.best.contains(m);
        let rank = if best {
            2
        } else if Some(v.wdl) == top {
            1
        } else {
            0
        };
        let letter = if v.is_win() {
            'W'
        } else if v.is_loss() {
            'L'
        } else {
            'D'
        };
        let note = format!("{} ({letter}-M-{:04})", symbol(rank), v.plies().min(9999));
        let mv = CdbMove { uci, score: table_score(v), rank, note, winrate: None };
        if best {
            out.push(mv);
        } else {
            rest.push(mv);
        }
    }
    rest.sort_by_key(|m| std::cmp::Reverse(m.rank));
    out.extend(rest);
    out
}

/// The book moves as ChessDB moves, best score first (ties: more games, then move order), without
/// the banned ones, ranked against the best of those left (as ChessDB ranks). The note holds
/// the games played and the mover's score in percent: `! (1234-56)`.
///
/// ```
/// use qiku_serve::adapter::{iccs_of, legal_moves, parse_fen, BookCounts};
/// use qiku_serve::chessdb::book_moves;
///
/// let moves = legal_moves(&parse_fen("startpos")?);
/// let c = |wins, draws, losses| BookCounts { wins, draws, losses, unknown: 0 };
/// let list = [(moves[0], c(10, 10, 10)), (moves[1], c(600, 300, 100))];
/// let cdb = book_moves(&list, &[]);
/// assert_eq!((cdb[0].uci.clone(), cdb[0].rank, cdb[0].note.as_str()), (iccs_of(moves[1]), 2, "! (1000-75)"));
/// assert_eq!(cdb[1].rank, 0);
/// // Banned, the best is left out and the other ranked against itself.
/// assert_eq!(book_moves(&list, &[iccs_of(moves[1])])[0].rank, 2);
/// # Ok::<(), String>(())
/// ```
pub fn book_moves(list: &[(Mv, BookCounts)], ban: &[String]) -> Vec<CdbMove> {
    let avg = book_average(list);
    let mut scored: Vec<(i32, u64, u16, String, &BookCounts)> = list
        .iter()
        .map(|(m, c)| (book_score(c, avg), c.games(), m.to_u16(), adapter::iccs_of(*m), c))
        .filter(|(_, _, _, uci, _)| !ban.contains(uci))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let moves = scored
        .into_iter()
        .map(|(score, games, _, uci, c)| {
            let pct = c.score().map_or(50, |s| (100.0 * s).round() as u64);
            let note = format!("{} ({games:02}-{pct:02})", symbol(0));
            CdbMove { uci, score, rank: 0, note, winrate: Some(winrate(score)) }
        })
        .collect();
    rank_book_moves(moves)
}

/// Ranks book moves (best score first) as ChessDB does, against the best of them: rank 2 within
/// 20 points of it, rank 1 within 100, else 0, the note starting with the rank's symbol. ChessDB
/// leaves out the banned moves before it ranks (a `ban` of every rank-2 move makes the next best
/// rank 2), so a list is ranked once the banned moves are out: `querysearch` then never lists
/// none, and the best move `querybest` gives is always among its moves.
fn rank_book_moves(mut moves: Vec<CdbMove>) -> Vec<CdbMove> {
    let best = moves.first().map_or(0, |m| m.score);
    for m in &mut moves {
        m.rank = if m.score >= best - 20 {
            2
        } else if m.score >= best - 100 {
            1
        } else {
            0
        };
        m.note.replace_range(..1, symbol(m.rank).encode_utf8(&mut [0; 4]));
    }
    moves
}

/// The engine's score in ChessDB's units.
///
/// ```
/// use qiku_serve::adapter::{analyze, parse_fen, start_game, Analysis, SearchRequest, Tables};
/// use qiku_serve::chessdb::{engine_score, MATE};
///
/// let game = start_game(&parse_fen("startpos")?);
/// let req = SearchRequest { depth: Some(1), hash_mib: 1, ..SearchRequest::default() };
/// let a = analyze(&game, &req, &Tables::open(None, Default::default())?);
/// assert_eq!(engine_score(&a), a.cp.ok_or("a score")?);
/// // A mate in 2 moves is 3 plies for the side that mates, 4 for the side mated.
/// assert_eq!(engine_score(&Analysis { cp: None, mate: Some(2), ..a.clone() }), MATE - 3);
/// assert_eq!(engine_score(&Analysis { cp: None, mate: Some(-2), ..a }), -(MATE - 4));
/// # Ok::<(), String>(())
/// ```
pub fn engine_score(a: &Analysis) -> i32 {
    match (a.cp, a.mate) {
        (_, Some(n)) if n > 0 => MATE - (2 * n - 1),
        (_, Some(n)) => -(MATE - 2 * n.abs()),
        (Some(cp), None) => cp.clamp(-9999, 9999),
        // A value only the rules decide: the tables' verdict gives it.
        (None, None) => a.verdict.as_ref().map_or(0, |v| table_score(&v.value)),
    }
}

/// Where a position's answer came from.
///
/// ```
/// use qiku_serve::{adapter::parse_fen, chessdb::{lookup, Found}, load, Options};
///
/// let dir = tempfile::tempdir()?;
/// let (games, book) = (dir.path().join("games.pgn"), dir.path().join("games.qbk"));
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// qiku::book::build(&[games], &book, &Default::default())?;
/// let state = load(&Options { books: vec![book], ..Options::default() })?;
/// let Some(Found::Book(moves)) = lookup(&state, &parse_fen("startpos")?, &[])? else { panic!("no book moves") };
/// // The book's move and its mirror twin.
/// assert!(moves.iter().any(|m| m.uci == "h2e2") && moves.iter().any(|m| m.uci == "b2e2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub enum Found {
    /// The tables (moves already in ChessDB form).
    Table(TableAnswer, Vec<CdbMove>),
    /// The books.
    Book(Vec<CdbMove>),
}

/// The tables' or the books' moves for `pos` (without banned moves), `None` if neither knows it.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// use qiku_serve::{adapter::parse_fen, chessdb::{lookup, Found}, load, Options};
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let state = load(&Options { tables: Some(dir.path().into()), ..Options::default() })?;
/// let krvk = parse_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1")?;
/// assert!(matches!(lookup(&state, &krvk, &[])?, Some(Found::Table(t, _)) if t.value.wdl == "win"));
/// assert!(lookup(&state, &parse_fen("startpos")?, &[])?.is_none()); // no book
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lookup(state: &AppState, pos: &Pos, ban: &[String]) -> Result<Option<Found>, String> {
    if let Some(t) = state.tables.answer(pos, state.rules)? {
        let moves = table_moves(&t, ban);
        if !moves.is_empty() {
            return Ok(Some(Found::Table(t, moves)));
        }
    }
    let list = state.books.probe(pos)?;
    // Banned moves are left out after the mirror twins are added (banning one of a pair leaves
    // the other), and the rest ranked again against the best of them, as ChessDB ranks.
    let moves = with_mirror_twins(&list, pos, book_moves(&list, &[]));
    let moves = rank_book_moves(moves.into_iter().filter(|m| !ban.contains(&m.uci)).collect());
    Ok((!moves.is_empty()).then_some(Found::Book(moves)))
}

/// In a position that is its own mirror image (the start position), each book move's mirror
/// image after it, with the same score and note: the book counts a move and its twin together
/// (`Book::probe` gives one of each pair, [`adapter::mirror_twin`] names the other), while
/// ChessDB lists both, and a client that bans one (`ban=move:g3g4`) must still be offered the
/// other. `list` is the probe `moves` were scored from.
fn with_mirror_twins(list: &[(Mv, BookCounts)], pos: &Pos, moves: Vec<CdbMove>) -> Vec<CdbMove> {
    let twins: Vec<(String, String)> = list
        .iter()
        .filter_map(|&(m, _)| adapter::mirror_twin(pos, m).map(|t| (adapter::iccs_of(m), adapter::iccs_of(t))))
        .collect();
    if twins.is_empty() {
        return moves;
    }
    let mut out: Vec<CdbMove> = Vec::with_capacity(moves.len() + twins.len());
    for m in &moves {
        out.push(m.clone());
        let twin = twins.iter().find(|(of, _)| *of == m.uci).map(|(_, t)| t);
        if let Some(twin) = twin.filter(|t| !moves.iter().any(|x| x.uci == **t)) {
            out.push(CdbMove { uci: twin.clone(), ..m.clone() });
        }
    }
    out
}

/// The board and side to move of a position: what a repetition compares.
fn placement(pos: &Pos) -> String {
    adapter::fen_of(pos).split(' ').take(2).collect::<Vec<_>>().join(" ")
}

/// The line through the tables from `pos` (the winning line's first move each time), up to the
/// first move that would repeat a position of the line: a value only the Asian rules decide
/// (a perpetual check) would otherwise go round its cycle to the length limit.
fn table_line(state: &AppState, pos: &Pos, first: Mv) -> Vec<String> {
    let mut line = vec![adapter::iccs_of(first)];
    let mut p = adapter::play(pos, first);
    let mut seen = vec![placement(pos), placement(&p)];
    while line.len() < MAX_PV {
        let Ok(Some(t)) = state.tables.answer(&p, state.rules) else { break };
        let Some(&m) = t.best.first() else { break };
        // A drawn line can go on forever: stop after a few moves.
        if t.value.wdl == "draw" && line.len() >= 12 {
            break;
        }
        let next = adapter::play(&p, m);
        let key = placement(&next);
        if seen.contains(&key) {
            break;
        }
        line.push(adapter::iccs_of(m));
        seen.push(key);
        p = next;
    }
    line
}

/// The line through the books from `pos` (the best-scored book move each time, while it is in
/// the book and does not repeat a position).
fn book_line(state: &AppState, pos: &Pos, first: Mv) -> Vec<String> {
    let mut line = vec![adapter::iccs_of(first)];
    let mut p = adapter::play(pos, first);
    let mut seen = vec![placement(pos), placement(&p)];
    while line.len() < MAX_PV {
        let Ok(list) = state.books.probe(&p) else { break };
        let moves = book_moves(&list, &[]);
        let Some(m) = moves.first().and_then(|m| adapter::parse_iccs(&p, &m.uci)) else { break };
        let next = adapter::play(&p, m);
        let key = placement(&next);
        if seen.contains(&key) {
            break;
        }
        line.push(adapter::iccs_of(m));
        seen.push(key);
        p = next;
    }
    line
}

/// `checkmate` or `stalemate` for a position without a legal move.
fn no_move_status(pos: &Pos) -> &'static str {
    if adapter::in_check(pos) {
        "checkmate"
    } else {
        "stalemate"
    }
}

/// A request only the engine can answer.
///
/// ```
/// use qiku_serve::{chessdb::answer, load, Options};
///
/// let state = load(&Options { engine: true, ..Options::default() })?;
/// let params = [("action", "queryscore"), ("board", "9/9/3k5/9/9/9/9/9/4A4/R3K4")];
/// let params = params.map(|(k, v)| (k.to_string(), v.to_string())).into();
/// let query = answer(&state, &params).err().ok_or("a query for the engine")?;
/// assert_eq!((query.action.as_str(), query.ban.len()), ("queryscore", 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct EngineQuery {
    /// The position.
    pub pos: Pos,
    /// The action.
    pub action: String,
    /// Banned moves.
    pub ban: Vec<String>,
}

/// Answers one request from the tables and books; `Err` when the engine must be asked (nothing
/// else knows the position, and the engine is on).
///
/// ```
/// use qiku_serve::chessdb::{answer, Reply};
///
/// let state = qiku_serve::load(&Default::default())?; // no book, no tables, no engine
/// let ask = |pairs: &[(&str, &str)]| {
///     answer(&state, &pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()).ok()
/// };
/// let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
/// assert_eq!(ask(&[("action", "querybest"), ("board", start)]), Some(Reply::Status("nobestmove")));
/// assert_eq!(ask(&[("action", "querybest")]), Some(Reply::Status("invalid parameters")));
/// assert_eq!(ask(&[("action", "queryall"), ("board", "9/9")]), Some(Reply::Status("invalid board")));
/// # Ok::<(), qiku_serve::ServeError>(())
/// ```
pub fn answer(state: &AppState, params: &HashMap<String, String>) -> Result<Reply, Box<EngineQuery>> {
    // As chessdb.php: no action, no reply at all; an action without a board, `invalid parameters`.
    let Some(action) = params.get("action").map(String::as_str) else { return Ok(Reply::Empty) };
    let Some(board) = params.get("board").filter(|b| !b.is_empty()) else {
        return Ok(Reply::Status("invalid parameters"));
    };
    let Some(pos) = parse_board(board) else { return Ok(Reply::Status("invalid board")) };
    let ban = params.get("ban").map(|b| parse_ban(b)).unwrap_or_default();
    if action == "queryrule" {
        return Ok(rule_reply(&pos, params));
    }
    if action == "queue" {
        // ChessDB queues the position for its workers and says `ok`; nothing here learns.
        return Ok(Reply::Status("ok"));
    }
    if !matches!(action, "queryall" | "querybest" | "query" | "querylearn" | "querysearch" | "querypv" | "queryscore") {
        return Ok(Reply::Status("invalid parameters"));
    }
    let wants_move = wants_move(action);
    if adapter::legal_moves(&pos).is_empty() {
        return Ok(if wants_move { Reply::Status("nobestmove") } else { Reply::Status(no_move_status(&pos)) });
    }
    // A damaged file is never taken for a missing one: the client is told.
    let found = match lookup(state, &pos, &ban) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("qiku serve: {e}");
            return Ok(Reply::Error(e));
        }
    };
    let Some(found) = found else {
        if state.engine {
            return Err(Box::new(EngineQuery { pos, action: action.to_string(), ban }));
        }
        return Ok(if wants_move { Reply::Status("nobestmove") } else { Reply::Status("unknown") });
    };
    let (moves, from_table) = match &found {
        Found::Table(_, m) => (m, true),
        Found::Book(m) => (m, false),
    };
    let first = &moves[0];
    // The position's score: its first move's, except on the tables' line, where it is the
    // position's own value. The two differ for a win only the rules decide, whose line move can
    // rank above the position (31 against 29): every other tool says the position's rank.
    let score = match &found {
        Found::Table(t, _) if t.best.iter().any(|&m| adapter::iccs_of(m) == first.uci) => table_score(&t.value),
        _ => first.score,
    };
    Ok(match action {
        "queryall" => Reply::Moves(moves.clone()),
        // In a table position the four answer alike, as chessdb.php's one branch for them.
        "querybest" | "query" | "querylearn" | "querysearch" if from_table => table_move_reply(&pos, moves),
        "querysearch" => search_reply(moves),
        "querybest" | "query" | "querylearn" => Reply::Best { kind: "move", uci: first.uci.clone() },
        "queryscore" => Reply::Eval(score),
        _ => {
            let Some(m) = adapter::parse_iccs(&pos, &first.uci) else { return Ok(Reply::Status("unknown")) };
            match &found {
                Found::Table(..) => {
                    // ChessDB's depth is the line's length (for a forced mate, its distance).
                    let pv = table_line(state, &pos, m);
                    Reply::Pv { score, depth: pv.len() as u32, pv }
                }
                Found::Book(_) => {
                    let pv = book_line(state, &pos, m);
                    Reply::Pv { score: first.score, depth: pv.len() as u32, pv }
                }
            }
        }
    })
}

/// The reply when the engine would be asked but every search permit is taken: ChessDB's reply
/// for a position it cannot answer now (`nobestmove` for the actions that want a move,
/// `unknown` for the others).
///
/// ```
/// use qiku_serve::chessdb::{busy_reply, Reply};
///
/// assert_eq!(busy_reply("querybest"), Reply::Status("nobestmove"));
/// assert_eq!(busy_reply("queryscore"), Reply::Status("unknown"));
/// ```
pub fn busy_reply(action: &str) -> Reply {
    Reply::Status(if wants_move(action) { "nobestmove" } else { "unknown" })
}

/// Does `action` answer with one move (`nobestmove` when there is none)?
fn wants_move(action: &str) -> bool {
    matches!(action, "querybest" | "query" | "querylearn" | "querysearch")
}

/// `querybest`, `query`, `querylearn` and `querysearch` in a table position (`moves`: the
/// table's moves, best first, banned ones left out), as chessdb.php answers them all: the best
/// move (`egtb:`) when it wins or loses, or when it draws and the side to move has no rook,
/// horse, cannon or pawn (chessdb.php's `count_attacker_pieces`: it can only hold the draw);
/// every drawing move (`search:`) when the best draws and the side to move has such a piece (any
/// of them keeps the draw; none wins).
fn table_move_reply(pos: &Pos, moves: &[CdbMove]) -> Reply {
    if moves[0].score == 0 && adapter::mover_has_attackers(pos) {
        return Reply::Search(moves.iter().take_while(|m| m.score == 0).map(|m| m.uci.clone()).collect());
    }
    Reply::Best { kind: "egtb", uci: moves[0].uci.clone() }
}

/// `querysearch` from the books, as ChessDB: the book moves of rank 2 (within 20 points of the
/// best of those `ban` leaves, so never none). Always a list, even of one move: ChessDB says `move:X` then, which
/// ccdblib does not accept from `querysearch` (it asks again, for ever).
fn search_reply(moves: &[CdbMove]) -> Reply {
    Reply::Search(moves.iter().filter(|m| m.rank == 2).map(|m| m.uci.clone()).collect())
}

/// The engine's answers to ChessDB queries, by position and the moves searched (those `ban`
/// leaves): every action asked about a position answers from one search (`querybest`'s move is
/// `querypv`'s first and `queryscore` its score), and asking again costs no search. At most
/// [`EngineAnswers::CAPACITY`] positions are kept; the oldest answer goes first.
///
/// ```
/// use qiku_serve::{adapter::parse_fen, chessdb::engine_reply, load, Limits, Options};
///
/// let limits = Limits { chessdb_movetime_ms: 50, ..Limits::default() };
/// let state = load(&Options { engine: true, limits, ..Options::default() })?;
/// let pos = parse_fen("startpos")?;
/// let best = engine_reply(&state, &pos, "querybest", &[]);
/// let pv = engine_reply(&state, &pos, "querypv", &[]); // the same search's line
/// assert_eq!(state.engine_answers.lock().map_err(|_| "poisoned")?.len(), 1);
/// assert!(matches!((best, pv), (Reply::Best { uci, .. }, Reply::Pv { pv, .. }) if pv[0] == uci));
/// # use qiku_serve::chessdb::Reply;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct EngineAnswers {
    answers: HashMap<Question, Analysis>,
    order: std::collections::VecDeque<Question>,
}

/// What one engine search answers: the position (FEN), and the moves searched, sorted (`None`:
/// every legal move).
type Question = (String, Option<Vec<String>>);

impl EngineAnswers {
    /// Positions kept.
    pub const CAPACITY: usize = 10_000;

    /// The question a search of `pos` answers, the moves `ban` leaves of the legal ones
    /// `legal` (all of them: `None`), and those moves.
    fn question(pos: &Pos, legal: &[Mv], ban: &[String]) -> (Question, Vec<Mv>) {
        let allowed: Vec<Mv> = legal.iter().copied().filter(|m| !ban.contains(&adapter::iccs_of(*m))).collect();
        let moves = (allowed.len() < legal.len()).then(|| {
            let mut moves: Vec<String> = allowed.iter().map(|m| adapter::iccs_of(*m)).collect();
            moves.sort();
            moves
        });
        ((adapter::fen_of(pos), moves), allowed)
    }

    /// The answer kept for `key`, if any.
    fn get(&self, key: &Question) -> Option<Analysis> {
        self.answers.get(key).cloned()
    }

    /// Keeps `a` as the answer for `key` unless one is kept already; returns the kept one.
    fn keep(&mut self, key: Question, a: Analysis) -> Analysis {
        if let Some(known) = self.answers.get(&key) {
            return known.clone();
        }
        if self.order.len() >= Self::CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.answers.remove(&old);
            }
        }
        self.order.push_back(key.clone());
        self.answers.insert(key, a.clone());
        a
    }

    /// Positions kept now.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

/// The reply to an action the engine answers: from the answer kept for the position and banned
/// moves ([`EngineAnswers`]), else from a search (blocking), which is then kept.
///
/// ```
/// use qiku_serve::{adapter::parse_fen, chessdb::{engine_reply, Reply}, load, Limits, Options};
///
/// let limits = Limits { chessdb_movetime_ms: 50, ..Limits::default() };
/// let state = load(&Options { engine: true, limits, ..Options::default() })?;
/// let reply = engine_reply(&state, &parse_fen("startpos")?, "querybest", &[]);
/// assert!(matches!(&reply, Reply::Best { kind: "move", uci } if uci.len() == 4), "{reply:?}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn engine_reply(state: &AppState, pos: &Pos, action: &str, ban: &[String]) -> Reply {
    // Only the moves not banned are searched; with every legal move banned, there is no move.
    let legal = adapter::legal_moves(pos);
    let (key, allowed) = EngineAnswers::question(pos, &legal, ban);
    if allowed.is_empty() {
        return reply_from(None, action, ban);
    }
    if let Some(a) = state.engine_answers.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return reply_from(Some(&a), action, ban);
    }
    let req = adapter::SearchRequest {
        movetime_ms: Some(state.limits.chessdb_movetime_ms),
        depth: None,
        hash_mib: state.limits.hash_mib,
        searchmoves: if allowed.len() < legal.len() { allowed.clone() } else { Vec::new() },
        rules: None,
    };
    // A board is a position alone (ChessDB takes no moves): a game from it.
    let a = adapter::analyze(&adapter::start_game(pos), &req, &state.tables);
    // A search of the same question finished meanwhile: its answer stands.
    let a = state.engine_answers.lock().unwrap_or_else(|e| e.into_inner()).keep(key, a);
    reply_from(Some(&a), action, ban)
}

/// The reply the engine already gave about `pos` with `ban` (see [`EngineAnswers`]), if any:
/// asking again needs no search, so it is answered even when every search permit is taken.
///
/// ```
/// use qiku_serve::{adapter::parse_fen, chessdb::{engine_reply, known_engine_reply}, load, Limits, Options};
///
/// let limits = Limits { chessdb_movetime_ms: 50, ..Limits::default() };
/// let state = load(&Options { engine: true, limits, ..Options::default() })?;
/// let pos = parse_fen("startpos")?;
/// assert_eq!(known_engine_reply(&state, &pos, "queryscore", &[]), None);
/// let score = engine_reply(&state, &pos, "queryscore", &[]);
/// assert_eq!(known_engine_reply(&state, &pos, "queryscore", &[]), Some(score));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn known_engine_reply(state: &AppState, pos: &Pos, action: &str, ban: &[String]) -> Option<Reply> {
    let (key, _) = EngineAnswers::question(pos, &adapter::legal_moves(pos), ban);
    let a = state.engine_answers.lock().unwrap_or_else(|e| e.into_inner()).get(&key)?;
    Some(reply_from(Some(&a), action, ban))
}

/// The reply to `action` from the engine's answer `a` (`None`: every legal move banned).
fn reply_from(a: Option<&Analysis>, action: &str, ban: &[String]) -> Reply {
    let pv: Vec<String> = a.iter().flat_map(|a| a.pv.iter().map(|m| adapter::iccs_of(*m))).collect();
    let Some((a, first)) = a.zip(pv.first().filter(|m| !ban.contains(m)).cloned()) else {
        return if wants_move(action) { Reply::Status("nobestmove") } else { Reply::Status("unknown") };
    };
    let score = engine_score(a);
    match action {
        "queryall" => Reply::Moves(vec![CdbMove {
            uci: first,
            score,
            rank: 2,
            note: "! (00-00)".into(),
            winrate: (score.abs() < 10000).then(|| winrate(score)),
        }]),
        "querysearch" => Reply::Search(vec![first]),
        "querybest" | "query" | "querylearn" => Reply::Best { kind: "move", uci: first },
        "queryscore" => Reply::Eval(score),
        _ => Reply::Pv { score, depth: pv.len() as u32, pv },
    }
}

/// `queryrule`: `movelist` (ICCS moves separated by `|`) played from the board, then every legal
/// move's verdict under the repetition rules once its position has occurred `reptimes` times.
/// The parameters are checked as chessdb.php checks them: from 3 to 2046 moves, each legal where
/// it is played and written as ChessDB writes moves (`h0g2`: lowercase, no dash), else `invalid
/// movelist`; `reptimes` read as PHP's `intval` (leading digits), 1 unless from 1 to 10.
fn rule_reply(pos: &Pos, params: &HashMap<String, String>) -> Reply {
    let Some(list) = params.get("movelist").filter(|l| !l.is_empty()) else { return Reply::Blank };
    let moves: Vec<&str> = list.split('|').collect();
    if !(3..2047).contains(&moves.len()) {
        return Reply::Status("invalid movelist");
    }
    let reptimes = params.get("reptimes").map_or(1, |r| php_intval(r));
    let reptimes = if (1..=10).contains(&reptimes) { reptimes as usize } else { 1 };
    let Some((end, verdicts)) = adapter::rule_check(pos, &moves, reptimes) else {
        return Reply::Status("invalid movelist");
    };
    if verdicts.is_empty() {
        return Reply::Status(no_move_status(&end));
    }
    Reply::Rules(
        verdicts
            .into_iter()
            .map(|(m, v)| {
                let word = match v {
                    RuleVerdict::None => "none",
                    RuleVerdict::Draw => "draw",
                    RuleVerdict::Ban => "ban",
                };
                (adapter::iccs_of(m), word)
            })
            .collect(),
    )
}

/// PHP's `intval` of a string: leading white space, a sign, then the digits up to the first
/// other character (`"3x"` is 3, `"x"` 0), saturating.
///
/// ```
/// use qiku_serve::chessdb::php_intval;
///
/// assert_eq!((php_intval(" 3x"), php_intval("x"), php_intval("-12")), (3, 0, -12));
/// assert_eq!(php_intval("99999999999999999999"), i64::MAX);
/// ```
pub fn php_intval(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| n.saturating_mul(10).saturating_add(i64::from(d - b'0')));
    if neg {
        -n
    } else {
        n
    }
}
