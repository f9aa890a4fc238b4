//! The chase and check repetition rules in the referee (`Game`), on every Xiangqi repetition case
//! of Fairy-Stockfish's own test suite (`tests/fixtures/chase_cases.txt`, which cites the AXF
//! rule book's diagrams) and on one or more cases for each AXF rule that qiku implements
//! (`tests/fixtures/axf_rules.txt`, checked against `docs/RULES.md`'s list of rules 6 to 36);
//! `tests/fixtures/chase_check.py` checks both fixtures against pyffish.

use qiku::core::chase;
use qiku::core::game::{EndReason, Outcome};
use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::engine::Score;
use qiku::notation::iccs;
use qiku::{Color, Game, Position};

struct Case {
    line: usize,
    comment: String,
    fen: String,
    moves: Vec<String>,
    want: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("fixtures/chase_cases.txt");
    let mut out = Vec::new();
    let mut comment = String::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = line.strip_prefix("# ") {
            comment = c.to_string();
            continue;
        }
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(parts.len(), 3, "line {}", i + 1);
        out.push(Case {
            line: i + 1,
            comment: comment.clone(),
            fen: parts[0].to_string(),
            moves: parts[1].split_whitespace().map(String::from).collect(),
            want: parts[2].to_string(),
        });
    }
    out
}

/// Plays the case and returns the result for the side to move at the end, with the game's
/// outcome there. (Some cases play on past the first third occurrence, as Fairy-Stockfish's query
/// is about the final position: the verdict is the one on the cycle that closes there.)
fn play(case: &Case) -> (String, Outcome) {
    let mut game = Game::new(Position::from_fen(&case.fen).unwrap());
    for token in &case.moves {
        let m = iccs::parse(game.position(), token).unwrap_or_else(|e| panic!("line {}: {token}: {e}", case.line));
        game.play(m).unwrap();
    }
    let outcome = game.outcome().unwrap_or_else(|| panic!("line {} ({}): game not over", case.line, case.comment));
    let to_move = game.position().turn();
    let result = match outcome {
        Outcome::Draw(_) => "draw",
        Outcome::Decisive { winner, .. } if winner == to_move => "win",
        Outcome::Decisive { .. } => "loss",
    };
    (result.to_string(), outcome)
}

#[test]
fn every_fairy_stockfish_repetition_case() {
    let cases = cases();
    assert_eq!(cases.len(), 33);
    let mut wrong = Vec::new();
    for case in &cases {
        let (got, outcome) = play(case);
        if got != case.want {
            wrong.push(format!("line {} ({}): want {}, got {got} ({outcome:?})", case.line, case.comment, case.want));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

#[test]
fn chases_are_named_by_reason() {
    // Direct chase by cannon: red loses by perpetual chase, not by check.
    let case = &cases()[0];
    let (_, outcome) = play(case);
    assert_eq!(outcome, Outcome::Decisive { winner: Color::Black, reason: EndReason::PerpetualChase });
}

#[test]
fn a_single_move_chases_exactly_the_new_unprotected_target() {
    // The cannon moves from c2 to a2 and attacks the rook on a7 over the pawn on a5; a cannon
    // attacking a rook chases it even when the rook is protected.
    let pos = Position::from_fen("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
    let m = iccs::parse(&pos, "c2a2").unwrap();
    let chased = chase::chased_by(&pos, m);
    assert_eq!(chased.into_iter().map(|s| s.to_string()).collect::<Vec<_>>(), vec!["a7".to_string()]);
    // A quiet move far away chases nothing.
    let m = iccs::parse(&pos, "i0i1").unwrap();
    assert!(chase::chased_by(&pos, m).is_empty());
}

/// Random cycles from random game positions (each side moves a piece and back, twice), with
/// pyffish's verdict (`tests/fixtures/gen_chase_random.py`): qiku's referee must agree on every
/// one, except the cases listed in `DIFFERENT` with the reason.
#[test]
fn random_cycles_agree_with_fairy_stockfish() {
    let text = include_str!("fixtures/chase_random.txt");
    let (mut total, mut decided) = (0, 0);
    let mut wrong = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let case = Case {
            line: i + 1,
            comment: String::new(),
            fen: parts[0].to_string(),
            moves: parts[1].split_whitespace().map(String::from).collect(),
            want: parts[2].to_string(),
        };
        total += 1;
        decided += usize::from(case.want != "draw");
        let (got, outcome) = play(&case);
        if got != case.want {
            wrong.push(format!(
                "line {}: {} | {}: want {}, got {got} ({outcome:?})",
                case.line, case.fen, parts[1], case.want
            ));
        }
    }
    // Random cycles are nearly always plain draws (4 of 1,029 are decided): the test mostly shows
    // that the chase rule invents no verdict where Fairy-Stockfish sees none.
    assert!(total >= 1000 && decided >= 4, "{total} cases, {decided} decided");
    assert!(wrong.is_empty(), "{} of {total} cases differ:\n{}", wrong.len(), wrong.join("\n"));
}

/// The search judges a repetition as the referee does: from the position after
/// `c2a2 a7b7 a2b2 b7a7` (the first case's chase) played twice round, red's `b2a2` meets the
/// position after `c2a2` a third time, completing a cycle in which red chased the rook on every
/// move, so it loses at once; any other move keeps the game going.
#[test]
fn the_search_scores_a_perpetual_chase_as_a_loss_for_the_chaser() {
    let fen = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1";
    let mut game = Game::new(Position::from_fen(fen).unwrap());
    for t in ["c2a2", "a7b7", "a2b2", "b7a7", "b2a2", "a7b7", "a2b2", "b7a7"] {
        let m = iccs::parse(game.position(), t).unwrap();
        game.play(m).unwrap();
    }
    let chase = iccs::parse(game.position(), "b2a2").unwrap();
    let search = |searchmoves: Vec<qiku::Move>| {
        let limits = Limits { searchmoves, ..Limits::depth(4) };
        let shared = Shared::new(8);
        search::search(&game, &limits, &SearchOptions::default(), &shared, &mut History::default(), &mut |_| {})
    };
    let forced = search(vec![chase]);
    // A loss by the move itself: the score conversion reports a mate distance of 0 or below.
    assert!(matches!(forced.score, Score::Mate(n) if n <= 0), "b2a2 repeats the chase and loses: {:?}", forced.score);
    let free = search(Vec::new());
    assert_ne!(free.best, Some(chase));
    assert!(matches!(free.score, Score::Cp(_)), "{:?}", free.score);
}

/// A case of `tests/fixtures/axf_rules.txt` with the AXF rules its comment names.
struct RuleCase {
    case: Case,
    rules: Vec<u32>,
    /// Fairy-Stockfish's different result, where the fixture records one.
    fsf: Option<String>,
}

/// The rule numbers named by a comment line `# AXF rule 12, ...`, `# AXF rules 25-26 ...`.
fn rules_named(comment: &str) -> Option<Vec<u32>> {
    let rest = comment.strip_prefix("AXF rules ").or_else(|| comment.strip_prefix("AXF rule "))?;
    let spec: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    let (lo, hi) = spec.split_once('-').unwrap_or((&spec, &spec));
    let (lo, hi): (u32, u32) = (lo.parse().ok()?, hi.parse().ok()?);
    Some((lo..=hi).collect())
}

fn axf_cases() -> Vec<RuleCase> {
    let text = include_str!("fixtures/axf_rules.txt");
    let mut out = Vec::new();
    let (mut comment, mut rules) = (String::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = line.strip_prefix('#') {
            let c = c.trim();
            if let Some(r) = rules_named(c) {
                comment = c.to_string();
                rules = r;
            }
            continue;
        }
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(matches!(parts.len(), 3 | 4), "line {}", i + 1);
        assert!(!rules.is_empty(), "line {}: no `# AXF rule N` comment before the case", i + 1);
        let fsf = parts.get(3).map(|f| f.strip_prefix("fsf=").unwrap_or_else(|| panic!("line {}", i + 1)).to_string());
        out.push(RuleCase {
            case: Case {
                line: i + 1,
                comment: comment.clone(),
                fen: parts[0].to_string(),
                moves: parts[1].split_whitespace().map(String::from).collect(),
                want: parts[2].to_string(),
            },
            rules: rules.clone(),
            fsf,
        });
    }
    out
}

/// Each case of an implemented AXF rule ends at the third occurrence with the rule's verdict
/// (positions built after the rule book's diagrams, and two cycles of real games; all but one
/// agree with Fairy-Stockfish, and that one is marked in the fixture with the reason).
#[test]
fn every_axf_rule_case() {
    let cases = axf_cases();
    assert!(cases.len() >= 26, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for rc in &cases {
        let (got, outcome) = play(&rc.case);
        if got != rc.case.want {
            let c = &rc.case;
            wrong.push(format!("line {} ({}): want {}, got {got} ({outcome:?})", c.line, c.comment, c.want));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
    // The one recorded difference from Fairy-Stockfish is a real difference, not a typo.
    let differing: Vec<&RuleCase> = cases.iter().filter(|c| c.fsf.is_some()).collect();
    assert_eq!(differing.len(), 1);
    assert_ne!(differing[0].fsf.as_deref(), Some(differing[0].case.want.as_str()));
}

/// `docs/RULES.md` lists every AXF rule from 6 to 36 once, and every rule it calls implemented
/// (wholly or partly) has a case in `tests/fixtures/axf_rules.txt`; rules 18 and 6 also have the
/// real-game and Fairy-Stockfish tests.
#[test]
fn every_implemented_axf_rule_has_a_case() {
    let doc = include_str!("../docs/RULES.md");
    let covered: std::collections::BTreeSet<u32> = axf_cases().iter().flat_map(|c| c.rules.clone()).collect();
    let mut missing = Vec::new();
    for rule in 6..=36u32 {
        let prefix = format!("| {rule} |");
        let rows: Vec<&str> = doc.lines().filter(|l| l.starts_with(&prefix)).collect();
        assert_eq!(rows.len(), 1, "docs/RULES.md: rule {rule} listed {} times", rows.len());
        let status = rows[0].split('|').nth(3).map(str::trim).unwrap_or_default();
        assert!(
            ["implemented", "partly", "not implemented", "not audited"].iter().any(|s| status.starts_with(s)),
            "rule {rule}: status {status:?}"
        );
        let claimed = status.starts_with("implemented") || status.starts_with("partly");
        if claimed && !covered.contains(&rule) {
            missing.push(rule);
        }
    }
    assert!(missing.is_empty(), "implemented rules without a case in axf_rules.txt: {missing:?}");
}

/// Both fixtures give Fairy-Stockfish's verdicts (`tests/fixtures/chase_check.py` with pyffish),
/// but for the one difference `axf_rules.txt` records. Skipped with a message without python3 and
/// pyffish (`pip install pyffish`).
#[test]
fn the_fixtures_agree_with_pyffish_when_it_is_installed() {
    let ok = std::process::Command::new("python3").args(["-c", "import pyffish"]).output();
    if !ok.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: needs python3 with the pyffish package (pip install pyffish)");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/chase_check.py");
    let out = std::process::Command::new("python3").arg(script).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let total = cases().len() + axf_cases().len();
    assert!(stdout.contains(&format!("0 mismatches in {total} cases")), "{stdout}");
}
