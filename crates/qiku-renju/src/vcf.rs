//! Threat-space search for a VCF ("victory by continuous fours"): a sequence of fours, each
//! answered by the defender's only move (blocking the five point), ending in a five or in a four
//! the defender cannot block (two five points, or, against black, a five point black is
//! forbidden to take).
//!
//! Only fours are tried, so the tree is narrow. The attacker must first block a five point the
//! defender already has (that block has to be a four too); black never plays a forbidden move;
//! a defender's block that makes a four of his own is answered in the next step by the same rule.
//! Iterative deepening on the number of fours finds the shortest VCF first.
//!
//! ```
//! use qiku_renju::eval::Ruleset;
//! use qiku_renju::vcf::{find_vcf, VcfLimits};
//! use qiku_renju::{Board, Stone};
//!
//! // White e5 f5 g5 and h6 h7: h5 is a four (black must take i5) and makes h5 h6 h7, so h4 is a
//! // straight four.
//! let board = Board::from_moves("d5 e5 a1 f5 a3 g5 a5 h6 a7 h7 a9")?;
//! let vcf = find_vcf(&board, Stone::White, Ruleset::Renju, VcfLimits::default()).ok_or("no VCF")?;
//! let line: Vec<String> = vcf.line.iter().map(|p| p.to_string()).collect();
//! assert_eq!(line, ["h5", "i5", "h4"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::eval::{self, Ruleset};
use super::line::Pattern;
use super::{Board, Point, Stone};
use std::collections::HashSet;
use std::time::Instant;

/// Limits of one VCF search.
///
/// ```
/// use qiku_renju::eval::Ruleset;
/// use qiku_renju::vcf::{find_vcf, VcfLimits};
/// use qiku_renju::{Board, Stone};
///
/// assert_eq!(VcfLimits::default().max_fours, 12);
/// // White's VCF here takes two fours (h5, then h4): one is not enough.
/// let board = Board::from_moves("d5 e5 a1 f5 a3 g5 a5 h6 a7 h7 a9")?;
/// let limits = |max_fours| VcfLimits { max_fours, ..VcfLimits::default() };
/// let with = |max_fours| find_vcf(&board, Stone::White, Ruleset::Renju, limits(max_fours));
/// assert!(with(1).is_none());
/// assert_eq!(with(2).map(|v| v.line.len()), Some(3));
/// # Ok::<(), qiku_renju::RenjuError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct VcfLimits {
    /// Most fours the attacker may play.
    pub max_fours: u32,
    /// Stop (and report no VCF) after this many positions.
    pub max_nodes: u64,
    /// Stop (and report no VCF) at this time.
    pub deadline: Option<Instant>,
}

impl Default for VcfLimits {
    fn default() -> Self {
        VcfLimits { max_fours: 12, max_nodes: 2_000_000, deadline: None }
    }
}

/// A VCF found: the moves from the attacker's first four to the winning move, defender replies
/// between them.
///
/// ```
/// use qiku_renju::eval::Ruleset;
/// use qiku_renju::vcf::{find_vcf, Vcf, VcfLimits};
/// use qiku_renju::{Board, Stone};
///
/// // White e8 f8 g8 and h5 h6 h7 (black d8 and h4 close one end of each): h8 is a double four.
/// let board = Board::from_moves("d8 e8 h4 f8 a1 g8 a3 h5 a5 h6 a7 h7")?;
/// let Some(Vcf { line, nodes }) = find_vcf(&board, Stone::White, Ruleset::Renju, VcfLimits::default()) else {
///     panic!("no VCF");
/// };
/// assert_eq!(line, ["h8".parse()?]);
/// assert!(nodes >= 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vcf {
    /// Attacker, defender, attacker, ... ending with the attacker's winning move.
    pub line: Vec<Point>,
    /// Positions searched.
    pub nodes: u64,
}

struct Search {
    rules: Ruleset,
    attacker: Stone,
    limits: VcfLimits,
    nodes: u64,
    aborted: bool,
    /// Positions (by stone layout) known to have no VCF within the depth noted.
    failed: HashSet<(Vec<u64>, u32)>,
}

fn key(board: &Board) -> Vec<u64> {
    // 2 bits a point, 32 points a word: the layout is the key (the side to move is implied).
    let mut words = vec![0u64; 8];
    for p in Point::all() {
        let v = match board.stone(p) {
            None => 0,
            Some(Stone::Black) => 1,
            Some(Stone::White) => 2,
        };
        words[p.index() / 32] |= v << (2 * (p.index() % 32));
    }
    words
}

impl Search {
    fn out_of_time(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.limits.max_nodes
            || (self.nodes % 16 == 0 && self.limits.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// The attacker is to move; can he win by fours within `depth` fours? Fills `line` backwards.
    fn attack(&mut self, board: &mut Board, depth: u32, line: &mut Vec<Point>) -> bool {
        if self.out_of_time() {
            return false;
        }
        let (a, d) = (self.attacker, self.attacker.other());
        if let Some(&f) = eval::five_points(board, a, self.rules).first() {
            line.push(f);
            return true;
        }
        if depth == 0 {
            return false;
        }
        let k = (key(board), depth);
        if self.failed.contains(&k) {
            return false;
        }
        let threats = eval::five_points(board, d, self.rules);
        if threats.len() >= 2 {
            return false;
        }
        let candidates: Vec<Point> = if threats.is_empty() { board.empty_points().collect() } else { threats };
        for q in candidates {
            let infos = eval::lines(board, q, a, self.rules);
            if infos.iter().all(|l| l.fours == 0) || infos.iter().any(|l| l.pattern == Pattern::Overline) {
                continue;
            }
            if self.rules.restricted(a) && board.forbidden(q).is_some() {
                continue;
            }
            let targets = eval::four_targets(board, q, &infos);
            board.put(q, a);
            let won = match targets.as_slice() {
                [] => false,
                [f] if self.rules.restricted(d) && board.forbidden(*f).is_some() => {
                    // Black may not block on a forbidden point: white's five follows.
                    true
                }
                [f] => {
                    board.put(*f, d);
                    let won = self.attack(board, depth - 1, line);
                    board.remove(*f);
                    if won {
                        line.push(*f);
                    }
                    won
                }
                [_, ..] => {
                    // Two five points: the defender (who has no five of his own) blocks one.
                    true
                }
            };
            board.remove(q);
            if won {
                line.push(q);
                return true;
            }
            if self.aborted {
                return false;
            }
        }
        self.failed.insert(k);
        false
    }
}

/// Searches a VCF for `attacker`, who is to move. `None` if there is none within the limits.
///
/// ```
/// use qiku_renju::eval::Ruleset;
/// use qiku_renju::vcf::{find_vcf, VcfLimits};
/// use qiku_renju::{Board, Forbidden, Stone};
///
/// // White f9 makes a four (f9-f12) whose five point f8 would be six (c8-h8) for black.
/// let board = Board::from_moves("c8 f10 d8 f11 e8 f12 g8 a1 h8 a3 f13 a5")?;
/// assert_eq!(board.forbidden("f8".parse()?), Some(Forbidden::Overline));
/// let vcf = find_vcf(&board, Stone::White, Ruleset::Renju, VcfLimits::default());
/// assert_eq!(vcf.map(|v| v.line), Some(vec!["f9".parse()?]));
/// // Black's fours (b8, for one) lead nowhere: no VCF for black.
/// assert_eq!(find_vcf(&board, Stone::Black, Ruleset::Renju, VcfLimits::default()), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_vcf(board: &Board, attacker: Stone, rules: Ruleset, limits: VcfLimits) -> Option<Vcf> {
    let mut search = Search { rules, attacker, limits, nodes: 0, aborted: false, failed: HashSet::new() };
    let mut work = board.clone();
    for depth in 1..=limits.max_fours {
        let mut line = Vec::new();
        if search.attack(&mut work, depth, &mut line) {
            line.reverse();
            return Some(Vcf { line, nodes: search.nodes });
        }
        if search.aborted {
            break;
        }
    }
    None
}
