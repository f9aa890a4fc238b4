//! `qiku-book build` and `qiku-book merge`: the writers of `.qbk` books, their summaries, and
//! what they do on Ctrl-C (see [`crate::interrupt`]).

use crate::interrupt::Failure;
use crate::overwrite::{refuse_replacing, Writes};
use crate::progress::TermProgress;
use qiku::book::{self, BookError, BuildError, BuildOptions, BuildReport, MinScore};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `qiku-book build`: refuses to replace a file that is no `.qbk` unless `force`, builds with a
/// progress display when `bar`, and prints the summary (`json`: as one JSON object).
pub fn run_build(
    inputs: &[PathBuf],
    output: &Path,
    opts: &BuildOptions,
    json: bool,
    bar: bool,
    force: bool,
) -> Result<(), Failure> {
    crate::refuse_unwritable_output(output)?;
    super::refuse_output_among_inputs(output, inputs.iter().map(PathBuf::as_path))?;
    refuse_replacing(output, Writes::Qbk, force)?;
    if inputs.iter().any(|p| p.as_os_str() == book::build::STDIN) && std::io::stdin().is_terminal() {
        // Not an error (games may be pasted), but a build that seems to hang would be one.
        eprintln!("qiku-book: reading games from the terminal (`-`); end them with Ctrl-D");
    }
    let progress = TermProgress::new(bar, true);
    let report = match book::build::build_with_progress(inputs, output, opts, &progress) {
        Ok(report) => report,
        Err(BuildError::Stopped) => {
            progress.clear();
            return Err(Failure::Stopped);
        }
        Err(e) => return Err(e.to_string().into()),
    };
    report_repeats(&report);
    report_broken_links(&report);
    for f in &report.files {
        for w in &f.warnings {
            eprintln!("qiku-book: warning: {}: {w}", f.path.display());
        }
    }
    report_unusable_files(&report);
    for e in &report.errors {
        eprintln!("{e}");
    }
    if report.errors_total > report.errors.len() as u64 {
        eprintln!(
            "... and {} more bad games (--show-errors N to see more)",
            report.errors_total - report.errors.len() as u64
        );
    }
    if json {
        outln!("{}", build_summary_json(&report, output));
    } else {
        let text = build_summary_text(&report, output);
        outln!("{}", text.trim_end());
    }
    // An input that could not be read to its end (a damaged or truncated .zst, a read error) is
    // reported as a bad game is: its games before the damage are in the book, which was written,
    // and the command succeeds (a failure status after replacing the output would have a
    // `build || restore` script throw the new book away for the old).
    for f in report.damaged_files() {
        eprintln!("qiku-book: warning: {}", damage_text(f));
    }
    let untouched = if output.exists() { " (the file there is left as it was)" } else { "" };
    let encoding = encoding_hint(&report, opts);
    if report.header.games.used == 0 {
        let hint = encoding.clone().or_else(|| player_hint(&report, opts)).or_else(|| filters_hint(&report));
        return Err(Failure::Error(format!(
            "no game could be used ({} read, {} skipped); nothing written to {}{untouched}{}",
            report.header.games.read,
            report.skipped_total(),
            output.display(),
            hint.map(|h| format!("; {h}")).unwrap_or_default()
        )));
    }
    if let Some(hint) = encoding {
        eprintln!("qiku-book: warning: {hint}");
    }
    if report.header.records == 0 {
        return Err(Failure::Error(format!(
            "no move was kept ({} games used; the filters --min-games, --min-score and --only dropped every \
             move); nothing written to {}{untouched}",
            report.header.games.used,
            output.display()
        )));
    }
    Ok(())
}

/// What is known of where and why a file could not be read to its end, and what became of its
/// games: `trunc.pgn.zst: unreadable after line 688123 (game 11503 on): decompression failed at
/// byte 33554432 of the text: incomplete frame; its 11502 games before that were read`.
fn damage_text(f: &qiku::book::FileReport) -> String {
    let cause = f.error.as_deref().unwrap_or("not read to the end");
    let place = match f.error_line {
        Some(line) => format!("unreadable after line {line} (game {} on)", f.games + 1),
        None => "unreadable from the start".to_string(),
    };
    let used = match f.games {
        0 => "no game of it was read".to_string(),
        1 => "its 1 game before that was read".to_string(),
        n => format!("its {n} games before that were read"),
    };
    format!("{}: {place}: {cause}; {used}", f.path.display())
}

/// Warnings on stderr for the files found in an input directory that could not be used (they
/// cannot be opened, or are not game files): skipped, each named with the cause, and what to do;
/// past the first [`BROKEN_LINKS_SHOWN`], counted.
fn report_unusable_files(r: &BuildReport) {
    for f in r.unusable.iter().take(BROKEN_LINKS_SHOWN) {
        eprintln!(
            "qiku-book: warning: {}: {}; skipped (found in {}): remove it from the directory, or fix it and build \
             again",
            f.path.display(),
            f.cause,
            f.path.parent().unwrap_or(Path::new(".")).display()
        );
    }
    if r.unusable.len() > BROKEN_LINKS_SHOWN {
        eprintln!(
            "qiku-book: warning: ... and {} more unusable files skipped (all of them are under unusable_files in \
             --json)",
            r.unusable.len() - BROKEN_LINKS_SHOWN
        );
    }
}

/// When the player filters matched no game at all and a name has Chinese characters: names are
/// compared as written, and a collection in traditional characters has no game of a name typed in
/// simplified ones (or the other way round).
fn player_hint(report: &BuildReport, opts: &BuildOptions) -> Option<String> {
    use qiku::book::{FilterMiss, SkipReason};
    let f = &opts.filter;
    let names: Vec<&str> = [&f.player, &f.red, &f.black].into_iter().flatten().map(String::as_str).collect();
    let missed = report.skipped.get(&SkipReason::Filtered(FilterMiss::Player)).copied().unwrap_or(0);
    let chinese = names.iter().any(|n| n.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)));
    (missed > 0 && chinese).then(|| {
        format!(
            "no game has a player named {}: names are compared as written, so simplified and traditional \
             characters differ (许银川 does not match 許銀川); write the name as the games do",
            names.join(" or ")
        )
    })
}

/// When the filters left out every game read (none was bad), which filters did, and by how many:
/// `every game was left out by the filters (34 no readable date (--since/--until)): loosen them`.
fn filters_hint(report: &BuildReport) -> Option<String> {
    let read = report.header.games.read;
    let by_filters: Vec<(qiku::book::SkipReason, u64)> =
        report.skipped.iter().filter(|(r, _)| !r.is_error()).map(|(r, n)| (*r, *n)).collect();
    let filtered: u64 = by_filters.iter().map(|(_, n)| n).sum();
    // Games without moves are no filter's doing: when they are all there is, no filter to loosen.
    let no_moves = report.skipped.get(&qiku::book::SkipReason::NoMoves).copied().unwrap_or(0);
    (read > 0 && filtered == read && filtered > no_moves).then(|| {
        let each: Vec<String> = by_filters.iter().map(|(r, n)| format!("{n} {}", r.label())).collect();
        let dates =
            by_filters.iter().any(|(r, _)| *r == qiku::book::SkipReason::Filtered(qiku::book::FilterMiss::NoDate));
        let why = if dates { "; --since and --until leave out a game without a readable Date tag" } else { "" };
        format!("every game was left out by the filters ({}){why}: loosen or drop them", each.join(", "))
    })
}

/// When `--encoding` named the encoding and most games stopped at a tag that could not be decoded
/// or at a token that is no move (what text decoded with the wrong table looks like), says so and
/// what to do: once for the build, however many games. With the encoding detected, a game whose
/// tags are not in its file's encoding is what a file joining games of several encodings gives
/// (the encoding is detected once per file, from its start): said likewise.
fn encoding_hint(report: &BuildReport, opts: &BuildOptions) -> Option<String> {
    use qiku::book::{MoveErrorKind, SkipReason};
    let unreadable = report.skipped.get(&SkipReason::BadMove(MoveErrorKind::Syntax)).copied().unwrap_or(0);
    let undecodable = report.undecodable_headers;
    let stopped = unreadable + undecodable;
    let read = report.header.games.read;
    let detected = opts.encoding == qiku::pgn::EncodingChoice::Auto;
    // Detected: a tag not in the file's encoding, or many tokens that are no move (a part in
    // another encoding decoded as the file's reads as such); given: most games stopped so.
    let said = if detected { undecodable > 0 || unreadable * 4 >= read } else { stopped * 2 >= read };
    if stopped == 0 || !said {
        return None;
    }
    let named = match detected {
        true => "in the encoding detected for their file",
        false => report.files.iter().find_map(|f| f.encoding).map_or("the encoding given", |e| e.name()),
    };
    let at = match (undecodable > 0, unreadable > 0) {
        (true, true) => format!("a tag that is not {named} or a token that is no move"),
        (true, false) => format!("a tag that is not {named}"),
        _ => "a token that is no move".to_string(),
    };
    let why = match detected {
        true => "each file's encoding is detected once, from its start (named above with its games), so a file \
                 that joins games in several encodings (UTF-8 and GBK) is read in one: convert each part to one \
                 encoding (iconv -f GBK -t UTF-8) or give each its own file"
            .to_string(),
        false => format!(
            "the files were read as {named} (--encoding); leave --encoding out to have each file's encoding \
             detected (UTF-8, GBK or Big5), or name the right one"
        ),
    };
    Some(format!("{stopped} of {read} games stopped at {at}, as text read in the wrong encoding does: {why}"))
}

fn build_summary_json(r: &BuildReport, output: &Path) -> serde_json::Value {
    let h = &r.header;
    json!({
        "output": output.display().to_string(),
        "written": r.written,
        "files": r.files.iter().map(|f| json!({
            "path": f.path.display().to_string(),
            "format": if qiku::xqf::is_xqf_path(&f.path) { "xqf" } else { "pgn" },
            "encoding": f.encoding.map(|e| e.name()),
            "compressed": f.compressed,
            "games": f.games,
            "error": f.error.as_deref(),
            "warnings": f.warnings,
            "error_line": f.error_line,
        })).collect::<Vec<_>>(),
        "files_damaged": r.damaged_files().count(),
        "broken_links": r.broken_links.iter().map(|l| l.path.display().to_string()).collect::<Vec<_>>(),
        "unusable_files": r.unusable.iter().map(|f| json!({
            "path": f.path.display().to_string(),
            "cause": f.cause,
        })).collect::<Vec<_>>(),
        "repeated": r.repeated.iter().map(|(p, earlier)| json!({
            "path": p.display().to_string(),
            "same_as": earlier.display().to_string(),
        })).collect::<Vec<_>>(),
        "games_read": h.games.read,
        "games_used": h.games.used,
        "games_without_result": h.games.without_result,
        "games_truncated": r.truncated,
        "cut_short": r.cut_short,
        "games_skipped": r.skipped_total(),
        "games_filtered": r.filtered_total(),
        "recent_games": h.recent_games,
        "recent_games_bytes": h.section_len,
        "file_bytes": h.file_len(),
        "skipped": r.skipped.iter().map(|(k, v)| (k.key().to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "bad_games": r.errors_total,
        // The bad games printed on stderr (the first --show-errors of them), for programs.
        "errors": r.errors.iter().map(|e| json!({
            "file": e.file.display().to_string(),
            "game": e.game,
            "line": e.line,
            "column": e.column,
            "token": e.token.as_deref().map(qiku::engine::uci::excerpt),
            "reason": e.reason.key(),
            "message": e.to_string(),
        })).collect::<Vec<_>>(),
        "positions": h.positions,
        "records": h.records,
        "moves": h.moves,
        "raw_records": r.raw_records,
        "runs_spilled": r.runs_spilled,
        "seconds": r.elapsed.as_secs_f64(),
    })
}

/// Warnings on stderr for the symbolic links found in an input directory whose target does not
/// exist: skipped (the build goes on with the other files), each named with its target and the
/// directory it was found in, and what to do; past the first [`BROKEN_LINKS_SHOWN`], counted.
fn report_broken_links(r: &BuildReport) {
    for link in r.broken_links.iter().take(BROKEN_LINKS_SHOWN) {
        let dir = link.path.parent().unwrap_or(Path::new("."));
        eprintln!(
            "qiku-book: warning: {}: a symbolic link whose target {} does not exist, found in {}; skipped: \
             restore its target or remove the link",
            link.path.display(),
            link.target.display(),
            dir.display()
        );
    }
    if r.broken_links.len() > BROKEN_LINKS_SHOWN {
        eprintln!(
            "qiku-book: warning: ... and {} more broken links skipped (all of them are under broken_links in --json)",
            r.broken_links.len() - BROKEN_LINKS_SHOWN
        );
    }
}

/// How many broken links are named one by one on stderr.
const BROKEN_LINKS_SHOWN: usize = 10;

/// Notes on stderr for inputs left out as repeats of an earlier one.
fn report_repeats(r: &BuildReport) {
    for (path, earlier) in &r.repeated {
        if path.as_os_str() == earlier.as_os_str() {
            // Named twice, or named and found again in a directory given.
            eprintln!(
                "qiku-book: note: {} comes twice among the inputs (named, or in a directory given); read once",
                path.display()
            );
        } else {
            eprintln!("qiku-book: note: {} is the same file as {}; read once", path.display(), earlier.display());
        }
    }
}

fn build_summary_text(r: &BuildReport, output: &Path) -> String {
    use std::fmt::Write;
    let h = &r.header;
    let mut s = String::new();
    for f in &r.files {
        let _ = write!(
            s,
            "{}: {}, {}{}",
            f.path.display(),
            crate::count(f.games, "game", "games"),
            match f.encoding {
                None => "unreadable",
                Some(_) if qiku::xqf::is_xqf_path(&f.path) => "XQF",
                Some(e) => e.name(),
            },
            if f.compressed { ", zstd" } else { "" }
        );
        if let Some(e) = &f.error {
            match f.error_line {
                Some(line) => {
                    let _ = write!(s, " (stopped early, after line {line}: {e})");
                }
                None => {
                    let _ = write!(s, " (stopped early: {e})");
                }
            }
        }
        s.push('\n');
    }
    let _ = writeln!(s, "games read     {}", h.games.read);
    let _ = writeln!(s, "games used     {}", h.games.used);
    if h.games.without_result > 0 {
        let _ = writeln!(
            s,
            "  without result {} (counted toward move frequency, not toward wins/draws/losses)",
            h.games.without_result
        );
    }
    if r.truncated > 0 {
        let _ = writeln!(s, "  cut at a bad move {} (--keep-prefix)", r.truncated);
    }
    if r.cut_short_used > 0 {
        let _ = writeln!(s, "  cut short {} (the input ended mid-game; --keep-prefix)", r.cut_short_used);
    }
    let _ = writeln!(s, "games skipped  {}", r.skipped_total());
    if r.filtered_total() > 0 {
        let _ = writeln!(s, "  by the filters {}", r.filtered_total());
    }
    for (reason, n) in &r.skipped {
        let _ = writeln!(s, "  {reason:<24} {n}");
    }
    // After the skipped games' breakdown, not inside it: a damaged file is no reason a game was
    // skipped.
    let unread = r.damaged_files().count();
    if unread > 0 {
        let _ = writeln!(s, "files not read to the end {unread} (named above; the games before the damage were used)");
    }
    if !r.unusable.is_empty() {
        let _ = writeln!(
            s,
            "unusable files skipped {} (found in a directory; cannot be opened or not game files; named above)",
            r.unusable.len()
        );
    }
    if !r.broken_links.is_empty() {
        let _ = writeln!(
            s,
            "broken links skipped {} (symbolic links whose target does not exist; named above)",
            r.broken_links.len()
        );
    }
    let _ = writeln!(s, "positions      {}", h.positions);
    let _ = writeln!(
        s,
        "moves stored   {} distinct (one per position and move), {} in all (every time a game played one)",
        h.records, h.moves
    );
    if h.recent_games > 0 {
        let _ =
            writeln!(s, "recent games   {} per position, {} of {} bytes", h.recent_games, h.section_len, h.file_len());
    }
    let secs = r.elapsed.as_secs_f64();
    if !r.written {
        // No book, so no rate of building one: what was missing instead.
        let why = if h.games.used == 0 { "no game could be used" } else { "no move was kept" };
        let _ = writeln!(s, "did not write {}: {why}", output.display());
        return s;
    }
    let _ = writeln!(
        s,
        "wrote {} in {:.2} s ({:.0} games/s{})",
        output.display(),
        secs,
        h.games.read as f64 / secs.max(1e-9),
        if r.runs_spilled > 0 { format!(", {} runs spilled", r.runs_spilled) } else { String::new() }
    );
    s
}

/// `qiku-book merge`: refuses to replace a file that is no `.qbk` unless `force`, merges (a
/// Ctrl-C stops it, writing nothing) and says what was written.
pub fn run_merge(
    inputs: &[PathBuf],
    output: &Path,
    min_games: u32,
    min_score: MinScore,
    force: bool,
    json: bool,
) -> Result<(), Failure> {
    crate::refuse_unwritable_output(output)?;
    super::refuse_output_among_inputs(output, inputs.iter().map(PathBuf::as_path))?;
    refuse_replacing(output, Writes::Qbk, force)?;
    // No display (merging takes seconds), but the stop a Ctrl-C asks for is heard.
    let progress = TermProgress::new(false, false);
    let header = match book::merge_books_with_progress(inputs, output, min_games, min_score, &progress) {
        Ok(header) => header,
        Err(BookError::Stopped { .. }) => return Err(Failure::Stopped),
        Err(e) => return Err(super::book::book_error_text(&e).into()),
    };
    if json {
        let summary = json!({
            "output": output.display().to_string(),
            "inputs": inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "positions": header.positions,
            "records": header.records,
            "moves": header.moves,
            "games_used": header.games.used,
            "file_bytes": header.file_len(),
        });
        outln!("{summary}");
        return Ok(());
    }
    outln!(
        "wrote {}: {} positions, {} distinct moves ({} played in all) from {} games",
        output.display(),
        header.positions,
        header.records,
        header.moves,
        header.games.used
    );
    Ok(())
}
