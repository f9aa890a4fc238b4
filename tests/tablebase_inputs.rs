//! Whole tables read back are checked against their own headers, not only their checksums: a
//! table whose values contradict its header's counts (the checksums recomputed), or that holds a
//! reserved value code, is refused when it is an input of `generate` or `verify`, and kept tables
//! are made again; `generate --only` checks every input before writing anything; what is at a
//! table's name and is not a table file is refused, and a link there is replaced, not written
//! through; reserved header and index bytes must be 0.

use crate::seal::{seal, Edit, Unsealed, Value, FIELDS};
use qiku::tablebase::format::{self, code, TableFile, DRAW, ILLEGAL};
use qiku::tablebase::generate::{
    self, generate_only, generate_set, verify_rules, verify_table, verify_wdl, GenerateOptions, TableCache,
};
use qiku::tablebase::{file_name, Material, TbError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

fn material(s: &str) -> Material {
    s.parse().unwrap()
}

/// An empty directory of its own under the target directory.
fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// KRvKN and its inputs (KRvK, KNvK) generated once.
fn base() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tmp("tb_inputs_base");
        generate_set(&[material("KRvKN")], &GenerateOptions::new(&dir)).unwrap();
        dir
    })
}

/// A directory `name` holding the base set's files whose names start with one of `tables`.
fn copy_of(name: &str, tables: &[&str]) -> PathBuf {
    let dir = tmp(name);
    for t in tables {
        for ext in ["qtb", "qtr", "qtw"] {
            let f = format!("{t}.{ext}");
            std::fs::copy(base().join(&f), dir.join(&f)).unwrap();
        }
    }
    dir
}

/// Sorted names in `dir`.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Rewrites the `.qtb` at `path` with `change` applied to its codes, every checksum valid and the
/// header's counts those of the original values: a file only its counts can tell wrong.
fn lie(path: &Path, change: impl FnOnce(&mut [u16], u64)) {
    let header = TableFile::open(path).unwrap().header().clone();
    let mut table = generate::load(path).unwrap();
    change(table.codes_mut(), header.per_side);
    let bytes = format::encode(header.material, table.codes(), &header.counts, false).unwrap();
    format::write_atomic(path, &bytes).unwrap();
}

/// The audit's KRvK: black-to-move losses in 2 and 4 plies stored as draws (KRvKN made from it
/// had 174,091 red wins instead of 346,311).
fn lying_krk(dir: &Path) {
    lie(&dir.join("KRvK.qtb"), |codes, per| {
        for c in &mut codes[per as usize..] {
            if *c == code(2) || *c == code(4) {
                *c = DRAW;
            }
        }
    });
}

/// The first drawn entry stored as won in 1 (or, in a table without draws, the first decided
/// one as drawn).
fn lying_any(path: &Path) {
    lie(path, |codes, _| match codes.iter().position(|&c| c == DRAW) {
        Some(i) => codes[i] = code(1),
        None => {
            let i = codes.iter().position(|&c| c != ILLEGAL).unwrap();
            codes[i] = DRAW;
        }
    });
}

/// Collects the lines a generation prints (`println`) beside its progress.
#[derive(Default)]
struct Lines(Mutex<Vec<String>>);

impl qiku::Progress for Lines {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn println(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
    fn finish(&self) {}
}

#[test]
fn an_input_whose_values_contradict_its_header_is_refused_by_generate_only() {
    let dir = copy_of("tb_inputs_only", &["KRvK", "KNvK"]);
    lying_krk(&dir);
    let e = generate_only(&[material("KRvKN")], &GenerateOptions::new(&dir)).unwrap_err();
    assert!(matches!(e, TbError::BadInput { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains(&dir.join("KRvK.qtb").display().to_string()) && text.contains("counts"), "{text}");
    assert!(!dir.join("KRvKN.qtb").exists(), "{:?}", names(&dir));
}

#[test]
fn generate_makes_a_kept_table_whose_values_contradict_its_header_again() {
    let dir = copy_of("tb_inputs_kept", &["KRvK", "KNvK"]);
    lying_krk(&dir);
    let lines = Arc::new(Lines::default());
    let reports = generate_set(&[material("KRvKN")], &GenerateOptions::new(&dir).progress(lines.clone())).unwrap();
    let kept: Vec<(&str, bool)> = reports.iter().map(|r| (r.material.as_str(), r.kept)).collect();
    assert_eq!(kept, [("KNvK", true), ("KRvK", false), ("KRvKN", false)]);
    // Said why, naming the file.
    let said = lines.0.lock().unwrap().clone();
    let krk = dir.join("KRvK.qtb").display().to_string();
    assert!(
        said.iter().any(|l| l.contains(&krk) && l.contains("counts") && l.ends_with("generating it again")),
        "{said:?}"
    );
    // Every file as a clean run's.
    assert_eq!(names(&dir), names(base()));
    for n in names(base()) {
        assert!(std::fs::read(dir.join(&n)).unwrap() == std::fs::read(base().join(&n)).unwrap(), "{n}");
    }
}

#[test]
fn verify_does_not_pass_a_table_whose_input_contradicts_its_header() {
    let dir = copy_of("tb_inputs_verify", &["KRvK", "KNvK", "KRvKN"]);
    lying_krk(&dir);
    let krk = dir.join("KRvK.qtb");
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    let m = material("KRvKN");
    for e in [verify_table(&dir, m, &mut plain).map(drop), verify_rules(&dir, m, &mut plain, &mut rules).map(drop)] {
        let e = e.expect_err("a table read through a lying input");
        assert_eq!(e.path(), Some(krk.as_path()), "{e}");
        assert!(e.to_string().contains("counts"), "{e}");
    }
    // The WDL file is checked against its own table's files only, which are right.
    assert!(verify_wdl(&dir, m, &mut plain, &mut rules).is_ok());
}

#[test]
fn whole_table_loads_refuse_reserved_codes_and_values_that_contradict_the_header() {
    let dir = copy_of("tb_inputs_load", &["KRvK", "KNvK", "KRvKN"]);
    // The audit's entry 12 of KRvKN (9/9/3k5/9/9/9/9/9/3n5/R2K5 w, won in 5), code 7, as 245:
    // a 1-byte code above the largest distance, reserved.
    let path = dir.join("KRvKN.qtb");
    lie(&path, |codes, _| {
        assert_eq!(codes[12], 7);
        codes[12] = 245;
    });
    let e = generate::load(&path).err().expect("a reserved code is refused");
    let text = e.to_string();
    assert!(text.contains("KRvKN.qtb") && text.contains("reserved value code 245"), "{text}");
    // Values that only the counts tell wrong.
    let path = dir.join("KNvK.qtb");
    lying_any(&path);
    let e = generate::load(&path).err().expect("values against the header's counts are refused");
    assert!(matches!(e, TbError::Corrupt { field: qiku::tablebase::TbField::Counts, .. }), "{e}");
    assert_eq!(e.path(), Some(path.as_path()));
}

/// Opens `bytes` as the file `name`: the error's text if refused.
fn refusal(bytes: Vec<u8>, name: &str) -> Option<String> {
    TableFile::from_bytes(bytes, name).err().map(|e| e.to_string())
}

#[test]
fn reserved_header_index_and_band_bytes_must_be_zero() {
    let m = material("KRvKN");
    for (name, edits) in [(file_name(m), vec![]), (format!("{m}.qtr"), vec![]), (format!("{m}.qtw"), vec![])]
        .into_iter()
        .chain([62, 74, 212, 240].map(|at| {
            let field = FIELDS.iter().position(|&(o, _)| o == at).unwrap();
            (file_name(m), vec![Edit::Header { field, value: Value::Raw(1) }])
        }))
        .chain([0usize, 5].map(|block| (file_name(m), vec![Edit::Index { block, field: 3, value: Value::Raw(0x100) }])))
        .chain([(format!("{m}.qtr"), vec![Edit::Band { at: 3, byte: 1 }])])
    {
        let real = std::fs::read(base().join(&name)).unwrap();
        let refused = refusal(seal(&Unsealed::parse(&real), &edits, 0), &name);
        if edits.is_empty() {
            assert_eq!(refused, None, "{name} sealed again unedited");
        } else {
            let e = refused.unwrap_or_else(|| panic!("{name} with {edits:?} opens"));
            assert!(e.contains(&name) && e.contains("reserved"), "{edits:?}: {e}");
        }
    }
}

#[test]
fn only_checks_every_input_outside_the_selection_before_writing_anything() {
    let selection = [material("KRvKN"), material("KRvK")];
    // KNvK (which KRvKN captures into, and which is not selected) is missing: nothing is made,
    // not even KRvK, which needs no input.
    let dir = tmp("tb_inputs_only_first");
    let e = generate_only(&selection, &GenerateOptions::new(&dir)).unwrap_err();
    assert!(matches!(&e, TbError::MissingDependency { needs, .. } if needs.ends_with("KNvK.qtb")), "{e}");
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    // There but contradicting its header: the same.
    for ext in ["qtb", "qtr", "qtw"] {
        std::fs::copy(base().join(format!("KNvK.{ext}")), dir.join(format!("KNvK.{ext}"))).unwrap();
    }
    lying_any(&dir.join("KNvK.qtb"));
    let e = generate_only(&selection, &GenerateOptions::new(&dir)).unwrap_err();
    assert!(matches!(e, TbError::BadInput { .. }) && e.to_string().contains("KNvK.qtb"), "{e}");
    assert_eq!(names(&dir), ["KNvK.qtb", "KNvK.qtr", "KNvK.qtw"]);
    // Intact: both are made, as a full run makes them.
    std::fs::copy(base().join("KNvK.qtb"), dir.join("KNvK.qtb")).unwrap();
    generate_only(&selection, &GenerateOptions::new(&dir)).unwrap();
    for n in names(base()) {
        assert!(std::fs::read(dir.join(&n)).unwrap() == std::fs::read(base().join(&n)).unwrap(), "{n}");
    }
}

#[cfg(unix)]
#[test]
fn generate_refuses_what_is_not_a_table_and_replaces_links_rather_than_writing_through_them() {
    let root = tmp("tb_inputs_places");
    let dir = root.join("tables");
    std::fs::create_dir_all(&dir).unwrap();
    let precious = root.join("precious.txt");
    std::fs::write(&precious, "data\n").unwrap();
    std::os::unix::fs::symlink("../precious.txt", dir.join("KRvK.qtb")).unwrap();
    std::fs::write(dir.join("KRvK.qtw"), "my notes\n").unwrap();
    let e = generate_set(&[material("KRvK")], &GenerateOptions::new(&dir)).unwrap_err();
    let text = e.to_string();
    for name in ["KRvK.qtb", "KRvK.qtw"] {
        assert!(text.contains(&dir.join(name).display().to_string()), "{text}");
    }
    assert!(text.contains("not a table file"), "{text}");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "data\n");
    assert_eq!(std::fs::read_to_string(dir.join("KRvK.qtw")).unwrap(), "my notes\n");
    assert!(!dir.join("KRvK.qtr").exists(), "refused before any work");

    // A link to a damaged table elsewhere: the table is made in the directory, in place of the
    // link; the file it pointed to is left as it was. A link to an intact one is kept.
    std::fs::remove_file(dir.join("KRvK.qtb")).unwrap();
    std::fs::remove_file(dir.join("KRvK.qtw")).unwrap();
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let mut damaged = std::fs::read(base().join("KRvK.qtb")).unwrap();
    let n = damaged.len();
    damaged[n - 3] ^= 0x55;
    std::fs::write(elsewhere.join("KRvK.qtb"), &damaged).unwrap();
    std::fs::copy(base().join("KNvK.qtb"), elsewhere.join("KNvK.qtb")).unwrap();
    for t in ["KRvK", "KNvK"] {
        std::os::unix::fs::symlink(elsewhere.join(format!("{t}.qtb")), dir.join(format!("{t}.qtb"))).unwrap();
    }
    let reports = generate_set(&[material("KRvK"), material("KNvK")], &GenerateOptions::new(&dir)).unwrap();
    let krk = reports.iter().find(|r| r.material == "KRvK").unwrap();
    assert!(!krk.kept, "{reports:?}");
    assert_eq!(std::fs::read(elsewhere.join("KRvK.qtb")).unwrap(), damaged);
    let made = std::fs::symlink_metadata(dir.join("KRvK.qtb")).unwrap();
    assert!(made.file_type().is_file(), "the link was replaced by the table");
    assert_eq!(std::fs::read(dir.join("KRvK.qtb")).unwrap(), std::fs::read(base().join("KRvK.qtb")).unwrap());
    // The intact KNvK.qtb was kept through its link (its companions made beside it).
    assert!(std::fs::symlink_metadata(dir.join("KNvK.qtb")).unwrap().file_type().is_symlink());
    assert!(dir.join("KNvK.qtr").is_file() && dir.join("KNvK.qtw").is_file());
}
