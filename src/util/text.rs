//! How messages quote user input: in part, so that a huge input never comes back whole.

/// How much of an input a message quotes, in characters.
const EXCERPT_CHARS: usize = 80;

/// The first 80 characters of `text`, followed by `...` if there is more: how errors and
/// protocol replies quote an input, so that a huge one never comes back whole.
///
/// ```
/// use qiku::engine::uci::excerpt;
///
/// assert_eq!(excerpt("position startpos"), "position startpos");
/// assert_eq!(excerpt(&"x".repeat(100)), format!("{}...", "x".repeat(80)));
/// ```
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}
