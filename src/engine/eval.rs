//! Static evaluation, in the spirit of the classic Xiangqi programs (ElephantEye, XQWLight and
//! their descendants): material, piece-square tables by role, mobility, and the attack/defence
//! relations between pieces, blended between middlegame and endgame by the attacking material
//! left on the board. Every table is written from red's point of view with black's back rank
//! (rank 9) on the first row, as the board is drawn; black pieces read the table with the ranks
//! flipped. The tables are left-right symmetric, so the evaluation of a position and of its mirror
//! image are equal (tested). `docs/ENGINE.md` describes every term.
//!
//! The evaluation is a pure function of the placement and the side to move: no hidden state, so
//! it can be called from any number of search threads.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Position, Role, Square};

/// Scores in centipawn-like units. Uncrossed pawns are weak in Xiangqi, so the unit is smaller
/// than a pawn: a rook is about 900.
pub type Value = i32;

/// The score (kept with [`Value`], the scale it belongs to) of delivering mate now; a mate in `n` plies scores `MATE - n`.
pub const MATE: Value = 30_000;
/// Scores beyond this (either sign) are mates or tablebase wins at a known distance.
pub const MATE_BOUND: Value = MATE - 1_000;

/// A middlegame/endgame pair of values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Middlegame value.
    pub mg: Value,
    /// Endgame value.
    pub eg: Value,
}

const fn p(mg: Value, eg: Value) -> Pair {
    Pair { mg, eg }
}

/// Material by role (king, advisor, elephant, horse, rook, cannon, pawn). The horse gains and the
/// cannon loses as the board empties (a cannon needs screens); a pawn is worth more in the
/// endgame. The piece-square tables add to these.
pub const MATERIAL: [Pair; 7] = [p(0, 0), p(90, 80), p(90, 80), p(390, 420), p(900, 920), p(420, 390), p(40, 70)];

/// Piece-square bonuses, red's view, row 0 = rank 9 (black's back rank), column 0 = file a.
pub type Table = [[i16; 9]; 10];

#[rustfmt::skip]
const KING_PST: Table = [
    [0; 9], [0; 9], [0; 9], [0; 9], [0; 9], [0; 9], [0; 9],
    [0, 0, 0, -12, -12, -12, 0, 0, 0],  // rank 2: a king pushed up is exposed
    [0, 0, 0,  -2,  -2,  -2, 0, 0, 0],  // rank 1
    [0, 0, 0,   8,  12,   8, 0, 0, 0],  // rank 0: at home, best in the centre
];

#[rustfmt::skip]
const ADVISOR_PST: Table = [
    [0; 9], [0; 9], [0; 9], [0; 9], [0; 9], [0; 9], [0; 9],
    [0, 0, 0, -2, 0, -2, 0, 0, 0],      // rank 2
    [0, 0, 0,  0, 6,  0, 0, 0, 0],      // rank 1: the palace centre guards both sides
    [0, 0, 0,  0, 0,  0, 0, 0, 0],      // rank 0
];

#[rustfmt::skip]
const ELEPHANT_PST: Table = [
    [0; 9], [0; 9], [0; 9], [0; 9], [0; 9],
    [0, 0, -2, 0, 0, 0, -2, 0, 0],      // rank 4: at the river the elephant leaves the king
    [0; 9],
    [-4, 0, 0, 0, 6, 0, 0, 0, -4],      // rank 2: e2 links both elephants
    [0; 9],
    [0, 0, 0, 0, 0, 0, 0, 0, 0],        // rank 0
];

#[rustfmt::skip]
const HORSE_PST: Table = [
    [  0, -8,  0,  8,  0,  8,  0, -8,   0],  // rank 9
    [  0,  8, 24, 16,  4, 16, 24,  8,   0],  // rank 8: the "horse at the palace corner" squares
    [  8, 16, 20, 24, 20, 24, 20, 16,   8],
    [  8, 28, 20, 28, 20, 28, 20, 28,   8],
    [  0, 16, 16, 24, 28, 24, 16, 16,   0],  // rank 5: just across the river
    [  0, 12, 18, 20, 24, 20, 18, 12,   0],  // rank 4
    [  4,  8, 12,  8, 16,  8, 12,  8,   4],
    [  4,  4,  8, 10,  0, 10,  8,  4,   4],
    [-12,  0,  4,  8,-24,  8,  4,  0, -12],  // rank 1: a horse on e1 blocks the palace
    [ -8,-12,  0, -8,  0, -8,  0,-12,  -8],  // rank 0
];

#[rustfmt::skip]
const ROOK_PST: Table = [
    [ -4,  8,  4, 14, 16, 14,  4,  8,  -4],  // rank 9
    [  8, 16, 12, 22, 40, 22, 12, 16,   8],  // rank 8: the rook at the enemy's throat
    [  0,  8,  4, 16, 20, 16,  4,  8,   0],
    [ 10, 18, 18, 22, 22, 22, 18, 18,  10],
    [ 12, 16, 16, 20, 22, 20, 16, 16,  12],  // rank 5
    [ 12, 18, 18, 20, 22, 20, 18, 18,  12],  // rank 4: the rook on its river bank
    [  0, 10,  0, 16, 20, 16,  0, 10,   0],
    [-10,  8,  0, 16, 16, 16,  0,  8, -10],
    [ -4,  8,  4, 16,  0, 16,  4,  8,  -4],
    [-20,  8,  0, 16,  0, 16,  0,  8, -20],  // rank 0: an undeveloped corner rook
];

#[rustfmt::skip]
const CANNON_PST: Table = [
    [ 16, 16,  8, -2, -4, -2,  8, 16,  16],  // rank 9: the "bottom cannon" behind the enemy lines
    [ 12, 12,  8,  0, -6,  0,  8, 12,  12],
    [ 10, 10,  8, -2,  0, -2,  8, 10,  10],
    [  8, 14, 14, 12, 16, 12, 14, 14,   8],
    [  8,  8,  8,  8, 16,  8,  8,  8,   8],  // rank 5
    [  6,  8, 14,  8, 16,  8, 14,  8,   6],
    [  8,  8,  8,  8,  8,  8,  8,  8,   8],
    [ 10,  8, 16, 14, 18, 14, 16,  8,  10],  // rank 2: the central cannon on e2
    [  8, 10, 12, 12, 12, 12, 12, 10,   8],
    [  8,  8, 10, 14, 14, 14, 10,  8,   8],  // rank 0
];

#[rustfmt::skip]
const PAWN_PST: Table = [
    [  0,  0,  0,  4,  8,  4,  0,  0,   0],  // rank 9: an "old pawn" on the last rank is weak
    [ 40, 50, 70, 90, 95, 90, 70, 50,  40],  // rank 8: next to the palace
    [ 40, 50, 66, 80, 80, 80, 66, 50,  40],
    [ 40, 48, 56, 62, 66, 62, 56, 48,  40],
    [ 20, 30, 36, 50, 56, 50, 36, 30,  20],  // rank 5: just across the river
    [  0,  0,  8,  0, 14,  0,  8,  0,   0],  // rank 4: advanced to the river bank
    [  0,  0,  0,  0, 10,  0,  0,  0,   0],  // rank 3: start squares
    [0; 9], [0; 9], [0; 9],
];

/// The tables by role index.
pub const PST: [&Table; 7] = [&KING_PST, &ADVISOR_PST, &ELEPHANT_PST, &HORSE_PST, &ROOK_PST, &CANNON_PST, &PAWN_PST];

/// The piece-square bonus for `piece` standing on `sq`.
#[inline]
pub fn pst(piece: Piece, sq: Square) -> Value {
    Tables::DEFAULT.pst(piece, sq)
}

/// The row and column of `piece` on `sq` in its role's table (black reads it with the ranks
/// flipped).
#[inline]
pub fn table_cell(piece: Piece, sq: Square) -> (usize, usize) {
    let rel = match piece.color {
        Color::Red => sq,
        Color::Black => sq.flip(),
    };
    (9 - rel.rank().index(), rel.file().index())
}

/// Material and piece-square tables as one value, so that the tuner (`engine::tune`) can
/// evaluate with tables other than the compiled-in ones; the engine always uses
/// [`Tables::DEFAULT`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tables {
    /// Material by role, as [`MATERIAL`].
    pub material: [Pair; 7],
    /// Piece-square tables by role, as [`PST`].
    pub pst: [Table; 7],
}

impl Tables {
    /// [`MATERIAL`] and [`PST`].
    pub const DEFAULT: Tables = Tables {
        material: MATERIAL,
        pst: [KING_PST, ADVISOR_PST, ELEPHANT_PST, HORSE_PST, ROOK_PST, CANNON_PST, PAWN_PST],
    };

    /// The piece-square bonus for `piece` standing on `sq` in these tables.
    #[inline]
    pub fn pst(&self, piece: Piece, sq: Square) -> Value {
        let (row, col) = table_cell(piece, sq);
        self.pst[piece.role.index()][row][col] as Value
    }
}

/// Weights of the terms beyond material and tables. Kept in one struct so that a term can be
/// switched off (set to zero) for a measured match against the full evaluation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Per reachable square (empty or enemy-occupied), by role.
    pub mobility: [Pair; 7],
    /// Fraction (in 1/64) of a piece's value lost when it is attacked and undefended, or attacked
    /// by a cheaper piece (then the difference counts), for the side to move's second-largest
    /// threat (the side to move can save one piece, rarely two).
    pub threat_second: Value,
    /// The same for the side to move's largest threat (it usually costs a tempo).
    pub threat_first: Value,
    /// Bonus for each non-king piece defended by its own side, by role.
    pub defended: [Value; 7],
    /// Penalty when an enemy cannon stands on the king's file with nothing between (the
    /// "empty-headed cannon": any piece entering the file gives check).
    pub empty_cannon: Pair,
    /// King-zone pressure: per unit squared, where enemy rooks, horses, cannons and pawns that
    /// attack the 3x3 square around the king count 3, 3, 2, 2 units.
    pub king_pressure: Value,
    /// For each missing advisor or elephant, per enemy attacking unit (rook 2, horse or cannon 1).
    pub missing_guard: Value,
    /// Side to move's bonus.
    pub tempo: Value,
}

impl Weights {
    /// The weights the engine plays with (UCI `EvalTerms full`).
    pub const DEFAULT: Weights = Weights {
        mobility: [p(0, 0), p(1, 1), p(1, 1), p(8, 8), p(3, 3), p(2, 2), p(0, 0)],
        threat_second: 24,
        threat_first: 6,
        defended: [0, 2, 2, 6, 4, 5, 3],
        empty_cannon: p(60, 30),
        king_pressure: 2,
        missing_guard: 6,
        tempo: 10,
    };

    /// Material and tables only (for measuring what the other terms are worth).
    pub const BASIC: Weights = Weights {
        mobility: [p(0, 0); 7],
        threat_second: 0,
        threat_first: 0,
        defended: [0; 7],
        empty_cannon: p(0, 0),
        king_pressure: 0,
        missing_guard: 0,
        tempo: 10,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::DEFAULT
    }
}

/// Attacking weight of each role for the game phase: the middlegame lasts while rooks, horses
/// and cannons are on the board.
pub(crate) const PHASE_WEIGHT: [i32; 7] = [0, 0, 0, 3, 6, 3, 0];
/// Phase of the starting position (2 sides x (2 rooks x 6 + 2 horses x 3 + 2 cannons x 3)).
pub const PHASE_MAX: i32 = 48;

/// Roles from cheapest to dearest, for "attacked by a cheaper piece".
pub(crate) const BY_VALUE: [Role; 7] =
    [Role::Pawn, Role::Advisor, Role::Elephant, Role::Horse, Role::Cannon, Role::Rook, Role::King];

/// The evaluation split into its terms, each from red's point of view, for `qiku analyze --eval`
/// and for tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Game phase, from 0 (bare kings) to `PHASE_MAX` (all pieces).
    pub phase: i32,
    /// Material.
    pub material: Value,
    /// Piece-square tables.
    pub pst: Value,
    /// Mobility.
    pub mobility: Value,
    /// Piece relations (cannon screens, connected pieces, ...).
    pub relations: Value,
    /// King safety.
    pub king_safety: Value,
    /// The side to move's bonus.
    pub tempo: Value,
    /// The sum, as the search sees it (red's view).
    pub total: Value,
}

/// The evaluation from the side to move's point of view.
#[inline]
pub fn evaluate(pos: &Position, w: &Weights) -> Value {
    let v = breakdown(pos, w).total;
    match pos.turn() {
        Color::Red => v,
        Color::Black => -v,
    }
}

/// Per side: what each role attacks, and everything attacked.
struct Attacks {
    by_role: [[Bitboard; 7]; 2],
    all: [Bitboard; 2],
}

pub(crate) fn piece_attacks(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    match piece.role {
        Role::King => attacks::king_attacks(sq),
        Role::Advisor => attacks::advisor_attacks(sq),
        Role::Elephant => attacks::elephant_attacks(sq, occ),
        Role::Horse => attacks::horse_attacks(sq, occ),
        Role::Rook => attacks::rook_attacks(sq, occ),
        Role::Cannon => attacks::cannon_captures(sq, occ),
        Role::Pawn => attacks::pawn_attacks(piece.color, sq),
    }
}

/// Blends a pair by phase.
#[inline]
pub(crate) fn taper(v: Pair, phase: i32) -> Value {
    (v.mg * phase + v.eg * (PHASE_MAX - phase)) / PHASE_MAX
}

/// Every term of the evaluation, red's point of view.
pub fn breakdown(pos: &Position, w: &Weights) -> Breakdown {
    breakdown_with(pos, &Tables::DEFAULT, w)
}

/// [`breakdown`] with other material and piece-square tables (the tuner's reference evaluation).
#[inline]
pub fn breakdown_with(pos: &Position, tables: &Tables, w: &Weights) -> Breakdown {
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);

    let mut material = [0; 2];
    let mut pst_sum = [0; 2];
    let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
    let mut att = Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2] };
    // Attacking units per side aimed at the other king's zone.
    let mut pressure = [0i32; 2];
    let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];

    for c in Color::ALL {
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        for r in Role::ALL {
            let piece = Piece::new(c, r);
            for sq in pos.pieces(piece) {
                material[c.index()] += taper(tables.material[r.index()], phase);
                pst_sum[c.index()] += tables.pst(piece, sq);
                let a = piece_attacks(piece, sq, occ);
                att.by_role[c.index()][r.index()] |= a;
                let reach = match r {
                    // A cannon moves like a rook but only captures over a screen.
                    Role::Cannon => (attacks::rook_attacks(sq, occ) - occ) | (a & them),
                    _ => a - own,
                };
                let n = reach.count() as i32;
                let mw = w.mobility[r.index()];
                mobility[c.index()].mg += mw.mg * n;
                mobility[c.index()].eg += mw.eg * n;
                if (a & zones[(!c).index()]).any() {
                    pressure[c.index()] += match r {
                        Role::Rook | Role::Horse => 3,
                        Role::Cannon | Role::Pawn => 2,
                        _ => 0,
                    };
                }
            }
        }
        att.all[c.index()] = att.by_role[c.index()].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    }

    let relations = [
        relations(pos, &att, Color::Red, &tables.material, w),
        relations(pos, &att, Color::Black, &tables.material, w),
    ];
    let safety =
        [king_safety(pos, Color::Red, pressure[1], phase, w), king_safety(pos, Color::Black, pressure[0], phase, w)];

    let diff = |a: [Value; 2]| a[0] - a[1];
    let mob = [taper(mobility[0], phase), taper(mobility[1], phase)];
    let tempo = match pos.turn() {
        Color::Red => w.tempo,
        Color::Black => -w.tempo,
    };
    let mut b = Breakdown {
        phase,
        material: diff(material),
        pst: diff(pst_sum),
        mobility: diff(mob),
        relations: diff(relations),
        king_safety: diff(safety),
        tempo,
        total: 0,
    };
    b.total = b.material + b.pst + b.mobility + b.relations + b.king_safety + b.tempo;
    b
}

/// The king's square and its orthogonal and diagonal neighbours.
pub(crate) fn king_zone(k: Square) -> Bitboard {
    let mut z = Bitboard::from_square(k);
    for (df, dr) in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)] {
        if let Some(s) = k.offset(df, dr) {
            z = z.with(s);
        }
    }
    z
}

/// Attack/defence relations of `c`'s pieces: defended pieces earn a small bonus; pieces that are
/// attacked and undefended, or attacked by a cheaper piece, are threats. Only the side to move's
/// threats are charged here: the opponent's hanging pieces are won by the quiescence search.
fn relations(pos: &Position, att: &Attacks, c: Color, material: &[Pair; 7], w: &Weights) -> Value {
    let (us, them) = (c.index(), (!c).index());
    let mut bonus = 0;
    let (mut first, mut second) = (0, 0);
    let mut pieces = pos.by_color(c) - pos.by_role(Role::King);
    while let Some(sq) = pieces.first() {
        pieces = pieces.without(sq);
        let Some(piece) = pos.piece_at(sq) else { continue };
        let defended = att.all[us].contains(sq);
        if defended {
            bonus += w.defended[piece.role.index()];
        }
        if !att.all[them].contains(sq) {
            continue;
        }
        let value = material[piece.role.index()].mg;
        let threat = if !defended {
            value
        } else {
            // A king cannot take a defended piece, so it does not count as a cheaper attacker.
            let cheapest = BY_VALUE[..6]
                .iter()
                .find(|r| att.by_role[them][r.index()].contains(sq))
                .map_or(value, |r| material[r.index()].mg);
            (value - cheapest).max(0)
        };
        if threat > first {
            second = first;
            first = threat;
        } else if threat > second {
            second = threat;
        }
    }
    if pos.turn() == c {
        bonus -= (first * w.threat_first + second * w.threat_second) / 64;
    }
    bonus
}

/// King safety of `c`: pressure of enemy pieces on the king zone, missing guards against the
/// enemy's attackers, and an enemy cannon on the king's open file.
fn king_safety(pos: &Position, c: Color, enemy_pressure: i32, phase: i32, w: &Weights) -> Value {
    let k = pos.king(c);
    let mut v = -(enemy_pressure * enemy_pressure * w.king_pressure);
    let enemy = !c;
    let units = 2 * pos.pieces(Piece::new(enemy, Role::Rook)).count() as i32
        + pos.pieces(Piece::new(enemy, Role::Horse)).count() as i32
        + pos.pieces(Piece::new(enemy, Role::Cannon)).count() as i32;
    let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() as i32
        + pos.pieces(Piece::new(c, Role::Elephant)).count() as i32;
    v -= (4 - guards) * units * w.missing_guard;
    let occ = pos.occupied();
    for cannon in pos.pieces(Piece::new(enemy, Role::Cannon)) {
        if cannon.file() == k.file() && (attacks::between(cannon, k) & occ).is_empty() {
            v -= taper(w.empty_cannon, phase);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_left_right_symmetric() {
        for (role, table) in PST.iter().enumerate() {
            for row in table.iter() {
                for f in 0..9 {
                    assert_eq!(row[f], row[8 - f], "role {role}");
                }
            }
        }
    }

    #[test]
    fn start_position_is_balanced_but_for_tempo() {
        let pos = Position::startpos();
        let b = breakdown(&pos, &Weights::DEFAULT);
        assert_eq!(b.total, Weights::DEFAULT.tempo, "{b:?}");
        assert_eq!(b.phase, PHASE_MAX);
    }
}
