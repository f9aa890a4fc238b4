//! Chinese file notation, the form of Chinese game records: `炮二平五`, `馬８進７`, `前車進一`.
//! Piece, file (counted from the mover's own right; red writes 一..九, black １..９), direction
//! (進 forward, 退 backward, 平 traverse) and a number (steps along a file, else the
//! destination file). Pieces sharing a file are named 前/後 (front/rear), three pawns 前/中/後,
//! and four or more tandem pawns 一二三四五 counted file by file from the right, front to back
//! (the xqbase convention). Parsing accepts traditional and simplified characters, the common
//! variant piece names of both sides, and all three numeral kinds for either side; see
//! `docs/NOTATION.md`.

use super::relative::{self, front_to_back, tandem, Described, Dir, OwnFile};
use super::ParseMoveError;
use crate::core::{Bitboard, Move, Piece, Position, Role};

/// One character of a token, by meaning.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Word {
    Piece(Role),
    Num(u8),
    Dir(Dir),
    Place(Place),
    Unknown,
}

/// A piece's place among the same-kind pieces on its file(s).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Place {
    Front,
    Middle,
    Rear,
    /// 一..五: the n-th tandem piece, 1-based.
    Nth(u8),
}

fn word(c: char) -> Word {
    match c {
        '帥' | '帅' | '將' | '将' => Word::Piece(Role::King),
        '仕' | '士' => Word::Piece(Role::Advisor),
        '相' | '象' => Word::Piece(Role::Elephant),
        '馬' | '傌' | '马' | '㐷' => Word::Piece(Role::Horse),
        '車' | '俥' | '车' | '伡' => Word::Piece(Role::Rook),
        '炮' | '砲' | '包' => Word::Piece(Role::Cannon),
        '兵' | '卒' => Word::Piece(Role::Pawn),
        '進' | '进' => Word::Dir(Dir::Forward),
        '退' => Word::Dir(Dir::Backward),
        '平' => Word::Dir(Dir::Traverse),
        '前' => Word::Place(Place::Front),
        '中' => Word::Place(Place::Middle),
        '後' | '后' => Word::Place(Place::Rear),
        '一' => Word::Num(1),
        '二' => Word::Num(2),
        '三' => Word::Num(3),
        '四' => Word::Num(4),
        '五' => Word::Num(5),
        '六' => Word::Num(6),
        '七' => Word::Num(7),
        '八' => Word::Num(8),
        '九' => Word::Num(9),
        '１'..='９' => Word::Num((c as u32 - '０' as u32) as u8),
        '1'..='9' => Word::Num(c as u8 - b'0'),
        _ => Word::Unknown,
    }
}

/// How a token names the moving piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Who {
    /// `炮二`: the piece on that file.
    File(OwnFile),
    /// `前炮`, `炮前`, `中兵`, `二兵`: by place among all tandem pieces of the kind.
    Place(Place),
    /// `前兵七`: by place among the pieces on that file.
    PlaceOnFile(Place, OwnFile),
}

/// Reads a Chinese-notation move and resolves it to the one legal move it names in `pos`.
///
/// Forms: `炮二平五` (piece, file), `前炮平五` or `炮前平五` (place word before or after the
/// piece), `二兵平五` (ordinal among four or five tandem pawns), and the five-character
/// `前兵七平六` (place among the pieces of one file). The side is the side to move, whatever
/// the characters say. A file-named piece that shares its file is accepted when only one of
/// them can make the move. Check or annotation marks after the move (`馬二進三+`) are read past,
/// as by every notation's parser.
///
/// ```
/// use qiku::notation::{chinese, iccs};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// assert_eq!(chinese::parse(&pos, "炮二平五")?.to_string(), "h2e2");
/// assert_eq!(chinese::parse(&pos, "马二进三")?.to_string(), "h0g2"); // simplified characters
/// assert_eq!(chinese::parse(&pos, "炮2平5")?.to_string(), "h2e2"); // Arabic numerals
/// let after = pos.play(iccs::parse(&pos, "h2e2")?)?;
/// assert_eq!(chinese::parse(&after, "馬８進７")?.to_string(), "h9g7"); // black's full-width numerals
/// assert!(chinese::parse(&pos, "車一進三").is_err()); // the rook would take its own pawn on i3
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse(pos: &Position, token: &str) -> Result<Move, ParseMoveError> {
    let syntax = |reason| ParseMoveError::Syntax { token: token.to_string(), reason };
    let mut w = [Word::Unknown; 5];
    let mut n = 0;
    for c in super::without_marks(token).chars() {
        if n == w.len() {
            return Err(syntax("too long: expected four characters such as 炮二平五"));
        }
        w[n] = word(c);
        if w[n] == Word::Unknown {
            return Err(syntax("unknown character (not a piece, numeral, 進/退/平 or 前/中/後)"));
        }
        n += 1;
    }
    if n < 4 {
        return Err(syntax("too short: expected four characters such as 炮二平五"));
    }
    let Word::Dir(dir) = w[n - 2] else {
        return Err(syntax("the second-last character must be 進, 退 or 平"));
    };
    let Word::Num(num) = w[n - 1] else {
        return Err(syntax("the last character must be a numeral"));
    };
    let file = |f| OwnFile::new(f).ok_or_else(|| syntax("file out of range"));
    let (role, who) = match (n, w[0], w[1], w[2]) {
        (4, Word::Piece(r), Word::Num(f), _) => (r, Who::File(file(f)?)),
        (4, Word::Piece(r), Word::Place(p), _) | (4, Word::Place(p), Word::Piece(r), _) => (r, Who::Place(p)),
        (4, Word::Num(k), Word::Piece(r), _) => (r, Who::Place(Place::Nth(k))),
        (5, Word::Place(p), Word::Piece(r), Word::Num(f)) => (r, Who::PlaceOnFile(p, file(f)?)),
        (5, Word::Num(k), Word::Piece(r), Word::Num(f)) => (r, Who::PlaceOnFile(Place::Nth(k), file(f)?)),
        (5, ..) => return Err(syntax("five-character moves are place, piece, file, direction, number (前兵七平六)")),
        _ => return Err(syntax("expected piece and file (炮二), or place and piece (前炮, 炮前, 二兵)")),
    };
    let piece = Piece::new(pos.turn(), role);
    relative::resolve(pos, token, piece, candidates(pos, piece, who), dir, num)
}

fn candidates(pos: &Position, piece: Piece, who: Who) -> Bitboard {
    let single = |sq: Option<_>| sq.map_or(Bitboard::EMPTY, Bitboard::from_square);
    match who {
        Who::File(f) => pos.pieces(piece) & f.mask(piece.color),
        Who::Place(place) => {
            let t = tandem(pos, piece);
            match place {
                Place::Front => t.fronts(),
                Place::Middle => t.middles(),
                Place::Rear => t.rears(),
                Place::Nth(k) => single(t.all.get(k as usize - 1)),
            }
        }
        Who::PlaceOnFile(place, f) => {
            let sorted = front_to_back(pos.pieces(piece) & f.mask(piece.color), piece.color);
            if sorted.len() < 2 {
                return Bitboard::EMPTY;
            }
            single(match place {
                Place::Front => sorted.first(),
                Place::Middle => sorted.middle(),
                Place::Rear => sorted.last(),
                Place::Nth(k) => sorted.get(k as usize - 1),
            })
        }
    }
}

/// Traditional or simplified characters.
///
/// ```
/// use qiku::notation::chinese::{format_with, Charset, Style};
/// use qiku::{notation::iccs, Position};
///
/// let pos = Position::startpos();
/// let horse = iccs::parse(&pos, "h0g2")?;
/// assert_eq!(format_with(&pos, horse, Style { charset: Charset::Traditional, ..Style::default() }), "馬二進三");
/// assert_eq!(format_with(&pos, horse, Style { charset: Charset::Simplified, ..Style::default() }), "马二进三");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Charset {
    /// 帥 將 馬 車 進 後, as the CCPD UTF-8 and Big5 files write them.
    Traditional,
    /// 帅 将 马 车 进 后, as GBK files write them.
    Simplified,
}

/// How file and step numbers are written.
///
/// ```
/// use qiku::notation::chinese::{format_with, Numerals, Style};
/// use qiku::{notation::iccs, Position};
///
/// let start = Position::startpos();
/// let pos = start.play(iccs::parse(&start, "h2e2")?)?;
/// let reply = iccs::parse(&pos, "h9g7")?; // black's horse
/// assert_eq!(format_with(&pos, reply, Style::TRADITIONAL), "馬８進７"); // full-width for black by convention
/// assert_eq!(format_with(&pos, reply, Style { black: Numerals::Ascii, ..Style::TRADITIONAL }), "馬8進7");
/// assert_eq!(format_with(&pos, reply, Style { black: Numerals::Chinese, ..Style::TRADITIONAL }), "馬八進七");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Numerals {
    /// 一二三四五六七八九 (red's numbers in printed records).
    Chinese,
    /// １２３４５６７８９ (black's numbers in printed records).
    FullWidth,
    /// 123456789.
    Ascii,
}

/// When a horse, rook or cannon that shares its file with its twin is named by place (前/後)
/// rather than by file.
///
/// ```
/// use qiku::notation::chinese::{format_with, PlaceWords, Style};
/// use qiku::{notation::iccs, Position};
///
/// // Two red rooks on file 一 (i4 and i0); the horse on h0 keeps the rear rook from moving to file 二.
/// let pos = Position::from_fen("4k4/9/9/9/9/8R/9/9/9/3K3NR w")?;
/// let m = iccs::parse(&pos, "i4h4")?;
/// assert_eq!(format_with(&pos, m, Style { place: PlaceWords::Always, ..Style::TRADITIONAL }), "前車平二");
/// assert_eq!(format_with(&pos, m, Style { place: PlaceWords::WhenNeeded, ..Style::TRADITIONAL }), "車一平二");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PlaceWords {
    /// Always, as the rules of record-keeping say: `前車進一`.
    Always,
    /// Only when the twin could make a move of the same direction and number by its own rules
    /// (ignoring whether that would expose its king); otherwise by file, `車一進一`. This is the
    /// convention of the CCPD records (checked against every move of the collection). Tandem
    /// pawns are always named by place.
    WhenNeeded,
}

/// How [`format_with`] writes a move. Ordinals among tandem pawns (一二三四五) are always
/// Chinese numerals, as in the xqbase convention.
///
/// ```
/// use qiku::notation::chinese::{format_with, Numerals, Style};
/// use qiku::{notation::iccs, Position};
///
/// let pos = Position::startpos();
/// let horse = iccs::parse(&pos, "h0g2")?;
/// assert_eq!(format_with(&pos, horse, Style::SIMPLIFIED), "马二进三");
/// let ascii = Style { red: Numerals::Ascii, ..Style::SIMPLIFIED };
/// assert_eq!(format_with(&pos, horse, ascii), "马2进3");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Style {
    /// Traditional or simplified characters.
    pub charset: Charset,
    /// Numerals for red's files (Chinese by convention).
    pub red: Numerals,
    /// Numerals for black's files (Arabic by convention).
    pub black: Numerals,
    /// When two pieces on one file are told apart by place words (前/後) rather than by file.
    pub place: PlaceWords,
}

impl Style {
    /// The standard form in the characters of the CCPD records: `炮二平五 馬８進７ 前車進一`,
    /// with 馬 車 炮 for both sides.
    pub const TRADITIONAL: Style = Style {
        charset: Charset::Traditional,
        red: Numerals::Chinese,
        black: Numerals::FullWidth,
        place: PlaceWords::Always,
    };
    /// The standard form in simplified characters, as GBK records write it: `炮二平五 马８进７`.
    pub const SIMPLIFIED: Style = Style { charset: Charset::Simplified, ..Style::TRADITIONAL };
    /// Exactly what the CCPD UTF-8 and Big5 records write, token for token: [`Style::TRADITIONAL`]
    /// with place words only when needed.
    pub const CCPD: Style = Style { place: PlaceWords::WhenNeeded, ..Style::TRADITIONAL };
}

impl Default for Style {
    fn default() -> Style {
        Style::TRADITIONAL
    }
}

const CHINESE_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

fn numeral(kind: Numerals, n: u8) -> char {
    let i = n.clamp(1, 9) as usize - 1;
    match kind {
        Numerals::Chinese => CHINESE_NUMERALS[i],
        Numerals::FullWidth => char::from_u32('１' as u32 + i as u32).unwrap_or('？'),
        Numerals::Ascii => (b'1' + i as u8) as char,
    }
}

fn piece_char(charset: Charset, piece: Piece) -> char {
    let (red, black) = match charset {
        Charset::Traditional => ("帥仕相馬車炮兵", "將士象馬車炮卒"),
        Charset::Simplified => ("帅仕相马车炮兵", "将士象马车炮卒"),
    };
    piece.color.fold(red, black).chars().nth(piece.role.index()).unwrap_or('？')
}

/// Writes the legal move `m` of `pos` in canonical Chinese notation, traditional characters
/// (the style of the CCPD records). If no piece of the side to move stands on the from-square
/// (so `m` cannot be legal) the ICCS form is written instead, never a panic.
///
/// ```
/// use qiku::notation::{chinese, iccs};
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let after = pos.play(iccs::parse(&pos, "h2e2")?)?;
/// assert_eq!(chinese::format(&pos, iccs::parse(&pos, "h2e2")?), "炮二平五");
/// assert_eq!(chinese::format(&after, iccs::parse(&after, "h9g7")?), "馬８進７"); // black: full-width digits
/// // No piece of the side to move on the from-square: the ICCS form, not a panic.
/// assert_eq!(chinese::format(&pos, iccs::parse_move("e5e6")?), "e5e6");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn format(pos: &Position, m: Move) -> String {
    format_with(pos, m, Style::TRADITIONAL)
}

/// [`format()`] in a chosen [`Style`].
///
/// ```
/// use qiku::notation::chinese::{self, Style};
/// use qiku::notation::iccs;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let m = iccs::parse(&pos, "h0g2")?;
/// assert_eq!(chinese::format(&pos, m), "馬二進三");
/// assert_eq!(chinese::format_with(&pos, m, Style::SIMPLIFIED), "马二进三");
/// // Two rooks on one file: named front and rear (前/後) in the standard style.
/// let rooks = Position::from_fen("5k3/9/9/9/4R4/9/9/4R4/9/3K5 w")?;
/// let front = iccs::parse(&rooks, "e5e6")?;
/// assert_eq!(chinese::format(&rooks, front), "前車進一"); // 車 for both sides, as the records write it
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn format_with(pos: &Position, m: Move, style: Style) -> String {
    let mut out = String::with_capacity(12);
    write(pos, m, style, &mut out);
    out
}

/// [`format_with`], appending to `out`.
///
/// ```
/// use qiku::notation::chinese::{self, Style};
/// use qiku::notation::iccs;
/// use qiku::Position;
///
/// let pos = Position::startpos();
/// let mut line = String::from("1. ");
/// chinese::write(&pos, iccs::parse(&pos, "h0g2")?, Style::SIMPLIFIED, &mut line);
/// assert_eq!(line, "1. 马二进三");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write(pos: &Position, m: Move, style: Style, out: &mut String) {
    let Some(d) = relative::describe(pos, m) else {
        out.push_str(&m.to_string());
        return;
    };
    let numerals = d.piece.color.fold(style.red, style.black);
    let name = piece_char(style.charset, d.piece);
    match place(pos, d, m, style.place) {
        None => {
            out.push(name);
            out.push(numeral(numerals, d.file.get()));
        }
        Some(p) => {
            out.push(match p {
                Place::Front => '前',
                Place::Middle => '中',
                Place::Rear => style.charset.fold_rear(),
                Place::Nth(k) => numeral(Numerals::Chinese, k),
            });
            out.push(name);
        }
    }
    out.push(match (d.dir, style.charset) {
        (Dir::Forward, Charset::Traditional) => '進',
        (Dir::Forward, Charset::Simplified) => '进',
        (Dir::Backward, _) => '退',
        (Dir::Traverse, _) => '平',
    });
    out.push(numeral(numerals, d.num));
}

impl Charset {
    fn fold_rear(self) -> char {
        match self {
            Charset::Traditional => '後',
            Charset::Simplified => '后',
        }
    }
}

/// The place word for the piece moving in `m`, or `None` when its file names it.
fn place(pos: &Position, d: Described, m: Move, words: PlaceWords) -> Option<Place> {
    let piece = d.piece;
    if matches!(piece.role, Role::King | Role::Advisor | Role::Elephant) {
        // Advisors and elephants sharing a file can each go only one way, so the file is enough.
        return None;
    }
    let on_file = pos.pieces(piece) & relative::file_mask(m.from());
    if !on_file.more_than_one() {
        return None;
    }
    if piece.role == Role::Pawn {
        let group = tandem(pos, piece).all;
        let i = group.position(m.from())?;
        return Some(match (group.len(), i) {
            (2 | 3, 0) => Place::Front,
            (3, 1) => Place::Middle,
            (2 | 3, _) => Place::Rear,
            (_, i) => Place::Nth(i as u8 + 1),
        });
    }
    let twin = (on_file - Bitboard::from_square(m.from())).first()?;
    if words == PlaceWords::WhenNeeded
        && !relative::target(piece, twin, d.dir, d.num).is_some_and(|to| pos.piece_targets(piece, twin).contains(to))
    {
        return None;
    }
    let front = front_to_back(on_file, piece.color).first() == Some(m.from());
    Some(if front { Place::Front } else { Place::Rear })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(pos: &Position, token: &str) -> String {
        parse(pos, token).map(|m| m.to_string()).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn opening_moves_in_every_spelling() {
        let pos = Position::startpos();
        for t in ["炮二平五", "炮2平5", "砲二平五", "炮２平５", "包二平五"] {
            assert_eq!(play(&pos, t), "h2e2", "{t}");
        }
        assert_eq!(play(&pos, "傌二進三"), "h0g2");
        assert_eq!(play(&pos, "马二进三"), "h0g2");
        assert_eq!(play(&pos, "兵七進一"), "c3c4");
        assert_eq!(play(&pos, "卒七進一"), "c3c4");
        assert_eq!(play(&pos, "俥一進一"), "i0i1");
        assert_eq!(play(&pos, "相三進五"), "g0e2");
        assert_eq!(play(&pos, "仕四進五"), "f0e1");
        assert_eq!(play(&pos, "帥五進一"), "e0e1");
        let m = parse(&pos, "炮二平五").unwrap();
        assert_eq!(format(&pos, m), "炮二平五");
        let black = pos.play_unchecked(m);
        assert_eq!(play(&black, "馬８進７"), "h9g7");
        assert_eq!(play(&black, "马8进7"), "h9g7");
        assert_eq!(play(&black, "馬八進七"), "h9g7");
        assert_eq!(format(&black, parse(&black, "馬８進７").unwrap()), "馬８進７");
        assert_eq!(format_with(&black, parse(&black, "馬８進７").unwrap(), Style::SIMPLIFIED), "马８进７");
    }

    #[test]
    fn errors_name_their_kind() {
        let pos = Position::startpos();
        let kind = |t: &str| parse(&pos, t).map_err(|e| e.kind()).err();
        assert_eq!(kind("炮二平五"), None);
        assert_eq!(kind("炮二平"), Some("syntax"));
        assert_eq!(kind("炮二平五五五"), Some("syntax"));
        assert_eq!(kind("炮二走五"), Some("syntax"));
        assert_eq!(kind("炮二五平"), Some("syntax"));
        assert_eq!(kind("h2e2"), Some("syntax"));
        assert_eq!(kind("炮三平五"), Some("no-such-piece"));
        assert_eq!(kind("前炮平五"), Some("no-such-piece"));
        assert_eq!(kind("炮二進九"), Some("illegal"));
        assert_eq!(kind("馬二平三"), Some("illegal"));
    }
}
