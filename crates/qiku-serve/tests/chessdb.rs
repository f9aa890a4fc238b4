//! The ChessDB-compatible endpoint read the way real ChessDB clients read chessdb.cn, their
//! parsing rules re-expressed here:
//!
//! - XQMagic (walker8088/XQMagic, `XQMagicUI/CloudDB.py`): the text reply with trailing NULs
//!   stripped and lower-cased; `''`/`unknown`/`checkmate` handled first; else entries split on
//!   `|`, fields on `,`, each field split on `:` into exactly a name and a value; `score` read as
//!   an integer, `move` as the ICCS move.
//! - sojourners/public-Xiangqi (`CloudOpenBook.java`): the text reply must contain `move`;
//!   entries split on `|`, fields on `,`, names and values on `:`; `score` through Java's
//!   `Integer.parseInt` (no trimming), `winrate` through `Double.parseDouble` (which trims
//!   characters up to U+0020, the NUL included); a note containing W, D or L marks an endgame
//!   (table) move.
//! - ccdblib (robertnurnberg/ccdblib, `ccdblib.py`): `json=1` replies; `status` must be present;
//!   `queryall` needs `moves`, `querybest` one of `move`/`search_moves`/`egtb`, `querysearch`
//!   `search_moves` or `egtb`, `querypv` `score`,
//!   `depth` and `pv`, `queryscore` `eval`; a score above 10000 in absolute value is a mate,
//!   `30000 - |score|` plies away.
//!
//! The moves must agree with the library's book probe (`qiku-book probe`) and table probes
//! (`qiku-tb probe --rules asian`) for the start position, a middle-game position and table
//! positions.

use crate::common::*;
use qiku::book::Book;
use qiku::tablebase::{Rules, Tablebases};
use qiku::Position;
use serde_json::Value;
use std::collections::HashMap;

/// One move as the clients read it.
#[derive(Debug, Clone, PartialEq)]
struct ClientMove {
    mv: String,
    score: i32,
    winrate: Option<f64>,
    endgame: bool,
}

/// XQMagic's reading of a `queryall` text reply; `Err` where its code would raise.
fn xqmagic_parse(body: &[u8]) -> Result<Option<Vec<ClientMove>>, String> {
    let resp = std::str::from_utf8(body).map_err(|e| e.to_string())?;
    let resp = resp.trim_end_matches('\0').to_lowercase();
    if resp.is_empty() || resp == "unknown" || resp == "checkmate" {
        return Ok(None);
    }
    let mut out = Vec::new();
    for step in resp.split('|') {
        let mut m = ClientMove { mv: String::new(), score: 0, winrate: None, endgame: false };
        let mut score = None;
        for seg in step.trim().split(',') {
            let items: Vec<&str> = seg.split(':').collect();
            let [name, value] = items[..] else { return Err(format!("field `{seg}` is not name:value")) };
            match name {
                "score" => score = Some(value.to_string()),
                "move" => m.mv = value.to_string(),
                _ => {}
            }
        }
        // int(act['score']) later in its code.
        m.score = score.ok_or("no score")?.parse().map_err(|e| format!("score: {e}"))?;
        out.push(m);
    }
    Ok(Some(out))
}

/// Java's `String.trim` (characters up to U+0020), which `Double.parseDouble` applies.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// sojourners/public-Xiangqi's reading of a `queryall` text reply.
fn sojourners_parse(body: &[u8]) -> Result<Vec<ClientMove>, String> {
    let result = String::from_utf8(body.to_vec()).map_err(|e| e.to_string())?;
    let mut list = Vec::new();
    if result.is_empty() || !result.contains("move") {
        return Ok(list);
    }
    for data in result.split('|') {
        let mut m = ClientMove { mv: String::new(), score: 0, winrate: None, endgame: false };
        for item in data.split(',') {
            let kvs: Vec<&str> = item.split(':').collect();
            match kvs[0] {
                "move" => m.mv = kvs.get(1).ok_or("move without value")?.to_string(),
                // Integer.parseInt: no trimming; a sign and digits only.
                "score" => m.score = kvs.get(1).ok_or("no value")?.parse().map_err(|e| format!("parseInt: {e}"))?,
                "winrate" => {
                    m.winrate = Some(
                        java_trim(kvs.get(1).ok_or("no value")?).parse().map_err(|e| format!("parseDouble: {e}"))?,
                    )
                }
                "note" => {
                    let n = kvs.get(1).ok_or("no value")?;
                    m.endgame = n.contains('W') || n.contains('D') || n.contains('L');
                }
                _ => {}
            }
        }
        list.push(m);
    }
    Ok(list)
}

/// ccdblib's acceptance of a JSON reply for `action` (its generic_call's checks).
fn ccdblib_accepts(action: &str, r: &Value) -> bool {
    let Some(status) = r.get("status").and_then(Value::as_str) else { return false };
    match status {
        "ok" => {
            let has = |k: &str| r.get(k).is_some();
            match action {
                "queryall" => has("moves"),
                "querybest" | "query" | "querylearn" => has("move") || has("search_moves") || has("egtb"),
                "querysearch" => has("search_moves") || has("egtb"),
                "queryscore" => has("eval"),
                "querypv" => has("score") && has("depth") && has("pv"),
                _ => true,
            }
        }
        "checkmate" | "stalemate" | "unknown" | "nobestmove" | "invalid board" | "invalid movelist" => true,
        _ => false,
    }
}

/// ccdblib's json2eval: a score, `M<n>`/`-M<n>` for mates, or a status word.
fn ccdblib_eval(r: &Value) -> String {
    match r["status"].as_str() {
        Some("checkmate") => return "mated".into(),
        Some("stalemate") => return "0".into(),
        Some("invalid board") => return "invalid".into(),
        _ => {}
    }
    let s = if let Some(m) = r.get("moves").and_then(|m| m.get(0)).and_then(|m| m.get("score")) {
        m.clone()
    } else if let Some(e) = r.get("eval") {
        e.clone()
    } else if let Some(s) = r.get("score") {
        s.clone()
    } else {
        return String::new();
    };
    match s.as_i64() {
        Some(v) if v.abs() > 10000 => format!("{}M{}", if v > 0 { "" } else { "-" }, 30000 - v.abs()),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn query(srv: &qiku_serve::Running, action: &str, fen: &str, extra: &str) -> Vec<u8> {
    let (status, head, body) = get(srv.addr, &format!("/chessdb.php?action={action}&board={}{extra}", enc(fen)));
    assert_eq!(status, 200, "{action} {fen}: {head}");
    body
}

fn query_json(srv: &qiku_serve::Running, action: &str, fen: &str, extra: &str) -> Value {
    let body = query(srv, action, fen, &format!("{extra}&json=1"));
    let v: Value =
        serde_json::from_slice(&body).unwrap_or_else(|e| panic!("{action}: {e}: {}", String::from_utf8_lossy(&body)));
    assert!(ccdblib_accepts(action, &v), "ccdblib rejects {action}: {v}");
    v
}

/// The position after the book's most played move, `plies` times.
fn book_line(book: &Book, plies: usize) -> Position {
    let mut pos = Position::startpos();
    for _ in 0..plies {
        let m = book.probe(&pos).expect("book readable")[0].mv;
        pos = pos.play(m).expect("legal");
    }
    pos
}

/// Every client reads a book position's queryall, querybest and querypv, and the moves are the
/// book's.
fn check_book_position(srv: &qiku_serve::Running, book: &Book, pos: &Position) {
    let fen = pos.fen();
    // With the mirror twins of a position that is its own mirror image, counted with their moves.
    let probed = book.probe(pos).expect("book readable");
    let expected: Vec<String> =
        probed.iter().flat_map(|m| std::iter::once(m.mv).chain(m.merged_mirror(pos))).map(|m| m.to_string()).collect();
    assert!(expected.len() >= 2, "a position with several book moves: {fen}");
    let mut sorted_expected = expected.clone();
    sorted_expected.sort();

    let body = query(srv, "queryall", &fen, "");
    assert_eq!(body.last(), Some(&0u8), "plain-text replies end with a NUL");
    let xq = xqmagic_parse(&body).expect("XQMagic parses it").expect("moves");
    let sj = sojourners_parse(&body).expect("sojourners parses it");
    let js = query_json(srv, "queryall", &fen, "");
    let js_moves: Vec<String> =
        js["moves"].as_array().expect("moves").iter().map(|m| m["uci"].as_str().expect("uci").to_string()).collect();
    for got in [
        xq.iter().map(|m| m.mv.clone()).collect::<Vec<_>>(),
        sj.iter().map(|m| m.mv.clone()).collect(),
        js_moves.clone(),
    ] {
        let mut g = got.clone();
        g.sort();
        assert_eq!(g, sorted_expected, "the book's moves (qiku-book probe) at {fen}");
    }
    // Scores agree between the readings and the win rate is the score's (ChessDB's formula).
    for (a, b) in xq.iter().zip(&sj) {
        assert_eq!((&a.mv, a.score), (&b.mv, b.score));
        let w = b.winrate.expect("book moves carry a win rate");
        let from_score = 100.0 / (1.0 + (-(b.score as f64) / 330.0).exp());
        assert!((w - from_score).abs() < 0.006, "{w} {from_score}");
        assert!(!b.endgame, "book notes are not endgame notes");
    }
    // Best first.
    assert!(xq.windows(2).all(|w| w[0].score >= w[1].score));

    let best = String::from_utf8(query(srv, "querybest", &fen, "")).expect("utf-8");
    let best_move = best.trim_end_matches('\0').strip_prefix("move:").expect("move:X").to_string();
    assert_eq!(best_move, xq[0].mv);
    assert!(expected.contains(&best_move));
    let jb = query_json(srv, "querybest", &fen, "");
    assert_eq!(jb["move"], best_move);

    let pv = String::from_utf8(query(srv, "querypv", &fen, "")).expect("utf-8");
    let pv = pv.trim_end_matches('\0');
    let fields: HashMap<&str, &str> = pv.splitn(3, ',').filter_map(|f| f.split_once(':')).collect();
    let line: Vec<&str> = fields["pv"].split('|').collect();
    assert_eq!(line[0], best_move);
    assert_eq!(fields["score"].parse::<i32>().expect("score"), xq[0].score);
    assert_eq!(fields["depth"].parse::<usize>().expect("depth"), line.len());
    // Every move of the line is a book move where it is played.
    let mut p = pos.clone();
    for m in &line {
        let mv = qiku::notation::iccs::parse(&p, m).expect("a legal line");
        assert!(book.probe(&p).expect("book readable").iter().any(|b| b.mv == mv), "{m} is in the book");
        p = p.play(mv).expect("legal");
    }
    let jp = query_json(srv, "querypv", &fen, "");
    assert_eq!(jp["pv"].as_array().map(Vec::len), Some(line.len()));
    let js_eval = query_json(srv, "queryscore", &fen, "");
    assert_eq!(js_eval["eval"].as_i64(), Some(i64::from(xq[0].score)));
    assert_eq!(ccdblib_eval(&js), xq[0].score.to_string());

    // A banned move is left out.
    let banned = query(srv, "queryall", &fen, &format!("&ban=move:{best_move}"));
    let rest = xqmagic_parse(&banned).expect("parses").expect("moves");
    assert_eq!(rest.len(), expected.len() - 1);
    assert!(rest.iter().all(|m| m.mv != best_move));
}

#[test]
fn book_positions_read_by_the_clients_agree_with_the_book() {
    let srv = server(options());
    let book = Book::open(&fixtures().book).expect("book");
    check_book_position(&srv, &book, &Position::startpos());
    // A middle-game position: ten plies into the main line.
    let middle = book_line(&book, 10);
    check_book_position(&srv, &book, &middle);
    // The board parameter may leave out the counters, as clients send it.
    let short = middle.fen().split(' ').take(2).collect::<Vec<_>>().join(" ");
    assert_eq!(query(&srv, "queryall", &short, ""), query(&srv, "queryall", &middle.fen(), ""));
    // `_` separates the fields as a space does (ChessDB's page writes FENs so).
    let underscored = middle.fen().replace(' ', "_");
    assert_eq!(query(&srv, "queryall", &underscored, ""), query(&srv, "queryall", &middle.fen(), ""));
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_w";
    assert!(text_of(&query(&srv, "querybest", start, "")).starts_with("move:"));
}

fn check_table_position(srv: &qiku_serve::Running, tb: &Tablebases, fen: &str) {
    let pos = Position::from_fen(fen).expect("fen");
    let values = tb.move_values_with(&pos, Rules::Asian).expect("probe").expect("covered");
    let plain = tb.move_values_with(&pos, Rules::Plain).expect("probe").expect("covered");
    let best: Vec<String> = tb
        .best_moves_with(&pos, Rules::Asian)
        .expect("probe")
        .expect("covered")
        .iter()
        .map(|m| m.to_string())
        .collect();
    let own = tb.probe_with(&pos, Rules::Asian).expect("probe").expect("covered");

    let body = query(srv, "queryall", fen, "");
    let xq = xqmagic_parse(&body).expect("XQMagic parses it").expect("moves");
    let sj = sojourners_parse(&body).expect("sojourners parses it");
    assert_eq!(xq.len(), values.len(), "every legal move, with its table value");
    assert!(sj.iter().all(|m| m.endgame && m.winrate.is_none()), "table notes are endgame notes");
    for m in &xq {
        let (mv, v) = values.iter().find(|(mv, _)| mv.to_string() == m.mv).expect("a legal move");
        let p = plain.iter().find(|(pm, _)| pm == mv).expect("same moves").1;
        let base = if *v != p { 20000 } else { 30000 };
        let expected = match v.wdl.name() {
            "win" => base - v.dtm.plies() as i32,
            "loss" => -(base - v.dtm.plies() as i32),
            _ => 0,
        };
        assert_eq!(m.score, expected, "{} at {fen}: {v:?}", m.mv);
    }
    // The winning line's moves come first.
    let firsts: Vec<&str> = xq.iter().take(best.len()).map(|m| m.mv.as_str()).collect();
    for b in &best {
        assert!(firsts.contains(&b.as_str()), "{b} first at {fen}: {firsts:?}");
    }

    let qb = String::from_utf8(query(srv, "querybest", fen, "")).expect("utf-8");
    let egtb = qb.trim_end_matches('\0').strip_prefix("egtb:").expect("egtb:X").to_string();
    assert!(best.contains(&egtb), "querybest plays the tables' line (qiku-tb probe's best): {egtb} {best:?}");
    let jb = query_json(srv, "querybest", fen, "");
    assert_eq!(jb["egtb"], egtb);

    let jp = query_json(srv, "querypv", fen, "");
    let line: Vec<String> =
        jp["pv"].as_array().expect("pv").iter().map(|m| m.as_str().expect("move").to_string()).collect();
    assert_eq!(line[0], egtb);
    // Each move of the line is one of the tables' best moves where it is played.
    let mut p = pos.clone();
    for m in &line {
        let best_here: Vec<String> = tb
            .best_moves_with(&p, Rules::Asian)
            .expect("probe")
            .expect("covered")
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert!(best_here.contains(m), "{m} in {best_here:?}");
        p = p.play(qiku::notation::iccs::parse(&p, m).expect("legal")).expect("legal");
    }
    // `queryscore` and `querypv`'s score are the position's own value, as every tool states it
    // (a win only the rules decide scores 20000 minus the position's line rank, which can be
    // below its line move's).
    let own_plain = tb.probe_with(&pos, Rules::Plain).expect("probe").expect("covered");
    let base = if own != own_plain { 20000 } else { 30000 };
    let own_score = match own.wdl.name() {
        "win" => base - own.dtm.plies() as i64,
        "loss" => -(base - own.dtm.plies() as i64),
        _ => 0,
    };
    assert_eq!(query_json(srv, "queryscore", fen, "")["eval"].as_i64(), Some(own_score), "{fen}: {own:?}");
    assert_eq!(jp["score"].as_i64(), Some(own_score), "{fen}: {jp}");
    if own.wdl.name() == "win" && own.dtm.0 > 0 && own == own_plain {
        // A forced mate: the line ends in it, after exactly the table's distance, and ccdblib
        // reads the score as that mate.
        assert_eq!(line.len() as i32, own.dtm.0, "{fen}");
        assert!(p.moves().is_empty(), "the line ends with no move for the loser");
        assert_eq!(jp["depth"].as_i64(), Some(i64::from(own.dtm.0)));
        assert_eq!(ccdblib_eval(&query_json(srv, "queryscore", fen, "")), format!("M{}", own.dtm.0));
    }
}

#[test]
fn table_positions_read_by_the_clients_agree_with_the_tables() {
    let srv = server(options());
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    for fen in [
        "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1",
        "3k5/9/9/9/4N4/9/9/9/9/4K4 w - - 0 1",
        "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1",
        "4k4/9/4n4/9/9/9/9/4R4/9/3K5 b - - 0 1",
        // A win only the rules decide whose line move (rank 31) ranks above the position (29).
        "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1",
    ] {
        check_table_position(&srv, &tb, fen);
    }
}

#[test]
fn status_words_and_the_nul() {
    let srv = server(options());
    let text = |action: &str, fen: &str| String::from_utf8(query(&srv, action, fen, "")).expect("utf-8");
    // Black is mated: rook on d0 along the d-file, the red king on e0 guards the e-file.
    let mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1";
    assert_eq!(text("queryall", mated), "checkmate\0");
    assert_eq!(text("querypv", mated), "checkmate\0");
    assert_eq!(text("querybest", mated), "nobestmove\0");
    assert_eq!(query_json(&srv, "queryall", mated, "")["status"], "checkmate");
    // Black has no move and is not in check.
    let stalemate = "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1";
    assert_eq!(text("queryall", stalemate), "stalemate\0");
    assert_eq!(ccdblib_eval(&query_json(&srv, "queryscore", stalemate, "")), "0");
    // Not in the book and no table for it.
    let unknown = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
    assert_eq!(text("queryall", "3k5/9/9/9/9/9/9/9/9/RC2K4 w"), "unknown\0");
    assert_eq!(text("querybest", "3k5/9/9/9/9/9/9/9/9/RC2K4 w"), "nobestmove\0");
    assert!(!text("queryall", unknown).is_empty());
    // Text after a FEN's six fields (moves appended) was dropped, answering for another position.
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
    let with_moves = format!("{start} w - - 0 1 moves h2e2");
    // Moves right after the side to move, in the fields of castling and en passant.
    let moves_after_side = format!("{start} w moves h2e2");
    let counters = format!("{start} w - - zero 1");
    for bad in ["xyz", "rnbakabnr/9/9 w", "9/9/9/9/9/9/9/9/9/9 w", &with_moves, &moves_after_side, &counters] {
        assert_eq!(text("queryall", bad), "invalid board\0");
        assert_eq!(query_json(&srv, "queryall", bad, "")["status"], "invalid board");
    }
    // No action: no reply at all; an action without a board: `invalid parameters`, as ChessDB.
    let (status, _, body) = get(srv.addr, &format!("/chessdb.php?board={}", enc(unknown)));
    assert_eq!((status, body.len()), (200, 0));
    let (status, _, body) = get(srv.addr, "/chessdb.php?action=queryall");
    assert_eq!((status, text_of(&body)), (200, "invalid parameters".to_string()));
    let (_, v) = get_json(srv.addr, "/chessdb.php?action=queryall&board=&json=1");
    assert_eq!(v["status"], "invalid parameters");
    // `queue` is acknowledged as ChessDB does; an action this server does not serve gets a
    // status ccdblib recognises; queryrule without a movelist the empty reply (ccdblib reads
    // `{}` from queryrule as "invalid movelist").
    let start = Position::startpos().fen();
    assert_eq!(text("queue", &start), "ok\0");
    assert_eq!(query_json(&srv, "queue", &start, "")["status"], "ok");
    assert_eq!(text("store", &start), "invalid parameters\0");
    let (_, v) = get_json(srv.addr, &format!("/chessdb.php?action=nonsense&board={}&json=1", enc(&start)));
    assert_eq!(v["status"], "invalid parameters");
    assert_eq!(query(&srv, "queryrule", &start, "&json=1"), b"{}");
    // JSON replies carry no NUL.
    let body = query(&srv, "queryall", &start, "&json=1");
    assert!(body.starts_with(b"{\"status\":\"ok\",\"moves\":[") && !body.contains(&0u8));
}

#[test]
fn queryrule_judges_repetitions() {
    let srv = server(options());
    let start = Position::startpos().fen();
    // Both horses out and back: playing h0g2 again repeats the position after the first move.
    let body = query(&srv, "queryrule", &start, "&movelist=h0g2|h9g7|g2h0|g7h9");
    let text = String::from_utf8(body).expect("utf-8");
    let text = text.trim_end_matches('\0');
    let rules: HashMap<&str, &str> = text
        .split('|')
        .map(|e| {
            let f: HashMap<&str, &str> = e.split(',').filter_map(|f| f.split_once(':')).collect();
            (f["move"], f["rule"])
        })
        .collect();
    assert_eq!(rules.len(), 44);
    assert_eq!(rules["h0g2"], "draw");
    assert_eq!(rules["h2e2"], "none");
    let v = query_json(&srv, "queryrule", &start, "&movelist=h0g2|h9g7|g2h0|g7h9");
    assert_eq!(v["moves"].as_array().map(Vec::len), Some(44));
    assert_eq!(text_of(&query(&srv, "queryrule", &start, "&movelist=h0g2|h0g2")), "invalid movelist");
}

/// `queryrule` checks its parameters as chessdb.php does: the board as every action (`invalid
/// board`, or `invalid parameters` without one); the move list from 3 to 2046 moves, each legal
/// where it is played and written as ChessDB writes moves (lowercase, no dash), else `invalid
/// movelist`; `reptimes` read as PHP's `intval`, 1 outside 1 to 10.
#[test]
fn queryrule_checks_its_parameters_as_chessdb() {
    let srv = server(options());
    let start = Position::startpos().fen();
    let rule = |fen: &str, extra: &str| text_of(&query(&srv, "queryrule", fen, extra));
    let rule_of = |reply: &str, mv: &str| -> String {
        let entry = reply.split('|').find(|e| e.starts_with(&format!("move:{mv},"))).expect("the move listed");
        entry.rsplit(':').next().expect("a rule").to_string()
    };
    let cycle = "&movelist=h0g2|h9g7|g2h0|g7h9";
    assert_eq!(rule_of(&rule(&start, cycle), "h0g2"), "draw");
    for bad in [
        "h0g2",                // fewer than 3 moves, as chessdb.php refuses
        "h0g2|h9g7",           //
        "H0G2|H9G7|G2H0|G7H9", // the same moves, written otherwise
        "h0-g2|h9-g7|g2-h0|g7-h9",
        "h0g2||h9g7|g2h0", // an empty entry
        "h0g2|h9g7|g2h0|g7h9|",
        "h0g2|h9g7|h0g2",       // not legal where played
        " h0g2|h9g7|g2h0|g7h9", // a space
    ] {
        let extra = format!("&movelist={}", enc(bad));
        assert_eq!(rule(&start, &extra), "invalid movelist", "{bad}");
        assert_eq!(query_json(&srv, "queryrule", &start, &extra)["status"], "invalid movelist", "{bad}");
    }
    // As long a list as ChessDB takes (2046 moves), and one more.
    let cycles = ["h0g2", "h9g7", "g2h0", "g7h9"].iter().cycle().take(2044).copied();
    let longest: Vec<&str> = ["h2e2", "h7e7"].into_iter().chain(cycles).collect();
    let reply = rule(&start, &format!("&movelist={}", longest.join("|")));
    assert_eq!(rule_of(&reply, "h0g2"), "draw", "{}", &reply[..reply.len().min(80)]);
    let over: Vec<&str> = ["h0g2", "h9g7", "g2h0", "g7h9"].iter().cycle().take(2047).copied().collect();
    assert_eq!(rule(&start, &format!("&movelist={}", over.join("|"))), "invalid movelist");
    // A bad board, as every action.
    for bad in ["xyz", &format!("{start} moves h2e2"), &start.replace(" w - - 0 1", " w moves h2e2")] {
        assert_eq!(rule(bad, cycle), "invalid board", "{bad}");
    }
    let (_, _, body) = get(srv.addr, &format!("/chessdb.php?action=queryrule{cycle}"));
    assert_eq!(text_of(&body), "invalid parameters");
    // `reptimes=2`: h0g2 repeats a position that has occurred once, not twice. PHP's `intval`
    // reads `2x` and ` 2` as 2; out of range or unreadable is 1.
    for r in ["2", "2x", "%202", "%2B2"] {
        assert_eq!(rule_of(&rule(&start, &format!("{cycle}&reptimes={r}")), "h0g2"), "none", "reptimes={r}");
    }
    for r in ["1", "0", "11", "-2", "x", ""] {
        assert_eq!(rule_of(&rule(&start, &format!("{cycle}&reptimes={r}")), "h0g2"), "draw", "reptimes={r}");
    }
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim_end_matches('\0').to_string()
}

/// The moves XQMagic keeps from a `queryall`: those within 90 points of the best.
fn xqmagic_window(moves: &[ClientMove]) -> Vec<&ClientMove> {
    let best = moves.first().map_or(0, |m| m.score);
    moves.iter().filter(|m| m.score >= best - 90).collect()
}

/// Book scores rank main lines first: a move from a few games never outranks one from a
/// thousand or more, the most played moves stay within XQMagic's 90-point window of the best,
/// and the line querypv follows is made of moves with many games.
#[test]
fn book_scores_keep_main_lines_on_top() {
    let srv = server(options());
    let book = Book::open(&fixtures().book).expect("book");
    let games_of = |pos: &Position, mv: &str| -> u64 {
        let probed = book.probe(pos).expect("book readable");
        let twin = |b: &qiku::book::BookMove| b.merged_mirror(pos).is_some_and(|t| t.to_string() == mv);
        probed.iter().find(|b| b.mv.to_string() == mv || twin(b)).map_or(0, |b| b.counts.games())
    };
    let mut positions = vec![Position::startpos()];
    for line in [&["h2e2"][..], &["h2e2", "h9g7"], &["g3g4"], &["g0e2"]] {
        let mut p = Position::startpos();
        for m in line {
            p = p.play(qiku::notation::iccs::parse(&p, m).expect("legal")).expect("legal");
        }
        positions.push(p);
    }
    positions.extend((1..=10).map(|n| book_line(&book, n)));
    for pos in &positions {
        let fen = pos.fen();
        let moves = xqmagic_parse(&query(&srv, "queryall", &fen, "")).expect("parses").expect("moves");
        let total: u64 = moves.iter().map(|m| games_of(pos, &m.mv)).sum();
        for (i, a) in moves.iter().enumerate() {
            for b in &moves[i + 1..] {
                let (ga, gb) = (games_of(pos, &a.mv), games_of(pos, &b.mv));
                assert!(!(ga <= 10 && gb >= 1000), "{} ({ga} games) outranks {} ({gb} games) at {fen}", a.mv, b.mv);
            }
        }
        let kept: Vec<&str> = xqmagic_window(&moves).iter().map(|m| m.mv.as_str()).collect();
        for m in &moves {
            if games_of(pos, &m.mv) * 4 >= total {
                assert!(
                    kept.contains(&m.mv.as_str()),
                    "{} ({} of {total} games) dropped at {fen}",
                    m.mv,
                    games_of(pos, &m.mv)
                );
            }
        }
    }
    // The start position: 炮二平五 (15,609 games) is among the first three moves (six with their
    // mirror twins, listed after them) and in the window.
    let start = Position::startpos();
    let moves = xqmagic_parse(&query(&srv, "queryall", &start.fen(), "")).expect("parses").expect("moves");
    let top3: Vec<&str> = moves.iter().take(6).map(|m| m.mv.as_str()).collect();
    assert!(top3.contains(&"h2e2") && top3.contains(&"b2e2"), "{top3:?}");
    assert!(moves.iter().take(6).all(|m| games_of(&start, &m.mv) >= 2000), "{moves:?}");
    // Banning one of a pair leaves its twin, with the same score.
    let all = query_json(&srv, "queryall", &start.fen(), "");
    let score_of = |v: &serde_json::Value, uci: &str| {
        v["moves"].as_array().expect("moves").iter().find(|m| m["uci"] == uci).map(|m| m["score"].clone())
    };
    assert_eq!(score_of(&all, "g3g4"), score_of(&all, "c3c4"));
    let banned = query_json(&srv, "queryall", &start.fen(), "&ban=move:g3g4");
    assert_eq!((score_of(&banned, "g3g4"), score_of(&banned, "c3c4")), (None, score_of(&all, "g3g4")));
    // After it, the two most played replies (馬８進７, 10,449 games; 馬２進３, 2,732) come first.
    let after = positions[1].clone();
    let replies = xqmagic_parse(&query(&srv, "queryall", &after.fen(), "")).expect("parses").expect("moves");
    let mut top2: Vec<&str> = replies.iter().take(2).map(|m| m.mv.as_str()).collect();
    top2.sort();
    assert_eq!(top2, ["b9c7", "h9g7"], "{replies:?}");
    // querypv from the start follows moves played in at least 100 games for its first 8 plies.
    let pv = text_of(&query(&srv, "querypv", &start.fen(), ""));
    let line = pv.split("pv:").nth(1).expect("a pv");
    let mut p = start.clone();
    for m in line.split('|').take(8) {
        assert!(games_of(&p, m) >= 100, "{m} ({} games) in the line {line}", games_of(&p, m));
        p = p.play(qiku::notation::iccs::parse(&p, m).expect("legal")).expect("legal");
    }
}

/// `querysearch` and `querylearn` answer in ChessDB's forms, never with an empty reply.
#[test]
fn querysearch_and_querylearn_answer_like_chessdb() {
    let srv = server(options());
    let book = Book::open(&fixtures().book).expect("book");
    for pos in [Position::startpos(), book_line(&book, 1), book_line(&book, 4)] {
        let fen = pos.fen();
        let all = xqmagic_parse(&query(&srv, "queryall", &fen, "")).expect("parses").expect("moves");
        let best = all[0].score;
        let within: Vec<&str> = all.iter().filter(|m| m.score >= best - 20).map(|m| m.mv.as_str()).collect();
        let text = text_of(&query(&srv, "querysearch", &fen, ""));
        let js = query_json(&srv, "querysearch", &fen, "");
        // Always a list, even of one move (ccdblib wants `search_moves` or `egtb`).
        let listed: Vec<&str> = text.split('|').map(|e| e.strip_prefix("search:").expect("search:X")).collect();
        assert_eq!(listed, within, "{fen}");
        let uci: Vec<&str> = js["search_moves"]
            .as_array()
            .expect("search_moves")
            .iter()
            .map(|m| m["uci"].as_str().expect("uci"))
            .collect();
        assert_eq!(uci, within);
        // querylearn plays as querybest.
        assert_eq!(text_of(&query(&srv, "querylearn", &fen, "")), format!("move:{}", all[0].mv));
        assert_eq!(query_json(&srv, "querylearn", &fen, "")["move"], all[0].mv.as_str());
    }
    // After 炮二平五 both main replies are within 20 points.
    assert_eq!(text_of(&query(&srv, "querysearch", &book_line(&book, 1).fen(), "")), "search:b9c7|search:h9g7");
    // The tables: a won position gives the tables' move, a drawn one its drawing moves.
    let won = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1";
    let egtb = text_of(&query(&srv, "querybest", won, ""));
    assert!(egtb.starts_with("egtb:"));
    assert_eq!(text_of(&query(&srv, "querysearch", won, "")), egtb);
    assert_eq!(text_of(&query(&srv, "querylearn", won, "")), egtb);
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    // A drawn position's drawing moves, by the tables under the Asian rules.
    let drawing_moves = |fen: &str| -> Vec<String> {
        let pos = Position::from_fen(fen).expect("fen");
        assert_eq!(tb.probe_with(&pos, Rules::Asian).expect("probe").expect("covered").wdl.name(), "draw");
        tb.move_values_with(&pos, Rules::Asian)
            .expect("probe")
            .expect("covered")
            .iter()
            .filter(|(_, v)| v.wdl.name() == "draw")
            .map(|(m, _)| m.to_string())
            .collect()
    };
    let drawn = "3k5/9/9/9/4C4/9/9/9/9/4K4 w - - 0 1";
    let draws = drawing_moves(drawn);
    let text = text_of(&query(&srv, "querysearch", drawn, ""));
    let mut listed: Vec<String> =
        text.split('|').map(|e| e.strip_prefix("search:").expect("search:X").to_string()).collect();
    listed.sort();
    let mut expected = draws.clone();
    expected.sort();
    assert_eq!(listed, expected);
    // querybest, query and querylearn answer in a table position as querysearch does, as
    // chessdb.php's one branch for the four: the drawing moves when the best move draws and the
    // side to move has a rook, horse, cannon or pawn (here the cannon), and the tables' move
    // when the side to move can only hold (the lone black king).
    for action in ["querybest", "query", "querylearn"] {
        assert_eq!(text_of(&query(&srv, action, drawn, "")), text, "{action}");
        let js = query_json(&srv, action, drawn, "");
        let uci: Vec<&str> =
            js["search_moves"].as_array().expect("search_moves").iter().filter_map(|m| m["uci"].as_str()).collect();
        assert_eq!(uci.join("|search:"), text.trim_start_matches("search:"), "{action}");
        assert!(js.get("egtb").is_none() && js.get("move").is_none(), "{action}: {js}");
    }
    let holding = "3k5/9/9/9/4C4/9/9/9/9/4K4 b - - 0 1";
    let holds = drawing_moves(holding);
    let egtb = text_of(&query(&srv, "querybest", holding, ""));
    let mv = egtb.strip_prefix("egtb:").unwrap_or_else(|| panic!("egtb:X, not {egtb}"));
    assert!(holds.iter().any(|h| h == mv), "{mv} draws: {holds:?}");
    for action in ["query", "querylearn", "querysearch"] {
        assert_eq!(text_of(&query(&srv, action, holding, "")), egtb, "{action}");
    }
    // Nothing knows the position: nobestmove, as querybest.
    assert_eq!(text_of(&query(&srv, "querysearch", "3k5/9/9/9/9/9/9/9/9/RC2K4 w", "")), "nobestmove");
    assert_eq!(query_json(&srv, "querylearn", "3k5/9/9/9/9/9/9/9/9/RC2K4 w", "")["status"], "nobestmove");
}

/// `ban` leaves moves out before the book moves are ranked, as ChessDB ranks them: with every
/// rank-2 move banned, the best move left is of rank 2, so `querysearch` lists it (it answered an
/// empty list), `queryall`'s ranks are those of the moves left, and `querybest` is among
/// `querysearch`'s moves. The scores stay as they are without the ban.
#[test]
fn ban_ranks_the_moves_it_leaves() {
    let srv = server(options());
    let start = Position::startpos().fen();
    let moves_of = |v: &Value| -> Vec<(String, i64, i64, String)> {
        v["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                let s = |k: &str| m[k].as_str().expect("a string").to_string();
                (s("uci"), m["score"].as_i64().expect("score"), m["rank"].as_i64().expect("rank"), s("note"))
            })
            .collect()
    };
    let all = moves_of(&query_json(&srv, "queryall", &start, ""));
    let top: Vec<&str> = all.iter().filter(|m| m.2 == 2).map(|m| m.0.as_str()).collect();
    assert!(!top.is_empty() && top.len() < all.len(), "{all:?}");
    let ban = format!("&ban={}", top.iter().map(|m| format!("move:{m}")).collect::<Vec<_>>().join("%7C"));
    let left = moves_of(&query_json(&srv, "queryall", &start, &ban));
    // The same moves and scores, less the banned ones.
    let unbanned: Vec<(&str, i64)> =
        all.iter().filter(|m| !top.contains(&m.0.as_str())).map(|m| (m.0.as_str(), m.1)).collect();
    assert_eq!(left.iter().map(|m| (m.0.as_str(), m.1)).collect::<Vec<_>>(), unbanned);
    // Ranked against the best of them.
    let best = left[0].1;
    for (uci, score, rank, note) in &left {
        let expected = if *score >= best - 20 {
            2
        } else if *score >= best - 100 {
            1
        } else {
            0
        };
        assert_eq!(*rank, expected, "{uci} ({score}, best {best})");
        let symbol = ["?", "*", "!"][expected as usize];
        assert!(note.starts_with(symbol), "{uci}: {note}");
    }
    let within: Vec<&str> = left.iter().filter(|m| m.2 == 2).map(|m| m.0.as_str()).collect();
    assert_eq!(within[0], left[0].0);
    let text = text_of(&query(&srv, "querysearch", &start, &ban));
    let listed: Vec<&str> =
        text.split('|').filter(|e| !e.is_empty()).map(|e| e.trim_start_matches("search:")).collect();
    assert_eq!(listed, within, "querysearch with {ban}: {text:?}");
    let js = query_json(&srv, "querysearch", &start, &ban);
    let uci: Vec<&str> =
        js["search_moves"].as_array().expect("search_moves").iter().map(|m| m["uci"].as_str().expect("uci")).collect();
    assert_eq!(uci, within);
    assert_eq!(text_of(&query(&srv, "querybest", &start, &ban)), format!("move:{}", left[0].0));
    // Banning one of a pair of mirror twins leaves the other, still of rank 2.
    let one = format!("&ban=move:{}", all[0].0);
    let rest = moves_of(&query_json(&srv, "queryall", &start, &one));
    assert_eq!((rest[0].0.as_str(), rest[0].1, rest[0].2), (all[1].0.as_str(), all[0].1, 2), "{rest:?}");
}

/// The engine searches only the moves `ban` leaves, so a banned best move gives the next best,
/// not `nobestmove` or `unknown`.
#[test]
fn the_engine_leaves_out_banned_moves() {
    let mut o = options();
    o.engine = true;
    o.limits.chessdb_movetime_ms = 200;
    let srv = server(o);
    // Not in the book, too many pieces for the tables: the engine answers.
    let fen = "4kab2/4a4/4b4/p3p3p/2p6/6P2/P1P1P3P/4B4/4A4/2BAK4 w";
    let pos = Position::from_fen(&format!("{fen} - - 0 1")).expect("fen");
    let best = text_of(&query(&srv, "querybest", fen, ""));
    let best = best.strip_prefix("move:").expect("move:X").to_string();
    let ban = format!("&ban=move:{best}");
    let other = text_of(&query(&srv, "querybest", fen, &ban));
    let other = other.strip_prefix("move:").unwrap_or_else(|| panic!("a move besides {best}: {other}")).to_string();
    assert_ne!(other, best);
    assert!(qiku::notation::iccs::parse(&pos, &other).is_ok(), "{other} is legal");
    let all = xqmagic_parse(&query(&srv, "queryall", fen, &ban)).expect("parses").expect("moves");
    assert!(all.iter().all(|m| m.mv != best) && !all.is_empty(), "{all:?}");
    let pv = query_json(&srv, "querypv", fen, &ban);
    assert_eq!(pv["status"], "ok", "{pv}");
    assert_ne!(pv["pv"][0], best.as_str());
    // Every move but one banned: that one.
    let legal: Vec<String> = pos.moves().iter().map(|m| m.to_string()).collect();
    let keep = &legal[legal.len() / 2];
    let ban_all: String =
        legal.iter().filter(|m| *m != keep).map(|m| format!("move:{m}")).collect::<Vec<_>>().join("|");
    assert_eq!(text_of(&query(&srv, "querybest", fen, &format!("&ban={ban_all}"))), format!("move:{keep}"));
    // Every move banned: none.
    let ban_every: String = legal.iter().map(|m| format!("move:{m}")).collect::<Vec<_>>().join("|");
    assert_eq!(text_of(&query(&srv, "querybest", fen, &format!("&ban={ban_every}"))), "nobestmove");
}

/// The engine answers a position once: every action asked about it answers from that one search
/// (`querybest`'s move is `querypv`'s first, with one score), asking again gives the same move,
/// and a position it has answered is answered even while every search permit is taken.
#[test]
fn the_engine_answers_a_position_once() {
    let mut o = options();
    o.engine = true;
    o.limits.chessdb_movetime_ms = 300;
    o.limits.max_searches = 1;
    let srv = server(o);
    // Not in the book, too many pieces for the tables: the engine answers.
    let fen = "4kab2/4a4/4b4/p3p3p/2p6/6P2/P1P1P3P/4B4/4A4/2BAK4 w";
    let best = text_of(&query(&srv, "querybest", fen, ""));
    let mv = best.strip_prefix("move:").unwrap_or_else(|| panic!("move:X, not {best}")).to_string();
    let pv = query_json(&srv, "querypv", fen, "");
    assert_eq!(pv["pv"][0], mv.as_str(), "{pv}");
    let score = pv["score"].as_i64().expect("a score");
    assert_eq!(query_json(&srv, "queryscore", fen, "")["eval"].as_i64(), Some(score));
    let all = query_json(&srv, "queryall", fen, "");
    assert_eq!(all["moves"][0]["uci"], mv.as_str(), "{all}");
    assert_eq!(all["moves"][0]["score"].as_i64(), Some(score), "{all}");
    assert_eq!(text_of(&query(&srv, "querysearch", fen, "")), format!("search:{mv}"));
    for _ in 0..3 {
        assert_eq!(text_of(&query(&srv, "querybest", fen, "")), best);
    }
    // The only search permit held by a long analysis: the answered position is still answered,
    // one never searched gets ChessDB's reply for a position nothing knows.
    let addr = srv.addr;
    let other = "4kab2/4a4/4b4/p3p3p/2p6/6P2/P1P1P3P/4B4/4A4/2BAK4 b";
    let long = std::thread::spawn(move || get(addr, &format!("/api/analyze?fen={}&movetime=4000", enc(other))));
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert_eq!(text_of(&query(&srv, "querybest", fen, "")), best);
    assert_eq!(query_json(&srv, "queryscore", fen, "")["eval"].as_i64(), Some(score));
    assert_eq!(text_of(&query(&srv, "querybest", other, "")), "nobestmove", "the permit is taken");
    assert_eq!(long.join().expect("the analysis").0, 200);
}

/// A table line stops before it repeats a position (a value only the Asian rules decide would
/// otherwise go round its perpetual check to the length limit), and `depth` is its length, as
/// ChessDB counts it.
#[test]
fn table_lines_stop_at_a_repetition() {
    let srv = server(options());
    for fen in ["9/4k4/9/7R1/9/9/9/3n5/9/3K5 b", "3k5/4n4/9/9/9/9/9/9/R8/4K4 w", "4k4/9/4n4/9/9/9/9/4R4/9/3K5 b"] {
        let jp = query_json(&srv, "querypv", fen, "");
        let line: Vec<&str> = jp["pv"].as_array().expect("pv").iter().map(|m| m.as_str().expect("move")).collect();
        assert_eq!(jp["depth"].as_u64(), Some(line.len() as u64), "{fen}: {jp}");
        assert!(line.len() < 60, "{fen}: {} plies", line.len());
        let mut pos = Position::from_fen(&format!("{fen} - - 0 1")).expect("fen");
        let key = |p: &Position| p.fen().split(' ').take(2).collect::<Vec<_>>().join(" ");
        let mut seen = vec![key(&pos)];
        for m in &line {
            pos = pos.play(qiku::notation::iccs::parse(&pos, m).expect("legal")).expect("legal");
            assert!(!seen.contains(&key(&pos)), "{fen}: {m} repeats a position of {line:?}");
            seen.push(key(&pos));
        }
        let text = text_of(&query(&srv, "querypv", fen, ""));
        assert!(text.contains(&format!("depth:{},", line.len())), "{text}");
    }
}
