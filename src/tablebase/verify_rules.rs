//! Independent verification of `.qtr` companions (the Asian rules' values). Like
//! [`super::verify`] it shares nothing with the generator but the index scheme: positions, moves
//! and checks come from the rules core. Every entry must satisfy the local conditions under
//! which following the table wins against any defence under a referee that applies the
//! perpetual-check rule (`super::rules` proves it from these conditions alone):
//!
//! - an entry decided without the rule keeps its value (the companion stores nothing for it);
//! - a changed entry won in `d`: some move leads to a child lost in less than `d`, or, in a
//!   perpetual band, some *non-checking* move leads to a child lost below the band's end;
//! - a changed entry lost in `d`: every move leads to a child won in less than `d`, and in a
//!   perpetual band every non-checking move leads below the band's start;
//! - an entry still drawn has no move into a lost child and some move into a child not won.
//!
//! What this does not show is that no further entry could be decided (maximality); the tests
//! compare a brute-force solver for that.
//!
//! Where the companion stores no change and so do those of every table its captures lead to,
//! these conditions are the plain check's own, and [`verify_rules_after_plain`] relies on a passed
//! [`super::verify::verify_table`] instead of repeating it entry by entry; such a companion also
//! shares its table's decoded values in the caches ([`get_rules`]).

use super::bands::{band_of, Band, BandKind};
use super::error::TbError;
use super::format::TableFile;
use super::index::MAX_PIECES;
use super::load::load_rules;
use super::material::rules_file_name;
use super::material::Material;
use super::solve::Table;
use super::value::FromCode as _;
use super::value::{TbValue, Wdl, DRAW};
use super::verify::{capture_tables, get, mismatch, moved_index, CaptureTargets, TableCache};
use crate::core::{Color, MoveList, Position, Square};
use crate::util::progress::{NoProgress, Progress};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// The merged rule-aware table of `m` (canonical) in `dir`, cached in `rules` (plain tables in
/// `plain`). A companion that changes no entry (every stored code 0, the usual case) gives the
/// plain table itself, shared rather than copied: the two caches then hold one decoded copy.
pub fn get_rules(
    dir: &Path,
    m: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<Arc<Table>, TbError> {
    if let Some(t) = rules.get(&m) {
        return Ok(t.clone());
    }
    let p = get(dir, m, plain)?;
    let t = load_rules(&dir.join(rules_file_name(m)), &p)?;
    rules.insert(m, t.clone());
    Ok(t)
}

/// What [`verify_rules_after_plain`] found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RulesChecked {
    /// Entries the rules change.
    pub changed: u64,
    /// True when the companion and those of every table its captures lead to hold exactly the
    /// plain values, so that the plain check already passed covers every entry (see
    /// [`verify_rules_after_plain`]); false when every entry was checked under the rules.
    pub same_as_plain: bool,
}

/// Checks the companion of `material` (canonical) in `dir`, every entry under the rules.
/// Returns the number of entries the rules change. [`verify_rules_with_progress`] reports how
/// far it has come.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, verify_rules, GenerateOptions, TableCache};
/// use qiku::tablebase::Material;
///
/// let dir = tempfile::tempdir()?;
/// let krk: Material = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// assert_eq!(verify_rules(dir.path(), krk, &mut plain, &mut rules)?, 0); // the rules change nothing here
/// std::fs::remove_file(dir.path().join("KRvK.qtr"))?;
/// assert!(verify_rules(dir.path(), krk, &mut TableCache::new(), &mut TableCache::new()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_rules(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<u64, TbError> {
    verify_rules_with_progress(dir, material, plain, rules, &NoProgress)
}

/// [`verify_rules`], reporting to `progress` while the entries are checked under the rules:
/// one phase, labelled `verifying MATERIAL (Asian rules)`, of the table's entries, started once
/// the tables are loaded and finished when every entry agreed (a check that fails ends without
/// [`Progress::finish`]). Nothing is printed.
///
/// ```
/// use qiku::tablebase::generate::{generate_set, verify_rules_with_progress, GenerateOptions, TableCache};
/// # use qiku::Progress;
/// # use std::sync::Mutex;
/// # #[derive(Default)]
/// # struct Phases(Mutex<Vec<(String, u64)>>);
/// # impl Progress for Phases {
/// #     fn start(&self, label: &str, total: u64) {
/// #         self.0.lock().unwrap().push((label.to_string(), total));
/// #     }
/// #     fn advance(&self, _n: u64) {}
/// #     fn finish(&self) {}
/// # }
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let phases = Phases::default(); // a `Progress` that records each phase's label and size
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// verify_rules_with_progress(dir.path(), "KRvK".parse()?, &mut plain, &mut rules, &phases)?;
/// assert_eq!(phases.0.into_inner()?, [("verifying KRvK (Asian rules)".to_string(), 2 * 45 * 90)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_rules_with_progress(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
    progress: &dyn Progress,
) -> Result<u64, TbError> {
    check(dir, material, plain, rules, false, progress).map(|r| r.changed)
}

/// Checks the companion of `material` (canonical) in `dir` after [`super::verify::verify_table`]
/// has passed the plain table of `material` (in `dir`, with the same `plain` cache): the caller
/// vouches for that, and must call [`verify_rules`] otherwise.
///
/// When the companion changes no entry and the companion of every table its captures lead to
/// holds exactly that table's plain values, the per-entry check is the plain one already passed,
/// and is not repeated: every stored value is then the plain value (so a decided entry keeps its
/// value), every successor reads the same value in both sets (the table itself for a
/// non-capture, equal tables for a capture), and the condition on a drawn entry (no move into a
/// lost child, some move into a child not won) is the plain check's condition for a draw. The
/// file itself is still checked whole (every block and the payload checksum, the entry count and
/// the header's counts). Otherwise every entry is checked as [`verify_rules`] does.
///
/// ```
/// use qiku::tablebase::generate::{
///     generate_set, verify_rules_after_plain, verify_table, GenerateOptions, TableCache,
/// };
/// use qiku::tablebase::Material;
///
/// let dir = tempfile::tempdir()?;
/// let krka: Material = "KRvKA".parse()?;
/// generate_set(&[krka], &GenerateOptions::new(dir.path()))?;
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// for m in ["KRvK", "KRvKA"] {
///     let m: Material = m.parse()?;
///     verify_table(dir.path(), m, &mut plain)?;
///     let checked = verify_rules_after_plain(dir.path(), m, &mut plain, &mut rules)?;
///     // A lone rook against a king and advisor: the rule decides nothing.
///     assert_eq!((checked.changed, checked.same_as_plain), (0, true));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_rules_after_plain(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
) -> Result<RulesChecked, TbError> {
    verify_rules_after_plain_with_progress(dir, material, plain, rules, &NoProgress)
}

/// [`verify_rules_after_plain`], reporting to `progress` as [`verify_rules_with_progress`] does
/// when the entries are checked; when the plain check covers them
/// ([`RulesChecked::same_as_plain`]) no entry is checked again, and no phase is reported.
///
/// ```
/// use qiku::tablebase::generate::{
///     generate_set, verify_rules_after_plain_with_progress, verify_table, GenerateOptions, TableCache,
/// };
/// # use std::sync::atomic::{AtomicUsize, Ordering};
/// # /// Counts the phases started.
/// # #[derive(Default)]
/// # struct Phases(AtomicUsize);
/// # impl qiku::Progress for Phases {
/// #     fn start(&self, _label: &str, _total: u64) {
/// #         self.0.fetch_add(1, Ordering::Relaxed);
/// #     }
/// #     fn advance(&self, _n: u64) {}
/// #     fn finish(&self) {}
/// # }
///
/// let dir = tempfile::tempdir()?;
/// let krk = "KRvK".parse()?;
/// generate_set(&[krk], &GenerateOptions::new(dir.path()))?;
/// let phases = Phases::default(); // a `Progress` that counts the phases started
/// let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
/// verify_table(dir.path(), krk, &mut plain)?;
/// let checked = verify_rules_after_plain_with_progress(dir.path(), krk, &mut plain, &mut rules, &phases)?;
/// assert!(checked.same_as_plain);
/// assert_eq!(phases.0.into_inner(), 0); // the plain check covered every entry
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify_rules_after_plain_with_progress(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
    progress: &dyn Progress,
) -> Result<RulesChecked, TbError> {
    check(dir, material, plain, rules, true, progress)
}

fn check(
    dir: &Path,
    material: Material,
    plain: &mut TableCache,
    rules: &mut TableCache,
    plain_passed: bool,
    progress: &dyn Progress,
) -> Result<RulesChecked, TbError> {
    let path = dir.join(rules_file_name(material));
    let file = TableFile::open(&path)?;
    let base = get(dir, material, plain)?;
    let table = get_rules(dir, material, plain, rules)?;
    let mut all_same = Arc::ptr_eq(&base, &table);
    let deps = capture_tables(material, |c| {
        let r = get_rules(dir, c, plain, rules)?;
        all_same &= Arc::ptr_eq(&get(dir, c, plain)?, &r);
        Ok(r)
    })?;
    if plain_passed && all_same {
        return Ok(RulesChecked { changed: 0, same_as_plain: true });
    }
    let bands = &file.header.bands;
    let per = table.layout.per_side as usize;
    let n = table.values.len();
    let checker = Checker { table: &table, plain: &base, targets: CaptureTargets::new(material, &deps), bands };
    progress.start(&format!("verifying {material} (Asian rules)"), n as u64);
    let changed: Result<Vec<u64>, TbError> = (0..n.div_ceil(4096))
        .into_par_iter()
        .map(|c| {
            let mut changed = 0;
            let entries = c * 4096..((c + 1) * 4096).min(n);
            let len = entries.len() as u64;
            for full in entries {
                changed += checker.entry(full, per)? as u64;
            }
            progress.advance(len);
            Ok(changed)
        })
        .collect();
    let changed = changed?.iter().sum();
    progress.finish();
    Ok(RulesChecked { changed, same_as_plain: false })
}

struct Checker<'a> {
    table: &'a Table,
    plain: &'a Table,
    targets: CaptureTargets<'a>,
    bands: &'a [Band],
}

impl Checker<'_> {
    /// Checks one entry; `Ok(true)` if the rules change it.
    fn entry(&self, full: usize, per: usize) -> Result<bool, TbError> {
        let stored = self.table.values[full];
        let plain = self.plain.values[full];
        if plain != DRAW {
            // Decided (or illegal) without the rule: unchanged, checked by `verify`.
            return if stored == plain { Ok(false) } else { Err(self.fail(full, per, "a decided value changed")) };
        }
        let layout = &self.table.layout;
        let turn = if full < per { Color::Red } else { Color::Black };
        let mut sq = [0u8; MAX_PIECES];
        let idx = (full % per) as u64;
        layout.unrank(idx, &mut sq);
        // A plain draw is a legal entry, which ranks back to itself.
        let ranked = layout.ranked(idx, &sq).ok_or_else(|| self.fail(full, per, "an entry that is not a placement"))?;
        let pieces = layout.pieces.iter().zip(sq).map(|(&p, s)| (Square::from_index_unchecked(s as usize), p));
        let mut pos = Position::from_pieces_unchecked(pieces, turn);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let child_base = (!turn).index() * per;
        // (value for the mover, child distance, gives check)
        let mut children = Vec::with_capacity(moves.len());
        for &m in moves.iter() {
            // Played on the entry's position and taken back (no copy per move). A non-capture's
            // child is in this table, ranked from the entry's own digits, as `verify` finds it.
            let undo = pos.make_move(m);
            let v = match undo.captured {
                Some(piece) => self.targets.value(piece, &pos),
                None => moved_index(layout, &ranked, &sq, m)
                    .and_then(|i| self.table.values.get(child_base + i as usize))
                    .and_then(|&code| TbValue::from_code(code)),
            };
            let check = pos.is_check();
            pos.unmake_move(m, undo);
            let v = v.ok_or_else(|| self.fail(full, per, &format!("an unreadable successor after {m}")))?;
            children.push((v.before_move().wdl, v.dtm.plies(), check));
        }
        let Some(v) = TbValue::from_code(stored) else {
            return Err(self.fail(full, per, "an illegal code"));
        };
        let ok = match v.wdl {
            Wdl::Draw => children.iter().all(|c| c.0 != Wdl::Win) && children.iter().any(|c| c.0 != Wdl::Loss),
            wdl => {
                let d = v.dtm.plies();
                let Some((i, band)) = band_of(self.bands, d as u16) else {
                    return Err(self.fail(full, per, "a changed value below every band"));
                };
                let end = self.bands.get(i + 1).map_or(u32::MAX, |b| b.start as u32);
                let perpetual = band.kind == BandKind::Perpetual;
                if wdl == Wdl::Win {
                    children.iter().any(|c| c.0 == Wdl::Win && c.1 < d)
                        || (perpetual && children.iter().any(|c| c.0 == Wdl::Win && !c.2 && c.1 < end))
                } else {
                    children.iter().all(|c| c.0 == Wdl::Loss && c.1 < d)
                        && (!perpetual || children.iter().all(|c| c.2 || c.1 < band.start as u32))
                }
            }
        };
        if ok {
            Ok(stored != plain)
        } else {
            Err(self.fail(full, per, "a value its moves do not support under the rules"))
        }
    }

    fn fail(&self, full: usize, per: usize, why: &str) -> TbError {
        let layout = &self.table.layout;
        let mut sq = [0u8; MAX_PIECES];
        layout.unrank((full % per) as u64, &mut sq);
        let turn = if full < per { Color::Red } else { Color::Black };
        let fen = layout.setup(&sq, turn).to_fen();
        mismatch(self.table, fen, self.table.values[full], format!("{why} (Asian rules)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::bands::{Band, BandKind};
    use crate::tablebase::driver::{generate_set, GenerateOptions};
    use crate::tablebase::format::{encode_rules, write_atomic};
    use crate::tablebase::value::code;
    use crate::tablebase::verify::verify_table;

    fn material(s: &str) -> Material {
        s.parse().unwrap()
    }

    /// KRvK and KRvKA with their companions (the rule decides nothing in either), both plain
    /// tables verified into `plain`.
    fn krka() -> (tempfile::TempDir, TableCache) {
        let dir = tempfile::tempdir().unwrap();
        generate_set(&[material("KRvKA")], &GenerateOptions::new(dir.path())).unwrap();
        let mut plain = TableCache::new();
        for m in ["KRvK", "KRvKA"] {
            verify_table(dir.path(), material(m), &mut plain).unwrap();
        }
        (dir, plain)
    }

    /// Rewrites the companion of `m` with valid checksums and counts, one drawn entry (the
    /// first) stored as decided in `d` plies in a forced band from 2.
    fn change_one_draw(dir: &Path, m: &str, d: u16) {
        let plain = get(dir, material(m), &mut TableCache::new()).unwrap();
        let i = plain.values.iter().position(|&v| v == DRAW).unwrap();
        let mut rule = Table { layout: plain.layout.clone(), values: plain.values.clone() };
        rule.values[i] = code(d);
        let bands = [Band { start: 2, kind: BandKind::Forced }];
        let bytes = encode_rules(material(m), &plain.values, &rule.values, &rule.counts(), &bands, true).unwrap();
        write_atomic(&dir.join(rules_file_name(material(m))), &bytes).unwrap();
    }

    /// Whether the rules cache shares the plain table of `m` (it must not once its companion
    /// stores a change).
    fn shared(dir: &Path, m: &str) -> bool {
        let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
        let r = get_rules(dir, material(m), &mut plain, &mut rules).unwrap();
        Arc::ptr_eq(&plain[&material(m)], &r)
    }

    #[test]
    fn an_unchanged_companion_is_shared_and_covered_by_the_plain_check() {
        let (dir, mut plain) = krka();
        let mut rules = TableCache::new();
        for m in ["KRvK", "KRvKA"] {
            let checked = verify_rules_after_plain(dir.path(), material(m), &mut plain, &mut rules).unwrap();
            assert_eq!(checked, RulesChecked { changed: 0, same_as_plain: true }, "{m}");
            // One decoded copy for both caches.
            assert!(Arc::ptr_eq(&plain[&material(m)], &rules[&material(m)]), "{m}");
            // The full check agrees.
            assert_eq!(verify_rules(dir.path(), material(m), &mut plain, &mut rules).unwrap(), 0, "{m}");
        }
    }

    #[test]
    fn the_lean_path_still_catches_a_wrong_companion() {
        let (dir, mut plain) = krka();
        assert!(shared(dir.path(), "KRvKA"));
        // A drawn entry stored as decided in 9 plies: checksums and counts are right, the value
        // is not (a drawn entry has no move into a lost child, and some move into a child not
        // won).
        change_one_draw(dir.path(), "KRvKA", 9);
        assert!(!shared(dir.path(), "KRvKA"));
        let err =
            verify_rules_after_plain(dir.path(), material("KRvKA"), &mut plain, &mut TableCache::new()).unwrap_err();
        match &err {
            TbError::Mismatch { material, derived, .. } => {
                assert_eq!(material, "KRvKA");
                assert!(derived.contains("Asian rules"), "{err}");
            }
            other => panic!("expected a mismatch, got {other}"),
        }
    }

    #[test]
    fn a_changed_capture_target_takes_the_full_check() {
        let (dir, mut plain) = krka();
        // KRvKA's own companion still stores nothing, but a capture leads into KRvK, whose
        // companion now changes an entry: KRvKA's entries are checked under the rules.
        change_one_draw(dir.path(), "KRvK", 9);
        let r = verify_rules_after_plain(dir.path(), material("KRvKA"), &mut plain, &mut TableCache::new());
        assert!(!matches!(r, Ok(RulesChecked { same_as_plain: true, .. })), "{r:?}");
        // And KRvK's own check fails, naming it.
        let err =
            verify_rules_after_plain(dir.path(), material("KRvK"), &mut plain, &mut TableCache::new()).unwrap_err();
        assert!(err.to_string().starts_with("KRvK:"), "{err}");
    }
}
