//! The Asian rules' values (`.qtr` companions): they change only drawn entries, pass the
//! independent verifier, agree with a brute-force solver of the perpetual-check game, and, above
//! all, the winner who follows them wins under the game referee against any defence.

use crate::tablebase_common;

use qiku::core::game::{EndReason, Game, Outcome};
use qiku::tablebase::format::dtm_of;
use qiku::tablebase::generate::{load, load_rules, verify_rules, TableCache};
use qiku::tablebase::{file_name, highest_line_rank, rules_file_name, Material, Rules, Tablebases, TbValue, Wdl};
use qiku::Rng;
use qiku::{Color, MoveList, Position};
use std::collections::HashMap;
use std::path::Path;
use tablebase_common::fresh_dir;

/// Tables the rule changes, with the positions it changes per side to move (red, black), as
/// `qiku-tb stats MATERIAL --rules asian` prints them (mirror images counted separately).
const CHANGED: &[(&str, [u64; 2])] =
    &[("KRvKN", [624, 2570]), ("KRAvKP", [12, 36]), ("KCAvKR", [486, 54]), ("KRAvKR", [4774, 1626])];

/// Every changed entry of `material` in `dir`: (position, value under the rules).
fn changed_positions(dir: &Path, material: &str) -> Vec<(Position, TbValue)> {
    let m: Material = material.parse().unwrap();
    let plain = std::sync::Arc::new(load(&dir.join(file_name(m))).unwrap());
    let rule = load_rules(&dir.join(rules_file_name(m)), &plain).unwrap();
    let tables = qiku::tablebase::Tablebases::open(dir).unwrap();
    let mut out = Vec::new();
    for (i, (&p, &r)) in plain.codes().iter().zip(rule.codes()).enumerate() {
        if p != r {
            let pos = Position::from_setup_unchecked(&plain.setup(i as u64).unwrap());
            // The value the companion stores for the entry, as a probe under the rules reads it.
            let value = tables.probe_with(&pos, qiku::Rules::Asian).unwrap().expect("covered");
            out.push((pos, value));
        }
    }
    out
}

#[test]
fn the_rule_changes_only_draws_and_every_change_verifies() {
    let dir = fresh_dir("rules_verify", &CHANGED.iter().map(|c| c.0).collect::<Vec<_>>());
    let (mut plain, mut rules) = (TableCache::new(), TableCache::new());
    for &(name, expected) in CHANGED {
        let m: Material = name.parse().unwrap();
        let p = std::sync::Arc::new(load(&dir.join(file_name(m))).unwrap());
        let r = load_rules(&dir.join(rules_file_name(m)), &p).unwrap();
        // Wins and losses never change; only draws become decided.
        for (&a, &b) in p.codes().iter().zip(r.codes()) {
            assert!(a == b || a == 0, "{name}: a decided value changed ({a} -> {b})");
        }
        let (pc, rc) = (p.counts(), r.counts());
        assert_eq!([0, 1].map(|s| pc[s].draws - rc[s].draws), expected, "{name}");
        for s in 0..2 {
            assert_eq!(pc[s].wins + pc[s].losses + pc[s].draws, rc[s].wins + rc[s].losses + rc[s].draws);
        }
        // The rule-aware counts' max_dtm mixes plies to mate and line ranks: the highest line rank
        // read from the changed entries' own codes is what `highest_line_rank` tells apart (as
        // `qiku-tb stats --json` and the server's `/api/tables/{material}` report it).
        let per = p.codes().len() / 2;
        for s in 0..2 {
            let side = s * per..(s + 1) * per;
            let top = p.codes()[side.clone()]
                .iter()
                .zip(&r.codes()[side])
                .filter(|(a, b)| a != b)
                .filter_map(|(_, &b)| dtm_of(b))
                .max()
                .map(u64::from);
            assert_eq!(top.is_some(), expected[s] > 0, "{name}");
            assert_eq!(rc[s].max_dtm, pc[s].max_dtm.max(top.unwrap_or(0)), "{name}");
            assert_eq!(highest_line_rank(&pc[s], &rc[s]), top.filter(|&t| t > pc[s].max_dtm), "{name}");
        }
        let n = verify_rules(&dir, m, &mut plain, &mut rules).unwrap();
        assert!(n > 0, "{name}: no change verified");
    }
    // Every smaller table exists with its companion and verifies too (most change nothing).
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().is_empty(), "{:?}", tb.problems());
    for t in tb.tables() {
        assert!(tb.has_rules(t.material), "{} has no companion", t.material);
        verify_rules(&dir, t.material, &mut plain, &mut rules).unwrap();
    }
}

/// The loser's choice among its moves (with their values).
type Defence<'a> = &'a mut dyn FnMut(&Position, &[(qiku::Move, TbValue)]) -> qiku::Move;

/// Plays from `start`: the winner follows the table's line under the Asian rules, the loser
/// picks by `defend`. Returns the game's outcome and its length in plies.
fn play_out(tb: &Tablebases, start: &Position, winner: Color, defend: Defence) -> (Option<Outcome>, usize) {
    let mut game = Game::new(start.clone());
    for ply in 0..600 {
        if let Some(o) = game.outcome() {
            return (Some(o), ply);
        }
        let pos = game.position().clone();
        let m = if pos.turn() == winner {
            let best = tb.best_moves_with(&pos, Rules::Asian).unwrap().unwrap();
            *best.first().unwrap_or_else(|| panic!("no line from {}", pos.fen()))
        } else {
            let values = tb.move_values_with(&pos, Rules::Asian).unwrap().unwrap();
            defend(&pos, &values)
        };
        game.play(m).unwrap();
    }
    (game.outcome(), 600)
}

/// From every position the rule changes, the winner follows the table: against the loser's
/// longest defence and against random defences, the referee (`Game`, which applies the
/// perpetual-check rule at the third occurrence) declares the win, never a draw.
#[test]
fn the_winner_following_the_table_wins_under_the_referee() {
    let dir = fresh_dir("rules_play", &CHANGED.iter().map(|c| c.0).collect::<Vec<_>>());
    let tb = Tablebases::open(&dir).unwrap();
    let mut rng = Rng::new(0x5eed);
    let mut reasons: HashMap<String, usize> = HashMap::new();
    let mut longest = 0;
    let mut games = 0;
    for &(name, _) in CHANGED {
        for (pos, value) in changed_positions(&dir, name) {
            let winner = if value.wdl == Wdl::Win { pos.turn() } else { !pos.turn() };
            let mut best_defence = |_: &Position, v: &[(qiku::Move, TbValue)]| v[0].0;
            let mut random = |p: &Position, _: &[(qiku::Move, TbValue)]| {
                let mut list = MoveList::new();
                p.legal_moves(&mut list);
                list[rng.below(list.len() as u64) as usize]
            };
            let runs: [Defence; 2] = [&mut best_defence, &mut random];
            for defend in runs {
                let (outcome, plies) = play_out(&tb, &pos, winner, defend);
                games += 1;
                longest = longest.max(plies);
                // The verdict comes within the stored distance (for a value only the rule
                // decides, a rank of the winning line, which bounds the plies in every game so far).
                assert!(plies as u32 <= value.dtm.plies(), "{name} {}: {plies} plies, stored {value}", pos.fen());
                match outcome {
                    Some(Outcome::Decisive { winner: w, reason }) if w == winner => {
                        *reasons.entry(format!("{reason:?}")).or_default() += 1;
                    }
                    other => panic!("{name} {}: expected {winner:?} to win, got {other:?} after {plies}", pos.fen()),
                }
            }
        }
    }
    eprintln!("{games} games, longest {longest} plies, endings {reasons:?}");
    assert!(reasons.get(&format!("{:?}", EndReason::PerpetualCheck)).is_some_and(|&n| n > 0));
}

/// The perpetual-check game solved from its definition, sharing nothing with the generator:
/// positions and plain values from the brute-force solver of `tablebase_common`, then for each
/// side as attacker the textbook fixpoint of the parity game whose moves have priority 3
/// (defender, no check), 2 (attacker, no check) and 1 (any check): the attacker wins the plays
/// whose highest priority seen infinitely often is even, i.e. the defender eventually only checks
/// and the attacker does not. `W = mu Z3. nu Z2. mu Z1. Pre(Z3, Z2, Z1)`, each iterated naively.
fn brute_force_rules(material: Material) -> HashMap<u64, Wdl> {
    let mut memo = HashMap::new();
    tablebase_common::brute_force(material, &mut memo);
    let positions = tablebase_common::all_positions(material);
    let draws: Vec<&Position> = positions.iter().filter(|p| memo[&p.key()].wdl == Wdl::Draw).collect();
    let index: HashMap<u64, usize> = draws.iter().enumerate().map(|(i, p)| (p.key(), i)).collect();
    // Children of each drawn position: (drawn child index or its plain value, gives check).
    let kids: Vec<Vec<(Result<usize, TbValue>, bool)>> = draws
        .iter()
        .map(|p| {
            let mut list = MoveList::new();
            p.legal_moves(&mut list);
            list.iter()
                .map(|&m| {
                    let c = p.play_unchecked(m);
                    let v = match index.get(&c.key()) {
                        Some(&i) => Ok(i),
                        None => Err(memo.get(&c.key()).copied().unwrap_or(TbValue::DRAW)),
                    };
                    (v, c.is_check())
                })
                .collect()
        })
        .collect();
    let mut result: HashMap<u64, Wdl> = positions.iter().map(|p| (p.key(), memo[&p.key()].wdl)).collect();
    for attacker in Color::ALL {
        let n = draws.len();
        let pre = |z3: &[bool], z2: &[bool], z1: &[bool], i: usize| -> bool {
            let attacker_moves = draws[i].turn() == attacker;
            // A decided child is good for the attacker when its side to move is the loser.
            let good = |v: &TbValue, child_turn: Color| {
                (v.wdl == Wdl::Loss && child_turn != attacker) || (v.wdl == Wdl::Win && child_turn == attacker)
            };
            let ok = |&(v, check): &(Result<usize, TbValue>, bool)| match v {
                Err(v) => good(&v, !draws[i].turn()),
                Ok(j) if check => z1[j],
                Ok(j) if attacker_moves => z2[j],
                Ok(j) => z3[j],
            };
            if attacker_moves {
                kids[i].iter().any(ok)
            } else {
                kids[i].iter().all(ok)
            }
        };
        let mut z3 = vec![false; n];
        loop {
            let mut z2 = vec![true; n];
            loop {
                let mut z1 = vec![false; n];
                loop {
                    let next: Vec<bool> = (0..n).map(|i| pre(&z3, &z2, &z1, i)).collect();
                    if next == z1 {
                        break;
                    }
                    z1 = next;
                }
                if z1 == z2 {
                    break;
                }
                z2 = z1;
            }
            if z2 == z3 {
                break;
            }
            z3 = z2;
        }
        for (i, p) in draws.iter().enumerate() {
            if z3[i] {
                result.insert(p.key(), if p.turn() == attacker { Wdl::Win } else { Wdl::Loss });
            }
        }
    }
    result
}

/// Every position of a table the rule changes (and of one it does not), probed under the
/// Asian rules, against the brute-force solution of the perpetual-check game.
#[test]
fn a_brute_force_solver_agrees_on_every_position() {
    let names = ["KRvKN", "KRvKP"];
    let dir = fresh_dir("rules_brute", &names);
    let tb = Tablebases::open(&dir).unwrap();
    for name in names {
        let m: Material = name.parse().unwrap();
        let brute = brute_force_rules(m);
        let mut changed = 0;
        for p in tablebase_common::all_positions(m) {
            let v = tb.probe_with(&p, Rules::Asian).unwrap().unwrap();
            let plain = tb.probe_with(&p, Rules::Plain).unwrap().unwrap();
            changed += (v != plain) as usize;
            assert_eq!(v.wdl, brute[&p.key()], "{name} {}", p.fen());
        }
        eprintln!("{name}: {} positions agree, {changed} decided by the rule", brute.len());
    }
}

/// Writes `QIKU_RULE_OPENINGS` (default `rule-openings.txt`): positions of the tables in
/// `QIKU_TB_DIR` that only the rule decides, spread evenly, one FEN per line, for the match of
/// rule-aware against plain tables (`docs/TABLEBASES.md`). Run by hand:
/// `QIKU_TB_DIR=DIR cargo test --release --test qiku -- --ignored --nocapture tablebase_rules::rule_openings`.
#[test]
#[ignore]
fn rule_openings() {
    let dir = std::path::PathBuf::from(std::env::var("QIKU_TB_DIR").unwrap_or_else(|_| "tablebases".into()));
    let out = std::env::var("QIKU_RULE_OPENINGS").unwrap_or_else(|_| "rule-openings.txt".into());
    let want: usize = std::env::var("QIKU_RULE_OPENINGS_COUNT").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let tb = Tablebases::open(&dir).unwrap();
    let mut all = Vec::new();
    for t in tb.tables().into_iter().filter(|t| tb.has_rules(t.material)) {
        let m = t.material.to_string();
        for (pos, v) in changed_positions(&dir, &m) {
            // The attacker to move, with no mate in its reach for the plain tables either.
            if v.wdl == Wdl::Win {
                all.push((m.clone(), pos.fen()));
            }
        }
    }
    let step = (all.len() / want).max(1);
    let picked: Vec<String> = all.iter().step_by(step).take(want).map(|(_, f)| f.clone()).collect();
    let per_table = picked.iter().fold(HashMap::new(), |mut h: HashMap<String, usize>, f| {
        let m = all.iter().find(|(_, x)| x == f).map(|(m, _)| m.clone()).unwrap_or_default();
        *h.entry(m).or_default() += 1;
        h
    });
    std::fs::write(&out, picked.join("\n") + "\n").unwrap();
    eprintln!("{} of {} rule-decided positions written to {out}: {per_table:?}", picked.len(), all.len());
}

/// Companions are refused when they do not fit: a `.qtr` under a `.qtb` name (metric 2 where
/// metric 1 belongs) and the reverse, a companion without its table, a truncated companion; a
/// table without its companion answers plain values and names the missing file under the rules.
#[test]
fn misplaced_or_damaged_companions_are_refused() {
    let dir = fresh_dir("rules_hostile", &["KRvKN"]);
    let qtb = dir.join("KRvKN.qtb");
    let qtr = dir.join("KRvKN.qtr");
    let (table, companion) = (std::fs::read(&qtb).unwrap(), std::fs::read(&qtr).unwrap());
    let fen = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1"; // drawn without the rule, won with it
    let pos = Position::from_fen(fen).unwrap();
    // Swapped contents: each is refused for its metric, naming the file.
    std::fs::write(&qtb, &companion).unwrap();
    std::fs::write(&qtr, &table).unwrap();
    let err = qiku::tablebase::format::TableFile::open(&qtb).err().unwrap().to_string();
    assert!(err.contains("KRvKN.qtb") && err.contains("metric"), "{err}");
    let err = qiku::tablebase::format::TableFile::open(&qtr).err().unwrap().to_string();
    assert!(err.contains("KRvKN.qtr") && err.contains("metric"), "{err}");
    // Truncated companion: a problem of the directory, and the probe under the rules fails.
    std::fs::write(&qtb, &table).unwrap();
    std::fs::write(&qtr, &companion[..companion.len() / 2]).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert_eq!(tb.problems().len(), 1, "{:?}", tb.problems());
    assert!(tb.probe_with(&pos, Rules::Asian).is_err());
    assert_eq!(tb.probe_with(&pos, Rules::Plain).unwrap().unwrap().wdl, Wdl::Draw);
    // No companion: plain values still, and under the rules an error naming the missing file.
    std::fs::remove_file(&qtr).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().is_empty());
    let err = tb.probe_with(&pos, Rules::Asian).err().unwrap().to_string();
    assert!(err.contains("KRvKN.qtr") && err.contains("missing"), "{err}");
    // A companion without its table is listed, not used.
    std::fs::write(&qtr, &companion).unwrap();
    std::fs::remove_file(&qtb).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert!(tb.problems().iter().any(|p| p.to_string().contains("without its table")), "{:?}", tb.problems());
    // Intact again: the rule decides the position.
    std::fs::write(&qtb, &table).unwrap();
    let tb = Tablebases::open(&dir).unwrap();
    assert_eq!(tb.probe_with(&pos, Rules::Asian).unwrap().unwrap().wdl, Wdl::Win);
}

/// Without the rule-aware pass (`qiku-tb generate --no-rules`) no companion is written; a later
/// run with it keeps the tables byte for byte and adds companions identical to those of a run
/// that had the pass from the start.
#[test]
fn companions_can_be_added_to_a_set_generated_without_them() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rules_added_later");
    let _ = std::fs::remove_dir_all(&dir);
    let krkn: Material = "KRvKN".parse().unwrap();
    let opts = qiku::tablebase::generate::GenerateOptions::new(&dir).rules(false);
    let reports = qiku::tablebase::generate::generate_set(&[krkn], &opts).unwrap();
    assert!(reports.iter().all(|r| r.rules_bytes == 0 && r.changed == [0, 0]));
    let names = |d: &Path| {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    };
    assert!(names(&dir).iter().all(|n| n.ends_with(".qtb")), "{:?}", names(&dir));
    let tables: Vec<(String, Vec<u8>)> =
        names(&dir).into_iter().map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap())).collect();
    let reports =
        qiku::tablebase::generate::generate_set(&[krkn], &qiku::tablebase::generate::GenerateOptions::new(&dir))
            .unwrap();
    assert!(reports.iter().map(|r| r.changed[0] + r.changed[1]).sum::<u64>() > 0, "KRvKN has rule-decided positions");
    for (name, bytes) in &tables {
        assert_eq!(&std::fs::read(dir.join(name)).unwrap(), bytes, "{name} was rewritten");
    }
    let fresh = fresh_dir("rules_from_the_start", &["KRvKN"]);
    assert_eq!(names(&dir), names(&fresh));
    for name in names(&fresh) {
        assert_eq!(std::fs::read(dir.join(&name)).unwrap(), std::fs::read(fresh.join(&name)).unwrap(), "{name}");
    }
}
