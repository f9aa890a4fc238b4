//! [`Location`]: where something was found in a game file. Its own module because both the
//! syntax errors and the visitor interface use it.

use std::fmt;

/// Where something was found in the (decoded, UTF-8) input.
///
/// `line` and `column` are 1-based; `column` counts Unicode characters, not bytes, so it matches
/// what an editor shows for Chinese text (a leading byte-order mark is not counted). `game` is the
/// 1-based number of the game within this input, counting every game the reader started,
/// including ones cut short by a syntax error.
///
/// ```
/// use qiku::pgn::Location;
///
/// let loc = Location::new(3, 41, 7);
/// assert_eq!(loc.to_string(), "game 3, line 41, column 7");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// 1-based game number in the file.
    pub game: u64,
    /// 1-based line.
    pub line: u64,
    /// 1-based column (in characters).
    pub column: u32,
}

impl Location {
    /// A location.
    ///
    /// ```
    /// use qiku::pgn::Location;
    ///
    /// const START: Location = Location::new(1, 1, 1); // usable in constants
    /// assert_eq!(START, Location { game: 1, line: 1, column: 1 });
    /// assert_eq!(Location::new(0, 0, 0), Location::default()); // no place yet
    /// ```
    pub const fn new(game: u64, line: u64, column: u32) -> Self {
        Location { game, line, column }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}, line {}, column {}", self.game, self.line, self.column)
    }
}
