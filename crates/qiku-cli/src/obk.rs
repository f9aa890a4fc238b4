//! `qiku-book export` and `qiku-book import`: argument handling and output for the `.obk`
//! conversions of [`qiku::book::obk`].

use qiku::book::obk;
use qiku::book::Book;
use std::path::Path;

/// `qiku-book export BOOK.qbk -o BOOK.obk [--vinxiangqi] [--quiet]`: progress on stderr unless
/// `quiet`.
pub fn run_export(book: &Path, output: &Path, vinxiangqi: bool, quiet: bool) -> Result<(), String> {
    let book = Book::open(book).map_err(|e| e.to_string())?;
    let options = obk::ExportOptions { vinxiangqi_aliases: vinxiangqi };
    let progress = super::progress::TermProgress::new(!quiet, false);
    let r = obk::export_with_progress(&book, output, options, &progress).map_err(|e| e.to_string())?;
    println!(
        "wrote {}: {} positions, {} moves ({} rows, both mirror orientations) in {:.2} s",
        output.display(),
        r.positions,
        r.records,
        r.rows,
        r.elapsed.as_secs_f64()
    );
    if r.without_result > 0 {
        eprintln!(
            "qiku-book: warning: {} of the {} moves come only from games without a result: their vscore is 0, \
             and GUIs that skip moves without a positive score will not show them (build the book from games \
             with results for a GUI; qiku's own probe and engine use the .qbk's counts)",
            r.without_result, r.records
        );
    }
    if r.alias_rows > 0 {
        println!("  {} of the rows are VinXiangQi aliases (--vinxiangqi)", r.alias_rows);
    }
    if r.unreachable > 0 {
        let moves = if r.unreachable == 1 { "book move is" } else { "book moves are" };
        println!("{} {moves} not reachable from the start position by book moves: not written", r.unreachable);
    }
    Ok(())
}

/// `qiku-book import BOOK.obk -o BOOK.qbk`.
pub fn run_import(input: &Path, output: &Path) -> Result<(), String> {
    let r = obk::import(input, output).map_err(|e| e.to_string())?;
    let (positions, records) = r.header.map_or((0, 0), |h| (h.positions, h.records));
    println!(
        "wrote {}: {} positions, {} moves from {} of {} rows in {:.2} s",
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
    for (n, why) in skipped {
        if n > 0 {
            println!("  {} skipped: {why}", crate::count(n, "row", "rows"));
        }
    }
    if r.bad_counts > 0 {
        eprintln!(
            "qiku-book: warning: {} skipped: a negative or missing (NULL) win, draw or loss count",
            crate::count(r.bad_counts, "row", "rows")
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
        eprintln!("qiku-book: warning: {} {rows} a count of 2^32 or more: saturated at 4294967295", r.saturated);
    }
    if r.header_ignored {
        eprintln!(
            "qiku-book: warning: the .obk's qiku_book header does not describe its rows (copied from another \
             book, or the rows were edited): ignored; game counts and --max-ply estimated from the rows"
        );
    }
    Ok(())
}
