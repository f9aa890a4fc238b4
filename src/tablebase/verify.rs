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
    let n = table.values.len();
    let result = (0..n.div_ceil(4096))
        .into_par_iter()
        .map(|c| {
            let mut legal = 0u64;
            for full in c * 4096..((c + 1) * 4096).min(n) {
                match check_entry(&table, &deps, full, per) {
                    Ok(true) => legal += 1,
                    Ok(false) => {}
                    Err(e) => return Err((full, e)),
                }
            }
            Ok(legal)
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

/// Checks one entry; `Ok(true)` if it is a legal position.
fn check_entry(table: &Table, deps: &HashMap<Material, Arc<Table>>, full: usize, per: usize) -> Result<bool, TbError> {
    let layout = &table.layout;
    let turn = if full < per { Color::Red } else { Color::Black };
    let mut sq = [0u8; MAX_PIECES];
    layout.unrank((full % per) as u64, &mut sq);
    let stored = table.values[full];
    // The core's own rules decide legality: pieces apart, and the side not to move not attacked
    // (the core counts the facing king as an attacker). Squares are legal by construction of the
    // index, and the rank-back check below confirms the placement is the entry's.
    let pos = if layout.overlapping(&sq) {
        None
    } else {
        let pieces = layout.pieces.iter().zip(sq).map(|(&p, s)| (Square::from_index_unchecked(s as usize), p));
        let pos = Position::from_pieces_unchecked(pieces, turn);
        (!pos.is_attacked_king(!turn)).then_some(pos)
    };
    let Some(mut pos) = pos else {
        if stored != ILLEGAL {
            return Err(mismatch(table, layout.setup(&sq, turn).to_fen(), stored, "illegal".into()));
        }
        return Ok(false);
    };
    if layout.index_of(&pos) != Some(full as u64) {
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
                let v = child_value(deps, &pos);
                pos.unmake_move(m, undo);
                v
            } else {
                moved_value(table, &sq, m, !turn)
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
