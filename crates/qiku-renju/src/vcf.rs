//! Threat-space search for a VCF ("victory by continuous fours"): a sequence of fours, each
//! answered by the defender's only move (blocking the five point), ending in a five or in a four
//! the defender cannot block (two five points, or, against black, a five point black is
//! forbidden to take).
//!
//! Only fours are tried, so the tree is narrow. The attacker must first block a five point the
//! defender already has (that block has to be a four too); black never plays a forbidden move;
//! a defender's block that makes a four of his own is answered in the next step by the same rule.
//! Iterative deepening on the number of fours finds the shortest VCF first.

use super::eval::{self, Ruleset};
use super::line::Pattern;
use super::{Board, Point, Stone};
use std::collections::HashSet;
use std::time::Instant;

/// Limits of one VCF search.
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
