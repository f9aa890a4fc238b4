//! Ctrl-C (SIGINT) and SIGTERM during `qiku-book`'s long writers (`build`, `merge`, `export`,
//! `import`) and `qiku-tb generate`. Killed by the signal's default action, a writer would leave
//! its temporary output and spill files behind (and a paged table's solve would lose the levels
//! since its last checkpoint). Once [`install`] has run, the first signal only asks the work to
//! stop: [`TermProgress`](crate::progress::TermProgress) answers the library's
//! [`qiku::Progress::stop_requested`] from it, the library ends with a "stopped" error, removing
//! its temporary files, and the program says what was kept (a book writer: nothing,
//! [`nothing_written`]) and exits with the status a shell gives a process the signal ended
//! ([`exit_status`]: 130 for SIGINT, 143 for SIGTERM). A second signal ends the process at once
//! with that status (a last resort: its temporary files stay, for the next write of the same
//! output to remove).
//!
//! Programs that never call [`install`] keep the default behaviour, and [`requested`] is always
//! `false` for them.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Why a writer failed: an error to print, or a stop asked for by a signal (the library removed
/// what it had begun to write).
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// The message to print after the program's name.
    Error(String),
    /// Ctrl-C or SIGTERM stopped the work; nothing was written.
    Stopped,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Error(message)
    }
}

/// The flags the signal handlers set: that a stop was asked for, and by which signal.
struct Flags {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Makes SIGINT and SIGTERM ask for a stop instead of ending the process (see the module
/// documentation); a second one ends it at once. Calling it again does nothing more. On systems
/// without these signals it does nothing.
pub fn install() -> Result<(), String> {
    let mut fresh = false;
    let flags = FLAGS.get_or_init(|| {
        fresh = true;
        Flags { stop: Arc::new(AtomicBool::new(false)), signal: Arc::new(AtomicUsize::new(0)) }
    });
    if !fresh {
        return Ok(());
    }
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        use signal_hook::flag;
        let failed = |e: std::io::Error| format!("cannot set up the Ctrl-C handler: {e}");
        for signal in [SIGINT, SIGTERM] {
            // Registered first, so run first: it ends the process only when an earlier signal
            // has already set the flag.
            flag::register_conditional_shutdown(signal, 128 + signal, Arc::clone(&flags.stop)).map_err(failed)?;
            flag::register_usize(signal, Arc::clone(&flags.signal), signal as usize).map_err(failed)?;
            flag::register(signal, Arc::clone(&flags.stop)).map_err(failed)?;
        }
    }
    Ok(())
}

/// Whether a signal has asked for a stop since [`install`] (always `false` without it).
pub fn requested() -> bool {
    FLAGS.get().is_some_and(|f| f.stop.load(Ordering::Relaxed))
}

/// The exit status for a stop: 128 plus the signal's number, as a shell reports a process the
/// signal ended (130 for SIGINT, 143 for SIGTERM; 130 when no signal is known).
pub fn exit_status() -> u8 {
    let signal = FLAGS.get().map_or(0, |f| f.signal.load(Ordering::Relaxed));
    u8::try_from(signal).ok().filter(|&s| s > 0 && s < 128).map_or(130, |s| 128 + s)
}

/// What a writer stopped by a signal says: that nothing was written, and that the file at
/// `output` is as it was (`existed`: there was one before the command started) or was not made.
pub fn nothing_written(output: &Path, existed: bool) -> String {
    if existed {
        format!("interrupted; nothing written ({} is unchanged)", output.display())
    } else {
        format!("interrupted; nothing written (no {} was made)", output.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_status() {
        let p = Path::new("out/my.qbk");
        assert_eq!(nothing_written(p, true), "interrupted; nothing written (out/my.qbk is unchanged)");
        assert_eq!(nothing_written(p, false), "interrupted; nothing written (no out/my.qbk was made)");
        // Nothing installed in the test harness: no stop, and the status of SIGINT.
        assert!(!requested());
        assert_eq!(exit_status(), 130);
    }
}
