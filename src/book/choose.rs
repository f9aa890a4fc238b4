//! Choosing a book move: the moves a probe finds ([`BookMove`]), the mirror image of a move in a
//! position that is its own mirror ([`mirror_twin`]), the policies ([`Policy`]) and the share of
//! games a move needs to be chosen ([`with_min_share`], [`choose`]). Re-exported by
//! [`super::probe`] and [`crate::book`].

use super::record::Counts;
use crate::core::{Move, Position};
// The seeded random generator of `Book::pick` (the crate's one generator, `qiku::Rng`), so that
// a given seed always gives the same choices.
use crate::util::rng::Rng;

/// A move found in the book for a position, with its counts from the mover's point of view.
///
/// ```
/// use qiku::book::{BookMove, Counts};
/// let counts = Counts { wins: 3, draws: 1, losses: 0, unknown: 2 };
/// let m = BookMove { mv: qiku::notation::iccs::parse_move("h2e2")?, counts };
/// assert_eq!((m.mv.to_string(), m.counts.games()), ("h2e2".to_string(), 6));
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, in the probed position's orientation.
    pub mv: Move,
    /// Its results from the mover's point of view.
    pub counts: Counts,
}

impl BookMove {
    /// In a position that is its own mirror image (the start position), the mirror image of this
    /// move, whose games the book counted with this one's (only one of each mirror pair is
    /// returned, [`Book::probe`](super::Book::probe)); `None` elsewhere, and for a move that is its
    /// own mirror image.
    ///
    /// ```
    /// use qiku::book::{BookMove, Counts};
    /// use qiku::notation::iccs;
    /// use qiku::Position;
    ///
    /// let start = Position::startpos();
    /// let book_move = |pos: &Position, text: &str| -> Result<BookMove, Box<dyn std::error::Error>> {
    ///     Ok(BookMove { mv: iccs::parse(pos, text)?, counts: Counts::default() })
    /// };
    /// let twin = book_move(&start, "h2e2")?.merged_mirror(&start);
    /// assert_eq!(twin, Some(iccs::parse(&start, "b2e2")?));
    /// assert_eq!(book_move(&start, "e3e4")?.merged_mirror(&start), None); // its own mirror
    /// let after = start.play_unchecked(iccs::parse(&start, "h2e2")?);
    /// assert_eq!(book_move(&after, "h9g7")?.merged_mirror(&after), None); // not symmetric
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merged_mirror(&self, pos: &Position) -> Option<Move> {
        mirror_twin(pos, self.mv)
    }
}

/// [`BookMove::merged_mirror`] of a move `mv` of `pos`, for callers that hold the move alone.
///
/// ```
/// use qiku::book::mirror_twin;
/// use qiku::notation::iccs;
/// use qiku::Position;
///
/// let start = Position::startpos();
/// assert_eq!(mirror_twin(&start, iccs::parse(&start, "g3g4")?), Some(iccs::parse(&start, "c3c4")?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mirror_twin(pos: &Position, mv: Move) -> Option<Move> {
    let mirror = mv.mirror();
    (pos.key() == pos.mirror_key() && mirror != mv && pos.is_legal(mirror)).then_some(mirror)
}

/// How [`Book::pick`](super::Book::pick) chooses among the book moves of a position.
///
/// ```
/// use qiku::book::{choose, BookMove, Counts, Policy};
/// use qiku::{notation::iccs::parse_move, Rng};
///
/// let bm = |s, wins, losses| {
///     BookMove { mv: parse_move(s).unwrap(), counts: Counts { wins, draws: 0, losses, unknown: 0 } }
/// };
/// let moves = [bm("h2e2", 60, 40), bm("c3c4", 30, 10)];
/// // c3c4 scores 75% against h2e2's 60%: the best score, whatever the generator.
/// assert_eq!(choose(&moves, Policy::BestScore, &mut Rng::new(7)), Some(moves[1].mv));
/// let pick = choose(&moves, Policy::WeightedByScore, &mut Rng::new(7)); // one of the two, at random
/// assert!(moves.iter().any(|m| Some(m.mv) == pick));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// The move with the best score (wins + draws / 2 over decided games); ties go to the move
    /// played more often, then to the smaller move encoding. Moves without a decided game only
    /// when no move has one. Deterministic: the random generator is not used.
    BestScore,
    /// At random, each move with probability proportional to the games it was played in.
    WeightedByGames,
    /// At random, each move with probability proportional to the points it scored
    /// (wins + draws / 2): often-played *and* successful moves are preferred. If no move scored a
    /// point, falls back to [`Policy::WeightedByGames`].
    WeightedByScore,
}

/// The share of a position's games a book move needs, by default, to be chosen by [`choose`],
/// [`Book::pick`](super::Book::pick) and the engine: 5 percent. A move a handful of games tried
/// (`h0i2` in 101 of the 25,368 games of the shipped collection's start position, a score of 62%)
/// would otherwise beat the moves masters play on a lucky score.
pub const DEFAULT_MIN_SHARE_PERCENT: u32 = 5;

/// The moves of `moves` played in at least `percent` percent of the games of all of them (the
/// games of the position they are the book moves of), in their order. `percent` 0 keeps all.
///
/// ```
/// use qiku::book::{with_min_share, BookMove, Counts};
/// use qiku::notation::iccs;
///
/// let pos = qiku::Position::startpos();
/// let bm = |s: &str, games: u32| BookMove {
///     mv: iccs::parse(&pos, s).unwrap(),
///     counts: Counts { wins: games, draws: 0, losses: 0, unknown: 0 },
/// };
/// let moves = [bm("h2e2", 95), bm("h0i2", 4), bm("i3i4", 1)];
/// let kept: Vec<String> = with_min_share(&moves, 5).iter().map(|m| m.mv.to_string()).collect();
/// assert_eq!(kept, ["h2e2"]);
/// assert_eq!(with_min_share(&moves, 4).len(), 2);
/// assert_eq!(with_min_share(&moves, 0).len(), 3);
/// ```
pub fn with_min_share(moves: &[BookMove], percent: u32) -> Vec<BookMove> {
    let total: u128 = moves.iter().map(|m| u128::from(m.counts.games())).sum();
    moves.iter().copied().filter(|m| u128::from(m.counts.games()) * 100 >= u128::from(percent) * total).collect()
}

/// Chooses among `moves` (the book moves of one position) by `policy`, among the moves played
/// in at least [`DEFAULT_MIN_SHARE_PERCENT`] of the position's games (`None` if there is none);
/// [`choose_with_share`] takes another share.
///
/// ```
/// use qiku::book::{choose, choose_with_share, BookMove, Counts, Policy};
/// use qiku::{notation::iccs, Position, Rng};
///
/// let pos = Position::startpos();
/// let bm = |s: &str, wins: u32, losses: u32| -> Result<BookMove, Box<dyn std::error::Error>> {
///     Ok(BookMove { mv: iccs::parse(&pos, s)?, counts: Counts { wins, draws: 0, losses, unknown: 0 } })
/// };
/// // h2e2 scores 60% over 100 games; i3i4 won its only 2 games (2% of them).
/// let moves = [bm("h2e2", 60, 40)?, bm("i3i4", 2, 0)?];
/// let mut rng = Rng::new(1);
/// assert_eq!(choose(&moves, Policy::BestScore, &mut rng), Some(moves[0].mv)); // i3i4: under 5%
/// assert_eq!(choose_with_share(&moves, Policy::BestScore, 0, &mut rng), Some(moves[1].mv));
/// assert_eq!(choose(&[], Policy::BestScore, &mut rng), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose(moves: &[BookMove], policy: Policy, rng: &mut Rng) -> Option<Move> {
    choose_with_share(moves, policy, DEFAULT_MIN_SHARE_PERCENT, rng)
}

/// Like [`choose`], with moves played in less than `min_share_percent` percent of the games left
/// out first (0: every move may be chosen).
///
/// ```
/// use qiku::book::{choose_with_share, BookMove, Counts, Policy};
/// use qiku::{notation::iccs, Position, Rng};
///
/// let pos = Position::startpos();
/// let counts = |wins, losses| Counts { wins, losses, ..Counts::default() };
/// // c3c4 won its 30 games, h2e2 half of its 70: the best score is c3c4's, at 30% of the games.
/// let moves = [
///     BookMove { mv: iccs::parse(&pos, "h2e2")?, counts: counts(35, 35) },
///     BookMove { mv: iccs::parse(&pos, "c3c4")?, counts: counts(30, 0) },
/// ];
/// let mut rng = Rng::new(1);
/// assert_eq!(choose_with_share(&moves, Policy::BestScore, 30, &mut rng), Some(moves[1].mv));
/// assert_eq!(choose_with_share(&moves, Policy::BestScore, 31, &mut rng), Some(moves[0].mv)); // c3c4 left out
/// assert_eq!(choose_with_share(&moves, Policy::BestScore, 71, &mut rng), None); // neither has 71%
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose_with_share(moves: &[BookMove], policy: Policy, min_share_percent: u32, rng: &mut Rng) -> Option<Move> {
    choose_among(&with_min_share(moves, min_share_percent), policy, rng)
}

/// Chooses among `moves` by `policy`, all of them candidates.
fn choose_among(moves: &[BookMove], policy: Policy, rng: &mut Rng) -> Option<Move> {
    let weighted = |rng: &mut Rng, weight: &dyn Fn(&BookMove) -> u64| -> Option<Move> {
        let total: u64 = moves.iter().map(weight).sum();
        if total == 0 {
            return None;
        }
        let mut r = rng.below(total);
        for m in moves {
            let w = weight(m);
            if r < w {
                return Some(m.mv);
            }
            r -= w;
        }
        None
    };
    match policy {
        Policy::BestScore => moves
            .iter()
            .max_by(|a, b| {
                let sa = a.counts.score().unwrap_or(-1.0);
                let sb = b.counts.score().unwrap_or(-1.0);
                sa.total_cmp(&sb).then(a.counts.games().cmp(&b.counts.games())).then(b.mv.to_u16().cmp(&a.mv.to_u16()))
            })
            .map(|m| m.mv),
        Policy::WeightedByGames => weighted(rng, &|m| m.counts.games()),
        Policy::WeightedByScore => {
            weighted(rng, &|m| m.counts.double_points()).or_else(|| weighted(rng, &|m| m.counts.games()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::iccs;

    fn bm(pos: &Position, s: &str, w: u32, d: u32, l: u32, u: u32) -> BookMove {
        BookMove { mv: iccs::parse(pos, s).unwrap(), counts: Counts { wins: w, draws: d, losses: l, unknown: u } }
    }

    #[test]
    fn policies() {
        let pos = Position::startpos();
        let moves = [bm(&pos, "h2e2", 50, 30, 20, 0), bm(&pos, "c3c4", 6, 2, 2, 0), bm(&pos, "b0c2", 0, 0, 0, 40)];
        let mut rng = Rng::new(1);
        // c3c4 scores 0.7, h2e2 0.65, b0c2 has no score.
        assert_eq!(choose_among(&moves, Policy::BestScore, &mut rng), Some(moves[1].mv));
        assert_eq!(choose_among(&[], Policy::BestScore, &mut rng), None);
        assert_eq!(choose_among(&moves[2..], Policy::BestScore, &mut rng), Some(moves[2].mv));
        // Weighted by games: frequencies follow 100 : 10 : 40.
        let mut hits = [0u32; 3];
        for _ in 0..15_000 {
            let m = choose_among(&moves, Policy::WeightedByGames, &mut rng).unwrap();
            hits[moves.iter().position(|x| x.mv == m).unwrap()] += 1;
        }
        assert!((9_500..10_500).contains(&hits[0]), "{hits:?}");
        assert!((800..1_200).contains(&hits[1]), "{hits:?}");
        assert!((3_600..4_400).contains(&hits[2]), "{hits:?}");
        // Weighted by score: points 65 : 7 : 0, so b0c2 never.
        let mut hits = [0u32; 3];
        for _ in 0..7_200 {
            let m = choose_among(&moves, Policy::WeightedByScore, &mut rng).unwrap();
            hits[moves.iter().position(|x| x.mv == m).unwrap()] += 1;
        }
        assert_eq!(hits[2], 0);
        assert!((6_200..6_800).contains(&hits[0]), "{hits:?}");
        // No points at all: falls back to games.
        let lost = [bm(&pos, "h2e2", 0, 0, 3, 0)];
        assert_eq!(choose_among(&lost, Policy::WeightedByScore, &mut rng), Some(lost[0].mv));
    }
}
