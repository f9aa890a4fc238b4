//! The C API from C: `tests/capi/capi_test.c`, compiled with the system C compiler (`cc`) against
//! `include/qiku.h` and linked once against `libqiku.a` and once against `libqiku.so` (both built
//! by cargo beside this test, the crate declaring the `staticlib` and `cdylib` types), probes a
//! book compiled from `books/repertoire.pgn` and KRvK/KNvK/KRvKA tables generated here, and must
//! get the answers the Rust API gives (some also checked against known facts), the documented
//! errors (missing directory, a directory without tables, corrupt files, bad FEN, NULL, bad
//! UTF-8), "no table" alike from every table function (for the position, or for a position a
//! capture leads to), the unusable files the Rust API lists and the same answers from two threads
//! at once. Skipped, with a message, when there is no C compiler.
//!
//! A second test checks the hand-written header against the `extern "C"` declarations of
//! `src/lib.rs`: same functions, same parameter and return types, same error codes.

use qiku_lib::book::{self, Book, BuildOptions};
use qiku_lib::tablebase::generate::{generate_set, GenerateOptions};
use qiku_lib::tablebase::{Material, Tablebases, TbError, Wdl};
use qiku_lib::Position;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (the book, the header and the README live there).
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// This crate (the C test program and the Rust declarations).
const CRATE: &str = env!("CARGO_MANIFEST_DIR");

/// The directory holding `libqiku.a` and `libqiku.so`, built for this test's profile.
///
/// `cargo test` builds only what a test can link, and a test cannot link a `cdylib` or a
/// `staticlib`, so the libraries are built here by `cargo build --workspace --lib --tests` into
/// the same target directory (cargo has released its lock by the time tests run). Built for the
/// whole workspace with its tests, every crate has the features `cargo test` compiled it with
/// (without `--tests` the dev-dependencies' features drop out, and the library and half its
/// dependencies would be compiled again), so this only links. The files land in
/// `target/<profile>/`, one level above this test.
fn artifact_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("target/<profile>/deps");
    let profile_dir = deps.parent().expect("target/<profile>").to_path_buf();
    let target_dir = profile_dir.parent().expect("target").to_path_buf();
    let profile = profile_dir.file_name().and_then(|n| n.to_str()).expect("profile name").to_string();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--workspace", "--lib", "--tests", "--target-dir"]).arg(&target_dir).current_dir(ROOT);
    match profile.as_str() {
        "debug" => {}
        "release" => {
            build.arg("--release");
        }
        other => {
            build.args(["--profile", other]);
        }
    }
    let status = build.status().expect("run cargo build --workspace --lib --tests");
    assert!(status.success(), "cargo build --workspace --lib --tests failed");
    profile_dir
}

fn cc_available() -> bool {
    Command::new("cc").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Builds the book, the tables and their corrupt copies in `dir`.
fn fixtures(dir: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let book_path = dir.join("repertoire.qbk");
    let opts = BuildOptions::default();
    book::build(&[Path::new(ROOT).join("books/repertoire.pgn")], &book_path, &opts).expect("book builds");

    let tb_dir = dir.join("tables");
    let materials: Vec<Material> = ["KRvK", "KNvK", "KRvKA"].iter().map(|m| m.parse().expect("material")).collect();
    let gen = GenerateOptions::new(&tb_dir);
    generate_set(&materials, &gen).expect("tables generate");

    // A book with one body byte flipped: the full verification must reject it.
    let mut bytes = std::fs::read(&book_path).expect("book bytes");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    let bad_book = dir.join("corrupt.qbk");
    std::fs::write(&bad_book, bytes).expect("write corrupt book");

    // A table cut in half (probing it must fail) and a companion without its table: two files
    // that cannot be used.
    let bad_dir = dir.join("corrupt-tables");
    std::fs::create_dir_all(&bad_dir).expect("mkdir");
    let table = std::fs::read(tb_dir.join("KRvK.qtb")).expect("table bytes");
    std::fs::write(bad_dir.join("KRvK.qtb"), &table[..table.len() / 2]).expect("write corrupt table");
    std::fs::copy(tb_dir.join("KNvK.qtr"), bad_dir.join("KNvK.qtr")).expect("copy a companion");
    (book_path, tb_dir, bad_book, bad_dir)
}

/// A directory holding KRvKA (with its companions) but not the KRvK table that taking the
/// advisor leads to.
fn partial_tables(dir: &Path, tb_dir: &Path) -> PathBuf {
    let partial = dir.join("partial-tables");
    std::fs::create_dir_all(&partial).expect("mkdir");
    for ext in ["qtb", "qtr", "qtw"] {
        let name = format!("KRvKA.{ext}");
        std::fs::copy(tb_dir.join(&name), partial.join(&name)).expect("copy KRvKA");
    }
    // The library: the position has a value, its moves' values need the missing KRvK.
    let tb = Tablebases::open(&partial).expect("open");
    let pos = Position::from_fen("3k5/R3a4/9/9/9/9/9/9/9/4K4 w - - 0 1").expect("fen");
    assert_eq!(tb.probe(&pos).expect("probe").map(|v| v.wdl), Some(Wdl::Win));
    let err = tb.best_moves(&pos).expect_err("a capture into a missing table");
    assert!(matches!(&err, TbError::MissingDependency { needs, .. } if needs == "KRvK"), "{err}");
    partial
}

/// A directory without a table file, as a fresh clone's `tablebases/` (only its README).
fn empty_tables(dir: &Path) -> PathBuf {
    let empty = dir.join("no-tables");
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::write(empty.join("README.md"), "Tables go here.\n").expect("write README");
    let tb = Tablebases::open(&empty).expect("the library opens it");
    assert!(tb.tables().is_empty() && tb.problems().is_empty());
    empty
}

/// The Rust API's answers, as lines for the C program, with known facts asserted on the way;
/// `bad` is the directory of damaged files.
fn expectations(book: &Book, tb: &Tablebases, bad: &Tablebases) -> String {
    let mut out = String::new();
    // The files of `bad` that cannot be used, in the library's order (by path).
    let problems: Vec<String> = bad.problems().iter().map(|e| e.to_string()).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("KNvK.qtr: ") && problems[0].contains("without its table"), "{problems:?}");
    assert!(problems[1].contains("KRvK.qtb: "), "{problems:?}");
    for p in &problems {
        writeln!(out, "problem|{p}").unwrap();
    }
    let tb_fens = [
        // KRvK: the rook's side wins whoever moves (the bare king cannot reach the rook).
        ("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", Some(Wdl::Win)),
        ("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1", Some(Wdl::Loss)),
        ("3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1", None),
        ("5k3/9/9/9/9/9/9/9/r8/4K4 b - - 0 1", None),
        // Mated now (the rook checks along the d-file, the e-file is the white king's): a loss in
        // 0 plies, and no best move.
        ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", Some(Wdl::Loss)),
        ("4k4/9/9/9/9/9/9/9/9/3KN4 w - - 0 1", None),
        ("4k4/9/9/9/4n4/9/9/9/9/3K5 b - - 0 1", None),
        ("3k5/4a4/9/9/9/9/9/9/9/R3K4 w - - 0 1", None),
        ("3k5/4a4/9/9/9/9/9/9/9/R3K4 b - - 0 1", None),
        ("4ka3/9/9/9/9/9/9/9/9/3K3R1 w - - 0 1", None),
        // Kings only: a draw without a file.
        ("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", Some(Wdl::Draw)),
        // No table for KCvK and KRvKR.
        ("4k4/9/9/9/9/9/9/9/4C4/3K5 w - - 0 1", None),
        ("4k4/9/9/r8/9/9/9/9/R8/3K5 w - - 0 1", None),
    ];
    let mut seen_no_table = false;
    for (fen, known) in tb_fens {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let value = tb.probe(&pos).expect("probe");
        if let Some(w) = known {
            assert_eq!(value.map(|v| v.wdl), Some(w), "{fen}");
        }
        let (rc, wdl, dtm) = match value {
            None => {
                seen_no_table = true;
                ("no-table", 0, 0)
            }
            Some(v) => {
                // The sign convention of qiku-tb probe --json: positive when the side to move wins.
                let w = match v.wdl {
                    Wdl::Win => 1,
                    Wdl::Draw => 0,
                    Wdl::Loss => -1,
                };
                assert!(w * v.dtm.0 >= 0 && (v.dtm.0 != 0 || v.wdl != Wdl::Win), "{fen}: {v:?}");
                ("0", w, v.dtm.0)
            }
        };
        let best = match tb.best_moves(&pos).expect("best moves") {
            Some(moves) if !moves.is_empty() => moves[0].to_string(),
            _ => "-".into(),
        };
        writeln!(out, "tb|{fen}|{rc}|{wdl}|{dtm}|{best}").unwrap();
    }
    assert!(seen_no_table);
    // Distances worked out by hand: Re1-d1 mates at once (the e-file is the white king's); with
    // Black to move, the king's only step, Kd9-d8, is answered by the same mate.
    for (fen, dtm) in [("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", 1), ("3k5/9/9/9/9/9/9/9/4R4/4K4 b - - 0 1", -2)] {
        let pos = Position::from_fen(fen).expect("fen");
        assert_eq!(tb.probe_dtm(&pos).expect("probe").map(|d| d.0), Some(dtm), "{fen}");
    }
    let mated = Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1").expect("fen");
    assert_eq!(tb.probe(&mated).expect("probe").map(|v| v.dtm.0), Some(0));
    assert_eq!(tb.best_moves(&mated).expect("best moves"), Some(vec![]));

    // The book: the start, every position two plies into it, and one it does not hold.
    let mut fens = BTreeMap::new();
    let start = Position::startpos();
    fens.insert(start.fen(), ());
    for m in book.probe(&start).expect("book readable") {
        let p1 = start.play(m.mv).expect("book move legal");
        fens.insert(p1.fen(), ());
        for m2 in book.probe(&p1).expect("book readable") {
            fens.insert(p1.play(m2.mv).expect("book move legal").fen(), ());
        }
    }
    fens.insert("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1".into(), ());
    let (mut several, mut mirrors) = (false, 0);
    for fen in fens.keys().take(200) {
        let pos = Position::from_fen(fen).expect("fen");
        let moves = book.probe(&pos).expect("book readable");
        several |= moves.len() > 1;
        write!(out, "book|{fen}|{}", moves.len()).unwrap();
        for m in &moves {
            let c = m.counts;
            let mirror = m.merged_mirror(&pos).map_or("-".to_string(), |x| x.to_string());
            mirrors += usize::from(mirror != "-");
            write!(out, "|{},{},{},{},{},{mirror}", m.mv, c.games(), c.wins, c.draws, c.losses).unwrap();
        }
        out.push('\n');
    }
    assert!(several, "the repertoire should branch somewhere");
    // The start position is its own mirror image: its off-centre moves stand for their twins.
    assert!(mirrors > 0, "no move with a mirror twin in the start position");
    out
}

#[test]
fn c_program_gets_the_rust_answers() {
    if !cc_available() {
        eprintln!("SKIPPED: no C compiler (`cc`) found; the C API test needs one");
        return;
    }
    let libs = artifact_dir();
    let (static_lib, shared_lib) = (libs.join("libqiku.a"), libs.join("libqiku.so"));
    assert!(static_lib.exists() && shared_lib.exists(), "no libqiku.a / libqiku.so in {}", libs.display());

    let tmp = tempfile::tempdir().expect("temp dir");
    let (book_path, tb_dir, bad_book, bad_dir) = fixtures(tmp.path());
    let empty_dir = empty_tables(tmp.path());
    let partial_dir = partial_tables(tmp.path(), &tb_dir);
    let book = Book::open(&book_path).expect("book opens");
    let tb = Tablebases::open(&tb_dir).expect("tables open");
    let expect = tmp.path().join("expectations.txt");
    let bad_tb = Tablebases::open(&bad_dir).expect("a directory of damaged tables opens");
    std::fs::write(&expect, expectations(&book, &tb, &bad_tb)).expect("write expectations");

    let source = Path::new(CRATE).join("tests/capi/capi_test.c");
    let include = Path::new(ROOT).join("include");
    let builds: [(&str, Vec<String>); 2] = [
        ("static", vec![static_lib.display().to_string(), "-lpthread".into(), "-ldl".into(), "-lm".into()]),
        (
            "shared",
            vec![
                format!("-L{}", libs.display()),
                "-lqiku".into(),
                format!("-Wl,-rpath,{}", libs.display()),
                "-lpthread".into(),
            ],
        ),
    ];
    for (kind, link) in builds {
        let exe = tmp.path().join(format!("capi_test_{kind}"));
        let status = Command::new("cc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-D_POSIX_C_SOURCE=200809L", "-I"])
            .arg(&include)
            .arg(&source)
            .arg("-o")
            .arg(&exe)
            .args(&link)
            .status()
            .expect("run cc");
        assert!(status.success(), "cc failed for the {kind} build");
        let out = Command::new(&exe)
            .args([&book_path, &tb_dir, &bad_book, &bad_dir, &empty_dir, &partial_dir, &expect])
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .expect("run the C test");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{kind} C test failed:\n{stdout}\n{stderr}");
        assert!(stdout.starts_with("ok: "), "{kind}: {stdout}");
        eprintln!("{kind}: {stdout}");

        // The README's example, as written there.
        let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README");
        let example =
            readme.split("```c\n").nth(1).and_then(|s| s.split("```").next()).expect("a C example in the README");
        let example_src = tmp.path().join("example.c");
        std::fs::write(&example_src, example).expect("write example");
        let example_exe = tmp.path().join(format!("example_{kind}"));
        let status = Command::new("cc")
            .args(["-std=c11", "-Wall", "-Werror", "-I"])
            .arg(&include)
            .arg(&example_src)
            .arg("-o")
            .arg(&example_exe)
            .args(&link)
            .status()
            .expect("run cc");
        assert!(status.success(), "cc failed for the README example ({kind})");
        let out = Command::new(&example_exe).args([&book_path, &tb_dir]).output().expect("run the example");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "README example ({kind}): {stdout}");
        let first = book.probe(&Position::startpos()).expect("book readable")[0];
        let c = first.counts;
        let twin = first.merged_mirror(&Position::startpos()).map_or(String::new(), |m| format!(" ({m})"));
        let book_line = format!("{}{twin}: {} games, {}-{}-{}", first.mv, c.games(), c.wins, c.draws, c.losses);
        assert!(!twin.is_empty(), "the most played first move has a mirror twin");
        assert!(stdout.starts_with("wdl 1, dtm 1, best e1d1\n"), "README example ({kind}): {stdout}");
        assert!(stdout.contains(&book_line), "README example ({kind}): {stdout} lacks {book_line}");
        // A directory without tables, then a missing book: each failure says why.
        let out = Command::new(&example_exe).args([&book_path, &empty_dir]).output().expect("run the example");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && stderr.contains(&format!("-d {}", empty_dir.display())),
            "README example: {stderr}"
        );
        let missing_book = tmp.path().join("missing.qbk");
        let out = Command::new(&example_exe).args([&missing_book, &tb_dir]).output().expect("run the example");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let named = stderr.contains(&missing_book.display().to_string());
        assert!(!out.status.success() && named, "README example: {stderr}");
    }
}

/// One C or Rust declaration reduced to comparable words: name, then parameter and return types.
fn normalize_c(decl: &str) -> (String, Vec<String>) {
    let decl = decl.replace("char move[6]", "char *move").replace("char board[90]", "char *board");
    let (head, params) = decl.split_once('(').expect("a prototype");
    let params = params.trim_end_matches([')', ';', ' ']);
    let head = head.replace('*', " * ");
    let mut words: Vec<&str> = head.split_whitespace().collect();
    let name = words.pop().expect("a name").to_string();
    let ret = words.join(" ");
    let mut types = vec![ret];
    if params != "void" {
        for p in params.split(',') {
            let p = p.replace('*', " * ");
            let mut w: Vec<&str> = p.split_whitespace().collect();
            w.pop(); // the parameter name
            types.push(w.join(" "));
        }
    }
    (name, types)
}

fn rust_to_c(ty: &str) -> String {
    let ty = ty.trim();
    if let Some(inner) = ty.strip_prefix("*const ") {
        return format!("const {} *", rust_to_c(inner));
    }
    if let Some(inner) = ty.strip_prefix("*mut ") {
        return format!("{} *", rust_to_c(inner));
    }
    match ty {
        "c_char" => "char".into(),
        "c_int" => "int".into(),
        "" | "()" => "void".into(),
        other => other.into(),
    }
}

fn normalize_rust(decl: &str) -> (String, Vec<String>) {
    let (head, rest) = decl.split_once('(').expect("a signature");
    let name = head.split_whitespace().last().expect("a name").to_string();
    let (params, ret) = rest.rsplit_once(')').expect("closing parenthesis");
    let ret = ret.trim().trim_start_matches("->").trim_end_matches('{').trim();
    let mut types = vec![rust_to_c(ret)];
    for p in params.split(',').filter(|p| !p.trim().is_empty()) {
        let (_, ty) = p.split_once(':').expect("name: type");
        types.push(rust_to_c(ty));
    }
    (name, types)
}

#[test]
fn header_matches_the_rust_declarations() {
    let header = std::fs::read_to_string(Path::new(ROOT).join("include/qiku.h")).expect("header");
    let rust = std::fs::read_to_string(Path::new(CRATE).join("src/lib.rs")).expect("the C API source");

    // Prototypes: from "qiku_" to ';' at the top level of the header, comments removed.
    let mut c_decls = BTreeMap::new();
    let code: String = {
        let mut s = header.clone();
        while let Some(start) = s.find("/*") {
            let end = s[start..].find("*/").expect("closed comment") + start + 2;
            s.replace_range(start..end, " ");
        }
        s
    };
    let code = code.replace('\n', " ");
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let Some(rest) = stmt.rsplit('}').next() else { continue };
        let rest = rest.trim();
        if rest.contains("qiku_") && rest.contains('(') && !rest.starts_with('#') {
            let (name, types) = normalize_c(rest);
            c_decls.insert(name, types);
        }
    }
    let mut rust_decls = BTreeMap::new();
    let flat = rust.replace('\n', " ");
    for part in flat.split("extern \"C\" fn ").skip(1) {
        let sig = &part[..part.find('{').expect("a body")];
        let (name, types) = normalize_rust(&format!("fn {sig}"));
        rust_decls.insert(name, types);
    }
    assert_eq!(rust_decls.len(), 16, "{rust_decls:?}");
    assert_eq!(c_decls, rust_decls);

    // Constants: each `pub const QIKU_X: c_int = n;` is `#define QIKU_X (n)`.
    let mut codes = 0;
    for line in rust.lines().filter(|l| l.starts_with("pub const QIKU_")) {
        let name = line["pub const ".len()..].split(':').next().expect("name");
        let value = line.rsplit('=').next().expect("value").trim().trim_end_matches(';');
        let define = format!("#define {name} ({value})");
        assert!(header.contains(&define), "header lacks {define:?}");
        codes += 1;
    }
    assert_eq!(codes, 9);
    assert!(header
        .contains("typedef struct {\n    char move[6];\n    uint32_t games, wins, draws, losses;\n    char with_mirror[6];\n} QikuBookMove;"));
    assert!(header.contains("typedef struct {\n    char move[6];\n    int wdl, dtm, by_rule;\n} QikuTbMove;"));
    // The structs' layouts in Rust are checked by the crate's unit tests `book_move_layout` and
    // `tb_move_layout`.
}
