//! The engine's session over a reader and a writer: it starts speaking UCI and switches to the
//! UCCI dialect when the GUI's first words say so. Kept apart from both protocol modules so that
//! neither needs the other (`ucci` builds on `uci`'s session state).

use super::ucci::Ucci;
use super::uci::{Openers, Output, Uci};
use std::io::BufRead;

/// The protocol a session speaks.
enum Protocol {
    Uci(Box<Uci>),
    Ucci(Box<Ucci>),
}

/// Runs the engine's session on `input` until `quit` or end of input: UCI, until a `ucci` line
/// switches to the UCCI dialect ([`super::ucci`]; nothing of the UCI state is carried over).
pub fn run(mut input: impl BufRead, out: Output, openers: Openers) {
    let mut session = Protocol::Uci(Box::new(Uci::new(out.clone(), openers)));
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Bytes, not `lines()`: a line that is not UTF-8 is garbage to report, not the end.
        match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
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
    // End of input: let a running search finish its move, as if `stop` had been sent.
    match &mut session {
        Protocol::Uci(uci) => uci.stop(),
        Protocol::Ucci(ucci) => ucci.finish(),
    }
}
