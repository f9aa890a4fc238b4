//! CI's tablebase run: generate every table of up to 4 pieces and a few of 5, then verify each
//! one independently (`qiku-tb verify`'s code path) and check the set's known figures.

use crate::tablebase_common;

use qiku::tablebase::generate::{verify_table, verify_wdl, TableCache};
use qiku::tablebase::{Material, Tablebases};

#[test]
fn all_tables_up_to_4_pieces_and_some_of_5_generate_and_verify() {
    let mut names: Vec<String> = Material::all_up_to(4).iter().map(|m| m.to_string()).collect();
    assert_eq!(names.len(), 40);
    names.extend(["KNAAvK", "KRvKAB", "KPPvKB"].map(String::from));
    let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let dir = tablebase_common::fresh_dir("tb_ci", &refs);
    let tb = Tablebases::open(&dir).unwrap();
    let mut all: Vec<Material> = tb.tables().into_iter().map(|t| t.material).collect();
    all.sort_by_key(|m| (m.piece_count(), m.to_string()));
    // Their dependencies (KNAvK, KRvKA, KRvKB, KPPvK, KPvKB, ...) are all in the 4-piece set.
    assert_eq!(all.len(), 43);
    let (mut cache, mut rules) = (TableCache::new(), TableCache::new());
    for m in all {
        verify_table(&dir, m, &mut cache).unwrap_or_else(|e| panic!("{m}: {e}"));
        // Every entry of its WDL file against the DTM and Asian-rules values.
        verify_wdl(&dir, m, &mut cache, &mut rules).unwrap_or_else(|e| panic!("{m} (WDL): {e}"));
    }
}
