//! A renju player speaking the Gomocup (Piskvork) protocol on a reader and a writer.
//!
//! Commands understood: `START 15`, `RESTART`, `INFO key value` (`rule`, `timeout_turn`,
//! `time_left`; others, `timeout_match` among them, ignored), `BEGIN`, `TURN x,y`, `BOARD` ... `DONE`,
//! `TAKEBACK x,y`, `ABOUT`, `END`. Protocol coordinates are 0-based `x,y` with `x` the column from
//! the left (`0` is `a`) and `y` the row from the *top* (`0` is row 15): `7,7` is `h8`, `0,0` is
//! `a15`, `0,14` is `a1`.
//!
//! The rule is renju (black has forbidden moves, needs an exact five) unless `INFO rule` is given
//! without its renju bit (value 4): then with the exact-five bit (value 1) exactly five wins for
//! both and nothing is forbidden, and without it freestyle is played (five or more wins).
//!
//! Move choice: an own five; else block the opponent's five point; else a VCF found within part of
//! the time for the move; else the point with the best valuation for itself plus the opponent's
//! valuation there (a point black may not take is worth nothing to black). Black never plays a
//! forbidden move unless every empty point is forbidden.
//!
//! ```
//! use qiku_renju::gomocup::run;
//!
//! let mut out = Vec::new();
//! run("START 15\nBEGIN\nEND\nABOUT\n".as_bytes(), &mut out)?;
//! assert_eq!(String::from_utf8_lossy(&out), "OK\n7,7\n"); // h8; nothing after END
//! # Ok::<(), std::io::Error>(())
//! ```

use super::eval::{self, Ruleset};
use super::vcf::{self, VcfLimits};
use super::{Board, Point, Stone, SIZE};
use std::io::{self, BufRead, Read, Write};
use std::time::{Duration, Instant};

/// The protocol `x,y` of a point.
///
/// ```
/// use qiku_renju::gomocup::to_protocol;
/// use qiku_renju::Point;
///
/// assert_eq!(to_protocol(Point::CENTRE), "7,7");
/// assert_eq!(to_protocol("a1".parse()?), "0,14"); // rows count from the top
/// assert_eq!(to_protocol("o15".parse()?), "14,0");
/// # Ok::<(), qiku_renju::PointError>(())
/// ```
pub fn to_protocol(p: Point) -> String {
    format!("{},{}", p.col(), SIZE - 1 - p.row())
}

/// The point of a protocol `x,y`, if on the board: exactly two whole numbers, so that `7,7,1` (a
/// `BOARD` line given to `TURN`) is refused rather than read as `7,7`.
///
/// ```
/// use qiku_renju::gomocup::from_protocol;
/// assert_eq!(from_protocol("7,7").map(|p| p.to_string()), Some("h8".to_string()));
/// assert_eq!(from_protocol("7,7,1"), None);
/// assert_eq!(from_protocol("15,0"), None);
/// ```
pub fn from_protocol(text: &str) -> Option<Point> {
    match text.trim().split(',').collect::<Vec<_>>()[..] {
        [x, y] => point_at(x, y),
        _ => None,
    }
}

/// The point at protocol fields `x` and `y`, if on the board.
fn point_at(x: &str, y: &str) -> Option<Point> {
    let x = x.trim().parse::<usize>().ok()?;
    let y = y.trim().parse::<usize>().ok()?;
    if y >= SIZE {
        return None;
    }
    Point::new(x, SIZE - 1 - y)
}

/// Chooses a move for the side to move within about `budget`. `None` only on a full board.
///
/// ```
/// use qiku_renju::eval::Ruleset;
/// use qiku_renju::gomocup::choose_move;
/// use qiku_renju::{Board, Point};
/// use std::time::Duration;
///
/// let budget = Duration::from_millis(50);
/// assert_eq!(choose_move(&Board::new(), Ruleset::Renju, budget), Some(Point::CENTRE));
/// // Black h8 i8 j8 k8: black completes the five, white blocks (it cannot block both ends).
/// let board = Board::from_moves("h8 a1 i8 a2 j8 a3 k8 a4")?;
/// assert_eq!(choose_move(&board, Ruleset::Renju, budget), Some("g8".parse()?));
/// let board = Board::from_moves("h8 a1 i8 a2 j8 a3 k8")?;
/// assert_eq!(choose_move(&board, Ruleset::Renju, budget), Some("g8".parse()?));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn choose_move(board: &Board, rules: Ruleset, budget: Duration) -> Option<Point> {
    let start = Instant::now();
    let me = board.to_move();
    let opp = me.other();
    if board.stone_count() == 0 {
        return Some(Point::CENTRE);
    }
    let allowed = |p: Point| !rules.restricted(me) || board.forbidden(p).is_none();
    if let Some(&p) = eval::five_points(board, me, rules).first() {
        return Some(p);
    }
    let threats = eval::five_points(board, opp, rules);
    if let Some(&p) = threats.iter().find(|&&p| allowed(p)) {
        return Some(p);
    }
    if threats.is_empty() {
        let limits = VcfLimits { deadline: Some(start + budget / 2), ..VcfLimits::default() };
        if let Some(v) = vcf::find_vcf(board, me, rules, limits) {
            if let Some(&p) = v.line.first() {
                return Some(p);
            }
        }
    }
    let stones: Vec<Point> = Point::all().filter(|&q| board.stone(q).is_some()).collect();
    let near = |p: Point| stones.iter().any(|q| q.col().abs_diff(p.col()) <= 2 && q.row().abs_diff(p.row()) <= 2);
    let mut scored: Vec<(i64, Point)> = Vec::new();
    for p in board.empty_points() {
        if !near(p) || !allowed(p) {
            continue;
        }
        let mine = eval::value_point(board, p, me, rules).value as i64;
        let theirs = eval::value_point(board, p, opp, rules).value as i64;
        // Central points break ties, so that quiet positions still get a sensible move.
        let centre = 14 - (p.col().abs_diff(7) + p.row().abs_diff(7)) as i64;
        scored.push((10 * mine + 9 * theirs + centre, p));
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if let Some(p) = refute_opponent_vcf(board, rules, &scored, start + budget) {
        return Some(p);
    }
    scored
        .first()
        .map(|&(_, p)| p)
        .or_else(|| board.empty_points().find(|&p| allowed(p)))
        .or_else(|| board.empty_points().next())
}

/// If the opponent would have a VCF were it his move, the first of the best-valued candidates
/// (and the points of his VCF line) after which he has none, found before `deadline`.
fn refute_opponent_vcf(board: &Board, rules: Ruleset, scored: &[(i64, Point)], deadline: Instant) -> Option<Point> {
    let me = board.to_move();
    let opp = me.other();
    let now = Instant::now();
    if now >= deadline {
        return None;
    }
    let slice = (deadline - now) / 4;
    let limits = VcfLimits { max_nodes: 20_000, deadline: Some(now + slice), ..VcfLimits::default() };
    let threat = vcf::find_vcf(board, opp, rules, limits)?;
    let mut candidates: Vec<Point> = threat.line.iter().step_by(2).copied().collect();
    candidates.extend(scored.iter().take(10).map(|&(_, p)| p));
    let mut work = board.clone();
    for p in candidates {
        if Instant::now() >= deadline || !work.is_empty(p) {
            continue;
        }
        if rules.restricted(me) && work.forbidden(p).is_some() {
            continue;
        }
        work.put(p, me);
        let limits = VcfLimits { max_nodes: 5_000, deadline: Some(deadline), ..VcfLimits::default() };
        let refuted = vcf::find_vcf(&work, opp, rules, limits).is_none();
        work.remove(p);
        if refuted {
            return Some(p);
        }
    }
    None
}

/// The state of a player between protocol commands.
///
/// ```
/// use qiku_renju::gomocup::Player;
///
/// let mut player = Player::new();
/// assert_eq!(player.command("START 15"), Some(vec!["OK".to_string()]));
/// assert_eq!(player.command("INFO timeout_turn 100"), Some(vec![])); // INFO has no reply
/// let reply = player.command("TURN 7,7").ok_or("no reply")?;
/// assert_eq!(reply.len(), 1); // its move, as x,y
/// assert_eq!(player.command(&format!("TAKEBACK {}", reply[0])), Some(vec!["OK".to_string()]));
/// assert_eq!(player.command("END"), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Player {
    board: Board,
    rules: Ruleset,
    timeout_turn: Duration,
    time_left: Option<Duration>,
}

impl Default for Player {
    fn default() -> Self {
        Player::new()
    }
}

impl Player {
    /// A player before `START`, renju rules, 5 seconds a move.
    ///
    /// ```
    /// use qiku_renju::gomocup::Player;
    ///
    /// // The board is empty: asked to begin, it takes the centre.
    /// assert_eq!(Player::new().command("BEGIN"), Some(vec!["7,7".to_string()]));
    /// ```
    pub fn new() -> Player {
        Player { board: Board::new(), rules: Ruleset::Renju, timeout_turn: Duration::from_secs(5), time_left: None }
    }

    /// The time this move may use: a third of the turn limit, and a tenth of what is left of the
    /// match, with a floor so that the search can at least start.
    fn budget(&self) -> Duration {
        let mut b = self.timeout_turn / 3;
        if let Some(left) = self.time_left {
            b = b.min(left / 10);
        }
        b.max(Duration::from_millis(5))
    }

    fn reply(&mut self) -> String {
        match choose_move(&self.board, self.rules, self.budget()) {
            Some(p) => {
                // Cannot fail: choose_move returns empty points only.
                let _ = self.board.play(p);
                to_protocol(p)
            }
            None => "ERROR the board is full".into(),
        }
    }

    /// Handles one command line; returns the lines to send back (none for `INFO`), or `None` on
    /// `END`. `BOARD` is handled by [`Player::board_command`], since it spans several lines.
    ///
    /// ```
    /// use qiku_renju::gomocup::Player;
    ///
    /// let mut player = Player::new();
    /// let reply = |player: &mut Player, line: &str| player.command(line).map(|lines| lines.join("|"));
    /// assert_eq!(reply(&mut player, "START 20").as_deref(), Some("ERROR unsupported board size \"20\" (only 15)"));
    /// assert_eq!(reply(&mut player, "START 15").as_deref(), Some("OK"));
    /// let bad = reply(&mut player, "TURN 7,x");
    /// assert_eq!(bad.as_deref(), Some("ERROR \"7,x\" is not a point x,y with 0 <= x, y < 15"));
    /// assert_eq!(reply(&mut player, "FOO").as_deref(), Some("UNKNOWN command \"FOO\""));
    /// assert_eq!(reply(&mut player, "end"), None);
    /// ```
    pub fn command(&mut self, line: &str) -> Option<Vec<String>> {
        let line = line.trim();
        let (cmd, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let out = match cmd.to_ascii_uppercase().as_str() {
            "" => vec![],
            "START" => match rest.parse::<usize>() {
                Ok(SIZE) => {
                    self.board = Board::new();
                    vec!["OK".into()]
                }
                _ => vec![format!("ERROR unsupported board size {:?} (only 15)", excerpt(rest))],
            },
            "RESTART" => {
                self.board = Board::new();
                vec!["OK".into()]
            }
            // The protocol asks a player without rectangular boards to answer ERROR.
            "RECTSTART" => vec![format!(
                "ERROR rectangular boards are not supported ({:?}): use START 15, the 15 by 15 board",
                excerpt(rest)
            )],
            "INFO" => {
                self.info(rest);
                vec![]
            }
            "BEGIN" => {
                if self.board.stone_count() != 0 {
                    vec!["ERROR BEGIN on a board with stones".into()]
                } else {
                    vec![self.reply()]
                }
            }
            "TURN" => match from_protocol(rest) {
                Some(p) if self.board.is_empty(p) => {
                    let _ = self.board.play(p);
                    vec![self.reply()]
                }
                Some(p) => vec![format!("ERROR {} ({p}) is already occupied", excerpt(rest))],
                None => vec![format!("ERROR {:?} is not a point x,y with 0 <= x, y < 15", excerpt(rest))],
            },
            "TAKEBACK" => match from_protocol(rest) {
                Some(p) => match self.takeback(p) {
                    Ok(()) => vec!["OK".into()],
                    Err(why) => vec![format!("ERROR cannot take back {:?}: {why}", excerpt(rest))],
                },
                None => {
                    vec![format!("ERROR cannot take back {:?}: not a point x,y with 0 <= x, y < 15", excerpt(rest))]
                }
            },
            "ABOUT" => vec![format!(
                "name=\"qiku-renju\", version=\"{}\", author=\"qiku\", country=\"-\"",
                env!("CARGO_PKG_VERSION")
            )],
            "END" => return None,
            _ => vec![format!("UNKNOWN command {:?}", excerpt(cmd))],
        };
        Some(out)
    }

    fn info(&mut self, rest: &str) {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let value = value.trim();
        let ms = || value.parse::<u64>().ok().map(Duration::from_millis);
        match key.to_ascii_lowercase().as_str() {
            "rule" => {
                if let Ok(r) = value.parse::<u32>() {
                    // Gomocup's bits: 1 exactly five wins, 4 renju (8, caro, is played as the
                    // rest of its bits say: its blocked-five rule is not known here).
                    self.rules = if r & 4 != 0 {
                        Ruleset::Renju
                    } else if r & 1 != 0 {
                        Ruleset::ExactFive
                    } else {
                        Ruleset::Freestyle
                    };
                }
            }
            "timeout_turn" => {
                if let Some(t) = ms() {
                    // 0 means "as fast as possible".
                    self.timeout_turn = t;
                }
            }
            // A manager may report an overrun as a negative time left: no time remains. An
            // unreadable value is ignored, as for `timeout_turn`, and keeps the last limit.
            "time_left" => {
                if let Ok(left) = value.parse::<i64>() {
                    self.time_left = Some(Duration::from_millis(left.max(0).unsigned_abs()));
                }
            }
            _ => {}
        }
    }

    /// Handles `TAKEBACK`: only the last move can be taken back (the last `TURN` or own reply,
    /// or with none since a `BOARD`, a stone of the side that moved last), so that the side to
    /// move, which follows from the stone counts, stays right.
    fn takeback(&mut self, p: Point) -> Result<(), String> {
        let Some(stone) = self.board.stone(p) else { return Err("the point is empty".into()) };
        match self.board.moves().last() {
            Some(&last) if last == p => {
                self.board.undo();
                Ok(())
            }
            Some(&last) => Err(format!("not the last move, which is {}", to_protocol(last))),
            None if stone == self.board.to_move() => {
                let colour = if stone == Stone::Black { "black" } else { "white" };
                Err(format!("a stone of the side to move ({colour}); only the last move can be taken back"))
            }
            None => {
                self.board.remove(p);
                Ok(())
            }
        }
    }

    /// Handles `BOARD`: `lines` are the lines after it up to (not including) `DONE`, each
    /// `x,y,field` with field 1 for own stones and 2 for the opponent's (3, a winning-line mark
    /// of the continuous game, counts as the opponent's). Returns the reply.
    ///
    /// ```
    /// use qiku_renju::gomocup::Player;
    ///
    /// let lines = |text: &str| text.split_whitespace().map(String::from).collect::<Vec<_>>();
    /// let mut player = Player::new();
    /// // Both have a four (own a15-d15, the opponent's h8-k8); four stones each, so we are black.
    /// let board = lines("0,0,1 1,0,1 2,0,1 3,0,1 7,7,2 8,7,2 9,7,2 10,7,2");
    /// assert_eq!(player.board_command(&board), "4,0"); // e15, our five
    /// assert_eq!(player.board_command(&lines("1,1,1 1,1,2")), "ERROR 1,1 (b14) given twice in BOARD");
    /// ```
    pub fn board_command(&mut self, lines: &[String]) -> String {
        let mut own = Vec::new();
        let mut theirs = Vec::new();
        for l in lines {
            let fields: Vec<&str> = l.trim().split(',').collect();
            let parsed = match fields[..] {
                [x, y, field] => point_at(x, y).map(|p| (p, field)),
                _ => None,
            };
            let Some((p, field)) = parsed else {
                return format!("ERROR bad BOARD line {:?} (expected x,y,field with 0 <= x, y < 15)", excerpt(l));
            };
            match field.trim() {
                "1" => own.push(p),
                "2" | "3" => theirs.push(p),
                _ => return format!("ERROR bad BOARD line {:?} (field must be 1, 2 or 3)", excerpt(l)),
            }
        }
        // The side to move is black exactly when both have as many stones.
        let me = if own.len() >= theirs.len() { Stone::Black } else { Stone::White };
        let mut board = Board::new();
        for (points, stone) in [(&own, me), (&theirs, me.other())] {
            for &p in points.iter() {
                if !board.is_empty(p) {
                    return format!("ERROR {} ({p}) given twice in BOARD", to_protocol(p));
                }
                board.put(p, stone);
            }
        }
        // Black moves first: the opponent has as many stones (we are black) or one more (white).
        if board.to_move() != me || !(own.len() == theirs.len() || own.len() + 1 == theirs.len()) {
            return format!(
                "ERROR BOARD has {} own and {} opponent stones: the opponent must have as many or one more",
                own.len(),
                theirs.len()
            );
        }
        self.board = board;
        self.reply()
    }
}

/// The longest command line read, in bytes. A longer line is read to its end without being
/// kept and answered with a short `ERROR`.
pub const MAX_LINE: usize = 64 * 1024;

/// How much of an input line a reply quotes, in characters.
const EXCERPT_CHARS: usize = 80;

/// The first 80 characters of `text`, followed by `...` if there is more: how
/// replies quote input, so that a huge line never comes back whole.
///
/// ```
/// use qiku_renju::gomocup::excerpt;
///
/// assert_eq!(excerpt("TURN 7,7"), "TURN 7,7");
/// let long = "x".repeat(100);
/// assert_eq!(excerpt(&long), format!("{}...", &long[..80]));
/// ```
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// One input line, read with memory bounded by [`MAX_LINE`].
enum Line {
    /// A line that fits (newline and carriage return removed; not UTF-8 is replaced).
    Fits(String),
    /// A longer line, skipped: its first characters.
    TooLong(String),
}

/// Reads the next line, or `None` at the end of input.
fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
    buf.clear();
    let n = r.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    let ended = buf.last() == Some(&b'\n');
    if ended {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    }
    if buf.len() <= MAX_LINE {
        return Ok(Some(Line::Fits(String::from_utf8_lossy(buf).into_owned())));
    }
    let start = excerpt(&String::from_utf8_lossy(&buf[..buf.len().min(4 * EXCERPT_CHARS)]));
    if !ended {
        // Skip the rest of the line without keeping it.
        loop {
            let chunk = r.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            if let Some(i) = chunk.iter().position(|&b| b == b'\n') {
                r.consume(i + 1);
                break;
            }
            let len = chunk.len();
            r.consume(len);
        }
    }
    Ok(Some(Line::TooLong(start)))
}

/// Runs the protocol until `END` or the end of input. Lines longer than [`MAX_LINE`] are
/// answered with `ERROR` and a short excerpt, and skipped.
///
/// ```
/// use qiku_renju::gomocup::{from_protocol, run, MAX_LINE};
///
/// let input = format!("{}\nBOARD\n7,7,2\nDONE\n", "x".repeat(MAX_LINE + 1));
/// let mut out = Vec::new();
/// run(input.as_bytes(), &mut out)?;
/// let out = String::from_utf8_lossy(&out);
/// let replies: Vec<&str> = out.lines().collect();
/// assert!(replies[0].starts_with("ERROR line too long (more than 65536 bytes), ignored: xxx"));
/// assert!(replies[0].ends_with("x..."));
/// assert!(replies.len() == 2 && from_protocol(replies[1]).is_some()); // the BOARD is answered with a move
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn run(mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut player = Player::new();
    let mut buf = Vec::new();
    let too_long = |start: &str| format!("ERROR line too long (more than {MAX_LINE} bytes), ignored: {start}");
    while let Some(line) = read_line(&mut input, &mut buf)? {
        let out = match line {
            Line::TooLong(start) => vec![too_long(&start)],
            Line::Fits(line) if line.trim().eq_ignore_ascii_case("BOARD") => {
                let mut rows = Vec::new();
                let mut error = None;
                while let Some(l) = read_line(&mut input, &mut buf)? {
                    match l {
                        Line::Fits(l) if l.trim().eq_ignore_ascii_case("DONE") => break,
                        Line::Fits(l) if rows.len() < SIZE * SIZE => rows.push(l),
                        Line::Fits(_) => {
                            error = error.or(Some(format!("ERROR BOARD has more than {} lines", SIZE * SIZE)))
                        }
                        Line::TooLong(start) => error = error.or(Some(too_long(&start))),
                    }
                }
                vec![error.unwrap_or_else(|| player.board_command(&rows))]
            }
            Line::Fits(line) => match player.command(&line) {
                Some(out) => out,
                None => return Ok(()),
            },
        };
        for l in out {
            writeln!(output, "{l}")?;
        }
        output.flush()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_keeps_its_last_readable_value() {
        let mut p = Player::new();
        assert_eq!(p.budget(), Duration::from_secs(5) / 3);
        p.command("INFO time_left 10000");
        assert_eq!(p.budget(), Duration::from_secs(1));
        // Unreadable: the match limit stays, as a bad timeout_turn leaves the turn limit.
        p.command("INFO time_left soon");
        assert_eq!(p.budget(), Duration::from_secs(1));
        p.command("INFO timeout_turn later");
        assert_eq!(p.budget(), Duration::from_secs(1));
        // An overrun reported as negative leaves no time: the floor applies.
        p.command("INFO time_left -250");
        assert_eq!(p.budget(), Duration::from_millis(5));
    }
}
