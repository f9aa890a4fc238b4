//! Position files for tuning on scored positions: one quiet position a line with its game's
//! result, its side of the training/validation split and, once an engine has searched it, the
//! engine's score (red's view).
//!
//! ```text
//! <FEN> TAB <result: 1, 0.5 or 0 for red> TAB <train | valid> [TAB <score>]
//! ```
//!
//! The score is centipawns from red's point of view (`cp 35` from black to move is `-35`), or
//! `#N` / `#-N` for a mate found for red / for black. `qiku tune --write-positions` writes the
//! first three columns, `qiku label` adds the fourth, and `qiku tune --scored` fits the
//! evaluation to a blend of the game result and the score (see [`target`]). The format is
//! specified in `docs/ENGINE.md` ("Tuning on scored positions").
//!
//! ```
//! use qiku::tune::scored::{Score, ScoredPosition, Split};
//! let line = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t0.5\ttrain\t-12";
//! let p = ScoredPosition::parse(line).unwrap();
//! assert_eq!((p.result, p.split, p.score), (0.5, Split::Train, Some(Score::Cp(-12))));
//! assert_eq!(p.to_line(), line);
//! ```

use super::{trace, Sample};
use crate::core::Position;
use std::fmt;
use std::io::BufRead;
use std::path::Path;

/// The longest line of a position file, in bytes: 64 KiB, as for the engine's input lines
/// ([`crate::engine::session::MAX_LINE`]). A real line (FEN, result, split, score) is about a
/// hundred bytes; a longer one is an error at its line, and never held in memory whole.
pub const MAX_LINE: usize = crate::engine::session::MAX_LINE;

/// Which set a position belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// Fitted on.
    Train,
    /// Held out to measure the fit.
    Valid,
}

/// An engine's score of a position, from red's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (positive: red is better).
    Cp(i32),
    /// Mate in this many moves (positive: red mates; negative: black mates).
    Mate(i32),
}

impl Score {
    /// Reads a UCI `score` (the two words after `score`, e.g. `cp 35` or `mate -3`), which is
    /// from the side to move's point of view, as red's view. `mate 0` (no move left: the side to
    /// move has lost) becomes a mate in 1 against the side to move. `None` if it is neither.
    ///
    /// ```
    /// use qiku::tune::scored::Score;
    ///
    /// assert_eq!(Score::from_uci("cp 35", false), Some(Score::Cp(-35))); // black to move
    /// assert_eq!(Score::from_uci("mate 3", true), Some(Score::Mate(3)));
    /// assert_eq!(Score::from_uci("mate 0", true), Some(Score::Mate(-1))); // red is mated
    /// assert_eq!(Score::from_uci("lowerbound 3", true), None);
    /// ```
    pub fn from_uci(words: &str, red_to_move: bool) -> Option<Score> {
        let mut w = words.split_whitespace();
        let kind = w.next()?;
        let n: i32 = w.next()?.parse().ok()?;
        // `mate 0`: the side to move has no move left, so it has lost; written as a mate in 1
        // against it, since the file's mates carry their winner in the sign.
        let n = if kind == "mate" && n == 0 { -1 } else { n };
        let n = if red_to_move { n } else { n.checked_neg()? };
        match kind {
            "cp" => Some(Score::Cp(n)),
            "mate" => Some(Score::Mate(n)),
            _ => None,
        }
    }
}

impl Score {
    /// Reads a UCCI `score` (the words after `score`, e.g. `68`), which is a bare number from the
    /// side to move's point of view, as red's view. On ElephantEye's scale (see
    /// [`crate::engine::ucci`]): from `MATE_VALUE - 100` (9900) on a mate, `10000 - p` for a mate
    /// in `p` plies, written here in moves (`(p + 1) / 2`, at least 1); anything below is
    /// centipawns, including the won values 9801 to 9899 that qiku gives a table win or a rule
    /// decision without a mate distance (far above any evaluation, they count as won). Words after the number are ignored; a UCCI engine that writes UCI's `cp N` or
    /// `mate N` instead is read as [`Score::from_uci`] reads them. `None` for anything else, or a
    /// value beyond `MATE_VALUE` (10000).
    ///
    /// ```
    /// use qiku::tune::scored::Score;
    /// assert_eq!(Score::from_ucci("68", false), Some(Score::Cp(-68)));
    /// assert_eq!(Score::from_ucci("9997", true), Some(Score::Mate(2)));
    /// assert_eq!(Score::from_ucci("-9996", true), Some(Score::Mate(-2)));
    /// ```
    pub fn from_ucci(words: &str, red_to_move: bool) -> Option<Score> {
        use crate::engine::ucci::{ucci_mate_moves, MATE_VALUE};
        let first = words.split_whitespace().next()?;
        let Ok(v) = first.parse::<i32>() else {
            return Score::from_uci(words, red_to_move);
        };
        if v.unsigned_abs() > MATE_VALUE.unsigned_abs() {
            return None;
        }
        let score = match ucci_mate_moves(v) {
            // At least a move: the side already mated (0) counts as mated in one.
            Some(moves) => Score::Mate(v.signum() * moves.abs().max(1)),
            None => Score::Cp(v),
        };
        Some(match (score, red_to_move) {
            (s, true) => s,
            (Score::Cp(n), false) => Score::Cp(-n),
            (Score::Mate(n), false) => Score::Mate(-n),
        })
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(n) => write!(f, "{n}"),
            Score::Mate(n) => write!(f, "#{n}"),
        }
    }
}

/// One line of a position file.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredPosition {
    /// The position.
    pub fen: String,
    /// The game's result for red: 1, 0.5 or 0.
    pub result: f64,
    /// Training or validation.
    pub split: Split,
    /// The engine's score, once labelled.
    pub score: Option<Score>,
}

/// Why a line of a position file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// What is wrong, and with which column.
    pub cause: String,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.cause)
    }
}

impl std::error::Error for LineError {}

impl ScoredPosition {
    /// Reads one line (without its newline).
    ///
    /// ```
    /// use qiku::tune::scored::{ScoredPosition, Split};
    ///
    /// let p = ScoredPosition::parse("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t1\tvalid")?;
    /// assert_eq!((p.result, p.split, p.score), (1.0, Split::Valid, None));
    /// let err = ScoredPosition::parse("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t2\ttrain").unwrap_err();
    /// assert_eq!(err.cause, "result \"2\": expected 1, 0.5 or 0 (red's result)");
    /// # Ok::<(), qiku::tune::scored::LineError>(())
    /// ```
    pub fn parse(line: &str) -> Result<ScoredPosition, LineError> {
        let err = |cause: String| LineError { cause };
        let cols: Vec<&str> = line.split('\t').collect();
        if !(3..=4).contains(&cols.len()) {
            return Err(err(format!(
                "expected 3 or 4 tab-separated columns (FEN, result, train|valid, score), found {}",
                cols.len()
            )));
        }
        let result = match cols[1] {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            other => return Err(err(format!("result {other:?}: expected 1, 0.5 or 0 (red's result)"))),
        };
        let split = match cols[2] {
            "train" => Split::Train,
            "valid" => Split::Valid,
            other => return Err(err(format!("split {other:?}: expected train or valid"))),
        };
        let score = match cols.get(3) {
            None => None,
            Some(s) => Some(
                parse_score(s)
                    .ok_or_else(|| err(format!("score {s:?}: expected centipawns (e.g. -35) or a mate (#3, #-3)")))?,
            ),
        };
        Ok(ScoredPosition { fen: cols[0].to_string(), result, split, score })
    }

    /// The line (without a newline).
    ///
    /// ```
    /// use qiku::tune::scored::{Score, ScoredPosition, Split};
    ///
    /// let fen = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1".to_string();
    /// let p = ScoredPosition { fen, result: 0.5, split: Split::Train, score: Some(Score::Mate(-3)) };
    /// assert_eq!(p.to_line(), "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t0.5\ttrain\t#-3");
    /// assert_eq!(ScoredPosition::parse(&p.to_line()), Ok(p));
    /// ```
    pub fn to_line(&self) -> String {
        let split = match self.split {
            Split::Train => "train",
            Split::Valid => "valid",
        };
        let mut s = format!("{}\t{}\t{split}", self.fen, self.result);
        if let Some(score) = self.score {
            s.push('\t');
            s.push_str(&score.to_string());
        }
        s
    }
}

/// A line of a position file that could not be read: its number and why. Shown as
/// `line N: cause`, for the caller to put the file's name in front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The line's number, counted from 1 (blank lines count).
    pub line: usize,
    /// Why it could not be read.
    pub error: LineError,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Reads the text of a position file: every line that is not blank, in order, as its line
/// number (from 1, blank lines counted) and its position, or the first line that cannot be read.
///
/// An iterator, so that a caller can check each position as it comes (a score it needs, a FEN it
/// must replay) and report the first faulty line of the file, whichever check finds it; collect
/// it to take all the positions or the first error.
///
/// ```
/// use qiku::tune::scored::{self, Split};
/// let fen = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
/// let text = format!("{fen}\t1\ttrain\n\n{fen}\t0\tvalid\t-35\n");
/// let read: Vec<_> = scored::read(&text).collect::<Result<_, _>>().unwrap();
/// let lines: Vec<(usize, Split)> = read.iter().map(|(line, p)| (*line, p.split)).collect();
/// assert_eq!(lines, [(1, Split::Train), (3, Split::Valid)]);
/// let bad = format!("{text}\n{fen}\t2\ttrain\n");
/// let e = scored::read(&bad).collect::<Result<Vec<_>, _>>().unwrap_err();
/// assert_eq!((e.line, e.to_string().starts_with("line 5: result \"2\"")), (5, true));
/// ```
pub fn read(text: &str) -> impl Iterator<Item = Result<(usize, ScoredPosition), ReadError>> + '_ {
    read_lines(text.as_bytes())
}

/// [`read`] of the bytes of `input`, line by line: memory for one line at a time, at most
/// [`MAX_LINE`] bytes. A line that is not UTF-8 or is longer than that is an error at its line,
/// as a line that does not parse is; a failure to read is an error at the line being read, and
/// the last item.
///
/// ```
/// use qiku::tune::scored;
/// let fen = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
/// let mut bytes = format!("{fen}\t1\ttrain\n{fen}\t0\tvalid\t").into_bytes();
/// bytes.extend_from_slice(b"\xFF\n"); // Latin-1, say: not UTF-8
/// let read: Vec<_> = scored::read_lines(&bytes[..]).collect();
/// assert_eq!(read[0].as_ref().map(|(line, _)| *line), Ok(1));
/// let e = read[1].as_ref().unwrap_err();
/// assert_eq!(e.to_string(), "line 2: not UTF-8 text: byte 0xFF at column 43; a position file is UTF-8");
/// ```
pub fn read_lines<R: BufRead>(input: R) -> impl Iterator<Item = Result<(usize, ScoredPosition), ReadError>> {
    Lines { input, buf: Vec::new(), line: 0, done: false }
}

/// Opens the position file at `path` for [`read_lines`]: a regular file only (a FIFO or a device
/// is refused at once, see [`crate::fs::open_regular`]). The error is the system's, for the
/// caller to name the file with.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("positions.tsv");
/// std::fs::write(&path, "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t0.5\ttrain\n")?;
/// let positions: Vec<_> = qiku::tune::scored::open(&path)?.collect::<Result<_, _>>()?;
/// assert_eq!(positions.len(), 1);
/// assert!(qiku::tune::scored::open(dir.path()).is_err()); // a directory
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open(path: &Path) -> std::io::Result<impl Iterator<Item = Result<(usize, ScoredPosition), ReadError>> + use<>> {
    let file = crate::util::files::open_regular(path)?;
    Ok(read_lines(std::io::BufReader::new(file)))
}

/// The iterator of [`read_lines`].
struct Lines<R> {
    input: R,
    /// The line being read.
    buf: Vec<u8>,
    /// The number of the last line read.
    line: usize,
    /// The input ended or failed.
    done: bool,
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Result<(usize, ScoredPosition), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        use crate::engine::session::read_bounded_line;
        while !self.done {
            self.line += 1;
            let line = self.line;
            let fail = |cause: String| Some(Err(ReadError { line, error: LineError { cause } }));
            let fits = match read_bounded_line(&mut self.input, MAX_LINE, &mut self.buf) {
                Ok(Some(fits)) => fits,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return fail(format!("cannot read: {e}"));
                }
            };
            if !fits {
                return fail(format!("longer than {MAX_LINE} bytes (a position's line is about a hundred)"));
            }
            // A byte-order mark (editors on Windows write one) is not part of the first FEN.
            let bytes = match line {
                1 => self.buf.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&self.buf),
                _ => &self.buf,
            };
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    let good = e.valid_up_to();
                    let column = std::str::from_utf8(&bytes[..good]).map_or(0, |t| t.chars().count()) + 1;
                    return fail(format!(
                        "not UTF-8 text: byte 0x{:02X} at column {column}; a position file is UTF-8",
                        bytes[good]
                    ));
                }
            };
            if text.trim().is_empty() {
                continue;
            }
            return Some(ScoredPosition::parse(text).map(|p| (line, p)).map_err(|error| ReadError { line, error }));
        }
        None
    }
}

fn parse_score(s: &str) -> Option<Score> {
    match s.strip_prefix('#') {
        Some(m) => m.parse().ok().filter(|&n: &i32| n != 0).map(Score::Mate),
        None => s.parse().ok().filter(|n: &i32| n.unsigned_abs() < 1_000_000).map(Score::Cp),
    }
}

/// The expected score for red that an engine's `score` stands for, on the engine's own scale
/// `k_engine` (fitted by [`fit_engine_scale`]): `1 / (1 + e^(-k·cp))`, and 1 or 0 for a mate.
///
/// ```
/// use qiku::tune::scored::{expected, Score};
///
/// assert_eq!(expected(Score::Cp(0), 0.005), 0.5);
/// assert!(expected(Score::Cp(300), 0.005) > 0.8);
/// assert_eq!(expected(Score::Mate(-2), 0.005), 0.0); // black mates
/// ```
pub fn expected(score: Score, k_engine: f64) -> f64 {
    match score {
        Score::Cp(cp) => super::sigmoid(k_engine, f64::from(cp)),
        Score::Mate(n) => {
            if n > 0 {
                1.0
            } else {
                0.0
            }
        }
    }
}

/// The tuning target of a position: `lambda · expected(score) + (1 - lambda) · result`. Without
/// a score, the result.
///
/// ```
/// use qiku::tune::scored::{target, ScoredPosition};
///
/// // Red lost, though the engine saw red mate.
/// let p = ScoredPosition::parse("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t0\ttrain\t#2")?;
/// assert_eq!(target(&p, 0.25, 0.005), 0.25);
/// assert_eq!(target(&ScoredPosition { score: None, ..p }, 0.25, 0.005), 0.0);
/// # Ok::<(), qiku::tune::scored::LineError>(())
/// ```
pub fn target(p: &ScoredPosition, lambda: f64, k_engine: f64) -> f64 {
    match p.score {
        Some(s) => lambda * expected(s, k_engine) + (1.0 - lambda) * p.result,
        None => p.result,
    }
}

/// The scale `k` that best predicts the game results from the engine's centipawn scores (least
/// squares, as [`super::fit_k`] does for the evaluation): so that a score and a result can be
/// blended, whatever unit the engine reports in. Positions without a centipawn score are left
/// out.
///
/// ```
/// use qiku::tune::scored::{expected, fit_engine_scale, Score, ScoredPosition};
///
/// let won = ScoredPosition::parse("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1\t1\ttrain\t200")?;
/// let drawn = ScoredPosition { result: 0.5, ..won.clone() };
/// // Scored 200 and won half a point in two: the scale reads 200 as 0.75.
/// let k = fit_engine_scale(&[won, drawn]);
/// assert!((expected(Score::Cp(200), k) - 0.75).abs() < 1e-4, "{k}");
/// # Ok::<(), qiku::tune::scored::LineError>(())
/// ```
pub fn fit_engine_scale(positions: &[ScoredPosition]) -> f64 {
    let pairs: Vec<(f64, f64)> = positions
        .iter()
        .filter_map(|p| match p.score {
            Some(Score::Cp(cp)) => Some((f64::from(cp), p.result)),
            _ => None,
        })
        .collect();
    super::golden_section_k(|k| {
        pairs.iter().map(|&(cp, r)| (r - super::sigmoid(k, cp)).powi(2)).sum::<f64>() / pairs.len().max(1) as f64
    })
}

/// What [`samples`] builds from a position file.
#[derive(Debug, Default)]
pub struct Samples {
    /// Training samples.
    pub training: Vec<Sample>,
    /// Validation samples.
    pub validation: Vec<Sample>,
    /// The validation positions, in the order of `validation`.
    pub validation_positions: Vec<Position>,
}

/// A position of a file that is not a legal position: its index in the slice given to
/// [`samples`], and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPosition {
    /// Index in the slice.
    pub index: usize,
    /// The FEN and the cause.
    pub cause: String,
}

/// Training and validation samples (traces, targets by [`target`]) and the
/// validation positions themselves, from the lines of a position file.
///
/// ```
/// use qiku::tune::scored::{samples, ScoredPosition};
///
/// let lines = ["3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\t1\ttrain\t500", "3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1\t0.5\tvalid"];
/// let positions = lines.map(|l| ScoredPosition::parse(l)).into_iter().collect::<Result<Vec<_>, _>>()?;
/// let s = samples(&positions, 0.5, 0.005).map_err(|e| e.cause)?;
/// assert_eq!((s.training.len(), s.validation.len(), s.validation_positions.len()), (1, 1, 1));
/// assert_eq!(s.validation[0].result, 0.5); // no score: the result
/// let bad = ScoredPosition::parse("not a position\t1\ttrain")?;
/// assert_eq!(samples(&[bad], 0.5, 0.005).unwrap_err().index, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn samples(positions: &[ScoredPosition], lambda: f64, k_engine: f64) -> Result<Samples, BadPosition> {
    use rayon::prelude::*;
    type Built = Result<(Sample, Option<Position>), BadPosition>;
    let built: Vec<Built> = positions
        .par_iter()
        .enumerate()
        .map(|(index, p)| {
            let pos = Position::from_fen(&p.fen)
                .map_err(|e| BadPosition { index, cause: format!("FEN {:?}: {e}", p.fen) })?;
            let sample = Sample { trace: trace(&pos), result: target(p, lambda, k_engine) };
            Ok((sample, (p.split == Split::Valid).then_some(pos)))
        })
        .collect();
    let mut out = Samples::default();
    for b in built {
        match b? {
            (s, Some(pos)) => {
                out.validation.push(s);
                out.validation_positions.push(pos);
            }
            (s, None) => out.training.push(s),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_columns_are_named() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
        for tail in ["1\ttrain", "0.5\tvalid\t-35", "0\ttrain\t#-4", "1\tvalid\t#2"] {
            let line = format!("{fen}\t{tail}");
            assert_eq!(ScoredPosition::parse(&line).unwrap().to_line(), line);
        }
        let bad = [
            (format!("{fen}\t1"), "columns"),
            (format!("{fen}\t2\ttrain"), "result \"2\""),
            (format!("{fen}\t1\ttest"), "split \"test\""),
            (format!("{fen}\t1\ttrain\tmate"), "score \"mate\""),
            (format!("{fen}\t1\ttrain\t#0"), "score \"#0\""),
        ];
        for (line, want) in bad {
            let e = ScoredPosition::parse(&line).unwrap_err();
            assert!(e.cause.contains(want), "{line}: {e}");
        }
    }

    #[test]
    fn read_skips_blank_lines_and_numbers_the_rest() {
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
        let good = format!("\n  \n{fen}\t1\ttrain\n\t\n{fen}\t0.5\tvalid\t#-3\r\n\n{fen}\t0\ttrain\t12");
        let got: Vec<(usize, ScoredPosition)> = read(&good).collect::<Result<_, _>>().expect("a good file");
        assert_eq!(got.len(), 3);
        assert_eq!(got.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [3, 5, 7]);
        assert_eq!(got[1].1.score, Some(Score::Mate(-3)));
        assert_eq!(got[2].1.to_line(), format!("{fen}\t0\ttrain\t12"));
        // The first bad line, numbered with the blank lines before it; the good lines before it
        // come first, and nothing after it.
        let bad = format!("{good}\n\n\n{fen}\t1\tvalid\tmate\n{fen}\t9\ttrain\n");
        let all: Vec<_> = read(&bad).collect();
        assert_eq!(all.len(), 5);
        assert!(all[..3].iter().all(Result::is_ok));
        let e = read(&bad).collect::<Result<Vec<_>, _>>().expect_err("line 10 is bad");
        assert_eq!(e.line, 10);
        assert_eq!(e.to_string(), format!("line 10: {}", e.error));
        assert!(e.error.cause.starts_with("score \"mate\""), "{e}");
        assert_eq!(read("").count() + read("\n \n\t\n").count(), 0);
    }

    #[test]
    fn bytes_that_are_not_a_line_of_text_are_errors_at_their_line() {
        let fen = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
        let good = format!("{fen}\t1\ttrain\n");
        // Not UTF-8 (GBK's 中 in the FEN), then too long: each an error at its line, the lines
        // around them read.
        let mut bytes = good.clone().into_bytes();
        bytes.extend_from_slice(b"4k4/9/\xD6\xD0/9\t1\ttrain\n");
        bytes.extend_from_slice(&vec![b'x'; MAX_LINE + 1]);
        bytes.extend_from_slice(format!("\n\n{good}").as_bytes());
        let lines: Vec<_> = read_lines(&bytes[..]).collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].as_ref().map(|(line, _)| *line), Ok(1));
        let e = lines[1].as_ref().unwrap_err();
        assert_eq!(e.to_string(), "line 2: not UTF-8 text: byte 0xD6 at column 7; a position file is UTF-8");
        let e = lines[2].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("line 3: longer than {MAX_LINE} bytes (a position's line is about a hundred)")
        );
        assert_eq!(lines[3].as_ref().map(|(line, _)| *line), Ok(5));
        // A byte-order mark is skipped on the first line only.
        let marked = format!("\u{feff}{good}\u{feff}{good}");
        let got: Vec<_> = read(&marked).collect::<Result<_, _>>().expect("read");
        assert_eq!((got[0].1.fen.as_str(), got[1].1.fen.strip_prefix('\u{feff}')), (fen, Some(fen)));
        // A read that fails is an error at its line, and the last.
        struct Failing;
        impl std::io::Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        let input = std::io::Read::chain(good.as_bytes(), std::io::BufReader::new(Failing));
        let lines: Vec<_> = read_lines(input).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1].as_ref().unwrap_err().to_string(), "line 2: cannot read: disk on fire");
    }

    #[test]
    fn uci_scores_turn_to_reds_view() {
        assert_eq!(Score::from_uci("cp 35", true), Some(Score::Cp(35)));
        assert_eq!(Score::from_uci("cp 35", false), Some(Score::Cp(-35)));
        assert_eq!(Score::from_uci("mate -3", false), Some(Score::Mate(3)));
        assert_eq!(Score::from_uci("wdl 1", true), None);
        assert_eq!(Score::from_uci("mate 0", true), Some(Score::Mate(-1)));
        assert_eq!(Score::from_uci("mate 0", false), Some(Score::Mate(1)));
    }

    #[test]
    fn ucci_scores_turn_to_reds_view() {
        // Bare centipawns, with the rest of the info line after them.
        assert_eq!(Score::from_ucci("68 nodes 623 time 5", true), Some(Score::Cp(68)));
        assert_eq!(Score::from_ucci("68", false), Some(Score::Cp(-68)));
        // Mates: 10000 - plies, in moves, the winner in the sign.
        assert_eq!(Score::from_ucci("9999", true), Some(Score::Mate(1)));
        assert_eq!(Score::from_ucci("9999", false), Some(Score::Mate(-1)));
        assert_eq!(Score::from_ucci("-9998", true), Some(Score::Mate(-1)));
        assert_eq!(Score::from_ucci("9901", true), Some(Score::Mate(50)));
        assert_eq!(Score::from_ucci("-10000", true), Some(Score::Mate(-1)));
        // Wins without a mate distance stay large centipawns.
        assert_eq!(Score::from_ucci("9850", false), Some(Score::Cp(-9850)));
        assert_eq!(Score::from_ucci("-9801", true), Some(Score::Cp(-9801)));
        assert_eq!(Score::from_ucci("9899", true), Some(Score::Cp(9899)));
        assert_eq!(Score::from_ucci("-9900", true), Some(Score::Mate(-50)));
        // UCI's forms from a UCCI engine; nonsense and values beyond a mate are refused.
        assert_eq!(Score::from_ucci("cp 35", false), Some(Score::Cp(-35)));
        assert_eq!(Score::from_ucci("mate 3", true), Some(Score::Mate(3)));
        assert_eq!(Score::from_ucci("10001", true), None);
        assert_eq!(Score::from_ucci("lowerbound", true), None);
        assert_eq!(Score::from_ucci("", true), None);
        // Every mate qiku's UCCI mode writes reads back as the same mate.
        for n in (-50..=50).filter(|&n| n != 0) {
            let ucci = crate::engine::ucci::to_ucci(&format!("info depth 1 score mate {n} pv h2e2"));
            let words = ucci.split_once("score ").expect("a score").1;
            assert_eq!(Score::from_ucci(words, true), Some(Score::Mate(n)), "{ucci}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_fen() {
        let fen = "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1";
        let got: Vec<_> = read(&format!("\u{feff}{fen}\t1\ttrain\n")).collect::<Result<_, _>>().expect("read");
        assert_eq!((got[0].0, got[0].1.fen.as_str()), (1, fen));
    }

    #[test]
    fn targets_blend_score_and_result() {
        let p =
            |r: f64, s: Option<Score>| ScoredPosition { fen: String::new(), result: r, split: Split::Train, score: s };
        assert_eq!(target(&p(1.0, None), 0.5, 0.01), 1.0);
        assert_eq!(target(&p(0.0, Some(Score::Cp(0))), 0.5, 0.01), 0.25);
        assert_eq!(target(&p(0.5, Some(Score::Mate(-2))), 1.0, 0.01), 0.0);
        // Scores that predict the results: the fitted scale finds the generating one.
        let k = 0.004;
        let mut ps = Vec::new();
        for cp in (-600..=600).step_by(10) {
            let e = super::super::sigmoid(k, f64::from(cp));
            // Results in proportion e (out of 20 games a score).
            let wins = (e * 20.0).round() as usize;
            for i in 0..20 {
                ps.push(p(if i < wins { 1.0 } else { 0.0 }, Some(Score::Cp(cp))));
            }
        }
        let fitted = fit_engine_scale(&ps);
        assert!((fitted / k - 1.0).abs() < 0.05, "fitted {fitted}, generated with {k}");
    }
}
