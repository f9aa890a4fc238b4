//! [`Move`]: a from-square and a to-square packed into 16 bits. Xiangqi has no promotion, castling
//! or en passant, so two squares say everything; whether a move captures depends on the position.

use super::square::Square;
use std::fmt;

#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// A move: from-square and to-square packed in 16 bits (captures and the moving piece are read from the position).
///
/// ```
/// use qiku::{Move, Square};
///
/// let m = Move::new("h2".parse()?, "e2".parse()?);
/// assert_eq!(m.to_string(), "h2e2");
/// assert_eq!((m.from().to_string(), m.to().to_string()), ("h2".to_string(), "e2".to_string()));
/// assert_eq!(m.mirror().to_string(), "b2e2");
/// // The 16-bit encoding (as stored in books) round-trips.
/// assert_eq!(Move::from_u16(m.to_u16()), Some(m));
/// assert_eq!(m.to_u16(), m.from().index() as u16 | (m.to().index() as u16) << 7);
/// assert_eq!(Move::from_u16(u16::MAX), None);
/// let _: Square = m.to();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Move(u16);

impl Move {
    /// The move from `from` to `to`.
    ///
    /// ```
    /// use qiku::{Move, Position};
    ///
    /// let m = Move::new("h2".parse()?, "e2".parse()?);
    /// assert_eq!(m.to_string(), "h2e2");
    /// assert!(Position::startpos().is_legal(m));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 7)
    }
    /// The square the piece leaves.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let m = iccs::parse_move("h0g2")?;
    /// assert_eq!(m.from().to_string(), "h0");
    /// assert_eq!(Position::startpos().piece_at(m.from()).map(|p| p.chinese()), Some('傌'));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn from(self) -> Square {
        Square::from_index_unchecked((self.0 & 0x7f) as usize)
    }
    /// The square the piece goes to.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let m = iccs::parse_move("h2h9")?; // the cannon takes the horse
    /// assert_eq!(m.to().to_string(), "h9");
    /// assert_eq!(Position::startpos().piece_at(m.to()).map(|p| p.chinese()), Some('馬'));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn to(self) -> Square {
        Square::from_index_unchecked((self.0 >> 7) as usize)
    }
    /// The packed form (`from | to << 7`), as stored in book files.
    ///
    /// ```
    /// use qiku::Move;
    ///
    /// let m = Move::new("a0".parse()?, "a1".parse()?); // square indices 0 and 9
    /// assert_eq!(m.to_u16(), 9 << 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn to_u16(self) -> u16 {
        self.0
    }
    /// Unpacks [`Move::to_u16`]; `None` if either square is off the board or they coincide.
    ///
    /// ```
    /// use qiku::Move;
    ///
    /// let m = Move::new("b0".parse()?, "c2".parse()?);
    /// assert_eq!(Move::from_u16(m.to_u16()), Some(m));
    /// assert_eq!(Move::from_u16(0), None); // a0 to a0
    /// assert_eq!(Move::from_u16(90), None); // from square index 90: off the board
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn from_u16(bits: u16) -> Option<Move> {
        let from = (bits & 0x7f) as usize;
        let to = (bits >> 7) as usize;
        if from < 90 && to < 90 && from != to && bits >> 14 == 0 {
            Some(Move(bits))
        } else {
            None
        }
    }
    /// The same move seen in a left-right mirror.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let m = iccs::parse_move("h0g2")?;
    /// assert_eq!(m.mirror().to_string(), "b0c2");
    /// assert!(Position::startpos().is_legal(m.mirror())); // the start is symmetric
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }
}

impl fmt::Display for Move {
    /// ICCS coordinate form, lowercase: `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A fixed-capacity list of moves; no position has more than 128 pseudo-legal moves
/// (2 rooks and 2 cannons reach at most 17 squares each, 2 horses 8, 5 pawns 3, the rest 16).
///
/// ```
/// use qiku::{MoveList, Position};
///
/// let pos = Position::startpos();
/// let mut list = MoveList::new();
/// pos.legal_moves(&mut list);
/// assert_eq!(list.len(), 44);
/// // Keep the cannon moves only.
/// list.retain(|m| pos.piece_at(m.from()).is_some_and(|p| p.char() == 'C'));
/// assert_eq!(list.len(), 24);
/// assert!(list.contains(qiku::Move::new("h2".parse()?, "e2".parse()?)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// Most moves a list holds: above the bound on pseudo-legal moves worked out above.
    pub const CAPACITY: usize = 128;

    /// An empty list.
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// let mut list = MoveList::new();
    /// assert!(list.is_empty());
    /// Position::startpos().legal_moves(&mut list);
    /// assert_eq!(list.len(), 44);
    /// ```
    pub const fn new() -> MoveList {
        MoveList { moves: [Move(0); MoveList::CAPACITY], len: 0 }
    }
    #[inline]
    /// Appends a move.
    ///
    /// ```
    /// use qiku::{notation::iccs, MoveList};
    ///
    /// let (a, b) = (iccs::parse_move("h2e2")?, iccs::parse_move("h9g7")?);
    /// let mut list = MoveList::new();
    /// list.push(a);
    /// list.push(b);
    /// assert_eq!(list.as_slice(), [a, b]); // in the order pushed
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MoveList::CAPACITY);
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = m;
            self.len += 1;
        }
    }
    /// Empties the list.
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// let mut list = MoveList::new();
    /// Position::startpos().legal_moves(&mut list);
    /// list.clear();
    /// assert!(list.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Number of moves.
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// // The rook has 17 moves, the king two (d0 would face the black king).
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
    /// let mut list = MoveList::new();
    /// pos.legal_moves(&mut list);
    /// assert_eq!(list.len(), 19);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the list is empty.
    ///
    /// ```
    /// use qiku::{MoveList, Position};
    ///
    /// // Stalemate: d8 is the rook's and e9 would face the red king.
    /// let pos = Position::from_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b")?;
    /// let mut list = MoveList::new();
    /// pos.legal_moves(&mut list);
    /// assert!(list.is_empty());
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves as a slice.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let moves = Position::startpos().moves();
    /// let slice = moves.as_slice();
    /// assert_eq!(slice.len(), 44);
    /// assert!(slice.contains(&iccs::parse_move("h2e2")?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    /// The moves as a mutable slice (for sorting).
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// let mut moves = Position::startpos().moves();
    /// moves.as_mut_slice().sort_by_key(|m| m.to_string());
    /// assert_eq!(moves[0].to_string(), "a0a1");
    /// assert_eq!(moves[moves.len() - 1].to_string(), "i3i4");
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    /// Whether `m` is in the list.
    ///
    /// ```
    /// use qiku::{notation::iccs, Position};
    ///
    /// let moves = Position::startpos().moves();
    /// assert!(moves.contains(iccs::parse_move("h2e2")?));
    /// assert!(!moves.contains(iccs::parse_move("a0a5")?)); // the rook cannot jump its pawn
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
    /// Keeps the moves for which `f` is true, in order.
    ///
    /// ```
    /// use qiku::Position;
    ///
    /// let pos = Position::startpos();
    /// let mut captures = pos.moves();
    /// captures.retain(|m| pos.is_capture(m));
    /// assert_eq!(captures.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["b2b9", "h2h9"]);
    /// ```
    #[inline]
    pub fn retain(&mut self, mut f: impl FnMut(Move) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let m = self.moves[i];
            if f(m) {
                self.moves[kept] = m;
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_for_every_square_pair() {
        for from in Square::all() {
            for to in Square::all() {
                let m = Move::new(from, to);
                assert_eq!((m.from(), m.to()), (from, to));
                let unpacked = Move::from_u16(m.to_u16());
                assert_eq!(unpacked, if from == to { None } else { Some(m) });
            }
        }
        assert_eq!(Move::from_u16(0xffff), None);
    }
}
