//! Bodies for the refusals the server's libraries send bare: a method a path does not serve
//! (`405`, from the router) and a request line and headers over the size limit (`431`, which
//! hyper writes by itself, with no body, before any handler runs). Each gets a short message
//! saying what was wrong and what to do, JSON under `/api/` (`{"error": "..."}`, as the API's
//! other errors) and plain text elsewhere.

use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A refusal: JSON under `/api/`, plain text elsewhere.
fn refusal(status: StatusCode, api: bool, msg: String) -> Response {
    if api {
        (status, Json(serde_json::json!({ "error": msg }))).into_response()
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

/// The status line hyper writes for a request whose line and headers exceed its buffer (or
/// number more than it parses): the start of its bare `431`. No handler answers `431`.
const HYPER_431: &[u8] = b"HTTP/1.1 431 ";

/// The first bytes of a request kept to tell where it was going (its request line's start).
const HEAD_KEPT: usize = 64;

/// Bytes read and dropped, at most, after a `431` before the connection closes, so that the
/// client's unread request does not make the close a reset that loses the reply.
const DRAIN_MAX: usize = 256 * 1024;

/// A connection as hyper sees it: the socket, with hyper's bare `431` replaced by one with a
/// body (see the module's documentation).
pub struct Refusing<S> {
    inner: S,
    /// The limit the `431` names (hyper's buffer size).
    limit: usize,
    /// The start of the request being read.
    head: Vec<u8>,
    /// A response has been written since `head` was filled: the next bytes read start a new
    /// request.
    answered: bool,
    /// The `431` being written instead of hyper's, and how much of it is out; hyper's own bytes
    /// are dropped from then on (the connection closes after it).
    replacing: Option<(Vec<u8>, usize)>,
    drained: bool,
}

impl<S> Refusing<S> {
    /// Wraps a connection whose requests hyper limits to `limit` bytes of line and headers.
    pub fn new(inner: S, limit: usize) -> Refusing<S> {
        Refusing { inner, limit, head: Vec::new(), answered: false, replacing: None, drained: false }
    }

    /// The `431` sent instead of hyper's.
    fn too_large(&self) -> Vec<u8> {
        // `GET /api/explore?... HTTP/1.1`: the target follows the method.
        let line = String::from_utf8_lossy(&self.head);
        let api = line.split(' ').nth(1).is_some_and(|t| t.starts_with("/api/"));
        let msg = format!(
            "the request line and headers are over {} bytes, this server's limit: shorten the URL (a FEN has at most \
             200 bytes, `moves` at most 600 moves) or send fewer and smaller headers (cookies)",
            self.limit
        );
        let (ctype, body) = if api {
            ("application/json", serde_json::json!({ "error": msg }).to_string())
        } else {
            ("text/plain; charset=utf-8", format!("{msg}\n"))
        };
        let mut out = format!(
            "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\n\
             x-content-type-options: nosniff\r\nconnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        out.extend_from_slice(body.as_bytes());
        out
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Refusing<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.inner).poll_read(cx, buf);
        let new = &buf.filled()[before..];
        if !new.is_empty() {
            if this.answered {
                this.head.clear();
                this.answered = false;
            }
            let room = HEAD_KEPT.saturating_sub(this.head.len());
            this.head.extend_from_slice(&new[..new.len().min(room)]);
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> Refusing<S> {
    /// Starts the replacement when hyper begins its bare `431` (`first`: the first bytes it
    /// writes); then writes the replacement out. `None`: not a `431`, hyper's bytes go through.
    fn replace(&mut self, first: Option<&[u8]>, cx: &mut Context<'_>) -> Option<Poll<io::Result<()>>> {
        if self.replacing.is_none() && first.is_some_and(|b| b.starts_with(HYPER_431)) {
            self.replacing = Some((self.too_large(), 0));
        }
        let (reply, at) = self.replacing.as_mut()?;
        while *at < reply.len() {
            match Pin::new(&mut self.inner).poll_write(cx, &reply[*at..]) {
                Poll::Ready(Ok(0)) => return Some(Poll::Ready(Err(io::ErrorKind::WriteZero.into()))),
                Poll::Ready(Ok(n)) => *at += n,
                Poll::Ready(Err(e)) => return Some(Poll::Ready(Err(e))),
                Poll::Pending => return Some(Poll::Pending),
            }
        }
        Some(Poll::Ready(Ok(())))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Refusing<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match this.replace(Some(buf), cx) {
            // hyper's bare reply is taken as written.
            Some(done) => done.map_ok(|()| buf.len()),
            None => {
                this.answered = true;
                Pin::new(&mut this.inner).poll_write(cx, buf)
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let first = bufs.iter().find(|b| !b.is_empty()).map(|b| &b[..]);
        match this.replace(first, cx) {
            Some(done) => done.map_ok(|()| bufs.iter().map(|b| b.len()).sum()),
            None => {
                this.answered = true;
                Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.replacing.is_some() && !this.drained {
            // Whatever of the refused request has arrived is read, so that closing does not
            // reset the connection before the client reads the reply.
            let mut scratch = [0u8; 4096];
            let mut dropped = 0;
            while dropped < DRAIN_MAX {
                let mut rb = ReadBuf::new(&mut scratch);
                match Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                    Poll::Ready(Ok(())) if !rb.filled().is_empty() => dropped += rb.filled().len(),
                    _ => break,
                }
            }
            this.drained = true;
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}
