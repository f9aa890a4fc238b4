//! What one stone makes along one line: the pattern tables.
//!
//! Everything that decides five, four, three... for a stone on a point `p` in one direction lies
//! within five points of `p` on that line (a five containing `p` spans at most `p-4..p+4`, and
//! telling an exact five from an overline needs one more point at each end). So a direction is a
//! *window* of eleven cells centred on `p`, `p` itself the player's stone, each of the other ten
//! empty, own or other (an opponent stone or the edge of the board): 3^10 = 59,049 windows. Each
//! gets a [`LineInfo`], computed once from the definitions in `docs/RENJU.md`; looking a direction
//! up is then ten loads and an index computation.
//!
//! The tables are built in decreasing order of the window index. Placing another own stone in an
//! empty cell adds a power of three to the index, so the window "after one more stone" always
//! has a larger index and is already known: threes are windows where one more stone makes a
//! straight four, twos windows where one more stone makes a three.
//!
//! ```
//! use qiku_renju::line::{index_of, table, FiveRule, Pattern, WINDOW};
//!
//! // `....xXx....`: the stone at the centre (5) with own stones either side, an open three.
//! let mut cells = [0u8; WINDOW];
//! cells[4] = 1;
//! cells[6] = 1;
//! assert_eq!(table(FiveRule::Exact)[index_of(&cells)].pattern, Pattern::OpenThree);
//! cells[2] = 2; // `..o.xXx....`: an `o` two beyond still leaves room for `.xxxx.`
//! assert_eq!(table(FiveRule::Exact)[index_of(&cells)].pattern, Pattern::OpenThree);
//! cells[3] = 2; // `..ooxXx....`: closed on the left, only a three
//! assert_eq!(table(FiveRule::Exact)[index_of(&cells)].pattern, Pattern::Three);
//! ```

use super::{EMPTY, GRID};
use std::sync::OnceLock;

/// Cells in a window; the player's stone is at [`CENTRE`].
pub const WINDOW: usize = 11;
/// Window position of the stone being judged.
pub const CENTRE: usize = 5;
/// Number of windows (3^10).
pub const WINDOWS: usize = 59_049;

/// Which fives count: black under renju rules needs exactly five; white (and black in freestyle)
/// wins with five or more.
///
/// ```
/// use qiku_renju::line::{index_of, table, FiveRule, Pattern, WINDOW};
///
/// // Six in a row, window positions 3 to 8.
/// let mut cells = [0u8; WINDOW];
/// cells[3..9].fill(1);
/// assert_eq!(table(FiveRule::Exact)[index_of(&cells)].pattern, Pattern::Overline);
/// assert_eq!(table(FiveRule::AtLeast)[index_of(&cells)].pattern, Pattern::Five);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FiveRule {
    /// Exactly five; six or more is an overline (black in renju).
    Exact,
    /// Five or more (white in renju).
    AtLeast,
}

/// The strongest shape a stone makes along one line, strongest last.
///
/// ```
/// use qiku_renju::line::Pattern;
///
/// assert!(Pattern::OpenThree < Pattern::Four && Pattern::Four < Pattern::StraightFour);
/// assert_eq!(Pattern::None.max(Pattern::Two), Pattern::Two);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Pattern {
    /// Nothing that can become a five on this line.
    None,
    /// One more stone makes a three.
    Two,
    /// One more stone makes an open three.
    OpenTwo,
    /// One more stone makes a four, but no straight four.
    Three,
    /// One more stone makes a straight four (whether that stone is allowed is for the judge).
    OpenThree,
    /// One four: exactly one point where one more stone makes a five.
    Four,
    /// Four in a row with both ends making a five: `.xxxx.`.
    StraightFour,
    /// Two fours on one line (`x.xxx.x`, `xx.xx.xx`, `xxx.x.xxx`).
    DoubleFour,
    /// Six or more in a row (black under the exact-five rule only).
    Overline,
    /// A five (exactly five for [`FiveRule::Exact`]).
    Five,
}

impl Pattern {
    /// Short name used in outputs: `five`, `straight-four`, `open-three`, ...
    ///
    /// ```
    /// use qiku_renju::line::Pattern;
    ///
    /// assert_eq!(Pattern::StraightFour.name(), "straight-four");
    /// assert_eq!(Pattern::OpenTwo.name(), "open-two");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Pattern::None => "none",
            Pattern::Two => "two",
            Pattern::OpenTwo => "open-two",
            Pattern::Three => "three",
            Pattern::OpenThree => "open-three",
            Pattern::Four => "four",
            Pattern::StraightFour => "straight-four",
            Pattern::DoubleFour => "double-four",
            Pattern::Overline => "overline",
            Pattern::Five => "five",
        }
    }
}

/// What a stone at the window centre makes along the window's line.
///
/// ```
/// use qiku_renju::line::{index_of, table, FiveRule, Pattern, WINDOW};
///
/// // `..xxxX.....`: a straight four, made five at window positions 1 and 6.
/// let mut cells = [0u8; WINDOW];
/// cells[2..5].fill(1);
/// let info = table(FiveRule::Exact)[index_of(&cells)];
/// assert_eq!((info.pattern, info.fours, info.five_mask), (Pattern::StraightFour, 1, 1 << 1 | 1 << 6));
/// // `...xxX.....`: an open three, completed at positions 2 and 6.
/// cells[2] = 0;
/// assert_eq!(table(FiveRule::Exact)[index_of(&cells)].three_mask, 1 << 2 | 1 << 6);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LineInfo {
    /// The strongest shape.
    pub pattern: Pattern,
    /// Number of distinct fours through the centre (a straight four is one four).
    pub fours: u8,
    /// Window positions where one more stone makes a five containing the centre.
    pub five_mask: u16,
    /// For open threes: window positions where one more stone makes a straight four containing
    /// the centre (the points that complete the three).
    pub three_mask: u16,
}

const NOTHING: LineInfo = LineInfo { pattern: Pattern::None, fours: 0, five_mask: 0, three_mask: 0 };

/// Window cell values: empty, own stone, other (opponent or edge).
const E: u8 = 0;
const OWN: u8 = 1;

/// Powers of three by window position (the centre has none).
const POW3: [usize; WINDOW] = [1, 3, 9, 27, 81, 0, 243, 729, 2187, 6561, 19683];

/// Length of the run of own stones through window position `i` (which must be own).
fn run(cells: &[u8; WINDOW], i: usize) -> usize {
    let left = cells[..i].iter().rev().take_while(|&&c| c == OWN).count();
    let right = cells[i + 1..].iter().take_while(|&&c| c == OWN).count();
    left + 1 + right
}

fn is_five(len: usize, rule: FiveRule) -> bool {
    match rule {
        FiveRule::Exact => len == 5,
        FiveRule::AtLeast => len >= 5,
    }
}

fn decode(index: usize) -> [u8; WINDOW] {
    let mut cells = [OWN; WINDOW];
    let mut rest = index;
    for (w, cell) in cells.iter_mut().enumerate() {
        if w != CENTRE {
            *cell = (rest % 3) as u8;
            rest /= 3;
        }
    }
    cells
}

fn analyse(index: usize, table: &[LineInfo], rule: FiveRule) -> LineInfo {
    let mut cells = decode(index);
    let len = run(&cells, CENTRE);
    if is_five(len, rule) {
        return LineInfo { pattern: Pattern::Five, ..NOTHING };
    }
    if len > 5 {
        return LineInfo { pattern: Pattern::Overline, ..NOTHING };
    }
    // Fives one stone away: the empty point's run must reach the centre.
    let mut five_mask = 0u16;
    for q in 0..WINDOW {
        if cells[q] != E {
            continue;
        }
        let (lo, hi) = if q < CENTRE { (q + 1, CENTRE) } else { (CENTRE + 1, q) };
        if !cells[lo..hi].iter().all(|&c| c == OWN) {
            continue;
        }
        cells[q] = OWN;
        if is_five(run(&cells, q), rule) {
            five_mask |= 1 << q;
        }
        cells[q] = E;
    }
    if five_mask != 0 {
        // Two five points five apart with four stones between are the two ends of one straight
        // four; any other pair of five points belongs to two different fours.
        let points = five_mask.count_ones() as u8;
        let straight = (0..WINDOW - 5).any(|q| five_mask & (1 << q) != 0 && five_mask & (1 << (q + 5)) != 0);
        let (pattern, fours) = match (straight, points) {
            (true, _) => (Pattern::StraightFour, points - 1),
            (false, 1) => (Pattern::Four, 1),
            (false, n) => (Pattern::DoubleFour, n),
        };
        return LineInfo { pattern, fours, five_mask, three_mask: 0 };
    }
    let (mut three_mask, mut closed, mut open_two, mut two) = (0u16, false, false, false);
    for r in 0..WINDOW {
        if cells[r] != E {
            continue;
        }
        match table[index + POW3[r]].pattern {
            Pattern::StraightFour => three_mask |= 1 << r,
            Pattern::Four | Pattern::DoubleFour => closed = true,
            Pattern::OpenThree => open_two = true,
            Pattern::Three => two = true,
            _ => {}
        }
    }
    let pattern = if three_mask != 0 {
        Pattern::OpenThree
    } else if closed {
        Pattern::Three
    } else if open_two {
        Pattern::OpenTwo
    } else if two {
        Pattern::Two
    } else {
        Pattern::None
    };
    LineInfo { pattern, fours: 0, five_mask: 0, three_mask }
}

fn build(rule: FiveRule) -> Vec<LineInfo> {
    let mut table = vec![NOTHING; WINDOWS];
    for index in (0..WINDOWS).rev() {
        table[index] = analyse(index, &table, rule);
    }
    table
}

/// The table for a five rule (built on first use: about 15 ms in a release build).
///
/// ```
/// use qiku_renju::line::{table, FiveRule, Pattern, WINDOWS};
///
/// assert_eq!(table(FiveRule::Exact).len(), WINDOWS);
/// // Window 0 is a lone stone between empty cells: nothing yet.
/// assert_eq!(table(FiveRule::AtLeast)[0].pattern, Pattern::None);
/// ```
pub fn table(rule: FiveRule) -> &'static [LineInfo] {
    static EXACT: OnceLock<Vec<LineInfo>> = OnceLock::new();
    static AT_LEAST: OnceLock<Vec<LineInfo>> = OnceLock::new();
    match rule {
        FiveRule::Exact => EXACT.get_or_init(|| build(FiveRule::Exact)),
        FiveRule::AtLeast => AT_LEAST.get_or_init(|| build(FiveRule::AtLeast)),
    }
}

/// Maps padded-grid cells to window values for the player whose stone value is `own`.
pub(crate) fn cell_map(own: u8) -> [u8; 4] {
    let mut map = [2u8; 4];
    map[EMPTY as usize] = 0;
    map[own as usize] = 1;
    map
}

/// Window index of the line through grid cell `centre` along step `dir`.
#[inline]
pub(crate) fn window_index(cells: &[u8; GRID], centre: usize, dir: isize, map: &[u8; 4]) -> usize {
    let mut index = 0;
    for (w, &pow) in POW3.iter().enumerate() {
        if w != CENTRE {
            let cell = (centre as isize + (w as isize - CENTRE as isize) * dir) as usize;
            index += map[cells[cell] as usize] as usize * pow;
        }
    }
    index
}

/// The grid cell at window position `w` of the line through `centre` along `dir`.
#[inline]
pub(crate) fn window_cell(centre: usize, dir: isize, w: usize) -> usize {
    (centre as isize + (w as isize - CENTRE as isize) * dir) as usize
}

/// The window index of explicit cells (own = 1, other = 2, empty = 0; the centre is ignored), for
/// tests and tools.
///
/// ```
/// use qiku_renju::line::{index_of, CENTRE, WINDOW, WINDOWS};
///
/// let mut cells = [0u8; WINDOW];
/// cells[CENTRE] = 2; // ignored
/// assert_eq!(index_of(&cells), 0);
/// cells[0] = 1;
/// cells[WINDOW - 1] = 2;
/// assert_eq!(index_of(&cells), 1 + 2 * 3usize.pow(9)); // base 3, the centre skipped
/// assert_eq!(index_of(&[2; WINDOW]), WINDOWS - 1); // all other: the last window
/// ```
pub fn index_of(cells: &[u8; WINDOW]) -> usize {
    (0..WINDOW).filter(|&w| w != CENTRE).map(|w| cells[w].min(2) as usize * POW3[w]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(s: &str, rule: FiveRule) -> LineInfo {
        // s: 11 chars, 'x' own, 'o' other, '.' empty; centre must be 'x'.
        let mut cells = [0u8; WINDOW];
        for (i, c) in s.chars().enumerate() {
            cells[i] = match c {
                'x' => 1,
                'o' => 2,
                _ => 0,
            };
        }
        table(rule)[index_of(&cells)]
    }

    #[test]
    fn shapes() {
        use Pattern::*;
        let x = FiveRule::Exact;
        assert_eq!(info("...xxxxx...", x).pattern, Five);
        assert_eq!(info("..xxxxxx...", x).pattern, Overline);
        assert_eq!(info("..xxxxxx...", FiveRule::AtLeast).pattern, Five);
        assert_eq!(info("...xxxx....", x).pattern, StraightFour);
        assert_eq!(info("...xxxx....", x).fours, 1);
        assert_eq!(info("..x.xxx.x..", x).pattern, DoubleFour);
        assert_eq!(info("..x.xxx.x..", x).fours, 2);
        assert_eq!(info(".x.xxxx....", x).pattern, Four); // x.xxxx. : the left end would be six
        assert_eq!(info(".oxxxx.....", x).pattern, Four);
        assert_eq!(info("o.xxxx.....", x).pattern, StraightFour); // the edge stone is two away
        assert_eq!(info("....xxx....", x).pattern, OpenThree);
        assert_eq!(info("...oxxx....", x).pattern, Three);
        assert_eq!(info("....xx.....", x).pattern, OpenTwo);
        assert_eq!(info("...oxx.....", x).pattern, Two);
        assert_eq!(info("ooooxoooooo", x).pattern, None);
    }
}
