//! Sides, piece kinds and pieces, with their FEN letters and Chinese names.

use std::fmt;
use std::ops::Not;

/// A side. Red moves first and sits on ranks 0-4.
///
/// ```
/// use qiku::Color;
///
/// assert_eq!(!Color::Red, Color::Black);
/// assert_eq!(Color::Black.other(), Color::Red);
/// assert_eq!(Color::Black.fold("w", "b"), "b");
/// assert_eq!((Color::Red.index(), Color::Red.name()), (0, "red"));
/// assert_eq!(Color::Black.to_string(), "black");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Color {
    /// Red (moves first; "white" in UCI terms).
    Red = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// Both colors, red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// 0 for red, 1 for black (for indexing arrays).
    ///
    /// ```
    /// use qiku::{Color, Position, Role};
    ///
    /// let material = Position::startpos().material(); // indexed [color][role]
    /// assert_eq!(material[Color::Black.index()][Role::Pawn.index()], 5);
    /// assert_eq!((Color::Red.index(), Color::Black.index()), (0, 1));
    /// ```
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The opponent.
    ///
    /// ```
    /// use qiku::{Color, Position};
    ///
    /// let pos = Position::startpos();
    /// assert_eq!(pos.turn().other(), Color::Black); // the side not to move
    /// assert_eq!(Color::Black.other().other(), Color::Black);
    /// ```
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
    /// `a` if red, else `b`: handy for symmetric code.
    ///
    /// ```
    /// use qiku::Color;
    ///
    /// assert_eq!(Color::Red.fold("w", "b"), "w"); // the FEN side-to-move letter
    /// assert_eq!(Color::Black.fold(1, -1), -1); // a pawn's forward direction in ranks
    /// ```
    pub fn fold<T>(self, red: T, black: T) -> T {
        match self {
            Color::Red => red,
            Color::Black => black,
        }
    }
    /// Lowercase name, as in `--only red`.
    ///
    /// ```
    /// use qiku::Color;
    ///
    /// assert_eq!(Color::ALL.map(Color::name), ["red", "black"]);
    /// assert_eq!(Color::Black.name(), Color::Black.to_string());
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kind of piece.
///
/// ```
/// use qiku::Role;
///
/// assert_eq!(Role::from_char('n'), Some(Role::Horse));
/// assert_eq!(Role::from_char('H'), Some(Role::Horse)); // alias
/// assert_eq!(Role::from_char('E'), Some(Role::Elephant)); // alias
/// assert_eq!(Role::Horse.upper_char(), 'N');
/// assert_eq!(Role::Pawn.max_count(), 5);
/// assert!(Role::Cannon.is_attacker() && !Role::Advisor.is_attacker());
/// assert_eq!(Role::ALL.map(Role::name).join(" "), "king advisor elephant horse rook cannon pawn");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// King (general): 帥 / 將.
    King = 0,
    /// Advisor: 仕 / 士.
    Advisor = 1,
    /// Elephant (minister): 相 / 象.
    Elephant = 2,
    /// Horse: 傌 / 馬.
    Horse = 3,
    /// Rook (chariot): 俥 / 車.
    Rook = 4,
    /// Cannon: 炮 / 砲.
    Cannon = 5,
    /// Pawn (soldier): 兵 / 卒.
    Pawn = 6,
}

impl Role {
    /// All seven roles, in index order.
    pub const ALL: [Role; 7] =
        [Role::King, Role::Advisor, Role::Elephant, Role::Horse, Role::Rook, Role::Cannon, Role::Pawn];

    /// 0 (king) to 6 (pawn), for indexing arrays.
    ///
    /// ```
    /// use qiku::Role;
    ///
    /// assert_eq!((Role::King.index(), Role::Pawn.index()), (0, 6));
    /// assert!(Role::ALL.iter().enumerate().all(|(i, r)| r.index() == i));
    /// ```
    pub const fn index(self) -> usize {
        self as usize
    }
    /// How many of this role one side starts with (and may have at most).
    ///
    /// ```
    /// use qiku::{Color, Position, Role};
    ///
    /// assert_eq!((Role::King.max_count(), Role::Rook.max_count(), Role::Pawn.max_count()), (1, 2, 5));
    /// // The start position has every piece it may ever have.
    /// let pos = Position::startpos();
    /// assert!(Role::ALL.iter().all(|&r| (pos.by_role(r) & pos.by_color(Color::Red)).count() == r.max_count()));
    /// ```
    pub const fn max_count(self) -> u32 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }
    /// Can this role ever cross the river (attack the opponent)?
    ///
    /// ```
    /// use qiku::Role;
    ///
    /// let attackers: Vec<&str> = Role::ALL.iter().filter(|r| r.is_attacker()).map(|r| r.name()).collect();
    /// assert_eq!(attackers, ["horse", "rook", "cannon", "pawn"]);
    /// ```
    pub const fn is_attacker(self) -> bool {
        matches!(self, Role::Horse | Role::Rook | Role::Cannon | Role::Pawn)
    }
    /// Uppercase FEN letter as Pikafish writes it (`K A B N R C P`).
    ///
    /// ```
    /// use qiku::Role;
    ///
    /// assert_eq!(Role::ALL.map(Role::upper_char).iter().collect::<String>(), "KABNRCP");
    /// assert_eq!(Role::from_char(Role::Elephant.upper_char()), Some(Role::Elephant));
    /// ```
    pub const fn upper_char(self) -> char {
        match self {
            Role::King => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Rook => 'R',
            Role::Cannon => 'C',
            Role::Pawn => 'P',
        }
    }
    /// Reads a FEN letter of either case; accepts the aliases `E` (elephant) and `H` (horse).
    ///
    /// ```
    /// use qiku::Role;
    ///
    /// assert_eq!(Role::from_char('c'), Some(Role::Cannon));
    /// assert_eq!(Role::from_char('h'), Some(Role::Horse)); // alias of n
    /// assert_eq!(Role::from_char('x'), None);
    /// ```
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'K' => Role::King,
            'A' => Role::Advisor,
            'B' | 'E' => Role::Elephant,
            'N' | 'H' => Role::Horse,
            'R' => Role::Rook,
            'C' => Role::Cannon,
            'P' => Role::Pawn,
            _ => return None,
        })
    }
    /// The English name (`king`, `advisor`, ...).
    ///
    /// ```
    /// use qiku::Role;
    ///
    /// assert_eq!(Role::Horse.name(), "horse");
    /// assert_eq!(Role::Elephant.name(), "elephant");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Rook => "rook",
            Role::Cannon => "cannon",
            Role::Pawn => "pawn",
        }
    }
}

/// A piece: a side and a role.
///
/// ```
/// use qiku::{Color, Piece, Role};
///
/// let horse = Piece::new(Color::Black, Role::Horse);
/// assert_eq!(horse.char(), 'n');
/// assert_eq!(horse.to_string(), "n");
/// assert_eq!(horse.chinese(), '馬');
/// assert_eq!(Piece::from_char('n'), Some(horse));
/// assert_eq!(Piece::from_char('C').map(Piece::chinese), Some('炮'));
/// assert_eq!(Piece::from_char('x'), None);
/// // The index orders the Zobrist table: red king..red pawn, then black.
/// assert_eq!(horse.index(), 7 + 3);
/// assert_eq!(Piece::from_index(horse.index()), Some(horse));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece {
    /// Whose piece.
    pub color: Color,
    /// What piece.
    pub role: Role,
}

impl Piece {
    /// The piece of `color` and `role`.
    ///
    /// ```
    /// use qiku::{Color, Piece, Role};
    ///
    /// let rook = Piece::new(Color::Red, Role::Rook);
    /// assert_eq!(rook, Piece { color: Color::Red, role: Role::Rook });
    /// assert_eq!(rook.char(), 'R');
    /// ```
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }
    /// `0..14`: red king..red pawn, then black king..black pawn (the Zobrist table's order).
    ///
    /// ```
    /// use qiku::{Color, Piece, Role};
    ///
    /// assert_eq!(Piece::new(Color::Red, Role::King).index(), 0);
    /// assert_eq!(Piece::new(Color::Black, Role::Pawn).index(), 13);
    /// ```
    pub const fn index(self) -> usize {
        self.color as usize * 7 + self.role as usize
    }
    /// The piece of index `color * 7 + role` (the inverse of `Piece::index`), if in range.
    ///
    /// ```
    /// use qiku::{Color, Piece, Role};
    ///
    /// assert_eq!(Piece::from_index(7 + 5), Some(Piece::new(Color::Black, Role::Cannon)));
    /// assert_eq!(Piece::from_index(14), None);
    /// assert!((0..14).all(|i| Piece::from_index(i).map(Piece::index) == Some(i)));
    /// ```
    pub fn from_index(index: usize) -> Option<Piece> {
        let color = match index / 7 {
            0 => Color::Red,
            1 => Color::Black,
            _ => return None,
        };
        Some(Piece::new(color, Role::ALL[index % 7]))
    }
    /// FEN letter: uppercase for red.
    ///
    /// ```
    /// let pos = qiku::Position::startpos();
    /// assert_eq!(pos.piece_at("a0".parse()?).map(|p| p.char()), Some('R'));
    /// assert_eq!(pos.piece_at("a9".parse()?).map(|p| p.char()), Some('r'));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn char(self) -> char {
        let c = self.role.upper_char();
        self.color.fold(c, c.to_ascii_lowercase())
    }
    /// Reads a FEN letter (`E`/`H` aliases accepted).
    ///
    /// ```
    /// use qiku::{Color, Piece, Role};
    ///
    /// assert_eq!(Piece::from_char('E'), Some(Piece::new(Color::Red, Role::Elephant))); // alias of B
    /// assert_eq!(Piece::from_char('p'), Some(Piece::new(Color::Black, Role::Pawn)));
    /// assert_eq!(Piece::from_char('1'), None);
    /// ```
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        Some(Piece::new(if c.is_ascii_uppercase() { Color::Red } else { Color::Black }, role))
    }
    /// The traditional Chinese character of this piece for its side (帥 仕 相 傌 俥 炮 兵 / 將 士 象 馬 車 砲 卒).
    ///
    /// ```
    /// use qiku::{Color, Piece, Role};
    ///
    /// assert_eq!(Piece::new(Color::Red, Role::King).chinese(), '帥');
    /// assert_eq!(Piece::new(Color::Black, Role::King).chinese(), '將');
    /// let black_back_rank: String = "rnbakabnr".chars().filter_map(Piece::from_char).map(Piece::chinese).collect();
    /// assert_eq!(black_back_rank, "車馬象士將士象馬車");
    /// ```
    pub const fn chinese(self) -> char {
        match (self.color, self.role) {
            (Color::Red, Role::King) => '帥',
            (Color::Red, Role::Advisor) => '仕',
            (Color::Red, Role::Elephant) => '相',
            (Color::Red, Role::Horse) => '傌',
            (Color::Red, Role::Rook) => '俥',
            (Color::Red, Role::Cannon) => '炮',
            (Color::Red, Role::Pawn) => '兵',
            (Color::Black, Role::King) => '將',
            (Color::Black, Role::Advisor) => '士',
            (Color::Black, Role::Elephant) => '象',
            (Color::Black, Role::Horse) => '馬',
            (Color::Black, Role::Rook) => '車',
            (Color::Black, Role::Cannon) => '砲',
            (Color::Black, Role::Pawn) => '卒',
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_index_and_letters_round_trip() {
        for i in 0..14 {
            let p = Piece::from_index(i).unwrap();
            assert_eq!(p.index(), i);
            assert_eq!(Piece::from_char(p.char()), Some(p));
        }
        assert_eq!(Piece::from_index(14), None);
        assert_eq!(Piece::from_char('e'), Some(Piece::new(Color::Black, Role::Elephant)));
        assert_eq!(Piece::from_char('H'), Some(Piece::new(Color::Red, Role::Horse)));
        assert_eq!(Piece::from_char('x'), None);
    }
}
