//! Memory pressure: a flag the tablebase generator's paging watcher raises while it releases
//! mapped pages, and a cheap check that the passes sweeping whole arrays make between chunks of
//! work, so that they wait for the release instead of mapping pages faster than it can drop
//! them. A process that pages nothing never raises it, and the check is one relaxed load.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

static RELEASING: AtomicBool = AtomicBool::new(false);

/// Raises or lowers the flag (the paging watcher, around a release; only the generator pages).
#[cfg(feature = "generate")]
pub fn set_releasing(on: bool) {
    RELEASING.store(on, Relaxed);
}

/// Waits while the flag is raised. Called between chunks of work, never while holding a lock.
#[inline]
pub fn wait_for_release() {
    while RELEASING.load(Relaxed) {
        std::thread::sleep(Duration::from_micros(200));
    }
}
