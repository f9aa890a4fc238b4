//! Endgame scaling for drawish material: how much of an evaluation's advantage the side ahead
//! can turn into a win, by the material alone, where the endgame tables know the answer.
//!
//! A side with no attacking piece (rook, horse, cannon or pawn) cannot win, whatever else it has:
//! its advantage counts for nothing. A side whose only attacking piece is one rook, horse, cannon
//! or pawn, against guards (advisors and elephants) alone, wins only some of the time: a lone
//! horse against two advisors almost never, a lone cannon without a guard of its own to use as a
//! screen never.
//! [`SCALE`] gives, for each such material, the share of its positions the side with the piece
//! wins under the plain rules (both sides to move, averaged), in sixteenths; the evaluation
//! keeps that share of the advantage. Every other material counts in full.
//!
//! The shares were read from the tables of every such ending (`qiku-tb generate --family a`,
//! then `qiku-tb stats --rules plain --json` of each; `benches/drawish_scale.py` does both and
//! prints [`SCALE`]). A test generates the small ones again and checks the compiled numbers.
//! The search still sees the true outcome when tables are loaded: the tables are probed inside
//! the tree, and their values replace the evaluation's.

use crate::core::{Color, Piece, Position, Role};

/// The scale of an advantage that counts in full, in sixteenths.
pub const FULL: i32 = 16;

/// The attacking roles in [`SCALE`]'s order.
pub const ATTACKERS: [Role; 4] = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn];

/// The share of wins, in sixteenths, of a side whose only attacking piece is one of
/// [`ATTACKERS`] against guards alone:
/// `SCALE[attacker][own advisors][own elephants][enemy advisors][enemy elephants]`.
pub const SCALE: [[[[[u8; 3]; 3]; 3]; 3]; 4] = include!("drawish_scale.in");

/// How much of an advantage of `c` counts, in sixteenths of it ([`FULL`] for most positions):
/// none when `c` has no attacking piece, the table's share when its only attacking piece faces
/// guards alone.
///
/// ```
/// use qiku::engine::drawish::{scale, FULL};
/// use qiku::{Color, Position};
///
/// // A lone horse against two advisors: a draw but for a few positions.
/// let pos = Position::from_fen("3aka3/9/9/9/9/9/9/9/9/3KN4 w")?;
/// assert!(scale(&pos, Color::Red) <= 1);
/// // Black has no attacking piece: whatever its guards are worth, it cannot win.
/// assert_eq!(scale(&pos, Color::Black), 0);
/// // The starting position: every advantage counts.
/// assert_eq!(scale(&Position::startpos(), Color::Red), FULL);
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn scale(pos: &Position, c: Color) -> i32 {
    let attacking = pos.attacking_pieces();
    let ours = attacking & pos.by_color(c);
    if ours.is_empty() {
        return 0;
    }
    if ours.more_than_one() || (attacking & pos.by_color(!c)).any() {
        return FULL;
    }
    let Some(role) = ours.first().and_then(|sq| pos.piece_at(sq)).map(|p| p.role) else { return FULL };
    let Some(r) = ATTACKERS.iter().position(|&a| a == role) else { return FULL };
    let count = |c: Color, role: Role| (pos.pieces(Piece::new(c, role)).count() as usize).min(2);
    let v = SCALE[r][count(c, Role::Advisor)][count(c, Role::Elephant)][count(!c, Role::Advisor)]
        [count(!c, Role::Elephant)];
    i32::from(v)
}

/// Does the scaling change anything for either side here (a side without attacking pieces, or
/// with one against guards alone)? The tuner leaves such positions out: its fit is linear in
/// the evaluation's terms, and the scale multiplies them.
///
/// ```
/// use qiku::engine::drawish::applies;
/// use qiku::Position;
///
/// // A lone horse against two advisors: scaled.
/// assert!(applies(&Position::from_fen("3aka3/9/9/9/9/9/9/9/9/3KN4 w")?));
/// assert!(!applies(&Position::startpos()));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn applies(pos: &Position) -> bool {
    scale(pos, Color::Red) < FULL || scale(pos, Color::Black) < FULL
}
