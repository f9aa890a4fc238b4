//! The UCI session over a reader and a writer: output that fails ends it.
//! Time bounds here are liveness checks (generous), not speed assertions.

use qiku::engine::adapters::Openers;
use qiku::engine::session;
use qiku::engine::uci::{Output, Uci};
use std::io::{Cursor, ErrorKind, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIVENESS: Duration = Duration::from_secs(20);

/// A writer whose every write fails as `kind`, counting the attempts.
#[derive(Clone)]
struct Failing {
    attempts: Arc<AtomicUsize>,
    kind: ErrorKind,
}

impl Failing {
    fn new(kind: ErrorKind) -> Failing {
        Failing { attempts: Arc::default(), kind }
    }
    fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }
}

impl Write for Failing {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        Err(self.kind.into())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn output_that_fails_ends_the_session() {
    // The GUI is gone (a closed pipe), or the output cannot take more (a full disk): the first
    // write fails, nothing more is tried, and no further line is read.
    for kind in [ErrorKind::BrokenPipe, ErrorKind::StorageFull] {
        let failing = Failing::new(kind);
        let text = "uci\nisready\nposition startpos\ngo depth 3\nisready\n";
        let mut input = Cursor::new(text);
        session::run(&mut input, Output::new(Box::new(failing.clone())), Openers::default());
        assert_eq!(failing.attempts(), 1, "{kind:?}");
        assert_eq!(input.position(), "uci\n".len() as u64, "{kind:?}: read on after the output failed");
    }
    // The same in UCCI, whose output goes through the UCI session's.
    let failing = Failing::new(ErrorKind::BrokenPipe);
    let mut input = Cursor::new("ucci\nisready\nquit\n");
    session::run(&mut input, Output::new(Box::new(failing.clone())), Openers::default());
    assert_eq!((failing.attempts(), input.position()), (1, "ucci\n".len() as u64));
}

#[test]
fn output_that_fails_stops_an_infinite_search() {
    // `go infinite` searches until `stop`, which a GUI that is gone never sends: the first line
    // the search cannot write ends it.
    let failing = Failing::new(ErrorKind::BrokenPipe);
    let mut uci = Uci::new(Output::new(Box::new(failing.clone())), Openers::default());
    uci.command("position startpos");
    uci.command("go infinite");
    let deadline = Instant::now() + LIVENESS;
    while uci.is_searching() {
        assert!(Instant::now() < deadline, "the search went on after its output failed");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(failing.attempts(), 1);
}
