//! `qiku annotate GAMES.pgn -o OUT.pgn`: a comment after every main-line move of every game with
//! what the book, the tables and the engine say of it. The games are otherwise copied byte for
//! byte (tags, movetext, comments, variations, line breaks); only `{...}` comments are inserted.
//! Games that cannot be read (a syntax error, an unknown or illegal move) are copied unchanged,
//! counted and reported by game and line.
//!
//! The games are streamed: read one, annotate it, write it, then the next, so that memory stays
//! that of one game (plus the engine's table) however large the collection. A first quick pass
//! over the file only counts the moves, for the progress display, and refuses a file that is not
//! PGN before anything is written.

use super::progress::TermProgress;
use qiku::book::Book;
use qiku::engine::ordering::History;
use qiku::engine::search::{self, SearchOptions, Shared};
use qiku::engine::time::Limits;
use qiku::engine::Score;
use qiku::pgn::{self, EncodingChoice, ErrorKind, Location, Mode, Reader, Skip, SyntaxError, Visitor};
use qiku::tablebase::Tablebases;
use qiku::{Color, Dtm, Game, Move, Position, Progress, Rules, Wdl};
use std::cell::RefCell;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::PathBuf;
use std::rc::Rc;

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

/// Collects one game's tokens and their places.
#[derive(Default)]
struct Collect {
    game: RawGame,
    /// Where the game ended (`end_game`'s location).
    end: Location,
}

impl Visitor for Collect {
    fn begin_game(&mut self, loc: Location) {
        self.game = RawGame { number: loc.game, ..RawGame::default() };
    }
    fn tag(&mut self, name: &str, value: &str, loc: Location) -> Skip {
        if name.eq_ignore_ascii_case("FEN") {
            self.game.fen = Some((value.to_string(), loc));
        }
        Skip::Continue
    }
    fn move_token(&mut self, token: &str, loc: Location) -> Skip {
        self.game.moves.push((token.to_string(), loc));
        Skip::Continue
    }
    fn end_game(&mut self, loc: Location) {
        self.end = loc;
    }
    fn malformed(&mut self, error: &SyntaxError) {
        // Named at the error's own line, as a bad move is; the report says the game and the
        // line, so the message is the column and the cause.
        let at = error.location;
        let mut why = format!("syntax error at column {}: {}", at.column, error.kind);
        if !error.snippet.is_empty() {
            why.push_str(&format!(" near `{}`", error.snippet));
        }
        self.game.error = Some((at.line, why));
    }
}

/// A [`BufRead`] that keeps a copy of every byte the reader takes from the input: the text of
/// the games read, to be copied to the output with the comments inserted.
struct Tee<R> {
    inner: R,
    kept: Rc<RefCell<Vec<u8>>>,
}

impl<R: BufRead> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.kept.borrow_mut().extend_from_slice(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if amt > 0 {
            // The bytes consumed are the front of what `fill_buf` gave (and gives again, from
            // its buffer, without reading).
            if let Ok(buf) = self.inner.fill_buf() {
                self.kept.borrow_mut().extend_from_slice(&buf[..amt.min(buf.len())]);
            }
        }
        self.inner.consume(amt);
    }
}

/// The text read and not yet let go: from the start of a line on, with where its lines start,
/// and how much of it is written.
struct Window {
    kept: Rc<RefCell<Vec<u8>>>,
    /// The number of the line `kept` starts with.
    first_line: u64,
    /// Offsets in `kept` of the starts of its lines, `first_line` first (after a byte-order
    /// mark on line 1).
    starts: Vec<usize>,
    /// How much of `kept` was searched for line ends.
    scanned: usize,
    /// How much of `kept` is written to the output.
    written: usize,
}

impl Window {
    fn new(kept: Rc<RefCell<Vec<u8>>>) -> Self {
        Window { kept, first_line: 1, starts: vec![0], scanned: 0, written: 0 }
    }

    /// Takes note of the lines of the text read since the last call.
    fn scan(&mut self) {
        let kept = self.kept.borrow();
        if self.first_line == 1 && self.scanned == 0 && kept.starts_with("\u{feff}".as_bytes()) {
            self.starts[0] = "\u{feff}".len();
        }
        let from = self.scanned;
        self.starts.extend(kept[from..].iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| from + i + 1));
        self.scanned = kept.len();
    }

    /// The offset in `kept` just after the move token read at `loc` (and its `!`/`?` marks), or
    /// `None` if the token is not found there.
    fn token_end(&self, token: &str, loc: Location) -> Option<usize> {
        let kept = self.kept.borrow();
        let index = usize::try_from(loc.line.checked_sub(self.first_line)?).ok()?;
        let line_start = *self.starts.get(index)?;
        let rest = kept.get(line_start..)?;
        let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = std::str::from_utf8(&rest[..line_end]).ok()?;
        let col = line.char_indices().nth((loc.column as usize).saturating_sub(1)).map_or(line.len(), |(i, _)| i);
        let at = col + line[col..].find(token)?;
        let mut end = at + token.len();
        end += line[end..].len() - line[end..].trim_start_matches(['!', '?']).len();
        Some(line_start + end)
    }

    /// Writes the text up to `at` (an offset in `kept`) that is not written yet.
    fn write_to(&mut self, out: &mut impl Write, at: usize) -> io::Result<()> {
        if at > self.written {
            let kept = self.kept.borrow();
            out.write_all(kept.get(self.written..at).unwrap_or_default())?;
            self.written = at;
        }
        Ok(())
    }

    /// Writes the text up to `at`, then the comment ` {text}`.
    fn insert(&mut self, out: &mut impl Write, at: usize, text: &str) -> io::Result<()> {
        self.write_to(out, at)?;
        out.write_all(b" {")?;
        out.write_all(text.as_bytes())?;
        out.write_all(b"}")
    }

    /// After a game that ended on `line`: the text before that line belongs to it (or to games
    /// before it), so it is written and let go; no later game's comment goes there.
    fn release(&mut self, out: &mut impl Write, line: u64) -> io::Result<()> {
        let Some(index) = line.checked_sub(self.first_line).and_then(|i| usize::try_from(i).ok()) else {
            return Ok(());
        };
        let Some(&start) = self.starts.get(index) else { return Ok(()) };
        self.write_to(out, start)?;
        self.kept.borrow_mut().drain(..start);
        self.starts.drain(..index);
        for s in &mut self.starts {
            *s -= start;
        }
        self.first_line = line;
        self.scanned -= start;
        self.written -= start;
        Ok(())
    }

    /// Writes the rest of the text.
    fn finish(&mut self, out: &mut impl Write) -> io::Result<()> {
        let end = self.kept.borrow().len();
        self.write_to(out, end)
    }
}

/// Counts the moves of the games that have no syntax error (the progress display's total), and
/// finds the first bytes that are not UTF-8 (which the output, UTF-8 text, cannot copy).
#[derive(Default)]
struct CountMoves {
    total: u64,
    game: u64,
    malformed: bool,
    not_utf8: Option<SyntaxError>,
}

impl Visitor for CountMoves {
    fn begin_game(&mut self, _loc: Location) {
        self.game = 0;
        self.malformed = false;
    }
    fn move_token(&mut self, _token: &str, _loc: Location) -> Skip {
        self.game += 1;
        Skip::Continue
    }
    fn malformed(&mut self, error: &SyntaxError) {
        self.malformed = true;
        if error.kind == ErrorKind::InvalidUtf8 && self.not_utf8.is_none() {
            self.not_utf8 = Some(error.clone());
        }
    }
    fn end_game(&mut self, _loc: Location) {
        if !self.malformed {
            self.total += self.game;
        }
    }
}

/// A read failure of the games file, named once.
fn read_error(opts: &AnnotateOptions, e: &io::Error) -> String {
    let message = e.to_string();
    let name = format!("{}: ", opts.input.display());
    if message.starts_with(&name) {
        message
    } else {
        format!("{name}{message}")
    }
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
fn annotate_game(window: &Window, g: &RawGame, ctx: &mut Context<'_>) -> Result<Result<Comments, BadGame>, String> {
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
        let Some(end) = window.token_end(token, *loc) else {
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
    // A directory without tables would add nothing to any comment: a wrong path, said now
    // rather than after annotating every game without a table part.
    let tb = opts.tb.as_deref().map(crate::open_tables_dir).transpose()?;
    for problem in tb.iter().flat_map(|tb| tb.problems()) {
        eprintln!("qiku: {problem}");
    }
    let shared = Shared::try_new(opts.hash).map_err(|e| format!("--hash {}: {e}", opts.hash))?;
    // A first pass counts the moves (the progress display's total), and finds a file that is not
    // PGN or cannot be read to its end before anything is written.
    let input = pgn::open(&opts.input, EncodingChoice::Auto).map_err(|e| e.to_string())?;
    let mut reader = Reader::new(input);
    let mut count = CountMoves::default();
    reader.read_all(&mut count).map_err(|e| {
        // Before anything is written: an annotated copy is the whole file with comments, and
        // one that stopped at the damage would lose every game after it.
        format!(
            "{}; nothing written: the annotated copy would lose the games after the damage (`qiku-book build` \
             uses the games before it; repair or replace the file to annotate it)",
            read_error(opts, &e)
        )
    })?;
    if reader.mode() == Mode::Lines {
        return Err(format!(
            "{}: not PGN (one game of moves per line); annotate writes comments into PGN movetext: convert the games to PGN first",
            opts.input.display()
        ));
    }
    if let Some(e) = &count.not_utf8 {
        return Err(format!(
            "{}: {e}: the annotated copy is UTF-8 text, which these bytes cannot be copied into; give the \
             games in one encoding (UTF-8, GBK or Big5)",
            opts.input.display()
        ));
    }
    drop(reader);
    let input = pgn::open(&opts.input, EncodingChoice::Auto).map_err(|e| e.to_string())?;
    let kept = Rc::new(RefCell::new(Vec::new()));
    let mut reader = Reader::with_mode(Tee { inner: input, kept: Rc::clone(&kept) }, Mode::Pgn);
    let mut window = Window::new(kept);
    let progress = TermProgress::new(opts.progress, false);
    progress.start("annotating", count.total);
    let mut ctx = Context {
        book: book.as_ref(),
        tb: tb.as_ref(),
        rules: opts.rules,
        limits: opts.limits.clone(),
        shared,
        history: History::default(),
        progress: &progress,
    };
    let output_error = |e: io::Error| format!("{}: {e}", opts.output.display());
    let mut file = qiku::fs::AtomicFile::create(&opts.output).map_err(output_error)?;
    let mut out = BufWriter::new(file.file());
    let mut report = AnnotateReport::default();
    let mut collect = Collect::default();
    // One game at a time: read, annotate, write.
    while reader.read_game(&mut collect).map_err(|e| read_error(opts, &e))? {
        report.games += 1;
        window.scan();
        let g = &collect.game;
        if let Some((line, e)) = &g.error {
            report.skipped.push((g.number, *line, e.clone()));
        } else {
            match annotate_game(&window, g, &mut ctx)? {
                Ok(list) => {
                    report.annotated += 1;
                    report.moves += g.moves.len() as u64;
                    for (at, comment) in &list {
                        window.insert(&mut out, *at, comment).map_err(output_error)?;
                    }
                }
                Err((line, e)) => report.skipped.push((g.number, line, e)),
            }
        }
        window.release(&mut out, collect.end.line).map_err(output_error)?;
    }
    window.scan();
    window.finish(&mut out).map_err(output_error)?;
    progress.finish();
    out.flush().map_err(output_error)?;
    drop(out);
    file.commit().map_err(output_error)?;
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
