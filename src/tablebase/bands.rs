//! The bands of a `.qtr` companion's distances and the winning line they define: what a reader
//! needs to follow a win decided by the Asian rules (the rule-aware pass that makes the bands is
//! [`super::rules`], with the argument that the line wins, in the generating build).
//!
//! A companion's rule-aware distances fall into bands, each decided one way ([`BandKind`]); the
//! bands are stored after the block index (`docs/FORMAT.md`). The winner, at distance `d`, plays
//! the move into the smallest distance below `d` if there is one, otherwise a non-check move into
//! the smallest distance ([`choose`]).

/// How the entries of a band were decided (see the module documentation).
///
/// ```
/// use qiku::tablebase::format::BandKind;
///
/// // Each kind is stored as its code and read back; other codes are no kind.
/// for kind in [BandKind::Forced, BandKind::Perpetual] {
///     assert_eq!(BandKind::from_code(kind.code()), Some(kind));
/// }
/// assert_eq!(BandKind::from_code(3), None);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum BandKind {
    /// Forced: the distance shrinks on every move of the winning line.
    Forced,
    /// Perpetual check: the defender's non-check moves leave the band downwards; the winner may
    /// reset (a non-check move within the band or below).
    Perpetual,
}

impl BandKind {
    /// The code stored in files.
    ///
    /// ```
    /// use qiku::tablebase::format::BandKind;
    ///
    /// assert_eq!([BandKind::Forced.code(), BandKind::Perpetual.code()], [1, 2]);
    /// ```
    pub fn code(self) -> u32 {
        match self {
            BandKind::Forced => 1,
            BandKind::Perpetual => 2,
        }
    }

    /// The kind of a stored code.
    ///
    /// ```
    /// use qiku::tablebase::format::BandKind;
    ///
    /// assert_eq!(BandKind::from_code(BandKind::Perpetual.code()), Some(BandKind::Perpetual));
    /// assert_eq!(BandKind::from_code(0), None); // not a kind: a damaged file
    /// ```
    pub fn from_code(code: u32) -> Option<BandKind> {
        match code {
            1 => Some(BandKind::Forced),
            2 => Some(BandKind::Perpetual),
            _ => None,
        }
    }
}

/// A range of rule-aware distances, from `start` to the next band's start.
///
/// The bands are read from a companion's header ([`Header::bands`](crate::tablebase::format::Header::bands)):
///
/// ```
/// # #[cfg(feature = "generate")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use qiku::tablebase::format::{TableFile, METRIC_ASIAN};
/// use qiku::tablebase::generate::{generate_set, GenerateOptions};
///
/// let dir = tempfile::tempdir()?;
/// generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
/// let rules = TableFile::open(&dir.path().join("KRvK.qtr"))?; // the Asian rules' companion
/// assert_eq!(rules.header().metric, METRIC_ASIAN);
/// assert!(rules.header().bands.is_empty()); // no KRvK value needs the rules: no band
/// # Ok(()) }
/// # #[cfg(not(feature = "generate"))] fn main() {}
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Band {
    /// The smallest distance of the band (even).
    pub start: u16,
    /// How its entries were decided.
    pub kind: BandKind,
}

/// The band of distance `d`, `None` below the first band (plain values and smaller tables).
#[cfg(feature = "generate")]
pub fn band_of(bands: &[Band], d: u16) -> Option<(usize, Band)> {
    let i = bands.partition_point(|b| b.start <= d);
    i.checked_sub(1).map(|i| (i, bands[i]))
}

/// Which of a winner's moves the table's line takes (see the module documentation): `moves`
/// are `(child distance, gives check)` of the moves into entries the opponent loses; `own` is the
/// winner's distance. Returns the index into `moves`.
pub fn choose(own: u16, moves: &[(u16, bool)]) -> Option<usize> {
    let below = (0..moves.len()).filter(|&i| moves[i].0 < own).min_by_key(|&i| moves[i].0);
    below.or_else(|| (0..moves.len()).filter(|&i| !moves[i].1).min_by_key(|&i| moves[i].0))
}
