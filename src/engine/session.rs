//! The engine's session over a reader and a writer: it starts speaking UCI and switches to the
//! UCCI dialect when the GUI's first words say so. Kept apart from both protocol modules so that
//! neither needs the other (`ucci` builds on `uci`'s session state).

use super::ucci::Ucci;
use super::uci::{Openers, Output, Uci};
use std::io::{BufRead, Read};

/// The protocol a session speaks.
enum Protocol {
    Uci(Box<Uci>),
    Ucci(Box<Ucci>),
}

/// The longest input line the engine reads, in bytes (a `position` with thousands of moves
/// fits). A longer line is read to its end without being kept, answered with a short
/// `info string`, and ignored.
pub const MAX_LINE: usize = 64 * 1024;

/// Reads one line of at most `max` bytes into `buf` (the newline and a carriage return before
/// it removed). Returns `Ok(None)` at end of input, `Ok(Some(true))` for a line that fits, and
/// `Ok(Some(false))` for a longer one: it is read to its end without being kept (memory stays
/// bounded by `max` whatever the input), `buf` holding its first `max` bytes.
///
/// ```
/// use qiku::engine::session::read_bounded_line;
///
/// let mut input = &b"isready\nxxxxxxxxxx\ngo"[..];
/// let mut buf = Vec::new();
/// assert_eq!(read_bounded_line(&mut input, 8, &mut buf)?, Some(true));
/// assert_eq!(buf, b"isready");
/// assert_eq!(read_bounded_line(&mut input, 8, &mut buf)?, Some(false)); // 10 bytes: too long
/// assert_eq!(buf, b"xxxxxxxx");
/// assert_eq!(read_bounded_line(&mut input, 8, &mut buf)?, Some(true)); // no newline at the end
/// assert_eq!(buf, b"go");
/// assert_eq!(read_bounded_line(&mut input, 8, &mut buf)?, None);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_bounded_line(r: &mut impl BufRead, max: usize, buf: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    buf.clear();
    let n = r.by_ref().take(max as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        return Ok(Some(buf.len() <= max));
    }
    if buf.len() <= max {
        // End of input without a newline.
        return Ok(Some(true));
    }
    // Too long: skip the rest of the line without keeping it.
    buf.truncate(max);
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(Some(false));
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                r.consume(i + 1);
                return Ok(Some(false));
            }
            None => {
                let len = chunk.len();
                r.consume(len);
            }
        }
    }
}

/// Runs the engine's session on `input` until `quit`, end of input or output that fails: UCI,
/// until a `ucci` line switches to the UCCI dialect ([`super::ucci`]; nothing of the UCI state is
/// carried over). Lines longer than [`MAX_LINE`] are answered with `info string` and a short
/// excerpt, and skipped. A write to `out` that fails (the GUI is gone: see [`Output::failed`])
/// stops a running search at its next line of output, and the session ends before it reads
/// another line; saying why is the writer's business (the `qiku` program reports an error other
/// than a closed pipe on standard error, and exits with a failure).
///
/// ```
/// use qiku::engine::{session, uci::Output};
/// use std::io::Cursor;
///
/// // Output that takes 10 bytes: `uci`'s answer fills it, and the session reads no further.
/// let mut input = Cursor::new("uci\nisready\nposition startpos\n");
/// session::run(&mut input, Output::new(Box::new(Cursor::new([0u8; 10]))), Default::default());
/// assert_eq!(input.position(), 4);
/// ```
pub fn run(mut input: impl BufRead, out: Output, openers: Openers) {
    let mut session = Protocol::Uci(Box::new(Uci::new(out.clone(), openers)));
    let mut buf = Vec::new();
    // Bytes, not `lines()`: a line that is not UTF-8 is garbage to report, not the end. A read
    // error ends the session like the end of input; so does output that failed.
    while !out.failed() {
        let Ok(Some(fits)) = read_bounded_line(&mut input, MAX_LINE, &mut buf) else { break };
        let line = String::from_utf8_lossy(&buf);
        if !fits {
            out.line(&format!(
                "info string line too long (more than {MAX_LINE} bytes), ignored: {}",
                super::uci::excerpt(line.trim())
            ));
            // A `position` the engine could not read leaves it without one: a `go` must not
            // search the previous position.
            if line.trim_start().starts_with("position") {
                match &mut session {
                    Protocol::Uci(uci) => uci.refuse_position("line too long"),
                    Protocol::Ucci(ucci) => ucci.refuse_position("line too long"),
                }
            }
            continue;
        }
        let go_on = match &mut session {
            Protocol::Uci(uci) if line.trim() == "ucci" => {
                uci.stop();
                let mut ucci = Box::new(Ucci::new(out.clone(), openers));
                let go_on = ucci.command(&line);
                session = Protocol::Ucci(ucci);
                go_on
            }
            Protocol::Uci(uci) => uci.command(&line),
            Protocol::Ucci(ucci) => ucci.command(&line),
        };
        if !go_on {
            return;
        }
    }
    // End of input: let a running search finish its move, as if `stop` had been sent (after
    // output failed, the search stops and its move is not written).
    match &mut session {
        Protocol::Uci(uci) => uci.stop(),
        Protocol::Ucci(ucci) => ucci.finish(),
    }
}
