//! Terminal progress bars (indicatif) for the library's [`Progress`] reports. Drawn only when
//! wanted and stderr is a terminal; otherwise every call is a no-op.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use qiku::Progress;
use std::io::IsTerminal;
use std::time::Duration;

/// A progress bar on stderr, re-armed by every [`Progress::start`].
pub struct TermProgress {
    bar: ProgressBar,
    drawn: bool,
    bytes: bool,
}

impl TermProgress {
    /// A bar that is drawn if `wanted` and stderr is a terminal. `bytes`: the units are bytes
    /// (shown as KiB/MiB) rather than entries.
    pub fn new(wanted: bool, bytes: bool) -> TermProgress {
        let drawn = wanted && std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if drawn { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
        );
        TermProgress { bar, drawn, bytes }
    }
}

impl Progress for TermProgress {
    fn start(&self, label: &str, total: u64) {
        let template = if self.bytes {
            "{spinner} {prefix} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} {msg}"
        } else {
            "{prefix:>10} [{bar:30}] {percent:>3}% {elapsed} {msg}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            self.bar.set_style(style);
        }
        self.bar.set_prefix(label.to_string());
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.reset_elapsed();
        if self.drawn {
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
    fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }
    fn message(&self, text: &str) {
        self.bar.set_message(text.to_string());
    }
    fn println(&self, text: &str) {
        if self.drawn {
            self.bar.println(text);
        } else {
            eprintln!("{text}");
        }
    }
    fn finish(&self) {
        self.bar.disable_steady_tick();
        self.bar.finish_and_clear();
    }
}
