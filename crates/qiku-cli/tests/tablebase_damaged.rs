//! A tables directory with some damaged files: a probe says its own answer or error first and
//! counts the other materials' unusable files in one warning after it.

use crate::common::qiku_tb;
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::Material;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// KRvK, KCvK, KPvK, KPAvK, KCvKP, KRvKR in a fresh directory, then three files damaged:
/// `KPvK.qtb` truncated (KPAvK's and KCvKP's captures lead to it), `KCvKP.qtr` emptied, and
/// `KRvKR.qtb` replaced by another table's file.
fn damaged_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let materials: Vec<Material> = ["KRvK", "KPAvK", "KCvKP", "KRvKR"].iter().map(|m| m.parse().unwrap()).collect();
    generate_set(&materials, &GenerateOptions::new(&dir)).unwrap();
    let kpk = dir.join("KPvK.qtb");
    let bytes = std::fs::read(&kpk).unwrap();
    std::fs::write(&kpk, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(dir.join("KCvKP.qtr"), b"").unwrap();
    std::fs::copy(dir.join("KRvK.qtb"), dir.join("KRvKR.qtb")).unwrap();
    dir
}

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("run qiku")
}

fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr).lines().map(str::to_string).collect()
}

/// The one warning line a probe prints about `n` unusable files of other materials in `dir`.
fn assert_other_files_warning(line: &str, program: &str, n: usize, dir: &Path) {
    let expected =
        format!("{program}: warning: {n} table files of other materials in {} cannot be used", dir.display());
    assert!(line.starts_with(&expected), "{line}");
    assert!(line.contains(&format!("`qiku-tb info -d {}`", dir.display())), "{line}");
}

const KRK: &str = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1";
const KPK: &str = "3k5/9/9/9/9/4P4/9/9/9/4K4 w - - 0 1";
/// KPAvK where no move captures: the probe needs no KPvK entry.
const KPAK: &str = "3k5/9/9/9/9/4P4/9/9/9/3AK4 w - - 0 1";

#[test]
fn a_probe_says_its_answer_or_error_first_and_counts_other_unusable_files_after_it() {
    let dir = damaged_dir("tb_damaged_probe");
    let d = dir.to_str().unwrap();
    // KRvK reads none of the damaged files: its answer, then one warning line, not their errors.
    let out = qiku_tb(&["probe", KRK, "-d", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("KRvK (red to move): win"));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_other_files_warning(&lines[0], "qiku-tb", 3, &dir);
    // The JSON stays one well-formed document on stdout; the warning is on stderr.
    let out = qiku_tb(&["probe", KRK, "-d", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success() && v["wdl"] == "win", "{v}");
    assert_eq!(stderr_lines(&out).len(), 1, "{:?}", stderr_lines(&out));
    let out = qiku(&["probe", KRK, "--tb", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tablebase: win"));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_other_files_warning(&lines[0], "qiku", 3, &dir);

    // KPvK's own file is the damaged one: its error comes first, naming it and what to do, and
    // the other two are counted after it.
    for (program, out) in [("qiku-tb", qiku_tb(&["probe", KPK, "-d", d])), ("qiku", qiku(&["probe", KPK, "--tb", d]))] {
        assert!(!out.status.success());
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 2, "{lines:?}");
        let own = format!("{program}: {}: invalid tablebase file", dir.join("KPvK.qtb").display());
        assert!(lines[0].starts_with(&own), "{lines:?}");
        assert!(lines[0].ends_with(&format!("(`qiku-tb generate KPvK -d {d}` makes its files again)")), "{lines:?}");
        assert_other_files_warning(&lines[1], program, 2, &dir);
    }

    // KPAvK answers without reading KPvK (no capture here), but a capture could lead there: that
    // file is named with its cause, the others counted.
    let out = qiku_tb(&["probe", KPAK, "-d", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&format!("qiku-tb: warning: {}: ", dir.join("KPvK.qtb").display())), "{lines:?}");
    assert_other_files_warning(&lines[1], "qiku-tb", 2, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}
