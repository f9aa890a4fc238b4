//! The callback interface between the streaming [`Reader`](super::Reader) and whatever consumes
//! games (a counter, a book compiler, a converter).
//!
//! The reader knows nothing about Xiangqi rules: it hands out move *tokens* as strings, exactly as
//! they appear in the movetext (minus move numbers and `!`/`?` suffixes). Parsing a token against a
//! board is the visitor's business. This keeps the text layer independent of the rules core and
//! lets a visitor stop a game early (for example after an illegal move) with [`Skip`].

pub use super::location::Location;
use std::fmt;

/// What a visitor wants the reader to do after a callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// Keep delivering.
    Continue,
    /// Deliver nothing more of this game until [`Visitor::end_game`] (which is still called).
    SkipGame,
    /// Skip the rest of the innermost open variation: its tokens, comments and NAGs are not
    /// delivered and [`Visitor::end_variation`] is not called for it. Returned from
    /// [`Visitor::begin_variation`] it skips the variation just opened. Outside any variation it
    /// has the same effect as `Continue`.
    SkipVariation,
}

/// The result of a game as written in the movetext (`1-0`, `0-1`, `1/2-1/2`). `*` (unknown or
/// unfinished) is reported as `None` by [`Visitor::outcome`].
///
/// ```
/// use qiku::pgn::GameResult;
///
/// assert_eq!(GameResult::Draw.as_str(), "1/2-1/2");
/// assert_eq!(GameResult::BlackWins.to_string(), "0-1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    RedWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
}

impl GameResult {
    /// The PGN spelling of the result.
    ///
    /// ```
    /// use qiku::pgn::GameResult;
    ///
    /// for result in [GameResult::RedWins, GameResult::BlackWins, GameResult::Draw] {
    ///     assert_eq!(GameResult::from_tag(result.as_str()), Ok(Some(result))); // read back as written
    /// }
    /// assert_eq!(GameResult::RedWins.as_str(), "1-0");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl GameResult {
    /// Reads the value of a `[Result]` tag: `1-0`, `0-1`, `1/2-1/2` (or `½-½`); `*`, `?` or
    /// nothing for an unknown result (`Ok(None)`); and the Chinese results Xiangqi sites and
    /// programs write, in simplified or traditional characters: `红胜` (red wins), `黑胜` (black
    /// wins), `和棋` or `和局` or `和` (draw), `红负` and `黑负` (red, black loses), each also with
    /// `先` after the side (`红先胜`: red, who moved first, wins). Anything else is an error that
    /// quotes the value.
    ///
    /// ```
    /// use qiku::pgn::GameResult;
    ///
    /// assert_eq!(GameResult::from_tag("1-0"), Ok(Some(GameResult::RedWins)));
    /// assert_eq!(GameResult::from_tag(" * "), Ok(None));
    /// assert_eq!(GameResult::from_tag("紅負"), Ok(Some(GameResult::BlackWins)));
    /// assert_eq!(GameResult::from_tag("和棋"), Ok(Some(GameResult::Draw)));
    /// let err = GameResult::from_tag("red won").unwrap_err();
    /// assert_eq!(err.to_string(), "Result tag \"red won\" is not 1-0, 0-1, 1/2-1/2, * or a Chinese result such as 红胜, 黑胜 or 和棋");
    /// ```
    pub fn from_tag(value: &str) -> Result<Option<GameResult>, BadResultTag> {
        let v = value.trim();
        match v {
            "1-0" => return Ok(Some(GameResult::RedWins)),
            "0-1" => return Ok(Some(GameResult::BlackWins)),
            "1/2-1/2" | "½-½" => return Ok(Some(GameResult::Draw)),
            "*" | "" | "?" => return Ok(None),
            "和" | "和棋" | "和局" => return Ok(Some(GameResult::Draw)),
            _ => {}
        }
        // A side, an optional 先 ("moved first"), then 胜 (wins), 负 (loses) or 和 (draws).
        let mut chars = v.chars();
        let red = match chars.next() {
            Some('红' | '紅') => true,
            Some('黑') => false,
            _ => return Err(BadResultTag(value.to_string())),
        };
        let rest = chars.as_str();
        let rest = rest.strip_prefix('先').unwrap_or(rest);
        match rest {
            "胜" | "勝" => Ok(Some(if red { GameResult::RedWins } else { GameResult::BlackWins })),
            "负" | "負" => Ok(Some(if red { GameResult::BlackWins } else { GameResult::RedWins })),
            "和" => Ok(Some(GameResult::Draw)),
            _ => Err(BadResultTag(value.to_string())),
        }
    }
}

/// A `[Result]` tag whose value is no result ([`GameResult::from_tag`]); holds the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadResultTag(pub String);

impl fmt::Display for BadResultTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A quote, not the whole of a hostile value.
        let quoted: String = self.0.chars().take(80).collect();
        let more = if quoted.len() < self.0.len() { "..." } else { "" };
        write!(
            f,
            "Result tag {:?} is not 1-0, 0-1, 1/2-1/2, * or a Chinese result such as 红胜, 黑胜 or 和棋",
            format!("{quoted}{more}")
        )
    }
}

impl std::error::Error for BadResultTag {}

/// Receives the pieces of each game in input order.
///
/// Call order for one game: `begin_game`, then `tag`s and `comment`s of the tag section, then
/// `begin_movetext` once, then any mix of `move_token`, `comment`, `nag`, `begin_variation` /
/// `end_variation` and at most one `outcome`, then `cut_short` if the input ended before the
/// result token, and finally `end_game`. Every `begin_game` is matched
/// by exactly one `end_game`. If the game is broken, `malformed` is called (once) before
/// `end_game`, and nothing else of that game is delivered after it; `begin_movetext` is not called
/// when the error happened in the tag section.
///
/// Only `move_token` and `end_game` must be implemented; everything else defaults to ignoring
/// the item (and to skipping variations).
pub trait Visitor {
    /// A new game starts at `loc` (its first tag, comment or movetext item).
    fn begin_game(&mut self, loc: Location) {
        let _ = loc;
    }

    /// A tag pair `[name "value"]`; `value` has its `\"` and `\\` escapes resolved.
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        let _ = (name, value, loc);
        Skip::Continue
    }

    /// The tag section is over. `loc` is the first movetext item, or the end of the game when it
    /// has no movetext.
    fn begin_movetext(&mut self, loc: Location) -> Skip {
        let _ = loc;
        Skip::Continue
    }

    /// A move in whatever notation the file uses: `h2e2`, `H2-E2`, `C2.5`, `炮二平五`, `馬８進７`.
    /// Move numbers and trailing `!`/`?` annotations have been removed (the latter arrive as
    /// [`nag`](Visitor::nag)).
    fn move_token(&mut self, token: &str, loc: Location) -> Skip;

    /// The text of a `{...}` comment (between the braces, untrimmed; lines joined with `\n`) or of
    /// a `;` comment (after the semicolon, to the end of the line).
    fn comment(&mut self, text: &str, loc: Location) {
        let _ = (text, loc);
    }

    /// A numeric annotation glyph `$n`, or `!` (1), `?` (2), `!!` (3), `??` (4), `!?` (5), `?!` (6).
    fn nag(&mut self, nag: u16, loc: Location) {
        let _ = (nag, loc);
    }

    /// A variation `(` opens. Variations are skipped unless this returns `Continue`.
    fn begin_variation(&mut self, loc: Location) -> Skip {
        let _ = loc;
        Skip::SkipVariation
    }

    /// An entered variation closed.
    fn end_variation(&mut self) {}

    /// The result token of the game; `None` for `*`.
    fn outcome(&mut self, result: Option<GameResult>, loc: Location) {
        let _ = (result, loc);
    }

    /// The input ended (at its end, or at a read failure) in this game's movetext, before its
    /// result token: the file was cut in the middle of the game (truncated, or damaged there),
    /// and its moves so far are only the start of it (the last one may be cut too). At the end of
    /// the input (rather than a read failure) only when the file shows it: an earlier game of it
    /// had a result token, or its last line has no line feed (files whose games have no result
    /// token at all are common, and end with a complete line). Called once,
    /// just before [`end_game`](Visitor::end_game), with the same `loc`; not in line mode, where
    /// a game needs no result token, nor for a game already reported [`malformed`](Visitor::malformed)
    /// or skipped with [`Skip::SkipGame`].
    ///
    /// ```
    /// use qiku::pgn::{Location, Reader, Skip, Visitor};
    ///
    /// #[derive(Default)]
    /// struct Games { complete: u64, cut: Vec<u64> }
    /// impl Visitor for Games {
    ///     fn move_token(&mut self, _: &str, _: Location) -> Skip { Skip::Continue }
    ///     fn cut_short(&mut self, loc: Location) { self.cut.push(loc.game); }
    ///     fn end_game(&mut self, _: Location) { self.complete += 1; }
    /// }
    ///
    /// let text = "[Event \"a\"]\n\n1. h2e2 h9g7 1-0\n\n[Event \"b\"]\n\n1. h2e2 h9g7 2. h0g2";
    /// let mut games = Games::default();
    /// Reader::new(text.as_bytes()).read_all(&mut games)?;
    /// assert_eq!((games.complete, games.cut), (2, vec![2]));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn cut_short(&mut self, loc: Location) {
        let _ = loc;
    }

    /// The game is over. `loc` is just after its last character of content.
    fn end_game(&mut self, loc: Location);

    /// The game is broken (see [`ErrorKind`](super::ErrorKind)). The reader delivers nothing more
    /// of it, calls `end_game`, and resumes with the next game.
    fn malformed(&mut self, error: &super::error::SyntaxError) {
        let _ = error;
    }
}
