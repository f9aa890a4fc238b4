//! `qiku match --sprt`: the test's running lines, its decision and early stop, the JSON fields,
//! pairs finishing out of order with `--concurrency`, and `--pin` (engines on cores of their own).

use crate::common;

use common::run_with_timeout;
use qiku_cli::matchrunner::cpus;
use std::path::Path;

const QIKU: &str = env!("CARGO_BIN_EXE_qiku");

/// A fake UCI engine that answers every `go` with an illegal move (so it loses every game).
fn loser(dir: &Path) -> String {
    let path = dir.join("loser");
    let body = "#!/bin/sh\nwhile read line; do\n case \"$line\" in\n  uci) echo \"id name loser\"; echo uciok;;\n  isready) echo readyok;;\n  go*) echo 'bestmove e0e5';;\n  quit) exit 0;;\n esac\ndone\n";
    write_script(&path, body);
    path.display().to_string()
}

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    let mut perm = std::fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(path, perm).unwrap();
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The running SPRT lines: (games, pentanomial, LLR).
fn sprt_lines(out: &str) -> Vec<(u32, [u32; 5], f64)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("SPRT: games "))
        .map(|rest| {
            let (games, rest) = rest.split_once(", pentanomial [").unwrap();
            let (penta, rest) = rest.split_once("], LLR ").unwrap();
            let counts: Vec<u32> = penta.split(", ").map(|c| c.parse().unwrap()).collect();
            let llr = rest.split_whitespace().next().unwrap().parse().unwrap();
            (games.parse().unwrap(), counts.try_into().unwrap(), llr)
        })
        .collect()
}

/// Runs `qiku` with `args` (split at whitespace; the paths here have none) within `seconds`.
fn qiku_match(args: &str, seconds: u64) -> std::process::Output {
    run_with_timeout(QIKU, &args.split_whitespace().collect::<Vec<_>>(), seconds)
}

fn game_lines(out: &str) -> usize {
    out.lines().filter(|l| l.starts_with("game ")).count()
}

#[test]
fn a_winning_engine_is_accepted_as_h1_and_the_match_stops_there() {
    let dir = tempfile::tempdir().unwrap();
    let bad = loser(dir.path());
    let out =
        qiku_match(&format!("match --engine {QIKU} --engine {bad} --ranks 0 --depth 1 --games 400 --sprt 0 10"), 60);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines = sprt_lines(&stdout);
    // One line per finished pair, every pair won twice; the match stops at the first LLR at or
    // above the upper bound ln(0.95 / 0.05) = 2.94, long before 400 games.
    assert!(!lines.is_empty());
    for (k, (games, penta, _)) in lines.iter().enumerate() {
        let pairs = k as u32 + 1;
        assert_eq!((*games, *penta), (2 * pairs, [0, 0, 0, 0, pairs]), "{stdout}");
    }
    let (games, _, llr) = *lines.last().unwrap();
    assert!(llr >= 2.94, "{stdout}");
    assert!(lines[..lines.len() - 1].iter().all(|l| l.2 < 2.94), "{stdout}");
    assert!(games < 400);
    assert_eq!(game_lines(&stdout), games as usize, "no game starts after the decision");
    assert!(stdout.contains(&format!("+{games} =0 -0 of {games} games")), "{stdout}");
    assert!(stdout.contains("LLR 2.9"), "{stdout}");
    assert!(stdout.contains("(-2.94, 2.94) [0.00, 10.00]"), "{stdout}");
    assert!(stdout.trim_end().lines().any(|l| l == "SPRT: H1 accepted"), "{stdout}");
}

#[test]
fn a_losing_engine_is_accepted_as_h0_with_logistic_elo_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let bad = loser(dir.path());
    let out = qiku_match(
        &format!(
            "match --engine {bad} --ranks 0 --engine {QIKU} --depth 1 --games 400 \
             --sprt -5 5 --sprt-model logistic --alpha 0.1 --beta 0.2 --json"
        ),
        60,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["sprt"];
    assert_eq!(s["model"], "logistic");
    assert_eq!((s["elo0"].as_f64(), s["elo1"].as_f64()), (Some(-5.0), Some(5.0)));
    assert_eq!((s["alpha"].as_f64(), s["beta"].as_f64()), (Some(0.1), Some(0.2)));
    let (lower, upper) = (s["lower"].as_f64().unwrap(), s["upper"].as_f64().unwrap());
    assert!((lower - (0.2f64 / 0.9).ln()).abs() < 1e-12, "{s}");
    assert!((upper - (0.8f64 / 0.1).ln()).abs() < 1e-12, "{s}");
    assert_eq!(s["decision"], "H0");
    assert!(s["llr"].as_f64().unwrap() <= lower, "{s}");
    let pairs = s["pairs"].as_u64().unwrap();
    assert_eq!(s["pentanomial"], serde_json::json!([pairs, 0, 0, 0, 0]));
    assert_eq!(v["games"].as_u64(), Some(2 * pairs));
    assert_eq!(v["losses"].as_u64(), Some(2 * pairs));
    assert_eq!(s["late_games"], 0);
    // The running lines go to stderr with --json; the last is the deciding pair.
    let lines = sprt_lines(&text(&out.stderr));
    assert_eq!(lines.len() as u64, pairs);
    assert_eq!(lines.last().unwrap().1, [pairs as u32, 0, 0, 0, 0]);
}

#[test]
fn pairs_finishing_out_of_order_are_counted_once_both_games_are_done() {
    // Two games at a time: a pair's two games run side by side and finish in either order.
    let out = qiku_match(
        &format!(
            "match --engine {QIKU} --engine {QIKU} --depth 1 --max-plies 60 --games 8 --concurrency 2 --sprt 0 10 --json"
        ),
        60,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["sprt"];
    assert_eq!(v["games"], 8);
    assert_eq!(s["pairs"], 4);
    let counts: Vec<u64> = s["pentanomial"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
    assert_eq!(counts.iter().sum::<u64>(), 4);
    // Points from the pentanomial (half points 0..4 per pair) equal the match score.
    let half_points: u64 = counts.iter().enumerate().map(|(k, c)| k as u64 * c).sum();
    assert_eq!(half_points as f64 / 2.0, v["score"].as_f64().unwrap() * 8.0);
    assert_eq!(s["decision"], "none", "four pairs cannot decide [0, 10]");
    let stderr = text(&out.stderr);
    let lines = sprt_lines(&stderr);
    assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), [2, 4, 6, 8], "{stderr}");
    for (games, penta, _) in &lines {
        assert_eq!(2 * penta.iter().sum::<u32>(), *games);
    }
}

#[test]
fn with_two_games_at_a_time_the_decision_stops_new_games() {
    let dir = tempfile::tempdir().unwrap();
    let bad = loser(dir.path());
    let out = qiku_match(
        &format!(
            "match --engine {QIKU} --engine {bad} --ranks 0 --depth 1 --games 400 --concurrency 2 --sprt 0 10 --json"
        ),
        60,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["sprt"];
    assert_eq!(s["decision"], "H1");
    let pairs = s["pairs"].as_u64().unwrap();
    let games = v["games"].as_u64().unwrap();
    // At the decision, at most one game was running and at most one other had its partner
    // still running; the running one finishes and is scored but not tested.
    assert!((2 * pairs..=2 * pairs + 2).contains(&games), "{games} games, {pairs} pairs");
    assert!(s["late_games"].as_u64().unwrap() <= 1, "{s}");
    assert_eq!(s["pentanomial"], serde_json::json!([0, 0, 0, 0, pairs]));
}

#[test]
fn bad_sprt_arguments_are_refused_with_the_reason() {
    let cases: [(&[&str], &str); 5] = [
        (&["--games", "7", "--sprt", "0", "5"], "give an even --games, not 7"),
        (&["--sprt", "5", "0"], "the first (H0) below the second (H1)"),
        (&["--sprt", "0", "5", "--alpha", "0.7", "--beta", "0.4"], "their sum below 1"),
        (&["--sprt", "0", "5", "--sprt-model", "bayes"], "expected normalized or logistic"),
        (&["--alpha", "0.1"], "--sprt"),
    ];
    for (extra, message) in cases {
        let mut args = vec!["match", "--engine", QIKU, "--engine", QIKU, "--depth", "1"];
        args.extend_from_slice(extra);
        let out = run_with_timeout(QIKU, &args, 30);
        assert!(!out.status.success(), "{extra:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn pinned_engines_run_on_cores_of_their_own_or_the_match_is_refused() {
    let cpus = cpus::allowed_cpus().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Each engine is a wrapper that writes its allowed cores to a file, then becomes qiku.
    let mut engines = Vec::new();
    for n in 1..=2 {
        let path = dir.path().join(format!("engine{n}"));
        let log = dir.path().join(format!("cores{n}"));
        write_script(
            &path,
            &format!("#!/bin/sh\ngrep Cpus_allowed_list /proc/$$/status >> {}\nexec {QIKU}\n", log.display()),
        );
        engines.push(path.display().to_string());
    }
    let slots = cpus.len() / 2;
    // One slot more than the cores allow: refused, saying why.
    let too_many = (slots + 1).to_string();
    let out = run_with_timeout(
        QIKU,
        &["match", "--engine", &engines[0], "--engine", &engines[1], "--depth", "1", "--games", "4", "--pin"]
            .into_iter()
            .chain(["--concurrency", too_many.as_str()])
            .collect::<Vec<_>>(),
        30,
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("pinning needs two cores per game played at a time"), "{stderr}");
    assert!(!dir.path().join("cores1").exists(), "no engine starts when pinning is refused");
    if slots == 0 {
        eprintln!("one core only: the pinned match itself is not tried");
        return;
    }
    let out = qiku_match(
        &format!("match --engine {} --engine {} --depth 1 --max-plies 20 --games 2 --pin", engines[0], engines[1]),
        60,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (n, cpu) in [(1, cpus[0]), (2, cpus[1])] {
        let log = std::fs::read_to_string(dir.path().join(format!("cores{n}"))).unwrap();
        assert!(!log.is_empty());
        for line in log.lines() {
            assert_eq!(line.split(':').nth(1).map(str::trim), Some(cpu.to_string().as_str()), "engine {n}: {log}");
        }
    }
}

#[test]
fn a_fixed_node_count_warns_when_games_would_repeat_and_not_before() {
    let dir = tempfile::tempdir().unwrap();
    let bad = loser(dir.path());
    let openings = dir.path().join("one.txt");
    std::fs::write(&openings, "h2e2 h9g7\n").unwrap();
    let run = |games: u32, limit: &str| {
        let out = qiku_match(
            &format!(
                "match --engine {QIKU} --engine {bad} --ranks 0 {limit} --games {games} --openings {}",
                openings.display()
            ),
            60,
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(game_lines(&text(&out.stdout)), games as usize);
        text(&out.stderr)
    };
    // One opening gives two different games (both colours); a third repeats the first.
    let warned = run(4, "--nodes 200");
    assert!(
        warned.contains("warning: with --nodes") && warned.contains("1 opening gives 2 different games"),
        "{warned}"
    );
    assert!(warned.contains("at least 2 openings"), "{warned}");
    assert!(run(4, "--depth 1").contains("warning: with --depth"));
    // Two games, or a time limit, repeat nothing: no warning.
    assert!(!run(2, "--nodes 200").contains("warning"));
    assert!(!run(4, "--movetime 20").contains("warning"));
}

#[test]
fn the_shipped_openings_file_holds_3000_distinct_legal_openings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-openings-10ply.txt");
    let openings = qiku_cli::matchrunner::openings::load(&path).expect("every line is a legal opening");
    assert_eq!(openings.len(), 3000);
    let lines: std::collections::HashSet<String> =
        std::fs::read_to_string(&path).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3000, "distinct");
    assert!(lines.iter().all(|l| l.split_whitespace().count() == 10));
}
