//! The reader's line machinery: finding the next game's start, loading one line at a time
//! (bounded by the line limit, checked for bytes a text line cannot hold), skipping lines, and
//! the errors found in a line. A second `impl` block of [`Reader`], kept apart from the grammar
//! in `reader.rs`.

use super::*;

impl<R: BufRead> Reader<R> {
    /// Skips blank lines and `%` escape lines; leaves `pos` at the first content of the next
    /// game. Returns false at the end of the input.
    pub(super) fn seek_game_start(&mut self) -> bool {
        loop {
            if self.loaded {
                let i = skip_ws(self.text.as_bytes(), self.pos);
                self.pos = i;
                if i < self.text.len() || self.line_state != LineState::Ok {
                    return true;
                }
            }
            if !self.load_line() {
                return false;
            }
            self.begin_line();
        }
    }

    /// Positions at the start of a freshly loaded line, ignoring `%` escape lines entirely.
    pub(super) fn begin_line(&mut self) {
        if self.text.starts_with('%') {
            self.skip_line();
        } else {
            self.pos = self.first;
        }
    }

    pub(super) fn skip_line(&mut self) {
        self.pos = self.text.len();
        self.line_state = LineState::Ok;
    }

    pub(super) fn is_tag_line(&self) -> bool {
        self.text.as_bytes().get(self.first) == Some(&b'[')
    }

    /// Just after the last content of the current game.
    pub(super) fn game_end(&mut self) -> Location {
        if let Some(byte) = self.end_mark.take() {
            self.end_loc = loc!(self, byte);
        }
        self.end_loc
    }

    /// Reads the next line into `text`. Returns false at the end of the input, and after a read
    /// failure, which is kept in `failure` (with the input counted as ended) for `read_game` to
    /// return once the game being read is delivered. A line the failure cut off is dropped: its
    /// last token may be cut too.
    pub(super) fn load_line(&mut self) -> bool {
        match self.try_load_line() {
            Ok(more) => more,
            Err(e) => {
                self.eof = true;
                self.failure = Some(e);
                false
            }
        }
    }

    pub(super) fn try_load_line(&mut self) -> io::Result<bool> {
        if let Some(byte) = self.end_mark.take() {
            self.end_loc = loc!(self, byte);
        }
        self.prev_blank = !self.loaded || self.cur_blank;
        self.loaded = false;
        if self.eof {
            return Ok(false);
        }
        let mut buf = std::mem::take(&mut self.text).into_bytes();
        buf.clear();
        // +2: room for "\r\n" after a line of exactly the maximum length.
        let cap = self.max_line_len as u64 + 2;
        let n = (&mut self.inner).take(cap).read_until(b'\n', &mut buf)?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.bytes_read += n as u64;
        let mut too_long = false;
        self.line_terminated = buf.last() == Some(&b'\n') || n as u64 == cap;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        } else if n as u64 == cap {
            too_long = true;
            self.bytes_read += self.discard_rest_of_line()?;
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        too_long |= buf.len() > self.max_line_len;
        self.line_no += 1;
        if self.line_no == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
        }
        if too_long {
            // From its first non-blank character, which tells what the line is.
            let start = skip_ws(&buf, 0);
            buf.truncate(start + TOO_LONG_KEPT);
            buf.drain(..start);
            let whole = std::str::from_utf8(&buf).map_or_else(|e| e.valid_up_to(), str::len);
            buf.truncate(whole);
            self.text = String::from_utf8(buf).unwrap_or_default();
            self.line_state = LineState::TooLong;
        } else {
            match String::from_utf8(buf) {
                Ok(s) => {
                    self.text = s;
                    self.line_state = LineState::Ok;
                }
                Err(e) => {
                    let valid = e.utf8_error().valid_up_to();
                    // The bad sequence (or the cut-off character that ends the line).
                    let bad = e.utf8_error().error_len();
                    let mut bytes = e.into_bytes();
                    let mut tail = [0u8; 4];
                    let tail_len = bad.unwrap_or(bytes.len() - valid).min(4);
                    tail[..tail_len].copy_from_slice(&bytes[valid..valid + tail_len]);
                    bytes.truncate(valid);
                    self.text = String::from_utf8(bytes).unwrap_or_default();
                    self.line_state = LineState::InvalidUtf8 { tail, tail_len: tail_len as u8 };
                }
            }
        }
        self.first = skip_ws(self.text.as_bytes(), 0);
        self.cur_blank = self.first == self.text.len() && self.line_state == LineState::Ok;
        let ascii = self.text.is_ascii();
        self.cols.reset(ascii);
        self.line_has_fffd = !ascii && self.text.contains('\u{FFFD}');
        self.pos = 0;
        self.loaded = true;
        Ok(true)
    }

    /// After an over-long line: drops input up to and including the next `\n`.
    pub(super) fn discard_rest_of_line(&mut self) -> io::Result<u64> {
        let mut total = 0u64;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(total);
            }
            let (used, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(k) => (k + 1, true),
                None => (buf.len(), false),
            };
            self.inner.consume(used);
            total += used as u64;
            if done {
                return Ok(total);
            }
        }
    }

    /// The error for a line that could not be taken as text, once its good part is used up.
    pub(super) fn line_error(&mut self) -> Option<SyntaxError> {
        let len = self.text.len();
        match self.line_state {
            LineState::Ok => None,
            LineState::InvalidUtf8 { tail, tail_len } => {
                // The text just before the bad bytes, then the bytes as `\xe9`.
                let from = self.text.char_indices().rev().nth(INVALID_CONTEXT - 1).map_or(0, |(i, _)| i);
                let mut shown = snippet(self.text.get(from..).unwrap_or(""));
                for b in tail.get(..usize::from(tail_len)).unwrap_or_default() {
                    shown.push_str(&format!("\\x{b:02x}"));
                }
                Some(SyntaxError { location: loc!(self, len), kind: ErrorKind::InvalidUtf8, snippet: shown })
            }
            LineState::TooLong => Some(SyntaxError {
                location: loc!(self, 0),
                kind: ErrorKind::LineTooLong,
                snippet: snippet(self.text.get(self.first..).unwrap_or("")),
            }),
        }
    }

    pub(super) fn failure(&mut self, err: SyntaxError, resync: Resync) -> Step {
        self.error = Some(err);
        Step::Fail(resync)
    }

    /// Fails with the error of a line that could not be taken as text (see `line_error`).
    pub(super) fn line_failure(&mut self) -> Step {
        let err = self.line_error().unwrap_or_else(unreachable_err);
        self.failure(err, Resync::Auto)
    }

    pub(super) fn error_at(&mut self, byte: usize, kind: ErrorKind) -> Step {
        let location = loc!(self, byte);
        let snippet = snippet(self.text.get(byte..).unwrap_or(""));
        self.failure(SyntaxError { location, kind, snippet }, Resync::Auto)
    }
}
