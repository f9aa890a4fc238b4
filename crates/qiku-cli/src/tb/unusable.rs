//! What a probe (`qiku-tb probe`, `qiku probe --tb`) says about table files that cannot be used:
//! its own error names the file and the command that makes it again; the other unusable files of
//! its directory come after its answer or error, never before it or mixed with it. A file of
//! the probed material or of a material its captures lead to is named with its cause (a `.qtr` or
//! `.qtw` whose table is gone too); the files of other materials, which the probe did not read,
//! are counted in one warning line with the command that lists them.

use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material, Tablebases};
use std::collections::HashSet;
use std::ffi::OsString;
use std::path::Path;

/// A probe's error, with the command that makes a missing table its captures lead to, or makes
/// a damaged table file again (the library's wording, shared with the C API).
pub fn probe_error(e: qiku::tablebase::TbError, dir: &Path) -> String {
    qiku::tablebase::probe_error_message(&e, dir, "--rules plain")
}

/// The warning lines (without the program's name) about `tb`'s unusable files after a probe of
/// `material`. `error`: the probe's error, if it ended in one; a file it names (the file of this
/// material or of a capture's that the probe could not read) is not named again. The others of
/// this material and its captures' are named each (a `.qtr` or `.qtw` left without its table
/// too, which a "no table" error does not name), those of other materials counted.
pub fn probe_warnings(tb: &Tablebases, material: Material, error: Option<&str>) -> Vec<String> {
    let mut read = HashSet::<OsString>::new();
    let targets = material.captures().into_iter().map(|(_, _, m)| m);
    for m in std::iter::once(material).chain(targets).map(|m| m.canonical().0) {
        for name in [file_name(m), rules_file_name(m), wdl_file_name(m)] {
            read.insert(name.into());
        }
    }
    let mut lines = Vec::new();
    let mut others = 0;
    for problem in tb.problems() {
        let name = problem.path().and_then(|p| p.file_name());
        if name.is_some_and(|n| read.contains(n)) {
            let said = problem.path().is_some_and(|p| error.is_some_and(|e| e.contains(&p.display().to_string())));
            if !said {
                lines.push(format!("warning: {problem}"));
            }
        } else {
            others += 1;
        }
    }
    if others > 0 {
        let dir = tb.dir().display();
        let files = if others == 1 { "table file" } else { "table files" };
        lines.push(format!(
            "warning: {others} {files} of other materials in {dir} cannot be used; this probe did not read them \
             (`qiku-tb info -d {dir}` names each with its cause)"
        ));
    }
    lines
}
