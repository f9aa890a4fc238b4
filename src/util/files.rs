//! Opening and writing files safely.
//!
//! - [`open_regular`]: every reader opens its input through this. A FIFO, a device or a
//!   directory under a file name would otherwise hang a reader forever (a FIFO blocks `open`
//!   until a writer appears) or give confusing errors; here it is refused with a clear message,
//!   and on unix the open itself cannot block (`O_NONBLOCK`, then `fstat` of the opened handle,
//!   so a file swapped between the check and the open is caught too).
//! - [`AtomicFile`]: every output file (books, tables, spill runs) is written through this: a
//!   temporary file with an unpredictable name created exclusively (never following a planted
//!   symlink) in the target's directory, synced, then renamed over the target. A reader never
//!   sees a half-written file and an interrupted write leaves at most a temporary file, which
//!   [`remove_stale_temp_files`] cleans up on the next run.
//! - [`same_file`]: whether two paths are the same file (device and inode), to refuse writing an
//!   output over one of the inputs.

use std::fs::{File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// What a non-regular file is, for error messages.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    if t.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    "not a regular file"
}

fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("not a regular file ({})", kind_of(meta)))
}

/// Opens `path` for reading only if it is a regular file (symlinks to one are fine). Anything
/// else (FIFO, socket, device, directory) is refused with an [`io::ErrorKind::InvalidInput`]
/// error saying what it is; the open never blocks.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let err = qiku::fs::open_regular(dir.path()).unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput); // a directory, refused at once
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The file may have been replaced by a FIFO since the check: O_NONBLOCK makes opening a
        // FIFO return at once, and the fstat below refuses it. Regular files ignore the flag.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok(file)
}

/// Why [`read_capped`] kept nothing.
#[derive(Debug)]
pub enum CappedRead {
    /// The reader's error.
    Io(io::Error),
    /// More bytes than the limit: `Some(len)` when the known length said so and nothing was
    /// read, `None` when more than the limit came (a file that grew, or one of no known length).
    TooLarge(Option<u64>),
}

/// All the bytes of `reader`, whose length is `len` when known, if they are at most `limit`:
/// refused unread when `len` is above it, and never more than `limit + 1` bytes read (a file
/// that grows while it is read, or has no length, such as a pipe).
///
/// ```
/// use qiku::fs::{read_capped, CappedRead};
///
/// assert_eq!(read_capped(&b"h2e2"[..], Some(4), 4).unwrap(), b"h2e2");
/// assert!(matches!(read_capped(&b"h2e2"[..], Some(4), 3), Err(CappedRead::TooLarge(Some(4)))));
/// assert!(matches!(read_capped(&b"h2e2"[..], None, 3), Err(CappedRead::TooLarge(None))));
/// ```
pub fn read_capped(reader: impl Read, len: Option<u64>, limit: u64) -> Result<Vec<u8>, CappedRead> {
    if let Some(len) = len.filter(|&len| len > limit) {
        return Err(CappedRead::TooLarge(Some(len)));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len.unwrap_or(0).min(limit)).unwrap_or(0));
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(CappedRead::Io)?;
    if bytes.len() as u64 > limit {
        return Err(CappedRead::TooLarge(None));
    }
    Ok(bytes)
}

/// Creates `path` for writing, or empties the regular file there, only if nothing else is there:
/// anything that is not a regular file (a FIFO, socket, device, directory, or a symbolic link,
/// which would be written through) is refused with an [`io::ErrorKind::InvalidInput`] error
/// saying what it is, and the open never blocks (opening a FIFO for writing would wait for a
/// reader forever). For files written in place rather than through [`AtomicFile`], such as a
/// solve's checkpoint arrays (the generator's, so only with its feature).
#[cfg(feature = "generate")]
pub(crate) fn create_regular(path: &Path) -> io::Result<File> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => return Err(not_regular(&meta)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Something put there since the check: a FIFO opens at once (or fails) instead of
        // blocking, a link is not followed, and the fstat below refuses what is not a file.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    Ok(file)
}

/// Fills `buf` from byte `off` of `file` with positioned reads (`pread` on unix: no shared
/// file position, so many threads can read one handle at once). A file shorter than
/// `off + buf.len()` gives [`io::ErrorKind::UnexpectedEof`].
pub fn read_exact_at(file: &File, buf: &mut [u8], off: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, off)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let n = std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], off + done as u64)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
        Ok(())
    }
}

/// Whether `a` and `b` name the same existing file (same device and inode on unix, same
/// canonical path elsewhere). `false` if either does not exist.
///
/// ```
/// use qiku::fs::same_file;
///
/// let dir = tempfile::tempdir()?;
/// let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
/// std::fs::write(&a, "1. h2e2")?;
/// std::fs::write(&b, "1. h2e2")?;
/// assert!(same_file(&a, &dir.path().join(".").join("a.pgn")));
/// assert!(!same_file(&a, &b)); // the same content in another file
/// assert!(!same_file(&a, &dir.path().join("missing.pgn")));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// The first of `inputs` that is the same file as `output` (through any symlink or hard link,
/// or spelled differently), if any. Callers refuse the job before reading anything.
pub fn output_among_inputs<'a>(output: &Path, inputs: &'a [PathBuf]) -> Option<&'a Path> {
    inputs.iter().map(PathBuf::as_path).find(|i| same_file(output, i))
}

/// The directory a file is in (`.` for a bare name).
///
/// ```
/// use qiku::fs::parent_dir;
/// use std::path::Path;
///
/// assert_eq!(parent_dir(Path::new("books/my.qbk")), Path::new("books"));
/// assert_eq!(parent_dir(Path::new("my.qbk")), Path::new("."));
/// ```
pub fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The file an atomic write of `target` replaces: `target` itself, or through a symbolic link
/// the file it points to (so the link stays a link and its file gets the new content). Refused
/// when that is not a regular file: a directory, a device such as `/dev/null` or `/dev/stdout`,
/// a FIFO or a socket would be replaced by a plain file, not written to.
fn write_target(target: &Path) -> io::Result<PathBuf> {
    match std::fs::metadata(target) {
        Ok(meta) if meta.is_file() => {
            if std::fs::symlink_metadata(target)?.file_type().is_symlink() {
                std::fs::canonicalize(target)
            } else {
                Ok(target.to_path_buf())
            }
        }
        Ok(meta) if meta.is_dir() => {
            Err(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory; give the name of a file in it"))
        }
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file (a device, FIFO or socket): qiku writes whole files and replaces them \
             when complete, so give the name of an ordinary file",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Not there yet; a dangling link is followed to where the file will be made.
            let mut path = target.to_path_buf();
            for _ in 0..40 {
                match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_symlink() => {
                        let to = std::fs::read_link(&path)?;
                        path = if to.is_absolute() { to } else { parent_dir(&path).join(to) };
                    }
                    _ => return Ok(path),
                }
            }
            Err(io::Error::new(io::ErrorKind::InvalidInput, "too many levels of symbolic links"))
        }
        Err(e) => Err(e),
    }
}

/// Whether a file can be written at `output`: not when it names a directory (an existing one, or
/// any path ending in `/`) or something else that is not a regular file (a device, a FIFO; a
/// link is followed), nor when the directory it would go in does not exist or cannot be written
/// in (an unnamed temporary file is made there and dropped: the permissions of a read-only
/// directory or file system are seen). Programs check this before any long work, so that a job
/// does not end by failing to write what it computed. The error says what to do and names the
/// directory; callers put the output's name in front.
///
/// ```
/// use qiku::fs::check_output_place;
///
/// let dir = tempfile::tempdir()?;
/// assert!(check_output_place(&dir.path().join("games.qbk")).is_ok());
/// let e = check_output_place(dir.path()).unwrap_err();
/// assert!(e.to_string().contains("is a directory"));
/// let e = check_output_place(&dir.path().join("no/games.qbk")).unwrap_err();
/// assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
/// // A name ending in a slash is a directory's, whether or not there is one.
/// let e = check_output_place(&dir.path().join("new-books/")).unwrap_err();
/// assert!(e.to_string().contains("give the name of a file"), "{e}");
/// // A device is written to, not replaced: refused.
/// # #[cfg(unix)]
/// assert!(check_output_place(std::path::Path::new("/dev/null")).is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn check_output_place(output: &Path) -> io::Result<()> {
    let target = output_place(output)?;
    let dir = parent_dir(&target);
    match tempfile::tempfile_in(dir) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem) => {
            Err(io::Error::new(
                e.kind(),
                format!(
                    "cannot write in the directory {} ({e}); choose an output in a directory you can write to",
                    dir.display()
                ),
            ))
        }
        // Anything else (a full disk, say) is for the write itself to tell.
        Err(_) => Ok(()),
    }
}

/// The file a write of `output` makes or replaces ([`write_target`]), once its directory is
/// known to exist: what [`check_output_place`] checks and [`AtomicFile::create`] writes.
fn output_place(output: &Path) -> io::Result<PathBuf> {
    let target = write_target(output)?;
    if names_a_directory(output) {
        // `new/` is a directory's name even when there is none (an existing one was refused
        // above): written, the file would be `new` in `.`, or the rename would fail once the
        // work is done.
        let dir = output.to_string_lossy();
        let dir = dir.trim_end_matches(['/', std::path::MAIN_SEPARATOR]);
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "it ends with a slash, so it names a directory, and there is none: give the name of a file (to \
                 write into a new directory, create {dir} first and give a file name in it)"
            ),
        ));
    }
    let dir = parent_dir(&target);
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the directory {} does not exist; create it first or choose another output", dir.display()),
        ));
    }
    Ok(target)
}

/// Whether `path` can only name a directory: it ends with a path separator (`new/`), or with
/// `/.` or `/..`.
fn names_a_directory(path: &Path) -> bool {
    let text = path.as_os_str().to_string_lossy();
    let sep = |c: char| c == '/' || c == std::path::MAIN_SEPARATOR;
    let last = text.rsplit(sep).next().unwrap_or_default();
    text.ends_with(sep) || (text.contains(sep) && matches!(last, "." | ".."))
}

/// The prefix of temporary files for `target` made by this process: `.NAME.PID@HOST.` (the
/// random part and `.tmp` follow). The owner lets [`remove_stale_temp_files`] tell a crashed
/// run's leftovers from a running one's files, and leave alone those of other machines sharing
/// the directory, whose processes cannot be seen from here.
fn temp_prefix(target: &Path) -> String {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "qiku".into());
    format!(".{name}.{}.", owner())
}

/// This process as temporary names record it: `PID@HOST`, or `PID` when the machine's name
/// cannot be read.
fn owner() -> String {
    match host() {
        "" => std::process::id().to_string(),
        host => format!("{}@{host}", std::process::id()),
    }
}

/// This machine's name as temporary names carry it: letters, digits and `-` only (a dot would
/// split the name's fields), at most 63 characters; empty when it cannot be read.
fn host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .or_else(|| std::env::var("COMPUTERNAME").ok())
            .unwrap_or_default();
        sanitize_host(name.trim())
    })
}

/// `name` with every character but ASCII letters, digits and `-` replaced by `-`, cut to 63.
fn sanitize_host(name: &str) -> String {
    name.chars().take(63).map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect()
}

/// Whether the process a temporary name records as `owner` (`PID@HOST`, or `PID` as names made
/// before the machine's name was recorded) is gone for sure: its machine is this one and its
/// PID no longer runs. `false` for another machine's process (it cannot be seen from here) and
/// for an owner that cannot be read.
fn owner_gone(owner: &str) -> bool {
    let (pid, host) = split_owner(owner);
    let Ok(pid) = pid.parse::<u32>() else { return false };
    host.is_none_or(|h| h == self::host()) && !process_alive(pid)
}

/// An owner `PID@HOST` as its PID and machine (`None`: a name made before the machine was
/// recorded, `PID` alone).
fn split_owner(owner: &str) -> (&str, Option<&str>) {
    match owner.split_once('@') {
        Some((pid, host)) => (pid, Some(host)),
        None => (owner, None),
    }
}

/// A file being written; it replaces its target only on [`AtomicFile::commit`]. Dropped
/// without commit, it is removed.
///
/// ```
/// use qiku::fs::AtomicFile;
/// use std::io::Write;
///
/// let dir = tempfile::tempdir()?;
/// let target = dir.path().join("out.txt");
/// std::fs::write(&target, "old")?;
/// let mut file = AtomicFile::create(&target)?;
/// file.file().write_all(b"new")?;
/// assert_eq!(std::fs::read_to_string(&target)?, "old"); // untouched until the commit
/// let temp = file.temp_path().to_path_buf();
/// file.commit()?;
/// assert_eq!(std::fs::read_to_string(&target)?, "new");
/// assert!(!temp.exists());
///
/// // Dropped without a commit: the target keeps its content and no temporary file remains.
/// let mut abandoned = AtomicFile::create(&target)?;
/// abandoned.file().write_all(b"half")?;
/// drop(abandoned);
/// assert_eq!(std::fs::read_to_string(&target)?, "new");
/// assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    /// A new, empty temporary file in `target`'s directory. Leftovers of earlier writers of the
    /// same target that were killed before finishing (their process no longer runs) are removed
    /// first, so that temporary files never accumulate.
    ///
    /// (example at [`AtomicFile`])
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        AtomicFile::create_at(&output_place(target)?)
    }

    /// [`AtomicFile::create`], except that a symbolic link at `target` is replaced by the file
    /// on [`AtomicFile::commit`] (the link's own directory gets the file) rather than followed:
    /// the file the link points to is left as it is. For files that belong in the directory
    /// named, such as the tables `qiku-tb generate -d DIR` makes.
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use qiku::fs::AtomicFile;
    /// use std::io::Write;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("elsewhere.txt"), "kept")?;
    /// let link = dir.path().join("out.txt");
    /// std::os::unix::fs::symlink("elsewhere.txt", &link)?;
    /// let mut file = AtomicFile::create_replacing_link(&link)?;
    /// file.file().write_all(b"new")?;
    /// file.commit()?;
    /// assert!(std::fs::symlink_metadata(&link)?.file_type().is_file());
    /// assert_eq!(std::fs::read_to_string(&link)?, "new");
    /// assert_eq!(std::fs::read_to_string(dir.path().join("elsewhere.txt"))?, "kept");
    /// # }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn create_replacing_link(target: &Path) -> io::Result<AtomicFile> {
        match std::fs::symlink_metadata(target) {
            Ok(meta) if meta.file_type().is_symlink() => AtomicFile::create_at(target),
            _ => AtomicFile::create(target),
        }
    }

    /// A new temporary file that replaces `target` itself (no link followed) on commit.
    fn create_at(target: &Path) -> io::Result<AtomicFile> {
        if let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) {
            // Never complete, so removing them loses nothing; failing to is no reason to fail.
            let _ = remove_stale_temp_files(parent_dir(target), &|n| n == name);
        }
        let prefix = temp_prefix(target);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            // The finished file gets ordinary permissions (0666 less the umask, like
            // `File::create`), not the owner-only mode temporary files are made with: tables
            // and books are shared.
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(parent_dir(target))?;
        Ok(AtomicFile { temp, target: target.to_path_buf() })
    }

    /// The temporary file's path (for error messages).
    ///
    /// (example at [`AtomicFile`])
    pub fn temp_path(&self) -> &Path {
        self.temp.path()
    }

    /// The file being written.
    ///
    /// (example at [`AtomicFile`])
    pub fn file(&mut self) -> &mut File {
        self.temp.as_file_mut()
    }

    /// Syncs the data and renames the file over the target.
    ///
    /// (example at [`AtomicFile`])
    pub fn commit(self) -> io::Result<()> {
        self.temp.as_file().sync_all()?;
        self.temp.persist(&self.target).map_err(|e| e.error)?;
        Ok(())
    }

    /// Writes `bytes` to `target` atomically.
    ///
    /// ```
    /// use qiku::fs::AtomicFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let target = dir.path().join("notes.txt");
    /// AtomicFile::write(&target, b"h2e2")?;
    /// AtomicFile::write(&target, b"h2e2 h9g7")?; // replaced whole
    /// assert_eq!(std::fs::read_to_string(&target)?, "h2e2 h9g7");
    /// assert_eq!(std::fs::read_dir(dir.path())?.count(), 1); // no temporary file left
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write(target: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = AtomicFile::create(target)?;
        f.file().write_all(bytes)?;
        f.commit()
    }

    /// Writes `bytes` to `target` atomically, replacing a symbolic link there rather than the
    /// file it points to (see [`AtomicFile::create_replacing_link`]).
    ///
    /// ```
    /// # #[cfg(unix)] {
    /// use qiku::fs::AtomicFile;
    ///
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("elsewhere.txt"), "kept")?;
    /// let link = dir.path().join("out.txt");
    /// std::os::unix::fs::symlink("elsewhere.txt", &link)?;
    /// AtomicFile::write_replacing_link(&link, b"new")?;
    /// assert!(std::fs::symlink_metadata(&link)?.file_type().is_file()); // no longer a link
    /// assert_eq!(std::fs::read_to_string(dir.path().join("elsewhere.txt"))?, "kept");
    /// # }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write_replacing_link(target: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = AtomicFile::create_replacing_link(target)?;
        f.file().write_all(bytes)?;
        f.commit()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.as_file_mut().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.temp.as_file_mut().flush()
    }
}

/// A private directory for temporary files of one job (spilled runs, say) inside `dir`, named
/// `.qiku-LABEL.PID@HOST.RANDOM`, removed with everything in it when dropped.
pub fn job_temp_dir(dir: &Path, label: &str) -> io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix(&format!(".qiku-{label}.{}.", owner())).tempdir_in(dir)
}

/// Whether process `pid` is alive (on Linux, by `/proc`); `true` when it cannot be told, so
/// that nothing of a possibly running process is ever removed.
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if !cfg!(target_os = "linux") {
        return true;
    }
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("status")) {
        Ok(status) => status_is_live_process(&status, pid),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

/// Whether `/proc/PID/status` text describes a live process `pid`. `/proc/PID` also exists
/// when `pid` is a thread of another process (its `Tgid` is that process's), and a zombie
/// (`State: Z`) or dead process writes nothing more; lines that cannot be read count as live.
fn status_is_live_process(status: &str, pid: u32) -> bool {
    let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name)).map(str::trim);
    let thread_of_another = field("Tgid:").and_then(|t| t.parse::<u32>().ok()).is_some_and(|tgid| tgid != pid);
    let gone = field("State:").is_some_and(|s| s.starts_with('Z') || s.starts_with('X'));
    !thread_of_another && !gone
}

/// A temporary name made by this module's writers, read back.
enum Temp<'a> {
    /// `.NAME.OWNER.RANDOM.tmp` of [`AtomicFile`], for the target `NAME`.
    File { owner: &'a str, target: &'a str },
    /// `.qiku-LABEL.OWNER.RANDOM` of [`job_temp_dir`].
    JobDir { owner: &'a str },
}

/// What the file name `name` is among this module's temporary names, if one.
fn parse_temp(name: &str) -> Option<Temp<'_>> {
    let rest = name.strip_prefix('.')?;
    if let Some(job) = rest.strip_prefix("qiku-") {
        // LABEL.OWNER.RANDOM
        let mut parts = job.split('.');
        let (_label, owner, _random) = (parts.next(), parts.next()?, parts.next()?);
        return Some(Temp::JobDir { owner });
    }
    // NAME.OWNER.RANDOM: NAME may itself contain dots, so split from the right.
    let mut parts = rest.strip_suffix(".tmp")?.rsplitn(3, '.');
    let (_random, owner, target) = (parts.next(), parts.next()?, parts.next()?);
    Some(Temp::File { owner, target })
}

/// The leftovers in `dir` whose owner satisfies `owner_matches`: temporary files for a target
/// whose name satisfies `target_name`, and job directories; each with its owner and whether it
/// is a directory.
fn temp_files_in(
    dir: &Path,
    target_name: &dyn Fn(&str) -> bool,
    owner_matches: &dyn Fn(&str) -> bool,
) -> io::Result<Vec<(PathBuf, String, bool)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let (owner, is_dir) = match parse_temp(&name) {
            Some(Temp::JobDir { owner }) => (owner, true),
            Some(Temp::File { owner, target }) if target_name(target) => (owner, false),
            _ => continue,
        };
        let kind = entry.file_type()?;
        if owner_matches(owner) && (if is_dir { kind.is_dir() } else { kind.is_file() }) {
            found.push((entry.path(), owner.to_string(), is_dir));
        }
    }
    Ok(found)
}

/// Removes the leftovers of interrupted runs in `dir`: temporary files `.NAME.PID@HOST.*.tmp`
/// made by [`AtomicFile`] for a target whose name satisfies `target_name`, and job directories
/// `.qiku-LABEL.PID@HOST.*` made by [`job_temp_dir`], whose process `PID` ran on this machine
/// and no longer runs. Those of other machines sharing the directory are left to their
/// machine's runs (whether their process still runs cannot be seen from here;
/// [`other_machines_temp_files`] lists them). Names made before the machine was recorded
/// (`PID` alone) are judged as this machine's. Returns the paths removed.
pub fn remove_stale_temp_files(dir: &Path, target_name: &dyn Fn(&str) -> bool) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for (path, _, is_dir) in temp_files_in(dir, target_name, &owner_gone)? {
        if is_dir {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
        removed.push(path);
    }
    Ok(removed)
}

/// The temporary files in `dir` for targets whose name satisfies `target_name` (and the job
/// directories) that writers on other machines sharing the directory made, each with the name
/// of its machine: the cleanup of every writer leaves them, as whether their process still runs
/// cannot be seen from here. One whose machine no longer runs that job is never complete, and
/// may be deleted by hand.
///
/// ```
/// use qiku::fs::other_machines_temp_files;
///
/// let dir = tempfile::tempdir()?;
/// let theirs = dir.path().join(".KRvK.qtb.4194999@node7.Ab12Cd.tmp");
/// std::fs::write(&theirs, b"partial")?;
/// let found = other_machines_temp_files(dir.path(), &|name| name.ends_with(".qtb"))?;
/// assert_eq!(found, vec![(theirs, "node7".to_string())]);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn other_machines_temp_files(dir: &Path, target_name: &dyn Fn(&str) -> bool) -> io::Result<Vec<(PathBuf, String)>> {
    let elsewhere = |owner: &str| split_owner(owner).1.is_some_and(|h| h != host());
    let mut found: Vec<(PathBuf, String)> = temp_files_in(dir, target_name, &elsewhere)?
        .into_iter()
        .filter_map(|(path, owner, _)| Some((path, split_owner(&owner).1?.to_string())))
        .collect();
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's id has a `/proc` entry too: it is not a process whose files may be kept.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_of_a_live_process_is_not_a_live_process() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            // Safety: gettid takes no argument and cannot fail.
            tx.send(unsafe { libc::syscall(libc::SYS_gettid) } as u32).unwrap();
            done_rx.recv().unwrap();
        });
        let tid = rx.recv().unwrap();
        assert!(Path::new("/proc").join(tid.to_string()).exists());
        assert!(!process_alive(tid), "thread {tid} of this process taken for a process");
        assert!(process_alive(std::process::id()));
        done_tx.send(()).unwrap();
        thread.join().unwrap();
        let status = |tgid: u32, state: &str| format!("Name:\tqiku\nState:\t{state}\nTgid:\t{tgid}\nPid:\t77\n");
        assert!(status_is_live_process(&status(77, "S (sleeping)"), 77));
        assert!(!status_is_live_process(&status(70, "S (sleeping)"), 77));
        assert!(!status_is_live_process(&status(77, "Z (zombie)"), 77));
        assert!(status_is_live_process("garbled", 77));
    }

    #[test]
    fn regular_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, b"x").unwrap();
        assert!(open_regular(&f).is_ok());
        let e = open_regular(dir.path()).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("f.qbk");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // Safety: a valid NUL-terminated path; mkfifo only creates a file.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let e = open_regular(&fifo).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
    }

    /// A link is written through (it stays a link); a device or FIFO is refused, never replaced
    /// by a plain file.
    #[cfg(unix)]
    #[test]
    fn outputs_through_links_and_to_devices() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.tsv");
        std::fs::write(&real, b"old").unwrap();
        let link = dir.path().join("link.tsv");
        std::os::unix::fs::symlink("real.tsv", &link).unwrap();
        AtomicFile::write(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A dangling link: the file is made where it points.
        let dangling = dir.path().join("to-be.tsv");
        std::os::unix::fs::symlink("made.tsv", &dangling).unwrap();
        AtomicFile::write(&dangling, b"made").unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(dir.path().join("made.tsv")).unwrap(), b"made");
        // A FIFO, a device, a link to a device: refused before and at the write, left as they are.
        let fifo = dir.path().join("f.pgn");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // Safety: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let null_link = dir.path().join("null.pgn");
        std::os::unix::fs::symlink("/dev/null", &null_link).unwrap();
        for path in [fifo.as_path(), Path::new("/dev/null"), null_link.as_path()] {
            let e = check_output_place(path).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{}: {e}", path.display());
            assert!(AtomicFile::create(path).is_err(), "{}", path.display());
        }
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo).unwrap().file_type()));
        assert!(std::fs::symlink_metadata(&null_link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 6, "no temporary file is left");
    }

    #[test]
    fn atomic_file_and_stale_cleanup() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.qbk");
        AtomicFile::write(&target, b"one").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"one");
        #[cfg(unix)]
        {
            // Same permissions as a file made by `File::create` (0666 less the umask).
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&target), mode(&plain));
            std::fs::remove_file(&plain).unwrap();
        }
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.file().write_all(b"abandoned").unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "an abandoned write leaves nothing");
        // Leftovers of a dead process (PIDs above the kernel's maximum never run) and of a live one.
        let dead = dir.path().join(".out.qbk.4194999.abc123.tmp");
        let live = dir.path().join(format!(".out.qbk.{}.abc123.tmp", std::process::id()));
        let dead_dir = dir.path().join(".qiku-spill.4194999.xyz");
        std::fs::write(&dead, b"partial").unwrap();
        std::fs::write(&live, b"partial").unwrap();
        std::fs::create_dir(&dead_dir).unwrap();
        std::fs::write(dead_dir.join("run0"), b"r").unwrap();
        let removed = remove_stale_temp_files(dir.path(), &|n| n == "out.qbk").unwrap();
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!dead.exists() && !dead_dir.exists() && live.exists() && target.exists());
    }

    #[test]
    fn only_this_machines_leftovers_are_judged() {
        let dir = tempfile::tempdir().unwrap();
        // A write in progress carries this machine's name.
        let writing = AtomicFile::create(&dir.path().join("out.qbk")).unwrap();
        let name = writing.temp_path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!(".out.qbk.{}.", owner())), "{name}");
        assert!(owner().contains('@'), "this machine's name is readable here: {}", owner());
        let spill = job_temp_dir(dir.path(), "spill").unwrap();
        assert!(spill.path().file_name().unwrap().to_string_lossy().starts_with(&format!(".qiku-spill.{}.", owner())));
        // Dead processes (PIDs above the kernel's maximum never run) of this machine and of another.
        let here = host();
        let ours = dir.path().join(format!(".out.qbk.4194999@{here}.abc123.tmp"));
        let theirs = dir.path().join(".out.qbk.4194999@other-node-7.abc123.tmp");
        let our_dir = dir.path().join(format!(".qiku-spill.4194999@{here}.xyz"));
        let their_dir = dir.path().join(".qiku-spill.4194999@other-node-7.xyz");
        for f in [&ours, &theirs] {
            std::fs::write(f, b"partial").unwrap();
        }
        for d in [&our_dir, &their_dir] {
            std::fs::create_dir(d).unwrap();
        }
        let mut removed = remove_stale_temp_files(dir.path(), &|n| n == "out.qbk").unwrap();
        removed.sort();
        assert_eq!(removed, vec![ours.clone(), our_dir.clone()]);
        assert!(theirs.exists() && their_dir.exists(), "another machine's files are not ours to judge");
        assert!(writing.temp_path().exists() && spill.path().exists(), "a live process's files stay");
    }

    #[test]
    fn host_names_keep_the_fields_apart() {
        assert_eq!(sanitize_host("node7.cluster.example"), "node7-cluster-example");
        assert_eq!(sanitize_host("a b@c_d"), "a-b-c-d");
        assert_eq!(sanitize_host(&"x".repeat(100)).len(), 63);
        assert!(!owner_gone("notapid"));
        assert!(!owner_gone("4194999@elsewhere"));
        assert!(owner_gone("4194999"), "names without a machine are judged as this machine's");
    }

    #[test]
    fn same_file_sees_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.pgn");
        std::fs::write(&a, b"x").unwrap();
        let b = dir.path().join("b.pgn");
        std::fs::write(&b, b"x").unwrap();
        assert!(same_file(&a, &dir.path().join(".").join("a.pgn")));
        assert!(!same_file(&a, &b));
        assert!(!same_file(&a, &dir.path().join("missing")));
        #[cfg(unix)]
        {
            let l = dir.path().join("link.qbk");
            std::os::unix::fs::symlink(&a, &l).unwrap();
            assert!(same_file(&l, &a));
            assert_eq!(output_among_inputs(&l, &[b.clone(), a.clone()]), Some(a.as_path()));
        }
    }
}
