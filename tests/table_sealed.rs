//! Crafted table files with valid checksums: the property tests in `tests/reader_fuzz.rs` and the
//! libFuzzer targets mutate real files at random, which almost never keeps the checksums right,
//! so what lies behind them (header fields, block index records, block bodies, band tables) is
//! reached here instead. Each file of a real set (`.qtb`, `.qtr`, `.qtw`) is taken apart, edited
//! and sealed again with every checksum valid (`tests/fuzz_common/seal.rs`, written from
//! docs/FORMAT.md), and put in place of the real one beside the others. What must hold: no
//! panic or hang in opening, probing under both rules, reading every block or verifying; best
//! moves legal; and whenever the probes believe the crafted file and answer otherwise than the
//! real set, `verify` of that file refuses it: a file with valid checksums can lie to a probe,
//! never to the verifier.
//!
//! Two sets: KRvK (one block per file) and KRvKN (23 blocks per DTM file, a band table in its
//! companion, 1,597 entries that only the Asian rules decide); their DTM and companion files
//! also rebuilt with 2-byte codes, the width no small table is written with.

use crate::seal::{seal, Edit, Unsealed, Value};
use crate::tablebase_common::{all_positions, fresh_dir};
use proptest::prelude::*;
use qiku::tablebase::format::TableFile;
use qiku::tablebase::generate::{verify_rules, verify_table, verify_wdl, TableCache};
use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material, Rules, Tablebases, TbValue, Wdl};
use qiku::{Move, Position};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which of a material's three files a crafted file stands in for (its number is its place in
/// [`KINDS`] and in [`Set::files`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Table,
    Rules,
    Wdl,
}

const KINDS: [Kind; 3] = [Kind::Table, Kind::Rules, Kind::Wdl];

impl Kind {
    fn file_name(self, m: Material) -> String {
        match self {
            Kind::Table => file_name(m),
            Kind::Rules => rules_file_name(m),
            Kind::Wdl => wdl_file_name(m),
        }
    }
}

/// What a directory answers for one position: the value under each rule set, the WDL probe, and
/// the best moves under each rule set.
type Answer = (Option<TbValue>, Option<TbValue>, Option<Wdl>, Option<Vec<Move>>, Option<Vec<Move>>);

/// A real set of files: the material's three files and the smaller tables its captures need.
struct Set {
    material: Material,
    dir: PathBuf,
    files: [Vec<u8>; 3],
    positions: Vec<Position>,
    answers: Vec<Answer>,
}

/// Probes every position (errors count as no answer); best moves must be legal whatever the
/// files hold.
fn answers(dir: &Path, positions: &[Position]) -> Vec<Answer> {
    let tb = Tablebases::open(dir).expect("the directory exists");
    positions
        .iter()
        .map(|pos| {
            let best = |rules| {
                let moves = tb.best_moves_with(pos, rules).ok().flatten();
                for &m in moves.iter().flatten() {
                    assert!(pos.is_legal(m), "best move {m} not legal in {} ({rules:?})", pos.fen());
                }
                moves
            };
            (
                tb.probe_with(pos, Rules::Plain).ok().flatten(),
                tb.probe_with(pos, Rules::Asian).ok().flatten(),
                tb.probe_wdl(pos).ok().flatten(),
                best(Rules::Plain),
                best(Rules::Asian),
            )
        })
        .collect()
}

fn build(name: &str) -> Set {
    let material: Material = name.parse().expect("material");
    let dir = fresh_dir(&format!("sealed_{name}"), &[name]);
    let files = KINDS.map(|k| std::fs::read(dir.join(k.file_name(material))).expect("a real file"));
    // Positions spread over the whole table, plus those the Asian rules decide otherwise.
    let all = all_positions(material);
    let tb = Tablebases::open(&dir).expect("open");
    let mut positions: Vec<Position> = all.iter().step_by(all.len() / 48 + 1).cloned().collect();
    let changed = all.iter().filter(|p| {
        let v = |r| tb.probe_with(p, r).expect("probe").map(|v| v.wdl);
        v(Rules::Plain) != v(Rules::Asian)
    });
    positions.extend(changed.step_by(97).take(16).cloned());
    let answers = answers(&dir, &positions);
    Set { material, dir, files, positions, answers }
}

fn set(name: &str) -> &'static Set {
    static SETS: OnceLock<[Set; 2]> = OnceLock::new();
    let sets = SETS.get_or_init(|| [build("KRvK"), build("KRvKN")]);
    sets.iter().find(|s| s.material.to_string() == name).expect("a built set")
}

/// A directory of its own for each test thread and set, inside the set's directory (so that the
/// next run's [`fresh_dir`] removes it): the set's tables copied once, the material's three files
/// written for each input.
fn work_dir(set: &Set) -> PathBuf {
    let d = set.dir.join(format!("work-{:?}", std::thread::current().id()));
    if !d.exists() {
        let tmp = d.with_extension("tmp");
        std::fs::create_dir_all(&tmp).expect("mkdir");
        for e in std::fs::read_dir(&set.dir).expect("the set's directory") {
            let p = e.expect("entry").path();
            if p.is_file() {
                std::fs::copy(&p, tmp.join(p.file_name().expect("a file name"))).expect("copy");
            }
        }
        std::fs::rename(&tmp, &d).expect("rename");
    }
    d
}

fn verify(kind: Kind, dir: &Path, m: Material) -> Result<(), String> {
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    match kind {
        Kind::Table => verify_table(dir, m, &mut plain).map(drop),
        Kind::Rules => verify_rules(dir, m, &mut plain, &mut rules).map(drop),
        Kind::Wdl => verify_wdl(dir, m, &mut plain, &mut rules).map(drop),
    }
    .map_err(|e| e.to_string())
}

/// A real file taken apart, widened to 2-byte codes if `wide`, edited and sealed again.
fn craft(real: &[u8], wide: bool, edits: &[Edit], compress: u64) -> Vec<u8> {
    let file = Unsealed::parse(real);
    seal(&if wide { file.widen() } else { file }, edits, compress)
}

/// The crafted file of `kind` in place of the real one: see the module documentation.
fn check(set: &Set, kind: Kind, wide: bool, edits: &[Edit], compress: u64) {
    let data = craft(&set.files[kind as usize], wide, edits, compress);
    let dir = work_dir(set);
    for (k, real) in KINDS.iter().zip(&set.files) {
        let bytes = if *k == kind { &data } else { real };
        std::fs::write(dir.join(k.file_name(set.material)), bytes).expect("write");
    }
    let seen = answers(&dir, &set.positions);
    if let Ok(file) = TableFile::open(&dir.join(kind.file_name(set.material))) {
        for b in 0..file.blocks().len() {
            let _ = file.read_block(b).map_err(|e| e.to_string());
        }
        if kind == Kind::Wdl {
            let _ = file.decode_all().map_err(|e| e.to_string());
        }
    }
    let verdict = verify(kind, &dir, set.material);
    if seen != set.answers {
        assert!(verdict.is_err(), "a crafted {kind:?} file of {} changes answers and verifies", set.material);
    }
}

/// Changes for [`seal`]: block bodies, lengths, header and index fields, band bytes.
fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let value = Value::any();
    let edit = prop_oneof![
        (any::<usize>(), any::<usize>(), any::<u8>()).prop_map(|(block, at, byte)| Edit::BlockByte { block, at, byte }),
        (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(block, len, grow)| Edit::BlockLength {
            block,
            len,
            grow
        }),
        (any::<usize>(), value.clone()).prop_map(|(field, value)| Edit::Header { field, value }),
        (any::<usize>(), any::<u8>(), value).prop_map(|(block, field, value)| Edit::Index { block, field, value }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Edit::Band { at, byte }),
    ];
    prop::collection::vec(edit, 1..4)
}

#[test]
fn sealed_without_edits_the_files_verify_and_answer_as_the_real_ones() {
    // The crafted files only test something if they get past the checksums: unedited, stored
    // raw or compressed, they must verify and answer exactly as the real files.
    for name in ["KRvK", "KRvKN"] {
        let s = set(name);
        for compress in [0, u64::MAX, 0x5555] {
            let dir = work_dir(s);
            for wide in [false, true] {
                for (k, real) in KINDS.iter().zip(&s.files) {
                    std::fs::write(dir.join(k.file_name(s.material)), craft(real, wide, &[], compress)).expect("write");
                }
                for k in KINDS {
                    assert_eq!(verify(k, &dir, s.material), Ok(()), "{name} {k:?} {compress:x} wide {wide}");
                }
                assert_eq!(answers(&dir, &s.positions), s.answers, "{name} {compress:x} wide {wide}");
            }
        }
    }
    // What the sets cover: several blocks and a band table, positions the rules decide.
    let krkn = set("KRvKN");
    assert_eq!(Unsealed::parse(&krkn.files[0]).blocks(), 23);
    assert_eq!(Unsealed::parse(&krkn.files[1]).bands(), 1);
    let rule_decided = krkn.answers.iter().filter(|a| a.0.map(|v| v.wdl) != a.1.map(|v| v.wdl)).count();
    assert_eq!((krkn.positions.len(), rule_decided), (64, 16));
    assert!(set("KRvK").answers.iter().all(|a| a.0.is_some() && a.2.is_some()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn crafted_krk_files(kind in prop::sample::select(KINDS.to_vec()), wide: bool, e in edits(), compress in any::<u64>()) {
        check(set("KRvK"), kind, wide, &e, compress);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn crafted_krkn_files(kind in prop::sample::select(KINDS.to_vec()), wide: bool, e in edits(), compress in any::<u64>()) {
        check(set("KRvKN"), kind, wide, &e, compress);
    }
}
