//! Which tables to generate: the families below, the general filters and named materials,
//! resolved into one list closed under dependencies (the tables captures lead to) and in
//! dependency order. `qiku-tb plan` and `qiku-tb generate` both go through [`Selection::resolve`],
//! and the generation driver orders its work with [`closure`], so the two always agree.
//!
//! Pieces are counted as *attackers* (rook, horse, cannon, pawn: they can mate) and *defenders*
//! (advisor, elephant: they never cross the river). The families:
//!
//! - **A**: one attacking piece on the board, any defenders on both sides (324 materials).
//! - **B**: two attacking pieces on one side with no defender beside them, against any defenders
//!   (90 materials; their captures lead to 36 materials of family A as well).
//! - **C**: two attacking pieces, on one side or one each, and at most two defenders in total
//!   (276 materials; their captures lead to 60 more: family A with at most two defenders).
//!
//! Filters (`--max-attackers N --max-defenders D --max-pieces P`) bound totals over both sides.
//! A capture only lowers these totals, so a selection filtered this way stays closed under
//! dependencies: the closure adds nothing the filters would exclude.

use super::material::Material;
use crate::core::{Color, Role};
use std::fmt;
use std::str::FromStr;

/// A family of materials. Pieces are counted as *attackers* (rook, horse, cannon, pawn: they can
/// mate) and *defenders* (advisor, elephant: they never cross the river).
///
/// - **A**: one attacking piece on the board, any defenders on both sides (324 materials).
/// - **B**: two attacking pieces on one side with no defender beside them, against any defenders
///   (90 materials; their captures lead to 36 materials of family A as well).
/// - **C**: two attacking pieces, on one side or one each, and at most two defenders in total
///   (276 materials; their captures lead to 60 more: family A with at most two defenders).
///
/// ```
/// use qiku::tablebase::generate::Family;
/// use qiku::tablebase::Material;
///
/// let family: Family = "b".parse()?;
/// let krnvkab: Material = "KRNvKAB".parse()?;
/// assert!(family.contains(&krnvkab) && !Family::A.contains(&krnvkab));
/// assert_eq!(Family::A.members().len(), 324);
/// assert!(Family::A.members().iter().all(|m| m.attacker_count() == 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// One attacking piece on the board, any defenders on both sides.
    A,
    /// Two attacking pieces on one side and no defender beside them, against defenders only.
    B,
    /// Two attacking pieces (one side or one each), at most two defenders in total.
    C,
}

impl Family {
    /// All three, in order.
    pub const ALL: [Family; 3] = [Family::A, Family::B, Family::C];

    /// Is `m` (either color order) a member of this family? (example at [`Family`])
    pub fn contains(self, m: &Material) -> bool {
        match self {
            Family::A => m.attacker_count() == 1,
            Family::B => {
                Color::ALL.into_iter().any(|c| m.attackers(c) == 2 && m.defenders(c) == 0 && m.attackers(!c) == 0)
            }
            Family::C => m.attacker_count() == 2 && m.defender_count() <= 2,
        }
    }

    /// The family's canonical materials in dependency order (no dependencies added). (example at [`Family`])
    pub fn members(self) -> Vec<Material> {
        let mut out = enumerate(&Filters { max_attackers: Some(2), max_defenders: None, max_pieces: None });
        out.retain(|m| self.contains(m));
        out
    }

    /// The letter used on the command line.
    ///
    /// ```
    /// use qiku::tablebase::generate::Family;
    ///
    /// assert_eq!(Family::ALL.map(Family::letter), ['a', 'b', 'c']);
    /// assert_eq!(Family::C.letter().to_string().parse::<Family>()?, Family::C);
    /// # Ok::<(), qiku::tablebase::generate::SelectError>(())
    /// ```
    pub fn letter(self) -> char {
        match self {
            Family::A => 'a',
            Family::B => 'b',
            Family::C => 'c',
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter().to_ascii_uppercase())
    }
}

impl FromStr for Family {
    type Err = SelectError;

    /// `a`, `b` or `c` (either case).
    fn from_str(s: &str) -> Result<Family, SelectError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a" => Ok(Family::A),
            "b" => Ok(Family::B),
            "c" => Ok(Family::C),
            _ => Err(SelectError::UnknownFamily(s.to_string())),
        }
    }
}

/// One bound of [`Filters`]: what it counts (`pieces`), its value, and how to count it.
type Bound = (&'static str, Option<usize>, fn(&Material) -> usize);

/// Upper bounds on totals over both sides; `None` is no bound.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filters {
    /// Most attacking pieces (rook, horse, cannon, pawn).
    pub(crate) max_attackers: Option<usize>,
    /// Most defending pieces (advisor, elephant).
    pub(crate) max_defenders: Option<usize>,
    /// Most pieces, kings included.
    pub(crate) max_pieces: Option<usize>,
}

impl Filters {
    /// Does `m` pass every bound?
    pub fn admits(&self, m: &Material) -> bool {
        self.bounds().iter().all(|&(_, bound, count)| bound.is_none_or(|n| count(m) <= n))
    }

    /// Each bound with its option's name and what it counts.
    fn bounds(&self) -> [Bound; 3] {
        [
            ("attacking pieces", self.max_attackers, Material::attacker_count),
            ("defending pieces", self.max_defenders, Material::defender_count),
            ("pieces", self.max_pieces, Material::piece_count),
        ]
    }

    /// The option of a bound named as in [`Filters::bounds`].
    fn option(what: &str) -> &'static str {
        match what {
            "attacking pieces" => "--max-attackers",
            "defending pieces" => "--max-defenders",
            _ => "--max-pieces",
        }
    }

    /// Why `m` is left out: each bound it exceeds, as `4 pieces, more than --max-pieces 3`.
    fn why_not(&self, m: &Material) -> String {
        let over: Vec<String> = self
            .bounds()
            .iter()
            .filter_map(|&(what, bound, count)| {
                let n = bound?;
                (count(m) > n).then(|| format!("{} {what}, more than {} {n}", count(m), Filters::option(what)))
            })
            .collect();
        format!("{m} has {}", over.join(", and "))
    }

    /// The bounds given, as options: `--max-attackers 1 --max-pieces 3`.
    fn options(&self) -> String {
        let given: Vec<String> = self
            .bounds()
            .iter()
            .filter_map(|&(what, bound, _)| bound.map(|n| format!("{} {n}", Filters::option(what))))
            .collect();
        given.join(" ")
    }
}

/// What to generate or plan: named materials and/or a family, narrowed by bounds on the numbers
/// of attacking pieces, defending pieces and pieces over both sides. Built with builder-style
/// setters from [`Selection::new`] (nothing chosen: every table of up to
/// [`DEFAULT_MAX_PIECES`] pieces); [`Selection::resolve`] turns it into a work list.
///
/// ```
/// use qiku::tablebase::generate::{Family, Selection};
/// use qiku::tablebase::Material;
///
/// // Nothing chosen: every table of up to 5 pieces.
/// assert_eq!(Selection::new().resolve()?.plan.len(), 209);
/// // A named table brings the tables its captures lead to, smaller first.
/// let krka = Selection::new().materials(["KRvKA".parse::<Material>()?]).resolve()?;
/// let names: Vec<String> = krka.plan.iter().map(|m| m.to_string()).collect();
/// assert_eq!(names, ["KRvK", "KRvKA"]);
/// // A family, bounded: one attacking piece and at most one defender, 4 pieces at most.
/// let a = Selection::new().family(Family::A).max_defenders(1).max_pieces(4).resolve()?;
/// assert!(a.targets.iter().all(|m| Family::A.contains(m) && m.piece_count() <= 4));
/// assert_eq!(a.targets.len(), 4 + 4 * 2 * 2); // KRvK... and each with A or B on either side
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Materials named on the command line (any color order).
    pub(crate) materials: Vec<Material>,
    /// A family, added to the named materials.
    pub(crate) family: Option<Family>,
    /// Bounds applied to the named materials and the family's members alike.
    pub(crate) filters: Filters,
}

/// The piece cap when neither materials, a family, nor an attacker or defender bound is given:
/// `qiku-tb generate` alone makes every table up to 5 pieces, as it always has.
pub const DEFAULT_MAX_PIECES: usize = 5;

/// A selection resolved into work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The selected materials (canonical, dependency order), before dependencies are added.
    pub targets: Vec<Material>,
    /// `targets` and every table their captures lead to, in dependency order: the work list.
    pub plan: Vec<Material>,
    /// Named materials without an attacking piece: dead draws, no table.
    pub dead: Vec<Material>,
    /// Named materials that the filters exclude.
    pub excluded: Vec<Material>,
}

/// Why a selection cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectError {
    /// A family other than a, b, c.
    UnknownFamily(String),
    /// Nothing is left to generate. `reasons` says why of each named material and of the family
    /// (`KRvKN has 4 pieces, more than --max-pieces 3`), so that the error names what the bounds
    /// left out.
    Empty {
        /// Why the named materials and the family gave no table, each a clause.
        reasons: Vec<String>,
    },
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::UnknownFamily(s) => write!(f, "unknown family {s:?} (expected a, b or c)"),
            SelectError::Empty { reasons } if reasons.is_empty() => write!(f, "the selection contains no table"),
            SelectError::Empty { reasons } => write!(f, "the selection contains no table: {}", reasons.join("; ")),
        }
    }
}

impl std::error::Error for SelectError {}

impl Selection {
    /// Nothing chosen yet (resolves to every table of up to [`DEFAULT_MAX_PIECES`] pieces). (example at [`Selection`])
    pub fn new() -> Selection {
        Selection::default()
    }

    /// Adds named materials (any color order). (example at [`Selection`])
    pub fn materials(mut self, materials: impl IntoIterator<Item = Material>) -> Selection {
        self.materials.extend(materials);
        self
    }

    /// Adds a family's members. (example at [`Selection`])
    pub fn family(mut self, family: Family) -> Selection {
        self.family = Some(family);
        self
    }

    /// At most this many attacking pieces (rook, horse, cannon, pawn), both sides together.
    ///
    /// ```
    /// use qiku::tablebase::generate::Selection;
    ///
    /// let lone = Selection::new().max_attackers(1).max_defenders(0).resolve()?;
    /// let names: Vec<String> = lone.targets.iter().map(|m| m.to_string()).collect();
    /// assert_eq!(names, ["KPvK", "KCvK", "KNvK", "KRvK"]);
    /// # Ok::<(), qiku::tablebase::generate::SelectError>(())
    /// ```
    pub fn max_attackers(mut self, n: usize) -> Selection {
        self.filters.max_attackers = Some(n);
        self
    }

    /// At most this many defending pieces (advisor, elephant), both sides together. (example at [`Selection`])
    pub fn max_defenders(mut self, n: usize) -> Selection {
        self.filters.max_defenders = Some(n);
        self
    }

    /// At most this many pieces, kings included. (example at [`Selection`])
    pub fn max_pieces(mut self, n: usize) -> Selection {
        self.filters.max_pieces = Some(n);
        self
    }

    /// Does material `m` (canonical) pass the selection's bounds?
    ///
    /// ```
    /// use qiku::tablebase::generate::Selection;
    ///
    /// let selection = Selection::new().max_pieces(4).max_defenders(1);
    /// assert!(selection.admits(&"KRvKA".parse()?));
    /// assert!(!selection.admits(&"KRvKAA".parse()?)); // two defenders
    /// assert!(!selection.admits(&"KRNvKA".parse()?)); // five pieces
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn admits(&self, m: &Material) -> bool {
        self.filters.admits(m)
    }

    /// Every table the selection means, closed under dependencies, in dependency order.
    ///
    /// With neither materials nor a family, the selection starts from every material the filters
    /// admit; `--max-pieces` then defaults to [`DEFAULT_MAX_PIECES`] unless an attacker or
    /// defender bound is given (either bound alone already makes the set finite and small
    /// enough to list).
    ///
    /// ```
    /// use qiku::tablebase::generate::Selection;
    /// use qiku::tablebase::Material;
    ///
    /// let krk = Selection::new().materials(["KRvK".parse::<Material>()?]).resolve()?;
    /// assert_eq!(krk.plan, krk.targets); // KRvK captures into no table
    /// // Nothing to generate: the error says why.
    /// let err = Selection::new().materials(["KAvKB".parse::<Material>()?]).resolve().unwrap_err();
    /// assert!(err.to_string().contains("KAvKB has no attacking piece"), "{err}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve(&self) -> Result<Resolved, SelectError> {
        let mut targets = Vec::new();
        let mut dead = Vec::new();
        let mut excluded = Vec::new();
        for m in &self.materials {
            let c = m.canonical().0;
            if !c.has_attackers() {
                dead.push(c);
            } else if !self.filters.admits(&c) {
                excluded.push(c);
            } else {
                targets.push(c);
            }
        }
        if let Some(family) = self.family {
            targets.extend(family.members().into_iter().filter(|m| self.filters.admits(m)));
        } else if self.materials.is_empty() {
            let mut filters = self.filters;
            if filters.max_pieces.is_none() && filters.max_attackers.is_none() && filters.max_defenders.is_none() {
                filters.max_pieces = Some(DEFAULT_MAX_PIECES);
            }
            targets = enumerate(&filters);
        }
        sort_dependency_order(&mut targets);
        targets.dedup();
        if targets.is_empty() {
            return Err(SelectError::Empty { reasons: self.why_empty(&dead, &excluded) });
        }
        let plan = closure(&targets);
        Ok(Resolved { targets, plan, dead, excluded })
    }
}

impl Selection {
    /// Why a selection resolved to no table: its dead draws, each named material the bounds
    /// exclude with the bounds it exceeds, and the family none of whose members is within them.
    fn why_empty(&self, dead: &[Material], excluded: &[Material]) -> Vec<String> {
        let mut reasons = Vec::new();
        if !dead.is_empty() {
            let names: Vec<String> = dead.iter().map(|m| m.to_string()).collect();
            reasons.push(format!(
                "{} {} no attacking piece (every position is a draw, there is no table)",
                names.join(", "),
                if names.len() == 1 { "has" } else { "have" }
            ));
        }
        reasons.extend(excluded.iter().map(|m| self.filters.why_not(m)));
        match self.family {
            Some(family) => {
                reasons.push(format!("no material of family {family} is within {}", self.filters.options()))
            }
            None if self.materials.is_empty() => {
                reasons.push(format!("no material is within {}", self.filters.options()))
            }
            None => {}
        }
        reasons
    }
}

/// Dependency order: fewer attacking pieces first; among equal counts, tables with the same
/// attackers together (by their counts, rook horse cannon pawn, of either side); within those,
/// fewer pieces first, then by name. A capture of an attacker lowers the first key, a capture of
/// a defender keeps the attackers and lowers the piece count, so every table's capture targets
/// come before it. Grouping by attackers keeps memory down: the driver holds a decoded table
/// until its last user, and a group's defender tables are used only within the group (family A:
/// 2.2 GiB estimated peak instead of 5.1 GiB with plain piece-count order).
///
/// ```
/// use qiku::tablebase::generate::sort_dependency_order;
/// use qiku::tablebase::Material;
///
/// let given = ["KRNvK", "KRvKA", "KRvK", "KNvK"];
/// let mut list = given.iter().map(|m| m.parse()).collect::<Result<Vec<Material>, _>>()?;
/// sort_dependency_order(&mut list);
/// let names: Vec<String> = list.iter().map(|m| m.to_string()).collect();
/// assert_eq!(names, ["KNvK", "KRvK", "KRvKA", "KRNvK"]); // each after the tables it captures into
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn sort_dependency_order(list: &mut [Material]) {
    list.sort_by_cached_key(|m| {
        // Unordered over the two sides: capturing a defender can swap the canonical colors.
        let [a, b] = Color::ALL.map(|c| [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn].map(|r| m.count(c, r)));
        (m.attacker_count(), a.max(b), a.min(b), m.piece_count(), m.to_string())
    });
}

/// `materials` (any color order) and every table their captures lead to, recursively: canonical,
/// without dead draws or duplicates, in dependency order.
pub fn closure(materials: &[Material]) -> Vec<Material> {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<Material> = materials.iter().map(|m| m.canonical().0).collect();
    let mut out = Vec::new();
    while let Some(m) = stack.pop() {
        if !m.has_attackers() || !seen.insert(m) {
            continue;
        }
        out.push(m);
        stack.extend(m.captures().into_iter().map(|(_, _, sub)| sub.canonical().0));
    }
    sort_dependency_order(&mut out);
    out
}

/// Every valid canonical material with an attacking piece that the filters admit, of at most
/// [`MAX_PIECES`](super::index::MAX_PIECES) pieces (no table holds more), in dependency order.
/// Enumerated side by side: each side's multisets are bounded by the filters first, so the pairs
/// tried stay few.
pub(crate) fn enumerate(filters: &Filters) -> Vec<Material> {
    let most = super::index::MAX_PIECES;
    let budget = filters.max_pieces.map_or(most, |p| p.min(most)).saturating_sub(2);
    let sides = side_multisets(filters, budget);
    let mut out = Vec::new();
    for red in &sides {
        for black in &sides {
            let m = Material::from_counts([*red, *black]);
            if m.has_attackers() && m.piece_count() <= most && m.is_canonical() && filters.admits(&m) {
                out.push(m);
            }
        }
    }
    sort_dependency_order(&mut out);
    out.dedup();
    out
}

/// One side's piece multisets with at most `budget` non-king pieces within the filters' bounds on
/// attackers and defenders (at most 1,458 per side before filtering, so filtering afterwards is
/// cheap).
fn side_multisets(filters: &Filters, budget: usize) -> Vec<[u8; 7]> {
    let mut all = Vec::new();
    super::material::side_multisets(budget, &mut [0u8; 7], 1, &mut all);
    all.retain(|side| {
        let count = |attack: bool| -> usize {
            Role::ALL
                .iter()
                .filter(|r| **r != Role::King && r.is_attacker() == attack)
                .map(|r| side[r.index()] as usize)
                .sum()
        };
        filters.max_attackers.is_none_or(|n| count(true) <= n)
            && filters.max_defenders.is_none_or(|n| count(false) <= n)
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tablebase::index::entries_of;

    fn entries(list: &[Material]) -> u64 {
        list.iter().map(entries_of).sum()
    }

    fn names(list: &[Material]) -> Vec<String> {
        list.iter().map(|m| m.to_string()).collect()
    }

    /// The planned figures count the family's own materials, not the dependencies its captures add.
    #[test]
    fn families_have_their_planned_counts() {
        let a = Family::A.members();
        assert_eq!(a.len(), 324);
        // 6,297,408,000 when kings, advisors and elephants were placed apart.
        assert_eq!(entries(&a), 3_624_244_650);
        assert_eq!(closure(&a), a, "family A is closed under captures");
        assert_eq!(a.iter().map(|m| m.piece_count()).max(), Some(11));

        let b = Family::B.members();
        assert_eq!(b.len(), 90);
        assert_eq!(entries(&b), 1_590_240_600);
        let b_closed = closure(&b);
        assert_eq!(b_closed.len(), 126);
        assert!(b_closed.iter().all(|m| b.contains(m) || Family::A.contains(m)));

        let c = Family::C.members();
        assert_eq!(c.len(), 276);
        assert_eq!(entries(&c), 2_392_728_700);
        let c_closed = closure(&c);
        assert_eq!(c_closed.len(), 276 + 60, "family A with at most two defenders");
        assert!(c_closed.iter().all(|m| c.contains(m) || Family::A.contains(m)));
    }

    fn five_pieces_fit_u32(list: &[Material]) -> bool {
        list.iter().filter(|m| m.piece_count() <= 5).all(|m| entries_of(m) < u32::MAX as u64)
    }

    #[test]
    fn up_to_six_pieces() {
        let six = enumerate(&Filters { max_pieces: Some(6), ..Filters::default() });
        assert_eq!(six.len(), 831);
        assert_eq!(entries(&six), 373_771_372_900);
        assert_eq!(closure(&six), six);
        // The largest: four distinct pieces of 90 squares each besides the kings, like KRNCvKR.
        assert_eq!(six.iter().map(entries_of).max(), Some(2 * 45 * 90u64.pow(4)));
        assert_eq!(entries_of(&"KRNCvKR".parse().unwrap()), 5_904_900_000);
        assert!(five_pieces_fit_u32(&six));
        // The generator's historical set is the same list (in another dependency order).
        let mut five = enumerate(&Filters { max_pieces: Some(5), ..Filters::default() });
        five.sort_by_key(|m| (m.piece_count(), m.to_string()));
        assert_eq!(five, Material::all_up_to(5));
    }

    #[test]
    fn selections_are_closed_ordered_and_filtered() {
        let sel = |materials: &[&str], family, filters| Selection {
            materials: materials.iter().map(|s| s.parse().unwrap()).collect(),
            family,
            filters,
        };
        // Nothing given: every table up to 5 pieces.
        let all5 = sel(&[], None, Filters::default()).resolve().unwrap();
        assert_eq!(all5.plan.len(), 209);
        // Named materials, any color order: the closure, smaller first.
        let r = sel(&["KAvKR", "KvK"], None, Filters::default()).resolve().unwrap();
        assert_eq!(names(&r.targets), ["KRvKA"]);
        assert_eq!(names(&r.plan), ["KRvK", "KRvKA"]);
        assert_eq!(names(&r.dead), ["KvK"]);
        // A filter applies to named materials too.
        let f = Filters { max_pieces: Some(4), ..Filters::default() };
        let r = sel(&["KRvKA", "KRNvKR"], None, f).resolve().unwrap();
        assert_eq!(names(&r.excluded), ["KRNvKR"]);
        assert_eq!(names(&r.plan), ["KRvK", "KRvKA"]);
        // Filters combine with a family: family A with at most two defenders and 5 pieces.
        let f = Filters { max_defenders: Some(2), max_pieces: Some(5), ..Filters::default() };
        let r = sel(&[], Some(Family::A), f).resolve().unwrap();
        assert!(r.plan.iter().all(|m| m.attacker_count() == 1 && m.defender_count() <= 2 && m.piece_count() <= 5));
        assert_eq!(r.plan, r.targets, "filters by maxima keep selections closed");
        // 4 attackers x (1 + 4 + 10 placements of at most two defenders over four defender kinds).
        assert_eq!(r.plan.len(), 4 * (1 + 4 + 10));
        // Filters alone: one attacker and no defender, of any piece count.
        let f = Filters { max_attackers: Some(1), max_defenders: Some(0), ..Filters::default() };
        assert_eq!(names(&sel(&[], None, f).resolve().unwrap().plan), ["KPvK", "KCvK", "KNvK", "KRvK"]);
        // Every plan is in dependency order.
        let six = Filters { max_pieces: Some(6), ..Filters::default() };
        let mut all = vec![all5, sel(&[], None, six).resolve().unwrap()];
        all.extend(Family::ALL.map(|f| sel(&[], Some(f), Filters::default()).resolve().unwrap()));
        for r in all {
            for (i, m) in r.plan.iter().enumerate() {
                for (_, _, sub) in m.captures() {
                    let sub = sub.canonical().0;
                    if sub.has_attackers() {
                        assert!(r.plan[..i].contains(&sub), "{sub} must come before {m}");
                    }
                }
            }
        }
        let f = Filters { max_pieces: Some(2), ..Filters::default() };
        let e = sel(&[], None, f).resolve().unwrap_err();
        assert_eq!(e.to_string(), "the selection contains no table: no material is within --max-pieces 2");
        // The error names the named materials the bounds leave out, and why.
        let f = Filters { max_attackers: Some(1), max_pieces: Some(3), ..Filters::default() };
        let e = sel(&["KRvKN", "KRRvKA", "KvKA"], None, f).resolve().unwrap_err().to_string();
        assert_eq!(
            e,
            "the selection contains no table: KAvK has no attacking piece (every position is a draw, there is no \
             table); KRvKN has 2 attacking pieces, more than --max-attackers 1, and 4 pieces, more than \
             --max-pieces 3; KRRvKA has 2 attacking pieces, more than --max-attackers 1, and 5 pieces, more than \
             --max-pieces 3"
        );
        assert!("d".parse::<Family>().is_err());
    }

    #[test]
    fn no_selection_goes_past_the_largest_table() {
        let twelve = enumerate(&Filters { max_pieces: Some(12), ..Filters::default() });
        assert_eq!(twelve.len(), 109_979);
        assert!(twelve.iter().all(|m| m.piece_count() <= 12));
        assert!(twelve.iter().any(|m| m.piece_count() == 12));
        // Bounds on attackers or defenders alone, or a larger piece bound, stop at 12 pieces too.
        for f in [
            Filters { max_attackers: Some(99), ..Filters::default() },
            Filters { max_defenders: Some(99), ..Filters::default() },
            Filters { max_pieces: Some(100), ..Filters::default() },
        ] {
            assert_eq!(enumerate(&f), twelve);
        }
    }
}
