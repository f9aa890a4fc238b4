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
//!   otherwise it is run in full, from that band. Where the defender is a side with a rook and
//!   less attacking material (`plan::weaker_rook`: KRNvKR, KRPvKR, not KRAvKR), whose checks
//!   make such a band likely, this scan is not made alone: the direction is run in full at once and its first search is made with the
//!   counters (the same values; the direction is then not counted as skipped when it changes
//!   nothing).
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
//! **Memory: about 2.25 bytes an entry**, the plain solver's own figure. The pass takes the
//! plain table and changes its codes in place; since only draws change, a bit per changed entry
//! is all it needs to read the plain codes back ([`RuleTable::plain_code`]). A defender's
//! undecided entry holds its counter (moves not yet into the attacker's wins) in place of its
//! draw code, marked by a second bit (the defender's half only); the counters go back to draws
//! when the direction ends. The bound an entry loses after, once its counter reaches 0, is derived
//! again then from its moves instead of being kept per entry. The perpetual band's graph is held
//! as flat lists with offsets, and each search after the first looks again only at the entries
//! that qualified last time (their checks kept) and at those whose moves' values changed since;
//! any other entry still does not qualify. The companion's and the WDL file's codes are made block
//! by block as they are compressed. Before this the pass held about 7 bytes an entry (a copy of
//! the codes, a 1-byte counter and a 2-byte bound per entry, a list per entry of the band's graph);
//! the files are the same bytes (`docs/TABLEBASES.md` has the figures).
//!
//! **Entry numbers.** The pass keeps entry numbers in its queue and in the perpetual band's lists
//! (and ids into those lists, never more than the entries), as an [`Entry`]: 4 bytes (`u32`) for
//! a table of at most 2^32 entries, every table of up to 5 pieces and most of 6, and 8 bytes
//! (`u64`) beyond, chosen per table ([`solve`]), so the ordinary tables take no more memory than
//! before. The width changes no value: the pass does the same steps in the same order with
//! either (a test runs a table both ways and compares the companions' bytes).

mod graph;

pub(crate) use super::bands::{Band, BandKind};
use super::bits::Bits;
use super::board::{child_squares, Board, Found};
use super::error::TbError;
use super::index::{Layout, Squares, MAX_PIECES};
use super::material::Material;
use super::paging::{Paging, Store};
use super::solve::{capture_targets, predecessors, side_and_index, CaptureTarget, Sub, Table};
use super::value::{self, dtm_of, Counts, DRAW, MAX_DTM_U16};
use crate::core::Color;
use crate::util::progress::Progress;
use graph::{fits_u32, Edges, Entry, Graph, Offsets, Queued, Reverse, Scanned};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;

/// A table's values under the Asian rules.
pub struct RuleTable {
    /// Every entry's rule-aware code: the plain table's own values, changed in place (only
    /// plain draws change).
    pub table: Table,
    /// The entries the rules changed; `None` when no direction was run in full (see the module
    /// doc): the rule-aware codes are then the plain codes.
    pub(crate) changed: Option<Bits>,
    /// The bands of the changed entries' distances, ascending.
    pub bands: Vec<Band>,
    /// The directions (red attacking, black attacking) skipped because they provably change
    /// nothing.
    pub skipped: [bool; 2],
}

impl RuleTable {
    /// Did a direction run in full (so that the rule-aware values may differ from the plain)?
    pub fn ran(&self) -> bool {
        self.changed.is_some()
    }

    /// The plain code of entry `e`: its rule-aware code, or a draw where the rules changed it.
    #[inline]
    pub fn plain_code(&self, e: usize) -> u16 {
        match &self.changed {
            Some(c) if c.get(e) => DRAW,
            _ => self.table.values[e],
        }
    }

    /// The companion's stored codes of entries `range`: the rule-aware code where the rules
    /// changed the entry, 0 elsewhere (the `.qtr` file's stored codes).
    pub(crate) fn delta(&self, range: std::ops::Range<usize>) -> Vec<u16> {
        let changed = self.changed.as_ref();
        range.map(|e| if changed.is_some_and(|c| c.get(e)) { self.table.values[e] } else { 0 }).collect()
    }

    /// The plain table again, as a table of its own (a copy with the changed entries drawn).
    #[cfg(test)]
    pub fn plain(&self) -> Table {
        let values = (0..self.table.values.len()).into_par_iter().map(|e| self.plain_code(e)).collect::<Vec<u16>>();
        Table { layout: self.table.layout.clone(), values: values.into() }
    }
}

/// Positions (mirror images counted as in [`Counts`]) drawn without the rule and decided with it,
/// per side to move (red, black), from a table's counts and its rule-aware counts.
///
/// ```
/// use qiku::tablebase::{generate::changed, Counts};
///
/// let plain = [Counts { legal: 100, wins: 60, draws: 40, ..Counts::default() }; 2];
/// let rule = [plain[0], Counts { draws: 30, losses: 10, ..plain[1] }]; // black: 10 draws now lost
/// assert_eq!(changed(&plain, &rule), [0, 10]);
/// ```
pub fn changed(plain: &[Counts; 2], rule: &[Counts; 2]) -> [u64; 2] {
    [0, 1].map(|s| plain[s].draws - rule[s].draws)
}

/// The rule-aware table of `plain` (taken: its values are changed in place, and its plain codes
/// stay readable through [`RuleTable::plain_code`]), given the plain and rule-aware tables of
/// every material its captures lead to (`plain_subs`, `subs`, canonical materials). With
/// `shortcuts`, a direction that provably changes nothing is skipped (see the module doc);
/// without, every direction is run in full (the same values: a test compares both). With
/// `paging`, its per-entry bits live in scratch files within its budget, as the table's values
/// may (the same values, more slowly).
pub fn solve(
    plain: Table,
    plain_subs: &HashMap<Material, Sub>,
    subs: &HashMap<Material, Sub>,
    shortcuts: bool,
    bar: &dyn Progress,
    paging: Option<&Paging>,
) -> Result<RuleTable, TbError> {
    let options = Options { shortcuts, rescan: false };
    if fits_u32(plain.values.len()) {
        solve_as::<u32>(plain, plain_subs, subs, options, bar, paging)
    } else {
        solve_as::<u64>(plain, plain_subs, subs, options, bar, paging)
    }
}

/// How [`solve_as`] runs: any choice gives the same values (tests compare them).
#[derive(Copy, Clone)]
struct Options {
    /// Skip the directions that provably change nothing.
    shortcuts: bool,
    /// Look at every defender's entry again in each perpetual band's search, instead of only
    /// those that qualified last time or whose moves' values changed since.
    rescan: bool,
}

/// [`solve`] with entry numbers of type `E` (any width that numbers every entry gives the same
/// result).
fn solve_as<E: Entry>(
    plain: Table,
    plain_subs: &HashMap<Material, Sub>,
    subs: &HashMap<Material, Sub>,
    Options { shortcuts, rescan }: Options,
    bar: &dyn Progress,
    paging: Option<&Paging>,
) -> Result<RuleTable, TbError> {
    let Table { layout, values } = plain;
    let captures = capture_targets(&layout, subs)?;
    // Directions whose forced band is empty: the captures agree with the plain solve's.
    let agree = Color::ALL.map(|a| shortcuts && captures_agree(&captures, plain_subs, a));
    // Of those, the ones whose perpetual band is empty too: the defender never checks.
    let mut skipped = Color::ALL.map(|a| agree[a.index()] && !layout.material.side_has_attackers(!a));
    let mut state = State { codes: Codes::new(values), bands: Vec::new(), next: 0 };
    if skipped != [true, true] {
        let mut floor = max_distance(&state.codes.values);
        for t in captures.iter().flatten().filter_map(|c| c.table.as_ref()) {
            floor = floor.max(max_distance(&t.values));
        }
        state.next = even_above(floor);
    }
    let mut ran = false;
    for attacker in Color::ALL {
        if skipped[attacker.index()] {
            continue;
        }
        let mut pass = Pass::<E>::new(&layout, &captures, attacker, paging, bar);
        pass.stopping()?;
        pass.rescan = rescan;
        let agree = agree[attacker.index()];
        let mut first = None;
        // Where the defender is a weaker side with a rook, its checks make a perpetual band
        // likely: the direction is run in full at once, its first search made with the counters,
        // rather than searched alone first (the same values either way).
        if agree && !(shortcuts && !rescan && super::plan::weaker_rook(layout.material, !attacker)) {
            bar.message(&format!("rules: perpetual checks by {}", !attacker));
            let core = pass.perpetual_core(&state.codes, state.next)?;
            if core.is_empty() {
                skipped[attacker.index()] = true;
                continue;
            }
            // With the forced band empty, the full pass starts from this same band.
            first = Some(core);
        }
        bar.message(&format!("rules: wins of {attacker} by the rule"));
        if !ran {
            state.codes.changed = Bits::new_in(0, state.codes.values.len(), paging)?;
            ran = true;
        }
        pass.run(&mut state, layout.material, agree, first)?;
    }
    let State { codes, bands, .. } = state;
    Ok(RuleTable {
        table: Table { layout, values: codes.values },
        changed: ran.then_some(codes.changed),
        bands,
        skipped,
    })
}

/// Is `code`, at entry `e`, a win for `color`?
fn wins(layout: &Layout, code: u16, e: usize, color: Color) -> bool {
    let (turn, _) = side_and_index(layout, e);
    dtm_of(code).is_some_and(|d| (d % 2 == 1) == (turn == color))
}

/// Does every table a capture leads to have the same wins for `attacker` under both rules?
/// (`plain_subs` holds the plain views of the rule-aware `captures`; a missing one answers
/// false.) Then the forced band of its direction is empty (see the module doc).
fn captures_agree(captures: &[Option<CaptureTarget>], plain_subs: &HashMap<Material, Sub>, attacker: Color) -> bool {
    captures.iter().flatten().all(|target| {
        let Some(rule) = &target.table else { return true };
        let Some(plain) = plain_subs.get(&rule.layout.material) else { return false };
        // The attacker's color in the smaller table.
        let a = if target.flip { !attacker } else { attacker };
        match &plain.drawn {
            // The rules changed nothing there (the driver then holds the plain values only).
            None if Arc::ptr_eq(&plain.table, rule) => true,
            None => same_wins(&plain.table, rule, a),
            // One array for both views: the changed entries are plain draws, so the wins agree
            // unless a changed entry is a win for `a`.
            Some(changed) if Arc::ptr_eq(&plain.table, rule) => {
                changed.ones().all(|e| !wins(&rule.layout, rule.values[e], e, a))
            }
            Some(_) => false,
        }
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
        .zip(&rule.values[..])
        .enumerate()
        .all(|(e, (&p, &r))| p == r || wins(layout, p, e, color) == wins(layout, r, e, color))
}

fn max_distance(values: &[u16]) -> u32 {
    let max = |c: &[u16]| {
        crate::util::pressure::wait_for_release();
        c.iter().filter_map(|&c| dtm_of(c)).max()
    };
    values.par_chunks(1 << 16).filter_map(max).max().unwrap_or(0) as u32
}

/// The smallest even number above `d`.
fn even_above(d: u32) -> u32 {
    (d + 2) & !1
}

/// The values as the pass works on them, about 2.25 bytes an entry: the plain table's own
/// array, changed in place, and two bitsets. Only plain draws change, so the plain code of a
/// changed entry is a draw; a defender's undecided entry holds, while a direction runs, its
/// counter (moves not yet into the attacker's wins) in place of its draw code.
struct Codes {
    /// The rule-aware code of every entry, or a counter where `working` is set.
    values: Store<u16>,
    /// The entries decided by a pass (empty until a direction runs in full).
    changed: Bits,
    /// The defender's undecided entries that hold a counter (the defender's half only).
    working: Bits,
}

impl Codes {
    fn new(values: Store<u16>) -> Codes {
        Codes { values, changed: Bits::default(), working: Bits::default() }
    }

    /// The current code of entry `e` (`None` past the end).
    #[inline]
    fn get(&self, e: usize) -> Option<u16> {
        let v = *self.values.get(e)?;
        Some(if self.working.get(e) { DRAW } else { v })
    }

    /// Is `e` still a draw (undecided)? Only the plain table's draws can be.
    #[inline]
    fn undecided(&self, e: usize) -> bool {
        self.get(e) == Some(DRAW)
    }

    /// Settles `e` at distance `d`.
    fn decide(&mut self, e: usize, d: u32) {
        self.values[e] = value::code(d as u16);
        self.changed.set(e);
        self.working.clear(e);
    }
}

/// What both attackers' passes share: the values so far, the bands, the next band's start.
struct State {
    codes: Codes,
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
    captures: &'a [Option<CaptureTarget>],
    attacker: Color,
    /// Pending settlements by distance.
    queue: BTreeMap<u32, Vec<E>>,
    /// What the last perpetual band's search found, so that the next one looks again only at
    /// the entries that can have changed.
    tracked: Option<Graph<E>>,
    /// A buffer for the predecessors found by [`expand`](Self::expand), kept between calls.
    found: Vec<usize>,
    /// Keep no [`Graph`]: every search looks at every entry (to test that the same values come
    /// out).
    rescan: bool,
    /// Where the per-entry bits go when the table is paged.
    paging: Option<&'a Paging>,
    /// Asked between steps whether to stop ([`Progress::stop_requested`]).
    bar: &'a dyn Progress,
}

const CHUNK: usize = 1 << 12;

impl<'a, E: Entry> Pass<'a, E> {
    fn new(
        layout: &'a Layout,
        captures: &'a [Option<CaptureTarget>],
        attacker: Color,
        paging: Option<&'a Paging>,
        bar: &'a dyn Progress,
    ) -> Self {
        Pass {
            layout,
            captures,
            attacker,
            queue: BTreeMap::new(),
            tracked: None,
            found: Vec::new(),
            rescan: false,
            paging,
            bar,
        }
    }

    /// [`TbError::Stopped`] once a stop was asked for.
    fn stopping(&self) -> Result<(), TbError> {
        if self.bar.stop_requested() {
            return Err(TbError::Stopped { material: self.layout.material.to_string() });
        }
        Ok(())
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

    /// The child of move `m` from placement `sq` with `turn` to move: its code (this table's
    /// entries read through `look`) and entry.
    fn child(&self, look: &impl Fn(usize) -> Option<u16>, sq: &Squares, turn: Color, m: Found) -> Child<E> {
        let n = self.layout.pieces.len();
        match m.captured {
            None => {
                let mut q = *sq;
                q[m.slot] = m.to;
                let idx = self.layout.rank(&q).map(|i| (!turn).index() as u64 * self.layout.per_side + i);
                let code = idx.and_then(|i| look(i as usize)).unwrap_or(DRAW);
                Child { code, entry: idx.map(|i| E::of(i as usize)) }
            }
            Some(victim) => {
                let code = self.captures[victim].as_ref().and_then(|target| {
                    let csq = child_squares(sq, n, m.slot, m.to, &target.map, target.flip);
                    target.code(if target.flip { turn } else { !turn }, &csq)
                });
                Child { code: code.unwrap_or(DRAW), entry: None }
            }
        }
    }

    fn push(&mut self, d: u32, e: E) {
        self.queue.entry(d).or_default().push(e);
    }

    /// The direction in full. With `agree` (the captures agree with the plain solve), the forced
    /// band is empty: the attacker's entries are not scanned, and `first` is the first perpetual
    /// band when it was already found.
    fn run(
        &mut self,
        state: &mut State,
        material: Material,
        agree: bool,
        first: Option<Vec<(E, u32)>>,
    ) -> Result<(), TbError> {
        // Without a first band found already, the scan for the perpetual band's search is made
        // with the counters' (one move generation for both).
        let track = first.is_none();
        self.initialise(&mut state.codes, !agree, track)?;
        let result = self.bands(state, material, first);
        // The counters go back to draws, for the other direction and the result.
        let per = self.layout.per_side as usize;
        let from = (!self.attacker).index() * per;
        let codes = &mut state.codes;
        let working = std::mem::take(&mut codes.working);
        codes.values[from..from + per].par_chunks_mut(64).zip(working.words().par_iter()).for_each(|(v, &w)| {
            for (k, v) in v.iter_mut().enumerate() {
                if w >> k & 1 == 1 {
                    *v = DRAW;
                }
            }
        });
        result
    }

    /// The bands of this direction, each forced band followed by a perpetual one, until nothing
    /// changes.
    fn bands(
        &mut self,
        state: &mut State,
        material: Material,
        mut first: Option<Vec<(E, u32)>>,
    ) -> Result<(), TbError> {
        loop {
            self.stopping()?;
            // A forced band: the attractor of everything decided so far.
            let start = state.next;
            if let Some(top) = self.settle(state, start, material)? {
                state.bands.push(Band { start: start as u16, kind: BandKind::Forced });
                state.next = even_above(top);
            }
            // A perpetual band, then (next time round) the forced band above it.
            let start = state.next;
            let core = match first.take() {
                Some(core) => core,
                None => self.perpetual_core(&state.codes, start)?,
            };
            let Some(top) = core.iter().map(|&(_, d)| d).max() else { return Ok(()) };
            if top > MAX_DTM_U16 as u32 {
                return Err(TbError::TooLarge { material: material.to_string(), entries: top as u64 });
            }
            state.bands.push(Band { start: start as u16, kind: BandKind::Perpetual });
            for &(e, d) in &core {
                state.codes.decide(e.index(), d);
            }
            state.next = even_above(top);
            for &(e, _) in &core {
                self.expand(&mut state.codes, e.index(), state.next);
            }
        }
    }

    /// Counters of the defender's undecided entries (in place of their draw codes); queues the
    /// attacker's winning captures and the defender's entries that lose through captures alone.
    /// The attacker's half is read first (its children are the defender's entries, before any
    /// counter), then the defender's half is filled chunk by chunk (its children are all in the
    /// attacker's half, which it does not change): only the queued entries are listed.
    fn initialise(&mut self, codes: &mut Codes, attacker_too: bool, track: bool) -> Result<(), TbError> {
        let per = self.layout.per_side as usize;
        let (a_from, x_from) = (self.attacker.index() * per, (!self.attacker).index() * per);
        codes.working = Bits::new_in(x_from, per, self.paging)?;
        let this = &*self;
        // The attacker's entries: a winning move is queued at its distance.
        // (Not asked where the captures agree with the plain solve: no entry of the attacker's
        // is undecided with a move into its wins, see the module doc.)
        let a_queued: Vec<Vec<(u32, E)>> = if !attacker_too {
            Vec::new()
        } else {
            let look = |i: usize| codes.get(i);
            (0..per.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    crate::util::pressure::wait_for_release();
                    let mut queued = Vec::new();
                    if this.bar.stop_requested() {
                        return queued; // asked again below
                    }
                    for e in a_from + c * CHUNK..a_from + ((c + 1) * CHUNK).min(per) {
                        if !codes.undecided(e) {
                            continue;
                        }
                        let Some((turn, sq, board)) = this.board(e) else { continue };
                        let mut win: Option<u32> = None;
                        board.for_each_legal(turn, |m| {
                            let ch = this.child(&look, &sq, turn, m);
                            if this.won_for_attacker(ch.code, !turn) {
                                let d = dtm_of(ch.code).unwrap_or(0) as u32 + 1;
                                win = Some(win.map_or(d, |w| w.min(d)));
                            }
                        });
                        if let Some(w) = win {
                            queued.push((w, E::of(e)));
                        }
                    }
                    queued
                })
                .collect()
        };
        self.stopping()?;
        // The defender's entries: the counter, and a loss through captures alone queued.
        let (lo, hi) = codes.values.split_at_mut(per);
        let (a_half, x_half): (&[u16], &mut [u16]) = if a_from == 0 { (lo, hi) } else { (hi, lo) };
        let look = |i: usize| i.checked_sub(a_from).and_then(|j| a_half.get(j)).copied();
        let x_parts: Vec<(Queued<E>, Scanned<E>)> = x_half
            .par_chunks_mut(CHUNK)
            .zip(codes.working.words_mut().par_chunks_mut(CHUNK / 64))
            .enumerate()
            .map(|(c, (values, working))| {
                crate::util::pressure::wait_for_release();
                let mut queued = Vec::new();
                let mut scanned = Scanned::new();
                if this.bar.stop_requested() {
                    return (queued, scanned); // asked again below
                }
                for (k, v) in values.iter_mut().enumerate() {
                    if *v != DRAW {
                        continue;
                    }
                    let e = x_from + c * CHUNK + k;
                    let Some((turn, sq, board)) = this.board(e) else { continue };
                    let mut moves = 0u16;
                    let mut bound = 0u32;
                    // With `track`, as the perpetual band's search would: does every move that
                    // does not lose give check, and where do the checks lead?
                    let before = scanned.reach.len();
                    let mut escape = !track;
                    board.for_each_legal(turn, |m| {
                        let ch = this.child(&look, &sq, turn, m);
                        if this.won_for_attacker(ch.code, !turn) {
                            bound = bound.max(dtm_of(ch.code).unwrap_or(0) as u32 + 1);
                            return;
                        }
                        moves += 1;
                        escape = escape || !scanned.check(&board, turn, m, ch.entry);
                    });
                    scanned.close(e, before, escape);
                    if moves == 0 {
                        queued.push((bound, E::of(e)));
                    } else {
                        *v = moves;
                        working[k / 64] |= 1 << (k % 64);
                    }
                }
                (queued, scanned)
            })
            .collect();
        self.stopping()?;
        let (x_queued, scanned): (Vec<_>, Vec<_>) = x_parts.into_iter().unzip();
        if track && !self.rescan {
            // The first perpetual band's search starts from this, and looks again only where the
            // forced band below it changes something.
            self.tracked = Some(Graph::of(scanned, x_from, per, self.paging)?);
        }
        // In entry order, as the queue's lists are settled in the order they were filled.
        let (first, second) = if a_from == 0 { (a_queued, x_queued) } else { (x_queued, a_queued) };
        for (d, e) in first.into_iter().chain(second).flatten() {
            self.push(d, e);
        }
        Ok(())
    }

    /// Runs the queue: every distance at least `base` (even for the defender, odd for the
    /// attacker). Returns the largest distance set, `None` if none was.
    fn settle(&mut self, state: &mut State, base: u32, material: Material) -> Result<Option<u32>, TbError> {
        let mut top = None;
        while let Some((d, items)) = self.queue.pop_first() {
            self.stopping()?;
            for e in items {
                let e = e.index();
                if !state.codes.undecided(e) {
                    continue;
                }
                let (turn, _) = side_and_index(self.layout, e);
                let d = d.max(if turn == self.attacker { base + 1 } else { base });
                if d > MAX_DTM_U16 as u32 {
                    return Err(TbError::TooLarge { material: material.to_string(), entries: d as u64 });
                }
                debug_assert_eq!(d % 2 == 1, turn == self.attacker, "parity of {e} at {d}");
                state.codes.decide(e, d);
                top = Some(d);
                self.expand(&mut state.codes, e, base);
            }
        }
        Ok(top)
    }

    /// Queues what the settlement of `e` decides: the attacker's predecessors of a defender's
    /// loss win; the defender's predecessors of an attacker's win lose one more move.
    fn expand(&mut self, codes: &mut Codes, e: usize, base: u32) {
        let (turn, _) = side_and_index(self.layout, e);
        let Some(d) = codes.get(e).and_then(dtm_of).map(u32::from) else { return };
        let mut found = std::mem::take(&mut self.found);
        found.clear();
        predecessors(self.layout, e, |q| found.push(q));
        for &q in &found {
            if let Some(t) = self.tracked.as_mut().filter(|_| turn == self.attacker) {
                t.dirty.set(q);
            }
            if turn == self.attacker {
                // A counter reaching 0: every move of `q` now loses, and `q` loses after the
                // longest of them (derived again here rather than kept per entry).
                if !codes.working.get(q) {
                    continue;
                }
                codes.values[q] -= 1;
                if codes.values[q] == 0 {
                    codes.working.clear(q);
                    let at = self.longest_loss(codes, q).max(base);
                    self.push(at, E::of(q));
                }
            } else if codes.undecided(q) {
                self.push((d + 1).max(base + 1), E::of(q));
            }
        }
        self.found = found;
    }

    /// One more than the largest distance among the moves of the defender's entry `q`, every
    /// one of which leads to a win of the attacker.
    fn longest_loss(&self, codes: &Codes, q: usize) -> u32 {
        let mut bound = 0;
        if let Some((turn, sq, board)) = self.board(q) {
            let look = |i: usize| codes.get(i);
            board.for_each_legal(turn, |m| {
                let ch = self.child(&look, &sq, turn, m);
                debug_assert!(self.won_for_attacker(ch.code, !turn), "a move of {q} that does not lose");
                bound = bound.max(dtm_of(ch.code).unwrap_or(0) as u32 + 1);
            });
        }
        bound
    }

    /// Step 2: the defender's check-only entries and the attacker's entries after their checks,
    /// solved as a Büchi game. Returns the entries of `Z` with their distances (from `start`).
    /// The graph is held as flat lists with offsets (a list per entry would cost an allocation
    /// each, and the allocator's overhead dominated the pass's peak).
    fn perpetual_core(&mut self, codes: &Codes, start: u32) -> Result<Vec<(E, u32)>, TbError> {
        let look = |i: usize| codes.get(i);
        let per = self.layout.per_side as usize;
        let from = (!self.attacker).index() * per;
        let tracked = self.tracked.take();
        // Defender entries whose every move loses or checks, with the entries the checks reach.
        let parts: Vec<Scanned<E>> = (0..per.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                crate::util::pressure::wait_for_release();
                let mut scanned = Scanned::new();
                if self.bar.stop_requested() {
                    return scanned; // asked again below
                }
                let range = from + c * CHUNK..from + ((c + 1) * CHUNK).min(per);
                // The last search's entries in this chunk, walked along.
                let mut i = tracked.as_ref().map_or(0, |t| t.xs.partition_point(|x| x.index() < range.start));
                for e in range {
                    let mut again = tracked.is_none();
                    if let Some(t) = &tracked {
                        while i < t.xs.len() && t.xs[i].index() < e {
                            i += 1;
                        }
                        let was = i < t.xs.len() && t.xs[i].index() == e;
                        if t.dirty.get(e) {
                            again = true;
                        } else if was && codes.undecided(e) {
                            // The same checks as last time.
                            let r = t.x_off.range(i);
                            let before = scanned.reach.len();
                            scanned.reach.extend(t.x_to[r].iter().map(|a| t.a_nodes[a.index()]));
                            scanned.close(e, before, false);
                        }
                    }
                    // (A defender's entry whose counter reached 0 was queued, and settled before
                    // this is asked.)
                    if !again || !codes.undecided(e) {
                        continue;
                    }
                    let Some((turn, sq, board)) = self.board(e) else { continue };
                    let before = scanned.reach.len();
                    // The first move that neither loses nor checks ends the search: no more moves
                    // are generated.
                    let escape = board.try_for_each_legal(turn, |m| {
                        let ch = self.child(&look, &sq, turn, m);
                        if self.won_for_attacker(ch.code, !turn) || scanned.check(&board, turn, m, ch.entry) {
                            ControlFlow::Continue(())
                        } else {
                            ControlFlow::Break(())
                        }
                    });
                    scanned.close(e, before, escape.is_break());
                }
                scanned
            })
            .collect();
        drop(tracked);
        self.stopping()?;
        let graph = Graph::of(parts, from, per, self.paging)?;
        let core = self.solve_core(codes, start, &graph.xs, &graph.x_off, &graph.x_to, &graph.a_nodes)?;
        if !self.rescan {
            self.tracked = Some(graph);
        }
        Ok(core)
    }

    /// The Büchi game of [`perpetual_core`](Self::perpetual_core) on its graph: the defender's
    /// entries `xs` with their checks (`x_off`, `x_to`: ids into `a_nodes`).
    fn solve_core(
        &self,
        codes: &Codes,
        start: u32,
        xs: &[E],
        x_off: &Offsets,
        x_to: &[E],
        a_nodes: &[E],
    ) -> Result<Vec<(E, u32)>, TbError> {
        if xs.is_empty() {
            return Ok(Vec::new());
        }
        let look = |i: usize| codes.get(i);
        let x_edges = |x: usize| &x_to[x_off.range(x)];
        // Attacker edges: (x id, check).
        let a_parts: Vec<Edges<E>> = a_nodes
            .par_chunks(CHUNK)
            .map(|chunk| {
                let (mut lens, mut edges) = (Vec::with_capacity(chunk.len()), Vec::new());
                if self.bar.stop_requested() {
                    return (lens, edges); // asked again below
                }
                for &e in chunk {
                    let before = edges.len();
                    if let Some((turn, sq, board)) = self.board(e.index()) {
                        board.for_each_legal(turn, |m| {
                            let ch = self.child(&look, &sq, turn, m);
                            if let Some(x) = ch.entry.and_then(|c| xs.binary_search(&c).ok()) {
                                edges.push((E::of(x), board.gives_check(turn, m)));
                            }
                        });
                    }
                    lens.push((edges.len() - before) as u8);
                }
                (lens, edges)
            })
            .collect();
        self.stopping()?;
        let a_total: usize = a_parts.iter().map(|p| p.1.len()).sum();
        let mut a_to: Vec<(E, bool)> = Vec::with_capacity(a_total);
        let mut a_lens: Vec<u8> = Vec::with_capacity(a_nodes.len());
        for (lens, edges) in a_parts {
            a_lens.extend(lens);
            a_to.extend(edges);
        }
        let a_off = Offsets::of(a_lens.into_iter(), a_nodes.len(), a_total);
        let a_edges = |a: usize| &a_to[a_off.range(a)];
        let (nx, na) = (xs.len(), a_nodes.len());
        // The reverse edges, in the order of their sources.
        let a_preds: Reverse<E> =
            Reverse::new(na, || (0..nx).flat_map(|x| x_edges(x).iter().map(move |&a| (a.index(), x))));
        let x_check_preds: Reverse<E> = Reverse::new(nx, || {
            (0..na).flat_map(|a| a_edges(a).iter().filter(|&&(_, check)| check).map(move |&(x, _)| (x.index(), a)))
        });
        let mut in_x = vec![true; nx];
        let mut in_a = vec![true; na];
        loop {
            self.stopping()?;
            let mut dx = vec![u32::MAX; nx];
            let mut da = vec![u32::MAX; na];
            let mut cnt: Vec<u32> = (0..nx).map(|x| x_edges(x).len() as u32).collect();
            let mut most = vec![0u32; nx];
            // (distance, is_defender, id)
            let mut queue: BTreeMap<u32, Vec<(bool, E)>> = BTreeMap::new();
            for (a, _) in in_a.iter().enumerate().filter(|&(_, &inside)| inside) {
                if a_edges(a).iter().any(|&(x, check)| !check && in_x[x.index()]) {
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
                        for &a in x_check_preds.of(id) {
                            if in_a[a.index()] && da[a.index()] == u32::MAX {
                                queue.entry(d + 1).or_default().push((false, a));
                            }
                        }
                    } else {
                        if da[id] != u32::MAX {
                            continue;
                        }
                        da[id] = d;
                        for &x in a_preds.of(id) {
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
                let mut core: Vec<(E, u32)> = (0..nx).filter(|&x| in_x[x]).map(|x| (xs[x], dx[x])).collect();
                core.extend((0..na).filter(|&a| in_a[a]).map(|a| (a_nodes[a], da[a])));
                core.sort_unstable();
                return Ok(core);
            }
            in_x = new_x;
            in_a = new_a;
        }
    }
}

#[cfg(test)]
mod tests;
