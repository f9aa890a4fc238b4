//! Tests of generating a set: a table above the memory available refused, a kept companion
//! sharing the kept table, and `generate_only` reading its inputs and writing only its files.

use super::*;
use crate::tablebase::load::load;

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn without_a_budget_a_table_above_the_memory_available_is_refused_naming_the_sizes() {
    let krnvkr: Material = "KRNvKR".parse().unwrap();
    // Its estimate is some hundreds of MiB: within 16 GiB, not within 64 MiB.
    assert!(fits_available(krnvkr, true, Some(16 << 30)).is_ok());
    assert!(fits_available(krnvkr, true, None).is_ok());
    let refused = fits_available(krnvkr, true, Some(64 << 20)).unwrap_err();
    let TbError::MoreThanAvailable { needs, available, .. } = refused else { panic!("{refused}") };
    assert_eq!(available, 64 << 20);
    let MemoryMode::InMemory { needs: estimate } = plan::memory_mode(krnvkr, true, u64::MAX) else { panic!() };
    assert_eq!(needs, estimate);
    let text = refused.to_string();
    assert!(text.starts_with("KRNvKR: needs about ") && text.contains("and only 64 MiB is available here"), "{text}");
    assert!(text.contains("give --memory SIZE of at most that"), "{text}");
}

#[test]
fn a_kept_companion_storing_nothing_shares_the_kept_table() {
    let krk: Material = "KRvK".parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = GenerateOptions::new(dir.path());
    generate_set(&[krk], &opts).unwrap();
    // The resume path: the table and its companion are there and intact.
    let table = load(&dir.path().join(file_name(krk))).unwrap();
    let counts = table.counts();
    let held = Held::new();
    let c = companion(krk, table, &counts, true, (&held, &held), &opts, (&NoProgress, None), "KRvK").unwrap();
    assert!(c.kept && c.counts.is_none());
    let Both::Tables(plain, rule) = &c.values else { panic!("a kept companion holds two tables") };
    assert!(Arc::ptr_eq(plain, rule));
    assert_eq!(c.bytes, std::fs::metadata(dir.path().join(rules_file_name(krk))).unwrap().len());
}

#[test]
fn only_mode_reads_its_inputs_and_writes_its_own_files() {
    let krvka: Material = "KRvKA".parse().unwrap();
    let full = tempfile::tempdir().unwrap();
    generate_set(&[krvka], &GenerateOptions::new(full.path())).unwrap();
    let alone = tempfile::tempdir().unwrap();
    let opts = GenerateOptions::new(alone.path());
    // No input: a clear error naming the missing file, and nothing written.
    let e = generate_only(&[krvka], &opts).unwrap_err();
    assert!(matches!(&e, TbError::MissingDependency { needs, .. } if needs.ends_with("KRvK.qtb")), "{e}");
    assert!(names(alone.path()).is_empty(), "{:?}", names(alone.path()));
    // Its input in place: exactly its own three files are added, identical to a full run's.
    for f in ["KRvK.qtb", "KRvK.qtr"] {
        std::fs::copy(full.path().join(f), alone.path().join(f)).unwrap();
    }
    let reports = generate_only(&[krvka], &opts).unwrap();
    assert_eq!(reports.len(), 1);
    assert!(!reports[0].kept);
    assert_eq!(names(alone.path()), ["KRvK.qtb", "KRvK.qtr", "KRvKA.qtb", "KRvKA.qtr", "KRvKA.qtw"]);
    for f in ["KRvKA.qtb", "KRvKA.qtr", "KRvKA.qtw"] {
        assert_eq!(std::fs::read(alone.path().join(f)).unwrap(), std::fs::read(full.path().join(f)).unwrap(), "{f}");
    }
    // A damaged input (a byte of its companion flipped) is refused before any work.
    for f in ["KRvKA.qtb", "KRvKA.qtr", "KRvKA.qtw"] {
        std::fs::remove_file(alone.path().join(f)).unwrap();
    }
    let qtr = alone.path().join("KRvK.qtr");
    let mut bytes = std::fs::read(&qtr).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&qtr, &bytes).unwrap();
    let e = generate_only(&[krvka], &opts).unwrap_err();
    assert!(matches!(&e, TbError::BadInput { .. }), "{e}");
    assert!(e.to_string().contains("KRvK.qtr"), "{e}");
    assert_eq!(names(alone.path()), ["KRvK.qtb", "KRvK.qtr"]);
    // Without the rule-aware pass the companion is not read: only the .qtb is written.
    let plain = opts.clone().rules(false);
    generate_only(&[krvka], &plain).unwrap();
    assert_eq!(names(alone.path()), ["KRvK.qtb", "KRvK.qtr", "KRvKA.qtb"]);
}
