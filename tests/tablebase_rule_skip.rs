//! The rule-aware pass skips the directions that provably change nothing (where the captures
//! agree with the plain solve, the forced band is empty; a defender with only king, advisors and
//! elephants never checks, and otherwise the perpetual band is found without the pass's
//! counters): the `.qtb`, `.qtr` and `.qtw` files are the same bytes with and without the skip,
//! through `generate_set` and through `generate_only`, and the skip really happens.

use qiku::tablebase::generate::{generate_only, generate_set, GenerateOptions, TableReport};
use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material};
use qiku::Color;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the skip applies without looking at an entry (one side without attacking pieces:
/// KRvKAABB and everything it captures into), where both sides can check (KRvKN, KCvKR, KRAvKP:
/// the rules change KRvKN and KRAvKP), and where the side without an attacking piece wins by
/// stalemate (KNAAvKB: a horse hemmed in by its own advisors and pinned on the kings' file).
const MATERIALS: &[&str] = &["KRvKAABB", "KNvKAB", "KCvKB", "KPvKA", "KRvKN", "KCvKR", "KRAvKP", "KNAAvKB"];

fn fresh(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn materials(names: &[&str]) -> Vec<Material> {
    names.iter().map(|m| m.parse().unwrap()).collect()
}

/// Every file of `dir` by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The directions the skip may leave out: one for each side without attacking pieces (the other
/// side attacking it).
fn skippable(material: &str) -> u8 {
    let m: Material = material.parse().unwrap();
    Color::ALL.iter().filter(|&&c| !m.side_has_attackers(c)).count() as u8
}

fn by_material(reports: &[TableReport]) -> BTreeMap<&str, &TableReport> {
    reports.iter().map(|r| (r.material.as_str(), r)).collect()
}

#[test]
fn skipping_the_directions_that_cannot_change_changes_no_byte() {
    let (on_dir, off_dir) = (fresh("rule_skip_on"), fresh("rule_skip_off"));
    let on = generate_set(&materials(MATERIALS), &GenerateOptions::new(&on_dir).threads(2)).unwrap();
    let off =
        generate_set(&materials(MATERIALS), &GenerateOptions::new(&off_dir).threads(2).rule_shortcuts(false)).unwrap();

    // The same tables, every one made (nothing kept), each with all three files.
    let (on_r, off_r) = (by_material(&on), by_material(&off));
    assert_eq!(on_r.keys().collect::<Vec<_>>(), off_r.keys().collect::<Vec<_>>());
    assert!(on.len() > 20, "{} tables", on.len());
    for r in on.iter().chain(&off) {
        assert!(!r.kept && r.rules_bytes > 0 && r.wdl_bytes > 0, "{}", r.material);
    }

    // Byte-identical files.
    let (a, b) = (files(&on_dir), files(&off_dir));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert_eq!(a.len(), 3 * on.len());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs with and without the skip");
    }

    // The skip happened: always where a side has no attacking piece (that side's opponent
    // attacking it), and elsewhere where the perpetual band is empty; never for a direction the
    // rules change (the bytes above), never without the shortcuts.
    for (name, r) in &on_r {
        assert!(r.rules_skipped >= skippable(name), "{name}: {} skipped", r.rules_skipped);
        assert_eq!(r.changed, off_r[name].changed, "{name}");
        if r.changed != [0, 0] {
            assert!(r.rules_skipped < 2, "{name}: changed, yet both directions skipped");
        }
        assert_eq!(off_r[name].rules_skipped, 0, "{name}");
    }
    assert_eq!(on_r["KRvKAABB"].rules_skipped, 2);
    // Both sides can check: the rook side's direction changes KRvKN and is run in full, the
    // horse side's is skipped once its perpetual band is found empty.
    assert_eq!((skippable("KRvKN"), on_r["KRvKN"].rules_skipped), (0, 1));
    assert_eq!((skippable("KRAvKP"), on_r["KRAvKP"].rules_skipped), (0, 1));
    // Both sides can check and nothing changes: both directions are skipped after looking.
    assert_eq!((skippable("KRvKC"), on_r["KRvKC"].rules_skipped), (0, 2));
    assert_eq!((skippable("KNAAvKB"), on_r["KNAAvKB"].rules_skipped), (1, 2));
    // The rules change tables in the set: those are never skipped whole.
    assert_ne!(on_r["KRvKN"].changed, [0, 0]);
    assert_ne!(on_r["KRAvKP"].changed, [0, 0]);
    let both = on.iter().filter(|r| r.rules_skipped == 2).count();
    assert!(both >= 10, "{both} tables skipped whole");

    // One job of a workflow engine: the table alone, its inputs (plain and rule-aware) read from
    // the files, gives the same bytes and skips the same direction.
    let only_dir = fresh("rule_skip_only");
    std::fs::create_dir_all(&only_dir).unwrap();
    let target: Material = "KRvKAABB".parse().unwrap();
    let own = [file_name(target), rules_file_name(target), wdl_file_name(target)];
    for (name, bytes) in &a {
        if !own.contains(name) {
            std::fs::write(only_dir.join(name), bytes).unwrap();
        }
    }
    let only = generate_only(&[target], &GenerateOptions::new(&only_dir).threads(2)).unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].rules_skipped, 2);
    for name in &own {
        assert!(std::fs::read(only_dir.join(name)).unwrap() == a[name], "{name} differs through generate_only");
    }
}

#[test]
fn uncompressed_files_are_the_same_bytes_too() {
    // Blocks stored raw: the all-zero companion is laid out block by block as before.
    let names = ["KNvKAB", "KRvKN"];
    let (on_dir, off_dir) = (fresh("rule_skip_raw_on"), fresh("rule_skip_raw_off"));
    let on = generate_set(&materials(&names), &GenerateOptions::new(&on_dir).compress(false)).unwrap();
    generate_set(&materials(&names), &GenerateOptions::new(&off_dir).compress(false).rule_shortcuts(false)).unwrap();
    assert!(on.iter().any(|r| r.rules_skipped == 2));
    let (a, b) = (files(&on_dir), files(&off_dir));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs with and without the skip");
    }
}
