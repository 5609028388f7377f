//! JSON Pointers (RFC 6901) as the reader reports them: escaping a reference token, and
//! naming a pointer in a message.

use std::fmt;

/// Escapes one JSON Pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`).
pub(crate) fn escape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        std::borrow::Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(token)
    }
}

/// Unescapes one JSON Pointer reference token (RFC 6901: `~1` → `/`, then `~0` → `~`).
pub(crate) fn unescape_token(token: &str) -> String {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~")
    } else {
        token.to_owned()
    }
}

/// Formats a JSON Pointer for messages (the empty pointer is the document root).
pub(crate) struct Location<'a>(pub(crate) &'a str);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match crate::codec::shown::Shown(self.0) {
            _ if self.0.is_empty() => f.write_str("the document root"),
            // A pointer through long keys is shortened (the error keeps it whole).
            shown if self.0.len() > crate::codec::shown::SHOWN_WHOLE => {
                let text = shown.to_string();
                match text.split_once("… (") {
                    Some((head, len)) => write!(f, "`{head}…` ({len}"),
                    None => write!(f, "`{text}`"),
                }
            }
            _ => write!(f, "`{}`", self.0),
        }
    }
}
