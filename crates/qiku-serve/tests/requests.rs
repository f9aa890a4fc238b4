//! Random requests answered by the whole server in the process (no socket), each checked by
//! `common::requests::check_request` (the check of the libFuzzer target `serve_request`): word
//! soups of the server's paths, parameters and values (FENs of book and table positions, moves in
//! three notations, numbers, percent escapes, broken text), as GET, HEAD or form POST with and
//! without the headers a browser sends; and the fuzz target's seed requests mutated byte by
//! byte. The engine is on, with searches of a few milliseconds.

use crate::common::requests::{check_request, in_process, limits, parse_request};
use crate::common::*;
use proptest::prelude::*;
use std::sync::OnceLock;

/// The server over the fixtures, engine on, and a runtime to call it in.
fn served() -> &'static (tokio::runtime::Runtime, qiku_serve::Service) {
    static S: OnceLock<(tokio::runtime::Runtime, qiku_serve::Service)> = OnceLock::new();
    S.get_or_init(|| in_process(&qiku_serve::Options { engine: true, limits: limits(), ..options() }, 2))
}

fn check(input: &[u8]) -> Option<u16> {
    let (rt, service) = served();
    check_request(rt, service, input).map(|a| a.status.as_u16())
}

const PATHS: &[&str] = &[
    "/",
    "/tables",
    "/assets/app.js",
    "/assets/style.css",
    "/assets/..%2F..%2Fetc%2Fpasswd",
    "/favicon.ico",
    "/api/explore",
    "/api/tablebase",
    "/api/game",
    "/api/analyze",
    "/api/info",
    "/api/tables",
    "/api/tables/KRvKN",
    "/api/tables/knvk",
    "/api/tables/KRRRRRvKAABB",
    "/api/tables/%FF",
    "/api/nothing",
    "/chessdb.php",
    "/chessdb.php/",
    "//api/explore",
];

const KEYS: &[&str] = &[
    "fen",
    "moves",
    "rules",
    "n",
    "movetime",
    "depth",
    "action",
    "board",
    "json",
    "ban",
    "movelist",
    "reptimes",
    "showall",
    "learn",
    "egtbmetric",
    "x",
    "",
];

const VALUES: &[&str] = &[
    "startpos",
    "",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_b",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR",
    "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1",
    "3k5/4n4/9/9/9/9/9/9/R8/4K4 b - - 0 1",
    "3k5/9/9/9/4C4/9/9/9/9/4K4 w - - 0 1",
    "3k5/9/9/9/4C4/9/9/9/9/4K4 b",
    "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
    "4k4/4R4/9/9/9/9/9/9/9/3K5 b - - 0 1",
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w moves h2e2",
    "kkkkkkkkk/9/9/9/9/9/9/9/9/9 w",
    "h2e2",
    "h2e2 h9g7",
    "h2e2,h9g7,h0g2",
    "C2.5",
    "H2%2B3",
    "H2+3",
    "炮二平五",
    "炮二平五 馬８進７",
    "move:h2e2|move:b0c2",
    "h2e2|h9g7|e2h2|g7h9|h2e2|h9g7|e2h2|g7h9",
    "queryall",
    "querybest",
    "query",
    "querysearch",
    "querypv",
    "queryscore",
    "querylearn",
    "queryrule",
    "queue",
    "asian",
    "plain",
    "1",
    "0",
    "-1",
    "5",
    "30",
    "99999999999999999999",
    "true",
    "%",
    "%zz",
    "%+5",
    "%FF%FE",
    "%00",
    "a+b",
    "\u{0}",
    "é",
];

/// One parameter: a key and a value from the soups, or random text.
fn param() -> impl Strategy<Value = String> {
    let key = prop::sample::select(KEYS);
    let value = prop_oneof![
        4 => prop::sample::select(VALUES).prop_map(String::from),
        1 => "[ -~]{0,12}",
    ];
    (key, value, any::<bool>())
        .prop_map(|(k, v, encode)| if encode { format!("{k}={}", enc(&v)) } else { format!("{k}={v}") })
}

/// A request as the check reads it: method, target, headers, body.
fn request() -> impl Strategy<Value = Vec<u8>> {
    let method = prop::sample::select(&["GET", "GET", "GET", "GET", "GET", "HEAD", "POST", "POST", "PUT"][..]);
    let path = prop::sample::select(PATHS);
    let query = prop::collection::vec(param(), 0..5);
    let form = prop::collection::vec(param(), 0..4);
    let host = prop::sample::select(
        &["localhost", "localhost", "localhost", "localhost", "127.0.0.1:8080", "[::1]", "evil.example", ""][..],
    );
    let ctype = prop::sample::select(
        &["application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8", "text/plain", ""][..],
    );
    let extra = prop::sample::select(
        &["", "Origin: https://gui.example", "Transfer-Encoding: gzip, chunked", "Accept: */*", "Host: localhost"][..],
    );
    (method, path, query, form, host, ctype, extra).prop_map(|(method, path, query, form, host, ctype, extra)| {
        let mut text = match query.is_empty() {
            true => format!("{method} {path}\n"),
            false => format!("{method} {path}?{}\n", query.join("&")),
        };
        for (name, value) in [("Host", host), ("Content-Type", ctype)] {
            if !value.is_empty() {
                text += &format!("{name}: {value}\n");
            }
        }
        if !extra.is_empty() {
            text += &format!("{extra}\n");
        }
        text += "\n";
        if method == "POST" {
            text += &form.join("&");
        }
        text.into_bytes()
    })
}

/// The fuzz target's seed requests, read once.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = repo().join("fuzz/seeds/serve_request");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("an entry").path())
            .collect();
        files.sort();
        files.iter().map(|f| std::fs::read(f).expect("a seed")).collect()
    })
}

#[test]
fn seed_requests_are_answered_and_pass_the_check() {
    let seeds = seeds();
    assert!(seeds.len() >= 10, "{} seeds", seeds.len());
    let mut ok = 0;
    for seed in seeds {
        let status =
            check(seed).unwrap_or_else(|| panic!("a seed the server never sees: {}", String::from_utf8_lossy(seed)));
        ok += usize::from(status == 200);
    }
    // The seeds are mostly requests that succeed, so that mutations start from answers with moves.
    assert!(ok * 2 > seeds.len(), "{ok} of {} seeds answered 200", seeds.len());
}

#[test]
fn parse_request_reads_what_the_fuzz_input_says() {
    let (req, body) =
        parse_request(b"POST /chessdb.php?x=1\r\nHost: localhost\r\nContent-Length: 99\r\n\r\naction=queue")
            .expect("a request");
    assert_eq!((req.method().as_str(), req.uri().to_string()), ("POST", "/chessdb.php?x=1".to_string()));
    assert_eq!(req.headers()["content-length"], "12");
    assert_eq!(body, b"action=queue");
    assert!(parse_request(b"GET /\nBad Header\n\n").is_none());
    assert!(parse_request(b"G\x01T /\n\n").is_none());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn word_soup_requests_pass_the_check(input in request()) {
        check(&input);
    }

    #[test]
    fn mutated_seed_requests_pass_the_check(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let seeds = seeds();
        let mut input = seeds[which.index(seeds.len())].clone();
        for (at, byte, op) in edits {
            let i = at.index(input.len() + 1);
            match op {
                0 => input.insert(i, byte),
                1 if i < input.len() => input[i] = byte,
                _ if i < input.len() => { input.remove(i); }
                _ => {}
            }
        }
        check(&input);
    }
}
