//! Shared by the tablebase tests: a fresh generated directory per test binary, and a brute-force
//! solver that shares no code with the generator (it walks every position with the rules core and
//! iterates values to a fixed point).

#![allow(dead_code)]

use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{Material, TbValue, Wdl};
use qiku::{Color, MoveList, Piece, Position, Role, Setup, Square};
use std::collections::HashMap;
use std::path::PathBuf;

/// Generates `materials` (and their dependencies) into a fresh directory under the target dir.
pub fn fresh_dir(name: &str, materials: &[&str]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let ms: Vec<Material> = materials.iter().map(|m| m.parse().unwrap()).collect();
    let opts = GenerateOptions::new(&dir);
    generate_set(&ms, &opts).unwrap();
    dir
}

/// Every legal position of a material as it stands (colors as given), each once: identical
/// pieces unordered, mirror images separately.
pub fn all_positions(material: Material) -> Vec<Position> {
    let mut pieces = Vec::new();
    for color in Color::ALL {
        for role in Role::ALL {
            for _ in 0..material.count(color, role) {
                pieces.push(Piece::new(color, role));
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut setup = Setup::empty();
    place(&pieces, 0, &mut setup, &mut |s: &Setup| {
        for turn in Color::ALL {
            let mut s = s.clone();
            s.turn = turn;
            if let Ok(pos) = Position::from_setup(&s) {
                if seen.insert(pos.key()) {
                    out.push(pos);
                }
            }
        }
    });
    out
}

fn place(pieces: &[Piece], i: usize, setup: &mut Setup, f: &mut impl FnMut(&Setup)) {
    if i == pieces.len() {
        f(setup);
        return;
    }
    for sq in Position::reachable_squares(pieces[i]) {
        // Identical pieces: only increasing squares.
        if i > 0 && pieces[i - 1] == pieces[i] && sq.index() <= last_square_of(setup, pieces[i]) {
            continue;
        }
        if setup.piece_at(sq).is_some() {
            continue;
        }
        setup.set(sq, Some(pieces[i]));
        place(pieces, i + 1, setup, f);
        setup.set(sq, None);
    }
}

fn last_square_of(setup: &Setup, p: Piece) -> usize {
    Square::all().filter(|&s| setup.piece_at(s) == Some(p)).map(|s| s.index()).max().unwrap_or(0)
}

/// Brute-force values of every position of `material` (as it stands) and, recursively, of the
/// materials its captures reach, keyed by Zobrist key.
pub fn brute_force(material: Material, memo: &mut HashMap<u64, TbValue>) {
    let positions = all_positions(material);
    // Solve capture targets first.
    for (_, _, sub) in material.captures() {
        let probe = all_positions(sub);
        if probe.first().is_some_and(|p| !memo.contains_key(&p.key())) {
            brute_force(sub, memo);
        }
    }
    let children: Vec<Vec<u64>> = positions
        .iter()
        .map(|p| {
            let mut list = MoveList::new();
            p.legal_moves(&mut list);
            list.iter().map(|&m| p.play_unchecked(m).key()).collect()
        })
        .collect();
    let mut val: Vec<Option<TbValue>> = vec![None; positions.len()];
    let sub_max = memo.values().map(|v| v.dtm.plies()).max().unwrap_or(0);
    let mut level = 0u32;
    let mut quiet_levels = 0;
    let mut local: HashMap<u64, usize> = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        local.insert(p.key(), i);
    }
    loop {
        let mut changed = Vec::new();
        for i in 0..positions.len() {
            if val[i].is_some() {
                continue;
            }
            let get = |k: &u64| -> Option<TbValue> {
                match local.get(k) {
                    Some(&j) => val[j],
                    None => Some(*memo.get(k).expect("capture child solved")),
                }
            };
            let kids = &children[i];
            if level == 0 {
                if kids.is_empty() {
                    changed.push((i, TbValue { wdl: Wdl::Loss, dtm: qiku::tablebase::Dtm(0) }));
                }
            } else if level % 2 == 1 {
                if kids.iter().any(|k| get(k).is_some_and(|v| v.wdl == Wdl::Loss && v.dtm.plies() == level - 1)) {
                    changed.push((i, TbValue { wdl: Wdl::Win, dtm: qiku::tablebase::Dtm(level as i32) }));
                }
            } else if kids.iter().all(|k| get(k).is_some_and(|v| v.wdl == Wdl::Win && v.dtm.plies() < level)) {
                changed.push((i, TbValue { wdl: Wdl::Loss, dtm: qiku::tablebase::Dtm(-(level as i32)) }));
            }
        }
        quiet_levels = if changed.is_empty() { quiet_levels + 1 } else { 0 };
        for (i, v) in changed {
            val[i] = Some(v);
        }
        if quiet_levels >= 2 && level > sub_max + 2 {
            break;
        }
        level += 1;
    }
    for (i, p) in positions.iter().enumerate() {
        memo.insert(p.key(), val[i].unwrap_or(TbValue::DRAW));
    }
}
