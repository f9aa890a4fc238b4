//! Progress reporting without a terminal dependency: the library reports through [`Progress`]
//! and the command-line tools draw it (a terminal progress bar, in `cli::progress`). Long operations
//! take `&dyn Progress`; pass [`NoProgress`] to report nothing. The receiver may also ask for a
//! stop ([`Progress::stop_requested`]): the book compiler and the tablebase generator then end
//! early without writing.

/// Receives the progress of a long operation. Implementations must be cheap and thread-safe:
/// `advance` may be called from many worker threads at once.
///
/// ```
/// use qiku::book::build::{build_with_progress, BuildOptions};
/// use qiku::Progress;
/// use std::sync::Mutex;
///
/// /// Records the label of each phase.
/// #[derive(Default)]
/// struct Phases(Mutex<Vec<String>>);
/// impl Progress for Phases {
///     fn start(&self, label: &str, _total: u64) { self.0.lock().unwrap().push(label.to_string()); }
///     fn advance(&self, _n: u64) {}
///     fn finish(&self) {}
/// }
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// let phases = Phases::default();
/// build_with_progress(&[games], &dir.path().join("b.qbk"), &BuildOptions::default(), &phases)?;
/// assert_eq!(*phases.0.lock().unwrap(), ["reading games"]); // a build reports one phase
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Progress: Sync {
    /// A phase named `label` starts, with `total` units of work (0 if unknown).
    fn start(&self, label: &str, total: u64);
    /// `n` more units are done.
    fn advance(&self, n: u64);
    /// Sets the absolute number of units done (for sources that count, like bytes read).
    fn set_position(&self, done: u64) {
        let _ = done;
    }
    /// A short status message beside the bar.
    fn message(&self, text: &str) {
        let _ = text;
    }
    /// A line of text to show without breaking the display (a warning, say).
    fn println(&self, text: &str) {
        let _ = text;
    }
    /// The phase is over.
    fn finish(&self);
    /// Whether the caller wants the operation to stop (a callback failed, the user pressed
    /// Ctrl-C). Operations that can stop ask after their progress reports and then end with an
    /// error, writing nothing; by default nobody asks.
    fn stop_requested(&self) -> bool {
        false
    }
}

/// Reports nothing.
///
/// ```
/// use qiku::book::build::{build_with_progress, BuildOptions};
/// use qiku::{NoProgress, Progress};
///
/// assert!(!NoProgress.stop_requested()); // never asks an operation to stop
/// let dir = tempfile::tempdir()?;
/// let games = dir.path().join("games.pgn");
/// std::fs::write(&games, "1. h2e2 h9g7 1-0\n")?;
/// let report = build_with_progress(&[games], &dir.path().join("b.qbk"), &BuildOptions::default(), &NoProgress)?;
/// assert_eq!(report.header.games.used, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}

/// Records the lines said through it ([`Progress::println`]), for tests of what an operation says.
#[cfg(all(test, feature = "generate"))]
#[derive(Default)]
pub(crate) struct RecordedLines(pub(crate) std::sync::Mutex<Vec<String>>);

#[cfg(all(test, feature = "generate"))]
impl Progress for RecordedLines {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
    fn println(&self, text: &str) {
        self.0.lock().unwrap().push(text.to_string());
    }
}

/// One phase said through [`RecordedPhases`].
#[cfg(all(test, feature = "generate"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Phase {
    /// Its label.
    pub(crate) label: String,
    /// The total it started with.
    pub(crate) total: u64,
    /// The units advanced.
    pub(crate) done: u64,
    /// Whether it was finished.
    pub(crate) finished: bool,
}

/// Records the phases reported through it, for tests of how far an operation says it has come.
#[cfg(all(test, feature = "generate"))]
#[derive(Default)]
pub(crate) struct RecordedPhases(pub(crate) std::sync::Mutex<Vec<Phase>>);

#[cfg(all(test, feature = "generate"))]
impl RecordedPhases {
    /// The phases reported so far, taken out.
    pub(crate) fn take(&self) -> Vec<Phase> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[cfg(all(test, feature = "generate"))]
impl Progress for RecordedPhases {
    fn start(&self, label: &str, total: u64) {
        self.0.lock().unwrap().push(Phase { label: label.to_string(), total, done: 0, finished: false });
    }
    fn advance(&self, n: u64) {
        self.0.lock().unwrap().last_mut().expect("advanced before a phase started").done += n;
    }
    fn finish(&self) {
        self.0.lock().unwrap().last_mut().expect("finished before a phase started").finished = true;
    }
}
