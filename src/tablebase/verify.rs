//! Independent verification of table files. It shares nothing with the generator but the index
//! scheme (needed to read a file at all, and itself checked: every legal entry must rank back to
//! its own number): positions are built and validated by the rules core's `Position`, moves come
//! from the core's move generator, and child values are read back from the files themselves
//! (smaller tables for captures). Every entry must then be what its successors make it:
//! lost in 0 exactly when there is no legal move; won in `n` when the fastest child lost is lost
//! in `n - 1`; lost in `n` when every child is won and the slowest in `n - 1`; drawn otherwise.
//! By induction on the distance, a table consistent in this way is exactly right. The block and
//! payload checksums and the header's counts are checked too, for the table and for every table
//! its captures lead to (a smaller table whose values contradict its own header is an error
//! naming it, never an input the table is found consistent with).
//!
//! Two things keep it fast without leaning on the generator. A non-capture's child is an entry
//! of the same table, ranked from the entry's own digits (`Layout::rank_moved`, tested
//! against the full rank) rather than from its board. And the moves are the core's
//! pseudo-legal ones: a capture that leaves the mover's king attacked is found by the core on
//! the played position, a non-capture that does by the child's stored code, which says
//! "illegal" exactly when the core finds that position's side not to move attacked. That code is
//! itself checked against the core when the child's own entry is, so a table that passes has
//! every move sorted rightly.

use super::error::TbError;
use super::index::{Layout, Ranked, Squares};
use super::load::load;
use super::material::file_name;
use super::material::Material;
use super::solve::Table;
use super::value::FromCode as _;
use super::value::{self, TbValue, Wdl, ILLEGAL};
use crate::core::{Bitboard, Color, Move, MoveList, Piece, Position, Square};
use crate::util::progress::{NoProgress, Progress};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Decoded tables by canonical material, shared between verifications.
pub type TableCache = HashMap<Material, Arc<Table>>;

pub(super) fn get(dir: &Path, m: Material, cache: &mut TableCache) -> Result<Arc<Table>, TbError> {
    if let Some(t) = cache.get(&m) {
        return Ok(t.clone());
    }
    let t = Arc::new(load(&dir.join(file_name(m)))?);
    cache.insert(m, t.clone());
    Ok(t)
}

/// Checks the table of `material` (canonical) in `dir`. Loads the tables its captures lead to
/// into `cache`. Returns the number of legal entries checked. [`verify_table_with_progress`]
/// reports how far it has come.
///
/// ```
/// use qiku::tablebase::generate::{
///     generate_set, verify_rules, verify_table, verify_wdl, GenerateOptions, TableCache,
/// };
/// use qiku::tablebase::Material;
///
/// let dir = tempfile::tempdir()?;
/// let krka: Material = "KRvKA".parse()?;
/// generate_set(&[krka], &GenerateOptions::new(dir.path()))?;
/// // The decoded tables are cached between checks (KRvKA's captures read KRvK).
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// for m in ["KRvK", "KRvKA"] {
///     let m: Material = m.parse()?;
///     let legal = verify_table(dir.path(), m, &mut plain)?;
///     assert!(legal > 0);
///     verify_rules(dir.path(), m, &mut plain, &mut rules)?;
///     assert_eq!(verify_wdl(dir.path(), m, &mut plain, &mut rules)?, legal);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_table(dir: &Path, material: Material, cache: &mut TableCache) -> Result<u64, TbError> {
    verify_table_with_progress(dir, material, cache, &NoProgress)
}

/// [`verify_table`], reporting to `progress` while the entries are re-derived: one phase,
/// labelled `verifying MATERIAL`, of the table's entries (both sides to move, legal or not),
/// started once the tables are loaded and finished when every entry agreed (a check that fails
/// ends without [`Progress::finish`]). Nothing is printed.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, verify_table_with_progress, GenerateOptions, TableCache};
/// use qiku::tablebase::Material;
/// use qiku::Progress;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// /// Counts the entries reported done.
/// #[derive(Default)]
/// struct Count(AtomicU64, AtomicU64);
/// impl Progress for Count {
///     fn start(&self, _label: &str, total: u64) {
///         self.0.store(total, Ordering::Relaxed);
///     }
///     fn advance(&self, n: u64) {
///         self.1.fetch_add(n, Ordering::Relaxed);
///     }
///     fn finish(&self) {}
/// }
///
/// let dir = tempfile::tempdir()?;
/// let krk: Material = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
/// let count = Count::default();
/// verify_table_with_progress(dir.path(), krk, &mut TableCache::new(), &count)?;
/// let entries = qiku::tablebase::generate::entries_of(&krk);
/// assert_eq!((count.0.into_inner(), count.1.into_inner()), (entries, entries));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_table_with_progress(
    dir: &Path,
    material: Material,
    cache: &mut TableCache,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    // Loaded (or cached) through the checked load: its header's counts are its values', and so
    // are those of every table its captures lead to, whose values the check reads.
    let table = get(dir, material, cache)?;
    let mut deps = capture_tables(material, |c| get(dir, c, cache))?;
    deps.insert(material, table.clone());
    let targets = CaptureTargets::new(material, &deps);
    let per = table.layout.per_side as usize;
    progress.start(&format!("verifying {material}"), table.layout.entries());
    // By placement, both sides to move at once: the placement is unranked, set up and ranked
    // back once for its two entries.
    let result = (0..per.div_ceil(4096))
        .into_par_iter()
        .map(|c| {
            let mut legal = 0u64;
            // A black-to-move entry's error (it comes after every red one in entry order): the
            // rest of the chunk is checked for an earlier, red-to-move one.
            let mut black: Option<(usize, TbError)> = None;
            let mut red: Option<(usize, TbError)> = None;
            let mut scratch = Scratch::default();
            // The chunk's placements in order, by the index's odometer (no division each).
            table.layout.walk((c * 4096) as u64..((c + 1) * 4096).min(per) as u64, |idx, sq| {
                if red.is_some() {
                    return;
                }
                let idx = idx as usize;
                let [r, b] = check_placement(&table, &targets, idx, sq, [true, black.is_none()], &mut scratch);
                match r {
                    Ok(l) => legal += l as u64,
                    Err(e) => red = Some((idx, e)),
                }
                match b {
                    Ok(l) => legal += l as u64,
                    Err(e) => black = Some((per + idx, e)),
                }
            });
            // The chunk's placements, both sides to move.
            progress.advance(2 * (((c + 1) * 4096).min(per) - c * 4096) as u64);
            red.or(black).map_or(Ok(legal), Err)
        })
        .reduce(
            || Ok(0),
            |a, b| match (a, b) {
                (Ok(x), Ok(y)) => Ok(x + y),
                (Err(x), Err(y)) => Err(if x.0 < y.0 { x } else { y }),
                (Err(x), _) | (_, Err(x)) => Err(x),
            },
        );
    let legal = result.map_err(|(_, e)| e)?;
    progress.finish();
    Ok(legal)
}

/// The tables (by canonical material) that the captures of `material` lead to, each loaded once
/// by `load`; materials without attackers (dead draws) have none.
pub(super) fn capture_tables(
    material: Material,
    mut load: impl FnMut(Material) -> Result<Arc<Table>, TbError>,
) -> Result<HashMap<Material, Arc<Table>>, TbError> {
    let mut deps = HashMap::new();
    for (_, _, sub) in material.captures() {
        let (c, _) = sub.canonical();
        if c.has_attackers() && !deps.contains_key(&c) {
            deps.insert(c, load(c)?);
        }
    }
    Ok(deps)
}

pub(super) fn mismatch(table: &Table, fen: String, stored: u16, derived: String) -> TbError {
    let stored = match TbValue::from_code(stored) {
        Some(v) => v.to_string(),
        None if stored == ILLEGAL => "illegal".into(),
        None => format!("code {stored}"),
    };
    TbError::Mismatch { material: table.layout.material.to_string(), fen, stored, derived }
}

/// Checks the two entries of placement `idx` (red to move, then black), those that `want` asks
/// for; each `Ok(true)` if it is a legal position.
fn check_placement(
    table: &Table,
    targets: &CaptureTargets,
    idx: usize,
    sq: &Squares,
    want: [bool; 2],
    scratch: &mut Scratch,
) -> [Result<bool, TbError>; 2] {
    let layout = &table.layout;
    let per = layout.per_side as usize;
    let mut out = [Ok(false), Ok(false)];
    // Squares are legal by construction of the index; pieces must stand apart, and the rank-back
    // check below confirms the placement is the entry's.
    if layout.overlapping(sq) {
        for (k, turn) in Color::ALL.into_iter().enumerate() {
            let stored = table.values[k * per + idx];
            if want[k] && stored != ILLEGAL {
                out[k] = Err(mismatch(table, layout.setup(sq, turn).to_fen(), stored, "illegal".into()));
            }
        }
        return out;
    }
    let pieces = layout.pieces.iter().zip(sq).map(|(&p, &s)| (Square::from_index_unchecked(s as usize), p));
    let mut pos = Position::from_pieces_unchecked(pieces, Color::Red);
    // Does the position rank back to this placement? Asked once: the side to move only adds
    // `per` to the index of a position of the table's own material. Its camps' numbers then
    // rank the non-captures' children.
    let mut ranked: Option<Option<Ranked>> = None;
    for (k, turn) in Color::ALL.into_iter().enumerate() {
        if turn != pos.turn() {
            pos.make_null_move();
        }
        if want[k] {
            out[k] = check_entry(table, targets, &mut pos, sq, k * per + idx, &mut ranked, scratch);
        }
    }
    out
}

/// Checks one entry, `pos` its position (of the entry's placement `sq`, with its side to move);
/// `Ok(true)` if it is a legal position. `ranked` holds, once asked, the placement ranked for
/// its children if its position ranks back to it, `None` if not.
///
/// The moves are the core's pseudo-legal ones, and a move that leaves the mover's king attacked
/// is set aside: a capture's child is played and asked of the core; a non-capture's child is an
/// entry of this table, illegal exactly when its stored code says so. That code is checked
/// against the core when the child's own entry is (every entry's legality is, first of all), so
/// a table that passes has every such move set aside rightly.
fn check_entry(
    table: &Table,
    targets: &CaptureTargets,
    pos: &mut Position,
    sq: &Squares,
    full: usize,
    ranked: &mut Option<Option<Ranked>>,
    Scratch { moves, quiet, codes }: &mut Scratch,
) -> Result<bool, TbError> {
    let layout = &table.layout;
    let turn = pos.turn();
    let stored = table.values[full];
    // The core's own rules decide legality: the side not to move not attacked (the core counts
    // the facing king as an attacker).
    if pos.is_attacked_king(!turn) {
        if stored != ILLEGAL {
            return Err(mismatch(table, pos.fen(), stored, "illegal".into()));
        }
        return Ok(false);
    }
    let per = layout.per_side;
    let ranked = *ranked.get_or_insert_with(|| {
        // The squares rank back to the entry (a position built from them has these squares,
        // in any order within a role, which the rank does not depend on).
        layout.ranked(full as u64 % per, sq)
    });
    let Some(ranked) = ranked else {
        return Err(mismatch(table, pos.fen(), stored, "an index that does not rank back to itself".into()));
    };
    moves.clear();
    pos.pseudo_legal_moves_to(Bitboard::FULL, moves);
    let unreadable =
        |pos: &Position, m: Move| mismatch(table, pos.fen(), stored, format!("an unreadable successor after {m}"));
    let child_base = (!turn).index() as u64 * per;
    let mut children = Children::default();
    // A non-capture keeps the material, and the entry's position is in the table's own
    // orientation, so the child is in this table, colors as they are: its entry comes from the
    // entry's squares, and the move need not be played. Their entries are found first and read
    // together after, so that the reads, mostly cache misses, overlap. A capture is played on
    // the entry's position and taken back (no copy per move).
    quiet.clear();
    for &m in moves.iter() {
        if let Some(captured) = pos.piece_at(m.to()) {
            let undo = pos.make_move(m);
            // An illegal move (the mover's king left attacked) has no child.
            let v = if pos.is_attacked_king(turn) { Some(None) } else { targets.value(captured, pos).map(Some) };
            pos.unmake_move(m, undo);
            children.add(v.ok_or_else(|| unreadable(pos, m))?);
        } else {
            match moved_index(layout, &ranked, sq, m).map(|i| (child_base + i) as usize) {
                Some(idx) if idx < table.values.len() => quiet.push((idx, m)),
                _ => return Err(unreadable(pos, m)),
            }
        }
    }
    codes.clear();
    codes.extend(quiet.iter().map(|&(idx, _)| table.values[idx]));
    for (&code, &(_, m)) in codes.iter().zip(quiet.iter()) {
        match code {
            // The stored "illegal" of a position whose side not to move is attacked: the move
            // left the mover's king attacked, and has no child.
            ILLEGAL => {}
            code => children.add(Some(TbValue::from_code(code).ok_or_else(|| unreadable(pos, m))?)),
        }
    }
    let derived = children.derived();
    if derived != stored {
        let d = TbValue::from_code(derived).map_or("?".to_string(), |v| v.to_string());
        return Err(mismatch(table, pos.fen(), stored, d));
    }
    Ok(true)
}

/// Buffers of one worker's entries, reused from entry to entry rather than set up for each: the
/// moves, the non-captures' child entries (with their moves) and their codes.
#[derive(Default)]
struct Scratch {
    moves: MoveList,
    quiet: Vec<(usize, Move)>,
    codes: Vec<u16>,
}

/// The children's values of an entry, as far as its own value goes.
#[derive(Default)]
struct Children {
    legal_moves: u32,
    fastest_win: Option<u32>,
    slowest_loss: u32,
    some_not_lost: bool,
}

impl Children {
    /// Counts one move's child: `None` for an illegal move, which has none.
    #[inline]
    fn add(&mut self, child: Option<TbValue>) {
        let Some(v) = child else { return };
        self.legal_moves += 1;
        let mine = v.before_move();
        match mine.wdl {
            Wdl::Win => {
                self.some_not_lost = true;
                self.fastest_win = Some(self.fastest_win.map_or(mine.dtm.plies(), |w| w.min(mine.dtm.plies())));
            }
            Wdl::Draw => self.some_not_lost = true,
            Wdl::Loss => self.slowest_loss = self.slowest_loss.max(mine.dtm.plies()),
        }
    }

    /// The entry's code these children make.
    fn derived(&self) -> u16 {
        match self.fastest_win {
            _ if self.legal_moves == 0 => value::code(0), // no legal move: lost at once
            Some(w) => value::code(w as u16),
            None if !self.some_not_lost => value::code(self.slowest_loss as u16),
            None => value::DRAW,
        }
    }
}

/// The index (within its side to move) of the child of non-capture `m` from placement `sq`
/// (ranked as `ranked`): the move shifts one piece within the table's own orientation, so the
/// child's index is `sq`'s with one digit or camp changed (`Layout::rank_moved`); no board is
/// scanned.
#[inline]
pub(super) fn moved_index(layout: &Layout, ranked: &Ranked, sq: &Squares, m: Move) -> Option<u64> {
    let from = m.from().index() as u8;
    let slot = sq[..layout.pieces.len()].iter().position(|&s| s == from)?;
    layout.rank_moved(ranked, sq, slot, m.to().index() as u8)
}

/// Where a capture leads, by the captured piece: the table of the material left (canonical,
/// with whether its colors are swapped), or a dead draw when no attacking piece is left.
/// Worked out once per table rather than per capture, for positions of the table's own
/// material as its placements set them up.
pub(super) struct CaptureTargets<'a> {
    by_piece: [[Option<Target<'a>>; 7]; 2],
}

/// A capture's table (`None`: a dead draw) and whether its colors are swapped.
type Target<'a> = (Option<&'a Table>, bool);

impl<'a> CaptureTargets<'a> {
    pub(super) fn new(material: Material, deps: &'a HashMap<Material, Arc<Table>>) -> CaptureTargets<'a> {
        let mut by_piece = [[None; 7]; 2];
        for (color, role, sub) in material.captures() {
            let (c, swap) = sub.canonical();
            by_piece[color.index()][role.index()] = match c.has_attackers() {
                false => Some((None, swap)),
                true => deps.get(&c).map(|t| (Some(&**t), swap)),
            };
        }
        CaptureTargets { by_piece }
    }

    /// The value of `child`, the position after `captured` was taken (`None` if its table is
    /// missing or its entry unreadable).
    #[inline]
    pub(super) fn value(&self, captured: Piece, child: &Position) -> Option<TbValue> {
        match self.by_piece[captured.color.index()][captured.role.index()]? {
            (None, _) => Some(TbValue::DRAW),
            (Some(t), swap) => table_value(t, child, swap),
        }
    }
}

fn table_value(t: &Table, child: &Position, swap: bool) -> Option<TbValue> {
    let idx = t.layout.index_swapped(child, swap)?;
    TbValue::from_code(*t.values.get(idx as usize)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::driver::{generate_set, GenerateOptions};
    use crate::tablebase::format::{encode, write_atomic};
    use crate::tablebase::index::MAX_PIECES;
    use crate::tablebase::value::DRAW;
    use crate::tablebase::verify_rules::{verify_rules_after_plain_with_progress, verify_rules_with_progress};
    use crate::tablebase::verify_wdl::verify_wdl_with_progress;
    use crate::util::progress::{Phase, RecordedPhases};

    /// The FEN that verification of KRvK names after the entries `damaged` (legal, decided) are
    /// stored as draws.
    fn named_after(damaged: &[usize]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let krk: Material = "KRvK".parse().unwrap();
        generate_set(&[krk], &GenerateOptions::new(dir.path()).rules(false)).unwrap();
        let path = dir.path().join(file_name(krk));
        let mut table = load(&path).unwrap();
        for &e in damaged {
            table.values[e] = DRAW;
        }
        write_atomic(&path, &encode(krk, &table.values, &table.counts(), true).unwrap()).unwrap();
        match verify_table(dir.path(), krk, &mut TableCache::new()) {
            Err(TbError::Mismatch { fen, stored, .. }) => {
                assert_eq!(stored, "draw");
                fen
            }
            other => panic!("expected a mismatch, got {other:?}"),
        }
    }

    /// Non-captures that leave the mover's king attacked are set aside by their child's stored
    /// "illegal": a legal entry stored as illegal, or an illegal one stored with a value, fails
    /// verification, whichever entries are damaged, so no such damage can pass for a sorted move.
    #[test]
    fn a_wrong_legality_fails_either_way() {
        let dir = tempfile::tempdir().unwrap();
        let krka: Material = "KRvKA".parse().unwrap();
        generate_set(&[krka], &GenerateOptions::new(dir.path()).rules(false)).unwrap();
        let path = dir.path().join(file_name(krka));
        let original = std::fs::read(&path).unwrap();
        let table = load(&path).unwrap();
        assert!(verify_table(dir.path(), krka, &mut TableCache::new()).is_ok());
        let per = table.layout.per_side as usize;
        let mut sq = [0u8; MAX_PIECES];
        // Illegal entries whose pieces stand apart (a king attacked, not a placement clash).
        let attacked: Vec<usize> = (0..table.values.len())
            .filter(|&e| {
                table.layout.unrank((e % per) as u64, &mut sq);
                table.values[e] == ILLEGAL && !table.layout.overlapping(&sq)
            })
            .collect();
        let legal: Vec<usize> = (0..table.values.len()).filter(|&e| table.values[e] != ILLEGAL).collect();
        assert!(attacked.len() > 1000 && legal.len() > 1000);
        for (damaged, to) in attacked
            .iter()
            .step_by(attacked.len() / 7)
            .map(|&e| (e, DRAW))
            .chain(legal.iter().step_by(legal.len() / 7).map(|&e| (e, ILLEGAL)))
        {
            let mut values = table.values.to_vec();
            values[damaged] = to;
            let counts = Table { layout: table.layout.clone(), values: values.clone().into() }.counts();
            write_atomic(&path, &encode(krka, &values, &counts, true).unwrap()).unwrap();
            let result = verify_table(dir.path(), krka, &mut TableCache::new());
            assert!(matches!(result, Err(TbError::Mismatch { .. })), "entry {damaged} stored as {to}: {result:?}");
        }
        std::fs::write(&path, original).unwrap();
        assert!(verify_table(dir.path(), krka, &mut TableCache::new()).is_ok());
    }

    /// Both entries of a placement are checked in one visit; a failure is still reported at the
    /// first wrong entry in entry order (every red-to-move entry before every black-to-move one),
    /// whichever side's entry of a chunk is met first.
    #[test]
    fn the_first_wrong_entry_is_named_for_either_side_to_move() {
        let krk: Material = "KRvK".parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        generate_set(&[krk], &GenerateOptions::new(dir.path()).rules(false)).unwrap();
        let table = load(&dir.path().join(file_name(krk))).unwrap();
        let per = table.layout.per_side as usize;
        let decided = |e: usize| value::dtm_of(table.values[e]).is_some_and(|d| d > 0);
        // A black-to-move entry decided, and a red-to-move one at a later placement of the same
        // chunk.
        let black = (per..2 * per).find(|&e| decided(e)).unwrap();
        let red = (black - per + 1..per).find(|&e| decided(e)).unwrap();
        assert!(red < 4096, "both in the first chunk of placements");
        let fen_of = |e: usize| {
            let mut sq = [0u8; MAX_PIECES];
            table.layout.unrank((e % per) as u64, &mut sq);
            let pieces =
                table.layout.pieces.iter().zip(sq).map(|(&p, s)| (Square::from_index_unchecked(s as usize), p));
            Position::from_pieces_unchecked(pieces, if e < per { Color::Red } else { Color::Black }).fen()
        };
        assert!(fen_of(black).contains(" b "));
        assert_eq!(named_after(&[black]), fen_of(black));
        assert_eq!(named_after(&[black, red]), fen_of(red));
    }

    /// Each check reports one phase of the table's entries, every one of them advanced by the
    /// time it finishes; the companion's check that the plain one covers reports none; a check
    /// that fails does not finish its phase.
    #[test]
    fn the_progress_sees_every_entry_of_each_check() {
        let dir = tempfile::tempdir().unwrap();
        let krka: Material = "KRvKA".parse().unwrap();
        generate_set(&[krka], &GenerateOptions::new(dir.path())).unwrap();
        // The entries the file holds (its header's count, checked against its blocks).
        let path = dir.path().join(file_name(krka));
        let entries = load(&path).unwrap().values.len() as u64;
        assert!(entries > 10_000, "{entries}");
        let seen = RecordedPhases::default();
        let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
        let legal = verify_table_with_progress(dir.path(), krka, &mut plain, &seen).unwrap();
        assert!(legal > 0 && legal < entries);
        let covered = verify_rules_after_plain_with_progress(dir.path(), krka, &mut plain, &mut rules, &seen).unwrap();
        assert!(covered.same_as_plain);
        assert_eq!(verify_rules_with_progress(dir.path(), krka, &mut plain, &mut rules, &seen).unwrap(), 0);
        assert_eq!(verify_wdl_with_progress(dir.path(), krka, &mut plain, &mut rules, &seen).unwrap(), legal);
        let phase = |label: &str| Phase { label: label.to_string(), total: entries, done: entries, finished: true };
        assert_eq!(
            seen.take(),
            [phase("verifying KRvKA"), phase("verifying KRvKA (Asian rules)"), phase("verifying KRvKA (WDL)")]
        );
        // A damaged entry: the phase starts and is not finished.
        let mut table = load(&path).unwrap();
        let e = table.values.iter().position(|&v| value::dtm_of(v).is_some_and(|d| d > 0)).unwrap();
        table.values[e] = DRAW;
        write_atomic(&path, &encode(krka, &table.values, &table.counts(), true).unwrap()).unwrap();
        assert!(verify_table_with_progress(dir.path(), krka, &mut TableCache::new(), &seen).is_err());
        let phases = seen.take();
        assert_eq!(phases.len(), 1);
        assert_eq!(
            (phases[0].label.as_str(), phases[0].total, phases[0].finished),
            ("verifying KRvKA", entries, false)
        );
    }
}
