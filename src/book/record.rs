//! What a book stores about one move in one position, and how positions and moves are put in the
//! canonical form under which left-right mirror images share one entry.
//!
//! A position and its left-right mirror image are the same position for opening purposes (the
//! mirror of a good move is an equally good move there), so the book keys every position by
//! `min(key, mirror_key)` and stores the move as seen from that side:
//! - `mirror_key < key`: the position is stored as its mirror image, so the move is mirrored;
//! - `mirror_key > key`: stored as is;
//! - `mirror_key == key`: the position is symmetric (the start position, for one). There a move
//!   and its mirror image (`h2e2` and `b2e2`) lead to mirror-image positions and are the *same*
//!   choice, so they share one entry too: the move is stored as the one of the pair played on
//!   red's right-hand side ([`symmetric_representative`]: `h2e2` for `b2e2`, `g3g4` for `c3c4`),
//!   and a probe reports only that representative, with the counts of both. A move that is its
//!   own mirror (`e3e4`) is unaffected.

use crate::core::{Color, Move, Position};
use crate::pgn::GameResult;

/// How one game ended, from the point of view of the side to move in a position.
///
/// ```
/// use qiku::book::MoverResult;
/// use qiku::pgn::GameResult;
/// use qiku::Color;
///
/// assert_eq!(MoverResult::for_side(Some(GameResult::RedWins), Color::Red), MoverResult::Win);
/// assert_eq!(MoverResult::for_side(Some(GameResult::RedWins), Color::Black), MoverResult::Loss);
/// assert_eq!(MoverResult::for_side(Some(GameResult::Draw), Color::Black), MoverResult::Draw);
/// assert_eq!(MoverResult::for_side(None, Color::Red), MoverResult::Unknown);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoverResult {
    /// The mover won.
    Win,
    /// The game was drawn.
    Draw,
    /// The mover lost.
    Loss,
    /// The game has no result (`*` or none given): it counts toward how often a move was played
    /// but not toward its score.
    Unknown,
}

impl MoverResult {
    /// The outcome for `side` of a game whose result is `result` (`None`: unknown).
    ///
    /// ```
    /// use qiku::book::MoverResult;
    /// use qiku::pgn::GameResult;
    /// use qiku::Color;
    ///
    /// // Black won: a win for the moves black played, a loss for red's.
    /// assert_eq!(MoverResult::for_side(Some(GameResult::BlackWins), Color::Black), MoverResult::Win);
    /// assert_eq!(MoverResult::for_side(Some(GameResult::BlackWins), Color::Red), MoverResult::Loss);
    /// assert_eq!(MoverResult::for_side(GameResult::from_tag("*")?, Color::Black), MoverResult::Unknown);
    /// # Ok::<(), qiku::pgn::BadResultTag>(())
    /// ```
    pub fn for_side(result: Option<GameResult>, side: Color) -> MoverResult {
        match (result, side) {
            (None, _) => MoverResult::Unknown,
            (Some(GameResult::Draw), _) => MoverResult::Draw,
            (Some(GameResult::RedWins), Color::Red) | (Some(GameResult::BlackWins), Color::Black) => MoverResult::Win,
            (Some(GameResult::RedWins), Color::Black) | (Some(GameResult::BlackWins), Color::Red) => MoverResult::Loss,
        }
    }

    /// A small code used to pack outcomes into sort keys (`0..=3`).
    pub(crate) const fn code(self) -> u8 {
        match self {
            MoverResult::Win => 0,
            MoverResult::Draw => 1,
            MoverResult::Loss => 2,
            MoverResult::Unknown => 3,
        }
    }
}

/// How often a move was played in a position, by outcome for the side that played it.
///
/// Each counter saturates at `u32::MAX` instead of wrapping (a book would need four billion games
/// through one position to get there).
///
/// ```
/// use qiku::book::{Counts, MinScore, MoverResult};
///
/// let mut counts = Counts::default();
/// for outcome in [MoverResult::Win, MoverResult::Win, MoverResult::Draw, MoverResult::Loss, MoverResult::Unknown] {
///     counts.add_outcome(outcome);
/// }
/// assert_eq!((counts.games(), counts.decided()), (5, 4));
/// assert_eq!(counts.double_points(), 5); // 2 wins and a draw: 2.5 points
/// assert_eq!(counts.score(), Some(0.625)); // 2.5 / 4
/// assert!(counts.score_at_least(MinScore::from_fraction(0.6).ok_or("range")?));
/// assert!(!counts.score_at_least(MinScore::from_fraction(0.7).ok_or("range")?));
/// let mut total = counts;
/// total.add(&counts);
/// assert_eq!(total.wins, 4);
/// assert_eq!(Counts::default().score(), None); // no decided game, no score
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Games the mover won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the mover lost.
    pub losses: u32,
    /// Games without a result.
    pub unknown: u32,
}

impl Counts {
    /// All games in which the move was played, with or without a result. Example at [`Counts`].
    ///
    /// ```
    /// use qiku::book::Counts;
    /// let c = Counts { wins: 2, draws: 1, losses: 0, unknown: 4 };
    /// assert_eq!(c.games(), 7); // the 4 games without a result count too
    /// ```
    pub fn games(&self) -> u64 {
        self.decided() + u64::from(self.unknown)
    }

    /// Games with a result (wins + draws + losses). Example at [`Counts`].
    ///
    /// ```
    /// use qiku::book::Counts;
    /// let c = Counts { wins: 2, draws: 1, losses: 3, unknown: 4 };
    /// assert_eq!(c.decided(), 6); // the 4 games without a result are left out
    /// ```
    pub fn decided(&self) -> u64 {
        u64::from(self.wins) + u64::from(self.draws) + u64::from(self.losses)
    }

    /// Points scored (a win 1, a draw ½) doubled, so that it is an integer. Example at [`Counts`].
    ///
    /// ```
    /// use qiku::book::Counts;
    /// let c = Counts { wins: 2, draws: 3, losses: 5, unknown: 1 };
    /// assert_eq!(c.double_points(), 7); // 2 wins and 3 draws: 3.5 points
    /// ```
    pub fn double_points(&self) -> u64 {
        2 * u64::from(self.wins) + u64::from(self.draws)
    }

    /// The score (wins + draws / 2) / decided games, in `0.0..=1.0`; `None` without a decided game.
    ///
    /// ```
    /// use qiku::book::Counts;
    ///
    /// let c = Counts { wins: 1, draws: 2, losses: 1, unknown: 5 };
    /// assert_eq!(c.score(), Some(0.5)); // 2 points in 4 decided games; the 5 others do not count
    /// assert_eq!(Counts { unknown: 3, ..Counts::default() }.score(), None);
    /// ```
    pub fn score(&self) -> Option<f64> {
        let decided = self.decided();
        (decided > 0).then(|| self.double_points() as f64 / (2 * decided) as f64)
    }

    /// Whether the score is at least `min` (in millionths), compared exactly in integers. A move
    /// without decided games has no score and passes.
    ///
    /// ```
    /// use qiku::book::{Counts, MinScore};
    ///
    /// let third = Counts { wins: 1, draws: 0, losses: 2, unknown: 0 }; // scores 1/3 exactly
    /// assert!(third.score_at_least(MinScore::from_ppm(333_333).ok_or("range")?));
    /// assert!(!third.score_at_least(MinScore::from_ppm(333_334).ok_or("range")?));
    /// // Without a decided game there is no score to fall short.
    /// let all = MinScore::from_ppm(1_000_000).ok_or("range")?;
    /// assert!(Counts { unknown: 1, ..Counts::default() }.score_at_least(all));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn score_at_least(&self, min: MinScore) -> bool {
        let decided = self.decided();
        decided == 0 || u128::from(self.double_points()) * 1_000_000 >= u128::from(min.ppm()) * 2 * u128::from(decided)
    }

    /// Adds one game with `outcome`.
    ///
    /// ```
    /// use qiku::book::{Counts, MoverResult};
    ///
    /// let mut c = Counts::default();
    /// c.add_outcome(MoverResult::Draw);
    /// c.add_outcome(MoverResult::Unknown);
    /// assert_eq!(c, Counts { wins: 0, draws: 1, losses: 0, unknown: 1 });
    /// let mut full = Counts { wins: u32::MAX, ..Counts::default() };
    /// full.add_outcome(MoverResult::Win);
    /// assert_eq!(full.wins, u32::MAX); // saturates, never wraps
    /// ```
    pub fn add_outcome(&mut self, outcome: MoverResult) {
        let c = match outcome {
            MoverResult::Win => &mut self.wins,
            MoverResult::Draw => &mut self.draws,
            MoverResult::Loss => &mut self.losses,
            MoverResult::Unknown => &mut self.unknown,
        };
        *c = c.saturating_add(1);
    }

    /// Adds another set of counts (saturating; saturating addition is associative and
    /// commutative, so the order in which counts are summed never matters).
    ///
    /// ```
    /// use qiku::book::Counts;
    ///
    /// let mut c = Counts { wins: 2, draws: 1, losses: 0, unknown: 0 };
    /// c.add(&Counts { wins: 1, draws: 0, losses: 4, unknown: 1 });
    /// assert_eq!(c, Counts { wins: 3, draws: 1, losses: 4, unknown: 1 });
    /// c.add(&Counts { losses: u32::MAX, ..Counts::default() });
    /// assert_eq!(c.losses, u32::MAX); // saturates
    /// ```
    pub fn add(&mut self, other: &Counts) {
        self.wins = self.wins.saturating_add(other.wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.losses = self.losses.saturating_add(other.losses);
        self.unknown = self.unknown.saturating_add(other.unknown);
    }
}

/// A minimum score as a fraction, stored exactly in millionths (`0..=1_000_000`).
///
/// ```
/// use qiku::book::MinScore;
///
/// let half = MinScore::from_fraction(0.5).ok_or("out of range")?;
/// assert_eq!(half.ppm(), 500_000);
/// assert_eq!(MinScore::from_ppm(500_000), Some(half));
/// assert_eq!(half.fraction(), 0.5);
/// assert_eq!(MinScore::from_fraction(1.5), None);
/// assert_eq!(MinScore::from_ppm(1_000_001), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MinScore(u32);

impl MinScore {
    /// No minimum: every move is kept.
    pub const NONE: MinScore = MinScore(0);

    /// From millionths; `None` above one million.
    ///
    /// ```
    /// use qiku::book::MinScore;
    ///
    /// assert_eq!(MinScore::from_ppm(1_000_000).map(MinScore::fraction), Some(1.0));
    /// assert_eq!(MinScore::from_ppm(0), Some(MinScore::NONE));
    /// assert_eq!(MinScore::from_ppm(1_000_001), None);
    /// ```
    pub const fn from_ppm(ppm: u32) -> Option<MinScore> {
        if ppm <= 1_000_000 {
            Some(MinScore(ppm))
        } else {
            None
        }
    }

    /// From a fraction in `0.0..=1.0`, rounded to the nearest millionth; `None` outside that range.
    ///
    /// ```
    /// use qiku::book::MinScore;
    ///
    /// assert_eq!(MinScore::from_fraction(0.123_456_7).map(MinScore::ppm), Some(123_457)); // rounded
    /// assert_eq!(MinScore::from_fraction(1.0).map(MinScore::ppm), Some(1_000_000));
    /// assert_eq!(MinScore::from_fraction(-0.1), None);
    /// assert_eq!(MinScore::from_fraction(f64::NAN), None);
    /// ```
    pub fn from_fraction(f: f64) -> Option<MinScore> {
        if (0.0..=1.0).contains(&f) {
            Some(MinScore((f * 1_000_000.0).round() as u32))
        } else {
            None
        }
    }

    /// The minimum in parts per million (as stored in the header). Example at [`MinScore`].
    ///
    /// ```
    /// use qiku::book::MinScore;
    /// assert_eq!(MinScore::from_fraction(0.55).map(MinScore::ppm), Some(550_000));
    /// assert_eq!(MinScore::NONE.ppm(), 0);
    /// ```
    pub const fn ppm(self) -> u32 {
        self.0
    }

    /// The minimum as a fraction between 0 and 1. Example at [`MinScore`].
    ///
    /// ```
    /// use qiku::book::MinScore;
    /// assert_eq!(MinScore::from_ppm(250_000).map(MinScore::fraction), Some(0.25));
    /// ```
    pub fn fraction(self) -> f64 {
        f64::from(self.0) / 1_000_000.0
    }
}

/// One book record: a move in a position (both canonical, see the module docs) with its counts.
///
/// ```
/// use qiku::book::record::{canonical_key, Entry};
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// let e = Entry { key: canonical_key(&start).0, mv: iccs::parse(&start, "h2e2")?, counts: Default::default() };
/// assert_eq!(e.key, start.key().min(start.mirror_key()));
/// assert_eq!(e.counts.games(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The canonical key: `min(position.key(), position.mirror_key())`.
    pub key: u64,
    /// The move in the canonical orientation.
    pub mv: Move,
    /// Results of the games it was played in.
    pub counts: Counts,
}

impl Entry {
    /// The sort order of records in a book: by key, then by the move's 16-bit encoding.
    ///
    /// ```
    /// use qiku::book::{Counts, Entry};
    /// use qiku::notation::iccs::parse_move;
    ///
    /// let e = Entry { key: 7, mv: parse_move("h2e2")?, counts: Counts::default() };
    /// assert_eq!(e.sort_key(), (7, e.mv.to_u16()));
    /// let later = Entry { key: 8, mv: parse_move("a3a4")?, ..e };
    /// assert!(e.sort_key() < later.sort_key()); // the key decides first
    /// # Ok::<(), qiku::notation::ParseMoveError>(())
    /// ```
    pub fn sort_key(&self) -> (u64, u16) {
        (self.key, self.mv.to_u16())
    }
}

/// How a position is stored: its canonical key and whether the moves are mirrored.
///
/// ```
/// use qiku::book::record::{canonical_key, Orientation};
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// assert_eq!(canonical_key(&start).1, Orientation::Symmetric);
/// // After a move on one side the board is no longer its own mirror image.
/// let after = start.play(iccs::parse(&start, "h2e2")?)?;
/// assert_ne!(canonical_key(&after).1, Orientation::Symmetric);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// `key < mirror_key`: moves are stored as played.
    AsIs,
    /// `mirror_key < key`: moves are stored mirrored.
    Mirrored,
    /// `key == mirror_key`: a move and its mirror share one entry under the representative.
    Symmetric,
}

/// The canonical key of `pos` and how its moves are stored.
///
/// ```
/// use qiku::book::record::{canonical_key, restore_move, store_move, Orientation};
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// let right = start.play(iccs::parse(&start, "h2e2")?)?;
/// let left = start.play(iccs::parse(&start, "b2e2")?)?;
/// // A position and its mirror image share one key; one of them is stored mirrored.
/// let (key_right, o_right) = canonical_key(&right);
/// let (key_left, o_left) = canonical_key(&left);
/// assert_eq!(key_right, key_left);
/// assert_ne!(o_right, o_left);
/// // The start position is its own mirror image.
/// assert_eq!(canonical_key(&start).1, Orientation::Symmetric);
/// // A move stored in one orientation comes back as played.
/// let m = iccs::parse(&left, "b9c7")?;
/// assert_eq!(restore_move(o_left, store_move(o_left, m)), m);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn canonical_key(pos: &Position) -> (u64, Orientation) {
    let (key, mirror) = (pos.key(), pos.mirror_key());
    match mirror.cmp(&key) {
        std::cmp::Ordering::Less => (mirror, Orientation::Mirrored),
        std::cmp::Ordering::Greater => (key, Orientation::AsIs),
        std::cmp::Ordering::Equal => (key, Orientation::Symmetric),
    }
}

/// The move `m` (played in a position of this orientation) as the book stores it.
///
/// ```
/// use qiku::book::record::{store_move, Orientation};
/// use qiku::notation::iccs::parse_move;
///
/// let m = parse_move("b0c2")?; // 馬八進七
/// assert_eq!(store_move(Orientation::AsIs, m), m);
/// assert_eq!(store_move(Orientation::Mirrored, m), parse_move("h0g2")?);
/// // In a symmetric position, as the one of the pair played on red's right-hand side.
/// assert_eq!(store_move(Orientation::Symmetric, m), parse_move("h0g2")?);
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
#[inline]
pub fn store_move(orientation: Orientation, m: Move) -> Move {
    match orientation {
        Orientation::AsIs => m,
        Orientation::Mirrored => m.mirror(),
        Orientation::Symmetric => symmetric_representative(m),
    }
}

/// A stored move back in the orientation of the probed position.
///
/// ```
/// use qiku::book::record::{restore_move, Orientation};
/// use qiku::notation::iccs::parse_move;
///
/// let stored = parse_move("h0g2")?;
/// assert_eq!(restore_move(Orientation::Mirrored, stored), parse_move("b0c2")?);
/// assert_eq!(restore_move(Orientation::AsIs, stored), stored);
/// assert_eq!(restore_move(Orientation::Symmetric, stored), stored); // the representative
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
#[inline]
pub fn restore_move(orientation: Orientation, stored: Move) -> Move {
    match orientation {
        Orientation::AsIs | Orientation::Symmetric => stored,
        Orientation::Mirrored => stored.mirror(),
    }
}

/// Of a move and its mirror image, the one played on red's right-hand side: the one whose
/// from-square is on files `f`-`i`, or, for a piece on the central file `e`, whose to-square is.
/// (This matches how openings are named: 炮二平五 `h2e2`, 馬二進三 `h0g2`, 相三進五 `g0e2`,
/// 炮二平六 `h2d2`.)
///
/// ```
/// use qiku::book::record::symmetric_representative;
/// use qiku::notation::iccs::parse_move;
///
/// assert_eq!(symmetric_representative(parse_move("b2e2")?), parse_move("h2e2")?);
/// assert_eq!(symmetric_representative(parse_move("h2e2")?), parse_move("h2e2")?);
/// assert_eq!(symmetric_representative(parse_move("c3c4")?), parse_move("g3g4")?);
/// assert_eq!(symmetric_representative(parse_move("e3e4")?), parse_move("e3e4")?); // its own mirror
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
#[inline]
pub fn symmetric_representative(m: Move) -> Move {
    let (from, to) = (m.from().file().index(), m.to().file().index());
    let right = if from != 4 { from > 4 } else { to >= 4 };
    if right {
        m
    } else {
        m.mirror()
    }
}

/// A record before aggregation: canonical key, stored move and outcome packed into one `u128`
/// whose natural order is the book's order (key, then move), so that plain sorting groups equal
/// (key, move) pairs. Layout: key in bits 64..128, move in bits 16..32, outcome code in bits 0..8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Raw(pub(crate) u128);

impl Raw {
    #[inline]
    pub(crate) fn new(key: u64, mv: Move, outcome: MoverResult) -> Raw {
        Raw(u128::from(key) << 64 | u128::from(mv.to_u16()) << 16 | u128::from(outcome.code()))
    }
    #[inline]
    pub(crate) fn key(self) -> u64 {
        (self.0 >> 64) as u64
    }
    #[inline]
    pub(crate) fn move_bits(self) -> u16 {
        (self.0 >> 16) as u16
    }
    /// Key and move together: equal for records that aggregate into one entry.
    #[inline]
    pub(crate) fn group(self) -> u128 {
        self.0 >> 16
    }
    #[inline]
    pub(crate) fn outcome(self) -> MoverResult {
        match self.0 as u8 {
            0 => MoverResult::Win,
            1 => MoverResult::Draw,
            2 => MoverResult::Loss,
            _ => MoverResult::Unknown,
        }
    }
}

/// Sums runs of equal (key, move) in a sorted slice of raw records into entries, in order.
pub(crate) fn aggregate_sorted(raw: &[Raw]) -> impl Iterator<Item = Entry> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = *raw.get(i)?;
        let mut counts = Counts::default();
        while let Some(&r) = raw.get(i) {
            if r.group() != first.group() {
                break;
            }
            counts.add_outcome(r.outcome());
            i += 1;
        }
        // The move bits came from `Move::to_u16` when the record was made.
        let mv = Move::from_u16(first.move_bits())?;
        Some(Entry { key: first.key(), mv, counts })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    #[test]
    fn outcome_from_each_side() {
        use GameResult::*;
        assert_eq!(MoverResult::for_side(Some(RedWins), Color::Red), MoverResult::Win);
        assert_eq!(MoverResult::for_side(Some(RedWins), Color::Black), MoverResult::Loss);
        assert_eq!(MoverResult::for_side(Some(BlackWins), Color::Black), MoverResult::Win);
        assert_eq!(MoverResult::for_side(Some(BlackWins), Color::Red), MoverResult::Loss);
        assert_eq!(MoverResult::for_side(Some(Draw), Color::Black), MoverResult::Draw);
        assert_eq!(MoverResult::for_side(None, Color::Red), MoverResult::Unknown);
    }

    #[test]
    fn counts_saturate_and_score_exactly() {
        let mut c = Counts { wins: u32::MAX - 1, draws: 1, losses: 1, unknown: 0 };
        c.add_outcome(MoverResult::Win);
        c.add_outcome(MoverResult::Win);
        assert_eq!(c.wins, u32::MAX);
        let c = Counts { wins: 1, draws: 1, losses: 2, unknown: 5 };
        assert_eq!(c.games(), 9);
        assert_eq!(c.score(), Some(0.375));
        assert!(c.score_at_least(MinScore::from_fraction(0.375).unwrap()));
        assert!(!c.score_at_least(MinScore::from_ppm(375_001).unwrap()));
        assert!(Counts { unknown: 3, ..Counts::default() }.score_at_least(MinScore::from_ppm(1_000_000).unwrap()));
        assert_eq!(MinScore::from_fraction(1.5), None);
    }

    #[test]
    fn start_position_is_symmetric_and_central_cannons_share_an_entry() {
        let pos = Position::startpos();
        let (key, o) = canonical_key(&pos);
        assert_eq!((key, o), (pos.key(), Orientation::Symmetric));
        let h2e2 = iccs::parse(&pos, "h2e2").unwrap();
        let b2e2 = iccs::parse(&pos, "b2e2").unwrap();
        assert_eq!(store_move(o, h2e2), h2e2);
        assert_eq!(store_move(o, b2e2), h2e2);
        let e3e4 = iccs::parse(&pos, "e3e4").unwrap();
        assert_eq!(store_move(o, e3e4), e3e4);
        for (played, stored) in [("c3c4", "g3g4"), ("h2d2", "h2d2"), ("b2f2", "h2d2"), ("e3e4", "e3e4")] {
            let m = iccs::parse(&pos, played).unwrap();
            assert_eq!(store_move(o, m).to_string(), stored);
        }
        // A king on the central file: the representative goes right.
        let m = iccs::parse_move("e1d1").unwrap();
        assert_eq!(symmetric_representative(m).to_string(), "e1f1");
    }

    #[test]
    fn mirror_positions_share_key_and_moves_map_back() {
        let pos = Position::startpos().play_unchecked(iccs::parse(&Position::startpos(), "h2e2").unwrap());
        let mirror = pos.mirror();
        let (k1, o1) = canonical_key(&pos);
        let (k2, o2) = canonical_key(&mirror);
        assert_eq!(k1, k2);
        assert_ne!(o1, o2);
        assert_ne!(o1, Orientation::Symmetric);
        let m = iccs::parse(&pos, "h9g7").unwrap();
        let stored = store_move(o1, m);
        assert_eq!(stored, store_move(o2, m.mirror()));
        assert_eq!(restore_move(o1, stored), m);
        assert_eq!(restore_move(o2, stored), m.mirror());
    }

    #[test]
    fn raw_packing_sorts_like_entries_and_aggregates() {
        let pos = Position::startpos();
        let a = iccs::parse(&pos, "h2e2").unwrap();
        let b = iccs::parse(&pos, "h0g2").unwrap();
        let mut raw = vec![
            Raw::new(7, b, MoverResult::Loss),
            Raw::new(7, a, MoverResult::Win),
            Raw::new(3, a, MoverResult::Unknown),
            Raw::new(7, a, MoverResult::Draw),
            Raw::new(7, a, MoverResult::Win),
        ];
        raw.sort_unstable();
        let entries: Vec<Entry> = aggregate_sorted(&raw).collect();
        let (lo, hi) = if a.to_u16() < b.to_u16() { (a, b) } else { (b, a) };
        let count_a = Counts { wins: 2, draws: 1, losses: 0, unknown: 0 };
        let count_b = Counts { wins: 0, draws: 0, losses: 1, unknown: 0 };
        let expected = vec![
            Entry { key: 3, mv: a, counts: Counts { unknown: 1, ..Counts::default() } },
            Entry { key: 7, mv: lo, counts: if lo == a { count_a } else { count_b } },
            Entry { key: 7, mv: hi, counts: if hi == a { count_a } else { count_b } },
        ];
        assert_eq!(entries, expected);
    }
}
