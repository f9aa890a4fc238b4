//! The `go` command's arguments: [`parse_go`] reads them into [`Limits`] (with warnings for
//! what it leaves out), and [`GoError`] says why a `go` cannot be obeyed.

use crate::core::Position;
use crate::engine::time::Limits;
use crate::notation::{iccs, ParseMoveError};
use crate::util::text::excerpt;
use std::time::Duration;

/// A `go` command that cannot be obeyed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// A limit keyword (`wtime`, `depth`, ...) without a number after it.
    MissingNumber(String),
    /// A time (`wtime`, `btime`, `winc`, `binc`, `movetime`) or count below zero.
    Negative(String, i64),
    /// A number beyond what the engine reads (the key and the number as given).
    TooLarge(String, String),
}

impl std::fmt::Display for GoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GoError::MissingNumber(key) => write!(f, "go: {key} needs a number"),
            GoError::Negative(key, v) => write!(f, "go: {key} {v} is negative: times are milliseconds from 0"),
            GoError::TooLarge(key, v) if v.starts_with('-') => {
                write!(f, "go: {key} {} is negative: times are milliseconds from 0", excerpt(v))
            }
            GoError::TooLarge(key, v) => write!(f, "go: {key} {} is too large: the most is {}", excerpt(v), i64::MAX),
        }
    }
}

impl std::error::Error for GoError {}

/// A time in milliseconds written with a fraction (`979.5`, `-0.5`): its whole milliseconds,
/// toward zero; `None` for anything else, or beyond what an `i64` holds.
fn decimal_ms(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.')?;
    let digits = whole.strip_prefix('-').unwrap_or(whole);
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| whole.parse::<i64>().ok()).flatten()
}

/// The words of `go` without a value (`searchmoves` takes moves up to the next word of `go`).
const GO_FLAG_WORDS: [&str; 3] = ["infinite", "ponder", "searchmoves"];

/// The words of `go` that take a number after them.
const GO_VALUE_WORDS: [&str; 9] = ["wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate"];

/// Reads the arguments of `go`. Unknown words are reported back as warnings. Times may have a
/// fraction of a millisecond (`wtime 979.5`), dropped. `searchmoves` takes the words up to the
/// next word of `go`: each that is not a legal move is reported (named, with why) and left out,
/// and the rest are read on.
///
/// ```
/// use qiku::engine::uci::parse_go;
/// use qiku::Position;
///
/// let (limits, warnings) = parse_go(&["searchmoves", "h2e2", "x9", "b0c2", "depth", "5"], &Position::startpos())?;
/// assert_eq!(limits.searchmoves.len(), 2);
/// assert_eq!(limits.depth, Some(5));
/// assert_eq!(warnings.len(), 1);
/// assert!(warnings[0].contains("\"x9\""), "{warnings:?}");
/// # Ok::<(), qiku::engine::uci::GoError>(())
/// ```
pub fn parse_go(args: &[&str], pos: &Position) -> Result<(Limits, Vec<String>), GoError> {
    let mut l = Limits::default();
    let mut warnings = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let takes_value = GO_VALUE_WORDS.contains(&key);
        if takes_value {
            // A time with a fraction of a millisecond (`wtime 979.5`, as some GUIs send and UCCI
            // allows): its whole milliseconds, rather than a move at depth 1.
            let is_time = matches!(key, "wtime" | "btime" | "winc" | "binc" | "movetime");
            let fraction = args.get(i + 1).filter(|_| is_time).and_then(|t| decimal_ms(t));
            let v = match (args.get(i + 1).map(|v| (v, v.parse::<i64>())), fraction) {
                (Some((_, Ok(v))), _) | (_, Some(v)) => v,
                (Some((text, Err(e))), None)
                    if matches!(
                        e.kind(),
                        std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
                    ) =>
                {
                    return Err(GoError::TooLarge(key.to_string(), text.to_string()));
                }
                _ => return Err(GoError::MissingNumber(key.to_string())),
            };
            if v < 0 {
                return Err(GoError::Negative(key.to_string(), v));
            }
            let ms = Duration::from_millis(v.max(0) as u64);
            match key {
                "wtime" => l.time[0] = Some(ms),
                "btime" => l.time[1] = Some(ms),
                "winc" => l.inc[0] = Some(ms),
                "binc" => l.inc[1] = Some(ms),
                // 0 moves to go means none is known: sudden death, as when absent.
                "movestogo" => l.movestogo = (v > 0).then(|| v.min(1000) as u32),
                "movetime" => l.movetime = Some(ms),
                "depth" => l.depth = Some(v.clamp(1, 100) as u32),
                "nodes" => l.nodes = Some(v.max(1) as u64),
                _ => l.mate = Some(v.clamp(1, 100) as u32),
            }
            i += 2;
        } else {
            match key {
                "infinite" => l.infinite = true,
                "ponder" => l.ponder = true,
                "searchmoves" => {
                    // Moves up to the next word of `go`; one that cannot be read is named, and
                    // the moves after it are read on.
                    let is_go_word = |t: &str| GO_VALUE_WORDS.contains(&t) || GO_FLAG_WORDS.contains(&t);
                    while let Some(t) = args.get(i + 1).filter(|t| !is_go_word(t)) {
                        // The word quoted short: the errors' own text would quote it whole.
                        let why = match iccs::parse(pos, t) {
                            Ok(m) => {
                                l.searchmoves.push(m);
                                None
                            }
                            Err(ParseMoveError::Syntax { reason, .. }) => Some(format!("not a move ({reason})")),
                            Err(ParseMoveError::NoSuchPiece { .. }) => Some("no such piece in this position".into()),
                            Err(ParseMoveError::Illegal { .. } | ParseMoveError::Ambiguous { .. }) => {
                                Some("not a legal move in this position".into())
                            }
                        };
                        if let Some(why) = why {
                            warnings.push(format!("go searchmoves: ignored {:?}: {why}", excerpt(t)));
                        }
                        i += 1;
                    }
                }
                _ => warnings.push(format!("go: ignored unknown word {:?}", excerpt(key))),
            }
            i += 1;
        }
    }
    Ok((l, warnings))
}
