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

/// Formats a JSON Pointer for messages (the empty pointer is the document root).
pub(crate) struct Location<'a>(pub(crate) &'a str);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the document root")
        } else {
            write!(f, "`{}`", self.0)
        }
    }
}
