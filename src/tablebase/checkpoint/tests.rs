//! The state file: round trips, and refusals of damaged, foreign and doctored files (a doctored
//! file has its checksum recomputed, as anyone can).

use super::*;
use crate::tablebase::solve::WAITING_ENTRY_BITS;
use crate::util::progress::RecordedLines;
use proptest::prelude::*;
use std::io::{Read, Write};

/// A table of 3 chunks whose far levels start at 240.
const SHAPE: Shape = Shape {
    entries: 20_000,
    chunk: 8192,
    far_level: 240,
    max_pending_win: 253,
    waiting_entry_bits: WAITING_ENTRY_BITS,
};

/// A state keeping every invariant of [`SHAPE`], with something in each list.
fn valid() -> Saved {
    Saved {
        level: 242,
        horizon: 250,
        later: vec![245 << WAITING_ENTRY_BITS | 1, 250 << WAITING_ENTRY_BITS | 19_999],
        far_levels: vec![(240, vec![5, 6]), (241, vec![])],
        far_frontier: vec![8, 9],
        cur: vec![0, 1, 0],
        pending: vec![0, 0, 0, 0, 1 << 1, 0, 1 << (249 - 192), 0, 0, 0, 0, 0],
    }
}

#[test]
fn a_checkpoint_round_trips_and_refuses_another_solve() {
    let dir = tempfile::tempdir().unwrap();
    let saved = valid();
    let mut array = tempfile::tempfile().unwrap();
    array.write_all(b"the values").unwrap();
    let mut c = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
    c.save(&saved, &[("values", &array)]).unwrap();
    // A second save replaces the first generation's files.
    c.save(&saved, &[("values", &array)]).unwrap();
    let mut names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["KRvK.state", "KRvK.values.2"]);
    let mut into = tempfile::tempfile().unwrap();
    into.set_len(10).unwrap();
    let lines = RecordedLines::default();
    let mut again = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
    assert_eq!(again.load(&SHAPE, &[("values", &into)], &lines).unwrap().as_ref(), Some(&saved));
    assert!(lines.0.lock().unwrap().is_empty());
    let mut text = String::new();
    into.seek(SeekFrom::Start(0)).unwrap();
    into.read_to_string(&mut text).unwrap();
    assert_eq!(text, "the values");
    // An array file missing: not used, said, and removed.
    std::fs::remove_file(dir.path().join("KRvK.values.2")).unwrap();
    let mut lost = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
    assert_eq!(lost.load(&SHAPE, &[("values", &into)], &lines).unwrap(), None);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let said = lines.0.lock().unwrap().split_off(0);
    assert_eq!(said.len(), 1, "{said:?}");
    let path = dir.path().join("KRvK.values.2");
    let refused = format!("KRvK: checkpoint file {} refused: it cannot be read (", path.display());
    assert!(said[0].starts_with(&refused), "{said:?}");
    assert!(said[0].ends_with("); starting this table over"), "{said:?}");
    // An array file of another length: the same.
    c.save(&saved, &[("values", &array)]).unwrap();
    std::fs::write(dir.path().join("KRvK.values.3"), b"the value").unwrap();
    let mut short = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
    assert_eq!(short.load(&SHAPE, &[("values", &into)], &lines).unwrap(), None);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let path = dir.path().join("KRvK.values.3");
    let want = format!(
        "KRvK: checkpoint file {} refused: 9 bytes where the table's array has 10; starting this table over",
        path.display()
    );
    assert_eq!(lines.0.lock().unwrap().split_off(0), [want]);
    // Other inputs: the checkpoint is not used, and is removed.
    c.save(&saved, &[("values", &array)]).unwrap();
    let mut other = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[2]), Duration::ZERO);
    assert_eq!(other.load(&SHAPE, &[("values", &into)], &lines).unwrap(), None);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let said = lines.0.lock().unwrap().split_off(0);
    assert!(said.len() == 1 && said[0].contains("made by another version of the program"), "{said:?}");
}

#[test]
fn damaged_state_files_are_refused() {
    let saved = valid();
    let bytes = encode(42, 1, &saved);
    assert_eq!(decode(&bytes, 42, &SHAPE), Ok((1, saved)));
    assert_eq!(decode(&bytes, 43, &SHAPE), Err(Refused::OtherSolve));
    assert_eq!(decode(&bytes[..7], 42, &SHAPE), Err(Refused::Short));
    assert_eq!(decode(&bytes[..8], 42, &SHAPE), Err(Refused::Magic));
    for cut in [20, bytes.len() - 1] {
        assert_eq!(decode(&bytes[..cut], 42, &SHAPE), Err(Refused::Checksum), "{cut}");
    }
    let mut flipped = bytes.clone();
    flipped[30] ^= 1;
    assert_eq!(decode(&flipped, 42, &SHAPE), Err(Refused::Checksum));
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(decode(&magic, 42, &SHAPE), Err(Refused::Magic));
    // Cut short or lengthened, with the checksum made again.
    let body = &bytes[..bytes.len() - 8];
    let sealed = |body: &[u8]| {
        let mut v = body.to_vec();
        v.extend_from_slice(&fnv1a(FNV_OFFSET, body).to_le_bytes());
        v
    };
    assert_eq!(decode(&sealed(&body[..body.len() - 8]), 42, &SHAPE), Err(Refused::Truncated));
    assert_eq!(decode(&sealed(&body[..body.len() - 3]), 42, &SHAPE), Err(Refused::Truncated));
    assert_eq!(decode(&sealed(&[body, &[0; 8]].concat()), 42, &SHAPE), Err(Refused::Trailing));
}

/// Each invariant of the solver broken in a state whose checksum is made again: refused for
/// that reason.
#[test]
fn doctored_state_files_are_refused_for_each_invariant() {
    let e = |list: &'static str, entry: u64| Refused::Entry { list, entry, entries: 20_000 };
    let waiting = |at: u64| Refused::WaitingLevel { at, level: 242, horizon: 250 };
    let far = |far_level: u64| Refused::FarLevel { far_level, level: 242, first: 240 };
    type Doctor = fn(&mut Saved);
    let cases: Vec<(Doctor, Refused)> = vec![
        // The auditor's: a far entry of 2^60 made the solver index out of bounds.
        (|s| s.far_frontier[1] = 1 << 60, e("far frontier", 1 << 60)),
        (|s| s.far_frontier[1] = 20_000, e("far frontier", 20_000)),
        (|s| s.far_levels[0].1[1] = 1 << 60, e("far level", 1 << 60)),
        (|s| s.later[0] = 245 << WAITING_ENTRY_BITS | 20_000, e("waiting", 20_000)),
        (|s| s.later[0] = 242 << WAITING_ENTRY_BITS | 1, waiting(242)),
        (|s| s.later[0] = 10 << WAITING_ENTRY_BITS | 1, waiting(10)),
        (|s| s.later[0] = 251 << WAITING_ENTRY_BITS | 1, waiting(251)),
        (|s| s.level = u64::from(u16::MAX), Refused::Level { level: 65535, max: MAX_LEVEL }),
        (|s| s.level = 1 << 40, Refused::Level { level: 1 << 40, max: MAX_LEVEL }),
        (|s| s.horizon = 70_000, Refused::Horizon { horizon: 70_000, max: MAX_LEVEL }),
        // A lower horizon would end the solve before its waiting entries' levels.
        (|s| s.horizon = 246, Refused::WaitingLevel { at: 250, level: 242, horizon: 246 }),
        (|s| s.far_levels[0].0 = 239, far(239)),
        (|s| s.far_levels[1].0 = 242, far(242)),
        (|s| s.far_levels.swap(0, 1), far(240)),
        (|s| s.far_levels[1].0 = 240, far(240)),
        (|s| s.far_levels[0].1 = vec![6, 5], Refused::Unsorted { list: "far level" }),
        (|s| s.far_frontier = vec![8, 8], Refused::Unsorted { list: "far frontier" }),
        (
            |s| {
                s.level = 239;
                s.far_levels.clear();
                s.later.clear();
            },
            Refused::FarFrontier { level: 239, first: 240 },
        ),
        (|s| s.cur.push(0), Refused::ChunkFlags { found: 4, want: 3 }),
        (|s| s.cur.clear(), Refused::ChunkFlags { found: 0, want: 3 }),
        (|s| s.cur[2] = 2, Refused::ChunkFlag(2)),
        (|s| s.pending.truncate(11), Refused::PendingWords { found: 11, want: 12 }),
        // Capture wins are odd distances, at most the counter byte's longest and the horizon.
        (|s| s.pending[0] = 1 << 4, Refused::PendingLevel { at: 4, limit: 250 }),
        (|s| s.pending[0] = 1, Refused::PendingLevel { at: 0, limit: 250 }),
        (|s| s.pending[11] = 1 << 63, Refused::PendingLevel { at: 255, limit: 250 }),
        (|s| s.pending[3] = 1 << (251 - 192), Refused::PendingLevel { at: 251, limit: 250 }),
    ];
    for (i, (doctor, why)) in cases.into_iter().enumerate() {
        let mut s = valid();
        doctor(&mut s);
        assert_eq!(decode(&encode(42, 1, &s), 42, &SHAPE), Err(why), "case {i}");
    }
    for generation in [0, MAX_GENERATION, u64::MAX] {
        let bytes = encode(42, generation, &valid());
        assert_eq!(decode(&bytes, 42, &SHAPE), Err(Refused::Generation(generation)));
    }
    // The limits are the solve's: a table whose counter bytes hold shorter wins refuses a pending
    // win its solve never makes.
    let small = Shape { max_pending_win: 3, ..SHAPE };
    assert_eq!(decode(&encode(42, 1, &valid()), 42, &small), Err(Refused::PendingLevel { at: 185, limit: 3 }));
    // Every reason reads as a clause of the line that refuses the file.
    assert_eq!(
        Refused::Entry { list: "far frontier", entry: 1 << 60, entries: 20_000 }.to_string(),
        "far frontier entry 1152921504606846976 is past the table's 20000 entries"
    );
}

/// A doctored state file in the scratch directory: one line naming it and the reason, the
/// checkpoint removed, a fresh start.
#[test]
fn a_doctored_checkpoint_is_said_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let array = tempfile::tempfile().unwrap();
    let ident = identity("KRvK", &[1]);
    let mut c = Checkpoints::new(dir.path(), "KRvK", ident, Duration::ZERO);
    c.save(&valid(), &[("values", &array)]).unwrap();
    let state = dir.path().join("KRvK.state");
    let mut s = valid();
    s.far_frontier[1] = 1 << 60;
    std::fs::write(&state, encode(ident, 1, &s)).unwrap();
    let lines = RecordedLines::default();
    let mut again = Checkpoints::new(dir.path(), "KRvK", ident, Duration::ZERO);
    assert_eq!(again.load(&SHAPE, &[("values", &array)], &lines).unwrap(), None);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let want = format!(
        "KRvK: checkpoint file {} refused: far frontier entry 1152921504606846976 is past the table's \
         20000 entries; starting this table over",
        state.display()
    );
    assert_eq!(*lines.0.lock().unwrap(), [want]);
}

fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 8 {
        let body = bytes.len() - 8;
        let sum = fnv1a(FNV_OFFSET, &bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Arbitrary bytes behind the magic, sealed: refused or accepted, never a panic; accepted,
    /// they are the encoding of what was read.
    #[test]
    fn decoding_arbitrary_sealed_bytes_never_panics(words in prop::collection::vec(any::<u64>(), 0..40), shape_entries in 0u64..40_000) {
        let mut bytes = MAGIC.to_vec();
        for w in &words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        bytes.extend_from_slice(&[0; 8]);
        let bytes = reseal(bytes);
        let shape = Shape { entries: shape_entries, ..SHAPE };
        if let Ok((generation, s)) = decode(&bytes, words.first().copied().unwrap_or(0), &shape) {
            prop_assert_eq!(encode(words[0], generation, &s), bytes);
        }
    }

    /// A valid state with bytes changed and its checksum made again: refused or accepted, never
    /// a panic; accepted, every entry it lists is within the table.
    #[test]
    fn decoding_mutated_sealed_states_never_panics(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), cut in any::<prop::sample::Index>(), whole in any::<bool>()) {
        let mut bytes = encode(42, 1, &valid());
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if !whole {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let bytes = reseal(bytes);
        if let Ok((_, s)) = decode(&bytes, 42, &SHAPE) {
            let entries = s.far_levels.iter().flat_map(|(_, l)| l).chain(&s.far_frontier);
            prop_assert!(entries.copied().all(|e| e < SHAPE.entries));
            prop_assert!(s.later.iter().all(|w| w & ((1 << WAITING_ENTRY_BITS) - 1) < SHAPE.entries));
            prop_assert_eq!(s.cur.len(), 3);
        }
        // Unsealed, such bytes never pass.
        let _ = decode(&bytes[..bytes.len().saturating_sub(1)], 42, &SHAPE);
    }
}

/// Makes a FIFO at `path`.
#[cfg(unix)]
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
}

/// Runs `f` on another thread and gives its result, failing the test (rather than hanging it)
/// when it takes longer than 20 seconds: it is blocked on a FIFO.
#[cfg(unix)]
fn within_time<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("{what}: blocked (on a FIFO?)"))
}

/// A FIFO left where a save writes an array file: refused at once with an error naming it (opening
/// it for writing would wait for a reader forever), nothing written through it; a FIFO where the
/// state file goes is refused by its atomic write the same way.
#[cfg(unix)]
#[test]
fn a_save_refuses_a_fifo_instead_of_blocking_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("KRvK.values.1");
    mkfifo(&fifo);
    let d = dir.path().to_path_buf();
    let err = within_time("save", move || {
        let mut array = tempfile::tempfile().unwrap();
        array.write_all(b"the values").unwrap();
        let mut c = Checkpoints::new(&d, "KRvK", identity("KRvK", &[1]), Duration::ZERO);
        c.save(&valid(), &[("values", &array)]).unwrap_err()
    });
    assert_eq!(err.path(), Some(fifo.as_path()), "{err}");
    assert_eq!(err.to_string(), format!("{}: not a regular file (a FIFO (named pipe))", fifo.display()));
    assert!(!dir.path().join("KRvK.state").exists(), "no state without its arrays");
    // A link there is not written through either.
    std::fs::remove_file(&fifo).unwrap();
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, b"kept").unwrap();
    std::os::unix::fs::symlink(&target, &fifo).unwrap();
    let array = tempfile::tempfile().unwrap();
    let mut c = Checkpoints::new(dir.path(), "KRvK", identity("KRvK", &[1]), Duration::ZERO);
    let err = c.save(&valid(), &[("values", &array)]).unwrap_err();
    assert!(err.to_string().ends_with("not a regular file (a symbolic link)"), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), b"kept");
    // The state file's place.
    std::fs::remove_file(&fifo).unwrap();
    let state = dir.path().join("KRvK.state");
    mkfifo(&state);
    let d = dir.path().to_path_buf();
    let err = within_time("save", move || {
        let array = tempfile::tempfile().unwrap();
        let mut c = Checkpoints::new(&d, "KRvK", identity("KRvK", &[1]), Duration::ZERO);
        c.save(&valid(), &[("values", &array)]).unwrap_err()
    });
    assert_eq!(err.path(), Some(state.as_path()), "{err}");
    assert!(err.to_string().contains("not a regular file"), "{err}");
}

/// A FIFO where the loader reads, the state file or an array file: refused in the one line of
/// every refused checkpoint (not waited on), removed with the checkpoint, and the table starts
/// over; the next save then goes where the FIFO was.
#[cfg(unix)]
#[test]
fn a_load_refuses_a_fifo_instead_of_blocking_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let ident = identity("KRvK", &[1]);
    let load = |dir: &Path| {
        let d = dir.to_path_buf();
        within_time("load", move || {
            let into = tempfile::tempfile().unwrap();
            into.set_len(10).unwrap();
            let lines = RecordedLines::default();
            let mut c = Checkpoints::new(&d, "KRvK", ident, Duration::ZERO);
            let loaded = c.load(&SHAPE, &[("values", &into)], &lines).unwrap();
            (loaded, lines.0.into_inner().unwrap())
        })
    };
    let refused = |path: &Path| {
        format!(
            "KRvK: checkpoint file {} refused: it cannot be read (not a regular file (a FIFO (named pipe))); \
             starting this table over",
            path.display()
        )
    };
    // The state file.
    let state = dir.path().join("KRvK.state");
    mkfifo(&state);
    assert_eq!(load(dir.path()), (None, vec![refused(&state)]));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the FIFO is removed");
    let mut array = tempfile::tempfile().unwrap();
    array.write_all(b"the values").unwrap();
    let mut c = Checkpoints::new(dir.path(), "KRvK", ident, Duration::ZERO);
    c.save(&valid(), &[("values", &array)]).unwrap();
    assert_eq!(load(dir.path()), (Some(valid()), vec![]));
    // An array file of a valid state.
    let values = dir.path().join("KRvK.values.1");
    std::fs::remove_file(&values).unwrap();
    mkfifo(&values);
    assert_eq!(load(dir.path()), (None, vec![refused(&values)]));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the checkpoint is removed");
}
