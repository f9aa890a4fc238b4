//! The optional recent-games section of a `.qbk` (format version 2): for every position the few
//! most recent games that reached it, so that an explorer can list them and replay one.
//!
//! Games are stored once, in a game table (players, event, date, ECCO, result, start position,
//! every move); each position has only references into it. Layout, byte by byte, in
//! docs/FORMAT.md ("Recent games"). "Most recent" is: the later date first (see
//! [`GameDate::key`]: a game without a readable date is the oldest), then the smaller game
//! fingerprint (the book checksum of the game's stored bytes). Both depend only on a game's
//! content, so the section is the same for any thread count, input order, or split of the input
//! into books that are merged afterwards. Identical games (same fingerprint) are stored once.
//!
//! Building is memory-bounded: game bytes go to an unnamed temporary file as they come (only a
//! fingerprint-to-offset map stays in memory), and (position, game) references are sorted in a
//! bounded buffer and spilled as sorted runs, like the book's records: each in a named file of a
//! private directory, closed while it waits, and merged at most 32 at a time.

use super::error::BookError;
use super::filter::GameDate;
use super::format::{bucket, BookWriter, BuildParams, Checksum, TrailingSection, MAX_INDEX_BITS, SECTION_HEADER_LEN};
use super::record::{canonical_key, Entry, Orientation};
use super::scratch::{Records, Scratch, MAX_FAN_IN};
use crate::core::{Move, Position};
use crate::pgn::GameResult;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// `QBKGAMES`: the start of the section.
pub const SECTION_MAGIC: [u8; 8] = *b"QBKGAMES";
/// Bytes of one position entry: key (8), first reference (4).
pub const POSITION_LEN: u64 = 12;
/// Text fields are cut to this many bytes (at a character boundary) when stored.
pub const MAX_TEXT: usize = 255;
/// The default number of games kept per position.
pub const DEFAULT_RECENT_GAMES: u32 = 5;

/// A game that reached a position, as [`Book::recent_games`](super::Book::recent_games) returns
/// it: oriented so that its moves reach the probed position itself (a game that reached its
/// mirror image is mirrored, start position and moves).
///
/// ```
/// use qiku::book::{build, Book, BuildOptions};
/// use qiku::{notation::iccs, pgn::GameResult, Position};
///
/// let dir = tempfile::tempdir()?;
/// let (pgn, path) = (dir.path().join("games.pgn"), dir.path().join("b.qbk"));
/// std::fs::write(&pgn, "[Red \"Hu Ronghua\"]\n[Date \"1995.03.04\"]\n\n1. b2e2 h9g7 1-0\n")?;
/// build(&[pgn], &path, &BuildOptions::default())?;
/// // Probed after h2e2, the mirror image of the b2e2 played: the game comes back mirrored.
/// let start = Position::startpos();
/// let games = Book::open(&path)?.recent_games(&start.play(iccs::parse(&start, "h2e2")?)?)?;
/// let game = &games[0];
/// assert_eq!((game.red.as_str(), game.result, game.mirrored), ("Hu Ronghua", Some(GameResult::RedWins), true));
/// assert_eq!((game.moves[0].to_string(), game.moves[1].to_string()), ("h2e2".to_string(), "b9c7".to_string()));
/// assert_eq!(game.when.map(|d| d.key()), Some(19950304));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecentGame {
    /// The `Red` tag (empty if none).
    pub red: String,
    /// The `Black` tag.
    pub black: String,
    /// The `Event` tag.
    pub event: String,
    /// The `Date` tag as written (`2003.05.12`, `2003年5月12日`, ...).
    pub date: String,
    /// The date as read from it ([`GameDate::parse`]), by which games are ordered.
    pub when: Option<GameDate>,
    /// The `ECCO` tag.
    pub ecco: String,
    /// The result; `None` when unknown (`*`).
    pub result: Option<GameResult>,
    /// The start position (the `FEN` tag, else the standard one), in the probed orientation.
    pub start: Position,
    /// Every move of the game from `start` (with `--head-only`, only the first `--max-ply`).
    pub moves: Vec<Move>,
    /// `moves[..ply]` played from `start` reach the probed position.
    pub ply: usize,
    /// Whether the game was played as the mirror image of these moves.
    pub mirrored: bool,
}

/// A game as stored, before orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StoredGame {
    pub(crate) date_key: u32,
    pub(crate) result: Option<GameResult>,
    pub(crate) red: String,
    pub(crate) black: String,
    pub(crate) event: String,
    pub(crate) date: String,
    pub(crate) ecco: String,
    /// Empty for the standard start position.
    pub(crate) fen: String,
    pub(crate) moves: Vec<Move>,
}

fn cut(s: &str) -> &str {
    let s = s.trim();
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

impl StoredGame {
    /// The stored bytes: date key (u32), result (u8: 0 unknown, 1 red wins, 2 draw, 3 black
    /// wins), six texts (u8 length + UTF-8: red, black, event, date, ECCO, FEN), move count (u16),
    /// moves (u16 each).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(64 + 2 * self.moves.len());
        b.extend_from_slice(&self.date_key.to_le_bytes());
        b.push(match self.result {
            None => 0,
            Some(GameResult::RedWins) => 1,
            Some(GameResult::Draw) => 2,
            Some(GameResult::BlackWins) => 3,
        });
        for t in [&self.red, &self.black, &self.event, &self.date, &self.ecco, &self.fen] {
            let t = cut(t);
            b.push(t.len() as u8);
            b.extend_from_slice(t.as_bytes());
        }
        let n = self.moves.len().min(usize::from(u16::MAX));
        b.extend_from_slice(&(n as u16).to_le_bytes());
        for m in &self.moves[..n] {
            b.extend_from_slice(&m.to_u16().to_le_bytes());
        }
        b
    }

    /// Decodes stored bytes; `Err` says what is wrong.
    pub(crate) fn decode(b: &[u8]) -> Result<StoredGame, String> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = b.get(at..at + n).ok_or_else(|| format!("game record cut short at byte {at}"))?;
            at += n;
            Ok(s)
        };
        let d = take(4)?;
        let date_key = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
        if date_key != 0 && GameDate::from_key(date_key).is_none() {
            return Err(format!("game date key {date_key} is not a date"));
        }
        let result = match take(1)?[0] {
            0 => None,
            1 => Some(GameResult::RedWins),
            2 => Some(GameResult::Draw),
            3 => Some(GameResult::BlackWins),
            r => return Err(format!("game result code {r}")),
        };
        let mut texts = Vec::with_capacity(6);
        for _ in 0..6 {
            let n = usize::from(take(1)?[0]);
            let t = std::str::from_utf8(take(n)?).map_err(|_| "game text is not UTF-8".to_string())?;
            texts.push(t.to_string());
        }
        let n = take(2)?;
        let n = usize::from(u16::from_le_bytes([n[0], n[1]]));
        let mut moves = Vec::with_capacity(n);
        for _ in 0..n {
            let m = take(2)?;
            moves.push(Move::from_u16(u16::from_le_bytes([m[0], m[1]])).ok_or("game move is not a move encoding")?);
        }
        if at != b.len() {
            return Err(format!("game record has {} bytes after its moves", b.len() - at));
        }
        let mut t = texts.into_iter();
        let mut next = || t.next().unwrap_or_default();
        Ok(StoredGame {
            date_key,
            result,
            red: next(),
            black: next(),
            event: next(),
            date: next(),
            ecco: next(),
            fen: next(),
            moves,
        })
    }

    /// The game oriented to reach a position of canonical key `key` in orientation `want`;
    /// `Err` if it is not a legal game or never reaches that key.
    pub(crate) fn orient(self, key: u64, want: Orientation) -> Result<RecentGame, String> {
        let start = if self.fen.is_empty() {
            Position::startpos()
        } else {
            Position::from_fen(&self.fen).map_err(|e| format!("game start FEN {:?}: {e}", self.fen))?
        };
        let mut pos = start.clone();
        let mut reached: Option<(usize, Orientation)> = None;
        for (i, &m) in self.moves.iter().enumerate() {
            if reached.is_none() {
                let (k, o) = canonical_key(&pos);
                if k == key {
                    reached = Some((i, o));
                }
            }
            if !pos.is_legal(m) {
                return Err(format!("game move {} ({m}) is illegal", i + 1));
            }
            pos.make_move(m);
        }
        let Some((ply, got)) = reached else {
            return Err("a referenced game does not reach the position".into());
        };
        let mirrored = matches!(
            (got, want),
            (Orientation::AsIs, Orientation::Mirrored) | (Orientation::Mirrored, Orientation::AsIs)
        );
        let (start, moves) = if mirrored {
            (start.mirror(), self.moves.iter().map(|m| m.mirror()).collect())
        } else {
            (start, self.moves)
        };
        Ok(RecentGame {
            red: self.red,
            black: self.black,
            event: self.event,
            date: self.date,
            when: GameDate::from_key(self.date_key),
            ecco: self.ecco,
            result: self.result,
            start,
            moves,
            ply,
            mirrored,
        })
    }

    /// The sort rank of a game's references: later dates first.
    pub(crate) fn rank(date_key: u32) -> u32 {
        u32::MAX - date_key
    }
}

/// A (position, game) reference while building: sorted by key, then rank (newest first), then
/// game fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ref {
    pub(crate) key: u64,
    pub(crate) rank: u32,
    pub(crate) id: u64,
}

const REF_LEN: usize = 20;

impl Ref {
    fn encode(&self) -> [u8; REF_LEN] {
        let mut b = [0u8; REF_LEN];
        b[0..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..12].copy_from_slice(&self.rank.to_le_bytes());
        b[12..20].copy_from_slice(&self.id.to_le_bytes());
        b
    }
    fn decode(b: &[u8; REF_LEN]) -> Ref {
        let u64_at =
            |o: usize| u64::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3], b[o + 4], b[o + 5], b[o + 6], b[o + 7]]);
        Ref { key: u64_at(0), rank: u32::from_le_bytes([b[8], b[9], b[10], b[11]]), id: u64_at(12) }
    }
}

/// A sorted run of references in a [`Records`] file.
struct RefRun(Records<REF_LEN>);

type RefStream = Box<dyn Iterator<Item = Result<Ref, BookError>>>;

impl RefRun {
    /// Writes `refs` (sorted; equal neighbours written once) to a new file in `dir`.
    fn write(
        dir: &Path,
        scratch: &Scratch,
        refs: impl Iterator<Item = Result<Ref, BookError>>,
    ) -> Result<RefRun, BookError> {
        let mut last = None;
        let fresh = refs.filter(move |r| match r {
            Ok(r) => last.replace(*r) != Some(*r),
            Err(_) => true,
        });
        Ok(RefRun(scratch.write_records(dir, "refs", 1 << 18, fresh.map(|r| r.map(|r| r.encode())))?))
    }

    fn stream(&self, scratch: &Scratch) -> Result<RefStream, BookError> {
        Ok(Box::new(self.0.read(scratch, 1 << 16)?.map(|b| b.map(|b| Ref::decode(&b)))))
    }
}

/// Collects games and references during a build or merge, in bounded memory.
pub(crate) struct RecentCollector {
    keep: u32,
    scratch: Scratch,
    /// The private directory of the runs, made at the first spill.
    run_dir: Option<tempfile::TempDir>,
    games_file: Option<BufWriter<File>>,
    games_len: u64,
    /// Game fingerprint -> (offset, length) in the games file.
    games: HashMap<u64, (u64, u32)>,
    refs: Vec<Ref>,
    cap: usize,
    runs: Vec<RefRun>,
}

impl RecentCollector {
    /// A collector keeping `keep` games per position, spilling to temporary files in
    /// `scratch.dir`, with at most `memory` bytes of buffered references.
    pub(crate) fn new(keep: u32, scratch: Scratch, memory: u64) -> RecentCollector {
        let cap = usize::try_from(memory / REF_LEN as u64).unwrap_or(usize::MAX).max(1024);
        RecentCollector {
            keep,
            scratch,
            run_dir: None,
            games_file: None,
            games_len: 0,
            games: HashMap::new(),
            refs: Vec::new(),
            cap,
            runs: Vec::new(),
        }
    }

    fn temp(&self) -> Result<File, BookError> {
        tempfile::tempfile_in(&self.scratch.dir).map_err(self.scratch.error("create a spill file"))
    }

    /// The private directory of the runs (made on first use).
    fn run_dir(&mut self) -> Result<PathBuf, BookError> {
        self.scratch.run_dir(&mut self.run_dir)
    }

    /// Adds a game's stored bytes under its fingerprint (a fingerprint seen before is skipped).
    pub(crate) fn add_game(&mut self, id: u64, bytes: &[u8]) -> Result<(), BookError> {
        if self.games.contains_key(&id) {
            return Ok(());
        }
        if self.games_file.is_none() {
            self.games_file = Some(BufWriter::with_capacity(1 << 18, self.temp()?));
        }
        let len = u32::try_from(bytes.len()).map_err(|_| BookError::Internal("game record too long".into()))?;
        let RecentCollector { games_file, scratch, .. } = self;
        if let Some(f) = games_file.as_mut() {
            f.write_all(bytes).map_err(scratch.error("write a spill file"))?;
        }
        self.games.insert(id, (self.games_len, len));
        self.games_len += u64::from(len);
        Ok(())
    }

    /// Adds references (spilling a sorted run when the buffer is full).
    pub(crate) fn add_refs(&mut self, refs: &mut Vec<Ref>) -> Result<(), BookError> {
        if self.refs.len() + refs.len() > self.cap && !self.refs.is_empty() {
            self.spill()?;
        }
        self.refs.append(refs);
        Ok(())
    }

    fn spill(&mut self) -> Result<(), BookError> {
        self.refs.sort_unstable();
        let dir = self.run_dir()?;
        let run = RefRun::write(&dir, &self.scratch, self.refs.iter().map(|&r| Ok(r)))?;
        self.runs.push(run);
        self.refs.clear();
        Ok(())
    }

    /// Merges the references, keeps the newest `keep` per position and lays the section out;
    /// with `kept`, only for the positions it holds (those of a book that dropped moves: the
    /// games of the positions it no longer has would only take room).
    pub(crate) fn finish(mut self, kept: Option<KeptKeys>) -> Result<Section, BookError> {
        let mut kept = kept.map(KeptKeys::reader).transpose()?;
        self.refs.sort_unstable();
        self.refs.dedup();
        let buffered = std::mem::take(&mut self.refs);
        // At most MAX_FAN_IN files read at once: the runs beyond are merged into fewer first.
        let mut runs = std::mem::take(&mut self.runs);
        while runs.len() > MAX_FAN_IN - 1 {
            let take = MAX_FAN_IN.min(runs.len() - (MAX_FAN_IN - 1) + 1);
            let group: Vec<RefRun> = runs.drain(..take).collect();
            let sources = group.iter().map(|r| r.stream(&self.scratch)).collect::<Result<Vec<_>, _>>()?;
            let dir = self.run_dir()?;
            runs.push(RefRun::write(&dir, &self.scratch, merge_refs(sources)?)?);
        }
        let mut sources: Vec<RefStream> = Vec::with_capacity(runs.len() + 1);
        for run in &runs {
            sources.push(run.stream(&self.scratch)?);
        }
        sources.push(Box::new(buffered.into_iter().map(Ok)));
        let error = |op| self.scratch.error(op);
        // The selected (key, game) pairs, in order, go to a file read twice when writing.
        let mut selected = BufWriter::with_capacity(1 << 18, self.temp()?);
        let (mut positions, mut refs) = (0u64, 0u64);
        let mut ids: Vec<u64> = Vec::new();
        let mut last: Option<Ref> = None;
        let mut in_key = 0u32;
        for r in merge_refs(sources)? {
            let r = r?;
            if last == Some(r) {
                continue;
            }
            if let Some(k) = kept.as_mut() {
                if !k.contains(r.key)? {
                    continue;
                }
            }
            if last.is_none_or(|l| l.key != r.key) {
                positions += 1;
                in_key = 0;
            }
            last = Some(r);
            if in_key >= self.keep {
                continue;
            }
            in_key += 1;
            refs += 1;
            ids.push(r.id);
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&r.key.to_le_bytes());
            b[8..].copy_from_slice(&r.id.to_le_bytes());
            selected.write_all(&b).map_err(error("write a spill file"))?;
        }
        drop(runs);
        let selected = selected.into_inner().map_err(|e| error("write a spill file")(e.into_error()))?;
        ids.sort_unstable();
        ids.dedup();
        let mut games_file = match self.games_file.take() {
            Some(f) => Some(f.into_inner().map_err(|e| error("write a spill file")(e.into_error()))?),
            None => None,
        };
        if let Some(f) = games_file.as_mut() {
            f.flush().map_err(error("write a spill file"))?;
        }
        let mut game_bytes = 0u64;
        let mut spans = Vec::with_capacity(ids.len());
        for id in &ids {
            let span =
                *self.games.get(id).ok_or_else(|| BookError::Internal("referenced game not collected".into()))?;
            game_bytes += u64::from(span.1);
            spans.push(span);
        }
        Ok(Section {
            scratch: self.scratch.clone(),
            selected,
            positions,
            refs,
            ids,
            spans,
            games_file,
            game_bytes,
            index_bits: index_bits_for(positions),
        })
    }
}

/// A book's records written through its per-move filters (`--min-games`, `--min-score`), by a
/// build and a merge alike; with a recent-games section, the positions kept are noted for it when
/// the filters can drop a move.
pub(crate) struct KeptRecords {
    params: BuildParams,
    keys: Option<KeptKeys>,
    dropped: bool,
}

impl KeptRecords {
    /// `recent`: whether the book gets a recent-games section; `scratch`: where the kept keys
    /// are spilled.
    pub(crate) fn new(params: BuildParams, recent: bool, scratch: Scratch) -> KeptRecords {
        let keys = (recent && params.may_drop()).then(|| KeptKeys::new(scratch));
        KeptRecords { params, keys, dropped: false }
    }

    /// Writes `e` if the filters keep it (records come in key order).
    pub(crate) fn push(&mut self, e: &Entry, writer: &mut BookWriter) -> Result<(), BookError> {
        if !self.params.keeps(&e.counts) {
            self.dropped = true;
            return Ok(());
        }
        writer.push(e)?;
        match self.keys.as_mut() {
            Some(k) => k.note(e.key),
            None => Ok(()),
        }
    }

    /// The kept positions for [`RecentCollector::finish`]; `None` when no move was dropped (the
    /// section's positions are then the book's: nothing to filter).
    pub(crate) fn kept_keys(self) -> Option<KeptKeys> {
        self.keys.filter(|_| self.dropped)
    }
}

/// The keys of the positions a book keeps, noted in ascending order as its records are written,
/// in a spill file (8 bytes a position), for [`RecentCollector::finish`] to read back once.
pub(crate) struct KeptKeys {
    scratch: Scratch,
    file: Option<BufWriter<File>>,
    last: Option<u64>,
}

impl KeptKeys {
    fn new(scratch: Scratch) -> KeptKeys {
        KeptKeys { scratch, file: None, last: None }
    }

    /// Notes the key of a record written (records come in key order; a key noted already is not
    /// noted again).
    fn note(&mut self, key: u64) -> Result<(), BookError> {
        if self.last == Some(key) {
            return Ok(());
        }
        if self.last.is_some_and(|l| l > key) {
            return Err(BookError::Internal("book records out of key order".into()));
        }
        self.last = Some(key);
        if self.file.is_none() {
            let f = tempfile::tempfile_in(&self.scratch.dir).map_err(self.scratch.error("create a spill file"))?;
            self.file = Some(BufWriter::with_capacity(1 << 16, f));
        }
        let KeptKeys { file, scratch, .. } = self;
        match file.as_mut() {
            Some(f) => f.write_all(&key.to_le_bytes()).map_err(scratch.error("write a spill file")),
            None => Ok(()),
        }
    }

    fn reader(self) -> Result<KeyReader, BookError> {
        let error = |op| self.scratch.error(op);
        let reader = match self.file {
            Some(f) => {
                let mut f = f.into_inner().map_err(|e| error("write a spill file")(e.into_error()))?;
                f.seek(SeekFrom::Start(0)).map_err(error("read a spill file"))?;
                Some(BufReader::with_capacity(1 << 16, f))
            }
            None => None,
        };
        let mut keys = KeyReader { scratch: self.scratch.clone(), reader, current: None };
        keys.advance()?;
        Ok(keys)
    }
}

/// [`KeptKeys`] read back in order.
struct KeyReader {
    scratch: Scratch,
    reader: Option<BufReader<File>>,
    /// The next key not passed yet; `None` once all are read.
    current: Option<u64>,
}

impl KeyReader {
    fn advance(&mut self) -> Result<(), BookError> {
        let Some(r) = self.reader.as_mut() else {
            self.current = None;
            return Ok(());
        };
        let mut b = [0u8; 8];
        self.current = match r.read_exact(&mut b) {
            Ok(()) => Some(u64::from_le_bytes(b)),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(e) => return Err(self.scratch.error("read a spill file")(e)),
        };
        Ok(())
    }

    /// Whether `key` is among the keys; asked in ascending order of `key`.
    fn contains(&mut self, key: u64) -> Result<bool, BookError> {
        while self.current.is_some_and(|c| c < key) {
            self.advance()?;
        }
        Ok(self.current == Some(key))
    }
}

/// K-way merge of sorted reference streams (equal references are all yielded).
fn merge_refs(mut sources: Vec<RefStream>) -> Result<impl Iterator<Item = Result<Ref, BookError>>, BookError> {
    let mut heap = BinaryHeap::new();
    for (i, s) in sources.iter_mut().enumerate() {
        if let Some(r) = s.next().transpose()? {
            heap.push(Reverse((r, i)));
        }
    }
    let mut failed = false;
    Ok(std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let Reverse((r, i)) = heap.pop()?;
        match sources[i].next().transpose() {
            Ok(Some(n)) => heap.push(Reverse((n, i))),
            Ok(None) => {}
            Err(e) => {
                failed = true;
                return Some(Err(e));
            }
        }
        Some(Ok(r))
    }))
}

/// Index bits for `positions` positions: about 4 per bucket.
fn index_bits_for(positions: u64) -> u32 {
    let mut bits = 0;
    while bits < MAX_INDEX_BITS && (1u64 << bits) < positions / 4 {
        bits += 1;
    }
    bits
}

/// A laid-out section, ready to be streamed into a book after its index.
pub(crate) struct Section {
    scratch: Scratch,
    selected: File,
    positions: u64,
    refs: u64,
    /// Game fingerprints in table order (ascending).
    ids: Vec<u64>,
    /// Their (offset, length) in `games_file`.
    spans: Vec<(u64, u32)>,
    games_file: Option<File>,
    game_bytes: u64,
    index_bits: u32,
}

impl TrailingSection for Section {
    /// The section's length in bytes.
    fn len(&self) -> u64 {
        SECTION_HEADER_LEN
            + POSITION_LEN * self.positions
            + 4 * self.refs
            + 8 * (self.ids.len() as u64 + 1)
            + self.game_bytes
            + 8 * ((1u64 << self.index_bits) + 1)
    }

    /// Streams the section into `sink`.
    fn write(mut self, sink: &mut dyn FnMut(&[u8]) -> Result<(), BookError>) -> Result<(), BookError> {
        let scratch = self.scratch.clone();
        let io = |op: &'static str| scratch.error(op);
        let mut h = [0u8; SECTION_HEADER_LEN as usize];
        h[0..8].copy_from_slice(&SECTION_MAGIC);
        h[8..12].copy_from_slice(&self.index_bits.to_le_bytes());
        h[16..24].copy_from_slice(&self.positions.to_le_bytes());
        h[24..32].copy_from_slice(&self.refs.to_le_bytes());
        h[32..40].copy_from_slice(&(self.ids.len() as u64).to_le_bytes());
        h[40..48].copy_from_slice(&self.game_bytes.to_le_bytes());
        sink(&h)?;
        // Positions, then references: two passes over the selected pairs.
        let mut index = vec![0u64; (1usize << self.index_bits) + 1];
        for pass in 0..2 {
            self.selected.seek(SeekFrom::Start(0)).map_err(io("read a spill file"))?;
            let mut input = BufReader::with_capacity(1 << 18, &self.selected);
            let mut last: Option<u64> = None;
            for n in 0..self.refs {
                let mut b = [0u8; 16];
                input.read_exact(&mut b).map_err(io("read a spill file"))?;
                let key = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                let id = u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]);
                if pass == 0 {
                    if last != Some(key) {
                        let mut e = [0u8; POSITION_LEN as usize];
                        e[..8].copy_from_slice(&key.to_le_bytes());
                        e[8..].copy_from_slice(&(n as u32).to_le_bytes());
                        sink(&e)?;
                        index[bucket(key, self.index_bits) + 1] += 1;
                    }
                    last = Some(key);
                } else {
                    let ord =
                        self.ids.binary_search(&id).map_err(|_| BookError::Internal("game not in table".into()))?;
                    sink(&(ord as u32).to_le_bytes())?;
                }
            }
        }
        let mut off = 0u64;
        sink(&off.to_le_bytes())?;
        for &(_, len) in &self.spans {
            off += u64::from(len);
            sink(&off.to_le_bytes())?;
        }
        let mut buf = Vec::new();
        for &(at, len) in &self.spans {
            buf.resize(len as usize, 0);
            let f = self.games_file.as_mut().ok_or_else(|| BookError::Internal("no games file".into()))?;
            f.seek(SeekFrom::Start(at)).map_err(io("read a spill file"))?;
            f.read_exact(&mut buf).map_err(io("read a spill file"))?;
            sink(&buf)?;
        }
        for i in 1..index.len() {
            index[i] += index[i - 1];
        }
        for w in &index {
            sink(&w.to_le_bytes())?;
        }
        Ok(())
    }
}

/// Where the parts of a section are, decoded from its header and checked against its length.
#[derive(Clone, Debug)]
pub(crate) struct SectionLayout {
    /// File offset of the section.
    pub(crate) start: u64,
    pub(crate) index_bits: u32,
    pub(crate) positions: u64,
    pub(crate) refs: u64,
    pub(crate) games: u64,
    pub(crate) game_bytes: u64,
}

impl SectionLayout {
    pub(crate) fn positions_at(&self) -> u64 {
        self.start + SECTION_HEADER_LEN
    }
    pub(crate) fn refs_at(&self) -> u64 {
        self.positions_at() + POSITION_LEN * self.positions
    }
    pub(crate) fn offsets_at(&self) -> u64 {
        self.refs_at() + 4 * self.refs
    }
    pub(crate) fn data_at(&self) -> u64 {
        self.offsets_at() + 8 * (self.games + 1)
    }
    pub(crate) fn index_at(&self) -> u64 {
        self.data_at() + self.game_bytes
    }
    pub(crate) fn index_len(&self) -> u64 {
        (1u64 << self.index_bits) + 1
    }

    /// Decodes the 64-byte section header of a section of `len` bytes at `start`.
    pub(crate) fn decode(h: &[u8], start: u64, len: u64) -> Result<SectionLayout, String> {
        if h.len() < SECTION_HEADER_LEN as usize || h[0..8] != SECTION_MAGIC {
            return Err("recent-games section does not start with QBKGAMES".into());
        }
        let u64_at =
            |o: usize| u64::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3], h[o + 4], h[o + 5], h[o + 6], h[o + 7]]);
        let index_bits = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        if index_bits > MAX_INDEX_BITS {
            return Err(format!("recent-games index bits {index_bits} above {MAX_INDEX_BITS}"));
        }
        if h[12..16].iter().chain(&h[48..64]).any(|&b| b != 0) {
            return Err("recent-games section header has non-zero reserved bytes".into());
        }
        let l = SectionLayout {
            start,
            index_bits,
            positions: u64_at(16),
            refs: u64_at(24),
            games: u64_at(32),
            game_bytes: u64_at(40),
        };
        if l.positions > l.refs || l.refs > u64::from(u32::MAX) || l.games > l.refs {
            return Err(format!(
                "recent-games counts inconsistent: {} positions, {} references, {} games",
                l.positions, l.refs, l.games
            ));
        }
        let expected = POSITION_LEN
            .checked_mul(l.positions)
            .and_then(|p| p.checked_add(4 * l.refs))
            .and_then(|p| p.checked_add(8 * (l.games + 1)))
            .and_then(|p| p.checked_add(l.game_bytes))
            .and_then(|p| p.checked_add(SECTION_HEADER_LEN + 8 * l.index_len()));
        if expected != Some(len) {
            let expected = expected.map_or("more than can be addressed".to_string(), |e| format!("{e}"));
            return Err(format!("recent-games section is {len} bytes, its header implies {expected}"));
        }
        Ok(l)
    }
}

/// A hash of game bytes used as the game's identity (the book checksum).
pub(crate) fn fingerprint(bytes: &[u8]) -> u64 {
    Checksum::of(bytes)
}
