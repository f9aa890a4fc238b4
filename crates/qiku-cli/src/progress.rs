//! Progress reports for the library's [`Progress`] reports: a bar (indicatif) when stderr is a
//! terminal; otherwise, so that logs and pipelines still see long work advance, plain lines with
//! no terminal control codes: one when a phase starts, one at most every
//! [`PLAIN_INTERVAL`] while it runs, and one when it ends. When not wanted, every call is a no-op.
//! A stop is asked for when Ctrl-C or SIGTERM came in a program that set that up
//! ([`crate::interrupt`]).

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};
use qiku::Progress;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a plain progress line is printed while a phase runs (stderr not a terminal).
pub const PLAIN_INTERVAL: Duration = Duration::from_secs(5);

/// How progress is shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// Nothing.
    Hidden,
    /// A bar redrawn in place (stderr is a terminal).
    Bar,
    /// Plain periodic lines (stderr is a file or a pipe).
    Lines,
}

/// A progress display on stderr, re-armed by every [`Progress::start`].
pub struct TermProgress {
    bar: ProgressBar,
    mode: Mode,
    bytes: bool,
    /// The phase's label and when the last plain line was printed.
    plain: Mutex<(String, Instant)>,
}

impl TermProgress {
    /// A display if `wanted`: a bar when stderr is a terminal, plain lines otherwise. `bytes`:
    /// the units are bytes (shown as KiB/MiB) rather than entries.
    pub fn new(wanted: bool, bytes: bool) -> TermProgress {
        let mode = match (wanted, std::io::stderr().is_terminal()) {
            (false, _) => Mode::Hidden,
            (true, true) => Mode::Bar,
            (true, false) => Mode::Lines,
        };
        let bar = ProgressBar::with_draw_target(
            Some(0),
            if mode == Mode::Bar { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() },
        );
        TermProgress { bar, mode, bytes, plain: Mutex::new((String::new(), Instant::now())) }
    }

    /// The plain line of the phase's state: `label: done of total (p%), elapsed, message`;
    /// `started` and `done in` mark the phase's first and last lines.
    fn plain_line(&self, label: &str, first: bool, last: bool) -> String {
        let done = self.bar.position();
        let total = self.bar.length().unwrap_or(0);
        let amount = |n: u64| if self.bytes { HumanBytes(n).to_string() } else { n.to_string() };
        let mut line = if total > 0 {
            format!("{label}: {} of {} ({:.0}%)", amount(done), amount(total), 100.0 * done as f64 / total as f64)
        } else if done > 0 {
            format!("{label}: {}", amount(done))
        } else {
            format!("{label}:")
        };
        let secs = self.bar.elapsed().as_secs_f64();
        line.push_str(&if first {
            " started".to_string()
        } else if last {
            format!(" done in {secs:.1} s")
        } else {
            format!(" {secs:.0} s")
        });
        let msg = self.bar.message();
        if !msg.is_empty() && !first {
            line.push_str(", ");
            line.push_str(&msg);
        }
        line
    }

    /// Takes the bar off the terminal without a closing line: for work that was stopped, whose
    /// phase did not finish.
    pub fn clear(&self) {
        self.bar.disable_steady_tick();
        self.bar.finish_and_clear();
    }

    /// Prints a plain line if the interval has passed since the last one.
    fn tick(&self) {
        if self.mode != Mode::Lines {
            return;
        }
        let mut plain = self.plain.lock().unwrap_or_else(|e| e.into_inner());
        if plain.1.elapsed() >= PLAIN_INTERVAL {
            plain.1 = Instant::now();
            eprintln!("{}", self.plain_line(&plain.0, false, false));
        }
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
        self.bar.set_message("");
        // Position, clock and state all afresh: a bar finished (and so cleared) by the phase
        // before would otherwise stay hidden, drawn by no tick, for every later phase.
        self.bar.reset();
        match self.mode {
            Mode::Bar => self.bar.enable_steady_tick(Duration::from_millis(200)),
            Mode::Lines => {
                let mut plain = self.plain.lock().unwrap_or_else(|e| e.into_inner());
                *plain = (label.to_string(), Instant::now());
                eprintln!("{}", self.plain_line(label, true, false));
            }
            Mode::Hidden => {}
        }
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
        self.tick();
    }
    fn set_position(&self, done: u64) {
        self.bar.set_position(done);
        self.tick();
    }
    fn message(&self, text: &str) {
        self.bar.set_message(text.to_string());
        // A phase that reports by messages only (a table's levels) still gets its periodic line.
        self.tick();
    }
    fn println(&self, text: &str) {
        if self.mode == Mode::Bar {
            self.bar.println(text);
        } else {
            eprintln!("{text}");
        }
    }
    fn finish(&self) {
        if self.mode == Mode::Lines {
            let plain = self.plain.lock().unwrap_or_else(|e| e.into_inner());
            eprintln!("{}", self.plain_line(&plain.0, false, true));
        }
        self.bar.disable_steady_tick();
        self.bar.finish_and_clear();
    }
    /// A stop asked for by Ctrl-C or SIGTERM, in programs that set that up
    /// ([`crate::interrupt::install`]); never otherwise.
    fn stop_requested(&self) -> bool {
        crate::interrupt::requested()
    }
}
