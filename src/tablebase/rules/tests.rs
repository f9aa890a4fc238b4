//! Tests of the rule-aware pass: the entry-number width, and the companions of 64-bit entry
//! numbers, rescans and a paged pass against the files the generator writes.

use super::*;
use crate::tablebase::driver::{generate_set, GenerateOptions};
use crate::tablebase::format;
use crate::tablebase::load::{load, load_rules};
use crate::tablebase::material::{file_name, rules_file_name};
use crate::tablebase::plan;
use crate::util::progress::NoProgress;

#[test]
fn the_width_is_u32_up_to_2_pow_32_entries() {
    assert!(fits_u32(0));
    assert!(fits_u32(u32::MAX as usize));
    // 2^32 entries are numbered 0 to 2^32 - 1.
    assert!(fits_u32(1 << 32));
    assert!(!fits_u32((1 << 32) + 1));
    // KRNCvKR, the largest tables of 6 pieces.
    assert!(!fits_u32(5_904_900_000));
}

/// The companion of `material`, solved with entry numbers of type `E`, encoded as the
/// generator writes it; the plain table read back from the result is checked against the file.
fn companion_bytes<E: Entry>(
    dir: &std::path::Path,
    material: Material,
    options: Options,
    paging: Option<&Paging>,
) -> (Vec<u8>, RuleTable) {
    let (plain, _) = crate::tablebase::load::load_in(&dir.join(file_name(material)), paging).unwrap();
    let plain_values = plain.values.clone();
    let (mut plain_subs, mut subs) = (HashMap::new(), HashMap::new());
    for input in plan::inputs(material) {
        let p = Arc::new(load(&dir.join(file_name(input))).unwrap());
        subs.insert(input, Sub::of(load_rules(&dir.join(rules_file_name(input)), &p).unwrap()));
        plain_subs.insert(input, Sub::of(p));
    }
    let r = solve_as::<E>(plain, &plain_subs, &subs, options, &NoProgress, paging).unwrap();
    // The plain codes, read back through the changed entries, are the file's.
    assert!(r.plain().values == plain_values, "{material}: plain codes read back differ");
    let bytes = if r.ran() {
        let counts = r.table.counts();
        let whole = format::encode_rules(material, &plain_values, &r.table.values, &counts, &r.bands, true).unwrap();
        let by_block = format::encode_rule_table(material, &r, &counts, true).unwrap();
        assert!(whole == by_block, "{material}: the companion made block by block differs");
        by_block
    } else {
        assert!(r.table.values == plain_values, "{material}: no direction ran, yet codes changed");
        format::encode_rules_unchanged(material, r.table.entries(), &r.table.counts(), true).unwrap()
    };
    (bytes, r)
}

#[test]
fn entry_numbers_of_64_bits_and_rescans_give_the_same_companions() {
    // Tables the rules change (KRAvKR with two perpetual bands, the second searched again
    // from the first's entries, and forced bands above them).
    for name in ["KRvKN", "KRAvKR"] {
        let m: Material = name.parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        generate_set(&[m], &GenerateOptions::new(dir.path())).unwrap();
        let written = std::fs::read(dir.path().join(rules_file_name(m))).unwrap();
        assert!(fits_u32(load(&dir.path().join(file_name(m))).unwrap().values.len()));
        for shortcuts in [true, false] {
            for rescan in [false, true] {
                let options = Options { shortcuts, rescan };
                let (narrow, r32) = companion_bytes::<u32>(dir.path(), m, options, None);
                let (wide, r64) = companion_bytes::<u64>(dir.path(), m, options, None);
                // The rules change entries here, so the full pass ran with both widths.
                assert!(r64.ran() && !r64.bands.is_empty(), "{name}: nothing changed");
                assert_eq!((r32.bands, r32.skipped), (r64.bands, r64.skipped), "{name}");
                assert!(narrow == written, "{name}, shortcuts {shortcuts}, rescan {rescan}: u32 bytes differ");
                assert!(wide == written, "{name}, shortcuts {shortcuts}, rescan {rescan}: u64 bytes differ");
            }
        }
    }
}

#[test]
fn a_paged_pass_gives_the_same_companions() {
    // The codes and the pass's bits in scratch files, with a budget of one byte: the
    // watcher releases every mapped page at each look, while the pass runs.
    let scratch = tempfile::tempdir().unwrap();
    let paging = Paging::new(1, scratch.path());
    for name in ["KRvKN", "KRAvKR"] {
        let m: Material = name.parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        generate_set(&[m], &GenerateOptions::new(dir.path())).unwrap();
        let written = std::fs::read(dir.path().join(rules_file_name(m))).unwrap();
        let (paged, r) =
            companion_bytes::<u32>(dir.path(), m, Options { shortcuts: true, rescan: false }, Some(&paging));
        assert!(r.ran() && r.table.values.is_mapped(), "{name}: the pass ran on mapped codes");
        assert!(paged == written, "{name}: the paged pass's companion differs");
    }
}
