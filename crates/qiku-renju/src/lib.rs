//! Renju: five-in-a-row on a 15x15 board under the RIF rules, where black (who moves first) may
//! not make an overline, a double four or a double three.
//!
//! Points are named as in renju literature: columns `a`..`o` from the left, rows `1`..`15` from
//! the bottom, `h8` the centre. This crate uses nothing of the Xiangqi library (`qiku`).
//!
//! - [`Board`]: the stones, move lists, five detection;
//! - [`forbid`]: black's forbidden moves (overline, double four, recursive double three);
//! - [`mod@line`]: the per-direction pattern tables both the judge and the valuation read;
//! - [`eval`]: the valuation of every empty point;
//! - [`vcf`]: the continuous-four (VCF) threat-space search;
//! - [`gomocup`]: a player speaking the Gomocup protocol.
//!
//! ```
//! use qiku_renju::{Board, Forbidden, Point};
//! // Black f8 g8 and h9 h10 (white far away): h8 would make two open threes at once.
//! let board = Board::from_moves("f8 a1 g8 a3 h9 a5 h10 a7").unwrap();
//! let h8: Point = "h8".parse().unwrap();
//! assert_eq!(board.forbidden(h8), Some(Forbidden::DoubleThree));
//! assert_eq!(board.forbidden_points(), vec![(h8, Forbidden::DoubleThree)]);
//! ```

pub mod eval;
pub mod forbid;
pub mod gomocup;
pub mod line;
pub mod vcf;

pub use forbid::Forbidden;

use std::fmt;
use std::str::FromStr;

/// Width and height of the board.
pub const SIZE: usize = 15;
/// Number of points.
pub const POINTS: usize = SIZE * SIZE;

/// Cells of the padded grid a [`Board`] keeps: five cells of wall around the board, so that a line
/// window of five cells either side of any point never leaves the array.
pub(crate) const PAD: usize = 5;
/// Width of the padded grid.
pub(crate) const STRIDE: usize = SIZE + 2 * PAD;
/// Cells in the padded grid.
pub(crate) const GRID: usize = STRIDE * STRIDE;

/// Cell values in the padded grid.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// The four line directions as steps in the padded grid: along a row, along a column, and the two
/// diagonals.
pub(crate) const DIRECTIONS: [isize; 4] = [1, STRIDE as isize, STRIDE as isize + 1, STRIDE as isize - 1];

/// Names of the four directions, in the order of the board's four line directions (used in valuations).
pub const DIRECTION_NAMES: [&str; 4] = ["horizontal", "vertical", "diagonal", "anti-diagonal"];

/// A point of the board: column `a`..`o` (0..15 from the left) and row `1`..`15` (0..15 from the
/// bottom), stored as `row * 15 + column`.
///
/// ```
/// use qiku_renju::{Point, PointError};
///
/// let h8: Point = "h8".parse()?;
/// assert_eq!(h8, Point::CENTRE);
/// assert_eq!((h8.col(), h8.row(), h8.index()), (7, 7, 7 * 15 + 7));
/// assert_eq!(Point::new(0, 14).map(|p| p.to_string()).as_deref(), Some("a15"));
/// assert_eq!("H8".parse::<Point>()?, h8); // either case
/// assert!(matches!("p1".parse::<Point>(), Err(PointError::OffBoard(_))));
/// assert!(matches!("8h".parse::<Point>(), Err(PointError::Syntax(_))));
/// assert_eq!(Point::all().count(), 225);
/// # Ok::<(), PointError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Point(u8);

impl Point {
    /// The centre, `h8`.
    pub const CENTRE: Point = Point(7 * 15 + 7);

    /// The point at column `col` and row `row` (both 0-based, row 0 at the bottom), if on the board.
    ///
    /// ```
    /// use qiku_renju::Point;
    /// assert_eq!(Point::new(7, 7), Some(Point::CENTRE));
    /// assert_eq!(Point::new(2, 0).map(|p| p.to_string()).as_deref(), Some("c1"));
    /// assert_eq!(Point::new(15, 0), None);
    /// ```
    pub fn new(col: usize, row: usize) -> Option<Point> {
        (col < SIZE && row < SIZE).then(|| Point((row * SIZE + col) as u8))
    }

    /// The point with this index (`row * 15 + column`), if on the board.
    ///
    /// ```
    /// use qiku_renju::Point;
    /// assert_eq!(Point::from_index(16).map(|p| p.to_string()).as_deref(), Some("b2"));
    /// assert_eq!(Point::from_index(225), None);
    /// ```
    pub fn from_index(index: usize) -> Option<Point> {
        (index < POINTS).then_some(Point(index as u8))
    }

    /// Every point, `a1`, `b1`, ... `o15`.
    ///
    /// ```
    /// use qiku_renju::Point;
    /// let names: Vec<String> = Point::all().map(|p| p.to_string()).collect();
    /// assert_eq!((names[0].as_str(), names[1].as_str(), names[15].as_str()), ("a1", "b1", "a2"));
    /// assert_eq!(names.last().map(String::as_str), Some("o15"));
    /// ```
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    /// Index `row * 15 + column`.
    ///
    /// ```
    /// use qiku_renju::Point;
    /// assert_eq!("a1".parse::<Point>()?.index(), 0);
    /// assert_eq!("b3".parse::<Point>()?.index(), 2 * 15 + 1);
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (`a`) to 14 (`o`).
    ///
    /// ```
    /// use qiku_renju::Point;
    /// assert_eq!("c12".parse::<Point>()?.col(), 2);
    /// assert_eq!("o1".parse::<Point>()?.col(), 14);
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn col(self) -> usize {
        self.index() % SIZE
    }

    /// Row, 0 (row `1`, the bottom) to 14 (row `15`).
    ///
    /// ```
    /// use qiku_renju::Point;
    /// assert_eq!("c12".parse::<Point>()?.row(), 11);
    /// assert_eq!("o1".parse::<Point>()?.row(), 0);
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn row(self) -> usize {
        self.index() / SIZE
    }

    /// Cell of this point in the padded grid.
    pub(crate) fn cell(self) -> usize {
        (self.row() + PAD) * STRIDE + self.col() + PAD
    }

    /// The point of a padded-grid cell, if it is on the board.
    pub(crate) fn from_cell(cell: usize) -> Option<Point> {
        let (r, c) = (cell / STRIDE, cell % STRIDE);
        if (PAD..PAD + SIZE).contains(&r) && (PAD..PAD + SIZE).contains(&c) {
            Point::new(c - PAD, r - PAD)
        } else {
            None
        }
    }

    /// The key by which points sort in outputs: column first, then row (`a1` < `a2` < `a10` < `b1`).
    ///
    /// ```
    /// use qiku_renju::Point;
    /// let (a2, b1): (Point, Point) = ("a2".parse()?, "b1".parse()?);
    /// assert!(a2.sort_key() < b1.sort_key());
    /// assert!(b1 < a2); // points themselves compare by index: row first
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn sort_key(self) -> (usize, usize) {
        (self.col(), self.row())
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col() as u8) as char, self.row() + 1)
    }
}

/// Why a token is not a point. Each variant holds the token; its message quotes at most the
/// token's first 80 characters.
///
/// ```
/// use qiku_renju::{Point, PointError};
/// let err = "p1".parse::<Point>().unwrap_err();
/// assert_eq!(err, PointError::OffBoard("p1".into()));
/// assert_eq!(err.to_string(), r#""p1" is off the board (columns a-o, rows 1-15)"#);
/// let long = "x".repeat(100);
/// let message = long.parse::<Point>().unwrap_err().to_string();
/// assert!(message.starts_with(&format!("\"{}...\" is not a point", &long[..80])));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointError {
    /// The token is not a letter followed by a number.
    Syntax(String),
    /// A letter and number, but outside `a`..`o`, `1`..`15`.
    OffBoard(String),
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PointError::Syntax(t) => {
                write!(f, "{:?} is not a point (expected a column a-o and a row 1-15, like h8)", gomocup::excerpt(t))
            }
            PointError::OffBoard(t) => write!(f, "{:?} is off the board (columns a-o, rows 1-15)", gomocup::excerpt(t)),
        }
    }
}

impl std::error::Error for PointError {}

impl FromStr for Point {
    type Err = PointError;
    fn from_str(s: &str) -> Result<Point, PointError> {
        let syntax = || PointError::Syntax(s.to_string());
        let mut chars = s.chars();
        let letter = chars.next().ok_or_else(syntax)?.to_ascii_lowercase();
        let digits = chars.as_str();
        if !letter.is_ascii_lowercase() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let row: usize = digits.parse().map_err(|_| PointError::OffBoard(s.to_string()))?;
        let col = (letter as u8 - b'a') as usize;
        if row == 0 {
            return Err(PointError::OffBoard(s.to_string()));
        }
        Point::new(col, row - 1).ok_or_else(|| PointError::OffBoard(s.to_string()))
    }
}

/// A stone color. Black moves first.
///
/// ```
/// use qiku_renju::{Board, Stone};
/// assert_eq!(Board::new().to_move(), Stone::Black);
/// assert_eq!(Board::from_moves("h8")?.to_move(), Stone::White);
/// # Ok::<(), qiku_renju::RenjuError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Stone {
    /// The first player, bound by the forbidden-move rules.
    Black,
    /// The second player, who has no forbidden moves and also wins with an overline.
    White,
}

impl Stone {
    /// The other color.
    ///
    /// ```
    /// use qiku_renju::Stone;
    /// assert_eq!(Stone::Black.other(), Stone::White);
    /// assert_eq!(Stone::White.other(), Stone::Black);
    /// ```
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// `x` for black, `o` for white, as in board diagrams.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// assert_eq!((Stone::Black.symbol(), Stone::White.symbol()), ('x', 'o'));
    /// assert_eq!(Board::from_moves("a15 b15")?.diagram().lines().next(), Some("xo............."));
    /// # Ok::<(), qiku_renju::RenjuError>(())
    /// ```
    pub fn symbol(self) -> char {
        match self {
            Stone::Black => 'x',
            Stone::White => 'o',
        }
    }

    /// `black` or `white`.
    ///
    /// ```
    /// use qiku_renju::Stone;
    /// assert_eq!(Stone::Black.name(), "black");
    /// assert_eq!(Stone::White.name(), "white");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Stone::Black => "black",
            Stone::White => "white",
        }
    }

    pub(crate) fn cell(self) -> u8 {
        match self {
            Stone::Black => BLACK,
            Stone::White => WHITE,
        }
    }
}

/// Why a move list or a board diagram was rejected: the offending token and its place where
/// there is one, else the counts that are wrong.
///
/// ```
/// use qiku_renju::{Board, RenjuError};
/// use std::error::Error;
/// let err = Board::from_moves("h8 z9").unwrap_err();
/// assert_eq!(err.to_string(), r#"move 2: "z9" is off the board (columns a-o, rows 1-15)"#);
/// assert!(err.source().is_some()); // the point error
/// let err = Board::from_diagram(".......").unwrap_err();
/// assert_eq!(err, RenjuError::BadDiagram { line: 1, message: r#"7 cells, expected 15 (".......")"#.into() });
/// assert!(RenjuError::ShortDiagram { rows: 1 }.to_string().starts_with("the diagram has 1 row, expected 15"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenjuError {
    /// A token that is not a point; `index` is its 1-based position in the move list.
    BadToken {
        /// 1-based position of the token in the list.
        index: usize,
        /// Why it is not a point.
        error: PointError,
    },
    /// A point that is already occupied.
    Occupied {
        /// 1-based position of the move in the list.
        index: usize,
        /// The point.
        point: Point,
    },
    /// A board diagram that is not 15 lines of 15 `.`, `x` or `o`.
    BadDiagram {
        /// 1-based line of the diagram.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A board diagram with fewer than 15 rows (blank and comment lines not counted).
    ShortDiagram {
        /// The rows it has.
        rows: usize,
    },
    /// A board diagram no game reaches: black moves first, so black has as many stones as
    /// white or one more.
    StoneCounts {
        /// Black stones in the diagram.
        black: usize,
        /// White stones in the diagram.
        white: usize,
    },
}

impl fmt::Display for RenjuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenjuError::BadToken { index, error } => write!(f, "move {index}: {error}"),
            RenjuError::Occupied { index, point } => write!(f, "move {index}: {point} is already occupied"),
            RenjuError::BadDiagram { line, message } => write!(f, "board line {line}: {message}"),
            RenjuError::ShortDiagram { rows } => write!(
                f,
                "the diagram has {}, expected 15 (a line of 15 '.', 'x' or 'o' per row, top row first)",
                match rows {
                    0 => "no rows".to_string(),
                    1 => "1 row".to_string(),
                    n => format!("{n} rows"),
                }
            ),
            RenjuError::StoneCounts { black, white } => write!(
                f,
                "the diagram has {black} black and {white} white stones: black moves first, so black must \
                 have as many stones as white or one more"
            ),
        }
    }
}

impl std::error::Error for RenjuError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RenjuError::BadToken { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// `text` without a byte-order mark at its start.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses a space-separated move list (`"h8 h9 i9"`); commas also separate. A byte-order mark
/// at the start is skipped.
///
/// ```
/// use qiku_renju::{parse_moves, RenjuError};
/// let moves = parse_moves("\u{feff}h8, h9 i9")?;
/// assert_eq!(moves, ["h8".parse()?, "h9".parse()?, "i9".parse()?]);
/// assert!(matches!(parse_moves("h8 h9 8h"), Err(RenjuError::BadToken { index: 3, .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_moves(text: &str) -> Result<Vec<Point>, RenjuError> {
    without_bom(text)
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, t)| t.parse().map_err(|error| RenjuError::BadToken { index: i + 1, error }))
        .collect()
}

/// The lines of a text, whichever line ending its editor wrote: `\n`, `\r\n` or a lone `\r` (old
/// Mac OS). As [`str::lines`], a final line break ends the last line rather than starting an
/// empty one; unlike it, a lone `\r` ends a line too. A byte-order mark at the start (what
/// editors saving "UTF-8 with BOM" write) is no part of the first line.
///
/// ```
/// let lines: Vec<&str> = qiku_renju::text_lines("\u{feff}a\r\nb\rc\nd\n").collect();
/// assert_eq!(lines, ["a", "b", "c", "d"]);
/// ```
pub fn text_lines(text: &str) -> impl Iterator<Item = &str> {
    let text = without_bom(text);
    let mut rest = Some(text).filter(|t| !t.is_empty());
    std::iter::from_fn(move || {
        let t = rest?;
        let Some(end) = t.find(['\r', '\n']) else {
            rest = None;
            return Some(t);
        };
        let next = if t[end..].starts_with("\r\n") { end + 2 } else { end + 1 };
        rest = Some(&t[next..]).filter(|r| !r.is_empty());
        Some(&t[..end])
    })
}

/// Parses a game file's text, as `qiku renju judge` reads it: moves separated by spaces, commas
/// or line breaks (any of `\n`, `\r\n`, `\r`), black first; `#` starts a comment that runs to
/// the end of its line. Errors number the moves as [`parse_moves`] does.
///
/// ```
/// use qiku_renju::parse_game;
///
/// let moves = parse_game("# a double three\rf8 a1 g8 a3 # the threes\rh9 a5 h10 a7\r")?;
/// assert_eq!(moves.len(), 8);
/// assert_eq!(moves[7].to_string(), "a7");
/// # Ok::<(), qiku_renju::RenjuError>(())
/// ```
pub fn parse_game(text: &str) -> Result<Vec<Point>, RenjuError> {
    let body: Vec<&str> = text_lines(text).map(|line| line.split_once('#').map_or(line, |(moves, _)| moves)).collect();
    parse_moves(&body.join(" "))
}

/// A position: the stones on a padded grid, and the moves that led to it (when known).
///
/// ```
/// use qiku_renju::{Board, RenjuError, Stone};
///
/// let mut board = Board::from_moves("h8 h9 i9 g7")?;
/// assert_eq!(board.to_move(), Stone::Black);
/// assert_eq!(board.stone("h9".parse()?), Some(Stone::White));
/// assert_eq!(board.stone_count(), 4);
/// board.play("j10".parse()?).map_err(|p| format!("{p} is occupied"))?;
/// assert_eq!(board.undo().map(|p| p.to_string()).as_deref(), Some("j10"));
/// // A diagram round trip.
/// assert_eq!(Board::from_diagram(&board.diagram())?.diagram(), board.diagram());
/// // Errors name the move and the token.
/// let err = Board::from_moves("h8 h9 q3").unwrap_err();
/// assert!(matches!(err, RenjuError::BadToken { index: 3, .. }));
/// assert_eq!(Board::from_moves("h8 h9 h8").unwrap_err().to_string(), "move 3: h8 is already occupied");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    pub(crate) cells: [u8; GRID],
    moves: Vec<Point>,
    black: usize,
    white: usize,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagram())
    }
}

impl Board {
    /// The empty board.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// let board = Board::new();
    /// assert_eq!((board.stone_count(), board.to_move()), (0, Stone::Black));
    /// assert_eq!(board.empty_points().count(), 225);
    /// ```
    pub fn new() -> Board {
        let mut cells = [WALL; GRID];
        for p in Point::all() {
            cells[p.cell()] = EMPTY;
        }
        Board { cells, moves: Vec::new(), black: 0, white: 0 }
    }

    /// The board after a space-separated move list, black first. Errors name the bad token.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// let board = Board::from_moves("h8 h9 i9")?;
    /// assert_eq!(board.stone("i9".parse()?), Some(Stone::Black));
    /// assert_eq!(board.moves().len(), 3);
    /// let err = Board::from_moves("h8 h9 q3").unwrap_err();
    /// assert_eq!(err.to_string(), r#"move 3: "q3" is off the board (columns a-o, rows 1-15)"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_moves(text: &str) -> Result<Board, RenjuError> {
        let mut board = Board::new();
        for (i, p) in parse_moves(text)?.into_iter().enumerate() {
            board.play(p).map_err(|_| RenjuError::Occupied { index: i + 1, point: p })?;
        }
        Ok(board)
    }

    /// Parses a diagram: 15 lines of 15 cells, `.` empty, `x` black, `o` white, top row (15)
    /// first. Spaces between cells are ignored, so are blank lines and lines starting with `#`;
    /// lines may end in `\n`, `\r\n` or `\r` (see [`text_lines`]).
    ///
    /// The stone counts must be those of a game: black, who moves first, has as many stones as
    /// white or one more ([`RenjuError::StoneCounts`] otherwise). [`Board::put`] sets up any
    /// position.
    ///
    /// ```
    /// use qiku_renju::{Board, RenjuError};
    ///
    /// let rows = |middle: &str| {
    ///     let empty = ".".repeat(15);
    ///     let mut lines = vec![empty.as_str(); 15];
    ///     lines[7] = middle;
    ///     lines.join("\n")
    /// };
    /// assert_eq!(Board::from_diagram(&rows(".......xo......"))?.stone_count(), 2);
    /// let e = Board::from_diagram(&rows(".......xx......")).unwrap_err();
    /// assert_eq!(e, RenjuError::StoneCounts { black: 2, white: 0 });
    /// # Ok::<(), RenjuError>(())
    /// ```
    pub fn from_diagram(text: &str) -> Result<Board, RenjuError> {
        let mut board = Board::new();
        let mut row = SIZE;
        for (n, line) in text_lines(text).enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let bad = |message: String| RenjuError::BadDiagram { line: n + 1, message };
            if row == 0 {
                return Err(bad("more than 15 rows".into()));
            }
            row -= 1;
            let cells: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
            if cells.len() != SIZE {
                return Err(bad(format!("{} cells, expected 15 ({:?})", cells.len(), gomocup::excerpt(t))));
            }
            for (col, c) in cells.into_iter().enumerate() {
                let p = Point::new(col, row).ok_or_else(|| bad("internal: point off board".into()))?;
                match c {
                    '.' | '+' | '-' => {}
                    'x' | 'X' | '*' => board.put(p, Stone::Black),
                    'o' | 'O' => board.put(p, Stone::White),
                    other => return Err(bad(format!("unknown cell {other:?} (expected '.', 'x' or 'o')"))),
                }
            }
        }
        if row != 0 {
            return Err(RenjuError::ShortDiagram { rows: SIZE - row });
        }
        if !(board.white..=board.white + 1).contains(&board.black) {
            return Err(RenjuError::StoneCounts { black: board.black, white: board.white });
        }
        Ok(board)
    }

    /// The diagram [`Board::from_diagram`] reads: top row first, one line per row.
    ///
    /// ```
    /// use qiku_renju::Board;
    /// let diagram = Board::from_moves("h8 i9")?.diagram();
    /// let rows: Vec<&str> = diagram.lines().collect();
    /// assert_eq!(rows.len(), 15);
    /// assert_eq!((rows[6], rows[7]), ("........o......", ".......x......."));
    /// # Ok::<(), qiku_renju::RenjuError>(())
    /// ```
    pub fn diagram(&self) -> String {
        let mut s = String::with_capacity(SIZE * (SIZE + 1));
        for row in (0..SIZE).rev() {
            for col in 0..SIZE {
                let p = Point::new(col, row).unwrap_or(Point::CENTRE);
                s.push(self.stone(p).map_or('.', Stone::symbol));
            }
            s.push('\n');
        }
        s
    }

    /// The stone on a point.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// let board = Board::from_moves("h8 h9")?;
    /// assert_eq!(board.stone("h9".parse()?), Some(Stone::White));
    /// assert_eq!(board.stone("h10".parse()?), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stone(&self, p: Point) -> Option<Stone> {
        match self.cells[p.cell()] {
            BLACK => Some(Stone::Black),
            WHITE => Some(Stone::White),
            _ => None,
        }
    }

    /// Is the point empty?
    ///
    /// ```
    /// use qiku_renju::Board;
    /// let board = Board::from_moves("h8")?;
    /// assert!(!board.is_empty("h8".parse()?));
    /// assert!(board.is_empty("h9".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_empty(&self, p: Point) -> bool {
        self.cells[p.cell()] == EMPTY
    }

    /// The side to move: black when both have as many stones, else white.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// let mut board = Board::from_moves("h8 h9 i9")?;
    /// assert_eq!(board.to_move(), Stone::White);
    /// board.put("a1".parse()?, Stone::White);
    /// assert_eq!(board.to_move(), Stone::Black); // from the counts, set-up stones too
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_move(&self) -> Stone {
        if self.black <= self.white {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// Number of stones on the board.
    ///
    /// ```
    /// use qiku_renju::Board;
    /// assert_eq!(Board::new().stone_count(), 0);
    /// assert_eq!(Board::from_moves("h8 h9 i9")?.stone_count(), 3);
    /// # Ok::<(), qiku_renju::RenjuError>(())
    /// ```
    pub fn stone_count(&self) -> usize {
        self.black + self.white
    }

    /// The moves played through [`Board::play`] since the board was empty or set up.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// let mut board = Board::from_moves("h8 h9")?;
    /// board.put("a1".parse()?, Stone::Black); // set-up: not a move
    /// assert_eq!(board.moves(), ["h8".parse()?, "h9".parse()?]);
    /// assert_eq!(board.stone_count(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn moves(&self) -> &[Point] {
        &self.moves
    }

    /// Empty points, in index order.
    ///
    /// ```
    /// use qiku_renju::Board;
    /// let board = Board::from_moves("a1 b1")?;
    /// let first: Vec<String> = board.empty_points().take(2).map(|p| p.to_string()).collect();
    /// assert_eq!(first, ["c1", "d1"]);
    /// assert_eq!(board.empty_points().count(), 223);
    /// # Ok::<(), qiku_renju::RenjuError>(())
    /// ```
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        Point::all().filter(|&p| self.is_empty(p))
    }

    /// Puts a stone for the side to move on an empty point and records the move. Forbidden moves
    /// are not checked here (see [`Board::forbidden`]); an occupied point is an error.
    ///
    /// ```
    /// use qiku_renju::{Board, Point, Stone};
    /// let mut board = Board::new();
    /// let h8: Point = "h8".parse()?;
    /// assert_eq!(board.play(h8), Ok(()));
    /// assert_eq!(board.play(h8), Err(h8)); // occupied: nothing changes
    /// assert_eq!((board.stone(h8), board.stone_count()), (Some(Stone::Black), 1));
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn play(&mut self, p: Point) -> Result<(), Point> {
        if !self.is_empty(p) {
            return Err(p);
        }
        let side = self.to_move();
        self.put(p, side);
        self.moves.push(p);
        Ok(())
    }

    /// Takes back the last move played with [`Board::play`].
    ///
    /// ```
    /// use qiku_renju::Board;
    /// let mut board = Board::from_moves("h8 h9")?;
    /// assert_eq!(board.undo(), Some("h9".parse()?));
    /// assert_eq!(board, Board::from_moves("h8")?);
    /// assert_eq!(Board::new().undo(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn undo(&mut self) -> Option<Point> {
        let p = self.moves.pop()?;
        self.remove(p);
        Some(p)
    }

    /// Puts a stone of the given color (set-up; no move is recorded). Replaces what was there.
    /// The stone counts are not checked, unlike [`Board::from_diagram`]'s: any position can be
    /// set up (the judge is compared with its reference on such positions), and the side to move
    /// follows from the counts ([`Board::to_move`]).
    ///
    /// ```
    /// use qiku_renju::{Board, Point, Stone};
    /// let mut board = Board::from_moves("h8")?;
    /// let h8: Point = "h8".parse()?;
    /// board.put(h8, Stone::White); // replaces the black stone
    /// assert_eq!((board.stone(h8), board.stone_count(), board.to_move()), (Some(Stone::White), 1, Stone::Black));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put(&mut self, p: Point, stone: Stone) {
        self.remove(p);
        self.cells[p.cell()] = stone.cell();
        match stone {
            Stone::Black => self.black += 1,
            Stone::White => self.white += 1,
        }
    }

    /// Removes the stone on a point, if any (set-up).
    ///
    /// ```
    /// use qiku_renju::{Board, Point, Stone};
    /// let mut board = Board::from_moves("h8 h9")?;
    /// let h9: Point = "h9".parse()?;
    /// board.remove(h9);
    /// board.remove(h9); // already empty: nothing to do
    /// assert_eq!((board.stone(h9), board.stone_count(), board.to_move()), (None, 1, Stone::White));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn remove(&mut self, p: Point) {
        match self.stone(p) {
            Some(Stone::Black) => self.black -= 1,
            Some(Stone::White) => self.white -= 1,
            None => {}
        }
        self.cells[p.cell()] = EMPTY;
    }

    /// The run of `stone` through `p` along direction step `d` (both ways), counting `p` as that
    /// color. The board's border cells stop every run.
    fn run_along(&self, p: Point, stone: Stone, d: isize) -> usize {
        let (c, s) = (p.cell() as isize, stone.cell());
        let mut n = 1;
        for sign in [-1isize, 1] {
            let mut k = c + sign * d;
            while self.cells[k as usize] == s {
                n += 1;
                k += sign * d;
            }
        }
        n
    }

    /// The longest run of `stone` through `p` in any direction, counting `p` as that color.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// // Black h8 i8 j8; white h9 i9.
    /// let board = Board::from_moves("h8 h9 i8 i9 j8")?;
    /// assert_eq!(board.run_through("k8".parse()?, Stone::Black), 4);
    /// assert_eq!(board.run_through("j9".parse()?, Stone::White), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_through(&self, p: Point, stone: Stone) -> usize {
        DIRECTIONS.iter().map(|&d| self.run_along(p, stone, d)).max().unwrap_or(1)
    }

    /// Would a stone of this color on `p` win? Black needs an exact five in some direction (an
    /// exact five wins even if another direction is an overline); white wins with five or more.
    ///
    /// ```
    /// use qiku_renju::{Board, Stone};
    /// // Stones on d8 e8 f8 h8 i8: g8 would make six in a row.
    /// let black = Board::from_moves("d8 a1 e8 a3 f8 a5 h8 a7 i8")?;
    /// assert!(!black.makes_five("g8".parse()?, Stone::Black));
    /// let white = Board::from_moves("a1 d8 a3 e8 a5 f8 a7 h8 a9 i8")?;
    /// assert!(white.makes_five("g8".parse()?, Stone::White));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn makes_five(&self, p: Point, stone: Stone) -> bool {
        DIRECTIONS.iter().any(|&d| {
            let n = self.run_along(p, stone, d);
            match stone {
                Stone::Black => n == 5,
                Stone::White => n >= 5,
            }
        })
    }

    /// How the side to move playing the empty point `p` as move number `ply` ends the game: a
    /// five for either side, or a forbidden point for black; `None` when the game goes on. The
    /// one test [`judge`] and the command line apply to every move.
    ///
    /// ```
    /// use qiku_renju::{Board, Outcome, Point};
    ///
    /// let mut board = Board::new();
    /// for m in ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4"] {
    ///     board.play(m.parse::<Point>()?).unwrap();
    /// }
    /// let l8: Point = "l8".parse()?;
    /// assert!(matches!(board.move_ends_game(l8, 9), Some(Outcome::Five { ply: 9, .. })));
    /// assert!(board.move_ends_game("m12".parse()?, 9).is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn move_ends_game(&self, p: Point, ply: usize) -> Option<Outcome> {
        let side = self.to_move();
        if self.makes_five(p, side) {
            Some(Outcome::Five { ply, point: p, winner: side })
        } else if side == Stone::Black {
            self.forbidden(p).map(|kind| Outcome::Forbidden { ply, point: p, kind })
        } else {
            None
        }
    }

    /// Is black forbidden to play on `p`, and why? `None` for occupied points and allowed moves
    /// (including every move that makes an exact five).
    ///
    /// ```
    /// use qiku_renju::{Board, Forbidden, Point, Stone};
    ///
    /// let board_with = |black: &[&str], white: &[&str]| -> Result<Board, qiku_renju::PointError> {
    ///     let mut b = Board::new();
    ///     for p in black {
    ///         b.put(p.parse()?, Stone::Black);
    ///     }
    ///     for p in white {
    ///         b.put(p.parse()?, Stone::White);
    ///     }
    ///     Ok(b)
    /// };
    /// let g8: Point = "g8".parse()?;
    /// let h8: Point = "h8".parse()?;
    /// // x.xxx.x on row 8: g8 makes two fours on one line.
    /// assert_eq!(board_with(&["d8", "f8", "h8", "j8"], &[])?.forbidden(g8), Some(Forbidden::DoubleFour));
    /// // d8-f8 and h5-h7 with h9 h10: h8 makes six in a column.
    /// let six = board_with(&["d8", "e8", "f8", "h5", "h6", "h7", "h9", "h10"], &[])?;
    /// assert_eq!(six.forbidden(h8), Some(Forbidden::Overline));
    /// // With g8 too, h8 makes an exact five on the row, which wins despite the overline.
    /// let five = board_with(&["d8", "e8", "f8", "g8", "h5", "h6", "h7", "h9", "h10"], &[])?;
    /// assert_eq!(five.forbidden(h8), None);
    /// assert!(five.makes_five(h8, Stone::Black));
    /// // A straight four is one four: allowed.
    /// assert_eq!(board_with(&["e8", "f8", "g8"], &[])?.forbidden(h8), None);
    /// assert_eq!(Forbidden::DoubleThree.to_string(), "double-three");
    /// # Ok::<(), qiku_renju::PointError>(())
    /// ```
    pub fn forbidden(&self, p: Point) -> Option<Forbidden> {
        forbid::forbidden(self, p)
    }

    /// Every point black is forbidden to play, with its kind, sorted column first, then row (as
    /// [`Point::sort_key`]: `a2` before `a10`).
    ///
    /// ```
    /// use qiku_renju::{Board, Forbidden};
    /// assert_eq!(Board::new().forbidden_points(), []);
    /// // Black d8 f8 h8 j8 (x.x.x.x): g8 is a double four, the only forbidden point.
    /// let board = Board::from_moves("d8 a1 f8 a3 h8 a5 j8 a7")?;
    /// assert_eq!(board.forbidden_points(), [("g8".parse()?, Forbidden::DoubleFour)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn forbidden_points(&self) -> Vec<(Point, Forbidden)> {
        forbid::forbidden_points(self)
    }
}

/// How a replayed game ended.
///
/// ```
/// use qiku_renju::{judge, parse_moves, Outcome, Stone};
/// assert_eq!(judge(&parse_moves("h8 h9 i9")?)?.outcome, Outcome::Unfinished);
/// let five = judge(&parse_moves("a1 h8 a3 i8 a5 j8 a7 k8 o15 l8")?)?.outcome;
/// assert_eq!(five, Outcome::Five { ply: 10, point: "l8".parse()?, winner: Stone::White });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Black played a forbidden move (white wins); `ply` is 1-based.
    Forbidden {
        /// 1-based number of the move.
        ply: usize,
        /// The move.
        point: Point,
        /// Why it is forbidden.
        kind: Forbidden,
    },
    /// A side made five (for black an exact five).
    Five {
        /// 1-based number of the move.
        ply: usize,
        /// The move.
        point: Point,
        /// The winner.
        winner: Stone,
    },
    /// The board is full without a five: a draw.
    Full,
    /// The game has not ended.
    Unfinished,
}

/// A judge's verdict on a game: the outcome, and the number of moves after the end (which a
/// caller may want to report as an error).
///
/// ```
/// use qiku_renju::{judge, parse_moves, Forbidden, Judgement, Outcome};
/// // Black's ninth move h8 is a double three; the tenth move comes after the end.
/// let j = judge(&parse_moves("f8 a1 g8 a3 h9 a5 h10 a7 h8 a9")?)?;
/// let outcome = Outcome::Forbidden { ply: 9, point: "h8".parse()?, kind: Forbidden::DoubleThree };
/// assert_eq!(j, Judgement { outcome, extra_moves: 1 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// How the game ended.
    pub outcome: Outcome,
    /// Moves that followed the end of the game.
    pub extra_moves: usize,
}

/// Replays a game from the empty board and judges it: the first forbidden black move (white
/// wins), the first five, a full board, or unfinished.
///
/// ```
/// use qiku_renju::{judge, parse_moves, Forbidden, Outcome, Stone};
///
/// // Black's eleventh move h8 makes six in a row: forbidden, white wins.
/// let j = judge(&parse_moves("d8 a1 e8 a3 f8 a5 g8 a7 i8 a9 h8")?)?;
/// assert_eq!(j.outcome, Outcome::Forbidden { ply: 11, point: "h8".parse()?, kind: Forbidden::Overline });
/// // The same shape wins for white, who may make an overline.
/// let j = judge(&parse_moves("a1 d8 a3 e8 a5 f8 a7 g8 a9 i8 a11 h8")?)?;
/// assert_eq!(j.outcome, Outcome::Five { ply: 12, point: "h8".parse()?, winner: Stone::White });
/// // Moves after the end are counted, for the caller to report.
/// let j = judge(&parse_moves("h8 a1 i8 a2 j8 a3 k8 a4 l8 o15")?)?;
/// assert_eq!((j.outcome, j.extra_moves), (Outcome::Five { ply: 9, point: "l8".parse()?, winner: Stone::Black }, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn judge(moves: &[Point]) -> Result<Judgement, RenjuError> {
    let mut board = Board::new();
    for (i, &p) in moves.iter().enumerate() {
        if !board.is_empty(p) {
            return Err(RenjuError::Occupied { index: i + 1, point: p });
        }
        let ply = i + 1;
        if let Some(outcome) = board.move_ends_game(p, ply) {
            return Ok(Judgement { outcome, extra_moves: moves.len() - ply });
        }
        board.play(p).map_err(|point| RenjuError::Occupied { index: ply, point })?;
        if board.stone_count() == POINTS {
            return Ok(Judgement { outcome: Outcome::Full, extra_moves: moves.len() - ply });
        }
    }
    Ok(Judgement { outcome: Outcome::Unfinished, extra_moves: 0 })
}
