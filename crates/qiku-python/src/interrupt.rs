//! Long calls that Ctrl-C interrupts. Python runs signal handlers (the one behind
//! `KeyboardInterrupt`) only on its main thread and only between bytecodes, so a call that keeps
//! that thread busy in Rust cannot be interrupted. [`interruptible`] runs the work on a thread of
//! its own while the calling thread, with the GIL released, waits for it and every 50 ms lets
//! Python run its handlers; an exception from a handler asks the work to stop (through a flag
//! the work reads) and is raised once the work has ended.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::prelude::*;

use crate::adapter::Progress;

/// How often the waiting thread lets Python run its signal handlers.
const POLL: Duration = Duration::from_millis(50);
/// The worker's stack: that of a main thread, since the work would otherwise run on one.
const STACK: usize = 8 << 20;

/// Runs `work` on a thread of its own with the GIL released, letting Python run its signal
/// handlers every 50 ms meanwhile. The first exception a handler raises (`KeyboardInterrupt`
/// for Ctrl-C) calls `on_signal`, which must make `work` end soon (set the flag it reads), and is
/// returned when `work` has ended, its result dropped. A panic of `work` is passed on.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    on_signal: impl Fn() + Sync,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let (result, signal) = py.detach(|| {
        // The work is taken by whichever thread runs it: the worker, or this one if no thread
        // can be started (then without interruption, as before).
        let slot = Mutex::new(Some(work));
        let take = || slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        std::thread::scope(|scope| {
            let (tx, rx) = sync_channel(1);
            let take = &take;
            // The sender moves into the worker, so that a panic there disconnects the channel.
            let spawned =
                std::thread::Builder::new().name("qiku".into()).stack_size(STACK).spawn_scoped(scope, move || {
                    if let Some(work) = take() {
                        let _ = tx.send(work());
                    }
                });
            let worker = match spawned {
                Ok(worker) => worker,
                Err(_) => {
                    let work = take().expect("the work is run once");
                    return (work(), None);
                }
            };
            let mut signal: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(POLL) {
                    Ok(result) => return (result, signal),
                    Err(RecvTimeoutError::Timeout) => {
                        if signal.is_none() {
                            if let Err(e) = Python::attach(|py| py.check_signals()) {
                                on_signal();
                                signal = Some(e);
                            }
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        // The worker ended without a result: it panicked.
                        match worker.join() {
                            Err(panic) => std::panic::resume_unwind(panic),
                            Ok(()) => unreachable!("a worker that returns sends its result"),
                        }
                    }
                }
            }
        })
    });
    match signal {
        Some(e) => Err(e),
        None => Ok(result),
    }
}

/// A stop flag as a progress receiver that reports nothing: the library's long operations
/// (tablebase generation) ask it whether to stop.
#[derive(Clone, Default)]
pub struct StopFlag(pub Arc<AtomicBool>);

impl StopFlag {
    /// Asks the work to stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

impl Progress for StopFlag {
    fn start(&self, _label: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
    fn stop_requested(&self) -> bool {
        self.is_set()
    }
}
