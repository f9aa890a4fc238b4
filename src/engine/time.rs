//! Search limits (what `go` asks for) and time management: how long to think on a clock.
//!
//! On a clock the engine plans for `movestogo` more moves (35 when not given or 0, as Xiangqi
//! games last 60-100 moves), spends `remaining / movestogo + 3/4 of the increment` as a soft target,
//! and never more than a hard cap of 3.5 times that or 40% of the remaining time. The soft target
//! is checked between iterations (an iteration that is unlikely to finish is not started; a
//! changing best move earns more time), the hard cap inside the search. `Move Overhead` is
//! subtracted for the GUI's and the pipe's latency. From a `movetime` it takes at most a fiftieth:
//! a fixed time per move is used all but that sliver, which covers the last batch of nodes and the
//! reply's trip (Stockfish's family uses the whole `movetime`). A `go` with a clock word but no
//! time for the side to move (`go btime 100` with red to move, `go winc 100`) gives it no time:
//! it answers after the first iteration.

use crate::core::Color;
use std::time::{Duration, Instant};

/// What `go` asked for. All `None`/`false` (a plain `go`) leaves the search its own limits only:
/// it deepens until `stop`, a settled mate or the deepest iteration it makes (120 plies), so it
/// still ends on its own ([`Limits::is_bounded`]); `infinite` or `ponder` wait for `stop`.
///
/// ```
/// use qiku::engine::time::Limits;
/// use std::time::Duration;
///
/// let depth = Limits::depth(8);
/// assert_eq!(depth.depth, Some(8));
/// assert!(depth.is_bounded() && !depth.uses_clock());
/// assert_eq!(Limits::movetime(250).movetime, Some(Duration::from_millis(250)));
/// // A game clock: five minutes each, three seconds increment.
/// let clock = Limits {
///     time: [Some(Duration::from_secs(300)); 2],
///     inc: [Some(Duration::from_secs(3)); 2],
///     ..Limits::default()
/// };
/// assert!(clock.uses_clock());
/// assert!(!Limits { infinite: true, ..Limits::default() }.is_bounded());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Remaining clock time of red and black (UCI `wtime`/`btime`: red is "white").
    pub time: [Option<Duration>; 2],
    /// Increment per move of red and black (`winc`/`binc`).
    pub inc: [Option<Duration>; 2],
    /// Moves to the next time control (`None`: sudden death; `go movestogo 0` is read as absent).
    pub movestogo: Option<u32>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Search to this depth only.
    pub depth: Option<u32>,
    /// Search this many nodes only.
    pub nodes: Option<u64>,
    /// Stop when a mate in this many moves is found.
    pub mate: Option<u32>,
    /// Search until `stop`.
    pub infinite: bool,
    /// `go ponder`: search as if infinite until `ponderhit` (then the clock limits apply) or `stop`.
    pub ponder: bool,
    /// Consider only these root moves (`go searchmoves`); empty means all.
    pub searchmoves: Vec<crate::core::Move>,
    /// When the clock started for this move: the UCI session sets the moment it took up the `go`,
    /// so that everything before the search proper (starting its thread, readying the tables)
    /// counts against `movetime` and the clock. `None`: when the search starts.
    pub start: Option<Instant>,
}

impl Limits {
    /// Search to `depth` plies.
    ///
    /// ```
    /// use qiku::engine::time::Limits;
    ///
    /// let limits = Limits::depth(6);
    /// assert_eq!(limits, Limits { depth: Some(6), ..Limits::default() });
    /// assert!(limits.is_bounded() && !limits.uses_clock());
    /// ```
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }
    /// Search for `ms` milliseconds.
    ///
    /// ```
    /// use qiku::engine::time::{budget, Limits};
    /// use qiku::Color;
    /// use std::time::Duration;
    ///
    /// let limits = Limits::movetime(1500);
    /// assert_eq!(limits.movetime, Some(Duration::from_millis(1500)));
    /// // All of it but the overhead for the reply (at most a fiftieth).
    /// assert_eq!(budget(&limits, Color::Red, Duration::from_millis(10)).hard, Some(Duration::from_millis(1490)));
    /// ```
    pub fn movetime(ms: u64) -> Limits {
        Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() }
    }
    /// Does the search end on its own (not only on `stop`)?
    ///
    /// ```
    /// use qiku::engine::time::Limits;
    ///
    /// assert!(Limits::movetime(100).is_bounded());
    /// assert!(!Limits { infinite: true, ..Limits::default() }.is_bounded());
    /// // Pondering: no end until `ponderhit` or `stop`, whatever the other limits.
    /// assert!(!Limits { ponder: true, ..Limits::movetime(100) }.is_bounded());
    /// ```
    pub fn is_bounded(&self) -> bool {
        !self.infinite && !self.ponder
    }
    /// Uses a clock (so the time manager decides)? True when any clock word was given
    /// (`wtime`, `btime`, `winc`, `binc`, `movestogo`), also for the other side only: the side to
    /// move then has no time given, and is treated as having none left.
    ///
    /// ```
    /// use qiku::engine::time::{budget, Budget, Limits};
    /// use qiku::Color;
    /// use std::time::Duration;
    ///
    /// assert!(!Limits::movetime(100).uses_clock());
    /// // `go btime 100` with red to move: a clock, but none for red, who moves at once.
    /// let only_black = Limits { time: [None, Some(Duration::from_millis(100))], ..Limits::default() };
    /// assert!(only_black.uses_clock());
    /// let none = Some(Duration::ZERO);
    /// assert_eq!(budget(&only_black, Color::Red, Duration::ZERO), Budget { soft: none, hard: none });
    /// ```
    pub fn uses_clock(&self) -> bool {
        self.time.iter().chain(&self.inc).any(Option::is_some) || self.movestogo.is_some()
    }
}

/// The time the search may use.
///
/// ```
/// use qiku::engine::time::{budget, Budget, Limits};
/// use qiku::Color;
/// use std::time::Duration;
///
/// let ms = Duration::from_millis;
/// // 35 s left and no increment: a second as the target, three and a half at most.
/// let clock = Limits { time: [Some(ms(35_000)); 2], ..Limits::default() };
/// assert_eq!(budget(&clock, Color::Red, ms(0)), Budget { soft: Some(ms(1000)), hard: Some(ms(3500)) });
/// assert_eq!(budget(&Limits::depth(5), Color::Red, ms(0)), Budget { soft: None, hard: None });
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Budget {
    /// Don't start another iteration after this.
    pub soft: Option<Duration>,
    /// Stop searching at this point, whatever is happening.
    pub hard: Option<Duration>,
}

/// Moves assumed left when `movestogo` is absent.
const DEFAULT_MOVES_TO_GO: u32 = 35;
/// Never plan less than this per move.
const MIN_THINK: Duration = Duration::from_millis(5);

/// The budget for `limits` with `turn` to move.
///
/// ```
/// use qiku::engine::time::{budget, Budget, Limits};
/// use qiku::Color;
/// use std::time::Duration;
///
/// let ms = Duration::from_millis;
/// // A fixed time per move: all of it but the overhead.
/// let fixed = budget(&Limits::movetime(1000), Color::Red, ms(10));
/// assert_eq!(fixed, Budget { soft: Some(ms(990)), hard: Some(ms(990)) });
/// // A clock: a 35th of the time left, and a hard cap three and a half times that.
/// let clock = Limits { time: [Some(ms(60_000)); 2], ..Limits::default() };
/// let b = budget(&clock, Color::Black, ms(0));
/// assert_eq!((b.soft, b.hard), (Some(ms(60_000) / 35), Some(ms(60_000) / 35 * 7 / 2)));
/// assert_eq!(budget(&Limits::depth(3), Color::Red, ms(30)), Budget::default()); // no time limit
/// ```
pub fn budget(limits: &Limits, turn: Color, overhead: Duration) -> Budget {
    if let Some(mt) = limits.movetime {
        // The whole movetime is the budget; the overhead takes at most a fiftieth of it (2 ms of
        // 100), which the search's last batch of nodes before it looks at the clock and the
        // reply's trip fit in.
        let t = mt.saturating_sub(overhead.min(mt / 50));
        return Budget { soft: Some(t), hard: Some(t) };
    }
    if !limits.uses_clock() {
        return Budget::default();
    }
    // A clock given for the other side only (`go btime 100` with red to move, `go winc 100`): the
    // side to move has no time given, so none left, and moves at once (as Stockfish does), rather
    // than searching without end.
    let remaining = limits.time[turn.index()].unwrap_or_default();
    let inc = limits.inc[turn.index()].unwrap_or_default();
    let usable = remaining.saturating_sub(overhead);
    let mtg = limits.movestogo.unwrap_or(DEFAULT_MOVES_TO_GO).clamp(1, 100);
    if mtg == 1 {
        let t = (usable * 9 / 10).max(MIN_THINK.min(remaining / 2));
        return Budget { soft: Some(t), hard: Some(t) };
    }
    let soft = usable / mtg + inc * 3 / 4;
    let hard_cap = usable * 2 / 5;
    let soft = soft.min(hard_cap).max(MIN_THINK.min(remaining / 4));
    let hard = (soft * 7 / 2).min(hard_cap).max(soft);
    Budget { soft: Some(soft), hard: Some(hard) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn movetime_is_exact_minus_overhead() {
        // The overhead is taken in full when it is at most a fiftieth of the movetime...
        let b = budget(&Limits::movetime(1000), Color::Red, ms(10));
        assert_eq!(b, Budget { soft: Some(ms(990)), hard: Some(ms(990)) });
        // ...and a fiftieth when it is more (the default 30 ms of a 1 s or a 100 ms move).
        let b = budget(&Limits::movetime(1000), Color::Red, ms(30));
        assert_eq!(b.hard, Some(ms(980)));
        let b = budget(&Limits::movetime(100), Color::Red, ms(30));
        assert_eq!(b.hard, Some(ms(98)));
    }

    #[test]
    fn clock_budget_is_a_fraction_of_the_remaining_time() {
        let limits = Limits {
            time: [Some(ms(60_000)), Some(ms(1_000))],
            inc: [Some(ms(1_000)), Some(ms(0))],
            ..Limits::default()
        };
        let b = budget(&limits, Color::Red, ms(0));
        assert_eq!(b.soft, Some(ms(60_000) / 35 + ms(750)));
        assert_eq!(b.hard, Some(b.soft.unwrap() * 7 / 2));
        let b = budget(&limits, Color::Black, ms(0));
        assert!(b.hard.unwrap() <= ms(400));
        assert!(b.soft.unwrap() >= ms(5));
        // Last move before the time control: use most of it.
        let limits = Limits { movestogo: Some(1), ..limits };
        assert_eq!(budget(&limits, Color::Red, ms(100)).hard, Some(ms(53_910)));
        assert_eq!(budget(&Limits::depth(3), Color::Red, ms(100)), Budget::default());
    }

    #[test]
    fn a_clock_for_the_other_side_only_leaves_no_time() {
        // Only black's clock with red to move, or only an increment: red has no time left and
        // moves after the first iteration, never searching without end.
        let only_black = Limits { time: [None, Some(ms(100))], ..Limits::default() };
        let only_inc = Limits { inc: [Some(ms(100)), None], ..Limits::default() };
        for limits in [only_black, only_inc] {
            assert!(limits.uses_clock());
            assert_eq!(budget(&limits, Color::Red, ms(30)), Budget { soft: Some(ms(0)), hard: Some(ms(0)) });
        }
    }

    #[test]
    fn movestogo_0_is_sudden_death() {
        let pos = crate::core::Position::startpos();
        let read = |args: &str| {
            let words: Vec<&str> = args.split_whitespace().collect();
            crate::engine::uci::parse_go(&words, &pos).unwrap().0
        };
        let zero = read("wtime 10000 btime 10000 movestogo 0");
        assert_eq!(zero.movestogo, None);
        assert_eq!(zero, read("wtime 10000 btime 10000"));
        // Not the last move before the control (which may spend 90% of the clock).
        assert!(
            budget(&zero, Color::Red, ms(30)).hard < budget(&read("wtime 10000 movestogo 1"), Color::Red, ms(30)).hard
        );
    }
}
