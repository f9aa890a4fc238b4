//! WXF notation, the World Xiangqi Federation's ASCII form of the Chinese file notation:
//! `C2.5` (cannon on file 2 traverses to file 5), `H8+7`, `R1-2`. Files count from each
//! player's own right. Pieces sharing a file are named front/rear (`R+.4`, `C--1`); tandem
//! pawns follow the WXF rules (`++.4`, `P+.4`, `P3.4` for the middle one, `--.4`, and with two
//! tandem files the file first: `3+.4`, `33.4`, `7-.6`). See `docs/NOTATION.md` for what is
//! accepted beyond what is written.

use super::relative::{self, front_to_back, tandem, Dir, OwnFile};
use super::ParseMoveError;
use crate::core::{Bitboard, Move, Piece, Position, Role};

/// How a token names the moving piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Who {
    /// `R1`: the piece on that file (for three or five pawns there, the middle one).
    File(OwnFile),
    /// `R+` / `+R`: the front piece (with four or five pawns on one file, the second).
    Front,
    /// `R-` / `-R`: the rear piece (with four or five pawns on one file, the second from the rear).
    Rear,
    /// `++`: the foremost pawn.
    Foremost,
    /// `--`: the rearmost pawn.
    Rearmost,
    /// `Pa`..`Pe`: the n-th tandem piece (files from the right, each front to back; xqbase).
    Ordinal(u8),
    /// `3+`, `3-`, `33`: front, rear, middle pawn of that file (two tandem files).
    FileFront(OwnFile),
    FileRear(OwnFile),
    FileMiddle(OwnFile),
}

fn role_of_letter(c: u8) -> Option<Role> {
    Some(match c.to_ascii_uppercase() {
        b'K' | b'G' => Role::King,
        b'A' => Role::Advisor,
        b'E' | b'B' => Role::Elephant,
        b'H' | b'N' => Role::Horse,
        b'R' => Role::Rook,
        b'C' => Role::Cannon,
        b'P' => Role::Pawn,
        _ => return None,
    })
}

fn letter(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Advisor => 'A',
        Role::Elephant => 'E',
        Role::Horse => 'H',
        Role::Rook => 'R',
        Role::Cannon => 'C',
        Role::Pawn => 'P',
    }
}

fn digit(c: u8) -> Option<u8> {
    matches!(c, b'1'..=b'9').then(|| c - b'0')
}

/// Reads a WXF move and resolves it to the one legal move it names in `pos`.
///
/// Accepts `.` or `=` for traverse, letters of either case with the aliases `G` (king), `B`
/// (elephant), `N` (horse), the front/rear mark before or after the letter (`R+.4`, `+R.4`),
/// xqbase ordinals `Pa`..`Pe`, the three-character traverse `C25`, and check or annotation
/// marks (`+`, `#`, `!`, `?`) after the move (`R1+2+`, `C25#`), as every notation's parser reads
/// them.
///
/// ```
/// use qiku::notation::{iccs, wxf};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// assert_eq!(wxf::parse(&pos, "C2.5")?.to_string(), "h2e2");
/// assert_eq!(wxf::parse(&pos, "c2=5")?.to_string(), "h2e2"); // `=` and either case
/// assert_eq!(wxf::parse(&pos, "H2+3")?.to_string(), "h0g2");
/// // Black counts files from its own right: its horse on h9 is on file 2.
/// let after = pos.play(iccs::parse(&pos, "h2e2")?)?;
/// assert_eq!(wxf::parse(&after, "H2+3")?.to_string(), "b9c7");
/// assert_eq!(wxf::parse(&after, "H8+7")?.to_string(), "h9g7");
/// assert!(wxf::parse(&pos, "R1+3").is_err()); // the rook's own pawn is in the way
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse(pos: &Position, token: &str) -> Result<Move, ParseMoveError> {
    let syntax = |reason| ParseMoveError::Syntax { token: token.to_string(), reason };
    // Every move ends with a digit, so marks after it are never part of it.
    let (who_bytes, dir_byte, num_byte) = match *super::without_marks(token).as_bytes() {
        [piece, file, num] => ([piece, file], b'.', num),
        [piece, file, dir, num] => ([piece, file], dir, num),
        _ => return Err(syntax("expected four characters such as C2.5, H8+7 or R+.4")),
    };
    let dir = match dir_byte {
        b'+' => Dir::Forward,
        b'-' => Dir::Backward,
        b'.' | b'=' => Dir::Traverse,
        _ => return Err(syntax("third character must be + (forward), - (backward) or . (traverse)")),
    };
    let num = digit(num_byte).ok_or_else(|| syntax("last character must be a digit 1-9"))?;
    let [first, second] = who_bytes;
    let (role, who) = if let Some(role) = role_of_letter(first) {
        let who = match second {
            b'+' => Who::Front,
            b'-' => Who::Rear,
            b'a'..=b'e' => Who::Ordinal(second - b'a' + 1),
            _ => match digit(second).and_then(OwnFile::new) {
                Some(f) => Who::File(f),
                None => return Err(syntax("second character must be a file 1-9, + (front) or - (rear)")),
            },
        };
        (role, who)
    } else if let (b'+' | b'-', front) = (first, first == b'+') {
        match role_of_letter(second) {
            Some(role) => (role, if front { Who::Front } else { Who::Rear }),
            None if second == first => (Role::Pawn, if front { Who::Foremost } else { Who::Rearmost }),
            None => return Err(syntax("after a leading + or - comes a piece letter, or the same sign for pawns")),
        }
    } else if let Some(file) = digit(first).and_then(OwnFile::new) {
        let who = match second {
            b'+' => Who::FileFront(file),
            b'-' => Who::FileRear(file),
            _ if second == first => Who::FileMiddle(file),
            _ => return Err(syntax("a pawn's file must be followed by +, - or the same file (middle)")),
        };
        (Role::Pawn, who)
    } else {
        return Err(syntax("first character must be a piece letter (K A E H R C P), + or -, or a pawn's file"));
    };
    let piece = Piece::new(pos.turn(), role);
    relative::resolve(pos, token, piece, candidates(pos, piece, who), dir, num)
}

/// The squares a [`Who`] can mean in `pos`.
fn candidates(pos: &Position, piece: Piece, who: Who) -> Bitboard {
    let pawn = piece.role == Role::Pawn;
    let on_file = |f: OwnFile| front_to_back(pos.pieces(piece) & f.mask(piece.color), piece.color);
    let single = |sq: Option<_>| sq.map_or(Bitboard::EMPTY, Bitboard::from_square);
    match who {
        Who::File(f) => {
            let bb = pos.pieces(piece) & f.mask(piece.color);
            let n = bb.count();
            if pawn && (n == 3 || n == 5) {
                single(on_file(f).middle())
            } else {
                bb
            }
        }
        Who::Front | Who::Rear | Who::Foremost | Who::Rearmost | Who::Ordinal(_) => {
            let t = tandem(pos, piece);
            let front = matches!(who, Who::Front | Who::Foremost);
            match who {
                Who::Ordinal(k) => single(t.all.get(k as usize - 1)),
                // WXF: with four or five pawns on one file, + and - name the second from each end.
                Who::Front | Who::Rear if pawn && t.file_count == 1 && t.all.len() >= 4 => {
                    single(t.all.get(if front { 1 } else { t.all.len() - 2 }))
                }
                _ if front => t.fronts(),
                _ => t.rears(),
            }
        }
        Who::FileFront(f) | Who::FileRear(f) | Who::FileMiddle(f) => {
            let sorted = on_file(f);
            if sorted.len() < 2 {
                return Bitboard::EMPTY;
            }
            single(match who {
                Who::FileFront(_) => sorted.first(),
                Who::FileRear(_) => sorted.last(),
                _ => sorted.middle(),
            })
        }
    }
}

/// Writes the legal move `m` of `pos` in canonical WXF. If no piece of the side to move stands
/// on the from-square (so `m` cannot be legal) the ICCS form is written instead, never a panic.
///
/// ```
/// use qiku::notation::{iccs, wxf};
/// use qiku::Position;
///
/// // Two red rooks on the e-file are told apart as front (+) and rear (-).
/// let pos = Position::from_fen("5k3/9/9/9/4R4/9/9/4R4/9/3K5 w")?;
/// assert_eq!(wxf::format(&pos, iccs::parse(&pos, "e5d5")?), "R+.6");
/// assert_eq!(wxf::format(&pos, iccs::parse(&pos, "e2e3")?), "R-+1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn format(pos: &Position, m: Move) -> String {
    let mut out = String::with_capacity(4);
    write(pos, m, &mut out);
    out
}

/// [`format()`], appending to `out`.
///
/// ```
/// use qiku::notation::{iccs, wxf};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let mut line = String::from("1. ");
/// wxf::write(&pos, iccs::parse(&pos, "h2e2")?, &mut line);
/// assert_eq!(line, "1. C2.5");
/// # Ok::<(), qiku::notation::ParseMoveError>(())
/// ```
pub fn write(pos: &Position, m: Move, out: &mut String) {
    let Some(d) = relative::describe(pos, m) else {
        out.push_str(&m.to_string());
        return;
    };
    let [a, b] = designator(pos, d.piece, m, d.file);
    out.push(a);
    out.push(b);
    out.push(match d.dir {
        Dir::Forward => '+',
        Dir::Backward => '-',
        Dir::Traverse => '.',
    });
    out.push((b'0' + d.num) as char);
}

/// The first two characters: piece letter and file, or the WXF tandem forms.
fn designator(pos: &Position, piece: Piece, m: Move, file: OwnFile) -> [char; 2] {
    let file_digit = (b'0' + file.get()) as char;
    let l = letter(piece.role);
    if matches!(piece.role, Role::King | Role::Advisor | Role::Elephant) {
        // Advisors and elephants sharing a file can each go only one way, so the file is enough.
        return [l, file_digit];
    }
    let sorted = front_to_back(pos.pieces(piece) & file.mask(piece.color), piece.color);
    let (n, i) = (sorted.len(), sorted.position(m.from()).unwrap_or(0));
    if n < 2 {
        return [l, file_digit];
    }
    let tandem_files = if piece.role == Role::Pawn { tandem(pos, piece).file_count } else { 1 };
    if piece.role != Role::Pawn || (n == 2 && tandem_files == 1) {
        return [l, if i == 0 { '+' } else { '-' }];
    }
    if tandem_files == 2 {
        let second = match i {
            0 => '+',
            _ if i == n - 1 => '-',
            _ => file_digit,
        };
        return [file_digit, second];
    }
    match (n, i) {
        (3, 0) => ['P', '+'],
        (3, 1) => ['P', file_digit],
        (3, _) => ['P', '-'],
        (_, 0) => ['+', '+'],
        (_, 1) => ['P', '+'],
        (5, 2) => ['P', file_digit],
        _ if i == n - 1 => ['-', '-'],
        _ => ['P', '-'],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(pos: &Position, token: &str) -> String {
        parse(pos, token).map(|m| m.to_string()).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn opening_moves() {
        let pos = Position::startpos();
        assert_eq!(play(&pos, "C2.5"), "h2e2");
        assert_eq!(play(&pos, "C2=5"), "h2e2");
        assert_eq!(play(&pos, "c25"), "h2e2");
        assert_eq!(play(&pos, "H2+3"), "h0g2");
        assert_eq!(play(&pos, "N2+3"), "h0g2");
        assert_eq!(play(&pos, "R1+1"), "i0i1");
        assert_eq!(play(&pos, "P7+1"), "c3c4");
        assert_eq!(play(&pos, "E3+5"), "g0e2");
        assert_eq!(play(&pos, "A4+5"), "f0e1");
        assert_eq!(play(&pos, "K5+1"), "e0e1");
        assert_eq!(format(&pos, parse(&pos, "C2.5").unwrap()), "C2.5");
        let black = pos.play_unchecked(parse(&pos, "C2.5").unwrap());
        assert_eq!(play(&black, "H8+7"), "h9g7");
        assert_eq!(play(&black, "C8.5"), "h7e7");
        assert_eq!(play(&black, "R1+1"), "a9a8");
    }

    #[test]
    fn errors_name_their_kind() {
        let pos = Position::startpos();
        let kind = |t: &str| parse(&pos, t).map_err(|e| e.kind()).err();
        assert_eq!(kind("C2.5"), None);
        assert_eq!(kind("X2.5"), Some("syntax"));
        assert_eq!(kind("C2*5"), Some("syntax"));
        assert_eq!(kind("C2.0"), Some("syntax"));
        assert_eq!(kind(""), Some("syntax"));
        assert_eq!(kind("C2.5x"), Some("syntax"));
        assert_eq!(kind("C3.5"), Some("no-such-piece"));
        assert_eq!(kind("R+.2"), Some("no-such-piece"));
        assert_eq!(kind("C2+9"), Some("illegal"));
        assert_eq!(kind("H2+4"), Some("illegal"));
        assert_eq!(kind("C2.2"), Some("illegal"));
    }
}
