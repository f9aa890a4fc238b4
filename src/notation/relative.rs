//! The file-relative move model that WXF and Chinese notation share: a piece named by its file
//! (counted from the mover's own right) or by its place among same-kind pieces on one file, a
//! direction (forward, backward, along the rank) and a number that is either a step count or a
//! destination file. Both notations are thin spellings of this model; keeping the geometry here
//! means the two cannot disagree on what a move means.
//!
//! Parsing never generates the move list: the named pieces are found with one bitboard mask, the
//! destination follows from the geometry, and each candidate is checked with the piece's own
//! attack set plus [`Position::leaves_king_attacked`].

use super::ParseMoveError;
use crate::core::{Bitboard, Color, Move, Piece, Position, Role, Square};

/// Which way a move goes, seen from the mover (進 `+`, 退 `-`, 平 `.`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    Forward,
    Backward,
    Traverse,
}

/// A file as the mover counts it: 1 is the file at the mover's right hand, 9 at the left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct OwnFile(u8);

impl OwnFile {
    /// `n` in 1..=9.
    pub(crate) fn new(n: u8) -> Option<OwnFile> {
        (1..=9).contains(&n).then_some(OwnFile(n))
    }
    pub(crate) fn of(color: Color, sq: Square) -> OwnFile {
        let f = sq.file().index() as u8;
        OwnFile(match color {
            Color::Red => 9 - f,
            Color::Black => f + 1,
        })
    }
    pub(crate) fn get(self) -> u8 {
        self.0
    }
    /// The ICCS file index (`a` = 0) of this file for `color`.
    pub(crate) fn index(self, color: Color) -> usize {
        match color {
            Color::Red => 9 - self.0 as usize,
            Color::Black => self.0 as usize - 1,
        }
    }
    /// All squares of this file.
    pub(crate) fn mask(self, color: Color) -> Bitboard {
        FILE_MASKS[self.index(color)]
    }
}

const FILE_MASKS: [Bitboard; 9] = {
    let mut masks = [Bitboard(0); 9];
    let mut sq = 0;
    while sq < 90 {
        masks[sq % 9].0 |= 1u128 << sq;
        sq += 1;
    }
    masks
};

/// The squares of `sq`'s file.
pub(crate) fn file_mask(sq: Square) -> Bitboard {
    FILE_MASKS[sq.file().index()]
}

/// Up to five squares (the most same-kind pieces one side can have), in a chosen order.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Squares {
    items: [Square; 5],
    len: usize,
}

impl Squares {
    const EMPTY: Squares = Squares { items: [Square::from_index_unchecked(0); 5], len: 0 };

    fn push(&mut self, sq: Square) {
        if self.len < self.items.len() {
            self.items[self.len] = sq;
            self.len += 1;
        }
    }
    pub(crate) fn as_slice(&self) -> &[Square] {
        &self.items[..self.len]
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn get(&self, i: usize) -> Option<Square> {
        self.as_slice().get(i).copied()
    }
    pub(crate) fn position(&self, sq: Square) -> Option<usize> {
        self.as_slice().iter().position(|&s| s == sq)
    }
    /// The middle one of an odd number of squares (the 中 piece).
    pub(crate) fn middle(&self) -> Option<Square> {
        if self.len % 2 == 1 {
            self.get(self.len / 2)
        } else {
            None
        }
    }
    pub(crate) fn first(&self) -> Option<Square> {
        self.get(0)
    }
    pub(crate) fn last(&self) -> Option<Square> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }
}

/// The squares of `bb` (all on one file) from the one nearest the opponent to the one nearest
/// `color`'s own back rank.
pub(crate) fn front_to_back(bb: Bitboard, color: Color) -> Squares {
    let mut out = Squares::EMPTY;
    match color {
        // Ascending index is ascending rank: black's front is its lowest rank.
        Color::Black => bb.for_each(|sq| out.push(sq)),
        Color::Red => {
            let mut rest = bb;
            while let Some(sq) = rest.last() {
                out.push(sq);
                rest = rest.without(sq);
            }
        }
    }
    out
}

/// Pieces of one kind that share a file with another of their kind ("tandem" pieces), file by
/// file from the mover's right (own file 1 first), each file front to back. This is the order
/// of the ordinals 一二三四五 in the xqbase convention.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Tandem {
    /// Every tandem piece in ordinal order.
    pub(crate) all: Squares,
    /// The tandem files (at most two for pawns, one for other kinds), each front to back.
    pub(crate) files: [Squares; 2],
    pub(crate) file_count: usize,
}

pub(crate) fn tandem(pos: &Position, piece: Piece) -> Tandem {
    let mut t = Tandem { all: Squares::EMPTY, files: [Squares::EMPTY; 2], file_count: 0 };
    let pieces = pos.pieces(piece);
    if !pieces.more_than_one() {
        return t;
    }
    for n in 1..=9 {
        let on_file = pieces & OwnFile(n).mask(piece.color);
        if on_file.more_than_one() {
            let sorted = front_to_back(on_file, piece.color);
            for &sq in sorted.as_slice() {
                t.all.push(sq);
            }
            if t.file_count < t.files.len() {
                t.files[t.file_count] = sorted;
                t.file_count += 1;
            }
        }
    }
    t
}

impl Tandem {
    pub(crate) fn files(&self) -> &[Squares] {
        &self.files[..self.file_count]
    }
    /// The front piece of each tandem file.
    pub(crate) fn fronts(&self) -> Bitboard {
        self.files().iter().filter_map(Squares::first).collect()
    }
    /// The rear piece of each tandem file.
    pub(crate) fn rears(&self) -> Bitboard {
        self.files().iter().filter_map(Squares::last).collect()
    }
    /// The middle piece of each tandem file with an odd count.
    pub(crate) fn middles(&self) -> Bitboard {
        self.files().iter().filter_map(Squares::middle).collect()
    }
}

/// Where the piece on `from` goes for a move `dir` with number `num` (steps for pieces moving
/// along a file, destination file otherwise), or `None` if that describes no geometric move.
pub(crate) fn target(piece: Piece, from: Square, dir: Dir, num: u8) -> Option<Square> {
    let forward: i32 = piece.color.fold(1, -1);
    match piece.role {
        Role::King | Role::Rook | Role::Cannon | Role::Pawn => match dir {
            Dir::Forward => from.offset(0, forward * num as i32),
            Dir::Backward => from.offset(0, -forward * num as i32),
            Dir::Traverse => {
                let file = OwnFile::new(num)?.index(piece.color) as i32;
                let df = file - from.file().index() as i32;
                if df == 0 {
                    None
                } else {
                    from.offset(df, 0)
                }
            }
        },
        Role::Horse | Role::Elephant | Role::Advisor => {
            let df = OwnFile::new(num)?.index(piece.color) as i32 - from.file().index() as i32;
            let dr = match (piece.role, df.abs()) {
                (Role::Horse, 1) => 2,
                (Role::Horse, 2) => 1,
                (Role::Elephant, 2) => 2,
                (Role::Advisor, 1) => 1,
                _ => return None,
            };
            match dir {
                Dir::Forward => from.offset(df, forward * dr),
                Dir::Backward => from.offset(df, -forward * dr),
                Dir::Traverse => None,
            }
        }
    }
}

/// The one legal move that a piece of `candidates` makes for `dir` and `num`: no candidate is
/// [`ParseMoveError::NoSuchPiece`], none that can is `Illegal`, several that can is `Ambiguous`.
pub(crate) fn resolve(
    pos: &Position,
    token: &str,
    piece: Piece,
    candidates: Bitboard,
    dir: Dir,
    num: u8,
) -> Result<Move, ParseMoveError> {
    if candidates.is_empty() {
        return Err(ParseMoveError::NoSuchPiece { token: token.to_string() });
    }
    let mut found: Option<Move> = None;
    let mut several = false;
    for from in candidates {
        if let Some(to) = target(piece, from, dir, num) {
            if pos.is_legal(Move::new(from, to)) {
                several |= found.is_some();
                found.get_or_insert(Move::new(from, to));
            }
        }
    }
    match found {
        None => Err(ParseMoveError::Illegal { token: token.to_string() }),
        Some(m) if !several => Ok(m),
        Some(_) => {
            let candidates = candidates
                .filter_map(|from| {
                    target(piece, from, dir, num)
                        .filter(|&to| pos.is_legal(Move::new(from, to)))
                        .map(|to| Move::new(from, to))
                })
                .collect();
            Err(ParseMoveError::Ambiguous { token: token.to_string(), candidates })
        }
    }
}

/// A move described in the shared model, for formatting. `file` is the mover's own file of the
/// from-square; naming among tandem pieces is left to each notation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Described {
    pub(crate) piece: Piece,
    pub(crate) file: OwnFile,
    pub(crate) dir: Dir,
    pub(crate) num: u8,
}

/// Describes `m`, or `None` if no piece of the side to move stands on its from-square.
pub(crate) fn describe(pos: &Position, m: Move) -> Option<Described> {
    let (from, to) = (m.from(), m.to());
    let piece = pos.piece_at(from).filter(|p| p.color == pos.turn())?;
    let color = piece.color;
    let advance = (to.rank().index() as i32 - from.rank().index() as i32) * color.fold(1, -1);
    let dir = match advance {
        0 => Dir::Traverse,
        a if a > 0 => Dir::Forward,
        _ => Dir::Backward,
    };
    let along_file = matches!(piece.role, Role::King | Role::Rook | Role::Cannon | Role::Pawn) && dir != Dir::Traverse;
    let num = if along_file { advance.unsigned_abs() as u8 } else { OwnFile::of(color, to).get() };
    Some(Described { piece, file: OwnFile::of(color, from), dir, num })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_count_from_each_side_right() {
        let h2: Square = "h2".parse().unwrap();
        assert_eq!(OwnFile::of(Color::Red, h2).get(), 2);
        assert_eq!(OwnFile::of(Color::Black, h2).get(), 8);
        assert_eq!(OwnFile(1).index(Color::Red), 8);
        assert_eq!(OwnFile(1).index(Color::Black), 0);
        assert_eq!(OwnFile(5).mask(Color::Red).count(), 10);
    }

    #[test]
    fn front_is_toward_the_opponent() {
        let bb: Bitboard = ["c3", "c6", "c4"].iter().map(|s| s.parse::<Square>().unwrap()).collect();
        let red: Vec<String> = front_to_back(bb, Color::Red).as_slice().iter().map(|s| s.to_string()).collect();
        let black: Vec<String> = front_to_back(bb, Color::Black).as_slice().iter().map(|s| s.to_string()).collect();
        assert_eq!(red, ["c6", "c4", "c3"]);
        assert_eq!(black, ["c3", "c4", "c6"]);
    }
}
