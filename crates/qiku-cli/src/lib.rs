//! The qiku programs' logic: `qiku` ([`qiku_program`]: the engine over UCI/UCCI, probes,
//! analysis, `perft`, `bench`, the match runner, Renju), `qiku-book` ([`book`]) and `qiku-tb`
//! ([`tb`]). The binaries in `src/bin/` only call a `main` here, so that everything they do is
//! library code, tested like the rest. Like the explorer server (`qiku-serve`, which also links
//! clap and serde_json), this crate links clap, indicatif and serde_json so that the `qiku`
//! library does not: the programs' JSON output is written here, never in the library.

/// Like `println!`, but a closed stdout (`qiku show | head -c 10`) is not a panic: output that
/// cannot be written is dropped, and the program goes on to its normal end (which reports an
/// error other than a closed pipe: see [`write_stdout`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::write_stdout("\n")
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// Like `print!`, with [`outln!`]'s handling of a closed stdout.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(&format!($($arg)*))
    };
}

/// Like `eprintln!`, but a closed stderr (`qiku-book build games.pgn -o b.qbk 2>&1 | head -1`)
/// is not a panic: a message that cannot be written is dropped and the work goes on to its end
/// (the book is written, the exit status is the usual one). See [`write_stderr`].
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::write_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}

// Every module of this crate prints through these: they shadow the standard `println!`, `print!`
// and `eprintln!` here (defined before the modules, so in scope in all of them), so that no print
// path of the three programs, present or future, can panic on a closed stdout or stderr or fail
// unreported.
macro_rules! println {
    ($($arg:tt)*) => {
        $crate::outln!($($arg)*)
    };
}
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::out!($($arg)*)
    };
}
macro_rules! eprintln {
    ($($arg:tt)*) => {
        $crate::errln!($($arg)*)
    };
}

pub mod annotate;
pub mod book;
pub mod book_build;
pub mod demo;
pub mod interrupt;
pub mod label;
pub mod matchrunner;
#[cfg(feature = "obk")]
pub mod obk;
pub mod ordered;
pub mod overwrite;
pub mod progress;
pub mod qiku_program;
pub mod renju;
pub mod tb;
pub mod tune;

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use qiku::core::Position;
use qiku::notation::spec::{parse_position_args, parse_position_spec, PositionSpec, SpecError};
use qiku::notation::Notation;

/// Set once standard output has failed (closed, or any other error): later output is dropped.
static STDOUT_STOPPED: AtomicBool = AtomicBool::new(false);

/// The first error writing standard output other than a closed pipe (a full disk), reported
/// when the program ends ([`stdout_failed`]).
static STDOUT_ERROR: OnceLock<String> = OnceLock::new();

/// Writes `text` to stdout and flushes. The one way the programs print. A closed pipe
/// (`qiku bench | head`) is dropped quietly, as there is nobody left to read the output; any
/// other error (a full disk) is kept for [`stdout_failed`] to report. After either, later
/// output is dropped and the program goes on to its normal end.
pub fn write_stdout(text: &str) {
    if STDOUT_STOPPED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        stdout_error(&e);
    }
}

/// Writes `text` to stderr: messages, warnings and progress lines. An error writing them (a
/// closed pipe, as when the messages go to `head`) drops the message: it would have no reader, and
/// the work it reports on must not be lost for it.
pub fn write_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Notes an error writing standard output (see [`write_stdout`]), for writers of their own.
pub fn stdout_error(e: &std::io::Error) {
    STDOUT_STOPPED.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        let _ = STDOUT_ERROR.set(e.to_string());
    }
}

/// Standard output as a [`Write`] for code that takes a writer (`renju play`, the engine's
/// session, whose search thread writes too): its errors are noted as [`write_stdout`]'s are, so
/// that the program's end reports them the same way.
pub struct StdoutWriter(std::io::Stdout);

impl StdoutWriter {
    /// Standard output (each write takes its lock).
    pub fn new() -> StdoutWriter {
        StdoutWriter(std::io::stdout())
    }

    /// Whether an error came from writing standard output (already noted; a closed pipe is quiet)
    /// rather than from elsewhere (reading the input).
    pub fn failed() -> bool {
        STDOUT_STOPPED.load(Ordering::Relaxed)
    }
}

impl Default for StdoutWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl Write for StdoutWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).inspect_err(stdout_error)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().inspect_err(stdout_error)
    }
}

/// At a program's start, after its arguments are read: a `RAYON_NUM_THREADS` out of range (see
/// [`qiku::check_worker_threads_env`]) is said on stderr (`program: the environment variable
/// ...`) and gives the exit status 2 of a bad argument, before any worker thread starts.
pub fn check_thread_env(program: &str) -> Result<(), std::process::ExitCode> {
    qiku::check_worker_threads_env().map_err(|e| {
        eprintln!("{program}: {e}");
        std::process::ExitCode::from(2)
    })
}

/// At a program's end: if writing standard output failed for another reason than a closed pipe,
/// says so on stderr (`program: cannot write to standard output: CAUSE`) and returns `true`,
/// for the program to exit with a failure.
pub fn stdout_failed(program: &str) -> bool {
    match STDOUT_ERROR.get() {
        Some(cause) => {
            eprintln!("{program}: cannot write to standard output: {cause}");
            true
        }
        None => false,
    }
}

/// The most text [`read_text`] takes, from standard input or a file: far more than any game or
/// diagram it reads, and a bound for an input that never ends or a file named by mistake.
pub const TEXT_LIMIT: u64 = 1 << 20;

/// Why a file named on the command line was not read whole ([`read_bounded`]).
#[derive(Debug)]
pub enum BoundedReadError {
    /// It could not be opened or read; a FIFO, device or directory is refused at once
    /// ([`qiku::fs::open_regular`]), as it could block forever or never end.
    Io(std::io::Error),
    /// It holds more bytes than the limit: nothing of it was kept.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
}

impl std::fmt::Display for BoundedReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundedReadError::Io(e) => write!(f, "cannot read: {e}"),
            BoundedReadError::TooLarge { size, limit } => {
                write!(f, "{size} bytes, more than the limit of {limit} bytes ({})", size_words(*limit))
            }
        }
    }
}

impl std::error::Error for BoundedReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BoundedReadError::Io(e) => Some(e),
            BoundedReadError::TooLarge { .. } => None,
        }
    }
}

/// A limit in words: `1 MiB`, `16 MiB`, or bytes when it is no whole number of KiB or MiB.
fn size_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Reads a file named on the command line whole, if it holds at most `limit` bytes: a larger
/// one is refused before anything is read ([`BoundedReadError::TooLarge`], also for a file that
/// grows past the limit while it is read), and so is a FIFO, device or directory (it could block
/// forever or never end).
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    use qiku::fs::CappedRead;
    let file = qiku::fs::open_regular(path).map_err(BoundedReadError::Io)?;
    let size = file.metadata().map_err(BoundedReadError::Io)?.len();
    qiku::fs::read_capped(&file, Some(size), limit).map_err(|e| match e {
        CappedRead::Io(e) => BoundedReadError::Io(e),
        CappedRead::TooLarge(Some(size)) => BoundedReadError::TooLarge { size, limit },
        // It grew while it was read: its size now.
        CappedRead::TooLarge(None) => {
            let read = limit.saturating_add(1);
            BoundedReadError::TooLarge { size: file.metadata().map_or(read, |m| m.len().max(read)), limit }
        }
    })
}

/// Reads a text file named on the command line, or standard input for `-`, of at most a MiB
/// ([`TEXT_LIMIT`]): a larger file is refused, naming its size and the limit; a FIFO, device or
/// directory named as a file is refused at once (it could block forever or never end). The error
/// names the file ([`input_name`]).
pub fn read_text(path: &Path) -> Result<String, String> {
    if path == Path::new("-") {
        let mut text = String::new();
        let read = std::io::stdin().lock().take(TEXT_LIMIT + 1).read_to_string(&mut text);
        read.map_err(|e| format!("standard input: cannot read: {e}"))?;
        if text.len() as u64 > TEXT_LIMIT {
            return Err(format!("standard input: more than {TEXT_LIMIT} bytes, the most this command reads"));
        }
        return Ok(text);
    }
    let bytes = read_bounded(path, TEXT_LIMIT).map_err(|e| format!("{}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{}: cannot read: stream did not contain valid UTF-8", path.display()))
}

/// How errors name an input given on the command line: its path, or "standard input" for `-`.
pub fn input_name(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".into()
    } else {
        path.display().to_string()
    }
}

/// Refuses an output file that is one of the inputs (through any path, link or relative name):
/// writing it would destroy the input. The error names both.
pub fn refuse_output_among_inputs<'a>(output: &Path, inputs: impl IntoIterator<Item = &'a Path>) -> Result<(), String> {
    match inputs.into_iter().find(|input| qiku::fs::same_file(output, input)) {
        Some(input) => Err(format!(
            "{}: the output is the input {} (same file); refusing to overwrite it: choose another output",
            output.display(),
            input.display()
        )),
        None => Ok(()),
    }
}

/// A count with its noun in agreement: `1 position`, `2 positions`, `0 positions`.
pub fn count(n: impl TryInto<u64>, one: &str, many: &str) -> String {
    let n = n.try_into().unwrap_or(u64::MAX);
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Opens the directory of tables given with `--tb`: one that does not exist or holds no table file
/// (a wrong path) is refused with the directory and the command that makes tables there, in the
/// words the engine and the C API use.
pub fn open_tables_dir(dir: &Path) -> Result<qiku::tablebase::Tablebases, String> {
    let opened = qiku::tablebase::Tablebases::open(dir);
    let elsewhere = "or give --tb the directory that holds them";
    if let Some(said) = qiku::tablebase::unusable_dir_message(dir, opened.as_ref(), elsewhere) {
        return Err(format!("--tb {said}"));
    }
    opened.map_err(|e| e.to_string())
}

/// Refuses, before any work, an output path that cannot be written: `-`, a directory, a device or
/// FIFO (a link is followed), or a file in a directory that does not exist.
pub fn refuse_unwritable_output(output: &Path) -> Result<(), String> {
    if output == Path::new("-") {
        // `-` is standard input to the readers; a writer would make a file of that name.
        return Err("-: this output is written as a whole file, not to standard output; give a file name (./- for a \
             file named -)"
            .into());
    }
    qiku::fs::check_output_place(output).map_err(|e| format!("{}: {e}", output.display()))
}

/// A position argument that cannot be read: not `startpos` or a valid FEN, a move that cannot
/// be played, or a FEN split into several arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPosition(pub SpecError);

impl std::fmt::Display for BadPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for BadPosition {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The programs' commands report errors as text on stderr; this lets `?` turn the error into it.
impl From<BadPosition> for String {
    fn from(e: BadPosition) -> String {
        e.to_string()
    }
}

/// A position named on the command line in one argument: `startpos` or a FEN (Pikafish style),
/// optionally followed by `moves` and moves in ICCS, WXF or Chinese notation; the position after
/// the moves.
pub fn parse_position(text: &str) -> Result<Position, BadPosition> {
    parse_position_spec(text).map(|s| s.position()).map_err(BadPosition)
}

/// A position given as the command's positional arguments (see
/// [`qiku::notation::spec::parse_position_args`]); no argument means `startpos`.
pub fn position_args(args: &[String]) -> Result<PositionSpec, BadPosition> {
    if args.is_empty() {
        return parse_position_spec("startpos").map_err(BadPosition);
    }
    parse_position_args(args).map_err(BadPosition)
}

/// The words of [`POSITION_HELP`] and [`REQUIRED_POSITION_HELP`].
macro_rules! position_help {
    () => {
        "Position: startpos or a FEN (Pikafish style; quote it), optionally followed by `moves` and moves in \
         ICCS (h2e2), WXF (C2.5) or Chinese (炮二平五) notation"
    };
}

/// Help text of the position arguments that may be left out (the start position), shared by
/// every command that takes one.
pub const POSITION_HELP: &str = concat!(position_help!(), "; the start position when none is given");

/// Help text of a position argument that must be given.
pub const REQUIRED_POSITION_HELP: &str = position_help!();

/// `--notation`: the notation moves are printed in.
pub fn notation_arg(s: &str) -> Result<Notation, String> {
    s.parse::<Notation>().map_err(|e| e.to_string())
}

/// Should output to stdout use ANSI colors? Only on a terminal, and never with `NO_COLOR` set.
pub fn use_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// A value parser for a whole number from `lo` to `hi`, whose error says the range in words
/// ("from 1 to 100"), as the rest of the programs' messages do.
pub fn whole_number<T>(lo: u64, hi: u64) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|v| (lo..=hi).contains(v))
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("{s} is not a whole number from {lo} to {hi}"))
    }
}
