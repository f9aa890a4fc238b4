//! Static evaluation, in the spirit of the classic Xiangqi programs (ElephantEye, XQWLight and
//! their descendants): material, piece-square tables by role, mobility, the attack/defence
//! relations between pieces, king safety and a few placement terms, blended between middlegame and
//! endgame by the attacking material left on the board, and a material imbalance (what each piece
//! is worth beside the others, own and enemy). Every table is written from red's point of view
//! with black's back rank (rank 9) on the first row, as the board is drawn; black
//! pieces read the table with the ranks flipped. The tables are left-right symmetric, so the
//! evaluation of a position and of its mirror image are equal (tested). `docs/ENGINE.md`
//! describes every term.
//!
//! The numbers (material, tables and [`Weights::DEFAULT`]) are fitted to master-game results by
//! `qiku tune` (Texel's method, `qiku::tune`); the note above [`MATERIAL`] says how. They live in
//! the child module `params` (`src/engine/eval/params.rs`), where the tuner's output is pasted.
//!
//! The evaluation is a pure function of the placement and the side to move: no hidden state, so
//! it can be called from any number of search threads.

use crate::core::attacks;
use crate::core::{Bitboard, Color, Piece, Position, Role, Square};

mod params;

pub use params::{pst, table_cell, Pair, PieceSquareTables, Table, Value, Weights, MATERIAL, PIECE_VALUE, PST, PST_EG};
use params::{Lookup, COMPILED};

/// The score (kept with [`Value`], the scale it belongs to) of delivering mate now; a mate in `n` plies scores `MATE - n`.
pub const MATE: Value = 30_000;
/// Scores beyond this (either sign) are mates or tablebase wins at a known distance.
pub const MATE_BOUND: Value = MATE - 1_000;

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
///
/// ```
/// use qiku::engine::eval::{breakdown, Weights};
/// use qiku::Position;
///
/// // The start position is symmetric: every term is 0 but the side to move's bonus.
/// let b = breakdown(&Position::startpos(), &Weights::DEFAULT);
/// assert_eq!((b.phase, b.material, b.total), (48, 0, b.tempo));
/// let t = b.tempo;
/// let words = format!("material 0 pst 0 mobility 0 relations 0 king safety 0 structure 0 tempo {t} = {t}");
/// assert_eq!(b.to_string(), words + " (phase 48/48)");
/// ```
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
    /// Piece placement beyond the tables: horses by their reach, rooks on open files, connected
    /// pawns, complete guards.
    pub structure: Value,
    /// The side to move's bonus.
    pub tempo: Value,
    /// What drawish material takes back from the side ahead (zero unless that side has no
    /// attacking piece, or only one against guards alone: [`super::drawish`]).
    pub drawish: Value,
    /// The sum, as the search sees it (red's view).
    pub total: Value,
}

impl std::fmt::Display for Breakdown {
    /// `material 0 pst 0 mobility 0 relations 0 king safety 0 structure 0 tempo 10 = 10 (phase
    /// 48/48)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "material {} pst {} mobility {} relations {} king safety {} structure {} tempo {}",
            self.material, self.pst, self.mobility, self.relations, self.king_safety, self.structure, self.tempo,
        )?;
        if self.drawish != 0 {
            write!(f, " drawish {}", self.drawish)?;
        }
        write!(f, " = {} (phase {}/{PHASE_MAX})", self.total, self.phase)
    }
}

/// The evaluation from the side to move's point of view.
///
/// ```
/// use qiku::engine::eval::{breakdown, evaluate, Weights};
/// use qiku::Position;
///
/// let w = Weights::DEFAULT;
/// // The start position is symmetric: either side to move sees the same value.
/// let start = Position::startpos();
/// let black_to_move = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")?;
/// assert_eq!(evaluate(&start, &w), evaluate(&black_to_move, &w));
/// // A rook up: good for red to move, as bad for black to move.
/// let red = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 w")?;
/// let black = Position::from_fen("3k5/9/9/9/9/9/9/9/R8/4K4 b")?;
/// assert!(evaluate(&red, &w) > 500);
/// assert!(evaluate(&black, &w) < -500);
/// assert_eq!(evaluate(&red, &w), breakdown(&red, &w).total); // red's view when red moves
/// assert_eq!(evaluate(&red, &w), evaluate(&red.mirror(), &w)); // left-right symmetric
/// # Ok::<(), qiku::PositionError>(())
/// ```
#[inline]
pub fn evaluate(pos: &Position, w: &Weights) -> Value {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: `evaluate_popcnt` only enables POPCNT, which this CPU has (just checked).
        return unsafe { evaluate_popcnt(pos, w) };
    }
    evaluate_portable(pos, w)
}

/// [`evaluate`] compiled with the POPCNT instruction: the evaluation counts many square sets,
/// and the baseline x86-64 target counts bits without it, several times slower. The same code,
/// so the same value.
///
/// # Safety
///
/// The CPU must support POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn evaluate_popcnt(pos: &Position, w: &Weights) -> Value {
    evaluate_portable(pos, w)
}

/// [`evaluate`] for any CPU (inlined into [`evaluate_popcnt`] to be compiled with POPCNT).
#[inline(always)]
fn evaluate_portable(pos: &Position, w: &Weights) -> Value {
    let v = breakdown_in(pos, &COMPILED, &MATERIAL, w).total;
    match pos.turn() {
        Color::Red => v,
        Color::Black => -v,
    }
}

/// Per side: what each role attacks, and everything attacked.
struct Attacks {
    by_role: [[Bitboard; 7]; 2],
    all: [Bitboard; 2],
    /// Every square each side's cannons can move to (quiet moves and captures).
    cannon_moves: [Bitboard; 2],
}

/// What `piece` on `sq` attacks (the tuner's trace; the evaluation itself works role by role).
#[cfg(any(test, feature = "tune"))]
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

/// One side's pieces of one role, summed: see [`scan_role`].
struct RoleScan {
    /// How many there are.
    pieces: i32,
    /// Their piece-square bonuses.
    pst: Pair,
    /// Every square they attack.
    attacks: Bitboard,
    /// Their mobility: reachable squares, counted per piece.
    reach: i32,
    /// Every square they can move to.
    moves: Bitboard,
    /// How many attack the enemy king's zone.
    pressing: i32,
    /// Their bonuses by reach count (horses: [`Weights::horse_reach`]).
    by_reach: Pair,
}

/// Sums the evaluation's per-piece terms over the pieces `piece` on the board; `attack(sq)`
/// gives a piece's attacks and its reachable squares from `sq`.
#[inline(always)]
fn scan_role(
    pos: &Position,
    tables: &impl Lookup,
    piece: Piece,
    zone: Bitboard,
    by_reach: &[Pair],
    attack: impl Fn(Square) -> (Bitboard, Bitboard),
) -> RoleScan {
    let zero = Pair { mg: 0, eg: 0 };
    let mut scan = RoleScan {
        pieces: 0,
        pst: zero,
        attacks: Bitboard::EMPTY,
        reach: 0,
        moves: Bitboard::EMPTY,
        pressing: 0,
        by_reach: zero,
    };
    for sq in pos.pieces(piece) {
        let (a, reach) = attack(sq);
        if let Some(b) = by_reach.get(reach.count() as usize) {
            scan.by_reach.mg += b.mg;
            scan.by_reach.eg += b.eg;
        }
        scan.pieces += 1;
        let v = tables.pst(piece, sq);
        scan.pst.mg += v.mg;
        scan.pst.eg += v.eg;
        scan.attacks |= a;
        scan.reach += reach.count() as i32;
        scan.moves |= reach;
        scan.pressing += i32::from((a & zone).any());
    }
    scan
}

/// Blends a pair by phase.
#[inline]
pub(crate) fn taper(v: Pair, phase: i32) -> Value {
    (v.mg * phase + v.eg * (PHASE_MAX - phase)) / PHASE_MAX
}

/// Every term of the evaluation, red's point of view.
///
/// ```
/// use qiku::engine::eval::{breakdown, Weights};
/// use qiku::Position;
///
/// // Red is a rook up, black to move: the terms are red's view all the same.
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")?;
/// let b = breakdown(&pos, &Weights::DEFAULT);
/// assert!(b.material > 500);
/// let terms = b.material + b.pst + b.mobility + b.relations + b.king_safety + b.structure + b.tempo;
/// assert_eq!(terms + b.drawish, b.total);
/// assert_eq!(b.phase, 42); // one rook (6) of 48 gone
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn breakdown(pos: &Position, w: &Weights) -> Breakdown {
    breakdown_in(pos, &COMPILED, &MATERIAL, w)
}

/// [`breakdown`] with other material and piece-square tables (the tuner's reference evaluation).
///
/// ```
/// use qiku::engine::eval::{breakdown, breakdown_with, PieceSquareTables, Weights};
/// use qiku::{Position, Role};
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let w = Weights::DEFAULT;
/// assert_eq!(breakdown_with(&pos, &PieceSquareTables::DEFAULT, &w), breakdown(&pos, &w));
/// // A rook worth 100 more: red's extra rook adds 100 to the material term.
/// let mut tables = PieceSquareTables::DEFAULT;
/// tables.material[Role::Rook.index()].mg += 100;
/// tables.material[Role::Rook.index()].eg += 100;
/// assert_eq!(breakdown_with(&pos, &tables, &w).material, breakdown(&pos, &w).material + 100);
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn breakdown_with(pos: &Position, tables: &PieceSquareTables, w: &Weights) -> Breakdown {
    breakdown_in(pos, tables, &tables.material, w)
}

/// [`breakdown_with`], reading the tables through `tables`.
#[inline(always)]
fn breakdown_in(pos: &Position, tables: &impl Lookup, material_values: &[Pair; 7], w: &Weights) -> Breakdown {
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);

    let mut material = [0; 2];
    let mut pst_sum = [Pair { mg: 0, eg: 0 }; 2];
    let mut mobility = [Pair { mg: 0, eg: 0 }; 2];
    // The horses' bonuses by reach, counted with the placement terms.
    let mut horse_reach = [Pair { mg: 0, eg: 0 }; 2];
    let mut att =
        Attacks { by_role: [[Bitboard::EMPTY; 7]; 2], all: [Bitboard::EMPTY; 2], cannon_moves: [Bitboard::EMPTY; 2] };
    // Attacking units per side aimed at the other king's zone.
    let mut pressure = [0i32; 2];
    let zones = [king_zone(pos.king(Color::Red)), king_zone(pos.king(Color::Black))];
    let mut counts = [[0i32; 7]; 2];

    // Tapered once per role, for both sides (the same phase).
    let material_tapered = material_values.map(|v| taper(v, phase));
    for c in Color::ALL {
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        let zone = zones[(!c).index()];
        let ci = c.index();
        // Each role with its own attack function, so that no loop dispatches on the role; each
        // role's sums are added as soon as it is scanned: straight-line code with the role a
        // constant (a macro, as a closure here was not inlined: 6% more instructions a node).
        macro_rules! scan {
            ($r:expr, $by_reach:expr, $attack:expr $(,)?) => {{
                let r: Role = $r;
                let scan = scan_role(pos, tables, Piece::new(c, r), zone, $by_reach, $attack);
                let ri = r.index();
                material[ci] += scan.pieces * material_tapered[ri];
                counts[ci][ri] = scan.pieces;
                pst_sum[ci].mg += scan.pst.mg;
                pst_sum[ci].eg += scan.pst.eg;
                att.by_role[ci][ri] = scan.attacks;
                att.all[ci] |= scan.attacks;
                let mw = w.mobility[ri];
                mobility[ci].mg += mw.mg * scan.reach;
                mobility[ci].eg += mw.eg * scan.reach;
                pressure[ci] += scan.pressing
                    * match r {
                        Role::Rook | Role::Horse => 3,
                        Role::Cannon | Role::Pawn => 2,
                        _ => 0,
                    };
                scan
            }};
        }
        scan!(Role::King, &[], |sq| {
            let a = attacks::king_attacks(sq);
            (a, a - own)
        });
        scan!(Role::Advisor, &[], |sq| {
            let a = attacks::advisor_attacks(sq);
            (a, a - own)
        });
        scan!(Role::Elephant, &[], |sq| {
            let a = attacks::elephant_attacks(sq, occ);
            (a, a - own)
        });
        let horses = scan!(Role::Horse, &w.horse_reach, |sq| {
            let a = attacks::horse_attacks(sq, occ);
            (a, a - own)
        });
        scan!(Role::Rook, &[], |sq| {
            let a = attacks::rook_attacks(sq, occ);
            (a, a - own)
        });
        let cannons = scan!(Role::Cannon, &[], |sq| {
            // A cannon moves like a rook but only captures over a screen.
            let a = attacks::cannon_captures(sq, occ);
            (a, (attacks::rook_attacks(sq, occ) - occ) | (a & them))
        });
        scan!(Role::Pawn, &[], |sq| {
            let a = attacks::pawn_attacks(c, sq);
            (a, a - own)
        });
        horse_reach[ci] = horses.by_reach;
        att.cannon_moves[ci] = cannons.moves;
    }

    material[0] += imbalance(&counts[0], &counts[1], w);
    material[1] += imbalance(&counts[1], &counts[0], w);
    let relations = [relations(pos, &att, Color::Red, w), relations(pos, &att, Color::Black, w)];
    let safety = [
        king_safety(pos, &att, Color::Red, pressure[1], phase, w),
        king_safety(pos, &att, Color::Black, pressure[0], phase, w),
    ];
    let structure = [structure(pos, Color::Red, horse_reach[0], w), structure(pos, Color::Black, horse_reach[1], w)];
    let b = Sides { phase, material, pst: pst_sum, mobility, relations, safety, structure }.breakdown(pos.turn(), w);
    scale_drawish(pos, b)
}

/// The side ahead keeps only the share of its advantage that its material can win
/// ([`super::drawish`]): sets [`Breakdown::drawish`] and the total.
#[inline(always)]
fn scale_drawish(pos: &Position, mut b: Breakdown) -> Breakdown {
    let ahead = match b.total {
        t if t > 0 => Some(Color::Red),
        t if t < 0 => Some(Color::Black),
        _ => None,
    };
    if let Some(c) = ahead {
        let scale = super::drawish::scale(pos, c);
        if scale < super::drawish::FULL {
            b.drawish = b.total * scale / super::drawish::FULL - b.total;
            b.total += b.drawish;
        }
    }
    b
}

/// The material imbalance of a side with `own` pieces per role against `them` (see
/// [`Weights::imbalance_own`]).
#[inline(always)]
pub(crate) fn imbalance(own: &[i32; 7], them: &[i32; 7], w: &Weights) -> Value {
    let mut v = 0;
    for i in 1..7 {
        if own[i] == 0 {
            continue;
        }
        let with_own: Value = w.imbalance_own[i][i..].iter().zip(&own[i..]).map(|(a, n)| a * n).sum();
        let with_them: Value = w.imbalance_them[i][1..].iter().zip(&them[1..]).map(|(a, n)| a * n).sum();
        v += own[i] * (with_own + with_them);
    }
    v / 16
}

/// Every square of the file of each square.
static FILE_OF: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut sq = 0;
    while sq < 90 {
        let mut rank = 0;
        while rank < 10 {
            t[sq] |= 1u128 << (rank * 9 + sq % 9);
            rank += 1;
        }
        sq += 1;
    }
    t
};

/// Every square but those of file i (the last file).
const NOT_LAST_FILE: u128 = {
    let mut m = 0u128;
    let mut sq = 0;
    while sq < 90 {
        if sq % 9 != 8 {
            m |= 1u128 << sq;
        }
        sq += 1;
    }
    m
};

/// How many of each placement term `c` scores: rooks on open and half-open files, side-by-side
/// crossed pawns, complete guards. Shared with the tuner's trace.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StructureCounts {
    pub rook_open: i32,
    pub rook_half_open: i32,
    pub connected: i32,
    pub guards_complete: i32,
}

/// Counts [`StructureCounts`] for `c`.
#[inline(always)]
pub(crate) fn structure_counts(pos: &Position, c: Color) -> StructureCounts {
    let mut k = StructureCounts::default();
    let mine = pos.pieces(Piece::new(c, Role::Pawn)).0;
    let theirs = pos.pieces(Piece::new(!c, Role::Pawn)).0;
    for sq in pos.pieces(Piece::new(c, Role::Rook)) {
        let file = FILE_OF[sq.index()];
        if mine & file == 0 {
            if theirs & file == 0 {
                k.rook_open += 1;
            } else {
                k.rook_half_open += 1;
            }
        }
    }
    // A crossed pawn with another on the next file of its rank (both are then across).
    let crossed = mine & attacks::home_half(!c).0;
    k.connected = (crossed & (crossed >> 1) & NOT_LAST_FILE).count_ones() as i32;
    let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() + pos.pieces(Piece::new(c, Role::Elephant)).count();
    k.guards_complete = i32::from(guards == 4);
    k
}

/// The placement terms of `c` (middlegame, endgame), with its horses' bonuses by reach
/// (`horse_reach`, summed while the horses are scanned).
#[inline(always)]
fn structure(pos: &Position, c: Color, horse_reach: Pair, w: &Weights) -> Pair {
    let k = structure_counts(pos, c);
    let mut v = horse_reach;
    let mut add = |n: i32, x: Pair| {
        v.mg += n * x.mg;
        v.eg += n * x.eg;
    };
    add(k.rook_open, w.rook_open_file);
    add(k.rook_half_open, w.rook_half_open_file);
    add(k.connected, w.connected_pawns);
    add(k.guards_complete, w.guards_complete);
    v
}

/// The evaluation's terms per side (red, black), before they are tapered and subtracted.
struct Sides {
    phase: i32,
    material: [Value; 2],
    pst: [Pair; 2],
    mobility: [Pair; 2],
    relations: [Value; 2],
    safety: [Value; 2],
    structure: [Pair; 2],
}

impl Sides {
    /// The breakdown from red's point of view with `turn` to move.
    fn breakdown(self, turn: Color, w: &Weights) -> Breakdown {
        let phase = self.phase;
        let diff = |a: [Value; 2]| a[0] - a[1];
        let mob = [taper(self.mobility[0], phase), taper(self.mobility[1], phase)];
        let pst = [taper(self.pst[0], phase), taper(self.pst[1], phase)];
        let structure = [taper(self.structure[0], phase), taper(self.structure[1], phase)];
        let tempo = match turn {
            Color::Red => w.tempo,
            Color::Black => -w.tempo,
        };
        let mut b = Breakdown {
            phase,
            material: diff(self.material),
            pst: diff(pst),
            mobility: diff(mob),
            relations: diff(self.relations),
            king_safety: diff(self.safety),
            structure: diff(structure),
            tempo,
            drawish: 0,
            total: 0,
        };
        b.total = b.material + b.pst + b.mobility + b.relations + b.king_safety + b.structure + b.tempo;
        b
    }
}

/// The king's square and its orthogonal and diagonal neighbours.
#[inline]
pub(crate) fn king_zone(k: Square) -> Bitboard {
    Bitboard::from_square(k) | attacks::orthogonal_neighbours(k) | attacks::diagonal_neighbours(k)
}

/// Attack/defence relations of `c`'s pieces: defended pieces earn a small bonus; pieces that are
/// attacked and undefended, or attacked by a cheaper piece, are threats. Only the side to move's
/// threats are charged here: the opponent's hanging pieces are won by the quiescence search.
#[inline(always)]
fn relations(pos: &Position, att: &Attacks, c: Color, w: &Weights) -> Value {
    let (us, them) = (c.index(), (!c).index());
    let defended = att.all[us];
    let mut bonus = 0;
    for r in &Role::ALL[1..] {
        bonus += w.defended[r.index()] * (pos.pieces(Piece::new(c, *r)) & defended).count() as i32;
    }
    if pos.turn() == c {
        // The two largest threats do not depend on the order the pieces are looked at.
        let mut threats = TopThreats::default();
        for sq in (pos.by_color(c) - pos.by_role(Role::King)) & att.all[them] {
            let Some(piece) = pos.piece_at(sq) else { continue };
            threats.add(threat_size(piece.role, defended.contains(sq), sq, &att.by_role[them]));
        }
        bonus -= (threats.first * w.threat_first + threats.second * w.threat_second) / 64;
    }
    bonus
}

/// What a piece of `role` on `sq`, attacked by pieces on `attackers` (by role), stands to lose,
/// in [`PIECE_VALUE`]s: all of it when undefended, else what it is worth above its cheapest
/// attacker. A king cannot take a defended piece, so it does not count as a cheaper attacker.
/// Shared with the tuner's trace, which must read the same threats off a position.
pub(crate) fn threat_size(role: Role, defended: bool, sq: Square, attackers: &[Bitboard; 7]) -> Value {
    let value = PIECE_VALUE[role.index()];
    if !defended {
        return value;
    }
    let cheapest =
        BY_VALUE[..6].iter().find(|r| attackers[r.index()].contains(sq)).map_or(value, |r| PIECE_VALUE[r.index()]);
    (value - cheapest).max(0)
}

/// The two largest threats against one side's pieces (the side to move can save one, rarely two).
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct TopThreats {
    /// The largest.
    pub first: Value,
    /// The second largest.
    pub second: Value,
}

impl TopThreats {
    /// Counts one more threat.
    pub fn add(&mut self, threat: Value) {
        if threat > self.first {
            self.second = self.first;
            self.first = threat;
        } else if threat > self.second {
            self.second = threat;
        }
    }
}

/// King safety of `c`: pressure of enemy pieces on the king zone, missing guards against the
/// enemy's attackers, an enemy cannon on the king's open file, the enemy's safe checks
/// ([`safe_checks`]), and the king danger where these meet ([`Weights::king_danger`]).
#[inline(always)]
fn king_safety(pos: &Position, att: &Attacks, c: Color, enemy_pressure: i32, phase: i32, w: &Weights) -> Value {
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
    let checks = safe_checks(pos, &att.by_role[enemy.index()], att.cannon_moves[enemy.index()], att.all[c.index()], c);
    v -= checks.iter().zip(&w.safe_check).map(|(n, x)| n * x).sum::<Value>();
    let weak = weak_zone_squares(k, &att.by_role[c.index()], att.all[enemy.index()]);
    let danger = danger_counts(checks.iter().sum(), enemy_pressure, 4 - guards, weak);
    v -= danger.iter().zip(&w.king_danger).map(|(n, x)| n * x).sum::<Value>() / 16;
    v
}

/// The squares of the zone around the king at `k` that the enemy attacks (`enemy_attacks`) and
/// no piece of the king's side but the king (`own_attacks`, by role) defends.
#[inline(always)]
pub(crate) fn weak_zone_squares(k: Square, own_attacks: &[Bitboard; 7], enemy_attacks: Bitboard) -> i32 {
    let defended = own_attacks[1..].iter().fold(Bitboard::EMPTY, |a, &b| a | b);
    ((king_zone(k) & enemy_attacks) - defended).count() as i32
}

/// The counts [`Weights::king_danger`] weighs, from the safe checking squares, the enemy's
/// king-zone pressure units, the missing guards and the weak zone squares.
#[inline(always)]
pub(crate) fn danger_counts(checks: i32, pressure: i32, missing_guards: i32, weak: i32) -> [i32; 4] {
    [checks * pressure, checks * missing_guards, weak * pressure, weak]
}

/// How many safe checking squares the enemy's rooks, horses and cannons have against `c`'s
/// king: squares from which the piece would give check (the board otherwise unchanged), that
/// one of them can move to now (`enemy_attacks` by role for rooks and horses,
/// `enemy_cannon_moves` for the cannons: their quiet moves and captures), and that `defended`
/// (everything `c` attacks) does not cover.
#[inline(always)]
pub(crate) fn safe_checks(
    pos: &Position,
    enemy_attacks: &[Bitboard; 7],
    enemy_cannon_moves: Bitboard,
    defended: Bitboard,
    c: Color,
) -> [i32; 3] {
    let k = pos.king(c);
    let occ = pos.occupied();
    let enemy = !c;
    let open = !(pos.by_color(enemy) | defended);
    let rook = attacks::rook_attacks(k, occ) & enemy_attacks[Role::Rook.index()] & open;
    let horse = attacks::horse_attackers(k, occ) & enemy_attacks[Role::Horse.index()] & open;
    let cannon = attacks::cannon_attackers(k, occ) & enemy_cannon_moves & open;
    [rook.count() as i32, horse.count() as i32, cannon.count() as i32]
}

#[cfg(test)]
mod tests;
