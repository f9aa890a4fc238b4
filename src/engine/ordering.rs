//! Move ordering: the order in which the search tries moves decides how much it can cut.
//!
//! First the transposition-table move; then captures by MVV/LVA (most valuable victim, then
//! least valuable attacker), except captures of a defended piece by a dearer one, which go after
//! the quiet killer moves; then the two killer moves of the ply (quiet moves that cut off at the
//! same ply elsewhere); then the remaining quiet moves by the history heuristic (how often a piece
//! moving to a square caused a cutoff, weighted by depth squared, decaying) plus the continuation
//! histories (the same, but counted after the move one and two plies before: which replies work
//! against which moves).

use super::eval::PIECE_VALUE;
use crate::core::{attacks, Color, Move, MoveList, Piece, Position, Role};

/// Ordering scores: bands that never overlap.
const TT_MOVE: i32 = 4_000_000;
const GOOD_CAPTURE: i32 = 3_000_000;
const KILLER_1: i32 = 2_000_002;
const KILLER_2: i32 = 2_000_001;
const BAD_CAPTURE: i32 = 1_000_000;
/// History scores stay within +-HISTORY_MAX, below every band above.
pub const HISTORY_MAX: i32 = 500_000;

/// Entries of one continuation-history row: a piece and its destination square.
const CONT_ROW: usize = 14 * 90;

/// Quiet-move history, by piece and destination square, and the continuation histories: by the
/// piece and destination of the move one or two plies before, then by this move's piece and
/// destination.
///
/// ```
/// use qiku::engine::ordering::{History, MovePicker};
/// use qiku::{notation::iccs, Position};
///
/// let pos = Position::startpos();
/// let m = iccs::parse(&pos, "c3c4")?;
/// let mut history = History::default();
/// history.update(pos.piece_at(m.from()).expect("a pawn"), m, 5000); // it caused a cutoff
/// // The two captures first, then the quiet move with the best history.
/// let order: Vec<_> = MovePicker::new(&pos, pos.moves(), None, [None; 2], &history, [None; 2]).collect();
/// assert_eq!(order[2], m);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct History {
    table: Box<[[i32; 90]; 14]>,
    cont: Vec<i32>,
    correction: Vec<i32>,
    journal: Journal,
}

/// The quiet-move history's writes made while a search has a table move out ahead of its move
/// generation, so that the moves generated afterwards can be ordered by the history as it stood
/// when the table move started (see [`History::as_at`]): the order, and so every node, is then
/// the same as if they had been generated first.
#[derive(Clone, Default)]
struct Journal {
    /// Each write: its cell (see [`History::cell_mut`]) and the value before it (while
    /// [`History::as_at`] has rewound them, the value after it).
    writes: Vec<(u32, i32)>,
    /// How many searches of a table move are open (nested along the line).
    open: u32,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[0; 90]; 14]),
            cont: vec![0; CONT_ROW * CONT_ROW],
            correction: vec![0; 2 * CORRECTION_KINDS * CORRECTION_SIZE],
            journal: Journal::default(),
        }
    }
}

impl History {
    /// A stand-in for the moment a search holds the real history: it owns only the small main
    /// table (5 KB), not the megabyte continuation and correction tables, so it is cheap to make
    /// where [`History::default`] allocates and zeroes megabytes. Never searched with.
    pub(crate) fn placeholder() -> History {
        History {
            table: Box::new([[0; 90]; 14]),
            cont: Vec::new(),
            correction: Vec::new(),
            journal: Journal::default(),
        }
    }

    /// A cell of the main table (`0..CONT_ROW`) or, after it, of the continuation histories.
    #[inline]
    fn cell_mut(&mut self, cell: usize) -> &mut i32 {
        match cell.checked_sub(CONT_ROW) {
            None => &mut self.table.as_flattened_mut()[cell],
            Some(i) => &mut self.cont[i],
        }
    }

    /// [`gravity`] on `cell`, recorded while a journal is open.
    #[inline]
    fn write(&mut self, cell: usize, bonus: i32) {
        let h = self.cell_mut(cell);
        let before = *h;
        gravity(h, bonus);
        if self.journal.open > 0 {
            self.journal.writes.push((cell as u32, before));
        }
    }

    /// A search of a table move ahead of move generation starts: from now on the history's
    /// writes are recorded. Returns the mark to hand to [`History::as_at`] and
    /// [`History::close_journal`].
    #[inline]
    pub(crate) fn open_journal(&mut self) -> usize {
        self.journal.open += 1;
        self.journal.writes.len()
    }

    /// The search opened at `mark` no longer needs the record (an enclosing one may).
    #[inline]
    pub(crate) fn close_journal(&mut self, mark: usize) {
        debug_assert!(self.journal.open > 0 && mark <= self.journal.writes.len());
        self.journal.open -= 1;
        if self.journal.open == 0 {
            self.journal.writes.clear();
        }
    }

    /// Forgets every open journal (a search that stopped in the middle leaves some open).
    pub(crate) fn reset_journal(&mut self) {
        self.journal.open = 0;
        self.journal.writes.clear();
    }

    /// `f` of the history as it stood at `mark` (of [`History::open_journal`]): the writes since
    /// are undone for `f`, then redone.
    pub(crate) fn as_at<R>(&mut self, mark: usize, f: impl FnOnce(&History) -> R) -> R {
        let mut writes = std::mem::take(&mut self.journal.writes);
        // Swapping each cell with its record, newest first, leaves the cells as they were at the
        // mark and the records holding what each write made; swapping again, oldest first,
        // puts both back.
        for (cell, value) in writes[mark..].iter_mut().rev() {
            std::mem::swap(self.cell_mut(*cell as usize), value);
        }
        let r = f(self);
        for (cell, value) in writes[mark..].iter_mut() {
            std::mem::swap(self.cell_mut(*cell as usize), value);
        }
        self.journal.writes = writes;
        r
    }
}

/// Bits of a correction table's index.
const CORRECTION_BITS: u32 = 14;
/// Slots per side to move in each correction table.
const CORRECTION_SIZE: usize = 1 << CORRECTION_BITS;
/// The correction tables: by the pawns and guards (advisors, elephants) of both sides, and by
/// the material.
const CORRECTION_KINDS: usize = 2;
/// Bound on one correction entry.
const CORRECTION_MAX: i32 = 1024;
/// Entry units per evaluation unit: the correction is the entries' sum divided by this.
const CORRECTION_GRAIN: i32 = 16;

/// Where a position's corrections are kept (see [`History::correction`]).
///
/// ```
/// use qiku::engine::ordering::CorrectionKeys;
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// let keys = |t: &str| -> Result<CorrectionKeys, Box<dyn std::error::Error>> {
///     Ok(CorrectionKeys::new(&start.play(iccs::parse(&start, t)?)?))
/// };
/// assert_eq!(keys("h0g2")?, keys("b0c2")?); // a horse moved: the same pawns, guards and material
/// assert_ne!(keys("h0g2")?, keys("c3c4")?); // a pawn moved
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionKeys([usize; CORRECTION_KINDS]);

impl CorrectionKeys {
    /// The slots of `pos`, for its side to move: one by the placement of both sides' pawns,
    /// advisors and elephants, one by the material.
    ///
    /// ```
    /// use qiku::engine::ordering::CorrectionKeys;
    /// use qiku::{notation::iccs, Position};
    ///
    /// let start = Position::startpos();
    /// // Both cannons moved: the same pawns, guards and material, red to move again.
    /// let mut pos = start.play(iccs::parse(&start, "h2e2")?)?;
    /// pos = pos.play(iccs::parse(&pos, "h7e7")?)?;
    /// assert_eq!(CorrectionKeys::new(&pos), CorrectionKeys::new(&start));
    /// // Black to move has slots of its own.
    /// let black = start.play(iccs::parse(&start, "h0g2")?)?;
    /// assert_ne!(CorrectionKeys::new(&black), CorrectionKeys::new(&start));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn new(pos: &Position) -> CorrectionKeys {
        let structure = |c: Color| {
            let b =
                (pos.by_role(Role::Pawn) | pos.by_role(Role::Advisor) | pos.by_role(Role::Elephant)) & pos.by_color(c);
            (b.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((b.0 >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        };
        let s = structure(Color::Red) ^ structure(Color::Black).rotate_left(31).wrapping_mul(0x1656_67B1_9E37_79F9);
        let side = pos.turn().index() * CORRECTION_KINDS * CORRECTION_SIZE;
        let slot = |h: u64| (h >> (64 - CORRECTION_BITS)) as usize;
        CorrectionKeys([side + slot(s), side + CORRECTION_SIZE + slot(pos.material_key())])
    }
}

/// Where a continuation-history row starts: the move before (its piece and destination square).
///
/// ```
/// use qiku::engine::ordering::{ContKey, History};
/// use qiku::{notation::iccs, Position};
///
/// let pos = Position::startpos();
/// let (cannon_move, horse_move) = (iccs::parse(&pos, "h2e2")?, iccs::parse(&pos, "h0g2")?);
/// let after = pos.play(cannon_move)?;
/// let reply = iccs::parse(&after, "h9g7")?;
/// let piece = after.piece_at(reply.from()).expect("a horse");
/// let after_cannon = ContKey::new(pos.piece_at(cannon_move.from()).unwrap(), cannon_move);
/// let after_horse = ContKey::new(pos.piece_at(horse_move.from()).unwrap(), horse_move);
/// let mut history = History::default();
/// history.update_all(piece, reply, [Some(after_cannon), None], 1000);
/// assert_eq!(history.quiet_score(piece, reply, [Some(after_cannon), None]), 2000);
/// assert_eq!(history.quiet_score(piece, reply, [Some(after_horse), None]), 1000); // learned after h2e2 only
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContKey(usize);

impl ContKey {
    /// The row of the move that brought `piece` to `m`'s destination.
    ///
    /// ```
    /// use qiku::engine::ordering::ContKey;
    /// use qiku::{notation::iccs, Move, Position};
    ///
    /// let pos = Position::startpos();
    /// let horse = pos.piece_at("h0".parse()?).expect("a horse");
    /// let to_g2 = iccs::parse(&pos, "h0g2")?;
    /// assert_ne!(ContKey::new(horse, to_g2), ContKey::new(horse, iccs::parse(&pos, "h0i2")?));
    /// // Only the piece and its destination count, not where it came from.
    /// assert_eq!(ContKey::new(horse, to_g2), ContKey::new(horse, Move::new("e3".parse()?, "g2".parse()?)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn new(piece: Piece, m: Move) -> ContKey {
        ContKey(cell(piece, m) * CONT_ROW)
    }
}

/// The cell of `piece` moving to `m`'s destination in the main table and in a row of the
/// continuation histories.
#[inline]
fn cell(piece: Piece, m: Move) -> usize {
    piece.index() * 90 + m.to().index()
}

#[inline]
fn gravity(h: &mut i32, bonus: i32) {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *h += b - (*h as i64 * b.abs() as i64 / HISTORY_MAX as i64) as i32;
}

impl History {
    #[inline]
    /// The history score of `piece` moving to `m`'s target square.
    ///
    /// ```
    /// use qiku::engine::ordering::History;
    /// use qiku::{notation::iccs, Move, Position};
    ///
    /// let pos = Position::startpos();
    /// let m = iccs::parse(&pos, "h2e2")?;
    /// let cannon = pos.piece_at(m.from()).expect("a cannon");
    /// let mut history = History::default();
    /// history.update(cannon, m, -300); // a malus: it failed to cut off
    /// assert_eq!(history.get(cannon, m), -300);
    /// // Kept by piece and destination: the other cannon going to e2 shares the score.
    /// assert_eq!(history.get(cannon, Move::new("b2".parse()?, "e2".parse()?)), -300);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, piece: Piece, m: Move) -> i32 {
        self.table[piece.index()][m.to().index()]
    }

    /// Adds `bonus` (negative for a malus), with the "gravity" form that keeps values bounded:
    /// the larger a value already is, the less it grows.
    ///
    /// ```
    /// use qiku::engine::ordering::History;
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let m = iccs::parse(&pos, "h2e2")?;
    /// let cannon = pos.piece_at(m.from()).expect("a cannon");
    /// let mut history = History::default();
    /// assert_eq!(history.get(cannon, m), 0);
    /// history.update(cannon, m, 1000); // it caused a cutoff
    /// assert_eq!(history.get(cannon, m), 1000);
    /// history.update(cannon, m, 1000); // the same bonus again adds a little less
    /// assert_eq!(history.get(cannon, m), 1998);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn update(&mut self, piece: Piece, m: Move, bonus: i32) {
        self.write(cell(piece, m), bonus);
    }

    /// The combined quiet-move score of `piece` moving to `m`'s destination after the moves
    /// keyed by `cont` (one and two plies before; `None` where there is none): the history plus
    /// both continuation histories, within +-3 [`HISTORY_MAX`].
    ///
    /// ```
    /// use qiku::engine::ordering::{ContKey, History, HISTORY_MAX};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let m = iccs::parse(&pos, "h0g2")?;
    /// let horse = pos.piece_at(m.from()).expect("a horse");
    /// let cont = [Some(ContKey::new(horse, m)), Some(ContKey::new(horse, iccs::parse(&pos, "b0c2")?))];
    /// let mut history = History::default();
    /// for _ in 0..3 {
    ///     history.update_all(horse, m, cont, 2 * HISTORY_MAX); // the bonus is capped, the values too
    /// }
    /// assert_eq!(history.quiet_score(horse, m, cont), 3 * HISTORY_MAX);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn quiet_score(&self, piece: Piece, m: Move, cont: [Option<ContKey>; 2]) -> i32 {
        let i = cell(piece, m);
        let mut s = self.table.as_flattened()[i];
        for k in cont.into_iter().flatten() {
            s += self.cont[k.0 + i];
        }
        s
    }

    /// [`History::update`] plus the continuation histories after the moves keyed by `cont`.
    ///
    /// ```
    /// use qiku::engine::ordering::{ContKey, History};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let first = iccs::parse(&pos, "h2e2")?;
    /// let after = pos.play(first)?;
    /// let reply = iccs::parse(&after, "h9g7")?;
    /// let (cannon, horse) = (pos.piece_at(first.from()).unwrap(), after.piece_at(reply.from()).unwrap());
    /// let cont = [Some(ContKey::new(cannon, first)), None];
    /// let mut history = History::default();
    /// history.update_all(horse, reply, cont, 1000);
    /// // The history and the continuation history after h2e2 both count.
    /// assert_eq!(history.quiet_score(horse, reply, cont), 2000);
    /// assert_eq!(history.quiet_score(horse, reply, [None; 2]), 1000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn update_all(&mut self, piece: Piece, m: Move, cont: [Option<ContKey>; 2], bonus: i32) {
        let i = cell(piece, m);
        self.write(i, bonus);
        for k in cont.into_iter().flatten() {
            self.write(CONT_ROW + k.0 + i, bonus);
        }
    }

    /// How much to add to the static evaluation of the position of `keys`: what searches of
    /// positions with the same pawns and guards, and with the same material, found beyond their
    /// static evaluation.
    ///
    /// ```
    /// use qiku::engine::ordering::{CorrectionKeys, History};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let start = Position::startpos();
    /// let keys = CorrectionKeys::new(&start);
    /// let mut history = History::default();
    /// history.update_correction(keys, -80, 8); // a depth-8 search found 80 less than the evaluation
    /// assert_eq!(history.correction(keys), -10);
    /// let black = start.play(iccs::parse(&start, "h0g2")?)?; // black to move: its own slots
    /// assert_eq!(history.correction(CorrectionKeys::new(&black)), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn correction(&self, keys: CorrectionKeys) -> i32 {
        keys.0.iter().map(|&k| self.correction[k]).sum::<i32>() / CORRECTION_GRAIN
    }

    /// A search of depth `depth` found `diff` more than the (corrected) static evaluation.
    ///
    /// ```
    /// use qiku::engine::ordering::{CorrectionKeys, History};
    /// use qiku::Position;
    ///
    /// let keys = CorrectionKeys::new(&Position::startpos());
    /// let mut history = History::default();
    /// assert_eq!(history.correction(keys), 0);
    /// // A depth-8 search found 40 more than the static evaluation: a step towards it.
    /// history.update_correction(keys, 40, 8);
    /// assert_eq!(history.correction(keys), 5);
    /// ```
    #[inline]
    pub fn update_correction(&mut self, keys: CorrectionKeys, diff: i32, depth: i32) {
        let bonus = (diff * depth / 8).clamp(-CORRECTION_MAX / 4, CORRECTION_MAX / 4);
        for &k in &keys.0 {
            let h = &mut self.correction[k];
            *h += bonus - *h * bonus.abs() / CORRECTION_MAX;
        }
    }

    /// Halves every value (between searches: old knowledge counts less).
    ///
    /// ```
    /// use qiku::engine::ordering::History;
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let m = iccs::parse(&pos, "h2e2")?;
    /// let cannon = pos.piece_at(m.from()).expect("a cannon");
    /// let mut history = History::default();
    /// history.update(cannon, m, 1000);
    /// history.age();
    /// assert_eq!(history.get(cannon, m), 500);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn age(&mut self) {
        for row in self.table.iter_mut() {
            for v in row.iter_mut() {
                *v /= 2;
            }
        }
        for v in self.cont.iter_mut() {
            *v /= 2;
        }
    }

    /// Forgets everything (a new game).
    ///
    /// ```
    /// use qiku::engine::ordering::History;
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let m = iccs::parse(&pos, "h2e2")?;
    /// let cannon = pos.piece_at(m.from()).expect("a cannon");
    /// let mut history = History::default();
    /// history.update(cannon, m, 1000);
    /// history.clear();
    /// assert_eq!(history.get(cannon, m), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clear(&mut self) {
        *self = History::default();
    }
}

/// The MVV/LVA value of a capture: victim first, attacker as tie-break.
///
/// ```
/// use qiku::engine::ordering::mvv_lva;
/// use qiku::Role;
///
/// // The victim counts first: a rook taking a rook before a pawn taking a cannon.
/// assert!(mvv_lva(Role::Rook, Role::Rook) > mvv_lva(Role::Cannon, Role::Pawn));
/// // Then the cheaper attacker.
/// assert!(mvv_lva(Role::Rook, Role::Pawn) > mvv_lva(Role::Rook, Role::Rook));
/// ```
#[inline]
pub fn mvv_lva(victim: Role, attacker: Role) -> i32 {
    PIECE_VALUE[victim.index()] * 16 - PIECE_VALUE[attacker.index()] / 16
}

/// Is the capture `m` likely to lose material: a dearer piece takes a cheaper one that is
/// defended (after the capture, the capturer's old square is empty)? A cheap stand-in for a static
/// exchange evaluation. A king defends only the palace squares next to it: its open file counts
/// against the other king alone (the flying general), not as a defence of what stands on it.
///
/// ```
/// use qiku::engine::ordering::is_bad_capture;
/// use qiku::{notation::iccs, Position};
///
/// // A cannon taking a horse the rook defends.
/// let start = Position::startpos();
/// assert!(is_bad_capture(&start, iccs::parse(&start, "h2h9")?));
/// // A rook taking an undefended pawn.
/// let pos = Position::from_fen("3k5/9/9/9/4p4/9/9/9/4R4/4K4 w - - 0 1")?;
/// assert!(!is_bad_capture(&pos, iccs::parse(&pos, "e1e5")?));
/// // A rook taking a pawn on the black king's open file: the king does not defend it there...
/// let pos = Position::from_fen("4k4/9/9/9/R3p4/9/9/9/9/3K5 w - - 0 1")?;
/// assert!(!is_bad_capture(&pos, iccs::parse(&pos, "a5e5")?));
/// // ...but it does defend an advisor next to it.
/// let pos = Position::from_fen("4k4/R3a4/9/9/9/9/9/9/9/3K5 w - - 0 1")?;
/// assert!(is_bad_capture(&pos, iccs::parse(&pos, "a8e8")?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn is_bad_capture(pos: &Position, m: Move) -> bool {
    let (Some(attacker), Some(victim)) = (pos.piece_at(m.from()), pos.piece_at(m.to())) else { return false };
    if PIECE_VALUE[victim.role.index()] >= PIECE_VALUE[attacker.role.index()] || attacker.role == Role::King {
        return false;
    }
    let occ = pos.occupied().without(m.from());
    if !pos.is_attacked_with(m.to(), victim.color, occ) {
        return false;
    }
    let king = pos.king(victim.color);
    attacks::king_attacks(m.to()).contains(king) || pos.attackers_with(m.to(), victim.color, occ).without(king).any()
}

/// Bits of a picker key below the score: the list position's tag.
const TAG_BITS: u32 = 7;
const TAG_MASK: i32 = (1 << TAG_BITS) - 1;
const _: () = assert!(MoveList::CAPACITY <= 1 << TAG_BITS);
// Every score (the bands above plus MVV/LVA, or history within +-1.5 HISTORY_MAX) times 128 fits
// an `i32`.
const _: () = assert!(TT_MOVE + (1 << 16) < i32::MAX >> TAG_BITS && 3 * HISTORY_MAX / 2 < i32::MAX >> TAG_BITS);

/// The picker's key of a move scored `score` at list position `i`: the score, then the earlier
/// position first among equal scores (the tag `CAPACITY - 1 - i` is larger for earlier moves).
/// One `max` over the keys is then the selection sort's "first best".
#[inline(always)]
fn key(score: i32, i: usize) -> i32 {
    (score << TAG_BITS) | (TAG_MASK - i as i32)
}

/// Hands out the moves of a list best-first (selection sort: most nodes cut off after one or
/// two moves, so sorting the whole list would waste time). Ties go to the move earlier in the
/// list as it stands after the previous picks' swaps.
///
/// ```
/// use qiku::engine::ordering::{History, MovePicker};
/// use qiku::{notation::iccs, Position};
///
/// let pos = Position::startpos();
/// let tt = iccs::parse(&pos, "c3c4")?;
/// let mut picker = MovePicker::new(&pos, pos.moves(), Some(tt), [None; 2], &History::default(), [None; 2]);
/// assert_eq!(picker.next(), Some(tt)); // the table move first
/// assert_eq!(picker.count(), 43); // then every other legal move once
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MovePicker {
    moves: MoveList,
    /// Per list position: [`key`] of its move's score and the position.
    keys: [i32; MoveList::CAPACITY],
    next: usize,
}

impl MovePicker {
    /// Orders all `moves` of `pos`.
    ///
    /// ```
    /// use qiku::engine::ordering::{History, MovePicker};
    /// use qiku::{notation::iccs, Position};
    ///
    /// let pos = Position::startpos();
    /// let (tt, killer) = (iccs::parse(&pos, "b0c2")?, iccs::parse(&pos, "h0g2")?);
    /// let picker = MovePicker::new(&pos, pos.moves(), Some(tt), [Some(killer), None], &History::default(), [None; 2]);
    /// assert_eq!((picker.len(), picker.is_empty()), (44, false));
    /// let order: Vec<String> = picker.map(|m| m.to_string()).collect();
    /// // The table move, the killer, then the captures that lose the cannon, then the quiet moves.
    /// assert_eq!(order[..2], ["b0c2", "h0g2"]);
    /// assert!(order[2..4].contains(&"h2h9".to_string()) && order[2..4].contains(&"b2b9".to_string()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        pos: &Position,
        moves: MoveList,
        tt_move: Option<Move>,
        killers: [Option<Move>; 2],
        history: &History,
        cont: [Option<ContKey>; 2],
    ) -> Self {
        let mut keys = [0; MoveList::CAPACITY];
        for (i, &m) in moves.iter().enumerate() {
            let score = if Some(m) == tt_move {
                TT_MOVE
            } else if let Some(victim) = pos.piece_at(m.to()) {
                let attacker = pos.piece_at(m.from()).map_or(Role::Pawn, |p| p.role);
                let band = if is_bad_capture(pos, m) { BAD_CAPTURE } else { GOOD_CAPTURE };
                band + mvv_lva(victim.role, attacker)
            } else if Some(m) == killers[0] {
                KILLER_1
            } else if Some(m) == killers[1] {
                KILLER_2
            } else {
                // Within +-1.5 HISTORY_MAX: below the bad captures' band.
                pos.piece_at(m.from()).map_or(0, |p| history.quiet_score(p, m, cont) / 2)
            };
            keys[i] = key(score, i);
        }
        MovePicker { moves, keys, next: 0 }
    }

    /// Captures only, by MVV/LVA (quiescence search).
    ///
    /// ```
    /// use qiku::engine::ordering::MovePicker;
    /// use qiku::{MoveList, Position};
    ///
    /// // Red's rook can take a cannon (e7) or a pawn (a1).
    /// let pos = Position::from_fen("4k4/9/4c4/9/9/9/9/9/p3R4/3K5 w - - 0 1")?;
    /// let mut captures = MoveList::new();
    /// pos.legal_captures(&mut captures);
    /// let order: Vec<String> = MovePicker::captures(&pos, captures).map(|m| m.to_string()).collect();
    /// assert_eq!(order, ["e1e7", "e1a1"]); // the most valuable victim first
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn captures(pos: &Position, moves: MoveList) -> Self {
        let mut keys = [0; MoveList::CAPACITY];
        for (i, &m) in moves.iter().enumerate() {
            let attacker = pos.piece_at(m.from()).map_or(Role::Pawn, |p| p.role);
            keys[i] = key(pos.piece_at(m.to()).map_or(0, |v| mvv_lva(v.role, attacker)), i);
        }
        MovePicker { moves, keys, next: 0 }
    }

    /// Number of moves the picker holds.
    ///
    /// ```
    /// use qiku::engine::ordering::MovePicker;
    /// use qiku::{MoveList, Position};
    ///
    /// let pos = Position::from_fen("4k4/9/4c4/9/9/9/9/9/p3R4/3K5 w - - 0 1")?;
    /// let mut captures = MoveList::new();
    /// pos.legal_captures(&mut captures);
    /// let mut picker = MovePicker::captures(&pos, captures);
    /// assert_eq!(picker.len(), 2);
    /// picker.next();
    /// assert_eq!(picker.len(), 2); // all it holds, picked or not
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether it holds none.
    ///
    /// ```
    /// use qiku::engine::ordering::{History, MovePicker};
    /// use qiku::Position;
    ///
    /// let mated = Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?; // no legal move
    /// let mut picker = MovePicker::new(&mated, mated.moves(), None, [None; 2], &History::default(), [None; 2]);
    /// assert!(picker.is_empty());
    /// assert_eq!(picker.next(), None);
    /// # Ok::<(), qiku::PositionError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    #[inline]
    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let next = self.next;
        // The largest key: the best score, first in the list among equals (branch-free, so the
        // compiler can vectorise it).
        let top = self.keys[next..n].iter().fold(i32::MIN, |a, &k| a.max(k));
        let best = (TAG_MASK - (top & TAG_MASK)) as usize;
        // Swap the moves and their scores; each key keeps the tag of its position.
        let displaced = self.keys[next];
        self.keys[best] = (displaced & !TAG_MASK) | (TAG_MASK - best as i32);
        self.moves.swap(next, best);
        self.next = next + 1;
        Some(self.moves[next])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    #[test]
    fn correction_follows_the_searches_and_stays_bounded() {
        let pos = Position::startpos();
        let keys = CorrectionKeys::new(&pos);
        let mut history = History::default();
        assert_eq!(history.correction(keys), 0);
        // One search a little above the evaluation: a small step towards it.
        history.update_correction(keys, 40, 8);
        assert_eq!(history.correction(keys), 2 * 40 / CORRECTION_GRAIN);
        // However often a search finds far more, the correction stays within its bound.
        for _ in 0..1000 {
            history.update_correction(keys, 5_000, 20);
        }
        let top = history.correction(keys);
        assert!(top > 100 && top <= 2 * CORRECTION_MAX / CORRECTION_GRAIN, "{top}");
        // And it comes back when the searches say otherwise.
        for _ in 0..1000 {
            history.update_correction(keys, -5_000, 20);
        }
        assert!(history.correction(keys) < -100);
        // The other side to move has tables of its own.
        let black = Position::from_fen("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b").unwrap();
        assert_eq!(history.correction(CorrectionKeys::new(&black)), 0);
    }

    #[test]
    fn order_tt_captures_killers_history() {
        // The bands in order: the table move, captures, killers, quiet moves by history.
        let pos = Position::startpos();
        let tt = iccs::parse(&pos, "b0c2").ok();
        let killer = iccs::parse(&pos, "h0g2").ok();
        let mut history = History::default();
        let quiet = iccs::parse(&pos, "a3a4").unwrap();
        history.update(pos.piece_at(quiet.from()).unwrap(), quiet, 1000);
        let picked: Vec<Move> = MovePicker::new(&pos, pos.moves(), tt, [killer, None], &history, [None; 2]).collect();
        assert_eq!(picked.len(), 44);
        assert_eq!(Some(picked[0]), tt);
        // h2h9 and b2b9 capture a horse defended by a rook with a dearer cannon: bad captures,
        // after the killer and before the quiet moves.
        let capture = iccs::parse(&pos, "h2h9").unwrap();
        assert!(is_bad_capture(&pos, capture));
        assert_eq!(Some(picked[1]), killer);
        assert!(picked[2..4].contains(&capture));
        assert_eq!(picked[4], quiet);
    }

    #[test]
    fn the_journal_shows_the_history_as_it_stood_at_its_mark() {
        let pos = Position::startpos();
        let a = iccs::parse(&pos, "h2e2").unwrap();
        let b = iccs::parse(&pos, "b0c2").unwrap();
        let (pa, pb) = (pos.piece_at(a.from()).unwrap(), pos.piece_at(b.from()).unwrap());
        let cont = [Some(ContKey::new(pa, a)), None];
        let mut h = History::default();
        h.update_all(pa, a, cont, 1000);
        let outer = h.open_journal();
        h.update_all(pa, a, cont, 5000);
        let inner = h.open_journal();
        h.update_all(pb, b, cont, -700);
        h.update_all(pa, a, cont, 300);
        let now = (h.quiet_score(pa, a, cont), h.quiet_score(pb, b, cont));
        // As at the inner mark: a's second bonus in, b's malus and a's third bonus out.
        let at_inner = h.as_at(inner, |h| (h.quiet_score(pa, a, cont), h.quiet_score(pb, b, cont)));
        h.close_journal(inner);
        let at_outer = h.as_at(outer, |h| (h.quiet_score(pa, a, cont), h.quiet_score(pb, b, cont)));
        h.close_journal(outer);
        let mut fresh = History::default();
        fresh.update_all(pa, a, cont, 1000);
        assert_eq!(at_outer, (fresh.quiet_score(pa, a, cont), 0));
        fresh.update_all(pa, a, cont, 5000);
        assert_eq!(at_inner, (fresh.quiet_score(pa, a, cont), 0));
        fresh.update_all(pb, b, cont, -700);
        fresh.update_all(pa, a, cont, 300);
        // And afterwards the history is what the writes made it.
        assert_eq!(now, (fresh.quiet_score(pa, a, cont), fresh.quiet_score(pb, b, cont)));
        assert_eq!((h.quiet_score(pa, a, cont), h.quiet_score(pb, b, cont)), now);
        assert!(now.1 < 0 && now.0 > at_inner.0);
        // Closed, nothing more is recorded.
        assert!(h.journal.writes.is_empty() && h.journal.open == 0);
    }

    #[test]
    fn history_stays_bounded() {
        let pos = Position::startpos();
        let m = iccs::parse(&pos, "h2e2").unwrap();
        let p = pos.piece_at(m.from()).unwrap();
        let mut h = History::default();
        for _ in 0..10_000 {
            h.update(p, m, 400_000);
        }
        assert!(h.get(p, m) <= HISTORY_MAX);
        for _ in 0..10_000 {
            h.update(p, m, -400_000);
        }
        assert!(h.get(p, m) >= -HISTORY_MAX);
    }
}
