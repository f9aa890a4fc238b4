//! The qiku engine: evaluation ([`eval`], with [`drawish`] material scaled), move ordering ([`ordering`]), transposition table
//! ([`tt`]), search ([`search`]), time management ([`time`]), the end of a game in words ([`mod@game_over`]) and the UCI and UCCI front
//! ends ([`uci`], [`ucci`]).
//!
//! [`Engine`] ties them together the way a game needs it: at the root, a book move while the
//! position is in the opening book, else the DTM-best move when an endgame table covers the
//! position, else a search (which itself probes the tables inside the tree). The book and the
//! tablebases are reached through the small traits [`OpeningBook`] and [`Endgames`], so the
//! search does not depend on their file formats.

pub mod adapters;
pub mod bench;
pub mod drawish;
pub mod eval;
pub mod game_over;
mod line;
pub mod ordering;
mod player;
pub mod search;
pub mod session;
pub mod time;
pub mod tt;
pub mod ucci;
pub mod uci;

use crate::core::{Move, Position, Rules, TbValue, Verdict, Wdl};
use eval::{MATE, MATE_BOUND};
use std::fmt;

pub use game_over::{game_end, game_over, GameEnd};
pub use player::{Engine, Source};
pub use search::Info;

/// A search score as reported: centipawn-like units, or a mate distance in moves (positive: the
/// side to move mates; `Mate(0)`: the side to move is mated).
///
/// ```
/// use qiku::engine::{eval::MATE, Score};
///
/// assert_eq!(Score::Cp(25).to_uci(), "cp 25");
/// assert_eq!(Score::Cp(-40).to_string(), "-0.40");
/// assert_eq!(Score::Mate(3).to_string(), "#3");
/// // Internal values: mate in 1 ply is mate in 1 move; being mated now is `Mate(0)`.
/// assert_eq!(Score::from_value(MATE - 1), Score::Mate(1));
/// assert_eq!(Score::from_value(-MATE), Score::Mate(0));
/// assert_eq!(Score::from_value(-MATE + 2).to_uci(), "mate -1");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like units, positive when the side to move is better.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    /// From an internal search value (`MATE - plies` for a mate in `plies`).
    ///
    /// ```
    /// use qiku::engine::{eval::MATE, Score};
    ///
    /// assert_eq!(Score::from_value(35), Score::Cp(35));
    /// assert_eq!(Score::from_value(MATE - 3), Score::Mate(2)); // mate in 3 plies: 2 moves
    /// assert_eq!(Score::from_value(-MATE + 2), Score::Mate(-1));
    /// // Lost by the move itself (it completes a forbidden cycle): mated in 1, not now.
    /// assert_eq!(Score::from_value(-MATE + 1), Score::Mate(-1));
    /// assert_eq!(Score::from_value(-MATE), Score::Mate(0));
    /// ```
    pub fn from_value(v: eval::Value) -> Score {
        if v >= MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_BOUND {
            // A loss in an odd number of plies (the mover's own move loses, by the repetition
            // rules) is mated in that many moves, as a win in an odd number is: never `Mate(0)`,
            // which is for a side with no legal move.
            Score::Mate(-((MATE + v + 1) / 2))
        } else {
            Score::Cp(v)
        }
    }

    /// The centipawns, `None` for a mate score: the `cp` of every JSON output (with
    /// [`Score::mate`] the other, `null`).
    ///
    /// ```
    /// use qiku::engine::Score;
    ///
    /// assert_eq!((Score::Cp(25).cp(), Score::Cp(25).mate()), (Some(25), None));
    /// assert_eq!((Score::Mate(-3).cp(), Score::Mate(-3).mate()), (None, Some(-3)));
    /// ```
    pub fn cp(self) -> Option<i32> {
        match self {
            Score::Cp(v) => Some(v),
            Score::Mate(_) => None,
        }
    }

    /// The moves to mate (negative: the side to move is mated), `None` for a centipawn score.
    ///
    /// ```
    /// use qiku::engine::Score;
    ///
    /// assert_eq!(Score::Mate(2).mate(), Some(2));
    /// assert_eq!(Score::Mate(-1).mate(), Some(-1)); // mated in 1
    /// assert_eq!(Score::Cp(40).mate(), None);
    /// ```
    pub fn mate(self) -> Option<i32> {
        match self {
            Score::Mate(n) => Some(n),
            Score::Cp(_) => None,
        }
    }

    /// `cp 25` or `mate -3`.
    ///
    /// ```
    /// use qiku::engine::Score;
    ///
    /// assert_eq!(Score::Cp(25).to_uci(), "cp 25");
    /// assert_eq!(Score::Mate(-3).to_uci(), "mate -3");
    /// ```
    pub fn to_uci(self) -> String {
        match self {
            Score::Cp(v) => format!("cp {v}"),
            Score::Mate(n) => format!("mate {n}"),
        }
    }

    /// The score in words with its unit, for text read by people beside the tables' values (which
    /// count plies): `cp 25`, `mate in 3 moves (5 plies)`, `mated in 2 moves (4 plies)`.
    ///
    /// ```
    /// use qiku::engine::Score;
    ///
    /// assert_eq!(Score::Cp(-25).to_words(), "cp -25");
    /// assert_eq!(Score::Mate(3).to_words(), "mate in 3 moves (5 plies)");
    /// assert_eq!(Score::Mate(1).to_words(), "mate in 1 move (1 ply)");
    /// assert_eq!(Score::Mate(-2).to_words(), "mated in 2 moves (4 plies)");
    /// assert_eq!(Score::Mate(0).to_words(), "mated (no legal move)");
    /// ```
    pub fn to_words(self) -> String {
        let moves = |n: i32| if n == 1 { "1 move".to_string() } else { format!("{n} moves") };
        let plies = |n: i32| if n == 1 { "1 ply".to_string() } else { format!("{n} plies") };
        match self {
            Score::Cp(v) => format!("cp {v}"),
            Score::Mate(0) => "mated (no legal move)".to_string(),
            Score::Mate(n) if n > 0 => format!("mate in {} ({})", moves(n), plies(2 * n - 1)),
            Score::Mate(n) => format!("mated in {} ({})", moves(-n), plies(-2 * n)),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(v) => write!(f, "{:+.2}", v as f64 / 100.0),
            Score::Mate(n) => write!(f, "#{n}"),
        }
    }
}

/// The most pieces (kings included) a position the engine asks tables about may have: every
/// piece of a full board. The tables say how many they cover ([`Endgames::max_pieces`]); the
/// engine's `TablebaseProbeLimit` option lowers it.
pub const MAX_TB_PIECES: u32 = 32;

/// Endgame tables as the search uses them, in the library's value vocabulary ([`TbValue`]:
/// win/draw/loss for the side to move and the distance to mate in plies), so that the search
/// knows nothing of table files.
///
/// Tables of your own plug in by answering three questions:
///
/// ```
/// use qiku::engine::Endgames;
/// use qiku::{Move, Position, TbValue, Wdl};
///
/// /// Tables that know one thing: bare kings are a draw.
/// struct BareKings;
/// impl Endgames for BareKings {
///     fn max_pieces(&self) -> u32 { 2 }
///     fn probe(&self, pos: &Position) -> Option<TbValue> {
///         (pos.occupied().count() == 2).then_some(TbValue::DRAW)
///     }
///     fn move_values(&self, pos: &Position) -> Option<Vec<(Move, TbValue)>> {
///         self.probe(pos)?;
///         Some(pos.moves().iter().map(|&m| (m, TbValue::DRAW)).collect())
///     }
/// }
/// let kings = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1")?;
/// // The provided methods answer from the required ones.
/// assert_eq!(BareKings.probe_wdl(&kings), Some(Wdl::Draw));
/// assert_eq!(BareKings.best_moves(&kings).map(|m| m.len()), Some(kings.moves().len())); // every move draws
/// assert_eq!(BareKings.verdict(&kings), None); // these tables cannot say
/// assert_eq!(BareKings.probe_wdl(&Position::startpos()), None);
/// # Ok::<(), qiku::PositionError>(())
/// ```
pub trait Endgames: Send + Sync {
    /// The most pieces (kings included) any loaded table covers.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    ///
    /// // `dir` holds the KRvK tables: three pieces, kings included.
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?);
    /// assert_eq!(tables.max_pieces(), 3);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn max_pieces(&self) -> u32;
    /// The exact value of `pos`, if a loaded table covers its material.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    /// use qiku::{Dtm, Position, TbValue, Wdl};
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// // Rook to d0 mates: won in 1 ply.
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// assert_eq!(tables.probe(&pos), Some(TbValue { wdl: Wdl::Win, dtm: Dtm(1) }));
    /// assert_eq!(tables.probe(&Position::startpos()), None); // no table for it
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn probe(&self, pos: &Position) -> Option<TbValue>;
    /// Win, draw or loss of `pos`, if a loaded table covers its material: what the search asks
    /// inside its tree, where tables with only these (small files) answer faster. By default
    /// from [`Endgames::probe`].
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    /// use qiku::{Position, Wdl};
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// let won = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// let mated = Position::from_fen("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")?;
    /// assert_eq!((tables.probe_wdl(&won), tables.probe_wdl(&mated)), (Some(Wdl::Win), Some(Wdl::Loss)));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        self.probe(pos).map(|v| v.wdl)
    }
    /// Every legal move with its value for the side to move, best first (fastest win, then
    /// draws, then slowest loss; ties in a fixed order); `None` if a table is missing.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    /// use qiku::{Dtm, Position, TbValue, Wdl};
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// let values = tables.move_values(&pos).expect("covered");
    /// assert_eq!(values.len(), pos.moves().len());
    /// // The mate first, valued for the side that plays it.
    /// let (first, value) = values[0];
    /// assert_eq!((first.to_string(), value), ("a0d0".to_string(), TbValue { wdl: Wdl::Win, dtm: Dtm(1) }));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn move_values(&self, pos: &Position) -> Option<Vec<(Move, TbValue)>>;
    /// The moves of the table's line (in a won position, the moves that keep winning under the
    /// tables' repetition rules; see `tablebase::Tablebases::best_moves_with`). By default the
    /// moves of the best value.
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    /// use qiku::Position;
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// let best: Option<Vec<String>> = tables.best_moves(&pos).map(|v| v.iter().map(|m| m.to_string()).collect());
    /// // Both win at once: a0d0 mates, a0a8 leaves black no move (a loss in Xiangqi).
    /// assert_eq!(best, Some(vec!["a0d0".to_string(), "a0a8".to_string()]));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn best_moves(&self, pos: &Position) -> Option<Vec<Move>> {
        let values = self.move_values(pos)?;
        let best = values.first()?.1;
        Some(values.iter().filter(|(_, v)| *v == best).map(|&(m, _)| m).collect())
    }
    /// Chooses the repetition rules of the values (tables that know only one set ignore this).
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::{Rules, Tablebases};
    /// use qiku::Position;
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// assert_eq!(tables.verdict(&pos).map(|v| v.rules), Some(Rules::Asian)); // the default
    /// tables.set_rules(Rules::Plain);
    /// assert_eq!(tables.verdict(&pos).map(|v| v.rules), Some(Rules::Plain));
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn set_rules(&self, _rules: Rules) {}
    /// The verdict on `pos` as tools print it: value, the rules it holds under, and whether only
    /// the rules decide it (then its distance is a line rank, not plies to mate). `None` if no
    /// loaded table covers it, or if these tables cannot say (the default).
    ///
    /// ```
    /// # #[cfg(feature = "generate")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # use qiku::tablebase::generate::{generate_set, GenerateOptions};
    /// # generate_set(&["KRvK".parse()?], &GenerateOptions::new(dir.path()))?;
    /// use qiku::engine::{adapters::QtbEndgames, Endgames};
    /// use qiku::tablebase::Tablebases;
    /// use qiku::{Position, Wdl};
    ///
    /// let tables = QtbEndgames::new(Tablebases::open(dir.path())?); // KRvK
    /// let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1")?;
    /// let verdict = tables.verdict(&pos).expect("covered");
    /// assert_eq!((verdict.value.wdl, verdict.value.dtm.0), (Wdl::Win, 1));
    /// assert!(!verdict.by_rule); // a mate, not a win only the repetition rules give
    /// assert_eq!(tables.verdict(&Position::startpos()), None);
    /// # Ok(()) }
    /// # #[cfg(not(feature = "generate"))] fn main() {}
    /// ```
    fn verdict(&self, _pos: &Position) -> Option<Verdict> {
        None
    }
}

/// An opening book as the engine uses it: the move to play by the configured policy.
///
/// ```
/// use qiku::engine::OpeningBook;
/// use qiku::{notation::iccs, Move, Position};
///
/// /// A book of one move: the central cannon from the start.
/// struct Central;
/// impl OpeningBook for Central {
///     fn pick(&self, pos: &Position) -> Option<Move> {
///         iccs::parse(pos, "h2e2").ok().filter(|_| *pos == Position::startpos())
///     }
/// }
/// let start = Position::startpos();
/// assert_eq!(Central.pick(&start).map(|m| m.to_string()).as_deref(), Some("h2e2"));
/// // The provided `pick_among`: the book's move if it is allowed, else none.
/// assert_eq!(Central.pick_among(&start, &|m| m.to_string() != "h2e2"), None);
/// ```
pub trait OpeningBook: Send + Sync {
    /// The move to play in `pos`, if the book has one.
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::{adapters::QbkOpeningBook, OpeningBook};
    /// use qiku::{notation::iccs, Position};
    ///
    /// // games.qbk: 1. h2e2 (a win and a loss), 1. c3c4 (a draw, and no reply).
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 1)?;
    /// let start = Position::startpos();
    /// assert_eq!(book.pick(&start).map(|m| m.to_string()).as_deref(), Some("h2e2"));
    /// let after = start.play(iccs::parse(&start, "c3c4")?)?;
    /// assert_eq!(book.pick(&after), None); // out of the book
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn pick(&self, pos: &Position) -> Option<Move>;
    /// The move to play among the `allowed` ones (`searchmoves`, UCCI's `banmoves`), if the book
    /// has one. By default [`OpeningBook::pick`]'s move if it is allowed; a book that knows its
    /// moves chooses among the allowed ones, so that banning its first choice plays its next.
    ///
    /// ```
    /// # use qiku::book::{build, BuildOptions};
    /// # let dir = tempfile::tempdir()?;
    /// # let pgn = dir.path().join("games.pgn");
    /// # std::fs::write(&pgn, "[Red \"A\"]\n1. h2e2 h9g7 1-0\n\n[Red \"B\"]\n1. h2e2 b9c7 0-1\n\n1. c3c4 1/2-1/2\n")?;
    /// # let path = dir.path().join("games.qbk");
    /// # build(&[pgn], &path, &BuildOptions::default())?;
    /// use qiku::book::Policy;
    /// use qiku::engine::{adapters::QbkOpeningBook, OpeningBook};
    /// use qiku::Position;
    ///
    /// // games.qbk: 1. h2e2 (a win and a loss), 1. c3c4 (a draw).
    /// let book = QbkOpeningBook::open(&path, Policy::BestScore, 1)?;
    /// let pick = book.pick_among(&Position::startpos(), &|m| m.to_string() != "h2e2");
    /// // Its next move, c3c4, or g3g4: the start position is its own mirror image, and the book
    /// // keeps one move of each mirror pair.
    /// assert!(matches!(pick.map(|m| m.to_string()).as_deref(), Some("c3c4" | "g3g4")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn pick_among(&self, pos: &Position, allowed: &dyn Fn(&Move) -> bool) -> Option<Move> {
        self.pick(pos).filter(|m| allowed(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_conversion() {
        assert_eq!(Score::from_value(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_value(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_value(-MATE + 2), Score::Mate(-1));
        assert_eq!(Score::from_value(-MATE), Score::Mate(0));
        assert_eq!(Score::from_value(123), Score::Cp(123));
        assert_eq!(Score::Mate(-3).to_uci(), "mate -3");
        assert_eq!(Score::Cp(-40).to_string(), "-0.40");
    }
}
