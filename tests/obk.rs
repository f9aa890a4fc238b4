//! `.obk` export and import: byte-for-byte round trips through the BHGUI format, hand-made books
//! in the variants found in the wild, and a real client: Python's `sqlite3` with keys computed
//! from the published BHGUI table (as the `cchess` package ships it), independently of qiku.
#![cfg(feature = "obk")]

use qiku::book::obk::{self, bhgui_key, encode_move};
use qiku::book::{self, Book, BuildOptions, BuildParams};
use qiku::notation::iccs;
use qiku::Position;
use rusqlite::Connection;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn games() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/games/ccpd-sample-gbk.pgn")
}

/// A book of 2,000 real games, 20 plies deep.
fn sample_book(dir: &Path) -> PathBuf {
    let out = dir.join("sample.qbk");
    // Without recent games: an .obk has no place for them, so import writes a book without any.
    let opts = BuildOptions {
        params: BuildParams { max_ply: 20, ..BuildParams::default() },
        recent_games: 0,
        ..BuildOptions::default()
    };
    let report = book::build(&[games()], &out, &opts).unwrap();
    assert_eq!(report.header.games.used, 2000);
    out
}

#[test]
fn export_then_import_gives_back_the_same_book_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let qbk = sample_book(dir.path());
    let book = Book::open(&qbk).unwrap();
    let obk_path = dir.path().join("sample.obk");
    let exported = obk::export(&book, &obk_path).unwrap();
    assert_eq!(exported.unreachable, 0);
    assert_eq!(exported.records, book.len());
    assert_eq!(exported.positions, book.header().positions);
    let back = dir.path().join("back.qbk");
    let imported = obk::import(&obk_path, &back).unwrap();
    assert_eq!(imported.rows, exported.rows);
    assert_eq!((imported.unreachable, imported.illegal, imported.unreadable, imported.invalid), (0, 0, 0, 0));
    assert_eq!(std::fs::read(&qbk).unwrap(), std::fs::read(&back).unwrap());

    // Rows as a GUI sees them: the start position under its published key, 炮二平五 as 0xAAA7.
    let conn = Connection::open(&obk_path).unwrap();
    let start_key = 0x628D_04D7_C9C1_44AEu64 as i64;
    let mut stmt = conn.prepare("SELECT vmove, vwin, vdraw, vlost, vscore, vvalid FROM bhobk WHERE vkey = ?1").unwrap();
    let rows: Vec<(i64, u32, u32, u32, i64, i64)> = stmt
        .query_map([start_key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let pos = Position::startpos();
    let probe = book.probe(&pos).expect("book readable");
    assert_eq!(rows.len(), probe.len());
    for m in &probe {
        let row = rows.iter().find(|r| r.0 == i64::from(encode_move(m.mv))).unwrap();
        assert_eq!((row.1, row.2, row.3), (m.counts.wins, m.counts.draws, m.counts.losses));
        assert_eq!(row.4, 2 * i64::from(m.counts.wins) + i64::from(m.counts.draws));
        assert_eq!(row.5, 1);
    }
    assert!(rows.iter().any(|r| r.0 == 0xAAA7));
}

/// A book with recent games (the default build) keeps its build options and game counts through
/// an `.obk`: only the recent games are dropped. Its stored header was read as no header at all
/// (its size check left out the recent-games section), so `--keep-prefix` and the games read
/// were lost, and the book then merged with books built without it.
#[test]
fn a_book_with_recent_games_keeps_its_options_through_an_obk() {
    let dir = tempfile::tempdir().unwrap();
    let qbk = dir.path().join("recent.qbk");
    let opts = BuildOptions {
        params: BuildParams { max_ply: 20, keep_prefix: true, ..BuildParams::default() },
        ..BuildOptions::default()
    };
    let built = book::build(&[games()], &qbk, &opts).unwrap().header;
    assert!(built.recent_games > 0);
    let obk_path = dir.path().join("recent.obk");
    obk::export(&Book::open(&qbk).unwrap(), &obk_path).unwrap();
    let imported = obk::import(&obk_path, &dir.path().join("back.qbk")).unwrap();
    assert!(!imported.header_ignored);
    let back = imported.header.unwrap();
    assert_eq!((back.params, back.games, back.records), (built.params, built.games, built.records));
    assert_eq!(back.recent_games, 0);
}

/// Creates an `.obk` by hand the way other tools write them.
fn handmade(path: &Path, rows: &[(rusqlite::types::Value, i64, u32, u32, u32, i64)]) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(
        "CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER, vscore INTEGER,
         vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo BLOB, vindex INTEGER);",
    )
    .unwrap();
    for (key, vmove, w, d, l, valid) in rows {
        conn.execute(
            "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid) VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6)",
            rusqlite::params![key, vmove, w, d, l, valid],
        )
        .unwrap();
    }
}

#[test]
fn import_reads_the_variants_found_in_the_wild() {
    use rusqlite::types::Value;
    let dir = tempfile::tempdir().unwrap();
    let start = Position::startpos();
    let mv = |pos: &Position, s: &str| iccs::parse(pos, s).unwrap();
    let after_h2e2 = start.play(mv(&start, "h2e2")).unwrap();
    // Stored only in its mirror image (b2e2 played first), key as a REAL with the key's bytes
    // when the key is 2^63 or more (one generator's habit), else as text.
    let mirror = after_h2e2.mirror();
    let mk = bhgui_key(&mirror);
    let mirror_key = if mk >= 1 << 63 { Value::Real(f64::from_bits(mk)) } else { Value::Text(mk.to_string()) };
    let rows = vec![
        // Start position: h2e2 and its mirror b2e2 (one entry in a .qbk), and a switched-off move.
        (Value::Integer(bhgui_key(&start) as i64), i64::from(encode_move(mv(&start, "h2e2"))), 3, 1, 1, 1),
        (Value::Integer(bhgui_key(&start) as i64), i64::from(encode_move(mv(&start, "b2e2"))), 1, 0, 0, 1),
        (Value::Integer(bhgui_key(&start) as i64), i64::from(encode_move(mv(&start, "a3a4"))), 9, 9, 9, 0),
        // The same position and move again (an edited book): skipped and counted, the first kept.
        (Value::Integer(bhgui_key(&start) as i64), i64::from(encode_move(mv(&start, "h2e2"))), 7, 7, 7, 1),
        // After b2e2: black's h9g7 becomes b9c7 there.
        (mirror_key, i64::from(encode_move(mv(&mirror, "b9c7"))), 0, 2, 1, 1),
        // An illegal move, a move off the board, and a position nobody reaches.
        (
            Value::Integer(bhgui_key(&start) as i64),
            i64::from(encode_move(iccs::parse_move("a0a5").unwrap())),
            1,
            0,
            0,
            1,
        ),
        (Value::Integer(bhgui_key(&start) as i64), 0x0101, 1, 0, 0, 1),
        (Value::Integer(12345), 0xAAA7, 1, 0, 0, 1),
    ];
    let path = dir.path().join("wild.obk");
    handmade(&path, &rows);
    let out = dir.path().join("wild.qbk");
    let r = obk::import(&path, &out).unwrap();
    assert_eq!((r.rows, r.used, r.invalid, r.illegal, r.unreadable, r.unreachable), (8, 3, 1, 1, 1, 1));
    assert_eq!(r.repeated, 1);
    let book = Book::open(&out).unwrap();
    let at_start = book.probe(&start).expect("book readable");
    assert_eq!(at_start.len(), 1);
    assert_eq!(at_start[0].mv.to_string(), "h2e2");
    assert_eq!((at_start[0].counts.wins, at_start[0].counts.draws, at_start[0].counts.losses), (4, 1, 1));
    let reply = book.probe(&after_h2e2).expect("book readable");
    assert_eq!(reply.len(), 1);
    assert_eq!(reply[0].mv.to_string(), "h9g7");
    assert_eq!((reply[0].counts.draws, reply[0].counts.losses), (2, 1));
    // Without a qiku header, the game counts come from the start position.
    assert_eq!(book.header().games.used, 6);

    // Not a database, no table: errors naming the file.
    let junk = dir.path().join("junk.obk");
    std::fs::write(&junk, b"not a database at all, not even close..............................").unwrap();
    let e = obk::import(&junk, &dir.path().join("x.qbk")).unwrap_err().to_string();
    assert!(e.contains("junk.obk"), "{e}");
    let empty = dir.path().join("empty.obk");
    Connection::open(&empty).unwrap().execute_batch("CREATE TABLE other(x);").unwrap();
    let e = obk::import(&empty, &dir.path().join("y.qbk")).unwrap_err().to_string();
    assert!(e.contains("empty.obk") && e.contains("bhobk"), "{e}");
}

/// The Python side of the client test: keys from the published table, moves encoded by hand.
const CLIENT: &str = r#"
import sqlite3, sys
from cchess.zhash_data import z_c90, z_pieces, z_redKey, z_hashTable
import cchess

def key(fen):
    board, side = fen.split()[:2]
    k = 0
    for y, row in enumerate(board.split('/')):      # y = 0 is rank 9
        x = 0
        for ch in row:
            if ch.isdigit():
                x += int(ch)
                continue
            k ^= z_hashTable[z_pieces[ch] * 256 + z_c90[x + y * 9]]
            x += 1
    if side in ('w', 'r'):
        k ^= z_redKey
    return k - (1 << 64) if k >= (1 << 63) else k

def vmove(m):
    sq = lambda f, r: (12 - int(r)) * 16 + 3 + (ord(f) - ord('a'))
    return sq(m[0], m[1]) << 8 | sq(m[2], m[3])

db = sqlite3.connect(sys.argv[1])
checked = 0
for line in open(sys.argv[2]):
    fen, rest = line.rstrip('\n').split('\t')
    k = key(fen)
    assert k == cchess.ChessBoard(fen).zhash(), fen
    want = sorted(tuple([vmove(m.split(':')[0])] + [int(x) for x in m.split(':')[1:]]) for m in rest.split())
    got = sorted(db.execute('SELECT vmove, vwin, vdraw, vlost FROM bhobk WHERE vkey = ? AND vvalid = 1', (k,)).fetchall())
    assert got == want, (fen, got, want)
    checked += 1
print(checked)
"#;

#[test]
fn python_sqlite3_finds_every_sampled_position_under_the_cchess_key() {
    let ok = Command::new("python3").args(["-c", "import cchess.zhash_data, sqlite3"]).output();
    if !ok.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: needs python3 with the cchess package (pip install cchess)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let book = Book::open(sample_book(dir.path())).unwrap();
    let obk_path = dir.path().join("sample.obk");
    obk::export(&book, &obk_path).unwrap();
    // Every book position reached from the start, and its mirror image: FEN and moves with W/D/L.
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![Position::startpos()];
    while let Some(pos) = stack.pop() {
        if !seen.insert(pos.key()) {
            continue;
        }
        let moves = book.probe(&pos).expect("book readable");
        if moves.is_empty() {
            continue;
        }
        for (p, mirrored) in [(pos.clone(), false), (pos.mirror(), true)] {
            let list: Vec<String> = moves
                .iter()
                .map(|m| {
                    let mv = if mirrored { m.mv.mirror() } else { m.mv };
                    format!("{mv}:{}:{}:{}", m.counts.wins, m.counts.draws, m.counts.losses)
                })
                .collect();
            lines.push(format!("{}\t{}", p.fen(), list.join(" ")));
            if p.key() == p.mirror().key() {
                break;
            }
        }
        for m in &moves {
            stack.push(pos.play_unchecked(m.mv));
        }
    }
    // A fixed sample of 1,500 (every k-th) keeps the Python run short.
    let step = (lines.len() / 1500).max(1);
    let sample: Vec<&String> = lines.iter().step_by(step).take(1500).collect();
    assert!(sample.len() >= 1000, "only {} positions", sample.len());
    let list = dir.path().join("positions.tsv");
    std::fs::write(&list, sample.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let out = Command::new("python3").args(["-c", CLIENT]).arg(&obk_path).arg(&list).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let checked: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert_eq!(checked, sample.len());
    eprintln!("python sqlite3 + cchess keys agree on {checked} positions");
}

/// VinXiangQi's lookup, as its source builds it: `vkey like <unsigned decimal key>`.
fn vinxiangqi_rows(conn: &Connection, key: u64) -> usize {
    let sql = format!("SELECT vmove FROM bhobk WHERE vkey like {key}");
    conn.prepare(&sql).unwrap().query_map([], |_| Ok(())).unwrap().count()
}

#[test]
fn vinxiangqi_finds_every_position_with_the_alias_rows() {
    let dir = tempfile::tempdir().unwrap();
    let qbk = sample_book(dir.path());
    let book = Book::open(&qbk).unwrap();
    let plain = dir.path().join("plain.obk");
    let aliased = dir.path().join("aliased.obk");
    obk::export(&book, &plain).unwrap();
    let r = obk::export_with(&book, &aliased, obk::ExportOptions { vinxiangqi_aliases: true }).unwrap();
    assert!(r.alias_rows > 0);
    let (plain, aliased_conn) = (Connection::open(&plain).unwrap(), Connection::open(&aliased).unwrap());
    // Every book position of the first plies, by VinXiangQi's query.
    let (mut high, mut missed_plain) = (0, 0);
    let mut seen = HashSet::new();
    let mut stack = vec![(Position::startpos(), 0)];
    while let Some((pos, ply)) = stack.pop() {
        if ply > 6 || !seen.insert(pos.key()) {
            continue;
        }
        let moves = book.probe(&pos).expect("book readable");
        if moves.is_empty() {
            continue;
        }
        let key = bhgui_key(&pos);
        assert_eq!(vinxiangqi_rows(&aliased_conn, key), moves.len(), "{}", pos.fen());
        if key >= 1 << 63 {
            high += 1;
            missed_plain += usize::from(vinxiangqi_rows(&plain, key) == 0);
        }
        for m in &moves {
            stack.push((pos.play_unchecked(m.mv), ply + 1));
        }
    }
    // Without the aliases VinXiangQi misses exactly the keys of 2^63 and above.
    assert!(high > 50, "{high}");
    assert_eq!(missed_plain, high);
    // Import skips the aliases: the same book again.
    let back = dir.path().join("back.qbk");
    let imported = obk::import(&aliased, &back).unwrap();
    assert_eq!(imported.aliases, r.alias_rows);
    assert_eq!(imported.unreadable, 0);
    assert_eq!(std::fs::read(&qbk).unwrap(), std::fs::read(&back).unwrap());
}

/// `import` coerces nothing silently: negative and `NULL` counts are skipped and counted, counts
/// of 2^32 or more saturate (counted), a `qiku_book` header copied from another book is not
/// trusted, and an `.obk` without a usable row is an error that writes nothing.
#[test]
fn import_reports_bad_counts_saturates_and_distrusts_a_foreign_header() {
    use rusqlite::types::Value;
    let dir = tempfile::tempdir().unwrap();
    let start = Position::startpos();
    let mv = |s: &str| i64::from(encode_move(iccs::parse(&start, s).unwrap()));
    let key = bhgui_key(&start) as i64;
    let path = dir.path().join("odd.obk");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER, vscore INTEGER,
         vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo BLOB, vindex INTEGER);",
    )
    .unwrap();
    let rows: [(&str, Value, Value, Value); 4] = [
        ("h2e2", Value::Integer(5_000_000_000), Value::Integer(1), Value::Integer(2)), // saturates
        ("c3c4", Value::Integer(-3), Value::Integer(1), Value::Integer(1)),            // negative
        ("h0g2", Value::Integer(1), Value::Null, Value::Integer(1)),                   // NULL
        ("b0c2", Value::Integer(2), Value::Integer(0), Value::Integer(0)),             // fine
    ];
    for (m, w, d, l) in &rows {
        conn.execute(
            "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid) VALUES (?1, ?2, 0, ?3, ?4, ?5, 1)",
            rusqlite::params![key, mv(m), w, d, l],
        )
        .unwrap();
    }
    // A header copied from another book's export.
    let other = sample_book(dir.path());
    let header = Book::open(&other).unwrap().header().encode().to_vec();
    conn.execute_batch("CREATE TABLE qiku_book(header BLOB);").unwrap();
    conn.execute("INSERT INTO qiku_book(header) VALUES (?1)", [header]).unwrap();
    drop(conn);

    let out = dir.path().join("odd.qbk");
    let r = obk::import(&path, &out).unwrap();
    assert_eq!((r.rows, r.used, r.bad_counts, r.saturated, r.unreadable), (4, 2, 2, 1, 0));
    assert!(r.header_ignored);
    let book = Book::open(&out).unwrap();
    let moves = book.probe(&start).unwrap();
    let got: Vec<(String, u32, u32, u32)> =
        moves.iter().map(|m| (m.mv.to_string(), m.counts.wins, m.counts.draws, m.counts.losses)).collect();
    // b0c2 is stored as its mirror image h0g2 (the start position is symmetric).
    assert_eq!(got, [("h2e2".to_string(), u32::MAX, 1, 2), ("h0g2".to_string(), 2, 0, 0)]);
    // The game counts are the rows' own (estimated from the start position), not the other
    // book's 2,000 games.
    assert_eq!(book.header().games.used, u64::from(u32::MAX) + 3 + 2);
    assert_eq!(book.header().params.max_ply, 1);

    // Nothing usable: an error naming the file, and no book written.
    let empty = dir.path().join("nothing.obk");
    handmade(&empty, &[(Value::Integer(12345), mv("h2e2"), 1, 0, 0, 1)]);
    let none = dir.path().join("nothing.qbk");
    let e = obk::import(&empty, &none).unwrap_err();
    assert!(matches!(e, obk::ObkError::NoUsableRow { rows: 1, .. }), "{e}");
    assert!(e.to_string().contains("nothing.obk") && e.to_string().contains("no usable book move"), "{e}");
    assert!(!none.exists());
}

/// A `.qbk` given to `import` is named as what it is, not "file is not a database".
#[test]
fn import_names_a_qiku_book() {
    let dir = tempfile::tempdir().unwrap();
    let qbk = sample_book(dir.path());
    let err = obk::import(&qbk, &dir.path().join("out.qbk")).unwrap_err().to_string();
    assert!(err.contains("it is a qiku book (.qbk), which qiku-book probe, merge and export read as it is"), "{err}");
    assert!(!dir.path().join("out.qbk").exists());
}

/// qiku's memo of games without a result (`qiku:unknown=N`) is read as a count like the others:
/// one of 2^32 or more saturates and is counted, one that is no whole number skips its row and
/// is counted (it used to be read as 0 games without a result, silently); a GUI's own memo is
/// no count.
#[test]
fn import_reports_memos_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let start = Position::startpos();
    let mv = |s: &str| i64::from(encode_move(iccs::parse(&start, s).unwrap()));
    let key = bhgui_key(&start) as i64;
    let path = dir.path().join("memos.obk");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE bhobk(id INTEGER PRIMARY KEY AUTOINCREMENT, vkey INTEGER, vmove INTEGER, vscore INTEGER,
         vwin INTEGER, vdraw INTEGER, vlost INTEGER, vvalid INTEGER, vmemo TEXT, vindex INTEGER);",
    )
    .unwrap();
    let rows = [
        ("h2e2", "qiku:unknown=99999999999"), // saturates
        ("c3c4", "qiku:unknown=lots"),        // no count: skipped
        ("h0g2", "qiku:unknown=-4"),          // no count: skipped
        ("b0c2", "qiku:unknown=3"),           // 3 games without a result
        ("g3g4", "a good move"),              // a GUI's comment: no games without a result
    ];
    for (m, memo) in rows {
        conn.execute(
            "INSERT INTO bhobk(vkey, vmove, vscore, vwin, vdraw, vlost, vvalid, vmemo)
             VALUES (?1, ?2, 0, 1, 0, 0, 1, ?3)",
            rusqlite::params![key, mv(m), memo],
        )
        .unwrap();
    }
    drop(conn);
    let out = dir.path().join("memos.qbk");
    let r = obk::import(&path, &out).unwrap();
    assert_eq!((r.rows, r.used, r.bad_memos, r.saturated, r.unreadable), (5, 3, 2, 1, 0));
    let moves = Book::open(&out).unwrap().probe(&start).unwrap();
    let unknown: Vec<(String, u32)> = moves.iter().map(|m| (m.mv.to_string(), m.counts.unknown)).collect();
    // b0c2 is stored as its mirror image h0g2 (the start position is symmetric).
    assert_eq!(unknown, [("h2e2".to_string(), u32::MAX), ("h0g2".to_string(), 3), ("g3g4".to_string(), 0)]);
}

/// Importing an `.obk` in WAL mode writes nothing beside it (SQLite used to make `-wal` and `-shm`
/// files there, and failed in a read-only directory); changes still in a `-wal` file (a GUI has
/// the book open) are read, from a copy beside the output.
#[test]
fn import_writes_nothing_beside_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let qbk = sample_book(dir.path());
    let gui = dir.path().join("gui");
    std::fs::create_dir(&gui).unwrap();
    let obk_path = gui.join("wal.obk");
    obk::export(&Book::open(&qbk).unwrap(), &obk_path).unwrap();
    Connection::open(&obk_path).unwrap().query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).unwrap();
    let listing = |d: &Path| {
        let mut names: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    assert_eq!(listing(&gui), ["wal.obk"]);
    let back = dir.path().join("back.qbk");
    obk::import(&obk_path, &back).unwrap();
    assert_eq!(listing(&gui), ["wal.obk"], "files written beside the input");
    assert_eq!(std::fs::read(&qbk).unwrap(), std::fs::read(&back).unwrap());

    // A writer holds the book open with changes in its -wal file: the import sees them.
    let writer = Connection::open(&obk_path).unwrap();
    let delete = "DELETE FROM bhobk WHERE id IN (SELECT id FROM bhobk ORDER BY id DESC LIMIT 100);";
    writer.execute_batch(&format!("PRAGMA wal_autocheckpoint = 0; {delete}")).unwrap();
    let before = listing(&gui);
    assert!(before.contains(&"wal.obk-wal".to_string()), "{before:?}");
    let changed = dir.path().join("changed.qbk");
    let r = obk::import(&obk_path, &changed).unwrap();
    let rows: i64 = writer.query_row("SELECT count(*) FROM bhobk", [], |r| r.get(0)).unwrap();
    assert_eq!(i64::try_from(r.rows), Ok(rows));
    assert!(std::fs::read(&qbk).unwrap() != std::fs::read(&changed).unwrap());
    assert_eq!(listing(&gui), before);
    drop(writer);
    let left: Vec<String> = listing(dir.path()).into_iter().filter(|n| n.starts_with('.')).collect();
    assert!(left.is_empty(), "{left:?}");
}
