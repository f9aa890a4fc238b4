//! `qiku label`: score every position of a tuning position file with a UCI or UCCI engine (qiku
//! itself by default) at a fixed depth or node count, for `qiku tune --scored`. The file format
//! is `qiku::tune::scored`'s.

use super::matchrunner::process::{EngineProcess, EngineSpec, Go, Protocol, RankBase};
use super::progress::TermProgress;
use clap::Args;
use qiku::tune::scored::{self, Score, ScoredPosition};
use qiku::{Position, Progress};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod partial;

/// Long help of `qiku label`.
pub const LABEL_HELP: &str = "Score the positions of a tuning position file with an engine.

Reads a file written by `qiku tune --write-positions` (FEN, result, train|valid, tab-separated),
searches every position with the engine to --depth or --nodes, and writes the same lines with the
engine's score as a fourth column (centipawns from red's point of view, #N for a mate). Before
each position the engine gets a new game (ucinewgame), so with one search thread a score depends
only on the position, and the output is the same for any --concurrency.

  qiku tune --write-positions positions.tsv
  qiku label positions.tsv scored.tsv --depth 6 --concurrency 2
  qiku tune --scored scored.tsv --lambda 0.5 --emit tuned.rs

The engine is qiku itself unless --engine names another UCI (or, with --protocol ucci, UCCI)
engine; --option sets its options (e.g. --option Hash=16). A UCCI engine's scores are bare numbers
on ElephantEye's scale (10000 - plies for a mate, read as #N); before each position the engine gets
ucinewgame (UCCI: setoption newgame), so a score is the position's alone over either protocol. The
output's directory is checked before the first search, and --timeout holds from the first search on.

The scores are kept in OUTPUT.partial as they come: a run stopped for any reason (Ctrl-C, a kill,
an engine that stops answering) continues where it stopped when the same command is run again,
and writes the same file as a run never stopped. OUTPUT.partial goes when OUTPUT is written.";

/// Arguments of `qiku label`.
#[derive(Args, Debug)]
pub struct LabelArgs {
    /// Position file to score (from `qiku tune --write-positions`).
    input: PathBuf,
    /// Where to write the scored file (written when every position is scored; until then the
    /// scores are kept in OUTPUT.partial, from which the same command continues).
    output: PathBuf,
    /// Engine command line (default: this qiku).
    #[arg(long)]
    engine: Option<String>,
    /// Protocol of the engine: uci (default) or ucci.
    #[arg(long, default_value = "uci")]
    protocol: Protocol,
    /// setoption for the engine, e.g. Hash=16 (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    option: Vec<String>,
    /// Search every position to this depth.
    #[arg(long, conflicts_with = "nodes", value_parser = super::whole_number::<u32>(1, 100))]
    depth: Option<u32>,
    /// Search every position for this many nodes.
    #[arg(long, value_parser = super::whole_number::<u64>(1, u64::MAX))]
    nodes: Option<u64>,
    /// Engines searching at the same time (one position each).
    #[arg(long, default_value_t = 1, value_parser = super::whole_number::<usize>(1, 256))]
    concurrency: usize,
    /// Longest a single search may take, in seconds, before the engine is declared stuck.
    #[arg(long, default_value_t = 120, value_parser = super::whole_number::<u64>(1, 86_400))]
    timeout: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Replace the file at OUTPUT even if it is not text (by default a book, a table, games or any
    /// other kind of file there is left alone and the command fails).
    #[arg(long)]
    force: bool,
}

/// Runs `qiku label`.
pub fn run(args: &LabelArgs) -> Result<(), String> {
    let go = match (args.depth, args.nodes) {
        (Some(d), _) => Go::Depth(d),
        (None, Some(n)) => Go::Nodes(n),
        (None, None) => return Err("give --depth or --nodes: how far to search each position".into()),
    };
    crate::refuse_output_among_inputs(&args.output, [args.input.as_path()])?;
    // Before any search: a run of hours must not end on an output it cannot write.
    crate::refuse_unwritable_output(&args.output)?;
    crate::overwrite::refuse_replacing_given(&args.output, crate::overwrite::Writes::Positions, args.force, "")?;
    // Line by line, from a regular file only (a FIFO is refused at once, never waited on).
    let lines = scored::open(&args.input).map_err(|e| {
        format!(
            "{}: cannot open: {e}; pass a position file written by qiku tune --write-positions",
            args.input.display()
        )
    })?;
    let mut positions = Vec::new();
    for read in lines {
        let (line, p) = read.map_err(|e| format!("{}: {e}", args.input.display()))?;
        let pos = Position::from_fen(&p.fen)
            .map_err(|e| format!("{}: line {line}: FEN {:?}: {e}", args.input.display(), p.fen))?;
        positions.push((line, p, pos.turn() == qiku::Color::Red));
    }
    if positions.is_empty() {
        return Err(format!(
            "{}: no positions to score (the file is empty or blank); pass a position file written by qiku tune \
             --write-positions; nothing was written",
            args.input.display()
        ));
    }
    let command = match &args.engine {
        Some(c) => c.clone(),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find this program to run it: {e}"))?
            .display()
            .to_string(),
    };
    let mut spec = EngineSpec::new(&command);
    spec.protocol = args.protocol;
    // Positions go to the engine as FENs and only its score is read, never a move, so the rank
    // numbering of its moves does not matter: no detection search (which would wait longer
    // than --timeout for an engine that hangs).
    spec.ranks = Some(RankBase::Zero);
    for o in &args.option {
        let (k, v) = o.split_once('=').ok_or_else(|| format!("--option {o:?}: expected NAME=VALUE"))?;
        spec.options.push((k.to_string(), v.to_string()));
    }
    // The scores of an earlier run of the same command that stopped, kept in OUTPUT.partial.
    let limit = match go {
        Go::Depth(d) => format!("depth {d}"),
        Go::Nodes(n) => format!("nodes {n}"),
        _ => String::new(),
    };
    let protocol = match args.protocol {
        Protocol::Uci => "uci",
        Protocol::Ucci => "ucci",
    };
    let settings = partial::settings_line(&command, protocol, &limit, &args.option);
    let partial_path = partial::path_for(&args.output);
    let inputs: Vec<ScoredPosition> =
        positions.iter().map(|(_, p, _)| ScoredPosition { score: None, ..p.clone() }).collect();
    let (kept, kept_bytes) = partial::resume(&partial_path, &settings, &inputs)?;
    let first = kept.len();
    if first > 0 {
        eprintln!(
            "qiku: continuing from {}: {} of {} already scored",
            partial_path.display(),
            first,
            crate::count(positions.len(), "position", "positions")
        );
    }
    let writer = std::sync::Mutex::new(partial::Writer::open(&partial_path, &settings, kept_bytes, first)?);
    let t0 = Instant::now();
    let progress = TermProgress::new(!args.quiet, false);
    progress.start("scoring", (positions.len() - first) as u64);
    let next = AtomicUsize::new(first);
    let failed = AtomicBool::new(false);
    let timeout = Duration::from_secs(args.timeout);
    // One engine per worker; each takes the next position until all are scored or one fails,
    // and returns the scores it found with the positions' indices.
    let score_some = || -> Result<Vec<(usize, Score)>, String> {
        let mut engine = EngineProcess::start(&spec).map_err(|e| format!("{command}: {e}"))?;
        let mut found = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= positions.len() || failed.load(Ordering::Relaxed) {
                break;
            }
            let (line, p, red) = &positions[i];
            let fail = |e: String| format!("{}: line {line}: {e}", args.input.display());
            engine.new_game().map_err(|e| fail(e.to_string()))?;
            let answer = engine.go(&p.fen, &[], go, timeout).map_err(|e| fail(e.to_string()))?;
            let read = match args.protocol {
                Protocol::Uci => Score::from_uci,
                Protocol::Ucci => Score::from_ucci,
            };
            let score = answer
                .score
                .as_deref()
                .and_then(|w| read(w, *red))
                .ok_or_else(|| fail(format!("the engine gave no score (it answered {:?})", answer.token)))?;
            let line = ScoredPosition { score: Some(score), ..p.clone() }.to_line();
            writer.lock().unwrap_or_else(|e| e.into_inner()).add(i, line)?;
            found.push((i, score));
            progress.advance(1);
        }
        engine.quit();
        Ok(found)
    };
    let mut scores: Vec<Option<Score>> =
        kept.into_iter().map(Some).chain(std::iter::repeat(None)).take(positions.len()).collect();
    let errors: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..args.concurrency.min((positions.len() - first).max(1)))
            .map(|_| {
                s.spawn(|| {
                    let r = score_some();
                    if r.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|w| match w.join() {
                Ok(Ok(found)) => {
                    for (i, score) in found {
                        scores[i] = Some(score);
                    }
                    None
                }
                Ok(Err(e)) => Some(e),
                Err(_) => Some("a scoring thread panicked".into()),
            })
            .collect()
    });
    progress.finish();
    if let Some(e) = errors.into_iter().next() {
        let done = writer.lock().unwrap_or_else(|e| e.into_inner()).written();
        if done == 0 {
            // Nothing to continue from.
            drop(writer);
            let _ = std::fs::remove_file(&partial_path);
            return Err(format!("{e}; nothing was written"));
        }
        return Err(format!(
            "{e}; {} not written, the {} scored so far are kept in {}: run the same command again to continue",
            args.output.display(),
            crate::count(done, "position", "positions"),
            partial_path.display()
        ));
    }
    let mut out = String::with_capacity(positions.len() * 100);
    for ((_, p, _), score) in positions.iter().zip(scores) {
        let score = score.ok_or("internal: a position was not scored")?;
        out.push_str(&ScoredPosition { score: Some(score), ..p.clone() }.to_line());
        out.push('\n');
    }
    qiku::fs::AtomicFile::write(&args.output, out.as_bytes()).map_err(|e| format!("{}: {e}", args.output.display()))?;
    drop(writer);
    std::fs::remove_file(&partial_path).map_err(|e| format!("{}: cannot remove: {e}", partial_path.display()))?;
    println!(
        "{} scored by {command} in {:.1} s, written to {}",
        crate::count(positions.len(), "position", "positions"),
        t0.elapsed().as_secs_f64(),
        args.output.display()
    );
    Ok(())
}
