//! Refusals with a body where the server's libraries would send them bare: a method a path does
//! not serve (`405`, from the router) and a request line and headers over the size limit (`431`:
//! hyper's own, for a request over its read buffer, has no body, so the buffer is a few times the
//! limit and the limit is checked here, before any handler). Each gets a short message saying
//! what was wrong and what to do, JSON under `/api/` (`{"error": "..."}`, as the API's other
//! errors) and plain text elsewhere.

use crate::api::ApiError;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};

/// A refusal: the API's error JSON under `/api/`, plain text elsewhere.
fn refusal(status: StatusCode, api: bool, msg: String) -> Response {
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
