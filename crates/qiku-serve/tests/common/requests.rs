//! The check of one HTTP request answered by the whole server in the process, without a socket
//! (`qiku_serve::service`: the router with the `Host` check, the limits and the refusals before
//! it): the libFuzzer target `serve_request` (fuzz/) and the property tests of `tests/requests.rs`
//! run it. What must hold of every answer:
//!
//! - no panic, and an answer within a minute (the server's own time limit is shorter);
//! - no `500` (the fixtures are sound: a `500` names a damaged file) nor another `5xx` than `501`
//!   (a transfer coding the server does not undo) and `503` (busy, or over the time limit), which
//!   carries `Retry-After`;
//! - the security headers on every answer;
//! - under `/api/`, a JSON body, with a non-empty `error` on every refusal; elsewhere a refusal
//!   says why in a line of text;
//! - every move an answer lists is legal where it says: the API's `legal`, `moves` and
//!   `best_moves` in the answer's own `fen`, the ChessDB endpoint's moves in the `board` asked
//!   about (as the endpoint reads its parameters).
//!
//! Input: an HTTP request as text: `METHOD TARGET` (a version after it is ignored), header lines
//! `Name: value` up to an empty line, then the body. A request the HTTP layer would refuse before
//! the server sees it (a method, target or header it cannot read) is skipped.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt;
use qiku::{MoveList, Position};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// What the server answered.
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The `Content-Type`, empty when there is none.
    pub content_type: String,
    /// The body.
    pub body: Vec<u8>,
}

/// Limits for checking: short searches, so that a request that searches answers in
/// milliseconds.
pub fn limits() -> qiku_serve::Limits {
    qiku_serve::Limits {
        max_movetime_ms: 20,
        chessdb_movetime_ms: 10,
        request_timeout: Duration::from_secs(20),
        ..qiku_serve::Limits::default()
    }
}

/// The server over `options` in the process, with the runtime to call it in (`workers` threads).
pub fn in_process(options: &qiku_serve::Options, workers: usize) -> (tokio::runtime::Runtime, qiku_serve::Service) {
    let state = std::sync::Arc::new(qiku_serve::load(options).expect("the data opens"));
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(workers).enable_all().build().expect("a runtime");
    (rt, qiku_serve::service(state, true))
}

/// Reads a request from `input` (see the module's documentation), with its body; `None` when the
/// HTTP layer would refuse it first.
pub fn parse_request(input: &[u8]) -> Option<(Request<Body>, Vec<u8>)> {
    let head_end = input.windows(2).position(|w| w == b"\n\n").map(|i| (i, i + 2));
    let head_end = head_end.or_else(|| input.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i, i + 4)));
    let (head, body) = match head_end {
        Some((end, start)) => (&input[..end], &input[start..]),
        None => (input, &[][..]),
    };
    let head = std::str::from_utf8(head).ok()?;
    let mut lines = head.lines();
    let mut words = lines.next()?.split(' ');
    let method = Method::from_bytes(words.next()?.as_bytes()).ok()?;
    let target = words.next()?;
    let mut req = Request::builder().method(method).uri(target);
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        // The HTTP layer frames the body: its length is the body's, whatever the input says.
        if name == header::CONTENT_LENGTH {
            continue;
        }
        req = req.header(name, HeaderValue::from_str(value.trim()).ok()?);
    }
    if !body.is_empty() {
        req = req.header(header::CONTENT_LENGTH, body.len());
    }
    Some((req.body(Body::from(body.to_vec())).ok()?, body.to_vec()))
}

/// Sends `input` to `service` and checks the answer (see the module's documentation); `None`
/// when `input` is not a request the server would see.
pub fn check_request(rt: &tokio::runtime::Runtime, service: &qiku_serve::Service, input: &[u8]) -> Option<Answer> {
    let (req, form) = parse_request(input)?;
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    let query = req.uri().query().unwrap_or("").to_string();
    let answer = rt.block_on(async {
        let answered = tokio::time::timeout(Duration::from_secs(60), async {
            let resp = tower::ServiceExt::oneshot(service.clone(), req).await.unwrap_or_else(|e| match e {});
            let (parts, body) = resp.into_parts();
            let body = body.collect().await.map(|b| b.to_bytes().to_vec());
            (parts, body)
        })
        .await;
        let Ok((parts, body)) = answered else { panic!("{method} {path}: no answer within 60 s") };
        let body = body.unwrap_or_else(|e| panic!("{method} {path}: the body could not be read: {e}"));
        let content_type = parts
            .headers
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let h = &parts.headers;
        assert_eq!(
            h.get(header::X_CONTENT_TYPE_OPTIONS).map(|v| v.as_bytes()),
            Some(&b"nosniff"[..]),
            "{method} {path}"
        );
        if parts.status == StatusCode::SERVICE_UNAVAILABLE {
            assert!(h.contains_key(header::RETRY_AFTER), "{method} {path}: a 503 without Retry-After");
        }
        Answer { status: parts.status, content_type, body }
    });
    let what = format!("{method} {}{}{query}", path, if query.is_empty() { "" } else { "?" });
    let what: String = what.chars().take(300).collect();
    let text = String::from_utf8_lossy(&answer.body);
    let s = answer.status;
    assert!(
        !s.is_server_error() || s == StatusCode::NOT_IMPLEMENTED || s == StatusCode::SERVICE_UNAVAILABLE,
        "{what}: {s}: {text}"
    );
    if method == Method::HEAD {
        return Some(answer);
    }
    if path.starts_with("/api/") {
        assert!(answer.content_type.starts_with("application/json"), "{what}: {s}, {:?}", answer.content_type);
        let v: Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| panic!("{what}: {e}: {text}"));
        if !s.is_success() {
            assert!(v["error"].as_str().is_some_and(|e| !e.trim().is_empty()), "{what}: {s}: {v}");
        } else {
            check_api_moves(&what, &v);
        }
    } else if !s.is_success() && !s.is_redirection() {
        assert!(!text.trim().is_empty(), "{what}: {s} without a word");
    } else if path == "/chessdb.php" && s == StatusCode::OK {
        let mut params = HashMap::new();
        qiku_serve::api::chessdb_params(&query, &mut params);
        if method == Method::POST {
            qiku_serve::api::chessdb_params(&String::from_utf8_lossy(&form), &mut params);
        }
        check_chessdb_moves(&what, &params, &answer);
    }
    Some(answer)
}

/// The legal moves of `pos` in ICCS.
fn legal(pos: &Position) -> HashSet<String> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.as_slice().iter().map(|m| m.to_string()).collect()
}

/// An API answer's moves are legal in its `fen`: `legal` is exactly the legal moves, and every
/// move of `moves` and `best_moves` is one of them.
fn check_api_moves(what: &str, v: &Value) {
    let Some(fen) = v["fen"].as_str() else { return };
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{what}: the answer's fen {fen:?}: {e}"));
    let legal = legal(&pos);
    if let Some(list) = v["legal"].as_array() {
        let listed: HashSet<String> = list.iter().filter_map(|m| m.as_str().map(String::from)).collect();
        assert_eq!(listed, legal, "{what}: `legal` in {fen}");
    }
    let moves = v["moves"].as_array().into_iter().flatten().filter_map(|m| m["iccs"].as_str());
    let best = v["best_moves"].as_array().into_iter().flatten().filter_map(|m| m.as_str());
    for m in moves.chain(best) {
        assert!(legal.contains(m), "{what}: {m} is not legal in {fen}");
    }
}

/// A ChessDB reply's moves are legal in the board asked about: `move:`, `egtb:` and `search:`
/// entries, and the first move of `pv:` (plain), or the same fields of a JSON reply.
fn check_chessdb_moves(what: &str, params: &HashMap<String, String>, answer: &Answer) {
    let Some(pos) = params.get("board").and_then(|b| qiku_serve::chessdb::parse_board(b)) else { return };
    let legal = legal(&pos);
    let mut moves: Vec<String> = Vec::new();
    if answer.body.is_empty() {
        // Without `action`, as ChessDB: an empty reply in either form.
        assert!(!params.contains_key("action"), "{what}: an empty reply");
    } else if answer.content_type.starts_with("application/json") {
        let v: Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| panic!("{what}: {e}"));
        for key in ["moves", "search_moves"] {
            moves.extend(v[key].as_array().into_iter().flatten().filter_map(|m| m["uci"].as_str().map(String::from)));
        }
        moves.extend(["move", "egtb"].iter().filter_map(|k| v[*k].as_str().map(String::from)));
        moves.extend(v["pv"].as_array().and_then(|pv| pv.first()).and_then(|m| m.as_str()).map(String::from));
    } else {
        let text = String::from_utf8_lossy(&answer.body);
        for field in text.trim_end_matches('\0').split(['|', ',']) {
            let Some((name, value)) = field.split_once(':') else { continue };
            match name {
                "move" | "egtb" | "search" => moves.push(value.to_string()),
                "pv" => moves.push(value.to_string()),
                _ => {}
            }
        }
    }
    let fen = pos.fen();
    for m in moves {
        assert!(legal.contains(&m), "{what}: {m} is not legal in {fen}");
    }
}
