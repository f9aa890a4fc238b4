//! Opening game files as streams of UTF-8 bytes, whatever they were written in.
//!
//! Xiangqi collections come as UTF-8, as GBK/GB18030 (mainland software) or as Big5/cp950
//! (Taiwan and Hong Kong software, and the original CCPD files), often without any marker, and
//! large ones are zstd-compressed. [`open`] sorts this out without reading whole files:
//! 1. compression is recognised by the zstd magic bytes (`28 B5 2F FD`, or a skippable frame),
//!    not by the file name, and decompressed as a stream;
//! 2. the text encoding is decided once per file from the first [`SAMPLE_LEN`] bytes of the
//!    decompressed text ([`detect_encoding`]), or forced with [`EncodingChoice`];
//! 3. non-UTF-8 text goes through [`Transcoder`], an incremental `encoding_rs` decoder exposed as
//!    a `BufRead`. UTF-8 is passed through untouched (validation happens in the reader, which
//!    reports bad bytes with their location instead of silently replacing them).

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::{error, fmt};

use encoding_rs::{CoderResult, Decoder};

/// How much decompressed text encoding detection looks at.
pub const SAMPLE_LEN: usize = 64 * 1024;

/// Buffer size for the UTF-8 pass-through and the transcoder's input and output.
const BUF_LEN: usize = 64 * 1024;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The text encoding to assume for a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EncodingChoice {
    /// Detect it (see [`detect_encoding`]).
    #[default]
    Auto,
    /// UTF-8 (a byte-order mark is skipped).
    Utf8,
    /// GBK, decoded as GB18030 (its superset), so GB2312 and GB18030 files work too.
    Gbk,
    /// Big5 as on Windows (cp950), decoded with the WHATWG Big5 table (which includes HKSCS).
    Big5,
}

/// The text encoding a file was read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    /// UTF-8 (a byte-order mark is skipped).
    Utf8,
    /// GBK, read as GB18030.
    Gbk,
    /// Big5 (cp950, with HKSCS).
    Big5,
    /// Only chosen when the file starts with a UTF-16 byte-order mark.
    Utf16Le,
    /// Only chosen when the file starts with a UTF-16 byte-order mark.
    Utf16Be,
}

impl TextEncoding {
    /// A display name: `UTF-8`, `GBK`, `Big5`, `UTF-16LE`, `UTF-16BE`.
    ///
    /// ```
    /// use qiku::pgn::TextEncoding;
    ///
    /// assert_eq!(TextEncoding::Gbk.name(), "GBK");
    /// assert_eq!(TextEncoding::Utf16Le.name(), "UTF-16LE");
    /// assert_eq!(TextEncoding::Big5.to_string(), TextEncoding::Big5.name()); // as displayed
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Gbk => "GBK",
            TextEncoding::Big5 => "Big5",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
        }
    }

    fn encoding_rs(self) -> &'static encoding_rs::Encoding {
        match self {
            TextEncoding::Utf8 => encoding_rs::UTF_8,
            // encoding_rs's GBK decoder is its GB18030 decoder.
            TextEncoding::Gbk => encoding_rs::GB18030,
            TextEncoding::Big5 => encoding_rs::BIG5,
            TextEncoding::Utf16Le => encoding_rs::UTF_16LE,
            TextEncoding::Utf16Be => encoding_rs::UTF_16BE,
        }
    }
}

impl fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// UTF-8 with a few bad bytes is still UTF-8 when it has at least this many valid multi-byte
/// characters per bad sequence (see [`detect_encoding`]).
const UTF8_CHARS_PER_BAD_BYTE: usize = 16;

/// Guesses the encoding of a file from its first bytes (ideally the first 64 KiB).
///
/// A byte-order mark decides. Otherwise the sample is read as UTF-8, counting its valid
/// multi-byte characters and its invalid sequences (a character cut off at the end of the sample
/// is neither): it is UTF-8 if it has no invalid sequence, or at least 16 valid multi-byte
/// characters per invalid one. Text in GBK or Big5 forms valid UTF-8 sequences only by accident,
/// far fewer than invalid ones (about one per six in the GBK sample collection, one per forty in
/// the Big5 one, and never more than one per two invalid ones in any 512 bytes of either), while a
/// UTF-8 file with a stray byte (from another encoding, or damage) has thousands of good
/// characters per bad byte: read as UTF-8, only the game holding the bad byte is lost (the reader
/// reports it), where read as GBK every game would be garbled.
///
/// Otherwise the sample is decoded both as GBK and as Big5 and each reading
/// is scored: +1 for every character that is common in Xiangqi notation (piece names in both
/// scripts, 進/进 退 平, Chinese numerals and full-width digits), −4 for every replacement
/// character (bytes the encoding cannot map). The two encodings map the same byte pairs to
/// unrelated characters, so the right one produces far more Xiangqi characters; GBK trail bytes
/// 0x80–0xA0 are invalid in Big5, which the penalty picks up. Ties go to GBK, the more common.
///
/// ```
/// use qiku::pgn::{detect_encoding, TextEncoding};
///
/// assert_eq!(detect_encoding("炮二平五".as_bytes()), TextEncoding::Utf8);
/// assert_eq!(detect_encoding(b"\xc5\xda\xb6\xfe\xc6\xbd\xce\xe5"), TextEncoding::Gbk); // 炮二平五
/// assert_eq!(detect_encoding(b"\xac\xb6\xa4G\xa5\xad\xa4\xad"), TextEncoding::Big5); // 炮二平五
/// assert_eq!(detect_encoding(b"\xff\xfe["), TextEncoding::Utf16Le);
/// // One stray byte among many UTF-8 characters: still UTF-8.
/// let stray = [&b"\xe9"[..], "炮二平五 馬８進７ ".repeat(3).as_bytes()].concat();
/// assert_eq!(detect_encoding(&stray), TextEncoding::Utf8);
/// ```
pub fn detect_encoding(sample: &[u8]) -> TextEncoding {
    match sample {
        [0xef, 0xbb, 0xbf, ..] => return TextEncoding::Utf8,
        [0xff, 0xfe, ..] => return TextEncoding::Utf16Le,
        [0xfe, 0xff, ..] => return TextEncoding::Utf16Be,
        _ => {}
    }
    let (chars, bad) = utf8_counts(sample);
    if bad == 0 || chars >= UTF8_CHARS_PER_BAD_BYTE.saturating_mul(bad) {
        return TextEncoding::Utf8;
    }
    let gbk = xiangqi_score(TextEncoding::Gbk, sample);
    let big5 = xiangqi_score(TextEncoding::Big5, sample);
    if big5 > gbk {
        TextEncoding::Big5
    } else {
        TextEncoding::Gbk
    }
}

/// The valid multi-byte characters and the invalid sequences of `sample` read as UTF-8 (each
/// maximal invalid sequence counted once, as a decoder replaces it; an incomplete character at
/// the very end of the sample is neither).
fn utf8_counts(sample: &[u8]) -> (usize, usize) {
    let (mut chars, mut bad) = (0, 0);
    let mut rest = sample;
    loop {
        let (valid, skip) = match std::str::from_utf8(rest) {
            Ok(s) => (s.len(), None),
            Err(e) => (e.valid_up_to(), e.error_len()),
        };
        let (good, after) = rest.split_at(valid.min(rest.len()));
        // Lead bytes of multi-byte characters.
        chars += good.iter().filter(|&&b| b >= 0xc0).count();
        match skip {
            Some(n) => {
                bad += 1;
                rest = after.get(n..).unwrap_or_default();
            }
            None => return (chars, bad),
        }
    }
}

fn xiangqi_score(encoding: TextEncoding, sample: &[u8]) -> i64 {
    let (text, _) = encoding.encoding_rs().decode_without_bom_handling(sample);
    let mut score = 0i64;
    for c in text.chars() {
        if is_xiangqi_char(c) {
            score += 1;
        } else if c == '\u{FFFD}' {
            score -= 4;
        }
    }
    score
}

fn is_xiangqi_char(c: char) -> bool {
    matches!(
        c,
        '炮' | '砲'
            | '馬'
            | '马'
            | '傌'
            | '車'
            | '车'
            | '俥'
            | '進'
            | '进'
            | '退'
            | '平'
            | '兵'
            | '卒'
            | '相'
            | '象'
            | '仕'
            | '士'
            | '帥'
            | '帅'
            | '將'
            | '将'
            | '前'
            | '後'
            | '后'
            | '一'
            | '二'
            | '三'
            | '四'
            | '五'
            | '六'
            | '七'
            | '八'
            | '九'
            | '１'..='９'
    )
}

/// Why a game file could not be opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpenErrorKind {
    /// The file could not be opened, read or decompressed.
    Io,
    /// The file is not text: one of qiku's own binary formats, or data with many NUL bytes near
    /// the start (at least 4, and one in 512 bytes; the [`OpenError::io_error`] says which).
    NotText,
}

/// How many bytes of the (decompressed) start of a file are checked for NUL bytes: text in any
/// encoding qiku reads (except UTF-16, which has a byte-order mark) has none, binary data many.
const BINARY_SNIFF_LEN: usize = 8 * 1024;

/// Why `sample` (the start of a file, decompressed) is not a game file, if it is not: one of
/// qiku's own binary files, or binary data.
fn binary_content(sample: &[u8], encoding: TextEncoding) -> Option<String> {
    use crate::util::kind::{kind_of_bytes, packed_by, FileKind};
    // Files of a kind qiku knows, named with what reads them.
    match kind_of_bytes(sample, sample.len() as u64) {
        FileKind::QikuBook => {
            return Some("this is a qiku opening book (.qbk); give game files (PGN or move lists)".into())
        }
        FileKind::QikuTable => {
            return Some("this is a qiku tablebase (.qtb); give game files (PGN or move lists)".into())
        }
        FileKind::Sqlite => {
            return Some(
                "this is an SQLite database, such as a GUI's opening book (.obk): read a book of that kind with \
                 `qiku-book import`, and give game files (PGN or move lists) here"
                    .into(),
            )
        }
        FileKind::Xqf => return Some(
            "this looks like an XQF game file: name it with the .xqf extension, which is how XQF files are told apart"
                .into(),
        ),
        _ => {}
    }
    // Compressed or archived by other tools: say which, and what qiku reads instead.
    if let Some(what) = packed_by(sample) {
        return Some(format!(
            "this is {what}, not text: unpack it, or recompress it with zstd (.zst), which qiku reads"
        ));
    }
    if matches!(encoding, TextEncoding::Utf16Le | TextEncoding::Utf16Be) {
        return None;
    }
    // A stray NUL in a text file is a syntax error for the reader to report with its line; many
    // of them (random data has one byte in 256) mean binary data.
    let head = &sample[..sample.len().min(BINARY_SNIFF_LEN)];
    let nuls = head.iter().filter(|&&b| b == 0).count();
    if nuls < 4 || nuls * 512 < head.len() {
        return None;
    }
    if let Some(order) = utf16_without_bom(head) {
        return Some(format!(
            "this looks like {order} text without a byte-order mark (a NUL byte beside nearly every other \
             byte), which is not read without one: convert it to UTF-8, e.g. with `iconv -f {order} -t UTF-8`"
        ));
    }
    Some(format!("binary data ({nuls} NUL bytes in the first {} bytes), not text", head.len()))
}

/// Whether `head` looks like UTF-16 text without a byte-order mark, and in which byte order: the
/// zero high bytes of ASCII characters put NULs at every other offset (odd ones in UTF-16LE, even
/// ones in UTF-16BE), at least one in four of those offsets, and hardly any at the others; in
/// binary data they fall on both alike.
fn utf16_without_bom(head: &[u8]) -> Option<&'static str> {
    let at = |parity: usize| head.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (at(0), at(1));
    let half = head.len() / 2;
    if odd * 4 >= half && even * 16 <= odd {
        Some("UTF-16LE")
    } else if even * 4 >= half && odd * 16 <= even {
        Some("UTF-16BE")
    } else {
        None
    }
}

/// Failure to open a game file; names the file.
#[derive(Debug)]
pub struct OpenError {
    path: PathBuf,
    what: &'static str,
    kind: OpenErrorKind,
    source: io::Error,
}

impl OpenError {
    fn new(path: &Path, what: &'static str, source: io::Error) -> Self {
        OpenError { path: path.to_path_buf(), what, kind: OpenErrorKind::Io, source }
    }

    fn not_text(path: &Path, why: String) -> Self {
        OpenError {
            path: path.to_path_buf(),
            what: "not a game file",
            kind: OpenErrorKind::NotText,
            source: io::Error::new(io::ErrorKind::InvalidData, why),
        }
    }

    /// The file.
    ///
    /// ```
    /// use qiku::pgn::{self, EncodingChoice, OpenErrorKind};
    /// use std::path::Path;
    ///
    /// let err = pgn::open("no/such/games.pgn", EncodingChoice::Auto).unwrap_err();
    /// assert_eq!(err.path(), Path::new("no/such/games.pgn"));
    /// assert_eq!(err.kind(), OpenErrorKind::Io);
    /// assert_eq!(err.io_error().kind(), std::io::ErrorKind::NotFound);
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What kind of failure this is.
    ///
    /// ```
    /// use qiku::pgn::{open_reader, EncodingChoice, OpenErrorKind};
    ///
    /// // Bytes with many NULs are no game file, in any encoding.
    /// let err = open_reader(std::io::Cursor::new(vec![0u8; 512]), "zeros.bin", EncodingChoice::Auto).unwrap_err();
    /// assert_eq!(err.kind(), OpenErrorKind::NotText);
    /// ```
    pub fn kind(&self) -> OpenErrorKind {
        self.kind
    }

    /// The underlying error. Example at [`OpenError::path`].
    pub fn io_error(&self) -> &io::Error {
        &self.source
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.path.display(), self.what, self.source)
    }
}

impl error::Error for OpenError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        Some(&self.source)
    }
}

/// An opened game file: decompressed, decoded UTF-8 text as a `BufRead`. I/O errors met while
/// reading it (say, a truncated zstd stream) carry the file name in their message.
pub struct Input {
    path: PathBuf,
    encoding: TextEncoding,
    compressed: bool,
    inner: Box<dyn BufRead + Send>,
}

impl Input {
    /// The file (or the name given to [`open_reader`]).
    ///
    /// ```
    /// use qiku::pgn::{open_reader, EncodingChoice, TextEncoding};
    /// use std::path::Path;
    ///
    /// let input = open_reader(std::io::Cursor::new("1. h2e2 *\n"), "memory.pgn", EncodingChoice::Auto)?;
    /// assert_eq!(input.path(), Path::new("memory.pgn"));
    /// assert_eq!(input.encoding(), TextEncoding::Utf8);
    /// assert!(!input.is_compressed());
    /// # Ok::<(), qiku::pgn::OpenError>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The encoding the text is decoded from (detected or forced). Example at [`Input::path`].
    pub fn encoding(&self) -> TextEncoding {
        self.encoding
    }

    /// Whether the file was zstd-compressed. Example at [`Input::path`].
    pub fn is_compressed(&self) -> bool {
        self.compressed
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Input")
            .field("path", &self.path)
            .field("encoding", &self.encoding)
            .field("compressed", &self.compressed)
            .finish_non_exhaustive()
    }
}

/// Prefixes an I/O error's message with the file name (an [`InputError`] names it already).
fn name_error(path: &Path, e: io::Error) -> io::Error {
    if e.get_ref().is_some_and(|inner| inner.is::<InputError>()) {
        return e;
    }
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| name_error(&self.path, e))
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf().map_err(|e| name_error(&self.path, e))
    }

    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt)
    }
}

/// Opens a game file (see the module documentation).
///
/// The GBK sample collection shipped with the repository, read without saying its encoding:
///
/// ```
/// use qiku::pgn::{self, EncodingChoice, Location, Reader, Skip, TextEncoding, Visitor};
///
/// struct Count(u64);
/// impl Visitor for Count {
///     fn move_token(&mut self, _: &str, _: Location) -> Skip {
///         Skip::SkipGame // only the games are counted here
///     }
///     fn end_game(&mut self, _: Location) {
///         self.0 += 1;
///     }
/// }
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/books/games/ccpd-sample-gbk.pgn");
/// let input = pgn::open(path, EncodingChoice::Auto)?;
/// assert_eq!(input.encoding(), TextEncoding::Gbk);
/// assert!(!input.is_compressed());
/// let mut count = Count(0);
/// Reader::new(input).read_all(&mut count)?;
/// assert_eq!(count.0, 2_000);
///
/// // A missing file is an error that names it.
/// let err = pgn::open("no/such/games.pgn", EncodingChoice::Auto).unwrap_err();
/// assert!(err.to_string().starts_with("no/such/games.pgn: cannot open"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open(path: impl AsRef<Path>, choice: EncodingChoice) -> Result<Input, OpenError> {
    let path = path.as_ref();
    let file = crate::util::files::open_regular(path).map_err(|e| OpenError::new(path, "cannot open", e))?;
    open_reader(file, path, choice)
}

/// Like [`open`], for data that is not a named file (standard input, memory, a network stream).
/// `name` is only used in messages.
///
/// zstd-compressed GBK text from memory, detected and decoded:
///
/// ```
/// use qiku::pgn::{open_reader, EncodingChoice, TextEncoding};
/// use std::io::Read;
///
/// // "1. 炮二平五 马８进７ *" in GBK, then zstd-compressed.
/// let gbk = b"1. \xc5\xda\xb6\xfe\xc6\xbd\xce\xe5 \xc2\xed\xa3\xb8\xbd\xf8\xa3\xb7 *\n";
/// let compressed = zstd::encode_all(&gbk[..], 3)?;
/// let mut input = open_reader(std::io::Cursor::new(compressed), "memory.pgn.zst", EncodingChoice::Auto)?;
/// assert!(input.is_compressed());
/// assert_eq!(input.encoding(), TextEncoding::Gbk);
/// let mut text = String::new();
/// input.read_to_string(&mut text)?;
/// assert_eq!(text, "1. 炮二平五 马８进７ *\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_reader<R: Read + Send + 'static>(
    reader: R,
    name: impl AsRef<Path>,
    choice: EncodingChoice,
) -> Result<Input, OpenError> {
    let path = name.as_ref();
    let mut reader = reader;
    let magic = read_prefix(&mut reader, 4).map_err(|e| OpenError::new(path, "cannot read", e))?;
    let is_zstd =
        magic == ZSTD_MAGIC || (magic.len() == 4 && magic[0] & 0xf0 == 0x50 && magic[1..] == [0x2a, 0x4d, 0x18]);
    let raw = Cursor::new(magic).chain(reader);
    let decoded: Box<dyn Read + Send> = if is_zstd {
        let decoder = zstd::stream::read::Decoder::new(raw)
            .map_err(|e| OpenError::new(path, "cannot start zstd decompression", e))?;
        Box::new(decoder)
    } else {
        Box::new(raw)
    };
    let what = if is_zstd { "cannot decompress" } else { "cannot read" };
    let mut counted = Counted { inner: decoded, path: path.to_path_buf(), offset: 0, compressed: is_zstd };
    let (sample, failure) = read_sample(&mut counted, SAMPLE_LEN);
    // A failure before the first byte is the file's; one later comes after the text read so far,
    // which is delivered first (its games are not lost), then the error.
    let rest: Box<dyn Read + Send> = match failure {
        Some(e) if sample.is_empty() => return Err(OpenError::new(path, what, InputError::into_cause(e))),
        Some(e) => Box::new(FailWith(Some(e))),
        None => Box::new(counted),
    };
    let encoding = match choice {
        EncodingChoice::Auto => detect_encoding(&sample),
        EncodingChoice::Utf8 => TextEncoding::Utf8,
        EncodingChoice::Gbk => TextEncoding::Gbk,
        EncodingChoice::Big5 => TextEncoding::Big5,
    };
    if let Some(why) = binary_content(&sample, encoding) {
        return Err(OpenError::not_text(path, why));
    }
    let bom = if encoding == TextEncoding::Utf8 && sample.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let mut head = Cursor::new(sample);
    head.set_position(bom);
    let stream = head.chain(rest);
    let inner: Box<dyn BufRead + Send> = if encoding == TextEncoding::Utf8 {
        Box::new(BufReader::with_capacity(BUF_LEN, stream))
    } else {
        Box::new(Transcoder::new(stream, encoding))
    };
    Ok(Input { path: path.to_path_buf(), encoding, compressed: is_zstd, inner })
}

/// Reads up to `n` bytes (fewer only at the end of the input).
fn read_prefix(r: &mut dyn Read, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    r.take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads up to `n` bytes, keeping those read before a failure: the bytes, and the failure if
/// one ended the reading early.
fn read_sample(r: &mut dyn Read, n: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut buf = Vec::with_capacity(n);
    // `read_to_end` leaves what it read in `buf` when it fails.
    let failure = r.take(n as u64).read_to_end(&mut buf).err();
    (buf, failure)
}

/// A failure to read a game file's bytes (an I/O error, or a zstd stream that is damaged or cut
/// short), with how far the reading got: the bytes before [`InputError::offset`] were read (and
/// are delivered to the reader before this error).
///
/// It comes wrapped in the `std::io::Error` that reading an [`Input`] returns; its message names
/// the file, the offset and the cause:
///
/// ```
/// use qiku::pgn::{open_reader, EncodingChoice, InputError};
/// use std::io::{Cursor, Read};
///
/// // A whole zstd frame, then one cut in half (as appending to a file that was then truncated).
/// let text = "[Event \"x\"]\n\n1. h2e2 h9g7 *\n".repeat(1_000);
/// let mut packed = zstd::encode_all(text.as_bytes(), 3)?;
/// let more = zstd::encode_all(text.as_bytes(), 3)?;
/// packed.extend_from_slice(&more[..more.len() / 2]);
/// let mut input = open_reader(Cursor::new(packed), "cut.pgn.zst", EncodingChoice::Auto)?;
/// let mut read = Vec::new();
/// let err = input.read_to_end(&mut read).unwrap_err();
/// let failure = err.get_ref().and_then(|e| e.downcast_ref::<InputError>()).expect("an InputError");
/// assert_eq!(failure.offset(), read.len() as u64);
/// assert!(failure.is_compressed());
/// let shown = format!("cut.pgn.zst: decompression failed at byte {} of the text: ", read.len());
/// assert!(err.to_string().starts_with(&shown), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct InputError {
    path: PathBuf,
    offset: u64,
    compressed: bool,
    source: io::Error,
}

impl InputError {
    /// The file (or the name given to [`open_reader`]). Example at [`InputError`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many bytes of the file (decompressed, before any transcoding) were read before the
    /// failure. Example at [`InputError`].
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the file is zstd-compressed (the offset is then one in the decompressed text).
    /// Example at [`InputError`].
    pub fn is_compressed(&self) -> bool {
        self.compressed
    }

    /// The cause inside an `io::Error` that wraps an `InputError`; any other error as it is.
    fn into_cause(e: io::Error) -> io::Error {
        if e.get_ref().is_some_and(|inner| inner.is::<InputError>()) {
            if let Some(inner) = e.into_inner() {
                if let Ok(failure) = inner.downcast::<InputError>() {
                    return failure.source;
                }
            }
            return io::Error::other("read failed");
        }
        e
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.compressed {
            let (path, offset, source) = (self.path.display(), self.offset, &self.source);
            write!(f, "{path}: decompression failed at byte {offset} of the text: {source}")
        } else {
            write!(f, "{}: read failed at byte {}: {}", self.path.display(), self.offset, self.source)
        }
    }
}

impl error::Error for InputError {
    fn source(&self) -> Option<&(dyn error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Counts the bytes read from a file (decompressed) and turns a failure into an [`InputError`]
/// that says where it happened.
struct Counted {
    inner: Box<dyn Read + Send>,
    path: PathBuf,
    offset: u64,
    compressed: bool,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.offset += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                let kind = e.kind();
                let failure =
                    InputError { path: self.path.clone(), offset: self.offset, compressed: self.compressed, source: e };
                Err(io::Error::new(kind, failure))
            }
        }
    }
}

/// The rest of a file whose reading failed while its first bytes were sampled: the failure, once.
struct FailWith(Option<io::Error>);

impl Read for FailWith {
    fn read(&mut self, _buf: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// Decodes a byte stream in some encoding to UTF-8, incrementally, as a `BufRead`.
///
/// Bytes that are invalid in the encoding become U+FFFD (the reader flags those inside moves).
/// Memory use is two fixed buffers, whatever the input size.
///
/// ```
/// use qiku::pgn::{TextEncoding, Transcoder};
/// use std::io::Read;
///
/// let big5: &[u8] = b"\xac\xb6\xa4G\xa5\xad\xa4\xad"; // 炮二平五
/// let mut text = String::new();
/// Transcoder::new(big5, TextEncoding::Big5).read_to_string(&mut text)?;
/// assert_eq!(text, "炮二平五");
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Transcoder<R> {
    inner: R,
    decoder: Decoder,
    input: Box<[u8]>,
    in_start: usize,
    in_end: usize,
    output: Box<[u8]>,
    out_start: usize,
    out_end: usize,
    eof: bool,
    finished: bool,
}

impl<R: Read> Transcoder<R> {
    /// A byte-order mark of `encoding` at the start is removed.
    ///
    /// ```
    /// use qiku::pgn::{TextEncoding, Transcoder};
    /// use std::io::Read;
    ///
    /// // "h2e2" in UTF-16LE, after its byte-order mark.
    /// let utf16: &[u8] = b"\xff\xfeh\x002\x00e\x002\x00";
    /// let mut text = String::new();
    /// Transcoder::new(utf16, TextEncoding::Utf16Le).read_to_string(&mut text)?;
    /// assert_eq!(text, "h2e2"); // the mark is gone
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(inner: R, encoding: TextEncoding) -> Self {
        Transcoder {
            inner,
            decoder: encoding.encoding_rs().new_decoder_with_bom_removal(),
            input: vec![0; BUF_LEN].into_boxed_slice(),
            in_start: 0,
            in_end: 0,
            output: vec![0; BUF_LEN].into_boxed_slice(),
            out_start: 0,
            out_end: 0,
            eof: false,
            finished: false,
        }
    }

    /// The wrapped reader.
    ///
    /// ```
    /// use qiku::pgn::{TextEncoding, Transcoder};
    /// use std::io::{Cursor, Read};
    ///
    /// let mut transcoder = Transcoder::new(Cursor::new(b"\xc5\xda".to_vec()), TextEncoding::Gbk);
    /// let mut text = String::new();
    /// transcoder.read_to_string(&mut text)?;
    /// assert_eq!(text, "炮");
    /// assert_eq!(transcoder.into_inner().position(), 2); // both bytes taken from the wrapped reader
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> BufRead for Transcoder<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.out_start == self.out_end && !self.finished {
            if self.in_start == self.in_end && !self.eof {
                self.in_start = 0;
                self.in_end = 0;
                loop {
                    match self.inner.read(&mut self.input) {
                        Ok(0) => self.eof = true,
                        Ok(n) => self.in_end = n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e),
                    }
                    break;
                }
            }
            let (result, read, written, _) =
                self.decoder.decode_to_utf8(&self.input[self.in_start..self.in_end], &mut self.output, self.eof);
            self.in_start += read;
            self.out_start = 0;
            self.out_end = written;
            // With `last` set, the decoder must not be called again once it has consumed
            // everything.
            if self.eof && result == CoderResult::InputEmpty {
                self.finished = true;
            }
        }
        Ok(&self.output[self.out_start..self.out_end])
    }

    fn consume(&mut self, amt: usize) {
        self.out_start = (self.out_start + amt).min(self.out_end);
    }
}

impl<R: Read> Read for Transcoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out one byte per call, to exercise every buffer boundary.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((&b, rest)), Some(slot)) => {
                    *slot = b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    fn transcode(bytes: &[u8], enc: TextEncoding) -> String {
        let mut out = String::new();
        Transcoder::new(Trickle(bytes), enc).read_to_string(&mut out).expect("utf-8 output");
        out
    }

    const MOVES: &str = "1. 炮二平五 馬８進７\n2. 馬二進三 車９平８\n";

    #[test]
    fn transcodes_gbk_and_big5_byte_by_byte() {
        let (gbk, _, bad) = encoding_rs::GBK.encode(MOVES);
        assert!(!bad);
        assert_eq!(transcode(&gbk, TextEncoding::Gbk), MOVES);
        let (big5, _, bad) = encoding_rs::BIG5.encode(MOVES);
        assert!(!bad);
        assert_eq!(transcode(&big5, TextEncoding::Big5), MOVES);
    }

    #[test]
    fn transcoder_replaces_invalid_bytes_and_truncated_tail() {
        // 0xFF is not a GBK lead byte (0x80 is: the euro sign); a lone lead byte at the end is an incomplete character.
        assert_eq!(transcode(b"a\xffb\xb0", TextEncoding::Gbk), "a\u{FFFD}b\u{FFFD}");
        assert_eq!(transcode(b"", TextEncoding::Big5), "");
    }

    #[test]
    fn transcoder_handles_large_input() {
        let text = MOVES.repeat(20_000); // > 2 buffers
        let (gbk, _, _) = encoding_rs::GBK.encode(&text);
        let mut out = String::new();
        Transcoder::new(&gbk[..], TextEncoding::Gbk).read_to_string(&mut out).expect("read");
        assert_eq!(out, text);
    }

    #[test]
    fn detects_encodings() {
        let (gbk, _, _) = encoding_rs::GBK.encode("1. 炮二平五 马８进７ 2. 马二进三 车９平８");
        let (big5, _, _) = encoding_rs::BIG5.encode(MOVES);
        assert_eq!(detect_encoding(&gbk), TextEncoding::Gbk);
        assert_eq!(detect_encoding(&big5), TextEncoding::Big5);
        // Traditional characters are in GBK too: a traditional text in GBK bytes is still GBK.
        let (gbk_trad, _, _) = encoding_rs::GBK.encode(MOVES);
        assert_eq!(detect_encoding(&gbk_trad), TextEncoding::Gbk);
        assert_eq!(detect_encoding(MOVES.as_bytes()), TextEncoding::Utf8);
        assert_eq!(detect_encoding(b"1. h2e2 h9g7"), TextEncoding::Utf8);
        assert_eq!(detect_encoding(b""), TextEncoding::Utf8);
        // A UTF-8 sample cut inside a character is still UTF-8.
        let cut = &MOVES.as_bytes()[..5];
        assert_eq!(detect_encoding(cut), TextEncoding::Utf8);
        assert_eq!(detect_encoding(b"\xff\xfe1\x00"), TextEncoding::Utf16Le);
    }

    #[test]
    fn open_reader_detects_zstd_and_encoding() {
        let (big5, _, _) = encoding_rs::BIG5.encode(MOVES);
        let packed = zstd::encode_all(&big5[..], 3).expect("compress");
        let mut input = open_reader(Cursor::new(packed), "mem.pgn", EncodingChoice::Auto).expect("open");
        assert!(input.is_compressed());
        assert_eq!(input.encoding(), TextEncoding::Big5);
        let mut out = String::new();
        input.read_to_string(&mut out).expect("read");
        assert_eq!(out, MOVES);

        let mut plain = open_reader(Cursor::new(b"\xEF\xBB\xBFabc".to_vec()), "x", EncodingChoice::Auto).expect("open");
        assert!(!plain.is_compressed());
        let mut out = String::new();
        plain.read_to_string(&mut out).expect("read");
        assert_eq!(out, "abc");
    }

    #[test]
    fn forced_encoding_wins() {
        let (gbk, _, _) = encoding_rs::GBK.encode(MOVES);
        let input = open_reader(Cursor::new(gbk.into_owned()), "x", EncodingChoice::Big5).expect("open");
        assert_eq!(input.encoding(), TextEncoding::Big5);
    }

    #[test]
    fn errors_name_the_file() {
        let err = open("/nonexistent/dir/games.pgn", EncodingChoice::Auto).expect_err("missing");
        assert!(err.to_string().starts_with("/nonexistent/dir/games.pgn: cannot open"), "{err}");

        // A truncated zstd stream fails while reading, and the message names the file.
        let packed = zstd::encode_all(&MOVES.repeat(5000).into_bytes()[..], 3).expect("compress");
        let cut = packed[..packed.len() / 2].to_vec();
        match open_reader(Cursor::new(cut), "cut.pgn.zst", EncodingChoice::Auto) {
            Err(e) => assert!(e.to_string().starts_with("cut.pgn.zst:"), "{e}"),
            Ok(mut input) => {
                let mut sink = Vec::new();
                let e = input.read_to_end(&mut sink).expect_err("truncated");
                assert!(e.to_string().starts_with("cut.pgn.zst:"), "{e}");
            }
        }
    }
}
