//! Refusals with a body where the server's libraries would send them bare: a method a path does
//! not serve (`405`, from the router), a request line and headers over the size limit (`431`:
//! hyper's own, for a request over its read buffer or with more header lines than it reads, has
//! no body, so the buffer is a few times the limit, the lines as many as fit in it, and the
//! limit is checked here, before any handler; hyper's bare `414` for a URL of 65,535 bytes or
//! more comes before all this and no setting moves it, so it stays bare, as docs/SERVE.md says),
//! and a request over the time limit (`503`, with `Retry-After` as every `503`). Each gets a short
//! message saying what was wrong and what to do, JSON under `/api/` (`{"error": "..."}`, as the
//! API's other errors) and plain text elsewhere.

use crate::api::ApiError;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// A refusal: the API's error JSON under `/api/`, plain text elsewhere (a line of text, as the
/// ChessDB endpoint's clients read errors).
pub(crate) fn refusal(status: StatusCode, api: bool, msg: String) -> Response {
    if api {
        ApiError(status, msg).into_response()
    } else {
        (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], format!("{msg}\n")).into_response()
    }
}

/// The router's bare `405` for `method` at `path`, given a body that names the methods served
/// there (its `Allow` header, kept).
pub fn method_not_allowed(bare: Response, method: &Method, path: &str) -> Response {
    let allow: Vec<_> = bare.headers().get_all(header::ALLOW).iter().cloned().collect();
    let served: Vec<&str> = allow.iter().filter_map(|a| a.to_str().ok()).flat_map(|a| a.split(',')).collect();
    let served = if served.is_empty() { "GET, HEAD".to_string() } else { served.join(", ") };
    let path: String = path.chars().take(100).collect();
    let post = if served.contains("POST") { " (or a POST of a form)" } else { "" };
    let msg = format!("{method} is not served at {path}: send a GET{post}; this path answers {served}");
    let mut resp = refusal(StatusCode::METHOD_NOT_ALLOWED, path.starts_with("/api/"), msg);
    for a in allow {
        resp.headers_mut().append(header::ALLOW, a);
    }
    resp
}

/// hyper's read buffer for a request's line and headers, a multiple of the server's `limit`: a
/// request between the two gets [`too_large`]'s reply; only one over this gets hyper's bare `431`.
pub fn read_buffer(limit: usize) -> usize {
    // hyper takes no buffer under 8 KiB.
    limit.saturating_mul(4).max(8192)
}

/// Header lines hyper reads at most: one for every 8 bytes of `limit` (2,048 for 16 KiB), where
/// hyper's default of 100 refused a request of many short headers, well within the limit, with a
/// bare `431`. Not one for every 4 bytes (the shortest line, `a:` and CRLF): hyper reserves
/// room for every line on each request (64 bytes a line), and the 256 KiB of that cost several
/// microseconds a request, measured; 128 KiB does not. Only a request with more lines than this,
/// each under 8 bytes on average, gets hyper's bare `431` within the limit.
pub fn max_header_lines(limit: usize) -> usize {
    (limit / 8).max(100)
}

/// The bytes of a request's line and headers as it came: `GET /path?query HTTP/1.1`, then
/// `name: value` lines, each with its CRLF, and the blank line.
pub fn head_bytes(req: &Request) -> usize {
    let line = req.method().as_str().len() + 1 + req.uri().to_string().len() + " HTTP/1.1\r\n".len();
    let headers: usize = req.headers().iter().map(|(name, value)| name.as_str().len() + 2 + value.len() + 2).sum();
    line + headers + 2
}

/// The `431` for a request whose line and headers are over `limit` bytes, naming the limit and
/// what to shorten.
pub fn too_large(limit: usize, path: &str) -> Response {
    let msg = format!(
        "the request line and headers are over {limit} bytes, this server's limit: shorten the URL (a FEN has at \
         most 200 bytes, `moves` at most 600 moves) or send fewer and smaller headers (cookies)"
    );
    refusal(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, path.starts_with("/api/"), msg)
}

/// The `503` for a request that took longer than `limit` (an engine search, a table's statistics
/// under load), with `Retry-After` as every `503` of this server.
pub fn too_slow(limit: std::time::Duration, path: &str) -> Response {
    let msg = format!("the request took longer than {} s, this server's limit; retry in a moment", limit.as_secs_f64());
    let mut resp = refusal(StatusCode::SERVICE_UNAVAILABLE, path.starts_with("/api/"), msg);
    resp.headers_mut().insert(header::RETRY_AFTER, axum::http::HeaderValue::from_static("1"));
    resp
}
