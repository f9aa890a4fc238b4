//! `qiku demo`: the README quick start's main job on the data the repository ships. It builds an
//! opening book from the real master games in `books/games/ccpd-iccs.pgn.zst` (25,368 games of
//! the CC BY 4.0 CCPD collection), probes the start position in it, generates every tablebase of
//! up to four pieces into `tablebases/` (kept if already there) and probes an endgame. Each step
//! prints what a user would run to do it on their own data. Outside a checkout (no
//! `books/games/`), the small repertoire embedded in the binary stands in for the collection.

use crate::book::chinese;
use qiku::book::build::BuildOptions;
use qiku::book::Book;
use qiku::core::Position;
use qiku::tablebase::generate::{generate_set, GenerateOptions};
use qiku::tablebase::{Material, Tablebases};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The endgame the demo probes: red rook against a lone advisor.
pub const DEMO_ENDGAME: &str = "3ak4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1";

/// The real master-game collection the demo compiles, relative to the root.
pub const DEMO_GAMES: &str = "books/games/ccpd-iccs.pgn.zst";

/// The repertoire shipped in the repository, embedded so the demo also runs outside a checkout.
const REPERTOIRE: &str = include_str!("../../../books/repertoire.pgn");

/// Runs the demo with `books/` and `tablebases/` under `root`; the tables of up to `max_pieces`
/// pieces (3 to [`qiku::tablebase::MAX_PIECES`]) are generated.
pub fn run(root: &Path, max_pieces: usize) -> Result<(), String> {
    let most = qiku::tablebase::MAX_PIECES;
    if !(3..=most).contains(&max_pieces) {
        // Refused before the book is built (`qiku demo` refuses it when parsing).
        return Err(format!("--max-pieces {max_pieces}: give a whole number from 3 to {most}, kings included"));
    }
    let books = root.join("books");
    let collection = root.join(DEMO_GAMES);
    let (input, book_path) = if collection.is_file() {
        (collection, books.join("ccpd-iccs.qbk"))
    } else {
        println!("(no {DEMO_GAMES} here: using the small repertoire embedded in qiku instead)\n");
        let input = books.join("repertoire.pgn");
        if !input.exists() {
            std::fs::create_dir_all(&books).map_err(|e| format!("{}: {e}", books.display()))?;
            std::fs::write(&input, REPERTOIRE).map_err(|e| format!("{}: {e}", input.display()))?;
        }
        (input, books.join("repertoire.qbk"))
    };

    // The demo's book has a fixed name: a file of another kind there (games saved under that
    // name, say) is left alone.
    if let Some(what) = super::overwrite::foreign_kind(&book_path, super::overwrite::Writes::Qbk) {
        return Err(format!(
            "{}: exists and appears to be {what}, not a .qbk book; the demo writes its book there: move the file \
             away or give another --root",
            book_path.display()
        ));
    }
    println!("== 1. Opening book: qiku-book build {} -o {}", input.display(), book_path.display());
    let bar = super::progress::TermProgress::new(true, true);
    let report = qiku::book::build::build_with_progress(
        std::slice::from_ref(&input),
        &book_path,
        &BuildOptions::default(),
        &bar,
    )
    .map_err(|e| e.to_string())?;
    let h = &report.header;
    println!(
        "   {} games read, {} used; {} positions, {} moves stored in {:.2} s",
        h.games.read,
        h.games.used,
        h.positions,
        h.moves,
        report.elapsed.as_secs_f64()
    );

    if input.ends_with(DEMO_GAMES) {
        println!("   (real master games: the CCPD collection, CC BY 4.0; see books/games/README.md)");
    }

    let start = Position::startpos();
    println!("\n== 2. Book moves of the start position: qiku-book probe {} startpos", book_path.display());
    let book = Book::open(&book_path).map_err(|e| e.to_string())?;
    // Exactly what that command prints.
    let moves = book.probe(&start).map_err(|e| e.to_string())?;
    let recent = book.recent_games(&start).map_err(|e| e.to_string())?;
    let text = crate::book::probe_text(&book, &start, &moves, &recent, qiku::notation::Notation::Iccs, None);
    for line in text.lines() {
        println!("   {line}");
    }

    let tb_dir: PathBuf = root.join("tablebases");
    println!("\n== 3. Tablebases: qiku-tb generate --max-pieces {max_pieces} -d {}", tb_dir.display());
    let t = Instant::now();
    let materials = Material::all_up_to(max_pieces);
    let bar = std::sync::Arc::new(super::progress::TermProgress::new(true, false));
    let reports = generate_set(&materials, &GenerateOptions::new(&tb_dir).progress(bar)).map_err(|e| e.to_string())?;
    let kept = reports.iter().filter(|r| r.kept).count();
    let bytes: u64 = reports.iter().map(|r| r.file_bytes).sum();
    println!(
        "   {} tables ({} generated, {} already present and verified), {:.1} MB on disk, {:.1} s",
        reports.len(),
        reports.len() - kept,
        kept,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );

    println!("\n== 4. Probe an endgame: qiku-tb probe \"{DEMO_ENDGAME}\" -d {}", tb_dir.display());
    let pos = Position::from_fen(DEMO_ENDGAME).map_err(|e| e.to_string())?;
    print!("{}", pos.diagram().color(super::use_color()));
    let tbs = Tablebases::open(&tb_dir).map_err(|e| e.to_string())?;
    match tbs.verdict(&pos, qiku::Rules::default()).map_err(|e| e.to_string())? {
        Some(v) => println!("   {v}"),
        None => {
            println!(
                "   no table covers this position ({} pieces; tables of up to {max_pieces} were generated)",
                pos.occupied().count()
            );
            return Ok(());
        }
    }
    let best = tbs.best_moves(&pos).map_err(|e| e.to_string())?.unwrap_or_default();
    let best: Vec<String> = best.iter().map(|&m| format!("{m} ({})", chinese(&pos, m))).collect();
    println!("   best moves: {}", best.join(", "));
    Ok(())
}
