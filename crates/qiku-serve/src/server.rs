//! The connection loop: HTTP/1.1 on hyper with a cap on open connections (one over the cap is
//! answered 503 and closed), a time limit on reading a request's headers (slow clients are cut
//! off), a size limit on the request line and headers (in bytes: as many header lines as fit),
//! a time limit on each request, and the security headers of every response.

use crate::refusals;
use crate::{router, AppState, ServeError};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// The reply to a connection over the cap.
const BUSY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 39\r\nConnection: close\r\nRetry-After: 1\r\n\r\ntoo many connections; retry in a moment\n";

/// Security headers, the size limit on a request's line and headers, the request time limit, and
/// a body for the router's bare `405`.
async fn guard(State(st): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    // A page of another origin may read the answer only when that origin is allowed (CORS).
    let origin = req.headers().get(header::ORIGIN).cloned();
    let limit = st.limits.max_header_bytes;
    let mut resp = if refusals::head_bytes(&req) > limit {
        refusals::too_large(limit, &path)
    } else {
        match tokio::time::timeout(st.limits.request_timeout, next.run(req)).await {
            Ok(r) => r,
            Err(_) => refusals::too_slow(st.limits.request_timeout, &path),
        }
    };
    if resp.status() == StatusCode::METHOD_NOT_ALLOWED {
        resp = refusals::method_not_allowed(resp, &method, &path);
    }
    let h = resp.headers_mut();
    if !st.allow_origins.is_empty() {
        // The answer depends on the request's Origin: caches keep one per origin.
        h.append(header::VARY, HeaderValue::from_static("origin"));
        let allowed = origin.filter(|o| st.allow_origins.iter().any(|a| a == "*" || o.as_bytes() == a.as_bytes()));
        if let Some(o) = allowed {
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
        }
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"),
    );
    resp
}

/// Whether a request's `Host` names this machine: `localhost` (or a name under it), a loopback
/// address, with or without a port. A server bound to loopback answers only those, so that a web
/// page of another site cannot reach it through a name it makes resolve here (DNS rebinding).
fn local_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // `[::1]:8080`
        Some(rest) => rest.split(']').next().unwrap_or(""),
        // `localhost:8080`, `127.0.0.1`; a bare IPv6 address has more than one colon.
        None if host.matches(':').count() > 1 => host,
        None => host.split(':').next().unwrap_or(""),
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<std::net::IpAddr>().is_ok_and(crate::is_loopback)
}

/// Refuses, on a loopback bind, a request whose `Host` is not this machine (see [`local_host`]),
/// and on any bind an HTTP/1.1 request with no `Host` or with several (`400`, as HTTP requires).
/// A request whose target names a host (`GET http://HOST/...`) is judged by that host, which
/// HTTP says takes the place of the header's. The refusal is JSON under `/api/`, plain text
/// elsewhere, as the other refusals before any handler.
async fn host_check(loopback: bool, req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let headers: Vec<String> = req
        .headers()
        .get_all(header::HOST)
        .iter()
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .collect();
    let target = req.uri().authority().map(|a| a.as_str().to_string());
    let bad = |msg: &str| crate::refusals::refusal(StatusCode::BAD_REQUEST, api, msg.to_string());
    if headers.len() > 1 {
        return bad("the request has several Host headers: send one");
    }
    if headers.is_empty() && target.is_none() && req.version() >= axum::http::Version::HTTP_11 {
        return bad("the request has no Host header, which HTTP/1.1 requires: send one (localhost or 127.0.0.1)");
    }
    let host = target.or_else(|| headers.into_iter().next());
    match host {
        Some(host) if loopback && !local_host(&host) => crate::refusals::refusal(
            StatusCode::FORBIDDEN,
            api,
            format!(
                "this server answers requests for this machine only (localhost, a name under .localhost, or a loopback \
                 address such as 127.0.0.1), not {:?} (start it with --bind to serve \
                 other machines)",
                host.chars().take(80).collect::<String>()
            ),
        ),
        _ => next.run(req).await,
    }
}

/// What answers every request of a connection: the router inside the `Host` check, inside the
/// guard (limits, refusals with a body, security headers). `loopback`: the server listens on a
/// loopback address (only requests for this machine are answered: docs/SERVE.md, `--bind`).
/// Called without a socket, it answers as the server does (the fuzz target `serve_request` calls
/// it so).
///
/// ```
/// use axum::{body::Body, http::Request};
/// use http_body_util::BodyExt;
/// use tower::ServiceExt;
///
/// let state = std::sync::Arc::new(qiku_serve::load(&qiku_serve::Options::default())?);
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let ask = |target: &str, host: &str| -> Result<(u16, String), Box<dyn std::error::Error>> {
///     let req = Request::get(target).header("host", host).body(Body::empty())?;
///     let resp = rt.block_on(qiku_serve::service(state.clone(), true).oneshot(req))?;
///     let status = resp.status().as_u16();
///     let body = rt.block_on(resp.into_body().collect())?.to_bytes();
///     Ok((status, String::from_utf8(body.to_vec())?))
/// };
/// let (status, body) = ask("/api/explore?moves=h2e2", "localhost")?;
/// assert_eq!(status, 200);
/// assert!(body.contains(r#""turn":"black""#), "{body}");
/// // On a loopback address, only requests for this machine are answered.
/// assert_eq!(ask("/api/info", "attacker.example")?.0, 403);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn service(state: Arc<AppState>, loopback: bool) -> crate::Service {
    let app = router(state.clone())
        .layer(axum::middleware::from_fn(move |req: Request, next: Next| host_check(loopback, req, next)));
    // Around the router, not inside it as `Router::layer` puts a layer: a `405` gets its `Allow`
    // header from the router's route after that route's layers have run.
    let app = tower::Layer::layer(&axum::middleware::from_fn_with_state(state, guard), app);
    tower::util::BoxCloneSyncService::new(app)
}

/// Serves `listener` until `stop` completes.
pub async fn serve(listener: TcpListener, state: Arc<AppState>, stop: impl Future<Output = ()>) {
    let limits = state.limits.clone();
    let loopback = listener.local_addr().is_ok_and(|a| crate::is_loopback(a.ip()));
    let app = tower::ServiceExt::map_request(service(state, loopback), |req: hyper::Request<hyper::body::Incoming>| {
        req.map(axum::body::Body::new)
    });
    let conns =
        Arc::new(tokio::sync::Semaphore::new(limits.max_connections.clamp(1, tokio::sync::Semaphore::MAX_PERMITS)));
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            _ = &mut stop => return,
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, keep serving.
                    eprintln!("qiku serve: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = conns.clone().try_acquire_owned() else {
            tokio::spawn(async move {
                let mut stream = stream;
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(BUSY)).await;
                let _ = stream.shutdown().await;
            });
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        let limits = limits.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(refusals::read_buffer(limits.max_header_bytes))
                .max_headers(refusals::max_header_lines(limits.max_header_bytes))
                .keep_alive(true)
                // A client that sends its request and then closes its sending side (`curl
                // --http1.0`-style tools, `nc -N`) still gets the answer: without this the read
                // side's end closed the connection, answered or not.
                .half_close(true)
                .serve_connection(TokioIo::new(stream), service);
            // A connection lives at most this long, whatever its client does.
            let lifetime = limits.request_timeout * 4;
            let _ = tokio::time::timeout(lifetime, conn).await;
        });
    }
}

/// A server running on a thread of its own; dropping it stops the server.
///
/// ```
/// let server = qiku_serve::start(qiku_serve::Options { port: 0, ..Default::default() })?;
/// let addr = server.addr;
/// assert!(std::net::TcpStream::connect(addr).is_ok());
/// drop(server); // returns once the server has stopped listening
/// assert!(std::net::TcpStream::connect(addr).is_err());
/// # Ok::<(), qiku_serve::ServeError>(())
/// ```
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// The base URL, `http://127.0.0.1:PORT`.
    ///
    /// ```
    /// let server = qiku_serve::start(qiku_serve::Options { port: 0, ..Default::default() })?;
    /// assert_eq!(server.url(), format!("http://127.0.0.1:{}", server.addr.port()));
    /// # Ok::<(), qiku_serve::ServeError>(())
    /// ```
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Binds `addr` and serves on a new thread.
pub fn start(state: Arc<AppState>, addr: SocketAddr) -> Result<Running, ServeError> {
    let std_listener = std::net::TcpListener::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
    std_listener.set_nonblocking(true).map_err(|source| ServeError::Bind { addr, source })?;
    let local = std_listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        rt.block_on(async move {
            match TcpListener::from_std(std_listener) {
                Ok(listener) => {
                    serve(listener, state, async {
                        let _ = rx.await;
                    })
                    .await
                }
                Err(e) => eprintln!("qiku serve: {e}"),
            }
        });
        rt.shutdown_timeout(Duration::from_millis(100));
    });
    Ok(Running { addr: local, stop: Some(tx), thread: Some(thread) })
}
