//! Standard input for a build that a stop can leave while it waits.
//!
//! A read of standard input blocks until the writer of the pipe (or the user at the terminal)
//! sends more, and a signal handler that only sets a flag does not end that wait. A build told
//! to stop while it waits would go on waiting, for as long as the producer takes. So standard
//! input is read by a thread of its own, which hands its chunks over a channel; the build's
//! reader waits on the channel in short steps and, once the build is told to stop
//! ([`Abandon::set`]), gives an error instead of waiting on. The thread may stay blocked in its
//! read until the process ends or more input comes; it then ends at its next chunk.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// Bytes a chunk of standard input holds at most.
const CHUNK: usize = 64 << 10;
/// How long a read waits on the channel before it looks at the stop flag again.
const STEP: Duration = Duration::from_millis(100);

/// The flag that tells [`Stdin`] readers to stop waiting.
#[derive(Clone, Default)]
pub(crate) struct Abandon(Arc<AtomicBool>);

impl Abandon {
    /// From now on, a read that would wait fails instead.
    pub(crate) fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Abandon::set`] was called.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Standard input, read by a thread of its own (see the module documentation).
pub(crate) struct Stdin {
    chunks: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
    ended: bool,
    abandon: Abandon,
}

impl Stdin {
    /// Starts reading standard input; reads fail once `abandon` is set and no input is ready.
    pub(crate) fn new(abandon: Abandon) -> Stdin {
        let (tx, chunks) = sync_channel(4);
        std::thread::spawn(move || {
            let mut input = io::stdin();
            loop {
                let mut buf = vec![0u8; CHUNK];
                match input.read(&mut buf) {
                    Ok(n) => {
                        buf.truncate(n);
                        // An empty chunk is the end; a closed channel means nobody reads any more.
                        if tx.send(Ok(buf)).is_err() || n == 0 {
                            return;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        Stdin { chunks, chunk: Vec::new(), at: 0, ended: false, abandon }
    }
}

impl Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            match self.chunks.recv_timeout(STEP) {
                Ok(Ok(chunk)) => {
                    self.ended = chunk.is_empty();
                    (self.chunk, self.at) = (chunk, 0);
                }
                Ok(Err(e)) => {
                    self.ended = true;
                    return Err(e);
                }
                Err(RecvTimeoutError::Timeout) if self.abandon.is_set() => {
                    return Err(io::Error::other("the build was stopped while it waited for standard input"));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.ended = true;
                    return Err(io::Error::other("standard input's reader ended without the end of the input"));
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
