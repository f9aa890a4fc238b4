//! The command line of `qiku serve` as a [`clap::Args`] struct, shared by the `qiku-serve`
//! program and the `qiku` program's `serve` subcommand (flatten it, then call
//! [`crate::run`] with [`ServeArgs::options`]).
//!
//! ```
//! use clap::Parser;
//! use qiku_serve::cli::ServeArgs;
//!
//! /// A GUI's command line, with the server's options among its own.
//! #[derive(Parser)]
//! struct Gui {
//!     #[arg(long)]
//!     theme: Option<String>,
//!     #[command(flatten)]
//!     serve: ServeArgs,
//! }
//!
//! let gui = Gui::parse_from(["gui", "--theme", "wood", "--book", "ccpd.qbk", "--port", "0"]);
//! assert_eq!(gui.theme.as_deref(), Some("wood"));
//! assert_eq!((gui.serve.books.len(), gui.serve.port), (1, 0));
//! ```

use crate::adapter::TableRules;
use crate::{Limits, Options};
use std::net::IpAddr;
use std::path::PathBuf;

/// The largest `--max-connections`: each connection holds a file descriptor, which a system gives
/// a process far fewer of (a value past tokio's bound on permits, 2^61 - 1, stopped the server
/// with a panic at start-up).
pub const MAX_CONNECTIONS: u64 = 1_000_000;
/// The largest `--max-searches`: each search takes a thread and its hash table (16 MiB), and
/// more searches than cores only share them.
pub const MAX_SEARCHES: u64 = 256;

/// A local opening explorer and tablebase browser: open http://127.0.0.1:8080/ in a browser.
/// Serves a page, a JSON API (/api/explore, /api/tablebase, /api/analyze, /api/tables) and a
/// ChessDB-compatible endpoint (/chessdb.php), read-only, from the given books and tables.
///
/// The values are checked as they are read:
///
/// ```
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     serve: qiku_serve::cli::ServeArgs,
/// }
///
/// let cli = Cli::try_parse_from(["serve", "--allow-origin", "http://localhost:3000/"])?;
/// assert_eq!(cli.serve.allow_origins, ["http://localhost:3000"]); // without the slash
/// assert!(Cli::try_parse_from(["serve", "--allow-origin", "gui.example"]).is_err()); // no scheme
/// assert!(Cli::try_parse_from(["serve", "--max-searches", "0"]).is_err());
/// # Ok::<(), clap::Error>(())
/// ```
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// An opening book (.qbk, built by `qiku-book build`); repeat for several (counts add up).
    #[arg(long = "book", value_name = "FILE.qbk")]
    pub books: Vec<PathBuf>,
    /// A directory of endgame tables (.qtb, with .qtr companions for the Asian rules).
    #[arg(long = "tb", value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// Answer /api/analyze, and ChessDB queries nothing else knows, with the engine.
    #[arg(long)]
    pub engine: bool,
    /// The address to listen on. Anything but loopback makes the server reachable from other
    /// machines.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// The port (0: any free one, printed at start).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Repetition rules of table values unless a request names them: `asian` (perpetual check
    /// loses) or `plain` (every cycle a draw).
    #[arg(long, default_value = "asian")]
    pub rules: TableRules,
    /// Open connections at most (more are answered 503); 1 to 1000000.
    #[arg(long, default_value_t = 256, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_CONNECTIONS))]
    pub max_connections: usize,
    /// Engine searches at once (more are answered 503); 1 to 256.
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_SEARCHES))]
    pub max_searches: usize,
    /// Let the scripts of web pages from ORIGIN (such as `https://gui.example`, or `*` for any site)
    /// read the answers, for a web GUI served elsewhere (CORS); repeat for several. Without it
    /// only the server's own page can.
    #[arg(long = "allow-origin", value_name = "ORIGIN", value_parser = origin_arg)]
    pub allow_origins: Vec<String>,
}

/// An origin for `--allow-origin`: `*`, or a scheme, host and optional port with no path, as a
/// browser sends it in `Origin`.
fn origin_arg(given: &str) -> Result<String, String> {
    // `http://localhost:3000/` as a browser's address bar shows it: the origin without the slash.
    let s = given.strip_suffix('/').unwrap_or(given);
    let ok = s == "*"
        || s.split_once("://").is_some_and(|(scheme, rest)| {
            !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                && !rest.is_empty()
                && !rest.contains(['/', '?', '#', ' '])
        });
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("`{given}` is not an origin: give a scheme and host (and port), such as https://gui.example or http://localhost:3000, or * for any"))
    }
}

impl ServeArgs {
    /// The server options these arguments ask for.
    ///
    /// ```
    /// use clap::Parser;
    ///
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     serve: qiku_serve::cli::ServeArgs,
    /// }
    ///
    /// let options = Cli::parse_from(["serve", "--max-searches", "4", "--rules", "plain"]).serve.options();
    /// assert_eq!(options.limits.max_searches, 4);
    /// assert_eq!(options.limits.max_connections, 256); // the default
    /// assert_eq!(options.rules, qiku_serve::adapter::TableRules::Plain);
    /// assert!(options.bind.is_loopback());
    /// ```
    pub fn options(self) -> Options {
        let limits =
            Limits { max_connections: self.max_connections, max_searches: self.max_searches, ..Limits::default() };
        Options {
            books: self.books,
            tables: self.tables,
            engine: self.engine,
            bind: self.bind,
            port: self.port,
            rules: self.rules,
            limits,
            allow_origins: self.allow_origins,
        }
    }
}
