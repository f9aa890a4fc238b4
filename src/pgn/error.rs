//! Syntax errors found while reading PGN text.
//!
//! A syntax error never stops the reader: it is handed to [`Visitor::malformed`](super::Visitor),
//! the broken game is closed and reading resumes at the next game. I/O failures are different and
//! come back as `std::io::Error` from [`Reader::read_game`](super::Reader::read_game).

use std::fmt;

use super::location::Location;

/// What kind of breakage was found.
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
/// let mut errors = Errors(Vec::new());
/// Reader::new("1. h2e2 ) h9g7 1-0\n\n1. h2e2 {never closed".as_bytes()).read_all(&mut errors)?;
/// assert_eq!(errors.0, [ErrorKind::UnexpectedChar(')'), ErrorKind::UnterminatedComment]);
/// assert_eq!(errors.0[0].to_string(), "unexpected character ')'");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A line starting with `[` is not a well-formed tag pair; the reason says what is wrong.
    BadTag(&'static str),
    /// A `{` comment is not closed before the end of the input (or, in line mode, the end of the
    /// line), or before what is clearly the next game's tag section (a tag line after a blank
    /// line). The location is the `{`.
    UnterminatedComment,
    /// A `(` variation is still open when the game ends. The location is the outermost open `(`.
    UnclosedVariation,
    /// A character that has no place in movetext: a stray `)`, `}`, `]`, a `[` that does not
    /// start a line, or a `"`.
    UnexpectedChar(char),
    /// A result token (`1-0`, `*`, ...) inside a variation.
    ResultInVariation,
    /// In line mode, something other than a comment or NAG after the result token.
    TextAfterResult,
    /// `$` without a number, a number above 65535, or an unknown `!`/`?` combination.
    BadNag,
    /// An ASCII control character (NUL, ESC, ...) other than tab, line feed, carriage return,
    /// vertical tab and form feed in movetext, or a NUL anywhere (including tag values and
    /// comments, where other control characters are tolerated); usually binary junk.
    ControlCharacter(u8),
    /// The bytes are not valid UTF-8 (the file is in another encoding, or damaged). The snippet
    /// is the text just before them, then the bad bytes written `\xe9`.
    InvalidUtf8,
    /// A move token contains U+FFFD, the replacement character the decoder substitutes for bytes
    /// that are invalid in the file's encoding: the encoding was probably guessed or set wrong.
    ReplacementCharacter,
    /// A line is longer than the reader's limit (see [`Reader::set_max_line_len`](super::Reader)).
    LineTooLong,
    /// A multi-line `{` comment grew past the reader's line-length limit without closing.
    CommentTooLong,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::BadTag(why) => write!(f, "malformed tag pair ({why})"),
            ErrorKind::UnterminatedComment => f.write_str("unterminated comment"),
            ErrorKind::UnclosedVariation => f.write_str("unclosed variation"),
            ErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            ErrorKind::ResultInVariation => f.write_str("result token inside a variation"),
            ErrorKind::TextAfterResult => f.write_str("text after the result token"),
            ErrorKind::BadNag => f.write_str("malformed annotation glyph"),
            ErrorKind::ControlCharacter(b) => write!(f, "control character 0x{b:02x}"),
            ErrorKind::InvalidUtf8 => f.write_str("bytes that are not UTF-8"),
            ErrorKind::ReplacementCharacter => {
                f.write_str("undecodable bytes (U+FFFD) in a move: wrong text encoding?")
            }
            ErrorKind::LineTooLong => f.write_str("line too long (over the reader's limit, 1 MiB by default)"),
            ErrorKind::CommentTooLong => {
                f.write_str("comment too long (over the reader's line limit, 1 MiB by default)")
            }
        }
    }
}

/// A syntax error with its place and a short excerpt of the offending text.
///
/// ```
/// use qiku::pgn::{ErrorKind, Location, Reader, Skip, SyntaxError, Visitor};
///
/// struct First(Option<SyntaxError>);
/// impl Visitor for First {
///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
///     fn malformed(&mut self, e: &SyntaxError) { self.0.get_or_insert_with(|| e.clone()); }
///     fn end_game(&mut self, _: Location) {}
/// }
/// let mut first = First(None);
/// Reader::new("[Event \"a\"]\n\n1. h2e2 ] h9g7 1-0\n".as_bytes()).read_all(&mut first)?;
/// let err = first.0.expect("the stray ] is reported");
/// assert_eq!((err.location.line, err.kind), (3, ErrorKind::UnexpectedChar(']')));
/// assert_eq!(err.to_string(), "game 1, line 3, column 9: unexpected character ']' near `] h9g7 1-0`");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where the error is.
    pub location: Location,
    /// What kind of error it is.
    pub kind: ErrorKind,
    /// Up to a few dozen characters of the text at the error (invalid bytes shown in hex).
    pub snippet: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.kind)?;
        if !self.snippet.is_empty() {
            write!(f, " near `{}`", self.snippet)?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntaxError {}

/// Longest excerpt kept in [`SyntaxError::snippet`], in characters.
pub(crate) const SNIPPET_CHARS: usize = 40;

/// The first [`SNIPPET_CHARS`] characters of `text`, with control characters escaped so that the
/// excerpt prints safely on a terminal.
pub(crate) fn snippet(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().take(SNIPPET_CHARS) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
