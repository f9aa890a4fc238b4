//! Merging sorted entry streams: the k-way merge behind both the builder's spilled runs and
//! `qiku-book merge`, and the run files the builder spills to disk.
//!
//! Every source yields entries in strictly increasing (key, move) order; the merge yields each
//! (key, move) once with the counts of all sources added. Addition is saturating, hence
//! associative and commutative: the result does not depend on how records were split into runs
//! or books, which is what makes builds deterministic and `merge(A, B)` equal to one build.

use super::error::BookError;
use super::format::{decode_entry, encode_entry, BookWriter, GameCounts, Header, RECORD_LEN};
use super::probe::{Book, Verify};
use super::recent::{fingerprint, KeptRecords, RecentCollector, Ref, StoredGame};
use super::record::Entry;
use super::scratch::{Records, Scratch, MAX_FAN_IN};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub(crate) type EntryStream<'a> = Box<dyn Iterator<Item = Result<Entry, BookError>> + 'a>;

/// K-way merge of sorted entry streams, adding counts of equal (key, move).
pub(crate) struct Merge<'a> {
    sources: Vec<EntryStream<'a>>,
    heads: Vec<Option<Entry>>,
    heap: BinaryHeap<Reverse<((u64, u16), usize)>>,
    failed: bool,
}

impl<'a> Merge<'a> {
    pub(crate) fn new(mut sources: Vec<EntryStream<'a>>) -> Result<Merge<'a>, BookError> {
        let mut heads = Vec::with_capacity(sources.len());
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, s) in sources.iter_mut().enumerate() {
            let head = s.next().transpose()?;
            if let Some(e) = &head {
                heap.push(Reverse((e.sort_key(), i)));
            }
            heads.push(head);
        }
        Ok(Merge { sources, heads, heap, failed: false })
    }

    /// Takes the head of source `i` and refills it.
    fn advance(&mut self, i: usize) -> Result<Option<Entry>, BookError> {
        let next = self.sources[i].next().transpose()?;
        if let Some(e) = &next {
            heap_push(&mut self.heap, e, i);
        }
        Ok(std::mem::replace(&mut self.heads[i], next))
    }

    fn next_entry(&mut self) -> Result<Option<Entry>, BookError> {
        let Some(Reverse((sk, i))) = self.heap.pop() else {
            return Ok(None);
        };
        let Some(mut acc) = self.advance(i)? else {
            return Err(BookError::Internal("merge heap and heads disagree".into()));
        };
        if self.heads[i].is_some_and(|e| e.sort_key() <= sk) {
            return Err(BookError::Internal(format!("merge source {i} is not strictly sorted")));
        }
        while let Some(&Reverse((sk2, j))) = self.heap.peek() {
            if sk2 != sk {
                break;
            }
            self.heap.pop();
            if let Some(e) = self.advance(j)? {
                acc.counts.add(&e.counts);
            }
            if self.heads[j].is_some_and(|e| e.sort_key() <= sk) {
                return Err(BookError::Internal(format!("merge source {j} is not strictly sorted")));
            }
        }
        Ok(Some(acc))
    }
}

fn heap_push(heap: &mut BinaryHeap<Reverse<((u64, u16), usize)>>, e: &Entry, i: usize) {
    heap.push(Reverse((e.sort_key(), i)));
}

impl Iterator for Merge<'_> {
    type Item = Result<Entry, BookError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.next_entry().transpose();
        if matches!(r, Some(Err(_))) {
            self.failed = true;
        }
        r
    }
}

/// A sorted run spilled to disk: raw 26-byte records (the book's record encoding), nothing else,
/// in a [`Records`] file.
pub(crate) struct Run(Records<RECORD_LEN>);

impl Run {
    /// Writes `entries` (sorted, aggregated) to a new file in `dir`.
    pub(crate) fn write(
        dir: &Path,
        scratch: &Scratch,
        entries: impl Iterator<Item = Result<Entry, BookError>>,
    ) -> Result<Run, BookError> {
        Ok(Run(scratch.write_records(dir, "run", 1 << 20, entries.map(|e| e.map(|e| encode_entry(&e))))?))
    }

    /// Streams the run back.
    pub(crate) fn read(&self, scratch: &Scratch) -> Result<EntryStream<'static>, BookError> {
        let path = self.0.path.to_path_buf();
        Ok(Box::new(self.0.read(scratch, 1 << 18)?.map(move |b| {
            decode_entry(&b?).ok_or_else(|| BookError::Corrupt {
                path: path.clone(),
                what: "spill file record has an invalid move".into(),
            })
        })))
    }
}

/// Merges `runs` (into new runs in `dir`) until at most `room` are left, at most [`MAX_FAN_IN`]
/// at a time: the runs that a final merge then reads at once. Counts add up in any grouping, so
/// the result is the same entries. `Ok(false)` when `stop` said to stop (asked every
/// [`STOP_CHECK_RECORDS`] entries).
pub(crate) fn reduce_runs(
    runs: &mut Vec<Run>,
    room: usize,
    dir: &Path,
    scratch: &Scratch,
    stop: &dyn Fn() -> bool,
) -> Result<bool, BookError> {
    let room = room.max(1);
    let mut seen = 0u64;
    while runs.len() > room {
        let take = MAX_FAN_IN.min(runs.len() - room + 1);
        let group: Vec<Run> = runs.drain(..take).collect();
        let sources = group.iter().map(|r| r.read(scratch)).collect::<Result<Vec<_>, _>>()?;
        let mut stopped = false;
        let merged = Merge::new(sources)?.take_while(|_| {
            seen += 1;
            stopped = stopped || (seen % STOP_CHECK_RECORDS == 0 && stop());
            !stopped
        });
        let run = Run::write(dir, scratch, merged)?;
        if stopped {
            return Ok(false);
        }
        runs.push(run);
    }
    Ok(true)
}

/// While a book is written (built, merged, imported), the caller's
/// [`crate::Progress::stop_requested`] is asked once per this many records.
pub(crate) const STOP_CHECK_RECORDS: u64 = 1 << 16;

/// Merges books into `output`: counts of equal (position, move) are added, game counts summed.
///
/// The books must have been built with the same game-level options (`max_ply`, `--only`,
/// `--min-elo`, `--keep-prefix`); otherwise adding their counts would mean nothing, and the
/// merge is refused. The per-move filters (`--min-games`, `--min-score`) of the output are the
/// strictest of the inputs' and `min_games`/`min_score` given here, applied to the summed counts
/// (moves an input had already dropped cannot come back: merge unfiltered books for exact sums).
/// Inputs are fully verified first (fingerprint, version, checksums).
///
/// Books with a recent-games section must all keep the same number of games per position
/// (books without one count as 0); the output keeps, per position, the most recent of all the
/// inputs' games there, in the same order a build over all the games gives.
/// ```
/// use qiku::book::{build, merge_books, Book, BookError, BuildOptions, MinScore};
/// use qiku::Position;
///
/// let dir = tempfile::tempdir()?;
/// let mut books = Vec::new();
/// for (name, games) in [("a", "1. h2e2 h9g7 1-0\n1. h2e2 b9c7 0-1\n"), ("b", "1. h2e2 h9g7 1/2-1/2\n")] {
///     let pgn = dir.path().join(format!("{name}.pgn"));
///     std::fs::write(&pgn, games)?;
///     let book = dir.path().join(format!("{name}.qbk"));
///     build(&[pgn], &book, &BuildOptions::default())?;
///     books.push(book);
/// }
/// let merged = dir.path().join("merged.qbk");
/// let header = merge_books(&books, &merged, 0, MinScore::NONE)?;
/// assert_eq!(header.games.used, 3);
/// let moves = Book::open(&merged)?.probe(&Position::startpos())?;
/// assert_eq!(moves.len(), 1);
/// let c = moves[0].counts; // h2e2 for red: a win, a loss and a draw
/// assert_eq!((c.wins, c.draws, c.losses), (1, 1, 1));
///
/// // Writing over an input is refused before anything is read; a book named twice, once read.
/// let err = merge_books(&books, &books[0], 0, MinScore::NONE).unwrap_err();
/// assert!(matches!(err, BookError::OutputIsInput { .. }), "{err}");
/// let twice = [books[0].clone(), books[1].clone(), books[0].clone()];
/// let err = merge_books(&twice, &merged, 0, MinScore::NONE).unwrap_err();
/// assert!(err.to_string().contains("named twice"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn merge_books(
    inputs: &[PathBuf],
    output: &Path,
    min_games: u32,
    min_score: super::record::MinScore,
) -> Result<Header, BookError> {
    merge_books_with_progress(inputs, output, min_games, min_score, &crate::util::progress::NoProgress)
}

/// [`merge_books`], reporting the records merged to `progress` (one phase, `merging`, whose
/// total is the inputs' records). It asks [`Progress::stop_requested`] every 65,536 records or
/// recent-games references and once more before the book replaces the output: a stop ends the
/// merge with [`BookError::Stopped`], writing nothing and removing its temporary files.
///
/// Refused before any book is read: an output that is one of the inputs, and one that cannot be
/// written (a directory or a name ending in a slash, a path in a directory that does not exist
/// or cannot be written in).
///
/// [`Progress::stop_requested`]: crate::Progress::stop_requested
///
/// ```
/// # use qiku::book::{build, BuildOptions};
/// use qiku::book::{merge_books_with_progress, MinScore};
/// use qiku::Progress;
/// use std::sync::Mutex;
///
/// /// Keeps the phases started, with their totals.
/// #[derive(Default)]
/// struct Phases(Mutex<Vec<(String, u64)>>);
/// impl Progress for Phases {
///     fn start(&self, label: &str, total: u64) {
///         self.0.lock().unwrap().push((label.to_string(), total));
///     }
///     fn advance(&self, _: u64) {}
///     fn finish(&self) {}
/// }
///
/// # let dir = tempfile::tempdir()?;
/// # let mut books = Vec::new();
/// # for (name, games) in [("a", "1. h2e2 h9g7 1-0\n"), ("b", "1. h2e2 b9c7 0-1\n")] {
/// #     let pgn = dir.path().join(format!("{name}.pgn"));
/// #     std::fs::write(&pgn, games)?;
/// #     books.push(dir.path().join(format!("{name}.qbk")));
/// #     build(&[pgn], &books[books.len() - 1], &BuildOptions::default())?;
/// # }
/// // Two books of two records each: h2e2, then h9g7 in one and b9c7 in the other.
/// let phases = Phases::default();
/// let header = merge_books_with_progress(&books, &dir.path().join("ab.qbk"), 0, MinScore::NONE, &phases)?;
/// assert_eq!(phases.0.into_inner()?, [("merging".to_string(), 4)]); // the inputs' 2 + 2 records
/// assert_eq!(header.records, 3); // h2e2 of both books in one record
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn merge_books_with_progress(
    inputs: &[PathBuf],
    output: &Path,
    min_games: u32,
    min_score: super::record::MinScore,
    progress: &dyn crate::Progress,
) -> Result<Header, BookError> {
    let stopped = || BookError::Stopped { output: output.to_path_buf() };
    if let Some(input) = crate::util::files::output_among_inputs(output, inputs) {
        return Err(BookError::OutputIsInput { output: output.to_path_buf(), input: input.to_path_buf() });
    }
    // An output that cannot be written is refused before the inputs are read, as by a build.
    crate::util::files::check_output_place(output).map_err(|source| BookError::Io {
        path: output.to_path_buf(),
        op: "write the book there",
        source,
    })?;
    let books = inputs.iter().map(|p| Book::open_with(p, Verify::Full)).collect::<Result<Vec<_>, _>>()?;
    // The same book named twice (or by two paths) would count its games twice (checked once
    // each input is known to be a book, so that a file of another kind is named as that).
    for (j, later) in inputs.iter().enumerate() {
        if let Some(earlier) = inputs[..j].iter().find(|i| crate::util::files::same_file(i, later)) {
            return Err(BookError::Incompatible {
                path: later.clone(),
                what: format!(
                    "named twice (also as {}): merged with itself, a book would count its games twice; name each book once",
                    earlier.display()
                ),
            });
        }
        // A copy likewise: the same records, index and recent games (the body checksum covers
        // them all) and the same counts.
        let same = |a: &Header, b: &Header| {
            (a.body_checksum, a.records, a.positions, a.moves) == (b.body_checksum, b.records, b.positions, b.moves)
        };
        if let Some(i) = (0..j).find(|&i| same(books[i].header(), books[j].header())) {
            return Err(BookError::Incompatible {
                path: later.clone(),
                what: format!(
                    "holds the same records as {} (a copy of it?): merged, its games would count twice; name each \
                     book once",
                    inputs[i].display()
                ),
            });
        }
    }
    let Some(first) = books.first() else {
        return Err(BookError::Internal("merge needs at least one book".into()));
    };
    let mut params = first.header().params;
    params.min_games = params.min_games.max(min_games);
    params.min_score = params.min_score.max(min_score);
    let mut games = GameCounts::default();
    for b in &books {
        let p = b.header().params;
        if !p.same_counting(&first.header().params) {
            return Err(BookError::Incompatible {
                path: b.path().to_path_buf(),
                what: format!(
                    "built with {}, but {} with {}; merge only books built with the same options",
                    p.counting_flags(),
                    first.path().display(),
                    first.header().params.counting_flags()
                ),
            });
        }
        if b.header().recent_games != first.header().recent_games {
            return Err(BookError::Incompatible {
                path: b.path().to_path_buf(),
                what: format!(
                    "keeps {} recent games per position, but {} keeps {}; rebuild them with the same --recent-games",
                    b.header().recent_games,
                    first.path().display(),
                    first.header().recent_games
                ),
            });
        }
        params.min_games = params.min_games.max(p.min_games);
        params.min_score = params.min_score.max(p.min_score);
        games.add(&b.header().games);
    }
    let keep = first.header().recent_games;
    let scratch = Scratch { output: output.to_path_buf(), dir: crate::util::files::parent_dir(output).to_path_buf() };
    let collector = if keep > 0 {
        let mut collector = RecentCollector::new(keep, scratch.clone(), 128 << 20);
        for b in &books {
            // Each game's fingerprint and rank, computed on its first reference.
            let mut seen: HashMap<u32, (u64, u32)> = HashMap::new();
            let mut refs = Vec::new();
            b.for_each_recent_ref(&mut |key, g| {
                let (id, rank) = match seen.get(&g) {
                    Some(&v) => v,
                    None => {
                        let bytes = b.recent_game_bytes(g)?;
                        let date = bytes.get(..4).map_or(0, |d| u32::from_le_bytes([d[0], d[1], d[2], d[3]]));
                        let v = (fingerprint(&bytes), StoredGame::rank(date));
                        collector.add_game(v.0, &bytes)?;
                        seen.insert(g, v);
                        v
                    }
                };
                refs.push(Ref { key, rank, id });
                if refs.len() >= 1 << 16 {
                    if progress.stop_requested() {
                        return Err(stopped());
                    }
                    collector.add_refs(&mut refs)?;
                }
                Ok(())
            })?;
            collector.add_refs(&mut refs)?;
        }
        Some(collector)
    } else {
        None
    };
    let mut kept = KeptRecords::new(params, collector.is_some(), scratch);
    let sources: Vec<EntryStream<'_>> = books.iter().map(|b| Box::new(b.try_entries()) as EntryStream<'_>).collect();
    let mut writer = BookWriter::create(output)?;
    progress.start("merging", books.iter().map(Book::len).sum());
    let mut merged = 0u64;
    for e in Merge::new(sources)? {
        let e = e?;
        merged += 1;
        if merged % STOP_CHECK_RECORDS == 0 {
            progress.set_position(merged);
            if progress.stop_requested() {
                // The unfinished file is removed as the writer is dropped.
                return Err(stopped());
            }
        }
        kept.push(&e, &mut writer)?;
    }
    progress.finish();
    let section = match collector {
        Some(c) => Some((keep, c.finish(kept.kept_keys())?)),
        None => None,
    };
    if progress.stop_requested() {
        return Err(stopped());
    }
    writer.finish_with(games, params, section)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::record::Counts;
    use crate::core::Move;

    fn e(key: u64, mv: u16, w: u32) -> Entry {
        Entry { key, mv: Move::from_u16(mv).unwrap(), counts: Counts { wins: w, ..Counts::default() } }
    }

    #[test]
    fn merges_and_adds() {
        let a = vec![e(1, 0x0101, 1), e(2, 0x0101, 2), e(5, 0x0181, 3)];
        let b = vec![e(1, 0x0101, 10), e(1, 0x0181, 20), e(5, 0x0181, 30)];
        let c: Vec<Entry> = vec![];
        let sources: Vec<EntryStream<'_>> =
            [a, b, c].into_iter().map(|v| Box::new(v.into_iter().map(Ok)) as EntryStream<'_>).collect();
        let merged: Vec<Entry> = Merge::new(sources).unwrap().map(Result::unwrap).collect();
        assert_eq!(merged, vec![e(1, 0x0101, 11), e(1, 0x0181, 20), e(2, 0x0101, 2), e(5, 0x0181, 33)]);
    }

    #[test]
    fn unsorted_source_is_an_error_not_garbage() {
        let a = vec![e(2, 0x0101, 1), e(1, 0x0101, 1)];
        let sources: Vec<EntryStream<'_>> = vec![Box::new(a.into_iter().map(Ok))];
        let r: Vec<_> = Merge::new(sources).unwrap().collect();
        assert!(matches!(r.last(), Some(Err(BookError::Internal(_)))));
    }
}
