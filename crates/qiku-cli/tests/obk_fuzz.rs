//! The `.obk` reader fuzzed inside `cargo test`: the check of the libFuzzer target `fuzz/obk`
//! (`tests/fuzz_common/obk.rs`) as property tests, on mutated real `.obk` files, random bytes and
//! real files whose `bhobk` schema is replaced by crafted SQL. Here rather than in the root
//! crate's `tests/reader_fuzz.rs` because `.obk` support is a feature the programs enable.

#[path = "../../../tests/fuzz_common/obk.rs"]
mod obk_check;

#[path = "../../../tests/fuzz_common/mutate.rs"]
mod mutate;

use mutate::mutate;
use obk_check::check_obk_bytes;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A real `.obk`, exported once per test binary from a small book.
fn real_obk() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn");
        let mut opts = qiku::book::BuildOptions::default();
        opts.params.max_ply = 8;
        let qbk = dir.path().join("r.qbk");
        qiku::book::build(&[games], &qbk, &opts).expect("book builds");
        let obk = dir.path().join("r.obk");
        let book = qiku::book::Book::open(&qbk).expect("book opens");
        qiku::book::obk::export(&book, &obk).expect("export");
        std::fs::read(obk).expect("obk bytes")
    })
}

/// A work directory of its own for each test thread (the check writes files into it).
fn work_dir() -> PathBuf {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    let root = ROOT.get_or_init(|| tempfile::tempdir().expect("temp dir"));
    let d = root.path().join(format!("{:?}", std::thread::current().id()));
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

/// Pieces of a `bhobk` definition: views, generated columns, odd types, heavy expressions.
const SCHEMA_PARTS: &[&str] = &[
    "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo TEXT)",
    "CREATE VIEW bhobk(vkey, vmove, vwin, vdraw, vlost, vvalid, vmemo) AS SELECT vkey, vmove, vwin, vdraw, vlost, vvalid, vmemo FROM t",
    "CREATE VIEW bhobk(vkey, vmove, vwin, vdraw, vlost, vvalid, vmemo) AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, x, 1, 0, 0, 1, '' FROM c",
    "CREATE TABLE bhobk(vkey INTEGER, vmove INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo TEXT AS (zeroblob(500000000)))",
    "CREATE TABLE bhobk(vkey TEXT, vmove REAL, vwin, vdraw BLOB, vlost INTEGER, vvalid INTEGER, vmemo TEXT)",
    "CREATE TABLE bhobk(vkey INTEGER)",
    "CREATE TABLE t(vkey INTEGER, vmove INTEGER, vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo TEXT)",
    "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END",
    "CREATE VIEW qiku_book(header) AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT zeroblob(8) FROM c",
    "CREATE TABLE qiku_book(header BLOB)",
    "INSERT INTO t VALUES (7122030766373618862, 43687, 3, 1, 1, 1, NULL), (-1, 1, -5, NULL, 4294967296, 1, 'qiku:unknown=9')",
];

/// An `.obk` made of the chosen schema parts (each part that SQLite refuses is left out).
fn crafted(parts: &[usize]) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("c.obk");
    let conn = rusqlite::Connection::open(&path).expect("create");
    for &i in parts {
        let _ = conn.execute_batch(SCHEMA_PARTS[i % SCHEMA_PARTS.len()]);
    }
    drop(conn);
    std::fs::read(&path).expect("bytes")
}

#[test]
fn the_real_file_imports() {
    check_obk_bytes(&work_dir(), real_obk());
    let book = qiku::book::Book::open(work_dir().join("x.qbk")).expect("imported");
    assert!(!book.probe(&qiku::Position::startpos()).expect("the book reads").is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn obk_mutated(edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6)) {
        check_obk_bytes(&work_dir(), &mutate(real_obk(), &edits));
    }

    #[test]
    fn obk_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_obk_bytes(&work_dir(), &bytes);
    }

    #[test]
    fn obk_crafted_schemas(parts in prop::collection::vec(any::<usize>(), 1..6)) {
        check_obk_bytes(&work_dir(), &crafted(&parts));
    }
}
