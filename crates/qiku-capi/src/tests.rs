//! Unit tests of the C entry points, called from Rust (the C program in `tests/capi` calls them
//! from C).

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
fn asking_the_version_empties_the_last_error_as_any_call_that_succeeds() {
    let (mut w, mut d) = (0, 0);
    // Safety: NULL and a static string are valid arguments.
    assert_eq!(unsafe { qiku_tb_probe(std::ptr::null(), c"x".as_ptr(), &mut w, &mut d) }, QIKU_ERR_ARG);
    // Safety: the returned pointer is valid until the next call on this thread.
    assert!(!unsafe { CStr::from_ptr(qiku_last_error()) }.to_bytes().is_empty());
    qiku_version();
    // Safety: as above.
    assert_eq!(unsafe { CStr::from_ptr(qiku_last_error()) }.to_bytes(), b"");
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
    let head = format!("qiku_tb_open: no table (.qtb file) in {}; 1 file(s) there cannot be used: ", shown_dir(&path));
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
        let want =
            format!("no table for KRRvKN in {} (generate it with `qiku-tb generate KRRvKN -d ", dir.path().display());
        let no_table = |rc: c_int, function: &str| {
            assert_eq!(rc, QIKU_ERR_NO_TABLE, "{function}: {}", last_error());
            assert_eq!(last_error().split_once(": ").map(|(f, m)| (f, m.starts_with(&want))), Some((function, true)));
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

/// A fresh directory with the tables of `materials` (and those they capture into).
fn c_tables(materials: &[&str]) -> tempfile::TempDir {
    use qiku_lib::tablebase::generate::{generate_set, GenerateOptions};
    let dir = tempfile::tempdir().expect("tempdir");
    let ms: Vec<Material> = materials.iter().map(|m| m.parse().expect("material")).collect();
    generate_set(&ms, &GenerateOptions::new(dir.path())).expect("generate");
    dir
}

/// Opens `dir` through the C API.
fn c_open(dir: &std::path::Path) -> *mut QikuTablebases {
    let c_dir = CString::new(dir.to_str().expect("UTF-8")).expect("no NUL");
    // Safety: a valid string.
    let tb = unsafe { qiku_tb_open(c_dir.as_ptr()) };
    assert!(!tb.is_null(), "{}", last_error());
    tb
}

/// A truncated KNvK.qtb beside an intact KNvK.qtw: every probe of KNvK refuses it, the WDL
/// probes (from a FEN and from a board) as the full probe, under both rules.
#[test]
fn a_damaged_table_is_refused_by_the_wdl_probes_too() {
    let dir = c_tables(&["KNvK"]);
    let path = dir.path().join("KNvK.qtb");
    let good = std::fs::read(&path).expect("read");
    std::fs::write(&path, &good[..600]).expect("truncate");
    let tb = c_open(dir.path());
    let fen = c"5k3/9/9/9/2n6/9/9/4K4/9/9 w - - 0 1";
    let mut board = [0 as c_char; 90];
    for (square, piece) in [(9 + 4, b'K'), (5 * 9 + 2, b'n'), (9 * 9 + 5, b'k')] {
        board[square] = piece as c_char;
    }
    let (mut w, mut d) = (9, 9);
    // Safety: valid strings, board and ints; the handle is closed below.
    unsafe {
        assert_eq!(qiku_tb_probe(tb, fen.as_ptr(), &mut w, &mut d), QIKU_ERR_DATA);
        for rules in [QIKU_RULES_ASIAN, QIKU_RULES_PLAIN] {
            w = 9;
            assert_eq!(qiku_tb_probe_wdl(tb, fen.as_ptr(), rules, &mut w), QIKU_ERR_DATA, "{rules}: wdl {w}");
            assert!(last_error().contains("KNvK.qtb"), "{}", last_error());
            assert_eq!(qiku_tb_probe_wdl_board(tb, board.as_ptr(), QIKU_RED, rules, &mut w), QIKU_ERR_DATA);
            assert!(last_error().contains("KNvK.qtb"), "{}", last_error());
        }
        qiku_tb_close(tb);
    }
}

/// Table errors say what to do next, in the words of `qiku-tb probe` with the C API's names: a
/// damaged file, the command that makes it again; a missing `.qtr`, the command that makes it and
/// QIKU_RULES_PLAIN; a file truncated while open, that it changed and the tables must be opened again.
#[test]
fn table_errors_say_what_to_do_next() {
    let dir = c_tables(&["KRvKN"]);
    let d = dir.path().display().to_string();
    let fen = c"4k4/9/9/8R/9/9/8n/9/9/5K3 b - - 0 1";
    let (mut w, mut dtm) = (9, 9);
    let path = dir.path().join("KRvKN.qtb");
    let good = std::fs::read(&path).expect("read");
    // Safety: valid strings and ints; each handle is closed after use.
    unsafe {
        // Damaged before open.
        std::fs::write(&path, &good[..600]).expect("truncate");
        let tb = c_open(dir.path());
        assert_eq!(qiku_tb_probe(tb, fen.as_ptr(), &mut w, &mut dtm), QIKU_ERR_DATA);
        let msg = last_error();
        assert!(msg.starts_with(&format!("qiku_tb_probe: {d}/KRvKN.qtb: invalid tablebase file (length")), "{msg}");
        assert!(msg.ends_with(&format!("(`qiku-tb generate KRvKN -d {d}` makes its files again)")), "{msg}");
        qiku_tb_close(tb);

        // Truncated while open.
        std::fs::write(&path, &good).expect("restore");
        let tb = c_open(dir.path());
        std::fs::OpenOptions::new().write(true).open(&path).expect("open").set_len(600).expect("truncate");
        assert_eq!(qiku_tb_probe(tb, fen.as_ptr(), &mut w, &mut dtm), QIKU_ERR_DATA);
        let msg = last_error();
        assert!(msg.contains("KRvKN.qtb") && msg.contains("the file changed since it was opened"), "{msg}");
        assert!(msg.contains("open the tables again"), "{msg}");
        qiku_tb_close(tb);

        // The companion missing: the rules' value is unknown.
        std::fs::write(&path, &good).expect("restore");
        std::fs::remove_file(dir.path().join("KRvKN.qtr")).expect("remove");
        let tb = c_open(dir.path());
        assert_eq!(qiku_tb_probe(tb, fen.as_ptr(), &mut w, &mut dtm), QIKU_ERR_DATA);
        let msg = last_error();
        assert!(msg.contains(&format!("`qiku-tb generate KRvKN -d {d}`")), "{msg}");
        assert!(msg.ends_with("or probe without the rules: QIKU_RULES_PLAIN"), "{msg}");
        assert_eq!(qiku_tb_probe_rules(tb, fen.as_ptr(), QIKU_RULES_PLAIN, &mut w, &mut dtm, std::ptr::null_mut()), 0);
        qiku_tb_close(tb);
    }
}

/// A directory that cannot be read: the path said once (cut when huge) with the system's cause;
/// the command that generates tables only when the directory does not exist.
#[test]
fn open_errors_give_the_cause_and_only_a_fitting_way_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = |path: &str| {
        let c = CString::new(path).expect("no NUL");
        // Safety: a valid string.
        assert!(unsafe { qiku_tb_open(c.as_ptr()) }.is_null());
        last_error()
    };
    let missing = dir.path().join("missing").display().to_string();
    let msg = open(&missing);
    assert_eq!(msg.matches(&missing).count(), 1, "{msg}");
    assert!(msg.contains(&format!("generate tables there with `qiku-tb generate -d {missing}`")), "{msg}");
    assert!(msg.starts_with("qiku_tb_open: the directory does not exist ("), "{msg}");

    // A symbolic link loop: the system's cause, no advice to generate tables there.
    #[cfg(unix)]
    {
        let looped = dir.path().join("loop");
        std::os::unix::fs::symlink(&looped, &looped).expect("symlink");
        let looped = looped.display().to_string();
        let msg = open(&looped);
        assert!(msg.starts_with(&format!("qiku_tb_open: {looped}: ")), "{msg}");
        assert_eq!(msg.matches(&looped).count(), 1, "{msg}");
        assert!(!msg.contains("generate"), "{msg}");
    }

    // A name too long for the system: cut, once, without advice to generate.
    let long = format!("/{}", "a".repeat(5000));
    let msg = open(&long);
    assert!(msg.len() < 300 && msg.contains("...") && !msg.contains("generate"), "{} bytes: {msg:.300}", msg.len());
}

/// A KRvK table whose every legal entry says "win in 1", with valid checksums: a best move is
/// refused as damaged data naming the table, not answered "no legal move" for a position with 18.
#[test]
fn a_best_move_from_inconsistent_values_is_refused() {
    use qiku_lib::tablebase::{format, generate};
    let dir = c_tables(&["KRvK"]);
    let m: Material = "KRvK".parse().expect("material");
    let path = dir.path().join("KRvK.qtb");
    let mut table = generate::load(&path).expect("load");
    let counts = table.counts();
    for code in table.codes_mut().iter_mut().filter(|c| **c != format::ILLEGAL) {
        *code = 3;
    }
    format::write_atomic(&path, &format::encode(m, table.codes(), &counts, true).expect("encode")).expect("write");
    let tb = c_open(dir.path());
    let fen = c"R8/4k4/9/9/9/9/9/9/9/5K3 w - - 0 1";
    assert_eq!(Position::from_fen("R8/4k4/9/9/9/9/9/9/9/5K3 w - - 0 1").expect("fen").moves().len(), 18);
    let mut best = [0 as c_char; 6];
    // Safety: valid strings and a 6-byte buffer; the handle is closed below.
    unsafe {
        for rules in [QIKU_RULES_ASIAN, QIKU_RULES_PLAIN] {
            assert_eq!(qiku_tb_best_move_rules(tb, fen.as_ptr(), rules, best.as_mut_ptr()), QIKU_ERR_DATA);
            let msg = last_error();
            assert!(msg.contains("KRvK.qtb") && msg.contains("inconsistent"), "{msg}");
            assert!(msg.contains("none of its 18 legal moves keeps that value"), "{msg}");
        }
        qiku_tb_close(tb);
    }
}

/// H/h and E/e are taken for a horse and an elephant on a board, as in a FEN, and the message
/// for a byte that is no piece says so.
#[test]
fn board_letters_take_the_horse_and_elephant_aliases() {
    let dir = c_tables(&["KNvK"]);
    let tb = c_open(dir.path());
    let board = |horse: u8, elephant: u8| {
        let mut b = [0 as c_char; 90];
        for (square, piece) in [(9 + 4, b'K'), (5 * 9 + 2, horse), (9 * 9 + 5, b'k'), (9 * 9 + 2, elephant)] {
            b[square] = piece as c_char;
        }
        b
    };
    let (mut w, mut alias) = (9, 9);
    // Safety: valid boards and ints; the handle is closed below.
    unsafe {
        let dead = board(0, b'e');
        assert_eq!(qiku_tb_probe_wdl_board(tb, dead.as_ptr(), QIKU_RED, QIKU_RULES_ASIAN, &mut w), 0);
        assert_eq!(w, 0, "kings and an elephant: a draw");
        let (n, h) = (board(b'n', 0), board(b'h', 0));
        assert_eq!(qiku_tb_probe_wdl_board(tb, n.as_ptr(), QIKU_RED, QIKU_RULES_ASIAN, &mut w), 0);
        assert_eq!(qiku_tb_probe_wdl_board(tb, h.as_ptr(), QIKU_RED, QIKU_RULES_ASIAN, &mut alias), 0);
        assert_eq!(alias, w);
        let bad = board(b'x', 0);
        assert_eq!(qiku_tb_probe_wdl_board(tb, bad.as_ptr(), QIKU_RED, QIKU_RULES_ASIAN, &mut w), QIKU_ERR_ARG);
        let msg = last_error();
        assert!(msg.contains("KABNRCP") && msg.contains("H/h and E/e"), "{msg}");
        qiku_tb_close(tb);
    }
    let header = include_str!("../../../include/qiku.h");
    assert!(header.contains("H/h for a horse and\n * E/e for an elephant are taken too"), "the header says so");
}

/// A `.qtb` whose name is not UTF-8 is listed with the other misnamed files, not skipped unseen.
#[cfg(target_os = "linux")]
#[test]
fn a_table_name_that_is_not_utf8_is_a_problem() {
    use std::os::unix::ffi::OsStrExt;
    let dir = c_tables(&["KRvK"]);
    std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"K\xffvK.qtb")), b"x").expect("write");
    std::fs::write(dir.path().join("foo.qtb"), b"x").expect("write");
    let tb = c_open(dir.path());
    // Safety: a live handle, closed below; the strings belong to it until then.
    unsafe {
        assert_eq!(qiku_tb_problem_count(tb), 2, "{}", last_error());
        let problems: Vec<String> =
            (0..2).map(|i| CStr::from_ptr(qiku_tb_problem(tb, i)).to_str().expect("UTF-8").to_string()).collect();
        assert!(problems.iter().all(|p| p.contains("not the name of a table")), "{problems:?}");
        assert!(problems.iter().any(|p| p.contains("K\u{fffd}vK.qtb")), "{problems:?}");
        qiku_tb_close(tb);
    }
}
