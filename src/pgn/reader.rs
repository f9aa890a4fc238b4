//! The streaming, visitor-style PGN reader (modelled on the `pgn-reader` crate's design).
//!
//! [`Reader`] pulls UTF-8 bytes from any `BufRead` one line at a time (so memory stays bounded by
//! the longest line, never the file), cuts them into tags, comments, NAGs, variations, results
//! and move tokens, and hands those to a [`Visitor`]. It knows no Xiangqi rules: a move token is
//! just a string, so the reader serves every notation (ICCS `H2-E2`, coordinates `h2e2`, WXF
//! `C2.5`, Chinese `炮二平五`) and does not depend on the board code.
//!
//! Why lines: every location we report needs a line and a column, resynchronisation after an
//! error is defined in terms of lines (`[` at the start of a line begins a tag section), and the
//! one-game-per-line format is line-based by nature. Reading a line is one `memchr` plus a copy,
//! well within the speed budget.
//!
//! The accepted grammar and the error recovery rules are described in `docs/PGN.md`.

use std::io::{self, BufRead, Read};

use super::error::{snippet, ErrorKind, SyntaxError};
use super::lex::{classify, find_nul, is_control, skip_ws, token_end, ws_len, Columns, Token};
use super::visitor::{Location, Skip, Visitor};

/// How the input is split into games.
///
/// ```
/// use qiku::pgn::{GameResult, Location, Mode, Reader, Skip, Visitor};
///
/// struct Results(Vec<Option<GameResult>>, u32);
/// impl Visitor for Results {
///     fn move_token(&mut self, _: &str, _: Location) -> Skip {
///         self.1 += 1;
///         Skip::Continue
///     }
///     fn outcome(&mut self, result: Option<GameResult>, _: Location) {
///         self.0.push(result);
///     }
///     fn end_game(&mut self, _: Location) {}
/// }
///
/// // One game per line, no tags: detected from the first line.
/// let mut reader = Reader::new("h2e2 h9g7 h0g2 1-0\nc3c4 b9c7 *\n".as_bytes());
/// let mut results = Results(Vec::new(), 0);
/// reader.read_all(&mut results)?;
/// assert_eq!(reader.mode(), Mode::Lines);
/// assert_eq!(results.0, [Some(GameResult::RedWins), None]);
/// assert_eq!(results.1, 5);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Decide from the first non-blank line: if it starts with `[`, `{` or `;` the input is PGN,
    /// otherwise it is a plain move list with one game per line.
    Auto,
    /// PGN: games are tag sections followed by movetext; movetext may span lines.
    Pgn,
    /// One game per non-blank line (movetext only, no tags).
    Lines,
}

/// Default for [`Reader::set_max_line_len`]: 1 MiB, far above any real line (a whole game on one
/// line is a few kilobytes) but small enough that binary junk without newlines cannot make the
/// reader swallow a whole file into memory.
pub const DEFAULT_MAX_LINE_LEN: usize = 1 << 20;

/// How many characters before bytes that are not UTF-8 the error quotes.
const INVALID_CONTEXT: usize = 24;

/// How much of a line over the length limit is kept (see [`LineState::TooLong`]).
const TOO_LONG_KEPT: usize = 256;

/// Whether the current line could be taken as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineState {
    Ok,
    /// `text` holds only the valid prefix; these are the first bytes from the first invalid one.
    InvalidUtf8 {
        tail: [u8; 4],
        tail_len: u8,
    },
    /// The line exceeded the length limit; `text` holds only [`TOO_LONG_KEPT`] bytes from its
    /// first non-blank character (cut to whole characters), enough to tell a tag line from
    /// movetext and to quote it. None of it is read as content.
    TooLong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first movetext item: tags and comments.
    Tags,
    Movetext,
    /// The result token was seen; comments and NAGs still belong to the game, anything else
    /// starts the next one.
    AfterResult,
}

/// Per-game parsing state.
struct Game {
    lines: bool,
    phase: Phase,
    tags_seen: bool,
    skip_game: bool,
    /// Variation nesting depth.
    depth: u64,
    /// Depth of the variation being skipped, 0 if none.
    skip_from: u64,
    outer_paren: Location,
}

impl Game {
    fn suppressed(&self) -> bool {
        self.skip_game || self.skip_from > 0
    }
}

/// How to find the next game after a syntax error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resync {
    /// Already at a game boundary (a tag line or the end of input).
    None,
    /// Skip according to where the error happened (see `docs/PGN.md`).
    Auto,
}

/// The outcome of one step; small and `Copy` because it is returned for every token (the error
/// itself waits in `Reader::error`).
#[derive(Clone, Copy)]
enum Step {
    Continue,
    End,
    Fail(Resync),
}

/// Builds a [`Location`] in the current line; a macro so that only the `cols` field is borrowed
/// mutably while `text` may be borrowed elsewhere.
macro_rules! loc {
    ($s:ident, $byte:expr) => {
        Location { game: $s.game_no, line: $s.line_no, column: $s.cols.column(&$s.text, $byte) }
    };
}

/// Streaming PGN reader; see the module documentation.
///
/// Counting games, moves and results of a small collection held in memory, and reporting a broken
/// game with its location (the reader carries on with the next game):
///
/// ```
/// use qiku::pgn::{ErrorKind, GameResult, Location, Reader, Skip, SyntaxError, Visitor};
///
/// #[derive(Default)]
/// struct Stats {
///     games: u64,
///     moves: u64,
///     results: Vec<Option<GameResult>>,
///     errors: Vec<SyntaxError>,
/// }
///
/// impl Visitor for Stats {
///     fn move_token(&mut self, _token: &str, _loc: Location) -> Skip {
///         self.moves += 1;
///         Skip::Continue
///     }
///     fn outcome(&mut self, result: Option<GameResult>, _loc: Location) {
///         self.results.push(result);
///     }
///     fn malformed(&mut self, error: &SyntaxError) {
///         self.errors.push(error.clone());
///     }
///     fn end_game(&mut self, _loc: Location) {
///         self.games += 1;
///     }
/// }
///
/// let text = "[Event \"one\"]\n\n1. h2e2 h9g7 2. h0g2 1-0\n\n\
///             [Event \"two\"]\n\n1. c3c4 {never closed\n\n\
///             [Event \"three\"]\n\n1. 炮二平五 馬８進７ (1... 炮８平５) 1/2-1/2\n";
/// let mut reader = Reader::new(text.as_bytes());
/// let mut stats = Stats::default();
/// assert_eq!(reader.read_all(&mut stats)?, 3);
/// assert_eq!(stats.games, 3);
/// assert_eq!(stats.moves, 3 + 1 + 2); // variations are skipped unless the visitor enters them
/// assert_eq!(stats.results, [Some(GameResult::RedWins), Some(GameResult::Draw)]);
/// let error = &stats.errors[0];
/// assert_eq!(error.kind, ErrorKind::UnterminatedComment);
/// assert_eq!(error.location, Location::new(2, 7, 9)); // game 2, line 7, column 9: the `{`
/// assert!(error.to_string().starts_with("game 2, line 7, column 9: unterminated comment"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Reader<R> {
    inner: R,
    /// The current line without its terminator: the whole line, or its valid UTF-8 prefix.
    text: String,
    line_state: LineState,
    /// Byte offset of the first non-whitespace character of `text`.
    first: usize,
    cur_blank: bool,
    prev_blank: bool,
    /// Next unread byte of `text`.
    pos: usize,
    loaded: bool,
    eof: bool,
    line_no: u64,
    cols: Columns,
    /// Where the current game's content ends: a byte offset in the current line, converted to
    /// `end_loc` lazily (when the line is left or the game ends) to save a column computation
    /// per token.
    end_mark: Option<usize>,
    end_loc: Location,
    /// The line contains U+FFFD (checked once per line rather than per token).
    line_has_fffd: bool,
    mode: Mode,
    game_no: u64,
    bytes_read: u64,
    max_line_len: usize,
    /// Tag values with escapes and multi-line comments are assembled here.
    scratch: String,
    /// The error of a `Step::Fail`.
    error: Option<SyntaxError>,
    /// The line of the last game's result token (PGN mode).
    result_line: u64,
    /// The last game ended at movetext on its result token's line: that text is an error, not a
    /// game of its own (`1. h2e2 h9g7 1-0 2. h0g2`).
    text_after_result: bool,
    /// A read failure, kept until the game being read (from the text before it) is delivered;
    /// the input counts as ended meanwhile.
    failure: Option<io::Error>,
    /// A game of this input had a result token (PGN mode): games here end with one.
    results_seen: bool,
    /// The last line read ended with a line feed (a file cut at a random byte rarely does).
    line_terminated: bool,
}

impl<R: BufRead> Reader<R> {
    /// A reader that detects the [`Mode`] from the input.
    ///
    /// ```
    /// use qiku::pgn::{Location, Reader, Skip, Visitor};
    ///
    /// struct Ignore; // reads every game, keeps nothing
    /// impl Visitor for Ignore {
    ///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
    ///     fn end_game(&mut self, _: Location) {}
    /// }
    /// let text = "[Event \"a\"]\n\n1. h2e2 h9g7 1-0\n";
    /// let mut reader = Reader::new(text.as_bytes());
    /// assert!(reader.read_game(&mut Ignore)?);
    /// assert_eq!((reader.games_read(), reader.line(), reader.bytes_read()), (1, 3, text.len() as u64));
    /// assert!(!reader.read_game(&mut Ignore)?); // the end of the input
    /// assert!(reader.into_inner().is_empty()); // all of it consumed
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(inner: R) -> Self {
        Self::with_mode(inner, Mode::Auto)
    }

    /// A reader with a fixed [`Mode`] (or `Mode::Auto`).
    ///
    /// ```
    /// use qiku::pgn::{Location, Mode, Reader, Skip, Visitor};
    ///
    /// struct Ignore;
    /// impl Visitor for Ignore {
    ///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
    ///     fn end_game(&mut self, _: Location) {}
    /// }
    /// // Moves without tags: a game per line, unless read as PGN, whose movetext spans lines.
    /// let text = "h2e2 h9g7\nc3c4 b9c7\n";
    /// assert_eq!(Reader::new(text.as_bytes()).read_all(&mut Ignore)?, 2);
    /// assert_eq!(Reader::with_mode(text.as_bytes(), Mode::Pgn).read_all(&mut Ignore)?, 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_mode(inner: R, mode: Mode) -> Self {
        Reader {
            inner,
            text: String::new(),
            line_state: LineState::Ok,
            first: 0,
            cur_blank: true,
            prev_blank: true,
            pos: 0,
            loaded: false,
            eof: false,
            line_no: 0,
            cols: Columns::default(),
            line_has_fffd: false,
            end_mark: None,
            end_loc: Location::default(),
            mode,
            game_no: 0,
            bytes_read: 0,
            max_line_len: DEFAULT_MAX_LINE_LEN,
            scratch: String::new(),
            error: None,
            result_line: 0,
            text_after_result: false,
            failure: None,
            results_seen: false,
            line_terminated: true,
        }
    }

    /// Lines (and multi-line comments) longer than this many bytes are reported as
    /// [`ErrorKind::LineTooLong`] ([`ErrorKind::CommentTooLong`]) and skipped.
    ///
    /// ```
    /// use qiku::pgn::{ErrorKind, Location, Reader, Skip, SyntaxError, Visitor};
    ///
    /// struct Errors(Vec<ErrorKind>);
    /// impl Visitor for Errors {
    ///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
    ///     fn malformed(&mut self, e: &SyntaxError) { self.0.push(e.kind); }
    ///     fn end_game(&mut self, _: Location) {}
    /// }
    /// let mut reader = Reader::new("h2e2 h9g7 h0g2 i9h9 1-0\nc3c4 *\n".as_bytes());
    /// reader.set_max_line_len(16);
    /// let mut errors = Errors(Vec::new());
    /// assert_eq!(reader.read_all(&mut errors)?, 2); // the long line is still a game, a broken one
    /// assert_eq!(errors.0, [ErrorKind::LineTooLong]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_max_line_len(&mut self, bytes: usize) {
        self.max_line_len = bytes.max(1);
    }

    /// The mode in use: the one given, or the detected one once the first game was started
    /// (`Mode::Auto` before that). Example at [`Mode`].
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Number of games started so far (including malformed ones). Example at [`Reader::new`].
    pub fn games_read(&self) -> u64 {
        self.game_no
    }

    /// Bytes consumed from the input so far (for progress bars and throughput figures). Example at
    /// [`Reader::new`].
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The 1-based number of the line most recently read (0 before the first). Example at
    /// [`Reader::new`].
    pub fn line(&self) -> u64 {
        self.line_no
    }

    /// The wrapped input. Example at [`Reader::new`].
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Reads one game, feeding it to `visitor`. Returns `Ok(false)` at the end of the input
    /// (nothing was visited). Syntax errors go to [`Visitor::malformed`]; only I/O errors are
    /// returned, after which the reader should not be used further.
    ///
    /// A read failure is returned after everything before it: the games whose text was read
    /// before it are delivered first (the game it interrupted as one the input ended in, so
    /// [`Visitor::cut_short`] if its result token was not reached), then the next call returns
    /// the error.
    ///
    /// ```
    /// use qiku::pgn::{Location, Reader, Skip, Visitor};
    ///
    /// /// Collects the tags of each game and skips its moves.
    /// struct Players(Vec<(String, String)>);
    /// impl Visitor for Players {
    ///     fn begin_game(&mut self, _loc: Location) {
    ///         self.0.push(Default::default());
    ///     }
    ///     fn tag(&mut self, name: &str, value: &str, _loc: Location) -> Skip {
    ///         if let Some(last) = self.0.last_mut() {
    ///             match name {
    ///                 "Red" => last.0 = value.to_string(),
    ///                 "Black" => last.1 = value.to_string(),
    ///                 _ => {}
    ///             }
    ///         }
    ///         Skip::Continue
    ///     }
    ///     fn begin_movetext(&mut self, _loc: Location) -> Skip {
    ///         Skip::SkipGame
    ///     }
    ///     fn move_token(&mut self, _token: &str, _loc: Location) -> Skip {
    ///         unreachable!("the movetext is skipped")
    ///     }
    ///     fn end_game(&mut self, _loc: Location) {}
    /// }
    ///
    /// let text = "[Red \"Lü Qin\"]\n[Black \"Xu Yinchuan\"]\n\n1. h2e2 *\n\n[Red \"Hu Ronghua\"]\n\n1. c3c4 *\n";
    /// let mut reader = Reader::new(text.as_bytes());
    /// let mut players = Players(Vec::new());
    /// while reader.read_game(&mut players)? {}
    /// assert_eq!(players.0[0], ("Lü Qin".to_string(), "Xu Yinchuan".to_string()));
    /// assert_eq!(players.0[1].0, "Hu Ronghua");
    /// assert_eq!(reader.games_read(), 2);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_game<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> io::Result<bool> {
        if !self.seek_game_start() {
            return match self.failure.take() {
                Some(e) => Err(e),
                None => Ok(false),
            };
        }
        let lines = match self.mode {
            Mode::Pgn => false,
            Mode::Lines => true,
            Mode::Auto => {
                let looks_pgn = matches!(self.text.as_bytes().get(self.pos), Some(b'[' | b'{' | b';') | None);
                self.mode = if looks_pgn { Mode::Pgn } else { Mode::Lines };
                !looks_pgn
            }
        };
        self.game_no += 1;
        let start = loc!(self, self.pos);
        visitor.begin_game(start);
        let mut g = Game {
            lines,
            phase: Phase::Tags,
            tags_seen: false,
            skip_game: false,
            depth: 0,
            skip_from: 0,
            outer_paren: start,
        };
        self.end_mark = None;
        self.end_loc = start;
        if lines {
            g.phase = Phase::Movetext;
            g.skip_game = visitor.begin_movetext(start) == Skip::SkipGame;
        }
        if std::mem::take(&mut self.text_after_result) {
            // Moves after the last game's result on its line: reported, and skipped to the next
            // game's tags, rather than read as a game without tags from the start position.
            if !lines {
                visitor.begin_movetext(start);
            }
            g.phase = Phase::Movetext;
            let snippet = snippet(self.text.get(self.pos..).unwrap_or(""));
            let err = SyntaxError { location: start, kind: ErrorKind::TextAfterResult, snippet };
            self.fail(visitor, &g, err, Resync::Auto);
            return Ok(true);
        }
        loop {
            match self.step(visitor, &mut g) {
                Step::Continue => {}
                Step::End => {
                    if g.depth > 0 {
                        let err = SyntaxError {
                            location: g.outer_paren,
                            kind: ErrorKind::UnclosedVariation,
                            snippet: String::new(),
                        };
                        self.fail(visitor, &g, err, Resync::None);
                    } else {
                        if g.phase == Phase::Tags && !g.skip_game {
                            let end = self.game_end();
                            visitor.begin_movetext(end);
                        }
                        let end = self.game_end();
                        // The input ended (or failed) in the movetext, before the result token:
                        // the file was cut in the middle of this game.
                        // (Only where the file shows games end with a result token, or where it
                        // ends mid-line or failed: files whose games have none are common.) A
                        // read that failed cut the game wherever it was, its tags included.
                        let cut = self.failure.is_some() || self.results_seen || !self.line_terminated;
                        let in_game = match g.phase {
                            Phase::Movetext => true,
                            Phase::Tags => self.failure.is_some(),
                            Phase::AfterResult => false,
                        };
                        if self.eof && cut && !g.lines && in_game && !g.skip_game {
                            visitor.cut_short(end);
                        }
                        visitor.end_game(end);
                    }
                    return Ok(true);
                }
                Step::Fail(resync) => {
                    let err = self.error.take().unwrap_or_else(unreachable_err);
                    self.fail(visitor, &g, err, resync);
                    return Ok(true);
                }
            }
        }
    }

    /// Reads all remaining games; returns how many were read.
    ///
    /// ```
    /// use qiku::pgn::{Location, Reader, Skip, Visitor};
    ///
    /// struct Ignore;
    /// impl Visitor for Ignore {
    ///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
    ///     fn end_game(&mut self, _: Location) {}
    /// }
    /// let mut reader = Reader::new("h2e2 h9g7 1-0\nc3c4 *\n\nb0c2 0-1\n".as_bytes());
    /// assert_eq!(reader.read_all(&mut Ignore)?, 3);
    /// assert_eq!(reader.read_all(&mut Ignore)?, 0); // nothing left
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_all<V: Visitor + ?Sized>(&mut self, visitor: &mut V) -> io::Result<u64> {
        let mut n = 0;
        while self.read_game(visitor)? {
            n += 1;
        }
        Ok(n)
    }

    /// Reports a broken game, skips to the next game and closes the broken one.
    fn fail<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &Game, err: SyntaxError, resync: Resync) {
        v.malformed(&err);
        if resync == Resync::Auto {
            if g.lines {
                self.skip_line();
            } else {
                // In the tag section the following lines may be more tags of the broken game:
                // only a tag line after a non-tag line (blank or movetext) starts a new game.
                // In movetext, the next tag line does.
                let mut seen_non_tag = g.phase != Phase::Tags || !self.is_tag_line();
                self.skip_line();
                while self.load_line() {
                    if self.is_tag_line() {
                        if seen_non_tag {
                            self.pos = self.first;
                            break;
                        }
                    } else {
                        seen_non_tag = true;
                    }
                    self.skip_line();
                }
            }
        }
        v.end_game(err.location);
    }

    /// Handles the next item of the game.
    fn step<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &mut Game) -> Step {
        if self.line_state == LineState::TooLong {
            return self.too_long(g);
        }
        let len = self.text.len();
        let after_result = g.phase == Phase::AfterResult && !g.lines;
        if self.pos >= len {
            if after_result && self.line_state != LineState::Ok {
                // Junk after a finished game is the next (broken) game, not this one's fault.
                return Step::End;
            }
            if let Some(err) = self.line_error() {
                return self.failure(err, Resync::Auto);
            }
            if g.lines || !self.load_line() {
                return Step::End;
            }
            self.begin_line();
            return Step::Continue;
        }
        let b = self.text.as_bytes();
        let i = skip_ws(b, self.pos);
        self.pos = i;
        if i >= len {
            return Step::Continue;
        }
        let c = b[i];
        if after_result && !matches!(c, b'{' | b';' | b'$') {
            // Whatever follows the result, other than comments and NAGs, starts the next game;
            // but movetext on the result's own line is an error of its own (read next).
            self.text_after_result = self.line_no == self.result_line && c != b'[';
            return Step::End;
        }
        match c {
            b'{' => self.brace_comment(v, g, i),
            b';' => {
                if self.line_state != LineState::Ok {
                    return self.line_failure();
                }
                if let Some(k) = find_nul(&b[i + 1..]) {
                    return self.error_at(i + 1 + k, ErrorKind::ControlCharacter(b[i + 1 + k]));
                }
                let at = loc!(self, i);
                if !g.suppressed() {
                    v.comment(&self.text[i + 1..], at);
                }
                self.pos = len;
                self.end_mark = Some(len);
                Step::Continue
            }
            b'(' => {
                if g.phase == Phase::AfterResult {
                    return self.after_result(g, i);
                }
                let at = loc!(self, i);
                self.ensure_movetext(v, g, at);
                self.pos = i + 1;
                self.end_mark = Some(i + 1);
                g.depth += 1;
                if g.depth == 1 {
                    g.outer_paren = at;
                }
                if !g.suppressed() {
                    match v.begin_variation(at) {
                        Skip::Continue => {}
                        Skip::SkipVariation => g.skip_from = g.depth,
                        Skip::SkipGame => g.skip_game = true,
                    }
                }
                Step::Continue
            }
            b')' => {
                if g.depth == 0 {
                    return self.error_at(i, ErrorKind::UnexpectedChar(')'));
                }
                self.pos = i + 1;
                self.end_mark = Some(i + 1);
                if g.skip_from == g.depth {
                    g.skip_from = 0;
                } else if !g.suppressed() {
                    v.end_variation();
                }
                g.depth -= 1;
                Step::Continue
            }
            b'$' => {
                let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                let nag = std::str::from_utf8(&b[i + 1..i + 1 + digits]).ok().and_then(|s| s.parse::<u16>().ok());
                let Some(nag) = nag else {
                    return self.error_at(i, ErrorKind::BadNag);
                };
                let at = loc!(self, i);
                if g.phase != Phase::AfterResult {
                    self.ensure_movetext(v, g, at);
                }
                if !g.suppressed() {
                    v.nag(nag, at);
                }
                self.pos = i + 1 + digits;
                self.end_mark = Some(self.pos);
                Step::Continue
            }
            b'[' if i == self.first => {
                if g.lines {
                    self.error_at(i, ErrorKind::UnexpectedChar('['))
                } else if g.phase == Phase::Tags && !(g.tags_seen && self.prev_blank) {
                    self.tag_line(v, g)
                } else {
                    // The next game's tag section (a tag section only continues across blank
                    // lines while no tag has been seen, so tag-only games stay separate).
                    Step::End
                }
            }
            b'[' | b']' | b'}' | b'"' => self.error_at(i, ErrorKind::UnexpectedChar(c as char)),
            c if is_control(c) => self.error_at(i, ErrorKind::ControlCharacter(c)),
            _ => self.token(v, g, i),
        }
    }

    /// A line over the length limit is the error of the game it belongs to: in PGN, a tag line
    /// that starts the next game (as any tag line would), or anything after a finished game's
    /// result, is the next game's; otherwise this game's.
    fn too_long(&mut self, g: &Game) -> Step {
        let starts_game = self.is_tag_line() && (g.phase != Phase::Tags || (g.tags_seen && self.prev_blank));
        if !g.lines && (g.phase == Phase::AfterResult || starts_game) {
            return Step::End;
        }
        self.line_failure()
    }

    fn ensure_movetext<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &mut Game, at: Location) {
        if g.phase == Phase::Tags {
            g.phase = Phase::Movetext;
            if !g.skip_game && v.begin_movetext(at) == Skip::SkipGame {
                g.skip_game = true;
            }
        }
    }

    /// A movetext item after the result: in PGN it starts the next game (left unread), in line
    /// mode it is an error.
    fn after_result(&mut self, g: &Game, i: usize) -> Step {
        if g.lines {
            self.error_at(i, ErrorKind::TextAfterResult)
        } else {
            Step::End
        }
    }

    /// A whitespace-delimited token: a result, a move number, a move, an annotation.
    fn token<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &mut Game, i: usize) -> Step {
        let b = self.text.as_bytes();
        let j = token_end(b, i);
        if j == b.len() && self.line_state != LineState::Ok {
            // The token runs into undecodable bytes: report those rather than half a token.
            return self.line_failure();
        }
        let kind = classify(&self.text[i..j]);
        if g.phase == Phase::AfterResult {
            return self.after_result(g, i);
        }
        let at = loc!(self, i);
        self.ensure_movetext(v, g, at);
        match kind {
            Token::Result(r) => {
                if g.depth > 0 {
                    return self.error_at(i, ErrorKind::ResultInVariation);
                }
                if !g.suppressed() {
                    v.outcome(r, at);
                }
                g.phase = Phase::AfterResult;
                self.result_line = self.line_no;
                self.results_seen |= !g.lines;
            }
            Token::Number(None) => {}
            Token::Number(Some(k)) => {
                let at = loc!(self, i + k);
                if let Err(step) = self.deliver_move(v, g, i + k, j, at) {
                    return step;
                }
            }
            Token::Move => {
                if let Err(step) = self.deliver_move(v, g, i, j, at) {
                    return step;
                }
            }
        }
        self.pos = j;
        self.end_mark = Some(j);
        Step::Continue
    }

    /// Delivers `text[a..j]` as a move, splitting off a `!`/`?` suffix as a NAG.
    fn deliver_move<V: Visitor + ?Sized>(
        &mut self,
        v: &mut V,
        g: &mut Game,
        a: usize,
        j: usize,
        at: Location,
    ) -> Result<(), Step> {
        let b = self.text.as_bytes();
        let mut stem_end = j;
        while stem_end > a && matches!(b[stem_end - 1], b'!' | b'?') {
            stem_end -= 1;
        }
        if stem_end > a {
            if self.line_has_fffd && self.text[a..stem_end].contains('\u{FFFD}') {
                return Err(self.error_at(a, ErrorKind::ReplacementCharacter));
            }
            if !g.suppressed() {
                match v.move_token(&self.text[a..stem_end], at) {
                    Skip::Continue => {}
                    Skip::SkipGame => g.skip_game = true,
                    Skip::SkipVariation => {
                        if g.depth > 0 {
                            g.skip_from = g.depth;
                        }
                    }
                }
            }
        }
        if stem_end < j {
            let nag = match &self.text[stem_end..j] {
                "!" => 1,
                "?" => 2,
                "!!" => 3,
                "??" => 4,
                "!?" => 5,
                "?!" => 6,
                _ => return Err(self.error_at(stem_end, ErrorKind::BadNag)),
            };
            if !g.suppressed() {
                let at = loc!(self, stem_end);
                v.nag(nag, at);
            }
        }
        Ok(())
    }

    /// A `{` comment, possibly spanning lines.
    fn brace_comment<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &mut Game, i: usize) -> Step {
        let start = loc!(self, i);
        let body = i + 1;
        if let Some(k) = self.text[body..].find('}') {
            let end = body + k;
            if let Some(c) = find_nul(&self.text.as_bytes()[body..end]) {
                let byte = self.text.as_bytes()[body + c];
                return self.error_at(body + c, ErrorKind::ControlCharacter(byte));
            }
            if !g.suppressed() {
                v.comment(&self.text[body..end], start);
            }
            self.pos = end + 1;
            self.end_mark = Some(end + 1);
            return Step::Continue;
        }
        let unterminated =
            |snippet: String| SyntaxError { location: start, kind: ErrorKind::UnterminatedComment, snippet };
        if g.lines {
            let s = snippet(&self.text[i..]);
            return self.failure(unterminated(s), Resync::Auto);
        }
        self.scratch.clear();
        let mut from = body;
        loop {
            if let Some(err) = self.line_error() {
                return self.failure(err, Resync::Auto);
            }
            let rest = &self.text.as_bytes()[from..];
            let close = rest.iter().position(|&c| c == b'}');
            let upto = close.map_or(self.text.len(), |k| from + k);
            if let Some(c) = find_nul(&self.text.as_bytes()[from..upto]) {
                let byte = self.text.as_bytes()[from + c];
                return self.error_at(from + c, ErrorKind::ControlCharacter(byte));
            }
            self.scratch.push_str(&self.text[from..upto]);
            if self.scratch.len() > self.max_line_len {
                return self.error_at(upto, ErrorKind::CommentTooLong);
            }
            if close.is_some() {
                if !g.suppressed() {
                    v.comment(&self.scratch, start);
                }
                self.pos = upto + 1;
                self.end_mark = Some(upto + 1);
                return Step::Continue;
            }
            if !self.load_line() {
                return self.failure(unterminated(String::new()), Resync::None);
            }
            if self.prev_blank && self.is_tag_line() {
                // Almost certainly the next game: stop here rather than swallow the file.
                self.pos = self.first;
                let s = snippet(&self.text);
                return self.failure(unterminated(s), Resync::None);
            }
            self.scratch.push('\n');
            from = 0;
        }
    }

    /// A line of tag pairs (usually one). Requires `text[pos] == '['` at the line start.
    fn tag_line<V: Visitor + ?Sized>(&mut self, v: &mut V, g: &mut Game) -> Step {
        if self.line_state != LineState::Ok {
            // Do not deliver tags cut off at undecodable bytes.
            return self.line_failure();
        }
        let len = self.text.len();
        let mut i = self.pos;
        loop {
            let b = self.text.as_bytes();
            i = skip_ws(b, i);
            if i >= len {
                break;
            }
            let start = i;
            if b[i] != b'[' {
                return self.error_at(i, ErrorKind::BadTag("text after the tag pair"));
            }
            i = skip_ws(b, i + 1);
            let name_start = i;
            while i < len && !matches!(b[i], b'"' | b']' | b'[') && ws_len(b, i) == 0 && !is_control(b[i]) {
                i += 1;
            }
            let name_end = i;
            if name_end == name_start {
                return self.error_at(start, ErrorKind::BadTag("missing tag name"));
            }
            i = skip_ws(b, i);
            if b.get(i) != Some(&b'"') {
                return self.error_at(start, ErrorKind::BadTag("expected '\"' after the tag name"));
            }
            i += 1;
            self.scratch.clear();
            let mut seg = i;
            let close = loop {
                let Some(&c) = b.get(i) else {
                    return self.error_at(start, ErrorKind::BadTag("unterminated tag value"));
                };
                match c {
                    b'\\' if matches!(b.get(i + 1), Some(b'"' | b'\\')) => {
                        self.scratch.push_str(&self.text[seg..i]);
                        self.scratch.push(b[i + 1] as char);
                        i += 2;
                        seg = i;
                    }
                    b'"' => {
                        // Real files contain unescaped quotes inside values
                        // (`[Event "1999年"中視股份杯"象棋..."]`): only a quote followed by `]`
                        // ends the value.
                        let k = skip_ws(b, i + 1);
                        if b.get(k) == Some(&b']') {
                            self.scratch.push_str(&self.text[seg..i]);
                            break k;
                        }
                        i += 1;
                    }
                    0 => return self.error_at(i, ErrorKind::ControlCharacter(0)),
                    _ => i += 1,
                }
            };
            g.tags_seen = true;
            if !g.skip_game {
                let at = loc!(self, start);
                if v.tag(&self.text[name_start..name_end], &self.scratch, at) == Skip::SkipGame {
                    g.skip_game = true;
                }
            }
            i = close + 1;
            self.end_mark = Some(i);
        }
        self.pos = len;
        Step::Continue
    }
}

/// Placeholder for `line_error()` returning `None` where the line state was just checked to be
/// bad; never actually produced.
fn unreachable_err() -> SyntaxError {
    SyntaxError { location: Location::default(), kind: ErrorKind::InvalidUtf8, snippet: String::new() }
}

// The line machinery: loading, skipping and checking lines, and the errors found in one.
mod lines;
