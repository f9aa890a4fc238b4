//! The solver's own checks: side lists, paged solving and the in-place widening give the same
//! values as the plain path.

use super::*;
use crate::util::progress::NoProgress;

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
