//! What the writers may replace. `qiku-book`'s (`build`, `merge` and `import` write a `.qbk`,
//! `export` an `.obk`), `qiku annotate`'s (annotated games), `qiku tune`'s (`--write-positions`,
//! `--emit`) and `qiku label`'s replace an existing file of the kind they write, as writing it
//! again is normal; any other file at the output path (a user's games, a book, a table, a GUI's
//! book, another program's database) is refused unless `--force` is given, since replacing it
//! would lose it. The kind is told by the file's content ([`qiku::fs::file_kind`]), never by its
//! name.

use qiku::fs::{file_kind, FileKind};
use std::path::{Path, PathBuf};

/// The kind of file a command writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writes {
    /// A qiku `.qbk` book (`build`, `merge`, `import`).
    Qbk,
    /// A BHGUI `.obk` book, an SQLite database (`export`).
    Obk,
    /// Games as PGN text (`qiku annotate`): replaces PGN or other text.
    Pgn,
    /// A position file, text (`qiku tune --write-positions`, `qiku label`): replaces text.
    Positions,
    /// Rust source (`qiku tune --emit`): replaces text.
    RustSource,
}

impl Writes {
    fn name(self) -> &'static str {
        match self {
            Writes::Qbk => "a .qbk book",
            Writes::Obk => "an .obk book",
            Writes::Pgn => "a PGN file of games",
            Writes::Positions => "a text file of positions",
            Writes::RustSource => "a Rust source file",
        }
    }

    /// An output path for this kind beside `output` that is not `output` itself.
    fn other_name(self, output: &Path) -> PathBuf {
        match self {
            Writes::Qbk => qiku::book::book_path_for(output),
            Writes::Obk => beside(output, "obk", "book"),
            Writes::Pgn => beside(output, "pgn", "annotated"),
            Writes::Positions => beside(output, "tsv", "positions"),
            Writes::RustSource => beside(output, "rs", "tuned"),
        }
    }
}

/// `output` with the extension `ext` (`x.qbk` -> `x.obk`), or `x-{suffix}.{ext}` when it already
/// has that extension, so that the name is never `output`'s.
fn beside(output: &Path, ext: &str, suffix: &str) -> PathBuf {
    let stem = output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| suffix.into());
    let same = output.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext));
    output.with_file_name(if same { format!("{stem}-{suffix}.{ext}") } else { format!("{stem}.{ext}") })
}

/// Whether the file at `path` is an `.obk` book (an SQLite database with a `bhobk` table).
fn is_obk(path: &Path) -> bool {
    #[cfg(feature = "obk")]
    {
        qiku::book::obk::is_obk(path)
    }
    #[cfg(not(feature = "obk"))]
    {
        let _ = path;
        false
    }
}

/// What an existing `output` is, when it is not of the kind `writes` and not empty: the words for
/// the error ("a PGN file of games"). `None` when it may be replaced (or is not there, or is no
/// regular file: the output checks say what is wrong with those).
pub fn foreign_kind(output: &Path, writes: Writes) -> Option<String> {
    let kind = file_kind(output).ok()?;
    match (writes, kind) {
        (_, FileKind::Empty) | (Writes::Qbk, FileKind::QikuBook) => None,
        (Writes::Pgn, FileKind::Pgn | FileKind::Text) => None,
        (Writes::Positions | Writes::RustSource, FileKind::Text) => None,
        (Writes::Obk, FileKind::Sqlite) if is_obk(output) => None,
        // The error adds "not an .obk book": this says only what the file is.
        (Writes::Obk, FileKind::Sqlite) => Some("an SQLite database with no bhobk table".into()),
        (Writes::Qbk, FileKind::Sqlite) if is_obk(output) => Some("an .obk (SQLite) opening book".into()),
        (_, kind) => Some(kind.to_string()),
    }
}

/// Refuses, unless `force`, to replace an existing `output` that is not a file of the kind the
/// command `writes` (an empty file may be replaced too: there is nothing in it to lose). The
/// error names the file, what it appears to be, and the ways out: another `-o` (a name is
/// suggested) or `--force`.
pub fn refuse_replacing(output: &Path, writes: Writes, force: bool) -> Result<(), String> {
    refuse_replacing_given(output, writes, force, "-o ")
}

/// [`refuse_replacing`] for an output given otherwise than with `-o`: `given` is what precedes
/// the suggested name in the error (`"--emit "`, or `""` for a positional argument).
pub fn refuse_replacing_given(output: &Path, writes: Writes, force: bool, given: &str) -> Result<(), String> {
    if force {
        return Ok(());
    }
    match foreign_kind(output, writes) {
        None => Ok(()),
        Some(what) => Err(format!(
            "{}: exists and appears to be {what}, not {}; refusing to replace it: choose another output \
             (say {given}{}) or pass --force to replace it",
            output.display(),
            writes.name(),
            writes.other_name(output).display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_books_of_the_kind_written_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let games = dir.path().join("three.pgn");
        std::fs::write(&games, "[Event \"x\"]\n\n1. h2e2 h9g7 *\n").unwrap();
        let e = refuse_replacing(&games, Writes::Qbk, false).unwrap_err();
        assert!(e.contains("three.pgn: exists and appears to be a PGN file of games, not a .qbk book"), "{e}");
        assert!(e.contains(&format!("-o {}", dir.path().join("three.qbk").display())) && e.contains("--force"), "{e}");
        let e = refuse_replacing(&games, Writes::Obk, false).unwrap_err();
        assert!(
            e.contains("not an .obk book") && e.contains(&format!("-o {}", dir.path().join("three.obk").display()))
        );
        assert!(refuse_replacing(&games, Writes::Qbk, true).is_ok());
        // A book of the kind written, an empty file and no file at all may be replaced.
        let book = dir.path().join("b.qbk");
        std::fs::write(&book, b"QIKUBOOK and the rest").unwrap();
        assert!(refuse_replacing(&book, Writes::Qbk, false).is_ok());
        let e = refuse_replacing(&book, Writes::Obk, false).unwrap_err();
        assert!(e.contains("a qiku opening book (.qbk), not an .obk book") && e.contains("b.obk"), "{e}");
        let empty = dir.path().join("e.obk");
        std::fs::write(&empty, b"").unwrap();
        assert!(refuse_replacing(&empty, Writes::Obk, false).is_ok());
        assert!(refuse_replacing(&dir.path().join("new.qbk"), Writes::Qbk, false).is_ok());
        // An SQLite database without a bhobk table is no .obk; the name suggested is never the file's.
        let db = dir.path().join("db.obk");
        std::fs::write(&db, b"SQLite format 3\0 but not a real database").unwrap();
        let e = refuse_replacing(&db, Writes::Obk, false).unwrap_err();
        assert!(
            e.contains("an SQLite database with no bhobk table, not an .obk book") && e.contains("db-book.obk"),
            "{e}"
        );
        assert_eq!(e.matches("not an .obk book").count(), 1, "{e}");
    }

    #[test]
    fn text_writers_replace_text_and_refuse_books() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("b.qbk");
        std::fs::write(&book, b"QIKUBOOK and the rest").unwrap();
        for (writes, other) in [(Writes::Pgn, "b.pgn"), (Writes::Positions, "b.tsv"), (Writes::RustSource, "b.rs")] {
            let e = refuse_replacing(&book, writes, false).unwrap_err();
            assert!(e.contains(&format!("a qiku opening book (.qbk), not {}", writes.name())), "{e}");
            assert!(e.contains(&format!("-o {}", dir.path().join(other).display())) && e.contains("--force"), "{e}");
            assert!(refuse_replacing(&book, writes, true).is_ok());
        }
        let games = dir.path().join("g.pgn");
        std::fs::write(&games, "[Event \"x\"]\n\n1. h2e2 h9g7 *\n").unwrap();
        assert!(refuse_replacing(&games, Writes::Pgn, false).is_ok());
        let e = refuse_replacing(&games, Writes::Positions, false).unwrap_err();
        assert!(e.contains("a PGN file of games, not a text file of positions") && e.contains("g.tsv"), "{e}");
        let text = dir.path().join("t.tsv");
        std::fs::write(&text, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\t1-0\ttrain\n").unwrap();
        let e = refuse_replacing(&text, Writes::Qbk, false).unwrap_err();
        assert!(e.contains("t.qbk"), "{e}");
        for writes in [Writes::Pgn, Writes::Positions, Writes::RustSource] {
            assert!(refuse_replacing(&text, writes, false).is_ok(), "{writes:?}");
        }
    }
}
