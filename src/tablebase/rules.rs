//! Rule-aware values: the Asian (AXF) perpetual-check rule applied to a solved table.
//!
//! The plain solve scores every cycle as a draw. Under AXF rule 6 a side that checks on every
//! move of a cycle while the other side does not loses; both checking throughout (rule 7) is a
//! draw. Wins and losses of the plain solve never change: the winner's DTM line strictly shortens
//! the distance, so it never repeats a position and no rule can apply to it. Only drawn entries
//! can change, and this pass decides which, for each side as the *attacker* `A` (the side that
//! may win by the rule) against the *defender* `X` (who would have to check forever):
//!
//! 1. **Forced band.** The attractor of what `A` already wins (plain wins, and captures into
//!    smaller tables' rule-aware wins): `A` to move with a move into an entry `X` loses; `X` to
//!    move with every move into an entry `A` wins. Retrograde, with counters, by increasing
//!    distance (min over `A`'s moves + 1, max over `X`'s moves + 1), every distance at least the
//!    band's start.
//! 2. **Perpetual band.** The defenders that can only check: `X` to move, undecided, every
//!    non-check move (and every capture) loses. On the graph of those entries and the entries
//!    their checks lead to, the greatest set `Z` such that `X` in `Z` has every check answered
//!    inside `Z`, and `A` in `Z` can reach, through its own checks and `X`'s forced replies, an
//!    entry where it makes a *non-check* move back into `Z` (a Büchi game: nested fixpoint).
//!    Distances within `Z` count plies to that non-check move ("reset"): `A`'s base entries get
//!    `start + 1`, `X` one more than its largest reply, `A` one more than its best checking move.
//! 3. Repeat 1 (from `Z`, in a new band above every distance so far) and 2 until nothing changes.
//!
//! **The winning line.** The winner, at an entry of distance `d`, plays the move into the
//! smallest distance below `d` if there is one, otherwise (a reset) the non-check move into the
//! smallest distance ([`super::bands::choose`]). Every `X` move leads below `d`; in a perpetual band a non-check
//! move of `X` leads below the band; resets stay within the band or below; so the band never
//! rises along the play. Between two occurrences of a position the band is then constant, and
//! since distances only rise at resets, the stretch contains a reset (a non-check by `A`) and only
//! checks by `X`: the referee declares `X`'s perpetual check at the third occurrence (or `X`
//! leaves the band downwards and the argument repeats lower; the forced bands end in mate or in
//! a capture into a smaller table, decided the same way). [`super::verify`] checks exactly these
//! local conditions, per band.
//!
//! Distances of a changed entry are therefore not plies to mate but a *well-founded rank*: it
//! shrinks on every move of the line except resets, and bounds the plies to the next reset.
//!
//! **Directions that change nothing** are skipped ([`solve`] with its shortcuts; the files are
//! the same bytes either way, which `tests/tablebase_rule_skip.rs` checks). The values the pass
//! sees before direction `A` are the plain values, plus the other direction's changes, which are
//! all wins of `X`.
//!
//! - *Every table a capture leads to has the same wins of `A` under both rules*
//!   ([`captures_agree`]; a table the rules do not change at all is the same `Arc` as its plain
//!   one and needs no scan). Then the forced band is empty. Proof: an undecided (plain-drawn)
//!   entry with `A` to move has no move into an entry `A` wins: inside the table `A`'s wins are
//!   its plain wins, behind a capture they are those of the plain table the solver used, and such
//!   a move would have made the entry a plain win. With `X` to move, `X` has a legal move (no
//!   move is a plain loss) and one that does not lose (else a plain loss). So nothing is queued,
//!   and the first perpetual band is computed exactly as the full pass would, from the same
//!   values, but without the pass's counters (an undecided `X` entry always has a move that does
//!   not lose, which is all the counters would add) and without generating every undecided
//!   entry's moves. If that band is empty the direction ends there and changes nothing;
//!   otherwise it is run in full.
//! - *Besides, `X` has only its king, advisors and elephants*: the perpetual band is empty
//!   without looking at an entry, so the direction is skipped at once. Proof: an entry of `X`
//!   enters it only if every move that does not lose gives check, and it has such a move, while
//!   no move of `X` gives check. Advisors and elephants never leave their own half, where `A`'s
//!   king is not; the king gives no check by moving (a king facing the other along an open file
//!   is illegal for the side that moved); and a discovered check needs a rook, cannon, horse or
//!   pawn of `X` behind the piece that moved, and `X` has none. (The captures then always agree:
//!   a smaller table's `X` has no attacking piece either, so by induction its direction `A`
//!   changes nothing. It is checked anyway.)
//!
//! In family A both apply to the side with the attacking piece as `A`, and the first to the other
//! side (which wins at most by stalemating the piece's side), whose perpetual band was empty in
//! all 264 tables of family A up to 8 pieces when this was measured.
//!
//! When both directions are skipped the rule-aware values are the plain values: they are not
//! copied, and the companion is written from its all-zero blocks.
//!
//! **Entry numbers.** The pass keeps entry numbers in its queue and in the perpetual band's lists
//! (and ids into those lists, never more than the entries), as an [`Entry`]: 4 bytes (`u32`) for
//! a table of at most 2^32 entries, every table of up to 5 pieces and most of 6, and 8 bytes
//! (`u64`) beyond, chosen per table ([`solve`]), so the ordinary tables take no more memory than
//! before. The width changes no value: the pass does the same steps in the same order with
//! either (a test runs a table both ways and compares the companions' bytes).

pub(crate) use super::bands::{Band, BandKind};
use super::board::{child_squares, Board, Found};
use super::error::TbError;
use super::index::{Layout, Squares, MAX_PIECES};
use super::material::Material;
use super::solve::{capture_targets, predecessors, side_and_index, CaptureTarget, Table};
use super::value::{self, dtm_of, Counts, DRAW, MAX_DTM_U16};
use crate::core::Color;
use crate::util::progress::Progress;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;

/// A table's values under the Asian rules.
pub struct RuleTable {
    /// Every entry's rule-aware code (the plain code where nothing changed); `None` when both
    /// directions were skipped (see the module doc): the rule-aware codes are the plain codes.
    pub table: Option<Table>,
    /// The bands of the changed entries' distances, ascending.
    pub bands: Vec<Band>,
    /// The directions (red attacking, black attacking) skipped because they provably change
    /// nothing.
    pub skipped: [bool; 2],
}

/// Positions (mirror images counted as in [`Counts`]) drawn without the rule and decided with it,
/// per side to move (red, black), from a table's counts and its rule-aware counts.
pub fn changed(plain: &[Counts; 2], rule: &[Counts; 2]) -> [u64; 2] {
    [0, 1].map(|s| plain[s].draws - rule[s].draws)
}

/// The rule-aware table of `plain`, given the plain and rule-aware tables of every material its
/// captures lead to (`plain_subs`, `subs`, canonical materials). With `shortcuts`, a direction
/// that provably changes nothing is skipped (see the module doc); without, every direction is
/// run in full (the same values: a test compares both).
pub fn solve(
    plain: &Table,
    plain_subs: &HashMap<Material, Arc<Table>>,
    subs: &HashMap<Material, Arc<Table>>,
    shortcuts: bool,
    bar: &dyn Progress,
) -> Result<RuleTable, TbError> {
    if fits_u32(plain.values.len()) {
        solve_as::<u32>(plain, plain_subs, subs, shortcuts, bar)
    } else {
        solve_as::<u64>(plain, plain_subs, subs, shortcuts, bar)
    }
}

/// Can every entry of a table of `n` entries (and every id into a list of them) be numbered in
/// a `u32`?
fn fits_u32(n: usize) -> bool {
    n as u64 <= 1 << 32
}

/// An entry number (or an id into a list of entries) as the pass stores it: `u32` or `u64`, see
/// "Entry numbers" in the module doc.
trait Entry: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    /// Entry `e`; it fits, by the choice of the width (checked in debug builds).
    fn of(e: usize) -> Self;
    /// The entry as an index.
    fn index(self) -> usize;
}

impl Entry for u32 {
    #[inline]
    fn of(e: usize) -> u32 {
        debug_assert!(u32::try_from(e).is_ok(), "entry {e} past 32 bits");
        e as u32
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

impl Entry for u64 {
    #[inline]
    fn of(e: usize) -> u64 {
        e as u64
    }

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// [`solve`] with entry numbers of type `E` (any width that numbers every entry gives the same
/// result).
fn solve_as<E: Entry>(
    plain: &Table,
    plain_subs: &HashMap<Material, Arc<Table>>,
    subs: &HashMap<Material, Arc<Table>>,
    shortcuts: bool,
    bar: &dyn Progress,
) -> Result<RuleTable, TbError> {
    let layout = &plain.layout;
    let captures = capture_targets(layout, subs)?;
    // Directions whose forced band is empty: the captures agree with the plain solve's.
    let agree = Color::ALL.map(|a| shortcuts && captures_agree(&captures, plain_subs, a));
    // Of those, the ones whose perpetual band is empty too: the defender never checks.
    let mut skipped = Color::ALL.map(|a| agree[a.index()] && !layout.material.side_has_attackers(!a));
    if skipped == [true, true] {
        return Ok(RuleTable { table: None, bands: Vec::new(), skipped });
    }
    let mut floor = max_distance(&plain.values);
    for t in captures.iter().flatten().filter_map(|c| c.table.as_ref()) {
        floor = floor.max(max_distance(&t.values));
    }
    // The values are copied only when a direction is run in full.
    let mut state: Option<State> = None;
    let mut next = even_above(floor);
    for attacker in Color::ALL {
        if skipped[attacker.index()] {
            continue;
        }
        let out = state.as_ref().map_or(&plain.values[..], |s| &s.out[..]);
        if agree[attacker.index()] {
            bar.message(&format!("rules: {attacker} attacking, perpetual checks only"));
            if Pass::<E>::light(layout, &plain.values, &captures, attacker).perpetual_core(out, next).is_empty() {
                skipped[attacker.index()] = true;
                continue;
            }
        }
        bar.message(&format!("rules: {attacker} attacking"));
        let state = state.get_or_insert_with(|| State { out: plain.values.clone(), bands: Vec::new(), next });
        let mut pass = Pass::<E>::new(layout, &plain.values, &captures, attacker);
        pass.run(state, layout.material)?;
        next = state.next;
    }
    Ok(match state {
        Some(s) => RuleTable { table: Some(Table { layout: layout.clone(), values: s.out }), bands: s.bands, skipped },
        None => RuleTable { table: None, bands: Vec::new(), skipped },
    })
}

/// Is `code`, at entry `e`, a win for `color`?
fn wins(layout: &Layout, code: u16, e: usize, color: Color) -> bool {
    let (turn, _) = side_and_index(layout, e);
    dtm_of(code).is_some_and(|d| (d % 2 == 1) == (turn == color))
}

/// Does every table a capture leads to have the same wins for `attacker` under both rules?
/// (`plain_subs` holds the plain tables of the rule-aware `captures`; a missing one answers
/// false.) Then the forced band of its direction is empty (see the module doc).
fn captures_agree(
    captures: &[Option<CaptureTarget>],
    plain_subs: &HashMap<Material, Arc<Table>>,
    attacker: Color,
) -> bool {
    captures.iter().flatten().all(|target| {
        let Some(rule) = &target.table else { return true };
        let Some(plain) = plain_subs.get(&rule.layout.material) else { return false };
        if Arc::ptr_eq(plain, rule) {
            // The rules changed nothing there (the driver then holds the plain values only).
            return true;
        }
        // The attacker's color in the smaller table.
        let a = if target.flip { !attacker } else { attacker };
        same_wins(plain, rule, a)
    })
}

/// Does `color` win exactly the same entries in `plain` and `rule` (same table)?
fn same_wins(plain: &Table, rule: &Table, color: Color) -> bool {
    if plain.values.len() != rule.values.len() {
        return false;
    }
    let layout = &plain.layout;
    plain
        .values
        .par_iter()
        .zip(&rule.values)
        .enumerate()
        .all(|(e, (&p, &r))| p == r || wins(layout, p, e, color) == wins(layout, r, e, color))
}

fn max_distance(values: &[u16]) -> u32 {
    values.par_iter().filter_map(|&c| dtm_of(c)).max().unwrap_or(0) as u32
}

/// A distance as a capture bound of 2 bytes (see `Pass::cap`).
fn saturate(d: u32) -> u16 {
    d.min(u32::from(u16::MAX)) as u16
}

/// The smallest even number above `d`.
fn even_above(d: u32) -> u32 {
    (d + 2) & !1
}

/// What both attackers' passes share: the values so far, the bands, the next band's start.
struct State {
    out: Vec<u16>,
    bands: Vec<Band>,
    next: u32,
}

/// A move's child as the pass sees it.
#[derive(Copy, Clone)]
struct Child<E> {
    /// Its code (rule-aware for captures, current for entries of this table).
    code: u16,
    /// Its entry in this table; `None` after a capture.
    entry: Option<E>,
}

struct Pass<'a, E> {
    layout: &'a Layout,
    plain: &'a [u16],
    captures: &'a [Option<CaptureTarget>],
    attacker: Color,
    /// For the defender's undecided entries: moves not (yet) into entries the attacker wins.
    cnt: Vec<u8>,
    /// For the defender's entries: 1 + the largest distance among those losing moves.
    /// (2 bytes: a distance past [`MAX_DTM_U16`] is stored as `u16::MAX`, still past it, and
    /// refused when settled as before.)
    cap: Vec<u16>,
    /// Pending settlements by distance.
    queue: BTreeMap<u32, Vec<E>>,
}

const CHUNK: usize = 1 << 12;

impl<'a, E: Entry> Pass<'a, E> {
    fn new(layout: &'a Layout, plain: &'a [u16], captures: &'a [Option<CaptureTarget>], attacker: Color) -> Self {
        let n = plain.len();
        Pass { layout, plain, captures, attacker, cnt: vec![0; n], cap: vec![0; n], queue: BTreeMap::new() }
    }

    /// A pass without counters, only for [`perpetual_core`](Self::perpetual_core) where the
    /// forced band is empty (the captures agree with the plain solve: see the module doc).
    fn light(layout: &'a Layout, plain: &'a [u16], captures: &'a [Option<CaptureTarget>], attacker: Color) -> Self {
        Pass { layout, plain, captures, attacker, cnt: Vec::new(), cap: Vec::new(), queue: BTreeMap::new() }
    }

    /// Is `code`, for the side to move `mover` of a child, a win for the attacker?
    fn won_for_attacker(&self, code: u16, mover: Color) -> bool {
        dtm_of(code).is_some_and(|d| (d % 2 == 1) == (mover == self.attacker))
    }

    /// The entry's squares and board (`None` for an overlapping placement).
    fn board(&self, e: usize) -> Option<(Color, Squares, Board<'a>)> {
        let (turn, idx) = side_and_index(self.layout, e);
        let mut sq = [0u8; MAX_PIECES];
        self.layout.unrank(idx, &mut sq);
        Board::new(self.layout, &sq).map(|b| (turn, sq, b))
    }

    /// The child of move `m` from placement `sq` with `turn` to move: its code and entry.
    fn child(&self, out: &[u16], sq: &Squares, turn: Color, m: Found) -> Child<E> {
        let n = self.layout.pieces.len();
        match m.captured {
            None => {
                let mut q = *sq;
                q[m.slot] = m.to;
                let idx = self.layout.rank(&q).map(|i| (!turn).index() as u64 * self.layout.per_side + i);
                let code = idx.and_then(|i| out.get(i as usize).copied()).unwrap_or(DRAW);
                Child { code, entry: idx.map(|i| E::of(i as usize)) }
            }
            Some(victim) => {
                let code = self.captures[victim].as_ref().and_then(|target| {
                    let t = target.table.as_ref()?;
                    let csq = child_squares(sq, n, m.slot, m.to, &target.map, target.flip);
                    t.code(if target.flip { turn } else { !turn }, &csq)
                });
                Child { code: code.unwrap_or(DRAW), entry: None }
            }
        }
    }

    /// Does move `m` (not a capture) from placement `sq` give check? Asked only where it matters:
    /// building a board costs more than looking a child up.
    fn gives_check(&self, sq: &Squares, turn: Color, m: Found) -> bool {
        let mut q = *sq;
        q[m.slot] = m.to;
        Board::new(self.layout, &q).is_some_and(|b| b.in_check(!turn))
    }

    fn undecided(&self, out: &[u16], e: usize) -> bool {
        self.plain[e] == DRAW && out[e] == DRAW
    }

    fn push(&mut self, d: u32, e: E) {
        self.queue.entry(d).or_default().push(e);
    }

    fn run(&mut self, state: &mut State, material: Material) -> Result<(), TbError> {
        self.initialise(&state.out);
        loop {
            // A forced band: the attractor of everything decided so far.
            let start = state.next;
            if let Some(top) = self.settle(state, start, material)? {
                state.bands.push(Band { start: start as u16, kind: BandKind::Forced });
                state.next = even_above(top);
            }
            // A perpetual band, then (next time round) the forced band above it.
            let start = state.next;
            let core = self.perpetual_core(&state.out, start);
            let Some(top) = core.iter().map(|&(_, d)| d).max() else { return Ok(()) };
            if top > MAX_DTM_U16 as u32 {
                return Err(TbError::TooLarge { material: material.to_string(), entries: top as u64 });
            }
            state.bands.push(Band { start: start as u16, kind: BandKind::Perpetual });
            for &(e, d) in &core {
                state.out[e.index()] = value::code(d as u16);
            }
            state.next = even_above(top);
            for &(e, _) in &core {
                self.expand(state, e.index(), state.next);
            }
        }
    }

    /// Counters and capture bounds of the defender's undecided entries; queues the attacker's
    /// winning captures and the defender's entries that lose through captures alone. The counters
    /// and bounds are written in place, chunk by chunk: only the queued entries are listed (a
    /// list of every undecided entry cost up to 20 bytes an entry at the pass's peak).
    fn initialise(&mut self, out: &[u16]) {
        let mut cnt = std::mem::take(&mut self.cnt);
        let mut cap = std::mem::take(&mut self.cap);
        let this = &*self;
        let queued: Vec<Vec<(u32, E)>> = cnt
            .par_chunks_mut(CHUNK)
            .zip(cap.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (cnt, cap))| {
                let mut queued = Vec::new();
                for (k, (cnt, cap)) in cnt.iter_mut().zip(cap.iter_mut()).enumerate() {
                    let e = c * CHUNK + k;
                    if !this.undecided(out, e) {
                        continue;
                    }
                    let Some((turn, sq, board)) = this.board(e) else { continue };
                    let mut moves = 0u8;
                    let mut bound = 0u32;
                    let mut win: Option<u32> = None;
                    board.for_each_legal(turn, |m| {
                        let ch = this.child(out, &sq, turn, m);
                        let good = this.won_for_attacker(ch.code, !turn);
                        let d = dtm_of(ch.code).unwrap_or(0) as u32 + 1;
                        if turn == this.attacker {
                            if good {
                                win = Some(win.map_or(d, |w| w.min(d)));
                            }
                        } else if good {
                            bound = bound.max(d);
                        } else {
                            moves += 1;
                        }
                    });
                    if turn == this.attacker {
                        if let Some(w) = win {
                            queued.push((w, E::of(e)));
                        }
                    } else {
                        *cnt = moves;
                        *cap = saturate(bound);
                        if moves == 0 {
                            queued.push((bound, E::of(e)));
                        }
                    }
                }
                queued
            })
            .collect();
        self.cnt = cnt;
        self.cap = cap;
        // In entry order, as the queue's lists are settled in the order they were filled.
        for (d, e) in queued.into_iter().flatten() {
            self.push(d, e);
        }
    }

    /// Runs the queue: every distance at least `base` (even for the defender, odd for the
    /// attacker). Returns the largest distance set, `None` if none was.
    fn settle(&mut self, state: &mut State, base: u32, material: Material) -> Result<Option<u32>, TbError> {
        let mut top = None;
        while let Some((d, items)) = self.queue.pop_first() {
            for e in items {
                let e = e.index();
                if !self.undecided(&state.out, e) {
                    continue;
                }
                let (turn, _) = side_and_index(self.layout, e);
                let d = d.max(if turn == self.attacker { base + 1 } else { base });
                if d > MAX_DTM_U16 as u32 {
                    return Err(TbError::TooLarge { material: material.to_string(), entries: d as u64 });
                }
                debug_assert_eq!(d % 2 == 1, turn == self.attacker, "parity of {e} at {d}");
                state.out[e] = value::code(d as u16);
                top = Some(d);
                self.expand(state, e, base);
            }
        }
        Ok(top)
    }

    /// Queues what the settlement of `e` decides: the attacker's predecessors of a defender's
    /// loss win; the defender's predecessors of an attacker's win lose one more move.
    fn expand(&mut self, state: &State, e: usize, base: u32) {
        let (turn, _) = side_and_index(self.layout, e);
        let Some(d) = dtm_of(state.out[e]).map(u32::from) else { return };
        let mut found = Vec::new();
        predecessors(self.layout, e, |q| found.push(q));
        for q in found {
            if !self.undecided(&state.out, q) {
                continue;
            }
            if turn == self.attacker {
                self.cap[q] = self.cap[q].max(saturate(d + 1));
                self.cnt[q] = self.cnt[q].saturating_sub(1);
                if self.cnt[q] == 0 {
                    let at = u32::from(self.cap[q]).max(base);
                    self.push(at, E::of(q));
                }
            } else {
                self.push((d + 1).max(base + 1), E::of(q));
            }
        }
    }

    /// Step 2: the defender's check-only entries and the attacker's entries after their checks,
    /// solved as a Büchi game. Returns the entries of `Z` with their distances (from `start`).
    fn perpetual_core(&self, out: &[u16], start: u32) -> Vec<(E, u32)> {
        let n = out.len();
        let per = self.layout.per_side as usize;
        let defender = !self.attacker;
        let range = defender.index() * per..(defender.index() + 1) * per;
        // Defender entries whose every move loses or checks, with the entries the checks reach.
        let xs: Vec<(E, Vec<E>)> = range
            .into_par_iter()
            .with_min_len(CHUNK)
            .filter_map(|e| {
                // (A light pass has no counters: with an empty forced band, an undecided entry
                // has a move that does not lose, so its counter would not be 0.)
                if !self.undecided(out, e) || self.cnt.get(e) == Some(&0) {
                    return None;
                }
                let (turn, sq, board) = self.board(e)?;
                let mut reach = Vec::new();
                // The first move that neither loses nor checks ends the search: no more moves are
                // generated.
                let escape = board.try_for_each_legal(turn, |m| {
                    let ch = self.child(out, &sq, turn, m);
                    if self.won_for_attacker(ch.code, !turn) {
                        return ControlFlow::Continue(());
                    }
                    // A capture that does not lose leaves the table: an escape, check or not.
                    match ch.entry {
                        Some(c) if c.index() < n && self.gives_check(&sq, turn, m) => {
                            reach.push(c);
                            ControlFlow::Continue(())
                        }
                        _ => ControlFlow::Break(()),
                    }
                });
                (escape.is_continue() && !reach.is_empty()).then_some((E::of(e), reach))
            })
            .collect();
        if xs.is_empty() {
            return Vec::new();
        }
        let mut a_nodes: Vec<E> = xs.iter().flat_map(|(_, r)| r.iter().copied()).collect();
        a_nodes.sort_unstable();
        a_nodes.dedup();
        let x_id = |e: E| xs.binary_search_by_key(&e, |(x, _)| *x).ok();
        // Defender edges (with multiplicity, as counted) and attacker edges (x id, check).
        let x_edges: Vec<Vec<E>> = xs
            .iter()
            .map(|(_, r)| r.iter().filter_map(|e| a_nodes.binary_search(e).ok().map(E::of)).collect())
            .collect();
        let a_edges: Vec<Vec<(E, bool)>> = a_nodes
            .par_iter()
            .map(|&e| {
                let mut edges = Vec::new();
                if let Some((turn, sq, board)) = self.board(e.index()) {
                    board.for_each_legal(turn, |m| {
                        let ch = self.child(out, &sq, turn, m);
                        if let Some(x) = ch.entry.and_then(x_id) {
                            edges.push((E::of(x), self.gives_check(&sq, turn, m)));
                        }
                    });
                }
                edges
            })
            .collect();
        let (nx, na) = (xs.len(), a_nodes.len());
        let mut a_preds: Vec<Vec<E>> = vec![Vec::new(); na];
        for (x, edges) in x_edges.iter().enumerate() {
            for &a in edges {
                a_preds[a.index()].push(E::of(x));
            }
        }
        let mut x_check_preds: Vec<Vec<E>> = vec![Vec::new(); nx];
        for (a, edges) in a_edges.iter().enumerate() {
            for &(x, check) in edges {
                if check {
                    x_check_preds[x.index()].push(E::of(a));
                }
            }
        }
        let mut in_x = vec![true; nx];
        let mut in_a = vec![true; na];
        loop {
            let mut dx = vec![u32::MAX; nx];
            let mut da = vec![u32::MAX; na];
            let mut cnt: Vec<u32> = x_edges.iter().map(|v| v.len() as u32).collect();
            let mut most = vec![0u32; nx];
            // (distance, is_defender, id)
            let mut queue: BTreeMap<u32, Vec<(bool, E)>> = BTreeMap::new();
            for a in 0..na {
                if in_a[a] && a_edges[a].iter().any(|&(x, check)| !check && in_x[x.index()]) {
                    queue.entry(start + 1).or_default().push((false, E::of(a)));
                }
            }
            while let Some((d, items)) = queue.pop_first() {
                for (is_x, id) in items {
                    let id = id.index();
                    if is_x {
                        if dx[id] != u32::MAX {
                            continue;
                        }
                        dx[id] = d;
                        for &a in &x_check_preds[id] {
                            if in_a[a.index()] && da[a.index()] == u32::MAX {
                                queue.entry(d + 1).or_default().push((false, a));
                            }
                        }
                    } else {
                        if da[id] != u32::MAX {
                            continue;
                        }
                        da[id] = d;
                        for &x in &a_preds[id] {
                            let x = x.index();
                            if !in_x[x] {
                                continue;
                            }
                            cnt[x] -= 1;
                            most[x] = most[x].max(d);
                            if cnt[x] == 0 {
                                queue.entry(most[x] + 1).or_default().push((true, E::of(x)));
                            }
                        }
                    }
                }
            }
            let new_x: Vec<bool> = dx.iter().map(|&d| d != u32::MAX).collect();
            let new_a: Vec<bool> = da.iter().map(|&d| d != u32::MAX).collect();
            if new_x == in_x && new_a == in_a {
                let mut core: Vec<(E, u32)> = (0..nx).filter(|&x| in_x[x]).map(|x| (xs[x].0, dx[x])).collect();
                core.extend((0..na).filter(|&a| in_a[a]).map(|a| (a_nodes[a], da[a])));
                core.sort_unstable();
                return core;
            }
            in_x = new_x;
            in_a = new_a;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::driver::{generate_set, GenerateOptions};
    use crate::tablebase::format;
    use crate::tablebase::load::{load, load_rules};
    use crate::tablebase::material::{file_name, rules_file_name};
    use crate::tablebase::plan;
    use crate::util::progress::NoProgress;

    #[test]
    fn the_width_is_u32_up_to_2_pow_32_entries() {
        assert!(fits_u32(0));
        assert!(fits_u32(u32::MAX as usize));
        // 2^32 entries are numbered 0 to 2^32 - 1.
        assert!(fits_u32(1 << 32));
        assert!(!fits_u32((1 << 32) + 1));
        // KRNCvKR, the largest tables of 6 pieces.
        assert!(!fits_u32(5_904_900_000));
    }

    /// The companion of `material`, solved with entry numbers of type `E`, encoded as the
    /// generator writes it.
    fn companion_bytes<E: Entry>(dir: &std::path::Path, material: Material, shortcuts: bool) -> (Vec<u8>, RuleTable) {
        let plain = Arc::new(load(&dir.join(file_name(material))).unwrap());
        let (mut plain_subs, mut subs) = (HashMap::new(), HashMap::new());
        for input in plan::inputs(material) {
            let p = Arc::new(load(&dir.join(file_name(input))).unwrap());
            subs.insert(input, load_rules(&dir.join(rules_file_name(input)), &p).unwrap());
            plain_subs.insert(input, p);
        }
        let r = solve_as::<E>(&plain, &plain_subs, &subs, shortcuts, &NoProgress).unwrap();
        let bytes = match &r.table {
            Some(rule) => {
                format::encode_rules(material, &plain.values, &rule.values, &rule.counts(), &r.bands, true).unwrap()
            }
            None => format::encode_rules_unchanged(material, plain.entries(), &plain.counts(), true).unwrap(),
        };
        (bytes, r)
    }

    #[test]
    fn entry_numbers_of_64_bits_give_the_same_companions() {
        // Tables the rules change (KRAvKR with a perpetual band and forced bands above it).
        for name in ["KRvKN", "KRAvKR"] {
            let m: Material = name.parse().unwrap();
            let dir = tempfile::tempdir().unwrap();
            generate_set(&[m], &GenerateOptions::new(dir.path())).unwrap();
            let written = std::fs::read(dir.path().join(rules_file_name(m))).unwrap();
            assert!(fits_u32(load(&dir.path().join(file_name(m))).unwrap().values.len()));
            for shortcuts in [true, false] {
                let (narrow, r32) = companion_bytes::<u32>(dir.path(), m, shortcuts);
                let (wide, r64) = companion_bytes::<u64>(dir.path(), m, shortcuts);
                // The rules change entries here, so the full pass ran with both widths.
                assert!(r64.table.is_some() && !r64.bands.is_empty(), "{name}: nothing changed");
                assert_eq!((r32.bands, r32.skipped), (r64.bands, r64.skipped), "{name}");
                assert!(narrow == written, "{name}: u32 bytes differ from the generator's");
                assert!(wide == written, "{name}, shortcuts {shortcuts}: u64 bytes differ");
            }
        }
    }
}
