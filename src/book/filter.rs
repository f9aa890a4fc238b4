//! Which games a build reads: [`GameFilter`] by player, event, date range and ECCO code, and the
//! reading of the free-form `Date` tags of real collections into a [`GameDate`].
//!
//! Filters are applied to a game's tags before it is replayed; a game they exclude is counted in
//! the build report under its [`SkipReason`](super::SkipReason) and contributes nothing. They are
//! not stored in the book (books built with different filters can be merged, like books of
//! different inputs).

use std::fmt;

/// A date as far as a `Date` tag gives it: the year, and the month and day when known.
///
/// ```
/// use qiku::book::GameDate;
///
/// let date = GameDate { year: 1995, month: Some(3), day: None };
/// assert_eq!(date.to_string(), "1995.03.??"); // the day is not known
/// assert_eq!(GameDate::parse("1995年3月"), Some(date));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameDate {
    /// The year (1000..=2999).
    pub year: u16,
    /// The month (1..=12), if known.
    pub month: Option<u8>,
    /// The day (1..=31), if known (only with a month).
    pub day: Option<u8>,
}

impl GameDate {
    /// The sort key `yyyymmdd`, unknown parts as `00` (so `2003` sorts before `2003.01.01`); 0 is
    /// kept for "no date".
    ///
    /// ```
    /// use qiku::book::GameDate;
    ///
    /// let day = GameDate { year: 2003, month: Some(5), day: Some(12) };
    /// assert_eq!(day.key(), 20030512);
    /// let year = GameDate { year: 2003, month: None, day: None };
    /// assert_eq!(year.key(), 20030000);
    /// assert!(year.key() < day.key());
    /// ```
    pub fn key(self) -> u32 {
        u32::from(self.year) * 10_000 + u32::from(self.month.unwrap_or(0)) * 100 + u32::from(self.day.unwrap_or(0))
    }

    /// The largest key inside this date's period: a date known to its year or month covers the
    /// whole year or month, from [`GameDate::key`] to this (unknown parts as 99).
    fn last_key(self) -> u32 {
        u32::from(self.year) * 10_000 + u32::from(self.month.unwrap_or(99)) * 100 + u32::from(self.day.unwrap_or(99))
    }

    /// The date of a sort key made by [`GameDate::key`]; `None` for 0 or a key no date makes.
    ///
    /// ```
    /// use qiku::book::GameDate;
    ///
    /// let date = GameDate::from_key(20030512).ok_or("no date")?;
    /// assert_eq!(date.to_string(), "2003.05.12");
    /// assert_eq!(GameDate::from_key(date.key()), Some(date));
    /// assert_eq!(GameDate::from_key(20030230), None); // no 30 February
    /// assert_eq!(GameDate::from_key(0), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_key(key: u32) -> Option<GameDate> {
        let (year, month, day) = (key / 10_000, key / 100 % 100, key % 100);
        let d = GameDate::new(year, month, day)?;
        (d.key() == key).then_some(d)
    }

    /// A date from its parts (0 for an unknown month or day); `None` if a part is out of range
    /// (a day past its month's end too: `2003-02-30`, `2003-02-29`).
    fn new(year: u32, month: u32, day: u32) -> Option<GameDate> {
        if !(1000..=2999).contains(&year) || month > 12 || (month == 0 && day != 0) || !day_fits(year, month, day) {
            return None;
        }
        Some(GameDate {
            year: year as u16,
            month: (month > 0).then_some(month as u8),
            day: (day > 0).then_some(day as u8),
        })
    }

    /// Reads a `Date` tag as real collections write it: `2003.05.12`, `2003-5-12`, `20030512`,
    /// `2003年5月12日`, `2003/5/12 14:30`, `2003.05`, `2003` (full-width digits too), and, with the
    /// year last, `5/12/2003` or `12-5-2003` (month first unless the first number cannot be a
    /// month). Text after the date (a time, `上午`) is ignored. `None` when no four-digit year can
    /// be found at either end (`03.05.12`, `5月12日`, `??`): such a game has no date.
    ///
    /// ```
    /// use qiku::book::GameDate;
    ///
    /// let show = |tag: &str| GameDate::parse(tag).map(|d| d.to_string());
    /// assert_eq!(show("2003年5月12日").as_deref(), Some("2003.05.12"));
    /// assert_eq!(show("5/12/2003").as_deref(), Some("2003.05.12"));
    /// assert_eq!(show("2003.02.30").as_deref(), Some("2003.02.??")); // the day does not fit
    /// assert_eq!(show("03.05.12"), None); // no four-digit year
    /// ```
    pub fn parse(tag: &str) -> Option<GameDate> {
        let text: String = tag
            .chars()
            .map(|c| match c {
                '０'..='９' => char::from(b'0' + (c as u32 - '０' as u32) as u8),
                _ => c,
            })
            .collect();
        let groups: Vec<&str> = text.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).collect();
        let num = |g: &str| g.parse::<u32>().ok();
        let first = *groups.first()?;
        if first.len() == 8 {
            let n = num(first)?;
            // As below, a month or day that does not fit leaves what came before it.
            let (month, day) = (n / 100 % 100, n % 100);
            let month = if (1..=12).contains(&month) { month } else { 0 };
            let day = if month > 0 && day_fits(n / 10_000, month, day) { day } else { 0 };
            return GameDate::new(n / 10_000, month, day);
        }
        if first.len() == 4 {
            let year = num(first)?;
            // A month or day that does not fit leaves what came before it.
            let month = groups.get(1).and_then(|g| num(g)).filter(|m| (1..=12).contains(m));
            let day = month
                .and(groups.get(2).and_then(|g| num(g)))
                .filter(|&d| d > 0 && month.is_some_and(|m| day_fits(year, m, d)));
            return GameDate::new(year, month.unwrap_or(0), day.unwrap_or(0));
        }
        // Year last: M/D/YYYY or D-M-YYYY.
        if let [a, b, y] = groups.get(..3)? {
            if y.len() == 4 && a.len() <= 2 && b.len() <= 2 {
                let (a, b, y) = (num(a)?, num(b)?, num(y)?);
                let (month, day) = if a > 12 && b <= 12 { (b, a) } else { (a, b) };
                if (1..=12).contains(&month) && day > 0 && day_fits(y, month, day) {
                    return GameDate::new(y, month, day);
                }
                return GameDate::new(y, 0, 0);
            }
        }
        None
    }
}

/// Whether `day` (0: unknown) is a day of `month` (1..=12) of `year` in the Gregorian calendar.
fn day_fits(year: u32, month: u32, day: u32) -> bool {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let last = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    day <= last
}

impl fmt::Display for GameDate {
    /// PGN style: `2003.05.12`, `2003.05.??`, `2003.??.??`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = |p: Option<u8>| p.map_or_else(|| "??".to_string(), |v| format!("{v:02}"));
        write!(f, "{}.{}.{}", self.year, part(self.month), part(self.day))
    }
}

/// One end of a `--since`/`--until` range: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (`.` or `/` also
/// separate). A partial date covers its whole year or month.
///
/// ```
/// use qiku::book::filter::GameTags;
/// use qiku::book::{DateBound, GameFilter};
///
/// let until: DateBound = "2003-05".parse()?;
/// assert_eq!(until, "2003/5".parse()?); // "." or "/" separate too
/// let filter = GameFilter { until: Some(until), ..GameFilter::default() };
/// assert_eq!(filter.check(&GameTags { date: "2003.05.31", ..GameTags::default() }), None); // all of May
/// let err = "2003-13".parse::<DateBound>().unwrap_err();
/// assert!(err.to_string().starts_with("date \"2003-13\" is not YYYY, YYYY-MM or YYYY-MM-DD of a real day"));
/// # Ok::<(), qiku::book::FilterError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateBound(GameDate);

impl std::str::FromStr for DateBound {
    type Err = FilterError;
    fn from_str(s: &str) -> Result<Self, FilterError> {
        let bad = || FilterError::Date(s.to_string());
        let parts: Vec<&str> = s.trim().split(['-', '.', '/']).collect();
        if parts.is_empty()
            || parts.len() > 3
            || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(bad());
        }
        if parts[0].len() != 4 || parts[1..].iter().any(|p| p.len() > 2) {
            return Err(bad());
        }
        let n = |i: usize| parts.get(i).map(|p| p.parse::<u32>().unwrap_or(0));
        let d = GameDate::new(n(0).unwrap_or(0), n(1).unwrap_or(0), n(2).unwrap_or(0)).ok_or_else(bad)?;
        if n(1) == Some(0) || n(2) == Some(0) {
            return Err(bad());
        }
        Ok(DateBound(d))
    }
}

/// An ECCO code, `A00` to `E99`, as a number `0..500`.
///
/// ```
/// use qiku::book::Ecco;
///
/// let code = Ecco::parse("b12").ok_or("not a code")?;
/// assert_eq!(code.to_string(), "B12");
/// assert!(code > Ecco::parse("A99").ok_or("not a code")?); // codes sort A00 to E99
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ecco(u16);

impl Ecco {
    /// Reads `A00`..`E99` (any case, surrounding spaces ignored).
    ///
    /// ```
    /// use qiku::book::Ecco;
    ///
    /// let code = Ecco::parse(" c45 ").ok_or("not a code")?;
    /// assert_eq!(code.to_string(), "C45");
    /// assert!(code < Ecco::parse("D00").ok_or("not a code")?);
    /// assert_eq!(Ecco::parse("F00"), None);
    /// assert_eq!(Ecco::parse("C4"), None); // a prefix is a range, not a code
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(s: &str) -> Option<Ecco> {
        let b = s.trim().as_bytes();
        match b {
            [l @ (b'A'..=b'E' | b'a'..=b'e'), d1 @ b'0'..=b'9', d2 @ b'0'..=b'9'] => Some(Ecco(
                u16::from(l.to_ascii_uppercase() - b'A') * 100 + u16::from(d1 - b'0') * 10 + u16::from(d2 - b'0'),
            )),
            _ => None,
        }
    }
}

impl fmt::Display for Ecco {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:02}", char::from(b'A' + (self.0 / 100) as u8), self.0 % 100)
    }
}

/// A range of ECCO codes: `C45`, `C4` (`C40`-`C49`), `C` (`C00`-`C99`) or `A00-C99`.
///
/// ```
/// use qiku::book::EccoRange;
///
/// let range: EccoRange = "B-C2".parse()?;
/// assert_eq!((range.first.to_string(), range.last.to_string()), ("B00".to_string(), "C29".to_string()));
/// let err = "C99-A00".parse::<EccoRange>().unwrap_err();
/// assert_eq!(err.to_string(), "ECCO range \"C99-A00\" runs backwards: write it A00-C99");
/// # Ok::<(), qiku::book::FilterError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EccoRange {
    /// The first code in the range.
    pub first: Ecco,
    /// The last code in the range (inclusive).
    pub last: Ecco,
}

impl EccoRange {
    /// Whether `code` is in the range.
    ///
    /// ```
    /// use qiku::book::{Ecco, EccoRange};
    ///
    /// let range: EccoRange = "C4".parse()?; // C40 to C49
    /// assert!(range.contains(Ecco::parse("C45").ok_or("not a code")?));
    /// assert!(!range.contains(Ecco::parse("C50").ok_or("not a code")?));
    /// let span: EccoRange = "A00-B".parse()?;
    /// assert!(span.contains(Ecco::parse("B99").ok_or("not a code")?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains(&self, code: Ecco) -> bool {
        (self.first..=self.last).contains(&code)
    }
}

impl std::str::FromStr for EccoRange {
    type Err = FilterError;
    fn from_str(s: &str) -> Result<Self, FilterError> {
        let bad = || FilterError::Ecco(s.to_string());
        // One end, possibly a prefix: its first and last code.
        let end = |t: &str| -> Option<(Ecco, Ecco)> {
            let t = t.trim();
            match t.len() {
                3 => Ecco::parse(t).map(|e| (e, e)),
                2 => Some((Ecco::parse(&format!("{t}0"))?, Ecco::parse(&format!("{t}9"))?)),
                1 => Some((Ecco::parse(&format!("{t}00"))?, Ecco::parse(&format!("{t}99"))?)),
                _ => None,
            }
        };
        let (first, last) = match s.split_once('-') {
            Some((a, b)) => {
                let (first, last) = (end(a).ok_or_else(bad)?.0, end(b).ok_or_else(bad)?.1);
                if first > last {
                    return Err(FilterError::ReversedEcco(a.trim().to_string(), b.trim().to_string()));
                }
                (first, last)
            }
            None => end(s).ok_or_else(bad)?,
        };
        if first > last {
            return Err(bad());
        }
        Ok(EccoRange { first, last })
    }
}

/// A filter value that cannot be read; the message names it and says what is expected.
///
/// ```
/// use qiku::book::{EccoRange, FilterError};
///
/// let err = "Z12".parse::<EccoRange>().unwrap_err();
/// assert_eq!(err, FilterError::Ecco("Z12".into()));
/// let text = "ECCO \"Z12\" is not a code A00-E99, a prefix (C, C4) or a range of them (A00-C99, B-C)";
/// assert_eq!(err.to_string(), text);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterError {
    /// A `--since`/`--until` value.
    Date(String),
    /// An `--ecco` value.
    Ecco(String),
    /// `--since` later than `--until`.
    EmptyDates(String, String),
    /// An `--ecco` range whose ends are the wrong way round (`C99-A00`).
    ReversedEcco(String, String),
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::Date(v) => {
                write!(f, "date {v:?} is not YYYY, YYYY-MM or YYYY-MM-DD of a real day (e.g. 1995 or 2003-05-12)")
            }
            FilterError::Ecco(v) => {
                write!(f, "ECCO {v:?} is not a code A00-E99, a prefix (C, C4) or a range of them (A00-C99, B-C)")
            }
            FilterError::EmptyDates(a, b) => write!(f, "--since {a} is after --until {b}: no game could match"),
            FilterError::ReversedEcco(a, b) => {
                write!(f, "ECCO range \"{a}-{b}\" runs backwards: write it {b}-{a}")
            }
        }
    }
}

impl std::error::Error for FilterError {}

/// Which games a build reads. The default reads every game. Text matches are substrings of the
/// tag (ASCII letters in any case); several filters must all match.
///
/// ```
/// use qiku::book::filter::GameTags;
/// use qiku::book::{FilterMiss, GameFilter};
///
/// let filter = GameFilter { red: Some("hu".into()), ecco: Some("C".parse()?), ..GameFilter::default() };
/// let tags = GameTags { red: "Hu Ronghua", black: "Lu Qin", ecco: "C45", ..GameTags::default() };
/// assert_eq!(filter.check(&tags), None); // "hu" in any case; C45 is in C00-C99
/// let swapped = GameTags { red: "Lu Qin", black: "Hu Ronghua", ..tags };
/// assert_eq!(filter.check(&swapped), Some(FilterMiss::Player)); // Hu played black
/// # Ok::<(), qiku::book::FilterError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameFilter {
    /// A player on either side (the `Red` or `Black` tag contains it).
    pub player: Option<String>,
    /// The `Red` tag contains it.
    pub red: Option<String>,
    /// The `Black` tag contains it.
    pub black: Option<String>,
    /// The `Event` tag contains it.
    pub event: Option<String>,
    /// Games dated in or after this period (games without a readable date are excluded).
    pub since: Option<DateBound>,
    /// Games dated in or before this period (games without a readable date are excluded).
    pub until: Option<DateBound>,
    /// Games whose `ECCO` tag is in this range (games without one are excluded).
    pub ecco: Option<EccoRange>,
}

/// Why a filter excluded a game.
///
/// ```
/// use qiku::book::filter::GameTags;
/// use qiku::book::{FilterMiss, GameFilter};
///
/// let filter = GameFilter { event: Some("Cup".into()), since: Some("2000".parse()?), ..GameFilter::default() };
/// // Both filters fail: the first in this order is reported.
/// let league = GameTags { event: "League", date: "1999", ..GameTags::default() };
/// assert_eq!(filter.check(&league), Some(FilterMiss::Event));
/// assert_eq!(filter.check(&GameTags { event: "World Cup", ..GameTags::default() }), Some(FilterMiss::NoDate));
/// # Ok::<(), qiku::book::FilterError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FilterMiss {
    /// `--player`, `--red` or `--black`.
    Player,
    /// `--event`.
    Event,
    /// `--since`/`--until`: the date is outside the range.
    Date,
    /// `--since`/`--until`: the game has no readable date.
    NoDate,
    /// `--ecco`: another code, or none.
    Ecco,
}

/// The tags a filter looks at (absent tags are empty).
///
/// ```
/// use qiku::book::filter::GameTags;
/// use qiku::book::{FilterMiss, GameFilter};
///
/// let filter = GameFilter { event: Some("全国".into()), ..GameFilter::default() };
/// // An absent tag is empty, and matches no text.
/// assert_eq!(filter.check(&GameTags::default()), Some(FilterMiss::Event));
/// assert_eq!(filter.check(&GameTags { event: "2003年全国象棋个人赛", ..GameTags::default() }), None);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GameTags<'a> {
    /// `Red`.
    pub red: &'a str,
    /// `Black`.
    pub black: &'a str,
    /// `Event`.
    pub event: &'a str,
    /// `Date`.
    pub date: &'a str,
    /// `ECCO`.
    pub ecco: &'a str,
}

fn contains(hay: &str, needle: &str) -> bool {
    if needle.is_ascii() {
        hay.to_ascii_lowercase().contains(&needle.to_ascii_lowercase())
    } else {
        hay.contains(needle)
    }
}

impl GameFilter {
    /// Whether the filter reads every game.
    ///
    /// ```
    /// use qiku::book::GameFilter;
    ///
    /// assert!(GameFilter::default().is_empty());
    /// let filter = GameFilter { event: Some("全国".into()), ..GameFilter::default() };
    /// assert!(!filter.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == GameFilter::default()
    }

    /// Checks the values together (`--since` not after `--until`).
    ///
    /// ```
    /// use qiku::book::{FilterError, GameFilter};
    ///
    /// let dates = |since: &str, until: &str| -> Result<GameFilter, FilterError> {
    ///     Ok(GameFilter { since: Some(since.parse()?), until: Some(until.parse()?), ..GameFilter::default() })
    /// };
    /// assert_eq!(dates("2003-05", "2003")?.validate(), Ok(()));
    /// let err = dates("2004", "2003-12")?.validate().unwrap_err();
    /// assert_eq!(err, FilterError::EmptyDates("2004.??.??".into(), "2003.12.??".into()));
    /// # Ok::<(), FilterError>(())
    /// ```
    pub fn validate(&self) -> Result<(), FilterError> {
        if let (Some(s), Some(u)) = (self.since, self.until) {
            if s.0.key() > u.0.last_key() {
                return Err(FilterError::EmptyDates(s.0.to_string(), u.0.to_string()));
            }
        }
        Ok(())
    }

    /// `None` if the game passes, else the first filter (in the order of [`FilterMiss`]) it fails.
    ///
    /// ```
    /// use qiku::book::filter::GameTags;
    /// use qiku::book::{FilterMiss, GameFilter};
    ///
    /// let tags =
    ///     GameTags { red: "Hu Ronghua", black: "Lu Qin", date: "1995.3.4", ecco: "C45", ..GameTags::default() };
    /// let player = GameFilter { player: Some("lu qin".into()), ..GameFilter::default() };
    /// assert_eq!(player.check(&tags), None);
    /// let since = GameFilter { since: Some("1996".parse()?), ..player.clone() };
    /// assert_eq!(since.check(&tags), Some(FilterMiss::Date));
    /// assert_eq!(since.check(&GameTags { date: "", ..tags }), Some(FilterMiss::NoDate));
    /// let ecco = GameFilter { ecco: Some("D".parse()?), ..GameFilter::default() };
    /// assert_eq!(ecco.check(&tags), Some(FilterMiss::Ecco));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check(&self, tags: &GameTags<'_>) -> Option<FilterMiss> {
        let has = |v: &Option<String>, hay: &str| v.as_deref().is_none_or(|n| contains(hay, n.trim()));
        let player_ok =
            self.player.as_deref().is_none_or(|n| contains(tags.red, n.trim()) || contains(tags.black, n.trim()));
        if !player_ok || !has(&self.red, tags.red) || !has(&self.black, tags.black) {
            return Some(FilterMiss::Player);
        }
        if !has(&self.event, tags.event) {
            return Some(FilterMiss::Event);
        }
        if self.since.is_some() || self.until.is_some() {
            let Some(d) = GameDate::parse(tags.date) else {
                return Some(FilterMiss::NoDate);
            };
            // Both are periods (a game dated `2003` is somewhere in 2003): a game is left out
            // when its period is wholly outside the range, kept when it may be inside.
            if self.since.is_some_and(|s| d.last_key() < s.0.key())
                || self.until.is_some_and(|u| d.key() > u.0.last_key())
            {
                return Some(FilterMiss::Date);
            }
        }
        if let Some(range) = &self.ecco {
            if !Ecco::parse(tags.ecco).is_some_and(|c| range.contains(c)) {
                return Some(FilterMiss::Ecco);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<String> {
        GameDate::parse(s).map(|d| d.to_string())
    }

    #[test]
    fn dates_of_real_collections() {
        assert_eq!(d("2003.05.12").as_deref(), Some("2003.05.12"));
        assert_eq!(d("2003-5-2").as_deref(), Some("2003.05.02"));
        assert_eq!(d("20030512").as_deref(), Some("2003.05.12"));
        assert_eq!(d("20030512-10：30").as_deref(), Some("2003.05.12"));
        assert_eq!(d("19619131").as_deref(), Some("1961.??.??"));
        assert_eq!(d("0000-00-00"), None);
        assert_eq!(d("2003年5月12日上午").as_deref(), Some("2003.05.12"));
        assert_eq!(d("２００１年").as_deref(), Some("2001.??.??"));
        assert_eq!(d("2003.05").as_deref(), Some("2003.05.??"));
        assert_eq!(d("2003-13-01").as_deref(), Some("2003.??.??"));
        assert_eq!(d("4/17/1996").as_deref(), Some("1996.04.17"));
        assert_eq!(d("17-4-1996").as_deref(), Some("1996.04.17"));
        assert_eq!(d("2003-05-12 14:30").as_deref(), Some("2003.05.12"));
        // A day past its month's end is no day (the month stays); leap years counted.
        assert_eq!(d("2003.02.30").as_deref(), Some("2003.02.??"));
        assert_eq!(d("20030229").as_deref(), Some("2003.02.??"));
        assert_eq!(d("2004.02.29").as_deref(), Some("2004.02.29"));
        assert_eq!(d("1900.02.29").as_deref(), Some("1900.02.??"));
        assert_eq!(d("2000.02.29").as_deref(), Some("2000.02.29"));
        assert_eq!(d("4/31/1996").as_deref(), Some("1996.??.??"));
        for none in ["", "  ", "03.05.12", "5月12日", "&nbsp;", "日弈", "999999"] {
            assert_eq!(d(none), None, "{none}");
        }
        let k = GameDate::parse("2003.05.12").unwrap().key();
        assert_eq!(k, 20030512);
        assert_eq!(GameDate::from_key(k).unwrap().to_string(), "2003.05.12");
        assert_eq!(GameDate::from_key(0), None);
        assert_eq!(GameDate::from_key(20031300), None);
    }

    #[test]
    fn bounds_and_ecco_ranges() {
        let b: DateBound = "2003-05".parse().unwrap();
        assert_eq!((b.0.key(), b.0.last_key()), (20030500, 20030599));
        for bad in
            ["03", "2003-13", "2003-00", "20030512", "x", "2003-5-40", "2003-02-30", "2003-02-29", "2003-04-31", ""]
        {
            assert_eq!(bad.parse::<DateBound>(), Err(FilterError::Date(bad.into())), "{bad}");
        }
        let r: EccoRange = "A00-C99".parse().unwrap();
        assert!(r.contains(Ecco::parse("B31").unwrap()) && !r.contains(Ecco::parse("D00").unwrap()));
        let r: EccoRange = "c4".parse().unwrap();
        assert_eq!((r.first.to_string(), r.last.to_string()), ("C40".into(), "C49".into()));
        for bad in ["F00", "C100", "C99-A00", "", "A0-"] {
            assert!(bad.parse::<EccoRange>().is_err(), "{bad}");
        }
        assert!(FilterError::Ecco("F00".into()).to_string().contains("\"F00\""));
    }

    #[test]
    fn checks() {
        let tags =
            GameTags { red: "上海胡榮華", black: "Lu Qin", event: "全國賽", date: "1995.3.4", ecco: "C45" };
        let f = |g: GameFilter| g.check(&tags);
        assert_eq!(f(GameFilter::default()), None);
        assert_eq!(f(GameFilter { player: Some("胡榮華".into()), ..Default::default() }), None);
        assert_eq!(f(GameFilter { player: Some("lu qin".into()), ..Default::default() }), None);
        assert_eq!(f(GameFilter { red: Some("Lu".into()), ..Default::default() }), Some(FilterMiss::Player));
        assert_eq!(f(GameFilter { event: Some("全國".into()), ..Default::default() }), None);
        assert_eq!(
            f(GameFilter { since: Some("1995-04".parse().unwrap()), ..Default::default() }),
            Some(FilterMiss::Date)
        );
        assert_eq!(f(GameFilter { until: Some("1995".parse().unwrap()), ..Default::default() }), None);
        // A game dated to its year or month may be anywhere in it: kept by a range that meets
        // it, from either end (a year's game was kept by --until in it, and left out by --since).
        let year = GameTags { date: "2003", ..tags };
        let month = GameTags { date: "2003.05", ..tags };
        let range = |since: &str, until: &str| GameFilter {
            since: (!since.is_empty()).then(|| since.parse().unwrap()),
            until: (!until.is_empty()).then(|| until.parse().unwrap()),
            ..Default::default()
        };
        for (since, until) in [("2003-05", ""), ("", "2003-04"), ("2003-05-12", "2003-05-12"), ("2003-12-31", "")] {
            assert_eq!(range(since, until).check(&year), None, "2003 in {since}..{until}");
        }
        assert_eq!(range("2003-05-12", "2003-05-12").check(&month), None);
        assert_eq!(range("", "2003-04-30").check(&month), Some(FilterMiss::Date));
        assert_eq!(range("2003-06", "").check(&month), Some(FilterMiss::Date));
        assert_eq!(range("2004", "").check(&year), Some(FilterMiss::Date));
        assert_eq!(range("", "2002-12-31").check(&year), Some(FilterMiss::Date));
        assert_eq!(f(GameFilter { ecco: Some("D".parse().unwrap()), ..Default::default() }), Some(FilterMiss::Ecco));
        let undated = GameTags { date: "", ..tags };
        let since = GameFilter { since: Some("1990".parse().unwrap()), ..Default::default() };
        assert_eq!(since.check(&undated), Some(FilterMiss::NoDate));
        let both = GameFilter {
            since: Some("2000".parse().unwrap()),
            until: Some("1999".parse().unwrap()),
            ..Default::default()
        };
        assert!(both.validate().is_err());
    }
}
