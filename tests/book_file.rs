//! The `.qbk` file: truncated, corrupted and foreign files are refused with an error (never a
//! panic), and the byte layout matches docs/FORMAT.md.

use crate::book_util;
use crate::seal::{put, Value};

use book_util::{generate_games, positions_of, write_pgn};
use qiku::book::format::{Checksum, HEADER_LEN, RECORD_LEN};
use qiku::book::{self, Book, BookError, BuildOptions, Verify};
use qiku::core::zobrist;
use std::path::PathBuf;

fn small_book(dir: &std::path::Path, games: usize) -> (PathBuf, Vec<u8>, Vec<book_util::TestGame>) {
    let games = generate_games(9, games);
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, write_pgn(&games)).unwrap();
    let out = dir.join("g.qbk");
    book::build(&[pgn], &out, &BuildOptions::default()).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    (out, bytes, games)
}

/// Rewrites the header checksum after a deliberate header edit.
fn reseal(bytes: &mut [u8]) {
    let c = Checksum::of(&bytes[..120]);
    bytes[120..128].copy_from_slice(&c.to_le_bytes());
}

#[test]
fn layout_matches_the_documentation() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes, _) = small_book(dir.path(), 40);
    let book = Book::from_bytes(bytes.clone(), "g.qbk").unwrap();
    let h = *book.header();
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    assert_eq!(&bytes[0..8], b"QIKUBOOK");
    // Version 2: the default build keeps recent games (tests/book_recent.rs checks the section).
    assert_eq!((u32_at(8), u32_at(12), u32_at(24)), (2, 128, 26));
    assert_eq!(u64_at(16), zobrist::FINGERPRINT);
    assert_eq!(u32_at(28), h.index_bits);
    assert_eq!((u64_at(32), u64_at(40), u64_at(48)), (h.records, h.positions, h.moves));
    assert_eq!((u64_at(56), u64_at(64), u64_at(72)), (40, 40, h.games.without_result));
    assert_eq!((u32_at(80), u32_at(84), u32_at(88), u32_at(92)), (40, 0, 0, 0));
    assert_eq!(&bytes[96..100], &[0u8; 4]);
    assert_eq!((u32_at(100), u64_at(104)), (5, h.section_len));
    assert_eq!(u64_at(112), Checksum::of(&bytes[128..]));
    assert_eq!(u64_at(120), Checksum::of(&bytes[..120]));
    let n = h.records as usize;
    let section = HEADER_LEN + n * RECORD_LEN + ((1 << h.index_bits) + 1) * 8;
    assert_eq!(bytes.len(), section + h.section_len as usize);
    assert_eq!(&bytes[section..section + 8], b"QBKGAMES");
    // Records: key, move, wins, draws, losses, unknown; sorted by (key, move).
    let mut prev = (0u64, 0u16);
    for (i, e) in book.entries().enumerate() {
        let r = &bytes[HEADER_LEN + i * RECORD_LEN..][..RECORD_LEN];
        assert_eq!(u64::from_le_bytes(r[0..8].try_into().unwrap()), e.key);
        assert_eq!(u16::from_le_bytes(r[8..10].try_into().unwrap()), e.mv.to_u16());
        assert_eq!(u32::from_le_bytes(r[22..26].try_into().unwrap()), e.counts.unknown);
        assert!(i == 0 || (e.key, e.mv.to_u16()) > prev);
        prev = (e.key, e.mv.to_u16());
    }
    // Index: entry b = first record whose key's top bits are >= b.
    let idx = HEADER_LEN + n * RECORD_LEN;
    for b in 0..=(1usize << h.index_bits) {
        let at = u64::from_le_bytes(bytes[idx + 8 * b..][..8].try_into().unwrap()) as usize;
        let below =
            book.entries().filter(|e| h.index_bits > 0 && ((e.key >> (64 - h.index_bits)) as usize) < b).count();
        assert_eq!(
            at,
            if b == 0 {
                0
            } else if h.index_bits == 0 {
                n
            } else {
                below
            }
        );
    }
}

#[test]
fn truncated_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes, _) = small_book(dir.path(), 30);
    for len in 0..bytes.len() {
        match Book::from_bytes(bytes[..len].to_vec(), "cut.qbk") {
            Err(BookError::Truncated { .. }) => assert!(len >= 8),
            Err(BookError::NotABook { .. }) => assert!(len < 8),
            Err(e) => panic!("length {len}: unexpected {e}"),
            Ok(_) => panic!("length {len} accepted"),
        }
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Book::from_bytes(longer, "long.qbk"), Err(BookError::Corrupt { .. })));
    // Through a real file and the memory map too.
    let cut = dir.path().join("cut.qbk");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let err = Book::open(&cut).unwrap_err();
    assert!(err.to_string().contains("cut.qbk") && err.to_string().contains("truncated"), "{err}");
    // With what to do about it.
    assert!(err.to_string().ends_with("(cut short: copy it again, or build it again with `qiku-book build`)"), "{err}");
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 0xff;
    let err = Book::from_bytes(damaged, "damaged.qbk").unwrap_err().to_string();
    assert!(err.starts_with("damaged.qbk: corrupt book: "), "{err}");
    assert!(err.ends_with("(damaged: copy it again, or build it again with `qiku-book build`)"), "{err}");
    std::fs::write(&cut, b"").unwrap();
    assert!(matches!(Book::open(&cut), Err(BookError::NotABook { .. })));
}

#[test]
fn every_corrupted_byte_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes, games) = small_book(dir.path(), 12);
    assert!(Book::open_with(&path, Verify::Structure).is_ok());
    assert!(bytes.len() < 20_000);
    let positions: Vec<_> = positions_of(&games, 44).into_iter().step_by(10).collect();
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80] {
            let mut bad = bytes.clone();
            bad[i] ^= flip;
            assert!(Book::from_bytes(bad.clone(), "bad.qbk").is_err(), "flip {flip:#x} at byte {i} not detected");
            // Without the body check the book may open, but probing must stay safe and legal.
            if let Ok(book) = Book::from_bytes_with(bad, "bad.qbk", Verify::Structure) {
                for pos in &positions {
                    // A damaged bucket is an error; what is answered is legal.
                    for m in book.probe(pos).unwrap_or_default() {
                        assert!(pos.is_legal(m.mv));
                    }
                }
                let _ = book.entries().count();
            }
        }
    }
}

#[test]
fn foreign_books_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes, _) = small_book(dir.path(), 10);

    let mut other_keys = bytes.clone();
    other_keys[16..24].copy_from_slice(&0x0123_4567_89ab_cdefu64.to_le_bytes());
    reseal(&mut other_keys);
    let err = Book::from_bytes(other_keys, "keys.qbk").unwrap_err();
    assert!(matches!(err, BookError::Fingerprint { found: 0x0123_4567_89ab_cdef, .. }));
    assert!(err.to_string().contains("Zobrist"), "{err}");

    let mut v3 = bytes.clone();
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let err = Book::from_bytes(v3, "v3.qbk").unwrap_err();
    assert!(matches!(err, BookError::Version { found: 3, .. }));
    assert!(err.to_string().contains("version 3"), "{err}");

    let err = Book::from_bytes(b"[Event \"not a book\"]\n".to_vec(), "x.pgn").unwrap_err();
    assert!(matches!(err, BookError::NotABook { .. }), "{err}");

    // The merge command refuses them as well.
    let good = dir.path().join("good.qbk");
    std::fs::write(&good, &bytes).unwrap();
    let mut foreign = bytes.clone();
    foreign[16] ^= 0xff;
    reseal(&mut foreign);
    let bad = dir.path().join("foreign.qbk");
    std::fs::write(&bad, &foreign).unwrap();
    let err = book::merge_books(&[good, bad], &dir.path().join("m.qbk"), 0, book::MinScore::NONE).unwrap_err();
    assert!(matches!(err, BookError::Fingerprint { .. }), "{err}");
    assert!(!dir.path().join("m.qbk").exists());
}

#[test]
fn empty_book() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("empty.pgn");
    std::fs::write(&pgn, "").unwrap();
    let out = dir.path().join("empty.qbk");
    let report = book::build(&[pgn], &out, &BuildOptions::default()).unwrap();
    assert_eq!(report.header.games.read, 0);
    // A build that keeps no move writes nothing (a book already there would stay as it was).
    assert!(!report.written && !out.exists());
    // A book without records, written as the format allows, reads as empty.
    let writer = book::format::BookWriter::create(&out).unwrap();
    writer.finish(Default::default(), Default::default()).unwrap();
    let book = Book::open(&out).unwrap();
    assert!(book.is_empty());
    assert!(book.probe(&qiku::Position::startpos()).expect("book readable").is_empty());
}

/// Header fields a crafted book may change (offset, width; docs/FORMAT.md), the checksums
/// excepted.
const HEADER_FIELDS: &[(usize, usize)] = &[
    (8, 4),
    (12, 4),
    (24, 4),
    (28, 4),
    (32, 8),
    (40, 8),
    (48, 8),
    (56, 8),
    (64, 8),
    (72, 8),
    (80, 4),
    (84, 4),
    (88, 4),
    (92, 4),
    (96, 1),
    (97, 1),
    (98, 2),
    (100, 4),
    (104, 8),
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Header fields and body bytes changed and both checksums made valid again, so that the
    /// reader's own checks (not its checksums) must refuse what does not hold: a crafted book
    /// opens (fully verified or structure only) or is refused, and what it answers is legal.
    #[test]
    fn crafted_books_with_valid_checksums_answer_only_legal_moves(
        fields in proptest::collection::vec((0..HEADER_FIELDS.len(), Value::any()), 0..3),
        body in proptest::collection::vec((proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()), 0..3),
    ) {
        let (bytes, positions) = crafted_book_base();
        let mut b = bytes.clone();
        for &(f, value) in &fields {
            let (at, width) = HEADER_FIELDS[f];
            put(&mut b, at, width, value);
        }
        for &(at, byte) in &body {
            let i = HEADER_LEN + at % (b.len() - HEADER_LEN);
            b[i] = byte;
        }
        let sum = Checksum::of(&b[HEADER_LEN..]);
        b[112..120].copy_from_slice(&sum.to_le_bytes());
        reseal(&mut b);
        for verify in [Verify::Full, Verify::Structure] {
            let Ok(book) = Book::from_bytes_with(b.clone(), "crafted.qbk", verify) else { continue };
            for pos in positions {
                for m in book.probe(pos).unwrap_or_default() {
                    proptest::prop_assert!(pos.is_legal(m.mv), "book move {} in {}", m.mv, pos.fen());
                }
                for g in book.recent_games(pos).unwrap_or_default() {
                    let mut p = g.start.clone();
                    for &m in &g.moves {
                        p = p.play(m).map_err(|e| proptest::test_runner::TestCaseError::fail(e.to_string()))?;
                    }
                }
            }
            let _ = book.entries().take(100_000).count();
        }
    }
}

/// The real book the crafted ones start from, and positions to probe in them.
fn crafted_book_base() -> &'static (Vec<u8>, Vec<qiku::Position>) {
    static BASE: std::sync::OnceLock<(Vec<u8>, Vec<qiku::Position>)> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes, games) = small_book(dir.path(), 40);
        let positions: Vec<_> = positions_of(&games, 44).into_iter().step_by(7).collect();
        assert!(Book::from_bytes(bytes.clone(), "base.qbk").is_ok() && positions.len() > 50);
        (bytes, positions)
    })
}
