//! The inputs of a build: the files named and those found by listing directories, each read
//! once, opened only when a reader thread takes it.
//!
//! A collection may come as thousands of small files (one game per `.pgn` or `.xqf`). Nothing
//! about an input is held but its path and a few numbers until a reader takes it, so the number
//! of open files is the number of reader threads and memory does not grow with the number of
//! files. What must fail before any work is checked up front, cheaply: a file named on the
//! command line that does not exist or is not a regular file (a stat), and whether it is text
//! (its first bytes, by [`crate::pgn::open_reader`]; done in parallel, each file closed at once).
//! A file found by listing a directory is not refused: one that cannot be opened or is not a
//! game file is skipped and reported ([`Opened::Unusable`]), the rest are built.

use super::error::{BookError, BuildError};
use crate::pgn::{self, EncodingChoice, OpenError, OpenErrorKind};
use crate::util::files::open_regular;
use crate::xqf::{BrokenLink, UnlistedDir};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The input name that stands for standard input (`-`, as in most command-line tools): its games
/// are read as a file's are (any encoding, `.zst` or not, told by content), once.
pub const STDIN: &str = "-";

/// An error's message without the file name its reader put in front of it (a report names the
/// file apart).
pub(crate) fn without_path(path: &Path, message: String) -> String {
    match message.strip_prefix(&format!("{}: ", path.display())) {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

/// One file to read.
#[derive(Clone, Debug)]
pub(crate) struct Input {
    /// The file ([`STDIN`] for standard input).
    pub(crate) path: PathBuf,
    /// Found by listing a directory given as an input (not named on the command line): skipped
    /// with a warning when it cannot be used, instead of failing the build.
    pub(crate) listed: bool,
    /// Its size in bytes when it was listed (0 for standard input and files that cannot be
    /// looked at).
    pub(crate) len: u64,
}

/// The inputs once directories are listed and repeats are left out.
pub(crate) struct Inputs {
    /// The files to read, in input order.
    pub(crate) files: Vec<Input>,
    /// Files left out as the same file as an earlier input, each with the earlier one.
    pub(crate) repeated: Vec<(PathBuf, PathBuf)>,
    /// Symbolic links found in a directory whose target does not exist (not in `files`).
    pub(crate) broken_links: Vec<BrokenLink>,
    /// Directories below a directory given that could not be listed.
    pub(crate) unlisted: Vec<UnlistedDir>,
}

/// What identifies a file however it is named: device and inode on unix, the canonical path
/// elsewhere; the path as given when the file cannot be looked at (standard input, a file of a
/// listing that vanished).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Identity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path, meta: &std::fs::Metadata) -> Identity {
    #[cfg(unix)]
    {
        let _ = path;
        use std::os::unix::fs::MetadataExt;
        Identity::Inode(meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Identity::Path(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// Lists the directories among `given`, leaves out repeats and checks what can be checked
/// without reading: every file named (not found by listing) exists and is a regular file, and
/// `output` is none of the inputs. One stat per file; repeats are found in a hash set.
pub(crate) fn prepare(given: &[PathBuf], output: &Path) -> Result<Inputs, BuildError> {
    // Directories stand for the game files in them (XQF collections come as one file per game).
    let expanded = crate::xqf::expand_game_inputs(given).map_err(|(path, source)| BuildError::Io {
        path,
        op: "list the directory",
        source,
    })?;
    if let (true, Some(dir)) = (expanded.files.is_empty(), given.first()) {
        return Err(nothing_found(dir, &expanded.broken_links, &expanded.unlisted));
    }
    // The paths given that are no directory: named, refused when they cannot be read. (A file
    // also reached through a directory is spelled the same only when it is that file.)
    let named: HashSet<&Path> = given.iter().map(PathBuf::as_path).filter(|p| !p.is_dir()).collect();
    let mut files: Vec<Input> = Vec::with_capacity(expanded.files.len());
    let mut first_of: HashMap<Identity, usize> = HashMap::with_capacity(expanded.files.len());
    let mut repeated = Vec::new();
    for path in expanded.files {
        let listed = !named.contains(path.as_path());
        let (id, len) = if path.as_os_str() == STDIN {
            (Identity::Path(path.clone()), 0)
        } else {
            match std::fs::metadata(&path) {
                Ok(meta) if !meta.is_file() && !listed => {
                    // What opening it says (a FIFO, a device, a directory under a file name).
                    let source = open_regular(&path).err().unwrap_or_else(|| std::io::ErrorKind::InvalidInput.into());
                    return Err(BuildError::Io { path, op: "open", source });
                }
                Ok(meta) => (identity(&path, &meta), meta.len()),
                Err(source) if !listed => return Err(BuildError::Io { path, op: "open", source }),
                // Vanished since the listing, say: its reader reports it.
                Err(_) => (Identity::Path(path.clone()), 0),
            }
        };
        match first_of.entry(id) {
            Entry::Occupied(e) => {
                let earlier = files.get(*e.get()).map(|f| f.path.clone()).unwrap_or_default();
                repeated.push((path, earlier));
            }
            Entry::Vacant(e) => {
                e.insert(files.len());
                files.push(Input { path, listed, len });
            }
        }
    }
    if let Ok(meta) = std::fs::metadata(output) {
        if let Some(&i) = first_of.get(&identity(output, &meta)) {
            let input = files.get(i).map(|f| f.path.clone()).unwrap_or_default();
            return Err(BookError::OutputIsInput { output: output.to_path_buf(), input }.into());
        }
    }
    Ok(Inputs { files, repeated, broken_links: expanded.broken_links, unlisted: expanded.unlisted })
}

/// The error for a directory given as the only input in which no game file was found.
fn nothing_found(dir: &Path, broken_links: &[BrokenLink], unlisted: &[UnlistedDir]) -> BuildError {
    let why = if let Some(first) = unlisted.first() {
        let others = match unlisted.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        format!(
            "no game file found in it, and a directory below it cannot be listed ({}: {}{others}): give yourself \
             permission to read it, or give the game files themselves",
            first.path.display(),
            first.cause
        )
    } else if broken_links.is_empty() {
        "no .pgn, .pgn.zst, .txt, .txt.zst or .xqf file in it (or below it)".to_string()
    } else {
        let links: Vec<String> = broken_links.iter().map(|l| l.path.display().to_string()).collect();
        let (what, their) = match links.len() {
            1 => ("file is a symbolic link", "its target"),
            _ => ("files are symbolic links", "their targets"),
        };
        format!(
            "its only game {what} whose target does not exist ({}): restore {their} or give the game files \
             themselves",
            links.join(", ")
        )
    };
    BuildError::Io {
        path: dir.to_path_buf(),
        op: "find game files",
        source: std::io::Error::new(std::io::ErrorKind::NotFound, why),
    }
}

/// Counts bytes read from a file, for the progress bar.
pub(crate) struct Counting<R> {
    pub(crate) inner: R,
    pub(crate) bytes: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An input as a reader thread finds it.
pub(crate) enum Opened {
    /// Ready to read.
    Ready(pgn::Input),
    /// Opened, but not even its first bytes could be decoded (a zstd stream cut short, a file
    /// that is no XQF game): reported with the files read, with the cause.
    Damaged(OpenError),
    /// A file found by listing a directory that cannot be opened or is not a game file: skipped,
    /// with the cause (without the file's name).
    Unusable(String),
    /// A file named on the command line that cannot be opened or is not text (it was when the
    /// build started): the build fails.
    Fatal(BuildError),
}

/// Opens `input` (not standard input) for reading, counting its bytes into `bytes`.
pub(crate) fn open(input: &Input, encoding: EncodingChoice, bytes: &Arc<AtomicU64>) -> Opened {
    let path = &input.path;
    let file = match open_regular(path) {
        Ok(file) => file,
        Err(e) if input.listed => return Opened::Unusable(format!("cannot open: {e}")),
        Err(source) => return Opened::Fatal(BuildError::Io { path: path.clone(), op: "open", source }),
    };
    // An XQF file is read whole: its length lets one too long for an XQF file be refused unread.
    let len = file.metadata().ok().map(|m| m.len());
    let counting = Counting { inner: file, bytes: Arc::clone(bytes) };
    let opened = if crate::xqf::is_xqf_path(path) {
        crate::xqf::open_sized_as_pgn(counting, len, path)
    } else {
        pgn::open_reader(counting, path, encoding)
    };
    match opened {
        Ok(input) => Opened::Ready(input),
        Err(e) if e.kind() == OpenErrorKind::NotText && input.listed => {
            Opened::Unusable(without_path(path, e.to_string()))
        }
        Err(e) if e.kind() == OpenErrorKind::NotText => Opened::Fatal(BuildError::NotText(e)),
        Err(e) => Opened::Damaged(e),
    }
}

/// Refuses a file named on the command line that cannot be opened or is not text, before any
/// game is read: opens it, reads its first bytes and closes it. `Ok` for anything else
/// (standard input, files found by listing, files that open but do not decode: those are
/// reported as they are read).
pub(crate) fn check_named(input: &Input, encoding: EncodingChoice) -> Result<(), BuildError> {
    if input.listed || input.path.as_os_str() == STDIN {
        return Ok(());
    }
    let file =
        open_regular(&input.path).map_err(|source| BuildError::Io { path: input.path.clone(), op: "open", source })?;
    if crate::xqf::is_xqf_path(&input.path) {
        // Any bytes may be an XQF file's: what is wrong with one is told as it is read.
        return Ok(());
    }
    match pgn::open_reader(file, &input.path, encoding) {
        Err(e) if e.kind() == OpenErrorKind::NotText => Err(BuildError::NotText(e)),
        _ => Ok(()),
    }
}
