//! Byte-level lexical helpers for the reader: character classes, whitespace, token boundaries,
//! token classification and character columns. Kept apart from the reader's state machine because this is the hot
//! inner loop, written over bytes with table lookups rather than `char` iteration.

use super::visitor::GameResult;

/// What a whitespace-delimited movetext token is.
pub(super) enum Token {
    Result(Option<GameResult>),
    /// A move number (`12`, `12.`, `12...`, `１２．`, or just dots); `Some(i)`: a move follows at
    /// byte `i` of the token (`1.炮二平五`).
    Number(Option<usize>),
    Move,
}

/// Byte classes for the tokenizer's inner loop.
const NORMAL: u8 = 0;
/// Ends a token: ASCII whitespace, PGN punctuation, control characters.
const DELIM: u8 = 1;
/// May start multi-byte whitespace (U+0085, U+00A0, U+1680, U+2000..., U+3000, U+FEFF).
const LEAD: u8 = 2;

static CLASS: [u8; 256] = {
    let mut t = [NORMAL; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = DELIM;
        i += 1;
    }
    t[0x7f] = DELIM;
    let punct = b" {}();$[]\"";
    let mut k = 0;
    while k < punct.len() {
        t[punct[k] as usize] = DELIM;
        k += 1;
    }
    // Lead bytes of every multi-byte whitespace character (see `ws_len`).
    t[0xc2] = LEAD;
    t[0xe1] = LEAD;
    t[0xe2] = LEAD;
    t[0xe3] = LEAD;
    t[0xef] = LEAD;
    t
};

/// Length of the whitespace character at `b[i]`, 0 if it is not whitespace. Besides ASCII
/// whitespace this accepts all Unicode whitespace — notably the ideographic (full-width) space
/// U+3000 common in Chinese text and the no-break space — and a stray byte-order mark (as found
/// where files were concatenated).
#[inline(always)]
pub(super) fn ws_len(b: &[u8], i: usize) -> usize {
    match b[i] {
        b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => 1,
        lead @ (0xc2 | 0xe1 | 0xe2 | 0xe3 | 0xef) => {
            let n = if lead == 0xc2 { 2 } else { 3 };
            let c = b.get(i..i + n).and_then(|s| std::str::from_utf8(s).ok()).and_then(|s| s.chars().next());
            match c {
                Some(c) if c.is_whitespace() || c == '\u{FEFF}' => n,
                _ => 0,
            }
        }
        _ => 0,
    }
}

#[inline]
pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        let n = ws_len(b, i);
        if n == 0 {
            break;
        }
        i += n;
    }
    i
}

/// End of the token starting at `b[i]`.
#[inline]
pub(super) fn token_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match CLASS[b[i] as usize] {
            NORMAL => i += 1,
            DELIM => break,
            _ => {
                if ws_len(b, i) > 0 {
                    break;
                }
                i += 1;
            }
        }
    }
    i
}

/// ASCII control characters other than whitespace: a sign of binary junk.
#[inline]
pub(super) fn is_control(c: u8) -> bool {
    (c < 0x20 && !matches!(c, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) || c == 0x7f
}

/// Free text (tag values, comments) may contain control characters — the CCPD data has a few
/// stray ones in player names (0x11, 0x13, 0x15, left over from its conversion) — but NUL is
/// never text: it means binary junk.
pub(super) fn find_nul(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == 0)
}

pub(super) fn classify(tok: &str) -> Token {
    let b = tok.as_bytes();
    // Fast path: most tokens are moves, and a move never starts like a number or a result.
    match b.first() {
        Some(b'0'..=b'9' | b'.' | b'*' | 0xe2 | 0xef) => {}
        _ => return Token::Move,
    }
    match b {
        b"1-0" => return Token::Result(Some(GameResult::RedWins)),
        b"0-1" => return Token::Result(Some(GameResult::BlackWins)),
        b"1/2-1/2" => return Token::Result(Some(GameResult::Draw)),
        b"*" => return Token::Result(None),
        _ => {}
    }
    // Digits: ASCII, or full-width `０`..`９` (U+FF10..U+FF19).
    let mut digits = 0;
    loop {
        match &b[digits..] {
            [b'0'..=b'9', ..] => digits += 1,
            [0xef, 0xbc, 0x90..=0x99, ..] => digits += 3,
            _ => break,
        }
    }
    let mut k = digits;
    // Move number periods: ASCII '.', full-width '．' (U+FF0E), ellipsis '…' (U+2026).
    loop {
        match &b[k..] {
            [b'.', ..] => k += 1,
            [0xef, 0xbc, 0x8e, ..] | [0xe2, 0x80, 0xa6, ..] => k += 3,
            _ => break,
        }
    }
    let dotted = k > digits;
    if (digits > 0 && (digits == b.len() || dotted)) || (digits == 0 && dotted) {
        Token::Number(if k < b.len() { Some(k) } else { None })
    } else {
        Token::Move
    }
}

/// Maps byte offsets of the current line to 1-based character columns, incrementally, because
/// tokens are visited left to right and recounting from the line start would be quadratic.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Columns {
    ascii: bool,
    byte: usize,
    chars: usize,
}

impl Columns {
    pub(super) fn reset(&mut self, ascii: bool) {
        *self = Columns { ascii, byte: 0, chars: 0 };
    }

    pub(super) fn column(&mut self, text: &str, byte: usize) -> u32 {
        let byte = byte.min(text.len());
        let chars = if self.ascii {
            byte
        } else {
            if byte < self.byte {
                self.byte = 0;
                self.chars = 0;
            }
            // Count bytes that are not UTF-8 continuation bytes (0b10xx_xxxx).
            let n = text.as_bytes()[self.byte..byte].iter().filter(|&&b| (b as i8) >= -0x40).count();
            self.chars += n;
            self.byte = byte;
            self.chars
        };
        u32::try_from(chars + 1).unwrap_or(u32::MAX)
    }
}
