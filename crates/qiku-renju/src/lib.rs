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
    pub fn new(col: usize, row: usize) -> Option<Point> {
        (col < SIZE && row < SIZE).then(|| Point((row * SIZE + col) as u8))
    }

    /// The point with this index (`row * 15 + column`), if on the board.
    pub fn from_index(index: usize) -> Option<Point> {
        (index < POINTS).then_some(Point(index as u8))
    }

    /// Every point, `a1`, `b1`, ... `o15`.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    /// Index `row * 15 + column`.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (`a`) to 14 (`o`).
    pub fn col(self) -> usize {
        self.index() % SIZE
    }

    /// Row, 0 (row `1`, the bottom) to 14 (row `15`).
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

    /// The name by which points sort in outputs: column first, then row (`a1` < `a2` < `b1`).
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
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Stone {
    /// The first player, bound by the forbidden-move rules.
    Black,
    /// The second player, who has no forbidden moves and also wins with an overline.
    White,
}

impl Stone {
    /// The other color.
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// `x` for black, `o` for white, as in board diagrams.
    pub fn symbol(self) -> char {
        match self {
            Stone::Black => 'x',
            Stone::White => 'o',
        }
    }

    /// `black` or `white`.
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

/// Why a move list or a board diagram was rejected. Each variant names the offending token.
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
    pub fn new() -> Board {
        let mut cells = [WALL; GRID];
        for p in Point::all() {
            cells[p.cell()] = EMPTY;
        }
        Board { cells, moves: Vec::new(), black: 0, white: 0 }
    }

    /// The board after a space-separated move list, black first. Errors name the bad token.
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
    pub fn stone(&self, p: Point) -> Option<Stone> {
        match self.cells[p.cell()] {
            BLACK => Some(Stone::Black),
            WHITE => Some(Stone::White),
            _ => None,
        }
    }

    /// Is the point empty?
    pub fn is_empty(&self, p: Point) -> bool {
        self.cells[p.cell()] == EMPTY
    }

    /// The side to move: black when both have as many stones, else white.
    pub fn to_move(&self) -> Stone {
        if self.black <= self.white {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        self.black + self.white
    }

    /// The moves played through [`Board::play`] since the board was empty or set up.
    pub fn moves(&self) -> &[Point] {
        &self.moves
    }

    /// Empty points, in index order.
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        Point::all().filter(|&p| self.is_empty(p))
    }

    /// Puts a stone for the side to move on an empty point and records the move. Forbidden moves
    /// are not checked here (see [`Board::forbidden`]); an occupied point is an error.
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
    pub fn undo(&mut self) -> Option<Point> {
        let p = self.moves.pop()?;
        self.remove(p);
        Some(p)
    }

    /// Puts a stone of the given color (set-up; no move is recorded). Replaces what was there.
    /// The stone counts are not checked, unlike [`Board::from_diagram`]'s: any position can be
    /// set up (the judge is compared with its reference on such positions), and the side to move
    /// follows from the counts ([`Board::to_move`]).
    pub fn put(&mut self, p: Point, stone: Stone) {
        self.remove(p);
        self.cells[p.cell()] = stone.cell();
        match stone {
            Stone::Black => self.black += 1,
            Stone::White => self.white += 1,
        }
    }

    /// Removes the stone on a point, if any (set-up).
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
    pub fn run_through(&self, p: Point, stone: Stone) -> usize {
        DIRECTIONS.iter().map(|&d| self.run_along(p, stone, d)).max().unwrap_or(1)
    }

    /// Would a stone of this color on `p` win? Black needs an exact five in some direction (an
    /// exact five wins even if another direction is an overline); white wins with five or more.
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

    /// Every point black is forbidden to play, with its kind, sorted by point name.
    pub fn forbidden_points(&self) -> Vec<(Point, Forbidden)> {
        forbid::forbidden_points(self)
    }
}

/// How a replayed game ended.
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
