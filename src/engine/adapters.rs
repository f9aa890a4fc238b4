//! Connects the engine's [`OpeningBook`] and [`Endgames`] traits to the crate's `.qbk` books
//! ([`crate::book`]) and `.qtb` tablebases ([`crate::tablebase`]), and says how the UCI front end
//! opens them ([`Openers`]): the front end itself knows no file format.

use super::{Endgames, OpeningBook};
use crate::book::{self, Book, BookError, BookMove, Policy};
use crate::core::TbValue;
use crate::core::{Dtm, Rules, Verdict, Wdl};
use crate::core::{Move, Position};
use crate::tablebase::{self, Tablebases, TbError};
use crate::Rng;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why a book or a tablebase directory could not be opened for the engine.
///
/// ```
/// use qiku::engine::adapters::{openers, AttachError};
///
/// let err = (openers().book)("a.qbk", "random", 1, 0).err().expect("no such policy");
/// assert_eq!(err.to_string(), "unknown book policy \"random\" (expected one of best, games, score)");
/// assert_eq!(AttachError::NoUsableTables("tb".into()).to_string(), "no usable .qtb tables in tb");
/// ```
#[derive(Debug)]
pub enum AttachError {
    /// The book policy name is not one of [`BOOK_POLICIES`].
    UnknownPolicy(String),
    /// The `.qbk` file could not be read or failed verification.
    Book(BookError),
    /// The tablebase directory could not be read.
    Tablebases(TbError),
    /// The directory does not exist.
    NoDirectory(PathBuf),
    /// The directory holds no `.qtb` table.
    NoTables(PathBuf),
    /// Every `.qtb` table in the directory is damaged or foreign (each is reported).
    NoUsableTables(PathBuf),
}

impl fmt::Display for AttachError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttachError::UnknownPolicy(name) => {
                write!(f, "unknown book policy {name:?} (expected one of {})", BOOK_POLICIES.join(", "))
            }
            AttachError::Book(e) => write!(f, "{e}"),
            AttachError::Tablebases(e) => write!(f, "{e}"),
            AttachError::NoDirectory(dir) => write!(f, "{}", tablebase::no_tables_text(dir, true, SET_PATH)),
            AttachError::NoTables(dir) => write!(f, "{}", tablebase::no_tables_text(dir, false, SET_PATH)),
            AttachError::NoUsableTables(dir) => write!(f, "no usable .qtb tables in {}", dir.display()),
        }
    }
}

/// The other way out of a directory without tables, for an engine's user.
const SET_PATH: &str = "or set TablebasePath to the directory that holds them";

impl std::error::Error for AttachError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AttachError::Book(e) => Some(e),
            AttachError::Tablebases(e) => Some(e),
            AttachError::UnknownPolicy(_)
            | AttachError::NoDirectory(_)
            | AttachError::NoTables(_)
            | AttachError::NoUsableTables(_) => None,
        }
    }
}

/// Where the book and table adapters send what the engine's user should know while it plays on
/// (a damaged table, a missing companion, a book that can no longer be read): one message, without
/// the `info string ` a UCI front end puts before it. Called from search threads.
pub type Notes = Arc<dyn Fn(&str) + Send + Sync>;

/// The UCI channel: each message as `info string <message>` on stdout, as the UCI front end
/// prints them (the default of the adapters).
pub fn stdout_notes() -> Notes {
    Arc::new(|message: &str| {
        use std::io::Write;
        let _ = writeln!(std::io::stdout().lock(), "info string {message}");
    })
}

/// Opens a book for the UCI `BookFile` option: `(path, policy, min_games, min_share_percent)`.
pub type BookOpener = fn(&str, &str, u32, u32) -> Result<Arc<dyn OpeningBook>, AttachError>;
/// Opens the tablebases for the UCI `TablebasePath` option.
pub type TablebaseOpener = fn(&str) -> Result<Arc<dyn Endgames>, AttachError>;

/// How book and tablebase files are opened by the UCI front end.
///
/// ```
/// use qiku::engine::adapters::{AttachError, Openers};
/// use qiku::engine::{uci::{Output, Uci}, Endgames};
/// use std::sync::Arc;
///
/// // Tables from elsewhere: here, every directory is refused.
/// fn refuse(dir: &str) -> Result<Arc<dyn Endgames>, AttachError> {
///     Err(AttachError::NoUsableTables(dir.into()))
/// }
/// let log = tempfile::NamedTempFile::new()?;
/// let openers = Openers { tablebases: refuse, ..Openers::default() };
/// let mut uci = Uci::new(Output::new(Box::new(log.reopen()?)), openers);
/// uci.command("setoption name TablebasePath value /nowhere");
/// assert!(std::fs::read_to_string(log.path())?.contains("no usable .qtb tables in /nowhere"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Copy, Clone)]
pub struct Openers {
    /// Opens the `BookFile`.
    pub book: BookOpener,
    /// Opens the `TablebasePath` directory.
    pub tablebases: TablebaseOpener,
    /// Policies accepted by `BookPolicy` (the first is the default).
    pub book_policies: &'static [&'static str],
}

impl Default for Openers {
    /// The crate's own book and tablebase formats.
    fn default() -> Self {
        openers()
    }
}

/// Book policies by their UCI names (the same words `qiku-book probe --pick` uses).
pub const BOOK_POLICIES: &[&str] = &["best", "games", "score"];

/// The book policy for a UCI name.
///
/// ```
/// use qiku::book::Policy;
/// use qiku::engine::adapters::{policy, BOOK_POLICIES};
///
/// assert_eq!(policy("best"), Some(Policy::BestScore));
/// assert_eq!(policy("Games"), Some(Policy::WeightedByGames)); // any case
/// assert_eq!(policy("random"), None);
/// assert!(BOOK_POLICIES.iter().all(|name| policy(name).is_some()));
/// ```
pub fn policy(name: &str) -> Option<Policy> {
    match name.to_ascii_lowercase().as_str() {
        "best" => Some(Policy::BestScore),
        "games" => Some(Policy::WeightedByGames),
        "score" => Some(Policy::WeightedByScore),
        _ => None,
    }
}

/// A `.qbk` book with a policy: moves played in fewer than `min_games` games, or in less than
/// `min_share` percent of the position's games ([`book::DEFAULT_MIN_SHARE_PERCENT`] unless set by
/// [`QbkOpeningBook::with_min_share`]), are ignored.
///
/// A book that can no longer be read while the engine has it open (truncated, damaged or
/// overwritten) is not silently ignored: the first failed probe is named (on stdout as
/// `info string <file>: <cause>; playing on without the book`, or to the [`Notes`] given by
/// [`QbkOpeningBook::with_notes`]), and the engine then searches (as tables in the same
/// situation are reported).
///
/// The engine plays its moves while the game is in the book:
///
/// ```
/// # use qiku::book::{build, BuildOptions};
/// # let dir = tempfile::tempdir()?;
/// # let pgn = dir.path().join("games.pgn");
/// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
/// # let path = dir.path().join("games.qbk");
/// # build(&[pgn], &path, &BuildOptions::default())?;
/// use qiku::book::Policy;
/// use qiku::engine::{adapters::QbkOpeningBook, time::Limits, Engine, Source};
/// use qiku::{Game, Position};
/// use std::sync::Arc;
///
/// let mut engine = Engine::new(1);
/// engine.book = Some(Arc::new(QbkOpeningBook::open(&path, Policy::BestScore, 1)?));
/// let (result, source) = engine.think(&Game::new(Position::startpos()), &Limits::depth(1), &mut |_| {});
/// assert_eq!((source, result.best.map(|m| m.to_string())), (Source::Book, Some("h2e2".to_string())));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct QbkOpeningBook {
    book: Arc<Book>,
    policy: Policy,
    min_games: u64,
    min_share: u32,
    rng: Mutex<Rng>,
    /// Set once the file failed: the book is no longer asked.
    failed: std::sync::atomic::AtomicBool,
    notes: Notes,
}

impl QbkOpeningBook {
    /// Opens (and fully verifies) a book. The random policies are seeded from the clock, so
    /// that games differ; `best` is deterministic.
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::adapters::QbkOpeningBook;
    /// use qiku::engine::OpeningBook;
    /// use qiku::Position;
    ///
    /// // games.qbk: 1. h2e2 (a win and a loss), 1. c3c4 (a draw).
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 1)?;
    /// let pick = book.pick(&Position::startpos()).map(|m| m.to_string());
    /// assert_eq!(pick.as_deref(), Some("h2e2")); // the same score, played more often
    /// assert!(QbkOpeningBook::open(&dir.path().join("missing.qbk"), Policy::BestScore, 1).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: &Path, policy: Policy, min_games: u32) -> Result<QbkOpeningBook, AttachError> {
        let book = Book::open(path).map_err(AttachError::Book)?;
        Ok(QbkOpeningBook::shared(Arc::new(book), policy, min_games))
    }

    /// A book already opened (and shared with its other users: no file is opened again, so a
    /// relative path or a changed working directory does not matter), with the same policy and
    /// filters as [`QbkOpeningBook::open`].
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::{Book, Policy};
    /// use qiku::engine::adapters::QbkOpeningBook;
    /// use std::sync::Arc;
    ///
    /// let book = Arc::new(Book::open(&path)?);
    /// let for_engine = QbkOpeningBook::shared(Arc::clone(&book), Policy::BestScore, 1);
    /// assert_eq!(Arc::strong_count(&book), 2); // one book in memory, two users
    /// assert_eq!(for_engine.moves(&qiku::Position::startpos())?, book.probe(&qiku::Position::startpos())?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shared(book: Arc<Book>, policy: Policy, min_games: u32) -> QbkOpeningBook {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        QbkOpeningBook {
            book,
            policy,
            min_games: min_games as u64,
            min_share: book::DEFAULT_MIN_SHARE_PERCENT,
            rng: Mutex::new(Rng::new(seed)),
            failed: std::sync::atomic::AtomicBool::new(false),
            notes: stdout_notes(),
        }
    }

    /// The same book with its message (a file that can no longer be read) sent to `notes`
    /// instead of stdout.
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::adapters::QbkOpeningBook;
    /// use qiku::engine::OpeningBook;
    /// use std::sync::{Arc, Mutex};
    ///
    /// let notes = Arc::new(Mutex::new(Vec::<String>::new()));
    /// let sink = Arc::clone(&notes);
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 1)?
    ///     .with_notes(Arc::new(move |note: &str| sink.lock().unwrap().push(note.to_string())));
    /// std::fs::write(&path, "no longer a book")?; // rewritten while the engine has it open
    /// assert_eq!(book.pick(&qiku::Position::startpos()), None); // the engine searches instead
    /// let notes = notes.lock().unwrap();
    /// assert_eq!(notes.len(), 1);
    /// assert!(notes[0].ends_with("playing on without the book"), "{}", notes[0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_notes(mut self, notes: Notes) -> QbkOpeningBook {
        self.notes = notes;
        self
    }

    /// The same book with moves played in less than `percent` percent of a position's games left
    /// out (0: none left out for their share).
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::adapters::QbkOpeningBook;
    /// use qiku::Position;
    ///
    /// let start = Position::startpos();
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 1)?;
    /// assert_eq!(book.moves(&start)?.len(), 2); // h2e2 in 2 games of 3, c3c4 in 1
    /// let book = book.with_min_share(50);
    /// assert_eq!(book.moves(&start)?.len(), 1); // only h2e2 has half the games
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_min_share(mut self, percent: u32) -> QbkOpeningBook {
        self.min_share = percent;
        self
    }

    /// The book moves of `pos` that pass the `min_games` and the share filters, most played
    /// first (the share is of all the position's book games); an error if the file can no longer
    /// be read.
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::adapters::QbkOpeningBook;
    ///
    /// // Only moves played in at least 2 games.
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 2)?;
    /// let moves = book.moves(&qiku::Position::startpos())?;
    /// let list: Vec<(String, u64)> = moves.iter().map(|m| (m.mv.to_string(), m.counts.games())).collect();
    /// assert_eq!(list, [("h2e2".to_string(), 2)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn moves(&self, pos: &Position) -> Result<Vec<BookMove>, BookError> {
        Ok(book::with_min_share(&self.book.probe(pos)?, self.min_share)
            .into_iter()
            .filter(|m| m.counts.games() >= self.min_games.max(1))
            .collect())
    }
}

impl OpeningBook for QbkOpeningBook {
    fn pick(&self, pos: &Position) -> Option<Move> {
        self.pick_among(pos, &|_| true)
    }

    fn pick_among(&self, pos: &Position, allowed: &dyn Fn(&Move) -> bool) -> Option<Move> {
        use std::sync::atomic::Ordering;
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let moves = match self.moves(pos) {
            Ok(moves) => moves,
            Err(e) => {
                if !self.failed.swap(true, Ordering::Relaxed) {
                    (self.notes)(&format!("{e}; playing on without the book"));
                }
                return None;
            }
        };
        // The share was taken over all the position's games; the moves left out go after it.
        let moves: Vec<BookMove> = moves.into_iter().filter(|m| allowed(&m.mv)).collect();
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        book::choose_with_share(&moves, self.policy, 0, &mut rng)
    }
}

/// A directory of `.qtb` tables. A table that cannot be read counts as absent (the search then
/// simply searches), but is named once (on stdout as `info string <file>: <cause>`, or to the
/// [`Notes`] given to [`QtbEndgames::with_notes`]).
///
/// The engine plays the tables' move in a position they cover:
///
/// ```
/// # #[cfg(feature = "generate")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let dir = tempfile::tempdir()?;
/// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
/// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// use qiku::engine::{adapters::QtbEndgames, time::Limits, Engine, Score, Source};
/// use qiku::tablebase::Tablebases;
/// use qiku::{Game, Position};
/// use std::sync::Arc;
///
/// let mut engine = Engine::new(1);
/// engine.options.tablebases = Some(Arc::new(QtbEndgames::new(Tablebases::open(dir.path())?))); // KRvK
/// let game = Game::new(Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?);
/// let (result, source) = engine.think(&game, &Limits::depth(1), &mut |_| {});
/// assert_eq!(source, Source::Tablebase);
/// assert_eq!((result.best.map(|m| m.to_string()), result.score), (Some("a0d0".into()), Score::Mate(1)));
/// # Ok(()) }
/// # #[cfg(not(feature = "generate"))] fn main() {}
/// ```
pub struct QtbEndgames {
    tables: Arc<Tablebases>,
    /// The repetition rules of the values: [`Rules::Asian`] (the default) unless set to plain
    /// (`setoption name TablebaseRules value plain`); 0 = plain, 1 = Asian.
    rules: std::sync::atomic::AtomicU8,
    /// Most pieces of any usable table in the directory (asked at every search node, so kept).
    max_pieces: u32,
    /// Files already reported, so that a damaged table is named once, not at every node (shared
    /// with the wrappers made by [`QtbEndgames::under_rules`]).
    reported: Arc<Mutex<std::collections::HashSet<std::path::PathBuf>>>,
    notes: Notes,
}

impl QtbEndgames {
    /// Wraps opened tables; the files that cannot be used are reported at once, on stdout.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::adapters::QtbEndgames;
    /// use qiku::engine::Endgames;
    /// use qiku::tablebase::Tablebases;
    /// use qiku::{Position, Wdl};
    ///
    /// // `dir` holds KRvK.qtb with its companions.
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?);
    /// assert_eq!(tables.max_pieces(), 3);
    /// let krk = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// assert_eq!(tables.probe_wdl(&krk), Some(Wdl::Win));
    /// assert_eq!(tables.probe(&Position::startpos()), None); // not covered
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    pub fn new(tables: Tablebases) -> QtbEndgames {
        QtbEndgames::with_notes(Arc::new(tables), stdout_notes())
    }

    /// Wraps tables already opened (and shared with their other users: no file is opened again);
    /// the files that cannot be used are reported at once, to `notes`, as are later problems.
    ///
    /// ```
    /// use qiku::engine::adapters::QtbEndgames;
    /// use qiku::engine::Endgames;
    /// use qiku::tablebase::Tablebases;
    /// use std::sync::{Arc, Mutex};
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("KNvK.qtb"), b"not a table")?;
    /// let notes = Arc::new(Mutex::new(Vec::<String>::new()));
    /// let sink = Arc::clone(&notes);
    /// let tables = Arc::new(Tablebases::open(dir.path())?);
    /// let note = move |n: &str| sink.lock().unwrap().push(n.to_string());
    /// let for_engine = QtbEndgames::with_notes(tables, Arc::new(note));
    /// assert_eq!(for_engine.max_pieces(), 0); // no usable table
    /// let notes = notes.lock().unwrap();
    /// assert_eq!(notes.len(), 1); // the damaged file, named at once
    /// assert!(notes[0].contains("KNvK.qtb"), "{}", notes[0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_notes(tables: Arc<Tablebases>, notes: Notes) -> QtbEndgames {
        let max_pieces = tables.usable_tables().iter().map(|t| t.material.piece_count() as u32).max().unwrap_or(0);
        let t = QtbEndgames {
            tables,
            max_pieces,
            rules: std::sync::atomic::AtomicU8::new(1),
            reported: Arc::default(),
            notes,
        };
        for problem in t.tables.problems() {
            t.report(problem);
        }
        t
    }

    /// A second wrapper over the same tables under `rules`, for searches that run beside this
    /// wrapper's under other rules: it shares the notes and the record of files already named
    /// (a damaged file is named once for both), and opens and reports nothing itself.
    ///
    /// ```
    /// use qiku::engine::adapters::QtbEndgames;
    /// use qiku::engine::Endgames;
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use std::sync::Arc;
    ///
    /// let dir = std::env::temp_dir().join("qiku-doc-under-rules");
    /// std::fs::create_dir_all(&dir)?;
    /// let tables = Arc::new(Tablebases::open(&dir)?);
    /// let asian = QtbEndgames::with_notes(tables, Arc::new(|note: &str| eprintln!("{note}")));
    /// let plain = asian.under_rules(Rules::Plain);
    /// assert_eq!(plain.max_pieces(), asian.max_pieces());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn under_rules(&self, rules: Rules) -> QtbEndgames {
        let t = QtbEndgames {
            tables: Arc::clone(&self.tables),
            max_pieces: self.max_pieces,
            rules: std::sync::atomic::AtomicU8::new(1),
            reported: Arc::clone(&self.reported),
            notes: Arc::clone(&self.notes),
        };
        t.set_rules(rules);
        t
    }

    /// Names a damaged file (`<file>: <cause>`) to the notes, once.
    fn report(&self, e: &tablebase::TbError) {
        let first = match e.path() {
            Some(p) => self.reported.lock().unwrap_or_else(|e| e.into_inner()).insert(p.to_path_buf()),
            None => true,
        };
        if first {
            (self.notes)(&e.to_string());
        }
    }
}

/// The largest distance passed to the search: a value decided by the perpetual-check rule
/// carries a rank that can exceed any mate distance; capped, it still scores as a win (inside
/// the search's mate range) and ranks below every real mate of the table.
const MAX_TB_PLIES: u32 = 800;

fn convert(v: TbValue) -> TbValue {
    let plies = v.dtm.plies().min(MAX_TB_PLIES) as i32;
    TbValue { dtm: Dtm(if v.dtm.0 < 0 { -plies } else { plies }), ..v }
}

impl QtbEndgames {
    fn rules(&self) -> Rules {
        if self.rules.load(std::sync::atomic::Ordering::Relaxed) == 0 {
            Rules::Plain
        } else {
            Rules::Asian
        }
    }

    /// `f` under the configured rules; a table without its `.qtr` companion answers with its
    /// plain values (reported once), an unreadable one not at all (reported once).
    fn with_rules<T>(&self, f: impl Fn(Rules) -> Result<Option<T>, tablebase::TbError>) -> Option<T> {
        match f(self.rules()) {
            Ok(v) => v,
            Err(e @ tablebase::TbError::NoRules { .. }) => {
                self.report(&e);
                f(Rules::Plain).unwrap_or_else(|e| {
                    self.report(&e);
                    None
                })
            }
            Err(e) => {
                self.report(&e);
                None
            }
        }
    }
}

impl Endgames for QtbEndgames {
    fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    fn probe(&self, pos: &Position) -> Option<TbValue> {
        if pos.occupied().count() > self.max_pieces {
            return None;
        }
        self.with_rules(|r| self.tables.probe_with(pos, r)).map(convert)
    }

    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if pos.occupied().count() > self.max_pieces {
            return None;
        }
        self.with_rules(|r| self.tables.probe_wdl_with(pos, r))
    }

    fn move_values(&self, pos: &Position) -> Option<Vec<(Move, TbValue)>> {
        if pos.occupied().count() > self.max_pieces {
            return None;
        }
        let values = self.with_rules(|r| self.tables.move_values_with(pos, r))?;
        Some(values.into_iter().map(|(m, v)| (m, convert(v))).collect())
    }

    fn best_moves(&self, pos: &Position) -> Option<Vec<Move>> {
        if pos.occupied().count() > self.max_pieces {
            return None;
        }
        self.with_rules(|r| self.tables.best_moves_with(pos, r))
    }

    fn set_rules(&self, rules: Rules) {
        let code = if rules == Rules::Plain { 0 } else { 1 };
        self.rules.store(code, std::sync::atomic::Ordering::Relaxed);
    }

    fn verdict(&self, pos: &Position) -> Option<Verdict> {
        if pos.occupied().count() > self.max_pieces {
            return None;
        }
        self.with_rules(|r| self.tables.verdict(pos, r))
    }
}

fn open_book(
    path: &str,
    policy_name: &str,
    min_games: u32,
    min_share: u32,
) -> Result<Arc<dyn OpeningBook>, AttachError> {
    let p = policy(policy_name).ok_or_else(|| AttachError::UnknownPolicy(policy_name.to_string()))?;
    Ok(Arc::new(QbkOpeningBook::open(Path::new(path), p, min_games)?.with_min_share(min_share)))
}

fn open_tablebases(dir: &str) -> Result<Arc<dyn Endgames>, AttachError> {
    let tables = Tablebases::open(dir).map_err(|e| match e.no_directory() {
        true => AttachError::NoDirectory(PathBuf::from(dir)),
        false => AttachError::Tablebases(e),
    })?;
    if tables.tables().is_empty() {
        return Err(AttachError::NoTables(PathBuf::from(dir)));
    }
    let tables = QtbEndgames::new(tables);
    if tables.max_pieces == 0 {
        return Err(AttachError::NoUsableTables(PathBuf::from(dir)));
    }
    Ok(Arc::new(tables))
}

/// The openers the `qiku` binary uses.
///
/// ```
/// use qiku::engine::adapters::{openers, AttachError, BOOK_POLICIES};
///
/// let o = openers();
/// assert_eq!(o.book_policies, BOOK_POLICIES);
/// let dir = tempfile::tempdir()?;
/// let missing = dir.path().join("no-such-dir");
/// assert!(matches!((o.tablebases)(missing.to_str().unwrap()), Err(AttachError::NoDirectory(_))));
/// assert!(matches!((o.tablebases)(dir.path().to_str().unwrap()), Err(AttachError::NoTables(_))));
/// assert!(matches!((o.book)("a.qbk", "random", 1, 0), Err(AttachError::UnknownPolicy(_))));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn openers() -> Openers {
    Openers { book: open_book, tablebases: open_tablebases, book_policies: BOOK_POLICIES }
}
