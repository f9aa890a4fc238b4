//! The README quick start's main job: `qiku demo` compiles the shipped real master games into a
//! book, shows the start position's book moves with their results, generates the tables of up to
//! four pieces and probes an endgame. Run in a temporary root holding a copy of the collection,
//! so that the test neither needs nor touches the checkout's `books/` and `tablebases/`.

use std::path::Path;
use std::process::Command;

fn run_demo(root: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_qiku"))
        .args(["demo", "--max-pieces", "4", "--root"])
        .arg(root)
        .output()
        .expect("run qiku demo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "demo failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn demo_builds_its_book_from_the_shipped_master_games() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("books/games");
    std::fs::create_dir_all(&games).unwrap();
    let collection = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/games/ccpd-iccs.pgn.zst");
    std::fs::copy(collection, games.join("ccpd-iccs.pgn.zst")).unwrap();

    let out = run_demo(dir.path());
    // Every game of the ICCS collection is used (the count the PGN reader test pins too).
    assert!(out.contains("25368 games read, 25368 used"), "{out}");
    assert!(out.contains("CC BY 4.0"), "the demo names the collection's licence: {out}");
    // The start position's book moves, most played first: the central cannon in 15,609 games
    // (counted independently by tests/book_data.rs's recount of the same file).
    let first = out.lines().skip_while(|l| !l.contains("games   red%")).nth(1).unwrap_or_default().to_string();
    let cols: Vec<&str> = first.split_whitespace().collect();
    assert_eq!(cols.first(), Some(&"h2e2"), "{out}");
    assert_eq!(cols.get(2), Some(&"15609"), "{out}");
    assert!(dir.path().join("books/ccpd-iccs.qbk").is_file());
    // Tables and the rook-against-advisor probe: a win, mate in 5 plies.
    assert!(out.contains("   win, mate in 5 plies (asian rules)\n"), "{out}");
}

#[test]
fn demo_outside_a_checkout_falls_back_to_the_embedded_repertoire() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_demo(dir.path());
    assert!(out.contains("using the small repertoire embedded in qiku instead"), "{out}");
    let book = dir.path().join("books/repertoire.qbk");
    assert!(book.is_file());
    // Step 2 shows what its caption's command prints (it showed columns of its own).
    let caption = format!("== 2. Book moves of the start position: qiku-book probe {} startpos", book.display());
    let shown: String = out
        .lines()
        .skip_while(|l| *l != caption)
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| format!("{}\n", l.strip_prefix("   ").unwrap_or(l)))
        .collect();
    let probe = Command::new(env!("CARGO_BIN_EXE_qiku-book")).arg("probe").arg(&book).arg("startpos").output().unwrap();
    assert!(probe.status.success());
    assert_eq!(shown, String::from_utf8_lossy(&probe.stdout), "{out}");
    assert!(shown.contains("games   red%  draw% black% score%"), "{shown}");
    assert!(out.contains("   win, mate in 5 plies (asian rules)\n"), "{out}");
}
