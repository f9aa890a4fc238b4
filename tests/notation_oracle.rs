//! WXF against an independent implementation: `tests/fixtures/oracle/wxf.txt` holds every legal
//! move of 476 positions with the WXF text pyffish (Fairy-Stockfish) writes for it. pyffish
//! departs from the WXF document in two systematic ways (see the fixture's README), which this
//! test maps rather than ignores:
//!
//! 1. it writes `=` for sideways moves where WXF writes `.`: compared after mapping `=` to `.`,
//!    and our parser must read pyffish's text as it is;
//! 2. with three or more pawns on a file, or two files holding two or more pawns each, it writes
//!    every such pawn as index-from-the-front then file (`13=4`, `23=4`, `33=4`), where WXF
//!    writes `P+.4`, `P3.4`, `P-.4` (3 on a file), `++ P+ P- --` (4), `++ P+ P3 P- --` (5) and
//!    file-first `3+.4 33.4 3-.4` for two tandem files. Those lines are translated to the WXF
//!    document's form here, from pyffish's index and the pawn counts, and compared. They are not
//!    fed to our parser: `33.4` means the middle pawn in WXF but the third in pyffish.
//!
//! A third, smaller departure showed up in the comparison: for two pieces of a kind on one file,
//! pyffish writes the front/rear mark only if the twin, shifted by the same file and rank
//! difference as the move, would still stand on a square that kind can occupy; otherwise it
//! keeps the file digit (`C2+4` for the rear of two cannons when the front one is near the far
//! edge). The WXF document marks tandem pieces always, and so do we; such lines are checked to
//! be exactly that case and then compared with the mark put in.

use qiku::notation::wxf;
use qiku::{Color, Move, Piece, Position, Role, Square};

const FIXTURE: &str = "tests/fixtures/oracle/wxf.txt";

/// Own-file number (1 = the mover's right) of a file index.
fn own_file(color: Color, file: usize) -> usize {
    match color {
        Color::Red => 9 - file,
        Color::Black => file + 1,
    }
}

/// The WXF document's designator for pyffish's pawn `index` (1 = front) on own file `file`.
fn wxf_tandem_designator(pos: &Position, file: usize, index: usize) -> String {
    let us = pos.turn();
    let pawns = pos.pieces(Piece::new(us, Role::Pawn));
    let count_on = |f: usize| pawns.filter(|s: &Square| own_file(us, s.file().index()) == f).count();
    let n = count_on(file);
    let tandem_files = (1..=9).filter(|&f| count_on(f) >= 2).count();
    let d = char::from(b'0' + file as u8);
    let s: String = if tandem_files == 2 {
        let second = if index == 1 {
            '+'
        } else if index == n {
            '-'
        } else {
            d
        };
        [d, second].iter().collect()
    } else {
        match (n, index) {
            (2 | 3, 1) => "P+".into(),
            (2 | 3, i) if i == n => "P-".into(),
            (3, 2) | (5, 3) => format!("P{d}"),
            (_, 1) => "++".into(),
            (_, 2) => "P+".into(),
            (_, i) if i == n => "--".into(),
            _ => "P-".into(),
        }
    };
    s
}

/// If pyffish wrote `theirs` with a file digit for a piece that shares its file with its twin,
/// and the twin shifted like the move lands where that kind cannot stand (pyffish's condition
/// for leaving out the mark), the text with the WXF front/rear mark put in.
fn pyffish_unmarked_twin(pos: &Position, m: Move, theirs: &str) -> Option<String> {
    let piece = pos.piece_at(m.from())?;
    let b = theirs.as_bytes();
    if !b[1].is_ascii_digit() || matches!(piece.role, Role::King | Role::Advisor | Role::Elephant) {
        return None;
    }
    let same_file = pos.pieces(piece).filter(|s: &Square| s.file() == m.from().file() && *s != m.from());
    let twins: Vec<Square> = same_file.collect();
    let [twin] = twins[..] else { return None };
    let (df, dr) = (
        m.to().file().index() as i32 - m.from().file().index() as i32,
        m.to().rank().index() as i32 - m.from().rank().index() as i32,
    );
    let shifted = twin.offset(df, dr);
    if shifted.is_some_and(|s| Position::reachable_squares(piece).contains(s)) {
        return None;
    }
    let ahead = (m.from().rank().index() > twin.rank().index()) == (piece.color == Color::Red);
    Some(format!("{}{}{}", &theirs[..1], if ahead { '+' } else { '-' }, &theirs[2..]))
}

#[test]
fn wxf_matches_pyffish() {
    let text = std::fs::read_to_string(FIXTURE).unwrap_or_else(|e| panic!("{FIXTURE}: {e}"));
    let (mut same, mut translated, mut unmarked_twins, mut lines) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut positions = std::collections::HashSet::new();
    for (no, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [fen, iccs, theirs] = fields[..] else { panic!("{FIXTURE}:{}: expected three fields", no + 1) };
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{FIXTURE}:{}: {e}", no + 1));
        let m = Move::new(iccs[..2].parse().expect("square"), iccs[2..].parse().expect("square"));
        assert!(pos.is_legal(m), "{FIXTURE}:{}: {iccs} illegal", no + 1);
        positions.insert(fen);
        lines += 1;
        let ours = wxf::format(&pos, m);
        let b = theirs.as_bytes();
        let expected = if b.len() == 4 && b[0].is_ascii_digit() && b[1].is_ascii_digit() {
            translated += 1;
            let (index, file) = ((b[0] - b'0') as usize, (b[1] - b'0') as usize);
            format!("{}{}", wxf_tandem_designator(&pos, file, index), &theirs[2..]).replace('=', ".")
        } else if let Some(marked) = pyffish_unmarked_twin(&pos, m, theirs) {
            unmarked_twins += 1;
            if wxf::parse(&pos, theirs) != Ok(m) {
                failures.push(format!(
                    "line {}: pyffish {theirs} parses to {:?}, not {iccs}",
                    no + 1,
                    wxf::parse(&pos, theirs)
                ));
            }
            marked.replace('=', ".")
        } else {
            same += 1;
            // pyffish's own text must parse to the move as it is ('=' and all).
            if wxf::parse(&pos, theirs) != Ok(m) {
                failures.push(format!(
                    "line {}: pyffish {theirs} parses to {:?}, not {iccs}",
                    no + 1,
                    wxf::parse(&pos, theirs)
                ));
            }
            theirs.replace('=', ".")
        };
        if ours != expected {
            failures
                .push(format!("line {}: {iccs} in {fen}: ours {ours}, pyffish {theirs} (expected {expected})", no + 1));
        }
    }
    eprintln!(
        "{lines} moves in {} positions: {same} compared directly ('=' read as '.'), {translated} tandem-pawn \
         lines translated from pyffish's index form, {unmarked_twins} tandem pieces pyffish left unmarked; \
         {} differences",
        positions.len(),
        failures.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("  {f}");
    }
    assert_eq!((lines, positions.len()), (11_574, 476));
    assert_eq!(translated, 393);
    assert!(same > 11_000, "{same}");
    assert!(failures.is_empty(), "{} differences", failures.len());
}
