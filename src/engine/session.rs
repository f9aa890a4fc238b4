//! The engine's session over a reader and a writer: it starts speaking UCI and switches to the
//! UCCI dialect when the GUI's first words say so. Kept apart from both protocol modules so that
//! neither needs the other (`ucci` builds on `uci`'s session state).

use super::ucci;
use super::uci::{Openers, Output, Uci};
use std::io::BufRead;

/// Runs the UCI loop on `input` until `quit` or end of input; a `ucci` line switches to the
/// UCCI dialect ([`ucci`]).
pub fn run(mut input: impl BufRead, out: Output, openers: Openers) {
    let mut uci = Uci::new(out.clone(), openers);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Bytes, not `lines()`: a line that is not UTF-8 is garbage to report, not the end.
        match input.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim() == "ucci" {
            // The GUI speaks UCCI: hand the session over (nothing of UCI's state is carried).
            uci.stop();
            return ucci::run(input, out, openers);
        }
        if !uci.command(&line) {
            return;
        }
    }
    // End of input: let a running search finish its move, as if `stop` had been sent.
    uci.stop();
}
