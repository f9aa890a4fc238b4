//! The C API: opening books and endgame tablebases for C and every
//! language with a C FFI, declared in `include/qiku.h` and built as `libqiku.so` / `libqiku.a`.
//!
//! Contract, for every function:
//! - It never unwinds into C: each entry runs under [`std::panic::catch_unwind`], and a panic
//!   (a bug in qiku) becomes the error code [`QIKU_ERR_INTERNAL`]. This needs `panic = "unwind"`
//!   (the crate's profiles); a build with `panic = "abort"` would abort on such a bug instead.
//! - Every failure is reported by the return value (`NULL` or a negative code) and described by
//!   [`qiku_last_error`], a thread-local message that each call resets (to `""` on success). A
//!   probe without an answer is such a failure too, with its own code: [`QIKU_ERR_NO_TABLE`] from
//!   every table function when no table covers the position, [`QIKU_ERR_NO_MOVE`] when there is
//!   no move to give.
//! - `NULL` pointers and strings that are not UTF-8 are errors ([`QIKU_ERR_ARG`]), not crashes.
//! - Handles may be shared by any number of threads at once (the Rust types are `Sync`).
//!
//! Only the public Rust API is used ([`Book::open`], [`Tablebases::open`], errors through their
//! `Display`), so this layer does not depend on the readers' internals.

use qiku_lib::book::Book;
use qiku_lib::core::{Color, Piece, Position, Setup, Square};
use qiku_lib::engine::uci::excerpt;
use qiku_lib::tablebase::{Material, Rules, Tablebases, TbError, Verdict, Wdl};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Bad argument: a `NULL` pointer, a string that is not UTF-8, a FEN that is not a legal position,
/// or a negative `max`.
pub const QIKU_ERR_ARG: c_int = -1;
/// A file could not be read or is not a valid book or table.
pub const QIKU_ERR_DATA: c_int = -2;
/// The position has no legal move (the side to move is mated or stalemated), so no best move.
pub const QIKU_ERR_NO_MOVE: c_int = -3;
/// A bug in qiku (a panic, caught at the boundary).
pub const QIKU_ERR_INTERNAL: c_int = -4;
/// No table covers the position (its material is not in the directory), or, for
/// [`qiku_tb_move_values`] and [`qiku_tb_best_move`], a position one of its captures leads to:
/// the value is unknown here. The same code from every table function; the message names the
/// table to generate.
pub const QIKU_ERR_NO_TABLE: c_int = -5;

/// The Asian rules: a side that can only hold by perpetual check loses (the `.qtr` companions);
/// the default, as tournaments play, and what [`qiku_tb_probe`] and [`qiku_tb_best_move`] use.
pub const QIKU_RULES_ASIAN: c_int = 0;
/// No repetition rule: every cycle is a draw (the `.qtb` files alone).
pub const QIKU_RULES_PLAIN: c_int = 1;

/// Red to move, for [`qiku_tb_probe_wdl_board`].
pub const QIKU_RED: c_int = 0;
/// Black to move, for [`qiku_tb_probe_wdl_board`].
pub const QIKU_BLACK: c_int = 1;

/// An open directory of `.qtb` tables; opaque to C.
pub struct QikuTablebases {
    /// The tables.
    tables: Tablebases,
    /// The messages of [`Tablebases::problems`] as C strings, made at open for
    /// [`qiku_tb_problem`] (which hands out pointers into them) and freed at close.
    problems: Vec<CString>,
}

impl QikuTablebases {
    fn new(tables: Tablebases) -> QikuTablebases {
        let problems = tables.problems().iter().map(|e| c_message(&e.to_string())).collect();
        QikuTablebases { tables, problems }
    }
}

/// An open `.qbk` opening book; opaque to C.
pub struct QikuBook(Book);

/// A book move as C sees it: ICCS text (`"h2e2"`, NUL-terminated) and counts from the mover's
/// point of view. `games` includes games without a result; each count saturates at `u32::MAX`.
/// In a position that is its own mirror image (the start position) the book keeps one move of
/// each mirror pair, with the games of both: `with_mirror` is then the other one ("b2e2" beside
/// "h2e2"), else `""`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QikuBookMove {
    /// ICCS coordinates, NUL-terminated.
    pub r#move: [c_char; 6],
    /// Games in which the move was played (with or without a result).
    pub games: u32,
    /// Games the mover won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the mover lost.
    pub losses: u32,
    /// The mirror image of the move whose games are counted with it (ICCS, NUL-terminated), or
    /// `""`.
    pub with_mirror: [c_char; 6],
}

/// A move's table value as C sees it: ICCS text (NUL-terminated) and the value for the side to
/// move in the probed position if it plays the move.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QikuTbMove {
    /// ICCS coordinates, NUL-terminated.
    pub r#move: [c_char; 6],
    /// -1 loss, 0 draw, 1 win.
    pub wdl: c_int,
    /// Plies to mate, signed as `wdl` (0 for a draw); when `by_rule` is 1, the line rank.
    pub dtm: c_int,
    /// 1 if only the repetition rules decide the value (a draw without them): `dtm` is then the
    /// rank of the winning line in the table, not plies to mate; else 0.
    pub by_rule: c_int,
}

// The handles are shared between C threads.
const _: () = {
    const fn sync<T: Sync + Send>() {}
    sync::<QikuTablebases>();
    sync::<QikuBook>();
};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A message as a C string. One with an interior NUL would be cut short by C anyway; the NUL is
/// replaced rather than the message lost.
fn c_message(msg: &str) -> CString {
    CString::new(msg.replace('\0', "\\0")).unwrap_or_default()
}

fn set_error(msg: &str) {
    let text = c_message(msg);
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Empties the message, as every call does first; without allocating when it is already empty
/// (the common case, and the WDL probes are called in a search's inner loop).
/// During thread teardown, when the slot is gone, there is nothing to empty.
fn clear_error() {
    let _ = LAST_ERROR.try_with(|e| {
        if !e.borrow().is_empty() {
            *e.borrow_mut() = CString::default();
        }
    });
}

/// An error with its code and message.
struct Failure(c_int, String);

impl Failure {
    fn arg(msg: impl Into<String>) -> Failure {
        Failure(QIKU_ERR_ARG, msg.into())
    }
    fn data(err: impl std::fmt::Display) -> Failure {
        Failure(QIKU_ERR_DATA, err.to_string())
    }

    /// [`QIKU_ERR_NO_TABLE`]: no table in `tb` covers `pos`; the message says how to make it (as
    /// `qiku-tb probe` does).
    fn no_table(tb: &Tablebases, pos: &Position) -> Failure {
        let material = Material::from_position(pos);
        Failure(
            QIKU_ERR_NO_TABLE,
            qiku_lib::tablebase::no_table_message(&material, tb.dir(), "or open the directory that holds it"),
        )
    }

    /// A table error with what to do next, in the library's words shared with `qiku-tb probe`
    /// (naming [`QIKU_RULES_PLAIN`] where the command names `--rules plain`):
    /// [`QIKU_ERR_NO_TABLE`] when a table the position's captures lead to is missing, else
    /// [`QIKU_ERR_DATA`].
    fn table(err: TbError, tb: &Tablebases) -> Failure {
        let code = match &err {
            TbError::MissingDependency { .. } => QIKU_ERR_NO_TABLE,
            _ => QIKU_ERR_DATA,
        };
        Failure(code, qiku_lib::tablebase::probe_error_message(&err, tb.dir(), "QIKU_RULES_PLAIN"))
    }
}

/// Runs `f` with the error slot reset, turning a failure or a panic into `on_error(code)` and a
/// message.
fn guard<T>(name: &str, on_error: impl Fn(c_int) -> T, f: impl FnOnce() -> Result<T, Failure>) -> T {
    clear_error();
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(Failure(code, msg))) => {
            set_error(&format!("{name}: {msg}"));
            on_error(code)
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_error(&format!("{name}: internal error (a bug in qiku, not in the data given): {what}"));
            on_error(QIKU_ERR_INTERNAL)
        }
    }
}

/// A C string argument as UTF-8.
///
/// Safety: `ptr` is `NULL` or points to a NUL-terminated string valid for the call.
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::arg(format!("{what} is NULL")));
    }
    // Safety: not NULL, and the caller promises a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| Failure::arg(format!("{what} is not UTF-8 ({e})")))
}

/// A shared reference to a handle, or an argument error.
///
/// Safety: `ptr` is `NULL` or a live handle from the matching `open` function.
unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // Safety: the caller promises a live handle when not NULL.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::arg(format!("{what} is NULL")))
}

fn rules_arg(rules: c_int) -> Result<Rules, Failure> {
    match rules {
        QIKU_RULES_ASIAN => Ok(Rules::Asian),
        QIKU_RULES_PLAIN => Ok(Rules::Plain),
        other => Err(Failure::arg(format!(
            "rules is {other}: QIKU_RULES_ASIAN ({QIKU_RULES_ASIAN}) or QIKU_RULES_PLAIN ({QIKU_RULES_PLAIN})"
        ))),
    }
}

fn wdl_code(w: Wdl) -> c_int {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

fn position(fen: &str) -> Result<Position, Failure> {
    // Quoted in part: a huge string never comes back whole in the message.
    Position::from_fen(fen).map_err(|e| Failure::arg(format!("bad FEN {:?}: {e}", excerpt(fen))))
}

/// Writes `s` (at most 5 bytes) NUL-terminated into a 6-byte buffer.
fn write_move(s: &str, out: &mut [c_char; 6]) {
    *out = [0; 6];
    for (o, b) in out.iter_mut().zip(s.bytes().take(5)) {
        *o = b as c_char;
    }
}

/// Opens the tables in directory `dir`: every file's header and block index is read and checked
/// now (a damaged file is an error when its material is probed, and listed by
/// [`qiku_tb_problem`]), the values when probed. At most 256 files stay open at once in the
/// process (or a quarter of its limit on open files), the others opened again when read. `NULL`
/// on error: the message names the directory (a very long path cut, as FENs are) with the
/// system's cause, and the command that generates tables there only when it does not exist.
/// `NULL` too when `dir` holds no table file (`.qtb`): such a handle could only ever answer
/// "no table", which is what a wrong path looks like (the engine refuses such a directory too), so
/// the message names the directory and says how to make tables. A directory whose tables are all
/// damaged opens, so that [`qiku_tb_problem`] can list them.
///
/// # Safety
/// `dir` is `NULL` or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_open(dir: *const c_char) -> *mut QikuTablebases {
    guard(
        "qiku_tb_open",
        |_| std::ptr::null_mut(),
        || {
            // Safety: forwarded from the caller.
            let dir = unsafe { text(dir, "dir") }?;
            if dir.is_empty() {
                return Err(Failure::arg("dir is empty: give the directory of the tables (\".\" for the current one)"));
            }
            let tb = Tablebases::open(dir).map_err(|e| Failure::data(open_error(&e)))?;
            if tb.tables().is_empty() {
                return Err(Failure::data(format!(
                    "no table (.qtb file) in {}{} (generate tables there with `qiku-tb generate -d {}`, or open the \
                     directory that holds them)",
                    shown_dir(dir),
                    unusable(&tb),
                    excerpt(dir)
                )));
            }
            Ok(Box::into_raw(Box::new(QikuTablebases::new(tb))))
        },
    )
}

/// The message of a directory [`qiku_tb_open`] cannot read: the path said once (cut when very
/// long), the system's cause, and the way on that fits it: generating tables when the directory
/// does not exist, another path when it is a file, fewer open files when there are too many; the
/// cause alone otherwise (a symbolic link loop, a name too long, no permission).
fn open_error(e: &TbError) -> String {
    use std::io::ErrorKind;
    let TbError::Io { path, source } = e else { return e.to_string() };
    let path = path.to_string_lossy();
    let shown = excerpt(&path);
    // EMFILE (this process) and ENFILE (the system): the same numbers on Linux, macOS and the BSDs.
    const TOO_MANY_OPEN: [i32; 2] = [24, 23];
    match source.kind() {
        ErrorKind::NotFound => format!(
            "the directory does not exist ({source}): generate tables there with `qiku-tb generate -d {shown}`, or open \
             the directory that holds them"
        ),
        ErrorKind::NotADirectory => format!("{shown}: {source}; open a directory of tables (.qtb files)"),
        _ if source.raw_os_error().is_some_and(|n| TOO_MANY_OPEN.contains(&n)) => format!(
            "{shown}: {source} (too many files are open: close some, or raise the limit on open files, \
             `ulimit -n`)"
        ),
        _ => format!("{shown}: {source}"),
    }
}

/// `dir` for a message, followed by its absolute path when that says more (`"."`, a relative
/// path, a link): a wrong working directory is the usual reason for a directory without tables.
fn shown_dir(dir: &str) -> String {
    match std::fs::canonicalize(dir) {
        Ok(abs) if abs.as_os_str() != dir => format!("{} ({})", excerpt(dir), excerpt(&abs.to_string_lossy())),
        _ => excerpt(dir),
    }
}

/// The unusable files of a directory without tables, for the message of [`qiku_tb_open`] (the
/// handle that [`qiku_tb_problem`] would list them from is not made): the first three, and how
/// many more.
fn unusable(tb: &Tablebases) -> String {
    const SHOWN: usize = 3;
    let problems = tb.problems();
    if problems.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = problems.iter().take(SHOWN).map(ToString::to_string).collect();
    let more = match problems.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    format!("; {} file(s) there cannot be used: {}{more}", problems.len(), listed.join("; "))
}

/// Closes tables opened by [`qiku_tb_open`]; `NULL` is ignored.
///
/// # Safety
/// `tb` is `NULL` or a handle from [`qiku_tb_open`] not yet closed and no longer used by any thread.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_close(tb: *mut QikuTablebases) {
    guard(
        "qiku_tb_close",
        |_| (),
        || {
            if !tb.is_null() {
                // Safety: the caller hands back ownership of a handle from qiku_tb_open.
                drop(unsafe { Box::from_raw(tb) });
            }
            Ok(())
        },
    )
}

/// How many files of the directory of [`qiku_tb_open`] cannot be used (a damaged table, a file of
/// another format, a `.qtb` name that is not a table's, a companion without its table): the
/// number of messages [`qiku_tb_problem`] gives, `0` when every file can be used; `<0` on error.
/// Fixed at open.
///
/// # Safety
/// `tb` is `NULL` or a live handle.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_problem_count(tb: *const QikuTablebases) -> c_int {
    guard(
        "qiku_tb_problem_count",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            let tb = unsafe { handle(tb, "tb") }?;
            c_int::try_from(tb.problems.len()).map_err(|_| Failure(QIKU_ERR_INTERNAL, "too many problems".into()))
        },
    )
}

/// The message of unusable file `index` (from 0 to [`qiku_tb_problem_count`] - 1, in the order
/// of the files' paths): `"<file>: <cause>"`, as `qiku-tb` prints it. The string belongs to the
/// handle: the caller must not free it, and it stays valid and unchanged until [`qiku_tb_close`].
/// `NULL` if `tb` is `NULL` or `index` is out of range ([`qiku_last_error`] says which).
///
/// # Safety
/// `tb` is `NULL` or a live handle.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_problem(tb: *const QikuTablebases, index: c_int) -> *const c_char {
    guard(
        "qiku_tb_problem",
        |_| std::ptr::null(),
        || {
            // Safety: forwarded from the caller.
            let tb = unsafe { handle(tb, "tb") }?;
            let n = tb.problems.len();
            let problem = usize::try_from(index).ok().and_then(|i| tb.problems.get(i));
            let problem = problem.ok_or_else(|| {
                Failure::arg(match n {
                    0 => format!("index {index} is out of range: every file can be used (qiku_tb_problem_count is 0)"),
                    _ => format!(
                        "index {index} is out of range: qiku_tb_problem_count is {n}, so index is 0 to {}",
                        n - 1
                    ),
                })
            })?;
            Ok(problem.as_ptr())
        },
    )
}

/// Probes a position under the Asian rules ([`QIKU_RULES_ASIAN`], the default): `0` with `*wdl`
/// (-1 loss, 0 draw, 1 win for the side to move) and `*dtm` (plies to mate, positive when the
/// side to move wins, negative when it loses, 0 for a draw or when mated now; as
/// `qiku-tb probe --json`), [`QIKU_ERR_NO_TABLE`] if no table covers the material, other `<0` on
/// error. A value only the rules decide has a line rank in `*dtm`: [`qiku_tb_probe_rules`] says
/// which.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `wdl` and `dtm`
/// are `NULL` or point to writable `int`s.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_probe(
    tb: *const QikuTablebases,
    fen: *const c_char,
    wdl: *mut c_int,
    dtm: *mut c_int,
) -> c_int {
    guard(
        "qiku_tb_probe",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            unsafe { probe_rules(tb, fen, QIKU_RULES_ASIAN, wdl, dtm, std::ptr::null_mut()) }
        },
    )
}

/// Probes a position under `rules` ([`QIKU_RULES_ASIAN`] or [`QIKU_RULES_PLAIN`]): as
/// [`qiku_tb_probe`], and `*by_rule` (if `by_rule` is not `NULL`) is 1 when only the rules decide
/// the value (a draw without them; `*dtm` is then the rank of the winning line, not plies to
/// mate), else 0. Under the Asian rules a table without its `.qtr` companion is an error
/// ([`QIKU_ERR_DATA`]) for the positions it would decide: the message gives the command that
/// makes the companion, or says to probe with [`QIKU_RULES_PLAIN`]. The message of a damaged
/// table file names it and gives the command that makes its files again; where the damage is
/// behind valid checksums (two files disagree), it says to run `qiku-tb verify` first and remove
/// the files it finds damaged.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `wdl` and `dtm`
/// are `NULL` or point to writable `int`s; `by_rule` is `NULL` or points to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_probe_rules(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    wdl: *mut c_int,
    dtm: *mut c_int,
    by_rule: *mut c_int,
) -> c_int {
    guard(
        "qiku_tb_probe_rules",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            unsafe { probe_rules(tb, fen, rules, wdl, dtm, by_rule) }
        },
    )
}

/// The body of [`qiku_tb_probe_rules`].
///
/// Safety: as [`qiku_tb_probe_rules`].
unsafe fn probe_rules(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    wdl: *mut c_int,
    dtm: *mut c_int,
    by_rule: *mut c_int,
) -> Result<c_int, Failure> {
    // Safety: forwarded from the caller.
    let (tb, fen) = unsafe { (handle(tb, "tb")?, text(fen, "fen")?) };
    if wdl.is_null() || dtm.is_null() {
        return Err(Failure::arg("wdl or dtm is NULL"));
    }
    let rules = rules_arg(rules)?;
    let pos = position(fen)?;
    let tables = &tb.tables;
    let Some(v) = tables.verdict(&pos, rules).map_err(|e| Failure::table(e, tables))? else {
        return Err(Failure::no_table(tables, &pos));
    };
    // Safety: wdl and dtm checked non-NULL above, by_rule written only when not NULL; the caller
    // promises they are writable.
    unsafe {
        *wdl = wdl_code(v.value.wdl);
        *dtm = v.value.dtm.0;
        if !by_rule.is_null() {
            *by_rule = c_int::from(v.by_rule);
        }
    }
    Ok(0)
}

/// Every legal move of a position with its value under `rules` ([`QIKU_RULES_ASIAN`] or
/// [`QIKU_RULES_PLAIN`]), best first (fastest win, then draws, then slowest loss; as
/// `qiku-tb probe`): returns how many legal moves there are (0 when the side to move has none)
/// and writes the first `max` of them to `out` (which may be `NULL` when `max` is 0);
/// [`QIKU_ERR_NO_TABLE`] if the position or one of its successors has no table, other `<0` on
/// error.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `out` points to
/// `max` writable [`QikuTbMove`]s (or is `NULL` with `max == 0`).
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_move_values(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    out: *mut QikuTbMove,
    max: c_int,
) -> c_int {
    guard(
        "qiku_tb_move_values",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            let (tb, fen) = unsafe { (handle(tb, "tb")?, text(fen, "fen")?) };
            let max = usize::try_from(max).map_err(|_| Failure::arg(format!("max is negative ({max})")))?;
            if out.is_null() && max > 0 {
                return Err(Failure::arg("out is NULL"));
            }
            let rules = rules_arg(rules)?;
            let pos = position(fen)?;
            let tables = &tb.tables;
            let Some(moves) = tables.move_verdicts(&pos, rules).map_err(|e| Failure::table(e, tables))? else {
                return Err(Failure::no_table(tables, &pos));
            };
            for (i, (m, v)) in moves.iter().take(max).enumerate() {
                let v: &Verdict = v;
                let mut t = QikuTbMove {
                    wdl: wdl_code(v.value.wdl),
                    dtm: v.value.dtm.0,
                    by_rule: c_int::from(v.by_rule),
                    ..QikuTbMove::default()
                };
                write_move(&m.to_string(), &mut t.r#move);
                // Safety: i < max and the caller promises `max` writable elements.
                unsafe { out.add(i).write(t) };
            }
            c_int::try_from(moves.len()).map_err(|_| Failure(QIKU_ERR_INTERNAL, "too many moves".into()))
        },
    )
}

/// Writes a best move under the Asian rules ([`QIKU_RULES_ASIAN`], the default: one that keeps
/// the position's value: fastest mate, slowest loss, a drawing move, or the table's line of a win
/// the rules decide; the first of them in move-encoding order) as NUL-terminated ICCS into `out`:
/// `0` ok, [`QIKU_ERR_NO_TABLE`] if the position or one of its successors has no table,
/// [`QIKU_ERR_NO_MOVE`] if the side to move has no legal move (never for a position that has one),
/// [`QIKU_ERR_DATA`] if the table's values cannot be right (a position with legal moves none of
/// which keeps its value, or one without a legal move that is not lost: damaged behind valid
/// checksums), the message naming the table; other `<0` on error.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `out` is `NULL`
/// or points to 6 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_best_move(tb: *const QikuTablebases, fen: *const c_char, out: *mut c_char) -> c_int {
    guard(
        "qiku_tb_best_move",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            unsafe { best_move_rules(tb, fen, QIKU_RULES_ASIAN, out) }
        },
    )
}

/// [`qiku_tb_best_move`] under `rules` ([`QIKU_RULES_ASIAN`] or [`QIKU_RULES_PLAIN`]).
///
/// # Safety
/// As [`qiku_tb_best_move`].
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_best_move_rules(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    out: *mut c_char,
) -> c_int {
    guard(
        "qiku_tb_best_move_rules",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            unsafe { best_move_rules(tb, fen, rules, out) }
        },
    )
}

/// The body of [`qiku_tb_best_move_rules`].
///
/// Safety: as [`qiku_tb_best_move`].
unsafe fn best_move_rules(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    out: *mut c_char,
) -> Result<c_int, Failure> {
    // Safety: forwarded from the caller.
    let (tb, fen) = unsafe { (handle(tb, "tb")?, text(fen, "fen")?) };
    if out.is_null() {
        return Err(Failure::arg("move buffer is NULL"));
    }
    let rules = rules_arg(rules)?;
    let pos = position(fen)?;
    let tables = &tb.tables;
    let moves = tables.best_moves_with(&pos, rules).map_err(|e| Failure::table(e, tables))?;
    let moves = moves.ok_or_else(|| Failure::no_table(tables, &pos))?;
    // Empty only when the position has no legal move: the library refuses values under which
    // a position with moves keeps none (Tablebases::checked_best_among).
    let Some(m) = moves.first() else {
        return Err(Failure(QIKU_ERR_NO_MOVE, format!("no legal move in {}", excerpt(fen))));
    };
    let mut buf = [0; 6];
    write_move(&m.to_string(), &mut buf);
    // Safety: checked non-NULL; the caller promises 6 writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), out, buf.len()) };
    Ok(0)
}

/// Win, draw or loss for the side to move under `rules` ([`QIKU_RULES_ASIAN`] or
/// [`QIKU_RULES_PLAIN`]): `0` with `*wdl` (-1 loss, 0 draw, 1 win); [`QIKU_ERR_NO_TABLE`] if no
/// table covers the material, other `<0` on error. Whenever both answer, `*wdl` is the `*wdl` of
/// [`qiku_tb_probe_rules`] under the same rules. A damaged table (`.qtb`), or under the Asian
/// rules a damaged `.qtr` companion, is [`QIKU_ERR_DATA`] for both, even where the `.qtw` could
/// answer; a block of the `.qtw` found damaged when read is [`QIKU_ERR_DATA`] for this probe only
/// ([`qiku_tb_probe_rules`] does not read the `.qtw`). Read from the material's `.qtw` WDL file
/// (2 bits an entry, a fifth of the DTM files' size, so more of it stays in the block cache) when
/// it has one, else from the DTM files; under the Asian rules the few values only the rules
/// decide come from the `.qtr` companion. The probe for a search's inner nodes;
/// [`qiku_tb_probe_wdl_board`] takes the board without a FEN.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `wdl` is `NULL`
/// or points to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_probe_wdl(
    tb: *const QikuTablebases,
    fen: *const c_char,
    rules: c_int,
    wdl: *mut c_int,
) -> c_int {
    guard(
        "qiku_tb_probe_wdl",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            let (tb, fen) = unsafe { (handle(tb, "tb")?, text(fen, "fen")?) };
            let pos = position(fen)?;
            // Safety: forwarded from the caller.
            unsafe { probe_wdl(tb, &pos, rules, wdl) }
        },
    )
}

/// [`qiku_tb_probe_wdl`] for a board given square by square, so that an engine need not write
/// and the library need not read a FEN on every probe: `board[rank * 9 + file]` is the piece on
/// that square (rank 0 is Red's back rank, file 0 the a-file: `board[0]` is a0 and `board[89]`
/// is i9, as ICCS names them), as its FEN letter (`KABNRCP` for Red, `kabnrcp` for Black; `H`/`h`
/// for a horse and `E`/`e` for an elephant are taken too, as many Xiangqi FENs write them) or 0
/// for an empty square; `side` is [`QIKU_RED`] or [`QIKU_BLACK`], the side to move. A byte that
/// is neither, or a board that is not a legal position (a missing king, kings facing, a piece on
/// a square it can never reach, the side not to move in check), is [`QIKU_ERR_ARG`], the message
/// naming the square or the fault.
///
/// # Safety
/// `tb` is `NULL` or a live handle; `board` is `NULL` or points to 90 readable bytes; `wdl` is
/// `NULL` or points to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn qiku_tb_probe_wdl_board(
    tb: *const QikuTablebases,
    board: *const c_char,
    side: c_int,
    rules: c_int,
    wdl: *mut c_int,
) -> c_int {
    guard(
        "qiku_tb_probe_wdl_board",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            let tb = unsafe { handle(tb, "tb")? };
            // Safety: forwarded from the caller.
            let pos = unsafe { board_position(board, side)? };
            // Safety: forwarded from the caller.
            unsafe { probe_wdl(tb, &pos, rules, wdl) }
        },
    )
}

/// The position of a board given square by square (see [`qiku_tb_probe_wdl_board`]).
///
/// Safety: `board` is `NULL` or points to 90 readable bytes.
unsafe fn board_position(board: *const c_char, side: c_int) -> Result<Position, Failure> {
    if board.is_null() {
        return Err(Failure::arg("board is NULL"));
    }
    // Safety: not NULL, and the caller promises 90 readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(board.cast::<u8>(), Square::COUNT) };
    let mut setup = Setup::empty();
    setup.turn = match side {
        QIKU_RED => Color::Red,
        QIKU_BLACK => Color::Black,
        other => {
            return Err(Failure::arg(format!("side is {other}: QIKU_RED ({QIKU_RED}) or QIKU_BLACK ({QIKU_BLACK})")))
        }
    };
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let piece = Some(b).filter(u8::is_ascii_alphabetic).and_then(|b| Piece::from_char(char::from(b)));
        let Some(piece) = piece else {
            let square = Square::from_index_unchecked(i);
            return Err(Failure::arg(format!(
                "board[{i}] ({square}) is byte {b} ({:?}): a square holds 0 (empty) or a FEN piece letter, \
                 KABNRCP for Red or kabnrcp for Black (H/h and E/e are taken for a horse and an elephant)",
                char::from(b)
            )));
        };
        setup.board[i] = Some(piece);
    }
    Position::from_setup(&setup)
        .map_err(|e| Failure::arg(format!("the board is not a legal position ({e}); as a FEN: {}", setup.to_fen())))
}

/// The body of [`qiku_tb_probe_wdl`] and [`qiku_tb_probe_wdl_board`].
///
/// Safety: `wdl` is `NULL` or points to a writable `int`.
unsafe fn probe_wdl(tb: &QikuTablebases, pos: &Position, rules: c_int, wdl: *mut c_int) -> Result<c_int, Failure> {
    if wdl.is_null() {
        return Err(Failure::arg("wdl is NULL"));
    }
    let rules = rules_arg(rules)?;
    let tables = &tb.tables;
    let w = tables.probe_wdl_with(pos, rules).map_err(|e| Failure::table(e, tables))?;
    let w = w.ok_or_else(|| Failure::no_table(tables, pos))?;
    // Safety: checked non-NULL; the caller promises a writable int.
    unsafe { *wdl = wdl_code(w) };
    Ok(0)
}

/// Opens and fully verifies a `.qbk` book. `NULL` on error.
///
/// # Safety
/// `path` is `NULL` or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn qiku_book_open(path: *const c_char) -> *mut QikuBook {
    guard(
        "qiku_book_open",
        |_| std::ptr::null_mut(),
        || {
            // Safety: forwarded from the caller.
            let path = unsafe { text(path, "path") }?;
            let book = Book::open(path).map_err(Failure::data)?;
            Ok(Box::into_raw(Box::new(QikuBook(book))))
        },
    )
}

/// Closes a book opened by [`qiku_book_open`]; `NULL` is ignored.
///
/// # Safety
/// `book` is `NULL` or a handle from [`qiku_book_open`] not yet closed and no longer used.
#[no_mangle]
pub unsafe extern "C" fn qiku_book_close(book: *mut QikuBook) {
    guard(
        "qiku_book_close",
        |_| (),
        || {
            if !book.is_null() {
                // Safety: the caller hands back ownership of a handle from qiku_book_open.
                drop(unsafe { Box::from_raw(book) });
            }
            Ok(())
        },
    )
}

/// The book moves of a position: returns how many there are (0 if the position is not in the
/// book) and writes the first `max` of them, in the book's order (most played first), to `out`;
/// `<0` on error: [`QIKU_ERR_DATA`] when the file was truncated, damaged or rewritten in place
/// since it was opened (never 0 for a book that can no longer be read). `out` may be `NULL` when
/// `max` is 0 (to count).
///
/// # Safety
/// `book` is `NULL` or a live handle; `fen` is `NULL` or a NUL-terminated string; `out` points to
/// `max` writable [`QikuBookMove`]s (or is `NULL` with `max == 0`).
#[no_mangle]
pub unsafe extern "C" fn qiku_book_probe(
    book: *const QikuBook,
    fen: *const c_char,
    out: *mut QikuBookMove,
    max: c_int,
) -> c_int {
    guard(
        "qiku_book_probe",
        |code| code,
        || {
            // Safety: forwarded from the caller.
            let (book, fen) = unsafe { (handle(book, "book")?, text(fen, "fen")?) };
            let max = usize::try_from(max).map_err(|_| Failure::arg(format!("max is negative ({max})")))?;
            if out.is_null() && max > 0 {
                return Err(Failure::arg("out is NULL"));
            }
            let pos = position(fen)?;
            let moves = book.0.probe(&pos).map_err(Failure::data)?;
            let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
            for (i, bm) in moves.iter().take(max).enumerate() {
                let mut m = QikuBookMove {
                    games: clamp(bm.counts.games()),
                    wins: bm.counts.wins,
                    draws: bm.counts.draws,
                    losses: bm.counts.losses,
                    ..QikuBookMove::default()
                };
                write_move(&bm.mv.to_string(), &mut m.r#move);
                if let Some(mirror) = bm.merged_mirror(&pos) {
                    write_move(&mirror.to_string(), &mut m.with_mirror);
                }
                // Safety: i < max and the caller promises `max` writable elements.
                unsafe { out.add(i).write(m) };
            }
            c_int::try_from(moves.len()).map_err(|_| Failure(QIKU_ERR_INTERNAL, "too many book moves".into()))
        },
    )
}

/// The message of the last failed call on this thread (`""` if the last call succeeded). The
/// pointer stays valid until the next qiku call on this thread.
#[no_mangle]
pub extern "C" fn qiku_last_error() -> *const c_char {
    // Must not reset the slot it reads, so no `guard`; nothing here can panic but a failed
    // thread-local access during thread teardown, which `try_with` turns into a static "".
    LAST_ERROR.try_with(|e| e.borrow().as_ptr()).unwrap_or(c"".as_ptr())
}

/// The library's version (`"0.1.0"`, the crate's), NUL-terminated and static: never freed. The
/// header's `QIKU_VERSION` is the header's.
#[no_mangle]
pub extern "C" fn qiku_version() -> *const c_char {
    // A call that succeeds, like every other: the last error is emptied.
    clear_error();
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

#[cfg(test)]
mod tests;
