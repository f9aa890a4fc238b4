//! Board coordinates in ICCS naming: files `a`..`i` from red's left, ranks `0`..`9` from red's
//! back rank. A [`Square`] is `rank * 9 + file`, so a square's index is also its bit in a
//! [`Bitboard`](super::Bitboard).

use std::fmt;
use std::str::FromStr;

/// A file (column), `a` (red's left) to `i`.
///
/// ```
/// use qiku::File;
///
/// let e = File::from_char('E').ok_or("not a file")?;
/// assert_eq!((e.index(), e.char()), (4, 'e'));
/// assert_eq!(File::new(1).map(File::mirror), File::new(7)); // b <-> h
/// assert_eq!(File::new(9), None);
/// assert_eq!(File::ALL.iter().map(|f| f.char()).collect::<String>(), "abcdefghi");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct File(u8);

/// A rank (row), `0` (red's back rank) to `9` (black's back rank).
///
/// ```
/// use qiku::Rank;
///
/// let r = Rank::from_char('2').ok_or("not a rank")?;
/// assert_eq!(r.index(), 2);
/// assert_eq!(r.flip().char(), '7'); // the same rank seen from black's side
/// assert_eq!(Rank::new(10), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl File {
    /// Number of files.
    pub const COUNT: usize = 9;
    /// Every file, `a` to `i`.
    pub const ALL: [File; 9] = [File(0), File(1), File(2), File(3), File(4), File(5), File(6), File(7), File(8)];

    /// The file with index `0..9`, or `None`.
    ///
    /// ```
    /// use qiku::File;
    ///
    /// assert_eq!(File::new(4).map(File::char), Some('e'));
    /// assert_eq!(File::new(9), None); // files are 0..9
    /// ```
    pub const fn new(index: u32) -> Option<File> {
        if index < 9 {
            Some(File(index as u8))
        } else {
            None
        }
    }
    /// 0 (`a`) to 8 (`i`).
    ///
    /// ```
    /// use qiku::File;
    ///
    /// assert_eq!(File::from_char('a').map(File::index), Some(0));
    /// assert_eq!(File::from_char('i').map(File::index), Some(8));
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The ICCS letter, `a` to `i`.
    ///
    /// ```
    /// let sq: qiku::Square = "h2".parse()?;
    /// assert_eq!(sq.file().char(), 'h');
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
    /// The file of an ICCS letter (either case).
    ///
    /// ```
    /// use qiku::File;
    ///
    /// assert_eq!(File::from_char('c'), File::new(2));
    /// assert_eq!(File::from_char('C'), File::new(2));
    /// assert_eq!(File::from_char('j'), None);
    /// ```
    pub fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='i' => Some(File(c as u8 - b'a')),
            'A'..='I' => Some(File(c as u8 - b'A')),
            _ => None,
        }
    }
    /// The file seen in a left-right mirror.
    ///
    /// ```
    /// use qiku::File;
    ///
    /// assert_eq!(File::from_char('b').map(|f| f.mirror().char()), Some('h'));
    /// assert_eq!(File::new(4).map(File::mirror), File::new(4)); // the e-file is the axis
    /// ```
    pub const fn mirror(self) -> File {
        File(8 - self.0)
    }
}

impl Rank {
    /// Number of ranks.
    pub const COUNT: usize = 10;

    /// The rank with index `0..10`, or `None`.
    ///
    /// ```
    /// use qiku::Rank;
    ///
    /// assert_eq!(Rank::new(9).map(Rank::char), Some('9'));
    /// assert_eq!(Rank::new(10), None); // ranks are 0..10
    /// ```
    pub const fn new(index: u32) -> Option<Rank> {
        if index < 10 {
            Some(Rank(index as u8))
        } else {
            None
        }
    }
    /// 0 (red's back rank) to 9 (black's back rank).
    ///
    /// ```
    /// let sq: qiku::Square = "c7".parse()?;
    /// assert_eq!(sq.rank().index(), 7);
    /// assert_eq!(sq.index(), sq.rank().index() * 9 + sq.file().index());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The ICCS digit, `0` to `9`.
    ///
    /// ```
    /// let sq: qiku::Square = "h2".parse()?;
    /// assert_eq!(sq.rank().char(), '2');
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn char(self) -> char {
        (b'0' + self.0) as char
    }
    /// The rank of an ICCS digit.
    ///
    /// ```
    /// use qiku::Rank;
    ///
    /// assert_eq!(Rank::from_char('7'), Rank::new(7));
    /// assert_eq!(Rank::from_char('a'), None);
    /// ```
    pub fn from_char(c: char) -> Option<Rank> {
        c.to_digit(10).and_then(Rank::new)
    }
    /// The rank seen from the other side of the board.
    ///
    /// ```
    /// use qiku::Rank;
    ///
    /// assert_eq!(Rank::new(0).map(Rank::flip), Rank::new(9)); // red's back rank is black's ninth
    /// assert_eq!(Rank::new(4).map(Rank::flip), Rank::new(5)); // the two banks of the river
    /// ```
    pub const fn flip(self) -> Rank {
        Rank(9 - self.0)
    }
}

/// One of the 90 points of the board.
///
/// ```
/// use qiku::{File, Rank, Square};
///
/// let sq: Square = "h2".parse()?;
/// assert_eq!(sq.to_string(), "h2");
/// assert_eq!(sq.index(), 2 * 9 + 7); // rank * 9 + file
/// assert_eq!(Square::new(File::new(7).ok_or("file")?, Rank::new(2).ok_or("rank")?), sq);
/// assert_eq!(sq.mirror().to_string(), "b2"); // left-right
/// assert_eq!(sq.flip().to_string(), "h7"); // top-bottom
/// assert_eq!(sq.offset(-3, 0).map(|s| s.to_string()).as_deref(), Some("e2"));
/// assert_eq!(sq.offset(2, 0), None); // off the board
/// assert_eq!("E2".parse::<Square>()?.to_string(), "e2"); // either case
/// assert!("j0".parse::<Square>().is_err());
/// assert!("a10".parse::<Square>().is_err());
/// assert_eq!(Square::all().len(), 90);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

/// File and rank of each square index (a load instead of a division by 9 in the move
/// generator's hot paths); 256 entries, so that any `u8` index needs no bounds check.
const FILE_RANK: [(u8, u8); 256] = {
    let mut t = [(0u8, 0u8); 256];
    let mut i = 0;
    while i < 256 {
        t[i] = ((i % 9) as u8, (i / 9) as u8);
        i += 1;
    }
    t
};

impl Square {
    /// Number of squares.
    pub const COUNT: usize = 90;

    /// The square on `file` and `rank`.
    ///
    /// ```
    /// use qiku::{File, Rank, Square};
    ///
    /// let file = File::from_char('e').ok_or("not a file")?;
    /// let sq = Square::new(file, Rank::new(0).ok_or("not a rank")?);
    /// assert_eq!((sq.to_string(), sq.index()), ("e0".to_string(), 4));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn new(file: File, rank: Rank) -> Square {
        Square(rank.0 * 9 + file.0)
    }
    /// The square with index `0..90`, or `None`.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!(Square::from_index(89).map(|s| s.to_string()).as_deref(), Some("i9"));
    /// assert_eq!(Square::from_index(90), None);
    /// ```
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 90 {
            Some(Square(index as u8))
        } else {
            None
        }
    }
    /// The square with index `index`, which the caller guarantees is below 90.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!(Square::from_index_unchecked(4).to_string(), "e0");
    /// assert!((0..90).all(|i| Some(Square::from_index_unchecked(i)) == Square::from_index(i)));
    /// ```
    pub const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 90);
        Square(index as u8)
    }
    /// The square at `file`, `rank` given as plain coordinates, or `None` off the board.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!(Square::from_coords(4, 9).map(|s| s.to_string()).as_deref(), Some("e9"));
    /// assert_eq!(Square::from_coords(-1, 0), None);
    /// assert_eq!(Square::from_coords(0, 10), None);
    /// ```
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
            Some(Square((rank * 9 + file) as u8))
        } else {
            None
        }
    }
    /// `rank * 9 + file`: 0 (`a0`) to 89 (`i9`).
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!("a0".parse::<Square>()?.index(), 0);
    /// assert_eq!("e2".parse::<Square>()?.index(), 2 * 9 + 4);
    /// assert_eq!("i9".parse::<Square>()?.index(), 89);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The square's file.
    ///
    /// ```
    /// use qiku::{File, Square};
    ///
    /// let sq: Square = "h2".parse()?;
    /// assert_eq!(Some(sq.file()), File::from_char('h'));
    /// assert_eq!(sq.mirror().file(), sq.file().mirror());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub const fn file(self) -> File {
        File(FILE_RANK[self.0 as usize].0)
    }
    /// The square's rank.
    ///
    /// ```
    /// use qiku::{Rank, Square};
    ///
    /// let sq: Square = "h2".parse()?;
    /// assert_eq!(Some(sq.rank()), Rank::new(2));
    /// assert_eq!(sq.flip().rank(), sq.rank().flip());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(FILE_RANK[self.0 as usize].1)
    }
    /// The square `df` files and `dr` ranks away, or `None` off the board.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// let b0: Square = "b0".parse()?;
    /// assert_eq!(b0.offset(1, 2).map(|s| s.to_string()).as_deref(), Some("c2")); // a horse's jump
    /// assert_eq!(b0.offset(-2, 1), None); // off the board
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::from_coords((self.0 % 9) as i32 + df, (self.0 / 9) as i32 + dr)
    }
    /// Left-right mirror (file `a` <-> `i`). Xiangqi is symmetric under it.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!("c3".parse::<Square>()?.mirror().to_string(), "g3");
    /// assert!(Square::all().filter(|&s| s.mirror() == s).all(|s| s.file().char() == 'e'));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn mirror(self) -> Square {
        Square((self.0 / 9) * 9 + 8 - self.0 % 9)
    }
    /// Red-black flip (rank `0` <-> `9`), file unchanged.
    ///
    /// ```
    /// use qiku::{Color, Position, Square};
    ///
    /// let b2: Square = "b2".parse()?; // red's cannon; black's stands on the flipped square
    /// assert_eq!(b2.flip().to_string(), "b7");
    /// assert_eq!(Position::startpos().piece_at(b2.flip()).map(|p| p.color), Some(Color::Black));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn flip(self) -> Square {
        Square((9 - self.0 / 9) * 9 + self.0 % 9)
    }
    /// All squares in index order.
    ///
    /// ```
    /// use qiku::Square;
    ///
    /// assert_eq!(Square::all().next().map(|s| s.to_string()).as_deref(), Some("a0"));
    /// assert_eq!(Square::all().next_back().map(|s| s.to_string()).as_deref(), Some("i9"));
    /// assert_eq!(Square::all().filter(|s| s.rank().index() < 5).count(), 45); // red's half
    /// ```
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..90u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The text was not a square name such as `e2` (ICCS naming, case-insensitive).
///
/// ```
/// use qiku::core::square::ParseSquareError;
/// use qiku::Square;
///
/// assert_eq!("j1".parse::<Square>(), Err(ParseSquareError)); // files run from a to i
/// assert_eq!("E2".parse::<Square>().map(|s| s.to_string()), Ok("e2".to_string())); // any case
/// assert_eq!(ParseSquareError.to_string(), "not a square name (expected a file a-i and a rank 0-9, such as e2)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a square name (expected a file a-i and a rank 0-9, such as e2)")
    }
}
impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(f), Some(r)) => Ok(Square::new(f, r)),
                _ => Err(ParseSquareError),
            },
            _ => Err(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indices_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
            assert_eq!(Square::new(sq.file(), sq.rank()), sq);
        }
        assert_eq!("a0".parse::<Square>().map(Square::index), Ok(0));
        assert_eq!("i9".parse::<Square>().map(Square::index), Ok(89));
        assert_eq!("E2".parse::<Square>().map(|s| s.to_string()), Ok("e2".to_string()));
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn mirror_and_flip_are_involutions() {
        for sq in Square::all() {
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.flip().flip(), sq);
            assert_eq!(sq.mirror().rank(), sq.rank());
            assert_eq!(sq.mirror().file().index(), 8 - sq.file().index());
        }
        assert_eq!("b2".parse::<Square>().map(Square::mirror), "h2".parse());
    }
}
