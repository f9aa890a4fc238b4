//! What to tell a user who gave something else where a book belongs: a file of games, a GUI's
//! `.obk`, a missing file. The advice names the command to run and an output path for it that is
//! never the file given, so that following it cannot destroy the user's games or GUI book.

use crate::util::kind::{file_kind, FileKind};
use std::path::{Path, PathBuf};

/// Whether `path`'s name ends in `.ext` (any case).
fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A `.qbk` path for a book made from the file at `path` (games, or an `.obk` to import): beside
/// it, with its extension (and a `.zst` after it) replaced by `.qbk`. Never `path` itself: for a
/// name that already ends in `.qbk`, `-book` goes before the extension.
///
/// ```
/// use qiku::book::book_path_for;
/// use std::path::Path;
///
/// assert_eq!(book_path_for(Path::new("games/three.pgn")), Path::new("games/three.qbk"));
/// assert_eq!(book_path_for(Path::new("all.pgn.zst")), Path::new("all.qbk"));
/// assert_eq!(book_path_for(Path::new("gui.obk")), Path::new("gui.qbk"));
/// assert_eq!(book_path_for(Path::new("odd.qbk")), Path::new("odd-book.qbk"));
/// assert_eq!(book_path_for(Path::new("notes")), Path::new("notes.qbk"));
/// ```
pub fn book_path_for(path: &Path) -> PathBuf {
    let unpacked = if has_extension(path, "zst") { path.with_extension("") } else { path.to_path_buf() };
    let stem = unpacked.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "book".into());
    let name = if has_extension(&unpacked, "qbk") { format!("{stem}-book.qbk") } else { format!("{stem}.qbk") };
    path.with_file_name(name)
}

/// The advice for a user who gave `path` where a `.qbk` book belongs and it could not be opened
/// as one, judged by what the file is ([`file_kind`]): `None` when there is none to give (the file
/// is a `.qbk`, damaged or of another version, whose error says enough; or it cannot be read).
///
/// - missing: how a book is built (`qiku-book build GAMES.pgn -o PATH`, or `-o NAME.qbk` when
///   `path` is not named `.qbk`);
/// - an SQLite database (a GUI's `.obk`): `qiku-book import PATH -o NAME.qbk`;
/// - games (PGN, text, XQF, zstd) or an empty file: `qiku-book build PATH -o NAME.qbk`;
/// - an endgame table: that it is one.
///
/// The output suggested for an existing file is [`book_path_for`], never `path` itself.
///
/// ```
/// use qiku::book::open_hint;
///
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("three.pgn");
/// std::fs::write(&games, "[Event \"club\"]\n\n1. h2e2 h9g7 *\n")?;
/// let hint = open_hint(&games).ok_or("a hint")?;
/// let built = dir.path().join("three.qbk");
/// assert!(hint.contains(&format!("qiku-book build {} -o {}", games.display(), built.display())), "{hint}");
/// // A position given where the book belongs: the book was left out.
/// let hint = open_hint(std::path::Path::new("startpos")).ok_or("a hint")?;
/// assert_eq!(hint, "startpos is a position, not a book: name the book (.qbk) first, then the position");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn open_hint(path: &Path) -> Option<String> {
    let shown = path.display();
    match file_kind(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A position where the book belongs: the book was left out.
            let text = path.to_string_lossy();
            if crate::notation::spec::parse_position_spec(&text).is_ok() {
                return Some(format!(
                    "{} is a position, not a book: name the book (.qbk) first, then the position",
                    crate::util::text::excerpt(&text)
                ));
            }
            let out = if has_extension(path, "qbk") { path.to_path_buf() } else { book_path_for(path) };
            Some(format!("a book is built from games with `qiku-book build GAMES.pgn -o {}`", out.display()))
        }
        Err(_) => None,
        Ok(FileKind::Sqlite) => Some(format!(
            "{shown} looks like an .obk (SQLite) book, not a .qbk: convert it first with \
             `qiku-book import {shown} -o {}`",
            book_path_for(path).display()
        )),
        Ok(kind @ (FileKind::Pgn | FileKind::Text | FileKind::Xqf | FileKind::Zstd)) => Some(format!(
            "{shown} looks like {kind}, not a book: build a book from it with `qiku-book build {shown} -o {}`",
            book_path_for(path).display()
        )),
        Ok(FileKind::Empty) => Some(format!(
            "{shown} is empty: a book is built from games with `qiku-book build GAMES.pgn -o {}`",
            book_path_for(path).display()
        )),
        Ok(FileKind::QikuTable) => {
            Some(format!("{shown} is a qiku endgame table (.qtb), not an opening book: give a .qbk book"))
        }
        Ok(_) => None,
    }
}
