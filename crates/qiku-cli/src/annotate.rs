//! `qiku annotate GAMES.pgn -o OUT.pgn`: a comment after every main-line move of every game with
//! what the book, the tables and the engine say of it. The games are otherwise copied byte for
//! byte (tags, movetext, comments, variations, line breaks); only `{...}` comments are inserted.
//! Games that cannot be read (a syntax error, an unknown or illegal move) are copied unchanged,
//! counted and reported by game and line.

use super::progress::TermProgress;
use qiku::book::Book;
use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::engine::Score;
use qiku::pgn::{self, EncodingChoice, Location, Mode, Reader, Skip, SyntaxError, Visitor};
use qiku::tablebase::Tablebases;
use qiku::{Color, Dtm, Game, Move, Position, Progress, Rules, Wdl};
use std::io::{Read, Write};
use std::path::PathBuf;

/// The command line of `qiku annotate`.
#[derive(clap::Args)]
pub struct AnnotateArgs {
    /// The games (PGN, in any notation and encoding the book builder reads; .zst too).
    input: PathBuf,
    /// The annotated games (UTF-8 PGN); must not be the input.
    #[arg(short, long)]
    output: PathBuf,
    /// Opening book (.qbk): each move's games as red wins, draws and black wins.
    #[arg(long, value_name = "BOOK.qbk")]
    book: Option<PathBuf>,
    /// Table directory: the value of the position after each move.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Rules of the table values: asian (a perpetual check loses) or plain (every cycle a draw).
    #[arg(long, default_value = "asian", value_parser = ["asian", "plain"])]
    rules: String,
    /// Engine search depth per position (default 8 when --movetime is not given; 1 to 100).
    #[arg(long, conflicts_with = "movetime", value_parser = clap::value_parser!(u32).range(1..=100))]
    depth: Option<u32>,
    /// Engine search time per position in milliseconds, instead of --depth.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    movetime: Option<u64>,
    /// No engine evaluation (book and table only).
    #[arg(long, conflicts_with_all = ["depth", "movetime"])]
    no_eval: bool,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    hash: u64,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// Replace the file at -o even if it is not games or text (by default a book, a table or any
    /// other kind of file there is left alone and the command fails).
    #[arg(long)]
    force: bool,
}

/// Runs `qiku annotate`.
pub fn run(args: &AnnotateArgs) -> Result<(), String> {
    if args.no_eval && args.book.is_none() && args.tb.is_none() {
        return Err(
            "--no-eval without --book or --tb leaves nothing to write: give a book or tables, or drop --no-eval".into(),
        );
    }
    let limits = match (args.no_eval, args.depth, args.movetime) {
        (true, _, _) => None,
        (false, _, Some(ms)) => Some(Limits::movetime(ms)),
        (false, d, None) => Some(Limits::depth(d.unwrap_or(DEFAULT_DEPTH))),
    };
    let opts = AnnotateOptions {
        input: args.input.clone(),
        output: args.output.clone(),
        book: args.book.clone(),
        tb: args.tb.clone(),
        rules: if args.rules == "plain" { Rules::Plain } else { Rules::Asian },
        limits,
        hash: args.hash as usize,
        progress: !args.quiet,
        force: args.force,
    };
    let report = annotate(&opts)?;
    print_report(&opts, &report);
    Ok(())
}

/// The engine's depth per position when neither `--depth` nor `--movetime` is given.
pub const DEFAULT_DEPTH: u32 = 8;

/// What `annotate` reads and how hard the engine looks.
pub struct AnnotateOptions {
    /// The games.
    pub input: PathBuf,
    /// The annotated games (never the input).
    pub output: PathBuf,
    /// A `.qbk` book: each move's red/draw/black game counts.
    pub book: Option<PathBuf>,
    /// A table directory: the value of the position after each move.
    pub tb: Option<PathBuf>,
    /// The rules of the table values.
    pub rules: Rules,
    /// The engine's limit per position; `None`: no engine evaluation.
    pub limits: Option<Limits>,
    /// Transposition table size in MiB.
    pub hash: usize,
    /// Show progress on stderr.
    pub progress: bool,
    /// Replace a file at the output that is not games or text.
    pub force: bool,
}

/// What an annotation run did.
#[derive(Debug, Default)]
pub struct AnnotateReport {
    /// Games in the input.
    pub games: u64,
    /// Games annotated.
    pub annotated: u64,
    /// Moves annotated.
    pub moves: u64,
    /// Games copied without comments, with the reason (game number, line of what is wrong,
    /// message).
    pub skipped: Vec<(u64, u64, String)>,
}

/// One game as read: where its moves are, and whether it can be annotated.
#[derive(Default)]
struct RawGame {
    number: u64,
    /// The `[FEN]` tag's value and where the tag is (a bad one is named there).
    fen: Option<(String, Location)>,
    moves: Vec<(String, Location)>,
    error: Option<(u64, String)>,
}

/// Collects the games' tokens and their places.
#[derive(Default)]
struct Collect {
    games: Vec<RawGame>,
}

impl Visitor for Collect {
    fn begin_game(&mut self, loc: Location) {
        self.games.push(RawGame { number: loc.game, ..RawGame::default() });
    }
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        if let Some(g) = self.games.last_mut() {
            if name.eq_ignore_ascii_case("FEN") {
                g.fen = Some((value.to_string(), loc));
            }
        }
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        if let Some(g) = self.games.last_mut() {
            g.moves.push((token.to_string(), loc));
        }
        Skip::Continue
    }
    fn end_game(&mut self, _loc: Location) {}
    fn malformed(&mut self, error: &SyntaxError) {
        if let Some(g) = self.games.last_mut() {
            // Named at the error's own line, as a bad move is; the report says the game and the
            // line, so the message is the column and the cause.
            let at = error.location;
            let mut why = format!("syntax error at column {}: {}", at.column, error.kind);
            if !error.snippet.is_empty() {
                why.push_str(&format!(" near `{}`", error.snippet));
            }
            g.error = Some((at.line, why));
        }
    }
}

/// Byte offsets of the starts of the text's lines (line 1 first; after a byte-order mark).
fn line_starts(text: &str) -> Vec<usize> {
    let first = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let mut starts = vec![first];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

/// The byte offset just after the move token read at `loc` (and its `!`/`?` marks), or `None`
/// if the token is not found there.
fn token_end(text: &str, starts: &[usize], token: &str, loc: Location) -> Option<usize> {
    let line_start = *starts.get(usize::try_from(loc.line).ok()?.checked_sub(1)?)?;
    let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
    let line = &text[line_start..line_end];
    let col = line.char_indices().nth((loc.column as usize).saturating_sub(1)).map_or(line.len(), |(i, _)| i);
    let at = col + line[col..].find(token)?;
    let mut end = at + token.len();
    end += line[end..].len() - line[end..].trim_start_matches(['!', '?']).len();
    Some(line_start + end)
}

/// A score of the side to move, from red's view.
fn eval_text(score: Score, turn: Color, depth: u32) -> String {
    let red = |v: i32| if turn == Color::Red { v } else { -v };
    match score {
        Score::Cp(v) => format!("eval {:+.2} for red (depth {depth})", f64::from(red(v)) / 100.0),
        Score::Mate(0) => format!("{} has no legal move", side(turn)),
        Score::Mate(n) => {
            // In plies, as the table part of the same comment counts: the search's mate in n
            // moves is 2n - 1 plies for the side to move, 2n when it is the one mated.
            let (winner, plies) = if n > 0 { (turn, 2 * n - 1) } else { (!turn, -2 * n) };
            format!("eval {} mates in {} (depth {depth})", side(winner), Dtm(plies).in_plies())
        }
    }
}

fn side(c: Color) -> &'static str {
    if c == Color::Red {
        "red"
    } else {
        "black"
    }
}

/// The book's games of `mv` in `pos` as red/draw/black counts; `None` when `pos` is not in the
/// book. A move merged with its mirror image (symmetric positions) counts as that line.
fn book_text(book: &Book, pos: &Position, mv: Move) -> Result<Option<String>, String> {
    let moves = book.probe(pos).map_err(|e| e.to_string())?;
    if moves.is_empty() {
        return Ok(None);
    }
    let symmetric = pos.mirror_key() == pos.key();
    let Some(m) = moves.iter().find(|m| m.mv == mv || (symmetric && m.mv == mv.mirror())) else {
        return Ok(Some("book 0 games".to_string()));
    };
    let c = m.counts;
    let (red, black) = if pos.turn() == Color::Red { (c.wins, c.losses) } else { (c.losses, c.wins) };
    let games = c.games();
    let noun = if games == 1 { "game" } else { "games" };
    let mut s = format!("book {games} {noun}: red {red}, draw {}, black {black}", c.draws);
    if c.unknown > 0 {
        s.push_str(&format!(", no result {}", c.unknown));
    }
    Ok(Some(s))
}

/// The table value of `pos` (after the move) in words: who wins and in how many plies, or that
/// the perpetual-check rule decides (the library's [`qiku::Verdict`], told from red's and black's
/// side rather than the side to move's).
fn tb_text(tb: &Tablebases, pos: &Position, rules: Rules) -> Result<Option<String>, String> {
    let Some(v) = tb.verdict(pos, rules).map_err(|e| e.to_string())? else { return Ok(None) };
    let turn = pos.turn();
    let plies = v.value.dtm.plies();
    let (winner, loser) = if v.value.wdl == Wdl::Win { (turn, !turn) } else { (!turn, turn) };
    let what = match v.value.wdl {
        Wdl::Draw => "draw".to_string(),
        _ if v.by_rule => format!(
            "{} wins by the perpetual-check rule: {} can only check forever (line rank {plies}, not plies to mate)",
            side(winner),
            side(loser)
        ),
        Wdl::Loss if plies == 0 => format!("{} wins, {} has no legal move", side(winner), side(loser)),
        _ => format!("{} wins, mate in {}", side(winner), v.value.dtm.in_plies()),
    };
    Ok(Some(format!("table ({} rules): {what}", rules.name())))
}

/// The comments of a game: (byte offset to insert at, text).
type Comments = Vec<(usize, String)>;
/// Why a game is copied without comments: (line of what is wrong, message).
type BadGame = (u64, String);

/// Replays one game and builds its comments: `(byte offset, comment)` for every move.
fn annotate_game(
    text: &str,
    starts: &[usize],
    g: &RawGame,
    ctx: &mut Context<'_>,
) -> Result<Result<Comments, BadGame>, String> {
    let start = match &g.fen {
        Some((fen, loc)) => match Position::from_fen(fen) {
            Ok(p) => p,
            Err(e) => {
                let quoted = qiku::engine::uci::excerpt(fen);
                return Ok(Err((loc.line, format!("bad FEN tag {quoted:?} at column {}: {e}", loc.column))));
            }
        },
        None => Position::startpos(),
    };
    // Every token first: a bad game is copied unchanged, without comments.
    let mut game = Game::new(start);
    let mut placed = Vec::with_capacity(g.moves.len());
    for (token, loc) in &g.moves {
        let pos = game.position().clone();
        let mv = match qiku::notation::parse_any(&pos, token) {
            Ok((m, _)) => m,
            Err(e) => return Ok(Err((loc.line, format!("move {token:?} at column {}: {e}", loc.column)))),
        };
        let Some(end) = token_end(text, starts, token, *loc) else {
            return Ok(Err((loc.line, format!("move {token:?} not found where it was read"))));
        };
        game.play_unchecked(mv);
        placed.push((pos, mv, end));
    }
    let mut out = Vec::with_capacity(placed.len());
    let mut replay = Game::new(game.start().clone());
    // Each game from a fresh table and history: its evaluations do not depend on the games
    // before it in the file.
    ctx.shared.tt.clear();
    ctx.history.clear();
    let mut over = false;
    for (before, mv, end) in placed {
        replay.play_unchecked(mv);
        let after = replay.position();
        let mut parts = Vec::new();
        // A game the rules have ended (perpetual check or chase, repetition, the 120-ply limit)
        // is said so at the move that ended it; the moves a record has after it get nothing.
        if over {
            ctx.progress.advance(1);
            continue;
        }
        if let Some(ended) = qiku::engine::game_over(&replay) {
            over = true;
            ctx.progress.advance(1);
            out.push((end, format!("game over: {} ({})", ended.text, ended.result)));
            continue;
        }
        if let Some(book) = ctx.book {
            parts.extend(book_text(book, &before, mv)?);
        }
        // A move after which the side to move has no legal move (it loses, mated or stalemated):
        // said once, by the rules, rather than by the table and again by the engine.
        if after.has_no_moves() {
            let how = if after.is_check() { "checkmated" } else { "stalemated" };
            parts.push(format!("{} has no legal move and loses ({how})", side(after.turn())));
            ctx.progress.advance(1);
            out.push((end, parts.join("; ")));
            continue;
        }
        if let Some(tb) = ctx.tb {
            parts.extend(tb_text(tb, after, ctx.rules)?);
        }
        if let Some(limits) = &ctx.limits {
            let r =
                search::search(&replay, limits, &SearchOptions::default(), &ctx.shared, &mut ctx.history, &mut |_| {});
            parts.push(eval_text(r.score, after.turn(), r.depth));
        }
        ctx.progress.advance(1);
        if !parts.is_empty() {
            out.push((end, parts.join("; ")));
        }
    }
    Ok(Ok(out))
}

struct Context<'a> {
    book: Option<&'a Book>,
    tb: Option<&'a Tablebases>,
    rules: Rules,
    limits: Option<Limits>,
    shared: Shared,
    history: History,
    progress: &'a TermProgress,
}

/// Annotates `opts.input` into `opts.output` (written atomically; never the input itself).
pub fn annotate(opts: &AnnotateOptions) -> Result<AnnotateReport, String> {
    if qiku::fs::same_file(&opts.input, &opts.output) {
        return Err(format!(
            "{}: the output is the input file; give another name with -o (the annotated games are written beside the originals)",
            opts.output.display()
        ));
    }
    // The book and the tables are inputs too: an output over one of them would destroy it.
    crate::refuse_output_among_inputs(&opts.output, opts.book.as_deref())?;
    if let Some(dir) = &opts.tb {
        if qiku::fs::same_file(qiku::fs::parent_dir(&opts.output), dir) {
            return Err(format!(
                "{}: the output is in the tables directory {}; choose another output",
                opts.output.display(),
                dir.display()
            ));
        }
    }
    crate::refuse_unwritable_output(&opts.output)?;
    crate::overwrite::refuse_replacing(&opts.output, crate::overwrite::Writes::Pgn, opts.force)?;
    let book = opts.book.as_ref().map(|p| Book::open(p).map_err(|e| super::book::book_error_text(&e))).transpose()?;
    let tb = opts.tb.as_ref().map(|p| Tablebases::open(p).map_err(|e| e.to_string())).transpose()?;
    if let (Some(tb), Some(dir)) = (&tb, &opts.tb) {
        for problem in tb.problems() {
            eprintln!("qiku: {problem}");
        }
        // A directory without tables would add nothing to any comment: a wrong path, said now
        // rather than after annotating every game without a table part.
        if tb.tables().is_empty() {
            return Err(format!(
                "--tb {}: no table (.qtb file) there; generate tables with `qiku-tb generate -d {}`, or give \
                 --tb the directory that holds them",
                dir.display(),
                dir.display()
            ));
        }
    }
    let shared = Shared::try_new(opts.hash).map_err(|e| format!("--hash {}: {e}", opts.hash))?;
    let mut input = pgn::open(&opts.input, EncodingChoice::Auto).map_err(|e| e.to_string())?;
    let mut text = String::new();
    input.read_to_string(&mut text).map_err(|e| format!("{}: {e}", opts.input.display()))?;
    let mut reader = Reader::new(text.as_bytes());
    let mut collect = Collect::default();
    reader.read_all(&mut collect).map_err(|e| format!("{}: {e}", opts.input.display()))?;
    if reader.mode() == Mode::Lines {
        return Err(format!(
            "{}: not PGN (one game of moves per line); annotate writes comments into PGN movetext: convert the games to PGN first",
            opts.input.display()
        ));
    }
    let starts = line_starts(&text);
    let progress = TermProgress::new(opts.progress, false);
    let total: usize = collect.games.iter().filter(|g| g.error.is_none()).map(|g| g.moves.len()).sum();
    progress.start("annotating", total as u64);
    let mut ctx = Context {
        book: book.as_ref(),
        tb: tb.as_ref(),
        rules: opts.rules,
        limits: opts.limits.clone(),
        shared,
        history: History::default(),
        progress: &progress,
    };
    let mut report = AnnotateReport { games: collect.games.len() as u64, ..AnnotateReport::default() };
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for g in &collect.games {
        if let Some((line, e)) = &g.error {
            report.skipped.push((g.number, *line, e.clone()));
            continue;
        }
        match annotate_game(&text, &starts, g, &mut ctx)? {
            Ok(list) => {
                report.annotated += 1;
                report.moves += g.moves.len() as u64;
                inserts.extend(list);
            }
            Err((line, e)) => report.skipped.push((g.number, line, e)),
        }
    }
    progress.finish();
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(text.len() + inserts.iter().map(|(_, c)| c.len() + 3).sum::<usize>());
    let mut from = 0;
    for (at, comment) in &inserts {
        out.push_str(&text[from..*at]);
        out.push_str(" {");
        out.push_str(comment);
        out.push('}');
        from = *at;
    }
    out.push_str(&text[from..]);
    let mut file = qiku::fs::AtomicFile::create(&opts.output).map_err(|e| format!("{}: {e}", opts.output.display()))?;
    file.file().write_all(out.as_bytes()).map_err(|e| format!("{}: {e}", opts.output.display()))?;
    file.commit().map_err(|e| format!("{}: {e}", opts.output.display()))?;
    Ok(report)
}

/// Prints the summary of [`annotate`] (stdout) and every skipped game (stderr).
pub fn print_report(opts: &AnnotateOptions, r: &AnnotateReport) {
    for (game, line, why) in &r.skipped {
        eprintln!("qiku annotate: {} game {game} (line {line}): {why}; copied without comments", opts.input.display());
    }
    println!(
        "wrote {}: {} of {} games annotated ({} moves){}",
        opts.output.display(),
        r.annotated,
        r.games,
        r.moves,
        if r.skipped.is_empty() { String::new() } else { format!(", {} skipped (see above)", r.skipped.len()) }
    );
}
