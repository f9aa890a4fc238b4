//! `qiku label`'s work in progress: the positions scored so far, kept in `OUTPUT.partial` so that
//! a run stopped for any reason (Ctrl-C, a kill, an engine that stopped answering, the machine
//! going down) continues where it stopped when the same command is run again.
//!
//! The file's first line names the settings the scores depend on (the engine's command line and
//! protocol, the search limit, the options); then come the scored lines, in input order, each
//! added with one write once every position before it is scored (a position scored before an
//! earlier one waits in memory: a kill loses at most `--concurrency` scores). A resumed run keeps
//! the complete lines that are the input's first positions with a score, and refuses a file of
//! other settings or other positions rather than mixing its scores in or throwing them away.
//! With one search thread a score depends only on the position, so a resumed run writes the
//! same output as one that was never stopped.

use crate::ordered::InOrder;
use qiku::tune::scored::{Score, ScoredPosition};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the scores of a run writing `output` are kept until it ends: `OUTPUT.partial`.
pub fn path_for(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    output.with_file_name(name)
}

/// The first line of a partial file: what the scores depend on.
pub fn settings_line(engine: &str, protocol: &str, limit: &str, options: &[String]) -> String {
    format!("# qiku label: engine {engine}; protocol {protocol}; {limit}; options [{}]", options.join(", "))
}

/// The scores a partial file at `path` holds for the first positions of `positions`, and the
/// length of its complete lines (a line cut short by a kill is dropped): none when there is no
/// file. An error, saying what to do, when it is of other settings or other positions.
pub fn resume(path: &Path, settings: &str, positions: &[ScoredPosition]) -> Result<(Vec<Score>, u64), String> {
    let shown = path.display();
    let bytes = match qiku::fs::open_regular(path) {
        Ok(mut f) => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut bytes).map_err(|e| format!("{shown}: cannot read: {e}"))?;
            bytes
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(format!("{shown}: cannot open: {e}")),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete == 0 {
        // Killed before its first line was whole: nothing kept.
        return Ok((Vec::new(), 0));
    }
    let text = std::str::from_utf8(&bytes[..complete]).map_err(|_| {
        format!("{shown}: not a file qiku label left (not UTF-8 text); remove it or give another output")
    })?;
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    if first != settings {
        let what = if first.starts_with("# qiku label:") { "another run's" } else { "not qiku label's" };
        return Err(format!(
            "{shown} holds {what} scores ({}); to continue that run, give the same engine, --protocol, \
             --depth or --nodes and options; to start over, remove it",
            if first.starts_with("# qiku label:") {
                first.trim_start_matches("# qiku label: ")
            } else {
                "unknown settings"
            }
        ));
    }
    let mut scores = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 2;
        let read =
            ScoredPosition::parse(line).map_err(|e| format!("{shown}: line {n}: {e}; remove it to start over"))?;
        let Some(want) = positions.get(i) else {
            return Err(format!("{shown}: more scored lines than the input has positions; remove it to start over"));
        };
        match read.score {
            Some(score) if ScoredPosition { score: None, ..read.clone() } == *want => scores.push(score),
            _ => {
                return Err(format!(
                    "{shown}: line {n} is not the input's position {} with a score (the scores of another \
                     input?); remove it to start over",
                    i + 1
                ))
            }
        }
    }
    Ok((scores, complete as u64))
}

/// The partial file being written: scored lines added in input order.
pub struct Writer {
    file: File,
    path: PathBuf,
    /// The lines not in the file, by position: the next position's, and those scored before it.
    order: InOrder<String>,
}

impl Writer {
    /// Opens the partial file at `path` to add lines after its first `kept` bytes of complete
    /// lines (a new file starts with `settings`); `next` is the first position not in it.
    pub fn open(path: &Path, settings: &str, kept: u64, next: usize) -> Result<Writer, String> {
        let fail = |e: std::io::Error| format!("{}: cannot write: {e}", path.display());
        let mut file =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(fail)?;
        file.set_len(kept).map_err(fail)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0)).map_err(fail)?;
        if kept == 0 {
            file.write_all(format!("{settings}\n").as_bytes()).map_err(fail)?;
        }
        Ok(Writer { file, path: path.to_path_buf(), order: InOrder::starting_at(next) })
    }

    /// How many positions' lines are in the file (those of the first positions).
    pub fn written(&self) -> usize {
        self.order.next()
    }

    /// Adds position `index`'s scored `line`, with every line now in order after it.
    pub fn add(&mut self, index: usize, line: String) -> Result<(), String> {
        self.order.insert(index, line);
        let text: String = self.order.take_ready().into_iter().map(|line| line + "\n").collect();
        if text.is_empty() {
            return Ok(());
        }
        self.file.write_all(text.as_bytes()).map_err(|e| format!("{}: cannot write: {e}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn positions() -> Vec<ScoredPosition> {
        ["4k4/9/9/9/9/9/9/9/9/3K1R3 w\t1\ttrain", "4k4/9/9/9/9/9/9/9/9/3K1N3 b\t0.5\tvalid"]
            .iter()
            .map(|l| ScoredPosition::parse(l).unwrap())
            .collect()
    }

    #[test]
    fn lines_in_order_a_cut_line_dropped_and_other_files_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_for(&dir.path().join("scored.tsv"));
        assert_eq!(path, dir.path().join("scored.tsv.partial"));
        let settings = settings_line("qiku", "uci", "depth 2", &[]);
        let ps = positions();
        assert_eq!(resume(&path, &settings, &ps).unwrap(), (vec![], 0));
        let mut w = Writer::open(&path, &settings, 0, 0).unwrap();
        let line = |i: usize, cp: i32| ScoredPosition { score: Some(Score::Cp(cp)), ..ps[i].clone() }.to_line();
        // The second position first: it waits for the first.
        w.add(1, line(1, -5)).unwrap();
        assert_eq!(resume(&path, &settings, &ps).unwrap().0, vec![]);
        w.add(0, line(0, 300)).unwrap();
        drop(w);
        let (scores, kept) = resume(&path, &settings, &ps).unwrap();
        assert_eq!(scores, vec![Score::Cp(300), Score::Cp(-5)]);
        // A line cut short by a kill is not read, and is written over.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"4k4/9/9/9/9/9/9/9/9/3K1").unwrap();
        drop(f);
        assert_eq!(resume(&path, &settings, &ps).unwrap(), (scores, kept));
        Writer::open(&path, &settings, kept, 2).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), kept);
        // Other settings, or another input's positions: refused, saying what to do.
        let e = resume(&path, &settings_line("qiku", "uci", "depth 3", &[]), &ps).unwrap_err();
        assert!(e.contains("another run's scores (engine qiku; protocol uci; depth 2; options [])"), "{e}");
        let mut other = ps.clone();
        other[1].result = 0.0;
        let e = resume(&path, &settings, &other).unwrap_err();
        assert!(e.contains("line 3 is not the input's position 2 with a score"), "{e}");
        std::fs::write(&path, "FEN\tresult\n").unwrap();
        assert!(resume(&path, &settings, &ps).unwrap_err().contains("not qiku label's scores"));
    }
}
