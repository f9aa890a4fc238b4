//! Endgame starting positions from real games, for the tablebase match (qiku with the
//! tables of the endings players meet against qiku without them): from every game of the CCPD
//! collection shipped in `books/games/`, the first position (after a capture) with at least one
//! and at most three attacking pieces (rook, horse, cannon, pawn) left, the side to move having a
//! legal move. A fixed, evenly spread selection of them is shipped as
//! `tests/fixtures/endgame-openings.txt` (`qiku match --openings`); the test below proves it is
//! exactly what the rule picks from the collection, so it can be re-derived:
//! `cargo test --release --test qiku -- --ignored endgame_openings::write_endgame_openings`.

use crate::ccpd;

use qiku::notation::iccs;
use qiku::tablebase::Material;
use qiku::{Position, Role};
use std::collections::HashSet;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/endgame-openings.txt");
/// At most this many attacking pieces, both sides together.
const MAX_ATTACKERS: u32 = 3;
/// Positions in the shipped selection (each played twice, colors swapped, in a match).
const COUNT: usize = 50;

/// One position found in a game.
struct Found {
    /// 1-based line of the game's first tag in the collection.
    line: usize,
    /// Plies played from the game's start position.
    ply: usize,
    fen: String,
    material: Material,
}

fn attackers(pos: &Position) -> u32 {
    Role::ALL.into_iter().filter(|r| r.is_attacker()).map(|r| pos.by_role(r).count()).sum()
}

/// Every game's first position with 1 to [`MAX_ATTACKERS`] attacking pieces, in game order (at
/// most one per game), and the number of games read.
fn scan() -> (usize, Vec<Found>) {
    let games = ccpd::read_games(ccpd::ICCS, None);
    let mut found = Vec::new();
    for game in &games {
        let fen = game.tag("FEN").unwrap_or(qiku::core::START_FEN);
        let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("line {}: {e}", game.line));
        for (ply, token) in game.moves.iter().enumerate() {
            let m = iccs::parse(&pos, token).unwrap_or_else(|e| panic!("line {}: {token}: {e}", game.line));
            pos.make_move(m);
            let n = attackers(&pos);
            if (1..=MAX_ATTACKERS).contains(&n) && !pos.moves().is_empty() {
                let material = Material::from_position(&pos);
                found.push(Found { line: game.line, ply: ply + 1, fen: pos.fen(), material });
                break;
            }
        }
    }
    (games.len(), found)
}

/// [`COUNT`] positions spread evenly over the collection, distinct FENs only.
fn pick(found: &[Found]) -> Vec<&Found> {
    let mut seen = HashSet::new();
    let distinct: Vec<&Found> = found.iter().filter(|f| seen.insert(f.fen.clone())).collect();
    let step = (distinct.len() / COUNT).max(1);
    distinct.into_iter().step_by(step).take(COUNT).collect()
}

fn render(picked: &[&Found]) -> String {
    let mut s = String::from(
        "# Endgame openings for the tablebase match (tests/endgame_openings.rs): the first position\n\
         # with 1-3 attacking pieces of evenly spread CCPD games (books/games/, CC BY 4.0).\n\
         # Each FEN follows a comment naming its material and the game's line and ply.\n",
    );
    for f in picked {
        s.push_str(&format!("# {}, game at line {}, ply {}\n{}\n", f.material, f.line, f.ply, f.fen));
    }
    s
}

#[test]
fn shipped_endgame_openings_are_the_collections() {
    let (games, found) = scan();
    assert_eq!(games, 25_368, "games in the CCPD collection");
    let picked = pick(&found);
    assert_eq!(picked.len(), COUNT, "only {} distinct endgame positions in {games} games", found.len());
    for f in &picked {
        let pos = Position::from_fen(&f.fen).unwrap();
        assert!((1..=MAX_ATTACKERS).contains(&attackers(&pos)), "{}", f.fen);
        assert!(f.material.attacker_count() as u32 <= MAX_ATTACKERS);
    }
    let shipped = std::fs::read_to_string(FIXTURE).unwrap_or_else(|e| panic!("{FIXTURE}: {e}"));
    assert_eq!(shipped, render(&picked), "{FIXTURE} is stale: re-derive it (see the module doc)");
}

/// Writes the selection to [`FIXTURE`] and prints what it holds.
#[test]
#[ignore]
fn write_endgame_openings() {
    let (games, found) = scan();
    let picked = pick(&found);
    std::fs::write(FIXTURE, render(&picked)).unwrap();
    let mut by_attackers = [0usize; 4];
    for f in &found {
        by_attackers[f.material.attacker_count()] += 1;
    }
    eprintln!(
        "{} of {games} games reach 1-{MAX_ATTACKERS} attacking pieces (by count 1/2/3: {:?}); {} written to {FIXTURE}",
        found.len(),
        &by_attackers[1..],
        picked.len()
    );
    for f in &picked {
        eprintln!("{:>8} {:>4} {:<14} {}", f.line, f.ply, f.material.to_string(), f.fen);
    }
}
