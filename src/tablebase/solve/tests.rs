//! The solver's own checks: side lists, paged solving and the in-place widening give the same
//! values as the plain path.

use super::*;
use crate::tablebase::checkpoint::{self, Saved};
use crate::util::progress::{NoProgress, RecordedLines};

/// Solves `names` in order (each one's capture targets listed before it) with `limits`.
fn solve_all(names: &[&str], limits: Limits) -> Vec<Vec<u16>> {
    let mut subs = HashMap::new();
    let mut out = Vec::new();
    for name in names {
        let m: Material = name.parse().unwrap();
        let (t, _) = solve_with(m, &subs, &NoProgress, limits, None).unwrap();
        out.push(t.values.to_vec());
        subs.insert(m, Sub::of(Arc::new(t)));
    }
    out
}

/// The side lists (levels past the working byte, capture wins past the counter byte) give
/// the same values as the bytes: forced on small tables by lowering both limits.
#[test]
fn side_lists_give_the_same_values() {
    let names = ["KNvK", "KPvK", "KRvK", "KNvKA", "KRvKP", "KRvKN"];
    let normal = solve_all(&names, LIMITS);
    let max_dtm = normal.iter().flatten().filter_map(|&c| value::dtm_of(c)).max().unwrap();
    assert!(max_dtm > 10, "{max_dtm}: the limits below must cut inside the tables");
    for (far_level, max_pending_win) in [(2, 1), (5, 3), (9, 0), (238, 1)] {
        let limits = Limits { far_level, max_pending_win };
        assert!(solve_all(&names, limits) == normal, "{limits:?}");
    }
}

/// Solving with the arrays in scratch files (a budget of one byte: every mapped page is
/// released at each look of the watcher) gives the same values, and leaves the checkpoint
/// taken after initialisation.
#[test]
fn paged_solving_gives_the_same_values() {
    let names = ["KNvK", "KPvK", "KRvK", "KRvKP", "KRvKN"];
    let normal = solve_all(&names, LIMITS);
    let scratch = tempfile::tempdir().unwrap();
    let paging = Paging::new(1, scratch.path());
    let mut subs = HashMap::new();
    for (name, want) in names.iter().zip(&normal) {
        let m: Material = name.parse().unwrap();
        let (t, resumed) = solve_with(m, &subs, &NoProgress, LIMITS, Some(&paging)).unwrap();
        assert!(t.values.is_mapped() && resumed.is_none(), "{name}");
        assert!(t.values[..] == want[..], "{name}: paged values differ");
        assert!(scratch.path().join(format!("{name}.state")).is_file(), "{name}: no checkpoint");
        // Solved again, it resumes from that checkpoint, at level 0, to the same values.
        let (again, resumed) = solve_with(m, &subs, &NoProgress, LIMITS, Some(&paging)).unwrap();
        assert_eq!(resumed, Some(0), "{name}");
        assert!(again.values[..] == want[..], "{name}: resumed values differ");
        subs.insert(m, Sub::of(Arc::new(t)));
    }
}

#[test]
fn widening_in_place_keeps_every_byte() {
    for n in [0usize, 1, 2, 3, 17, 1000] {
        let bytes: Vec<u8> = (0..n).map(|i| (i * 37 % 251) as u8).collect();
        let mut values = vec![0xFFFFu16; n];
        // The first n bytes of the buffer hold the working bytes, the rest is garbage.
        // Safety: the 2n bytes of `values`, exclusively borrowed while `raw` lives.
        let raw: &mut [u8] = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), 2 * n) };
        raw[..n].copy_from_slice(&bytes);
        widen_in_place(&mut values);
        assert_eq!(values, bytes.iter().map(|&b| b as u16).collect::<Vec<_>>());
    }
}

/// Every file of `dir`, name and bytes.
fn snapshot(dir: &std::path::Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let files = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap());
    files.map(|e| (e.file_name(), std::fs::read(e.path()).unwrap())).collect()
}

/// `dir` holding exactly the files of `snap`.
fn restore(dir: &std::path::Path, snap: &[(std::ffi::OsString, Vec<u8>)]) {
    for e in std::fs::read_dir(dir).unwrap() {
        std::fs::remove_file(e.unwrap().path()).unwrap();
    }
    for (name, bytes) in snap {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// The checkpoint array file `array` (`values`, `bits`) of `name` in `dir`.
fn array_file(dir: &std::path::Path, name: &str, array: &str) -> std::path::PathBuf {
    let prefix = format!("{name}.{array}.");
    let files = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path());
    files.into_iter().find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&prefix)).unwrap()
}

/// The state of `name`'s checkpoint in `dir` changed by `doctor`, written back with its
/// checksum made again (as anyone can).
fn doctor_state(dir: &std::path::Path, name: &str, shape: &Shape, doctor: impl FnOnce(&mut Saved)) {
    let path = dir.join(format!("{name}.state"));
    let bytes = std::fs::read(&path).unwrap();
    let ident = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    let (generation, mut saved) = checkpoint::decode(&bytes, ident, shape).unwrap();
    doctor(&mut saved);
    std::fs::write(&path, checkpoint::encode(ident, generation, &saved)).unwrap();
}

/// The state of `name`'s checkpoint in `dir`.
fn state(dir: &std::path::Path, name: &str, shape: &Shape) -> Saved {
    let bytes = std::fs::read(dir.join(format!("{name}.state"))).unwrap();
    let ident = u64::from_le_bytes(bytes[8..16].try_into().unwrap());
    checkpoint::decode(&bytes, ident, shape).unwrap().1
}

/// Paged solves of KRvK resumed from doctored checkpoints (states with their checksum made
/// again, arrays changed): each refused with one line naming the file and why, and the table
/// solved afresh to the values of an uninterrupted solve; never a panic. The checkpoints are a
/// solve's last (at a far level, with far lists: the limits are lowered) and its first (level
/// 0, with frontier bits).
#[test]
fn doctored_checkpoints_are_refused_and_the_table_solved_afresh() {
    // KRvK's solve ends at level 5: far levels from 2 on.
    let limits = Limits { far_level: 2, max_pending_win: 1 };
    let krk: Material = "KRvK".parse().unwrap();
    let subs = HashMap::new();
    let (normal, _) = solve_with(krk, &subs, &NoProgress, limits, None).unwrap();
    let n = normal.values.len() as u64;
    let shape = Shape { far_level: 2, max_pending_win: 1, ..checkpoint_shape(n) };
    let solve_from = |paging: &Paging, want_resumed: bool| -> Vec<String> {
        let lines = RecordedLines::default();
        let (t, resumed) = solve_with(krk, &subs, &lines, limits, Some(paging)).unwrap();
        assert_eq!(resumed.is_some(), want_resumed, "{:?}", lines.0.lock().unwrap());
        assert!(t.values[..] == normal.values[..], "the values differ from an uninterrupted solve");
        let said = lines.0.into_inner().unwrap();
        said.into_iter().filter(|l| !l.contains("resumed at level")).collect()
    };
    let refused = |said: &[String], file: &std::path::Path, why: &str| {
        let want = format!("KRvK: checkpoint file {} refused: {why}; starting this table over", file.display());
        assert_eq!(said, [want]);
    };

    // The last checkpoint of a solve checkpointing every level.
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let every = Paging::new(1, dir).checkpoint_every(std::time::Duration::ZERO);
    assert!(solve_from(&every, false).is_empty());
    let last = snapshot(dir);
    let s = state(dir, "KRvK", &shape);
    assert!(s.level > 2 && !s.far_levels.is_empty(), "level {}: no far lists", s.level);
    let limit = s.horizon.min(1);
    let far_entry = s.far_levels.iter().flat_map(|(_, l)| l).copied().next().expect("a far entry");
    // Undoctored, it is resumed from.
    assert!(solve_from(&every, true).is_empty());
    let state_file = dir.join("KRvK.state");
    type Doctor = fn(&mut Saved);
    let cases: Vec<(Doctor, String)> = vec![
        (|s| s.far_levels[0].1[0] = 1 << 60, format!("far level entry {} is past the table's {n} entries", 1u64 << 60)),
        (
            |s| s.far_frontier = vec![1 << 60],
            format!("far frontier entry {} is past the table's {n} entries", 1u64 << 60),
        ),
        (|s| s.level = 65535, "level 65535 is past the last level 65517".to_string()),
        (|s| s.horizon = 1 << 40, format!("horizon {} is past the last level 65517", 1u64 << 40)),
        (|s| s.cur.push(1), format!("{} frontier flags for {} chunks", n.div_ceil(8192) + 1, n.div_ceil(8192))),
        (|s| s.pending[1] = 1 << 2, format!("a pending capture win at level 66, not an odd level up to {limit}")),
    ];
    for (doctor, why) in cases {
        restore(dir, &last);
        doctor_state(dir, "KRvK", &shape, doctor);
        refused(&solve_from(&every, false), &state_file, &why);
    }
    // Levels at the format's limit, which every check lets through: the solve ends there with
    // an error naming the table, never with its level counter wrapped.
    restore(dir, &last);
    doctor_state(dir, "KRvK", &shape, |s| {
        (s.level, s.horizon) = (65517, 65517);
        s.later.clear();
    });
    let e = solve_with(krk, &subs, &NoProgress, limits, Some(&every)).map(|_| ()).unwrap_err();
    assert!(matches!(&e, TbError::TooDeep { material } if material == "KRvK"), "{e}");
    assert!(e.to_string().contains("past the longest distance a table stores (65517 plies)"), "{e}");
    // Its arrays changed: a far entry's working byte, a frontier bit past the table's end, a
    // values file cut short.
    restore(dir, &last);
    let values = array_file(dir, "KRvK", "values");
    let mut bytes = std::fs::read(&values).unwrap();
    bytes[far_entry as usize] = 0;
    std::fs::write(&values, bytes).unwrap();
    refused(&solve_from(&every, false), &values, &format!("far entry {far_entry} does not hold the far marker"));
    restore(dir, &last);
    let bits = array_file(dir, "KRvK", "bits");
    let mut bytes = std::fs::read(&bits).unwrap();
    *bytes.last_mut().unwrap() |= 0x80;
    std::fs::write(&bits, bytes).unwrap();
    let past = n.div_ceil(64) * 64 - 1;
    refused(
        &solve_from(&every, false),
        &bits,
        &format!("entry {past} is marked in the frontier where the state has no frontier"),
    );
    restore(dir, &last);
    let values = array_file(dir, "KRvK", "values");
    let len = std::fs::metadata(&values).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&values).unwrap().set_len(len - 1).unwrap();
    refused(&solve_from(&every, false), &values, &format!("{} bytes where the table's array has {len}", len - 1));

    // The first checkpoint (level 0: the entries lost in 0 plies are its frontier).
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let once = Paging::new(1, dir);
    assert!(solve_from(&once, false).is_empty());
    let first = snapshot(dir);
    let s = state(dir, "KRvK", &shape);
    assert_eq!(s.level, 0);
    let bits = array_file(dir, "KRvK", "bits");
    let words: Vec<u64> =
        std::fs::read(&bits).unwrap().chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let w = words.iter().position(|&w| w != 0).expect("a frontier");
    let mated = w * 64 + words[w].trailing_zeros() as usize;
    // A frontier entry's value changed.
    let values = array_file(dir, "KRvK", "values");
    let mut bytes = std::fs::read(&values).unwrap();
    bytes[mated] = UNKNOWN as u8;
    std::fs::write(&values, bytes).unwrap();
    refused(
        &solve_from(&once, false),
        &values,
        &format!("frontier entry {mated} does not hold a value of the current level"),
    );
    // Its chunk's flag cleared: its bits would never be expanded.
    restore(dir, &first);
    doctor_state(dir, "KRvK", &shape, |s| s.cur[mated / CHUNK] = 0);
    let bits = array_file(dir, "KRvK", "bits");
    refused(
        &solve_from(&once, false),
        &bits,
        &format!("entry {mated} is marked in the frontier where the state has no frontier"),
    );
}
