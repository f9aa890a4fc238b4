//! Independent verification of table files. It shares nothing with the generator but the index
//! scheme (needed to read a file at all, and itself checked: every legal entry must rank back to
//! its own number): positions are built and validated by the rules core's `Position`, moves come
//! from the core's move generator, and child values are read back from the files themselves
//! (smaller tables for captures). Every entry must then be what its successors make it:
//! lost in 0 exactly when there is no legal move; won in `n` when the fastest child lost is lost
//! in `n - 1`; lost in `n` when every child is won and the slowest in `n - 1`; drawn otherwise.
//! By induction on the distance, a table consistent in this way is exactly right. The block and
//! payload checksums and the header's counts are checked too.

use super::error::TbError;
use super::index::{Squares, MAX_PIECES};
use super::load::load;
use super::material::file_name;
use super::material::Material;
use super::solve::Table;
use super::value::FromCode as _;
use super::value::{self, TbValue, Wdl, ILLEGAL};
use crate::core::{Color, Move, MoveList, Position, Square};
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
/// into `cache`. Returns the number of legal entries checked.
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
    let path = dir.join(file_name(material));
    let file = super::format::TableFile::open(&path)?;
    let table = get(dir, material, cache)?;
    let mut deps = capture_tables(material, |c| get(dir, c, cache))?;
    deps.insert(material, table.clone());
    file.check_counts(&table.counts())?;
    let per = table.layout.per_side as usize;
    // By placement, both sides to move at once: the placement is unranked, set up and ranked
    // back once for its two entries.
    let result = (0..per.div_ceil(4096))
        .into_par_iter()
        .map(|c| {
            let mut legal = 0u64;
            // A black-to-move entry's error (it comes after every red one in entry order): the
            // rest of the chunk is checked for an earlier, red-to-move one.
            let mut black: Option<(usize, TbError)> = None;
            for idx in c * 4096..((c + 1) * 4096).min(per) {
                let [red, blk] = check_placement(&table, &deps, idx, [true, black.is_none()]);
                legal += red.map_err(|e| (idx, e))? as u64;
                match blk {
                    Ok(l) => legal += l as u64,
                    Err(e) => black = Some((per + idx, e)),
                }
            }
            black.map_or(Ok(legal), Err)
        })
        .reduce(
            || Ok(0),
            |a, b| match (a, b) {
                (Ok(x), Ok(y)) => Ok(x + y),
                (Err(x), Err(y)) => Err(if x.0 < y.0 { x } else { y }),
                (Err(x), _) | (_, Err(x)) => Err(x),
            },
        );
    result.map_err(|(_, e)| e)
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
    deps: &HashMap<Material, Arc<Table>>,
    idx: usize,
    want: [bool; 2],
) -> [Result<bool, TbError>; 2] {
    let layout = &table.layout;
    let per = layout.per_side as usize;
    let mut sq = [0u8; MAX_PIECES];
    layout.unrank(idx as u64, &mut sq);
    let mut out = [Ok(false), Ok(false)];
    // Squares are legal by construction of the index; pieces must stand apart, and the rank-back
    // check below confirms the placement is the entry's.
    if layout.overlapping(&sq) {
        for (k, turn) in Color::ALL.into_iter().enumerate() {
            let stored = table.values[k * per + idx];
            if want[k] && stored != ILLEGAL {
                out[k] = Err(mismatch(table, layout.setup(&sq, turn).to_fen(), stored, "illegal".into()));
            }
        }
        return out;
    }
    let pieces = layout.pieces.iter().zip(sq).map(|(&p, s)| (Square::from_index_unchecked(s as usize), p));
    let mut pos = Position::from_pieces_unchecked(pieces, Color::Red);
    // Does the position rank back to this placement? Asked once: the side to move only adds
    // `per` to the index of a position of the table's own material.
    let mut ranks_back: Option<bool> = None;
    for (k, turn) in Color::ALL.into_iter().enumerate() {
        if turn != pos.turn() {
            pos.make_null_move();
        }
        if want[k] {
            out[k] = check_entry(table, deps, &mut pos, &sq, k * per + idx, &mut ranks_back);
        }
    }
    out
}

/// Checks one entry, `pos` its position (of the entry's placement `sq`, with its side to move);
/// `Ok(true)` if it is a legal position. `ranks_back` holds whether the placement's position
/// ranks back to it, once asked.
fn check_entry(
    table: &Table,
    deps: &HashMap<Material, Arc<Table>>,
    pos: &mut Position,
    sq: &Squares,
    full: usize,
    ranks_back: &mut Option<bool>,
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
    if !*ranks_back.get_or_insert_with(|| layout.index_of(pos) == Some(full as u64)) {
        return Err(mismatch(table, pos.fen(), stored, "an index that does not rank back to itself".into()));
    }
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let derived = if moves.is_empty() {
        value::code(0)
    } else {
        let mut fastest_win: Option<u32> = None;
        let mut slowest_loss: u32 = 0;
        let mut all_lose = true;
        for &m in moves.iter() {
            // A non-capture keeps the material, and the entry's position is in the table's own
            // orientation, so the child is in this table, colors as they are: its entry comes
            // from the entry's squares, and the move need not be played. A capture is played on
            // the entry's position and taken back (no copy per move).
            let v = if pos.piece_at(m.to()).is_some() {
                let undo = pos.make_move(m);
                let v = child_value(deps, pos);
                pos.unmake_move(m, undo);
                v
            } else {
                moved_value(table, sq, m, !turn)
            };
            let v =
                v.ok_or_else(|| mismatch(table, pos.fen(), stored, format!("an unreadable successor after {m}")))?;
            let mine = v.before_move();
            match mine.wdl {
                Wdl::Win => {
                    all_lose = false;
                    fastest_win = Some(fastest_win.map_or(mine.dtm.plies(), |w| w.min(mine.dtm.plies())));
                }
                Wdl::Draw => all_lose = false,
                Wdl::Loss => slowest_loss = slowest_loss.max(mine.dtm.plies()),
            }
        }
        match fastest_win {
            Some(w) => value::code(w as u16),
            None if all_lose => value::code(slowest_loss as u16),
            None => value::DRAW,
        }
    };
    if derived != stored {
        let d = TbValue::from_code(derived).map_or("?".to_string(), |v| v.to_string());
        return Err(mismatch(table, pos.fen(), stored, d));
    }
    Ok(true)
}

pub(super) fn child_value(deps: &HashMap<Material, Arc<Table>>, child: &Position) -> Option<TbValue> {
    let m = Material::from_position(child);
    if !m.has_attackers() {
        return Some(TbValue::DRAW);
    }
    let (canonical, swap) = m.canonical();
    table_value(deps.get(&canonical)?, child, swap)
}

/// The value of the child of a non-capture `m` from placement `sq` (a legal entry of `table`,
/// which ranks back to itself), with `turn` to move there. The move shifts one piece within the
/// table's own orientation, so the child's squares are `sq` with that piece's square changed:
/// no scan of the child's board, the same entry as [`table_value`] finds.
pub(super) fn moved_value(table: &Table, sq: &Squares, m: Move, turn: Color) -> Option<TbValue> {
    let layout = &table.layout;
    let from = m.from().index() as u8;
    let slot = sq[..layout.pieces.len()].iter().position(|&s| s == from)?;
    let mut child = *sq;
    child[slot] = m.to().index() as u8;
    let idx = turn.index() as u64 * layout.per_side + layout.rank(&child)?;
    TbValue::from_code(*table.values.get(idx as usize)?)
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
    use crate::tablebase::value::DRAW;

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
}
