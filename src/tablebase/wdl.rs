//! WDL files (`.qtw`, metric 3): the win, draw or loss of every entry of a table in 2 bits, so
//! that an engine's probes inside its search touch files about a fifth the size of the DTM
//! files (`docs/TABLEBASES.md` has the figures). Same index, header and block machinery as the
//! `.qtb` ([`super::format`]); the layout is in `docs/FORMAT.md`.
//!
//! One file serves both repetition rules. The Asian rules change only draws (a defender that can
//! only hold by checking forever loses), so an entry is one of: won, lost (under both rules),
//! drawn under both, or drawn without the rule and decided by it. That fourth case gets code
//! [`RULE`]: a plain probe reads it as a draw, an Asian probe looks the entry up in the `.qtr`
//! companion (rare: 64 million of the 2.27 billion entries of the 5-piece set, in 32 tables).
//!
//! Illegal entries are never probed; they take a legal code chosen to compress well
//! ([`Fill`]). The check of a whole file against both value sets is in the generating build
//! (`verify_wdl`).

//! ```
//! use qiku::tablebase::format::{code, DRAW};
//! use qiku::tablebase::wdl::{code_of, wdl_of, LOSS, RULE, WIN};
//! use qiku::tablebase::Wdl;
//!
//! // A win in 7 plies is WIN whatever the rules; a plain draw that the Asian rules decide is RULE.
//! assert_eq!(code_of(code(7), code(7)), Some(WIN));
//! assert_eq!(code_of(code(4), code(4)), Some(LOSS));
//! assert_eq!(code_of(DRAW, code(9)), Some(RULE));
//! // RULE reads as a draw without the rules; under them the `.qtr` companion decides.
//! assert_eq!(wdl_of(RULE, false), Some(Wdl::Draw));
//! assert_eq!(wdl_of(RULE, true), None);
//! assert_eq!(wdl_of(WIN, true), Some(Wdl::Win));
//! ```

use super::value::{dtm_of, Wdl, DRAW as DTM_DRAW, ILLEGAL};
use rayon::prelude::*;

/// Drawn under both rules.
pub const DRAW: u8 = 0;
/// Won by the side to move.
pub const WIN: u8 = 1;
/// Lost by the side to move.
pub const LOSS: u8 = 2;
/// Drawn without repetition rules, decided by the Asian rules (see the `.qtr` companion).
pub const RULE: u8 = 3;

/// The code of a legal entry from its plain (`.qtb`) code and its Asian-rules code; `None` for
/// an illegal entry.
///
/// ```
/// use qiku::tablebase::format::{code, DRAW, ILLEGAL};
/// use qiku::tablebase::wdl::{self, code_of};
///
/// assert_eq!(code_of(code(2), code(2)), Some(wdl::LOSS));
/// assert_eq!(code_of(DRAW, DRAW), Some(wdl::DRAW)); // drawn under both rules
/// assert_eq!(code_of(ILLEGAL, ILLEGAL), None);
/// ```
#[inline]
pub fn code_of(plain: u16, rule: u16) -> Option<u8> {
    if plain == ILLEGAL {
        return None;
    }
    Some(match dtm_of(plain) {
        Some(d) if d % 2 == 1 => WIN,
        Some(_) => LOSS,
        None if rule != DTM_DRAW => RULE,
        None => DRAW,
    })
}

/// The result a code means under the rules: `None` when the Asian rules need the companion
/// ([`RULE`] under [`super::Rules::Asian`]).
///
/// ```
/// use qiku::tablebase::wdl::{wdl_of, LOSS, RULE};
/// use qiku::tablebase::Wdl;
///
/// assert_eq!(wdl_of(LOSS, true), Some(Wdl::Loss));
/// assert_eq!(wdl_of(RULE, false), Some(Wdl::Draw)); // a draw without the rules
/// assert_eq!(wdl_of(RULE, true), None); // under them, ask the `.qtr` companion
/// ```
#[inline]
pub fn wdl_of(code: u8, asian: bool) -> Option<Wdl> {
    match code & 3 {
        WIN => Some(Wdl::Win),
        LOSS => Some(Wdl::Loss),
        RULE if asian => None,
        _ => Some(Wdl::Draw),
    }
}

/// What an illegal entry stores.
///
/// ```
/// use qiku::tablebase::format::{code, ILLEGAL};
/// use qiku::tablebase::wdl::{self, codes, Fill};
///
/// // Lost, won, an illegal entry, lost.
/// let plain = [code(2), code(3), ILLEGAL, code(4)];
/// assert_eq!(codes(&plain, &plain, Fill::Previous), [wdl::LOSS, wdl::WIN, wdl::WIN, wdl::LOSS]);
/// assert_eq!(codes(&plain, &plain, Fill::MostCommon), [wdl::LOSS, wdl::WIN, wdl::LOSS, wdl::LOSS]);
/// assert_eq!(codes(&plain, &plain, Fill::Draw)[2], wdl::DRAW);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The code of the entry before it in its block (at a block's start, of the first legal
    /// entry of the block): runs of equal codes grow, which zstd rewards. The written files use
    /// this (`docs/TABLEBASES.md` has the comparison).
    Previous,
    /// The most common code of the table.
    MostCommon,
    /// Always [`DRAW`].
    Draw,
}

/// The codes of a whole table from its plain and Asian-rules codes (equal slices), illegal
/// entries filled as `fill` says. Deterministic, whatever the thread count: blocks of
/// [`super::format::WDL_BLOCK_ENTRIES`] entries are filled independently.
///
/// ```
/// use qiku::tablebase::format::{code, DRAW, ILLEGAL};
/// use qiku::tablebase::wdl::{self, codes, Fill};
///
/// // Won in 3, an illegal entry, lost in 2, a draw the Asian rules decide (won in 5).
/// let plain = [code(3), ILLEGAL, code(2), DRAW];
/// let rule = [code(3), ILLEGAL, code(2), code(5)];
/// assert_eq!(codes(&plain, &rule, Fill::Previous), [wdl::WIN, wdl::WIN, wdl::LOSS, wdl::RULE]);
/// assert_eq!(codes(&plain, &rule, Fill::Draw), [wdl::WIN, wdl::DRAW, wdl::LOSS, wdl::RULE]);
/// ```
pub fn codes(plain: &[u16], rule: &[u16], fill: Fill) -> Vec<u8> {
    let block = super::format::WDL_BLOCK_ENTRIES as usize;
    let both = |e: usize| (plain[e], rule[e]);
    let common = match fill {
        Fill::MostCommon => {
            let n = plain.par_iter().zip(rule).fold(
                || [0u64; 4],
                |mut n, (&p, &r)| {
                    if let Some(c) = code_of(p, r) {
                        n[c as usize] += 1;
                    }
                    n
                },
            );
            let n = n.reduce(|| [0u64; 4], |a, b| [0, 1, 2, 3].map(|i| a[i] + b[i]));
            (0..4u8).max_by_key(|&c| (n[c as usize], std::cmp::Reverse(c))).unwrap_or(DRAW)
        }
        _ => DRAW,
    };
    (0..plain.len().div_ceil(block))
        .into_par_iter()
        .flat_map_iter(|b| block_codes(b * block..((b + 1) * block).min(plain.len()), fill, common, &both))
        .collect()
}

/// The codes of one block, entries `range`, from each entry's plain and Asian-rules codes
/// (`both`), illegal entries filled as `fill` says (`common` is the table's most common code,
/// for [`Fill::MostCommon`]).
pub(crate) fn block_codes(
    range: std::ops::Range<usize>,
    fill: Fill,
    common: u8,
    both: &(impl Fn(usize) -> (u16, u16) + ?Sized),
) -> Vec<u8> {
    let mut out: Vec<u8> = range.map(both).map(|(p, r)| code_of(p, r).unwrap_or(u8::MAX)).collect();
    let mut prev = match fill {
        Fill::Previous => out.iter().copied().find(|&c| c != u8::MAX).unwrap_or(DRAW),
        Fill::MostCommon => common,
        Fill::Draw => DRAW,
    };
    for c in out.iter_mut() {
        if *c == u8::MAX {
            *c = prev;
        } else if fill == Fill::Previous {
            prev = *c;
        }
    }
    out
}
