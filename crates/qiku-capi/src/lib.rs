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
use qiku_lib::core::Position;
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

    /// A table error: [`QIKU_ERR_NO_TABLE`] when a table the position's captures lead to is
    /// missing (with the library's message and the command that makes it, as `qiku-tb probe`
    /// says), else [`QIKU_ERR_DATA`].
    fn table(err: TbError, tb: &Tablebases) -> Failure {
        match &err {
            TbError::MissingDependency { needs, .. } => {
                let dir = tb.dir().display();
                Failure(
                    QIKU_ERR_NO_TABLE,
                    format!("{err} in {dir} (generate it with `qiku-tb generate {needs} -d {dir}`)"),
                )
            }
            _ => Failure::data(err),
        }
    }
}

/// Runs `f` with the error slot reset, turning a failure or a panic into `on_error(code)` and a
/// message.
fn guard<T>(name: &str, on_error: impl Fn(c_int) -> T, f: impl FnOnce() -> Result<T, Failure>) -> T {
    set_error("");
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
    Position::from_fen(fen).map_err(|e| Failure::arg(format!("bad FEN {:?}: {e}", qiku_lib::engine::uci::excerpt(fen))))
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
/// on error, and when `dir` holds no table file (`.qtb`): such a handle could only ever answer
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
            let hint = format!(
                "generate tables there with `qiku-tb generate -d {dir}`, or open the directory that holds them"
            );
            let tb = Tablebases::open(dir).map_err(|e| match e.not_a_directory() {
                true => Failure::data(format!("{e}; open a directory of tables (.qtb files)")),
                false => Failure::data(format!("{e} ({hint})")),
            })?;
            if tb.tables().is_empty() {
                return Err(Failure::data(format!(
                    "no table (.qtb file) in {}{} ({hint})",
                    shown_dir(dir),
                    unusable(&tb)
                )));
            }
            Ok(Box::into_raw(Box::new(QikuTablebases::new(tb))))
        },
    )
}

/// `dir` for a message, followed by its absolute path when that says more (`"."`, a relative
/// path, a link): a wrong working directory is the usual reason for a directory without tables.
fn shown_dir(dir: &str) -> String {
    match std::fs::canonicalize(dir) {
        Ok(abs) if abs.as_os_str() != dir => format!("{dir} ({})", abs.display()),
        _ => dir.to_string(),
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
/// ([`QIKU_ERR_DATA`]) for the positions it would decide.
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
/// [`QIKU_ERR_NO_MOVE`] if the side to move has no legal move, other `<0` on error.
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
    let Some(m) = moves.first() else {
        return Err(Failure(QIKU_ERR_NO_MOVE, format!("no legal move in {fen}")));
    };
    let mut buf = [0; 6];
    write_move(&m.to_string(), &mut buf);
    // Safety: checked non-NULL; the caller promises 6 writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), out, buf.len()) };
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
    const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_crates_and_the_headers() {
        // Safety: a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(qiku_version()) }.to_str().expect("UTF-8");
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        let header = include_str!("../../../include/qiku.h");
        assert!(header.contains(&format!("#define QIKU_VERSION \"{v}\"")), "the header's QIKU_VERSION is {v}");
    }

    #[test]
    fn errors_are_reported_not_raised() {
        let mut w = 0;
        let mut d = 0;
        // Safety: NULL and static strings are valid arguments.
        let rc = unsafe { qiku_tb_probe(std::ptr::null(), c"x".as_ptr(), &mut w, &mut d) };
        assert_eq!(rc, QIKU_ERR_ARG);
        // Safety: the returned pointer is valid until the next call on this thread.
        let msg = unsafe { CStr::from_ptr(qiku_last_error()) }.to_str().unwrap().to_string();
        assert_eq!(msg, "qiku_tb_probe: tb is NULL");
        // Safety: a NUL-terminated byte string that is not UTF-8.
        let tb = unsafe { qiku_tb_open(c"/tmp/\xff".as_ptr()) };
        assert!(tb.is_null());
        // Safety: as above.
        let msg = unsafe { CStr::from_ptr(qiku_last_error()) }.to_str().unwrap().to_string();
        assert!(msg.starts_with("qiku_tb_open: dir is not UTF-8"), "{msg}");
    }

    #[test]
    fn a_panic_becomes_an_error_code() {
        let rc = guard("f", |c| c, || -> Result<c_int, Failure> { panic!("boom") });
        assert_eq!(rc, QIKU_ERR_INTERNAL);
        // Safety: valid until the next call on this thread.
        let msg = unsafe { CStr::from_ptr(qiku_last_error()) }.to_str().unwrap().to_string();
        assert!(msg.ends_with("boom"), "{msg}");
    }

    #[test]
    fn a_huge_bad_fen_is_quoted_in_part() {
        let huge = CString::new("x".repeat(1 << 20)).expect("no NUL");
        let (mut w, mut d) = (0, 0);
        let dir = tempfile::tempdir().expect("tempdir");
        // A damaged table: the directory opens (no value is read here).
        std::fs::write(dir.path().join("KRvK.qtb"), b"not a table").expect("write");
        let c_dir = CString::new(dir.path().to_str().expect("UTF-8")).expect("no NUL");
        // Safety: valid strings and pointers; the handle is closed below.
        unsafe {
            let tb = qiku_tb_open(c_dir.as_ptr());
            assert!(!tb.is_null(), "{}", last_error());
            assert_eq!(qiku_tb_probe(tb, huge.as_ptr(), &mut w, &mut d), QIKU_ERR_ARG);
            let msg = last_error();
            qiku_tb_close(tb);
            assert!(msg.contains("bad FEN") && msg.contains("...") && msg.len() < 400, "{} bytes", msg.len());
        }
    }

    /// A directory with no table file fails to open, naming the directory (with its absolute
    /// path when given relative) and the files in it that are not tables.
    #[test]
    fn a_directory_without_tables_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("KRvK.qtr"), b"a companion alone").expect("write");
        std::fs::write(dir.path().join("README.md"), b"not a table file at all").expect("write");
        let c_dir = CString::new(dir.path().to_str().expect("UTF-8")).expect("no NUL");
        // Safety: a valid string.
        let tb = unsafe { qiku_tb_open(c_dir.as_ptr()) };
        assert!(tb.is_null());
        let msg = last_error();
        let path = dir.path().display().to_string();
        let head =
            format!("qiku_tb_open: no table (.qtb file) in {}; 1 file(s) there cannot be used: ", shown_dir(&path));
        assert!(msg.starts_with(&head), "{msg}");
        assert!(msg.contains("KRvK.qtr: ") && !msg.contains("README"), "{msg}");
        assert!(
            msg.ends_with(&format!(
                "(generate tables there with `qiku-tb generate -d {path}`, or open the directory that holds them)"
            )),
            "{msg}"
        );
        // "." is shown with the absolute path it stands for.
        assert!(shown_dir(".").starts_with(". (/"), "{}", shown_dir("."));
        assert_eq!(shown_dir("/nonexistent/qiku"), "/nonexistent/qiku");
    }

    #[test]
    fn moves_are_nul_terminated() {
        let mut buf = [7; 6];
        write_move("h2e2", &mut buf);
        assert_eq!(buf, [b'h' as c_char, b'2' as c_char, b'e' as c_char, b'2' as c_char, 0, 0]);
    }

    /// The last error message of this thread.
    fn last_error() -> String {
        // Safety: valid until the next call on this thread.
        unsafe { CStr::from_ptr(qiku_last_error()) }.to_str().expect("UTF-8").to_string()
    }

    #[test]
    fn a_book_damaged_while_open_is_an_error_not_an_empty_answer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let pgn = dir.path().join("g.pgn");
        std::fs::write(&pgn, "[Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n").expect("write");
        let path = dir.path().join("b.qbk");
        qiku_lib::book::build(&[pgn], &path, &qiku_lib::book::BuildOptions::default()).expect("build");
        let c_path = CString::new(path.to_str().expect("UTF-8 path")).expect("no NUL");
        let start = CString::new(Position::startpos().fen()).expect("no NUL");
        // Safety: valid strings; the handle is live until closed below.
        unsafe {
            let book = qiku_book_open(c_path.as_ptr());
            assert!(!book.is_null(), "{}", last_error());
            assert_eq!(qiku_book_probe(book, start.as_ptr(), std::ptr::null_mut(), 0), 1);
            std::fs::OpenOptions::new().write(true).open(&path).expect("open").set_len(100).expect("truncate");
            assert_eq!(qiku_book_probe(book, start.as_ptr(), std::ptr::null_mut(), 0), QIKU_ERR_DATA);
            let msg = last_error();
            assert!(msg.starts_with("qiku_book_probe: ") && msg.contains("b.qbk"), "{msg}");
            assert!(msg.contains("changed since it was opened"), "{msg}");
            qiku_book_close(book);
        }
    }

    #[test]
    fn tb_move_layout() {
        // The header's `typedef struct { char move[6]; int wdl, dtm, by_rule; }`.
        assert_eq!(std::mem::size_of::<QikuTbMove>(), 20);
        assert_eq!(std::mem::offset_of!(QikuTbMove, wdl), 8);
        assert_eq!(std::mem::offset_of!(QikuTbMove, by_rule), 16);
    }

    /// The KRvKN position only the perpetual-check rule decides: the C API gives the library's
    /// verdict (the Asian rules by default), says it is decided by the rule, and gives the plain
    /// draw and every move's value on request.
    #[test]
    fn the_rules_choice_and_per_move_values() {
        use qiku_lib::tablebase::generate::{generate_set, GenerateOptions};
        let dir = tempfile::tempdir().expect("tempdir");
        generate_set(&["KRvKN".parse().expect("material")], &GenerateOptions::new(dir.path())).expect("generate");
        let lib = Tablebases::open(dir.path()).expect("open");
        let fen_text = "4k4/9/9/8R/9/9/8n/9/9/5K3 b - - 0 1";
        let pos = Position::from_fen(fen_text).expect("fen");
        let want = lib.verdict(&pos, Rules::default()).expect("probe").expect("covered");
        assert!(want.by_rule);
        let c_dir = CString::new(dir.path().to_str().expect("UTF-8")).expect("no NUL");
        let fen = CString::new(fen_text).expect("no NUL");
        let (mut w, mut d, mut r) = (9, 9, 9);
        // Safety: valid strings and writable ints; the handle lives until closed below.
        unsafe {
            let tb = qiku_tb_open(c_dir.as_ptr());
            assert!(!tb.is_null(), "{}", last_error());
            assert_eq!(qiku_tb_probe(tb, fen.as_ptr(), &mut w, &mut d), 0, "{}", last_error());
            assert_eq!((w, d), (-1, want.value.dtm.0));
            assert_eq!(qiku_tb_probe_rules(tb, fen.as_ptr(), QIKU_RULES_ASIAN, &mut w, &mut d, &mut r), 0);
            assert_eq!((w, d, r), (-1, -30, 1));
            assert_eq!(qiku_tb_probe_rules(tb, fen.as_ptr(), QIKU_RULES_PLAIN, &mut w, &mut d, &mut r), 0);
            assert_eq!((w, d, r), (0, 0, 0));
            assert_eq!(qiku_tb_probe_rules(tb, fen.as_ptr(), 7, &mut w, &mut d, std::ptr::null_mut()), QIKU_ERR_ARG);
            assert!(last_error().contains("QIKU_RULES_ASIAN"), "{}", last_error());

            let lib_moves = lib.move_verdicts(&pos, Rules::Asian).expect("probe").expect("covered");
            let n = qiku_tb_move_values(tb, fen.as_ptr(), QIKU_RULES_ASIAN, std::ptr::null_mut(), 0);
            assert_eq!(n, lib_moves.len() as c_int);
            let mut out = vec![QikuTbMove::default(); lib_moves.len()];
            assert_eq!(qiku_tb_move_values(tb, fen.as_ptr(), QIKU_RULES_ASIAN, out.as_mut_ptr(), n), n);
            for (c, (m, v)) in out.iter().zip(&lib_moves) {
                let text: String = c.r#move.iter().take_while(|&&b| b != 0).map(|&b| b as u8 as char).collect();
                assert_eq!(text, m.to_string());
                assert_eq!((c.wdl, c.dtm, c.by_rule), (wdl_code(v.value.wdl), v.value.dtm.0, c_int::from(v.by_rule)));
            }
            assert!(out.iter().any(|m| m.by_rule == 1));

            let mut best = [0 as c_char; 6];
            assert_eq!(qiku_tb_best_move(tb, fen.as_ptr(), best.as_mut_ptr()), 0);
            let lib_best = lib.best_moves(&pos).expect("probe").expect("covered")[0].to_string();
            assert_eq!(CStr::from_ptr(best.as_ptr()).to_str().expect("UTF-8"), lib_best);
            assert_eq!(qiku_tb_best_move_rules(tb, fen.as_ptr(), QIKU_RULES_PLAIN, best.as_mut_ptr()), 0);

            // Five pieces and no KRRvKN table: no table, as the same code from every function,
            // with the command that makes the table.
            let more = CString::new("4k4/9/9/8R/9/9/8n/9/R8/5K3 b - - 0 1").expect("no NUL");
            let want = format!(
                "no table for KRRvKN in {} (generate it with `qiku-tb generate KRRvKN -d ",
                dir.path().display()
            );
            let no_table = |rc: c_int, function: &str| {
                assert_eq!(rc, QIKU_ERR_NO_TABLE, "{function}: {}", last_error());
                assert_eq!(
                    last_error().split_once(": ").map(|(f, m)| (f, m.starts_with(&want))),
                    Some((function, true))
                );
            };
            no_table(
                qiku_tb_move_values(tb, more.as_ptr(), QIKU_RULES_ASIAN, std::ptr::null_mut(), 0),
                "qiku_tb_move_values",
            );
            no_table(qiku_tb_probe(tb, more.as_ptr(), &mut w, &mut d), "qiku_tb_probe");
            no_table(
                qiku_tb_probe_rules(tb, more.as_ptr(), QIKU_RULES_PLAIN, &mut w, &mut d, std::ptr::null_mut()),
                "qiku_tb_probe_rules",
            );
            no_table(qiku_tb_best_move(tb, more.as_ptr(), best.as_mut_ptr()), "qiku_tb_best_move");
            no_table(
                qiku_tb_best_move_rules(tb, more.as_ptr(), QIKU_RULES_PLAIN, best.as_mut_ptr()),
                "qiku_tb_best_move_rules",
            );
            // The start position: no table can be made for it (32 pieces), so no command is suggested.
            let start = CString::new(Position::startpos().fen()).expect("no NUL");
            assert_eq!(qiku_tb_probe(tb, start.as_ptr(), &mut w, &mut d), QIKU_ERR_NO_TABLE);
            let msg = last_error();
            assert!(msg.contains("and none can be made: it has 32 pieces, and a table holds at most 12"), "{msg}");
            assert!(!msg.contains("qiku-tb generate"), "{msg}");
            qiku_tb_close(tb);
            // A file given for the directory: said so, without advice to generate tables there.
            let file = CString::new(dir.path().join("KRvK.qtb").to_str().expect("UTF-8")).expect("no NUL");
            assert!(qiku_tb_open(file.as_ptr()).is_null());
            let msg = last_error();
            assert!(msg.contains("KRvK.qtb: is a qiku endgame table (.qtb), not a directory of tables"), "{msg}");
            assert!(msg.ends_with("open a directory of tables (.qtb files)") && !msg.contains("generate"), "{msg}");
        }
    }

    #[test]
    fn book_move_layout() {
        // The header's `typedef struct { char move[6]; uint32_t games, wins, draws, losses;
        // char with_mirror[6]; }`.
        assert_eq!(std::mem::size_of::<QikuBookMove>(), 32);
        assert_eq!(std::mem::offset_of!(QikuBookMove, games), 8);
        assert_eq!(std::mem::offset_of!(QikuBookMove, losses), 20);
        assert_eq!(std::mem::offset_of!(QikuBookMove, with_mirror), 24);
    }
}
