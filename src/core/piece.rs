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
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The opponent.
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }
    /// `a` if red, else `b`: handy for symmetric code.
    pub fn fold<T>(self, red: T, black: T) -> T {
        match self {
            Color::Red => red,
            Color::Black => black,
        }
    }
    /// Lowercase name, as in `--only red`.
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
    pub const fn index(self) -> usize {
        self as usize
    }
    /// How many of this role one side starts with (and may have at most).
    pub const fn max_count(self) -> u32 {
        match self {
            Role::King => 1,
            Role::Pawn => 5,
            _ => 2,
        }
    }
    /// Can this role ever cross the river (attack the opponent)?
    pub const fn is_attacker(self) -> bool {
        matches!(self, Role::Horse | Role::Rook | Role::Cannon | Role::Pawn)
    }
    /// Uppercase FEN letter as Pikafish writes it (`K A B N R C P`).
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
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }
    /// `0..14`: red king..red pawn, then black king..black pawn (the Zobrist table's order).
    pub const fn index(self) -> usize {
        self.color as usize * 7 + self.role as usize
    }
    /// The piece of index `color * 7 + role` (the inverse of `Piece::index`), if in range.
    pub fn from_index(index: usize) -> Option<Piece> {
        let color = match index / 7 {
            0 => Color::Red,
            1 => Color::Black,
            _ => return None,
        };
        Some(Piece::new(color, Role::ALL[index % 7]))
    }
    /// FEN letter: uppercase for red.
    pub fn char(self) -> char {
        let c = self.role.upper_char();
        self.color.fold(c, c.to_ascii_lowercase())
    }
    /// Reads a FEN letter (`E`/`H` aliases accepted).
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        Some(Piece::new(if c.is_ascii_uppercase() { Color::Red } else { Color::Black }, role))
    }
    /// The traditional Chinese character of this piece for its side (帥 仕 相 傌 俥 炮 兵 / 將 士 象 馬 車 砲 卒).
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
