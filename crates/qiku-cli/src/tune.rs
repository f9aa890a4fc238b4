//! `qiku tune`: Texel tuning of the evaluation from game collections (the library side is
//! `qiku::tune`). Prints the fitted scale, the training and validation losses before and after,
//! and optionally writes the tuned parameters as Rust source for `src/engine/eval/params.rs`.

use super::progress::TermProgress;
use crate::overwrite::{refuse_replacing_given, Writes};
use clap::Args;
use qiku::tune::collect::{self, CollectOptions};
use qiku::tune::{self, FitOptions, Params};
use qiku::Progress;
use std::path::PathBuf;
use std::time::Instant;

/// Long help of `qiku tune`.
pub const TUNE_HELP: &str = "Fit the evaluation's parameters to game results (Texel's method).

Every game with a result is replayed; after --skip-plies, about one position in --every (chosen
by a hash of game and ply) is kept if the side to move is not in check and a capture search
cannot beat the static evaluation (a quiet position). Games are split by a hash into training and
--validation percent held out. The logistic scale k (expected score = 1/(1+e^(-k*eval))) is fitted
first; then material, piece-square tables (mirrored squares tied), mobility, threats, defended
pieces, king safety, the empty-headed cannon, the placement terms and the material imbalance are
fitted by full-batch Adam on the mean squared error. The king's material and the tempo bonus stay
fixed. Tuning starts from the evaluation compiled into this binary. Results are identical for any --threads.

  qiku tune --pgn books/games/ccpd-iccs.pgn.zst --every 3 --epochs 1000 --emit tuned.rs

(the defaults; the command that produced the current numbers). --emit writes the tuned constants
as Rust, to paste into src/engine/eval/params.rs; --json prints the figures as one object.";

/// Arguments of `qiku tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// PGN collections (any encoding, zstd or not), repeatable.
    #[arg(long, default_value = DEFAULT_PGN)]
    pgn: Vec<PathBuf>,
    /// Plies at the start of each game that are never used.
    #[arg(long, default_value_t = 10)]
    skip_plies: u32,
    /// Keep about one position in this many.
    #[arg(long, default_value_t = 3, value_parser = super::whole_number::<u32>(1, u32::MAX as u64))]
    every: u32,
    /// Percentage of the games held out for validation.
    #[arg(long, default_value_t = 10, value_parser = super::whole_number::<u32>(0, 50))]
    validation: u32,
    /// Read at most this many games per file (0: all).
    #[arg(long, default_value_t = 0)]
    max_games: u64,
    /// Adam steps (full passes over the training positions).
    #[arg(long, default_value_t = 1000)]
    epochs: u32,
    /// Adam step size in evaluation units (above 0).
    #[arg(long, default_value_t = 1.0, value_parser = parse_lr)]
    lr: f64,
    /// Keep a group of parameters at its current value (repeatable): material, pst, mobility,
    /// threats, defended, king, structure (placement), imbalance, tempo (the king's material and the tempo
    /// are always kept).
    #[arg(long, value_name = "GROUP")]
    fix: Vec<tune::Group>,
    /// L2 penalty per parameter on its distance from the current value (0: none).
    #[arg(long, default_value_t = 0.0, value_parser = parse_l2)]
    l2: f64,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long, value_parser = super::whole_number::<u32>(1, 1024))]
    threads: Option<u32>,
    /// Write the tuned parameters as Rust source to this file.
    #[arg(long)]
    emit: Option<PathBuf>,
    /// Replace the file at --emit or --write-positions even if it is not text (by default a book,
    /// a table, games or any other kind of file there is left alone and the command fails).
    #[arg(long)]
    force: bool,
    /// Print one JSON object with the figures instead of text.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Write the sampled positions (FEN, result, train|valid) to this file and stop, for
    /// `qiku label` to score them.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scored", "emit"])]
    write_positions: Option<PathBuf>,
    /// Fit on a position file scored by `qiku label` instead of reading --pgn: each position's
    /// target is --lambda times the expected score its engine score stands for, plus (1 - lambda)
    /// times its game's result.
    #[arg(long, value_name = "FILE")]
    scored: Option<PathBuf>,
    /// Weight of the engine's score against the game result with --scored (0: results only,
    /// 1: scores only).
    #[arg(long, default_value_t = 0.5, value_parser = parse_lambda, requires = "scored")]
    lambda: f64,
}

fn parse_lambda(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?}: expected a number from 0 to 1")),
    }
}

/// `--lr`: a step of 0 fits nothing, a negative one climbs the loss instead of descending it,
/// and NaN or infinity turn every parameter into nonsense.
fn parse_lr(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?}: expected a finite number above 0 (the Adam step size, e.g. 1)")),
    }
}

/// `--l2`: a negative penalty would reward moving away from the current values.
fn parse_l2(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("{s:?}: expected a finite number from 0 up (0: no penalty)")),
    }
}

/// The positions to fit on, however they were read.
struct Data {
    training: Vec<qiku::tune::Sample>,
    validation: Vec<qiku::tune::Sample>,
    validation_positions: Vec<qiku::Position>,
    /// What was read, for the report (one line of text and JSON fields).
    summary: String,
    json: serde_json::Value,
}

/// Reads a position file scored by `qiku label`.
fn read_scored(path: &std::path::Path, lambda: f64) -> Result<Data, String> {
    use qiku::tune::scored;
    // Line by line, from a regular file only (a FIFO is refused at once, never waited on).
    let read_lines = scored::open(path).map_err(|e| {
        format!("{}: cannot open: {e}; pass --scored with a file written by qiku label", path.display())
    })?;
    // The positions, and beside them their line numbers to name a bad FEN's line by.
    let (mut lines, mut positions) = (Vec::new(), Vec::new());
    for read in read_lines {
        let (line, p) = read.map_err(|e| format!("{}: {e}", path.display()))?;
        if p.score.is_none() && lambda > 0.0 {
            return Err(format!(
                "{}: line {line}: no score; score the file with qiku label first, or pass --lambda 0",
                path.display()
            ));
        }
        lines.push(line);
        positions.push(p);
    }
    if positions.is_empty() {
        return Err(format!(
            "{}: no positions (the file is empty or blank); pass --scored with a file written by qiku label",
            path.display()
        ));
    }
    let k_engine = scored::fit_engine_scale(&positions);
    let scored::Samples { training, validation, validation_positions } = scored::samples(&positions, lambda, k_engine)
        .map_err(|e| format!("{}: line {}: {}", path.display(), lines[e.index], e.cause))?;
    let mates = positions.iter().filter(|p| matches!(p.score, Some(scored::Score::Mate(_)))).count();
    Ok(Data {
        summary: format!(
            "scored positions: training {} validation {} ({mates} with a mate score); engine scale {k_engine:.6} \
             per centipawn; lambda {lambda}",
            training.len(),
            validation.len()
        ),
        json: serde_json::json!({ "scored": path, "engine_k": k_engine, "lambda": lambda, "mate_scores": mates }),
        training,
        validation,
        validation_positions,
    })
}

/// Writes the collected positions as a position file (no scores yet).
fn write_positions(path: &std::path::Path, data: &collect::Dataset) -> Result<(), String> {
    use qiku::tune::scored::{ScoredPosition, Split};
    let mut text = String::new();
    let sets = [
        (&data.training_positions, &data.training, Split::Train),
        (&data.validation_positions, &data.validation, Split::Valid),
    ];
    for (positions, samples, split) in sets {
        for (pos, s) in positions.iter().zip(samples.iter()) {
            let p = ScoredPosition { fen: pos.fen(), result: s.result, split, score: None };
            text.push_str(&p.to_line());
            text.push('\n');
        }
    }
    qiku::fs::AtomicFile::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Why the games gave no position to fit on or write: none has a result, or none of theirs was
/// kept.
fn no_positions(data: &collect::Dataset) -> String {
    if data.games == 0 {
        "no positions: no games in the --pgn files; pass --pgn with game collections (PGN or .pgn.zst)".into()
    } else if data.games_used == 0 {
        format!(
            "no positions: none of the {} read has a result (a Result tag of 1-0, 0-1 or 1/2-1/2), and only \
             games with a result are used; pass --pgn with finished games",
            crate::count(data.games, "game", "games")
        )
    } else {
        format!(
            "no positions: {} with a result, but none of their positions was kept (after --skip-plies, one in \
             --every, quiet and not in check; rejected: in check {}, not quiet {}, drawish material {})",
            crate::count(data.games_used, "game", "games"),
            data.in_check,
            data.not_quiet,
            data.drawish
        )
    }
}

/// Runs `qiku tune`.
pub fn run(args: &TuneArgs) -> Result<(), String> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n as usize);
    }
    let pool = pool.build().map_err(|e| format!("thread pool: {e}"))?;
    pool.install(|| tune_in_pool(args))
}

/// The default of `--pgn`: relative, so it is found only from the repository's root.
const DEFAULT_PGN: &str = "books/games/ccpd-iccs.pgn.zst";

/// A `--pgn` that is not there, said with where it was looked for and what to pass instead.
fn check_inputs(pgn: &[PathBuf]) -> Result<(), String> {
    for p in pgn {
        if p.exists() {
            continue;
        }
        let looked = std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.clone());
        let hint = if p.as_os_str() == DEFAULT_PGN {
            "the default --pgn is relative to the qiku repository's root: run qiku tune there, or pass \
             --pgn with your game collection (PGN or .pgn.zst)"
        } else {
            "pass --pgn with an existing game collection (PGN or .pgn.zst)"
        };
        return Err(format!("{}: no such file (looked for {}); {hint}", p.display(), looked.display()));
    }
    Ok(())
}

fn tune_in_pool(args: &TuneArgs) -> Result<(), String> {
    let t0 = Instant::now();
    let outputs = args.emit.iter().map(|p| (p, Writes::RustSource, "--emit "));
    for (out, writes, given) in
        outputs.chain(args.write_positions.iter().map(|p| (p, Writes::Positions, "--write-positions ")))
    {
        // The games of a directory given with --pgn are inputs too.
        let inputs = qiku::xqf::expand_inputs(&args.pgn).unwrap_or_else(|_| args.pgn.clone());
        let scored = args.scored.iter().map(PathBuf::as_path);
        crate::refuse_output_among_inputs(out, args.pgn.iter().chain(&inputs).map(PathBuf::as_path).chain(scored))?;
        // Before reading the games and fitting, not after.
        crate::refuse_unwritable_output(out)?;
        refuse_replacing_given(out, writes, args.force, given)?;
    }
    let progress = TermProgress::new(!args.quiet, false);
    let start = Params::DEFAULT;
    let data = match &args.scored {
        Some(path) => read_scored(path, args.lambda)?,
        None => {
            check_inputs(&args.pgn)?;
            let copts = CollectOptions {
                skip_plies: args.skip_plies,
                every: args.every,
                validation_percent: args.validation,
                max_games: args.max_games,
                keep_positions: args.write_positions.is_some(),
                // Writing the positions out needs no traces, only the fit does.
                traces: args.write_positions.is_none(),
                ..CollectOptions::default()
            };
            let data = collect::collect(&args.pgn, &copts, &start, &progress).map_err(|e| e.to_string())?;
            for e in &data.first_errors {
                eprintln!("warning: {e}");
            }
            if let Some(path) = &args.write_positions {
                let n = data.training.len() + data.validation.len();
                if n == 0 {
                    return Err(format!("{}; nothing was written to {}", no_positions(&data), path.display()));
                }
                write_positions(path, &data)?;
                println!(
                    "{} ({} training, {} validation) written to {}",
                    crate::count(n, "position", "positions"),
                    data.training.len(),
                    data.validation.len(),
                    path.display()
                );
                return Ok(());
            }
            if data.training.is_empty() {
                return Err(no_positions(&data));
            }
            Data {
                summary: format!(
                    "games {} used {} (without result {}, with a bad move {}); positions: training {} validation {} \
                     (rejected: in check {}, not quiet {}, drawish material {})",
                    data.games,
                    data.games_used,
                    data.without_result,
                    data.bad_moves,
                    data.training.len(),
                    data.validation.len(),
                    data.in_check,
                    data.not_quiet,
                    data.drawish
                ),
                json: serde_json::json!({
                    "games": data.games, "games_used": data.games_used, "without_result": data.without_result,
                    "bad_moves": data.bad_moves, "rejected_in_check": data.in_check,
                    "rejected_not_quiet": data.not_quiet, "rejected_drawish": data.drawish,
                }),
                training: data.training,
                validation: data.validation,
                validation_positions: data.validation_positions,
            }
        }
    };
    if data.training.is_empty() {
        return Err("no training positions: every position of the --scored file is a validation one (valid)".into());
    }
    let collect_secs = t0.elapsed().as_secs_f64();
    let v0 = start.to_vector();
    let k = tune::fit_k(&data.training, &v0);
    let train_before = tune::loss(&data.training, &v0, k);
    // No validation positions (--validation 0, or a file without valid lines): no validation
    // loss, said as such rather than as a loss of 0.
    let has_validation = !data.validation.is_empty();
    let valid = |loss: f64| has_validation.then_some(loss);
    let shown =
        |loss: Option<f64>| loss.map_or_else(|| "none (no validation positions)".to_string(), |l| format!("{l:.6}"));
    let valid_before = valid(tune::loss(&data.validation, &v0, k));
    if !args.json {
        println!("{}; {collect_secs:.1} s", data.summary);
        println!("k = {k:.6} per unit (Texel K = {:.4} on the 400/log10 scale)", k * 400.0 / std::f64::consts::LN_10);
        println!("loss before: training {train_before:.6} validation {}", shown(valid_before));
    }
    let mut fopts = FitOptions { epochs: args.epochs, learning_rate: args.lr, l2: args.l2, ..FitOptions::default() };
    for &g in &args.fix {
        fopts.frozen.extend(tune::group_indices(g));
    }
    progress.start("fitting", args.epochs as u64);
    let fitted = tune::fit(&data.training, &v0, k, &fopts, |epoch, l| {
        progress.advance(1);
        progress.message(&format!("loss {l:.6}"));
        if epoch % 50 == 0 && !args.json {
            progress.println(&format!("epoch {epoch:>5} training loss {l:.6}"));
        }
    });
    progress.finish();
    let tuned = Params::from_vector(&fitted).ok_or("internal: parameter vector length")?;
    let rounded = tuned.to_vector();
    let train_after = tune::loss(&data.training, &rounded, k);
    let valid_after = valid(tune::loss(&data.validation, &rounded, k));
    // The real evaluation with the rounded parameters, on the validation positions.
    let valid_ref_before = valid(tune::reference_loss(&data.validation_positions, &data.validation, &start, k));
    let valid_ref_after = valid(tune::reference_loss(&data.validation_positions, &data.validation, &tuned, k));
    let change = |before: Option<f64>, after: Option<f64>| match (before, after) {
        (Some(b), Some(a)) => format!("{b:.6} -> {a:.6}"),
        _ => shown(None),
    };
    let secs = t0.elapsed().as_secs_f64();
    if let Some(path) = &args.emit {
        let text = format!(
            "// qiku tune: {} training / {} validation positions, k = {k:.6}; validation loss {}\n{}",
            data.training.len(),
            data.validation.len(),
            change(valid_before, valid_after),
            tuned.to_rust()
        );
        qiku::fs::AtomicFile::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if args.json {
        let mut obj = serde_json::json!({
            "training": data.training.len(), "validation": data.validation.len(), "k": k,
            "epochs": args.epochs, "lr": args.lr, "l2": args.l2,
            "fixed": args.fix.iter().map(|g| format!("{g:?}").to_lowercase()).collect::<Vec<_>>(),
            "training_loss_before": train_before, "training_loss_after": train_after,
            "validation_loss_before": valid_before, "validation_loss_after": valid_after,
            "validation_eval_loss_before": valid_ref_before, "validation_eval_loss_after": valid_ref_after,
            "seconds": secs,
        });
        if let (Some(o), Some(extra)) = (obj.as_object_mut(), data.json.as_object()) {
            o.extend(extra.clone());
        }
        println!("{obj}");
    } else {
        println!("loss after:  training {train_after:.6} validation {}", shown(valid_after));
        println!("validation loss with the engine's evaluation: {}", change(valid_ref_before, valid_ref_after));
        println!("{secs:.1} s");
    }
    Ok(())
}
