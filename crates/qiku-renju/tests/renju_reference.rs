//! The fast forbidden-move judge against a slow reference written directly from the definitions
//! in docs/RENJU.md, on random positions. The reference shares no code with `qiku_renju`: it
//! has its own grid, walks whole lines through the point, identifies a four by the set of its four
//! stones, and decides threes by brute-force recursion.

use proptest::prelude::*;
use qiku_renju::eval::{self, Ruleset};
use qiku_renju::{Board, Forbidden, Point, Stone};

const N: i32 = 15;
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A four: its four stones, and its five points.
type Four = (Vec<(i32, i32)>, Vec<(i32, i32)>);

/// 0 empty, 1 black, 2 white.
#[derive(Clone)]
struct Grid([[u8; 15]; 15]);

impl Grid {
    fn get(&self, c: i32, r: i32) -> Option<u8> {
        if (0..N).contains(&c) && (0..N).contains(&r) {
            Some(self.0[r as usize][c as usize])
        } else {
            None
        }
    }
    fn set(&mut self, c: i32, r: i32, v: u8) {
        self.0[r as usize][c as usize] = v;
    }
    /// The black stones of the maximal black run through (c, r) along (dc, dr).
    fn black_run(&self, c: i32, r: i32, (dc, dr): (i32, i32)) -> Vec<(i32, i32)> {
        let mut cells = vec![(c, r)];
        for s in [-1, 1] {
            let mut k = 1;
            while self.get(c + s * k * dc, r + s * k * dr) == Some(1) {
                cells.push((c + s * k * dc, r + s * k * dr));
                k += 1;
            }
        }
        cells.sort();
        cells
    }
    /// The empty points of the whole line through (c, r) along d.
    fn line_empties(&self, c: i32, r: i32, (dc, dr): (i32, i32)) -> Vec<(i32, i32)> {
        (-14..=14)
            .filter(|&k| k != 0)
            .map(|k| (c + k * dc, r + k * dr))
            .filter(|&(x, y)| self.get(x, y) == Some(0))
            .collect()
    }
    /// The fours through black stone (c, r) along d, each as (its four stones, its five points).
    fn fours(&mut self, c: i32, r: i32, d: (i32, i32)) -> Vec<Four> {
        let mut out: Vec<Four> = Vec::new();
        for (x, y) in self.line_empties(c, r, d) {
            self.set(x, y, 1);
            let run = self.black_run(x, y, d);
            self.set(x, y, 0);
            if run.len() == 5 && run.contains(&(c, r)) {
                let stones: Vec<_> = run.into_iter().filter(|&p| p != (x, y)).collect();
                match out.iter_mut().find(|(s, _)| *s == stones) {
                    Some((_, fives)) => fives.push((x, y)),
                    None => out.push((stones, vec![(x, y)])),
                }
            }
        }
        out
    }
}

/// The reference judgement of black on empty (c, r).
fn reference(g: &mut Grid, c: i32, r: i32) -> Option<Forbidden> {
    g.set(c, r, 1);
    let verdict = judge_placed(g, c, r);
    g.set(c, r, 0);
    verdict
}

fn judge_placed(g: &mut Grid, c: i32, r: i32) -> Option<Forbidden> {
    let runs: Vec<usize> = DIRS.iter().map(|&d| g.black_run(c, r, d).len()).collect();
    if runs.contains(&5) {
        return None;
    }
    if runs.iter().any(|&n| n >= 6) {
        return Some(Forbidden::Overline);
    }
    let fours: Vec<_> = DIRS.iter().map(|&d| g.fours(c, r, d)).collect();
    if fours.iter().map(Vec::len).sum::<usize>() >= 2 {
        return Some(Forbidden::DoubleFour);
    }
    let mut real_threes = 0;
    for (i, &d) in DIRS.iter().enumerate() {
        if !fours[i].is_empty() {
            continue;
        }
        // A three: some empty point of the line makes a straight four (a four with two five
        // points) through (c, r), and that point is not itself forbidden.
        let real = g.line_empties(c, r, d).into_iter().any(|(x, y)| {
            g.set(x, y, 1);
            let straight = g.fours(c, r, d).iter().any(|(_, fives)| fives.len() >= 2);
            g.set(x, y, 0);
            straight && reference(g, x, y).is_none()
        });
        if real {
            real_threes += 1;
        }
    }
    (real_threes >= 2).then_some(Forbidden::DoubleThree)
}

/// Both boards from a list of (column, row, black?) placements; repeats are skipped.
fn boards(stones: &[(u8, u8, bool)]) -> (Board, Grid) {
    let mut b = Board::new();
    let mut g = Grid([[0; 15]; 15]);
    for &(c, r, black) in stones {
        let Some(p) = Point::new(c as usize, r as usize) else { continue };
        if b.is_empty(p) {
            b.put(p, if black { Stone::Black } else { Stone::White });
            g.set(c as i32, r as i32, if black { 1 } else { 2 });
        }
    }
    (b, g)
}

/// Tallies: allowed, overline, double four, double three, and allowed points with open-three
/// shapes in two or more directions (decided by the recursion).
fn compare(stones: &[(u8, u8, bool)]) -> Result<[usize; 5], String> {
    let (b, mut g) = boards(stones);
    let mut counts = [0usize; 5];
    for p in Point::all() {
        if !b.is_empty(p) {
            continue;
        }
        let fast = b.forbidden(p);
        let slow = reference(&mut g, p.col() as i32, p.row() as i32);
        if fast != slow {
            return Err(format!("{p}: fast {fast:?}, reference {slow:?}\n{}", b.diagram()));
        }
        let shapes = eval::lines(&b, p, Stone::Black, Ruleset::Renju).iter().filter(|l| l.three_mask != 0).count();
        if slow.is_none() && shapes >= 2 {
            counts[4] += 1;
        }
        counts[match slow {
            None => 0,
            Some(Forbidden::Overline) => 1,
            Some(Forbidden::DoubleFour) => 2,
            Some(Forbidden::DoubleThree) => 3,
        }] += 1;
    }
    Ok(counts)
}

/// Dense random stones in a 9x9 square near the centre (or, with `edge`, in a corner, so that
/// the edges of the board matter), black more often than white so that shapes form.
fn stones(edge: bool) -> impl Strategy<Value = Vec<(u8, u8, bool)>> {
    let base = if edge { 0u8 } else { 3u8 };
    prop::collection::vec((base..base + 9, base..base + 9, prop::bool::weighted(0.6)), 10..55)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn judge_agrees_with_reference(stones in stones(false)) {
        if let Err(e) = compare(&stones) {
            prop_assert!(false, "{}", e);
        }
    }

    #[test]
    fn judge_agrees_with_reference_near_the_edge(stones in stones(true)) {
        if let Err(e) = compare(&stones) {
            prop_assert!(false, "{}", e);
        }
    }
}

/// A fixed sweep of random games (alternating colors, as played) with a tally of the kinds seen,
/// so that the comparison is known to have exercised every kind.
#[test]
fn sweep_covers_every_kind() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut total = [0usize; 5];
    for game in 0..120 {
        let len = 20 + next(40) as usize;
        let spread = 7 + (game % 3) as u64 * 2;
        let lo = (15 - spread) / 2;
        let stones: Vec<(u8, u8, bool)> =
            (0..len).map(|i| ((lo + next(spread)) as u8, (lo + next(spread)) as u8, i % 5 != 1)).collect();
        match compare(&stones) {
            Ok(c) => (0..5).for_each(|k| total[k] += c[k]),
            Err(e) => panic!("game {game}: {e}"),
        }
    }
    eprintln!(
        "allowed {} (of which {} with open-three shapes in two directions: saved by the recursion or a five), overline {}, double four {}, \
         double three {}",
        total[0], total[4], total[1], total[2], total[3]
    );
    assert!(total[1] >= 20 && total[2] >= 20 && total[3] >= 20 && total[4] >= 5, "{total:?}");
}
