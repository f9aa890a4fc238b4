//! [`Material`]: the piece counts of an endgame (`KRNvKR`), its canonical color assignment, the
//! list of all tables up to a piece count, and which smaller tables a table's captures lead to.
//!
//! Names list red's pieces, `v`, then black's, each side as `K` followed by its other pieces in the
//! fixed order `R N C P A B` (rook, horse, cannon, pawn, advisor, elephant). A material and its
//! color swap share one table, stored under the *canonical* form in which the "first" side is red
//! (see [`Material::canonical`] for the ordering).

use crate::core::zobrist;
use crate::core::{Color, Position, Role};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// The order in which roles are written in material names (after the king).
pub const NAME_ORDER: [Role; 6] = [Role::Rook, Role::Horse, Role::Cannon, Role::Pawn, Role::Advisor, Role::Elephant];

/// Piece counts per side (`counts[color][role]`); kings always 1. Written as red's pieces, `v`,
/// black's (`KRNvKR`); one table serves a material and its color swap, stored under the
/// canonical order.
///
/// ```
/// use qiku::tablebase::Material;
/// use qiku::{Color, Position, Role};
///
/// let m: Material = "KAvKR".parse()?;
/// assert_eq!((m.count(Color::Black, Role::Rook), m.piece_count()), (1, 4)); // kings included
/// // The table of this material is KRvKA's, colors swapped.
/// let (canonical, swapped) = m.canonical();
/// assert_eq!((canonical.to_string(), swapped), ("KRvKA".to_string(), true));
/// // The material of a position.
/// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
/// assert_eq!(Material::from_position(&pos).to_string(), "KRvK");
/// // Names are checked.
/// let err = "KRRRvK".parse::<Material>().unwrap_err();
/// assert!(err.to_string().contains("KRRRvK"), "{err}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [[u8; 7]; 2],
}

/// A material name that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaterialError {
    /// The name given.
    pub name: String,
    /// Why it is not a material.
    pub reason: String,
}

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid material {:?}: {}", self.name, self.reason)
    }
}

impl std::error::Error for MaterialError {}

impl Material {
    /// From piece counts `[color][role]`. Kings are forced to one each.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::{Color, Role};
    ///
    /// let mut counts = [[0u8; 7]; 2];
    /// counts[Color::Red.index()][Role::Rook.index()] = 1;
    /// let krk = Material::from_counts(counts); // the kings are added
    /// assert_eq!(krk.to_string(), "KRvK");
    /// assert_eq!(Material::from_counts(krk.counts()), krk);
    /// ```
    pub fn from_counts(mut counts: [[u8; 7]; 2]) -> Material {
        counts[0][Role::King.index()] = 1;
        counts[1][Role::King.index()] = 1;
        Material { counts }
    }

    /// The material of a position (as it stands: not canonicalised). (example at [`Material`])
    pub fn from_position(pos: &Position) -> Material {
        Material::from_counts(pos.material())
    }

    /// Piece counts by color and role. (example at [`Material::from_counts`])
    pub fn counts(&self) -> [[u8; 7]; 2] {
        self.counts
    }

    /// How many `role`s `color` has. (example at [`Material`])
    pub fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color.index()][role.index()]
    }

    /// Total number of pieces, kings included. (example at [`Material`])
    pub fn piece_count(&self) -> usize {
        self.counts.iter().flatten().map(|&c| c as usize).sum()
    }

    /// Does `color` have a horse, rook, cannon or pawn?
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::Color;
    ///
    /// let m: Material = "KRvKA".parse()?;
    /// assert!(m.side_has_attackers(Color::Red) && !m.side_has_attackers(Color::Black));
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn side_has_attackers(&self, color: Color) -> bool {
        Role::ALL.iter().any(|r| r.is_attacker() && self.count(color, *r) > 0)
    }

    /// Attacking pieces (rooks, horses, cannons, pawns) of `color`.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::Color;
    ///
    /// let m: Material = "KRNvKAB".parse()?;
    /// assert_eq!((m.attackers(Color::Red), m.defenders(Color::Red)), (2, 0));
    /// assert_eq!((m.attackers(Color::Black), m.defenders(Color::Black)), (0, 2));
    /// assert_eq!((m.attacker_count(), m.defender_count()), (2, 2));
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn attackers(&self, color: Color) -> usize {
        Role::ALL.iter().filter(|r| r.is_attacker()).map(|r| self.count(color, *r) as usize).sum()
    }

    /// Defending pieces (advisors, elephants) of `color`. (example at [`Material::attackers`])
    pub fn defenders(&self, color: Color) -> usize {
        self.count(color, Role::Advisor) as usize + self.count(color, Role::Elephant) as usize
    }

    /// Attacking pieces of both sides. (example at [`Material::attackers`])
    pub fn attacker_count(&self) -> usize {
        self.attackers(Color::Red) + self.attackers(Color::Black)
    }

    /// Defending pieces of both sides. (example at [`Material::attackers`])
    pub fn defender_count(&self) -> usize {
        self.defenders(Color::Red) + self.defenders(Color::Black)
    }

    /// Without an attacking piece on either side nobody can ever be mated: a dead draw, no table.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// assert!("KAvKP".parse::<Material>()?.has_attackers());
    /// assert!(!"KAAvKB".parse::<Material>()?.has_attackers()); // a dead draw
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn has_attackers(&self) -> bool {
        self.side_has_attackers(Color::Red) || self.side_has_attackers(Color::Black)
    }

    /// The same material with colors swapped.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// let m: Material = "KRvKA".parse()?;
    /// assert_eq!(m.swapped().to_string(), "KAvKR");
    /// assert_eq!(m.swapped().swapped(), m);
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn swapped(&self) -> Material {
        Material { counts: [self.counts[1], self.counts[0]] }
    }

    /// The key under which positions find their table: the core's Zobrist material key.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::Position;
    ///
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1")?;
    /// let krk: Material = "KRvK".parse()?;
    /// assert_eq!(krk.key(), pos.material_key());
    /// assert_ne!(krk.key(), krk.swapped().key());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn key(&self) -> u64 {
        zobrist::material_key(&self.counts)
    }

    /// The ordering key of one side: more attackers first, then more pieces, then counts in name
    /// order (R N C P A B) compared lexicographically.
    fn side_key(&self, color: Color) -> (usize, usize, [u8; 6]) {
        let c = &self.counts[color.index()];
        let attackers = Role::ALL.iter().filter(|r| r.is_attacker()).map(|r| c[r.index()] as usize).sum();
        let pieces = c.iter().map(|&n| n as usize).sum();
        (attackers, pieces, NAME_ORDER.map(|r| c[r.index()]))
    }

    /// Is red the first side, that is, is this the form under which the table is stored? The side
    /// with the greater `side_key` is red; equal sides are canonical either way.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// assert!("KRvKA".parse::<Material>()?.is_canonical());
    /// assert!(!"KAvKR".parse::<Material>()?.is_canonical());
    /// assert!("KRvKR".parse::<Material>()?.is_canonical()); // equal sides
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn is_canonical(&self) -> bool {
        self.side_key(Color::Red).cmp(&self.side_key(Color::Black)) != Ordering::Less
    }

    /// The canonical form and whether colors had to be swapped to reach it.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// let krka: Material = "KRvKA".parse()?;
    /// assert_eq!(krka.swapped().canonical(), (krka, true));
    /// assert_eq!(krka.canonical(), (krka, false));
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn canonical(&self) -> (Material, bool) {
        if self.is_canonical() {
            (*self, false)
        } else {
            (self.swapped(), true)
        }
    }

    /// Is the count of every piece within the rules (advisors, elephants, horses, rooks, cannons
    /// at most 2, pawns at most 5)?
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::{Color, Role};
    ///
    /// assert!("KRRvKPPPPP".parse::<Material>()?.is_valid());
    /// let mut counts = [[0u8; 7]; 2];
    /// counts[Color::Red.index()][Role::Rook.index()] = 3; // names refuse this, counts do not
    /// assert!(!Material::from_counts(counts).is_valid());
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn is_valid(&self) -> bool {
        self.counts.iter().all(|c| Role::ALL.iter().all(|r| c[r.index()] as u32 <= r.max_count()))
            && self.counts.iter().all(|c| c[Role::King.index()] == 1)
    }

    /// The materials a capture can lead to: one piece (not a king) of either side fewer.
    /// Returned as they stand (not canonicalised), without duplicates.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    /// use qiku::{Color, Role};
    ///
    /// let m: Material = "KRvKA".parse()?;
    /// let after: Vec<(Color, Role, String)> = m.captures().iter().map(|&(c, r, m)| (c, r, m.to_string())).collect();
    /// assert_eq!(after, [(Color::Red, Role::Rook, "KvKA".into()), (Color::Black, Role::Advisor, "KRvK".into())]);
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn captures(&self) -> Vec<(Color, Role, Material)> {
        let mut out = Vec::new();
        for color in Color::ALL {
            for role in Role::ALL.into_iter().skip(1) {
                if self.count(color, role) > 0 {
                    let mut counts = self.counts;
                    counts[color.index()][role.index()] -= 1;
                    out.push((color, role, Material { counts }));
                }
            }
        }
        out
    }

    /// Every canonical material with attacking pieces and at most `max_pieces` pieces (kings
    /// included), smaller piece counts first, then by name: an order in which every table's
    /// capture targets come before it.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// let three: Vec<String> = Material::all_up_to(3).iter().map(|m| m.to_string()).collect();
    /// assert_eq!(three, ["KCvK", "KNvK", "KPvK", "KRvK"]);
    /// assert_eq!(Material::all_up_to(5).len(), 209); // the tables `qiku-tb generate` makes alone
    /// ```
    pub fn all_up_to(max_pieces: usize) -> Vec<Material> {
        let mut out = Vec::new();
        let mut side = Vec::new();
        side_multisets(max_pieces.saturating_sub(2), &mut [0u8; 7], 1, &mut side);
        for red in &side {
            for black in &side {
                let m = Material::from_counts([*red, *black]);
                if m.piece_count() <= max_pieces && m.has_attackers() && m.is_canonical() {
                    out.push(m);
                }
            }
        }
        out.sort_by_key(|m| (m.piece_count(), m.to_string()));
        out.dedup();
        out
    }

    /// The canonical materials (with files) that generating `self` needs, recursively, in
    /// dependency order, followed by `self`'s canonical form.
    ///
    /// ```
    /// use qiku::tablebase::Material;
    ///
    /// let m: Material = "KAvKRN".parse()?;
    /// let all: Vec<String> = m.with_dependencies().iter().map(|m| m.to_string()).collect();
    /// assert_eq!(all, ["KNvK", "KRvK", "KNvKA", "KRNvK", "KRvKA", "KRNvKA"]);
    /// # Ok::<(), qiku::tablebase::MaterialError>(())
    /// ```
    pub fn with_dependencies(&self) -> Vec<Material> {
        let mut all = Vec::new();
        let mut stack = vec![self.canonical().0];
        while let Some(m) = stack.pop() {
            if all.contains(&m) || !m.has_attackers() {
                continue;
            }
            all.push(m);
            for (_, _, sub) in m.captures() {
                stack.push(sub.canonical().0);
            }
        }
        all.sort_by_key(|m| (m.piece_count(), m.to_string()));
        all
    }
}

/// All piece multisets of one side with at most `budget` non-king pieces, roles from `from` on.
pub(super) fn side_multisets(budget: usize, cur: &mut [u8; 7], from: usize, out: &mut Vec<[u8; 7]>) {
    if from == 7 {
        let mut c = *cur;
        c[Role::King.index()] = 1;
        out.push(c);
        return;
    }
    let role = Role::ALL[from];
    for n in 0..=(role.max_count() as usize).min(budget) {
        cur[from] = n as u8;
        side_multisets(budget - n, cur, from + 1, out);
    }
    cur[from] = 0;
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, color) in Color::ALL.into_iter().enumerate() {
            if i == 1 {
                f.write_str("v")?;
            }
            f.write_str("K")?;
            for role in NAME_ORDER {
                for _ in 0..self.count(color, role) {
                    write!(f, "{}", role.upper_char())?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Material({self})")
    }
}

impl FromStr for Material {
    type Err = MaterialError;

    /// Reads `KRNvKR` (case-insensitive letters `K A B N R C P`, with the aliases `E` and `H`).
    /// Pieces may be listed in any order; each side must start with its king.
    fn from_str(s: &str) -> Result<Material, MaterialError> {
        let err = |reason: &str| MaterialError { name: s.to_string(), reason: reason.to_string() };
        let sides: Vec<&str> = s.trim().split(['v', 'V']).collect();
        if sides.len() != 2 {
            return Err(err("expected two sides separated by 'v', as in KRNvKR"));
        }
        let mut counts = [[0u8; 7]; 2];
        for (c, side) in sides.iter().enumerate() {
            let mut chars = side.chars();
            if !matches!(chars.next(), Some('K' | 'k')) {
                return Err(err("each side must start with its king K"));
            }
            counts[c][Role::King.index()] = 1;
            for ch in chars {
                let role = Role::from_char(ch).ok_or_else(|| err(&format!("unknown piece letter {ch:?}")))?;
                if role == Role::King {
                    return Err(err("a side has one king"));
                }
                counts[c][role.index()] += 1;
                if counts[c][role.index()] as u32 > role.max_count() {
                    return Err(err(&format!("more than {} {}s on one side", role.max_count(), role.name())));
                }
            }
        }
        Ok(Material { counts })
    }
}

/// Extension of the table files (distance to mate, no repetition rule).
pub const TABLE_EXTENSION: &str = "qtb";
/// Extension of the companion files with the Asian rules' values.
pub const RULES_EXTENSION: &str = "qtr";
/// Extension of the WDL files (win, draw or loss in 2 bits an entry).
pub const WDL_EXTENSION: &str = "qtw";

/// Whether `name` ends as a file of the tables does (`.qtb`, `.qtr` or `.qtw`), whatever its
/// material: the files a table's generation writes into the directory.
///
/// ```
/// use qiku::tablebase::is_table_file_name;
/// assert!(is_table_file_name("KRNvKR.qtb") && is_table_file_name("KRvKN.qtr") && is_table_file_name("KRvK.qtw"));
/// assert!(!is_table_file_name("games.pgn") && !is_table_file_name("qtb"));
/// ```
pub fn is_table_file_name(name: &str) -> bool {
    [TABLE_EXTENSION, RULES_EXTENSION, WDL_EXTENSION]
        .iter()
        .any(|ext| name.strip_suffix(ext).is_some_and(|stem| stem.len() > 1 && stem.ends_with('.')))
}

/// The file name of a material's table: `KRNvKR.qtb`.
///
/// ```
/// use qiku::tablebase::{file_name, rules_file_name, wdl_file_name, Material};
/// let m: Material = "KRNvKR".parse()?;
/// assert_eq!(file_name(m), "KRNvKR.qtb");
/// assert_eq!(rules_file_name(m), "KRNvKR.qtr");
/// assert_eq!(wdl_file_name(m), "KRNvKR.qtw");
/// # Ok::<(), qiku::tablebase::MaterialError>(())
/// ```
pub fn file_name(material: Material) -> String {
    format!("{material}.{TABLE_EXTENSION}")
}

/// The file name of a material's companion with the Asian rules' values: `KRvKN.qtr`.
/// (example at [`file_name`])
pub fn rules_file_name(material: Material) -> String {
    format!("{material}.{RULES_EXTENSION}")
}

/// The file name of a material's WDL file: `KRvKN.qtw`. (example at [`file_name`])
pub fn wdl_file_name(material: Material) -> String {
    format!("{material}.{WDL_EXTENSION}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_canonicalise() {
        let m: Material = "KRNvKR".parse().unwrap();
        assert_eq!(m.to_string(), "KRNvKR");
        assert!(m.is_canonical());
        let m: Material = "kavkr".parse().unwrap();
        assert_eq!(m.canonical(), ("KRvKA".parse().unwrap(), true));
        assert!("KRRRvK".parse::<Material>().is_err());
        assert!("KRK".parse::<Material>().is_err());
        assert!("RvK".parse::<Material>().is_err());
    }

    #[test]
    fn material_lists_are_canonical_and_ordered() {
        let three = Material::all_up_to(3);
        let names: Vec<String> = three.iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KCvK", "KNvK", "KPvK", "KRvK"]);
        let all = Material::all_up_to(5);
        for m in &all {
            for dep in m.with_dependencies() {
                let pos = all.iter().position(|x| *x == dep).unwrap();
                assert!(pos <= all.iter().position(|x| x == m).unwrap());
            }
        }
        // Tables in which one side has no attacking piece.
        let one_sided = all.iter().filter(|m| !m.side_has_attackers(Color::Black)).count();
        // 4 + 26 + 97 by piece count: see docs/TABLEBASES.md on the 110 quoted elsewhere.
        assert_eq!(one_sided, 127);
    }
}
