//! Table files are checked behind their checksums: reserved header, block index and band bytes
//! must be 0.

use crate::seal::{seal, Edit, Unsealed, Value, FIELDS};
use qiku::tablebase::format::TableFile;
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{file_name, Material};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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

/// Opens `bytes` as the file `name`: the error's text if refused.
fn refusal(bytes: Vec<u8>, name: &str) -> Option<String> {
    TableFile::from_bytes(bytes, name).err().map(|e| e.to_string())
}

#[test]
fn reserved_header_index_and_band_bytes_must_be_zero() {
    let m = material("KRvKN");
    for (name, edits) in [(file_name(m), vec![]), (format!("{m}.qtr"), vec![]), (format!("{m}.qtw"), vec![])]
        .into_iter()
        .chain([62, 74, 212].map(|at| {
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
