//! [`Bitboard`]: a set of squares in a `u128` (bit `i` = square index `i`; the top 38 bits are
//! always zero).

use super::square::Square;
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
/// A set of squares: bit `i` stands for the square of index `i` (90 used bits of a `u128`).
///
/// ```
/// use qiku::{Bitboard, Square};
///
/// let a0: Square = "a0".parse()?;
/// let e4: Square = "e4".parse()?;
/// let set = Bitboard::from_square(a0).with(e4);
/// assert_eq!(set.count(), 2);
/// assert!(set.contains(e4) && !set.contains("e5".parse()?));
/// // Iterating yields the squares in index order.
/// assert_eq!(set.map(|s| s.to_string()).collect::<Vec<_>>(), ["a0", "e4"]);
/// assert_eq!(set.first(), Some(a0));
/// assert_eq!(set.last(), Some(e4));
/// assert!(set.more_than_one());
/// assert_eq!((set - Bitboard::from_square(a0)).count(), 1);
/// assert_eq!((!set).count(), 88); // the complement stays within the 90 squares
/// assert_eq!(Bitboard::FULL.count(), 90);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Bitboard(pub u128);

const MASK: u128 = (1u128 << 90) - 1;

/// One bit per square. A table load is cheaper than a variable shift of a `u128`, which compiles
/// to a branch on the shift amount and two 64-bit shifts.
static SQUARE_BITS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
};

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 90 squares.
    pub const FULL: Bitboard = Bitboard(MASK);

    #[inline(always)]
    /// The set holding only `sq`.
    ///
    /// ```
    /// use qiku::{Bitboard, Square};
    ///
    /// let e4: Square = "e4".parse()?;
    /// let b = Bitboard::from_square(e4);
    /// assert_eq!((b.count(), b.first()), (1, Some(e4)));
    /// assert_eq!(b, Bitboard(1 << e4.index())); // bit i stands for the square of index i
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_square(sq: Square) -> Bitboard {
        Bitboard(SQUARE_BITS[sq.index()])
    }
    #[inline(always)]
    /// Whether `sq` is in the set.
    ///
    /// ```
    /// let occupied = qiku::Position::startpos().occupied();
    /// assert!(occupied.contains("a0".parse()?));
    /// assert!(!occupied.contains("e4".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains(self, sq: Square) -> bool {
        // One 64-bit half, picked without a branch, then one bit of it: no table load and no
        // `u128` shift.
        let i = sq.index();
        let half = if i >= 64 { (self.0 >> 64) as u64 } else { self.0 as u64 };
        half >> (i & 63) & 1 != 0
    }
    /// Whether the set has no square.
    ///
    /// ```
    /// use qiku::{Bitboard, Position};
    ///
    /// assert!(Bitboard::EMPTY.is_empty());
    /// assert!(Position::startpos().checkers().is_empty()); // no check at the start
    /// assert!(!Bitboard::FULL.is_empty());
    /// ```
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether the set has at least one square.
    ///
    /// ```
    /// use qiku::{Bitboard, Position};
    ///
    /// assert!(Position::startpos().occupied().any());
    /// assert!(!Bitboard::EMPTY.any());
    /// ```
    pub const fn any(self) -> bool {
        self.0 != 0
    }
    /// Number of squares in the set.
    ///
    /// ```
    /// use qiku::{Bitboard, Position, Role};
    ///
    /// assert_eq!(Bitboard::FULL.count(), 90);
    /// assert_eq!(Position::startpos().by_role(Role::Pawn).count(), 10);
    /// ```
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline]
    /// The set with `sq` added.
    ///
    /// ```
    /// use qiku::{Bitboard, Square};
    ///
    /// let (a0, i9): (Square, Square) = ("a0".parse()?, "i9".parse()?);
    /// let b = Bitboard::EMPTY.with(a0).with(i9).with(a0); // adding a member again changes nothing
    /// assert_eq!(b.count(), 2);
    /// assert_eq!((b.first(), b.last()), (Some(a0), Some(i9)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | SQUARE_BITS[sq.index()])
    }
    #[inline]
    /// The set with `sq` removed.
    ///
    /// ```
    /// let occupied = qiku::Position::startpos().occupied();
    /// let rest = occupied.without("h0".parse()?); // lift the horse
    /// assert_eq!(rest.count(), 31);
    /// assert_eq!(rest.without("e4".parse()?), rest); // removing a non-member changes nothing
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !SQUARE_BITS[sq.index()])
    }
    /// Squares in either set (`|` in a `const` context).
    ///
    /// ```
    /// use qiku::Bitboard;
    ///
    /// const CORNERS: Bitboard = Bitboard(1).union(Bitboard(1 << 89)); // a0 and i9
    /// assert_eq!(CORNERS.map(|s| s.to_string()).collect::<Vec<_>>(), ["a0", "i9"]);
    /// assert_eq!(CORNERS.union(CORNERS), CORNERS);
    /// ```
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }
    /// The lowest-indexed square, if any.
    ///
    /// ```
    /// use qiku::{Bitboard, Color, Position};
    ///
    /// let red = Position::startpos().by_color(Color::Red);
    /// assert_eq!(red.first().map(|s| s.to_string()).as_deref(), Some("a0")); // index 0
    /// assert_eq!(Bitboard::EMPTY.first(), None);
    /// ```
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros() as usize))
        }
    }
    /// The highest-indexed square, if any.
    ///
    /// ```
    /// use qiku::{Bitboard, Color, Position};
    ///
    /// let red = Position::startpos().by_color(Color::Red);
    /// assert_eq!(red.last().map(|s| s.to_string()).as_deref(), Some("i3")); // the pawn on i3, index 35
    /// assert_eq!(Bitboard::EMPTY.last(), None);
    /// ```
    pub const fn last(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(127 - self.0.leading_zeros() as usize))
        }
    }
    /// True if more than one square is set.
    ///
    /// ```
    /// use qiku::{Color, Piece, Position, Role};
    ///
    /// let pos = Position::startpos();
    /// assert!(pos.by_role(Role::King).more_than_one());
    /// assert!(!pos.pieces(Piece::new(Color::Red, Role::King)).more_than_one());
    /// ```
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }
    /// The set mirrored left-right.
    ///
    /// ```
    /// use qiku::{Bitboard, Square};
    ///
    /// let right: Bitboard = ["h2", "g3"].iter().map(|s| s.parse::<Square>()).collect::<Result<_, _>>()?;
    /// let left: Bitboard = ["b2", "c3"].iter().map(|s| s.parse::<Square>()).collect::<Result<_, _>>()?;
    /// assert_eq!(right.mirror(), left);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mirror(self) -> Bitboard {
        self.into_iter().map(Square::mirror).collect()
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    /// Works on the two 64-bit halves: a `u128` bit scan and clear costs several times more.
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let lo = self.0 as u64;
        if lo != 0 {
            self.0 ^= (lo & lo.wrapping_neg()) as u128;
            return Some(Square::from_index_unchecked(lo.trailing_zeros() as usize));
        }
        let hi = (self.0 >> 64) as u64;
        if hi != 0 {
            self.0 ^= ((hi & hi.wrapping_neg()) as u128) << 64;
            return Some(Square::from_index_unchecked(64 + hi.trailing_zeros() as usize));
        }
        None
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & MASK)
    }
}

impl fmt::Debug for Bitboard {
    /// Draws the board with rank 9 on top, `X` for members.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for rank in (0..10).rev() {
            for file in 0..9 {
                let sq = Square::from_coords(file, rank).ok_or(fmt::Error)?;
                f.write_str(if self.contains(sq) { "X" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_visits_each_member_once_in_order() {
        let squares: Vec<Square> = ["a0", "e4", "i9", "b7"].iter().map(|s| s.parse().unwrap()).collect();
        let bb: Bitboard = squares.iter().copied().collect();
        let mut sorted = squares.clone();
        sorted.sort();
        assert_eq!(bb.collect::<Vec<_>>(), sorted);
        assert_eq!(bb.count(), 4);
        assert_eq!(bb.first(), Some(sorted[0]));
        assert_eq!(bb.last(), Some(sorted[3]));
        assert!(bb.more_than_one());
        assert!(!Bitboard::from_square(sorted[0]).more_than_one());
    }

    #[test]
    fn complement_stays_on_the_board() {
        assert_eq!((!Bitboard::EMPTY).count(), 90);
        assert_eq!(!Bitboard::FULL, Bitboard::EMPTY);
    }
}
