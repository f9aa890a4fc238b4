//! XQF reading: the sample files (from the Python cchess project, see tests/data/xqf/README.md)
//! against cchess's own reading of them, legal replay, and books built from XQF equal to books
//! built from the same games as PGN.

use qiku::book::{self, BuildOptions, SkipReason};
use qiku::xqf;
use qiku::Position;
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xqf")
}

/// (file, start FEN board+side, result, moves) as cchess reads them.
fn cchess_lines() -> Vec<(String, String, String, Vec<String>)> {
    let text = std::fs::read_to_string(data().join("cchess-mainlines.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string(), f[3].split_whitespace().map(String::from).collect())
        })
        .collect()
}

#[test]
fn every_sample_reads_as_cchess_reads_it_and_replays_legally() {
    let lines = cchess_lines();
    assert_eq!(lines.len(), 21);
    let mut versions = std::collections::BTreeSet::new();
    for (file, fen, result, moves) in &lines {
        let game = xqf::read(data().join(file)).unwrap_or_else(|e| panic!("{e}"));
        versions.insert(game.version);
        let ours: Vec<String> = game.start.fen().split_whitespace().take(2).map(String::from).collect();
        assert_eq!(ours.join(" "), *fen, "{file}: start position");
        assert_eq!(game.result.map_or("*", |r| r.as_str()), result, "{file}: result");
        let played: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
        // Replay: every move must be legal, except in the files made to test bad moves.
        let mut pos = game.start.clone();
        let mut legal = 0;
        for m in &game.moves {
            match pos.play(*m) {
                Ok(next) => {
                    pos = next;
                    legal += 1;
                }
                Err(_) => break,
            }
        }
        if file == "BadMoveTest3.xqf" {
            // Its 10th main-line move is illegal; cchess drops it, up to it both agree.
            assert_eq!((legal, game.moves.len()), (9, 10), "{file}");
            assert_eq!(played[..legal], moves[..], "{file}: moves before the bad one");
        } else {
            assert_eq!(legal, game.moves.len(), "{file}: move {} is illegal", legal + 1);
            assert_eq!(played, *moves, "{file}: main line");
        }
    }
    // Unencrypted 1.0, and encrypted 1.2 (the first with rotated piece slots), 1.6 and 1.8.
    assert_eq!(versions.into_iter().collect::<Vec<_>>(), vec![10, 12, 16, 18]);
}

fn good_files() -> Vec<PathBuf> {
    cchess_lines().into_iter().filter(|l| !l.0.starts_with("BadMoveTest")).map(|l| data().join(l.0)).collect()
}

/// Without recent games: those keep the tags as written, and the XQF files' titles and names are
/// not the PGN file's (the records are what must agree).
fn build(inputs: &[PathBuf], out: &Path) -> book::BuildReport {
    let opts = BuildOptions { threads: Some(1), recent_games: 0, ..BuildOptions::default() };
    book::build(inputs, out, &opts).unwrap()
}

#[test]
fn a_book_from_xqf_equals_the_book_from_the_same_games_in_pgn() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("xqf.qbk"), dir.path().join("pgn.qbk"));
    let from_xqf = build(&good_files(), &a);
    let from_pgn = build(&[data().join("cchess-mainlines.pgn")], &b);
    assert_eq!(from_xqf.header.games.read, 17);
    assert_eq!(from_xqf.errors_total, 0, "{:?}", from_xqf.errors);
    assert_eq!(from_pgn.errors_total, 0, "{:?}", from_pgn.errors);
    assert!(from_xqf.header.records > 250, "{:?}", from_xqf.header);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Some games start from set-up positions and some have no moves: both are handled alike.
    assert_eq!(from_xqf.skipped.get(&SkipReason::NoMoves), from_pgn.skipped.get(&SkipReason::NoMoves));
}

#[test]
fn a_directory_of_xqf_files_builds_and_bad_moves_are_reported_by_file_and_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all.qbk");
    let report = build(&[data()], &out);
    // The directory also holds the PGN made from the same games: 21 XQF files + 17 PGN games.
    assert_eq!(report.header.games.read, 21 + 17);
    assert_eq!(report.errors_total, 1, "{:?}", report.errors);
    assert!(report.errors[0].file.ends_with("BadMoveTest3.xqf"), "{}", report.errors[0]);
    for e in &report.errors {
        assert_eq!(e.game, 1);
        assert_eq!(e.reason, SkipReason::BadMove(qiku::book::MoveErrorKind::NoSuchPiece), "{e}");
        assert_eq!(e.token.as_deref(), Some("e1f0"), "{e}");
        assert!(e.token.is_some(), "{e}");
        assert!(e.to_string().contains("BadMoveTest"), "{e}");
    }
}

#[test]
fn damaged_files_are_errors_that_say_why() {
    let bytes = std::fs::read(data().join("UnitTest.xqf")).unwrap();
    assert!(xqf::parse(&bytes[..500]).unwrap_err().contains("shorter than the 1024-byte header"));
    let mut wrong = bytes.clone();
    wrong[0] = b'Y';
    assert!(xqf::parse(&wrong).unwrap_err().contains("XQ signature"));
    let mut version = bytes.clone();
    version[2] = 42;
    assert!(xqf::parse(&version).unwrap_err().contains("version"));
    // Cut inside the move records: an error, never a panic, at any length.
    for len in 1024..bytes.len() {
        let _ = xqf::parse(&bytes[..len]);
    }
    // And as a build input: the file is named in the report, the build goes on.
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.xqf");
    std::fs::write(&cut, &bytes[..600]).unwrap();
    let report = build(&[cut, data().join("UnitTest.xqf")], &dir.path().join("b.qbk"));
    let err = report.files[0].error.as_deref().unwrap();
    assert!(report.files[0].path.ends_with("cut.xqf") && err.contains("1024-byte header"), "{err}");
    assert!(!err.contains("cut.xqf"), "the file is named once, by the report: {err}");
    assert_eq!(report.header.games.used, 1);
    assert!(xqf::read(dir.path().join("missing.xqf")).unwrap_err().to_string().contains("missing.xqf"));
}

/// A file cut inside its moves gives its moves before the cut as a game cut short, as a PGN file
/// cut mid-game does: skipped and counted, or with `--keep-prefix` kept, move for move the start
/// of the whole game (it was "unreadable from the start", its moves lost under `--keep-prefix`).
#[test]
fn a_file_cut_in_its_moves_is_a_game_cut_short() {
    let path = data().join("030-huang-songxuan-vs-feng-jingru.XQF");
    let bytes = std::fs::read(&path).unwrap();
    let whole = xqf::read(&path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.xqf");
    let mut kept_lengths = Vec::new();
    for len in (1200..bytes.len()).step_by(37) {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        // Strict reading refuses it, saying where it is cut (a cut in what follows the last
        // move's record loses nothing: the game is whole).
        let Err(why) = xqf::parse(&bytes[..len]) else { continue };
        assert!(why.contains("cut off") || why.contains("past the end of the file"), "{len}: {why}");
        let skipped = build(std::slice::from_ref(&cut), &dir.path().join("s.qbk"));
        assert_eq!(skipped.skipped.get(&SkipReason::CutShort), Some(&1), "{len}");
        assert!(skipped.files[0].error.as_deref().is_some_and(|e| e.contains("XQF file cut short")), "{len}");
        let opts = BuildOptions {
            threads: Some(1),
            recent_games: 0,
            params: book::BuildParams { keep_prefix: true, ..book::BuildParams::default() },
            ..BuildOptions::default()
        };
        let out = dir.path().join("k.qbk");
        let kept = book::build(std::slice::from_ref(&cut), &out, &opts).unwrap();
        assert_eq!(kept.header.games.used, 1, "{len}");
        let n = kept.header.moves as usize;
        assert!(n < whole.moves.len(), "{len}: {n}");
        // The book's line is the game's first n moves.
        let book = book::Book::open(&out).unwrap();
        let mut pos = whole.start.clone();
        for &m in &whole.moves[..n] {
            assert_eq!(book.probe(&pos).unwrap().iter().map(|b| b.mv).collect::<Vec<_>>(), vec![m], "{len}");
            pos = pos.play(m).unwrap();
        }
        kept_lengths.push(n);
    }
    assert!(kept_lengths.len() > 3, "{kept_lengths:?}");
    assert!(kept_lengths.windows(2).all(|w| w[0] <= w[1]) && kept_lengths.last() > kept_lengths.first());
}

#[test]
fn control_characters_in_header_texts_do_not_cost_the_game() {
    // A header text is a length byte and GB18030 bytes; a NUL inside the length (padding or
    // junk) ends it, and other control characters become spaces: as PGN tags they would make
    // the reader refuse the whole game, and the book would lose it.
    let mut bytes = std::fs::read(data().join("UnitTest.xqf")).unwrap();
    let date = b"2024.01.02\0\x01junk";
    bytes[272] = date.len() as u8;
    bytes[273..273 + date.len()].copy_from_slice(date);
    let site = b"Bei\x07jing\x1b";
    bytes[288] = site.len() as u8;
    bytes[289..289 + site.len()].copy_from_slice(site);
    let game = xqf::parse(&bytes).unwrap();
    let tag = |n: &str| game.tags.iter().find(|t| t.0 == n).map(|t| t.1.clone());
    assert_eq!(tag("Date").as_deref(), Some("2024.01.02"));
    assert_eq!(tag("Site").as_deref(), Some("Bei jing"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("texts.xqf");
    std::fs::write(&file, &bytes).unwrap();
    let report = build(&[file], &dir.path().join("b.qbk"));
    assert_eq!((report.header.games.read, report.header.games.used), (1, 1));
}

#[test]
fn damaged_bytes_anywhere_give_errors_or_games_never_panics() {
    // Deterministic byte flips over every sample: each result is an error or a game whose start
    // position is a legal one (the decoder validates it).
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (file, ..) in cchess_lines() {
        let bytes = std::fs::read(data().join(&file)).unwrap();
        for _ in 0..200 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() % b.len() as u64) as usize;
                b[i] = next() as u8;
            }
            if let Ok(game) = xqf::parse(&b) {
                assert!(Position::from_fen(&game.start.fen()).is_ok(), "{file}");
                let _ = game.to_pgn();
            }
        }
    }
}

/// docs/FORMAT.md's description of the header's 32 piece squares (the key `XY`, the squares
/// stored minus it, and from version 1.2 the rotated slots), followed here on its own and with
/// nothing of `src/xqf.rs`, gives every sample's start position as cchess reads it.
#[test]
fn format_md_describes_the_piece_squares_as_the_files_hold_them() {
    // FORMAT.md: s(b, m) = (((((b*b*3 + 9)*3 + 8)*2 + 1)*3 + 8) * m) mod 256.
    let s = |b: u32, m: u32| (((((b * b * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * m) % 256;
    // Slots per side: rook, horse, elephant, advisor, king, advisor, elephant, horse, rook,
    // cannon, cannon, five pawns; red then black.
    let kinds = "RNBAKABNRCCPPPPP";
    let mut checked = 0;
    for (file, fen, _, _) in cchess_lines() {
        let b = std::fs::read(data().join(&file)).unwrap();
        let version = b[2];
        let xy = if version > 10 { s(u32::from(b[13]), u32::from(b[13])) } else { 0 };
        let mut board = [['.'; 9]; 10];
        for i in 0..32u32 {
            let stored = u32::from(b[16 + i as usize]);
            let square = (stored + 256 - xy) % 256;
            let slot = if version >= 12 { (xy + i + 1) % 32 } else { i };
            if square > 89 {
                continue; // captured
            }
            let kind = kinds.as_bytes()[(slot % 16) as usize] as char;
            let piece = if slot < 16 { kind } else { kind.to_ascii_lowercase() };
            let (x, y) = ((square / 10) as usize, (square % 10) as usize);
            board[y][x] = piece;
        }
        let rows: Vec<String> = (0..10)
            .rev()
            .map(|y| {
                let mut row = String::new();
                let mut empty = 0;
                for c in board[y] {
                    if c == '.' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(c);
                    }
                }
                if empty > 0 {
                    row.push_str(&empty.to_string());
                }
                row
            })
            .collect();
        let expected = fen.split_whitespace().next().unwrap();
        assert_eq!(rows.join("/"), expected, "{file} (version {version})");
        checked += 1;
    }
    assert_eq!(checked, 21);
}

/// A file longer than any XQF file (a valid header, then a sparse gigabyte) is refused before it
/// is read, with its name, its size and the limit: it used to be read whole, gigabytes of memory.
/// Read from a stream without a length, no more than the limit is read.
#[test]
fn a_file_too_long_for_xqf_is_refused_unread_with_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.xqf");
    std::fs::write(&big, std::fs::read(data().join("UnitTest.xqf")).unwrap()).unwrap();
    let len = 1u64 << 30;
    std::fs::OpenOptions::new().write(true).open(&big).unwrap().set_len(len).unwrap();
    let limit = format!("more than the 16 MiB ({} bytes) an XQF file may have", xqf::MAX_FILE_LEN);
    let started = std::time::Instant::now();
    let err = xqf::read(&big).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: not a readable XQF file: {len} bytes, ", big.display())), "{err}");
    assert!(err.contains(&limit), "{err}");
    // As a build input: reported with the file, and the build goes on.
    let report = build(&[big.clone(), data().join("UnitTest.xqf")], &dir.path().join("b.qbk"));
    let e = report.files[0].error.as_deref().unwrap();
    assert!(report.files[0].path.ends_with("big.xqf") && e.contains(&format!("{len} bytes")) && e.contains(&limit));
    assert_eq!(report.header.games.used, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "read, not refused: {:?}", started.elapsed());
    // Exactly at the limit it is read (and is no XQF game: its records end in zeros).
    let at_limit = dir.path().join("limit.xqf");
    std::fs::copy(data().join("UnitTest.xqf"), &at_limit).unwrap();
    std::fs::OpenOptions::new().write(true).open(&at_limit).unwrap().set_len(xqf::MAX_FILE_LEN).unwrap();
    assert!(!xqf::read(&at_limit).map_or_else(|e| e.to_string(), |_| String::new()).contains("16 MiB"));
    // An endless stream: refused after the limit.
    let endless = std::io::repeat(0);
    let Err(e) = xqf::open_as_pgn(endless, Path::new("endless.xqf")) else { panic!("an endless stream was read") };
    let e = e.to_string();
    assert!(e.contains(&format!("more than {} bytes, {limit}", xqf::MAX_FILE_LEN)), "{e}");
}

/// A FIFO named `.xqf` is refused at once: `xqf::read` (which the Python bindings call) used to
/// wait forever for a writer. If it waits, the test opens the FIFO's other end to let it go and
/// fails.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.xqf");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // Safety: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.clone();
    let reader = std::thread::spawn(move || tx.send(xqf::read(&path).map(|_| ()).unwrap_err().to_string()));
    let err = match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(err) => err,
        Err(_) => {
            // A writer that closes at once: the reader sees the end of the file and returns.
            drop(std::fs::OpenOptions::new().write(true).open(&fifo));
            reader.join().unwrap().unwrap();
            panic!("xqf::read waited on a FIFO");
        }
    };
    reader.join().unwrap().unwrap();
    assert!(err.starts_with(&format!("{}: cannot read: ", fifo.display())) && err.contains("FIFO"), "{err}");
}
