//! XQF game files (XQStudio's binary format, versions 1.0 to 1.8) read as games.
//!
//! One file holds one game: a 1024-byte header (version, start position as 32 piece squares,
//! result, title, event, date, site, players, ...) and then the move tree as records of 4 bytes
//! (from, to, flags) with optional comments. Versions after 1.0 (version byte above 10) obfuscate
//! the piece squares, the move squares, the comment lengths and the whole move area with keys
//! derived from header bytes 3..16; version 1.2 and later also rotate the order of the 32 pieces.
//! docs/FORMAT.md gives the layout and the key derivation.
//!
//! Only the main line is read (variations are analysis, not moves that were played). A file is
//! turned into a PGN game ([`XqfGame::to_pgn`], ICCS moves, a `FEN` tag when the game does not
//! start from the initial position), so that the PGN pipeline (book building, its error
//! reports) handles XQF collections exactly like PGN ones: a bad move is reported with the file,
//! game 1 and the move.

use crate::core::{Color, Move, Piece, Position, Role, Setup, Square};
use crate::pgn::GameResult;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where the move records start.
const BODY: usize = 0x400;

/// The longest XQF file read: 16 MiB. A real one is a few kilobytes: the 1,024-byte header, then
/// 4 bytes a move of the tree (8 with a comment's length) and the comments' text; the largest of
/// the samples, a study with many variations, is 130 KB. A longer file is refused before a byte
/// of it is read, so that a huge or endless one costs no memory.
pub const MAX_FILE_LEN: u64 = 16 << 20;
/// The text whose bytes, masked, make up the 32-byte key of the move area.
const KEY_TEXT: &[u8; 32] = b"[(C) Copyright Mr. Dong Shiwei.]";

/// Why an XQF file could not be read.
///
/// ```
/// use qiku::xqf::{self, XqfError};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("short.xqf");
/// std::fs::write(&path, b"XQ, but no game")?;
/// let err = xqf::read(&path).unwrap_err();
/// assert!(matches!(err, XqfError::Format { .. }));
/// let text = "short.xqf: not a readable XQF file: 15 bytes, shorter than the 1024-byte header";
/// assert!(err.to_string().ends_with(text), "{err}");
/// assert!(matches!(xqf::read(dir.path().join("missing.xqf")), Err(XqfError::Io { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum XqfError {
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Not an XQF file, or one damaged beyond reading; says what is wrong.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, in words.
        what: String,
    },
}

impl fmt::Display for XqfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XqfError::Io { path, source } => write!(f, "{}: cannot read: {source}", path.display()),
            XqfError::Format { path, what } => write!(f, "{}: not a readable XQF file: {what}", path.display()),
        }
    }
}

impl std::error::Error for XqfError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            XqfError::Io { source, .. } => Some(source),
            XqfError::Format { .. } => None,
        }
    }
}

/// One game read from an XQF file.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/030-huang-songxuan-vs-feng-jingru.XQF");
/// let game = qiku::xqf::read(path)?;
/// assert_eq!(game.start, qiku::Position::startpos());
/// assert_eq!((game.moves.len(), game.moves[0].to_string()), (37, "h2e2".to_string()));
/// let red = game.tags.iter().find(|(name, _)| *name == "Red").map(|(_, v)| v.as_str());
/// assert_eq!((game.version, red), (18, Some("黄松轩"))); // version 1.8; Huang Songxuan played red
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct XqfGame {
    /// The version byte (10 = 1.0, ..., 18 = 1.8).
    pub version: u8,
    /// The start position; the side to move is the color of the first move's piece.
    pub start: Position,
    /// The main line as stored (each move's legality is checked by whoever plays it).
    pub moves: Vec<Move>,
    /// `None`: unknown.
    pub result: Option<GameResult>,
    /// PGN tags taken from the header (`Event`, `Date`, `Site`, `Red`, `Black`, `Title`), only
    /// those that are set.
    pub tags: Vec<(&'static str, String)>,
}

/// The keys of an obfuscated file (version above 10).
#[derive(Clone, Copy)]
struct Keys {
    xy: u8,
    xyf: u8,
    xyt: u8,
    comment_len: u32,
    body: [u8; 32],
}

/// XQStudio's key scrambler: `(((((b²·3+9)·3+8)·2+1)·3+8)·m) mod 256`.
fn scramble(b: u8, m: u8) -> u8 {
    let b = u32::from(b);
    ((((((b * b) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * u32::from(m)) as u8
}

impl Keys {
    fn from_header(h: &[u8]) -> Keys {
        let (mask, or) = (h[3], [h[8], h[9], h[10], h[11]]);
        let (sum, hxy, hxyf, hxyt) = (h[12], h[13], h[14], h[15]);
        let xy = scramble(hxy, hxy);
        let xyf = scramble(hxyf, xy);
        let xyt = scramble(hxyt, xyf);
        let comment_len = (u32::from(sum) * 256 + u32::from(hxy)) % 32000 + 767;
        let masks = [(sum & mask) | or[0], (hxy & mask) | or[1], (hxyf & mask) | or[2], (hxyt & mask) | or[3]];
        let mut body = [0u8; 32];
        for (i, b) in body.iter_mut().enumerate() {
            *b = KEY_TEXT[i] & masks[i % 4];
        }
        Keys { xy, xyf, xyt, comment_len, body }
    }
}

/// The role of each of a side's 16 piece slots.
const SLOT_ROLES: [Role; 16] = [
    Role::Rook,
    Role::Horse,
    Role::Elephant,
    Role::Advisor,
    Role::King,
    Role::Advisor,
    Role::Elephant,
    Role::Horse,
    Role::Rook,
    Role::Cannon,
    Role::Cannon,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
    Role::Pawn,
];

/// A square byte `x * 10 + y` (x file 0-8 from red's left, y rank 0-9 from red's side).
fn square(b: u8) -> Option<Square> {
    if b > 89 {
        return None;
    }
    Square::from_coords(i32::from(b / 10), i32::from(b % 10))
}

/// A header string: a length byte, then up to `max` bytes of GB18030 text, ended early by a NUL.
/// Other control characters become spaces: the text becomes a PGN tag, whose reader would
/// refuse the whole game over them.
fn header_text(h: &[u8], at: usize, max: usize) -> Option<String> {
    let len = usize::from(h[at]).min(max);
    let bytes = &h[at + 1..at + 1 + len];
    let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
    let (text, _, _) = encoding_rs::GB18030.decode(bytes);
    let text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Reads a file's main line. The file is opened only if it is a regular file (a FIFO or a device
/// is refused at once, see [`crate::fs::open_regular`]), and refused unread when it is longer
/// than [`MAX_FILE_LEN`].
///
/// ```
/// use qiku::xqf;
///
/// // An XQStudio file from a set-up position (in the repository's test data); its tenth move
/// // cannot be played, which the replay finds.
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/BadMoveTest3.xqf");
/// let game = xqf::read(path)?;
/// assert_eq!(game.start.fen(), "2b6/3ka4/2Pab4/5Np2/9/6P2/9/3A5/4A4/4K4 w - - 0 1");
/// assert_eq!(game.result.map(|r| r.as_str()), Some("1-0"));
/// assert_eq!(game.moves.len(), 10);
/// let mut pos = game.start.clone();
/// let legal = game.moves.iter().take_while(|&&m| pos.play(m).map(|next| pos = next).is_ok()).count();
/// assert_eq!(legal, 9);
/// // As PGN, with the set-up position in a FEN tag, ready for the PGN reader.
/// let pgn = game.to_pgn();
/// assert!(pgn.contains("[FEN \"2b6/3ka4/2Pab4/5Np2/9/6P2/9/3A5/4A4/4K4 w - - 0 1\"]"), "{pgn}");
/// assert!(xqf::is_xqf_path(std::path::Path::new("GAME.XQF")));
///
/// let err = xqf::read("no/such.xqf").unwrap_err();
/// assert!(err.to_string().starts_with("no/such.xqf: cannot read"), "{err}");
/// # Ok::<(), xqf::XqfError>(())
/// ```
pub fn read(path: impl AsRef<Path>) -> Result<XqfGame, XqfError> {
    let path = path.as_ref();
    let io = |source| XqfError::Io { path: path.to_path_buf(), source };
    let format = |what| XqfError::Format { path: path.to_path_buf(), what };
    let file = crate::util::files::open_regular(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let bytes = match read_capped(file, Some(len)) {
        Ok(bytes) => bytes,
        Err(Unread::Io(e)) => return Err(io(e)),
        Err(Unread::TooLarge(what)) => return Err(format(what)),
    };
    parse(&bytes).map_err(format)
}

/// Why the bytes of an XQF file were not read.
enum Unread {
    /// The operating system's error.
    Io(std::io::Error),
    /// Longer than [`MAX_FILE_LEN`]; says how long.
    TooLarge(String),
}

/// What is wrong with a file of `size` (a number of bytes, or "more than N bytes").
fn too_large(size: impl fmt::Display) -> String {
    format!("{size}, more than the {} MiB ({MAX_FILE_LEN} bytes) an XQF file may have", MAX_FILE_LEN >> 20)
}

/// All the bytes of `file`, whose length is `len` when known: refused unread when that is above
/// [`MAX_FILE_LEN`], and never more than that read (a file that grows, or has no length).
fn read_capped(file: impl std::io::Read, len: Option<u64>) -> Result<Vec<u8>, Unread> {
    use crate::util::files::CappedRead;
    crate::util::files::read_capped(file, len, MAX_FILE_LEN).map_err(|e| match e {
        CappedRead::Io(e) => Unread::Io(e),
        CappedRead::TooLarge(Some(len)) => Unread::TooLarge(too_large(format_args!("{len} bytes"))),
        CappedRead::TooLarge(None) => Unread::TooLarge(too_large(format_args!("more than {MAX_FILE_LEN} bytes"))),
    })
}

/// Whether `path` names an XQF file (by its extension, in any case).
///
/// ```
/// use qiku::xqf::is_xqf_path;
/// use std::path::Path;
///
/// assert!(is_xqf_path(Path::new("games/030-huang-songxuan-vs-feng-jingru.XQF")));
/// assert!(!is_xqf_path(Path::new("games/030.pgn")));
/// assert!(!is_xqf_path(Path::new("xqf"))); // a name without an extension
/// ```
pub fn is_xqf_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xqf"))
}

/// Decodes the bytes of a file; the error says what is wrong.
///
/// ```
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/UnitTest.xqf"))?;
/// assert!(qiku::xqf::parse(&bytes).is_ok());
/// let err = qiku::xqf::parse(&bytes[..500]).unwrap_err();
/// assert!(err.contains("shorter than the 1024-byte header"), "{err}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn parse(bytes: &[u8]) -> Result<XqfGame, String> {
    match parse_prefix(bytes)? {
        (game, None) => Ok(game),
        (_, Some(cut)) => Err(cut),
    }
}

/// [`parse`], but a file cut off in its move area (a move record, a comment's length or a
/// comment running past its end) gives the game up to the cut with why it stops: for the PGN
/// pipeline, which counts such a game as cut short (kept with `--keep-prefix`), as it does a
/// PGN file that ends mid-game.
fn parse_prefix(bytes: &[u8]) -> Result<(XqfGame, Option<String>), String> {
    if bytes.len() < BODY {
        return Err(format!("{} bytes, shorter than the 1024-byte header", bytes.len()));
    }
    let h = &bytes[..BODY];
    if &h[0..2] != b"XQ" {
        return Err("no XQ signature at the start".into());
    }
    let version = h[2];
    if !(10..=18).contains(&version) {
        return Err(format!("unknown version byte {version} (1.0 to 1.8 are 10 to 18)"));
    }
    let keys = (version > 10).then(|| Keys::from_header(h));

    // The start position.
    let mut slots = [0u8; 32];
    for (i, &b) in h[16..48].iter().enumerate() {
        let at = if version >= 12 { (usize::from(keys.map_or(0, |k| k.xy)) + i + 1) & 31 } else { i };
        slots[at] = b;
    }
    let mut setup = Setup::empty();
    for (i, &b) in slots.iter().enumerate() {
        let b = match keys {
            Some(k) => b.wrapping_sub(k.xy),
            None => b,
        };
        let Some(sq) = square(b) else { continue };
        let color = if i < 16 { Color::Red } else { Color::Black };
        let piece = Piece::new(color, SLOT_ROLES[i % 16]);
        if let Some(other) = setup.piece_at(sq) {
            return Err(format!("two pieces ({} and {}) on square {sq}", other.char(), piece.char()));
        }
        setup.set(sq, Some(piece));
    }
    let result = match h[51] {
        1 => Some(GameResult::RedWins),
        2 => Some(GameResult::BlackWins),
        3 | 4 => Some(GameResult::Draw),
        _ => None,
    };
    let mut tags = Vec::new();
    for (name, at, max) in [
        ("Title", 80, 63),
        ("Event", 208, 63),
        ("Date", 272, 15),
        ("Site", 288, 15),
        ("Red", 304, 15),
        ("Black", 320, 15),
    ] {
        if let Some(t) = header_text(h, at, max) {
            tags.push((name, t));
        }
    }

    // The move area, read in place: only its 4-byte fields are decoded, as they are met
    // (comments are skipped over, never decoded).
    let body = &bytes[BODY..];
    let field = |at: usize| -> Option<[u8; 4]> {
        let b = body.get(at..at.checked_add(4)?)?;
        let mut f = [b[0], b[1], b[2], b[3]];
        if let Some(k) = keys {
            for (j, x) in f.iter_mut().enumerate() {
                *x = x.wrapping_sub(k.body[(BODY + at + j) % 32]);
            }
        }
        Some(f)
    };
    let mut at = 0usize;
    let mut raw_moves: Vec<(Square, Square)> = Vec::new();
    let mut cut = None;
    // The first record only carries the game's opening comment; then come the moves, the main
    // line first (each record with a "continues" flag is followed by its next move).
    let mut first = true;
    loop {
        let Some(rec) = field(at) else {
            if first {
                // A file with a header and nothing else: a position without moves.
                break;
            }
            cut = Some(format!("move record {} cut off at byte {}", raw_moves.len() + 1, BODY + at));
            break;
        };
        let (b0, b1, flags) = (rec[0], rec[1], rec[2]);
        at += 4;
        let comment_len = |at: usize| field(at).ok_or_else(|| format!("comment length cut off at byte {}", BODY + at));
        let (next, comment) = match keys {
            None => match comment_len(at) {
                Ok(b) => {
                    at += 4;
                    (flags & 0xF0 != 0, u32::from_le_bytes(b))
                }
                Err(why) => {
                    cut = Some(why);
                    break;
                }
            },
            Some(k) if flags & 0x20 != 0 => match comment_len(at) {
                Ok(b) => {
                    at += 4;
                    (flags & 0x80 != 0, u32::from_le_bytes(b).wrapping_sub(k.comment_len))
                }
                Err(why) => {
                    cut = Some(why);
                    break;
                }
            },
            Some(_) => (flags & 0x80 != 0, 0),
        };
        let comment = usize::try_from(comment).unwrap_or(usize::MAX);
        if comment > body.len().saturating_sub(at) {
            cut = Some(format!("comment of {comment} bytes runs past the end of the file at byte {}", BODY + at));
            break;
        }
        at += comment;
        if first {
            first = false;
            if at >= body.len() {
                break;
            }
            continue;
        }
        let (from, to) = match keys {
            None => (b0.wrapping_sub(0x18), b1.wrapping_sub(0x20)),
            Some(k) => (b0.wrapping_sub(0x18).wrapping_sub(k.xyf), b1.wrapping_sub(0x20).wrapping_sub(k.xyt)),
        };
        match (square(from), square(to)) {
            (Some(f), Some(t)) => raw_moves.push((f, t)),
            _ => return Err(format!("move {}: squares {from} and {to} are off the board", raw_moves.len() + 1)),
        }
        if !next {
            break;
        }
    }
    // The side to move is the color of the piece that moves first.
    let turn = match raw_moves.first().and_then(|&(f, _)| setup.piece_at(f)) {
        Some(p) => p.color,
        None => Color::Red,
    };
    setup.turn = turn;
    let start = Position::from_setup(&setup).map_err(|e| format!("impossible start position: {e}"))?;
    let moves = raw_moves.into_iter().map(|(f, t)| Move::new(f, t)).collect();
    Ok((XqfGame { version, start, moves, result, tags }, cut))
}

impl XqfGame {
    /// The game as PGN text: its tags, a `FEN` tag unless it starts from the initial position,
    /// and the main line in ICCS (`h2e2`), whether each move is legal or not, so that the reader
    /// of the PGN reports a bad one.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/030-huang-songxuan-vs-feng-jingru.XQF");
    /// let pgn = qiku::xqf::read(path)?.to_pgn();
    /// // From the initial position: no FEN tag.
    /// assert!(pgn.contains("[Result \"1-0\"]\n[Format \"ICCS\"]\n\n"), "{pgn}");
    /// let movetext = pgn.trim_end().lines().last().unwrap_or_default();
    /// assert!(movetext.starts_with("h2e2 b9c7 h0g2 ") && movetext.ends_with(" d6e4 1-0"), "{movetext}");
    /// assert_eq!(movetext.split(' ').count(), 37 + 1); // the main line's moves and the result
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_pgn(&self) -> String {
        self.pgn_text(true)
    }

    /// [`XqfGame::to_pgn`], with the result token at the end or without it (a game cut off).
    fn pgn_text(&self, ended: bool) -> String {
        let mut s = String::new();
        let esc = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ");
        for (name, value) in &self.tags {
            s.push_str(&format!("[{name} \"{}\"]\n", esc(value)));
        }
        let result = self.result.map_or("*", |r| r.as_str());
        s.push_str(&format!("[Result \"{result}\"]\n"));
        s.push_str("[Format \"ICCS\"]\n");
        if self.start != Position::startpos() {
            s.push_str(&format!("[FEN \"{}\"]\n", self.start.fen()));
        }
        s.push('\n');
        for m in &self.moves {
            s.push_str(&m.to_string());
            s.push(' ');
        }
        if ended {
            s.push_str(result);
            s.push_str("\n\n");
        } else {
            // The moves' line whole: the reader drops a line a failed read cuts.
            s.push('\n');
        }
        s
    }
}

/// A reader that fails at once with a given error: how a file that cannot be converted becomes
/// an [`OpenError`](crate::pgn::OpenError) naming it, like any unreadable input.
struct Failing(Option<std::io::Error>);

impl std::io::Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Err(self.0.take().unwrap_or_else(|| std::io::Error::other("unreadable")))
    }
}

/// Reads an XQF file from `file` and opens its game as PGN input named `path`, for the PGN
/// pipeline. A file that cannot be decoded, or is longer than [`MAX_FILE_LEN`] (no more than
/// that is read), gives an [`OpenError`](crate::pgn::OpenError) that says why.
///
/// ```
/// use std::io::Read;
/// use std::path::Path;
///
/// let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/xqf/030-huang-songxuan-vs-feng-jingru.XQF"));
/// let mut input = qiku::xqf::open_as_pgn(std::fs::File::open(path)?, path)?;
/// assert_eq!(input.path(), path);
/// let mut text = String::new();
/// input.read_to_string(&mut text)?;
/// assert_eq!(text, qiku::xqf::read(path)?.to_pgn()); // the game as `XqfGame::to_pgn` writes it
/// // Bytes that are no XQF file: an error that names the file and says why.
/// let err = qiku::xqf::open_as_pgn(&b"XQ?"[..], Path::new("bad.xqf")).unwrap_err();
/// assert!(err.to_string().starts_with("bad.xqf: ") && err.to_string().contains("1024-byte header"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_as_pgn(file: impl std::io::Read, path: &Path) -> Result<crate::pgn::Input, crate::pgn::OpenError> {
    open_sized_as_pgn(file, None, path)
}

/// [`open_as_pgn`] of a file whose length is `len` when known: one above [`MAX_FILE_LEN`] is
/// refused unread, with its length.
pub(crate) fn open_sized_as_pgn(
    file: impl std::io::Read,
    len: Option<u64>,
    path: &Path,
) -> Result<crate::pgn::Input, crate::pgn::OpenError> {
    use crate::pgn::{open_reader, EncodingChoice};
    let unreadable = |what: String| {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not a readable XQF file: {what}"));
        open_reader(Failing(Some(e)), path, EncodingChoice::Utf8)
    };
    let bytes = match read_capped(file, len) {
        Ok(bytes) => bytes,
        Err(Unread::Io(e)) => return open_reader(Failing(Some(e)), path, EncodingChoice::Utf8),
        Err(Unread::TooLarge(what)) => return unreadable(what),
    };
    match parse_prefix(&bytes) {
        Ok((game, None)) => open_reader(std::io::Cursor::new(game.to_pgn().into_bytes()), path, EncodingChoice::Utf8),
        // Cut off in its moves: the game up to the cut, then a failed read, as a damaged
        // compressed file gives it; the game counts as cut short.
        Ok((game, Some(cut))) => {
            let e = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("XQF file cut short: {cut}"));
            let text = std::io::Cursor::new(game.pgn_text(false).into_bytes());
            open_reader(std::io::Read::chain(text, Failing(Some(e))), path, EncodingChoice::Utf8)
        }
        Err(what) => unreadable(what),
    }
}

/// Game inputs with every directory replaced by the game files under it (`.xqf`, `.pgn`,
/// `.pgn.zst`, `.txt`, `.txt.zst`, in any case; recursively, in name order). Files are kept as given.
/// Symbolic links to directories are followed, but each directory is walked once: a link back
/// to a directory already walked (a loop) is skipped, so the walk always ends. A link found in a
/// directory whose target does not exist is kept among the files (opening it fails);
/// [`expand_game_inputs`] sets such links apart.
///
/// ```
/// use qiku::xqf::expand_inputs;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir(dir.path().join("sub"))?;
/// for name in ["b.pgn", "a.XQF", "notes.md", "sub/c.pgn.zst"] {
///     std::fs::write(dir.path().join(name), "")?;
/// }
/// let given = dir.path().join("notes.md"); // a file named is kept, whatever its name
/// let files = expand_inputs(&[dir.path().to_path_buf(), given.clone()]).map_err(|(_, e)| e)?;
/// let sub = dir.path().join("sub");
/// assert_eq!(files, [dir.path().join("a.XQF"), dir.path().join("b.pgn"), sub.join("c.pgn.zst"), given]);
/// let missing = dir.path().join("missing.pgn"); // not a directory: kept, opening it fails later
/// assert_eq!(expand_inputs(&[missing.clone()]).map_err(|(_, e)| e)?, [missing]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, (PathBuf, std::io::Error)> {
    Ok(expand(inputs, false)?.files)
}

/// A symbolic link with a game file's name, found by listing a directory given as an input, whose
/// target does not exist.
///
/// ```
/// # #[cfg(unix)] {
/// use qiku::xqf::{expand_game_inputs, BrokenLink};
///
/// let dir = tempfile::tempdir()?;
/// std::os::unix::fs::symlink("elsewhere/gone.xqf", dir.path().join("old.xqf"))?;
/// let found = expand_game_inputs(&[dir.path().to_path_buf()]).map_err(|(_, e)| e)?;
/// assert!(found.files.is_empty());
/// // The target as the link writes it, relative to the link's directory.
/// let link = BrokenLink { path: dir.path().join("old.xqf"), target: "elsewhere/gone.xqf".into() };
/// assert_eq!(found.broken_links, [link]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenLink {
    /// The link, under the directory listed.
    pub path: PathBuf,
    /// What the link points to, as written in it (relative to the link's directory when relative).
    pub target: PathBuf,
}

/// A directory found by listing a directory given as an input that could not itself be listed
/// (no permission to read it, say): the game files in it, if any, are not among the files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnlistedDir {
    /// The directory, under the directory given.
    pub path: PathBuf,
    /// Why it could not be listed, without its name.
    pub cause: String,
}

/// What [`expand_game_inputs`] found.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("b.pgn"), "1. h2e2 *\n")?;
/// std::fs::write(dir.path().join("a.xqf"), [0u8; 4])?;
/// std::fs::write(dir.path().join("notes.bak"), "")?; // not a game file
/// let found = qiku::xqf::expand_game_inputs(&[dir.path().to_path_buf()]).map_err(|(_, e)| e)?;
/// assert_eq!(found.files, [dir.path().join("a.xqf"), dir.path().join("b.pgn")]); // in name order
/// assert_eq!((found.broken_links.len(), found.unlisted.len()), (0, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpandedInputs {
    /// The files to read: those given, then the game files under each directory given, as in
    /// [`expand_inputs`].
    pub files: Vec<PathBuf>,
    /// The links found in the directories whose target does not exist, in name order: not in
    /// [`ExpandedInputs::files`].
    pub broken_links: Vec<BrokenLink>,
    /// The directories below a directory given that could not be listed, in the order met.
    pub unlisted: Vec<UnlistedDir>,
}

/// [`expand_inputs`], with the symbolic links found by listing a directory whose target does not
/// exist set apart in [`ExpandedInputs::broken_links`] (a link given by name stays among the
/// files: a path given that cannot be opened is an error, a typo maybe), and the directories
/// below a directory given that cannot be listed set apart in [`ExpandedInputs::unlisted`]
/// (a directory given that cannot be listed is an error).
///
/// ```
/// # #[cfg(unix)] {
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.pgn"), "[Event \"x\"]\n\n1. h2e2 *\n")?;
/// std::os::unix::fs::symlink(dir.path().join("gone.pgn"), dir.path().join("b.pgn"))?;
/// let found = qiku::xqf::expand_game_inputs(&[dir.path().to_path_buf()]).map_err(|(_, e)| e)?;
/// assert_eq!(found.files, [dir.path().join("a.pgn")]);
/// assert_eq!(found.broken_links[0].path, dir.path().join("b.pgn"));
/// assert_eq!(found.broken_links[0].target, dir.path().join("gone.pgn"));
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand_game_inputs(inputs: &[PathBuf]) -> Result<ExpandedInputs, (PathBuf, std::io::Error)> {
    expand(inputs, true)
}

fn expand(inputs: &[PathBuf], set_apart: bool) -> Result<ExpandedInputs, (PathBuf, std::io::Error)> {
    let mut out = ExpandedInputs { files: Vec::with_capacity(inputs.len()), ..ExpandedInputs::default() };
    let mut walked = std::collections::HashSet::new();
    for p in inputs {
        if p.is_dir() {
            let mut found = Vec::new();
            let mut unlisted = set_apart.then_some(&mut out.unlisted);
            collect_dir(p, &mut found, &mut walked, &mut unlisted)?;
            found.sort();
            for path in found {
                match broken_link(&path).filter(|_| set_apart) {
                    Some(target) => out.broken_links.push(BrokenLink { path, target }),
                    None => out.files.push(path),
                }
            }
        } else {
            out.files.push(p.clone());
        }
    }
    Ok(out)
}

/// The target of `path` when it is a symbolic link whose target does not exist.
fn broken_link(path: &Path) -> Option<PathBuf> {
    let link = std::fs::symlink_metadata(path).ok()?;
    let missing = matches!(std::fs::metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    if link.file_type().is_symlink() && missing {
        std::fs::read_link(path).ok()
    } else {
        None
    }
}

/// What identifies a directory however it is reached: device and inode on unix, the canonical
/// path elsewhere.
fn dir_identity(dir: &Path) -> Result<(u64, u64, PathBuf), std::io::Error> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(dir)?;
        Ok((meta.dev(), meta.ino(), PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        Ok((0, 0, dir.canonicalize()?))
    }
}

/// Adds the game files under `dir` to `out`. A subdirectory that cannot be listed goes to
/// `unlisted` when given, and is an error otherwise, as `dir` itself always is.
fn collect_dir(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    walked: &mut std::collections::HashSet<(u64, u64, PathBuf)>,
    unlisted: &mut Option<&mut Vec<UnlistedDir>>,
) -> Result<(), (PathBuf, std::io::Error)> {
    if !walked.insert(dir_identity(dir).map_err(|e| (dir.to_path_buf(), e))?) {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), e))?;
    for entry in entries {
        let path = entry.map_err(|e| (dir.to_path_buf(), e))?.path();
        if path.is_dir() {
            let listed = collect_dir(&path, out, walked, unlisted);
            match (listed, unlisted.as_deref_mut()) {
                (Ok(()), _) => {}
                // Only the directory that failed to list is set apart: one further down is
                // set apart by its own call.
                (Err((failed, e)), Some(list)) if failed == path => {
                    list.push(UnlistedDir { path, cause: e.to_string() });
                }
                (Err(e), _) => return Err(e),
            }
        } else {
            let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
            if [".xqf", ".pgn", ".pgn.zst", ".txt", ".txt.zst"].iter().any(|ext| name.ends_with(ext)) {
                out.push(path);
            }
        }
    }
    Ok(())
}
