//! `qiku renju`: black's forbidden points, the valuation of a position, a game judge and a
//! Gomocup-protocol player (the default when no subcommand is given).

use clap::{Args, Subcommand};
use qiku_renju::eval::{self, Ruleset};
use qiku_renju::{self, gomocup, Board, Outcome, Point, DIRECTION_NAMES, SIZE};
use std::path::{Path, PathBuf};

/// Arguments of `qiku renju`.
#[derive(Args)]
pub struct RenjuArgs {
    #[command(subcommand)]
    command: Option<RenjuCommand>,
}

#[derive(Args)]
struct PositionArgs {
    /// The game so far, black first, e.g. "h8 h9 i9 g7" (one argument or several).
    moves: Vec<String>,
    /// Start from a board diagram instead of the empty board: 15 lines of `.`, `x` (black) and
    /// `o` (white), top row first (`-`: read it from standard input); MOVES are then played on it.
    #[arg(long, value_name = "FILE")]
    board: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum RenjuCommand {
    /// Black's forbidden points (overline, double-four, double-three), sorted by column then row.
    Forbidden(PositionArgs),
    /// The valuation of every empty point for the side to move, and a board picture.
    Eval(PositionArgs),
    /// Replay a game (moves separated by spaces, commas or line breaks, `#` starts a comment that runs to
    /// the end of its line) and report the first forbidden black move, a five, or that it is
    /// unfinished.
    Judge {
        /// The game file (`-`: read the moves from standard input).
        gamefile: PathBuf,
    },
    /// Play over the Gomocup protocol on standard input and output (the default).
    Play,
}

/// Runs `qiku renju`.
pub fn run(args: &RenjuArgs) -> Result<(), String> {
    match &args.command {
        None | Some(RenjuCommand::Play) => {
            // An error writing the answers is the program's to report at its end (a closed pipe:
            // the manager is gone, nothing to report); any other is reading the commands.
            match gomocup::run(std::io::stdin().lock(), crate::StdoutWriter::new()) {
                Err(_) if crate::StdoutWriter::failed() => Ok(()),
                r => r.map_err(|e| format!("renju play: cannot read standard input: {e}")),
            }
        }
        Some(RenjuCommand::Forbidden(a)) => forbidden(a),
        Some(RenjuCommand::Eval(a)) => evaluate(a),
        Some(RenjuCommand::Judge { gamefile }) => judge(gamefile),
    }
}

fn position(args: &PositionArgs) -> Result<Board, String> {
    let mut board = match &args.board {
        Some(path) => {
            let text = crate::read_text(path)?;
            Board::from_diagram(&text).map_err(|e| format!("{}: {e}", crate::input_name(path)))?
        }
        None => Board::new(),
    };
    let moves = qiku_renju::parse_moves(&args.moves.join(" ")).map_err(|e| e.to_string())?;
    for (i, &p) in moves.iter().enumerate() {
        let number = i + 1;
        if !board.is_empty(p) {
            return Err(format!("move {number}: {p} is already occupied"));
        }
        // The move that ends the game (a five, or black's forbidden move) is the last one
        // played: the end is said on stderr, and so are the moves after it, which are ignored,
        // as `judge` says them.
        let end = board.move_ends_game(p, number);
        board.play(p).map_err(|p| format!("move {number}: {p} is already occupied"))?;
        let extra = moves.len() - number;
        if let Some(end) = end {
            // Said even when no move follows: the points shown are of a game already over.
            let after = if extra > 0 { ignored(extra) } else { "the position shown is after it".to_string() };
            eprintln!("qiku: {}; {after}", outcome_text(&end));
            break;
        }
    }
    Ok(board)
}

/// How `judge` and the position commands name the end of a game.
fn outcome_text(outcome: &Outcome) -> String {
    match *outcome {
        Outcome::Forbidden { ply, point, kind } => {
            format!("white wins: black's move {ply} ({point}) is forbidden ({kind})")
        }
        Outcome::Five { ply, point, winner } => format!("{} wins: five at move {ply} ({point})", winner.name()),
        Outcome::Full => "draw: the board is full".to_string(),
        Outcome::Unfinished => "unfinished".to_string(),
    }
}

/// `N moves after the end of the game were ignored`, in agreement.
fn ignored(extra: usize) -> String {
    format!(
        "{} after the end of the game {} ignored",
        crate::count(extra, "move", "moves"),
        if extra == 1 { "was" } else { "were" }
    )
}

fn forbidden(args: &PositionArgs) -> Result<(), String> {
    let board = position(args)?;
    let points = board.forbidden_points();
    if args.json {
        // Written by hand to keep the documented key order (point, then kind); point names and
        // kinds need no escaping.
        let list: Vec<String> =
            points.iter().map(|(p, k)| format!(r#"{{"point": "{p}", "kind": "{}"}}"#, k.name())).collect();
        println!(r#"{{"forbidden": [{}]}}"#, list.join(", "));
    } else if points.is_empty() {
        println!("no forbidden points for black");
    } else {
        for (p, k) in points {
            println!("{p} {k}");
        }
    }
    Ok(())
}

/// The board with row numbers and column letters; `marks` are drawn as `!` on empty points.
fn picture(board: &Board, marks: &[Point]) -> String {
    let mut s = String::new();
    for row in (0..SIZE).rev() {
        s.push_str(&format!("{:>2}", row + 1));
        for col in 0..SIZE {
            let Some(p) = Point::new(col, row) else { continue };
            let c = match board.stone(p) {
                Some(stone) => stone.symbol(),
                None if marks.contains(&p) => '!',
                None => '.',
            };
            s.push(' ');
            s.push(c);
        }
        s.push('\n');
    }
    s.push_str("  ");
    for col in 0..SIZE {
        s.push(' ');
        s.push((b'a' + col as u8) as char);
    }
    s.push('\n');
    s
}

fn evaluate(args: &PositionArgs) -> Result<(), String> {
    let board = position(args)?;
    let side = board.to_move();
    let mut values = eval::evaluate(&board, side, Ruleset::Renju);
    values.sort_by_key(|v| v.point.sort_key());
    let forbidden: Vec<Point> = board.forbidden_points().into_iter().map(|(p, _)| p).collect();
    if args.json {
        let points: Vec<_> = values
            .iter()
            .map(|v| {
                let patterns: serde_json::Map<_, _> = DIRECTION_NAMES
                    .iter()
                    .zip(v.patterns.iter())
                    .map(|(d, p)| (d.to_string(), serde_json::json!(p.name())))
                    .collect();
                serde_json::json!({
                    "point": v.point.to_string(),
                    "patterns": patterns,
                    "fours": v.fours,
                    "value": v.value,
                    "forbidden": v.forbidden.map(|k| k.name()),
                })
            })
            .collect();
        let forbidden: Vec<String> = forbidden.iter().map(|p| p.to_string()).collect();
        println!(
            "{}",
            serde_json::json!({
                "to_move": side.name(),
                "board": board.diagram().lines().collect::<Vec<_>>(),
                "black_forbidden": forbidden,
                "points": points,
            })
        );
        return Ok(());
    }
    print!("{}", picture(&board, &forbidden));
    println!("{} to move; ! marks black's forbidden points\n", side.name());
    println!("point  value  {:<14}{:<14}{:<14}{:<14}forbidden", "horizontal", "vertical", "diagonal", "anti-diagonal");
    for v in &values {
        let pats: String = v.patterns.iter().map(|p| format!("{:<14}", p.name())).collect();
        println!("{:<6}{:>6}  {pats}{}", v.point.to_string(), v.value, v.forbidden.map_or("", |k| k.name()));
    }
    Ok(())
}

fn judge(path: &Path) -> Result<(), String> {
    let text = crate::read_text(path)?;
    let name = crate::input_name(path);
    let moves = qiku_renju::parse_game(&text).map_err(|e| format!("{name}: {e}"))?;
    let j = qiku_renju::judge(&moves).map_err(|e| format!("{name}: {e}"))?;
    match j.outcome {
        Outcome::Unfinished => println!("unfinished after {}", crate::count(moves.len(), "move", "moves")),
        end => println!("{}", outcome_text(&end)),
    }
    if j.extra_moves > 0 {
        eprintln!("qiku: {name}: {}", ignored(j.extra_moves));
    }
    Ok(())
}
