//! qiku against an independent implementation: the fixtures in `tests/fixtures/oracle/` were
//! generated with pyffish (Fairy-Stockfish) by `gen_oracle.py` there; see its README.

use qiku::core::perft::perft_bulk;
use qiku::Position;

const MOVEGEN: &str = include_str!("fixtures/oracle/movegen.txt");
const FEN_INVALID: &str = include_str!("fixtures/oracle/fen_invalid.txt");

#[test]
fn legal_moves_check_and_perft_match_fairy_stockfish() {
    let mut checked = [0usize; 4]; // positions, no-move positions, perft2, perft3
    for (n, line) in MOVEGEN.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 6, "line {}", n + 1);
        let mut pos = Position::from_fen(fields[0]).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        assert_eq!(pos.is_check(), fields[1] == "1", "check flag, line {}: {}", n + 1, fields[0]);
        let mut ours: Vec<String> = pos.moves().iter().map(|m| m.to_string()).collect();
        ours.sort();
        let theirs: Vec<&str> = fields[3].split_whitespace().filter(|m| *m != "-").collect();
        assert_eq!(ours.len(), fields[2].parse::<usize>().unwrap(), "line {}: {}", n + 1, fields[0]);
        assert_eq!(ours, theirs, "legal moves, line {}: {}", n + 1, fields[0]);
        checked[0] += 1;
        checked[1] += ours.is_empty() as usize;
        for (depth, field) in [(2, fields[4]), (3, fields[5])] {
            if let Ok(expected) = field.parse::<u64>() {
                assert_eq!(perft_bulk(&mut pos, depth), expected, "perft {depth}, line {}: {}", n + 1, fields[0]);
                checked[depth as usize] += 1;
            }
        }
    }
    assert_eq!(checked[0], 2999);
    assert!(checked[1] >= 30, "the fixture holds mates and stalemates: {checked:?}");
    assert!(checked[2] > 2900 && checked[3] > 1000, "{checked:?}");
}

#[test]
fn every_invalid_fen_is_refused() {
    let mut n = 0;
    for line in FEN_INVALID.lines() {
        let (reason, fen) = line.split_once('\t').unwrap();
        assert!(Position::from_fen(fen).is_err(), "{reason}: {fen} was accepted");
        n += 1;
    }
    assert_eq!(n, 46);
}
