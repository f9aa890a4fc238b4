//! [`TbError`]: everything that can go wrong with tablebases. Kept apart from the module root so
//! that the format, generator and reader depend on it without depending on each other.

use super::material::{self, Material};
use std::fmt;
use std::path::PathBuf;

/// The part of a table file that is wrong (a kind, never a free-form string).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TbField {
    /// The file length.
    Length,
    /// The magic bytes.
    Magic,
    /// The format version.
    Version,
    /// The header length field.
    HeaderLength,
    /// The Zobrist key-set fingerprint.
    Fingerprint,
    /// The material name, counts or key.
    Material,
    /// The index scheme.
    IndexScheme,
    /// The metric.
    Metric,
    /// The value width.
    ValueWidth,
    /// The compression field.
    Compression,
    /// The entry count.
    Entries,
    /// The block count.
    BlockCount,
    /// The block index.
    BlockIndex,
    /// The header checksum.
    HeaderChecksum,
    /// The payload checksum.
    PayloadChecksum,
    /// The file name (not a table name).
    FileName,
    /// One entry, found when probing.
    Entry,
    /// The counts in the header: the values do not give them (found wherever a table is read
    /// whole: `verify`, the generator's inputs and kept tables, `qiku-tb stats`).
    Counts,
    /// A reserved byte (of the header, a block index record or a band record) that is not 0.
    Reserved,
    /// Value block `n`.
    Block(usize),
}

impl fmt::Display for TbField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            TbField::Length => "length",
            TbField::Magic => "magic",
            TbField::Version => "version",
            TbField::HeaderLength => "header length",
            TbField::Fingerprint => "fingerprint",
            TbField::Material => "material",
            TbField::IndexScheme => "index scheme",
            TbField::Metric => "metric",
            TbField::ValueWidth => "value width",
            TbField::Compression => "compression",
            TbField::Entries => "entries",
            TbField::BlockCount => "block count",
            TbField::BlockIndex => "block index",
            TbField::HeaderChecksum => "header checksum",
            TbField::PayloadChecksum => "payload checksum",
            TbField::FileName => "file name",
            TbField::Entry => "entry",
            TbField::Counts => "counts",
            TbField::Reserved => "reserved bytes",
            TbField::Block(n) => return write!(f, "block {n}"),
        };
        f.write_str(name)
    }
}

/// Everything that can go wrong with tablebases. Errors about a file name it.
#[derive(Debug)]
pub enum TbError {
    /// An operating-system error on a file or directory (including "not a regular file").
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file that is not a valid table: the field that failed and why.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The header field or part of the file that is wrong.
        field: TbField,
        /// What is wrong with it.
        detail: String,
    },
    /// A valid table opened under another material's name (`cp KNvK.qtb KRvK.qtb`).
    WrongMaterial {
        /// The file.
        path: PathBuf,
        /// The material its name says.
        named: Material,
        /// The material its header says.
        found: Material,
    },
    /// A bad material name.
    Material(material::MaterialError),
    /// Generation needs a smaller table that is not available.
    MissingDependency {
        /// The table being generated.
        material: String,
        /// The table it needs.
        needs: String,
    },
    /// Generation of `material` alone found a table it captures into damaged.
    BadInput {
        /// The table being generated.
        material: String,
        /// What is wrong with the input (naming its file).
        source: Box<TbError>,
    },
    /// A table too large for the format.
    TooLarge {
        /// The material.
        material: String,
        /// The quantity that is too large.
        entries: u64,
    },
    /// `verify` found a value that does not follow from its successors.
    Mismatch {
        /// The table.
        material: String,
        /// The position.
        fen: String,
        /// The stored value.
        stored: String,
        /// The value its moves give.
        derived: String,
    },
    /// A table's files disagree on a position (their checksums cannot see it): the damaged file
    /// when the position's moves tell which, both otherwise.
    Disagree {
        /// The damaged file, or the files that disagree.
        files: Vec<PathBuf>,
        /// Whether the position's moves told which file is damaged (`files` is that one).
        certain: bool,
        /// What each says of which position.
        detail: String,
    },
    /// A probe under the Asian rules found the table but not its `.qtr` companion.
    NoRules {
        /// The companion file that is missing.
        path: PathBuf,
    },
    /// A table of more pieces than supported was requested.
    TooManyPieces {
        /// The material.
        material: String,
        /// The most pieces supported.
        max: usize,
    },
    /// A table with more entries than the generator can number was requested.
    TooManyEntries {
        /// The material.
        material: String,
        /// Its entries (both sides to move).
        entries: u64,
        /// The most entries the generator supports.
        max: u64,
    },
    /// A table cannot be generated within the memory budget even with its working arrays paged:
    /// what must stay in memory (the solver's bookkeeping, the perpetual-check graph) is larger.
    /// The message gives both to a tenth of their unit, the need rounded up (a budget of the
    /// figure it says is enough):
    ///
    /// ```
    /// use qiku::tablebase::TbError;
    ///
    /// let e = TbError::OverBudget { material: "KRvKN".into(), budget: 9 << 20, needs: 9_800_000 };
    /// assert!(e.to_string().starts_with("KRvKN: cannot be generated within --memory 9 MiB: it needs about 9.4 MiB"));
    /// let e = TbError::OverBudget { material: "KRvKN".into(), budget: 1024, needs: 9_800_000 };
    /// assert!(e.to_string().contains("within --memory 1 KiB: it needs"), "{e}");
    /// ```
    OverBudget {
        /// The material.
        material: String,
        /// The budget in bytes.
        budget: u64,
        /// The smallest budget estimated to work: the table in memory, or paged (what must stay
        /// in memory and a working set), whichever is less.
        needs: u64,
    },
    /// Without a memory budget, a table whose estimated peak in memory is more than this process
    /// can have now (Linux: the memory available, or what its control group has left below its
    /// limit): refused before any work, since the system would stop the process part way.
    MoreThanAvailable {
        /// The material.
        material: String,
        /// Its estimated peak in memory, in bytes.
        needs: u64,
        /// The memory available when it was asked for, in bytes.
        available: u64,
    },
    /// Generation was stopped at the caller's request ([`crate::Progress::stop_requested`])
    /// while `material` was being solved: its files were not written (the tables finished
    /// before it were).
    Stopped {
        /// The table being solved.
        material: String,
    },
    /// The solve of `material` went past the longest distance a table stores (65,517 plies),
    /// which no real table comes near: the checkpoint it resumed from said more than the solver
    /// ever saves.
    TooDeep {
        /// The table being solved.
        material: String,
    },
    /// Where generation would write table files there is something else, which it does not
    /// remove (only a damaged table file is replaced): a directory, a FIFO, a device, a socket, or
    /// a file that is not a table file (a text file, a book). Found before any work, every such
    /// path at once.
    NotFiles {
        /// Each such path with what is there (`a directory`, `not a regular file (...)`).
        paths: Vec<(PathBuf, String)>,
    },
}

impl TbError {
    /// An I/O error on `path`.
    ///
    /// ```
    /// use qiku::tablebase::TbError;
    /// use std::path::Path;
    ///
    /// let err = TbError::io("tables/KRvK.qtb", std::io::Error::from(std::io::ErrorKind::NotFound));
    /// assert_eq!(err.path(), Some(Path::new("tables/KRvK.qtb")));
    /// assert!(err.to_string().contains("tables/KRvK.qtb"), "{err}");
    /// ```
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TbError {
        TbError::Io { path: path.into(), source }
    }

    /// Whether the path given for a directory of tables is no directory (a file, or a path through
    /// one): the way out is another path, not generating tables there.
    ///
    /// ```
    /// use qiku::tablebase::Tablebases;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let file = dir.path().join("notes.txt");
    /// std::fs::write(&file, "not tables")?;
    /// assert!(Tablebases::open(&file).err().expect("a file").not_a_directory());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn not_a_directory(&self) -> bool {
        matches!(self, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotADirectory)
    }

    /// Whether the path given for a directory of tables does not exist: the way out is another
    /// path, or generating tables there ([`unusable_dir_message`](super::unusable_dir_message)).
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// let Err(e) = qiku::tablebase::Tablebases::open(dir.path().join("missing")) else { panic!("opened") };
    /// assert!(e.no_directory() && !e.not_a_directory());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn no_directory(&self) -> bool {
        matches!(self, TbError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// The file the error is about, if it is about one.
    ///
    /// ```
    /// use qiku::tablebase::format::TableFile;
    /// use std::path::Path;
    ///
    /// let err = TableFile::from_bytes(vec![0; 10], "KRvK.qtb").err().expect("too short");
    /// assert_eq!(err.path(), Some(Path::new("KRvK.qtb")));
    /// ```
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            TbError::Io { path, .. }
            | TbError::Corrupt { path, .. }
            | TbError::WrongMaterial { path, .. }
            | TbError::NoRules { path } => Some(path),
            TbError::Disagree { files, .. } => files.first().map(PathBuf::as_path),
            _ => None,
        }
    }
}

/// Errors are cloned when a table that failed to open is asked for again; an I/O error keeps its
/// kind and message (`std::io::Error` itself cannot be cloned).
impl Clone for TbError {
    fn clone(&self) -> Self {
        match self {
            TbError::Io { path, source } => {
                TbError::Io { path: path.clone(), source: std::io::Error::new(source.kind(), source.to_string()) }
            }
            TbError::Corrupt { path, field, detail } => {
                TbError::Corrupt { path: path.clone(), field: *field, detail: detail.clone() }
            }
            TbError::WrongMaterial { path, named, found } => {
                TbError::WrongMaterial { path: path.clone(), named: *named, found: *found }
            }
            TbError::Material(e) => TbError::Material(e.clone()),
            TbError::MissingDependency { material, needs } => {
                TbError::MissingDependency { material: material.clone(), needs: needs.clone() }
            }
            TbError::BadInput { material, source } => {
                TbError::BadInput { material: material.clone(), source: source.clone() }
            }
            TbError::TooLarge { material, entries } => {
                TbError::TooLarge { material: material.clone(), entries: *entries }
            }
            TbError::Mismatch { material, fen, stored, derived } => TbError::Mismatch {
                material: material.clone(),
                fen: fen.clone(),
                stored: stored.clone(),
                derived: derived.clone(),
            },
            TbError::TooManyPieces { material, max } => {
                TbError::TooManyPieces { material: material.clone(), max: *max }
            }
            TbError::NoRules { path } => TbError::NoRules { path: path.clone() },
            TbError::Disagree { files, certain, detail } => {
                TbError::Disagree { files: files.clone(), certain: *certain, detail: detail.clone() }
            }
            TbError::TooManyEntries { material, entries, max } => {
                TbError::TooManyEntries { material: material.clone(), entries: *entries, max: *max }
            }
            TbError::OverBudget { material, budget, needs } => {
                TbError::OverBudget { material: material.clone(), budget: *budget, needs: *needs }
            }
            TbError::MoreThanAvailable { material, needs, available } => {
                TbError::MoreThanAvailable { material: material.clone(), needs: *needs, available: *available }
            }
            TbError::Stopped { material } => TbError::Stopped { material: material.clone() },
            TbError::TooDeep { material } => TbError::TooDeep { material: material.clone() },
            TbError::NotFiles { paths } => TbError::NotFiles { paths: paths.clone() },
        }
    }
}

/// `bytes` for messages, to a tenth of its unit (`9.4 MiB`, `64 MiB`, `1 KiB`, `2.3 GiB`),
/// rounded up when `up` (what a table needs: a budget of the figure said is enough).
fn size(bytes: u64, up: bool) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let (mut v, mut u) = (bytes as f64, 0);
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    let tenths = if up { (v * 10.0).ceil() } else { (v * 10.0).round() };
    match tenths % 10.0 == 0.0 {
        true => format!("{} {}", tenths / 10.0, units[u]),
        false => format!("{:.1} {}", tenths / 10.0, units[u]),
    }
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TbError::WrongMaterial { path, named, found } => write!(
                f,
                "{}: the file holds the table {found}, not {named} as its name says (renamed or copied?)",
                path.display()
            ),
            TbError::Corrupt { path, field, detail } => {
                write!(f, "{}: invalid tablebase file ({field}: {detail})", path.display())
            }
            TbError::Material(e) => e.fmt(f),
            TbError::MissingDependency { material, needs } => {
                write!(f, "{material} needs the table {needs}, which is missing")
            }
            TbError::BadInput { material, source } => {
                write!(f, "{material} needs a table that cannot be used: {source}; generate that table again first")
            }
            TbError::TooLarge { material, entries } => write!(f, "{material}: too large ({entries})"),
            TbError::Mismatch { material, fen, stored, derived } => {
                write!(f, "{material}: {fen}: stored {stored}, but its moves give {derived}")
            }
            TbError::TooManyPieces { material, max } => {
                write!(f, "{material}: more than {max} pieces are not supported")
            }
            TbError::Disagree { files, certain, detail } => {
                let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
                match certain {
                    true => write!(f, "{}: damaged behind valid checksums: {detail}", names.join(" and ")),
                    false => write!(f, "{} disagree, so one of them is damaged: {detail}", names.join(" and ")),
                }
            }
            TbError::NoRules { path } => write!(
                f,
                "{}: missing, so the Asian rules' values are unknown (`qiku-tb generate` writes it beside its table)",
                path.display()
            ),
            TbError::TooManyEntries { material, entries, max } => {
                write!(f, "{material}: {entries} entries, more than the {max} the generator supports")
            }
            TbError::OverBudget { material, budget, needs } => write!(
                f,
                "{material}: cannot be generated within --memory {}: it needs about {} (in memory, or with \
                 its working arrays paged to scratch files, whichever needs less: paging keeps the solver's \
                 bookkeeping, the perpetual-check graph and a working set in memory); give a budget of at least \
                 that (`qiku-tb plan {material} --memory SIZE` shows the estimate)",
                size(*budget, false),
                size(*needs, true)
            ),
            TbError::MoreThanAvailable { material, needs, available } => write!(
                f,
                "{material}: needs about {} of memory to be generated in memory, and only {} is available here \
                 (free memory, or what this process's control group has left below its limit); give --memory \
                 SIZE of at most that to page its working arrays to scratch files (slower, the same files; \
                 `qiku-tb plan {material} --memory SIZE` shows the estimate), or generate it where more memory is free",
                size(*needs, true),
                size(*available, false)
            ),
            TbError::Stopped { material } => {
                write!(f, "{material}: generation stopped before the table was finished")
            }
            TbError::TooDeep { material } => write!(
                f,
                "{material}: the solve went past the longest distance a table stores ({} plies), which no \
                 real table comes near: the checkpoint it resumed from is damaged; remove this table's files \
                 from the scratch directory and generate it again",
                super::value::MAX_DTM_U16
            ),
            TbError::NotFiles { paths } => {
                let each: Vec<String> = paths.iter().map(|(p, what)| format!("{} is {what}", p.display())).collect();
                let (goes, it) =
                    if paths.len() == 1 { ("a table file goes", "it") } else { ("table files go", "each") };
                write!(
                    f,
                    "{}, where {goes}; generation replaces a damaged table file but does not remove what else is in the \
                     way: remove or rename {it}",
                    each.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Io { source, .. } => Some(source),
            TbError::Material(e) => Some(e),
            TbError::BadInput { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl From<material::MaterialError> for TbError {
    fn from(e: material::MaterialError) -> Self {
        TbError::Material(e)
    }
}
