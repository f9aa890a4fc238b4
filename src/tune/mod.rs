//! Texel tuning of the evaluation: fit the evaluation's weights to game results by logistic
//! regression over quiet positions.
//!
//! The steps, each a public function so that `qiku tune` (in `cli::tune`) only wires them up:
//! 1. [`collect::collect`] reads PGN collections, replays every game with a result, skips the opening plies,
//!    keeps a deterministic sample of the positions (by a hash of game and ply) that are not in
//!    check and quiet (a capture-only search cannot beat the static evaluation), and splits them
//!    into training and validation sets by a hash of the game (never a game in both).
//! 2. Each position is stored as a *trace*: the evaluation is linear in every parameter (given the
//!    game phase and the threat sizes, which are read off the position with the starting
//!    parameters), so a position becomes a sparse vector of coefficients and its evaluation is a
//!    dot product with the [`Params`] vector. [`Params`] flattens [`PieceSquareTables`] and [`Weights`]
//!    into [`Params::LEN`] numbers; mirrored squares of a piece-square table share one number, so
//!    the tables stay left-right symmetric.
//! 3. [`fit_k`] fits the logistic scale `k` (loss = mean of `(result - 1/(1+e^(-k*eval)))^2`,
//!    result 1, 0.5 or 0 for red) with the starting parameters; [`fit`] then runs full-batch Adam
//!    on all parameters with `k` fixed.
//!
//! Every sum over positions is done in fixed chunks added up in chunk order, so the results are
//! the same bit for bit for any number of threads.

pub mod collect;
pub mod scored;

use crate::core::{Color, Piece, Position, Role};
use crate::engine::eval::{self, Pair, PieceSquareTables, Value, Weights, PHASE_MAX};
use rayon::prelude::*;

/// Index of a parameter in the flat vector.
pub type ParamIndex = u16;

/// Offsets of the parameter groups in the flat vector.
const MATERIAL_AT: usize = 0; // 7 roles x (mg, eg)
const PST_AT: usize = MATERIAL_AT + 14; // 7 roles x 10 rows x 5 columns (files a-e; f-i mirror them)
const PST_EG_AT: usize = PST_AT + 7 * 50; // the same for the endgame tables
const MOBILITY_AT: usize = PST_EG_AT + 7 * 50; // 7 roles x (mg, eg)
const HORSE_REACH_AT: usize = MOBILITY_AT + 14; // 9 counts x (mg, eg)
const THREAT_SECOND_AT: usize = HORSE_REACH_AT + 18;
const THREAT_FIRST_AT: usize = THREAT_SECOND_AT + 1;
const DEFENDED_AT: usize = THREAT_FIRST_AT + 1; // 7 roles
const EMPTY_CANNON_AT: usize = DEFENDED_AT + 7; // mg, eg
const KING_PRESSURE_AT: usize = EMPTY_CANNON_AT + 2;
const MISSING_GUARD_AT: usize = KING_PRESSURE_AT + 1;
const SAFE_CHECK_AT: usize = MISSING_GUARD_AT + 1; // rook, horse, cannon
const KING_DANGER_AT: usize = SAFE_CHECK_AT + 3; // 4 counts, in sixteenths
const STRUCTURE_AT: usize = KING_DANGER_AT + 4; // rook open, rook half-open, connected pawns, guards complete: (mg, eg) each
const IMBALANCE_AT: usize = STRUCTURE_AT + 8; // own 7 x 7 (i <= j), then them 7 x 7, in sixteenths
const TEMPO_AT: usize = IMBALANCE_AT + 98;

/// Every tunable number of the evaluation: material, piece-square tables and [`Weights`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Material and tables.
    pub tables: PieceSquareTables,
    /// The other terms.
    pub weights: Weights,
}

impl Default for Params {
    fn default() -> Self {
        Params::DEFAULT
    }
}

/// The table cell a piece's square reads, folded onto files a-e (the tables are symmetric).
fn pst_index(role: usize, row: usize, col: usize) -> usize {
    PST_AT + role * 50 + row * 5 + col.min(8 - col)
}

/// The endgame table cell, as [`pst_index`].
fn pst_eg_index(role: usize, row: usize, col: usize) -> usize {
    pst_index(role, row, col) + (PST_EG_AT - PST_AT)
}

impl Params {
    /// Length of the flat vector.
    pub const LEN: usize = TEMPO_AT + 1;

    /// The evaluation the engine plays with.
    pub const DEFAULT: Params = Params { tables: PieceSquareTables::DEFAULT, weights: Weights::DEFAULT };

    /// The flat vector. A piece-square table contributes its files a-e (files f-i are their
    /// mirror images).
    ///
    /// ```
    /// use qiku::tune::Params;
    ///
    /// let v = Params::DEFAULT.to_vector();
    /// assert_eq!(v.len(), Params::LEN);
    /// assert_eq!(Params::from_vector(&v), Some(Params::DEFAULT));
    /// ```
    pub fn to_vector(&self) -> Vec<f64> {
        let mut v = vec![0.0; Params::LEN];
        let (t, w) = (&self.tables, &self.weights);
        for r in 0..7 {
            v[MATERIAL_AT + 2 * r] = t.material[r].mg as f64;
            v[MATERIAL_AT + 2 * r + 1] = t.material[r].eg as f64;
            v[MOBILITY_AT + 2 * r] = w.mobility[r].mg as f64;
            v[MOBILITY_AT + 2 * r + 1] = w.mobility[r].eg as f64;
            v[DEFENDED_AT + r] = w.defended[r] as f64;
            for row in 0..10 {
                for col in 0..5 {
                    v[pst_index(r, row, col)] = t.pst[r][row][col] as f64;
                    v[pst_eg_index(r, row, col)] = t.pst_eg[r][row][col] as f64;
                }
            }
        }
        v[THREAT_SECOND_AT] = w.threat_second as f64;
        v[THREAT_FIRST_AT] = w.threat_first as f64;
        v[EMPTY_CANNON_AT] = w.empty_cannon.mg as f64;
        v[EMPTY_CANNON_AT + 1] = w.empty_cannon.eg as f64;
        v[KING_PRESSURE_AT] = w.king_pressure as f64;
        v[MISSING_GUARD_AT] = w.missing_guard as f64;
        for (i, x) in w.safe_check.iter().enumerate() {
            v[SAFE_CHECK_AT + i] = *x as f64;
        }
        for (i, x) in w.king_danger.iter().enumerate() {
            v[KING_DANGER_AT + i] = *x as f64;
        }
        for (i, x) in w.horse_reach.iter().enumerate() {
            v[HORSE_REACH_AT + 2 * i] = x.mg as f64;
            v[HORSE_REACH_AT + 2 * i + 1] = x.eg as f64;
        }
        for (i, x) in [w.rook_open_file, w.rook_half_open_file, w.connected_pawns, w.guards_complete].iter().enumerate()
        {
            v[STRUCTURE_AT + 2 * i] = x.mg as f64;
            v[STRUCTURE_AT + 2 * i + 1] = x.eg as f64;
        }
        for i in 0..7 {
            for j in 0..7 {
                v[IMBALANCE_AT + 7 * i + j] = w.imbalance_own[i][j] as f64;
                v[IMBALANCE_AT + 49 + 7 * i + j] = w.imbalance_them[i][j] as f64;
            }
        }
        v[TEMPO_AT] = w.tempo as f64;
        v
    }

    /// Parameters from a flat vector, each rounded to the nearest integer (table entries clamped
    /// to `i16`). `None` if the vector is not [`Params::LEN`] long.
    ///
    /// ```
    /// use qiku::tune::{group_indices, Group, Params};
    ///
    /// let mut v = Params::DEFAULT.to_vector();
    /// v[group_indices(Group::Tempo).start] += 4.6; // rounded to the nearest integer
    /// let p = Params::from_vector(&v).expect("the right length");
    /// assert_eq!(p.weights.tempo, Params::DEFAULT.weights.tempo + 5);
    /// assert_eq!(Params::from_vector(&v[1..]), None);
    /// ```
    pub fn from_vector(v: &[f64]) -> Option<Params> {
        if v.len() != Params::LEN {
            return None;
        }
        let int = |x: f64| x.round().clamp(-1e9, 1e9) as Value;
        let pair = |at: usize| Pair { mg: int(v[at]), eg: int(v[at + 1]) };
        let mut p = Params::DEFAULT;
        for r in 0..7 {
            p.tables.material[r] = pair(MATERIAL_AT + 2 * r);
            p.weights.mobility[r] = pair(MOBILITY_AT + 2 * r);
            p.weights.defended[r] = int(v[DEFENDED_AT + r]);
            for row in 0..10 {
                for col in 0..9 {
                    let cell = |at: usize| v[at].round().clamp(i16::MIN as f64, i16::MAX as f64) as i16;
                    p.tables.pst[r][row][col] = cell(pst_index(r, row, col));
                    p.tables.pst_eg[r][row][col] = cell(pst_eg_index(r, row, col));
                }
            }
        }
        p.weights.threat_second = int(v[THREAT_SECOND_AT]);
        p.weights.threat_first = int(v[THREAT_FIRST_AT]);
        p.weights.empty_cannon = pair(EMPTY_CANNON_AT);
        p.weights.king_pressure = int(v[KING_PRESSURE_AT]);
        p.weights.missing_guard = int(v[MISSING_GUARD_AT]);
        for i in 0..3 {
            p.weights.safe_check[i] = int(v[SAFE_CHECK_AT + i]);
        }
        for i in 0..4 {
            p.weights.king_danger[i] = int(v[KING_DANGER_AT + i]);
        }
        for i in 0..9 {
            p.weights.horse_reach[i] = pair(HORSE_REACH_AT + 2 * i);
        }
        p.weights.rook_open_file = pair(STRUCTURE_AT);
        p.weights.rook_half_open_file = pair(STRUCTURE_AT + 2);
        p.weights.connected_pawns = pair(STRUCTURE_AT + 4);
        p.weights.guards_complete = pair(STRUCTURE_AT + 6);
        for i in 0..7 {
            for j in 0..7 {
                p.weights.imbalance_own[i][j] = int(v[IMBALANCE_AT + 7 * i + j]);
                p.weights.imbalance_them[i][j] = int(v[IMBALANCE_AT + 49 + 7 * i + j]);
            }
        }
        p.weights.tempo = int(v[TEMPO_AT]);
        Some(p)
    }

    /// The evaluation of `pos` with these parameters, red's view (the reference the traces are
    /// checked against).
    ///
    /// ```
    /// use qiku::engine::eval::{breakdown, Weights};
    /// use qiku::tune::Params;
    /// use qiku::Position;
    ///
    /// // Red is a rook up; red's view even with black to move.
    /// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b")?;
    /// assert_eq!(Params::DEFAULT.evaluate(&pos), breakdown(&pos, &Weights::DEFAULT).total);
    /// assert!(Params::DEFAULT.evaluate(&pos) > 500);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn evaluate(&self, pos: &Position) -> Value {
        eval::breakdown_with(pos, &self.tables, &self.weights).total
    }

    /// The parameters as Rust source (the constants of `engine::eval`, written in
    /// `src/engine/eval/params.rs`), for pasting into that file.
    ///
    /// ```
    /// use qiku::tune::Params;
    ///
    /// let rust = Params::DEFAULT.to_rust();
    /// assert!(rust.starts_with("pub const MATERIAL: [Pair; 7] = [p(0, 0), ")); // the king's, fixed
    /// assert!(rust.contains("\nconst ROOK_PST_EG: Table = [\n"));
    /// assert!(rust.contains(&format!("        tempo: {},\n", Params::DEFAULT.weights.tempo)));
    /// ```
    pub fn to_rust(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let t = &self.tables;
        let pairs = |ps: &[Pair]| ps.iter().map(|p| format!("p({}, {})", p.mg, p.eg)).collect::<Vec<_>>().join(", ");
        let _ = writeln!(s, "pub const MATERIAL: [Pair; 7] = [{}];", pairs(&t.material));
        for (suffix, tables) in [("", &t.pst), ("_EG", &t.pst_eg)] {
            for (name, table) in ["KING", "ADVISOR", "ELEPHANT", "HORSE", "ROOK", "CANNON", "PAWN"].iter().zip(tables) {
                let _ = writeln!(s, "\n#[rustfmt::skip]\nconst {name}_PST{suffix}: Table = [");
                for row in table {
                    let cells: Vec<String> = row.iter().map(|x| format!("{x:>4}")).collect();
                    let _ = writeln!(s, "    [{}],", cells.join(","));
                }
                let _ = writeln!(s, "];");
            }
        }
        let w = &self.weights;
        let _ = writeln!(s, "\n    pub const DEFAULT: Weights = Weights {{");
        let _ = writeln!(s, "        mobility: [{}],", pairs(&w.mobility));
        let _ = writeln!(s, "        threat_second: {},", w.threat_second);
        let _ = writeln!(s, "        threat_first: {},", w.threat_first);
        let d: Vec<String> = w.defended.iter().map(|x| x.to_string()).collect();
        let _ = writeln!(s, "        defended: [{}],", d.join(", "));
        let _ = writeln!(s, "        empty_cannon: p({}, {}),", w.empty_cannon.mg, w.empty_cannon.eg);
        let _ = writeln!(s, "        king_pressure: {},", w.king_pressure);
        let _ = writeln!(s, "        missing_guard: {},", w.missing_guard);
        let _ = writeln!(s, "        safe_check: [{}],", w.safe_check.map(|x| x.to_string()).join(", "));
        let _ = writeln!(s, "        king_danger: [{}],", w.king_danger.map(|x| x.to_string()).join(", "));
        let _ = writeln!(s, "        horse_reach: [{}],", pairs(&w.horse_reach));
        let pair = |x: Pair| format!("p({}, {})", x.mg, x.eg);
        let _ = writeln!(s, "        rook_open_file: {},", pair(w.rook_open_file));
        let _ = writeln!(s, "        rook_half_open_file: {},", pair(w.rook_half_open_file));
        let _ = writeln!(s, "        connected_pawns: {},", pair(w.connected_pawns));
        let _ = writeln!(s, "        guards_complete: {},", pair(w.guards_complete));
        let rows = |m: &[[Value; 7]; 7]| {
            m.iter().map(|r| format!("[{}]", r.map(|x| x.to_string()).join(", "))).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(s, "        imbalance_own: [{}],", rows(&w.imbalance_own));
        let _ = writeln!(s, "        imbalance_them: [{}],", rows(&w.imbalance_them));
        let _ = writeln!(s, "        tempo: {},", w.tempo);
        let _ = writeln!(s, "    }};");
        s
    }
}

/// A position as a sparse linear function of the parameter vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// (parameter, coefficient) pairs, by parameter, no duplicates.
    pub terms: Vec<(ParamIndex, f32)>,
}

impl Trace {
    /// The evaluation (red's view) with parameter vector `v`.
    ///
    /// (example at [`trace`])
    pub fn eval(&self, v: &[f64]) -> f64 {
        self.terms.iter().map(|&(i, c)| v[i as usize] * c as f64).sum()
    }
}

/// The trace of `pos`: the coefficient of every parameter in the evaluation (red's view),
/// mirroring `eval::breakdown_with` term by term. The evaluation is linear in its parameters
/// (the phase and the threat sizes, in fixed exchange values, do not depend on them), so for any
/// `params`, `trace.eval(params.to_vector())` equals `params.evaluate(pos)` up to the integer
/// rounding of the evaluation (tested).
///
/// ```
/// use qiku::tune::{rounding_bound, trace, Params};
/// use qiku::Position;
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let t = trace(&pos);
/// let linear = t.eval(&Params::DEFAULT.to_vector());
/// let real = f64::from(Params::DEFAULT.evaluate(&pos));
/// assert!((linear - real).abs() <= rounding_bound(&pos), "{linear} {real}");
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn trace(pos: &Position) -> Trace {
    let mut dense = [0f64; Params::LEN];
    let occ = pos.occupied();
    let mut phase = 0;
    for r in Role::ALL {
        phase += eval::PHASE_WEIGHT[r.index()] * pos.by_role(r).count() as i32;
    }
    let phase = phase.min(PHASE_MAX);
    let mg = phase as f64 / PHASE_MAX as f64;
    let eg = 1.0 - mg;
    let zones = [eval::king_zone(pos.king(Color::Red)), eval::king_zone(pos.king(Color::Black))];
    let mut pressure = [0i32; 2];
    let mut by_role = [[crate::core::Bitboard::EMPTY; 7]; 2];
    let mut cannon_moves = [crate::core::Bitboard::EMPTY; 2];
    for c in Color::ALL {
        let s = if c == Color::Red { 1.0 } else { -1.0 };
        let own = pos.by_color(c);
        let them = pos.by_color(!c);
        for r in Role::ALL {
            let ri = r.index();
            let piece = Piece::new(c, r);
            for sq in pos.pieces(piece) {
                dense[MATERIAL_AT + 2 * ri] += s * mg;
                dense[MATERIAL_AT + 2 * ri + 1] += s * eg;
                let (row, col) = eval::table_cell(piece, sq);
                dense[pst_index(ri, row, col)] += s * mg;
                dense[pst_eg_index(ri, row, col)] += s * eg;
                let a = eval::piece_attacks(piece, sq, occ);
                by_role[c.index()][ri] |= a;
                let reach = match r {
                    Role::Cannon => (crate::core::attacks::rook_attacks(sq, occ) - occ) | (a & them),
                    _ => a - own,
                };
                if r == Role::Cannon {
                    cannon_moves[c.index()] |= reach;
                }
                let n = reach.count() as f64;
                dense[MOBILITY_AT + 2 * ri] += s * n * mg;
                dense[MOBILITY_AT + 2 * ri + 1] += s * n * eg;
                if r == Role::Horse {
                    let at = HORSE_REACH_AT + 2 * reach.count() as usize;
                    dense[at] += s * mg;
                    dense[at + 1] += s * eg;
                }
                if (a & zones[(!c).index()]).any() {
                    pressure[c.index()] += match r {
                        Role::Rook | Role::Horse => 3,
                        Role::Cannon | Role::Pawn => 2,
                        _ => 0,
                    };
                }
            }
        }
    }
    let all = by_role.map(|b| b.iter().fold(crate::core::Bitboard::EMPTY, |a, &x| a | x));
    for c in Color::ALL {
        let s = if c == Color::Red { 1.0 } else { -1.0 };
        let (us, them) = (c.index(), (!c).index());
        // Relations: defended pieces, and the side to move's two largest threats.
        let mut threats = eval::TopThreats::default();
        for sq in pos.by_color(c) - pos.by_role(Role::King) {
            let Some(piece) = pos.piece_at(sq) else { continue };
            let defended = all[us].contains(sq);
            if defended {
                dense[DEFENDED_AT + piece.role.index()] += s;
            }
            if !all[them].contains(sq) {
                continue;
            }
            threats.add(eval::threat_size(piece.role, defended, sq, &by_role[them]));
        }
        if pos.turn() == c {
            dense[THREAT_FIRST_AT] -= s * threats.first as f64 / 64.0;
            dense[THREAT_SECOND_AT] -= s * threats.second as f64 / 64.0;
        }
        // King safety.
        let enemy = !c;
        let p = pressure[them] as f64;
        dense[KING_PRESSURE_AT] -= s * p * p;
        let units = 2 * pos.pieces(Piece::new(enemy, Role::Rook)).count() as i32
            + pos.pieces(Piece::new(enemy, Role::Horse)).count() as i32
            + pos.pieces(Piece::new(enemy, Role::Cannon)).count() as i32;
        let guards = pos.pieces(Piece::new(c, Role::Advisor)).count() as i32
            + pos.pieces(Piece::new(c, Role::Elephant)).count() as i32;
        dense[MISSING_GUARD_AT] -= s * ((4 - guards) * units) as f64;
        let checks = eval::safe_checks(pos, &by_role[them], cannon_moves[them], all[us], c);
        for (i, n) in checks.iter().enumerate() {
            dense[SAFE_CHECK_AT + i] -= s * *n as f64;
        }
        let k = pos.king(c);
        let weak = eval::weak_zone_squares(k, &by_role[us], all[them]);
        let danger = eval::danger_counts(checks.iter().sum(), pressure[them], 4 - guards, weak);
        for (i, n) in danger.iter().enumerate() {
            dense[KING_DANGER_AT + i] -= s * *n as f64 / 16.0;
        }
        for cannon in pos.pieces(Piece::new(enemy, Role::Cannon)) {
            if cannon.file() == k.file() && (crate::core::attacks::between(cannon, k) & occ).is_empty() {
                dense[EMPTY_CANNON_AT] -= s * mg;
                dense[EMPTY_CANNON_AT + 1] -= s * eg;
            }
        }
    }
    for c in Color::ALL {
        let s = if c == Color::Red { 1.0 } else { -1.0 };
        let k = eval::structure_counts(pos, c);
        let mut add = |at: usize, n: i32| {
            dense[at] += s * n as f64 * mg;
            dense[at + 1] += s * n as f64 * eg;
        };
        add(STRUCTURE_AT, k.rook_open);
        add(STRUCTURE_AT + 2, k.rook_half_open);
        add(STRUCTURE_AT + 4, k.connected);
        add(STRUCTURE_AT + 6, k.guards_complete);
    }
    let count = |c: Color, r: usize| pos.pieces(Piece::new(c, Role::ALL[r])).count() as f64;
    for c in Color::ALL {
        let s = if c == Color::Red { 1.0 } else { -1.0 };
        for i in 1..7 {
            for j in 1..7 {
                if j >= i {
                    dense[IMBALANCE_AT + 7 * i + j] += s * count(c, i) * count(c, j) / 16.0;
                }
                dense[IMBALANCE_AT + 49 + 7 * i + j] += s * count(c, i) * count(!c, j) / 16.0;
            }
        }
    }
    dense[TEMPO_AT] += if pos.turn() == Color::Red { 1.0 } else { -1.0 };
    let terms =
        dense.iter().enumerate().filter(|&(_, &c)| c != 0.0).map(|(i, &c)| (i as ParamIndex, c as f32)).collect();
    Trace { terms }
}

/// A bound on `|trace(pos).eval(v) - evaluate(pos)|` from the evaluation's integer rounding:
/// each piece's tapered material, both sides' tapered mobility, threat, cannon and king-danger terms.
///
/// ```
/// use qiku::tune::rounding_bound;
/// use qiku::Position;
///
/// assert_eq!(rounding_bound(&Position::startpos()), 52.0); // 32 pieces, and 20
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn rounding_bound(pos: &Position) -> f64 {
    pos.occupied().count() as f64 + 20.0
}

/// The logistic curve: the expected score (red's) of an evaluation `e` (red's view).
///
/// ```
/// use qiku::tune::sigmoid;
///
/// assert_eq!(sigmoid(0.005, 0.0), 0.5); // even: a draw expected
/// assert!((sigmoid(0.005, 200.0) + sigmoid(0.005, -200.0) - 1.0).abs() < 1e-12);
/// assert!(sigmoid(0.005, 600.0) > 0.95);
/// ```
#[inline]
pub fn sigmoid(k: f64, e: f64) -> f64 {
    1.0 / (1.0 + (-k * e).exp())
}

/// A training or validation position: its trace and its target, the expected score for red (the
/// game's result, or a blend of it with an engine's score: [`scored::target`]).
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position as a linear function of the parameters.
    pub trace: Trace,
    /// 1 (red won), 0.5 (draw) or 0 (black won), or a blend in between.
    pub result: f64,
}

/// Positions summed per task: fixed, so that sums do not depend on the number of threads.
const CHUNK: usize = 4096;

/// Mean squared error of the predictions with parameters `v` and scale `k`.
///
/// ```
/// use qiku::tune::{loss, trace, Params, Sample};
/// use qiku::Position;
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let v = Params::DEFAULT.to_vector();
/// // Red a rook up: a red win is well predicted, a red loss badly.
/// let won = [Sample { trace: trace(&pos), result: 1.0 }];
/// let lost = [Sample { trace: trace(&pos), result: 0.0 }];
/// assert!(loss(&won, &v, 0.005) < 0.01);
/// assert!(loss(&lost, &v, 0.005) > 0.8);
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn loss(samples: &[Sample], v: &[f64], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let parts: Vec<f64> = samples
        .par_chunks(CHUNK)
        .map(|chunk| {
            chunk
                .iter()
                .map(|s| {
                    let d = s.result - sigmoid(k, s.trace.eval(v));
                    d * d
                })
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum::<f64>() / samples.len() as f64
}

/// The loss and its gradient with respect to `v`.
///
/// ```
/// use qiku::tune::{group_indices, loss, loss_and_gradient, trace, Group, Params, Sample};
/// use qiku::{Position, Role};
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let v = Params::DEFAULT.to_vector();
/// let lost = [Sample { trace: trace(&pos), result: 0.0 }]; // red lost, a rook up
/// let (l, g) = loss_and_gradient(&lost, &v, 0.005);
/// assert_eq!(l, loss(&lost, &v, 0.005));
/// // The loss falls as the rook's middlegame value does.
/// assert!(g[group_indices(Group::Material).start + 2 * Role::Rook.index()] > 0.0);
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn loss_and_gradient(samples: &[Sample], v: &[f64], k: f64) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; v.len()];
    if samples.is_empty() {
        return (0.0, grad);
    }
    let parts: Vec<(f64, Vec<f64>)> = samples
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut g = vec![0.0; v.len()];
            let mut l = 0.0;
            for s in chunk {
                let p = sigmoid(k, s.trace.eval(v));
                let d = s.result - p;
                l += d * d;
                // d/dv (r - p)^2 = -2 (r - p) p (1 - p) k x
                let f = -2.0 * d * p * (1.0 - p) * k;
                for &(i, c) in &s.trace.terms {
                    g[i as usize] += f * c as f64;
                }
            }
            (l, g)
        })
        .collect();
    let mut l = 0.0;
    for (pl, pg) in parts {
        l += pl;
        for (a, b) in grad.iter_mut().zip(pg) {
            *a += b;
        }
    }
    let n = samples.len() as f64;
    grad.iter_mut().for_each(|g| *g /= n);
    (l / n, grad)
}

/// The scale `k` minimising the loss with parameters `v` (golden-section search on a log scale
/// between 1e-4 and 1e-1 per evaluation unit).
///
/// ```
/// use qiku::tune::{fit_k, sigmoid, trace, Params, Sample};
/// use qiku::Position;
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let (t, v) = (trace(&pos), Params::DEFAULT.to_vector());
/// // Won once, drawn once: the best scale predicts 0.75.
/// let samples = [Sample { trace: t.clone(), result: 1.0 }, Sample { trace: t.clone(), result: 0.5 }];
/// let k = fit_k(&samples, &v);
/// assert!((sigmoid(k, t.eval(&v)) - 0.75).abs() < 1e-4, "{k}");
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn fit_k(samples: &[Sample], v: &[f64]) -> f64 {
    golden_section_k(|k| loss(samples, v, k))
}

/// The `k` between 1e-4 and 1e-1 minimising `f` (golden-section search on a log scale).
pub(crate) fn golden_section_k(f: impl Fn(f64) -> f64) -> f64 {
    let f = |x: f64| f(10f64.powf(x));
    let (mut a, mut b) = (-4.0f64, -1.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..60 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    10f64.powf((a + b) / 2.0)
}

/// Settings of [`fit`].
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Passes over the training set (one Adam step each).
    pub epochs: u32,
    /// Adam's step size, in evaluation units.
    pub learning_rate: f64,
    /// Parameters that keep their starting value (by index in the flat vector).
    pub frozen: Vec<usize>,
    /// Weight of an L2 penalty `l2 * (x - start)^2` per parameter, added to the loss being
    /// minimised: it keeps rarely seen table cells near their starting values.
    pub l2: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { epochs: 1000, learning_rate: 1.0, frozen: frozen_by_default(), l2: 0.0 }
    }
}

/// What is not tuned by default: the king's material (both sides always have one, so it has no
/// effect) and the tempo bonus (it is part of how the search reads evaluations at odd and even
/// depths, not a property of positions, and the data would fold the side-to-move bias of master
/// games into it).
///
/// ```
/// use qiku::tune::{frozen_by_default, group_indices, FitOptions, Group};
///
/// let frozen = frozen_by_default();
/// assert_eq!(frozen.len(), 3); // the king's material (both phases) and the tempo
/// assert!(frozen.contains(&group_indices(Group::Tempo).start));
/// assert_eq!(FitOptions::default().frozen, frozen);
/// ```
pub fn frozen_by_default() -> Vec<usize> {
    vec![MATERIAL_AT, MATERIAL_AT + 1, TEMPO_AT]
}

/// A group of parameters, to keep fixed with [`group_indices`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Group {
    /// Material values.
    Material,
    /// Piece-square tables.
    Pst,
    /// Mobility.
    Mobility,
    /// The two threat weights.
    Threats,
    /// Defended-piece bonuses.
    Defended,
    /// King safety: pressure, missing guards, the empty-headed cannon.
    King,
    /// Placement: rooks on open files, connected pawns, complete guards.
    Structure,
    /// Material imbalance: products of role counts.
    Imbalance,
    /// The side to move's bonus.
    Tempo,
}

impl std::str::FromStr for Group {
    type Err = String;
    fn from_str(s: &str) -> Result<Group, String> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "material" => Group::Material,
            "pst" => Group::Pst,
            "mobility" => Group::Mobility,
            "threats" => Group::Threats,
            "defended" => Group::Defended,
            "king" => Group::King,
            "structure" => Group::Structure,
            "imbalance" => Group::Imbalance,
            "tempo" => Group::Tempo,
            _ => {
                return Err(format!(
                "{s:?} is not a parameter group (material, pst, mobility, threats, defended, king, structure, imbalance, tempo)"
            ))
            }
        })
    }
}

/// The indices of a group's parameters in the flat vector.
///
/// ```
/// use qiku::tune::{group_indices, Group, Params};
///
/// assert_eq!(group_indices(Group::Material), 0..14); // 7 roles, middlegame and endgame
/// assert_eq!(group_indices("threats".parse()?).len(), 2);
/// assert_eq!(group_indices(Group::Tempo).end, Params::LEN);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn group_indices(g: Group) -> std::ops::Range<usize> {
    match g {
        Group::Material => MATERIAL_AT..PST_AT,
        Group::Pst => PST_AT..MOBILITY_AT,
        Group::Mobility => MOBILITY_AT..THREAT_SECOND_AT,
        Group::Threats => THREAT_SECOND_AT..DEFENDED_AT,
        Group::Defended => DEFENDED_AT..EMPTY_CANNON_AT,
        Group::King => EMPTY_CANNON_AT..STRUCTURE_AT,
        Group::Structure => STRUCTURE_AT..IMBALANCE_AT,
        Group::Imbalance => IMBALANCE_AT..TEMPO_AT,
        Group::Tempo => TEMPO_AT..Params::LEN,
    }
}

/// The largest piece-square bonus or malus the fit gives (both phases). Squares a piece rarely
/// reaches are seen in few positions, mostly of games already decided (a pawn in the enemy
/// palace, a horse on its centre): unbounded, the fit gave them up to 797 (more than a rook's
/// middlegame material), and the engine played for such squares in games it then lost. Each
/// step of the fit is projected back into the bound.
pub const PST_LIMIT: f64 = 250.0;

/// Full-batch Adam from `start` with scale `k`; `on_epoch(epoch, training loss)` after each step;
/// piece-square entries stay within [`PST_LIMIT`]. Returns the fitted vector (not rounded).
///
/// ```
/// use qiku::tune::{fit, loss, trace, FitOptions, Params, Sample};
/// use qiku::Position;
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let (start, samples) = (Params::DEFAULT.to_vector(), [Sample { trace: trace(&pos), result: 0.5 }]);
/// let opts = FitOptions { epochs: 20, ..FitOptions::default() };
/// let mut losses = Vec::new();
/// let fitted = fit(&samples, &start, 0.005, &opts, |_, l| losses.push(l));
/// assert_eq!(losses.len(), 20);
/// assert!(loss(&samples, &fitted, 0.005) < losses[0]); // a draw, though a rook up: learnt
/// assert!(opts.frozen.iter().all(|&i| fitted[i] == start[i]));
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn fit(
    samples: &[Sample],
    start: &[f64],
    k: f64,
    opts: &FitOptions,
    mut on_epoch: impl FnMut(u32, f64),
) -> Vec<f64> {
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let mut v = start.to_vec();
    let mut m = vec![0.0; v.len()];
    let mut s = vec![0.0; v.len()];
    for epoch in 1..=opts.epochs {
        let (l, mut g) = loss_and_gradient(samples, &v, k);
        if opts.l2 > 0.0 {
            for ((g, x), x0) in g.iter_mut().zip(&v).zip(start) {
                *g += 2.0 * opts.l2 * (x - x0);
            }
        }
        for &i in &opts.frozen {
            if let Some(x) = g.get_mut(i) {
                *x = 0.0;
            }
        }
        let t = epoch as i32;
        for i in 0..v.len() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            s[i] = b2 * s[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t));
            let sh = s[i] / (1.0 - b2.powi(t));
            v[i] -= opts.learning_rate * mh / (sh.sqrt() + eps);
        }
        for x in &mut v[group_indices(Group::Pst)] {
            *x = x.clamp(-PST_LIMIT, PST_LIMIT);
        }
        on_epoch(epoch, l);
    }
    v
}

/// Loss of the real evaluation (`params.evaluate`, integers and all) on `positions` with results
/// `samples[i].result`: checks that the rounded parameters do what the linear model says.
///
/// ```
/// use qiku::tune::{loss, reference_loss, trace, Params, Sample};
/// use qiku::Position;
///
/// let pos = Position::from_fen("1nbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w")?;
/// let samples = [Sample { trace: trace(&pos), result: 0.5 }];
/// let real = reference_loss(&[pos], &samples, &Params::DEFAULT, 0.005);
/// let linear = loss(&samples, &Params::DEFAULT.to_vector(), 0.005);
/// assert!((real - linear).abs() < 0.01, "{real} {linear}");
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub fn reference_loss(positions: &[Position], samples: &[Sample], params: &Params, k: f64) -> f64 {
    if positions.is_empty() {
        return 0.0;
    }
    let parts: Vec<f64> = positions
        .par_chunks(CHUNK)
        .zip(samples.par_chunks(CHUNK))
        .map(|(ps, ss)| {
            ps.iter()
                .zip(ss)
                .map(|(p, s)| {
                    let d = s.result - sigmoid(k, params.evaluate(p) as f64);
                    d * d
                })
                .sum::<f64>()
        })
        .collect();
    parts.iter().sum::<f64>() / positions.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: &[&str] = &[
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "2bakab2/5r3/1cn1c1n2/2C1p1p1p/9/1p4P2/P1r1P3P/1RN1C1N2/4A4/2BAK1BR1 w - - 2 13",
        "2bak1b2/2n1a4/3cc1n2/prp1p3p/1C4p2/P1P6/4P1P1P/2N3N1C/4A4/1RBAK1B2 w - - 13 13",
        "1r1akab2/5R3/bcn1c1n2/p3R3p/2p3p2/9/P1PrP1P1P/2NCC1N2/4A4/2BAK1B2 b - - 1 13",
        "2b1ka3/4an3/3cb3c/4C1p1p/2p6/1R4P2/3rP3P/B5N2/4A4/2CAK1B2 w - - 1 19",
        "4kab2/4a4/2n1b3c/2R3P2/p3p4/5p3/P3P1c2/N2CB1Nr1/4A4/2BAK4 b - - 5 25",
        "3aka3/9/4b4/9/9/2P6/9/4B4/9/3AK1R2 w - - 0 1",
        "3k5/9/4P4/9/9/9/9/9/4p4/5K3 w - - 0 1",
    ];

    fn positions() -> Vec<Position> {
        FENS.iter().map(|f| Position::from_fen(f).expect("test FEN")).collect()
    }

    #[test]
    fn vector_round_trips() {
        let p = Params::DEFAULT;
        let v = p.to_vector();
        assert_eq!(v.len(), Params::LEN);
        assert_eq!(Params::from_vector(&v), Some(p));
        // A changed vector gives changed parameters, mirrored squares together.
        let mut v2 = v.clone();
        v2[pst_index(3, 2, 1)] += 5.0;
        let q = Params::from_vector(&v2).expect("length");
        assert_eq!(q.tables.pst[3][2][1], p.tables.pst[3][2][1] + 5);
        assert_eq!(q.tables.pst[3][2][7], p.tables.pst[3][2][7] + 5);
        assert_eq!(q.to_vector(), v2);
        assert_eq!(Params::from_vector(&v[1..]), None);
    }

    #[test]
    fn trace_matches_the_evaluation() {
        let params = Params::DEFAULT;
        let v = params.to_vector();
        for pos in positions() {
            let t = trace(&pos);
            let (lin, real) = (t.eval(&v), params.evaluate(&pos) as f64);
            assert!((lin - real).abs() <= rounding_bound(&pos), "{}: trace {lin} evaluation {real}", pos.fen());
        }
        // And with other parameters (each group moved).
        let mut v2 = v.clone();
        for (i, x) in v2.iter_mut().enumerate() {
            *x += (i % 7) as f64 - 3.0;
        }
        let other = Params::from_vector(&v2).expect("length");
        let v2 = other.to_vector();
        for pos in positions() {
            let (lin, real) = (trace(&pos).eval(&v2), other.evaluate(&pos) as f64);
            assert!((lin - real).abs() <= rounding_bound(&pos), "{}: trace {lin} evaluation {real}", pos.fen());
        }
    }

    #[test]
    fn loss_matches_a_slow_reference() {
        let params = Params::DEFAULT;
        let v = params.to_vector();
        let pos = positions();
        let results = [0.5, 1.0, 0.0, 0.5, 1.0, 0.0, 1.0, 0.5];
        let samples: Vec<Sample> =
            pos.iter().zip(results).map(|(p, r)| Sample { trace: trace(p), result: r }).collect();
        let k = 0.004;
        let fast = loss(&samples, &v, k);
        // The slow way: the engine's evaluation, the logistic written out.
        let mut slow = 0.0;
        for (p, r) in pos.iter().zip(results) {
            let e = params.evaluate(p) as f64;
            let pred = 1.0 / (1.0 + (-k * e).exp());
            slow += (r - pred) * (r - pred);
        }
        slow /= pos.len() as f64;
        assert!((fast - slow).abs() < 2e-3, "fast {fast} slow {slow}");
        assert!((reference_loss(&pos, &samples, &params, k) - slow).abs() < 1e-12);
        // The gradient agrees with finite differences of the loss.
        let (l, g) = loss_and_gradient(&samples, &v, k);
        assert!((l - fast).abs() < 1e-12);
        for i in [MATERIAL_AT + 8, pst_index(4, 1, 4), MOBILITY_AT + 6, KING_PRESSURE_AT, TEMPO_AT] {
            let mut a = v.clone();
            a[i] += 1e-3;
            let mut b = v.clone();
            b[i] -= 1e-3;
            let fd = (loss(&samples, &a, k) - loss(&samples, &b, k)) / 2e-3;
            assert!((fd - g[i]).abs() < 1e-6 + 1e-3 * fd.abs(), "param {i}: gradient {} numeric {fd}", g[i]);
        }
    }

    #[test]
    fn fitting_a_synthetic_set_lowers_the_loss() {
        let params = Params::DEFAULT;
        let v = params.to_vector();
        // Results that say red's extra material matters more than the current values do (within
        // 60 of level a draw, so that the best `k` is not the largest).
        let samples: Vec<Sample> = positions()
            .iter()
            .map(|p| {
                let e = params.evaluate(p) as f64;
                Sample {
                    trace: trace(p),
                    result: if e > 60.0 {
                        1.0
                    } else if e < -60.0 {
                        0.0
                    } else {
                        0.5
                    },
                }
            })
            .collect();
        let k = fit_k(&samples, &v);
        assert!(k > 1e-4 && k < 1e-1, "{k}");
        let before = loss(&samples, &v, k);
        assert!(before <= loss(&samples, &v, k * 1.5) && before <= loss(&samples, &v, k / 1.5));
        let opts = FitOptions { epochs: 50, ..FitOptions::default() };
        let mut last = f64::MAX;
        let fitted = fit(&samples, &v, k, &opts, |_, l| last = l);
        let after = loss(&samples, &fitted, k);
        assert!(after < before, "before {before} after {after}");
        assert!(last <= before + 1e-12);
        for &i in &opts.frozen {
            assert_eq!(fitted[i], v[i], "frozen parameter {i} moved");
        }
    }

    #[test]
    fn piece_square_entries_stay_within_the_limit() {
        let params = Params::DEFAULT;
        let v = params.to_vector();
        let pst_range = group_indices(Group::Pst);
        assert!(v[pst_range.clone()].iter().all(|x| x.abs() <= PST_LIMIT), "the compiled tables are within it");
        // Results that reward red for everything (the fit would push red's good squares up
        // without end): a large step size drives many entries to the bound, none beyond it.
        let samples: Vec<Sample> = positions().iter().map(|p| Sample { trace: trace(p), result: 1.0 }).collect();
        let opts = FitOptions { epochs: 200, learning_rate: 20.0, ..FitOptions::default() };
        let fitted = fit(&samples, &v, 0.005, &opts, |_, _| {});
        let pst = &fitted[pst_range.clone()];
        assert!(pst.iter().all(|x| x.abs() <= PST_LIMIT));
        let at_bound = |xs: &[f64]| xs.iter().filter(|x| x.abs() == PST_LIMIT).count();
        assert!(at_bound(pst) > at_bound(&v[pst_range]), "more entries reached the bound");
    }

    #[test]
    fn sums_do_not_depend_on_thread_count() {
        let params = Params::DEFAULT;
        let v = params.to_vector();
        let mut samples = Vec::new();
        for (i, p) in positions().iter().enumerate().cycle().take(3 * CHUNK + 17) {
            samples.push(Sample { trace: trace(p), result: (i % 3) as f64 / 2.0 });
        }
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            pool.install(|| loss_and_gradient(&samples, &v, 0.003))
        };
        let (l1, g1) = run(1);
        let (l3, g3) = run(3);
        assert_eq!(l1.to_bits(), l3.to_bits());
        assert!(g1.iter().zip(&g3).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}
