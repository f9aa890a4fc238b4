//! Tests of the index scheme: ranks against unranks, brute-force counts of camps and pairs,
//! the incremental ranks against full ones.

use super::*;

/// Entry -> placement -> entry, for full entries (side to move included) of tables past
/// 2^32 entries: around 2^32, the last entry and 10,000 spread entries. Only entries whose
/// placement puts no two pieces on one square are positions; each must come back exactly.
#[test]
fn entries_past_2_pow_32_round_trip() {
    // KRNCvKR: 5,904,900,000 entries, each side's below 2^32 (the 32-bit division path);
    // KRNCvKRN: each side's past 2^32 (the 64-bit path).
    let krncvkr = Layout::new("KRNCvKR".parse().unwrap());
    assert_eq!(krncvkr.entries(), 5_904_900_000);
    let krncvkrn = Layout::new("KRNCvKRN".parse().unwrap());
    assert!(krncvkrn.per_side > u32::MAX as u64, "{}", krncvkrn.per_side);
    for layout in [&krncvkr, &krncvkrn] {
        let n = layout.entries();
        let mut entries: Vec<u64> = (0..5).map(|d| (1u64 << 32) - 2 + d).collect();
        entries.extend([n - 1, layout.per_side - 1, layout.per_side]);
        entries.extend((0..10_000u64).map(|k| (k * (n / 10_000) + k * 7919) % n));
        let mut positions = 0;
        for entry in entries {
            let Some(setup) = layout.entry_setup(entry) else { continue };
            let pos = Position::from_setup_unchecked(&setup);
            assert_eq!(layout.index_of(&pos), Some(entry), "{} entry {entry}", layout.material);
            positions += 1;
        }
        // About 85% (six pieces) and 72% (seven) of the entries are placements.
        assert!(positions > 7_000, "{positions}");
        assert!(layout.entry_setup(n).is_none());
    }
}

#[test]
fn rank_inverts_unrank() {
    for name in ["KRvK", "KRRvK", "KPPPvK", "KNvKAB", "KCvKP", "KAABBvKAABB", "KRAvKBB"] {
        let layout = Layout::new(name.parse().unwrap());
        let step = (layout.per_side / 5000).max(1);
        let mut sq = [0u8; MAX_PIECES];
        let one_group = layout.pieces[2..].iter().all(|p| *p == layout.pieces[2]);
        for idx in (0..layout.per_side).step_by(step as usize) {
            layout.unrank(idx, &mut sq);
            assert_eq!(layout.rank(&sq), Some(idx), "{name} {idx}");
            assert_eq!(layout.rank_canonical(&sq), Some(idx), "{name} {idx}");
            // Identical pieces in another order rank the same.
            if one_group {
                sq[2..layout.piece_count()].reverse();
                assert_eq!(layout.rank(&sq), Some(idx));
            }
        }
    }
}

/// Every placement of a material (camps on distinct squares) ranks to an entry whose
/// placement is it or its mirror image; a mirror image ranks to the same entry unless both
/// camps are symmetric.
#[test]
fn every_placement_reaches_itself_or_its_mirror_image() {
    for name in ["KNvKAB", "KAvKB", "KRvK", "KBBvKA"] {
        let layout = Layout::new(name.parse().unwrap());
        let n = layout.piece_count();
        let sorted = |sq: &Squares| {
            let mut v: Vec<(Piece, u8)> = (0..n).map(|s| (layout.pieces[s], sq[s])).collect();
            v.sort();
            v
        };
        let mirror = |sq: &Squares| {
            let mut m = *sq;
            m[..n].iter_mut().for_each(|s| *s = mirror_sq(*s));
            m
        };
        let mut seen = 0u64;
        let squares: Vec<Vec<u8>> = layout
            .pieces
            .iter()
            .map(|p| Position::reachable_squares(*p).into_iter().map(|s| s.index() as u8).collect())
            .collect();
        let mut sq = [0u8; MAX_PIECES];
        let mut digit = vec![0usize; n];
        'all: loop {
            for s in 0..n {
                sq[s] = squares[s][digit[s]];
            }
            if !layout.overlapping(&sq) {
                let idx = layout.rank(&sq).expect("a placement ranks");
                let mut back = [0u8; MAX_PIECES];
                layout.unrank(idx, &mut back);
                assert!(sorted(&back) == sorted(&sq) || sorted(&back) == sorted(&mirror(&sq)), "{name} {sq:?}");
                let twin = layout.rank(&mirror(&sq)).expect("a mirror image ranks");
                assert_eq!(
                    twin == idx,
                    !layout.symmetric(&sq).unwrap() || sorted(&mirror(&sq)) == sorted(&sq),
                    "{name} {sq:?}"
                );
                seen += 1;
            }
            for s in 0..n {
                digit[s] += 1;
                if digit[s] < squares[s].len() {
                    continue 'all;
                }
                digit[s] = 0;
            }
            break;
        }
        assert!(seen > 1000, "{name}: {seen}");
    }
}

/// Camp placements counted by brute force over squares, independently of the ranking: all of
/// them, and those that are their own mirror image.
#[test]
fn camps_have_the_placements_counted_by_brute_force() {
    let squares = |role| -> Vec<u8> {
        Position::reachable_squares(Piece::new(Color::Red, role)).into_iter().map(|s| s.index() as u8).collect()
    };
    let (kings, advisors, elephants) = (squares(Role::King), squares(Role::Advisor), squares(Role::Elephant));
    let subsets = |list: &[u8], k: usize| -> Vec<Vec<u8>> {
        (0u32..1 << list.len())
            .filter(|m| m.count_ones() as usize == k)
            .map(|m| (0..list.len()).filter(|i| m >> i & 1 != 0).map(|i| list[i]).collect())
            .collect()
    };
    for a in 0..=2 {
        for e in 0..=2 {
            let (mut all, mut symmetric) = (0u64, 0u64);
            for &k in &kings {
                for aa in subsets(&advisors, a) {
                    for ee in subsets(&elephants, e) {
                        let mut set: Vec<u8> = [vec![k], aa.clone(), ee.clone()].concat();
                        let size = set.len();
                        set.sort();
                        set.dedup();
                        if set.len() < size {
                            continue;
                        }
                        all += 1;
                        let mirror = |v: &[u8]| {
                            let mut m: Vec<u8> = v.iter().map(|&s| mirror_sq(s)).collect();
                            m.sort();
                            m
                        };
                        let sorted = |v: &[u8]| {
                            let mut m = v.to_vec();
                            m.sort();
                            m
                        };
                        if mirror_sq(k) == k && mirror(&aa) == sorted(&aa) && mirror(&ee) == sorted(&ee) {
                            symmetric += 1;
                        }
                    }
                }
            }
            let (p, s, t) = camp_shape(a, e);
            assert_eq!((t, s, p), (all, symmetric, (all - symmetric) / 2), "advisors {a}, elephants {e}");
        }
    }
    // The full camp: 1,410 placements (9 x 10 x 21 placed apart), 18 of them symmetric.
    assert_eq!(camp_shape(2, 2), (696, 18, 1410));
}

/// Entries weighted by the positions they stand for (1 for a pair of symmetric camps, 2
/// otherwise) count every camp placement pair exactly once.
#[test]
fn pair_weights_count_every_camp_pair_once() {
    for name in ["KRvK", "KNvKAB", "KAABBvKAABB", "KRAvKBB"] {
        let layout = Layout::new(name.parse().unwrap());
        let weights: u64 = (0..layout.pairs).map(|p| if layout.pair_symmetric(p) { 1 } else { 2 }).sum();
        assert_eq!(weights, layout.camps[0].total() as u64 * layout.camps[1].total() as u64, "{name}");
    }
}

/// Calls `f(layout, idx, squares)` for about 3,000 placements spread over `name`'s index.
fn spread_placements(name: &str, mut f: impl FnMut(&Layout, u64, &Squares)) {
    let layout = Layout::new(name.parse().unwrap());
    let step = (layout.per_side / 3000).max(1);
    let mut sq = [0u8; MAX_PIECES];
    for idx in (0..layout.per_side).step_by(step as usize) {
        layout.unrank(idx, &mut sq);
        f(&layout, idx, &sq);
    }
}

#[test]
fn rerank_equals_a_full_rank() {
    for name in ["KRvK", "KRRvK", "KPPPvK", "KNvKAB", "KCPvKAA"] {
        let mut checked = 0;
        spread_placements(name, |layout, idx, sq| {
            for slot in 2..layout.piece_count() {
                for to in 0..90u8 {
                    let mut moved = *sq;
                    moved[slot] = to;
                    let want = if layout.in_camp(slot) { None } else { layout.rank_canonical(&moved) };
                    assert_eq!(layout.rerank(idx, sq, slot, to), want, "{name} {idx}");
                    checked += 1;
                }
            }
        });
        assert!(checked > 10_000, "{name}: {checked}");
    }
}

/// Every move of every piece (to a square no other piece stands on) from spread placements:
/// the incremental rank is the full rank, camps mirrored or not.
#[test]
fn rank_moved_equals_a_full_rank() {
    for name in ["KRvK", "KNvKAB", "KCPvKAA", "KRABvKAABB", "KAABBvKRB"] {
        let (mut checked, mut camp_moves, mut mirrored) = (0, 0, 0);
        spread_placements(name, |layout, idx, sq| {
            let n = layout.piece_count();
            if layout.overlapping(sq) {
                return;
            }
            let r = layout.ranked(idx, sq).expect("a placement of the index is ranked");
            assert_eq!(layout.ranked(idx + 1, sq), None, "{name} {idx}: ranked as another entry");
            for slot in 0..n {
                for to in (0..90u8).filter(|t| !sq[..n].contains(t)) {
                    let mut moved = *sq;
                    moved[slot] = to;
                    let full = layout.rank(&moved);
                    assert_eq!(layout.rank_moved(&r, sq, slot, to), full, "{name} {idx} slot {slot} to {to}");
                    checked += 1;
                    if full.is_some() && layout.in_camp(slot) {
                        camp_moves += 1;
                        mirrored += layout.orientation(&moved).is_some_and(|(_, m)| m) as u32;
                    }
                }
            }
        });
        assert!(checked > 10_000 && camp_moves > 1_000 && mirrored > 100, "{name}: {checked} {camp_moves} {mirrored}");
    }
}

#[test]
fn walk_visits_what_unrank_gives() {
    for name in ["KvK", "KRvK", "KPPPvK", "KNvKAB", "KAABvKB"] {
        let layout = Layout::new(name.parse().unwrap());
        let per = layout.per_side;
        for range in [0..per, per / 3..per / 3 + 5000.min(per - per / 3), per - 1..per] {
            let mut next = range.start;
            let mut want = [0u8; MAX_PIECES];
            layout.walk(range.clone(), |idx, sq| {
                assert_eq!(idx, next);
                layout.unrank(idx, &mut want);
                assert_eq!(sq, &want, "{name} {idx}");
                next += 1;
            });
            assert_eq!(next, range.end, "{name}");
        }
    }
}

#[test]
fn entries_of_agrees_with_layouts() {
    for m in Material::all_up_to(5) {
        assert_eq!(entries_of(&m), Layout::new(m).entries(), "{m}");
    }
    // Beyond a layout's size: KRAABBvKAABB, 11 pieces. Full camps on both sides: 696 primary,
    // 18 symmetric and 1,410 in all each, so 696 x 1,410 + 18 x 714 canonical pairs.
    let m: Material = "KRAABBvKAABB".parse().unwrap();
    assert_eq!(entries_of(&m), 2 * (696 * 1410 + 18 * 714) * 90);
}

#[test]
fn sizes_follow_the_scheme() {
    // A lone king: 3 primary squares (file d), 3 symmetric (file e), 9 in all; 3 x 9 + 3 x 6
    // = 45 pairs, the canonical king pairs.
    let l = Layout::new("KRvK".parse().unwrap());
    assert_eq!(l.pairs, 45);
    assert_eq!(l.per_side, 45 * 90);
    // King and advisor: 40 placements, 2 symmetric (the advisor in the palace's centre, the
    // king above or below it), 19 primary: 3 x 40 + 3 x 21 pairs.
    let l = Layout::new("KPPvKA".parse().unwrap());
    assert_eq!(l.pairs, 3 * 40 + 3 * 21);
    assert_eq!(l.per_side, (3 * 40 + 3 * 21) * (55 * 54 / 2));
}
