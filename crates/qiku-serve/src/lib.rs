//! `qiku serve`: a local opening explorer and tablebase browser. One process serves
//!
//! - the page (`/`), a board with the book's and the tables' view of every position, and the
//!   tables page (`/tables`), from assets compiled into the binary (no network, no CDN);
//! - a JSON API (`/api/explore`, `/api/game`, `/api/tablebase`, `/api/analyze`, `/api/tables`,
//!   `/api/info`);
//! - a ChessDB-compatible endpoint (`/chessdb.php`) that Xiangqi programs written for the
//!   ChessDB cloud book can query by changing only the host.
//!
//! The entry point is [`run`] with an [`Options`]; [`start`] runs a server on a thread of its own
//! (for tests and embedding). Every call into the qiku library is in [`adapter`]. The formats are
//! documented in docs/SERVE.md.
//!
//! A GUI embeds the server with [`start`] and asks it over HTTP, as a browser does:
//!
//! ```
//! use qiku_serve::{start, Options};
//! use std::io::{Read, Write};
//!
//! // Port 0: any free port; no book, no tables, no engine.
//! let server = start(Options { port: 0, ..Options::default() })?;
//! let mut conn = std::net::TcpStream::connect(server.addr)?;
//! conn.write_all(b"GET /api/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
//! let mut reply = String::new();
//! conn.read_to_string(&mut reply)?;
//! assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
//! let info: serde_json::Value = serde_json::from_str(reply.split_once("\r\n\r\n").ok_or("no body")?.1)?;
//! assert_eq!((info["tables"].as_u64(), info["rules"].as_str()), (Some(0), Some("asian")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

// The server's messages go to stderr through this, which shadows the standard `eprintln!` in
// every module (defined before them): a closed stderr (`qiku serve 2>&1 | head -1`, the reader
// gone) drops the message instead of panicking in the middle of a request or of the start.
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::write_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}

pub mod adapter;
pub mod api;
mod assets;
pub mod chessdb;
pub mod cli;
mod refusals;
mod server;

use adapter::{Books, TableRules, Tables};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use server::{service, Running};

/// The server's whole answer to a request, as [`service`] builds it: what a connection is served
/// by, and what a test or a fuzz target can call without a socket.
pub type Service =
    tower::util::BoxCloneSyncService<axum::extract::Request, axum::response::Response, std::convert::Infallible>;

/// Writes a message to stderr; one that cannot be written (a closed pipe) is dropped, as nobody
/// is left to read it and the server's work must not stop for it.
#[doc(hidden)]
pub fn write_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// What to serve and how.
///
/// ```
/// use qiku_serve::{start, Options};
/// # fn get(addr: std::net::SocketAddr, target: &str) -> std::io::Result<String> { use std::io::{Read, Write};
/// #     let (mut c, mut r) = (std::net::TcpStream::connect(addr)?, String::new());
/// #     write!(c, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// #     c.read_to_string(&mut r)?; Ok(r) }
///
/// // A book built from one game, in a directory of its own.
/// let dir = tempfile::tempdir()?;
/// let (games, book) = (dir.path().join("games.pgn"), dir.path().join("games.qbk"));
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// qiku::book::build(&[games], &book, &Default::default())?;
///
/// let options = Options { books: vec![book], port: 0, ..Options::default() };
/// let server = start(options)?;
/// let reply = get(server.addr, "/api/explore")?;
/// assert!(reply.contains(r#""iccs":"h2e2""#) && reply.contains(r#""red":1"#), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Options {
    /// Opening books (`.qbk`), probed together.
    pub books: Vec<PathBuf>,
    /// A directory of endgame tables.
    pub tables: Option<PathBuf>,
    /// Answer `/api/analyze` (and positions nothing else knows on the ChessDB endpoint) with the
    /// engine.
    pub engine: bool,
    /// The address to listen on (loopback by default).
    pub bind: IpAddr,
    /// The port (0: any free port).
    pub port: u16,
    /// The repetition rules of table values by default (Asian).
    pub rules: TableRules,
    /// Resource limits.
    pub limits: Limits,
    /// Web origins (`https://gui.example`, or `*` for any) whose pages' scripts may read the
    /// answers (CORS: `Access-Control-Allow-Origin`); none by default, so that only the server's
    /// own page reads them.
    pub allow_origins: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            books: Vec::new(),
            tables: None,
            engine: false,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 8080,
            rules: TableRules::Asian,
            limits: Limits::default(),
            allow_origins: Vec::new(),
        }
    }
}

/// The server's resource limits.
///
/// Change some and keep the defaults of the others: here a request whose headers pass 1 KiB is
/// refused (`431`).
///
/// ```
/// use qiku_serve::{start, Limits, Options};
/// use std::io::{Read, Write};
///
/// let limits = Limits { max_header_bytes: 1024, ..Limits::default() };
/// assert_eq!(limits.max_searches, 2);
/// let server = start(Options { port: 0, limits, ..Options::default() })?;
/// let mut conn = std::net::TcpStream::connect(server.addr)?;
/// let cookie = "x".repeat(2000);
/// write!(conn, "GET /api/info HTTP/1.1\r\nHost: localhost\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n")?;
/// let mut reply = String::new();
/// conn.read_to_string(&mut reply)?;
/// assert!(reply.starts_with("HTTP/1.1 431"), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    /// Open connections at most; more are answered 503 and closed.
    pub max_connections: usize,
    /// Engine searches (and table statistics) running at once; more are answered 503.
    pub max_searches: usize,
    /// Time a client has to send a request's headers (slow clients are cut off).
    pub header_timeout: Duration,
    /// Time a whole request may take (a slower one is answered 503).
    pub request_timeout: Duration,
    /// Bytes of a request's line and headers at most (a `431` with a message beyond; the
    /// connection reads up to four times as much before the HTTP layer refuses it bare).
    pub max_header_bytes: usize,
    /// Longest engine search, milliseconds.
    pub max_movetime_ms: u64,
    /// Engine time for a ChessDB request nothing else answers, milliseconds.
    pub chessdb_movetime_ms: u64,
    /// Hash table of each search, MiB.
    pub hash_mib: usize,
    /// Largest table (entries) whose statistics the tables page computes.
    pub max_stats_entries: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            max_searches: 2,
            header_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_header_bytes: 16 * 1024,
            max_movetime_ms: 5000,
            chessdb_movetime_ms: 1000,
            hash_mib: 16,
            max_stats_entries: 50_000_000,
        }
    }
}

/// What the handlers share: the opened data and the limits.
///
/// [`load`] makes it from [`Options`]; [`start_with`] serves it.
///
/// ```
/// let state = qiku_serve::load(&qiku_serve::Options { engine: true, ..Default::default() })?;
/// assert!(state.engine);
/// assert!(!state.books.any() && !state.tables.any());
/// assert_eq!(state.searches.available_permits(), state.limits.max_searches);
/// # Ok::<(), qiku_serve::ServeError>(())
/// ```
pub struct AppState {
    /// The books.
    pub books: Books,
    /// The tables.
    pub tables: Tables,
    /// Is the engine on?
    pub engine: bool,
    /// Default rules.
    pub rules: TableRules,
    /// Limits.
    pub limits: Limits,
    /// Permits for engine searches and table statistics.
    pub searches: Arc<tokio::sync::Semaphore>,
    /// Table statistics computed so far, by the name of their table (the canonical material:
    /// `KRvKN` also for `krvkn` and `KNvKR`).
    pub stats_cache: Mutex<std::collections::HashMap<String, adapter::TableStats>>,
    /// Origins whose pages may read the answers ([`Options::allow_origins`]).
    pub allow_origins: Vec<String>,
    /// The engine's answers to ChessDB queries so far.
    pub engine_answers: Mutex<chessdb::EngineAnswers>,
}

/// Why the server could not start or stopped.
///
/// The message says what to do:
///
/// ```
/// use qiku_serve::{start, Options, ServeError};
///
/// let first = start(Options { port: 0, ..Options::default() })?;
/// let err = start(Options { port: first.addr.port(), ..Options::default() }).err().ok_or("a second bind")?;
/// assert!(matches!(err, ServeError::Bind { .. }));
/// assert!(err.to_string().contains("choose another port with --port, or 0 for any free one"), "{err}");
///
/// let missing = Options { books: vec!["no-such.qbk".into()], ..Options::default() };
/// let err = qiku_serve::load(&missing).err().ok_or("no such book")?;
/// assert!(matches!(err, ServeError::Data(_)) && err.to_string().contains("no-such.qbk"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum ServeError {
    /// A book or the tables could not be opened.
    Data(String),
    /// The address could not be bound.
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// The async runtime could not start.
    Runtime(std::io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Data(e) => write!(f, "{e}"),
            ServeError::Bind { addr, source } if source.kind() == std::io::ErrorKind::AddrInUse => {
                write!(f, "cannot listen on {addr}: {source} (choose another port with --port, or 0 for any free one)")
            }
            ServeError::Bind { addr, source } => write!(
                f,
                "cannot listen on {addr}: {source} (--bind takes an address of this machine: 127.0.0.1 by default, \
                 0.0.0.0 for all)"
            ),
            ServeError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Bind { source, .. } | ServeError::Runtime(source) => Some(source),
            ServeError::Data(_) => None,
        }
    }
}

/// Opens the books and tables of `options` (warnings about unusable table files go to stderr).
///
/// ```
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// use qiku_serve::{load, Options};
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let state = load(&Options { tables: Some(dir.path().into()), ..Options::default() })?;
/// assert_eq!(state.tables.count(), 1);
/// assert!(state.tables.unusable().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(options: &Options) -> Result<AppState, ServeError> {
    let books = Books::open(&options.books).map_err(ServeError::Data)?;
    let tables = Tables::open(options.tables.as_deref(), options.rules).map_err(ServeError::Data)?;
    Ok(AppState {
        books,
        tables,
        engine: options.engine,
        rules: options.rules,
        limits: options.limits.clone(),
        searches: Arc::new(tokio::sync::Semaphore::new(
            options.limits.max_searches.clamp(1, tokio::sync::Semaphore::MAX_PERMITS),
        )),
        stats_cache: Mutex::new(std::collections::HashMap::new()),
        allow_origins: options.allow_origins.clone(),
        engine_answers: Mutex::new(chessdb::EngineAnswers::default()),
    })
}

/// Serves until interrupted (Ctrl-C): opens the data, binds, prints the address, serves.
///
/// This is what the `qiku serve` program calls; it blocks until Ctrl-C. A GUI that serves
/// while it does other work calls [`start`] instead.
///
/// ```no_run
/// use qiku_serve::{run, Options};
///
/// // Prints `qiku serve: http://127.0.0.1:8080/ (1 book(s), 0 table(s), engine on); Ctrl-C stops`.
/// run(Options { books: vec!["ccpd.qbk".into()], engine: true, ..Options::default() })?;
/// # Ok::<(), qiku_serve::ServeError>(())
/// ```
pub fn run(options: Options) -> Result<(), ServeError> {
    let state = Arc::new(load(&options)?);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(ServeError::Runtime)?;
    let served = rt.block_on(async move {
        let addr = SocketAddr::new(options.bind, options.port);
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
        let local = listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?;
        if !is_loopback(options.bind) {
            eprintln!("qiku serve: listening on {local}, reachable from other machines");
        }
        // An address to open: not the unspecified one a bind to all addresses reports.
        let open = if local.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), local.port())
        } else {
            local
        };
        eprintln!(
            "qiku serve: http://{open}/ ({} book(s), {} table(s), engine {}); Ctrl-C stops",
            options.books.len(),
            state.tables.count(),
            if options.engine { "on" } else { "off" }
        );
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        server::serve(listener, state, stop).await;
        eprintln!("qiku serve: stopped");
        Ok(())
    });
    // At once, not after the searches under way: their clients are gone with the server.
    rt.shutdown_background();
    served
}

/// Whether `ip` is this machine only: a loopback address, IPv4 also written as IPv6
/// (`::ffff:127.0.0.1`).
///
/// ```
/// use qiku_serve::is_loopback;
///
/// assert!(is_loopback("127.0.0.1".parse()?) && is_loopback("::1".parse()?));
/// assert!(is_loopback("::ffff:127.0.0.1".parse()?));
/// assert!(!is_loopback("0.0.0.0".parse()?) && !is_loopback("192.168.1.2".parse()?));
/// # Ok::<(), std::net::AddrParseError>(())
/// ```
pub fn is_loopback(ip: std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        v4 => v4.is_loopback(),
    }
}

/// Starts a server on a thread of its own (its own runtime) and returns once it listens.
///
/// The server stops when the [`Running`] is dropped.
///
/// ```
/// use qiku_serve::{start, Options};
/// use std::io::{Read, Write};
///
/// let server = start(Options { port: 0, ..Options::default() })?;
/// let mut conn = std::net::TcpStream::connect(server.addr)?;
/// conn.write_all(b"GET /api/explore?moves=h2e2 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// let mut reply = String::new();
/// conn.read_to_string(&mut reply)?;
/// assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
/// assert!(reply.contains(r#""turn":"black""#), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn start(options: Options) -> Result<Running, ServeError> {
    let state = Arc::new(load(&options)?);
    server::start(state, SocketAddr::new(options.bind, options.port))
}

/// Starts a server over already opened data (see [`load`]) on a thread of its own.
///
/// Opening first tells a data error from a bind error, and lets a GUI add a source of recent
/// games ([`adapter::Books::add_recent_games`]) before it serves.
///
/// ```
/// use qiku_serve::{load, start_with, Options};
/// # fn get(addr: std::net::SocketAddr, target: &str) -> std::io::Result<String> { use std::io::{Read, Write};
/// #     let (mut c, mut r) = (std::net::TcpStream::connect(addr)?, String::new());
/// #     write!(c, "GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
/// #     c.read_to_string(&mut r)?; Ok(r) }
///
/// let state = load(&Options { engine: true, ..Options::default() })?;
/// let server = start_with(state, "127.0.0.1:0".parse()?)?;
/// let reply = get(server.addr, "/api/info")?;
/// assert!(reply.starts_with("HTTP/1.1 200 OK") && reply.contains(r#""engine":true"#), "{reply}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn start_with(state: AppState, addr: SocketAddr) -> Result<Running, ServeError> {
    server::start(Arc::new(state), addr)
}

/// The router: pages, assets, API and the ChessDB endpoint.
///
/// Without the checks and limits [`service`] puts around it (the `Host` check, the security
/// headers, the time and size limits): for mounting the server's routes into an axum
/// application of one's own.
///
/// ```
/// use axum::{body::Body, http::Request};
/// use tower::ServiceExt;
///
/// let state = std::sync::Arc::new(qiku_serve::load(&qiku_serve::Options::default())?);
/// let app = axum::Router::new().nest("/xiangqi", qiku_serve::router(state));
/// let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
/// let ask = |uri: &str| -> Result<u16, Box<dyn std::error::Error>> {
///     Ok(rt.block_on(app.clone().oneshot(Request::get(uri).body(Body::empty())?))?.status().as_u16())
/// };
/// assert_eq!(ask("/xiangqi/api/info")?, 200);
/// assert_eq!(ask("/xiangqi/api/nothing")?, 404);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn router(state: Arc<AppState>) -> axum::Router {
    use axum::routing::get;
    axum::Router::new()
        .route("/", get(assets::index))
        .route("/tables", get(assets::tables_page))
        .route("/assets/{name}", get(assets::asset))
        .route("/favicon.ico", get(assets::favicon))
        .route("/api/explore", get(api::explore))
        .route("/api/tablebase", get(api::tablebase))
        .route("/api/game", get(api::game))
        .route("/api/analyze", get(api::analyze))
        .route("/api/info", get(api::info))
        .route("/api/tables", get(api::tables))
        .route("/api/tables/{material}", get(api::table_stats))
        .route("/chessdb.php", get(api::chessdb).post(api::chessdb_post))
        .fallback(assets::not_found)
        .with_state(state)
}
