//! `qiku-book export` and `qiku-book import`: argument handling and output for the `.obk`
//! conversions of [`qiku::book::obk`].

use crate::interrupt::Failure;
use crate::overwrite::{refuse_replacing, Writes};
use crate::progress::TermProgress;
use qiku::book::obk::{self, ObkError};
use qiku::book::Book;
use serde_json::json;
use std::path::Path;

/// The switches of `export`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportFlags {
    /// Also write VinXiangQi's alias rows.
    pub vinxiangqi: bool,
    /// No progress display.
    pub quiet: bool,
    /// Replace a file at the output path that is not an `.obk` book.
    pub force: bool,
    /// Print the summary as one JSON object.
    pub json: bool,
}

/// `qiku-book export BOOK.qbk -o BOOK.obk [--vinxiangqi] [--quiet] [--force] [--json]`: progress
/// on stderr unless `quiet`; a file at the output that is not an `.obk` is replaced only with
/// `force`; with `json` the summary is one JSON object on stdout (the warnings stay on stderr).
pub fn run_export(book: &Path, output: &Path, flags: ExportFlags) -> Result<(), Failure> {
    crate::refuse_unwritable_output(output)?;
    crate::refuse_output_among_inputs(output, [book])?;
    refuse_replacing(output, Writes::Obk, flags.force)?;
    let book = Book::open(book).map_err(|e| super::book::book_error_text(&e))?;
    let options = obk::ExportOptions { vinxiangqi_aliases: flags.vinxiangqi };
    let progress = TermProgress::new(!flags.quiet, false);
    let r = match obk::export_with_progress(&book, output, options, &progress) {
        Ok(r) => r,
        Err(ObkError::Stopped { .. }) => {
            progress.clear();
            return Err(Failure::Stopped);
        }
        Err(e) => return Err(e.to_string().into()),
    };
    let recent_games = book.header().recent_games;
    if flags.json {
        let summary = json!({
            "output": output.display().to_string(),
            "positions": r.positions,
            "records": r.records,
            "rows": r.rows,
            "alias_rows": r.alias_rows,
            "without_result": r.without_result,
            "unreachable": r.unreachable,
            "recent_games_not_exported": recent_games,
            "seconds": r.elapsed.as_secs_f64(),
        });
        println!("{summary}");
    } else {
        println!(
            "wrote {}: {} positions, {} distinct moves ({} rows, both mirror orientations) in {:.2} s",
            output.display(),
            r.positions,
            r.records,
            r.rows,
            r.elapsed.as_secs_f64()
        );
    }
    if r.without_result > 0 {
        eprintln!(
            "qiku-book: warning: {} of the {} moves come only from games without a result: their vscore is 0, \
             and GUIs that skip moves without a positive score will not show them (build the book from games \
             with results for a GUI; qiku's own probe and engine use the .qbk's counts)",
            r.without_result, r.records
        );
    }
    if r.alias_rows > 0 && !flags.json {
        println!("  {} of the rows are VinXiangQi aliases (--vinxiangqi)", r.alias_rows);
    }
    if recent_games > 0 && !flags.json {
        // Said, since an import of this file gives a book without them.
        println!("  the recent games stay in the .qbk: an .obk has no place for them");
    }
    if r.unreachable > 0 {
        let are = if r.unreachable == 1 { "is" } else { "are" };
        eprintln!(
            "qiku-book: warning: {} of the book's {} moves {are} not reachable from the start position by book moves \
             and not written (an .obk's positions are found by playing book moves from the start: a move dropped \
             by --min-games or --min-score cuts off the line after it, and games from set-up positions start \
             elsewhere)",
            r.unreachable,
            r.unreachable + r.records
        );
    }
    Ok(())
}

/// An error importing `input`, with what to do when the file is no `.obk` but something qiku
/// reads otherwise: games (`qiku-book build`, [`qiku::book::open_hint`]), an empty file, an
/// endgame table. An SQLite database or a `.qbk` book gets none: the error already says what it
/// is, and a missing file's error says enough.
fn import_error_text(input: &Path, error: &str) -> String {
    use qiku::fs::{file_kind, FileKind};
    match file_kind(input) {
        Ok(FileKind::Sqlite | FileKind::QikuBook) | Err(_) => error.to_string(),
        Ok(_) => match qiku::book::open_hint(input) {
            Some(hint) => format!("{error}\n{hint}"),
            None => error.to_string(),
        },
    }
}

/// `qiku-book import BOOK.obk -o BOOK.qbk [--quiet] [--force] [--json]`: progress on stderr
/// unless `quiet`; a file at the output that is not a `.qbk` is replaced only with `force`; with
/// `json` the summary is one JSON object on stdout (the warnings stay on stderr).
pub fn run_import(input: &Path, output: &Path, quiet: bool, force: bool, json: bool) -> Result<(), Failure> {
    crate::refuse_unwritable_output(output)?;
    crate::refuse_output_among_inputs(output, [input])?;
    refuse_replacing(output, Writes::Qbk, force)?;
    let progress = TermProgress::new(!quiet, false);
    let r = match obk::import_with_progress(input, output, &progress) {
        Ok(r) => r,
        Err(ObkError::Stopped { .. }) => {
            progress.clear();
            return Err(Failure::Stopped);
        }
        Err(e) => return Err(import_error_text(input, &e.to_string()).into()),
    };
    let (positions, records) = r.header.map_or((0, 0), |h| (h.positions, h.records));
    if json {
        let summary = json!({
            "output": output.display().to_string(),
            "positions": positions,
            "records": records,
            "rows": r.rows,
            "used": r.used,
            "skipped": {
                "invalid": r.invalid,
                "unreadable": r.unreadable,
                "alias": r.aliases,
                "illegal": r.illegal,
                "unreachable": r.unreachable,
                "bad_counts": r.bad_counts,
                "bad_memos": r.bad_memos,
                "repeated": r.repeated,
            },
            "saturated": r.saturated,
            "header_ignored": r.header_ignored,
            "seconds": r.elapsed.as_secs_f64(),
        });
        println!("{summary}");
    } else {
        println!(
            "wrote {}: {} positions, {} distinct moves from {} of {} rows in {:.2} s",
            output.display(),
            positions,
            records,
            r.used,
            r.rows,
            r.elapsed.as_secs_f64()
        );
        let skipped = [
            (r.invalid, "marked invalid (vvalid 0)"),
            (r.unreadable, "unreadable (a key, move or count that is not a number of the right kind)"),
            (r.aliases, "a VinXiangQi alias of another row"),
            (r.illegal, "illegal in its position"),
            (r.unreachable, "not reachable from the start position by book moves"),
        ];
        for (n, why) in skipped.into_iter().filter(|&(n, _)| n > 0) {
            println!("  {} skipped: {why}", crate::count(n, "row", "rows"));
        }
    }
    if r.bad_counts > 0 {
        eprintln!(
            "qiku-book: warning: {} skipped: a negative or missing (NULL) win, draw or loss count",
            crate::count(r.bad_counts, "row", "rows")
        );
    }
    if r.bad_memos > 0 {
        eprintln!(
            "qiku-book: warning: {} skipped: a vmemo of qiku's count of games without a result (qiku:unknown=N) \
             whose count is not a whole number",
            crate::count(r.bad_memos, "row", "rows")
        );
    }
    if r.repeated > 0 {
        eprintln!(
            "qiku-book: warning: {} skipped: a second row for the same position and move (the first is kept)",
            crate::count(r.repeated, "row", "rows")
        );
    }
    if r.saturated > 0 {
        let rows = if r.saturated == 1 { "row has" } else { "rows have" };
        eprintln!(
            "qiku-book: warning: {} {rows} a count of 2^32 or more (a win, draw or loss count, or the count of \
             games without a result in its qiku:unknown= memo): saturated at 4294967295",
            r.saturated
        );
    }
    if r.header_ignored {
        eprintln!(
            "qiku-book: warning: the .obk's qiku_book header does not describe its rows (copied from another \
             book, or the rows were edited): ignored; game counts and --max-ply estimated from the rows"
        );
    }
    Ok(())
}
