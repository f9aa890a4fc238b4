//! Unit tests of the reader: every syntax element, with the exact callback sequence and
//! locations (`game/line:column`).

use super::*;

/// Logs every callback as a line of text.
#[derive(Default)]
struct Log {
    out: Vec<String>,
    enter_variations: bool,
    /// Return `SkipGame` from `move_token` for this token.
    skip_game_at: Option<&'static str>,
    /// Return `SkipVariation` from `move_token` for this token.
    skip_variation_at: Option<&'static str>,
    /// Return `SkipGame` from `tag` for this tag name.
    skip_at_tag: Option<&'static str>,
}

fn at(loc: Location) -> String {
    format!("{}/{}:{}", loc.game, loc.line, loc.column)
}

impl Visitor for Log {
    fn begin_game(&mut self, loc: Location) {
        self.out.push(format!("begin {}", at(loc)));
    }
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        self.out.push(format!("tag {name}={value} {}", at(loc)));
        if self.skip_at_tag == Some(name) {
            Skip::SkipGame
        } else {
            Skip::Continue
        }
    }
    fn begin_movetext(&mut self, loc: Location) -> Skip {
        self.out.push(format!("movetext {}", at(loc)));
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        self.out.push(format!("move {token} {}", at(loc)));
        if self.skip_game_at == Some(token) {
            Skip::SkipGame
        } else if self.skip_variation_at == Some(token) {
            Skip::SkipVariation
        } else {
            Skip::Continue
        }
    }
    fn comment(&mut self, text: &str, loc: Location) {
        self.out.push(format!("comment {text:?} {}", at(loc)));
    }
    fn nag(&mut self, nag: u16, loc: Location) {
        self.out.push(format!("nag {nag} {}", at(loc)));
    }
    fn begin_variation(&mut self, loc: Location) -> Skip {
        self.out.push(format!("( {}", at(loc)));
        if self.enter_variations {
            Skip::Continue
        } else {
            Skip::SkipVariation
        }
    }
    fn end_variation(&mut self) {
        self.out.push(")".to_string());
    }
    fn outcome(&mut self, result: Option<GameResult>, loc: Location) {
        let r = result.map_or("*", GameResult::as_str);
        self.out.push(format!("result {r} {}", at(loc)));
    }
    fn end_game(&mut self, loc: Location) {
        self.out.push(format!("end {}", at(loc)));
    }
    fn malformed(&mut self, error: &SyntaxError) {
        self.out.push(format!("error {:?} {}", error.kind, at(error.location)));
    }
}

fn run_log(input: &[u8], mode: Mode, mut log: Log) -> Vec<String> {
    let mut reader = Reader::with_mode(input, mode);
    let n = reader.read_all(&mut log).expect("in-memory input cannot fail");
    assert_eq!(n, reader.games_read());
    let begins = log.out.iter().filter(|l| l.starts_with("begin ")).count();
    let ends = log.out.iter().filter(|l| l.starts_with("end ")).count();
    assert_eq!((begins as u64, ends as u64), (n, n), "begin/end balance");
    log.out
}

fn run(input: &str) -> Vec<String> {
    run_log(input.as_bytes(), Mode::Auto, Log::default())
}

#[track_caller]
fn check(got: Vec<String>, want: &[&str]) {
    let got: Vec<&str> = got.iter().map(String::as_str).collect();
    assert_eq!(got, want);
}

#[test]
fn tags_movetext_and_result() {
    let pgn = "[Event \"Test\"]\n[Red \"柳大華\"]\n\n1. h2e2 h9g7 2. H0-G2 1-0\n\n[Event \"Two\"]\n\n1. b0c2 0-1\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag Event=Test 1/1:1",
            "tag Red=柳大華 1/2:1",
            "movetext 1/4:1",
            "move h2e2 1/4:4",
            "move h9g7 1/4:9",
            "move H0-G2 1/4:17",
            "result 1-0 1/4:23",
            "end 1/4:26",
            "begin 2/6:1",
            "tag Event=Two 2/6:1",
            "movetext 2/8:1",
            "move b0c2 2/8:4",
            "result 0-1 2/8:9",
            "end 2/8:12",
        ],
    );
}

#[test]
fn tag_escapes_inner_quotes_and_several_per_line() {
    let pgn = concat!(
        "[Event \"a \\\"quoted\\\" b\\\\c\"]\n",
        "[Event \"1999年\"中視股份杯\"象棋\"]\n",
        "[A \"1\"] [B \"x]y\"]  [C\"\"]\n",
        "[ Site   \"s\"  ]\n",
        "*\n"
    );
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag Event=a \"quoted\" b\\c 1/1:1",
            "tag Event=1999年\"中視股份杯\"象棋 1/2:1",
            "tag A=1 1/3:1",
            "tag B=x]y 1/3:9",
            "tag C= 1/3:20",
            "tag Site=s 1/4:1",
            "movetext 1/5:1",
            "result * 1/5:1",
            "end 1/5:2",
        ],
    );
}

#[test]
fn tolerated_control_characters_in_tag_values() {
    // As in the CCPD data (`[Red "... 許\x11北"]`).
    check(
        run("[Red \"a\u{11}b\"]\n1. h2e2\n"),
        &["begin 1/1:1", "tag Red=a\u{11}b 1/1:1", "movetext 1/2:1", "move h2e2 1/2:4", "end 1/2:8"],
    );
}

#[test]
fn move_numbers_in_all_forms() {
    let pgn = "[E \"\"]\n1. h2e2 1... h9g7 2.h0g2 2...i9h9 12 c3c4 3 . ... g6g5 4．b0c2 4…b9c7\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag E= 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "move h9g7 1/2:14",
            "move h0g2 1/2:21",
            "move i9h9 1/2:30",
            "move c3c4 1/2:38",
            "move g6g5 1/2:51",
            "move b0c2 1/2:58",
            "move b9c7 1/2:65",
            "end 1/2:69",
        ],
    );
}

#[test]
fn chinese_movetext_columns_count_characters() {
    // A move number glued to the move, full-width digits, and an ideographic space (U+3000).
    let pgn = "[Game \"Chinese Chess\"]\n\n1.炮二平五 馬８進７\n2. 馬二進三\u{3000}車９平８\n1/2-1/2\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag Game=Chinese Chess 1/1:1",
            "movetext 1/3:1",
            "move 炮二平五 1/3:3",
            "move 馬８進７ 1/3:8",
            "move 馬二進三 1/4:4",
            "move 車９平８ 1/4:9",
            "result 1/2-1/2 1/5:1",
            "end 1/5:8",
        ],
    );
}

#[test]
fn other_notations_pass_through() {
    check(
        run("[Format \"WXF\"]\n1. C2.5 h8+7 2. H2+3 R9.8 3. +C.4 -\n"),
        &[
            "begin 1/1:1",
            "tag Format=WXF 1/1:1",
            "movetext 1/2:1",
            "move C2.5 1/2:4",
            "move h8+7 1/2:9",
            "move H2+3 1/2:17",
            "move R9.8 1/2:22",
            "move +C.4 1/2:30",
            "move - 1/2:35",
            "end 1/2:36",
        ],
    );
}

#[test]
fn comments_brace_semicolon_multiline() {
    let pgn = "{before tags}\n[E \"x\"]\n1. h2e2 {good\n  move} h9g7 ; rest of line {not a comment}\n{a}{b} 1-0 {after result}\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "comment \"before tags\" 1/1:1",
            "tag E=x 1/2:1",
            "movetext 1/3:1",
            "move h2e2 1/3:4",
            "comment \"good\\n  move\" 1/3:9",
            "move h9g7 1/4:9",
            "comment \" rest of line {not a comment}\" 1/4:14",
            "comment \"a\" 1/5:1",
            "comment \"b\" 1/5:4",
            "result 1-0 1/5:8",
            "comment \"after result\" 1/5:12",
            "end 1/5:26",
        ],
    );
}

#[test]
fn nags_and_suffix_annotations() {
    let pgn = "1. h2e2! $12 h9g7?! 2. h0g2?? !? $0\n";
    check(
        run_log(pgn.as_bytes(), Mode::Pgn, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:4",
            "nag 1 1/1:8",
            "nag 12 1/1:10",
            "move h9g7 1/1:14",
            "nag 6 1/1:18",
            "move h0g2 1/1:24",
            "nag 4 1/1:28",
            "nag 5 1/1:31",
            "nag 0 1/1:34",
            "end 1/1:36",
        ],
    );
}

#[test]
fn variations_skipped_by_default() {
    let pgn = "1. h2e2 (1. c3c4 {c} (1. g3g4) b9c7) h9g7 *\n";
    check(
        run_log(pgn.as_bytes(), Mode::Pgn, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:4",
            "( 1/1:9",
            "move h9g7 1/1:38",
            "result * 1/1:43",
            "end 1/1:44",
        ],
    );
}

#[test]
fn variations_entered_and_skipped_from_inside() {
    let pgn = "1. h2e2 (1. c3c4 {c} (1. g3g4) b9c7) (1. b2e2 x y) h9g7\n";
    let log = Log { enter_variations: true, skip_variation_at: Some("b2e2"), ..Log::default() };
    check(
        run_log(pgn.as_bytes(), Mode::Pgn, log),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:4",
            "( 1/1:9",
            "move c3c4 1/1:13",
            "comment \"c\" 1/1:18",
            "( 1/1:22",
            "move g3g4 1/1:26",
            ")",
            "move b9c7 1/1:32",
            ")",
            "( 1/1:38",
            "move b2e2 1/1:42",
            "move h9g7 1/1:52",
            "end 1/1:56",
        ],
    );
}

#[test]
fn skip_game_from_move_and_from_tag() {
    let pgn = "[E \"1\"]\n1. h2e2 h9g7 {c} 1-0\n\n[E \"2\"]\n[Red \"x\"]\n1. a b\n\n[E \"3\"]\n1. c\n";
    let log = Log { skip_game_at: Some("h2e2"), skip_at_tag: Some("E"), ..Log::default() };
    check(
        run_log(pgn.as_bytes(), Mode::Auto, log),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "end 1/2:21",
            "begin 2/4:1",
            "tag E=2 2/4:1",
            "end 2/6:7",
            "begin 3/8:1",
            "tag E=3 3/8:1",
            "end 3/9:5",
        ],
    );
    let log = Log { skip_game_at: Some("h2e2"), ..Log::default() };
    check(
        run_log(b"1. h2e2 h9g7 (1. x) 1-0\n", Mode::Pgn, log),
        &["begin 1/1:1", "movetext 1/1:1", "move h2e2 1/1:4", "end 1/1:24"],
    );
}

#[test]
fn results_of_every_kind() {
    check(
        run_log(b"1-0\n0-1\n1/2-1/2\n*\n", Mode::Lines, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "result 1-0 1/1:1",
            "end 1/1:4",
            "begin 2/2:1",
            "movetext 2/2:1",
            "result 0-1 2/2:1",
            "end 2/2:4",
            "begin 3/3:1",
            "movetext 3/3:1",
            "result 1/2-1/2 3/3:1",
            "end 3/3:8",
            "begin 4/4:1",
            "movetext 4/4:1",
            "result * 4/4:1",
            "end 4/4:2",
        ],
    );
}

#[test]
fn result_ends_a_tagless_game_in_pgn_mode() {
    let pgn = "{header}\n1. h2e2 1-0 {end} $1\n1. b0c2\n0-1\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "comment \"header\" 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "result 1-0 1/2:9",
            "comment \"end\" 1/2:13",
            "nag 1 1/2:19",
            "end 1/2:21",
            "begin 2/3:1",
            "movetext 2/3:1",
            "move b0c2 2/3:4",
            "result 0-1 2/4:1",
            "end 2/4:4",
        ],
    );
}

/// Moves after a result on its own line are an error, skipped to the next game's tags: they were
/// read as a game without tags from the start position (`2. h0g2` counted in books).
#[test]
fn moves_after_the_result_on_its_line_are_an_error_not_a_game() {
    let pgn = "[E \"1\"]\n\n1. h2e2 1-0 2. h0g2\n3. b0c2\n\n[E \"2\"]\n\n1. c3c4 0-1\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/3:1",
            "move h2e2 1/3:4",
            "result 1-0 1/3:9",
            "end 1/3:12",
            "begin 2/3:13",
            "movetext 2/3:13",
            "error TextAfterResult 2/3:13",
            "end 2/3:13",
            "begin 3/6:1",
            "tag E=2 3/6:1",
            "movetext 3/8:1",
            "move c3c4 3/8:4",
            "result 0-1 3/8:9",
            "end 3/8:12",
        ],
    );
}

#[test]
fn tag_only_games_stay_separate() {
    check(
        run("[E \"1\"]\n\n[E \"2\"]\n[R \"x\"]\n"),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/1:8",
            "end 1/1:8",
            "begin 2/3:1",
            "tag E=2 2/3:1",
            "tag R=x 2/4:1",
            "movetext 2/4:8",
            "end 2/4:8",
        ],
    );
}

#[test]
fn line_mode_is_detected_and_one_game_per_line() {
    let text = "h2e2 h9g7 h0g2\n\n  1.炮二平五 馬８進７ 1-0 {c}\n% escape line\nb0c2 (x) ; note\n";
    let mut reader = Reader::new(text.as_bytes());
    let mut log = Log::default();
    assert_eq!(reader.read_all(&mut log).expect("read"), 3);
    assert_eq!(reader.mode(), Mode::Lines);
    check(
        log.out,
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:1",
            "move h9g7 1/1:6",
            "move h0g2 1/1:11",
            "end 1/1:15",
            "begin 2/3:3",
            "movetext 2/3:3",
            "move 炮二平五 2/3:5",
            "move 馬８進７ 2/3:10",
            "result 1-0 2/3:15",
            "comment \"c\" 2/3:19",
            "end 2/3:22",
            "begin 3/5:1",
            "movetext 3/5:1",
            "move b0c2 3/5:1",
            "( 3/5:6",
            "comment \" note\" 3/5:10",
            "end 3/5:16",
        ],
    );
}

#[test]
fn forced_pgn_mode_joins_lines() {
    let mut reader = Reader::with_mode(&b"h2e2\nh9g7\n"[..], Mode::Pgn);
    let mut log = Log::default();
    assert_eq!(reader.read_all(&mut log).expect("read"), 1);
    check(log.out, &["begin 1/1:1", "movetext 1/1:1", "move h2e2 1/1:1", "move h9g7 1/2:1", "end 1/2:5"]);
}

#[test]
fn crlf_bom_and_escape_lines() {
    let pgn = "\u{FEFF}% generated\r\n[E \"x\"]\r\n\r\n1. h2e2\r\n% 2. skipped\r\nh9g7 *\r\n";
    check(
        run(pgn),
        &[
            "begin 1/2:1",
            "tag E=x 1/2:1",
            "movetext 1/4:1",
            "move h2e2 1/4:4",
            "move h9g7 1/6:1",
            "result * 1/6:6",
            "end 1/6:7",
        ],
    );
}

#[test]
fn empty_and_blank_inputs() {
    check(run(""), &[]);
    check(run("\n\n  \t\n% only an escape\n"), &[]);
}

// ---- syntax errors: kind, location, recovery ----

#[test]
fn broken_tag_skips_to_next_tag_section() {
    let pgn = concat!(
        "[E \"1\"]\n",
        "[Red \"unterminated\n", // 2
        "[Black \"b\"]\n",
        "\n",
        "1. h2e2 *\n", // 5
        "\n",
        "[E \"2\"]\n", // 7
        "1. b0c2 *\n",
    );
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "error BadTag(\"unterminated tag value\") 1/2:1",
            "end 1/2:1",
            "begin 2/7:1",
            "tag E=2 2/7:1",
            "movetext 2/8:1",
            "move b0c2 2/8:4",
            "result * 2/8:9",
            "end 2/8:10",
        ],
    );
}

#[test]
fn bad_tag_reasons() {
    let reason = |line: &str| {
        let out = run(&format!("{line}\n"));
        out.into_iter().find(|l| l.starts_with("error")).unwrap_or_default()
    };
    assert_eq!(reason("[]"), "error BadTag(\"missing tag name\") 1/1:1");
    assert_eq!(reason("[Event]"), "error BadTag(\"expected '\\\"' after the tag name\") 1/1:1");
    assert_eq!(reason("[Event x]"), "error BadTag(\"expected '\\\"' after the tag name\") 1/1:1");
    assert_eq!(reason("[Event \"x\"] junk"), "error BadTag(\"text after the tag pair\") 1/1:13");
    assert_eq!(reason("[Event \"x\\\"]"), "error BadTag(\"unterminated tag value\") 1/1:1");
    assert_eq!(reason("[Event \"x\0\"]"), "error ControlCharacter(0) 1/1:10");
}

#[test]
fn unterminated_comment_stops_at_next_tag_section() {
    let pgn = "[E \"1\"]\n1. h2e2 {open\nstill comment\n\n[E \"2\"]\n1. b0c2\n";
    check(
        run(pgn),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "error UnterminatedComment 1/2:9",
            "end 1/2:9",
            "begin 2/5:1",
            "tag E=2 2/5:1",
            "movetext 2/6:1",
            "move b0c2 2/6:4",
            "end 2/6:8",
        ],
    );
    // At the end of the input.
    check(
        run("[E \"1\"]\n1. h2e2 {open\n[not a tag section]\n"),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "error UnterminatedComment 1/2:9",
            "end 1/2:9",
        ],
    );
    // In line mode, at the end of the line.
    check(
        run_log(b"h2e2 {open\nb0c2\n", Mode::Lines, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:1",
            "error UnterminatedComment 1/1:6",
            "end 1/1:6",
            "begin 2/2:1",
            "movetext 2/2:1",
            "move b0c2 2/2:1",
            "end 2/2:5",
        ],
    );
}

#[test]
fn unclosed_and_stray_parentheses() {
    check(
        run("[E \"1\"]\n1. h2e2 (1. c3c4 (x)\n\n[E \"2\"]\n"),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "( 1/2:9",
            "error UnclosedVariation 1/2:9",
            "end 1/2:9",
            "begin 2/4:1",
            "tag E=2 2/4:1",
            "movetext 2/4:8",
            "end 2/4:8",
        ],
    );
    check(
        run_log(b"h2e2 ) h9g7\nb0c2 }\nx [y\n", Mode::Lines, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:1",
            "error UnexpectedChar(')') 1/1:6",
            "end 1/1:6",
            "begin 2/2:1",
            "movetext 2/2:1",
            "move b0c2 2/2:1",
            "error UnexpectedChar('}') 2/2:6",
            "end 2/2:6",
            "begin 3/3:1",
            "movetext 3/3:1",
            "move x 3/3:1",
            "error UnexpectedChar('[') 3/3:3",
            "end 3/3:3",
        ],
    );
}

#[test]
fn result_misplaced() {
    check(
        run_log(b"h2e2 (h9g7 1-0) \nh2e2 1-0 h9g7\n", Mode::Lines, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:1",
            "( 1/1:6",
            "error ResultInVariation 1/1:12",
            "end 1/1:12",
            "begin 2/2:1",
            "movetext 2/2:1",
            "move h2e2 2/2:1",
            "result 1-0 2/2:6",
            "error TextAfterResult 2/2:10",
            "end 2/2:10",
        ],
    );
}

#[test]
fn bad_nags() {
    check(
        run_log(b"h2e2 $ x\nh2e2 $70000\nh2e2!!!\n", Mode::Lines, Log::default()),
        &[
            "begin 1/1:1",
            "movetext 1/1:1",
            "move h2e2 1/1:1",
            "error BadNag 1/1:6",
            "end 1/1:6",
            "begin 2/2:1",
            "movetext 2/2:1",
            "move h2e2 2/2:1",
            "error BadNag 2/2:6",
            "end 2/2:6",
            "begin 3/3:1",
            "movetext 3/3:1",
            "move h2e2 3/3:1",
            "error BadNag 3/3:5",
            "end 3/3:5",
        ],
    );
}

#[test]
fn control_characters_and_invalid_utf8_in_movetext() {
    let input = b"[E \"1\"]\n1. h2e2 h9\x00g7\n\n[E \"2\"]\n1. \xe7\x82\xae\xff *\n\n[E \"3\"]\n1. \x1b[0m\n";
    check(
        run_log(input, Mode::Auto, Log::default()),
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "movetext 1/2:1",
            "move h2e2 1/2:4",
            "move h9 1/2:9",
            "error ControlCharacter(0) 1/2:11",
            "end 1/2:11",
            "begin 2/4:1",
            "tag E=2 2/4:1",
            "movetext 2/5:1",
            "error InvalidUtf8 2/5:5",
            "end 2/5:5",
            "begin 3/7:1",
            "tag E=3 3/7:1",
            "movetext 3/8:1",
            "error ControlCharacter(27) 3/8:4",
            "end 3/8:4",
        ],
    );
}

#[test]
fn replacement_character_in_a_move() {
    check(
        run("[E \"\u{FFFD}\"]\n1. 炮\u{FFFD}平五 {\u{FFFD}}\n"),
        &["begin 1/1:1", "tag E=\u{FFFD} 1/1:1", "movetext 1/2:1", "error ReplacementCharacter 1/2:4", "end 1/2:4"],
    );
}

#[test]
fn line_too_long() {
    let mut input = b"[E \"1\"]\n1. h2e2 ".to_vec();
    input.extend_from_slice(&[b'x'; 100]);
    input.extend(b"\n\n[E \"2\"]\n1. b0c2\n");
    let mut reader = Reader::new(&input[..]);
    reader.set_max_line_len(50);
    let mut log = Log::default();
    assert_eq!(reader.read_all(&mut log).expect("read"), 2);
    check(
        log.out,
        &[
            "begin 1/1:1",
            "tag E=1 1/1:1",
            "error LineTooLong 1/2:1",
            "end 1/2:1",
            "begin 2/4:1",
            "tag E=2 2/4:1",
            "movetext 2/5:1",
            "move b0c2 2/5:4",
            "end 2/5:8",
        ],
    );
    assert_eq!(reader.bytes_read(), input.len() as u64);
}

#[test]
fn comment_too_long() {
    let mut reader = Reader::with_mode(&b"1. h2e2 {aaaa\nbbbbbbbbbbbb\ncccc}\n"[..], Mode::Pgn);
    reader.set_max_line_len(14);
    let mut log = Log::default();
    reader.read_all(&mut log).expect("read");
    check(log.out, &["begin 1/1:1", "movetext 1/1:1", "move h2e2 1/1:4", "error CommentTooLong 1/2:13", "end 1/2:13"]);
}

#[test]
fn error_display() {
    let err = SyntaxError {
        location: Location::new(3, 17, 9),
        kind: ErrorKind::BadTag("unterminated tag value"),
        snippet: error::snippet("[Event \"a\u{1}b"),
    };
    assert_eq!(
        err.to_string(),
        "game 3, line 17, column 9: malformed tag pair (unterminated tag value) near `[Event \"a\\u{1}b`"
    );
    assert_eq!(
        ErrorKind::ReplacementCharacter.to_string(),
        "undecodable bytes (U+FFFD) in a move: wrong text encoding?"
    );
}
