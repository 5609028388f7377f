//! Bounded display of text taken from the input (names, ids, tag values), so that no
//! message grows with what a hostile peer sends.

use std::fmt;

/// Text up to this many bytes is shown whole.
pub(crate) const SHOWN_WHOLE: usize = 80;
/// Longer text shows about this many bytes (up to a character boundary), an ellipsis and
/// its length.
const SHOWN_PREFIX: usize = 64;

/// Displays text from the input, shortened when long: `Display` writes it as is, `Debug`
/// as a quoted, escaped string; past [`SHOWN_WHOLE`] bytes both keep the first 64 bytes
/// and add `…` and the full length (`"abc…" (1048576 bytes)`).
pub(crate) struct Shown<'a>(pub(crate) &'a str);

impl Shown<'_> {
    /// The text to show and, when shortened, the full length.
    fn parts(&self) -> (&str, Option<usize>) {
        let s = self.0;
        if s.len() <= SHOWN_WHOLE {
            return (s, None);
        }
        let mut end = SHOWN_PREFIX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        (&s[..end], Some(s.len()))
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.parts() {
            (s, None) => f.write_str(s),
            (s, Some(len)) => write!(f, "{s}… ({len} bytes)"),
        }
    }
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.parts() {
            (s, None) => write!(f, "{s:?}"),
            (s, Some(len)) => {
                let quoted = format!("{s:?}");
                let inner = quoted.strip_suffix('"').unwrap_or(&quoted);
                write!(f, "{inner}…\" ({len} bytes)")
            }
        }
    }
}

/// Messages longer than this many bytes keep their start and end around a count of what
/// was left out.
pub(crate) const MESSAGE_BYTES: usize = 1024;

/// `message`, or when longer than [`MESSAGE_BYTES`], its first and last 480 bytes (at
/// character boundaries) around `… (N bytes left out) …`. The end of a message says
/// what was expected, so both ends are kept.
pub(crate) fn bounded(message: String) -> String {
    if message.len() <= MESSAGE_BYTES {
        return message;
    }
    let mut head = 480;
    while !message.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = message.len() - 480;
    while !message.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{} … ({} bytes left out) … {}",
        &message[..head],
        tail - head,
        &message[tail..]
    )
}

/// Lists `items` (each [`Shown`], in quotes, separated by commas): the first `max`, then
/// ` and N more` when there are more than `max` of `total`.
pub(crate) fn listed<'a>(
    items: impl IntoIterator<Item = &'a str>,
    total: usize,
    max: usize,
) -> String {
    let mut out = String::new();
    let mut n = 0;
    for item in items.into_iter().take(max) {
        if n > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("'{}'", Shown(item)));
        n += 1;
    }
    if total > n {
        out.push_str(&format!(" and {} more", total - n));
    }
    out
}
