//! WDL files (`.qtw`): every position read back through them equals the DTM files' result under
//! both rules; damaged, truncated, misnamed and foreign ones are refused naming the file (the
//! probes then fall back to the DTM files or give an error, never a wrong value); `verify`
//! catches a wrong entry behind valid checksums; missing ones are added by the next `generate`;
//! the bytes are the same for 1 and 2 threads; the search's scores for them are not mates.

use crate::tablebase_common;

use qiku::engine::search::{tb_wdl_score, MATE_BOUND, TB_BOUND};
use qiku::engine::Score;
use qiku::tablebase::format::{self, TableFile};
use qiku::tablebase::generate::{self, generate_set, verify_wdl, GenerateOptions, TableCache};
use qiku::tablebase::wdl;
use qiku::tablebase::{wdl_file_name, Material, Rules, Tablebases, TbError, Wdl};
use std::path::{Path, PathBuf};

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn material(name: &str) -> Material {
    name.parse().unwrap()
}

fn generate(threads: usize, dir: &Path, materials: &[&str]) -> Vec<qiku::tablebase::generate::TableReport> {
    let ms: Vec<Material> = materials.iter().map(|m| material(m)).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| generate_set(&ms, &GenerateOptions::new(dir))).unwrap()
}

#[test]
fn every_position_reads_back_the_dtm_files_result_under_both_rules() {
    // KRvKN: 1,597 entries decided only by the Asian rules (code 3, read from the .qtr).
    let dir = tablebase_common::fresh_dir("tb_wdl_roundtrip", &["KRvKN", "KCvKA", "KPvKA"]);
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().is_empty(), "{:?}", tb.problems());
    let mut ruled = 0;
    let mut checked = 0;
    for name in ["KRvKN", "KCvKA", "KPvKA", "KRvK", "KNvK", "KCvK", "KPvK", "KAvK"] {
        let m = material(name);
        if !m.has_attackers() {
            continue;
        }
        assert!(tb.has_wdl(m), "{name} has no WDL file");
        // Both color assignments: the swapped material is looked up flipped.
        for pos in tablebase_common::all_positions(m).into_iter().chain(tablebase_common::all_positions(m.swapped())) {
            let mut seen = [Wdl::Draw; 2];
            for (i, rules) in [Rules::Plain, Rules::Asian].into_iter().enumerate() {
                let dtm = tb.probe_with(&pos, rules).unwrap().unwrap().wdl;
                let from_wdl = tb.probe_wdl_with(&pos, rules).unwrap().unwrap();
                assert_eq!(from_wdl, dtm, "{} under {rules:?}", pos.fen());
                seen[i] = dtm;
            }
            ruled += (seen[0] != seen[1]) as u32;
            checked += 1;
        }
    }
    assert!(checked > 1_000_000, "{checked}");
    // Twice each (both color assignments), mirror images apart: the entries are exercised.
    assert!(ruled > 1_597, "{ruled}");
}

#[test]
fn missing_wdl_files_are_added_by_the_next_generate_byte_for_byte() {
    let dir = tmp("tb_wdl_resume");
    generate(2, &dir, &["KRvKN"]);
    let names = ["KRvKN", "KRvK", "KNvK"].map(|m| wdl_file_name(material(m)));
    let before: Vec<Vec<u8>> = names.iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect();
    for n in &names {
        std::fs::remove_file(dir.join(n)).unwrap();
    }
    // A damaged one (cut short) is written again too.
    std::fs::write(dir.join(&names[1]), &before[1][..before[1].len() / 2]).unwrap();
    let reports = generate(2, &dir, &["KRvKN"]);
    assert!(reports.iter().all(|r| r.kept && !r.wdl_kept), "{reports:?}");
    for (n, b) in names.iter().zip(&before) {
        assert_eq!(&std::fs::read(dir.join(n)).unwrap(), b, "{n}");
    }
    let reports = generate(1, &dir, &["KRvKN"]);
    assert!(reports.iter().all(|r| r.kept && r.wdl_kept), "{reports:?}");
    // And they verify against both value sets.
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    for m in ["KRvK", "KNvK", "KRvKN"] {
        let n = verify_wdl(&dir, material(m), &mut plain, &mut rules).unwrap();
        assert!(n > 0);
    }
}

#[test]
fn wdl_bytes_are_identical_for_one_and_two_threads() {
    let (a, b) = (tmp("tb_wdl_threads_1"), tmp("tb_wdl_threads_2"));
    generate(1, &a, &["KRvKN", "KCvKA"]);
    generate(2, &b, &["KRvKN", "KCvKA"]);
    for m in ["KRvKN", "KCvKA", "KRvK", "KNvK", "KCvK"] {
        let n = wdl_file_name(material(m));
        let (x, y) = (std::fs::read(a.join(&n)).unwrap(), std::fs::read(b.join(&n)).unwrap());
        assert_eq!(x, y, "{n}");
        // 2 bits an entry at most before compression; far less after.
        let entries = TableFile::open(&a.join(&n)).unwrap().entries();
        assert!((x.len() as u64) < 256 + 24 + entries / 4 + 1, "{n}: {} bytes", x.len());
    }
}

#[test]
fn damaged_truncated_misnamed_and_foreign_wdl_files_are_refused() {
    let dir = tmp("tb_wdl_hostile");
    generate(2, &dir, &["KRvK", "KNvK"]);
    let path = dir.join("KRvK.qtw");
    let good = std::fs::read(&path).unwrap();
    let pos = qiku::Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").unwrap();
    let refused = |bytes: &[u8], why: &str| {
        std::fs::write(&path, bytes).unwrap();
        let err = TableFile::open(&path).err().expect("refused");
        assert!(err.to_string().contains("KRvK.qtw") && err.to_string().contains(why), "{why}: {err}");
        // The directory opens, names the file, and the DTM files answer instead.
        let tb = Tablebases::open(&dir).unwrap();
        assert_eq!(tb.problems().len(), 1, "{:?}", tb.problems());
        assert!(!tb.has_wdl(material("KRvK")));
        assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Win));
    };
    for cut in [0, 100, 256, good.len() / 2, good.len() - 1] {
        refused(&good[..cut], "");
    }
    let mut b = good.clone();
    b[16] ^= 1;
    refused(&b, "fingerprint");
    for at in (0..256 + 24).step_by(5) {
        let mut b = good.clone();
        b[at] ^= 0x20;
        refused(&b, "");
    }
    // A DTM table under a WDL name: the metric (and width) do not fit.
    refused(&std::fs::read(dir.join("KRvK.qtb")).unwrap(), "metric");
    // Another material's WDL file.
    std::fs::write(&path, std::fs::read(dir.join("KNvK.qtw")).unwrap()).unwrap();
    assert!(matches!(TableFile::open(&path), Err(TbError::WrongMaterial { .. })));
    // An orphan: a WDL file without its table.
    std::fs::write(&path, &good).unwrap();
    std::fs::copy(&path, dir.join("KCvK.qtw")).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().iter().any(|e| e.to_string().contains("KCvK.qtw")), "{:?}", tb.problems());
    std::fs::remove_file(dir.join("KCvK.qtw")).unwrap();
    // Companions whose names are no table's (not a material, not canonical) are listed too.
    for name in ["KRvK-old.qtw", "KvKR.qtw", "notes.qtr"] {
        std::fs::copy(&path, dir.join(name)).unwrap();
        let tb = Tablebases::open(&dir).unwrap();
        let named = |e: &TbError| e.to_string().contains(name) && e.to_string().contains("not the name of a table");
        assert!(tb.problems().iter().any(named), "{name}: {:?}", tb.problems());
        std::fs::remove_file(dir.join(name)).unwrap();
    }

    // A flipped byte in the (only) block: opens, but the probe and verify give errors.
    let mut b = good.clone();
    let last = b.len() - 2;
    b[last] ^= 0xff;
    std::fs::write(&path, &b).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().is_empty());
    let err = tb.probe_wdl(&pos).expect_err("damaged block");
    assert!(err.to_string().contains("KRvK.qtw"), "{err}");
    let err = verify_wdl(&dir, material("KRvK"), &mut TableCache::new(), &mut TableCache::new()).err().unwrap();
    assert!(err.to_string().contains("KRvK.qtw"), "{err}");

    // Truncated in place while open: the probe's read fails, naming the file (no crash).
    std::fs::write(&path, &good).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert_eq!(tb.probe_wdl(&pos).unwrap(), Some(Wdl::Win));
    tb.clear_cache();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(300).unwrap();
    let err = tb.probe_wdl(&pos).expect_err("truncated while open");
    assert!(err.to_string().contains("KRvK.qtw"), "{err}");

    // Valid checksums, one wrong entry: verify names the entry.
    let plain = std::sync::Arc::new(generate::load(&dir.join("KRvK.qtb")).unwrap());
    let rule = generate::load_rules(&dir.join("KRvK.qtr"), &plain).unwrap();
    let mut codes = wdl::codes(plain.codes(), rule.codes(), wdl::Fill::Previous);
    let legal = plain.codes().iter().position(|&v| v != qiku::tablebase::format::ILLEGAL).unwrap();
    codes[legal] ^= 1;
    let bytes = format::encode_wdl(material("KRvK"), &codes, &plain.counts(), true).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let err = verify_wdl(&dir, material("KRvK"), &mut TableCache::new(), &mut TableCache::new()).err().unwrap();
    assert!(err.to_string().contains(&format!("entry {legal}")), "{err}");
}

/// A damaged table (`.qtb`) fails the WDL probe as it fails the DTM probe, though the `.qtw`
/// beside it is intact and could answer; so does a damaged `.qtr` under the Asian rules (not
/// under the plain rules, which do not read it).
#[test]
fn a_damaged_table_or_companion_fails_the_wdl_probe_as_the_dtm_probe() {
    let dir = tmp("tb_wdl_damaged_table");
    generate(1, &dir, &["KNvK"]);
    let pos = qiku::Position::from_fen("5k3/9/9/9/2n6/9/9/4K4/9/9 w - - 0 1").unwrap();
    let refused_alike = |tb: &Tablebases, rules: Rules, file: &str| {
        let dtm = tb.verdict(&pos, rules).expect_err("the DTM probe refuses").to_string();
        let wdl = tb.probe_wdl_with(&pos, rules).expect_err("the WDL probe refuses").to_string();
        assert_eq!(wdl, dtm, "{rules:?}");
        assert!(wdl.contains(file), "{wdl}");
    };
    for name in ["KNvK.qtb", "KNvK.qtr"] {
        let path = dir.join(name);
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, &good[..good.len() / 2]).unwrap();
        let tb = Tablebases::open(&dir).unwrap();
        assert!(tb.has_wdl(material("KNvK")), "the .qtw is intact");
        refused_alike(&tb, Rules::Asian, name);
        if name == "KNvK.qtb" {
            refused_alike(&tb, Rules::Plain, name);
        } else {
            let plain = tb.verdict(&pos, Rules::Plain).unwrap().unwrap().value.wdl;
            assert_eq!(tb.probe_wdl_with(&pos, Rules::Plain).unwrap(), Some(plain));
        }
        std::fs::write(&path, &good).unwrap();
    }
    let tb = Tablebases::open(&dir).unwrap();
    assert_eq!(tb.probe_wdl(&pos).unwrap(), tb.probe(&pos).unwrap().map(|v| v.wdl));
}

#[test]
fn wdl_scores_in_the_search_are_wins_but_never_mates() {
    for ply in [1, 10, 100] {
        let win = tb_wdl_score(Wdl::Win, ply);
        assert!((TB_BOUND..MATE_BOUND).contains(&win), "{win}");
        assert!(matches!(Score::from_value(win), Score::Cp(_)));
        assert_eq!(tb_wdl_score(Wdl::Loss, ply), -win);
        assert_eq!(tb_wdl_score(Wdl::Draw, ply), 0);
        // A nearer table win is worth more.
        assert!(tb_wdl_score(Wdl::Win, ply - 1) > win);
    }
}

#[test]
fn the_search_heads_for_a_table_win_it_finds_through_the_wdl_files() {
    use qiku::engine::adapters::QtbEndgames;
    use qiku::engine::time::Limits;
    use qiku::engine::{Endgames, Engine, Source};
    use std::sync::Arc;
    let dir = tablebase_common::fresh_dir("tb_wdl_search", &["KRvKA"]);
    // Red's rook takes the loose horse: KRvKA, black to move, which the tables call lost. The root
    // (5 pieces, no table) is searched; the capture's child is probed inside the tree.
    let pos = qiku::Position::from_fen("4k4/4a4/n8/9/R8/9/9/9/9/3K5 w - - 0 1").unwrap();
    let tables = Tablebases::open(&dir).unwrap();
    let after = pos.play(qiku::notation::iccs::parse(&pos, "a5a7").unwrap()).unwrap();
    assert_eq!(tables.probe_wdl_with(&after, Rules::Asian).unwrap(), Some(Wdl::Loss));
    assert!(tables.has_wdl(material("KRvKA")));
    let mut engine = Engine::new(4);
    engine.options.tablebases = Some(Arc::new(QtbEndgames::new(tables)) as Arc<dyn Endgames>);
    let mut tbhits = 0;
    let game = qiku::Game::new(pos.clone());
    let (r, source) = engine.think(&game, &Limits::depth(6), &mut |info| tbhits = tbhits.max(info.tbhits));
    assert_eq!(source, Source::Search);
    assert_eq!(r.best.map(|m| m.to_string()), Some("a5a7".to_string()));
    // A table win without a known distance: a centipawn score in the table-win band, not a mate.
    match r.score {
        Score::Cp(v) => assert!((TB_BOUND..MATE_BOUND).contains(&v), "{v}"),
        other => panic!("{other:?} claims a mate distance the WDL files do not give"),
    }
    assert!(tbhits > 0);
}
