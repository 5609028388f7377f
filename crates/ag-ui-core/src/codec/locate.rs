//! Finding a member in JSON text by its pointer, for errors whose position the parser
//! could not give: those about members read before a late tag, which are buffered and
//! checked only once the tag is known (when the parser is already past them).

/// Line and column (1-based, in bytes, as serde_json counts them) of the last byte of the
/// value at `pointer` in `text` (of the last such member when a key repeats), if the text
/// up to it is well-formed. Iterative: no recursion, whatever the depth.
pub(crate) fn locate(text: &[u8], pointer: &str) -> Option<(usize, usize)> {
    let mut pos = skip_ws(text, 0);
    if !pointer.is_empty() {
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            pos = child(text, pos, &token)?;
        }
    }
    let end = skip_value(text, pos)?;
    let last = end.checked_sub(1)?;
    let line_start = text[..last]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + text[..last].iter().filter(|b| **b == b'\n').count();
    Some((line, last - line_start + 1))
}

/// The start of member `token` of the array or object starting at `pos`.
fn child(text: &[u8], pos: usize, token: &str) -> Option<usize> {
    match text.get(pos)? {
        b'[' => {
            let wanted: usize = token.parse().ok()?;
            let mut at = skip_ws(text, pos + 1);
            for _ in 0..wanted {
                at = skip_ws(text, skip_value(text, at)?);
                if text.get(at)? != &b',' {
                    return None;
                }
                at = skip_ws(text, at + 1);
            }
            (text.get(at)? != &b']').then_some(at)
        }
        b'{' => {
            let mut at = skip_ws(text, pos + 1);
            let mut found = None;
            while text.get(at)? == &b'"' {
                let key_end = skip_value(text, at)?;
                let key: String = serde_json::from_slice(&text[at..key_end]).ok()?;
                at = skip_ws(text, key_end);
                if text.get(at)? != &b':' {
                    return None;
                }
                let value = skip_ws(text, at + 1);
                if key == token {
                    found = Some(value);
                }
                at = skip_ws(text, skip_value(text, value)?);
                match text.get(at) {
                    Some(b',') => at = skip_ws(text, at + 1),
                    _ => break,
                }
            }
            found
        }
        _ => None,
    }
}

fn skip_ws(text: &[u8], mut pos: usize) -> usize {
    while matches!(text.get(pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        pos += 1;
    }
    pos
}

/// The end (exclusive) of the value starting at `pos`.
fn skip_value(text: &[u8], pos: usize) -> Option<usize> {
    let mut depth = 0_usize;
    let mut at = pos;
    loop {
        match text.get(at)? {
            b'"' => {
                at += 1;
                loop {
                    match text.get(at)? {
                        b'\\' => at += 2,
                        b'"' => break,
                        _ => at += 1,
                    }
                }
                at += 1;
            }
            b'[' | b'{' => {
                depth += 1;
                at += 1;
            }
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                at += 1;
            }
            b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' if depth > 0 => at += 1,
            _ if depth > 0 => at += 1,
            _ => {
                // A number or a literal.
                while !matches!(
                    text.get(at),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    at += 1;
                }
                return Some(at);
            }
        }
        if depth == 0 {
            return Some(at);
        }
    }
}
