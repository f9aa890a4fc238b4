//! The JSON API over loopback, against a book built from the repository's CCPD games and
//! generated tables: the counts are the library's `Book::probe` (what `qiku-book probe` prints)
//! and the table values are `Tablebases::probe_with` / `move_values_with` / `best_moves_with`
//! (what `qiku-tb probe --json` prints), under the Asian rules by default.

use crate::common::*;
use qiku::book::Book;
use qiku::tablebase::{Material, Rules, Tablebases};
use qiku::Position;
use serde_json::Value;

/// The position after following the book's most played move `plies` times from the start.
fn book_line(book: &Book, plies: usize) -> (Position, Vec<String>) {
    let mut pos = Position::startpos();
    let mut moves = Vec::new();
    for _ in 0..plies {
        let list = book.probe(&pos).expect("book readable");
        let Some(m) = list.first() else { break };
        moves.push(m.mv.to_string());
        pos = pos.play(m.mv).expect("book moves are legal");
    }
    (pos, moves)
}

fn check_explore_counts(srv: &qiku_serve::Running, book: &Book, moves: &[String]) -> Value {
    let mut pos = Position::startpos();
    for m in moves {
        pos = pos.play(qiku::notation::iccs::parse(&pos, m).expect("legal")).expect("legal");
    }
    let (status, v) = get_json(srv.addr, &format!("/api/explore?moves={}", enc(&moves.join(" "))));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["fen"], pos.fen());
    let expected = book.probe(&pos).expect("book readable");
    let got = v["moves"].as_array().expect("moves");
    assert_eq!(got.len(), expected.len(), "same number of book moves as qiku-book probe");
    let red = pos.turn() == qiku::Color::Red;
    let (mut tr, mut td, mut tb, mut tw, mut tl) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g["iccs"], e.mv.to_string(), "same order as qiku-book probe");
        assert_eq!(g["games"].as_u64(), Some(e.counts.games()));
        let (r, b) = if red { (e.counts.wins, e.counts.losses) } else { (e.counts.losses, e.counts.wins) };
        assert_eq!(
            (g["red"].as_u64(), g["draws"].as_u64(), g["black"].as_u64()),
            (Some(r.into()), Some(e.counts.draws.into()), Some(b.into()))
        );
        // The same games for the side to move, as `qiku-book probe --json` counts them.
        assert_eq!(
            (g["wins"].as_u64(), g["losses"].as_u64()),
            (Some(e.counts.wins.into()), Some(e.counts.losses.into())),
            "{g}"
        );
        tw += u64::from(e.counts.wins);
        tl += u64::from(e.counts.losses);
        match (g["score"].as_f64(), e.counts.score()) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-12, "{a} {b}"),
            (a, b) => assert_eq!(a, b),
        }
        assert_eq!(g["chinese"], qiku::notation::chinese::format(&pos, e.mv));
        assert_eq!(g["wxf"], qiku::notation::wxf::format(&pos, e.mv));
        assert_eq!(g["with_mirror"]["iccs"].as_str(), e.merged_mirror(&pos).map(|x| x.to_string()).as_deref());
        tr += u64::from(r);
        td += u64::from(e.counts.draws);
        tb += u64::from(b);
    }
    assert_eq!(
        (v["book"]["red"].as_u64(), v["book"]["draws"].as_u64(), v["book"]["black"].as_u64()),
        (Some(tr), Some(td), Some(tb))
    );
    assert_eq!((v["book"]["wins"].as_u64(), v["book"]["losses"].as_u64()), (Some(tw), Some(tl)));
    // Red moves at the start (and after 10 plies), black after 5: wins are red's or black's.
    let (wins, losses) = if red { ("red", "black") } else { ("black", "red") };
    assert_eq!((&v["book"]["wins"], &v["book"]["losses"]), (&v["book"][wins], &v["book"][losses]));
    assert_eq!(v["legal"].as_array().map(Vec::len), Some(pos.moves().len()));
    v
}

#[test]
fn explore_counts_are_the_books() {
    let srv = server(options());
    let book = Book::open(&fixtures().book).expect("book");
    let v = check_explore_counts(&srv, &book, &[]);
    assert!(v["book"]["games"].as_u64().expect("games") > 20_000, "the CCPD book has its games: {}", v["book"]);
    assert_eq!(v["turn"], "red");
    assert_eq!(v["status"], "ok");
    assert!(v["tablebase"].is_null());
    // The start is its own mirror image: the cannon's central move stands for both cannons'.
    let h2e2 = v["moves"].as_array().expect("moves").iter().find(|m| m["iccs"] == "h2e2").expect("h2e2");
    assert_eq!(h2e2["with_mirror"]["iccs"], "b2e2", "{h2e2}");
    // After five plies and ten plies of the main line.
    for plies in [5, 10] {
        let (_, moves) = book_line(&book, plies);
        assert_eq!(moves.len(), plies);
        let v = check_explore_counts(&srv, &book, &moves);
        assert_eq!(v["played"].as_array().map(Vec::len), Some(plies));
        assert!(!v["moves"].as_array().expect("moves").is_empty());
    }
}

#[test]
fn explore_reads_every_notation() {
    let srv = server(options());
    let chinese = enc("炮二平五 馬８進７");
    let (s1, a) = get_json(srv.addr, "/api/explore?moves=h2e2,h9g7");
    let (s2, b) = get_json(srv.addr, &format!("/api/explore?moves={chinese}"));
    let (s3, c) = get_json(srv.addr, &format!("/api/explore?moves={}", enc("C2.5 H8+7")));
    assert_eq!((s1, s2, s3), (200, 200, 200));
    assert_eq!(a["fen"], b["fen"]);
    assert_eq!(a["fen"], c["fen"]);
    assert_eq!(a["played"][0], serde_json::json!({"iccs": "h2e2", "wxf": "C2.5", "chinese": "炮二平五"}));
}

/// Positions of the generated tables: KRvK, KNvK, KRvKN with either side to move.
const TABLE_FENS: &[&str] = &[
    "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1",
    "4k4/9/9/9/9/9/9/9/4R4/5K3 b - - 0 1",
    "3k5/9/9/9/4N4/9/9/9/9/4K4 w - - 0 1",
    "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1",
    "4k4/9/4n4/9/9/9/9/4R4/9/3K5 b - - 0 1",
];

fn check_tablebase(srv: &qiku_serve::Running, tb: &Tablebases, fen: &str, rules: Rules) {
    let pos = Position::from_fen(fen).expect("fen");
    let (status, v) = get_json(srv.addr, &format!("/api/tablebase?fen={}&rules={}", enc(fen), rules.name()));
    assert_eq!(status, 200, "{v}");
    let value = tb.probe_with(&pos, rules).expect("probe").expect("covered");
    let plain = tb.probe_with(&pos, Rules::Plain).expect("probe").expect("covered");
    assert_eq!(v["rules"], rules.name());
    assert_eq!(v["wdl"], value.wdl.name(), "{fen}");
    assert_eq!(v["dtm"].as_i64(), Some(i64::from(value.dtm.0)), "{fen}");
    assert_eq!(v["by_rule"].as_bool(), Some(value != plain));
    // The unit and the words are qiku-tb probe's.
    let verdict = tb.verdict(&pos, rules).expect("probe").expect("covered");
    assert_eq!(v["unit"], verdict.unit(), "{fen}");
    assert_eq!(v["text"], verdict.to_string(), "{fen}");
    // The WDL file's answer beside it, as `qiku-tb probe --json` shows it: the same result.
    let from_wdl = tb.probe_wdl_with(&pos, rules).expect("probe").expect("covered");
    assert!(tb.has_wdl(Material::from_position(&pos).canonical().0), "{fen}: the fixtures have WDL files");
    assert_eq!(v["wdl_file"], from_wdl.name(), "{fen}");
    assert_eq!(v["wdl_file"], v["wdl"], "{fen}");
    let best: Vec<String> =
        tb.best_moves_with(&pos, rules).expect("best").expect("covered").iter().map(|m| m.to_string()).collect();
    // The line is `best_moves`, as `qiku-tb probe --json` names it (ICCS, as every move list
    // here); `best` is each move's flag.
    assert_eq!(v["best_moves"], serde_json::json!(best));
    assert!(v.get("best").is_none(), "{v}");
    assert!(!best.is_empty() || value.wdl.name() != "win", "{fen}: a win has a line");
    let moves = tb.move_values_with(&pos, rules).expect("moves").expect("covered");
    let plain_moves = tb.move_values_with(&pos, Rules::Plain).expect("moves").expect("covered");
    let got = v["moves"].as_array().expect("moves");
    assert_eq!(got.len(), moves.len());
    for (g, (m, mv)) in got.iter().zip(&moves) {
        assert_eq!(g["iccs"], m.to_string(), "best first, as qiku-tb probe");
        assert_eq!(g["wdl"], mv.wdl.name());
        assert_eq!(g["dtm"].as_i64(), Some(i64::from(mv.dtm.0)));
        let p = plain_moves.iter().find(|(pm, _)| pm == m).expect("same moves").1;
        assert_eq!(g["by_rule"].as_bool(), Some(*mv != p));
        assert_eq!(g["unit"], if *mv != p { "line rank" } else { "plies" });
        assert_eq!(g["best"].as_bool(), Some(best.contains(&m.to_string())));
    }
}

#[test]
fn tablebase_values_are_the_tables() {
    let srv = server(options());
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    for fen in TABLE_FENS {
        check_tablebase(&srv, &tb, fen, Rules::Asian);
        check_tablebase(&srv, &tb, fen, Rules::Plain);
    }
    // The default is the Asian rules.
    let (_, v) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc(TABLE_FENS[0])));
    assert_eq!(v["rules"], "asian");
    // KRvK: red wins; the mate in one (the rook to the king's file) is first.
    assert_eq!(v["wdl"], "win");
    assert_eq!(v["dtm"], 1);
    assert_eq!(v["moves"][0]["dtm"], 1);
    // The explorer shows the same values.
    let (_, e) = get_json(srv.addr, &format!("/api/explore?fen={}", enc(TABLE_FENS[0])));
    assert_eq!(e["tablebase"], serde_json::json!({"wdl": "win", "dtm": 1, "by_rule": false, "unit": "plies"}));
    assert_eq!(e["moves"].as_array().map(Vec::len), v["moves"].as_array().map(Vec::len));
}

#[test]
fn a_value_decided_by_the_asian_rules_is_marked() {
    // Look through KRvKN for a position whose value the Asian rules change, with the library,
    // then check the API marks it.
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    let mut found = None;
    'search: for rk in ["d0", "e0", "f0", "d1", "e1", "e2"] {
        for bk in ["d9", "e9", "f9", "d8", "e8", "e7"] {
            for r in 0..90 {
                for n in 0..90 {
                    let sq = |i: usize| format!("{}{}", (b'a' + (i % 9) as u8) as char, i / 9);
                    let (rs, ns) = (sq(r), sq(n));
                    if [rk, bk].contains(&rs.as_str()) || [rk, bk].contains(&ns.as_str()) || rs == ns {
                        continue;
                    }
                    let mut setup = qiku::Setup::empty();
                    for (s, p) in [(rk, 'K'), (bk, 'k'), (rs.as_str(), 'R'), (ns.as_str(), 'n')] {
                        let square: qiku::Square = s.parse().expect("square");
                        setup.set(square, qiku::Piece::from_char(p));
                    }
                    for turn in [qiku::Color::Red, qiku::Color::Black] {
                        setup.turn = turn;
                        let Ok(pos) = Position::from_setup(&setup) else { continue };
                        let (Ok(Some(a)), Ok(Some(p))) =
                            (tb.probe_with(&pos, Rules::Asian), tb.probe_with(&pos, Rules::Plain))
                        else {
                            continue;
                        };
                        if a != p {
                            found = Some(pos);
                            break 'search;
                        }
                    }
                }
            }
        }
    }
    let pos = found.expect("KRvKN has positions the Asian rules decide");
    let srv = server(options());
    let (_, v) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc(&pos.fen())));
    assert_eq!(v["by_rule"], true, "{v}");
    assert_ne!(v["wdl"], "draw");
    let (_, p) = get_json(srv.addr, &format!("/api/tablebase?fen={}&rules=plain", enc(&pos.fen())));
    assert_eq!((p["wdl"].as_str(), p["by_rule"].as_bool()), (Some("draw"), Some(false)));
    check_tablebase(&srv, &tb, &pos.fen(), Rules::Asian);
}

#[test]
fn bad_requests_get_a_400_naming_the_problem() {
    let srv = server(options());
    let cases: &[(&str, &str)] = &[
        ("/api/explore?fen=xyz", "bad FEN"),
        ("/api/explore?moves=h2e2,zz99", "moves[1]"),
        ("/api/explore?moves=h2e2,h2e2", "moves[1]"),
        ("/api/tablebase?fen=startpos&rules=european", "unknown rules"),
        ("/api/explore?fen=%FF%FE", "not valid percent-encoded UTF-8"),
        ("/api/explore?fen=%E4%B8", "not valid percent-encoded UTF-8"),
        // Two hex digits after `%`: not a sign and one (Rust's number parser takes `+5` for 5).
        ("/api/explore?moves=h2e2&fen=%+5", "not valid percent-encoded UTF-8"),
        ("/api/explore?fen=a&fen=b", "given twice"),
        ("/api/analyze?movetime=0", "the engine is off"),
    ];
    for (target, words) in cases {
        let (status, v) = get_json(srv.addr, target);
        assert!(status == 400 || status == 404, "{target}: {status}");
        let msg = v["error"].as_str().unwrap_or_default();
        assert!(msg.contains(words), "{target}: {msg}");
    }
    let long = "r".repeat(5000);
    let (status, v) = get_json(srv.addr, &format!("/api/explore?fen={long}"));
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap_or_default().contains("at most 200"), "{v}");
    // No table covers the start position, nor can one; a missing table is named with the command
    // that makes it, as `qiku-tb probe` names it.
    let (status, v) = get_json(srv.addr, "/api/tablebase?fen=startpos");
    assert_eq!(status, 404);
    let said = v["error"].as_str().unwrap_or_default();
    assert!(said.contains("none can be made: it has 32 pieces, and a table holds at most 12"), "{said}");
    let (status, v) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc("3k5/4c4/9/9/9/9/9/9/R8/4K4 w")));
    assert_eq!(status, 404);
    let said = v["error"].as_str().unwrap_or_default();
    assert!(
        said.contains("no table for KRvKC in ") && said.contains("(generate it with `qiku-tb generate KRvKC -d "),
        "{said}"
    );
}

/// A WXF move typed with its `+` as it is (`moves=H2+3`) reaches the server as two tokens, `+`
/// being a space in a URL: the `400` says so and how to send it (`%2B`), rather than only citing
/// `H8+7` as the form expected. A `+` between moves is a separator, and a bad move with no `+`
/// next to it gets no such advice.
#[test]
fn a_raw_plus_in_a_move_says_to_send_it_as_2b() {
    let srv = server(options());
    let advice = "a `+` in a URL is read as a space, as here: send a move's `+` as `%2B`";
    let (status, v) = get_json(srv.addr, "/api/explore?moves=H2+3");
    assert_eq!(status, 400, "{v}");
    let msg = v["error"].as_str().expect("an error");
    assert!(msg.starts_with("moves[0] in ") && msg.contains("cannot read move \"H2\""), "{msg}");
    assert!(msg.contains(&format!("{advice}, as in H2%2B3 (moves are played")), "{msg}");
    // As advised: the horse's move.
    let (status, v) = get_json(srv.addr, "/api/explore?moves=H2%2B3");
    assert_eq!((status, v["played"][0]["iccs"].as_str()), (200, Some("h0g2")), "{v}");
    // Later in the list, on another endpoint, and with only the advice when the parts joined do not
    // read as a move.
    let (status, v) = get_json(srv.addr, "/api/tablebase?fen=startpos&moves=h2e2+h9g7+C8+7");
    assert_eq!(status, 400, "{v}");
    let msg = v["error"].as_str().expect("an error");
    assert!(msg.starts_with("moves[2] in ") && msg.contains(&format!("{advice}, as in C8%2B7")), "{msg}");
    let (status, v) = get_json(srv.addr, "/api/explore?moves=h2e2+zz+h9g7");
    assert_eq!(status, 400, "{v}");
    let msg = v["error"].as_str().expect("an error");
    assert!(msg.contains(&format!("{advice} (moves are played")), "{msg}");
    // `+` between moves is a separator; no `+` near a bad move, no advice.
    let (status, v) = get_json(srv.addr, "/api/explore?moves=h2e2+h9g7");
    assert_eq!((status, v["played"].as_array().map(Vec::len)), (200, Some(2)), "{v}");
    let (status, v) = get_json(srv.addr, "/api/explore?moves=h2e2,zz99");
    assert_eq!(status, 400, "{v}");
    assert!(!v["error"].as_str().expect("an error").contains("%2B"), "{v}");
}

/// A bad move in `moves` is named by its index and text, with the position (FEN) it was tried
/// in; `fen=startpos` is the start position, and moves written into `fen` (`startpos moves ...`,
/// as a UCI engine is told) are refused with the syntax that is accepted.
#[test]
fn bad_moves_and_fens_say_where_and_what_is_accepted() {
    let srv = server(options());
    let after = |fen: &str, moves: &[&str]| {
        let mut p = Position::from_fen(fen).expect("fen");
        for m in moves {
            p = p.play(qiku::notation::iccs::parse(&p, m).expect("move")).expect("legal");
        }
        p.fen()
    };
    let start = Position::startpos().fen();
    let after_h2e2 = after(&start, &["h2e2"]);
    let krk = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1";
    let cases = [
        ("/api/explore?moves=h2e2,h2e2".to_string(), "moves[1]", "\"h2e2\"", after_h2e2.clone()),
        ("/api/explore?moves=h2e2%20zz99".to_string(), "moves[1]", "\"zz99\"", after_h2e2.clone()),
        ("/api/game?n=0&moves=a0a5".to_string(), "moves[0]", "\"a0a5\"", start.clone()),
        (
            format!("/api/tablebase?fen={}&moves=a1a0,d9d8,e0e2", enc(krk)),
            "moves[2]",
            "\"e0e2\"",
            after(krk, &["a1a0", "d9d8"]),
        ),
    ];
    for (target, index, token, fen) in &cases {
        let target = target.as_str();
        let fen = fen.as_str();
        let (status, v) = get_json(srv.addr, target);
        assert_eq!(status, 400, "{target}: {v}");
        let msg = v["error"].as_str().expect("an error");
        for part in [index, token, fen] {
            assert!(msg.contains(part), "{target}: {part} not in {msg}");
        }
    }
    // `startpos` names the start position; the moves go in `moves`.
    let (status, v) = get_json(srv.addr, "/api/explore?fen=startpos&moves=h2e2");
    assert_eq!((status, v["fen"].as_str()), (200, Some(after_h2e2.as_str())), "{v}");
    let (status, v) = get_json(srv.addr, "/api/explore?fen=startpos");
    assert_eq!((status, v["fen"].as_str()), (200, Some(Position::startpos().fen().as_str())), "{v}");
    for fen in ["startpos moves h2e2".to_string(), format!("{start} moves h2e2"), "position startpos".to_string()] {
        let (status, v) = get_json(srv.addr, &format!("/api/explore?fen={}", enc(&fen)));
        assert_eq!(status, 400, "{fen}: {v}");
        let msg = v["error"].as_str().expect("an error");
        assert!(msg.contains("`startpos`") && msg.contains("fen=startpos&moves=h2e2 h9g7"), "{fen}: {msg}");
    }
}

#[test]
fn pages_and_assets_are_served_and_nothing_else() {
    let srv = server(options());
    for (path, ctype, needle) in [
        ("/", "text/html", "/assets/app.js"),
        ("/tables", "text/html", "/assets/tables.js"),
        ("/assets/app.js", "text/javascript", "api/explore"),
        ("/assets/board.js", "text/javascript", "GLYPHS"),
        ("/assets/glyphs.js", "text/javascript", "帥"),
        ("/assets/style.css", "text/css", ".board-svg"),
        ("/assets/LICENSE-glyphs.txt", "text/plain", "SIL OPEN FONT LICENSE"),
    ] {
        let (status, head, body) = get(srv.addr, path);
        assert_eq!(status, 200, "{path}");
        assert!(head.to_ascii_lowercase().contains(&format!("content-type: {ctype}")), "{path}: {head}");
        assert!(head.to_ascii_lowercase().contains("x-content-type-options: nosniff"));
        assert!(String::from_utf8_lossy(&body).contains(needle), "{path}");
    }
    // The pages name an empty icon; a browser that asks for /favicon.ico anyway gets no error.
    for page in ["/", "/tables"] {
        let (_, _, body) = get(srv.addr, page);
        assert!(String::from_utf8_lossy(&body).contains(r#"<link rel="icon" href="data:,">"#), "{page}");
    }
    let (status, _, body) = get(srv.addr, "/favicon.ico");
    assert_eq!((status, body.len()), (204, 0));
    let (_, info) = get_json(srv.addr, "/api/info");
    assert_eq!(info["books"], serde_json::json!(["ccpd.qbk"]));
    assert_eq!(
        info["tables"].as_u64(),
        Some(qiku::tablebase::Tablebases::open(&fixtures().tables).expect("tb").usable_tables().len() as u64)
    );
    assert_eq!(info["engine"], false);
}

/// A table's counts without and with the Asian rules (red to move, black to move), read from its
/// files as `qiku-tb stats` reads them.
fn stats_counts(material: &str) -> ([qiku::tablebase::Counts; 2], [qiku::tablebase::Counts; 2]) {
    use qiku::tablebase::generate::{load, load_rules};
    let m: Material = material.parse().expect("material");
    let dir = &fixtures().tables;
    let table = std::sync::Arc::new(load(&dir.join(qiku::tablebase::file_name(m))).expect("table"));
    let rules = load_rules(&dir.join(qiku::tablebase::rules_file_name(m)), &table).expect("companion");
    (table.counts(), rules.counts())
}

#[test]
fn tables_list_and_statistics() {
    let srv = server(options());
    let (status, v) = get_json(srv.addr, "/api/tables");
    assert_eq!(status, 200);
    let list = v["tables"].as_array().expect("tables");
    let krk = list.iter().find(|t| t["material"] == "KRvK").expect("KRvK listed");
    // Known: KRvK is won for red to move in all 3,834 legal positions.
    assert_eq!((krk["red"]["legal"].as_u64(), krk["red"]["wins"].as_u64()), (Some(3834), Some(3834)));
    let (status, s) = get_json(srv.addr, "/api/tables/KRvKN");
    assert_eq!(status, 200, "{s}");
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    let file = tb.table("KRvKN".parse().expect("material")).expect("open").expect("present");
    for side in 0..2 {
        let h: Vec<u64> =
            s["histogram"][side].as_array().expect("histogram").iter().map(|x| x.as_u64().unwrap_or(0)).collect();
        let c = file.header().counts[side];
        assert_eq!(h.iter().sum::<u64>(), c.wins + c.losses, "the histogram counts every decided position");
        assert_eq!(h.len() as u64, c.max_dtm + 1);
        assert_eq!(s["plain"][side]["legal"].as_u64(), Some(c.legal));
    }
    // The longest mate's position is a win at that distance.
    let fen = s["longest"][0].as_str().expect("fen");
    let d = s["longest"][1].as_i64().expect("plies");
    let pos = Position::from_fen(fen).expect("a legal position");
    let value = tb.probe_with(&pos, Rules::Plain).expect("probe").expect("covered");
    assert_eq!((value.wdl.name(), i64::from(value.dtm.0)), ("win", d));
    // `changed`: the positions only the Asian rules decide, per side to move, as `qiku-tb stats
    // --json` counts them (its `changed`: the plain table's draws less the rule-aware table's).
    let (plain, asian) = stats_counts("KRvKN");
    let changed = qiku::tablebase::generate::changed(&plain, &asian);
    assert!(changed.iter().sum::<u64>() > 0, "the rules decide some KRvKN positions: {changed:?}");
    assert_eq!(s["changed"], serde_json::json!(changed), "{s}");
    assert!(s.get("decided_by_rule").is_none(), "{s}");
    // The Asian counts' max_dtm mixes plies and line ranks; the longest mate and the highest
    // line rank come apart, as `qiku-tb stats --json` gives them (the same library call).
    let mut ranks = 0;
    for side in 0..2 {
        assert_eq!(changed[side], plain[side].draws - asian[side].draws);
        let a = &s["asian"][side];
        assert_eq!(a["draws"].as_u64(), Some(asian[side].draws));
        assert_eq!(a["max_dtm"].as_u64(), Some(asian[side].max_dtm), "{a}");
        assert_eq!(a["longest_mate_plies"].as_u64(), Some(plain[side].max_dtm), "{a}");
        assert_eq!(s["plain"][side]["max_dtm"], a["longest_mate_plies"], "the mates are the plain table's");
        let rank = qiku::tablebase::highest_line_rank(&plain[side], &asian[side]);
        assert_eq!(a["highest_line_rank"].as_u64(), rank, "{a}");
        if let Some(r) = rank {
            assert!(r > plain[side].max_dtm && r == asian[side].max_dtm, "{a}");
            ranks += 1;
        }
    }
    assert!(ranks > 0, "KRvKN has a line rank above its longest mate: {s}");
    // A well-formed material without a table here: 404; a malformed one: 400, naming the fault.
    let (status, v) = get_json(srv.addr, "/api/tables/KRRvK");
    assert_eq!(status, 404);
    let said = v["error"].as_str().unwrap_or_default();
    assert!(said.starts_with("no table for KRRvK in ") && said.contains("`qiku-tb generate KRRvK -d "), "{v}");
    for (bad, why) in [("KRvKQ", "unknown piece letter 'Q'"), ("xyz", "two sides")] {
        let (status, v) = get_json(srv.addr, &format!("/api/tables/{bad}"));
        assert_eq!(status, 400, "{bad}: {v}");
        assert!(v["error"].as_str().unwrap_or_default().contains(why), "{bad}: {v}");
    }
    let (status, _, _) = get(srv.addr, "/api/tables/..%2F..%2Fetc");
    assert_eq!(status, 400);
}

#[test]
fn the_engine_answers_within_its_bounds() {
    let mut o = options();
    o.engine = true;
    let srv = server(o);
    let (status, v) = get_json(srv.addr, "/api/analyze?moves=h2e2&depth=4");
    assert_eq!(status, 200, "{v}");
    assert!(v["depth"].as_u64().expect("depth") >= 1);
    let pv = v["pv"].as_array().expect("pv");
    assert!(!pv.is_empty());
    // The line is legal from the position.
    let mut pos = Position::from_fen(v["fen"].as_str().expect("fen")).expect("fen");
    for m in pv {
        let mv = qiku::notation::iccs::parse(&pos, m["iccs"].as_str().expect("iccs")).expect("legal pv");
        pos = pos.play(mv).expect("legal");
    }
    let (status, _) = get_json(srv.addr, "/api/analyze?movetime=999999");
    assert_eq!(status, 400);
}

/// The engine in the server is given the tables, as the `qiku` engine is: in a table position
/// it reports the tables' mate, not a centipawn guess.
#[test]
fn the_engine_uses_the_tables() {
    let mut o = options();
    o.engine = true;
    let srv = server(o);
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    let fen = "4k4/9/9/8R/9/9/9/6n2/9/5K3 w - - 0 1";
    let value = tb.probe_with(&Position::from_fen(fen).expect("fen"), Rules::Asian).expect("probe").expect("KRvKN");
    assert_eq!(value.wdl.name(), "win");
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=300", enc(fen)));
    assert_eq!(status, 200, "{v}");
    // Mate in moves: the table's plies, the mating move counted.
    assert_eq!(v["mate"].as_i64(), Some(i64::from((value.dtm.0 + 1) / 2)), "{v}");
    assert_eq!(v["cp"], Value::Null);
    // Beside it the tables' verdict in plies, as `qiku probe --json` writes a table value.
    assert_eq!((v["source"].as_str(), v["rules"].as_str()), (Some("tablebase"), Some("asian")), "{v}");
    let t = &v["tablebase"];
    assert_eq!(
        (t["wdl"].as_str(), t["by_rule"].as_bool(), t["unit"].as_str()),
        (Some("win"), Some(false), Some("plies"))
    );
    assert_eq!(t["dtm"].as_i64(), Some(i64::from(value.dtm.0)), "{v}");
    assert_eq!(t["text"].as_str(), Some(format!("win, mate in {} plies (asian rules)", value.dtm.0).as_str()));
}

/// A win only the repetition rules decide is no centipawn score: the API gives the tables'
/// verdict (the library's `Verdict`, with its rules, unit and words) and no `cp`; under the
/// plain rules the engine is given the plain tables and says so.
#[test]
fn the_engine_gives_the_tables_verdict_and_its_rules() {
    let mut o = options();
    o.engine = true;
    let srv = server(o);
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    let fen = "9/9/4k4/1R7/9/9/6n2/9/5K3/9 w - - 0 1";
    let pos = Position::from_fen(fen).expect("fen");
    let verdict = tb.verdict(&pos, Rules::Asian).expect("probe").expect("KRvKN");
    assert!(verdict.by_rule && verdict.value.wdl.name() == "win", "{verdict}");
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=300", enc(fen)));
    assert_eq!(status, 200, "{v}");
    assert_eq!((&v["cp"], &v["mate"]), (&Value::Null, &Value::Null), "no internal score code: {v}");
    assert_eq!((v["source"].as_str(), v["rules"].as_str()), (Some("tablebase"), Some("asian")));
    // The position's verdict, as every tool says it (the engine's `info string` too), also where
    // the table's line move ranks higher (its quiet move into the repeating checks: 31 here).
    let m = qiku::notation::iccs::parse(&pos, v["pv"][0]["iccs"].as_str().expect("a move")).expect("legal");
    assert!(tb.best_moves(&pos).expect("probe").expect("covered").contains(&m));
    let played = tb.verdict(&pos.play(m).expect("legal"), Rules::Asian).expect("probe").expect("covered").before_move();
    assert_eq!((played.value.dtm.0, verdict.value.dtm.0), (31, 29));
    let played = verdict;
    let t = &v["tablebase"];
    assert_eq!(
        (t["wdl"].as_str(), t["by_rule"].as_bool(), t["unit"].as_str(), t["rules"].as_str()),
        (Some("win"), Some(true), Some("line rank"), Some("asian")),
        "{v}"
    );
    assert_eq!(t["dtm"].as_i64(), Some(i64::from(played.value.dtm.0)));
    assert_eq!(t["text"].as_str(), Some(played.to_string().as_str()));
    // Plain rules: the tables say draw, the engine searches among the drawing moves.
    let (status, p) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=300&rules=plain", enc(fen)));
    assert_eq!(status, 200, "{p}");
    assert_eq!((p["source"].as_str(), p["rules"].as_str()), (Some("search"), Some("plain")), "{p}");
    assert_eq!(p["tablebase"]["text"], "draw (plain rules)", "{p}");
    let (status, e) = get_json(srv.addr, "/api/analyze?rules=european");
    assert_eq!(status, 400, "{e}");
    // No legal move: mated now, no line.
    let stalemate = "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1";
    let (status, s) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=100", enc(stalemate)));
    assert_eq!(status, 200, "{s}");
    assert_eq!((s["mate"].as_i64(), s["cp"].is_null(), s["pv"].as_array().map(Vec::len)), (Some(0), true, Some(0)));
}

/// A further source of recent games that knows one game through the start position, dated
/// after every game of the shipped collection.
struct OneGame;

impl qiku_serve::adapter::RecentGames for OneGame {
    fn recent_games(&self, pos: &Position) -> Result<Vec<qiku_serve::adapter::RecentGame>, String> {
        let game = qiku_serve::adapter::RecentGame {
            red: "Red player".into(),
            black: "Black player".into(),
            event: "Test event".into(),
            date: "2999.05.01".into(),
            result: "1-0".into(),
            start: Position::startpos().fen(),
            moves: ["h2e2", "h9g7", "h0g2"].map(String::from).to_vec(),
            ply: 0,
            mirrored: false,
        };
        Ok(if *pos == Position::startpos() { vec![game] } else { Vec::new() })
    }
}

/// The explorer lists the book's own recent games of each position, as `Book::recent_games`
/// gives them, and each replays from its start to the position itself; `mirrored` says which
/// were played as the mirror image (the books merge a position with it).
#[test]
fn recent_games_reach_the_explorer() {
    let o = options();
    let book = qiku::book::Book::open(&o.books[0]).expect("book");
    let srv = qiku_serve::start(o.clone()).expect("server");
    let mut seen_mirrored = [false, false];
    for moves in ["", "h2e2", "h2e2 h9g7", "c3c4", "b2e2"] {
        let mut pos = Position::startpos();
        for m in moves.split_whitespace() {
            pos = pos.play(qiku::notation::iccs::parse(&pos, m).expect("move")).expect("legal");
        }
        let expected = book.recent_games(&pos).expect("recent games");
        assert!(!expected.is_empty(), "the shipped games reach {moves:?}");
        let (status, v) = get_json(srv.addr, &format!("/api/explore?moves={}", moves.replace(' ', "%20")));
        assert_eq!(status, 200);
        let games = v["recent_games"].as_array().expect("recent games");
        assert_eq!(games.len(), expected.len().min(8), "{moves:?}");
        for (n, (listed, e)) in games.iter().zip(&expected).enumerate() {
            assert_eq!(listed["n"], n);
            assert_eq!(
                (listed["red"].as_str(), listed["date"].as_str()),
                (Some(e.red.as_str()), Some(e.date.as_str()))
            );
            // The list stays small: the game itself comes from /api/game.
            assert!(listed.get("moves").is_none() && listed.get("start").is_none(), "{listed}");
            assert!(listed.get("fen").is_none(), "{listed}");
            let (status, g) = get_json(srv.addr, &format!("/api/game?moves={}&n={n}", moves.replace(' ', "%20")));
            assert_eq!(status, 200, "{g}");
            assert_eq!((g["red"].as_str(), g["ply"].as_u64()), (listed["red"].as_str(), listed["ply"].as_u64()));
            // `start` is the game's own start position (`fen` is the position itself elsewhere,
            // and not given here): replayed with the game's first `ply` moves it reaches the
            // position asked about.
            assert!(g.get("fen").is_none(), "{g}");
            let mut at = Position::from_fen(g["start"].as_str().expect("start")).expect("start");
            let ply = g["ply"].as_u64().expect("ply") as usize;
            for m in &g["moves"].as_array().expect("moves")[..ply] {
                at =
                    at.play(qiku::notation::iccs::parse(&at, m.as_str().expect("iccs")).expect("move")).expect("legal");
            }
            assert!(at == pos, "{moves:?}: replay reaches {}", at.fen());
            // Said in both lists, as the library says it; the game as played is the moves
            // mirrored back, which reach the mirror image.
            assert_eq!(listed["mirrored"].as_bool(), Some(e.mirrored), "{moves:?} {n}: {listed}");
            assert_eq!(g["mirrored"].as_bool(), Some(e.mirrored), "{moves:?} {n}: {g}");
            seen_mirrored[usize::from(e.mirrored)] = true;
            if e.mirrored {
                let mut played = Position::from_fen(g["start"].as_str().expect("start")).expect("start").mirror();
                for m in &g["moves"].as_array().expect("moves")[..ply] {
                    let m = qiku::notation::iccs::parse_move(m.as_str().expect("iccs")).expect("move");
                    played = played.play(m.mirror()).expect("legal");
                }
                assert!(played == pos.mirror() && pos != pos.mirror(), "{moves:?}: {}", played.fen());
            }
        }
        let (status, _) = get_json(srv.addr, &format!("/api/game?moves={}&n=7", moves.replace(' ', "%20")));
        assert_eq!(status, if games.len() > 7 { 200 } else { 404 }, "{moves:?}");
    }
    assert_eq!(seen_mirrored, [true, true], "games played as listed and as the mirror image");
    for bad in ["/api/game", "/api/game?n=x", "/api/game?n=8", "/api/game?n=99999999999999999999"] {
        assert_eq!(get_json(srv.addr, bad).0, 400, "{bad}");
    }
    // A further source is merged in by date: the newest game comes first.
    let mut state = qiku_serve::load(&o).expect("data");
    state.books.add_recent_games(Box::new(OneGame));
    let srv = qiku_serve::start_with(state, std::net::SocketAddr::new(o.bind, 0)).expect("server");
    let (_, v) = get_json(srv.addr, "/api/explore");
    assert_eq!(v["recent_games"][0]["red"], "Red player");
    let (status, g) = get_json(srv.addr, "/api/game?n=0");
    assert_eq!((status, g["moves"][2].as_str()), (200, Some("h0g2")));
    assert_eq!(g["start"].as_str(), Some(Position::startpos().fen().as_str()), "{g}");
}

/// A book that cannot be opened: the library's words (which name the file, not repeated here),
/// and the way to build one when it is missing or no book.
#[test]
fn a_missing_book_says_how_to_build_one() {
    let dir = tempfile::tempdir().expect("a directory");
    let missing = dir.path().join("missing.qbk");
    let mut o = options();
    o.books = vec![missing.clone()];
    let msg = match qiku_serve::load(&o) {
        Ok(_) => panic!("a missing book opens"),
        Err(e) => e.to_string(),
    };
    let path = missing.display().to_string();
    assert!(msg.starts_with(&format!("book: {path}: cannot open: ")), "{msg}");
    assert!(!msg.contains(&format!("{path}: {path}")), "{msg}");
    assert!(
        msg.ends_with(&format!("(a book is built from games with `qiku-book build GAMES.pgn -o {path}`)")),
        "{msg}"
    );
    // A file that is no book: the same hint; a damaged book keeps the library's words alone.
    std::fs::write(&missing, "1. h2e2 h9g7 *\n").expect("write");
    let msg = match qiku_serve::load(&o) {
        Ok(_) => panic!("a game file opens as a book"),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains("not a qiku opening book") && msg.contains("qiku-book build"), "{msg}");
}

/// A book damaged inside its records (one game count changed) is refused at start-up, naming the
/// file, as the engine and `qiku-book probe` refuse it: it was served with the wrong count.
#[test]
fn a_damaged_book_is_refused_at_start() {
    let dir = tempfile::tempdir().expect("a directory");
    let damaged = dir.path().join("damaged.qbk");
    let mut bytes = std::fs::read(&fixtures().book).expect("the book");
    // docs/FORMAT.md: the records follow the 128-byte header, 26 bytes each, the first game count
    // at byte 10 of a record. The tenth record's first count changes by one.
    bytes[128 + 9 * 26 + 10] ^= 0x01;
    std::fs::write(&damaged, &bytes).expect("write");
    let mut o = options();
    o.books = vec![damaged.clone()];
    let msg = match qiku_serve::load(&o) {
        Ok(_) => panic!("a damaged book opens"),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains(&damaged.display().to_string()) && msg.contains("checksum"), "{msg}");
    assert!(qiku::book::Book::open(&damaged).is_err(), "the library refuses it too");
}

/// A book given twice, or by two paths, is refused at start-up: probed together its games were
/// counted twice (76,104 games for 25,368, and other scores).
#[test]
fn a_book_given_twice_is_refused() {
    let mut o = options();
    let book = fixtures().book.clone();
    let other_path = book.parent().unwrap().join(".").join(book.file_name().unwrap());
    o.books = vec![book.clone(), other_path.clone()];
    o.port = 0;
    let err = qiku_serve::start(o).err().expect("refused").to_string();
    assert!(err.contains("named twice") && err.contains(&book.display().to_string()), "{err}");
}

/// `/api/analyze` of a side without a move still gives the tables' verdict (it was null: the
/// player had no move to choose), as `/api/tablebase` does.
#[test]
fn analyze_gives_the_tables_verdict_of_a_mated_side() {
    let mut o = options();
    o.engine = true;
    let srv = server(o);
    let mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1";
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=100", enc(mated)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["tablebase"]["text"], "loss, no legal move (asian rules)", "{v}");
    let (_, t) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc(mated)));
    assert_eq!(t["text"], v["tablebase"]["text"], "{t}");
}

/// Flips a byte in the middle of every block of the table file at `path`: its header and block
/// index still read, every probe of it fails its block checksum.
fn flip_every_block(path: &std::path::Path) {
    use qiku::tablebase::format::TableFile;
    let blocks: Vec<u64> =
        TableFile::open(path).expect("open").blocks().iter().map(|b| b.offset + u64::from(b.len) / 2).collect();
    assert!(!blocks.is_empty());
    for at in blocks {
        flip_byte(path, Some(usize::try_from(at).expect("an offset")));
    }
}

/// `/api/analyze` of a position its table covers, one of whose moves leads into a damaged table
/// (every block of KRvK.qtb flipped: the root's KRvKN still reads): a `500` naming the damaged
/// file, as `/api/tablebase` says it. It gave `200` with the root's verdict beside a search the
/// engine had run without the tables (their answer for the moves failed), as if they had been
/// read whole.
#[test]
fn analyze_names_a_damaged_table_a_move_leads_into() {
    let dir = tables_copy();
    let path = dir.path().join("KRvK.qtb");
    flip_every_block(&path);
    // Red's rook takes the horse: KRvKN to KRvK.
    let fen = "4k4/9/9/9/9/9/9/R5n2/9/5K3 w - - 0 1";
    let pos = Position::from_fen(fen).expect("fen");
    let damaged = Tablebases::open(dir.path()).expect("open");
    for rules in [Rules::Asian, Rules::Plain] {
        assert!(damaged.verdict(&pos, rules).expect("the root reads").is_some(), "KRvKN covers it");
        assert!(damaged.move_verdicts(&pos, rules).is_err(), "the capture's table is damaged");
    }
    let mut o = options();
    o.engine = true;
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    for rules in ["asian", "plain"] {
        let (status, t) = get_json(srv.addr, &format!("/api/tablebase?fen={}&rules={rules}", enc(fen)));
        assert_eq!(status, 500, "{t}");
        let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=100&rules={rules}", enc(fen)));
        assert_eq!(status, 500, "{rules}: {v}");
        let error = v["error"].as_str().unwrap_or_default();
        assert!(error.contains(&path.display().to_string()), "{rules}: {v}");
        assert_eq!(v["error"], t["error"], "{rules}: the words of /api/tablebase");
    }
    // A position of the undamaged table is still searched, with its verdict.
    let fen = "4k4/9/9/8R/9/9/9/6n2/9/5K3 w - - 0 1";
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=100", enc(fen)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["tablebase"]["wdl"], "win", "{v}");
}

/// A position no table covers, searched: a damaged table the search meets (a capture leads into
/// it) is named beside the answer, which the engine found without it.
#[test]
fn analyze_names_a_damaged_table_its_search_met() {
    let dir = tables_copy();
    let path = dir.path().join("KRvK.qtb");
    flip_every_block(&path);
    let with_tables = || {
        let mut o = options();
        o.engine = true;
        o.tables = Some(dir.path().to_path_buf());
        o
    };
    let srv = server(with_tables());
    // Without damage met: nothing named.
    let fen = "4k4/9/9/9/9/9/9/R5n2/9/5K3 w - - 0 1";
    let (status, v) =
        get_json(srv.addr, &format!("/api/analyze?fen={}&depth=1", enc("4k4/9/9/9/4P4/9/9/9/9/5K3 w - - 0 1")));
    assert_eq!(status, 200, "{v}");
    assert!(v.get("unusable_tables").is_none(), "{v}");
    // KRvKN's own files gone: the search takes the horse into KRvK, whose WDL file (what the
    // search probes) is cut short too.
    for e in ["qtb", "qtr", "qtw"] {
        let _ = std::fs::remove_file(dir.path().join(format!("KRvKN.{e}")));
    }
    let wdl = dir.path().join("KRvK.qtw");
    let len = std::fs::metadata(&wdl).expect("KRvK.qtw").len();
    std::fs::OpenOptions::new().write(true).open(&wdl).and_then(|f| f.set_len(len / 2)).expect("cut");
    let srv = server(with_tables());
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=200", enc(fen)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["source"], "search", "{v}");
    let named = v["unusable_tables"].as_array().unwrap_or_else(|| panic!("the damaged table named: {v}"));
    let krvk = dir.path().join("KRvK.").display().to_string();
    assert!(named.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with(&krvk))), "{v}");
}

/// The same when the table a move leads into is missing from the directory: `/api/tablebase`'s
/// `500`, naming the table and the command that makes it (the engine searched without the tables
/// and the answer gave the root's verdict).
#[test]
fn analyze_names_a_missing_table_a_move_leads_into() {
    let dir = tables_copy();
    for entry in std::fs::read_dir(dir.path()).expect("the tables") {
        let path = entry.expect("an entry").path();
        if path.file_stem().is_some_and(|s| s == "KRvK") {
            std::fs::remove_file(&path).expect("remove");
        }
    }
    let mut o = options();
    o.engine = true;
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    let fen = "4k4/9/9/9/9/9/9/R5n2/9/5K3 w - - 0 1";
    let (status, t) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc(fen)));
    assert_eq!(status, 500, "{t}");
    let (status, v) = get_json(srv.addr, &format!("/api/analyze?fen={}&movetime=100", enc(fen)));
    assert_eq!(status, 500, "{v}");
    assert_eq!(v["error"], t["error"], "the words of /api/tablebase");
    let generate = format!("qiku-tb generate KRvK -d {}", dir.path().display());
    assert!(v["error"].as_str().unwrap_or_default().contains(&generate), "{v}");
}

/// `/api/tables/KNvKR` is KRvKN with the colours swapped, as `qiku-tb stats KNvKR` counts it (it
/// gave KRvKN's own colours under KRvKN's name), and its longest mate is a position of KNvKR with
/// the same value.
#[test]
fn table_statistics_by_the_swapped_name_swap_the_colours() {
    let srv = server(options());
    let (status, own) = get_json(srv.addr, "/api/tables/KRvKN");
    assert_eq!(status, 200, "{own}");
    let (status, swapped) = get_json(srv.addr, "/api/tables/KNvKR");
    assert_eq!(status, 200, "{swapped}");
    assert_eq!((own["material"].as_str(), swapped["material"].as_str()), (Some("KRvKN"), Some("KNvKR")));
    for key in ["plain", "asian", "changed", "histogram"] {
        assert_eq!((&own[key][0], &own[key][1]), (&swapped[key][1], &swapped[key][0]), "{key}");
    }
    let fen = swapped["longest"][0].as_str().expect("a longest mate");
    let pos = Position::from_fen(fen).expect("a position");
    assert_eq!(Material::from_position(&pos).to_string(), "KNvKR", "{fen}");
    let tb = Tablebases::open(&fixtures().tables).expect("tables");
    let v = tb.probe_with(&pos, Rules::Plain).expect("probe").expect("covered");
    assert_eq!((v.wdl.name(), u64::from(v.dtm.plies())), ("win", own["longest"][1].as_u64().expect("plies")), "{fen}");
}

/// `/api/tables/KvK` (or any material without attacking pieces): a dead draw, which has no table
/// anywhere; the answer says so (as `qiku-tb stats KvK` does), not that this server lacks it.
#[test]
fn a_material_without_attacking_pieces_is_said_to_be_a_dead_draw() {
    let srv = server(options());
    for name in ["KvK", "KAvKB", "KBBvKAA"] {
        let (status, v) = get_json(srv.addr, &format!("/api/tables/{name}"));
        assert_eq!(status, 404, "{name}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.starts_with(&format!("{name} has no attacking piece")), "{name}: {v}");
        assert!(e.contains("every position is a draw") && e.contains("no table"), "{name}: {v}");
        assert!(!e.contains("no table for"), "{name}: {v}");
    }
}

/// With every search permit taken, table statistics not yet computed are a `503` with
/// `Retry-After` (it had none), and a material already computed is answered from the cache by
/// any name of it: letters in either case, the pieces in another order, the colours swapped (each
/// spelling was computed anew). A name that is no material is a `400` even then.
#[test]
fn busy_table_statistics_say_when_to_retry_and_every_name_shares_the_cache() {
    let state = qiku_serve::load(&options()).expect("the data opens");
    let permits = state.searches.clone();
    let srv = qiku_serve::start_with(state, "127.0.0.1:0".parse().expect("an address")).expect("the server starts");
    let (status, first) = get_json(srv.addr, "/api/tables/krvkn");
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["material"], "KRvKN");
    let held = permits.try_acquire_many(options().limits.max_searches as u32).expect("every permit");
    for name in ["KRvKN", "kRvKN", "KRVKN"] {
        let (status, v) = get_json(srv.addr, &format!("/api/tables/{name}"));
        assert_eq!(status, 200, "{name}: {v}");
        assert_eq!(v, first, "{name}");
    }
    let (status, swapped) = get_json(srv.addr, "/api/tables/knvkr");
    assert_eq!(status, 200, "{swapped}");
    assert_eq!(swapped["material"], "KNvKR");
    assert_eq!((&swapped["plain"][0], &swapped["plain"][1]), (&first["plain"][1], &first["plain"][0]));
    let (status, head, body) = get(srv.addr, "/api/tables/KCvK");
    assert_eq!(status, 503, "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: 1"), "{head}");
    let v: Value = serde_json::from_slice(&body).expect("JSON");
    assert!(v["error"].as_str().unwrap_or_default().contains("retry"), "{v}");
    let (status, v) = get_json(srv.addr, "/api/tables/KRvKQ");
    assert_eq!(status, 400, "{v}");
    drop(held);
    let (status, v) = get_json(srv.addr, "/api/tables/KCvK");
    assert_eq!(status, 200, "{v}");
}

/// A table file that cannot be read, its `.qtr` companion as its `.qtb`, is a `500` naming the
/// file in the statistics and in the list, never a table without rules (the statistics gave
/// `"asian": null` and the list `"has_rules": false` for a damaged companion) or no table (a
/// damaged `.qtb` was left out of the list), as `/api/tablebase` names it.
#[test]
fn a_damaged_table_file_is_a_500_naming_it_everywhere() {
    let dir = tables_copy();
    let flip = |name: &str, at: Option<usize>| flip_byte(&dir.path().join(name), at);
    flip("KCvK.qtr", None);
    let mut o = options();
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    // The reference: a position of the table under the Asian rules.
    let (status, v) = get_json(srv.addr, &format!("/api/tablebase?fen={}", enc("4k4/9/9/9/9/9/9/9/4C4/3K5 w - - 0 1")));
    assert_eq!(status, 500, "{v}");
    assert!(v["error"].as_str().unwrap_or_default().contains("KCvK.qtr"), "{v}");
    for target in ["/api/tables/KCvK", "/api/tables/KvKC", "/api/tables"] {
        let (status, v) = get_json(srv.addr, target);
        assert_eq!(status, 500, "{target}: {v}");
        assert!(v["error"].as_str().unwrap_or_default().contains("KCvK.qtr"), "{target}: {v}");
    }
    let (status, v) = get_json(srv.addr, "/api/tables/KRvK");
    assert_eq!(status, 200, "{v}");
    drop(srv);
    // A table whose header is damaged (it cannot be opened): it was left out of the list.
    flip("KCvK.qtr", None);
    flip("KNvK.qtb", Some(100));
    let mut o = options();
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    for target in ["/api/tables/KNvK", "/api/tables"] {
        let (status, v) = get_json(srv.addr, target);
        assert_eq!(status, 500, "{target}: {v}");
        assert!(v["error"].as_str().unwrap_or_default().contains("KNvK.qtb"), "{target}: {v}");
    }
}

/// A table holding a value code the probes refuse (a reserved one, behind valid checksums and the
/// header's counts) is a `500` naming the file in its statistics, as `qiku-tb stats` refuses it,
/// never a `200` with `"max_dtm": 243`.
#[test]
fn a_table_with_a_reserved_value_code_is_a_500_naming_it() {
    use qiku::tablebase::format::{self, TableFile};
    let dir = tables_copy();
    let path = dir.path().join("KRvKN.qtb");
    let header = TableFile::open(&path).expect("open").header().clone();
    let mut table = qiku::tablebase::generate::load(&path).expect("load");
    let won = table.codes().iter().position(|&c| c == 7).expect("a win in 5");
    table.codes_mut()[won] = 245;
    let bytes = format::encode(header.material, table.codes(), &header.counts, true).expect("encode");
    format::write_atomic(&path, &bytes).expect("write");
    let mut o = options();
    o.tables = Some(dir.path().to_path_buf());
    let srv = server(o);
    let (status, v) = get_json(srv.addr, "/api/tables/KRvKN");
    assert_eq!(status, 500, "{v}");
    let error = v["error"].as_str().unwrap_or_default();
    assert!(error.contains("KRvKN.qtb") && error.contains("reserved value code 245"), "{v}");
}
