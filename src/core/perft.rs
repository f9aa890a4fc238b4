//! Perft: counting the leaves of the legal move tree, the standard proof of a move generator.

use super::moves::{Move, MoveList};
use super::position::Position;

/// The deepest perft the command line accepts. Each ply is one recursive call holding a move
/// list, so a depth in the thousands overflows the stack; depth 10 from the start position already
/// counts about 10^15 leaves, so nothing useful lies beyond this bound.
pub const MAX_DEPTH: u32 = 64;

/// Leaf count at `depth` (at most [`MAX_DEPTH`]), making and unmaking every move down to the leaves (no bulk counting:
/// each leaf is reached by a real make/unmake, only the empty recursive call is skipped).
///
/// ```
/// use qiku::core::perft::perft;
/// use qiku::Position;
///
/// // The published counts of the start position.
/// let mut pos = Position::startpos();
/// assert_eq!(perft(&mut pos, 1), 44);
/// assert_eq!(perft(&mut pos, 2), 1_920);
/// assert_eq!(perft(&mut pos, 3), 79_666);
/// assert_eq!(pos, Position::startpos()); // every move was taken back
/// ```
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut nodes = 0;
    for &m in list.iter() {
        let undo = pos.make_move(m);
        nodes += if depth == 1 { std::hint::black_box(1) } else { perft(pos, depth - 1) };
        pos.unmake_move(m, undo);
    }
    nodes
}

/// Leaf count at `depth` (at most [`MAX_DEPTH`]) with bulk counting: at depth 1 the length of the move list is the count.
///
/// ```
/// use qiku::core::perft::{perft, perft_bulk};
/// use qiku::Position;
///
/// let mut pos = Position::from_fen("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")?;
/// assert_eq!(perft_bulk(&mut pos, 2), perft(&mut pos, 2));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn perft_bulk(pos: &mut Position, depth: u32) -> u64 {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    if depth <= 1 {
        return if depth == 0 { 1 } else { list.len() as u64 };
    }
    let mut nodes = 0;
    for &m in list.iter() {
        let undo = pos.make_move(m);
        nodes += perft_bulk(pos, depth - 1);
        pos.unmake_move(m, undo);
    }
    nodes
}

/// Per-root-move counts, sorted by move in ICCS order. At depth 0 no move is played: the one
/// leaf is the position itself, under no root move, and the list is empty.
///
/// ```
/// use qiku::core::perft::{divide, perft};
/// use qiku::Position;
///
/// let mut pos = Position::startpos();
/// let split = divide(&mut pos, 2);
/// assert_eq!(split.len(), 44);
/// assert_eq!(split.iter().map(|&(_, n)| n).sum::<u64>(), perft(&mut pos, 2));
/// assert_eq!(split[0].0.to_string(), "a0a1"); // sorted in ICCS order
/// assert!(divide(&mut pos, 0).is_empty()); // perft 0 is 1: the position, no move
/// ```
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut out: Vec<(Move, u64)> = pos
        .moves()
        .iter()
        .map(|&m| {
            let undo = pos.make_move(m);
            let n = if depth == 1 { 1 } else { perft_bulk(pos, depth - 1) };
            pos.unmake_move(m, undo);
            (m, n)
        })
        .collect();
    out.sort_by_key(|(m, _)| m.to_string());
    out
}
