//! Every call into the qiku library, in one place: positions and notations, the opening books,
//! the endgame tables, the engine and the tables' statistics. The rest of the server speaks only
//! the plain types defined here, so a change in the library's names touches this file alone.

use qiku::book::{Book, Verify};
use qiku::engine::adapters::{Notes, QtbEndgames};
use qiku::engine::{time::Limits, Endgames, Engine, Score, Source};
use qiku::notation::{chinese, iccs, parse_any, wxf};
use qiku::tablebase::generate::{changed, load, load_rules};
use qiku::tablebase::{file_name, rules_file_name, Material, Rules, Tablebases, TbValue};
use qiku::{Color, Game, Move, Position, Verdict};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The other move of a mirror pair the book counted together (ChessDB lists both).
pub use qiku::book::mirror_twin;
/// Checks `RAYON_NUM_THREADS` before any work: a clear refusal of a value the pools cannot use.
pub use qiku::check_worker_threads_env;
pub use qiku::tablebase::Rules as TableRules;

/// The start position's FEN.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A position, as the server passes it around (the library's type).
pub type Pos = Position;
/// A move (the library's type).
pub type Mv = Move;

/// Reads a FEN, or `startpos`. The error names what is wrong with the FEN.
pub fn parse_fen(fen: &str) -> Result<Pos, String> {
    let fen = fen.trim();
    let fen = if fen.is_empty() || fen.eq_ignore_ascii_case("startpos") { START_FEN } else { fen };
    Position::from_fen(fen).map_err(|e| format!("bad FEN `{fen}`: {e}"))
}

/// The FEN of a position.
pub fn fen_of(pos: &Pos) -> String {
    pos.fen()
}

/// `red` or `black`: the side to move.
pub fn turn_name(pos: &Pos) -> &'static str {
    if pos.turn() == Color::Red {
        "red"
    } else {
        "black"
    }
}

/// Is red to move?
pub fn red_to_move(pos: &Pos) -> bool {
    pos.turn() == Color::Red
}

/// Reads one move in any notation (ICCS, WXF or Chinese) in `pos`. The error is the library's,
/// which names the token.
pub fn parse_move(pos: &Pos, token: &str) -> Result<Mv, String> {
    parse_any(pos, token).map(|(m, _)| m).map_err(|e| e.to_string())
}

/// Reads an ICCS move (`h2e2`) legal in `pos`.
pub fn parse_iccs(pos: &Pos, token: &str) -> Option<Mv> {
    iccs::parse(pos, token).ok()
}

/// Plays a legal move.
pub fn play(pos: &Pos, m: Mv) -> Pos {
    pos.play_unchecked(m)
}

/// A position with the moves that reached it from the position given (the library's game): the
/// rules judge repetitions and the 120-ply limit by them, and the engine searches with them, as
/// `qiku analyze startpos moves ...` and Python's `Board` do.
pub type Played = Game;

/// A game from `pos`, no move played yet.
pub fn start_game(pos: &Pos) -> Played {
    Game::new(pos.clone())
}

/// Plays a legal move in a game.
pub fn play_in(game: &mut Played, m: Mv) {
    game.play_unchecked(m);
}

/// The position a game has reached.
pub fn position(game: &Played) -> &Pos {
    game.position()
}

/// How a game ended, as `qiku analyze --json` writes it (its `game_over`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GameOver {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// In words: `red wins by perpetual check`, `draw by threefold repetition`.
    pub text: String,
}

impl GameOver {
    fn of(end: qiku::engine::GameEnd) -> GameOver {
        GameOver { result: end.result, text: end.text }
    }
}

/// Any end of the game, a checkmate or stalemate included, with its reason's name (`checkmate`,
/// `perpetual_check`, `repetition`, ...: Python's `Outcome.reason`); `None` while it goes on.
pub fn game_end(game: &Played) -> Option<(GameOver, &'static str)> {
    qiku::engine::game_end(game).map(|end| {
        let name = qiku::engine::game_over::reason_name(end.reason());
        (GameOver::of(end), name)
    })
}

/// A game the rules have ended with legal moves left (a perpetual check or chase, a threefold
/// repetition, the 120-ply limit, no attacking material), which `qiku analyze` and Python's
/// `Engine().analyse` report instead of searching on; `None` otherwise (also after a checkmate or
/// stalemate: the search says there is no move).
pub fn game_over(game: &Played) -> Option<GameOver> {
    qiku::engine::game_over(game).map(GameOver::of)
}

/// The legal moves of a position, in move order.
pub fn legal_moves(pos: &Pos) -> Vec<Mv> {
    let mut v: Vec<Mv> = pos.moves().iter().copied().collect();
    v.sort_by_key(|m| m.to_u16());
    v
}

/// Is the side to move in check?
pub fn in_check(pos: &Pos) -> bool {
    pos.is_check()
}

/// Has the side to move a rook, horse, cannon or pawn (a piece that can attack across the river)?
pub fn mover_has_attackers(pos: &Pos) -> bool {
    Material::from_position(pos).side_has_attackers(pos.turn())
}

/// A move in the three notations.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveNames {
    /// ICCS: `h2e2`.
    pub iccs: String,
    /// WXF: `C2.5`.
    pub wxf: String,
    /// Chinese: `炮二平五`.
    pub chinese: String,
}

/// The names of `m`, legal in `pos`.
pub fn names(pos: &Pos, m: Mv) -> MoveNames {
    MoveNames { iccs: iccs::format(m), wxf: wxf::format(pos, m), chinese: chinese::format(pos, m) }
}

/// In a position that is its own mirror image (the start), the mirror twin of book move `m`,
/// whose games the books count with it (`qiku-book probe`'s "with its mirror"); else `None`.
pub fn merged_mirror(pos: &Pos, m: Mv) -> Option<Mv> {
    qiku::book::BookMove { mv: m, counts: Default::default() }.merged_mirror(pos)
}

/// The ICCS name of a move.
pub fn iccs_of(m: Mv) -> String {
    iccs::format(m)
}

/// Book counts of one move (or a position's total), from the mover's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookCounts {
    /// Games the mover won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the mover lost.
    pub losses: u64,
    /// Games without a result.
    pub unknown: u64,
}

impl BookCounts {
    /// Every game.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses + self.unknown
    }
    /// Games with a result.
    pub fn decided(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    /// (wins + draws / 2) / decided games, `None` without a decided game (as `qiku-book probe`).
    pub fn score(&self) -> Option<f64> {
        let d = self.decided();
        (d > 0).then(|| (2 * self.wins + self.draws) as f64 / (2 * d) as f64)
    }
    fn add(&mut self, o: &BookCounts) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.unknown += o.unknown;
    }
}

/// One of the recent games that reached a position (kept by the book when it has them).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RecentGame {
    /// Red's player.
    pub red: String,
    /// Black's player.
    pub black: String,
    /// The event.
    pub event: String,
    /// The date as the game gives it.
    pub date: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// The game's start position (FEN): the standard one unless the game set another
    /// (`qiku-book probe --json`'s `start`; `fen` names the position itself everywhere else).
    pub start: String,
    /// The whole game from its start position, in ICCS.
    pub moves: Vec<String>,
    /// The first `ply` moves reach the position asked about.
    pub ply: usize,
    /// The game reached the mirror image of the position asked about (left and right swapped,
    /// which the books count as one position): `start` and `moves` are its mirror image, so that
    /// they reach the position itself; the game as played is them mirrored back.
    pub mirrored: bool,
}

/// A further source of recent games besides the books' own sections (tests use their own).
pub trait RecentGames: Send + Sync {
    /// The recent games that reached `pos`, most recent first.
    fn recent_games(&self, pos: &Pos) -> Result<Vec<RecentGame>, String>;
}

/// A book's error in the library's words, which name the file (only an internal error does not:
/// then the file is named here).
fn book_error(path: &Path, e: &qiku::book::BookError) -> String {
    match e {
        qiku::book::BookError::Internal(_) => format!("book {}: {e}", path.display()),
        _ => format!("book: {e}"),
    }
}

/// Why a book cannot be opened, with what to do when the file is missing or no book
/// ([`qiku::book::open_hint`]: build one, or import a GUI's `.obk`, to a new name).
fn book_open_error(path: &Path, e: &qiku::book::BookError) -> String {
    match qiku::book::open_hint(path) {
        Some(hint) => format!("{}\n({hint})", book_error(path, e)),
        None => book_error(path, e),
    }
}

/// The opened books, probed together (their counts summed per move).
pub struct Books {
    books: Vec<(PathBuf, Book)>,
    recent: Vec<Box<dyn RecentGames>>,
}

impl Books {
    /// Opens every book, fully verified as the engine and `qiku-book probe` open it (checksums,
    /// record order, every record's move: the whole file read once: the 33.6 MB book of the
    /// quick start in 0.03 s): a book damaged inside its records would otherwise be served with
    /// wrong counts where every other tool refuses it.
    pub fn open(paths: &[PathBuf]) -> Result<Books, String> {
        let mut books: Vec<(PathBuf, Book)> = Vec::new();
        for p in paths {
            let book = Book::open_with(p, Verify::Full).map_err(|e| book_open_error(p, &e))?;
            // Probed together, a book given twice (or by two paths) would count its games twice.
            if let Some((earlier, _)) = books.iter().find(|(q, _)| qiku::fs::same_file(q, p)) {
                return Err(format!(
                    "{}: named twice (also as {}): its games would be counted twice; give each book once",
                    p.display(),
                    earlier.display()
                ));
            }
            books.push((p.clone(), book));
        }
        Ok(Books { books, recent: Vec::new() })
    }

    /// Adds a source of recent games besides the books' own.
    pub fn add_recent_games(&mut self, source: Box<dyn RecentGames>) {
        self.recent.push(source);
    }

    /// No book.
    pub fn none() -> Books {
        Books { books: Vec::new(), recent: Vec::new() }
    }

    /// Is there at least one book?
    pub fn any(&self) -> bool {
        !self.books.is_empty()
    }

    /// The books' file names.
    pub fn names(&self) -> Vec<String> {
        self.books
            .iter()
            .map(|(p, _)| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
            .collect()
    }

    /// The book moves of `pos` with their counts summed over the books, most played first (ties
    /// in move order): with one book, the list `qiku-book probe` prints.
    pub fn probe(&self, pos: &Pos) -> Result<Vec<(Mv, BookCounts)>, String> {
        let mut out: Vec<(Mv, BookCounts)> = Vec::new();
        for (path, book) in &self.books {
            for bm in book.probe(pos).map_err(|e| book_error(path, &e))? {
                let c = BookCounts {
                    wins: bm.counts.wins.into(),
                    draws: bm.counts.draws.into(),
                    losses: bm.counts.losses.into(),
                    unknown: bm.counts.unknown.into(),
                };
                match out.iter_mut().find(|(m, _)| *m == bm.mv) {
                    Some((_, total)) => total.add(&c),
                    None => out.push((bm.mv, c)),
                }
            }
        }
        out.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then(a.0.to_u16().cmp(&b.0.to_u16())));
        Ok(out)
    }

    /// The recent games that reached `pos` (or its mirror image, replayed mirrored), from every
    /// book's recent-games section and every added source, most recent first: by the date the
    /// `Date` tag gives ([`qiku::book::GameDate`]), the books' own order among equal dates. Each
    /// game whole, with its start position and moves.
    pub fn recent_games(&self, pos: &Pos, limit: usize) -> Result<Vec<RecentGame>, String> {
        self.collect_recent(pos, limit, true)
    }

    /// The same list as [`Books::recent_games`], the players, event, date, result and ply only:
    /// `start` and `moves` are left empty (the explorer lists games and fetches one when asked,
    /// so that a position's answer stays small).
    pub fn recent_game_headers(&self, pos: &Pos, limit: usize) -> Result<Vec<RecentGame>, String> {
        self.collect_recent(pos, limit, false)
    }

    fn collect_recent(&self, pos: &Pos, limit: usize, whole: bool) -> Result<Vec<RecentGame>, String> {
        let mut all: Vec<(u32, RecentGame)> = Vec::new();
        for (path, book) in &self.books {
            let games = book.recent_games(pos).map_err(|e| book_error(path, &e))?;
            for g in games {
                let result = match g.result {
                    Some(r) => r.to_string(),
                    None => "*".to_string(),
                };
                let (start, moves) = if whole {
                    (g.start.fen(), g.moves.iter().map(|m| iccs::format(*m)).collect())
                } else {
                    (String::new(), Vec::new())
                };
                let game = RecentGame {
                    red: g.red,
                    black: g.black,
                    event: g.event,
                    date: g.date,
                    result,
                    start,
                    moves,
                    ply: g.ply,
                    mirrored: g.mirrored,
                };
                all.push((g.when.map_or(0, |d| d.key()), game));
            }
        }
        for r in &self.recent {
            for mut g in r.recent_games(pos)? {
                let key = qiku::book::GameDate::parse(&g.date).map_or(0, |d| d.key());
                if !whole {
                    g.start.clear();
                    g.moves.clear();
                }
                all.push((key, g));
            }
        }
        // Stable: the books' own order (newest first, then their tie-break) among equal dates.
        all.sort_by_key(|b| std::cmp::Reverse(b.0));
        all.truncate(limit);
        Ok(all.into_iter().map(|(_, g)| g).collect())
    }
}

/// A table value as the server reports it, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TableValue {
    /// `win`, `draw` or `loss`.
    pub wdl: &'static str,
    /// Distance in plies, signed: positive when the side to move wins, negative when it loses, 0
    /// for a draw or a position without a legal move (as `qiku-tb probe --json`). For a value only
    /// the Asian rules decide (`by_rule`), a rank of the winning line rather than plies to mate.
    pub dtm: i32,
    /// Decided only by the Asian rules (a draw without them).
    pub by_rule: bool,
    /// The unit of `dtm`: `plies`, or `line rank` for a value only the rules decide (as
    /// `qiku-tb probe --json`).
    pub unit: &'static str,
}

impl TableValue {
    fn from(v: Verdict) -> TableValue {
        TableValue { wdl: v.value.wdl.name(), dtm: v.value.dtm.0, by_rule: v.by_rule, unit: v.unit() }
    }
    /// Plies to the end, unsigned.
    pub fn plies(&self) -> u32 {
        self.dtm.unsigned_abs()
    }
    /// Is it a win for the side to move?
    pub fn is_win(&self) -> bool {
        self.wdl == "win"
    }
    /// Is it a loss for the side to move?
    pub fn is_loss(&self) -> bool {
        self.wdl == "loss"
    }
}

/// A position's table answer: its value and every move's (for the mover), best first.
#[derive(Clone, Debug)]
pub struct TableAnswer {
    /// The position's value.
    pub value: TableValue,
    /// The value in words, with its rules and unit (`qiku-tb probe`'s line, its `text`).
    pub text: String,
    /// Every legal move with its value for the side that plays it, best first (the order of
    /// `qiku-tb probe`).
    pub moves: Vec<(Mv, TableValue)>,
    /// The moves of the table's winning line (`qiku-tb probe --json`'s `best_moves`), in move order.
    pub best: Vec<Mv>,
    /// The `.qtw` WDL file's answer (`win`, `draw` or `loss`; `qiku-tb probe --json`'s
    /// `wdl_file`), checked against `value`; `None` when the material has no WDL file.
    pub wdl_file: Option<&'static str>,
}

/// A summary of one table file, read from its header.
#[derive(Clone, Debug, Serialize)]
pub struct TableSummary {
    /// The material (`KRvK`).
    pub material: String,
    /// Pieces on the board.
    pub pieces: usize,
    /// Legal positions with red to move (mirror images counted).
    pub red: SideCounts,
    /// Legal positions with black to move.
    pub black: SideCounts,
    /// Has a `.qtr` companion (the Asian rules' values).
    pub has_rules: bool,
    /// Size of the `.qtb` file in bytes.
    pub file_bytes: u64,
}

/// Position counts of one side to move.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SideCounts {
    /// Legal positions.
    pub legal: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// Longest distance stored, as the table's counts give it: plies to mate in the plain counts
    /// (and in `/api/tables`, from the `.qtb` header); in the Asian counts the larger of the
    /// longest mate and the highest line rank of the values only the rules decide, two units in
    /// one number ([`RuleCounts`] gives them apart).
    pub max_dtm: u64,
}

/// Position counts of one side to move under the Asian rules, with the longest mate and the
/// highest line rank apart (`qiku-tb stats --json`'s `longest_mate_plies` and
/// `highest_line_rank`, computed by the same library call).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct RuleCounts {
    /// The counts (`max_dtm` mixing plies and line ranks, as the table's counts give it).
    #[serde(flatten)]
    pub counts: SideCounts,
    /// The longest mate, plies: the plain table's (the rules change only draws).
    pub longest_mate_plies: u64,
    /// The highest line rank of the values only the rules decide, when it is above the longest
    /// mate; `null` when the rules decide nothing for this side, or no rank is above the longest
    /// mate ([`qiku::tablebase::highest_line_rank`]).
    pub highest_line_rank: Option<u64>,
}

impl RuleCounts {
    fn new(plain: qiku::tablebase::Counts, rule: qiku::tablebase::Counts) -> RuleCounts {
        RuleCounts {
            counts: rule.into(),
            longest_mate_plies: plain.max_dtm,
            highest_line_rank: qiku::tablebase::highest_line_rank(&plain, &rule),
        }
    }
}

impl From<qiku::tablebase::Counts> for SideCounts {
    fn from(c: qiku::tablebase::Counts) -> SideCounts {
        SideCounts { legal: c.legal, wins: c.wins, draws: c.draws, losses: c.losses, max_dtm: c.max_dtm }
    }
}

/// A table's full statistics: counts under both rules, the DTM histogram and the longest mate.
#[derive(Clone, Debug, Serialize)]
pub struct TableStats {
    /// The material.
    pub material: String,
    /// Counts without repetition rules (red to move, black to move).
    pub plain: [SideCounts; 2],
    /// Counts under the Asian rules, when the companion file is present.
    pub asian: Option<[RuleCounts; 2]>,
    /// Positions whose value only the Asian rules decide (drawn without them), per side to move
    /// (red, black): `qiku-tb stats --json`'s `changed`.
    pub changed: Option<[u64; 2]>,
    /// `histogram[side][d]`: positions at distance `d` plies (d = 0: no legal move), side 0 red.
    pub histogram: [Vec<u64>; 2],
    /// The longest mate: its FEN (the side to move wins) and length in plies.
    pub longest: Option<(String, u64)>,
}

/// Why a table's statistics cannot be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatsError {
    /// Not a material (`KRvKQ`, `xyz`): a bad request.
    Invalid(String),
    /// No table for this material here (or no tables), or none anywhere: a material without
    /// attacking pieces is a dead draw.
    Missing(String),
    /// The table is larger than the server walks.
    TooLarge(String),
    /// The table's file cannot be read: damaged, never to be taken for a missing one.
    Damaged(String),
}

/// The largest distance a table stores (larger codes are reserved).
const MAX_DTM: u16 = qiku::tablebase::format::MAX_DTM_U16;

/// The way out a message about a missing table offers besides generating it.
const ELSEWHERE: &str = "or start the server with --tb naming the directory that holds it";

/// The opened tables.
pub struct Tables {
    tb: Option<Arc<Tablebases>>,
    dir: Option<PathBuf>,
    /// The same tables for the engine (probed at its root and in its tree, as the `qiku`
    /// engine's `TablebasePath`), wrapped once per rules (a search's tables keep one set of
    /// rules while it runs, and searches under both may run at once): plain, then Asian.
    engine: [Option<Arc<dyn Endgames>>; 2],
    /// The rules of a search that names none (the server's `--rules`).
    default_rules: Rules,
    /// The files the tables could not use, each named once (`<file>: <cause>`): found at
    /// start-up or when a search first probed them.
    unusable: Arc<Mutex<Vec<String>>>,
}

impl Tables {
    /// Opens a directory of tables (`None`: no tables); `rules` are those of a search that names
    /// none. Files that cannot be used are named on stderr, once each.
    pub fn open(dir: Option<&Path>, rules: Rules) -> Result<Tables, String> {
        let Some(dir) = dir else {
            return Ok(Tables {
                tb: None,
                dir: None,
                engine: [None, None],
                default_rules: rules,
                unusable: Arc::default(),
            });
        };
        // A directory that does not exist is a wrong path, said with the command that makes tables
        // there (one without tables yet is served, below).
        let elsewhere = "or give --tb the directory that holds them";
        let tb = Arc::new(Tablebases::open(dir).map_err(|e| {
            let said = qiku::tablebase::unusable_dir_message(dir, Err(&e), elsewhere);
            format!("--tb {}", said.unwrap_or_else(|| e.to_string()))
        })?);
        if tb.tables().is_empty() {
            // Served all the same (the books still answer), but said: tables made later are not seen.
            eprintln!(
                "qiku serve: no tables in {} yet (`qiku-tb generate MATERIAL... -d {}` makes some)",
                dir.display(),
                dir.display()
            );
        }
        // One opened directory for all: each wrapper keeps its own rules, and the files that
        // cannot be used (at start-up or found damaged later) are named once, on stderr.
        let unusable: Arc<Mutex<Vec<String>>> = Arc::default();
        let kept = Arc::clone(&unusable);
        let notes: Notes = Arc::new(move |note: &str| {
            eprintln!("qiku serve: {note}");
            kept.lock().unwrap_or_else(|e| e.into_inner()).push(note.to_string());
        });
        let plain = QtbEndgames::with_notes(Arc::clone(&tb), notes);
        plain.set_rules(Rules::Plain);
        let asian = plain.under_rules(Rules::Asian);
        let engine = [plain, asian].map(|e| (e.max_pieces() > 0).then(|| Arc::new(e) as Arc<dyn Endgames>));
        Ok(Tables { tb: Some(tb), dir: Some(dir.to_path_buf()), engine, default_rules: rules, unusable })
    }

    /// Why no table answers `pos`, as `qiku-tb probe` says it: its material's table is not in the
    /// directory (with the command that makes it), or none can be made (too many pieces).
    pub fn no_table(&self, pos: &Pos) -> String {
        let material = qiku::tablebase::Material::from_position(pos);
        let why = match &self.dir {
            Some(dir) => qiku::tablebase::no_table_message(&material, dir, ELSEWHERE),
            None => "this server has no tables (start it with --tb DIR)".to_string(),
        };
        format!("no table here covers {}: {why}", fen_of(pos))
    }

    /// The engine's tables under `rules` (the server's `--rules` when `None`).
    fn for_engine(&self, rules: Option<Rules>) -> Option<Arc<dyn Endgames>> {
        match rules.unwrap_or(self.default_rules) {
            Rules::Plain => self.engine[0].clone(),
            Rules::Asian => self.engine[1].clone(),
        }
    }

    /// The files the tables could not use so far, each once, as `<file>: <cause>`.
    pub fn unusable(&self) -> Vec<String> {
        self.unusable.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Are tables open?
    pub fn any(&self) -> bool {
        self.tb.is_some()
    }

    /// The table answer for `pos` under `rules`: `Ok(None)` when no table covers it; an error
    /// when its file is damaged or a table its captures lead to is missing, in the words of
    /// `qiku-tb probe` (with the command that makes the table). The values are
    /// `qiku-tb probe --rules RULES --json`'s.
    pub fn answer(&self, pos: &Pos, rules: Rules) -> Result<Option<TableAnswer>, String> {
        let (Some(tb), Some(dir)) = (&self.tb, &self.dir) else { return Ok(None) };
        let e = |e: qiku::tablebase::TbError| {
            qiku::tablebase::probe_error_message(&e, dir, "`rules=plain`, or start the server with `--rules plain`")
        };
        // The library's verdicts say whether only the rule decides: no second, plain probe.
        let Some(value) = tb.verdict(pos, rules).map_err(e)? else { return Ok(None) };
        let Some(moves) = tb.move_verdicts(pos, rules).map_err(e)? else { return Ok(None) };
        let values: Vec<(Mv, TbValue)> = moves.iter().map(|&(m, v)| (m, v.value)).collect();
        let best = Tablebases::best_among(pos, value.value, &values);
        let wdl_file = tb.checked_wdl_file(pos, rules, &value).map_err(e)?.map(|w| w.name());
        let moves = moves.iter().map(|&(m, v)| (m, TableValue::from(v))).collect();
        Ok(Some(TableAnswer { value: TableValue::from(value), text: value.to_string(), moves, best, wdl_file }))
    }

    /// How many tables can be used.
    pub fn count(&self) -> usize {
        self.tb.as_ref().map_or(0, |tb| tb.usable_tables().len())
    }

    /// Why the table of `material` (canonical) or its `.qtr` companion cannot be used, in the
    /// library's words, which name the file; `None` when both can be, or are absent.
    fn damage(&self, material: Material) -> Option<String> {
        let tb = self.tb.as_ref()?;
        if let Err(e) = tb.table(material) {
            return Some(e.to_string());
        }
        // A companion that does not open is no companion to `has_rules`: the library keeps its
        // error among the directory's problems.
        let rules = rules_file_name(material);
        tb.problems()
            .iter()
            .find(|p| p.path().and_then(Path::file_name).is_some_and(|n| n.to_str() == Some(rules.as_str())))
            .map(|p| p.to_string())
    }

    /// Summaries of every table, by material name; an error naming every table file (`.qtb`,
    /// `.qtr`) that cannot be read, which would otherwise be listed as absent.
    pub fn summaries(&self) -> Result<Vec<TableSummary>, String> {
        let Some(tb) = &self.tb else { return Ok(Vec::new()) };
        let damaged: Vec<String> = tb.tables().iter().filter_map(|t| self.damage(t.material)).collect();
        if !damaged.is_empty() {
            return Err(damaged.join("; "));
        }
        let mut out: Vec<TableSummary> = tb
            .usable_tables()
            .into_iter()
            .filter_map(|t| {
                let file = tb.table(t.material).ok()??;
                Some(TableSummary {
                    material: t.material.to_string(),
                    pieces: t.material.piece_count(),
                    red: file.header().counts[0].into(),
                    black: file.header().counts[1].into(),
                    has_rules: tb.has_rules(t.material),
                    file_bytes: file.file_len(),
                })
            })
            .collect();
        out.sort_by(|a, b| a.pieces.cmp(&b.pieces).then(a.material.cmp(&b.material)));
        Ok(out)
    }

    /// The full statistics of the table of `name` (its canonical material's: [`TableStats::named`]
    /// gives them for the name asked), reading and walking the whole table: callers cache it.
    /// `max_entries` bounds the work; a bigger table is refused. A table file or `.qtr`
    /// companion that cannot be read is [`StatsError::Damaged`], never taken for an absent one.
    pub fn stats(&self, name: &StatsName, max_entries: u64) -> Result<TableStats, StatsError> {
        let (Some(tb), Some(dir)) = (&self.tb, &self.dir) else {
            return Err(StatsError::Missing("no tables are open".into()));
        };
        let canonical = name.canonical;
        if let Some(e) = self.damage(canonical) {
            return Err(StatsError::Damaged(e));
        }
        let damaged = |e: &dyn std::fmt::Display| StatsError::Damaged(e.to_string());
        let file = tb
            .table(canonical)
            .map_err(|e| damaged(&e))?
            .ok_or_else(|| StatsError::Missing(qiku::tablebase::no_table_message(&canonical, dir, ELSEWHERE)))?;
        let entries = file.entries();
        if entries > max_entries {
            return Err(StatsError::TooLarge(format!(
                "{canonical} has {entries} entries, more than this server walks ({max_entries}); use `qiku-tb stats {canonical}`"
            )));
        }
        let table = std::sync::Arc::new(load(&dir.join(file_name(canonical))).map_err(|e| damaged(&e))?);
        let plain = table.counts();
        let (asian, changed) = if tb.has_rules(canonical) {
            let rt = load_rules(&dir.join(rules_file_name(canonical)), &table).map_err(|e| damaged(&e))?;
            let c = rt.counts();
            (Some([0, 1].map(|s| RuleCounts::new(plain[s], c[s]))), Some(changed(&plain, &c)))
        } else {
            (None, None)
        };
        let per = table.entries() / 2;
        let mut histogram: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        let mut longest: Option<(u64, u64, usize)> = None; // (dtm, idx, side)
        for (side, hist) in histogram.iter_mut().enumerate() {
            let values = &table.codes()[side * per as usize..(side + 1) * per as usize];
            for (i, &code) in values.iter().enumerate() {
                // Stored codes: 0 a draw, 1 an illegal placement, 2 + d decided at distance d
                // (odd: the side to move wins); above the largest distance, reserved.
                let Some(d) = qiku::tablebase::format::dtm_of(code).filter(|&d| d <= MAX_DTM) else { continue };
                let d = usize::from(d);
                let win = d % 2 == 1;
                let w = table.positions_of(side as u64 * per + i as u64);
                if hist.len() <= d {
                    hist.resize(d + 1, 0);
                }
                hist[d] += w;
                if win && longest.is_none_or(|(ld, _, _)| d as u64 > ld) {
                    longest = Some((d as u64, i as u64, side));
                }
            }
        }
        let longest = longest.and_then(|(d, idx, side)| {
            let setup = table.setup(side as u64 * per + idx)?;
            Position::from_setup(&setup).ok().map(|p| (p.fen(), d))
        });
        Ok(TableStats {
            material: canonical.to_string(),
            plain: [plain[0].into(), plain[1].into()],
            asian,
            changed,
            histogram,
            longest,
        })
    }
}

/// A material asked about by name (`KRvKN`, `krvkn`, `KNvKR`): the canonical material whose table
/// holds it, and whether the name has its colours swapped.
#[derive(Clone, Copy, Debug)]
pub struct StatsName {
    asked: Material,
    canonical: Material,
    swapped: bool,
}

impl StatsName {
    /// Reads a material name (letters in either case, pieces in any order). Not a material is
    /// [`StatsError::Invalid`]; one without attacking pieces has no table anywhere
    /// ([`StatsError::Missing`], saying so as `qiku-tb stats` does).
    pub fn parse(name: &str) -> Result<StatsName, StatsError> {
        let asked = name.parse::<Material>().map_err(|e| StatsError::Invalid(e.to_string()))?;
        if !asked.has_attackers() {
            // No table anywhere, as `qiku-tb stats` says: not one this server lacks.
            return Err(StatsError::Missing(qiku::tablebase::dead_draw_message(&[asked])));
        }
        let (canonical, swapped) = asked.canonical();
        Ok(StatsName { asked, canonical, swapped })
    }

    /// The name of the table that holds it (`KRvKN` for `knvkr`): every name of one material
    /// shares it, so that statistics are computed once.
    pub fn table(&self) -> String {
        self.canonical.to_string()
    }
}

impl TableStats {
    /// The statistics of a table ([`Tables::stats`]) for the name asked: by the name with the
    /// colours swapped (KNvKR for the table KRvKN) its red is the table's black, as
    /// `qiku-tb stats KNvKR` counts it.
    pub fn named(&self, name: &StatsName) -> TableStats {
        let mut stats = self.clone();
        stats.material = name.asked.to_string();
        if name.swapped {
            stats.plain.swap(0, 1);
            if let Some(a) = stats.asian.as_mut() {
                a.swap(0, 1);
            }
            if let Some(c) = stats.changed.as_mut() {
                c.swap(0, 1);
            }
            stats.histogram.swap(0, 1);
            stats.longest = stats.longest.map(|(fen, d)| (colours_swapped(&fen), d));
        }
        stats
    }
}

/// The FEN of `fen`'s position with the colours swapped: the board turned upside down, each
/// piece given to the other side, the other side to move (the same value for the side to move).
fn colours_swapped(fen: &str) -> String {
    let mut fields = fen.split(' ');
    let board = fields.next().unwrap_or("");
    let side = if fields.next() == Some("b") { "w" } else { "b" };
    let rows: Vec<String> = board
        .split('/')
        .rev()
        .map(|row| {
            row.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    let rest: Vec<&str> = fields.collect();
    format!("{} {side} {}", rows.join("/"), rest.join(" "))
}

/// The tables' verdict on a position as the engine reports it beside its score (the library's
/// `Verdict`, written as `qiku probe --json` writes a table value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngineVerdict {
    /// The value, from the side to move's point of view.
    #[serde(flatten)]
    pub value: TableValue,
    /// The rules it holds under: `asian` or `plain`.
    pub rules: &'static str,
    /// The verdict in words, naming its rules and unit (what `qiku-tb probe` prints).
    pub text: String,
}

/// The engine's answer.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Centipawns for the side to move; `None` with a mate, and when the tables decide the
    /// position by the repetition rules alone (`verdict` says it; the engine's score is then a
    /// table win of no known distance, no evaluation).
    pub cp: Option<i32>,
    /// Mate in this many moves (negative: the side to move is mated).
    pub mate: Option<i32>,
    /// Completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// The move chosen (`None`: the side to move has no legal move).
    pub best: Option<Mv>,
    /// The principal variation.
    pub pv: Vec<Mv>,
    /// `tablebase` (the tables chose the move) or `search`.
    pub source: &'static str,
    /// The tables' verdict when they cover the position: the position's (for a win or loss also
    /// the move played, unless `searchmoves` left out the table's line, then the move's), also
    /// when the side to move has no move.
    pub verdict: Option<EngineVerdict>,
    /// The rules of the tables the engine was given.
    pub rules: Rules,
    /// The table files the engine could not use (damaged or foreign, found at start-up or in
    /// this or an earlier search), as `<file>: <cause>`: it searched on without them.
    pub unusable_tables: Vec<String>,
}

/// What one engine search is asked.
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// Time bound, milliseconds (default 1000).
    pub movetime_ms: Option<u64>,
    /// Depth bound (still bounded in time).
    pub depth: Option<u32>,
    /// Hash table, MiB.
    pub hash_mib: usize,
    /// Only these root moves (empty: all).
    pub searchmoves: Vec<Mv>,
    /// The repetition rules of the tables the engine is given (`None`: the server's `--rules`).
    pub rules: Option<Rules>,
}

/// Searches the position `game` has reached, with its moves (so that repetitions inside the
/// search are judged as `qiku analyze` judges them), with a fresh engine (given the tables, as the
/// `qiku` engine is), bounded as `req` says (blocking: run it off the async threads).
pub fn analyze(game: &Played, req: &SearchRequest, tables: &Tables) -> Analysis {
    let (movetime_ms, depth) = (req.movetime_ms, req.depth);
    let mut engine = Engine::new(req.hash_mib);
    let rules = req.rules.unwrap_or(tables.default_rules);
    engine.options.tablebases = tables.for_engine(Some(rules));
    let pos = game.position();
    let limits = match (depth, movetime_ms) {
        (Some(d), _) => {
            let mut l = Limits::depth(d);
            // A depth is still bounded in time.
            l.movetime = Some(std::time::Duration::from_millis(movetime_ms.unwrap_or(10_000)));
            l
        }
        (None, ms) => Limits::movetime(ms.unwrap_or(1000)),
    };
    let mut limits = limits;
    limits.searchmoves = req.searchmoves.clone();
    let (result, source) = engine.think(game, &limits, &mut |_| {});
    // The player's verdict (a side without a move has one too); else the tables' own, for a
    // position the player searched without them (a capture leading into a missing table).
    let verdict = engine.last_verdict.or_else(|| engine.options.tablebases.as_ref().and_then(|t| t.verdict(pos)));
    let by_rule = source == Source::Tablebase && verdict.is_some_and(|v| v.by_rule);
    let (cp, mate) = match result.score {
        // The engine's stand-in for a win only the rules decide: the verdict says it.
        Score::Cp(_) if by_rule => (None, None),
        Score::Cp(c) => (Some(c), None),
        Score::Mate(n) => (None, Some(n)),
    };
    Analysis {
        cp,
        mate,
        depth: result.depth,
        nodes: result.nodes,
        best: result.best,
        pv: result.pv,
        source: if source == Source::Tablebase { "tablebase" } else { "search" },
        verdict: verdict.map(|v| EngineVerdict {
            value: TableValue::from(v),
            rules: v.rules.name(),
            text: v.to_string(),
        }),
        rules,
        unusable_tables: if engine.options.tablebases.is_some() { tables.unusable() } else { Vec::new() },
    }
}

/// The verdict of the repetition rules on the last move of a game (`queryrule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleVerdict {
    /// No repetition, or one the rules let stand.
    None,
    /// The repetition is a draw.
    Draw,
    /// The mover perpetually checks or chases: the move is forbidden.
    Ban,
}

/// Plays `moves` (ICCS as ChessDB writes it: `h0g2`, lowercase, no dash) from `start`; `None` if
/// one is illegal or written otherwise. Then, for every legal move of the final position, the
/// rules' verdict once the resulting position has occurred `reptimes` times before.
pub fn rule_check(start: &Pos, moves: &[&str], reptimes: usize) -> Option<(Pos, Vec<(Mv, RuleVerdict)>)> {
    let mut game = Game::new(start.clone());
    for t in moves {
        let m = iccs::parse(game.position(), t).ok().filter(|m| iccs::format(*m) == *t)?;
        game.play(m).ok()?;
    }
    let end = game.position().clone();
    let mover = end.turn();
    let mut out = Vec::new();
    for m in legal_moves(&end) {
        game.play_unchecked(m);
        let verdict = if game.repetitions() >= reptimes {
            match game.repetition_verdict() {
                Some(qiku::core::game::RepetitionVerdict::PerpetualCheck { loser })
                | Some(qiku::core::game::RepetitionVerdict::PerpetualChase { loser })
                    if loser == mover =>
                {
                    RuleVerdict::Ban
                }
                Some(qiku::core::game::RepetitionVerdict::Draw) => RuleVerdict::Draw,
                _ => RuleVerdict::None,
            }
        } else {
            RuleVerdict::None
        };
        game.undo();
        out.push((m, verdict));
    }
    Some((end, out))
}
