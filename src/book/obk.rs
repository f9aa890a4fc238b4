//! BHGUI-style `.obk` opening books: export a `.qbk` into one and import one back.
//!
//! An `.obk` is an SQLite database with one table `bhobk`, a row per (position, move):
//! `vkey` (the position's 64-bit Zobrist key under the BHGUI table, stored as a signed SQLite
//! integer), `vmove` (`from << 8 | to` on the 16x16 board of the ElephantEye family), `vscore`,
//! `vwin`, `vdraw`, `vlost` (the mover's games), `vvalid` (1: playable), `vmemo` and `vindex`.
//! docs/FORMAT.md describes the key and move encodings byte by byte.
//!
//! A `.qbk` stores positions only by qiku's own keys, and an `.obk` only by BHGUI's, so neither
//! can be converted row by row: both directions walk the book from the start position, playing
//! every book move, and compute each position's key in the other scheme. Records that cannot be
//! reached that way (a move pruned by `--min-games` cuts off what follows it; games that start
//! from a set-up position) are counted in the report and not converted.
//!
//! Every position is exported in both left-right orientations (one row set per mirror image), so
//! that readers which look up only the exact key find it; import takes the position's own rows,
//! else those of its mirror image, never both. A small extra table `qiku_book` carries the
//! `.qbk` header, so that export followed by import gives back the same book byte for byte;
//! GUIs ignore it.

use super::format::{BookWriter, BuildParams, GameCounts, Header, SideFilter, HEADER_LEN};
use super::probe::Book;
use super::record::{canonical_key, store_move, Counts, Entry, Orientation};
use super::BookError;
use crate::core::{Move, Position, Square};
use crate::util::files::{check_output_place, open_regular, same_file, AtomicFile};
use crate::util::progress::{NoProgress, Progress};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

#[path = "obk_error.rs"]
mod error;
#[path = "obk_keys.rs"]
mod keys;
#[path = "obk_read.rs"]
mod read;

pub use error::ObkError;

/// The BHGUI Zobrist key of a position (see docs/FORMAT.md): the XOR of one key per piece and
/// square, and a further key when red is to move.
///
/// ```
/// use qiku::{book::obk::bhgui_key, Position};
///
/// // The start position's key (red to move), as BHGUI-keyed tools print it.
/// assert_eq!(bhgui_key(&Position::startpos()), 0x628D_04D7_C9C1_44AE);
/// ```
pub fn bhgui_key(pos: &Position) -> u64 {
    let mut key = 0u64;
    for sq in Square::all() {
        if let Some(piece) = pos.piece_at(sq) {
            key ^= keys::PIECE_SQUARE[piece.index()][sq.index()];
        }
    }
    if pos.turn() == crate::core::Color::Red {
        key ^= keys::RED_TO_MOVE;
    }
    key
}

/// A square on the ElephantEye 16x16 board: file `a` is column 3, rank 9 is row 3.
fn square_code(sq: Square) -> u16 {
    (12 - sq.rank().index() as u16) * 16 + 3 + sq.file().index() as u16
}

/// The square of a 16x16 board code, or `None` off the 9x10 board.
fn square_from_code(code: u16) -> Option<Square> {
    let (row, col) = (i32::from(code / 16), i32::from(code % 16));
    Square::from_coords(col - 3, 12 - row)
}

/// A move as `vmove`: `from << 8 | to`, squares on the 16x16 board.
///
/// ```
/// use qiku::{book::obk::encode_move, notation::iccs::parse_move};
///
/// assert_eq!(encode_move(parse_move("h2e2")?), 0xAAA7); // 炮二平五 in BHGUI books
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
pub fn encode_move(m: Move) -> u16 {
    square_code(m.from()) << 8 | square_code(m.to())
}

/// A `vmove` back as a move, or `None` if a square is off the board (a move's legality is
/// checked where the position is known).
///
/// ```
/// use qiku::{book::obk::decode_move, notation::iccs::parse_move};
///
/// assert_eq!(decode_move(0xAAA7), Some(parse_move("h2e2")?));
/// assert_eq!(decode_move(0), None); // squares off the board
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
pub fn decode_move(vmove: i64) -> Option<Move> {
    let v = u16::try_from(vmove).ok()?;
    Some(Move::new(square_from_code(v >> 8)?, square_from_code(v & 0xff)?))
}

/// What `vscore` holds in an exported book: the mover's points doubled (two per win, one per
/// draw). GUIs use `vscore` as a pick weight and skip moves whose score is not positive, so a move
/// that only ever lost is listed but not chosen.
///
/// ```
/// use qiku::book::{obk::export_score, Counts};
///
/// assert_eq!(export_score(&Counts { wins: 2, draws: 1, losses: 3, unknown: 4 }), 5);
/// assert_eq!(export_score(&Counts { losses: 3, ..Counts::default() }), 0); // listed, never picked
/// ```
pub fn export_score(c: &Counts) -> i64 {
    i64::try_from(c.double_points()).unwrap_or(i64::MAX).min(i64::from(i32::MAX))
}

/// The memo that carries games without a result (`.obk` has no column for them).
const UNKNOWN_MEMO: &str = "qiku:unknown=";

/// What an export wrote.
#[derive(Clone, Debug, Default)]
pub struct ExportReport {
    /// Positions (canonical, as the `.qbk` counts them) written.
    pub positions: u64,
    /// `.qbk` records written (each as one row, or two for a non-symmetric position).
    pub records: u64,
    /// Rows in the `bhobk` table.
    pub rows: u64,
    /// `.qbk` records not reachable from the start position by book moves (not written).
    pub unreachable: u64,
    /// Extra rows for VinXiangQi's lookup ([`ExportOptions::vinxiangqi_aliases`]).
    pub alias_rows: u64,
    /// Records written whose games all lack a result: their `vscore` is 0 (see
    /// [`export_score`]), so GUIs that skip moves without a positive score do not show them.
    pub without_result: u64,
    /// Wall time of the export.
    pub elapsed: Duration,
}

/// Options of [`export_with`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions {
    /// Also write every row whose key is 2^63 or more a second time with the key as a REAL
    /// holding its unsigned value. VinXiangQi looks keys up with `vkey LIKE <unsigned decimal>`,
    /// which SQLite compares as the text of a REAL for such keys, so only these alias rows let it
    /// find them. Readers that look up the signed integer never see them; `import` skips them.
    pub vinxiangqi_aliases: bool,
}

/// What an import read and wrote.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// Rows in the `bhobk` table.
    pub rows: u64,
    /// Rows used (reached from the start position, valid, legal).
    pub used: u64,
    /// Rows with `vvalid` 0 (moves the book's author switched off): not imported.
    pub invalid: u64,
    /// Rows whose key or move cannot be read at all.
    pub unreadable: u64,
    /// VinXiangQi alias rows (a REAL key of 2^63 or more, see [`ExportOptions`]): skipped.
    pub aliases: u64,
    /// Rows of a reached position whose move is illegal there (a key collision or a broken book).
    pub illegal: u64,
    /// Rows repeating an earlier row's position and move (an edited or concatenated book): not
    /// imported, the first row is kept (adding them up would count the same games twice).
    pub repeated: u64,
    /// Rows of positions not reachable from the start position by book moves.
    pub unreachable: u64,
    /// Rows with a negative or missing (`NULL`) win, draw or loss count: not imported (a count
    /// cannot be guessed).
    pub bad_counts: u64,
    /// Rows whose `vmemo` is qiku's count of games without a result (`qiku:unknown=N`, as
    /// export writes it) but whose count is not a whole number of games: not imported (how many
    /// of the games had a result cannot be guessed).
    pub bad_memos: u64,
    /// Rows with a count of 2^32 or more (a win, draw or loss count, or the count of games
    /// without a result in the memo): imported with that count saturated at 4,294,967,295, as
    /// the book's counters saturate.
    pub saturated: u64,
    /// The `.obk`'s `qiku_book` table held a header that does not describe these rows (copied
    /// from another book, or the rows were edited): it was ignored, and the game counts and
    /// `--max-ply` were estimated from the rows as for a GUI's book.
    pub header_ignored: bool,
    /// The `.qbk` header written.
    pub header: Option<Header>,
    /// Wall time of the import.
    pub elapsed: Duration,
}

/// Refuses an output that cannot be written before any work: a directory (or a name ending in a
/// slash), a device, a path in a directory that does not exist or cannot be written in.
fn check_output(output: &Path) -> Result<(), ObkError> {
    check_output_place(output).map_err(|source| ObkError::Io { path: output.to_path_buf(), op: "write there", source })
}

fn sql_err<'a>(path: &'a Path, op: &'static str) -> impl Fn(rusqlite::Error) -> ObkError + 'a {
    move |source| ObkError::Sqlite { path: path.to_path_buf(), op, source }
}

/// Writes `book` as an `.obk` at `output` (atomically: a temporary file renamed into place).
///
/// ```
/// # let dir = tempfile::tempdir()?; let (games, qbk) = (dir.path().join("g.pgn"), dir.path().join("g.qbk"));
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?; qiku::book::build(&[games], &qbk, &Default::default())?;
/// use qiku::book::{obk, Book};
///
/// let report = obk::export(&Book::open(&qbk)?, &dir.path().join("g.obk"))?;
/// // The start position is its own mirror image (one row); the one after h2e2 is not (two).
/// assert_eq!((report.records, report.rows, report.unreachable), (2, 3, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export(book: &Book, output: &Path) -> Result<ExportReport, ObkError> {
    export_with(book, output, ExportOptions::default())
}

/// [`export`] with options.
///
/// ```
/// # let dir = tempfile::tempdir()?; let (games, qbk) = (dir.path().join("g.pgn"), dir.path().join("g.qbk"));
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?; qiku::book::build(&[games], &qbk, &Default::default())?;
/// use qiku::book::obk::{self, ExportOptions};
///
/// let options = ExportOptions { vinxiangqi_aliases: true };
/// let report = obk::export_with(&qiku::book::Book::open(&qbk)?, &dir.path().join("g.obk"), options)?;
/// assert_eq!((report.rows, report.alias_rows), (4, 1)); // one key of 2^63 or more: its row twice
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export_with(book: &Book, output: &Path, options: ExportOptions) -> Result<ExportReport, ObkError> {
    export_with_progress(book, output, options, &NoProgress)
}

/// [`export_with`], reporting the book moves written to `progress` (one phase, `writing`, whose
/// total is the book's record count). It asks [`Progress::stop_requested`] after each position
/// and once more before the file replaces the output: a stop ends the export with
/// [`ObkError::Stopped`], writing nothing and removing the temporary file.
///
/// Refused before anything is written: an output that is the book itself, and a book built with
/// `--only` ([`ObkError::OneSided`]). A book none of whose moves is reachable from the start
/// position fails with [`ObkError::NothingReachable`] and writes nothing; one of which only some
/// are reachable is written, [`ExportReport::unreachable`] counting the rest.
///
/// ```
/// # let dir = tempfile::tempdir()?; let (games, qbk) = (dir.path().join("g.pgn"), dir.path().join("g.qbk"));
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?; qiku::book::build(&[games], &qbk, &Default::default())?;
/// use qiku::book::obk::{self, ExportOptions};
/// use qiku::{book::Book, NoProgress};
///
/// let (book, options) = (Book::open(&qbk)?, ExportOptions::default());
/// let report = obk::export_with_progress(&book, &dir.path().join("g.obk"), options, &NoProgress)?;
/// assert_eq!(report.records, book.len());
/// assert!(obk::export_with_progress(&book, &qbk, options, &NoProgress).is_err()); // over the book
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export_with_progress(
    book: &Book,
    output: &Path,
    options: ExportOptions,
    progress: &dyn Progress,
) -> Result<ExportReport, ObkError> {
    let started = Instant::now();
    if same_file(book.path(), output) {
        return Err(BookError::OutputIsInput { output: output.to_path_buf(), input: book.path().to_path_buf() }.into());
    }
    check_output(output)?;
    if let SideFilter::Only(side) = book.header().params.only {
        return Err(ObkError::OneSided { book: book.path().to_path_buf(), side });
    }
    // SQLite writes the database through its own handle, at the temporary file's path; the
    // atomic writer (exclusively created, randomly named) renames it into place when complete
    // and removes it otherwise.
    let file = AtomicFile::create(output).map_err(|source| ObkError::Io {
        path: output.to_path_buf(),
        op: "write",
        source,
    })?;
    progress.start("writing", book.len());
    // On every way out without a commit the temporary file is removed (dropped); the phase
    // finishes only when the work did.
    let mut report = match export_to(book, file.temp_path(), options, progress) {
        Err(ObkError::Stopped { .. }) => return Err(ObkError::Stopped { output: output.to_path_buf() }),
        other => other?,
    };
    progress.finish();
    if report.positions == 0 {
        return Err(ObkError::NothingReachable { book: book.path().to_path_buf(), records: book.len() });
    }
    if progress.stop_requested() {
        return Err(ObkError::Stopped { output: output.to_path_buf() });
    }
    file.commit().map_err(|source| ObkError::Io {
        path: output.to_path_buf(),
        op: "rename the finished file into place",
        source,
    })?;
    report.elapsed = started.elapsed();
    Ok(report)
}

fn export_to(
    book: &Book,
    path: &Path,
    options: ExportOptions,
    progress: &dyn Progress,
) -> Result<ExportReport, ObkError> {
    let mut conn = Connection::open(path).map_err(sql_err(path, "create the database"))?;
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER, vscore INTEGER,
                            vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo TEXT, vindex INTEGER);
         CREATE TABLE qiku_book(header BLOB);",
    )
    .map_err(sql_err(path, "create the bhobk table"))?;
    let mut report = ExportReport::default();
    let tx = conn.transaction().map_err(sql_err(path, "start a transaction"))?;
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid, vmemo, vindex)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, 0)",
            )
            .map_err(sql_err(path, "prepare the insert"))?;
        let mut aliases = 0u64;
        let mut write = |pos: &Position, mirrored: bool, mv: Move, c: &Counts| -> Result<(), ObkError> {
            let (key, mv) = if mirrored { (bhgui_key(&pos.mirror()), mv.mirror()) } else { (bhgui_key(pos), mv) };
            let memo = (c.unknown > 0).then(|| format!("{UNKNOWN_MEMO}{}", c.unknown));
            let mut keys = vec![rusqlite::types::Value::Integer(key as i64)];
            if options.vinxiangqi_aliases && key >= 1 << 63 {
                keys.push(rusqlite::types::Value::Real(key as f64));
                aliases += 1;
            }
            for k in keys {
                insert
                    .execute(rusqlite::params![k, encode_move(mv), export_score(c), c.wins, c.draws, c.losses, memo])
                    .map_err(sql_err(path, "insert a row"))?;
            }
            Ok(())
        };
        let mut seen: HashSet<u64> = HashSet::new();
        let mut stack = vec![Position::startpos()];
        while let Some(pos) = stack.pop() {
            let (key, orientation) = canonical_key(&pos);
            if !seen.insert(key) {
                continue;
            }
            let moves = book.probe(&pos)?;
            if moves.is_empty() {
                continue;
            }
            report.positions += 1;
            report.records += moves.len() as u64;
            report.without_result += moves.iter().filter(|m| m.counts.decided() == 0).count() as u64;
            progress.advance(moves.len() as u64);
            if progress.stop_requested() {
                return Err(ObkError::Stopped { output: path.to_path_buf() });
            }
            for m in &moves {
                write(&pos, false, m.mv, &m.counts)?;
                report.rows += 1;
                if orientation != Orientation::Symmetric {
                    write(&pos, true, m.mv, &m.counts)?;
                    report.rows += 1;
                }
                stack.push(pos.play_unchecked(m.mv));
            }
        }
        report.alias_rows = aliases;
        report.rows += aliases;
        tx.execute("INSERT INTO qiku_book(header) VALUES (?1)", [book.header().encode().to_vec()])
            .map_err(sql_err(path, "write the qiku_book table"))?;
    }
    tx.commit().map_err(sql_err(path, "commit"))?;
    conn.execute_batch("CREATE INDEX idxkey ON bhobk(vkey);").map_err(sql_err(path, "index the keys"))?;
    drop(conn);
    report.unreachable = book.len().saturating_sub(report.records);
    Ok(report)
}

/// One usable row: move and counts.
#[derive(Clone, Copy)]
struct Row {
    mv: Move,
    counts: Counts,
}

/// A `vkey` as stored: an integer (the usual form), or, as some generators wrote keys of 2^63
/// and above, a REAL whose 8 bytes are the key; text holding a decimal number is read too.
fn read_key(v: ValueRef<'_>) -> Option<u64> {
    match v {
        ValueRef::Integer(i) => Some(i as u64),
        ValueRef::Real(f) if f.is_sign_negative() || !f.is_finite() => Some(f.to_bits()),
        ValueRef::Text(t) => {
            let s = std::str::from_utf8(t).ok()?.trim();
            s.parse::<i64>().map(|i| i as u64).or_else(|_| s.parse::<u64>()).ok()
        }
        _ => None,
    }
}

/// An integer cell; `NULL` and anything that is not a whole number are `None`.
fn read_int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9e15 => Some(f as i64),
        _ => None,
    }
}

/// A win, draw or loss cell as read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CountCell {
    /// A count that fits.
    Count(u32),
    /// 2^32 or more: saturated at `u32::MAX`.
    Saturated,
    /// Negative or `NULL`: no count can be taken from it.
    Bad,
    /// Not a number at all.
    Unreadable,
}

fn read_count(v: ValueRef<'_>) -> CountCell {
    if matches!(v, ValueRef::Null) {
        return CountCell::Bad;
    }
    match read_int(v) {
        None => CountCell::Unreadable,
        Some(i) if i < 0 => CountCell::Bad,
        Some(i) => u32::try_from(i).map_or(CountCell::Saturated, CountCell::Count),
    }
}

/// The count of games without a result that qiku's memo (`qiku:unknown=N`) carries: 0 for a
/// memo that is not qiku's (a GUI's comment), [`CountCell::Saturated`] for 2^32 or more, and
/// [`CountCell::Unreadable`] for a memo of qiku's whose count is not a whole number of games.
fn read_memo_unknown(v: ValueRef<'_>) -> CountCell {
    let text = match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t).unwrap_or(""),
        _ => "",
    };
    let Some(n) = text.strip_prefix(UNKNOWN_MEMO).map(str::trim) else { return CountCell::Count(0) };
    match n.parse::<u64>() {
        Ok(n) => u32::try_from(n).map_or(CountCell::Saturated, CountCell::Count),
        Err(_) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => CountCell::Saturated,
        Err(_) => CountCell::Unreadable,
    }
}

/// The columns `import` reads, each with whether its declared type must have SQLite's INTEGER
/// affinity (else any affinity but a generated value is accepted).
const READ_COLUMNS: [(&str, bool); 7] = [
    ("vkey", true),
    ("vmove", true),
    ("vwin", true),
    ("vdraw", true),
    ("vlost", true),
    ("vvalid", true),
    ("vmemo", false),
];

/// SQLite virtual machine steps between two calls of the work budget's check.
const STEPS_PER_CHECK: i32 = 10_000;

/// Opens an untrusted `.obk` for reading: a regular file only (a FIFO would block), read-only,
/// with schema functions distrusted, and `bhobk` checked to be a plain table (not a view, not
/// virtual, no generated columns) with the columns read and integer types; reading is bounded
/// by a budget of SQLite steps proportional to the file's size (a plain table needs a few steps
/// per byte). Nothing is written beside it (see `obk_read`; a copy, if one is needed, goes beside
/// `output`). Returns the connection and whether a plain `qiku_book` table is there too.
fn open_untrusted(input: &Path, output: &Path) -> Result<(read::ReadOnly, bool), ObkError> {
    let io = |source| ObkError::Io { path: input.to_path_buf(), op: "open", source };
    let mut file = open_regular(input).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let refused = |why: String| ObkError::Refused { path: input.to_path_buf(), why };
    // One of qiku's own books given where an .obk belongs: say so, rather than SQLite's "file
    // is not a database".
    let mut magic = [0u8; 8];
    if std::io::Read::read_exact(&mut file, &mut magic).is_ok() && magic == super::format::MAGIC {
        return Err(refused("it is a qiku book (.qbk), which qiku-book probe, merge and export read as it is".into()));
    }
    drop(file);
    let db = read::open(input, output)?;
    let conn = &db.conn;
    conn.execute_batch("PRAGMA trusted_schema = OFF;").map_err(sql_err(input, "open the database"))?;
    let budget = 1_000_000u64.saturating_add(len.saturating_mul(256)) / STEPS_PER_CHECK as u64;
    let mut checks = 0u64;
    conn.progress_handler(
        STEPS_PER_CHECK,
        Some(move || {
            checks += 1;
            checks > budget
        }),
    )
    .map_err(sql_err(input, "open the database"))?;
    let kind = |name: &str| -> Result<Option<(String, String)>, ObkError> {
        let mut stmt = conn
            .prepare("SELECT type, coalesce(sql, '') FROM sqlite_master WHERE lower(name) = ?1")
            .map_err(sql_err(input, "read the schema"))?;
        let mut rows = stmt.query([name]).map_err(sql_err(input, "read the schema"))?;
        match rows.next().map_err(sql_err(input, "read the schema"))? {
            Some(r) => Ok(Some((r.get(0).unwrap_or_default(), r.get(1).unwrap_or_default()))),
            None => Ok(None),
        }
    };
    let plain_table =
        |t: &(String, String)| t.0 == "table" && !t.1.trim_start().to_ascii_uppercase().starts_with("CREATE VIRTUAL");
    match kind("bhobk")? {
        None => return Err(refused("it has no bhobk table".into())),
        Some(t) if !plain_table(&t) => {
            let what = if t.0 == "table" { "a virtual table" } else { t.0.as_str() };
            return Err(refused(format!("bhobk is {} {what}, not a plain table", article(what))));
        }
        Some(_) => {}
    }
    let triggers: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'", [], |r| r.get(0))
        .map_err(sql_err(input, "read the schema"))?;
    if triggers > 0 {
        return Err(refused(format!("it has {triggers} trigger(s), which a book has no use for")));
    }
    // Name, declared type and whether hidden (1: of a virtual table; 2, 3: generated).
    let mut columns: HashMap<String, (String, i64)> = HashMap::new();
    {
        let mut stmt = conn
            .prepare("SELECT name, type, hidden FROM pragma_table_xinfo('bhobk')")
            .map_err(sql_err(input, "read the schema"))?;
        let mut rows = stmt.query([]).map_err(sql_err(input, "read the schema"))?;
        while let Some(r) = rows.next().map_err(sql_err(input, "read the schema"))? {
            let name: String = r.get(0).unwrap_or_default();
            columns.insert(name.to_ascii_lowercase(), (r.get(1).unwrap_or_default(), r.get(2).unwrap_or(0)));
        }
    }
    for (name, integer) in READ_COLUMNS {
        let Some((ty, hidden)) = columns.get(name) else {
            return Err(refused(format!("bhobk has no column {name}")));
        };
        if *hidden != 0 {
            return Err(refused(format!("bhobk's column {name} is generated, not stored")));
        }
        // SQLite's rule: a declared type containing INT has INTEGER affinity.
        if integer && !ty.to_ascii_uppercase().contains("INT") {
            return Err(refused(format!("bhobk's column {name} has type {ty:?}, not an integer type")));
        }
    }
    let has_header_table = kind("qiku_book")?.is_some_and(|t| plain_table(&t));
    Ok((db, has_header_table))
}

/// Whether the file at `path` is an `.obk` book: an SQLite database with a `bhobk` table (only
/// the schema is read, read-only and with a bounded amount of work). `false` for anything else,
/// a missing file or one that cannot be read; programs ask before replacing a file with an
/// export, so that another program's database is not mistaken for a book.
///
/// ```
/// use qiku::book::{build, obk, Book, BuildOptions};
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("g.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// let qbk = dir.path().join("g.qbk");
/// build(&[games.clone()], &qbk, &BuildOptions::default())?;
/// let gui = dir.path().join("g.obk");
/// obk::export(&Book::open(&qbk)?, &gui)?;
/// assert!(obk::is_obk(&gui));
/// assert!(!obk::is_obk(&qbk) && !obk::is_obk(&games));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn is_obk(path: &Path) -> bool {
    if !matches!(crate::util::kind::file_kind(path), Ok(crate::util::kind::FileKind::Sqlite)) {
        return false;
    }
    // Immutable: a WAL-mode database is read without writing files beside it.
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX
        | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let Ok(conn) = Connection::open_with_flags(read::immutable_uri(path), flags) else { return false };
    if conn.execute_batch("PRAGMA trusted_schema = OFF;").is_err() {
        return false;
    }
    // A schema needs a few steps per entry; a crafted one cannot keep the caller long.
    let mut checks = 0u32;
    let _ = conn.progress_handler(
        STEPS_PER_CHECK,
        Some(move || {
            checks += 1;
            checks > 100
        }),
    );
    conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND lower(name) = 'bhobk'", [], |r| {
        r.get::<_, i64>(0)
    })
    .is_ok_and(|n| n > 0)
}

/// "a" or "an" before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A failed read of a row: the work budget of [`open_untrusted`] ran out, or SQLite failed.
fn too_much_work(path: &Path) -> impl Fn(rusqlite::Error) -> ObkError + '_ {
    move |source| match source.sqlite_error_code() {
        Some(rusqlite::ErrorCode::OperationInterrupted) => ObkError::Refused {
            path: path.to_path_buf(),
            why: "reading bhobk takes far more work than a table of this file's size needs".into(),
        },
        _ => ObkError::Sqlite { path: path.to_path_buf(), op: "read a row", source },
    }
}

/// Reads the `.obk` at `input` and writes its book moves as a `.qbk` at `output`.
///
/// ```
/// # let dir = tempfile::tempdir()?; let (games, qbk) = (dir.path().join("g.pgn"), dir.path().join("g.qbk"));
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?; qiku::book::build(&[games], &qbk, &Default::default())?;
/// use qiku::book::{obk, Book};
///
/// let gui = dir.path().join("g.obk");
/// obk::export(&Book::open(&qbk)?, &gui)?;
/// let report = obk::import(&gui, &dir.path().join("back.qbk"))?;
/// assert_eq!((report.rows, report.used), (3, 2)); // a mirror image's row is not read twice
/// assert!(Book::open(dir.path().join("back.qbk"))?.entries().eq(Book::open(&qbk)?.entries()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import(input: &Path, output: &Path) -> Result<ImportReport, ObkError> {
    import_with_progress(input, output, &NoProgress)
}

/// Rows read between two reports to the progress receiver of [`import_with_progress`].
const IMPORT_REPORT_ROWS: u64 = 4096;

/// The size of the `.qbk` file a header stored in an `.obk` describes: the exported book's, its
/// size fields checked against themselves only (there is no `.qbk` file here to measure). `None`
/// when the fields give no size a file can have (a crafted header: its record count times the
/// record size past 64 bits).
fn stored_book_len(header: &[u8]) -> Option<u64> {
    let records = u64::from_le_bytes(header.get(32..40)?.try_into().ok()?);
    let bits = u32::from_le_bytes(header.get(28..32)?.try_into().ok()?);
    let index = ((1u64 << bits.min(40)) + 1) * 8;
    // A version 2 book's recent-games section follows the index (0 in version 1).
    let section = u64::from_le_bytes(header.get(104..112)?.try_into().ok()?);
    records
        .checked_mul(super::format::RECORD_LEN as u64)?
        .checked_add(HEADER_LEN as u64)?
        .checked_add(index)?
        .checked_add(section)
}

/// [`import`], reporting to `progress` the rows read (phase `reading`, total unknown) and the
/// book moves written (phase `writing`). It asks [`Progress::stop_requested`] every 4,096 rows
/// read and positions walked, every 65,536 book moves written and once more before the book
/// replaces the output: a stop
/// ends the import with [`ObkError::Stopped`], writing nothing and removing the temporary file.
///
/// ```
/// # let dir = tempfile::tempdir()?; let (games, qbk) = (dir.path().join("g.pgn"), dir.path().join("g.qbk"));
/// # std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?; qiku::book::build(&[games], &qbk, &Default::default())?;
/// use qiku::book::{obk, Book};
/// use qiku::NoProgress;
///
/// let gui = dir.path().join("g.obk");
/// obk::export(&Book::open(&qbk)?, &gui)?;
/// let report = obk::import_with_progress(&gui, &dir.path().join("back.qbk"), &NoProgress)?;
/// assert_eq!(report.header.map(|h| h.records), Some(2));
/// // A file that is not an .obk is refused.
/// assert!(obk::import_with_progress(&qbk, &dir.path().join("x.qbk"), &NoProgress).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn import_with_progress(input: &Path, output: &Path, progress: &dyn Progress) -> Result<ImportReport, ObkError> {
    let stopped = || ObkError::Stopped { output: output.to_path_buf() };
    let started = Instant::now();
    let mut report = ImportReport::default();
    if same_file(input, output) {
        return Err(BookError::OutputIsInput { output: output.to_path_buf(), input: input.to_path_buf() }.into());
    }
    check_output(output)?;
    let (db, has_header_table) = open_untrusted(input, output)?;
    let conn = &db.conn;
    let mut rows: HashMap<u64, Vec<Row>> = HashMap::new();
    {
        let mut stmt = conn
            .prepare("SELECT vkey, vmove, vwin, vdraw, vlost, vvalid, vmemo FROM bhobk")
            .map_err(sql_err(input, "read the bhobk table"))?;
        let mut q = stmt.query([]).map_err(sql_err(input, "read the bhobk table"))?;
        progress.start("reading", 0);
        while let Some(r) = q.next().map_err(too_much_work(input))? {
            report.rows += 1;
            if report.rows % IMPORT_REPORT_ROWS == 0 {
                progress.set_position(report.rows);
                if progress.stop_requested() {
                    return Err(stopped());
                }
            }
            let get = |i| r.get_ref(i).unwrap_or(ValueRef::Null);
            if read_int(get(5)) == Some(0) {
                report.invalid += 1;
                continue;
            }
            if matches!(get(0), ValueRef::Real(f) if f >= 9_223_372_036_854_775_808.0) {
                report.aliases += 1;
                continue;
            }
            let key = read_key(get(0));
            let mv = read_int(get(1)).and_then(decode_move);
            let cells = [read_count(get(2)), read_count(get(3)), read_count(get(4))];
            let unknown = read_memo_unknown(get(6));
            let count = |c: CountCell| match c {
                CountCell::Count(n) => n,
                _ => u32::MAX,
            };
            let counts = if cells.contains(&CountCell::Unreadable) {
                None
            } else if key.is_some() && mv.is_some() && cells.contains(&CountCell::Bad) {
                report.bad_counts += 1;
                continue;
            } else if key.is_some() && mv.is_some() && unknown == CountCell::Unreadable {
                report.bad_memos += 1;
                continue;
            } else {
                if cells.contains(&CountCell::Saturated) || unknown == CountCell::Saturated {
                    report.saturated += 1;
                }
                Some(Counts {
                    wins: count(cells[0]),
                    draws: count(cells[1]),
                    losses: count(cells[2]),
                    unknown: count(unknown),
                })
            };
            match (key, mv, counts) {
                (Some(key), Some(mv), Some(counts)) => rows.entry(key).or_default().push(Row { mv, counts }),
                _ => report.unreadable += 1,
            }
        }
        progress.set_position(report.rows);
        progress.finish();
    }
    // `Some(None)`: a stored header that does not decode (damaged, or of another layout), ignored
    // with a warning as one that does not describe the rows is.
    let stored_header: Option<Option<Header>> = has_header_table
        .then(|| conn.query_row("SELECT header FROM qiku_book LIMIT 1", [], |r| r.get::<_, Vec<u8>>(0)).ok())
        .flatten()
        .map(|b| (b.len() == HEADER_LEN).then(|| Header::decode(&b, stored_book_len(&b)?, input).ok()).flatten());
    drop(db);

    let mut entries: BTreeMap<(u64, u16), Counts> = BTreeMap::new();
    let mut used_keys: HashSet<u64> = HashSet::new();
    let mut seen: HashSet<u64> = HashSet::new();
    // Breadth first, so that each position is first reached by its shortest path and the
    // deepest ply seen estimates the build's --max-ply when the .obk has no qiku header.
    let mut queue = std::collections::VecDeque::from([(Position::startpos(), 0u32)]);
    let mut deepest = 0u32;
    let mut start_games = GameCounts::default();
    while let Some((pos, ply)) = queue.pop_front() {
        let (ck, orientation) = canonical_key(&pos);
        if !seen.insert(ck) {
            continue;
        }
        if seen.len() as u64 % IMPORT_REPORT_ROWS == 0 && progress.stop_requested() {
            return Err(stopped());
        }
        let own = bhgui_key(&pos);
        let mirror_key = bhgui_key(&pos.mirror());
        let (list, mirrored) = match (rows.get(&own), rows.get(&mirror_key)) {
            (Some(list), _) => (list, false),
            (None, Some(list)) => (list, true),
            (None, None) => continue,
        };
        // Both orientations' rows are accounted for: the other one holds the mirror image of
        // the same moves (export writes both; import reads one).
        used_keys.insert(own);
        used_keys.insert(mirror_key);
        deepest = deepest.max(ply + 1);
        let mut moves_here: HashSet<Move> = HashSet::with_capacity(list.len());
        for row in list {
            let mv = if mirrored { row.mv.mirror() } else { row.mv };
            if !pos.is_legal(mv) {
                report.illegal += 1;
                continue;
            }
            if !moves_here.insert(mv) {
                report.repeated += 1;
                continue;
            }
            report.used += 1;
            entries.entry((ck, store_move(orientation, mv).to_u16())).or_default().add(&row.counts);
            if ply == 0 {
                start_games.used += row.counts.games();
                start_games.without_result += u64::from(row.counts.unknown);
            }
            queue.push_back((pos.play_unchecked(mv), ply + 1));
        }
    }
    report.unreachable =
        rows.iter().filter(|(k, _)| !used_keys.contains(k)).map(|(_, list)| list.len() as u64).sum::<u64>();

    if entries.is_empty() {
        return Err(ObkError::NoUsableRow { path: input.to_path_buf(), rows: report.rows });
    }
    // A stored header is used only if it describes exactly these records (as export wrote it);
    // one copied from another book, or left behind by an edit, would make `stats` lie.
    let positions = entries.keys().map(|&(k, _)| k).collect::<HashSet<u64>>().len() as u64;
    let moves: u64 = entries.values().map(|c| c.games()).fold(0u64, u64::saturating_add);
    let stored_header = match stored_header {
        Some(Some(h)) if h.records == entries.len() as u64 && h.positions == positions && h.moves == moves => Some(h),
        Some(_) => {
            report.header_ignored = true;
            None
        }
        None => None,
    };
    if progress.stop_requested() {
        return Err(stopped());
    }
    let mut writer = BookWriter::create(output)?;
    progress.start("writing", entries.len() as u64);
    for (i, (&(key, mv), counts)) in entries.iter().enumerate() {
        if (i as u64 + 1) % super::merge::STOP_CHECK_RECORDS == 0 {
            progress.set_position(i as u64 + 1);
            // The unfinished file is removed as the writer is dropped.
            if progress.stop_requested() {
                return Err(stopped());
            }
        }
        let mv = Move::from_u16(mv).ok_or_else(|| BookError::Internal(format!("bad move bits {mv:#x}")))?;
        writer.push(&Entry { key, mv, counts: *counts })?;
    }
    progress.set_position(entries.len() as u64);
    progress.finish();
    if progress.stop_requested() {
        return Err(stopped());
    }
    let (games, params) = match stored_header {
        Some(h) => (h.games, h.params),
        None => {
            start_games.read = start_games.used;
            (start_games, BuildParams { max_ply: deepest, ..BuildParams::default() })
        }
    };
    report.header = Some(writer.finish(games, params)?);
    report.elapsed = started.elapsed();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    #[test]
    fn a_stored_header_whose_sizes_pass_64_bits_gives_no_length() {
        let header = |records: u64, bits: u32| {
            let mut b = vec![0u8; HEADER_LEN];
            b[28..32].copy_from_slice(&bits.to_le_bytes());
            b[32..40].copy_from_slice(&records.to_le_bytes());
            b
        };
        // 3 records, a 16-slot index: the header, the records and 17 index words.
        assert_eq!(stored_book_len(&header(3, 4)), Some(128 + 3 * 26 + 17 * 8));
        // A crafted count (found by fuzzing: the product overflowed).
        assert_eq!(stored_book_len(&header(u64::MAX / 16, 4)), None);
        assert_eq!(stored_book_len(&header(u64::MAX / 26, 40)), None);
        assert_eq!(stored_book_len(&header(3, 4)[..35]), None);
        // A version 2 book's recent-games section counts.
        let mut v2 = header(3, 4);
        v2[104..112].copy_from_slice(&1000u64.to_le_bytes());
        assert_eq!(stored_book_len(&v2), Some(128 + 3 * 26 + 17 * 8 + 1000));
        v2[104..112].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(stored_book_len(&v2), None);
    }

    #[test]
    fn move_codes_round_trip_and_match_the_published_examples() {
        let pos = Position::startpos();
        // 炮二平五 h2e2 is 0xAAA7 in BHGUI books (h2 = row 10, column 10; e2 = column 7).
        assert_eq!(encode_move(iccs::parse(&pos, "h2e2").unwrap()), 0xAAA7);
        for &m in pos.moves().iter() {
            assert_eq!(decode_move(i64::from(encode_move(m))), Some(m));
        }
        assert_eq!(decode_move(0x0000), None);
        assert_eq!(decode_move(-1), None);
        assert_eq!(decode_move(0x1_0000), None);
    }

    #[test]
    fn start_key_is_bhgui_s() {
        // The start position's key (red to move) as BHGUI-keyed tools print it.
        assert_eq!(bhgui_key(&Position::startpos()), 0x628D_04D7_C9C1_44AE);
    }
}
