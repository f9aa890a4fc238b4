//! The analysis commands: `qiku analyze --multipv` (text and JSON), `qiku annotate`, and
//! progress reports when stderr is not a terminal.

use std::collections::HashSet;
use std::process::{Command, Output};

fn qiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qiku")).args(args).output().expect("start qiku")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "status {:?}, stderr {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn analyze_multipv_text_lines() {
    let text = stdout(&qiku(&["analyze", "--depth", "4", "--multipv", "3"]));
    let last: Vec<&str> = text.lines().filter(|l| l.starts_with("depth 4 ")).collect();
    assert_eq!(last.len(), 3, "{text}");
    let mut firsts = HashSet::new();
    for (k, l) in last.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", k + 1)), "{l}");
        let pv = l.split(" pv ").nth(1).unwrap_or_else(|| panic!("no pv in {l}"));
        firsts.insert(pv.split_whitespace().next().unwrap().to_string());
    }
    assert_eq!(firsts.len(), 3, "{text}");
}

#[test]
fn analyze_multipv_json_is_capped_and_sorted() {
    // Black: a king and a pawn across the river, five legal moves; ask for twenty lines.
    let fen = "4k4/9/9/9/9/9/2p6/9/9/3K5 b";
    let out = stdout(&qiku(&["analyze", fen, "--depth", "3", "--multipv", "20", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lines = v["multipv"].as_array().unwrap();
    let legal = qiku::Position::from_fen(fen).unwrap().moves().len();
    assert_eq!(lines.len(), legal, "{out}");
    let firsts: HashSet<&str> = lines.iter().map(|l| l["pv"][0].as_str().unwrap()).collect();
    assert_eq!(firsts.len(), legal);
    let ks: Vec<u64> = lines.iter().map(|l| l["multipv"].as_u64().unwrap()).collect();
    assert_eq!(ks, (1..=legal as u64).collect::<Vec<_>>());
    assert_eq!(v["bestmove"], lines[0]["pv"][0]);
    // In another notation every line is in it, as the best move and the main line are.
    let out = stdout(&qiku(&["analyze", fen, "--depth", "3", "--multipv", "2", "--notation", "chinese", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["bestmove"], v["multipv"][0]["pv"][0], "{out}");
    let chinese = |m: &serde_json::Value| m.as_str().is_some_and(|m| m.chars().count() == 4 && !m.is_ascii());
    assert!(v["multipv"].as_array().unwrap().iter().all(|l| l["pv"].as_array().unwrap().iter().all(chinese)), "{out}");
    // Each line's score is centipawns or a mate, never both.
    assert!(v["multipv"].as_array().unwrap().iter().all(|l| l["cp"].is_i64() != l["mate"].is_i64()), "{out}");
    // The ponder move has its ICCS twin as the best move has: the main line's second move.
    assert!(chinese(&v["ponder"]), "{out}");
    assert_eq!((&v["bestmove_iccs"], &v["ponder_iccs"]), (&v["pv_iccs"][0], &v["pv_iccs"][1]), "{out}");
    // No legal move: no best move, null (not a word) in every notation.
    let out = stdout(&qiku(&["analyze", "3k5/9/9/9/9/9/9/9/9/3RK4 b", "--depth", "3", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["bestmove"].is_null() && v["bestmove_iccs"].is_null() && v["ponder"].is_null(), "{out}");
    // Mated now: mate 0, and no centipawns (the server's and Python's two fields).
    assert_eq!((&v["cp"], &v["mate"]), (&serde_json::Value::Null, &serde_json::json!(0)), "{out}");
    // Out of range: refused.
    let out = qiku(&["analyze", "--depth", "1", "--multipv", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--multipv"));
}

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().expect("start binary")
}

fn repertoire() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/repertoire.pgn")
}

/// The move tokens of every game of a PGN text, as the reader delivers them.
fn tokens(text: &str) -> Vec<Vec<String>> {
    use qiku::pgn::{Location, Reader, Skip, Visitor};
    struct Moves(Vec<Vec<String>>);
    impl Visitor for Moves {
        fn begin_game(&mut self, _loc: Location) {
            self.0.push(Vec::new());
        }
        fn move_token(&mut self, token: &str, _loc: Location) -> Skip {
            self.0.last_mut().unwrap().push(token.to_string());
            Skip::Continue
        }
        fn end_game(&mut self, _loc: Location) {}
        fn malformed(&mut self, e: &qiku::pgn::SyntaxError) {
            panic!("the annotated games do not read back: {e}");
        }
    }
    let mut m = Moves(Vec::new());
    Reader::new(text.as_bytes()).read_all(&mut m).unwrap();
    m.0
}

/// The text without the comments annotate inserts (` {book ...}`, ` {eval ...}`, ` {table ...}`),
/// and how many it removed.
fn strip_annotations(text: &str) -> (String, usize) {
    let mut out = String::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(i) = rest.find(" {") {
        let body = &rest[i + 2..];
        let ours = ["book ", "eval ", "table ", "red has", "black has"].iter().any(|p| body.starts_with(p));
        let close = body.find('}').unwrap();
        out.push_str(&rest[..i]);
        if ours {
            n += 1;
        } else {
            out.push_str(&rest[i..i + 3 + close]);
        }
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    (out, n)
}

#[test]
fn annotate_a_shipped_game_with_the_shipped_book() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    let built =
        run(env!("CARGO_BIN_EXE_qiku-book"), &["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap()]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let out = dir.path().join("annotated.pgn");
    let r = qiku(&[
        "annotate",
        repertoire().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--book",
        book.to_str().unwrap(),
        "--depth",
        "2",
    ]);
    let said = stdout(&r);
    assert!(said.contains("34 of 34 games annotated (354 moves)"), "{said}");
    let input = std::fs::read_to_string(repertoire()).unwrap();
    let output = std::fs::read_to_string(&out).unwrap();
    // The same games, moves and everything else byte for byte; one comment per move.
    assert_eq!(tokens(&output), tokens(&input));
    let (stripped, comments) = strip_annotations(&output);
    assert_eq!(stripped, input);
    assert_eq!(comments, 354);
    // The first move of the first game: 炮二平五 from the start, 22 of the 34 games (red 12,
    // draw 5, black 5, as the book probe counts them), and an evaluation.
    let first = output.split("1. 炮二平五 {").nth(1).unwrap();
    let first = &first[..first.find('}').unwrap()];
    assert!(first.starts_with("book 22 games: red 12, draw 5, black 5; eval "), "{first}");
    assert!(first.ends_with("for red (depth 2)"), "{first}");
    let probe = run(env!("CARGO_BIN_EXE_qiku-book"), &["probe", book.to_str().unwrap(), "startpos", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    let h2e2 = v["moves"].as_array().unwrap().iter().find(|m| m["move"] == "h2e2").unwrap().clone();
    assert_eq!((h2e2["wins"].as_u64(), h2e2["draws"].as_u64(), h2e2["losses"].as_u64()), (Some(12), Some(5), Some(5)));
}

#[test]
fn annotate_states_table_values_with_rule_and_unit() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().join("tb");
    let made = run(env!("CARGO_BIN_EXE_qiku-tb"), &["generate", "-d", tb.to_str().unwrap(), "KRvKN", "--json"]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let pgn = dir.path().join("end.pgn");
    // Red's king steps into the KRvKN position that only the perpetual-check rule decides; then
    // black moves its king.
    std::fs::write(&pgn, "[FEN \"4k4/9/9/8R/9/9/8n/9/5K3/9 w - - 0 1\"]\n\n1. f1f0 e9d9 *\n").unwrap();
    let out = dir.path().join("end-annotated.pgn");
    let r = qiku(&[
        "annotate",
        pgn.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--tb",
        tb.to_str().unwrap(),
        "--no-eval",
    ]);
    assert!(stdout(&r).contains("1 of 1 games annotated (2 moves)"), "{}", stdout(&r));
    let text = std::fs::read_to_string(&out).unwrap();
    let comments: Vec<&str> = text.split('{').skip(1).map(|c| &c[..c.find('}').unwrap()]).collect();
    assert_eq!(comments.len(), 2, "{text}");
    // The values are the library's verdicts of the same positions, told from red's and black's side.
    let tables = qiku::tablebase::Tablebases::open(&tb).unwrap();
    let mut pos = qiku::Position::from_fen("4k4/9/9/8R/9/9/8n/9/5K3/9 w - - 0 1").unwrap();
    pos.make_move(qiku::notation::iccs::parse(&pos, "f1f0").unwrap());
    let v = tables.verdict(&pos, qiku::Rules::Asian).unwrap().unwrap();
    assert!(v.by_rule && v.value.wdl == qiku::Wdl::Loss, "{v}");
    assert_eq!(
        comments[0],
        format!(
            "table (asian rules): red wins by the perpetual-check rule: black can only check forever (line rank {}, \
             not plies to mate)",
            v.value.dtm.plies()
        )
    );
    pos.make_move(qiku::notation::iccs::parse(&pos, "e9d9").unwrap());
    let v = tables.verdict(&pos, qiku::Rules::Asian).unwrap().unwrap();
    let expected = match (v.value.wdl, v.by_rule) {
        (qiku::Wdl::Draw, _) => "table (asian rules): draw".to_string(),
        (qiku::Wdl::Win, false) => format!("table (asian rules): red wins, mate in {} plies", v.value.dtm.plies()),
        (qiku::Wdl::Loss, false) => format!("table (asian rules): black wins, mate in {} plies", v.value.dtm.plies()),
        (_, true) => comments[1].to_string(),
    };
    assert_eq!(comments[1], expected);
    assert!(comments[1].contains("perpetual-check rule") == v.by_rule, "{}", comments[1]);
}

/// The table part and the engine's part of one comment count a mate in the same unit: plies
/// (a mate the search finds in n moves is 2n - 1 plies for the side that mates), one ply singular.
#[test]
fn annotate_counts_table_and_engine_mates_in_plies_alike() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().join("tb");
    let made = run(env!("CARGO_BIN_EXE_qiku-tb"), &["generate", "-d", tb.to_str().unwrap(), "KRvKA", "--json"]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let pgn = dir.path().join("mate.pgn");
    std::fs::write(&pgn, "[FEN \"4k4/4a4/9/9/9/9/9/9/4R4/3K5 w - - 0 1\"]\n\n1. e1e3 e9f9 *\n").unwrap();
    let out = dir.path().join("mate-annotated.pgn");
    let args = ["annotate", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "--tb", tb.to_str().unwrap()];
    let r = qiku(&[&args[..], &["--depth", "6"]].concat());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let comments: Vec<&str> = text.split('{').skip(1).map(|c| &c[..c.find('}').unwrap()]).collect();
    // A mate in p plies is settled at depth 2p + 2, where the search stops short of `--depth`:
    // the mate in 1 ply at depth 4.
    assert_eq!(
        comments,
        [
            "table (asian rules): red wins, mate in 2 plies; eval red mates in 2 plies (depth 6)",
            "table (asian rules): red wins, mate in 1 ply; eval red mates in 1 ply (depth 4)",
        ],
        "{text}"
    );
}

#[test]
fn annotate_refuses_its_input_as_output_and_skips_bad_games() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("g.pgn");
    let text =
        "[Event \"a\"]\n\n1. h2e2 h9g7 *\n\n[Event \"b\"]\n\n1. h2e2 h9g7 2. a0a5 *\n\n[Event \"c\"]\n\n1. b2e2 *\n";
    std::fs::write(&pgn, text).unwrap();
    // The same file through another spelling: refused, untouched.
    let same = dir.path().join(".").join("g.pgn");
    let r = qiku(&["annotate", pgn.to_str().unwrap(), "-o", same.to_str().unwrap(), "--depth", "1"]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("the output is the input file"));
    assert_eq!(std::fs::read_to_string(&pgn).unwrap(), text);
    // Game 2's third move is illegal: copied unchanged, reported by game and line.
    let out = dir.path().join("out.pgn");
    let r = qiku(&["annotate", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1", "-q"]);
    assert!(stdout(&r).contains("2 of 3 games annotated (3 moves), 1 skipped"));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("game 2 (line 7): move \"a0a5\""), "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("\n1. h2e2 h9g7 2. a0a5 *\n"), "{written}");
    let (stripped, n) = strip_annotations(&written);
    assert_eq!((stripped.as_str(), n), (text, 3));
    // No temporary file left beside the output.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A compressed file damaged part way: refused before anything is written, saying why (an
/// annotated copy would lose the games after the damage) and what uses the games before it.
#[test]
fn annotate_refuses_a_damaged_file_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let zst =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-iccs.pgn.zst"));
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &zst.unwrap()[..30_000]).unwrap();
    let out = dir.path().join("out.pgn");
    let r = qiku(&["annotate", cut.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1", "-q"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("cut.pgn.zst: decompression failed at byte "), "{err}");
    assert!(err.contains("; nothing written: the annotated copy would lose the games after the damage"), "{err}");
    assert!(!out.exists());
}

/// A bad FEN tag is named at its own line and column, as the book builder names it, not at the
/// first line of its game.
#[test]
fn annotate_names_a_bad_fen_tag_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("fen.pgn");
    // Game 2 starts on line 5; its FEN tag is on line 7, after another tag on the same line.
    let text =
        "[Event \"a\"]\n\n1. h2e2 *\n\n[Event \"b\"]\n[Round \"1\"]\n[Site \"c\"] [FEN \"garbage\"]\n\n1. h2e2 *\n";
    std::fs::write(&pgn, text).unwrap();
    let out = dir.path().join("out.pgn");
    let r = qiku(&["annotate", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1", "-q"]);
    assert!(stdout(&r).contains("1 of 2 games annotated (1 moves), 1 skipped"), "{}", stdout(&r));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("game 2 (line 7): bad FEN tag \"garbage\" at column 12: "), "{err}");
    // The book builder names the same place.
    let qbk = dir.path().join("fen.qbk");
    let b = run(env!("CARGO_BIN_EXE_qiku-book"), &["build", pgn.to_str().unwrap(), "-o", qbk.to_str().unwrap(), "-q"]);
    let err = String::from_utf8_lossy(&b.stderr);
    assert!(err.contains("game 2, line 7, column 12: malformed header: FEN tag \"garbage\""), "{err}");
}

/// A syntax error in a game's moves is named at the line of the bad token, once, not at the first
/// line of its game; the game is still copied unchanged.
#[test]
fn annotate_names_a_syntax_error_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("syntax.pgn");
    // Game 2 starts on line 5; the stray `)` is on line 10, column 9.
    let text = "[Event \"a\"]\n\n1. h2e2 h9g7 *\n\n[Event \"b\"]\n[Round \"2\"]\n\n1. h2e2 h9g7\n2. h0g2 i9h9\n\
                3. i0h0 ) b9c7 *\n";
    std::fs::write(&pgn, text).unwrap();
    let out = dir.path().join("out.pgn");
    let r = qiku(&["annotate", pgn.to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1", "-q"]);
    assert!(stdout(&r).contains("1 of 2 games annotated (2 moves), 1 skipped"), "{}", stdout(&r));
    let err = String::from_utf8_lossy(&r.stderr);
    let skipped: Vec<&str> = err.lines().filter(|l| l.contains("copied without comments")).collect();
    assert_eq!(skipped.len(), 1, "{err}");
    assert!(
        skipped[0].contains("syntax.pgn game 2 (line 10): syntax error at column 9: unexpected character ')'"),
        "{err}"
    );
    assert_eq!(skipped[0].matches("line").count(), 1, "the line is said once: {err}");
    // Game 2 is copied as it was; only game 1 gets comments.
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.ends_with("\n1. h2e2 h9g7\n2. h0g2 i9h9\n3. i0h0 ) b9c7 *\n"), "{written}");
    let (stripped, n) = strip_annotations(&written);
    assert_eq!((stripped.as_str(), n), (text, 2));
}

/// The move tokens of game `number` (1-based) of the shipped ICCS collection.
fn collection_game(number: u64) -> Vec<String> {
    use qiku::pgn::{Location, Reader, Skip, Visitor};
    struct One(u64, u64, Vec<String>);
    impl Visitor for One {
        fn begin_game(&mut self, loc: Location) {
            self.1 = loc.game;
        }
        fn move_token(&mut self, token: &str, _loc: Location) -> Skip {
            if self.1 == self.0 {
                self.2.push(token.to_string());
            }
            Skip::Continue
        }
        fn end_game(&mut self, _loc: Location) {}
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-iccs.pgn.zst");
    let input = qiku::pgn::open(&path, qiku::pgn::EncodingChoice::Auto).unwrap();
    let mut one = One(number, 0, Vec::new());
    Reader::new(input).read_all(&mut one).unwrap();
    one.2
}

/// The last move of a game after which the side to move has no legal move says so once, with or
/// without the tables and the engine: game 3751 of the collection (楊官璘 - 胡榮華, 166 plies),
/// which ends with red stalemated by a rook and an advisor (KRAvKA, in the tables), and a short
/// checkmate with a rook (KRvK).
#[test]
fn annotate_says_once_that_a_side_has_no_legal_move() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().join("tb");
    qiku::tablebase::generate::generate_set(
        &["KRAvKA".parse().unwrap()],
        &qiku::tablebase::generate::GenerateOptions::new(&tb),
    )
    .unwrap();
    let moves = collection_game(3751);
    assert_eq!(moves.len(), 166);
    let pgn = dir.path().join("ends.pgn");
    let text = format!(
        "[Event \"3751\"]\n[Format \"ICCS\"]\n\n{} 0-1\n\n[FEN \"3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1\"]\n\n1. a0d0 1-0\n",
        moves.join(" ")
    );
    std::fs::write(&pgn, text).unwrap();
    let out = dir.path().join("ends-annotated.pgn");
    let (p, o, t) = (pgn.to_str().unwrap(), out.to_str().unwrap(), tb.to_str().unwrap());
    let runs: [&[&str]; 3] = [&["--tb", t, "--depth", "1"], &["--tb", t, "--no-eval"], &["--depth", "1"]];
    for extra in runs {
        let r = qiku(&[&["annotate", p, "-o", o, "-q"][..], extra].concat());
        assert!(stdout(&r).contains("2 of 2 games annotated (167 moves)"), "{extra:?}: {}", stdout(&r));
        let written = std::fs::read_to_string(&out).unwrap();
        let last = |game: &str| {
            let c = game.rfind(" {").map(|i| &game[i + 2..]).unwrap_or("");
            c[..c.find('}').unwrap_or(c.len())].to_string()
        };
        let (first, second) = written.split_at(written.find("[FEN").unwrap());
        assert_eq!(written.matches("has no legal move").count(), 2, "{extra:?}: {} / {}", last(first), last(second));
        assert_eq!(last(first), "red has no legal move and loses (stalemated)", "{extra:?}");
        assert_eq!(last(second), "black has no legal move and loses (checkmated)", "{extra:?}");
    }
}

/// Plain progress lines on a piped stderr: at least one, and no terminal control codes.
fn plain_progress(stderr: &[u8], label: &str) {
    let err = String::from_utf8_lossy(stderr);
    assert!(!err.contains('\x1b') && !err.contains('\r'), "control codes in {err:?}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with(&format!("{label}: "))).collect();
    assert!(lines.iter().any(|l| l.ends_with(" started")), "{err}");
    assert!(lines.iter().any(|l| l.contains(" done in ")), "{err}");
}

#[test]
fn progress_is_printed_as_plain_lines_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    let built =
        run(env!("CARGO_BIN_EXE_qiku-book"), &["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap()]);
    assert!(built.status.success());
    plain_progress(&built.stderr, "reading games");
    let out = dir.path().join("a.pgn");
    let r = qiku(&["annotate", repertoire().to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1"]);
    assert!(r.status.success());
    plain_progress(&r.stderr, "annotating");
    assert!(String::from_utf8_lossy(&r.stderr).contains("annotating: 354 of 354 (100%) done in "));
    // --quiet: nothing.
    let r = qiku(&["annotate", repertoire().to_str().unwrap(), "-o", out.to_str().unwrap(), "--depth", "1", "-q"]);
    assert!(r.status.success() && r.stderr.is_empty(), "{}", String::from_utf8_lossy(&r.stderr));
    // The .obk export reports its progress too.
    let obk = dir.path().join("rep.obk");
    let r = run(env!("CARGO_BIN_EXE_qiku-book"), &["export", book.to_str().unwrap(), "-o", obk.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    plain_progress(&r.stderr, "writing");
    assert!(String::from_utf8_lossy(&r.stderr).contains("writing: 214 of 214 (100%) done in "));
}

/// annotate refuses, before any search, an output over its book or in its tables directory
/// (they are inputs too), and one in a directory that does not exist.
#[test]
fn annotate_refuses_outputs_it_cannot_or_must_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    let built =
        run(env!("CARGO_BIN_EXE_qiku-book"), &["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap()]);
    assert!(built.status.success());
    let before = std::fs::read(&book).unwrap();
    let tables = dir.path().join("tables");
    std::fs::create_dir(&tables).unwrap();
    let rep = repertoire();
    let (in_tables, missing) = (tables.join("KRvK.qtb"), dir.path().join("missing/out.pgn"));
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (book_s, tables_s, in_tables_s, missing_s) = (s(&book), s(&tables), s(&in_tables), s(&missing));
    // A link to a device: written to, a device would be replaced by a plain file (as root, the
    // device node itself), so it is refused and left a link.
    let null_link = dir.path().join("null.pgn");
    std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
    let null_s = s(&null_link);
    let cases: [(Vec<&str>, &str); 5] = [
        (vec!["-o", &book_s, "--book", &book_s], "(same file); refusing to overwrite it"),
        (vec!["-o", &in_tables_s, "--tb", &tables_s], "is in the tables directory"),
        (vec!["-o", &missing_s], "does not exist; create it first"),
        (vec!["-o", &null_s], "not a regular file"),
        (vec!["-o", "-"], "not to standard output; give a file name"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["annotate", rep.to_str().unwrap(), "--depth", "1"];
        args.extend(extra.iter().copied());
        let r = qiku(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success() && err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("annotating"), "refused before any work: {err}");
    }
    assert_eq!(std::fs::read(&book).unwrap(), before);
    assert_eq!(std::fs::read_dir(&tables).unwrap().count(), 0);
    assert!(std::fs::symlink_metadata(&null_link).unwrap().file_type().is_symlink());
    // Nothing to say at all: refused rather than a copy reported as annotated.
    let out = dir.path().join("nothing.pgn");
    let r = qiku(&["annotate", rep.to_str().unwrap(), "-o", out.to_str().unwrap(), "--no-eval"]);
    assert!(!r.status.success() && String::from_utf8_lossy(&r.stderr).contains("leaves nothing to write"));
    assert!(!out.exists());
    // A tables directory without tables (a wrong path): refused, not a copy reported as annotated.
    let r = qiku(&["annotate", rep.to_str().unwrap(), "-o", out.to_str().unwrap(), "--no-eval", "--tb", &tables_s]);
    let err = String::from_utf8_lossy(&r.stderr);
    let said = format!("--tb {tables_s}: it holds no table (.qtb file): generate tables there with `qiku-tb generate");
    assert!(!r.status.success() && err.contains(&said), "{err}");
    assert!(!out.exists());
}

/// A temporary directory with the table of `material` and the tables its captures lead to.
fn tables_of(material: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let opts = qiku::tablebase::generate::GenerateOptions::new(dir.path());
    qiku::tablebase::generate::generate_set(&[material.parse().unwrap()], &opts).unwrap();
    dir
}

/// `qiku analyze --tb` answers as the engine with tables (the UCI engine's `TablebasePath`,
/// `/api/analyze` of a server with `--tb`): a position the tables cover by their line, with their
/// verdict; past the 120-ply limit, and without `--tb`, a search.
#[test]
fn analyze_with_tables_answers_as_the_engine_with_tables() {
    let dir = tables_of("KRvKN");
    let d = dir.path().to_str().unwrap();
    let fen = "5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&qiku(&["analyze", fen, "--tb", d, "--depth", "6", "--json"]))).unwrap();
    assert_eq!((v["source"].as_str(), v["mate"].as_i64()), (Some("tablebase"), Some(13)), "{v}");
    assert_eq!(v["tablebase"]["text"], "win, mate in 25 plies (asian rules)", "{v}");
    // The table's line: the move `qiku-tb probe` names first among its best moves.
    let tables = qiku::tablebase::Tablebases::open(dir.path()).unwrap();
    let pos = qiku::Position::from_fen(fen).unwrap();
    let best = tables.best_moves(&pos).unwrap().unwrap();
    assert_eq!(v["bestmove_iccs"].as_str(), Some(best[0].to_string().as_str()), "{v}");
    let text = stdout(&qiku(&["analyze", fen, "--tb", d, "--depth", "6"]));
    assert!(text.contains("\ntablebase move: win, mate in 25 plies (asian rules)\nbestmove "), "{text}");
    // A search alone: no source, no table.
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&qiku(&["analyze", fen, "--depth", "6", "--json"]))).unwrap();
    assert!(v.get("source").is_none() && v.get("tablebase").is_none() && v["depth"] == 6, "{v}");
    // One move before the 120-ply limit the table's mate is out of reach: searched, a draw.
    let late = "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 119 1";
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&qiku(&["analyze", late, "--tb", d, "--depth", "6", "--json"]))).unwrap();
    assert_eq!((v["source"].as_str(), v["cp"].as_i64()), (Some("search"), Some(0)), "{v}");
}

/// `qiku probe --book` of a book of one side's moves, where the other side is to move, says why
/// the book has nothing, as `qiku-book probe` does (it said "not in book (or no move in at least
/// 5% of its games)").
#[test]
fn probe_says_a_one_sided_book_keeps_the_other_side() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("black.qbk");
    let mut options = qiku::book::BuildOptions::default();
    options.params.only = qiku::book::SideFilter::Only(qiku::Color::Black);
    qiku::book::build::build(&[repertoire()], &book, &options).unwrap();
    let b = book.to_str().unwrap();
    let text = stdout(&qiku(&["probe", "startpos", "--book", b, "--depth", "1"]));
    let said = "book: not in book: it keeps only positions with black to move (built with --only black), and red is \
                to move here";
    assert_eq!(text.lines().next(), Some(said), "{text}");
    let text = stdout(&qiku(&["probe", "startpos", "moves", "h2e2", "--book", b, "--depth", "1"]));
    assert!(text.starts_with("book: moves in at least 1 game"), "{text}");
}

/// `qiku probe`'s search line says a mate with its unit, moves and plies, beside the tables'
/// lines in plies (it printed the UCI `score mate 3`).
#[test]
fn probe_says_a_searched_mate_in_moves_and_plies() {
    let text = stdout(&qiku(&["probe", "3k5/4n4/9/9/9/9/9/9/R8/4K4 w - - 0 1", "--depth", "8"]));
    let search = text.lines().find(|l| l.starts_with("search: ")).unwrap_or_else(|| panic!("{text}"));
    assert!(search.starts_with("search: depth 8 score mate in 3 moves (5 plies) best "), "{search}");
}

/// `qiku probe` of a game the rules have ended (here the 120-ply limit) still gives the tables'
/// view of its position, as `/api/explore` does, with no answer: it printed only `game over`,
/// and in JSON none of its own fields.
#[test]
fn probe_of_an_ended_game_keeps_the_tables_view() {
    let dir = tables_of("KRvK");
    let d = dir.path().to_str().unwrap();
    let limit = "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 120 1";
    let v: serde_json::Value = serde_json::from_str(&stdout(&qiku(&["probe", limit, "--tb", d, "--json"]))).unwrap();
    assert_eq!(v["tablebase"]["value"]["wdl"], "win", "{v}");
    assert!(!v["tablebase"]["moves"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(
        v["game_over"],
        serde_json::json!({"result": "1/2-1/2", "text": "draw by 120 plies without capture"}),
        "{v}"
    );
    assert_eq!(v["answer"], serde_json::json!({"move": null, "iccs": null, "source": "game_over"}));
    assert!(v["search"].is_null(), "{v}");
    let text = stdout(&qiku(&["probe", limit, "--tb", d]));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("tablebase: win, mate in "), "{text}");
    assert!(lines.last().unwrap().starts_with("answer: none: game over: draw"), "{text}");
}

/// `qiku probe` of a mated or stalemated side says so, with and without tables (it printed an
/// empty best-move list, a depth-0 search and "answer: (none) (search)").
#[test]
fn probe_of_a_side_without_moves_says_it_loses() {
    let dir = tables_of("KRvK");
    let mated = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1";
    let text = stdout(&qiku(&["probe", mated, "--tb", dir.path().to_str().unwrap()]));
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "tablebase: loss, no legal move (asian rules)",
            "answer: none: black has no legal move and loses (checkmated)"
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&qiku(&["probe", mated, "--json"]))).unwrap();
    assert_eq!(v["answer"], serde_json::json!({"move": null, "iccs": null, "source": "checkmated"}));
    assert!(v["search"].is_null(), "{v}");
    // Stalemate: the black king has no move and is not in check.
    let stalemated = "4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1";
    let text = stdout(&qiku(&["probe", stalemated]));
    assert_eq!(text.trim_end(), "answer: none: black has no legal move and loses (stalemated)");
    // In JSON the fields as before, and the end in `analyze`'s words; with tables, their answer.
    let v: serde_json::Value = serde_json::from_str(&stdout(&qiku(&["probe", stalemated, "--json"]))).unwrap();
    assert_eq!(v["answer"], serde_json::json!({"move": null, "iccs": null, "source": "stalemated"}));
    assert_eq!(v["game_over"], serde_json::json!({"result": "1-0", "text": "red wins by stalemate (no legal move)"}));
    assert!(v["search"].is_null() && v["book"].is_null() && v["tablebase"].is_null(), "{v}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&qiku(&["probe", mated, "--json", "--tb", dir.path().to_str().unwrap()])))
            .unwrap();
    assert_eq!(v["tablebase"]["value"]["wdl"], "loss", "{v}");
    assert_eq!(v["tablebase"]["best_moves"], serde_json::json!([]), "{v}");
    assert_eq!(v["answer"], serde_json::json!({"move": null, "iccs": null, "source": "checkmated"}));
    assert_eq!(v["game_over"], serde_json::json!({"result": "1-0", "text": "red wins by checkmate"}));
}

/// `analyze` of a side with no legal move reports the game over as it reports the other ends
/// (it printed only `bestmove (none)`, and in JSON `mate: 0` without `game_over`); the JSON keeps
/// its score and null moves.
#[test]
fn analyze_of_a_mated_or_stalemated_side_says_the_game_is_over() {
    for (fen, words) in [
        ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", "red wins by checkmate"),
        ("4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1", "red wins by stalemate (no legal move)"),
    ] {
        let text = stdout(&qiku(&["analyze", fen, "--depth", "3"]));
        assert_eq!(text, format!("game over: {words} (1-0); no move to search\n"), "{fen}");
        let out = stdout(&qiku(&["analyze", fen, "--depth", "3", "--json"]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["game_over"], serde_json::json!({"result": "1-0", "text": words}), "{out}");
        assert!(v["bestmove"].is_null() && v["bestmove_iccs"].is_null() && v["cp"].is_null(), "{out}");
        assert_eq!(v["mate"], serde_json::json!(0), "{out}");
    }
}

/// `analyze --eval --json` carries the evaluation the text prints (it was dropped): the key
/// `eval` with every term and the total, red's view, the same numbers.
#[test]
fn analyze_eval_is_in_the_json() {
    // Black to move and a rook up for red: a total far from zero, and of red's sign.
    let fen = "4k4/9/9/9/9/9/9/9/9/R2K5 b";
    let text = stdout(&qiku(&["analyze", fen, "--eval", "--depth", "1"]));
    let first = text.lines().next().unwrap();
    let terms = first.strip_prefix("eval (red's view): ").unwrap_or_else(|| panic!("{text}"));
    let out = stdout(&qiku(&["analyze", fen, "--eval", "--depth", "1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &v["eval"];
    let n = |k: &str| e[k].as_i64().unwrap_or_else(|| panic!("{k} in {out}"));
    let mut want = format!(
        "material {} pst {} mobility {} relations {} king safety {} structure {} tempo {}",
        n("material"),
        n("pst"),
        n("mobility"),
        n("relations"),
        n("king_safety"),
        n("structure"),
        n("tempo")
    );
    if n("drawish") != 0 {
        want += &format!(" drawish {}", n("drawish"));
    }
    want += &format!(" = {} (phase {}/{})", n("total"), n("phase"), n("phase_max"));
    assert_eq!(terms, want, "{out}");
    assert!(n("total") > 500, "{out}");
    // Without --eval, no key.
    let out = stdout(&qiku(&["analyze", fen, "--depth", "1", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("eval").is_none(), "{out}");
}

/// `qiku annotate` streams its games (one read, annotated and written at a time) and writes
/// exactly what it wrote when it read the whole file first: the expected file is the output of
/// that version on the first 40,000 bytes of `books/games/ccpd-iccs.pgn.zst` (37 whole games,
/// then one the cut ends in), with the book built from `books/repertoire.pgn` and no engine (so
/// that the comments do not depend on the search).
#[test]
fn annotate_streams_and_writes_what_it_wrote_before() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("rep.qbk");
    let built =
        run(env!("CARGO_BIN_EXE_qiku-book"), &["build", repertoire().to_str().unwrap(), "-o", book.to_str().unwrap()]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let games = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../books/games/ccpd-iccs.pgn.zst");
    let mut whole = Vec::new();
    zstd::stream::copy_decode(std::fs::File::open(games).unwrap(), &mut whole).unwrap();
    let input = dir.path().join("head.pgn");
    std::fs::write(&input, &whole[..40_000]).unwrap();
    let out = dir.path().join("out.pgn");
    let args = ["annotate", input.to_str().unwrap(), "-o", out.to_str().unwrap(), "--book", book.to_str().unwrap()];
    let r = qiku(&[&args[..], &["--no-eval", "-q"]].concat());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(stdout(&r).contains("38 of 38 games annotated (3659 moves)"), "{}", stdout(&r));
    let expected = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/pgn/annotated-iccs-head.pgn");
    let expected = std::fs::read(expected).unwrap();
    let written = std::fs::read(&out).unwrap();
    assert_eq!(written.len(), expected.len());
    assert!(written == expected, "the output differs from the expected file");
}

/// A `--tb` directory that does not exist, or holds no table, is what a wrong path looks like:
/// `probe`, `annotate` and `serve` refuse it in the same words, with the command that makes tables
/// there, as the engine's TablebasePath does.
#[test]
fn a_tables_directory_that_cannot_answer_is_refused_with_the_way_on() {
    let dir = tempfile::tempdir().unwrap();
    let (missing, empty) = (dir.path().join("missing"), dir.path().join("empty"));
    std::fs::create_dir(&empty).unwrap();
    let games = concat!(env!("CARGO_MANIFEST_DIR"), "/../../books/repertoire.pgn");
    let out = dir.path().join("out.pgn");
    for (tb, what) in [(&missing, "the directory does not exist"), (&empty, "it holds no table (.qtb file)")] {
        let t = tb.to_str().unwrap();
        let want = format!("--tb {t}: {what}: generate tables there with `qiku-tb generate -d {t}`, or give --tb");
        for args in [
            vec!["probe", "3k5/9/9/9/9/9/9/9/4R4/4K4 w", "--tb", t],
            vec!["annotate", games, "-o", out.to_str().unwrap(), "--no-eval", "--tb", t],
        ] {
            let r = qiku(&args);
            let err = String::from_utf8_lossy(&r.stderr);
            assert!(!r.status.success() && err.contains(&want), "{args:?}: {err}");
        }
    }
    // `serve` serves a directory without tables yet (the books still answer), not a missing one.
    let r = qiku(&["serve", "--tb", missing.to_str().unwrap(), "--port", "0"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success() && err.contains("the directory does not exist: generate tables there"), "{err}");
    assert!(!out.exists());
}
