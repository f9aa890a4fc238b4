//! The evaluation's scale for drawish material against the endgame tables it was read from: each
//! checked entry of `drawish::SCALE` is the share of wins, in sixteenths, that a freshly generated
//! table gives; and the evaluation of such a position keeps that share of its advantage.

use qiku::engine::drawish::{self, ATTACKERS, FULL, SCALE};
use qiku::engine::eval::{breakdown, evaluate, Weights};
use qiku::tablebase::generate::{generate_set, load, GenerateOptions};
use qiku::tablebase::{file_name, Material};
use qiku::{Color, Position, Role};
use std::path::PathBuf;

/// One attacking piece and guards against guards alone: the materials of the scale, one of each
/// attacking role, with guards on either side.
const CHECKED: [&str; 6] = ["KRvKAABB", "KNvKAA", "KCAvKB", "KPvKAB", "KRBvKA", "KCvK"];

fn tables() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine_drawish");
    let _ = std::fs::remove_dir_all(&dir);
    let ms: Vec<Material> = CHECKED.iter().map(|m| m.parse().unwrap()).collect();
    generate_set(&ms, &GenerateOptions::new(&dir).rules(false)).unwrap();
    dir
}

#[test]
fn the_scale_is_the_tables_share_of_wins() {
    let dir = tables();
    for name in CHECKED {
        let m: Material = name.parse().unwrap();
        let (canonical, swapped) = m.canonical();
        let counts = load(&dir.join(file_name(canonical))).unwrap().counts();
        // The side with the attacking piece is red in the names above.
        let (red, black) = if swapped { (counts[1], counts[0]) } else { (counts[0], counts[1]) };
        let share = (red.wins as f64 / red.legal as f64 + black.losses as f64 / black.legal as f64) / 2.0;
        let role = ATTACKERS.iter().position(|&r| m.count(Color::Red, r) == 1).unwrap();
        let n = |c: Color, r: Role| m.count(c, r) as usize;
        let scale = SCALE[role][n(Color::Red, Role::Advisor)][n(Color::Red, Role::Elephant)]
            [n(Color::Black, Role::Advisor)][n(Color::Black, Role::Elephant)];
        assert_eq!(i32::from(scale), (16.0 * share).round() as i32, "{name}: share of wins {share:.4}");
    }
}

#[test]
fn drawish_material_keeps_its_share_of_the_advantage() {
    let w = Weights::DEFAULT;
    // A lone horse against an elephant, red to move.
    let pos = Position::from_fen("4k4/9/4b4/9/9/9/9/9/9/3KN4 w").unwrap();
    let b = breakdown(&pos, &w);
    let unscaled = b.total - b.drawish;
    assert!(unscaled > 200, "{b}");
    let scale = drawish::scale(&pos, Color::Red);
    assert!(scale > 0 && scale < FULL / 4, "{scale}");
    assert_eq!(b.total, unscaled * scale / FULL, "{b}");
    assert_eq!(evaluate(&pos, &w), b.total);
    assert!(b.to_string().contains(&format!("drawish {}", b.drawish)), "{b}");
    // The same with a second attacking piece: every advantage counts.
    let pos = Position::from_fen("4k4/9/4b4/9/9/9/4P4/9/9/3KN4 w").unwrap();
    let b = breakdown(&pos, &w);
    assert_eq!(b.drawish, 0, "{b}");
    assert!(!b.to_string().contains("drawish"), "{b}");
    // Guards alone cannot win: black's extra advisor counts for nothing (black to move).
    let pos = Position::from_fen("3aka3/9/4b4/9/9/9/9/9/4A4/3K5 b").unwrap();
    assert_eq!(evaluate(&pos, &w), 0);
}
