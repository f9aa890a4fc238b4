//! A tables directory with some damaged files: a probe says its own answer or error first and
//! counts the other materials' unusable files in one warning after it; `verify` tells a table
//! whose own files are wrong from one that could not be checked because a table it reads is bad.

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

#[test]
fn verify_tells_a_damaged_table_from_one_whose_input_is_damaged() {
    let dir = damaged_dir("tb_damaged_verify");
    let d = dir.to_str().unwrap();
    let out = qiku_tb(&["verify", "-d", d, "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["verified"], &v["failed"], &v["not_checked"]), (&2.into(), &3.into(), &1.into()), "{v}");
    let table = |m: &str| v["tables"].as_array().unwrap().iter().find(|t| t["material"] == m).unwrap().clone();
    // Its own files are intact; its captures lead to the truncated KPvK.qtb.
    let kpak = table("KPAvK");
    assert_eq!((&kpak["status"], &kpak["passed"]), (&"not_checked".into(), &false.into()), "{kpak}");
    assert_eq!(kpak["table"]["status"], "not_checked", "{kpak}");
    assert!(kpak["table"]["input"].as_str().unwrap().ends_with("KPvK.qtb"), "{kpak}");
    assert!(kpak["table"]["input_error"].as_str().unwrap().contains("truncated"), "{kpak}");
    assert!(kpak["table"].get("error").is_none() && kpak["table"].get("missing").is_none(), "{kpak}");
    for m in ["KPvK", "KRvKR"] {
        assert_eq!((&table(m)["status"], &table(m)["table"]["status"]), (&"failed".into(), &"failed".into()), "{v}");
    }
    // KCvKP: its plain table could not be checked (KPvK), its own companion is empty: failed.
    let kckp = table("KCvKP");
    assert_eq!((&kckp["status"], &kckp["table"]["status"]), (&"failed".into(), &"not_checked".into()), "{kckp}");
    assert!(kckp["rules"]["error"].as_str().unwrap().contains("KCvKP.qtr"), "{kckp}");
    assert_eq!((&table("KRvK")["status"], &table("KCvK")["status"]), (&"ok".into(), &"ok".into()), "{v}");

    let out = qiku_tb(&["verify", "-d", d]);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("KPAvK: ")).unwrap();
    assert!(line.starts_with("KPAvK: NOT CHECKED: its captures lead to ") && line.contains("KPvK.qtb"), "{text}");
    assert!(line.ends_with(&format!("(`qiku-tb generate KPvK -d {d}`), then verify KPAvK again")), "{line}");
    assert!(text.lines().any(|l| l.starts_with("KPvK: FAILED: ")), "{text}");
    let err = stderr_lines(&out);
    let last = err.last().unwrap();
    assert!(
        last.contains("3 of 6 tables failed verification") && last.contains("1 more could not be checked"),
        "{err:?}"
    );

    // What the line says to do works: KPvK made again, KPAvK checks and passes.
    assert!(qiku_tb(&["generate", "KPvK", "-d", d]).status.success());
    let out = qiku_tb(&["verify", "KPAvK", "-d", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(out.status.success() && v["tables"][0]["status"] == "ok" && v["not_checked"] == 0, "{v}");

    // A named table never made is missing, not wrong; a dead draw has no table at all; a table
    // named twice (in either colour order) is checked once.
    let out = qiku_tb(&["verify", "KRRvK", "KvK", "KRvK", "KvKR", "-d", d, "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["verified"], &v["missing"], &v["failed"]), (&1.into(), &1.into(), &0.into()), "{v}");
    let names: Vec<&str> = v["tables"].as_array().unwrap().iter().map(|t| t["material"].as_str().unwrap()).collect();
    assert_eq!(names, ["KRRvK", "KRvK"]);
    assert_eq!((&v["tables"][0]["status"], &v["tables"][0]["table"]["status"]), (&"missing".into(), &"missing".into()));
    assert!(stderr_lines(&out)[0].contains("KvK has no attacking piece"), "{:?}", stderr_lines(&out));
    let out = qiku_tb(&["verify", "KRRvK", "-d", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!("KRRvK: MISSING: there is no KRRvK.qtb in {d} (make it: `qiku-tb generate KRRvK -d {d}`)");
    assert!(!out.status.success() && text.lines().next() == Some(want.as_str()), "{text}");
    assert!(stderr_lines(&out).last().unwrap().contains(&format!("1 of 1 tables are not in {d}")));
    let out = qiku_tb(&["verify", "KvK", "-d", d]);
    let err = stderr_lines(&out);
    assert!(!out.status.success() && err[0].contains("no table to verify"), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `verify` names the `.qtb` as the cause where only it is wrong: its companions' checks read it,
/// so they are not checked (naming it), rather than failed naming the intact `.qtr` and `.qtw`
/// as invalid (which a user would delete). A `.qtb` that is a link to no file is a failed table,
/// in the text and the JSON alike, not a missing one whose companions failed.
#[test]
fn verify_names_the_table_file_as_the_cause_of_its_companions_checks() {
    use qiku::tablebase::format::{self, TableFile, DRAW};
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tb_damaged_cause");
    let _ = std::fs::remove_dir_all(&dir);
    generate_set(&["KRvKN".parse().unwrap()], &GenerateOptions::new(&dir)).unwrap();
    let d = dir.to_str().unwrap();
    let qtb = dir.join("KRvKN.qtb");
    // One win stored as a draw, the header's counts and every checksum as they were.
    let header = TableFile::open(&qtb).unwrap().header().clone();
    let mut table = qiku::tablebase::generate::load(&qtb).unwrap();
    let won = table.codes().iter().position(|&c| c == 3).unwrap();
    table.codes_mut()[won] = DRAW;
    let bytes = format::encode(header.material, table.codes(), &header.counts, true).unwrap();
    format::write_atomic(&qtb, &bytes).unwrap();
    let check = |v: &serde_json::Value, failed: u64| {
        let t = &v["tables"][0];
        assert_eq!((&v["failed"], &v["missing"], &t["status"]), (&failed.into(), &0.into(), &"failed".into()), "{v}");
        assert_eq!(t["table"]["status"], "failed", "{v}");
        for part in ["rules", "wdl"] {
            assert_eq!(t[part]["status"], "not_checked", "{part}: {v}");
            assert_eq!(t[part]["input"].as_str(), Some(qtb.to_str().unwrap()), "{part}: {v}");
        }
    };
    let out = qiku_tb(&["verify", "KRvKN", "-d", d, "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    check(&v, 1);
    assert!(v["tables"][0]["table"]["error"].as_str().unwrap().contains("counts"), "{v}");
    let out = qiku_tb(&["verify", "KRvKN", "-d", d]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("KRvKN.qtr: invalid") && !text.contains("KRvKN.qtw: invalid"), "{text}");
    for part in ["(Asian rules)", "(WDL)"] {
        let line = format!("KRvKN {part}: NOT CHECKED: {} cannot be used", qtb.display());
        assert!(text.lines().any(|l| l == line), "{text}");
    }
    // A link that leads to no file (dangling, or a loop) in place of the .qtb.
    for target in ["nowhere.qtb", "KRvKN.qtb"] {
        std::fs::remove_file(&qtb).unwrap();
        std::os::unix::fs::symlink(target, &qtb).unwrap();
        let out = qiku_tb(&["verify", "KRvKN", "-d", d, "--json"]);
        assert!(!out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        check(&v, 1);
        assert!(v["tables"][0]["table"]["error"].as_str().unwrap().contains("symbolic link"), "{v}");
        let out = qiku_tb(&["verify", "KRvKN", "-d", d]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with("KRvKN: FAILED: ") && !text.contains("MISSING"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.qtb` changed behind valid checksums (one win made a draw, its counts and checksums made
/// again, so opening it finds nothing), beside its intact `.qtw`: a probe of that position names
/// the `.qtb` as the damaged file (the position's moves side with the `.qtw`), never the `.qtw`,
/// and says how to find and replace the damaged files; the same under both rules and in `qiku`.
#[test]
fn a_table_damaged_behind_its_checksums_is_the_file_named() {
    use qiku::tablebase::{format, generate};
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tb_damaged_qtb");
    let _ = std::fs::remove_dir_all(&dir);
    let krk: Material = "KRvK".parse().unwrap();
    generate_set(&[krk], &GenerateOptions::new(&dir)).unwrap();
    let qtb = dir.join("KRvK.qtb");
    let qtw = dir.join("KRvK.qtw");
    let mut table = generate::load(&qtb).unwrap();
    let pos = qiku::Position::from_fen(KRK).unwrap();
    let i = table.index_of(&pos).unwrap() as usize;
    assert!(format::dtm_of(table.codes()[i]).is_some_and(|d| d % 2 == 1), "KRK is a win");
    table.codes_mut()[i] = format::DRAW;
    format::write_atomic(&qtb, &format::encode(krk, table.codes(), &table.counts(), true).unwrap()).unwrap();
    let d = dir.to_str().unwrap();
    let advice = format!(
        "(`qiku-tb verify KRvK -d {d}` checks its files; remove those it finds damaged and `qiku-tb generate KRvK \
         -d {d}` makes them again)"
    );
    let said = format!(
        "{}: damaged behind valid checksums: it says draw for {KRK}, where the position's moves and {} say win {advice}",
        qtb.display(),
        qtw.display()
    );
    for rules in ["asian", "plain"] {
        let out = qiku_tb(&["probe", KRK, "-d", d, "--rules", rules]);
        assert!(!out.status.success(), "{rules}: {}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(stderr_lines(&out), [format!("qiku-tb: {said}")], "{rules}");
    }
    let out = qiku(&["probe", KRK, "--tb", d]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let lines = stderr_lines(&out);
    assert!(lines.contains(&format!("qiku: {said}")), "{lines:?}");
    // `verify`, as advised, finds it.
    let out = qiku_tb(&["verify", "KRvK", "-d", d]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(all.contains("KRvK") && all.contains("moves give"), "{all}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `.qtw` WDL file that is there but cannot be used (another material's file in its place, a
/// damaged header) fails the probes that check it, naming it, as a damaged `.qtr` does: it was
/// read as absent (`wdl_file` null in `--json`, a warning after the answer).
#[test]
fn an_unusable_wdl_file_fails_the_probe_naming_it() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tb_damaged_qtw");
    let _ = std::fs::remove_dir_all(&dir);
    let materials: Vec<Material> = ["KRvK", "KCvK"].iter().map(|m| m.parse().unwrap()).collect();
    generate_set(&materials, &GenerateOptions::new(&dir)).unwrap();
    std::fs::copy(dir.join("KCvK.qtw"), dir.join("KRvK.qtw")).unwrap();
    let d = dir.to_str().unwrap();
    let fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1";
    for out in [qiku_tb(&["probe", fen, "-d", d, "--json"]), qiku(&["probe", fen, "--tb", d, "--json"])] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains("KRvK.qtw") && err.contains("`qiku-tb generate KRvK -d "), "{err}");
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    }
    // Another material's table, with its own intact `.qtw`, still answers.
    let out = qiku_tb(&["probe", "3k5/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1", "-d", d, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
